#!/bin/sh
# Guest half of a gate run (bench/gate-run.sh): after a warm-up round,
# ROUNDS rounds of the gate scenarios on ext4 and xfs, interleaved (each
# round runs every scenario once, the order rotated each round), every
# fault's latency kept. With DELAY_NS > 0, fault_delay.ko first adds that
# much to every DAX fault (to every call of DELAY_FUNC, if set). With
# PHASES=1, then one run of every MAP_SYNC scenario under daxlat: the
# in-kernel phases of each synchronous fault; with BREAKDOWN=1 too, one
# more under daxlat --breakdown: where each metadata sync's time went,
# across threads (breakdown-SCENARIO.txt, folded-SCENARIO.txt per boot:
# what make gate explains a worse verdict with).
# Emits samples.txt: one line per faultlat run, "FS SCENARIO ROUND NS...",
# and per phase "FS SCENARIO:PHASE 1 NS..." (PHASE: iomap, fsync, mkwrite,
# handler; daxlat --samples-out).
. /suite/vm/guest/lib.sh
bench_start gate xfs ext4
DELAY_FUNC=${DELAY_FUNC:-dax_iomap_fault}
if [ "$DELAY_NS" -gt 0 ]; then
	insmod /job/fault_delay.ko delay_ns="$DELAY_NS" func="$DELAY_FUNC" ||
		fail "insmod fault_delay.ko delay_ns=$DELAY_NS func=$DELAY_FUNC"
fi
guest_meta >/tmp/meta
echo "delay_ns=$DELAY_NS" >>/tmp/meta
[ "$DELAY_NS" -gt 0 ] && echo "delay_func=$DELAY_FUNC" >>/tmp/meta
# The tool-cost rows' tracer: daxlat, or the build that wastes time in
# every program (DAXLAT_COSTLY, the gate's proof that the row works).
TOOL_SCENARIOS=$(scenarios gate-tool)
DAXLAT=daxlat
[ -f /job/daxlat-costly ] && chmod +x /job/daxlat-costly && DAXLAT=/job/daxlat-costly
echo "tool=$DAXLAT" >>/tmp/meta
# on_fs FS SCENARIO: FS can give the scenario's file state (reflinked:
# xfs only; vm/guest/filesystems.txt).
on_fs() { fs_has_state "$1" "$(scenario_field "$2" state)"; }

# The scenarios a filesystem cannot give, not run (make gate skips them).
echo "SCENARIOS_ABSENT=$(for fs in $(fs_list); do for scen in $SCENARIOS; do
	on_fs "$fs" "$scen" || printf '%s:%s ' "$fs" "$scen"; done; done)" >>/tmp/meta

# rotate N WORDS...: the words, starting at the Nth (mod their count).
rotate() {
	n=$1; shift
	n=$((n % $#))
	while [ "$n" -gt 0 ]; do w=$1; shift; set -- "$@" "$w"; n=$((n - 1)); done
	echo "$@"
}

# A warm-up round, not kept: the first run of a scenario in a boot is
# slower (ext4's journal, caches), by up to 10 % of its later runs.
for fs in $(fs_list); do
	for scen in $SCENARIOS; do
		on_fs "$fs" "$scen" || continue
		faultlat -n "$PAGES" $(scenario_args "$scen") -f "/mnt/$fs/gate" >/dev/null 2>/tmp/e ||
			fail "faultlat $fs $scen: $(head -n 1 /tmp/e)"
	done
done
: >/tmp/samples.txt
round=1
while [ $round -le "$ROUNDS" ]; do
	for fs in $(fs_list); do
		for scen in $(rotate $round $SCENARIOS); do
			on_fs "$fs" "$scen" || continue
			settle
			on_cpu0 faultlat -n "$PAGES" $(scenario_args "$scen") -f "/mnt/$fs/gate" \
				--samples-out /tmp/s.txt >/dev/null 2>/tmp/e || fail "faultlat $fs $scen: $(head -n 1 /tmp/e)"
			echo "$fs $scen $round $(cat /tmp/s.txt)" >>/tmp/samples.txt
		done
		# The tool's own cost: the same faults under daxlat, row SCENARIO+daxlat.
		for scen in $TOOL_SCENARIOS; do
			settle
			on_cpu0 $DAXLAT -c "faultlat -n $PAGES $(scenario_args "$scen") -f /mnt/$fs/gate --samples-out /tmp/s.txt >/dev/null" \
				>/dev/null 2>/tmp/e || fail "$DAXLAT $fs $scen: $(head -n 1 /tmp/e)"
			echo "$fs $scen+daxlat $round $(cat /tmp/s.txt)" >>/tmp/samples.txt
		done
	done
	echo "round $round of $ROUNDS done"
	round=$((round + 1))
done
# The phases, after the rounds: daxlat's probes must not weigh on the
# user-space samples. One daxlat per scenario, over both filesystems (it
# keys its samples by filesystem); loading it costs seconds of guest time.
if [ "$PHASES" = 1 ]; then
	for scen in $SCENARIOS; do
		# Without MAP_SYNC, or on written blocks, no fault needs a sync.
		[ "$(scenario_field "$scen" sync)" = sync ] && [ "$(scenario_field "$scen" state)" != prealloc ] || continue
		: >/tmp/pcmd
		for fs in $(fs_list); do
			on_fs "$fs" "$scen" || continue
			echo "faultlat -n $PAGES $(scenario_args "$scen") -f /mnt/$fs/gate >/dev/null" >>/tmp/pcmd
		done
		settle
		on_cpu0 daxlat -c "sh -e /tmp/pcmd" --samples-out /tmp/p.txt >/dev/null 2>/tmp/e ||
			fail "daxlat $scen: $(head -n 1 /tmp/e)"
		awk -v s="$scen" '{ printf "%s %s:%s 1", $1, s, $2; for (i = 3; i <= NF; i++) printf " %s", $i; print "" }' \
			/tmp/p.txt >>/tmp/samples.txt
		# A run of its own: the scheduler's hooks must not weigh on the phases.
		if [ "${BREAKDOWN:-0}" = 1 ]; then
			settle
			on_cpu0 daxlat -c "sh -e /tmp/pcmd" --breakdown --breakdown-out /tmp/bd.txt \
				--folded /tmp/fold.txt >/dev/null 2>/tmp/e || fail "daxlat --breakdown $scen: $(head -n 1 /tmp/e)"
			emit "breakdown-$scen.txt" /tmp/bd.txt
			emit "folded-$scen.txt" /tmp/fold.txt
		fi
	done
	echo "phases done"
fi
# The delay really applied: its faults counted.
[ "$DELAY_NS" -gt 0 ] && echo "delay_hits=$(cat /sys/module/fault_delay/parameters/hits)" >>/tmp/meta
emit guest-meta.txt /tmp/meta
emit samples.txt /tmp/samples.txt
