// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of syncorder's state machine (validate/syncorder_check.c):
 * synthetic event sequences shaped like what the BPF side records on 6.1,
 * for the clean paths, the two injected bugs, and the cases a naive
 * per-inode check gets wrong.
 */
#include <stdio.h>
#include <string.h>

#include "ktap.h"
#include "syncorder_check.h"

#define DEV_EXT4	((259u << 20) | 0)
#define DEV_XFS		((259u << 20) | 1)
#define INO		12
#define NONE		(~0ULL)
/* The iomaps of iter() put file page p at device page BLOCK0 + p; the
 * device's pages start at pfn PFN0. */
#define BLOCK0		1000ULL
#define PFN0		0x140000ULL

/* ---- event builders ---------------------------------------------------------- */

static struct so_event ev(__u8 type, __u32 tid, __u8 fs, __u64 pgoff)
{
	struct so_event e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.pid = 1000 + tid % 100;	/* threads of one process share a pid */
	e.tid = tid;
	e.fs = fs;
	e.dev = fs == FS_XFS ? DEV_XFS : DEV_EXT4;
	e.ino = INO;
	e.pgoff = pgoff;
	snprintf(e.comm, sizeof(e.comm), "t%u", tid);
	return e;
}

static void feed(struct sc_checker *c, struct so_event e)
{
	sc_feed(c, &e);
}

static void fault_enter(struct sc_checker *c, __u32 tid, __u8 fs, __u64 pgoff, __u8 size, __u32 fs_flags)
{
	struct so_event e = ev(SO_EV_FAULT_ENTER, tid, fs, pgoff);

	e.size = size;
	e.fault.address = 0x7f0000000000ULL + pgoff * 4096;
	e.fault.vm_flags = SO_VM_SYNC | SO_VM_SHARED;
	e.fault.vmf_flags = SO_FAULT_FLAG_WRITE;
	e.fault.fs_flags = fs_flags;
	feed(c, e);
}

/* ext4_iomap_begin returned: i_datasync_tid at entry/exit, the fault's
 * handle tid, j_commit_sequence. */
static void ext4_iomap(struct sc_checker *c, __u32 tid, __u64 pgoff, __u16 flags,
		       __u64 tid_entry, __u64 tid_exit, __u64 own, __u64 commit)
{
	struct so_event e = ev(SO_EV_IOMAP, tid, FS_EXT4, pgoff);

	e.iomap.offset = pgoff * 4096;
	e.iomap.length = 4096;
	e.iomap.flags_in = SO_IOMAP_WRITE | SO_IOMAP_FAULT | 0x100;
	e.iomap.iomap_flags = flags;
	e.iomap.iomap_type = 2;
	e.iomap.seq_entry = tid_entry;
	e.iomap.seq_exit = tid_exit;
	e.iomap.own = own;
	e.iomap.commit = commit;
	feed(c, e);
}

/* xfs_direct_write_iomap_begin returned: ili_commit_seq, pin count and
 * fsync fields at entry and exit. */
static void xfs_iomap(struct sc_checker *c, __u32 tid, __u64 pgoff, __u16 flags,
		      __u64 seq_entry, __u32 pin_entry, __u32 fields_entry,
		      __u64 seq_exit, __u32 pin_exit)
{
	struct so_event e = ev(SO_EV_IOMAP, tid, FS_XFS, pgoff);

	e.iomap.offset = pgoff * 4096;
	e.iomap.length = 4096;
	e.iomap.flags_in = SO_IOMAP_WRITE | SO_IOMAP_FAULT | 0x100;
	e.iomap.iomap_flags = flags;
	e.iomap.iomap_type = 2;
	e.iomap.seq_entry = seq_entry;
	e.iomap.pin_entry = pin_entry;
	e.iomap.fields_entry = fields_entry;
	e.iomap.seq_exit = seq_exit;
	e.iomap.pin_exit = pin_exit;
	e.iomap.own = NONE;
	feed(c, e);
}

static void iter(struct sc_checker *c, __u32 tid, __u8 fs, __u64 pgoff, __u16 flags)
{
	struct so_event e = ev(SO_EV_FAULT_ITER, tid, fs, pgoff);

	e.iter.iter_flags = SO_IOMAP_WRITE | SO_IOMAP_FAULT;
	e.iter.iomap_flags = flags;
	e.iter.iomap_type = 2;
	e.iter.offset = pgoff * 4096;
	e.iter.length = 4096;
	e.iter.addr = (BLOCK0 + pgoff) * 4096;
	feed(c, e);
}

/* dax_direct_access of the fault: device page @dev_page is @pfn. */
static void dax_access(struct sc_checker *c, __u32 tid, __u8 fs, __u64 pgoff, __u64 dev_page,
		       __u64 pfn, __s64 nr)
{
	struct so_event e = ev(SO_EV_DAX_ACCESS, tid, fs, pgoff);

	e.dax.dev_pgoff = dev_page;
	e.dax.pfn = pfn;
	e.dax.nr = nr;
	feed(c, e);
}

/* A writable PTE insertion of page @pgoff, the commit state to be filled. */
static struct so_event insert_ev(__u32 tid, __u8 fs, __u64 pgoff)
{
	struct so_event e = ev(SO_EV_INSERT, tid, fs, pgoff);

	e.insert.address = 0x7f0000000000ULL + pgoff * 4096;
	e.insert.how = SO_INS_PTE;
	e.insert.write = 1;
	e.insert.pfn = SO_PFN_UNKNOWN;
	return e;
}

static void insert_ext4_pfn(struct sc_checker *c, __u32 tid, __u64 pgoff, __u64 commit,
			    __u64 datasync_tid, __u64 pfn)
{
	struct so_event e = insert_ev(tid, FS_EXT4, pgoff);

	e.insert.commit = commit;
	e.insert.running = commit + 1;
	e.insert.seq = datasync_tid;
	e.insert.pfn = pfn;
	feed(c, e);
}

/* ... whose pfn is not what the case is about. */
static void insert_ext4(struct sc_checker *c, __u32 tid, __u64 pgoff, __u64 commit, __u64 datasync_tid)
{
	insert_ext4_pfn(c, tid, pgoff, commit, datasync_tid, SO_PFN_UNKNOWN);
}

/* An xfs insertion: the inode's pin count and ili_commit_seq, and the log's
 * state (complete through @done, SO_LOGF_* @log_flags). */
static void insert_xfs_log(struct sc_checker *c, __u32 tid, __u64 pgoff, __u32 pin, __u64 seq,
			   __u64 done, __u16 log_flags)
{
	struct so_event e = insert_ev(tid, FS_XFS, pgoff);

	e.insert.pin = pin;
	e.insert.seq = seq;
	e.insert.commit = done;
	e.insert.running = done + 1;
	e.insert.log_flags = log_flags;
	feed(c, e);
}

/* ... with the log known complete through sequence 0 only. */
static void insert_xfs(struct sc_checker *c, __u32 tid, __u64 pgoff, __u32 pin, __u64 seq)
{
	insert_xfs_log(c, tid, pgoff, pin, seq, 0, 0);
}

static void ret_event(struct sc_checker *c, __u8 type, __u32 tid, __u8 fs, __u64 pgoff, __s64 ret)
{
	struct so_event e = ev(type, tid, fs, pgoff);

	e.ret = ret;
	feed(c, e);
}

static void fsync(struct sc_checker *c, __u32 tid, __u8 fs, __u64 pgoff, __s32 ret, __u64 commit)
{
	struct so_event e = ev(SO_EV_FSYNC_ENTER, tid, fs, pgoff);

	e.fsync.start = pgoff * 4096;
	e.fsync.end = pgoff * 4096 + 4095;
	e.fsync.datasync = 1;
	feed(c, e);
	e.type = SO_EV_FSYNC_EXIT;
	e.fsync.ret = ret;
	e.fsync.commit = commit;
	feed(c, e);
}

