/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF side of the probe layer, shared by the libbpf CO-RE tools
 * (bpf/daxlat.bpf.c, validate/syncorder.bpf.c); probe.h is the user-space
 * side, and its program names are the contract with the macros below.
 * Include it once per BPF object, after vmlinux.h and libbpf's headers.
 *
 * It defines, for user space to set before load, the .rodata knobs
 * filter_tgid, follow_forks, size_is_order and pmd_order; the tgids map of
 * the processes traced (-p, -c) and the follow_fork program that adds the
 * ones they fork; the devs map of the devices their faults touched;
 * traced(), size_class(), fs_of_magic() and fs_of_inode(); and the macros that give a
 * hook one program per attach flavour around one shared body.
 */
#ifndef COMMON_BPF_H
#define COMMON_BPF_H

#include "kinds.h"

#define EXT4_SUPER_MAGIC	0xEF53
#define XFS_SB_MAGIC		0x58465342

/* Size of the tgids map: a tool may want another before the #include. */
#ifndef TGIDS_MAX
#define TGIDS_MAX		10240
#endif

/* Set by user space before load. */
const volatile bool filter_tgid = false;	/* only tasks whose tgid is in tgids */
const volatile bool follow_forks = false;	/* and the processes they fork */
const volatile bool size_is_order = false;	/* 2nd arg an order, not pe_size */
const volatile __u32 pmd_order = 9;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TGIDS_MAX);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* Devices (kernel dev_t) the traced faults touched: what runs in other
 * tasks (jbd2 commits in kjournald2, xfs log checkpoints) is kept by
 * device. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u8);
} devs SEC(".maps");

static const __u8 one = 1;

static __always_inline bool traced(void)
{
	__u32 tgid;

	if (!filter_tgid)
		return true;
	tgid = bpf_get_current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&tgids, &tgid) != NULL;
}

/* From the 2nd argument of dax_iomap_fault / dax_finish_sync_fault. */
static __always_inline __u8 size_class(__u64 arg)
{
	if (size_is_order)
		return arg == 0 ? FAULT_SZ_PTE : arg == pmd_order ? FAULT_SZ_PMD : FAULT_SZ_OTHER;
	/* enum page_entry_size: PE_SIZE_PTE, PE_SIZE_PMD, PE_SIZE_PUD */
	return arg == 0 ? FAULT_SZ_PTE : arg == 1 ? FAULT_SZ_PMD : FAULT_SZ_OTHER;
}

/* The filesystem of a superblock magic, of @inode (enum fault_fs). */
static __always_inline __u8 fs_of_magic(unsigned long magic)
{
	return magic == EXT4_SUPER_MAGIC ? FS_EXT4 : magic == XFS_SB_MAGIC ? FS_XFS : FS_OTHER;
}

static __always_inline __u8 fs_of_inode(struct inode *inode)
{
	return fs_of_magic(BPF_CORE_READ(inode, i_sb, s_magic));
}

/* -c: follow the processes the command forks. */
SEC("tracepoint/sched/sched_process_fork")
int follow_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, child;

	if (!follow_forks || !bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	/* For a new thread this is a tid, a key no task matches: harmless. */
	child = ctx->child_pid;
	bpf_map_update_elem(&tgids, &child, &one, BPF_ANY);
	return 0;
}

/*
 * One hook, two flavours: user space (probe.c) sets the target and loads
 * and attaches the fentry/fexit programs where they work, else the
 * kprobe/kretprobe ones; tp_btf, else raw_tp. @name is the hook's name in
 * bpf/probe/hooks.c, with _<variant> or a slot number where the hook has
 * them (see probe.h). Each program returns @call, an expression of the
 * hook's arguments (and ctx).
 *
 * HOOK_ENTRY(name, call, args...): fentry_<name> and kprobe_<name>, both
 *	typed with args.
 * HOOK_EXIT(name, call): fexit_<name> and kretprobe_<name>; @call may use
 *	ret, the function's return value (64 bits: cast it).
 * HOOK_EXIT_NORET(name, call): the same, for a call that needs no return
 *	value (the fexit program does not fetch it).
 * HOOK(name, entry_call, exit_call, args...): entry and exit.
 * TP_HOOK(name, call, args...): tpbtf_<name> and rawtp_<name>.
 * TP_PERF(name, record, call): tp_<name>, the same tracepoint as a perf
 *	event, for kernels whose raw tracepoint programs can be preempted
 *	(probe_use_perf_tracepoints): @ctx is the event's record, struct
 *	trace_event_raw_<record>, whose fields @call reads (no pointers).
 *
 * In every program @call may read btf_args: true where the arguments are
 * BTF-typed pointers the program may dereference directly (fentry, fexit,
 * tp_btf), false where only bpf_probe_read_kernel reaches them (kprobes,
 * raw_tp, perf tracepoints). A compile-time constant: the body built for
 * each flavour keeps only its own branch.
 *
 * HOOK_COST_LOOPS (a build knob, 0 by default): every program first spins
 * that many iterations, the injected cost the regression gate's tool-cost
 * row must call worse (results/README.md).
 */
