#!/bin/sh
# Guest job of issue 32: programs nobody here wrote, measured and checked by
# the suite. One KTAP document, one boot, two NVDIMMs:
#   - PMDK (Debian's libpmemobj, through validate/clients/pmemobj-array) on
#     a fresh pool on xfs and ext4 -o dax: under daxlat, its faults are
#     VM_SYNC and every NEEDDSYNC fault syncs the metadata; the process saw
#     MAP_SYNC and VM_SYNC on its pool and made no msync while the
#     transactions ran (the flush path; PMDK makes 10 msync calls around
#     pool create and close all the same); pmempool check and info pass;
#     under syncorder, no violation and every writable entry checked, its
#     pfn too.
#   - What PMDK chose with PMEM_IS_PMEM_FORCE=0 and =1 on DAX (MAP_SYNC all
#     the same: a MAP_SYNC mapping is pmem to PMDK whatever FORCE says), and
#     on a non-DAX ext4 (a loop device): no MAP_SYNC, msync per flush, and
#     with FORCE=1 no msync per transaction (PMDK then trusts stores it
#     does not make durable: the crash control of issue 32).
#   - The crash test's control on DAX: pmemobj-array --no-map-sync (MAP_SYNC
#     refused as a kernel without it would): no VM_SYNC fault, msync per
#     flush; with FORCE=1 no msync at all.
#   - libbpf-tools' funclatency on dax_iomap_fault around a faultlat run
#     that daxlat traces at the same time: the two counts are equal.
#   - Debian's fio (issue 32), from the job's own archive (fio.cpio.gz of
#     its jobs.txt row: fio links 62 libraries, so no other job carries
#     them): its libpmem engine on a fresh file and on a written one (PMDK
#     maps with MAP_SYNC, its debug libpmem's log says so and names the
#     flush; fio writes the whole file before its job, so no fault
#     allocates), its mmap engine without and with fdatasync=1 (never
#     MAP_SYNC; the fdatasync is an msync of the mapping), and fio's
#     per-write latency next to faultlat's per-fault latency for the same
#     pattern, random and sequential.
#   - syncorder around PMDK's transactions and fio's libpmem run: 0
#     violations, every writable entry checked, its pfn too.
# Needs pmempool, funclatency and PMDK's libraries in the initramfs
# (vm/mkinitramfs.sh), daxlat, syncorder, faultlat, pmemobj-array in /job/bin,
# fio.cpio.gz in /job (vm/mkarchive.sh).
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
PATH=/job/bin:$PATH:/usr/bin
TX=1000			# transactions per PMDK run
THREADS=4
PAGES=512		# faultlat pages under funclatency
FIO_PAGES=511		# fio's 4 KiB writes per run (see the fio section)
PMDK_DBG=/usr/lib/x86_64-linux-gnu/pmdk_dbg	# PMDK's debug libpmem
OUT=/tmp/clients
mkdir -p $OUT
: >$OUT/choices

ktap_plan fio_unpacked pmem_namespaces_fsdax xfs_mount_dax ext4_mount_dax
for fs in $(fs_list); do
	ktap_plan ${fs}_pmdk_runs_under_daxlat ${fs}_pmdk_chose_map_sync ${fs}_pmdk_sync_faults_synced \
		${fs}_pmempool_check ${fs}_pmempool_info ${fs}_pmdk_syncorder_clean \
		${fs}_pmdk_force0_map_sync ${fs}_pmdk_force1_map_sync ${fs}_pmdk_refused_map_sync_msyncs \
		${fs}_pmdk_refused_force1_no_msync ${fs}_funclatency_equals_daxlat \
		${fs}_fio_libpmem_fresh ${fs}_fio_libpmem_written ${fs}_fio_mmap_nosync ${fs}_fio_mmap_sync \
		${fs}_fio_syncorder_clean ${fs}_fio_vs_faultlat
done
ktap_plan nondax_ext4_loop_mount nondax_pmdk_msync_path nondax_pmdk_force0_msync_path \
	nondax_pmdk_force1_skips_msync
