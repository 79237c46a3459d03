// SPDX-License-Identifier: GPL-2.0
/*
 * syncorder's state machine. One fault = one dax_iomap_fault call on a
 * VM_SYNC shared mapping and, when it returned NEEDDSYNC, the
 * dax_finish_sync_fault that completes it. Per task:
 *
 *   NONE --FAULT_ENTER--> IN_FAULT --FAULT_EXIT(NEEDDSYNC)--> AWAIT_SYNC
 *   IN_FAULT --FAULT_EXIT(other)--> DONE
 *   AWAIT_SYNC --SYNC_ENTER--> IN_SYNC --SYNC_EXIT--> DONE
 *   any --HANDLER_EXIT--> NONE
 *
 * What must hold (validate/README.md gives the reasoning):
 *  - an INSERT inside IN_FAULT is the direct path: the fault's required
 *    transaction / log sequence must already be durable, and the fault must
 *    not return NEEDDSYNC afterwards;
 *  - no INSERT in AWAIT_SYNC; in IN_SYNC only after vfs_fsync_range returned
 *    0 over a range holding the page, for the fault's page, with the
 *    required transaction / sequence durable at that instant;
 *  - NEEDDSYNC is followed by dax_finish_sync_fault before the handler
 *    returns (or the task faults again).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "syncorder_check.h"

/*
 * Every rule can be switched off at build time (-DSC_RULE_OFF=SC_R_NAME)
 * so that tests/unit/test-checker-rules.sh can show the unit cases notice
 * its absence: a rule no test misses is a rule nobody has seen work. The
 * rules are the rows of tests/unit/data/checker-rules.txt.
 */
enum sc_rule {
	SC_R_NONE,
	/* what a fault requires */
	SC_R_EXT4_OWN_TID,		/* changed metadata: its own handle's transaction */
	SC_R_EXT4_CLEAN_REQ,		/* changed nothing: i_datasync_tid at entry */
	SC_R_XFS_OWN_SEQ,		/* changed metadata: its own CIL sequence, not later ones */
	SC_R_XFS_PINNED_REQ,		/* not allocating, pinned: ili_commit_seq at entry */
	SC_R_XFS_TIMESTAMP_EXEMPT,	/* ... unless only timestamps are logged */
	SC_R_XFS_DATASYNC_SEQ,		/* 6.18: ili_datasync_seq at entry */
	/* what proves it durable */
	SC_R_EXT4_COMMIT,		/* j_commit_sequence at insertion */
	SC_R_EXT4_FLUSHED,		/* ... of a journal with barriers, not aborted */
	SC_R_XFS_LOG_STATE,		/* the CIL's completed sequence at insertion */
	SC_R_XFS_LOG_SHUTDOWN,		/* ... not on a shut-down log */
	SC_R_XFS_LOG_READ,		/* ... only when the CIL list was read whole */
	SC_R_XFS_CHECKPOINT,		/* a checkpoint covering it completed before */
	SC_R_XFS_ABORTED_CKPT,		/* ... not an aborted one */
	/* the violations */
	SC_R_DIRECT_UNCOMMITTED,
	SC_R_SYNC_UNCOMMITTED,
	SC_R_INSERT_IN_NEEDDSYNC,
	SC_R_INSERT_BEFORE_SYNC,
	SC_R_INSERT_BEFORE_FSYNC,
	SC_R_FSYNC_RANGE,
	SC_R_WRONG_PAGE,
	SC_R_PMD_PAGE,			/* a PMD fault's page is its 2 MiB extent */
	SC_R_NO_SYNC,
	SC_R_DIRTY_NOT_SYNC,
	SC_R_INSERT_OUTSIDE,
	SC_R_WP_REUSE,
	SC_R_PFN_BLOCK,			/* the pfn is the iomap's block for the offset */
	SC_R_PFN_LINEAR,		/* ... judged only where the driver's map is one base */
	SC_R_CHANGE_AFTER_INSERT,	/* no metadata change of the fault after its entry */
	SC_R_LATE_CHANGE_REQ,		/* a change after iomap_begin is required too */
};

#ifndef SC_RULE_OFF
#define SC_RULE_OFF SC_R_NONE
#endif
#define RULE(name) (SC_RULE_OFF != SC_R_##name)

enum fstate { F_NONE, F_IN_FAULT, F_AWAIT_SYNC, F_IN_SYNC, F_DONE };

struct sc_fault {
	enum fstate state;
	struct so_event enter;
	bool have_iomap, have_iter;
	struct so_event iomap, iter;
	__u32 ret;
	unsigned int n_direct, n_sync;
	bool fsync_entered, fsync_done, mkwrite_seen;
	bool has_late;
	__u64 late;		/* the fault's last change after iomap_begin */
	__s32 fsync_ret;
	__u64 fsync_start, fsync_end;
	bool last_was_insert;
	__u64 last_insert_addr;
	__u8 last_insert_how;
	unsigned int kinds;		/* bit per sc_kind already reported */
	int nseq;
	unsigned int seq_omitted;
	char seq[SC_SEQ_MAX][SC_SEQ_LEN];
};

/* Has the checker seen this task's current fault from its start? */
enum tjoin { T_NEW, T_SKIPPING, T_JOINED };

struct sc_task {
	__u32 tid;
	enum tjoin join;
	struct sc_task *next;
	struct sc_fault f;
};

struct sc_dev {
	__u32 dev;
	bool has_ckpt, has_commit, unsupported_reported;
	__u64 ckpt;		/* highest xfs CIL sequence seen on the log */
	__u64 commit;		/* last jbd2 commit seen */
	/* dax_direct_access: pfn - device page offset, the same for every
	 * translation of a linear device (pmem) */
	bool has_base, nonlinear;
	__u64 base;
};

static const char *const kind_names[SC_KIND_NR] = {
	[SC_V_DIRECT_UNCOMMITTED] = "direct_uncommitted",
	[SC_V_SYNC_UNCOMMITTED] = "sync_uncommitted",
	[SC_V_INSERT_IN_NEEDDSYNC] = "insert_in_needdsync_fault",
	[SC_V_INSERT_BEFORE_SYNC] = "insert_before_sync",
	[SC_V_INSERT_BEFORE_FSYNC] = "insert_before_fsync",
	[SC_V_FSYNC_RANGE] = "fsync_range",
	[SC_V_WRONG_PAGE] = "wrong_page",
	[SC_V_NO_SYNC] = "needdsync_not_synced",
	[SC_V_DIRTY_NOT_SYNC] = "dirty_without_needdsync",
	[SC_V_INSERT_OUTSIDE] = "insert_outside_fault",
	[SC_V_WP_REUSE] = "wp_reuse",
	[SC_V_WRONG_PFN] = "wrong_pfn",
	[SC_V_CHANGE_AFTER_INSERT] = "change_after_insert",
	[SC_E_NO_IOMAP] = "error_no_iomap_record",
	[SC_E_UNSUPPORTED] = "error_unsupported",
	[SC_E_SEQUENCE] = "error_sequence",
	[SC_E_DROPS] = "error_events_dropped",
};

