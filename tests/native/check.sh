#!/bin/sh
# make check's job in native mode (make check TARGET=DIR): run by
# native/job.sh on a host whose DAX filesystem is mounted at DIR, or in the
# guest by tests/guest/native.sh, which tests native mode itself. It makes
# nothing but files in its work folder (NATIVE_TARGET, on a NATIVE_FS
# filesystem) and mounts nothing, loads no module, crashes nothing: the
# parts of make check that need the VM (mutants, the splat runner, fresh
# filesystems made with the suite's alignment, the crash test) are named,
# not run. One KTAP document on stdout.
. "${SUITE:-/suite}/vm/guest/lib.sh"
. "$suite_lib/ktap.sh"
. "$suite_dir/validate/conformance.sh"
PATH=$job_dir/bin:$PATH
T=${NATIVE_TARGET:?native/job.sh sets NATIVE_TARGET} FS=${NATIVE_FS:?native/job.sh sets NATIVE_FS}
N=64
# PMD scenarios need 2 MiB-aligned blocks, which only a filesystem made for
# them gives (vm/guest/filesystems.txt's mkfs): a PTE fallback there says
# nothing of the kernel.
BENCHES=$(for s in $(scenarios check); do [ "$(scenario_field "$s" size)" = pte ] && echo "$s"; done)
SYNC_SCENARIOS=$(for s in $(scenarios syncorder); do
	[ "$(scenario_field "$s" size)" = pte ] && [ "$(scenario_field "$s" load)" = none ] && echo "$s"; done)
# The workloads whose clean run is a known kernel bug (XFAIL in the VM) or
# needs a filesystem feature the target may lack (reflink) stay out.
WORKLOADS=$(awk -v fs="$FS" '!/^#/ && NF >= 4 && $2 == "all" { print $1 }' "$suite_dir/validate/workloads.txt")

ktap_plan target_dax_map_sync mapsync_accepted daxlat_sync_counts syncorder_clean persistlat_four_methods \
	writers_commits_counted crash_test
for s in $BENCHES; do ktap_plan "bench_$(echo "$s" | tr - _)"; done
ktap_plan $(conformance_names) conformance_syncorder_clean
ktap_start
ktap_diag "native: $T ($FS), kernel $(uname -r), cache flush: $(grep -o -w -E 'clwb|clflushopt' /proc/cpuinfo | sort -u | tr '\n' ' ')"
ktap_diag "not run natively: PMD scenarios (need the suite's 2 MiB-aligned mkfs), mutants and the splat runner (load modules that break the kernel on purpose), the crash test (crashes the machine)"

ktap_check target_dax_map_sync daxcheck "$T"
ktap_check mapsync_accepted faultlat --sync -n 8 -f "$T/accept"

# bench NAME: one short run of the scenario; JSON adds up.
bench() {
	faultlat --json -n $N $(scenario_args "$1") -f "$T/bench" >"$T/b.json" 2>"$T/b.err" ||
		{ echo "faultlat exit $?: $(cat "$T/b.err")"; return 1; }
	jq -e --argjson n $N '.faults == $n and ([.hist[].count] | add) == $n and .min <= .median and .median <= .max' \
		"$T/b.json" >/dev/null || { echo "JSON does not add up: $(head -c 300 "$T/b.json")"; return 1; }
}
for s in $BENCHES; do ktap_check "bench_$(echo "$s" | tr - _)" bench "$s"; done

# Every fault of an empty MAP_SYNC file returned NEEDDSYNC, got its
# metadata sync and its writable entry.
daxlat_counts() {
	daxlat --json --phases -c "faultlat -f $T/d -n $N $(scenario_args empty-none-sync) >/dev/null" \
		>"$T/d.json" 2>"$T/d.err" || { echo "daxlat exit $?: $(head -c 300 "$T/d.err")"; return 1; }
	jq -e ".counters | .dax_iomap_fault == $N and .needdsync == $N and .mkwrite == $N and
		.metadata_syncs == $N and .missed_entries == 0" "$T/d.json" >/dev/null ||
		{ echo "counters: $(jq -c '.counters | {dax_iomap_fault, needdsync, mkwrite, metadata_syncs, missed_entries}' "$T/d.json" 2>&1)"; return 1; }
}
ktap_check daxlat_sync_counts daxlat_counts

