#!/bin/sh
# Host test of make reproduce's report (bench/reproduce-report.sh) on a
# recorded native run (tests/unit/data/native-reproduce: xfs alone, made by
# native/job.sh in the VM standing in for a pmem host): the tables, the
# kernel's view, the extra tables and report.md cover the filesystem the run
# has and no other, labelled native; a folder that is no run, or a run
# with a JSON file cut short, is one line naming it, nothing written.
# Usage: test-reproduce-report.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-reproduce-report.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
run=$tmp/run
cp -r "$here/data/native-reproduce" "$run"

renders() {
	sh "$root/bench/reproduce-report.sh" "$run" >"$tmp/out" 2>"$tmp/err" ||
		{ echo "exit $?: $(tail -n 3 "$tmp/err")"; return 1; }
}
one_filesystem() {
	[ -s "$run/report-xfs.txt" ] && [ -s "$run/report-xfs.json" ] && [ -s "$run/kernel-view-xfs.txt" ] ||
		{ echo "xfs reports missing: $(ls "$run" | tr '\n' ' ')"; return 1; }
	[ ! -e "$run/report-ext4.txt" ] && ! grep -q '^=== ext4' "$tmp/out" || { echo "an ext4 report from an xfs run"; return 1; }
}
report_page() {
	grep -q '^# make reproduce: 6.1.0-57-cloud-amd64, native, rev ' "$run/report.md" &&
		grep -q '^## xfs -o dax' "$run/report.md" && ! grep -q '^## ext4' "$run/report.md" &&
		grep -q '^accelerator=native' "$run/report.md" || { echo "report.md: $(grep '^#' "$run/report.md" | tr '\n' ' ')"; return 1; }
}
extra_tables() {
	grep -q 'xfs -o dax' "$run/extra.txt" && ! grep -q 'ext4 -o dax' "$run/extra.txt" &&
		grep -q '^8 of 8 cells as the kernel source says' "$run/extra.txt" || { echo "extra.txt: $(head -c 400 "$run/extra.txt")"; return 1; }
	jq -e '(.persist | length) > 0 and all(.persist[]; .fs == "xfs") and (.tail | length) > 0 and
		all(.tail[]; .fs == "xfs") and (.conformance | length) == 8 and all(.conformance[]; .setup == "native" and .verdict == "pass")' \
		"$run/extra.json" >/dev/null || { echo "extra.json: $(head -c 300 "$run/extra.json")"; return 1; }
}
not_a_run() {
	mkdir "$tmp/empty"
	sh "$root/bench/reproduce-report.sh" "$tmp/empty" >/dev/null 2>"$tmp/e.err"
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/e.err")" = 1 ] && grep -q 'no meta.txt' "$tmp/e.err" ||
		{ echo "exit $rc: $(cat "$tmp/e.err")"; return 1; }
}


# A run whose JSON is cut short (a run killed while writing, a copy cut
# off): the file named, exit 19 (EXIT_BAD_INPUT), before anything is
# written; a run with no filesystem folder is one line, exit 2 (issue 30).
# cut_run NAME FILE: a copy of the run with FILE (relative) cut in half.
cut_run() {
	rm -rf "$tmp/$1" && cp -r "$here/data/native-reproduce" "$tmp/$1" && c=$tmp/$1/$2 &&
		head -c "$(($(wc -c <"$c") / 2))" "$c" >"$tmp/half" && mv "$tmp/half" "$c" && ls "$tmp/$1" >"$tmp/before"
}
# untouched NAME RC PATTERN: exit RC, one stderr line matching PATTERN and
# the run folder as it was.
untouched() {
	sh "$root/bench/reproduce-report.sh" "$tmp/$1" >/dev/null 2>"$tmp/c.err"; rc=$?
	[ "$rc" = "$2" ] && [ "$(wc -l <"$tmp/c.err")" = 1 ] && grep -q -- "$3" "$tmp/c.err" ||
		{ echo "exit $rc (want $2): $(head -c 400 "$tmp/c.err")"; return 1; }
	ls "$tmp/$1" | cmp -s - "$tmp/before" || { echo "written: $(ls "$tmp/$1" | comm -13 "$tmp/before" - | tr '\n' ' ')"; return 1; }
}
cut_json() {
	for f in xfs/persist/empty-rand.json xfs/tail/tail-sync-w2-files.kernel.json xfs/traced/empty-none-sync.kernel.json \
		xfs/empty-none-sync.json; do
		cut_run cut "$f" && untouched cut 19 "^reproduce-report: $tmp/cut/$f: not valid JSON" || { echo "($f)"; return 1; }
	done
}
no_filesystem() {
	rm -rf "$tmp/nofs" && mkdir "$tmp/nofs" && cp "$here/data/native-reproduce/meta.txt" "$tmp/nofs/" && ls "$tmp/nofs" >"$tmp/before" &&
		untouched nofs 2 "^reproduce-report: $tmp/nofs: no ext4/ or xfs/ folder"
}

ktap_plan_checks "$0"
ktap_start
ktap_check native_run_renders renders
ktap_check only_the_run_filesystem one_filesystem
ktap_check report_md_labelled_native report_page
ktap_check extra_tables_of_the_target extra_tables
ktap_check not_a_run_one_line not_a_run
ktap_check cut_json_named_nothing_written cut_json
ktap_check no_filesystem_one_line no_filesystem
ktap_finish
