#!/usr/bin/env bash
# rxe-vm.sh - run a command inside a throwaway qemu guest that has a working
# Soft-RoCE device (rdma_rxe), on any x86-64 Debian 12 host, even one whose
# own kernel has no RDMA support. See docs/RDMA_VM.md.
#
# usage: rxe-vm.sh [options] [--] COMMAND [ARG...]
#   One COMMAND word is run as a bash script line ('ibv_devinfo && rdma link');
#   several words are run as one command, quoted as given.
#
# options
#   -B DIR        the build tree: its executables and shared libraries that
#                 match the build globs (below) go into the guest at the same
#                 absolute path, and /work/build points there
#   -I GLOB       add a build glob (relative to the -B dir; repeatable)
#   -d SRC[:DST]  copy host directory SRC into the guest at DST (default /work);
#                 repeatable. Shared libraries of its ELF files come along.
#   -f SRC[:DST]  copy one host file (default DST: the same path); repeatable
#   -s FILE       run host script FILE (copied in) with bash, ARGs passed on
#   -o DIR        share host DIR read-write into the guest as /out (virtio-9p)
#   -n MODE       dummy: rxe0 on a dummy netdev (default); veth: rxe0 and rxe1
#                 on the two ends of a veth pair; none: no rxe device
#   -t SECONDS    limit for the guest run (default 900); then qemu is killed
#   -m MEM        guest memory (default 2G; the root file system is in RAM)
#   -c CPUS       guest vCPUs (default 2)
#   -a ACCEL      tcg (default) or kvm (only on hosts that run stock guests)
#   -v            also stream the guest kernel console to stderr
#   -k            keep the run directory (logs) even on success
#   --rebuild     re-resolve the kernel package and rebuild the base initramfs
#   --setup       only install host packages, fetch the kernel, build the base
#
# Inside the guest the command starts in /work with bash; PATH has rdma-core,
# perftest, iproute2, python3 (the host's /usr/bin/python3 and its stdlib),
# bash, busybox. Exported: RCOLL_IN_RXE_VM=1, RXE_DEV=rxe0, RXE_NETDEV,
# RXE_IP, RXE_GID_IDX (the RoCE v2 GID index), with -n veth also RXE_DEV2,
# RXE_NETDEV2, RXE_IP2, RXE_GID_IDX2. RLIMIT_MEMLOCK is unlimited.
#
# Exit status: the command's own; 124 when the guest ran past -t; 125 when the
# guest setup failed, the guest crashed or no status came back; 126 usage
# error; 127 host problem (packages, kernel download).
#
# Environment: RCOLL_RXE_VM_CACHE (default /var/tmp/rcoll-rxe-vm),
#   RCOLL_RXE_VM_KERNEL_PKG (default: what linux-image-amd64 depends on),
#   RCOLL_RXE_VM_NO_INSTALL=1 (fail instead of apt-get installing),
#   RCOLL_RXE_VM_BUILD_GLOBS (replaces DEFAULT_BUILD_GLOBS below; -I adds),
#   RCOLL_RXE_VM_NO_STRIP=1 (keep debug info of build-tree files).
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
HERE=$(dirname "$SELF")
CACHE=${RCOLL_RXE_VM_CACHE:-/var/tmp/rcoll-rxe-vm}
# Build-tree files the guest needs: the library, the RDMA test executables,
# the other tests guest-suite.sh runs (gtests.txt, jobs.txt), and the
# tools/bench/examples binaries (only ELF files are taken; no objects).
DEFAULT_BUILD_GLOBS="src/librcoll.so* tests/rdma_* tests/*/rdma_* tests/transport_contract_test tests/transport_operation_test tests/comm_nonblocking_test tests/comm_progress_thread_test tests/comm_split_test tests/comm_create_group_test tests/collectives*_test tests/multiproc/rcoll_test_job tools/* bench/* examples/*"

TIMEOUT=900 MEM=2G CPUS=2 ACCEL=tcg NET=dummy VERBOSE=0 KEEP=0 REBUILD=0 SETUP_ONLY=0
BUILD_DIR="" SCRIPT="" OUTDIR=""
DIRS=() FILES=() BUILD_GLOBS=()

