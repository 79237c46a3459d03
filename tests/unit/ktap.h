/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host unit tests' cases and expectations, on lib/ktap.h (the emitter).
 *
 *	static void test_foo(struct ktap_case_ctx *t)
 *	{
 *		KTAP_EXPECT(t, 1 + 1 == 2, "arithmetic broke: %d", 1 + 1);
 *	}
 *	static const struct ktap_case cases[] = { KTAP_CASE(test_foo), };
 *	int main(void) { return ktap_run(cases, KTAP_COUNT(cases)); }
 *
 * A case passes when no expectation failed. The first failure becomes the
 * "# diag" of its result line; every failure is also printed as a "#"
 * diagnostic line before it, so nothing is lost.
 */
#ifndef SUITE_UNIT_KTAP_H
#define SUITE_UNIT_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/ktap.h"

struct ktap_case_ctx {
	bool failed;
	char diag[256];
};

struct ktap_case {
	const char *name;
	void (*run)(struct ktap_case_ctx *t);
};

#define KTAP_CASE(fn) { #fn, fn }
#define KTAP_COUNT(cases) (sizeof(cases) / sizeof((cases)[0]))

/* Diagnostics must stay on one line each. */
static inline void ktap_flatten(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

__attribute__((format(printf, 4, 5)))
static inline void ktap_fail(struct ktap_case_ctx *t, const char *file,
			     int line, const char *fmt, ...)
{
	char msg[sizeof(t->diag)];
	int len;
	va_list ap;

	len = snprintf(msg, sizeof(msg), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(msg + len, sizeof(msg) - (size_t)len, fmt, ap);
	va_end(ap);
	ktap_flatten(msg);
	printf("# %s\n", msg);
	if (!t->failed)
		memcpy(t->diag, msg, sizeof(msg));
	t->failed = true;
}

#define KTAP_EXPECT(t, cond, ...)                                        \
	do {                                                             \
		if (!(cond))                                             \
			ktap_fail((t), __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

/*
 * Compare two texts; on mismatch print both, line by line, as "#" lines
 * so the difference is readable in the test log.
 */
static inline void ktap_print_text(const char *tag, const char *text)
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		int len = end ? (int)(end - line) : (int)strlen(line);

		printf("# %s|%.*s%s\n", tag, len, line, end ? "" : "<no newline>");
		line += len + (end ? 1 : 0);
	}
}

#define KTAP_EXPECT_TEXT(t, got, expected)                                   \
	do {                                                                 \
		const char *got_ = (got), *exp_ = (expected);                \
		if (strcmp(got_, exp_) != 0) {                               \
			ktap_print_text("expected", exp_);                   \
			ktap_print_text("got     ", got_);                   \
			ktap_fail((t), __FILE__, __LINE__,                   \
				  "text differs from the expected output"); \
		}                                                            \
	} while (0)

static inline int ktap_run(const struct ktap_case *cases, size_t n)
{
	struct ktap k;

	ktap_begin_plan(&k, stdout, (int)n);
	for (size_t i = 0; i < n; i++) {
		struct ktap_case_ctx t = { 0 };

		cases[i].run(&t);
		if (t.failed)
			ktap_result(&k, false, cases[i].name, "%s", t.diag);
		else
			ktap_result(&k, true, cases[i].name, NULL);
	}
	return ktap_end(&k) == KTAP_FAILED ? 1 : 0;
}

#endif /* SUITE_UNIT_KTAP_H */
