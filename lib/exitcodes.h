/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exit codes shared by every tool of the MAP_SYNC test suite.
 *
 * One place so that scripts can tell "this machine cannot run the test"
 * (3, 4, 5) apart from "the test ran and something broke" (1, 6, 7)
 * without parsing messages.
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

#endif /* SUITE_EXITCODES_H */
