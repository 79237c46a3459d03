// SPDX-License-Identifier: GPL-2.0
/*
 * gate: the regression gate. Compares two gate runs (bench/gate-run.sh:
 * meta.txt and samples.txt) per filesystem, scenario and metric, and says
 * better / worse / same / unknown (gate_core.h says how). Text (LKP-style
 * table), --json, --ktap. Exit: 0, EXIT_REGRESSION when a metric got
 * worse, EXIT_GATE_UNKNOWN when none did but some is undecided,
 * EXIT_NOT_COMPARABLE when the runs' metadata or rows differ (without
 * --force) or have nothing in common, EXIT_BAD_INPUT when a file of a run
 * is malformed (its file and line named): every line of every run is
 * checked before anything is compared, since the statistics would judge
 * garbage as confidently as samples. --check DIR: that check alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "exitcodes.h"
#include "gate_core.h"
#include "gate_run.h"
#include "json.h"
#include "ktap.h"
#include "stats.h"

#define TOOL "gate"

const char argp_program_doc[] =
"Compare two gate runs (make gate-run) of the fault benchmark and say, per\n"
"filesystem, scenario and metric, whether NEW is better, worse, the same or\n"
"unknown (run more) against BASE.\n"
"\n"
"USAGE: gate --base DIR --new DIR [--reference DIR]... [--json | --ktap]\n"
"            [--floor PCT] [--force]\n"
"       gate --noise --base DIR [--json]\n"
"       gate --check DIR [-v]\n"
"\n"
"EXAMPLES:\n"
"    gate --base results/baselines/gate-A --new results/runs/gate-B\n"
"    gate --base A --new B --json        # the same as JSON\n"
"    gate --base A --new B --floor 2     # fixed 2 % size floor\n"
"    gate --base A --new B --reference R1 --reference R2  # floors from R1+R2's boots\n"
"    gate --base A --new B --force       # compare runs of other machines\n"
"    gate --noise --base A               # run-to-run and boot-to-boot CV\n"
"    gate --check A                      # exit 0 when A is a sound run\n"
"\n"
"A metric is worse (or better) when the per-fault distributions differ\n"
"(min of Mann-Whitney U and Kolmogorov-Smirnov p below --alpha), its change\n"
"is at least the floor, and the bootstrap interval of the change over boots\n"
"excludes 0; the same when that interval lies within +-floor; else unknown\n"
"(also with fewer than --min-boots boots a side). The floor comes from the\n"
"noise: max(least; 3 x the boot-to-boot CV of both sides; the change that\n"
"same-kernel sides of these sizes exceed 0.1 % of the time, resampling the\n"
"boots of the reference runs, or of the base when it has 10 boots or more).\n"
"The least is 1 % for the median, 3 % for p90, 5 % for p99.\n"
"\n"
"Every run is checked first: a sample is a positive whole number of ns,\n"
"a row has the samples meta.txt's PAGES says (a phase row at most that),\n"
"its boot and round within boots and ROUNDS, each once, every line ends\n"
"in a newline, meta.txt gives each key once. Runs with no scenario in\n"
"common, or a scenario on one side only (phase rows excepted), are not\n"
"compared.\n"
"\n"
"Exit status: 0 no regression and every metric decided (--check: a sound\n"
"run), 16 a regression, 17 no regression but some metric unknown, 18 runs\n"
"not comparable, 19 a malformed file (its file and line named), 1 a file\n"
"missing, 2 usage (also a run compared with itself).";

#define MAX_REFS 64

static struct env {
	const char *dir[2];	/* base, new */
	const char *ref[MAX_REFS];	/* --reference */
	size_t nref;
	const char *check;	/* --check DIR */
	bool json, ktap, force, noise;
	struct gate_params par;
} env = { .par = GATE_PARAMS_DEFAULT };