# The ordering checker over every MAP_SYNC scenario and workload, in one
# run: no violation, and at least as many writable entries checked as the
# runs install.
syncorder_batch() {
	want=0
	for s in $SYNC_SCENARIOS; do
		echo "faultlat -f $T/so-$s -n $N $(scenario_args "$s") >/dev/null"
		want=$((want + N))
	done >"$T/batch.sh"
	for w in $WORKLOADS; do
		awk -v n="$w" -v f="$T/so-$w" '!/^#/ && $1 == n { a = ""; for (i = 4; i <= NF; i++) a = a " " $i
			print "syncstress -f " f a " >/dev/null" }' "$suite_dir/validate/workloads.txt"
		want=$((want + $(awk -v n="$w" '!/^#/ && $1 == n { print $3 }' "$suite_dir/validate/workloads.txt")))
	done >>"$T/batch.sh"
	syncorder --json-out "$T/so.json" -c "sh -e $T/batch.sh" >"$T/so.tap" 2>"$T/so.err" ||
		{ echo "syncorder exit $?: $(grep '^not ok' "$T/so.tap" | head -n 3) $(head -c 300 "$T/so.err")"; return 1; }
	jq -e --argjson w $want '.counts.violations == 0 and .counts.checked >= $w' "$T/so.json" >/dev/null ||
		{ echo "want >= $want checked: $(jq -c .counts "$T/so.json" | head -c 300)"; return 1; }
}
ktap_check syncorder_clean syncorder_batch
ktap_diag "syncorder: $(jq -c '.counts | {checked, violations, sync_write_faults_entered}' "$T/so.json" 2>&1)"

persist_methods() {
	persistlat -j -f "$T/p" -n $N -b 64 >"$T/p.json" 2>"$T/p.err" || { echo "exit $?: $(cat "$T/p.err")"; return 1; }
	jq -e --argjson n $N '.dax and (.rows | length) == 4 and all(.rows[]; .writes == $n)' "$T/p.json" >/dev/null ||
		{ echo "JSON: $(head -c 300 "$T/p.json")"; return 1; }
}
ktap_check persistlat_four_methods persist_methods
ktap_diag "persist 64 B, median ns: $(jq -r '[.rows[] | "\(.method) \(.median)"] | join(", ")' "$T/p.json" 2>&1)"

# Two MAP_SYNC writers: the filesystem's journal commits are counted.
writers_commits() {
	m=$(fs_field "$FS" commits)
	daxlat --json --phases -c "faultlat -f $T/w -S -s empty -n $N -w 2 >/dev/null" >"$T/w.json" 2>"$T/w.err" ||
		{ echo "daxlat exit $?: $(head -c 300 "$T/w.err")"; return 1; }
	jq -e --arg m "$m" --argjson n $((2 * N)) '.counters.needdsync == $n and .counters[$m] >= 1' "$T/w.json" >/dev/null ||
		{ echo "$(jq -c --arg m "$m" '{needdsync: .counters.needdsync, commits: .counters[$m]}' "$T/w.json")"; return 1; }
}
ktap_check writers_commits_counted writers_commits
ktap_diag "commits: $(jq -r --arg m "$(fs_field "$FS" commits)" '"\(.counters[$m]) \($m) for \(.counters.needdsync) sync faults of 2 writers"' "$T/w.json" 2>&1)"

conformance_run "$T/cells.txt"
while read -r case setup class verdict man rest; do
	name=$(echo "${case}_$setup" | tr - _)
	if [ "$verdict" = pass ]; then ktap_pass "$name"; else ktap_fail "$name" "$class: $rest"; fi
	[ "$man" = agrees ] || ktap_diag "man page differs: $case: $rest"
done <"$T/cells.txt"
ktap_check conformance_syncorder_clean test "$(cat "${TMPDIR:-/tmp}/conformance.rc")" = 0

ktap_skip crash_test "needs the VM: it crashes the machine on purpose (make crash-check runs it in QEMU)"
ktap_finish
