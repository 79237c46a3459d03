#!/bin/sh
# Host half of 'make reproduce-kernels': the reproduce scenarios on every
# guest kernel, interleaved (round 1: A B C, round 2: A B C, ...) so that
# machine noise falls on all kernels alike, one boot per round and kernel,
# then the cross-kernel table (results/kernels-table.sh).
# Environment (from the Makefile): MAKE, KERNELS, KERNEL_ROUNDS, PAGES,
# REPS, ACCEL, TCG_THREAD, QEMU; each run is 'make reproduce-run GUEST=K'.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "${here%/bench}"
. bench/run-lib.sh

need_count KERNEL_ROUNDS "$KERNEL_ROUNDS" && need_count PAGES "$PAGES" && need_count REPS "$REPS" || exit 2
[ -n "$KERNELS" ] || { echo "KERNELS is empty" >&2; exit 2; }
run_dir reproduce-kernels
top_run=$run
echo "$KERNELS" | tr ' ' '\n' | grep . >"$top_run/kernels"
trap 'echo "reproduce-kernels: interrupted; the runs so far stay in $top_run (INCOMPLETE)" >&2; touch "$top_run/INCOMPLETE"; exit 130' INT TERM
nk=$(wc -l <"$top_run/kernels")
echo "reproduce-kernels: $KERNEL_ROUNDS round(s) x $nk kernels ($KERNELS), $PAGES pages per scenario, each run under daxlat too"
start=$(date +%s)
r=1
while [ "$r" -le "$KERNEL_ROUNDS" ]; do
	for k in $KERNELS; do
		t0=$(date +%s)
		d=$top_run/r$r-$k
		if ! $MAKE --no-print-directory GUEST="$k" RUN_DIR="$d" KERNEL_VIEW=1 reproduce-run >"$d.log" 2>&1; then
			touch "$top_run/INCOMPLETE"
			echo "reproduce-kernels: round $r, kernel $k failed: $d.log; the runs so far stay in $top_run (INCOMPLETE)" >&2
			tail -n 5 "$d.log" >&2
			exit 1
		fi
		# Progress: one number a person can follow from round to round.
		m=$(jq -r '.median / 1000 | floor' "$d/ext4/empty-none-sync.json" 2>/dev/null || echo '?')
		echo "  RUN      round $r/$KERNEL_ROUNDS, $k ($(sed -n 's/^kernel=//p' "$d/meta.txt")): $(($(date +%s) - t0)) s, ext4 empty MAP_SYNC median $m us"
	done
	r=$((r + 1))
done
echo "reproduce-kernels: $(($(date +%s) - start)) s"
echo
sh results/kernels-table.sh "$top_run" | tee "$top_run/table.txt"
sh results/kernels-table.sh --json "$top_run" >"$top_run/table.json"
echo
echo "reproduce-kernels: results in $top_run (table.txt, table.json; each run's meta.txt says how it was obtained)"