enum {
	OPT_BASE = 256, OPT_NEW, OPT_REFERENCE, OPT_KTAP, OPT_FLOOR, OPT_ALPHA, OPT_MIN_BOOTS, OPT_FORCE, OPT_NOISE,
	OPT_CHECK,
};

static const struct argp_option opts[] = {
	{ "base", OPT_BASE, "DIR", 0, "The gate run to compare against (required)", 0 },
	{ "new", OPT_NEW, "DIR", 0, "The gate run judged (required)", 0 },
	{ "reference", OPT_REFERENCE, "DIR", 0, "A run of many boots of the same setup whose noise "
	  "sets the floor (repeatable; default: the base, when it has 10 boots)", 0 },
	{ "json", 'j', NULL, 0, "JSON output", 0 },
	{ "ktap", OPT_KTAP, NULL, 0, "KTAP output: one result per metric, not ok when worse or unknown", 0 },
	{ "floor", OPT_FLOOR, "PCT", 0, "Fixed size floor in percent (default: from the base's noise)", 0 },
	{ "alpha", OPT_ALPHA, "P", 0, "Significance level of the distribution tests (default 0.01)", 0 },
	{ "min-boots", OPT_MIN_BOOTS, "N", 0, "Boots needed per side (default 3)", 0 },
	{ "force", OPT_FORCE, NULL, 0, "Compare runs whose metadata differ", 0 },
	{ "noise", OPT_NOISE, NULL, 0, "No comparison: the base's noise per scenario and metric, "
	  "as the coefficient of variation over its runs and over its boots", 0 },
	{ "check", OPT_CHECK, "DIR", 0, "No comparison: check that DIR is a sound run, as the gate reads one "
	  "(exit 0; -v: how many lines and rows)", 0 },
	{ "verbose", 'v', NULL, 0, "Say what is read", 0 },
	CLI_OPT_HELP,
	{},
};

static double parse_fraction(const char *opt, const char *arg, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= 0) || v > max)
		cli_usage_error("%s '%s': a number from 0 to %g", opt, arg, max);
	return v;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	uint64_t n;

	switch (key) {
	case OPT_BASE: env.dir[0] = arg; break;
	case OPT_NEW: env.dir[1] = arg; break;
	case OPT_REFERENCE:
		if (env.nref == MAX_REFS)
			cli_usage_error("--reference: at most %d", MAX_REFS);
		env.ref[env.nref++] = arg;
		break;
	case 'j': env.json = true; break;
	case OPT_KTAP: env.ktap = true; break;
	case OPT_FORCE: env.force = true; break;
	case OPT_NOISE: env.noise = true; break;
	case OPT_CHECK: env.check = cli_nonempty_arg("--check", arg); break;
	case 'v': cli_verbose_on = true; break;
	case OPT_FLOOR: env.par.floor = parse_fraction("--floor", arg, 100) / 100; break;
	case OPT_ALPHA: env.par.alpha = parse_fraction("--alpha", arg, 1); break;
	case OPT_MIN_BOOTS:
		if (!cli_parse_u64(arg, 10, 1, 1000, &n))
			cli_usage_error("--min-boots '%s': a number from 1 to 1000", arg);
		env.par.min_boots = n;
		break;
	case ARGP_KEY_END:
		if (env.check && (env.dir[0] || env.dir[1] || env.nref || env.noise || env.json || env.ktap))
			cli_usage_error("--check DIR stands alone (-v at most)");
		if (env.check)
			break;
		if (!env.dir[0] || (!env.dir[1] && !env.noise))
			cli_usage_error("--base DIR and --new DIR are required (--noise: --base only)");
		if (env.json && env.ktap)
			cli_usage_error("--json or --ktap, not both");
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}


static struct meta metas[2 + MAX_REFS];	/* base, new, the references */

/* ---- can the runs be compared ------------------------------------------------ */

/* What must match for a comparison to mean anything; the kernel may differ
 * (that is what a gate compares), and so may delay_ns (the power test). A
 * boot's quantile rests on its ROUNDS runs: boots of other rounds differ. */
