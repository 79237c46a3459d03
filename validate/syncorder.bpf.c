// SPDX-License-Identifier: GPL-2.0
/*
 * syncorder: record, for every write fault on a MAP_SYNC (VM_SYNC) mapping of
 * an ext4 or xfs DAX file, the events that decide whether a writable page
 * table entry can reach a block whose mapping metadata is not yet durable.
 * The kernel state that the decision needs (jbd2 commit sequence, the
 * inode's datasync tid, the xfs inode's pin count and CIL sequence) is read
 * here, at the instant it matters; user space (syncorder_check.c) runs the
 * state machine over the stream.
 *
 * Every function hook comes as fentry/fexit and as kprobe/kretprobe; user
 * space picks per hook at run time. Exit handlers only take the return
 * value: what they need from the call's arguments was saved at entry in the
 * task's state, so both flavours share the code (the macros of
 * common.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "syncorder.h"

#define MAX_TASKS	16384
#define TGIDS_MAX	MAX_TASKS
#include "common.bpf.h"


#define S_IFMT		00170000
#define S_IFREG		0100000

#include "xfs.bpf.h"

#define XLOG_IO_ERROR	2	/* fs/xfs/xfs_log_priv.h: l_opstate bit */
#define EXT4_MOUNT2_JOURNAL_FAST_COMMIT 0x10

/* Set by user space before load (and common.bpf.h's). */
const volatile bool have_xfs = false;		/* xfs BTF present at load */

__u64 counters[SO_C_NR];

/* The traced calls a task can be inside: task_state.in[] */
enum {
	IN_FAULT,	/* a traced dax_iomap_fault */
	IN_SYNC,	/* dax_finish_sync_fault */
	IN_IOMAP,	/* the fs iomap_begin of a traced fault */
	IN_FSYNC,	/* vfs_fsync_range inside dax_finish_sync_fault */
	IN_FORCE,	/* xfs_log_force_seq inside that fsync */
	IN_DAX_ACCESS,	/* dax_direct_access of a traced fault, asked for a pfn */
	IN_NR
};

/* Per task: where it is in the fault path, and what an exit handler
 * needs from the entry. */
struct task_state {
	__u8 in[IN_NR];
	__u8 handler_pending;	/* a traced fault ran since the handler's entry */
	__u8 fs;
	__u8 size;
	__u32 dev;
	__u64 ino;
	__u64 pgoff;
	/* iomap_begin entry */
	struct inode *iomap_inode;
	struct iomap *iomap;
	__u64 offset, length;
	__u32 flags_in;
	__u32 pin_entry, fields_entry;
	__u64 seq_entry, dsync_entry;
	/* vfs_fsync_range entry */
	struct inode *fsync_inode;
	__u64 fsync_start, fsync_end;
	__u32 fsync_datasync;
	/* xfs: CIL sequence of the transaction this task committed on the
	 * faulting inode inside iomap_begin (xfs_inode_item_committing) */
	__u64 own_seq;
	__u8 has_own_seq;
	/* xfs_log_force_seq entry */
	__u64 force_seq;
	__u32 force_flags;
	/* dax_direct_access entry */
	__u64 dax_pgoff;
	__u64 *dax_pfnp;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_TASKS);
	__type(key, __u32);
	__type(value, struct task_state);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);	/* WAKE_BYTES is a sixteenth of it */
} events SEC(".maps");

static const struct task_state zero_state;

static __always_inline void count(enum so_counter c)
{
	__sync_fetch_and_add(&counters[c], 1);
}

static __always_inline __u32 cur_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

static __always_inline struct task_state *task_get(void)
{
	__u32 tid = cur_tid();

	return bpf_map_lookup_elem(&tasks, &tid);
}

