# Find the first kernel splat in a guest console log (vm/run.sh calls this
# every second while the guest runs, and once after it ended).
# Usage: awk -v table=vm/splats.txt -v exitcodes=lib/exitcodes.h [-v expect=ERE]
#            -f vm/splat.awk console.log
#   expect: a panic whose line matches ERE is the job's own doing (the crash
#   test's sysrq crash), not a splat.
# Prints nothing when there is none, else these lines:
#   class CLASS / code N / line FIRST LINE / rip SYMBOL / frames A < B < C
#   at WHERE (the RIP, else the first frame, else the WARNING's location)
#   complete 0|1 (the report has ended: more waiting adds nothing)
# Exit status: 0 splat found, 1 none, 2 unreadable table.
BEGIN {
	# The table names its exit codes; lib/exitcodes.h numbers them.
	while ((getline row < exitcodes) > 0)
		if (split(row, d, /[ \t]+/) >= 3 && d[1] == "#define" && d[2] ~ /^EXIT_/) num[d[2]] = d[3]
	while ((getline row < table) > 0) {
		if (row ~ /^[ \t]*(#|$)/) continue
		n = split(row, f, /[ \t]+/)
		if (n < 3) continue
		nclass++
		cls[nclass] = f[1]
		code[nclass] = f[2] in num ? num[f[2]] : f[2]
		sub(/^[^ \t]+[ \t]+[^ \t]+[ \t]+/, "", row)
		pat[nclass] = row
	}
	if (!nclass) { print "splat.awk: no rows in '" table "'" > "/dev/stderr"; exit 2 }
}
# The console's printk timestamp is not part of the message.
{ sub(/\r$/, ""); msg = $0; sub(/^\[ *[0-9]+\.[0-9]+\] /, "", msg) }
!found {
	for (i = 1; i <= nclass; i++) {
		if (msg !~ pat[i]) continue
		if (cls[i] == "panic" && expect != "" && msg ~ expect) break
		found = i
		first = msg
		after = 0
		next
	}
	next
}
{ after++ }
# Kernel mode only (CS 0010): a user RIP (0033) ends a syscall's trace.
rip == "" && msg ~ /^RIP: 0010:/ { rip = msg; sub(/^RIP: 0010:/, "", rip); sub(/ .*/, "", rip) }
msg ~ /Call Trace:/ { intrace = 1; next }
intrace && msg ~ /^ *<\/TASK>/ { intrace = 0; complete = 1 }
intrace && nframes < 4 && msg ~ /^ +[A-Za-z_.][A-Za-z0-9_.]*\+0x/ {
	fr = msg
	sub(/^ +/, "", fr)
	sub(/ .*/, "", fr)
	frames = frames (nframes ? " < " : "") fr
	nframes++
}
msg ~ /^---\[ end / || msg ~ /^Kernel panic - not syncing/ { complete = 1 }
after >= 80 { complete = 1 }
END {
	if (nclass == 0) exit 2
	if (!found) exit 1
	at = rip
	if (at == "" && frames != "") { at = frames; sub(/ <.*/, "", at) }
	if (at == "" && first ~ / at [^ ]+/) { at = first; sub(/.* at /, "", at) }
	# A hung task's stack is printed at KERN_INFO, below the console's
	# loglevel: name the task instead.
	if (at == "" && first ~ /INFO: task [^ ]+ blocked/) { at = first; sub(/.*INFO: task /, "", at); sub(/ .*/, "", at) }
	print "class " cls[found]
	print "code " code[found]
	print "line " first
	print "rip " rip
	print "frames " frames
	print "at " at
	print "complete " (complete ? 1 : 0)
	exit 0
}
