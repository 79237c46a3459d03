// SPDX-License-Identifier: GPL-2.0
/*
 * daxlat: latency of DAX page faults inside the kernel, with a phase
 * breakdown of synchronous (MAP_SYNC) write faults.
 *
 * Every hook comes in the flavours user space may pick at run time:
 * fentry/fexit or kprobe/kretprobe for functions, tp_btf or raw_tp for
 * tracepoints. The handlers are shared; the flavours only unpack arguments
 * (the macros of common.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "daxlat.h"
#include "common.bpf.h"
#include "xfs.bpf.h"

#define VM_SYNC			0x00800000	/* include/linux/mm.h, bit 23 */
#define MAX_ENTRIES		10240

/* Set by user space before load (and common.bpf.h's). */
const volatile __u64 unit_div = 1000;		/* ns -> histogram unit */
const volatile bool want_stacks = false;
const volatile bool want_samples = false;	/* every phase to phase_samples */

/* Read and written by user space while tracing (mmap'ed .bss). */
__u64 counters[C_NR];
__u64 stack_min_ns;	/* emit a stack for faults at least this slow */

struct fault_info {
	__u64 ts;
	__u64 ino;
	__u64 pgoff;
	__u32 dev;
	__u8 size;
	__u8 write;
	__u8 sync;
	__u8 fs;
};

/* The outermost fs fault handler running in a task. */
struct handler_state {
	__u64 ts;
	__u32 depth;		/* the handlers may nest (xfs_filemap_fault -> __xfs_filemap_fault) */
	__u8 had_dax;
	__u8 had_needdsync;
	__u8 outcome;
	__u8 pad;
	struct fault_info last;	/* the last dax_iomap_fault it made */
};

/* A dax_finish_sync_fault running in a task. */
struct sync_state {
	__u64 ts;
	__u64 fsync_ts;		/* vfs_fsync_range entry, 0 outside it */
	__u64 fsync_end;	/* vfs_fsync_range exit, until the mkwrite event */
	__u8 size;
	__u8 fs;
	__u8 write;
	__u8 sync;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_ENTRIES);
	__type(key, __u64);	/* pid_tgid */
	__type(value, struct fault_info);
} faults SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_ENTRIES);
	__type(key, __u64);
	__type(value, struct handler_state);
} handlers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_ENTRIES);
	__type(key, __u64);
	__type(value, struct sync_state);
} syncs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_ENTRIES);
	__type(key, __u64);
	__type(value, __u64);
} logforces SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);	/* dev << 32 | tid */
	__type(value, __u64);
} commits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct hist_key);
	__type(value, struct hist_val);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* --samples-out: 64 K samples in flight, read every 100 ms. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} phase_samples SEC(".maps");

static struct hist_val zero_hist;

static __always_inline void count(enum daxlat_counter c)
{
	__sync_fetch_and_add(&counters[c], 1);
}

/* Bit length of v: the slot rule of lib/hist.h. */
static __always_inline __u64 slot_of(__u64 v)
{
	__u64 n = 0;

	if (v >> 32) { n += 32; v >>= 32; }
	if (v >> 16) { n += 16; v >>= 16; }
	if (v >> 8) { n += 8; v >>= 8; }
	if (v >> 4) { n += 4; v >>= 4; }
	if (v >> 2) { n += 2; v >>= 2; }
	if (v >> 1) { n += 1; v >>= 1; }
	return n + v;
}

