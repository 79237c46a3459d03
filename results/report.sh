#!/bin/sh
# Compare a benchmark run with a reference cover letter, table by table.
# POSIX sh + awk; see usage().
set -u

here=$(cd "$(dirname "$0")" && pwd)
suite_lib=$here/../lib
. "$suite_lib/scenarios.sh"
# The letter's scenarios (bench/scenarios.txt rows with a letter name), and
# its MAP_SYNC / no MAP_SYNC pairs: "letter:nosync-row:sync-row".
SCENARIOS=$(awk '!/^#/ && NF >= 7 && $6 != "-" { print $1 }' "$scenario_table" | tr '\n' ' ')
PAIRS=$(awk '!/^#/ && NF >= 7 && $6 != "-" {
		if (!($6 in seen)) { seen[$6] = 1; order[++n] = $6 }
		row[$6, $4] = $1
	}
	END { for (i = 1; i <= n; i++) if ((order[i], "nosync") in row && (order[i], "sync") in row)
		printf "%s:%s:%s ", order[i], row[order[i], "nosync"], row[order[i], "sync"] }' "$scenario_table")

usage() {
	cat <<'EOF'
usage: report.sh [--json] REFERENCE RUNDIR

Print, for each of the six scenarios of the 2017 cover letters, our table next
to the reference's, the sum of the bucket counts, and then the ratios
MAP_SYNC / no MAP_SYNC of avg (and of median where known) for prealloc,
empty and empty+copy, ours next to the reference's.

REFERENCE  a letter-format file with one block per scenario, each preceded by
           "# scenario: STATE-LOAD-SYNC" (results/reference/cover-v2.txt);
           a "# faults: N" line gives the fault count of its tables.
RUNDIR     one file per scenario, RUNDIR/SCENARIO.txt, as the benchmark
           prints it: title line, "min=.. avg=.. max=..", bucket lines
           "A - B us: COUNT", then "median=.. p99=.. p99.9=.. max=..
           faults=N reps=R" (faults= counts one repetition).
Scenarios: prealloc-none-nosync prealloc-none-sync empty-none-nosync
           empty-none-sync empty-copy-nosync empty-copy-sync

--json     print one JSON object instead: {"reference", "run", "ok",
           "scenarios": [{"scenario", "ours", "seed", "ok"}],
           "ratios": [{"pair", "ours_avg", "seed_avg", "ours_over_seed",
           "ours_median", "seed_median"}], "problems": [...]}

Every problem is one line on stderr, e.g.
  report: empty-none-sync: bucket counts sum to 511, expected faults=512
  report: empty-copy-sync: missing RUNDIR/empty-copy-sync.txt
RUNDIR/SCENARIO.json, where present (make reproduce writes both), must be
valid JSON whose faults (every repetition) equal the table's.
Exit status: 0 all six tables present and consistent, 1 a problem (missing
or malformed file, bucket counts that do not add up to faults, a JSON that
does not parse or disagrees), 2 usage.

Examples:
  results/report.sh results/reference/cover-v2.txt results/runs/latest
  results/report.sh --json results/reference/cover-v4-v6.txt results/runs/latest | jq .ratios
EOF
}

die() { echo "report: $*" >&2; exit 2; }

json=0
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--json) json=1 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (try -h)" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 2 ] || die "need REFERENCE and RUNDIR (try -h)"
ref=$1 run=$2
[ -f "$ref" ] && [ -r "$ref" ] || die "cannot read reference '$ref'"
[ -d "$run" ] || die "run directory '$run' is not a directory"
# esc() for --json comes from lib/json.awk, shared with kernel-config/check-config.sh.
json_awk_file=$here/../lib/json.awk
[ -f "$json_awk_file" ] && [ -r "$json_awk_file" ] || die "cannot read '$json_awk_file'"
json_awk=$(cat "$json_awk_file")
run=${run%/}
[ -n "$run" ] || run=/

