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

#ifndef barrier
#define barrier() asm volatile("" ::: "memory")
#endif

#define VM_SYNC			0x00800000	/* include/linux/mm.h, bit 23 */

/* Set by user space before load (and common.bpf.h's). */
const volatile __u64 unit_div = 1000;		/* ns -> histogram unit */
const volatile bool want_stacks = false;
const volatile bool want_phases = false;	/* --phases: the phase hooks are attached */
const volatile bool want_samples = false;	/* every phase to phase_samples */
/* The fault's exit is fs_dax's done tracepoint, not dax_iomap_fault's return:
 * where kprobes are chosen (a kretprobe costs more than the perf tracepoint
 * already attached; bpf/README.md, "What daxlat costs"). */
const volatile bool exit_at_tp = false;
/* ... and its entry at fs_dax's start tracepoints, whose records carry what
 * the report needs but the filesystem (dev_fs) and the file's name
 * (--breakdown keeps the kprobe). */
const volatile bool entry_at_tp = false;
/* --breakdown (implies --phases), and the work functions that name xfs's
 * wakers (kallsyms, 0 where xfs is not loaded). */
const volatile bool want_breakdown = false;
const volatile bool want_folded = false;	/* --folded: the waits by stack pair */
const volatile __u64 oncpu_period_ns = 0;	/* --oncpu: the sampling period */
const volatile __u64 xfs_cil_push_fn = 0;
const volatile __u64 xfs_ioend_fn = 0;

/* Read and written by user space while tracing (mmap'ed .bss). */
__u64 counters[C_NR];
__u64 stack_min_ns;	/* emit a stack for faults at least this slow */

/* Read and written by user space while tracing (mmap'ed .bss): an array,
 * so the fault path records without a map look-up (daxlat.h). */
struct hist_val hists[DAXLAT_HISTS];

struct fault_info {
	__u64 ts;		/* 0: no dax_iomap_fault in flight */
	__u64 ino;		/* ino, pgoff: read only for stacks */
	__u64 pgoff;
	__u32 dev;		/* read for stacks and -p/-c's device filter */
	__u8 size;
	__u8 write;
	__u8 sync;
	__u8 fs;
	char name[DAXLAT_NAME_LEN];	/* --breakdown: the file's name (its dentry's) */
};

/*
 * Everything daxlat keeps about one task, in its task storage: reached in a
 * few instructions, where a hash map keyed by tid cost a look-up, an update
 * and a delete per event. The hooks of one task never run concurrently.
 */
struct task_state {
	__u8 traced;		/* TRACED_* : traced() asked once per task */
	__u8 needdsync;		/* last fault returned NEEDDSYNC: the sync hooks' source */
	__u8 had_dax;		/* the fs handler in flight made a DAX fault */
	__u8 had_needdsync;	/* ... one that returned NEEDDSYNC */
	__u8 outcome;		/* ... the last one's outcome class */
	__u8 handler_depth;	/* the handlers may nest (xfs_filemap_fault -> __xfs_filemap_fault) */
	__u32 last_dev;		/* the device last added to devs */
	__u64 handler_ts;	/* outermost fs handler entry */
	__u64 sync_ts;		/* dax_finish_sync_fault entry, 0 outside it */
	__u64 fsync_end;	/* vfs_fsync_range exit, until the mkwrite event */
	__u64 logforce_ts;	/* xfs_log_force_seq entry */
	__u64 commit_ts;	/* kjournald2: the commit in flight started */
	__u32 commit_tid;	/* ... its transaction */
	__u8 journal_kept;	/* kjournald2: its device is traced (cached once true) */
	__u64 dev_fs_gen;	/* entry_at_tp: fault.fs is fault.dev's in this dev_fs, 0: unknown */
	__u32 jc_tid;		/* kjournald2 (--breakdown): the commit in flight or last, */
	__u64 jc_ts[JC_NR - 1];	/* ... its tracepoint times (enum bd_commit - 1) */
	__u64 work_func;	/* a worker (--breakdown): the work item running, or 0 */
	__u64 work_ts;		/* ... since */
	struct fault_info fault;	/* the fault in flight, or the last one */
};

enum { TRACED_UNKNOWN, TRACED_NO, TRACED_YES };

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tasks SEC(".maps");

/*
 * The traced task whose dax_iomap_fault last started on this CPU: the fault
 * tracepoints, which fire inside it, count on a per-CPU compare where they
 * would otherwise look the task up (a task that moved to another CPU since
 * takes the look-up). A tid is reused only after the pid space wraps.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);	/* pid_tgid */
} cpu_fault SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* --samples-out: 64 K samples in flight, read every 100 ms. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} phase_samples SEC(".maps");

/* @map's entry for @key, created from @zero if absent (NULL if full). */
static __always_inline void *lookup_or_init(void *map, const void *key, const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, key);
}

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
	__u64 i = hist_index(kind, size, write, sync, outcome, fs);
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
	/* barrier_var: the verifier must see the bound on the register that indexes. */
	barrier_var(i);
	if (i >= DAXLAT_HISTS)
		return;
	h = &hists[i];
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

/* This task's state; NULL unless the task is traced. @create on the hooks
 * that open a fault (the handler's and dax_iomap_fault's entries). */
static __always_inline struct task_state *task_state(bool create)
{
	struct task_state *t;

	t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0,
				 create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!t)
		return NULL;
	if (t->traced == TRACED_UNKNOWN)
		t->traced = traced() ? TRACED_YES : TRACED_NO;
	return t->traced == TRACED_YES ? t : NULL;
}

static __always_inline void cpu_fault_set(void)
{
	__u32 zero = 0;
	__u64 *id = bpf_map_lookup_elem(&cpu_fault, &zero);

	if (id)
		*id = bpf_get_current_pid_tgid();
}

/* In a traced task's fault: the per-CPU compare, else the look-up. */
static __always_inline bool in_traced_fault(void)
{
	__u32 zero = 0;
	__u64 *id = bpf_map_lookup_elem(&cpu_fault, &zero);

	if (id && *id == bpf_get_current_pid_tgid())
		return true;
	return task_state(false) != NULL;
}

