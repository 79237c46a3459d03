// SPDX-License-Identifier: GPL-2.0
/* Unit tests of daxlat --openmetrics (bpf/metrics.c): the buckets of a
 * log2 histogram in seconds, cumulative totals, only the counters shown,
 * and Debian's promtool accepting the exposition. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
/* Compiled in: the generic tests/unit rule links only LIB_OBJS. */
#include "../../bpf/probe/kinds.c"
#include "../../bpf/breakdown.c"
#include "../../bpf/metrics.c"

static const char *names[C_NR];
static bool shown[C_NR];

/* A state: 3 ext4 PTE write VM_SYNC NEEDDSYNC faults, two below 8 us and
 * one below 32 us (unit us), twice over (two reports); a phase; 3 faults
 * counted; an ext4 breakdown. */
static void fill(struct om_state *s)
{
	struct hist_val v = { .count = 3, .sum_ns = 30000 };
	struct bd_summary sum[FS_NR] = { 0 };

	v.slots[3] = 2, v.slots[5] = 1;
	for (int i = 0; i < 2; i++) {
		om_add_hist(s, hist_index(K_FAULT, FAULT_SZ_PTE, 1, 1, OC_NEEDDSYNC, FS_EXT4), &v);
		om_add_hist(s, hist_index(K_PHASE2, FAULT_SZ_PTE, 0, 0, 0, FS_EXT4), &v);
	}
	for (int i = 0; i < C_NR; i++) {
		names[i] = i == C_FAULTS ? "dax_iomap_fault" : i == C_NEEDDSYNC ? "needdsync" : "hidden";
		shown[i] = i == C_FAULTS || i == C_NEEDDSYNC;
	}
	s->counters[C_FAULTS] = 6;
	sum[FS_EXT4].faults = 2, sum[FS_EXT4].part[BD_SLEEP] = 1500000000ULL;
	sum[FS_EXT4].sleep_by[W_JBD2] = 1500000000ULL;
	om_add_breakdown(s, sum);
}

static void test_exposition(struct ktap_case_ctx *t)
{
	static struct om_state s;
	char buf[16384];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	fill(&s);
	KTAP_EXPECT(t, om_write(f, &s, names, shown, 1000, true) == 0, "written");
	fclose(f);
	KTAP_EXPECT(t, strstr(buf, "# TYPE daxlat_fault_seconds histogram\n"), "type line");
	KTAP_EXPECT(t, strstr(buf, "daxlat_fault_seconds_bucket{fs=\"ext4\",size=\"pte\",write=\"true\","
			      "sync=\"true\",outcome=\"needdsync\",le=\"8e-06\"} 4\n"), "le 8 us: 4 (2 x 2)");
	KTAP_EXPECT(t, strstr(buf, ",le=\"1.6e-05\"} 4\n") && strstr(buf, ",le=\"3.2e-05\"} 6\n") &&
		    !strstr(buf, ",le=\"6.4e-05\"}"), "cumulative, up to the last slot used");
	KTAP_EXPECT(t, strstr(buf, "outcome=\"needdsync\",le=\"+Inf\"} 6\n") &&
		    strstr(buf, "daxlat_fault_seconds_sum{fs=\"ext4\",size=\"pte\",write=\"true\",sync=\"true\","
			   "outcome=\"needdsync\"} 6e-05\n"), "+Inf and sum in seconds");
	KTAP_EXPECT(t, strstr(buf, "daxlat_sync_fault_phase_seconds_count{fs=\"ext4\",size=\"pte\","
			      "phase=\"metadata_sync\"} 6\n"), "phase series");
	KTAP_EXPECT(t, strstr(buf, "daxlat_events_total{event=\"dax_iomap_fault\"} 6\n") &&
		    !strstr(buf, "hidden"), "counters shown only");
	KTAP_EXPECT(t, strstr(buf, "daxlat_metadata_sync_wait_seconds_total{fs=\"ext4\",part=\"asleep\","
			      "on=\"jbd2_commit\"} 1.5\n"), "breakdown wait");
	KTAP_EXPECT(t, strlen(buf) > 6 && !strcmp(buf + strlen(buf) - 6, "# EOF\n"), "ends with # EOF");
}

/* promtool (Debian's prometheus; make deps) lints what a scraper parses. */
static void test_promtool(struct ktap_case_ctx *t)
{
	static struct om_state s;
	char path[] = "/tmp/test_metrics.XXXXXX", cmd[128], line[256] = "";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL, *p;
	int rc;

	KTAP_EXPECT(t, f != NULL, "temp file");
	if (!f)
		return;
	fill(&s);
	om_write(f, &s, names, shown, 1000, true);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	if (p && !fgets(line, sizeof(line), p))
		line[0] = 0;
	rc = p ? pclose(p) : -1;
	unlink(path);
	KTAP_EXPECT(t, rc == 0, "promtool check metrics: status %d: %s", rc, line);
}

/* A real run's file (the bpf job, 6.1, xfs): promtool passes it too. */
static void test_promtool_recorded(struct ktap_case_ctx *t)
{
	char dir[256], cmd[512], line[256] = "";
	char *slash;
	FILE *p;
	int rc;

	snprintf(dir, sizeof(dir), "%s", __FILE__);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s/data/breakdown/daxlat-xfs.prom 2>&1", dir);
	p = popen(cmd, "r");
	if (p && !fgets(line, sizeof(line), p))
		line[0] = 0;
	rc = p ? pclose(p) : -1;
	KTAP_EXPECT(t, rc == 0, "promtool: status %d: %s", rc, line);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_promtool_recorded),
	KTAP_CASE(test_exposition),
	KTAP_CASE(test_promtool),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
