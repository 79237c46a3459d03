#!/bin/sh
# The docs' figures, rendered from recorded runs (results/figures.txt), so a
# page never carries a number copied by hand:
#   figures.sh render NAME   figure NAME's block on stdout
#   figures.sh update        every page's blocks rewritten from their sources
#   figures.sh check         exit 1, naming each figure whose block in its
#                            page differs from what its source gives
# A block sits in its page between "<!-- figure NAME -->" and
# "<!-- end figure NAME -->". Each figure's label (kernel, QEMU, accelerator,
# CPU, revision) comes from its runs' meta.txt. Needs jq; the gate-noise
# figures need the gate (GATE, default .output/bin/gate).
# Exit: 0; 1 a figure differs or cannot be rendered; 2 usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${here%/results}
cd "$root" || exit 2
GATE=${GATE:-$root/.output/bin/gate}
. lib/meta.sh
TABLE=${FIGURES_TABLE:-results/figures.txt}

die() { echo "figures.sh: $*" >&2; exit 1; }

# rows: the table without comments, "name page kind source" per line.
rows() { awk '!/^#/ && NF == 4' "$TABLE"; }

# meta_of RUN KEY: KEY's value in RUN's meta.txt, or the first one below it.
meta_of() {
	m=$1/meta.txt
	[ -f "$m" ] || m=$(find "$1" -name meta.txt | sort | head -n 1)
	[ -n "$m" ] && [ -f "$m" ] || { echo "?"; return; }
	meta_get "$m" "$2"
}

# label RUN [KERNELS]: how RUN was obtained, one line; KERNELS names the
# kernels of a study that booted several (else RUN's own).
label() {
	qemu=$(meta_of "$1" qemu | sed -n 's/^QEMU emulator version \([^ ]*\).*/\1/p')
	echo "${2:-kernel $(meta_of "$1" kernel)}, QEMU ${qemu:-?} ($(meta_of "$1" accelerator)), host CPU" \
		"\"$(meta_of "$1" host_cpu)\", $(meta_of "$1" guest_cpus) vCPUs, suite revision $(meta_of "$1" git_revision)"
}

# study_label RUN: the label of a make reproduce-kernels folder: every kernel
# of its table.json with its package, the rest from its first run.
study_label() {
	label "$1/r1-$(jq -r '.kernels[0].name' "$1/table.json")" \
		"kernels $(jq -r '[.kernels[] | "\(.name) = \(.package)"] | join(", ")' "$1/table.json")"
}

# source_line SOURCE WHAT: the figure's caption: where it comes from.
source_line() { echo "_$2 \`$(echo "$1" | sed 's/,/`, `/g')\`, rendered by \`make figures\`._"; }

# ---- renderers: fig_KIND SOURCE ---------------------------------------------

# The letter's four file/load pairs: none -> MAP_SYNC median, and the ratio
# measured within each boot, per kernel; the 2017 letter's averages beside.
headline_facts() {
	t=$1/table.json
	letter=$(awk '/^# scenario:/ { s = $3 } /^min=/ { split($2, a, "="); print s, a[2] }' results/reference/cover-v2.txt)
	echo "| fs | file, load | $(jq -r '[.kernels[].name] | join(" | ")' "$t") | 2017 letter (ext4, ramdisk, avg) |"
	echo "|---|---|$(jq -r '[.kernels[] | "---"] | join("|")' "$t")|---|"
	jq -r '.kernels[].name as $k | .cells[] | select(.kernel == $k) | "cell \(.fs) \(.scenario) \($k) \(.median.median)"' "$t"
	jq -r '.ratios[] | "ratio \(.fs) \(.pair) \(.kernel) \(.sync_over_nosync.median)"' "$t"
	echo "$letter" | sed "s/^/letter /"
}

