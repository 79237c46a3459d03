#!/bin/sh
# Host tests of make bisect's driver (kernel-config/bisect.sh) on a fake
# kernel git tree, a fake build and fake guest results judged by the real
# gate (GATE, default .output/bin/gate): the slowing commit is named
# wherever it sits, and the ordering-breaking one by a syncorder-style KTAP
# verdict; a revision that does not build is skipped, not judged; one the
# gate calls unknown is run again with twice the boots, then skipped; when
# only skipped revisions are left they are listed (exit 1); a GOOD that is
# not good or a BAD that is not bad ends it (24), a folder without git is
# refused (20); the user's tree keeps its checkout and no bisect state;
# bisect-history.sh puts the bad commit where asked among harmless ones.
# The real bisection over a kernel history is a recorded baseline
# (kernel-config/README.md, "Bisecting").
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
suite_lib=$root/lib
. "$suite_lib/exitcodes.sh"
GATE=${GATE:-$root/.output/bin/gate}
export GATE
bs=$root/kernel-config/bisect.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-bisect.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# mkhist NAME MODE... : a git tree whose commit I (1..) sets the file
# "mode" to the I-th word (fine, slow, order, nobuild, noisy); "nobuild"
# and "noisy" hold for that commit only, the others from there on.
mkhist() {
	t=$tmp/$1; shift
	rm -rf "$t" && mkdir -p "$t" && cd "$t" || return 1
	git init -q && git config user.email t@t && git config user.name t
	printf 'VERSION = 6\nPATCHLEVEL = 12\n' >Makefile
	echo fine >mode && echo fine >base && git add -A && git commit -qm "c0: the good base"
	i=0
	for m; do
		i=$((i + 1))
		case $m in
		nobuild | noisy) echo "$m" >mode ;;
		fine) cat base >mode ;;
		*) echo "$m" >base && echo "$m" >mode ;;
		esac
		echo "$i" >counter
		git add -A && git commit -qm "c$i: $m"
	done
	cd "$root" || return 1
}

# The fake build: fails on "nobuild", its image holds the mode.
cat >"$tmp/build.sh" <<'EOF'
ksrc=$1 build=$2
mode=$(cat "$ksrc/mode")
echo "built $mode"
[ "$mode" != nobuild ] || { echo "fs/dax.c:1: error"; exit 1; }
mkdir -p "$build/arch/x86/boot" "$build/mods/lib/modules/6.12.0$LOCALVERSION"
echo "$mode" >"$build/arch/x86/boot/bzImage"
echo "KERNEL=$build/arch/x86/boot/bzImage MODULES=$build/mods/lib/modules/6.12.0$LOCALVERSION"
EOF
# The fake test: a gate run of BOOTS boots (slow: 30 % slower; noisy: two
# boots whatever was asked), or a syncorder KTAP file ("order": not ok).
cat >"$tmp/test.sh" <<'EOF'
mode=$(cat "$1") dir=$3 boots=$4
mkdir -p "$dir"
echo "$boots" >>"$(dirname "$dir")/boots-asked"
# noisy: a run the gate cannot decide on (2 boots, it wants 3)
[ "$mode" != noisy ] || boots=2
if [ "$TEST" = syncorder ]; then
	{ echo "KTAP version 1"; echo "1..2"; echo "ok 1 clean_ext4_fallocated"
	  if [ "$mode" = order ]; then echo "not ok 2 clean_xfs_empty # 12 of 192 entries insert_before_sync"; else echo "ok 2 clean_xfs_empty"; fi
	} >"$dir/guest-syncorder.tap"
	exit 0
fi
awk -v boots="$boots" -v f="$([ "$mode" = slow ] && echo 1.3 || echo 1)" 'BEGIN {
	for (b = 1; b <= boots; b++) for (r = 1; r <= 3; r++) {
		s = f; line = b " ext4 empty-none-sync " r
		for (i = 0; i < 200; i++) line = line " " int((1000 + (i * 37) % 200) * s)
		print line } }' >"$dir/samples.txt"
printf 'accelerator=tcg,thread=single,icount=shift=4\nhost_cpu=AMD EPYC\nmeasure=icount\nPAGES=200\n' >"$dir/meta.txt"
EOF

