// SPDX-License-Identifier: GPL-2.0
/*
 * syncorder: check, for every write fault on a MAP_SYNC mapping of an ext4
 * or xfs DAX file, that no writable page table entry is installed before
 * the block-mapping metadata of that fault is durable, and that the
 * NEEDDSYNC protocol (dax_iomap_fault -> vfs_fsync_range -> writable entry)
 * is followed. Runs a command (-c), watches a process (-p) or the whole
 * system, and prints KTAP (or JSON). validate/README.md explains the check.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "exitcodes.h"
#include "json.h"
#include "ktap.h"
#include "syncorder.h"
#include "syncorder_check.h"
#include "syncorder.skel.h"
#include "syncorder_probes.h"
#include "trace_helpers.h"

static struct env {
	struct trace_opts opt;	/* -c, -p, --json, --kprobes, --raw-tp, -v */
	long duration;
	const char *json_out;
	long details;
	bool prog_stats;	/* --prog-stats */
} env = { .details = 5 };

const char *argp_program_version = "syncorder 1";
error_t argp_err_exit_status = EXIT_USAGE;
static const char doc[] =
"Check the MAP_SYNC ordering of every synchronous DAX write fault: no\n"
"writable PTE/PMD before the fault's block-mapping metadata is committed.\n"
"\n"
"USAGE: syncorder [-c CMD | -p PID | -d SECONDS] [--json] [--json-out FILE]\n"
"                 [--kprobes | --fentry] [--raw-tp] [--details N] [--prog-stats] [-v]\n"
"\n"
"EXAMPLES:\n"
"    syncorder -c 'faultlat -f /mnt/ext4/f -S -n 512 >/dev/null'\n"
"    syncorder -c 'faultlat -f /mnt/xfs/f -S -s fallocated >/dev/null' --json-out r.json\n"
"    syncorder -p 1234          # a running process, until it exits or Ctrl-C\n"
"    syncorder -d 10            # the whole system for 10 seconds\n"
"\n"
"Output: one KTAP document (ok/not ok per check, violations as '#' lines);\n"
"--json prints a JSON document instead. Exit status (lib/exitcodes.h): 0 every\n"
"check passed, 14 a violation or an incomplete check, 15 nothing was checked\n"
"(no synchronous write fault seen), 1 runtime error, 2 usage, 8 no kernel BTF,\n"
"9 this kernel cannot be traced\n"
"(the probes line says which hook failed), 128+N stopped by signal N before\n"
"the command ended (the command is stopped too). The command's output shares\n"
"stdout: redirect it inside CMD.";

enum { OPT_JSON_OUT = OPT_TOOL, OPT_DETAILS, OPT_PROG_STATS };

