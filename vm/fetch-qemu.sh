#!/bin/sh
# Fetch QEMU from another Debian suite (bookworm-backports carries 10.0)
# and unpack it under OUTDIR, without touching the machine's apt sources:
# apt reads a private source list and keeps private package lists.
# The unpacked qemu-system-x86_64 runs on the libraries bookworm's own
# QEMU package pulls in (make deps); vm/run.sh gives it its own firmware.
# Usage: fetch-qemu.sh SUITE OUTDIR
# Leaves OUTDIR/root/usr/bin/qemu-system-x86_64 and OUTDIR/.complete
# ("SUITE qemu-system-x86=VERSION").
set -eu
suite=$1 out=$2
# No NIC (-nodefaults): no iPXE ROMs needed.
pkgs="qemu-system-x86 qemu-system-data qemu-system-common seabios"
if [ -f "$out/.complete" ] && [ "$(cut -d' ' -f1 "$out/.complete")" = "$suite" ] &&
	[ -x "$out/root/usr/bin/qemu-system-x86_64" ]; then
	touch "$out/.complete"	# up to date for make
	exit 0
fi
# The Debian mirror this machine already uses.
mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
	sed -n 's|^deb \(\[[^]]*\] \)\{0,1\}\(https\{0,1\}://[^ ]*/debian\)/\{0,1\} .*|\2|p; s|^URIs: *\(https\{0,1\}://[^ ]*/debian\)/\{0,1\}$|\1|p' |
	head -n 1)
[ -n "$mirror" ] || { echo "fetch-qemu: no Debian mirror found in /etc/apt" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/apt/lists/partial" "$out/dl"
out=$(cd "$out" && pwd)	# apt takes relative Dir:: paths as relative to its own
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$out/apt/sources.list"
set -- -o Dir::Etc::SourceList="$out/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o Dir::State::Lists="$out/apt/lists" -o APT::Sandbox::User=root
echo "  QEMU     fetching $pkgs from $suite"
apt-get -q "$@" update >/dev/null || { echo "fetch-qemu: apt-get update of $suite failed" >&2; exit 1; }
# PKG/SUITE: that suite's version, whatever is installed or pinned here.
(cd "$out/dl" && apt-get -q "$@" download $(for p in $pkgs; do echo "$p/$suite"; done) >/dev/null) ||
	{ echo "fetch-qemu: cannot download $pkgs from $suite" >&2; exit 1; }
for deb in "$out"/dl/*.deb; do dpkg-deb -x "$deb" "$out/root"; done
bin=$out/root/usr/bin/qemu-system-x86_64
if ldd "$bin" | grep -q 'not found'; then
	echo "fetch-qemu: $suite's QEMU needs libraries this machine lacks:" >&2
	ldd "$bin" | grep 'not found' >&2
	exit 1
fi
ver=$(dpkg-deb -f "$out"/dl/qemu-system-x86_*.deb Version)
rm -rf "$out/dl" "$out/apt"
echo "$suite qemu-system-x86=$ver" >"$out/.complete"
echo "  QEMU     $("$bin" --version | head -n 1)"
