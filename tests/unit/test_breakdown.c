// SPDX-License-Identifier: GPL-2.0
/* Unit tests of daxlat --breakdown's user space (bpf/breakdown.c) on
 * synthetic per-fault samples: the checks, the sums per filesystem, the
 * per-fault lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
/* Compiled in: the generic tests/unit rule links only LIB_OBJS. */
#include "../../bpf/probe/kinds.c"
#include "../../bpf/breakdown.c"

/* A fault of @fs whose 1 ms phase was 100 us on CPU, 50 us runnable and
 * 850 us asleep, woken by @w; the kernel's run_delay @run_delay. */
static struct bd_sample sample(unsigned int fs, unsigned int w, __u64 run_delay)
{
	struct bd_sample s;

	memset(&s, 0, sizeof(s));
	s.fs = fs;
	s.phase_ns = 1000000;
	s.part[BD_ONCPU] = 100000, s.part[BD_RUNQ] = 50000, s.part[BD_SLEEP] = 850000;
	s.sleep_by[w] = 850000;
	s.runq_by[W_IDLE] = 50000;
	s.main_wait = w;
	s.main_wait_part = BD_SLEEP;
	s.run_delay = run_delay;
	s.switch_ins = s.pcount = 2;
	s.tid = 42;
	memcpy(s.comm, "faultlat", 9);
	memcpy(s.waker_comm, "jbd2/pmem0-8", 13);
	memcpy(s.file, "a file", 7);
	return s;
}

static void test_checks_per_fault(struct ktap_case_ctx *t)
{
	struct bd_sample s = sample(FS_EXT4, W_JBD2, 50000);

	KTAP_EXPECT(t, bd_sample_sums(&s), "parts = phase");
	s.part[BD_SLEEP] += 10000;	/* 1 % over: still within */
	KTAP_EXPECT(t, bd_sample_sums(&s), "1 %% over is within");
	s.part[BD_SLEEP] += 1;
	KTAP_EXPECT(t, !bd_sample_sums(&s), "over 1 %% is not");
	s = sample(FS_EXT4, W_JBD2, 59000);	/* 9 us apart: within 10 us */
	KTAP_EXPECT(t, bd_sample_runq_agrees(&s), "9 us apart");
	s = sample(FS_EXT4, W_JBD2, 61000);
	KTAP_EXPECT(t, !bd_sample_runq_agrees(&s), "11 us and 18 %% apart");
	s.part[BD_RUNQ] = 1000000, s.run_delay = 1019000;	/* 1.9 % of a long wait */
	KTAP_EXPECT(t, bd_sample_runq_agrees(&s), "19 us but 1.9 %% apart");
}

static void test_summary_per_fs(struct ktap_case_ctx *t)
{
	struct bd_store st = { 0 };
	struct bd_summary sum[FS_NR];
	struct bd_sample s;

	for (int i = 0; i < 19; i++) {
		s = sample(FS_EXT4, W_JBD2, 50000);
		bd_store_add(&st, &s, sizeof(s));
	}
	s = sample(FS_EXT4, W_OTHER, 80000);	/* runnable disagrees */
	s.switch_ins = 3;
	bd_store_add(&st, &s, sizeof(s));
	s = sample(FS_XFS, W_XFS_CIL, 50000);
	s.part[BD_ONCPU] = 0;			/* does not add up */
	s.broken = 1;
	bd_store_add(&st, &s, sizeof(s));
	bd_store_add(&st, &s, 3);		/* short record: ignored */
	bd_summarize(&st, sum);
	KTAP_EXPECT(t, sum[FS_EXT4].faults == 20 && sum[FS_XFS].faults == 1, "faults %llu %llu",
		    sum[FS_EXT4].faults, sum[FS_XFS].faults);
	KTAP_EXPECT(t, sum[FS_EXT4].main_wait[W_JBD2] == 19 && sum[FS_EXT4].main_wait[W_OTHER] == 1,
		    "main wakers");
	KTAP_EXPECT(t, sum[FS_EXT4].sum_ok == 20 && sum[FS_EXT4].runq_ok == 19 &&
		    sum[FS_EXT4].switches_ok == 19, "ext4 checks %llu %llu %llu",
		    sum[FS_EXT4].sum_ok, sum[FS_EXT4].runq_ok, sum[FS_EXT4].switches_ok);
	KTAP_EXPECT(t, sum[FS_XFS].sum_ok == 0 && sum[FS_XFS].broken == 1 &&
		    sum[FS_XFS].worst_sum_diff_ns == 100000, "xfs checks: worst %lld",
		    sum[FS_XFS].worst_sum_diff_ns);
	KTAP_EXPECT(t, sum[FS_EXT4].runq_by[W_IDLE] == 20 * 50000ULL, "runnable behind idle %llu",
		    sum[FS_EXT4].runq_by[W_IDLE]);
	KTAP_EXPECT(t, sum[FS_EXT4].sleep_by[W_JBD2] == 19 * 850000ULL &&
		    sum[FS_EXT4].part[BD_SLEEP] == 20 * 850000ULL, "sleep sums");
	bd_store_free(&st);
}

static const char *sym(__u64 addr, void *ctx)
{
	(void)ctx;
	return addr == 0xffffffffc0001000ULL ? "xlog_cil_push_work" : NULL;
}