static void mkwrite(struct sc_checker *c, __u32 tid, __u8 fs, __u64 pgoff, bool no_entry)
{
	struct so_event e = ev(SO_EV_MKWRITE, tid, fs, pgoff);

	e.no_entry = no_entry;
	e.ret = SO_VM_FAULT_NOPAGE;
	feed(c, e);
}

static void global(struct sc_checker *c, __u8 type, __u8 fs, __u64 seq)
{
	struct so_event e = ev(type, 0, fs, 0);

	e.log.seq = seq;
	feed(c, e);
}

#define NEEDDSYNC	(SO_VM_FAULT_NEEDDSYNC | 0x4)
#define NOPAGE		SO_VM_FAULT_NOPAGE
#define NEW_DIRTY	(SO_IOMAP_F_NEW | SO_IOMAP_F_DIRTY)

/* A complete, correct synchronous fault on ext4: allocation in transaction
 * T, NEEDDSYNC, fsync commits T, then the writable entry. */
static void ext4_sync_fault(struct sc_checker *c, __u32 tid, __u64 pgoff, __u32 t)
{
	fault_enter(c, tid, FS_EXT4, pgoff, FAULT_SZ_PTE, 0);
	ext4_iomap(c, tid, pgoff, NEW_DIRTY, t - 1, t, t, t - 1);
	iter(c, tid, FS_EXT4, pgoff, NEW_DIRTY);
	ret_event(c, SO_EV_FAULT_EXIT, tid, FS_EXT4, pgoff, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, tid, FS_EXT4, pgoff, 0);
	global(c, SO_EV_JBD2_COMMIT, FS_EXT4, t);
	fsync(c, tid, FS_EXT4, pgoff, 0, t);
	insert_ext4(c, tid, pgoff, t, t);
	mkwrite(c, tid, FS_EXT4, pgoff, false);
	ret_event(c, SO_EV_SYNC_EXIT, tid, FS_EXT4, pgoff, NOPAGE);
	ret_event(c, SO_EV_HANDLER_EXIT, tid, FS_EXT4, pgoff, NOPAGE);
}

/* An allocating ext4 PTE fault (task 1) up to dax_iomap_fault returning
 * NEEDDSYNC; ext4_iomap's arguments: i_datasync_tid at entry and return,
 * the handle's tid, j_commit_sequence. */
static void ext4_needdsync_fault(struct sc_checker *c, __u64 pgoff, __u64 tid_entry, __u64 tid_exit,
				 __u64 own, __u64 commit)
{
	fault_enter(c, 1, FS_EXT4, pgoff, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, pgoff, NEW_DIRTY, tid_entry, tid_exit, own, commit);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, pgoff, NEEDDSYNC);
}

static const struct sc_report *first_report(const struct sc_checker *c, enum sc_kind k)
{
	for (size_t i = 0; i < c->nreports; i++)
		if (c->reports[i].kind == k)
			return &c->reports[i];
	return NULL;
}

static void expect_only(struct ktap_case_ctx *t, const struct sc_checker *c, enum sc_kind k,
			unsigned long long want, const char *text)
{
	const struct sc_report *r = first_report(c, k);

	KTAP_EXPECT(t, c->by_kind[k] == want && c->n_violations + c->n_errors == want,
		    "%s %llu of %llu reports, want %llu: %s", sc_kind_name(k), c->by_kind[k],
		    c->n_violations + c->n_errors, want, c->nreports ? c->reports[0].text : "");
	if (want && text)
		KTAP_EXPECT(t, r && strstr(r->text, text), "diagnosis: %s", r ? r->text : "(none)");
}

static struct sc_checker *done(struct sc_checker *c)
{
	sc_finish(c);
	return c;
}

/* ---- cases ------------------------------------------------------------------- */

static void clean_sync_fault_ext4(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	for (__u32 p = 0; p < 8; p++)
		ext4_sync_fault(c, 1, p, 10 + p);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED, "result %d, want 0", sc_result(c));
	KTAP_EXPECT(t, c->st.checked == 8 && c->st.sync_inserts == 8 && c->st.needdsync == 8,
		    "checked %llu, sync %llu, needdsync %llu", c->st.checked, c->st.sync_inserts,
		    c->st.needdsync);
	KTAP_EXPECT(t, c->n_violations == 0 && c->n_errors == 0, "%llu violations, %llu errors",
		    c->n_violations, c->n_errors);
	sc_free(c);
}

/* Written, synced file: no allocation, the inode's datasync tid long
 * committed; the fault dirtied nothing through its handle (transaction 8,
 * still open), so nothing of 8 is required. */
static void clean_direct_fault_ext4(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_EXT4, 3, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 3, 0, 7, 7, NONE, 7);
	iter(c, 1, FS_EXT4, 3, 0);
	insert_ext4(c, 1, 3, 7, 7);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 3, NOPAGE);
	ret_event(c, SO_EV_HANDLER_EXIT, 1, FS_EXT4, 3, NOPAGE);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED, "result %d, want 0", sc_result(c));
	KTAP_EXPECT(t, c->st.direct_inserts == 1 && c->st.checked == 1,
		    "direct %llu checked %llu", c->st.direct_inserts, c->st.checked);
	sc_free(c);
}

/* Bug (a): IOMAP_F_DIRTY cleared; dax installs the entry inside
 * dax_iomap_fault while the fault's own transaction 5 is open. */
static void mutant_a_clear_dirty(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	const struct sc_report *r;

	fault_enter(c, 1, FS_EXT4, 0, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 0, NEW_DIRTY, 4, 5, 5, 4);
	iter(c, 1, FS_EXT4, 0, SO_IOMAP_F_NEW);
	insert_ext4(c, 1, 0, 4, 5);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 0, NOPAGE | 0x4);
	ret_event(c, SO_EV_HANDLER_EXIT, 1, FS_EXT4, 0, NOPAGE);
	done(c);
	r = first_report(c, SC_V_DIRECT_UNCOMMITTED);
	KTAP_EXPECT(t, sc_result(c) == KTAP_FAILED, "result %d, want 1", sc_result(c));
	KTAP_EXPECT(t, r != NULL, "no direct_uncommitted report");
	KTAP_EXPECT(t, c->n_violations == 1, "%llu violations, want 1", c->n_violations);
	if (r) {
		KTAP_EXPECT(t, strstr(r->text, "uncommitted transaction 5") &&
			    strstr(r->text, "no NEEDDSYNC returned"), "diagnosis: %s", r->text);
		KTAP_EXPECT(t, r->has_required && r->required == 5, "required %llu",
			    (unsigned long long)r->required);
		KTAP_EXPECT(t, r->pid == 1001 && r->tid == 1 && r->pgoff == 0 &&
			    r->dev == DEV_EXT4 && r->ino == INO && r->size == FAULT_SZ_PTE,
			    "pid %u tid %u pgoff %llu dev %x", r->pid, r->tid,
			    (unsigned long long)r->pgoff, r->dev);
		KTAP_EXPECT(t, r->nseq == 4 && strstr(r->seq[0], "dax_iomap_fault(pgoff 0") &&
			    strstr(r->seq[3], "writable PTE"), "sequence of %d events: %s ... %s",
			    r->nseq, r->seq[0], r->nseq ? r->seq[r->nseq - 1] : "");
	}
	sc_free(c);
}

/* Bug (b): the fs fsync was skipped; vfs_fsync_range returned 0 but
 * transaction 5 is still open when the entry goes in. */
