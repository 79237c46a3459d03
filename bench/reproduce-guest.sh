#!/bin/sh
# Guest half of 'make reproduce': the cover letter's six scenarios (plus the
# fallocated pair the letter could not tell apart from 'empty') on ext4 and
# xfs. Each scenario runs twice: untraced, for the table compared with the
# seed's; and under daxlat, for the kernel's view of the same faults
# (user-space and kernel figures of that second run belong together).
# Natively (make reproduce TARGET=DIR, native/job.sh): the target's
# filesystem alone, and the conformance matrix on the target.
. "${SUITE:-/suite}/vm/guest/lib.sh"
bench_start reproduce xfs ext4
guest_meta >/tmp/meta
emit guest-meta.txt /tmp/meta
: >/tmp/samples.txt

for fs in $(fs_targets); do
	for scen in $SCENARIOS; do
		set -- -n "$PAGES" -r "$REPS" $(scenario_args "$scen") -f "$(fs_dir "$fs")/bench"
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
# Every fault's latency, in a gate run's format: for the plots (and the
# gate, which can compare two reproduce runs), the tail runs' added below.
[ "${EXTRA:-0}" = 1 ] || { emit samples.txt /tmp/samples.txt; exit 0; }

# The extra tables (EXTRA=1): what MAP_SYNC buys an application, the tail
# under concurrent writers, and the interface conformance matrix.
. "$suite_dir/validate/conformance.sh"
for fs in $(fs_targets); do
	for state in written empty; do
		for pattern in seq rand; do
			persistlat -f "$(fs_dir "$fs")/persist" -s $state -p $pattern -n "$PERSIST_WRITES" --json-out /tmp/p.json \
				--samples-out /tmp/p.s >/tmp/p.txt 2>/tmp/p.err || fail "persistlat -s $state -p $pattern on $fs: $(head -n 1 /tmp/p.err)"
			sed "s/^\([^ ]*\) /1 $fs persist-$state-$pattern-\1 1 /" /tmp/p.s >>/tmp/samples.txt
			emit "$fs/persist/$state-$pattern.txt" /tmp/p.txt
			emit "$fs/persist/$state-$pattern.json" /tmp/p.json
			echo "$fs persist $state $pattern done"
		done
	done
	# 1, 2 and 4 writers, own files and one file, with and without MAP_SYNC,
	# each under daxlat: phases and journal commits of the same faults.
	for sync in sync nosync; do
		for w in 1 2 4; do
			for layout in files one-file; do
				[ $w = 1 ] && [ $layout = one-file ] && continue
				name=tail-$sync-w$w-$layout
				set -- -f "$(fs_dir "$fs")/tail" -s empty -n "$PAGES" -w $w
				[ $layout = one-file ] && set -- "$@" --same-file
				[ $sync = sync ] && set -- "$@" -S
				daxlat --json --samples-out /tmp/t.phases -c "faultlat $* --json-out /tmp/t.json --samples-out /tmp/t.s >/tmp/t.txt" \
					>/tmp/t.kernel.json 2>/tmp/t.err || fail "daxlat -c 'faultlat $*': $(head -n 1 /tmp/t.err)"
				[ -f /tmp/t.phases ] || : >/tmp/t.phases
				emit "$fs/tail/$name.phases.txt" /tmp/t.phases
				rm -f /tmp/t.phases
				emit "$fs/tail/$name.txt" /tmp/t.txt
				emit "$fs/tail/$name.json" /tmp/t.json
				emit "$fs/tail/$name.kernel.json" /tmp/t.kernel.json
				echo "1 $fs $name 1 $(cat /tmp/t.s)" >>/tmp/samples.txt
				echo "$fs $name done"
			done
		done
	done
done
emit samples.txt /tmp/samples.txt
# The matrix makes its own filesystems on both NVDIMMs (natively: probes
# the target alone).
if [ -z "${NATIVE_TARGET:-}" ]; then
	umount /mnt/ext4 && umount /mnt/xfs || fail "umount before the conformance matrix"
	modprobe loop
fi
conformance_run /tmp/cells.txt
emit conformance.txt /tmp/cells.txt
emit conformance-syncorder.txt /tmp/conformance.tap
echo "conformance done"
