#!/bin/sh
# Generate vmlinux.h for daxlat from the BTF of the pinned guest kernel, so the
# BPF object is compiled against the kernel it will run on (CO-RE relocates it
# elsewhere). Usage: gen-vmlinux-h.sh OUT.h [KERNEL_IMAGE]
#   VMLINUX_BTF=path  use this file instead: an ELF vmlinux (with .BTF), a raw
#                     BTF blob (/sys/kernel/btf/vmlinux) or a bzImage.
#   V=1               say how the vmlinux was extracted.
#   Without either, the running kernel's /sys/kernel/btf/vmlinux is used, with
#   a warning (its types may differ from the guest's).
set -eu
out=$1 image=${2:-}
BPFTOOL=${BPFTOOL:-bpftool}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
warn() { echo "gen-vmlinux-h: $*" >&2; }

magic4() { head -c 4 "$1" | od -An -tx1 | tr -d ' \n'; }
is_elf() { [ "$(magic4 "$1")" = 7f454c46 ]; }
# Raw BTF starts with the little-endian magic 0xeb9f.
is_raw_btf() { case $(magic4 "$1") in 9feb*) return 0 ;; esac; return 1; }

# extract_vmlinux IMAGE OUT: a bzImage carries the ELF vmlinux compressed
# somewhere after its setup code. Find each known compression magic and try
# the matching decompressor at that offset until one yields an ELF file.
# Decompressors may complain about the trailing data after the stream (lz4
# exits 1 on the legacy frame): judge by the output, not the exit status.
extract_vmlinux() {
	img=$1 dst=$2
	for pair in 'x1f\x8b\x08:gzip' 'xfd7zXZ\x00:xz' 'x28\xb5\x2f\xfd:zstd' \
		'x02\x21\x4c\x18:lz4' 'x5d\x00\x00\x00:lzma' 'x89LZO:lzop' 'BZh:bzip2'; do
		pat=${pair%%:*} tool=${pair##*:}
		case $pat in x*) pat="\\$pat" ;; esac
		command -v "$tool" >/dev/null 2>&1 || continue
		for off in $(LC_ALL=C grep -aboP "$pat" "$img" 2>/dev/null | cut -d: -f1 | head -n 8); do
			tail -c +"$((off + 1))" "$img" | "$tool" -dc >"$dst" 2>/dev/null || true
			if [ -s "$dst" ] && is_elf "$dst"; then
				echo "$tool@$off"
				return 0
			fi
		done
	done
	return 1
}

# resolve FILE: print a path bpftool can read BTF from.
resolve() {
	if is_elf "$1" || is_raw_btf "$1"; then
		echo "$1"
	elif how=$(extract_vmlinux "$1" "$tmp/vmlinux"); then
		[ "${V:-0}" = 1 ] && warn "extracted vmlinux from $1 ($how)"
		echo "$tmp/vmlinux"
	else
		return 1
	fi
}

src=
if [ -n "${VMLINUX_BTF:-}" ]; then
	[ -r "$VMLINUX_BTF" ] || { warn "VMLINUX_BTF=$VMLINUX_BTF is not readable"; exit 1; }
	src=$(resolve "$VMLINUX_BTF") || { warn "no BTF found in $VMLINUX_BTF"; exit 1; }
elif [ -n "$image" ] && [ -r "$image" ]; then
	src=$(resolve "$image") ||
		warn "cannot extract vmlinux from $image (missing decompressor? gzip xz-utils zstd lz4 lzop bzip2)"
fi
if [ -z "$src" ]; then
	src=/sys/kernel/btf/vmlinux
	[ -r "$src" ] || { warn "no guest kernel and no $src: set VMLINUX_BTF=file"; exit 1; }
	warn "WARNING: using the running kernel's BTF ($src), not the guest kernel's"
fi
"$BPFTOOL" btf dump file "$src" format c >"$tmp/vmlinux.h" ||
	{ warn "bpftool cannot read BTF from $src"; exit 1; }
grep -q 'struct vm_fault {' "$tmp/vmlinux.h" || { warn "$src: BTF has no struct vm_fault"; exit 1; }
mv "$tmp/vmlinux.h" "$out"
