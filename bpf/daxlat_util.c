// SPDX-License-Identifier: GPL-2.0
/* daxlat helpers: kallsyms lookup and the stack event store. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daxlat_util.h"

#define BLOCK_SIZE (1 << 20)

/* Names go into large blocks: one malloc per symbol would be ~100k. */
static char *store_string(struct ksyms *ks, size_t *used, const char *s)
{
	size_t len = strlen(s) + 1;
	char **blocks, *dst;

	if (!ks->nblocks || *used + len > BLOCK_SIZE) {
		blocks = realloc(ks->blocks, (ks->nblocks + 1) * sizeof(*blocks));
		if (!blocks)
			return NULL;
		ks->blocks = blocks;
		ks->blocks[ks->nblocks] = malloc(len > BLOCK_SIZE ? len : BLOCK_SIZE);
		if (!ks->blocks[ks->nblocks])
			return NULL;
		ks->nblocks++;
		*used = 0;
	}
	dst = ks->blocks[ks->nblocks - 1] + *used;
	memcpy(dst, s, len);
	*used += len;
	return dst;
}

static int compare_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Stable choice among aliases: the lexically first name. */
	return strcmp(x->name, y->name);
}

struct ksyms *ksyms_parse(FILE *f)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	char line[512], name[256], mod[128], type;
	size_t cap = 0, used = 0;
	const char *last_mod = NULL;
	unsigned long addr;

	if (!ks)
		return NULL;
	ks->all_zero = true;
	while (fgets(line, sizeof(line), f)) {
		struct ksym *sym;
		int n;

		mod[0] = '\0';
		n = sscanf(line, "%lx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3)
			continue;
		/* Stacks hold code addresses: text symbols only. */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (ks->n == cap) {
			struct ksym *syms;

			cap = cap ? cap * 2 : 4096;
			syms = realloc(ks->syms, cap * sizeof(*syms));
			if (!syms)
				goto nomem;
			ks->syms = syms;
		}
		sym = &ks->syms[ks->n];
		sym->addr = addr;
		sym->name = store_string(ks, &used, name);
		if (!sym->name)
			goto nomem;
		sym->module = NULL;
		if (mod[0]) {
			/* Module symbols come in runs: share the string. */
			if (!last_mod || strcmp(last_mod, mod))
				last_mod = store_string(ks, &used, mod);
			if (!last_mod)
				goto nomem;
			sym->module = last_mod;
		}
		if (addr)
			ks->all_zero = false;
		ks->n++;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), compare_addr);
	return ks;
nomem:
	ksyms_free(ks);
	errno = ENOMEM;
	return NULL;
}

struct ksyms *ksyms_load(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct ksyms *ks;

	if (!f)
		return NULL;
	ks = ksyms_parse(f);
	fclose(f);
	return ks;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->nblocks; i++)
		free(ks->blocks[i]);
	free(ks->blocks);
	free(ks->syms);
	free(ks);
}

const struct ksym *ksyms_find(const struct ksyms *ks, unsigned long addr)
{
	size_t lo = 0, hi;

	if (!ks || !ks->n || ks->all_zero || addr < ks->syms[0].addr)
		return NULL;
	/* Last symbol with syms[i].addr <= addr; among aliases at the same
	 * address, the first one (the sort put them in name order). */
	hi = ks->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* kallsyms has no sizes: an address far past the last symbol before
	 * it (a BPF program or trampoline) belongs to something unnamed. */
	if (addr - ks->syms[lo].addr > KSYM_MAX_OFFSET)
		return NULL;
	while (lo > 0 && ks->syms[lo - 1].addr == ks->syms[lo].addr)
		lo--;
	return &ks->syms[lo];
}

const struct ksym *ksyms_by_name(const struct ksyms *ks, const char *name)
{
	if (!ks)
		return NULL;
	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->syms[i].name, name))
			return &ks->syms[i];
	return NULL;
}

const char *ksyms_probe_name(const struct ksyms *ks, const char *name)
{
	size_t len = strlen(name);
	const struct ksym *sym = ksyms_by_name(ks, name);

	if (sym)
		return sym->name;
	for (size_t i = 0; ks && i < ks->n; i++) {
		const char *s = ks->syms[i].name;

		/* .cold parts are not the function's entry. */
		if (!strncmp(s, name, len) && s[len] == '.' &&
		    strcmp(s + len, ".cold"))
			return s;
	}
	return NULL;
}

char *ksyms_format(const struct ksyms *ks, unsigned long addr, char *buf,
		   size_t len)
{
	const struct ksym *sym = ksyms_find(ks, addr);

	if (!sym)
		snprintf(buf, len, "0x%lx", addr);
	else if (sym->module)
		snprintf(buf, len, "%s+0x%lx [%s]", sym->name, addr - sym->addr,
			 sym->module);
	else
		snprintf(buf, len, "%s+0x%lx", sym->name, addr - sym->addr);
	return buf;
}

int evstore_init(struct evstore *s, size_t cap, bool keep_slowest)
{
	memset(s, 0, sizeof(*s));
	s->cap = cap;
	s->keep_slowest = keep_slowest;
	if (!cap)
		return 0;
	s->ev = calloc(cap, sizeof(*s->ev));
	return s->ev ? 0 : -ENOMEM;
}

void evstore_free(struct evstore *s)
{
	free(s->ev);
	memset(s, 0, sizeof(*s));
}

void evstore_add(struct evstore *s, const struct stack_event *e)
{
	size_t min = 0;

	if (s->n < s->cap) {
		s->ev[s->n++] = *e;
		return;
	}
	if (!s->keep_slowest || !s->cap) {
		s->dropped++;
		return;
	}
	for (size_t i = 1; i < s->n; i++)
		if (s->ev[i].lat_ns < s->ev[min].lat_ns)
			min = i;
	if (e->lat_ns > s->ev[min].lat_ns)
		s->ev[min] = *e;
}

__u64 evstore_floor(const struct evstore *s)
{
	__u64 floor = UINT64_MAX;

	if (!s->keep_slowest || !s->cap || s->n < s->cap)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->ev[i].lat_ns < floor)
			floor = s->ev[i].lat_ns;
	return floor;
}

static int compare_slowest(const void *a, const void *b)
{
	const struct stack_event *x = a, *y = b;

	return (x->lat_ns < y->lat_ns) - (x->lat_ns > y->lat_ns);
}

void evstore_sort(struct evstore *s)
{
	qsort(s->ev, s->n, sizeof(*s->ev), compare_slowest);
}

void evstore_clear(struct evstore *s)
{
	s->n = 0;
	s->dropped = 0;
}
