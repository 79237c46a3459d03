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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "cli.h"
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

enum file_state { STATE_EMPTY, STATE_PREALLOC, STATE_FALLOCATED };
enum fault_size { FAULT_PTE, FAULT_PMD };
enum load_kind { LOAD_NONE, LOAD_COPY };

static const char *const state_names[] = { "empty", "prealloc", "fallocated" };
/* The cover letter's wording, for the default label. */
static const char *const state_words[] = { "empty", "preallocated", "fallocated" };
static const char *const fault_size_names[] = { "pte", "pmd" };
static const char *const load_names[] = { "none", "copy" };

static struct env {
	struct cli_target target;	/* -f -S --replace --no-dax-check -v */
	uint64_t pages;
	enum file_state state;
	enum fault_size fault_size;
	enum load_kind load;
	uint64_t load_size;
	uint64_t reps;
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
};

/* Everything the cleanup path must undo, in one place. */
struct run {
	int fd;
	bool file_exists;		/* we created env.target.path: unlink it */
	char *map;
	size_t map_len;
	size_t file_size;
	size_t stride;			/* bytes between two timed stores */
	size_t faults_per_rep;
	pid_t load_pid;
	int load_report_fd;		/* child -> parent: 0 = ready, else errno */
	char load_src[PATH_MAX];
	char load_dst[PATH_MAX];
	uint64_t *samples;		/* ns, faults_per_rep * reps */
	struct stats *rep_stats;	/* ns, one per rep */
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
"                [-l none|copy] [-r REPS] [-u|-N] [-j] [-v]\n"
"\n"
"EXAMPLES:\n"
"    faultlat -f /mnt/dax/f              # 512 faults, empty file, MAP_SHARED\n"
"    faultlat -f /mnt/dax/f -S           # the same with MAP_SYNC\n"
"    faultlat -f /mnt/dax/f -S -s prealloc  # blocks allocated and written\n"
"    faultlat -f /mnt/dax/f -S -l copy   # with a file copy on the same fs\n"
"    faultlat -f /mnt/dax/f -S -r 10 -j  # 10 repetitions, JSON output\n"
"    faultlat -f /mnt/dax/f --fault-size pmd  # one fault per 2 MiB\n"
"\n"
"Exit status: 0 ok, 1 runtime error, 2 usage, 3 not a DAX file, 4 kernel\n"
"without MAP_SYNC, 5 MAP_SYNC refused (EOPNOTSUPP), 6 no space left,\n"
"7 VM_SYNC state differs from the request, 11 FILE exists (not replaced),\n"
"12 the kernel fell back from PMD to PTE faults.\n";

enum {
	OPT_FAULT_SIZE = 256,
	OPT_LOAD_SIZE,
	OPT_LABEL,
	OPT_KEEP,
	OPT_JSON_OUT,
	OPT_SAMPLES_OUT,
};

static const struct argp_option opts[] = {
	CLI_TARGET_OPTIONS("File to create on the DAX filesystem (required); removed at the end",
			   "Map with MAP_SHARED_VALIDATE|MAP_SYNC (default MAP_SHARED)",
			   "Run even if the file is not on a DAX mapping", "Progress on stderr"),
	{ "pages", 'n', "N", 0, "Pages to fault (default 512)", 0 },
	{ "state", 's', "STATE", 0, "File before mapping: empty (holes, default), prealloc (blocks allocated and written), fallocated (unwritten extents)", 0 },
	{ "fault-size", OPT_FAULT_SIZE, "pte|pmd", 0, "pte: MADV_NOHUGEPAGE, one fault per 4 KiB (default); pmd: one fault per 2 MiB", 0 },
	{ "load", 'l', "none|copy", 0, "Background load: copy = a child copies a file on the same filesystem (default none)", 0 },
	{ "load-size", OPT_LOAD_SIZE, "BYTES", 0, "Size of the file the load copies, K/M/G suffixes (default 16M)", 0 },
	{ "reps", 'r', "N", 0, "Repeat the measurement N times with a fresh file (default 1)", 0 },
	{ "usecs", 'u', NULL, 0, "Text output in microseconds (default)", 0 },
	{ "nsecs", 'N', NULL, 0, "Text output in nanoseconds", 0 },
	{ "json", 'j', NULL, 0, "JSON output (latencies in ns, histogram in us)", 0 },
	{ "json-out", OPT_JSON_OUT, "FILE", 0, "Also write the JSON document to FILE (one run, both views)", 0 },
	{ "samples-out", OPT_SAMPLES_OUT, "FILE", 0, "Also write every fault's latency to FILE, in ns, "
	  "space-separated on one line, in fault order (what the regression gate reads)", 0 },
	{ "label", OPT_LABEL, "TEXT", 0, "Scenario title, first line of the text output", 0 },
	{ "keep", OPT_KEEP, NULL, 0, "Keep the file after a successful run", 0 },
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
		env.state = cli_choice_arg("--state", arg, state_names, 3);
		break;
	case OPT_FAULT_SIZE:
		env.fault_size = cli_choice_arg("--fault-size", arg, fault_size_names, 2);
		break;
	case 'l':
		env.load = cli_choice_arg("--load", arg, load_names, 2);
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
	if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
	}
	/* Only our own file from the previous repetition, or when asked. */
	if ((r->file_exists || env.target.replace) && unlink(env.target.path) && errno != ENOENT)
		return cli_fail_errno(errno, "unlink %s", env.target.path);
	r->file_exists = false;
	r->fd = open(env.target.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (r->fd < 0 && errno == EEXIST)
		return cli_fail(EXIT_FILE_EXISTS, "%s exists: faultlat works on a file of its own and "
				"left it untouched (--replace removes it)", env.target.path);
	if (r->fd < 0)
		return cli_fail_errno(errno, "create %s", env.target.path);
	r->file_exists = true;
	return 0;
}

static int prepare_file_state(struct run *r)
{
	int err;

	switch (env.state) {
	case STATE_EMPTY:
		if (ftruncate(r->fd, (off_t)r->file_size))
			return cli_fail_errno(errno, "ftruncate %s", env.target.path);
		break;
	case STATE_PREALLOC:
		/*
		 * Written, not just allocated: no extent left to convert. One
		 * fallocate first, so the blocks come as one allocation the
		 * filesystem aligns to 2 MiB like the fallocated state's; written
		 * piecewise by pwrite they fell back from PMD faults.
		 */
		if (fallocate(r->fd, 0, 0, (off_t)r->file_size))
			return cli_fail_errno(errno, "fallocate %s", env.target.path);
		err = fill_file(r->fd, r->file_size, 0xa5);
		if (err)
			return cli_fail_errno(err, "write %s", env.target.path);
		break;
	case STATE_FALLOCATED:
		if (fallocate(r->fd, 0, 0, (off_t)r->file_size))
			return cli_fail_errno(errno, "fallocate %s", env.target.path);
		break;
	}
	/*
	 * Commit the new size and any allocation now: under MAP_SYNC the first
	 * timed fault would otherwise also pay for committing the preparation.
	 */
	if (fsync(r->fd))
		return cli_fail_errno(errno, "fsync %s", env.target.path);
	return 0;
}

/* ---- DAX detection ---- */

static bool options_contain_dax(const char *opts)
{
	char *copy = strdup(opts), *save = NULL;
	bool found = false;

	if (!copy)
		return false;
	for (char *tok = strtok_r(copy, ",", &save); tok && !found;
	     tok = strtok_r(NULL, ",", &save))
		found = strcmp(tok, "dax") == 0 || strcmp(tok, "dax=always") == 0;
	free(copy);
	return found;
}

/*
 * For kernels older than 5.8, which do not report STATX_ATTR_DAX: look for
 * a dax mount option on any mount of the file's device.
 */
static int mountinfo_says_dax(dev_t dev, bool *dax)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return errno;
	*dax = false;
	while (!*dax && getline(&line, &cap, f) > 0) {
		char *mount_opts = NULL, *super_opts = NULL;
		const char *sep = strstr(line, " - ");
		unsigned int major_nr, minor_nr;

		if (!sep || sscanf(line, "%*d %*d %u:%u %*s %*s %ms", &major_nr,
				   &minor_nr, &mount_opts) != 3)
			continue;
		if (makedev(major_nr, minor_nr) == dev) {
			if (sscanf(sep + 3, "%*s %*s %ms", &super_opts) != 1)
				super_opts = NULL;
			*dax = options_contain_dax(mount_opts) ||
			       (super_opts && options_contain_dax(super_opts));
		}
		free(mount_opts);
		free(super_opts);
	}
	free(line);
	fclose(f);
	return 0;
}