/*
 * What the report needs of a fault: its size, write, VM_SYNC and
 * filesystem; the device only to filter other tasks' events (-p, -c) or
 * for stacks, inode and offset only for stacks. Where the arguments are
 * BTF pointers (@btf) the reads are plain loads, else bpf_probe_read_kernel
 * calls, one per pointer followed (ARG_READ).
 */
static __always_inline void read_fault(struct vm_fault *vmf, __u64 size_arg,
				       struct fault_info *fi, bool btf)
{
	bool want_dev = filter_tgid || want_stacks || want_breakdown;
	struct vm_area_struct *vma = ARG_READ(btf, vmf, vma);
	struct file *file = ARG_READ(btf, vma, vm_file);
	struct inode *inode = ARG_READ(btf, file, f_inode);
	struct super_block *sb = ARG_READ(btf, inode, i_sb);

	fi->size = size_class(size_arg);
	fi->write = !!(ARG_READ(btf, vmf, flags) & FAULT_FLAG_WRITE);
	/* vm_flags became a union member in 6.3: CO-RE finds it by name. */
	fi->sync = !!(ARG_READ(btf, vma, vm_flags) & VM_SYNC);
	fi->fs = fs_of_magic(ARG_READ(btf, sb, s_magic));
	if (want_dev)
		fi->dev = ARG_READ(btf, sb, s_dev);
	if (want_stacks || want_breakdown) {
		fi->ino = ARG_READ(btf, inode, i_ino);
		fi->pgoff = ARG_READ(btf, vmf, pgoff);
	}
	if (want_breakdown) {
		struct dentry *dentry = ARG_READ(btf, file, f_path.dentry);

		bpf_probe_read_kernel_str(fi->name, sizeof(fi->name), ARG_READ(btf, dentry, d_name.name));
	}
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

/* The fault of @t (task_state(false): NULL if untraced) returned @ret. */
static __always_inline int fault_close(void *ctx, struct task_state *t, __u32 ret)
{
	struct fault_info *fi;
	__u64 lat;
	__u8 oc;

	if (!t || !t->fault.ts) {
		/* A traced task whose entry was not seen (attached mid-fault,
		 * or a run the kernel skipped): the rare path asks traced(). */
		if (t || traced())
			count(C_MISSED_ENTRY);
		return 0;
	}
	fi = &t->fault;
	lat = bpf_ktime_get_ns() - fi->ts;
	fi->ts = 0;
	oc = outcome_class(ret);
	hist_record(K_FAULT, fi->size, fi->write, fi->sync, oc, fi->fs, lat);
	count(C_FAULTS);
	count(fi->size == FAULT_SZ_PTE ? C_FAULTS_PTE :
	      fi->size == FAULT_SZ_PMD ? C_FAULTS_PMD : C_FAULTS_OTHER_SIZE);
	t->needdsync = oc == OC_NEEDDSYNC;
	switch (oc) {
	case OC_NEEDDSYNC:
		count(C_NEEDDSYNC);
		if (want_phases)
			hist_record(K_PHASE1, fi->size, fi->write, fi->sync, 0, fi->fs, lat);
		break;
	case OC_NOPAGE: count(C_NOPAGE); break;
	case OC_FALLBACK: count(C_FALLBACK); break;
	case OC_SIGBUS: count(C_SIGBUS); break;
	default: count(C_OTHER_OUTCOME); break;
	}

	/* Inside a hooked fs handler the stack waits for the handler's exit,
	 * where the latency includes the synchronous part. */
	if (t->handler_depth) {
		t->had_dax = 1;
		if (oc == OC_NEEDDSYNC)
			t->had_needdsync = 1;
		t->outcome = oc;
	} else if (want_stacks && lat >= stack_min_ns) {
		emit_stack(ctx, fi, oc, lat, SCOPE_IOMAP);
	}
	return 0;
}

static __always_inline int fault_exit(void *ctx, __u32 ret)
{
	return fault_close(ctx, task_state(false), ret);
}

/* With -p/-c, what runs in other tasks (jbd2, xfs log, bios) is kept for
 * the devices the traced faults touch. */
static __always_inline void keep_dev(struct task_state *t, __u32 dev)
{
	if (filter_tgid && dev != t->last_dev) {
		bpf_map_update_elem(&devs, &dev, &one, BPF_ANY);
		t->last_dev = dev;
	}
}

static __always_inline int fault_entry(void *ctx, struct vm_fault *vmf, __u64 size_arg, bool btf)
{
	struct task_state *t = task_state(true);

	if (!t)
		return 0;
	read_fault(vmf, size_arg, &t->fault, btf);
	keep_dev(t, t->fault.dev);
	/* Read only where the done tracepoints do not close the fault. */
	if (!exit_at_tp)
		cpu_fault_set();
	t->fault.ts = bpf_ktime_get_ns();
	/* dax_iomap_fault returns VM_FAULT_FALLBACK at once for a size other
	 * than PTE and PMD, before any tracepoint: its exit is here. */
	if (exit_at_tp && t->fault.size == FAULT_SZ_OTHER)
		return fault_close(ctx, t, VM_FAULT_FALLBACK);
	return 0;
}

HOOK(fault, fault_entry(ctx, vmf, size_arg, btf_args),
     fault_exit(ctx, (__u32)ret), struct vm_fault *vmf, unsigned long size_arg)

/* ---- the fault's entry at fs_dax's start tracepoints (entry_at_tp) ------ */

/* dev_t (the kernel's encoding) -> enum fault_fs, filled by user space
 * from the mount table at start and whenever it changes; every fill adds
 * one to dev_fs_gen (from 1), which makes the tasks ask again. */
__u64 dev_fs_gen;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} dev_fs SEC(".maps");

/* The task keeps its last device's filesystem: the map is asked on a new
 * device or fill, and on every fault while the device is unknown. */
