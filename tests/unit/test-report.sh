#!/bin/sh
# Host unit tests of results/report.sh and the reference tables, KTAP output.
# Inputs: tests/unit/data (see its README). report.sh runs under dash
# (SH=... to try another shell). Usage: sh tests/unit/test-report.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=$here/data
rp=$root/results/report.sh
v2=$root/results/reference/cover-v2.txt
v46=$root/results/reference/cover-v4-v6.txt
SH=${SH:-dash}
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-report.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

run() { "$SH" "$rp" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
want_rc() { [ "$rc" = "$1" ] || { echo "exit $rc, want $1; stderr: $(head -c 300 "$tmp/err")"; return 1; }; }
want_out() {
	printf '%s\n' "$2" >"$tmp/want"
	cmp -s "$1" "$tmp/want" || { echo "got: $(cat "$1") | want: $2"; return 1; }
}
want_empty() { [ ! -s "$1" ] || { echo "${1##*/} not empty: $(head -c 300 "$1")"; return 1; }; }
want_line() { grep -qxF -- "$2" "$1" || { echo "no line '$2' in ${1##*/}"; return 1; }; }
want_json() { jq -e "$@" "$tmp/out" >/dev/null || { echo "JSON fails $1: $(head -c 400 "$tmp/out")"; return 1; }; }

# --- a consistent run
t_good() {
	run "$v2" "$data/run-good"
	want_rc 0 && want_empty "$tmp/err" && [ "$(tail -n 1 "$tmp/out")" = "report: OK" ] ||
		{ echo "last line: $(tail -n 1 "$tmp/out")"; return 1; }
}
t_good_ratios() {
	run "$v2" "$data/run-good"
	want_rc 0 &&
		want_line "$tmp/out" "  pair          ours avg  seed avg  ours/seed  ours median  seed median" &&
		want_line "$tmp/out" "  prealloc         2.00x     1.67x       1.20        1.60x            -" &&
		want_line "$tmp/out" "  empty            5.00x     4.70x       1.06        4.50x            -" &&
		want_line "$tmp/out" "  empty+copy       3.00x     4.87x       0.62        2.50x            -"
}
t_good_side_by_side() {
	run "$v2" "$data/run-good"
	want_rc 0 || return 1
	# Buckets with the same range share a row; a range only one side has
	# leaves the other side blank.
	grep -qE '^  4 - 7 us: 500 +\| 4 - 7 us: 398$' "$tmp/out" &&
		grep -qE '^ +\| 32 - 63 us: 2$' "$tmp/out" &&
		grep -qxF '  4 - 7 us: 2' "$tmp/out" &&
		grep -qE '^  min=60 avg=100 max=250 +\| min=91 avg=108 max=234$' "$tmp/out" &&
		grep -qE '^  ours +\| seed \(cover-v2\.txt\)$' "$tmp/out" ||
		{ echo "side-by-side rows not as expected"; return 1; }
	n=$(grep -c 'buckets: 512 (faults=512) *| buckets: 512 (faults=512)$' "$tmp/out")
	[ "$n" = 6 ] || { echo "$n bucket-sum rows, want 6"; return 1; }
	n=$(grep -c '^== ' "$tmp/out")
	[ "$n" = 7 ] || { echo "$n sections, want 7"; return 1; }
}
t_good_json() {
	run --json "$v2" "$data/run-good"
	want_rc 0 && want_empty "$tmp/err" && want_json '
		.ok == true and .problems == [] and
		([.scenarios[].scenario] == ["prealloc-none-nosync", "prealloc-none-sync", "empty-none-nosync",
			"empty-none-sync", "empty-copy-nosync", "empty-copy-sync"]) and
		([.scenarios[].ours.avg] == [5, 10, 20, 100, 25, 75]) and
		([.scenarios[].ours.bucket_sum] == [512, 512, 512, 512, 512, 512]) and
		([.scenarios[].ours.faults] == [512, 512, 512, 512, 512, 512]) and
		(.scenarios[0].ours.buckets[0] == {lo: 4, hi: 7, count: 500}) and
		([.ratios[].pair] == ["prealloc", "empty", "empty+copy"]) and
		([.ratios[].ours_avg] == [2, 5, 3]) and
		([.ratios[].ours_median] == [1.6, 4.5, 2.5]) and
		([.ratios[].seed_median] == [null, null, null])'
}

# --- broken runs
t_badsum() {
	run "$v2" "$data/run-badsum"
	want_rc 1 && want_out "$tmp/err" "report: empty-none-sync: bucket counts sum to 511, expected faults=512" &&
		want_line "$tmp/out" "report: 1 problem(s)"
}
t_badsum_json() {
	run --json "$v2" "$data/run-badsum"
	want_rc 1 && want_json '.ok == false and
		([.scenarios[].ok] == [true, true, true, false, true, true]) and
		.scenarios[3].ours.bucket_sum == 511 and
		.problems == ["report: empty-none-sync: bucket counts sum to 511, expected faults=512"]'
}
t_missing() {
	run "$v2" "$data/run-missing"
	want_rc 1 && want_out "$tmp/err" "report: empty-copy-sync: missing $data/run-missing/empty-copy-sync.txt" &&
		grep -qE '^  \(missing\) +\| File empty, background load, MAP_SYNC:$' "$tmp/out" &&
		want_line "$tmp/out" "  empty+copy           -     4.87x          -            -            -"
}
t_unexpected_line() {
	cp -r "$data/run-good" "$tmp/run" && sed -i '2a\
this is not a table line' "$tmp/run/empty-none-nosync.txt"
	run "$v2" "$tmp/run"
	want_rc 1 && want_out "$tmp/err" "report: $tmp/run/empty-none-nosync.txt:3: unexpected line: this is not a table line"
}
t_no_faults() {
	cp -r "$data/run-good" "$tmp/run2" && sed -i '/^median=/d' "$tmp/run2/prealloc-none-sync.txt"
	run "$v2" "$tmp/run2"
	want_rc 1 && want_out "$tmp/err" "report: prealloc-none-sync: no faults= figure in $tmp/run2/prealloc-none-sync.txt"
}

# faults= counts one repetition; the buckets hold all of them.
t_reps() {
	cp -r "$data/run-good" "$tmp/run3" &&
		awk '/ us: / { $NF = $NF * 3 } /^median=/ { sub(/reps=1/, "reps=3") } { print }' \
			"$data/run-good/prealloc-none-sync.txt" >"$tmp/run3/prealloc-none-sync.txt"
	run "$v2" "$tmp/run3"
	want_rc 0 || return 1
	sed -i 's/reps=3/reps=2/' "$tmp/run3/prealloc-none-sync.txt"
	run "$v2" "$tmp/run3"
	want_rc 1 && want_out "$tmp/err" "report: prealloc-none-sync: bucket counts sum to 1536, expected faults=1024"
}

# faultlat's tail line since -w: p99.9= and max= too (a key with a dot).
t_tail_p999() {
	cp -r "$data/run-good" "$tmp/run-tail" &&
		sed -i 's/^median=\([0-9]*\) p99=\([0-9]*\) /median=\1 p99=\2 p99.9=\2 max=2000 /' "$tmp/run-tail"/*.txt
	run "$v2" "$tmp/run-tail"
	want_rc 0 && want_empty "$tmp/err"
}

# --- the reference tables
t_ref_v2() {
	run --json "$v2" "$data/run-good"
	want_rc 0 && want_json '
		([.scenarios[].seed.min] == [5, 10, 21, 91, 21, 94]) and
		([.scenarios[].seed.avg] == [6, 10, 23, 108, 23, 112]) and
		([.scenarios[].seed.max] == [42, 43, 76, 234, 67, 181]) and
		([.scenarios[].seed.bucket_sum] == [512, 512, 512, 512, 512, 512]) and
		([.scenarios[].seed.buckets | length] == [4, 3, 3, 2, 3, 2]) and
		.scenarios[0].seed.title == "File preallocated, no background load no MAP_SYNC:" and
		([.ratios[].seed_avg] == [1.6667, 4.6957, 4.8696])'
}
t_ref_v46() {
	run --json "$v46" "$data/run-good"
	want_rc 0 && want_json '
		([.scenarios[].seed.min] == [9, 9, 21, 40, 21, 94]) and
		([.scenarios[].seed.avg] == [10, 10, 22, 124, 23, 112]) and
		([.scenarios[].seed.max] == [46, 47, 70, 242, 67, 181]) and
		(.scenarios[3].seed.buckets == [{lo: 32, hi: 63, count: 1}, {lo: 64, hi: 127, count: 333}, {lo: 128, hi: 255, count: 178}]) and
		([.scenarios[].seed.bucket_sum] == [512, 512, 512, 512, 512, 512]) and
		([.ratios[].seed_avg] == [1, 5.6364, 4.8696])'
}
t_ref_keys() {
	for f in "$v2" "$v46"; do
		got=$(sed -n 's/^# scenario: //p' "$f" | tr '\n' ' ')
		[ "$got" = "prealloc-none-nosync prealloc-none-sync empty-none-nosync empty-none-sync empty-copy-nosync empty-copy-sync " ] ||
			{ echo "${f##*/}: scenario keys: $got"; return 1; }
	done
}
t_ref_badsum() {
	run "$data/ref-badsum.txt" "$data/run-good"
	want_rc 1 && want_out "$tmp/err" "report: reference empty-none-sync: bucket counts sum to 511, expected faults=512"
}

