#!/bin/sh
# make reproduce's extra tables, after the cover letter's: what MAP_SYNC
# buys an application (persistlat), the fault tail under concurrent writers
# with the metadata sync's share and journal commits per fault (faultlat -w
# under daxlat), and the interface conformance matrix (validate/conformance.txt).
# Usage: extra-tables.sh RUN          the tables, as text
#        extra-tables.sh --json RUN   the same figures, one JSON document
# RUN: a make reproduce run folder (FS/persist/, FS/tail/, conformance.txt).
# Every file is read once before a line is printed: a run cut short is one
# line naming the missing file (exit 2), a file cut or malformed one line
# naming it (and its line) with exit 19; nothing is printed then.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
suite_lib=$here/../lib
. "$suite_lib/exitcodes.sh"
. "$suite_lib/filesystems.sh"
missing() { echo "extra-tables: $*" >&2; exit "$EXIT_USAGE"; }
bad() { echo "extra-tables: $*" >&2; exit "$EXIT_BAD_INPUT"; }
json=0
[ "${1:-}" = --json ] && { json=1; shift; }
run=${1:?usage: extra-tables.sh [--json] RUN}
[ -d "$run" ] || missing "no run folder $run"
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

# clients_rows FS: one line per real-client run (issue 32): name decided ops
# median_ns p99_ns sync_write_faults needdsync sync_fault_us wall_s. What the
# client decided comes from its own output (pmemobj-array's pmdk line) or
# from the kernel's counts (fio: VM_SYNC faults or none), never assumed.
clients_rows() {
	for k in "$run/$1"/clients/*.kernel.json; do
		[ -f "$k" ] || continue
		b=${k%.kernel.json} n=$(basename "${k%.kernel.json}")
		kern=$(jq -r '([.faults[] | select(.sync and .write) | .count] | add // 0) as $s |
			([.phases[] | select(.name == "fs_handler") | .sum] | add // 0) as $h |
			"\($s) \(.counters.needdsync) \($h)"' "$k")
		case $n in
		pmdk-*) line=$(awk '/^pmdk: / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
				/^tx: / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
				END { d = v["map_sync"] == 1 ? "MAP_SYNC,flush" : sprintf("msync(%d/tx)", v["tx_msync"] / (v["count"] ? v["count"] : 1))
				      print d, v["count"], v["median_ns"], v["p99_ns"] }' "$b.out") ;;
		fio-*) line=$(jq -r --argjson s "${kern%% *}" '.jobs[0] | "\(if $s > 0 then "MAP_SYNC(VM_SYNC)" else "MAP_SHARED" end)\(if (.sync.lat_ns.N // 0) > 0 then ",fdatasync" else "" end) \(.write.total_ios) \(.write.clat_ns.percentile["50.000000"]) \(.write.clat_ns.percentile["99.000000"])"' "$b.out") ;;
		*) continue ;;
		esac
		echo "$n $line $kern $(cat "$b.wall")"
	done
}

clients_table() {
	ls "$run/$1"/clients/*.kernel.json >/dev/null 2>&1 || return 0
	echo "Real clients, $1 -o dax (PMDK: pmemobj-array, 1000 transactions in 4 threads; Debian's fio: 511 random 4 KiB writes): what each decided (PMDK's own pmdk line; fio from the kernel's VM_SYNC faults), the latency per operation it reports, us; daxlat on the same run: synchronous write faults, NEEDDSYNC, the time in the fs fault handler of synchronous faults (threads summed) and its share of the run's wall time"
	clients_rows "$1" | awk '
		BEGIN { printf "%-19s %-20s %5s %9s %9s %11s %9s %12s %7s %6s\n", "client", "decided", "ops", "median", "p99", "sync faults", "NEEDDSYNC", "in sync, ms", "wall s", "share" }
		{ printf "%-19s %-20s %5s %9.1f %9.1f %11s %9s %12.1f %7.2f %5.0f%%\n", $1, $2, $3, $4 / 1000, $5 / 1000, $6, $7, $8 / 1000, $9, ($9 > 0 ? $8 / ($9 * 10000) : 0) }'
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
	for fs in $(run_filesystems); do
		clients_rows "$fs" | jq -R --arg fs "$fs" 'split(" ") | {fs: $fs, client: .[0], decided: .[1], ops: (.[2] | tonumber),
			median_ns: (.[3] | tonumber), p99_ns: (.[4] | tonumber), sync_write_faults: (.[5] | tonumber), needdsync: (.[6] | tonumber),
			sync_fault_us: (.[7] | tonumber), wall_s: (.[8] | tonumber)}'
	done | jq -s . >"$tmp/clients"
	awk '{ seen = $0; sub(/.*seen="/, "", seen); sub(/".*/, "", seen); print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" seen }' \
		"$run/conformance.txt" 2>/dev/null | jq -R 'split("\t") | {case: .[0], setup: .[1], class: .[2], verdict: .[3], man_page: .[4], seen: .[5]}' |
		jq -s . >"$tmp/conf"
	jq -n -c --slurpfile p "$tmp/persist" --slurpfile t "$tmp/tail" --slurpfile c "$tmp/conf" --slurpfile r "$tmp/clients" \
		'{tool: "extra-tables", version: 1, persist: $p[0], tail: $t[0], clients: $r[0], conformance: $c[0]}'
}

