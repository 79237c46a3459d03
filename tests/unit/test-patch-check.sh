#!/bin/sh
# Host tests of make patch-check's logic (kernel-config/patch-check.sh and
# patch-report.awk) with a fake kernel tree, a fake build and fake guest
# results: which side saw which source, the report and the exit status of
# a fix, an incomplete fix, a regression, a patch that does not apply, a
# build that fails, a folder that is no kernel tree, and a run killed with
# its patch still applied. The real base/patched run on 6.12 is a recorded
# baseline (kernel-config/README.md, "Testing a patch").
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
suite_lib=$root/lib
. "$suite_lib/exitcodes.sh"
pc=$root/kernel-config/patch-check.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-pc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# A tree with a top Makefile, kconfig's merge script and one source file
# whose line "mode = ..." the patches change.
tree=$tmp/linux
mkdir -p "$tree/scripts/kconfig" "$tree/fs"
printf 'VERSION = 6\nPATCHLEVEL = 12\n' >"$tree/Makefile"
: >"$tree/scripts/kconfig/merge_config.sh"
printf 'int a;\nmode = broken\nint b;\n' >"$tree/fs/dax.c"
sum0=$(cat "$tree/fs/dax.c" | cksum)

# mkpatch NAME MODE: a patch setting the mode.
mkpatch() {
	mkdir -p "$tmp/a/fs" "$tmp/b/fs"
	cp "$tree/fs/dax.c" "$tmp/a/fs/dax.c"
	sed "s/^mode = .*/mode = $2/" "$tree/fs/dax.c" >"$tmp/b/fs/dax.c"
	(cd "$tmp" && diff -u a/fs/dax.c b/fs/dax.c) >"$tmp/$1.patch"
}
mkpatch fix fixed
mkpatch partial partial
mkpatch regress regressed
mkpatch nobuild nobuild
mkpatch flaky flaky
printf -- '--- a/fs/none.c\n+++ b/fs/none.c\n@@ -1 +1 @@\n-x\n+y\n' >"$tmp/stale.patch"

# The fake build: records the mode it compiled, fails on "nobuild" (or
# every build when FAIL_ALL is set), prints the KERNEL= MODULES= words.
cat >"$tmp/build.sh" <<'EOF'
ksrc=$1 build=$2
mkdir -p "$build/arch/x86/boot" "$build/mods/lib/modules/6.12.0$LOCALVERSION"
mode=$(sed -n 's/^mode = //p' "$ksrc/fs/dax.c")
echo "built $mode"
[ "$mode" != nobuild ] && [ -z "${FAIL_ALL:-}" ] || { echo "fs/dax.c:2: error: $mode"; exit 1; }
echo "$mode" >"$build/arch/x86/boot/bzImage"
echo "KERNEL=$build/arch/x86/boot/bzImage MODULES=$build/mods/lib/modules/6.12.0$LOCALVERSION"
EOF
# The fake guest jobs: a known-bug test that passes only on "fixed", a
# test that fails on "regressed", one that always passes.
cat >"$tmp/check.sh" <<'EOF'
mode=$(cat "$1") dir=$3
mkdir -p "$dir"
echo "${CHECKS:-all}" >"$dir/checks"
{
	echo "KTAP version 1"
	echo "1..3"
	echo "ok 1 always_fine"
	case $mode in
	fixed) echo "ok 2 clean_xfs_reflinked # XPASS known kernel bug xfs-cow-entry-before-remap did not show" ;;
	*) echo "# clean_xfs_reflinked: 3 runs, first: pte write fault (iomap flags SHARED: copy-on-write)"
	   echo "ok 2 clean_xfs_reflinked # XFAIL known kernel bug xfs-cow-entry-before-remap on 6.12.0: 96 of 192 entries change_after_insert" ;;
	esac
	# flaky: fails once, on the first run of the patched kernel only
	case $mode:$dir in
	regressed:* | flaky:*/flaky/patched) echo "not ok 3 ext4_sync_counts # 0 NEEDDSYNC" ;;
	*) echo "ok 3 ext4_sync_counts" ;;
	esac
} >"$dir/guest-syncorder.tap"
echo "  3 passed, 0 failed"
EOF

