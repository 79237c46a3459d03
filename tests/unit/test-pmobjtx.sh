#!/bin/sh
# Host tests of pmobjtx (validate/crash/, the crash test's PMDK writer and
# verifier, issue 32) on this host's filesystem (not DAX: --no-dax-check):
# the verifier's classes seen on pools damaged on purpose (an object torn,
# an object zeroed, a count beyond the commits, the pool header gone, no
# file), each with its exit code; the writer's progress lines and what it
# says PMDK decided; the control's flush path (PMEM_IS_PMEM_FORCE=1 and no
# MAP_SYNC: no msync while the transactions run). Needs root, Debian's
# libpmemobj. KTAP. Usage: test-pmobjtx.sh [BINDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-${BINDIR:-$root/.output/bin}}
px=$bin/pmobjtx
. "$root/lib/ktap.sh"
suite_lib=$root/lib
. "$root/lib/exitcodes.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-pmobjtx.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ID="-n 32 -s 9 -g 2 -w 4"

# write ARGS: a fresh pool tmp/pool of 32 transactions, progress in tmp/w.out.
write() {
	rm -f "$tmp/pool"
	# shellcheck disable=SC2086
	"$px" -f "$tmp/pool" $ID --no-dax-check -t T "$@" >"$tmp/w.out" 2>"$tmp/w.err" ||
		{ echo "writer exit $?: $(head -c 300 "$tmp/w.err")"; return 1; }
}
# verify WANT_RC ARGS: the verifier's JSON in tmp/v.json, exit WANT_RC.
verify() {
	want=$1; shift
	# shellcheck disable=SC2086
	"$px" --verify -f "$tmp/pool" $ID -j "$@" >"$tmp/v.json" 2>"$tmp/v.err"
	rc=$?
	[ "$rc" = "$want" ] || { echo "verifier exit $rc, want $want: $(head -c 300 "$tmp/v.err") $(head -c 300 "$tmp/v.json")"; return 1; }
}
# expect JQ: the verdict meets JQ.
expect() {
	jq -e "$1" "$tmp/v.json" >/dev/null || { echo "want $1: $(jq -c 'del(.after, .labels)' "$tmp/v.json")"; return 1; }
}
# damage INDEX HOW: overwrite the object of transaction INDEX in place:
# HOW=torn flips one payload byte, HOW=zero zeroes its page. The object is
# found by its pattern header (magic, then word 3 = the index).
damage() {
	for off in $(grep -obUaF MSYNCPG1 "$tmp/pool" | cut -d: -f1); do
		[ "$(od -An -tu8 -j $((off + 24)) -N 8 "$tmp/pool" | tr -d ' ')" = "$1" ] || continue
		case $2 in
		torn) printf '\377' | dd of="$tmp/pool" bs=1 seek=$((off + 2048)) conv=notrunc status=none ;;
		zero) dd if=/dev/zero of="$tmp/pool" bs=1 count=4096 seek="$off" conv=notrunc status=none ;;
		esac
		return
	done
	echo "no object of transaction $1 in the pool"
	return 1
}

