#!/bin/sh
# Host tests of results/gate-explain.sh (make gate's "Why it is worse"), on
# gate runs made of recorded daxlat --breakdown and --folded lines (6.1,
# tests/unit/data/gate-explain/) and a gate.json written here: a delay in
# the jbd2 commit thread's flushing is named as such, a delay in the
# faulting thread as its own CPU time, a phase other than the metadata
# sync by its name without a breakdown, the fs handler's phase by what it
# adds to the three it holds; runs without breakdown files say
# how to get them; a patch that makes more faults synchronous is named by
# the share of faults that take the metadata sync; tool-cost rows and "same"
# rows explain nothing. KTAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
EXPLAIN=${EXPLAIN:-$root/results/gate-explain.sh}
data=$here/data/gate-explain
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-gate-explain.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# mkside DIR [COLUMN...]: two boots of the recorded lines, every ext4
# fault 40 us longer in each COLUMN named (and in the phase and its state).
mkside() {
	dir=$1; shift
	for b in 1 2; do
		mkdir -p "$dir/boot-$b"
		awk -v cols="$*" 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i - 1; print; next }
			$1 == "ext4" && cols != "" { n = split(cols, a, " "); for (i = 1; i <= n; i++) $c[a[i]] += 40000; $c["phase_ns"] += 40000 }
			{ print }' "$data/breakdown.txt" >"$dir/boot-$b/breakdown-empty-none-sync.txt"
		awk -v grow="$*" 'index($0, "[ext4") == 1 && /jbd2_journal_commit_transaction/ && grow ~ /jbd2/ && !d { $NF += 320000; d = 1 } { print }' \
			"$data/folded.txt" >"$dir/boot-$b/folded-empty-none-sync.txt"
	done
}

# gate_json FILE PHASE_GROWN: ext4 empty-none-sync worse, the phase named
# grown by 40 us and the fs handler's, which holds it, too; the rest the
# same; a worse tool-cost row beside.
gate_json() {
	awk -v grown="$2" 'BEGIN {
		print "{\"rows\":["
		print "{\"fs\":\"ext4\",\"scenario\":\"empty-none-sync\",\"metric\":\"median\",\"base\":{\"median_ns\":2800000},\"new\":{\"median_ns\":2840000},\"change\":0.0143,\"verdict\":\"worse\"},"
		n = split("iomap fsync mkwrite handler", p, " ")
		for (i = 1; i <= n; i++) {
			# The handler phase holds the others: it grows with them.
			g = p[i] == grown || p[i] == "handler"
			printf "{\"fs\":\"ext4\",\"scenario\":\"empty-none-sync:%s\",\"metric\":\"median\",\"base\":{\"median_ns\":500000},\"new\":{\"median_ns\":%d},\"change\":%s,\"verdict\":\"%s\"},\n",
				p[i], g ? 540000 : 500500, g ? "0.08" : "0.001", g ? "worse" : "same"
		}
		print "{\"fs\":\"xfs\",\"scenario\":\"empty-none-sync\",\"metric\":\"median\",\"base\":{\"median_ns\":2800000},\"new\":{\"median_ns\":2800000},\"change\":0,\"verdict\":\"same\"},"
		print "{\"fs\":\"ext4\",\"scenario\":\"prealloc-none-sync+daxlat\",\"metric\":\"median\",\"base\":{\"median_ns\":1},\"new\":{\"median_ns\":2},\"change\":1,\"verdict\":\"worse\"}"
		print "]}" }' >"$1"
}

ktap_plan jbd2_delay_named_by_commit_phase faulting_thread_delay_named_on_cpu \
	waits_that_grew_listed other_phase_named_without_breakdown handler_own_part_named no_breakdown_says_how \
	more_faults_synced_named_by_share nothing_worse_nothing_said
ktap_start

mkside "$tmp/base"
mkside "$tmp/jbd2" jbd2_flushing woken_by_jbd2_commit asleep
mkside "$tmp/cpu" on_cpu
gate_json "$tmp/fsync.json" fsync

out=$(sh "$EXPLAIN" "$tmp/base" "$tmp/jbd2" "$tmp/fsync.json")
head=$(echo "$out" | grep '^- \*\*')
case $head in
"- **ext4 empty-none-sync: median +1.4 % (worse)**: metadata sync +8.0 % (+40.0 us a fault, worse), of which jbd2 commit flushing +40.0 us")
	ktap_pass jbd2_delay_named_by_commit_phase ;;
*) ktap_fail jbd2_delay_named_by_commit_phase "headline: $head" ;;
esac
if echo "$out" | grep -q '^| `jbd2_log_wait_commit;schedule;__schedule;--;try_to_wake_up;.*jbd2_journal_commit_transaction.*` | .* | +[1-9]'; then
	ktap_pass waits_that_grew_listed
