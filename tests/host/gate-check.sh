#!/bin/sh
# make check's short gate: three small gate runs (3 boots, 1 round each)
# of the default kernel: base, the same again (A/A), and one with
# fault_delay.ko adding DELAY_NS to every DAX fault. The A/A run's tool-cost
# rows run daxlat-costly (every BPF program wastes time first): they must be
# worse, and nothing else. The A/A comparison must
# find no median worse (floor 20 %, see FLOOR); the delayed one must be a
# regression (exit 16) with the preallocated scenarios' medians worse on
# both filesystems, and the in-kernel phases must put the delay where it
# is (the fault handler around dax_iomap_fault), not after the sync. KTAP on stdout; the runs and the
# gates' reports stay in OUT.
# Usage: gate-check.sh OUT (environment: what bench/gate-run.sh needs, GATE)
set -u
out=$1
gate=${GATE:-.output/bin/gate}
suite_lib=lib
. lib/ktap.sh
rm -rf "$out" && mkdir -p "$out"

run() { # NAME DELAY_NS PHASES [DAXLAT_COSTLY]
	RUN_DIR=$out/$1 BOOTS=3 ROUNDS=1 DELAY_NS=$2 PHASES=$3 DAXLAT_COSTLY=${4:-} sh bench/gate-run.sh >"$out/$1.log" 2>&1 ||
		{ echo "gate run $1: $(grep -v '^  \[' "$out/$1.log" | tail -n 2 | tr '\n' ' ')"; return 1; }
}
verdicts() { # JSON WHAT: how many rows of verdict WHAT
	jq "[.rows[] | select(.verdict == \"$2\")] | length" "$1"
}
# The precision of the gate is measured by make gate-aa / gate-power, not
# here: its floors need a reference of many boots of this machine, which a
# fresh clone elsewhere does not have (results/baselines/gate-aa-*: with
# one, 0 worse of 480 on fresh boots; with 3 boots' own noise, 6 of 960).
# This check proves the machinery end to end, so it judges medians against
# a 20 % floor: no A/A median of 60 comparisons moved that much, and the
# 20 us delay moves the preallocated medians by 35-50 %.
FLOOR=20
# The A/A run without phases (they cost half a minute a boot): its gate
# compares what both have. Its tool-cost rows (SCENARIO+daxlat) run the
# daxlat build that wastes HOOK_COST_LOOPS in every BPF program: only they
# may be worse, and they must be.
t_runs() { run base 0 1 && run aa 0 0 "$COSTLY" && run slow "$DELAY" 1; }
t_aa() {
	"$gate" --floor $FLOOR --base "$out/base" --new "$out/aa" --json >"$out/aa.json" 2>"$out/aa.err"
	rc=$?
	# 16: the tool rows (t_tool); any other worse row fails below.
	[ "$rc" = 0 ] || [ "$rc" = 16 ] || [ "$rc" = 17 ] || { echo "A/A gate exit $rc: $(cat "$out/aa.err")"; return 1; }
	worse=$(jq '[.rows[] | select(.metric == "median" and .verdict == "worse" and (.scenario | contains("+") | not))] | length' "$out/aa.json")
	[ "$worse" = 0 ] ||
		{ echo "A/A: $(jq -c '[.rows[] | select(.metric == "median" and .verdict == "worse") | [.fs, .scenario, .change]]' "$out/aa.json")"; return 1; }
}
# The injected tool cost is called worse on every filesystem's tool row.
t_tool() {
	for fs in ext4 xfs; do
		v=$(jq -r ".rows[] | select(.fs == \"$fs\" and (.scenario | endswith(\"+daxlat\")) and .metric == \"median\") |
			\"\(.verdict) \(.change * 100 | floor)%\"" "$out/aa.json")
		case $v in worse*) ;; *) echo "$fs tool row median: '$v', want worse"; return 1 ;; esac
	done
	echo "tool rows worse: $(jq -r '[.rows[] | select((.scenario | endswith("+daxlat")) and .metric == "median") | "\(.fs) +\(.change * 1000 | floor / 10)%"] | join(", ")' "$out/aa.json")"
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
# Warm-up and one round of 4 scenarios on 2 filesystems, the tool-cost row
# (one scenario under daxlat) on both, and the phase
# runs of the 2 allocating MAP_SYNC scenarios on both.
t_hits() {
	want=$(((2 * 4 * 2 + 2 + 2 * 2) * PAGES))
	hits=$(sed -n 's/^delay_hits=//p' "$out/slow/boot-1/meta.txt")
	[ "$hits" = "$want" ] || { echo "fault_delay hits $hits, want $want"; return 1; }
}
# median_of JSON FS ROW EXPR: EXPR (jq) of that row's median metric.
median_of() {
	jq -r ".rows[] | select(.fs == \"$2\" and .scenario == \"$3\" and .metric == \"median\") | $4" "$1"
}
# change JSON FS ROW: the median's change of that row, in percent (integer).
change() { median_of "$@" '.change * 100 | floor'; }
# grown_ns JSON FS ROW: how many ns that row's median grew (an integer).
grown_ns() { median_of "$@" '.new.median_ns - .base.median_ns | floor'; }
# The phases are gated too, and see the delay where it is: in the fs
# fault handler around dax_iomap_fault, not in the mkwrite phase after the
# sync. (Not in daxlat's iomap phase: the kprobe's wait runs before the
# fentry on dax_iomap_fault takes its timestamp. On the allocating ext4
# fault the wait overlaps the journal commit and vanishes; fallocated
# blocks show it.)
# In ns, not percent: the phase's length differs by kernel (an own 6.12
# build's ext4 fallocated fault takes so long that 20 us is 1 %).
t_phases() {
	said=
	for fs in ext4 xfs; do
		h=$(grown_ns "$out/slow.json" $fs fallocated-none-sync:handler)
		mk=$(grown_ns "$out/slow.json" $fs fallocated-none-sync:mkwrite)
		[ -n "$h" ] && [ -n "$mk" ] || { echo "$fs: no phase rows in the gate"; return 1; }
		[ "$h" -ge $((DELAY / 2)) ] && [ "$mk" -ge $((-DELAY / 4)) ] && [ "$mk" -le $((DELAY / 4)) ] ||
			{ echo "$fs fallocated-none-sync: handler phase $h ns, mkwrite $mk ns: the $DELAY ns delay is not where it was put"; return 1; }
		said="$said${said:+, }$fs +$h ns ($(change "$out/slow.json" $fs fallocated-none-sync:handler) %)"
	done
	echo "handler phase median: $said"
}

