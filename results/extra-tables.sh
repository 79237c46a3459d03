#!/bin/sh
# make reproduce's extra tables, after the cover letter's: what MAP_SYNC
# buys an application (persistlat), the fault tail under concurrent writers
# with the metadata sync's share and journal commits per fault (faultlat -w
# under daxlat), and the interface conformance matrix (validate/conformance.txt).
# Usage: extra-tables.sh RUN          the tables, as text
#        extra-tables.sh --json RUN   the same figures, one JSON document
# RUN: a make reproduce run folder (FS/persist/, FS/tail/, conformance.txt).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
suite_lib=$here/../lib
. "$suite_lib/filesystems.sh"
json=0
[ "${1:-}" = --json ] && { json=1; shift; }
run=${1:?usage: extra-tables.sh [--json] RUN}
[ -d "$run" ] || { echo "extra-tables: no run folder $run" >&2; exit 2; }

# persist_rows FS: "state pattern size method median_ns p999_ns ratio" lines.
persist_rows() {
	for f in "$run/$1"/persist/*.json; do
		[ -f "$f" ] || continue
		jq -r '.state as $s | .pattern as $p | .flush as $fl | .rows[] |
			"\($s) \($p) \(.size) \(.method)\(if .method == "mapsync" then "+" + $fl else "" end) \(.median) \(.p999) \(.ratio_vs_mapsync // "-")"' "$f"
	done
}

persist_table() {
	echo "Persist cost per write, $1 -o dax: median / p99.9 in us, (xN: median over MAP_SYNC's)"
	persist_rows "$1" | awk '
		{ key = $1 " " $2 " " $3; if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
		  if (!($4 in mseen)) { mseen[$4] = 1; m[++nm] = $4 }
		  cell[key, $4] = sprintf("%.1f / %.1f", $5 / 1000, $6 / 1000) (($7 == "-" || $7 == 1) ? "" : sprintf(" (x%.1f)", $7)) }
		END {
			printf "%-8s %-5s %6s", "state", "order", "bytes"
			for (j = 1; j <= nm; j++) printf "  %-26s", m[j]
			printf "\n"
			for (i = 1; i <= nk; i++) {
				split(keys[i], k, " ")
				printf "%-8s %-5s %6s", k[1], k[2], k[3]
				for (j = 1; j <= nm; j++) printf "  %-26s", ((keys[i], m[j]) in cell) ? cell[keys[i], m[j]] : "-"
				printf "\n"
			}
		}'
}

# phase_p99 FILE PHASE: the nearest-rank p99 of daxlat's PHASE samples in
# FILE (--samples-out lines 'FS PHASE NS...'), 0 when there are none.
phase_p99() {
	[ -f "$1" ] || { echo 0; return; }
	awk -v p="$2" '$2 == p { for (i = 3; i <= NF; i++) print $i }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { if (!NR) { print 0; exit } r = int((NR * 99 + 99) / 100); print v[r] }'
}

# tail_rows FS: one line per concurrency run (times in ns): writers layout
# sync faults p50 p99 p99.9 max meta% commits needdsync fsync_p99 handler_p99.
tail_rows() {
	counter=$(fs_field "$1" commits)
	for f in "$run/$1"/tail/*.kernel.json; do
		[ -f "$f" ] || continue
		u=${f%.kernel.json}.json
		jq -r --arg c "$counter" --slurpfile u "$u" '
			($u[0]) as $f | ([.phases[] | select(.name == "metadata_sync") | .sum] | add // 0) as $meta |
			([.phases[] | select(.name == "fs_handler") | .sum] | add // 0) as $all |
			"\($f.writers) \(if $f.same_file then "one-file" else "own-files" end) \(if $f.map_sync then "MAP_SYNC" else "-" end) \($f.faults) \($f.median) \($f.p99) \($f.p999) \($f.max) \(if $all > 0 then $meta * 100 / $all else 0 end) \(.counters[$c]) \(.counters.needdsync)"' "$f" | tr '\n' ' '
		ph=${f%.kernel.json}.phases.txt
		echo "$(phase_p99 "$ph" fsync) $(phase_p99 "$ph" handler)"
	done | sort -k3,3r -k1,1n -k2,2r
}

tail_table() {
	echo "Write-fault tail under concurrent writers, $1 -o dax, empty files, us. daxlat on the same faults: meta% = the metadata sync's share of the time in the fs fault handler; meta p99 = the metadata sync's p99 over the handler's; $(fs_field "$1" commits) per NEEDDSYNC fault"
	tail_rows "$1" | awk '
		BEGIN { printf "%-7s %-9s %-8s %6s %8s %8s %8s %8s %6s %9s %12s\n", "writers", "layout", "sync", "faults", "p50", "p99", "p99.9", "max", "meta%", "meta p99", "commits/sync" }
		{ per = ($11 > 0) ? sprintf("%.2f", $10 / $11) : "-"
		  tail = ($13 > 0) ? sprintf("%.0f%%", $12 * 100 / $13) : "-"
		  printf "%-7s %-9s %-8s %6s %8.1f %8.1f %8.1f %8.1f %6.1f %9s %12s\n", $1, $2, $3, $4, $5 / 1000, $6 / 1000, $7 / 1000, $8 / 1000, $9, tail, per }'
}

conformance_table() {
	f=$run/conformance.txt
	[ -f "$f" ] || return 0
	echo "MAP_SYNC interface conformance (validate/conformance.txt): mmap result, sf = VM_SYNC, sync = every store's fault NEEDDSYNC; * differs from mmap(2), ! differs from the kernel source's expected answer"
	awk '
		{ c = $1; s = $2; if (!(c in cs)) { cs[c] = 1; cases[++nc] = c } if (!(s in ss)) { ss[s] = 1; setups[++ns] = s }
		  seen = $0; sub(/.*seen="/, "", seen); sub(/".*/, "", seen)
		  v = seen ~ /mmap=ok/ ? "ok" : (seen ~ /mmap=EOPNOTSUPP/ ? "EOPNOTSUPP" : "error")
		  if (seen ~ /sf=1/) v = v ",sf"
		  if (seen ~ /sync=all/) v = v ",sync"
		  if (seen ~ /pmem=1/) v = v ",pmem"
		  if ($5 == "differs") v = v "*"
		  if ($4 != "pass") v = v "!"
		  cell[c, s] = v }
		END {
			printf "%-13s", "case"; for (j = 1; j <= ns; j++) printf " %-17s", setups[j]; printf "\n"
			for (i = 1; i <= nc; i++) {
				printf "%-13s", cases[i]
				for (j = 1; j <= ns; j++) printf " %-17s", cell[cases[i], setups[j]]
				printf "\n"
			}
		}' "$f"
	echo "$(awk '$4 == "pass"' "$f" | wc -l) of $(wc -l <"$f") cells as the kernel source says; $(awk '$5 == "differs"' "$f" | wc -l) differ from mmap(2)"
}

