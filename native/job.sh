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
# The job works in a fresh folder DIR/.mapsync-native.XXXXXX and never
# touches anything else in DIR; it mounts nothing. The folder holds an
# owner record, .owner:
#   mapsync-native work folder
#   runner PID START BOOT   this script: pid, start time (/proc/PID/stat
#                           field 22) and /proc/sys/kernel/random/boot_id
#   started DATE
#   work DIR/.mapsync-native.XXXXXX
# and every process of the job carries MAPSYNC_NATIVE_RUN=that folder in
# its environment, whatever its process group (daxlat -c and syncorder -c
# put their command in its own). On every exit (SIGINT, SIGTERM, SIGHUP
# too) those processes are killed and the folder removed. SIGKILL runs no
# trap: a guard in a session of its own (job.sh --guard, not for use by
# hand) then does both within a second. If the guard went too (a process
# tree killed, the machine down), the next run on DIR does it: first, one
# line per .mapsync-native.* folder it finds: one with a record whose
# runner is gone is stopped and removed, an empty one (killed before its
# record) removed, a running run's and one without a record (not ours)
# left alone.
# Environment: BINDIR (the suite's binaries, default .output/bin).
# Exit status: the job's, else lib/exitcodes.h's (130 on SIGINT/SIGTERM,
# 129 on SIGHUP).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/native}
suite_lib=$top/lib
. "$suite_lib/exitcodes.sh"
usage() { echo "native/job.sh: $*" >&2; exit $EXIT_USAGE; }
owner_magic='mapsync-native work folder'
boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)

# proc_start PID: its start time since boot, empty when there is no PID.
proc_start() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20
}

# marked WORK: the processes started with WORK as their run (a zombie's
# environment is empty: it is gone).
marked() {
	grep -l -s -z -x -F "MAPSYNC_NATIVE_RUN=$1" /proc/[0-9]*/environ | cut -d/ -f3
}

# reap WORK: kill them, again until none is left (a shell may fork while
# they go); prints how many there were.
reap() {
	seen= i=0
	while pids=$(marked "$1") && [ -n "$pids" ] && [ $i -lt 100 ]; do
		kill -KILL $pids 2>/dev/null
		for p in $pids; do case " $seen " in *" $p "*) ;; *) seen="$seen $p" ;; esac; done
		sleep 0.1
		i=$((i + 1))
	done
	echo $seen | wc -w
}

# --guard RUNNER START WORK: wait for the runner to end; if it left WORK
# (it was killed with SIGKILL), stop the job and remove WORK.
if [ "${1:-}" = --guard ]; then
	[ -n "${3:-}" ] || exit 0
	while [ "$(proc_start "$2")" = "$3" ]; do sleep 1; done
	[ -d "$4" ] || exit 0
	n=$(reap "$4")
	rm -rf "$4"
	echo "native/job.sh: the runner (pid $2) was killed: stopped $n processes of its job, removed $4" >&2
	exit 0
fi

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
# One spelling of the folder for every run (the records name it).
target=$(cd "$target" && pwd -P)

# leftover D: what an earlier run left in D, one line; removes only its own.
leftover() {
	[ -d "$1" ] && [ ! -L "$1" ] || return 0
	if [ -f "$1/.owner" ] && [ ! -L "$1/.owner" ] && [ "$(head -n 1 "$1/.owner")" = "$owner_magic" ]; then
		set -- "$1" $(awk '$1 == "runner" { print $2, $3, $4 }' "$1/.owner")
		started=$(sed -n 's/^started //p' "$1/.owner")
		if [ "${4:-}" = "$boot" ] && [ -n "${3:-}" ] && [ "$(proc_start "${2:-0}")" = "$3" ]; then
			echo "native: $1: in use by a running native job (pid $2): left alone"
			return
		fi
		w=$(sed -n 's/^work //p' "$1/.owner")
		n=$(reap "${w:-$1}")
		rm -rf "$1"
		echo "native: $1: left by a native run (pid ${2:-?}, started $started): stopped $n of its processes, removed it"
	elif [ -z "$(ls -A "$1" | grep -v -x -F .owner.new)" ]; then
		rm -f "$1/.owner.new" && rmdir "$1" &&
			echo "native: $1: empty, no owner record (a run killed as it started): removed"
	else
		echo "native: $1: no owner record: not the suite's, left alone"
	fi
}
for d in "$target"/.mapsync-native.*; do leftover "$d"; done

work= pid= guard=
cleanup() {
	[ -n "$work" ] && reap "$work" >/dev/null && rm -rf "$work"
	[ -n "$guard" ] && kill -TERM "-$guard" 2>/dev/null && wait "$guard"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'exit 129' HUP
rm -rf "$outdir/job" "$outdir/files" "$outdir/tmp" "$outdir/results.raw"
# The job's scratch files go to OUTDIR/tmp (TMPDIR), never the host's /tmp.
mkdir -p "$outdir/job" "$outdir/files" "$outdir/tmp" || exit $EXIT_RUNTIME
outdir=$(cd "$outdir" && pwd)
cp "$script" "$outdir/job/run" || exit $EXIT_RUNTIME
for f in $files; do cp "$f" "$outdir/job/" || exit $EXIT_RUNTIME; done
ln -s "$bindir" "$outdir/job/bin"
work=$(mktemp -d "$target/.mapsync-native.XXXXXX") || exit $EXIT_RUNTIME
# The record whole or not at all; then the guard, before the job.
start=$(proc_start $$)
[ -n "$start" ] || { echo "native/job.sh: no /proc/$$/stat: native mode needs /proc" >&2; exit $EXIT_RUNTIME; }
printf '%s\nrunner %s %s %s\nstarted %s\nwork %s\n' "$owner_magic" $$ "$start" "$boot" \
	"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$work" >"$work/.owner.new" && mv "$work/.owner.new" "$work/.owner" ||
	{ echo "native/job.sh: cannot write $work/.owner" >&2; exit $EXIT_RUNTIME; }
setsid sh "$here/job.sh" --guard $$ "$start" "$work" </dev/null >/dev/null &
guard=$!
echo "native: $(echo "$facts" | jq -r '"\(.dir): \(.fs), DAX (\(.dax_from)), MAP_SYNC \(.map_sync)"'); working in $work"

# Its own session: the watchdog and Ctrl-C stop the job's whole tree.
: >"$outdir/results.raw"
(cd "$outdir/job" && SUITE=$top JOB_DIR=$outdir/job NATIVE_TARGET=$work NATIVE_FS=$fs MAPSYNC_NATIVE_RUN=$work TMPDIR=$outdir/tmp \
	exec setsid sh ./run) >"$outdir/results.raw" 2>"$outdir/console.log" </dev/null &
pid=$!
# Progress: the job's result lines as they come, not its emitted files.
MAPSYNC_NATIVE_RUN=$work setsid sh -c 'tail -f "$1" 2>/dev/null | awk "/^@@file /{f=1;next} /^@@end\$/{f=0;next} !f && /^(ok|not ok) /{print \"  \" \$0; fflush()}"' \
	progress "$outdir/results.raw" &
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
# Whatever of the job's tree is left goes too, whatever its process group.
reap "$work" >/dev/null
awk -v dir="$outdir/files" -v txt="$outdir/results.txt" -f "$top/vm/results.awk" "$outdir/results.raw" >/dev/null
exit $rc
