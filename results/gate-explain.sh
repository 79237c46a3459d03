#!/bin/sh
# Why a gate verdict is "worse": per filesystem and scenario with a worse
# row, the in-kernel phase that grew most (the SCENARIO:PHASE rows) and,
# where both runs hold daxlat --breakdown files (make gate-run BREAKDOWN=1),
# the part of the metadata sync that grew most across threads (the faulting
# thread on CPU, runnable, asleep, and what it waited for: the jbd2 commit's
# phases, the xfs CIL push or log I/O, ...) and the wait stacks that grew
# most. Markdown on stdout (a section of make gate's report.md); each
# headline starts with "- **".
# Usage: gate-explain.sh BASE NEW GATE_JSON
set -u
[ $# = 3 ] || { echo "usage: gate-explain.sh BASE NEW GATE_JSON" >&2; exit 2; }
base=$1 new=$2 json=$3
here=$(dirname "$0")

# part_name COLUMN: what a breakdown column is, in words.
part_name() {
	case $1 in
	phase_ns) echo "metadata sync (the phase)" ;;
	on_cpu) echo "the faulting thread on CPU" ;;
	runnable) echo "runnable, not running" ;;
	asleep) echo "asleep" ;;
	jbd2_before) echo "jbd2: before the commit began" ;;
	jbd2_start) echo "jbd2 commit start (to locking)" ;;
	jbd2_locking) echo "jbd2 commit locking" ;;
	jbd2_flushing) echo "jbd2 commit flushing" ;;
	jbd2_logging) echo "jbd2 commit logging" ;;
	jbd2_end) echo "jbd2: after the commit ended" ;;
	wake_delivery) echo "the wake-up on its way" ;;
	worker_queued) echo "xfs work queued" ;;
	worker_running) echo "xfs work running" ;;
	bio_ns) echo "block I/O meanwhile: bio latency (not a part)" ;;
	flush_ns) echo "block I/O meanwhile: flush latency (not a part)" ;;
	woken_by_*) echo "asleep, woken by $(echo "${1#woken_by_}" | tr _ ' ')" ;;
	behind_*) echo "runnable behind $(echo "${1#behind_}" | tr _ ' ')" ;;
	*) echo "$1" ;;
	esac
}

# The finest parts, which add up to the phase (wake_delivery and the xfs
# worker's split cut across them; the three states are their sums).
LEAVES='^(on_cpu|jbd2_.*|woken_by_(xfs|other|idle).*|behind_(xfs|other|idle).*)$'

us() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }
signed_us() { awk -v n="$1" 'BEGIN { printf "%+.1f", n / 1000 }'; }

# median_row FS SCENARIO: "change base_ns new_ns verdict" of its median row.
median_row() {
	jq -r --arg f "$1" --arg s "$2" '.rows[] | select(.fs == $f and .scenario == $s and .metric == "median") |
		"\(.change) \(.base.median_ns) \(.new.median_ns) \(.verdict)"' "$json"
}

# phase_taken RUN FS SCENARIO PHASE: "share per_fault_ns" of the phase in
# RUN's samples.txt: the fraction of the scenario's faults that went
# through it (its rows hold only those, out of meta.txt's PAGES a row) and
# its time spread over all of them; nothing without samples.txt.
phase_taken() {
	[ -f "$1/samples.txt" ] || return 1
	pages=$(sed -n "s/^PAGES='\{0,1\}\([0-9]*\)'\{0,1\}\$/\1/p" "$1/meta.txt" 2>/dev/null)
	[ -n "$pages" ] || return 1
	awk -v fs="$2" -v row="$3:$4" -v pages="$pages" '$2 == fs && $3 == row { rows++; n += NF - 4; for (i = 5; i <= NF; i++) sum += $i }
		END { if (!rows) exit 1; printf "%g %.0f\n", n / (rows * pages), sum / (rows * pages) }' "$1/samples.txt"
}

# share_changed FS SCENARIO: "fsync base_share new_share change_ns" when the
# share of the faults that take the metadata sync moved (5 points at least)
# and its time a fault grew: a patch that makes more faults synchronous
# changes how many sync, not how long one takes. Only the sync's share
# tells: the phase rows hold synchronous faults only, so every phase's
# share moves with it (the first version picked the largest, and named
# dax_iomap_fault on 7.2).
share_changed() {
	b=$(phase_taken "$base" "$1" "$2" fsync) && n=$(phase_taken "$new" "$1" "$2" fsync) || return 1
	echo "$b $n" | awk '{ moved = $3 - $1; if (moved < 0) moved = -moved; d = $4 - $2
		if (moved < 0.05 || d <= 0) exit 1; print "fsync", $1, $3, d }'
}

phase_name() {
	case $1 in
	iomap) echo "dax_iomap_fault" ;; fsync) echo "metadata sync" ;;
	mkwrite) echo "the insertion" ;; handler) echo "the fs handler outside the three phases" ;;
	esac
}
pct() { awk -v c="$1" 'BEGIN { printf "%+.1f %%", 100 * c }'; }

