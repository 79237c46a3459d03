// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for lib/hist.c: slots, statistics and both printers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "json.h"
#include "ktap.h"

/* Capture what a printer writes into a heap string. */
struct capture {
	char *text;
	size_t len;
	FILE *stream;
};

static FILE *capture_begin(struct capture *c)
{
	c->text = NULL;
	c->len = 0;
	c->stream = open_memstream(&c->text, &c->len);
	return c->stream;
}

static const char *capture_end(struct capture *c)
{
	fclose(c->stream);
	return c->text;
}

static void test_slot_boundaries(struct ktap_case_ctx *t)
{
	static const struct {
		uint64_t value;
		unsigned int slot;
	} cases[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 2 }, { 4, 3 }, { 7, 3 },
		{ 8, 4 }, { 15, 4 }, { 16, 5 }, { (1ULL << 32) - 1, 32 },
		{ 1ULL << 32, 33 }, { (1ULL << 63) - 1, 63 }, { 1ULL << 63, 64 },
		{ UINT64_MAX, 64 },
	};

	for (size_t i = 0; i < KTAP_COUNT(cases); i++) {
		unsigned int slot = hist_slot(cases[i].value);

		KTAP_EXPECT(t, slot == cases[i].slot,
			    "value %llu: slot %u, want %u",
			    (unsigned long long)cases[i].value, slot,
			    cases[i].slot);
		KTAP_EXPECT(t, hist_slot_lo(slot) <= cases[i].value &&
			       cases[i].value <= hist_slot_hi(slot),
			    "value %llu outside its slot's range",
			    (unsigned long long)cases[i].value);
	}
}

static void test_slot_ranges(struct ktap_case_ctx *t)
{
	KTAP_EXPECT(t, hist_slot_lo(0) == 0 && hist_slot_hi(0) == 0, "slot 0");
	KTAP_EXPECT(t, hist_slot_lo(1) == 1 && hist_slot_hi(1) == 1, "slot 1");
	KTAP_EXPECT(t, hist_slot_lo(2) == 2 && hist_slot_hi(2) == 3, "slot 2");
	KTAP_EXPECT(t, hist_slot_lo(3) == 4 && hist_slot_hi(3) == 7, "slot 3");
	KTAP_EXPECT(t, hist_slot_lo(64) == 1ULL << 63 &&
		       hist_slot_hi(64) == UINT64_MAX, "slot 64");
	/* Consecutive slots must tile the u64 range without gaps. */
	for (unsigned int s = 1; s < HIST_NR_SLOTS; s++)
		KTAP_EXPECT(t, hist_slot_lo(s) == hist_slot_hi(s - 1) + 1,
			    "gap between slot %u and %u", s - 1, s);
}

static uint64_t lcg_next(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state;
}

static void test_counts_sum(struct ktap_case_ctx *t)
{
	enum { N = 100000 };
	struct hist h;
	uint64_t state = 42, *samples = malloc(N * sizeof(*samples));

	KTAP_EXPECT(t, samples != NULL, "out of memory");
	if (!samples)
		return;
	/* Random bit lengths so that every slot gets some values. */
	for (int i = 0; i < N; i++)
		samples[i] = lcg_next(&state) >> (lcg_next(&state) % 64);

	hist_init(&h);
	hist_add_samples(&h, samples, N, 1);
	KTAP_EXPECT(t, hist_total(&h) == N, "total %llu, want %d",
		    (unsigned long long)hist_total(&h), N);

	hist_init(&h);
	hist_add_samples(&h, samples, N, 1000);
	KTAP_EXPECT(t, hist_total(&h) == N, "scaled total %llu, want %d",
		    (unsigned long long)hist_total(&h), N);

	hist_init(&h);
	hist_add_slot(&h, 3, 5);
	hist_add_slot(&h, HIST_NR_SLOTS, 7); /* out of range: ignored */
	KTAP_EXPECT(t, hist_total(&h) == 5 && h.slots[3] == 5,
		    "hist_add_slot miscounted");
	free(samples);
}

