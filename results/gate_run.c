// SPDX-License-Identifier: GPL-2.0
/* Reading a gate run, every line checked: see gate_run.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "exitcodes.h"
#include "gate_run.h"

/* ---- reading a run's files, line by line ------------------------------------ */

/* "PATH:LINE: what" (line 0: "PATH: what"); EXIT_BAD_INPUT. */

int bad(const char *path, size_t line, const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (line)
		return cli_fail(EXIT_BAD_INPUT, "%s:%zu: %s", path, line, what);
	return cli_fail(EXIT_BAD_INPUT, "%s: %s", path, what);
}

/* One text file of a run, and its line being read. */
struct input {
	char path[4096];
	FILE *f;
	char *line;
	size_t cap, lineno;
	bool utf8;	/* bytes from 0x80 allowed (meta.txt's values) */
};

/* DIR/NAME, a regular file: a folder would read as empty, a FIFO block. */
static int open_input(struct input *in, const char *dir, const char *name, bool utf8)
{
	struct stat st;
	int fd;

	memset(in, 0, sizeof(*in));
	in->utf8 = utf8;
	if (snprintf(in->path, sizeof(in->path), "%s/%s", dir, name) >= (int)sizeof(in->path))
		return cli_fail_errno(ENAMETOOLONG, "%s", dir);
	fd = open(in->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return cli_fail_errno(errno, "open %s (not a gate run? make gate-run makes them)", in->path);
	if (fstat(fd, &st)) {
		close(fd);
		return cli_fail_errno(errno, "stat %s", in->path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return bad(in->path, 0, S_ISDIR(st.st_mode) ? "a directory, not a file" : "not a regular file");
	}
	if (!(in->f = fdopen(fd, "r"))) {
		close(fd);
		return cli_fail_errno(errno, "open %s", in->path);
	}
	return 0;
}

static void close_input(struct input *in)
{
	if (in->f)
		fclose(in->f);
	free(in->line);
}

/* The next line into in->line, its newline taken off; *got false at the
 * end. A line must end in a newline (else the file was cut short) and hold
 * text: no carriage return, NUL or other control byte. */
static int next_line(struct input *in, bool *got)
{
	ssize_t len;

	errno = 0;
	len = getline(&in->line, &in->cap, in->f);
	*got = len > 0;
	if (len <= 0)
		return ferror(in->f) ? cli_fail_errno(errno ? errno : EIO, "read %s", in->path) : 0;
	in->lineno++;
	if (in->line[len - 1] != '\n')
		return bad(in->path, in->lineno, "the last line is cut short (no newline at its end)");
	in->line[--len] = 0;
	for (ssize_t i = 0; i < len; i++) {
		unsigned char c = in->line[i];

		if (c == '\r')
			return bad(in->path, in->lineno, "carriage return (CRLF line ending)");
		if (c < ' ' || c == 0x7f || (c >= 0x80 && !in->utf8))
			return bad(in->path, in->lineno, "binary byte 0x%02x at column %zd", c, i + 1);
	}
	return 0;
}

/* s in digits alone (no sign, space, point, exponent or 0x), at most
 * digits of them: true, with its value in *v. */
static bool whole(const char *s, size_t digits, unsigned long long *v)
{
	size_t n = strspn(s, "0123456789");

	if (!n || s[n] || n > digits)
		return false;
	*v = strtoull(s, NULL, 10);
	return true;
}

/* ---- meta.txt ---------------------------------------------------------------- */




const struct meta_kv *meta_get(const struct meta *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return &m->kv[i];
	return NULL;
}

/* The value of key, or "(none)". */
const char *meta_val(const struct meta *m, const char *key)
{
	const struct meta_kv *kv = meta_get(m, key);

	return kv ? kv->val : "(none)";
}

void free_meta(struct meta *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->kv[i].key);
		free(m->kv[i].val);
	}
	free(m->kv);
	m->kv = NULL, m->n = 0;
}

