// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for lib/stats.c on synthetic samples: exact values where
 * they are known by hand, properties (symmetry, ties, n = 3, identical
 * samples, one outlier) elsewhere. */
#include <math.h>
#include <unistd.h>

#include "stats.h"
#include "ktap.h"

#define CLOSE(x, want, tol) (fabs((x) - (want)) <= (tol))

static void test_quantiles(struct ktap_case_ctx *t)
{
	const double x[] = { 4, 1, 3, 2 };

	KTAP_EXPECT(t, CLOSE(stats_quantile(x, 4, 0.5), 2.5, 1e-12), "median %g", stats_quantile(x, 4, 0.5));
	KTAP_EXPECT(t, CLOSE(stats_quantile(x, 4, 0.9), 3.7, 1e-12), "p90 %g", stats_quantile(x, 4, 0.9));
	KTAP_EXPECT(t, stats_quantile(x, 4, 0) == 1 && stats_quantile(x, 4, 1) == 4, "ends");
	KTAP_EXPECT(t, x[0] == 4 && x[1] == 1, "input reordered");
	KTAP_EXPECT(t, CLOSE(stats_stddev(x, 4), sqrt(5.0 / 3), 1e-12), "stddev %g", stats_stddev(x, 4));
	KTAP_EXPECT(t, stats_stddev(x, 1) == 0 && stats_quantile(x, 0, 0.5) == 0, "n < 2");
}

/* Separated samples: the exact p is 2 / C(na + nb, na). */
static void test_mwu_exact_separated(struct ktap_case_ctx *t)
{
	const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	const double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	double p3 = stats_mann_whitney_p(a3, 3, b3, 3), p5 = stats_mann_whitney_p(a5, 5, b5, 5);

	KTAP_EXPECT(t, CLOSE(p3, 2.0 / 20, 1e-12), "n=3: p %g, want 0.1", p3);
	KTAP_EXPECT(t, CLOSE(p5, 2.0 / 252, 1e-12), "n=5: p %g, want 2/252", p5);
	KTAP_EXPECT(t, CLOSE(stats_mann_whitney_p(b5, 5, a5, 5), p5, 1e-12), "not symmetric");
}

/* n = 3 per side can never reach p < 0.01: the gate must say "unknown". */
static void test_mwu_n3_floor(struct ktap_case_ctx *t)
{
	const double a[] = { 100, 101, 102 }, b[] = { 200, 300, 400 };

	KTAP_EXPECT(t, stats_mann_whitney_p(a, 3, b, 3) >= 0.1 - 1e-12, "n=3 p below 0.1");
}

static void test_mwu_identical_and_ties(struct ktap_case_ctx *t)
{
	const double same[] = { 5, 5, 5, 5 };
	const double a[] = { 1, 2, 2, 3, 3, 3, 4, 5 }, b[] = { 3, 3, 4, 4, 5, 5, 6, 6 };
	double p = stats_mann_whitney_p(a, 8, b, 8);

	KTAP_EXPECT(t, stats_mann_whitney_p(same, 4, same, 4) == 1, "identical samples: p != 1");
	/* U = 11, tie-corrected variance 86.667 (textbook formula, computed apart) */
	KTAP_EXPECT(t, CLOSE(p, 0.0276615, 1e-6), "ties: p %g, want 0.0276615", p);
	KTAP_EXPECT(t, CLOSE(stats_mann_whitney_p(b, 8, a, 8), p, 1e-12), "ties: not symmetric");
	KTAP_EXPECT(t, stats_mann_whitney_p(a, 0, b, 8) == 1, "empty sample");
}

/* Large samples go to the normal approximation: a clear shift is found, a
 * sample against itself is not. */
static void test_mwu_normal(struct ktap_case_ctx *t)
{
	double a[200], b[200];

	for (int i = 0; i < 200; i++)
		a[i] = 1000 + (i * 37) % 101, b[i] = a[i] + 20;
	KTAP_EXPECT(t, stats_mann_whitney_p(a, 200, b, 200) < 1e-6, "shift of 20 not found");
	KTAP_EXPECT(t, stats_mann_whitney_p(a, 200, a, 200) > 0.99, "self: p %g", stats_mann_whitney_p(a, 200, a, 200));
}

static void test_ks(struct ktap_case_ctx *t)
{
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, same[] = { 7, 7, 7 };
	double d, p = stats_ks_p(a, 3, b, 3, &d);
	double en = sqrt(1.5), l = (en + 0.12 + 0.11 / en), want = 2 * (exp(-2 * l * l) - exp(-8 * l * l) + exp(-18 * l * l));

	KTAP_EXPECT(t, d == 1, "D %g, want 1", d);
	KTAP_EXPECT(t, CLOSE(p, want, 1e-9), "p %g, want %g", p, want);
	p = stats_ks_p(same, 3, same, 3, &d);
	KTAP_EXPECT(t, d == 0 && p == 1, "identical: D %g p %g", d, p);
}

