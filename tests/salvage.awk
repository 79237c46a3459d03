# Turn what a guest job printed before it died into a KTAP document that
# keeps every result it already reported, and names the test in flight as
# one 'not ok' with the reason (tests/host/guest.sh).
# Usage: awk -v job=NAME -v reason=TEXT [-v splat=FILE] -f salvage.awk results.txt
#   The test in flight is the last '# begin NAME' (lib/ktap.sh) after the
#   last top-level result, else "guest_JOB".
/^KTAP version/ { next }
/^1\.\.[0-9]+$/ { planned = substr($0, 4) + 0; next }
/^(not )?ok [0-9]+/ { n++; line[++nl] = $0; inflight = ""; next }
/^# begin / { inflight = substr($0, 9); line[++nl] = $0; next }
/^# Totals:/ { next }
{ line[++nl] = $0 }
END {
	name = inflight != "" ? inflight : "guest_" job
	print "KTAP version 1"
	print "1.." n + 1
	for (i = 1; i <= nl; i++) print line[i]
	print "not ok " n + 1 " " name " # " reason
	if (planned) print "# the job planned " planned " results and reported " n " before it died"
	if (splat != "")
		while ((getline l < splat) > 0)
			if (l ~ /^(line|rip|frames) /) print "# splat " l
}
