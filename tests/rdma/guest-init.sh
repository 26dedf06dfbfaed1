#!/bin/sh
# guest-init.sh - the /init of the rxe guest (busybox ash, PID 1), installed
# into the base initramfs by rxe-vm.sh. It loads the RDMA modules, creates the
# Soft-RoCE device(s), runs /etc/rxe-vm/cmd with bash, reports the exit status
# on the third serial port and powers the guest off.
#
# Serial ports (files on the host): ttyS0 kernel console, ttyS1 the command's
# output, ttyS2 "RXE_VM_EXIT=<rc>". Exit 125 means the setup here failed.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm /tmp /run /root /out
mount -t devpts devpts /dev/pts
# devtmpfs has no /dev/fd: without it bash's <(...) fails ("/dev/fd/63: No
# such file or directory")
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
echo /sbin/modprobe >/proc/sys/kernel/modprobe
stty -F /dev/ttyS1 raw -echo 2>/dev/null
stty -F /dev/ttyS2 raw -echo 2>/dev/null
OUT=/dev/ttyS1 ST=/dev/ttyS2

# Debian's busybox ash runs its own applets before searching PATH, and
# busybox ip cannot name a veth peer: always use iproute2.
ip() { /usr/sbin/ip "$@"; }

. /etc/rxe-vm/config # RXE_NET, SHARE_OUT (written per run by rxe-vm.sh)

say() { echo "[rxe-vm] $*"; echo "[rxe-vm] $*" >/dev/console; }
finish() { # RC: report the status, flush /out, power off (qemu exits on S5)
	echo "RXE_VM_EXIT=$1" >$ST
	sync
	[ -n "$SHARE_OUT" ] && umount /out 2>/dev/null
	poweroff -f
	sleep 5
	echo o >/proc/sysrq-trigger
}
fail() { say "setup failed: $*" >$OUT 2>&1; dmesg | tail -30 >$OUT; finish 125; }

hostname rxe-vm
ip link set lo up

# rdma_rxe computes the ICRC with the kernel's "crc32" shash, which is a
# module in Debian's kernel and nothing auto-loads it: without it
# "rdma link add" fails with "failed to init crc32 algorithm err:-2".
modprobe crc32_pclmul 2>/dev/null # absent on CPUs without PCLMUL; generic then
for m in crc32_generic rdma_rxe rdma_ucm ib_umad; do modprobe $m || fail "modprobe $m"; done

if [ -n "$SHARE_OUT" ]; then
	# There is no udev: load the PCI transport by hand, or 9pnet_virtio says
	# "no channels available for device out".
	modprobe virtio_pci && modprobe 9pnet_virtio && modprobe 9p &&
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /out ||
		fail "mount 9p /out"
fi

# gid_idx DEV IPV4: prints the index of the RoCE v2 GID ::ffff:IPV4 once the
# kernel has populated it (index 0 is the fe80:: link-local GID); waits 20 s.
gid_idx() {
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo $2 | tr . ' '))
	for n in $(seq 200); do
		for g in /sys/class/infiniband/$1/ports/1/gids/*; do
			i=${g##*/}
			[ "$(cat $g 2>/dev/null)" = "$want" ] || continue
			case $(cat /sys/class/infiniband/$1/ports/1/gid_attrs/types/$i 2>/dev/null) in
			*v2* | *V2*) echo $i; return 0 ;;
			esac
		done
		sleep 0.1
	done
	return 1
}
add_rxe() { # NAME NETDEV IP -> sets GID_<NAME>
	rdma link add $1 type rxe netdev $2 || fail "rdma link add $1 type rxe netdev $2"
	g=$(gid_idx $1 $3) || fail "no RoCE v2 GID for $3 on $1"
	eval "GID_$1=$g"
}

# A dummy netdev is enough for one device: rxe loops packets to its own
# address back internally, so the dummy never carries a packet. (rxe on lo
# works for verbs but rdma_cm cannot resolve a route over it.)
setup_dummy() {
	modprobe dummy numdummies=0 && ip link add rxnet0 type dummy || fail "dummy netdev"
	ip addr add 192.0.2.1/24 dev rxnet0 && ip link set rxnet0 up || fail "ip rxnet0"
	add_rxe rxe0 rxnet0 192.0.2.1
	RXE_NETDEV=rxnet0 RXE_IP=192.0.2.1
}

