#!/bin/sh
# Host half of 'make overhead': per scenario, the median of the per-run fault
# medians bare, under daxlat, daxlat --phases, funclatency (its peer) and syncorder, what each adds
# per fault, and in instruction-counted time (MEASURE=icount, the default)
# the guest instructions that is; then every round's medians in order, the
# warm-up rounds first, so that a drift shows.
# Environment (from the Makefile): VMLINUZ INITRD BINDIR ACCEL GUEST_KVER
# PAGES ROUNDS WARMUP SCENARIOS MEASURE ICOUNT
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "${here%/bench}"
. bench/run-lib.sh
suite_lib=lib
. lib/scenarios.sh

WARMUP=${WARMUP:-2} MEASURE=${MEASURE:-icount} ICOUNT=${ICOUNT:-shift=4,sleep=off,align=off}
need_host && need_count PAGES "$PAGES" && need_count ROUNDS "$ROUNDS" || exit 2
case $WARMUP in '' | *[!0-9]*) echo "OVERHEAD_WARMUP=$WARMUP: must be a number of rounds" >&2; exit 2 ;; esac
# One guest instruction is 2^shift ns of guest time under -icount.
case $MEASURE in
icount)
	export ICOUNT
	shift_n=$(echo "$ICOUNT" | sed -n 's/.*shift=\([0-9]*\).*/\1/p')
	[ -n "$shift_n" ] || { echo "ICOUNT=$ICOUNT: no shift=N (make overhead needs it to count instructions)" >&2; exit 2; }
	ns_per_insn=$((1 << shift_n)) ;;
wall) unset ICOUNT; ns_per_insn=0 ;;
*) echo "MEASURE=$MEASURE: must be icount or wall" >&2; exit 2 ;;
esac
SCENARIOS=${SCENARIOS:-$(scenarios overhead | tr '\n' ' ')}
for s in $SCENARIOS; do
	scenario_known "$s" ||
		{ echo "OVERHEAD_SCENARIOS: unknown scenario '$s' (the names in bench/scenarios.txt)" >&2; exit 2; }
done
echo "overhead: $WARMUP warm-up + $ROUNDS rounds x (bare, daxlat, daxlat --phases, funclatency, syncorder, daxlat --breakdown) of $PAGES faults on ext4, measure $MEASURE: $SCENARIOS"
bench_run overhead bench/overhead-guest.sh $((6 * (ROUNDS + WARMUP) * $(echo $SCENARIOS | wc -w))) \
	PAGES ROUNDS WARMUP SCENARIOS
grep '^R ' "$work/vm/results.txt" >"$run/runs.txt" || { echo "overhead: no results" >&2; exit 1; }
grep '^P ' "$work/vm/results.txt" >"$run/programs.txt" || : >"$run/programs.txt"
echo "measure=$MEASURE${ICOUNT:+ icount=$ICOUNT}" >>"$run/meta.txt"
label="$(sed -n 's/^kernel=//p' "$run/meta.txt"), $ACCEL, measure $MEASURE, $(sed -n 's/^guest_cpu=//p' "$run/meta.txt"), rev $(sed -n 's/^git_revision=//p' "$run/meta.txt")"

# Modes: plain (bare), funclatency, daxlat, phases (daxlat --phases).
awk -v label="$label" -v json="$run/overhead.json" -v npi="$ns_per_insn" '
	$4 > 0 { v[$2, $3, ++n[$2, $3]] = $5 }
	{ if (!($2 in seen)) { seen[$2] = 1; order[++ns] = $2 }
	  if (!(($2, $4) in rs)) { rs[$2, $4] = 1; rounds[$2, ++nr[$2]] = $4 }
	  per[$2, $3, $4] = $5 }
	function med(s, m,   k, i, j, t, a) {
		k = n[s, m]
		for (i = 1; i <= k; i++) a[i] = v[s, m, i]
		for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	function added(d, p) { return sprintf("%+8.1f us %+6.2f%%", d / 1000, 100 * d / p) (npi ? sprintf(" %+7.0f insns", d / npi) : "") }
	function jmode(s, m, p,   d) { d = med(s, m) - p
		return sprintf(", \"%s_median_ns\": %d, \"%s_added_ns\": %d, \"%s_added_pct\": %.3f%s", m, med(s, m), m, d, m, 100 * d / p,
			npi ? sprintf(", \"%s_added_insns\": %d", m, d / npi) : "") }
	END {
		printf "Tracer cost per fault, %s (median of the per-run medians; warm-up rounds left out)\n", label
		printf "{\"label\": \"%s\", \"ns_per_instruction\": %d, \"scenarios\": [", label, npi > json
		for (i = 1; i <= ns; i++) {
			s = order[i]; p = med(s, "plain"); f = med(s, "funclatency") - p; d = med(s, "daxlat") - p
			printf "  %s (%d rounds): bare %.1f us\n", s, n[s, "plain"], p / 1000
			printf "    + funclatency      %s\n", added(f, p)
			printf "    + daxlat           %s   (%s funclatency)\n", added(d, p), (f > 0 ? sprintf("%.2fx", d / f) : "-")
			printf "    + daxlat --phases  %s\n", added(med(s, "phases") - p, p)
			if (n[s, "breakdown"]) printf "    + daxlat --breakdown %s\n", added(med(s, "breakdown") - p, p)
			if (n[s, "syncorder"]) printf "    + syncorder        %s\n", added(med(s, "syncorder") - p, p)
			printf "%s{\"scenario\": \"%s\", \"rounds\": %d, \"bare_median_ns\": %d%s%s%s}", (i > 1 ? ", " : ""), s, n[s, "plain"], p,
				jmode(s, "funclatency", p), jmode(s, "daxlat", p), jmode(s, "phases", p) (n[s, "syncorder"] ? jmode(s, "syncorder", p) : "") (n[s, "breakdown"] ? jmode(s, "breakdown", p) : "") > json
		}
		print "]}" > json
		print ""
		print "Per round, in order (rounds <= 0: warm-up), median us bare / funclatency / daxlat / daxlat --phases:"
		for (i = 1; i <= ns; i++) {
			s = order[i]; line = sprintf("  %-22s", s)
			for (r = 1; r <= nr[s]; r++) { k = rounds[s, r]
				line = line sprintf(" %s:%.1f/%.1f/%.1f/%.1f", k, per[s, "plain", k] / 1000, per[s, "funclatency", k] / 1000,
					per[s, "daxlat", k] / 1000, per[s, "phases", k] / 1000) }
			print line
		}
	}' "$run/runs.txt" >"$run/overhead.txt"
# The per-program table (daxlat --phases, statistics on).
awk -v npi="$ns_per_insn" 'BEGIN { printf "\nPer BPF program of daxlat --phases (runs, %s per run):\n", npi ? "guest instructions" : "ns" }
	{ printf "  %-24s %-26s %6d %8.0f\n", $2, $3, $4, $5 / $4 / (npi ? npi : 1) }' "$run/programs.txt" >>"$run/overhead.txt"
cat "$run/overhead.txt"
echo "overhead: results in $run"
