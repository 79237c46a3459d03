#!/bin/sh
# The docs' figures are rendered from recorded runs (results/figures.sh,
# results/figures.txt), never copied by hand: every block in its page equals
# what its runs give now, a block edited by hand or gone stale is caught,
# and every figure block of the pages has its row. KTAP output.
# Environment: GATE (default .output/bin/gate), for the gate-noise figures.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
export GATE=${GATE:-$root/.output/bin/gate}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-figures.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
fig() { sh results/figures.sh "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

pages_match_runs() {
	fig check
	[ "$rc" = 0 ] || { echo "$(head -n 4 "$tmp/err")"; return 1; }
}
# A copy of README.md with one number of the headline block changed, checked
# through a table that points at the copy: caught, named, exit 1.
hand_edit_caught() {
	awk '/<!-- figure headline -->/ { on = 1 } on && !done && /µs/ { sub(/[0-9]+\.[0-9] →/, "1.0 →"); done = 1 } { print }' \
		README.md >"$tmp/README.md"
	! cmp -s README.md "$tmp/README.md" || { echo "the edit did not change the copy"; return 1; }
	awk -v p="$tmp/README.md" '$1 == "headline" { $2 = p; print }' results/figures.txt >"$tmp/table"
	FIGURES_TABLE=$tmp/table fig check
	[ "$rc" = 1 ] && grep -q "figure headline differs" "$tmp/err" ||
		{ echo "exit $rc: $(head -n 3 "$tmp/err")"; return 1; }
	FIGURES_TABLE=$tmp/table fig update && FIGURES_TABLE=$tmp/table fig check ||
		{ echo "update did not mend it: $(head -n 3 "$tmp/err")"; return 1; }
	cmp -s README.md "$tmp/README.md" || { echo "update gave another page than the committed one"; return 1; }
}
missing_block_caught() {
	grep -v 'figure headline' README.md >"$tmp/README.md"
	awk -v p="$tmp/README.md" '$1 == "headline" { $2 = p; print }' results/figures.txt >"$tmp/table"
	FIGURES_TABLE=$tmp/table fig check
	[ "$rc" = 1 ] && grep -q "has no block" "$tmp/err" || { echo "exit $rc: $(cat "$tmp/err")"; return 1; }
}
# A run that lost its data is an error, not an empty table.
broken_run_refused() {
	mkdir -p "$tmp/run" && printf 'headline README.md headline %s\n' "$tmp/run" >"$tmp/table"
	FIGURES_TABLE=$tmp/table fig render headline
	[ "$rc" = 1 ] && grep -q "table.json: missing" "$tmp/err" || { echo "exit $rc: $(cat "$tmp/err")"; return 1; }
}
every_block_has_a_row() {
	for f in README.md */README.md validate/crash/README.md; do
		for n in $(sed -n 's/^<!-- figure \([a-z0-9-]*\) -->$/\1/p' "$f"); do
			awk -v n="$n" -v f="$f" '!/^#/ && $1 == n && $2 == f { ok = 1 } END { exit !ok }' results/figures.txt ||
				{ echo "$f: block '$n' has no row in results/figures.txt (it would never be checked)"; return 1; }
		done
	done
}

ktap_plan_checks "$0"
ktap_start
ktap_check pages_match_their_runs pages_match_runs
ktap_check hand_edited_figure_caught hand_edit_caught
ktap_check missing_figure_block_caught missing_block_caught
ktap_check run_without_data_refused broken_run_refused
ktap_check every_figure_block_has_a_row every_block_has_a_row
ktap_finish