/* Sets *dax and *how (what decided it). Returns 0 or an errno. */
static int detect_dax(int fd, bool *dax, const char **how)
{
	struct statx stx;
	struct stat st;

	/* stx_attributes is only meaningful where stx_attributes_mask says so. */
	if (statx(fd, "", AT_EMPTY_PATH, 0, &stx) == 0 &&
	    (stx.stx_attributes_mask & STATX_ATTR_DAX)) {
		*dax = stx.stx_attributes & STATX_ATTR_DAX;
		*how = "statx STATX_ATTR_DAX";
		return 0;
	}
	if (fstat(fd, &st))
		return errno;
	*how = "dax mount option in /proc/self/mountinfo";
	return mountinfo_says_dax(st.st_dev, dax);
}

static const char *fs_type_name(int fd)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} types[] = {
		{ 0xef53, "ext4" },	/* ext2/3/4 share it; only ext4 has MAP_SYNC */
		{ 0x58465342, "xfs" },
		{ 0x01021994, "tmpfs" },
		{ 0x858458f6, "ramfs" },
		{ 0x9123683e, "btrfs" },
		{ 0xf2f52010, "f2fs" },
		{ 0x794c7630, "overlayfs" },
		{ 0x6969, "nfs" },
		{ 0x65735546, "fuse" },
	};
	static char unknown[32];
	struct statfs sfs;

	if (fstatfs(fd, &sfs))
		return "unknown";
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if ((unsigned long)sfs.f_type == types[i].magic)
			return types[i].name;
	snprintf(unknown, sizeof(unknown), "0x%lx", (unsigned long)sfs.f_type);
	return unknown;
}

