#!/bin/sh
# Host tests of faultlat --order (a file that is not DAX, --no-dax-check):
# the order is read back from the kept file, whose page P holds the number
# of the store that faulted it (1 for the first). seq: page P was store
# P+1; random: every page stored once, not in file order, the same order
# in two runs; a bad value refused; the JSON names the order.
# KTAP output. Usage: test-faultlat-order.sh [BINDIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.output/bin}
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-order.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
N=64

# stores NAME ORDER: faultlat --order ORDER on a fresh file, kept; NAME.seq
# gets the store number of each page, one line per page.
stores() {
	rm -f "$tmp/$1"
	timeout 60 "$bin/faultlat" --no-dax-check -f "$tmp/$1" -n $N --order "$2" --keep -j \
		>"$tmp/$1.json" 2>"$tmp/$1.err" || { echo "exit $?: $(head -c 300 "$tmp/$1.err")"; return 1; }
	od -An -t u8 -w4096 -v "$tmp/$1" | awk '{ print $1 }' >"$tmp/$1.seq"
	[ "$(wc -l <"$tmp/$1.seq")" = $N ] || { echo "$(wc -l <"$tmp/$1.seq") pages, want $N"; return 1; }
}
# each_once NAME: the store numbers are 1..N, each once.
each_once() {
	[ "$(sort -n "$tmp/$1.seq" | awk '$1 != NR { bad = 1 } END { print bad ? "no" : "yes" }')" = yes ] ||
		{ echo "store numbers are not 1..$N once each: $(sort -n "$tmp/$1.seq" | tr '\n' ' ' | head -c 300)"; return 1; }
}
seq_order() {
	stores s seq && each_once s || return 1
	awk '$1 != NR { exit 1 }' "$tmp/s.seq" || { echo "page P not store P+1: $(tr '\n' ' ' <"$tmp/s.seq" | head -c 300)"; return 1; }
	jq -e '.order == "seq"' "$tmp/s.json" >/dev/null || { echo "JSON order: $(jq -c .order "$tmp/s.json")"; return 1; }
}
random_order() {
	stores r1 random && each_once r1 || return 1
	# Shuffled: most pages out of place, not just a few.
	_in=$(awk '$1 == NR { n++ } END { print n + 0 }' "$tmp/r1.seq")
	[ "$_in" -lt $((N / 4)) ] || { echo "$_in of $N pages in file order"; return 1; }
	jq -e '.order == "random" and .faults == '$N "$tmp/r1.json" >/dev/null ||
		{ echo "JSON: $(jq -c '{order, faults}' "$tmp/r1.json")"; return 1; }
}
random_repeats() {
	stores r2 random || return 1
	cmp -s "$tmp/r1.seq" "$tmp/r2.seq" || { echo "two runs, two orders"; return 1; }
}
bad_order_refused() {
	"$bin/faultlat" --no-dax-check -f "$tmp/bad" --order shuffled >/dev/null 2>"$tmp/bad.err"
	_rc=$?
	[ $_rc = 2 ] && [ ! -e "$tmp/bad" ] && grep -q "invalid --order 'shuffled'" "$tmp/bad.err" ||
		{ echo "exit $_rc, want 2 and no file: $(head -c 200 "$tmp/bad.err")"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check seq_pages_in_file_order seq_order
ktap_check random_each_page_once_shuffled random_order
ktap_check random_same_order_every_run random_repeats
ktap_check bad_order_refused bad_order_refused
ktap_finish
