/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The regression gate's decision, apart from its command line (gate.c) so
 * the host unit tests can feed it synthetic samples.
 *
 * A run is one faultlat run (PAGES faults) of one scenario on one
 * filesystem; a side (base or new) has several, from several boots. Per
 * metric (a quantile of the per-fault latencies), the verdict:
 *
 *   worse / better  both sides have at least min_runs runs, the per-fault
 *                   distributions differ (p = min(Mann-Whitney U, KS) <
 *                   alpha, as Chromium's Pinpoint), the change of the
 *                   metric's median over runs is at least the floor, and
 *                   the bootstrap interval of that change (runs
 *                   resampled: boot-to-boot noise counts) excludes 0;
 *   same            both sides have min_runs, and the whole interval lies
 *                   within +-floor;
 *   unknown         anything else: run more.
 *
 * The floor: fixed (floor >= 0), or derived from the base's own noise:
 * max(floor_min, noise_k x the coefficient of variation of its runs).
 */
#ifndef SUITE_GATE_CORE_H
#define SUITE_GATE_CORE_H

#include <stddef.h>

enum gate_verdict { GATE_SAME, GATE_BETTER, GATE_WORSE, GATE_UNKNOWN };
extern const char *const gate_verdict_names[];	/* "same", "better", ... */

struct gate_params {
	double alpha;		/* p below this: the distributions differ (0.01) */
	double floor;		/* fixed size floor as a fraction; < 0: derived */
	double floor_min;	/* the derived floor's least value (0.01) */
	double noise_k;		/* derived floor: noise_k x base CV (3) */
	size_t min_runs;	/* per side (3) */
	unsigned int iters;	/* bootstrap resamples (2000) */
	double level;		/* bootstrap interval (0.95) */
};
#define GATE_PARAMS_DEFAULT { 0.01, -1, 0.01, 3, 3, 2000, 0.95 }

/* One side's samples of one scenario: runs[i] has n[i] per-fault values. */
struct gate_side {
	const double *const *runs;
	const size_t *n;
	size_t nruns;
};

struct gate_cmp {
	size_t n_base, n_new;		/* runs */
	double base_mean, base_sd;	/* of the runs' metric values */
	double new_mean, new_sd;
	double base_med, new_med;	/* median of the runs' metric values */
	double change;			/* new_med / base_med - 1 */
	double p_mwu, p_ks, p;		/* on the pooled per-fault values */
	double ci_lo, ci_hi;		/* bootstrap interval of change */
	double floor;			/* the floor applied */
	enum gate_verdict verdict;
};

/* Compare the quantile q of base and new. 0, or -1 when out of memory. */
int gate_compare(const struct gate_side *base, const struct gate_side *new, double q,
		 const struct gate_params *par, struct gate_cmp *out);

#endif