# The filesystems the run has: both from the VM, one from a native run.
run_filesystems() {
	for fs in $(fs_list); do if [ -d "$run/$fs" ]; then echo "$fs"; fi; done
}

# ---- what the tables read, checked first -----------------------------------
# The shapes jq must find (what the tables below use, and nothing else).
persist_shape='all(.state, .pattern, .flush; type == "string") and (.rows | type == "array" and length > 0) and
	all(.rows[]; (.method | type == "string") and all(.size, .median, .p999; type == "number") and
		(.ratio_vs_mapsync | type == "number" or . == null))'
tail_shape='all(.writers, .faults, .median, .p99, .p999, .max; type == "number") and
	all(.same_file, .map_sync; type == "boolean")'
kernel_shape='(.counters | type == "object") and all(.counters[$c], .counters.needdsync; type == "number") and
	(.phases | type == "array") and all(.phases[]; (.name | type == "string") and (.sum | type == "number"))'

# json_ok FILE SHAPE WHAT [COUNTER]
json_ok() {
	[ -s "$1" ] || bad "$1: empty (a run cut short?)"
	jq empty "$1" 2>/dev/null || bad "$1: not valid JSON (a file cut short?)"
	jq -e --arg c "${4:-}" "$2" "$1" >/dev/null 2>&1 || bad "$1: not $3"
}

# lines_ok FILE AWK_TEST WHAT: every line of FILE passes AWK_TEST (else WHY
# names the culprit), no carriage return, the last line ended.
lines_ok() {
	[ "$(tail -c 1 "$1" | wc -l)" -eq 1 ] || [ ! -s "$1" ] ||
		bad "$1:$(($(wc -l <"$1") + 1)): the last line has no newline (a file cut short?)"
	why=$(awk -v q="'" '
		function no(why) { print FNR ": " why; exit 1 }
		/\r/ { no("a carriage return ends the line (CRLF line ends: dos2unix it)") }
		'"$2"'' "$1") || bad "$1:$why"
}

# tail_pair FILE: a tail run's FAULTLAT.json and FAULTLAT.kernel.json, both
# there (the job writes the JSON, then the kernel's) and sound.
tail_pair() {
	case $1 in
	*.kernel.json) k=$1 u=${1%.kernel.json}.json ;;
	*) u=$1 k=${1%.json}.kernel.json ;;
	esac
	[ -f "$u" ] || missing "$u: missing (its $(basename "$k") is there: a run cut short?)"
	[ -f "$k" ] || missing "$k: missing (its $(basename "$u") is there: a run cut short?)"
	json_ok "$u" "$tail_shape" "faultlat -w --json output (writers, same_file, map_sync, faults, median, p99, p999, max)"
	json_ok "$k" "$kernel_shape" "daxlat --json output (counters $2 and needdsync, phases with name and sum)" "$2"
}

