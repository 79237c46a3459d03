#!/bin/sh
# The kernel's view of each traced reproduce scenario next to the user-space
# view of the same run, and the check that both saw the same faults.
# Usage: kernel-view.sh FSDIR SCENARIO...   (FSDIR: results/runs/ID/ext4,
# holding traced/; every SCENARIO must be there)
# Exit 1 when the kernel's event counts do not match the faults faultlat made.
set -u
[ $# -ge 2 ] || { echo "usage: kernel-view.sh FSDIR SCENARIO..." >&2; exit 2; }
dir=$1/traced
shift
[ -d "$dir" ] || { echo "kernel-view: no $dir" >&2; exit 1; }
bad=0
width=44

for scen in "$@"; do
	k=$dir/$scen.kernel.json u=$dir/$scen.json
	[ -s "$k" ] && [ -s "$u" ] || { echo "kernel-view: $scen: missing $k or $u" >&2; bad=1; continue; }
	# A file that does not parse fails its scenario: no check may vanish.
	for f in "$k" "$u"; do
		jq -e 'type == "object"' "$f" >/dev/null 2>&1 || { echo "kernel-view: $scen: $f is not valid JSON" >&2; bad=1; continue 2; }
	done
	echo
	echo "== $scen, traced run: user space | kernel"
	# Right column: each dax_iomap_fault histogram in the letter's format,
	# then the sync phases (count, average) when there are any.
	jq -r '
		(.faults[] |
			"dax_iomap_fault \(.fs) \(.size) \(if .write then "write" else "read" end)\(if .sync then " VM_SYNC" else "" end) \(.outcome):",
			"min=\(.min) avg=\(.avg) max=\(.max)",
			(.hist | map(select(.count > 0)) as $h | .[] |
				select(.lo >= ($h[0].lo // 0) and .lo <= ($h[-1].lo // 0)) |
				"\(.lo) - \(.hi) us: \(.count)")),
		(if (.phases | length) > 0 then "phases (count, avg us):" else empty end),
		(.phases[] | "  \(.phase) \(.name): \(.count), \(.avg)")' "$k" >"$dir/$scen.kernel.txt" ||
		{ echo "kernel-view: $scen: $k lacks the histograms or phases" >&2; bad=1; continue; }
	awk -v w=$width 'NR == FNR { l[NR] = $0; nl = NR; next }
		{ r[FNR] = $0; nr = FNR }
		END { n = nl > nr ? nl : nr; for (i = 1; i <= n; i++) printf "  %-" w "s | %s\n", l[i], r[i] }
	' "$dir/$scen.txt" "$dir/$scen.kernel.txt"
	# The same faults, seen from both sides.
	why=$(jq -r --slurpfile u "$u" '
		.counters as $c | $u[0] as $u |
		($u.faults) as $n |
		[ (if $c.dax_iomap_fault != $n then "dax_iomap_fault \($c.dax_iomap_fault) != faults \($n)" else empty end),
		  (if $u.map_sync and $u.state != "prealloc" then
			(if $c.needdsync != $n then "NEEDDSYNC \($c.needdsync) != faults \($n)" else empty end),
			(if $c.mkwrite != $n then "dax_insert_pfn_mkwrite \($c.mkwrite) != faults \($n)" else empty end),
			(if $c.metadata_syncs != $n then "metadata syncs \($c.metadata_syncs) != faults \($n)" else empty end)
		   else
			(if $c.needdsync != 0 then "NEEDDSYNC \($c.needdsync), want 0" else empty end)
		   end),
		  (if $c.missed_entries != 0 then "daxlat missed \($c.missed_entries) entries" else empty end)
		] | join("; ")' "$k") || why="cannot read the counters of $k and $u"
	if [ -n "$why" ]; then
		echo "kernel-view: $scen: $why" >&2
		bad=1
	else
		jq -r '.counters | "  counts match: dax_iomap_fault \(.dax_iomap_fault), NEEDDSYNC \(.needdsync), mkwrite \(.mkwrite), metadata syncs \(.metadata_syncs)"' "$k"
	fi
done
exit $bad
