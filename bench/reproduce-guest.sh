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
# Scratch files: TMPDIR natively (the runner's output folder), /tmp in the guest.
wt=${TMPDIR:-/tmp}
guest_meta >$wt/meta
emit guest-meta.txt $wt/meta
: >$wt/samples.txt

for fs in $(fs_targets); do
	for scen in $SCENARIOS; do
		set -- -n "$PAGES" -r "$REPS" $(scenario_args "$scen") -f "$(fs_dir "$fs")/bench"
		settle
		on_cpu0 faultlat "$@" --json-out $wt/out.json --samples-out $wt/s.txt >$wt/out.txt || fail "faultlat $* failed"
		echo "1 $fs $scen 1 $(cat $wt/s.txt)" >>$wt/samples.txt
		emit "$fs/$scen.txt" $wt/out.txt
		emit "$fs/$scen.json" $wt/out.json
		if [ "$KERNEL_VIEW" = 1 ]; then
			settle
			on_cpu0 daxlat --json --phases -c "faultlat $* --json-out $wt/traced.json >$wt/traced.txt" \
				>$wt/kernel.json 2>$wt/daxlat.err || fail "daxlat -c 'faultlat $*': $(head -n 1 $wt/daxlat.err)"
			emit "$fs/traced/$scen.kernel.json" $wt/kernel.json
			emit "$fs/traced/$scen.json" $wt/traced.json
			emit "$fs/traced/$scen.txt" $wt/traced.txt
		fi
		echo "$fs $scen done"
	done
done
# Every fault's latency, in a gate run's format: for the plots (and the
# gate, which can compare two reproduce runs), the tail runs' added below.
[ "${EXTRA:-0}" = 1 ] || { emit samples.txt $wt/samples.txt; exit 0; }

# The extra tables (EXTRA=1): what MAP_SYNC buys an application, the tail
# under concurrent writers, and the interface conformance matrix.
. "$suite_dir/validate/conformance.sh"
for fs in $(fs_targets); do
	for state in written empty; do
		for pattern in seq rand; do
			persistlat -f "$(fs_dir "$fs")/persist" -s $state -p $pattern -n "$PERSIST_WRITES" --json-out $wt/p.json \
				--samples-out $wt/p.s >$wt/p.txt 2>$wt/p.err || fail "persistlat -s $state -p $pattern on $fs: $(head -n 1 $wt/p.err)"
			sed "s/^\([^ ]*\) /1 $fs persist-$state-$pattern-\1 1 /" $wt/p.s >>$wt/samples.txt
			emit "$fs/persist/$state-$pattern.txt" $wt/p.txt
			emit "$fs/persist/$state-$pattern.json" $wt/p.json
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
				daxlat --json --samples-out $wt/t.phases -c "faultlat $* --json-out $wt/t.json --samples-out $wt/t.s >$wt/t.txt" \
					>$wt/t.kernel.json 2>$wt/t.err || fail "daxlat -c 'faultlat $*': $(head -n 1 $wt/t.err)"
				[ -f $wt/t.phases ] || : >$wt/t.phases
				emit "$fs/tail/$name.phases.txt" $wt/t.phases
				rm -f $wt/t.phases
				emit "$fs/tail/$name.txt" $wt/t.txt
				emit "$fs/tail/$name.json" $wt/t.json
				emit "$fs/tail/$name.kernel.json" $wt/t.kernel.json
				echo "1 $fs $name 1 $(cat $wt/t.s)" >>$wt/samples.txt
				echo "$fs $name done"
			done
		done
	done
done
# Real clients (issue 32): PMDK's transactions (pmemobj-array: 1000 in 4
# threads) and Debian's fio (511 random 4 KiB writes, the clients job's
# pattern), each MAP_SYNC and not, each under daxlat: what they decided, the
# latency per operation they report, and their time in synchronous faults.
# client_run FS NAME CMD: CMD under daxlat --json; FS/clients/NAME.out is
# CMD's stdout, NAME.kernel.json daxlat's, NAME.wall its seconds (uptime).
client_run() {
	_t0=$(cut -d' ' -f1 /proc/uptime)
	daxlat --json --phases -c "$3 >$wt/c.out 2>$wt/c.err" >$wt/c.kernel.json 2>$wt/c.derr ||
		fail "daxlat -c '$3': $(head -n 1 $wt/c.derr) $(head -n 1 $wt/c.err)"
	_t1=$(cut -d' ' -f1 /proc/uptime)
	awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.2f\n", b - a }' >$wt/c.wall
	emit "$1/clients/$2.out" $wt/c.out
	emit "$1/clients/$2.kernel.json" $wt/c.kernel.json
	emit "$1/clients/$2.wall" $wt/c.wall
	echo "$1 clients $2 done"
}
why=$(fio_unpack $wt) || fail "fio: $why"
echo "clients: $why"
for fs in $(fs_targets); do
	d=$(fs_dir "$fs")
	for m in sync nosync; do
		set -- -f "$d/pool" -n 1000 -t 4
		[ $m = nosync ] && set -- "$@" --no-map-sync
		client_run "$fs" pmdk-$m "pmemobj-array $*"
	done
	fio_cmd="fio --name=w --filename=$d/fio --rw=randwrite --bs=4k --size=2044k --output-format=json"
	for run in "libpmem --ioengine=libpmem" "mmap --ioengine=mmap" "mmap-fdatasync --ioengine=mmap --fdatasync=1"; do
		# An empty file for mmap (fio would write it out first); libpmem
		# writes the whole file itself before its job (prepopulate_file).
		rm -f "$d/fio" && truncate -s 2044k "$d/fio" || fail "truncate $d/fio"
		client_run "$fs" "fio-${run%% *}" "$fio_cmd ${run#* }"
	done
	rm -f "$d/fio"
done
emit samples.txt $wt/samples.txt
# The matrix makes its own filesystems on both NVDIMMs (natively: probes
# the target alone).
if [ -z "${NATIVE_TARGET:-}" ]; then
	umount /mnt/ext4 && umount /mnt/xfs || fail "umount before the conformance matrix"
	modprobe loop
fi
conformance_run $wt/cells.txt
emit conformance.txt $wt/cells.txt
emit conformance-syncorder.txt $wt/conformance.tap
echo "conformance done"
