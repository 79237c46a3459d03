/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Making stores to a DAX mapping durable from user space, on x86: which of
 * clwb, clflushopt and clflush the CPU has (cpuid), the line they work on,
 * and one write-back loop. persistlat's MAP_SYNC method and the crash
 * test's writer (pmwrite) flush through here. On other architectures the
 * CPU has none of them.
 */
#ifndef SUITE_FLUSH_H
#define SUITE_FLUSH_H

#include <stddef.h>

/* In the order of preference: flush_best() takes the first the CPU has. */
enum flush_insn { FLUSH_CLWB, FLUSH_CLFLUSHOPT, FLUSH_CLFLUSH, FLUSH_NR, FLUSH_NONE = FLUSH_NR };

/* "clwb", "clflushopt", "clflush", and "none" for FLUSH_NONE. */
extern const char *const flush_insn_names[FLUSH_NR + 1];

/*
 * What the CPU offers, one bit per enum flush_insn (1U << FLUSH_CLWB ...):
 * cpuid leaf 7 EBX bit 24 CLWB, bit 23 CLFLUSHOPT; leaf 1 EDX bit 19 CLFLUSH.
 */
unsigned int flush_cpu_has(void);

/* The first of @have in the order of preference, or FLUSH_NONE. */
enum flush_insn flush_best(unsigned int have);

/*
 * The line CLFLUSH works on (cpuid leaf 1 EBX bits 15:8, in 8-byte units):
 * a power of two, 64 when cpuid says nothing usable.
 */
unsigned int flush_line_size(void);

/*
 * Write back [p, p + len) from the CPU caches with @insn, @line bytes a
 * step, then sfence: clwb and clflushopt are weakly ordered; clflush is
 * not, and the fence keeps one path. FLUSH_NONE: the fence alone.
 */
void flush_range(enum flush_insn insn, unsigned int line, const void *p, size_t len);

#endif /* SUITE_FLUSH_H */