die() { echo "rxe-vm: $*" >&2; exit 127; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
note() { echo "rxe-vm: $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "$SELF" | sed '$d; s/^# \{0,1\}//' >&2; exit 126; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		-B) BUILD_DIR=$(readlink -f "$2"); [ -d "$BUILD_DIR" ] || die "no build dir $2"; shift 2 ;;
		-I) BUILD_GLOBS+=("$2"); shift 2 ;;
		-d) DIRS+=("$2"); shift 2 ;;
		-f) FILES+=("$2"); shift 2 ;;
		-s) SCRIPT=$(readlink -f "$2"); [ -f "$SCRIPT" ] || die "no script $2"; shift 2 ;;
		-o) mkdir -p "$2"; OUTDIR=$(readlink -f "$2"); shift 2 ;;
		-n) NET=$2; shift 2 ;;
		-t) TIMEOUT=$2; shift 2 ;;
		-m) MEM=$2; shift 2 ;;
		-c) CPUS=$2; shift 2 ;;
		-a) ACCEL=$2; shift 2 ;;
		-v) VERBOSE=1; shift ;;
		-k) KEEP=1; shift ;;
		--rebuild) REBUILD=1; shift ;;
		--setup) SETUP_ONLY=1; shift ;;
		-h | --help) usage ;;
		--) shift; break ;;
		-*) echo "rxe-vm: unknown option $1" >&2; usage ;;
		*) break ;;
		esac
	done
	case $NET in dummy | veth | none) ;; *) echo "rxe-vm: bad -n $NET" >&2; usage ;; esac
	case $ACCEL in tcg | kvm) ;; *) echo "rxe-vm: bad -a $ACCEL" >&2; usage ;; esac
	[ $SETUP_ONLY = 1 ] || [ -n "$SCRIPT" ] || [ $# -gt 0 ] || usage
	CMD_ARGS=("$@")
	local defaults
	read -r -a defaults <<<"${RCOLL_RXE_VM_BUILD_GLOBS:-$DEFAULT_BUILD_GLOBS}"
	BUILD_GLOBS+=("${defaults[@]}")
}

# ================================================================ host setup
HOST_PKGS="qemu-system-x86 busybox-static rdma-core ibverbs-providers ibverbs-utils
 rdmacm-utils perftest iproute2 python3 cpio kmod zstd xz-utils"

ensure_host_packages() {
	local missing=() p
	for p in $HOST_PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "${RCOLL_RXE_VM_NO_INSTALL:-0}" = 1 ] && die "missing host packages: ${missing[*]}"
	note "installing host packages: ${missing[*]}"
	{ as_root apt-get update -q &&
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			"${missing[@]}"; } >"$CACHE/apt-install.log" 2>&1 ||
		{ tail -20 "$CACHE/apt-install.log" >&2; die "apt-get install failed (log $CACHE/apt-install.log)"; }
}

