// SPDX-License-Identifier: GPL-2.0
/*
 * mapsync_mutant: inject MAP_SYNC ordering bugs into a running kernel, so
 * that syncorder can be shown to catch them. Test use only: with this
 * module loaded, MAP_SYNC no longer guarantees anything.
 *
 *   insmod mapsync_mutant.ko mode=clear_dirty [fs=ext4|xfs|all]
 *   insmod mapsync_mutant.ko mode=skip_fsync  [fs=ext4|xfs|all]
 *   insmod mapsync_mutant.ko mode=skip_commit [fs=ext4|xfs|all]
 *   insmod mapsync_mutant.ko mode=no_flush    [fs=ext4]
 *   insmod mapsync_mutant.ko mode=hide_alloc  [fs=ext4|xfs|all]
 *   insmod mapsync_mutant.ko mode=wp_reuse    [fs=ext4|xfs|all]
 *   insmod mapsync_mutant.ko mode=wrong_pfn   [fs=ext4|xfs|all]
 *   cat /sys/module/mapsync_mutant/parameters/hits   # bugs injected so far
 *   cat /sys/module/mapsync_mutant/parameters/armed  # functions hooked
 *
 * clear_dirty (bug a): the filesystem "believes" the block-mapping metadata
 *   is already committed. A kretprobe on ext4_iomap_begin /
 *   xfs_direct_write_iomap_begin clears IOMAP_F_DIRTY from the iomap of
 *   every successful DAX write fault (IOMAP_WRITE|IOMAP_FAULT), so
 *   dax_iomap_fault never returns VM_FAULT_NEEDDSYNC and installs a writable
 *   entry over a transaction that is still open.
 *
 * skip_fsync (bug b): the metadata sync of a synchronous fault is faked.
 *   A kretprobe pair marks the tasks inside dax_finish_sync_fault; a kprobe
 *   on the filesystem's fsync (ext4_sync_file / xfs_file_fsync) returns 0
 *   without running it when the task is marked. vfs_fsync_range still
 *   returns 0, and dax_insert_pfn_mkwrite installs the writable entry with
 *   the transaction uncommitted. The fsync is skipped one level below
 *   vfs_fsync_range, so the checker's own vfs_fsync_range hooks see exactly
 *   what the kernel returns.
 *
 * skip_commit (bug c): the fsync runs but its journal or log commit is
 *   faked. The same task marking; ext4: a kprobe on
 *   jbd2_complete_transaction (ext4's fsync waits for its transaction
 *   there) returns 0 without committing; xfs: a kprobe on
 *   xlog_cil_force_seq returns NULLCOMMITLSN, so xfs_log_force_seq returns
 *   0 without pushing the CIL. Return values all say success; only the
 *   journal's / log's own commit state tells.
 *
 * no_flush (bug e): the journal commits, but its commit record goes out
 *   without REQ_PREFLUSH | REQ_FUA, as with barrier=0: the same task
 *   marking; a kprobe on jbd2_complete_transaction clears JBD2_BARRIER of
 *   the journal the fsync waits on before it commits (restored on rmmod;
 *   rmmod before unmounting). One hit per synchronous fault whose fsync
 *   waits on the journal. ext4 only: xfs has no nobarrier since 4.19.
 *
 * hide_alloc (bug f): the filesystem allocates and says nothing. A
 *   kretprobe on ext4_set_iomap / xfs_bmbt_to_iomap clears IOMAP_F_NEW and
 *   IOMAP_F_DIRTY of a DAX write fault that allocated, inside iomap_begin.
 *
 * wp_reuse (bug g): ->pfn_mkwrite (ext4_dax_fault, xfs_filemap_pfn_mkwrite)
 *   returns 0 for VM_SYNC write-protect faults without running: the generic
 *   finish_mkwrite_fault makes the read-only PTE writable in place.
 *
 * wrong_pfn (bug d): the writable entry maps another block. A kprobe on
 *   dax_finish_sync_fault (fs/dax.c, any filesystem) hands it the pfn of
 *   the page mapped just before the faulting one in the same mapping,
 *   instead of the pfn the fault looked up: the PTE/PMD goes to a block of
 *   the same file, not the one of its offset.
 *
 * A new mutant is its probes and one row of modes[] below.
 *
 * x86-64 only (argument registers, the return stub).
 */