static void mutant_b_skip_fsync(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	const struct sc_report *r;

	fault_enter(c, 1, FS_EXT4, 2, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 2, NEW_DIRTY, 4, 5, 5, 4);
	iter(c, 1, FS_EXT4, 2, NEW_DIRTY);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 2, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 2, 0);
	fsync(c, 1, FS_EXT4, 2, 0, 4);
	insert_ext4(c, 1, 2, 4, 5);
	mkwrite(c, 1, FS_EXT4, 2, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_EXT4, 2, NOPAGE);
	done(c);
	r = first_report(c, SC_V_SYNC_UNCOMMITTED);
	KTAP_EXPECT(t, sc_result(c) == KTAP_FAILED, "result %d, want 1", sc_result(c));
	KTAP_EXPECT(t, r && strstr(r->text, "metadata sync returned 0 but transaction 5"),
		    "diagnosis: %s", r ? r->text : "(none)");
	KTAP_EXPECT(t, c->n_violations == 1 && c->n_errors == 0, "%llu violations %llu errors",
		    c->n_violations, c->n_errors);
	sc_free(c);
}

/* Task 1 syncs transaction 5; before its entry goes in, task 2 allocates
 * in the same file in transaction 6 (i_datasync_tid becomes 6). Task 1's
 * mapping is durable: not a violation, though a per-inode check at
 * insertion time (i_datasync_tid 6 > j_commit_sequence 5) would say so. */
static void concurrent_allocation_not_violation(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_needdsync_fault(c, 0, 4, 5, 5, 4);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 0, 0);
	global(c, SO_EV_JBD2_COMMIT, FS_EXT4, 5);
	fsync(c, 1, FS_EXT4, 0, 0, 5);
	/* task 2 allocates page 1 in transaction 6 */
	fault_enter(c, 2, FS_EXT4, 1, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 2, 1, NEW_DIRTY, 5, 6, 6, 5);
	ret_event(c, SO_EV_FAULT_EXIT, 2, FS_EXT4, 1, NEEDDSYNC);
	/* task 1's entry: the inode's datasync tid is 6 now */
	insert_ext4(c, 1, 0, 5, 6);
	mkwrite(c, 1, FS_EXT4, 0, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_EXT4, 0, NOPAGE);
	/* task 2 completes correctly */
	ret_event(c, SO_EV_SYNC_ENTER, 2, FS_EXT4, 1, 0);
	global(c, SO_EV_JBD2_COMMIT, FS_EXT4, 6);
	fsync(c, 2, FS_EXT4, 1, 0, 6);
	insert_ext4(c, 2, 1, 6, 6);
	mkwrite(c, 2, FS_EXT4, 1, false);
	ret_event(c, SO_EV_SYNC_EXIT, 2, FS_EXT4, 1, NOPAGE);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED, "result %d, want 0 (%llu violations: %s)", sc_result(c),
		    c->n_violations, c->nreports ? c->reports[0].text : "");
	KTAP_EXPECT(t, c->st.checked == 2, "checked %llu", c->st.checked);
	KTAP_EXPECT(t, c->st.naive_flagged == 1, "a per-inode check flags %llu, want 1",
		    c->st.naive_flagged);
	sc_free(c);
}

/* offset + length > i_size sets IOMAP_F_DIRTY with nothing to commit: the
 * datasync tid at iomap_begin (9) is committed, the fsync commits nothing. */
static void past_eof_dirty_nothing_to_commit(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_EXT4, 40, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 40, SO_IOMAP_F_DIRTY, 9, 9, NONE, 9);
	iter(c, 1, FS_EXT4, 40, SO_IOMAP_F_DIRTY);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 40, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 40, 0);
	fsync(c, 1, FS_EXT4, 40, 0, 9);
	insert_ext4(c, 1, 40, 9, 9);
	mkwrite(c, 1, FS_EXT4, 40, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_EXT4, 40, NOPAGE);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED && c->st.checked == 1, "result %d, checked %llu: %s",
		    sc_result(c), c->st.checked, c->nreports ? c->reports[0].text : "");
	sc_free(c);
}

static void dropped_events_fail(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_sync_fault(c, 1, 0, 10);
	sc_set_drops(c, 3);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_FAILED, "result %d, want 1", sc_result(c));
	KTAP_EXPECT(t, c->by_kind[SC_E_DROPS] == 1 && c->n_violations == 0,
		    "drops reported %llu, violations %llu", c->by_kind[SC_E_DROPS], c->n_violations);
	KTAP_EXPECT(t, first_report(c, SC_E_DROPS) &&
		    strstr(first_report(c, SC_E_DROPS)->text, "3 event records were lost"),
		    "drop report text");
	sc_free(c);
}

/* xfs, 6.1 semantics: allocation commits CIL sequence 6 and pins the inode;
 * the sync's log force puts checkpoint 6 on the log. */
static void clean_sync_fault_xfs(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	xfs_iomap(c, 1, 0, NEW_DIRTY, 5, 0, 0, 6, 1);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_XFS, 0, 0);
	global(c, SO_EV_XFS_CKPT, FS_XFS, 6);
	fsync(c, 1, FS_XFS, 0, 0, 0);
	/* re-pinned by another transaction after the checkpoint: still fine */
	insert_xfs(c, 1, 0, 1, 7);
	mkwrite(c, 1, FS_XFS, 0, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_XFS, 0, NOPAGE);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED && c->st.checked == 1, "result %d checked %llu: %s",
		    sc_result(c), c->st.checked, c->nreports ? c->reports[0].text : "");
	sc_free(c);
}

static void mutant_b_xfs(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	const struct sc_report *r;

	global(c, SO_EV_XFS_CKPT, FS_XFS, 4);	/* ignored: device not seen yet */
	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	global(c, SO_EV_XFS_CKPT, FS_XFS, 5);
	xfs_iomap(c, 1, 0, NEW_DIRTY, 5, 0, 0, 6, 1);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_XFS, 0, 0);
	fsync(c, 1, FS_XFS, 0, 0, 1);
	insert_xfs(c, 1, 0, 1, 6);
	mkwrite(c, 1, FS_XFS, 0, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_XFS, 0, NOPAGE);
	done(c);
	r = first_report(c, SC_V_SYNC_UNCOMMITTED);
	KTAP_EXPECT(t, r && strstr(r->text, "log sequence 6 is not committed") &&
		    strstr(r->text, "last checkpoint seen 5"), "diagnosis: %s",
		    r ? r->text : "(none)");
	sc_free(c);
}

/* xfs: the fault's own transaction went into CIL sequence 6; another task
 * committed sequence 7 on the inode before iomap_begin returned. Checkpoint
 * 6 on the log is enough for this fault. */
static void xfs_own_sequence_not_later_ones(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	struct so_event e;

	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	e = ev(SO_EV_IOMAP, 1, FS_XFS, 0);
	e.iomap.flags_in = SO_IOMAP_WRITE | SO_IOMAP_FAULT;
	e.iomap.iomap_flags = NEW_DIRTY;
	e.iomap.seq_entry = 5;
	e.iomap.seq_exit = 7;
	e.iomap.pin_exit = 2;
	e.iomap.own = 6;
	feed(c, e);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_XFS, 0, 0);
	global(c, SO_EV_XFS_CKPT, FS_XFS, 6);
	fsync(c, 1, FS_XFS, 0, 0, 1);
	insert_xfs(c, 1, 0, 1, 7);
	mkwrite(c, 1, FS_XFS, 0, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_XFS, 0, NOPAGE);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED && c->st.checked == 1, "result %d: %s", sc_result(c),
		    c->nreports ? c->reports[0].text : "");
	sc_free(c);
}

/* xfs: pinned with timestamps only (file_update_time) is clean, as the
 * kernel sees it: the direct insertion needs nothing. */
static void xfs_timestamp_pin_is_clean(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	xfs_iomap(c, 1, 0, 0, 9, 1, SO_XFS_ILOG_TIMESTAMP, 9, 1);
	insert_xfs(c, 1, 0, 1, 9);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NOPAGE);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED && c->st.checked == 1, "result %d: %s", sc_result(c),
		    c->nreports ? c->reports[0].text : "");
	sc_free(c);
}