ktap_start
ktap_diag "kernel $(uname -r), cache flush: $(grep -o -w -E 'clwb|clflushopt' /proc/cpuinfo | sort -u | tr '\n' ' ')"
# fio and PMDK's debug libpmem, this job's own archive (vm/mkarchive.sh):
# unpacked into / here, its seconds in the diagnostics (the boot cost it
# adds to this job alone).
fio_ready() {
	_v=$(fio_unpack $OUT) || { echo "$_v"; return 1; }
	[ -f $PMDK_DBG/libpmem.so.1 ] || { echo "no $PMDK_DBG/libpmem.so.1"; return 1; }
	echo "$_v, ready at $(cut -d' ' -f1 /proc/uptime) s since boot"
}
ktap_begin fio_unpacked
if why=$(fio_ready); then ktap_diag "$why"; ktap_pass fio_unpacked; else ktap_fail fio_unpacked "$why"; fi
ktap_check pmem_namespaces_fsdax pmem_expect 2
# xfs first: xfs.ko must be loaded before daxlat looks for its functions.
ktap_check xfs_mount_dax fs_setup xfs /dev/pmem1
ktap_check ext4_mount_dax fs_setup ext4 /dev/pmem0

# pmdk RUN DIR FORCE [--keep]: pmemobj-array on a fresh pool DIR/RUN under
# daxlat --json, PMEM_IS_PMEM_FORCE=FORCE (- : unset). Leaves RUN.out,
# RUN.err, RUN.json, RUN.djson (daxlat), RUN.rc; prints why on failure.
pmdk() {
	_r=$1 _dir=$2 _force=$3; shift 3
	_env=
	[ "$_force" = - ] || _env="PMEM_IS_PMEM_FORCE=$_force"
	rm -f "$_dir/$_r"
	daxlat --json --phases -c "$_env pmemobj-array -f $_dir/$_r -n $TX -t $THREADS $* >$OUT/$_r.out 2>$OUT/$_r.err" \
		>$OUT/$_r.djson 2>$OUT/$_r.derr
	echo $? >$OUT/$_r.rc
	if [ "$(cat $OUT/$_r.rc)" != 0 ]; then
		echo "daxlat exit $(cat $OUT/$_r.rc): $(head -c 300 $OUT/$_r.derr) pmemobj-array: $(head -c 300 $OUT/$_r.err)"
		return 1
	fi
	# One line of what PMDK chose and what the kernel counted.
	echo "$_r: $(head -n 1 $OUT/$_r.out) $(jq -r '"needdsync=\(.counters.needdsync) metadata_syncs=\(.counters.metadata_syncs) dax_iomap_fault=\(.counters.dax_iomap_fault)"' $OUT/$_r.djson)" >>$OUT/choices
}

# field RUN KEY: KEY=VALUE of RUN's output.
field() {
	sed -n "s/.*[ :]$2=\([0-9]*\).*/\1/p" $OUT/$1.out | head -n 1
}

# tx_ok RUN: every transaction read back from the reopened pool.
tx_ok() {
	[ "$(field "$1" count)" = $TX ] || { echo "$1: $(cat $OUT/$1.out)"; return 1; }
}

# chose RUN MAP_SYNC VM_SYNC MSYNC: what the process saw; the msync calls
# while the transactions ran (tx_msync) 0, or "many": at least one per
# transaction (the msync path).
chose() {
	_m=$(field "$1" map_sync) _v=$(field "$1" vm_sync) _s=$(field "$1" tx_msync)
	[ "$_m" = "$2" ] && [ "$_v" = "$3" ] && [ -n "$_s" ] || { echo "$1: $(head -n 1 $OUT/$1.out), want map_sync=$2 vm_sync=$3"; return 1; }
	case $4 in
	0) [ "$_s" = 0 ] ;;
	many) [ "$_s" -ge $TX ] ;;
	esac || { echo "$1: tx_msync=$_s, want $4 (of $TX transactions)"; return 1; }
}

# VM_SYNC write faults and NEEDDSYNC, each NEEDDSYNC fault's metadata synced.
SYNCED='[.faults[] | select(.sync and .write) | .count] | add // 0 | . > 0 and
	$c.needdsync > 0 and $c.metadata_syncs == $c.needdsync and $c.missed_entries == 0'
sync_faults_synced() {
	jq -e ".counters as \$c | $SYNCED" $OUT/$1.djson >/dev/null ||
		{ echo "$1: $(jq -c '{sync_write_faults: ([.faults[] | select(.sync and .write) | .count] | add), needdsync: .counters.needdsync, metadata_syncs: .counters.metadata_syncs, missed: .counters.missed_entries}' $OUT/$1.djson)"; return 1; }
}

pmempool_check() {
	pmempool check -v "$1" >$OUT/check.txt 2>&1 || { echo "exit $?: $(tail -n 3 $OUT/check.txt)"; return 1; }
	grep -q ': consistent$' $OUT/check.txt || { echo "$(tail -n 3 $OUT/check.txt)"; return 1; }
}
pmempool_info() {
	pmempool info "$1" >$OUT/info.txt 2>&1 || { echo "exit $?: $(tail -n 3 $OUT/info.txt)"; return 1; }
	grep -q '^Signature *: PMEMOBJ$' $OUT/info.txt && grep -q '^Layout *: pmemobj-array$' $OUT/info.txt ||
		{ echo "no PMEMOBJ signature or layout: $(head -c 300 $OUT/info.txt)"; return 1; }
}