fig_headline() {
	[ -f "$1/table.json" ] || die "$1/table.json: missing (a make reproduce-kernels folder)"
	headline_facts "$1" | awk -v kernels="$(jq -r '[.kernels[].name] | join(" ")' "$1/table.json")" '
	/^\|/ { print; next }
	$1 == "cell" { m[$2, $3, $4] = $5; next }
	$1 == "ratio" { r[$2, $3, $4] = $5; next }
	$1 == "letter" { l[$2] = $3; next }
	END {
		nk = split(kernels, k, " ")
		split("prealloc-none empty-none empty-copy fallocated-none", pairs, " ")
		name["prealloc-none"] = "written (preallocated), none"; name["empty-none"] = "empty, none"
		name["empty-copy"] = "empty, copying"; name["fallocated-none"] = "fallocated (unwritten), none"
		for (f = 1; f <= 2; f++) for (p = 1; p <= 4; p++) {
			fs = f == 1 ? "ext4" : "xfs"; pr = pairs[p]; line = "| " fs " | " name[pr] " |"
			for (i = 1; i <= nk; i++)
				line = line sprintf(" %.1f → %.1f µs, %.2f× |", m[fs, pr "-nosync", k[i]], m[fs, pr "-sync", k[i]],
					r[fs, pr, k[i]])
			a = l[pr "-nosync"]; b = l[pr "-sync"]
			line = line (fs == "ext4" && a != "" ? sprintf(" %d → %d µs, %.1f× |", a, b, b / a) : " |")
			print line
		}
	}'
	echo
	echo "Median per-fault latency without → with MAP_SYNC, 512 PTE faults, median over" \
		"$(jq -r .rounds "$1/table.json") rounds (one boot per kernel and round, kernels interleaved); the ratio is" \
		"measured within each boot. $(study_label "$1")."
	source_line "$1" "From"
}

fig_kernels_table() {
	echo '```'
	sh results/kernels-table.sh "$1" || die "results/kernels-table.sh $1 failed"
	echo '```'
	echo "$(study_label "$1")."
	source_line "$1" "From"
}

# boots_of RUN: RUN's boot folders that have an extra.json.
boots_of() { for b in "$1"/boot*/extra.json; do [ -f "$b" ] && echo "$b"; done; }

# The 64 B persist rows of a written file, sequential: MAP_SYNC + flush's
# median, the others over it, min-max over the boots.
fig_persist() {
	files=$(boots_of "$1"); [ -n "$files" ] || die "$1: no boot*/extra.json"
	echo "| | MAP_SYNC + flush | msync | pwrite + fdatasync | store + fdatasync |"
	echo "|---|---|---|---|---|"
	for f in $files; do
		jq -r '.persist[] | select(.size == 64 and .state == "written" and .pattern == "seq") |
			"\(.fs) \(.method | sub("\\+.*"; "")) \(.median_ns) \(.ratio_vs_mapsync)"' "$f"
	done | awk '
		{ k = $1 SUBSEP $2; v = $2 == "mapsync" ? $3 : $4
		  if (!(k in lo) || v < lo[k]) lo[k] = v; if (!(k in hi) || v > hi[k]) hi[k] = v }
		END { split("mapsync msync pwrite mmap-fdatasync", m, " ")
			for (f = 1; f <= 2; f++) { fs = f == 1 ? "ext4" : "xfs"; line = "| " fs " -o dax |"
				for (i = 1; i <= 4; i++) { k = fs SUBSEP m[i]
					line = line (i == 1 ? sprintf(" %.0f-%.0f ns |", lo[k], hi[k]) : sprintf(" x%.0f-x%.0f |", lo[k], hi[k])) }
				print line } }'
	echo
	echo "A 64 B write to a written file, sequential offsets, made durable; median of" \
		"$(meta_of "$1" PERSIST_WRITES) writes; x = over MAP_SYNC + flush's median in the same" \
		"boot; min-max over $(echo "$files" | wc -l) boots (one make reproduce each). $(label "$1")."
	source_line "$1" "From"
}

# The MAP_SYNC fault tail of empty files under 1, 2 and 4 writers.
fig_tail() {
	files=$(boots_of "$1"); [ -n "$files" ] || die "$1: no boot*/extra.json"
	echo "| | p50 µs | p99 µs | commits per NEEDDSYNC fault |"
	echo "|---|---|---|---|"
	for f in $files; do
		jq -r '.tail[] | select(.map_sync) | "\(.fs) \(.writers) \(.layout) \(.median_ns) \(.p99_ns) \(.commits) \(.needdsync)"' "$f"
	done | awk '
		function keep(k, v) { if (!(k in lo) || v < lo[k]) lo[k] = v; if (!(k in hi) || v > hi[k]) hi[k] = v }
		{ k = $1 " " $2 " " $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		  keep(k SUBSEP "p50", $4 / 1000); keep(k SUBSEP "p99", $5 / 1000); keep(k SUBSEP "c", $7 ? $6 / $7 : 0) }
		END { for (i = 1; i <= n; i++) { k = order[i]; split(k, a, " ")
			who = a[2] == 1 ? "1 writer" : a[2] " writers, " (a[3] == "own-files" ? "own files" : "one file")
			printf "| %s, %s | %.0f-%.0f | %.0f-%.0f | %.2f-%.2f |\n", a[1], who, lo[k, "p50"], hi[k, "p50"],
				lo[k, "p99"], hi[k, "p99"], lo[k, "c"], hi[k, "c"] } }'
	echo
	echo "Empty files, 512 pages per writer, MAP_SYNC, under daxlat; commits are jbd2 commits (ext4) or CIL" \
		"checkpoints (xfs); min-max over $(echo "$files" | wc -l) boots. $(label "$1")."
	source_line "$1" "From"
}

