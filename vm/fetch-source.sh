#!/bin/sh
# Fetch and unpack Debian's linux-source package of a guest kernel of
# kernel-config/kernels.txt: the tree 'make kernel KSRC=' builds from.
# Usage: fetch-source.sh NAME OUTDIR
# Takes linux-source-MAJOR.MINOR of the row's Debian version, or the newest
# in the row's suites when that one is gone (said in one line). Leaves
# OUTDIR/linux-source-MAJOR.MINOR and OUTDIR/.complete ("NAME PKG=VER");
# a fetch that fails leaves nothing.
set -eu
[ $# = 2 ] || { echo "usage: fetch-source.sh NAME OUTDIR" >&2; exit 2; }
name=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/private-apt.sh"
suite_lib=$here/../lib
. "$suite_lib/kernels.sh"
kernel_row "$name" || exit 2
suites=$k_suites debver=$k_debver
series=$(echo "$k_kver" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
pkg=linux-source-$series
[ -n "$(cut -d' ' -f1 "$out/.complete" 2>/dev/null)" ] && [ "$(cut -d' ' -f1 "$out/.complete")" = "$name" ] && exit 0
rm -rf "$out"
mkdir -p "$out/dl"
out=$(cd "$out" && pwd)
trap 'rc=$?; [ "$rc" = 0 ] || rm -rf "$out"; exit "$rc"' EXIT
# shellcheck disable=SC2086
papt_init "$out/apt" $suites
vers=$(papt cache madison "$pkg" 2>/dev/null | awk -F' *[|] *' '{print $2}' | sort -V)
[ -n "$vers" ] || { echo "fetch-source: $name: no $pkg in $suites" >&2; exit 1; }
if ! echo "$vers" | grep -qxF "$debver"; then
	new=$(echo "$vers" | tail -n 1)
	echo "  KSRC     $name: $pkg=$debver is gone from $suites; using $new"
	debver=$new
fi
echo "  KSRC     $name: fetching $pkg=$debver"
(cd "$out/dl" && papt get download "$pkg=$debver" >/dev/null) || { echo "fetch-source: cannot download $pkg=$debver" >&2; exit 1; }
dpkg-deb -x "$out"/dl/*.deb "$out/root"
echo "  KSRC     $name: unpacking $pkg.tar.xz"
tar -xJf "$out/root/usr/src/$pkg.tar.xz" -C "$out"
rm -rf "$out/dl" "$out/apt" "$out/root"
[ -f "$out/$pkg/Makefile" ] || { echo "fetch-source: $pkg has no $pkg/Makefile" >&2; exit 1; }
echo "$name $pkg=$debver" >"$out/.complete"
echo "  KSRC     $name: $out/$pkg"
