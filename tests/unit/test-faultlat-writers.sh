#!/bin/sh
# Host tests of faultlat -w N (concurrent writers) on a file that is not DAX
# (--no-dax-check): the table, the tail line and the JSON count every
# writer's faults; bad -w values, a writer's existing file, a failing
# writer, a stop signal and a killed parent leave no file and no process.
# KTAP output. Usage: test-faultlat-writers.sh [BINDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.output/bin}
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-writers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
d=$tmp/d

# fl ARGS: faultlat on $d/f in a fresh, empty $d; sets rc.
fl() {
	rm -rf "$d" && mkdir "$d"
	timeout 120 "$bin/faultlat" --no-dax-check -f "$d/f" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
want_rc() { [ "$rc" = "$1" ] || { echo "exit $rc, want $1: $(head -c 300 "$tmp/err")"; return 1; }; }
left_nothing() { [ -z "$(ls -A "$d")" ] || { echo "left $(ls -A "$d" | tr '\n' ' ')"; return 1; }; }
one_line() {
	[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$1" "$tmp/err" ||
		{ echo "stderr is not one line matching '$1': $(head -c 400 "$tmp/err")"; return 1; }
}
want_json() { jq -e "$@" "$tmp/out" >/dev/null || { echo "JSON fails $1: $(head -c 400 "$tmp/out")"; return 1; }; }

# sums WANT: the table's buckets and its faults= both count WANT (what
# tests/guest/check.sh's bench_sums asks of a one-repetition run).
sums() {
	awk -v want="$1" '
		/^[0-9]+ - [0-9]+ (us|ns): [0-9]+$/ { sum += $NF }
		/^median=/ { for (i = 1; i <= NF; i++) if ($i ~ /^faults=/) faults = substr($i, 8) }
		END {
			if (faults != want) { print "faults=" faults ", want " want; exit 1 }
			if (sum != want) { print "buckets sum to " sum ", want " want; exit 1 }
		}' "$tmp/out"
}

# text_run ARGS: 4 writers of 64 faults, one table of 256, a line each.
text_run() {
	fl -n 64 -w 4 "$@"
	want_rc 0 && sums 256 && left_nothing || return 1
	grep -Eq '^median=[0-9]+ p99=[0-9]+ p99.9=[0-9]+ max=[0-9]+ faults=256 reps=1 writers=4$' "$tmp/out" ||
		{ echo "tail line: $(grep '^median=' "$tmp/out")"; return 1; }
	[ "$(grep -Ec '^writer [0-3]: median=[0-9]+ p99=[0-9]+ p99.9=[0-9]+ max=[0-9]+ faults=64$' "$tmp/out")" = 4 ] ||
		{ echo "writer lines: $(grep '^writer' "$tmp/out" | tr '\n' '|')"; return 1; }
}

json_reps() {
	fl -n 64 -w 4 -r 2 --json
	want_rc 0 && left_nothing && want_json '
		.faults == 512 and .faults_per_rep == 256 and .reps == 2 and
		.writers == 4 and .same_file == false and
		([.hist[].count] | add) == .faults and
		(.writers_detail | length) == 4 and
		([.writers_detail[].faults] | add) == .faults and
		([.writers_detail[].writer] == [0, 1, 2, 3]) and
		.p99 <= .p999 and .p999 <= .max and (.reps_detail | length) == 2 and
		(.label | endswith(", 4 writers:"))'
}

json_same_file() {
	fl -n 64 -w 4 --same-file --json
	want_rc 0 && left_nothing && want_json '
		.faults == 256 and .same_file == true and .pages_mapped == 64 and
		([.hist[].count] | add) == 256 and (.writers_detail | length) == 4 and
		(.label | endswith(", 4 writers on one file:"))'
}

# --samples-out: every writer's samples of every repetition, in fault order
# (not sorted), writer 0's first: the median of the first 128 is writer 0's.
samples_out() {
	fl -n 64 -w 4 -r 2 --json --samples-out "$tmp/samples"
	want_rc 0 || return 1
	tr ' ' '\n' <"$tmp/samples" >"$tmp/col"
	[ "$(wc -l <"$tmp/col")" = 512 ] || { echo "$(wc -l <"$tmp/col") samples, want 512"; return 1; }
	! sort -n -c "$tmp/col" 2>/dev/null || { echo "samples sorted, not in fault order"; return 1; }
	m=$(head -n 128 "$tmp/col" | sort -n | awk 'NR == 64 { a = $1 } NR == 65 { printf "%d", (a + $1) / 2 }')
	want_json --argjson m "$m" '.writers_detail[0].median == $m'
}

# -w 1 is the in-process run of before: no writers= and no writer lines.
one_writer() {
	fl -n 64
	want_rc 0 && sums 64 || return 1
	grep -Eq '^median=[0-9]+ p99=[0-9]+ p99.9=[0-9]+ max=[0-9]+ faults=64 reps=1$' "$tmp/out" ||
		{ echo "tail line: $(grep '^median=' "$tmp/out")"; return 1; }
	! grep -q '^writer' "$tmp/out" || { echo "writer lines with one writer"; return 1; }
	fl -n 64 --json
	want_rc 0 && want_json '.writers == 1 and (has("writers_detail") | not) and .faults == 64'
}

usage() {
	fl -w "$1"
	want_rc 2 && one_line "invalid --writers '$1'" && left_nothing
}

# A writer's file that exists is refused (11) and left as it was.
existing_writer_file() {
	rm -rf "$d" && mkdir "$d" && echo precious >"$d/f.w1"
	timeout 60 "$bin/faultlat" --no-dax-check -f "$d/f" -n 8 -w 3 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc 11 && one_line "f.w1 exists" || return 1
	[ "$(cat "$d/f.w1")" = precious ] || { echo "f.w1 changed"; return 1; }
	[ "$(ls -A "$d")" = f.w1 ] || { echo "left $(ls -A "$d" | tr '\n' ' ')"; return 1; }
}

replace_writer_file() {
	rm -rf "$d" && mkdir "$d" && echo old >"$d/f.w2"
	timeout 60 "$bin/faultlat" --no-dax-check -f "$d/f" -n 8 -w 3 --replace >"$tmp/out" 2>"$tmp/err"
	rc=$?
	want_rc 0 && left_nothing
}

keep_all() {
	fl -n 8 -w 3 --keep
	want_rc 0 || return 1
	[ "$(ls -A "$d" | tr '\n' ' ')" = "f f.w1 f.w2 " ] || { echo "kept $(ls -A "$d" | tr '\n' ' ')"; return 1; }
}

# PMD faults cannot be had here: every writer fails its pagemap check (12),
# one line is shown (writer 0's), nothing is left.
pmd_fails_once() {
	fl -n 512 -w 4 --fault-size pmd "$@"
	left_nothing || return 1
	[ "$rc" = 0 ] && { echo "PMD faults on a page-cache file? (host with DAX /tmp)"; return 0; }
	want_rc 12 && one_line "^faultlat: writer 0: 1 of 1 PMD faults on $d/f fell back"
}

with_load() {
	fl -n 32 -w 2 -r 2 -l copy --load-size 1M -v
	want_rc 0 && left_nothing && sums_reps || return 1
	grep -q '^faultlat: background copy of 1048576 bytes running' "$tmp/err" ||
		{ echo "no load: $(head -c 300 "$tmp/err")"; return 1; }
}
# Two repetitions: faults= counts one (64), the buckets both (128).
sums_reps() {
	grep -q ' faults=64 reps=2 writers=2$' "$tmp/out" ||
		{ echo "tail line: $(grep '^median=' "$tmp/out")"; return 1; }
	awk '/^[0-9]+ - [0-9]+ us: / { s += $NF } END { exit s != 128 }' "$tmp/out" ||
		{ echo "buckets do not sum to 128"; return 1; }
}

too_many() {
	fl -n 67108864 -r 100000 -w 64
	want_rc 1 && one_line "samples" && left_nothing
}

# start_big: a long run in the background; pid, and its 4 writers in kids.
start_big() {
	rm -rf "$d" && mkdir "$d"
	"$bin/faultlat" --no-dax-check -f "$d/f" -n 200000 -w 4 >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 100); do
		kids=$(pgrep -P "$pid")
		[ "$(echo "$kids" | wc -w)" = 4 ] && return 0
		sleep 0.1
	done
	kill -KILL "$pid"
	echo "no 4 writers in 10 s: $kids"
	return 1
}
# gone PIDS: within a second, none of them runs (reaped, or a zombie of
# the reaper): SIGKILL is at once, the run would go on for seconds.
gone() {
	for _ in $(seq 10); do
		alive=$(ps -o stat= -p "$(echo $1 | tr ' ' ,)" | grep -vc Z)
		[ "$alive" = 0 ] && return 0
		sleep 0.1
	done
	echo "writers still running: $(ps -o pid=,stat= -p "$(echo $1 | tr ' ' ,)" | tr '\n' ' ')"
	return 1
}

# SIGINT mid-run: the writers are killed at once (the run would take
# seconds more), the files removed, one line.
interrupt() {
	start_big || return 1
	kill -INT "$pid"
	for _ in $(seq 20); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; echo "still running 2 s after SIGINT"; return 1; }
	wait "$pid"
	rc=$?
	want_rc 1 && one_line "interrupted: Interrupt" && left_nothing && gone "$kids"
}

# SIGKILL of the parent: its writers die too (PR_SET_PDEATHSIG). Once they
# are storing: a writer that finds its parent gone before it starts exits.
parent_killed() {
	start_big || return 1
	sleep 0.5
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	gone "$kids"
}

ktap_plan_checks "$0"
ktap_start
ktap_check separate_files_table_sums text_run
ktap_check same_file_table_sums text_run --same-file
ktap_check json_counts_every_writer json_reps
ktap_check json_same_file json_same_file
ktap_check samples_out_writer_0_first samples_out
ktap_check one_writer_as_before one_writer
ktap_check writers_0_usage usage 0
ktap_check writers_65_usage usage 65
ktap_check existing_writer_file_refused existing_writer_file
ktap_check replace_removes_writer_file replace_writer_file
ktap_check keep_keeps_every_file keep_all
ktap_check pmd_fallback_one_line pmd_fails_once
ktap_check pmd_fallback_one_line_same_file pmd_fails_once --same-file
ktap_check background_load_with_writers with_load
ktap_check too_many_samples_one_line too_many
ktap_check interrupt_stops_everything interrupt
ktap_check killed_parent_kills_writers parent_killed
ktap_finish
