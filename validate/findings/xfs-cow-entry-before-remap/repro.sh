#!/bin/sh
# Reproduce xfs-cow-entry-before-remap on a machine (or VM) whose crash you
# can afford: a DAX device, Debian's xfsprogs, a C compiler, root.
# Usage: repro.sh crash DEV MNT    mkfs.xfs DEV (reflink on), mount -o dax,
#                                  clone a file, store 64 pages through
#                                  MAP_SYNC and crash the machine (sysrq c)
#        repro.sh verify DEV MNT   after the reboot: mount, read the pages
#                                  back; exit 1 when a stored page was lost
# Each stored page was flushed (clflush) and reported before the crash, so
# MAP_SYNC promises every one of them. On a kernel with the bug the last
# one (page 63) comes back as the clone source's data: in 8 of 8 crashes
# on Debian's 6.1 (make finding-repro, results/baselines/repro-xfs-cow-*);
# with the fix (0001-dax-...patch) never.
set -eu
[ $# = 3 ] || { sed -n '4,9s/^# \{0,1\}//p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
dev=$2 mnt=$3
repro=${REPRO:-/tmp/repro}
[ -x "$repro" ] || cc -O2 -Wall -o "$repro" "$here/repro.c"
mkdir -p "$mnt"
case $1 in
crash)
	mkfs.xfs -f -q -m reflink=1 "$dev"
	mount -t xfs -o dax "$dev" "$mnt"
	"$repro" setup "$mnt"
	sync
	echo "repro: storing 64 pages, then crashing the machine"
	"$repro" write "$mnt" 64 ;;
verify)
	mount -t xfs -o dax "$dev" "$mnt"
	"$repro" verify "$mnt" 64 ;;
*)	sed -n '4,9s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
