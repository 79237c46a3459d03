// SPDX-License-Identifier: GPL-2.0
/*
 * faultlat: per-fault latency of write faults on a DAX file mapping, with
 * and without MAP_SYNC.
 *
 * Reproduces the measurement of Jan Kara's "dax, ext4: Synchronous page
 * faults" cover letter (2017): fault N pages of a file, one store per page,
 * each store timed with CLOCK_MONOTONIC from user space, and print the
 * same min/avg/max + log2 bucket table.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "cli.h"
#include "daxfile.h"
#include "exitcodes.h"
#include "hist.h"
#include "json.h"
#include "mapsync.h"
#include "samples.h"

#define TOOL		"faultlat"
#define JSON_VERSION	1
#define PMD_SIZE	(2UL << 20)
#define COPY_CHUNK	(1UL << 20)
#define MAX_PAGES	(1ULL << 26)	/* 256 GiB of 4 KiB pages */
#define MAX_REPS	100000ULL
#define MAX_WRITERS	64ULL

enum file_state { STATE_EMPTY, STATE_PREALLOC, STATE_FALLOCATED, STATE_REFLINKED };
enum fault_size { FAULT_PTE, FAULT_PMD };
enum load_kind { LOAD_NONE, LOAD_COPY };
enum fault_order { ORDER_SEQ, ORDER_RANDOM };
static const char *const order_names[] = { "seq", "random" };

static const char *const state_names[] = { "empty", "prealloc", "fallocated", "reflinked" };
/* The cover letter's wording, for the default label. */
static const char *const state_words[] = { "empty", "preallocated", "fallocated", "reflinked" };
static const char *const fault_size_names[] = { "pte", "pmd" };
static const char *const load_names[] = { "none", "copy" };

static struct env {
	struct cli_target target;	/* -f -S --replace --no-dax-check -v */
	uint64_t pages;
	enum file_state state;
	enum fault_size fault_size;
	enum load_kind load;
	enum fault_order order;		/* --order: the pages in turn or shuffled */
	uint64_t load_size;
	uint64_t reps;
	uint64_t writers;		/* -w: processes faulting at once */
	bool same_file;			/* --same-file: one file, a slice each */
	bool nsecs;
	bool json;
	const char *json_out;
	const char *samples_out;
	const char *label;
	bool keep;
} env = {
	.pages = 512,
	.load_size = 16ULL << 20,
	.reps = 1,
	.writers = 1,
};

/* Everything the cleanup path must undo, in one place. */
struct run {
	const char *path;		/* FILE, or writer K's FILE.wK */
	int fd;
	bool file_exists;		/* we created path: unlink it */
	int reflink_src_fd;		/* --state reflinked: the clone's source, unlinked, open */
	char *map;
	size_t map_len;
	size_t file_size;
	size_t stride;			/* bytes between two timed stores */
	size_t faults_per_rep;		/* of one writer */
	size_t slice_off;		/* a --same-file writer's slice in the file */
	pid_t load_pid;
	int load_report_fd;		/* child -> parent: 0 = ready, else errno */
	char load_src[PATH_MAX];
	char load_dst[PATH_MAX];
	uint64_t *samples;		/* ns, [writer][rep][fault], in fault order */
	uint64_t *scratch;		/* as many: the stats sort a copy */
	struct stats *rep_stats;	/* ns, one per rep, all writers */
	/*
	 * -w N: the files of writers 1..N-1 (none with --same-file), each a
	 * run of its own for the file fields, and one rep's samples of every
	 * writer, shared with them.
	 */
	struct run *wfiles;
	unsigned int nr_wfiles;
	uint64_t *wsamples;
	size_t wsamples_len;
	bool dax;
	bool vm_sync_seen;
	const char *fs_name;
};

const char *argp_program_version = TOOL " 1";
const char argp_program_doc[] =
"Measure the latency of write faults on a DAX file mapping, with or without\n"
"MAP_SYNC, one timed store per page (per 2 MiB with --fault-size pmd).\n"
"\n"
"USAGE: faultlat -f FILE [-n PAGES] [-s STATE] [-S] [--fault-size pte|pmd]\n"
"                [-l none|copy] [--order seq|random] [-r REPS]\n"
"                [-w N [--same-file]] [-u|-N] [-j] [-v]\n"
"\n"
"With -w N, N writer processes fault at once on the same filesystem, each\n"
"on its own file (FILE, FILE.w1 .. FILE.wN-1) or, with --same-file, on its\n"
"own slice of one file: the table is all their faults together, a line per\n"
"writer follows.\n"
"\n"
"EXAMPLES:\n"
"    faultlat -f /mnt/dax/f              # 512 faults, empty file, MAP_SHARED\n"
"    faultlat -f /mnt/dax/f -S           # the same with MAP_SYNC\n"
"    faultlat -f /mnt/dax/f -S -s prealloc  # blocks allocated and written\n"
"    faultlat -f /mnt/dax/f -S -l copy   # with a file copy on the same fs\n"
"    faultlat -f /mnt/dax/f -S -r 10 -j  # 10 repetitions, JSON output\n"
"    faultlat -f /mnt/dax/f --fault-size pmd  # one fault per 2 MiB\n"
"    faultlat -f /mnt/dax/f -S --order random  # the pages shuffled\n"
"    faultlat -f /mnt/dax/f -S -w 4              # 4 writers, 4 files\n"
"    faultlat -f /mnt/dax/f -S -w 4 --same-file  # 4 writers, one file\n"
"\n"
"Exit status: 0 ok, 1 runtime error, 2 usage, 3 not a DAX file, 4 kernel\n"
"without MAP_SYNC, 5 MAP_SYNC refused (EOPNOTSUPP), 6 no space left (or\n"
"SIGBUS on a store), 7 VM_SYNC state differs from the request, 11 FILE or\n"
"a writer's FILE.wK exists (not replaced), 12 the kernel fell back from PMD\n"
"to PTE faults. With -w, a failing writer's status is the run's (the\n"
"lowest-numbered writer's if several fail).\n";

