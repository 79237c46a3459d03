#!/bin/sh
# Host tests of persistlat (no DAX here): the three methods that need no
# MAP_SYNC run on a regular file with --no-dax-check, text and JSON agree
# with what was asked; mapsync is refused the documented way; bad flags and
# an existing file are refused in one line; rand offsets follow the seed.
# KTAP output.
# Usage: test-persistlat.sh BINDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.output/bin}
. "$root/lib/ktap.sh"
suite_lib=$root/lib
. "$suite_lib/exitcodes.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-persistlat.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pl=$bin/persistlat
three='-m msync,pwrite,mmap-fdatasync -n 50 -b 8,4096'

# run NAME WANT_RC ARGS: persistlat on $tmp/NAME.d/f, exit WANT_RC; output
# in $tmp/NAME.out and .err; nothing may be left behind but a --keep file.
run() {
	name=$1 want=$2; shift 2
	rm -rf "$tmp/$name.d" && mkdir "$tmp/$name.d"
	timeout 120 "$pl" -f "$tmp/$name.d/f" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	[ "$rc" = "$want" ] || { echo "persistlat $* exit $rc, want $want: $(head -c 300 "$tmp/$name.err")"; return 1; }
	case " $* " in *" --keep "*) return 0 ;; esac
	[ -z "$(ls -A "$tmp/$name.d")" ] || { echo "left behind: $(ls -A "$tmp/$name.d")"; return 1; }
}
# samples_lines: --samples-out has a line per row, METHOD-SIZE and 50 samples.
samples_lines() {
	awk 'BEGIN { split("msync-8 pwrite-8 mmap-fdatasync-8 msync-4096 pwrite-4096 mmap-fdatasync-4096", want, " ") }
		$1 != want[NR] || NF != 51 { print "line " NR ": " $1 " with " NF - 1 " samples"; bad = 1 }
		END { if (NR != 6) { print NR " lines"; bad = 1 } exit bad }' "$tmp/samples.txt"
}
# one_line NAME: the error is one line, "persistlat: ...".
one_line() {
	[ "$(wc -l <"$tmp/$1.err")" = 1 ] || { echo "want one stderr line: $(cat "$tmp/$1.err")"; return 1; }
	grep -q '^persistlat: ' "$tmp/$1.err" || { echo "no 'persistlat: ' line: $(cat "$tmp/$1.err")"; return 1; }
}
# refused WANT_RC ARGS: exit WANT_RC with one error line.
refused() {
	want=$1; shift
	run refused "$want" "$@" && one_line refused
}
# usage ARGS: a bad flag is exit 2 in one line.
usage() {
	refused "$EXIT_USAGE" --no-dax-check "$@"
}
text_rows() {
	n=$(grep -cE '^(msync|pwrite|mmap-fdatasync) +(8|4096) ' "$tmp/text.out")
	[ "$n" = 6 ] || { echo "want 6 rows, got $n:"; cat "$tmp/text.out"; return 1; }
	grep -q '^method .* x mapsync$' "$tmp/text.out" || { echo "no column header"; return 1; }
	grep -q '^note: under an emulator' "$tmp/text.out" || { echo "no emulation note"; return 1; }
}
# json_rows FILE: 6 rows of 50 writes each, in the order asked.
json_rows() {
	got=$(jq -r '[.rows[] | "\(.method)/\(.size)/\(.writes)"] | join(" ")' "$1") || return 1
	want='msync/8/50 pwrite/8/50 mmap-fdatasync/8/50 msync/4096/50 pwrite/4096/50 mmap-fdatasync/4096/50'
	[ "$got" = "$want" ] || { echo "rows: $got, want $want"; return 1; }
}
# has_rows FILE: a JSON document with 6 rows (jq -e passes an empty file:
# no value, nothing false).
has_rows() {
	[ "$(jq '.rows | length' "$1" 2>&1)" = 6 ] || { echo "$1: not a document with 6 rows"; return 1; }
}
json_hist_sums() {
	has_rows "$tmp/json.out" || return 1
	bad=$(jq -c '.rows[] | select(([.hist[].count] | add) != 50) | [.method, .size, ([.hist[].count] | add)]' "$tmp/json.out")
	[ -z "$bad" ] || { echo "hist counts not 50: $bad"; return 1; }
}
json_ordered() {
	has_rows "$tmp/json.out" || return 1
	bad=$(jq -c '.rows[] | select(.min > .median or .median > .p99 or .p99 > .p999 or .p999 > .max or .min > .avg or .avg > .max) | [.method, .size, .min, .median, .p99, .p999, .max]' "$tmp/json.out")
	[ -z "$bad" ] || { echo "not min <= median <= p99 <= p999 <= max: $bad"; return 1; }
}
json_header() {
	has_rows "$tmp/json.out" && jq -e '.tool == "persistlat" and .version == 1 and .dax == false and .unit == "ns" and
		.state == "written" and .pattern == "seq" and .writes == 50 and .region == 16777216 and
		(.flush | IN("clwb", "clflushopt", "clflush")) and
		all(.rows[]; .ratio_vs_mapsync == null and .writes_per_sec > 0 and
			(.bytes_per_sec - .writes_per_sec * .size | fabs) <= 1e-9 * .bytes_per_sec)' "$tmp/json.out" >/dev/null ||
		{ echo "header or rows wrong: $(head -c 400 "$tmp/json.out")"; return 1; }
}
hist_text() {
	n=$(grep -cE '^(msync|pwrite|mmap-fdatasync) (8|4096) B:$' "$tmp/hist.out")
	[ "$n" = 6 ] || { echo "want 6 histogram titles, got $n"; return 1; }
	sum=$(awk '/^[0-9]+ - [0-9]+ ns: / { s += $NF } END { print s + 0 }' "$tmp/hist.out")
	[ "$sum" = 300 ] || { echo "histogram lines (ns) count $sum writes, want 300"; return 1; }
}
no_file() {
	"$pl" -n 5 >/dev/null 2>"$tmp/nf.err"
	rc=$?
	[ "$rc" = "$EXIT_USAGE" ] || { echo "exit $rc, want $EXIT_USAGE"; return 1; }
	[ "$(cat "$tmp/nf.err")" = "persistlat: --file is required" ] || { echo "stderr: $(cat "$tmp/nf.err")"; return 1; }
}
existing_untouched() {
	rm -rf "$tmp/ex" && mkdir "$tmp/ex" && echo precious >"$tmp/ex/f"
	"$pl" -f "$tmp/ex/f" --no-dax-check -m pwrite -n 5 >/dev/null 2>"$tmp/ex.err"
	rc=$?
	[ "$rc" = "$EXIT_FILE_EXISTS" ] || { echo "exit $rc, want $EXIT_FILE_EXISTS"; return 1; }
	[ "$(cat "$tmp/ex/f")" = precious ] || { echo "the existing file was changed"; return 1; }
	[ "$(wc -l <"$tmp/ex.err")" = 1 ] || { echo "want one stderr line: $(cat "$tmp/ex.err")"; return 1; }
}
# rand NAME SEED METHOD: the file a rand run leaves with --keep.
rand() {
	run "$1" 0 --no-dax-check -m "$3" -b 64 -n 200 --region 64K -p rand --seed "$2" --keep &&
		[ -s "$tmp/$1.d/f" ] || { echo "--keep left no file"; return 1; }
}
same_files() {
	cmp "$tmp/$1.d/f" "$tmp/$2.d/f" || { echo "same seed, other data"; return 1; }
}
other_files() {
	[ -s "$tmp/$1.d/f" ] && [ -s "$tmp/$2.d/f" ] || { echo "a --keep file is missing"; return 1; }
	! cmp -s "$tmp/$1.d/f" "$tmp/$2.d/f" || { echo "another seed, the same data"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check text_run run text 0 --no-dax-check $three
ktap_check text_six_rows text_rows
ktap_check json_run run json 0 --no-dax-check $three -j --json-out "$tmp/json-out.json"
ktap_check json_six_rows json_rows "$tmp/json.out"
ktap_check json_out_same_rows json_rows "$tmp/json-out.json"
ktap_check json_hist_counts_50 json_hist_sums
ktap_check json_min_median_p99_p999_max json_ordered
ktap_check json_header_fields json_header
ktap_check samples_run run samples 0 --no-dax-check $three --samples-out "$tmp/samples.txt"
ktap_check samples_one_line_per_row samples_lines
ktap_check hist_run run hist 0 --no-dax-check $three -H -N
ktap_check hist_six_tables hist_text
ktap_check mapsync_not_dax_exit_5 refused "$EXIT_SYNC_REFUSED" --no-dax-check -m mapsync -n 5
ktap_check not_dax_exit_3 refused "$EXIT_NOT_DAX" -m pwrite -n 5
ktap_check bad_size_3 usage -b 3
ktap_check bad_size_0 usage -b 0
ktap_check bad_size_not_power_of_two usage -b 24
ktap_check bad_size_2M usage -b 2M
ktap_check bad_size_twice usage -b 8,8
ktap_check bad_method usage -m bogus
ktap_check bad_method_empty_item usage -m msync,,pwrite
ktap_check bad_pattern usage -p x
ktap_check bad_flush usage --flush bogus
ktap_check bad_writes_0 usage -n 0
ktap_check bad_region_not_pages usage --region 5000
ktap_check bad_region_below_size usage --region 4K -b 8K
ktap_check no_file_exit_2 no_file
ktap_check existing_file_exit_11_untouched existing_untouched
ktap_check rand_seed_5_pwrite rand r5a 5 pwrite
ktap_check rand_seed_5_msync rand r5b 5 msync
ktap_check rand_seed_6_pwrite rand r6 6 pwrite
ktap_check rand_same_seed_same_offsets same_files r5a r5b
ktap_check rand_other_seed_other_offsets other_files r5a r6
ktap_finish