# awk takes an operand like "a=b" for an assignment unless it starts with
# '/' or '.': give relative paths a "./".
dot() { case $1 in /*|./*) printf '%s' "$1" ;; *) printf './%s' "$1" ;; esac; }
present=
# The JSON beside a table must parse and count the same faults: a truncated
# or corrupt file is a problem, never silently ignored.
json_faults=
set -- "$(dot "$ref")"
for s in $SCENARIOS; do
	f=$run/$s.txt
	if [ -f "$f" ] && [ -r "$f" ]; then
		present="$present $s"
		set -- "$@" "$(dot "$f")"
	fi
	[ -e "$run/$s.json" ] || continue
	n=$(jq -e '.faults | numbers' "$run/$s.json" 2>/dev/null) || n=invalid
	json_faults="$json_faults $s=$n"
done

awk -v json="$json" -v refname="$ref" -v rundir="$run" -v scenarios="$SCENARIOS" -v present="$present" \
	-v pairs="$PAIRS" \
	-v json_faults="$json_faults" "$json_awk"'
function problem(msg) { nprob++; PROB[nprob] = "report: " msg }
function isnum(v) { return v ~ /^[0-9]+(\.[0-9]+)?$/ }

# parse(src, scen, line, where): file one line of a letter-format table under
# source src ("ours" or "seed") and scenario scen. Used for the reference and
# our files alike. A "# scenario: S" line names the block that follows, so
# the function returns the scenario the next line belongs to.
function parse(src, scen, line, where,    k, n, i, t, key, val, lo, hi, cnt, a) {
	sub(/\r$/, "", line)
	if (line ~ /^# scenario:/) {
		sub(/^# scenario:[ \t]*/, "", line); sub(/[ \t]+$/, "", line)
		if ((src SUBSEP line) in SEEN) problem(where ": scenario " line " appears twice")
		return line
	}
	if (line ~ /^# faults:[ \t]*[0-9]+[ \t]*$/) {
		sub(/^# faults:[ \t]*/, "", line); DEFFAULTS[src] = line + 0
		return scen
	}
	if (line ~ /^#/ || line ~ /^[ \t]*$/) return scen
	if (scen == "") { problem(where ": table line before any \"# scenario:\" line: " line); return scen }
	k = src SUBSEP scen
	SEEN[k] = 1
	if (line ~ /^[0-9]+ - [0-9]+ (ns|us|ms): [0-9]+$/) {
		split(line, a, /[ :]+/)
		n = ++NB[k]
		BLO[k, n] = a[1]; BHI[k, n] = a[3]; UNIT[k] = a[4]; BCNT[k, n] = a[5]
		BSUM[k] += a[5]
		# Rows of the two tables line up by the bucket lower bound in ns.
		key = a[1] * (a[4] == "ns" ? 1 : a[4] == "us" ? 1000 : 1000000)
		if ((k, key) in BROW) problem(where ": bucket " a[1] " - " a[3] " appears twice")
		BROW[k, key] = line
		if (!(key in ROWKEY)) { ROWKEY[key] = 1; NROWKEY++; ROWKEYS[NROWKEY] = key }
		return scen
	}
	if (line ~ /^[a-z0-9_]+=/) {
		if (line ~ /(^|[ \t])min=/) MMLINE[k] = line
		else KVLINE[k, ++NKV[k]] = line
		n = split(line, t, /[ \t]+/)
		for (i = 1; i <= n; i++) {
			if (t[i] !~ /^[a-z0-9_.]+=[0-9]+(\.[0-9]+)?$/) {
				problem(where ": cannot read \"" t[i] "\" in: " line)
				continue
			}
			key = substr(t[i], 1, index(t[i], "=") - 1)
			val = substr(t[i], index(t[i], "=") + 1)
			if (!((k, key) in V)) { NK[k]++; KEYS[k, NK[k]] = key }
			V[k, key] = val
		}
		return scen
	}
	if (!(k in TITLE)) { TITLE[k] = line; return scen }
	problem(where ": unexpected line: " line)
	return scen
}

FNR == 1 {
	if (FILENAME == ARGV[1]) { src = "seed"; cur = "" }
	else {
		src = "ours"; cur = FILENAME
		sub(/^.*\//, "", cur); sub(/\.txt$/, "", cur)
	}
	shown = (src == "seed") ? refname : rundir "/" cur ".txt"
}
{ cur = parse(src, cur, $0, shown ":" FNR) }

function fmt_ratio(r) { return r == "" ? "-" : sprintf("%.2fx", r) }
function ratio(src, s1, s2, key,    a, b) {
	if (!((src SUBSEP s1, key) in V) || !((src SUBSEP s2, key) in V)) return ""
	a = V[src SUBSEP s1, key] + 0; b = V[src SUBSEP s2, key] + 0
	return a > 0 ? b / a : ""
}
function jnum(x) { return x == "" ? "null" : x }
function jratio(r) { return r == "" ? "null" : sprintf("%.4f", r) }
function jtable(k,    s, i) {
	if (!(k in SEEN)) return "null"
	s = "{\"title\": \"" esc(TITLE[k]) "\""
	for (i = 1; i <= NK[k]; i++)
		s = s ", \"" KEYS[k, i] "\": " V[k, KEYS[k, i]]
	if (!((k, "faults") in V) && (k in FAULTS) && FAULTS[k] != "") s = s ", \"faults\": " FAULTS[k]
	s = s ", \"unit\": \"" (k in UNIT ? UNIT[k] : "us") "\", \"buckets\": ["
	for (i = 1; i <= NB[k]; i++)
		s = s (i > 1 ? ", " : "") "{\"lo\": " BLO[k, i] ", \"hi\": " BHI[k, i] ", \"count\": " BCNT[k, i] "}"
	return s "], \"bucket_sum\": " BSUM[k] + 0 "}"
}

END {
	nj = split(json_faults, J, " ")
	for (i = 1; i <= nj; i++) JF[substr(J[i], 1, index(J[i], "=") - 1)] = substr(J[i], index(J[i], "=") + 1)
	ns = split(scenarios, S, " ")
	split(present, P, " ")
	for (i in P) PRESENT[P[i]] = 1
	nerr = 0
	for (i = 1; i <= ns; i++) {
		s = S[i]
		ko = "ours" SUBSEP s; kr = "seed" SUBSEP s
		OK[s] = 1
		if (!(s in PRESENT)) { problem(s ": missing " rundir "/" s ".txt"); OK[s] = 0 }
		else if (!(ko in SEEN)) { problem(s ": " rundir "/" s ".txt is empty"); OK[s] = 0 }
		else {
			if (!((ko, "min") in V) || !((ko, "avg") in V) || !((ko, "max") in V)) {
				problem(s ": no \"min=.. avg=.. max=..\" line in " rundir "/" s ".txt"); OK[s] = 0
			}
			# faults= is per repetition; the histogram holds every repetition.
			if ((ko, "faults") in V) FAULTS[ko] = V[ko, "faults"] * (((ko, "reps") in V) ? V[ko, "reps"] : 1)
			if (!(ko in FAULTS)) {
				problem(s ": no faults= figure in " rundir "/" s ".txt"); OK[s] = 0
			} else if (BSUM[ko] + 0 != FAULTS[ko]) {
				problem(s ": bucket counts sum to " BSUM[ko] + 0 ", expected faults=" FAULTS[ko]); OK[s] = 0
			}
		}
		if (s in JF) {
			if (JF[s] == "invalid") {
				problem(s ": " rundir "/" s ".json is not valid JSON with a faults figure"); OK[s] = 0
			} else if ((ko in FAULTS) && JF[s] + 0 != FAULTS[ko]) {
				problem(s ": " rundir "/" s ".json counts " JF[s] " faults, the table " FAULTS[ko]); OK[s] = 0
			}
		}
		if (kr in SEEN) {
			FAULTS[kr] = ((kr, "faults") in V) ? V[kr, "faults"] + 0 : (("seed" in DEFFAULTS) ? DEFFAULTS["seed"] : "")
			if (FAULTS[kr] != "" && NB[kr] > 0 && BSUM[kr] + 0 != FAULTS[kr])
				problem("reference " s ": bucket counts sum to " BSUM[kr] + 0 ", expected faults=" FAULTS[kr])
		}
	}
	# The reference names its scenarios itself: a typo there is a problem too.
	for (k in SEEN) {
		split(k, a, SUBSEP)
		if (a[1] == "seed" && index(" " scenarios " ", " " a[2] " ") == 0)
			problem("reference has an unknown scenario \"" a[2] "\"")
	}
	np = split(pairs, PT, " ")
	for (i = 1; i <= np; i++) {
		split(PT[i], pp, ":")
		p = PAIR[i] = pp[1]; NOSYNC[p] = pp[2]; SYNC[p] = pp[3]
		AVGO[p] = ratio("ours", NOSYNC[p], SYNC[p], "avg")
		AVGS[p] = ratio("seed", NOSYNC[p], SYNC[p], "avg")
		MEDO[p] = ratio("ours", NOSYNC[p], SYNC[p], "median")
		MEDS[p] = ratio("seed", NOSYNC[p], SYNC[p], "median")
		AVGR[p] = (AVGO[p] != "" && AVGS[p] != "" && AVGS[p] > 0) ? AVGO[p] / AVGS[p] : ""
	}
	ok = (nprob == 0)

	if (json) {
		printf "{\"reference\": \"%s\", \"run\": \"%s\", \"ok\": %s, \"scenarios\": [", esc(refname), esc(rundir), ok ? "true" : "false"
		for (i = 1; i <= ns; i++) {
			s = S[i]
			printf "%s\n  {\"scenario\": \"%s\", \"ok\": %s,\n   \"ours\": %s,\n   \"seed\": %s}", (i > 1 ? "," : ""), s, OK[s] ? "true" : "false", jtable("ours" SUBSEP s), jtable("seed" SUBSEP s)
		}
		printf "],\n \"ratios\": ["
		for (i = 1; i <= np; i++) {
			p = PAIR[i]
			printf "%s\n  {\"pair\": \"%s\", \"ours_avg\": %s, \"seed_avg\": %s, \"ours_over_seed\": %s, \"ours_median\": %s, \"seed_median\": %s}", (i > 1 ? "," : ""), p, jratio(AVGO[p]), jratio(AVGS[p]), jratio(AVGR[p]), jratio(MEDO[p]), jratio(MEDS[p])
		}
		printf "],\n \"problems\": ["
		for (i = 1; i <= nprob; i++) printf "%s\"%s\"", (i > 1 ? ", " : ""), esc(PROB[i])
		printf "]}\n"
	} else {
		printf "report: ours = %s, seed = %s\n", rundir, refname
		# Bucket rows in ascending order of their lower bound.
		for (i = 2; i <= NROWKEY; i++) {
			v = ROWKEYS[i]
			for (j = i - 1; j >= 1 && ROWKEYS[j] + 0 > v + 0; j--) ROWKEYS[j + 1] = ROWKEYS[j]
			ROWKEYS[j + 1] = v
		}
		seedlabel = refname; sub(/^.*\//, "", seedlabel)
		for (i = 1; i <= ns; i++) {
			s = S[i]
			ko = "ours" SUBSEP s; kr = "seed" SUBSEP s
			# Two columns, one row per line kind: title, min/avg/max, each
			# bucket (ours and the seed s on the same row when their ranges
			# start alike), the other key=value lines, the bucket sum.
			n = 0
			L[++n] = (ko in SEEN) ? TITLE[ko] : (s in PRESENT) ? "(empty file)" : "(missing)"
			R[n] = (kr in SEEN) ? TITLE[kr] : "(not in the reference)"
			if ((ko in MMLINE) || (kr in MMLINE)) { L[++n] = MMLINE[ko]; R[n] = MMLINE[kr] }
			for (j = 1; j <= NROWKEY; j++) {
				key = ROWKEYS[j]
				if (((ko, key) in BROW) || ((kr, key) in BROW)) {
					L[++n] = ((ko, key) in BROW) ? BROW[ko, key] : ""
					R[n] = ((kr, key) in BROW) ? BROW[kr, key] : ""
				}
			}
			for (j = 1; j <= NKV[ko] || j <= NKV[kr]; j++) {
				L[++n] = ((ko, j) in KVLINE) ? KVLINE[ko, j] : ""
				R[n] = ((kr, j) in KVLINE) ? KVLINE[kr, j] : ""
			}
			L[++n] = (ko in SEEN) ? "buckets: " BSUM[ko] + 0 " (faults=" ((ko in FAULTS) ? FAULTS[ko] : "?") ")" : ""
			R[n] = (kr in SEEN) ? "buckets: " BSUM[kr] + 0 " (faults=" (FAULTS[kr] != "" ? FAULTS[kr] : "?") ")" : ""
			w = 4
			for (j = 1; j <= n; j++) if (length(L[j]) > w) w = length(L[j])
			printf "\n== %s\n", s
			printf "  %-" w "s | %s\n", "ours", "seed (" seedlabel ")"
			for (j = 1; j <= n; j++) {
				if (R[j] == "") { t = sprintf("  %s", L[j]); sub(/ +$/, "", t); print t }
				else printf "  %-" w "s | %s\n", L[j], R[j]
			}
		}
		printf "\n== MAP_SYNC / no MAP_SYNC\n"
		printf "  %-12s %9s %9s %10s %12s %12s\n", "pair", "ours avg", "seed avg", "ours/seed", "ours median", "seed median"
		for (i = 1; i <= np; i++) {
			p = PAIR[i]
			printf "  %-12s %9s %9s %10s %12s %12s\n", p, fmt_ratio(AVGO[p]), fmt_ratio(AVGS[p]), AVGR[p] == "" ? "-" : sprintf("%.2f", AVGR[p]), fmt_ratio(MEDO[p]), fmt_ratio(MEDS[p])
		}
		printf "report: %s\n", ok ? "OK" : nprob " problem(s)"
	}
	for (i = 1; i <= nprob; i++) print PROB[i] > "/dev/stderr"
	exit ok ? 0 : 1
}
' "$@"