static void test_scaled_buckets_truncate(struct ktap_case_ctx *t)
{
	/* 7999 ns is 7 us (truncated), not 8: it belongs to "4 - 7 us". */
	uint64_t ns[] = { 999, 1000, 7999, 8000 };
	struct hist h;

	hist_init(&h);
	hist_add_samples(&h, ns, 4, 1000);
	KTAP_EXPECT(t, h.slots[0] == 1 && h.slots[1] == 1 && h.slots[3] == 1 &&
		       h.slots[4] == 1, "slots %llu %llu %llu %llu",
		    (unsigned long long)h.slots[0],
		    (unsigned long long)h.slots[1],
		    (unsigned long long)h.slots[3],
		    (unsigned long long)h.slots[4]);
	KTAP_EXPECT(t, hist_first_slot(&h) == 0 && hist_last_slot(&h) == 4,
		    "first/last slot");
	hist_init(&h);
	KTAP_EXPECT(t, hist_first_slot(&h) == -1 && hist_last_slot(&h) == -1,
		    "empty histogram must report no slot");
}

#define EXPECT_STATS(t, st, mn, av, md, p, mx)                              \
	KTAP_EXPECT(t, (st).min == (mn) && (st).avg == (av) &&              \
		       (st).median == (md) && (st).p99 == (p) &&            \
		       (st).max == (mx),                                    \
		    "min=%llu avg=%llu median=%llu p99=%llu max=%llu, want " \
		    "%llu %llu %llu %llu %llu",                             \
		    (unsigned long long)(st).min, (unsigned long long)(st).avg, \
		    (unsigned long long)(st).median,                        \
		    (unsigned long long)(st).p99, (unsigned long long)(st).max, \
		    (unsigned long long)(mn), (unsigned long long)(av),     \
		    (unsigned long long)(md), (unsigned long long)(p),      \
		    (unsigned long long)(mx))

static void test_stats_odd_even(struct ktap_case_ctx *t)
{
	uint64_t odd[] = { 9, 1, 5 };
	uint64_t even[] = { 4, 1, 3, 2 };
	uint64_t one[] = { 7 };
	struct stats st;

	KTAP_EXPECT(t, stats_compute(odd, 3, 1, &st) == 0, "odd failed");
	EXPECT_STATS(t, st, 1, 5, 5, 9, 9);
	KTAP_EXPECT(t, odd[0] == 1 && odd[1] == 5 && odd[2] == 9,
		    "samples must be left sorted");

	/* avg 2.5 rounds half up to 3; median (2+3)/2 truncates to 2. */
	KTAP_EXPECT(t, stats_compute(even, 4, 1, &st) == 0, "even failed");
	EXPECT_STATS(t, st, 1, 3, 2, 4, 4);
	KTAP_EXPECT(t, st.count == 4, "count %llu",
		    (unsigned long long)st.count);

	KTAP_EXPECT(t, stats_compute(one, 1, 1, &st) == 0, "single failed");
	EXPECT_STATS(t, st, 7, 7, 7, 7, 7);

	KTAP_EXPECT(t, stats_compute(one, 0, 1, &st) == -1, "n == 0 accepted");
	KTAP_EXPECT(t, stats_compute(one, 1, 0, &st) == -1,
		    "divisor 0 accepted");
}

static void test_stats_p99(struct ktap_case_ctx *t)
{
	static const struct {
		size_t n;
		uint64_t p99, p999;
	} cases[] = {
		{ 1, 1, 1 }, { 2, 2, 2 }, { 100, 99, 100 }, { 101, 100, 101 },
		{ 512, 507, 512 }, { 999, 990, 999 }, { 1000, 990, 999 },
	};
	uint64_t samples[1000];
	struct stats st;

	for (size_t c = 0; c < KTAP_COUNT(cases); c++) {
		/* Values 1..n in reverse order, so sorting matters. */
		for (size_t i = 0; i < cases[c].n; i++)
			samples[i] = cases[c].n - i;
		stats_compute(samples, cases[c].n, 1, &st);
		KTAP_EXPECT(t, st.p99 == cases[c].p99, "n=%zu: p99=%llu want %llu",
			    cases[c].n, (unsigned long long)st.p99,
			    (unsigned long long)cases[c].p99);
		KTAP_EXPECT(t, st.p999 == cases[c].p999, "n=%zu: p99.9=%llu want %llu",
			    cases[c].n, (unsigned long long)st.p999,
			    (unsigned long long)cases[c].p999);
	}
}

