#!/bin/sh
# Host tests of results/kernels-table.sh (make reproduce-kernels' table) on
# synthetic rounds made from a recorded reproduce run: kernel 'slow' has
# every empty-none-sync median doubled, kernel 'same' is the reference
# again with a round-to-round jitter inside the spread. The table must flag
# exactly the doubled cells (and the ratio they change), keep kernel and
# scenario order, compute each ratio within one round, and fail on a run
# that is missing its label.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
base=$root/results/baselines/reproduce-20261203T105927Z-816efec
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-kt.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ktap_plan_checks "$0"
ktap_start

# scale RUN FS SCENARIO FACTOR: multiply that run's median by FACTOR.
scale() {
	f=$1/$2/$3.json
	jq -c ".median = (.median * $4 | floor)" "$f" >"$f.new" && mv "$f.new" "$f"
}
for r in 1 2 3; do
	for k in ref slow same; do cp -r "$base" "$tmp/r$r-$k"; echo log >"$tmp/r$r-$k.log"; done
	for fs in ext4 xfs; do
		scale "$tmp/r$r-ref" $fs empty-none-sync "1.0$r"
		scale "$tmp/r$r-slow" $fs empty-none-sync "2.0$r"
		scale "$tmp/r$r-same" $fs empty-none-sync "1.0$((4 - r))"
	done
done
printf 'ref\nslow\nsame\n' >"$tmp/kernels"
sh "$root/results/kernels-table.sh" "$tmp" >"$tmp/table.txt" 2>"$tmp/err"
echo $? >"$tmp/rc"
sh "$root/results/kernels-table.sh" --json "$tmp" >"$tmp/table.json" 2>>"$tmp/err"

prints() { [ "$(cat "$tmp/rc")" = 0 ] && grep -q '^MAP_SYNC across kernels: 3 round(s), the kernels interleaved in each (ref slow same)$' "$tmp/table.txt" ||
	{ cat "$tmp/err"; head -n 3 "$tmp/table.txt"; return 1; }; }
ktap_check text_table_printed prints

# Only the doubled cells (ext4 and xfs) and the ratios they change are marked.
flags_exact() {
	got=$(jq -r '[(.cells[] | select(.median.vs_first != "within_spread") | "\(.fs) \(.scenario) \(.kernel) \(.median.vs_first)"),
		(.ratios[] | select(.sync_over_nosync.vs_first != "within_spread") | "\(.fs) \(.pair) \(.kernel) \(.sync_over_nosync.vs_first)")] | join(", ")' "$tmp/table.json")
	[ "$got" = "ext4 empty-none-sync slow higher, xfs empty-none-sync slow higher, ext4 empty-none slow higher, xfs empty-none slow higher" ] ||
		{ echo "flagged: $got"; return 1; }
	grep -E '^empty-none-sync ' "$tmp/table.txt" | grep -q '>' || { echo "no '>' in the text table"; return 1; }
}
ktap_check beyond_spread_flagged_exactly flags_exact

# A ratio is sync / nosync of the same round: ref's round medians scale by
# 1.01..1.03, so its ratio's range is the recorded ratio times those.
ratio_same_round() {
	jq -e --slurpfile s "$base/ext4/empty-none-sync.json" --slurpfile n "$base/ext4/empty-none-nosync.json" '
		($s[0].median / $n[0].median) as $r |
		.ratios[] | select(.fs == "ext4" and .pair == "empty-none" and .kernel == "ref") | .sync_over_nosync |
		(.min / $r - 1.01 | fabs) < 0.001 and (.max / $r - 1.03 | fabs) < 0.001 and .rounds == 3' "$tmp/table.json" >/dev/null ||
		{ jq -c '.ratios[0]' "$tmp/table.json"; return 1; }
}
ktap_check ratio_within_round ratio_same_round

scenario_order() {
	got=$(grep -E '^(prealloc|empty|fallocated)-' "$tmp/table.txt" | head -n 8 | awk '{print $1}' | tr '\n' ' ')
	want=$(suite_lib=$root/lib; . "$root/lib/scenarios.sh"; scenarios reproduce | tr '\n' ' ')
	[ "$got" = "$want" ] || { echo "order '$got', want '$want'"; return 1; }
}
ktap_check scenarios_in_table_order scenario_order

missing_label() {
	rm "$tmp/r2-same/meta.txt"
	out=$(sh "$root/results/kernels-table.sh" "$tmp" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && echo "$out" | grep -q 'r2-same: no meta.txt' || { echo "exit $rc: $(echo "$out" | head -n 2)"; return 1; }
}
ktap_check missing_label_fails missing_label
ktap_finish