else
	ktap_fail waits_that_grew_listed "$(echo "$out" | grep -A4 'waits whose time grew')"
fi

head=$(sh "$EXPLAIN" "$tmp/base" "$tmp/cpu" "$tmp/fsync.json" | grep '^- \*\*')
case $head in
*"metadata sync +8.0 %"*", of which the faulting thread on CPU +40.0 us") ktap_pass faulting_thread_delay_named_on_cpu ;;
*) ktap_fail faulting_thread_delay_named_on_cpu "headline: $head" ;;
esac

gate_json "$tmp/iomap.json" iomap
out=$(sh "$EXPLAIN" "$tmp/base" "$tmp/cpu" "$tmp/iomap.json")
case $(echo "$out" | grep '^- \*\*') in
*": dax_iomap_fault +8.0 % (+40.0 us a fault, worse)") ktap_pass other_phase_named_without_breakdown ;;
*) ktap_fail other_phase_named_without_breakdown "$(echo "$out" | grep '^- ')" ;;
esac

# The handler grew by itself: its own part, not a phase it holds.
gate_json "$tmp/handler.json" handler
case $(sh "$EXPLAIN" "$tmp/base" "$tmp/cpu" "$tmp/handler.json" | grep '^- \*\*') in
*": the fs handler outside the three phases +7.7 % (+38.5 us a fault)") ktap_pass handler_own_part_named ;;
*) ktap_fail handler_own_part_named "$(sh "$EXPLAIN" "$tmp/base" "$tmp/cpu" "$tmp/handler.json" | grep '^- ')" ;;
esac

mkdir -p "$tmp/bare/boot-1"
case $(sh "$EXPLAIN" "$tmp/base" "$tmp/bare" "$tmp/fsync.json" | grep '^- \*\*') in
*"(no daxlat --breakdown files on both sides: make gate-run BREAKDOWN=1 says where it went)") ktap_pass no_breakdown_says_how ;;
*) ktap_fail no_breakdown_says_how "$(sh "$EXPLAIN" "$tmp/base" "$tmp/bare" "$tmp/fsync.json" | head -n 4)" ;;
esac

# A patch that makes more faults synchronous: the metadata sync is as long
# as before, but every fault now takes it (the phase rows hold only the
# faults that went through it, as every phase row: the iomap phase is
# longer here, and its share moves too).
for s in cowbase:2 cownew:4; do
	d=$tmp/${s%:*} n=${s#*:}
	mkdir -p "$d" && printf 'measure=icount\nPAGES='\''4'\''\n' >"$d/meta.txt"
	awk -v n="$n" 'BEGIN { for (b = 1; b <= 3; b++) {
		print b, "xfs", "reflinked-none-sync", 1, 1500000, 1500000, 1500000, 1500000
		l = b " xfs reflinked-none-sync:iomap 1"; for (i = 0; i < n; i++) l = l " 1200000"; print l
		l = b " xfs reflinked-none-sync:fsync 1"; for (i = 0; i < n; i++) l = l " 1000000"; print l } }' >"$d/samples.txt"
done
jq -n '{rows: [{fs: "xfs", scenario: "reflinked-none-sync", metric: "median", base: {median_ns: 1000000},
	new: {median_ns: 1500000}, change: 0.5, verdict: "worse"},
	{fs: "xfs", scenario: "reflinked-none-sync:iomap", metric: "median", base: {median_ns: 500000}, new: {median_ns: 500000}, change: 0, verdict: "same"},
	{fs: "xfs", scenario: "reflinked-none-sync:fsync", metric: "median", base: {median_ns: 1000000}, new: {median_ns: 1000000}, change: 0, verdict: "same"}]}' >"$tmp/cow.json"
head=$(sh "$EXPLAIN" "$tmp/cowbase" "$tmp/cownew" "$tmp/cow.json" | grep '^- \*\*')
case $head in
*": metadata sync taken by 100 % of the faults (base 50 %), +500.0 us a fault on average"*) ktap_pass more_faults_synced_named_by_share ;;
*) ktap_fail more_faults_synced_named_by_share "headline: $head" ;;
esac

# Only the tool-cost row worse: it is the tool's own cost, nothing to explain.
jq '.rows |= map(if (.scenario | test("\\+daxlat$")) then . else .verdict = "same" end)' "$tmp/fsync.json" >"$tmp/same.json"
out=$(sh "$EXPLAIN" "$tmp/base" "$tmp/jbd2" "$tmp/same.json"; echo "rc=$?")
if [ "$out" = "rc=0" ]; then
	ktap_pass nothing_worse_nothing_said
else
	ktap_fail nothing_worse_nothing_said "printed: $(echo "$out" | head -n 3)"
fi
ktap_finish
