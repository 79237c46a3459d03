#!/bin/sh
# From "worse" to the commit: git bisect run over a kernel git tree, each
# step's kernel built with the suite's fragment (one build folder,
# incremental, ccache) and judged by a guest test.
# Usage: bisect.sh KSRC GOOD BAD OUT
#   KSRC  a kernel git tree; it is not touched: the bisection checks out
#         revisions in a worktree of its own (BUILDS/src)
#   GOOD, BAD  revisions (GOOD an ancestor of BAD)
#   OUT   the run's folder: log.txt, steps.txt (a line a step), each step's
#         run under steps/REV, report.txt
# Environment:
#   TEST     gate (default), check, syncorder or crash: how a step is judged.
#            gate: a gate run compared with GOOD's (run once, not again each
#            step) on METRIC: worse is bad, same or better good, unknown is
#            run again with twice the boots, up to TRIES runs, then skipped;
#            the others: the guest job's KTAP, any "not ok" bad
#   METRIC   "FS SCENARIO METRIC" (ext4 empty-none-sync median) the gate
#            judges by; default: the worse row of GOOD against BAD whose
#            median moved most
#   TRIES    runs of a step before an unknown one is skipped (default 2)
#   BUILDS   the build folder and worktree (default .output/own/bisect)
#   BS_BUILD, BS_TEST  the build (BS_BUILD KSRC BUILD, LOCALVERSION set;
#            last line "KERNEL=... MODULES=...") and the test (BS_TEST
#            KERNEL MODULES DIR BOOTS: results into DIR); the host test
#            gives fakes of both
# A revision that does not build, or whose test leaves nothing to judge, is
# skipped (git bisect skip), not judged.
# Exit: 0 the first bad commit found (report.txt); 1 no single commit (only
# skipped ones left: they are listed); 20 KSRC is no kernel git tree; 24
# GOOD is not good or BAD not bad; 22 GOOD or BAD does not build; 2 usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
suite_lib=$root/lib
. "$suite_lib/exitcodes.sh"

say() { echo "  BISECT   $*" | tee -a "$out/log.txt"; }

# ---- one step (git bisect run calls this script with --step) -------------

# build_rev NAME: the worktree's HEAD built into BUILDS/build; its words
# into OUT/steps/NAME/kernel. False (the log kept) when it does not build.
build_rev() {
	d=$out/steps/$1 t0=$(date +%s)
	mkdir -p "$d"
	LOCALVERSION=-bisect $BS_BUILD "$wt" "$builds/build" >"$d/build.log" 2>&1
	rc=$? words=$(tail -n 1 "$d/build.log")
	build_s=$(($(date +%s) - t0))
	case $rc:$words in
	0:KERNEL=*MODULES=*) echo "$words" >"$d/kernel" ;;
	*) rm -f "$builds/build/arch/x86/boot/bzImage"; return 1 ;;
	esac
}

# run_test NAME BOOTS: the test on NAME's kernel into steps/NAME/run-BOOTS.
run_test() {
	d=$out/steps/$1
	eval "$(cat "$d/kernel")"
	rm -rf "$d/run-$2"
	$BS_TEST "$KERNEL" "$MODULES" "$d/run-$2" "$2" >"$d/test-$2.log" 2>&1
}
# judge NAME BOOTS: run_test, then "good|bad|unknown FIGURES" on stdout
# ("none" when the test left nothing to judge).
judge() { run_test "$1" "$2"; verdict_of "$1" "$2"; }
verdict_of() {
	d=$out/steps/$1
	case $TEST in
	gate) gate_verdict "$out/steps/good/run-$BOOTS0" "$d/run-$2" ;;
	*) ktap_verdict "$d/run-$2" ;;
	esac
}

# ktap_verdict DIR: bad when a KTAP file of DIR has a "not ok", good when
# they have some "ok" and none "not ok", none without results.
ktap_verdict() {
	ls "$1"/*.tap >/dev/null 2>&1 || { echo "none no KTAP file"; return; }
	awk '{ sub(/^[ \t]*(\[ *[0-9]+s\] )?/, "") }
		/^not ok [0-9]+ / { sub(/^not ok [0-9]+ /, ""); sub(/ #.*/, ""); bad = bad (bad ? "," : "") $0; next }
		/^ok [0-9]+ / { ok++ }
		END { if (bad != "") print "bad not ok: " bad; else if (ok) print "good " ok " ok"; else print "none no result" }' "$1"/*.tap
}

# gate_verdict BASE NEW: the gate's verdict on METRIC's row.
gate_verdict() {
	[ -s "$2/samples.txt" ] || { echo "none no gate run"; return; }
	"$GATE" --base "$1" --new "$2" --json >"$2/gate.json" 2>"$2/gate.err"
	# shellcheck disable=SC2086
	set -- $METRIC "$2/gate.json"
	jq -r --arg f "$1" --arg s "$2" --arg m "$3" '[.rows[] | select(.fs == $f and .scenario == $s and .metric == $m)][0] //
		{verdict: "none"} | "\(.verdict) \($f) \($s) \($m) \(if .change then "\(.change * 1000 | round / 10) %" else "no row" end)"' "$4" 2>/dev/null |
		sed 's/^\(worse\) /bad \1 /; s/^\(same\|better\) /good \1 /; s/^unknown /unknown unknown /' |
		grep . || echo "none the gate failed: $(head -n 1 "$2/gate.err")"
}