enum {
	OPT_FAULT_SIZE = 256,
	OPT_LOAD_SIZE,
	OPT_LABEL,
	OPT_KEEP,
	OPT_JSON_OUT,
	OPT_SAMPLES_OUT,
	OPT_SAME_FILE,
	OPT_ORDER,
};

static const struct argp_option opts[] = {
	CLI_TARGET_OPTIONS("File to create on the DAX filesystem (required); removed at the end",
			   "Map with MAP_SHARED_VALIDATE|MAP_SYNC (default MAP_SHARED)",
			   "Run even if the file is not on a DAX mapping", "Progress on stderr"),
	{ "pages", 'n', "N", 0, "Pages to fault (default 512)", 0 },
	{ "state", 's', "STATE", 0, "File before mapping: empty (holes, default), prealloc (blocks allocated and written), fallocated (unwritten extents), reflinked (a FICLONE of a written file: every block shared, each first write a copy-on-write fault; xfs with reflink)", 0 },
	{ "fault-size", OPT_FAULT_SIZE, "pte|pmd", 0, "pte: MADV_NOHUGEPAGE, one fault per 4 KiB (default); pmd: one fault per 2 MiB", 0 },
	{ "load", 'l', "none|copy", 0, "Background load: copy = a child copies a file on the same filesystem (default none)", 0 },
	{ "order", OPT_ORDER, "seq|random", 0, "Pages faulted in file order (default) or in one shuffled order, the same every run (each page once, as fio's randwrite)", 0 },
	{ "load-size", OPT_LOAD_SIZE, "BYTES", 0, "Size of the file the load copies, K/M/G suffixes (default 16M)", 0 },
	{ "reps", 'r', "N", 0, "Repeat the measurement N times with a fresh file (default 1)", 0 },
	{ "writers", 'w', "N", 0, "Writer processes faulting at once, started together, each on its own "
	  "file FILE, FILE.w1, ... in FILE's directory (1..64, default 1: no fork)", 0 },
	{ "same-file", OPT_SAME_FILE, NULL, 0, "With -w N: one file of N times the size, writer K "
	  "faulting its own slice of it", 0 },
	{ "usecs", 'u', NULL, 0, "Text output in microseconds (default)", 0 },
	{ "nsecs", 'N', NULL, 0, "Text output in nanoseconds", 0 },
	{ "json", 'j', NULL, 0, "JSON output (latencies in ns, histogram in us)", 0 },
	{ "json-out", OPT_JSON_OUT, "FILE", 0, "Also write the JSON document to FILE (one run, both views)", 0 },
	{ "samples-out", OPT_SAMPLES_OUT, "FILE", 0, "Also write every fault's latency to FILE, in ns, "
	  "space-separated on one line, in fault order, writer 0's first (what the regression gate reads)", 0 },
	{ "label", OPT_LABEL, "TEXT", 0, "Scenario title, first line of the text output", 0 },
	{ "keep", OPT_KEEP, NULL, 0, "Keep the file (and the writers' files) after a successful run", 0 },
	CLI_OPT_HELP,
	{ 0 },
};

static int fail_interrupted(void)
{
	return cli_fail(EXIT_RUNTIME, "interrupted: %s", strsignal(cli_stop_signal));
}

/* ---- options ---- */

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (!cli_target_parse(&env.target, key, arg))
		return 0;
	switch (key) {
	case 'n':
		if (!cli_parse_u64(arg, 10, 1, MAX_PAGES, &env.pages))
			cli_usage_error("invalid --pages '%s' (1..%llu)", arg,
					MAX_PAGES);
		break;
	case 's':
		env.state = cli_choice_arg("--state", arg, state_names, 4);
		break;
	case OPT_FAULT_SIZE:
		env.fault_size = cli_choice_arg("--fault-size", arg, fault_size_names, 2);
		break;
	case 'l':
		env.load = cli_choice_arg("--load", arg, load_names, 2);
		break;
	case OPT_ORDER:
		env.order = cli_choice_arg("--order", arg, order_names, 2);
		break;
	case OPT_LOAD_SIZE:
		if (!cli_parse_size(arg, 1, 1ULL << 40, &env.load_size))
			cli_usage_error("invalid --load-size '%s'", arg);
		break;
	case 'r':
		if (!cli_parse_u64(arg, 10, 1, MAX_REPS, &env.reps))
			cli_usage_error("invalid --reps '%s' (1..%llu)", arg,
					MAX_REPS);
		break;
	case 'w':
		if (!cli_parse_u64(arg, 10, 1, MAX_WRITERS, &env.writers))
			cli_usage_error("invalid --writers '%s' (1..%llu)", arg,
					MAX_WRITERS);
		break;
	case OPT_SAME_FILE:
		env.same_file = true;
		break;
	case 'u':
		env.nsecs = false;
		break;
	case 'N':
		env.nsecs = true;
		break;
	case 'j':
		env.json = true;
		break;
	case OPT_LABEL:
		env.label = arg;
		break;
	case OPT_JSON_OUT:
		env.json_out = arg;
		break;
	case OPT_SAMPLES_OUT:
		env.samples_out = arg;
		break;
	case OPT_KEEP:
		env.keep = true;
		break;
	case ARGP_KEY_END:
		cli_target_end(&env.target);
		/* Alone it would change nothing, silently: one writer, one file. */
		if (env.same_file && env.writers < 2)
			cli_usage_error("--same-file needs -w N with N >= 2 (writers sharing the file)");
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}

/* ---- file preparation ---- */

/* Write @size bytes of @byte at offset 0. Returns 0 or an errno. */
static int fill_file(int fd, uint64_t size, unsigned char byte)
{
	char *buf = malloc(COPY_CHUNK);
	uint64_t done = 0;
	int err = 0;

	if (!buf)
		return ENOMEM;
	memset(buf, byte, COPY_CHUNK);
	while (done < size) {
		size_t len = size - done < COPY_CHUNK ? size - done : COPY_CHUNK;
		ssize_t n = pwrite(fd, buf, len, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : ENOSPC;
			break;
		}
		done += (uint64_t)n;
	}
	free(buf);
	return err;
}

