// SPDX-License-Identifier: GPL-2.0
/*
 * daxlat: latency of DAX page faults inside the kernel, with the phases of
 * synchronous (MAP_SYNC) write faults. User space: attaches through the
 * probe layer (bpf/probe/: fentry -> kprobe, tp_btf -> raw_tp), reads the
 * fault size argument's meaning from the running kernel's BTF, prints
 * histograms.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "daxlat.h"
#include "breakdown.h"
#include "daxlat_util.h"
#include "metrics.h"
#include "daxlat.skel.h"
#include "daxlat_probes.h"
#include "trace_helpers.h"
#include "exitcodes.h"
#include "hist.h"
#include "json.h"
#include "samples.h"

#define NR_STORED_STACKS 1000	/* --stack-threshold keeps at most this many */

static struct env {
	struct trace_opts opt;	/* -p, -c, --json, --kprobes, --raw-tp, -v */
	__u64 unit_div;
	const char *unit;	/* "us" */
	const char *unit_name;	/* "usecs" */
	bool timestamp;
	long long stack_threshold_us;	/* -1: off */
	long top;
	long interval;		/* seconds, 0: none */
	long times;
	const char *samples_out;	/* --samples-out */
	bool prog_stats;	/* --prog-stats */
	bool phases;		/* --phases (or --samples-out) */
	bool breakdown;	/* --breakdown (or --breakdown-out): implies phases */
	const char *breakdown_out;
	const char *folded_out;	/* --folded (implies --breakdown) */
	long oncpu_hz;		/* --oncpu: 0, off */
	const char *openmetrics;	/* --openmetrics */
	enum bd_by by;	/* --by (implies --breakdown) */
	long by_top;
} env = {
	.unit_div = 1000, .unit = "us", .unit_name = "usecs",
	.stack_threshold_us = -1, .times = -1,
	.by_top = 10,
};

const char *argp_program_version = "daxlat 0.1";
error_t argp_err_exit_status = EXIT_USAGE;
static const char doc[] =
"Trace DAX page fault latency in the kernel, with the phases of MAP_SYNC faults.\n"
"\n"
"USAGE: daxlat [-p PID | -c CMD] [-m|-u|-n] [-T] [--json] [--phases | --breakdown] [--kprobes | --fentry]\n"
"              [--stack-threshold USEC | --top N] [--breakdown-out F] [--by KEY] [--folded F]\n"
"              [--openmetrics F] [-v] [interval] [count]\n"
"\n"
"EXAMPLES:\n"
"    daxlat                      # trace all DAX faults until Ctrl-C\n"
"    daxlat 1 10                 # print every second, 10 times\n"
"    daxlat --phases -c CMD      # the phases of its MAP_SYNC faults, commits\n"
"    daxlat -c 'faultlat -f /mnt/x/f -s empty --sync' --samples-out ph.txt  # every phase, in ns\n"
"    daxlat --breakdown -c CMD   # where each metadata sync went: on CPU, runnable, asleep\n"
"                                # and what woke it (jbd2 commit phases, xfs workers)\n"
"    daxlat --breakdown-out bd.txt -c CMD   # ... and a line per fault (pid, inode, parts)\n"
"    daxlat --by file -c CMD     # ... grouped by file (or pid, cgroup), busiest first\n"
"    daxlat --folded w.folded -c CMD   # the waits as folded stacks, for flame graphs\n"
"    daxlat --openmetrics /var/lib/node_exporter/daxlat.prom 10   # Prometheus, every 10 s\n"
"    daxlat -p 185               # only process 185 (all its threads)\n"
"    daxlat -c 'faultlat -f /mnt/ext4/f -n 512 --sync >/tmp/out'\n"
"                                # run a command, trace it and its children\n"
"    daxlat --json -c CMD | jq .counters\n"
"    daxlat -m -T 5              # milliseconds, timestamps, every 5 s\n"
"    daxlat --kprobes            # kprobes even where fentry works\n"
"    daxlat --top 5              # kernel stacks of the 5 slowest faults\n"
"    daxlat --stack-threshold 500   # kernel stacks of faults over 500 us\n"
"\n"
"The command's own output shares daxlat's stdout: redirect it in CMD when\n"
"parsing --json. Exit status with -c: the command's, if tracing worked;\n"
"stopped by SIGINT/SIGTERM before it ended, the command (its whole process\n"
"group) is stopped too and the exit status is 128 + the signal.\n"
"\v"
"NOTES:\n"
"  Filtering (-p, -c) is by process (tgid). -c also follows every process\n"
"  the command forks, from the moment it starts; processes it did not fork\n"
"  are never traced. jbd2 commits run in kjournald2, not in the traced\n"
"  process: with a filter they are counted for the devices the traced\n"
"  processes faulted on, so another process's commits there count too.\n"
"  A synchronous fault is one whose dax_iomap_fault returned NEEDDSYNC;\n"
"  with --phases its phases are 1 dax_iomap_fault, 2 dax_finish_sync_fault's\n"
"  vfs_fsync_range (from its entry), 3 from that fsync's return to the\n"
"  fs_dax:dax_insert_pfn_mkwrite event, 4 the filesystem's fault handler.\n"
"  --breakdown splits phase 2 by the faulting thread's scheduler events\n"
"  (sched_switch, sched_waking, sched_wakeup): its parts add up to the\n"
"  phase; each sleep is charged to the task that woke it, as it was then\n"
"  (a jbd2 commit between its tracepoints, a worker in its work item).\n"
"\n"
"OVERHEAD:\n"
"  Per DAX fault: dax_iomap_fault's entry and exit and one fs_dax\n"
"  tracepoint, per-task state in task storage, histograms in an array: in\n"
"  QEMU's instruction count, less than libbpf-tools' funclatency on the\n"
"  same function. --phases adds the fs handler's pair, dax_finish_sync_fault,\n"
"  vfs_fsync_range's exit (every fsync in the system passes it) and the\n"
"  journal's tracepoints: about 2 % more on a MAP_SYNC fault that allocates\n"
"  (bench/README.md, \"What daxlat costs\"; --prog-stats shows each program).\n"
"  --breakdown adds a program to every context switch and wake-up in the\n"
"  system and to every work item: a tool for an investigation, not for\n"
"  always-on monitoring.\n"
"\n"
"EXIT STATUS:\n"
"  0 ok (with -c: the command's status), 1 runtime error, 2 usage,\n"
"  8 the kernel has no BTF, 9 dax_iomap_fault cannot be traced.";

enum { OPT_STACK_THRESHOLD = OPT_TOOL, OPT_TOP, OPT_SAMPLES_OUT, OPT_PROG_STATS, OPT_PHASES,
       OPT_BREAKDOWN, OPT_BREAKDOWN_OUT, OPT_BY, OPT_BY_TOP, OPT_FOLDED, OPT_ONCPU, OPT_OPENMETRICS };
/* More slowest-fault stacks than anybody reads; bounds the memory. */
#define DAXLAT_TOP_MAX	10000