static const char *const same_keys[] = {
	"accelerator", "host_cpu", "qemu", "measure", "PAGES", "ROUNDS", "SCENARIOS", "guest_cpus",
};

/* "'VALUE' in PATH:LINE", or "none in PATH". */
static void where(const struct meta *m, const struct meta_kv *kv, char *out, size_t len)
{
	if (kv)
		snprintf(out, len, "'%s' in %s:%zu", kv->val, m->path, kv->line);
	else
		snprintf(out, len, "none in %s", m->path);
}

/* m (what: "new" or "reference") against the base's meta.txt. */
static int check_comparable(const struct meta *base, const char *what, const struct meta *m)
{
	char a[8192], b[8192];
	int err = 0;

	for (size_t i = 0; i < sizeof(same_keys) / sizeof(*same_keys); i++) {
		const struct meta_kv *ka = meta_get(base, same_keys[i]), *kb = meta_get(m, same_keys[i]);

		if ((!ka && !kb) || (ka && kb && !strcmp(ka->val, kb->val)))
			continue;
		where(base, ka, a, sizeof(a));
		where(m, kb, b, sizeof(b));
		if (env.force) {
			fprintf(stderr, TOOL ": note: %s differs (base %s, %s %s): compared anyway (--force)\n",
				same_keys[i], a, what, b);
			continue;
		}
		if (!err)
			err = cli_fail(EXIT_NOT_COMPARABLE, "not comparable: %s differs (base %s, %s %s); "
				       "--force to compare anyway", same_keys[i], a, what, b);
	}
	return err;
}

/* a and b name one folder (".", "..", symlinks resolved). */
static bool same_dir(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

/* A run against itself is always "same", and a reference given twice
 * counts its boots twice (narrower floors): refused. */
static int check_distinct(void)
{
	if (same_dir(env.dir[0], env.dir[1]))
		return cli_fail(EXIT_USAGE, "--base %s and --new %s are the same run: a gate compares two runs",
				env.dir[0], env.dir[1]);
	for (size_t i = 0; i < env.nref; i++) {
		if (same_dir(env.ref[i], env.dir[1]))
			return cli_fail(EXIT_USAGE, "--reference %s is the new run: a reference is other runs of "
					"the base's setup", env.ref[i]);
		for (size_t j = 0; j < i; j++)
			if (same_dir(env.ref[i], env.ref[j]))
				return cli_fail(EXIT_USAGE, "--reference %s and --reference %s are the same run",
						env.ref[j], env.ref[i]);
	}
	return 0;
}

/* Phase and tool rows may be on one side only (see check_groups). */
static bool one_sided_ok(const char *scen)
{
	return is_phase(scen) || is_tool_row(scen);
}

/* Something in common, and (without --force) every user-space scenario on
 * both sides; phase and tool rows on one side are a note: a run made without phases
 * (PHASES=0, or before they existed) has none. */
static int check_groups(const struct groups *gs)
{
	const struct group *one = NULL;
	size_t both = 0;

	for (size_t i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];

		if (g->nruns[SIDE_BASE] && g->nruns[SIDE_NEW])
			both++;
		else if (!one && !one_sided_ok(g->scen) && (g->nruns[SIDE_BASE] || g->nruns[SIDE_NEW]))
			one = g;
	}
	if (!both)
		return cli_fail(EXIT_NOT_COMPARABLE, "nothing to compare: %s/samples.txt and %s/samples.txt have no "
				"filesystem and scenario in common", env.dir[0], env.dir[1]);
	if (one && !env.force)
		return cli_fail(EXIT_NOT_COMPARABLE, "not comparable: %s %s only in the %s (none in %s/samples.txt); "
				"--force to compare the rest", one->fs, one->scen,
				one->nruns[SIDE_BASE] ? "base" : "new", one->nruns[SIDE_BASE] ? env.dir[1] : env.dir[0]);
	for (size_t i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];

		if (!g->nruns[SIDE_BASE] != !g->nruns[SIDE_NEW])
			fprintf(stderr, TOOL ": note: %s %s only in the %s: not compared%s\n", g->fs, g->scen,
				g->nruns[SIDE_BASE] ? "base" : "new",
				one_sided_ok(g->scen) ? "" : " (--force)");
	}
	return 0;
}