/* The JSON histogram: first to last non-empty slot, the empty ones between. */
static void test_hist_json(struct ktap_case_ctx *t)
{
	static const char want[] = "{\"hist\":[{\"lo\":2,\"hi\":3,\"count\":1},"
		"{\"lo\":4,\"hi\":7,\"count\":0},{\"lo\":8,\"hi\":15,\"count\":2}]}\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json_writer w;
	struct hist h;

	hist_init(&h);
	hist_add(&h, 3);
	hist_add(&h, 8);
	hist_add(&h, 15);
	json_init(&w, f);
	json_begin_object(&w);
	hist_json(&w, &h);
	json_end_object(&w);
	KTAP_EXPECT(t, json_finish(&w) == 0, "json_finish failed");
	fclose(f);
	KTAP_EXPECT(t, buf && strcmp(buf, want) == 0, "got %s", buf ? buf : "(null)");
	free(buf);
}

static void test_stats_divisor(struct ktap_case_ctx *t)
{
	uint64_t a[] = { 1499 }, b[] = { 1500 }, c[] = { 2999, 1000 };
	uint64_t huge[] = { UINT64_MAX, UINT64_MAX, UINT64_MAX - 1 };
	struct stats st;

	stats_compute(a, 1, 1000, &st);
	EXPECT_STATS(t, st, 1, 1, 1, 1, 1);
	stats_compute(b, 1, 1000, &st);
	EXPECT_STATS(t, st, 1, 2, 1, 1, 1);
	/* median 1999.5 ns -> 1 us (truncated); avg 1999.5 ns -> 2 us. */
	stats_compute(c, 2, 1000, &st);
	EXPECT_STATS(t, st, 1, 2, 1, 2, 2);
	/* The sum overflows u64: the average must not. */
	stats_compute(huge, 3, 1, &st);
	EXPECT_STATS(t, st, UINT64_MAX - 1, UINT64_MAX, UINT64_MAX,
		     UINT64_MAX, UINT64_MAX);
}

/*
 * 512 faults that reproduce the first table of the cover letter
 * ("File preallocated, no background load no MAP_SYNC"), fed in ns with a
 * sub-microsecond part so the ns -> us truncation is exercised too.
 */
static void test_letter_table(struct ktap_case_ctx *t)
{
	static const struct {
		unsigned int count;
		uint64_t usecs;
	} groups[] = {
		{ 200, 5 }, { 150, 6 }, { 48, 7 },	/* 4 - 7 us: 398 */
		{ 100, 8 }, { 10, 9 },			/* 8 - 15 us: 110 */
		{ 1, 17 }, { 1, 20 },			/* 16 - 31 us: 2 */
		{ 1, 33 }, { 1, 42 },			/* 32 - 63 us: 2 */
	};
	static const char expected[] =
		"min=5 avg=6 max=42\n"
		"4 - 7 us: 398\n"
		"8 - 15 us: 110\n"
		"16 - 31 us: 2\n"
		"32 - 63 us: 2\n";
	uint64_t samples[512];
	size_t n = 0;
	struct capture cap;
	struct stats st;
	struct hist h;

	for (size_t g = 0; g < KTAP_COUNT(groups); g++)
		for (unsigned int i = 0; i < groups[g].count; i++, n++)
			samples[n] = groups[g].usecs * 1000 + n % 200;
	KTAP_EXPECT(t, n == 512, "built %zu samples", n);

	hist_init(&h);
	hist_add_samples(&h, samples, n, 1000);
	stats_compute(samples, n, 1000, &st);
	KTAP_EXPECT(t, hist_total(&h) == 512, "counts sum to %llu",
		    (unsigned long long)hist_total(&h));

	hist_print_letter(capture_begin(&cap), &st, &h, "us");
	KTAP_EXPECT_TEXT(t, capture_end(&cap), expected);
	free(cap.text);
}

