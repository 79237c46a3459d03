#!/bin/sh
# Host half of 'make overhead': per scenario, the median of the per-run fault
# medians with daxlat attached and without, their ratio, and the spread.
# Environment (from the Makefile): VMLINUZ INITRD BINDIR ACCEL GUEST_KVER
# PAGES ROUNDS SCENARIOS
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "${here%/bench}"
. bench/run-lib.sh
suite_lib=lib
. lib/scenarios.sh

need_host && need_count PAGES "$PAGES" && need_count ROUNDS "$ROUNDS" || exit 2
SCENARIOS=${SCENARIOS:-$(scenarios overhead | tr '\n' ' ')}
for s in $SCENARIOS; do
	scenario_known "$s" ||
		{ echo "OVERHEAD_SCENARIOS: unknown scenario '$s' (the names in bench/scenarios.txt)" >&2; exit 2; }
done
echo "overhead: $ROUNDS rounds x (plain, daxlat) of $PAGES faults on ext4: $SCENARIOS"
bench_run overhead bench/overhead-guest.sh $((2 * ROUNDS * $(echo $SCENARIOS | wc -w))) PAGES ROUNDS SCENARIOS
grep '^R ' "$work/vm/results.txt" >"$run/runs.txt" || { echo "overhead: no results" >&2; exit 1; }
label="$(sed -n 's/^kernel=//p' "$run/meta.txt"), $ACCEL, $(sed -n 's/^guest_cpu=//p' "$run/meta.txt"), rev $(sed -n 's/^git_revision=//p' "$run/meta.txt")"

# median of a sorted column, min and max
awk -v label="$label" -v json="$run/overhead.json" '
	{ v[$2, $3, ++n[$2, $3]] = $5; if (!($2 in seen)) { seen[$2] = 1; order[++ns] = $2 } }
	function med(s, m,   k, i, j, t, a) {
		k = n[s, m]
		for (i = 1; i <= k; i++) a[i] = v[s, m, i]
		for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		lo = a[1]; hi = a[k]
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	END {
		printf "daxlat overhead, %s\n", label
		printf "  %-24s %6s %14s %20s %14s %20s %8s %9s\n", "scenario", "rounds", "plain median", "(min..max)", "traced median", "(min..max)", "ratio", "overhead"
		printf "{\"label\": \"%s\", \"scenarios\": [", label > json
		for (i = 1; i <= ns; i++) {
			s = order[i]
			p = med(s, "plain"); plo = lo; phi = hi
			t = med(s, "traced"); tlo = lo; thi = hi
			printf "  %-24s %6d %11.1f us %9.1f..%-9.1f %11.1f us %9.1f..%-9.1f %7.4fx %+8.2f%%\n", s, n[s, "plain"],
				p / 1000, plo / 1000, phi / 1000, t / 1000, tlo / 1000, thi / 1000, t / p, (t / p - 1) * 100
			printf "%s{\"scenario\": \"%s\", \"rounds\": %d, \"plain_median_ns\": %d, \"traced_median_ns\": %d, \"ratio\": %.4f}", \
				(i > 1 ? ", " : ""), s, n[s, "plain"], p, t, t / p > json
		}
		print "]}" > json
		print "  (per run: the median of its per-fault latencies; per mode: the median of those medians)"
	}' "$run/runs.txt" | tee "$run/overhead.txt"
echo "overhead: results in $run"
