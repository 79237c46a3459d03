#!/bin/sh
# Host tests of results/kcidb.sh and make kcidb: the KCIDB v5 document of a
# make check folder (tests/unit/data/kcidb), a recorded reproduce run, its
# extra tables, a gate run and a gate output (results/baselines) validates
# against results/kcidb-v5.schema.json; statuses, paths, kernels and numbers
# are the inputs'; the schema refuses what KCIDB refuses; a bad RUN is one
# line; a job whose KTAP does not parse is one ERROR test. KTAP output.
# KCIDB=, SCHEMA=: another converter or schema (each check below was seen
# failing against a broken copy). JSONSCHEMA=: the validator, Debian's
# python3-jsonschema (mk/deps.sh) by default, not whatever else PATH has.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=$here/data/kcidb
base=$root/results/baselines
. "$root/lib/ktap.sh"
KCIDB=${KCIDB:-$root/results/kcidb.sh}
SCHEMA=${SCHEMA:-$root/results/kcidb-v5.schema.json}
JSONSCHEMA=${JSONSCHEMA:-/usr/bin/jsonschema}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-kcidb.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

repro=$base/reproduce-20261203T105927Z-816efec
extra=$base/reproduce-extra-20261205-1a90950/boot1
gate=$base/gate-kernels-20261205T062555Z-b082e01/gate-7.2-vs-6.1
cp -R "$data/check" "$tmp/check"
# A guest that died mid-job, salvaged as make check does (tests/host/guest.sh).
awk -v job=syncorder -v reason="guest soft lockup at dax_iomap_fault+0x0/0x30 (vm exit 119 after 205s)" \
	-f "$root/tests/salvage.awk" "$data/syncorder-results.txt" >"$tmp/check/guest-syncorder.tap"

# kcidb OUT ARGS...: the document into OUT, stderr into OUT.err, exit into OUT.rc.
kcidb() {
	o=$1; shift
	(cd "$root" && sh "$KCIDB" "$@" >"$o" 2>"$o.err"); echo $? >"$o.rc"
}
kcidb "$tmp/check.json" "$tmp/check"
kcidb "$tmp/all.json" --origin lab_1 "$tmp/check" "$repro" "$extra" "$data/gate-run" "$gate"

converts() {
	for d in check all; do
		[ "$(cat "$tmp/$d.json.rc")" = 0 ] && [ ! -s "$tmp/$d.json.err" ] ||
			{ echo "$d: exit $(cat "$tmp/$d.json.rc"): $(head -c 300 "$tmp/$d.json.err")"; return 1; }
	done
}
valid() { # FILE
	[ -x "$JSONSCHEMA" ] || { echo "no $JSONSCHEMA: apt-get install python3-jsonschema (make deps)"; return 1; }
	"$JSONSCHEMA" -i "$1" "$SCHEMA" >"$tmp/v" 2>&1 || { echo "${1##*/} not valid: $(head -c 400 "$tmp/v")"; return 1; }
}
# want FILE FILTER [SHOW]: the jq FILTER holds on FILE; else its start and what
# the jq program SHOW prints of FILE.
want() {
	jq -e "$2" "$1" >/dev/null 2>"$tmp/jqerr" ||
		{ echo "${1##*/}: not $(printf %s "$2" | tr -s '\n\t' '  ' | cut -c 1-160)${3:+: $(jq -c "$3" "$1" 2>&1 | head -c 600)}$(head -c 200 "$tmp/jqerr")"; return 1; }
}

# Every id's form, uniqueness and links: tests to builds, builds to the
# checkout, all of one origin.
ids_link() {
	want "$tmp/all.json" '
		.checkouts[0].id as $co | (.builds | map({(.id): true}) | add) as $b |
		(.checkouts | length) == 1 and ($co | startswith("lab_1:")) and
		([.tests[].id] | length) == ([.tests[].id] | unique | length) and
		([.builds[].id] | length) == ([.builds[].id] | unique | length) and
		all(.builds[]; .checkout_id == $co) and all(.tests[]; $b[.build_id]) and
		all(.checkouts[], .builds[], .tests[]; .origin == "lab_1" and (.id | startswith("lab_1:")))'
}

