#!/bin/sh
# Host tests of vm/splat.awk, the VM runner's console watch, on recorded
# guest consoles (tests/unit/data/console/: real ones from the fentry
# soft lockup / RCU stall of issue 8 and 7.2's WARNING, the others written in the kernel's
# format): the class, its exit code, the RIP and the top frames.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
data=$here/data/console

# splat FILE [EXPECT]: the report of FILE, into $out; $rc its exit status.
splat() {
	out=$(awk -v table="$root/vm/splats.txt" -v exitcodes="$root/lib/exitcodes.h" -v expect="${2:-}" \
		-f "$root/vm/splat.awk" "$data/$1" 2>&1)
	rc=$?
}
# has LINE: the report holds LINE exactly.
has() { printf '%s\n' "$out" | grep -qxF "$1" || { echo "no '$1' in: $(printf '%s' "$out" | tr '\n' '|')"; return 1; }; }

t_soft() {
	splat soft-lockup-fentry.log
	[ $rc = 0 ] && has "class soft_lockup" && has "code 119" && has "rip dax_iomap_fault+0x0/0x30" &&
		has "frames __xfs_filemap_fault+0x1e2/0x2e0 < __do_fault+0x31/0x80 < do_fault+0x299/0x410 < __handle_mm_fault+0x660/0xfa0" &&
		has "at dax_iomap_fault+0x0/0x30" && has "complete 1"
}
t_rcu() {
	splat rcu-stall-int3.log
	[ $rc = 0 ] && has "class rcu_stall" && has "code 121" && has "rip asm_exc_int3+0x0/0x40"
}
t_hard() {
	splat hard-lockup.log
	[ $rc = 0 ] && has "class hard_lockup" && has "code 120" && has "rip delay_tsc+0x4e/0xa0" &&
		has "frames splat_spin+0x3c/0x60 < splat_init+0x9d/0x1000 < do_one_initcall+0x5b/0x230"
}
t_oops_first() {
	splat oops-then-panic.log
	[ $rc = 0 ] && has "class bug" && has "code 118" && has "line BUG: kernel NULL pointer dereference, address: 0000000000000000" &&
		has "frames splat_init+0x4c/0x1000 < do_one_initcall+0x5b/0x230"
}
# 7.2's format (a real console: make check-kernels, GUEST=7.2's splat job).
t_warning_7x() {
	splat warning-7.2.log
	[ $rc = 0 ] && has "class warning" && has "code 117" && has "rip splat_init+0xc1/0xff0" &&
		has "line WARNING: splat.c:59 at splat_init+0xc1/0xff0 [splat], CPU#0: insmod/125" && has "complete 1"
}
t_warning() {
	splat warning.log
	[ $rc = 0 ] && has "class warning" && has "code 117" && has "rip dax_insert_entry+0x1a/0x300" && has "complete 1"
}
t_panic() {
	splat sysrq-panic.log
	[ $rc = 0 ] && has "class panic" && has "code 123" && has "rip " && has "at dump_stack_lvl+0x44/0x5c"
}
t_expected_panic() {
	splat sysrq-panic.log "sysrq triggered crash"
	[ $rc = 1 ] && [ -z "$out" ] || { echo "exit $rc: $out"; return 1; }
}
t_clean() {
	splat clean.log
	[ $rc = 1 ] && [ -z "$out" ] || { echo "exit $rc: $out"; return 1; }
}
t_no_table() {
	out=$(awk -v table=/nonexistent -f "$root/vm/splat.awk" "$data/clean.log" 2>&1)
	rc=$?
	[ $rc = 2 ] || { echo "exit $rc: $out"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check soft_lockup_at_fentry_site t_soft
ktap_check rcu_stall_in_int3 t_rcu
ktap_check hard_lockup t_hard
ktap_check oops_before_its_panic t_oops_first
ktap_check warning t_warning
ktap_check warning_7x_format t_warning_7x
ktap_check panic t_panic
ktap_check expected_panic_is_no_splat t_expected_panic
ktap_check clean_console t_clean
ktap_check missing_table_is_an_error t_no_table
ktap_finish