static const struct argp_option opts[] = {
	{ "pid", 'p', "PID", 0, "Trace this process only (all its threads)", 0 },
	{ "command", 'c', "CMD", 0, "Run CMD with sh -c once the probes are attached; trace it and the processes it forks; stop when it exits", 0 },
	{ "milliseconds", 'm', NULL, 0, "Histograms in milliseconds", 0 },
	{ "microseconds", 'u', NULL, 0, "Histograms in microseconds (default)", 0 },
	{ "nanoseconds", 'n', NULL, 0, "Histograms in nanoseconds", 0 },
	{ "timestamp", 'T', NULL, 0, "Print a timestamp with each report", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per report instead of text", 0 },
	{ "kprobes", OPT_KPROBES, NULL, 0, "Use kprobes/kretprobes, not fentry/fexit", 0 },
	{ "raw-tp", OPT_RAW_TP, NULL, 0, "Use raw tracepoints, not tp_btf", 0 },
	{ "fentry", OPT_FENTRY, NULL, 0, "Use fentry and tp_btf even where the kernel can preempt "
	  "them (the default there is kprobes and perf tracepoints: a preempted program makes the "
	  "kernel skip the next one, and its event is not counted)", 0 },
	{ "stack-threshold", OPT_STACK_THRESHOLD, "USEC", 0, "Record the kernel stack of faults slower than USEC", 0 },
	{ "top", OPT_TOP, "N", 0, "Record the kernel stacks of the N slowest faults", 0 },
	{ "phases", OPT_PHASES, NULL, 0, "Also split every MAP_SYNC fault into its phases, and count and time "
	  "its metadata syncs, jbd2 commits and xfs log forces (seven more hooks: see OVERHEAD)", 0 },
	{ "breakdown", OPT_BREAKDOWN, NULL, 0, "Also split every MAP_SYNC fault's metadata sync across threads: "
	  "its thread on CPU, runnable, asleep, and each sleep charged to what woke it (a jbd2 commit and "
	  "its phases, xfs's CIL push or log I/O worker); implies --phases and hooks every context switch "
	  "and wake-up", 0 },
	{ "breakdown-out", OPT_BREAKDOWN_OUT, "FILE", 0, "Also write the breakdown of every MAP_SYNC fault "
	  "to FILE, a line per fault (its first line names the fields; implies --breakdown)", 0 },
	{ "by", OPT_BY, "KEY", 0, "Also group the breakdowns by KEY: pid, file (device and inode, with "
	  "the file's name) or cgroup (with its path); the groups with the longest metadata syncs in "
	  "total first (implies --breakdown)", 0 },
	{ "folded", OPT_FOLDED, "FILE", 0, "Also write the metadata sync's waits as folded stacks to FILE, "
	  "for flame graph tools: the faulting thread's stack as it slept, '--', its waker's as it woke "
	  "it (offwaketime's layout), in ns (implies --breakdown)", 0 },
	{ "oncpu", OPT_ONCPU, "HZ", 0, "With --folded, also sample the faulting thread's kernel stack HZ times "
	  "a second while it is on CPU in the metadata sync: its on-CPU time by stack, lines ending "
	  "'--;[on CPU]', each sample the time since the last (a perf cpu-clock event per CPU)", 0 },
	{ "openmetrics", OPT_OPENMETRICS, "FILE", 0, "Also keep FILE a Prometheus text exposition of the "
	  "run's histograms (seconds), counters and breakdowns, rewritten whole at every report (for "
	  "node_exporter's textfile collector)", 0 },
	{ "by-top", OPT_BY_TOP, "N", 0, "With --by, show N groups (default 10)", 0 },
	{ "samples-out", OPT_SAMPLES_OUT, "FILE", 0, "Also write every phase of every MAP_SYNC fault to FILE "
	  "in ns, a line per filesystem and phase: 'FS PHASE NS...' (PHASE: iomap, fsync, mkwrite, "
	  "handler; the regression gate reads them)", 0 },
	{ "prog-stats", OPT_PROG_STATS, NULL, 0, "Also report what each BPF program costs: its runs and run time as the "
	  "kernel counts them (run-time statistics on while daxlat runs)", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf debug output and probe decisions", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static int pos;

	if (!trace_opts_parse(&env.opt, key, arg, state))
		return 0;
	switch (key) {
	case 'm':
		env.unit_div = 1000000, env.unit = "ms", env.unit_name = "msecs";
		break;
	case 'u':
		env.unit_div = 1000, env.unit = "us", env.unit_name = "usecs";
		break;
	case 'n':
		env.unit_div = 1, env.unit = "ns", env.unit_name = "nsecs";
		break;
	case 'T':
		env.timestamp = true;
		break;
	case OPT_STACK_THRESHOLD:
		env.stack_threshold_us = argp_parse_long(arg, "threshold", 0, 3600L * 1000000, state);
		break;
	case OPT_TOP:
		env.top = argp_parse_long(arg, "count for --top", 1, DAXLAT_TOP_MAX, state);
		break;
	case OPT_PROG_STATS:
		env.prog_stats = true;
		break;
	case OPT_PHASES:
		env.phases = true;
		break;
	case OPT_BY:
		if (bd_by_parse(arg, &env.by))
			argp_error(state, "--by: pid, file or cgroup, not '%s'", arg);
		env.breakdown = env.phases = true;
		break;
	case OPT_FOLDED:
		env.folded_out = arg;
		env.breakdown = env.phases = true;
		break;
	case OPT_ONCPU:
		env.oncpu_hz = argp_parse_long(arg, "rate for --oncpu", 1, 100000, state);
		break;
	case OPT_OPENMETRICS:
		env.openmetrics = arg;
		break;
	case OPT_BY_TOP:
		env.by_top = argp_parse_long(arg, "count for --by-top", 1, 100000, state);
		break;
	case OPT_BREAKDOWN_OUT:
		env.breakdown_out = arg;
		/* fall through */
	case OPT_BREAKDOWN:
		env.breakdown = env.phases = true;
		break;
	case OPT_SAMPLES_OUT:
		env.samples_out = arg;
		env.phases = true;
		break;
	case ARGP_KEY_ARG:
		if (pos == 0)
			env.interval = argp_parse_long(arg, "interval", 1, 86400, state);
		else if (pos == 1)
			env.times = argp_parse_long(arg, "count", 1, LONG_MAX, state);
		else
			argp_error(state, "too many arguments: %s", arg);
		pos++;
		break;
	case ARGP_KEY_END:
		if (env.opt.pid && env.opt.cmd)
			argp_error(state, "-p and -c exclude each other");
		if (env.top && env.stack_threshold_us >= 0)
			argp_error(state, "--top and --stack-threshold exclude each other");
		if (env.oncpu_hz && !env.folded_out)
			argp_error(state, "--oncpu needs --folded: its samples go to the folded stacks");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- probes -------------------------------------------------------------- */

static struct probe_set probes;
static struct bpf_link *fork_link;
static struct bpf_link **oncpu_links;	/* --oncpu: a sampling event per CPU */
static int oncpu_ncpus;
static struct ksyms *ksyms;	/* for stack symbols; the probe layer's */
static struct om_state *om;	/* --openmetrics: the run's totals */
static struct bd_store breakdowns;	/* --breakdown: every fault, or those since the last report */
static size_t breakdowns_reported;	/* --breakdown-out keeps them all: the reported ones */

/* Where kprobes and perf tracepoints are chosen, the fault's exit is the
 * done tracepoint (exit_at_tp in daxlat.bpf.c): set by resolve_kernel. */
static bool exit_at_tp;
/* ... and its entry at fs_dax's start tracepoints, unless --breakdown
 * (which names the file from the dentry dax_iomap_fault's argument
 * reaches): the filesystem then comes from the mount table (dev_fs). */
static bool entry_at_tp;
static int mounts_fd = -1;	/* entry_at_tp: /proc/self/mountinfo, polled for changes */

static bool want_stacks(void)
{
	return env.top || env.stack_threshold_us >= 0;
}

/* A kernel function's address (--breakdown names xfs's wakers by it), 0 if
 * unknown or not asked for. */
static __u64 ksym_addr(const char *name)
{
	const struct ksym *s;

	if (!env.breakdown || !(ksyms = probe_kernel_ksyms()))
		return 0;
	s = ksyms_by_name(ksyms, name);
	return s ? s->addr : 0;
}

/* The skeleton, opened, with what it needs to know before load. */
static void *open_skel(const void *cfg)
{
	struct daxlat_bpf *skel = daxlat_bpf__open();

	if (skel) {
		TRACE_CFG_APPLY(skel, (const struct trace_cfg *)cfg);
		skel->rodata->unit_div = env.unit_div;
		skel->rodata->want_stacks = want_stacks();
		skel->rodata->want_samples = env.samples_out != NULL;
		skel->rodata->want_phases = env.phases;
		skel->rodata->exit_at_tp = exit_at_tp;
		skel->rodata->want_breakdown = env.breakdown;
		skel->rodata->want_folded = env.folded_out != NULL;
		skel->rodata->oncpu_period_ns = env.oncpu_hz ? 1000000000ULL / env.oncpu_hz : 0;
		bpf_program__set_autoload(skel->progs.bd_oncpu_sample, env.oncpu_hz > 0);
		skel->rodata->xfs_cil_push_fn = ksym_addr("xlog_cil_push_work");
		skel->rodata->xfs_ioend_fn = ksym_addr("xlog_ioend_work");
	}
	return skel;
}

PROBE_SKEL_LOADER(daxlat_bpf, open_skel);

static void detach_all(void)
{
	probe_detach(&probes);
	destroy_links(&fork_link, 1);
	if (oncpu_links)
		destroy_links(oncpu_links, oncpu_ncpus);
	free(oncpu_links);
	oncpu_links = NULL;
}

/* dax_iomap_fault did not attach: why, one line. */
static void explain_no_fault_probe(void)
{
	const struct probe_target *t = probe_first(&probes, HOOK_FAULT);

	if (!t->cand) {
		fprintf(stderr, "daxlat: cannot trace dax_iomap_fault: not in this kernel "
			"(BTF nor kallsyms)\n");
		return;
	}
	fprintf(stderr, "daxlat: cannot trace %s: fentry %s%s, kprobe %s%s\n", t->name,
		env.opt.kprobes ? "not tried (--kprobes)" :
		t->fast_err ? strerror(-t->fast_err) : "attach failed",
		t->fast_err == -EPERM ? " (BPF tracing restricted?)" : "",
		!t->ksym && !t->btf ? "impossible (not in /proc/kallsyms)" : strerror(-t->err),
		kprobes_unavailable() ? " (the kernel has no kprobe PMU nor kprobe_events)" : "");
}

/* ---- the filesystem of a device (entry_at_tp) ----------------------------- */

/* Delete from dev_fs the devices not in @keep (no longer mounted). */
static void dev_fs_prune(int map_fd, const __u32 *keep, size_t nkeep)
{
	__u32 key, next, *prev = NULL;

	while (!bpf_map_get_next_key(map_fd, prev, &next)) {
		bool kept = false;

		for (size_t i = 0; i < nkeep && !kept; i++)
			kept = keep[i] == next;
		key = next;
		if (!kept && !bpf_map_delete_elem(map_fd, &key))
			prev = NULL;	/* the walk starts over: the key is gone */
		else
			prev = &key;
	}
}

/* Every ext4 and xfs mount's device into dev_fs, the others out; the BPF
 * side's generation moves so the tasks ask again. 0 or -errno. */
static int dev_fs_refresh(struct daxlat_bpf *skel)
{
	int map_fd = bpf_map__fd(skel->maps.dev_fs), fs, err = 0;
	__u32 keep[1024], dev;
	size_t nkeep = 0;
	char line[4096];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		__u8 v;

		if (mountinfo_dev_fs(line, &dev, &fs) || nkeep == sizeof(keep) / sizeof(*keep))
			continue;
		v = fs;
		if (bpf_map_update_elem(map_fd, &dev, &v, BPF_ANY)) {
			err = -errno;
			break;
		}
		keep[nkeep++] = dev;
	}
	fclose(f);
	if (!err)
		dev_fs_prune(map_fd, keep, nkeep);
	skel->bss->dev_fs_gen++;
	return err;
}

/* Fill dev_fs and watch the mount table for changes. 0 or -errno. */
static int dev_fs_start(struct daxlat_bpf *skel)
{
	mounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (mounts_fd < 0)
		return -errno;
	return dev_fs_refresh(skel);
}

/* ---- reporting ----------------------------------------------------------- */

/* Reports list ext4, then xfs, then the rest. */
static const int fs_print_order[FS_NR] = { FS_EXT4, FS_XFS, FS_OTHER };

static int fs_rank(unsigned int fs)
{
	for (int i = 0; i < FS_NR; i++)
		if (fs_print_order[i] == (int)fs)
			return i;
	return FS_NR;
}

/* phases: counted by the hooks only --phases attaches (absent without it);
 * breakdown: only with --breakdown. */
static const struct {
	const char *json;
	const char *text;
	bool phases;
	bool breakdown;
} counter_names[C_NR] = {
	[C_FAULTS] = { "dax_iomap_fault", "dax_iomap_fault calls" },
	[C_FAULTS_PTE] = { "pte", "  PTE-sized" },
	[C_FAULTS_PMD] = { "pmd", "  PMD-sized" },
	[C_FAULTS_OTHER_SIZE] = { "other_size", "  other size" },
	[C_NOPAGE] = { "nopage", "  returned NOPAGE" },
	[C_NEEDDSYNC] = { "needdsync", "  returned NEEDDSYNC" },
	[C_FALLBACK] = { "fallback", "  returned FALLBACK" },
	[C_SIGBUS] = { "sigbus", "  returned SIGBUS/error" },
	[C_OTHER_OUTCOME] = { "other_outcome", "  returned other" },
	[C_PTE_FAULT_DONE] = { "pte_fault_done", "dax_pte_fault_done events" },
	[C_PMD_FAULT_DONE] = { "pmd_fault_done", "dax_pmd_fault_done events" },
	[C_PMD_DONE_FALLBACK] = { "pmd_fault_done_fallback", "  with FALLBACK" },
	[C_MKWRITE] = { "mkwrite", "dax_insert_pfn_mkwrite events", true },
	[C_MKWRITE_NO_ENTRY] = { "mkwrite_no_entry", "dax_insert_pfn_mkwrite_no_entry events", true },
	[C_SYNC_FINISH] = { "sync_faults", "dax_finish_sync_fault calls", true },
	[C_METADATA_SYNCS] = { "metadata_syncs", "metadata syncs in sync faults", true },
	[C_JBD2_COMMITS] = { "jbd2_commits", "jbd2 commits", true },
	[C_XFS_LOG_FORCES] = { "xfs_log_forces", "xfs log forces", true },
	[C_XFS_CHECKPOINTS] = { "xfs_checkpoints", "xfs log checkpoints", true },
	[C_HANDLER_CALLS] = { "handler_calls", "fs fault handlers with a sync fault", true },
	[C_STACKS] = { "stacks", "stacks recorded" },
	[C_STACKS_LOST] = { "stacks_lost", "stacks lost (ring buffer full)" },
	[C_MISSED_ENTRY] = { "missed_entries", "exits without a seen entry" },
	[C_SAMPLES_LOST] = { "samples_lost", "phase samples lost (ring buffer full)" },
	[C_BD_LOST] = { "breakdowns_lost", "breakdowns lost (ring buffer full)", true, true },
	[C_BD_BROKEN] = { "breakdowns_out_of_order", "breakdowns with a transition out of order", true, true },
	[C_ONCPU_SAMPLES] = { "oncpu_samples", "on-CPU samples in metadata syncs (--oncpu)", true, true },
	[C_DEV_UNMAPPED] = { "faults_fs_unknown", "faults on a device not in the mount table (fs: other)" },
};

/* Counter @i is in this run's report. */
static bool counter_shown(int i)
{
	return (env.phases || !counter_names[i].phases) && (env.breakdown || !counter_names[i].breakdown);
}

static const struct {
	const char *json;
	const char *text;
	const char *brief;	/* for the phase totals table */
} kind_names[K_NR] = {
	[K_FAULT] = { "fault", "dax_iomap_fault", "" },
	[K_PHASE1] = { "dax_iomap_fault", "phase 1: dax_iomap_fault body",
		       "1 dax_iomap_fault body" },
	[K_PHASE2] = { "metadata_sync", "phase 2: metadata sync (vfs_fsync_range in dax_finish_sync_fault)",
		       "2 metadata sync (vfs_fsync_range)" },
	[K_PHASE3] = { "insert", "phase 3: writable insertion (fsync return -> dax_insert_pfn_mkwrite)",
		       "3 writable insertion" },
	[K_PHASE4] = { "fs_handler", "phase 4: whole fs fault handler",
		       "4 whole fs fault handler" },
	[K_SYNC_FINISH] = { "sync_finish", "dax_finish_sync_fault", "" },
	[K_JBD2_COMMIT] = { "jbd2_commit", "jbd2 commit (start -> end, same tid)", "" },
	[K_XFS_LOG_FORCE] = { "xfs_log_force", "xfs_log_force_seq", "" },
};

struct hentry {
	struct hist_key key;
	struct hist_val val;
};

static int compare_hentry(const void *a, const void *b)
{
	const struct hist_key *x = &((const struct hentry *)a)->key;
	const struct hist_key *y = &((const struct hentry *)b)->key;
	const __u8 kx[] = { x->kind, (__u8)fs_rank(x->fs), x->size, (__u8)!x->write,
			    (__u8)!x->sync, x->outcome };
	const __u8 ky[] = { y->kind, (__u8)fs_rank(y->fs), y->size, (__u8)!y->write,
			    (__u8)!y->sync, y->outcome };

	return memcmp(kx, ky, sizeof(kx));
}

/* The key of slot @i of the histogram array: hist_index() inverted. */
/* Copy (and with @reset zero) every histogram that counted something,
 * sorted. BPF keeps adding meanwhile: an interval's reset can lose the
 * events of the copy's few microseconds, as the map deletes did. */
static int collect_hists(struct hist_val *arr, bool reset, struct hentry **out, size_t *nout)
{
	struct hentry *e = calloc(DAXLAT_HISTS, sizeof(*e));
	size_t n = 0;

	if (!e)
		return -ENOMEM;
	for (unsigned int i = 0; i < DAXLAT_HISTS; i++) {
		if (!__atomic_load_n(&arr[i].count, __ATOMIC_RELAXED))
			continue;
		e[n].key = hist_key_of(i);
		e[n].val = arr[i];
		if (reset)
			memset(&arr[i], 0, sizeof(arr[i]));
		n++;
	}
	qsort(e, n, sizeof(*e), compare_hentry);
	*out = e;
	*nout = n;
	return 0;
}

static void to_hist(const struct hist_val *v, struct hist *h, struct stats *st)
{
	hist_init(h);
	for (unsigned int s = 0; s < DAXLAT_SLOTS; s++)
		hist_add_slot(h, s, v->slots[s]);
	memset(st, 0, sizeof(*st));
	st->count = v->count;
	st->min = v->min_ns / env.unit_div;
	st->max = v->max_ns / env.unit_div;
	st->avg = v->count ? (v->sum_ns + v->count * env.unit_div / 2) /
			     (v->count * env.unit_div) : 0;
}

/* The attached handlers, of filesystem @fs (or all with FS_NR). */
static const char *handler_list(int fs, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const struct probe_target *t = probe_first(&probes, HOOK_FS_HANDLER);
	     t && off < len; t = probe_next(&probes, t)) {
		int hfs = strstr(t->name, "ext4") ? FS_EXT4 : strstr(t->name, "xfs") ? FS_XFS : FS_OTHER;

		if (!probe_attached(t) || (fs != FS_NR && fs != hfs))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", t->name);
	}
	return buf[0] ? buf : "none attached";
}

static void print_text_hist(const struct hentry *e)
{
	const struct hist_key *k = &e->key;
	struct hist h;
	struct stats st;
	char hl[256];

	to_hist(&e->val, &h, &st);
	switch (k->kind) {
	case K_FAULT:
		printf("%s: size = %s, %s, %s, outcome = %s, fs = %s\n",
		       kind_names[k->kind].text, fault_size_name(k->size),
		       k->write ? "write" : "read", k->sync ? "VM_SYNC" : "no VM_SYNC",
		       fault_outcome_name(k->outcome), fault_fs_name(k->fs));
		break;
	case K_PHASE4:
		printf("%s (%s): fs = %s, size = %s\n", kind_names[k->kind].text,
		       handler_list(k->fs, hl, sizeof(hl)), fault_fs_name(k->fs), fault_size_name(k->size));
		break;
	case K_JBD2_COMMIT:
	case K_XFS_LOG_FORCE:
		printf("%s\n", kind_names[k->kind].text);
		break;
	default:
		printf("%s: fs = %s, size = %s\n", kind_names[k->kind].text,
		       fault_fs_name(k->fs), fault_size_name(k->size));
	}
	hist_print_log2(stdout, &h, env.unit_name);
	printf("count=%llu sum=%llu %s avg=%llu %s\n", (unsigned long long)st.count,
	       (unsigned long long)(e->val.sum_ns / env.unit_div), env.unit,
	       (unsigned long long)st.avg, env.unit);
	hist_print_letter(stdout, &st, &h, env.unit);
	putchar('\n');
}

static void print_stack_text(const struct stack_event *e)
{
	char sym[256];
	int n = e->kstack_sz > 0 ? e->kstack_sz / (int)sizeof(__u64) : 0;

	printf("%llu %s %s: pid %u tid %u comm %.*s dev %u:%u ino %llu pgoff %llu, %s %s %s %s %s\n",
	       (unsigned long long)(e->lat_ns / env.unit_div), env.unit,
	       e->scope == SCOPE_HANDLER ? "(fs fault handler)" : "(dax_iomap_fault)",
	       e->pid, e->tid, DAXLAT_TASK_COMM_LEN, e->comm, e->dev >> 20,
	       e->dev & 0xfffff, (unsigned long long)e->ino,
	       (unsigned long long)e->pgoff, fault_size_name(e->size),
	       e->write ? "write" : "read", e->sync ? "VM_SYNC" : "no-VM_SYNC",
	       fault_outcome_name(e->outcome), fault_fs_name(e->fs));
	if (e->kstack_sz < 0)
		printf("    [no stack: %s]\n", strerror(-e->kstack_sz));
	for (int i = 0; i < n && i < DAXLAT_MAX_STACK; i++)
		printf("    %s\n", ksyms_format(ksyms, e->kstack[i], sym, sizeof(sym)));
}

static void json_hist_fields(struct json_writer *w, const struct hist_val *v)
{
	struct hist h;
	struct stats st;

	to_hist(v, &h, &st);
	json_kv_uint(w, "count", st.count);
	json_kv_uint(w, "sum", v->sum_ns / env.unit_div);
	json_kv_uint(w, "avg", st.avg);
	json_kv_uint(w, "min", st.min);
	json_kv_uint(w, "max", st.max);
	hist_json(w, &h);
}

static void json_stack(struct json_writer *w, const struct stack_event *e)
{
	char buf[256];
	int n = e->kstack_sz > 0 ? e->kstack_sz / (int)sizeof(__u64) : 0;

	json_begin_object(w);
	json_kv_uint(w, "lat", e->lat_ns / env.unit_div);
	json_kv_string(w, "scope", e->scope == SCOPE_HANDLER ? "fs_handler" : "dax_iomap_fault");
	json_kv_uint(w, "pid", e->pid);
	json_kv_uint(w, "tid", e->tid);
	snprintf(buf, sizeof(buf), "%.*s", DAXLAT_TASK_COMM_LEN, e->comm);
	json_kv_string(w, "comm", buf);
	snprintf(buf, sizeof(buf), "%u:%u", e->dev >> 20, e->dev & 0xfffff);
	json_kv_string(w, "dev", buf);
	json_kv_uint(w, "ino", e->ino);
	json_kv_uint(w, "pgoff", e->pgoff);
	json_kv_string(w, "size", fault_size_name(e->size));
	json_kv_bool(w, "write", e->write);
	json_kv_bool(w, "sync", e->sync);
	json_kv_string(w, "outcome", fault_outcome_name(e->outcome));
	json_kv_string(w, "fs", fault_fs_name(e->fs));
	json_key(w, "frames");
	json_begin_array(w);
	for (int i = 0; i < n && i < DAXLAT_MAX_STACK; i++)
		json_string(w, ksyms_format(ksyms, e->kstack[i], buf, sizeof(buf)));
	json_end_array(w);
	json_end_object(w);
}

struct run_info {
	struct utsname uts;
	const char *size_arg_name;
	bool size_is_order;
	unsigned int pmd_order;
	pid_t child;
	bool child_done;
	int child_status;	/* as an exit code */
	char attach_why[256];	/* kprobes or fentry, which tracepoints, and why */
	__u64 misses_reported;	/* program runs skipped up to the last interval report */
};

static void print_time(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

/* The cover letter's view of a sync fault: where the time goes, per phase. */
static void print_phase_totals(const struct hentry *hs, size_t nh)
{
	bool seen[FS_NR][FAULT_SZ_NR] = { { false } };

	for (size_t i = 0; i < nh; i++)
		if (hs[i].key.kind >= K_PHASE1 && hs[i].key.kind <= K_PHASE4)
			seen[hs[i].key.fs % FS_NR][hs[i].key.size % FAULT_SZ_NR] = true;
	for (int r = 0; r < FS_NR; r++) {
		int fs = fs_print_order[r];

		for (int sz = 0; sz < FAULT_SZ_NR; sz++) {
			if (!seen[fs][sz])
				continue;
			printf("phase totals, fs = %s, size = %s:\n", fault_fs_name(fs),
			       fault_size_name(sz));
			printf("  %-34s %10s %14s %10s\n", "phase", "count", "sum", "avg");
			for (int k = K_PHASE1; k <= K_PHASE4; k++) {
				__u64 count = 0, sum = 0;

				for (size_t i = 0; i < nh; i++)
					if (hs[i].key.kind == k && hs[i].key.fs == fs &&
					    hs[i].key.size == sz)
						count += hs[i].val.count, sum += hs[i].val.sum_ns;
				printf("  %-34s %10llu %11llu %-2s %7llu %-2s\n",
				       kind_names[k].brief, (unsigned long long)count,
				       (unsigned long long)(sum / env.unit_div), env.unit,
				       (unsigned long long)(count ? (sum + count * env.unit_div / 2) /
							    (count * env.unit_div) : 0), env.unit);
			}
			putchar('\n');
		}
	}
}

/* Program runs the kernel skipped since the last report: recursion_misses
 * cannot be zeroed like the counters, so an interval shows its difference. */
static __u64 runs_missed(struct daxlat_bpf *skel, struct run_info *ri, bool reset)
{
	__u64 now = probe_misses(skel->obj), since = now - ri->misses_reported;

	if (reset)
		ri->misses_reported = now;
	return since;
}

/* --prog-stats: each program's runs and run time, as text or into @w. */
static void prog_stats_report(struct daxlat_bpf *skel, struct json_writer *w)
{
	struct probe_prog_stat *st = NULL;
	int n = probe_prog_stats(skel->obj, &st);

	if (n < 0)
		fprintf(stderr, "daxlat: --prog-stats: %s\n", strerror(-n));
	else if (w)
		probe_prog_stats_json(st, n, w);
	else
		probe_prog_stats_text(st, n, stdout);
	free(st);
}

/* Write @path whole or not at all: @fn writes a temporary file, renamed
 * over @path once complete. 0, or -errno (said why, in one line). */
static int write_whole(const char *path, int (*fn)(FILE *out, void *ctx), void *ctx)
{
	char tmp[PATH_MAX];
	FILE *out;
	int err;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(out = fopen(tmp, "w"))) {
		err = -errno;
		fprintf(stderr, "daxlat: open %s: %s\n", tmp, strerror(errno));
		return err;
	}
	err = fn(out, ctx);
	if (!err && ferror(out))
		err = -EIO;
	if (fclose(out) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		fprintf(stderr, "daxlat: write %s: %s\n", path, strerror(-err));
		unlink(tmp);
	}
	return err;
}

static int write_metrics(FILE *out, void *ctx)
{
	const char *names[C_NR];
	bool shown[C_NR];

	(void)ctx;
	for (int i = 0; i < C_NR; i++) {
		names[i] = counter_names[i].json;
		shown[i] = counter_shown(i);
	}
	return om_write(out, om, names, shown, env.unit_div, env.breakdown);
}

/* --openmetrics: add this report's histograms, counters and breakdowns to
 * the run's totals and rewrite the file whole (a scrape never sees half of
 * it). 0, or -errno (said why). */
static int update_openmetrics(const struct hentry *hs, size_t nh, const __u64 counters[C_NR],
			      const struct bd_store *bd)
{

	for (size_t i = 0; i < nh; i++) {
		const struct hist_key *k = &hs[i].key;

		om_add_hist(om, hist_index(k->kind, k->size, k->write, k->sync, k->outcome, k->fs), &hs[i].val);
	}
	for (int i = 0; i < C_NR; i++)
		om->counters[i] += counters[i];
	if (env.breakdown) {
		struct bd_summary sum[FS_NR];

		bd_summarize(bd, sum);
		om_add_breakdown(om, sum);
	}
	return write_whole(env.openmetrics, write_metrics, NULL);
}

/* --by cgroup: a cgroup v2 id is its directory's inode number under
 * /sys/fs/cgroup; found by a walk, "-" where not (v1, or gone). */
static __u64 cg_want;
static char *cg_found;
static size_t cg_len;

static int cg_visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || (__u64)st->st_ino != cg_want)
		return 0;
	snprintf(cg_found, cg_len, "%s", path + strlen("/sys/fs/cgroup"));
	if (!cg_found[0])
		snprintf(cg_found, cg_len, "/");
	return 1;
}