# --- usage
t_usage() {
	run "$v2"
	want_rc 2 && want_out "$tmp/err" "report: need REFERENCE and RUNDIR (try -h)" || return 1
	run "$data/no-such.txt" "$data/run-good"
	want_rc 2 && want_out "$tmp/err" "report: cannot read reference '$data/no-such.txt'" || return 1
	run "$v2" "$data/no-such-dir"
	want_rc 2 && want_out "$tmp/err" "report: run directory '$data/no-such-dir' is not a directory" || return 1
	run --bogus "$v2" "$data/run-good"
	want_rc 2 && want_out "$tmp/err" "report: unknown option '--bogus' (try -h)"
}
t_help() {
	run -h
	want_rc 0 && want_line "$tmp/out" "usage: report.sh [--json] REFERENCE RUNDIR" && want_line "$tmp/out" "Examples:"
}
# A recorded run (make reproduce at 816efec): tables and their JSON.
base=$root/results/baselines/reproduce-20261203T105927Z-816efec/ext4
t_recorded_json_ok() {
	run "$v2" "$base"
	want_rc 0 && want_empty "$tmp/err"
}
t_truncated_json() {
	rm -rf "$tmp/rj" && cp -r "$base" "$tmp/rj" &&
		head -c 200 "$base/empty-none-sync.json" >"$tmp/rj/empty-none-sync.json"
	run "$v2" "$tmp/rj"
	want_rc 1 && want_out "$tmp/err" "report: empty-none-sync: $tmp/rj/empty-none-sync.json is not valid JSON with a faults figure"
}
t_json_disagrees() {
	rm -rf "$tmp/rj" && cp -r "$base" "$tmp/rj" &&
		jq '.faults = 511' "$base/empty-none-sync.json" >"$tmp/rj/empty-none-sync.json"
	run --json "$v2" "$tmp/rj"
	want_rc 1 && want_json '.ok == false and any(.problems[]; test("empty-none-sync.json counts 511 faults, the table 512"))'
}

ktap_plan_checks "$0"
ktap_start
ktap_check good_run_ok t_good
ktap_check good_run_ratio_rows t_good_ratios
ktap_check good_run_side_by_side t_good_side_by_side
ktap_check good_run_json t_good_json
ktap_check bucket_sum_mismatch_exit_1 t_badsum
ktap_check bucket_sum_mismatch_json t_badsum_json
ktap_check missing_scenario_exit_1 t_missing
ktap_check unexpected_line_exit_1 t_unexpected_line
ktap_check no_faults_figure_exit_1 t_no_faults
ktap_check repetitions_multiply_faults t_reps
ktap_check faultlat_tail_p999_max_read t_tail_p999
ktap_check reference_v2_numbers t_ref_v2
ktap_check reference_v4_v6_numbers t_ref_v46
ktap_check reference_scenario_keys t_ref_keys
ktap_check reference_bucket_sum_checked t_ref_badsum
ktap_check usage_errors_exit_2 t_usage
ktap_check help_prints_usage t_help
ktap_check recorded_run_with_json_ok t_recorded_json_ok
ktap_check truncated_json_exit_1 t_truncated_json
ktap_check json_disagreeing_with_table t_json_disagrees
ktap_finish
