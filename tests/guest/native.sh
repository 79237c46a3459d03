#!/bin/sh
# Guest job: native mode (native/job.sh) tested for real, the guest standing
# in for a host with persistent memory: its entry point refuses what is not
# DAX (tmpfs, ext4 on a loop device, xfs on pmem mounted without -o dax, no
# directory) with one line and its exit code, leaving nothing; runs make
# check's native job on ext4 -o dax and make reproduce's guest half on xfs
# -o dax; leaves the target as it found it; and its watchdog stops a hung
# job's whole process tree. One KTAP document.
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
PATH=/job/bin:$PATH
NATIVE=/suite/native/job.sh
export BINDIR=/job/bin

ktap_plan_checks "$0"
ktap_start
ktap_diag "kernel $(uname -r)"
ktap_check pmem_namespaces_fsdax pmem_expect 2
ktap_check xfs_mount_dax fs_setup xfs /dev/pmem1
ktap_check ext4_mount_dax fs_setup ext4 /dev/pmem0
modprobe loop

# refused CODE PATTERN TARGET: native/job.sh exits CODE with one stderr
# line matching PATTERN, and makes neither its output folder nor a work
# folder in TARGET.
refused() {
	code=$1 pattern=$2 target=$3
	rm -rf /tmp/refused
	sh $NATIVE --target "$target" /suite/tests/native/check.sh /tmp/refused >/tmp/r.out 2>/tmp/r.err
	rc=$?
	[ "$rc" = "$code" ] || { echo "exit $rc, want $code: $(cat /tmp/r.err)"; return 1; }
	[ "$(wc -l </tmp/r.err)" = 1 ] && grep -q -- "$pattern" /tmp/r.err || { echo "stderr: $(cat /tmp/r.err)"; return 1; }
	[ ! -e /tmp/refused ] || { echo "made /tmp/refused"; return 1; }
	! ls -d "$target"/.mapsync-native.* >/dev/null 2>&1 || { echo "left a work folder in $target"; return 1; }
}
nondax_ext4() {
	truncate -s 64M /tmp/nondax.img && mkfs.ext4 -F -q /tmp/nondax.img && mkdir -p /mnt/nondax &&
		mount -t ext4 -o loop /tmp/nondax.img /mnt/nondax
}
ktap_check native_refuses_tmpfs refused 3 'not DAX' /tmp
ktap_check nondax_ext4_mounted nondax_ext4
ktap_check native_refuses_nondax_ext4 refused 3 'not DAX' /mnt/nondax
ktap_check native_refuses_missing_dir refused 2 'No such file' /mnt/none
ktap_check native_refuses_file refused 2 'not a directory' /tmp/nondax.img
umount /mnt/nondax

# native_check: make check's native job on ext4 -o dax: every test ok but
# the crash test, skipped with its reason; the target left as it was.
native_check() {
	echo precious >/mnt/ext4/theirs
	ls -a /mnt/ext4 >/tmp/before
	sh $NATIVE --target /mnt/ext4 /suite/tests/native/check.sh /tmp/native-ext4 --timeout 900 >/tmp/n.out 2>/tmp/n.err
	rc=$?
	r=/tmp/native-ext4/results.txt
	[ -s $r ] || { echo "exit $rc, no results.txt: $(tail -n 3 /tmp/n.err)"; return 1; }
	[ "$rc" = 0 ] || { echo "exit $rc: $(grep '^not ok' $r | head -n 5) $(head -c 300 /tmp/n.err)"; return 1; }
	[ "$(grep -c '^not ok ' $r)" = 0 ] && [ "$(grep -c '^ok ' $r)" -ge 20 ] || { echo "$(grep -c '^ok ' $r) ok"; return 1; }
	grep -q '^ok [0-9]* crash_test # SKIP needs the VM' $r || { echo "crash test: $(grep crash_test $r)"; return 1; }
	[ "$(grep -c '# SKIP' $r)" = 1 ] || { echo "other skips: $(grep '# SKIP' $r)"; return 1; }
}
ktap_check native_check_ext4 native_check
r=/tmp/native-ext4/results.txt
ktap_diag "native check: $(grep -c '^ok ' $r) ok, $(grep -c '^not ok ' $r) not ok; $(grep '^# native:' $r | cut -c 3-)"
ktap_diag "$(grep -E '^# (syncorder:|persist |commits:)' $r | cut -c 3- | tr '\n' ';')"
target_untouched() {
	ls -a /mnt/ext4 | cmp -s - /tmp/before && [ "$(cat /mnt/ext4/theirs)" = precious ] ||
		{ echo "now: $(ls -a /mnt/ext4 | tr '\n' ' ')"; return 1; }
}
ktap_check native_leaves_target_as_found target_untouched

# make reproduce's guest half on xfs -o dax, natively: the tables' files
# for xfs alone, the kernel's view too.
native_reproduce() {
	printf "PAGES=16\nREPS=1\nKERNEL_VIEW=1\nSCENARIOS='empty-none-sync prealloc-none-nosync'\nEXTRA=0\n" >/tmp/job.env
	sh $NATIVE --target /mnt/xfs --file /tmp/job.env /suite/bench/reproduce-guest.sh /tmp/native-rep --timeout 600 \
		>/tmp/nr.out 2>/tmp/nr.err || { echo "exit $?: $(tail -n 3 /tmp/nr.err)"; return 1; }
	f=/tmp/native-rep/files
	for x in xfs/empty-none-sync.json xfs/traced/empty-none-sync.kernel.json xfs/prealloc-none-nosync.txt samples.txt guest-meta.txt; do
		[ -s "$f/$x" ] || { echo "no $x: $(cd $f && find . -type f | head -n 20 | tr '\n' ' ')"; return 1; }
	done
	[ ! -e "$f/ext4" ] || { echo "ext4 tables from an xfs target"; return 1; }
	jq -e '.faults == 16' "$f/xfs/empty-none-sync.json" >/dev/null &&
		jq -e '.counters.needdsync == 16' "$f/xfs/traced/empty-none-sync.kernel.json" >/dev/null ||
		{ echo "figures: $(head -c 200 "$f/xfs/empty-none-sync.json")"; return 1; }
}
ktap_check native_reproduce_xfs native_reproduce

# The watchdog: a job that hangs (and its child) is stopped, 124.
native_watchdog() {
	printf '#!/bin/sh\nsleep 300 &\nsleep 301\n' >/tmp/hang.sh
	sh $NATIVE --target /mnt/xfs /tmp/hang.sh /tmp/native-hang --timeout 3 >/dev/null 2>/tmp/h.err
	rc=$?
	[ "$rc" = 124 ] || { echo "exit $rc, want 124: $(cat /tmp/h.err)"; return 1; }
	sleep 1
	! pgrep -f 'sleep 30[01]' >/dev/null || { echo "left running: $(pgrep -af 'sleep 30[01]')"; return 1; }
	! ls -d /mnt/xfs/.mapsync-native.* >/dev/null 2>&1 || { echo "left its work folder"; return 1; }
}
ktap_check native_watchdog_stops_tree native_watchdog

# A DAX-capable device mounted without -o dax: the commonest lab mistake.
xfs_without_dax() { umount /mnt/xfs && mkdir -p /mnt/xfs-nodax && mount -t xfs /dev/pmem1 /mnt/xfs-nodax; }
ktap_check xfs_remounted_without_dax xfs_without_dax
ktap_check native_refuses_xfs_without_dax refused 3 'not DAX' /mnt/xfs-nodax
ktap_finish