static int check_target(struct run *r)
{
	const char *how = "";
	int err = detect_dax(r->fd, &r->dax, &how);

	r->fs_name = fs_type_name(r->fd);
	if (env.target.no_dax_check) {
		if (err)
			r->dax = false;
		cli_verbose("%s: dax=%d (%s), fs %s, check skipped", env.target.path,
			    r->dax, how, r->fs_name);
		return 0;
	}
	if (err)
		return cli_fail_errno(err, "%s: cannot tell whether it is DAX", env.target.path);
	if (!r->dax)
		return cli_fail(EXIT_NOT_DAX, "%s: not a DAX file (%s: no; fs %s)",
				env.target.path, how, r->fs_name);
	cli_verbose("%s: DAX (%s), fs %s", env.target.path, how, r->fs_name);
	return 0;
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

static int fail_mmap(int err)
{
	if (env.target.map_sync && err == EINVAL)
		return cli_fail(EXIT_NO_MAP_SYNC,
				"mmap MAP_SHARED_VALIDATE|MAP_SYNC %s: EINVAL: the kernel does not know MAP_SHARED_VALIDATE/MAP_SYNC (needs Linux 4.15+)",
				env.target.path);
	if (env.target.map_sync && err == EOPNOTSUPP)
		return cli_fail(EXIT_SYNC_REFUSED,
				"mmap MAP_SHARED_VALIDATE|MAP_SYNC %s: EOPNOTSUPP: MAP_SYNC refused (not a DAX file on synchronous persistent memory)",
				env.target.path);
	return cli_fail_errno(err, "mmap %s", env.target.path);
}

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
		return fail_mmap(err);
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
	return cli_fail_errno(errno, "madvise MADV_NOHUGEPAGE %s", env.target.path);
}

