// SPDX-License-Identifier: GPL-2.0
/* Two-sample statistics for the regression gate: see stats.h. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define EXACT_MAX 50	/* per sample: the exact U distribution up to here */

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (s) {
		memcpy(s, x, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_double);
	}
	return s;
}

static double quantile_sorted(const double *s, size_t n, double q)
{
	double h, frac;
	size_t i;

	if (!n)
		return 0;
	h = (n - 1) * (q < 0 ? 0 : q > 1 ? 1 : q);
	i = (size_t)h;
	frac = h - i;
	return i + 1 < n ? s[i] + frac * (s[i + 1] - s[i]) : s[n - 1];
}

double stats_quantile(const double *x, size_t n, double q)
{
	double *s = sorted_copy(x, n), v;

	if (!s)
		return NAN;
	v = quantile_sorted(s, n, q);
	free(s);
	return v;
}

double stats_mean(const double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return n ? sum / n : 0;
}

double stats_stddev(const double *x, size_t n)
{
	double m = stats_mean(x, n), ss = 0;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (n - 1));
}

/* One pooled value with the sample it came from. */
struct tagged {
	double v;
	int from_a;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	return cmp_double(&((const struct tagged *)pa)->v, &((const struct tagged *)pb)->v);
}

static struct tagged *pool(const double *a, size_t na, const double *b, size_t nb)
{
	struct tagged *p = malloc((na + nb) * sizeof(*p));

	if (!p)
		return NULL;
	for (size_t i = 0; i < na; i++)
		p[i] = (struct tagged){ a[i], 1 };
	for (size_t i = 0; i < nb; i++)
		p[na + i] = (struct tagged){ b[i], 0 };
	qsort(p, na + nb, sizeof(*p), cmp_tagged);
	return p;
}

/* P(U <= u) under H0 without ties, by counting the m-subsets of ranks
 * 1..N by their rank sum: ways[k][s], k items chosen, sum s. */
static double exact_u_cdf(size_t m, size_t n, double u)
{
	size_t N = m + n, smax = N * (N + 1) / 2, base = m * (m + 1) / 2;
	double *ways = calloc((m + 1) * (smax + 1), sizeof(*ways)), total = 0, le = 0;

	if (!ways)
		return NAN;
	ways[0] = 1;
	for (size_t r = 1; r <= N; r++)
		for (size_t k = (r < m ? r : m); k >= 1; k--)
			for (size_t s = smax; s >= r; s--)
				ways[k * (smax + 1) + s] += ways[(k - 1) * (smax + 1) + s - r];
	for (size_t s = base; s <= smax; s++) {
		double w = ways[m * (smax + 1) + s];

		total += w;
		if ((double)(s - base) <= u + 1e-9)
			le += w;
	}
	free(ways);
	return le / total;
}

double stats_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t N = na + nb, i = 0;
	double ranksum = 0, ties = 0, u, mean, var, z, p;
	struct tagged *p_all;

	if (!na || !nb)
		return 1;
	p_all = pool(a, na, b, nb);
	if (!p_all)
		return NAN;
	while (i < N) {	/* mid-ranks over each run of equal values */
		size_t j = i;

		while (j + 1 < N && p_all[j + 1].v == p_all[i].v)
			j++;
		for (size_t k = i; k <= j; k++)
			if (p_all[k].from_a)
				ranksum += (i + j + 2) / 2.0;
		ties += pow(j - i + 1, 3) - (j - i + 1);
		i = j + 1;
	}
	free(p_all);
	u = ranksum - na * (na + 1) / 2.0;
	mean = na * nb / 2.0;
	if (!ties && na <= EXACT_MAX && nb <= EXACT_MAX) {
		double lo = exact_u_cdf(na, nb, u), hi = 1 - exact_u_cdf(na, nb, u - 1);

		p = 2 * (lo < hi ? lo : hi);
		return p > 1 ? 1 : p;
	}
	var = na * nb / 12.0 * ((N + 1) - ties / ((double)N * (N - 1)));
	if (var <= 0)
		return 1;
	z = (fabs(u - mean) - 0.5) / sqrt(var);
	return z <= 0 ? 1 : erfc(z / M_SQRT2);
}

