/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The regression gate's decision, apart from its command line (gate.c) so
 * the host unit tests can feed it synthetic samples.
 *
 * A run is one faultlat run (PAGES faults) of one scenario on one
 * filesystem; a side (base or new) has several, from several boots. The
 * unit of replication is the boot: runs of one boot share its state, and
 * measured under icount two boots differ more than two runs of one boot
 * (an A/A study with one boot per side called 3 of 480 metrics worse). A
 * boot's value of a metric is that quantile of all its per-fault values.
 * Per metric, the verdict:
 *
 *   worse / better  both sides have at least min_boots boots, the
 *                   per-fault distributions differ (p = min(Mann-Whitney
 *                   U, KS) < alpha, as Chromium's Pinpoint), the change of
 *                   the median over boots is at least the floor, and the
 *                   bootstrap interval of that change (boots resampled)
 *                   excludes 0;
 *   same            both sides have min_boots, and the whole interval lies
 *                   within +-floor;
 *   unknown         anything else: run more.
 *
 * The floor: fixed (floor >= 0), or derived from the noise:
 * max(floor_min, noise_k x the boot-to-boot coefficient of variation of
 * both sides (pooled standard deviation over the base's mean), the
 * reference floor). The reference is a run of the same setup with many
 * boots (ref_min_boots or more; fewer are ignored): its boots resampled,
 * the change between medians of n_base and n_new boots that same-kernel
 * sides exceed only 1 - null_level of the time. Three boots cannot show
 * their own tails (an A/A study at 3 boots a side called 6 of 480 metrics
 * worse with noise_k x CV alone); many boots of a reference can.
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
	size_t min_boots;	/* per side (3) */
	unsigned int iters;	/* bootstrap resamples (2000) */
	double level;		/* bootstrap interval (0.95) */
	double null_level;	/* reference floor: this quantile of chance changes (0.999) */
	size_t ref_min_boots;	/* a reference needs this many boots (10) */
};
#define GATE_PARAMS_DEFAULT { 0.01, -1, 0.01, 3, 3, 2000, 0.95, 0.999, 10 }

/* One side's samples of one scenario: runs[i] has n[i] per-fault values
 * and came from boot[i]. */
struct gate_side {
	const double *const *runs;
	const size_t *n;
	const long *boot;
	size_t nruns;
};

struct gate_cmp {
	size_t n_base, n_new;		/* boots */
	double base_mean, base_sd;	/* of the boots' metric values */
	double new_mean, new_sd;
	double base_med, new_med;	/* median of the boots' metric values */
	double change;			/* new_med / base_med - 1 */
	double p_mwu, p_ks, p;		/* on the pooled per-fault values */
	double ci_lo, ci_hi;		/* bootstrap interval of change */
	double noise_floor;		/* noise_k x the sides' boot CV */
	size_t n_ref;			/* boots of the reference */
	double ref_floor;		/* from the reference; 0 without */
	double floor;			/* the floor applied */
	enum gate_verdict verdict;
};

/* The quantile q of each boot's pooled values, in the order boots first
 * appear; *nb of them. A malloc'd array, NULL when out of memory. */
double *gate_boot_metrics(const struct gate_side *s, double q, size_t *nb);

/* Compare the quantile q of base and new; ref (may be NULL) gives the
 * reference floor. 0, or -1 when out of memory. */
int gate_compare(const struct gate_side *base, const struct gate_side *new, const struct gate_side *ref,
		 double q, const struct gate_params *par, struct gate_cmp *out);

#endif
