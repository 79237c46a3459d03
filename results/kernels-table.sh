#!/bin/sh
# The cross-kernel table of make reproduce-kernels: per scenario and
# filesystem, each kernel's median and p99 fault latency (the median over
# rounds of each run's median and p99, with the min..max of the round
# medians), each kernel's MAP_SYNC / no-MAP_SYNC ratio (computed within one
# boot, then over rounds), and the in-kernel phase split of a synchronous
# fault (daxlat). A kernel whose min..max range does not overlap the first
# kernel's is marked '<' (lower) or '>' (higher): a difference larger than
# the run-to-run spread. Fewer than 3 rounds mark nothing.
set -u
usage() {
	cat <<'EOF'
usage: kernels-table.sh [--json] DIR

DIR holds one make reproduce run per round and kernel, named rROUND-KERNEL
(results/runs/reproduce-kernels-*/r1-6.1, ...), each with meta.txt,
ext4/ and xfs/ (SCENARIO.json from faultlat, traced/SCENARIO.kernel.json
from daxlat). Kernels are listed in the order of their first run.
--json  one JSON object instead of the text table.
Exit: 0 table printed, 1 a run is missing or unreadable, 2 usage.
EOF
}
json=0
[ "${1:-}" = --json ] && { json=1; shift; }
[ $# = 1 ] && [ -d "$1" ] || { usage >&2; exit 2; }
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
json_awk=$(cat "$here/../lib/json.awk") || exit 2
suite_lib=$here/../lib
. "$suite_lib/scenarios.sh"
# "base:nosync-row:sync-row": every reproduce scenario with a twin that
# differs only in MAP_SYNC (names STATE-LOAD-nosync / STATE-LOAD-sync).
PAIRS=$(scenarios reproduce | awk '{ n[$1] = 1 } END { for (s in n) if (s ~ /-nosync/) {
	t = s; sub(/-nosync/, "-sync", t); b = s; sub(/-nosync/, "", b); if (t in n) print b ":" s ":" t } }' | sort | tr '\n' ' ')