# The step: build, judge (again with more boots while unknown), the exit
# status git bisect run reads: 0 good, 1 bad, 125 skip.
step() {
	rev=$(git -C "$wt" rev-parse --short=12 HEAD)
	n=$(($(wc -l <"$out/steps.txt") + 1))
	subject=$(git -C "$wt" log -1 --format=%s HEAD)
	if ! build_rev "$rev"; then
		echo "$rev skip build-failed $build_s" >>"$out/steps.txt"
		say "step $n $rev \"$subject\": does not build ($build_s s): skipped (log: $out/steps/$rev/build.log)"
		exit 125
	fi
	boots=$BOOTS0 try=1
	while :; do
		set -- $(judge "$rev" "$boots")
		verdict=$1; shift
		[ "$verdict" = unknown ] && [ "$try" -lt "$TRIES" ] || break
		say "step $n $rev: unknown with $boots boots ($*): again with $((boots * 2))"
		boots=$((boots * 2)) try=$((try + 1))
	done
	echo "$rev $verdict $build_s $*" >>"$out/steps.txt"
	say "step $n $rev \"$subject\": build $build_s s, $verdict ($*)"
	case $verdict in good) exit 0 ;; bad) exit 1 ;; *) exit 125 ;; esac
}

# ---- the driver ----------------------------------------------------------

# endpoint NAME REV: GOOD or BAD (NAME) checked out and built; the
# driver judges it.
endpoint() {
	git -C "$wt" checkout -q --detach "$2" || { echo "bisect: cannot check $2 out in $wt" >&2; exit "$EXIT_RUNTIME"; }
	build_rev "$1" || { echo "bisect: $1 ($2) does not build (log: $out/steps/$1/build.log)" >&2; exit "$EXIT_BUILD_FAILED"; }
	say "$1 $2: build $build_s s"
}

# pick_metric: METRIC unset, the gate's worse row of GOOD against BAD whose
# median moved most (a median row first).
pick_metric() {
	"$GATE" --base "$out/steps/good/run-$BOOTS0" --new "$out/steps/bad/run-$BOOTS0" --json >"$out/good-bad.json" 2>/dev/null
	jq -r '[.rows[] | select(.verdict == "worse" and (.scenario | test("\\+daxlat$") | not))] |
		sort_by(if .metric == "median" then 0 else 1 end, -(.change | fabs)) | .[0] // empty |
		"\(.fs) \(.scenario) \(.metric)"' "$out/good-bad.json" 2>/dev/null
}

if [ "${1:-}" = --step ]; then
	out=$BS_OUT wt=$BS_WT builds=$BS_BUILDS
	step
fi

[ $# = 4 ] || { sed -n '5,10s/^# \{0,1\}//p' "$0" >&2; exit "$EXIT_USAGE"; }
ksrc=$1 good=$2 bad=$3 out=$4
TEST=${TEST:-gate} TRIES=${TRIES:-2}
case $TEST in gate | check | syncorder | crash) ;; *) echo "bisect: TEST=$TEST: gate, check, syncorder or crash" >&2; exit "$EXIT_USAGE" ;; esac
case $TRIES in '' | *[!0-9]* | 0) echo "bisect: TRIES=$TRIES: a whole number from 1" >&2; exit "$EXIT_USAGE" ;; esac
[ -f "$ksrc/Makefile" ] && grep -q '^VERSION = ' "$ksrc/Makefile" && git -C "$ksrc" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "bisect: $ksrc is not a kernel git tree (no top Makefile with VERSION, or no git)" >&2; exit "$EXIT_NOT_KERNEL_TREE"; }
for r in "$good" "$bad"; do
	git -C "$ksrc" rev-parse --verify -q "$r^{commit}" >/dev/null || { echo "bisect: $r: no such revision in $ksrc" >&2; exit "$EXIT_USAGE"; }
done
git -C "$ksrc" merge-base --is-ancestor "$good" "$bad" || { echo "bisect: GOOD $good is not an ancestor of BAD $bad" >&2; exit "$EXIT_USAGE"; }
# As given (for messages) and as commits (the worktree has its own HEAD).
good_sha=$(git -C "$ksrc" rev-parse "$good^{commit}") bad_sha=$(git -C "$ksrc" rev-parse "$bad^{commit}")
builds=${BUILDS:-$root/.output/own/bisect}
BS_BUILD=${BS_BUILD:-sh $here/build-kernel.sh}
BS_TEST=${BS_TEST:-bs_test}
GATE=${GATE:-${O:-$root/.output}/bin/gate}
mkdir -p "$out/steps" "$builds" && out=$(cd "$out" && pwd) builds=$(cd "$builds" && pwd) || exit 1
: >"$out/steps.txt"
: >"$out/log.txt"
wt=$builds/src
t_start=$(date +%s)