fig_scenarios() {
	echo "| scenario | file before mapping | load | mapping | fault | the letter's table | run by |"
	echo "|---|---|---|---|---|---|---|"
	awk '!/^#/ && NF == 7 { printf "| `%s` | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3,
		($4 == "sync" ? "MAP_SHARED_VALIDATE\\|MAP_SYNC" : "MAP_SHARED"), ($5 == "pmd" ? "2 MiB" : "4 KiB"),
		$6, $7 }' "$1"
	echo
	source_line "$1" "The rows of"
}

# gate --noise of each run: the boot-to-boot CV of every row's median (one
# column per run, named by its measure mode); one run: median, p90, p99.
fig_gate_noise() {
	[ -x "$GATE" ] || die "no gate at $GATE (make it first)"
	runs=$(echo "$1" | tr ',' ' ') n=0 head="| fs | scenario |" rule="|---|---|"
	for r in $runs; do
		n=$((n + 1))
		"$GATE" --noise --base "$r" --json >"$tmp/noise-$n.json" 2>"$tmp/err" || die "gate --noise $r: $(cat "$tmp/err")"
	done
	if [ $n = 1 ]; then
		for m in median p90 p99; do head="$head $m |"; rule="$rule---|"; done
	else
		for r in $runs; do head="$head $(meta_of "$r" measure) |"; rule="$rule---|"; done
	fi
	echo "$head"; echo "$rule"
	i=0
	for r in $runs; do
		i=$((i + 1))
		jq -r --arg i "$i" '.noise[] | "\(.fs) \(.scenario) \($i) \(.metric) \(.cv_boots_pct)"' "$tmp/noise-$i.json"
	done | awk -v n=$n '
		{ k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++nk] = k } v[k, $3, $4] = $5 }
		END { for (j = 1; j <= nk; j++) { k = order[j]; split(k, a, " "); line = "| " a[1] " | " a[2] " |"
			if (n == 1) { line = line sprintf(" %.2f %% | %.2f %% | %.2f %% |", v[k, 1, "median"], v[k, 1, "p90"], v[k, 1, "p99"]) }
			else for (i = 1; i <= n; i++) line = line sprintf(" %.2f %% |", v[k, i, "median"])
			print line } }'
	echo
	echo "Coefficient of variation across boots of each row's quantile (gate --noise)."
	for r in $runs; do
		echo "- $(meta_of "$r" measure): $(meta_of "$r" boots) boots × $(meta_of "$r" ROUNDS) rounds of $(meta_of "$r" PAGES) faults; $(label "$r")."
	done
	echo
	source_line "$1" "From"
}

# gate-power: every scenario's median over all trials, binned by the change
# the injected delay really made, and how often each bin was called worse.
fig_gate_power() {
	ls "$1"/gates/d*.json >/dev/null 2>&1 || die "$1: no gates/d*.json (a make gate-power folder)"
	echo "| change measured | trials | called worse | same | unknown | better |"
	echo "|---|---|---|---|---|---|"
	jq -r '.rows[] | select(.metric == "median") | "\(.change) \(.verdict)"' "$1"/gates/d*.json |
		awk -f results/power-bins.awk | awk -F '|' '{ printf "| %s | %d | %d (%d %%) | %d | %d | %d |\n", $1, $2, $3, $4, $5, $6, $7 }'
	echo
	echo "fault_delay.ko on dax_iomap_fault, delays $(ls "$1"/gates/ | sed -n 's/^d\([0-9]*\)-.*/\1/p' | sort -nu | tr '\n' ' ')ns," \
		"$(ls "$1"/gates/ | sed -n 's/^d[0-9]*-\([0-9]*\)\.json$/\1/p' | sort -nu | tail -n 1) trials each with its own base;" \
		"$(meta_of "$1/runs/base-1" boots) boots × $(meta_of "$1/runs/base-1" ROUNDS) rounds a side. $(label "$1/runs/base-1")."
	source_line "$1" "From"
}

