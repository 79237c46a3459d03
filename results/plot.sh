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
# Prints the PNGs written, one per line. Needs gnuplot (make deps).
set -eu
die() { echo "plot: $*" >&2; exit 2; }
command -v gnuplot >/dev/null || die "no gnuplot (make deps installs gnuplot-nox)"

# cdf SAMPLES FS SCENARIO OUT: "us fraction" points of the pooled per-fault
# latencies of that scenario, at most 400 of them.
cdf() {
	awk -v fs="$2" -v s="$3" '$2 == fs && $3 == s { for (i = 5; i <= NF; i++) print $i / 1000 }' "$1" |
		sort -n | awk '{ v[NR] = $1 } END { step = NR > 400 ? NR / 400 : 1
			for (i = step; i <= NR + 0.5; i += step) printf "%g %g\n", v[int(i)], int(i) / NR }' >"$4"
	[ -s "$4" ] || die "no samples of $2 $3 in $1"
}

# hist SAMPLES FS SCENARIO OUT: log2 buckets, "lo_us count".
hist() {
	awk -v fs="$2" -v s="$3" '$2 == fs && $3 == s { for (i = 5; i <= NF; i++) {
			us = $i / 1000; b = 1; while (b * 2 <= us) b *= 2; n[b]++ } }
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
scenarios_of() { awk '$3 !~ /:/ && $3 !~ /^(tail|persist)-/ { print $3 }' "$1" | sort -u; }
# Every row kind of both files: what a gate can overlay.
rows_of_both() { awk '{ print $3 }' "$1" | sort -u >"$3.a"; awk '{ print $3 }' "$2" | sort -u | comm -12 "$3.a" -; rm -f "$3.a"; }
filesystems_of() { awk '{ print $2 }' "$1" | sort -u; }

plot_run() {
	run=$1 out=$2 samples=$1/samples.txt
	[ -f "$samples" ] || die "$run: no samples.txt (not a gate run)"
	mkdir -p "$out"
	for fs in $(filesystems_of "$samples"); do
		cmd= hcmd=
		for s in $(scenarios_of "$samples"); do
			cdf "$samples" "$fs" "$s" "$out/.cdf-$fs-$s"
			hist "$samples" "$fs" "$s" "$out/.hist-$fs-$s"
			cmd="$cmd${cmd:+, }'$out/.cdf-$fs-$s' using 1:2 with lines lw 2 title '$s'"
			hcmd="$hcmd${hcmd:+, }'$out/.hist-$fs-$s' using 1:2 with linespoints lw 2 title '$s'"
		done
		gnuplot <<EOF
set terminal pngcairo size 1000,800 font ",10" noenhanced
set output '$out/latency-$fs.png'
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
EOF
		echo "$out/latency-$fs.png"
	done
	rm -f "$out"/.cdf-* "$out"/.hist-*
}

plot_gate() {
	base=$1/samples.txt new=$2/samples.txt out=$3
	[ -f "$base" ] && [ -f "$new" ] || die "need two gate runs with samples.txt"
	mkdir -p "$out"
	for fs in $(filesystems_of "$base"); do
		cmd=
		n=0
		for s in $(rows_of_both "$base" "$new" "$out/.rows"); do
			cdf "$base" "$fs" "$s" "$out/.b-$s"
			cdf "$new" "$fs" "$s" "$out/.n-$s"
			n=$((n + 1))
			cmd="$cmd
set title '$fs $s (1st to 99th percentile)'
set xrange $(range "$out/.b-$s" "$out/.n-$s")
plot '$out/.b-$s' using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'base', '$out/.n-$s' using 1:2 with lines lw 2 lc rgb '#d62728' title 'new'"
		done
		gnuplot <<EOF
set terminal pngcairo size 1000,$((n * 260)) font ",10" noenhanced
set output '$out/gate-$fs.png'
set multiplot layout $n,1 title "$fs: base (blue) against new (red), CDF of per-fault latency (us)"
set grid
set key bottom right
set ylabel "fraction"
set xlabel "us"
$cmd
unset multiplot
EOF
		echo "$out/gate-$fs.png"
	done
	rm -f "$out"/.b-* "$out"/.n-*
}

# phases FILE... OUTDIR: one bar per file (its name), the average of each
# phase of its synchronous faults stacked.
plot_phases() {
	eval "out=\${$#}"
	rows=$(mktemp)
	while [ $# -gt 1 ]; do
		# A file without synchronous faults (preallocated blocks) has no bar.
		jq -r --arg n "$(basename "$1" .kernel.json)" '[.phases[] | select(.phase <= 3) | .avg] |
			select(length == 3) | [$n] + map(tostring) | join(" ")' "$1" >>"$rows" ||
			die "$1: no phases (daxlat --json output?)"
		shift
	done
	mkdir -p "$out"
	gnuplot <<EOF
set terminal pngcairo size 900,500 font ",10" noenhanced
set output '$out/phases.png'
set title "Where a synchronous fault's time goes, $(basename "$out") (daxlat: average per phase, us)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set grid y
set ylabel "us"
set xtics rotate by -20
plot '$rows' using 2:xtic(1) title 'dax_iomap_fault (to NEEDDSYNC)', '' using 3 title 'metadata sync (fdatasync)', '' using 4 title 'writable entry insert'
EOF
	rm -f "$rows"
	echo "$out/phases.png"
}

case ${1:-} in
run) [ $# = 3 ] || die "usage: plot.sh run RUN OUTDIR"; plot_run "$2" "$3" ;;
gate) [ $# = 4 ] || die "usage: plot.sh gate BASE NEW OUTDIR"; plot_gate "$2" "$3" "$4" ;;
phases) shift; [ $# -ge 2 ] || die "usage: plot.sh phases KERNEL_JSON... OUTDIR"; plot_phases "$@" ;;
*) die "usage: plot.sh run|gate|phases ..." ;;
esac
