#!/bin/sh
# Run one guest job of tests/guest/jobs.txt in the VM and leave its KTAP in
# CHECK/guest-NAME.tap, printing each result as it arrives. A guest that
# splats, hangs or dies keeps every result it already reported; the test in
# flight becomes one 'not ok' naming the reason (tests/salvage.awk).
# Usage: guest.sh NAME [OUTDIR TAPFILE [FILE...]]: FILEs go into the job
# folder too; OUTDIR/vm.rc gets the VM run's exit status (lib/exitcodes.h).
# Environment: O (build folder), CHECK (KTAP folder, O/check), KOUT (the
# kernel's build folder, where the jobs' extra files are), VM_TIMEOUT (overrides the job's watchdog),
# and vm/job.sh's (VMLINUZ, INITRD, BINDIR, ACCEL).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/tests/host}
O=${O:-.output} CHECK=${CHECK:-${O:-.output}/check} KOUT=${KOUT:-$O}
suite_lib=$top/lib
. "$suite_lib/exitcodes.sh"
name=$1
outdir=${2:-$CHECK/guest-$name} tap=${3:-$CHECK/guest-$name.tap}
shift $(($# < 3 ? $# : 3))
extra="$*"
row=$(awk -v n="$name" '$1 == n' "$top/tests/guest/jobs.txt")
if [ -z "$row" ]; then
	echo "guest.sh: no job '$name' in tests/guest/jobs.txt" >&2
	exit 2
fi
set -- $row
script=$top/$2 watchdog=${VM_TIMEOUT:-$3} files=$5
[ "$files" = - ] && files= || files=$KOUT/$files
opts=
for f in $files $extra; do opts="$opts --file $f"; done
mkdir -p "$outdir" "$(dirname "$tap")"
t0=$(date +%s)
sh "$top/vm/job.sh" $opts "$script" "$outdir" --timeout "$watchdog"
rc=$?
secs=$(($(date +%s) - t0))
# For the callers that act on how the VM run ended (soak.sh, test-runner.sh).
echo "$rc" >"$outdir/vm.rc"
at=$(sed -n 's/^at //p' "$outdir/splat.txt" 2>/dev/null)
cls=$(sed -n 's/^class //p' "$outdir/splat.txt" 2>/dev/null | tr _ ' ')
reason=
if [ "$rc" -ge $EXIT_VM_WARNING ] && [ "$rc" -le $EXIT_VM_PANIC ]; then
	reason="guest $cls at $at (vm exit $rc after ${secs}s)"
elif [ "$rc" = $EXIT_VM_WATCHDOG ]; then
	reason="guest watchdog: no end after ${watchdog}s (vm exit $rc)"
elif [ "$rc" = $EXIT_VM_NO_RESULT ]; then
	reason="guest died without a result after ${secs}s (vm exit $rc)"
elif [ "$rc" = $EXIT_VM_SETUP ]; then
	reason="vm setup error (vm exit $rc)"
fi
if [ -n "$reason" ]; then
	awk -v job="$name" -v reason="$reason" -v splat="$outdir/splat.txt" \
		-f "$top/tests/salvage.awk" "$outdir/results.txt" 2>/dev/null >"$tap" ||
		awk -v job="$name" -v reason="$reason" -f "$top/tests/salvage.awk" /dev/null >"$tap"
	echo "  $(tail -n +3 "$tap" | grep '^not ok' | tail -n 1)"
else
	cp "$outdir/results.txt" "$tap"
fi
echo "  guest job $name: $(grep -c '^ok ' "$tap") ok, $(grep -c '^not ok ' "$tap") not ok, ${secs}s (vm exit $rc)"
exit 0