/* An unpinned inode is what xfs says of the inode, not the log's state:
 * with no checkpoint seen and the log complete through 5 only, the
 * entry over sequence 6 is a violation whatever the pin count says. */
static void xfs_unpinned_inode_not_evidence(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	xfs_iomap(c, 1, 0, NEW_DIRTY, 5, 0, 0, 6, 1);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_XFS, 0, 0);
	fsync(c, 1, FS_XFS, 0, 0, 0);
	insert_xfs_log(c, 1, 0, 0, 6, 5, 0);
	mkwrite(c, 1, FS_XFS, 0, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_XFS, 0, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_SYNC_UNCOMMITTED, 1, "log complete through sequence 5");
	sc_free(c);
}

static void insert_during_needdsync_fault(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_EXT4, 0, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 0, SO_IOMAP_F_DIRTY, 3, 3, 4, 3);
	insert_ext4(c, 1, 0, 3, 3);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 0, NEEDDSYNC);
	done(c);
	KTAP_EXPECT(t, c->by_kind[SC_V_INSERT_IN_NEEDDSYNC] == 1, "insert_in_needdsync %llu",
		    c->by_kind[SC_V_INSERT_IN_NEEDDSYNC]);
	sc_free(c);
}

static void needdsync_not_synced(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_needdsync_fault(c, 0, 3, 4, 4, 3);
	ret_event(c, SO_EV_HANDLER_EXIT, 1, FS_EXT4, 0, NEEDDSYNC);
	done(c);
	KTAP_EXPECT(t, c->by_kind[SC_V_NO_SYNC] == 1 && sc_result(c) == KTAP_FAILED,
		    "needdsync_not_synced %llu", c->by_kind[SC_V_NO_SYNC]);
	sc_free(c);
}

static void insert_before_fsync(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_needdsync_fault(c, 0, 3, 4, 4, 3);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 0, 0);
	insert_ext4(c, 1, 0, 3, 4);
	done(c);
	KTAP_EXPECT(t, c->by_kind[SC_V_INSERT_BEFORE_FSYNC] == 1, "insert_before_fsync %llu",
		    c->by_kind[SC_V_INSERT_BEFORE_FSYNC]);
	sc_free(c);
}

static void failed_fsync_then_insert(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_needdsync_fault(c, 0, 3, 4, 4, 3);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 0, 0);
	fsync(c, 1, FS_EXT4, 0, -5, 3);
	insert_ext4(c, 1, 0, 3, 4);
	done(c);
	KTAP_EXPECT(t, c->by_kind[SC_V_INSERT_BEFORE_FSYNC] == 1 &&
		    first_report(c, SC_V_INSERT_BEFORE_FSYNC) &&
		    strstr(first_report(c, SC_V_INSERT_BEFORE_FSYNC)->text, "failed (-5)"),
		    "insert after failed sync not reported");
	sc_free(c);
}

static void fast_commit_unsupported(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	for (int i = 0; i < 3; i++) {
		fault_enter(c, 1, FS_EXT4, (__u64)i, FAULT_SZ_PTE, SO_FSF_EXT4_FAST_COMMIT);
		ext4_iomap(c, 1, (__u64)i, SO_IOMAP_F_NEW, 3, 3, 3, 3);
		insert_ext4(c, 1, (__u64)i, 3, 3);
		ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, (__u64)i, NOPAGE);
	}
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_FAILED && c->by_kind[SC_E_UNSUPPORTED] == 1 &&
		    c->st.unsupported == 3 && c->n_violations == 0,
		    "result %d, unsupported reports %llu, faults %llu", sc_result(c),
		    c->by_kind[SC_E_UNSUPPORTED], c->st.unsupported);
	KTAP_EXPECT(t, first_report(c, SC_E_UNSUPPORTED) &&
		    strstr(first_report(c, SC_E_UNSUPPORTED)->text, "fast_commit"), "text");
	sc_free(c);
}

static void insert_outside_fault(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	insert_ext4(c, 7, 5, 3, 3);
	done(c);
	KTAP_EXPECT(t, c->by_kind[SC_V_INSERT_OUTSIDE] == 1, "insert_outside %llu",
		    c->by_kind[SC_V_INSERT_OUTSIDE]);
	sc_free(c);
}

static void no_iomap_record_is_error(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_EXT4, 0, FAULT_SZ_PTE, 0);
	insert_ext4(c, 1, 0, 3, 3);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 0, NOPAGE);
	done(c);
	KTAP_EXPECT(t, c->by_kind[SC_E_NO_IOMAP] == 1 && sc_result(c) == KTAP_FAILED && c->n_violations == 0,
		    "no_iomap %llu", c->by_kind[SC_E_NO_IOMAP]);
	sc_free(c);
}

static void mkwrite_without_insert_is_error(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_needdsync_fault(c, 0, 3, 4, 4, 3);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 0, 0);
	fsync(c, 1, FS_EXT4, 0, 0, 4);
	mkwrite(c, 1, FS_EXT4, 0, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_EXT4, 0, NOPAGE);
	done(c);
	KTAP_EXPECT(t, c->by_kind[SC_E_SEQUENCE] >= 1 && sc_result(c) == KTAP_FAILED,
		    "sequence errors %llu", c->by_kind[SC_E_SEQUENCE]);
	sc_free(c);
}

/* The _no_entry race: nothing inserted, nothing to check, not an error. */
static void mkwrite_no_entry_race(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_needdsync_fault(c, 0, 3, 4, 4, 3);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 0, 0);
	fsync(c, 1, FS_EXT4, 0, 0, 4);
	mkwrite(c, 1, FS_EXT4, 0, true);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_EXT4, 0, NOPAGE);
	ext4_sync_fault(c, 1, 0, 5);	/* the retried fault */
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED && c->st.no_entry == 1 && c->st.checked == 1,
		    "result %d no_entry %llu checked %llu: %s", sc_result(c), c->st.no_entry,
		    c->st.checked, c->nreports ? c->reports[0].text : "");
	sc_free(c);
}

/* Two hooks seeing one insertion (a helper calling another) count once. */
static void double_hook_counts_once(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_EXT4, 0, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 0, 0, 3, 3, NONE, 3);
	insert_ext4(c, 1, 0, 3, 3);
	insert_ext4(c, 1, 0, 3, 3);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 0, NOPAGE);
	done(c);
	KTAP_EXPECT(t, c->st.direct_inserts == 1 && sc_result(c) == KTAP_PASSED, "direct %llu",
		    c->st.direct_inserts);
	sc_free(c);
}

static void nothing_checked_is_skip(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_ALL_SKIPPED, "result %d, want KTAP_ALL_SKIPPED",
		    sc_result(c));
	sc_free(c);
}

static void tid_wraparound(struct ktap_case_ctx *t)
{
	KTAP_EXPECT(t, sc_tid_geq(2, 0xfffffffeu), "2 is after 0xfffffffe");
	KTAP_EXPECT(t, !sc_tid_geq(0xfffffffeu, 2), "0xfffffffe is before 2");
	KTAP_EXPECT(t, sc_tid_geq(7, 7) && !sc_tid_geq(6, 7), "equal / before");
}