# A soak of the syncorder job (make soak JOBS='syncorder ...'): boots passed,
# and over every boot the clean entries checked and the mutants' catches.
fig_soak() {
	[ -f "$1/table.txt" ] && ls "$1"/syncorder-*.tap >/dev/null 2>&1 || die "$1: no table.txt or syncorder-N.tap (a make soak folder)"
	echo "| job | boots | passed | failed | hung | median s | max s |"
	echo "|---|---|---|---|---|---|---|"
	awk 'NR > 1 && NF == 7 { printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }' "$1/table.txt"
	echo
	cat "$1"/syncorder-*.tap | awk '
		function num(re,   s) { if (!match($0, re)) return 0; s = substr($0, RSTART, RLENGTH); return s + 0 }
		/^# clean_[a-z0-9]+_.*entries checked.*violations/ { split($2, n, "_"); fs = n[2]
			e[fs] += num("[0-9]+ entries checked"); p[fs] += num("[0-9]+ pfns"); v[fs] += num("[0-9]+ violations"); next }
		/^# clean_.*entries checked/ { k = $2; sub(/:$/, "", k); ke[k] += num("[0-9]+ entries checked")
			if (match($0, /\), [0-9]+ [a-z_]+/)) { s = substr($0, RSTART + 3, RLENGTH - 3); split(s, w, " "); kn[k] += w[1]; kk[k] = w[2] } }
		/^# mutant_.*bug injected.*caught/ { inj += $5; caught += $8; if ($5 != $8) miss++ }
		/^# mutant_.*_harmless: / { harmless++; hv += num("[0-9]+ violations") }
		END { for (fs in e) printf "- clean runs, %s: %d writable entries checked (%d pfns checked too), %d violations\n", fs, e[fs], p[fs], v[fs]
			for (k in ke) printf "- known kernel bug, %s: %d of %d entries %s (XFAIL)\n", k, kn[k], ke[k], kk[k]
			printf "- mutants: %d injections, %d caught (%d scenarios where the two differ); %d runs where a mutant has nothing to break, %d reports\n", inj, caught, miss + 0, harmless, hv }' | sort
	echo
	echo "Summed over the boots of the soak: $(head -n 1 "$1/summary.txt")"
	source_line "$1" "From"
}


# A crash run's PMDK pools (validate/crash/, make crash-long): per filesystem
# and mapping what PMDK chose, the transactions reported, lost, half-applied,
# and what pmemobj_check and pmempool check said after each crash.
fig_crash_pmdk() {
	s=$1/summary.json
	[ -f "$s" ] && jq -e '.pmdk' "$s" >/dev/null 2>&1 || die "$1: no summary.json with PMDK pools (make crash-long)"
	echo "| fs | mapping | PMDK chose | crashes | transactions reported | lost | crashes with a loss | half-applied | pmemobj_check | pmempool check |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	jq -r 'def counts: to_entries | map("\(.key) \(.value)") | join(", ");
		.pmdk[] | "| \(.fs) | \(if .map == "sync" then "MAP_SYNC" else "control: MAP_SYNC refused, PMEM_IS_PMEM_FORCE=1" end) | " +
		(.chose | map("map_sync=\(.map_sync) vm_sync=\(.vm_sync)") | join(", ")) +
		" | \(.crashes) | \(.pages_recorded) | \(.pages_lost) | \(.crashes_with_loss) | \(.half_applied) | \(.pmemobj_check | counts) | \(.pmempool_check | counts) |"' "$s"
	echo
	echo "$(jq -r '"\(.crashes_done) crashes (seed \(.seed), methods \(.methods | join(", ")), delays up to \(.max_delay_ms) ms), \(.pages) transactions per writer; kernel \(.kernel), QEMU \(.qemu | sub("^QEMU emulator version "; "") | sub(" .*"; "")) (\(.accelerator)), host CPU \"\(.host_cpu)\", suite revision \(.git_revision)."' "$s")"
	source_line "$1" "From"
}

