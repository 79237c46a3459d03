// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the libbpf tools' shared user space (bpf/probe/trace_helpers.c)
 * that need no kernel: kallsyms lookup, PMD order, exit codes and the held
 * command of -c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "ktap.h"
#include "trace_helpers.h"

/* Unsorted on purpose, with data symbols, aliases, a clone and a module. */
static const char kallsyms_text[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81200000 t dax_iomap_pte_fault\n"
	"ffffffff81100000 T dax_iomap_fault\n"
	"ffffffff81100800 T dax_finish_sync_fault\n"
	"ffffffff82000000 D some_data\n"
	"ffffffff81300000 t __xfs_write_fault.constprop.0\n"
	"ffffffff81300400 t ext4_sync_file.cold\n"
	"ffffffff81300500 T ext4_sync_file\n"
	"ffffffffc0100000 t __xfs_filemap_fault\t[xfs]\n"
	"ffffffffc0100200 t xfs_log_force_seq\t[xfs]\n"
	"garbage line\n";

static struct ksyms *parse(const char *text)
{
	return ksyms_read(fmemopen((void *)text, strlen(text), "r"));
}

static void test_ksyms_parse_text_only(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse(kallsyms_text);

	KTAP_EXPECT(t, ks != NULL, "parse failed");
	if (!ks)
		return;
	/* 10 text symbols; the D symbol and the garbage line are dropped. */
	KTAP_EXPECT(t, ks->n == 10, "n = %zu, want 10", ks->n);
	KTAP_EXPECT(t, !ks->all_zero, "all_zero set");
	for (size_t i = 1; i < ks->n; i++)
		KTAP_EXPECT(t, ks->syms[i - 1].addr <= ks->syms[i].addr,
			    "not sorted at %zu", i);
	KTAP_EXPECT(t, ksyms_by_name(ks, "some_data") == NULL, "data symbol kept");
	ksyms_free(ks);
}

static void test_ksyms_find(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse(kallsyms_text);
	const struct ksym *s;

	if (!ks) {
		KTAP_EXPECT(t, 0, "parse failed");
		return;
	}
	s = ksyms_find(ks, 0xffffffff81100010UL);
	KTAP_EXPECT(t, s && !strcmp(s->name, "dax_iomap_fault"), "got %s",
		    s ? s->name : "NULL");
	s = ksyms_find(ks, 0xffffffff81100800UL);
	KTAP_EXPECT(t, s && !strcmp(s->name, "dax_finish_sync_fault"),
		    "exact start: got %s", s ? s->name : "NULL");
	/* Aliases: the lexically first name. */
	s = ksyms_find(ks, 0xffffffff81000004UL);
	KTAP_EXPECT(t, s && !strcmp(s->name, "_text"), "alias: got %s",
		    s ? s->name : "NULL");
	s = ksyms_find(ks, 0xffffffff80ffffffUL);
	KTAP_EXPECT(t, s == NULL, "below the first symbol: got %s", s ? s->name : "");
	s = ksyms_find(ks, 0xffffffffc0100210UL);
	KTAP_EXPECT(t, s && s->module && !strcmp(s->module, "xfs") &&
		    !strcmp(s->name, "xfs_log_force_seq"), "module symbol: got %s [%s]",
		    s ? s->name : "NULL", s && s->module ? s->module : "");
	/* Far past the last module symbol: a BPF trampoline, unnamed. */
	s = ksyms_find(ks, 0xffffffffc0100200UL + KSYM_MAX_OFFSET + 1);
	KTAP_EXPECT(t, s == NULL, "far address named %s", s ? s->name : "");
	ksyms_free(ks);
}

static void test_ksyms_probe_name(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse(kallsyms_text);
	const char *n;

	if (!ks) {
		KTAP_EXPECT(t, 0, "parse failed");
		return;
	}
	n = ksyms_probe_name(ks, "dax_iomap_fault");
	KTAP_EXPECT(t, n && !strcmp(n, "dax_iomap_fault"), "exact: %s", n ? n : "NULL");
	n = ksyms_probe_name(ks, "__xfs_write_fault");
	KTAP_EXPECT(t, n && !strcmp(n, "__xfs_write_fault.constprop.0"),
		    "clone: %s", n ? n : "NULL");
	n = ksyms_probe_name(ks, "ext4_sync_file");
	KTAP_EXPECT(t, n && !strcmp(n, "ext4_sync_file"), "exact before .cold: %s",
		    n ? n : "NULL");
	n = ksyms_probe_name(ks, "dax_iomap");	/* a prefix only */
	KTAP_EXPECT(t, n == NULL, "prefix matched %s", n ? n : "");
	n = ksyms_probe_name(ks, "nothing_here");
	KTAP_EXPECT(t, n == NULL, "absent matched %s", n ? n : "");
	ksyms_free(ks);
}

static void test_ksyms_format(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse(kallsyms_text);
	char buf[128];

	if (!ks) {
		KTAP_EXPECT(t, 0, "parse failed");
		return;
	}
	KTAP_EXPECT_TEXT(t, ksyms_format(ks, 0xffffffff8110001aUL, buf, sizeof(buf)),
			 "dax_iomap_fault+0x1a");
	KTAP_EXPECT_TEXT(t, ksyms_format(ks, 0xffffffffc0100004UL, buf, sizeof(buf)),
			 "__xfs_filemap_fault+0x4 [xfs]");
	KTAP_EXPECT_TEXT(t, ksyms_format(ks, 0x1234UL, buf, sizeof(buf)), "0x1234");
	ksyms_free(ks);
}

static void test_ksyms_hidden_addresses(struct ktap_case_ctx *t)
{
	struct ksyms *ks = parse("0000000000000000 T a\n0000000000000000 t b\n");
	char buf[64];

	KTAP_EXPECT(t, ks && ks->all_zero, "all_zero not detected");
	if (!ks)
		return;
	KTAP_EXPECT(t, ksyms_find(ks, 0x10) == NULL, "found a symbol by a hidden address");
	KTAP_EXPECT_TEXT(t, ksyms_format(ks, 0x10, buf, sizeof(buf)), "0x10");
	/* Names still resolve, for kprobes. */
	KTAP_EXPECT(t, ksyms_probe_name(ks, "b") != NULL, "name lookup failed");
	ksyms_free(ks);
}

static void test_pmd_order(struct ktap_case_ctx *t)
{
	KTAP_EXPECT(t, pmd_order_of(2UL << 20, 4096) == 9, "x86-64: %u",
		    pmd_order_of(2UL << 20, 4096));
	KTAP_EXPECT(t, pmd_order_of(512UL << 20, 64UL << 10) == 13, "64k pages: %u",
		    pmd_order_of(512UL << 20, 64UL << 10));
	KTAP_EXPECT(t, pmd_order_of(0, 4096) == 9, "unknown PMD size: %u",
		    pmd_order_of(0, 4096));
	KTAP_EXPECT(t, pmd_order_of(2UL << 20, 0) == 9, "unknown page size: %u",
		    pmd_order_of(2UL << 20, 0));
	KTAP_EXPECT(t, pmd_order_of(2048, 4096) == 9, "PMD below a page: %u",
		    pmd_order_of(2048, 4096));
}

static void test_exit_code(struct ktap_case_ctx *t)
{
	/* Wait statuses as the kernel encodes them. */
	KTAP_EXPECT(t, exit_code(3 << 8, -1) == 3, "exit 3: %d", exit_code(3 << 8, -1));
	KTAP_EXPECT(t, exit_code(9, -1) == 128 + 9, "SIGKILL: %d", exit_code(9, -1));
	/* Stopped (WUNTRACED): neither exited nor killed. */
	KTAP_EXPECT(t, exit_code(0x137f, 77) == 77, "stopped: %d", exit_code(0x137f, 77));
}

/* Wait for a command to end, polling as the tools do. */
static bool wait_ended(struct held_cmd *c, int *code)
{
	for (int i = 0; i < 1000; i++) {
		if (held_cmd_ended(c, code, -1))
			return true;
		usleep(10000);
	}
	return false;
}

static void test_held_cmd_runs_when_released(struct ktap_case_ctx *t)
{
	struct held_cmd c = HELD_CMD_INIT;
	int code = -2;

	KTAP_EXPECT(t, !held_cmd_spawn(&c, "exit 3"), "spawn: %s", strerror(errno));
	if (c.pid <= 0)
		return;
	usleep(20000);
	KTAP_EXPECT(t, !held_cmd_ended(&c, &code, -1), "ran before the release");
	KTAP_EXPECT(t, !held_cmd_release(&c), "release: %s", strerror(errno));
	KTAP_EXPECT(t, c.released && c.go_fd < 0, "released %d go_fd %d", c.released, c.go_fd);
	KTAP_EXPECT(t, wait_ended(&c, &code) && code == 3, "exit code %d, want 3", code);
	held_cmd_cleanup(&c);
}

static void test_held_cmd_cancelled_does_not_run(struct ktap_case_ctx *t)
{
	struct held_cmd c = HELD_CMD_INIT;
	char path[] = "/tmp/test_trace_helpers.XXXXXX";
	char cmd[64];
	int fd = mkstemp(path), code = -2;

	KTAP_EXPECT(t, fd >= 0, "mkstemp: %s", strerror(errno));
	if (fd < 0)
		return;
	close(fd);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "touch %s", path);
	KTAP_EXPECT(t, !held_cmd_spawn(&c, cmd), "spawn: %s", strerror(errno));
	if (c.pid <= 0)
		return;
	held_cmd_cancel(&c);
	KTAP_EXPECT(t, wait_ended(&c, &code) && code == 127, "exit code %d, want 127", code);
	KTAP_EXPECT(t, access(path, F_OK), "the command ran");
	unlink(path);
	held_cmd_cleanup(&c);
}