# The fake gate run records the kernel's mode; the fake gate finds the
# reflinked row worse when the new run's kernel was fixed (exit 16).
cat >"$tmp/gate-run.sh" <<'EOF'
mkdir -p "$3" && cp "$1" "$3/mode"
EOF
cat >"$tmp/gate.sh" <<'EOF'
mkdir -p "$3"
if [ "$(cat "$2/mode")" = fixed ]; then
	echo "xfs reflinked-none-sync median worse +812 % (metadata sync +100 %)"; exit 16
fi
echo "every row same"
EOF

# run NAME PATCH... [env before]: patch-check into $tmp/NAME, its status in rc.
run() {
	name=$1; shift
	WITH_GATE=1 BUILDS=$tmp/builds PC_BUILD="sh $tmp/build.sh" PC_CHECK="sh $tmp/check.sh" \
		PC_GATE_RUN="sh $tmp/gate-run.sh" PC_GATE="sh $tmp/gate.sh" \
		sh "$pc" "$tree" "$tmp/$name" "$@" >"$tmp/$name.out" 2>&1
	rc=$?
}
tree_untouched() {
	[ "$(cat "$tree/fs/dax.c" | cksum)" = "$sum0" ] && [ ! -e "$tree/.patch-check-applied" ] ||
		{ echo "the tree was left changed: $(sed -n 2p "$tree/fs/dax.c")"; return 1; }
}

