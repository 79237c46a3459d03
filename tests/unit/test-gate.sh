#!/bin/sh
# Host unit tests of the regression gate (.output/bin/gate) on synthetic gate
# runs: identical sides are "same", a 5 % slowdown "worse" (exit 16), a 5 %
# speedup "better", fewer than 3 boots or an interval wider than the floor
# "unknown" (17), a noisy base raises the floor, other metadata is refused (18) unless --force, --noise and --json
# say what they should, bad input is one line. KTAP output.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gate=${GATE:-$root/.output/bin/gate}
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-gate.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# mkrun DIR RUNS FACTOR [JITTER_PCT]: a gate run of BOOTS boots (3), RUNS
# rounds each, one scenario on ext4, 200 faults per run spread 1000..1199 ns
# times FACTOR; boots 1, 4, 7... are also scaled by 1 + JITTER %, boots 2,
# 5, 8... by 1 - JITTER %.
# MEASURE: its meta.txt's measure= (icount).
mkrun() {
	dir=$1 runs=$2 factor=$3 jitter=${4:-0}
	mkdir -p "$dir"
	awk -v runs="$runs" -v f="$factor" -v j="$jitter" -v boots="${BOOTS:-3}" 'BEGIN {
		for (b = 1; b <= boots; b++) for (r = 1; r <= runs; r++) {
			s = f * (1 + j / 100 * (b % 3 == 1 ? 1 : b % 3 == 2 ? -1 : 0)); line = b " ext4 empty-none-sync " r
			for (i = 0; i < 200; i++) line = line " " int((1000 + (i * 37) % 200) * s)
			print line } }' >"$dir/samples.txt"
	{ echo "accelerator=tcg,thread=single,icount=shift=4"; echo "host_cpu=AMD EPYC"
		echo "measure=${MEASURE:-icount}"; echo "PAGES='200'"; } >"$dir/meta.txt"
}
g() { "$gate" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
want_rc() { [ "$rc" = "$1" ] || { echo "exit $rc, want $1: $(head -c 300 "$tmp/err") $(tail -n 3 "$tmp/out")"; return 1; }; }
verdict() { jq -r ".rows[] | select(.metric == \"$1\") | .verdict" "$tmp/out"; }
want_verdict() {
	v=$(verdict "$1")
	[ "$v" = "$2" ] || { echo "$1: $v, want $2: $(jq -c ".rows[] | select(.metric == \"$1\")" "$tmp/out")"; return 1; }
}

mkrun "$tmp/base" 3 1
mkrun "$tmp/same" 3 1
mkrun "$tmp/slow" 3 1.05
mkrun "$tmp/fast" 3 0.95
BOOTS=2 mkrun "$tmp/few" 3 1.05
mkrun "$tmp/noisy" 3 1 4
mkrun "$tmp/noisy_slow" 3 1.05 4
MEASURE=wall mkrun "$tmp/wall" 3 1
BOOTS=12 mkrun "$tmp/noisy12" 3 1 4
BOOTS=9 mkrun "$tmp/noisy9" 3 1 4
BOOTS=12 MEASURE=wall mkrun "$tmp/wall12" 3 1 4

t_same() { g --base "$tmp/base" --new "$tmp/same" --json && want_verdict median same && want_verdict p99 same; }
t_worse() { g --base "$tmp/base" --new "$tmp/slow" --json; want_rc 16 && want_verdict median worse; }
t_better() { g --base "$tmp/base" --new "$tmp/fast" --json && want_verdict median better; }
# Two boots: not enough to know the boot-to-boot noise.
t_too_few() { g --base "$tmp/base" --new "$tmp/few" --json; want_rc 17 && want_verdict median unknown; }
# 4 % jitter between boots: the floor rises to 3 x CV (12 %), so 5 % is not
# "worse" (unknown or same), and the table says which floor it used.
t_noise_floor() {
	g --base "$tmp/noisy" --new "$tmp/noisy_slow" --json
	[ "$rc" != 16 ] || { echo "5 % under 4 % noise called worse"; return 1; }
	jq -e '.rows[0].floor > 0.1' "$tmp/out" >/dev/null || { echo "floor $(jq .rows[0].floor "$tmp/out")"; return 1; }
}
# Floor 10 %: a sure 5 % change is below what matters, so "same".
# 5 % slower but the boots overlap: with a 1 % floor the change is large
# and the per-fault test significant, yet the interval over boots holds 0.
t_interval_holds_zero() { g --base "$tmp/noisy" --new "$tmp/noisy_slow" --floor 1 --json; want_rc 17 && want_verdict median unknown; }
t_fixed_floor() { g --base "$tmp/base" --new "$tmp/slow" --floor 10 --json && want_verdict median same; }
# 4 % noise and a fixed 2 % floor: the interval cannot fit in it, "unknown".
t_wide_interval() { g --base "$tmp/noisy" --new "$tmp/noisy" --floor 2 --json; want_rc 17 && want_verdict median unknown; }
t_refused() {
	g --base "$tmp/base" --new "$tmp/wall"
	want_rc 18 && grep -q "not comparable: measure differs (base 'icount', new 'wall')" "$tmp/err" &&
		[ "$(wc -l <"$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ]
}
t_forced() { g --base "$tmp/base" --new "$tmp/wall" --force; want_rc 0 && grep -q "compared anyway" "$tmp/err"; }
t_text_table() {
	g --base "$tmp/base" --new "$tmp/slow"
	grep -Eq '^ext4  empty-none-sync +median +1\.1 +0\.0% +\+4\.96% +1\.2 +0\.0%  worse' "$tmp/out" &&
		[ "$(tail -n 1 "$tmp/out")" = "3 metrics: 2 worse, 0 better, 1 same, 0 unknown" ] ||
		{ echo "table: $(cat "$tmp/out")"; return 1; }
}
t_ktap() {
	g --base "$tmp/base" --new "$tmp/slow" --ktap
	grep -q '^not ok 1 ext4_empty-none-sync_median # worse +4.96%' "$tmp/out" && grep -q '^1\.\.3$' "$tmp/out" ||
		{ echo "ktap: $(cat "$tmp/out")"; return 1; }
}
t_noise() {
	g --noise --base "$tmp/noisy" --json
	jq -e '.noise[0] | .runs == 9 and .boots == 3 and .cv_boots_pct > 3.5 and .cv_boots_pct < 5' "$tmp/out" >/dev/null ||
		{ echo "noise: $(cat "$tmp/out")"; return 1; }
}
t_bad_input() {
	mkdir -p "$tmp/bad" && echo "1 ext4 x 1 12 abc" >"$tmp/bad/samples.txt" && cp "$tmp/base/meta.txt" "$tmp/bad/"
	g --base "$tmp/base" --new "$tmp/bad"
	want_rc 1 && grep -q "samples.txt:1: 'abc' is not a number" "$tmp/err" || return 1
	g --base "$tmp/base"
	want_rc 2 || return 1
	g --base "$tmp/base" --new "$tmp/nonexistent"
	want_rc 1 && grep -q "not a gate run" "$tmp/err"
}

# A quiet pair, but a reference of 12 boots shows +-4 % between boots: 3
# boots a side can differ by that by chance, so 5 % is not "worse".
t_reference_floor() {
	g --base "$tmp/base" --new "$tmp/slow" --reference "$tmp/noisy12" --json
	[ "$rc" != 16 ] || { echo "5 % under a 4 % reference called worse"; return 1; }
	jq -e '.rows[0] | .reference_boots == 12 and .reference_floor > 0.05 and .floor == .reference_floor' \
		"$tmp/out" >/dev/null || { echo "row: $(jq -c '.rows[0]' "$tmp/out")"; return 1; }
}
# No --reference: a base of 12 boots is its own; one of 9 is too few.
t_base_as_reference() {
	g --base "$tmp/noisy12" --new "$tmp/noisy_slow" --json
	jq -e '.rows[0] | .reference_boots == 12 and .reference_floor > 0.05' "$tmp/out" >/dev/null ||
		{ echo "12 boots: $(jq -c '.rows[0]' "$tmp/out")"; return 1; }
	g --base "$tmp/base" --new "$tmp/slow" --reference "$tmp/noisy9" --json
	want_rc 16 && jq -e '.rows[0] | .reference_boots == 9 and .reference_floor == 0' "$tmp/out" >/dev/null ||
		{ echo "9 boots: $(jq -c '.rows[0]' "$tmp/out")"; return 1; }
}
t_reference_refused() {
	g --base "$tmp/base" --new "$tmp/slow" --reference "$tmp/wall12"
	want_rc 18 && grep -q "not comparable: measure differs (base 'icount', reference $tmp/wall12 'wall')" "$tmp/err"
}

# Phase rows (SCENARIO:PHASE) only in new, as against a run made before
# them: not compared, one note; in both: compared like any scenario.
t_phase_rows() {
	mkrun "$tmp/ph" 3 1
	awk '{ $3 = $3 ":fsync"; print }' "$tmp/ph/samples.txt" >>"$tmp/ph/samples.txt.2"
	cat "$tmp/ph/samples.txt.2" >>"$tmp/ph/samples.txt" && rm "$tmp/ph/samples.txt.2"
	g --base "$tmp/base" --new "$tmp/ph" --json
	want_rc 0 && jq -e '.rows | length == 3' "$tmp/out" >/dev/null &&
		grep -q "note: ext4 empty-none-sync:fsync only in the new: not compared" "$tmp/err" ||
		{ echo "one side: $(jq -c '.rows | length' "$tmp/out") rows, stderr: $(cat "$tmp/err")"; return 1; }
	g --base "$tmp/ph" --new "$tmp/ph" --json
	want_rc 0 && jq -e '[.rows[] | select(.scenario == "empty-none-sync:fsync")] | length == 3' "$tmp/out" >/dev/null ||
		{ echo "both sides: $(jq -c '[.rows[].scenario]' "$tmp/out")"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check identical_runs_same t_same
ktap_check five_pct_slower_worse t_worse
ktap_check five_pct_faster_better t_better
ktap_check two_boots_unknown t_too_few
ktap_check noisy_base_raises_floor t_noise_floor
ktap_check fixed_floor_above_change t_fixed_floor
ktap_check interval_over_boots_holds_zero t_interval_holds_zero
ktap_check wide_interval_unknown t_wide_interval
ktap_check other_measure_refused t_refused
ktap_check force_compares_anyway t_forced
ktap_check text_table_lkp_style t_text_table
ktap_check ktap_one_result_per_metric t_ktap
ktap_check noise_cv_runs_and_boots t_noise
ktap_check bad_input_one_line t_bad_input
ktap_check reference_boots_raise_floor t_reference_floor
ktap_check base_of_ten_boots_is_reference t_base_as_reference
ktap_check other_reference_refused t_reference_refused
ktap_check phase_rows_on_one_side_skipped t_phase_rows
ktap_finish