# bisect NAME GOOD BAD [env before]: the driver on tree NAME into OUT/NAME.
bisect() {
	BUILDS=$tmp/builds-$1 BS_BUILD="sh $tmp/build.sh" BS_TEST="sh $tmp/test.sh" \
		sh "$bs" "$tmp/$1" "$2" "$3" "$tmp/out-$1" >"$tmp/$1.out" 2>&1
	rc=$?
}
rev() { git -C "$tmp/$1" rev-parse --short=12 "$2"; }
# untouched NAME: the tree is on its branch, with no bisect state and no worktree.
untouched() {
	[ "$(git -C "$tmp/$1" rev-parse --abbrev-ref HEAD)" != HEAD ] &&
		! git -C "$tmp/$1" bisect log >/dev/null 2>&1 &&
		[ "$(git -C "$tmp/$1" worktree list | wc -l)" = 1 ] ||
		{ echo "the tree was left changed: $(git -C "$tmp/$1" status | head -n 2 | tr '\n' ' ') $(git -C "$tmp/$1" worktree list | tr '\n' ' ')"; return 1; }
}
# names NAME COMMIT: exit 0 and the report names that commit.
names() {
	[ "$rc" = 0 ] && grep -q "^first bad commit: $(rev "$1" "$2") $3" "$tmp/out-$1/report.txt" ||
		{ echo "exit $rc: $(tail -n 6 "$tmp/$1.out")"; return 1; }
	untouched "$1"
}

slowdown_named() {
	mkhist slow6 fine fine fine fine fine slow fine fine fine &&
		TEST=gate bisect slow6 HEAD~9 HEAD && names slow6 HEAD~3 "c6: slow" || return 1
	grep -q "metric ext4 empty-none-sync median" "$tmp/out-slow6/report.txt" &&
		grep -q "its parent:  $(rev slow6 HEAD~4)" "$tmp/out-slow6/report.txt" ||
		{ cat "$tmp/out-slow6/report.txt"; return 1; }
	# The same history with the slowing commit elsewhere.
	mkhist slow2 fine slow fine fine fine fine fine fine fine &&
		TEST=gate bisect slow2 HEAD~9 HEAD && names slow2 HEAD~7 "c2: slow"
}
ordering_named() {
	mkhist order4 fine fine fine order fine fine fine fine &&
		TEST=syncorder bisect order4 HEAD~8 HEAD && names order4 HEAD~4 "c4: order" || return 1
	grep -q "not ok: clean_xfs_empty" "$tmp/out-order4/steps.txt" || { cat "$tmp/out-order4/steps.txt"; return 1; }
}
# Every revision between does not build: skipped, and all of them listed.
build_failure_skipped() {
	mkhist skips nobuild nobuild slow &&
		TEST=gate bisect skips HEAD~3 HEAD
	[ "$rc" = 1 ] && grep -q "no single first bad commit" "$tmp/out-skips/report.txt" &&
		[ "$(grep -c ' skip build-failed ' "$tmp/out-skips/steps.txt")" = 2 ] &&
		grep -q "$(git -C "$tmp/skips" rev-parse HEAD~1)" "$tmp/out-skips/report.txt" ||
		{ echo "exit $rc: $(cat "$tmp/out-skips/report.txt") / $(cat "$tmp/out-skips/steps.txt")"; return 1; }
	untouched skips
}
# A noisy revision: unknown with 3 boots, again with 6, then skipped; it
# sits just before the slowing commit, so either may be the first bad one
# and the report lists both (exit 1).
unknown_retried_then_skipped() {
	mkhist noisy fine noisy slow fine &&
		TEST=gate bisect noisy HEAD~4 HEAD
	n=$(rev noisy HEAD~2)
	grep -q "^$n unknown " "$tmp/out-noisy/steps.txt" &&
		[ "$(tr '\n' ' ' <"$tmp/out-noisy/steps/$n/boots-asked")" = "3 6 " ] ||
		{ echo "noisy step: $(cat "$tmp/out-noisy/steps.txt") asked $(cat "$tmp/out-noisy/steps/$n/boots-asked" 2>/dev/null)"; return 1; }
	[ "$rc" = 1 ] && grep -q "could be any of: $(git -C "$tmp/noisy" rev-parse HEAD~2) $(git -C "$tmp/noisy" rev-parse HEAD~1) " "$tmp/out-noisy/report.txt" ||
		{ echo "exit $rc: $(cat "$tmp/out-noisy/report.txt")"; return 1; }
	untouched noisy
}
good_not_good_exit_24() {
	mkhist allorder order fine fine || return 1
	TEST=syncorder bisect allorder HEAD~1 HEAD
	[ "$rc" = "$EXIT_BISECT_ENDS" ] && grep -q "^bisect: GOOD HEAD~1 is not good: not ok: clean_xfs_empty" "$tmp/allorder.out" ||
		{ echo "exit $rc: $(cat "$tmp/allorder.out")"; return 1; }
	untouched allorder
}
bad_not_bad_exit_24() {
	mkhist fine3 fine fine fine && TEST=gate bisect fine3 HEAD~3 HEAD
	[ "$rc" = "$EXIT_BISECT_ENDS" ] && grep -q "no gate row is worse on BAD HEAD" "$tmp/fine3.out" ||
		{ echo "exit $rc: $(cat "$tmp/fine3.out")"; return 1; }
	untouched fine3
}
not_a_git_tree_exit_20() {
	mkdir -p "$tmp/nogit" && printf 'VERSION = 6\n' >"$tmp/nogit/Makefile"
	GIT_CEILING_DIRECTORIES=$tmp sh "$bs" "$tmp/nogit" a b "$tmp/out-nogit" >"$tmp/nogit.out" 2>&1
	rc=$?
	[ "$rc" = "$EXIT_NOT_KERNEL_TREE" ] && [ "$(wc -l <"$tmp/nogit.out")" = 1 ] ||
		{ echo "exit $rc: $(cat "$tmp/nogit.out")"; return 1; }
}