/* VM_SYNC must be there exactly when asked for; -v shows the VmFlags. */
static int check_vm_sync(struct run *r)
{
	char flags[256];
	int err = mapsync_vm_sync(r->map, &r->vm_sync_seen, flags, sizeof(flags));

	if (err)
		return err;
	cli_verbose("mapping VmFlags:%s", flags);
	return mapsync_expect_vm_sync(env.target.path, env.target.map_sync, r->vm_sync_seen);
}

/* ---- measurement ---- */

static uint64_t timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

/* One timed store per stride; each store takes exactly one write fault. */
static int time_faults(struct run *r, uint64_t *samples)
{
	volatile size_t fault = 0;
	struct timespec t0, t1;

	if (sigsetjmp(cli_sigbus_jump, 1)) {
		cli_sigbus_armed = 0;
		return cli_fail(EXIT_NO_SPACE,
				"store to offset %zu of %s: SIGBUS: no block could be allocated (filesystem full?)",
				fault * r->stride, env.target.path);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);	/* warm the vDSO path */
	cli_sigbus_armed = 1;
	for (fault = 0; fault < r->faults_per_rep; fault++) {
		volatile uint64_t *target =
			(volatile uint64_t *)(r->map + fault * r->stride);
		uint64_t value = fault + 1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		*target = value;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		samples[fault] = timespec_ns(&t1) - timespec_ns(&t0);
	}
	cli_sigbus_armed = 0;
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
				wrong, r->faults_per_rep, env.target.path);
	return 0;
}

static int measure_rep(struct run *r, unsigned int rep)
{
	uint64_t *samples = r->samples + (size_t)rep * r->faults_per_rep;
	int err;

	if ((err = prepare_file_state(r)) || (err = map_file(r)) ||
	    (err = force_pte_faults(r)) || (err = check_vm_sync(r)) ||
	    (err = time_faults(r, samples)) || (err = check_fault_size(r)))
		return err;
	unmap_file(r);
	if (cli_stop_signal)
		return fail_interrupted();
	/* Per-rep summary in ns; sorting this slice does not matter later. */
	stats_compute(samples, r->faults_per_rep, 1, &r->rep_stats[rep]);
	cli_verbose("rep %u/%llu: %zu faults, avg %llu ns, median %llu ns", rep + 1,
		    (unsigned long long)env.reps, r->faults_per_rep,
		    (unsigned long long)r->rep_stats[rep].avg,
		    (unsigned long long)r->rep_stats[rep].median);
	return 0;
}

/* ---- output ---- */

static void default_label(char *buf, size_t len)
{
	snprintf(buf, len, "File %s, %s, %s%s:", state_words[env.state],
		 env.load == LOAD_COPY ? "background load" : "no background load",
		 env.target.map_sync ? "MAP_SYNC" : "no MAP_SYNC",
		 env.fault_size == FAULT_PMD ? ", PMD faults" : "");
}

static int print_text(struct run *r, const char *label)
{
	uint64_t divisor = env.nsecs ? 1 : 1000;
	size_t total = r->faults_per_rep * env.reps;
	struct stats st;
	struct hist h;

	hist_init(&h);
	hist_add_samples(&h, r->samples, total, divisor);
	stats_compute(r->samples, total, divisor, &st);

	printf("%s\n", label);
	hist_print_letter(stdout, &st, &h, env.nsecs ? "ns" : "us");
	printf("median=%llu p99=%llu faults=%zu reps=%llu\n",
	       (unsigned long long)st.median, (unsigned long long)st.p99,
	       r->faults_per_rep, (unsigned long long)env.reps);
	if (fflush(stdout) || ferror(stdout))
		return cli_fail_errno(errno ? errno : EIO, "write stdout");
	return 0;
}