# The clients job's fio next to faultlat (tests/guest/clients.sh), from the
# fio-vs-faultlat.txt each boot emitted (fio-vs-faultlat-N.txt): per cell,
# the median over the boots of fio's clat median and p99, and of faultlat's.
fig_clients_fio() {
	ls "$1"/fio-vs-faultlat-*.txt >/dev/null 2>&1 || die "$1: no fio-vs-faultlat-N.txt (the clients job's files)"
	echo "| fs | fio engine, file (mapping) | order | fio clat, µs | faultlat scenario | faultlat, µs |"
	echo "|---|---|---|---|---|---|"
	cat "$1"/fio-vs-faultlat-*.txt | awk '
		function med(s,   a, k, i, j, t) { k = split(s, a, " ")
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
			return a[int((k + 1) / 2)] }
		$1 != "fs" && NF == 15 { k = $1 " " $2 " " $3 " " $4 " " $5
			if (!(k in sc)) order[++n] = k
			sc[k] = $10; fm[k] = fm[k] " " $6; fp[k] = fp[k] " " $8; lm[k] = lm[k] " " $13; lp[k] = lp[k] " " $15 }
		END { for (i = 1; i <= n; i++) { k = order[i]; split(k, p, " ")
			printf "| %s | %s, %s (%s) | %s | %s / %s | %s | %s / %s |\n", p[1], p[2],
				p[3] == "write(fio)" ? "written by fio" : p[3], p[4], p[5], med(fm[k]), med(fp[k]), sc[k], med(lm[k]), med(lp[k]) } }'
	echo
	echo "Median / p99 of 511 writes (fio) and 511 faults (faultlat) of 4 KiB, each cell the median over" \
		"$(ls "$1"/fio-vs-faultlat-*.txt | wc -l) boots, every run under daxlat; $(label "$1")."
	source_line "$1" "From"
}


# make reproduce's real clients (results/extra-tables.sh's clients table):
# what PMDK and fio decided, their per-operation latency, and their time in
# synchronous faults, per filesystem.
fig_reproduce_clients() {
	j=$(sh results/extra-tables.sh --json "$1") || die "$1: extra-tables refused it"
	echo "$j" | jq -e '.clients | length > 0' >/dev/null || die "$1: no real clients (a run from before them, or EXTRA=0)"
	echo "| fs | client | decided | operations | median µs | p99 µs | sync write faults | NEEDDSYNC | in sync faults, ms | share of wall |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	echo "$j" | jq -r '.clients | sort_by(.fs, .client)[] |
		"| \(.fs) | \(.client) | \(.decided) | \(.ops) | \(.median_ns / 100 | round / 10) | \(.p99_ns / 100 | round / 10) | \(.sync_write_faults) | \(.needdsync) | \(.sync_fault_us / 100 | round / 10) | \(if .wall_s > 0 then (.sync_fault_us / .wall_s / 1000 | round / 10 | tostring) + " %" else "-" end) |"'
	echo
	echo "PMDK: pmemobj-array, 1000 transactions in 4 threads, with MAP_SYNC and with it refused (\`--no-map-sync\`); fio 3.33: 511 random 4 KiB writes to a 511-page file. Each run under daxlat; the share is the synchronous faults' time in the fs handler (threads summed) over the run's wall time. $(label "$1")."
	source_line "$1" "From"
}


