#!/bin/sh
# Host tests of pmemobj-array (validate/clients/, issue 32) on this host's
# filesystem (not DAX): what it prints of PMDK's choices (no MAP_SYNC here,
# msync per flush unless PMEM_IS_PMEM_FORCE=1), a pool kept for pmempool,
# and what it does to its path: an existing one refused and left untouched
# (--replace removes a regular file only), a failed or interrupted run
# leaves nothing. Needs root (mknod, a small tmpfs), Debian's pmempool. KTAP.
# Usage: test-pmemobj-array.sh [BINDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-${BINDIR:-$root/.output/bin}}
pa=$bin/pmemobj-array
. "$root/lib/ktap.sh"
suite_lib=$root/lib
. "$root/lib/exitcodes.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-pmemobj.XXXXXX") || exit 1
trap 'mountpoint -q "$tmp/small" 2>/dev/null && umount "$tmp/small"; rm -rf "$tmp"' EXIT

# run WANT_RC ARGS: pmemobj-array exits WANT_RC; a failure says one line.
run() {
	want=$1; shift
	"$pa" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || { echo "exit $rc, want $want: $(head -c 300 "$tmp/err")"; return 1; }
	[ "$rc" = 0 ] || [ "$(grep -c '' "$tmp/err")" = 1 ] || { echo "want one stderr line: $(cat "$tmp/err")"; return 1; }
}
# empty DIR: nothing left in DIR.
empty() {
	[ -z "$(ls -A "$1")" ] || { echo "left behind in $1: $(ls -A "$1")"; return 1; }
}
fresh() { rm -rf "$tmp/d" && mkdir "$tmp/d"; }
# msyncs: the msync calls while the transactions ran (tx_msync) of the last
# run's pmdk line, which says no MAP_SYNC and no VM_SYNC (not DAX here).
msyncs() { sed -n 's/^pmdk: map_sync=0 vm_sync=0 msync=[0-9][0-9]* tx_msync=\([0-9][0-9]*\)$/\1/p' "$tmp/out"; }

new_path_runs_and_removes() {
	fresh && run 0 -f "$tmp/d/p" -n 40 -t 2 && empty "$tmp/d" || return 1
	grep -qx 'tx: count=40 threads=2 median_ns=[0-9]* p99_ns=[0-9]*' "$tmp/out" && [ "$(msyncs)" -gt 0 ] ||
		{ echo "output: $(cat "$tmp/out")"; return 1; }
}
# Without MAP_SYNC, PMDK flushes with msync (at least once a transaction);
# with PMEM_IS_PMEM_FORCE=1 it takes the mapping for pmem and does not.
force1_skips_msync() {
	fresh && run 0 -f "$tmp/d/p" -n 40 && m=$(msyncs) &&
		(PMEM_IS_PMEM_FORCE=1 && export PMEM_IS_PMEM_FORCE && run 0 -f "$tmp/d/p" -n 40) && f=$(msyncs) || return 1
	[ "${m:-0}" -ge 40 ] && [ "$f" = 0 ] || { echo "tx_msync: $m unset, $f with FORCE=1 (40 transactions)"; return 1; }
}
keep_leaves_consistent_pool() {
	fresh && run 0 -f "$tmp/d/p" -n 10 --keep && [ -f "$tmp/d/p" ] || { echo "no pool kept"; return 1; }
	pmempool check -v "$tmp/d/p" | grep -q ': consistent$' || { echo "pmempool check: $(pmempool check "$tmp/d/p" 2>&1)"; return 1; }
}
existing_file_refused() {
	fresh && echo precious >"$tmp/d/p" && run "$EXIT_FILE_EXISTS" -f "$tmp/d/p" || return 1
	[ "$(cat "$tmp/d/p")" = precious ] && grep -q "$tmp/d/p exists" "$tmp/err" || { echo "file changed, or not named: $(cat "$tmp/err")"; return 1; }
}
existing_dir_refused() {
	fresh && mkdir "$tmp/d/p" && run "$EXIT_FILE_EXISTS" -f "$tmp/d/p" && [ -d "$tmp/d/p" ]
}
replace_node_refused() {
	fresh && mknod "$tmp/d/p" c 1 3 && run "$EXIT_FILE_EXISTS" -f "$tmp/d/p" --replace || return 1
	[ -c "$tmp/d/p" ] || { echo "the node is gone"; return 1; }
}
replace_regular_file() {
	fresh && echo old >"$tmp/d/p" && run 0 -f "$tmp/d/p" --replace -n 4 && empty "$tmp/d"
}
# posix_fallocate fails on a 4 MiB tmpfs: exit 6, the pool file removed.
no_space_leaves_nothing() {
	mkdir "$tmp/small" && mount -t tmpfs -o size=4m tmpfs "$tmp/small" || return 1
	run "$EXIT_NO_SPACE" -f "$tmp/small/p" -s 8M && empty "$tmp/small"
	st=$?
	umount "$tmp/small"
	return $st
}
# SIGINT mid-run (msync per flush is slow): exit 1, the pool removed.
sigint_leaves_nothing() {
	fresh
	"$pa" -f "$tmp/d/p" -n 10000000 -t 2 >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	i=0; while [ ! -s "$tmp/d/p" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.5
	kill -INT $pid; wait $pid
	rc=$?
	[ $rc = "$EXIT_RUNTIME" ] && grep -q 'interrupted' "$tmp/err" || { echo "exit $rc: $(cat "$tmp/err")"; return 1; }
	empty "$tmp/d"
}
usage_errors() {
	for a in "-f $tmp/x -n 0" "-f $tmp/x -t 65" "-f $tmp/x -s 1M" "-n 4"; do
		# shellcheck disable=SC2086
		run "$EXIT_USAGE" $a || { echo "$a: $(cat "$tmp/err")"; return 1; }
	done
	[ ! -e "$tmp/x" ] || { echo "a usage error created $tmp/x"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check new_path_runs_and_removes new_path_runs_and_removes
ktap_check force1_skips_msync force1_skips_msync
ktap_check keep_leaves_consistent_pool keep_leaves_consistent_pool
ktap_check existing_file_refused existing_file_refused
ktap_check existing_dir_refused existing_dir_refused
ktap_check replace_node_refused replace_node_refused
ktap_check replace_regular_file replace_regular_file
ktap_check no_space_leaves_nothing no_space_leaves_nothing
ktap_check sigint_leaves_nothing sigint_leaves_nothing
ktap_check usage_errors usage_errors
ktap_finish
