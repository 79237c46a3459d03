#!/bin/sh
# Test a kernel patch end to end: from one source tree, the base kernel and
# the base + patches, each built with the suite's fragment in a build folder
# of its own (kept: the next run is incremental, and ccache makes a second
# patch on the same base cost the changed files and the link), the guest
# jobs on both, and one report of what changed.
# Usage: patch-check.sh KSRC OUT PATCH...
#   KSRC   a kernel source tree (make kernel-source GUEST=6.12); the patches
#          are applied to it for the patched build only and taken out again
#   OUT    the run's folder: the patches as applied, each side's KTAP files
#          (OUT/base, OUT/patched) and OUT/report.txt
#   PATCH  git format-patch or diff -p1 files, applied in order
# Environment:
#   BUILDS    where the build folders live (BUILDS/base, BUILDS/patched)
#   CHECKS    the guest jobs (make targets; default: every one of make check)
#   TAG       in the kernels' release names (6.12.95-TAG-base): runs of
#             different trees or configs side by side do not share the
#             kernel's folder under .output/kernels
#   FIXES     the id of a finding (validate/known-bugs.txt) the patches must
#             fix: its tests must pass on the patched kernel (XPASS)
#   WITH_GATE 1 (default): also a gate run on each kernel (the gate's
#             scenarios and the copy-on-write ones, GATE_SETS=gate,gate-cow,
#             with the breakdown) and the gate, base against patched: what
#             the patch costs, in the report; 0: none
#   CONFIRM   how many more times the jobs of changed tests run on each
#             kernel before a change counts (default 1; 0: none)
#   PC_BUILD  the build command, called as PC_BUILD KSRC BUILD with
#             LOCALVERSION set; its last line "KERNEL=... MODULES=..."
#   PC_CHECK  the check command, called as PC_CHECK KERNEL MODULES DIR: KTAP
#             files into DIR
#   PC_GATE_RUN, PC_GATE  a gate run (PC_GATE_RUN KERNEL MODULES RUN_DIR) and
#             the gate (PC_GATE BASE_RUN NEW_RUN OUT); the host test gives
#             fakes of all four
# Exit: 0 no test got worse (and FIXES fixed); 14 a test got worse; 20 KSRC
# is no kernel tree; 21 a patch does not apply (the tree is left as it was);
# 22 a kernel did not build (no image left); 23 FIXES still shows; 2 usage.
set -u
[ $# -ge 3 ] || { sed -n '7,13s/^# \{0,1\}//p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
suite_lib=$root/lib
. "$suite_lib/exitcodes.sh"
ksrc=$1 out=$2
shift 2
for p in "$@"; do
	[ -f "$p" ] || { echo "patch-check: $p: no such patch file" >&2; exit "$EXIT_USAGE"; }
done
[ -f "$ksrc/Makefile" ] && grep -q '^VERSION = ' "$ksrc/Makefile" && [ -f "$ksrc/scripts/kconfig/merge_config.sh" ] ||
	{ echo "patch-check: $ksrc is not a kernel source tree (no top Makefile with VERSION, no scripts/kconfig)" >&2
	  exit "$EXIT_NOT_KERNEL_TREE"; }
ksrc=$(cd "$ksrc" && pwd)
builds=${BUILDS:-$root/.output/own/$(basename "$ksrc")-pc}
PC_BUILD=${PC_BUILD:-sh $here/build-kernel.sh}
PC_CHECK=${PC_CHECK:-pc_check_guest}
PC_GATE_RUN=${PC_GATE_RUN:-pc_gate_run}
PC_GATE=${PC_GATE:-pc_gate}
WITH_GATE=${WITH_GATE:-1}
case $WITH_GATE in 0 | 1) ;; *) echo "patch-check: WITH_GATE=$WITH_GATE: 0 or 1" >&2; exit "$EXIT_USAGE" ;; esac
CONFIRM=${CONFIRM:-1}
case $CONFIRM in "" | *[!0-9]*) echo "patch-check: CONFIRM=$CONFIRM: a number of runs" >&2; exit "$EXIT_USAGE" ;; esac
mkdir -p "$out/patches" "$builds" || exit 1
out=$(cd "$out" && pwd) builds=$(cd "$builds" && pwd)
# What is applied to the tree, so that a run killed before it took them
# out again (SIGKILL, power) is undone by the next one.
marker=$ksrc/.patch-check-applied

say() { echo "  PATCHCHK $*"; }

# The patches applied (the marker's list), last first, taken out.
unapply() {
	[ -f "$marker" ] || return 0
	tac "$marker" | while read -r p; do
		patch -d "$ksrc" -p1 -R -s -f <"$p" >/dev/null 2>&1 ||
			echo "patch-check: cannot take $p out of $ksrc again: restore the tree" >&2
	done
	rm -f "$marker"
}