const char *sc_kind_name(enum sc_kind k)
{
	return k < SC_KIND_NR && kind_names[k] ? kind_names[k] : "?";
}

bool sc_kind_is_violation(enum sc_kind k)
{
	return k < SC_V_NR;
}

/* ---- formatting ------------------------------------------------------------ */

struct bitname {
	unsigned long long bit;
	const char *name;
};

static void bits(char *buf, size_t len, unsigned long long v,
		 const struct bitname *names, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!(v & names[i].bit))
			continue;
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s",
					off ? "|" : "", names[i].name);
		v &= ~names[i].bit;
	}
	if (v || !off)
		snprintf(buf + off, off < len ? len - off : 0, "%s0x%llx", off ? "|" : "", v);
}

#define NAMES(...) ((const struct bitname[]){ __VA_ARGS__ })
#define NNAMES(...) (sizeof(NAMES(__VA_ARGS__)) / sizeof(NAMES(__VA_ARGS__)[0]))
#define BITS(buf, v, ...) bits(buf, sizeof(buf), v, NAMES(__VA_ARGS__), NNAMES(__VA_ARGS__))

static void vmret(char *buf, size_t len, unsigned long long v)
{
	bits(buf, len, v, NAMES({ 0x1, "OOM" }, { SO_VM_FAULT_SIGBUS, "SIGBUS" }, { 0x4, "MAJOR" },
			      { SO_VM_FAULT_NOPAGE, "NOPAGE" }, { 0x200, "LOCKED" }, { 0x400, "RETRY" },
			      { SO_VM_FAULT_FALLBACK, "FALLBACK" }, { 0x1000, "DONE_COW" },
			      { SO_VM_FAULT_NEEDDSYNC, "NEEDDSYNC" }, { 0x4000, "COMPLETED" }),
	     10);
}

#define IOMAP_FLAG_NAMES { 0x1, "NEW" }, { 0x2, "DIRTY" }, { 0x4, "SHARED" }, { 0x8, "MERGED" }
#define IOMAP_IN_NAMES { 0x1, "WRITE" }, { 0x2, "ZERO" }, { 0x4, "REPORT" }, { 0x8, "FAULT" }, \
	{ 0x10, "DIRECT" }, { 0x20, "NOWAIT" }, { 0x40, "OVERWRITE_ONLY" }, { 0x80, "UNSHARE" }, \
	{ 0x100, "DAX" }

static const char *iomap_type(unsigned int t)
{
	static const char *const n[] = { "HOLE", "DELALLOC", "MAPPED", "UNWRITTEN", "INLINE" };

	return t < 5 ? n[t] : "?";
}

/* "PTE", "PMD", and how a PTE became writable when not by a mkwrite helper. */
static const char *insert_what(const struct so_insert_rec *r)
{
	if (r->how == SO_INS_WP)
		return "PTE (write-protect reuse)";
	if (!r->write)
		return r->how == SO_INS_PMD ? "PMD (writable vm_page_prot)" : "PTE (writable vm_page_prot)";
	return r->how == SO_INS_PMD ? "PMD" : "PTE";
}