/* A new inode for every repetition: no state carries over. */
static int create_fresh_file(struct run *r)
{
	int err;

	if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
	}
	/* Only our own file from the previous repetition, or when asked. */
	err = cli_target_create(r->path, r->file_exists || env.target.replace, &r->fd);
	r->file_exists = !err;
	return err;
}

/* The file as a clone (FICLONE) of a written, synced source, which is
 * unlinked at once and kept open: its blocks stay shared, and nothing is
 * left behind. */
static int make_reflinked(struct run *r)
{
	char src[PATH_MAX];
	int fd, err;

	if (r->reflink_src_fd >= 0)
		close(r->reflink_src_fd);
	r->reflink_src_fd = -1;
	if (snprintf(src, sizeof(src), "%s.reflink-src", r->path) >= (int)sizeof(src))
		return cli_fail_errno(ENAMETOOLONG, "reflink source for %s", r->path);
	fd = open(src, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return cli_fail_errno(errno, "create %s", src);
	unlink(src);
	r->reflink_src_fd = fd;
	if (fallocate(fd, 0, 0, (off_t)r->file_size))
		return cli_fail_errno(errno, "fallocate %s", src);
	if ((err = fill_file(fd, r->file_size, 0xa5)))
		return cli_fail_errno(err, "write %s", src);
	if (fsync(fd))
		return cli_fail_errno(errno, "fsync %s", src);
	if (ioctl(r->fd, FICLONE, fd))
		return cli_fail_errno(errno, "--state reflinked: FICLONE into %s (a filesystem with "
				      "reflink, such as xfs -m reflink=1)", r->path);
	return 0;
}

static int prepare_file_state(struct run *r)
{
	int err;

	switch (env.state) {
	case STATE_EMPTY:
		if (ftruncate(r->fd, (off_t)r->file_size))
			return cli_fail_errno(errno, "ftruncate %s", r->path);
		break;
	case STATE_PREALLOC:
		/*
		 * Written, not just allocated: no extent left to convert. One
		 * fallocate first, so the blocks come as one allocation the
		 * filesystem aligns to 2 MiB like the fallocated state's; written
		 * piecewise by pwrite they fell back from PMD faults.
		 */
		if (fallocate(r->fd, 0, 0, (off_t)r->file_size))
			return cli_fail_errno(errno, "fallocate %s", r->path);
		err = fill_file(r->fd, r->file_size, 0xa5);
		if (err)
			return cli_fail_errno(err, "write %s", r->path);
		break;
	case STATE_FALLOCATED:
		if (fallocate(r->fd, 0, 0, (off_t)r->file_size))
			return cli_fail_errno(errno, "fallocate %s", r->path);
		break;
	case STATE_REFLINKED:
		if ((err = make_reflinked(r)))
			return err;
		break;
	}
	/*
	 * Commit the new size and any allocation now: under MAP_SYNC the first
	 * timed fault would otherwise also pay for committing the preparation.
	 */
	if (fsync(r->fd))
		return cli_fail_errno(errno, "fsync %s", r->path);
	return 0;
}

/* ---- DAX detection ---- */

static int check_target(struct run *r)
{
	return daxfile_check(r->fd, env.target.path, env.target.no_dax_check,
			     &r->dax, &r->fs_name);
}

/* ---- background load ---- */

static int copy_file(const char *src, const char *dst, char *buf)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int err = 0;

	if (in < 0 || out < 0) {
		err = errno;
		goto out;
	}
	for (;;) {
		ssize_t n = read(in, buf, COPY_CHUNK), written = 0;

		if (n < 0) {
			err = errno;
			break;
		}
		if (n == 0)
			break;
		while (written < n) {
			ssize_t w = write(out, buf + written, (size_t)(n - written));

			if (w <= 0) {
				err = w < 0 ? errno : ENOSPC;
				goto out;
			}
			written += w;
		}
	}
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err;
}

static const struct run *load_child_run;

/* SIGTERM: the parent died without cleaning up; remove our own files. */
static void on_load_child_term(int sig)
{
	(void)sig;
	unlink(load_child_run->load_src);
	unlink(load_child_run->load_dst);
	_exit(EXIT_RUNTIME);
}

/*
 * The child copies load_src to load_dst until killed. It reports on
 * @report_fd: 0 after the first full copy, then the errno that stopped it
 * if anything does.
 */
static void __attribute__((noreturn))
load_child(const struct run *r, pid_t parent, int report_fd)
{
	struct sigaction sa = { .sa_handler = on_load_child_term };
	char *buf = malloc(COPY_CHUNK);
	int fd, err = 0;

	/*
	 * Whatever kills the parent, even SIGKILL, ends the child too, via
	 * SIGTERM so that it can remove its files. The parent itself stops
	 * the child with SIGKILL and removes the files.
	 */
	load_child_run = r;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(EXIT_RUNTIME);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGBUS, SIG_DFL);

	if (!buf) {
		err = ENOMEM;
		goto report;
	}
	fd = open(r->load_src, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = errno;
		goto report;
	}
	err = fill_file(fd, env.load_size, 0x5a);
	close(fd);
	for (bool first = true; !err; first = false) {
		err = copy_file(r->load_src, r->load_dst, buf);
		if (!err && first &&
		    write(report_fd, &err, sizeof(err)) != sizeof(err))
			_exit(EXIT_RUNTIME);
	}
report:
	if (write(report_fd, &err, sizeof(err)) != sizeof(err))
		_exit(EXIT_RUNTIME);
	_exit(cli_exit_code(err));
}

/* Read the child's report; EINTR only ends the wait on a stop signal. */
static ssize_t read_load_report(int fd, int *report)
{
	ssize_t n;

	do {
		n = read(fd, report, sizeof(*report));
	} while (n < 0 && errno == EINTR && !cli_stop_signal);
	return n;
}

