/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log2 histograms and summary statistics of u64 samples (latencies in ns,
 * sizes, ...), shared by the benchmarks and by the user-space half of the
 * BPF tools.
 *
 * Slot rule: a value goes to the slot equal to its bit length, so
 *   slot 0 = {0}, slot 1 = {1}, slot 2 = [2,3], slot 3 = [4,7], ...,
 *   slot k = [2^(k-1), 2^k - 1], slot 64 = [2^63, 2^64 - 1].
 * Zero gets its own slot so that "0 - 0 us" and "1 - 1 us" stay distinct.
 * A BPF program that wants to hand its counts to hist_add_slot() computes
 * the same thing: 64 - __builtin_clzll(v) for v != 0, else 0.
 */
#ifndef SUITE_HIST_H
#define SUITE_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_NR_SLOTS 65

struct hist {
	uint64_t slots[HIST_NR_SLOTS];
};

static inline unsigned int hist_slot(uint64_t value)
{
	return value ? 64 - (unsigned int)__builtin_clzll(value) : 0;
}

/* Smallest and largest value that land in @slot (slot < HIST_NR_SLOTS). */
uint64_t hist_slot_lo(unsigned int slot);
uint64_t hist_slot_hi(unsigned int slot);

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t value);
/* Add @count values known only by their slot (e.g. counted in BPF). */
void hist_add_slot(struct hist *h, unsigned int slot, uint64_t count);
/* Add every sample divided (truncating) by @divisor, e.g. 1000 for ns -> us. */
void hist_add_samples(struct hist *h, const uint64_t *samples, size_t n,
		      uint64_t divisor);
uint64_t hist_total(const struct hist *h);
/* First / last non-empty slot, or -1 when the histogram is empty. */
int hist_first_slot(const struct hist *h);
int hist_last_slot(const struct hist *h);

/*
 * Summary of a sample set, in the unit the caller chose (see stats_compute).
 * All fields are truncated to integers except avg, which is rounded to the
 * nearest integer (half up) from the exact sum.
 */
struct stats {
	uint64_t count;
	uint64_t min;
	uint64_t max;
	uint64_t avg;
	uint64_t median;	/* even count: mean of the two middle values */
	uint64_t p99;		/* nearest rank: sorted[ceil(0.99 * n) - 1] */
	uint64_t p999;		/* nearest rank: sorted[ceil(0.999 * n) - 1] */
};

/*
 * Fill @st from @samples divided by @divisor (1 keeps the samples' unit).
 * Sorts @samples in place. Returns 0, or -1 when n == 0 or divisor == 0.
 */
int stats_compute(uint64_t *samples, size_t n, uint64_t divisor,
		  struct stats *st);

/*
 * The table format of Jan Kara's MAP_SYNC cover letter (2017):
 *   min=5 avg=6 max=42
 *   4 - 7 us: 398
 *   8 - 15 us: 110
 * @unit is the suffix of the bucket lines ("us", "ns"). @st and @h must
 * already be in that unit.
 */
void hist_print_letter(FILE *out, const struct stats *st,
		       const struct hist *h, const char *unit);

/*
 * The bcc/libbpf-tools print_log2_hist() layout:
 *      usecs               : count    distribution
 *          0 -> 0          : 0        |                                        |
 *          1 -> 1          : 3        |****************************************|
 * Rows run from slot 0 to the last non-empty slot, as libbpf-tools do; the
 * bar is 40 characters (20, with wider number columns, once values reach
 * 2^33, again as libbpf-tools do).
 * @unit_name heads the first column ("usecs", "nsecs", "bytes").
 */
void hist_print_log2(FILE *out, const struct hist *h, const char *unit_name);

struct json_writer;

/*
 * "hist": [{"lo":..,"hi":..,"count":..}, ...] into an open JSON object,
 * from the first to the last non-empty slot, like the text tables.
 */
void hist_json(struct json_writer *w, const struct hist *h);

#endif /* SUITE_HIST_H */
