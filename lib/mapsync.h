/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MAP_SYNC for the suite's tools: the kernel ABI values older libc headers
 * lack, and the check that a mapping carries VM_SYNC exactly when asked.
 *
 * The defines are header-only, so a tool built without the lib objects can
 * use them too; the functions (mapsync.c) report errors with cli_fail().
 */
#ifndef SUITE_MAPSYNC_H
#define SUITE_MAPSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

/*
 * Whether the mapping that starts at @map has VM_SYNC: "sf" among its
 * VmFlags in /proc/self/smaps. With @flags, the flags themselves are
 * copied there too (what follows "VmFlags:", trailing blanks cut, at most
 * @len - 1 bytes). Returns 0, or an exit code after printing the error.
 */
int mapsync_vm_sync(const void *map, bool *vm_sync, char *flags, size_t len);

/*
 * 0 if @seen (the mapping's VM_SYNC) is what was @requested, else prints
 * "<path>: VM_SYNC mismatch: ..." and returns EXIT_VM_SYNC_MISMATCH.
 */
int mapsync_expect_vm_sync(const char *path, bool requested, bool seen);

/*
 * A failed mmap of @path, one line: with @map_sync, EINVAL is a kernel
 * without MAP_SHARED_VALIDATE/MAP_SYNC (EXIT_NO_MAP_SYNC) and EOPNOTSUPP a
 * refusal (EXIT_SYNC_REFUSED); anything else is cli_fail_errno's. Returns
 * the exit code.
 */
int mapsync_fail_mmap(const char *path, bool map_sync, int err);

#endif /* SUITE_MAPSYNC_H */
