#!/bin/sh
# Host tests of native mode's refusal (native/, issue 14): this host has no
# DAX filesystem, so daxcheck, native/job.sh and make check TARGET= must all
# refuse with one line and their exit code (3 not DAX, 2 no directory or
# bad usage), before anything is made. tests/guest/native.sh runs native
# mode for real in the VM.
# Usage: test-native.sh [BINDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.output/bin}
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-native.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/plain"
: >"$tmp/file"

# refuses CODE PATTERN COMMAND...: exit CODE, nothing on stdout, one stderr
# line matching PATTERN.
refuses() {
	code=$1 pattern=$2; shift 2
	timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$code" ] || { echo "$* exit $rc, want $code: $(head -c 300 "$tmp/err")"; return 1; }
	[ ! -s "$tmp/out" ] || { echo "stdout: $(head -c 200 "$tmp/out")"; return 1; }
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$pattern" "$tmp/err" || { echo "stderr: $(cat "$tmp/err")"; return 1; }
}
# nothing_made: the refusals made no output folder and no work folder.
nothing_made() {
	[ ! -e "$tmp/out-dir" ] || { echo "made the output folder"; return 1; }
	[ "$(ls -A "$tmp/plain")" = "" ] || { echo "left in the target: $(ls -A "$tmp/plain")"; return 1; }
}
help_has_examples() {
	"$bin/daxcheck" -h | grep -q '^EXAMPLES:' || { echo "no EXAMPLES in -h"; return 1; }
}
make_refuses() {
	MAKEFLAGS= make -s --no-print-directory -C "$root" check-native TARGET="$tmp/plain" CHECK="$tmp/check" >"$tmp/m.out" 2>&1 &&
		{ echo "make check-native TARGET=$tmp/plain succeeded"; return 1; }
	grep -q "^daxcheck: $tmp/plain: not DAX" "$tmp/m.out" || { echo "make said: $(head -c 300 "$tmp/m.out")"; return 1; }
	[ ! -e "$tmp/check" ] || { echo "make made CHECK before refusing"; return 1; }
}

# The runner's mechanics, past its target check: a fake daxcheck (this host
# has no DAX) says the folder is DAX ext4; the real tools are not needed.
mkdir "$tmp/fakebin" "$tmp/target"
cat >"$tmp/fakebin/daxcheck" <<'EOF2'
#!/bin/sh
echo "{\"dir\":\"$2\",\"fs\":\"ext4\",\"dax\":true,\"dax_from\":\"fake\",\"map_sync\":\"accepted\"}"
EOF2
chmod +x "$tmp/fakebin/daxcheck"
cat >"$tmp/job.sh" <<'EOF2'
#!/bin/sh
. "$SUITE/vm/guest/lib.sh"
echo "KTAP version 1"
echo "1..1"
echo "ok 1 in_target # $(fs_targets) $(fs_dir ext4) $job_dir"
echo "@@file sub/x.txt"
echo "emitted"
echo "@@end"
touch "$NATIVE_TARGET/made-here"
echo "to stderr" >&2
exit 7
EOF2
# Durations of this run's own (a `sleep 300` elsewhere on the machine,
# a developer's shell waiting on a long job, once failed a CI run here).
hang_s=$((8000 + $$ % 4000))
printf '#!/bin/sh\nsleep %s &\nsleep %s\n' "$hang_s" "$((hang_s + 1))" >"$tmp/hang.sh"
runs_job() {
	BINDIR="$tmp/fakebin" sh "$root/native/job.sh" --target "$tmp/target" "$tmp/job.sh" "$tmp/run" >"$tmp/j.out" 2>&1
	rc=$?
	[ "$rc" = 7 ] || { echo "exit $rc, want the job's 7: $(cat "$tmp/j.out")"; return 1; }
	grep -q "^ok 1 in_target # ext4 $tmp/target/.mapsync-native.[A-Za-z0-9]* $tmp/run/job\$" "$tmp/run/results.txt" ||
		{ echo "results: $(cat "$tmp/run/results.txt")"; return 1; }
	[ "$(cat "$tmp/run/files/sub/x.txt")" = emitted ] || { echo "no emitted file"; return 1; }
	grep -q "to stderr" "$tmp/run/console.log" || { echo "no console.log"; return 1; }
	[ "$(ls -A "$tmp/target")" = "" ] || { echo "left in the target: $(ls -A "$tmp/target")"; return 1; }
}
watchdog_stops_tree() {
	BINDIR="$tmp/fakebin" sh "$root/native/job.sh" --target "$tmp/target" "$tmp/hang.sh" "$tmp/hang" --timeout 2 >/dev/null 2>"$tmp/h.err"
	rc=$?
	[ "$rc" = 124 ] || { echo "exit $rc, want 124: $(cat "$tmp/h.err")"; return 1; }
	sleep 1
	! pgrep -f "sleep ($hang_s|$((hang_s + 1)))\$" >/dev/null || { echo "left running: $(pgrep -af "sleep ($hang_s|$((hang_s + 1)))\$")"; return 1; }
	[ "$(ls -A "$tmp/target")" = "" ] || { echo "left in the target: $(ls -A "$tmp/target")"; return 1; }
}

