// SPDX-License-Identifier: GPL-2.0
/*
 * pmverify: the verifier of the MAP_SYNC crash test.
 *
 * Reads back a file pmwrite wrote before a crash and classifies every page
 * (lib/pmpattern.h): ok, zero (hole, unwritten extent, lost allocation),
 * stale (another run's or generation's page), misplaced (ours, other
 * offset), torn (bad checksum or content), garbage, beyond_eof, nofile.
 * Every page below the recorded point (-r, what the host received from the
 * writer before the crash) must be ok; a page that is not is LOST. Pages at
 * or after the recorded point may be anything and are only counted.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli.h"
#include "exitcodes.h"
#include "json.h"
#include "pmpattern.h"
#include "pmverdict.h"

#define TOOL		"pmverify"
#define JSON_VERSION	1
#define MAX_LISTED	16

static struct env {
	const char *path;
	struct pmp_ident id;	/* -n -s -g -w, as pmwrite was given them */
	struct pmv_opts vopts;	/* -r -j -L */
	bool verbose;
} env = {
	.id = PMP_IDENT_DEFAULT,
};

struct listed {
	uint64_t index;
	enum pmp_class cls;
	struct pmp_header found;
};

struct result {
	bool file_exists;
	uint64_t file_size;
	uint64_t before[PMP_NR_CLASSES];	/* pages below the recorded point */
	uint64_t after[PMP_NR_CLASSES];		/* pages at or after it */
	uint64_t leading_ok;			/* ok pages from 0 without a gap */
	struct listed lost[MAX_LISTED];
	unsigned int nlisted;
	uint64_t lost_total;
};

const char *argp_program_version = TOOL " 1";
const char argp_program_doc[] =
"Check a file written by pmwrite after a crash: every page below the recorded\n"
"point must hold exactly its pattern (magic, run id, generation, index,\n"
"payload, checksum). Pages at or after the point may hold anything.\n"
"\n"
"USAGE: pmverify -f FILE [-n PAGES] [-s SEED] [-g GEN] [-w WRITER]\n"
"                [-r RECORDED] [-j] [-L KEY=VALUE]... [-v]\n"
"\n"
"EXAMPLES:\n"
"    pmverify -f /mnt/dax/f -r 120        # pages 0..119 must be intact\n"
"    pmverify -f /mnt/dax/f -s 7 -g 3 -w 1 -r 256   # the identity pmwrite used\n"
"    pmverify -f /mnt/dax/f -r 120 -j -L fs=ext4 -L map=sync  # one JSON line\n"
"\n"
"Exit status: 0 nothing lost, 10 pages below the recorded point are not\n"
"intact, 1 runtime error, 2 usage, 13 FILE was written with other -n -s -g -w\n"
"(FILE.ident, written by pmwrite) or its record is missing: no verdict.\n";

