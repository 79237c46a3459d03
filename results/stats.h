/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two-sample statistics for the regression gate (results/gate.c): order
 * statistics, Mann-Whitney U and Kolmogorov-Smirnov p-values, and a
 * bootstrap interval of the ratio of medians. Pure functions on arrays of
 * doubles; the caller's arrays are never modified.
 */
#ifndef SUITE_STATS_H
#define SUITE_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Quantile q (0..1) by linear interpolation between order statistics
 * (R's type 7). 0 for n == 0. */
double stats_quantile(const double *x, size_t n, double q);
double stats_mean(const double *x, size_t n);
/* Sample standard deviation (n - 1); 0 for n < 2. */
double stats_stddev(const double *x, size_t n);

/* Two-sided p-value of the Mann-Whitney U test: exact (by counting) when
 * there are no ties and both samples have at most 50 values, else the normal
 * approximation with tie correction and continuity correction. 1 when either
 * sample is empty or all values are equal. */
double stats_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb);

/* Two-sided p-value of the two-sample Kolmogorov-Smirnov test (asymptotic
 * Kolmogorov distribution with Stephens' small-sample correction); *d, when
 * not NULL, gets the statistic D. 1 when either sample is empty. */
double stats_ks_p(const double *a, size_t na, const double *b, size_t nb, double *d);

/* Percentile bootstrap interval (level 0..1, e.g. 0.95) of
 * median(b) / median(a) - 1, resampling each sample with replacement
 * 'iters' times from a fixed seed (reproducible). Returns 0, or -1 when a
 * sample is empty, a median is 0, or memory runs out. */
int stats_bootstrap_change(const double *a, size_t na, const double *b, size_t nb,
			   unsigned int iters, double level, uint64_t seed,
			   double *lo, double *hi);

/* The change two same-kernel sides show by chance: the level quantile
 * (e.g. 0.999) of |median(B) / median(A) - 1| where A and B are na and nb
 * values drawn with replacement from x[0..n) (one value per boot of a
 * reference of many boots), 'iters' times from a fixed seed. Returns 0, or
 * -1 when a size is 0 or memory runs out. */
int stats_null_change(const double *x, size_t n, size_t na, size_t nb, unsigned int iters,
		      double level, uint64_t seed, double *bound);

#endif
