// SPDX-License-Identifier: GPL-2.0
/*
 * daxlat: latency of DAX page faults inside the kernel, with a phase
 * breakdown of synchronous (MAP_SYNC) write faults.
 *
 * Every hook comes in the flavours user space may pick at run time:
 * fentry/fexit or kprobe/kretprobe for functions, tp_btf or raw_tp for
 * tracepoints. The handlers are shared; the flavours only unpack arguments.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "daxlat.h"

#define VM_SYNC			0x00800000	/* include/linux/mm.h, bit 23 */
#define EXT4_SUPER_MAGIC	0xEF53
#define XFS_SB_MAGIC		0x58465342
#define MAX_ENTRIES		10240

/* Set by user space before load. */
const volatile bool filter_tgid = false;	/* only tasks whose tgid is in tgids */
const volatile bool follow_forks = false;	/* and the processes they fork */
const volatile bool size_is_order = false;	/* 2nd arg is an order, not pe_size */
const volatile __u32 pmd_order = 9;
const volatile __u64 unit_div = 1000;		/* ns -> histogram unit */
const volatile bool want_stacks = false;

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
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_ENTRIES);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* Devices the traced tasks faulted on: jbd2 commits run in kjournald2, not
 * in the traced task, so with a filter they are kept by device. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} devs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

static struct hist_val zero_hist;
static const __u8 one = 1;

static __always_inline void count(enum daxlat_counter c)
{
	__sync_fetch_and_add(&counters[c], 1);
}

static __always_inline bool traced(void)
{
	__u32 tgid;

	if (!filter_tgid)
		return true;
	tgid = bpf_get_current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&tgids, &tgid) != NULL;
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

