/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every verifier of the crash test (validate/crash/: pmverify for
 * pmwrite's files, pmobjtx --verify for PMDK pools) shares: the labels the
 * harness passes (-L KEY=VALUE) and the head of the one JSON line each
 * prints, so that crash.sh reads both alike.
 */
#ifndef SUITE_PMVERDICT_H
#define SUITE_PMVERDICT_H

#include <stdint.h>

#include "pmpattern.h"

struct json_writer;

#define PMV_MAX_LABELS 16

struct pmv_labels {
	const char *keys[PMV_MAX_LABELS];
	const char *values[PMV_MAX_LABELS];
	int n;
};

/* -L KEY=VALUE into @l (@arg is split in place); a bad one is a usage error. */
void pmv_label_add(struct pmv_labels *l, char *arg);

/*
 * Opens the JSON object and writes its head: tool, version, labels, file,
 * seed, generation, writer, pages, recorded. The caller adds its verdict
 * and closes the object.
 */
void pmv_json_head(struct json_writer *w, const char *tool, unsigned int version,
		   const struct pmv_labels *l, const char *path, const struct pmp_ident *id,
		   uint64_t recorded);

#endif /* SUITE_PMVERDICT_H */