static __always_inline void fs_of_dev(struct task_state *t, __u32 dev)
{
	struct fault_info *fi = &t->fault;
	__u64 gen = dev_fs_gen;
	__u8 *fs;

	if (t->dev_fs_gen == gen && fi->dev == dev)
		return;
	fi->dev = dev;
	fs = bpf_map_lookup_elem(&dev_fs, &dev);
	t->dev_fs_gen = fs ? gen : 0;
	fi->fs = fs ? *fs : FS_OTHER;
	if (!fs)
		count(C_DEV_UNMAPPED);
}

/* dax_iomap_pte_fault's or dax_iomap_pmd_fault's first tracepoint: its
 * record's fields (no pointer followed). A size other than PTE and PMD
 * reaches neither: not counted here. */
static __always_inline int fault_open_tp(__u32 dev, __u64 ino, __u64 vm_flags,
					 __u32 flags, __u64 pgoff, __u8 size)
{
	struct task_state *t = task_state(true);
	struct fault_info *fi;

	if (!t)
		return 0;
	fi = &t->fault;
	fs_of_dev(t, dev);
	fi->size = size;
	fi->write = !!(flags & FAULT_FLAG_WRITE);
	fi->sync = !!(vm_flags & VM_SYNC);
	if (want_stacks) {
		fi->ino = ino;
		fi->pgoff = pgoff;
	}
	keep_dev(t, dev);
	fi->ts = bpf_ktime_get_ns();
	return 0;
}

/* The same from the tracepoint's arguments (tp_btf, raw_tp). */
static __always_inline int fault_open_args(struct inode *inode, struct vm_fault *vmf,
					   __u8 size, bool btf)
{
	struct vm_area_struct *vma = ARG_READ(btf, vmf, vma);
	struct super_block *sb = ARG_READ(btf, inode, i_sb);

	return fault_open_tp(ARG_READ(btf, sb, s_dev), ARG_READ(btf, inode, i_ino),
			     ARG_READ(btf, vma, vm_flags), ARG_READ(btf, vmf, flags),
			     ARG_READ(btf, vmf, pgoff), size);
}

TP_HOOK(pte_start, fault_open_args(inode, vmf, FAULT_SZ_PTE, btf_args), struct inode *inode,
	struct vm_fault *vmf, int result)
TP_HOOK(pmd_start, fault_open_args(inode, vmf, FAULT_SZ_PMD, btf_args), struct inode *inode,
	struct vm_fault *vmf, unsigned long max_pgoff, int result)
TP_PERF(pte_start, dax_pte_fault_class, fault_open_tp(ctx->dev, ctx->ino, ctx->vm_flags,
							ctx->flags, ctx->pgoff, FAULT_SZ_PTE))
TP_PERF(pmd_start, dax_pmd_fault_class, fault_open_tp(ctx->dev, ctx->ino, ctx->vm_flags,
							ctx->flags, ctx->pgoff, FAULT_SZ_PMD))

/* ---- --breakdown: the metadata sync across threads (daxlat.h) ----------- */

/* BD_ENDED: the phase is over, its sample on the way (--oncpu's samples
 * of the ring buffer's wake-up are the tracer's, not the phase's). */
enum { BD_RUNNING, BD_RUNNABLE, BD_ASLEEP, BD_ENDED };

/* The bios completed on a device so far and their latency (block_bio_queue
 * -> block_bio_complete; the flushes: REQ_PREFLUSH or REQ_FUA). A phase's
 * share is the difference between its ends: every bio of its device in
 * that time, whoever issued it (the commit's log writes, mostly). */
struct bio_totals {
	__u64 n, ns, flushes, flush_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct bio_totals);
} bio_devs SEC(".maps");

/* A thread inside its metadata sync, keyed by tid: the scheduler's hooks
 * see it as prev, next or the woken task, not always as current. */
struct bd_state {
	struct bd_sample s;
	__u64 ts;			/* the last transition */
	__u64 longest;			/* the longest sleep so far */
	__u64 run_delay0, pcount0;	/* sched_info at the phase start */
	__u8 state;
	__u8 pending;			/* a sched_waking seen, its wake-up not yet */
	__u8 pend_class;
	__u32 pend_tid;
	__u64 pend_func;
	__u64 pend_work_ts;
	__u64 pend_waking;		/* sched_waking's time */
	__u64 pend_jc[JC_NR - 1];	/* the waking commit's tracepoint times */
	char pend_comm[DAXLAT_TASK_COMM_LEN];
	__s32 wait_sid;			/* --folded: its stack as it left the CPU */
	__s32 pend_sid;			/* ... the waker's, -1 if none */
	__u64 cpu_ts;			/* --oncpu: on-CPU time folded up to here */
	__s32 cpu_sid;			/* ... the last sample's stack in this time on CPU */
	__u8 sampling;			/* --oncpu samples may fold: set last at the phase
					 * start, cleared first at its end (a sample is a
					 * timer interrupt: it can fall into those hooks,
					 * not into sched_switch's, which runs with them off) */
	struct bio_totals bio0;		/* its device's bios at the phase start */
};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 4096);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, DAXLAT_FOLD_DEPTH * sizeof(__u64));
} bd_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct bd_fold_key);
	__type(value, struct bd_fold_val);
} bd_folds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct bd_state);
} insync SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} bd_samples SEC(".maps");

static const struct bd_state bd_zero;

/* sched_info (CONFIG_SCHED_INFO): the kernel's own count of switch-ins
 * and time runnable, the check on the runnable part. */
static __always_inline void sched_info_now(__u64 *run_delay, __u64 *pcount)
{
	struct task_struct *task = bpf_get_current_task_btf();

	*run_delay = *pcount = 0;
	if (bpf_core_field_exists(task->sched_info)) {
		*run_delay = task->sched_info.run_delay;
		*pcount = task->sched_info.pcount;
	}
}

static __always_inline void bio_totals_now(__u32 dev, struct bio_totals *out)
{
	struct bio_totals *t = bpf_map_lookup_elem(&bio_devs, &dev);

	if (t)
		__builtin_memcpy(out, t, sizeof(*out));
	else
		__builtin_memset(out, 0, sizeof(*out));
}