/* ---- the comparison and its outputs ---------------------------------------- */

/* floor_min: the least derived floor. A tail quantile of one boot rests on
 * few faults (a p99 of 1024 on about 10), noise that 3 boots' CV does not
 * show: in 20 A/A comparisons of 3 boots a side with a 1 % floor for all,
 * 1 p90 and 3 p99 verdicts of 480 were "worse" (1.2-2.1 %), none of the
 * medians (results/baselines/gate-aa-*). */
static const struct metric {
	const char *name;
	double q, floor_min;
} metrics[] = { { "median", 0.5, 0.01 }, { "p90", 0.9, 0.03 }, { "p99", 0.99, 0.05 } };
#define NMETRICS (sizeof(metrics) / sizeof(*metrics))

struct row {
	const struct group *g;
	const struct metric *m;
	struct gate_cmp c;
};

/* Side s of a group as gate_core sees it, in the caller's arrays. */
static struct gate_side side_of(const struct group *g, int s, const double **ptrs, size_t *ns, long *boots)
{
	for (size_t r = 0; r < g->nruns[s]; r++)
		ptrs[r] = g->runs[s][r].v, ns[r] = g->runs[s][r].n, boots[r] = g->runs[s][r].boot;
	return (struct gate_side){ ptrs, ns, boots, g->nruns[s] };
}

static int compare_all(const struct groups *gs, struct row **rows, size_t *nrows)
{
	*rows = calloc(gs->n * NMETRICS + 1, sizeof(**rows));
	*nrows = 0;
	if (!*rows)
		return cli_fail_errno(ENOMEM, "compare");
	for (size_t i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];
		size_t most;

		if (!g->nruns[SIDE_BASE] || !g->nruns[SIDE_NEW])	/* check_groups said so */
			continue;
		most = g->nruns[SIDE_BASE] + g->nruns[SIDE_NEW] + g->nruns[SIDE_REF] + 1;
		const double *ptrs[NSIDES][most];
		size_t ns[NSIDES][most];
		long boots[NSIDES][most];
		struct gate_side side[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			side[s] = side_of(g, s, ptrs[s], ns[s], boots[s]);
		for (size_t m = 0; m < NMETRICS; m++) {
			struct row *row = &(*rows)[(*nrows)++];
			struct gate_params par = env.par;

			par.floor_min = metrics[m].floor_min;
			row->g = g, row->m = &metrics[m];
			if (gate_compare(&side[SIDE_BASE], &side[SIDE_NEW], &side[env.nref ? SIDE_REF : SIDE_BASE],
					 metrics[m].q, &par, &row->c))
				return cli_fail_errno(ENOMEM, "compare");
		}
	}
	return 0;
}

static double pct(double sd, double mean)
{
	return mean ? 100 * sd / mean : 0;
}

