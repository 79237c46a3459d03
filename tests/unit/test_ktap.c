// SPDX-License-Identifier: GPL-2.0
/* The C KTAP emitter (lib/ktap.c): counted plans, held lines, miscounts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"	/* tests/unit/ktap.h, on lib/ktap.h */

static char *buf;
static size_t len;

static FILE *capture(void)
{
	free(buf);
	buf = NULL;
	return open_memstream(&buf, &len);
}

static void test_counted_plan(struct ktap_case_ctx *t)
{
	FILE *f = capture();
	struct ktap k;
	enum ktap_verdict v;

	KTAP_EXPECT(t, ktap_begin(&k, f) == 0, "ktap_begin");
	ktap_diag(&k, "first %d", 1);
	ktap_result(&k, true, "a", NULL);
	ktap_result(&k, false, "b", "why\nnot");
	ktap_skip(&k, "c", "later");
	v = ktap_end(&k);
	fclose(f);
	KTAP_EXPECT_TEXT(t, buf, "KTAP version 1\n1..3\n# first 1\nok 1 a\nnot ok 2 b # why not\n"
			 "ok 3 c # SKIP later\n# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0\n");
	KTAP_EXPECT(t, v == KTAP_FAILED, "verdict %d", v);
}

static void test_all_skipped(struct ktap_case_ctx *t)
{
	FILE *f = capture();
	struct ktap k;

	ktap_begin(&k, f);
	ktap_skip(&k, "c", "nothing");
	KTAP_EXPECT(t, ktap_end(&k) == KTAP_ALL_SKIPPED, "only skips");
	fclose(f);
}

static void test_streamed_miscount(struct ktap_case_ctx *t)
{
	FILE *f = capture();
	struct ktap k;
	enum ktap_verdict v;

	ktap_begin_plan(&k, f, 2);
	ktap_result(&k, true, "a", NULL);
	v = ktap_end(&k);
	fclose(f);
	KTAP_EXPECT(t, v == KTAP_FAILED && strstr(buf, "# plan was 2 results, 1 were given") &&
		    strstr(buf, "error:1"), "a short stream fails: %s", buf);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_counted_plan),
	KTAP_CASE(test_all_skipped),
	KTAP_CASE(test_streamed_miscount),
};

int main(void)
{
	int rc = ktap_run(cases, KTAP_COUNT(cases));

	free(buf);
	return rc;
}
