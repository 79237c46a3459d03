// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the probe layer (bpf/probe/) on recorded kernels: which
 * target each hook resolves to where functions were renamed, what kallsyms
 * and a missing BTF field change, what probe_ok() demands; and that the
 * tools' BPF objects have a program for every candidate of every hook they
 * use (the object paths come from the build: DAXLAT_BPF_OBJ,
 * SYNCORDER_BPF_OBJ).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "ktap.h"
#include "probe.h"
#include "../../bpf/daxlat_probes.h"
#include "../../validate/syncorder_probes.h"

#define NUSES(u) (sizeof(u) / sizeof(*(u)))

/* ---- a recorded kernel --------------------------------------------------- */

struct fake_kernel {
	const char *const *btf;		/* "vmlinux:name" or "xfs:name" */
	const char *const *ksyms;	/* kallsyms names, clones too */
	const char *const *fields;	/* "type.member" */
	const char *const *refuse;	/* targets whose test load fails */
	int load_tests;
};
static struct fake_kernel *fk;

static bool in(const char *const *list, const char *s)
{
	for (; list && *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

static const char *fake_btf_home(const char *name, __u32 kind)
{
	(void)kind;
	for (const char *const *p = fk->btf; p && *p; p++) {
		const char *colon = strchr(*p, ':');

		if (!strcmp(colon + 1, name) ||
		    (!strncmp(name, "btf_trace_", 10) && !strcmp(colon + 1, name + 10)))
			return strncmp(*p, "vmlinux:", 8) ? "xfs" : "vmlinux";
	}
	return NULL;
}

/* Like ksyms_probe_name: the name itself, or a clone "name.<suffix>". */
static const char *fake_ksym(const char *func)
{
	size_t n = strlen(func);

	for (const char *const *p = fk->ksyms; p && *p; p++)
		if (!strncmp(*p, func, n) && ((*p)[n] == '\0' || (*p)[n] == '.'))
			return *p;
	return NULL;
}

static bool fake_has_field(const char *type, const char *member)
{
	char f[160];

	snprintf(f, sizeof(f), "%s.%s", type, member);
	return in(fk->fields, f);
}

static int fake_load_test(const char *name, __u32 kind, enum bpf_attach_type type)
{
	(void)kind, (void)type;
	fk->load_tests++;
	if (!strncmp(name, "btf_trace_", 10))
		name += 10;
	return in(fk->refuse, name) ? -EINVAL : 0;
}

static const struct probe_kernel fake = {
	.btf_home = fake_btf_home, .ksym = fake_ksym,
	.has_field = fake_has_field, .load_test = fake_load_test,
};

/* 6.1: __xfs_filemap_fault, the mixed/prot insert helpers. */
static const char *const btf_6_1[] = {
	"vmlinux:dax_iomap_fault", "vmlinux:dax_fault_iter", "vmlinux:dax_finish_sync_fault",
	"vmlinux:vfs_fsync_range", "vmlinux:ext4_iomap_begin", "vmlinux:ext4_dax_huge_fault",
	"vmlinux:vmf_insert_mixed_mkwrite", "vmlinux:vmf_insert_pfn_pmd_prot", "vmlinux:vmf_insert_mixed",
	"vmlinux:jbd2_journal_dirty_metadata", "vmlinux:finish_mkwrite_fault", "vmlinux:dax_direct_access",
	"vmlinux:dax_pte_fault_done", "vmlinux:dax_pmd_fault_done", "vmlinux:dax_insert_pfn_mkwrite",
	"vmlinux:dax_insert_pfn_mkwrite_no_entry", "vmlinux:jbd2_start_commit",
	"vmlinux:jbd2_end_commit",
	"xfs:xfs_direct_write_iomap_begin", "xfs:__xfs_filemap_fault", "xfs:xfs_filemap_fault",
	"xfs:xfs_filemap_huge_fault", "xfs:xfs_filemap_page_mkwrite", "xfs:xfs_filemap_pfn_mkwrite",
	"xfs:xlog_cil_committed", "xfs:xfs_log_force_seq", "xfs:xfs_inode_item_committing",
	NULL,
};
/* 6.18: no __xfs_filemap_fault, the page/folio insert helpers. */
static const char *const btf_6_18[] = {
	"vmlinux:dax_iomap_fault", "vmlinux:dax_fault_iter", "vmlinux:dax_finish_sync_fault",
	"vmlinux:vfs_fsync_range", "vmlinux:ext4_iomap_begin", "vmlinux:ext4_dax_huge_fault",
	"vmlinux:vmf_insert_page_mkwrite", "vmlinux:vmf_insert_folio_pmd", "vmlinux:vmf_insert_pfn_pmd",
	"vmlinux:vmf_insert_mixed", "vmlinux:jbd2_journal_dirty_metadata", "vmlinux:finish_mkwrite_fault",
	"vmlinux:dax_direct_access",
	"vmlinux:dax_insert_pfn_mkwrite", "vmlinux:jbd2_end_commit",
	"xfs:xfs_direct_write_iomap_begin", "xfs:xfs_filemap_fault", "xfs:xfs_filemap_huge_fault",
	"xfs:xfs_filemap_page_mkwrite", "xfs:xfs_filemap_pfn_mkwrite", "xfs:xlog_cil_committed",
	"xfs:xfs_log_force_seq", "xfs:xfs_inode_item_committing",
	NULL,
};
static const char *const xfs_fields[] = {
	"xfs_inode.i_itemp", "xfs_inode.i_pincount", "xfs_inode.i_vnode",
	"xfs_inode_log_item.ili_commit_seq", "xfs_cil_ctx.cil", "xfs_cil_ctx.sequence",
	"xfs_cil.xc_log", "xlog.l_mp", "xlog.l_opstate", "xfs_mount.m_super",
	"xfs_inode_log_item.ili_item", "xfs_inode_log_item.ili_inode", "xfs_inode.i_mount",
	"xfs_mount.m_log", "xlog.l_cilp", "xfs_cil.xc_committing", "xfs_cil.xc_current_sequence",
	"xfs_cil_ctx.committing", NULL,
};

static struct probe_set set;

static void resolve(struct ktap_case_ctx *t, struct fake_kernel *k, const struct probe_use *uses,
		    size_t n, bool kprobes)
{
	fk = k;
	KTAP_EXPECT(t, probe_resolve(&set, &fake, uses, n, kprobes, false) == 0, "resolve failed");
}

/* "name:prog name:prog ..." of @hook's targets. */
static const char *targets(enum probe_hook_id hook)
{
	static char buf[512];
	size_t off = 0;

	buf[0] = '\0';
	for (const struct probe_target *p = probe_first(&set, hook); p; p = probe_next(&set, p))
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s:%s", off ? " " : "",
					p->cand ? p->name : "-", p->prog);
	return buf;
}

#define EXPECT_TARGETS(t, hook, want)						\
	KTAP_EXPECT(t, !strcmp(targets(hook), want), #hook ": got '%s', want '%s'",	\
		    targets(hook), want)

/* Pretend every usable target attached. */
static void attach_all_fake(void)
{
	for (size_t i = 0; i < set.n; i++)
		set.t[i].mode = set.t[i].cand && !set.t[i].missing[0] ?
			(set.t[i].hook->flags & PROBE_TP ? M_TPBTF : M_FENTRY) : M_ABSENT;
}

static struct probe_target *target(const char *name)
{
	for (size_t i = 0; i < set.n; i++)
		if (!strcmp(set.t[i].name, name))
			return &set.t[i];
	return NULL;
}

/* ---- resolution ------------------------------------------------------------ */

static void test_handlers_6_1(struct ktap_case_ctx *t)
{
	struct fake_kernel k = { .btf = btf_6_1, .fields = xfs_fields };

	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), false);
	EXPECT_TARGETS(t, HOOK_FS_HANDLER,
		       "ext4_dax_huge_fault:fs_handler0 __xfs_filemap_fault:fs_handler1");
	EXPECT_TARGETS(t, HOOK_INSERT_PTE,
		       "vmf_insert_mixed_mkwrite:insert_pte_mixed vmf_insert_mixed:insert_pte_mixed_ro");
	EXPECT_TARGETS(t, HOOK_INSERT_PMD, "vmf_insert_pfn_pmd_prot:insert_pmd_prot");
	EXPECT_TARGETS(t, HOOK_FAULT, "dax_iomap_fault:fault");
}