static __always_inline void bd_start(const struct fault_info *fi, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct bd_state *b;

	if (bpf_map_update_elem(&insync, &tid, &bd_zero, BPF_ANY))
		return;
	b = bpf_map_lookup_elem(&insync, &tid);
	if (!b)
		return;
	b->ts = b->cpu_ts = now;
	b->state = BD_RUNNING;
	b->wait_sid = b->pend_sid = b->cpu_sid = -1;
	b->s.tid = tid;
	b->s.tgid = id >> 32;
	b->s.fs = fi->fs;
	b->s.dev = fi->dev;
	b->s.ino = fi->ino;
	__builtin_memcpy(b->s.file, fi->name, sizeof(b->s.file));
	sched_info_now(&b->run_delay0, &b->pcount0);
	bio_totals_now(fi->dev, &b->bio0);
	barrier();
	b->sampling = 1;
}

/* The phase ends: no sample may fold past this point (before its end's
 * time is read). */
static __always_inline void bd_stop_sampling(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct bd_state *b = bpf_map_lookup_elem(&insync, &tid);

	if (b)
		b->sampling = 0;
	barrier();
}

/* --folded: @d ns more, and one more count, under key @k. */
static __always_inline void fold_add(const struct bd_fold_key *k, __u64 d)
{
	static const struct bd_fold_val zero;
	struct bd_fold_val *v = lookup_or_init(&bd_folds, k, &zero);

	if (v) {
		__sync_fetch_and_add(&v->ns, d);
		__sync_fetch_and_add(&v->count, 1);
	}
}

/* --oncpu: the on-CPU time [b->cpu_ts, @now) under stack @sid (-1: none
 * sampled). A sample folds the time since the one before; leaving the CPU,
 * or the phase, the rest goes under the last sample's stack, or the stack
 * the thread left the CPU with: the folded on-CPU time adds up to the
 * breakdown's, and the stacks share it as sampled. */
static __always_inline void bd_fold_oncpu(struct bd_state *b, __s32 sid, __u64 now)
{
	struct bd_fold_key k = { .wait_stack = sid, .other_stack = -1, .fs = b->s.fs, .part = BD_ONCPU };

	if (now <= b->cpu_ts)
		return;
	fold_add(&k, now - b->cpu_ts);
	b->cpu_ts = now;
}

static __always_inline void bd_end(void *ctx, __u64 start, __u64 now)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct bd_state *b = bpf_map_lookup_elem(&insync, &tid);
	struct bio_totals bio1;
	struct bd_sample *s;
	__u64 run_delay, pcount;

	if (!b)
		return;
	if (b->state == BD_RUNNING) {
		b->s.part[BD_ONCPU] += now - b->ts;
		/* Not sampled since it came on CPU: the stack it ends with. */
		if (oncpu_period_ns)
			bd_fold_oncpu(b, b->cpu_sid >= 0 ? b->cpu_sid :
				      bpf_get_stackid(ctx, &bd_stacks, 0), now);
	} else {
		b->s.broken = 1;
	}
	b->state = BD_ENDED;
	sched_info_now(&run_delay, &pcount);
	b->s.run_delay = run_delay - b->run_delay0;
	b->s.pcount = pcount - b->pcount0;
	b->s.phase_ns = now - start;
	b->s.end_ns = now;
	bio_totals_now(b->s.dev, &bio1);
	b->s.bios = bio1.n - b->bio0.n;
	b->s.bio_ns = bio1.ns - b->bio0.ns;
	b->s.flushes = bio1.flushes - b->bio0.flushes;
	b->s.flush_ns = bio1.flush_ns - b->bio0.flush_ns;
	b->s.cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(b->s.comm, sizeof(b->s.comm));
	if (b->s.broken)
		count(C_BD_BROKEN);
	s = bpf_ringbuf_reserve(&bd_samples, sizeof(*s), 0);
	if (s) {
		__builtin_memcpy(s, &b->s, sizeof(*s));
		bpf_ringbuf_submit(s, 0);
	} else {
		count(C_BD_LOST);
	}
	bpf_map_delete_elem(&insync, &tid);
}

/* A phase left without its end (dax_finish_sync_fault returned without
 * the fsync): nothing to report. */
static __always_inline void bd_drop(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(&insync, &tid);
}

static __always_inline __u64 clip(__u64 a, __u64 b, __u64 lo, __u64 hi)
{
	a = a < lo ? lo : a > hi ? hi : a;
	b = b < lo ? lo : b > hi ? hi : b;
	return b > a ? b - a : 0;
}

/* A wait [@s0, @s1) on a jbd2 commit, spread over the commit's tracepoints
 * (a phase not reached yet ends at @s1). */
static __always_inline void bd_spread_commit(struct bd_state *b, __u64 s0, __u64 s1)
{
	__u64 at[JC_NR + 1];

	at[0] = s0;
	for (int i = 0; i < JC_NR - 1; i++)
		at[i + 1] = b->pend_jc[i] ? b->pend_jc[i] : s1;
	at[JC_NR] = s1;
	for (int i = 0; i < JC_NR; i++)
		b->s.commit[i] += clip(at[i], at[i + 1], s0, s1);
}

/*
 * What the current task is, for a thread that waited on it (its waker, or
 * the task that held its CPU): into the pending fields of @b. A jbd2
 * commit in kjournald2 (in one, or just after: the commit ends before it
 * wakes the waiters), a worker in or just after a work item (flush_work's
 * waiters are woken once the item has returned), the idle task, or other.
 */
static __always_inline void bd_note_current(struct bd_state *b)
{
	struct task_state *w = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
	__u8 class = (__u32)bpf_get_current_pid_tgid() == 0 ? W_IDLE : W_OTHER;

	b->pend_func = 0;
	if (w && w->jc_ts[0]) {
		class = W_JBD2;
		__builtin_memcpy(b->pend_jc, w->jc_ts, sizeof(b->pend_jc));
		b->pend_tid = w->jc_tid;
	} else if (w && w->work_func) {
		class = w->work_func == xfs_cil_push_fn ? W_XFS_CIL :
			w->work_func == xfs_ioend_fn ? W_XFS_LOG_IO : W_WORKER;
		b->pend_func = w->work_func;
		b->pend_work_ts = w->work_ts;
	}
	b->pend_class = class;
	bpf_get_current_comm(b->pend_comm, sizeof(b->pend_comm));
	b->pending = 1;
}

