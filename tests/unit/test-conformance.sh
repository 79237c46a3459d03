#!/bin/sh
# Host tests of the conformance matrix's judging (validate/conformance.sh)
# on synthetic probe lines and NEEDDSYNC counts, and of the table itself:
# a wrong fact, a synchronous answer read from the wrong process, a missing
# probe or an unknown case must each fail the cell they touch.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:-$root/.output/bin}
. "$root/lib/ktap.sh"
conformance_table=$root/validate/conformance.txt
. "$root/validate/conformance.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-conformance.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# What 6.1 answered on ext4-dax and tmpfs (tests/guest/conformance.sh).
cat >"$tmp/cells" <<'CELLS'
setup=ext4-dax case=validate pid=10 mmap=ok sf=1 statx=1 stores=8 child=- sigbus=- intact=- pmem=-
setup=ext4-dax case=shared pid=11 mmap=ok sf=1 statx=1 stores=8 child=- sigbus=- intact=- pmem=-
setup=ext4-dax case=private pid=12 mmap=ok sf=1 statx=1 stores=8 child=- sigbus=- intact=- pmem=-
setup=ext4-dax case=unknown-flag pid=13 mmap=EOPNOTSUPP sf=- statx=1 stores=- child=- sigbus=- intact=- pmem=-
setup=ext4-dax case=mprotect pid=14 mmap=ok sf=1 statx=1 stores=8 child=- sigbus=- intact=- pmem=-
setup=ext4-dax case=truncate pid=15 mmap=ok sf=1 statx=1 stores=8 child=- sigbus=1 intact=1 pmem=-
setup=ext4-dax case=fork pid=16 mmap=ok sf=1 statx=1 stores=8 child=17 sigbus=- intact=- pmem=-
setup=ext4-dax case=detect pid=18 mmap=ok sf=- statx=1 stores=- child=- sigbus=- intact=- pmem=1
setup=tmpfs case=validate pid=20 mmap=EOPNOTSUPP sf=- statx=0 stores=- child=- sigbus=- intact=- pmem=-
setup=tmpfs case=shared pid=21 mmap=ok sf=1 statx=0 stores=8 child=- sigbus=- intact=- pmem=-
setup=xfs-dax error=mkfs_failed
CELLS
printf '10 8\n11 8\n12 0\n14 8\n15 8\n17 8\n' >"$tmp/procs"

# verdict CASE SETUP: the judged cell's verdict and man-page field.
verdict() {
	conformance_judge_cells "$tmp/cells" "$tmp/procs" >"$tmp/judged"
	awk -v c="$1" -v s="$2" '$1 == c && $2 == s { print $4, $5 }' "$tmp/judged"
}
expect() {
	got=$(verdict "$1" "$2")
	[ "$got" = "$3" ] || { echo "$1 on $2: '$got', want '$3': $(grep "^$1 $2 " "$tmp/judged")"; return 1; }
}

every_cell_judged() {
	n=$(conformance_judge_cells "$tmp/cells" "$tmp/procs" | wc -l)
	want=$(($(conformance_rows case | wc -l) * $(conformance_rows setup | wc -l)))
	[ "$n" = "$want" ] && [ "$(conformance_names | wc -l)" = "$want" ] || { echo "$n cells, $(conformance_names | wc -l) names, want $want"; return 1; }
}
answers_as_6_1_pass() {
	for c in validate shared private unknown-flag mprotect truncate fork detect; do
		expect "$c" ext4-dax "pass $([ "$c" = shared ] || [ "$c" = private ] && echo differs || echo agrees)" || return 1
	done
	expect validate tmpfs "pass agrees" && expect shared tmpfs "pass differs"
}
wrong_fact_fails() {
	sed -i 's/case=truncate pid=15 \(.*\)intact=1/case=truncate pid=15 \1intact=0/' "$tmp/cells"
	expect truncate ext4-dax "fail agrees"
}
sync_from_the_count() {
	printf '10 8\n11 3\n12 0\n14 8\n15 8\n17 8\n' >"$tmp/procs"
	expect shared ext4-dax "fail differs" && grep -q '^shared ext4-dax .*sync=3/8.*wrong="sync=all ' "$tmp/judged"
}
fork_judged_on_the_child() {
	printf '10 8\n11 8\n12 0\n14 8\n15 8\n16 8\n' >"$tmp/procs"
	expect fork ext4-dax "fail agrees"
}
private_sync_fails() {
	printf '10 8\n11 8\n12 8\n14 8\n15 8\n17 8\n' >"$tmp/procs"
	expect private ext4-dax "fail differs"
}
missing_probe_fails() { expect mprotect tmpfs "fail agrees"; }
setup_error_fails() { expect validate xfs-dax "fail agrees" && grep -q '^validate xfs-dax .*error=mkfs_failed' "$tmp/judged"; }
# Every case of the table is one mapconform knows (exit 1 on a missing
# directory, not 2 for an unknown case); every setup class has a column.
table_cases_known() {
	conformance_rows case | while IFS='|' read -r c rest; do
		"$bin/mapconform" -c "$c" -f "$tmp/no/such/dir/f" >/dev/null 2>&1
		[ $? = 1 ] || { echo "case $c: mapconform does not know it"; return 1; }
		[ "$(echo "$rest" | awk -F'|' '{ print NF }')" = 5 ] || { echo "case $c: not 6 columns"; return 1; }
	done
}
table_classes_known() {
	conformance_rows setup | awk -F'|' '$2 !~ /^(dax|nondax|tmpfs)$/ { print "setup " $1 ": class " $2; bad = 1 } END { exit bad }'
}

ktap_plan_checks "$0"
ktap_start
ktap_check every_cell_judged every_cell_judged
ktap_check answers_as_6_1_pass answers_as_6_1_pass
ktap_check wrong_fact_fails wrong_fact_fails
ktap_check sync_from_the_count sync_from_the_count
ktap_check fork_judged_on_the_child fork_judged_on_the_child
ktap_check private_sync_fails private_sync_fails
ktap_check missing_probe_fails missing_probe_fails
ktap_check setup_error_fails setup_error_fails
ktap_check table_cases_known table_cases_known
ktap_check table_classes_known table_classes_known
ktap_finish
