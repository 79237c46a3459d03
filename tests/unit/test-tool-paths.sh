#!/bin/sh
# Host test of what every binary of BINDIR does to a path it is given
# (issue 30), one row each in tests/unit/data/path-tools.txt (its header
# says what is checked): an existing file, a character device node and a
# new path on this host's filesystem (not DAX). A binary without a row
# fails, so a new tool cannot be forgotten. Needs root (mknod). KTAP.
# Usage: test-tool-paths.sh [BINDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.output/bin}
table=$here/data/path-tools.txt
. "$root/lib/ktap.sh"
suite_lib=$root/lib
. "$root/lib/exitcodes.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-paths.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

rows() { awk '!/^#/ && NF' "$table"; }

# Each binary of BINDIR has exactly one row.
every_binary_has_a_row() {
	found=0 bad=
	for f in "$bin"/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		found=$((found + 1))
		n=$(rows | awk -v b="${f##*/}" '$1 == b' | wc -l)
		[ "$n" = 1 ] || bad="$bad ${f##*/}($n rows)"
	done
	[ "$found" -gt 0 ] || { echo "no binaries in $bin"; return 1; }
	[ -z "$bad" ] || { echo "want one row in $table for:$bad"; return 1; }
}

# want_rc NAME: $rc is the row's expected code NAME (ANY: not 0).
want_rc() {
	case $1 in
	ANY) [ "$rc" != 0 ] ;;
	*) eval "[ \"\$rc\" = \"\${EXIT_$1:-none}\" ]" ;;
	esac
}

# path_ok CASE KIND: what the run left at $p, and nothing else in $d.
path_ok() {
	case $1:$2 in
	file:output) [ -f "$p" ] && [ ! -L "$p" ] || { echo "the existing file is gone"; return 1; } ;;
	file:*) cmp -s "$tmp/orig" "$p" || { echo "the existing file changed or went"; return 1; } ;;
	node:*) [ -c "$p" ] && [ "$(stat -c %t:%T "$p")" = 1:3 ] ||
		{ echo "the char device node is gone or changed: $(ls -l "$p" 2>&1)"; return 1; } ;;
	new:output) [ ! -e "$p" ] || [ -f "$p" ] || { echo "the new path is not a file"; return 1; } ;;
	new:*) [ ! -e "$p" ] && [ ! -L "$p" ] || { echo "the new path was left behind"; return 1; } ;;
	esac
	left=$(ls -A "$d" | grep -vx p)
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
}

# run_case CASE NAME OPTION KIND WANT ARGS...: the tool on a fresh $d/p.
run_case() {
	case=$1 name=$2 option=$3 kind=$4 want=$5
	shift 5
	d=$tmp/$name-$case p=$tmp/$name-$case/p
	[ -x "$bin/$name" ] || { echo "no $bin/$name (the row is stale, or the build incomplete)"; return 1; }
	mkdir "$d" || return 1
	case $case in
	file) head -c 5000 /dev/urandom >"$p" && cp "$p" "$tmp/orig" || return 1 ;;
	node) mknod "$p" c 1 3 || return 1 ;;
	esac
	n=$#
	for a; do
		[ "$a" = @ ] && a=$p
		set -- "$@" "$a"
	done
	shift "$n"
	if [ "$option" = ARG ]; then set -- "$p" "$@"; else set -- "$option" "$p" "$@"; fi
	timeout 60 "$bin/$name" "$@" </dev/null >"$d.out" 2>"$d.err"
	rc=$?
	want_rc "$want" || { echo "exit $rc, want $want: $(head -c 300 "$d.err")"; return 1; }
	path_ok "$case" "$kind" || return 1
	lines=$(grep -c '' "$d.err")
	case $rc in 0|"$EXIT_DATA_LOST") wl=0 ;; *) wl=1 ;; esac
	[ "$lines" = "$wl" ] || { echo "exit $rc with $lines lines on stderr, want $wl: $(head -c 300 "$d.err")"; return 1; }
}

ktap_plan every_binary_has_a_row
while read -r name option _; do
	[ "$option" = none ] || ktap_plan "${name}_existing_file" "${name}_char_node" "${name}_new_path"
done <<EOF
$(rows)
EOF
ktap_start
ktap_check every_binary_has_a_row every_binary_has_a_row
can_mknod=no
mknod "$tmp/node" c 1 3 2>/dev/null && can_mknod=yes
while read -r name option kind file node new args; do
	[ "$option" = none ] && continue
	# shellcheck disable=SC2086 # args: the row's words
	ktap_check "${name}_existing_file" run_case file "$name" "$option" "$kind" "$file" $args
	if [ "$can_mknod" = yes ]; then
		# shellcheck disable=SC2086
		ktap_check "${name}_char_node" run_case node "$name" "$option" "$kind" "$node" $args
	else
		ktap_skip "${name}_char_node" "mknod refused: not root"
	fi
	# shellcheck disable=SC2086
	ktap_check "${name}_new_path" run_case new "$name" "$option" "$kind" "$new" $args
done <<EOF
$(rows)
EOF
ktap_finish
