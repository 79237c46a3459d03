#!/bin/sh
# Fetch and unpack a Debian kernel image package as the guest kernel.
# Usage: fetch-kernel.sh PACKAGE DEB_VERSION KERNEL_VERSION OUTDIR
# Leaves OUTDIR/vmlinuz, OUTDIR/config and OUTDIR/lib/modules/KERNEL_VERSION
# (with modules.dep: the .deb ships none, depmod makes it).
set -eu
pkg=$1 debver=$2 kver=$3 out=$4

if [ -f "$out/.complete" ] && [ "$(cat "$out/.complete")" = "$pkg=$debver" ]; then
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/dl"
echo "  KERNEL   fetching $pkg=$debver from the Debian archive"
# apt's sandbox user cannot write to our tree; download as root into a
# private folder instead of warning about it.
dl() { (cd "$out/dl" && apt-get -q -o APT::Sandbox::User=root download "$pkg=$debver" >/dev/null 2>&1); }
# A fresh machine may have no package lists yet.
if ! dl && ! { apt-get -q update >/dev/null && dl; }; then
	echo "fetch-kernel: cannot download $pkg=$debver (run 'apt-get update'; if Debian dropped that ABI, update kernel-config/guest-kernel.mk)" >&2
	exit 1
fi
dpkg-deb -x "$out"/dl/*.deb "$out/root"
mv "$out/root/boot/vmlinuz-$kver" "$out/vmlinuz"
mv "$out/root/boot/config-$kver" "$out/config"
mkdir -p "$out/lib/modules"
mv "$out/root/lib/modules/$kver" "$out/lib/modules/$kver"
rm -rf "$out/root" "$out/dl"
depmod -b "$out" "$kver"
echo "$pkg=$debver" > "$out/.complete"
