// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for lib/cli.c, lib/mapsync.c and the option helpers of
 * lib/pmpattern.c that faultlat, pmwrite and pmverify share: number and
 * name parsing at their edges, errno to exit code, the exact one-line
 * messages, usage errors and their exit status (in a child process), and
 * VM_SYNC read from this process's own smaps.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "cli.h"
#include "exitcodes.h"
#include "json.h"
#include "ktap.h"
#include "mapsync.h"
#include "pmpattern.h"

#define SENTINEL 0x5a5a5a5aULL

/* ---- capturing stderr, and running what exits in a child ---- */

struct capture {
	int saved;
	FILE *file;
	char text[1024];
};

static void capture_begin(struct capture *c)
{
	fflush(stderr);
	c->file = tmpfile();
	c->saved = dup(STDERR_FILENO);
	dup2(fileno(c->file), STDERR_FILENO);
}

/* Ends the capture; the bytes written to stderr are in c->text. */
static const char *capture_end(struct capture *c)
{
	size_t n;

	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	rewind(c->file);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->file);
	c->text[n] = '\0';
	fclose(c->file);
	return c->text;
}

/*
 * Runs @fn(@arg) in a child with stdout and stderr into @out. Returns the
 * exit status, or -1 if the child did not exit (99: @fn returned).
 */