/* Violations are attributed to the process that faulted. */
static void per_process_figures(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_sync_fault(c, 1, 0, 10);
	fault_enter(c, 2, FS_EXT4, 1, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 2, 1, NEW_DIRTY, 10, 11, 11, 10);
	insert_ext4(c, 2, 1, 10, 11);
	ret_event(c, SO_EV_FAULT_EXIT, 2, FS_EXT4, 1, NOPAGE);
	done(c);
	KTAP_EXPECT(t, c->nprocs == 2, "%zu processes", c->nprocs);
	for (size_t i = 0; i < c->nprocs; i++) {
		const struct sc_proc *p = &c->procs[i];

		if (p->pid == 1001)
			KTAP_EXPECT(t, p->checked == 1 && p->violations == 0, "pid 1001: %llu/%llu",
				    p->checked, p->violations);
		else
			KTAP_EXPECT(t, p->pid == 1002 && p->violations == 1 &&
				    p->by_kind[SC_V_DIRECT_UNCOMMITTED] == 1 &&
				    strstr(p->first, "no NEEDDSYNC"), "pid %u: %llu violations, first '%s'",
				    p->pid, p->violations, p->first);
	}
	sc_free(c);
}

static void event_formatting(struct ktap_case_ctx *t)
{
	struct so_event e = ev(SO_EV_FAULT_EXIT, 1, FS_EXT4, 0);
	char buf[SC_SEQ_LEN];

	e.ret = NEEDDSYNC;
	sc_format_event(&e, buf, sizeof(buf));
	KTAP_EXPECT_TEXT(t, buf, "dax_iomap_fault returned MAJOR|NEEDDSYNC");
	e.type = SO_EV_JBD2_COMMIT;
	e.log.seq = 42;
	sc_format_event(&e, buf, sizeof(buf));
	KTAP_EXPECT_TEXT(t, buf, "jbd2 commit of transaction 42 done (259:0)");
}

/* The second half of a sync fault whose start the probes missed: the
 * checker attached while task 1 was already inside dax_finish_sync_fault
 * (events at attach + 1 ms). */
static void half_fault(struct sc_checker *c, __u64 ts)
{
	struct so_event e = ev(SO_EV_FSYNC_EXIT, 1, FS_EXT4, 4);

	e.ts = ts;
	e.fsync.start = 4 * 4096;
	e.fsync.end = 4 * 4096 + 4095;
	e.fsync.datasync = 1;
	feed(c, e);
	e = ev(SO_EV_INSERT, 1, FS_EXT4, 4);
	e.ts = ts + 1000;
	e.insert.address = 0x7f0000000000ULL + 4 * 4096;
	e.insert.write = 1;
	e.insert.commit = 3;
	e.insert.running = 4;
	e.insert.seq = 5;	/* not committed: judged, this would be a violation */
	feed(c, e);
	e = ev(SO_EV_SYNC_EXIT, 1, FS_EXT4, 4);
	e.ts = ts + 2000;
	feed(c, e);
	e = ev(SO_EV_HANDLER_EXIT, 1, FS_EXT4, 4);
	e.ts = ts + 3000;
	feed(c, e);
}

/* A fault already running when the checker attached is skipped and
 * counted; the task's next fault is checked as usual. */
static void in_flight_at_attach_skipped(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	sc_set_attach_time(c, 1000000000ULL);
	half_fault(c, 1001000000ULL);
	ext4_sync_fault(c, 1, 5, 20);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED, "result %d, want 0", sc_result(c));
	KTAP_EXPECT(t, c->st.skipped_in_flight == 1, "skipped %llu, want 1", c->st.skipped_in_flight);
	KTAP_EXPECT(t, c->n_violations == 0 && c->n_errors == 0, "%llu violations, %llu errors",
		    c->n_violations, c->n_errors);
	KTAP_EXPECT(t, c->st.checked == 1, "checked %llu, want 1 (the second fault)", c->st.checked);
	sc_free(c);
}

/* The same records long after the attach are no fault in flight: the
 * entry went in outside any traced fault, a violation. */
static void late_half_fault_is_judged(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	sc_set_attach_time(c, 1000000000ULL);
	half_fault(c, 1000000000ULL + SC_INFLIGHT_WINDOW_NS + 1);
	done(c);
	KTAP_EXPECT(t, c->st.skipped_in_flight == 0, "skipped %llu, want 0", c->st.skipped_in_flight);
	KTAP_EXPECT(t, first_report(c, SC_V_INSERT_OUTSIDE) != NULL, "no insert_outside_fault report");
	KTAP_EXPECT(t, sc_result(c) == KTAP_FAILED, "result %d, want 1", sc_result(c));
	sc_free(c);
}

/* After the skipped fault ended, the task is between faults: an entry
 * without a fault is judged even inside the window. */
static void after_skipped_fault_is_judged(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	sc_set_attach_time(c, 1000000000ULL);
	half_fault(c, 1001000000ULL);
	insert_ext4(c, 1, 9, 3, 5);
	done(c);
	KTAP_EXPECT(t, c->st.skipped_in_flight == 1, "skipped %llu, want 1", c->st.skipped_in_flight);
	KTAP_EXPECT(t, first_report(c, SC_V_INSERT_OUTSIDE) != NULL, "no insert_outside_fault report");
	sc_free(c);
}

/* ---- one case per rule (tests/unit/data/checker-rules.txt) ------------------- */

/* The count of kind k is exactly want and nothing else was reported. */
/* The sync part of a NEEDDSYNC fault on xfs, up to the entry going in with
 * the inode pinned (so only the log's state can prove durability). */
static void xfs_sync_to_insert(struct sc_checker *c, __u64 pgoff, __u64 seq)
{
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, pgoff, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_XFS, pgoff, 0);
	fsync(c, 1, FS_XFS, pgoff, 0, 1);
	insert_xfs(c, 1, pgoff, 1, seq);
	mkwrite(c, 1, FS_XFS, pgoff, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_XFS, pgoff, NOPAGE);
}

static void xfs_force(struct sc_checker *c, __u64 seq, __u32 flags, __s32 ret)
{
	struct so_event e = ev(SO_EV_XFS_FORCE, 1, FS_XFS, 0);

	e.log.seq = seq;
	e.log.aux = flags;
	e.log.ret = ret;
	feed(c, e);
}

/* ext4 allocates in transaction 5 but leaves i_datasync_tid at 4 (already
 * committed): the fault's own handle is what it needs, and the sync that
 * commits nothing past 4 must be caught. */
static void ext4_own_handle_required(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_needdsync_fault(c, 0, 4, 4, 5, 4);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 0, 0);
	fsync(c, 1, FS_EXT4, 0, 0, 4);
	insert_ext4(c, 1, 0, 4, 4);
	mkwrite(c, 1, FS_EXT4, 0, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_EXT4, 0, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_SYNC_UNCOMMITTED, 1, "transaction 5 is not committed");
	sc_free(c);
}

/* Blocks allocated by write() in transaction 6, not yet committed; the
 * fault allocates nothing (no IOMAP_F_NEW) and maps writable at once. */
static void ext4_written_not_committed(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_EXT4, 1, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 1, 0, 6, 6, NONE, 5);
	iter(c, 1, FS_EXT4, 1, 0);
	insert_ext4(c, 1, 1, 5, 6);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 1, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_DIRECT_UNCOMMITTED, 1, "uncommitted transaction 6");
	sc_free(c);
}

/* xfs, <= 6.12: the inode is pinned with a logged extent change (sequence
 * 7, from write()); no checkpoint covers it when the entry goes in. */
static void xfs_pinned_not_committed(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	global(c, SO_EV_XFS_CKPT, FS_XFS, 6);
	xfs_iomap(c, 1, 0, 0, 7, 1, 0x1, 7, 1);
	insert_xfs(c, 1, 0, 1, 7);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_DIRECT_UNCOMMITTED, 1, "uncommitted log sequence 7");
	sc_free(c);
}

/* xfs, 6.18: ili_datasync_seq 8 says what fdatasync would force, even with
 * the pin count at 0 when iomap_begin started. */
