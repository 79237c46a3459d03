#!/bin/sh
# The guest-job contract of vm/job.sh, without the VM: runs SCRIPT (a guest
# job: tests/native/check.sh, bench/reproduce-guest.sh) directly on this
# machine, on a DAX filesystem the machine already has mounted, and leaves
# the same things under OUTDIR: results.txt (the job's KTAP and lines),
# files/NAME (what it emitted), console.log (its stderr).
# Usage: job.sh --target DIR [--file F]... SCRIPT OUTDIR [--timeout S]
#   --target DIR  a folder on the DAX filesystem: checked first by daxcheck
#                 (statx STATX_ATTR_DAX and a MAP_SYNC probe); refused with
#                 its one line and exit code (3 not DAX, 4 no MAP_SYNC, 5
#                 MAP_SYNC refused, 2 not a directory) before anything is made
#   --file F      F into the job folder (repeatable)
#   --timeout S   the watchdog: the job's process group is killed after S
#                 seconds (exit 124, as vm/run.sh's)
# The job works in a fresh folder DIR/.mapsync-native.XXXXXX, removed on
# every exit, and never touches anything else in DIR; it mounts nothing.
# Environment: BINDIR (the suite's binaries, default .output/bin).
# Exit status: the job's, else lib/exitcodes.h's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/native}
suite_lib=$top/lib
. "$suite_lib/exitcodes.sh"
usage() { echo "native/job.sh: $*" >&2; exit $EXIT_USAGE; }
target= files= watchdog=3600
while [ $# -gt 0 ]; do
	case $1 in
	--target) target=${2:-}; shift ;;
	--file) files="$files ${2:-}"; shift ;;
	--timeout) watchdog=${2:-}; shift ;;
	-*) usage "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 2 ] || usage "usage: job.sh --target DIR [--file F]... SCRIPT OUTDIR [--timeout S]"
script=$1 outdir=$2; shift 2
[ "${1:-}" = --timeout ] && { watchdog=${2:-}; shift 2; }
[ $# = 0 ] || usage "unexpected arguments: $*"
[ -n "$target" ] || usage "--target DIR is required (a folder on a filesystem mounted -o dax)"
case $watchdog in ''|*[!0-9]*) usage "--timeout must be seconds, not '$watchdog'" ;; esac
bindir=$(cd "${BINDIR:-$top/.output/bin}" 2>/dev/null && pwd) ||
	usage "no suite binaries in ${BINDIR:-$top/.output/bin} (make first)"

# The target first: a refusal leaves nothing behind.
facts=$("$bindir/daxcheck" --json "$target") || exit $?
fs=$(echo "$facts" | jq -r .fs)
. "$suite_lib/filesystems.sh"
fs_list | grep -qx "$fs" ||
	{ echo "native/job.sh: $target is $fs: the suite runs on $(fs_list | tr '\n' ' ')(vm/guest/filesystems.txt)" >&2; exit $EXIT_RUNTIME; }
[ "$(id -u)" = 0 ] || { echo "native/job.sh: the jobs load BPF programs and read /proc/self/pagemap: run as root" >&2; exit $EXIT_RUNTIME; }

work= pid= tailpid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "-$pid" 2>/dev/null
	[ -n "$tailpid" ] && kill -TERM "-$tailpid" 2>/dev/null
	[ -n "$work" ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf "$outdir/job" "$outdir/files" "$outdir/results.raw"
mkdir -p "$outdir/job" "$outdir/files" || exit $EXIT_RUNTIME
outdir=$(cd "$outdir" && pwd)
cp "$script" "$outdir/job/run" || exit $EXIT_RUNTIME
for f in $files; do cp "$f" "$outdir/job/" || exit $EXIT_RUNTIME; done
ln -s "$bindir" "$outdir/job/bin"
work=$(mktemp -d "$target/.mapsync-native.XXXXXX") || exit $EXIT_RUNTIME
echo "native: $(echo "$facts" | jq -r '"\(.dir): \(.fs), DAX (\(.dax_from)), MAP_SYNC \(.map_sync)"'); working in $work"

# Its own session: the watchdog and Ctrl-C stop the job's whole tree.
: >"$outdir/results.raw"
(cd "$outdir/job" && SUITE=$top JOB_DIR=$outdir/job NATIVE_TARGET=$work NATIVE_FS=$fs \
	exec setsid sh ./run) >"$outdir/results.raw" 2>"$outdir/console.log" </dev/null &
pid=$!
# Progress: the job's result lines as they come, not its emitted files.
setsid sh -c 'tail -f "$1" 2>/dev/null | awk "/^@@file /{f=1;next} /^@@end\$/{f=0;next} !f && /^(ok|not ok) /{print \"  \" \$0; fflush()}"' \
	progress "$outdir/results.raw" &
tailpid=$!
waited=0
while kill -0 "$pid" 2>/dev/null && [ $waited -lt "$watchdog" ]; do
	sleep 1
	waited=$((waited + 1))
done
if kill -0 "$pid" 2>/dev/null; then
	kill -TERM "-$pid" 2>/dev/null
	sleep 2
	rc=$EXIT_VM_WATCHDOG
	echo "native/job.sh: watchdog: $script did not end in ${watchdog}s" >&2
else
	wait "$pid"
	rc=$?
fi
# Whatever of the job's tree is left goes too (cleanup).
kill -KILL "-$pid" 2>/dev/null
awk -v dir="$outdir/files" -v txt="$outdir/results.txt" -f "$top/vm/results.awk" "$outdir/results.raw" >/dev/null
exit $rc