static void test_handlers_6_18(struct ktap_case_ctx *t)
{
	struct fake_kernel k = { .btf = btf_6_18, .fields = xfs_fields };

	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), false);
	EXPECT_TARGETS(t, HOOK_FS_HANDLER,
		       "ext4_dax_huge_fault:fs_handler0 xfs_filemap_fault:fs_handler2 "
		       "xfs_filemap_huge_fault:fs_handler3 xfs_filemap_page_mkwrite:fs_handler4 "
		       "xfs_filemap_pfn_mkwrite:fs_handler5");
	EXPECT_TARGETS(t, HOOK_INSERT_PTE,
		       "vmf_insert_page_mkwrite:insert_pte_page vmf_insert_mixed:insert_pte_mixed_ro");
	EXPECT_TARGETS(t, HOOK_INSERT_PMD,
		       "vmf_insert_folio_pmd:insert_pmd_folio vmf_insert_pfn_pmd:insert_pmd_pfn");
	/* The same table serves daxlat: both tools follow a rename at once. */
	resolve(t, &k, daxlat_uses, NUSES(daxlat_uses), false);
	EXPECT_TARGETS(t, HOOK_FS_HANDLER,
		       "ext4_dax_huge_fault:fs_handler0 xfs_filemap_fault:fs_handler2 "
		       "xfs_filemap_huge_fault:fs_handler3 xfs_filemap_page_mkwrite:fs_handler4 "
		       "xfs_filemap_pfn_mkwrite:fs_handler5");
	EXPECT_TARGETS(t, HOOK_PTE_DONE, "-:pte_done");
}

