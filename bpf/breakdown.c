// SPDX-License-Identifier: GPL-2.0
/* daxlat --breakdown: see breakdown.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown.h"
#include "json.h"
#include "kinds.h"

static const char *const waker_names[W_NR] = {
	[W_JBD2] = "jbd2_commit",
	[W_XFS_CIL] = "xfs_cil_push",
	[W_XFS_LOG_IO] = "xfs_log_io_done",
	[W_WORKER] = "other_worker",
	[W_IDLE] = "idle",
	[W_OTHER] = "other",
};

static const char *const waker_texts[W_NR] = {
	[W_JBD2] = "a jbd2 commit (kjournald2)",
	[W_XFS_CIL] = "the xfs CIL push (xlog_cil_push_work)",
	[W_XFS_LOG_IO] = "xfs log I/O completion (xlog_ioend_work)",
	[W_WORKER] = "another workqueue worker",
	[W_IDLE] = "the idle task (wake-up latency)",
	[W_OTHER] = "another task, or none seen",
};

static const char *const commit_names[JC_NR] = {
	"before", "start", "locking", "flushing", "logging", "end",
};

static const char *const commit_texts[JC_NR] = {
	"before the commit began",
	"commit start -> locking",
	"locking: waiting for handles",
	"flushing: ordered data",
	"logging: log blocks + commit record",
	"commit end -> wake-up",
};

static const char *const part_names[BD_PARTS] = { "on_cpu", "runnable", "asleep" };
static const char *const part_texts[BD_PARTS] = {
	"on CPU (the faulting thread)", "runnable, waiting for a CPU", "asleep",
};

const char *bd_waker_name(unsigned int w) { return w < W_NR ? waker_names[w] : "?"; }
const char *bd_commit_name(unsigned int jc) { return jc < JC_NR ? commit_names[jc] : "?"; }
const char *bd_part_name(unsigned int p) { return p < BD_PARTS ? part_names[p] : "?"; }

int bd_store_add(struct bd_store *st, const void *data, size_t len)
{
	if (len < sizeof(struct bd_sample))
		return 0;
	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 1024;
		struct bd_sample *v = realloc(st->v, cap * sizeof(*v));

		if (!v) {
			st->out_of_memory = true;
			return -1;
		}
		st->v = v, st->cap = cap;
	}
	memcpy(&st->v[st->n++], data, sizeof(struct bd_sample));
	return 0;
}

void bd_store_clear(struct bd_store *st)
{
	st->n = 0;
}

void bd_store_free(struct bd_store *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}

static __u64 parts_sum(const struct bd_sample *s)
{
	return s->part[BD_ONCPU] + s->part[BD_RUNQ] + s->part[BD_SLEEP];
}

static long long sum_diff(const struct bd_sample *s)
{
	return (long long)parts_sum(s) - (long long)s->phase_ns;
}

bool bd_sample_sums(const struct bd_sample *s)
{
	long long d = sum_diff(s);

	if (d < 0)
		d = -d;
	return (double)d <= s->phase_ns * BD_SUM_TOL_PCT / 100.0;
}

bool bd_sample_runq_agrees(const struct bd_sample *s)
{
	long long d = (long long)s->part[BD_RUNQ] - (long long)s->run_delay;

	if (d < 0)
		d = -d;
	return (__u64)d <= BD_RUNQ_TOL_NS || (double)d <= s->run_delay * BD_RUNQ_TOL_PCT / 100.0;
}

static void add_sample(struct bd_summary *m, const struct bd_sample *s)
{
	long long d = sum_diff(s);

	m->faults++;
	m->phase_ns += s->phase_ns;
	for (int p = 0; p < BD_PARTS; p++)
		m->part[p] += s->part[p];
	for (int w = 0; w < W_NR; w++) {
		m->sleep_by[w] += s->sleep_by[w];
		m->runq_by[w] += s->runq_by[w];
	}
	for (int c = 0; c < JC_NR; c++)
		m->commit[c] += s->commit[c];
	m->work_queued += s->work_queued;
	m->work_running += s->work_running;
	m->wake_delivery += s->wake_delivery;
	m->bios += s->bios;
	m->bio_ns += s->bio_ns;
	m->flushes += s->flushes;
	m->flush_ns += s->flush_ns;
	m->sum_ok += bd_sample_sums(s);
	m->runq_ok += bd_sample_runq_agrees(s);
	m->switches_ok += s->switch_ins == s->pcount;
	m->broken += s->broken != 0;
	if (s->part[BD_SLEEP] + s->part[BD_RUNQ] && s->main_wait < W_NR)
		m->main_wait[s->main_wait]++;
	if (d < 0)
		d = -d;
	if (d > m->worst_sum_diff_ns)
		m->worst_sum_diff_ns = d;
}

void bd_summarize(const struct bd_store *st, struct bd_summary sum[FS_NR])
{
	memset(sum, 0, FS_NR * sizeof(*sum));
	for (size_t i = 0; i < st->n; i++)
		if (st->v[i].fs < FS_NR)
			add_sample(&sum[st->v[i].fs], &st->v[i]);
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void text_line(FILE *out, int indent, const char *what, __u64 ns, __u64 faults,
		      __u64 phase, __u64 unit_div)
{
	fprintf(out, "%*s%-*s %10.1f %6.1f %%\n", indent, "", 58 - indent, what,
		(double)ns / faults / unit_div, pct(ns, phase));
}

/* The waits charged to each task kind, under @part's line. */
static void print_waits_text(FILE *out, const char *how, const __u64 by[W_NR], const struct bd_summary *m,
			     __u64 unit_div)
{
	for (int w = 0; w < W_NR; w++) {
		char what[96];

		if (!by[w])
			continue;
		snprintf(what, sizeof(what), "%s %s", how, waker_texts[w]);
		text_line(out, 6, what, by[w], m->faults, m->phase_ns, unit_div);
	}
}