# The real test: a gate run, or the guest job, on the step's kernel.
bs_test() {
	kernel=$1 modules=$2 dir=$3 boots=$4
	case $TEST in
	gate) set -- RUN_DIR="$dir" BOOTS="$boots" gate-run ;;
	check) set -- CHECK="$dir" check-kernel ;;
	syncorder) mkdir -p "$dir" && set -- CHECK="$dir" check-syncorder ;;
	crash) mkdir -p "$dir" && set -- CHECK="$dir" crash-check ;;
	esac
	make -C "$root" --no-print-directory O="${O:-$root/.output}" KERNEL="$kernel" MODULES="$modules" "$@"
}

# The worktree: the user's tree keeps its checkout and bisect state.
cleanup() {
	git -C "$wt" bisect reset -q >/dev/null 2>&1
	git -C "$ksrc" worktree remove --force "$wt" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
git -C "$ksrc" worktree remove --force "$wt" >/dev/null 2>&1
git -C "$ksrc" worktree prune
git -C "$ksrc" worktree add -q --detach "$wt" "$good_sha" || { echo "bisect: cannot make a worktree of $ksrc in $wt" >&2; exit 1; }
BOOTS0=${BOOTS:-3}
say "$(git -C "$ksrc" rev-list --count "$good..$bad") commits from $good to $bad, judged by TEST=$TEST"

# GOOD's run is the reference every step is compared with: run once.
endpoint good "$good_sha"
run_test good "$BOOTS0"
if [ "$TEST" = gate ]; then
	[ -s "$out/steps/good/run-$BOOTS0/samples.txt" ] ||
		{ echo "bisect: the gate run on GOOD left no samples (log: $out/steps/good/test-$BOOTS0.log)" >&2; exit "$EXIT_RUNTIME"; }
	say "good: the reference gate run, kept for every step ($out/steps/good/run-$BOOTS0)"
else
	set -- $(verdict_of good "$BOOTS0")
	v=$1; shift
	[ "$v" = good ] || { echo "bisect: GOOD $good is not good: $*" >&2; exit "$EXIT_BISECT_ENDS"; }
	say "good: $*"
fi
endpoint bad "$bad_sha"
run_test bad "$BOOTS0"
if [ "$TEST" = gate ]; then
	METRIC=${METRIC:-$(pick_metric)}
	[ -n "$METRIC" ] || { echo "bisect: no gate row is worse on BAD $bad than on GOOD $good: nothing to bisect" >&2; exit "$EXIT_BISECT_ENDS"; }
fi
set -- $(verdict_of bad "$BOOTS0")
v=$1; shift
[ "$v" = bad ] || { echo "bisect: BAD $bad is not bad${METRIC:+ on $METRIC}: $*" >&2; exit "$EXIT_BISECT_ENDS"; }
say "bad: $*${METRIC:+ (the metric judged: $METRIC)}"

git -C "$wt" bisect start "$bad_sha" "$good_sha" >/dev/null || exit 1
BS_OUT=$out BS_WT=$wt BS_BUILDS=$builds BOOTS0=$BOOTS0 TEST=$TEST TRIES=$TRIES METRIC=${METRIC:-} GATE=$GATE \
	BS_BUILD=$BS_BUILD BS_TEST=$BS_TEST O=${O:-} \
	git -C "$wt" bisect run sh "$here/bisect.sh" --step >"$out/bisect-run.log" 2>&1
git -C "$wt" bisect log >"$out/bisect-log.txt" 2>/dev/null
first=$(sed -n 's/^\([0-9a-f]\{7,\}\) is the first bad commit$/\1/p' "$out/bisect-run.log" | head -n 1)
steps=$(wc -l <"$out/steps.txt")
wall=$(($(date +%s) - t_start))
{
	if [ -z "$first" ]; then
		echo "no single first bad commit: $(grep -A20 'only .skip.ped commits left' "$out/bisect-run.log" | tr '\n' ' ')"
	else
		short=$(git -C "$ksrc" rev-parse --short=12 "$first")
		parent=$(git -C "$ksrc" rev-parse --short=12 "$first^")
		echo "first bad commit: $short $(git -C "$ksrc" log -1 --format=%s "$first")"
		echo "  its step:    $(awk -v r="$short" '$1 == r { $1 = ""; print }' "$out/steps.txt")"
		p=$(awk -v r="$parent" '$1 == r { $1 = ""; print }' "$out/steps.txt")
		[ -n "$p" ] || { [ "$good_sha" = "$(git -C "$ksrc" rev-parse "$first^")" ] && p=" GOOD (the reference)"; }
		echo "  its parent:  $parent${p:- (not a step)}"
	fi
	echo "steps: $steps ($((steps + 2)) kernel builds with GOOD's and BAD's), wall $wall s${METRIC:+, metric $METRIC}"
} >"$out/report.txt"
tee -a "$out/log.txt" <"$out/report.txt" | sed 's/^/  BISECT   /'
[ -n "$first" ] || exit "$EXIT_RUNTIME"
