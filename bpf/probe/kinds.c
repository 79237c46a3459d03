// SPDX-License-Identifier: GPL-2.0
/* Names of the shared fault classes (kinds.h). No libbpf: the host unit
 * tests of the checkers link it alone. */
#include "kinds.h"

const char *fault_fs_name(unsigned int fs)
{
	static const char *const names[FS_NR] = {
		[FS_OTHER] = "other", [FS_EXT4] = "ext4", [FS_XFS] = "xfs",
	};

	return fs < FS_NR ? names[fs] : "other";
}

const char *fault_size_name(unsigned int size)
{
	static const char *const names[FAULT_SZ_NR] = {
		[FAULT_SZ_PTE] = "pte", [FAULT_SZ_PMD] = "pmd", [FAULT_SZ_OTHER] = "other",
	};

	return size < FAULT_SZ_NR ? names[size] : "other";
}

const char *fault_outcome_name(unsigned int outcome)
{
	static const char *const names[OC_NR] = {
		[OC_NOPAGE] = "nopage", [OC_NEEDDSYNC] = "needdsync",
		[OC_FALLBACK] = "fallback", [OC_SIGBUS] = "sigbus", [OC_OTHER] = "other",
	};

	return outcome < OC_NR ? names[outcome] : "other";
}