static int start_load(struct run *r)
{
	char *path_copy = strdup(env.target.path);
	const char *dir;
	int pipe_fds[2], report = 0;
	pid_t parent = getpid();
	ssize_t n;

	if (!path_copy)
		return cli_fail_errno(ENOMEM, "background copy");
	/* The copy must load the same filesystem (and journal) as the faults. */
	dir = dirname(path_copy);
	snprintf(r->load_src, sizeof(r->load_src), "%s/.faultlat-load-%d.src",
		 dir, (int)parent);
	snprintf(r->load_dst, sizeof(r->load_dst), "%s/.faultlat-load-%d.dst",
		 dir, (int)parent);
	free(path_copy);

	if (pipe2(pipe_fds, O_CLOEXEC))
		return cli_fail_errno(errno, "pipe");
	fflush(NULL);	/* the child must not flush our buffers again */
	r->load_pid = fork();
	if (r->load_pid < 0) {
		close(pipe_fds[0]);
		close(pipe_fds[1]);
		return cli_fail_errno(errno, "fork");
	}
	if (r->load_pid == 0) {
		close(pipe_fds[0]);
		load_child(r, parent, pipe_fds[1]);
	}
	close(pipe_fds[1]);
	r->load_report_fd = pipe_fds[0];

	n = read_load_report(r->load_report_fd, &report);
	if (n < 0 && cli_stop_signal)
		return fail_interrupted();
	if (n != sizeof(report))
		return cli_fail(EXIT_RUNTIME, "background copy %s: the child died", r->load_src);
	if (report)
		return cli_fail_errno(report, "background copy %s", r->load_src);
	cli_verbose("background copy of %llu bytes running (pid %d)",
		    (unsigned long long)env.load_size, (int)r->load_pid);
	return 0;
}

/*
 * Kill and reap the child, remove its files. With @check, a child that
 * stopped on its own is an error: the measurement ran partly unloaded.
 */
static int stop_load(struct run *r, bool check)
{
	int status, report = 0, ret = 0;
	pid_t waited;

	if (r->load_pid <= 0)
		return 0;
	waited = waitpid(r->load_pid, &status, WNOHANG);
	if (waited == 0) {
		kill(r->load_pid, SIGKILL);
		while (waitpid(r->load_pid, &status, 0) < 0 && errno == EINTR)
			;
	} else if (check && cli_stop_signal) {
		ret = fail_interrupted();
	} else if (check) {
		/* The child wrote why it stopped before exiting. */
		if (read(r->load_report_fd, &report, sizeof(report)) == sizeof(report) &&
		    report)
			ret = cli_fail_errno(report, "background copy %s stopped",
					     r->load_src);
		else
			ret = cli_fail(EXIT_RUNTIME, "background copy: the child died during the measurement");
	}
	r->load_pid = 0;
	close(r->load_report_fd);
	r->load_report_fd = -1;
	unlink(r->load_src);
	unlink(r->load_dst);
	return ret;
}

/* ---- mapping ---- */

/*
 * Map the file at a 2 MiB-aligned address: a PMD fault needs the virtual
 * address and the file offset congruent modulo 2 MiB, and asking for it
 * here does not rely on the filesystem's get_unmapped_area.
 */
