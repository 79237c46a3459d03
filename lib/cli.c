// SPDX-License-Identifier: GPL-2.0
/* What every command-line tool of the suite does the same way; see cli.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli.h"
#include "exitcodes.h"
#include "json.h"

const char *cli_prog = "?";
bool cli_verbose_on;

volatile sig_atomic_t cli_stop_signal;
sigjmp_buf cli_sigbus_jump;
volatile sig_atomic_t cli_sigbus_armed;

/* ---- messages ---- */

/* One line on stderr: "prog: <fmt...>[: why]". */
static void vline(const char *why, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	if (why)
		fprintf(stderr, ": %s", why);
	fputc('\n', stderr);
}

int cli_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(NULL, fmt, ap);
	va_end(ap);
	return code;
}

int cli_fail_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(strerror(err), fmt, ap);
	va_end(ap);
	return cli_exit_code(err);
}

void cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(NULL, fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

void cli_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!cli_verbose_on)
		return;
	va_start(ap, fmt);
	vline(NULL, fmt, ap);
	va_end(ap);
}

int cli_json_finish(struct json_writer *w)
{
	if (!json_finish(w))
		return 0;
	return cli_fail(EXIT_RUNTIME, "write JSON: %s",
			ferror(w->out) ? strerror(errno) : "malformed document");
}

int cli_exit_code(int err)
{
	return err == ENOSPC || err == EDQUOT ? EXIT_NO_SPACE : EXIT_RUNTIME;
}

/* ---- options ---- */

char *cli_nonempty_arg(const char *opt, char *arg)
{
	if (!*arg)
		cli_usage_error("empty %s", opt);
	return arg;
}

int cli_lookup_name(const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(arg, names[i]) == 0)
			return i;
	return -1;
}

int cli_choice_arg(const char *opt, const char *arg, const char *const *names, int n)
{
	int i = cli_lookup_name(arg, names, n);
	char alts[256] = "";
	size_t len = 0;

	if (i >= 0)
		return i;
	for (int k = 0; k < n && len < sizeof(alts); k++)
		len += (size_t)snprintf(alts + len, sizeof(alts) - len, "%s%s",
					k ? "|" : "", names[k]);
	cli_usage_error("invalid %s '%s' (%s)", opt, arg, alts);
}

static bool parse_number(const char *arg, int base, bool with_suffix,
			 uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (!*arg || *arg == '-')
		return false;
	errno = 0;
	v = strtoull(arg, &end, base);
	if (errno || end == arg)
		return false;
	if (with_suffix && *end) {
		switch (*end++) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return false;
		}
		if (v > (UINT64_MAX >> shift))
			return false;
		v <<= shift;
	}
	if (*end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool cli_parse_u64(const char *arg, int base, uint64_t min, uint64_t max,
		   uint64_t *out)
{
	return parse_number(arg, base, false, min, max, out);
}

bool cli_parse_size(const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
	return parse_number(arg, 10, true, min, max, out);
}

/*
 * A closed fd 0..2 would be handed out again by the next open(), and the
 * report would land in the file under test: fill 0 and 2 with /dev/null,
 * and refuse to run without stdout, where the results go.
 */
static void cli_guard_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1)
			continue;
		if (fd == STDOUT_FILENO)
			exit(cli_fail(EXIT_USAGE, "stdout is closed: nowhere to report"));
		if (open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) != fd)
			exit(EXIT_RUNTIME);
	}
}

void cli_parse_args(const char *prog, const struct argp_option *options,
		    argp_parser_t parser, const char *doc, int argc, char **argv)
{
	const struct argp argp = { .options = options, .parser = parser, .doc = doc };

	cli_prog = prog;
	argp_err_exit_status = EXIT_USAGE;
	cli_guard_std_fds();
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		exit(EXIT_USAGE);
}

error_t cli_argp_default(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		return 0;
	case ARGP_KEY_ARG:
		cli_usage_error("unexpected argument '%s'", arg);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* ---- signals ---- */

static void on_stop_signal(int sig)
{
	cli_stop_signal = sig;
}

/*
 * A store into a DAX mapping whose block cannot be allocated (full
 * filesystem) gets SIGBUS: turn it into an error instead of a crash.
 */
static void on_sigbus(int sig)
{
	if (cli_sigbus_armed)
		siglongjmp(cli_sigbus_jump, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

int cli_install_signal_handlers(void)
{
	struct sigaction sa = { 0 };

	/* No SA_RESTART: a blocking read must return EINTR so we can clean up. */
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return cli_fail_errno(errno, "sigaction");
	sa.sa_handler = on_sigbus;
	if (sigaction(SIGBUS, &sa, NULL))
		return cli_fail_errno(errno, "sigaction SIGBUS");
	/* A closed stdout must give a write error, not a silent death. */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

error_t cli_target_parse(struct cli_target *t, int key, char *arg)
{
	switch (key) {
	case 'f':
		t->path = cli_nonempty_arg("--file", arg);
		return 0;
	case 'S':
		t->map_sync = true;
		return 0;
	case CLI_OPT_REPLACE:
		t->replace = true;
		return 0;
	case CLI_OPT_NO_DAX_CHECK:
		t->no_dax_check = true;
		return 0;
	case 'v':
		cli_verbose_on = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

void cli_target_end(const struct cli_target *t)
{
	if (!t->path)
		cli_usage_error("--file is required");
}

/* "a directory", "a character device", ...: what stands at a path. */
static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return "a directory";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFLNK: return "a symlink";
	case S_IFIFO: return "a fifo";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

int cli_target_remove(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : cli_fail_errno(errno, "stat %s", path);
	/* A node, a directory or a symlink is never the tool's to remove. */
	if (!S_ISREG(st.st_mode))
		return cli_fail(EXIT_FILE_EXISTS, "%s is %s: %s left it untouched "
				"(--replace removes a regular file only)", path,
				file_kind(st.st_mode), cli_prog);
	if (unlink(path) && errno != ENOENT)
		return cli_fail_errno(errno, "unlink %s", path);
	return 0;
}

int cli_target_create(const char *path, bool remove_first, int *fd)
{
	int err;

	if (remove_first && (err = cli_target_remove(path)))
		return err;
	*fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (*fd < 0 && errno == EEXIST)
		return cli_fail(EXIT_FILE_EXISTS, "%s exists: %s works on a file of its own and "
				"left it untouched (--replace removes it)", path, cli_prog);
	if (*fd < 0)
		return cli_fail_errno(errno, "create %s", path);
	return 0;
}
