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
bench_run reproduce bench/reproduce-guest.sh $((2 * nscen * REPS * (1 + KERNEL_VIEW) + 90 * EXTRA)) \
	PAGES REPS KERNEL_VIEW SCENARIOS EXTRA PERSIST_WRITES
sh bench/reproduce-report.sh "$run"
