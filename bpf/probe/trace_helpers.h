/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User space shared by the libbpf CO-RE tools (bpf/daxlat.c,
 * validate/syncorder.c), under the probe layer (probe.h): verbose output,
 * the options they share, the kernel's BTF (vmlinux and modules), the
 * meaning of dax_iomap_fault's fault-size argument, attach modes and their
 * fallbacks (fentry -> kprobe, tp_btf -> raw_tp), kallsyms, and the command
 * a tool runs with -c, held until its probes are attached.
 * The BPF side's counterpart is common.bpf.h.
 *
 * Links libbpf: not in lib/, whose objects go into faultlat too.
 */
#ifndef TRACE_HELPERS_H
#define TRACE_HELPERS_H

#include <argp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

/* ---- messages ------------------------------------------------------------ */

/* "PROG: message" lines on stderr when @on, "PROG: [seconds] message" with
 * @timestamps (since the first one). */
void verbose_setup(const char *prog, bool on, bool timestamps);
__attribute__((format(printf, 1, 2)))
void verbose(const char *fmt, ...);
/* For libbpf_set_print(): libbpf's messages, only when verbose. */
int libbpf_print_verbose(enum libbpf_print_level level, const char *fmt,
			 va_list args);

/* A decimal argument >= @min, else argp_error() ("invalid WHAT: ARG"). */
long argp_parse_long(const char *arg, const char *what, long min, long max,
		     struct argp_state *state);
/* The kernel's PID_MAX_LIMIT on 64-bit: no pid is larger. */
#define PID_MAX_LIMIT_64	4194304L

/* ---- options every tool takes -------------------------------------------- */

/*
 * -p PID, -c CMD, --json, --kprobes, --raw-tp, -v and the hidden -h: each
 * tool lists them in its own argp_option table (with its own help text),
 * under these keys, and numbers its own long options from OPT_TOOL.
 */
enum { OPT_JSON = 1000, OPT_KPROBES, OPT_RAW_TP, OPT_FENTRY, OPT_TOOL };

struct trace_opts {
	pid_t pid;		/* -p: that process only (all its threads) */
	const char *cmd;	/* -c: run it, trace it and what it forks */
	bool json;
	bool kprobes;		/* kprobes even where fentry works */
	bool fentry;		/* fentry even where it can be preempted */
	bool raw_tp;		/* raw_tp even where tp_btf works */
	bool verbose;		/* libbpf's messages and verbose() */
};

/* The argp parser's part for those keys: 0 when it took @key, else
 * ARGP_ERR_UNKNOWN (for the tool's own parser). */
error_t trace_opts_parse(struct trace_opts *o, int key, char *arg,
			 struct argp_state *state);

/* ---- kernel BTF ---------------------------------------------------------- */

/* vmlinux's BTF: 0, or -errno (no CONFIG_DEBUG_INFO_BTF). */
int kernel_btf_load(void);
/* NULL before kernel_btf_load() succeeded. */
const struct btf *kernel_btf_vmlinux(void);
/* The BTF of every loaded module (xfs.ko is the one that matters). Done by
 * the first lookup vmlinux cannot answer, or now. */
void kernel_btf_load_modules(void);
void kernel_btf_free(void);

struct kernel_btf_loc {
	int obj_fd;		/* 0 for vmlinux: the prog's attach_btf_obj_fd */
	const char *module;	/* NULL for vmlinux */
};

/* @name of @kind in vmlinux, else in a module: its type id (and *loc, if
 * not NULL), or -ENOENT. */
int kernel_btf_find(const char *name, __u32 kind, struct kernel_btf_loc *loc);
/* Which BTF holds @name of @kind: "vmlinux", a module's name, or NULL. */
const char *kernel_btf_home(const char *name, __u32 kind);
/* Does struct @type (vmlinux or a module) have member @member (top level:
 * anonymous unions are not searched)? */
bool kernel_btf_has_field(const char *type, const char *member);

/*
 * The 2nd argument of @func (dax_iomap_fault, dax_finish_sync_fault): enum
 * page_entry_size up to 6.5 (*is_order = false), unsigned int order from 6.6
 * (*is_order = true); *arg_name (may be NULL) is its name in BTF. 0, -ENOENT
 * when vmlinux's BTF lacks @func, -EINVAL for an unknown signature.
 */
int detect_size_arg(const char *func, bool *is_order, const char **arg_name);
/* PMD order: log2(hpage_pmd_size / page size), 9 when unknown. */
unsigned int detect_pmd_order(void);
/* The same from the sizes: 9 when either is 0 or pmd < page. */
unsigned int pmd_order_of(unsigned long pmd_size, unsigned long page_size);

/* ---- probes -------------------------------------------------------------- */

enum attach_mode { M_ABSENT, M_FENTRY, M_KPROBE, M_TPBTF, M_RAWTP, M_FAILED, M_TP };
extern const char *const mode_names[];	/* "absent", "fentry", ... */

/* What user space tells common.bpf.h before load. */
struct trace_cfg {
	bool filter;		/* filter_tgid: -p or -c */
	bool follow_forks;	/* -c */
	bool size_is_order;	/* detect_size_arg() */
	unsigned int pmd_order;	/* detect_pmd_order() */
};

/* Into skeleton @skel, opened and not yet loaded: the .rodata knobs, and
 * the follow_fork program loaded only to follow forks. */
#define TRACE_CFG_APPLY(skel, cfg) do {					\
	(skel)->rodata->filter_tgid = (cfg)->filter;			\
	(skel)->rodata->follow_forks = (cfg)->follow_forks;		\
	(skel)->rodata->size_is_order = (cfg)->size_is_order;		\
	(skel)->rodata->pmd_order = (cfg)->pmd_order;			\
	bpf_program__set_autoload((skel)->progs.follow_fork,		\
				  (cfg)->follow_forks);			\
} while (0)

