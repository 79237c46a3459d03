#!/bin/sh
# Count the top-level KTAP results of every file given and print the line
# CI reads: "N passed, N failed, N skipped". Subtests (indented) are not
# counted twice. A document whose results do not match its plan (a test that
# crashed half-way) counts as one failure. A SKIP fails the run: nothing in
# this suite may skip silently (tests/README.md).
# A FILE that does not exist (a part that produced no KTAP) counts as one
# failure too. An XFAIL (a known kernel bug, validate/known-bugs.txt) and an
# XPASS (one that did not show) count as passed, each listed by name.
# --expect-skip NAME: a SKIP of test NAME is expected (native mode's crash
# test, which needs the VM): counted and listed with its reason, not failed.
# Usage: summary.sh [--expect-skip NAME]... FILE.tap...
set -u
expected=' '
while [ "${1:-}" = --expect-skip ]; do expected="$expected$2 "; shift 2; done
missing=
for f; do [ -r "$f" ] || missing="$missing $f"; done
for f in $missing; do
	shift_out=
	for g; do [ "$g" = "$f" ] || shift_out="$shift_out $g"; done
	set -- $shift_out
done
awk -v missing="$missing" -v expected="$expected" '
	BEGIN { for (i = 1; i < ARGC; i++) files[++nfiles] = ARGV[i] }
	/^1\.\.[0-9]+$/ { plan[FILENAME] = substr($0, 4) + 0 }
	/^(not )?ok [0-9]+/ {
		seen[FILENAME]++
		if ($0 ~ /^ok / && $0 ~ /# *SKIP/ && index(expected, " " $3 " ")) { skip++; xskipped = xskipped "\n  " FILENAME ": " $0 }
		else if ($0 ~ /^ok / && $0 ~ /# *SKIP/) { skip++; uskip++; skipped = skipped "\n  " FILENAME ": " $0 }
		else if ($0 ~ /^ok / && $0 ~ /# *XFAIL/) { pass++; xfailed = xfailed "\n  " FILENAME ": " $0 }
		else if ($0 ~ /^ok / && $0 ~ /# *XPASS/) { pass++; xpassed = xpassed "\n  " FILENAME ": " $0 }
		else if ($0 ~ /^ok /) pass++
		else { fail++; failed = failed "\n  " FILENAME ": " $0 }
	}
	END {
		nm = split(missing, M, " ")
		for (i = 1; i <= nm; i++) { fail++; failed = failed "\n  " M[i] ": no KTAP: the part did not run" }
		for (i = 1; i <= nfiles; i++) {
			f = files[i]
			if (!(f in plan) || plan[f] != seen[f] + 0) {
				fail++
				failed = failed "\n  " f ": plan " (f in plan ? "1.." plan[f] : "missing") ", " seen[f] + 0 " results"
			}
		}
		if (xfailed != "") print "known kernel bugs, as expected (XFAIL, counted as passed):" xfailed
		if (xpassed != "") print "XPASS: a known kernel bug did not show; update validate/known-bugs.txt:" xpassed
		if (failed != "") print "failed:" failed
		if (xskipped != "") print "skipped, as expected here:" xskipped
		if (skipped != "") print "skipped (unexpected):" skipped
		printf "%d passed, %d failed, %d skipped\n", pass, fail, skip
		exit (fail > 0 || uskip > 0 || pass == 0)
	}
' "$@" </dev/null
