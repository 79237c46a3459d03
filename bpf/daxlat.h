/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daxlat: types shared by daxlat.bpf.c and daxlat.c. Only __u32/__u64 style
 * types here, since both the BPF side (vmlinux.h) and user space include it.
 */
#ifndef DAXLAT_H
#define DAXLAT_H

/* Same slot rule as lib/hist.h: slot = bit length of the value. */
#define DAXLAT_SLOTS		65
#define DAXLAT_MAX_STACK	64
#define DAXLAT_TASK_COMM_LEN	16
#define DAXLAT_NAME_LEN		32	/* a file name, cut */

#include "kinds.h"	/* fault_fs, fault_size, fault_outcome */

/*
 * Histogram kinds. FAULT is keyed by every dimension; the phases of a
 * synchronous write fault (one whose dax_iomap_fault returned NEEDDSYNC) are
 * keyed by size and filesystem; the rest only by filesystem.
 */
enum daxlat_kind {
	K_FAULT,		/* dax_iomap_fault entry -> exit */
	K_PHASE1,		/* dax_iomap_fault body, NEEDDSYNC faults only */
	K_PHASE2,		/* vfs_fsync_range inside dax_finish_sync_fault */
	K_PHASE3,		/* vfs_fsync_range exit -> dax_insert_pfn_mkwrite */
	K_PHASE4,		/* fs fault handler, when it contained a NEEDDSYNC */
	K_SYNC_FINISH,		/* dax_finish_sync_fault entry -> exit */
	K_JBD2_COMMIT,		/* jbd2_start_commit -> jbd2_end_commit, same tid */
	K_XFS_LOG_FORCE,	/* xfs_log_force_seq entry -> exit */
	K_NR
};

struct hist_key {
	__u8 kind;
	__u8 size;
	__u8 write;
	__u8 sync;
	__u8 outcome;
	__u8 fs;
	__u16 pad;
};

struct hist_val {
	__u64 count;
	__u64 sum_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u64 slots[DAXLAT_SLOTS];	/* in the unit user space chose */
};

/*
 * The histograms are one array in the BPF object's .bss (no map look-up on
 * the fault path), a slot for every key: hist_index() below, used by both
 * sides, and its inverse hist_key_of() below.
 */
#define DAXLAT_HISTS		(K_NR * FAULT_SZ_NR * 2 * 2 * OC_NR * FS_NR)

static inline unsigned int hist_index(unsigned int kind, unsigned int size, unsigned int write,
				      unsigned int sync, unsigned int outcome, unsigned int fs)
{
	return ((((kind * FAULT_SZ_NR + size) * 2 + write) * 2 + sync) * OC_NR + outcome) * FS_NR + fs;
}

/* The key of slot @i: hist_index's inverse. */
static inline struct hist_key hist_key_of(unsigned int i)
{
	struct hist_key k = { 0 };

	k.fs = i % FS_NR, i /= FS_NR;
	k.outcome = i % OC_NR, i /= OC_NR;
	k.sync = i % 2, i /= 2;
	k.write = i % 2, i /= 2;
	k.size = i % FAULT_SZ_NR, i /= FAULT_SZ_NR;
	k.kind = i;
	return k;
}

enum daxlat_counter {
	C_FAULTS,		/* dax_iomap_fault calls that returned */
	C_FAULTS_PTE,
	C_FAULTS_PMD,
	C_FAULTS_OTHER_SIZE,
	C_NOPAGE,
	C_NEEDDSYNC,
	C_FALLBACK,
	C_SIGBUS,
	C_OTHER_OUTCOME,
	C_PTE_FAULT_DONE,	/* fs_dax:dax_pte_fault_done */
	C_PMD_FAULT_DONE,	/* fs_dax:dax_pmd_fault_done */
	C_PMD_DONE_FALLBACK,	/* ... whose result had VM_FAULT_FALLBACK */
	C_MKWRITE,		/* fs_dax:dax_insert_pfn_mkwrite */
	C_MKWRITE_NO_ENTRY,	/* fs_dax:dax_insert_pfn_mkwrite_no_entry */
	C_SYNC_FINISH,		/* dax_finish_sync_fault calls that returned */
	C_METADATA_SYNCS,	/* vfs_fsync_range inside dax_finish_sync_fault */
	C_JBD2_COMMITS,		/* jbd2_end_commit */
	C_XFS_LOG_FORCES,	/* xfs_log_force_seq returns */
	C_XFS_CHECKPOINTS,	/* xlog_cil_committed: CIL checkpoints written */
	C_HANDLER_CALLS,	/* fs fault handler calls (outermost) with a NEEDDSYNC fault (--phases) */
	C_STACKS,		/* stack events submitted */
	C_STACKS_LOST,		/* stack events dropped: ring buffer full */
	C_MISSED_ENTRY,		/* exits whose entry was not seen */
	C_SAMPLES_LOST,		/* phase samples dropped: ring buffer full */
	C_BD_LOST,		/* breakdown samples dropped: ring buffer full */
	C_BD_BROKEN,		/* breakdowns with a transition out of order */
	C_ONCPU_SAMPLES,	/* --oncpu samples that found a faulting thread on CPU in its metadata sync */
	C_DEV_UNMAPPED,		/* faults opened at a start tracepoint on a device of no
				 * filesystem daxlat read in the mount table */
	C_NR
};