static void cgroup_path(__u64 id, char *buf, size_t len, void *ctx)
{
	(void)ctx;
	buf[0] = 0;
	cg_want = id, cg_found = buf, cg_len = len;
	nftw("/sys/fs/cgroup", cg_visit, 16, FTW_PHYS | FTW_MOUNT);
}

/* --by: the groups of @st, into the JSON @w or as text. 0 or -ENOMEM. */
static int report_groups(const struct bd_store *st, struct json_writer *w)
{
	struct bd_group *g;
	size_t n;
	int err = bd_group(st, env.by, cgroup_path, NULL, &g, &n);

	if (err)
		return err;
	if (w)
		bd_json_groups(w, env.by, g, n, (size_t)env.by_top);
	else
		bd_print_groups_text(stdout, env.by, g, n, (size_t)env.by_top, env.unit_div, env.unit);
	free(g);
	return 0;
}

static int print_report(struct daxlat_bpf *skel, struct run_info *ri,
			struct evstore *stacks, bool reset)
{
	const struct bd_store bd_now = { .v = breakdowns.v + breakdowns_reported,
					 .n = breakdowns.n - breakdowns_reported };
	__u64 counters[C_NR], missed = runs_missed(skel, ri, reset);
	struct hentry *hs = NULL;
	size_t nh = 0;
	char ts[32];
	int err;