# make overhead (bench/overhead.sh): what each tracer adds per fault, in
# instruction-counted time, and the bare runs round by round (the drift).
fig_overhead() {
	j=$1/overhead.json
	[ -f "$j" ] && jq -e '.scenarios[0].phases_added_ns' "$j" >/dev/null 2>&1 ||
		die "$1: no overhead.json with daxlat --phases and the peers (make overhead)"
	echo "| scenario | bare µs | + funclatency | + daxlat | + daxlat --phases | + syncorder | daxlat / funclatency |"
	echo "|---|---|---|---|---|---|---|"
	jq -r '.ns_per_instruction as $n | .scenarios[] |
		def cost(m): "+\(.[m + "_added_ns"] / 100 | round / 10) µs, \(.[m + "_added_pct"] * 100 | round / 100) %" +
			(if $n > 0 then " (\(.[m + "_added_insns"]) insns)" else "" end);
		"| \(.scenario) | \(.bare_median_ns / 100 | round / 10) | \(cost("funclatency")) | \(cost("daxlat")) | \(cost("phases")) | \(if .syncorder_added_ns then cost("syncorder") else "-" end) | \(if .funclatency_added_ns > 0 then (.daxlat_added_ns / .funclatency_added_ns * 100 | round / 100 | tostring) else "-" end) |"' "$j"
	echo
	echo "Median per round, µs, bare / daxlat / daxlat --phases, in order (rounds ≤ 0 are the warm-up, left out above):"
	echo
	awk '$4 != "" { k = $2 SUBSEP $4; m[k, $3] = $5; if (!(k in seen)) { seen[k] = 1; r[$2] = r[$2] " " $4 }
		if (!($2 in s)) { s[$2] = 1; o[++n] = $2 } }
		END { for (i = 1; i <= n; i++) { line = ""; c = split(r[o[i]], rr, " ")
			for (x = 1; x <= c; x++) line = line sprintf(" %s: %.1f/%.1f/%.1f;", rr[x], m[o[i], rr[x], "plain"] / 1000,
				m[o[i], rr[x], "daxlat"] / 1000, m[o[i], rr[x], "phases"] / 1000)
			sub(/;$/, "", line); printf "- %s:%s\n", o[i], line } }' "$1/runs.txt"
	echo
	echo "Median of the per-run medians of $(jq -r '.scenarios[0].rounds' "$j") rounds of $(awk '{ print $7; exit }' "$1/runs.txt") faults each, bare, under funclatency, daxlat and daxlat --phases in one boot, the order rotated every round, each run from a settled page cache; $(jq -r .ns_per_instruction "$j") ns of guest time per instruction (QEMU -icount). $(label "$1")."
	source_line "$1" "From"
}

# The per-program cost of daxlat --phases (make overhead's programs.txt).
fig_overhead_programs() {
	[ -s "$1/programs.txt" ] || die "$1: no programs.txt (make overhead)"
	npi=$(jq -r .ns_per_instruction "$1/overhead.json")
	echo "| program | $(awk '{ if (!($2 in s)) { s[$2] = 1; printf "%s%s", n++ ? " | " : "", $2 } }' "$1/programs.txt") |"
	echo "|---$(awk '{ if (!($2 in s)) { s[$2] = 1; printf "|---" } }' "$1/programs.txt")|"
	awk -v npi="$npi" '{ if (!($3 in p)) { p[$3] = 1; po[++np] = $3 } if (!($2 in s)) { s[$2] = 1; so[++ns] = $2 }
		c[$3, $2] = sprintf("%d runs, %d insns", $4, $5 / $4 / npi) }
		END { for (i = 1; i <= np; i++) { line = "| `" po[i] "`"; for (j = 1; j <= ns; j++) line = line " | " ((po[i], so[j]) in c ? c[po[i], so[j]] : "-"); print line " |" } }' "$1/programs.txt"
	echo
	echo "Each BPF program of daxlat --phases: its runs over one run of each scenario and its run time per run as the kernel counts it (BPF_ENABLE_STATS, which adds its own clock reads: about 66 instructions per run), in guest instructions. Not counted: the trampoline or kprobe that calls it. $(label "$1")."
	source_line "$1" "From"
}

# The metadata sync's breakdown per kernel and filesystem (daxlat
# --breakdown-out files of the bpf job, KERNEL/daxlat-breakdown-FS.txt):
# mean phase 2 and the shares of its parts, columns found by the header.
# breakdown_files DIR: "KERNEL FS FILE" for each, kernels in version order.
breakdown_files() {
	for k in $(cd "$1" && ls -d */ | tr -d / | sort -V); do
		for fs in ext4 xfs; do
			[ -s "$1/$k/daxlat-breakdown-$fs.txt" ] || die "$1/$k/daxlat-breakdown-$fs.txt: missing (make check-bpf GUEST=$k)"
			echo "$k $fs $1/$k/daxlat-breakdown-$fs.txt"
		done
	done
}