static const struct argp_option opts[] = {
	{ "command", 'c', "CMD", 0, "Run CMD with sh -c once the probes are attached; check it and its children; stop when it exits", 0 },
	{ "pid", 'p', "PID", 0, "Check this process (all its threads) until it exits or Ctrl-C", 0 },
	{ "duration", 'd', "SECONDS", 0, "Without -c/-p: check the whole system for SECONDS (default: until Ctrl-C)", 0 },
	{ "json", OPT_JSON, NULL, 0, "Print a JSON document instead of KTAP", 0 },
	{ "json-out", OPT_JSON_OUT, "FILE", 0, "Also write the JSON document to FILE", 0 },
	{ "kprobes", OPT_KPROBES, NULL, 0, "Use kprobes even where fentry works", 0 },
	{ "fentry", OPT_FENTRY, NULL, 0, "Use fentry and tp_btf even where the kernel can preempt "
	  "them (the default there is kprobes and perf tracepoints: a preempted program makes the "
	  "kernel skip the next one)", 0 },
	{ "raw-tp", OPT_RAW_TP, NULL, 0, "Use raw tracepoints, not tp_btf", 0 },
	{ "details", OPT_DETAILS, "N", 0, "Violations printed in full in the KTAP output (default 5; JSON keeps up to 64)", 0 },
	{ "prog-stats", OPT_PROG_STATS, NULL, 0, "Also report what each BPF program costs: runs and run time as the kernel counts them", 0 },
	{ "verbose", 'v', NULL, 0, "libbpf debug output and probe decisions on stderr", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (!trace_opts_parse(&env.opt, key, arg, state))
		return 0;
	switch (key) {
	case 'd':
		env.duration = argp_parse_long(arg, "duration", 1, 86400L * 365, state);
		break;
	case OPT_PROG_STATS:
		env.prog_stats = true;
		break;
	case OPT_JSON_OUT:
		env.json_out = arg;
		break;
	case OPT_DETAILS:
		env.details = argp_parse_long(arg, "count for --details", 0, SC_DETAIL_MAX, state);
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument: %s", arg);
		break;
	case ARGP_KEY_END:
		if ((env.opt.cmd != NULL) + (env.opt.pid != 0) + (env.duration != 0) > 1)
			argp_error(state, "-c, -p and -d exclude each other");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- probes -------------------------------------------------------------------- */

static struct probe_set probes;
static struct bpf_link *fork_link;
static bool have_xfs;

/* The skeleton, opened, with what it needs to know before load. */
static void *open_skel(const void *cfg)
{
	struct syncorder_bpf *skel = syncorder_bpf__open();

	if (skel) {
		TRACE_CFG_APPLY(skel, (const struct trace_cfg *)cfg);
		skel->rodata->have_xfs = have_xfs;
	}
	return skel;
}

PROBE_SKEL_LOADER(syncorder_bpf, open_skel);

static void detach_all(void)
{
	probe_detach(&probes);
	destroy_links(&fork_link, 1);
}

/* Why xfs faults go unchecked, when they do. */
static const char *xfs_unchecked_why(void)
{
	static char why[192];
	const struct probe_target *t = probe_first(&probes, HOOK_XFS_IOMAP);

	if (t && t->cand && t->missing[0])
		snprintf(why, sizeof(why), "xfs BTF lacks %s", t->missing);
	else
		snprintf(why, sizeof(why), "xfs not loaded");
	return why;
}

/* ---- running ------------------------------------------------------------------- */

static volatile sig_atomic_t exiting;

/* The stop signal, or 0. */
static void on_signal(int sig)
{
	exiting = sig;
}

static int on_event(void *ctx, void *data, size_t len)
{
	struct so_event e;

	if (len < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	sc_feed(ctx, &e);
	return 0;
}

/* ---- output ---------------------------------------------------------------------- */

struct run {
	struct utsname uts;
	bool size_is_order;
	pid_t child;
	int child_status;	/* exit code, -1 unknown */
	bool no_btf, loaded, probes_ok;
	char probe_why[1024];
	char attach_why[256];	/* kprobes or fentry, which tracepoints, and why */
	unsigned long long counters[SO_C_NR];
	unsigned long long misses;	/* program runs the kernel skipped */
	struct probe_prog_stat *stats;	/* --prog-stats */
	int nstats;
};

static bool is_protocol(enum sc_kind k)
{
	return k >= SC_V_INSERT_IN_NEEDDSYNC && k < SC_V_NR;
}

static bool is_invariant(enum sc_kind k)
{
	return k == SC_V_DIRECT_UNCOMMITTED || k == SC_V_SYNC_UNCOMMITTED;
}

static void print_report_text(FILE *o, const struct sc_report *r, size_t n)
{
	fprintf(o, "# %s %zu: %s: pid %u (%.*s) tid %u, dev %u:%u ino %llu pgoff %llu, %s %s write fault\n",
		sc_kind_is_violation(r->kind) ? "violation" : "error", n, sc_kind_name(r->kind),
		r->pid, SO_COMM_LEN, r->comm, r->tid, r->dev >> 20, r->dev & 0xfffff,
		(unsigned long long)r->ino, (unsigned long long)r->pgoff, fault_fs_name(r->fs),
		fault_size_name(r->size));
	fprintf(o, "#   %s\n", r->text);
	if (r->nseq) {
		fprintf(o, "#   events:\n");
		for (int i = 0; i < r->nseq; i++)
			fprintf(o, "#     %d. %s\n", i + 1, r->seq[i]);
	}
}

/* The reports of one group, before the result they explain. */
static void print_group(FILE *o, const struct sc_checker *c, bool (*in)(enum sc_kind),
			size_t *shown)
{
	for (size_t i = 0; i < c->nreports; i++) {
		if (!in(c->reports[i].kind))
			continue;
		if (*shown < (size_t)env.details)
			print_report_text(o, &c->reports[i], *shown + 1);
		(*shown)++;
	}
}

static bool is_stream_error(enum sc_kind k)
{
	return k == SC_E_SEQUENCE || k == SC_E_NO_IOMAP || k == SC_E_DROPS;
}

static bool is_unsupported(enum sc_kind k)
{
	return k == SC_E_UNSUPPORTED;
}

static unsigned long long count_kinds(const struct sc_checker *c, bool (*in)(enum sc_kind))
{
	unsigned long long n = 0;

	for (int k = 0; k < SC_KIND_NR; k++)
		if (in((enum sc_kind)k))
			n += c->by_kind[k];
	return n;
}

/* Nothing could be traced: every check skipped, the reason first. */
static void ktap_untraced(struct ktap *k, const struct run *ri)
{
	static const char *const checks[] = {
		"event_stream_complete", "sync_faults_checked", "needdsync_protocol",
		"commit_before_writable_entry",
	};

	ktap_result(k, false, "probes_attached", "%s", ri->probe_why);
	for (size_t i = 0; i < sizeof(checks) / sizeof(*checks); i++)
		ktap_skip(k, checks[i], "not traced");
	if (env.opt.cmd)
		ktap_skip(k, "workload", "not run");
}

static void ktap_stream(struct ktap *k, const struct sc_checker *c, const struct run *ri,
			size_t *shown)
{
	const struct sc_stats *st = &c->st;
	unsigned long long v = count_kinds(c, is_stream_error);

	print_group(ktap_file(k), c, is_stream_error, shown);
	ktap_result(k, !v && !ri->counters[SO_C_STATE_FULL] && !c->out_of_memory && !ri->misses,
		    "event_stream_complete", "%llu events (%llu sent), %llu lost, %llu checker errors, "
		    "task table full %llu, %llu faults already in flight at attach skipped, "
		    "%llu program runs skipped by the kernel%s",
		    st->events, ri->counters[SO_C_EVENTS], st->drops, v,
		    ri->counters[SO_C_STATE_FULL], st->skipped_in_flight, ri->misses,
		    c->out_of_memory ? ", checker out of memory" : "");
}

static void ktap_checked(struct ktap *k, const struct sc_checker *c, size_t *shown)
{
	const struct sc_stats *st = &c->st;

	print_group(ktap_file(k), c, is_unsupported, shown);
	if (c->by_kind[SC_E_UNSUPPORTED])
		ktap_result(k, false, "sync_faults_checked",
			    "%llu faults could not be checked (see above), %llu checked",
			    st->unsupported, st->checked);
	else if (!st->checked)
		ktap_skip(k, "sync_faults_checked",
			  "no writable entry was installed by a VM_SYNC write fault (%llu faults seen)",
			  st->faults);
	else
		ktap_result(k, true, "sync_faults_checked",
			    "%llu VM_SYNC write faults (ext4 %llu, xfs %llu; pte %llu, pmd %llu), "
			    "%llu allocating, %llu NEEDDSYNC, %llu writable entries checked "
			    "(%llu direct, %llu after sync), %llu of them mapping the iomap's block "
			    "(%llu pfns not checkable, %llu nonlinear devices); "
			    "a per-inode check would have flagged %llu",
			    st->faults, st->faults_ext4, st->faults_xfs, st->faults_pte,
			    st->faults_pmd, st->allocating, st->needdsync, st->checked,
			    st->direct_inserts, st->sync_inserts,
			    st->pfn_checked - c->by_kind[SC_V_WRONG_PFN], st->pfn_unchecked,
			    st->dax_nonlinear, st->naive_flagged);
	if (c->nprocs < 2)
		return;
	for (size_t i = 0; i < c->nprocs && i < 16; i++) {
		const struct sc_proc *p = &c->procs[i];

		ktap_diag(k, "process %u (%s): %llu faults, %llu checked (%llu NEEDDSYNC), "
			  "%llu violations", p->pid, p->comm, p->faults, p->checked, p->needdsync,
			  p->violations);
	}
	if (c->nprocs > 16)
		ktap_diag(k, "(%zu more processes: --json)", c->nprocs - 16);
}

static void ktap_rules(struct ktap *k, const struct sc_checker *c, size_t *shown)
{
	unsigned long long v = count_kinds(c, is_protocol);

	print_group(ktap_file(k), c, is_protocol, shown);
	ktap_result(k, !v, "needdsync_protocol", "%llu violations", v);
	v = count_kinds(c, is_invariant);
	print_group(ktap_file(k), c, is_invariant, shown);
	ktap_result(k, !v, "commit_before_writable_entry",
		    "%llu violations in %llu faults (%llu direct, %llu after sync)", v,
		    c->st.violating_faults, c->by_kind[SC_V_DIRECT_UNCOMMITTED],
		    c->by_kind[SC_V_SYNC_UNCOMMITTED]);
	if (*shown > (size_t)env.details)
		ktap_diag(k, "(%zu more reports not shown; --details N, or --json)",
			  *shown - (size_t)env.details);
}

/* The verdict as KTAP on stdout; returns the exit status it means. */
static int print_ktap(const struct sc_checker *c, const struct run *ri)
{
	size_t shown = 0;
	char buf[2048];
	struct ktap k;

	if (ktap_begin(&k, stdout)) {
		fprintf(stderr, "syncorder: out of memory\n");
		return EXIT_RUNTIME;
	}
	ktap_diag(&k, "syncorder on %s; dax_iomap_fault 2nd argument: %s", ri->uts.release,
		  ri->size_is_order ? "order" : "enum page_entry_size");
	probe_summary(&probes, buf, sizeof(buf));
	ktap_diag(&k, "probes: %s", buf);
	ktap_diag(&k, "attach: %s", ri->attach_why);
	for (int i = 0; i < ri->nstats; i++)
		if (ri->stats[i].runs)
			ktap_diag(&k, "program %s: %llu runs, %llu ns per run (kernel run-time statistics)",
				  ri->stats[i].name, ri->stats[i].runs, ri->stats[i].run_ns / ri->stats[i].runs);
	if (!ri->loaded || !ri->probes_ok) {
		ktap_untraced(&k, ri);
	} else {
		if (have_xfs)
			ktap_result(&k, true, "probes_attached", "ext4 and xfs");
		else
			ktap_result(&k, true, "probes_attached", "ext4 (%s)", xfs_unchecked_why());
		ktap_stream(&k, c, ri, &shown);
		ktap_checked(&k, c, &shown);
		ktap_rules(&k, c, &shown);
		if (env.opt.cmd)
			ktap_result(&k, ri->child_status == 0, "workload", "'%s' exit %d",
				    env.opt.cmd, ri->child_status);
	}
	ktap_end(&k);
	return EXIT_OK;
}

static int write_json(FILE *out, const struct sc_checker *c, const struct run *ri, int result)
{

	const struct sc_stats *st = &c->st;
	struct json_writer w;

	json_init(&w, out);
	json_begin_object(&w);
	json_kv_string(&w, "tool", "syncorder");
	json_kv_string(&w, "kernel", ri->uts.release);
	json_kv_string(&w, "result", result == EXIT_OK ? "pass" :
		       result == EXIT_NOTHING_CHECKED ? "skip" : "fail");
	json_kv_string(&w, "size_arg", ri->size_is_order ? "order" : "enum page_entry_size");
	probe_json(&probes, &w);
	json_kv_bool(&w, "probes_ok", ri->loaded && ri->probes_ok);
	json_kv_string(&w, "attach_choice", ri->attach_why);
	if (!ri->probes_ok)
		json_kv_string(&w, "probes_error", ri->probe_why);
	if (env.opt.cmd) {
		json_key(&w, "command");
		json_begin_object(&w);
		json_kv_string(&w, "cmd", env.opt.cmd);
		json_kv_int(&w, "pid", ri->child);
		json_kv_int(&w, "status", ri->child_status);
		json_end_object(&w);
	}
	json_key(&w, "counts");
	json_begin_object(&w);
	json_kv_uint(&w, "events", st->events);
	json_kv_uint(&w, "events_lost", st->drops);
	json_kv_uint(&w, "program_runs_missed", ri->misses);
	json_kv_uint(&w, "task_table_full", ri->counters[SO_C_STATE_FULL]);
	json_kv_uint(&w, "events_sent", ri->counters[SO_C_EVENTS]);
	json_kv_uint(&w, "sync_write_faults_entered", ri->counters[SO_C_FAULTS]);
	json_kv_uint(&w, "journal_handle_mismatch", ri->counters[SO_C_JOURNAL_HANDLE_MISMATCH]);
	json_kv_bool(&w, "checker_out_of_memory", c->out_of_memory);
	json_kv_uint(&w, "faults", st->faults);
	json_kv_uint(&w, "faults_ext4", st->faults_ext4);
	json_kv_uint(&w, "faults_xfs", st->faults_xfs);
	json_kv_uint(&w, "faults_other_fs", st->faults_other);
	json_kv_uint(&w, "faults_pte", st->faults_pte);
	json_kv_uint(&w, "faults_pmd", st->faults_pmd);
	json_kv_uint(&w, "allocating", st->allocating);
	json_kv_uint(&w, "needdsync", st->needdsync);
	json_kv_uint(&w, "sync_finishes", st->syncs);
	json_kv_uint(&w, "direct_inserts", st->direct_inserts);
	json_kv_uint(&w, "sync_inserts", st->sync_inserts);
	json_kv_uint(&w, "checked", st->checked);
	json_kv_uint(&w, "pfn_checked", st->pfn_checked);
	json_kv_uint(&w, "pfn_unchecked", st->pfn_unchecked);
	json_kv_uint(&w, "dax_nonlinear_devices", st->dax_nonlinear);
	json_kv_uint(&w, "mkwrite_no_entry", st->no_entry);
	json_kv_uint(&w, "jbd2_commits", st->jbd2_commits);
	json_kv_uint(&w, "xfs_checkpoints", st->xfs_checkpoints);
	json_kv_uint(&w, "xfs_log_forces", st->xfs_forces);
	json_kv_uint(&w, "unsupported", st->unsupported);
	json_kv_uint(&w, "in_flight_at_end", st->in_flight);
	json_kv_uint(&w, "skipped_in_flight_at_attach", st->skipped_in_flight);
	json_kv_uint(&w, "violations", c->n_violations);
	json_kv_uint(&w, "violating_faults", st->violating_faults);
	json_kv_uint(&w, "per_inode_check_would_flag", st->naive_flagged);
	json_kv_uint(&w, "checker_errors", c->n_errors);
	json_end_object(&w);
	json_key(&w, "by_kind");
	json_begin_object(&w);
	for (int k = 0; k < SC_KIND_NR; k++)
		if (c->by_kind[k])
			json_kv_uint(&w, sc_kind_name((enum sc_kind)k), c->by_kind[k]);
	json_end_object(&w);
	json_key(&w, "processes");
	json_begin_array(&w);
	for (size_t i = 0; i < c->nprocs; i++) {
		const struct sc_proc *p = &c->procs[i];

		json_begin_object(&w);
		json_kv_uint(&w, "pid", p->pid);
		json_kv_string(&w, "comm", p->comm);
		json_kv_uint(&w, "faults", p->faults);
		json_kv_uint(&w, "allocating", p->allocating);
		json_kv_uint(&w, "needdsync", p->needdsync);
		json_kv_uint(&w, "direct_inserts", p->direct_inserts);
		json_kv_uint(&w, "sync_inserts", p->sync_inserts);
		json_kv_uint(&w, "checked", p->checked);
		json_kv_uint(&w, "pfn_checked", p->pfn_checked);
		json_kv_uint(&w, "violations", p->violations);
		json_kv_uint(&w, "checker_errors", p->errors);
		json_kv_uint(&w, "per_inode_check_would_flag", p->naive_flagged);
		json_key(&w, "by_kind");
		json_begin_object(&w);
		for (int k = 0; k < SC_KIND_NR; k++)
			if (p->by_kind[k])
				json_kv_uint(&w, sc_kind_name((enum sc_kind)k), p->by_kind[k]);
		json_end_object(&w);
		if (p->first[0])
			json_kv_string(&w, "first_violation", p->first);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_key(&w, "reports");
	json_begin_array(&w);
	for (size_t i = 0; i < c->nreports; i++) {
		const struct sc_report *r = &c->reports[i];
		char buf[64];

		json_begin_object(&w);
		json_kv_string(&w, "kind", sc_kind_name(r->kind));
		json_kv_bool(&w, "violation", sc_kind_is_violation(r->kind));
		json_kv_uint(&w, "pid", r->pid);
		json_kv_uint(&w, "tid", r->tid);
		json_kv_string(&w, "comm", r->comm);
		snprintf(buf, sizeof(buf), "%u:%u", r->dev >> 20, r->dev & 0xfffff);
		json_kv_string(&w, "dev", buf);
		json_kv_uint(&w, "ino", r->ino);
		json_kv_uint(&w, "pgoff", r->pgoff);
		json_kv_string(&w, "fs", fault_fs_name(r->fs));
		json_kv_string(&w, "size", fault_size_name(r->size));
		if (r->has_required)
			json_kv_uint(&w, "required", r->required);
		json_kv_string(&w, "diagnosis", r->text);
		json_key(&w, "events");
		json_begin_array(&w);
		for (int j = 0; j < r->nseq; j++)
			json_string(&w, r->seq[j]);
		json_end_array(&w);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_kv_uint(&w, "reports_not_kept", c->reports_dropped);
	if (env.prog_stats)
		probe_prog_stats_json(ri->stats, ri->nstats, &w);
	json_end_object(&w);
	return json_finish(&w);
}

/* ---- main ------------------------------------------------------------------------ */

/* The run's exit status, the same whether it prints KTAP or JSON. */
static int run_status(const struct sc_checker *c, const struct run *ri)
{
	if (!ri->loaded || !ri->probes_ok)
		return ri->no_btf ? EXIT_NO_BTF : EXIT_NO_PROBE;
	if (env.opt.cmd && ri->child_status != 0)
		return EXIT_CHECK_FAILED;
	/* A skipped program run is an event not seen: nothing is proven. */
	if (ri->misses)
		return EXIT_CHECK_FAILED;
	switch (sc_result(c)) {
	case KTAP_PASSED:
		return EXIT_OK;
	case KTAP_ALL_SKIPPED:
		return EXIT_NOTHING_CHECKED;
	default:
		return EXIT_CHECK_FAILED;
	}
}

/* Why the kernel cannot be checked, into ri->probe_why: false. */
__attribute__((format(printf, 2, 3)))
static bool unusable(struct run *ri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ri->probe_why, sizeof(ri->probe_why), fmt, ap);
	va_end(ap);
	return false;
}

/* BTF, the size argument, where the hooks are, what the BPF side is told. */
static bool resolve_kernel(struct run *ri, struct trace_cfg *cfg)
{
	int err = kernel_btf_load();
	bool kprobes, perf_tp;

	if (err) {
		ri->no_btf = true;
		return unusable(ri, "no kernel BTF (/sys/kernel/btf/vmlinux: %s): the kernel needs "
				"CONFIG_DEBUG_INFO_BTF", strerror(-err));
	}
	err = detect_size_arg("dax_iomap_fault", &ri->size_is_order, NULL);
	if (err)
		return unusable(ri, "%s", err == -ENOENT ?
				"dax_iomap_fault is not in the kernel's BTF (no CONFIG_FS_DAX?)" :
				"dax_iomap_fault has an unknown signature (2nd argument neither enum nor integer)");
	verbose("vmlinux BTF loaded");
	kernel_btf_load_modules();
	verbose("module BTF loaded");
	probe_choose_modes(&env.opt, &kprobes, &perf_tp, ri->attach_why, sizeof(ri->attach_why));
	verbose("%s", ri->attach_why);
	if (probe_resolve(&probes, &probe_running_kernel, syncorder_uses,
			  sizeof(syncorder_uses) / sizeof(*syncorder_uses), kprobes,
			  env.opt.raw_tp))
		return unusable(ri, "more probe targets than PROBE_MAX_TARGETS");
	probe_use_perf_tracepoints(&probes, perf_tp);
	probe_print_resolved(&probes);
	have_xfs = probe_usable(&probes, HOOK_XFS_IOMAP);
	cfg->size_is_order = ri->size_is_order;
	cfg->pmd_order = detect_pmd_order();
	cfg->filter = env.opt.cmd || env.opt.pid;
	cfg->follow_forks = env.opt.cmd != NULL;
	verbose("dax_iomap_fault size argument is %s; PMD order %u; xfs: %s",
		ri->size_is_order ? "an order" : "enum page_entry_size", cfg->pmd_order,
		have_xfs ? "present" : xfs_unchecked_why());
	return true;
}

/* Why probe_ok() said no, with what may explain it. */
static void explain_probes(struct run *ri)
{
	size_t l = strlen(ri->probe_why), len = sizeof(ri->probe_why);
	int err = probes.fast_load_err;

	if (err && !probes.kprobes)
		l += (size_t)snprintf(ri->probe_why + l, len - l, " (fentry programs do not load here: %s%s)",
				      strerror(-err), err == -EPERM ? ", BPF tracing restricted" : "");
	if (l < len && kprobes_unavailable())
		snprintf(ri->probe_why + l, len - l,
			 " (this kernel has no kprobe PMU nor kprobe_events to fall back on)");
}

/* Load and attach; *skelp set for cleanup. ri->loaded and ri->probes_ok say
 * how far it got. */
static void load_and_attach(struct run *ri, const struct trace_cfg *cfg, struct sc_checker *chk,
			    struct syncorder_bpf **skelp)
{
	struct timespec now;
	int err;

	*skelp = probe_load(&probes, &syncorder_bpf_loader, cfg, &err);
	if (!*skelp) {
		if (probes.missing_prog[0])
			unusable(ri, "the BPF object lacks program %s", probes.missing_prog);
		else
			unusable(ri, "cannot load the BPF programs: %s%s", strerror(-err),
				 err == -EPERM ? " (not root, or BPF restricted)" : "");
		return;
	}
	verbose("loaded");
	ri->loaded = true;
	probe_attach(&probes);
	/* Faults already running now are not judged (sc_set_attach_time);
	 * with -c nothing traced exists yet, so every record is judged. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!env.opt.cmd)
		sc_set_attach_time(chk, (__u64)now.tv_sec * 1000000000ULL + (__u64)now.tv_nsec);
	verbose("attached");
	ri->probes_ok = probe_ok(&probes, ri->probe_why, sizeof(ri->probe_why));
	if (!ri->probes_ok) {
		explain_probes(ri);
		fprintf(stderr, "syncorder: cannot trace what the check needs: %s\n", ri->probe_why);
	}
}

/* The filter, fork following and ring buffer: false on failure (said). */
static bool start_stream(struct syncorder_bpf *skel, const struct run *ri,
			 const struct trace_cfg *cfg, struct sc_checker *chk, struct ring_buffer **rbp)
{
	if (env.opt.cmd) {
		fork_link = bpf_program__attach(skel->progs.follow_fork);
		if (!fork_link)
			fprintf(stderr, "syncorder: warning: cannot follow forks (%s): only the shell is checked\n",
				strerror(errno));
	}
	if (cfg->filter && filter_add_tgid(skel->maps.tgids, env.opt.cmd ? ri->child : env.opt.pid)) {
		fprintf(stderr, "syncorder: cannot set the pid filter: %s\n", strerror(errno));
		return false;
	}
	*rbp = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, chk, NULL);
	if (!*rbp) {
		fprintf(stderr, "syncorder: cannot open the ring buffer: %s\n", strerror(errno));
		return false;
	}
	return true;
}

/* Until the command or process ends, -d passes or a stop signal: false
 * when the ring buffer failed. */
static bool check_loop(struct ring_buffer *rb, struct run *ri, struct held_cmd *cmd)
{
	time_t deadline = env.duration ? time(NULL) + env.duration : 0;
	int pidfd = env.opt.cmd ? cmd->pidfd : env.opt.pid ? pid_watch(env.opt.pid) : -1;
	/* What no fd can wake us for is asked every 100 ms: the end of the
	 * process without a pidfd, and -d. */
	bool ask = (env.opt.cmd || env.opt.pid) && pidfd < 0;
	int err = 0;

	while (!exiting) {
		err = wait_for_work(rb, pidfd, -1, NULL, ask ? 100 : deadline ? 1000 : -1, &exiting);
		if (err < 0) {
			fprintf(stderr, "syncorder: waiting for events: %s\n", strerror(-err));
			break;
		}
		if (env.opt.cmd) {
			if (held_cmd_ended(cmd, &ri->child_status, -1))
				break;
		} else if (env.opt.pid && process_gone(env.opt.pid)) {
			break;
		}
		if (deadline && time(NULL) >= deadline)
			break;
	}
	if (!env.opt.cmd && pidfd >= 0)
		close(pidfd);
	if (err < 0)
		return false;
	verbose("workload done");
	ring_buffer__consume(rb);
	return true;
}

/* KTAP or JSON on stdout, JSON into --json-out: the exit status. */
static int report(const struct sc_checker *chk, const struct run *ri)
{
	int status = run_status(chk, ri);
	FILE *f;

	if (env.opt.json ? write_json(stdout, chk, ri, status) : print_ktap(chk, ri))
		status = EXIT_RUNTIME;
	if (env.json_out) {
		f = fopen(env.json_out, "w");
		if (!f || write_json(f, chk, ri, status)) {
			fprintf(stderr, "syncorder: cannot write %s: %s\n", env.json_out, strerror(errno));
			status = EXIT_RUNTIME;
		}
		if (f)
			fclose(f);
	}
	if (!ri->loaded)
		fprintf(stderr, "syncorder: %s\n", ri->probe_why);
	return status;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct run ri = { .child_status = -1 };
	struct trace_cfg cfg = { 0 };
	struct syncorder_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct sc_checker *chk;
	struct sigaction sa = { .sa_handler = on_signal };
	struct held_cmd cmd = HELD_CMD_INIT;
	int ret = EXIT_RUNTIME;
	int stats_fd = -1;	/* --prog-stats: open while the statistics count */

	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	verbose_setup("syncorder", env.opt.verbose, true);
	libbpf_set_print(libbpf_print_verbose);
	uname(&ri.uts);
	chk = sc_new();
	if (!chk) {
		fprintf(stderr, "syncorder: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (env.opt.pid && kill(env.opt.pid, 0) && errno == ESRCH) {
		fprintf(stderr, "syncorder: no process %d\n", env.opt.pid);
		sc_free(chk);
		return EXIT_USAGE;
	}
	verbose("start");
	if (resolve_kernel(&ri, &cfg)) {
		if (env.opt.cmd) {
			if (held_cmd_spawn(&cmd, env.opt.cmd)) {
				fprintf(stderr, "syncorder: cannot start the command: %s\n", strerror(errno));
				goto cleanup;
			}
			ri.child = cmd.pid;
		}
		if (env.prog_stats && (stats_fd = probe_stats_enable()) < 0) {
			fprintf(stderr, "syncorder: --prog-stats: the kernel refused run-time statistics: %s\n",
				strerror(-stats_fd));
			goto cleanup;
		}
		load_and_attach(&ri, &cfg, chk, &skel);
	}
	if (ri.loaded && ri.probes_ok) {
		if (!start_stream(skel, &ri, &cfg, chk, &rb))
			goto cleanup;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		if (env.opt.cmd && held_cmd_release(&cmd)) {
			fprintf(stderr, "syncorder: cannot start the command: %s\n", strerror(errno));
			goto cleanup;
		}
		if (!check_loop(rb, &ri, &cmd))
			goto cleanup;
	} else {
		/* The command has not run: it gets EOF on its pipe. */
		held_cmd_cancel(&cmd);
	}
	if (skel) {
		memcpy(ri.counters, (const void *)skel->bss->counters, sizeof(ri.counters));
		ri.misses = probe_misses(skel->obj);
		if (env.prog_stats)
			ri.nstats = probe_prog_stats(skel->obj, &ri.stats);
		if (ri.nstats < 0) {
			fprintf(stderr, "syncorder: --prog-stats: %s\n", strerror(-ri.nstats));
			ri.nstats = 0;
		}
	}
	if (ri.loaded) {
		sc_set_drops(chk, ri.counters[SO_C_DROPS]);
		sc_finish(chk);
	}
	ret = report(chk, &ri);

cleanup:
	/* Interrupted: the command is stopped and reaped, and that is no pass. */
	ret = held_cmd_stopped_status(&cmd, exiting, ret);
	held_cmd_cleanup(&cmd);
	verbose("cleanup");
	if (stats_fd >= 0)
		close(stats_fd);
	ring_buffer__free(rb);
	detach_all();
	syncorder_bpf__destroy(skel);
	kernel_btf_free();
	probe_kernel_free();
	free(ri.stats);
	sc_free(chk);
	return ret;
}
