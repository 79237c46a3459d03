#!/bin/sh
# Guest half of 'make overhead': the same faultlat run with and without
# daxlat attached, alternating (ABBA) within one boot so drift cancels out.
# One line per run: "R SCENARIO MODE ROUND MEDIAN_NS AVG_NS FAULTS".
. /suite/vm/guest/lib.sh
bench_start overhead ext4
guest_meta >/tmp/meta
emit guest-meta.txt /tmp/meta

measure() { # SCENARIO MODE ROUND ARGS...
	scen=$1 mode=$2 round=$3; shift 3
	if [ "$mode" = traced ]; then
		daxlat --json -c "faultlat $* --json-out /tmp/o.json >/dev/null" >/tmp/k.json 2>/tmp/e ||
			fail "daxlat: $(head -n 1 /tmp/e)"
		# A traced run that missed its faults would measure nothing.
		jq -e '.counters.dax_iomap_fault > 0' /tmp/k.json >/dev/null || fail "daxlat saw no faults"
	else
		faultlat "$@" --json-out /tmp/o.json >/dev/null 2>/tmp/e || fail "faultlat: $(head -n 1 /tmp/e)"
	fi
	jq -r --arg s "$scen" --arg m "$mode" --arg r "$round" '"R \($s) \($m) \($r) \(.median) \(.avg) \(.faults)"' /tmp/o.json
}

for scen in $SCENARIOS; do
	set -- -n "$PAGES" $(scenario_args "$scen") -f /mnt/ext4/bench
	round=1
	while [ $round -le "$ROUNDS" ]; do
		if [ $((round % 2)) = 1 ]; then first=plain second=traced; else first=traced second=plain; fi
		measure "$scen" $first $round "$@"
		measure "$scen" $second $round "$@"
		round=$((round + 1))
	done
done
