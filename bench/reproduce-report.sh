#!/bin/sh
# The report of a make reproduce run folder (bench/reproduce.sh ends with
# it; run it again to redo one): the letter's tables next to the seed's per
# filesystem the run has (both from the VM, the target's from a native
# run), the kernel's view, the extra tables, the plots and report.md. What
# the run did (KERNEL_VIEW, EXTRA, SCENARIOS) and how (kernel, accelerator,
# revision) come from its meta.txt.
# Usage: reproduce-report.sh RUN
# Exit: 0; 1 a table's check failed (the report is still written); 2 not a
# run; 19 (EXIT_BAD_INPUT) a results file cut short or malformed, named
# (a cut JSON before anything is written). The plots are not fatal; their
# gate check uses GATE (default BINDIR/gate, as make passes BINDIR).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "${here%/bench}"
suite_lib=lib
. lib/exitcodes.sh
. lib/meta.sh
run=${1:?usage: reproduce-report.sh RUN}
[ -f "$run/meta.txt" ] || { echo "reproduce-report: $run: no meta.txt (not a make reproduce run)" >&2; exit 2; }
meta() { meta_get "$run/meta.txt" "$1"; }
KERNEL_VIEW=$(meta KERNEL_VIEW) EXTRA=$(meta EXTRA) SCENARIOS=$(meta SCENARIOS)
label="$(meta kernel), $(meta accelerator), rev $(meta git_revision)"
[ -n "${GATE:-}" ] || [ -z "${BINDIR:-}" ] || GATE=$BINDIR/gate
export GATE="${GATE:-}"
rc=0
# step_rc CODE: a step's exit into the report's; a malformed input (19)
# outranks a failed check (1).
step_rc() {
	case $1 in
	0) ;;
	"$EXIT_BAD_INPUT") rc=$1 ;;
	*) [ "$rc" = "$EXIT_BAD_INPUT" ] || rc=1 ;;
	esac
}
# Both filesystems in the VM; natively the target's.
FSS=$(for fs in ext4 xfs; do if [ -d "$run/$fs" ]; then echo $fs; fi; done)
[ -n "$FSS" ] || { echo "reproduce-report: $run: no ext4/ or xfs/ folder (the run wrote no results)" >&2; exit 2; }
# Every JSON of the run, before anything is written: one cut short (a run
# killed while writing, a copy cut off) is named here, not met halfway
# through as some table's parse error.
bad=$(for fs in $FSS; do find "$run/$fs" -name '*.json' -type f; done | LC_ALL=C sort | while IFS= read -r f; do
	[ -s "$f" ] || { echo "$f: empty (a file cut short?)"; break; }
	jq empty "$f" >/dev/null 2>&1 || { echo "$f: not valid JSON (a file cut short?)"; break; }
done)
[ -z "$bad" ] || { echo "reproduce-report: $bad" >&2; exit "$EXIT_BAD_INPUT"; }
for fs in $FSS; do
	echo
	echo "=== $fs -o dax, $label ==="
	sh results/report.sh results/reference/cover-v2.txt "$run/$fs" | tee "$run/report-$fs.txt" || step_rc 1
	step=0; sh results/report.sh --json results/reference/cover-v2.txt "$run/$fs" >"$run/report-$fs.json" || step=$?
	step_rc $step
	if [ "$KERNEL_VIEW" = 1 ]; then
		echo
		echo "=== $fs: in-kernel view (daxlat), $label ==="
		sh bench/kernel-view.sh "$run/$fs" $SCENARIOS | tee "$run/kernel-view-$fs.txt" || step_rc 1
	fi
done
# extra.txt and extra.json whole or not at all: extra-tables prints nothing
# when it refuses the run, and an old pair is not left to pass for new.
if [ "$EXTRA" = 1 ]; then
	echo
	echo "=== What MAP_SYNC buys, the tail under concurrency, the interface, $label ==="
	rm -f "$run/extra.txt" "$run/extra.json"
	step=0; sh results/extra-tables.sh "$run" >"$run/extra.txt.tmp" || step=$?
	[ "$step" = 0 ] && mv "$run/extra.txt.tmp" "$run/extra.txt" && cat "$run/extra.txt"
	[ "$step" = 0 ] && { sh results/extra-tables.sh --json "$run" >"$run/extra.json.tmp" || step=$?; }
	[ "$step" = 0 ] && mv "$run/extra.json.tmp" "$run/extra.json"
	rm -f "$run/extra.txt.tmp" "$run/extra.json.tmp"
	step_rc $step
fi
# The pictures and one page that ties tables and pictures together.
plots=$(sh results/plot.sh run "$run" "$run" 2>"$run/plot.err") || echo "reproduce: plots failed: $(head -n 1 "$run/plot.err")" >&2
if [ "$KERNEL_VIEW" = 1 ]; then
	for fs in $FSS; do
		p=$(sh results/plot.sh phases "$run/$fs"/traced/*-sync.kernel.json "$run/$fs" 2>>"$run/plot.err") && plots="$plots $p"
	done
fi
{
	echo "# make reproduce: $label"
	echo
	for fs in $FSS; do
		echo "## $fs -o dax"
		echo
		echo '```'
		cat "$run/report-$fs.txt"
		[ -f "$run/kernel-view-$fs.txt" ] && { echo; cat "$run/kernel-view-$fs.txt"; }
		echo '```'
		echo
		for p in $plots; do
			case $p in *"$fs"*) echo "![${p#"$run"/}](${p#"$run"/})"; echo ;; esac
		done
	done
	if [ -f "$run/extra.txt" ]; then
		echo "## What MAP_SYNC buys, the tail under concurrency, the interface"
		echo
		echo '```'
		cat "$run/extra.txt"
		echo '```'
		echo
	fi
	echo "## How it was obtained"
	echo
	echo '```'
	cat "$run/meta.txt"
	echo '```'
} >"$run/report.md"
[ -s "$run/plot.err" ] || rm -f "$run/plot.err"
echo
echo "reproduce: results in $run (report.md: tables and plots; meta.txt says how they were obtained)"
exit $rc
