#!/bin/sh
# lab/'s LAVA test definition without LAVA: the KTAP of guest jobs
# (tests/unit/data/lava/) to result lines (ktap-results.awk), result lines to
# lava-test-case calls (send-to-lava.sh, a fake lava-test-case on PATH that
# records its arguments), and the runner mapsync.sh end to end on a fake
# suite (jobs that print KTAP, a fake faultlat for the measurements) and on
# a device without persistent memory (one skip, at once). The job and
# device YAML are checked against LAVA's own schemas by make lava-check
# (lab/lava-check.sh), where lava-common is installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
data=$here/data/lava
td=$root/lab/test-definitions/automated
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-lava.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# results PREFIX FILE: ktap-results.awk's lines (stderr into $tmp/err).
results() { awk -v prefix="$1" -f "$td/linux/mapsync/ktap-results.awk" "$2" 2>"$tmp/err"; }

# A recorded guest job: one pass per result, the job complete.
recorded_all_pass() {
	results check "$data/check.tap" >"$tmp/r"
	[ "$(grep -c ' pass$' "$tmp/r")" = 37 ] && [ "$(wc -l <"$tmp/r")" = 37 ] &&
		grep -qx 'check-pmem_namespaces_fsdax pass' "$tmp/r" &&
		grep -qx 'check-faultlat_pte_on_misaligned_xfs pass' "$tmp/r" &&
		[ "$(tail -n 1 "$tmp/r")" = 'check-ktap-complete pass' ] || { cat "$tmp/r"; return 1; }
}

# Every directive: SKIP skip, XFAIL/XPASS pass, not ok fail, not ok # SKIP
# skip; subtests and diagnostics are not results; odd characters become _.
directives() {
	results smoke "$data/mixed.tap" >"$tmp/r"
	cat >"$tmp/want" <<-'EOF'
	smoke-pmem_namespaces_fsdax pass
	smoke-xfs_mount_dax skip
	smoke-ext4_daxlat_sync_counts fail
	smoke-clean_xfs_reflinked pass
	smoke-clean_ext4_written pass
	smoke-a_name_with_odd_chars pass
	smoke-skipped_in_not_ok skip
	smoke-never_reported fail
	smoke-ktap-complete pass
	EOF
	diff "$tmp/want" "$tmp/r"
}

# A job stopped half-way: what it reported, then ktap-complete fails, why
# on stderr; no KTAP at all is one fail too.
incomplete() {
	results persist "$data/truncated.tap" >"$tmp/r"
	printf 'persist-pmem_namespaces_fsdax pass\npersist-xfs_mount_dax pass\npersist-ktap-complete fail\n' >"$tmp/want"
	diff "$tmp/want" "$tmp/r" && grep -q '2 results for a plan of 5' "$tmp/err" || { cat "$tmp/err"; return 1; }
	echo "sh: faultlat: not found" >"$tmp/none.tap"
	[ "$(results bpf "$tmp/none.tap")" = 'bpf-ktap-complete fail' ] && grep -q 'no KTAP plan' "$tmp/err"
}

# The fake lava-test-case (and lava-test-set): one line per call, its
# arguments separated by |.
mkdir -p "$tmp/lava"
for t in lava-test-case lava-test-set; do
	printf '#!/bin/sh\n{ printf %%s %s; for a; do printf "|%%s" "$a"; done; echo; } >>"$FAKE_CALLS"\n' "$t" >"$tmp/lava/$t"
	chmod +x "$tmp/lava/$t"
done
export FAKE_CALLS="$tmp/calls"

# send_to_lava FILE: send-to-lava.sh with the fake first on PATH.
send_to_lava() { : >"$FAKE_CALLS"; PATH="$tmp/lava:$PATH" sh "$td/utils/send-to-lava.sh" "$1" 2>"$tmp/err"; }

calls_per_line() {
	cat >"$tmp/res" <<-'EOF'
	check-ext4_mount_dax pass
	smoke-xfs_mount_dax skip
	smoke-ext4_daxlat_sync_counts fail
	faultlat-ext4-empty-none-sync-p50 pass 18234 ns
	faultlat-xfs-empty-none-sync-p50 pass 2.5
	faultlat-xfs-empty-none-nosync-p50 pass 12ms ns
	lava-test-set start smoke
	lava-test-set stop
	# a comment
	mapsync: not a result line
	EOF
	send_to_lava "$tmp/res" || return 1
	cat >"$tmp/want" <<-'EOF'
	lava-test-case|check-ext4_mount_dax|--result|pass
	lava-test-case|smoke-xfs_mount_dax|--result|skip
	lava-test-case|smoke-ext4_daxlat_sync_counts|--result|fail
	lava-test-case|faultlat-ext4-empty-none-sync-p50|--result|pass|--measurement|18234|--units|ns
	lava-test-case|faultlat-xfs-empty-none-sync-p50|--result|pass|--measurement|2.5
	lava-test-case|faultlat-xfs-empty-none-nosync-p50|--result|pass
	lava-test-set|start|smoke
	lava-test-set|stop
	EOF
	diff "$tmp/want" "$FAKE_CALLS" && grep -q "measurement '12ms' is not a number" "$tmp/err"
}

# Outside LAVA: the lines LAVA would have read, printed.
no_lava_prints() {
	printf 'a pass\nb pass 7 ns\n' >"$tmp/res"
	out=$(PATH=/usr/bin:/bin sh "$td/utils/send-to-lava.sh" "$tmp/res") &&
		[ "$out" = "$(printf '<TEST_CASE_ID=a RESULT=pass>\n<TEST_CASE_ID=b RESULT=pass MEASUREMENT=7 UNITS=ns>')" ] ||
		{ echo "$out"; return 1; }
}

