// SPDX-License-Identifier: GPL-2.0
/* The regression gate's decision: see gate_core.h. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gate_core.h"
#include "stats.h"

const char *const gate_verdict_names[] = { "same", "better", "worse", "unknown" };

/* The per-fault values of s's runs from boot (all runs when !one_boot) in
 * one malloc'd array; *n gets the count. */
static double *concat_runs(const struct gate_side *s, bool one_boot, long boot, size_t *n)
{
	size_t total = 0, at = 0;
	double *all;

	for (size_t i = 0; i < s->nruns; i++)
		total += !one_boot || s->boot[i] == boot ? s->n[i] : 0;
	all = malloc((total ? total : 1) * sizeof(*all));
	for (size_t i = 0; all && i < s->nruns; i++)
		if (!one_boot || s->boot[i] == boot) {
			memcpy(all + at, s->runs[i], s->n[i] * sizeof(*all));
			at += s->n[i];
		}
	*n = total;
	return all;
}

double *gate_boot_metrics(const struct gate_side *s, double q, size_t *nb)
{
	double *out = malloc((s->nruns ? s->nruns : 1) * sizeof(*out)), *all;
	size_t total;

	*nb = 0;
	for (size_t i = 0; out && i < s->nruns; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= s->boot[j] == s->boot[i];
		if (seen)
			continue;
		if (!(all = concat_runs(s, true, s->boot[i], &total))) {
			free(out);
			return NULL;
		}
		out[(*nb)++] = stats_quantile(all, total, q);
		free(all);
	}
	return out;
}

/* Boot-to-boot noise of both sides: the pooled standard deviation. */
static double pooled_sd(const struct gate_cmp *c)
{
	double ss = (c->n_base - 1) * c->base_sd * c->base_sd + (c->n_new - 1) * c->new_sd * c->new_sd;
	size_t df = c->n_base + c->n_new - 2;

	return df > 0 ? sqrt(ss / df) : 0;
}

/* The change same-kernel sides of these sizes show by chance, from the
 * reference's boots (10 x iters resamples: a 0.999 quantile needs them);
 * 0 without a reference of ref_min_boots. -1 when out of memory. */
static int reference_floor(const struct gate_side *ref, double q, const struct gate_params *par,
			   struct gate_cmp *out)
{
	double *rm;
	int err = 0;

	out->ref_floor = 0;
	if (!ref || !ref->nruns)
		return 0;
	if (!(rm = gate_boot_metrics(ref, q, &out->n_ref)))
		return -1;
	if (out->n_ref >= par->ref_min_boots &&
	    stats_null_change(rm, out->n_ref, out->n_base, out->n_new, 10 * par->iters, par->null_level, 2,
			      &out->ref_floor))
		err = -1;
	free(rm);
	return err;
}

static enum gate_verdict decide(const struct gate_cmp *c, const struct gate_params *par)
{
	bool enough = c->n_base >= par->min_boots && c->n_new >= par->min_boots;
	bool differ = c->p < par->alpha;

	if (!enough)
		return GATE_UNKNOWN;
	if (differ && c->change >= c->floor && c->ci_lo > 0)
		return GATE_WORSE;
	if (differ && c->change <= -c->floor && c->ci_hi < 0)
		return GATE_BETTER;
	if (c->ci_lo > -c->floor && c->ci_hi < c->floor)
		return GATE_SAME;
	return GATE_UNKNOWN;
}

int gate_compare(const struct gate_side *base, const struct gate_side *new, const struct gate_side *ref,
		 double q, const struct gate_params *par, struct gate_cmp *out)
{
	size_t nba = 0, nna = 0, nb = 0, nn = 0;
	double *bm = gate_boot_metrics(base, q, &nb), *nm = gate_boot_metrics(new, q, &nn), *ba = NULL, *na = NULL;
	int err = -1;

	memset(out, 0, sizeof(*out));
	if (!bm || !nm || !(ba = concat_runs(base, false, 0, &nba)) || !(na = concat_runs(new, false, 0, &nna)))
		goto done;
	out->n_base = nb, out->n_new = nn;
	out->base_mean = stats_mean(bm, nb), out->base_sd = stats_stddev(bm, nb);
	out->new_mean = stats_mean(nm, nn), out->new_sd = stats_stddev(nm, nn);
	out->base_med = stats_quantile(bm, nb, 0.5);
	out->new_med = stats_quantile(nm, nn, 0.5);
	out->change = out->base_med ? out->new_med / out->base_med - 1 : 0;
	out->p_mwu = stats_mann_whitney_p(ba, nba, na, nna);
	out->p_ks = stats_ks_p(ba, nba, na, nna, NULL);
	out->p = out->p_mwu < out->p_ks ? out->p_mwu : out->p_ks;
	if (stats_bootstrap_change(bm, nb, nm, nn, par->iters, par->level, 1, &out->ci_lo, &out->ci_hi))
		out->ci_lo = -INFINITY, out->ci_hi = INFINITY;
	out->noise_floor = out->base_mean ? par->noise_k * pooled_sd(out) / out->base_mean : 0;
	if (reference_floor(ref, q, par, out))
		goto done;
	out->floor = par->floor >= 0 ? par->floor :
		fmax(par->floor_min, fmax(out->noise_floor, out->ref_floor));
	out->verdict = decide(out, par);
	err = 0;
done:
	free(bm);
	free(nm);
	free(ba);
	free(na);
	return err;
}