static void xfs_datasync_seq_required(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	struct so_event e;

	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	e = ev(SO_EV_IOMAP, 1, FS_XFS, 0);
	e.iomap.flags_in = SO_IOMAP_WRITE | SO_IOMAP_FAULT;
	e.iomap.fs_flags = SO_FSF_XFS_DATASYNC_SEQ;
	e.iomap.dsync_entry = 8;
	e.iomap.seq_entry = e.iomap.seq_exit = 8;
	e.iomap.own = NONE;
	feed(c, e);
	insert_xfs(c, 1, 0, 1, 8);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_DIRECT_UNCOMMITTED, 1, "uncommitted log sequence 8");
	sc_free(c);
}

/* A synchronous log force up to 6 that returned 0 is what the code under
 * test says of itself: without a checkpoint or the log's state covering
 * 6, still a violation. */
static void xfs_force_return_not_evidence(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	xfs_iomap(c, 1, 0, NEW_DIRTY, 5, 0, 0, 6, 1);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_XFS, 0, 0);
	xfs_force(c, 6, SO_XFS_LOG_SYNC, 0);
	fsync(c, 1, FS_XFS, 0, 0, 1);
	insert_xfs_log(c, 1, 0, 0, 6, 5, 0);
	mkwrite(c, 1, FS_XFS, 0, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_XFS, 0, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_SYNC_UNCOMMITTED, 1, "log sequence 6 is not committed");
	KTAP_EXPECT(t, c->st.xfs_forces == 1, "forces %llu", c->st.xfs_forces);
	sc_free(c);
}

/* The log's own state at insertion (CIL complete through 6) proves a
 * requirement whose checkpoint completed before the probes went in. */
static void xfs_log_state_is_evidence(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	xfs_iomap(c, 1, 0, 0, 6, 1, 0x1, 6, 1);
	insert_xfs_log(c, 1, 0, 1, 6, 6, 0);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NOPAGE);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED && c->st.checked == 1, "result %d: %s", sc_result(c),
		    c->nreports ? c->reports[0].text : "");
	sc_free(c);
}

/* A shut-down log, or a CIL list that could not be walked, proves nothing
 * even when its sequence covers the requirement. */
static void xfs_shutdown_or_unread_log_not_evidence(struct ktap_case_ctx *t)
{
	static const struct { __u16 flags; const char *text; } how[] = {
		{ SO_LOGF_ABORTED, "log complete through sequence 6 but shut down" },
		{ SO_LOGF_UNKNOWN, "CIL state unreadable" },
	};

	for (size_t i = 0; i < sizeof(how) / sizeof(how[0]); i++) {
		struct sc_checker *c = sc_new();

		fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
		xfs_iomap(c, 1, 0, 0, 6, 1, 0x1, 6, 1);
		insert_xfs_log(c, 1, 0, 1, 6, 6, how[i].flags);
		ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 0, NOPAGE);
		done(c);
		expect_only(t, c, SC_V_DIRECT_UNCOMMITTED, 1, how[i].text);
		sc_free(c);
	}
}

/* A checkpoint that aborted (log shut down) put nothing on the log. */
static void xfs_aborted_checkpoint_not_evidence(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	struct so_event e;

	fault_enter(c, 1, FS_XFS, 0, FAULT_SZ_PTE, 0);
	xfs_iomap(c, 1, 0, NEW_DIRTY, 5, 0, 0, 6, 1);
	e = ev(SO_EV_XFS_CKPT, 0, FS_XFS, 0);
	e.log.seq = 6;
	e.log.aux = 1;
	feed(c, e);
	xfs_sync_to_insert(c, 0, 6);
	done(c);
	expect_only(t, c, SC_V_SYNC_UNCOMMITTED, 1, "log sequence 6 is not committed");
	sc_free(c);
}

/* IOMAP_F_DIRTY reached DAX on a write fault, yet the entry went in
 * writable without NEEDDSYNC (the metadata happens to be committed). */
static void dirty_without_needdsync(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_EXT4, 2, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 2, SO_IOMAP_F_DIRTY, 3, 3, NONE, 3);
	iter(c, 1, FS_EXT4, 2, SO_IOMAP_F_DIRTY);
	insert_ext4(c, 1, 2, 3, 3);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 2, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_DIRTY_NOT_SYNC, 1, "IOMAP_F_DIRTY reached dax_fault_iter");
	sc_free(c);
}

/* A fault on page 3 installs page 4. */
static void wrong_page(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_EXT4, 3, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 3, 0, 3, 3, NONE, 3);
	insert_ext4(c, 1, 4, 3, 3);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 3, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_WRONG_PAGE, 1, "writable entry for pgoff 4 inside the fault on pgoff 3");
	sc_free(c);
}

/* The sync covered the next page, not the faulting one. */
static void fsync_range_misses_page(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	struct so_event e;

	ext4_needdsync_fault(c, 2, 4, 5, 5, 4);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 2, 0);
	global(c, SO_EV_JBD2_COMMIT, FS_EXT4, 5);
	e = ev(SO_EV_FSYNC_ENTER, 1, FS_EXT4, 2);
	e.fsync.start = 3 * 4096;
	e.fsync.end = 4 * 4096 - 1;
	feed(c, e);
	e.type = SO_EV_FSYNC_EXIT;
	e.fsync.commit = 5;
	feed(c, e);
	insert_ext4(c, 1, 2, 5, 5);
	mkwrite(c, 1, FS_EXT4, 2, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_EXT4, 2, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_FSYNC_RANGE, 1, "covered 12288..16383, not the faulting offset 8192");
	sc_free(c);
}

/* NEEDDSYNC returned, and the entry goes in before dax_finish_sync_fault. */
static void insert_before_sync(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_needdsync_fault(c, 0, 4, 5, 5, 4);
	insert_ext4(c, 1, 0, 4, 5);
	done(c);
	expect_only(t, c, SC_V_INSERT_BEFORE_SYNC, 1, "after NEEDDSYNC but before dax_finish_sync_fault");
	sc_free(c);
}

/* A PMD fault at pgoff 515 maps the 2 MiB extent from 512: the entry's
 * pgoff is 512, the same page; committed, so clean. */
static void pmd_sync_fault_clean(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	struct so_event e;

	fault_enter(c, 1, FS_XFS, 515, FAULT_SZ_PMD, 0);
	xfs_iomap(c, 1, 515, NEW_DIRTY, 5, 0, 0, 6, 1);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 515, NEEDDSYNC);
	e = ev(SO_EV_SYNC_ENTER, 1, FS_XFS, 515);
	e.size = FAULT_SZ_PMD;
	feed(c, e);
	global(c, SO_EV_XFS_CKPT, FS_XFS, 6);
	e = ev(SO_EV_FSYNC_ENTER, 1, FS_XFS, 515);
	e.fsync.start = 512 * 4096ULL;
	e.fsync.end = 1024 * 4096ULL - 1;
	feed(c, e);
	e.type = SO_EV_FSYNC_EXIT;
	feed(c, e);
	e = ev(SO_EV_INSERT, 1, FS_XFS, 512);
	e.insert.address = 0x7f0000200000ULL;
	e.insert.how = SO_INS_PMD;
	e.insert.write = 1;
	e.insert.pin = 1;
	e.insert.seq = 6;
	feed(c, e);
	mkwrite(c, 1, FS_XFS, 512, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_XFS, 515, NOPAGE);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED && c->st.faults_pmd == 1 && c->st.checked == 1,
		    "result %d pmd %llu: %s", sc_result(c), c->st.faults_pmd,
		    c->nreports ? c->reports[0].text : "");
	sc_free(c);
}

/* ext4: transaction 5 committed, but its record went out without a flush
 * (JBD2_BARRIER clear) or not at all (aborted journal): not on media. */
