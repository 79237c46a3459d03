#!/bin/sh
# Guest job: the short versions of make reproduce's extra tables, checked
# rather than measured. persistlat: every method and size on ext4 and xfs
# adds up in text and JSON and reads back; under daxlat, MAP_SYNC writes
# into an empty file pay one synchronous fault per page and writes into
# written blocks none. faultlat --writers: concurrent writers on their own
# files and on one file, every fault synchronous and counted, the journal
# commits counted (at most one per fault) and reported per fault. One KTAP document.
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
PATH=/job/bin:$PATH
N=32            # writes per persistlat row, pages per writer

ktap_plan pmem_namespaces_fsdax xfs_mount_dax ext4_mount_dax
for fs in $(fs_list); do
	ktap_plan ${fs}_persistlat_adds_up ${fs}_persistlat_empty_pays_at_fault ${fs}_persistlat_written_no_sync_fault \
		${fs}_writers_own_files_all_sync ${fs}_writers_one_file_all_sync
done
ktap_start
ktap_diag "kernel $(uname -r), cache flush: $(grep -o -w -E 'clwb|clflushopt' /proc/cpuinfo | sort -u | tr '\n' ' ')"
ktap_check pmem_namespaces_fsdax pmem_expect 2
ktap_check xfs_mount_dax fs_setup xfs /dev/pmem1
ktap_check ext4_mount_dax fs_setup ext4 /dev/pmem0

# persistlat_adds_up FS: 4 methods x 2 sizes, text rows and JSON agree.
persistlat_adds_up() {
	persistlat -f "/mnt/$1/p" -n $N -b 8,4096 >/tmp/p.txt 2>/tmp/p.err || { echo "exit $?: $(cat /tmp/p.err)"; return 1; }
	rows=$(grep -c -E '^(mapsync|msync|pwrite|mmap-fdatasync) ' /tmp/p.txt)
	[ "$rows" = 8 ] || { echo "$rows text rows: $(head -c 400 /tmp/p.txt)"; return 1; }
	persistlat -f "/mnt/$1/p" -n $N -b 8,4096 -j >/tmp/p.json 2>/tmp/p.err || { echo "--json exit $?: $(cat /tmp/p.err)"; return 1; }
	jq -e --argjson n $N '.dax and (.rows | length) == 8 and all(.rows[]; .writes == $n and
		([.hist[].count] | add) == $n and .min <= .median and .median <= .p99 and .p99 <= .p999 and .p999 <= .max) and
		all(.rows[] | select(.method == "mapsync"); .ratio_vs_mapsync == 1)' /tmp/p.json >/dev/null ||
		{ echo "JSON: $(head -c 400 /tmp/p.json)"; return 1; }
}

# sync_faults FS STATE: persistlat's MAP_SYNC writes of whole pages under
# daxlat; prints NEEDDSYNC and dax_iomap_fault counts.
sync_faults() {
	daxlat --json --phases -c "persistlat -f /mnt/$1/s -m mapsync -b 4096 -n $N -s $2 >/dev/null" \
		>/tmp/d.json 2>/tmp/d.err || { echo "daxlat exit $?: $(head -c 300 /tmp/d.err)" >&2; return 1; }
	jq -r '"\(.counters.needdsync) \(.counters.dax_iomap_fault)"' /tmp/d.json
}
empty_pays_at_fault() {
	set -- $(sync_faults "$1" empty) || return 1
	[ "$1" = $N ] || { echo "NEEDDSYNC $1 of $2 faults, want $N (one per page written first)"; return 1; }
}
written_no_sync_fault() {
	set -- $(sync_faults "$1" written) || return 1
	[ "$1" = 0 ] && [ "$2" -ge $N ] || { echo "NEEDDSYNC $1 of $2 faults, want 0 of >= $N (blocks written and synced)"; return 1; }
}

# writers FS ARGS: 2 MAP_SYNC writers on an empty file each (or one
# file), under daxlat: every fault synchronous, but for the rare one whose
# allocation the other writer's sync made durable before the fault asked
# (the filesystem then reports it clean, rightly: seen once on xfs, 63 of
# 64); every synchronous fault synced; commits per fault said.
writers() {
	fs=$1; shift
	daxlat --json --phases -c "faultlat -f /mnt/$fs/w -S -s empty -n $N -w 2 $* -j >/tmp/w.json" \
		>/tmp/wd.json 2>/tmp/wd.err || { echo "daxlat exit $?: $(head -c 300 /tmp/wd.err)"; return 1; }
	jq -e --argjson n $((2 * N)) '.faults == $n and .writers == 2 and (.writers_detail | length) == 2 and
		([.hist[].count] | add) == $n' /tmp/w.json >/dev/null || { echo "faultlat JSON: $(head -c 300 /tmp/w.json)"; return 1; }
	jq -e --argjson n $((2 * N)) '.counters.dax_iomap_fault >= $n and .counters.needdsync >= $n - 2 and
		.counters.metadata_syncs == .counters.needdsync' /tmp/wd.json >/dev/null ||
		{ echo "counters: $(jq -c '.counters | {needdsync, metadata_syncs, dax_iomap_fault}' /tmp/wd.json)"; return 1; }
	# The journal's commits are counted, and no more of them than faults
	# (a few background commits of the device allowed).
	m=$(fs_field "$fs" commits)
	jq -e --arg m "$m" '.counters[$m] >= 1 and .counters[$m] <= .counters.needdsync + 4' /tmp/wd.json >/dev/null ||
		{ echo "$m: $(jq -c --arg m "$m" '{commits: .counters[$m], needdsync: .counters.needdsync}' /tmp/wd.json)"; return 1; }
	echo "$fs $* $(jq -r --arg m "$m" '"\(.counters[$m]) \($m) for \(.counters.needdsync) sync faults"' /tmp/wd.json)" >>/tmp/commits
}

: >/tmp/commits
for fs in $(fs_list); do
	ktap_check ${fs}_persistlat_adds_up persistlat_adds_up $fs
	ktap_check ${fs}_persistlat_empty_pays_at_fault empty_pays_at_fault $fs
	ktap_check ${fs}_persistlat_written_no_sync_fault written_no_sync_fault $fs
	ktap_check ${fs}_writers_own_files_all_sync writers $fs
	ktap_check ${fs}_writers_one_file_all_sync writers $fs --same-file
done
ktap_diag "commits per fault: $(tr '\n' ';' </tmp/commits)"
ktap_finish
