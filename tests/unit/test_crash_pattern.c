// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for lib/pmpattern.c, the crash test's page pattern:
 * checksum vectors, identities, and that every kind of damage a crash can
 * leave is classified as what it is (validate/crash/README.md).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "pmpattern.h"

static const struct pmp_key KEY = { .run_id = 0x1234abcd5678ef01ULL, .generation = 7, .pages = 256 };

static void test_fnv1a64_vectors(struct ktap_case_ctx *t)
{
	/* The published FNV-1a 64-bit test vectors. */
	KTAP_EXPECT(t, pmp_fnv1a64("", 0) == 0xcbf29ce484222325ULL, "empty");
	KTAP_EXPECT(t, pmp_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cULL, "\"a\"");
	KTAP_EXPECT(t, pmp_fnv1a64("foobar", 6) == 0x85944171f73967e8ULL, "\"foobar\"");
}

static void test_fill_is_intact_and_deterministic(struct ktap_case_ctx *t)
{
	static uint64_t a[PMP_WORDS], b[PMP_WORDS];
	struct pmp_header h;

	for (uint64_t i = 0; i < KEY.pages; i += 51) {
		pmp_fill(a, &KEY, i);
		pmp_fill(b, &KEY, i);
		KTAP_EXPECT(t, memcmp(a, b, sizeof(a)) == 0, "page %llu differs between two fills",
			    (unsigned long long)i);
		KTAP_EXPECT(t, pmp_classify(a, &KEY, i, &h) == PMP_OK, "page %llu: %s", (unsigned long long)i,
			    pmp_class_name(pmp_classify(a, &KEY, i, NULL)));
		KTAP_EXPECT(t, h.magic == PMP_MAGIC && h.index == i && h.generation == KEY.generation &&
			    h.run_id == KEY.run_id && h.pages == KEY.pages, "header of page %llu",
			    (unsigned long long)i);
		KTAP_EXPECT(t, h.checksum == pmp_page_checksum(a), "checksum word of page %llu",
			    (unsigned long long)i);
	}
	KTAP_EXPECT(t, memcmp((const char *)&a[0], "MSYNCPG1", 8) == 0 || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__,
		    "the magic does not read MSYNCPG1 in memory");
}

static void test_payload_differs_by_identity(struct ktap_case_ctx *t)
{
	static uint64_t a[PMP_WORDS], b[PMP_WORDS];
	struct pmp_key other = KEY;

	pmp_fill(a, &KEY, 3);
	pmp_fill(b, &KEY, 4);
	KTAP_EXPECT(t, memcmp(a + PMP_HDR_WORDS, b + PMP_HDR_WORDS, 64) != 0, "index does not change the payload");
	other.generation++;
	pmp_fill(b, &other, 3);
	KTAP_EXPECT(t, memcmp(a + PMP_HDR_WORDS, b + PMP_HDR_WORDS, 64) != 0, "generation does not change the payload");
	other = KEY;
	other.run_id ^= 1;
	pmp_fill(b, &other, 3);
	KTAP_EXPECT(t, memcmp(a + PMP_HDR_WORDS, b + PMP_HDR_WORDS, 64) != 0, "run id does not change the payload");
}

static void test_zero_page(struct ktap_case_ctx *t)
{
	static uint64_t p[PMP_WORDS];

	memset(p, 0, sizeof(p));
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 0, NULL) == PMP_ZERO, "a hole reads as %s",
		    pmp_class_name(pmp_classify(p, &KEY, 0, NULL)));
}

static void test_stale_generation_and_run(struct ktap_case_ctx *t)
{
	static uint64_t p[PMP_WORDS];
	struct pmp_key old = KEY;
	struct pmp_header h;

	old.generation = KEY.generation - 1;
	pmp_fill(p, &old, 9);
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 9, &h) == PMP_STALE, "older generation: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 9, NULL)));
	KTAP_EXPECT(t, h.generation == old.generation, "found generation %llu",
		    (unsigned long long)h.generation);
	old = KEY;
	old.run_id = pmp_run_id(1, KEY.generation, 5);
	pmp_fill(p, &old, 9);
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 9, NULL) == PMP_STALE, "other writer's page: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 9, NULL)));
}

static void test_misplaced(struct ktap_case_ctx *t)
{
	static uint64_t p[PMP_WORDS];
	struct pmp_header h;

	pmp_fill(p, &KEY, 5);
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 6, &h) == PMP_MISPLACED, "page 5 at offset 6: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 6, NULL)));
	KTAP_EXPECT(t, h.index == 5, "found index %llu", (unsigned long long)h.index);
}

