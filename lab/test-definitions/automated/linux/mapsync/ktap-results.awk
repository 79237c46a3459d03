# One KTAP document (a guest job's stdout, lib/ktap.sh's format) to the
# result lines of Linaro's test-definitions, "NAME RESULT", which
# ../../utils/send-to-lava.sh turns into lava-test-case calls.
#   awk -v prefix=JOB -f ktap-results.awk JOB.tap >>output/result.txt
# prefix: every name becomes JOB-NAME (test names are unique within a job,
# not across jobs: smoke and check both have ext4_mount_dax).
#   ok N NAME                    pass
#   ok N NAME # SKIP why         skip
#   ok N NAME # XFAIL|XPASS why  pass (a known kernel bug seen as expected, or
#                                gone: lib/ktap.sh and tests/summary.sh count
#                                both as passed; the why stays in the log)
#   not ok N NAME # why          fail (not ok ... # SKIP: skip)
# Indented lines (subtests) and diagnostics are not results. Characters LAVA
# does not take in a test case name become '_'.
# Last, JOB-ktap-complete: pass when the plan (1..N) was met by N results
# and the document ended (its "# Totals" line), else fail and why on
# stderr: a job that hung, was stopped by mapsync.sh's watchdog, crashed,
# or printed no KTAP at all.
function clean(s) {
	gsub(/[^-_a-zA-Z0-9.]/, "_", s)
	return s
}
function emit(name, result) {
	print (prefix == "" ? "" : prefix "-") clean(name) " " result
}
/^1\.\.[0-9]+/ {
	plan = substr($1, 4) + 0
	planned = 1
	next
}
/^# Totals:/ {
	ended = 1
	next
}
/^(not )?ok [0-9]+/ {
	line = $0
	ok = substr(line, 1, 3) == "ok "
	sub(/^(not )?ok [0-9]+[ \t]*/, "", line)
	sub(/^-[ \t]+/, "", line)
	directive = ""
	if ((i = index(line, " # ")) > 0) {
		directive = substr(line, i + 3)
		line = substr(line, 1, i - 1)
	} else if (line ~ /^# /) {
		directive = substr(line, 3)
		line = ""
	}
	sub(/[ \t]+$/, "", line)
	results++
	if (line == "")
		line = "test_" results
	if (directive ~ /^SKIP([ :]|$)/)
		emit(line, "skip")
	else
		emit(line, ok ? "pass" : "fail")
}
END {
	why = ""
	if (!planned)
		why = "no KTAP plan line (1..N)"
	else if (results != plan)
		why = results " results for a plan of " plan
	else if (!ended)
		why = "the document did not end (no # Totals line)"
	if (why != "")
		print "ktap-results: " (prefix == "" ? "" : prefix ": ") why > "/dev/stderr"
	emit("ktap-complete", why == "" ? "pass" : "fail")
}
