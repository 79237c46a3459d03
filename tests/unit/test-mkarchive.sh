#!/bin/sh
# Host tests of vm/mkarchive.sh (a job's own archive of host programs):
# a program goes to /usr/bin with every library ldd names, less what the
# base archive holds; an absolute path keeps its path; a program that is
# not there fails and leaves no archive. KTAP output.
# Usage: test-mkarchive.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-mkarchive.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# A base archive holding libc, as the real one does (vm/mkinitramfs.sh).
libc=$(ldd "$(command -v jq)" | awk '$1 == "libc.so.6" { print $3 }')
mkdir -p "$tmp/base${libc%/*}" && cp -L "$libc" "$tmp/base$libc" &&
	(cd "$tmp/base" && find . | cpio -o -H newc --quiet) | gzip -1 >"$tmp/base.cpio.gz"

# listing NAME: the archive's files, as absolute paths.
listing() { gzip -dc "$tmp/$1.cpio.gz" | cpio -t --quiet | sed 's,^\./,,; s,^,/,' >"$tmp/$1.list"; }

program_with_libraries() {
	sh "$root/vm/mkarchive.sh" "$tmp/base.cpio.gz" "$tmp/a.cpio.gz" jq 2>"$tmp/a.err" ||
		{ echo "exit $?: $(head -c 300 "$tmp/a.err")"; return 1; }
	listing a
	grep -qx /usr/bin/jq "$tmp/a.list" || { echo "no /usr/bin/jq: $(tr '\n' ' ' <"$tmp/a.list")"; return 1; }
	for lib in $(ldd "$(command -v jq)" | awk '/=> \// { print $3 }'); do
		[ "$lib" = "$libc" ] && continue
		grep -qxF "$lib" "$tmp/a.list" || { echo "ldd names $lib, not in the archive"; return 1; }
	done
}
base_files_left_out() {
	! grep -qxF "$libc" "$tmp/a.list" || { echo "$libc is in the base and in the archive"; return 1; }
}
path_kept() {
	sh "$root/vm/mkarchive.sh" "$tmp/base.cpio.gz" "$tmp/b.cpio.gz" "$root/lib/ktap.sh" 2>"$tmp/b.err" ||
		{ echo "exit $?: $(head -c 300 "$tmp/b.err")"; return 1; }
	listing b
	grep -qxF "$root/lib/ktap.sh" "$tmp/b.list" || { echo "not at its path: $(tr '\n' ' ' <"$tmp/b.list")"; return 1; }
}
missing_program_fails() {
	sh "$root/vm/mkarchive.sh" "$tmp/base.cpio.gz" "$tmp/c.cpio.gz" no-such-program-here 2>"$tmp/c.err"
	_rc=$?
	[ $_rc = 1 ] && [ ! -e "$tmp/c.cpio.gz" ] && grep -q 'no-such-program-here not found' "$tmp/c.err" ||
		{ echo "exit $_rc, want 1 and no archive: $(head -c 200 "$tmp/c.err")"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check program_with_its_libraries program_with_libraries
ktap_check base_files_left_out base_files_left_out
ktap_check absolute_path_kept path_kept
ktap_check missing_program_fails missing_program_fails
ktap_finish
