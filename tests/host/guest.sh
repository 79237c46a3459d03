#!/bin/sh
# Run a guest test script in the VM and leave its KTAP in TAPFILE. A guest
# that hangs, panics or never reports becomes a failing KTAP result, so the
# summary can never miss it.
# Usage: guest.sh SCRIPT OUTDIR TAPFILE
set -u
script=$1 outdir=$2 tap=$3
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/../../vm/job.sh" "$script" "$outdir" --timeout "${VM_TIMEOUT:-900}" --quiet
rc=$?
name=$(basename "$script" .sh)
case $rc in
124|125|126)
	{
		echo "KTAP version 1"
		echo "1..1"
		echo "not ok 1 guest_$name # vm exit $rc (124 watchdog, 125 no result, 126 setup); console: $outdir/console.log"
	} >"$tap"
	# Keep what the guest did print: it says how far it got.
	sed 's/^/# /' "$outdir/results.txt" >>"$tap" 2>/dev/null
	;;
*)
	cp "$outdir/results.txt" "$tap"
	;;
esac
grep -E '^(not ok|# Totals)' "$tap" | sed 's/^/  /'
exit 0
