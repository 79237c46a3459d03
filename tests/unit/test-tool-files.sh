#!/bin/sh
# Host tests of what faultlat, persistlat, syncstress, pmwrite, pmverify and
# mapconform do to files they are pointed at (issues 8 and 30): an existing
# file is never removed or truncated unless --replace says so, and
# --replace removes a regular file only (a device node, a directory, a
# symlink are refused); FILE.src (reflinked states) is the tool's own file
# like FILE; a refusal leaves nothing behind; pmverify refuses to judge data
# written with other parameters; faultlat --same-file needs -w. The table
# of every binary is test-tool-paths.sh's. KTAP output.
# Usage: test-tool-files.sh BINDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.output/bin}
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-files.XXXXXX") || exit 1
shm=
trap 'rm -rf "$tmp"; [ -z "$shm" ] || rm -rf "$shm"' EXIT

# keeps TOOL WANT_RC ARGS: an existing file survives TOOL, which exits WANT_RC.
keeps() {
	tool=$1 want=$2; shift 2
	echo precious >"$tmp/x"
	"$bin/$tool" -f "$tmp/x" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || { echo "$tool exit $rc, want $want: $(cat "$tmp/err")"; return 1; }
	[ "$(cat "$tmp/x" 2>/dev/null)" = precious ] || { echo "$tool changed or removed the existing file"; return 1; }
	[ "$(grep -c . "$tmp/err")" = 1 ] || { echo "want one line on stderr: $(cat "$tmp/err")"; return 1; }
}
# leaves_nothing TOOL WANT_RC ARGS: on a non-DAX host, TOOL refuses and removes its own file.
leaves_nothing() {
	tool=$1 want=$2; shift 2
	rm -rf "$tmp/d" && mkdir "$tmp/d"
	"$bin/$tool" -f "$tmp/d/new" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || { echo "$tool exit $rc, want $want: $(cat "$tmp/err")"; return 1; }
	[ -z "$(ls -A "$tmp/d")" ] || { echo "$tool left $(ls -A "$tmp/d")"; return 1; }
}
# verify WANT_RC ARGS: pmverify on the file pmwrite wrote with -n 8 -s 5 -g 2 -w 1.
verify() {
	want=$1; shift
	"$bin/pmverify" -f "$tmp/w/f" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || { echo "pmverify $* exit $rc, want $want: $(cat "$tmp/out" "$tmp/err")"; return 1; }
}
written() {
	rm -rf "$tmp/w" && mkdir "$tmp/w" &&
		"$bin/pmwrite" -f "$tmp/w/f" -n 8 -s 5 -g 2 -w 1 --no-dax-check --flush none >/dev/null 2>"$tmp/err" ||
		{ echo "pmwrite: $(cat "$tmp/err")"; return 1; }
}

# one_line: exactly one line on stderr.
one_line() {
	[ "$(grep -c '' "$tmp/err")" = 1 ] || { echo "want one line on stderr: $(cat "$tmp/err")"; return 1; }
}
# replace_keeps KIND TOOL ARGS: --replace on a KIND (node, dir, symlink)
# is refused with exit 11 and leaves it as it was.
replace_keeps() {
	kind=$1 tool=$2; shift 2
	rm -rf "$tmp/r" && mkdir "$tmp/r" && echo precious >"$tmp/r/target" || return 1
	case $kind in
	node) mknod "$tmp/r/p" c 1 3 ;;
	dir) mkdir "$tmp/r/p" && echo inside >"$tmp/r/p/x" ;;
	symlink) ln -s target "$tmp/r/p" ;;
	esac || return 1
	"$bin/$tool" -f "$tmp/r/p" --replace "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 11 ] || { echo "$tool --replace on a $kind: exit $rc, want 11: $(cat "$tmp/err")"; return 1; }
	case $kind in
	node) [ -c "$tmp/r/p" ] ;;
	dir) [ "$(cat "$tmp/r/p/x" 2>/dev/null)" = inside ] ;;
	symlink) [ -L "$tmp/r/p" ] && [ "$(readlink "$tmp/r/p")" = target ] ;;
	esac || { echo "$tool --replace changed or removed the $kind"; return 1; }
	[ "$(ls -A "$tmp/r" | tr '\n' ' ')" = "p target " ] || { echo "$tool left $(ls -A "$tmp/r")"; return 1; }
	one_line
}
# keeps_sibling SUFFIX TOOL WANT_RC ARGS: with FILE new and FILE.SUFFIX
# there, TOOL exits WANT_RC, FILE.SUFFIX is intact, nothing else is left.
keeps_sibling() {
	sfx=$1 tool=$2 want=$3; shift 3
	rm -rf "$tmp/s" && mkdir "$tmp/s" && echo precious >"$tmp/s/new.$sfx" || return 1
	"$bin/$tool" -f "$tmp/s/new" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = "$want" ] || { echo "$tool exit $rc, want $want: $(cat "$tmp/err")"; return 1; }
	[ "$(cat "$tmp/s/new.$sfx" 2>/dev/null)" = precious ] || { echo "$tool changed or removed FILE.$sfx"; return 1; }
	[ "$(ls -A "$tmp/s")" = "new.$sfx" ] || { echo "$tool left $(ls -A "$tmp/s" | tr '\n' ' ')"; return 1; }
	one_line
}
# leaves_nothing_one_line TOOL WANT_RC ARGS: leaves_nothing, and one line on stderr.
leaves_nothing_one_line() {
	leaves_nothing "$@" && one_line
}
# dax_dir_refused DIR: mapconform -c dax-dir where the flag cannot be set
# (tmpfs): refused, and the directory it made is gone again.
dax_dir_refused() {
	rm -rf "$1/d" && mkdir "$1/d" || return 1
	"$bin/mapconform" -c dax-dir -f "$1/d/new" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 3 ] || { echo "exit $rc, want 3: $(cat "$tmp/err")"; return 1; }
	[ -z "$(ls -A "$1/d")" ] || { echo "mapconform left $(ls -A "$1/d")"; return 1; }
	one_line
}
# same_file_alone ARGS: faultlat --same-file without -w N (N > 1) is a usage
# error naming both flags, one line, nothing created.
same_file_alone() {
	rm -rf "$tmp/d" && mkdir "$tmp/d"
	"$bin/faultlat" -f "$tmp/d/new" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 2 ] || { echo "exit $rc, want 2: $(cat "$tmp/err")"; return 1; }
	grep -q -- '--same-file' "$tmp/err" && grep -q -- '-w' "$tmp/err" ||
		{ echo "the line names not both flags: $(cat "$tmp/err")"; return 1; }
	[ -z "$(ls -A "$tmp/d")" ] || { echo "faultlat left $(ls -A "$tmp/d")"; return 1; }
	one_line
}

