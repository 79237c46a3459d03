/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xfs is a module: its types are not in vmlinux.h. Local flavours (the
 * ___xfs suffix) of what the BPF programs read, matched by CO-RE against
 * the xfs module's BTF at load (syncorder, daxlat).
 */
#ifndef PROBE_XFS_BPF_H
#define PROBE_XFS_BPF_H

struct xfs_inode___xfs;

struct xfs_log_item___xfs {
	__u64 li_lsn;
} __attribute__((preserve_access_index));

struct xfs_inode_log_item___xfs {
	struct xfs_log_item___xfs ili_item;
	struct xfs_inode___xfs *ili_inode;
	unsigned int ili_fsync_fields;	/* <= 6.12 */
	__u64 ili_commit_seq;
	__u64 ili_datasync_seq;		/* 6.18 */
} __attribute__((preserve_access_index));

struct xfs_mount___xfs;

struct xfs_inode___xfs {
	struct xfs_mount___xfs *i_mount;
	struct xfs_inode_log_item___xfs *i_itemp;
	atomic_t i_pincount;
	struct inode i_vnode;
} __attribute__((preserve_access_index));

struct xfs_cil___xfs;

struct xlog___xfs {
	struct xfs_mount___xfs *l_mp;
	struct xfs_cil___xfs *l_cilp;
	long l_opstate;
} __attribute__((preserve_access_index));

struct xfs_mount___xfs {
	struct super_block *m_super;
	struct xlog___xfs *m_log;
} __attribute__((preserve_access_index));

struct xfs_cil___xfs {
	struct xlog___xfs *xc_log;
	struct list_head xc_committing;
	__u64 xc_current_sequence;
} __attribute__((preserve_access_index));

struct xfs_cil_ctx___xfs {
	struct xfs_cil___xfs *cil;
	__u64 sequence;
	struct list_head committing;
} __attribute__((preserve_access_index));

#endif /* PROBE_XFS_BPF_H */