static __always_inline void hist_record(__u8 kind, __u8 size, __u8 write,
					__u8 sync, __u8 outcome, __u8 fs,
					__u64 ns)
{
	struct hist_key key = {
		.kind = kind, .size = size, .write = write, .sync = sync,
		.outcome = outcome, .fs = fs,
	};
	struct hist_val *h;
	__u64 slot;

	if (want_samples && kind >= K_PHASE1 && kind <= K_PHASE4) {
		struct phase_sample *s = bpf_ringbuf_reserve(&phase_samples, sizeof(*s), 0);

		if (s) {
			s->ns = ns, s->kind = kind, s->fs = fs, s->size = size;
			bpf_ringbuf_submit(s, 0);
		} else {
			count(C_SAMPLES_LOST);
		}
	}
	h = bpf_map_lookup_elem(&hists, &key);
	if (!h) {
		bpf_map_update_elem(&hists, &key, &zero_hist, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, &key);
		if (!h)
			return;
	}
	slot = slot_of(ns / unit_div);
	if (slot >= DAXLAT_SLOTS)
		slot = DAXLAT_SLOTS - 1;
	__sync_fetch_and_add(&h->slots[slot], 1);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->sum_ns, ns);
	/* Not atomic: a rare race between CPUs can lose an extreme. */
	if (!h->min_ns || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

static __always_inline __u8 outcome_class(__u32 ret)
{
	if (ret & VM_FAULT_NEEDDSYNC)
		return OC_NEEDDSYNC;
	if (ret & (VM_FAULT_SIGBUS | VM_FAULT_OOM | VM_FAULT_HWPOISON |
		   VM_FAULT_HWPOISON_LARGE | VM_FAULT_SIGSEGV))
		return OC_SIGBUS;
	if (ret & VM_FAULT_FALLBACK)
		return OC_FALLBACK;
	if (ret & VM_FAULT_NOPAGE)
		return OC_NOPAGE;
	return OC_OTHER;
}

static __always_inline void read_fault(struct vm_fault *vmf, __u64 size_arg,
				       struct fault_info *fi)
{
	struct vm_area_struct *vma = BPF_CORE_READ(vmf, vma);
	struct inode *inode = BPF_CORE_READ(vma, vm_file, f_inode);

	fi->size = size_class(size_arg);
	fi->write = !!(BPF_CORE_READ(vmf, flags) & FAULT_FLAG_WRITE);
	/* vm_flags became a union member in 6.3: CO-RE finds it by name. */
	fi->sync = !!(BPF_CORE_READ(vma, vm_flags) & VM_SYNC);
	fi->fs = fs_of_inode(inode);
	fi->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	fi->ino = BPF_CORE_READ(inode, i_ino);
	fi->pgoff = BPF_CORE_READ(vmf, pgoff);
}

/* A fault of a traced task: *fi describes it, timestamped now. */
static __always_inline bool fault_start(struct vm_fault *vmf, __u64 size_arg,
					struct fault_info *fi)
{
	if (!traced())
		return false;
	read_fault(vmf, size_arg, fi);
	fi->ts = bpf_ktime_get_ns();
	return true;
}

static __always_inline void emit_stack(void *ctx, const struct fault_info *fi,
				       __u8 outcome, __u64 lat, __u8 scope)
{
	struct stack_event *e;
	__u64 id = bpf_get_current_pid_tgid();

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(C_STACKS_LOST);
		return;
	}
	e->lat_ns = lat;
	e->ino = fi->ino;
	e->pgoff = fi->pgoff;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->dev = fi->dev;
	e->size = fi->size;
	e->write = fi->write;
	e->sync = fi->sync;
	e->outcome = outcome;
	e->fs = fi->fs;
	e->scope = scope;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->kstack_sz = bpf_get_stack(ctx, e->kstack, sizeof(e->kstack), 0);
	bpf_ringbuf_submit(e, 0);
	count(C_STACKS);
}

/* ---- dax_iomap_fault ---------------------------------------------------- */

static __always_inline int fault_entry(struct vm_fault *vmf, __u64 size_arg)
{
	struct fault_info fi = {};
	__u64 id = bpf_get_current_pid_tgid();

	if (!fault_start(vmf, size_arg, &fi))
		return 0;
	bpf_map_update_elem(&faults, &id, &fi, BPF_ANY);
	if (filter_tgid)
		bpf_map_update_elem(&devs, &fi.dev, &one, BPF_ANY);
	return 0;
}

static __always_inline int fault_exit(void *ctx, __u32 ret)
{
	__u64 id = bpf_get_current_pid_tgid(), lat;
	struct handler_state *hs;
	struct fault_info *fi;
	__u8 oc;

	fi = bpf_map_lookup_elem(&faults, &id);
	if (!fi) {
		if (traced())
			count(C_MISSED_ENTRY);
		return 0;
	}
	lat = bpf_ktime_get_ns() - fi->ts;
	oc = outcome_class(ret);
	hist_record(K_FAULT, fi->size, fi->write, fi->sync, oc, fi->fs, lat);
	count(C_FAULTS);
	count(fi->size == FAULT_SZ_PTE ? C_FAULTS_PTE :
	      fi->size == FAULT_SZ_PMD ? C_FAULTS_PMD : C_FAULTS_OTHER_SIZE);
	switch (oc) {
	case OC_NEEDDSYNC:
		count(C_NEEDDSYNC);
		hist_record(K_PHASE1, fi->size, fi->write, fi->sync, 0, fi->fs, lat);
		break;
	case OC_NOPAGE: count(C_NOPAGE); break;
	case OC_FALLBACK: count(C_FALLBACK); break;
	case OC_SIGBUS: count(C_SIGBUS); break;
	default: count(C_OTHER_OUTCOME); break;
	}

	/* Inside a hooked fs handler the stack waits for the handler's exit,
	 * where the latency includes the synchronous part. */
	hs = bpf_map_lookup_elem(&handlers, &id);
	if (hs) {
		hs->had_dax = 1;
		if (oc == OC_NEEDDSYNC)
			hs->had_needdsync = 1;
		hs->outcome = oc;
		hs->last = *fi;
	} else if (want_stacks && lat >= stack_min_ns) {
		emit_stack(ctx, fi, oc, lat, SCOPE_IOMAP);
	}
	bpf_map_delete_elem(&faults, &id);
	return 0;
}

