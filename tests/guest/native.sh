#!/bin/sh
# Guest job: native mode (native/job.sh) tested for real, the guest standing
# in for a host with persistent memory: its entry point refuses what is not
# DAX (tmpfs, ext4 on a loop device, xfs on pmem mounted without -o dax, no
# directory) with one line and its exit code, leaving nothing; runs make
# check's native job on ext4 -o dax and make reproduce's guest half on xfs
# -o dax; leaves the target as it found it; a native check killed midway
# (SIGINT, SIGTERM, SIGKILL) leaves the user's files byte-identical and
# nothing of its own (after a killed process tree, the next run cleans up);
# and its watchdog stops a hung job's whole process tree. One KTAP document.
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
PATH=/job/bin:$PATH
NATIVE=/suite/native/job.sh
export BINDIR=/job/bin

ktap_plan_checks "$0"
# The kills (below): NAME HOW WHEN RC SETTLE, see run_kill.
KILLS='sigint:INT:bench_:130:0 ctrlc:make-INT:daxlat_sync_counts:-:10 sigterm:TERM:target_dax_map_sync:130:0 sigkill:KILL:daxlat_sync_counts:137:10'
for k in $KILLS; do
	n=${k%%:*}
	ktap_plan native_${n}_stopped_midway native_${n}_nothing_running native_${n}_user_files_intact \
		native_${n}_no_work_folder native_${n}_nothing_mounted
	case $k in *:KILL:*) ktap_plan native_${n}_guard_cleaned ;; esac
done
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

# The host's /tmp is the user's: a native run keeps its scratch files in
# its output folder (TMPDIR); the names the job scripts use in the guest's
# /tmp (samples.txt, meta, out.json, cells.txt, conformance.*) are left alone.
HOST_TMP="samples.txt meta out.json cells.txt"
for f in $HOST_TMP; do echo "user's $f" >/tmp/$f; done
rm -f /tmp/conformance.*
host_tmp_untouched() {
	for f in $HOST_TMP; do
		[ "$(cat /tmp/$f 2>/dev/null)" = "user's $f" ] || { echo "/tmp/$f: $(head -c 60 /tmp/$f 2>/dev/null || echo gone)"; return 1; }
	done
	! ls /tmp/conformance.* >/dev/null 2>&1 || { echo "left: $(ls /tmp/conformance.* | tr '\n' ' ')"; return 1; }
}

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
ktap_check native_leaves_host_tmp_alone host_tmp_untouched