# refused RUN DIR FORCE MSYNC: pmemobj-array --no-map-sync on DAX: no
# MAP_SYNC, no VM_SYNC, MSYNC as chose says; DAX faults, none synchronous.
refused() {
	pmdk $1 $2 $3 --no-map-sync && tx_ok $1 && chose $1 0 0 $4 || return 1
	jq -e '.counters.dax_iomap_fault > 0 and .counters.needdsync == 0 and
		([.faults[] | select(.sync) | .count] | add // 0) == 0' $OUT/$1.djson >/dev/null ||
		{ echo "$1: want DAX faults, none synchronous: $(jq -c .counters $OUT/$1.djson | head -c 300)"; return 1; }
}

# syncorder_checked NAME CMD: CMD under the checker: no violation, entries
# checked, each one's pfn too. Prints the counts.
syncorder_checked() {
	syncorder --json-out $OUT/$1-so.json -c "$2" >$OUT/$1-so.tap 2>$OUT/$1-so.err
	_rc=$?
	[ $_rc = 0 ] || { echo "syncorder exit $_rc: $(grep '^not ok' $OUT/$1-so.tap | head -n 2) $(head -c 200 $OUT/$1-so.err)"; return 1; }
	jq -e '.counts | .violations == 0 and .checker_errors == 0 and .checked > 0 and .pfn_checked == .checked' \
		$OUT/$1-so.json >/dev/null || { echo "$(jq -c '.counts | {violations, checker_errors, checked, pfn_checked, needdsync}' $OUT/$1-so.json)"; return 1; }
	echo "$1: $(jq -r '.counts | "\(.checked) entries checked (\(.needdsync) NEEDDSYNC), \(.pfn_checked) pfns, \(.violations) violations"' $OUT/$1-so.json)"
}
# syncorder_clean FS: the PMDK workload under the checker.
syncorder_clean() {
	syncorder_checked $1-pmdk "pmemobj-array -f /mnt/$1/so -n $TX -t $THREADS >$OUT/so.out 2>&1" ||
		{ echo "pmemobj-array: $(head -c 200 $OUT/so.out)"; return 1; }
}

# funclatency_vs_daxlat FS: funclatency -u dax_iomap_fault around a
# faultlat run that daxlat traces: both count the same faults.
funclatency_vs_daxlat() {
	funclatency -u dax_iomap_fault >$OUT/fl-$1.txt 2>$OUT/fl-$1.err &
	_fl=$!
	_how=$(tracer_attached $_fl dax_iomap_fault) ||
		{ kill -INT $_fl; wait $_fl; echo "funclatency did not attach (no kretprobe, no BPF links): $(head -c 300 $OUT/fl-$1.err)"; return 1; }
	daxlat -c "faultlat -f /mnt/$1/fl -n $PAGES $(scenario_args empty-none-sync) >/dev/null" >$OUT/dl-$1.txt 2>$OUT/dl-$1.err
	_drc=$?
	kill -INT $_fl; wait $_fl
	_frc=$?
	[ $_drc = 0 ] && [ $_frc = 0 ] || { echo "daxlat exit $_drc, funclatency exit $_frc: $(head -c 200 $OUT/dl-$1.err) $(head -c 200 $OUT/fl-$1.err)"; return 1; }
	_f=$(awk '$2 == "->" && $4 == ":" { s += $5 } END { print s + 0 }' $OUT/fl-$1.txt)
	_d=$(awk '/^  dax_iomap_fault calls/ { print $NF }' $OUT/dl-$1.txt)
	ktap_diag "$1 funclatency dax_iomap_fault (usecs, attached by $_how), count $_f:"
	ktap_diag "$(grep -E 'usecs|->' $OUT/fl-$1.txt)"
	ktap_diag "$1 daxlat (usecs), dax_iomap_fault calls $_d:"
	ktap_diag "$(awk '/^dax_iomap_fault: / { on = 1 } on { print } on && /^count=/ { on = 0 }' $OUT/dl-$1.txt | grep -v '^min=\|^[0-9]* - [0-9]* us:')"
	[ "$_f" = "$_d" ] && [ "$_d" -ge $PAGES ] || { echo "funclatency counted $_f, daxlat $_d (want equal, >= $PAGES)"; return 1; }
}

for fs in $(fs_list); do
	d=/mnt/$fs
	ktap_begin ${fs}_pmdk_runs_under_daxlat
	if why=$(pmdk $fs-pool $d - --keep && tx_ok $fs-pool); then
		ktap_diag "$fs: $(tr '\n' ' ' <$OUT/$fs-pool.out)"
		ktap_pass ${fs}_pmdk_runs_under_daxlat
	else
		ktap_fail ${fs}_pmdk_runs_under_daxlat "$why"
	fi
	ktap_check ${fs}_pmdk_chose_map_sync chose $fs-pool 1 1 0
	ktap_check ${fs}_pmdk_sync_faults_synced sync_faults_synced $fs-pool
	ktap_check ${fs}_pmempool_check pmempool_check $d/$fs-pool
	ktap_check ${fs}_pmempool_info pmempool_info $d/$fs-pool
	rm -f $d/$fs-pool
	ktap_begin ${fs}_pmdk_syncorder_clean
	if why=$(syncorder_clean $fs); then ktap_diag "$why"; ktap_pass ${fs}_pmdk_syncorder_clean
	else ktap_fail ${fs}_pmdk_syncorder_clean "$why"; fi
	for force in 0 1; do
		ktap_begin ${fs}_pmdk_force${force}_map_sync
		if why=$(pmdk $fs-force$force $d $force && tx_ok $fs-force$force && chose $fs-force$force 1 1 0 &&
			sync_faults_synced $fs-force$force); then
			ktap_pass ${fs}_pmdk_force${force}_map_sync
		else
			ktap_fail ${fs}_pmdk_force${force}_map_sync "$why"
		fi
	done
	# The crash test's control (validate/crash/): MAP_SYNC refused on this
	# DAX file (--no-map-sync), as a kernel without it would answer. PMDK
	# falls back to MAP_SHARED and an msync per flush; told FORCE=1, none.
	ktap_check ${fs}_pmdk_refused_map_sync_msyncs refused $fs-refused $d - many
	ktap_check ${fs}_pmdk_refused_force1_no_msync refused $fs-refused1 $d 1 0
	ktap_begin ${fs}_funclatency_equals_daxlat
	if why=$(funclatency_vs_daxlat $fs); then
		printf '%s\n' "$why"
		ktap_pass ${fs}_funclatency_equals_daxlat
	else
		ktap_fail ${fs}_funclatency_equals_daxlat "$(printf '%s' "$why" | grep -v '^#' | tail -n 1)"
		printf '%s\n' "$why" | grep '^#'
	fi
done


# ---- fio (issue 32): Debian's fio 3.33, its libpmem and mmap engines ----
# FIO_PAGES 4 KiB writes per run, to a file of as many pages: 2044 KiB,
# under 2 MiB, so that no fault can be a PMD fault (a 2 MiB file takes one
# PMD fault for all its writes) and each write takes its own 4 KiB fault,
# as faultlat's (MADV_NOHUGEPAGE) do.
: >$OUT/fio-choices

# fio_run RUN FILE ENGINE RW [FIO OPTION...]: fio's FIO_PAGES writes to
# FILE under daxlat --json: RUN.json is fio's JSON, RUN.djson daxlat's;
# fio wrote exactly what was asked, without error.
fio_run() {
	_r=$1 _f=$2 _e=$3 _rw=$4; shift 4
	daxlat --json --phases -c "fio --name=$_r --filename=$_f --ioengine=$_e --rw=$_rw --bs=4k \
--size=$((FIO_PAGES * 4))k $* --output-format=json --output=$OUT/$_r.json 2>$OUT/$_r.err" \
		>$OUT/$_r.djson 2>$OUT/$_r.derr
	_rc=$?
	[ $_rc = 0 ] || { echo "daxlat exit $_rc: $(head -c 300 $OUT/$_r.derr) fio: $(head -c 300 $OUT/$_r.err)"; return 1; }
	jq -e --argjson n $FIO_PAGES '.jobs[0].error == 0 and .jobs[0].write.total_ios == $n' $OUT/$_r.json >/dev/null ||
		{ echo "$_r: fio $(jq -c '.jobs[0] | {error, writes: .write.total_ios}' $OUT/$_r.json 2>&1 | head -c 200), want $FIO_PAGES writes"; return 1; }
	echo "$_r: fio $_e $_rw $*: writes=$(jq '.jobs[0].write.total_ios' $OUT/$_r.json) $(jq -r '.counters | "dax_iomap_fault=\(.dax_iomap_fault) pte=\(.pte) pmd=\(.pmd) needdsync=\(.needdsync) metadata_syncs=\(.metadata_syncs)"' $OUT/$_r.djson) vm_sync_write_faults=$(jq '[.faults[] | select(.write and .sync) | .count] | add // 0' $OUT/$_r.djson)" >>$OUT/fio-choices
}

# faults_are RUN SYNC: daxlat saw at least FIO_PAGES 4 KiB write faults,
# all on VM_SYNC mappings (SYNC true: fio's mapping had MAP_SYNC) or none
# (false), no PMD entry (a PMD-sized attempt that fell back to 4 KiB, as
# the 2 MiB-aligned mapping's first faults do, is no PMD fault), no missed
# exit.
faults_are() {
	jq -e --argjson n $FIO_PAGES --argjson s $2 '
		([.faults[] | select(.write and .size == "pte" and .sync == $s) | .count] | add // 0) >= $n and
		([.faults[] | select(.sync != $s) | .count] | add // 0) == 0 and
		([.faults[] | select(.size != "pte" and .outcome != "fallback") | .count] | add // 0) == 0 and
		.counters.missed_entries == 0' $OUT/$1.djson >/dev/null ||
		{ echo "$1: want >= $FIO_PAGES pte write faults, all sync=$2: $(jq -c '[.faults[] | {size, write, sync, outcome, count}]' $OUT/$1.djson | head -c 400)"; return 1; }
}

# few_syncs RUN: every NEEDDSYNC fault synced the metadata, and at most 4
# did: fio writes the whole file with write() before its job starts (its
# libpmem engine's prepopulate_file), so no fault allocates; the first one
# may still find the inode's metadata from that write (or from PMDK's
# ftruncate and fallocate) not yet durable.
few_syncs() {
	jq -e '.counters | .metadata_syncs == .needdsync and .needdsync <= 4' $OUT/$1.djson >/dev/null ||
		{ echo "$1: $(jq -c '.counters | {needdsync, metadata_syncs}' $OUT/$1.djson), want equal and <= 4"; return 1; }
}
no_syncs() {
	jq -e '.counters | .needdsync == 0 and .sync_faults == 0' $OUT/$1.djson >/dev/null ||
		{ echo "$1: $(jq -c '.counters | {needdsync, sync_faults}' $OUT/$1.djson) on a mapping without MAP_SYNC"; return 1; }
}

# syncs_timed RUN: fio timed an fdatasync after every write but the last
# (jobs[].sync.lat_ns: N is one less than the writes, or equal).
syncs_timed() {
	jq -e --argjson n $FIO_PAGES '.jobs[0].sync.lat_ns | .N >= $n - 1 and .percentile["50.000000"] > 0' $OUT/$1.json >/dev/null ||
		{ echo "$1: fio's sync latencies: $(jq -c '.jobs[0].sync.lat_ns | {N, min, max}' $OUT/$1.json), want N >= $((FIO_PAGES - 1))"; return 1; }
}

# pmdk_log RUN FILE: a short fio libpmem run with PMDK's debug libpmem
# (PMEM_LOG_LEVEL=4): PMDK says itself whether its mmap took MAP_SYNC, what
# it thinks of the mapping, and which flush and non-temporal stores it
# chose: a line of fio-choices.
pmdk_log() {
	LD_LIBRARY_PATH=$PMDK_DBG PMEM_LOG_LEVEL=4 fio --name=$1 --filename=$2 --ioengine=libpmem --rw=randwrite \
		--bs=4k --size=64k --sync=1 --output-format=json --output=$OUT/$1.json 2>$OUT/$1.log ||
		{ echo "fio with PMDK's debug libpmem: exit $?: $(grep -v '^<libpmem>' $OUT/$1.log | head -c 300)"; return 1; }
	grep -q "src version: " $OUT/$1.log || { echo "no PMDK debug log: $(head -c 300 $OUT/$1.log)"; return 1; }
	_ms=$(sed -n 's/.*util_map_sync\] mmap with MAP_SYNC \(succeeded\|not supported\)$/\1/p' $OUT/$1.log | head -n 1)
	_ip=$(sed -n 's/.*is_pmem_detect\] returning \([01]\)$/\1/p' $OUT/$1.log | head -n 1)
	_fl=$(sed -n 's/.*pmem2_arch_init\] using \(clwb\|clflushopt\|clflush\)$/\1/p' $OUT/$1.log | head -n 1)
	_nt=$(sed -n 's/.*pmem2_arch_init\] using \(movnt.*\)$/\1/p' $OUT/$1.log | head -n 1)
	echo "$1: PMDK $(sed -n 's/.*src version: //p' $OUT/$1.log | head -n 1): mmap with MAP_SYNC ${_ms:-?}, is_pmem ${_ip:-?}, flush ${_fl:-?}, ${_nt:-no movnt line}" >>$OUT/fio-choices
}

# pmdk_took_map_sync RUN: PMDK's log says its mmap took MAP_SYNC and the
# mapping is pmem to it (so it flushes with a cache flush, never msync).
pmdk_took_map_sync() {
	grep -q 'util_map_sync\] mmap with MAP_SYNC succeeded$' $OUT/$1.log &&
		grep -q 'is_pmem_detect\] returning 1$' $OUT/$1.log ||
		{ echo "PMDK's log: $(grep -e 'util_map_sync\]' -e 'is_pmem_detect\] returning' $OUT/$1.log | head -c 300)"; return 1; }
}

# us NS: nanoseconds as microseconds, one decimal.
us() { awk -v n="$1" 'BEGIN { if (n == "" || n == "null") print "-"; else printf "%.1f", n / 1000 }'; }
# clat RUN: fio's per-write completion latency, "median / p99" in us.
clat() {
	echo "$(us "$(jq '.jobs[0].write.clat_ns.percentile["50.000000"]' $OUT/$1.json)") / $(us "$(jq '.jobs[0].write.clat_ns.percentile["99.000000"]' $OUT/$1.json)")"
}

# faultlat_runs FS: faultlat's FIO_PAGES faults in the four cells
# (prealloc-none-sync and empty-none-nosync, --order seq and random), all
# under one daxlat as each fio run is under its own: the probes add the
# same cost to every fault on both sides (under TCG, tens of us). Leaves
# faultlat-FS-STATE-ORDER.json; each counted FIO_PAGES faults, and daxlat
# saw at least twice FIO_PAGES 4 KiB write faults with VM_SYNC and without.
faultlat_runs() {
	_c=
	for _o in seq random; do
		for _s in prealloc-none-sync empty-none-nosync; do
			_c="$_c${_c:+ && }faultlat -f /mnt/$1/fl -n $FIO_PAGES $(scenario_args $_s) --order $_o -j \
>$OUT/faultlat-$1-${_s%%-*}-$_o.json 2>>$OUT/faultlat-$1.err"
		done
	done
	daxlat --json --phases -c "$_c" >$OUT/faultlat-$1.djson 2>$OUT/faultlat-$1.derr ||
		{ echo "daxlat exit $?: $(head -c 300 $OUT/faultlat-$1.derr) faultlat: $(head -c 300 $OUT/faultlat-$1.err)"; return 1; }
	for _f in $OUT/faultlat-$1-prealloc-seq.json $OUT/faultlat-$1-empty-seq.json \
		$OUT/faultlat-$1-prealloc-random.json $OUT/faultlat-$1-empty-random.json; do
		jq -e --argjson n $FIO_PAGES '.faults == $n' $_f >/dev/null ||
			{ echo "${_f##*/}: $(jq .faults $_f) faults, want $FIO_PAGES"; return 1; }
	done
	jq -e --argjson n $FIO_PAGES '. as $f | [true, false] | all(. as $s | [$f.faults[] |
		select(.write and .size == "pte" and .sync == $s) | .count] | add // 0 | . >= 2 * $n)' \
		$OUT/faultlat-$1.djson >/dev/null ||
		{ echo "daxlat around faultlat: $(jq -c '[.faults[] | {size, write, sync, outcome, count}]' $OUT/faultlat-$1.djson | head -c 400)"; return 1; }
}

# fio_vs_faultlat FS: fio's per-write latency next to faultlat's per-fault
# latency for the same pattern: libpmem (MAP_SYNC, a file fio wrote first)
# against prealloc-none-sync, mmap (no MAP_SYNC, an empty file) against
# empty-none-nosync, random and sequential, FIO_PAGES 4 KiB pages.
fio_vs_faultlat() {
	_d=/mnt/$1
	fio_run $1-pmem-seq $_d/fio-pmem-seq libpmem write --sync=1 && faults_are $1-pmem-seq true || return 1
	truncate -s $((FIO_PAGES * 4))k $_d/fio-mmap-seq &&
		fio_run $1-mmap-seq $_d/fio-mmap-seq mmap write && faults_are $1-mmap-seq false || return 1
	rm -f $_d/fio-pmem-seq $_d/fio-mmap-seq
	faultlat_runs $1 || return 1
	# fio's random runs are the ones the tests before made.
	faults_are $1-pmem-fresh true && faults_are $1-mmap-nosync false || return 1
	for _row in "libpmem write(fio) MAP_SYNC random pmem-fresh prealloc-none-sync prealloc-random" \
		"libpmem write(fio) MAP_SYNC seq pmem-seq prealloc-none-sync prealloc-seq" \
		"mmap empty no-MAP_SYNC random mmap-nosync empty-none-nosync empty-random" \
		"mmap empty no-MAP_SYNC seq mmap-seq empty-none-nosync empty-seq"; do
		set -- $_row
		printf '%-5s %-8s %-11s %-12s %-7s %-17s %-6s %-27s %s\n' "$FS" "$1" "$2" "$3" "$4" "$(clat $FS-$5)" \
			"$(jq '[.faults[] | select(.write and .size == "pte") | .count] | add // 0' $OUT/$FS-$5.djson)" \
			"$6 --order $4" "$(us "$(jq .median $OUT/faultlat-$FS-$7.json)") / $(us "$(jq .p99 $OUT/faultlat-$FS-$7.json)")"
	done >>$OUT/fio-vs-faultlat.txt
}

printf '%-5s %-8s %-11s %-12s %-7s %-17s %-6s %-27s %s\n' fs engine file mapping order "fio clat med/p99" faults \
	"faultlat scenario" "med/p99 (us)" >$OUT/fio-vs-faultlat.txt
for fs in $(fs_list); do
	d=/mnt/$fs
	FS=$fs
	ktap_begin ${fs}_fio_libpmem_fresh
	rm -f $d/fio-pmem
	if why=$(pmdk_log $fs-pmdk-log $d/fio-pmdk-log && pmdk_took_map_sync $fs-pmdk-log &&
		fio_run $fs-pmem-fresh $d/fio-pmem libpmem randwrite --sync=1 &&
		faults_are $fs-pmem-fresh true && few_syncs $fs-pmem-fresh); then
		ktap_diag "$fs: $(grep "^$fs-pmdk-log:" $OUT/fio-choices)"
		ktap_diag "$fs: $(grep "^$fs-pmem-fresh:" $OUT/fio-choices)"
		ktap_pass ${fs}_fio_libpmem_fresh
	else
		ktap_fail ${fs}_fio_libpmem_fresh "$why"
	fi
	rm -f $d/fio-pmdk-log
	ktap_begin ${fs}_fio_libpmem_written
	if why=$(fio_run $fs-pmem-written $d/fio-pmem libpmem randwrite --sync=1 && faults_are $fs-pmem-written true &&
		few_syncs $fs-pmem-written); then
		ktap_diag "$fs: $(grep "^$fs-pmem-written:" $OUT/fio-choices)"
		ktap_pass ${fs}_fio_libpmem_written
	else
		ktap_fail ${fs}_fio_libpmem_written "$why"
	fi
	rm -f $d/fio-pmem
	ktap_begin ${fs}_fio_mmap_nosync
	if why=$(truncate -s $((FIO_PAGES * 4))k $d/fio-mmap && fio_run $fs-mmap-nosync $d/fio-mmap mmap randwrite &&
		faults_are $fs-mmap-nosync false && no_syncs $fs-mmap-nosync); then
		ktap_diag "$fs: $(grep "^$fs-mmap-nosync:" $OUT/fio-choices)"
		ktap_pass ${fs}_fio_mmap_nosync
	else
		ktap_fail ${fs}_fio_mmap_nosync "$why"
	fi
	rm -f $d/fio-mmap
	# fdatasync=1: an fdatasync after every write, which the mmap engine
	# makes an msync(MS_SYNC) of its whole mapping; fio times each one.
	ktap_begin ${fs}_fio_mmap_sync
	if why=$(truncate -s $((FIO_PAGES * 4))k $d/fio-mmap && fio_run $fs-mmap-sync $d/fio-mmap mmap randwrite --fdatasync=1 &&
		faults_are $fs-mmap-sync false && no_syncs $fs-mmap-sync && syncs_timed $fs-mmap-sync); then
		ktap_diag "$fs: $(grep "^$fs-mmap-sync:" $OUT/fio-choices)"
		ktap_diag "$fs: fio mmap fdatasync=1: $(jq -r '.jobs[0].sync.lat_ns | "\(.N) msync, median \(.percentile["50.000000"] / 1000) us, p99 \(.percentile["99.000000"] / 1000) us"' $OUT/$fs-mmap-sync.json); writes $(clat $fs-mmap-sync) us"
		ktap_pass ${fs}_fio_mmap_sync
	else
		ktap_fail ${fs}_fio_mmap_sync "$why"
	fi
	rm -f $d/fio-mmap
	# The checker on fio's libpmem run: every writable entry ordered.
	ktap_begin ${fs}_fio_syncorder_clean
	rm -f $d/fio-so
	if why=$(syncorder_checked $fs-fio "fio --name=so --filename=$d/fio-so --ioengine=libpmem --rw=randwrite --bs=4k \
--size=$((FIO_PAGES * 4))k --output-format=json --output=$OUT/$fs-fio-checked.json 2>$OUT/$fs-fio-checked.err") &&
		jq -e --argjson n $FIO_PAGES '.jobs[0].error == 0 and .jobs[0].write.total_ios == $n' $OUT/$fs-fio-checked.json >/dev/null; then
		ktap_diag "$why"
		ktap_pass ${fs}_fio_syncorder_clean
	else
		ktap_fail ${fs}_fio_syncorder_clean "$why fio: $(jq -c '.jobs[0] | {error, writes: .write.total_ios}' $OUT/$fs-fio-checked.json 2>&1 | head -c 200) $(head -c 200 $OUT/$fs-fio-checked.err)"
		emit fio-$fs-syncorder.json $OUT/$fs-fio-checked.json
	fi
	rm -f $d/fio-so
	ktap_begin ${fs}_fio_vs_faultlat
	if why=$(fio_vs_faultlat $fs); then
		ktap_diag "$(grep -E "^(fs |$fs )" $OUT/fio-vs-faultlat.txt)"
		ktap_pass ${fs}_fio_vs_faultlat
	else
		ktap_fail ${fs}_fio_vs_faultlat "$why"
	fi
done

# A non-DAX ext4 (a loop device on tmpfs): MAP_SYNC refused, PMDK falls
# back to MAP_SHARED and flushes with msync; with FORCE=1 it does not.
modprobe loop
ktap_begin nondax_ext4_loop_mount
if truncate -s 64M /tmp/nondax.img && mkfs.ext4 -F -q /tmp/nondax.img && mkdir -p /mnt/nondax &&
	mount -t ext4 -o loop /tmp/nondax.img /mnt/nondax && ! fs_is_dax /mnt/nondax; then
	ktap_pass nondax_ext4_loop_mount
else
	ktap_fail nondax_ext4_loop_mount "ext4 on a loop device"
fi
# nondax RUN FORCE MSYNC (as chose says): no MAP_SYNC, no VM_SYNC, no DAX fault.
nondax() {
	pmdk $1 /mnt/nondax $2 && tx_ok $1 && chose $1 0 0 $3 || return 1
	jq -e '.counters.dax_iomap_fault == 0 and .counters.needdsync == 0' $OUT/$1.djson >/dev/null ||
		{ echo "DAX faults on a non-DAX mount: $(jq -c .counters $OUT/$1.djson | head -c 300)"; return 1; }
}
ktap_check nondax_pmdk_msync_path nondax nondax-pool - many
ktap_check nondax_pmdk_force0_msync_path nondax nondax-force0 0 many
ktap_check nondax_pmdk_force1_skips_msync nondax nondax-force1 1 0
umount /mnt/nondax

ktap_diag "what PMDK chose ($TX transactions, $THREADS threads; RUN: pmdk line, then daxlat's counts):"
ktap_diag "$(cat $OUT/choices)"
ktap_diag "what fio decided (RUN: fio's engine and options, then daxlat's counts; PMDK's own log):"
ktap_diag "$(cat $OUT/fio-choices)"
ktap_diag "fio's per-write clat next to faultlat's per-fault latency ($FIO_PAGES x 4 KiB, us):"
ktap_diag "$(cat $OUT/fio-vs-faultlat.txt)"
for fs in $(fs_list); do
	[ -f $OUT/fl-$fs.txt ] && emit funclatency-$fs.txt $OUT/fl-$fs.txt
	[ -f $OUT/dl-$fs.txt ] && emit daxlat-$fs.txt $OUT/dl-$fs.txt
done
emit clients-choices.txt $OUT/choices
for fs in $(fs_list); do
	for f in $OUT/$fs-pmem-*.json $OUT/$fs-mmap-*.json $OUT/$fs-pmdk-log.log; do
		[ -f "$f" ] && emit "fio-${f##*/}" "$f"
	done
	for f in $OUT/faultlat-$fs-*.json; do
		[ -f "$f" ] && emit "${f##*/}" "$f"
	done
done
emit fio-choices.txt $OUT/fio-choices
emit fio-vs-faultlat.txt $OUT/fio-vs-faultlat.txt
ktap_finish
