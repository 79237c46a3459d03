# The gate's power by the change an injected delay really made: "CHANGE
# VERDICT" lines in (the median rows of make gate-power's comparisons),
# one line per bin out, "LABEL|TRIALS|WORSE|PCT|SAME|UNKNOWN|BETTER".
# Read by bench/gate-study.sh (the study's summary) and results/figures.sh.
BEGIN { split("-1e9 0 1 2 5 10 25", lo, " "); split("0 1 2 5 10 25 1e9", hi, " ") }
{ c = 100 * $1; for (i = 1; i <= 7; i++) if (c >= lo[i] && c < hi[i]) { n[i]++; v[i, $2]++ } }
END {
	for (i = 1; i <= 7; i++)
		printf "%s|%d|%d|%.0f|%d|%d|%d\n", (i == 1 ? "< 0 %" : i < 7 ? sprintf("%s-%s %%", lo[i], hi[i]) : ">= 25 %"),
			n[i], v[i, "worse"], n[i] ? 100 * v[i, "worse"] / n[i] : 0, v[i, "same"], v[i, "unknown"], v[i, "better"]
}
