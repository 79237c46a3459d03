#!/bin/sh
# Smoke job for the guest kernels make check does not run in full (the
# other rows of kernel-config/kernels.txt): boot, fsdax on both NVDIMMs,
# then on ext4 and xfs one MAP_SYNC fault run of an empty file under daxlat
# (every fault returned NEEDDSYNC, got its metadata sync and its writable
# entry) and one under syncorder (the ordering held for each). One KTAP
# document; about 30 s under TCG.
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
PATH=/job/bin:$PATH
N=64

ktap_plan pmem_namespaces_fsdax
for fs in $(fs_list); do ktap_plan ${fs}_mount_dax ${fs}_daxlat_sync_counts ${fs}_syncorder_clean; done
ktap_start
ktap_diag "kernel $(uname -r)"
ktap_check pmem_namespaces_fsdax pmem_expect 2

# daxlat_counts FS: N faults, each NEEDDSYNC, mkwrite and metadata sync.
daxlat_counts() {
	daxlat --json --phases -c "faultlat -f /mnt/$1/smoke-d -n $N $(scenario_args empty-none-sync) >/dev/null" \
		>/tmp/d.json 2>/tmp/d.err || { echo "daxlat exit $?: $(head -c 300 /tmp/d.err)"; return 1; }
	jq -e ".counters | .dax_iomap_fault == $N and .needdsync == $N and .mkwrite == $N and
		.metadata_syncs == $N and .missed_entries == 0 and .program_runs_missed == 0" /tmp/d.json >/dev/null ||
		{ echo "counters: $(jq -c '.counters | {dax_iomap_fault, needdsync, mkwrite, metadata_syncs, missed_entries, program_runs_missed}' /tmp/d.json 2>&1)"; return 1; }
	# Where kprobes and perf tracepoints are chosen the faults end at the
	# done tracepoints (no kretprobe), elsewhere at their return.
	jq -e '(.attach_choice | test("perf tracepoints")) == (.fault_exit == "done_tracepoint")' /tmp/d.json >/dev/null ||
		{ echo "fault exit $(jq -c '[.fault_exit, .attach_choice]' /tmp/d.json)"; return 1; }
}

# syncorder_clean FS: N faults checked, no violation, nothing lost.
syncorder_clean() {
	syncorder --json-out /tmp/s.json -c "faultlat -f /mnt/$1/smoke-s -n $N $(scenario_args empty-none-sync) >/dev/null" \
		>/tmp/s.tap 2>/tmp/s.err || { echo "syncorder exit $?: $(grep '^not ok' /tmp/s.tap | head -n 3) $(head -c 200 /tmp/s.err)"; return 1; }
	jq -e ".counts.sync_write_faults_entered == $N" /tmp/s.json >/dev/null ||
		{ echo "counts: $(jq -c .counts /tmp/s.json 2>&1 | head -c 300)"; return 1; }
}

# xfs first: its module must be loaded before the tools look for its functions.
ktap_check xfs_mount_dax fs_setup xfs /dev/pmem1
ktap_check ext4_mount_dax fs_setup ext4 /dev/pmem0
for fs in $(fs_list); do
	ktap_check ${fs}_daxlat_sync_counts daxlat_counts $fs
	ktap_check ${fs}_syncorder_clean syncorder_clean $fs
done
ktap_diag "attach: $(jq -c .attach /tmp/d.json 2>/dev/null)"
ktap_diag "syncorder: $(grep -E '^# (probes|attach):' /tmp/s.tap | tr '\n' ' ')"
ktap_finish
