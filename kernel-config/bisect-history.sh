#!/bin/sh
# A small kernel history to prove make bisect on: Debian's linux-source
# (make kernel-source GUEST=6.12) as one base commit, then COMMITS commits
# of which the one at POSITION breaks the synchronous fault and the others
# are harmless (comments in the files around the DAX fault path, a line of
# documentation): they rebuild and relink like real commits, and change
# nothing the kernel does.
# Usage: bisect-history.sh SRC OUT KIND POSITION [COMMITS]
#   SRC       a kernel source tree, copied once into OUT
#   OUT       the git tree; made the first time, reused after (its base is
#             the tag bisect-base; each history is the branch KIND-POSITION)
#   KIND      slow: a 100 us busy wait before dax_finish_sync_fault's sync
#             (the gate sees it); order: the writable entry inserted before
#             the sync instead of after (syncorder sees it)
#   POSITION  which commit (1..COMMITS) is the bad one
#   COMMITS   how many commits (default 9)
# Prints GOOD=bisect-base BAD=KIND-POSITION FIRST_BAD=SHA.
set -eu
[ $# -ge 4 ] || { sed -n '8,16s/^# \{0,1\}//p' "$0" >&2; exit 2; }
src=$1 out=$2 kind=$3 pos=$4 n=${5:-9}
case $kind in slow | order) ;; *) echo "bisect-history: KIND=$kind: slow or order" >&2; exit 2 ;; esac
case $pos:$n in *[!0-9:]* | 0:* | *:0) echo "bisect-history: POSITION and COMMITS are whole numbers from 1" >&2; exit 2 ;; esac
[ "$pos" -le "$n" ] || { echo "bisect-history: POSITION $pos is beyond COMMITS $n" >&2; exit 2; }
git_() { git -C "$out" -c user.name="bisect-history" -c user.email="bisect-history@localhost" "$@"; }

if ! git -C "$out" rev-parse -q --verify bisect-base >/dev/null 2>&1; then
	[ -f "$src/fs/dax.c" ] || { echo "bisect-history: $src has no fs/dax.c: not a kernel tree" >&2; exit 2; }
	echo "  HISTORY  copying $src into $out and committing it (a few minutes)"
	rm -rf "$out" && mkdir -p "$out"
	cp -a "$src/." "$out/"
	rm -f "$out/.patch-check-applied"
	git_ init -q
	git_ add -A
	git_ commit -q -m "base: $(basename "$src")"
	git_ tag bisect-base
fi
git_ checkout -q -f -B "$kind-$pos" bisect-base

# harmless I: a comment or a documentation line, in turn in four files.
harmless() {
	case $(($1 % 4)) in
	1) f=Documentation/filesystems/dax.rst; printf '\n.. bisect-history: harmless change %s\n' "$1" >>"$out/$f" ;;
	2) f=fs/dax.c; sed -i "1a /* bisect-history: harmless change $1 */" "$out/$f" ;;
	3) f=fs/xfs/xfs_file.c; sed -i "1a /* bisect-history: harmless change $1 */" "$out/$f" ;;
	0) f=fs/ext4/file.c; sed -i "1a /* bisect-history: harmless change $1 */" "$out/$f" ;;
	esac
	git_ commit -q -am "bisect-history: harmless change $1 ($f)"
}

# The bad commit, on dax_finish_sync_fault's two lines that sync and insert.
bad() {
	f=$out/fs/dax.c
	grep -q '^	err = vfs_fsync_range(vmf->vma->vm_file, start, start + len - 1, 1);$' "$f" ||
		{ echo "bisect-history: dax_finish_sync_fault is not as expected in fs/dax.c" >&2; exit 1; }
	if [ "$kind" = slow ]; then
		sed -i 's|^#include <linux/atomic.h>$|&\n#include <linux/delay.h>|' "$f"
		sed -i 's|^	err = vfs_fsync_range(vmf->vma->vm_file, start, start + len - 1, 1);$|	udelay(100);\n&|' "$f"
		git_ commit -q -am "dax: wait 100 us before a synchronous fault's sync (bisect-history: the slowdown)"
	else
		awk '/^vm_fault_t dax_finish_sync_fault\(/ { on = 1 }
			on && /^\terr = vfs_fsync_range\(/ { print "\tvm_fault_t ret = dax_insert_pfn_mkwrite(vmf, pfn, order);\n"; print; next }
			on && /^\treturn dax_insert_pfn_mkwrite\(vmf, pfn, order\);$/ { print "\treturn ret;"; on = 0; next }
			{ print }' "$f" >"$f.new" && mv "$f.new" "$f"
		git_ commit -q -am "dax: insert the writable entry before the sync (bisect-history: the ordering bug)"
	fi
	first=$(git_ rev-parse HEAD)
}

i=1
while [ "$i" -le "$n" ]; do
	if [ "$i" = "$pos" ]; then bad; else harmless "$i"; fi
	i=$((i + 1))
done
git_ checkout -q bisect-base
echo "GOOD=bisect-base BAD=$kind-$pos FIRST_BAD=$first"
