# patch-check's report: the guest jobs' KTAP results on the base kernel
# against the patched one, test by test.
# Usage: awk [-v fixes=ID] [-v list=changed] -f patch-report.awk known-bugs.txt \
#            side=base BASE.tap... side=patched PATCHED.tap... \
#            [side=base_again BASE.tap... side=patched_again PATCHED.tap...]
# The _again sides are the jobs of the changed tests run again on each
# kernel (LKP confirms a change the same way): a change that does not show
# again is reported as not reproduced and does not count as worse.
# -v list=changed prints only the KTAP files (names without .tap) that hold
# a changed test, one a line: the jobs to run again.
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
FNR == 1 {
	file = FILENAME; sub(/.*\//, "", file); sub(/\.tap$/, "", file)
	if (side ~ /_again$/) ran_again[substr(side, 1, length(side) - 6), file] = 1
}
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
	if (side ~ /_again$/) {
		s = substr(side, 1, length(side) - 6)
		again[s, key] = again[s, key] (again[s, key] != "" ? "," : "") res
		next
	}
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
# again_of(S, K): K's results when its job ran again on side S ("pass,fail"),
# "gone" if that job ran again without it, "" if it did not run again.
function again_of(s, k,   f) {
	f = k; sub(/:.*/, "", f)
	if (!((s, f) in ran_again)) return ""
	return ((s, k) in again) ? again[s, k] : "gone"
}
function all_are(list, v,   n, a, i) {
	n = split(list, a, ",")
	for (i = 1; i <= n; i++)
		if (a[i] != v) return 0
	return 1
}
# confirmed(K, B, P): "yes" when every run again gave each side's result,
# "" when K's job did not run again, else what the runs again gave.
function confirmed(k, b, p,   ab, ap) {
	ab = again_of("base", k); ap = again_of("patched", k)
	if (ab == "" || ap == "") return ""
	if (all_are(ab, b) && all_are(ap, p)) return "yes"
	return "again: base " toupper(ab) ", patched " toupper(ap)
}
function test_name(k) { sub(/^[^:]*:/, "", k); return k }
function show(key, s) {
	printf "    %s\n", text[s, key] != "" ? text[s, key] : "(no description)"
	if ((s, key) in diag) printf "    # %s\n", diag[s, key]
}
END {
	nchanged = nworse = nnoise = 0
	for (i = 1; i <= nkeys; i++) {
		k = order[i]
		b = result["base", k]
		p = (("patched", k) in result) ? result["patched", k] : "gone"
		if (b == p) continue
		changed[++nchanged] = k
		now[k] = p
		conf[k] = confirmed(k, b, p)
		if (!worse(b, p) && p != "gone") continue
		if (conf[k] == "" || conf[k] == "yes") worse_keys[++nworse] = k
		else noise_keys[++nnoise] = k
	}
	# The finding's own tests are not run again: they repeat within
	# themselves (known-bugs.txt's xpass_after).
	if (list == "changed") {
		for (i = 1; i <= nchanged; i++) {
			f = changed[i]; sub(/:.*/, "", f)
			if (!(test_name(changed[i]) in fix_test) && !(f in listed)) { listed[f] = 1; print f }
		}
		exit 0
	}
	print "patch-check report: the guest jobs on the base kernel and on the patched one"
	print "base:    " totals("base")
	print "patched: " totals("patched")
	print ""
	print "changed: " nchanged + nextra
	for (i = 1; i <= nchanged; i++) {
		k = changed[i]
		p = now[k]
		printf "  %s: %s -> %s%s\n", k, toupper(result["base", k]), toupper(p),
			conf[k] == "yes" ? " (confirmed: the same when run again)" : conf[k] != "" ? " (NOT REPRODUCED, " conf[k] ")" : ""
		if (p != "gone") show(k, "patched")
	}
	for (i = 1; i <= nextra; i++)
		printf "  %s: (not run) -> %s\n", extra[i], toupper(result["patched", extra[i]])
	print ""
	print "got worse: " nworse
	for (i = 1; i <= nworse; i++)
		printf "  %s\n", worse_keys[i]
	if (nnoise) {
		print "worse once but not when run again (not counted): " nnoise
		for (i = 1; i <= nnoise; i++)
			printf "  %s\n", noise_keys[i]
	}
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