#include <linux/atomic.h>
#include <linux/iomap.h>
#include <linux/jbd2.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/fs.h>
#include <linux/pgtable.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/linkage.h>

#ifndef CONFIG_X86_64
#error "mapsync_mutant reads x86-64 argument registers"
#endif

static char *mode = "";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "clear_dirty (a), skip_fsync (b), skip_commit (c), wrong_pfn (d), "
		 "no_flush (e), hide_alloc (f) or wp_reuse (g)");

static char *fs = "all";
module_param(fs, charp, 0444);
MODULE_PARM_DESC(fs, "ext4, xfs or all (xfs functions only when xfs is loaded)");

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static int hits_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%ld\n", atomic_long_read(&hits));
}

static const struct kernel_param_ops hits_ops = { .get = hits_get };
module_param_cb(hits, &hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "how many times the bug was injected");

static char armed[256];
module_param_string(armed, armed, sizeof(armed), 0444);
MODULE_PARM_DESC(armed, "the functions hooked");

/* Returns 0 to the caller of the function it replaces. Reached by the
 * kprobe's "ret" to regs->ip, never called. */
asmlinkage void mapsync_mutant_ret0(void);
asm(".text\n"
    ".type mapsync_mutant_ret0, @function\n"
    "mapsync_mutant_ret0:\n"
    ASM_ENDBR
    "xorl %eax, %eax\n\t"
    ASM_RET
    ".size mapsync_mutant_ret0, .-mapsync_mutant_ret0\n");

/* Returns -1 (xfs's NULLCOMMITLSN) the same way. */
asmlinkage void mapsync_mutant_ret_minus1(void);
asm(".text\n"
    ".type mapsync_mutant_ret_minus1, @function\n"
    "mapsync_mutant_ret_minus1:\n"
    ASM_ENDBR
    "movq $-1, %rax\n\t"
    ASM_RET
    ".size mapsync_mutant_ret_minus1, .-mapsync_mutant_ret_minus1\n");

/* ---- bug a: clear IOMAP_F_DIRTY ------------------------------------------- */

/* Keep @iomap for the return handler of a DAX write fault's call; any
 * other call (return 1) is not hooked at its return. */
static int keep_write_fault_iomap(struct kretprobe_instance *ri, unsigned int flags,
				  struct iomap *iomap)
{
	if ((flags & (IOMAP_WRITE | IOMAP_FAULT)) != (IOMAP_WRITE | IOMAP_FAULT))
		return 1;
	*(struct iomap **)ri->data = iomap;
	return 0;
}

/* (inode, offset, length, flags, iomap, srcmap): rdi rsi rdx rcx r8 r9 */
static int iomap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return keep_write_fault_iomap(ri, regs->cx, (struct iomap *)regs->r8);
}

static int iomap_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct iomap *iomap = *(struct iomap **)ri->data;

	if (regs_return_value(regs) == 0 && (iomap->flags & IOMAP_F_DIRTY)) {
		iomap->flags &= ~IOMAP_F_DIRTY;
		atomic_long_inc(&hits);
	}
	return 0;
}

static struct kretprobe ext4_iomap_krp = {
	.kp.symbol_name = "ext4_iomap_begin",
	.entry_handler = iomap_entry,
	.handler = iomap_ret,
	.data_size = sizeof(struct iomap *),
	.maxactive = 64,
};

static struct kretprobe xfs_iomap_krp = {
	.kp.symbol_name = "xfs_direct_write_iomap_begin",
	.entry_handler = iomap_entry,
	.handler = iomap_ret,
	.data_size = sizeof(struct iomap *),
	.maxactive = 64,
};

