#!/bin/sh
# Guest half of 'make reproduce': the cover letter's six scenarios (plus the
# fallocated pair the letter could not tell apart from 'empty') on ext4 and
# xfs, each table sent back as a file. PAGES and REPS come from job.env.
. /lib/vmlib.sh
PATH=/job/bin:$PATH
. ./job.env

emit() { echo "@@file $1"; cat "$2"; echo "@@end"; }
fail() { echo "reproduce: $*" >&2; exit 1; }

pmem_setup || fail "no fsdax namespace"
fs_mkfs ext4 /dev/pmem0 && fs_mount ext4 /dev/pmem0 /mnt/ext4 || fail "ext4 -o dax"
fs_mkfs xfs /dev/pmem1 && fs_mount xfs /dev/pmem1 /mnt/xfs || fail "xfs -o dax"

{
	echo "guest_kernel=$(uname -r)"
	echo "guest_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "guest_cpus=$(grep -c ^processor /proc/cpuinfo)"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "cache_flush=$(grep -o -w -E 'clwb|clflushopt' /proc/cpuinfo | sort -u | tr '\n' ' ')"
} >/tmp/meta
emit guest-meta.txt /tmp/meta

for fs in ext4 xfs; do
	for scen in prealloc-none-nosync prealloc-none-sync empty-none-nosync empty-none-sync \
		empty-copy-nosync empty-copy-sync fallocated-none-nosync fallocated-none-sync; do
		state=${scen%%-*} rest=${scen#*-}
		load=${rest%%-*} sync=${rest#*-}
		set -- -n "$PAGES" -r "$REPS" -s "$state" -l "$load" -f "/mnt/$fs/bench"
		[ "$sync" = sync ] && set -- "$@" --sync
		echo "reproduce: $fs $scen" >&2
		faultlat "$@" --json-out /tmp/out.json >/tmp/out.txt || fail "faultlat $* failed"
		emit "$fs/$scen.txt" /tmp/out.txt
		emit "$fs/$scen.json" /tmp/out.json
		echo "ok $fs $scen"
	done
done
