// SPDX-License-Identifier: GPL-2.0
/* KTAP v1 with a counted plan: see ktap.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"

int ktap_begin(struct ktap *k, FILE *dst)
{
	memset(k, 0, sizeof(*k));
	k->dst = dst;
	k->planned = -1;
	k->mem = open_memstream(&k->buf, &k->len);
	return k->mem ? 0 : -1;
}

void ktap_begin_plan(struct ktap *k, FILE *dst, int n)
{
	memset(k, 0, sizeof(*k));
	k->dst = dst;
	k->planned = n;
	fprintf(dst, "KTAP version 1\n1..%d\n", n);
}

FILE *ktap_file(struct ktap *k)
{
	return k->mem ? k->mem : k->dst;
}

/* @fmt's text on one line. */
static void put_text(FILE *f, const char *fmt, va_list ap)
{
	char text[4096];

	vsnprintf(text, sizeof(text), fmt, ap);
	for (char *p = text; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fputs(text, f);
}

void ktap_diag(struct ktap *k, const char *fmt, ...)
{
	FILE *f = ktap_file(k);
	va_list ap;

	fputs("# ", f);
	va_start(ap, fmt);
	put_text(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void result_line(struct ktap *k, const char *status, const char *name,
			const char *directive, const char *fmt, va_list ap)
{
	FILE *f = ktap_file(k);

	fprintf(f, "%s %d %s", status, ++k->n, name);
	if (fmt) {
		fprintf(f, " # %s", directive);
		put_text(f, fmt, ap);
	}
	fputc('\n', f);
	fflush(f);
}

void ktap_result(struct ktap *k, bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		k->pass++;
	else
		k->fail++;
	va_start(ap, fmt);
	result_line(k, ok ? "ok" : "not ok", name, "", fmt, ap);
	va_end(ap);
}

void ktap_skip(struct ktap *k, const char *name, const char *fmt, ...)
{
	va_list ap;

	k->skip++;
	va_start(ap, fmt);
	result_line(k, "ok", name, "SKIP ", fmt ? fmt : "", ap);
	va_end(ap);
}

enum ktap_verdict ktap_end(struct ktap *k)
{
	bool miscounted = k->planned >= 0 && k->planned != k->n;

	if (k->mem) {
		fclose(k->mem);
		fprintf(k->dst, "KTAP version 1\n1..%d\n", k->n);
		fwrite(k->buf, 1, k->len, k->dst);
		free(k->buf);
		k->mem = NULL, k->buf = NULL;
	}
	if (miscounted)
		fprintf(k->dst, "# plan was %d results, %d were given\n", k->planned, k->n);
	fprintf(k->dst, "# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:%d\n",
		k->pass, k->fail, k->skip, miscounted);
	fflush(k->dst);
	if (k->fail || miscounted)
		return KTAP_FAILED;
	return k->skip && !k->pass ? KTAP_ALL_SKIPPED : KTAP_PASSED;
}