/* The KEY=VALUE of in's line into m. */
static int meta_add(struct meta *m, const struct input *in)
{
	char *eq = strchr(in->line, '='), *val;
	size_t klen = eq ? (size_t)(eq - in->line) : 0, vlen;
	struct meta_kv *kv;

	if (!klen || strspn(in->line, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != klen)
		return bad(in->path, in->lineno, "not KEY=VALUE");
	*eq = 0;
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, in->line))
			return bad(in->path, in->lineno, "%s given twice (first on line %zu)", in->line, m->kv[i].line);
	val = eq + 1, vlen = strlen(val);
	if (vlen >= 2 && val[0] == '\'' && val[vlen - 1] == '\'')	/* PAGES='512' */
		val[vlen - 1] = 0, val++;
	if (!(kv = realloc(m->kv, (m->n + 1) * sizeof(*kv))))
		return cli_fail_errno(ENOMEM, "%s", in->path);
	m->kv = kv;
	kv = &m->kv[m->n];
	kv->key = strdup(in->line), kv->val = strdup(val), kv->line = in->lineno;
	if (!kv->key || !kv->val) {
		free(kv->key);
		free(kv->val);
		return cli_fail_errno(ENOMEM, "%s", in->path);
	}
	m->n++;
	return 0;
}

/* The keys the rows are checked by, when given: whole numbers in range. */
static const struct meta_number {
	const char *key;
	size_t off;
	long min, max;
} meta_numbers[] = {
	{ "PAGES", offsetof(struct meta, pages), 1, 1L << 30 },
	{ "ROUNDS", offsetof(struct meta, rounds), 1, ID_MAX },
	{ "boots", offsetof(struct meta, boots), 1, ID_MAX },
	{ "REPS", offsetof(struct meta, reps), 1, ID_MAX },
	{ "PERSIST_WRITES", offsetof(struct meta, persist_writes), 1, 1L << 30 },
	{ "PHASES", offsetof(struct meta, phases), 0, 1 },
};

static int meta_parse_numbers(struct meta *m)
{
	for (size_t i = 0; i < sizeof(meta_numbers) / sizeof(*meta_numbers); i++) {
		const struct meta_number *mn = &meta_numbers[i];
		const struct meta_kv *kv = meta_get(m, mn->key);
		long *field = (long *)((char *)m + mn->off);
		unsigned long long v;

		*field = -1;
		if (!kv)
			continue;
		if (!whole(kv->val, 10, &v) || (long long)v < mn->min || (long long)v > mn->max)
			return bad(m->path, kv->line, "%s='%.40s' is not a whole number from %ld to %ld", mn->key,
				   kv->val, mn->min, mn->max);
		*field = (long)v;
	}
	return 0;
}

static int read_meta(const char *dir, struct meta *m)
{
	struct input in;
	bool got;
	int err;

	memset(m, 0, sizeof(*m));
	if ((err = open_input(&in, dir, "meta.txt", true)))
		return err;
	snprintf(m->path, sizeof(m->path), "%s", in.path);
	while (!(err = next_line(&in, &got)) && got && !(err = meta_add(m, &in)))
		;
	close_input(&in);
	if (!err && !m->n)
		err = bad(m->path, 0, "empty");
	return err ? err : meta_parse_numbers(m);
}

/* ---- samples.txt ------------------------------------------------------------- */





/* SCENARIO:PHASE, daxlat's in-kernel phases of the scenario's faults. */
bool is_phase(const char *scen)
{
	return strchr(scen, ':');
}

/* SCENARIO+TOOL, the scenario's faults with a tracer attached (the tool's
 * own cost, issue 33). Like a phase row it may be on one side only: a run
 * made before the row existed has none. */
bool is_tool_row(const char *scen)
{
	return strchr(scen, '+');
}

static struct group *find_group(struct groups *gs, const char *fs, const char *scen)
{
	struct group *g;

