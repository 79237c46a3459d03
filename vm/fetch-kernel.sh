#!/bin/sh
# Fetch one guest kernel of kernel-config/kernels.txt from the Debian
# archive and unpack it, without installing anything.
# Usage: fetch-kernel.sh NAME OUTDIR | --resolve NAME
# --resolve prints the KVER=DEBVER a fetch would take, and fetches nothing.
# KERNELS_TABLE=FILE reads another table (the tests' gone pins).
# Leaves in OUTDIR: vmlinuz, config, lib/modules/KVER (with modules.dep:
# the packages ship none, depmod makes it), headers (the module build tree,
# its absolute /usr/src paths pointed here), kver, and .complete
# ("NAME linux-image-KVER=DEBVER").
set -eu
resolve_only=0
if [ "${1:-}" = --resolve ] && [ $# = 2 ]; then
	resolve_only=1 name=$2 out=$(mktemp -d)
elif [ $# = 2 ]; then
	name=$1 out=$2
else
	echo "usage: fetch-kernel.sh NAME OUTDIR | --resolve NAME" >&2; exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/private-apt.sh"
suite_lib=$here/../lib
. "$suite_lib/kernels.sh"
kernel_row "$name" || exit 2
suites=$k_suites kver=$k_kver debver=$k_debver series=$k_series

# Up to date when made from the same row of the table.
[ "$(cut -d' ' -f1,2 "$out/.complete" 2>/dev/null)" = "$name $kver=$debver" ] && { touch "$out/.complete"; exit 0; }
pin="$kver=$debver"
rm -rf "$out"
mkdir -p "$out/dl"
out=$(cd "$out" && pwd)
# A fetch that fails leaves nothing half-written behind.
trap 'rc=$?; [ "$rc" = 0 ] && [ "$resolve_only" = 0 ] || rm -rf "$out"; exit "$rc"' EXIT
echo "  KERNEL   $name: package lists of $suites"
# shellcheck disable=SC2086
papt_init "$out/apt" $suites || exit 1

# The newest Debian version of a package, empty if the suites lack it.
newest() { papt cache madison "$1" 2>/dev/null | awk -F' *[|] *' '{print $2}' | sort -V | tail -n 1; }
has() { papt cache madison "$1" 2>/dev/null | awk -F' *[|] *' -v v="$2" '$2 == v {f=1} END {exit !f}'; }

if ! has "linux-image-$kver" "$debver" || ! has "linux-headers-$kver" "$debver"; then
	kver=
	for k in $(papt cache pkgnames linux-image- | sed -n 's/^linux-image-//p' | sort -V -r); do
		# shellcheck disable=SC2254
		case $k in $series) ;; *) continue ;; esac
		v=$(newest "linux-image-$k")
		has "linux-headers-$k" "$v" && { kver=$k debver=$v; break; }
	done
	[ -n "$kver" ] || { echo "fetch-kernel: $name: $pin is gone from $suites and no kernel of the series $series is left" >&2; exit 1; }
	echo "  KERNEL   $name: pinned $pin is gone from $suites; using the newest of the series, $kver=$debver"
fi
[ "$resolve_only" = 1 ] && { echo "$kver=$debver"; exit 0; }

# The image and headers, then what they depend on of the same kernel,
# until nothing new ("= V": that version; ">= V" or none: the newest): sid splits the image into linux-binary/-modules/-base,
# the headers need headers-common and kbuild.
echo "  KERNEL   $name: fetching linux-image-$kver=$debver and its headers"
want="linux-image-$kver=$debver linux-headers-$kver=$debver" got=
while [ -n "$want" ]; do
	# shellcheck disable=SC2086
	(cd "$out/dl" && papt get download $want >/dev/null) ||
		{ echo "fetch-kernel: $name: cannot download $want" >&2; exit 1; }
	got="$got $want" want=
	for deb in "$out"/dl/*.deb; do
		dpkg-deb -f "$deb" Depends | tr ',|' '\n\n' |
			sed -n -e 's/^ *\(linux-\(binary\|modules\|base\|headers\|kbuild\)-[0-9][^ ]*\) *(= \([^)]*\)) *$/\1=\3/p' -e t \
				-e 's/^ *\(linux-\(binary\|modules\|base\|headers\|kbuild\)-[0-9][^ ]*\) *\(([<>]=[^)]*)\)\{0,1\} *$/\1=/p'
	done | sort -u >"$out/deps"
	while read -r dep; do
		pkg=${dep%=*} ver=${dep#*=}
		[ -n "$ver" ] || ver=$(newest "$pkg")
		case " $got " in *" $pkg="*) continue ;; esac
		want="$want $pkg=$ver"
	done <"$out/deps"
done
for deb in "$out"/dl/*.deb; do dpkg-deb -x "$deb" "$out/root"; done

# sid's kbuild tools are linked against a newer glibc than this machine's:
# run those on the glibc of the kernel's own suite, unpacked next to them.
wrap_kbuild_tools() {
	old=$(find "$r"/usr/lib/linux-kbuild-* -type f -perm -u+x | while read -r f; do
		if ldd "$f" 2>/dev/null | grep -q 'not found'; then echo "$f"; fi
	done)
	[ -n "$old" ] || return 0
	echo "  KERNEL   $name: kbuild tools need a newer glibc: running them on $suites's libc6"
	(cd "$out/dl" && papt get download "libc6=$(newest libc6)" >/dev/null) &&
		dpkg-deb -x "$out"/dl/libc6_*.deb "$out/libc" ||
		{ echo "fetch-kernel: $name: cannot fetch libc6 for the kbuild tools" >&2; return 1; }
	lib=$out/libc/usr/lib/x86_64-linux-gnu
	for f in $old; do
		mv "$f" "$f.bin"
		printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s:/usr/lib/x86_64-linux-gnu %s "$@"\n' \
			"$lib" "$lib" "$f.bin" >"$f"
		chmod +x "$f"
	done
}

# Older packages put the kernel under /boot and /lib/modules, sid under
# /usr/lib/modules/KVER.
pick() { for f; do [ -e "$f" ] && { echo "$f"; return 0; }; done; echo "fetch-kernel: $name: none of $*" >&2; return 1; }
r=$out/root
mv "$(pick "$r/boot/vmlinuz-$kver" "$r/usr/lib/modules/$kver/vmlinuz")" "$out/vmlinuz"
mv "$(pick "$r/boot/config-$kver" "$r/usr/lib/modules/$kver/config")" "$out/config"
mkdir -p "$out/lib/modules"
mv "$(pick "$r/lib/modules/$kver" "$r/usr/lib/modules/$kver")" "$out/lib/modules/$kver"
rm -f "$out/lib/modules/$kver/build" "$out/lib/modules/$kver/source"
depmod -b "$out" "$kver"

hdr=$r/usr/src/linux-headers-$kver
[ -f "$hdr/Makefile" ] || { echo "fetch-kernel: $name: no headers in linux-headers-$kver" >&2; exit 1; }
sed -i "s|/usr/src/|$r/usr/src/|g" "$hdr/Makefile"
ln -s "root/usr/src/linux-headers-$kver" "$out/headers"
wrap_kbuild_tools

rm -rf "$out/dl" "$out/apt" "$out/deps" "$r/boot" "$r/lib" "$r/usr/share" "$r/usr/lib/modules"
echo "$kver" >"$out/kver"
echo "$name $pin linux-image-$kver=$debver" >"$out/.complete"
echo "  KERNEL   $name: linux-image-$kver=$debver"
