#!/bin/sh
# What the host makes of the bpf guest job's files (tests/guest/bpf.sh
# emits them): the latency heatmap of each filesystem's metadata syncs from
# its daxlat --breakdown-out file (results/plot.sh heatmap), drawn and not
# empty. KTAP on stdout.
# Usage: bpf-files.sh FILES_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/tests/host}
. "$top/lib/ktap.sh"
files=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/bpf-files.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

heatmaps() {
	for fs in ext4 xfs; do
		[ -s "$files/daxlat-breakdown-$fs.txt" ] || { echo "no daxlat-breakdown-$fs.txt from the guest job"; return 1; }
	done
	sh "$top/results/plot.sh" heatmap "$files/daxlat-breakdown-ext4.txt" "$files/daxlat-breakdown-xfs.txt" \
		"$out/png" >"$out/list" 2>"$out/err" || { echo "plot.sh: $(grep -v '^Warning' "$out/err" | tail -n 1)"; return 1; }
	for fs in ext4 xfs; do
		png=$out/png/heatmap-daxlat-breakdown-$fs-$fs.png
		[ -s "$png" ] || { echo "no $fs heatmap: $(cat "$out/list")"; return 1; }
		echo "$fs: $(wc -c <"$png") bytes"
	done
}

ktap_plan heatmaps_from_guest_breakdowns
ktap_start
ktap_check heatmaps_from_guest_breakdowns heatmaps
ktap_finish
