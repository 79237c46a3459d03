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
	fprintf(out, "%*s%-*s %12.1f %6.1f %%\n", indent, "", 44 - indent, what,
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

/* A comm as one field: no blanks, "-" for none. */
static const char *field(const char *comm, char buf[DAXLAT_TASK_COMM_LEN + 1])
{
	size_t i;

	for (i = 0; i < DAXLAT_TASK_COMM_LEN && comm[i]; i++)
		buf[i] = comm[i] == ' ' || comm[i] == '\t' ? '_' : comm[i];
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
	fprintf(out, " worker_queued worker_running run_delay switch_ins pcount"
		" longest_wait_on longest_wait_part its_comm its_work_func commit_tid out_of_order comm\n");
}

int bd_write_lines(FILE *out, const struct bd_store *st, bd_symbolize_fn sym, void *ctx)
{
	write_header(out);
	for (size_t i = 0; i < st->n; i++) {
		const struct bd_sample *s = &st->v[i];
		const char *fn = s->waker_func && sym ? sym(s->waker_func, ctx) : NULL;
		char wc[DAXLAT_TASK_COMM_LEN + 1], cm[DAXLAT_TASK_COMM_LEN + 1];

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
		fprintf(out, " %llu %llu %llu %u %u %s %s %s %s %u %u %s\n",
			(unsigned long long)s->work_queued, (unsigned long long)s->work_running,
			(unsigned long long)s->run_delay, s->switch_ins, s->pcount,
			bd_waker_name(s->main_wait), bd_part_name(s->main_wait_part),
			field(s->waker_comm, wc), fn ? fn : s->waker_func ? "?" : "-",
			s->commit_tid, s->broken, field(s->comm, cm));
	}
	return ferror(out) ? -EIO : 0;
}