static const struct argp_option opts[] = {
	{ "file", 'f', "PATH", 0, "File to check (required); a missing file counts as pages 'nofile'", 0 },
	PMP_IDENT_OPTIONS,
	PMV_OPTIONS("Pages known finished before the crash, 0..PAGES (default: all)"),
	{ "verbose", 'v', NULL, 0, "List every page that is not ok on stderr", 0 },
	CLI_OPT_HELP,
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (pmp_ident_option(&env.id, key, arg) || pmv_option(&env.vopts, key, arg))
		return 0;
	switch (key) {
	case 'f':
		env.path = cli_nonempty_arg("--file", arg);
		break;
	case 'v':
		env.verbose = true;
		break;
	case ARGP_KEY_END:
		if (!env.path)
			cli_usage_error("--file is required");
		pmv_options_end(&env.vopts, &env.id);
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}

static void account(struct result *res, uint64_t index, enum pmp_class cls,
		    const struct pmp_header *found)
{
	bool before = index < env.vopts.recorded;

	if (before)
		res->before[cls]++;
	else
		res->after[cls]++;
	if (cls == PMP_OK && res->leading_ok == index)
		res->leading_ok = index + 1;
	if (before && cls != PMP_OK) {
		res->lost_total++;
		if (res->nlisted < MAX_LISTED) {
			struct listed *l = &res->lost[res->nlisted++];

			l->index = index;
			l->cls = cls;
			if (found)
				l->found = *found;
			else
				memset(&l->found, 0, sizeof(l->found));
		}
	}
	if (cls != PMP_OK && env.verbose)
		fprintf(stderr, TOOL ": page %llu: %s%s\n", (unsigned long long)index,
			pmp_class_name(cls), before ? " (LOST: below the recorded point)" : "");
}

/*
 * The data file says who wrote it (FILE.ident): a verdict against other
 * parameters would call a usage mismatch data loss.
 */
static int check_ident(void)
{
	struct pmp_ident written;
	int err = pmp_ident_load(env.path, &written);

	if (err == ENOENT)
		return cli_fail(EXIT_PARAM_MISMATCH, "%s.ident is missing: no record of the writer's "
				"parameters, no verdict", env.path);
	if (err)
		return cli_fail(EXIT_PARAM_MISMATCH, "%s.ident is unreadable: no verdict", env.path);
	if (!pmp_ident_equal(&written, &env.id))
		return cli_fail(EXIT_PARAM_MISMATCH, "%s was written with -n %llu -s %llu -g %llu -w %llu, "
				"not -n %llu -s %llu -g %llu -w %llu: no verdict", env.path,
				(unsigned long long)written.pages, (unsigned long long)written.seed,
				(unsigned long long)written.generation, (unsigned long long)written.writer,
				(unsigned long long)env.id.pages, (unsigned long long)env.id.seed,
				(unsigned long long)env.id.generation, (unsigned long long)env.id.writer);
	return 0;
}

static int check_file(struct result *res)
{
	const struct pmp_key key = pmp_ident_key(&env.id);
	uint64_t buf[PMP_WORDS];
	struct stat st;
	int fd, err = 0;

	fd = open(env.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		return cli_fail(EXIT_RUNTIME, "open %s: %s", env.path, strerror(errno));
	if (fd < 0) {
		for (uint64_t i = 0; i < env.id.pages; i++)
			account(res, i, PMP_NOFILE, NULL);
		return 0;
	}
	res->file_exists = true;
	if ((err = check_ident())) {
		close(fd);
		return err;
	}
	if (fstat(fd, &st)) {
		err = cli_fail(EXIT_RUNTIME, "fstat %s: %s", env.path, strerror(errno));
		goto out;
	}
	res->file_size = (uint64_t)st.st_size;
	for (uint64_t i = 0; i < env.id.pages; i++) {
		struct pmp_header found;
		size_t got = 0;

		if ((i + 1) * PMP_PAGE_SIZE > res->file_size) {
			account(res, i, PMP_BEYOND_EOF, NULL);
			continue;
		}
		while (got < PMP_PAGE_SIZE) {
			ssize_t n = pread(fd, (char *)buf + got, PMP_PAGE_SIZE - got,
					  (off_t)(i * PMP_PAGE_SIZE + got));

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				err = cli_fail(EXIT_RUNTIME, "read page %llu of %s: %s",
					       (unsigned long long)i, env.path, strerror(errno));
				goto out;
			}
			if (n == 0) {
				err = cli_fail(EXIT_RUNTIME, "read page %llu of %s: short file",
					       (unsigned long long)i, env.path);
				goto out;
			}
			got += (size_t)n;
		}
		account(res, i, pmp_classify(buf, &key, i, &found), &found);
	}
out:
	close(fd);
	return err;
}

static uint64_t sum(const uint64_t *counts)
{
	uint64_t s = 0;

	for (int c = 0; c < PMP_NR_CLASSES; c++)
		s += counts[c];
	return s;
}

static void print_text(const struct result *res)
{
	printf("%s: %llu pages, recorded %llu: verified %llu, lost %llu",
	       env.path, (unsigned long long)env.id.pages,
	       (unsigned long long)env.vopts.recorded,
	       (unsigned long long)res->before[PMP_OK],
	       (unsigned long long)res->lost_total);
	if (res->lost_total) {
		const char *sep = " (";

		for (int c = PMP_ZERO; c < PMP_NR_CLASSES; c++) {
			if (!res->before[c])
				continue;
			printf("%s%s %llu", sep, pmp_class_name(c),
			       (unsigned long long)res->before[c]);
			sep = ", ";
		}
		printf(", first at page %llu)", (unsigned long long)res->lost[0].index);
	}
	printf("; after the record: %llu of %llu ok; leading ok %llu; file %s\n",
	       (unsigned long long)res->after[PMP_OK],
	       (unsigned long long)sum(res->after),
	       (unsigned long long)res->leading_ok,
	       res->file_exists ? "exists" : "MISSING");
}

static void json_counts(struct json_writer *w, const char *key, const uint64_t *counts)
{
	json_key(w, key);
	json_begin_object(w);
	for (int c = 0; c < PMP_NR_CLASSES; c++)
		json_kv_uint(w, pmp_class_name(c), counts[c]);
	json_end_object(w);
}

static int print_json(const struct result *res)
{
	struct json_writer w;

	json_init(&w, stdout);
	pmv_json_head(&w, TOOL, JSON_VERSION, &env.vopts, env.path, &env.id);
	json_kv_bool(&w, "file_exists", res->file_exists);
	json_kv_uint(&w, "file_size", res->file_size);
	json_kv_uint(&w, "verified", res->before[PMP_OK]);
	json_kv_uint(&w, "lost", res->lost_total);
	json_kv_uint(&w, "ok_after", res->after[PMP_OK]);
	json_kv_uint(&w, "leading_ok", res->leading_ok);
	json_counts(&w, "before", res->before);
	json_counts(&w, "after", res->after);
	json_key(&w, "lost_pages");
	json_begin_array(&w);
	for (unsigned int i = 0; i < res->nlisted; i++) {
		const struct listed *l = &res->lost[i];

		json_begin_object(&w);
		json_kv_uint(&w, "index", l->index);
		json_kv_string(&w, "class", pmp_class_name(l->cls));
		if (l->cls == PMP_STALE || l->cls == PMP_MISPLACED || l->cls == PMP_TORN) {
			json_kv_uint(&w, "found_generation", l->found.generation);
			json_kv_uint(&w, "found_index", l->found.index);
		}
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	return cli_json_finish(&w);
}

int main(int argc, char **argv)
{
	struct result *res;
	int err;

	cli_parse_args(TOOL, opts, parse_arg, argp_program_doc, argc, argv);
	res = calloc(1, sizeof(*res));
	if (!res)
		return cli_fail(EXIT_RUNTIME, "out of memory");
	if ((err = check_file(res)))
		goto cleanup;
	if (env.vopts.json) {
		if ((err = print_json(res)))
			goto cleanup;
	} else {
		print_text(res);
		if (fflush(stdout) || ferror(stdout)) {
			err = cli_fail(EXIT_RUNTIME, "write stdout: %s", strerror(errno));
			goto cleanup;
		}
	}
	err = res->lost_total ? EXIT_DATA_LOST : EXIT_OK;
cleanup:
	free(res);
	return err;
}
