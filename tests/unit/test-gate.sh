#!/bin/sh
# Host unit tests of the regression gate (.output/bin/gate) on synthetic gate
# runs: identical sides are "same", a 5 % slowdown "worse" (exit 16), a 5 %
# speedup "better", fewer than 3 boots or an interval wider than the floor
# "unknown" (17), a noisy base raises the floor, other metadata is refused
# (18) unless --force, --noise and --json say what they should. Malformed
# input (issue 30) is refused with one line naming its file and line (19),
# runs that cannot be compared are refused (18), a run is not compared with
# itself (2), a scenario a filesystem cannot give is not missing when
# SCENARIOS_ABSENT names it, and nothing hangs (each gate under a timeout).
# KTAP output.
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
# g ARGS: the gate, under a timeout (a NaN once made it loop forever: 124).
g() { timeout 20 "$gate" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
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

# refused CODE TEXT: the gate exited CODE with one line on stderr holding
# TEXT, and wrote nothing on stdout.
refused() {
	want_rc "$1" || return 1
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF -- "$2" "$tmp/err" && [ ! -s "$tmp/out" ] ||
		{ echo "want one line on stderr with '$2', no output: $(head -c 400 "$tmp/err") |" \
			"$(head -c 200 "$tmp/out")"; return 1; }
}
# variant NAME: v=$tmp/NAME, a fresh copy of the base run to spoil.
variant() { v=$tmp/$1; rm -rf "$v" && cp -R "$tmp/base" "$v"; }
# set_sample LINE VALUE: the second sample of that line of $v's samples.txt is VALUE.
set_sample() {
	awk -v l="$1" -v x="$2" 'NR == l { $6 = x } { print }' "$v/samples.txt" >"$v/s" && mv "$v/s" "$v/samples.txt"
}
# A run with one sample 'nan' (line 2): the gate once looped forever on it.
variant nan && set_sample 2 nan

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
t_wide_interval() {
	cp -R "$tmp/noisy" "$tmp/noisy_copy"
	g --base "$tmp/noisy" --new "$tmp/noisy_copy" --floor 2 --json; want_rc 17 && want_verdict median unknown
}
t_refused() {
	g --base "$tmp/base" --new "$tmp/wall"
	want_rc 18 && grep -q "not comparable: measure differs (base 'icount' in $tmp/base/meta.txt:3, new 'wall' in $tmp/wall/meta.txt:3)" "$tmp/err" &&
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
	want_rc 19 && grep -q "bad/samples.txt:1: sample 2 'abc' is not a positive whole number of ns" "$tmp/err" || return 1
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
	want_rc 18 && grep -q "not comparable: measure differs (base 'icount' in $tmp/base/meta.txt:3, reference 'wall' in $tmp/wall12/meta.txt:3)" "$tmp/err"
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
	cp -R "$tmp/ph" "$tmp/ph_copy"
	g --base "$tmp/ph" --new "$tmp/ph_copy" --json
	want_rc 0 && jq -e '[.rows[] | select(.scenario == "empty-none-sync:fsync")] | length == 3' "$tmp/out" >/dev/null ||
		{ echo "both sides: $(jq -c '[.rows[].scenario]' "$tmp/out")"; return 1; }
}


# ---- malformed or incomparable input (issue 30) ----------------------------
# Each of these once hung or gave a verdict (see the issue).
t_nan() {
	g --base "$tmp/base" --new "$tmp/nan"
	refused 19 "nan/samples.txt:2: sample 2 'nan' is not a positive whole number of ns"
}
# A sample is a positive whole number of ns in digits: no sign, exponent,
# hex, fraction, and below 1e15.
t_not_whole() {
	for x in -1000 0 1e308 inf 0x10 12.5 +12 1000000000000000 12a; do
		variant odd && set_sample 4 "$x"
		g --base "$tmp/base" --new "$v"
		refused 19 "odd/samples.txt:4: sample 2 '$x' is not a positive whole number of ns" || { echo "(sample $x)"; return 1; }
	done
}
t_all_zero() {
	variant zero && awk '{ for (i = 5; i <= NF; i++) $i = 0; print }' "$tmp/base/samples.txt" >"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "zero/samples.txt:1: sample 1 '0' is not a positive whole number of ns"
}
t_blank_lines() {
	variant blank && printf '\n\n\n' >"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "blank/samples.txt:1: a blank line" || return 1
	: >"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "blank/samples.txt: empty"
}
# ext4 against xfs: nothing to compare, with or without --force.
t_nothing_in_common() {
	variant xfs && sed 's/ ext4 / xfs /' "$tmp/base/samples.txt" >"$v/samples.txt"
	g --base "$tmp/base" --new "$v" --ktap
	refused 18 "nothing to compare: $tmp/base/samples.txt and $v/samples.txt have no filesystem and scenario in common" ||
		return 1
	g --base "$tmp/base" --new "$v" --force --ktap
	refused 18 "nothing to compare"
}
# A user-space scenario on one side only: refused unless --force (phase
# rows on one side stay a note: t_phase_rows).
t_plain_one_side() {
	variant two_fs && sed 's/ ext4 / xfs /' "$tmp/base/samples.txt" >>"$v/samples.txt"
	g --base "$v" --new "$tmp/base"
	refused 18 "not comparable: xfs empty-none-sync only in the base (none in $tmp/base/samples.txt)" || return 1
	g --base "$v" --new "$tmp/base" --force --json
	want_rc 0 && grep -q "note: xfs empty-none-sync only in the base: not compared (--force)" "$tmp/err" &&
		jq -e '.rows | length == 3' "$tmp/out" >/dev/null || { echo "--force: $(cat "$tmp/err")"; return 1; }
}
t_same_run() {
	g --base "$tmp/base" --new "$tmp/base"
	refused 2 "are the same run" || return 1
	g --base "$tmp/base" --new "$tmp/base/."
	refused 2 "are the same run" || return 1
	ln -s "$tmp/base" "$tmp/base_link"
	g --base "$tmp/base_link" --new "$tmp/base"
	refused 2 "are the same run" || return 1
	g --base "$tmp/base" --new "$tmp/slow" --reference "$tmp/slow/"
	refused 2 "--reference $tmp/slow/ is the new run" || return 1
	g --base "$tmp/base" --new "$tmp/slow" --reference "$tmp/noisy12" --reference "$tmp/noisy12/."
	refused 2 "--reference $tmp/noisy12 and --reference $tmp/noisy12/. are the same run"
}
t_meta_missing() {
	variant nometa && rm "$v/meta.txt"
	g --base "$tmp/base" --new "$v"
	refused 1 "open $v/meta.txt" || return 1
	cp -R "$v" "$tmp/nometa2"
	g --base "$tmp/nometa2" --new "$v"
	refused 1 "open $tmp/nometa2/meta.txt" || return 1
	g --base "$tmp/base" --new "$tmp/slow" --reference "$tmp/nowhere"
	refused 1 "open $tmp/nowhere/meta.txt"
}
t_meta_empty() {
	variant emptymeta && : >"$v/meta.txt" && cp -R "$v" "$tmp/emptymeta2"
	g --base "$v" --new "$tmp/emptymeta2"
	refused 19 "emptymeta/meta.txt: empty"
}
t_meta_key_twice() {
	variant twice && echo "measure=wall" >>"$v/meta.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "twice/meta.txt:5: measure given twice (first on line 3)"
}
t_meta_malformed() {
	variant garbage && printf 'garbage\n' >>"$v/meta.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "garbage/meta.txt:5: not KEY=VALUE" || return 1
	variant pages && sed "s/^PAGES=.*/PAGES='many'/" "$tmp/base/meta.txt" >"$v/meta.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "pages/meta.txt:4: PAGES='many' is not a whole number"
}
# The last line cut mid-number: no newline at its end.
t_cut_last_line() {
	variant cut && head -c $(($(wc -c <"$tmp/base/samples.txt") - 4)) "$tmp/base/samples.txt" >"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "cut/samples.txt:9: the last line is cut short (no newline at its end)"
}
# 10 samples where meta.txt says PAGES='200'.
t_short_row() {
	variant short && awk 'NR == 5 { s = $1; for (i = 2; i <= 14; i++) s = s " " $i; $0 = s } { print }' \
		"$tmp/base/samples.txt" >"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "short/samples.txt:5: 10 samples, want 200 (meta.txt's PAGES)"
}
t_rounds_differ() {
	variant r3 && echo "ROUNDS='3'" >>"$v/meta.txt"
	mkrun "$tmp/r2" 2 1 && echo "ROUNDS='2'" >>"$tmp/r2/meta.txt"
	g --base "$v" --new "$tmp/r2"
	refused 18 "not comparable: ROUNDS differs (base '3' in $v/meta.txt:5, new '2' in $tmp/r2/meta.txt:5)" || return 1
	g --base "$v" --new "$tmp/r2" --force
	want_rc 0 && grep -q "note: ROUNDS differs" "$tmp/err"
}
t_phases_zero() {
	variant p0 && echo "PHASES='0'" >>"$v/meta.txt" &&
		awk 'NR == 1 { $3 = $3 ":fsync"; print }' "$tmp/base/samples.txt" >>"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "p0/samples.txt:10: a phase row (empty-none-sync:fsync), but meta.txt says PHASES=0"
}
t_round_beyond() {
	variant r4 && echo "ROUNDS='3'" >>"$v/meta.txt" &&
		awk 'NR == 2 { $4 = 4 } { print }' "$tmp/base/samples.txt" >"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "r4/samples.txt:2: round 4, beyond meta.txt's ROUNDS=3"
}
t_boot_beyond() {
	variant b4 && echo "boots=2" >>"$v/meta.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "b4/samples.txt:7: boot 3, beyond meta.txt's boots=2"
}
# A gate run (ROUNDS and boots given) with a line missing, or one twice.
t_rows_missing_or_twice() {
	variant whole && { echo "ROUNDS='3'"; echo "boots=3"; } >>"$v/meta.txt"
	g --check "$v"
	want_rc 0 || return 1
	sed 5d "$tmp/whole/samples.txt" >"$v/s" && mv "$v/s" "$v/samples.txt"
	g --check "$v"
	refused 19 "whole/samples.txt: 8 rows of ext4 empty-none-sync, want 9 (meta.txt's boots=3 x ROUNDS=3)" || return 1
	variant twice_row && sed -n 5p "$tmp/base/samples.txt" >>"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "twice_row/samples.txt:10: boot 2 ext4 empty-none-sync round 2 again (first on line 5)"
}
# A scenario meta.txt lists that a filesystem cannot give (a reflinked file
# on ext4) is missing only when SCENARIOS_ABSENT does not name it, as a
# whole word.
t_scenarios_absent() {
	variant absent && echo "SCENARIOS='empty-none-sync reflinked-none-sync'" >>"$v/meta.txt"
	g --check "$v"
	refused 19 "absent/samples.txt: no rows of ext4 reflinked-none-sync, which meta.txt's SCENARIOS lists" || return 1
	echo "SCENARIOS_ABSENT='xfs:empty-none-sync ext4:reflinked-none ext4:reflinked-none-sync-x'" >>"$v/meta.txt"
	g --check "$v"
	refused 19 "no rows of ext4 reflinked-none-sync" || return 1
	sed -i "s/^SCENARIOS_ABSENT=.*/SCENARIOS_ABSENT='xfs:reflinked-none-sync ext4:reflinked-none-sync'/" "$v/meta.txt"
	g --check "$v"
	want_rc 0
}
t_long_names() {
	long=$(printf '%064d' 0 | tr 0 s)
	variant longscen && awk -v s="$long" '{ $3 = s; print }' "$tmp/base/samples.txt" >"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "longscen/samples.txt:1: scenario name 'ssssssssssssssssssss...' is longer than 63 characters" ||
		return 1
	variant longfs && awk '{ $2 = "ext4-with-a-long-name"; print }' "$tmp/base/samples.txt" >"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "longfs/samples.txt:1: filesystem name 'ext4-with-a-long-nam...' is longer than 15 characters"
}
t_crlf() {
	variant crlf && sed 's/$/\r/' "$tmp/base/samples.txt" >"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "crlf/samples.txt:1: carriage return (CRLF line ending)"
}
t_binary() {
	variant bin && { head -c 100 "$tmp/base/samples.txt"; printf '\000\377'; tail -c +101 "$tmp/base/samples.txt"; } \
		>"$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "bin/samples.txt:1: binary byte 0x00 at column 101"
}
t_samples_dir() {
	variant dir && rm "$v/samples.txt" && mkdir "$v/samples.txt"
	g --base "$tmp/base" --new "$v"
	refused 19 "dir/samples.txt: a directory, not a file"
}
# --noise and --reference read their runs as base and new do.
t_every_reader() {
	g --noise --base "$tmp/nan"
	refused 19 "nan/samples.txt:2: sample 2 'nan'" || return 1
	g --base "$tmp/base" --new "$tmp/slow" --reference "$tmp/nan"
	refused 19 "nan/samples.txt:2: sample 2 'nan'"
}
# gate --check DIR (plot.sh and make baseline ask it before plotting).
t_check() {
	g --check "$tmp/base"
	want_rc 0 && [ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] || { echo "sound run: $(cat "$tmp/out" "$tmp/err")"; return 1; }
	g --check "$tmp/base" -v
	want_rc 0 && [ "$(cat "$tmp/out")" = "$tmp/base: 9 lines, 1 rows ok" ] || { echo "-v: $(cat "$tmp/out")"; return 1; }
	g --check "$tmp/nan"
	refused 19 "nan/samples.txt:2: sample 2 'nan'" || return 1
	g --check "$tmp/nowhere"
	refused 1 "open $tmp/nowhere/meta.txt" || return 1
	g --check "$tmp/base" --new "$tmp/slow"
	want_rc 2
}
# make reproduce EXTRA=1's samples.txt: faultlat rows of PAGES x REPS
# samples, persist rows of PERSIST_WRITES, tail-SYNC-wN rows of N x PAGES.
t_reproduce_extra() {
	mkdir -p "$tmp/repro" && printf '%s\n' "PAGES='4'" "REPS='2'" "PERSIST_WRITES='3'" "EXTRA='1'" >"$tmp/repro/meta.txt"
	printf '%s\n' "1 ext4 empty-none-sync 1 5 6 7 8 5 6 7 8" "1 ext4 persist-written-seq-msync-4096 1 9 9 9" \
		"1 ext4 tail-sync-w2-files 1 1 2 3 4 1 2 3 4" "1 ext4 tail-nosync-w4-one-file 1 $(seq -s ' ' 16)" \
		>"$tmp/repro/samples.txt"
	g --check "$tmp/repro"
	want_rc 0 || return 1
	sed -i 's/^\(1 ext4 persist-[^ ]* 1 9 9 9\)$/\1 9/' "$tmp/repro/samples.txt"
	g --check "$tmp/repro"
	refused 19 "repro/samples.txt:2: 4 samples, want 3 (meta.txt's PERSIST_WRITES)"
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
ktap_check nan_sample_refused_not_hung t_nan
ktap_check sample_not_positive_whole_refused t_not_whole
ktap_check all_zero_samples_refused t_all_zero
ktap_check blank_or_empty_samples_refused t_blank_lines
ktap_check nothing_in_common_refused t_nothing_in_common
ktap_check scenario_on_one_side_refused_unless_force t_plain_one_side
ktap_check same_run_refused t_same_run
ktap_check missing_meta_named t_meta_missing
ktap_check empty_meta_refused t_meta_empty
ktap_check meta_key_twice_refused t_meta_key_twice
ktap_check meta_malformed_line_refused t_meta_malformed
ktap_check last_line_cut_refused t_cut_last_line
ktap_check row_of_other_pages_refused t_short_row
ktap_check rounds_differ_not_comparable t_rounds_differ
ktap_check phase_rows_with_phases_0_refused t_phases_zero
ktap_check round_beyond_rounds_refused t_round_beyond
ktap_check boot_beyond_boots_refused t_boot_beyond
ktap_check rows_missing_or_twice_refused t_rows_missing_or_twice
ktap_check scenarios_absent_by_design_not_missing t_scenarios_absent
ktap_check long_names_refused t_long_names
ktap_check crlf_named t_crlf
ktap_check binary_bytes_refused t_binary
ktap_check samples_directory_named t_samples_dir
ktap_check noise_and_reference_read_alike t_every_reader
ktap_check check_one_run t_check
ktap_check reproduce_extra_rows_sound t_reproduce_extra
ktap_finish
