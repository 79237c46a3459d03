// SPDX-License-Identifier: GPL-2.0
/* Unit tests of daxlat's user-space helpers: kallsyms lookup, stack store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
/*
 * The helpers are compiled in here so the generic tests/unit rule (which
 * links only LIB_OBJS) builds this test, with or without bpf/bpf.mk.
 */
#include "../../bpf/daxlat_util.c"

/* Unsorted on purpose, with data symbols, aliases, a clone and a module. */
static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81200000 t dax_iomap_pte_fault\n"
	"ffffffff81100000 T dax_iomap_fault\n"
	"ffffffff81100800 T dax_finish_sync_fault\n"
	"ffffffff82000000 D some_data\n"
	"ffffffff81300000 t __xfs_write_fault.constprop.0\n"
	"ffffffff81300400 t ext4_sync_file.cold\n"
	"ffffffff81300500 T ext4_sync_file\n"
	"ffffffffc0100000 t __xfs_filemap_fault\t[xfs]\n"
	"ffffffffc0100200 t xfs_log_force_seq\t[xfs]\n"
	"garbage line\n";

static struct ksyms *parse(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct ksyms *ks;

	if (!f)
		return NULL;
	ks = ksyms_parse(f);
	fclose(f);
	return ks;
}

static void test_ksyms_parse_text_only(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse(kallsyms_text);

	KTAP_EXPECT(t, ks != NULL, "parse failed");
	if (!ks)
		return;
	/* 10 text symbols; the D symbol and the garbage line are dropped. */
	KTAP_EXPECT(t, ks->n == 10, "n = %zu, want 10", ks->n);
	KTAP_EXPECT(t, !ks->all_zero, "all_zero set");
	for (size_t i = 1; i < ks->n; i++)
		KTAP_EXPECT(t, ks->syms[i - 1].addr <= ks->syms[i].addr,
			    "not sorted at %zu", i);
	KTAP_EXPECT(t, ksyms_by_name(ks, "some_data") == NULL, "data symbol kept");
	ksyms_free(ks);
}

static void test_ksyms_find(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse(kallsyms_text);
	const struct ksym *s;

	if (!ks) {
		KTAP_EXPECT(t, 0, "parse failed");
		return;
	}
	s = ksyms_find(ks, 0xffffffff81100010UL);
	KTAP_EXPECT(t, s && !strcmp(s->name, "dax_iomap_fault"), "got %s",
		    s ? s->name : "NULL");
	s = ksyms_find(ks, 0xffffffff81100800UL);
	KTAP_EXPECT(t, s && !strcmp(s->name, "dax_finish_sync_fault"),
		    "exact start: got %s", s ? s->name : "NULL");
	/* Aliases: the lexically first name. */
	s = ksyms_find(ks, 0xffffffff81000004UL);
	KTAP_EXPECT(t, s && !strcmp(s->name, "_text"), "alias: got %s",
		    s ? s->name : "NULL");
	s = ksyms_find(ks, 0xffffffff80ffffffUL);
	KTAP_EXPECT(t, s == NULL, "below the first symbol: got %s", s ? s->name : "");
	s = ksyms_find(ks, 0xffffffffc0100210UL);
	KTAP_EXPECT(t, s && s->module && !strcmp(s->module, "xfs") &&
		    !strcmp(s->name, "xfs_log_force_seq"), "module symbol: got %s [%s]",
		    s ? s->name : "NULL", s && s->module ? s->module : "");
	/* Far past the last module symbol: a BPF trampoline, unnamed. */
	s = ksyms_find(ks, 0xffffffffc0100200UL + KSYM_MAX_OFFSET + 1);
	KTAP_EXPECT(t, s == NULL, "far address named %s", s ? s->name : "");
	ksyms_free(ks);
}

static void test_ksyms_probe_name(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse(kallsyms_text);
	const char *n;

	if (!ks) {
		KTAP_EXPECT(t, 0, "parse failed");
		return;
	}
	n = ksyms_probe_name(ks, "dax_iomap_fault");
	KTAP_EXPECT(t, n && !strcmp(n, "dax_iomap_fault"), "exact: %s", n ? n : "NULL");
	n = ksyms_probe_name(ks, "__xfs_write_fault");
	KTAP_EXPECT(t, n && !strcmp(n, "__xfs_write_fault.constprop.0"),
		    "clone: %s", n ? n : "NULL");
	n = ksyms_probe_name(ks, "ext4_sync_file");
	KTAP_EXPECT(t, n && !strcmp(n, "ext4_sync_file"), "exact before .cold: %s",
		    n ? n : "NULL");
	n = ksyms_probe_name(ks, "dax_iomap");	/* a prefix only */
	KTAP_EXPECT(t, n == NULL, "prefix matched %s", n ? n : "");
	n = ksyms_probe_name(ks, "nothing_here");
	KTAP_EXPECT(t, n == NULL, "absent matched %s", n ? n : "");
	ksyms_free(ks);
}