HOOK(fault, fault_entry(vmf, size_arg),
     fault_exit(ctx, (__u32)ret), struct vm_fault *vmf, unsigned long size_arg)

/* ---- dax_finish_sync_fault and the vfs_fsync_range inside it ------------ */

static __always_inline int sync_entry(struct vm_fault *vmf, __u64 size_arg)
{
	struct fault_info fi = {};
	struct sync_state st = {};
	__u64 id = bpf_get_current_pid_tgid();

	if (!fault_start(vmf, size_arg, &fi))
		return 0;
	st.ts = fi.ts;
	st.size = fi.size;
	st.fs = fi.fs;
	st.write = fi.write;
	st.sync = fi.sync;
	bpf_map_update_elem(&syncs, &id, &st, BPF_ANY);
	return 0;
}

static __always_inline int sync_exit(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sync_state *st;

	st = bpf_map_lookup_elem(&syncs, &id);
	if (!st)
		return 0;
	hist_record(K_SYNC_FINISH, st->size, st->write, st->sync, 0, st->fs,
		    bpf_ktime_get_ns() - st->ts);
	count(C_SYNC_FINISH);
	bpf_map_delete_elem(&syncs, &id);
	return 0;
}

static __always_inline int fsync_entry(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sync_state *st;

	/* Only the fsync a sync fault issues: any other is not ours. */
	st = bpf_map_lookup_elem(&syncs, &id);
	if (st)
		st->fsync_ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int fsync_exit(void)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	struct sync_state *st;

	st = bpf_map_lookup_elem(&syncs, &id);
	if (!st || !st->fsync_ts)
		return 0;
	now = bpf_ktime_get_ns();
	hist_record(K_PHASE2, st->size, st->write, st->sync, 0, st->fs,
		    now - st->fsync_ts);
	count(C_METADATA_SYNCS);
	st->fsync_ts = 0;
	st->fsync_end = now;
	return 0;
}

HOOK_ENTRY(sync, sync_entry(vmf, size_arg),
	   struct vm_fault *vmf, unsigned long size_arg)
HOOK_EXIT_NORET(sync, sync_exit())

HOOK_ENTRY(fsync, fsync_entry())
HOOK_EXIT_NORET(fsync, fsync_exit())

/* ---- the filesystem's fault handler (targets chosen at run time) -------- */

static __always_inline int handler_entry(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct handler_state st = {}, *hs;

	if (!traced())
		return 0;
	hs = bpf_map_lookup_elem(&handlers, &id);
	if (hs) {
		hs->depth++;
		return 0;
	}
	st.depth = 1;
	st.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&handlers, &id, &st, BPF_ANY);
	return 0;
}

static __always_inline int handler_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), lat;
	struct handler_state *hs;

	hs = bpf_map_lookup_elem(&handlers, &id);
	if (!hs)
		return 0;
	if (hs->depth > 1) {
		hs->depth--;
		return 0;
	}
	lat = bpf_ktime_get_ns() - hs->ts;
	if (hs->had_dax) {
		count(C_HANDLER_CALLS);
		if (hs->had_needdsync)
			hist_record(K_PHASE4, hs->last.size, hs->last.write,
				    hs->last.sync, 0, hs->last.fs, lat);
		if (want_stacks && lat >= stack_min_ns)
			emit_stack(ctx, &hs->last, hs->outcome, lat, SCOPE_HANDLER);
	}
	bpf_map_delete_elem(&handlers, &id);
	return 0;
}

