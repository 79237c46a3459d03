#!/bin/sh
# Host tests of the guards in front of every guest run (issue 8): bad make
# variables and a missing kernel are one line before anything boots; a
# refused run never passes off an earlier run's results as its own; a part
# of make check that leaves no KTAP fails the summary. KTAP output.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-guards.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/vmlinuz"

# refused VAR=VALUE... -- SCRIPT WANT_LINE: SCRIPT exits 2 at once with WANT_LINE
# on stderr, and makes no run folder.
refused() {
	env_args=
	while [ "$1" != -- ]; do env_args="$env_args $1"; shift; done
	script=$2 want=$3
	before=$(ls "$root/results/runs" 2>/dev/null | wc -l)
	t0=$(date +%s)
	(cd "$root" && env VMLINUZ="$tmp/vmlinuz" INITRD=/nonexistent BINDIR="$tmp" ACCEL=tcg O="$tmp/o" \
		PAGES=512 REPS=1 KERNEL_VIEW=1 ROUNDS=2 SCENARIOS=empty-sync GUEST_KVER=x $env_args \
		sh "$script" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ "$rc" = 2 ] || { echo "exit $rc, want 2: $(head -c 300 "$tmp/err")"; return 1; }
	grep -qxF "$want" "$tmp/err" || { echo "stderr: $(cat "$tmp/err") | want: $want"; return 1; }
	[ $(($(date +%s) - t0)) -lt 10 ] || { echo "took $(($(date +%s) - t0)) s: something ran"; return 1; }
	[ "$(ls "$root/results/runs" 2>/dev/null | wc -l)" = "$before" ] || { echo "a run folder was made"; return 1; }
}

