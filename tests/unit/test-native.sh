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
printf '#!/bin/sh\nsleep 300 &\nsleep 301\n' >"$tmp/hang.sh"
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
	! pgrep -f 'sleep 30[01]' >/dev/null || { echo "left running: $(pgrep -af 'sleep 30[01]')"; return 1; }
	[ "$(ls -A "$tmp/target")" = "" ] || { echo "left in the target: $(ls -A "$tmp/target")"; return 1; }
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
ktap_check make_check_target_spaces_refused target_spaces check -n
ktap_check make_check_native_target_spaces_refused target_spaces check-native
ktap_check make_reproduce_target_spaces_refused target_spaces reproduce -n
ktap_finish
