#!/bin/sh
# Guest half of 'make overhead': the same faultlat run bare, under daxlat,
# daxlat --phases, daxlat --breakdown, syncorder and libbpf-tools' funclatency on dax_iomap_fault (the peer a user
# would reach for), in one boot, the order rotated every round so that a
# drift falls on every mode alike. WARMUP rounds come first and are marked
# (the host leaves them out of the medians and shows them per round).
# One line per run: "R SCENARIO MODE ROUND MEDIAN_NS AVG_NS FAULTS".
. /suite/vm/guest/lib.sh
# xfs too: syncorder needs xfs.ko's BTF to load (its programs have xfs paths).
bench_start overhead xfs ext4
guest_meta >/tmp/meta
emit guest-meta.txt /tmp/meta
MODES="plain daxlat phases funclatency syncorder breakdown"
NMODES=$(echo $MODES | wc -w)

measure() { # SCENARIO MODE ROUND ARGS...
	scen=$1 mode=$2 round=$3; shift 3
	settle
	case $mode in
	daxlat | phases | breakdown)
		# shellcheck disable=SC2046
		on_cpu0 daxlat --json $([ $mode = daxlat ] || echo --$mode) -c "sleep $ATTACH_WAIT_S; faultlat $* --json-out /tmp/o.json >/dev/null" >/tmp/k.json 2>/tmp/e ||
			fail "daxlat: $(head -n 1 /tmp/e)"
		# A traced run that missed its faults would measure nothing.
		jq -e '.counters.dax_iomap_fault > 0' /tmp/k.json >/dev/null || fail "daxlat saw no faults"
		;;
	syncorder)
		# The ordering checker: every hook its check needs, on the same faults.
		# 15: nothing to judge (no synchronous fault in the scenario).
		on_cpu0 syncorder --json-out /tmp/so.json -c "sleep $ATTACH_WAIT_S; faultlat $* --json-out /tmp/o.json >/dev/null" >/dev/null 2>/tmp/e
		rc=$?
		[ $rc = 0 ] || [ $rc = 15 ] || fail "syncorder exit $rc: $(grep -v '^$' /tmp/e | head -n 1)"
		;;
	funclatency)
		funclatency -u dax_iomap_fault >/tmp/fl.txt 2>/tmp/fl.err &
		flpid=$!
		tracer_attached $flpid dax_iomap_fault >/dev/null || { kill -INT $flpid; fail "funclatency did not attach: $(head -n 1 /tmp/fl.err)"; }
		after_attach
		on_cpu0 faultlat "$@" --json-out /tmp/o.json >/dev/null 2>/tmp/e || { kill -INT $flpid; fail "faultlat: $(head -n 1 /tmp/e)"; }
		kill -INT $flpid
		wait $flpid || fail "funclatency exit $?: $(head -n 1 /tmp/fl.err)"
		n=$(awk '$2 == "->" && $4 == ":" { s += $5 } END { print s + 0 }' /tmp/fl.txt)
		[ "$n" -ge "$(jq .faults /tmp/o.json)" ] || fail "funclatency counted $n faults, faultlat made $(jq .faults /tmp/o.json)"
		;;
	*)
		after_attach
		on_cpu0 faultlat "$@" --json-out /tmp/o.json >/dev/null 2>/tmp/e || fail "faultlat: $(head -n 1 /tmp/e)"
		;;
	esac
	jq -r --arg s "$scen" --arg m "$mode" --arg r "$round" '"R \($s) \($m) \($r) \(.median) \(.avg) \(.faults)"' /tmp/o.json
}

for scen in $SCENARIOS; do
	set -- -n "$PAGES" $(scenario_args "$scen") -f /mnt/ext4/bench
	round=$((1 - WARMUP))	# rounds <= 0 are the warm-up
	while [ $round -le "$ROUNDS" ]; do
		# plain daxlat phases ..., daxlat phases ... plain, ...
		shift_by=$(( (round + WARMUP) % NMODES )) order=$MODES
		while [ $shift_by -gt 0 ]; do order="${order#* } ${order%% *}"; shift_by=$((shift_by - 1)); done
		for mode in $order; do measure "$scen" $mode $round "$@"; done
		round=$((round + 1))
	done
done
# Where daxlat --phases spends it: each program's runs and run time, as the
# kernel counts them, once per scenario (statistics on: not in the medians).
for scen in $SCENARIOS; do
	settle
	on_cpu0 daxlat --json --phases --prog-stats -c "faultlat -n $PAGES $(scenario_args "$scen") -f /mnt/ext4/bench >/dev/null" \
		>/tmp/k.json 2>/tmp/e || fail "daxlat --prog-stats: $(head -n 1 /tmp/e)"
	jq -r --arg s "$scen" '.prog_stats[] | select(.runs > 0) | "P \($s) \(.prog) \(.runs) \(.run_time_ns)"' /tmp/k.json
done
