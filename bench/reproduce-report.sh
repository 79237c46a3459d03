#!/bin/sh
# The report of a make reproduce run folder (bench/reproduce.sh ends with
# it; run it again to redo one): the letter's tables next to the seed's per
# filesystem the run has (both from the VM, the target's from a native
# run), the kernel's view, the extra tables, the plots and report.md. What
# the run did (KERNEL_VIEW, EXTRA, SCENARIOS) and how (kernel, accelerator,
# revision) come from its meta.txt.
# Usage: reproduce-report.sh RUN
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "${here%/bench}"
run=${1:?usage: reproduce-report.sh RUN}
[ -f "$run/meta.txt" ] || { echo "reproduce-report: $run: no meta.txt (not a make reproduce run)" >&2; exit 2; }
meta() { sed -n "s/^$1=//p" "$run/meta.txt" | head -n 1 | tr -d "'"; }
KERNEL_VIEW=$(meta KERNEL_VIEW) EXTRA=$(meta EXTRA) SCENARIOS=$(meta SCENARIOS)
label="$(meta kernel), $(meta accelerator), rev $(meta git_revision)"
rc=0
# Both filesystems in the VM; natively the target's.
FSS=$(for fs in ext4 xfs; do [ -d "$run/$fs" ] && echo $fs; done)
for fs in $FSS; do
	echo
	echo "=== $fs -o dax, $label ==="
	sh results/report.sh results/reference/cover-v2.txt "$run/$fs" | tee "$run/report-$fs.txt" || rc=1
	sh results/report.sh --json results/reference/cover-v2.txt "$run/$fs" >"$run/report-$fs.json" || rc=1
	if [ "$KERNEL_VIEW" = 1 ]; then
		echo
		echo "=== $fs: in-kernel view (daxlat), $label ==="
		sh bench/kernel-view.sh "$run/$fs" $SCENARIOS | tee "$run/kernel-view-$fs.txt" || rc=1
	fi
done
if [ "$EXTRA" = 1 ]; then
	echo
	echo "=== What MAP_SYNC buys, the tail under concurrency, the interface, $label ==="
	sh results/extra-tables.sh "$run" | tee "$run/extra.txt" || rc=1
	sh results/extra-tables.sh --json "$run" >"$run/extra.json" || rc=1
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