fig_breakdown() {
	echo "| kernel | fs | phase 2, µs | on CPU | runnable | asleep | charged to the journal | jbd2 logging | wake-up on its way | behind idle | before the commit began |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	breakdown_files "$1" >"$tmp/bdfiles" || return 1
	while read -r k fs f; do
		awk -v k="$k" -v fs="$fs" '
			FNR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
			{ n++; ph += $c["phase_ns"]; on += $c["on_cpu"]; rq += $c["runnable"]; sl += $c["asleep"]
			  j += $c["woken_by_jbd2_commit"] + $c["behind_jbd2_commit"]
			  j += $c["woken_by_xfs_cil_push"] + $c["behind_xfs_cil_push"]
			  j += $c["woken_by_xfs_log_io_done"] + $c["behind_xfs_log_io_done"]
			  lg += $c["jbd2_logging"]; wd += $c["wake_delivery"]; idle += $c["behind_idle"]; bf += $c["jbd2_before"] }
			function p(x) { return sprintf("%.0f %%", 100 * x / ph) }
			END { printf "| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s |\n", k, fs, ph / n / 1000,
				p(on), p(rq), p(sl), p(j), fs == "ext4" ? p(lg) : "-", p(wd), p(idle), fs == "ext4" ? p(bf) : "-" }' "$f" ||
			die "$f: cannot summarize"
	done <"$tmp/bdfiles"
	echo
	echo "Shares of phase 2 (dax_finish_sync_fault -> its fsync) over each run's synchronous faults; \"charged to the journal\": asleep woken by, or runnable behind, the jbd2 commit (ext4) or the CIL push and log I/O workers (xfs). $(meta_get "$1/meta.txt" what); kernels $(meta_get "$1/meta.txt" kernels); QEMU $(meta_get "$1/meta.txt" qemu); $(meta_get "$1/meta.txt" cpu); $(meta_get "$1/meta.txt" runs); suite revision $(meta_get "$1/meta.txt" revision)."
	source_line "$1" "From"
}

# A gate study's explanations (results/gate-explain.sh run again on its
# recorded runs): DIR/base and DIR/NEW gate runs, DIR/gate-NEW.json the
# gate's verdicts, for NEW in DIR/cases ("NEW what the delay was").
fig_gate_explain() {
	while read -r new what; do
		echo "**$what** ($(meta_of "$1/$new" delay_ns) ns on \`$(meta_of "$1/$new" delay_func)\`, $(meta_of "$1/$new" delay_hits) calls delayed in boot 1):"
		echo
		sh results/gate-explain.sh "$1/base" "$1/$new" "$1/gate-$new.json" >"$tmp/explain" || die "$1: gate-explain.sh failed"
		grep '^- ' "$tmp/explain"
		echo
		# The first table: the parts of the first worse scenario's metadata sync.
		awk '/^\| part / { on = 1 } on && !/^\|/ { exit } on { print; if (++n == 8) exit }' "$tmp/explain"
		echo
	done <"$1/cases"
	echo "$(meta_of "$1/base" boots) boots a side, $(meta_of "$1/base" ROUNDS) round of $(meta_of "$1/base" PAGES) faults per scenario, daxlat --breakdown after the phases (make gate-run BREAKDOWN=1), make gate's default floors. $(label "$1/base")."
	source_line "$1" "From"
}

# The block I/O during the metadata sync (daxlat --breakdown's bio totals),
# per kernel and filesystem, from the bpf job's --breakdown-out files.
fig_breakdown_blockio() {
	echo "| kernel | fs | phase 2, µs | bios a fault | of them flushes | bio latency, µs a fault | of it the flushes | bio latency / phase |"
	echo "|---|---|---|---|---|---|---|---|"
	breakdown_files "$1" >"$tmp/bdfiles" || return 1
	while read -r k fs f; do
		awk -v k="$k" -v fs="$fs" '
			FNR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; next }
			{ n++; ph += $c["phase_ns"]; b += $c["bios"]; bn += $c["bio_ns"]; fl += $c["flushes"]; fn += $c["flush_ns"] }
			END { if (!c["bios"]) exit 1
				printf "| %s | %s | %.0f | %.1f | %.1f | %.1f | %.1f | %.0f %% |\n", k, fs, ph / n / 1000,
				b / n, fl / n, bn / n / 1000, fn / n / 1000, 100 * bn / ph }' "$f" ||
			die "$f: no bio fields (a daxlat before the block I/O part?)"
	done <"$tmp/bdfiles"
	echo
	echo "Means over each run's synchronous faults: the bios completed on the fault's device during its metadata sync (block_bio_queue -> block_bio_complete), flushes those with REQ_PREFLUSH or REQ_FUA; not a part of the phase (bios overlap its waits). $(meta_get "$1/meta.txt" what); kernels $(meta_get "$1/meta.txt" kernels); QEMU $(meta_get "$1/meta.txt" qemu); $(meta_get "$1/meta.txt" cpu); $(meta_get "$1/meta.txt" runs); suite revision $(meta_get "$1/meta.txt" revision)."
	source_line "$1" "From"
}

