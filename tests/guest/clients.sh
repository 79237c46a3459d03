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
#   - libbpf-tools' funclatency on dax_iomap_fault around a faultlat run
#     that daxlat traces at the same time: the two counts are equal.
# Needs pmempool, funclatency and PMDK's libraries in the initramfs
# (vm/mkinitramfs.sh), daxlat, syncorder, faultlat, pmemobj-array in /job/bin.
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
PATH=/job/bin:$PATH
TX=1000			# transactions per PMDK run
THREADS=4
PAGES=512		# faultlat pages under funclatency
OUT=/tmp/clients
mkdir -p $OUT
: >$OUT/choices

ktap_plan pmem_namespaces_fsdax xfs_mount_dax ext4_mount_dax
for fs in $(fs_list); do
	ktap_plan ${fs}_pmdk_runs_under_daxlat ${fs}_pmdk_chose_map_sync ${fs}_pmdk_sync_faults_synced \
		${fs}_pmempool_check ${fs}_pmempool_info ${fs}_pmdk_syncorder_clean \
		${fs}_pmdk_force0_map_sync ${fs}_pmdk_force1_map_sync ${fs}_funclatency_equals_daxlat
done
ktap_plan nondax_ext4_loop_mount nondax_pmdk_msync_path nondax_pmdk_force0_msync_path \
	nondax_pmdk_force1_skips_msync
ktap_start
ktap_diag "kernel $(uname -r), cache flush: $(grep -o -w -E 'clwb|clflushopt' /proc/cpuinfo | sort -u | tr '\n' ' ')"
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
	daxlat --json -c "$_env pmemobj-array -f $_dir/$_r -n $TX -t $THREADS $* >$OUT/$_r.out 2>$OUT/$_r.err" \
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

# syncorder_clean FS: the same workload under the checker: no violation,
# entries checked, each one's pfn too.
syncorder_clean() {
	syncorder --json-out $OUT/so.json -c "pmemobj-array -f /mnt/$1/so -n $TX -t $THREADS >$OUT/so.out 2>&1" \
		>$OUT/so.tap 2>$OUT/so.err
	_rc=$?
	[ $_rc = 0 ] || { echo "syncorder exit $_rc: $(grep '^not ok' $OUT/so.tap | head -n 2) $(head -c 200 $OUT/so.err) $(head -c 200 $OUT/so.out)"; return 1; }
	jq -e '.counts | .violations == 0 and .checker_errors == 0 and .checked > 0 and .pfn_checked == .checked' \
		$OUT/so.json >/dev/null || { echo "$(jq -c '.counts | {violations, checker_errors, checked, pfn_checked, needdsync}' $OUT/so.json)"; return 1; }
	echo "$1: $(jq -r '.counts | "\(.checked) entries checked (\(.needdsync) NEEDDSYNC), \(.pfn_checked) pfns, \(.violations) violations"' $OUT/so.json)"
}

# kprobe_attached FUNC: funclatency's kretprobe on FUNC is registered
# (its "Tracing" line stays in stdio's buffer when stdout is a file).
kprobe_attached() {
	i=0
	while [ $i -lt 300 ]; do
		grep -q " r  *$1+0x0" /sys/kernel/debug/kprobes/list 2>/dev/null && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}

# funclatency_vs_daxlat FS: funclatency -u dax_iomap_fault around a
# faultlat run that daxlat traces: both count the same faults.
funclatency_vs_daxlat() {
	funclatency -u dax_iomap_fault >$OUT/fl-$1.txt 2>$OUT/fl-$1.err &
	_fl=$!
	kprobe_attached dax_iomap_fault || { kill -INT $_fl; wait $_fl; echo "funclatency did not attach: $(head -c 300 $OUT/fl-$1.err)"; return 1; }
	daxlat -c "faultlat -f /mnt/$1/fl -n $PAGES $(scenario_args empty-none-sync) >/dev/null" >$OUT/dl-$1.txt 2>$OUT/dl-$1.err
	_drc=$?
	kill -INT $_fl; wait $_fl
	_frc=$?
	[ $_drc = 0 ] && [ $_frc = 0 ] || { echo "daxlat exit $_drc, funclatency exit $_frc: $(head -c 200 $OUT/dl-$1.err) $(head -c 200 $OUT/fl-$1.err)"; return 1; }
	_f=$(awk '$2 == "->" && $4 == ":" { s += $5 } END { print s + 0 }' $OUT/fl-$1.txt)
	_d=$(awk '/^  dax_iomap_fault calls/ { print $NF }' $OUT/dl-$1.txt)
	ktap_diag "$1 funclatency dax_iomap_fault (usecs), count $_f:"
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
	ktap_begin ${fs}_funclatency_equals_daxlat
	if why=$(funclatency_vs_daxlat $fs); then
		printf '%s\n' "$why"
		ktap_pass ${fs}_funclatency_equals_daxlat
	else
		ktap_fail ${fs}_funclatency_equals_daxlat "$(printf '%s' "$why" | grep -v '^#' | tail -n 1)"
		printf '%s\n' "$why" | grep '^#'
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
for fs in $(fs_list); do
	[ -f $OUT/fl-$fs.txt ] && emit funclatency-$fs.txt $OUT/fl-$fs.txt
	[ -f $OUT/dl-$fs.txt ] && emit daxlat-$fs.txt $OUT/dl-$fs.txt
done
emit clients-choices.txt $OUT/choices
ktap_finish
