# patch-check's report: the guest jobs' KTAP results on the base kernel
# against the patched one, test by test.
# Usage: awk [-v fixes=ID] -f patch-report.awk known-bugs.txt \
#            side=base BASE.tap... side=patched PATCHED.tap...
# A test is FILE:NAME (FILE the KTAP file's name), its result pass, fail,
# xfail (a known kernel bug, as validate/known-bugs.txt says), xpass (that
# bug did not show) or skip; its description is what follows '#' on its
# line, its diagnostic the last '# NAME: ...' line before it.
# Exit: 0; 4 a test got worse (passed, or failed as a known bug, on the
# base and fails on the patched kernel, or is gone); 3 (none worse) the
# finding FIXES still shows, or none of its tests ran.
FILENAME ~ /known-bugs\.txt$/ {
	if ($0 !~ /^#/ && NF > 2) {
		split($0, col, "|")
		id = trim(col[1]); t = trim(col[2])
		if (id == fixes)
			fix_test[t] = 1
	}
	next
}
FNR == 1 { file = FILENAME; sub(/.*\//, "", file); sub(/\.tap$/, "", file) }
{
	line = $0
	sub(/^[ \t]*(\[ *[0-9]+s\] )?/, "", line)
}
line ~ /^# [A-Za-z0-9_]+: / {
	n = line; sub(/^# /, "", n); sub(/:.*/, "", n)
	diag[side, file ":" n] = substr(line, 3)
	next
}
line ~ /^(not )?ok [0-9]+ [^ ]/ {
	res = line ~ /^not / ? "fail" : "pass"
	name = line; sub(/^(not )?ok [0-9]+ /, "", name)
	desc = ""
	if (index(name, " # ")) {
		desc = substr(name, index(name, " # ") + 3)
		name = substr(name, 1, index(name, " # ") - 1)
	}
	if (desc ~ /^XFAIL/) res = "xfail"
	else if (desc ~ /^XPASS/) res = "xpass"
	else if (desc ~ /^SKIP/) res = "skip"
	key = file ":" name
	if (!((side, key) in result)) {
		if (side == "base") order[++nkeys] = key
		else if (!(("base", key) in result)) extra[++nextra] = key
	}
	result[side, key] = res
	text[side, key] = desc
	count[side, res]++
	if (side == "patched" && name in fix_test)
		fixes_seen[key] = 1
}
function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
function totals(s) {
	return count[s, "pass"] + 0 " passed, " count[s, "fail"] + 0 " failed, " \
		count[s, "xfail"] + 0 " known bugs (XFAIL), " count[s, "xpass"] + 0 " XPASS, " \
		count[s, "skip"] + 0 " skipped"
}
function worse(b, p) { return p == "fail" && b != "fail" }
function show(key, s) {
	printf "    %s\n", text[s, key] != "" ? text[s, key] : "(no description)"
	if ((s, key) in diag) printf "    # %s\n", diag[s, key]
}
END {
	print "patch-check report: the guest jobs on the base kernel and on the patched one"
	print "base:    " totals("base")
	print "patched: " totals("patched")
	nchanged = nworse = 0
	for (i = 1; i <= nkeys; i++) {
		k = order[i]
		b = result["base", k]
		p = (("patched", k) in result) ? result["patched", k] : "gone"
		if (b == p) continue
		changed[++nchanged] = k
		if (worse(b, p) || p == "gone") worse_keys[++nworse] = k
	}
	print ""
	print "changed: " nchanged + nextra
	for (i = 1; i <= nchanged; i++) {
		k = changed[i]
		p = (("patched", k) in result) ? result["patched", k] : "gone"
		printf "  %s: %s -> %s\n", k, toupper(result["base", k]), toupper(p)
		if (p != "gone") show(k, "patched")
	}
	for (i = 1; i <= nextra; i++)
		printf "  %s: (not run) -> %s\n", extra[i], toupper(result["patched", extra[i]])
	print ""
	print "got worse: " nworse
	for (i = 1; i <= nworse; i++)
		printf "  %s\n", worse_keys[i]
	status = nworse ? 4 : 0
	if (fixes != "") {
		print ""
		n = fixed = 0
		for (k in fixes_seen) {
			n++
			if (result["patched", k] == "xpass") { fixed++; continue }
			# A crash test that did not meet the bug in too few crashes
			# to say it is gone (known-bugs.txt's xpass_after).
			if (result["patched", k] == "xfail" && text["patched", k] ~ /not met in /) { unsure[k] = 1; nunsure++; continue }
			still[k] = 1
		}
		if (!n) {
			print "finding " fixes ": none of its tests ran on the patched kernel"
		} else if (fixed + nunsure == n) {
			print "finding " fixes ": fixed: " fixed " of its " n " test(s) pass on the patched kernel (XPASS)" \
				(nunsure ? ", " nunsure " did not meet it in too few tries to tell:" : "")
			for (k in unsure) {
				printf "  %s: %s\n", k, toupper(result["patched", k])
				show(k, "patched")
			}
		} else {
			print "finding " fixes ": STILL SHOWS on the patched kernel, in " n - fixed " of its " n " test(s):"
			for (k in still) {
				printf "  %s: %s\n", k, toupper(result["patched", k])
				show(k, "patched")
			}
		}
		if (!status && (!fixed || fixed + nunsure < n)) status = 3
	}
	exit status
}