# A run whose guest fails (here: no initramfs) leaves no run folder.
failed_run() {
	before=$(ls "$root/results/runs" 2>/dev/null | wc -l)
	(cd "$root" && env VMLINUZ="$tmp/vmlinuz" INITRD=/nonexistent BINDIR="$tmp" ACCEL=tcg O="$tmp/o" \
		PAGES=8 REPS=1 KERNEL_VIEW=0 GUEST_KVER=x sh bench/reproduce.sh >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ "$rc" != 0 ] && grep -q 'reproduce: the guest run failed' "$tmp/err" ||
		{ echo "exit $rc: $(cat "$tmp/err")"; return 1; }
	[ "$(ls "$root/results/runs" 2>/dev/null | wc -l)" = "$before" ] || { echo "a run folder was left"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check reproduce_pages_not_a_number refused PAGES=abc -- bench/reproduce.sh "PAGES=abc: must be a whole number of at least 1"
ktap_check reproduce_pages_zero refused PAGES=0 -- bench/reproduce.sh "PAGES=0: must be a whole number of at least 1"
ktap_check reproduce_reps_bad refused REPS=x -- bench/reproduce.sh "REPS=x: must be a whole number of at least 1"
ktap_check reproduce_kernel_view_bad refused KERNEL_VIEW=2 -- bench/reproduce.sh "KERNEL_VIEW=2: must be 0 or 1"
ktap_check reproduce_accel_bogus refused ACCEL=bogus -- bench/reproduce.sh "ACCEL=bogus: must be tcg or kvm"
ktap_check overhead_rounds_bad refused ROUNDS=abc -- bench/overhead.sh "ROUNDS=abc: must be a whole number of at least 1"
ktap_check overhead_scenario_bad refused SCENARIOS=bogus -- bench/overhead.sh \
	"OVERHEAD_SCENARIOS: unknown scenario 'bogus' (the names in bench/scenarios.txt)"
ktap_check overhead_warmup_bad refused WARMUP=x -- bench/overhead.sh "OVERHEAD_WARMUP=x: must be a number of rounds"
ktap_check overhead_measure_bad refused MEASURE=cpu -- bench/overhead.sh "MEASURE=cpu: must be icount or wall"

# make with a kernel that is not there: one line, nothing built or booted.
no_kernel() {
	(cd "$root" && make -s check-all KERNEL=/nonexistent MODULES=/nonexistent O="$tmp/o" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ "$rc" = 2 ] && grep -q 'KERNEL=/nonexistent: no such kernel image' "$tmp/err" && [ ! -e "$tmp/o" ] ||
		{ echo "exit $rc: $(head -c 300 "$tmp/err")"; return 1; }
}
ktap_check make_missing_kernel_one_line no_kernel
ktap_check failed_run_leaves_no_folder failed_run

# A refused run (bad accelerator) beside an earlier run's results: nothing
# of the earlier run may be reported.
stale_results() {
	mkdir -p "$tmp/job" && printf 'KTAP version 1\n1..1\nok 1 stale\n@@vm-exit 0\n' >"$tmp/job/results.raw" &&
		cp "$tmp/job/results.raw" "$tmp/job/results.txt"
	printf '#!/bin/sh\necho hi\n' >"$tmp/script"
	VMLINUZ="$tmp/vmlinuz" INITRD="$tmp/vmlinuz" ACCEL=bogus sh "$root/vm/job.sh" "$tmp/script" "$tmp/job" \
		--accel bogus >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$rc" = 126 ] || { echo "exit $rc, want 126: $(cat "$tmp/err")"; return 1; }
	[ ! -e "$tmp/job/results.txt" ] && [ ! -e "$tmp/job/results.raw" ] ||
		{ echo "the earlier run's results are still there"; return 1; }
	! grep -q stale "$tmp/out" || { echo "reported the earlier run: $(cat "$tmp/out")"; return 1; }
}
ktap_check refused_run_reports_nothing_old stale_results

# The summary counts a KTAP file that is not there as a failure.
missing_tap() {
	printf 'KTAP version 1\n1..1\nok 1 a\n' >"$tmp/a.tap"
	sh "$root/tests/summary.sh" "$tmp/a.tap" "$tmp/none.tap" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -qx '1 passed, 1 failed, 0 skipped' "$tmp/out" &&
		grep -q "$tmp/none.tap: no KTAP" "$tmp/out" || { echo "exit $rc: $(cat "$tmp/out")"; return 1; }
}
ktap_check summary_fails_missing_ktap missing_tap

# The salvage of a dead job: results kept, the test in flight named.
salvage() {
	printf 'KTAP version 1\n1..5\n# begin a\nok 1 a\n# begin b\nok 2 b\n# begin c_in_flight\n' >"$tmp/r.txt"
	printf 'class soft_lockup\nline BUG: soft lockup - CPU#1 stuck for 22s!\nrip dax_iomap_fault+0x0/0x30\nframes x+0x1/0x2 < y+0x3/0x4\n' >"$tmp/s.txt"
	awk -v job=j -v reason="guest soft lockup at dax_iomap_fault+0x0/0x30" -v splat="$tmp/s.txt" \
		-f "$root/tests/salvage.awk" "$tmp/r.txt" >"$tmp/out"
	sh "$root/tests/summary.sh" "$tmp/out" >"$tmp/sum" 2>&1
	grep -qx 'not ok 3 c_in_flight # guest soft lockup at dax_iomap_fault+0x0/0x30' "$tmp/out" &&
		grep -qx '1\.\.3' "$tmp/out" && grep -qx '2 passed, 1 failed, 0 skipped' "$tmp/sum" &&
		grep -q '^# splat rip dax_iomap_fault+0x0/0x30$' "$tmp/out" || { echo "$(cat "$tmp/out" "$tmp/sum")"; return 1; }
}
ktap_check salvage_keeps_results_names_in_flight salvage

# Make variables that are counts, refused where they enter (issue 30): one
# line naming the variable the user set (make hands GATE_ROUNDS to
# gate-run.sh as ROUNDS, BASELINE_BOOTS as BOOTS, AA_N and POWER_TRIALS as
# arguments), exit 2, before anything is built, booted or made. make -n:
# without the guard the commands are printed, not run (make gate-aa AA_N=0
# booted QEMU and left results/runs/gate-aa-*). Its own make: not the
# flags or jobserver of a make check running this test.
# make_refused GOAL VAR=VALUE WANT
make_refused() {
	(cd "$root" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -n "$1" "$2" O="$tmp/mo" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF -- "$3" "$tmp/err" && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/mo" ] ||
		{ echo "make $1 $2: exit $rc: $(head -c 300 "$tmp/err") | stdout: $(head -c 150 "$tmp/out")"; return 1; }
}
# The defaults and good values still pass.
make_accepts() {
	(cd "$root" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -n gate-power POWER_DELAYS='430 71400' POWER_TRIALS=1 GATE_ROUNDS=5 BOOTS=1 BASELINE_BOOTS=10 \
		AA_N=1 O="$tmp/mo" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ "$rc" = 0 ] && grep -q 'gate-study.sh power "430 71400"' "$tmp/out" || { echo "exit $rc: $(head -c 300 "$tmp/err")"; return 1; }
}
# gate-study.sh run by hand: its arguments, refused before OUT is made.
study_refused() { # WANT ARGS...
	want=$1; shift
	(cd "$root" && env VMLINUZ="$tmp/vmlinuz" INITRD=/nonexistent BINDIR="$tmp" ACCEL=tcg O="$tmp/o" PAGES=8 ROUNDS=1 \
		BOOTS=1 MEASURE=icount GUEST_KVER=x sh bench/gate-study.sh "$@" >"$tmp/out" 2>"$tmp/err")
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qxF -- "$want" "$tmp/err" && [ ! -e "$tmp/study" ] ||
		{ echo "exit $rc: $(head -c 300 "$tmp/err") | want: $want$([ -e "$tmp/study" ] && echo ' (study folder made)')"; return 1; }
}
ktap_check make_gate_aa_n_zero make_refused gate-aa AA_N=0 "AA_N=0: must be a whole number of at least 1"
ktap_check make_gate_aa_n_word make_refused gate-aa AA_N=many "AA_N=many: must be a whole number of at least 1"
ktap_check make_power_trials_zero make_refused gate-power POWER_TRIALS=0 "POWER_TRIALS=0: must be a whole number of at least 1"
ktap_check make_power_delays_word make_refused gate-power "POWER_DELAYS=430 1e3" "POWER_DELAYS='430 1e3': '1e3' is not"
ktap_check make_power_delays_empty make_refused gate-power POWER_DELAYS= "POWER_DELAYS is empty"
ktap_check make_gate_rounds_named make_refused gate-run GATE_ROUNDS=abc "GATE_ROUNDS=abc: must be a whole number of at least 1"
ktap_check make_gate_rounds_too_large make_refused gate-run GATE_ROUNDS=10000000 "GATE_ROUNDS=10000000: must be a whole number"
ktap_check make_boots_zero make_refused gate-run BOOTS=00 "BOOTS=00: must be a whole number of at least 1"
ktap_check make_gate_sets_unknown make_refused gate-run GATE_SETS=gate,cow "GATE_SETS=gate,cow: 'cow' is no scenario set"
ktap_check make_baseline_boots_named make_refused baseline BASELINE_BOOTS=abc "BASELINE_BOOTS=abc: must be a whole number"
ktap_check make_good_counts_accepted make_accepts
ktap_check study_aa_n_zero study_refused "gate-study: N=0: must be a whole number of at least 1 (make gate-aa: AA_N)" aa 0 "$tmp/study"
ktap_check study_power_trials_bad study_refused "gate-study: TRIALS=x: must be a whole number of at least 1 (make gate-power: POWER_TRIALS)" \
	power 430 x "$tmp/study"
ktap_check study_power_delays_bad study_refused "gate-study: DELAYS='0 430': '0' is not a whole number of ns from 1 (make gate-power: POWER_DELAYS)" \
	power '0 430' 2 "$tmp/study"
ktap_finish