/* --folded: @d ns of @part under the stack pair of @b. */
static __always_inline void bd_fold(struct bd_state *b, int part, __u64 d)
{
	struct bd_fold_key k = {
		.wait_stack = b->wait_sid,
		.other_stack = part == BD_SLEEP && b->pending ? b->pend_sid : -1,
		.fs = b->s.fs,
		.part = part,
	};

	if (b->pending)
		__builtin_memcpy(k.other_comm, b->pend_comm, sizeof(k.other_comm));
	fold_add(&k, d);
}

/* The wait [b->ts, @now) in @part (asleep, or runnable), charged to the
 * task the pending fields name (none: other). */
static __always_inline void bd_charge(struct bd_state *b, int part, __u64 now)
{
	__u64 d = now - b->ts, queued;
	__u8 w = b->pending ? b->pend_class : W_OTHER;

	if (w >= W_NR)
		return;
	if (part == BD_SLEEP) {
		b->s.part[BD_SLEEP] += d;
		b->s.sleep_by[w] += d;
		/* sched_waking -> sched_wakeup: the wake-up on its way (an idle CPU
		 * woken to enqueue it itself), part of the sleep. */
		if (b->pending && b->pend_waking && b->pend_waking <= now)
			b->s.wake_delivery += now - b->pend_waking;
	} else {
		b->s.part[BD_RUNQ] += d;
		b->s.runq_by[w] += d;
	}
	if (w == W_JBD2)
		bd_spread_commit(b, b->ts, now);
	if (w == W_XFS_CIL || w == W_XFS_LOG_IO || w == W_WORKER) {
		queued = clip(b->ts, b->pend_work_ts, b->ts, now);
		b->s.work_queued += queued;
		b->s.work_running += d - queued;
	}
	if (want_folded)
		bd_fold(b, part, d);
	if (d >= b->longest) {
		b->longest = d;
		b->s.main_wait = w;
		b->s.main_wait_part = part;
		b->s.waker_func = b->pending ? b->pend_func : 0;
		b->s.commit_tid = w == W_JBD2 ? b->pend_tid : 0;
		__builtin_memcpy(b->s.waker_comm, b->pend_comm, sizeof(b->pend_comm));
	}
	b->pending = 0;
	b->pend_sid = -1;
	b->pend_waking = 0;
}

/* sched_switch: @prev_tid (current) leaves the CPU (@runnable: preempted,
 * or still TASK_RUNNING), @next_tid takes it; the runnable wait of
 * @next_tid is charged to @prev_tid, which held the CPU last. */
static __always_inline int bd_switch(void *ctx, __u32 prev_tid, __u32 next_tid, bool runnable)
{
	__u64 now = bpf_ktime_get_ns();
	struct bd_state *b;

	b = bpf_map_lookup_elem(&insync, &prev_tid);
	if (b) {
		if (want_folded)
			b->wait_sid = bpf_get_stackid(ctx, &bd_stacks, 0);
		if (b->state == BD_RUNNING) {
			b->s.part[BD_ONCPU] += now - b->ts;
			if (oncpu_period_ns)
				bd_fold_oncpu(b, b->cpu_sid >= 0 ? b->cpu_sid : b->wait_sid, now);
		} else {
			b->s.broken = 1;
		}
		b->state = runnable ? BD_RUNNABLE : BD_ASLEEP;
		b->ts = now;
		b->cpu_sid = -1;
	}
	b = bpf_map_lookup_elem(&insync, &next_tid);
	if (b) {
		if (b->state == BD_ASLEEP) {	/* its wake-up was not seen */
			b->s.broken = 1;
			bd_charge(b, BD_SLEEP, now);
		} else if (b->state == BD_RUNNABLE) {
			bd_note_current(b);
			bd_charge(b, BD_RUNQ, now);
		}
		b->s.switch_ins++;
		b->state = BD_RUNNING;
		b->ts = b->cpu_ts = now;
	}
	return 0;
}

/* sched_waking runs in the waker: note it, for the wake-up. */
static __always_inline int bd_waking(void *ctx, __u32 tid)
{
	struct bd_state *b = bpf_map_lookup_elem(&insync, &tid);

	if (!b)
		return 0;
	bd_note_current(b);
	b->pend_waking = bpf_ktime_get_ns();
	if (want_folded)
		b->pend_sid = bpf_get_stackid(ctx, &bd_stacks, 0);
	return 0;
}

/* sched_waking fires before the woken task has left its CPU, sched_wakeup
 * once it is on a run queue: the sleep ends here. One still running was
 * woken before it slept: nothing to close. */
static __always_inline int bd_wakeup(__u32 tid)
{
	struct bd_state *b = bpf_map_lookup_elem(&insync, &tid);
	__u64 now;

	if (!b)
		return 0;
	if (b->state != BD_ASLEEP) {
		b->pending = 0;
		b->pend_waking = 0;
		return 0;
	}
	now = bpf_ktime_get_ns();
	bd_charge(b, BD_SLEEP, now);
	b->state = BD_RUNNABLE;
	b->ts = now;
	return 0;
}

/* The runnable states: preempted, or switched out still TASK_RUNNING;
 * the perf record encodes both as no state bit below TASK_REPORT_MAX. */
TP_HOOK(sched_switch, bd_switch(ctx, (__u32)ARG_READ(btf_args, prev, pid),
				(__u32)ARG_READ(btf_args, next, pid),
				preempt || prev_state == 0),
	bool preempt, struct task_struct *prev, struct task_struct *next,
	unsigned int prev_state)
TP_HOOK(sched_waking, bd_waking(ctx, (__u32)ARG_READ(btf_args, p, pid)), struct task_struct *p)
TP_HOOK(sched_wakeup, bd_wakeup((__u32)ARG_READ(btf_args, p, pid)), struct task_struct *p)
TP_PERF(sched_switch, sched_switch, bd_switch(ctx, ctx->prev_pid, ctx->next_pid,
					      !(ctx->prev_state & 0xff)))
