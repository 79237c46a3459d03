// SPDX-License-Identifier: GPL-2.0
/* daxlat --openmetrics: see metrics.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "kinds.h"

void om_add_hist(struct om_state *s, unsigned int i, const struct hist_val *v)
{
	struct hist_val *c;

	if (i >= DAXLAT_HISTS)
		return;
	c = &s->hists[i];
	c->count += v->count;
	c->sum_ns += v->sum_ns;
	for (int k = 0; k < DAXLAT_SLOTS; k++)
		c->slots[k] += v->slots[k];
}

void om_add_breakdown(struct om_state *s, const struct bd_summary sum[FS_NR])
{
	for (int f = 0; f < FS_NR; f++) {
		s->bd[f].faults += sum[f].faults;
		s->bd[f].phase_ns += sum[f].phase_ns;
		for (int p = 0; p < BD_PARTS; p++)
			s->bd[f].part[p] += sum[f].part[p];
		for (int w = 0; w < W_NR; w++) {
			s->bd[f].sleep_by[w] += sum[f].sleep_by[w];
			s->bd[f].runq_by[w] += sum[f].runq_by[w];
		}
	}
}

/* Each kind's metric and the labels its key has. */
static const struct {
	const char *name, *help;
	bool by_size, by_fault;
} kinds[K_NR] = {
	[K_FAULT] = { "daxlat_fault_seconds", "dax_iomap_fault latency", true, true },
	[K_PHASE1] = { "daxlat_sync_fault_phase_seconds",
		       "MAP_SYNC write fault phases: dax_iomap_fault, metadata_sync, insert, fs_handler", true },
	[K_PHASE2] = { "daxlat_sync_fault_phase_seconds", NULL, true },
	[K_PHASE3] = { "daxlat_sync_fault_phase_seconds", NULL, true },
	[K_PHASE4] = { "daxlat_sync_fault_phase_seconds", NULL, true },
	[K_SYNC_FINISH] = { "daxlat_sync_finish_seconds", "dax_finish_sync_fault latency", true },
	[K_JBD2_COMMIT] = { "daxlat_jbd2_commit_seconds", "jbd2 commit, start to end" },
	[K_XFS_LOG_FORCE] = { "daxlat_xfs_log_force_seconds", "xfs_log_force_seq latency" },
};

static const char *const phase_labels[] = { "dax_iomap_fault", "metadata_sync", "insert", "fs_handler" };

static void labels(FILE *out, const struct hist_key *k)
{
	fprintf(out, "fs=\"%s\"", fault_fs_name(k->fs));
	if (kinds[k->kind].by_size)
		fprintf(out, ",size=\"%s\"", fault_size_name(k->size));
	if (kinds[k->kind].by_fault)
		fprintf(out, ",write=\"%s\",sync=\"%s\",outcome=\"%s\"", k->write ? "true" : "false",
			k->sync ? "true" : "false", fault_outcome_name(k->outcome));
	if (k->kind >= K_PHASE1 && k->kind <= K_PHASE4)
		fprintf(out, ",phase=\"%s\"", phase_labels[k->kind - K_PHASE1]);
}

/* Slot i of the log2 histogram holds values below 2^i units: its bucket's
 * upper bound, in seconds. The last slot is the overflow (+Inf only). */
static void hist_series(FILE *out, const char *name, const struct hist_key *k,
			const struct hist_val *v, __u64 unit_div)
{
	__u64 cum = 0;
	int top = 0;

	for (int i = 0; i < DAXLAT_SLOTS - 1; i++)
		if (v->slots[i])
			top = i;
	for (int i = 0; i <= top; i++) {
		cum += v->slots[i];
		fprintf(out, "%s_bucket{", name);
		labels(out, k);
		fprintf(out, ",le=\"%.9g\"} %llu\n", (double)(1ULL << i) * (double)unit_div / 1e9,
			(unsigned long long)cum);
	}
	fprintf(out, "%s_bucket{", name);
	labels(out, k);
	fprintf(out, ",le=\"+Inf\"} %llu\n%s_sum{", (unsigned long long)v->count, name);
	labels(out, k);
	fprintf(out, "} %.9g\n%s_count{", (double)v->sum_ns / 1e9, name);
	labels(out, k);
	fprintf(out, "} %llu\n", (unsigned long long)v->count);
}

static void write_hists(FILE *out, const struct om_state *s, __u64 unit_div)
{
	const char *last = NULL;

	for (unsigned int kind = 0; kind < K_NR; kind++)
		for (unsigned int i = 0; i < DAXLAT_HISTS; i++) {
			struct hist_key k = hist_key_of(i);

			if (k.kind != kind || !s->hists[i].count)
				continue;
			if (!last || strcmp(last, kinds[kind].name)) {
				last = kinds[kind].name;
				fprintf(out, "# HELP %s %s\n# TYPE %s histogram\n", last,
					kinds[kind].help ? kinds[kind].help : kinds[K_PHASE1].help, last);
			}
			hist_series(out, kinds[kind].name, &k, &s->hists[i], unit_div);
		}
}

static void write_breakdown(FILE *out, const struct om_state *s)
{
	static const char *const part_label[BD_PARTS] = { "on_cpu", "runnable", "asleep" };

	fprintf(out, "# HELP daxlat_metadata_sync_seconds_total MAP_SYNC faults' metadata sync "
		"(phase 2) by what the faulting thread did\n"
		"# TYPE daxlat_metadata_sync_seconds_total counter\n");
	for (int f = 0; f < FS_NR; f++)
		for (int p = 0; s->bd[f].faults && p < BD_PARTS; p++)
			fprintf(out, "daxlat_metadata_sync_seconds_total{fs=\"%s\",part=\"%s\"} %.9g\n",
				fault_fs_name(f), part_label[p], (double)s->bd[f].part[p] / 1e9);
	fprintf(out, "# HELP daxlat_metadata_sync_wait_seconds_total its waits by the task kind "
		"they were charged to\n# TYPE daxlat_metadata_sync_wait_seconds_total counter\n");
	for (int f = 0; f < FS_NR; f++)
		for (int w = 0; s->bd[f].faults && w < W_NR; w++) {
			fprintf(out, "daxlat_metadata_sync_wait_seconds_total{fs=\"%s\",part=\"runnable\",on=\"%s\"} %.9g\n",
				fault_fs_name(f), bd_waker_name(w), (double)s->bd[f].runq_by[w] / 1e9);
			fprintf(out, "daxlat_metadata_sync_wait_seconds_total{fs=\"%s\",part=\"asleep\",on=\"%s\"} %.9g\n",
				fault_fs_name(f), bd_waker_name(w), (double)s->bd[f].sleep_by[w] / 1e9);
		}
}

int om_write(FILE *out, const struct om_state *s, const char *const names[C_NR],
	     const bool shown[C_NR], __u64 unit_div, bool breakdown)
{
	write_hists(out, s, unit_div);
	fprintf(out, "# HELP daxlat_events_total events daxlat counted (the JSON output's counters)\n"
		"# TYPE daxlat_events_total counter\n");
	for (int i = 0; i < C_NR; i++)
		if (shown[i])
			fprintf(out, "daxlat_events_total{event=\"%s\"} %llu\n", names[i],
				(unsigned long long)s->counters[i]);
	if (breakdown)
		write_breakdown(out, s);
	fprintf(out, "# EOF\n");
	return ferror(out) ? -EIO : 0;
}