# KTAP: each result one test, its status by the rules of kcidb.sh.
ktap_statuses() {
	want "$tmp/check.json" '([.tests[] | {(.path): .status}] | add) as $got | (.tests | length) == 19 and
		({"mapsync.unit-test_demo.test_quantiles": "PASS", "mapsync.guest-check.ext4_mount_dax": "PASS",
		  "mapsync.guest-check.bench_ext4_empty_none_sync": "FAIL", "mapsync.guest-check.pmd_fallback_xfs": "SKIP",
		  "mapsync.guest-check.xfs_pmd_fallback_2M": "PASS", "mapsync.guest-check.reflink_mapsync_xfs": "FAIL",
		  "mapsync.guest-check.clear_dirty_ext4": "PASS", "mapsync.guest-syncorder.clean_xfs_empty": "PASS",
		  "mapsync.guest-syncorder.mutant_skip_commit_ext4": "ERROR", "mapsync.smoke-6_12": "MISS",
		  "mapsync.smoke-6_12.smoke_syncorder_ext4": "MISS",
		  "mapsync.smoke-6_12.smoke_fsdax": "PASS", "mapsync.smoke-6_12-config.guest_kernel_config": "PASS"} |
		 to_entries | all(.value == $got[.key]))' '[.tests[] | [.path, .status]]'
}
ktap_evidence() {
	want "$tmp/check.json" '(.tests | map({(.path | ltrimstr("mapsync.")): .}) | add) as $t |
		($t["guest-check.bench_ext4_empty_none_sync"].log_excerpt |
		 contains("# faultlat: 64 faults, table sums to 63\nnot ok 2 bench_ext4_empty_none_sync # table buckets")) and
		($t["guest-check.reflink_mapsync_xfs"].misc.ktap_directive | startswith("XFAIL known kernel bug xfs-reflink-dax")) and
		($t["guest-syncorder.mutant_skip_commit_ext4"].misc.ktap_directive | endswith("(vm exit 119 after 205s)")) and
		($t["guest-syncorder.mutant_skip_commit_ext4"].log_excerpt | contains("# loading mapsync_mutant")) and
		$t["smoke-6_12"].misc.planned == 4 and $t["smoke-6_12"].misc.reported == 3 and
		all(.tests[] | select(.status == "PASS"); has("log_excerpt") | not)' '[.tests[] | select(.status != "PASS")]'
}
# The kernel of each tap: console.log, "# kernel", the -config pairing, the
# folder's default for host tests; the config checks in their builds.
ktap_kernels() {
	want "$tmp/check.json" '.checkouts[0].id as $co | (.tests | map({(.path): .build_id}) | add) as $b |
		(.builds | map({(.misc.kernel_release): .misc}) | add) as $k |
		([.builds[].misc.kernel_release] | sort) == ["6.1.0-57-cloud-amd64", "6.12.95+deb12-cloud-amd64"] and
		$b["mapsync.guest-check.ext4_mount_dax"] == "\($co):6.1.0-57-cloud-amd64" and
		$b["mapsync.unit-test_demo.test_bootstrap"] == "\($co):6.1.0-57-cloud-amd64" and
		$b["mapsync.smoke-6_12.smoke_fsdax"] == "\($co):6.12.95+deb12-cloud-amd64" and
		$b["mapsync.conformance-6_12.mapsync_shared_ext4_dax"] == "\($co):6.12.95+deb12-cloud-amd64" and
		$b["mapsync.smoke-6_12-config.guest_kernel_config"] == "\($co):6.12.95+deb12-cloud-amd64" and
		($k["6.1.0-57-cloud-amd64"].config_check | contains("kernels/6.1/config")) and
		($k["6.12.95+deb12-cloud-amd64"].config_check | contains("kernels/6.12/config"))' '[.builds[].misc]'
}

# Host tests alone name no kernel: one build "unknown", no status, and no
# noise on stderr; a native check's "# native: ..., kernel R" line names it.
host_only() {
	mkdir -p "$tmp/host" && cp "$data/check/unit-test_demo.tap" "$tmp/host/" && kcidb "$tmp/host.json" "$tmp/host" &&
		[ "$(cat "$tmp/host.json.rc")" = 0 ] && [ ! -s "$tmp/host.json.err" ] && valid "$tmp/host.json" &&
		want "$tmp/host.json" '[.builds[] | [.misc.kernel_release, has("status")]] == [["unknown", false]]' '.builds' ||
		{ echo "host only: exit $(cat "$tmp/host.json.rc"): $(head -c 200 "$tmp/host.json.err")"; return 1; }
	printf 'KTAP version 1\n1..1\n# native: /mnt/pmem (ext4), kernel 6.19.3-arch1-1, cache flush: clwb\nok 1 target_dax_map_sync\n' \
		>"$tmp/host/native-check.tap" && kcidb "$tmp/native.json" "$tmp/host" &&
		want "$tmp/native.json" '[.builds[].misc.kernel_release] == ["6.19.3-arch1-1"] and (.tests | length) == 4' '.builds'
}

