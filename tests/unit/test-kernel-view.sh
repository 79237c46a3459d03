#!/bin/sh
# Host unit tests of bench/kernel-view.sh on a recorded traced run (ext4, 512
# pages per scenario, tests/unit/data/kview), KTAP output.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-kview.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The recording holds the eight scenarios make reproduce runs.
SCENARIOS="prealloc-none-nosync prealloc-none-sync empty-none-nosync empty-none-sync
empty-copy-nosync empty-copy-sync fallocated-none-nosync fallocated-none-sync"
run() { sh "$root/bench/kernel-view.sh" "$1" $SCENARIOS >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# edit SCEN JQ: a copy of the recording with one kernel JSON changed by JQ.
edit() {
	rm -rf "$tmp/run" && cp -r "$here/data/kview" "$tmp/run" &&
		jq "$2" "$here/data/kview/traced/$1.kernel.json" >"$tmp/run/traced/$1.kernel.json"
}

t_recorded_matches() {
	run "$here/data/kview"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] && [ "$(grep -c '^  counts match:' "$tmp/out")" = 8 ] ||
		{ echo "exit $rc: $(cat "$tmp/err")"; return 1; }
}
t_side_by_side() {
	run "$here/data/kview"
	grep -qE '^  min=[0-9]+ avg=[0-9]+ max=[0-9]+ +\| min=[0-9]+ avg=[0-9]+ max=[0-9]+$' "$tmp/out" &&
		grep -q '|   2 metadata_sync: 512, ' "$tmp/out" || { echo "no side-by-side rows"; return 1; }
}
t_missing_needdsync() {
	edit empty-none-sync '.counters.needdsync = 500' && run "$tmp/run"
	[ "$rc" = 1 ] && grep -qx 'kernel-view: empty-none-sync: NEEDDSYNC 500 != faults 512' "$tmp/err" ||
		{ echo "exit $rc: $(cat "$tmp/err")"; return 1; }
}
t_extra_fault() {
	edit prealloc-none-nosync '.counters.dax_iomap_fault = 513' && run "$tmp/run"
	[ "$rc" = 1 ] && grep -qx 'kernel-view: prealloc-none-nosync: dax_iomap_fault 513 != faults 512' "$tmp/err" ||
		{ echo "exit $rc: $(cat "$tmp/err")"; return 1; }
}
t_needdsync_on_written_file() {
	edit prealloc-none-sync '.counters.needdsync = 3' && run "$tmp/run"
	[ "$rc" = 1 ] && grep -qx 'kernel-view: prealloc-none-sync: NEEDDSYNC 3, want 0' "$tmp/err" ||
		{ echo "exit $rc: $(cat "$tmp/err")"; return 1; }
}
t_missing_file() {
	rm -rf "$tmp/run" && cp -r "$here/data/kview" "$tmp/run" && rm "$tmp/run/traced/empty-copy-sync.kernel.json"
	run "$tmp/run"
	[ "$rc" = 1 ] && grep -q '^kernel-view: empty-copy-sync: missing ' "$tmp/err" || { echo "exit $rc"; return 1; }
}
# truncated SCEN FILE: FILE of SCEN cut at 300 bytes.
truncated() {
	rm -rf "$tmp/run" && cp -r "$here/data/kview" "$tmp/run" &&
		head -c 300 "$here/data/kview/traced/$2" >"$tmp/run/traced/$2"
	run "$tmp/run"
	[ "$rc" = 1 ] && grep -qx "kernel-view: $1: $tmp/run/traced/$2 is not valid JSON" "$tmp/err" &&
		[ "$(grep -c '^  counts match:' "$tmp/out")" = 7 ] ||
		{ echo "exit $rc: $(cat "$tmp/err")"; return 1; }
}
t_truncated_kernel() { truncated empty-none-sync empty-none-sync.kernel.json; }
t_truncated_user() { truncated prealloc-none-sync prealloc-none-sync.json; }
t_counters_missing() {
	edit empty-copy-sync 'del(.counters)' && run "$tmp/run"
	[ "$rc" = 1 ] && grep -q '^kernel-view: empty-copy-sync: ' "$tmp/err" ||
		{ echo "exit $rc: $(cat "$tmp/err")"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check recorded_run_counts_match t_recorded_matches
ktap_check user_and_kernel_side_by_side t_side_by_side
ktap_check needdsync_short_of_faults_fails t_missing_needdsync
ktap_check kernel_saw_more_faults_fails t_extra_fault
ktap_check needdsync_on_written_file_fails t_needdsync_on_written_file
ktap_check missing_kernel_record_fails t_missing_file
ktap_check truncated_kernel_json_fails t_truncated_kernel
ktap_check truncated_user_json_fails t_truncated_user
ktap_check kernel_json_without_counters_fails t_counters_missing
ktap_finish