void sc_format_event(const struct so_event *e, char *buf, size_t len)
{
	char a[96], b[96], own[32];

	switch (e->type) {
	case SO_EV_FAULT_ENTER:
		snprintf(buf, len, "dax_iomap_fault(pgoff %llu, %s, write, addr 0x%llx, i_size %llu)",
			 (unsigned long long)e->pgoff, fault_size_name(e->size),
			 (unsigned long long)e->fault.address,
			 (unsigned long long)e->fault.i_size);
		break;
	case SO_EV_FAULT_EXIT:
		vmret(a, sizeof(a), (__u32)e->ret);
		snprintf(buf, len, "dax_iomap_fault returned %s", a);
		break;
	case SO_EV_IOMAP:
		BITS(a, e->iomap.flags_in, IOMAP_IN_NAMES);
		BITS(b, e->iomap.iomap_flags, IOMAP_FLAG_NAMES);
		if (e->iomap.own != ~0ULL)
			snprintf(own, sizeof(own), "%llu", (unsigned long long)e->iomap.own);
		else
			snprintf(own, sizeof(own), "none");
		if (e->fs == FS_EXT4) {
			snprintf(buf, len, "ext4_iomap_begin(%llu+%llu, %s) = %d: flags %s %s, "
				 "i_datasync_tid %llu -> %llu, handle tid %s, j_commit_sequence %llu",
				 (unsigned long long)e->iomap.offset,
				 (unsigned long long)e->iomap.length, a, e->iomap.ret, b,
				 iomap_type(e->iomap.iomap_type),
				 (unsigned long long)e->iomap.seq_entry,
				 (unsigned long long)e->iomap.seq_exit, own,
				 (unsigned long long)e->iomap.commit);
		} else {
			snprintf(buf, len, "xfs_direct_write_iomap_begin(%llu+%llu, %s) = %d: flags %s %s, "
				 "ili_commit_seq %llu -> %llu, own sequence %s, pincount %u -> %u, fsync_fields 0x%x -> 0x%x%s",
				 (unsigned long long)e->iomap.offset,
				 (unsigned long long)e->iomap.length, a, e->iomap.ret, b,
				 iomap_type(e->iomap.iomap_type),
				 (unsigned long long)e->iomap.seq_entry,
				 (unsigned long long)e->iomap.seq_exit,
				 own,
				 e->iomap.pin_entry, e->iomap.pin_exit,
				 e->iomap.fields_entry, e->iomap.fields_exit,
				 e->iomap.fs_flags & SO_FSF_XFS_DATASYNC_SEQ ? " (ili_datasync_seq kernel)" : "");
		}
		break;
	case SO_EV_FAULT_ITER:
		BITS(a, e->iter.iomap_flags, IOMAP_FLAG_NAMES);
		BITS(b, e->iter.iter_flags, IOMAP_IN_NAMES);
		snprintf(buf, len, "dax_fault_iter: iomap flags %s %s, iter flags %s, "
			 "offset %llu at device byte %lld", a, iomap_type(e->iter.iomap_type), b,
			 (unsigned long long)e->iter.offset, (long long)e->iter.addr);
		break;
	case SO_EV_INSERT:
		own[0] = 0;
		if (e->insert.pfn != SO_PFN_UNKNOWN)
			snprintf(own, sizeof(own), ", pfn 0x%llx", (unsigned long long)e->insert.pfn);
		if (e->fs == FS_EXT4) {
			char run[32] = "none";

			if (e->insert.running != ~0ULL)
				snprintf(run, sizeof(run), "%llu", (unsigned long long)e->insert.running);
			snprintf(buf, len, "writable %s inserted at 0x%llx (pgoff %llu%s): j_commit_sequence %llu, "
				 "running tid %s, i_datasync_tid %llu%s%s",
				 insert_what(&e->insert),
				 (unsigned long long)e->insert.address, (unsigned long long)e->pgoff, own,
				 (unsigned long long)e->insert.commit, run,
				 (unsigned long long)e->insert.seq,
				 e->insert.log_flags & SO_LOGF_NO_FLUSH ? ", journal without barriers" : "",
				 e->insert.log_flags & SO_LOGF_ABORTED ? ", journal aborted" : "");
		} else {
			char log[64] = "CIL unreadable";

			if (!(e->insert.log_flags & SO_LOGF_UNKNOWN))
				snprintf(log, sizeof(log), "log complete through %llu, current %llu%s",
					 (unsigned long long)e->insert.commit,
					 (unsigned long long)e->insert.running,
					 e->insert.log_flags & SO_LOGF_ABORTED ? ", shut down" : "");
			snprintf(buf, len, "writable %s inserted at 0x%llx (pgoff %llu%s): %s, pincount %u, ili_commit_seq %llu",
				 insert_what(&e->insert),
				 (unsigned long long)e->insert.address, (unsigned long long)e->pgoff, own,
				 log, e->insert.pin, (unsigned long long)e->insert.seq);
		}
		break;
	case SO_EV_DAX_ACCESS:
		snprintf(buf, len, "dax_direct_access(device page %llu) = %lld: pfn 0x%llx",
			 (unsigned long long)e->dax.dev_pgoff, (long long)e->dax.nr,
			 (unsigned long long)e->dax.pfn);
		break;
	case SO_EV_LATE_CHANGE:
		snprintf(buf, len, "the fault changed the inode's metadata after iomap_begin: %s %llu",
			 e->fs == FS_EXT4 ? "transaction" : "CIL sequence",
			 (unsigned long long)e->log.seq);
		break;
	case SO_EV_SYNC_ENTER:
		snprintf(buf, len, "dax_finish_sync_fault(pgoff %llu, %s)",
			 (unsigned long long)e->pgoff, fault_size_name(e->size));
		break;
	case SO_EV_SYNC_EXIT:
		vmret(a, sizeof(a), (__u32)e->ret);
		snprintf(buf, len, "dax_finish_sync_fault returned %s", a);
		break;
	case SO_EV_FSYNC_ENTER:
		snprintf(buf, len, "vfs_fsync_range(%lld..%lld, datasync %u)",
			 (long long)e->fsync.start, (long long)e->fsync.end, e->fsync.datasync);
		break;
	case SO_EV_FSYNC_EXIT:
		snprintf(buf, len, "vfs_fsync_range returned %d (%s %llu)", e->fsync.ret,
			 e->fs == FS_EXT4 ? "j_commit_sequence" : "pincount",
			 (unsigned long long)e->fsync.commit);
		break;
	case SO_EV_MKWRITE:
		vmret(a, sizeof(a), (__u32)e->ret);
		snprintf(buf, len, "dax_insert_pfn_mkwrite%s(pgoff %llu) %s",
			 e->no_entry ? "_no_entry" : "", (unsigned long long)e->pgoff, a);
		break;
	case SO_EV_HANDLER_EXIT:
		vmret(a, sizeof(a), (__u32)e->ret);
		snprintf(buf, len, "fault handler returned %s", a);
		break;
	case SO_EV_JBD2_COMMIT:
		snprintf(buf, len, "jbd2 commit of transaction %llu done (%u:%u)",
			 (unsigned long long)e->log.seq, e->dev >> 20, e->dev & 0xfffff);
		break;
	case SO_EV_XFS_CKPT:
		snprintf(buf, len, "xfs checkpoint %llu %s (%u:%u)", (unsigned long long)e->log.seq,
			 e->log.aux ? "aborted" : "on the log", e->dev >> 20, e->dev & 0xfffff);
		break;
	case SO_EV_XFS_FORCE:
		snprintf(buf, len, "xfs_log_force_seq(%llu, %s) returned %d",
			 (unsigned long long)e->log.seq,
			 e->log.aux & SO_XFS_LOG_SYNC ? "SYNC" : "async", e->log.ret);
		break;
	default:
		snprintf(buf, len, "event type %u", e->type);
	}
}

/* ---- tables ------------------------------------------------------------------ */

struct sc_checker *sc_new(void)
{
	struct sc_checker *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->nbuckets = 1024;
	c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
	if (!c->buckets) {
		free(c);
		return NULL;
	}
	return c;
}

void sc_free(struct sc_checker *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nbuckets; i++) {
		struct sc_task *t = c->buckets[i], *n;

		for (; t; t = n) {
			n = t->next;
			free(t);
		}
	}
	free(c->buckets);
	free(c->devs);
	free(c->procs);
	free(c);
}

static struct sc_task *task_get(struct sc_checker *c, __u32 tid, bool create)
{
	struct sc_task **b = &c->buckets[tid % c->nbuckets], *t;

	for (t = *b; t; t = t->next)
		if (t->tid == tid)
			return t;
	if (!create)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t) {
		static struct sc_task scratch;

		c->out_of_memory = true;
		memset(&scratch, 0, sizeof(scratch));
		return &scratch;
	}
	t->tid = tid;
	t->next = *b;
	*b = t;
	return t;
}

static struct sc_dev *dev_get(struct sc_checker *c, __u32 dev)
{
	for (size_t i = 0; i < c->ndevs; i++)
		if (c->devs[i].dev == dev)
			return &c->devs[i];
	if (c->ndevs == c->capdevs) {
		size_t cap = c->capdevs ? c->capdevs * 2 : 8;
		struct sc_dev *d = realloc(c->devs, cap * sizeof(*d));

		if (!d) {
			static struct sc_dev scratch;

			c->out_of_memory = true;
			memset(&scratch, 0, sizeof(scratch));
			return &scratch;
		}
		c->devs = d;
		c->capdevs = cap;
	}
	memset(&c->devs[c->ndevs], 0, sizeof(c->devs[0]));
	c->devs[c->ndevs].dev = dev;
	return &c->devs[c->ndevs++];
}