/* ---- bug b: skip the fs fsync inside dax_finish_sync_fault --------------- */

#define NSLOTS 64
static struct task_struct *in_sync[NSLOTS];

static int sync_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	for (int i = 0; i < NSLOTS; i++) {
		if (!cmpxchg(&in_sync[i], NULL, current)) {
			*(int *)ri->data = i;
			return 0;
		}
	}
	return 1;	/* too many at once: leave this one alone */
}

static int sync_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(in_sync[*(int *)ri->data], NULL);
	return 0;
}

static struct kretprobe sync_krp = {
	.kp.symbol_name = "dax_finish_sync_fault",
	.entry_handler = sync_entry,
	.handler = sync_ret,
	.data_size = sizeof(int),
	.maxactive = NSLOTS,
};

static bool task_in_sync(void)
{
	for (int i = 0; i < NSLOTS; i++)
		if (READ_ONCE(in_sync[i]) == current)
			return true;
	return false;
}

/* Return to the caller without running the function: the ftrace-based
 * kprobe resumes at regs->ip, the stub returns. */
static int skip_call(struct pt_regs *regs, void (*stub)(void))
{
	regs->ip = (unsigned long)stub;
	atomic_long_inc(&hits);
	return 1;
}

/* ... only in a sync fault. */
static int skip_in_sync(struct pt_regs *regs, void (*stub)(void))
{
	return task_in_sync() ? skip_call(regs, stub) : 0;
}

/* vfs_fsync_range gets 0 without the fsync having run. */
static int fsync_pre(struct kprobe *p, struct pt_regs *regs)
{
	return skip_in_sync(regs, mapsync_mutant_ret0);
}

/* A post handler makes the kprobe's ftrace ops IPMODIFY, which is what a
 * handler that moves regs->ip must declare. It never runs when the pre
 * handler returns 1. */
static void ipmodify_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static struct kprobe ext4_fsync_kp = {
	.symbol_name = "ext4_sync_file",
	.pre_handler = fsync_pre,
	.post_handler = ipmodify_post,
};

static struct kprobe xfs_fsync_kp = {
	.symbol_name = "xfs_file_fsync",
	.pre_handler = fsync_pre,
	.post_handler = ipmodify_post,
};

/* ---- bug c: the fsync runs, the commit it waits for is never made -------- */

static struct kprobe ext4_commit_kp = {
	.symbol_name = "jbd2_complete_transaction",
	.pre_handler = fsync_pre,
	.post_handler = ipmodify_post,
};

/* xfs_log_force_seq(mp, seq, flags, ...) asks xlog_cil_force_seq for the
 * commit LSN of the sequence and, on NULLCOMMITLSN ("nothing to force"),
 * returns 0 at once: the fsync succeeds, the checkpoint is never pushed. */
static int xfs_no_force_pre(struct kprobe *p, struct pt_regs *regs)
{
	return skip_in_sync(regs, mapsync_mutant_ret_minus1);
}

static struct kprobe xfs_commit_kp = {
	.symbol_name = "xlog_cil_force_seq",
	.pre_handler = xfs_no_force_pre,
	.post_handler = ipmodify_post,
};

/* ---- bug e: ext4's journal commits without flushing ---------------------- */

#define NJOURNALS 8
static journal_t *unflushed[NJOURNALS];

/* The journal is jbd2_complete_transaction's first argument (rdi). */
static int no_flush_pre(struct kprobe *p, struct pt_regs *regs)
{
	journal_t *j = (journal_t *)regs->di;

	if (!task_in_sync())
		return 0;
	if (test_and_clear_bit(ilog2(JBD2_BARRIER), &j->j_flags))
		for (int i = 0; i < NJOURNALS; i++)
			if (!cmpxchg(&unflushed[i], NULL, j))
				break;
	atomic_long_inc(&hits);
	return 0;
}

