# The result channel of a guest run, parsed in this one place (vm/run.sh):
# KTAP and other lines go to results.txt; the lines between '@@file NAME'
# and '@@end' (vm/guest/lib.sh's emit) become DIR/NAME; the last
# '@@vm-exit N' (vm/guest/init) is the job's exit status, printed on stdout
# (nothing when the guest never said it).
# Usage: awk -v dir=OUT/files -v txt=OUT/results.txt -f vm/results.awk results.raw
BEGIN { printf "" > txt }
/^@@vm-exit [0-9]+$/ { rc = $2; next }
/^@@file / {
	f = dir "/" $2
	# The folder: f less its last part (busybox awk, which native/job.sh
	# uses in the guest, rejects a bracket holding a slash in a regex).
	n = split(f, part, "/")
	d = substr(f, 1, length(f) - length(part[n]) - 1)
	system("mkdir -p \"" d "\"")
	printf "" > f
	next
}
/^@@end$/ { if (f != "") close(f); f = ""; next }
f != "" { print > f; next }
{ print > txt }
END { if (rc != "") print rc }
