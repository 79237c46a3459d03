/* SPDX-License-Identifier: GPL-2.0 */
/*
 * syncorder's decision logic: a state machine fed with the kernel's event
 * records (syncorder.h) in the order they were produced. No libbpf, no
 * kernel: the unit tests feed it synthetic sequences.
 *
 *	struct sc_checker *c = sc_new();
 *	while (event) sc_feed(c, &event);
 *	sc_set_drops(c, n);     // records the ring buffer lost
 *	sc_finish(c);
 *	c->n_violations, c->violations[], c->n_errors, sc_result(c)
 */
#ifndef SYNCORDER_CHECK_H
#define SYNCORDER_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "ktap.h"
#include "syncorder.h"

/* What went wrong. The first group breaks the MAP_SYNC ordering; the
 * second means the checker could not decide (a run with any of those
 * fails too, but is not reported as a kernel bug). */
enum sc_kind {
	/* invariant: the block-mapping metadata of the fault is durable when
	 * its writable entry goes in */
	SC_V_DIRECT_UNCOMMITTED,	/* mutant (a) */
	SC_V_SYNC_UNCOMMITTED,		/* mutant (b) */
	/* the NEEDDSYNC protocol */
	SC_V_INSERT_IN_NEEDDSYNC,	/* writable entry during a NEEDDSYNC dax_iomap_fault */
	SC_V_INSERT_BEFORE_SYNC,	/* after NEEDDSYNC, before dax_finish_sync_fault */
	SC_V_INSERT_BEFORE_FSYNC,	/* in dax_finish_sync_fault, sync not (successfully) done */
	SC_V_FSYNC_RANGE,		/* the sync did not cover the faulting range */
	SC_V_WRONG_PAGE,		/* insertion for another page than the fault's */
	SC_V_NO_SYNC,			/* NEEDDSYNC, but the handler never finished the sync */
	SC_V_DIRTY_NOT_SYNC,		/* IOMAP_F_DIRTY reached dax, no NEEDDSYNC, entry inserted */
	SC_V_INSERT_OUTSIDE,		/* writable VM_SYNC entry outside any traced fault */
	SC_V_WP_REUSE,			/* made writable by do_wp_page's reuse, no DAX fault */
	SC_V_WRONG_PFN,			/* the entry maps another block than the iomap's */
	SC_V_CHANGE_AFTER_INSERT,	/* the fault changed the mapping after its entry went in */
	SC_V_NR,
	/* checker errors */
	SC_E_NO_IOMAP = SC_V_NR,	/* insertion with no filesystem record: cannot decide */
	SC_E_UNSUPPORTED,		/* ext4 fast_commit / no journal, unknown fs */
	SC_E_SEQUENCE,			/* events out of the expected order (lost hook?) */
	SC_E_DROPS,			/* records lost */
	SC_KIND_NR
};

#define SC_SEQ_MAX	24	/* events kept per fault for a report */
#define SC_SEQ_LEN	256
#define SC_DETAIL_MAX	64	/* violations/errors kept in detail */
#define SC_TEXT_LEN	320

struct sc_report {
	enum sc_kind kind;
	__u32 pid, tid;
	char comm[SO_COMM_LEN + 1];
	__u32 dev;
	__u64 ino;
	__u64 pgoff;
	__u8 fs, size;
	__u64 required;		/* tid / CIL sequence that had to be durable */
	bool has_required;
	char text[SC_TEXT_LEN];	/* the diagnosis */
	int nseq;
	char seq[SC_SEQ_MAX][SC_SEQ_LEN];
};

struct sc_task;
struct sc_dev;