static void print_fs_text(FILE *out, unsigned int fs, const struct bd_summary *m,
			  __u64 unit_div, const char *unit)
{
	__u64 n = m->faults, ph = m->phase_ns;
	long long agg = (long long)(m->part[0] + m->part[1] + m->part[2]) - (long long)ph;

	fprintf(out, "%s: %llu synchronous faults; metadata sync (phase 2), mean per fault, %s, share\n",
		fault_fs_name(fs), (unsigned long long)n, unit);
	text_line(out, 2, "phase 2: dax_finish_sync_fault -> fsync", ph, n, ph, unit_div);
	text_line(out, 4, part_texts[BD_ONCPU], m->part[BD_ONCPU], n, ph, unit_div);
	text_line(out, 4, part_texts[BD_RUNQ], m->part[BD_RUNQ], n, ph, unit_div);
	print_waits_text(out, "behind", m->runq_by, m, unit_div);
	text_line(out, 4, part_texts[BD_SLEEP], m->part[BD_SLEEP], n, ph, unit_div);
	print_waits_text(out, "woken by", m->sleep_by, m, unit_div);
	if (m->wake_delivery)
		text_line(out, 6, "of which the wake-up on its way (waking -> wakeup)", m->wake_delivery,
			  n, ph, unit_div);
	if (m->sleep_by[W_JBD2] + m->runq_by[W_JBD2]) {
		fprintf(out, "    waits on a jbd2 commit, over its tracepoints:\n");
		for (int c = 0; c < JC_NR; c++)
			text_line(out, 6, commit_texts[c], m->commit[c], n, ph, unit_div);
	}
	if (m->work_queued + m->work_running) {
		fprintf(out, "    waits on a worker:\n");
		text_line(out, 6, "before its work item began", m->work_queued, n, ph, unit_div);
		text_line(out, 6, "since", m->work_running, n, ph, unit_div);
	}
	if (m->bios) {
		/* Not a part: bios overlap the waits (and each other, and other
		 * faults' phases); their latency, queue to completion. */
		fprintf(out, "    block I/O on its device meanwhile: %.1f bios a fault, %.1f of them "
			"REQ_PREFLUSH/FUA; latency, of the phase:\n",
			(double)m->bios / n, (double)m->flushes / n);
		text_line(out, 6, "every bio", m->bio_ns, n, ph, unit_div);
		text_line(out, 6, "the flushes (REQ_PREFLUSH/FUA)", m->flush_ns, n, ph, unit_div);
	}
	fprintf(out, "  parts add up to the phase: %llu of %llu faults within %.0f %% (all: %+.3f %%, worst %lld ns)\n",
		(unsigned long long)m->sum_ok, (unsigned long long)n, BD_SUM_TOL_PCT,
		ph ? 100.0 * (double)agg / (double)ph : 0.0, m->worst_sum_diff_ns);
	fprintf(out, "  switch-ins = the kernel's sched_info.pcount: %llu of %llu faults; out of order: %llu\n",
		(unsigned long long)m->switches_ok, (unsigned long long)n, (unsigned long long)m->broken);
	fprintf(out, "  longest wait on:");
	for (int w = 0; w < W_NR; w++)
		if (m->main_wait[w])
			fprintf(out, " %s %llu (%.1f %%)", waker_names[w],
				(unsigned long long)m->main_wait[w], pct(m->main_wait[w], n));
	fprintf(out, "\n\n");
}