static int print_json(struct run *r, const char *label, FILE *out)
{
	size_t total = r->faults_per_rep * env.reps;
	struct json_writer w;
	struct utsname uts;
	struct stats st;
	struct hist h_us;
	int first, last;

	if (uname(&uts))
		strcpy(uts.release, "unknown");
	hist_init(&h_us);
	hist_add_samples(&h_us, r->samples, total, 1000);
	stats_compute(r->samples, total, 1, &st);

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
	/* What was really mapped and faulted: -n rounded up to whole PMDs. */
	json_kv_uint(&w, "pages_mapped", r->file_size / (size_t)sysconf(_SC_PAGESIZE));
	json_kv_bool(&w, "fault_size_verified", true);
	json_kv_string(&w, "state", state_names[env.state]);
	json_kv_bool(&w, "map_sync", env.target.map_sync);
	json_kv_bool(&w, "vm_sync_seen", r->vm_sync_seen);
	json_kv_string(&w, "fault_size", fault_size_names[env.fault_size]);
	json_kv_string(&w, "load", load_names[env.load]);
	json_kv_uint(&w, "reps", env.reps);
	json_kv_uint(&w, "faults", total);
	json_kv_uint(&w, "faults_per_rep", r->faults_per_rep);
	json_kv_string(&w, "unit", "ns");
	json_kv_uint(&w, "min", st.min);
	json_kv_uint(&w, "avg", st.avg);
	json_kv_uint(&w, "median", st.median);
	json_kv_uint(&w, "p99", st.p99);
	json_kv_uint(&w, "max", st.max);

	/* Same bucket range as the text table: first to last non-empty. */
	json_key(&w, "hist");
	json_begin_array(&w);
	first = hist_first_slot(&h_us);
	last = hist_last_slot(&h_us);
	for (int i = first; first >= 0 && i <= last; i++) {
		json_begin_object(&w);
		json_kv_uint(&w, "lo", hist_slot_lo(i));
		json_kv_uint(&w, "hi", hist_slot_hi(i));
		json_kv_uint(&w, "count", h_us.slots[i]);
		json_end_object(&w);
	}
	json_end_array(&w);

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
	size_t total = r->faults_per_rep * env.reps;
	FILE *out = fopen(env.samples_out, "w");

	if (!out)
		return cli_fail_errno(errno, "open %s", env.samples_out);
	samples_line(out, NULL, r->samples, total);
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

	if (__builtin_mul_overflow(r->faults_per_rep, (size_t)env.reps, &total))
		return cli_fail(EXIT_RUNTIME, "pages x reps: too many samples");
	r->samples = calloc(total, sizeof(*r->samples));
	r->rep_stats = calloc(env.reps, sizeof(*r->rep_stats));
	if (!r->samples || !r->rep_stats)
		return cli_fail_errno(ENOMEM, "allocate %zu samples", total);
	/* Touch the sample buffer now, not between two timed stores. */
	memset(r->samples, 0, total * sizeof(*r->samples));
	return 0;
}

int main(int argc, char **argv)
{
	struct run r = { .fd = -1, .load_report_fd = -1, .fs_name = "unknown" };
	char default_label_buf[96];
	const char *label;
	int err;

	cli_parse_args(TOOL, opts, parse_arg, argp_program_doc, argc, argv);
	label = env.label;
	if (!label) {
		default_label(default_label_buf, sizeof(default_label_buf));
		label = default_label_buf;
	}

	if ((err = cli_install_signal_handlers()) || (err = size_the_run(&r)) ||
	    (err = create_fresh_file(&r)) || (err = check_target(&r)))
		goto cleanup;
	if (env.load == LOAD_COPY && (err = start_load(&r)))
		goto cleanup;

	for (unsigned int rep = 0; rep < env.reps; rep++) {
		if (rep > 0 && (err = create_fresh_file(&r)))
			goto cleanup;
		if ((err = measure_rep(&r, rep)))
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
	if (r.file_exists && (err || !env.keep))
		unlink(env.target.path);
	free(r.samples);
	free(r.rep_stats);
	return err;
}