static void test_torn_pages(struct ktap_case_ctx *t)
{
	static uint64_t p[PMP_WORDS], old[PMP_WORDS];
	struct pmp_key prev = KEY;

	/* One bit flipped in the payload. */
	pmp_fill(p, &KEY, 11);
	p[200] ^= 1ULL << 17;
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 11, NULL) == PMP_TORN, "bit flip: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 11, NULL)));

	/* The store stopped half-way over a zeroed block. */
	pmp_fill(p, &KEY, 11);
	memset(p + PMP_WORDS / 2, 0, PMP_PAGE_SIZE / 2);
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 11, NULL) == PMP_TORN, "half written: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 11, NULL)));

	/* New first half over an old generation's second half. */
	prev.generation--;
	pmp_fill(old, &prev, 11);
	pmp_fill(p, &KEY, 11);
	memcpy(p + PMP_WORDS / 2, old + PMP_WORDS / 2, PMP_PAGE_SIZE / 2);
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 11, NULL) == PMP_TORN, "new over old: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 11, NULL)));

	/* Consistent checksum, wrong content: the page count was changed. */
	pmp_fill(p, &KEY, 11);
	p[4] = KEY.pages + 1;
	p[PMP_WORDS - 1] = pmp_page_checksum(p);
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 11, NULL) == PMP_TORN, "re-checksummed wrong page count: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 11, NULL)));

	/* Only the last word (the checksum) missing. */
	pmp_fill(p, &KEY, 11);
	p[PMP_WORDS - 1] = 0;
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 11, NULL) == PMP_TORN, "checksum missing: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 11, NULL)));
}

static void test_garbage(struct ktap_case_ctx *t)
{
	static uint64_t p[PMP_WORDS];
	uint64_t s = 99;

	for (size_t i = 0; i < PMP_WORDS; i++)
		p[i] = pmp_splitmix64(&s);
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 0, NULL) == PMP_GARBAGE, "random bytes: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 0, NULL)));
	/* The header's first word lost, the rest intact. */
	pmp_fill(p, &KEY, 0);
	p[0] = 0;
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 0, NULL) == PMP_GARBAGE, "no magic: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 0, NULL)));
	/* A page of 0xff (erased flash, poisoned pattern). */
	memset(p, 0xff, sizeof(p));
	KTAP_EXPECT(t, pmp_classify(p, &KEY, 0, NULL) == PMP_GARBAGE, "all ones: %s",
		    pmp_class_name(pmp_classify(p, &KEY, 0, NULL)));
}

static void test_run_ids(struct ktap_case_ctx *t)
{
	enum { SEEDS = 4, GENS = 30, WRITERS = 12, N = SEEDS * GENS * WRITERS };
	static uint64_t ids[N];
	size_t n = 0;

	for (uint64_t s = 0; s < SEEDS; s++)
		for (uint64_t g = 0; g < GENS; g++)
			for (uint64_t w = 0; w < WRITERS; w++)
				ids[n++] = pmp_run_id(s, g, w);
	for (size_t i = 0; i < N; i++) {
		KTAP_EXPECT(t, ids[i] != 0, "run id %zu is 0", i);
		for (size_t j = i + 1; j < N; j++)
			if (ids[i] == ids[j]) {
				KTAP_EXPECT(t, 0, "run ids %zu and %zu collide", i, j);
				return;
			}
	}
	KTAP_EXPECT(t, pmp_run_id(5, 6, 7) == pmp_run_id(5, 6, 7), "not deterministic");
}

static void test_class_names(struct ktap_case_ctx *t)
{
	for (int i = 0; i < PMP_NR_CLASSES; i++) {
		const char *n = pmp_class_name(i);

		KTAP_EXPECT(t, n && *n && strcmp(n, "invalid") != 0, "class %d has no name", i);
		for (int j = 0; j < i; j++)
			KTAP_EXPECT(t, strcmp(n, pmp_class_name(j)) != 0, "classes %d and %d share '%s'", i, j, n);
	}
	KTAP_EXPECT(t, strcmp(pmp_class_name(PMP_NR_CLASSES), "invalid") == 0, "out of range");
	KTAP_EXPECT(t, strcmp(pmp_class_name(PMP_OK), "ok") == 0 &&
		    strcmp(pmp_class_name(PMP_ZERO), "zero") == 0, "JSON keys changed");
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_fnv1a64_vectors),
	KTAP_CASE(test_fill_is_intact_and_deterministic),
	KTAP_CASE(test_payload_differs_by_identity),
	KTAP_CASE(test_zero_page),
	KTAP_CASE(test_stale_generation_and_run),
	KTAP_CASE(test_misplaced),
	KTAP_CASE(test_torn_pages),
	KTAP_CASE(test_garbage),
	KTAP_CASE(test_run_ids),
	KTAP_CASE(test_class_names),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
