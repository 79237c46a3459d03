#!/bin/sh
# How far the gate can be trusted, measured (make gate-aa, make gate-power):
#   gate-study.sh aa N OUT       N+1 gate runs of the same kernel; each
#                                compared with the next (N A/A comparisons):
#                                every verdict counted, "worse" is a false
#                                positive.
#   gate-study.sh power "D1 D2..." TRIALS OUT
#                                per trial, one base run and one run per
#                                delay (fault_delay.ko, ns per fault) gated
#                                against it: per filesystem and scenario,
#                                the rate at which the median is called
#                                worse, next to the change the delay made.
#   gate-study.sh summary aa|power OUT
#                                the summary again, from OUT's gates/.
# Every run and comparison stays in OUT (runs/, gates/), with summary.txt.
# Environment: what bench/gate-run.sh needs (make passes it), GATE,
# GATE_REFERENCE (run folders whose boots set the floors: gate --reference).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "${here%/bench}"
gate=${GATE:-.output/bin/gate}
die() { echo "gate-study: $*" >&2; exit 2; }

# need_n NAME VALUE MAKE: a whole number from 1 (6 digits at most, as
# bench/run-lib.sh's need_count), else one line naming the argument and
# make's variable for it.
need_n() {
	case $2 in ''|*[!0-9]*|0*) die "$1=$2: must be a whole number of at least 1 (make $3)" ;; esac
	[ ${#2} -le 6 ] || die "$1=$2: must be a whole number of at least 1, 6 digits at most (make $3)"
}
# need_delays DELAYS: one or more whole numbers of ns from 1.
need_delays() {
	set -f
	[ -n "$(echo $1)" ] || die "DELAYS is empty: one or more delays in ns (make gate-power: POWER_DELAYS)"
	for d in $1; do
		case $d in *[!0-9]*|0*) die "DELAYS='$1': '$d' is not a whole number of ns from 1 (make gate-power: POWER_DELAYS)" ;; esac
		[ ${#d} -le 9 ] || die "DELAYS='$1': '$d': 9 digits at most (make gate-power: POWER_DELAYS)"
	done
	set +f
}

run() { # NAME DELAY_NS
	RUN_DIR=$out/runs/$1 DELAY_NS=$2 sh bench/gate-run.sh >"$out/runs/$1.log" 2>&1 ||
		{ tail -n 5 "$out/runs/$1.log" >&2; die "gate run $1 failed"; }
}
compare() { # BASE NEW NAME: the gate's JSON into gates/NAME.json
	rc=0 base=$1 new=$2 name=$3
	shift 3
	set -- $(for r in ${GATE_REFERENCE:-}; do printf -- '--reference %s ' "$r"; done)
	"$gate" --base "$out/runs/$base" --new "$out/runs/$new" "$@" --json >"$out/gates/$name.json" 2>"$out/gates/$name.err" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 16 ] || [ "$rc" = 17 ] || die "gate $name: exit $rc: $(cat "$out/gates/$name.err")"
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
	summary_aa
}

summary_aa() {
	n=$(ls "$out"/gates/aa-*.json | wc -l)
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
	delays=$1 trials=$2
	t=1
	while [ $t -le "$trials" ]; do
		echo "gate-study: trial $t of $trials: base"
		run base-$t 0
		for d in $delays; do
			echo "gate-study: trial $t of $trials: delay $d ns"
			run d$d-$t "$d"
			compare base-$t d$d-$t d$d-$t
		done
		t=$((t + 1))
	done
	summary_power "$delays" "$trials"
}

# summary_power "DELAYS" TRIALS: per scenario and delay, then every
# scenario's trials binned by the change the delay really made (the
# detection rate at 1, 2, 5, 10, 25 %).
summary_power() {
	delays=$1 trials=$2
	{
		echo "power: medians, base $(sed -n 's/^kernel=//p' "$out/runs/base-1/meta.txt"), $trials trials per delay (each with its own base run)"
		jq -r '"floors: " + (.params.reference | if length > 1 then "\(length) reference runs, \(.[0]) ..." else "the base of each comparison" end)' \
			"$(ls "$out"/gates/d*.json | head -n 1)"
		printf "%-5s %-22s %10s %14s %10s %6s %8s %7s\n" fs scenario "delay ns" "change (mean)" detected same unknown better
		for d in $delays; do
			jq -r --arg d "$d" '.rows[] | select(.metric == "median") | "\(.fs) \(.scenario) \($d) \(.change) \(.verdict)"' \
				"$out"/gates/d$d-*.json
		done | awk '{ k = $1 " " $2 " " $3; if (!(k in n)) order[++nk] = k; n[k]++; s[k] += $4; c[k, $5]++ }
			END { for (i = 1; i <= nk; i++) { k = order[i]; split(k, f, " ")
				printf "%-5s %-22s %10d %13.2f%% %4d of %-3d %6d %8d %7d\n", f[1], f[2], f[3], 100 * s[k] / n[k],
					c[k, "worse"], n[k], c[k, "same"], c[k, "unknown"], c[k, "better"] } }' | sort -k1,1 -k2,2 -k3,3n
		echo
		echo "every scenario's median, by the change measured (trial against its own base):"
		printf "%-14s %8s %10s %6s %8s %7s\n" "change" trials detected same unknown better
		jq -r '.rows[] | select(.metric == "median") | "\(.change) \(.verdict)"' "$out"/gates/d*.json |
			awk -f results/power-bins.awk | awk -F '|' '{ printf "%-14s %8d %5d %3d%% %6d %8d %7d\n", $1, $2, $3, $4, $5, $6, $7 }'
	} | tee "$out/summary.txt"
}

mode=${1:-}
case $mode in
aa) [ $# = 3 ] || die "usage: gate-study.sh aa N OUT"; out=$3; need_n N "$2" "gate-aa: AA_N" ;;
power) [ $# = 4 ] || die "usage: gate-study.sh power 'DELAYS' TRIALS OUT"; out=$4
	need_delays "$2"; need_n TRIALS "$3" "gate-power: POWER_TRIALS" ;;
summary) [ $# = 3 ] || die "usage: gate-study.sh summary aa|power OUT"; out=$3
	[ -d "$out/gates" ] || die "$out: no gates/ (not a study folder)"
	if [ "$2" = aa ]; then summary_aa; exit 0; fi
	d=$(ls "$out"/gates/ | sed -n 's/^d\([0-9]*\)-[0-9]*\.json$/\1/p' | sort -nu | tr '\n' ' ')
	summary_power "$d" "$(ls "$out"/gates/ | sed -n 's/^d[0-9]*-\([0-9]*\)\.json$/\1/p' | sort -nu | tail -n 1)"
	exit 0 ;;
*) die "usage: gate-study.sh aa|power ..." ;;
esac
mkdir -p "$out/runs" "$out/gates"
if [ "$mode" = aa ]; then study_aa "$2"; else study_power "$2" "$3"; fi
