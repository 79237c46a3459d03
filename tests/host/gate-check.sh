#!/bin/sh
# make check's short gate: three small gate runs (3 boots, 1 round each)
# of the default kernel: base, the same again (A/A), and one with
# fault_delay.ko adding DELAY_NS to every DAX fault. The A/A comparison must
# find no median worse (floor 20 %, see FLOOR); the delayed one must be a
# regression (exit 16) with the preallocated scenarios' medians worse on
# both filesystems. KTAP on stdout; the runs and the gates' reports stay
# in OUT.
# Usage: gate-check.sh OUT (environment: what bench/gate-run.sh needs, GATE)
set -u
out=$1
gate=${GATE:-.output/bin/gate}
suite_lib=lib
. lib/ktap.sh
rm -rf "$out" && mkdir -p "$out"

run() { # NAME DELAY_NS
	RUN_DIR=$out/$1 BOOTS=3 ROUNDS=1 DELAY_NS=$2 sh bench/gate-run.sh >"$out/$1.log" 2>&1 ||
		{ echo "gate run $1: $(grep -v '^  \[' "$out/$1.log" | tail -n 2 | tr '\n' ' ')"; return 1; }
}
verdicts() { # JSON WHAT: how many rows of verdict WHAT
	jq "[.rows[] | select(.verdict == \"$2\")] | length" "$1"
}
# The precision of the gate is measured by make gate-aa / gate-power, not
# here: at 3 boots a side two A/A studies called 2 of 320 medians and 7 of
# 640 tail metrics worse at the derived floors (results/baselines/gate-aa-*).
# This check proves the machinery end to end, so it judges medians against
# a 20 % floor: no A/A median of 40 comparisons moved that much, and the
# 20 us delay moves the preallocated medians by 35-50 %.
FLOOR=20
t_runs() { run base 0 && run aa 0 && run slow "$DELAY"; }
t_aa() {
	"$gate" --floor $FLOOR --base "$out/base" --new "$out/aa" --json >"$out/aa.json" 2>"$out/aa.err"
	rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 17 ] || { echo "A/A gate exit $rc: $(cat "$out/aa.err")"; return 1; }
	worse=$(jq '[.rows[] | select(.metric == "median" and .verdict == "worse")] | length' "$out/aa.json")
	[ "$worse" = 0 ] ||
		{ echo "A/A: $(jq -c '[.rows[] | select(.metric == "median" and .verdict == "worse") | [.fs, .scenario, .change]]' "$out/aa.json")"; return 1; }
}
t_slow() {
	"$gate" --floor $FLOOR --base "$out/base" --new "$out/slow" --json >"$out/slow.json" 2>"$out/slow.err"
	rc=$?
	[ "$rc" = 16 ] || { echo "gate exit $rc, want 16 (regression): $(cat "$out/slow.err")"; return 1; }
	for fs in ext4 xfs; do
		v=$(jq -r ".rows[] | select(.fs == \"$fs\" and .scenario == \"prealloc-none-sync\" and .metric == \"median\") |
			\"\(.verdict) \(.change * 100 | floor)%\"" "$out/slow.json")
		case $v in worse*) ;; *) echo "$fs prealloc-none-sync median: $v, want worse"; return 1 ;; esac
	done
}
t_hits() {
	hits=$(sed -n 's/^delay_hits=//p' "$out/slow/boot-1/meta.txt")
	[ "$hits" = $((2 * 4 * 2 * PAGES)) ] || { echo "fault_delay hits $hits, want $((2 * 4 * 2 * PAGES))"; return 1; }
}

DELAY=${GATE_CHECK_DELAY_NS:-20000}
ktap_plan gate_runs gate_aa_no_worse gate_delay_applied gate_slowdown_is_regression
ktap_start
ktap_diag "measure $MEASURE, fault_delay $DELAY ns"
ktap_check gate_runs t_runs
ktap_check gate_aa_no_worse t_aa
ktap_check gate_delay_applied t_hits
ktap_check gate_slowdown_is_regression t_slow
# What the verdicts were, for the log (the checks' own output is kept only on failure).
for g in aa slow; do
	[ -f "$out/$g.json" ] && ktap_diag "$g: $(jq -r '.verdicts | to_entries | map("\(.value) \(.key)") | join(", ")' "$out/$g.json")"
done
[ -f "$out/slow.json" ] && ktap_diag "slow: $(jq -r '[.rows[] | select(.scenario == "prealloc-none-sync" and .metric == "median") | "\(.fs) prealloc median \(.verdict) \(.change * 1000 | floor / 10)%"] | join(", ")' "$out/slow.json")"
ktap_finish