# The faulting thread's on-CPU time in its metadata sync, by what it was
# doing (daxlat --oncpu's samples in the bpf job's folded files): the
# first frame below the filesystem's fsync that says what it is.
fig_oncpu_stacks() {
	echo "| kernel | fs | on CPU in phase 2, ms | samples | what the faulting thread does on CPU (share of that time) |"
	echo "|---|---|---|---|---|"
	for k in $(cd "$1" && ls -d */ | tr -d / | sort -V); do
		for fs in ext4 xfs; do
			f=$1/$k/daxlat-folded-$fs.txt
			[ -s "$f" ] || die "$f: missing (make check-bpf GUEST=$k)"
			n=$(sed -n "s/^# $fs --oncpu: \([0-9]*\) samples.*/\1/p" "$1/$k/guest-bpf.tap")
			awk -v k="$k" -v fs="$fs" -v samples="${n:-?}" -f results/oncpu-parts.awk "$f" ||
				die "$f: no on-CPU samples (daxlat --oncpu)"
		done
	done
	echo
	echo "daxlat --folded --oncpu $(meta_get "$1/meta.txt" hz): a perf cpu-clock sample on each CPU folds the faulting thread's on-CPU time since its last sample under the stack it sampled (the folded time equals the breakdown's on-CPU sum; the split among stacks is a sampling estimate), grouped by the first telling frame of the stack (results/oncpu-parts.awk). $(meta_get "$1/meta.txt" what); kernels $(meta_get "$1/meta.txt" kernels); QEMU $(meta_get "$1/meta.txt" qemu); $(meta_get "$1/meta.txt" cpu); $(meta_get "$1/meta.txt" runs) run; suite revision $(meta_get "$1/meta.txt" revision)."
	source_line "$1" "From"
}

fig_exit_codes() {
	echo "| code | name | meaning |"
	echo "|---|---|---|"
	awk '$1 == "#define" && $2 ~ /^EXIT_/ { m = $0; sub(/.*\/\* */, "", m); sub(/ *\*\/.*/, "", m)
		printf "| %s | `%s` | %s |\n", $3, $2, m }' "$1"
	echo
	source_line "$1" "From"
}

# ---- the blocks -----------------------------------------------------------------

render() {
	row=$(rows | awk -v n="$1" '$1 == n')
	[ -n "$row" ] || die "no figure '$1' in $TABLE"
	set -- $row
	kind=$(echo "$3" | tr - _)
	echo "<!-- figure $1 -->"
	"fig_$kind" "$4" || return 1
	echo "<!-- end figure $1 -->"
}

# block PAGE NAME: the block now in PAGE, markers included.
block() {
	awk -v n="$2" '$0 == "<!-- figure " n " -->" { on = 1 } on { print } $0 == "<!-- end figure " n " -->" { on = 0 }' "$1"
}

# replace PAGE NAME FILE: PAGE with NAME's block replaced by FILE.
replace() {
	awk -v n="$2" -v f="$3" '
		$0 == "<!-- figure " n " -->" { while ((getline l < f) > 0) print l; skip = 1; next }
		skip && $0 == "<!-- end figure " n " -->" { skip = 0; next }
		!skip { print }' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/figures.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
case ${1:-} in
render) [ $# = 2 ] || { echo "usage: figures.sh render NAME" >&2; exit 2; }
	render "$2" >"$tmp/out" || exit 1
	cat "$tmp/out" ;;
update|check)
	rc=0
	for name in $(rows | awk '{ print $1 }'); do
		page=$(rows | awk -v n="$name" '$1 == n { print $2 }')
		[ -f "$page" ] || { echo "figures.sh: $name: no page $page" >&2; rc=1; continue; }
		block "$page" "$name" >"$tmp/now"
		[ -s "$tmp/now" ] || { echo "figures.sh: $page has no block '<!-- figure $name -->'" >&2; rc=1; continue; }
		render "$name" >"$tmp/new" || { rc=1; continue; }
		cmp -s "$tmp/now" "$tmp/new" && continue
		if [ "$1" = check ]; then
			echo "figures.sh: $page: figure $name differs from what its source gives (make figures):" >&2
			diff "$tmp/now" "$tmp/new" | head -n 6 >&2
			rc=1
		else
			replace "$page" "$name" "$tmp/new" && echo "  FIGURE   $page: $name"
		fi
	done
	exit $rc ;;
*) echo "usage: figures.sh render NAME | update | check" >&2; exit 2 ;;
esac