/* One slot per candidate of the fs_handler hook (bpf/probe/hooks.c). */
#define HANDLER_SLOT(n)							\
	HOOK_ENTRY(fs_handler##n, handler_entry())			\
	HOOK_EXIT_NORET(fs_handler##n, handler_exit(ctx))

HOOK_SLOTS(HANDLER_SLOT)

/* ---- XFS log force (xfs.ko on Debian; module BTF) ----------------------- */

static __always_inline int logforce_entry(void)
{
	__u64 id = bpf_get_current_pid_tgid(), ts;

	if (!traced())
		return 0;
	ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&logforces, &id, &ts, BPF_ANY);
	return 0;
}

static __always_inline int logforce_exit(void)
{
	__u64 id = bpf_get_current_pid_tgid(), *ts;

	ts = bpf_map_lookup_elem(&logforces, &id);
	if (!ts)
		return 0;
	hist_record(K_XFS_LOG_FORCE, 0, 0, 0, 0, FS_XFS, bpf_ktime_get_ns() - *ts);
	count(C_XFS_LOG_FORCES);
	bpf_map_delete_elem(&logforces, &id);
	return 0;
}

HOOK_ENTRY(xfs_log_force, logforce_entry())
HOOK_EXIT_NORET(xfs_log_force, logforce_exit())

/* ---- fs_dax tracepoints -------------------------------------------------- */

static __always_inline int on_pte_done(void)
{
	if (traced())
		count(C_PTE_FAULT_DONE);
	return 0;
}

static __always_inline int on_pmd_done(int result)
{
	if (!traced())
		return 0;
	count(C_PMD_FAULT_DONE);
	if (result & VM_FAULT_FALLBACK)
		count(C_PMD_DONE_FALLBACK);
	return 0;
}

static __always_inline int on_mkwrite(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sync_state *st;

	if (!traced())
		return 0;
	count(C_MKWRITE);
	/* dax_insert_pfn_mkwrite is inlined: the insertion lies between the
	 * fsync's return and this event, which fires after it. */
	st = bpf_map_lookup_elem(&syncs, &id);
	if (st && st->fsync_end) {
		hist_record(K_PHASE3, st->size, st->write, st->sync, 0, st->fs,
			    bpf_ktime_get_ns() - st->fsync_end);
		st->fsync_end = 0;
	}
	return 0;
}

static __always_inline int on_mkwrite_no_entry(void)
{
	if (traced())
		count(C_MKWRITE_NO_ENTRY);
	return 0;
}

TP_HOOK(pte_done, on_pte_done())
TP_HOOK(pmd_done, on_pmd_done(result), struct inode *inode,
	struct vm_fault *vmf, unsigned long max_pgoff, int result)
TP_HOOK(mkwrite, on_mkwrite())
TP_HOOK(mkwrite_no_entry, on_mkwrite_no_entry())
TP_PERF(pte_done, dax_pte_fault_class, on_pte_done())
TP_PERF(pmd_done, dax_pmd_fault_class, on_pmd_done(ctx->result))
TP_PERF(mkwrite, dax_pte_fault_class, on_mkwrite())
TP_PERF(mkwrite_no_entry, dax_pte_fault_class, on_mkwrite_no_entry())

/* ---- jbd2 commits (run in kjournald2: filtered by device) --------------- */

static __always_inline __u64 commit_key(__u32 dev, __u32 tid, bool *keep)
{
	*keep = !filter_tgid || bpf_map_lookup_elem(&devs, &dev);
	return (__u64)dev << 32 | tid;
}

static __always_inline int on_commit_start(__u32 dev, __u32 tid)
{
	bool keep;
	__u64 key = commit_key(dev, tid, &keep), ts;

	if (!keep)
		return 0;
	ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&commits, &key, &ts, BPF_ANY);
	return 0;
}

static __always_inline int on_commit_end(__u32 dev, __u32 tid)
{
	bool keep;
	__u64 key = commit_key(dev, tid, &keep), *ts;

	if (!keep)
		return 0;
	count(C_JBD2_COMMITS);
	ts = bpf_map_lookup_elem(&commits, &key);
	if (!ts)
		return 0;
	hist_record(K_JBD2_COMMIT, 0, 0, 0, 0, FS_EXT4, bpf_ktime_get_ns() - *ts);
	bpf_map_delete_elem(&commits, &key);
	return 0;
}

/* The journal's device and the transaction's tid: what both flavours have. */
#define JOURNAL_DEV(journal) BPF_CORE_READ(journal, j_fs_dev, bd_dev)
TP_HOOK(jbd2_start, on_commit_start(JOURNAL_DEV(journal), BPF_CORE_READ(trans, t_tid)),
	journal_t *journal, transaction_t *trans)
TP_HOOK(jbd2_end, on_commit_end(JOURNAL_DEV(journal), BPF_CORE_READ(trans, t_tid)),
	journal_t *journal, transaction_t *trans)
TP_PERF(jbd2_start, jbd2_commit, on_commit_start(ctx->dev, ctx->transaction))
TP_PERF(jbd2_end, jbd2_end_commit, on_commit_end(ctx->dev, ctx->transaction))

/* ---- xfs CIL checkpoints (a worker writes them: filtered by device) ---- */

/* What batches synchronous faults on xfs: each fsync forces the log, but a
 * force finds its sequence already in a checkpoint another wrote. */
static __always_inline int on_xfs_ckpt(struct xfs_cil_ctx___xfs *cctx)
{
	__u32 dev = BPF_CORE_READ(cctx, cil, xc_log, l_mp, m_super, s_dev);

	if (!filter_tgid || bpf_map_lookup_elem(&devs, &dev))
		count(C_XFS_CHECKPOINTS);
	return 0;
}

HOOK_ENTRY(xfs_ckpt, on_xfs_ckpt(cctx), struct xfs_cil_ctx___xfs *cctx)

/* -c: follow_fork, in common.bpf.h. */

char LICENSE[] SEC("license") = "GPL";
