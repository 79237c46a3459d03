#!/bin/sh
# make gate: compare two gate runs and write the evidence next to the
# verdict: OUT/gate.txt (the table), gate.json, gate.ktap, noise of each
# side, the CDF plots (results/plot.sh), explain.md (why each worse row is
# worse: results/gate-explain.sh; its headlines printed too) and
# OUT/report.md tying them together. Exit status: the gate's (0, 16 regression, 17 unknown, 18 not
# comparable, 2 usage).
# Usage: gate-report.sh BASE NEW OUT [gate options...]
set -u
[ $# -ge 3 ] || { echo "usage: gate-report.sh BASE NEW OUT [gate options]" >&2; exit 2; }
base=$1 new=$2 out=$3
shift 3
gate=${GATE:-.output/bin/gate}
mkdir -p "$out" || exit 2
"$gate" --base "$base" --new "$new" "$@" >"$out/gate.txt"
rc=$?
cat "$out/gate.txt"
# Refused or bad usage: the one line said why; no report of nothing.
[ "$rc" = 0 ] || [ "$rc" = 16 ] || [ "$rc" = 17 ] || exit "$rc"
"$gate" --base "$base" --new "$new" --json "$@" >"$out/gate.json"
"$gate" --base "$base" --new "$new" --ktap "$@" >"$out/gate.ktap"
"$gate" --noise --base "$base" >"$out/noise-base.txt"
"$gate" --noise --base "$new" >"$out/noise-new.txt"
plots=$(sh results/plot.sh gate "$base" "$new" "$out" 2>"$out/plot.err") ||
	echo "gate: plots failed: $(head -n 1 "$out/plot.err")" >&2
[ -s "$out/plot.err" ] || rm -f "$out/plot.err"
verdict=$(tail -n 1 "$out/gate.txt")
# Why each worse row is worse: its phase, and where the breakdown went.
sh "$(dirname "$0")/gate-explain.sh" "$base" "$new" "$out/gate.json" >"$out/explain.md" 2>"$out/explain.err" ||
	echo "gate: explanation failed: $(head -n 1 "$out/explain.err")" >&2
[ -s "$out/explain.err" ] || rm -f "$out/explain.err"
grep '^- \*\*' "$out/explain.md" | sed 's/^- //; s/\*\*//g; s/^/gate: /'
# The metadata sync over time, boot 1 of each side, where both ran daxlat
# --breakdown: a latency heatmap per side, filesystem and scenario.
heatmaps=
for f in "$new"/boot-1/breakdown-*.txt; do
	b=$base/boot-1/$(basename "$f")
	[ -f "$f" ] && [ -f "$b" ] || continue
	hm=$(mktemp -d) || break
	# (gnuplot's warnings, e.g. every fault in one log2 row, are not failures)
	if cp "$b" "$hm/base-$(basename "$f")" && cp "$f" "$hm/new-$(basename "$f")" &&
		pngs=$(sh results/plot.sh heatmap "$hm"/base-* "$hm"/new-* "$out" 2>"$hm/err"); then
		heatmaps="$heatmaps $pngs"
	else
		echo "gate: heatmaps failed: $(grep -v '^Warning' "$hm/err" | tail -n 1)" >&2
	fi
	rm -rf "$hm"
done
{
	echo "# Gate: $(basename "$new") against $(basename "$base")"
	echo
	echo "**$verdict** (exit $rc: $(case $rc in 0) echo "no regression";; 16) echo "a regression";; 17) echo "no regression, some metric unknown: run more";; esac))"
	echo
	echo "A metric is *worse* or *better* when the per-fault distributions differ (min of Mann-Whitney U"
	echo "and Kolmogorov-Smirnov p < alpha), the change of its median over boots is at least the floor, and"
	echo "the bootstrap interval of that change over boots excludes 0; *same* when the interval lies within"
	echo "the floor; else *unknown* (run more). The floor per row: the least for the metric, 3 x the"
	echo "boot-to-boot CV of both sides, and, from a reference of 10 boots or more (the base, or"
	echo "--reference runs), the change same-kernel sides exceed 0.1 % of the time; the table's header"
	echo "says which. Rows SCENARIO:PHASE are the in-kernel phases of its MAP_SYNC faults (daxlat)."
	echo
	echo '```'
	cat "$out/gate.txt"
	echo '```'
	echo
	cat "$out/explain.md"
	if [ -n "$heatmaps" ]; then
		echo "The metadata sync over time (boot 1 of each side; daxlat --breakdown):"
		echo
		for p in $heatmaps; do echo "![$(basename "$p" .png)]($(basename "$p"))"; echo; done
	fi
	for p in $plots; do echo "![$(basename "$p" .png)]($(basename "$p"))"; echo; done
	echo "## Noise of each side (coefficient of variation over runs and over boots)"
	echo
	echo '```'
	cat "$out/noise-base.txt"
	echo
	cat "$out/noise-new.txt"
	echo '```'
	echo
	echo "## How the runs were obtained"
	echo
	for side in base new; do
		eval "dir=\$$side"
		echo "$side: \`$dir\`"
		echo '```'
		cat "$dir/meta.txt"
		echo '```'
	done
} >"$out/report.md"
echo "gate: report in $out/report.md"
exit "$rc"