void bd_print_text(FILE *out, const struct bd_store *st, __u64 unit_div, const char *unit)
{
	struct bd_summary sum[FS_NR];
	bool any = false;

	bd_summarize(st, sum);
	fprintf(out, "=== the metadata sync across threads (--breakdown) ===\n\n");
	for (unsigned int fs = 0; fs < FS_NR; fs++) {
		if (!sum[fs].faults)
			continue;
		print_fs_text(out, fs, &sum[fs], unit_div, unit);
		any = true;
	}
	if (!any)
		fprintf(out, "no synchronous fault reached its metadata sync\n\n");
}

static void json_by(struct json_writer *w, const char *key, const __u64 by[W_NR])
{
	json_key(w, key);
	json_begin_object(w);
	for (int k = 0; k < W_NR; k++)
		json_kv_uint(w, waker_names[k], by[k]);
	json_end_object(w);
}

static void json_fs(struct json_writer *w, unsigned int fs, const struct bd_summary *m)
{
	json_begin_object(w);
	json_kv_string(w, "fs", fault_fs_name(fs));
	json_kv_uint(w, "faults", m->faults);
	json_kv_uint(w, "phase_ns", m->phase_ns);
	for (int p = 0; p < BD_PARTS; p++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_ns", part_names[p]);
		json_kv_uint(w, key, m->part[p]);
	}
	json_by(w, "runnable_behind", m->runq_by);
	json_by(w, "asleep_woken_by", m->sleep_by);
	json_key(w, "jbd2_commit");
	json_begin_object(w);
	for (int c = 0; c < JC_NR; c++)
		json_kv_uint(w, commit_names[c], m->commit[c]);
	json_end_object(w);
	json_kv_uint(w, "worker_queued_ns", m->work_queued);
	json_kv_uint(w, "worker_running_ns", m->work_running);
	json_kv_uint(w, "wake_delivery_ns", m->wake_delivery);
	json_key(w, "block_io");
	json_begin_object(w);
	json_kv_uint(w, "bios", m->bios);
	json_kv_uint(w, "bio_ns", m->bio_ns);
	json_kv_uint(w, "flushes", m->flushes);
	json_kv_uint(w, "flush_ns", m->flush_ns);
	json_end_object(w);
	json_by(w, "longest_wait_on", m->main_wait);
	json_key(w, "checks");
	json_begin_object(w);
	json_kv_double(w, "sum_tolerance_pct", BD_SUM_TOL_PCT);
	json_kv_uint(w, "sum_ok", m->sum_ok);
	json_kv_int(w, "worst_sum_diff_ns", m->worst_sum_diff_ns);
	json_kv_uint(w, "switch_ins_match_pcount", m->switches_ok);
	json_kv_uint(w, "runnable_matches_run_delay", m->runq_ok);
	json_kv_uint(w, "out_of_order", m->broken);
	json_end_object(w);
	json_end_object(w);
}

void bd_json(struct json_writer *w, const struct bd_store *st)
{
	struct bd_summary sum[FS_NR];

	bd_summarize(st, sum);
	json_key(w, "breakdown");
	json_begin_array(w);
	for (unsigned int fs = 0; fs < FS_NR; fs++)
		if (sum[fs].faults)
			json_fs(w, fs, &sum[fs]);
	json_end_array(w);
}

/* @s (at most @max bytes, maybe unterminated: a comm, a file name) as one
 * field of a line: blanks made _, "-" for none. @buf holds @max + 1. */
static const char *field(const char *s, size_t max, char *buf)
{
	size_t i;

	for (i = 0; i < max && s[i]; i++)
		buf[i] = s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ? '_' : s[i];
	buf[i] = 0;
	return i ? buf : "-";
}

