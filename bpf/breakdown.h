/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daxlat --breakdown, user-space side without libbpf (unit-tested on the
 * host): the per-fault samples of daxlat.h's struct bd_sample kept, checked
 * and summed per filesystem, printed as text, JSON and one line per fault.
 */
#ifndef BREAKDOWN_H
#define BREAKDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "daxlat.h"

struct json_writer;

/* Per fault, the parts must add up to the phase within this share. */
#define BD_SUM_TOL_PCT		1.0
/* The runnable part against the kernel's sched_info.run_delay. */
#define BD_RUNQ_TOL_NS		10000ULL
#define BD_RUNQ_TOL_PCT		2.0

struct bd_store {
	struct bd_sample *v;
	size_t n, cap;
	bool out_of_memory;
};

/* Per filesystem, over the samples of a store. */
struct bd_summary {
	__u64 faults;
	__u64 phase_ns, part[BD_PARTS], sleep_by[W_NR], runq_by[W_NR], commit[JC_NR];
	__u64 work_queued, work_running, wake_delivery;
	__u64 bios, bio_ns, flushes, flush_ns;	/* on the faults' devices during their phases */
	__u64 sum_ok;		/* faults whose parts add up within BD_SUM_TOL_PCT */
	__u64 runq_ok;		/* ... whose runnable part matches sched_info.run_delay (reported, not a check: rq_clock and ktime part under TCG) */
	__u64 switches_ok;	/* ... whose switch-ins match sched_info.pcount */
	__u64 broken;
	__u64 main_wait[W_NR];	/* faults whose longest wait was on each */
	long long worst_sum_diff_ns;	/* the largest |parts - phase| */
};

/* Names a kernel address (a work function); NULL if unknown. */
typedef const char *(*bd_symbolize_fn)(__u64 addr, void *ctx);

/* A ring-buffer record: 0, or -1 (out of memory, noted). */
int bd_store_add(struct bd_store *st, const void *data, size_t len);
void bd_store_clear(struct bd_store *st);
void bd_store_free(struct bd_store *st);

const char *bd_waker_name(unsigned int w);	/* "jbd2_commit", ... */
const char *bd_commit_name(unsigned int jc);	/* "before", "start", ... */
const char *bd_part_name(unsigned int p);	/* "on_cpu", "runnable", "asleep" */

/* One fault's checks. */
bool bd_sample_sums(const struct bd_sample *s);
bool bd_sample_runq_agrees(const struct bd_sample *s);

void bd_summarize(const struct bd_store *st, struct bd_summary sum[FS_NR]);

/* The report: a table per filesystem in @unit (ns per unit, name). */
void bd_print_text(FILE *out, const struct bd_store *st, __u64 unit_div, const char *unit);
void bd_json(struct json_writer *w, const struct bd_store *st);
/*
 * --by: the faults grouped by process (tgid; its comm), by file (device
 * and inode; its name) or by cgroup (v2 id; its path through @cgroup_path),
 * the groups sorted by their total metadata-sync time, longest first.
 */
enum bd_by { BD_BY_NONE, BD_BY_PID, BD_BY_FILE, BD_BY_CGROUP };

struct bd_group {
	__u64 key, key2;	/* tgid; dev, ino; cgroup id */
	char name[256];
	__u64 faults, phase_ns, part[BD_PARTS], main_wait[W_NR];
};

typedef void (*bd_cgroup_path_fn)(__u64 id, char *buf, size_t len, void *ctx);

const char *bd_by_name(enum bd_by by);		/* "pid", "file", "cgroup" */
int bd_by_parse(const char *s, enum bd_by *by);	/* 0, or -EINVAL */
/* @out (malloc'ed, free it) and @n; 0 or -ENOMEM. */
int bd_group(const struct bd_store *st, enum bd_by by, bd_cgroup_path_fn cgroup_path, void *ctx,
	     struct bd_group **out, size_t *n);
void bd_print_groups_text(FILE *out, enum bd_by by, const struct bd_group *g, size_t n, size_t top,
			  __u64 unit_div, const char *unit);
void bd_json_groups(struct json_writer *w, enum bd_by by, const struct bd_group *g, size_t n, size_t top);

/* --breakdown-out: a header line, then a line per fault (bpf/README.md). */
int bd_write_lines(FILE *out, const struct bd_store *st, bd_symbolize_fn sym, void *ctx);

/*
 * --folded: one line of the folded-stack format (flame graph tools), in
 * offwaketime's layout: "[FS metadata sync];wait stack root->leaf;--;
 * waker stack leaf->root;waker NS", or for a runnable wait "...;--;
 * [runnable behind COMM] NS", or for an on-CPU sample (--oncpu) "...;
 * sampled stack root->leaf;--;[on CPU] NS". A stack is DAXLAT_FOLD_DEPTH addresses, leaf
 * first, 0-terminated; NULL for none.
 */
void bd_fold_line(FILE *out, const struct bd_fold_key *k, const struct bd_fold_val *v,
		  const __u64 *wait_ips, const __u64 *other_ips, bd_symbolize_fn sym, void *ctx);

#endif /* BREAKDOWN_H */