# The kernel package: the one linux-image-amd64 depends on, resolved once and
# pinned in $CACHE/kernel-pkg so that runs stay comparable and cost no
# apt-cache call. Debian's ABI name moves with security updates and old .debs
# leave the mirror, so a fresh cache (or --rebuild) resolves it again.
resolve_kernel_pkg() {
	local pkg=${RCOLL_RXE_VM_KERNEL_PKG:-} deb
	if [ -z "$pkg" ] && [ $REBUILD = 0 ] && [ -s "$CACHE/kernel-pkg" ]; then
		pkg=$(cat "$CACHE/kernel-pkg")
	fi
	resolve() { apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }'; }
	if [ -z "$pkg" ]; then
		pkg=$(resolve)
		if [ -z "$pkg" ] && [ "${RCOLL_RXE_VM_NO_INSTALL:-0}" != 1 ]; then
			note "apt-cache knows no linux-image-amd64: running apt-get update"
			as_root apt-get update -q >"$CACHE/apt-update.log" 2>&1 || true
			pkg=$(resolve)
		fi
	fi
	if [ -z "$pkg" ]; then # offline: fall back to whatever is cached
		deb=$(ls -t "$CACHE"/linux-image-*-amd64_*.deb 2>/dev/null | head -1)
		[ -n "$deb" ] || die "cannot resolve linux-image-amd64 (apt-get update?) and nothing is cached"
		pkg=$(basename "$deb" | cut -d_ -f1)
	fi
	echo "$pkg" >"$CACHE/kernel-pkg"
	KPKG=$pkg
	KVER=${pkg#linux-image-}
	KVER=${KVER%-unsigned}
	KDIR=$CACHE/kernel-$KVER
}

# Downloads and unpacks the kernel .deb into $KDIR (once), with depmod run.
fetch_kernel() {
	local deb
	[ -f "$KDIR/lib/modules/$KVER/modules.dep" ] && return 0
	deb=$(ls "$CACHE/${KPKG}"_*.deb 2>/dev/null | head -1 || true)
	if [ -z "$deb" ]; then
		note "downloading $KPKG"
		(cd "$CACHE" && apt-get download -q "$KPKG") >"$CACHE/apt-download.log" 2>&1 ||
			{ as_root apt-get update -q >>"$CACHE/apt-download.log" 2>&1 &&
				(cd "$CACHE" && apt-get download -q "$KPKG") >>"$CACHE/apt-download.log" 2>&1; } ||
			{ tail -5 "$CACHE/apt-download.log" >&2; rm -f "$CACHE/kernel-pkg"; die "apt-get download $KPKG failed"; }
		deb=$(ls "$CACHE/${KPKG}"_*.deb | head -1)
	fi
	note "unpacking $deb"
	rm -rf "$KDIR.tmp"
	mkdir -p "$KDIR.tmp"
	dpkg-deb -x "$deb" "$KDIR.tmp"
	depmod -b "$KDIR.tmp" "$KVER"
	rm -rf "$KDIR"
	mv "$KDIR.tmp" "$KDIR"
}

# Sets KERNEL. Under TCG a bzImage spends about 2.5 s decompressing itself.
# Debian's kernel has CONFIG_PVH=y, so qemu can boot the uncompressed ELF
# vmlinux directly: take the xz stream out of the bzImage once.
extract_vmlinux() {
	local vmlinuz=$KDIR/boot/vmlinuz-$KVER off
	[ -f "$vmlinuz" ] || die "no $vmlinuz"
	KERNEL=$KDIR/vmlinux
	[ -s "$KERNEL" ] && return 0
	off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$vmlinuz" | head -1 | cut -d: -f1)
	[ -n "$off" ] || { KERNEL=$vmlinuz; return 0; }
	# xz complains about the bytes after the stream; the ELF itself is whole
	tail -c +$((off + 1)) "$vmlinuz" | xz -dc >"$KERNEL.tmp" 2>/dev/null || true
	if [ "$(head -c4 "$KERNEL.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
		mv "$KERNEL.tmp" "$KERNEL"
	else
		rm -f "$KERNEL.tmp"
		KERNEL=$vmlinuz
	fi
}

# ================================================================ staging, base
# Staging helpers (canon, copy_file, copy_libs, mk_cpio) and build_base.
# shellcheck source-path=SCRIPTDIR source=rxe-vm-base.sh
. "$HERE/rxe-vm-base.sh"

# ================================================================ per-run payload
# A second cpio appended to the base (the kernel unpacks both), so a new
# binary never needs a base rebuild. The root file system lives in guest RAM.

# The build tree goes to its own absolute host path: CMake's build-tree
# RUNPATH is absolute (e.g. /home/ci/rcoll/build/src), so the executables
# find librcoll.so there. /work/build is a symlink to it. Debug info is
# stripped from the copies (it would double or triple the guest's RAM use).
stage_build_tree() { # ROOT
	local root=$1 rel f glob dst strip=1 elves=()
	command -v strip >/dev/null && [ "${RCOLL_RXE_VM_NO_STRIP:-0}" != 1 ] || strip=0
	while IFS= read -r -d '' f; do
		rel=${f#"$BUILD_DIR"/}
		for glob in "${BUILD_GLOBS[@]}"; do
			# shellcheck disable=SC2053 # the glob is meant to match
			[[ $rel == $glob ]] || continue
			dst=$root$(canon "$BUILD_DIR/$rel")
			mkdir -p "$(dirname "$dst")"
			if [ -L "$f" ]; then
				cp -P "$f" "$dst" # librcoll.so -> librcoll.so.0 -> librcoll.so.0.1.0
			elif is_elf "$f"; then
				cp -p "$f" "$dst"
				if [ $strip = 1 ]; then strip --strip-debug "$dst" 2>/dev/null || true; fi
				elves+=("$f")
			fi
			break
		done
	done < <(find "$BUILD_DIR" -name CMakeFiles -prune -o \( -type f -o -type l \) -print0)
	# after all build files are in place, so that none is copied twice
	copy_libs "$root" ${elves[@]+"${elves[@]}"}
	if [ "$BUILD_DIR" != /work/build ]; then
		mkdir -p "$root/work"
		ln -sfn "$BUILD_DIR" "$root/work/build"
	fi
}

stage_dirs() { # ROOT
	local root=$1 spec src dst f
	for spec in ${DIRS[@]+"${DIRS[@]}"}; do
		src=${spec%%:*}
		dst=/work
		[ "$src" != "$spec" ] && dst=${spec#*:}
		[ -d "$src" ] || die "no dir $src"
		dst=$(canon "$dst")
		mkdir -p "$root$dst"
		cp -a "$src/." "$root$dst/"
		find "$root$dst" -type f -perm -u+x -print0 | while IFS= read -r -d '' f; do
			copy_libs "$root" "$f"
		done
	done
	for spec in ${FILES[@]+"${FILES[@]}"}; do
		src=${spec%%:*}
		dst=$(readlink -f "$src")
		[ "$src" != "$spec" ] && dst=${spec#*:}
		[ -e "$src" ] || die "no file $src"
		dst=$(canon "$dst")
		mkdir -p "$root$(dirname "$dst")"
		cp -a "$src" "$root$dst"
		copy_libs "$root" "$src"
	done
}

write_cmd() { # ROOT: /etc/rxe-vm/{config,cmd}
	local root=$1
	mkdir -p "$root/etc/rxe-vm"
	printf 'RXE_NET=%s\nSHARE_OUT=%s\n' "$NET" "${OUTDIR:+1}" >"$root/etc/rxe-vm/config"
	{
		echo "#!/bin/bash"
		if [ -n "$SCRIPT" ]; then
			install -m 755 "$SCRIPT" "$root/etc/rxe-vm/script"
			printf '/bin/bash /etc/rxe-vm/script'
			printf ' %q' ${CMD_ARGS[@]+"${CMD_ARGS[@]}"}
			echo
		elif [ ${#CMD_ARGS[@]} -eq 1 ]; then
			printf '%s\n' "${CMD_ARGS[0]}"
		else
			printf '%q ' "${CMD_ARGS[@]}"
			echo
		fi
	} >"$root/etc/rxe-vm/cmd"
}

build_payload() { # RUN_DIR -> RUN_DIR/initrd.img (base + payload)
	local root=$1/payload f
	mkdir -p "$root"
	while IFS= read -r f; do IN_BASE[$f]=1; done <"$BASE.files"
	if [ -n "$BUILD_DIR" ]; then stage_build_tree "$root"; fi
	stage_dirs "$root"
	write_cmd "$root"
	# the unpacker applies the payload's mode to an existing /tmp
	if [ -d "$root/tmp" ]; then chmod 1777 "$root/tmp"; fi
	note "payload: $(du -sh "$root" | cut -f1) unpacked"
	mk_cpio "$root" "$1/payload.cpio.zst"
	rm -rf "$root"
	cat "$BASE" "$1/payload.cpio.zst" >"$1/initrd.img"
}

# ================================================================ boot
# Three serial ports go to files: ttyS0 kernel console, ttyS1 the command's
# output (streamed to our stdout), ttyS2 the exit status line.
run_qemu() { # RUN_DIR -> QRC
	local rd=$1 tpid cpid=""
	local qemu=(qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot
		-machine q35 -m "$MEM" -smp "$CPUS"
		-kernel "$KERNEL" -initrd "$rd/initrd.img"
		-append "console=ttyS0 panic=-1 oops=panic loglevel=4 quiet rdinit=/init mitigations=off tsc=reliable"
		-serial "file:$rd/console.log"
		-chardev "file,id=out,path=$rd/output.log" -serial chardev:out
		-chardev "file,id=st,path=$rd/status" -serial chardev:st
		-monitor none)
	# shellcheck disable=SC2054 # the commas belong to qemu's option syntax
	# No KVM on KVM-PVM hosts: a stock kernel hangs there silently at 100 %
	# CPU. TCG with one host thread per vCPU works everywhere.
	case $ACCEL in
	tcg) qemu+=(-accel tcg,thread=multi,tb-size=256 -cpu max) ;;
	kvm) qemu+=(-accel kvm -cpu host) ;;
	esac
	if [ -n "$OUTDIR" ]; then
		qemu+=(-virtfs "local,path=$OUTDIR,mount_tag=out,security_model=none,id=out")
	fi
	: >"$rd/output.log"
	: >"$rd/status"
	: >"$rd/console.log"
	timeout -k 10 "$TIMEOUT" "${qemu[@]}" </dev/null >"$rd/qemu.log" 2>&1 &
	QPID=$!
	tail -s 0.2 -n +1 -F --pid=$QPID "$rd/output.log" 2>/dev/null &
	tpid=$!
	if [ $VERBOSE = 1 ]; then
		tail -s 0.2 -n +1 -F --pid=$QPID "$rd/console.log" >&2 2>/dev/null &
		cpid=$!
	fi
	QRC=0
	wait $QPID || QRC=$?
	wait $tpid 2>/dev/null || true
	if [ -n "$cpid" ]; then wait "$cpid" 2>/dev/null || true; fi
	QPID=""
}

guest_status() { # RUN_DIR -> prints the exit status to report
	local rd=$1 rc
	rc=$(sed -n 's/^RXE_VM_EXIT=\([0-9]*\).*/\1/p' "$rd/status" | tail -1)
	if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then
		note "TIMEOUT: the guest ran past ${TIMEOUT}s (qemu killed); last console lines:"
		tail -25 "$rd/console.log" | tr -d '\r' >&2
		rc=124
	elif [ -z "$rc" ]; then
		note "no exit status from the guest (qemu rc $QRC); qemu said:"
		cat "$rd/qemu.log" >&2
		note "last console lines:"
		tail -40 "$rd/console.log" | tr -d '\r' >&2
		rc=125
	fi
	echo "$rc"
}

# This script killed (CTest timeout, ^C): take qemu along, drop the images.
on_exit() {
	if [ -n "${QPID:-}" ]; then kill "$QPID" 2>/dev/null || true; fi
	if [ -n "${RUN_DIR:-}" ] && [ $KEEP = 0 ]; then rm -rf "$RUN_DIR/initrd.img" "$RUN_DIR/payload.cpio.zst" "$RUN_DIR/payload"; fi
}

main() {
	local t0 t1 rd rc
	parse_args "$@"
	t0=$(now)
	mkdir -p "$CACHE"
	# One run at a time per cache, held to the end: the first run sets the
	# cache up while the others wait, and two guests never compete for the
	# host's cores (each keeps two busy).
	exec 9>"$CACHE/.lock"
	if ! flock -n 9; then
		note "waiting for another rxe-vm run to finish (lock $CACHE/.lock)"
		flock 9
	fi
	ensure_host_packages
	resolve_kernel_pkg
	fetch_kernel
	extract_vmlinux
	build_base
	if [ $SETUP_ONLY = 1 ]; then
		note "setup done in $(since "$t0")s: kernel $KVER, base $BASE"
		exit 0
	fi
	rd=$(mktemp -d "${TMPDIR:-/tmp}/rxe-vm-run.XXXXXX")
	RUN_DIR=$rd QPID=""
	trap on_exit EXIT
	trap 'exit 130' INT TERM
	t1=$(now)
	build_payload "$rd"
	note "setup $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')s, payload $(since "$t1")s; booting (accel $ACCEL, net $NET, kernel $KVER)"
	t1=$(now)
	run_qemu "$rd"
	rc=$(guest_status "$rd")
	note "guest exit status $rc; guest run $(since "$t1")s, total $(since "$t0")s"
	if [ $KEEP = 1 ]; then
		note "run directory kept: $rd"
	elif [ "$rc" != 0 ]; then
		note "logs kept in $rd (output.log console.log qemu.log)" # on_exit drops the images
	else
		rm -rf "$rd"
		RUN_DIR=""
	fi
	exit "$rc"
}

main "$@"