static void ext4_commit_not_on_media(struct ktap_case_ctx *t)
{
	static const struct { __u16 flags; const char *why; } how[] = {
		{ SO_LOGF_NO_FLUSH, "journal without barriers: commit records not flushed" },
		{ SO_LOGF_ABORTED, "journal aborted: commit records skipped" },
	};

	for (size_t i = 0; i < 2; i++) {
		struct sc_checker *c = sc_new();
		struct so_event e;

		ext4_needdsync_fault(c, 0, 4, 5, 5, 4);
		ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, 0, 0);
		global(c, SO_EV_JBD2_COMMIT, FS_EXT4, 5);
		fsync(c, 1, FS_EXT4, 0, 0, 5);
		e = ev(SO_EV_INSERT, 1, FS_EXT4, 0);
		e.insert.address = 0x7f0000000000ULL;
		e.insert.write = 1;
		e.insert.commit = 5;
		e.insert.running = 6;
		e.insert.seq = 5;
		e.insert.log_flags = how[i].flags;
		feed(c, e);
		mkwrite(c, 1, FS_EXT4, 0, false);
		ret_event(c, SO_EV_SYNC_EXIT, 1, FS_EXT4, 0, NOPAGE);
		done(c);
		expect_only(t, c, SC_V_SYNC_UNCOMMITTED, 1, how[i].why);
		sc_free(c);
	}
}

/* ext4 allocates (the fault dirtied metadata through its handle, in
 * transaction 5) but reports neither NEW nor DIRTY: the inode was clean
 * before (i_datasync_tid 4, committed), so a check that believed the flags
 * would pass the direct writable entry over an open transaction. */
static void ext4_unreported_allocation(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_EXT4, 2, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 2, 0, 4, 5, 5, 4);
	iter(c, 1, FS_EXT4, 2, 0);
	insert_ext4(c, 1, 2, 4, 5);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 2, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_DIRECT_UNCOMMITTED, 1, "uncommitted transaction 5");
	sc_free(c);
}

/* xfs: the fault committed the inode into CIL sequence 6 inside
 * iomap_begin, reports no NEW and the inode was unpinned at entry. */
static void xfs_unreported_allocation(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	struct so_event e;

	fault_enter(c, 1, FS_XFS, 2, FAULT_SZ_PTE, 0);
	e = ev(SO_EV_IOMAP, 1, FS_XFS, 2);
	e.iomap.flags_in = SO_IOMAP_WRITE | SO_IOMAP_FAULT;
	e.iomap.seq_entry = 5;
	e.iomap.seq_exit = 6;
	e.iomap.pin_exit = 1;
	e.iomap.own = 6;
	feed(c, e);
	insert_xfs_log(c, 1, 2, 1, 6, 5, 0);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 2, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_DIRECT_UNCOMMITTED, 1, "uncommitted log sequence 6");
	sc_free(c);
}

/* A read-only PTE made writable by do_wp_page's reuse (->pfn_mkwrite
 * returned 0): its own violation, even after a clean fault of that page. */
static void wp_reuse_is_violation(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	struct so_event e;

	fault_enter(c, 1, FS_EXT4, 3, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, 3, 0, 7, 7, NONE, 7);
	insert_ext4(c, 1, 3, 7, 7);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, 3, NOPAGE);
	ret_event(c, SO_EV_HANDLER_EXIT, 1, FS_EXT4, 3, NOPAGE);
	e = ev(SO_EV_INSERT, 1, FS_EXT4, 4);
	e.insert.address = 0x7f0000004000ULL;
	e.insert.how = SO_INS_WP;
	e.insert.write = 1;
	e.insert.commit = 7;
	e.insert.seq = 8;
	feed(c, e);
	done(c);
	expect_only(t, c, SC_V_WP_REUSE, 1, "generic write-protect path");
	sc_free(c);
}

/* A read fault's entry (vmf_insert_mixed) made writable by a writable
 * vm_page_prot: outside any write fault, and said so in the sequence. */
static void writable_prot_read_insert(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();
	struct so_event e = ev(SO_EV_INSERT, 1, FS_XFS, 9);
	const struct sc_report *r;

	e.insert.address = 0x7f0000009000ULL;
	e.insert.how = SO_INS_PTE;
	e.insert.write = 0;
	feed(c, e);
	done(c);
	expect_only(t, c, SC_V_INSERT_OUTSIDE, 1, "outside any traced DAX fault");
	r = first_report(c, SC_V_INSERT_OUTSIDE);
	KTAP_EXPECT(t, r && r->nseq == 1 && strstr(r->seq[0], "PTE (writable vm_page_prot)"),
		    "sequence: %s", r && r->nseq ? r->seq[0] : "(none)");
	sc_free(c);
}


/* A correct ext4 sync fault on @pgoff whose driver translation says device
 * page BLOCK0 + pgoff is @access_pfn, and whose entry maps @insert_pfn. */
static void ext4_sync_fault_pfn(struct sc_checker *c, __u64 pgoff, __u32 t, __u64 access_pfn,
				__u64 insert_pfn)
{
	fault_enter(c, 1, FS_EXT4, pgoff, FAULT_SZ_PTE, 0);
	ext4_iomap(c, 1, pgoff, NEW_DIRTY, t - 1, t, t, t - 1);
	iter(c, 1, FS_EXT4, pgoff, NEW_DIRTY);
	dax_access(c, 1, FS_EXT4, pgoff, BLOCK0 + pgoff, access_pfn, 1);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_EXT4, pgoff, NEEDDSYNC);
	ret_event(c, SO_EV_SYNC_ENTER, 1, FS_EXT4, pgoff, 0);
	global(c, SO_EV_JBD2_COMMIT, FS_EXT4, t);
	fsync(c, 1, FS_EXT4, pgoff, 0, t);
	insert_ext4_pfn(c, 1, pgoff, t, t, insert_pfn);
	mkwrite(c, 1, FS_EXT4, pgoff, false);
	ret_event(c, SO_EV_SYNC_EXIT, 1, FS_EXT4, pgoff, NOPAGE);
	ret_event(c, SO_EV_HANDLER_EXIT, 1, FS_EXT4, pgoff, NOPAGE);
}

/* Pages 0..3 map their own blocks; page 4's entry maps page 3's block
 * (what mutant d does): its pfn is not the iomap's block. */
static void wrong_pfn_is_violation(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	for (__u32 p = 0; p < 4; p++)
		ext4_sync_fault_pfn(c, p, 10 + p, PFN0 + BLOCK0 + p, PFN0 + BLOCK0 + p);
	KTAP_EXPECT(t, c->n_violations == 0 && c->st.pfn_checked == 4,
		    "%llu violations, %llu pfns checked, want 0 and 4", c->n_violations,
		    c->st.pfn_checked);
	ext4_sync_fault_pfn(c, 4, 14, PFN0 + BLOCK0 + 4, PFN0 + BLOCK0 + 3);
	done(c);
	expect_only(t, c, SC_V_WRONG_PFN, 1,
		    "maps pfn 0x1403eb, but the iomap puts offset 16384 at device page 1004, which is pfn 0x1403ec");
	sc_free(c);
}

/* A PMD fault at pgoff 515 over an iomap that starts at file page 256 on
 * device page 4096: the entry maps device page 4352, pfn base + 4352, not
 * the page of 515 nor the iomap's first. */