/*
 * Load (not attach) a two-instruction tracing program for @name (a
 * BTF_KIND_FUNC for fentry, the btf_trace_ typedef for tp_btf): the
 * verifier then checks the target and its argument types. What only the
 * attach shows (no trampoline, lockdown) falls back at attach time; a test
 * attach here would patch the kernel's text twice per target for nothing.
 * 0 or -errno.
 */
int probe_tracing(const char *name, __u32 kind, enum bpf_attach_type type);
/* Neither a kprobe PMU nor kprobe_events: kprobes cannot work. */
bool kprobes_unavailable(void);

/*
 * Attach a function hook's pair of programs, the exit first (an entry
 * seen without its exit would leave state half set); either may be NULL
 * for a hook with one side. links[0] gets the entry's link, links[1] the
 * exit's. 0, or -errno with nothing attached.
 * fentry/fexit: says so (verbose) when that fails, as a kprobe comes next.
 * kprobe/kretprobe: at @ksym, the kallsyms name (maybe a clone).
 */
int attach_fentry_pair(const char *func, struct bpf_program *entry,
		       struct bpf_program *exit, struct bpf_link *links[2]);
int attach_kprobe_pair(const char *ksym, struct bpf_program *entry,
		       struct bpf_program *exit, struct bpf_link *links[2]);
/* One tracepoint's programs, tried in order tp_btf, raw_tp; a NULL one is
 * not tried. perf, when set, is the only one tried: a caller picks it where
 * the others can be preempted and skip runs. */
struct tp_programs {
	const char *system, *name;
	struct bpf_program *tpbtf, *rawtp, *perf;
};
/* M_TPBTF, M_RAWTP, M_TP, or M_FAILED with *err = -errno. */
enum attach_mode attach_tracepoint(const struct tp_programs *p, struct bpf_link **link,
				   int *err);
/* Destroy and clear @n links (NULL ones too). */
void destroy_links(struct bpf_link **links, size_t n);

/* Trace process @pid (all its threads): into the tgids map of
 * common.bpf.h. 0, or -1 with errno. */
int filter_add_tgid(struct bpf_map *tgids, pid_t pid);

/* ---- kallsyms ------------------------------------------------------------ */

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
/* ksyms_parse, then fclose(@f); NULL (errno kept) when @f is NULL. */
struct ksyms *ksyms_read(FILE *f);
/* ksyms_read of /proc/kallsyms; NULL with errno set on failure. */
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

/* ---- -c: the command, held until the probes are attached ----------------- */

struct held_cmd {
	pid_t pid;		/* > 0 once spawned; also its process group */
	int go_fd;		/* the child waits for a byte on it; -1: closed */
	bool released;		/* the byte was sent: the command runs */
	bool reaped;		/* held_cmd_ended saw it end */
	int pidfd;		/* readable when it ends (pidfd_open); -1: none */
};
#define HELD_CMD_INIT { .pid = 0, .go_fd = -1, .released = false, .reaped = false, .pidfd = -1 }

/*
 * Fork `sh -c CMD` now, in a process group of its own (so that stopping it
 * reaches everything it started); it waits for held_cmd_release().
 * 0, or -1 (errno).
 */
int held_cmd_spawn(struct held_cmd *c, const char *cmd);
/* Let it run. 0, or -1 (errno) and it still waits. */
int held_cmd_release(struct held_cmd *c);
/* Not to be run: it gets EOF instead of the byte and exits 127, unrun. */
void held_cmd_cancel(struct held_cmd *c);
/*
 * Cancel it if still held, and reap it then. If it still runs (the tool was
 * interrupted), stop its whole process group: SIGTERM, SIGKILL after 2 s,
 * and reap it: a tool never leaves its command running behind it.
 */
void held_cmd_cleanup(struct held_cmd *c);
/* Has it ended (waitpid WNOHANG)? Then *code = exit_code(status, @unknown). */
bool held_cmd_ended(struct held_cmd *c, int *code, int unknown);
/*
 * The tool's exit status when stop signal @sig (0: none) arrived while the
 * command still ran: 128 + @sig, else @ret.
 */
int held_cmd_stopped_status(const struct held_cmd *c, int sig, int ret);
/*
 * Sleep until there is work: events in @rb (consumed here; NULL: none), the
 * end of the process behind @pidfd (-1: none), a change of the mount table
 * behind @mountsfd (an open /proc/PID/mountinfo, -1: none; *@mounts_changed
 * says), a stop signal (@stop set by
 * its handler: the signals are blocked but in the wait, so none is lost
 * between the test and the sleep) or @timeout_ms (-1: none). No periodic
 * wake-up: under instruction-counted TCG every one adds its instructions to
 * the fault in flight on another vCPU. 0, or a negative errno from the ring
 * buffer or the wait.
 */
int wait_for_work(struct ring_buffer *rb, int pidfd, int mountsfd, bool *mounts_changed,
		  int timeout_ms, const volatile sig_atomic_t *stop);
/* A pidfd for @pid (closed by the caller), or -1 where the kernel has none. */
int pid_watch(pid_t pid);
/* The process has exited: gone, or a zombie its parent has not reaped yet
 * (waiting for it to vanish would wait for our own caller). */
bool process_gone(pid_t pid);
/* A wait status as a shell would give it: the exit status, 128 + the
 * signal, or @unknown (neither exited nor killed). */
int exit_code(int status, int unknown);

#endif /* TRACE_HELPERS_H */
