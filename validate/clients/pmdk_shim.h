/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What PMDK decided, seen from inside the process that links it: this
 * object defines mmap() and msync(); the executable's definitions come first
 * for the libraries' calls too, so every mapping PMDK makes and every msync
 * of its flush path passes through here (release builds of PMDK log
 * nothing). Linked into the suite's PMDK clients (pmemobj-array, pmobjtx),
 * which also make their pools and report PMDK's failures alike through it.
 */
#ifndef SUITE_PMDK_SHIM_H
#define SUITE_PMDK_SHIM_H

#include <stdbool.h>
#include <stdint.h>

#include <libpmemobj.h>

/*
 * Set before PMDK maps the pool: an mmap asking for MAP_SYNC then fails
 * with EOPNOTSUPP, which is what a kernel or filesystem without MAP_SYNC
 * answers. PMDK falls back to plain MAP_SHARED, on the same DAX file: the
 * crash test's control (validate/crash/).
 */
extern bool pmdk_shim_refuse_map_sync;

/* msync() calls of the process so far, PMDK's included. */
unsigned long pmdk_shim_msyncs(void);

/*
 * The mapping that holds @addr: asked for with MAP_SYNC (and granted), and
 * VM_SYNC in /proc/self/smaps. Returns 0 or an exit code (the failure
 * already reported on stderr).
 */
int pmdk_shim_decision(const void *addr, const char *path, bool *map_sync, bool *vm_sync);

/*
 * What every PMDK client does to make its pool: fallocate the file it just
 * created (@fd, closed here), as pmemobj_create does for a file it creates
 * itself, then pmemobj_create on it (size 0: the file as it is). Returns 0,
 * or an exit code with the failure reported (PMDK's own message named).
 */
int pmdk_pool_create(const char *path, const char *layout, int fd, uint64_t size, PMEMobjpool **pop);

/* Report the failure of PMDK call @what on @path (pmemobj_errormsg, else
 * errno): its exit code. */
int pmdk_fail(const char *what, const char *path);

#endif /* SUITE_PMDK_SHIM_H */