# Two devices on the two ends of a veth pair. Both addresses are local, so by
# default the kernel sends rxe1->rxe0 packets through lo, where rxe drops them
# (QPs fail to reach RTR, rdma_cm gets ADDR_ERROR). Policy routing sends each
# side out of its own veth end and treats packets as local only when they
# arrive on a veth end, so the traffic really crosses the pair.
setup_veth() {
	modprobe veth && ip link add rxveth0 type veth peer name rxveth1 || fail "veth pair"
	# A veth end hands packets to the per-CPU backlog (default 1000); under
	# a loaded host the guest drains it late, drops become RC retransmits,
	# and Soft-RoCE's retransmit path once failed a WRITE_WITH_IMM as a
	# "remote invalid request" (a two-devices job, host at load 10).
	echo 100000 >/proc/sys/net/core/netdev_max_backlog || true
	ip addr add 192.0.2.1/24 dev rxveth0 && ip addr add 192.0.2.2/24 dev rxveth1 &&
		ip link set rxveth0 up && ip link set rxveth1 up || fail "ip veth"
	add_rxe rxe0 rxveth0 192.0.2.1
	add_rxe rxe1 rxveth1 192.0.2.2
	ip rule add pref 100 lookup local && ip rule del pref 0 lookup local &&
		ip rule add pref 10 iif rxveth0 lookup local &&
		ip rule add pref 10 iif rxveth1 lookup local &&
		ip route add 192.0.2.2/32 dev rxveth0 src 192.0.2.1 table 20 &&
		ip route add 192.0.2.1/32 dev rxveth1 src 192.0.2.2 table 21 &&
		ip rule add pref 20 from 192.0.2.1 lookup 20 &&
		ip rule add pref 21 from 192.0.2.2 lookup 21 || fail "veth policy routing"
	for i in all default rxveth0 rxveth1; do
		echo 0 >/proc/sys/net/ipv4/conf/$i/rp_filter
		echo 1 >/proc/sys/net/ipv4/conf/$i/accept_local
	done
	RXE_NETDEV=rxveth0 RXE_IP=192.0.2.1
	RXE_DEV2=rxe1 RXE_NETDEV2=rxveth1 RXE_IP2=192.0.2.2 RXE_GID_IDX2=$GID_rxe1
	export RXE_DEV2 RXE_NETDEV2 RXE_IP2 RXE_GID_IDX2
}

case $RXE_NET in
dummy) setup_dummy ;;
veth) setup_veth ;;
none) ;;
*) fail "unknown network mode $RXE_NET" ;;
esac
if [ "$RXE_NET" != none ]; then
	RXE_DEV=rxe0 RXE_GID_IDX=$GID_rxe0
	export RXE_DEV RXE_NETDEV RXE_IP RXE_GID_IDX
	for n in $(seq 100); do
		grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state && break
		sleep 0.1
	done
	say "$(uname -r) up $(cut -d' ' -f1 /proc/uptime)s;" \
		"rxe0 on $RXE_NETDEV ip $RXE_IP gid_idx $RXE_GID_IDX" \
		"($(cat /sys/class/infiniband/rxe0/ports/1/state))" \
		"${RXE_DEV2:+; rxe1 on $RXE_NETDEV2 ip $RXE_IP2 gid_idx $RXE_GID_IDX2}" >$OUT
fi
export RCOLL_IN_RXE_VM=1

# Root's default RLIMIT_MEMLOCK is 8 MiB. Root may register more anyway
# (CAP_IPC_LOCK), but a library that checks the limit would refuse RDMA.
ulimit -l unlimited

cd /work 2>/dev/null || cd /root
echo "[rxe-vm] running command" >/dev/console
/bin/bash /etc/rxe-vm/cmd </dev/null >$OUT 2>&1
finish $?
