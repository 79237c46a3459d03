/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syncorder: the events the BPF side streams to user space, one record per
 * hook hit, in the order the kernel produced them. Shared by
 * syncorder.bpf.c (vmlinux.h types) and user space (linux/types.h), so only
 * __u8.. __u64 here.
 *
 * The BPF side decides nothing: it filters (VM_SYNC write faults of regular
 * files, the tasks asked for) and snapshots kernel state at the right
 * instants. syncorder_check.c runs the state machine over the stream.
 */
#ifndef SYNCORDER_H
#define SYNCORDER_H

#include "kinds.h"	/* fault_fs, fault_size: event.fs, event.size */

#define SO_COMM_LEN		16

/* Kernel ABI values the check relies on (include/linux/mm.h, mm_types.h,
 * iomap.h, fs/xfs/xfs_log.h): stable since 4.15. */
#define SO_VM_SYNC		0x00800000ULL	/* include/linux/mm.h bit 23 */
#define SO_VM_SHARED		0x00000008ULL
#define SO_VM_FAULT_SIGBUS	0x0002
#define SO_VM_FAULT_NOPAGE	0x0100
#define SO_VM_FAULT_FALLBACK	0x0800
#define SO_VM_FAULT_NEEDDSYNC	0x2000
#define SO_FAULT_FLAG_WRITE	0x01
#define SO_IOMAP_WRITE		0x0001		/* iomap_iter flags */
#define SO_IOMAP_FAULT		0x0008
#define SO_IOMAP_F_NEW		0x0001		/* iomap->flags, 5.10+ */
#define SO_IOMAP_F_DIRTY	0x0002
#define SO_IOMAP_F_SHARED	0x0004	/* a copy-on-write (reflinked) extent */
#define SO_XFS_ILOG_TIMESTAMP	0x4000
#define SO_XFS_LOG_SYNC		0x1

enum so_ev_type {
	SO_EV_NONE,
	SO_EV_FAULT_ENTER,	/* dax_iomap_fault entry, VM_SYNC shared write */
	SO_EV_FAULT_EXIT,	/* dax_iomap_fault return */
	SO_EV_IOMAP,		/* ext4_iomap_begin / xfs_direct_write_iomap_begin return */
	SO_EV_FAULT_ITER,	/* dax_fault_iter entry: the iomap DAX acts on */
	SO_EV_INSERT,		/* a writable PTE/PMD goes into a VM_SYNC vma */
	SO_EV_SYNC_ENTER,	/* dax_finish_sync_fault entry */
	SO_EV_SYNC_EXIT,	/* dax_finish_sync_fault return */
	SO_EV_FSYNC_ENTER,	/* vfs_fsync_range inside dax_finish_sync_fault */
	SO_EV_FSYNC_EXIT,
	SO_EV_MKWRITE,		/* fs_dax:dax_insert_pfn_mkwrite(_no_entry) */
	SO_EV_HANDLER_EXIT,	/* the fs fault handler returned */
	SO_EV_JBD2_COMMIT,	/* jbd2:jbd2_end_commit (j_commit_sequence updated) */
	SO_EV_XFS_CKPT,		/* xlog_cil_committed: a CIL checkpoint is on the log */
	SO_EV_XFS_FORCE,	/* xfs_log_force_seq return inside a sync fault */
	SO_EV_DAX_ACCESS,	/* dax_direct_access returned a pfn inside a fault */
	SO_EV_LATE_CHANGE,	/* the fault changed the inode's metadata after its
				 * iomap_begin returned (xfs: iomap_end's CoW remap) */
	SO_EV_NR
};


/* fault.fs_flags */
#define SO_FSF_EXT4_FAST_COMMIT	0x1	/* s_mount_opt2 & EXT4_MOUNT2_JOURNAL_FAST_COMMIT */
#define SO_FSF_EXT4_NO_JOURNAL	0x2	/* s_journal == NULL */
#define SO_FSF_XFS_DATASYNC_SEQ	0x4	/* xfs_inode_log_item has ili_datasync_seq (6.18) */

/* insert.how */
#define SO_INS_PTE		0	/* vmf_insert_mixed_mkwrite / vmf_insert_page_mkwrite,
					 * vmf_insert_mixed with a writable vm_page_prot */
#define SO_INS_PMD		1	/* vmf_insert_pfn_pmd_prot / vmf_insert_folio_pmd / vmf_insert_pfn_pmd */
#define SO_INS_WP		2	/* finish_mkwrite_fault: a read-only PTE made writable */

struct so_fault_rec {
	__u64 address;
	__u64 vm_flags;
	__u64 i_size;
	__u32 vmf_flags;
	__u32 fs_flags;
};

/*
 * The filesystem's iomap_begin for the fault. "_entry" values are read at
 * its entry, "_exit" ones at its return.
 * ext4: seq = EXT4_I(inode)->i_datasync_tid; own = tid of the transaction of
 *       the jbd2 handle through which this task dirtied metadata inside this
 *       iomap_begin (jbd2_journal_dirty_metadata), or ~0 when it dirtied none;
 *       commit = journal->j_commit_sequence at the return.
 * xfs:  seq = i_itemp->ili_commit_seq; pin = i_pincount; own = the CIL
 *       sequence this task committed the inode into inside this iomap_begin
 *       (xfs_inode_item_committing), or ~0;
 *       fields = ili_fsync_fields (<= 6.12);
 *       dsync = ili_datasync_seq (6.18 semantics, SO_FSF_XFS_DATASYNC_SEQ).
 */
