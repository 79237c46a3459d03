#!/bin/sh
# Plots of gate runs with gnuplot (PNG), for a person who would rather look
# than read:
#   plot.sh run RUN OUTDIR         per filesystem: the latency histogram and
#                                  CDF of each gate scenario, with and
#                                  without MAP_SYNC (RUN's samples.txt)
#   plot.sh gate BASE NEW OUTDIR   per filesystem and scenario: BASE's and
#                                  NEW's CDF overlaid
#   plot.sh phases KERNEL_JSON... OUTDIR
#                                  the phase split of a synchronous fault
#                                  (daxlat --json, "phases": average per
#                                  phase), one stacked bar per file
#   plot.sh heatmap BREAKDOWN_OUT... OUTDIR
#                                  per file (daxlat --breakdown-out) and
#                                  filesystem: the metadata sync's latency
#                                  heatmap, time x log2 latency
# Prints the PNGs written, one per line. Needs gnuplot (make deps).
# Every run read is first checked by the gate, "$GATE --check RUN" (GATE:
# default .output/bin/gate, as make passes it), then by plot.sh's own reading
# of its names (what gnuplot needs): a refused run is the gate's line and
# exit code, a name gnuplot cannot quote exit 19 with file and line. The PNGs are drawn in a scratch folder
# and moved into OUTDIR only when all of them were: never half a plot.
# Exit: 0; 2 usage, a missing file or no gnuplot; 1 no gate binary or
# gnuplot failed; 19 a malformed input file; else the gate's check's code.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
suite_lib=$here/../lib
. "$suite_lib/exitcodes.sh"
GATE=${GATE:-$(cd "$here/.." && pwd)/.output/bin/gate}
die() { echo "plot: $*" >&2; exit "$EXIT_USAGE"; }
bad() { echo "plot: $*" >&2; exit "$EXIT_BAD_INPUT"; }
command -v gnuplot >/dev/null || die "no gnuplot (make deps installs gnuplot-nox)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX") || { echo "plot: cannot make a scratch folder" >&2; exit "$EXIT_RUNTIME"; }
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# check_names FILE: what the gate does not judge and gnuplot needs: names
# its quoted strings and file names can hold. The numbers, the lines and
# the file itself are the gate's (--check, before this).
check_names() {
	why=$(awk -v q="'" '
		function no(why) { print FNR ": " why; exit 1 }
		$2 !~ /^[A-Za-z0-9_.+-]+$/ { no("filesystem " q $2 q ": letters, digits and _.+- only") }
		$3 !~ /^[A-Za-z0-9_.:+-]+$/ { no("scenario " q $3 q ": letters, digits and _.:+- only") }' "$1") || bad "$1:$why"
}

# check_run RUN: the gate's check, then the names'.
check_run() {
	[ -x "$GATE" ] || { echo "plot: no gate binary $GATE to check $1 with (build it: make O=DIR DIR/bin/gate, then GATE=DIR/bin/gate)" >&2
		exit "$EXIT_RUNTIME"; }
	rc=0
	"$GATE" --check "$1" >/dev/null 2>"$tmp/gate.err" || rc=$?
	[ "$rc" = 0 ] || { cat "$tmp/gate.err" >&2; exit "$rc"; }
	check_names "$1/samples.txt"
}

# publish OUTDIR: the PNGs drawn in the scratch folder into OUTDIR, printed.
publish() {
	mkdir -p "$1"
	for p in "$tmp"/png/*.png; do
		mv "$p" "$1/" || { echo "plot: cannot move $(basename "$p") into $1" >&2; exit "$EXIT_RUNTIME"; }
		echo "$1/$(basename "$p")"
	done
}
drew() { echo "plot: gnuplot failed drawing $1" >&2; exit "$EXIT_RUNTIME"; }

# cdf SAMPLES FS SCENARIO OUT: "us fraction" points of the pooled per-fault
# latencies of that scenario, at most 400 of them.
cdf() {
	awk -v fs="$2" -v s="$3" '$2 == fs && $3 == s { for (i = 5; i <= NF; i++) print $i / 1000 }' "$1" |
		sort -n | awk '{ v[NR] = $1 } END { step = NR > 400 ? NR / 400 : 1
			for (i = step; i <= NR + 0.5; i += step) printf "%g %g\n", v[int(i)], int(i) / NR }' >"$4"
	[ -s "$4" ] || die "no samples of $2 $3 in $1"
}

# hist SAMPLES FS SCENARIO OUT: log2 buckets, "lo_us count". At most 64
# doublings: the loop ends whatever the value (the gate's check refused the
# ones that would not).
hist() {
	awk -v fs="$2" -v s="$3" '$2 == fs && $3 == s { for (i = 5; i <= NF; i++) {
			us = $i / 1000; b = 1; for (k = 0; k < 64 && b * 2 <= us; k++) b *= 2; n[b]++ } }
		END { for (b in n) print b, n[b] }' "$1" | sort -n >"$4"
}
# range CDF...: "[LO:HI]" from the 1st to the 99th percentile over the CDFs,
# with a margin: the tails would squeeze the body into a line.
range() {
	awk 'FNR == 1 { lo1 = hi1 = "" } $2 >= 0.01 && lo1 == "" { lo1 = $1; if (lo == "" || $1 < lo) lo = $1 }
		$2 >= 0.99 && hi1 == "" { hi1 = $1; if ($1 > hi) hi = $1 }
		END { printf "[%g:%g]", lo * 0.95, hi * 1.05 }' "$@"
}

# The user-space scenarios of a samples file (the SCENARIO:PHASE rows of
# daxlat's in-kernel phases are another measure, plotted apart; make
# reproduce's tail-* and persist-* rows have their own tables).
# Per filesystem: a scenario one cannot give (a reflinked file on ext4,
# meta.txt's SCENARIOS_ABSENT) has no rows there and no plot.
scenarios_of() { awk -v fs="$2" '$2 == fs && $3 !~ /:/ && $3 !~ /^(tail|persist)-/ { print $3 }' "$1" | sort -u; }
# Every row kind of both files on filesystem FS: what a gate can overlay.
row_kinds() { awk -v fs="$2" '$2 == fs { print $3 }' "$1" | sort -u; }
rows_of_both() {
	row_kinds "$1" "$3" >"$4.a"
	row_kinds "$2" "$3" | comm -12 "$4.a" -
	rm -f "$4.a"
}
filesystems_of() { awk '{ print $2 }' "$1" | sort -u; }

plot_run() {
	run=$1 out=$2 samples=$1/samples.txt
	check_run "$run"
	mkdir "$tmp/png"
	for fs in $(filesystems_of "$samples"); do
		cmd= hcmd=
		for s in $(scenarios_of "$samples" "$fs"); do
			cdf "$samples" "$fs" "$s" "$tmp/cdf-$fs-$s"
			hist "$samples" "$fs" "$s" "$tmp/hist-$fs-$s"
			cmd="$cmd${cmd:+, }'$tmp/cdf-$fs-$s' using 1:2 with lines lw 2 title '$s'"
			hcmd="$hcmd${hcmd:+, }'$tmp/hist-$fs-$s' using 1:2 with linespoints lw 2 title '$s'"
		done
		gnuplot <<EOG || drew "$out/latency-$fs.png"
set terminal pngcairo size 1000,800 font ",10" noenhanced
set output '$tmp/png/latency-$fs.png'
set multiplot layout 2,1 title "$fs -o dax: per-fault latency, with MAP_SYNC (-sync) and without (-nosync)"
set logscale x 2
set grid
set xlabel "latency (us, log scale)"
set ylabel "fraction of faults at or below"
set key bottom right
plot $cmd
set ylabel "faults per log2 bucket"
set xlabel "bucket lower bound (us)"
set logscale y
set key top right
plot $hcmd
unset multiplot
EOG
	done
	publish "$out"
}

plot_gate() {
	base=$1/samples.txt new=$2/samples.txt out=$3
	check_run "$1"
	check_run "$2"
	mkdir "$tmp/png"
	for fs in $(filesystems_of "$base"); do
		cmd=
		n=0
		for s in $(rows_of_both "$base" "$new" "$fs" "$tmp/rows"); do
			cdf "$base" "$fs" "$s" "$tmp/b-$s"
			cdf "$new" "$fs" "$s" "$tmp/n-$s"
			n=$((n + 1))
			cmd="$cmd
set title '$fs $s (1st to 99th percentile)'
set xrange $(range "$tmp/b-$s" "$tmp/n-$s")
plot '$tmp/b-$s' using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'base', '$tmp/n-$s' using 1:2 with lines lw 2 lc rgb '#d62728' title 'new'"
		done
		gnuplot <<EOG || drew "$out/gate-$fs.png"
set terminal pngcairo size 1000,$((n * 260)) font ",10" noenhanced
set output '$tmp/png/gate-$fs.png'
set multiplot layout $n,1 title "$fs: base (blue) against new (red), CDF of per-fault latency (us)"
set grid
set key bottom right
set ylabel "fraction"
set xlabel "us"
$cmd
unset multiplot
EOG
	done
	publish "$out"
}

# phases FILE... OUTDIR: one bar per file (its name), the average of each
# phase of its synchronous faults stacked.
plot_phases() {
	eval "out=\${$#}"
	rows=$tmp/rows
	: >"$rows"
	while [ $# -gt 1 ]; do
		[ -f "$1" ] || die "$1: missing"
		jq empty "$1" 2>/dev/null || bad "$1: not valid JSON (a file cut short?)"
		# A file without synchronous faults (preallocated blocks) has no bar.
		jq -r --arg n "$(basename "$1" .kernel.json)" '[.phases[] | select(.phase <= 3) | .avg] |
			select(length == 3) | [$n] + map(tostring) | join(" ")' "$1" >>"$rows" 2>/dev/null ||
			bad "$1: no phases with an avg each (daxlat --json output?)"
		shift
	done
	mkdir "$tmp/png"
	gnuplot <<EOG || drew "$out/phases.png"
set terminal pngcairo size 900,500 font ",10" noenhanced
set output '$tmp/png/phases.png'
set title "Where a synchronous fault's time goes, $(basename "$out") (daxlat: average per phase, us)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid y
set ylabel "us"
set xtics rotate by -20
plot '$rows' using 2:xtic(1) title 'dax_iomap_fault (to NEEDDSYNC)', '' using 3 title 'metadata sync (fdatasync)', '' using 4 title 'writable entry insert'
EOG
	publish "$out"
}

# heatmap FILE... OUTDIR: per file of daxlat --breakdown-out and per
# filesystem in it, the latency heatmap of the metadata sync (phase 2):
# time since the first fault across, log2 latency up, faults per cell as
# colour (Brendan Gregg's latency heatmap).
plot_heatmap() {
	eval "out=\${$#}"
	mkdir "$tmp/png"
	while [ $# -gt 1 ]; do
		[ -f "$1" ] || die "$1: missing"
		name=$(basename "$1" .txt)
		case $name in *[!A-Za-z0-9_.+-]*) bad "$1: name: letters, digits and _.+- only" ;; esac
		# The header names the fields (its "#" is one more): every line has
		# them all, end_ns and phase_ns whole numbers, where it says.
		why=$(awk 'FNR == 1 { if ($1 != "#" || $2 != "fs") { print "1: no header (daxlat --breakdown-out file?)"; exit 1 }
			for (i = 2; i <= NF; i++) col[$i] = i - 1; want = NF - 1
			if (!col["end_ns"] || !col["phase_ns"]) { print "1: no end_ns or phase_ns field"; exit 1 }; next }
			NF != want || $col["end_ns"] !~ /^[0-9]+$/ || $col["phase_ns"] !~ /^[0-9]+$/ {
			print FNR ": " NF " fields, want " want " (daxlat --breakdown-out lines)"; exit 1 }' "$1") || bad "$1: $why"
		for fs in $(awk '!/^#/ { print $1 }' "$1" | sort -u); do
			cells=$tmp/$name-$fs.cells
			awk -v fs="$fs" -v nx=40 '
				FNR == 1 { for (i = 2; i <= NF; i++) col[$i] = i - 1; e = col["end_ns"]; p = col["phase_ns"]; next }
				$1 == fs { n++; t[n] = $e; us = $p / 1000; y[n] = us < 1 ? 0 : int(log(us) / log(2))
					if (n == 1 || $e < t0) t0 = $e; if ($e > t1) t1 = $e
					if (n == 1 || y[n] < ylo) ylo = y[n]; if (y[n] > yhi) yhi = y[n] }
				END { span = t1 > t0 ? t1 - t0 : 1
					# A row of empty cells each side: an image needs two rows
					# (every fault in one log2 row drew nothing).
					ylo--; yhi++
					for (i = 1; i <= n; i++) { x = int((t[i] - t0) / span * nx); if (x >= nx) x = nx - 1; c[x, y[i]]++ }
					for (x = 0; x < nx; x++) { for (j = ylo; j <= yhi; j++)
						printf "%g %d %d\n", (x + 0.5) * span / nx / 1e6, j, c[x, j]; print "" } }' "$1" >"$cells"
			png=heatmap-$name-$fs.png
			gnuplot <<EOG || drew "$out/$png"
set terminal pngcairo size 900,450 font ",10" noenhanced
set output '$tmp/png/$png'
set title "Metadata sync of MAP_SYNC faults over time, $fs ($name): faults per cell"
set xlabel "ms since the first fault"
set ylabel "latency, log2(us)"
set palette defined (0 "white", 1 "#fde0c5", 5 "#f59e4c", 20 "#c2410c", 50 "#431407")
set cblabel "faults"
set view map
plot '$cells' using 1:2:3 with image notitle
EOG
		done
		shift
	done
	publish "$out"
}

case ${1:-} in
run) [ $# = 3 ] || die "usage: plot.sh run RUN OUTDIR"; plot_run "$2" "$3" ;;
gate) [ $# = 4 ] || die "usage: plot.sh gate BASE NEW OUTDIR"; plot_gate "$2" "$3" "$4" ;;
phases) shift; [ $# -ge 2 ] || die "usage: plot.sh phases KERNEL_JSON... OUTDIR"; plot_phases "$@" ;;
heatmap) shift; [ $# -ge 2 ] || die "usage: plot.sh heatmap BREAKDOWN_OUT... OUTDIR"; plot_heatmap "$@" ;;
*) die "usage: plot.sh run|gate|phases|heatmap ..." ;;
esac
