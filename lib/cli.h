/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every command-line tool of the suite does the same way.
 *
 * Command line: argp, started by cli_parse_args() first thing in main(),
 * which also names the tool for its messages. Put CLI_OPT_HELP (-h) last
 * in the option table and let the parser's default case return
 * cli_argp_default() (-h, stray arguments). Values: numbers with
 * cli_parse_u64() (cli_parse_size() takes K/M/G suffixes), names with
 * cli_lookup_name(). A bad value is one line, not argp's two, and exits
 * EXIT_USAGE at once (cli_usage_error); argp's own errors (unknown option,
 * missing argument) exit EXIT_USAGE too.
 *
 * Errors: one line on stderr, "tool: what: why", and an exit code from
 * exitcodes.h, which the caller returns up to main():
 *
 *	return cli_fail(EXIT_NOT_DAX, "%s: not a DAX file", path);
 *	return cli_fail_errno(errno, "open %s", path);	adds ": strerror"
 *
 * cli_fail_errno() takes the code from the errno (cli_exit_code: ENOSPC and
 * EDQUOT are EXIT_NO_SPACE, anything else EXIT_RUNTIME).
 *
 * Signals (cli_install_signal_handlers): SIGINT, SIGTERM and SIGHUP only
 * set cli_stop_signal, so that the tool stops and cleans up; SIGPIPE is
 * ignored; a SIGBUS while cli_sigbus_armed is set jumps to cli_sigbus_jump
 * (a store to a DAX mapping whose block cannot be allocated), elsewhere it
 * kills as usual:
 *
 *	if (sigsetjmp(cli_sigbus_jump, 1)) {
 *		cli_sigbus_armed = 0;
 *		return cli_fail(EXIT_NO_SPACE, "store to %s: SIGBUS", path);
 *	}
 *	cli_sigbus_armed = 1;
 *	... stores ...
 *	cli_sigbus_armed = 0;
 */

#ifndef SUITE_CLI_H
#define SUITE_CLI_H

#include <argp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* The "tool: " of every message; set by cli_parse_args(). */
extern const char *cli_prog;
/* cli_verbose() prints only when set (the tool's -v). */
extern bool cli_verbose_on;

/*
 * First thing in main(): names the tool in its messages (cli_prog), then
 * parses the command line with argp (@doc: the --help text). A bad command
 * line, argp's own errors included, exits EXIT_USAGE.
 */
void cli_parse_args(const char *prog, const struct argp_option *options,
		    argp_parser_t parser, const char *doc, int argc, char **argv);

/* Prints "prog: <fmt...>" and a newline on stderr; returns @code. */
__attribute__((format(printf, 2, 3)))
int cli_fail(int code, const char *fmt, ...);

/* Prints "prog: <fmt...>: strerror(err)"; returns cli_exit_code(err). */
__attribute__((format(printf, 2, 3)))
int cli_fail_errno(int err, const char *fmt, ...);

struct json_writer;

/*
 * Ends a --json document (json_finish): 0, or prints "write JSON: <why>"
 * (the write error, else "malformed document") and returns EXIT_RUNTIME.
 */
int cli_json_finish(struct json_writer *w);

/* Prints "prog: <fmt...>" and exits EXIT_USAGE: for bad flags. */
__attribute__((format(printf, 1, 2), noreturn))
void cli_usage_error(const char *fmt, ...);

/* "prog: <fmt...>" on stderr when cli_verbose_on. */
__attribute__((format(printf, 1, 2)))
void cli_verbose(const char *fmt, ...);

/* The exit code for a failure with errno @err: EXIT_NO_SPACE or EXIT_RUNTIME. */
int cli_exit_code(int err);

/* @arg, unless it is empty: then "empty <opt>" is a usage error. */
char *cli_nonempty_arg(const char *opt, char *arg);

/* The index of @arg among @names[0..n-1], or -1. */
int cli_lookup_name(const char *arg, const char *const *names, int n);

