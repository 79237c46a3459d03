#!/bin/sh
# Host half of a gate run: BOOTS boots of bench/gate-guest.sh (ROUNDS
# interleaved rounds of the gate scenarios each), into one folder
# results/runs/gate-DATE-REV/ (RUN_DIR to name it): meta.txt (how it was
# obtained, boot 1's label), samples.txt ("BOOT FS SCENARIO ROUND NS..."),
# boot-N/ (each boot's own meta and console). What results/gate.c compares.
# Environment (from the Makefile): VMLINUZ INITRD BINDIR ACCEL GUEST_KVER
# KOUT O PAGES ROUNDS BOOTS MEASURE (icount|wall) ICOUNT DELAY_NS DELAY_KO
# DELAY_FUNC (the function fault_delay.ko delays; default dax_iomap_fault)
# PHASES (1: also the in-kernel phases of the MAP_SYNC scenarios, daxlat)
# BREAKDOWN (1, with PHASES=1: also their metadata sync across threads)
# DAXLAT_COSTLY (a daxlat build for the tool-cost rows, SCENARIO+daxlat)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "${here%/bench}"
. bench/run-lib.sh
suite_lib=lib
. lib/scenarios.sh

need_host && need_count PAGES "$PAGES" && need_count ROUNDS "$ROUNDS" && need_count BOOTS "$BOOTS" || exit 2
case ${DELAY_NS:-0} in *[!0-9]*) echo "DELAY_NS=$DELAY_NS: must be a whole number of nanoseconds" >&2; exit 2 ;; esac
DELAY_NS=${DELAY_NS:-0}
PHASES=${PHASES:-1}
BREAKDOWN=${BREAKDOWN:-0}
DELAY_FUNC=${DELAY_FUNC:-dax_iomap_fault}
case $PHASES$BREAKDOWN in 00|10|11) ;; *) echo "PHASES=$PHASES BREAKDOWN=$BREAKDOWN: each 0 or 1, BREAKDOWN=1 needs PHASES=1" >&2; exit 2 ;; esac
case $DELAY_FUNC in *[!a-z0-9_]* | '') echo "DELAY_FUNC=$DELAY_FUNC: not a kernel function name" >&2; exit 2 ;; esac
case $MEASURE in
icount) export ICOUNT ;;
wall) unset ICOUNT ;;
*) echo "MEASURE=$MEASURE: must be icount or wall" >&2; exit 2 ;;
esac
# GATE_SETS: the scenario sets gated (bench/scenarios.txt), gate by default;
# make patch-check adds gate-cow (reflinked files: xfs's copy-on-write faults).
GATE_SETS=${GATE_SETS:-gate}
case $GATE_SETS in *[!a-z,-]* | '') echo "GATE_SETS=$GATE_SETS: scenario set names, comma-separated" >&2; exit 2 ;; esac
SCENARIOS=$(for set in $(echo "$GATE_SETS" | tr , ' '); do scenarios "$set"; done | awk '!seen[$0]++' | tr '\n' ' ')
[ -n "$SCENARIOS" ] || { echo "GATE_SETS=$GATE_SETS: no scenario in bench/scenarios.txt" >&2; exit 2; }
nscen=$(echo $SCENARIOS | wc -w)
BENCH_FILES=
if [ "$DELAY_NS" -gt 0 ]; then
	[ -f "${DELAY_KO:-}" ] || { echo "no fault_delay.ko at '${DELAY_KO:-}'" >&2; exit 2; }
	BENCH_FILES=$DELAY_KO
fi
# DAXLAT_COSTLY: the tool-cost rows run that daxlat build (tests/host/gate-check.sh).
if [ -n "${DAXLAT_COSTLY:-}" ]; then
	[ -f "$DAXLAT_COSTLY" ] || { echo "no daxlat-costly at '$DAXLAT_COSTLY'" >&2; exit 2; }
	BENCH_FILES="$BENCH_FILES $DAXLAT_COSTLY"
fi
ntool=$(scenarios gate-tool | wc -w)
[ -z "${RUN_DIR:-}" ] || [ ! -e "$RUN_DIR" ] || { echo "gate run: $RUN_DIR exists" >&2; exit 2; }
run_dir gate
top=$run
trap 'rm -rf "$top"; exit 130' INT TERM
echo "gate run: $BOOTS boot(s) x $ROUNDS rounds x (ext4, xfs) x ($SCENARIOS) of $PAGES faults, measure $MEASURE$([ "$DELAY_NS" -gt 0 ] && echo ", fault_delay $DELAY_NS ns on $DELAY_FUNC")$([ "$PHASES" = 1 ] && echo ", phases")$([ "$BREAKDOWN" = 1 ] && echo ", breakdown")"
b=1
while [ $b -le "$BOOTS" ]; do
	echo "gate run: boot $b of $BOOTS"
	# faultlat runs, for the watchdog: warm-up and rounds, and the phase
	# runs (each daxlat load weighs about 3 runs).
	RUN_DIR=$top/boot-$b bench_run gate bench/gate-guest.sh $((2 * (ROUNDS + 1) * nscen + 2 * ROUNDS * 3 * ntool + (PHASES + BREAKDOWN) * 5 * nscen)) \
		PAGES ROUNDS SCENARIOS DELAY_NS DELAY_FUNC PHASES BREAKDOWN || { rm -rf "$top"; exit 1; }
	# One copy of the samples: the run's, with the boot in front.
	sed "s/^/$b /" "$top/boot-$b/samples.txt" >>"$top/samples.txt" && rm "$top/boot-$b/samples.txt"
	b=$((b + 1))
done
trap - INT TERM
{ grep -v '^date=' "$top/boot-1/meta.txt"; echo "measure=$MEASURE"; echo "boots=$BOOTS"; } >"$top/meta.txt"
echo "gate run: results in $top"