	/* Read-and-zero in one atomic step: BPF keeps adding meanwhile. */
	for (int i = 0; i < C_NR; i++)
		counters[i] = reset ? __atomic_exchange_n(&skel->bss->counters[i], 0, __ATOMIC_RELAXED)
				    : __atomic_load_n(&skel->bss->counters[i], __ATOMIC_RELAXED);
	err = collect_hists(skel->bss->hists, reset, &hs, &nh);
	if (err)
		return err;
	print_time(ts, sizeof(ts));
	if (env.top)
		evstore_sort(stacks);
	if (om && update_openmetrics(hs, nh, counters, &bd_now))
		err = -EIO;

	if (env.opt.json) {
		struct json_writer w;
		static const struct {
			const char *key;
			int first, last;
		} groups[] = {
			{ "faults", K_FAULT, K_FAULT },
			{ "phases", K_PHASE1, K_PHASE4 },
			{ "sync_finish", K_SYNC_FINISH, K_SYNC_FINISH },
			{ "jbd2_commit", K_JBD2_COMMIT, K_JBD2_COMMIT },
			{ "xfs_log_force", K_XFS_LOG_FORCE, K_XFS_LOG_FORCE },
		};

		json_init(&w, stdout);
		json_begin_object(&w);
		json_kv_string(&w, "tool", "daxlat");
		json_kv_string(&w, "kernel", ri->uts.release);
		if (env.timestamp)
			json_kv_string(&w, "time", ts);
		json_kv_string(&w, "unit", env.unit);
		if (env.interval)
			json_kv_int(&w, "interval", env.interval);
		json_key(&w, "size_arg");
		json_begin_object(&w);
		json_kv_string(&w, "name", ri->size_arg_name);
		json_kv_string(&w, "meaning", ri->size_is_order ? "order" : "enum page_entry_size");
		json_kv_uint(&w, "pmd_order", ri->pmd_order);
		json_end_object(&w);
		probe_json(&probes, &w);
		json_kv_string(&w, "attach_choice", ri->attach_why);
		json_kv_string(&w, "fault_entry", entry_at_tp ? "start_tracepoint" : "function");
		json_kv_string(&w, "fault_exit", exit_at_tp ? "done_tracepoint" : "return");
		json_kv_bool(&w, "phases", env.phases);
		if (env.opt.pid)
			json_kv_int(&w, "pid", env.opt.pid);
		if (env.opt.cmd) {
			json_key(&w, "command");
			json_begin_object(&w);
			json_kv_string(&w, "cmd", env.opt.cmd);
			json_kv_int(&w, "pid", ri->child);
			if (ri->child_done)
				json_kv_int(&w, "status", ri->child_status);
			else
				json_kv_string(&w, "status", NULL);
			json_end_object(&w);
		}
		json_key(&w, "counters");
		json_begin_object(&w);
		for (int i = 0; i < C_NR; i++)
			if (counter_shown(i))
				json_kv_uint(&w, counter_names[i].json, counters[i]);
		/* Runs the kernel skipped: events these counts lack. */
		json_kv_uint(&w, "program_runs_missed", missed);
		json_end_object(&w);
		for (size_t g = 0; g < sizeof(groups) / sizeof(*groups); g++) {
			if (groups[g].first != K_FAULT && !env.phases)
				continue;
			json_key(&w, groups[g].key);
			json_begin_array(&w);
			for (size_t i = 0; i < nh; i++) {
				const struct hist_key *k = &hs[i].key;

				if (k->kind < groups[g].first || k->kind > groups[g].last)
					continue;
				json_begin_object(&w);
				if (k->kind >= K_PHASE1 && k->kind <= K_PHASE4) {
					json_kv_uint(&w, "phase", (__u64)(k->kind - K_PHASE1 + 1));
					json_kv_string(&w, "name", kind_names[k->kind].json);
				}
				json_kv_string(&w, "fs", fault_fs_name(k->fs));
				if (k->kind != K_JBD2_COMMIT && k->kind != K_XFS_LOG_FORCE)
					json_kv_string(&w, "size", fault_size_name(k->size));
				if (k->kind == K_FAULT) {
					json_kv_bool(&w, "write", k->write);
					json_kv_bool(&w, "sync", k->sync);
					json_kv_string(&w, "outcome", fault_outcome_name(k->outcome));
				}
				json_hist_fields(&w, &hs[i].val);
				json_end_object(&w);
			}
			json_end_array(&w);
		}
		json_key(&w, "stacks");
		json_begin_array(&w);
		for (size_t i = 0; i < stacks->n; i++)
			json_stack(&w, &stacks->ev[i]);
		json_end_array(&w);
		json_kv_uint(&w, "stacks_dropped", stacks->dropped);
		if (env.breakdown)
			bd_json(&w, &bd_now);
		if (env.by && report_groups(&bd_now, &w))
			err = -ENOMEM;
		if (env.prog_stats)
			prog_stats_report(skel, &w);
		json_end_object(&w);
		if (json_finish(&w))
			err = -EIO;
	} else {
		if (env.timestamp)
			printf("%-8s\n", ts);
		for (size_t i = 0; i < nh; i++) {
			if (i == 0 || hs[i].key.kind != hs[i - 1].key.kind) {
				if (hs[i].key.kind == K_PHASE1)
					printf("=== synchronous write faults (dax_iomap_fault returned NEEDDSYNC), by phase ===\n\n");
			}
			print_text_hist(&hs[i]);
		}
		print_phase_totals(hs, nh);
		if (env.breakdown)
			bd_print_text(stdout, &bd_now, env.unit_div, env.unit);
		if (env.by && report_groups(&bd_now, NULL))
			err = -ENOMEM;
		if (!nh)
			printf("no DAX faults traced\n\n");
		printf("counters:\n");
		for (int i = 0; i < C_NR; i++)
			if (counter_shown(i))
				printf("  %-40s %llu\n", counter_names[i].text,
				       (unsigned long long)counters[i]);
		if (!env.phases)
			printf("  (phases, metadata syncs and journal commits: --phases)\n");
		printf("  %-40s %llu\n", "program runs the kernel skipped (lost events)",
		       (unsigned long long)missed);
		if (env.prog_stats)
			prog_stats_report(skel, NULL);
		if (stacks->n || stacks->dropped) {
			printf("\n%s:\n", env.top ? "slowest faults" : "faults over the stack threshold");
			for (size_t i = 0; i < stacks->n; i++)
				print_stack_text(&stacks->ev[i]);
			if (stacks->dropped)
				printf("(%llu more not kept)\n", stacks->dropped);
		}
		putchar('\n');
		fflush(stdout);
	}
	if (reset && !env.top)
		evstore_clear(stacks);
	if (reset && env.breakdown_out)
		breakdowns_reported = breakdowns.n;
	else if (reset)
		bd_store_clear(&breakdowns);
	free(hs);
	return err;
}

