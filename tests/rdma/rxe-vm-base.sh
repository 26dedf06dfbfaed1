# rxe-vm-base.sh - sourced by rxe-vm.sh: the helpers that stage files into an
# initramfs tree, and the cached base initramfs (tools, python, busybox,
# kernel modules, /init). Uses rxe-vm.sh's globals: CACHE, KDIR, KVER,
# HOST_PKGS, REBUILD, SELF, HERE; sets BASE.
# shellcheck shell=bash

# ================================================================ staging
# The guest has Debian's merged-/usr layout: /bin /sbin /lib /lib64 are
# symlinks into /usr. A payload cpio must never carry those names as real
# directories: the kernel's initramfs unpacker would replace the base's
# symlink with the directory and hide /usr/lib (modprobe then fails). So every
# staged path is spelled the /usr way.
canon() {
	case $1 in
	/bin/* | /sbin/* | /lib/* | /lib64/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}
# Guest paths the base initramfs already holds (filled before the payload is
# staged): the payload skips them, so a host-built program does not bring a
# second copy of libc, libibverbs, libstdc++...
declare -A IN_BASE=()
copy_file() { # SRC ROOT GUEST_PATH (dereferences symlinks; first copy wins)
	local path dst
	path=$(canon "$3")
	[ -z "${IN_BASE[$path]:-}" ] || return 0
	dst=$2$path
	mkdir -p "$(dirname "$dst")"
	[ -e "$dst" ] || cp -L "$1" "$dst"
}
is_elf() { [ -f "$1" ] && [ "$(head -c4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]; }
# copy_libs ROOT FILE...: the ldd closure of each ELF file, at the host paths
copy_libs() {
	local root=$1 f lib
	shift
	for f in "$@"; do
		is_elf "$f" || continue
		# ldd fails on a static executable (valgrind's tools): nothing to copy
		{ ldd "$f" 2>/dev/null || true; } | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }' |
			while read -r lib; do
				case $lib in "$root"/*) continue ;; esac # found via $ORIGIN in the payload
				copy_file "$lib" "$root" "$lib"
				# keep the real file name too when the soname is a symlink
				if [ -L "$lib" ]; then copy_file "$(readlink -f "$lib")" "$root" "$(readlink -f "$lib")"; fi
			done
	done
}
add_exe() { # ROOT PATH: an executable at its host path, plus its libraries
	copy_file "$2" "$1" "$2"
	copy_libs "$1" "$2"
}
mk_cpio() { # DIR OUT: zstd-compressed newc archive
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
		zstd -q -T0 -3 -o "$2" -f
}

# ================================================================ base initramfs
GUEST_TOOLS="ibv_devices ibv_devinfo ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong
 ibv_srq_pingpong ibv_xsrq_pingpong ibv_asyncwatch
 ib_write_bw ib_write_lat ib_read_bw ib_read_lat ib_send_bw ib_send_lat ib_atomic_bw ib_atomic_lat
 rping ucmatose udaddy mckey rdma_server rdma_client rdma_xserver rdma_xclient riostream rstream
 rdma ip ss bash timeout strace"
# crc32_*: rdma_rxe's ICRC needs the crc32 shash (see guest-init.sh);
# virtio_pci + 9p*: the /out share; dummy/veth: netdevs under rxe.
GUEST_MODULES="crc32_generic crc32_pclmul rdma_rxe rdma_ucm ib_umad dummy veth virtio_pci 9pnet_virtio 9p"
PYTHON=/usr/bin/python3 # Debian's, never a pyenv shim found first on PATH

add_tools() { # ROOT
	local t f
	for t in $GUEST_TOOLS; do
		f=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t" 2>/dev/null) || continue
		add_exe "$1" "$(readlink -f "$f")"
		if [ "$(readlink -f "$f")" != "$f" ]; then copy_file "$f" "$1" "$f"; fi
	done
	# dlopen()ed at run time, so ldd lists none of them: the libibverbs
	# providers and their driver files (without them: "No IB devices found"),
	# librdmacm's preload libraries, and libgcc_s, which glibc loads for
	# pthread_exit/pthread_cancel (without it rping aborts).
	for f in /usr/lib/x86_64-linux-gnu/libibverbs/*.so /usr/lib/x86_64-linux-gnu/rsocket/*.so* \
		/etc/libibverbs.d/*.driver /usr/lib/x86_64-linux-gnu/libgcc_s.so.1; do
		if [ -e "$f" ]; then
			copy_file "$f" "$1" "$f"
			copy_libs "$1" "$f"
		fi
	done
	if [ -d /etc/rdma ]; then cp -a /etc/rdma "$1/etc/"; fi
}

# The host's Debian python3 with a trimmed stdlib (tools/rcoll-run needs the
# stdlib only). The .pyc files are kept: compiling the stdlib under TCG on
# every boot would cost seconds per python start.
add_python() { # ROOT
	local root=$1 real ver lib f
	real=$(readlink -f "$PYTHON") || die "no $PYTHON"
	ver=$(basename "$real") # python3.11
	lib=/usr/lib/$ver
	add_exe "$root" "$real"
	ln -sf "$ver" "$root/usr/bin/python3"
	mkdir -p "$root$lib"
	tar -C "$lib" -cf - --exclude=./test --exclude=./idlelib --exclude=./tkinter \
		--exclude=./ensurepip --exclude=./lib2to3 --exclude=./turtledemo --exclude=./pydoc_data \
		--exclude='./config-*' --exclude=./site-packages --exclude=./dist-packages \
		--exclude='*.opt-1.pyc' --exclude='*.opt-2.pyc' \
		--exclude='./lib-dynload/_test*' --exclude='./lib-dynload/xx*' \
		--exclude='./lib-dynload/_ctypes_test*' --exclude='./lib-dynload/_curses*' \
		--exclude='./lib-dynload/readline*' --exclude='./lib-dynload/_dbm*' \
		--exclude='./lib-dynload/_sqlite3*' --exclude='./lib-dynload/nis*' . |
		tar -C "$root$lib" -xf -
	if [ -d "/etc/$ver" ]; then cp -rL "/etc/$ver" "$root/etc/"; fi # sitecustomize.py target
	for f in "$root$lib"/lib-dynload/*.so; do copy_libs "$root" "$lib/lib-dynload/${f##*/}"; done
}