struct sc_stats {
	unsigned long long events;
	unsigned long long faults;		/* VM_SYNC shared write faults */
	unsigned long long faults_ext4, faults_xfs, faults_other;
	unsigned long long faults_pte, faults_pmd;
	unsigned long long allocating;		/* IOMAP_F_NEW: this fault changed the mapping */
	unsigned long long needdsync;
	unsigned long long direct_inserts;	/* writable entry inside dax_iomap_fault */
	unsigned long long sync_inserts;	/* ... inside dax_finish_sync_fault */
	unsigned long long checked;		/* insertions whose commit state was checked */
	unsigned long long pfn_checked;		/* ... whose pfn was checked against the iomap */
	unsigned long long pfn_unchecked;	/* ... whose pfn could not be (see check_pfn) */
	unsigned long long dax_nonlinear;	/* devices whose page offset -> pfn is not one base */
	unsigned long long syncs;		/* dax_finish_sync_fault */
	unsigned long long no_entry;		/* dax_insert_pfn_mkwrite_no_entry */
	unsigned long long jbd2_commits, xfs_checkpoints, xfs_forces;
	unsigned long long in_flight;		/* faults unfinished when the stream ended */
	unsigned long long skipped_in_flight;	/* faults already running when the checker attached */
	unsigned long long unsupported;		/* faults that cannot be checked */
	unsigned long long drops;
	unsigned long long violating_faults;
	/* entries a per-inode check (the inode's datasync tid at insertion, or its
	 * pin count) would have reported while this per-fault one passes them */
	unsigned long long naive_flagged;
};

/* Per process (tgid): what its faults amounted to. */
struct sc_proc {
	__u32 pid;
	char comm[SO_COMM_LEN + 1];
	unsigned long long faults, allocating, needdsync, direct_inserts, sync_inserts;
	unsigned long long checked, pfn_checked, violations, errors;
	unsigned long long naive_flagged;
	unsigned long long by_kind[SC_KIND_NR];
	char first[SC_TEXT_LEN];	/* diagnosis of its first violation */
};

struct sc_checker {
	struct sc_task **buckets;
	size_t nbuckets;
	struct sc_dev *devs;
	size_t ndevs, capdevs;
	struct sc_proc *procs;
	size_t nprocs, capprocs;
	struct sc_stats st;
	unsigned long long by_kind[SC_KIND_NR];
	unsigned long long n_violations;	/* SC_V_* */
	unsigned long long n_errors;		/* SC_E_* */
	struct sc_report reports[SC_DETAIL_MAX];
	size_t nreports;
	unsigned long long reports_dropped;
	bool finished;
	/* An allocation failed: records went to scratch space, the rest of
	 * the stream is ignored, and the result is a failure. */
	bool out_of_memory;
	bool attach_set;
	__u64 attach_ns;			/* bpf_ktime_get_ns clock */
};

/*
 * A task whose first record, within this long after the attach, is not a
 * fault's entry was already inside a fault when the probes went in: that
 * fault is skipped and counted, not judged (its entry state was never seen).
 */
#define SC_INFLIGHT_WINDOW_NS	2000000000ULL

struct sc_checker *sc_new(void);
void sc_free(struct sc_checker *c);
void sc_feed(struct sc_checker *c, const struct so_event *e);
void sc_set_drops(struct sc_checker *c, unsigned long long drops);
/* The probes were attached at @ns (CLOCK_MONOTONIC, as bpf_ktime_get_ns). */
void sc_set_attach_time(struct sc_checker *c, __u64 ns);
/* End of stream: faults still waiting are counted in flight. */
void sc_finish(struct sc_checker *c);

/* 0 pass, 1 violations or errors, 4 nothing was checked (KTAP codes). */
/* KTAP_FAILED: violations, errors, lost events or no memory; else
 * KTAP_ALL_SKIPPED when nothing was checked, KTAP_PASSED. */
enum ktap_verdict sc_result(const struct sc_checker *c);

const char *sc_kind_name(enum sc_kind k);	/* short id, e.g. "sync_uncommitted" */
bool sc_kind_is_violation(enum sc_kind k);

/* One line describing an event, as used in the report sequences. */
void sc_format_event(const struct so_event *e, char *buf, size_t len);

/* jbd2's tid_geq: a at or after b, modulo wrap. */
static inline bool sc_tid_geq(__u32 a, __u32 b)
{
	return (__s32)(a - b) >= 0;
}

#endif /* SYNCORDER_CHECK_H */
