#!/bin/sh
# How far the gate can be trusted, measured (make gate-aa, make gate-power):
#   gate-study.sh aa N OUT       N+1 gate runs of the same kernel; each
#                                compared with the next (N A/A comparisons):
#                                every verdict counted, "worse" is a false
#                                positive.
#   gate-study.sh power SCEN "D1 D2..." TRIALS OUT
#                                one base run, then TRIALS runs per delay
#                                (fault_delay.ko, ns per fault) each gated
#                                against it: the rate at which FS SCEN's
#                                median (SCEN: fs/scenario) is called worse,
#                                next to the change the delay really made.
# Every run and comparison stays in OUT (runs/, gates/), with summary.txt.
# Environment: what bench/gate-run.sh needs (make passes it), GATE.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "${here%/bench}"
gate=${GATE:-.output/bin/gate}
die() { echo "gate-study: $*" >&2; exit 2; }

run() { # NAME DELAY_NS
	RUN_DIR=$out/runs/$1 DELAY_NS=$2 sh bench/gate-run.sh >"$out/runs/$1.log" 2>&1 ||
		{ tail -n 5 "$out/runs/$1.log" >&2; die "gate run $1 failed"; }
}
compare() { # BASE NEW NAME: the gate's JSON into gates/NAME.json
	rc=0
	"$gate" --base "$out/runs/$1" --new "$out/runs/$2" --json >"$out/gates/$3.json" 2>"$out/gates/$3.err" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 16 ] || [ "$rc" = 17 ] || die "gate $3: exit $rc: $(cat "$out/gates/$3.err")"
}

study_aa() {
	n=$1
	run aa-0 0
	i=1
	while [ $i -le "$n" ]; do
		echo "gate-study: A/A $i of $n"
		run aa-$i 0
		compare aa-$((i - 1)) aa-$i aa-$i
		i=$((i + 1))
	done
	{
		echo "A/A: $n comparisons of the same kernel ($(sed -n 's/^kernel=//p' "$out/runs/aa-0/meta.txt")), $(sed -n 's/^accelerator=//p' "$out/runs/aa-0/meta.txt")"
		jq -r '.rows[] | "\(.metric) \(.verdict)"' "$out"/gates/aa-*.json | sort | uniq -c |
			awk '{ c[$2, $3] = $1; m[$2] = 1; v[$3] = 1 } END {
				printf "%-8s %6s %6s %6s %8s\n", "metric", "same", "better", "worse", "unknown"
				split("median p90 p99", ms, " ")
				for (i = 1; i <= 3; i++) printf "%-8s %6d %6d %6d %8d\n", ms[i], c[ms[i], "same"], c[ms[i], "better"], c[ms[i], "worse"], c[ms[i], "unknown"] }'
		echo "worse verdicts (false positives): $(jq '[.rows[] | select(.verdict == "worse")] | length' "$out"/gates/aa-*.json | awk '{ s += $1 } END { print s + 0 }')"
		jq -r '.rows[] | select(.verdict == "worse") | "  \(input_filename | split("/")[-1]): \(.fs) \(.scenario) \(.metric) \(.change * 100 | tostring | .[0:6])% p \(.p)"' "$out"/gates/aa-*.json
	} | tee "$out/summary.txt"
}

study_power() {
	target=$1 delays=$2 trials=$3
	fs=${target%%/*} scen=${target#*/}
	run base 0
	for d in $delays; do
		t=1
		while [ $t -le "$trials" ]; do
			echo "gate-study: delay $d ns, trial $t of $trials"
			run d$d-$t "$d"
			compare base d$d-$t d$d-$t
			t=$((t + 1))
		done
	done
	{
		echo "power: $fs $scen median, base $(sed -n 's/^kernel=//p' "$out/runs/base/meta.txt"), $trials trials per delay"
		printf "%10s %14s %10s %8s %8s %8s\n" "delay ns" "change (mean)" "detected" "same" "unknown" "better"
		for d in $delays; do
			jq -r --arg fs "$fs" --arg s "$scen" '.rows[] | select(.fs == $fs and .scenario == $s and .metric == "median") | "\(.change) \(.verdict)"' \
				"$out"/gates/d$d-*.json | awk -v d="$d" '{ s += $1; n++; c[$2]++ }
				END { printf "%10d %13.2f%% %4d of %-3d %8d %8d %8d\n", d, 100 * s / n, c["worse"], n, c["same"], c["unknown"], c["better"] }'
		done
	} | tee "$out/summary.txt"
}

mode=${1:-}
case $mode in
aa) [ $# = 3 ] || die "usage: gate-study.sh aa N OUT"; out=$3 ;;
power) [ $# = 5 ] || die "usage: gate-study.sh power FS/SCENARIO 'DELAYS' TRIALS OUT"; out=$5 ;;
*) die "usage: gate-study.sh aa|power ..." ;;
esac
mkdir -p "$out/runs" "$out/gates"
if [ "$mode" = aa ]; then study_aa "$2"; else study_power "$2" "$3" "$4"; fi