/* A kernel that has only the older name of a hook's function (xfs before
 * 5.5) resolves to it: a renamed function is one more candidate. */
static void test_older_name(struct ktap_case_ctx *t)
{
	const char *btf[NUSES(btf_6_1)];
	size_t n = 0;

	for (size_t i = 0; btf_6_1[i]; i++)
		if (strcmp(btf_6_1[i], "xfs:xfs_direct_write_iomap_begin"))
			btf[n++] = btf_6_1[i];
	btf[n++] = "xfs:xfs_file_iomap_begin";
	btf[n] = NULL;
	struct fake_kernel k = { .btf = btf, .fields = xfs_fields };

	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), false);
	EXPECT_TARGETS(t, HOOK_XFS_IOMAP, "xfs_file_iomap_begin:xfs_iomap");
	k.btf = btf_6_1;
	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), false);
	EXPECT_TARGETS(t, HOOK_XFS_IOMAP, "xfs_direct_write_iomap_begin:xfs_iomap");
}

static void test_kallsyms_only(struct ktap_case_ctx *t)
{
	static const char *const btf[] = { "vmlinux:dax_iomap_fault", NULL };
	static const char *const ksyms[] = { "vfs_fsync_range.constprop.0", NULL };
	struct fake_kernel k = { .btf = btf, .ksyms = ksyms };
	const struct probe_target *p;

	resolve(t, &k, daxlat_uses, NUSES(daxlat_uses), false);
	p = probe_first(&set, HOOK_FSYNC);
	KTAP_EXPECT(t, p && p->cand && !p->btf && p->ksym &&
		    !strcmp(p->ksym, "vfs_fsync_range.constprop.0"),
		    "vfs_fsync_range: a clone in kallsyms is its kprobe target (got %s)",
		    p && p->ksym ? p->ksym : "none");
	KTAP_EXPECT(t, p && p->fast_err == -ENOENT, "no BTF, no fentry test load");
	p = probe_first(&set, HOOK_FAULT);
	KTAP_EXPECT(t, p && !p->ksym_done, "in BTF: kallsyms not consulted");
}

static void test_fast_tests(struct ktap_case_ctx *t)
{
	static const char *const refuse[] = { "dax_finish_sync_fault", NULL };
	struct fake_kernel k = { .btf = btf_6_1, .fields = xfs_fields, .refuse = refuse };

	resolve(t, &k, daxlat_uses, NUSES(daxlat_uses), false);
	KTAP_EXPECT(t, probe_first(&set, HOOK_SYNC)->fast_err == -EINVAL,
		    "a refused test load is kept, for the kprobe fallback");
	KTAP_EXPECT(t, probe_first(&set, HOOK_FAULT)->fast_err == 0, "dax_iomap_fault loads");
	KTAP_EXPECT(t, k.load_tests > 0, "test loads ran");
	k.load_tests = 0;
	resolve(t, &k, daxlat_uses, NUSES(daxlat_uses), true);
	KTAP_EXPECT(t, k.load_tests == 6, "--kprobes: only the 6 tracepoints test-load, got %d",
		    k.load_tests);
	KTAP_EXPECT(t, probe_first(&set, HOOK_FAULT)->ksym_done, "--kprobes reads kallsyms");
}

/* ---- what probe_ok demands -------------------------------------------------- */