# Leftovers (issue 30): a run stopped midway leaves the target as it found
# it. busy.sh reports one result, then waits, one of its children in a
# session of its own as daxlat -c's command is in its own process group.
# The sleeps carry this run's own durations (a concurrent make check's are
# not ours), and whatever a failed test leaves is stopped on exit.
nap=$((4000 + $$ % 4000))
trap 'kill -KILL $(busy_left) 2>/dev/null; rm -rf "$tmp"' EXIT
cat >"$tmp/busy.sh" <<EOF2
#!/bin/sh
setsid sleep $((nap + 1)) &
echo "KTAP version 1"
echo "1..1"
echo "ok 1 started"
sleep $nap
EOF2
printf '#!/bin/sh\necho "KTAP version 1"\necho "1..1"\necho "ok 1 quick"\n' >"$tmp/quick.sh"
busy_left() { pgrep -f "sleep $nap|sleep $((nap + 1))|$tmp/[a-z0-9]*/results.raw|job.sh --guard .* $tmp/target/"; }
# fresh: a target holding the user's file alone, whatever a failed test left.
fresh() {
	kill -KILL $(busy_left) 2>/dev/null
	rm -rf "$tmp/target" && mkdir "$tmp/target" && echo theirs >"$tmp/target/user.txt"
}
# runner_pid OUT: the native/job.sh process writing to OUT (not a subshell
# of it, which has its arguments).
runner_pid() {
	ps -e -o pid=,ppid=,args= | awk -v j="$root/native/job.sh" -v o="$tmp/$1" \
		'$3 == "sh" && $4 == j && $5 == "--target" && $8 == o { p[$1] = $2 } END { for (i in p) if (!(p[i] in p)) print i }'
}
# killer OUT HOW: once busy.sh has reported, HOW: a signal to the runner,
# make-INT (SIGINT to its parent's process group, as Ctrl-C at a terminal),
# KILL-guard (SIGKILL to the runner and its guard at once, as a killed
# process tree or a machine going down), or TERM-later (SIGTERM once
# $tmp/release exists).
killer() {
	i=0
	until grep -q '^ok 1 started' "$tmp/$1/results.raw" 2>/dev/null && [ -n "$(busy_left)" ] &&
		r=$(runner_pid "$1") && [ -n "$r" ]; do
		[ $i -lt 100 ] || { echo "busy.sh did not start"; kill -KILL $(runner_pid "$1"); return 1; }
		sleep 0.1; i=$((i + 1))
	done
	echo "$r" >"$tmp/$1.pid"
	case $2 in
	make-INT) kill -INT "-$(sed 's/.*) //' "/proc/$r/stat" | cut -d' ' -f3)" ;;
	KILL-guard) kill -KILL "$r" $(pgrep -f -- "--guard $r ") ;;
	TERM-later) until [ -e "$tmp/release" ]; do sleep 0.1; done; kill -TERM "$r" ;;
	*) kill "-$2" "$r" ;;
	esac
}
# run_killed OUT HOW [MAKE]: busy.sh run by native/job.sh in the foreground
# (an asynchronous command would ignore SIGINT), with MAKE under a
# make-like parent shell in a session of its own, and killed by killer OUT
# HOW; rc= its exit status.
run_killed() {
	o=$1 make=${3:-}
	rm -rf "$tmp/$o" "$tmp/$o.pid"
	killer "$o" "$2" >"$tmp/$o.killer" 2>&1 &
	k=$!
	# A shell started in the background (nohup, a CI runner) ignores SIGINT, and
	# an ignored signal cannot be trapped: the runner gets SIGINT's default back,
	# as it has at a terminal.
	set -- env --default-signal=INT sh "$root/native/job.sh" --target "$tmp/target" "$tmp/busy.sh" "$tmp/$o" --timeout 60
	if [ -n "$make" ]; then
		BINDIR="$tmp/fakebin" setsid sh -c '"$@"; echo "make: *** interrupted"' make "$@" >"$tmp/$o.out" 2>"$tmp/$o.err"
	else
		BINDIR="$tmp/fakebin" "$@" >"$tmp/$o.out" 2>"$tmp/$o.err"
	fi
	rc=$?
	wait $k || { cat "$tmp/$o.killer"; return 1; }
}
# gone_within S: within S seconds no busy.sh process is left and the
# target holds only what the user put there (user.txt, unchanged).
gone_within() {
	i=0
	while [ -n "$(busy_left)" ] || [ "$(ls -A "$tmp/target")" != user.txt ]; do
		[ $i -lt $(($1 * 10)) ] || {
			echo "after ${1}s: running: $(busy_left | tr '\n' ' ')left in the target: $(ls -A "$tmp/target" | tr '\n' ' ')"
			return 1; }
		sleep 0.1; i=$((i + 1))
	done
	[ "$(cat "$tmp/target/user.txt")" = theirs ] || { echo "user.txt changed"; return 1; }
}
# killed HOW RC [MAKE]: the run stopped by HOW exits RC and leaves nothing.
killed() {
	fresh
	run_killed "k$1" "$1" "${3:-}" || return 1
	[ "$rc" = "$2" ] || { echo "exit $rc, want $2: $(cat "$tmp/k$1.err")"; return 1; }
	gone_within 5
}
# terminal_ctrl_c: the runner's parent shell may end first: the runner
# still cleans up, within seconds.
terminal_ctrl_c() {
	fresh
	run_killed term make-INT make || return 1
	gone_within 10
}
# runner_sigkill: no trap runs; its guard stops the job, removes its
# folder and says so.
runner_sigkill() {
	fresh
	run_killed kill9 KILL || return 1
	gone_within 5 || return 1
	grep -q "^native/job.sh: the runner (pid $(cat "$tmp/kill9.pid")) was killed: stopped [1-9][0-9]* processes of its job, removed $tmp/target/.mapsync-native" \
		"$tmp/kill9.err" || { echo "the guard said: $(cat "$tmp/kill9.err")"; return 1; }
}
# next_run_cleans: the runner and its guard killed at once: the next run
# says what it found, stops the job left running and removes its folder,
# an empty one (a run killed before its owner record) too, and leaves the
# user's folder that looks like ours alone.
next_run_cleans() {
	fresh
	mkdir -p "$tmp/target/.mapsync-native.mine"
	echo mine >"$tmp/target/.mapsync-native.mine/keep"
	run_killed tree KILL-guard || return 1
	mkdir "$tmp/target/.mapsync-native.Zq9x0A"
	sleep 2
	work=$(ls -d "$tmp/target"/.mapsync-native.* | grep -v 'Zq9x0A$\|mine$')
	[ -d "$work" ] && [ -n "$(busy_left)" ] || { echo "nothing left to clean: the test is moot"; return 1; }
	BINDIR="$tmp/fakebin" sh "$root/native/job.sh" --target "$tmp/target" "$tmp/quick.sh" "$tmp/next" >"$tmp/next.out" 2>&1 ||
		{ echo "next run: exit $?: $(cat "$tmp/next.out")"; return 1; }
	head -n 3 "$tmp/next.out" >"$tmp/next.head"
	grep -q "^native: $work: left by a native run (pid $(cat "$tmp/tree.pid"), started [^)]*): stopped [1-9][0-9]* of its processes, removed it" "$tmp/next.head" &&
		grep -q "^native: $tmp/target/.mapsync-native.Zq9x0A: empty, no owner record (a run killed as it started): removed" "$tmp/next.head" &&
		grep -q "^native: $tmp/target/.mapsync-native.mine: no owner record: not the suite's, left alone" "$tmp/next.head" ||
		{ echo "its first lines: $(cat "$tmp/next.head")"; return 1; }
	[ "$(cat "$tmp/target/.mapsync-native.mine/keep")" = mine ] || { echo "the user's folder changed"; return 1; }
	rm -rf "$tmp/target/.mapsync-native.mine"
	gone_within 1
}
# running_left_alone: a run in progress is no leftover of the next one.
running_left_alone() {
	fresh
	rm -f "$tmp/release"
	run_killed live TERM-later &
	bg=$!
	i=0
	until [ -s "$tmp/live.pid" ]; do
		[ $i -lt 100 ] || { touch "$tmp/release"; echo "the first run did not start"; return 1; }
		sleep 0.1; i=$((i + 1))
	done
	work=$(ls -d "$tmp/target"/.mapsync-native.*)
	BINDIR="$tmp/fakebin" sh "$root/native/job.sh" --target "$tmp/target" "$tmp/quick.sh" "$tmp/next" >"$tmp/next.out" 2>&1
	running=$(busy_left)
	touch "$tmp/release"
	wait $bg
	grep -q "^native: $work: in use by a running native job (pid $(cat "$tmp/live.pid")): left alone" "$tmp/next.out" ||
		{ echo "the second run said: $(head -n 3 "$tmp/next.out")"; return 1; }
	[ -n "$running" ] || { echo "the second run stopped the first"; return 1; }
	gone_within 5
}
# stale_record_removed: an owner record whose runner pid is alive but is
# another process now (another start time) is a leftover.
stale_record_removed() {
	fresh
	d=$tmp/target/.mapsync-native.St4le0
	mkdir -p "$d/sub" && echo x >"$d/sub/file"
	printf 'mapsync-native work folder\nrunner %s 1 %s\nstarted earlier\nwork %s\n' $$ \
		"$(cat /proc/sys/kernel/random/boot_id)" "$d" >"$d/.owner"
	BINDIR="$tmp/fakebin" sh "$root/native/job.sh" --target "$tmp/target" "$tmp/quick.sh" "$tmp/next" >"$tmp/next.out" 2>&1
	grep -q "^native: $d: left by a native run (pid $$, started earlier): stopped 0 of its processes, removed it" "$tmp/next.out" ||
		{ echo "the run said: $(head -n 3 "$tmp/next.out")"; return 1; }
	gone_within 1
}

