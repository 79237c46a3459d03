// SPDX-License-Identifier: GPL-2.0
/*
 * What each BPF program of a tool costs, as the kernel counts it: with
 * run-time statistics on (BPF_ENABLE_STATS, the per-boot switch behind
 * kernel.bpf_stats_enabled, held only while the tool runs), every program
 * run adds its count and its time to bpf_prog_info.run_cnt/run_time_ns.
 * The time covers the program's body only: the trampoline or kprobe that
 * calls it is not in it (measure that with and without the tool).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "json.h"
#include "probe.h"

int probe_stats_enable(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	return fd >= 0 ? fd : -errno;
}

void probe_prog_infos(const struct bpf_object *obj, probe_prog_info_fn fn, void *ctx)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 sz = sizeof(info);
		int fd = bpf_program__fd(p);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &sz))
			fn(bpf_program__name(p), &info, ctx);
	}
}

struct stats_ctx {
	struct probe_prog_stat *s;
	int n;
};

static void add_stat(const char *name, const struct bpf_prog_info *info, void *ctx)
{
	struct stats_ctx *c = ctx;
	struct probe_prog_stat *s = &c->s[c->n++];

	snprintf(s->name, sizeof(s->name), "%s", name);
	s->runs = info->run_cnt;
	s->run_ns = info->run_time_ns;
	s->misses = info->recursion_misses;
}

int probe_prog_stats(const struct bpf_object *obj, struct probe_prog_stat **out)
{
	struct stats_ctx c = { NULL, 0 };
	struct bpf_program *p;
	int max = 0;

	bpf_object__for_each_program(p, obj)
		max++;
	/* Every program of the object: a loaded one is never left out. */
	if (!(c.s = calloc(max ? max : 1, sizeof(*c.s))))
		return -ENOMEM;
	probe_prog_infos(obj, add_stat, &c);
	*out = c.s;
	return c.n;
}

void probe_prog_stats_text(const struct probe_prog_stat *s, int n, FILE *f)
{
	unsigned long long runs = 0, ns = 0;

	fprintf(f, "BPF programs (kernel run-time statistics, since the start; body only, "
		"not the trampoline or kprobe):\n");
	fprintf(f, "  %-32s %10s %12s %10s %8s\n", "program", "runs", "total us", "ns/run", "missed");
	for (int i = 0; i < n; i++) {
		if (!s[i].runs && !s[i].misses)
			continue;
		fprintf(f, "  %-32s %10llu %12.1f %10llu %8llu\n", s[i].name, s[i].runs, s[i].run_ns / 1000.0,
			s[i].run_ns / s[i].runs, s[i].misses);
		runs += s[i].runs;
		ns += s[i].run_ns;
	}
	fprintf(f, "  %-32s %10llu %12.1f\n", "all", runs, ns / 1000.0);
}

void probe_prog_stats_json(const struct probe_prog_stat *s, int n, struct json_writer *w)
{
	json_key(w, "prog_stats");
	json_begin_array(w);
	for (int i = 0; i < n; i++) {
		json_begin_object(w);
		json_kv_string(w, "prog", s[i].name);
		json_kv_uint(w, "runs", s[i].runs);
		json_kv_uint(w, "run_time_ns", s[i].run_ns);
		json_kv_uint(w, "recursion_misses", s[i].misses);
		json_end_object(w);
	}
	json_end_array(w);
}