	for (size_t i = 0; i < gs->n; i++)
		if (!strcmp(gs->g[i].fs, fs) && !strcmp(gs->g[i].scen, scen))
			return &gs->g[i];
	g = realloc(gs->g, (gs->n + 1) * sizeof(*g));
	if (!g)
		return NULL;
	gs->g = g;
	g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	snprintf(g->fs, sizeof(g->fs), "%s", fs);
	snprintf(g->scen, sizeof(g->scen), "%s", scen);
	return g;
}

/* One line of samples.txt, split. */
struct fields {
	unsigned long long boot, round;
	const char *fs, *scen;
	char *save;	/* strtok_r's: the samples follow */
};

/* "BOOT FS SCENARIO ROUND": whole numbers and names that fit, the rows
 * meta.txt allows. */
static int parse_head(char *line, const struct meta *m, const char *path, size_t ln, struct fields *f)
{
	char *boot = strtok_r(line, " ", &f->save), *round;

	if (!boot)
		return bad(path, ln, "a blank line");
	f->fs = strtok_r(NULL, " ", &f->save), f->scen = strtok_r(NULL, " ", &f->save);
	if (!f->fs || !f->scen || !(round = strtok_r(NULL, " ", &f->save)))
		return bad(path, ln, "not 'BOOT FS SCENARIO ROUND NS...': fields missing");
	if (!whole(boot, 6, &f->boot) || !f->boot)
		return bad(path, ln, "boot '%.20s' is not a whole number from 1 to %lu", boot, ID_MAX);
	if (m->boots > 0 && f->boot > (unsigned long)m->boots)
		return bad(path, ln, "boot %llu, beyond meta.txt's boots=%ld", f->boot, m->boots);
	if (strlen(f->fs) > sizeof(((struct group *)0)->fs) - 1)
		return bad(path, ln, "filesystem name '%.20s...' is longer than 15 characters", f->fs);
	if (strlen(f->scen) > sizeof(((struct group *)0)->scen) - 1)
		return bad(path, ln, "scenario name '%.20s...' is longer than 63 characters", f->scen);
	if (is_phase(f->scen) && (f->scen[0] == ':' || strchr(f->scen, ':') != strrchr(f->scen, ':') ||
				  !strchr(f->scen, ':')[1]))
		return bad(path, ln, "scenario '%s': a phase row is SCENARIO:PHASE", f->scen);
	if (is_phase(f->scen) && m->phases == 0)
		return bad(path, ln, "a phase row (%s), but meta.txt says PHASES=0", f->scen);
	if (!whole(round, 6, &f->round) || !f->round)
		return bad(path, ln, "round '%.20s' is not a whole number from 1 to %lu", round, ID_MAX);
	if (m->rounds > 0 && f->round > (unsigned long)m->rounds)
		return bad(path, ln, "round %llu, beyond meta.txt's ROUNDS=%ld", f->round, m->rounds);
	return 0;
}

/* The samples a user-space row of scen holds by meta.txt (0: it does not
 * say; *why: from what): PAGES x REPS faults (faultlat -n, -r); make
 * reproduce's persist rows one per write, its tail-SYNC-wN-LAYOUT rows
 * the faults of N writers. */
static unsigned long long want_samples(const struct meta *m, const char *scen, char *why, size_t len)
{
	const char *w = strstr(scen, "-w");
	unsigned long writers;

	if (!strncmp(scen, "persist-", 8)) {
		snprintf(why, len, "PERSIST_WRITES");
		return m->persist_writes > 0 ? (unsigned long long)m->persist_writes : 0;
	}
	if (m->pages <= 0)
		return 0;
	if (!strncmp(scen, "tail-", 5) && w && sscanf(w, "-w%lu", &writers) == 1 && writers && writers <= 4096) {
		snprintf(why, len, "PAGES x %lu writers", writers);
		return (unsigned long long)m->pages * writers;
	}
	snprintf(why, len, m->reps > 0 ? "PAGES x REPS" : "PAGES");
	return (unsigned long long)m->pages * (m->reps > 0 ? m->reps : 1);
}