static void test_ok_all_attached(struct ktap_case_ctx *t)
{
	struct fake_kernel k = { .btf = btf_6_1, .fields = xfs_fields };
	char why[512];

	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), false);
	attach_all_fake();
	KTAP_EXPECT(t, probe_ok(&set, why, sizeof(why)), "all attached, still: %s", why);
	KTAP_EXPECT(t, probe_usable(&set, HOOK_XFS_IOMAP), "xfs usable");
}

static void test_ok_required_missing(struct ktap_case_ctx *t)
{
	struct fake_kernel k = { .btf = btf_6_1, .fields = xfs_fields };
	char why[512];

	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), false);
	attach_all_fake();
	target("vmf_insert_mixed_mkwrite")->mode = M_FAILED;
	target("vmf_insert_mixed_mkwrite")->err = -EINVAL;
	KTAP_EXPECT(t, !probe_ok(&set, why, sizeof(why)) &&
		    strstr(why, "vmf_insert_mixed_mkwrite: Invalid argument"),
		    "a required hook that failed is named: '%s'", why);
	/* PROBE_EVERY: one helper of several that did not attach is a blind
	 * spot, even with the others in place. */
	attach_all_fake();
	target("vmf_insert_mixed")->mode = M_FAILED;
	target("vmf_insert_mixed")->err = -EINVAL;
	KTAP_EXPECT(t, !probe_ok(&set, why, sizeof(why)) &&
		    strstr(why, "vmf_insert_mixed: Invalid argument"),
		    "every helper of a PROBE_EVERY hook is required: '%s'", why);
	/* An optional one failing is fine. */
	attach_all_fake();
	target("dax_fault_iter")->mode = M_FAILED;
	KTAP_EXPECT(t, probe_ok(&set, why, sizeof(why)), "optional failed: %s", why);
}

static void test_ok_if_present(struct ktap_case_ctx *t)
{
	static const char *const no_ext4[] = {
		"vmlinux:dax_iomap_fault", "vmlinux:dax_finish_sync_fault", "vmlinux:vfs_fsync_range",
		"vmlinux:vmf_insert_mixed_mkwrite", "vmlinux:dax_insert_pfn_mkwrite",
		"vmlinux:finish_mkwrite_fault", "vmlinux:dax_direct_access", NULL,
	};
	struct fake_kernel k = { .btf = no_ext4 };
	char why[512];

	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), false);
	attach_all_fake();
	KTAP_EXPECT(t, probe_ok(&set, why, sizeof(why)),
		    "no ext4, no xfs, no PMD helper: nothing of theirs is required: %s", why);
	k.btf = btf_6_1;
	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), false);
	attach_all_fake();
	target("ext4_iomap_begin")->mode = M_FAILED;
	KTAP_EXPECT(t, !probe_ok(&set, why, sizeof(why)) && strstr(why, "ext4_iomap_begin"),
		    "ext4 present, its hook failed: '%s'", why);
}

static void test_missing_field(struct ktap_case_ctx *t)
{
	struct fake_kernel k = { .btf = btf_6_1 };	/* no xfs BTF fields */
	const struct probe_target *p;
	char why[512];

	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), false);
	p = probe_first(&set, HOOK_XFS_IOMAP);
	KTAP_EXPECT(t, p && !strcmp(p->missing, "xfs_inode.i_itemp"),
		    "the missing field is named (got '%s')", p ? p->missing : "");
	KTAP_EXPECT(t, !probe_usable(&set, HOOK_XFS_IOMAP), "xfs unusable without its fields");
	p = probe_first(&set, HOOK_XFS_CKPT);
	KTAP_EXPECT(t, p && !p->cand, "xfs_ckpt (with xfs_iomap) left out");
	attach_all_fake();
	KTAP_EXPECT(t, probe_ok(&set, why, sizeof(why)),
		    "xfs without its fields is left out like xfs not loaded: '%s'", why);
	/* A required hook without its fields is an error naming the field. */
	k.btf = btf_6_1;
	{
		static const struct probe_use uses[] = {
			{ HOOK_XFS_IOMAP, PROBE_REQUIRED, PROBE_ENTRY, XFS_IOMAP_FIELDS, HOOK_NONE },
		};

		resolve(t, &k, uses, 1, false);
		attach_all_fake();
		KTAP_EXPECT(t, !probe_ok(&set, why, sizeof(why)) && strstr(why, "xfs_inode.i_itemp"),
			    "required and unusable: '%s'", why);
	}
}