static int map_file(struct run *r)
{
	int flags = env.target.map_sync ? MAP_SHARED_VALIDATE | MAP_SYNC : MAP_SHARED;
	size_t reserve_len = r->file_size + PMD_SIZE;
	char *reserve, *aligned, *reserve_end;
	void *map;

	reserve = mmap(NULL, reserve_len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (reserve == MAP_FAILED)
		return cli_fail_errno(errno, "mmap reserve %zu bytes", reserve_len);
	aligned = (char *)(((uintptr_t)reserve + PMD_SIZE - 1) & ~(PMD_SIZE - 1));
	reserve_end = reserve + reserve_len;

	map = mmap(aligned, r->file_size, PROT_READ | PROT_WRITE,
		   flags | MAP_FIXED, r->fd, 0);
	if (map == MAP_FAILED) {
		int err = errno;

		munmap(reserve, reserve_len);
		return mapsync_fail_mmap(r->path, env.target.map_sync, err);
	}
	/* Give back the unused head and tail of the reservation. */
	if (aligned > reserve)
		munmap(reserve, (size_t)(aligned - reserve));
	if (reserve_end > aligned + r->file_size)
		munmap(aligned + r->file_size,
		       (size_t)(reserve_end - (aligned + r->file_size)));
	r->map = map;
	r->map_len = r->file_size;
	return 0;
}

static void unmap_file(struct run *r)
{
	if (r->map) {
		munmap(r->map, r->map_len);
		r->map = NULL;
	}
}

/* Without it DAX maps 2 MiB at a time and 512 stores make 1 fault. */
static int force_pte_faults(struct run *r)
{
	if (env.fault_size != FAULT_PTE)
		return 0;
	if (madvise(r->map, r->map_len, MADV_NOHUGEPAGE) == 0)
		return 0;
	/* EINVAL means no THP in the kernel, hence no DAX PMD faults either. */
	if (errno == EINVAL) {
		cli_verbose("madvise(MADV_NOHUGEPAGE): EINVAL, kernel without THP: PTE faults anyway");
		return 0;
	}
	return cli_fail_errno(errno, "madvise MADV_NOHUGEPAGE %s", r->path);
}

/* VM_SYNC must be there exactly when asked for; -v shows the VmFlags. */
static int check_vm_sync(struct run *r)
{
	char flags[256];
	int err = mapsync_vm_sync(r->map, &r->vm_sync_seen, flags, sizeof(flags));

	if (err)
		return err;
	cli_verbose("mapping VmFlags:%s", flags);
	return mapsync_expect_vm_sync(r->path, env.target.map_sync, r->vm_sync_seen);
}

/* ---- measurement ---- */

static uint64_t timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

/*
 * --order random: every stride once, in one shuffled order (Fisher-Yates
 * on a fixed xorshift seed), so that runs and boots fault the same
 * sequence. NULL for --order seq, and on ENOMEM.
 */
static __attribute__((noinline)) size_t *fault_order(size_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t *order;

	if (env.order == ORDER_SEQ || !(order = malloc(n * sizeof(*order))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n; i > 1; i--) {
		size_t j, t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % i);
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	return order;
}

/* One timed store per stride; each store takes exactly one write fault. */
static int time_faults(struct run *r, uint64_t *samples)
{
	volatile size_t fault = 0;
	size_t *volatile const order = fault_order(r->faults_per_rep);
	struct timespec t0, t1;

	if (env.order != ORDER_SEQ && !order)
		return cli_fail_errno(ENOMEM, "--order random: %zu faults", r->faults_per_rep);
	if (sigsetjmp(cli_sigbus_jump, 1)) {
		size_t off = r->slice_off + (order ? order[fault] : fault) * r->stride;

		cli_sigbus_armed = 0;
		free(order);
		return cli_fail(EXIT_NO_SPACE,
				"store to offset %zu of %s: SIGBUS: no block could be allocated (filesystem full?)",
				off, r->path);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);	/* warm the vDSO path */
	cli_sigbus_armed = 1;
	for (fault = 0; fault < r->faults_per_rep; fault++) {
		volatile uint64_t *target = (volatile uint64_t *)(r->map +
			(order ? order[fault] : fault) * r->stride);
		uint64_t value = fault + 1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		*target = value;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		samples[fault] = timespec_ns(&t1) - timespec_ns(&t0);
	}
	cli_sigbus_armed = 0;
	free(order);
	return 0;
}

/*
 * Did the kernel map a PMD for each PMD fault? Only the first 4 KiB page of
 * each 2 MiB stride was stored to: its neighbour is present in
 * /proc/self/pagemap exactly when the fault mapped a whole PMD, not when it
 * fell back to PTE. (PTE runs store to every page: nothing to tell there;
 * MADV_NOHUGEPAGE is what keeps them PTE.)
 */
#define PAGEMAP_PRESENT	(1ULL << 63)

static int check_fault_size(struct run *r)
{
	long page_size = sysconf(_SC_PAGESIZE);
	size_t wrong = 0;
	int fd;

	if (env.fault_size != FAULT_PMD)
		return 0;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cli_fail_errno(errno, "open /proc/self/pagemap (needed to verify the fault size)");
	for (size_t i = 0; i < r->faults_per_rep; i++) {
		uintptr_t neighbour = (uintptr_t)r->map + i * r->stride + (size_t)page_size;
		uint64_t entry = 0;
		off_t off = (off_t)(neighbour / (size_t)page_size * sizeof(entry));

		if (pread(fd, &entry, sizeof(entry), off) != (ssize_t)sizeof(entry)) {
			int err = errno ? errno : EIO;

			close(fd);
			return cli_fail_errno(err, "read /proc/self/pagemap");
		}
		if (!(entry & PAGEMAP_PRESENT))
			wrong++;
	}
	close(fd);
	if (wrong)
		return cli_fail(EXIT_FAULT_SIZE, "%zu of %zu PMD faults on %s fell back to 4 KiB pages "
				"(extents not 2 MiB aligned? see fs_mkfs in vm/guest/lib.sh)",
				wrong, r->faults_per_rep, r->path);
	return 0;
}

/* The file as a repetition starts: in its state, mapped, checked. */
static int map_ready_file(struct run *r)
{
	int err;

	if ((err = prepare_file_state(r)) || (err = map_file(r)) ||
	    (err = force_pte_faults(r)) || (err = check_vm_sync(r)))
		return err;
	return 0;
}

/* Stats of @n samples; a copy is sorted, the samples stay in fault order. */
static void stats_of(struct run *r, const uint64_t *v, size_t n, uint64_t divisor,
		     struct stats *st)
{
	memcpy(r->scratch, v, n * sizeof(*v));
	stats_compute(r->scratch, n, divisor, st);
}

/* Repetition @rep's summary in ns, of its @n samples @v (all writers'). */
static void summarize_rep(struct run *r, unsigned int rep, const uint64_t *v, size_t n)
{
	stats_of(r, v, n, 1, &r->rep_stats[rep]);
	cli_verbose("rep %u/%llu: %zu faults, avg %llu ns, median %llu ns", rep + 1,
		    (unsigned long long)env.reps, n,
		    (unsigned long long)r->rep_stats[rep].avg,
		    (unsigned long long)r->rep_stats[rep].median);
}

static int measure_rep(struct run *r, unsigned int rep)
{
	uint64_t *samples = r->samples + (size_t)rep * r->faults_per_rep;
	int err;

	if ((err = map_ready_file(r)) ||
	    (err = time_faults(r, samples)) || (err = check_fault_size(r)))
		return err;
	unmap_file(r);
	if (cli_stop_signal)
		return fail_interrupted();
	summarize_rep(r, rep, samples, r->faults_per_rep);
	return 0;
}

/* ---- concurrent writers (-w N) ---- */

/*
 * The writers' files FILE.w1 .. FILE.wN-1, each a run of its own for the
 * file fields (none with --same-file: FILE is N times the size), and the
 * samples of one repetition, shared with the writer processes.
 */
static int plan_writers(struct run *r)
{
	size_t len = (size_t)env.writers * r->faults_per_rep * sizeof(*r->wsamples);

	if (env.writers == 1)
		return 0;
	r->wsamples = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r->wsamples == MAP_FAILED) {
		r->wsamples = NULL;
		return cli_fail_errno(errno, "mmap %zu bytes of shared samples", len);
	}
	r->wsamples_len = len;
	if (env.same_file) {
		r->file_size *= env.writers;
		return 0;
	}
	r->wfiles = calloc(env.writers - 1, sizeof(*r->wfiles));
	if (!r->wfiles)
		return cli_fail_errno(ENOMEM, "allocate %llu writers", (unsigned long long)env.writers);
	for (; r->nr_wfiles < env.writers - 1; r->nr_wfiles++) {
		struct run *f = &r->wfiles[r->nr_wfiles];
		char *path;

		if (asprintf(&path, "%s.w%u", env.target.path, r->nr_wfiles + 1) < 0)
			return cli_fail_errno(ENOMEM, "writer %u's file name", r->nr_wfiles + 1);
		f->path = path;
		f->fd = -1;
		f->reflink_src_fd = -1;
		f->file_size = r->file_size;
		f->stride = r->stride;
		f->faults_per_rep = r->faults_per_rep;
	}
	return 0;
}

/* The writers' files, new for each repetition like FILE. */
static int create_writer_files(struct run *r)
{
	int err = 0;

	for (unsigned int k = 0; !err && k < r->nr_wfiles; k++)
		err = create_fresh_file(&r->wfiles[k]);
	return err;
}

/* Unmap and close the writers' files, unlink them with @remove; free all. */
static void free_writers(struct run *r, bool remove)
{
	for (unsigned int k = 0; k < r->nr_wfiles; k++) {
		struct run *f = &r->wfiles[k];

		unmap_file(f);
		if (f->fd >= 0)
			close(f->fd);
		if (f->reflink_src_fd >= 0)
			close(f->reflink_src_fd);
		if (f->file_exists && remove)
			unlink(f->path);
		free((char *)f->path);
	}
	free(r->wfiles);
	if (r->wsamples)
		munmap(r->wsamples, r->wsamples_len);
}

/*
 * Writer @k: its stores to its own file, or slice of FILE, as time_faults
 * makes them in-process; the mapping came with fork, VM_SYNC and
 * MADV_NOHUGEPAGE included. It waits at the barrier (EOF once the parent
 * has forked them all) and exits with the suite's code. Its one-line error
 * goes to @err_fd: the parent shows the first failing writer's only. Stop
 * signals just set its own flag: the parent stops the writers.
 */
static void __attribute__((noreturn))
writer_child(struct run *r, unsigned int k, int barrier_fd, int err_fd, pid_t parent)
{
	struct run *f = env.same_file || k == 0 ? r : &r->wfiles[k - 1];
	uint64_t *samples = r->wsamples + (size_t)k * r->faults_per_rep;
	static char prog[64];
	char byte;
	int err;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(EXIT_RUNTIME);
	dup2(err_fd, STDERR_FILENO);
	snprintf(prog, sizeof(prog), "%s: writer %u", cli_prog, k);
	cli_prog = prog;
	if (env.same_file) {
		f->slice_off = k * r->faults_per_rep * r->stride;
		f->map += f->slice_off;
	}
	/* Fault the sample pages in now, not between two timed stores. */
	memset(samples, 0, r->faults_per_rep * sizeof(*samples));
	while (read(barrier_fd, &byte, 1) < 0 && errno == EINTR)
		;
	err = time_faults(f, samples);
	if (!err)
		err = check_fault_size(f);	/* pagemap: this process's page tables */
	_exit(err);
}

/* Fork writer @k; what it prints on stderr comes back on *err_fd. */
static int fork_writer(struct run *r, unsigned int k, const int barrier[2],
		       pid_t *pid, int *err_fd)
{
	pid_t parent = getpid();
	int err_pipe[2];

	if (pipe2(err_pipe, O_CLOEXEC))
		return cli_fail_errno(errno, "pipe");
	*pid = fork();
	if (*pid < 0) {
		int err = errno;

		close(err_pipe[0]);
		close(err_pipe[1]);
		return cli_fail_errno(err, "fork writer %u", k);
	}
	if (*pid == 0) {
		close(barrier[1]);
		close(err_pipe[0]);
		writer_child(r, k, barrier[0], err_pipe[1], parent);
	}
	close(err_pipe[1]);
	*err_fd = err_pipe[0];
	return 0;
}

static void kill_writers(const pid_t *pids, unsigned int from, unsigned int n)
{
	for (unsigned int k = from; k < n; k++)
		kill(pids[k], SIGKILL);
}

/*
 * 0 when writer @k exited 0, else its exit code after relaying the line
 * it printed, or EXIT_RUNTIME and how it died.
 */
static int writer_status(unsigned int k, int status, int err_fd)
{
	char msg[1024];
	ssize_t len;

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	len = read(err_fd, msg, sizeof(msg) - 1);
	if (len > 0 && WIFEXITED(status)) {
		msg[len] = '\0';
		msg[strcspn(msg, "\n")] = '\0';
		fprintf(stderr, "%s\n", msg);
		return WEXITSTATUS(status);
	}
	if (WIFSIGNALED(status))
		return cli_fail(EXIT_RUNTIME, "writer %u: killed by signal %d (%s)", k,
				WTERMSIG(status), strsignal(WTERMSIG(status)));
	return cli_fail(WEXITSTATUS(status), "writer %u: exit %d, no message", k,
			WEXITSTATUS(status));
}

/*
 * Reap writers 0..@n-1 in order; once @err is set (a failed start, a
 * failing writer) or a stop signal came, kill the rest first. Returns the
 * first failing writer's code, or fail_interrupted() on a stop signal.
 */
static int wait_writers(const pid_t *pids, const int *err_fds, unsigned int n, int err)
{
	bool killed = false;

	for (unsigned int k = 0; k < n; k++) {
		int status = 0;
		pid_t waited;

		do {
			if (!killed && (err || cli_stop_signal)) {
				kill_writers(pids, k, n);
				killed = true;
			}
			waited = waitpid(pids[k], &status, 0);
		} while (waited < 0 && errno == EINTR);
		if (waited < 0 && !err)
			err = cli_fail_errno(errno, "wait for writer %u", k);
		else if (!killed)
			err = writer_status(k, status, err_fds[k]);
		close(err_fds[k]);
	}
	if (!err && cli_stop_signal)
		return fail_interrupted();
	return err;
}

/* Fork the writers, open the barrier so that they start together, wait. */
static int run_writers(struct run *r)
{
	pid_t pids[MAX_WRITERS];
	int err_fds[MAX_WRITERS], barrier[2], err = 0;
	unsigned int n = 0;

	if (pipe2(barrier, O_CLOEXEC))
		return cli_fail_errno(errno, "pipe");
	while (!err && n < env.writers)
		if (!(err = fork_writer(r, n, barrier, &pids[n], &err_fds[n])))
			n++;
	if (!err) {
		close(barrier[1]);	/* EOF at the barrier: all go */
		barrier[1] = -1;
	}
	err = wait_writers(pids, err_fds, n, err);	/* killed at the barrier on err */
	if (barrier[1] >= 0)
		close(barrier[1]);
	close(barrier[0]);
	return err;
}

/* One repetition with -w N: every writer faults its own file or slice at once. */
static int measure_rep_writers(struct run *r, unsigned int rep)
{
	size_t n = r->faults_per_rep;
	int err = map_ready_file(r);

	for (unsigned int k = 0; !err && k < r->nr_wfiles; k++)
		err = map_ready_file(&r->wfiles[k]);
	if (err || (err = run_writers(r)))
		return err;
	unmap_file(r);
	for (unsigned int k = 0; k < r->nr_wfiles; k++)
		unmap_file(&r->wfiles[k]);
	if (cli_stop_signal)
		return fail_interrupted();
	/* r->samples is [writer][rep][fault]: each writer's faults together. */
	for (unsigned int k = 0; k < env.writers; k++)
		memcpy(r->samples + ((size_t)k * env.reps + rep) * n,
		       r->wsamples + (size_t)k * n, n * sizeof(*r->samples));
	summarize_rep(r, rep, r->wsamples, n * env.writers);
	return 0;
}

/* ---- output ---- */

static void default_label(char *buf, size_t len)
{
	char writers[48] = "";

	if (env.writers > 1)
		snprintf(writers, sizeof(writers), ", %llu writers%s",
			 (unsigned long long)env.writers, env.same_file ? " on one file" : "");
	snprintf(buf, len, "File %s, %s, %s%s%s:", state_words[env.state],
		 env.load == LOAD_COPY ? "background load" : "no background load",
		 env.target.map_sync ? "MAP_SYNC" : "no MAP_SYNC",
		 env.fault_size == FAULT_PMD ? ", PMD faults" : "", writers);
}

/* Every writer's every fault: the samples of the run. */
static size_t total_samples(const struct run *r)
{
	return r->faults_per_rep * env.reps * env.writers;
}

static void print_tail(const struct stats *st)
{
	printf("median=%llu p99=%llu p99.9=%llu max=%llu", (unsigned long long)st->median,
	       (unsigned long long)st->p99, (unsigned long long)st->p999,
	       (unsigned long long)st->max);
}

/*
 * The letter's table of all writers' faults together, then its tail, and
 * one line per writer with -w. faults= counts one repetition, of every
 * writer (results/report.sh multiplies by reps=).
 */
static int print_text(struct run *r, const char *label)
{
	uint64_t divisor = env.nsecs ? 1 : 1000;
	size_t per_writer = r->faults_per_rep * env.reps;
	struct stats st;
	struct hist h;

	hist_init(&h);
	hist_add_samples(&h, r->samples, total_samples(r), divisor);
	stats_of(r, r->samples, total_samples(r), divisor, &st);

	printf("%s\n", label);
	hist_print_letter(stdout, &st, &h, env.nsecs ? "ns" : "us");
	print_tail(&st);
	printf(" faults=%zu reps=%llu", r->faults_per_rep * env.writers,
	       (unsigned long long)env.reps);
	if (env.writers > 1)
		printf(" writers=%llu", (unsigned long long)env.writers);
	putchar('\n');
	for (unsigned int k = 0; env.writers > 1 && k < env.writers; k++) {
		stats_of(r, r->samples + k * per_writer, per_writer, divisor, &st);
		printf("writer %u: ", k);
		print_tail(&st);
		printf(" faults=%zu\n", r->faults_per_rep);
	}
	if (fflush(stdout) || ferror(stdout))
		return cli_fail_errno(errno ? errno : EIO, "write stdout");
	return 0;
}

/* -w N: each writer's faults (all repetitions) and their summary in ns. */
static void json_writers_detail(struct json_writer *w, struct run *r)
{
	size_t per_writer = r->faults_per_rep * env.reps;
	struct stats st;

	json_key(w, "writers_detail");
	json_begin_array(w);
	for (unsigned int k = 0; k < env.writers; k++) {
		stats_of(r, r->samples + k * per_writer, per_writer, 1, &st);
		json_begin_object(w);
		json_kv_uint(w, "writer", k);
		json_kv_uint(w, "faults", per_writer);
		json_kv_uint(w, "median", st.median);
		json_kv_uint(w, "p99", st.p99);
		json_kv_uint(w, "p999", st.p999);
		json_kv_uint(w, "max", st.max);
		json_end_object(w);
	}
	json_end_array(w);
}

static int print_json(struct run *r, const char *label, FILE *out)
{
	size_t total = total_samples(r);
	struct json_writer w;
	struct utsname uts;
	struct stats st;
	struct hist h_us;

	if (uname(&uts))
		strcpy(uts.release, "unknown");
	hist_init(&h_us);
	hist_add_samples(&h_us, r->samples, total, 1000);
	stats_of(r, r->samples, total, 1, &st);

	json_init(&w, out);
	json_begin_object(&w);
	json_kv_string(&w, "tool", TOOL);
	json_kv_uint(&w, "version", JSON_VERSION);
	json_kv_string(&w, "label", label);
	json_kv_string(&w, "kernel", uts.release);
	json_kv_string(&w, "fs", r->fs_name);
	json_kv_string(&w, "path", env.target.path);
	json_kv_bool(&w, "dax", r->dax);
	json_kv_uint(&w, "pages", env.pages);
	/* What each writer really mapped and faulted: -n rounded up to whole PMDs. */
	json_kv_uint(&w, "pages_mapped",
		     r->faults_per_rep * r->stride / (size_t)sysconf(_SC_PAGESIZE));
	json_kv_bool(&w, "fault_size_verified", true);
	json_kv_string(&w, "state", state_names[env.state]);
	json_kv_bool(&w, "map_sync", env.target.map_sync);
	json_kv_bool(&w, "vm_sync_seen", r->vm_sync_seen);
	json_kv_string(&w, "fault_size", fault_size_names[env.fault_size]);
	json_kv_string(&w, "load", load_names[env.load]);
	json_kv_string(&w, "order", order_names[env.order]);
	json_kv_uint(&w, "reps", env.reps);
	json_kv_uint(&w, "writers", env.writers);
	json_kv_bool(&w, "same_file", env.same_file);
	/* Every writer's; faults_per_rep is the text's faults= */
	json_kv_uint(&w, "faults", total);
	json_kv_uint(&w, "faults_per_rep", r->faults_per_rep * env.writers);
	json_kv_string(&w, "unit", "ns");
	json_kv_uint(&w, "min", st.min);
	json_kv_uint(&w, "avg", st.avg);
	json_kv_uint(&w, "median", st.median);
	json_kv_uint(&w, "p99", st.p99);
	json_kv_uint(&w, "p999", st.p999);
	json_kv_uint(&w, "max", st.max);
	hist_json(&w, &h_us);
	if (env.writers > 1)
		json_writers_detail(&w, r);

	json_key(&w, "reps_detail");
	json_begin_array(&w);
	for (uint64_t rep = 0; rep < env.reps; rep++) {
		json_begin_object(&w);
		json_kv_uint(&w, "avg", r->rep_stats[rep].avg);
		json_kv_uint(&w, "median", r->rep_stats[rep].median);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	return cli_json_finish(&w);
}

static int write_json_file(struct run *r, const char *label)
{
	FILE *out = fopen(env.json_out, "w");
	int err;

	if (!out)
		return cli_fail_errno(errno, "open %s", env.json_out);
	err = print_json(r, label, out);
	if (fclose(out) && !err)
		err = cli_fail_errno(errno, "close %s", env.json_out);
	return err;
}

static int write_samples_file(const struct run *r)
{
	FILE *out = fopen(env.samples_out, "w");

	if (!out)
		return cli_fail_errno(errno, "open %s", env.samples_out);
	samples_line(out, NULL, r->samples, total_samples(r));
	/* Both run: a write error must not leak the stream. */
	if (ferror(out) | fclose(out))
		return cli_fail_errno(errno ? errno : EIO, "write %s", env.samples_out);
	return 0;
}

/* ---- main ---- */

static int size_the_run(struct run *r)
{
	long page_size = sysconf(_SC_PAGESIZE);
	size_t total;

	if (page_size <= 0)
		return cli_fail_errno(errno, "sysconf(_SC_PAGESIZE)");
	r->file_size = (size_t)env.pages * (size_t)page_size;
	if (env.fault_size == FAULT_PMD) {
		/* Whole 2 MiB units only: a partial one can never be a PMD. */
		r->file_size = (r->file_size + PMD_SIZE - 1) & ~(PMD_SIZE - 1);
		if (r->file_size != (size_t)env.pages * (size_t)page_size)
			fprintf(stderr, TOOL ": note: -n %llu rounded up to %zu pages: %zu PMD faults of 2 MiB\n",
				(unsigned long long)env.pages, r->file_size / (size_t)page_size,
				r->file_size / PMD_SIZE);
		r->stride = PMD_SIZE;
	} else {
		r->stride = (size_t)page_size;
	}
	r->faults_per_rep = r->file_size / r->stride;

	if (__builtin_mul_overflow(r->faults_per_rep, (size_t)env.reps, &total) ||
	    __builtin_mul_overflow(total, (size_t)env.writers, &total))
		return cli_fail(EXIT_RUNTIME, "pages x reps x writers: too many samples");
	r->samples = calloc(total, sizeof(*r->samples));
	r->scratch = calloc(total, sizeof(*r->scratch));
	r->rep_stats = calloc(env.reps, sizeof(*r->rep_stats));
	if (!r->samples || !r->scratch || !r->rep_stats)
		return cli_fail_errno(ENOMEM, "allocate %zu samples", total);
	/* Touch the sample buffer now, not between two timed stores. */
	memset(r->samples, 0, total * sizeof(*r->samples));
	return 0;
}

int main(int argc, char **argv)
{
	struct run r = { .fd = -1, .reflink_src_fd = -1, .load_report_fd = -1, .fs_name = "unknown" };
	char default_label_buf[128];
	const char *label;
	int err;

	cli_parse_args(TOOL, opts, parse_arg, argp_program_doc, argc, argv);
	r.path = env.target.path;
	label = env.label;
	if (!label) {
		default_label(default_label_buf, sizeof(default_label_buf));
		label = default_label_buf;
	}

	if ((err = cli_install_signal_handlers()) || (err = size_the_run(&r)) ||
	    (err = plan_writers(&r)) || (err = create_fresh_file(&r)) ||
	    (err = check_target(&r)) || (err = create_writer_files(&r)))
		goto cleanup;
	if (env.load == LOAD_COPY && (err = start_load(&r)))
		goto cleanup;

	for (unsigned int rep = 0; rep < env.reps; rep++) {
		if (rep > 0 && ((err = create_fresh_file(&r)) || (err = create_writer_files(&r))))
			goto cleanup;
		/* One writer: in-process, as before -w, for comparable numbers. */
		err = env.writers > 1 ? measure_rep_writers(&r, rep) : measure_rep(&r, rep);
		if (err)
			goto cleanup;
	}
	if ((err = stop_load(&r, true)))
		goto cleanup;

	err = env.json ? print_json(&r, label, stdout) : print_text(&r, label);
	if (!err && env.json_out)
		err = write_json_file(&r, label);
	if (!err && env.samples_out)
		err = write_samples_file(&r);

cleanup:
	unmap_file(&r);
	stop_load(&r, false);
	if (r.fd >= 0)
		close(r.fd);
	if (r.reflink_src_fd >= 0)
		close(r.reflink_src_fd);
	if (r.file_exists && (err || !env.keep))
		unlink(env.target.path);
	free_writers(&r, err || !env.keep);
	free(r.samples);
	free(r.scratch);
	free(r.rep_stats);
	return err;
}