#ifndef HOOK_COST_LOOPS
#define HOOK_COST_LOOPS 0
#endif

#if HOOK_COST_LOOPS
static long hook_cost_step(__u32 i, void *ctx) { return 0; }
#endif

static __always_inline void hook_cost(void)
{
#if HOOK_COST_LOOPS
	bpf_loop(HOOK_COST_LOOPS, hook_cost_step, NULL, 0);
#endif
}

/*
 * 6.2+: a pointer the program may load through (PTR_UNTRUSTED: the JIT
 * makes each load a probe load that gives 0 on a fault), the call itself
 * rewritten to a register move. Where the kernel lacks it (6.1) libbpf
 * leaves the weak extern 0 and the verifier drops the branch that calls it.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * @p->@field, one pointer hop, for a type of vmlinux (the cast takes a
 * vmlinux BTF id): where @btf (a program's btf_args) a plain load through a
 * BTF pointer; else a plain load through bpf_rdonly_cast where the kernel
 * has it (a kprobe's field costs a few instructions, not a helper call);
 * else one bpf_probe_read_kernel.
 */
#define ARG_READ(btf, p, field)						\
	((btf) ? (p)->field :						\
	 bpf_rdonly_cast ? ((typeof(p))bpf_rdonly_cast((p),		\
			bpf_core_type_id_kernel(typeof(*(p)))))->field :	\
	 BPF_CORE_READ(p, field))

/* The same for a type a module may define (jbd2's, xfs's): no cast. */
#define ARG_READ_MOD(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

#define BTF_BODY(call) { const bool btf_args __attribute__((unused)) = true; hook_cost(); return call; }
#define RAW_BODY(call) { const bool btf_args __attribute__((unused)) = false; hook_cost(); return call; }

#define HOOK_ENTRY(name, call, args...)					\
SEC("fentry")								\
int BPF_PROG(fentry_##name, ##args) BTF_BODY(call)			\
SEC("kprobe")								\
int BPF_KPROBE(kprobe_##name, ##args) RAW_BODY(call)

#define HOOK_EXIT(name, call)						\
SEC("fexit")								\
int BPF_PROG(fexit_##name)						\
{									\
	__u64 ret = 0;							\
	const bool btf_args __attribute__((unused)) = true;	\
									\
	/* Not ctx[N]: the helper knows where the return value sits. */	\
	bpf_get_func_ret(ctx, &ret);					\
	hook_cost();							\
	return call;							\
}									\
SEC("kretprobe")							\
int BPF_KRETPROBE(kretprobe_##name, long ret) RAW_BODY(call)

#define HOOK_EXIT_NORET(name, call)					\
SEC("fexit")								\
int BPF_PROG(fexit_##name) BTF_BODY(call)				\
SEC("kretprobe")							\
int BPF_KRETPROBE(kretprobe_##name) RAW_BODY(call)

#define HOOK(name, entry_call, exit_call, args...)			\
	HOOK_ENTRY(name, entry_call, ##args)				\
	HOOK_EXIT(name, exit_call)

#define TP_HOOK(name, call, args...)					\
SEC("tp_btf")								\
int BPF_PROG(tpbtf_##name, ##args) BTF_BODY(call)			\
SEC("raw_tp")								\
int BPF_PROG(rawtp_##name, ##args) RAW_BODY(call)

#define TP_PERF(name, record, call)					\
SEC("tracepoint")							\
int tp_##name(struct trace_event_raw_##record *ctx) RAW_BODY(call)

/*
 * SLOT(n) for every candidate index of a hook that attaches them all
 * (PROBE_EVERY: fs_handler<n>), up to PROBE_MAX_CANDS (probe.h); the unit
 * test test_probe checks each object has every program its hooks need.
 */
#define HOOK_SLOTS(SLOT) SLOT(0) SLOT(1) SLOT(2) SLOT(3) SLOT(4) SLOT(5)

#endif /* COMMON_BPF_H */