/* Kolmogorov's Q(lambda) = 2 sum (-1)^(j-1) exp(-2 j^2 lambda^2). */
static double kolmogorov_q(double lambda)
{
	double sum = 0;

	if (lambda < 0.2)
		return 1;
	for (int j = 1; j <= 100; j++) {
		double term = exp(-2.0 * j * j * lambda * lambda);

		sum += (j % 2 ? 2 : -2) * term;
		if (term < 1e-12)
			break;
	}
	return sum < 0 ? 0 : sum > 1 ? 1 : sum;
}

double stats_ks_p(const double *a, size_t na, const double *b, size_t nb, double *d_out)
{
	struct tagged *p_all;
	size_t N = na + nb, i = 0, ca = 0, cb = 0;
	double d = 0, en;

	if (d_out)
		*d_out = 0;
	if (!na || !nb)
		return 1;
	p_all = pool(a, na, b, nb);
	if (!p_all)
		return NAN;
	while (i < N) {	/* step over all equal values before comparing */
		double v = p_all[i].v, gap;

		do	/* at least one: a NaN equals nothing, not even itself */
			p_all[i].from_a ? ca++ : cb++;
		while (++i < N && p_all[i].v == v);
		gap = fabs((double)ca / na - (double)cb / nb);
		if (gap > d)
			d = gap;
	}
	free(p_all);
	if (d_out)
		*d_out = d;
	en = sqrt((double)na * nb / (na + nb));
	return kolmogorov_q((en + 0.12 + 0.11 / en) * d);
}

static uint64_t next_random(uint64_t *state)	/* xorshift64* */
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ULL;
}

/* The median of m values drawn with replacement from x[0..n). */
static double resampled_median(const double *x, size_t n, size_t m, double *buf, uint64_t *rng)
{
	for (size_t i = 0; i < m; i++)
		buf[i] = x[next_random(rng) % n];
	qsort(buf, m, sizeof(*buf), cmp_double);
	return quantile_sorted(buf, m, 0.5);
}

/* iters changes median(mb draws from b) / median(ma draws from a) - 1
 * (absolute values when absolute), sorted, in a malloc'd array; *kept of
 * them (draws with a zero median are skipped). NULL when out of memory. */
static double *resampled_changes(const double *a, size_t na, size_t ma, const double *b, size_t nb,
				 size_t mb, unsigned int iters, uint64_t seed, bool absolute,
				 unsigned int *kept)
{
	double *buf = malloc((ma > mb ? ma : mb) * sizeof(*buf));
	double *changes = malloc(iters * sizeof(*changes));
	uint64_t rng = seed ? seed : 0x9e3779b97f4a7c15ULL;

	*kept = 0;
	if (!buf || !changes) {
		free(buf);
		free(changes);
		return NULL;
	}
	for (unsigned int i = 0; i < iters; i++) {
		double ma_med = resampled_median(a, na, ma, buf, &rng);
		double mb_med = resampled_median(b, nb, mb, buf, &rng);

		if (ma_med != 0)
			changes[(*kept)++] = absolute ? fabs(mb_med / ma_med - 1) : mb_med / ma_med - 1;
	}
	qsort(changes, *kept, sizeof(*changes), cmp_double);
	free(buf);
	return changes;
}

int stats_bootstrap_change(const double *a, size_t na, const double *b, size_t nb,
			   unsigned int iters, double level, uint64_t seed,
			   double *lo, double *hi)
{
	unsigned int kept;
	double *changes;

	if (!na || !nb || !iters || stats_quantile(a, na, 0.5) == 0 ||
	    !(changes = resampled_changes(a, na, na, b, nb, nb, iters, seed, false, &kept)))
		return -1;
	*lo = quantile_sorted(changes, kept, (1 - level) / 2);
	*hi = quantile_sorted(changes, kept, 1 - (1 - level) / 2);
	free(changes);
	return kept ? 0 : -1;
}

int stats_null_change(const double *x, size_t n, size_t na, size_t nb, unsigned int iters,
		      double level, uint64_t seed, double *bound)
{
	unsigned int kept;
	double *changes;

	if (!n || !na || !nb || !iters ||
	    !(changes = resampled_changes(x, n, na, x, n, nb, iters, seed, true, &kept)))
		return -1;
	*bound = quantile_sorted(changes, kept, level);
	free(changes);
	return kept ? 0 : -1;
}
