#!/bin/sh
# Host tests of vm/run.sh and vm/job.sh around a fake QEMU (a script that
# writes a recorded console and results where QEMU would, then hangs): the
# splat watch stops it in seconds, the watchdog fires, Ctrl-C/SIGTERM leave
# no QEMU and no backing files. No VM boots here; tests/host/test-runner.sh
# does the same with real splats in a real guest.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-fake.XXXXXX") || exit 1
trap 'pkill -f "$tmp/fake-qemu" 2>/dev/null; rm -rf "$tmp"' EXIT
: >"$tmp/vmlinuz"
: >"$tmp/initrd"
printf '#!/bin/sh\necho hi\n' >"$tmp/script"

# The fake: console from $FAKE_CONSOLE, results from $FAKE_RESULTS, then
# sleep (a hung guest) unless FAKE_EXIT is set.
cat >"$tmp/fake-qemu" <<'FAKE'
#!/bin/sh
while [ $# -gt 0 ]; do
	case $1 in
	-serial) console=${2#file:}; shift ;;
	-chardev) case $2 in *id=results*) results=${2##*path=} ;; esac; shift ;;
	esac
	shift
done
echo $$ >"$FAKE_PIDFILE"
[ -n "${FAKE_RESULTS:-}" ] && cat "$FAKE_RESULTS" >>"$results"
sleep 1
[ -n "${FAKE_CONSOLE:-}" ] && cat "$FAKE_CONSOLE" >>"$console"
# The rest of a report once the watch has read its start (splat.txt); the
# guest then ends at once, as a panic with -no-reboot does.
if [ -n "${FAKE_CONSOLE_REST:-}" ]; then
	while [ ! -f "${console%/*}/splat.txt" ]; do sleep 0.05; done
	cat "$FAKE_CONSOLE_REST" >>"$console"
	exit 0
fi
[ -n "${FAKE_EXIT:-}" ] && exit 0
exec sleep 300
FAKE
chmod +x "$tmp/fake-qemu"
export QEMU="$tmp/fake-qemu" FAKE_PIDFILE="$tmp/fake.pid" VMLINUZ="$tmp/vmlinuz" INITRD="$tmp/initrd"

# job TIMEOUT: vm/job.sh with the fake, in the background; $jpid.
job() {
	rm -f "$tmp/fake.pid"
	sh "$root/vm/job.sh" "$tmp/script" "$tmp/out" --timeout "$1" >"$tmp/log" 2>&1 &
	jpid=$!
}
# ends_within S: the job ends within S seconds; $rc its status.
ends_within() {
	i=0
	while kill -0 "$jpid" 2>/dev/null && [ $i -lt $(($1 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	kill -0 "$jpid" 2>/dev/null && { kill "$jpid"; echo "still running after $1 s"; return 1; }
	wait "$jpid"
	rc=$?
}
fake_gone() {
	p=$(cat "$tmp/fake.pid" 2>/dev/null)
	[ -n "$p" ] && ! kill -0 "$p" 2>/dev/null || { echo "the fake QEMU ($p) is still running"; return 1; }
}

t_splat() {
	FAKE_CONSOLE=$here/data/console/soft-lockup-fentry.log job 300
	ends_within 15 || return 1
	[ "$rc" = 119 ] || { echo "exit $rc, want 119: $(cat "$tmp/log")"; return 1; }
	grep -qx 'class soft_lockup' "$tmp/out/splat.txt" && grep -q 'vm: guest soft lockup at dax_iomap_fault+0x0/0x30' "$tmp/log" ||
		{ echo "report: $(cat "$tmp/log")"; return 1; }
	fake_gone
}
# A report still being printed when first seen, then a panic ends QEMU
# before the watch looks again: the report is read whole all the same.
t_report_read_whole() {
	head -n 5 "$here/data/console/oops-then-panic.log" >"$tmp/start.log"
	tail -n +6 "$here/data/console/oops-then-panic.log" >"$tmp/rest.log"
	FAKE_CONSOLE=$tmp/start.log FAKE_CONSOLE_REST=$tmp/rest.log job 300
	ends_within 15 || return 1
	[ "$rc" = 118 ] || { echo "exit $rc, want 118: $(cat "$tmp/log")"; return 1; }
	grep -q "^frames splat_init" "$tmp/out/splat.txt" ||
		{ echo "no frames: $(tr "\n" " " <"$tmp/out/splat.txt")"; return 1; }
}
t_results_kept() {
	printf 'KTAP version 1\n1..3\nok 1 first\n# begin second\n' >"$tmp/res"
	FAKE_RESULTS=$tmp/res FAKE_CONSOLE=$here/data/console/rcu-stall-int3.log job 300
	ends_within 15 || return 1
	[ "$rc" = 121 ] && grep -qx 'ok 1 first' "$tmp/out/results.txt" || { echo "exit $rc: $(cat "$tmp/out/results.txt")"; return 1; }
}
t_watchdog() {
	job 3
	ends_within 15 || return 1
	[ "$rc" = 124 ] || { echo "exit $rc, want 124: $(cat "$tmp/log")"; return 1; }
	fake_gone
}
t_no_result() {
	FAKE_EXIT=1 job 60
	ends_within 15 || return 1
	[ "$rc" = 125 ] || { echo "exit $rc, want 125: $(cat "$tmp/log")"; return 1; }
}
t_sigterm_cleans() {
	job 300
	i=0; while [ ! -s "$tmp/fake.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	ls "$tmp/out"/pmem0.img >/dev/null 2>&1 || { echo "no backing file while running"; return 1; }
	kill -TERM "$jpid"
	ends_within 10 || return 1
	[ "$rc" = 130 ] || [ "$rc" = 143 ] || { echo "exit $rc"; return 1; }
	sleep 0.5
	fake_gone || return 1
	[ -z "$(ls "$tmp/out"/pmem*.img "$tmp/out"/initrd.img 2>/dev/null)" ] || { echo "left: $(ls "$tmp/out")"; return 1; }
}
t_bad_accel() {
	ACCEL=bogus sh "$root/vm/run.sh" --kernel "$tmp/vmlinuz" --initrd "$tmp/initrd" --out "$tmp/o2" "$tmp/job" >"$tmp/log" 2>&1
	rc=$?
	[ "$rc" = 126 ] && grep -q "must be tcg or kvm, not 'bogus'" "$tmp/log" || { echo "exit $rc: $(cat "$tmp/log")"; return 1; }
}

# The crash test interrupted mid-boot: no QEMU, no NVDIMM files left.
t_crash_sigterm() {
	mkdir -p "$tmp/bin" && cp "$tmp/script" "$tmp/bin/pmwrite" && cp "$tmp/script" "$tmp/bin/pmverify" && cp "$tmp/script" "$tmp/bin/pmobjtx" &&
		chmod +x "$tmp/bin/pmwrite" "$tmp/bin/pmverify" "$tmp/bin/pmobjtx"
	rm -f "$tmp/fake.pid"
	BINDIR=$tmp/bin sh "$root/validate/crash/crash.sh" -q -c 1 -s 7 -o "$tmp/crash" -t "$tmp/crash.tap" >"$tmp/log" 2>&1 &
	jpid=$!
	i=0; while [ ! -s "$tmp/fake.pid" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	ls "$tmp/crash"/pmem0.img >/dev/null 2>&1 || { echo "no backing file while running: $(cat "$tmp/log")"; return 1; }
	kill -TERM "$jpid"
	ends_within 10 || return 1
	sleep 0.5
	fake_gone || return 1
	[ -z "$(ls "$tmp/crash"/pmem*.img 2>/dev/null)" ] || { echo "left: $(ls "$tmp/crash")"; return 1; }
}

mkdir -p "$tmp/job" && cp "$tmp/script" "$tmp/job/run" && chmod +x "$tmp/job/run"
ktap_plan_checks "$0"
ktap_start
ktap_check splat_stops_guest_in_seconds t_splat
ktap_check results_before_splat_kept t_results_kept
ktap_check splat_report_read_whole t_report_read_whole
ktap_check watchdog_fires t_watchdog
ktap_check guest_without_result_125 t_no_result
ktap_check sigterm_leaves_nothing t_sigterm_cleans
ktap_check bad_accelerator_refused t_bad_accel
ktap_check crash_test_sigterm_leaves_nothing t_crash_sigterm
ktap_finish