static struct sc_proc *proc_get(struct sc_checker *c, const struct so_event *e)
{
	struct sc_proc *p;

	for (size_t i = c->nprocs; i-- > 0;)
		if (c->procs[i].pid == e->pid)
			return &c->procs[i];
	if (c->nprocs == c->capprocs) {
		size_t cap = c->capprocs ? c->capprocs * 2 : 16;

		p = realloc(c->procs, cap * sizeof(*p));
		if (!p) {
			static struct sc_proc scratch;

			c->out_of_memory = true;
			memset(&scratch, 0, sizeof(scratch));
			return &scratch;
		}
		c->procs = p;
		c->capprocs = cap;
	}
	p = &c->procs[c->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = e->pid;
	memcpy(p->comm, e->comm, SO_COMM_LEN);
	return p;
}

static void seq_add(struct sc_fault *f, const struct so_event *e)
{
	if (f->nseq >= SC_SEQ_MAX) {
		f->seq_omitted++;
		/* Keep the latest in the last slot: it is usually the culprit. */
		sc_format_event(e, f->seq[SC_SEQ_MAX - 1], SC_SEQ_LEN);
		return;
	}
	sc_format_event(e, f->seq[f->nseq++], SC_SEQ_LEN);
}

__attribute__((format(printf, 5, 6)))
static void report(struct sc_checker *c, struct sc_fault *f,
		   const struct so_event *e, enum sc_kind kind, const char *fmt, ...)
{
	struct sc_report *r;
	va_list ap;

	if (f) {
		if (f->kinds & (1u << kind))
			return;		/* once per fault and kind */
		if (sc_kind_is_violation(kind) && !(f->kinds & ((1u << SC_V_NR) - 1)))
			c->st.violating_faults++;
		f->kinds |= 1u << kind;
	}
	c->by_kind[kind]++;
	if (sc_kind_is_violation(kind))
		c->n_violations++;
	else
		c->n_errors++;
	{
		const struct so_event *who = f && f->state != F_NONE ? &f->enter : e;

		if (who) {
			struct sc_proc *p = proc_get(c, who);

			if (sc_kind_is_violation(kind) && !p->violations) {
				va_start(ap, fmt);
				vsnprintf(p->first, sizeof(p->first), fmt, ap);
				va_end(ap);
			}
			p->by_kind[kind]++;
			if (sc_kind_is_violation(kind))
				p->violations++;
			else
				p->errors++;
		}
	}
	if (c->nreports >= SC_DETAIL_MAX) {
		c->reports_dropped++;
		return;
	}
	r = &c->reports[c->nreports++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	if (f && f->state != F_NONE) {
		e = &f->enter;
	}
	if (e) {
		r->pid = e->pid;
		r->tid = e->tid;
		memcpy(r->comm, e->comm, SO_COMM_LEN);
		r->dev = e->dev;
		r->ino = e->ino;
		r->pgoff = e->pgoff;
		r->fs = e->fs;
		r->size = e->size;
	}
	va_start(ap, fmt);
	vsnprintf(r->text, sizeof(r->text), fmt, ap);
	va_end(ap);
	if (f) {
		r->nseq = f->nseq;
		memcpy(r->seq, f->seq, sizeof(r->seq));
		if (f->seq_omitted && r->nseq == SC_SEQ_MAX)
			snprintf(r->seq[SC_SEQ_MAX - 2], SC_SEQ_LEN, "... %u more events ...",
				 f->seq_omitted);
	}
}

static void set_required(struct sc_checker *c, __u64 req)
{
	struct sc_report *r = c->nreports ? &c->reports[c->nreports - 1] : NULL;

	if (r) {
		r->required = req;
		r->has_required = true;
	}
}

/* ---- the invariant ------------------------------------------------------------- */

enum req { REQ_ERROR, REQ_UNSUPPORTED, REQ_NONE, REQ_SOME };

/*
 * What must be durable before this fault may install a writable entry.
 * What the fault did decides, not the flags the filesystem reports:
 * - it changed metadata itself (ext4: dirtied a buffer through its jbd2
 *   handle inside iomap_begin; xfs: committed the inode into the CIL
 *   there) -> that transaction / CIL sequence;
 * - else, the filesystem reports IOMAP_F_NEW without a change seen (a hook
 *   that did not fire) -> the inode's tid / sequence after iomap_begin;
 * - else the block was mapped before: ext4: i_datasync_tid read when
 *   iomap_begin started, which covers every earlier mapping change and
 *   cannot be moved by later ones; xfs: at iomap_begin entry,
 *   ili_commit_seq if the inode was pinned with non-timestamp fsync fields
 *   (<= 6.12), or ili_datasync_seq (6.18); else nothing.
 */
static enum req required_by_iomap(const struct sc_fault *f, __u64 *req)
{
	const struct so_iomap_rec *m = &f->iomap.iomap;
	bool isnew;

	if (!f->have_iomap)
		return f->enter.fs == FS_OTHER ? REQ_UNSUPPORTED : REQ_ERROR;
	isnew = m->iomap_flags & SO_IOMAP_F_NEW;
	if (f->iomap.fs == FS_EXT4) {
		if ((m->fs_flags | f->enter.fault.fs_flags) &
		    (SO_FSF_EXT4_FAST_COMMIT | SO_FSF_EXT4_NO_JOURNAL))
			return REQ_UNSUPPORTED;
		if (m->own != ~0ULL && RULE(EXT4_OWN_TID)) {
			*req = m->own;
			return REQ_SOME;
		}
		*req = isnew ? m->seq_exit : m->seq_entry;
		return isnew || RULE(EXT4_CLEAN_REQ) ? REQ_SOME : REQ_NONE;
	}
	if (m->own != ~0ULL && RULE(XFS_OWN_SEQ)) {
		*req = m->own;
		return REQ_SOME;
	}
	if (isnew) {
		*req = m->seq_exit;
		return REQ_SOME;
	}
	if ((m->fs_flags & SO_FSF_XFS_DATASYNC_SEQ) && RULE(XFS_DATASYNC_SEQ)) {
		*req = m->dsync_entry;
		return *req ? REQ_SOME : REQ_NONE;
	}
	if (m->pin_entry && (!RULE(XFS_TIMESTAMP_EXEMPT) || (m->fields_entry & ~SO_XFS_ILOG_TIMESTAMP)) &&
	    RULE(XFS_PINNED_REQ)) {
		*req = m->seq_entry;
		return REQ_SOME;
	}
	return REQ_NONE;
}

/* A change the fault made after iomap_begin (xfs: iomap_end's CoW remap)
 * must be durable too: the later of the two. */
static enum req required(const struct sc_fault *f, __u64 *req)
{
	enum req r = required_by_iomap(f, req);

	if ((r != REQ_SOME && r != REQ_NONE) || !f->has_late || !RULE(LATE_CHANGE_REQ))
		return r;
	if (r == REQ_NONE || (f->enter.fs == FS_EXT4 ? !sc_tid_geq((__u32)*req, (__u32)f->late) :
			      *req < f->late))
		*req = f->late;
	return REQ_SOME;
}

/*
 * Is @req durable at the insertion @ins? Only the journal's or the log's
 * own commit state counts, never what the filesystem says of itself (a
 * return value, an inode's pin count).
 * ext4: j_commit_sequence at insertion covers it, and commit records go
 *   out flushed (barriers on, journal not aborted).
 * xfs: the CIL's completed sequence read at insertion covers it on a log
 *   that is not shut down, or a completed, not aborted checkpoint that
 *   covers it was seen before the insertion.
 */
static bool durable(struct sc_checker *c, const struct so_event *ins, __u64 req)
{
	__u16 lf = ins->insert.log_flags;
	struct sc_dev *d;

	if (ins->fs == FS_EXT4)
		return RULE(EXT4_COMMIT) && sc_tid_geq((__u32)ins->insert.commit, (__u32)req) &&
		       (!RULE(EXT4_FLUSHED) || !(lf & (SO_LOGF_NO_FLUSH | SO_LOGF_ABORTED)));
	if (RULE(XFS_LOG_STATE) && (!(lf & SO_LOGF_UNKNOWN) || !RULE(XFS_LOG_READ)) &&
	    ins->insert.commit >= req &&
	    (!(lf & SO_LOGF_ABORTED) || !RULE(XFS_LOG_SHUTDOWN)))
		return true;
	d = dev_get(c, ins->dev);
	return RULE(XFS_CHECKPOINT) && d->has_ckpt && d->ckpt >= req;
}

static void commit_state(struct sc_checker *c, const struct so_event *ins,
			 char *buf, size_t len)
{
	__u16 lf = ins->insert.log_flags;
	char ckpt[48] = "no checkpoint seen";
	struct sc_dev *d;

	if (ins->fs == FS_EXT4) {
		snprintf(buf, len, "j_commit_sequence %llu%s", (unsigned long long)ins->insert.commit,
			 lf & SO_LOGF_ABORTED ? ", journal aborted: commit records skipped" :
			 lf & SO_LOGF_NO_FLUSH ? ", journal without barriers: commit records not flushed" : "");
		return;
	}
	d = dev_get(c, ins->dev);
	if (d->has_ckpt)
		snprintf(ckpt, sizeof(ckpt), "last checkpoint seen %llu", (unsigned long long)d->ckpt);
	if (lf & SO_LOGF_UNKNOWN)
		snprintf(buf, len, "CIL state unreadable, %s, inode pincount %u", ckpt, ins->insert.pin);
	else
		snprintf(buf, len, "log complete through sequence %llu%s, %s, inode pincount %u",
			 (unsigned long long)ins->insert.commit,
			 lf & SO_LOGF_ABORTED ? " but shut down" : "", ckpt, ins->insert.pin);
}

static const char *what(int fs)
{
	return fs == FS_EXT4 ? "transaction" : "log sequence";
}

/* Check an insertion against the fault's requirement. */
static void check_commit(struct sc_checker *c, struct sc_fault *f,
			 const struct so_event *ins, bool sync)
{
	char state[128], a[64], b[64];
	enum req r;
	__u64 req = 0;

	r = required(f, &req);
	if (r == REQ_ERROR) {
		report(c, f, ins, SC_E_NO_IOMAP,
		       "writable entry installed but no %s iomap_begin record for the fault: cannot check it",
		       fault_fs_name(f->enter.fs));
		return;
	}
	if (r == REQ_UNSUPPORTED) {
		struct sc_dev *d = dev_get(c, f->enter.dev);

		c->st.unsupported++;
		if (!d->unsupported_reported) {
			__u32 fl = f->enter.fault.fs_flags;

			d->unsupported_reported = true;
			report(c, f, ins, SC_E_UNSUPPORTED, "%s",
			       fl & SO_FSF_EXT4_FAST_COMMIT ?
			       "ext4 with fast_commit: durability comes from fast commits, not jbd2 commits; "
			       "the per-fault check does not model them (mkfs.ext4 -O ^fast_commit)" :
			       fl & SO_FSF_EXT4_NO_JOURNAL ?
			       "ext4 without a journal: nothing to commit, the check does not apply" :
			       "filesystem other than ext4 or xfs: not checked");
		}
		return;
	}
	c->st.checked++;
	proc_get(c, ins)->checked++;
	if (r == REQ_NONE || durable(c, ins, req)) {
		if (ins->fs == FS_EXT4 ? !sc_tid_geq((__u32)ins->insert.commit, (__u32)ins->insert.seq) :
		    ins->insert.pin > 0)
			c->st.naive_flagged++, proc_get(c, ins)->naive_flagged++;
		return;
	}
	commit_state(c, ins, state, sizeof(state));
	if (sync ? !RULE(SYNC_UNCOMMITTED) : !RULE(DIRECT_UNCOMMITTED))
		return;
	if (sync) {
		report(c, f, ins, SC_V_SYNC_UNCOMMITTED,
		       "metadata sync returned 0 but %s %llu is not committed (%s) when the writable %s goes in",
		       what(f->enter.fs), (unsigned long long)req, state,
		       insert_what(&ins->insert));
	} else {
		BITS(a, f->have_iomap ? f->iomap.iomap.iomap_flags : 0, IOMAP_FLAG_NAMES);
		if (f->have_iter)
			BITS(b, f->iter.iter.iomap_flags, IOMAP_FLAG_NAMES);
		else
			snprintf(b, sizeof(b), "not seen");
		report(c, f, ins, SC_V_DIRECT_UNCOMMITTED,
		       "writable entry over uncommitted %s %llu (%s), no NEEDDSYNC returned "
		       "(iomap flags from the fs %s, at dax_fault_iter %s)",
		       what(f->enter.fs), (unsigned long long)req, state, a, b);
	}
	set_required(c, req);
}

static bool same_page(const struct sc_fault *f, const struct so_event *e)
{
	if (e->dev != f->enter.dev || e->ino != f->enter.ino)
		return false;
	if (f->enter.size == FAULT_SZ_PMD && RULE(PMD_PAGE))
		return e->pgoff >> 9 == f->enter.pgoff >> 9;
	return e->pgoff == f->enter.pgoff || !RULE(WRONG_PAGE);
}

/*
 * The entry must map the block the filesystem's iomap gave for the fault's
 * offset: device byte iomap.addr + (pos - iomap.offset), as a pfn through
 * the driver's own translation (dax_direct_access). A pmem device maps
 * linearly: pfn = base + device page, one base per device; a device whose
 * translations disagree on the base is not judged (counted unchecked).
 */
static void check_pfn(struct sc_checker *c, struct sc_fault *f, const struct so_event *ins)
{
	struct sc_dev *d = dev_get(c, ins->dev);
	__u64 pos, dev_page, want;

	if (ins->insert.pfn == SO_PFN_UNKNOWN || !f->have_iter ||
	    f->iter.iter.addr == SO_IOMAP_NULL_ADDR || !d->has_base ||
	    (d->nonlinear && RULE(PFN_LINEAR))) {
		c->st.pfn_unchecked++;
		return;
	}
	pos = (f->enter.size == FAULT_SZ_PMD ? f->enter.pgoff & ~511ULL : f->enter.pgoff) << 12;
	dev_page = (f->iter.iter.addr + pos - f->iter.iter.offset) >> 12;
	want = d->base + dev_page;
	c->st.pfn_checked++;
	proc_get(c, ins)->pfn_checked++;
	if (ins->insert.pfn == want || !RULE(PFN_BLOCK))
		return;
	report(c, f, ins, SC_V_WRONG_PFN,
	       "writable %s maps pfn 0x%llx, but the iomap puts offset %llu at device page %llu, "
	       "which is pfn 0x%llx",
	       insert_what(&ins->insert), (unsigned long long)ins->insert.pfn,
	       (unsigned long long)pos, (unsigned long long)dev_page, (unsigned long long)want);
}

/* ---- events -------------------------------------------------------------------- */

static void end_fault(struct sc_checker *c, struct sc_task *t, const char *why)
{
	struct sc_fault *f = &t->f;

	if (f->state == F_AWAIT_SYNC && RULE(NO_SYNC))
		report(c, f, NULL, SC_V_NO_SYNC,
		       "dax_iomap_fault returned NEEDDSYNC but dax_finish_sync_fault was not called (%s)", why);
	else if (f->state == F_IN_FAULT || f->state == F_IN_SYNC)
		report(c, f, NULL, SC_E_SEQUENCE, "fault still in %s when %s",
		       f->state == F_IN_FAULT ? "dax_iomap_fault" : "dax_finish_sync_fault", why);
	memset(f, 0, sizeof(*f));
}

static void on_fault_enter(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	if (f->state != F_NONE && f->state != F_DONE)
		end_fault(c, t, "the task entered its next fault");
	memset(f, 0, sizeof(*f));
	f->state = F_IN_FAULT;
	f->enter = *e;
	seq_add(f, e);
	c->st.faults++;
	proc_get(c, e)->faults++;
	if (e->fs == FS_EXT4)
		c->st.faults_ext4++;
	else if (e->fs == FS_XFS)
		c->st.faults_xfs++;
	else
		c->st.faults_other++;
	if (e->size == FAULT_SZ_PMD)
		c->st.faults_pmd++;
	else
		c->st.faults_pte++;
	dev_get(c, e->dev);
}

/* A violation of an insertion no fault is around: the report's fault is
 * the insertion alone, its sequence that one event. */
static void report_alone(struct sc_checker *c, const struct so_event *e, enum sc_kind k,
			 const char *text)
{
	struct sc_fault tmp = { 0 };

	tmp.enter = *e;
	seq_add(&tmp, e);
	report(c, &tmp, e, k, "%s", text);
}

static void on_insert(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	/* A read-only PTE made writable by the generic write-protect path:
	 * ->pfn_mkwrite returned 0, no DAX fault decided anything. */
	if (e->insert.how == SO_INS_WP && RULE(WP_REUSE)) {
		report_alone(c, e, SC_V_WP_REUSE,
			     "writable PTE made by the generic write-protect path (finish_mkwrite_fault: "
			     "->pfn_mkwrite returned 0), no DAX fault decided it");
		return;
	}
	/* Two hooks on one insertion (a helper calling another): once. */
	if (f->last_was_insert && f->last_insert_addr == e->insert.address &&
	    f->last_insert_how == e->insert.how)
		return;
	if (f->state != F_NONE)
		seq_add(f, e);
	f->last_was_insert = true;
	f->last_insert_addr = e->insert.address;
	f->last_insert_how = e->insert.how;

	switch (f->state) {
	case F_IN_FAULT:
		f->n_direct++;
		c->st.direct_inserts++;
		proc_get(c, e)->direct_inserts++;
		if (!same_page(f, e))
			report(c, f, e, SC_V_WRONG_PAGE,
			       "writable entry for pgoff %llu inside the fault on pgoff %llu",
			       (unsigned long long)e->pgoff, (unsigned long long)f->enter.pgoff);
		check_pfn(c, f, e);
		check_commit(c, f, e, false);
		break;
	case F_AWAIT_SYNC:
		if (RULE(INSERT_BEFORE_SYNC))
			report(c, f, e, SC_V_INSERT_BEFORE_SYNC,
		       "writable entry installed after NEEDDSYNC but before dax_finish_sync_fault");
		break;
	case F_IN_SYNC:
		f->n_sync++;
		c->st.sync_inserts++;
		proc_get(c, e)->sync_inserts++;
		if (!same_page(f, e))
			report(c, f, e, SC_V_WRONG_PAGE,
			       "writable entry for pgoff %llu in the sync of the fault on pgoff %llu",
			       (unsigned long long)e->pgoff, (unsigned long long)f->enter.pgoff);
		check_pfn(c, f, e);
		if ((!f->fsync_done || f->fsync_ret != 0) && RULE(INSERT_BEFORE_FSYNC)) {
			if (f->fsync_done)
				report(c, f, e, SC_V_INSERT_BEFORE_FSYNC,
				       "writable entry installed although the metadata sync failed (%d)",
				       f->fsync_ret);
			else
				report(c, f, e, SC_V_INSERT_BEFORE_FSYNC, "%s",
				       f->fsync_entered ?
				       "writable entry installed while the metadata sync was running" :
				       "writable entry installed without a metadata sync");
			break;
		}
		{
			__u64 pos = f->enter.pgoff << 12;

			if ((f->fsync_start > pos || f->fsync_end < pos) && RULE(FSYNC_RANGE))
				report(c, f, e, SC_V_FSYNC_RANGE,
				       "metadata sync covered %llu..%llu, not the faulting offset %llu",
				       (unsigned long long)f->fsync_start,
				       (unsigned long long)f->fsync_end, (unsigned long long)pos);
		}
		check_commit(c, f, e, true);
		break;
	default:
		if (RULE(INSERT_OUTSIDE))
			report_alone(c, e, SC_V_INSERT_OUTSIDE,
				     "writable entry installed in a VM_SYNC mapping outside any traced DAX fault");
	}
}

static void on_global(struct sc_checker *c, const struct so_event *e)
{
	struct sc_dev *d = dev_get(c, e->dev);

	switch (e->type) {
	case SO_EV_JBD2_COMMIT:
		c->st.jbd2_commits++;
		d->has_commit = true;
		d->commit = e->log.seq;
		break;
	case SO_EV_XFS_CKPT:
		c->st.xfs_checkpoints++;
		if ((!e->log.aux || !RULE(XFS_ABORTED_CKPT)) && (!d->has_ckpt || e->log.seq > d->ckpt)) {
			d->ckpt = e->log.seq;
			d->has_ckpt = true;
		}
		break;
	}
	/* Shown in the sequence of every fault in flight on that device. */
	for (size_t i = 0; i < c->nbuckets; i++)
		for (struct sc_task *t = c->buckets[i]; t; t = t->next)
			if (t->f.state != F_NONE && t->f.state != F_DONE &&
			    t->f.enter.dev == e->dev)
				seq_add(&t->f, e);
}

/*
 * True when @e belongs to a fault that was already running when the probes
 * were attached (see SC_INFLIGHT_WINDOW_NS): it is skipped, not judged.
 */
static bool skip_in_flight(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	if (t->join == T_JOINED)
		return false;
	if (e->type == SO_EV_FAULT_ENTER) {
		t->join = T_JOINED;
		return false;
	}
	if (t->join == T_NEW) {
		if (e->type == SO_EV_HANDLER_EXIT) {
			t->join = T_JOINED;	/* between faults from here on */
			return true;
		}
		if (!c->attach_set || e->ts > c->attach_ns + SC_INFLIGHT_WINDOW_NS) {
			t->join = T_JOINED;
			return false;
		}
		t->join = T_SKIPPING;
		c->st.skipped_in_flight++;
	}
	if (e->type == SO_EV_HANDLER_EXIT)
		t->join = T_JOINED;
	return true;
}

void sc_set_attach_time(struct sc_checker *c, __u64 ns)
{
	c->attach_ns = ns;
	c->attach_set = true;
}

/* Is the task's fault in @state for record @e? Then the record joins its
 * sequence; else it is a sequence error, @msg. */
static bool expect_state(struct sc_checker *c, struct sc_fault *f, const struct so_event *e,
			 enum fstate state, const char *msg)
{
	if (f->state != state) {
		report(c, NULL, e, SC_E_SEQUENCE, "%s", msg);
		return false;
	}
	seq_add(f, e);
	return true;
}

/* The iomap the filesystem returned, or the one DAX acts on. */
static void on_iomap_record(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	if (!expect_state(c, f, e, F_IN_FAULT, "iomap record outside dax_iomap_fault"))
		return;
	if (e->type == SO_EV_IOMAP) {
		f->have_iomap = true;
		f->iomap = *e;
		if (e->iomap.iomap_flags & SO_IOMAP_F_NEW)
			c->st.allocating++, proc_get(c, e)->allocating++;
	} else {
		f->have_iter = true;
		f->iter = *e;
	}
}

/*
 * The fault changed its inode's metadata after iomap_begin returned (xfs:
 * iomap_end remaps the CoW block into the file). An entry already in place
 * maps a block the file does not map yet: no commit state can make that
 * right. Later entries (the sync path) require the change durable.
 */
static void on_late_change(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	if (!expect_state(c, f, e, F_IN_FAULT, "metadata change of a fault outside dax_iomap_fault"))
		return;
	f->has_late = true;
	f->late = e->log.seq;
	if (f->n_direct && RULE(CHANGE_AFTER_INSERT))
		report(c, f, e, SC_V_CHANGE_AFTER_INSERT,
		       "the fault changed the file's block mapping (%s %llu) after its writable entry "
		       "went in (iomap flags %s): the entry maps a block the file does not map yet",
		       what(f->enter.fs), (unsigned long long)e->log.seq,
		       f->have_iter && (f->iter.iter.iomap_flags & SO_IOMAP_F_SHARED) ?
		       "SHARED: copy-on-write" : "not shared");
}

/* The driver's translation the fault asked for: the device's base. */
static void on_dax_access(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_dev *d;
	__u64 base = e->dax.pfn - e->dax.dev_pgoff;

	if (!expect_state(c, &t->f, e, F_IN_FAULT, "dax_direct_access record outside dax_iomap_fault"))
		return;
	d = dev_get(c, e->dev);
	if (!d->has_base) {
		d->has_base = true;
		d->base = base;
	} else if (d->base != base && !d->nonlinear) {
		d->nonlinear = true;
		c->st.dax_nonlinear++;
	}
}

/* dax_iomap_fault returned: NEEDDSYNC means a sync must follow. */
static void on_fault_exit(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	if (!expect_state(c, f, e, F_IN_FAULT, "dax_iomap_fault return without its entry"))
		return;
	f->ret = (__u32)e->ret;
	if (f->ret & SO_VM_FAULT_NEEDDSYNC) {
		c->st.needdsync++;
		proc_get(c, e)->needdsync++;
		if (f->n_direct && RULE(INSERT_IN_NEEDDSYNC))
			report(c, f, e, SC_V_INSERT_IN_NEEDDSYNC,
			       "dax_iomap_fault returned NEEDDSYNC after installing a writable entry");
		f->state = F_AWAIT_SYNC;
	} else {
		if (f->n_direct && f->have_iter && RULE(DIRTY_NOT_SYNC) &&
		    (f->iter.iter.iomap_flags & SO_IOMAP_F_DIRTY) &&
		    (f->iter.iter.iter_flags & SO_IOMAP_WRITE))
			report(c, f, e, SC_V_DIRTY_NOT_SYNC,
			       "IOMAP_F_DIRTY reached dax_fault_iter on a VM_SYNC write fault, "
			       "yet a writable entry went in and no NEEDDSYNC was returned");
		f->state = F_DONE;
	}
}

/* dax_finish_sync_fault: the sync of the NEEDDSYNC fault before it. */
static void on_sync_enter(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	if (f->state != F_AWAIT_SYNC) {
		struct sc_fault tmp = { 0 };

		tmp.enter = *e;
		seq_add(&tmp, e);
		report(c, &tmp, e, SC_E_SEQUENCE,
		       "dax_finish_sync_fault without a preceding NEEDDSYNC fault in the task");
		/* Track it anyway so its insertion is checked. */
		memset(f, 0, sizeof(*f));
		f->enter = *e;
		f->enter.fault.fs_flags = 0;
		f->state = F_IN_SYNC;
		seq_add(f, e);
		return;
	}
	seq_add(f, e);
	c->st.syncs++;
	if (!same_page(f, e))
		report(c, f, e, SC_V_WRONG_PAGE,
		       "dax_finish_sync_fault for pgoff %llu after the NEEDDSYNC fault on pgoff %llu",
		       (unsigned long long)e->pgoff, (unsigned long long)f->enter.pgoff);
	f->state = F_IN_SYNC;
}

/* The metadata sync inside dax_finish_sync_fault. */
static void on_fsync(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	if (!expect_state(c, f, e, F_IN_SYNC, "metadata sync outside dax_finish_sync_fault"))
		return;
	f->fsync_start = e->fsync.start;
	f->fsync_end = e->fsync.end;
	if (e->type == SO_EV_FSYNC_ENTER) {
		f->fsync_entered = true;
	} else {
		f->fsync_done = true;
		f->fsync_ret = e->fsync.ret;
	}
}

/* An xfs log force inside a sync fault: shown, not evidence (its return
 * value is what the code under test says of itself). */
static void on_xfs_force(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	if (t->f.state == F_IN_SYNC)
		seq_add(&t->f, e);
	c->st.xfs_forces++;
}

/* fs_dax:dax_insert_pfn_mkwrite(_no_entry): the writable entry of a sync fault. */
static void on_mkwrite(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	if (e->no_entry)
		c->st.no_entry++;
	if (!expect_state(c, f, e, F_IN_SYNC, "dax_insert_pfn_mkwrite outside dax_finish_sync_fault"))
		return;
	f->mkwrite_seen = true;
	if (!same_page(f, e))
		report(c, f, e, SC_V_WRONG_PAGE,
		       "dax_insert_pfn_mkwrite for pgoff %llu in the sync of the fault on pgoff %llu",
		       (unsigned long long)e->pgoff, (unsigned long long)f->enter.pgoff);
	if (!e->no_entry && !f->n_sync)
		report(c, f, e, SC_E_SEQUENCE,
		       "dax_insert_pfn_mkwrite fired but the insertion itself was not observed");
	else if (!e->no_entry && !f->fsync_done && RULE(INSERT_BEFORE_FSYNC))
		report(c, f, e, SC_V_INSERT_BEFORE_FSYNC,
		       "dax_insert_pfn_mkwrite before the metadata sync returned");
}

/* dax_finish_sync_fault returned. */
static void on_sync_exit(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	if (!expect_state(c, f, e, F_IN_SYNC, "dax_finish_sync_fault return without its entry"))
		return;
	if (f->fsync_done && f->fsync_ret == 0 && !f->mkwrite_seen)
		report(c, f, e, SC_E_SEQUENCE,
		       "metadata sync succeeded but dax_insert_pfn_mkwrite was not seen");
	if (!f->fsync_entered && !f->n_sync)
		report(c, f, e, SC_E_SEQUENCE,
		       "dax_finish_sync_fault returned without a metadata sync (vfs_fsync_range hook missed?)");
	f->state = F_DONE;
}

/* The fs fault handler returned: nothing of the fault is in flight. */
static void on_handler_exit(struct sc_checker *c, struct sc_task *t, const struct so_event *e)
{
	struct sc_fault *f = &t->f;

	if (f->state != F_NONE) {
		seq_add(f, e);
		end_fault(c, t, "the fault handler returned");
	}
}

/* What each per-task record does to its task's fault. */
static void (*const on_event[SO_EV_NR])(struct sc_checker *, struct sc_task *,
					const struct so_event *) = {
	[SO_EV_FAULT_ENTER] = on_fault_enter,
	[SO_EV_IOMAP] = on_iomap_record,
	[SO_EV_FAULT_ITER] = on_iomap_record,
	[SO_EV_DAX_ACCESS] = on_dax_access,
	[SO_EV_LATE_CHANGE] = on_late_change,
	[SO_EV_INSERT] = on_insert,
	[SO_EV_FAULT_EXIT] = on_fault_exit,
	[SO_EV_SYNC_ENTER] = on_sync_enter,
	[SO_EV_FSYNC_ENTER] = on_fsync,
	[SO_EV_FSYNC_EXIT] = on_fsync,
	[SO_EV_XFS_FORCE] = on_xfs_force,
	[SO_EV_MKWRITE] = on_mkwrite,
	[SO_EV_SYNC_EXIT] = on_sync_exit,
	[SO_EV_HANDLER_EXIT] = on_handler_exit,
};

void sc_feed(struct sc_checker *c, const struct so_event *e)
{
	struct sc_task *t;
	struct sc_fault *f;

	if (c->out_of_memory)
		return;
	c->st.events++;
	if (e->type == SO_EV_JBD2_COMMIT || e->type == SO_EV_XFS_CKPT) {
		on_global(c, e);
		return;
	}
	t = task_get(c, e->tid, true);
	if (skip_in_flight(c, t, e))
		return;
	f = &t->f;
	if (e->type != SO_EV_INSERT)
		f->last_was_insert = false;

	if (e->type < SO_EV_NR && on_event[e->type])
		on_event[e->type](c, t, e);
	else
		report(c, NULL, e, SC_E_SEQUENCE, "unknown event type %u", e->type);
}

void sc_set_drops(struct sc_checker *c, unsigned long long drops)
{
	c->st.drops = drops;
}

void sc_finish(struct sc_checker *c)
{
	if (c->finished)
		return;
	c->finished = true;
	for (size_t i = 0; i < c->nbuckets; i++)
		for (struct sc_task *t = c->buckets[i]; t; t = t->next)
			if (t->f.state == F_IN_FAULT || t->f.state == F_AWAIT_SYNC ||
			    t->f.state == F_IN_SYNC)
				c->st.in_flight++;
	if (c->st.drops)
		report(c, NULL, NULL, SC_E_DROPS,
		       "%llu event records were lost (ring buffer full): the check is incomplete",
		       c->st.drops);
}

enum ktap_verdict sc_result(const struct sc_checker *c)
{
	if (c->n_violations || c->n_errors || c->st.drops || c->out_of_memory)
		return KTAP_FAILED;
	return c->st.checked ? KTAP_PASSED : KTAP_ALL_SKIPPED;
}
