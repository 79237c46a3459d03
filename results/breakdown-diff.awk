# Where a metadata sync's growth went: daxlat --breakdown-out files of two
# sides (gate runs' boots), one filesystem, the mean per fault of every part
# (results/gate-explain.sh). Columns are found by the header's names.
# Usage: awk -v fs=ext4 -f breakdown-diff.awk side=base FILE... side=new FILE...
# Prints "part base_ns new_ns" per part, then "faults BASE NEW".
BEGIN {
	if (PARTS == "")
		PARTS = "^(phase_ns|on_cpu|runnable|asleep|behind_.*|woken_by_.*|jbd2_.*|wake_delivery|worker_queued|worker_running|bio_ns|flush_ns)$"
}
/^# fs / {
	for (i = 2; i <= NF; i++) col[$i] = i - 1
	next
}
/^#/ || $1 != fs { next }
{
	n[side]++
	for (p in col)
		if (p ~ PARTS)
			sum[side, p] += $(col[p])
}
END {
	for (p in col) {
		if (p !~ PARTS) continue
		printf "%s %.0f %.0f\n", p, n["base"] ? sum["base", p] / n["base"] : 0,
			n["new"] ? sum["new", p] / n["new"] : 0
	}
	printf "faults %d %d\n", n["base"], n["new"]
}
