/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daxlat user-space helpers that need neither libbpf nor a kernel, so the
 * unit tests can exercise them: the bounded store of stack events (every
 * event above a threshold, or the N slowest), and the mount table line
 * that names a device's filesystem. The kallsyms lookup that
 * symbolizes the stacks is in trace_helpers.h.
 */
#ifndef DAXLAT_UTIL_H
#define DAXLAT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "daxlat.h"

/*
 * Stack events kept for the report. With keep_slowest, at most cap events,
 * the slowest seen; otherwise the first cap events, the rest counted in
 * dropped.
 */
struct evstore {
	struct stack_event *ev;
	size_t n, cap;
	bool keep_slowest;
	unsigned long long dropped;
};

int evstore_init(struct evstore *s, size_t cap, bool keep_slowest);
void evstore_free(struct evstore *s);
void evstore_add(struct evstore *s, const struct stack_event *e);
/* With keep_slowest and a full store: the latency an event must exceed to
 * get in (the BPF side is told, so it stops sending faster ones); else 0. */
__u64 evstore_floor(const struct evstore *s);
/* Sort slowest first (for printing). */
void evstore_sort(struct evstore *s);
void evstore_clear(struct evstore *s);

/*
 * A /proc/PID/mountinfo line: its device as the kernel encodes a dev_t
 * (what fs_dax's tracepoints record) and its filesystem (enum fault_fs).
 * 0 for an ext4 or xfs mount, -1 for any other line.
 */
int mountinfo_dev_fs(const char *line, __u32 *dev, int *fs);

#endif /* DAXLAT_UTIL_H */