static void pmd_pfn_is_the_extent(struct ktap_case_ctx *t)
{
	__u64 want = PFN0 + 4096 + 256;

	for (int wrong = 0; wrong < 2; wrong++) {
		struct sc_checker *c = sc_new();
		struct so_event e;

		fault_enter(c, 1, FS_XFS, 515, FAULT_SZ_PMD, 0);
		xfs_iomap(c, 1, 515, 0, 5, 0, 0, 5, 0);
		e = ev(SO_EV_FAULT_ITER, 1, FS_XFS, 515);
		e.iter.iter_flags = SO_IOMAP_WRITE | SO_IOMAP_FAULT;
		e.iter.iomap_type = 2;
		e.iter.offset = 256 * 4096ULL;
		e.iter.length = 1024 * 4096ULL;
		e.iter.addr = 4096 * 4096ULL;
		feed(c, e);
		dax_access(c, 1, FS_XFS, 515, 4096 + 256, want, 512);
		e = ev(SO_EV_INSERT, 1, FS_XFS, 515);
		e.insert.address = 0x7f0000200000ULL;
		e.insert.how = SO_INS_PMD;
		e.insert.write = 1;
		e.insert.commit = 5;
		e.insert.pfn = want + (wrong ? 3 : 0);
		feed(c, e);
		ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 515, NOPAGE);
		done(c);
		if (wrong)
			expect_only(t, c, SC_V_WRONG_PFN, 1, "at device page 4352, which is pfn 0x141100");
		else
			KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED && c->st.pfn_checked == 1,
				    "result %d, %llu pfns checked: %s", sc_result(c), c->st.pfn_checked,
				    c->nreports ? c->reports[0].text : "");
		sc_free(c);
	}
}

/* A device whose translations disagree on the base (not one linear
 * range): its pfns are not judged, and say so. */
static void nonlinear_device_not_judged(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	ext4_sync_fault_pfn(c, 0, 10, PFN0 + BLOCK0, PFN0 + BLOCK0);
	ext4_sync_fault_pfn(c, 1, 11, 0x900000 + BLOCK0 + 1, 0x900000 + BLOCK0 + 1);
	done(c);
	KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED && c->st.dax_nonlinear == 1 &&
		    c->st.pfn_checked == 1 && c->st.pfn_unchecked == 1,
		    "result %d, nonlinear %llu, pfns checked %llu unchecked %llu: %s", sc_result(c),
		    c->st.dax_nonlinear, c->st.pfn_checked, c->st.pfn_unchecked,
		    c->nreports ? c->reports[0].text : "");
	sc_free(c);
}

static void late_change(struct sc_checker *c, __u8 fs, __u64 pgoff, __u64 seq)
{
	struct so_event e = ev(SO_EV_LATE_CHANGE, 1, fs, pgoff);

	e.log.seq = seq;
	feed(c, e);
}

/* A write fault on a reflinked xfs page whose inode was clean: no DIRTY,
 * so the entry goes in at once, and only then does iomap_end remap the CoW
 * block into the file (sequence 9). */
static void cow_remap_after_direct_insert(struct ktap_case_ctx *t)
{
	struct sc_checker *c = sc_new();

	fault_enter(c, 1, FS_XFS, 2, FAULT_SZ_PTE, 0);
	xfs_iomap(c, 1, 2, SO_IOMAP_F_SHARED, 8, 0, 0, 8, 0);
	iter(c, 1, FS_XFS, 2, SO_IOMAP_F_SHARED);
	insert_xfs_log(c, 1, 2, 0, 8, 8, 0);
	late_change(c, FS_XFS, 2, 9);
	ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 2, NOPAGE);
	done(c);
	expect_only(t, c, SC_V_CHANGE_AFTER_INSERT, 1,
		    "changed the file's block mapping (log sequence 9) after its writable entry went in "
		    "(iomap flags SHARED: copy-on-write)");
	sc_free(c);
}

/* The same fault with DIRTY: NEEDDSYNC, the remap (sequence 9) before the
 * sync; the log is complete through 8 only when the entry goes in. */
static void cow_sync_requires_remap(struct ktap_case_ctx *t)
{
	for (int durable = 0; durable < 2; durable++) {
		struct sc_checker *c = sc_new();

		fault_enter(c, 1, FS_XFS, 2, FAULT_SZ_PTE, 0);
		xfs_iomap(c, 1, 2, SO_IOMAP_F_SHARED | SO_IOMAP_F_DIRTY, 8, 1, 1, 8, 1);
		iter(c, 1, FS_XFS, 2, SO_IOMAP_F_SHARED | SO_IOMAP_F_DIRTY);
		late_change(c, FS_XFS, 2, 9);
		ret_event(c, SO_EV_FAULT_EXIT, 1, FS_XFS, 2, NEEDDSYNC);
		ret_event(c, SO_EV_SYNC_ENTER, 1, FS_XFS, 2, 0);
		fsync(c, 1, FS_XFS, 2, 0, 0);
		insert_xfs_log(c, 1, 2, 0, 9, durable ? 9 : 8, 0);
		mkwrite(c, 1, FS_XFS, 2, false);
		ret_event(c, SO_EV_SYNC_EXIT, 1, FS_XFS, 2, NOPAGE);
		done(c);
		if (durable)
			KTAP_EXPECT(t, sc_result(c) == KTAP_PASSED, "result %d: %s", sc_result(c),
				    c->nreports ? c->reports[0].text : "");
		else
			expect_only(t, c, SC_V_SYNC_UNCOMMITTED, 1, "log sequence 9 is not committed");
		sc_free(c);
	}
}

static const struct ktap_case cases[] = {
	KTAP_CASE(clean_sync_fault_ext4),
	KTAP_CASE(clean_direct_fault_ext4),
	KTAP_CASE(mutant_a_clear_dirty),
	KTAP_CASE(mutant_b_skip_fsync),
	KTAP_CASE(concurrent_allocation_not_violation),
	KTAP_CASE(past_eof_dirty_nothing_to_commit),
	KTAP_CASE(dropped_events_fail),
	KTAP_CASE(clean_sync_fault_xfs),
	KTAP_CASE(mutant_b_xfs),
	KTAP_CASE(xfs_own_sequence_not_later_ones),
	KTAP_CASE(xfs_timestamp_pin_is_clean),
	KTAP_CASE(xfs_unpinned_inode_not_evidence),
	KTAP_CASE(insert_during_needdsync_fault),
	KTAP_CASE(needdsync_not_synced),
	KTAP_CASE(insert_before_fsync),
	KTAP_CASE(failed_fsync_then_insert),
	KTAP_CASE(fast_commit_unsupported),
	KTAP_CASE(insert_outside_fault),
	KTAP_CASE(no_iomap_record_is_error),
	KTAP_CASE(mkwrite_without_insert_is_error),
	KTAP_CASE(mkwrite_no_entry_race),
	KTAP_CASE(double_hook_counts_once),
	KTAP_CASE(nothing_checked_is_skip),
	KTAP_CASE(tid_wraparound),
	KTAP_CASE(per_process_figures),
	KTAP_CASE(event_formatting),
	KTAP_CASE(in_flight_at_attach_skipped),
	KTAP_CASE(late_half_fault_is_judged),
	KTAP_CASE(after_skipped_fault_is_judged),
	KTAP_CASE(ext4_own_handle_required),
	KTAP_CASE(ext4_written_not_committed),
	KTAP_CASE(xfs_pinned_not_committed),
	KTAP_CASE(xfs_datasync_seq_required),
	KTAP_CASE(xfs_force_return_not_evidence),
	KTAP_CASE(xfs_log_state_is_evidence),
	KTAP_CASE(xfs_shutdown_or_unread_log_not_evidence),
	KTAP_CASE(xfs_aborted_checkpoint_not_evidence),
	KTAP_CASE(ext4_unreported_allocation),
	KTAP_CASE(xfs_unreported_allocation),
	KTAP_CASE(wp_reuse_is_violation),
	KTAP_CASE(writable_prot_read_insert),
	KTAP_CASE(dirty_without_needdsync),
	KTAP_CASE(wrong_page),
	KTAP_CASE(fsync_range_misses_page),
	KTAP_CASE(insert_before_sync),
	KTAP_CASE(pmd_sync_fault_clean),
	KTAP_CASE(ext4_commit_not_on_media),
	KTAP_CASE(wrong_pfn_is_violation),
	KTAP_CASE(pmd_pfn_is_the_extent),
	KTAP_CASE(nonlinear_device_not_judged),
	KTAP_CASE(cow_remap_after_direct_insert),
	KTAP_CASE(cow_sync_requires_remap),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
