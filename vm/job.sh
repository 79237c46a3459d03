#!/bin/sh
# Run a guest script as a job: stage it with the suite's static binaries and
# shell helpers, boot the VM on fresh NVDIMM files, keep everything under
# OUTDIR. Files the job prints between '@@file NAME' and '@@end' lines are
# written to OUTDIR/files/NAME; the rest stays in OUTDIR/results.txt.
# Usage: job.sh SCRIPT OUTDIR [vm/run.sh options]
# Environment: VMLINUZ, INITRD (from the Makefile), BINDIR (static binaries),
# JOB_FILES (more files for the job folder).
# Exit status: vm/run.sh's.
set -u
script=$1 outdir=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/vm}
suite_lib=$top/lib
. "$suite_lib/exitcodes.sh"

# Nothing of an earlier run may be read as this one's, and the backing files
# (1 GiB of sparse data nobody reads after a run) go on every exit, Ctrl-C too.
rm -rf "$outdir/job" "$outdir/files" "$outdir/results.txt" "$outdir/results.raw" "$outdir/splat.txt"
trap 'rm -f "$outdir"/pmem*.img "$outdir/initrd.img" "$outdir/results.txt.tmp"' EXIT
mkdir -p "$outdir/job/bin" "$outdir/files" || exit $EXIT_VM_SETUP
cp "$script" "$outdir/job/run" && chmod +x "$outdir/job/run" || exit $EXIT_VM_SETUP
for f in ${JOB_FILES:-}; do cp "$f" "$outdir/job/" || exit $EXIT_VM_SETUP; done
[ -n "${BINDIR:-}" ] && cp "$BINDIR"/* "$outdir/job/bin/" 2>/dev/null
rm -f "$outdir"/pmem*.img
# In the background, so that a signal to this script is acted on at once
# and passed on (run.sh then stops QEMU), not after the guest ends.
sh "$here/run.sh" --kernel "$VMLINUZ" --initrd "$INITRD" --out "$outdir" \
	--pmem "$outdir/pmem0.img" --pmem "$outdir/pmem1.img" "$@" "$outdir/job" &
runpid=$!
trap 'kill -TERM $runpid 2>/dev/null; wait $runpid; exit 130' INT TERM
wait $runpid
rc=$?
trap - INT TERM
[ -f "$outdir/results.txt" ] || exit $rc
awk -v dir="$outdir/files" '
	BEGIN { printf "" > (dir "/../results.txt.tmp") }
	/^@@file / {
		f = dir "/" $2
		d = f
		sub(/\/[^/]*$/, "", d)
		system("mkdir -p \"" d "\"")
		next
	}
	/^@@end$/ { close(f); f = ""; next }
	f != "" { print > f; next }
	{ print > (dir "/../results.txt.tmp") }
' "$outdir/results.txt" && mv "$outdir/results.txt.tmp" "$outdir/results.txt"
exit $rc
