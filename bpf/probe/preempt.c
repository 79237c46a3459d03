// SPDX-License-Identifier: GPL-2.0
/*
 * Lost events: a BPF trampoline runs fentry/fexit programs with migration,
 * not preemption, disabled, and keeps one "running" count per program and
 * CPU. When the kernel preempts a task inside such a program and another
 * task on that CPU enters the same program, the second run is skipped and
 * counted in the program's recursion_misses: an event the tool never sees.
 * kprobe programs and perf tracepoint programs run with preemption off, so
 * only true nesting can skip them. Raw tracepoint programs (tp_btf, raw_tp)
 * ran with preemption off while tracepoints disabled it; kernels that call
 * tracepoints under SRCU instead (seen on 7.2) let them be preempted too,
 * and they are counted per program like fentry. Whether a running kernel
 * preempts in kernel mode is its current preemption model, read here at
 * run time.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe.h"

#define PREEMPT_FILE "/sys/kernel/debug/sched/preempt"

/* "none voluntary (full) lazy": the model in parentheses, else "". */
static void model_from_debugfs(const char *line, char *model, size_t len)
{
	const char *open = strchr(line, '('), *close = open ? strchr(open, ')') : NULL;

	model[0] = 0;
	if (open && close && (size_t)(close - open - 1) < len)
		snprintf(model, len, "%.*s", (int)(close - open - 1), open + 1);
}

/* Without debugfs, the version string names the build's model; a dynamic
 * one is "dynamic", whose current choice is unknown. */
static void model_from_uname(char *model, size_t len)
{
	struct utsname u;
	const char *p;

	if (uname(&u)) {
		snprintf(model, len, "unknown");
		return;
	}
	if (strstr(u.version, "PREEMPT_RT"))
		snprintf(model, len, "rt");
	else if (strstr(u.version, "PREEMPT_DYNAMIC"))
		snprintf(model, len, "dynamic");
	else if (strstr(u.version, "PREEMPT_LAZY"))
		snprintf(model, len, "lazy");
	else if ((p = strstr(u.version, "PREEMPT")) && (p[7] == ' ' || !p[7]))
		snprintf(model, len, "full");
	else
		snprintf(model, len, "none");
}

bool probe_kernel_preemptible(char *model, size_t len)
{
	char line[128] = "";
	FILE *f = fopen(PREEMPT_FILE, "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	model_from_debugfs(line, model, len);
	if (!model[0])
		model_from_uname(model, len);
	return strcmp(model, "none") && strcmp(model, "voluntary");
}

void probe_choose_modes(const struct trace_opts *o, bool *kprobes, bool *perf_tp,
			char *why, size_t len)
{
	char model[32];

	*kprobes = o->kprobes, *perf_tp = false;
	if (o->kprobes || o->fentry) {
		snprintf(why, len, "%s asked for", o->kprobes ? "kprobes" : "fentry");
		return;
	}
	if (!probe_kernel_preemptible(model, sizeof(model))) {
		snprintf(why, len, "fentry and %s: preemption model %s cannot skip a program",
			 o->raw_tp ? "raw_tp" : "tp_btf", model);
		return;
	}
	*kprobes = true;
	*perf_tp = !o->raw_tp;
	snprintf(why, len, "kprobes and %s: preemption model %s can preempt an fentry or raw "
		 "tracepoint program and skip the next one on that CPU (--fentry to use them anyway)",
		 *perf_tp ? "perf tracepoints" : "raw_tp", model);
}

static void add_misses(const char *name, const struct bpf_prog_info *info, void *ctx)
{
	(void)name;
	*(unsigned long long *)ctx += info->recursion_misses;
}

unsigned long long probe_misses(const struct bpf_object *obj)
{
	unsigned long long n = 0;

	probe_prog_infos(obj, add_misses, &n);
	return n;
}