static void test_lines(struct ktap_case_ctx *t)
{
	struct bd_store st = { 0 };
	struct bd_sample s = sample(FS_XFS, W_XFS_CIL, 50000);
	char buf[4096], *line2;
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	int fields = 0;

	s.waker_func = 0xffffffffc0001000ULL;
	memcpy(s.comm, "two words", 10);
	s.bios = 5, s.bio_ns = 7000, s.flushes = 1, s.flush_ns = 3000;
	bd_store_add(&st, &s, sizeof(s));
	KTAP_EXPECT(t, f && bd_write_lines(f, &st, sym, NULL) == 0, "written");
	fclose(f);
	line2 = strchr(buf, '\n');
	KTAP_EXPECT(t, buf[0] == '#' && line2, "a header, then the fault");
	if (!line2)
		return;
	line2++;
	KTAP_EXPECT(t, strncmp(line2, "xfs 0 42 0:0 ", 13) == 0, "fields: %.40s", line2);
	KTAP_EXPECT(t, strstr(line2, " xfs_cil_push asleep jbd2/pmem0-8 xlog_cil_push_work 0 0 5 7000 1 3000 two_words a_file\n"),
		    "waker, function, bios, comm as one field: %s", line2);
	for (char *p = line2; *p && *p != '\n'; p++)
		fields += *p == ' ';
	KTAP_EXPECT(t, fields + 1 == 47, "%d fields, the header names 47", fields + 1);
	/* The block I/O under the table: a bio count, not a part. */
	f = fmemopen(buf, sizeof(buf), "w");
	bd_print_text(f, &st, 1000, "us");
	fclose(f);
	KTAP_EXPECT(t, strstr(buf, "    block I/O on its device meanwhile: 5.0 bios a fault, 1.0 of them REQ_PREFLUSH/FUA;") &&
		    strstr(buf, "      the flushes (REQ_PREFLUSH/FUA)"), "block I/O lines: %s", buf);
	bd_store_free(&st);
}

static void test_groups(struct ktap_case_ctx *t)
{
	struct bd_store st = { 0 };
	struct bd_group *g = NULL;
	struct bd_sample s;
	enum bd_by by;
	size_t n = 0;

	for (int i = 0; i < 8; i++) {
		s = sample(FS_EXT4, W_JBD2, 50000);
		s.dev = 259 << 20 | 1, s.ino = i < 6 ? 12 : 13;	/* 6 faults on 12, 2 on 13 */
		s.tgid = i < 3 ? 100 : 200;
		bd_store_add(&st, &s, sizeof(s));
	}
	KTAP_EXPECT(t, bd_by_parse("file", &by) == 0 && by == BD_BY_FILE, "parse file");
	KTAP_EXPECT(t, bd_by_parse("inode", &by) == -EINVAL, "parse inode refused");
	KTAP_EXPECT(t, bd_group(&st, BD_BY_FILE, NULL, NULL, &g, &n) == 0 && n == 2, "%zu files", n);
	KTAP_EXPECT(t, n == 2 && g[0].key2 == 12 && g[0].faults == 6 && g[1].key2 == 13 &&
		    g[1].faults == 2 && g[0].phase_ns == 6000000ULL && !strcmp(g[0].name, "a file"),
		    "longest first: ino %llu x%llu", n ? g[0].key2 : 0, n ? g[0].faults : 0);
	free(g);
	KTAP_EXPECT(t, bd_group(&st, BD_BY_PID, NULL, NULL, &g, &n) == 0 && n == 2 &&
		    g[0].key == 200 && g[0].faults == 5 && g[0].main_wait[W_JBD2] == 5, "by pid");
	free(g);
	bd_store_free(&st);
}

static const char *sym_fold(__u64 addr, void *ctx)
{
	(void)ctx;
	return addr == 1 ? "schedule" : addr == 2 ? "jbd2_log_wait_commit" : addr == 3 ? "ext4_sync_file" :
	       addr == 4 ? "__wake_up" : addr == 5 ? "kjournald2" : addr == 6 ? "bpf_trace_run4" : NULL;
}

static void test_fold_lines(struct ktap_case_ctx *t)
{
	struct bd_fold_key k = { .wait_stack = 1, .other_stack = 2, .fs = FS_EXT4, .part = BD_SLEEP };
	struct bd_fold_val v = { .ns = 12345, .count = 3 };
	const __u64 wait[DAXLAT_FOLD_DEPTH] = { 6, 1, 2, 3 }, other[DAXLAT_FOLD_DEPTH] = { 4, 5, 9 };
	char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	memcpy(k.other_comm, "jbd2/pmem0-8", 13);
	bd_fold_line(f, &k, &v, wait, other, sym_fold, NULL);
	k.part = BD_RUNQ;
	memcpy(k.other_comm, "kworker/0:1", 12);
	bd_fold_line(f, &k, &v, wait, NULL, sym_fold, NULL);
	bd_fold_line(f, &k, &v, NULL, NULL, sym_fold, NULL);
	k.part = BD_ONCPU;
	memset(k.other_comm, 0, sizeof(k.other_comm));
	bd_fold_line(f, &k, &v, wait, NULL, sym_fold, NULL);
	fclose(f);
	KTAP_EXPECT(t, !strcmp(buf, "[ext4 metadata sync];ext4_sync_file;jbd2_log_wait_commit;schedule;--;"
			  "__wake_up;kjournald2;jbd2/pmem0-8 12345\n"
			  "[ext4 metadata sync];ext4_sync_file;jbd2_log_wait_commit;schedule;--;"
			  "[runnable behind kworker/0:1] 12345\n"
			  "[ext4 metadata sync];[no stack];--;[runnable behind kworker/0:1] 12345\n"
			  "[ext4 metadata sync];ext4_sync_file;jbd2_log_wait_commit;schedule;--;"
			  "[on CPU] 12345\n"), "got: %s", buf);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_fold_lines),
	KTAP_CASE(test_groups),
	KTAP_CASE(test_checks_per_fault),
	KTAP_CASE(test_summary_per_fs),
	KTAP_CASE(test_lines),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