# Each patch, checked by a dry run on the tree as the ones before it left
# it, then applied (the exit trap takes them out again).
apply_all() {
	: >"$marker"
	i=0
	for p in "$@"; do
		i=$((i + 1))
		kept=$out/patches/$(printf '%02d' $i)-$(basename "$p")
		cp "$p" "$kept"
		if ! why=$(patch -d "$ksrc" -p1 -N -s --dry-run <"$kept" 2>&1); then
			echo "patch-check: $p does not apply to $ksrc: $(echo "$why" | head -n 1)" >&2
			return 1
		fi
		patch -d "$ksrc" -p1 -N -s <"$kept" >/dev/null && echo "$kept" >>"$marker"
	done
}

# build SIDE: the kernel of SIDE into BUILDS/SIDE, its KERNEL= MODULES=
# words into $out/SIDE.kernel; a failed build leaves no image.
build() {
	side=$1 t0=$(date +%s)
	say "build $side kernel into $builds/$side"
	rm -f "$out/$side.kernel"
	LOCALVERSION=-${TAG:+$TAG-}$side $PC_BUILD "$ksrc" "$builds/$side" >"$out/build-$side.log" 2>&1
	rc=$?
	words=$(tail -n 1 "$out/build-$side.log")
	case $rc:$words in
	0:KERNEL=*MODULES=*) ;;
	*)	rm -f "$builds/$side/arch/x86/boot/bzImage"
		echo "patch-check: the $side kernel does not build (log: $out/build-$side.log):" >&2
		tail -n 5 "$out/build-$side.log" | sed 's/^/  /' >&2
		return 1 ;;
	esac
	echo "$words" >"$out/$side.kernel"
	say "build $side: $(($(date +%s) - t0)) s"
}

# The guest half of make check on an own kernel, into DIR.
pc_check_guest() {
	if [ -n "${CHECKS:-}" ]; then
		rm -rf "$3" && mkdir -p "$3"
		# shellcheck disable=SC2086
		make -C "$root" --no-print-directory -k O="${O:-$root/.output}" KERNEL="$1" MODULES="$2" CHECK="$3" $CHECKS
	else
		make -C "$root" --no-print-directory O="${O:-$root/.output}" KERNEL="$1" MODULES="$2" CHECK="$3" check-kernel
	fi
}

pc_make() { make -C "$root" --no-print-directory O="${O:-$root/.output}" "$@"; }
pc_gate_run() { pc_make KERNEL="$1" MODULES="$2" RUN_DIR="$3" GATE_SETS=gate,gate-cow BREAKDOWN=1 gate-run; }
# The gate's own exit status (16 worse, 17 unknown): not through make,
# which turns every failing status into 2.
pc_gate() { (cd "$root" && GATE="${O:-$root/.output}/bin/gate" sh results/gate-report.sh "$1" "$2" "$3"); }

# gate_side SIDE: a gate run on SIDE's kernel into OUT/gate-SIDE.
gate_side() {
	side=$1 t0=$(date +%s)
	eval "$(cat "$out/$side.kernel")"
	if [ "$side" = base ] && reuse gate-run "$out/gate-base"; then
		return 0
	fi
	say "gate run on the $side kernel"
	rm -rf "$out/gate-$side"
	$PC_GATE_RUN "$KERNEL" "$MODULES" "$out/gate-$side" >"$out/gate-run-$side.log" 2>&1 ||
		{ echo "patch-check: the gate run on the $side kernel failed (log: $out/gate-run-$side.log)" >&2; return 1; }
	say "gate run $side: $(($(date +%s) - t0)) s"
	[ "$side" != base ] || keep gate-run "$out/gate-base"
}

# The gate, base against patched: its verdict table into OUT/gate.txt.
gate_both() {
	gate_side base && gate_side patched || return 1
	$PC_GATE "$out/gate-base" "$out/gate-patched" "$out/gate" >"$out/gate.txt" 2>&1
	gate_rc=$?
	case $gate_rc in
	0 | "$EXIT_REGRESSION" | "$EXIT_GATE_UNKNOWN") ;;
	*) echo "patch-check: the gate failed, exit $gate_rc (log: $out/gate.txt)" >&2; return 1 ;;
	esac
}

# The base side's results are kept in BUILDS/results/KEY, KEY the base
# image's checksum, the suite's revision (and uncommitted changes) and what
# was run: a second patch on the same base runs the patched side only.
# reuse WHAT DST: a kept result of WHAT copied to DST (false: none kept);
# keep WHAT SRC: SRC kept as WHAT's.
base_key() {
	eval "$(cat "$out/base.kernel")"
	echo "$(cksum <"$KERNEL" | cut -d' ' -f1)-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)-$(git -C "$root" status --porcelain 2>/dev/null | cksum | cut -d' ' -f1)-$(echo "${CHECKS:-all}" | cksum | cut -d' ' -f1)"
}
# The key is computed once, after the base build (a checksum of the image
# and a git status each time was work repeated for every look-up).
kept_result() { echo "$base_results/$1"; }
reuse() {
	[ -d "$(kept_result "$1")" ] || return 1
	rm -rf "$2" && cp -r "$(kept_result "$1")" "$2" && say "$1 on the base kernel: kept from an earlier run on the same base image"
}
keep() { rm -rf "$(kept_result "$1")" && mkdir -p "$(dirname "$(kept_result "$1")")" && cp -r "$2" "$(kept_result "$1")"; }

