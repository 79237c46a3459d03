// SPDX-License-Identifier: GPL-2.0
/* DAX detection and the filesystem's name; see daxfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include "cli.h"
#include "daxfile.h"
#include "exitcodes.h"
#include "mapsync.h"

static bool options_contain_dax(const char *opts)
{
	char *copy = strdup(opts), *save = NULL;
	bool found = false;

	if (!copy)
		return false;
	for (char *tok = strtok_r(copy, ",", &save); tok && !found;
	     tok = strtok_r(NULL, ",", &save))
		found = strcmp(tok, "dax") == 0 || strcmp(tok, "dax=always") == 0;
	free(copy);
	return found;
}

/*
 * For kernels older than 5.8, which do not report STATX_ATTR_DAX: look for
 * a dax mount option on any mount of the file's device.
 */
static int mountinfo_says_dax(dev_t dev, bool *dax)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return errno;
	*dax = false;
	while (!*dax && getline(&line, &cap, f) > 0) {
		char *mount_opts = NULL, *super_opts = NULL;
		const char *sep = strstr(line, " - ");
		unsigned int major_nr, minor_nr;

		if (!sep || sscanf(line, "%*d %*d %u:%u %*s %*s %ms", &major_nr,
				   &minor_nr, &mount_opts) != 3)
			continue;
		if (makedev(major_nr, minor_nr) == dev) {
			if (sscanf(sep + 3, "%*s %*s %ms", &super_opts) != 1)
				super_opts = NULL;
			*dax = options_contain_dax(mount_opts) ||
			       (super_opts && options_contain_dax(super_opts));
		}
		free(mount_opts);
		free(super_opts);
	}
	free(line);
	fclose(f);
	return 0;
}

int daxfile_detect(int fd, bool *dax, const char **how)
{
	struct statx stx;
	struct stat st;

	/* stx_attributes is only meaningful where stx_attributes_mask says so. */
	if (statx(fd, "", AT_EMPTY_PATH, 0, &stx) == 0 &&
	    (stx.stx_attributes_mask & STATX_ATTR_DAX)) {
		*dax = stx.stx_attributes & STATX_ATTR_DAX;
		*how = "statx STATX_ATTR_DAX";
		return 0;
	}
	if (fstat(fd, &st))
		return errno;
	*how = "dax mount option in /proc/self/mountinfo";
	return mountinfo_says_dax(st.st_dev, dax);
}

const char *daxfile_fs_name(int fd)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} types[] = {
		{ 0xef53, "ext4" },	/* ext2/3/4 share it; only ext4 has MAP_SYNC */
		{ 0x58465342, "xfs" },
		{ 0x01021994, "tmpfs" },
		{ 0x858458f6, "ramfs" },
		{ 0x9123683e, "btrfs" },
		{ 0xf2f52010, "f2fs" },
		{ 0x794c7630, "overlayfs" },
		{ 0x6969, "nfs" },
		{ 0x65735546, "fuse" },
	};
	static char unknown[32];
	struct statfs sfs;

	if (fstatfs(fd, &sfs))
		return "unknown";
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((unsigned long)sfs.f_type == types[i].magic)
			return types[i].name;
	snprintf(unknown, sizeof(unknown), "0x%lx", (unsigned long)sfs.f_type);
	return unknown;
}

int daxfile_check(int fd, const char *path, bool no_check, bool *dax,
		  const char **fs_name)
{
	const char *how = "";
	int err = daxfile_detect(fd, dax, &how);

	*fs_name = daxfile_fs_name(fd);
	if (no_check) {
		if (err)
			*dax = false;
		cli_verbose("%s: dax=%d (%s), fs %s, check skipped", path, *dax, how, *fs_name);
		return 0;
	}
	if (err)
		return cli_fail_errno(err, "%s: cannot tell whether it is DAX", path);
	if (!*dax)
		return cli_fail(EXIT_NOT_DAX, "%s: not a DAX file (%s: no; fs %s)", path, how, *fs_name);
	cli_verbose("%s: DAX (%s), fs %s", path, how, *fs_name);
	return 0;
}