# bisect-history.sh on a tree holding the fault path's lines: the bad
# commit where asked, the others comments only; a second history reuses
# the base.
history_script() {
	h=$tmp/hsrc
	mkdir -p "$h/fs/xfs" "$h/fs/ext4" "$h/Documentation/filesystems"
	printf '// SPDX\n#include <linux/atomic.h>\nvm_fault_t dax_finish_sync_fault(struct vm_fault *vmf, unsigned int order,\n\t\tpfn_t pfn)\n{\n\tint err;\n\n\terr = vfs_fsync_range(vmf->vma->vm_file, start, start + len - 1, 1);\n\tif (err)\n\t\treturn VM_FAULT_SIGBUS;\n\treturn dax_insert_pfn_mkwrite(vmf, pfn, order);\n}\n' >"$h/fs/dax.c"
	for f in fs/xfs/xfs_file.c fs/ext4/file.c Documentation/filesystems/dax.rst; do echo "// SPDX" >"$h/$f"; done
	sh "$root/kernel-config/bisect-history.sh" "$h" "$tmp/hist" slow 3 5 >"$tmp/hist.out" 2>&1 || { cat "$tmp/hist.out"; return 1; }
	eval "$(tail -n 1 "$tmp/hist.out")"
	[ "$FIRST_BAD" = "$(git -C "$tmp/hist" rev-parse slow-3~2)" ] &&
		git -C "$tmp/hist" show "$FIRST_BAD" | grep -q "^+	udelay(100);" &&
		[ "$(git -C "$tmp/hist" log --format=%s bisect-base..slow-3 | grep -c harmless)" = 4 ] &&
		[ -z "$(git -C "$tmp/hist" log -p bisect-base..slow-3 | grep "^[+-][^+-]" | grep -v -e "harmless change" -e "udelay" -e "linux/delay.h")" ] ||
		{ echo "slow-3: $(git -C "$tmp/hist" log --oneline bisect-base..slow-3 | tr "\n" " ")"; return 1; }
	sh "$root/kernel-config/bisect-history.sh" "$h" "$tmp/hist" order 1 5 >"$tmp/hist.out" 2>&1 || { cat "$tmp/hist.out"; return 1; }
	eval "$(tail -n 1 "$tmp/hist.out")"
	git -C "$tmp/hist" show "$FIRST_BAD:fs/dax.c" | tr "\n" " " | grep -q "ret = dax_insert_pfn_mkwrite(vmf, pfn, order);[[:space:]]*err = vfs_fsync_range.*return ret;" &&
		! grep -q "copying" "$tmp/hist.out" || { echo "order-1: $(git -C "$tmp/hist" show "$FIRST_BAD:fs/dax.c")"; return 1; }
}

[ -x "$GATE" ] || { echo "Bail out! no gate binary $GATE (make)"; exit 1; }
ktap_plan_checks "$0"
ktap_start
ktap_check gate_names_the_slowing_commit_at_two_positions slowdown_named
ktap_check syncorder_names_the_ordering_commit ordering_named
ktap_check build_failure_skipped_not_judged build_failure_skipped
ktap_check unknown_run_again_with_more_boots_then_skipped unknown_retried_then_skipped
ktap_check good_not_good_exit_24 good_not_good_exit_24
ktap_check bad_not_bad_exit_24 bad_not_bad_exit_24
ktap_check not_a_git_tree_exit_20 not_a_git_tree_exit_20
ktap_check history_script_places_the_bad_commit history_script
ktap_finish
