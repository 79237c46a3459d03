#!/bin/sh
# Host half of 'make reproduce': run the scenarios in the guest, keep the
# tables, JSON and a label of how they were obtained in results/runs/ID/,
# print them next to the seed's tables, then the kernel's view of each.
# Environment (from the Makefile): VMLINUZ INITRD BINDIR ACCEL PAGES REPS
# KERNEL_VIEW GUEST_KVER; TARGET=DIR: natively on DIR's DAX filesystem.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "${here%/bench}"
. bench/run-lib.sh
suite_lib=lib
. lib/scenarios.sh

# The table's reproduce set: the letter's six scenarios, then the fallocated
# pair it could not tell apart from 'empty'.
SCENARIOS=$(scenarios reproduce | tr '\n' ' ')

need_host && need_count PAGES "$PAGES" && need_count REPS "$REPS" || exit 2
case $KERNEL_VIEW in 0|1) ;; *) echo "KERNEL_VIEW=$KERNEL_VIEW: must be 0 or 1" >&2; exit 2 ;; esac
nscen=$(echo $SCENARIOS | wc -w)
echo "reproduce: $PAGES pages per scenario, $REPS rep(s), $([ -n "${TARGET:-}" ] && echo "natively on $TARGET" || echo "ext4 and xfs")$([ "$KERNEL_VIEW" = 1 ] && echo ', each again under daxlat')"
# The extra tables (EXTRA=1): about 70 runs' worth of watchdog time.
EXTRA=${EXTRA:-1} PERSIST_WRITES=${PERSIST_WRITES:-1000}
case $EXTRA in 0|1) ;; *) echo "EXTRA=$EXTRA: must be 0 or 1" >&2; exit 2 ;; esac
need_count PERSIST_WRITES "$PERSIST_WRITES" || exit 2
[ "$EXTRA" = 1 ] && echo "reproduce: then persistlat ($PERSIST_WRITES writes a row), 1-4 concurrent writers under daxlat and the conformance matrix"
bench_run reproduce bench/reproduce-guest.sh $((2 * nscen * REPS * (1 + KERNEL_VIEW) + 70 * EXTRA)) \
	PAGES REPS KERNEL_VIEW SCENARIOS EXTRA PERSIST_WRITES
label="$(sed -n 's/^kernel=//p' "$run/meta.txt"), $ACCEL, rev $(sed -n 's/^git_revision=//p' "$run/meta.txt")"
rc=0
# Both filesystems in the VM; natively the target's.
FSS=$(for fs in ext4 xfs; do [ -d "$run/$fs" ] && echo $fs; done)
for fs in $FSS; do
	echo
	echo "=== $fs -o dax, $label ==="
	sh results/report.sh results/reference/cover-v2.txt "$run/$fs" | tee "$run/report-$fs.txt" || rc=1
	sh results/report.sh --json results/reference/cover-v2.txt "$run/$fs" >"$run/report-$fs.json" || rc=1
	if [ "$KERNEL_VIEW" = 1 ]; then
		echo
		echo "=== $fs: in-kernel view (daxlat), $label ==="
		sh bench/kernel-view.sh "$run/$fs" $SCENARIOS | tee "$run/kernel-view-$fs.txt" || rc=1
	fi
done
if [ "$EXTRA" = 1 ]; then
	echo
	echo "=== What MAP_SYNC buys, the tail under concurrency, the interface, $label ==="
	sh results/extra-tables.sh "$run" | tee "$run/extra.txt" || rc=1
	sh results/extra-tables.sh --json "$run" >"$run/extra.json" || rc=1
fi
# The pictures and one page that ties tables and pictures together.
plots=$(sh results/plot.sh run "$run" "$run" 2>"$run/plot.err") || echo "reproduce: plots failed: $(head -n 1 "$run/plot.err")" >&2
if [ "$KERNEL_VIEW" = 1 ]; then
	for fs in $FSS; do
		p=$(sh results/plot.sh phases "$run/$fs"/traced/*-sync.kernel.json "$run/$fs" 2>>"$run/plot.err") && plots="$plots $p"
	done
fi
{
	echo "# make reproduce: $label"
	echo
	for fs in $FSS; do
		echo "## $fs -o dax"
		echo
		echo '```'
		cat "$run/report-$fs.txt"
		[ -f "$run/kernel-view-$fs.txt" ] && { echo; cat "$run/kernel-view-$fs.txt"; }
		echo '```'
		echo
		for p in $plots; do
			case $p in *"$fs"*) echo "![${p#"$run"/}](${p#"$run"/})"; echo ;; esac
		done
	done
	if [ -f "$run/extra.txt" ]; then
		echo "## What MAP_SYNC buys, the tail under concurrency, the interface"
		echo
		echo '```'
		cat "$run/extra.txt"
		echo '```'
		echo
	fi
	echo "## How it was obtained"
	echo
	echo '```'
	cat "$run/meta.txt"
	echo '```'
} >"$run/report.md"
[ -s "$run/plot.err" ] || rm -f "$run/plot.err"
echo
echo "reproduce: results in $run (report.md: tables and plots; meta.txt says how they were obtained)"
exit $rc