flat=$(mktemp) || exit 1
trap 'rm -f "$flat"' EXIT
bad=0
# One line per number: V kernel round fs scenario median_ns p99_ns,
# P kernel round fs phase avg_us, K kernel kver label.
# Folders only: each run's log (rROUND-KERNEL.log) sits beside it.
ls -d "$dir"/r[0-9]*-*/ >/dev/null 2>&1 || { echo "kernels-table: no rROUND-KERNEL runs in $dir" >&2; exit 1; }
# Round by round, the kernels in the order DIR/kernels lists them (the
# order they ran in), else by name.
for run in $(ls -d "$dir"/r[0-9]*-*/ | sed 's|/$||' | awk -F/ -v order="$dir/kernels" '
	BEGIN { while ((getline k < order) > 0) pos[k] = ++n }
	{ r = $NF; sub(/^r/, "", r); k = r; sub(/-.*/, "", r); sub(/^[0-9]*-/, "", k)
	  printf "%d\t%d\t%s\t%s\n", r, (k in pos) ? pos[k] : 999, k, $0 }' | sort -k 1,1n -k 2,2n -k 3,3 | cut -f 4); do
	name=${run##*/} round=${name%%-*} kernel=${name#*-}
	round=${round#r}
	kver=$(sed -n 's/^kernel=//p' "$run/meta.txt" 2>/dev/null)
	[ -n "$kver" ] || { echo "kernels-table: $run: no meta.txt" >&2; bad=1; continue; }
	echo "K $kernel $kver $(sed -n 's/^kernel_package=//p' "$run/meta.txt")"
	for fs in ext4 xfs; do
		for f in "$run/$fs"/*.json; do
			[ -e "$f" ] || { echo "kernels-table: $run/$fs: no results" >&2; bad=1; continue; }
			s=${f##*/}; s=${s%.json}
			jq -r --arg p "V $kernel $round $fs $s" '"\($p) \(.median) \(.p99)"' "$f" 2>/dev/null ||
				{ echo "kernels-table: $f is not a faultlat JSON" >&2; bad=1; }
		done
		k=$run/$fs/traced/empty-none-sync.kernel.json
		[ -e "$k" ] || continue
		jq -r --arg p "P $kernel $round $fs" '.phases[] | "\($p) \(.name) \(.avg)"' "$k" 2>/dev/null ||
			{ echo "kernels-table: $k is not a daxlat JSON" >&2; bad=1; }
	done
done >"$flat"
[ "$bad" = 0 ] || exit 1

awk -v json="$json" -v pairs="$PAIRS" -v table_order="$(scenarios reproduce | tr '\n' ' ')" "$json_awk"'
function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
# stats(KEY): median, min, max of the values vals[KEY, 1..cnt[KEY]].
function stats(key,   a, i, k) {
	k = cnt[key]; for (i = 1; i <= k; i++) a[i] = vals[key, i]
	sort(a, k); LO = a[1]; HI = a[k]
	MED = k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	return k
}
function add(key, v) { vals[key, ++cnt[key]] = v }
# Lower or higher than the first kernel beyond the spread, else blank.
function mark(key, ref,   lo, hi) {
	if (stats(ref) < 3 || stats(key) < 3) return " "
	stats(ref); lo = LO; hi = HI; stats(key)
	return HI < lo ? "<" : LO > hi ? ">" : " "
}
$1 == "K" { if (!($2 in kv)) { ko[++nk] = $2; kv[$2] = $3; kp[$2] = $4 } next }
$1 == "V" { k = $2; r = $3; fs = $4; s = $5
	add("med" SUBSEP k SUBSEP fs SUBSEP s, $6 / 1000); add("p99" SUBSEP k SUBSEP fs SUBSEP s, $7 / 1000)
	m[k, r, fs, s] = $6; if (!(s in seen)) { seen[s] = 1; so[++ns] = s }
	if (r > rounds) rounds = r; next }
$1 == "P" { add("ph" SUBSEP $2 SUBSEP $4 SUBSEP $5, $6); if (!($5 in pseen)) { pseen[$5] = 1; po[++np] = $5 } next }
END {
	# Scenarios in the order of bench/scenarios.txt, then any other.
	n = split(table_order, to, " "); k = 0
	for (j = 1; j <= n; j++) if (to[j] in seen) { ord[++k] = to[j]; used[to[j]] = 1 }
	for (j = 1; j <= ns; j++) if (!(so[j] in used)) ord[++k] = so[j]
	for (j = 1; j <= k; j++) so[j] = ord[j]
	npair = split(pairs, pr, " ")
	for (i = 1; i <= npair; i++) { split(pr[i], x, ":"); pn[i] = x[1]; pno[i] = x[2]; psy[i] = x[3] }
	for (i = 1; i <= nk; i++) for (f = 1; f <= 2; f++) for (p = 1; p <= npair; p++) for (r = 1; r <= rounds; r++) {
		fs = f == 1 ? "ext4" : "xfs"; k = ko[i]
		if ((k, r, fs, pno[p]) in m && (k, r, fs, psy[p]) in m && m[k, r, fs, pno[p]] > 0)
			add("ratio" SUBSEP k SUBSEP fs SUBSEP pn[p], m[k, r, fs, psy[p]] / m[k, r, fs, pno[p]])
	}
	if (json) { emit_json(); exit }
	printf "MAP_SYNC across kernels: %d round(s), the kernels interleaved in each (", rounds
	for (i = 1; i <= nk; i++) printf "%s%s", (i > 1 ? " " : ""), ko[i]
	print ")"
	for (i = 1; i <= nk; i++) printf "  %-6s %s %s\n", ko[i], kv[ko[i]], kp[ko[i]]
	print "  per cell: median over rounds of each run'"'"'s median (min..max over rounds), then the median p99;"
	printf "  < or >: below or above %s'"'"'s range beyond the run-to-run spread (3 rounds or more);\n", ko[1]
	# Two sets of R values from one distribution: all of one above all of
	# the other with probability 2 / C(2R, R).
	c = 1
	for (i = 1; i <= rounds; i++) c = c * (rounds + i) / i
	printf "  with %d rounds a range clears another by chance once in %d cells\n", rounds, c / 2
	for (f = 1; f <= 2; f++) {
		fs = f == 1 ? "ext4" : "xfs"
		printf "\n%s -o dax, fault latency in us\n%-24s", fs, "scenario"
		for (i = 1; i <= nk; i++) printf " %-30s", ko[i] " median (range) p99"
		print ""
		for (j = 1; j <= ns; j++) trow(so[j], "med", fs, so[j], "%.1f (%.1f..%.1f)%s", "p99")
		printf "%-24s", "MAP_SYNC / none"
		for (i = 1; i <= nk; i++) printf " %-30s", ko[i] " ratio (range)"
		print ""
		for (p = 1; p <= npair; p++) trow("  " pn[p], "ratio", fs, pn[p], "%.2fx (%.2f..%.2f)%s")
		if (!np) continue
		printf "phases of a synchronous fault (empty-none-sync, daxlat, avg us)\n"
		for (q = 1; q <= np; q++) trow("  " po[q], "ph", fs, po[q], "%.0f (%.0f..%.0f)%s")
	}
}
# trow(LABEL, KIND, FS, ITEM, FORMAT[, KIND2]): one text row, a cell per
# kernel: median (range) and mark, then KIND2'"'"'s median.
function trow(label, kind, fs, item, fmt, kind2,   i, key, c) {
	printf "%-24s", label
	for (i = 1; i <= nk; i++) {
		key = kind SUBSEP ko[i] SUBSEP fs SUBSEP item
		if (!stats(key)) { printf " %-30s", "-"; continue }
		c = sprintf(fmt, MED, LO, HI, mark(key, kind SUBSEP ko[1] SUBSEP fs SUBSEP item))
		if (kind2 != "") { stats(kind2 SUBSEP ko[i] SUBSEP fs SUBSEP item); c = c sprintf(" %.0f", MED) }
		printf " %-30s", c
	}
	print ""
}
function jstat(key, ref,   s) {
	if (!stats(key)) return "null"
	s = sprintf("{\"median\": %.4f, \"min\": %.4f, \"max\": %.4f, \"rounds\": %d", MED, LO, HI, cnt[key])
	return s sprintf(", \"vs_first\": \"%s\"}", mark(key, ref) == "<" ? "lower" : mark(key, ref) == ">" ? "higher" : "within_spread")
}
function emit_json(   i) {
	printf "{\"rounds\": %d, \"kernels\": [", rounds
	for (i = 1; i <= nk; i++) printf "%s{\"name\": \"%s\", \"kver\": \"%s\", \"package\": \"%s\"}", (i > 1 ? ", " : ""), esc(ko[i]), esc(kv[ko[i]]), esc(kp[ko[i]])
	printf "], \"unit\": \"us\", "
	jgroup("cells", "med", so, ns, "scenario", "median", "p99", "p99")
	printf ", "
	jgroup("ratios", "ratio", pn, npair, "pair", "sync_over_nosync")
	printf ", "
	jgroup("phases", "ph", po, np, "phase", "avg")
	print "}"
}
# jgroup(NAME, KIND, ITEMS, N, ITEM_KEY, VALUE_KEY[, KIND2, VALUE_KEY2]):
# "NAME": [one object per filesystem, item and kernel that has KIND].
function jgroup(name, kind, items, n, ikey, vkey, kind2, vkey2,   f, fs, j, i, k, ref, sep) {
	printf "\"%s\": [", name
	for (f = 1; f <= 2; f++) for (j = 1; j <= n; j++) for (i = 1; i <= nk; i++) {
		fs = f == 1 ? "ext4" : "xfs"
		k = SUBSEP ko[i] SUBSEP fs SUBSEP items[j]; ref = SUBSEP ko[1] SUBSEP fs SUBSEP items[j]
		if (!cnt[kind k]) continue
		printf "%s{\"fs\": \"%s\", \"%s\": \"%s\", \"kernel\": \"%s\", \"%s\": %s", sep, fs, ikey,
			esc(items[j]), esc(ko[i]), vkey, jstat(kind k, kind ref)
		if (kind2 != "") printf ", \"%s\": %s", vkey2, jstat(kind2 k, kind2 ref)
		printf "}"; sep = ", "
	}
	printf "]"
}' "$flat"