struct so_iomap_rec {
	__u64 offset;
	__u64 length;
	__u32 flags_in;		/* IOMAP_WRITE | IOMAP_FAULT | ... */
	__s32 ret;
	__u16 iomap_flags;	/* as the fs returned them */
	__u16 iomap_type;
	__u32 fs_flags;
	__u64 seq_entry, seq_exit;
	__u64 dsync_entry;
	__u64 own;
	__u64 commit;
	__u32 pin_entry, pin_exit;
	__u32 fields_entry, fields_exit;
};

struct so_iter_rec {
	__u32 iter_flags;
	__u16 iomap_flags;	/* what dax_fault_is_synchronous() will test */
	__u16 iomap_type;
	__u64 offset;
	__u64 length;
	__u64 addr;		/* iomap->addr: the device byte offset of offset */
};

/* dax_direct_access(dax_dev, pgoff, ...) of a fault: the driver's
 * translation of a device page offset to a pfn. */
struct so_dax_rec {
	__u64 dev_pgoff;
	__u64 pfn;
	__s64 nr;		/* its return: pages available from there */
};

#define SO_PFN_UNKNOWN		(~0ULL)
#define SO_PFN_MASK		((1ULL << 52) - 1)	/* pfn_t keeps its flags in the top 12 bits */
#define SO_IOMAP_NULL_ADDR	(~0ULL)

/*
 * The commit state at the instant a writable entry is installed (fentry of
 * the insert helper: the entry is not yet in the page table).
 * ext4: commit = j_commit_sequence, running = j_running_transaction->t_tid
 *       (or ~0), seq = i_datasync_tid now, log_flags = SO_LOGF_* from
 *       j_flags (a commit counts only when its record went out flushed).
 * xfs:  commit = the highest CIL sequence whose checkpoint completed (the
 *       log's state, not the inode's), running = xc_current_sequence,
 *       log_flags: ABORTED when the log is shut down, UNKNOWN when the CIL
 *       could not be read; pin = i_pincount, seq = ili_commit_seq (shown,
 *       not evidence: they are what xfs says of the inode).
 */
struct so_insert_rec {
	__u64 address;
	__u64 commit;
	__u64 running;
	__u64 seq;
	__u64 pfn;		/* the pfn going in; SO_PFN_UNKNOWN for SO_INS_WP */
	__u32 pin;
	__u8 how;		/* SO_INS_PTE / SO_INS_PMD */
	__u8 write;
	__u16 log_flags;	/* SO_LOGF_* */
};

/* insert.log_flags (ext4): why j_commit_sequence is not proof of media.
 * jbd2 writes the commit record with REQ_PREFLUSH | REQ_FUA only with
 * JBD2_BARRIER (barrier=0 clears it), and an aborted journal skips the
 * record yet still advances j_commit_sequence (fs/jbd2/commit.c). */
#define SO_LOGF_NO_FLUSH	0x1	/* !(j_flags & JBD2_BARRIER) */
#define SO_LOGF_ABORTED		0x2	/* j_flags & JBD2_ABORT; xfs: XLOG_IO_ERROR */
#define SO_LOGF_UNKNOWN		0x4	/* xfs: the CIL list could not be walked */

struct so_fsync_rec {
	__u64 start, end;
	__u32 datasync;
	__s32 ret;		/* exit only */
	__u64 commit;		/* ext4 j_commit_sequence / xfs pin count, at exit */
};

/* jbd2 commit: seq = tid; xfs checkpoint: seq = CIL sequence, aux = aborted;
 * xfs force: seq, aux = flags, ret; late change: seq = the tid / CIL
 * sequence the change went into. */
struct so_log_rec {
	__u64 seq;
	__u32 aux;
	__s32 ret;
};

struct so_event {
	__u64 ts;		/* bpf_ktime_get_ns */
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 dev;		/* kernel dev_t of the fs: major << 20 | minor */
	__u8 type;		/* enum so_ev_type */
	__u8 fs;		/* enum fault_fs */
	__u8 size;		/* enum fault_size */
	__u8 no_entry;		/* MKWRITE: the _no_entry variant */
	__u64 ino;
	__u64 pgoff;
	union {
		struct so_fault_rec fault;
		struct so_iomap_rec iomap;
		struct so_iter_rec iter;
		struct so_insert_rec insert;
		struct so_fsync_rec fsync;
		struct so_log_rec log;
		struct so_dax_rec dax;
		__s64 ret;	/* FAULT_EXIT, SYNC_EXIT, HANDLER_EXIT, MKWRITE */
	};
	char comm[SO_COMM_LEN];
};

enum so_counter {
	SO_C_EVENTS,		/* records submitted */
	SO_C_DROPS,		/* ring buffer full: records lost */
	SO_C_STATE_FULL,	/* per-task state map full */
	SO_C_FAULTS,		/* VM_SYNC shared write faults entered */
	SO_C_JOURNAL_HANDLE_MISMATCH,	/* current->journal_info not this fs's handle */
	SO_C_NR
};

#endif /* SYNCORDER_H */