static int run_child(void (*fn)(void *), void *arg, char *out, size_t len)
{
	int fds[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	fflush(NULL);	/* the child must not print our buffered lines again */
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		fn(arg);
		fflush(NULL);
		_exit(99);
	}
	close(fds[1]);
	while (got + 1 < len && (n = read(fds[0], out + got, len - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* ---- numbers ---- */

static bool u64(const char *arg, int base, uint64_t min, uint64_t max, uint64_t want)
{
	uint64_t v = SENTINEL;

	return cli_parse_u64(arg, base, min, max, &v) && v == want;
}

/* Rejected, and *out left alone. */
static bool u64_bad(const char *arg, int base, uint64_t min, uint64_t max)
{
	uint64_t v = SENTINEL;

	return !cli_parse_u64(arg, base, min, max, &v) && v == SENTINEL;
}

static void test_parse_u64_decimal(struct ktap_case_ctx *t)
{
	KTAP_EXPECT(t, u64("1", 10, 1, 512, 1), "lower bound is inclusive");
	KTAP_EXPECT(t, u64("512", 10, 1, 512, 512), "upper bound is inclusive");
	KTAP_EXPECT(t, u64_bad("0", 10, 1, 512), "below min");
	KTAP_EXPECT(t, u64_bad("513", 10, 1, 512), "above max");
	KTAP_EXPECT(t, u64_bad("", 10, 0, 9), "empty");
	KTAP_EXPECT(t, u64_bad("-1", 10, 0, UINT64_MAX), "a minus sign, which strtoull would wrap");
	KTAP_EXPECT(t, u64_bad("-0", 10, 0, UINT64_MAX), "-0");
	KTAP_EXPECT(t, u64_bad("5x", 10, 0, 9), "trailing garbage");
	KTAP_EXPECT(t, u64_bad("5 ", 10, 0, 9), "trailing blank");
	KTAP_EXPECT(t, u64_bad("x", 10, 0, 9), "no digits");
	KTAP_EXPECT(t, u64_bad("1k", 10, 0, UINT64_MAX), "no suffix without cli_parse_size");
	KTAP_EXPECT(t, u64("010", 10, 0, 99, 10), "base 10: a leading 0 is not octal");
	KTAP_EXPECT(t, u64_bad("0x10", 10, 0, 99), "base 10: no hex");
	KTAP_EXPECT(t, u64("18446744073709551615", 10, 0, UINT64_MAX, UINT64_MAX), "UINT64_MAX");
	KTAP_EXPECT(t, u64_bad("18446744073709551616", 10, 0, UINT64_MAX), "UINT64_MAX + 1 (ERANGE)");
	KTAP_EXPECT(t, u64_bad("99999999999999999999999", 10, 0, UINT64_MAX), "far beyond (ERANGE)");
}

static void test_parse_u64_any_base(struct ktap_case_ctx *t)
{
	KTAP_EXPECT(t, u64("0x10", 0, 0, UINT64_MAX, 16), "hex");
	KTAP_EXPECT(t, u64("0X1f", 0, 0, UINT64_MAX, 31), "hex, upper-case X");
	KTAP_EXPECT(t, u64("010", 0, 0, UINT64_MAX, 8), "octal");
	KTAP_EXPECT(t, u64("0", 0, 0, UINT64_MAX, 0), "zero");
	KTAP_EXPECT(t, u64_bad("08", 0, 0, UINT64_MAX), "8 is no octal digit");
	KTAP_EXPECT(t, u64_bad("0x", 0, 0, UINT64_MAX), "hex prefix without digits");
	KTAP_EXPECT(t, u64_bad("-0x1", 0, 0, UINT64_MAX), "negative hex");
	KTAP_EXPECT(t, u64("0xffffffffffffffff", 0, 0, UINT64_MAX, UINT64_MAX), "hex UINT64_MAX");
	KTAP_EXPECT(t, u64_bad("0x10000000000000000", 0, 0, UINT64_MAX), "hex UINT64_MAX + 1");
	KTAP_EXPECT(t, u64_bad("0x1000001", 0, 1, PMP_MAX_PAGES), "hex above max");
}

static bool size(const char *arg, uint64_t max, uint64_t want)
{
	uint64_t v = SENTINEL;

	return cli_parse_size(arg, 1, max, &v) && v == want;
}

static bool size_bad(const char *arg, uint64_t max)
{
	uint64_t v = SENTINEL;

	return !cli_parse_size(arg, 1, max, &v) && v == SENTINEL;
}

static void test_parse_size(struct ktap_case_ctx *t)
{
	const uint64_t tib = 1ULL << 40;

	KTAP_EXPECT(t, size("16", tib, 16), "no suffix: bytes");
	KTAP_EXPECT(t, size("1k", tib, 1024) && size("1K", tib, 1024), "k and K");
	KTAP_EXPECT(t, size("16M", tib, 16ULL << 20) && size("16m", tib, 16ULL << 20), "m and M");
	KTAP_EXPECT(t, size("2G", tib, 2ULL << 30) && size("2g", tib, 2ULL << 30), "g and G");
	KTAP_EXPECT(t, size("1024G", tib, tib), "the max, with a suffix");
	KTAP_EXPECT(t, size_bad("1025G", tib), "above the max");
	KTAP_EXPECT(t, size_bad("1T", tib), "no T suffix");
	KTAP_EXPECT(t, size_bad("1KB", tib), "nothing after the suffix");
	KTAP_EXPECT(t, size_bad("1k5", tib), "digits after the suffix");
	KTAP_EXPECT(t, size_bad("K", tib), "a suffix alone");
	KTAP_EXPECT(t, size_bad("0k", tib), "zero, with a suffix, is below min 1");
	KTAP_EXPECT(t, size_bad("-1k", tib), "negative");
	KTAP_EXPECT(t, size_bad("0x10", tib), "no hex");
	KTAP_EXPECT(t, size("17179869183G", UINT64_MAX, 17179869183ULL << 30), "the largest G that fits");
	KTAP_EXPECT(t, size_bad("17179869184G", UINT64_MAX), "2^64 bytes overflows");
	KTAP_EXPECT(t, size_bad("17179869185G", UINT64_MAX), "2^64 + 1 GiB would wrap to 1 GiB");
	KTAP_EXPECT(t, size_bad("18014398509481984K", UINT64_MAX), "2^64 bytes in K overflows");
	KTAP_EXPECT(t, size_bad("18014398509481985K", UINT64_MAX), "2^64 + 1 KiB would wrap to 1 KiB");
}

/* ---- names ---- */

static const char *const states[] = { "empty", "prealloc", "fallocated" };

static void test_lookup_name(struct ktap_case_ctx *t)
{
	KTAP_EXPECT(t, cli_lookup_name("empty", states, 3) == 0, "first");
	KTAP_EXPECT(t, cli_lookup_name("fallocated", states, 3) == 2, "last");
	KTAP_EXPECT(t, cli_lookup_name("pre", states, 3) == -1, "a prefix is no match");
	KTAP_EXPECT(t, cli_lookup_name("Empty", states, 3) == -1, "case matters");
	KTAP_EXPECT(t, cli_lookup_name("", states, 3) == -1, "empty");
	KTAP_EXPECT(t, cli_lookup_name("fallocated", states, 2) == -1, "only the first n");
	KTAP_EXPECT(t, cli_choice_arg("--state", "prealloc", states, 3) == 1, "choice");
}

/* ---- errno and messages ---- */

static void test_exit_code_for_errno(struct ktap_case_ctx *t)
{
	KTAP_EXPECT(t, cli_exit_code(ENOSPC) == EXIT_NO_SPACE, "ENOSPC");
	KTAP_EXPECT(t, cli_exit_code(EDQUOT) == EXIT_NO_SPACE, "EDQUOT");
	KTAP_EXPECT(t, cli_exit_code(EIO) == EXIT_RUNTIME, "EIO");
	KTAP_EXPECT(t, cli_exit_code(ENOMEM) == EXIT_RUNTIME, "ENOMEM");
	/* MAP_SYNC's own refusals get their codes from the caller, not here. */
	KTAP_EXPECT(t, cli_exit_code(EINVAL) == EXIT_RUNTIME, "EINVAL");
	KTAP_EXPECT(t, cli_exit_code(EOPNOTSUPP) == EXIT_RUNTIME, "EOPNOTSUPP");
	KTAP_EXPECT(t, cli_exit_code(0) == EXIT_RUNTIME, "0");
}

static void test_fail_lines(struct ktap_case_ctx *t)
{
	struct capture c;
	int code;

	cli_prog = "tool";
	capture_begin(&c);
	code = cli_fail(EXIT_NOT_DAX, "%s: not a DAX file (%s)", "/mnt/f", "statx");
	KTAP_EXPECT_TEXT(t, capture_end(&c), "tool: /mnt/f: not a DAX file (statx)\n");
	KTAP_EXPECT(t, code == EXIT_NOT_DAX, "cli_fail returned %d", code);

	capture_begin(&c);
	code = cli_fail_errno(ENOSPC, "write %s", "/mnt/f");
	KTAP_EXPECT_TEXT(t, capture_end(&c), "tool: write /mnt/f: No space left on device\n");
	KTAP_EXPECT(t, code == EXIT_NO_SPACE, "ENOSPC gave %d", code);

	capture_begin(&c);
	code = cli_fail_errno(ENOENT, "create %s", "/x/f");
	KTAP_EXPECT_TEXT(t, capture_end(&c), "tool: create /x/f: No such file or directory\n");
	KTAP_EXPECT(t, code == EXIT_RUNTIME, "ENOENT gave %d", code);

	capture_begin(&c);
	code = cli_fail_errno(EPIPE, "pipe");
	KTAP_EXPECT_TEXT(t, capture_end(&c), "tool: pipe: Broken pipe\n");
	KTAP_EXPECT(t, code == EXIT_RUNTIME, "EPIPE gave %d", code);
}

static void test_verbose(struct ktap_case_ctx *t)
{
	struct capture c;

	cli_prog = "tool";
	cli_verbose_on = false;
	capture_begin(&c);
	cli_verbose("hidden %d", 1);
	KTAP_EXPECT_TEXT(t, capture_end(&c), "");
	cli_verbose_on = true;
	capture_begin(&c);
	cli_verbose("rep %u/%u", 1u, 2u);
	KTAP_EXPECT_TEXT(t, capture_end(&c), "tool: rep 1/2\n");
	cli_verbose_on = false;
}

static void test_json_finish(struct ktap_case_ctx *t)
{
	struct json_writer w;
	struct capture c;
	char buf[64];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	int code;

	cli_prog = "tool";
	json_init(&w, f);
	json_begin_object(&w);
	json_end_object(&w);
	KTAP_EXPECT(t, cli_json_finish(&w) == 0, "a good document");

	json_init(&w, f);
	json_begin_object(&w);	/* never closed */
	capture_begin(&c);
	code = cli_json_finish(&w);
	KTAP_EXPECT_TEXT(t, capture_end(&c), "tool: write JSON: malformed document\n");
	KTAP_EXPECT(t, code == EXIT_RUNTIME, "returned %d", code);
	fclose(f);
}

/* ---- what exits: usage errors, argp ---- */

static void child_usage_error(void *arg)
{
	(void)arg;
	cli_prog = "tool";
	cli_usage_error("invalid --pages '%s' (1..%llu)", "0", 512ULL);
}

static void child_choice(void *arg)
{
	static const char *const loads[] = { "none", "copy" };

	cli_prog = "tool";
	cli_choice_arg("--load", arg, loads, 2);
}

static void child_nonempty(void *arg)
{
	cli_prog = "tool";
	cli_nonempty_arg("--file", arg);
}

static void test_usage_errors_exit_2(struct ktap_case_ctx *t)
{
	char out[512];
	int st;

	st = run_child(child_usage_error, NULL, out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "cli_usage_error exited %d", st);
	KTAP_EXPECT_TEXT(t, out, "tool: invalid --pages '0' (1..512)\n");

	st = run_child(child_choice, "cpy", out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "cli_choice_arg exited %d", st);
	KTAP_EXPECT_TEXT(t, out, "tool: invalid --load 'cpy' (none|copy)\n");

	st = run_child(child_choice, "copy", out, sizeof(out));
	KTAP_EXPECT(t, st == 99, "a good choice must return, the child exited %d", st);

	st = run_child(child_nonempty, "", out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "cli_nonempty_arg exited %d", st);
	KTAP_EXPECT_TEXT(t, out, "tool: empty --file\n");

	st = run_child(child_nonempty, "/f", out, sizeof(out));
	KTAP_EXPECT(t, st == 99 && !*out, "a file name must pass, exit %d, '%s'", st, out);
}

static struct {
	const char *file;
	uint64_t n;
} opt;

static const struct argp_option test_opts[] = {
	{ "file", 'f', "PATH", 0, "A file", 0 },
	{ "pages", 'n', "N", 0, "Pages", 0 },
	CLI_OPT_HELP,
	{ 0 },
};

static error_t test_parser(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'f':
		opt.file = cli_nonempty_arg("--file", arg);
		break;
	case 'n':
		if (!cli_parse_u64(arg, 10, 1, 512, &opt.n))
			cli_usage_error("invalid --pages '%s' (1..512)", arg);
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}

/* argv as one string, words split at blanks. */
static void child_parse(void *arg)
{
	char *argv[8], *save = NULL;
	int argc = 0;

	for (char *w = strtok_r(arg, " ", &save); w && argc < 7; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	cli_parse_args("tool", test_opts, test_parser, "Test tool.", argc, argv);
	printf("parsed file=%s n=%llu\n", opt.file, (unsigned long long)opt.n);
}

static int parse(const char *cmdline, char *out, size_t len)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s", cmdline);
	return run_child(child_parse, buf, out, len);
}

static void test_parse_args(struct ktap_case_ctx *t)
{
	char out[2048];
	int st;

	st = parse("tool -f /mnt/f -n 8", out, sizeof(out));
	KTAP_EXPECT(t, st == 99, "good command line: exit %d", st);
	KTAP_EXPECT_TEXT(t, out, "parsed file=/mnt/f n=8\n");

	st = parse("tool -f /mnt/f stray", out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "stray argument: exit %d", st);
	KTAP_EXPECT_TEXT(t, out, "tool: unexpected argument 'stray'\n");

	st = parse("tool -n 0", out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "bad value: exit %d", st);
	KTAP_EXPECT_TEXT(t, out, "tool: invalid --pages '0' (1..512)\n");

	/* argp's own errors: its two lines, and EXIT_USAGE rather than 64. */
	st = parse("tool --bogus", out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "unknown option: exit %d", st);
	KTAP_EXPECT(t, strstr(out, "unrecognized option '--bogus'") != NULL, "unknown option: '%s'", out);
	st = parse("tool -f", out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "missing argument: exit %d", st);

	st = parse("tool -h", out, sizeof(out));
	KTAP_EXPECT(t, st == 0, "-h: exit %d", st);
	KTAP_EXPECT(t, strncmp(out, "Usage: tool [OPTION...]\nTest tool.\n", 35) == 0 &&
		    strstr(out, "--pages=N") != NULL, "-h is the full help: '%s'", out);
	KTAP_EXPECT(t, strstr(out, "Show the full help") == NULL, "-h itself stays hidden");
}

/* ---- the identity options of pmwrite and pmverify ---- */

static void child_ident(void *arg)
{
	struct pmp_ident id = PMP_IDENT_DEFAULT;
	const char *a = arg;

	cli_prog = "tool";
	pmp_ident_option(&id, a[0], a + 1);
}

static void child_count(void *arg)
{
	const struct pmp_ident id = { .pages = 256 };

	cli_prog = "tool";
	pmp_ident_check_count(&id, "--recorded", *(uint64_t *)arg);
}

static void test_pmp_ident(struct ktap_case_ctx *t)
{
	struct pmp_ident id = PMP_IDENT_DEFAULT;
	struct pmp_key key;
	char out[256];
	uint64_t k;
	int st;

	KTAP_EXPECT(t, id.pages == 256 && id.generation == 1 && !id.seed && !id.writer, "defaults");
	KTAP_EXPECT(t, pmp_ident_option(&id, 'n', "0x10") && id.pages == 16, "-n takes hex");
	KTAP_EXPECT(t, pmp_ident_option(&id, 's', "7") && pmp_ident_option(&id, 'g', "3") &&
		    pmp_ident_option(&id, 'w', "010") && id.seed == 7 && id.generation == 3 &&
		    id.writer == 8, "-s -g -w");
	KTAP_EXPECT(t, !pmp_ident_option(&id, 'r', "1") && !pmp_ident_option(&id, 'f', "x"),
		    "other keys are not taken");
	key = pmp_ident_key(&id);
	KTAP_EXPECT(t, key.run_id == pmp_run_id(7, 3, 8) && key.generation == 3 && key.pages == 16,
		    "key");

	st = run_child(child_ident, "n16777217", out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "-n above PMP_MAX_PAGES: exit %d", st);
	KTAP_EXPECT_TEXT(t, out, "tool: invalid --pages '16777217' (1..16777216)\n");
	st = run_child(child_ident, "s-1", out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "-s -1: exit %d", st);
	KTAP_EXPECT_TEXT(t, out, "tool: invalid --seed '-1'\n");
	st = run_child(child_ident, "gx", out, sizeof(out));
	KTAP_EXPECT_TEXT(t, out, "tool: invalid --generation 'x'\n");
	st = run_child(child_ident, "w", out, sizeof(out));
	KTAP_EXPECT_TEXT(t, out, "tool: invalid --writer ''\n");

	k = 256;
	st = run_child(child_count, &k, out, sizeof(out));
	KTAP_EXPECT(t, st == 99 && !*out, "a count of -n pages is fine: exit %d", st);
	k = 257;
	st = run_child(child_count, &k, out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE, "beyond: exit %d", st);
	KTAP_EXPECT_TEXT(t, out, "tool: --recorded 257 is beyond --pages 256\n");
}

/* ---- mapsync ---- */

static void test_vm_sync_of_own_mapping(struct ktap_case_ctx *t)
{
	size_t len = 3 * (size_t)sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char flags[256] = "untouched";
	struct capture c;
	bool sf = true;
	int err;

	KTAP_EXPECT(t, map != MAP_FAILED, "mmap: %s", strerror(errno));
	if (map == MAP_FAILED)
		return;
	cli_prog = "tool";
	err = mapsync_vm_sync(map, &sf, flags, sizeof(flags));
	KTAP_EXPECT(t, err == 0, "mapsync_vm_sync returned %d", err);
	KTAP_EXPECT(t, !sf, "an anonymous mapping has no VM_SYNC");
	KTAP_EXPECT(t, flags[0] == ' ' && strstr(flags, " sh") && strstr(flags, " rd") &&
		    flags[strlen(flags) - 1] != ' ' && !strchr(flags, '\n'),
		    "VmFlags text: '%s'", flags);

	sf = true;
	KTAP_EXPECT(t, mapsync_vm_sync(map, &sf, NULL, 0) == 0 && !sf, "without the text");

	/* Not the start of a mapping: no VmFlags to be found. */
	capture_begin(&c);
	err = mapsync_vm_sync(map + 1, &sf, NULL, 0);
	capture_end(&c);
	KTAP_EXPECT(t, err == EXIT_RUNTIME, "inside a mapping: %d", err);
	KTAP_EXPECT(t, strncmp(c.text, "tool: /proc/self/smaps: no VmFlags for the mapping at 0x", 56) == 0,
		    "message: '%s'", c.text);
	munmap(map, len);
}

static void test_vm_sync_mismatch(struct ktap_case_ctx *t)
{
	struct capture c;
	int code;

	cli_prog = "tool";
	KTAP_EXPECT(t, mapsync_expect_vm_sync("/f", true, true) == 0, "sync as asked");
	KTAP_EXPECT(t, mapsync_expect_vm_sync("/f", false, false) == 0, "no sync as asked");
	capture_begin(&c);
	code = mapsync_expect_vm_sync("/mnt/f", true, false);
	KTAP_EXPECT_TEXT(t, capture_end(&c),
			 "tool: /mnt/f: VM_SYNC mismatch: MAP_SYNC requested, smaps VmFlags lack 'sf'\n");
	KTAP_EXPECT(t, code == EXIT_VM_SYNC_MISMATCH, "returned %d", code);
	capture_begin(&c);
	code = mapsync_expect_vm_sync("/mnt/f", false, true);
	KTAP_EXPECT_TEXT(t, capture_end(&c),
			 "tool: /mnt/f: VM_SYNC mismatch: no MAP_SYNC requested, smaps VmFlags contain 'sf'\n");
	KTAP_EXPECT(t, code == EXIT_VM_SYNC_MISMATCH, "returned %d", code);
	KTAP_EXPECT(t, MAP_SYNC == 0x80000 && MAP_SHARED_VALIDATE == 0x03 &&
		    STATX_ATTR_DAX == 0x00200000, "the kernel ABI values");
}

/* A closed stdout is refused; a closed stdin is refilled with /dev/null. */
static void child_closed_fd(void *arg)
{
	int fd = *(int *)arg;

	close(fd);
	cli_parse_args("tool", test_opts, test_parser, "Test tool.", 3,
		       (char *[]){ "tool", "-f", "/f", NULL });
	/* Reached only if the fd was let through: is it /dev/null now? */
	fprintf(stderr, "fd %d open: %d\n", fd, fcntl(fd, F_GETFD) != -1);
}

static void test_closed_std_fds(struct ktap_case_ctx *t)
{
	int fd = STDOUT_FILENO, st;
	char out[512];

	st = run_child(child_closed_fd, &fd, out, sizeof(out));
	KTAP_EXPECT(t, st == EXIT_USAGE && strcmp(out, "tool: stdout is closed: nowhere to report\n") == 0,
		    "closed stdout: exit %d, output \"%s\"", st, out);
	fd = STDIN_FILENO;
	st = run_child(child_closed_fd, &fd, out, sizeof(out));
	KTAP_EXPECT(t, st == 99 && strcmp(out, "fd 0 open: 1\n") == 0,
		    "closed stdin: exit %d, output \"%s\"", st, out);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_parse_u64_decimal),
	KTAP_CASE(test_parse_u64_any_base),
	KTAP_CASE(test_parse_size),
	KTAP_CASE(test_lookup_name),
	KTAP_CASE(test_exit_code_for_errno),
	KTAP_CASE(test_fail_lines),
	KTAP_CASE(test_verbose),
	KTAP_CASE(test_json_finish),
	KTAP_CASE(test_usage_errors_exit_2),
	KTAP_CASE(test_parse_args),
	KTAP_CASE(test_pmp_ident),
	KTAP_CASE(test_vm_sync_of_own_mapping),
	KTAP_CASE(test_vm_sync_mismatch),
	KTAP_CASE(test_closed_std_fds),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