# Killed midway (issue 30): a target that already holds the user's files
# (random content, a subfolder, symlinks, a file and a folder named like
# the suite's work folders), a native check stopped at some point of its
# run by SIGINT (to the runner; to a make-like parent's process group, as
# Ctrl-C at a terminal), SIGTERM and SIGKILL (the runner alone; the runner
# and its guard at once, as a killed process tree): every user file stays
# byte-identical, and no work folder, process, mount, BPF pin or kprobe of
# the suite is left; after the tree kill the next run says what it found
# and removes only its own.
user_files() {
	u=/mnt/ext4
	mkdir -p $u/sub/deeper $u/.mapsync-native.mine &&
		head -c 1048576 /dev/urandom >$u/data.bin && head -c 37000 /dev/urandom >$u/sub/part.bin &&
		head -c 4096 /dev/urandom >$u/sub/deeper/page.bin && echo "notes" >$u/sub/notes.txt &&
		echo "the user's, not the suite's" >$u/.mapsync-native.user1 &&
		head -c 5000 /dev/urandom >$u/.mapsync-native.mine/keep &&
		ln -s sub/part.bin $u/link && ln -s sub $u/.mapsync-native.link || return 1
	(cd $u && find . -type f | sort | xargs sha256sum) >/tmp/user.sha256
	user_listing >/tmp/user.find
	cat /proc/mounts >/tmp/mounts.before
	suite_traces >/tmp/traces.before
	[ "$(wc -l </tmp/user.sha256)" -ge 7 ] || { echo "sums: $(cat /tmp/user.sha256)"; return 1; }
}
# user_listing: every path of the target with its type and link target.
user_listing() {
	(cd /mnt/ext4 && find . | sort | while read -r p; do
		if [ -L "$p" ]; then echo "$p -> $(readlink "$p")"; elif [ -d "$p" ]; then echo "$p/"; else echo "$p"; fi
	done)
}
# suite_traces: BPF pins and kprobe/uprobe events (a killed tool's must go).
suite_traces() {
	ls -A /sys/fs/bpf
	cat /sys/kernel/tracing/kprobe_events /sys/kernel/tracing/uprobe_events 2>/dev/null
}
# job_procs: what of a native job is still running: its tools, its shell,
# its runner, guard and progress, anything started with its NATIVE_TARGET
# (ps first: the awk's own arguments are not in its list).
job_procs() {
	ps -o pid,args >/tmp/ps.txt
	grep -l -s -z '^NATIVE_TARGET=' /proc/[0-9]*/environ | cut -d/ -f3 >/tmp/ps.env
	awk 'FILENAME == "/tmp/ps.env" { env[$1] = 1; next }
		FNR > 1 && (env[$1] || $2 $3 == "sh./run" || $0 ~ /faultlat|persistlat|daxlat|syncorder|syncstress|mapconform|native\/job\.sh|results\.raw/)' \
		/tmp/ps.env /tmp/ps.txt
}
# runner_pid OUT: the native/job.sh process writing to OUT (not a subshell
# of it, which has its arguments); guard_pid PID: its guard's.
runner_pid() {
	ps -o pid,ppid,args | awk -v j=$NATIVE -v o="$1" '$3 == "sh" && $4 == j && $5 == "--target" && $8 == o { p[$1] = $2 }
		END { for (i in p) if (!(p[i] in p)) print i }'
}
guard_pid() {
	ps -o pid,args | awk -v j=$NATIVE -v r="$1" '$2 == "sh" && $3 == j && $4 == "--guard" && $5 == r { print $1 }'
}
# killer NAME HOW WHEN: once a result line matching WHEN is in the run's
# results and a tool of the next test runs (writing to the target; under
# daxlat's or syncorder's -c, in a process group of its own), or 3 s on,
# HOW: INT, TERM or KILL to the runner, make-INT to its parent's process
# group, KILL-guard to the runner and its guard; what was running then goes
# to /tmp/kill-NAME.running.
killer() {
	o=/tmp/native-k$1 i=0
	until grep -q "^ok [0-9]* $3" $o/results.raw 2>/dev/null && r=$(runner_pid $o) && [ -n "$r" ]; do
		[ $i -lt 600 ] || { echo "no '$3' in 300 s"; return 1; }
		sleep 0.5; i=$((i + 1))
	done
	i=0
	until job_procs >/tmp/kill-$1.running && grep -q -E ' (faultlat|syncstress|mapconform|persistlat) ' /tmp/kill-$1.running ||
		[ $i -ge 6 ]; do
		sleep 0.5; i=$((i + 1))
	done
	echo "$r" >/tmp/kill-$1.pid
	case $2 in
	make-INT) kill -INT "-$(sed 's/.*) //' /proc/$r/stat | cut -d' ' -f3)" ;;
	KILL-guard) kill -KILL $r $(guard_pid $r) ;;
	*) kill -$2 $r ;;
	esac
}
# killed NAME HOW WHEN RC: the native check on ext4, stopped by killer NAME
# HOW WHEN, exits RC (- for any) in the foreground (an asynchronous command
# would ignore SIGINT), with a make-like parent for make-INT.
killed() {
	rm -rf /tmp/native-k$1
	killer "$1" "$2" "$3" >/tmp/kill-$1.killer 2>&1 &
	k=$!
	run="sh $NATIVE --target /mnt/ext4 /suite/tests/native/check.sh /tmp/native-k$1 --timeout 900"
	if [ "$2" = make-INT ]; then
		setsid sh -c "$run; echo 'make: *** [check-native] Interrupt'" >/tmp/kill-$1.out 2>/tmp/kill-$1.err
	else
		$run >/tmp/kill-$1.out 2>/tmp/kill-$1.err
	fi
	rc=$?
	wait $k || { echo "not killed: $(cat /tmp/kill-$1.killer); exit $rc, $(grep -c '^ok' /tmp/native-k$1/results.raw) ok"; return 1; }
	[ "$4" = - ] || [ "$rc" = "$4" ] || { echo "exit $rc, want $4: $(head -c 300 /tmp/kill-$1.err)"; return 1; }
}
# killed_at NAME: a diagnostic: when the run was stopped, what ran then.
killed_at() {
	ktap_diag "$1: killed after $(grep -c '^ok' /tmp/native-k$1/results.raw 2>/dev/null) results, running:" \
		"$(awk '{ print $2 }' /tmp/kill-$1.running 2>/dev/null | sort | uniq -c | tr -s ' \n' '  ')"
}
# settled S: within S seconds nothing of a native job runs any more.
settled() {
	i=0
	while left=$(job_procs) && [ -n "$left" ]; do
		[ $i -lt $(($1 * 2)) ] || { echo "after ${1}s still running: $(echo "$left" | head -n 8 | tr '\n' ';')"; return 1; }
		sleep 0.5; i=$((i + 1))
	done
}
user_files_intact() {
	bad=$(cd /mnt/ext4 && sha256sum -c /tmp/user.sha256 2>&1 | grep -v ': OK$')
	[ -z "$bad" ] || { echo "not as they were: $bad"; return 1; }
	user_listing | diff /tmp/user.find - >/tmp/listing.diff ||
		{ echo "the listing differs: $(grep '^[-+][^-+]' /tmp/listing.diff | head -n 8 | tr '\n' ' ')"; return 1; }
}
# ours_left: the .mapsync-native.* entries of the target the user did not make.
ours_left() {
	ls -d /mnt/ext4/.mapsync-native.* | grep -v -x -e /mnt/ext4/.mapsync-native.mine \
		-e /mnt/ext4/.mapsync-native.user1 -e /mnt/ext4/.mapsync-native.link
}
no_work_folder() {
	left=$(ours_left)
	[ -z "$left" ] || { echo "left: $left: $(ls -A $left | head -n 8 | tr '\n' ' ')"; return 1; }
}
nothing_mounted() {
	cat /proc/mounts | diff /tmp/mounts.before - >/tmp/m.diff || { echo "mounts: $(grep '^[-+][^-+]' /tmp/m.diff | tr '\n' ' ')"; return 1; }
	suite_traces | diff /tmp/traces.before - >/tmp/t.diff ||
		{ echo "BPF pins, probes: $(grep '^[-+][^-+]' /tmp/t.diff | tr '\n' ' ')"; return 1; }
}
# guard_said NAME: after SIGKILL, the runner's guard cleaned up and said so.
guard_said() {
	grep -q "^native/job.sh: the runner (pid $(cat /tmp/kill-$1.pid)) was killed: stopped [1-9][0-9]* processes of its job, removed /mnt/ext4/.mapsync-native" \
		/tmp/kill-$1.err || { echo "its stderr: $(tail -n 3 /tmp/kill-$1.err)"; return 1; }
}
# tree_left: the runner and its guard killed at once leave the job running
# and its folder (else the next run has nothing to find).
tree_left() {
	w=$(ours_left)
	[ -d "$w" ] && [ -n "$(job_procs)" ] || { echo "folder '$w', running: $(job_procs | head -n 3)"; return 1; }
	echo "$w" >/tmp/tree.work
}
# next_run: its first lines say what it found: the folder of the killed run
# (its job stopped, the folder removed) and the user's look-alike folder
# (left alone); nothing about the user's file and symlink.
next_run() {
	printf '#!/bin/sh\necho "KTAP version 1"\necho "1..1"\necho "ok 1 quick"\n' >/tmp/quick.sh
	sh $NATIVE --target /mnt/ext4 /tmp/quick.sh /tmp/native-next --timeout 120 >/tmp/next.out 2>&1 ||
		{ echo "exit $?: $(head -c 300 /tmp/next.out)"; return 1; }
	sed '/working in/,$d' /tmp/next.out >/tmp/next.head
	grep -q "^native: $(cat /tmp/tree.work): left by a native run (pid $(cat /tmp/kill-tree.pid), started [^)]*): stopped [1-9][0-9]* of its processes, removed it\$" /tmp/next.head &&
		grep -q "^native: /mnt/ext4/.mapsync-native.mine: no owner record: not the suite's, left alone\$" /tmp/next.head &&
		[ "$(wc -l </tmp/next.head)" = 2 ] || { echo "its first lines: $(cat /tmp/next.head)"; return 1; }
}
# run_kill NAME HOW WHEN RC SETTLE: one kill and the checks after it (its
# runner's processes gone within SETTLE seconds of the run's end).
run_kill() {
	ktap_check native_$1_stopped_midway killed "$1" "$2" "$3" "$4"
	killed_at $1
	ktap_check native_$1_nothing_running settled "$5"
	[ "$2" != KILL ] || { ktap_check native_$1_guard_cleaned guard_said $1; ktap_diag "$(grep "was killed" /tmp/kill-$1.err)"; }
	for c in user_files_intact no_work_folder nothing_mounted; do ktap_check native_$1_$c $c; done
}
ktap_check user_files_in_target user_files
for k in $KILLS; do run_kill $(echo "$k" | tr : ' '); done
ktap_check native_tree_stopped_midway killed tree KILL-guard mapsync_accepted 137
killed_at tree
ktap_check native_tree_left_job_and_folder tree_left
ktap_check native_next_run_says_what_it_found next_run
ktap_diag "the next run said: $(tr '\n' ';' </tmp/next.head)"
ktap_check native_next_run_nothing_running settled 10
ktap_check native_next_run_user_files_intact user_files_intact
ktap_check native_next_run_no_work_folder no_work_folder
ktap_check native_next_run_nothing_mounted nothing_mounted

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
ktap_check native_reproduce_leaves_host_tmp_alone host_tmp_untouched

# The watchdog: a job that hangs (and its child) is stopped, 124.
native_watchdog() {
	printf '#!/bin/sh\nsleep 300 &\nsleep 301\n' >/tmp/hang.sh
	sh $NATIVE --target /mnt/xfs /tmp/hang.sh /tmp/native-hang --timeout 3 >/dev/null 2>/tmp/h.err
	rc=$?
	[ "$rc" = 124 ] || { echo "exit $rc, want 124: $(cat /tmp/h.err)"; return 1; }
	sleep 1
	[ -z "$(job_procs)" ] || { echo "left running: $(job_procs | tr '\n' ';')"; return 1; }
	! ls -d /mnt/xfs/.mapsync-native.* >/dev/null 2>&1 || { echo "left its work folder"; return 1; }
}
ktap_check native_watchdog_stops_tree native_watchdog

# A DAX-capable device mounted without -o dax: the commonest lab mistake.
xfs_without_dax() { umount /mnt/xfs && mkdir -p /mnt/xfs-nodax && mount -t xfs /dev/pmem1 /mnt/xfs-nodax; }
ktap_check xfs_remounted_without_dax xfs_without_dax
ktap_check native_refuses_xfs_without_dax refused 3 'not DAX' /mnt/xfs-nodax
ktap_finish
