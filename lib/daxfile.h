/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a file on a DAX mapping, and on which filesystem: what a tool checks
 * before it maps its target (faultlat, persistlat), so that a run on a
 * page-cache file is refused instead of measuring the wrong thing.
 *
 * DAX is read from statx's STATX_ATTR_DAX (Linux 5.8+), else from a dax
 * mount option of the file's device in /proc/self/mountinfo.
 */
#ifndef SUITE_DAXFILE_H
#define SUITE_DAXFILE_H

#include <stdbool.h>

/*
 * Sets *dax, and *how to what decided it (a static string). Returns 0 or
 * an errno.
 */
int daxfile_detect(int fd, bool *dax, const char **how);

/* "ext4", "xfs", "tmpfs", ..., or the magic in hex ("0x1234"), or "unknown". */
const char *daxfile_fs_name(int fd);

/*
 * The target check of faultlat and persistlat: sets *dax and *fs_name;
 * returns 0, or prints one line and returns EXIT_NOT_DAX (or the errno's
 * exit code when DAX cannot be told) unless @no_check, which only reports
 * with -v.
 */
int daxfile_check(int fd, const char *path, bool no_check, bool *dax,
		  const char **fs_name);

#endif /* SUITE_DAXFILE_H */