/* ---- main ---------------------------------------------------------------- */

static volatile sig_atomic_t exiting;

/* The stop signal, or 0. */
static void sig_handler(int sig)
{
	exiting = sig;
}

/* --samples-out: every phase sample, per filesystem and phase. */
#define NPHASES (K_PHASE4 - K_PHASE1 + 1)
static const char *const phase_names[NPHASES] = { "iomap", "fsync", "mkwrite", "handler" };

struct phase_store {
	uint64_t *v[FS_NR][NPHASES];
	size_t n[FS_NR][NPHASES], cap[FS_NR][NPHASES];
	bool out_of_memory;
};

struct rb_ctx {
	struct evstore *stacks;
	struct daxlat_bpf *skel;
	struct phase_store *phases;
	struct bd_store *bd;
};

static int handle_sample(void *ctx, void *data, size_t len)
{
	struct phase_store *ps = ((struct rb_ctx *)ctx)->phases;
	const struct phase_sample *s = data;
	unsigned int f, k;
	uint64_t *v;

	if (len < sizeof(*s) || s->fs >= FS_NR || s->kind < K_PHASE1 || s->kind > K_PHASE4)
		return 0;
	f = s->fs, k = s->kind - K_PHASE1;
	if (ps->n[f][k] == ps->cap[f][k]) {
		size_t cap = ps->cap[f][k] ? 2 * ps->cap[f][k] : 1024;

		if (!(v = realloc(ps->v[f][k], cap * sizeof(*v)))) {
			ps->out_of_memory = true;
			return 0;
		}
		ps->v[f][k] = v, ps->cap[f][k] = cap;
	}
	ps->v[f][k][ps->n[f][k]++] = s->ns;
	return 0;
}