writes_and_verifies() {
	write || return 1
	grep -qx 'S T mode=pmdk map=sync map_sync=0 vm_sync=0 msync=[0-9]* tx=32 gen=2' "$tmp/w.out" &&
		[ "$(grep -c '^P T ' "$tmp/w.out")" = 32 ] && grep -q '^P T 32$' "$tmp/w.out" &&
		grep -q '^D T 32 msync=' "$tmp/w.out" || { echo "progress: $(head -n 2 "$tmp/w.out") ... $(tail -n 1 "$tmp/w.out")"; return 1; }
	verify 0 && expect '.verified == 32 and .lost == 0 and .committed == 32 and .half_applied == 0 and .pool_check == "consistent"'
}
torn_object_is_lost_and_half_applied() {
	write && damage 5 torn && verify "$EXIT_DATA_LOST" &&
		expect '.lost == 1 and .before.torn == 1 and .half_applied == 1 and .committed == 32'
}
zeroed_object_is_lost() {
	write && damage 7 zero && verify "$EXIT_DATA_LOST" -r 20 &&
		expect '.lost == 1 and .before.zero == 1 and .half_applied == 1 and .verified == 19'
}
# After the recorded point, a damaged committed object is not a loss but
# still half-applied (atomicity), hence exit 10.
damage_after_recorded_is_half_applied() {
	write && damage 30 zero && verify "$EXIT_DATA_LOST" -r 10 &&
		expect '.lost == 0 and .verified == 10 and .half_applied == 1 and .after.zero == 1'
}
# An interrupted writer: what it reported is there; more than it committed
# is lost as "uncommitted".
uncommitted_beyond_count() {
	rm -f "$tmp/pool"
	"$px" -f "$tmp/pool" -n 65536 -s 9 -g 2 -w 4 --no-dax-check -t T >"$tmp/w.out" 2>"$tmp/w.err" &
	pid=$!
	i=0; while [ "$(grep -c '^P ' "$tmp/w.out" 2>/dev/null)" -lt 20 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	kill -INT $pid; wait $pid
	n=$(sed -n 's/^P T //p' "$tmp/w.out" | tail -n 1)
	[ "${n:-0}" -ge 20 ] && [ "$n" -lt 65000 ] || { echo "writer reported ${n:-nothing}: $(head -c 200 "$tmp/w.err")"; return 1; }
	"$px" --verify -f "$tmp/pool" -n 65536 -s 9 -g 2 -w 4 -j -r "$n" >"$tmp/v.json" || { echo "reported $n: $(cat "$tmp/v.json")"; return 1; }
	"$px" --verify -f "$tmp/pool" -n 65536 -s 9 -g 2 -w 4 -j -r $((n + 5)) >"$tmp/v.json"
	[ $? = "$EXIT_DATA_LOST" ] && expect ".committed == $n and .before.uncommitted == 5 and .lost == 5 and .half_applied == 0"
}
header_gone_is_unopenable() {
	write && dd if=/dev/zero of="$tmp/pool" bs=4096 count=1 conv=notrunc status=none &&
		verify "$EXIT_DATA_LOST" -r 12 && expect '.pool_opened == false and .before.unopenable == 12 and .lost == 12 and .pool_check != "consistent"'
}
no_file_is_all_lost() {
	rm -f "$tmp/pool" && verify "$EXIT_DATA_LOST" -r 3 && expect '.file_exists == false and .before.nofile == 3 and .lost == 3'
}
# Another writer's pool is an error (exit 1), not data loss.
other_writer_refused() {
	write && "$px" --verify -f "$tmp/pool" -n 32 -s 9 -g 2 -w 5 >/dev/null 2>"$tmp/v.err"
	rc=$?
	[ $rc = "$EXIT_RUNTIME" ] && grep -q "not this writer's pool" "$tmp/v.err" || { echo "exit $rc: $(cat "$tmp/v.err")"; return 1; }
}
# The control: told the mapping is pmem and refused MAP_SYNC, PMDK makes no
# msync while the transactions run (the S and D lines' counts are equal);
# without FORCE it makes at least one per transaction.
control_makes_no_msync() {
	write --no-map-sync || return 1
	s=$(sed -n 's/^S T .* msync=\([0-9]*\) .*/\1/p' "$tmp/w.out") d=$(sed -n 's/^D T 32 msync=//p' "$tmp/w.out")
	[ -n "$s" ] && [ "$d" -ge $((s + 32)) ] || { echo "no FORCE: msync $s before, $d after 32 transactions"; return 1; }
	(PMEM_IS_PMEM_FORCE=1 && export PMEM_IS_PMEM_FORCE && write --no-map-sync) || return 1
	grep -q '^S T mode=pmdk map=shared map_sync=0 ' "$tmp/w.out" || { echo "$(head -n 1 "$tmp/w.out")"; return 1; }
	s=$(sed -n 's/^S T .* msync=\([0-9]*\) .*/\1/p' "$tmp/w.out") d=$(sed -n 's/^D T 32 msync=//p' "$tmp/w.out")
	[ -n "$s" ] && [ "$s" = "$d" ] || { echo "FORCE=1: msync $s before, $d after the transactions"; return 1; }
}
not_dax_refused_leaves_nothing() {
	rm -f "$tmp/pool"
	"$px" -f "$tmp/pool" -n 4 >/dev/null 2>"$tmp/w.err"
	rc=$?
	[ $rc = "$EXIT_NOT_DAX" ] && [ ! -e "$tmp/pool" ] && [ "$(grep -c '' "$tmp/w.err")" = 1 ] ||
		{ echo "exit $rc, left: $(ls "$tmp"): $(cat "$tmp/w.err")"; return 1; }
}
usage_errors() {
	for a in "-f $tmp/x -n 65537" "-f $tmp/x --crash-after 40 -n 32" "--verify -f $tmp/x -r 33 -n 32" "-n 4" "-f $tmp/x -L nokey"; do
		# shellcheck disable=SC2086
		"$px" $a >/dev/null 2>"$tmp/u.err"
		rc=$?
		[ $rc = "$EXIT_USAGE" ] || { echo "$a: exit $rc: $(cat "$tmp/u.err")"; return 1; }
	done
	[ ! -e "$tmp/x" ] || { echo "a usage error created $tmp/x"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check writes_and_verifies writes_and_verifies
ktap_check torn_object_is_lost_and_half_applied torn_object_is_lost_and_half_applied
ktap_check zeroed_object_is_lost zeroed_object_is_lost
ktap_check damage_after_recorded_is_half_applied damage_after_recorded_is_half_applied
ktap_check uncommitted_beyond_count uncommitted_beyond_count
ktap_check header_gone_is_unopenable header_gone_is_unopenable
ktap_check no_file_is_all_lost no_file_is_all_lost
ktap_check other_writer_refused other_writer_refused
ktap_check control_makes_no_msync control_makes_no_msync
ktap_check not_dax_refused_leaves_nothing not_dax_refused_leaves_nothing
ktap_check usage_errors usage_errors
ktap_finish