/* One phase of one synchronous fault (--samples-out). */
struct phase_sample {
	__u64 ns;
	__u8 kind;		/* K_PHASE1..K_PHASE4 */
	__u8 fs;
	__u8 size;
	__u8 pad[5];
};


/*
 * --breakdown: where the metadata sync of one synchronous fault (phase 2,
 * dax_finish_sync_fault entry -> vfs_fsync_range exit) went, from the
 * faulting thread's scheduler transitions: on a CPU, runnable (woken or
 * preempted, waiting for a CPU), asleep. Each wait is charged to a task
 * as it was then: a sleep to its waker (sched_waking runs in the waker), a
 * runnable wait to the task that held the CPU last. A jbd2 commit in
 * kjournald2 gets the wait spread over its tracepoints; a workqueue worker
 * (xfs's CIL push and log I/O completion) splits it into the time before
 * its work item began and after.
 */
enum bd_part { BD_ONCPU, BD_RUNQ, BD_SLEEP, BD_PARTS };

enum bd_waker {
	W_JBD2,			/* kjournald2, in or just after a commit */
	W_XFS_CIL,		/* a worker in (or just after) xlog_cil_push_work */
	W_XFS_LOG_IO,		/* ... xlog_ioend_work */
	W_WORKER,		/* ... another work function */
	W_IDLE,			/* the idle task (a runnable wait: wake-up latency) */
	W_OTHER,		/* any other task, or none seen */
	W_NR
};

/* A sleep woken by a jbd2 commit, over that commit's tracepoints:
 * sleep start -> jbd2_start_commit -> jbd2_commit_locking -> _flushing
 * -> _logging -> jbd2_end_commit -> the wake-up. */
enum bd_commit { JC_BEFORE, JC_START, JC_LOCKING, JC_FLUSHING, JC_LOGGING, JC_END, JC_NR };

struct bd_sample {
	__u64 end_ns;			/* phase end, CLOCK_MONOTONIC */
	__u64 phase_ns;
	__u64 part[BD_PARTS];
	__u64 sleep_by[W_NR];
	__u64 runq_by[W_NR];		/* runnable, behind the task that held the CPU */
	__u64 commit[JC_NR];		/* waits charged to a jbd2 commit, over its tracepoints */
	__u64 work_queued;		/* waits on a worker: before its work item began */
	__u64 work_running;		/* ... after */
	__u64 wake_delivery;		/* of the sleeps: sched_waking -> sched_wakeup */
	__u64 run_delay;		/* the kernel's sched_info.run_delay over the phase */
	__u64 bio_ns;			/* bios completed on its device during the phase: their latency */
	__u64 flush_ns;			/* ... of those with REQ_PREFLUSH or REQ_FUA */
	__u64 ino;
	__u64 cgroup;			/* cgroup v2 id */
	__u64 waker_func;		/* its task's work function, 0 if none */
	__u32 dev;
	__u32 tgid;
	__u32 tid;
	__u32 switch_ins;		/* seen by the breakdown */
	__u32 pcount;			/* the kernel's sched_info.pcount over the phase */
	__u32 commit_tid;		/* the jbd2 commit of the longest wait */
	__u32 bios;			/* bios completed on its device during the phase */
	__u32 flushes;			/* ... with REQ_PREFLUSH or REQ_FUA */
	__u8 fs;
	__u8 main_wait;			/* bd_waker of the longest wait */
	__u8 main_wait_part;		/* ... BD_SLEEP or BD_RUNQ */
	__u8 broken;			/* a transition out of order was seen */
	__u8 pad[4];
	char comm[DAXLAT_TASK_COMM_LEN];
	char waker_comm[DAXLAT_TASK_COMM_LEN];	/* the task of the longest wait */
	char file[DAXLAT_NAME_LEN];		/* the faulted file's name, cut */
};

/* --folded: the metadata sync's waits by stack pair, summed in the kernel. */
#define DAXLAT_FOLD_DEPTH	64
struct bd_fold_key {
	__s32 wait_stack;		/* the faulting thread's kernel stack as it left the CPU
					 * (BD_ONCPU: as sampled on it) */
	__s32 other_stack;		/* its waker's at sched_waking; -1 for a runnable wait */
	__u8 fs;
	__u8 part;			/* BD_SLEEP, BD_RUNQ, or BD_ONCPU (--oncpu) */
	__u8 pad[2];
	char other_comm[DAXLAT_TASK_COMM_LEN];	/* the waker, or the task that held the CPU */
};

struct bd_fold_val {
	__u64 ns;
	__u64 count;
};

/* Where a stack event's latency was measured. */
enum daxlat_scope { SCOPE_IOMAP, SCOPE_HANDLER };

struct stack_event {
	__u64 lat_ns;
	__u64 ino;
	__u64 pgoff;
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 dev;		/* kernel dev_t: major << 20 | minor */
	__s32 kstack_sz;	/* bytes, or a negative error */
	__u8 size;
	__u8 write;
	__u8 sync;
	__u8 outcome;
	__u8 fs;
	__u8 scope;
	__u8 pad[2];
	char comm[DAXLAT_TASK_COMM_LEN];
	__u64 kstack[DAXLAT_MAX_STACK];
};

#endif /* DAXLAT_H */
