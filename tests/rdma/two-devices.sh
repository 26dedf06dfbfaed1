#!/bin/bash
# two-devices.sh - one job on two rxe devices (rxe-vm.sh -n veth): even ranks
# on rxe0, odd ranks on rxe1 (rank-device.sh), so that every ring neighbour
# is on the other device. Runs rcoll-bench allreduce and bcast with --check
# through tools/rcoll-run --transport rdma and asserts that
#   - both jobs pass (no wrong byte);
#   - the traffic crossed the veth pair both ways: each end's tx_bytes grew
#     by at least MIN_MIB MiB (messages between ranks on one device never
#     touch the netdev: rxe loops them back inside the device);
#   - both devices sent packets (their hw_counters, where the kernel has them).
# Run from the source root (/work in the guest).
#
# usage: two-devices.sh [-n RANKS] [-m MIN_MIB]    (defaults: 4 ranks, 8 MiB)
set -u

RANKS=4 MIN_MIB=8
while getopts n:m: opt; do
	case $opt in
	n) RANKS=$OPTARG ;;
	m) MIN_MIB=$OPTARG ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
if [ -z "${RXE_DEV:-}" ] || [ -z "${RXE_NETDEV:-}" ] || [ -z "${RXE_DEV2:-}" ] || [ -z "${RXE_NETDEV2:-}" ]; then
	echo "two-devices: needs a second rxe device on a veth pair: run the suite with rxe-vm.sh -n veth"
	exit 1
fi
HERE=$(cd "$(dirname "$0")" && pwd)

net_tx() { cat "/sys/class/net/$1/statistics/tx_bytes"; }
dev_sent() { # DEV: packets the rxe device sent, or "" if the kernel shows none
	local f=/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts
	[ -r "$f" ] && cat "$f"
}

FAILS=0
bad() { echo "FAILED: $*"; FAILS=$((FAILS + 1)); }

tx0=$(net_tx "$RXE_NETDEV") tx1=$(net_tx "$RXE_NETDEV2")
sent0=$(dev_sent "$RXE_DEV") sent1=$(dev_sent "$RXE_DEV2")
for op in allreduce bcast; do
	cmd=(tools/rcoll-run -n "$RANKS" --transport rdma --timeout 120 --job-timeout 240 --
		"$HERE/rank-device.sh" build/bench/rcoll-bench --op "$op" --check --max-bytes 4M --iters 3 --warmup 1)
	echo "+ ${cmd[*]}"
	"${cmd[@]}"
	rc=$?
	[ $rc = 0 ] || bad "$op job exited with status $rc"
done

d0=$(($(net_tx "$RXE_NETDEV") - tx0)) d1=$(($(net_tx "$RXE_NETDEV2") - tx1))
echo "veth: $RXE_NETDEV ($RXE_DEV) sent $d0 bytes, $RXE_NETDEV2 ($RXE_DEV2) sent $d1 bytes"
min=$((MIN_MIB << 20))
[ "$d0" -ge $min ] || bad "$RXE_NETDEV sent $d0 bytes, fewer than $MIN_MIB MiB: the ranks did not talk across the veth pair"
[ "$d1" -ge $min ] || bad "$RXE_NETDEV2 sent $d1 bytes, fewer than $MIN_MIB MiB: the ranks did not talk across the veth pair"
if [ -n "$sent0" ] && [ -n "$sent1" ]; then
	p0=$(($(dev_sent "$RXE_DEV") - sent0)) p1=$(($(dev_sent "$RXE_DEV2") - sent1))
	echo "rxe: $RXE_DEV sent $p0 packets, $RXE_DEV2 sent $p1 packets"
	[ "$p0" -gt 0 ] || bad "$RXE_DEV sent no packet"
	[ "$p1" -gt 0 ] || bad "$RXE_DEV2 sent no packet"
else
	echo "(no rxe hw_counters in sysfs; the veth counters decide)"
fi
if [ $FAILS = 0 ]; then echo "two-devices: OK"; else echo "two-devices: $FAILS problems"; fi
[ $FAILS = 0 ]
