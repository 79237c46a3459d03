/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What daxlat traces, in attach order; bpf/probe/hooks.c says where each
 * hook is in a given kernel. Read by daxlat.c and by tests/unit/test_probe.c,
 * which checks daxlat.bpf.c has the programs of every candidate.
 */
#ifndef DAXLAT_PROBES_H
#define DAXLAT_PROBES_H

#include "probe.h"

#define BOTH	(PROBE_ENTRY | PROBE_EXIT)

static const struct probe_use daxlat_uses[] = {
	{ HOOK_FAULT, PROBE_REQUIRED, BOTH, NULL, HOOK_NONE },
	{ HOOK_SYNC, PROBE_OPTIONAL, BOTH, NULL, HOOK_NONE },
	{ HOOK_FSYNC, PROBE_OPTIONAL, PROBE_EXIT, NULL, HOOK_NONE },	/* phase 2 starts with the sync hook */
	{ HOOK_XFS_LOG_FORCE, PROBE_OPTIONAL, BOTH, NULL, HOOK_NONE },
	{ HOOK_FS_HANDLER, PROBE_OPTIONAL, BOTH, NULL, HOOK_NONE },
	/* where the fault's entry is fs_dax's start tracepoints (entry_at_tp) */
	{ HOOK_PTE_START, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_PMD_START, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_PTE_DONE, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_PMD_DONE, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_MKWRITE, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_MKWRITE_NO_ENTRY, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_JBD2_START, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_JBD2_END, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_XFS_CKPT, PROBE_OPTIONAL, PROBE_ENTRY, NULL, HOOK_NONE },
	/* --breakdown only (daxlat_breakdown_hooks) */
	{ HOOK_SCHED_SWITCH, PROBE_REQUIRED, 0, NULL, HOOK_NONE },
	{ HOOK_SCHED_WAKING, PROBE_REQUIRED, 0, NULL, HOOK_NONE },
	{ HOOK_SCHED_WAKEUP, PROBE_REQUIRED, 0, NULL, HOOK_NONE },
	{ HOOK_WQ_START, PROBE_REQUIRED, 0, NULL, HOOK_NONE },
	{ HOOK_JBD2_LOCKING, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_JBD2_FLUSHING, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_JBD2_LOGGING, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_BIO_QUEUE, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
	{ HOOK_BIO_COMPLETE, PROBE_OPTIONAL, 0, NULL, HOOK_NONE },
};

/*
 * The hooks only --phases needs: the phase split (the fs handler, which
 * stacks need too, dax_finish_sync_fault, vfs_fsync_range, the mkwrite
 * tracepoints that end phase 3 and count the writable insertions) and the
 * journal's side (jbd2 commits, xfs log forces and checkpoints). Without
 * them a fault costs dax_iomap_fault's entry and a done tracepoint, or
 * its pair (bench/README.md, "What daxlat costs").
 */
static const enum probe_hook_id daxlat_phase_hooks[] = {
	HOOK_SYNC, HOOK_FSYNC, HOOK_XFS_LOG_FORCE, HOOK_FS_HANDLER,
	HOOK_MKWRITE, HOOK_MKWRITE_NO_ENTRY,
	HOOK_JBD2_START, HOOK_JBD2_END, HOOK_XFS_CKPT,
};

/*
 * The hooks only --breakdown needs: the faulting thread's scheduler
 * transitions (every context switch and wake-up in the system passes them),
 * the workers' work items, the jbd2 commit's inner tracepoints and the
 * block layer's bios (the log's writes and cache flushes).
 */
static const enum probe_hook_id daxlat_breakdown_hooks[] = {
	HOOK_SCHED_SWITCH, HOOK_SCHED_WAKING, HOOK_SCHED_WAKEUP, HOOK_WQ_START,
	HOOK_JBD2_LOCKING, HOOK_JBD2_FLUSHING, HOOK_JBD2_LOGGING,
	HOOK_BIO_QUEUE, HOOK_BIO_COMPLETE,
};

#undef BOTH

#endif /* DAXLAT_PROBES_H */