check() {
	side=$1
	eval "$(cat "$out/$side.kernel")"
	if [ "$side" = base ] && reuse checks "$out/base"; then
		return 0
	fi
	say "guest jobs on the $side kernel ($(basename "$MODULES"))"
	$PC_CHECK "$KERNEL" "$MODULES" "$out/$side" >"$out/check-$side.log" 2>&1
	ls "$out/$side"/*.tap >/dev/null 2>&1 ||
		{ echo "patch-check: the guest jobs on the $side kernel left no KTAP file (log: $out/check-$side.log)" >&2
		  return 1; }
	grep -h ' passed, ' "$out/check-$side.log" | tail -n 1 | sed "s/^ */  PATCHCHK $side: /"
	[ "$side" != base ] || keep checks "$out/base"
}

# report LIST [SIDE_ARGS...]: patch-report.awk (its list=LIST: "changed" or
# "") on both sides' KTAP files, then SIDE_ARGS (the runs again).
report() {
	list=$1; shift
	awk -v fixes="${FIXES:-}" -v list="$list" -f "$here/patch-report.awk" "$root/validate/known-bugs.txt" \
		side=base "$out"/base/*.tap side=patched "$out"/patched/*.tap "$@"
}

# The make target whose job writes KTAP file NAME (NAME.tap), as the
# Makefile's KERNEL_CHECKS and KERNEL_TAPS pair them.
tap_job() {
	case $1 in
	guest-kernel-config) echo check-kconfig ;;
	guest-check) echo check-guest ;;
	bpf-files) echo check-bpf ;;
	guest-native) echo check-native-mode ;;
	crash) echo crash-check ;;
	runner) echo check-runner ;;
	guest-*) echo "check-${1#guest-}" ;;
	*) return 1 ;;
	esac
}

# A changed test is a claim only once it shows again (LKP runs a job again
# before it reports a change): the jobs holding changed tests run CONFIRM
# more times on each kernel, into OUT/again-I-SIDE; the report counts a
# test as worse only if every run again agreed.
confirm() {
	files=$(report changed)
	jobs=
	for f in $files; do
		j=$(tap_job "$f") || continue
		case " $jobs " in *" $j "*) ;; *) jobs="$jobs $j" ;; esac
	done
	[ -n "$jobs" ] || return 0
	i=0
	while [ "$i" -lt "$CONFIRM" ]; do
		i=$((i + 1))
		for side in base patched; do
			eval "$(cat "$out/$side.kernel")"
			say "run again ($i of $CONFIRM) on the $side kernel, for the changed tests:$jobs"
			CHECKS=${jobs# } $PC_CHECK "$KERNEL" "$MODULES" "$out/again-$i-$side" >"$out/again-$i-$side.log" 2>&1
		done
	done
}
# again_args: the runs again as the report's _again sides.
again_args() {
	for side in base patched; do
		ls "$out"/again-*-"$side"/*.tap >/dev/null 2>&1 || continue
		echo "side=${side}_again"
		ls "$out"/again-*-"$side"/*.tap
	done
}

trap 'unapply' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
[ -f "$marker" ] && { say "taking out the patches an earlier run left applied"; unapply; }
build base || exit "$EXIT_BUILD_FAILED"
base_results=$builds/results/$(base_key)
apply_all "$@" || exit "$EXIT_PATCH_FAILED"
build patched || exit "$EXIT_BUILD_FAILED"
unapply
check base && check patched || exit "$EXIT_RUNTIME"
[ "$CONFIRM" = 0 ] || confirm
[ "$WITH_GATE" = 0 ] || gate_both || exit "$EXIT_RUNTIME"
# shellcheck disable=SC2046
report "" $(again_args) >"$out/report.txt"
rc=$?
if [ "$WITH_GATE" != 0 ]; then
	{ echo ""
	  echo "the gate, base -> patched (exit $gate_rc: $(exit_name "$gate_rc"); $out/gate/report.md):"
	  sed 's/^/  /' "$out/gate.txt"; } >>"$out/report.txt"
fi
cat "$out/report.txt"
case $rc in
0) exit "$EXIT_OK" ;;
3) exit "$EXIT_NOT_FIXED" ;;
4) exit "$EXIT_CHECK_FAILED" ;;
*) exit "$EXIT_RUNTIME" ;;
esac