# A fake suite for mapsync.sh: lib.sh with the functions it calls, jobs.txt
# with a job that passes, one that fails a test, one that hangs (watchdog
# 1 s), one that needs a module; fake tools on PATH. umount is faked too:
# mapsync.sh unmounts /dev/pmem* filesystems between jobs, and a host test
# must not touch the host's.
suite=$tmp/suite
mkdir -p "$suite/vm/guest" "$suite/lib" "$suite/tests/guest" "$suite/bin"
cat >"$suite/vm/guest/lib.sh" <<'EOF'
pmem_expect() { [ -z "${FAKE_NO_PMEM:-}" ] || { echo "modprobe: module nfit not found"; return 1; }; }
fs_setup() { echo "$1 $2" >>"$FAKE_CALLS.fs"; }
scenario_args() { case $1 in *-nosync) echo "-s empty -l none" ;; *) echo "-s empty -l none --sync" ;; esac; }
EOF
: >"$suite/lib/ktap.sh"
cat >"$suite/tests/guest/jobs.txt" <<'EOF'
# name  script                    watchdog  normal  files
good    tests/guest/good.sh       30        1       -
bad     tests/guest/bad.sh        30        1       -
hang    tests/guest/hang.sh       1         1       -
module  tests/guest/module.sh     30        1       mutants/x.ko
EOF
printf 'echo "KTAP version 1"; echo 1..2; echo "ok 1 one"; echo "ok 2 two # SKIP why"; echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0"\n' >"$suite/tests/guest/good.sh"
printf 'echo "KTAP version 1"; echo 1..1; echo "not ok 1 one # it broke"; echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"; exit 1\n' >"$suite/tests/guest/bad.sh"
printf 'echo "KTAP version 1"; echo 1..2; echo "ok 1 one"; exec sleep 30\n' >"$suite/tests/guest/hang.sh"
for t in daxlat syncorder ndctl umount; do printf '#!/bin/sh\nexit 0\n' >"$suite/bin/$t"; done
printf '#!/bin/sh\ncase "$*" in *--sync*) m=18000 ;; *) m=2100 ;; esac\necho "{\\"median\\": $m, \\"faults\\": 512}"\n' >"$suite/bin/faultlat"
chmod +x "$suite/bin/"*

# mapsync OPTIONS...: the runner in $tmp/run, its output/result.txt kept.
mapsync() {
	rm -rf "$tmp/run" && mkdir "$tmp/run" && : >"$FAKE_CALLS.fs"
	(cd "$tmp/run" && PATH="$suite/bin:$PATH" MAPSYNC_SUITE="$suite" sh "$td/linux/mapsync/mapsync.sh" "$@") >"$tmp/log" 2>&1
}

runner_end_to_end() {
	mapsync -j "good bad hang module nosuch" || { cat "$tmp/log"; return 1; }
	cat >"$tmp/want" <<-'EOF'
	good-one pass
	good-two skip
	good-ktap-complete pass
	bad-one fail
	bad-ktap-complete pass
	hang-one pass
	hang-ktap-complete fail
	module skip
	nosuch-ktap-complete fail
	faultlat-xfs-empty-none-sync-p50 pass 18000 ns
	faultlat-xfs-empty-none-nosync-p50 pass 2100 ns
	faultlat-ext4-empty-none-sync-p50 pass 18000 ns
	faultlat-ext4-empty-none-nosync-p50 pass 2100 ns
	EOF
	diff "$tmp/want" "$tmp/run/output/result.txt" || { cat "$tmp/log"; return 1; }
	grep -q 'job hang: stopped by the watchdog after 1s' "$tmp/log" &&
		[ "$(cat "$FAKE_CALLS.fs")" = "$(printf 'xfs /dev/pmem1\next4 /dev/pmem0')" ] || { cat "$tmp/log"; return 1; }
	# And on to LAVA: one call per line, the measurement with its units.
	send_to_lava "$tmp/run/output/result.txt" && [ "$(wc -l <"$FAKE_CALLS")" = 13 ] &&
		grep -qx 'lava-test-case|faultlat-ext4-empty-none-sync-p50|--result|pass|--measurement|18000|--units|ns' "$FAKE_CALLS"
}

# No persistent memory: one skip with the reason, within seconds.
no_pmem_one_skip() {
	t0=$(date +%s)
	FAKE_NO_PMEM=1 mapsync -j good || return 1
	[ "$(cat "$tmp/run/output/result.txt")" = 'mapsync-pmem skip' ] &&
		grep -q 'no two fsdax namespaces here.*module nfit not found' "$tmp/log" &&
		[ $(($(date +%s) - t0)) -lt 5 ] || { cat "$tmp/log"; return 1; }
}

# No suite on the device: one fail, naming what is missing.
no_suite_one_fail() {
	rm -rf "$tmp/run" && mkdir "$tmp/run"
	(cd "$tmp/run" && MAPSYNC_SUITE="$tmp/nowhere" sh "$td/linux/mapsync/mapsync.sh" -j good) >"$tmp/log" 2>&1 &&
		[ "$(cat "$tmp/run/output/result.txt")" = 'mapsync-suite fail' ] &&
		grep -q "no $tmp/nowhere/vm/guest/lib.sh" "$tmp/log" || { cat "$tmp/log"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check recorded_guest_job_all_pass recorded_all_pass
ktap_check ktap_directives_to_lava_results directives
ktap_check stopped_job_fails_ktap_complete incomplete
ktap_check send_to_lava_one_call_per_result calls_per_line
ktap_check send_to_lava_outside_lava_prints no_lava_prints
ktap_check mapsync_runner_end_to_end runner_end_to_end
ktap_check mapsync_without_pmem_one_skip no_pmem_one_skip
ktap_check mapsync_without_suite_one_fail no_suite_one_fail
ktap_finish