/* A NaN must not stop the KS loop from advancing (it once spun forever on
 * one; the gate now refuses such samples). A hang is a failure: SIGALRM. */
static void test_ks_nan_ends(struct ktap_case_ctx *t)
{
	const double a[] = { 1, NAN, 3 }, b[] = { 4, 5, 6 };
	double d, p;

	alarm(10);
	p = stats_ks_p(a, 3, b, 3, &d);
	alarm(0);
	KTAP_EXPECT(t, p >= 0 && p <= 1, "p %g", p);
}

/* One outlier in 20 moves neither test; the median change stays 0. */
static void test_one_outlier(struct ktap_case_ctx *t)
{
	double a[20], b[20], lo, hi;

	for (int i = 0; i < 20; i++)
		a[i] = b[i] = 100 + i;
	b[19] = 100000;
	KTAP_EXPECT(t, stats_mann_whitney_p(a, 20, b, 20) > 0.9, "MWU moved by one outlier");
	KTAP_EXPECT(t, stats_ks_p(a, 20, b, 20, NULL) > 0.9, "KS moved by one outlier");
	KTAP_EXPECT(t, !stats_bootstrap_change(a, 20, b, 20, 2000, 0.95, 1, &lo, &hi), "bootstrap failed");
	KTAP_EXPECT(t, lo <= 0 && hi >= 0, "interval [%g, %g] excludes 0", lo, hi);
}

static void test_bootstrap(struct ktap_case_ctx *t)
{
	double a[10], b[10], lo, hi, lo2, hi2;

	for (int i = 0; i < 10; i++)
		a[i] = 100 + i, b[i] = a[i] * 1.1;
	KTAP_EXPECT(t, !stats_bootstrap_change(a, 10, b, 10, 2000, 0.95, 7, &lo, &hi), "failed");
	KTAP_EXPECT(t, lo > 0 && lo <= 0.1 && hi >= 0.1 && hi < 0.2, "10%% slower: [%g, %g]", lo, hi);
	stats_bootstrap_change(a, 10, b, 10, 2000, 0.95, 7, &lo2, &hi2);
	KTAP_EXPECT(t, lo2 == lo && hi2 == hi, "not reproducible from its seed");
	stats_bootstrap_change(a, 10, a, 10, 2000, 0.95, 7, &lo, &hi);
	KTAP_EXPECT(t, lo < 0 && hi > 0, "self: [%g, %g]", lo, hi);
	KTAP_EXPECT(t, stats_bootstrap_change(a, 0, b, 10, 10, 0.95, 7, &lo, &hi) == -1, "empty accepted");
}

/* Boots spread evenly over +-3 %: medians of 3 against 3 differ by chance
 * up to about the spread, of 30 against 30 far less; no spread, no change. */
static void test_null_change(struct ktap_case_ctx *t)
{
	double x[61], same[20], small, large, again;

	for (int i = 0; i < 61; i++)
		x[i] = 1000 * (0.97 + 0.001 * i);
	for (int i = 0; i < 20; i++)
		same[i] = 500;
	KTAP_EXPECT(t, !stats_null_change(x, 61, 3, 3, 20000, 0.999, 3, &small), "failed");
	KTAP_EXPECT(t, small > 0.025 && small < 0.062, "3 vs 3 at 0.999: %g", small);
	stats_null_change(x, 61, 3, 3, 20000, 0.999, 3, &again);
	KTAP_EXPECT(t, again == small, "not reproducible from its seed");
	stats_null_change(x, 61, 30, 30, 20000, 0.999, 3, &large);
	KTAP_EXPECT(t, large < small / 2, "30 vs 30: %g, 3 vs 3: %g", large, small);
	stats_null_change(same, 20, 3, 3, 2000, 0.999, 3, &small);
	KTAP_EXPECT(t, small == 0, "identical boots: %g", small);
	KTAP_EXPECT(t, stats_null_change(x, 0, 3, 3, 10, 0.999, 3, &small) == -1, "empty accepted");
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_quantiles),
	KTAP_CASE(test_mwu_exact_separated),
	KTAP_CASE(test_mwu_n3_floor),
	KTAP_CASE(test_mwu_identical_and_ties),
	KTAP_CASE(test_mwu_normal),
	KTAP_CASE(test_ks),
	KTAP_CASE(test_ks_nan_ends),
	KTAP_CASE(test_one_outlier),
	KTAP_CASE(test_bootstrap),
	KTAP_CASE(test_null_change),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