check_run() {
	fss=$(run_filesystems)
	[ -n "$fss" ] || missing "$run: no $(fs_list | sed 's|$|/|' | paste -sd ' ' | sed 's| | or |g') folder (not a make reproduce run, or it wrote nothing)"
	for fs in $fss; do
		ls "$run/$fs"/persist/*.json >/dev/null 2>&1 ||
			missing "$run/$fs/persist/: no persistlat JSON (a run with EXTRA=0, or cut short)"
		for f in "$run/$fs"/persist/*.json; do
			json_ok "$f" "$persist_shape" "persistlat --json output (state, pattern, flush, rows of method, size, median, p999)"
		done
		ls "$run/$fs"/tail/*.json >/dev/null 2>&1 || missing "$run/$fs/tail/: no faultlat -w JSON (cut short?)"
		counter=$(fs_field "$fs" commits)
		for f in "$run/$fs"/tail/*.json; do
			case $f in *.kernel.json) if [ -f "${f%.kernel.json}.json" ]; then continue; fi ;; esac
			tail_pair "$f" "$counter"
		done
		for f in "$run/$fs"/tail/*.phases.txt; do
			[ -f "$f" ] || continue
			lines_ok "$f" 'NF < 3 { no("want FS PHASE NS..., got " NF " field(s)") }
				{ for (i = 3; i <= NF; i++) if ($i !~ /^[0-9]+$/ || length($i) > 15)
					no(q $i q " is not a sample: a whole number of ns") }'
		done
		# The real clients (runs from before them have none).
		for k in "$run/$fs"/clients/*.kernel.json; do
			[ -f "$k" ] || continue
			b=${k%.kernel.json}
			[ -f "$b.out" ] && [ -f "$b.wall" ] || missing "$b.out or .wall: missing (its kernel.json is there: a run cut short?)"
			json_ok "$k" "$kernel_shape" "daxlat --json output (counters needdsync, phases with name and sum)" needdsync
			lines_ok "$b.wall" '!/^[0-9]+(\.[0-9]+)?$/ { no("not a number of seconds") }'
			case $b in
			*/fio-*) json_ok "$b.out" '.jobs[0].write | (.total_ios | type == "number") and (.clat_ns.percentile | type == "object")' \
				"fio --output-format=json output (jobs[0].write: total_ios, clat_ns.percentile)" ;;
			*/pmdk-*) lines_ok "$b.out" 'END { if (!pmdk || !tx) no("no pmdk: and tx: lines of pmemobj-array") }
				/^pmdk: map_sync=[01] vm_sync=[01] msync=[0-9]+ tx_msync=[0-9]+$/ { pmdk = 1 }
				/^tx: count=[0-9]+ threads=[0-9]+ median_ns=[0-9]+ p99_ns=[0-9]+$/ { tx = 1 }' ;;
			esac
		done
	done
	f=$run/conformance.txt
	[ -f "$f" ] || missing "$f: missing (the matrix runs last: a run cut short?)"
	[ -s "$f" ] || bad "$f: empty (a run cut short?)"
	lines_ok "$f" '!($4 ~ /^(pass|fail)$/ && $5 ~ /^(agrees|differs)$/ && /seen="[^"]*"/) {
			no("not a conformance row (CASE SETUP CLASS pass|fail agrees|differs seen=\"...\" ...)") }'
}

check_run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/extra-tables.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# Whole, or not at all: the tables are printed once all are made.
if [ $json = 1 ]; then
	as_json >"$tmp/out"
else
	for fs in $(run_filesystems); do
		persist_table "$fs"
		echo
		tail_table "$fs"
		echo
		clients_table "$fs"
		echo
	done >"$tmp/out"
	conformance_table >>"$tmp/out"
fi
cat "$tmp/out"
