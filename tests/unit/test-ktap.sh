#!/bin/sh
# The shell KTAP emitter (lib/ktap.sh): the plan is what was declared, a
# declared test that never reports fails by name, an undeclared one fails.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# doc SCRIPT: the KTAP a child shell prints running SCRIPT with the emitter.
doc() { sh -c ". '$root/lib/ktap.sh'; $1" >"$tmp/out" 2>&1; echo $? >"$tmp/rc"; }

counted_plan() {
	doc 'ktap_plan a b; ktap_plan c; ktap_start; ktap_pass a; ktap_pass b; ktap_skip c why; ktap_finish'
	grep -qx '1\.\.3' "$tmp/out" && [ "$(cat "$tmp/rc")" = 0 ] || { cat "$tmp/out"; return 1; }
}
never_reported() {
	doc 'ktap_plan a b; ktap_start; ktap_pass a; ktap_finish'
	grep -qx 'not ok 2 b # never reported (declared by ktap_plan)' "$tmp/out" &&
		[ "$(cat "$tmp/rc")" = 1 ] || { cat "$tmp/out"; return 1; }
}
not_declared() {
	doc 'ktap_plan a; ktap_start; ktap_pass a; ktap_pass z; ktap_finish'
	grep -q '^not ok 2 z # not in the plan' "$tmp/out" && [ "$(cat "$tmp/rc")" = 1 ] || { cat "$tmp/out"; return 1; }
}
plan_from_checks() {
	{ printf '. "%s/lib/ktap.sh"\n' "$root"
	  printf 'ktap_plan_checks "$0"\nktap_start\nktap_check one true\nktap_check two false\nktap_finish\n'
	} >"$tmp/u.sh"
	sh "$tmp/u.sh" >"$tmp/out" 2>&1
	grep -qx '1\.\.2' "$tmp/out" && grep -q '^not ok 2 two' "$tmp/out" || { cat "$tmp/out"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check plan_counts_declared_tests counted_plan
ktap_check declared_never_reported_fails never_reported
ktap_check undeclared_result_fails not_declared
ktap_check plan_of_a_check_list plan_from_checks
ktap_finish