static struct kprobe ext4_no_flush_kp = {
	.symbol_name = "jbd2_complete_transaction",
	.pre_handler = no_flush_pre,
};

static void restore_barriers(void)
{
	for (int i = 0; i < NJOURNALS; i++)
		if (unflushed[i])
			set_bit(ilog2(JBD2_BARRIER), &unflushed[i]->j_flags);
}

/* ---- bug f: the filesystem allocates without reporting it ---------------- */

/*
 * The function that fills the iomap from the block mapping, inside
 * iomap_begin: ext4_set_iomap(inode, iomap, map, offset, length, flags)
 * and xfs_bmbt_to_iomap(ip, iomap, imap, mapping_flags, iomap_flags, seq).
 * For a DAX write fault that allocated (IOMAP_F_NEW), clear NEW and DIRTY:
 * the filesystem says "mapped before, nothing to sync" about a block its
 * open transaction just allocated. Done inside iomap_begin, so what the
 * checker's iomap_begin exit reads is the lie too.
 */
static int ext4_set_iomap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return keep_write_fault_iomap(ri, regs->r9, (struct iomap *)regs->si);
}

static int xfs_to_iomap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return keep_write_fault_iomap(ri, regs->cx, (struct iomap *)regs->si);
}

static int hide_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct iomap *iomap = *(struct iomap **)ri->data;

	if (iomap->flags & IOMAP_F_NEW) {
		iomap->flags &= ~(IOMAP_F_NEW | IOMAP_F_DIRTY);
		atomic_long_inc(&hits);
	}
	return 0;
}

static struct kretprobe ext4_hide_krp = {
	.kp.symbol_name = "ext4_set_iomap",
	.entry_handler = ext4_set_iomap_entry,
	.handler = hide_ret,
	.data_size = sizeof(struct iomap *),
	.maxactive = 64,
};

static struct kretprobe xfs_hide_krp = {
	.kp.symbol_name = "xfs_bmbt_to_iomap",
	.entry_handler = xfs_to_iomap_entry,
	.handler = hide_ret,
	.data_size = sizeof(struct iomap *),
	.maxactive = 64,
};

/* ---- bug g: a writable entry through the generic write-protect path ------ */

/*
 * ->pfn_mkwrite of a VM_SYNC mapping (ext4_dax_fault, xfs_filemap_pfn_mkwrite)
 * returns 0 at once: do_wp_page's wp_pfn_shared then calls
 * finish_mkwrite_fault, which makes the read-only PTE writable in place
 * (wp_page_reuse) with no DAX fault, no sync. ext4_dax_fault is also
 * ->fault: only calls with FAULT_FLAG_MKWRITE (set by wp_pfn_shared) are
 * touched. A store to a page read first, or to one fdatasync()
 * write-protected, takes that path.
 */
static int pfn_mkwrite_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)regs->di;

	if (!(vmf->flags & FAULT_FLAG_MKWRITE) || !(vmf->vma->vm_flags & VM_SYNC))
		return 0;
	return skip_call(regs, mapsync_mutant_ret0);
}

static struct kprobe ext4_pfn_mkwrite_kp = {
	.symbol_name = "ext4_dax_fault",
	.pre_handler = pfn_mkwrite_pre,
	.post_handler = ipmodify_post,
};

static struct kprobe xfs_pfn_mkwrite_kp = {
	.symbol_name = "xfs_filemap_pfn_mkwrite",
	.pre_handler = pfn_mkwrite_pre,
	.post_handler = ipmodify_post,
};

/* ---- bug d: the entry maps the neighbour's block ---------------------------- */

/*
 * The pfn of the entry mapped at @addr in @vmf's vma, read from the page
 * table the fault walked (vmf->pmd), or 0. Only the neighbour inside the
 * same page table (PTE) or PMD page is looked at: a page mapped there now
 * belongs to this mapping, so pointing at it scribbles on the file under
 * test and nothing else. No lock: a torn read only skips an injection.
 */