static void print_text(const struct row *rows, size_t n, const size_t count[4])
{
	printf("gate: base %s (%s)\n      new  %s (%s)\n", env.dir[0], meta_val(&metas[0], "kernel"), env.dir[1],
	       meta_val(&metas[1], "kernel"));
	printf("      %s; per-fault latency in us; base/new: mean over boots +- stddev\n",
	       meta_val(&metas[1], "accelerator"));
	if (n && rows[0].c.n_ref >= env.par.ref_min_boots)
		printf("      floors: at least the change same-kernel sides exceed %.1f %% of the time, "
		       "from the %zu boots of %s%s\n", 100 * (1 - env.par.null_level), rows[0].c.n_ref,
		       env.nref ? env.ref[0] : env.dir[0], env.nref > 1 ? " and more (--reference)" : "");
	else
		printf("      floors: from the boot-to-boot noise of both sides (no reference of %zu boots)\n",
		       env.par.ref_min_boots);
	printf("\n");
	printf("%-5s %-30s %-6s %12s %7s %9s %12s %7s  %-7s %8s %17s %6s\n", "fs", "scenario", "metric",
	       "base", "+-", "%change", "new", "+-", "verdict", "p", "interval", "floor");
	for (size_t i = 0; i < n; i++) {
		const struct gate_cmp *c = &rows[i].c;

		printf("%-5s %-30s %-6s %12.1f %6.1f%% %+8.2f%% %12.1f %6.1f%%  %-7s %8.1e %+7.2f..%+6.2f%% %5.1f%%\n",
		       rows[i].g->fs, rows[i].g->scen, rows[i].m->name, c->base_mean / 1000,
		       pct(c->base_sd, c->base_mean), 100 * c->change, c->new_mean / 1000,
		       pct(c->new_sd, c->new_mean), gate_verdict_names[c->verdict], c->p,
		       100 * c->ci_lo, 100 * c->ci_hi, 100 * c->floor);
	}
	printf("\n%zu metrics: %zu worse, %zu better, %zu same, %zu unknown\n", n,
	       count[GATE_WORSE], count[GATE_BETTER], count[GATE_SAME], count[GATE_UNKNOWN]);
}

static void json_side(struct json_writer *w, const char *key, size_t runs, double mean, double sd, double med)
{
	json_key(w, key);
	json_begin_object(w);
	json_kv_uint(w, "boots", runs);
	json_kv_double(w, "mean_ns", mean);
	json_kv_double(w, "stddev_ns", sd);
	json_kv_double(w, "median_ns", med);
	json_end_object(w);
}