# A TARGET with spaces (issue 30): make split it ("daxcheck: one DIR only"
# after a build); refused by name before anything is built or run, for
# make check (make -n: before the refusal its commands were only printed)
# and the native job itself (built in its own O).
target_spaces() { # GOAL [-n]
	mkdir -p "$tmp/dir with spaces"
	MAKEFLAGS= make -s --no-print-directory ${2:-} -C "$root" "$1" TARGET="$tmp/dir with spaces" O="$tmp/o-sp" CHECK="$tmp/check-sp" \
		>"$tmp/sp.out" 2>"$tmp/sp.err"
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/sp.err")" = 1 ] && [ ! -s "$tmp/sp.out" ] &&
		grep -qF "TARGET='$tmp/dir with spaces': a path with spaces is not supported" "$tmp/sp.err" ||
		{ echo "make $1 ${2:-}: exit $rc: $(head -c 300 "$tmp/sp.err") | $(head -c 200 "$tmp/sp.out")"; return 1; }
	[ ! -e "$tmp/o-sp" ] && [ ! -e "$tmp/check-sp" ] && [ -z "$(ls -A "$tmp/dir with spaces")" ] ||
		{ echo "made: $(ls -d "$tmp/o-sp" "$tmp/check-sp" 2>/dev/null) $(ls -A "$tmp/dir with spaces")"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check daxcheck_refuses_nondax refuses 3 "^daxcheck: $tmp/plain: not DAX (.*): native mode needs" "$bin/daxcheck" "$tmp/plain"
ktap_check daxcheck_json_refuses_nondax refuses 3 'not DAX' "$bin/daxcheck" --json "$tmp/plain"
ktap_check daxcheck_refuses_missing refuses 2 'No such file' "$bin/daxcheck" "$tmp/none"
ktap_check daxcheck_refuses_file refuses 2 'not a directory' "$bin/daxcheck" "$tmp/file"
ktap_check daxcheck_needs_dir refuses 2 'DIR is required' "$bin/daxcheck"
ktap_check daxcheck_one_dir refuses 2 'one DIR only' "$bin/daxcheck" "$tmp/plain" "$tmp/plain"
ktap_check daxcheck_help_examples help_has_examples
ktap_check job_refuses_nondax refuses 3 'not DAX' env BINDIR="$bin" sh "$root/native/job.sh" --target "$tmp/plain" \
	"$root/tests/native/check.sh" "$tmp/out-dir"
ktap_check job_needs_target refuses 2 'target DIR is required' env BINDIR="$bin" sh "$root/native/job.sh" \
	"$root/tests/native/check.sh" "$tmp/out-dir"
ktap_check job_bad_timeout refuses 2 'timeout must be seconds' env BINDIR="$bin" sh "$root/native/job.sh" --target "$tmp/plain" \
	"$root/tests/native/check.sh" "$tmp/out-dir" --timeout soon
ktap_check refusals_made_nothing nothing_made
ktap_check make_check_target_refuses make_refuses
ktap_check job_runs_in_target runs_job
ktap_check job_watchdog_stops_tree watchdog_stops_tree
ktap_check job_sigint_leaves_nothing killed INT 130
ktap_check job_sigterm_leaves_nothing killed TERM 130
ktap_check job_terminal_ctrl_c_leaves_nothing terminal_ctrl_c
ktap_check job_sigkill_guard_cleans runner_sigkill
ktap_check job_next_run_removes_its_own next_run_cleans
ktap_check job_next_run_spares_running running_left_alone
ktap_check job_stale_owner_pid_removed stale_record_removed
ktap_check make_check_target_spaces_refused target_spaces check -n
ktap_check make_check_native_target_spaces_refused target_spaces check-native
ktap_check make_reproduce_target_spaces_refused target_spaces reproduce -n
ktap_finish