TP_PERF(sched_waking, sched_wakeup_template, bd_waking(ctx, ctx->pid))
TP_PERF(sched_wakeup, sched_wakeup_template, bd_wakeup(ctx->pid))

/* --oncpu: a cpu-clock sample (perf_event, every CPU) that finds a faulting
 * thread on CPU in its metadata sync folds the time since its last sample
 * (or since it came on CPU) under its kernel stack as sampled. */
SEC("perf_event")
int bd_oncpu_sample(struct bpf_perf_event_data *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct bd_state *b = bpf_map_lookup_elem(&insync, &tid);
	__u64 now;

	if (!tid || !b || !b->sampling || b->state != BD_RUNNING)
		return 0;
	now = bpf_ktime_get_ns();
	b->cpu_sid = bpf_get_stackid(ctx, &bd_stacks, 0);
	bd_fold_oncpu(b, b->cpu_sid, now);
	count(C_ONCPU_SAMPLES);
	return 0;
}

/* Workers: the work item running, or the last one (kept after it returns:
 * what a worker does next, such as completing a flush, is for it). */
static __always_inline int on_work_start(__u64 func)
{
	struct task_state *t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0,
						    BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (t) {
		t->work_func = func;
		t->work_ts = bpf_ktime_get_ns();
	}
	return 0;
}

/* 6.1+: the start event takes the work only. */
TP_HOOK(wq_start, on_work_start((__u64)ARG_READ(btf_args, work, func)), struct work_struct *work)
TP_PERF(wq_start, workqueue_execute_start, on_work_start((__u64)ctx->function))

/* ---- --breakdown: the bios on the faults' devices ------------------------ */

/* A bio in flight, by what both tracepoints' records carry (perf events
 * have no bio pointer): an LRU, so a bio whose completion went unseen
 * (a driver that advanced its iterator) ages out. */
struct bio_key {
	__u64 sector;
	__u32 dev;
	__u32 nr_sector;
};

struct bio_start {
	__u64 ts;
	__u8 flush;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct bio_key);
	__type(value, struct bio_start);
} bios_in_flight SEC(".maps");

static __always_inline int on_bio_queue(__u32 dev, __u64 sector, __u32 nr_sector, bool flush)
{
	struct bio_key k = { .sector = sector, .dev = dev, .nr_sector = nr_sector };
	struct bio_start v = { .flush = flush };

	/* With -p/-c, the devices of the traced faults only. */
	if (filter_tgid && !bpf_map_lookup_elem(&devs, &dev))
		return 0;
	v.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&bios_in_flight, &k, &v, BPF_ANY);
	return 0;
}

static __always_inline int on_bio_complete(__u32 dev, __u64 sector, __u32 nr_sector)
{
	struct bio_key k = { .sector = sector, .dev = dev, .nr_sector = nr_sector };
	struct bio_start *v = bpf_map_lookup_elem(&bios_in_flight, &k);
	static const struct bio_totals zero;
	struct bio_totals *t;
	__u64 d;
	bool flush;

	if (!v)
		return 0;
	d = bpf_ktime_get_ns() - v->ts;
	flush = v->flush;
	bpf_map_delete_elem(&bios_in_flight, &k);
	t = lookup_or_init(&bio_devs, &dev, &zero);
	if (!t)
		return 0;
	__sync_fetch_and_add(&t->n, 1);
	__sync_fetch_and_add(&t->ns, d);
	if (flush) {
		__sync_fetch_and_add(&t->flushes, 1);
		__sync_fetch_and_add(&t->flush_ns, d);
	}
	return 0;
}

/* REQ_PREFLUSH or REQ_FUA in bi_opf: their bits by the running kernel's
 * enum req_flag_bits. */
static __always_inline bool bio_flush(struct bio *bio, bool btf)
{
	__u64 opf = ARG_READ(btf, bio, bi_opf);

	return opf & ((1ULL << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH)) |
		      (1ULL << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)));
}

/* The perf record's rwbs: 'F' is a preflush (first) or FUA (after the op).
 * Copied by its relocated offset and size: its length differs between
 * kernels, and a load per element with the offset folded in is one libbpf
 * cannot relocate (nor may a moved ctx pointer be read). */
#define RWBS_FLUSH(ctx, type) ({							\
	char r[8] = {};									\
	__u32 len = bpf_core_field_size(type, rwbs);					\
	bool f = false;									\
	bpf_probe_read_kernel(r, len < sizeof(r) ? len : sizeof(r),			\
			      (const char *)(ctx) + bpf_core_field_offset(type, rwbs));	\
	for (int i = 0; i < 8; i++)							\
		f |= r[i] == 'F';							\
	f;										\
})

static __always_inline __u32 bio_dev(struct bio *bio, bool btf)
{
	struct block_device *bdev = ARG_READ(btf, bio, bi_bdev);

	return ARG_READ(btf, bdev, bd_dev);
}

TP_HOOK(bio_queue, on_bio_queue(bio_dev(bio, btf_args), ARG_READ(btf_args, bio, bi_iter.bi_sector),
				ARG_READ(btf_args, bio, bi_iter.bi_size) >> 9, bio_flush(bio, btf_args)),
	struct bio *bio)
TP_HOOK(bio_complete, on_bio_complete(bio_dev(bio, btf_args), ARG_READ(btf_args, bio, bi_iter.bi_sector),
				      ARG_READ(btf_args, bio, bi_iter.bi_size) >> 9),
	struct request_queue *q, struct bio *bio)
TP_PERF(bio_queue, block_bio, on_bio_queue(ctx->dev, ctx->sector, ctx->nr_sector,
					   RWBS_FLUSH(ctx, struct trace_event_raw_block_bio)))
TP_PERF(bio_complete, block_bio_complete, on_bio_complete(ctx->dev, ctx->sector, ctx->nr_sector))


/* ---- dax_finish_sync_fault and the vfs_fsync_range inside it ------------ */