fix_reported() {
	FIXES=xfs-cow-entry-before-remap run fix "$tmp/fix.patch"
	[ "$rc" = 0 ] || { echo "exit $rc: $(tail -n 5 "$tmp/fix.out")"; return 1; }
	grep -q 'guest-syncorder:clean_xfs_reflinked: XFAIL -> XPASS' "$tmp/fix.out" &&
		grep -q 'finding xfs-cow-entry-before-remap: fixed' "$tmp/fix.out" &&
		grep -qx 'built broken' "$tmp/fix/build-base.log" && grep -qx 'built fixed' "$tmp/fix/build-patched.log" &&
		grep -q 'the gate, base -> patched (exit 16: EXIT_REGRESSION' "$tmp/fix.out" &&
		grep -q '  xfs reflinked-none-sync median worse' "$tmp/fix.out" ||
		{ cat "$tmp/fix.out"; return 1; }
	tree_untouched
}
partial_not_fixed() {
	FIXES=xfs-cow-entry-before-remap run partial "$tmp/partial.patch"
	[ "$rc" = "$EXIT_NOT_FIXED" ] || { echo "exit $rc, want $EXIT_NOT_FIXED: $(tail -n 5 "$tmp/partial.out")"; return 1; }
	grep -q 'STILL SHOWS on the patched kernel, in 1 of its 1 test' "$tmp/partial.out" &&
		grep -q '  guest-syncorder:clean_xfs_reflinked: XFAIL' "$tmp/partial.out" &&
		grep -q 'pte write fault (iomap flags SHARED' "$tmp/partial.out" &&
		grep -q '^changed: 0' "$tmp/partial.out" &&
		grep -q 'checks on the base kernel: kept from an earlier run' "$tmp/partial.out" &&
		[ ! -e "$tmp/partial/check-base.log" ] || { cat "$tmp/partial.out"; return 1; }
	tree_untouched
}
regression_exit_14() {
	run regress "$tmp/regress.patch"
	[ "$rc" = "$EXIT_CHECK_FAILED" ] || { echo "exit $rc: $(tail -n 5 "$tmp/regress.out")"; return 1; }
	grep -q 'guest-syncorder:ext4_sync_counts: PASS -> FAIL' "$tmp/regress.out" &&
		grep -q "ext4_sync_counts: PASS -> FAIL (confirmed: the same when run again)" "$tmp/regress.out" &&
		[ "$(cat "$tmp/regress/again-1-patched/checks")" = check-syncorder ] &&
		[ "$(cat "$tmp/regress/again-1-base/checks")" = check-syncorder ] &&
		grep -q '^got worse: 1' "$tmp/regress.out" || { cat "$tmp/regress.out"; return 1; }
}
# A test that fails once on the patched kernel and passes when its job
# runs again: reported, not counted (exit 0); with CONFIRM=0 it counts.
flaky_not_counted() {
	run flaky "$tmp/flaky.patch"
	[ "$rc" = 0 ] || { echo "exit $rc: $(tail -n 8 "$tmp/flaky.out")"; return 1; }
	grep -q "ext4_sync_counts: PASS -> FAIL (NOT REPRODUCED, again: base PASS, patched PASS)" "$tmp/flaky.out" &&
		grep -q "^got worse: 0" "$tmp/flaky.out" &&
		grep -q "^worse once but not when run again (not counted): 1" "$tmp/flaky.out" || { cat "$tmp/flaky.out"; return 1; }
	rm -rf "$tmp/flaky"
	CONFIRM=0 run flaky "$tmp/flaky.patch"
	[ "$rc" = "$EXIT_CHECK_FAILED" ] && [ ! -d "$tmp/flaky/again-1-patched" ] ||
		{ echo "CONFIRM=0: exit $rc: $(tail -n 8 "$tmp/flaky.out")"; return 1; }
}
stale_patch_exit_21() {
	run stale "$tmp/fix.patch" "$tmp/stale.patch"
	[ "$rc" = "$EXIT_PATCH_FAILED" ] || { echo "exit $rc: $(cat "$tmp/stale.out")"; return 1; }
	grep -q "^patch-check: $tmp/stale.patch does not apply to $tree" "$tmp/stale.out" &&
		[ ! -e "$tmp/stale/patched.kernel" ] || { cat "$tmp/stale.out"; return 1; }
	tree_untouched
}
patched_build_fails_exit_22() {
	rm -rf "$tmp/builds/patched"
	run nobuild "$tmp/nobuild.patch"
	[ "$rc" = "$EXIT_BUILD_FAILED" ] || { echo "exit $rc: $(cat "$tmp/nobuild.out")"; return 1; }
	grep -q '^patch-check: the patched kernel does not build' "$tmp/nobuild.out" &&
		grep -q 'fs/dax.c:2: error: nobuild' "$tmp/nobuild.out" &&
		[ ! -e "$tmp/builds/patched/arch/x86/boot/bzImage" ] || { cat "$tmp/nobuild.out"; return 1; }
	tree_untouched
}
base_build_fails_exit_22() {
	FAIL_ALL=1 run basefail "$tmp/fix.patch"
	[ "$rc" = "$EXIT_BUILD_FAILED" ] && grep -q '^patch-check: the base kernel does not build' "$tmp/basefail.out" &&
		[ ! -e "$tmp/builds/base/arch/x86/boot/bzImage" ] || { echo "exit $rc: $(cat "$tmp/basefail.out")"; return 1; }
	tree_untouched
}
not_a_tree_exit_20() {
	BUILDS=$tmp/builds sh "$pc" "$tmp" "$tmp/nt" "$tmp/fix.patch" >"$tmp/nt.out" 2>&1
	rc=$?
	[ "$rc" = "$EXIT_NOT_KERNEL_TREE" ] && [ "$(wc -l <"$tmp/nt.out")" = 1 ] &&
		grep -q 'is not a kernel source tree' "$tmp/nt.out" || { echo "exit $rc: $(cat "$tmp/nt.out")"; return 1; }
}
# A run killed with its patch applied (the marker names it): the next run
# takes it out before it builds the base.
leftover_taken_out() {
	mkdir -p "$tmp/left"
	cp "$tmp/partial.patch" "$tmp/left/p" && patch -d "$tree" -p1 -s <"$tmp/left/p" && echo "$tmp/left/p" >"$tree/.patch-check-applied"
	FIXES=xfs-cow-entry-before-remap run left "$tmp/fix.patch"
	[ "$rc" = 0 ] && grep -q 'taking out the patches an earlier run left applied' "$tmp/left.out" &&
		grep -qx 'built broken' "$tmp/left/build-base.log" || { echo "exit $rc: $(cat "$tmp/left.out")"; return 1; }
	tree_untouched
}

ktap_plan_checks "$0"
ktap_start
ktap_check fix_reported_as_xpass fix_reported
ktap_check incomplete_fix_exit_23_names_the_test partial_not_fixed
ktap_check regression_exit_14 regression_exit_14
ktap_check flaky_change_not_reproduced_not_counted flaky_not_counted
ktap_check stale_patch_exit_21_tree_untouched stale_patch_exit_21
ktap_check patched_build_fails_exit_22 patched_build_fails_exit_22
ktap_check base_build_fails_exit_22 base_build_fails_exit_22
ktap_check not_a_tree_exit_20 not_a_tree_exit_20
ktap_check leftover_patch_taken_out leftover_taken_out
ktap_finish