ktap_plan_checks "$0"
ktap_plan mapconform_dax_dir_refused_leaves_nothing
ktap_start
ktap_check faultlat_keeps_existing_file keeps faultlat 11
ktap_check faultlat_keeps_existing_file_not_dax keeps faultlat 11 --sync
ktap_check pmwrite_keeps_existing_file keeps pmwrite 11 -S
ktap_check faultlat_not_dax_leaves_nothing leaves_nothing faultlat 3
ktap_check pmwrite_not_dax_leaves_nothing leaves_nothing pmwrite 3 -S
ktap_check pmwrite_writes_a_new_file written
ktap_check pmwrite_ident_record grep -qx 'pmwrite-ident pages=8 seed=5 generation=2 writer=1' "$tmp/w/f.ident"
ktap_check pmverify_same_parameters verify 0 -n 8 -s 5 -g 2 -w 1 -r 8
ktap_check pmverify_refuses_other_pages verify 13 -n 16 -s 5 -g 2 -w 1 -r 8
ktap_check pmverify_refuses_other_seed verify 13 -n 8 -s 6 -g 2 -w 1 -r 8
ktap_check pmverify_refuses_other_writer verify 13 -n 8 -s 5 -g 2 -w 0 -r 8
rm -f "$tmp/w/f.ident"
ktap_check pmverify_refuses_without_record verify 13 -n 8 -s 5 -g 2 -w 1 -r 8
ktap_check faultlat_replace_keeps_node replace_keeps node faultlat -S
ktap_check faultlat_replace_keeps_dir replace_keeps dir faultlat -S
ktap_check faultlat_replace_keeps_symlink replace_keeps symlink faultlat -S
ktap_check persistlat_replace_keeps_node replace_keeps node persistlat
ktap_check pmwrite_replace_keeps_node replace_keeps node pmwrite -S
ktap_check pmwrite_replace_keeps_dir replace_keeps dir pmwrite -S
ktap_check syncstress_replace_keeps_node replace_keeps node syncstress
ktap_check syncstress_keeps_existing_file keeps syncstress 11
ktap_check syncstress_not_dax_leaves_nothing leaves_nothing_one_line syncstress 3
ktap_check syncstress_reflinked_leaves_nothing leaves_nothing_one_line syncstress 3 --state reflinked
ktap_check syncstress_keeps_existing_src keeps_sibling src syncstress 11 --state reflinked
ktap_check pmwrite_reflink_refused_leaves_nothing leaves_nothing_one_line pmwrite 5 -m reflink --no-dax-check
ktap_check pmwrite_keeps_existing_src keeps_sibling src pmwrite 11 -m reflink --no-dax-check
ktap_check pmwrite_keeps_existing_ident keeps_sibling ident pmwrite 11 -S
ktap_check mapconform_dax_dir_keeps_existing_file keeps mapconform 11 -c dax-dir
ktap_check faultlat_same_file_needs_writers same_file_alone --same-file -S
ktap_check faultlat_same_file_needs_two_writers same_file_alone --same-file -w 1
# A filesystem that cannot take FS_XFLAG_DAX: tmpfs, where there is one.
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && shm=$(mktemp -d /dev/shm/test-files.XXXXXX)
if [ -n "$shm" ]; then
	ktap_check mapconform_dax_dir_refused_leaves_nothing dax_dir_refused "$shm"
	rm -rf "$shm"
else
	ktap_skip mapconform_dax_dir_refused_leaves_nothing "no tmpfs at /dev/shm"
fi
ktap_finish
