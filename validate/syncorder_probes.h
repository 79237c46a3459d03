/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What syncorder traces, in attach order: the tracepoints, then the exits
 * of the outer functions before anything inside them (an entry seen
 * without its exit would leave a fault half tracked). bpf/probe/hooks.c
 * says where each hook is in a given kernel. Read by syncorder.c and by
 * tests/unit/test_probe.c, which checks syncorder.bpf.c has the programs of
 * every candidate.
 */
#ifndef SYNCORDER_PROBES_H
#define SYNCORDER_PROBES_H

#include "probe.h"

#define BOTH	(PROBE_ENTRY | PROBE_EXIT)

/* xfs types the programs read with CO-RE from the module's BTF. */
#define XFS_IOMAP_FIELDS "xfs_inode.i_itemp xfs_inode.i_pincount xfs_inode.i_vnode " \
			 "xfs_inode_log_item.ili_commit_seq"
#define XFS_CKPT_FIELDS	 "xfs_cil_ctx.cil xfs_cil_ctx.sequence xfs_cil.xc_log " \
			 "xlog.l_mp xlog.l_opstate xfs_mount.m_super " \
			 "xfs_inode.i_mount xfs_mount.m_log xlog.l_cilp xfs_cil.xc_committing " \
			 "xfs_cil.xc_current_sequence xfs_cil_ctx.committing"
#define XFS_COMMITTING_FIELDS "xfs_inode_log_item.ili_item xfs_inode_log_item.ili_inode"

static const struct probe_use syncorder_uses[] = {
	{ HOOK_MKWRITE, PROBE_REQUIRED, 0, NULL, HOOK_NONE },
	{ HOOK_MKWRITE_NO_ENTRY, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_JBD2_END, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_FS_HANDLER, PROBE_OPTIONAL, PROBE_EXIT, NULL, HOOK_NONE },
	{ HOOK_FAULT, PROBE_REQUIRED, BOTH, NULL, HOOK_NONE },
	{ HOOK_SYNC, PROBE_REQUIRED, BOTH, NULL, HOOK_NONE },
	{ HOOK_FSYNC, PROBE_REQUIRED, BOTH, NULL, HOOK_NONE },
	{ HOOK_EXT4_IOMAP, PROBE_IF_PRESENT, BOTH, NULL, HOOK_NONE },
	{ HOOK_XFS_IOMAP, PROBE_IF_PRESENT, BOTH, XFS_IOMAP_FIELDS, HOOK_NONE },
	{ HOOK_FAULT_ITER, PROBE_OPTIONAL, PROBE_ENTRY, NULL, HOOK_NONE },
	{ HOOK_DAX_ACCESS, PROBE_REQUIRED, BOTH, NULL, HOOK_NONE },
	{ HOOK_XFS_LOG_FORCE, PROBE_OPTIONAL, BOTH, NULL, HOOK_XFS_IOMAP },
	{ HOOK_XFS_CKPT, PROBE_REQUIRED, PROBE_ENTRY, XFS_CKPT_FIELDS, HOOK_XFS_IOMAP },
	{ HOOK_XFS_COMMITTING, PROBE_REQUIRED, PROBE_ENTRY, XFS_COMMITTING_FIELDS, HOOK_XFS_IOMAP },
	{ HOOK_JBD2_DIRTY, PROBE_REQUIRED, PROBE_ENTRY, NULL, HOOK_EXT4_IOMAP },
	{ HOOK_WP_REUSE, PROBE_REQUIRED, PROBE_ENTRY, NULL, HOOK_NONE },
	{ HOOK_INSERT_PTE, PROBE_REQUIRED, PROBE_ENTRY, NULL, HOOK_NONE },
	{ HOOK_INSERT_PMD, PROBE_IF_PRESENT, PROBE_ENTRY, NULL, HOOK_NONE },
};

#undef BOTH

#endif /* SYNCORDER_PROBES_H */
