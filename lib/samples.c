// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>

#include "samples.h"

void samples_line(FILE *out, const char *prefix, const uint64_t *v, size_t n)
{
	if (prefix)
		fputs(prefix, out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%" PRIu64, i || prefix ? " " : "", v[i]);
	fputc('\n', out);
}