static __always_inline struct task_state *task_get_or_create(void)
{
	__u32 tid = cur_tid();
	struct task_state *st = bpf_map_lookup_elem(&tasks, &tid);

	if (st)
		return st;
	if (bpf_map_update_elem(&tasks, &tid, &zero_state, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&tasks, &tid)) {
		count(SO_C_STATE_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&tasks, &tid);
}

static __always_inline struct so_event *ev_reserve(__u8 type)
{
	struct so_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	__u64 id;

	if (!e) {
		count(SO_C_DROPS);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	id = bpf_get_current_pid_tgid();
	e->ts = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->type = type;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/*
 * The checker is woken only once this much waits in the ring (a sixteenth
 * of it); it drains the rest when the command or process ends, at -d or a
 * stop signal. A wake-up per record cost more than the record: a
 * synchronous ext4 fault sends 13, and waking at each (the ring's
 * default) cost 29,000 guest instructions a fault on average (6.1, icount:
 * mean 4300 -> 3840 us, median 4252 -> 3218 us; bare 2855 us).
 */
#define WAKE_BYTES	((4 << 20) / 16)

static __always_inline void ev_submit(struct so_event *e)
{
	bpf_ringbuf_submit(e, bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= WAKE_BYTES ?
			      BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	count(SO_C_EVENTS);
}

/* A record of @type about the task's fault (@st), or NULL. */
static __always_inline struct so_event *ev_task(__u8 type,
						const struct task_state *st)
{
	struct so_event *e = ev_reserve(type);

	if (e) {
		e->fs = st->fs;
		e->size = st->size;
		e->dev = st->dev;
		e->ino = st->ino;
		e->pgoff = st->pgoff;
	}
	return e;
}

/*
 * The task (@st, or NULL) returns from a call it was traced inside (@in,
 * an IN_*), which it leaves: a record of @type about its fault. NULL when
 * it was not inside, or the ring buffer is full.
 */
static __always_inline struct so_event *ev_return(struct task_state *st,
						  int in, __u8 type)
{
	if (!st || !st->in[in])
		return NULL;
	st->in[in] = 0;
	return ev_task(type, st);
}

/* Submit @e, if any, with the call's return value as its payload. */
static __always_inline int ev_submit_ret(struct so_event *e, __s64 ret)
{
	if (e) {
		e->ret = (__u32)ret;
		ev_submit(e);
	}
	return 0;
}

/* The return of a call (@in, an IN_*) whose record is its value alone. */
static __always_inline int ret_exit(int in, __u8 type, __s64 ret)
{
	return ev_submit_ret(ev_return(task_get(), in, type), ret);
}

/* A record of @type about device @dev (of filesystem @fs), when traced
 * faults touched it: commits and checkpoints run in other tasks. */
static __always_inline struct so_event *ev_dev(__u8 type, __u8 fs, __u32 dev)
{
	struct so_event *e;

	if (!bpf_map_lookup_elem(&devs, &dev))
		return NULL;
	e = ev_reserve(type);
	if (e) {
		e->fs = fs;
		e->dev = dev;
	}
	return e;
}

static __always_inline __u8 fs_of(struct inode *inode)
{
	return fs_of_inode(inode);
}

/* A VM_SYNC shared mapping of a regular file: the only place MAP_SYNC
 * semantics apply (device-dax and private mappings are filtered out). */
static __always_inline bool sync_vma(struct vm_area_struct *vma,
				     struct inode **inodep)
{
	__u64 vm_flags = BPF_CORE_READ(vma, vm_flags);
	struct inode *inode;
	umode_t mode;

	if (!(vm_flags & SO_VM_SYNC) || !(vm_flags & SO_VM_SHARED))
		return false;
	inode = BPF_CORE_READ(vma, vm_file, f_inode);
	if (!inode)
		return false;
	mode = BPF_CORE_READ(inode, i_mode);
	if ((mode & S_IFMT) != S_IFREG)
		return false;
	*inodep = inode;
	return true;
}

/* The task's state (created if need be) for its fault @vmf on @inode, with
 * the fault's identity; NULL when the state map is full. */
static __always_inline struct task_state *task_start(struct vm_fault *vmf,
						     __u64 size_arg,
						     struct inode *inode)
{
	struct task_state *st = task_get_or_create();

	if (!st)
		return NULL;
	st->fs = fs_of(inode);
	st->size = size_class(size_arg);
	st->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	st->ino = BPF_CORE_READ(inode, i_ino);
	st->pgoff = BPF_CORE_READ(vmf, pgoff);
	st->iomap_inode = NULL;		/* set by this fault's iomap_begin */
	return st;
}

/* ---- ext4 and jbd2 state ------------------------------------------------ */

static __always_inline struct ext4_inode_info *EXT4_I(struct inode *inode)
{
	return (void *)inode - bpf_core_field_offset(struct ext4_inode_info, vfs_inode);
}

static __always_inline journal_t *ext4_journal(struct inode *inode)
{
	struct ext4_sb_info *sbi = BPF_CORE_READ(inode, i_sb, s_fs_info);

	return BPF_CORE_READ(sbi, s_journal);
}

static __always_inline __u32 ext4_fs_flags(struct inode *inode)
{
	struct ext4_sb_info *sbi = BPF_CORE_READ(inode, i_sb, s_fs_info);
	__u32 f = 0;

	if (!BPF_CORE_READ(sbi, s_journal))
		f |= SO_FSF_EXT4_NO_JOURNAL;
	if (BPF_CORE_READ(sbi, s_mount_opt2) & EXT4_MOUNT2_JOURNAL_FAST_COMMIT)
		f |= SO_FSF_EXT4_FAST_COMMIT;
	return f;
}

static __always_inline __u64 ext4_datasync_tid(struct inode *inode)
{
	return BPF_CORE_READ(EXT4_I(inode), i_datasync_tid);
}

static __always_inline __u64 jbd2_commit_seq(journal_t *j)
{
	return j ? BPF_CORE_READ(j, j_commit_sequence) : 0;
}

/* jbd2.h's j_flags bits: #defines, not in BTF; the same from 6.1 to 7.2. */
#define JBD2_ABORT___so		0x002
#define JBD2_BARRIER___so	0x020

static __always_inline __u16 jbd2_log_flags(journal_t *j)
{
	unsigned long f = j ? BPF_CORE_READ(j, j_flags) : 0;

	return (f & JBD2_BARRIER___so ? 0 : SO_LOGF_NO_FLUSH) | (f & JBD2_ABORT___so ? SO_LOGF_ABORTED : 0);
}

static __always_inline __u64 jbd2_running_tid(journal_t *j)
{
	transaction_t *t = j ? BPF_CORE_READ(j, j_running_transaction) : NULL;

	return t ? BPF_CORE_READ(t, t_tid) : ~0ULL;
}

/*
 * The fault's task changed its inode's metadata in transaction / CIL
 * sequence @seq: inside iomap_begin that is the fault's own change (the
 * iomap record carries it); after iomap_begin returned, still inside the
 * fault (xfs's iomap_end remaps a CoW block into the file), a record of its
 * own, which the checker holds against entries already in place.
 */
static __always_inline int own_change(struct task_state *st, __u64 seq)
{
	struct so_event *e;

	if (st->in[IN_IOMAP]) {
		st->own_seq = seq;
		st->has_own_seq = 1;
		return 0;
	}
	e = ev_task(SO_EV_LATE_CHANGE, st);
	if (e) {
		e->log.seq = seq;
		ev_submit(e);
	}
	return 0;
}

/*
 * jbd2_journal_dirty_metadata(handle, bh): a metadata buffer joins the
 * handle's transaction. Inside the fault's ext4_iomap_begin, in this task,
 * that is the fault changing the block mapping (allocation, unwritten
 * conversion: ext4_iomap_alloc's handle nests in ext4_dax_huge_fault's),
 * whatever iomap flags ext4 then reports: the fault's own transaction;
 * later in the fault, a late change (own_change).
 */
static __always_inline int jbd2_dirty_entry(handle_t *h)
{
	struct task_state *st = task_get();
	transaction_t *t;

	if (!st || !st->in[IN_FAULT] || st->fs != FS_EXT4 || !st->iomap_inode || !h)
		return 0;
	t = BPF_CORE_READ(h, h_transaction);
	if (!t || BPF_CORE_READ(t, t_journal) != ext4_journal(st->iomap_inode)) {
		count(SO_C_JOURNAL_HANDLE_MISMATCH);
		return 0;
	}
	return own_change(st, BPF_CORE_READ(t, t_tid));
}

HOOK_ENTRY(jbd2_dirty, jbd2_dirty_entry(h), handle_t *h)

/* ---- xfs state ------------------------------------------------------------ */

static __always_inline struct xfs_inode___xfs *XFS_I(struct inode *inode)
{
	return (void *)inode - bpf_core_field_offset(struct xfs_inode___xfs, i_vnode);
}

struct xfs_snap {
	__u64 seq;
	__u64 dsync;
	__u32 pin;
	__u32 fields;
};

static __always_inline void xfs_snapshot(struct inode *inode, struct xfs_snap *s)
{
	struct xfs_inode___xfs *ip;
	struct xfs_inode_log_item___xfs *iip;

	if (!have_xfs)
		return;
	ip = XFS_I(inode);
	s->pin = BPF_CORE_READ(ip, i_pincount.counter);
	iip = BPF_CORE_READ(ip, i_itemp);
	if (!iip)
		return;
	s->seq = BPF_CORE_READ(iip, ili_commit_seq);
	if (bpf_core_field_exists(iip->ili_fsync_fields))
		s->fields = BPF_CORE_READ(iip, ili_fsync_fields);
	if (bpf_core_field_exists(iip->ili_datasync_seq))
		s->dsync = BPF_CORE_READ(iip, ili_datasync_seq);
}

/*
 * The log's own commit state at this instant, as ext4's j_commit_sequence
 * is the journal's: every CIL sequence below the lowest one still on
 * xc_committing (pushed, checkpoint not yet completed) and below
 * xc_current_sequence (the open context) has completed its checkpoint.
 * xlog_cil_push_work puts a context on the list before it bumps
 * xc_current_sequence, and xlog_cil_committed takes it off only after the
 * iclog holding its commit record is written and its items unpinned; so
 * reading the current sequence first, then walking the list, can only
 * find a context that completed meanwhile missing, never an incomplete one.
 * The walk is lockless (xc_push_lock is not ours to take): a read that
 * fails, or a list longer than the walk, leaves the state unknown, which
 * proves nothing. A shut-down log proves nothing either.
 */
#define XFS_CIL_WALK_MAX	16

static __always_inline void xfs_log_state(struct inode *inode, struct so_insert_rec *r)
{
	struct xlog___xfs *log;
	struct xfs_cil___xfs *cil;
	__u64 ctx_off;
	void *head, *node = NULL;
	__u64 cur, low;
	int i;

	/* Without xfs's BTF (xfs.ko not loaded) its relocations fail: the
	 * frozen have_xfs lets the verifier drop this body. */
	if (!have_xfs)
		goto unknown;
	log = BPF_CORE_READ(XFS_I(inode), i_mount, m_log);
	cil = BPF_CORE_READ(log, l_cilp);
	ctx_off = bpf_core_field_offset(struct xfs_cil_ctx___xfs, committing);
	if (!cil)
		goto unknown;
	cur = BPF_CORE_READ(cil, xc_current_sequence);
	low = cur;
	head = (void *)cil + bpf_core_field_offset(struct xfs_cil___xfs, xc_committing);
	if (bpf_probe_read_kernel(&node, sizeof(node), head))
		goto unknown;
	for (i = 0; i < XFS_CIL_WALK_MAX && node != head; i++) {
		__u64 seq;

		if (bpf_core_read(&seq, sizeof(seq), &((struct xfs_cil_ctx___xfs *)(node - ctx_off))->sequence) ||
		    bpf_probe_read_kernel(&node, sizeof(node), node))
			goto unknown;
		if (seq < low)
			low = seq;
	}
	if (node != head)
		goto unknown;
	r->commit = low - 1;
	r->running = cur;
	if (BPF_CORE_READ(log, l_opstate) & (1 << XLOG_IO_ERROR))
		r->log_flags |= SO_LOGF_ABORTED;
	return;
unknown:
	r->log_flags |= SO_LOGF_UNKNOWN;
}

static __always_inline __u32 xfs_fs_flags(void)
{
	struct xfs_inode_log_item___xfs *iip = NULL;

	if (have_xfs && bpf_core_field_exists(iip->ili_datasync_seq))
		return SO_FSF_XFS_DATASYNC_SEQ;
	return 0;
}

/* ---- dax_iomap_fault -------------------------------------------------- */

static __always_inline int fault_entry(struct vm_fault *vmf, __u64 size_arg)
{
	struct vm_area_struct *vma = BPF_CORE_READ(vmf, vma);
	struct inode *inode = NULL;
	struct task_state *st;
	struct so_event *e;
	__u32 vmf_flags = BPF_CORE_READ(vmf, flags);

	if (!(vmf_flags & SO_FAULT_FLAG_WRITE) || !sync_vma(vma, &inode) || !traced())
		return 0;
	st = task_start(vmf, size_arg, inode);
	if (!st)
		return 0;
	count(SO_C_FAULTS);
	st->in[IN_FAULT] = 1;
	st->in[IN_IOMAP] = 0;
	st->handler_pending = 1;
	bpf_map_update_elem(&devs, &st->dev, &one, BPF_ANY);

	e = ev_task(SO_EV_FAULT_ENTER, st);
	if (!e)
		return 0;
	e->fault.address = BPF_CORE_READ(vmf, address);
	e->fault.vm_flags = BPF_CORE_READ(vma, vm_flags);
	e->fault.vmf_flags = vmf_flags;
	e->fault.i_size = BPF_CORE_READ(inode, i_size);
	if (st->fs == FS_EXT4)
		e->fault.fs_flags = ext4_fs_flags(inode);
	else if (st->fs == FS_XFS)
		e->fault.fs_flags = xfs_fs_flags();
	ev_submit(e);
	return 0;
}

HOOK(fault, fault_entry(vmf, size_arg),
     ret_exit(IN_FAULT, SO_EV_FAULT_EXIT, ret),
     struct vm_fault *vmf, unsigned long size_arg)

/* ---- dax_fault_iter: the iomap flags dax_fault_is_synchronous() tests ---- */

static __always_inline int iter_entry(struct iomap_iter *iter)
{
	struct task_state *st = task_get();
	struct so_event *e;

	if (!st || !st->in[IN_FAULT])
		return 0;
	e = ev_task(SO_EV_FAULT_ITER, st);
	if (!e)
		return 0;
	e->iter.iter_flags = BPF_CORE_READ(iter, flags);
	e->iter.iomap_flags = BPF_CORE_READ(iter, iomap.flags);
	e->iter.iomap_type = BPF_CORE_READ(iter, iomap.type);
	e->iter.offset = BPF_CORE_READ(iter, iomap.offset);
	e->iter.length = BPF_CORE_READ(iter, iomap.length);
	e->iter.addr = BPF_CORE_READ(iter, iomap.addr);
	ev_submit(e);
	return 0;
}

HOOK_ENTRY(fault_iter, iter_entry(iter), struct vm_fault *vmf, struct iomap_iter *iter)

/* ---- dax_direct_access: the driver's device page offset -> pfn ---------- */

/* A pfn_t (<= 6.12) or a plain pfn (later): 8 bytes, flags above bit 52. */
static __always_inline __u64 pfn_of(__u64 pfn)
{
	return pfn & SO_PFN_MASK;
}

/*
 * (dax_dev, pgoff, nr_pages, mode, kaddr, pfn): the fault asks the driver
 * where device page @pgoff is; the pfn comes back through @pfn, a pfn_t *
 * (<= 6.12) or an unsigned long * (later), 8 bytes either way. Reads and
 * CoW copies pass no @pfn and are not recorded.
 */
#define PT_REGS_PARM6_X86(ctx)	(((struct pt_regs *)(ctx))->r9)

static __always_inline int dax_access_entry(__u64 pgoff, __u64 *pfnp)
{
	struct task_state *st = task_get();

	if (!st || !st->in[IN_FAULT] || !pfnp)
		return 0;
	st->in[IN_DAX_ACCESS] = 1;
	st->dax_pgoff = pgoff;
	st->dax_pfnp = pfnp;
	return 0;
}

static __always_inline int dax_access_exit(__s64 ret)
{
	struct task_state *st = task_get();
	struct so_event *e;
	__u64 pfn = 0;

	if (!st || !st->in[IN_DAX_ACCESS])
		return 0;
	st->in[IN_DAX_ACCESS] = 0;
	if (ret <= 0 || bpf_probe_read_kernel(&pfn, sizeof(pfn), st->dax_pfnp))
		return 0;
	e = ev_task(SO_EV_DAX_ACCESS, st);
	if (!e)
		return 0;
	e->dax.dev_pgoff = st->dax_pgoff;
	e->dax.pfn = pfn_of(pfn);
	e->dax.nr = ret;
	ev_submit(e);
	return 0;
}

/* By hand, not HOOK(): libbpf's BPF_KPROBE stops at five arguments before
 * 1.2; the sixth is in r9 (x86-64). */
SEC("fentry")
int BPF_PROG(fentry_dax_access, void *dax_dev, __u64 pgoff, long nr_pages, int mode,
	     void **kaddr, __u64 *pfnp)
{
	return dax_access_entry(pgoff, pfnp);
}

SEC("kprobe")
int BPF_KPROBE(kprobe_dax_access, void *dax_dev, __u64 pgoff)
{
	return dax_access_entry(pgoff, (__u64 *)PT_REGS_PARM6_X86(ctx));
}

HOOK_EXIT(dax_access, dax_access_exit(ret))

/* ---- the filesystem's iomap_begin ------------------------------------- */

static __always_inline int iomap_entry(struct inode *inode, __u64 offset,
				       __u64 length, __u32 flags,
				       struct iomap *iomap, __u8 fs)
{
	struct task_state *st = task_get();
	struct xfs_snap xs = {};

	if (!st || !st->in[IN_FAULT])
		return 0;
	st->in[IN_IOMAP] = 1;
	st->iomap_inode = inode;
	st->iomap = iomap;
	st->offset = offset;
	st->length = length;
	st->flags_in = flags;
	st->pin_entry = st->fields_entry = 0;
	st->dsync_entry = 0;
	st->has_own_seq = 0;
	if (fs == FS_EXT4) {
		st->seq_entry = ext4_datasync_tid(inode);
	} else {
		xfs_snapshot(inode, &xs);
		st->seq_entry = xs.seq;
		st->dsync_entry = xs.dsync;
		st->pin_entry = xs.pin;
		st->fields_entry = xs.fields;
	}
	return 0;
}

static __always_inline int iomap_exit(__s64 ret, __u8 fs)
{
	struct task_state *st = task_get();
	struct inode *inode;
	struct iomap *iomap;
	struct so_event *e;
	struct xfs_snap xs = {};

	e = ev_return(st, IN_IOMAP, SO_EV_IOMAP);
	if (!e)
		return 0;
	inode = st->iomap_inode;
	e->iomap.offset = st->offset;
	e->iomap.length = st->length;
	e->iomap.flags_in = st->flags_in;
	e->iomap.ret = (__s32)ret;
	iomap = st->iomap;
	e->iomap.iomap_flags = BPF_CORE_READ(iomap, flags);
	e->iomap.iomap_type = BPF_CORE_READ(iomap, type);
	e->iomap.seq_entry = st->seq_entry;
	e->iomap.dsync_entry = st->dsync_entry;
	e->iomap.pin_entry = st->pin_entry;
	e->iomap.fields_entry = st->fields_entry;
	if (fs == FS_EXT4) {
		journal_t *j = ext4_journal(inode);

		e->iomap.fs_flags = ext4_fs_flags(inode);
		e->iomap.seq_exit = ext4_datasync_tid(inode);
		e->iomap.commit = jbd2_commit_seq(j);
	} else {
		xfs_snapshot(inode, &xs);
		e->iomap.fs_flags = xfs_fs_flags();
		e->iomap.seq_exit = xs.seq;
		e->iomap.pin_exit = xs.pin;
		e->iomap.fields_exit = xs.fields;
	}
	e->iomap.own = st->has_own_seq ? st->own_seq : ~0ULL;
	ev_submit(e);
	return 0;
}

HOOK(ext4_iomap, iomap_entry(inode, offset, length, flags, iomap, FS_EXT4),
     iomap_exit((int)ret, FS_EXT4), struct inode *inode, loff_t offset,
     loff_t length, unsigned int flags, struct iomap *iomap)

HOOK(xfs_iomap, iomap_entry(inode, offset, length, flags, iomap, FS_XFS),
     iomap_exit((int)ret, FS_XFS), struct inode *inode, loff_t offset,
     loff_t length, unsigned int flags, struct iomap *iomap)

/*
 * xfs_inode_item_committing(lip, seq): the inode item of a transaction goes
 * into CIL sequence seq. Inside the fault's iomap_begin, for the faulting
 * inode, that is the transaction of this fault's own allocation
 * (xfs_iomap_write_direct), the xfs counterpart of ext4's handle tid.
 */
static __always_inline int committing_entry(void *lip, __u64 seq)
{
	struct task_state *st = task_get();
	struct xfs_inode_log_item___xfs *iip;
	struct xfs_inode___xfs *ip;

	if (!have_xfs || !st || !st->in[IN_FAULT] || st->fs != FS_XFS || !st->iomap_inode)
		return 0;
	/* INODE_ITEM(lip) */
	iip = lip - bpf_core_field_offset(struct xfs_inode_log_item___xfs, ili_item);
	ip = BPF_CORE_READ(iip, ili_inode);
	if ((void *)ip + bpf_core_field_offset(struct xfs_inode___xfs, i_vnode) !=
	    (void *)st->iomap_inode)
		return 0;
	return own_change(st, seq);
}

HOOK_ENTRY(xfs_committing, committing_entry(lip, seq), void *lip, __u64 seq)

/* ---- writable insertions ------------------------------------------------ */

#define X86_PAGE_RW	0x2	/* _PAGE_RW: a pgprot that maps writable */

/*
 * fentry of the helper that puts the entry in place: the commit state read
 * here is the state before the entry exists. Emitted for every writable
 * VM_SYNC insertion of a traced task, inside a tracked fault or not: the
 * helper was asked for a writable entry, or the vma's vm_page_prot is
 * writable itself (write-notify should have taken _PAGE_RW out of it; if
 * not, even a read fault's entry is writable).
 */
static __always_inline int insert_entry(struct vm_area_struct *vma,
					__u64 address, __u64 pgoff, bool write,
					__u8 how, __u64 pfn)
{
	struct inode *inode = NULL;
	struct so_event *e;
	__u8 fs;

	if (!sync_vma(vma, &inode) || !traced())
		return 0;
	if (!write && !(BPF_CORE_READ(vma, vm_page_prot.pgprot) & X86_PAGE_RW))
		return 0;
	fs = fs_of(inode);
	e = ev_reserve(SO_EV_INSERT);
	if (!e)
		return 0;
	e->fs = fs;
	e->size = how == SO_INS_PMD ? FAULT_SZ_PMD : FAULT_SZ_PTE;
	e->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	e->ino = BPF_CORE_READ(inode, i_ino);
	e->pgoff = pgoff;
	e->insert.address = address;
	e->insert.how = how;
	e->insert.write = write;
	e->insert.pfn = pfn;
	if (fs == FS_EXT4) {
		journal_t *j = ext4_journal(inode);

		e->insert.commit = jbd2_commit_seq(j);
		e->insert.running = jbd2_running_tid(j);
		e->insert.seq = ext4_datasync_tid(inode);
		e->insert.log_flags = jbd2_log_flags(j);
	} else if (fs == FS_XFS) {
		struct xfs_snap xs = {};

		xfs_snapshot(inode, &xs);
		e->insert.pin = xs.pin;
		e->insert.seq = xs.seq;
		xfs_log_state(inode, &e->insert);
	}
	ev_submit(e);
	return 0;
}

static __always_inline __u64 vma_pgoff(struct vm_area_struct *vma, __u64 address)
{
	return BPF_CORE_READ(vma, vm_pgoff) +
	       ((address - BPF_CORE_READ(vma, vm_start)) >> 12);
}

/* The start of the memmap, where KASLR moved it; the fixed default when the
 * kernel has no such variable (no DYNAMIC_MEMORY_LAYOUT). */
extern const void vmemmap_base __ksym __weak;
#define X86_VMEMMAP_DEFAULT	0xffffea0000000000ULL

/* page_to_pfn for a page or folio pointer (6.18 hands those in). */
static __always_inline __u64 page_pfn(const void *page)
{
	__u64 base = X86_VMEMMAP_DEFAULT;

	if (&vmemmap_base)
		bpf_probe_read_kernel(&base, sizeof(base), &vmemmap_base);
	return ((__u64)page - base) / bpf_core_type_size(struct page);
}

/* vmf_insert_mixed_mkwrite(vma, addr, pfn): PTE, always writable (<= 6.12) */
static __always_inline int insert_vma(struct vm_area_struct *vma, __u64 addr, __u64 pfn)
{
	return insert_entry(vma, addr, vma_pgoff(vma, addr), true, SO_INS_PTE, pfn_of(pfn));
}

/* vmf_insert_page_mkwrite / vmf_insert_folio_pmd / vmf_insert_pfn_pmd /
 * vmf_insert_pfn_pmd_prot: the vmf, and a write flag. */
static __always_inline int insert_vmf(struct vm_fault *vmf, bool write, __u8 how, __u64 pfn)
{
	return insert_entry(BPF_CORE_READ(vmf, vma), BPF_CORE_READ(vmf, address),
			    BPF_CORE_READ(vmf, pgoff), write, how, pfn);
}

HOOK_ENTRY(insert_pte_mixed, insert_vma(vma, addr, pfn), struct vm_area_struct *vma,
	   unsigned long addr, __u64 pfn)

/* vmf_insert_mixed(vma, addr, pfn): read-only unless vm_page_prot says
 * otherwise */
HOOK_ENTRY(insert_pte_mixed_ro,
	   insert_entry(vma, addr, vma_pgoff(vma, addr), false, SO_INS_PTE, pfn_of(pfn)),
	   struct vm_area_struct *vma, unsigned long addr, __u64 pfn)

/* finish_mkwrite_fault(vmf, ...): the write-protect fault of a read-only
 * PTE whose ->pfn_mkwrite returned 0 makes it writable in place
 * (wp_page_reuse), with no DAX fault deciding anything. */
HOOK_ENTRY(wp_reuse, insert_vmf(vmf, true, SO_INS_WP, SO_PFN_UNKNOWN), struct vm_fault *vmf)

/* (vmf, page|folio, bool write) */
HOOK_ENTRY(insert_pte_page, insert_vmf(vmf, write, SO_INS_PTE, page_pfn(page)),
	   struct vm_fault *vmf, void *page, bool write)
HOOK_ENTRY(insert_pmd_folio, insert_vmf(vmf, write, SO_INS_PMD, page_pfn(folio)),
	   struct vm_fault *vmf, void *folio, bool write)

/* vmf_insert_pfn_pmd(vmf, pfn, write) where it is a function of its own */
HOOK_ENTRY(insert_pmd_pfn, insert_vmf(vmf, write, SO_INS_PMD, pfn_of(pfn)),
	   struct vm_fault *vmf, __u64 pfn, bool write)

/* vmf_insert_pfn_pmd_prot(vmf, pfn_t, pgprot_t, bool write): the two structs
 * are 8 bytes each and travel in registers. */
HOOK_ENTRY(insert_pmd_prot, insert_vmf(vmf, write, SO_INS_PMD, pfn_of(pfn)),
	   struct vm_fault *vmf, __u64 pfn, __u64 prot, bool write)

/* ---- dax_finish_sync_fault and its metadata sync ------------------------ */

static __always_inline int sync_entry(struct vm_fault *vmf, __u64 size_arg)
{
	struct vm_area_struct *vma = BPF_CORE_READ(vmf, vma);
	struct inode *inode = NULL;
	struct task_state *st;
	struct so_event *e;

	if (!sync_vma(vma, &inode) || !traced())
		return 0;
	st = task_start(vmf, size_arg, inode);
	if (!st)
		return 0;
	st->in[IN_SYNC] = 1;
	st->in[IN_FSYNC] = 0;
	e = ev_task(SO_EV_SYNC_ENTER, st);
	if (e)
		ev_submit(e);
	return 0;
}

HOOK(sync, sync_entry(vmf, size_arg),
     ret_exit(IN_SYNC, SO_EV_SYNC_EXIT, ret),
     struct vm_fault *vmf, unsigned long size_arg)

static __always_inline int fsync_entry(struct file *file, __s64 start,
				       __s64 end, int datasync)
{
	struct task_state *st = task_get();
	struct so_event *e;

	if (!st || !st->in[IN_SYNC])
		return 0;
	st->in[IN_FSYNC] = 1;
	st->fsync_inode = BPF_CORE_READ(file, f_inode);
	st->fsync_start = start;
	st->fsync_end = end;
	st->fsync_datasync = datasync;
	e = ev_task(SO_EV_FSYNC_ENTER, st);
	if (!e)
		return 0;
	e->fsync.start = start;
	e->fsync.end = end;
	e->fsync.datasync = datasync;
	ev_submit(e);
	return 0;
}

static __always_inline int fsync_exit(__s64 ret)
{
	struct task_state *st = task_get();
	struct so_event *e = ev_return(st, IN_FSYNC, SO_EV_FSYNC_EXIT);

	if (!e)
		return 0;
	e->fsync.start = st->fsync_start;
	e->fsync.end = st->fsync_end;
	e->fsync.datasync = st->fsync_datasync;
	e->fsync.ret = (__s32)ret;
	if (st->fs == FS_EXT4) {
		e->fsync.commit = jbd2_commit_seq(ext4_journal(st->fsync_inode));
	} else if (st->fs == FS_XFS) {
		struct xfs_snap xs = {};

		xfs_snapshot(st->fsync_inode, &xs);
		e->fsync.commit = xs.pin;
	}
	ev_submit(e);
	return 0;
}

HOOK(fsync, fsync_entry(file, start, end, datasync), fsync_exit((int)ret),
     struct file *file, loff_t start, loff_t end, int datasync)

/* ---- xfs log: checkpoints reaching the log, forces in sync faults ------- */

static __always_inline int ckpt_entry(struct xfs_cil_ctx___xfs *ctx)
{
	struct xlog___xfs *log;
	struct so_event *e;
	__u32 dev;

	if (!have_xfs)
		return 0;
	log = BPF_CORE_READ(ctx, cil, xc_log);
	dev = BPF_CORE_READ(log, l_mp, m_super, s_dev);
	e = ev_dev(SO_EV_XFS_CKPT, FS_XFS, dev);
	if (!e)
		return 0;
	e->log.seq = BPF_CORE_READ(ctx, sequence);
	/* On a shut-down log the callbacks run to abort, not to complete. */
	e->log.aux = !!(BPF_CORE_READ(log, l_opstate) & (1 << XLOG_IO_ERROR));
	ev_submit(e);
	return 0;
}

HOOK_ENTRY(xfs_ckpt, ckpt_entry(cctx), struct xfs_cil_ctx___xfs *cctx)

static __always_inline int force_entry(__u64 seq, __u32 flags)
{
	struct task_state *st = task_get();

	if (!st || !st->in[IN_FSYNC])
		return 0;
	st->in[IN_FORCE] = 1;
	st->force_seq = seq;
	st->force_flags = flags;
	return 0;
}

static __always_inline int force_exit(__s64 ret)
{
	struct task_state *st = task_get();
	struct so_event *e = ev_return(st, IN_FORCE, SO_EV_XFS_FORCE);

	if (!e)
		return 0;
	e->log.seq = st->force_seq;
	e->log.aux = st->force_flags;
	e->log.ret = (__s32)ret;
	ev_submit(e);
	return 0;
}

HOOK(xfs_log_force, force_entry(seq, flags), force_exit((int)ret),
     void *mp, __u64 seq, __u32 flags)

/* ---- fs fault handlers (exit only; targets chosen at run time) ---------- */

static __always_inline int handler_exit(__s64 ret)
{
	struct task_state *st = task_get();
	__u32 tid;

	if (!st || !st->handler_pending)
		return 0;
	ev_submit_ret(ev_task(SO_EV_HANDLER_EXIT, st), ret);
	/* The outermost handler returned: nothing of this task is in flight. */
	if (!st->in[IN_FAULT] && !st->in[IN_SYNC]) {
		tid = cur_tid();
		bpf_map_delete_elem(&tasks, &tid);
	} else {
		st->handler_pending = 0;
	}
	return 0;
}

/* One slot per candidate of the fs_handler hook (bpf/probe/hooks.c). */
#define HANDLER_SLOT(n) HOOK_EXIT(fs_handler##n, handler_exit((__s64)ret))

HOOK_SLOTS(HANDLER_SLOT)

/* ---- tracepoints ------------------------------------------------------- */

static __always_inline int on_mkwrite(struct inode *inode, struct vm_fault *vmf,
				      int result, __u8 no_entry)
{
	struct vm_area_struct *vma = BPF_CORE_READ(vmf, vma);
	struct inode *vinode = NULL;
	struct so_event *e;

	if (!sync_vma(vma, &vinode) || !traced())
		return 0;
	e = ev_reserve(SO_EV_MKWRITE);
	if (!e)
		return 0;
	e->fs = fs_of(inode);
	e->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	e->ino = BPF_CORE_READ(inode, i_ino);
	e->pgoff = BPF_CORE_READ(vmf, pgoff);
	e->no_entry = no_entry;
	e->ret = result;
	ev_submit(e);
	return 0;
}

/* The perf flavour has the event's record, not the vmf: the same event
 * from its fields (the fault's fs from the task's state). */
static __always_inline int on_mkwrite_record(struct trace_event_raw_dax_pte_fault_class *ctx,
					     __u8 no_entry)
{
	struct task_state *st;
	struct so_event *e;

	if (!(ctx->vm_flags & SO_VM_SYNC) || !(ctx->vm_flags & SO_VM_SHARED) || !traced())
		return 0;
	e = ev_reserve(SO_EV_MKWRITE);
	if (!e)
		return 0;
	st = task_get();
	e->fs = st ? st->fs : 0;
	e->dev = ctx->dev;
	e->ino = ctx->ino;
	e->pgoff = ctx->pgoff;
	e->no_entry = no_entry;
	e->ret = ctx->result;
	ev_submit(e);
	return 0;
}

TP_HOOK(mkwrite, on_mkwrite(inode, vmf, result, 0),
	struct inode *inode, struct vm_fault *vmf, int result)
TP_HOOK(mkwrite_no_entry,
	on_mkwrite(inode, vmf, result, 1),
	struct inode *inode, struct vm_fault *vmf, int result)
TP_PERF(mkwrite, dax_pte_fault_class, on_mkwrite_record(ctx, 0))
TP_PERF(mkwrite_no_entry, dax_pte_fault_class, on_mkwrite_record(ctx, 1))

/* jbd2_end_commit fires after j_commit_sequence = tid (commit.c). Shown in
 * the event sequences; the check reads j_commit_sequence itself. */
static __always_inline int on_commit_end(__u32 dev, __u32 tid)
{
	struct so_event *e;

	e = ev_dev(SO_EV_JBD2_COMMIT, FS_EXT4, dev);
	if (!e)
		return 0;
	e->log.seq = tid;
	ev_submit(e);
	return 0;
}

TP_HOOK(jbd2_end, on_commit_end(BPF_CORE_READ(journal, j_fs_dev, bd_dev), BPF_CORE_READ(trans, t_tid)),
	journal_t *journal, transaction_t *trans)
TP_PERF(jbd2_end, jbd2_end_commit, on_commit_end(ctx->dev, ctx->transaction))

/* -c: follow_fork, in common.bpf.h. */

char LICENSE[] SEC("license") = "GPL";