add_busybox() { # ROOT: every applet that no real tool above provides
	local root=$1 f t
	cp /bin/busybox "$root/usr/bin/busybox"
	for f in $(/bin/busybox --list-full); do
		t=${f##*/}
		if [ ! -e "$root/usr/bin/$t" ] && [ ! -e "$root/usr/sbin/$t" ] && [ ! -L "$root/$f" ]; then
			mkdir -p "$root/$(dirname "$f")"
			ln -s /usr/bin/busybox "$root/$f"
		fi
	done
	ln -sf busybox "$root/usr/bin/sh"
}

add_modules() { # ROOT: dependency closure of GUEST_MODULES, depmod'ed for the guest
	local root=$1 m f
	for m in $GUEST_MODULES; do
		modprobe -d "$KDIR" -S "$KVER" --show-depends "$m" || note "(kernel $KVER has no module $m)"
	done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r f; do
		copy_file "$f" "$root" "/usr/lib/modules/$KVER/${f#"$KDIR"/lib/modules/"$KVER"/}"
	done
	cp "$KDIR/lib/modules/$KVER"/modules.{order,builtin,builtin.modinfo} "$root/usr/lib/modules/$KVER/"
	depmod -b "$root" "$KVER"
}

add_etc() { # ROOT
	printf 'root:x:0:0:root:/root:/bin/bash\n' >"$1/etc/passwd"
	printf 'root:x:0:\n' >"$1/etc/group"
	printf '127.0.0.1 localhost rxe-vm\n192.0.2.1 rxe0-ip\n192.0.2.2 rxe1-ip\n::1 localhost\n' >"$1/etc/hosts"
	printf 'hosts: files\npasswd: files\ngroup: files\n' >"$1/etc/nsswitch.conf"
}

# Sets BASE: the cached base initramfs, rebuilt when this script, the guest
# init, the kernel or a host package changes.
build_base() {
	local key root f
	key=$({
		cat "$SELF" "$HERE/rxe-vm-base.sh" "$HERE/guest-init.sh"
		echo "$KVER"
		# the libraries a payload may skip because the base has them (IN_BASE)
		dpkg-query -W $HOST_PKGS libibverbs1 librdmacm1 libc6 libstdc++6 libgcc-s1 libpython3-stdlib 2>/dev/null
	} | sha256sum | cut -c1-16)
	BASE=$CACHE/base-$KVER-$key.cpio.zst
	[ $REBUILD = 0 ] && [ -f "$BASE" ] && [ -f "$BASE.files" ] && return 0
	note "building base initramfs $(basename "$BASE")"
	root=$(mktemp -d "$CACHE/base-root.XXXXXX")
	mkdir -p "$root"/usr/{bin,sbin,lib,lib64} "$root"/{etc,proc,sys,dev,tmp,run,root,work,out}
	ln -s usr/bin "$root/bin"
	ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	chmod 1777 "$root/tmp"
	add_tools "$root"
	add_python "$root"
	add_busybox "$root"
	add_modules "$root"
	add_etc "$root"
	install -m 755 "$HERE/guest-init.sh" "$root/init"
	(cd "$root" && find . ! -type d | sed 's/^\.//') >"$BASE.files"
	mk_cpio "$root" "$BASE.tmp.$$"
	mv "$BASE.tmp.$$" "$BASE"
	rm -rf "$root"
	for f in "$CACHE"/base-*.cpio.zst*; do
		case $f in "$BASE" | "$BASE.files") ;; *) rm -f "$f" ;; esac
	done
	note "base initramfs: $(du -h "$BASE" | cut -f1)"
}
