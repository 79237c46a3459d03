// SPDX-License-Identifier: GPL-2.0
/* MAP_SYNC helpers: VM_SYNC from /proc/self/smaps; see mapsync.h. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exitcodes.h"
#include "mapsync.h"

int mapsync_vm_sync(const void *map, bool *vm_sync, char *flags, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char *line = NULL;
	size_t cap = 0;
	bool in_vma = false, found = false;

	if (!f)
		return cli_fail_errno(errno, "open /proc/self/smaps");
	while (!found && getline(&line, &cap, f) > 0) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in_vma = start == (uintptr_t)map;
			continue;
		}
		if (!in_vma || strncmp(line, "VmFlags:", 8) != 0)
			continue;
		for (size_t n = strlen(line); n && isspace((unsigned char)line[n - 1]); n--)
			line[n - 1] = '\0';
		if (flags && len)
			snprintf(flags, len, "%s", line + 8);
		*vm_sync = false;
		for (char *save = NULL, *tok = strtok_r(line + 8, " ", &save);
		     tok; tok = strtok_r(NULL, " ", &save))
			if (strcmp(tok, "sf") == 0)
				*vm_sync = true;
		found = true;
	}
	free(line);
	fclose(f);
	if (!found)
		return cli_fail(EXIT_RUNTIME, "/proc/self/smaps: no VmFlags for the mapping at %p",
				map);
	return 0;
}

int mapsync_expect_vm_sync(const char *path, bool requested, bool seen)
{
	if (seen == requested)
		return 0;
	return cli_fail(EXIT_VM_SYNC_MISMATCH,
			"%s: VM_SYNC mismatch: %s requested, smaps VmFlags %s 'sf'",
			path, requested ? "MAP_SYNC" : "no MAP_SYNC",
			seen ? "contain" : "lack");
}

int mapsync_fail_mmap(const char *path, bool map_sync, int err)
{
	if (map_sync && err == EINVAL)
		return cli_fail(EXIT_NO_MAP_SYNC,
				"mmap MAP_SHARED_VALIDATE|MAP_SYNC %s: EINVAL: the kernel does not know MAP_SHARED_VALIDATE/MAP_SYNC (needs Linux 4.15+)",
				path);
	if (map_sync && err == EOPNOTSUPP)
		return cli_fail(EXIT_SYNC_REFUSED,
				"mmap MAP_SHARED_VALIDATE|MAP_SYNC %s: EOPNOTSUPP: MAP_SYNC refused (not a DAX file on synchronous persistent memory)",
				path);
	return cli_fail_errno(err, "mmap %s", path);
}