/* The fault it finishes is the task's last one, which returned NEEDDSYNC
 * (its size, filesystem, ...: nothing to read again). Its entry also starts
 * phase 2: what lies between it and vfs_fsync_range's entry is the
 * computation of the range, so vfs_fsync_range has only an exit hook. */
static __always_inline int sync_entry(void)
{
	struct task_state *t = task_state(false);

	if (!t || !t->needdsync)
		return 0;
	t->needdsync = 0;
	t->sync_ts = bpf_ktime_get_ns();
	t->fsync_end = 0;
	if (want_breakdown)
		bd_start(&t->fault, t->sync_ts);
	return 0;
}

static __always_inline int sync_exit(void)
{
	struct task_state *t = task_state(false);
	struct fault_info *fi;

	if (!t || !t->sync_ts)
		return 0;
	fi = &t->fault;
	hist_record(K_SYNC_FINISH, fi->size, fi->write, fi->sync, 0, fi->fs,
		    bpf_ktime_get_ns() - t->sync_ts);
	count(C_SYNC_FINISH);
	/* After the fsync's exit its phase was reported and dropped (bd_end). */
	if (want_breakdown && !t->fsync_end)
		bd_drop();
	t->sync_ts = 0;
	return 0;
}

/* Only the fsync a sync fault issues (the first inside it): any other
 * finds no sync_ts, or a fsync_end already set. Every task's fsync comes
 * here: the look-up does not create storage. */
static __always_inline int fsync_exit(void *ctx)
{
	struct task_state *t = task_state(false);
	struct fault_info *fi;
	__u64 now;

	if (!t || !t->sync_ts || t->fsync_end)
		return 0;
	fi = &t->fault;
	if (oncpu_period_ns)
		bd_stop_sampling();
	now = bpf_ktime_get_ns();
	hist_record(K_PHASE2, fi->size, fi->write, fi->sync, 0, fi->fs, now - t->sync_ts);
	if (want_breakdown)
		bd_end(ctx, t->sync_ts, now);
	count(C_METADATA_SYNCS);
	t->fsync_end = now;
	return 0;
}

HOOK_ENTRY(sync, sync_entry())
HOOK_EXIT_NORET(sync, sync_exit())

HOOK_EXIT_NORET(fsync, fsync_exit(ctx))

/* ---- the filesystem's fault handler (targets chosen at run time) -------- */

/*
 * Only phase 4 needs the handler, and only for synchronous write faults:
 * other faults leave at once, on a test of the handler's own vm_fault
 * (plain loads where the arguments are BTF pointers), unless stacks are
 * asked for (their scope is the handler). The exit tests the same where it
 * has the argument (fexit), else finds the state the entry left.
 */
static __always_inline bool handler_wanted(struct vm_fault *vmf, bool btf)
{
	struct vm_area_struct *vma;
	__u64 flags, vm_flags;

	if (want_stacks)
		return true;
	if (!want_phases)
		return false;
	flags = ARG_READ(btf, vmf, flags);
	vma = ARG_READ(btf, vmf, vma);
	vm_flags = ARG_READ(btf, vma, vm_flags);
	return (flags & FAULT_FLAG_WRITE) && (vm_flags & VM_SYNC);
}

