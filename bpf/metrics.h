/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daxlat --openmetrics: the histograms, counters and breakdown sums as a
 * Prometheus text exposition (what node_exporter's textfile collector and
 * promtool read; OpenMetrics names: base units, _total counters, "# EOF").
 * Prometheus wants counters that only grow: the state is cumulative over
 * the run, whatever daxlat's own interval reports reset. No libbpf.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "daxlat.h"
#include "breakdown.h"

struct om_state {
	struct hist_val hists[DAXLAT_HISTS];
	__u64 counters[C_NR];
	struct bd_summary bd[FS_NR];
};

/* Add slot @i's histogram @v (min and max are not exported). */
void om_add_hist(struct om_state *s, unsigned int i, const struct hist_val *v);
void om_add_breakdown(struct om_state *s, const struct bd_summary sum[FS_NR]);
/* The exposition; @names: each counter's label value, @shown: those in
 * this run's report. 0 or -EIO. */
int om_write(FILE *out, const struct om_state *s, const char *const names[C_NR],
	     const bool shown[C_NR], __u64 unit_div, bool breakdown);

#endif /* METRICS_H */
