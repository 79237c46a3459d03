// SPDX-License-Identifier: GPL-2.0
/* Cache write-back for persistence on x86; see flush.h. */
#include <stdint.h>

#include "flush.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define FLUSH_X86 1
#endif

const char *const flush_insn_names[FLUSH_NR + 1] = { "clwb", "clflushopt", "clflush", "none" };

unsigned int flush_cpu_has(void)
{
	unsigned int have = 0;
#ifdef FLUSH_X86
	unsigned int a, b, c, d;

	if (__get_cpuid(1, &a, &b, &c, &d) && (d & (1U << 19)))
		have |= 1U << FLUSH_CLFLUSH;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		if (b & (1U << 23))
			have |= 1U << FLUSH_CLFLUSHOPT;
		if (b & (1U << 24))
			have |= 1U << FLUSH_CLWB;
	}
#endif
	return have;
}

enum flush_insn flush_best(unsigned int have)
{
	for (int f = 0; f < FLUSH_NR; f++)
		if (have & (1U << f))
			return f;
	return FLUSH_NONE;
}

unsigned int flush_line_size(void)
{
	unsigned int line = 0;
#ifdef FLUSH_X86
	unsigned int a, b, c, d;

	if (__get_cpuid(1, &a, &b, &c, &d))
		line = ((b >> 8) & 0xff) * 8;
#endif
	/* The loop aligns down with it: a power of two or nothing. */
	return line && !(line & (line - 1)) ? line : 64;
}

void flush_range(enum flush_insn insn, unsigned int line, const void *p, size_t len)
{
#ifdef FLUSH_X86
	uintptr_t addr = (uintptr_t)p & ~((uintptr_t)line - 1);
	uintptr_t end = (uintptr_t)p + len;

	/* The "memory" clobbers keep the stores before the flushes. */
	switch (insn) {
	case FLUSH_CLWB:
		for (; addr < end; addr += line)
			__asm__ volatile("clwb %0" : "+m"(*(volatile char *)addr) : : "memory");
		break;
	case FLUSH_CLFLUSHOPT:
		for (; addr < end; addr += line)
			__asm__ volatile("clflushopt %0" : "+m"(*(volatile char *)addr) : : "memory");
		break;
	case FLUSH_CLFLUSH:
		for (; addr < end; addr += line)
			__asm__ volatile("clflush %0" : "+m"(*(volatile char *)addr) : : "memory");
		break;
	default:
		break;
	}
	__asm__ volatile("sfence" ::: "memory");
#else
	(void)insn, (void)line, (void)p, (void)len;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}
