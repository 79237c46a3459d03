/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every verifier of the crash test (validate/crash/: pmverify for
 * pmwrite's files, pmobjtx --verify for PMDK pools) shares: its options
 * -r (the recorded point), -j and -L KEY=VALUE (the labels the harness
 * passes), and the head of the one JSON line each prints, so that crash.sh
 * reads both alike.
 */
#ifndef SUITE_PMVERDICT_H
#define SUITE_PMVERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "pmpattern.h"

struct json_writer;

#define PMV_MAX_LABELS 16

struct pmv_labels {
	const char *keys[PMV_MAX_LABELS];
	const char *values[PMV_MAX_LABELS];
	int n;
};

/* -r, -j and -L, as given (the recorded point defaults to every page). */
struct pmv_opts {
	struct pmv_labels labels;
	uint64_t recorded;
	bool recorded_set, json;
};

/* Those options, for the verifiers' argp tables; @recorded_doc says what a
 * page is to this verifier. */
#define PMV_OPTIONS(recorded_doc)						\
	{ "recorded", 'r', "R", 0, recorded_doc, 0 },				\
	{ "json", 'j', NULL, 0, "One JSON line instead of the text line", 0 },	\
	{ "label", 'L', "KEY=VALUE", 0, "Copy KEY=VALUE into the JSON 'labels' object (repeatable)", 0 }

/*
 * Option @key ('r', 'j' or 'L') with value @arg into @o; false for any other
 * key. A bad value is a usage error (cli.h). @arg of -L is split in place.
 */
bool pmv_option(struct pmv_opts *o, int key, char *arg);

/* At the end of the options: -r defaults to every page of @id, and may not
 * be beyond it (a usage error). */
void pmv_options_end(struct pmv_opts *o, const struct pmp_ident *id);

/*
 * Opens the JSON object and writes its head: tool, version, labels, file,
 * seed, generation, writer, pages, recorded. The caller adds its verdict
 * and closes the object.
 */
void pmv_json_head(struct json_writer *w, const char *tool, unsigned int version,
		   const struct pmv_opts *o, const char *path, const struct pmp_ident *id);

#endif /* SUITE_PMVERDICT_H */
