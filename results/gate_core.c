// SPDX-License-Identifier: GPL-2.0
/* The regression gate's decision: see gate_core.h. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gate_core.h"
#include "stats.h"

const char *const gate_verdict_names[] = { "same", "better", "worse", "unknown" };

double *gate_boot_metrics(const struct gate_side *s, double q, size_t *nb)
{
	double *out = malloc((s->nruns ? s->nruns : 1) * sizeof(*out)), *all;

	*nb = 0;
	for (size_t i = 0; out && i < s->nruns; i++) {
		size_t total = 0, at = 0;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= s->boot[j] == s->boot[i];
		if (seen)
			continue;
		for (size_t j = i; j < s->nruns; j++)
			total += s->boot[j] == s->boot[i] ? s->n[j] : 0;
		if (!(all = malloc((total ? total : 1) * sizeof(*all)))) {
			free(out);
			return NULL;
		}
		for (size_t j = i; j < s->nruns; j++)
			if (s->boot[j] == s->boot[i]) {
				memcpy(all + at, s->runs[j], s->n[j] * sizeof(*all));
				at += s->n[j];
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

/* Every per-fault value of a side in one array; *n gets the count. */
static double *pooled(const struct gate_side *s, size_t *n)
{
	size_t total = 0, at = 0;
	double *all;

	for (size_t i = 0; i < s->nruns; i++)
		total += s->n[i];
	all = malloc((total ? total : 1) * sizeof(*all));
	for (size_t i = 0; all && i < s->nruns; i++) {
		memcpy(all + at, s->runs[i], s->n[i] * sizeof(*all));
		at += s->n[i];
	}
	*n = total;
	return all;
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

int gate_compare(const struct gate_side *base, const struct gate_side *new, double q,
		 const struct gate_params *par, struct gate_cmp *out)
{
	size_t nba = 0, nna = 0, nb = 0, nn = 0;
	double *bm = gate_boot_metrics(base, q, &nb), *nm = gate_boot_metrics(new, q, &nn), *ba = NULL, *na = NULL;
	int err = -1;

	memset(out, 0, sizeof(*out));
	if (!bm || !nm || !(ba = pooled(base, &nba)) || !(na = pooled(new, &nna)))
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
	out->floor = par->floor >= 0 ? par->floor :
		fmax(par->floor_min, out->base_mean ? par->noise_k * pooled_sd(out) / out->base_mean : 0);
	out->verdict = decide(out, par);
	err = 0;
done:
	free(bm);
	free(nm);
	free(ba);
	free(na);
	return err;
}