/* The samples file: EXIT_OK, or EXIT_RUNTIME (said why) when samples were
 * lost or the file cannot be written; a partial file is not left behind. */
static int write_phase_samples(const struct phase_store *ps, const struct daxlat_bpf *skel)
{
	__u64 lost = skel->bss->counters[C_SAMPLES_LOST];
	FILE *out;

	if (lost || ps->out_of_memory) {
		fprintf(stderr, "daxlat: %llu phase samples lost%s: not writing %s\n",
			(unsigned long long)lost, ps->out_of_memory ? " (out of memory)" : "", env.samples_out);
		return EXIT_RUNTIME;
	}
	if (!(out = fopen(env.samples_out, "w"))) {
		fprintf(stderr, "daxlat: open %s: %s\n", env.samples_out, strerror(errno));
		return EXIT_RUNTIME;
	}
	for (unsigned int f = 0; f < FS_NR; f++)
		for (unsigned int k = 0; k < NPHASES; k++) {
			char prefix[64];

			if (!ps->n[f][k])
				continue;
			snprintf(prefix, sizeof(prefix), "%s %s", fault_fs_name(f), phase_names[k]);
			samples_line(out, prefix, ps->v[f][k], ps->n[f][k]);
		}
	if (ferror(out) | fclose(out)) {
		fprintf(stderr, "daxlat: write %s: %s\n", env.samples_out, strerror(errno ? errno : EIO));
		unlink(env.samples_out);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static const char *work_func_name(__u64 addr, void *ctx)
{
	const struct ksym *s = ksyms ? ksyms_find(ksyms, addr) : NULL;

	(void)ctx;
	return s ? s->name : NULL;
}

static int write_bd_lines(FILE *out, void *ctx)
{
	(void)ctx;
	return bd_write_lines(out, &breakdowns, work_func_name, NULL);
}

/* --breakdown-out: EXIT_OK, or EXIT_RUNTIME (said why) when breakdowns
 * were lost or the file cannot be written; written whole or not at all. */
static int write_breakdowns(const struct daxlat_bpf *skel)
{
	__u64 lost = skel->bss->counters[C_BD_LOST];

	if (lost || breakdowns.out_of_memory) {
		fprintf(stderr, "daxlat: %llu breakdowns lost%s: not writing %s\n",
			(unsigned long long)lost, breakdowns.out_of_memory ? " (out of memory)" : "",
			env.breakdown_out);
		return EXIT_RUNTIME;
	}
	return write_whole(env.breakdown_out, write_bd_lines, NULL) ? EXIT_RUNTIME : EXIT_OK;
}

/* A stack of bd_stacks, or NULL (id < 0, or evicted). */
static const __u64 *fold_stack(int fd, __s32 id, __u64 *buf)
{
	__u32 key = (__u32)id;

	if (id < 0 || bpf_map_lookup_elem(fd, &key, buf))
		return NULL;
	return buf;
}

/* --folded: every stack pair's total, a line each. */
static int write_fold_lines(FILE *out, void *ctx)
{
	const struct daxlat_bpf *skel = ctx;
	int kfd = bpf_map__fd(skel->maps.bd_folds), sfd = bpf_map__fd(skel->maps.bd_stacks);
	__u64 wait[DAXLAT_FOLD_DEPTH], other[DAXLAT_FOLD_DEPTH];
	struct bd_fold_key k, next, *prev = NULL;
	struct bd_fold_val v;

	while (!bpf_map_get_next_key(kfd, prev, &next)) {
		k = next, prev = &k;
		if (bpf_map_lookup_elem(kfd, &k, &v))
			continue;
		bd_fold_line(out, &k, &v, fold_stack(sfd, k.wait_stack, wait),
			     fold_stack(sfd, k.other_stack, other), work_func_name, NULL);
	}
	return 0;
}

/* Written whole or not at all: EXIT_OK, or EXIT_RUNTIME (said why). */
static int write_folded(const struct daxlat_bpf *skel)
{
	return write_whole(env.folded_out, write_fold_lines, (void *)skel) ? EXIT_RUNTIME : EXIT_OK;
}

/* Read @map's records into @fn: opens the ring buffer, or adds @map to the
 * one already open. 0, or -1 with errno set. */
static int rb_watch(struct ring_buffer **rb, struct bpf_map *map, ring_buffer_sample_fn fn, void *ctx)
{
	if (*rb)
		return ring_buffer__add(*rb, bpf_map__fd(map), fn, ctx) ? -1 : 0;
	*rb = ring_buffer__new(bpf_map__fd(map), fn, ctx, NULL);
	return *rb ? 0 : -1;
}

static void phase_store_free(struct phase_store *ps)
{
	for (unsigned int f = 0; f < FS_NR; f++)
		for (unsigned int k = 0; k < NPHASES; k++)
			free(ps->v[f][k]);
}

static int handle_breakdown(void *ctx, void *data, size_t len)
{
	bd_store_add(((struct rb_ctx *)ctx)->bd, data, len);
	return 0;
}

static int handle_event(void *ctx, void *data, size_t len)
{
	struct rb_ctx *c = ctx;

	if (len < sizeof(struct stack_event))
		return 0;
	evstore_add(c->stacks, data);
	if (env.top) {
		__u64 floor = evstore_floor(c->stacks);

		/* Tell the BPF side to send only what can still get in. */
		if (floor)
			c->skel->bss->stack_min_ns = floor + 1;
	}
	return 0;
}

static void print_banner(void)
{
	char hl[256];

	printf("Tracing DAX faults: dax_iomap_fault %s, dax_finish_sync_fault %s, "
	       "vfs_fsync_range %s, fs handlers (%s), tracepoints %s",
	       mode_names[probe_mode(&probes, HOOK_FAULT)], mode_names[probe_mode(&probes, HOOK_SYNC)],
	       mode_names[probe_mode(&probes, HOOK_FSYNC)], handler_list(FS_NR, hl, sizeof(hl)),
	       mode_names[probe_mode(&probes, HOOK_MKWRITE)]);
	if (probe_mode(&probes, HOOK_XFS_LOG_FORCE) != M_ABSENT)
		printf(", xfs_log_force_seq %s", mode_names[probe_mode(&probes, HOOK_XFS_LOG_FORCE)]);
	if (env.opt.cmd)
		printf(". Running the command.\n");
	else if (env.interval)
		printf(". Ctrl-C to end.\n");
	else
		printf(". Ctrl-C to end and print.\n");
	fflush(stdout);
}

/* daxlat_uses without the hooks this run does not need (daxlat_probes.h);
 * the fs handler stays for stacks, whose scope it is. With exit_at_tp the
 * fault hook keeps its entry only and the done tracepoints close the
 * fault: they become required; with entry_at_tp the start tracepoints
 * replace the fault hook. The count kept. */
static size_t select_uses(struct probe_use *out)
{
	const size_t nphase = sizeof(daxlat_phase_hooks) / sizeof(*daxlat_phase_hooks);
	const size_t nbd = sizeof(daxlat_breakdown_hooks) / sizeof(*daxlat_breakdown_hooks);
	size_t n = 0;

	for (size_t i = 0; i < sizeof(daxlat_uses) / sizeof(*daxlat_uses); i++) {
		enum probe_hook_id h = daxlat_uses[i].hook;
		bool phase_only = false, breakdown_only = false;

		for (size_t j = 0; j < nphase; j++)
			phase_only |= daxlat_phase_hooks[j] == h;
		for (size_t j = 0; j < nbd; j++)
			breakdown_only |= daxlat_breakdown_hooks[j] == h;
		if (breakdown_only && !env.breakdown)
			continue;
		if (phase_only && !env.phases && !(h == HOOK_FS_HANDLER && want_stacks()))
			continue;
		if ((h == HOOK_FAULT && entry_at_tp) ||
		    ((h == HOOK_PTE_START || h == HOOK_PMD_START) && !entry_at_tp))
			continue;
		out[n] = daxlat_uses[i];
		if (exit_at_tp && h == HOOK_FAULT)
			out[n].sides = PROBE_ENTRY;
		if (exit_at_tp && (h == HOOK_PTE_DONE || h == HOOK_PMD_DONE ||
				   h == HOOK_PTE_START || h == HOOK_PMD_START))
			out[n].need = PROBE_REQUIRED;
		n++;
	}
	return n;
}

/* BTF, what the fault's size argument means, where the hooks are.
 * EXIT_OK, or the exit status. */
static int resolve_kernel(struct run_info *ri)
{
	/* The probe set keeps pointing at the uses it resolved. */
	static struct probe_use uses[sizeof(daxlat_uses) / sizeof(*daxlat_uses)];
	const struct probe_target *fault;
	const char *fault_fn;
	int err = kernel_btf_load();
	bool kprobes, perf_tp;

	if (err) {
		fprintf(stderr, "daxlat: no kernel BTF (/sys/kernel/btf/vmlinux: %s): "
			"the kernel needs CONFIG_DEBUG_INFO_BTF\n", strerror(-err));
		return EXIT_NO_BTF;
	}
	probe_choose_modes(&env.opt, &kprobes, &perf_tp, ri->attach_why, sizeof(ri->attach_why));
	exit_at_tp = kprobes && perf_tp;
	entry_at_tp = exit_at_tp && !env.breakdown;
	if (exit_at_tp)
		snprintf(ri->attach_why + strlen(ri->attach_why),
			 sizeof(ri->attach_why) - strlen(ri->attach_why),
			 "; the fault's %sexit at fs_dax's %sdone tracepoints",
			 entry_at_tp ? "entry and " : "", entry_at_tp ? "start and " : "");
	verbose("%s", ri->attach_why);
	if (probe_resolve(&probes, &probe_running_kernel, uses, select_uses(uses), kprobes,
			  env.opt.raw_tp)) {
		fprintf(stderr, "daxlat: more probe targets than PROBE_MAX_TARGETS\n");
		return EXIT_RUNTIME;
	}
	probe_use_perf_tracepoints(&probes, perf_tp);
	probe_print_resolved(&probes);
	/* Reported (and read by the kprobe) even where the start tracepoints
	 * replace dax_iomap_fault's hook. */
	fault = probe_first(&probes, HOOK_FAULT);
	fault_fn = fault ? fault->name : probe_hooks[HOOK_FAULT].cands[0].target;
	err = !fault || fault->btf ? detect_size_arg(fault_fn, &ri->size_is_order, &ri->size_arg_name) :
				     -ENOENT;
	if (err) {
		fprintf(stderr, "daxlat: %s %s\n", fault_fn, err == -ENOENT ?
			"is not in the kernel's BTF (kernel built without CONFIG_FS_DAX?)" :
			"has an unknown signature in BTF (2nd argument neither enum nor integer)");
		return EXIT_NO_PROBE;
	}
	ri->pmd_order = detect_pmd_order();
	verbose("%s 2nd argument '%s' is %s; PMD order %u", fault_fn,
		ri->size_arg_name, ri->size_is_order ? "an order" : "enum page_entry_size",
		ri->pmd_order);
	return EXIT_OK;
}

/* kallsyms, read only to name the frames of the stacks asked for. */
static void load_stack_symbols(void)
{
	if (!env.top && env.stack_threshold_us < 0)
		return;
	ksyms = probe_kernel_ksyms();
	if (!ksyms)
		fprintf(stderr, "daxlat: warning: cannot read /proc/kallsyms (%s): "
			"stacks will not be symbolized\n", strerror(errno));
	else if (ksyms->all_zero)
		fprintf(stderr, "daxlat: warning: /proc/kallsyms addresses are hidden: "
			"stacks will not be symbolized\n");
}

/* --oncpu: @prog on a cpu-clock sampling event of every online CPU (an
 * offline one, ENODEV, is left out). 0 or -errno. */
static int attach_oncpu(struct bpf_program *prog, long hz)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr), .freq = 0, .sample_period = 1000000000ULL / hz,
	};
	int n = libbpf_num_possible_cpus();

	if (n <= 0)
		return n ? n : -ENODEV;
	oncpu_links = calloc(n, sizeof(*oncpu_links));
	if (!oncpu_links)
		return -ENOMEM;
	oncpu_ncpus = n;
	for (int cpu = 0; cpu < n; cpu++) {
		int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		if (fd < 0 && errno == ENODEV)
			continue;
		if (fd < 0)
			return -errno;
		oncpu_links[cpu] = bpf_program__attach_perf_event(prog, fd);
		if (!oncpu_links[cpu]) {
			int err = -errno;

			close(fd);
			return err;
		}
	}
	return 0;
}