static void test_held_cmd_cleanup_reaps_unreleased(struct ktap_case_ctx *t)
{
	struct held_cmd c = HELD_CMD_INIT;
	pid_t pid;

	KTAP_EXPECT(t, !held_cmd_spawn(&c, "true"), "spawn: %s", strerror(errno));
	if (c.pid <= 0)
		return;
	pid = c.pid;
	held_cmd_cleanup(&c);
	KTAP_EXPECT(t, waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD,
		    "child %d not reaped", (int)pid);
}

static long ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

/* The tools sleep in wait_for_work: the command's end wakes them, long
 * before the timeout that would otherwise end the sleep. */
static void test_wait_wakes_on_cmd_end(struct ktap_case_ctx *t)
{
	static volatile sig_atomic_t stop;
	struct held_cmd c = HELD_CMD_INIT;
	struct timespec t0;
	int code = -2, err;

	KTAP_EXPECT(t, !held_cmd_spawn(&c, "exit 4"), "spawn: %s", strerror(errno));
	if (c.pid <= 0)
		return;
	KTAP_EXPECT(t, c.pidfd >= 0, "no pidfd: %s", strerror(errno));
	KTAP_EXPECT(t, !held_cmd_release(&c), "release: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = wait_for_work(NULL, c.pidfd, -1, NULL, 5000, &stop);
	KTAP_EXPECT(t, !err && ms_since(&t0) < 2500, "woke after %ld ms (%d)", ms_since(&t0), err);
	KTAP_EXPECT(t, held_cmd_ended(&c, &code, -1) && code == 4, "ended %d, code %d", c.reaped, code);
	KTAP_EXPECT(t, c.pidfd < 0, "pidfd %d left open", c.pidfd);
	held_cmd_cleanup(&c);
}

/* A stop signal already taken is not slept through; nothing to wait for
 * lasts the timeout. */
static void test_wait_stop_and_timeout(struct ktap_case_ctx *t)
{
	static volatile sig_atomic_t stop;
	struct timespec t0;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	KTAP_EXPECT(t, !wait_for_work(NULL, -1, -1, NULL, 60, &stop), "timeout: error");
	ms = ms_since(&t0);
	KTAP_EXPECT(t, ms >= 55 && ms < 2000, "60 ms timeout took %ld ms", ms);
	stop = SIGINT;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	KTAP_EXPECT(t, !wait_for_work(NULL, -1, -1, NULL, 5000, &stop), "stopped: error");
	KTAP_EXPECT(t, ms_since(&t0) < 2500, "slept %ld ms with the stop set", ms_since(&t0));
}

/* In a mount namespace of its own (nothing reaches the host's): the
 * mount table's change wakes the wait and is reported. The child's exit
 * code: 0, or the step that failed. */
static int mounts_change_child(const char *dir)
{
	static volatile sig_atomic_t stop;
	struct timespec t0;
	bool changed = false;
	int fd;

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 10;
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 11;
	if (wait_for_work(NULL, -1, fd, &changed, 50, &stop) || changed)
		return 12;	/* nothing changed yet */
	if (fork() == 0) {
		usleep(100 * 1000);
		_exit(mount("none", dir, "tmpfs", 0, NULL) ? 1 : 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (wait_for_work(NULL, -1, fd, &changed, 5000, &stop))
		return 13;
	if (!changed || ms_since(&t0) >= 2500)
		return 14;
	return 0;
}

static void test_wait_wakes_on_mount(struct ktap_case_ctx *t)
{
	char dir[] = "/tmp/test-mounts.XXXXXX";
	int status = -1;
	pid_t pid;

	KTAP_EXPECT(t, mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
	pid = fork();
	if (pid == 0)
		_exit(mounts_change_child(dir));
	waitpid(pid, &status, 0);
	rmdir(dir);
	KTAP_EXPECT(t, WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "child status %#x (10: no mount namespace: root needed)", status);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_ksyms_parse_text_only),
	KTAP_CASE(test_ksyms_find),
	KTAP_CASE(test_ksyms_probe_name),
	KTAP_CASE(test_ksyms_format),
	KTAP_CASE(test_ksyms_hidden_addresses),
	KTAP_CASE(test_pmd_order),
	KTAP_CASE(test_exit_code),
	KTAP_CASE(test_held_cmd_runs_when_released),
	KTAP_CASE(test_held_cmd_cancelled_does_not_run),
	KTAP_CASE(test_held_cmd_cleanup_reaps_unreleased),
	KTAP_CASE(test_wait_wakes_on_cmd_end),
	KTAP_CASE(test_wait_stop_and_timeout),
	KTAP_CASE(test_wait_wakes_on_mount),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
