// SPDX-License-Identifier: GPL-2.0
/* Log2 histograms and summary statistics; see hist.h for the slot rule. */
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "json.h"

/* Long enough for any u64 sum, so averages are exact before rounding. */
__extension__ typedef unsigned __int128 u128;

uint64_t hist_slot_lo(unsigned int slot)
{
	return slot ? (uint64_t)1 << (slot - 1) : 0;
}

uint64_t hist_slot_hi(unsigned int slot)
{
	/* Slot 64 ends at 2^64 - 1: shifting by 64 would be undefined. */
	if (slot >= 64)
		return UINT64_MAX;
	return ((uint64_t)1 << slot) - 1;
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_add(struct hist *h, uint64_t value)
{
	h->slots[hist_slot(value)]++;
}

void hist_add_slot(struct hist *h, unsigned int slot, uint64_t count)
{
	if (slot < HIST_NR_SLOTS)
		h->slots[slot] += count;
}

void hist_add_samples(struct hist *h, const uint64_t *samples, size_t n,
		      uint64_t divisor)
{
	for (size_t i = 0; i < n; i++)
		hist_add(h, samples[i] / divisor);
}

uint64_t hist_total(const struct hist *h)
{
	uint64_t total = 0;

	for (int i = 0; i < HIST_NR_SLOTS; i++)
		total += h->slots[i];
	return total;
}

int hist_first_slot(const struct hist *h)
{
	for (int i = 0; i < HIST_NR_SLOTS; i++)
		if (h->slots[i])
			return i;
	return -1;
}

int hist_last_slot(const struct hist *h)
{
	for (int i = HIST_NR_SLOTS - 1; i >= 0; i--)
		if (h->slots[i])
			return i;
	return -1;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int stats_compute(uint64_t *samples, size_t n, uint64_t divisor,
		  struct stats *st)
{
	u128 sum = 0, denominator;
	size_t p99_rank, p999_rank;

	if (n == 0 || divisor == 0)
		return -1;

	qsort(samples, n, sizeof(*samples), compare_u64);
	for (size_t i = 0; i < n; i++)
		sum += samples[i];

	st->count = n;
	st->min = samples[0] / divisor;
	st->max = samples[n - 1] / divisor;

	denominator = (u128)n * divisor;
	st->avg = (uint64_t)((sum + denominator / 2) / denominator);

	if (n % 2)
		st->median = samples[n / 2] / divisor;
	else
		st->median = (uint64_t)(((u128)samples[n / 2 - 1] +
					 samples[n / 2]) / (2 * (u128)divisor));

	/* ceil(0.99 * n) in integers; n * 99 cannot overflow a u128. */
	p99_rank = (size_t)(((u128)n * 99 + 99) / 100);
	st->p99 = samples[p99_rank - 1] / divisor;
	p999_rank = (size_t)(((u128)n * 999 + 999) / 1000);
	st->p999 = samples[p999_rank - 1] / divisor;
	return 0;
}

/*
 * The letter shows only the populated range of buckets; it never had an
 * empty bucket in the middle, so we cannot know whether it would have
 * printed one. We print every slot between the first and the last
 * non-empty one, zero counts included, so that a gap is visible and the
 * rows always form a contiguous range.
 */
void hist_print_letter(FILE *out, const struct stats *st,
		       const struct hist *h, const char *unit)
{
	int first = hist_first_slot(h), last = hist_last_slot(h);

	fprintf(out, "min=%llu avg=%llu max=%llu\n",
		(unsigned long long)st->min, (unsigned long long)st->avg,
		(unsigned long long)st->max);
	if (first < 0)
		return;
	for (int i = first; i <= last; i++)
		fprintf(out, "%llu - %llu %s: %llu\n",
			(unsigned long long)hist_slot_lo(i),
			(unsigned long long)hist_slot_hi(i), unit,
			(unsigned long long)h->slots[i]);
}

static void print_bar(FILE *out, uint64_t count, uint64_t max_count, int width)
{
	int stars = (int)((u128)count * width / max_count);

	fputc('|', out);
	for (int i = 0; i < width; i++)
		fputc(i < stars ? '*' : ' ', out);
	fputs("|\n", out);
}

void hist_print_log2(FILE *out, const struct hist *h, const char *unit_name)
{
	int last = hist_last_slot(h);
	uint64_t max_count = 0;
	/* Past 2^33 - 1 the numbers no longer fit 10 columns. */
	int wide, num_width, bar_width;

	if (last < 0)
		return;
	wide = last > 33;
	num_width = wide ? 20 : 10;
	bar_width = wide ? 20 : 40;

	for (int i = 0; i <= last; i++)
		if (h->slots[i] > max_count)
			max_count = h->slots[i];

	fprintf(out, "%*s%-*s : count    distribution\n", wide ? 15 : 5, "",
		wide ? 29 : 19, unit_name);
	for (int i = 0; i <= last; i++) {
		fprintf(out, "%*llu -> %-*llu : %-8llu ", num_width,
			(unsigned long long)hist_slot_lo(i), num_width,
			(unsigned long long)hist_slot_hi(i),
			(unsigned long long)h->slots[i]);
		print_bar(out, h->slots[i], max_count, bar_width);
	}
}

void hist_json(struct json_writer *w, const struct hist *h)
{
	int first = hist_first_slot(h), last = hist_last_slot(h);

	json_key(w, "hist");
	json_begin_array(w);
	for (int i = first; first >= 0 && i <= last; i++) {
		json_begin_object(w);
		json_kv_uint(w, "lo", hist_slot_lo((unsigned int)i));
		json_kv_uint(w, "hi", hist_slot_hi((unsigned int)i));
		json_kv_uint(w, "count", h->slots[i]);
		json_end_object(w);
	}
	json_end_array(w);
}
