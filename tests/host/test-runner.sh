#!/bin/sh
# The VM runner's console watch, seen to fire: one boot per splat class,
# each provoked on purpose by tests/guest/splat/splat.ko (tests/guest/splat.sh).
# Each must end in the class's exit code (vm/splats.txt), within 10 s of
# being seen in the console, with the result reported before the splat
# kept and the test in flight named with the class and where it hit.
# Hard lockups need the NMI watchdog, which TCG cannot drive: that class is
# checked on a recorded console in tests/unit/test-splat.sh only.
# Usage: test-runner.sh [MODE...]   Environment: O, and vm/job.sh's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/tests/host}
O=${O:-.output}
. "$top/lib/ktap.sh"
suite_lib=$top/lib
. "$suite_lib/exitcodes.sh"
# mode  class        needs a RIP in the report
CASES="softlockup soft_lockup rip
rcu_stall rcu_stall -
hung_task hung_task -
bug bug rip
oops bug rip
warning warning rip
panic panic -"
[ $# -gt 0 ] && CASES=$(for m; do echo "$CASES" | awk -v m="$m" '$1 == m'; done)

# provoke MODE CLASS RIP: one boot; the checks, or why they failed.
provoke() {
	mode=$1 cls=$2 rip=$3
	dir=${CHECK:-$O/check}/runner-$mode
	mkdir -p "$dir" && echo "MODE=$mode" >"$dir/splat.env"
	code=$(awk -v c="$cls" '$1 == c { print $2 }' "$top/vm/splats.txt")
	eval "code=\$$code"
	t0=$(date +%s)
	sh "$here/guest.sh" splat "$dir/vm" "$dir/splat.tap" "$dir/splat.env" >"$dir/log" 2>&1
	secs=$(($(date +%s) - t0))
	rc=$(cat "$dir/vm/vm.rc" 2>/dev/null)
	[ "$rc" = "$code" ] || { echo "vm exit $rc, want $code ($cls) after ${secs}s: $(tail -n 3 "$dir/log" | tr '\n' ' ')"; return 1; }
	seen=$(sed -n 's/^seen_s //p' "$dir/vm/splat.txt") stopped=$(sed -n 's/^stopped_s //p' "$dir/vm/splat.txt")
	[ -n "$seen" ] && [ $((stopped - seen)) -le 10 ] || { echo "stopped ${stopped}s after boot, seen at ${seen}s: too slow"; return 1; }
	grep -qx 'ok 1 result_before_the_splat' "$dir/splat.tap" || { echo "the result before the splat was lost"; return 1; }
	grep -q "^not ok 2 provoke_$mode # guest $(echo "$cls" | tr _ ' ') at [^ ]" "$dir/splat.tap" ||
		{ echo "no 'not ok 2 provoke_$mode # guest $cls at ...': $(grep '^not ok' "$dir/splat.tap")"; return 1; }
	if [ "$rip" = rip ]; then
		grep -q '^rip [a-z_]' "$dir/vm/splat.txt" || { echo "no RIP in the report: $(cat "$dir/vm/splat.txt")"; return 1; }
	fi
	# (hung task and panic stacks are printed below the console's loglevel)
	grep -q '^frames [a-z_]' "$dir/vm/splat.txt" || [ "$cls" = panic ] || [ "$cls" = hung_task ] ||
		{ echo "no frames in the report: $(cat "$dir/vm/splat.txt")"; return 1; }
	echo "$cls caught: seen ${seen}s after boot, stopped ${stopped}s, at $(sed -n 's/^at //p' "$dir/vm/splat.txt")"
}

ktap_plan $(echo "$CASES" | awk '{ print "runner_catches_" $1 }')
ktap_start
while read -r mode cls rip; do
	ktap_begin "runner_catches_$mode"
	if out=$(provoke "$mode" "$cls" "$rip" </dev/null); then
		ktap_diag "$out"
		ktap_pass "runner_catches_$mode"
	else
		ktap_fail "runner_catches_$mode" "$out"
	fi
done <<EOF
$CASES
EOF
ktap_finish
