/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exit codes shared by every tool of the MAP_SYNC test suite.
 *
 * The one table: C tools include it, shell scripts read it through
 * lib/exitcodes.sh (EXIT_* variables), the README lists it. So scripts can
 * tell "this machine cannot run the test" (3, 4, 5, 8, 9) from "the test ran
 * and something broke" (1, 6, 7, 10, 14) and from "the guest died" (117 on)
 * without parsing messages. One code, one meaning, in every tool.
 */
#ifndef SUITE_EXITCODES_H
#define SUITE_EXITCODES_H

#define EXIT_OK			0 /* success */
#define EXIT_RUNTIME		1 /* any other runtime failure */
#define EXIT_USAGE		2 /* bad flags or arguments */
#define EXIT_NOT_DAX		3 /* the target file is not on a DAX mapping */
#define EXIT_NO_MAP_SYNC	4 /* kernel does not know MAP_SHARED_VALIDATE/MAP_SYNC (EINVAL) */
#define EXIT_SYNC_REFUSED	5 /* MAP_SYNC refused for this file (EOPNOTSUPP) */
#define EXIT_NO_SPACE		6 /* ENOSPC/EDQUOT, or SIGBUS while storing to the mapping */
#define EXIT_VM_SYNC_MISMATCH	7 /* VM_SYNC ("sf" in smaps) differs from what was requested */
#define EXIT_NO_BTF		8 /* the kernel has no BTF (CONFIG_DEBUG_INFO_BTF): no CO-RE tool can run */
#define EXIT_NO_PROBE		9 /* a function the tool needs can be traced neither by fentry nor kprobe */
#define EXIT_DATA_LOST		10 /* a verifier found pages lost after a crash: a verdict, not an error */
#define EXIT_FILE_EXISTS	11 /* the target file exists and is not the tool's own: left untouched */
#define EXIT_FAULT_SIZE		12 /* the kernel did not take the fault size asked for (PMD fell back to PTE) */
#define EXIT_PARAM_MISMATCH	13 /* data written with other parameters than the verifier was given */
#define EXIT_CHECK_FAILED	14 /* a checker's verdict: a rule it checks was broken, or the check is incomplete */
#define EXIT_NOTHING_CHECKED	15 /* a checker ran and saw nothing to judge: no verdict */
#define EXIT_REGRESSION		16 /* the regression gate: a metric got worse, large and real */
#define EXIT_GATE_UNKNOWN	17 /* the regression gate: no regression, but some metric undecided (run more) */
#define EXIT_NOT_COMPARABLE	18 /* runs whose metadata make comparison meaningless: refused (--force) */
#define EXIT_BAD_INPUT		19 /* an input file is malformed (a result, samples or metadata file): refused, its file and line named */
#define EXIT_NOT_KERNEL_TREE	20 /* a folder given as a kernel source tree is none: refused */
#define EXIT_PATCH_FAILED	21 /* a patch does not apply to the kernel tree: the tree is left as it was */
#define EXIT_BUILD_FAILED	22 /* a kernel did not build: no image left behind, the log's tail shown */
#define EXIT_NOT_FIXED		23 /* patch-check: a finding the patch should fix still shows on the patched kernel */
#define EXIT_BISECT_ENDS	24 /* bisect: the GOOD revision is not good or the BAD one not bad: nothing to bisect */

/* The VM runner (vm/run.sh, vm/job.sh): how a guest run ended, when not
 * with its job's own status. The splat classes are vm/splats.txt's. */
#define EXIT_VM_WARNING		117 /* WARNING: in the guest console */
#define EXIT_VM_BUG		118 /* BUG:, Oops, general protection fault, UBSAN, KASAN */
#define EXIT_VM_SOFT_LOCKUP	119 /* watchdog: BUG: soft lockup */
#define EXIT_VM_HARD_LOCKUP	120 /* hard LOCKUP (NMI watchdog) */
#define EXIT_VM_RCU_STALL	121 /* rcu: INFO: ... detected stalls */
#define EXIT_VM_HUNG_TASK	122 /* INFO: task ... blocked for more than N seconds */
#define EXIT_VM_PANIC		123 /* Kernel panic - not syncing (not the job's own crash) */
#define EXIT_VM_WATCHDOG	124 /* the run's watchdog fired: the guest never ended */
#define EXIT_VM_NO_RESULT	125 /* the guest ended without reporting (crashed, killed from outside) */
#define EXIT_VM_SETUP		126 /* bad usage of the runner or host setup failure */

#endif /* SUITE_EXITCODES_H */
