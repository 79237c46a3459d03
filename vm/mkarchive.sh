#!/bin/sh
# Build a job's own archive of host programs: each program with every
# library ldd names, less what the base initramfs already holds. A guest job
# that needs a big program (the clients job's fio: 62 libraries, Ceph's and
# Gluster's among them) takes it as a file of its jobs.txt row and unpacks
# it itself, so the other jobs' boots do not carry it.
# Usage: mkarchive.sh BASE.cpio.gz OUT.cpio.gz FILE...
#   FILE: a command name (goes to /usr/bin) or an absolute path (kept at
#   its path: a library that is dlopen()ed or swapped in by LD_LIBRARY_PATH)
set -eu
base=$1 out=$2; shift 2
[ $# -gt 0 ] || { echo "usage: mkarchive.sh BASE.cpio.gz OUT.cpio.gz FILE..." >&2; exit 2; }
stage=$(mktemp -d "${out%/*}/archive.XXXXXX")
trap 'rm -rf "$stage"' EXIT
# What the base archive holds, as absolute paths.
gzip -dc "$base" | cpio -t --quiet | sed 's,^\./,,; s,^,/,' >"$stage.base"
trap 'rm -rf "$stage" "$stage.base"' EXIT
mkdir "$stage/root"
# put SRC DEST: SRC at DEST in the archive unless the base has DEST.
put() {
	grep -qxF "$2" "$stage.base" && return 0
	mkdir -p "$stage/root${2%/*}"
	[ -e "$stage/root$2" ] || cp -L "$1" "$stage/root$2"
}
for f in "$@"; do
	case $f in
	/*) src=$f dest=$f ;;
	*) src=$(command -v "$f" || true) dest=/usr/bin/$f ;;
	esac
	[ -n "$src" ] && [ -f "$src" ] || { echo "mkarchive: $f not found on the host (make deps)" >&2; exit 1; }
	put "$src" "$dest"
	ldd "$src" | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | while read -r lib; do put "$lib" "$lib"; done
done
(cd "$stage/root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