# make gate's explanation (results/gate-explain.sh) on the real verdicts:
# a headline for every filesystem and scenario with a worse row (the tool
# rows aside), and those without phase rows (preallocated) say so.
t_explain() {
	sh results/gate-explain.sh "$out/base" "$out/slow" "$out/slow.json" >"$out/explain.md" ||
		{ echo "gate-explain.sh exit $?"; return 1; }
	want=$(jq -r '.rows[] | select(.verdict == "worse") | "\(.fs) \(.scenario | sub(":.*$"; ""))"' "$out/slow.json" |
		grep -v '+daxlat$' | sort -u)
	got=$(sed -n 's/^- \*\*\([a-z0-9]*\) \([a-z-]*\):.*/\1 \2/p' "$out/explain.md" | sort -u)
	[ -n "$want" ] && [ "$want" = "$got" ] || { echo "worse: $want; explained: $got"; return 1; }
	grep -q '^- \*\*ext4 prealloc-none-sync: median +[0-9.]* % (worse)\*\*: no in-kernel phase rows' "$out/explain.md" ||
		{ echo "ext4 prealloc: $(grep 'ext4 prealloc' "$out/explain.md")"; return 1; }
	grep '^- ' "$out/explain.md" | head -n 2
}

DELAY=${GATE_CHECK_DELAY_NS:-20000}
COSTLY=${DAXLAT_COSTLY:-.output/bin/daxlat-costly}
ktap_plan gate_runs gate_aa_no_worse gate_tool_cost_is_worse gate_delay_applied gate_slowdown_is_regression gate_phases_place_the_delay \
	gate_explains_the_worse_rows
ktap_start
ktap_diag "measure $MEASURE, fault_delay $DELAY ns"
ktap_check gate_runs t_runs
ktap_check gate_aa_no_worse t_aa
ktap_check gate_tool_cost_is_worse t_tool
ktap_check gate_delay_applied t_hits
ktap_check gate_slowdown_is_regression t_slow
ktap_check gate_phases_place_the_delay t_phases
ktap_check gate_explains_the_worse_rows t_explain
# What the verdicts were, for the log (the checks' own output is kept only on failure).
for g in aa slow; do
	[ -f "$out/$g.json" ] && ktap_diag "$g: $(jq -r '.verdicts | to_entries | map("\(.value) \(.key)") | join(", ")' "$out/$g.json")"
done
[ -f "$out/slow.json" ] && ktap_diag "slow: $(jq -r '[.rows[] | select(.scenario == "prealloc-none-sync" and .metric == "median") | "\(.fs) prealloc median \(.verdict) \(.change * 1000 | floor / 10)%"] | join(", ")' "$out/slow.json")"
ktap_finish
