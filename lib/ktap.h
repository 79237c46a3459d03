/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP v1 output for the C tools and unit tests: the one C emitter (the
 * shell one is lib/ktap.sh). The plan is counted, never written by hand:
 *
 *	struct ktap k;
 *	ktap_begin(&k, stdout);			results are held in memory
 *	ktap_diag(&k, "kernel %s", rel);
 *	ktap_result(&k, ok, "probes_attached", "%s", why);
 *	ktap_skip(&k, "workload", "not run");
 *	return ktap_end(&k);	version, "1..N" (N = the results), lines, totals
 *
 * ktap_begin_plan(&k, stdout, n) streams instead, for a caller that knows n
 * (the unit tests: one result per case); ktap_end() then fails the run if
 * the count differs. Text for diagnostics may also be written to
 * ktap_file(&k) directly, as whole "# ..." lines.
 */
#ifndef SUITE_KTAP_H
#define SUITE_KTAP_H

#include <stdbool.h>
#include <stdio.h>

struct ktap {
	FILE *dst;		/* where it all goes */
	FILE *mem;		/* held lines (ktap_begin); NULL when streaming */
	char *buf;
	size_t len;
	int planned;		/* ktap_begin_plan's n, -1 when counted */
	int n, pass, fail, skip;
};

/* What ktap_end() says of the run. */
enum ktap_verdict { KTAP_PASSED, KTAP_FAILED, KTAP_ALL_SKIPPED };

/* 0, or -1 (errno) when no memory for the held lines. */
int ktap_begin(struct ktap *k, FILE *dst);
void ktap_begin_plan(struct ktap *k, FILE *dst, int n);
FILE *ktap_file(struct ktap *k);

__attribute__((format(printf, 2, 3)))
void ktap_diag(struct ktap *k, const char *fmt, ...);
/* "ok N NAME # why" / "not ok N NAME # why"; @fmt NULL: no "# " part.
 * Newlines in the text become spaces: one result, one line. */
__attribute__((format(printf, 4, 5)))
void ktap_result(struct ktap *k, bool ok, const char *name, const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void ktap_skip(struct ktap *k, const char *name, const char *fmt, ...);

/* Print what was held (with its plan) and the totals line; frees. A
 * streamed run whose count differs from its plan is KTAP_FAILED. */
enum ktap_verdict ktap_end(struct ktap *k);

#endif /* SUITE_KTAP_H */