static int print_json(const struct row *rows, size_t n, const size_t count[4])
{
	struct json_writer w;

	json_init(&w, stdout);
	json_begin_object(&w);
	json_kv_string(&w, "tool", TOOL);
	json_kv_string(&w, "base", env.dir[0]);
	json_kv_string(&w, "new", env.dir[1]);
	json_key(&w, "params");
	json_begin_object(&w);
	json_kv_double(&w, "alpha", env.par.alpha);
	json_kv_double(&w, "floor", env.par.floor);
	json_key(&w, "floor_min");
	json_begin_object(&w);
	for (size_t m = 0; m < NMETRICS; m++)
		json_kv_double(&w, metrics[m].name, metrics[m].floor_min);
	json_end_object(&w);
	json_kv_double(&w, "noise_k", env.par.noise_k);
	json_kv_uint(&w, "min_boots", env.par.min_boots);
	json_kv_double(&w, "null_level", env.par.null_level);
	json_kv_uint(&w, "reference_min_boots", env.par.ref_min_boots);
	json_key(&w, "reference");
	json_begin_array(&w);
	for (size_t i = 0; i < env.nref; i++)
		json_string(&w, env.ref[i]);
	if (!env.nref)
		json_string(&w, env.dir[0]);
	json_end_array(&w);
	json_end_object(&w);
	json_key(&w, "rows");
	json_begin_array(&w);
	for (size_t i = 0; i < n; i++) {
		const struct gate_cmp *c = &rows[i].c;

		json_begin_object(&w);
		json_kv_string(&w, "fs", rows[i].g->fs);
		json_kv_string(&w, "scenario", rows[i].g->scen);
		json_kv_string(&w, "metric", rows[i].m->name);
		json_side(&w, "base", c->n_base, c->base_mean, c->base_sd, c->base_med);
		json_side(&w, "new", c->n_new, c->new_mean, c->new_sd, c->new_med);
		json_kv_double(&w, "change", c->change);
		json_kv_double(&w, "p", c->p);
		json_kv_double(&w, "p_mann_whitney", c->p_mwu);
		json_kv_double(&w, "p_ks", c->p_ks);
		json_kv_double(&w, "ci_lo", isfinite(c->ci_lo) ? c->ci_lo : -1e9);
		json_kv_double(&w, "ci_hi", isfinite(c->ci_hi) ? c->ci_hi : 1e9);
		json_kv_double(&w, "floor", c->floor);
		json_kv_double(&w, "noise_floor", c->noise_floor);
		json_kv_uint(&w, "reference_boots", c->n_ref);
		json_kv_double(&w, "reference_floor", c->ref_floor);
		json_kv_string(&w, "verdict", gate_verdict_names[c->verdict]);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_key(&w, "verdicts");
	json_begin_object(&w);
	for (int v = 0; v < 4; v++)
		json_kv_uint(&w, gate_verdict_names[v], count[v]);
	json_end_object(&w);
	json_end_object(&w);
	return cli_json_finish(&w);
}

static void print_ktap(const struct row *rows, size_t n)
{
	struct ktap k;

	ktap_begin_plan(&k, stdout, (int)n);
	for (size_t i = 0; i < n; i++) {
		const struct gate_cmp *c = &rows[i].c;
		char name[128];

		snprintf(name, sizeof(name), "%s_%s_%s", rows[i].g->fs, rows[i].g->scen, rows[i].m->name);
		ktap_result(&k, c->verdict == GATE_SAME || c->verdict == GATE_BETTER, name,
			    "%s %+.2f%% (p %.1e, interval %+.2f..%+.2f%%, floor %.1f%%)",
			    gate_verdict_names[c->verdict], 100 * c->change, c->p, 100 * c->ci_lo,
			    100 * c->ci_hi, 100 * c->floor);
	}
	ktap_end(&k);
}

/* ---- noise ----------------------------------------------------------------- */

struct noise {
	size_t runs, boots;
	double mean, cv_run, cv_boot;
};

static int noise_of(const struct group *g, double q, struct noise *out)
{
	size_t n = g->nruns[0];
	const double *ptrs[n + 1];
	size_t ns[n + 1];
	long boots[n + 1];
	double per_run[n + 1], *per_boot;
	struct gate_side side = side_of(g, 0, ptrs, ns, boots);

	for (size_t i = 0; i < n; i++)
		per_run[i] = stats_quantile(ptrs[i], ns[i], q);
	if (!(per_boot = gate_boot_metrics(&side, q, &out->boots)))
		return -1;
	out->runs = n;
	out->mean = stats_mean(per_run, n);
	out->cv_run = pct(stats_stddev(per_run, n), out->mean);
	out->cv_boot = pct(stats_stddev(per_boot, out->boots), stats_mean(per_boot, out->boots));
	free(per_boot);
	return 0;
}

static int print_noise(const struct groups *gs)
{
	const char *how = meta_val(&metas[0], "accelerator");
	struct json_writer w;

	if (env.json) {
		json_init(&w, stdout);
		json_begin_object(&w);
		json_kv_string(&w, "run", env.dir[0]);
		json_kv_string(&w, "accelerator", how);
		json_key(&w, "noise");
		json_begin_array(&w);
	} else {
		printf("noise of %s (%s)\n%-5s %-30s %-6s %5s %12s %8s %5s %9s\n", env.dir[0], how,
		       "fs", "scenario", "metric", "runs", "mean us", "CV runs", "boots", "CV boots");
	}
	for (size_t i = 0; i < gs->n; i++)
		for (size_t m = 0; m < NMETRICS; m++) {
			struct noise z;

			if (noise_of(&gs->g[i], metrics[m].q, &z))
				return cli_fail_errno(ENOMEM, "noise");
			if (!env.json) {
				printf("%-5s %-30s %-6s %5zu %12.1f %7.2f%% %5zu %8.2f%%\n", gs->g[i].fs,
				       gs->g[i].scen, metrics[m].name, z.runs, z.mean / 1000, z.cv_run,
				       z.boots, z.cv_boot);
				continue;
			}
			json_begin_object(&w);
			json_kv_string(&w, "fs", gs->g[i].fs);
			json_kv_string(&w, "scenario", gs->g[i].scen);
			json_kv_string(&w, "metric", metrics[m].name);
			json_kv_uint(&w, "runs", z.runs);
			json_kv_double(&w, "mean_ns", z.mean);
			json_kv_double(&w, "cv_runs_pct", z.cv_run);
			json_kv_uint(&w, "boots", z.boots);
			json_kv_double(&w, "cv_boots_pct", z.cv_boot);
			json_end_object(&w);
		}
	if (!env.json)
		return 0;
	json_end_array(&w);
	json_end_object(&w);
	return cli_json_finish(&w);
}

/* A side's run (-v: how many lines). */
static int read_side(struct groups *gs, int side, long boot_base, const char *dir, struct meta *m)
{
	size_t lines;
	int err = read_run(gs, side, boot_base, dir, m, &lines);

	if (!err)
		cli_verbose("%s: %zu lines", dir, lines);
	return err;
}

/* Every run read and checked, then whether they can be compared. */
static int read_all(struct groups *gs)
{
	int err;

	if ((err = check_distinct()) || (err = read_side(gs, SIDE_BASE, 0, env.dir[0], &metas[0])) ||
	    (err = read_side(gs, SIDE_NEW, 0, env.dir[1], &metas[1])))
		return err;
	for (size_t i = 0; i < env.nref; i++)	/* each reference's boots apart */
		if ((err = read_side(gs, SIDE_REF, (long)(ID_MAX + 1) * (long)(i + 1), env.ref[i], &metas[2 + i])))
			return err;
	if ((err = check_comparable(&metas[0], "new", &metas[1])))
		return err;
	for (size_t i = 0; i < env.nref; i++)
		if ((err = check_comparable(&metas[0], "reference", &metas[2 + i])))
			return err;
	return check_groups(gs);
}

/* --check DIR: the run read as the gate reads a side; -v says how much. */
static int check_run(void)
{
	struct groups gs = { 0 };
	size_t lines = 0;
	int err = read_run(&gs, SIDE_BASE, 0, env.check, &metas[0], &lines);

	if (!err && cli_verbose_on)
		printf("%s: %zu lines, %zu rows ok\n", env.check, lines, gs.n);
	free_groups(&gs);
	free_meta(&metas[0]);
	return err;
}

static int run_gate(void)
{
	struct groups gs = { 0 };
	struct row *rows = NULL;
	size_t nrows = 0, count[4] = { 0 };
	int err;

	if (env.noise) {
		if (!(err = read_side(&gs, SIDE_BASE, 0, env.dir[0], &metas[0])))
			err = print_noise(&gs);
		goto out;
	}
	if ((err = read_all(&gs)) || (err = compare_all(&gs, &rows, &nrows)))
		goto out;
	for (size_t i = 0; i < nrows; i++)
		count[rows[i].c.verdict]++;
	if (env.json)
		err = print_json(rows, nrows, count);
	else if (env.ktap)
		print_ktap(rows, nrows);
	else
		print_text(rows, nrows, count);
	if (!err)
		err = count[GATE_WORSE] ? EXIT_REGRESSION : count[GATE_UNKNOWN] ? EXIT_GATE_UNKNOWN : EXIT_OK;
out:
	free(rows);
	free_groups(&gs);
	for (size_t i = 0; i < 2 + env.nref; i++)
		free_meta(&metas[i]);
	return err;
}

int main(int argc, char **argv)
{
	cli_parse_args(TOOL, opts, parse_arg, argp_program_doc, argc, argv);
	return env.check ? check_run() : run_gate();
}