/* ---- the tools' objects ------------------------------------------------------ */

static void check_object(struct ktap_case_ctx *t, const char *path, const struct probe_use *uses,
			 size_t n)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	char buf[128];

	KTAP_EXPECT(t, obj != NULL, "cannot open %s: %s", path, strerror(errno));
	if (!obj)
		return;
	KTAP_EXPECT(t, probe_check_programs(uses, n, obj, buf, sizeof(buf)) == 0,
		    "%s lacks program %s", path, buf);
	bpf_object__close(obj);
}

static void test_daxlat_programs(struct ktap_case_ctx *t)
{
	check_object(t, DAXLAT_BPF_OBJ, daxlat_uses, NUSES(daxlat_uses));
}

static void test_syncorder_programs(struct ktap_case_ctx *t)
{
	check_object(t, SYNCORDER_BPF_OBJ, syncorder_uses, NUSES(syncorder_uses));
}

/* The check can fail: daxlat has no insert helper programs. */
static void test_programs_check_fails(struct ktap_case_ctx *t)
{
	static const struct probe_use uses[] = { { HOOK_INSERT_PMD, PROBE_REQUIRED, PROBE_ENTRY,
						    NULL, HOOK_NONE } };
	struct bpf_object *obj = bpf_object__open_file(DAXLAT_BPF_OBJ, NULL);
	char buf[128] = "";

	KTAP_EXPECT(t, obj != NULL, "cannot open %s", DAXLAT_BPF_OBJ);
	if (!obj)
		return;
	KTAP_EXPECT(t, probe_check_programs(uses, 1, obj, buf, sizeof(buf)) == -ENOENT &&
		    !strcmp(buf, "fentry_insert_pmd_prot"), "got '%s'", buf);
	bpf_object__close(obj);
}

static bool autoloads(struct bpf_object *obj, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, name);

	return p && bpf_program__autoload(p);
}

/* Where raw tracepoint programs can be preempted, tracepoints bind as perf
 * tracepoints (tp_<hook>) and nothing else; otherwise never. */
static void test_bind_perf_tracepoints(struct ktap_case_ctx *t)
{
	struct fake_kernel k = { .btf = btf_6_1, .fields = xfs_fields };
	struct bpf_object *obj = bpf_object__open_file(SYNCORDER_BPF_OBJ, NULL);

	KTAP_EXPECT(t, obj != NULL, "cannot open %s", SYNCORDER_BPF_OBJ);
	if (!obj)
		return;
	resolve(t, &k, syncorder_uses, NUSES(syncorder_uses), true);
	probe_use_perf_tracepoints(&set, true);
	KTAP_EXPECT(t, probe_bind(&set, obj, true) == 0, "bind: missing %s", set.missing_prog);
	KTAP_EXPECT(t, autoloads(obj, "tp_mkwrite") && autoloads(obj, "tp_jbd2_end") &&
		    !autoloads(obj, "tpbtf_mkwrite") && !autoloads(obj, "rawtp_mkwrite"),
		    "perf: tp %d tpbtf %d rawtp %d", autoloads(obj, "tp_mkwrite"),
		    autoloads(obj, "tpbtf_mkwrite"), autoloads(obj, "rawtp_mkwrite"));
	probe_use_perf_tracepoints(&set, false);
	KTAP_EXPECT(t, probe_bind(&set, obj, true) == 0, "bind: missing %s", set.missing_prog);
	KTAP_EXPECT(t, !autoloads(obj, "tp_mkwrite") && autoloads(obj, "rawtp_mkwrite"),
		    "raw: tp %d rawtp %d", autoloads(obj, "tp_mkwrite"), autoloads(obj, "rawtp_mkwrite"));
	bpf_object__close(obj);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_handlers_6_1),
	KTAP_CASE(test_handlers_6_18),
	KTAP_CASE(test_older_name),
	KTAP_CASE(test_kallsyms_only),
	KTAP_CASE(test_fast_tests),
	KTAP_CASE(test_ok_all_attached),
	KTAP_CASE(test_ok_required_missing),
	KTAP_CASE(test_ok_if_present),
	KTAP_CASE(test_missing_field),
	KTAP_CASE(test_daxlat_programs),
	KTAP_CASE(test_syncorder_programs),
	KTAP_CASE(test_programs_check_fails),
	KTAP_CASE(test_bind_perf_tracepoints),
};

int main(void)
{
	libbpf_set_print(quiet);
	return ktap_run(cases, KTAP_COUNT(cases));
}
