/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe layer every libbpf tool attaches through.
 *
 * Where the kernel has what the tools trace is data: probe_hooks[] (hooks.c)
 * lists, for each logical hook, its candidate kernel functions or
 * tracepoints in preference order. A tool lists what it uses (struct
 * probe_use: which hook, how badly it needs it, entry and/or exit, the BTF
 * fields its programs read). The layer then, once per run:
 *   resolve  find each hook's target in the running kernel's BTF (vmlinux,
 *            modules) and kallsyms, check the fields, test-load fentry /
 *            tp_btf where BTF allows;
 *   bind     pick the tool's programs by name and set what loads;
 *   attach   fentry, else kprobe; tp_btf, else raw_tp;
 *   check    say what a tool cannot do without and did not get;
 *   report   what attached as what, for -v and every JSON output.
 *
 * Program names, the contract with the BPF side (common.bpf.h's macros):
 * <flavour>_<hook>[_<variant>][<slot>], flavour one of fentry fexit kprobe
 * kretprobe tpbtf rawtp tp (a perf tracepoint: SEC("tracepoint"), the
 * event's record as its context); a variant names a candidate with another
 * signature; hooks that attach every candidate (PROBE_EVERY) number the
 * variant-less ones by their index in the candidate list.
 */
#ifndef PROBE_H
#define PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

#include "trace_helpers.h"

struct json_writer;

/* ---- the hooks (hooks.c) ------------------------------------------------ */

enum probe_hook_id {
	HOOK_NONE,
	HOOK_FAULT,		/* every DAX fault */
	HOOK_FAULT_ITER,	/* the iomap DAX acts on */
	HOOK_SYNC,		/* dax_finish_sync_fault */
	HOOK_FSYNC,		/* the fsync a sync fault runs */
	HOOK_EXT4_IOMAP,	/* ext4's iomap_begin */
	HOOK_XFS_IOMAP,		/* xfs's iomap_begin for DAX writes */
	HOOK_INSERT_PTE,	/* installs the writable PTE */
	HOOK_INSERT_PMD,	/* installs the writable PMD */
	HOOK_XFS_CKPT,		/* a CIL checkpoint is on the log */
	HOOK_XFS_LOG_FORCE,
	HOOK_XFS_COMMITTING,	/* an inode's log item goes into a transaction */
	HOOK_JBD2_DIRTY,	/* a buffer joins a jbd2 handle's transaction */
	HOOK_WP_REUSE,		/* the generic write-protect fault reuses a PTE */
	HOOK_DAX_ACCESS,	/* the dax driver translates a page offset to a pfn */
	HOOK_FS_HANDLER,	/* the filesystem's fault handlers */
	HOOK_PTE_START,		/* tracepoints from here */
	HOOK_PMD_START,
	HOOK_PTE_DONE,
	HOOK_PMD_DONE,
	HOOK_MKWRITE,
	HOOK_MKWRITE_NO_ENTRY,
	HOOK_JBD2_START,
	HOOK_JBD2_END,
	HOOK_JBD2_LOCKING,	/* the commit waits for its handles */
	HOOK_JBD2_FLUSHING,	/* ... writes ordered data */
	HOOK_JBD2_LOGGING,	/* ... writes the log and its commit record */
	HOOK_SCHED_SWITCH,
	HOOK_SCHED_WAKING,	/* in the waker */
	HOOK_SCHED_WAKEUP,	/* the woken task is on a run queue */
	HOOK_WQ_START,		/* a worker starts a work item */
	HOOK_BIO_QUEUE,		/* a bio enters the block layer (bio-based drivers too) */
	HOOK_BIO_COMPLETE,	/* ... and completes */
	HOOK_NR
};

#define PROBE_MAX_CANDS	6

struct probe_cand {
	const char *target;	/* kernel function or tracepoint */
	const char *variant;	/* its own programs: another signature */
	const char *unless;	/* skipped where this function exists */
};

#define PROBE_TP	0x1	/* tracepoints: tp_btf, else raw_tp */
#define PROBE_EVERY	0x2	/* every candidate present, not the first */
/*
 * The kernel fires it with preemption off (the scheduler's tracepoints):
 * tp_btf / raw_tp stay safe where the set chose perf tracepoints, and keep
 * the global bpf_prog_active out: a perf event's program is skipped when any
 * kprobe or perf program runs on the CPU, as when an IRQ inside one wakes
 * a task (a ring buffer's wake-up: sched_waking).
 */
#define PROBE_NOPREEMPT	0x4

struct probe_hook {
	const char *name;	/* in program names */
	unsigned int flags;
	struct probe_cand cands[PROBE_MAX_CANDS];
	const char *tp_system;	/* PROBE_TP: the event's system (fs_dax, jbd2) */
};

extern const struct probe_hook probe_hooks[HOOK_NR];

/* ---- what a tool uses ----------------------------------------------------- */

enum probe_need {
	PROBE_REQUIRED,		/* the tool cannot work without it */
	PROBE_IF_PRESENT,	/* required where the kernel has it, fields too */
	PROBE_OPTIONAL,
};

#define PROBE_ENTRY	0x1
#define PROBE_EXIT	0x2

struct probe_use {
	enum probe_hook_id hook;
	enum probe_need need;
	unsigned int sides;	/* PROBE_ENTRY | PROBE_EXIT; ignored for tracepoints */
	/* "type.member ..." its programs read with CO-RE, each needed: a
	 * target whose BTF lacks one is unusable. */
	const char *fields;
	/* Only where this hook is usable (HOOK_NONE: always). */
	enum probe_hook_id with;
};

/* ---- the running kernel, or a recorded one (unit tests) ----------------- */

struct probe_kernel {
	/* The BTF holding @name of @kind ("vmlinux", a module) or NULL. */
	const char *(*btf_home)(const char *name, __u32 kind);
	/* The kallsyms name a kprobe can use (maybe a clone), or NULL. */
	const char *(*ksym)(const char *func);
	bool (*has_field)(const char *type, const char *member);
	/* Does a tracing program of @type load on @name (BTF @kind)? 0/-errno */
	int (*load_test)(const char *name, __u32 kind, enum bpf_attach_type type);
};

/* BTF (kernel_btf_load() first), /proc/kallsyms (read on first need). */
extern const struct probe_kernel probe_running_kernel;
/* That kernel's kallsyms, read once; NULL (errno) if unreadable. */
struct ksyms *probe_kernel_ksyms(void);
void probe_kernel_free(void);

/* ---- resolution and attachment ------------------------------------------ */

struct probe_target {
	const struct probe_use *use;
	const struct probe_hook *hook;
	const struct probe_cand *cand;	/* NULL: no candidate in this kernel */
	const char *name;		/* the target, or the first candidate */
	char prog[48];			/* <hook>[_<variant>][<slot>] */
	const char *btf;		/* BTF holding it, NULL if none */
	const char *ksym;		/* kallsyms name; NULL: not looked up or none */
	bool ksym_done;
	char missing[128];		/* a needed field BTF lacks, or "" */
	int fast_err;			/* fentry / tp_btf test load: 0, -errno */
	enum attach_mode mode;
	int err;
	/* [0] entry, [1] exit; tracepoints use [0]: tp_btf and raw_tp */
	struct bpf_program *fast[2], *slow[2];
	struct bpf_link *links[2];
};

#define PROBE_MAX_TARGETS	48

struct probe_set {
	const struct probe_kernel *k;
	const struct probe_use *uses;
	size_t nuses;
	bool kprobes;		/* --kprobes: no fentry */
	bool raw_tp;		/* --raw-tp: no tp_btf */
	bool tp_perf;		/* perf tracepoints (tp_<hook>), not tp_btf/raw_tp */
	bool fast_loaded;	/* the fentry/tp_btf programs went in */
	int fast_load_err;	/* why they did not: 0, -errno */
	struct probe_target t[PROBE_MAX_TARGETS];
	size_t n;
	char missing_prog[64];	/* probe_bind: the first program not found */
};

/* Find the targets of @uses in kernel @k. 0, or -E2BIG (too many). */
int probe_resolve(struct probe_set *s, const struct probe_kernel *k,
		  const struct probe_use *uses, size_t nuses,
		  bool kprobes, bool raw_tp);
/*
 * Tracepoints as perf events (programs tp_<hook>) instead of tp_btf/raw_tp:
 * the kernel runs those with preemption off, where raw tracepoint programs
 * may run preemptible (tracepoints under SRCU) and a preempted one makes
 * the kernel skip the next run on that CPU. Call between resolve and bind.
 */
void probe_use_perf_tracepoints(struct probe_set *s, bool on);
/* Said by -v: where each target is, what its test load said. */
void probe_print_resolved(const struct probe_set *s);

/*
 * Object @obj (opened, not loaded): its hook programs are loaded only where
 * a target uses them, fentry/tp_btf only with @fast and where they tested
 * well; the kprobe/raw_tp ones, which need no target to load, always (the
 * fallback). 0, or -ENOENT with s->missing_prog the first program @obj lacks.
 */
int probe_bind(struct probe_set *s, struct bpf_object *obj, bool fast);
/*
 * Does @obj have the programs of every candidate of every use, whatever the
 * kernel? 0, or -ENOENT with the first missing name in @buf. For tests: a
 * candidate added to hooks.c needs its programs in every tool that uses it.
 */
int probe_check_programs(const struct probe_use *uses, size_t nuses,
			 struct bpf_object *obj, char *buf, size_t len);
/* How the layer opens a tool's skeleton: the tool's open (which sets its
 * .rodata; NULL with errno), and the generated skeleton's parts. */
struct probe_loader {
	void *(*open)(const void *cfg);
	struct bpf_object_skeleton *(*skeleton)(void *skel);
	void (*destroy)(void *skel);
};

/* The loader of a bpftool skeleton named @name (daxlat_bpf), opened by the
 * tool's @open_fn: defines static const struct probe_loader name##_loader. */
#define PROBE_SKEL_LOADER(name, open_fn)					\
static struct bpf_object_skeleton *name##_parts(void *skel)			\
{										\
	return ((struct name *)skel)->skeleton;					\
}										\
static void name##_destroy_any(void *skel)					\
{										\
	name##__destroy(skel);							\
}										\
static const struct probe_loader name##_loader = {				\
	open_fn, name##_parts, name##_destroy_any				\
}

/*
 * Open, bind and load: fentry/tp_btf where they tested well; when the
 * kernel refuses those anyway (helpers, argument types), everything again
 * with kprobes and raw_tp only (s->fast_load_err keeps why). The loaded
 * skeleton, or NULL with *errp = -errno (-ENOENT and s->missing_prog when
 * the object lacks a program).
 */
void *probe_load(struct probe_set *s, const struct probe_loader *l, const void *cfg,
		 int *errp);
/* In the order of the uses; exits before entries. */
void probe_attach(struct probe_set *s);
void probe_detach(struct probe_set *s);

/* Everything the uses need attached? Else false and why (one line). */
bool probe_ok(const struct probe_set *s, char *why, size_t len);

/* The first target of @hook (NULL when the tool does not use it). */
const struct probe_target *probe_first(const struct probe_set *s,
				       enum probe_hook_id hook);
/* The next target of the same hook after @t, or NULL. */
const struct probe_target *probe_next(const struct probe_set *s,
				      const struct probe_target *t);
/* A target of @hook exists here with every field it reads. */
bool probe_usable(const struct probe_set *s, enum probe_hook_id hook);
bool probe_attached(const struct probe_target *t);
/* @hook's mode: its first attached target's, else its first target's. */
enum attach_mode probe_mode(const struct probe_set *s, enum probe_hook_id hook);

/* "attach": {target: mode} and "probes": [{hook, target, need, mode, ...}]. */
void probe_json(const struct probe_set *s, struct json_writer *w);
/* "target mode, target mode, ..." of the targets not absent. */
void probe_summary(const struct probe_set *s, char *buf, size_t len);

/* ---- lost events (preempt.c) ----------------------------------------- */

/* May the running kernel preempt a task in kernel mode? @model gets the
 * current model (none, voluntary, full, lazy, rt; "dynamic" when only the
 * build is known, which counts as preemptible). */
bool probe_kernel_preemptible(char *model, size_t len);
/* How a tool that must see every event attaches: what was asked for
 * (--kprobes, --fentry, --raw-tp), else kprobes and perf tracepoints where
 * the kernel can preempt fentry and raw tracepoint programs. @why: the
 * choice and its reason, one line. */
void probe_choose_modes(const struct trace_opts *o, bool *kprobes, bool *perf_tp,
			char *why, size_t len);
/* Runs of @obj's loaded programs the kernel skipped (recursion_misses). */
unsigned long long probe_misses(const struct bpf_object *obj);


/* ---- what each program costs (stats.c) -------------------------------- */

struct json_writer;
struct probe_prog_stat {
	char name[64];
	unsigned long long runs, run_ns, misses;	/* run_cnt, run_time_ns, recursion_misses */
};
/* Turn the kernel's per-program run-time statistics on for as long as the
 * returned fd stays open; -errno when the kernel refuses. */
int probe_stats_enable(void);
/* Call @fn with the kernel's bpf_prog_info of each loaded program of @obj. */
struct bpf_prog_info;
typedef void (*probe_prog_info_fn)(const char *name, const struct bpf_prog_info *info, void *ctx);
void probe_prog_infos(const struct bpf_object *obj, probe_prog_info_fn fn, void *ctx);
/* The loaded programs of @obj, in object order, into *@out (the caller
 * frees it): their count, or -ENOMEM. */
int probe_prog_stats(const struct bpf_object *obj, struct probe_prog_stat **out);
/* A table of the programs that ran (runs, total, ns per run, missed). */
void probe_prog_stats_text(const struct probe_prog_stat *s, int n, FILE *f);
/* "prog_stats": [{prog, runs, run_time_ns, recursion_misses}] of every one. */
void probe_prog_stats_json(const struct probe_prog_stat *s, int n, struct json_writer *w);

#endif /* PROBE_H */