# A reproduce run: faultlat's medians in seconds, the tables' check, ratios.
reproduce_numbers() {
	src=$repro/ext4/empty-none-sync.json
	n=$(jq .median "$src") l=$(jq .label "$src")
	want "$tmp/all.json" "[.tests[] | select(.misc.run == \"reproduce-20261203T105927Z-816efec\")] as \$r |
		(\$r | map(select(.path == \"mapsync.reproduce.ext4.empty-none-sync.p50\")) | .[0]) as \$t |
		(\$r | map(select(.path | test(\"^mapsync\\\\.reproduce\\\\.(ext4|xfs)\\\\.[a-z-]+\\\\.(p50|p99|avg|max)\$\"))) | length) == 64 and
		\$t.status == \"DONE\" and \$t.number.unit == \"s\" and \$t.number.prefix == \"metric\" and
		((\$t.number.value - $n / 1e9) | fabs) < 1e-15 and (\$t.comment + \":\") == $l" \
		'.tests[] | select(.path == "mapsync.reproduce.ext4.empty-none-sync.p50")'
}
reproduce_ratios() {
	r=$(jq '.ratios[] | select(.pair == "empty") | .ours_avg' "$repro/report-ext4.json")
	want "$tmp/all.json" "(.tests | map({(.path): .}) | add) as \$t |
		\$t[\"mapsync.reproduce.ext4.report\"].status == \"PASS\" and
		\$t[\"mapsync.reproduce.ext4.ratio.empty.avg\"].number == {value: $r} and
		\$t[\"mapsync.reproduce.xfs.ratio.empty_copy.median\"].status == \"DONE\"" \
		'[.tests[] | select(.path | test("report|ratio"))]'
}
# make reproduce's extra tables: the conformance cells as checks, persist
# and tail rows as measurements.
extra_rows() {
	p=$(jq '.persist[] | select(.fs == "ext4" and .state == "empty" and .pattern == "rand" and .size == 8 and .method == "mapsync+clwb") | .median_ns' "$extra/extra.json")
	c=$(jq '.tail[] | select(.fs == "xfs" and .writers == 4 and .layout == "one-file" and .map_sync) | .commits / .needdsync' "$extra/extra.json")
	want "$tmp/all.json" "[.tests[] | select(.misc.run == \"boot1\")] as \$e | (\$e | map({(.path): .}) | add) as \$t |
		(\$e | map(select(.path | startswith(\"mapsync.reproduce.conformance.\"))) | length) == 80 and
		all(\$e[] | select(.path | startswith(\"mapsync.reproduce.conformance.\")); .status == \"PASS\") and
		\$t[\"mapsync.reproduce.conformance.validate.ext4-dax\"].misc.class == \"dax\" and
		((\$t[\"mapsync.reproduce.ext4.persist.empty.rand.8.mapsync_clwb.p50\"].number.value - $p / 1e9) | fabs) < 1e-15 and
		((\$t[\"mapsync.reproduce.xfs.tail.sync.w4.one-file.commits_per_fault\"].number.value - $c) | fabs) < 1e-12" \
		'[.tests[] | select(.misc.run == "boot1")][0:3]'
}
# A gate run: the median over boots of each boot's quantile, by hand.
gate_run_quantiles() {
	want "$tmp/all.json" '[.tests[] | select(.misc.run == "gate-run")] | map({(.path): .number.value}) | add |
		length == 6 and (.["mapsync.gate-run.ext4.empty-none-sync.p50"] - 4e-9 | fabs) < 1e-18 and
		(.["mapsync.gate-run.ext4.empty-none-sync.p90"] - 5.6e-9 | fabs) < 1e-18 and
		(.["mapsync.gate-run.ext4.empty-none-sync.p99"] - 5.96e-9 | fabs) < 1e-18 and
		(.["mapsync.gate-run.ext4.empty-none-sync.fsync.p50"] - 2.5e-7 | fabs) < 1e-18' \
		'[.tests[] | select(.misc.run == "gate-run") | [.path, .number.value]]'
}
# A gate output: one test per verdict, on NEW's kernel, the change in %.
gate_verdicts() {
	v=$(jq -c .verdicts "$gate/gate.json")
	ch=$(jq '.rows[] | select(.fs == "ext4" and .scenario == "prealloc-none-sync" and .metric == "median") | .change' "$gate/gate.json")
	want "$tmp/all.json" "[.tests[] | select(.misc.run == \"gate-7.2-vs-6.1\")] as \$g | $v as \$v |
		(\$g | map(select(.status == \"FAIL\")) | length) == \$v.worse and
		(\$g | map(select(.status == \"ERROR\")) | length) == \$v.unknown and
		(\$g | map(select(.status == \"PASS\")) | length) == \$v.same + \$v.better and
		(\$g | length) == \$v.same + \$v.better + \$v.worse + \$v.unknown and
		(\$g | map(select(.path == \"mapsync.gate.ext4.prealloc-none-sync.p50\")) | .[0] |
		 .status == \"FAIL\" and .number.unit == \"%\" and ((.number.value - $ch * 100) | fabs) < 1e-9 and
		 (.build_id | endswith(\":7.2.13+deb14-cloud-amd64\")) and .misc.base_kernel == \"6.1.0-57-cloud-amd64\")" \
		'[.tests[] | select(.misc.run == "gate-7.2-vs-6.1")][9]'
}
# The same results give the same document: ids a resubmission updates.
same_document() {
	kcidb "$tmp/again.json" "$tmp/check"
	cmp -s "$tmp/check.json" "$tmp/again.json" || { echo "documents differ: $(diff "$tmp/check.json" "$tmp/again.json" | head -c 300)"; return 1; }
}

# The schema refuses what KCIDB refuses (a validator that passes anything
# would pass every check above): the converter's document, broken one way.
refused() { # NAME JQ_FILTER WANT: the broken document fails, naming WANT
	jq "$2" "$tmp/check.json" >"$tmp/$1.json" || return 1
	if "$JSONSCHEMA" -i "$tmp/$1.json" "$SCHEMA" >"$tmp/v" 2>&1; then
		echo "$1: validated"; return 1
	fi
	grep -qF -- "$3" "$tmp/v" || { echo "$1: refused, not for $3: $(head -c 300 "$tmp/v")"; return 1; }
}

# A bad RUN or option: one line on stderr, nothing on stdout, its exit code.
one_line() { # RC ARGS...
	rc=$1; shift
	(cd "$root" && sh "$KCIDB" "$@" >"$tmp/ol.out" 2>"$tmp/ol.err"); got=$?
	[ "$got" = "$rc" ] && [ "$(wc -l <"$tmp/ol.err")" = 1 ] && [ ! -s "$tmp/ol.out" ] ||
		{ echo "exit $got, want $rc; stderr: $(head -c 300 "$tmp/ol.err"); stdout $(wc -c <"$tmp/ol.out") bytes"; return 1; }
}
corrupt_gate() {
	mkdir -p "$tmp/badgate" && echo '{"tool": "gate", "rows": [' >"$tmp/badgate/gate.json" && one_line 1 "$tmp/badgate"
}

# make kcidb: the document into KCIDB_OUT and its path; no RUN is one line.
make_kcidb() {
	(cd "$root" && make -s kcidb RUN="$tmp/check" O="$tmp/o" KCIDB_OUT="$tmp/o/k.json" >"$tmp/mo" 2>"$tmp/me")
	rc=$?
	[ "$rc" = 0 ] && grep -qxF "  KCIDB    $tmp/o/k.json" "$tmp/mo" && cmp -s "$tmp/o/k.json" "$tmp/check.json" ||
		{ echo "exit $rc: $(head -c 300 "$tmp/mo") $(head -c 300 "$tmp/me")"; return 1; }
}
make_kcidb_no_run() {
	(cd "$root" && make -s kcidb O="$tmp/o2" >"$tmp/mo" 2>"$tmp/me")
	rc=$?
	[ "$rc" = 2 ] && [ "$(grep -c '^make kcidb: RUN=DIR is required' "$tmp/me")" = 1 ] && [ ! -e "$tmp/o2/kcidb.json" ] ||
		{ echo "exit $rc: $(head -c 300 "$tmp/me")"; return 1; }
}

# A job whose KTAP does not parse (random bytes, or empty: no plan, no
# result) is one ERROR test of the job, its results not evaluated; its
# tests must not vanish from the document unseen (issue 30). The bytes are
# fixed (awk srand) so the document is the same each run.
garbled_ktap() {
	cp -R "$data/check" "$tmp/garbled" &&
		awk 'BEGIN { srand(30); for (i = 0; i < 3000; i++) printf "%c", int(rand() * 256) }' >"$tmp/garbled/guest-check.tap" &&
		: >"$tmp/garbled/conformance-6.12.tap" || return 1
	kcidb "$tmp/garbled.json" "$tmp/garbled"
	[ "$(cat "$tmp/garbled.json.rc")" = 0 ] ||
		{ echo "exit $(cat "$tmp/garbled.json.rc"): $(head -c 300 "$tmp/garbled.json.err")"; return 1; }
	grep -q "^kcidb: note: .*/guest-check.tap: 3000 bytes" "$tmp/garbled.json.err" ||
		{ echo "no note naming guest-check.tap: $(head -c 300 "$tmp/garbled.json.err")"; return 1; }
	valid "$tmp/garbled.json" &&
	want "$tmp/garbled.json" '(.tests | map({(.path): .}) | add) as $t |
		$t["mapsync.guest-check"].status == "ERROR" and $t["mapsync.guest-check"].misc.ktap_file == "guest-check.tap" and
		($t["mapsync.guest-check"].log_excerpt | contains("3000 bytes")) and
		$t["mapsync.conformance-6_12"].status == "ERROR" and ($t["mapsync.conformance-6_12"].log_excerpt | contains("empty")) and
		$t["mapsync.smoke-6_12.smoke_fsdax"].status == "PASS" and (.tests | length) == 11' \
		'[.tests[] | [.path, .status, .log_excerpt]]'
}

ktap_plan_checks "$0"
ktap_start
ktap_check converts_every_kind converts
ktap_check check_document_valid valid "$tmp/check.json"
ktap_check all_kinds_document_valid valid "$tmp/all.json"
ktap_check ids_unique_and_linked ids_link
ktap_check ktap_statuses ktap_statuses
ktap_check ktap_evidence ktap_evidence
ktap_check ktap_kernels_and_config_checks ktap_kernels
ktap_check host_tests_alone_and_native host_only
ktap_check reproduce_medians_in_seconds reproduce_numbers
ktap_check reproduce_report_and_ratios reproduce_ratios
ktap_check extra_tables_rows extra_rows
ktap_check gate_run_quantiles_by_hand gate_run_quantiles
ktap_check gate_verdicts_statuses gate_verdicts
ktap_check same_results_same_document same_document
ktap_check schema_refuses_bad_status refused status '.tests[0].status = "BROKEN"' "'BROKEN' is not one of"
ktap_check schema_refuses_missing_id refused noid 'del(.tests[0].id)' "'id' is a required property"
ktap_check schema_refuses_id_without_origin refused badid '.builds[0].id = "Mapsync-6.1"' "does not match '^[a-z0-9_]+:.*\$'"
ktap_check schema_refuses_bad_path refused badpath '.tests[0].path = "mapsync..x"' "'mapsync..x' does not match"
ktap_check schema_refuses_number_without_value refused novalue '.tests[0].number = {unit: "s"}' "'value' is a required property"
ktap_check schema_refuses_other_major_version refused major '.version.major = 4' "5 was expected"
ktap_check schema_refuses_local_time refused time '.tests[0].start_time = "2026-12-05 17:14:18"' "'2026-12-05 17:14:18' does not match"
ktap_check missing_run_one_line one_line 2 "$tmp/none"
ktap_check not_a_run_one_line one_line 2 "$here/data/console"
ktap_check bad_origin_one_line one_line 2 --origin Bad-Lab "$tmp/check"
ktap_check corrupt_results_one_line corrupt_gate
ktap_check make_kcidb_writes_document make_kcidb
ktap_check make_kcidb_without_run_one_line make_kcidb_no_run
ktap_check unparsable_ktap_is_an_error_test garbled_ktap
ktap_finish