/* Load and attach; *skelp is set (for cleanup) as soon as it exists.
 * EXIT_OK, or the exit status. */
static int load_and_attach(const struct trace_cfg *cfg, struct daxlat_bpf **skelp)
{
	int err;

	*skelp = probe_load(&probes, &daxlat_bpf_loader, cfg, &err);
	if (!*skelp) {
		if (probes.missing_prog[0])
			fprintf(stderr, "daxlat: the BPF object lacks program %s\n",
				probes.missing_prog);
		else
			fprintf(stderr, "daxlat: cannot load the BPF programs: %s%s\n",
				strerror(-err), err == -EPERM ? " (run as root)" : "");
		return EXIT_RUNTIME;
	}
	probe_attach(&probes);
	if (entry_at_tp && (!probe_attached(probe_first(&probes, HOOK_PTE_START)) ||
			    !probe_attached(probe_first(&probes, HOOK_PMD_START)))) {
		fprintf(stderr, "daxlat: cannot attach fs_dax's dax_pte_fault and dax_pmd_fault, "
			"where the faults start under kprobes (--fentry to use fentry)\n");
		return EXIT_NO_PROBE;
	}
	if (!entry_at_tp && !probe_attached(probe_first(&probes, HOOK_FAULT))) {
		explain_no_fault_probe();
		return EXIT_NO_PROBE;
	}
	if (exit_at_tp && (!probe_attached(probe_first(&probes, HOOK_PTE_DONE)) ||
			   !probe_attached(probe_first(&probes, HOOK_PMD_DONE)))) {
		fprintf(stderr, "daxlat: cannot attach fs_dax's dax_pte_fault_done and "
			"dax_pmd_fault_done, where the faults end under kprobes "
			"(--fentry to use fexit)\n");
		return EXIT_NO_PROBE;
	}
	if (env.oncpu_hz && (err = attach_oncpu((*skelp)->progs.bd_oncpu_sample, env.oncpu_hz))) {
		fprintf(stderr, "daxlat: cannot sample on-CPU stacks (--oncpu): %s\n", strerror(-err));
		return EXIT_NO_PROBE;
	}
	if (env.opt.cmd) {
		fork_link = bpf_program__attach((*skelp)->progs.follow_fork);
		if (!fork_link)
			fprintf(stderr, "daxlat: warning: cannot follow forks (%s): "
				"only the shell itself is traced\n", strerror(errno));
	}
	return EXIT_OK;
}