static unsigned long mapped_pfn(struct vm_fault *vmf, unsigned long addr, bool pmd)
{
	pmd_t pmdval;

	if (pmd) {
		if (!(addr & ~PUD_MASK))
			return 0;
		pmdval = READ_ONCE(*(vmf->pmd - 1));
		return pmd_present(pmdval) && pmd_leaf(pmdval) ? pmd_pfn(pmdval) : 0;
	}
	if (!(addr & ~PMD_MASK))
		return 0;
	pmdval = READ_ONCE(*vmf->pmd);
	if (!pmd_present(pmdval) || pmd_leaf(pmdval))
		return 0;
	{
		pte_t pte = READ_ONCE(*pte_offset_kernel(&pmdval, addr - PAGE_SIZE));

		return pte_present(pte) ? pte_pfn(pte) : 0;
	}
}

static bool fs_wanted(struct vm_area_struct *vma)
{
	return !strcmp(fs, "all") ||
	       (vma->vm_file && !strcmp(file_inode(vma->vm_file)->i_sb->s_type->name, fs));
}

/*
 * dax_finish_sync_fault(vmf, pe_size | order, pfn): the pfn is a pfn_t (its
 * flags in the top 12 bits) up to 6.12, a plain pfn after; the second
 * argument is 0 for a PTE in both encodings. The replacement keeps the
 * flags and takes the neighbour's pfn.
 */
static int wrong_pfn_pre(struct kprobe *p, struct pt_regs *regs)
{
	const u64 pfn_mask = (1ULL << 52) - 1;
	struct vm_fault *vmf = (struct vm_fault *)regs->di;
	bool pmd = regs->si != 0;
	unsigned long size = pmd ? PMD_SIZE : PAGE_SIZE;
	unsigned long addr = vmf->address & ~(size - 1);
	unsigned long prev;

	if (!(vmf->vma->vm_flags & VM_SYNC) || !fs_wanted(vmf->vma) ||
	    addr - size < vmf->vma->vm_start)
		return 0;
	prev = mapped_pfn(vmf, addr, pmd);
	if (!prev || prev == (regs->dx & pfn_mask))
		return 0;
	regs->dx = (regs->dx & ~pfn_mask) | prev;
	atomic_long_inc(&hits);
	return 0;
}

static struct kprobe wrong_pfn_kp = {
	.symbol_name = "dax_finish_sync_fault",
	.pre_handler = wrong_pfn_pre,
	.post_handler = ipmodify_post,
};

/* ---- the modes ------------------------------------------------------------- */

enum { MUT_EXT4, MUT_XFS, MUT_NFS };

/* Per filesystem, a kprobe or a kretprobe (or neither). */
struct fs_hook {
	struct kprobe *kp;
	struct kretprobe *krp;
};

struct mutant_mode {
	const char *name, *alias;
	struct kretprobe *marker;	/* armed first whatever fs= says, required */
	struct kprobe *common;		/* a bug outside the filesystems: fs= filters inside */
	struct fs_hook fs[MUT_NFS];
};

static const struct mutant_mode modes[] = {
	{ "clear_dirty", "a", NULL, NULL, { { .krp = &ext4_iomap_krp }, { .krp = &xfs_iomap_krp } } },
	{ "skip_fsync", "b", &sync_krp, NULL, { { .kp = &ext4_fsync_kp }, { .kp = &xfs_fsync_kp } } },
	{ "skip_commit", "c", &sync_krp, NULL, { { .kp = &ext4_commit_kp }, { .kp = &xfs_commit_kp } } },
	{ "wrong_pfn", "d", NULL, &wrong_pfn_kp },
	{ "no_flush", "e", &sync_krp, NULL, { { .kp = &ext4_no_flush_kp } } },
	{ "hide_alloc", "f", NULL, NULL, { { .krp = &ext4_hide_krp }, { .krp = &xfs_hide_krp } } },
	{ "wp_reuse", "g", NULL, NULL, { { .kp = &ext4_pfn_mkwrite_kp }, { .kp = &xfs_pfn_mkwrite_kp } } },
};

