/* SPDX-License-Identifier: GPL-2.0 */
/*
 * daxlat user-space helpers that need neither libbpf nor a kernel, so the
 * unit tests can exercise them: kernel symbol lookup from kallsyms text, and
 * the bounded store of stack events (every event above a threshold, or the
 * N slowest).
 */
#ifndef DAXLAT_UTIL_H
#define DAXLAT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "daxlat.h"

struct ksym {
	unsigned long addr;
	const char *name;
	const char *module;	/* NULL for vmlinux */
};

struct ksyms {
	struct ksym *syms;	/* text symbols, sorted by address */
	size_t n;
	char **blocks;		/* string storage */
	size_t nblocks;
	bool all_zero;		/* addresses hidden (kptr_restrict, not root) */
};

/* Parse /proc/kallsyms format ("addr type name [module]"). NULL on ENOMEM. */
struct ksyms *ksyms_parse(FILE *f);
/* ksyms_parse of /proc/kallsyms; NULL with errno set on failure. */
struct ksyms *ksyms_load(void);
void ksyms_free(struct ksyms *ks);
/*
 * The symbol containing @addr (greatest address <= addr), or NULL; also NULL
 * when that symbol lies more than KSYM_MAX_OFFSET below @addr.
 */
#define KSYM_MAX_OFFSET 0x40000UL
const struct ksym *ksyms_find(const struct ksyms *ks, unsigned long addr);
/* Exact name, or NULL. */
const struct ksym *ksyms_by_name(const struct ksyms *ks, const char *name);
/*
 * The name a kprobe can use for function @name: the name itself when
 * kallsyms has it, else a compiler clone "name.<suffix>" (.constprop.0,
 * .isra.0, ...) whose body is the function. NULL when neither exists.
 */
const char *ksyms_probe_name(const struct ksyms *ks, const char *name);
/* "func+0x1a [module]", or "0x..." when unknown. Returns @buf. */
char *ksyms_format(const struct ksyms *ks, unsigned long addr, char *buf,
		   size_t len);

/*
 * Stack events kept for the report. With keep_slowest, at most cap events,
 * the slowest seen; otherwise the first cap events, the rest counted in
 * dropped.
 */
struct evstore {
	struct stack_event *ev;
	size_t n, cap;
	bool keep_slowest;
	unsigned long long dropped;
};

int evstore_init(struct evstore *s, size_t cap, bool keep_slowest);
void evstore_free(struct evstore *s);
void evstore_add(struct evstore *s, const struct stack_event *e);
/* With keep_slowest and a full store: the latency an event must exceed to
 * get in (the BPF side is told, so it stops sending faster ones); else 0. */
__u64 evstore_floor(const struct evstore *s);
/* Sort slowest first (for printing). */
void evstore_sort(struct evstore *s);
void evstore_clear(struct evstore *s);

#endif /* DAXLAT_UTIL_H */
