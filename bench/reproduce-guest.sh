#!/bin/sh
# Guest half of 'make reproduce': the cover letter's six scenarios (plus the
# fallocated pair the letter could not tell apart from 'empty') on ext4 and
# xfs. Each scenario runs twice: untraced, for the table compared with the
# seed's; and under daxlat, for the kernel's view of the same faults
# (user-space and kernel figures of that second run belong together).
. /suite/vm/guest/lib.sh
bench_start reproduce xfs ext4
guest_meta >/tmp/meta
emit guest-meta.txt /tmp/meta
: >/tmp/samples.txt

for fs in $(fs_list); do
	for scen in $SCENARIOS; do
		set -- -n "$PAGES" -r "$REPS" $(scenario_args "$scen") -f "/mnt/$fs/bench"
		faultlat "$@" --json-out /tmp/out.json --samples-out /tmp/s.txt >/tmp/out.txt || fail "faultlat $* failed"
		echo "1 $fs $scen 1 $(cat /tmp/s.txt)" >>/tmp/samples.txt
		emit "$fs/$scen.txt" /tmp/out.txt
		emit "$fs/$scen.json" /tmp/out.json
		if [ "$KERNEL_VIEW" = 1 ]; then
			daxlat --json -c "faultlat $* --json-out /tmp/traced.json >/tmp/traced.txt" \
				>/tmp/kernel.json 2>/tmp/daxlat.err || fail "daxlat -c 'faultlat $*': $(head -n 1 /tmp/daxlat.err)"
			emit "$fs/traced/$scen.kernel.json" /tmp/kernel.json
			emit "$fs/traced/$scen.json" /tmp/traced.json
			emit "$fs/traced/$scen.txt" /tmp/traced.txt
		fi
		echo "$fs $scen done"
	done
done
# Every fault's latency, in a gate run's format: for the plots.
emit samples.txt /tmp/samples.txt