static void test_letter_keeps_empty_middle_slots(struct ktap_case_ctx *t)
{
	uint64_t samples[] = { 1, 8 };
	struct capture cap;
	struct stats st;
	struct hist h;

	hist_init(&h);
	hist_add_samples(&h, samples, 2, 1);
	stats_compute(samples, 2, 1, &st);
	hist_print_letter(capture_begin(&cap), &st, &h, "ns");
	KTAP_EXPECT_TEXT(t, capture_end(&cap),
			 "min=1 avg=5 max=8\n"
			 "1 - 1 ns: 1\n"
			 "2 - 3 ns: 0\n"
			 "4 - 7 ns: 0\n"
			 "8 - 15 ns: 1\n");
	free(cap.text);

	hist_init(&h);
	hist_add(&h, 0);
	hist_print_letter(capture_begin(&cap), &st, &h, "us");
	KTAP_EXPECT_TEXT(t, capture_end(&cap),
			 "min=1 avg=5 max=8\n"
			 "0 - 0 us: 1\n");
	free(cap.text);
}

static void test_log2_printer_bars(struct ktap_case_ctx *t)
{
	/* Bars scale to the largest count: 40 -> 40 stars, 10 -> 10, 1 -> 1. */
	static const char expected[] =
		"     usecs               : count    distribution\n"
		"         0 -> 0          : 0        |                                        |\n"
		"         1 -> 1          : 10       |**********                              |\n"
		"         2 -> 3          : 40       |****************************************|\n"
		"         4 -> 7          : 20       |********************                    |\n"
		"         8 -> 15         : 0        |                                        |\n"
		"        16 -> 31         : 1        |*                                       |\n";
	struct capture cap;
	struct hist h;

	hist_init(&h);
	hist_add_slot(&h, 1, 10);
	hist_add_slot(&h, 2, 40);
	hist_add_slot(&h, 3, 20);
	hist_add_slot(&h, 5, 1);
	hist_print_log2(capture_begin(&cap), &h, "usecs");
	KTAP_EXPECT_TEXT(t, capture_end(&cap), expected);
	free(cap.text);

	/* A count too small for one star still gets an empty bar. */
	hist_init(&h);
	hist_add_slot(&h, 1, 1000);
	hist_add_slot(&h, 2, 24);
	hist_print_log2(capture_begin(&cap), &h, "nsecs");
	KTAP_EXPECT_TEXT(t, capture_end(&cap),
		"     nsecs               : count    distribution\n"
		"         0 -> 0          : 0        |                                        |\n"
		"         1 -> 1          : 1000     |****************************************|\n"
		"         2 -> 3          : 24       |                                        |\n");
	free(cap.text);

	hist_init(&h);
	hist_print_log2(capture_begin(&cap), &h, "usecs");
	KTAP_EXPECT_TEXT(t, capture_end(&cap), "");
	free(cap.text);
}

static void test_log2_printer_wide(struct ktap_case_ctx *t)
{
	/* Values past 2^33 switch to 20-column numbers and a 20-star bar. */
	static const char header[] =
		"               nsecs                         : count    distribution\n";
	static const char last_row[] =
		"         17179869184 -> 34359738367          : 2        |********************|\n";
	struct capture cap;
	const char *text;
	struct hist h;

	hist_init(&h);
	hist_add(&h, 1ULL << 34);
	hist_add(&h, (1ULL << 35) - 1);
	hist_print_log2(capture_begin(&cap), &h, "nsecs");
	text = capture_end(&cap);
	KTAP_EXPECT(t, strncmp(text, header, strlen(header)) == 0,
		    "wide header differs");
	KTAP_EXPECT(t, strlen(text) >= strlen(last_row) &&
		       strcmp(text + strlen(text) - strlen(last_row), last_row) == 0,
		    "wide last row differs");
	free(cap.text);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_slot_boundaries),
	KTAP_CASE(test_slot_ranges),
	KTAP_CASE(test_counts_sum),
	KTAP_CASE(test_scaled_buckets_truncate),
	KTAP_CASE(test_stats_odd_even),
	KTAP_CASE(test_stats_p99),
	KTAP_CASE(test_hist_json),
	KTAP_CASE(test_stats_divisor),
	KTAP_CASE(test_letter_table),
	KTAP_CASE(test_letter_keeps_empty_middle_slots),
	KTAP_CASE(test_log2_printer_bars),
	KTAP_CASE(test_log2_printer_wide),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