/* ---- registration ---------------------------------------------------------- */

static struct kretprobe *krps[4];
static struct kprobe *kps[4];
static int nkrps, nkps;

static void note(const char *what)
{
	size_t len = strlen(armed);

	snprintf(armed + len, sizeof(armed) - len, "%s%s", len ? " " : "", what);
}

/* required: the fs was asked for by name, so failing to hook it fails. */
static int add_krp(struct kretprobe *krp, bool required)
{
	int err = register_kretprobe(krp);

	if (err) {
		pr_info("mapsync_mutant: cannot hook %s: %d%s\n", krp->kp.symbol_name, err,
			required ? "" : " (skipped)");
		return required ? err : 0;
	}
	krps[nkrps++] = krp;
	note(krp->kp.symbol_name);
	return 0;
}

static int add_kp(struct kprobe *kp, bool required)
{
	int err = register_kprobe(kp);

	if (err) {
		pr_info("mapsync_mutant: cannot hook %s: %d%s\n", kp->symbol_name, err,
			required ? "" : " (skipped)");
		return required ? err : 0;
	}
	kps[nkps++] = kp;
	note(kp->symbol_name);
	return 0;
}

static void remove_all(void)
{
	while (nkps)
		unregister_kprobe(kps[--nkps]);
	while (nkrps)
		unregister_kretprobe(krps[--nkrps]);
}

static const struct mutant_mode *mode_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(name, modes[i].name) || !strcmp(name, modes[i].alias))
			return &modes[i];
	return NULL;
}

/* Arms @m's hook on @fs (0 when it has none and @fs was not asked for by
 * name). */
static int add_fs_hook(const struct mutant_mode *m, const char *fs, const struct fs_hook *h,
		       bool required)
{
	if (h->krp)
		return add_krp(h->krp, required);
	if (h->kp)
		return add_kp(h->kp, required);
	if (!required)
		return 0;
	pr_err("mapsync_mutant: mode=%s has no %s hook\n", m->name, fs);
	return -ENOENT;
}

static int __init mutant_init(void)
{
	static const char *const fs_names[MUT_NFS] = { "ext4", "xfs" };
	const struct mutant_mode *m = mode_find(mode);
	bool all = !strcmp(fs, "all");
	int err = 0, nwant = 0;

	if (!m) {
		pr_err("mapsync_mutant: mode=%s: want one of", mode);
		for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
			pr_cont(" %s", modes[i].name);
		pr_cont("\n");
		return -EINVAL;
	}
	for (int i = 0; i < MUT_NFS; i++)
		nwant += all || !strcmp(fs, fs_names[i]);
	if (!nwant) {
		pr_err("mapsync_mutant: fs=%s: want ext4, xfs or all\n", fs);
		return -EINVAL;
	}
	if (m->marker)
		err = add_krp(m->marker, true);
	if (m->common && !err)
		err = add_kp(m->common, true);
	for (int i = 0; i < MUT_NFS && !err && !m->common; i++)
		if (all || !strcmp(fs, fs_names[i]))
			err = add_fs_hook(m, fs_names[i], &m->fs[i], !all);
	/* At least one filesystem function, besides the marker. */
	if (!err && nkps + nkrps == (m->marker != NULL)) {
		pr_err("mapsync_mutant: nothing to hook for fs=%s\n", fs);
		err = -ENOENT;
	}
	if (err) {
		remove_all();
		return err;
	}
	pr_warn("mapsync_mutant: MAP_SYNC ordering bug '%s' armed on %s: test use only\n",
		m->name, armed);
	return 0;
}

static void __exit mutant_exit(void)
{
	remove_all();
	restore_barriers();
	pr_info("mapsync_mutant: disarmed after %ld hits\n", atomic_long_read(&hits));
}

module_init(mutant_init);
module_exit(mutant_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Inject MAP_SYNC ordering bugs (test use only)");