/* How long to sleep: until the next report (-i), else until woken, but
 * 100 ms at most when the command's end cannot wake us (no pidfd). */
static int wait_ms(const struct timespec *next, bool poll_cmd)
{
	struct timespec now;
	long ms = -1;

	if (env.interval) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (next->tv_sec - now.tv_sec) * 1000 + (next->tv_nsec - now.tv_nsec) / 1000000 + 1;
		if (ms < 0)
			ms = 0;
	}
	if (poll_cmd && (ms < 0 || ms > 100))
		ms = 100;
	return (int)ms;
}

/* Until Ctrl-C, the command's end or the count of reports: EXIT_OK, or
 * EXIT_RUNTIME when a report or the ring buffer failed. */
static int trace_loop(struct daxlat_bpf *skel, struct ring_buffer *rb,
		      struct run_info *ri, struct evstore *stacks, struct held_cmd *cmd)
{
	struct timespec next = { 0 };
	bool printed_last = false;
	long times_left = env.times;
	int err, ret = EXIT_OK;

	clock_gettime(CLOCK_MONOTONIC, &next);
	next.tv_sec += env.interval;
	while (!exiting) {
		bool mounts_changed = false;
		struct timespec now;

		err = wait_for_work(rb, env.opt.cmd ? cmd->pidfd : -1, mounts_fd, &mounts_changed,
				    wait_ms(&next, env.opt.cmd && cmd->pidfd < 0), &exiting);
		if (err < 0) {
			fprintf(stderr, "daxlat: waiting for events: %s\n", strerror(-err));
			ret = EXIT_RUNTIME;
			break;
		}
		if (mounts_changed && (err = dev_fs_refresh(skel))) {
			fprintf(stderr, "daxlat: reading the changed mount table: %s\n", strerror(-err));
			ret = EXIT_RUNTIME;
			break;
		}
		if (env.opt.cmd && !ri->child_done &&
		    held_cmd_ended(cmd, &ri->child_status, EXIT_RUNTIME)) {
			ri->child_done = true;
			break;
		}
		if (!env.interval)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec < next.tv_sec ||
		    (now.tv_sec == next.tv_sec && now.tv_nsec < next.tv_nsec))
			continue;
		if (rb)
			ring_buffer__consume(rb);
		if (print_report(skel, ri, stacks, true))
			ret = EXIT_RUNTIME;
		next.tv_sec += env.interval;
		if (times_left > 0 && --times_left == 0) {
			printed_last = true;
			break;
		}
	}
	if (!printed_last) {
		if (rb)
			ring_buffer__consume(rb);
		if (print_report(skel, ri, stacks, false))
			ret = EXIT_RUNTIME;
	}
	return ret;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts, .parser = parse_arg, .doc = doc,
	};
	struct run_info ri = { .size_arg_name = "?" };
	struct trace_cfg cfg = { 0 };
	struct daxlat_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct evstore stacks;
	struct phase_store phases = { 0 };
	struct rb_ctx rbc = { .stacks = &stacks, .phases = &phases, .bd = &breakdowns };
	struct sigaction sa = { .sa_handler = sig_handler };
	struct held_cmd cmd = HELD_CMD_INIT;
	int stats_fd = -1;	/* --prog-stats: open while the statistics count */
	int ret, err;

	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	verbose_setup("daxlat", env.opt.verbose, false);
	libbpf_set_print(libbpf_print_verbose);
	uname(&ri.uts);
	if (evstore_init(&stacks, env.top ? (size_t)env.top : NR_STORED_STACKS,
			 env.top > 0)) {
		fprintf(stderr, "daxlat: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (env.openmetrics && !(om = calloc(1, sizeof(*om)))) {
		fprintf(stderr, "daxlat: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (env.opt.pid && kill(env.opt.pid, 0) && errno == ESRCH) {
		fprintf(stderr, "daxlat: no process %d\n", env.opt.pid);
		return EXIT_USAGE;
	}
	ret = resolve_kernel(&ri);
	if (ret != EXIT_OK)
		goto cleanup;
	load_stack_symbols();
	cfg.size_is_order = ri.size_is_order;
	cfg.pmd_order = ri.pmd_order;
	cfg.filter = env.opt.pid || env.opt.cmd;
	cfg.follow_forks = env.opt.cmd != NULL;

	ret = EXIT_RUNTIME;
	if (env.opt.cmd) {
		if (held_cmd_spawn(&cmd, env.opt.cmd)) {
			fprintf(stderr, "daxlat: cannot start the command: %s\n", strerror(errno));
			goto cleanup;
		}
		ri.child = cmd.pid;
	}
	/* On before the programs attach: their first runs count too. */
	if (env.prog_stats && (stats_fd = probe_stats_enable()) < 0) {
		fprintf(stderr, "daxlat: --prog-stats: the kernel refused run-time statistics: %s\n",
			strerror(-stats_fd));
		goto cleanup;
	}
	ret = load_and_attach(&cfg, &skel);
	if (ret != EXIT_OK)
		goto cleanup;
	ret = EXIT_RUNTIME;
	if (entry_at_tp && (err = dev_fs_start(skel))) {
		fprintf(stderr, "daxlat: cannot read the mount table: %s\n", strerror(-err));
		goto cleanup;
	}
	if (cfg.filter &&
	    filter_add_tgid(skel->maps.tgids, env.opt.cmd ? ri.child : env.opt.pid)) {
		fprintf(stderr, "daxlat: cannot set the pid filter: %s\n", strerror(errno));
		goto cleanup;
	}
	if (env.stack_threshold_us >= 0)
		skel->bss->stack_min_ns = (__u64)env.stack_threshold_us * 1000;
	rbc.skel = skel;
	if (((env.top || env.stack_threshold_us >= 0) &&
	     rb_watch(&rb, skel->maps.events, handle_event, &rbc)) ||
	    (env.samples_out && rb_watch(&rb, skel->maps.phase_samples, handle_sample, &rbc)) ||
	    (env.breakdown && rb_watch(&rb, skel->maps.bd_samples, handle_breakdown, &rbc))) {
		fprintf(stderr, "daxlat: cannot open the ring buffer: %s\n", strerror(errno));
		goto cleanup;
	}

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!env.opt.json)
		print_banner();
	if (env.opt.cmd && held_cmd_release(&cmd)) {
		fprintf(stderr, "daxlat: cannot start the command: %s\n", strerror(errno));
		goto cleanup;
	}
	ret = trace_loop(skel, rb, &ri, &stacks, &cmd);
	if (env.opt.cmd && ri.child_done && ret == EXIT_OK)
		ret = ri.child_status;
	/* Stopped before its command ended: the command is stopped too (cleanup). */
	ret = held_cmd_stopped_status(&cmd, exiting, ret);
	if (env.samples_out) {
		int werr = write_phase_samples(&phases, skel);

		if (ret == EXIT_OK)
			ret = werr;
	}
	if (env.breakdown_out) {
		int werr = write_breakdowns(skel);

		if (ret == EXIT_OK)
			ret = werr;
	}
	if (env.folded_out) {
		int werr = write_folded(skel);

		if (ret == EXIT_OK)
			ret = werr;
	}

cleanup:
	held_cmd_cleanup(&cmd);	/* a held command sees EOF and exits unrun */
	if (stats_fd >= 0)
		close(stats_fd);
	ring_buffer__free(rb);
	detach_all();
	daxlat_bpf__destroy(skel);
	kernel_btf_free();
	probe_kernel_free();
	evstore_free(&stacks);
	phase_store_free(&phases);
	bd_store_free(&breakdowns);
	free(om);
	if (mounts_fd >= 0)
		close(mounts_fd);
	return ret;
}
