// SPDX-License-Identifier: GPL-2.0
/* The regression gate's decision: see gate_core.h. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gate_core.h"
#include "stats.h"

const char *const gate_verdict_names[] = { "same", "better", "worse", "unknown" };

/* The quantile q of every run: out[i] for runs[i]. */
static double *run_metrics(const struct gate_side *s, double q)
{
	double *out = malloc((s->nruns ? s->nruns : 1) * sizeof(*out));

	for (size_t i = 0; out && i < s->nruns; i++)
		out[i] = stats_quantile(s->runs[i], s->n[i], q);
	return out;
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
	bool enough = c->n_base >= par->min_runs && c->n_new >= par->min_runs;
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
	double *bm = run_metrics(base, q), *nm = run_metrics(new, q), *ba = NULL, *na = NULL;
	size_t nba = 0, nna = 0;
	int err = -1;

	memset(out, 0, sizeof(*out));
	if (!bm || !nm || !(ba = pooled(base, &nba)) || !(na = pooled(new, &nna)))
		goto done;
	out->n_base = base->nruns, out->n_new = new->nruns;
	out->base_mean = stats_mean(bm, base->nruns), out->base_sd = stats_stddev(bm, base->nruns);
	out->new_mean = stats_mean(nm, new->nruns), out->new_sd = stats_stddev(nm, new->nruns);
	out->base_med = stats_quantile(bm, base->nruns, 0.5);
	out->new_med = stats_quantile(nm, new->nruns, 0.5);
	out->change = out->base_med ? out->new_med / out->base_med - 1 : 0;
	out->p_mwu = stats_mann_whitney_p(ba, nba, na, nna);
	out->p_ks = stats_ks_p(ba, nba, na, nna, NULL);
	out->p = out->p_mwu < out->p_ks ? out->p_mwu : out->p_ks;
	if (stats_bootstrap_change(bm, base->nruns, nm, new->nruns, par->iters, par->level, 1,
				   &out->ci_lo, &out->ci_hi))
		out->ci_lo = -INFINITY, out->ci_hi = INFINITY;
	out->floor = par->floor >= 0 ? par->floor :
		fmax(par->floor_min, out->base_mean ? par->noise_k * out->base_sd / out->base_mean : 0);
	out->verdict = decide(out, par);
	err = 0;
done:
	free(bm);
	free(nm);
	free(ba);
	free(na);
	return err;
}