/* The samples after the head: positive whole numbers of ns, as many as
 * meta.txt says (a phase row: at most PAGES, one per synchronous fault). */
static int parse_samples(struct fields *f, const struct meta *m, const char *path, size_t ln, struct run *r)
{
	unsigned long long v, want;
	char *tok, why[64];

	while ((tok = strtok_r(NULL, " ", &f->save))) {
		double *nv;

		if (!whole(tok, NS_DIGITS, &v) || !v)
			return bad(path, ln, "sample %zu '%.20s' is not a positive whole number of ns "
				   "(digits only, below 1e15)", r->n + 1, tok);
		if (!(nv = realloc(r->v, (r->n + 1) * sizeof(*nv))))
			return cli_fail_errno(ENOMEM, "%s:%zu", path, ln);
		r->v = nv;
		r->v[r->n++] = (double)v;
	}
	if (!r->n)
		return bad(path, ln, "not 'BOOT FS SCENARIO ROUND NS...': no samples");
	if (is_phase(f->scen)) {
		if (m->pages > 0 && r->n > (size_t)m->pages)
			return bad(path, ln, "%zu samples in a phase row, more than meta.txt's PAGES=%ld", r->n, m->pages);
		return 0;
	}
	want = want_samples(m, f->scen, why, sizeof(why));
	if (want && r->n != want)
		return bad(path, ln, "%zu samples, want %llu (meta.txt's %s)", r->n, want, why);
	return 0;
}

/* in's line into side's runs of its group, once per boot and round;
 * boot_base keeps the boots of several reference runs apart. */
static int add_line(struct groups *gs, int side, long boot_base, const struct meta *m, const struct input *in)
{
	struct fields f = { 0 };
	struct run r = { .line = in->lineno }, *runs;
	struct group *g;
	int err;

	if ((err = parse_head(in->line, m, in->path, in->lineno, &f)) ||
	    (err = parse_samples(&f, m, in->path, in->lineno, &r)))
		goto out;
	r.boot = boot_base + (long)f.boot, r.round = f.round;
	if (!(g = find_group(gs, f.fs, f.scen))) {
		err = cli_fail_errno(ENOMEM, "%s:%zu", in->path, in->lineno);
		goto out;
	}
	for (size_t i = 0; i < g->nruns[side]; i++)
		if (g->runs[side][i].boot == r.boot && g->runs[side][i].round == r.round) {
			err = bad(in->path, in->lineno, "boot %llu %s %s round %llu again (first on line %zu)",
				  f.boot, f.fs, f.scen, f.round, g->runs[side][i].line);
			goto out;
		}
	if (!(runs = realloc(g->runs[side], (g->nruns[side] + 1) * sizeof(*runs)))) {
		err = cli_fail_errno(ENOMEM, "%s:%zu", in->path, in->lineno);
		goto out;
	}
	g->runs[side] = runs;
	runs[g->nruns[side]++] = r;
	return 0;
out:
	free(r.v);
	return err;
}

/* side's runs of g from the run of boot_base. */
static size_t rows_of(const struct group *g, int side, long boot_base)
{
	size_t n = 0;

	for (size_t i = 0; i < g->nruns[side]; i++)
		n += g->runs[side][i].boot > boot_base && g->runs[side][i].boot <= boot_base + (long)ID_MAX;
	return n;
}

/* A gate run (meta.txt gives boots and ROUNDS) has every round of every
 * boot, and one phase run a boot: a file cut at a line's end is refused. */
static int check_complete(const struct groups *gs, int side, long boot_base, const struct meta *m,
			  const char *path)
{
	if (m->boots <= 0 || m->rounds <= 0)
		return 0;
	for (size_t i = 0; i < gs->n; i++) {
		const struct group *g = &gs->g[i];
		size_t n = rows_of(g, side, boot_base);

		if (is_phase(g->scen) && n && n != (size_t)m->boots)
			return bad(path, 0, "%zu rows of %s %s, want %ld (meta.txt's boots=%ld, one phase run a boot)",
				   n, g->fs, g->scen, m->boots, m->boots);
		if (!is_phase(g->scen) && n && n != (size_t)(m->boots * m->rounds))
			return bad(path, 0, "%zu rows of %s %s, want %ld (meta.txt's boots=%ld x ROUNDS=%ld)",
				   n, g->fs, g->scen, m->boots * m->rounds, m->boots, m->rounds);
	}
	return 0;
}

