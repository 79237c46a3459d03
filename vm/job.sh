#!/bin/sh
# The guest-job contract: every guest run of the suite (tests, reproduce,
# overhead, the crash test) goes through here. Stages SCRIPT as the job's
# /job/run with the suite's static binaries and the files asked for, boots
# the VM (vm/run.sh) on N NVDIMMs, and leaves under OUTDIR: results.txt (the
# job's KTAP and lines), files/NAME (what the job emitted), console.log,
# splat.txt when the kernel splatted.
# Usage: job.sh [options] SCRIPT OUTDIR
#   --file F       F into the job folder, /job/F in the guest (repeatable)
#   --pmem N       N NVDIMMs (default 2); backing files DIR/pmem0.img ...
#   --pmem-dir D   keep them in D, not OUTDIR
#   --keep-pmem    do not remove them at the end (a next boot reuses them:
#                  the crash test); without it they go on every exit
#   any other option is vm/run.sh's (--timeout, --expect-panic, --quiet, ...)
# Environment: VMLINUZ, INITRD (from the Makefile), BINDIR (static binaries).
# Exit status: vm/run.sh's: the job's, else lib/exitcodes.h's EXIT_VM_*.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/vm}
suite_lib=$top/lib
. "$suite_lib/exitcodes.sh"
files= npmem=2 pmem_dir= keep=
set_usage() { echo "vm/job.sh: $*" >&2; exit $EXIT_VM_SETUP; }
while [ $# -gt 0 ]; do
	case $1 in
	--file) files="$files $2"; shift ;;
	--pmem) npmem=$2; shift ;;
	--pmem-dir) pmem_dir=$2; shift ;;
	--keep-pmem) keep=1 ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 2 ] || set_usage "usage: job.sh [--file F]... [--pmem N] [--pmem-dir D] [--keep-pmem] SCRIPT OUTDIR [run.sh options]"
script=$1 outdir=$2; shift 2
case $npmem in [1-9]) ;; *) set_usage "--pmem must be 1..9, not '$npmem'" ;; esac
pmem_dir=${pmem_dir:-$outdir}

# Nothing of an earlier run may be read as this one's; the backing files
# (sparse, 512 MiB each) go on every exit unless kept, Ctrl-C too.
rm -rf "$outdir/job" "$outdir/files"
pmems=
i=0
while [ $i -lt "$npmem" ]; do pmems="$pmems $pmem_dir/pmem$i.img"; i=$((i + 1)); done
cleanup() {
	[ -n "$keep" ] || rm -f $pmems
	rm -f "$outdir/initrd.img"
}
trap cleanup EXIT
mkdir -p "$outdir/job/bin" "$outdir/files" "$pmem_dir" || exit $EXIT_VM_SETUP
cp "$script" "$outdir/job/run" && chmod +x "$outdir/job/run" || exit $EXIT_VM_SETUP
for f in $files; do cp "$f" "$outdir/job/" || exit $EXIT_VM_SETUP; done
[ -n "${BINDIR:-}" ] && cp "$BINDIR"/* "$outdir/job/bin/" 2>/dev/null
[ -n "$keep" ] || rm -f $pmems
for p in $pmems; do set -- "$@" --pmem "$p"; done
# In the background, so that a signal to this script is acted on at once
# and passed on (run.sh then stops QEMU), not after the guest ends.
sh "$here/run.sh" --kernel "$VMLINUZ" --initrd "$INITRD" --out "$outdir" "$@" "$outdir/job" &
runpid=$!
trap 'kill -TERM $runpid 2>/dev/null; wait $runpid; exit 130' INT TERM
wait $runpid