# explain_breakdown FS SCENARIO: the table and the part that grew most
# (in $work/top: "COLUMN CHANGE_NS"), or nothing without files.
explain_breakdown() {
	fs=$1 scen=$2
	bfiles=$(ls "$base"/boot-*/breakdown-"$scen".txt 2>/dev/null)
	nfiles=$(ls "$new"/boot-*/breakdown-"$scen".txt 2>/dev/null)
	[ -n "$bfiles" ] && [ -n "$nfiles" ] || return 1
	# shellcheck disable=SC2086
	awk -v fs="$fs" -f "$here/breakdown-diff.awk" side=base $bfiles side=new $nfiles >"$work/parts"
	set -- $(grep '^faults ' "$work/parts")
	[ "$2" -gt 0 ] && [ "$3" -gt 0 ] || return 1
	nb=$2 nn=$3
	grep -v '^faults ' "$work/parts" | awk '{ print $3 - $2, $0 }' | sort -k1,1gr >"$work/sorted"
	awk -v re="$LEAVES" '$2 ~ re { print $2, $1; exit }' "$work/sorted" >"$work/top"
	echo
	echo "Where the metadata sync's time went, a fault's mean (daxlat --breakdown: $nb faults base, $nn new):"
	echo
	echo "| part | base, us | new, us | change, us |"
	echo "|---|---|---|---|"
	# The phase and its three states first, then the parts by growth; none
	# that is under 0.1 us on both sides.
	{
		for c in phase_ns on_cpu runnable asleep; do grep " $c " "$work/sorted"; done
		grep -v -E ' (phase_ns|on_cpu|runnable|asleep) ' "$work/sorted" |
			awk '$3 >= 100 || $4 >= 100'
	} | while read -r d col b n; do
		echo "| $(part_name "$col") | $(us "$b") | $(us "$n") | $(signed_us "$d") |"
	done
	# shellcheck disable=SC2086
	awk -v fs="$fs" -v nbase="$nb" -v nnew="$nn" -f "$here/folded-diff.awk" \
		side=base $(echo $bfiles | sed 's/breakdown-/folded-/g') \
		side=new $(echo $nfiles | sed 's/breakdown-/folded-/g') 2>/dev/null |
		sort -k1,1gr | head -n 3 >"$work/stacks"
	[ -s "$work/stacks" ] || return 0
	echo
	echo "The waits whose time grew most (sleeper's last frames -- waker's, a fault's mean):"
	echo
	echo "| wait | base, us | new, us | change, us |"
	echo "|---|---|---|---|"
	while read -r d b n stack; do
		echo "| \`$(echo "$stack" | awk -F';' '{
			for (i = 1; i <= NF && $i != "--"; i++) ;
			s = ""; for (j = (i > 4 ? i - 3 : 2); j < i; j++) s = s $j ";"
			w = ""; for (j = i + 1; j <= NF && j <= i + 6; j++) w = w ";" $j
			if (NF > i + 6) w = w ";...;" $NF
			print s "--" w }')\` | $(us "$b") | $(us "$n") | $(signed_us "$d") |"
	done <"$work/stacks"
}

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
jq -r '.rows[] | select(.verdict == "worse") | "\(.fs) \(.scenario | sub(":.*$"; ""))"' "$json" |
	grep -v '+daxlat$' | sort -u >"$work/worse"
[ -s "$work/worse" ] || exit 0
echo "## Why it is worse"
echo
while read -r fs scen; do
	set -- $(median_row "$fs" "$scen")
	head="$fs $scen"
	[ $# = 4 ] && head="$head: median $(pct "$1") ($4)"
	# The phase whose median grew most, in ns. The fs handler's phase holds
	# the other three: what it adds is its own part, its growth less theirs.
	best= bestd= inner=0
	for ph in iomap fsync mkwrite handler; do
		set -- $(median_row "$fs" "$scen:$ph")
		[ $# = 4 ] || continue
		d=$(awk -v b="$2" -v n="$3" 'BEGIN { printf "%.0f", n - b }')
		c=$1 v=$4
		if [ $ph = handler ]; then
			d=$((d - inner))
			c=$(awk -v d="$d" -v b="$2" 'BEGIN { print d / b }') v=
		else
			inner=$((inner + d))
		fi
		if [ -z "$bestd" ] || [ "$d" -gt "$bestd" ]; then best=$ph bestd=$d bestc=$c bestv=$v; fi
	done
	if [ -z "$best" ]; then
		echo "- **$head**: no in-kernel phase rows (they are gated for the allocating MAP_SYNC scenarios, with PHASES=1)"
		continue
	fi
	pname=$(phase_name $best) shared=
	line="- **$head**: $pname $(pct "$bestc") ($(signed_us "$bestd") us a fault${bestv:+, $bestv})"
	if moved=$(share_changed "$fs" "$scen"); then
		set -- $moved
		if [ "$(awk -v d="$4" -v b="$bestd" 'BEGIN { print (d > b) }')" = 1 ]; then
			best=$1 pname=$(phase_name $1) shared=1
			line="- **$head**: $pname taken by $(awk -v s="$3" 'BEGIN { printf "%.0f", 100 * s }') % of the faults (base $(awk -v s="$2" 'BEGIN { printf "%.0f", 100 * s }') %), $(signed_us "$4") us a fault on average"
		fi
	fi
	# (a share that moved: the breakdown's mean is of the faults that synced)
	if explain_breakdown "$fs" "$scen" >"$work/table" && [ "$best" = fsync ] && [ -z "$shared" ] && [ -s "$work/top" ]; then
		read -r col d <"$work/top"
		line="$line, of which $(part_name "$col") $(signed_us "$d") us"
	elif [ "$best" = fsync ] && [ ! -s "$work/table" ]; then
		line="$line (no daxlat --breakdown files on both sides: make gate-run BREAKDOWN=1 says where it went)"
	fi
	echo "$line"
	cat "$work/table"
	echo
done <"$work/worse"
