#!/bin/sh
# Host tests of the guest kernels' table (issue 10): every row is well
# formed and its pinned kver matches its own series; GUEST= names a row or
# is one line before anything runs; a pinned kernel that Debian removed is
# replaced by the newest of its series, said in one line; a series with
# nothing left, or a name not in the table, is a clear error that leaves
# nothing behind. The resolution asks bookworm-backports' package lists
# (small) through vm/fetch-kernel.sh --resolve: no kernel is downloaded.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-kernels.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
table=$root/kernel-config/kernels.txt
ktap_plan_checks "$0"
ktap_start

rows_well_formed() {
	awk '!/^#/ && NF { if (NF != 5) { print "row " NR ": " NF " fields, want 5"; bad = 1 }
		if (seen[$1]++) { print "name " $1 " twice"; bad = 1 } n++ }
		END { if (n < 3) { print n " kernels, want 3 or more"; bad = 1 } exit bad }' "$table" || return 1
	grep -v '^#' "$table" | while read -r name suites kver debver series; do
		[ -n "$name" ] || continue
		# shellcheck disable=SC2254
		case $kver in $series) ;; *) echo "$name: $kver is not of its series $series"; exit 1 ;; esac
	done
}
ktap_check rows_well_formed rows_well_formed

bad_guest() {
	out=$(cd "$root" && make -n kernel GUEST=nosuch 2>&1)
	[ $? != 0 ] && echo "$out" | grep -q 'GUEST=nosuch: not a kernel of kernel-config/kernels.txt (one of: 6.1' ||
		{ echo "$out"; return 1; }
}
ktap_check bad_guest_one_line bad_guest

printf '%s\n' 'old bookworm-backports 6.12.1+deb12-cloud-amd64 6.12.1-1~bpo12+1 6.12.*+deb12*-cloud-amd64' \
	'none bookworm-backports 5.99.1+deb12-cloud-amd64 5.99.1-1 5.99.*+deb12*-cloud-amd64' >"$tmp/table"

gone_pin_resolved() {
	out=$(KERNELS_TABLE=$tmp/table sh "$root/vm/fetch-kernel.sh" --resolve old 2>&1) || { echo "$out"; return 1; }
	echo "$out" | grep -q '^  KERNEL   old: pinned 6.12.1+deb12-cloud-amd64=6.12.1-1~bpo12+1 is gone from bookworm-backports; using the newest of the series, 6\.12\.' ||
		{ echo "no one-line notice: $out"; return 1; }
	got=$(echo "$out" | tail -n 1)
	case ${got%%=*} in 6.12.*+deb12*-cloud-amd64) ;; *) echo "resolved to '$got'"; return 1 ;; esac
	[ "$got" != 6.12.1+deb12-cloud-amd64=6.12.1-1~bpo12+1 ]
}
ktap_check gone_pin_takes_newest_of_series gone_pin_resolved

series_empty() {
	out=$(KERNELS_TABLE=$tmp/table sh "$root/vm/fetch-kernel.sh" none "$tmp/k" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && echo "$out" | grep -qxF 'fetch-kernel: none: 5.99.1+deb12-cloud-amd64=5.99.1-1 is gone from bookworm-backports and no kernel of the series 5.99.*+deb12*-cloud-amd64 is left' ||
		{ echo "exit $rc: $out"; return 1; }
	[ ! -e "$tmp/k" ] || { echo "left $(ls "$tmp/k")"; return 1; }
}
ktap_check empty_series_fails_leaves_nothing series_empty

unknown_name() {
	out=$(KERNELS_TABLE=$tmp/table sh "$root/vm/fetch-kernel.sh" nosuch "$tmp/k" 2>&1)
	rc=$?
	[ "$rc" = 2 ] && [ ! -e "$tmp/k" ] || { echo "exit $rc: $out"; return 1; }
}
ktap_check unknown_kernel_exit_2 unknown_name
ktap_finish
