// SPDX-License-Identifier: GPL-2.0
/* Unit tests of daxlat's user-space helpers: the stack store (the kallsyms
 * lookup is in test_trace_helpers.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
/*
 * The helpers are compiled in here so the generic tests/unit rule (which
 * links only LIB_OBJS) builds this test, with or without bpf/bpf.mk.
 */
#include "../../bpf/daxlat_util.c"

static struct stack_event ev(__u64 lat)
{
	struct stack_event e;

	memset(&e, 0, sizeof(e));
	e.lat_ns = lat;
	return e;
}

static void test_evstore_keeps_slowest(struct ktap_case_ctx *t)
{
	static const __u64 lats[] = { 50, 10, 70, 30, 90, 20, 60 };
	struct evstore s;

	KTAP_EXPECT(t, !evstore_init(&s, 3, true), "init");
	for (size_t i = 0; i < sizeof(lats) / sizeof(*lats); i++) {
		struct stack_event e = ev(lats[i]);

		evstore_add(&s, &e);
		if (i == 1)
			KTAP_EXPECT(t, evstore_floor(&s) == 0, "floor before full: %llu",
				    (unsigned long long)evstore_floor(&s));
	}
	evstore_sort(&s);
	KTAP_EXPECT(t, s.n == 3, "n = %zu", s.n);
	KTAP_EXPECT(t, s.ev[0].lat_ns == 90 && s.ev[1].lat_ns == 70 &&
		    s.ev[2].lat_ns == 60, "kept %llu %llu %llu",
		    (unsigned long long)s.ev[0].lat_ns, (unsigned long long)s.ev[1].lat_ns,
		    (unsigned long long)s.ev[2].lat_ns);
	KTAP_EXPECT(t, evstore_floor(&s) == 60, "floor %llu",
		    (unsigned long long)evstore_floor(&s));
	KTAP_EXPECT(t, s.dropped == 0, "dropped %llu", s.dropped);
	evstore_free(&s);
}

static void test_evstore_threshold_mode(struct ktap_case_ctx *t)
{
	struct evstore s;

	KTAP_EXPECT(t, !evstore_init(&s, 2, false), "init");
	for (__u64 i = 1; i <= 5; i++) {
		struct stack_event e = ev(i * 100);

		evstore_add(&s, &e);
	}
	/* Arrival order kept, the rest counted. */
	KTAP_EXPECT(t, s.n == 2 && s.ev[0].lat_ns == 100 && s.ev[1].lat_ns == 200,
		    "n %zu first %llu", s.n, (unsigned long long)s.ev[0].lat_ns);
	KTAP_EXPECT(t, s.dropped == 3, "dropped %llu", s.dropped);
	KTAP_EXPECT(t, evstore_floor(&s) == 0, "threshold mode has a floor");
	evstore_clear(&s);
	KTAP_EXPECT(t, s.n == 0 && s.dropped == 0, "clear");
	evstore_free(&s);
}

/* Real lines of a guest's mountinfo (pmem0 is 259:0), and a host's. */
static void test_mountinfo_dev_fs(struct ktap_case_ctx *t)
{
	__u32 dev = 0;
	int fs = -1;

	KTAP_EXPECT(t, !mountinfo_dev_fs("31 1 259:0 / /mnt/ext4 rw,relatime - ext4 /dev/pmem0 rw,dax=always",
					 &dev, &fs) && dev == (259U << 20) && fs == FS_EXT4,
		    "ext4 on pmem0: dev %#x fs %d", dev, fs);
	KTAP_EXPECT(t, !mountinfo_dev_fs("32 1 259:1 / /mnt/xfs rw,relatime shared:5 master:1 - xfs /dev/pmem1 rw,dax=always",
					 &dev, &fs) && dev == (259U << 20 | 1) && fs == FS_XFS,
		    "xfs with optional fields: dev %#x fs %d", dev, fs);
	KTAP_EXPECT(t, mountinfo_dev_fs("22 1 0:20 / /proc rw - proc proc rw", &dev, &fs) == -1,
		    "proc is neither");
	KTAP_EXPECT(t, mountinfo_dev_fs("22 1 0:20 / /x rw - ext4x y rw", &dev, &fs) == -1,
		    "a type that only starts with ext4");
	KTAP_EXPECT(t, mountinfo_dev_fs("garbage - ext4 /dev/x rw", &dev, &fs) == -1, "no device field");
	KTAP_EXPECT(t, mountinfo_dev_fs("1 2 259:0 / /m rw ext4", &dev, &fs) == -1, "no separator");
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_mountinfo_dev_fs),
	KTAP_CASE(test_evstore_keeps_slowest),
	KTAP_CASE(test_evstore_threshold_mode),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
