// SPDX-License-Identifier: GPL-2.0
/* daxlat helpers: the stack event store, a mount table line. */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daxlat_util.h"

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

/* "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw":
 * the device is the third field, the type the first after " - " (the
 * optional fields before it vary in number). */
int mountinfo_dev_fs(const char *line, __u32 *dev, int *fs)
{
	unsigned int major, minor;
	const char *sep = strstr(line, " - ");
	char type[32];

	if (!sep || sscanf(line, "%*u %*u %u:%u", &major, &minor) != 2 ||
	    sscanf(sep + 3, "%31s", type) != 1 || major >= 1U << 12 || minor >= 1U << 20)
		return -1;
	if (!strcmp(type, "ext4"))
		*fs = FS_EXT4;
	else if (!strcmp(type, "xfs"))
		*fs = FS_XFS;
	else
		return -1;
	*dev = major << 20 | minor;	/* MKDEV of include/linux/kdev_t.h */
	return 0;
}