static __always_inline __u8 size_class(__u64 arg)
{
	if (size_is_order)
		return arg == 0 ? SZ_PTE : arg == pmd_order ? SZ_PMD : SZ_OTHER;
	/* enum page_entry_size: PE_SIZE_PTE, PE_SIZE_PMD, PE_SIZE_PUD */
	return arg == 0 ? SZ_PTE : arg == 1 ? SZ_PMD : SZ_OTHER;
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
	unsigned long magic = BPF_CORE_READ(inode, i_sb, s_magic);

	fi->size = size_class(size_arg);
	fi->write = !!(BPF_CORE_READ(vmf, flags) & FAULT_FLAG_WRITE);
	/* vm_flags became a union member in 6.3: CO-RE finds it by name. */
	fi->sync = !!(BPF_CORE_READ(vma, vm_flags) & VM_SYNC);
	fi->fs = magic == EXT4_SUPER_MAGIC ? FS_EXT4 :
		 magic == XFS_SB_MAGIC ? FS_XFS : FS_OTHER;
	fi->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	fi->ino = BPF_CORE_READ(inode, i_ino);
	fi->pgoff = BPF_CORE_READ(vmf, pgoff);
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

	if (!traced())
		return 0;
	read_fault(vmf, size_arg, &fi);
	fi.ts = bpf_ktime_get_ns();
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
	count(fi->size == SZ_PTE ? C_FAULTS_PTE :
	      fi->size == SZ_PMD ? C_FAULTS_PMD : C_FAULTS_OTHER_SIZE);
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

SEC("fentry/dax_iomap_fault")
int BPF_PROG(fentry_fault, struct vm_fault *vmf, unsigned long size_arg)
{
	return fault_entry(vmf, size_arg);
}

SEC("fexit/dax_iomap_fault")
int BPF_PROG(fexit_fault)
{
	__u64 ret = 0;

	/* Not ctx[N]: the helper knows where the return value sits. */
	bpf_get_func_ret(ctx, &ret);
	return fault_exit(ctx, (__u32)ret);
}

SEC("kprobe/dax_iomap_fault")
int BPF_KPROBE(kprobe_fault, struct vm_fault *vmf, unsigned long size_arg)
{
	return fault_entry(vmf, size_arg);
}

SEC("kretprobe/dax_iomap_fault")
int BPF_KRETPROBE(kretprobe_fault, long ret)
{
	return fault_exit(ctx, (__u32)ret);
}

/* ---- dax_finish_sync_fault and the vfs_fsync_range inside it ------------ */

static __always_inline int sync_entry(struct vm_fault *vmf, __u64 size_arg)
{
	struct fault_info fi = {};
	struct sync_state st = {};
	__u64 id = bpf_get_current_pid_tgid();

	if (!traced())
		return 0;
	read_fault(vmf, size_arg, &fi);
	st.ts = bpf_ktime_get_ns();
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

SEC("fentry/dax_finish_sync_fault")
int BPF_PROG(fentry_sync, struct vm_fault *vmf, unsigned long size_arg)
{
	return sync_entry(vmf, size_arg);
}

SEC("fexit/dax_finish_sync_fault")
int BPF_PROG(fexit_sync)
{
	return sync_exit();
}

SEC("kprobe/dax_finish_sync_fault")
int BPF_KPROBE(kprobe_sync, struct vm_fault *vmf, unsigned long size_arg)
{
	return sync_entry(vmf, size_arg);
}

SEC("kretprobe/dax_finish_sync_fault")
int BPF_KRETPROBE(kretprobe_sync)
{
	return sync_exit();
}

SEC("fentry/vfs_fsync_range")
int BPF_PROG(fentry_fsync)
{
	return fsync_entry();
}

SEC("fexit/vfs_fsync_range")
int BPF_PROG(fexit_fsync)
{
	return fsync_exit();
}

SEC("kprobe/vfs_fsync_range")
int BPF_KPROBE(kprobe_fsync)
{
	return fsync_entry();
}

SEC("kretprobe/vfs_fsync_range")
int BPF_KRETPROBE(kretprobe_fsync)
{
	return fsync_exit();
}

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

#define HANDLER_SLOT(n)							\
SEC("fentry/dummy_handler" #n)						\
int BPF_PROG(fentry_handler##n) { return handler_entry(); }		\
SEC("fexit/dummy_handler" #n)						\
int BPF_PROG(fexit_handler##n) { return handler_exit(ctx); }		\
SEC("kprobe/dummy_handler" #n)						\
int BPF_KPROBE(kprobe_handler##n) { return handler_entry(); }		\
SEC("kretprobe/dummy_handler" #n)					\
int BPF_KRETPROBE(kretprobe_handler##n) { return handler_exit(ctx); }

HANDLER_SLOT(0)
HANDLER_SLOT(1)
HANDLER_SLOT(2)
HANDLER_SLOT(3)

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

SEC("fentry/xfs_log_force_seq")
int BPF_PROG(fentry_logforce) { return logforce_entry(); }
SEC("fexit/xfs_log_force_seq")
int BPF_PROG(fexit_logforce) { return logforce_exit(); }
SEC("kprobe/xfs_log_force_seq")
int BPF_KPROBE(kprobe_logforce) { return logforce_entry(); }
SEC("kretprobe/xfs_log_force_seq")
int BPF_KRETPROBE(kretprobe_logforce) { return logforce_exit(); }

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

SEC("tp_btf/dax_pte_fault_done")
int BPF_PROG(tpbtf_pte_done) { return on_pte_done(); }
SEC("raw_tp/dax_pte_fault_done")
int BPF_PROG(rawtp_pte_done) { return on_pte_done(); }

SEC("tp_btf/dax_pmd_fault_done")
int BPF_PROG(tpbtf_pmd_done, struct inode *inode, struct vm_fault *vmf,
	     unsigned long max_pgoff, int result)
{
	return on_pmd_done(result);
}
SEC("raw_tp/dax_pmd_fault_done")
int BPF_PROG(rawtp_pmd_done, struct inode *inode, struct vm_fault *vmf,
	     unsigned long max_pgoff, int result)
{
	return on_pmd_done(result);
}

SEC("tp_btf/dax_insert_pfn_mkwrite")
int BPF_PROG(tpbtf_mkwrite) { return on_mkwrite(); }
SEC("raw_tp/dax_insert_pfn_mkwrite")
int BPF_PROG(rawtp_mkwrite) { return on_mkwrite(); }

SEC("tp_btf/dax_insert_pfn_mkwrite_no_entry")
int BPF_PROG(tpbtf_mkwrite_no_entry) { return on_mkwrite_no_entry(); }
SEC("raw_tp/dax_insert_pfn_mkwrite_no_entry")
int BPF_PROG(rawtp_mkwrite_no_entry) { return on_mkwrite_no_entry(); }

/* ---- jbd2 commits (run in kjournald2: filtered by device) --------------- */

static __always_inline __u64 commit_key(journal_t *journal,
					transaction_t *trans, bool *keep)
{
	__u32 dev = BPF_CORE_READ(journal, j_fs_dev, bd_dev);
	__u32 tid = BPF_CORE_READ(trans, t_tid);

	*keep = !filter_tgid || bpf_map_lookup_elem(&devs, &dev);
	return (__u64)dev << 32 | tid;
}

static __always_inline int on_commit_start(journal_t *journal,
					   transaction_t *trans)
{
	bool keep;
	__u64 key = commit_key(journal, trans, &keep), ts;

	if (!keep)
		return 0;
	ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&commits, &key, &ts, BPF_ANY);
	return 0;
}

static __always_inline int on_commit_end(journal_t *journal,
					 transaction_t *trans)
{
	bool keep;
	__u64 key = commit_key(journal, trans, &keep), *ts;

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

SEC("tp_btf/jbd2_start_commit")
int BPF_PROG(tpbtf_commit_start, journal_t *journal, transaction_t *trans)
{
	return on_commit_start(journal, trans);
}
SEC("raw_tp/jbd2_start_commit")
int BPF_PROG(rawtp_commit_start, journal_t *journal, transaction_t *trans)
{
	return on_commit_start(journal, trans);
}

SEC("tp_btf/jbd2_end_commit")
int BPF_PROG(tpbtf_commit_end, journal_t *journal, transaction_t *trans)
{
	return on_commit_end(journal, trans);
}
SEC("raw_tp/jbd2_end_commit")
int BPF_PROG(rawtp_commit_end, journal_t *journal, transaction_t *trans)
{
	return on_commit_end(journal, trans);
}

/* ---- -c: follow the processes the command forks ------------------------- */

SEC("tracepoint/sched/sched_process_fork")
int follow_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, child;

	if (!follow_forks || !bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	/* For a new thread this is a tid, a key no task matches: harmless. */
	child = ctx->child_pid;
	bpf_map_update_elem(&tgids, &child, &one, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