const struct group *lookup_group(const struct groups *gs, const char *fs, const char *scen)
{
	for (size_t i = 0; i < gs->n; i++)
		if (!strcmp(gs->g[i].fs, fs) && !strcmp(gs->g[i].scen, scen))
			return &gs->g[i];
	return NULL;
}

/* FS:SCEN is a word of meta.txt's SCENARIOS_ABSENT: a scenario that
 * filesystem cannot give (a reflinked file on ext4), not run. */
static bool absent_by_design(const struct meta *m, const char *fs, const char *scen)
{
	const struct meta_kv *kv = meta_get(m, "SCENARIOS_ABSENT");
	char want[320];
	size_t n;

	if (!kv)
		return false;
	n = (size_t)snprintf(want, sizeof(want), "%s:%s", fs, scen);
	for (const char *s = kv->val; *(s += strspn(s, " ")); s += strcspn(s, " "))
		if (strcspn(s, " ") == n && !strncmp(s, want, n))
			return true;
	return false;
}

/* Every scenario meta.txt's SCENARIOS lists, on each filesystem the run
 * has rows of (but those SCENARIOS_ABSENT names). */
static int check_scenarios(const struct groups *gs, int side, long boot_base, const struct meta *m,
			   const char *path)
{
	const struct meta_kv *kv = meta_get(m, "SCENARIOS");

	for (size_t i = 0; kv && i < gs->n; i++) {
		const char *fs = gs->g[i].fs, *s = kv->val;
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(gs->g[j].fs, fs) && rows_of(&gs->g[j], side, boot_base);
		if (seen || !rows_of(&gs->g[i], side, boot_base))
			continue;
		while (*(s += strspn(s, " "))) {
			size_t len = strcspn(s, " ");
			char scen[256];
			const struct group *g;

			snprintf(scen, sizeof(scen), "%.*s", (int)len, s);
			s += len;
			if (absent_by_design(m, fs, scen))
				continue;
			if (!(g = lookup_group(gs, fs, scen)) || !rows_of(g, side, boot_base))
				return bad(path, 0, "no rows of %s %.63s, which meta.txt's SCENARIOS lists", fs, scen);
		}
	}
	return 0;
}

/* DIR/samples.txt into side's groups, checked by DIR's meta.txt (m). */
static int read_samples(struct groups *gs, int side, long boot_base, const char *dir, const struct meta *m,
			size_t *lines)
{
	struct input in;
	bool got;
	int err;

	if ((err = open_input(&in, dir, "samples.txt", false)))
		return err;
	while (!(err = next_line(&in, &got)) && got && !(err = add_line(gs, side, boot_base, m, &in)))
		;
	*lines = in.lineno;
	if (!err && !in.lineno)
		err = bad(in.path, 0, "empty");
	if (!err && !(err = check_complete(gs, side, boot_base, m, in.path)))
		err = check_scenarios(gs, side, boot_base, m, in.path);
	close_input(&in);
	return err;
}

/* A run: DIR's meta.txt into m, then its samples.txt. */
int read_run(struct groups *gs, int side, long boot_base, const char *dir, struct meta *m, size_t *lines)
{
	int err = read_meta(dir, m);

	return err ? err : read_samples(gs, side, boot_base, dir, m, lines);
}

void free_groups(struct groups *gs)
{
	for (size_t i = 0; i < gs->n; i++)
		for (int s = 0; s < NSIDES; s++) {
			for (size_t r = 0; r < gs->g[i].nruns[s]; r++)
				free(gs->g[i].runs[s][r].v);
			free(gs->g[i].runs[s]);
		}
	free(gs->g);
}