static __always_inline int handler_entry(struct vm_fault *vmf, bool btf)
{
	struct task_state *t;

	if (!handler_wanted(vmf, btf))
		return 0;
	t = task_state(true);
	if (!t || t->handler_depth++)
		return 0;
	t->had_dax = t->had_needdsync = 0;
	t->handler_ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int handler_exit(void *ctx, struct vm_fault *vmf, bool btf)
{
	struct task_state *t;
	struct fault_info *fi;
	__u64 lat;

	if (btf && !handler_wanted(vmf, btf))
		return 0;
	t = task_state(false);
	if (!t || !t->handler_depth || --t->handler_depth)
		return 0;
	if (!t->had_dax)
		return 0;
	fi = &t->fault;
	lat = bpf_ktime_get_ns() - t->handler_ts;
	if (t->had_needdsync) {
		count(C_HANDLER_CALLS);
		hist_record(K_PHASE4, fi->size, fi->write, fi->sync, 0, fi->fs, lat);
	}
	if (want_stacks && lat >= stack_min_ns)
		emit_stack(ctx, fi, t->outcome, lat, SCOPE_HANDLER);
	return 0;
}

/* One slot per candidate of the fs_handler hook (bpf/probe/hooks.c); every
 * candidate takes the vm_fault first. The fexit reads it too. */
#define HANDLER_SLOT(n)							\
	HOOK_ENTRY(fs_handler##n, handler_entry(vmf, btf_args), struct vm_fault *vmf) \
	SEC("fexit")							\
	int BPF_PROG(fexit_fs_handler##n, struct vm_fault *vmf)	\
		BTF_BODY(handler_exit(ctx, vmf, true))			\
	SEC("kretprobe")						\
	int BPF_KRETPROBE(kretprobe_fs_handler##n)			\
		RAW_BODY(handler_exit(ctx, NULL, false))

HOOK_SLOTS(HANDLER_SLOT)

/* ---- XFS log force (xfs.ko on Debian; module BTF) ----------------------- */

static __always_inline int logforce_entry(void)
{
	struct task_state *t = task_state(false);

	/* A traced task forcing the log has faulted (or fsynced) before. */
	if (t)
		t->logforce_ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int logforce_exit(void)
{
	struct task_state *t = task_state(false);

	if (!t || !t->logforce_ts)
		return 0;
	hist_record(K_XFS_LOG_FORCE, 0, 0, 0, 0, FS_XFS, bpf_ktime_get_ns() - t->logforce_ts);
	count(C_XFS_LOG_FORCES);
	t->logforce_ts = 0;
	return 0;
}

HOOK_ENTRY(xfs_log_force, logforce_entry())
HOOK_EXIT_NORET(xfs_log_force, logforce_exit())

/* ---- fs_dax tracepoints -------------------------------------------------- */

/* They fire inside dax_iomap_fault or dax_finish_sync_fault, whose hooks
 * gave a traced task its state: none of them creates it. The done
 * tracepoints close the fault where it has no exit hook (exit_at_tp). */
static __always_inline void count_done(bool pmd, int result)
{
	if (!pmd) {
		count(C_PTE_FAULT_DONE);
		return;
	}
	count(C_PMD_FAULT_DONE);
	if (result & VM_FAULT_FALLBACK)
		count(C_PMD_DONE_FALLBACK);
}

/* dax_pte_fault_done (@pmd false) or dax_pmd_fault_done. */
static __always_inline int on_fault_done(void *ctx, int result, bool pmd)
{
	struct task_state *t;

	if (!exit_at_tp) {
		if (in_traced_fault())
			count_done(pmd, result);
		return 0;
	}
	t = task_state(false);
	if (t)
		count_done(pmd, result);
	return fault_close(ctx, t, (__u32)result);
}

static __always_inline int on_mkwrite(void)
{
	struct task_state *t = task_state(false);
	struct fault_info *fi;

	if (!t)
		return 0;
	count(C_MKWRITE);
	/* dax_insert_pfn_mkwrite is inlined: the insertion lies between the
	 * fsync's return and this event, which fires after it. */
	if (t->fsync_end) {
		fi = &t->fault;
		hist_record(K_PHASE3, fi->size, fi->write, fi->sync, 0, fi->fs,
			    bpf_ktime_get_ns() - t->fsync_end);
		t->fsync_end = 0;
	}
	return 0;
}

static __always_inline int on_mkwrite_no_entry(void)
{
	if (task_state(false))
		count(C_MKWRITE_NO_ENTRY);
	return 0;
}

TP_HOOK(pte_done, on_fault_done(ctx, result, false), struct inode *inode,
	struct vm_fault *vmf, int result)
TP_HOOK(pmd_done, on_fault_done(ctx, result, true), struct inode *inode,
	struct vm_fault *vmf, unsigned long max_pgoff, int result)
TP_HOOK(mkwrite, on_mkwrite())
TP_HOOK(mkwrite_no_entry, on_mkwrite_no_entry())
TP_PERF(pte_done, dax_pte_fault_class, on_fault_done(ctx, ctx->result, false))
TP_PERF(pmd_done, dax_pmd_fault_class, on_fault_done(ctx, ctx->result, true))
TP_PERF(mkwrite, dax_pte_fault_class, on_mkwrite())
TP_PERF(mkwrite_no_entry, dax_pte_fault_class, on_mkwrite_no_entry())

/* ---- jbd2 commits (run in kjournald2: filtered by device) --------------- */

/* The state of the kjournald2 thread running a commit (one per journal),
 * if its device is kept: every device, or with -p/-c those the traced
 * faults touched (asked again until true: a commit may come first). */
static __always_inline struct task_state *journal_thread(__u32 dev)
{
	struct task_state *t;

	t = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return NULL;
	if (!t->journal_kept) {
		if (filter_tgid && !bpf_map_lookup_elem(&devs, &dev))
			return NULL;
		t->journal_kept = 1;
	}
	return t;
}

static __always_inline int on_commit_start(__u32 dev, __u32 tid)
{
	struct task_state *t = journal_thread(dev);

	if (!t)
		return 0;
	t->commit_tid = tid;
	t->commit_ts = bpf_ktime_get_ns();
	if (want_breakdown) {
		__builtin_memset(t->jc_ts, 0, sizeof(t->jc_ts));
		t->jc_ts[JC_START - 1] = t->commit_ts;
		t->jc_tid = tid;
	}
	return 0;
}

/* --breakdown: the commit's tracepoint @jc (enum bd_commit) was reached. */
static __always_inline int on_commit_phase(__u32 dev, __u32 tid, int jc)
{
	struct task_state *t = journal_thread(dev);

	if (t && t->jc_tid == tid && jc > 0 && jc < JC_NR)
		t->jc_ts[jc - 1] = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_commit_end(__u32 dev, __u32 tid)
{
	struct task_state *t = journal_thread(dev);
	__u64 now;

	if (!t)
		return 0;
	count(C_JBD2_COMMITS);
	now = bpf_ktime_get_ns();
	if (want_breakdown && t->jc_tid == tid)
		t->jc_ts[JC_END - 1] = now;
	if (!t->commit_ts || t->commit_tid != tid)
		return 0;
	hist_record(K_JBD2_COMMIT, 0, 0, 0, 0, FS_EXT4, now - t->commit_ts);
	t->commit_ts = 0;
	return 0;
}

/* The journal's device and the transaction's tid: what both flavours have;
 * plain loads in tp_btf. */
static __always_inline __u32 journal_dev(journal_t *journal, bool btf)
{
	struct block_device *bdev = ARG_READ_MOD(btf, journal, j_fs_dev);

	return ARG_READ(btf, bdev, bd_dev);
}

#define JOURNAL_DEV(journal) journal_dev(journal, btf_args)
#define TRANS_TID(trans) ARG_READ_MOD(btf_args, trans, t_tid)
TP_HOOK(jbd2_start, on_commit_start(JOURNAL_DEV(journal), TRANS_TID(trans)),
	journal_t *journal, transaction_t *trans)
TP_HOOK(jbd2_end, on_commit_end(JOURNAL_DEV(journal), TRANS_TID(trans)),
	journal_t *journal, transaction_t *trans)
TP_PERF(jbd2_start, jbd2_commit, on_commit_start(ctx->dev, ctx->transaction))
TP_PERF(jbd2_end, jbd2_end_commit, on_commit_end(ctx->dev, ctx->transaction))

#define COMMIT_PHASE(name, jc)						\
	TP_HOOK(name, on_commit_phase(JOURNAL_DEV(journal), TRANS_TID(trans), jc), \
		journal_t *journal, transaction_t *trans)		\
	TP_PERF(name, jbd2_commit, on_commit_phase(ctx->dev, ctx->transaction, jc))
COMMIT_PHASE(jbd2_locking, JC_LOCKING)
COMMIT_PHASE(jbd2_flushing, JC_FLUSHING)
COMMIT_PHASE(jbd2_logging, JC_LOGGING)

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