/*
 * The index of @arg among @names[0..n-1]; anything else is a usage error
 * that lists them: "invalid --load 'x' (none|copy)".
 */
int cli_choice_arg(const char *opt, const char *arg, const char *const *names, int n);

/*
 * An unsigned number in [min, max], in @base as strtoull() reads it (0:
 * decimal, 0x hex or 0 octal), with nothing after the digits and no minus
 * sign (strtoull would wrap it). Returns false, leaving *out alone, for
 * anything else.
 */
bool cli_parse_u64(const char *arg, int base, uint64_t min, uint64_t max,
		   uint64_t *out);

/* The same in decimal, with an optional K, M or G suffix (binary, any case). */
bool cli_parse_size(const char *arg, uint64_t min, uint64_t max, uint64_t *out);

/* The hidden -h: the full help on stdout, like --help. */
#define CLI_OPT_HELP { NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 }

/*
 * The file a tool creates on a DAX filesystem and maps (faultlat, pmwrite):
 * -f, -S, --replace, --no-dax-check and -v, in the tool's option table as
 * CLI_TARGET_OPTIONS(...), parsed by cli_target_parse() before the tool's
 * own keys; cli_target_end() at ARGP_KEY_END (--file is required).
 */
struct cli_target {
	const char *path;
	bool map_sync;		/* MAP_SHARED_VALIDATE | MAP_SYNC */
	bool replace;		/* remove an existing file first */
	bool no_dax_check;	/* run on a file that is not DAX */
};
enum { CLI_OPT_REPLACE = 200, CLI_OPT_NO_DAX_CHECK };
#define CLI_TARGET_OPTIONS(file_doc, sync_doc, no_dax_check_doc, verbose_doc)		\
	{ "file", 'f', "PATH", 0, file_doc, 0 },					\
	{ "sync", 'S', NULL, 0, sync_doc, 0 },						\
	{ "replace", CLI_OPT_REPLACE, NULL, 0, "Remove FILE first if it exists "	\
	  "(without it, an existing FILE is refused and left untouched)", 0 },		\
	{ "no-dax-check", CLI_OPT_NO_DAX_CHECK, NULL, 0, no_dax_check_doc, 0 },	\
	{ "verbose", 'v', NULL, 0, verbose_doc, 0 }
/* 0 when @key was one of those (taken), else ARGP_ERR_UNKNOWN. */
error_t cli_target_parse(struct cli_target *t, int key, char *arg);
/* At ARGP_KEY_END: a usage error unless --file was given. */
void cli_target_end(const struct cli_target *t);

/*
 * The target file, created afresh (O_EXCL, read-write) into *fd: first
 * removed when @remove_first (the tool's own file from a previous round,
 * or --replace) by cli_target_remove(); one that exists otherwise is
 * refused and left untouched ("PATH exists: TOOL works on a file of its
 * own ...", EXIT_FILE_EXISTS). Returns 0 or the exit code after printing
 * the error.
 */
int cli_target_create(const char *path, bool remove_first, int *fd);

/*
 * --replace: removes @path if it is a regular file; nothing there is fine.
 * Anything else (a device node, a directory, a symlink, a fifo) is refused
 * and left untouched (EXIT_FILE_EXISTS). Returns 0 or the exit code after
 * printing the error.
 */
int cli_target_remove(const char *path);

/*
 * For the default case of an argp parser: -h prints the full help and
 * exits 0, an argument is a usage error ("unexpected argument 'X'"), any
 * other key is ARGP_ERR_UNKNOWN.
 */
error_t cli_argp_default(int key, char *arg, struct argp_state *state);

extern volatile sig_atomic_t cli_stop_signal;	/* the last stop signal, or 0 */
extern sigjmp_buf cli_sigbus_jump;
extern volatile sig_atomic_t cli_sigbus_armed;

/* Returns 0, or an exit code after printing the error. */
int cli_install_signal_handlers(void);

#endif /* SUITE_CLI_H */
