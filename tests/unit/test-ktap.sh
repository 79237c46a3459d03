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

# A known kernel bug: XFAIL and XPASS are "ok" lines with their directive,
# the XPASS with a loud line; the summary counts both as passed and lists
# them by name; the totals count them.
xfail_xpass() {
	doc 'ktap_plan a b c; ktap_start; ktap_xfail a "bug x on k"; ktap_xpass b "bug y gone"; ktap_fail c no; ktap_finish'
	grep -qx 'ok 1 a # XFAIL bug x on k' "$tmp/out" && grep -qx 'ok 2 b # XPASS bug y gone' "$tmp/out" &&
		grep -q '^# XPASS: b passed: a known kernel bug did not show' "$tmp/out" &&
		grep -q 'xfail:1 xpass:1' "$tmp/out" || { cat "$tmp/out"; return 1; }
	sh "$root/tests/summary.sh" "$tmp/out" >"$tmp/sum" 2>&1
	grep -qx '2 passed, 1 failed, 0 skipped' "$tmp/sum" && grep -q '^known kernel bugs, as expected' "$tmp/sum" &&
		grep -q '^XPASS: a known kernel bug did not show' "$tmp/sum" || { cat "$tmp/sum"; return 1; }
}
# A SKIP fails the summary unless named by --expect-skip (native mode's
# crash test), which lists it apart and exits 0.
expected_skip() {
	doc 'ktap_plan a crash_test; ktap_start; ktap_pass a; ktap_skip crash_test "needs the VM"; ktap_finish'
	sh "$root/tests/summary.sh" "$tmp/out" >"$tmp/sum" 2>&1 && { echo "an unexpected SKIP passed: $(cat "$tmp/sum")"; return 1; }
	grep -q '^skipped (unexpected):' "$tmp/sum" || { cat "$tmp/sum"; return 1; }
	sh "$root/tests/summary.sh" --expect-skip crash_test "$tmp/out" >"$tmp/sum" 2>&1 || { echo "expected SKIP failed: $(cat "$tmp/sum")"; return 1; }
	grep -qx '1 passed, 0 failed, 1 skipped' "$tmp/sum" && grep -q '^skipped, as expected here:' "$tmp/sum" &&
		grep -q 'crash_test # SKIP needs the VM' "$tmp/sum" || { cat "$tmp/sum"; return 1; }
	sh "$root/tests/summary.sh" --expect-skip other "$tmp/out" >/dev/null 2>&1 && { echo "--expect-skip other accepted crash_test"; return 1; }
	return 0
}
known_bug_rows() {
	# shellcheck disable=SC2034
	suite_lib=$root/lib
	known_bugs_file=$root/validate/known-bugs.txt
	[ "$(known_bug clean_xfs_reflinked evidence)" = change_after_insert ] &&
		[ "$(known_bug clean_xfs_reflinked rule)" = CHANGE_AFTER_INSERT ] &&
		! known_bug clean_ext4_written >/dev/null
}

ktap_plan_checks "$0"
ktap_start
ktap_check plan_counts_declared_tests counted_plan
ktap_check declared_never_reported_fails never_reported
ktap_check undeclared_result_fails not_declared
ktap_check plan_of_a_check_list plan_from_checks
ktap_check xfail_and_xpass_are_counted_and_listed xfail_xpass
ktap_check known_bugs_table_lookup known_bug_rows
ktap_check summary_expected_skip expected_skip
ktap_finish