static void write_header(FILE *out)
{
	fprintf(out, "# fs tgid tid dev ino cgroup end_ns phase_ns on_cpu runnable asleep");
	for (int k = 0; k < W_NR; k++)
		fprintf(out, " behind_%s", waker_names[k]);
	for (int k = 0; k < W_NR; k++)
		fprintf(out, " woken_by_%s", waker_names[k]);
	for (int c = 0; c < JC_NR; c++)
		fprintf(out, " jbd2_%s", commit_names[c]);
	fprintf(out, " worker_queued worker_running wake_delivery run_delay switch_ins pcount"
		" longest_wait_on longest_wait_part its_comm its_work_func commit_tid out_of_order"
		" bios bio_ns flushes flush_ns comm file\n");
}

int bd_write_lines(FILE *out, const struct bd_store *st, bd_symbolize_fn sym, void *ctx)
{
	write_header(out);
	for (size_t i = 0; i < st->n; i++) {
		const struct bd_sample *s = &st->v[i];
		const char *fn = s->waker_func && sym ? sym(s->waker_func, ctx) : NULL;
		char wc[DAXLAT_TASK_COMM_LEN + 1], cm[DAXLAT_TASK_COMM_LEN + 1];
		char fb[DAXLAT_NAME_LEN + 1];

		fprintf(out, "%s %u %u %u:%u %llu %llu %llu %llu %llu %llu %llu",
			fault_fs_name(s->fs), s->tgid, s->tid, s->dev >> 20, s->dev & 0xfffff,
			(unsigned long long)s->ino, (unsigned long long)s->cgroup,
			(unsigned long long)s->end_ns, (unsigned long long)s->phase_ns,
			(unsigned long long)s->part[BD_ONCPU], (unsigned long long)s->part[BD_RUNQ],
			(unsigned long long)s->part[BD_SLEEP]);
		for (int k = 0; k < W_NR; k++)
			fprintf(out, " %llu", (unsigned long long)s->runq_by[k]);
		for (int k = 0; k < W_NR; k++)
			fprintf(out, " %llu", (unsigned long long)s->sleep_by[k]);
		for (int c = 0; c < JC_NR; c++)
			fprintf(out, " %llu", (unsigned long long)s->commit[c]);
		fprintf(out, " %llu %llu %llu %llu %u %u %s %s %s %s %u %u %u %llu %u %llu %s %s\n",
			(unsigned long long)s->work_queued, (unsigned long long)s->work_running,
			(unsigned long long)s->wake_delivery,
			(unsigned long long)s->run_delay, s->switch_ins, s->pcount,
			bd_waker_name(s->main_wait), bd_part_name(s->main_wait_part),
			field(s->waker_comm, DAXLAT_TASK_COMM_LEN, wc), fn ? fn : s->waker_func ? "?" : "-",
			s->commit_tid, s->broken, s->bios, (unsigned long long)s->bio_ns,
			s->flushes, (unsigned long long)s->flush_ns, field(s->comm, DAXLAT_TASK_COMM_LEN, cm),
			field(s->file, DAXLAT_NAME_LEN, fb));
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- --by ---------------------------------------------------------------- */

static const char *const by_names[] = { "none", "pid", "file", "cgroup" };

const char *bd_by_name(enum bd_by by)
{
	return by <= BD_BY_CGROUP ? by_names[by] : "?";
}

int bd_by_parse(const char *s, enum bd_by *by)
{
	for (int i = BD_BY_PID; i <= BD_BY_CGROUP; i++)
		if (!strcmp(s, by_names[i])) {
			*by = i;
			return 0;
		}
	return -EINVAL;
}

static void group_key(const struct bd_sample *s, enum bd_by by, __u64 *k, __u64 *k2)
{
	*k2 = 0;
	if (by == BD_BY_PID)
		*k = s->tgid;
	else if (by == BD_BY_FILE)
		*k = s->dev, *k2 = s->ino;
	else
		*k = s->cgroup;
}

static void group_name(struct bd_group *g, const struct bd_sample *s, enum bd_by by,
		       bd_cgroup_path_fn cgroup_path, void *ctx)
{
	char buf[DAXLAT_NAME_LEN + 1];

	if (by == BD_BY_PID) {
		snprintf(g->name, sizeof(g->name), "%s", field(s->comm, DAXLAT_TASK_COMM_LEN, buf));
	} else if (by == BD_BY_FILE) {
		memcpy(buf, s->file, DAXLAT_NAME_LEN);
		buf[DAXLAT_NAME_LEN] = 0;
		snprintf(g->name, sizeof(g->name), "%s", buf[0] ? buf : "-");
	} else if (cgroup_path) {
		cgroup_path(s->cgroup, g->name, sizeof(g->name), ctx);
	}
	if (!g->name[0])
		snprintf(g->name, sizeof(g->name), "-");
}

static int by_phase_desc(const void *a, const void *b)
{
	const struct bd_group *x = a, *y = b;

	return x->phase_ns < y->phase_ns ? 1 : x->phase_ns > y->phase_ns ? -1 : 0;
}

int bd_group(const struct bd_store *st, enum bd_by by, bd_cgroup_path_fn cgroup_path, void *ctx,
	     struct bd_group **out, size_t *n)
{
	struct bd_group *g = NULL;
	size_t ng = 0, cap = 0;

	for (size_t i = 0; i < st->n; i++) {
		const struct bd_sample *s = &st->v[i];
		struct bd_group *e = NULL;
		__u64 k, k2;

		group_key(s, by, &k, &k2);
		for (size_t j = 0; j < ng && !e; j++)	/* few groups: a scan */
			if (g[j].key == k && g[j].key2 == k2)
				e = &g[j];
		if (!e) {
			if (ng == cap) {
				struct bd_group *ng2 = realloc(g, (cap = cap ? 2 * cap : 16) * sizeof(*g));

				if (!ng2) {
					free(g);
					return -ENOMEM;
				}
				g = ng2;
			}
			e = &g[ng++];
			memset(e, 0, sizeof(*e));
			e->key = k, e->key2 = k2;
			group_name(e, s, by, cgroup_path, ctx);
		}
		e->faults++;
		e->phase_ns += s->phase_ns;
		for (int p = 0; p < BD_PARTS; p++)
			e->part[p] += s->part[p];
		if (s->main_wait < W_NR && s->part[BD_SLEEP] + s->part[BD_RUNQ])
			e->main_wait[s->main_wait]++;
	}
	if (ng)
		qsort(g, ng, sizeof(*g), by_phase_desc);
	*out = g, *n = ng;
	return 0;
}

/* The task kind most faults of @g waited on longest. */
static unsigned int group_main_wait(const struct bd_group *g)
{
	unsigned int best = W_OTHER;

	for (unsigned int w = 0; w < W_NR; w++)
		if (g->main_wait[w] > g->main_wait[best])
			best = w;
	return best;
}

static void group_key_text(const struct bd_group *g, enum bd_by by, char *buf, size_t len)
{
	if (by == BD_BY_FILE)
		snprintf(buf, len, "%llu:%llu %llu", g->key >> 20, g->key & 0xfffff, g->key2);
	else
		snprintf(buf, len, "%llu", g->key);
}

void bd_print_groups_text(FILE *out, enum bd_by by, const struct bd_group *g, size_t n, size_t top,
			  __u64 unit_div, const char *unit)
{
	static const char *const heads[] = { "", "PID", "DEV:MAJ:MIN INO", "CGROUP-ID" };

	fprintf(out, "metadata sync by %s, the %zu longest in total (mean per fault, %s):\n",
		bd_by_name(by), n < top ? n : top, unit);
	fprintf(out, "%-18s %-24s %7s %10s %9s %9s %9s  %s\n", heads[by], by == BD_BY_CGROUP ? "PATH" :
		by == BD_BY_FILE ? "NAME" : "COMM", "FAULTS", "PHASE2", "ON-CPU", "RUNNABLE", "ASLEEP",
		"LONGEST WAIT ON");
	for (size_t i = 0; i < n && i < top; i++) {
		char key[64];

		group_key_text(&g[i], by, key, sizeof(key));
		fprintf(out, "%-18s %-24s %7llu %10.1f %9.1f %9.1f %9.1f  %s\n", key, g[i].name,
			(unsigned long long)g[i].faults,
			(double)g[i].phase_ns / g[i].faults / unit_div,
			(double)g[i].part[BD_ONCPU] / g[i].faults / unit_div,
			(double)g[i].part[BD_RUNQ] / g[i].faults / unit_div,
			(double)g[i].part[BD_SLEEP] / g[i].faults / unit_div,
			waker_names[group_main_wait(&g[i])]);
	}
	fputc('\n', out);
}

void bd_json_groups(struct json_writer *w, enum bd_by by, const struct bd_group *g, size_t n, size_t top)
{
	json_key(w, "by");
	json_begin_object(w);
	json_kv_string(w, "key", bd_by_name(by));
	json_kv_uint(w, "groups", n);
	json_key(w, "top");
	json_begin_array(w);
	for (size_t i = 0; i < n && i < top; i++) {
		json_begin_object(w);
		if (by == BD_BY_PID) {
			json_kv_uint(w, "pid", g[i].key);
			json_kv_string(w, "comm", g[i].name);
		} else if (by == BD_BY_FILE) {
			char dev[32];

			snprintf(dev, sizeof(dev), "%llu:%llu", g[i].key >> 20, g[i].key & 0xfffff);
			json_kv_string(w, "dev", dev);
			json_kv_uint(w, "ino", g[i].key2);
			json_kv_string(w, "name", g[i].name);
		} else {
			json_kv_uint(w, "cgroup_id", g[i].key);
			json_kv_string(w, "path", g[i].name);
		}
		json_kv_uint(w, "faults", g[i].faults);
		json_kv_uint(w, "phase_ns", g[i].phase_ns);
		json_kv_uint(w, "on_cpu_ns", g[i].part[BD_ONCPU]);
		json_kv_uint(w, "runnable_ns", g[i].part[BD_RUNQ]);
		json_kv_uint(w, "asleep_ns", g[i].part[BD_SLEEP]);
		json_kv_string(w, "longest_wait_on", waker_names[group_main_wait(&g[i])]);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

/* ---- --folded ------------------------------------------------------------ */

/* Frames of the BPF machinery that took the stack (the tracepoint's
 * dispatch, the program, fentry trampolines: JIT code kallsyms does not
 * name), not of the kernel path: left out of folded stacks. */
static bool bpf_frame(const char *name)
{
	static const char *const prefixes[] = {
		"bpf_trace_run", "__bpf_trace_", "bpf_prog_", "perf_trace_", "trace_call_bpf",
		"perf_tp_event", "kprobe_", "__traceiter_",
	};

	if (!name)
		return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Frames of one stack (leaf first, 0-terminated, at most @max) in the
 * order asked: root first (@root_first) or leaf first; ";" before each.
 * Without @sym addresses; with it, the frames it names, less the BPF
 * machinery's. */
static void fold_frames(FILE *out, const __u64 *ips, size_t max, bool root_first,
			bd_symbolize_fn sym, void *ctx)
{
	size_t n = 0;

	while (n < max && ips && ips[n])
		n++;
	for (size_t i = 0; i < n; i++) {
		__u64 ip = ips[root_first ? n - 1 - i : i];
		const char *name = sym ? sym(ip, ctx) : NULL;

		if (!sym)
			fprintf(out, ";0x%llx", (unsigned long long)ip);
		else if (!bpf_frame(name))
			fprintf(out, ";%s", name);
	}
}

void bd_fold_line(FILE *out, const struct bd_fold_key *k, const struct bd_fold_val *v,
		  const __u64 *wait_ips, const __u64 *other_ips, bd_symbolize_fn sym, void *ctx)
{
	char comm[DAXLAT_TASK_COMM_LEN + 1];

	fprintf(out, "[%s metadata sync]", fault_fs_name(k->fs));
	/* A wait whose stack the kernel could not give (bpf_get_stackid
	 * failed) says so, as an on-CPU stretch without a sample does. */
	if (!wait_ips)
		fprintf(out, ";[no stack]");
	fold_frames(out, wait_ips, DAXLAT_FOLD_DEPTH, true, sym, ctx);
	fprintf(out, ";--");
	if (k->part == BD_ONCPU) {
		fprintf(out, ";[on CPU]");
	} else if (k->part == BD_SLEEP) {
		fold_frames(out, other_ips, DAXLAT_FOLD_DEPTH, false, sym, ctx);
		fprintf(out, ";%s", field(k->other_comm, DAXLAT_TASK_COMM_LEN, comm));
	} else {
		fprintf(out, ";[runnable behind %s]", field(k->other_comm, DAXLAT_TASK_COMM_LEN, comm));
	}
	fprintf(out, " %llu\n", (unsigned long long)v->ns);
}