static void test_ksyms_format(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse(kallsyms_text);
	char buf[128];

	if (!ks) {
		KTAP_EXPECT(t, 0, "parse failed");
		return;
	}
	KTAP_EXPECT_TEXT(t, ksyms_format(ks, 0xffffffff8110001aUL, buf, sizeof(buf)),
			 "dax_iomap_fault+0x1a");
	KTAP_EXPECT_TEXT(t, ksyms_format(ks, 0xffffffffc0100004UL, buf, sizeof(buf)),
			 "__xfs_filemap_fault+0x4 [xfs]");
	KTAP_EXPECT_TEXT(t, ksyms_format(ks, 0x1234UL, buf, sizeof(buf)), "0x1234");
	ksyms_free(ks);
}

static void test_ksyms_hidden_addresses(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse("0000000000000000 T a\n0000000000000000 t b\n");
	char buf[64];

	KTAP_EXPECT(t, ks && ks->all_zero, "all_zero not detected");
	if (!ks)
		return;
	KTAP_EXPECT(t, ksyms_find(ks, 0x10) == NULL, "found a symbol by a hidden address");
	KTAP_EXPECT_TEXT(t, ksyms_format(ks, 0x10, buf, sizeof(buf)), "0x10");
	/* Names still resolve, for kprobes. */
	KTAP_EXPECT(t, ksyms_probe_name(ks, "b") != NULL, "name lookup failed");
	ksyms_free(ks);
}

static struct stack_event ev(__u64 lat)
{
	struct stack_event e;

	memset(&e, 0, sizeof(e));
	e.lat_ns = lat;
	return e;
}

static void test_evstore_keeps_slowest(struct ktap_case_ctx *t)
{
	static const __u64 lats[] = { 50, 10, 70, 30, 90, 20, 60 };
	struct evstore s;

	KTAP_EXPECT(t, !evstore_init(&s, 3, true), "init");
	for (size_t i = 0; i < sizeof(lats) / sizeof(*lats); i++) {
		struct stack_event e = ev(lats[i]);

		evstore_add(&s, &e);
		if (i == 1)
			KTAP_EXPECT(t, evstore_floor(&s) == 0, "floor before full: %llu",
				    (unsigned long long)evstore_floor(&s));
	}
	evstore_sort(&s);
	KTAP_EXPECT(t, s.n == 3, "n = %zu", s.n);
	KTAP_EXPECT(t, s.ev[0].lat_ns == 90 && s.ev[1].lat_ns == 70 &&
		    s.ev[2].lat_ns == 60, "kept %llu %llu %llu",
		    (unsigned long long)s.ev[0].lat_ns, (unsigned long long)s.ev[1].lat_ns,
		    (unsigned long long)s.ev[2].lat_ns);
	KTAP_EXPECT(t, evstore_floor(&s) == 60, "floor %llu",
		    (unsigned long long)evstore_floor(&s));
	KTAP_EXPECT(t, s.dropped == 0, "dropped %llu", s.dropped);
	evstore_free(&s);
}

static void test_evstore_threshold_mode(struct ktap_case_ctx *t)
{
	struct evstore s;

	KTAP_EXPECT(t, !evstore_init(&s, 2, false), "init");
	for (__u64 i = 1; i <= 5; i++) {
		struct stack_event e = ev(i * 100);

		evstore_add(&s, &e);
	}
	/* Arrival order kept, the rest counted. */
	KTAP_EXPECT(t, s.n == 2 && s.ev[0].lat_ns == 100 && s.ev[1].lat_ns == 200,
		    "n %zu first %llu", s.n, (unsigned long long)s.ev[0].lat_ns);
	KTAP_EXPECT(t, s.dropped == 3, "dropped %llu", s.dropped);
	KTAP_EXPECT(t, evstore_floor(&s) == 0, "threshold mode has a floor");
	evstore_clear(&s);
	KTAP_EXPECT(t, s.n == 0 && s.dropped == 0, "clear");
	evstore_free(&s);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_ksyms_parse_text_only),
	KTAP_CASE(test_ksyms_find),
	KTAP_CASE(test_ksyms_probe_name),
	KTAP_CASE(test_ksyms_format),
	KTAP_CASE(test_ksyms_hidden_addresses),
	KTAP_CASE(test_evstore_keeps_slowest),
	KTAP_CASE(test_evstore_threshold_mode),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
