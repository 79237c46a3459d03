/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-fault samples as the regression gate reads them (bench/gate-run.sh,
 * results/gate.c): one line of space-separated nanosecond values, after an
 * optional prefix of words.
 */
#ifndef SUITE_SAMPLES_H
#define SUITE_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "PREFIX v1 v2 ...\n" (no prefix when NULL); write errors stay in
 * ferror(out) for the caller's close. */
void samples_line(FILE *out, const char *prefix, const uint64_t *v, size_t n);

#endif