as_json() {
	for fs in $(run_filesystems); do
		persist_rows "$fs" | jq -R --arg fs "$fs" 'split(" ") | {fs: $fs, state: .[0], pattern: .[1], size: (.[2] | tonumber),
			method: .[3], median_ns: (.[4] | tonumber), p999_ns: (.[5] | tonumber), ratio_vs_mapsync: (.[6] | tonumber? // null)}'
	done | jq -s . >"$tmp/persist"
	for fs in $(run_filesystems); do
		tail_rows "$fs" | jq -R --arg fs "$fs" 'split(" ") | {fs: $fs, writers: (.[0] | tonumber), layout: .[1], map_sync: (.[2] == "MAP_SYNC"),
			faults: (.[3] | tonumber), median_ns: (.[4] | tonumber), p99_ns: (.[5] | tonumber), p999_ns: (.[6] | tonumber),
			max_ns: (.[7] | tonumber), metadata_sync_pct: (.[8] | tonumber), commits: (.[9] | tonumber), needdsync: (.[10] | tonumber),
			metadata_sync_p99_ns: (.[11] | tonumber), handler_p99_ns: (.[12] | tonumber)}'
	done | jq -s . >"$tmp/tail"
	awk '{ seen = $0; sub(/.*seen="/, "", seen); sub(/".*/, "", seen); print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" seen }' \
		"$run/conformance.txt" 2>/dev/null | jq -R 'split("\t") | {case: .[0], setup: .[1], class: .[2], verdict: .[3], man_page: .[4], seen: .[5]}' |
		jq -s . >"$tmp/conf"
	jq -n -c --slurpfile p "$tmp/persist" --slurpfile t "$tmp/tail" --slurpfile c "$tmp/conf" \
		'{tool: "extra-tables", version: 1, persist: $p[0], tail: $t[0], conformance: $c[0]}'
}

# The filesystems the run has: both from the VM, one from a native run.
run_filesystems() {
	for fs in $(fs_list); do [ -d "$run/$fs" ] && echo "$fs"; done
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/extra-tables.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ $json = 1 ]; then
	as_json
	exit
fi
for fs in $(run_filesystems); do
	persist_table "$fs"
	echo
	tail_table "$fs"
	echo
done
conformance_table
