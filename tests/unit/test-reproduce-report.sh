#!/bin/sh
# Host test of make reproduce's report (bench/reproduce-report.sh) on a
# recorded native run (tests/unit/data/native-reproduce: xfs alone, made by
# native/job.sh in the VM standing in for a pmem host): the tables, the
# kernel's view, the extra tables and report.md cover the filesystem the run
# has and no other, labelled native; a folder that is no run is one line.
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

ktap_plan_checks "$0"
ktap_start
ktap_check native_run_renders renders
ktap_check only_the_run_filesystem one_filesystem
ktap_check report_md_labelled_native report_page
ktap_check extra_tables_of_the_target extra_tables
ktap_check not_a_run_one_line not_a_run
ktap_finish
