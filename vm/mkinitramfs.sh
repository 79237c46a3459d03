#!/bin/sh
# Build the base initramfs: busybox, the guest's modules, ndctl and the
# filesystem tools with their shared libraries, and the guest init.
# The suite's own binaries travel in a separate per-run archive (see run.sh),
# so this one changes only when the kernel or the host packages do.
# Usage: mkinitramfs.sh KERNEL_VERSION MODULES_ROOT OUT.cpio.gz
set -eu
kver=$1 modroot=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)

# Modules the guest loads; their dependencies are resolved from modules.dep.
MODULES="nfit nd_pmem xfs loop virtio_pci virtio_console dm_log_writes dm_flakey"
# Dynamic tools copied with every library ldd names.
TOOLS="ndctl mke2fs e2fsck dumpe2fs debugfs mkfs.xfs xfs_repair xfs_io xfs_db jq"
# The clients job (issue 32): Debian's pmempool and libbpf-tools' funclatency
# (335 KB, libbpf linked in; it needs /sys/kernel/btf/vmlinux), and the PMDK
# libraries pmemobj-array is linked against (it travels in the per-run
# archive, they cannot).
CLIENT_TOOLS="pmempool funclatency"
CLIENT_LIBS="libpmemobj.so.1 libpmem.so.1"

stage=$(mktemp -d "${out%/*}/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/sbin" "$stage/lib/modules/$kver" "$stage/etc" \
	"$stage/proc" "$stage/sys" "$stage/dev" "$stage/tmp" "$stage/mnt" "$stage/run"

cp /bin/busybox "$stage/bin/busybox"

copy_with_libs() {
	bin=$(command -v "$1" || true)
	[ -n "$bin" ] || { echo "mkinitramfs: $1 not found on the host (make deps)" >&2; exit 1; }
	cp "$bin" "$stage/sbin/"
	copy_libs "$bin"
}
# copy_libs FILE: every library ldd names for FILE.
copy_libs() {
	ldd "$1" | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do
		mkdir -p "$stage${lib%/*}"
		[ -e "$stage$lib" ] || cp -L "$lib" "$stage$lib"
	done
}
for t in $TOOLS $CLIENT_TOOLS; do copy_with_libs "$t"; done
for l in $CLIENT_LIBS; do
	lib=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ { print $NF; exit }')
	[ -n "$lib" ] || { echo "mkinitramfs: $l not found on the host (make deps)" >&2; exit 1; }
	mkdir -p "$stage${lib%/*}"
	[ -e "$stage$lib" ] || cp -L "$lib" "$stage$lib"
	copy_libs "$lib"
done
ln -s mke2fs "$stage/sbin/mkfs.ext4"
ln -s e2fsck "$stage/sbin/fsck.ext4"
# glibc's loader lives under /lib64 on x86_64.
mkdir -p "$stage/lib64"
cp -L /lib64/ld-linux-x86-64.so.2 "$stage/lib64/"

moddir=$modroot/lib/modules/$kver
[ -f "$moddir/modules.dep" ] || { echo "mkinitramfs: no modules.dep in $moddir" >&2; exit 1; }
for m in $MODULES; do
	# modules.dep names use '-' or '_' as they appear in the file name;
	# Debian compresses modules from 6.12 on (.ko.xz).
	pattern="/($m|$(echo "$m" | tr _ -))\.ko"
	# Built into the kernel (a kernel of your own may do that): nothing to copy.
	grep -qE "$pattern\$" "$moddir/modules.builtin" 2>/dev/null && continue
	line=$(grep -E "$pattern(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" || true)
	[ -n "$line" ] || { echo "mkinitramfs: module $m not in $moddir" >&2; exit 1; }
	for f in $(echo "$line" | tr -d :); do
		mkdir -p "$stage/lib/modules/$kver/${f%/*}"
		# busybox's insmod cannot read compressed modules: store them plain
		# (depmod below records the plain names).
		case $f in
		*.ko.xz) xz -dc "$moddir/$f" >"$stage/lib/modules/$kver/${f%.xz}" ;;
		*.ko.zst) zstd -qdc "$moddir/$f" >"$stage/lib/modules/$kver/${f%.zst}" ;;
		*.ko.gz) gzip -dc "$moddir/$f" >"$stage/lib/modules/$kver/${f%.gz}" ;;
		*) cp "$moddir/$f" "$stage/lib/modules/$kver/$f" ;;
		esac
	done
done
cp "$moddir/modules.builtin" "$moddir/modules.builtin.modinfo" "$moddir/modules.order" "$stage/lib/modules/$kver/"
depmod -b "$stage" "$kver"

cp "$here/guest/init" "$stage/init"
# The suite's shell libraries, at their repo paths under /suite.
top=${here%/vm}
mkdir -p "$stage/suite/lib" "$stage/suite/vm/guest" "$stage/suite/bench"
cp "$top/lib/ktap.sh" "$top/lib/exitcodes.sh" "$top/lib/exitcodes.h" "$top/lib/scenarios.sh" \
	"$top/lib/filesystems.sh" \
	"$stage/suite/lib/"
cp "$top/bench/scenarios.txt" "$stage/suite/bench/"
mkdir -p "$stage/suite/validate/mutants"
cp "$top/validate/mutants/mutants.txt" "$stage/suite/validate/mutants/"
cp "$top/validate/workloads.txt" "$top/validate/known-bugs.txt" "$top/validate/conformance.txt" \
	"$top/validate/conformance.sh" "$stage/suite/validate/"
cp "$here/guest/lib.sh" "$here/guest/filesystems.txt" "$stage/suite/vm/guest/"
# Native mode's entry point and jobs: tests/guest/native.sh runs them here.
mkdir -p "$stage/suite/native" "$stage/suite/tests/native"
cp "$top/native/job.sh" "$stage/suite/native/"
cp "$top/tests/native/check.sh" "$stage/suite/tests/native/"
cp "$top/bench/reproduce-guest.sh" "$stage/suite/bench/"
cp "$here/results.awk" "$stage/suite/vm/"
chmod +x "$stage/init"
echo "$kver" > "$stage/etc/kernel-version"

(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
