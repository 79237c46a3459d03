// SPDX-License-Identifier: GPL-2.0
/*
 * syncstress: synchronous DAX write faults of several threads on ONE file,
 * while another thread keeps allocating blocks of the same file with
 * pwrite(). The workload that separates a per-fault ordering check from a
 * per-inode one: between a fault's metadata sync and its writable entry,
 * other tasks move the inode's datasync tid (ext4) or pin it again (xfs).
 *
 *   syncstress -f /mnt/ext4/s [-t THREADS] [-n PAGES] [--no-writer]
 *              [--state empty|written|reflinked] [--read-first] [--fdatasync]
 *              [--replace] [-v]
 *
 * Thread i stores to pages i, i+T, i+2T, ... of a MAP_SHARED_VALIDATE|
 * MAP_SYNC mapping of the first PAGES pages (MADV_NOHUGEPAGE: PTE faults);
 * the writer pwrite()s 4 KiB blocks into the next PAGES pages until the
 * faulting threads are done.
 *
 * FILE (and FILE.src) are the tool's own, as faultlat's FILE is (lib/cli,
 * lib/daxfile): created afresh, an existing one refused and left untouched
 * (--replace removes a regular file only), FILE checked to be DAX before
 * anything is written, and only what this run created removed at the end.
 *
 * The ways a store reaches a writable entry, for validate's workloads:
 *   --state written  the mapped pages are allocated by pwrite() first, not
 *                    synced: the fault finds mapped blocks whose metadata
 *                    is not yet committed (default empty: holes)
 *   --state reflinked  the mapped pages are a FICLONE of FILE.src, written
 *                    and both files fsync()ed first: every store is a
 *                    copy-on-write fault on a shared extent (xfs reflink)
 *   --read-first     each page is read before its store: a read-only entry
 *                    first, then a write-protect fault on it
 *   --fdatasync      after each store, fdatasync() (which write-protects
 *                    the page again) and a second store to the same page
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/fs.h>

#include "cli.h"
#include "daxfile.h"
#include "exitcodes.h"
#include "mapsync.h"

#define TOOL "syncstress"
#define PAGE 4096UL

enum { STATE_EMPTY, STATE_WRITTEN, STATE_REFLINKED };
static const char *const state_names[] = { "empty", "written", "reflinked" };

static struct {
	struct cli_target target;	/* -f --replace -v */
	uint64_t threads, pages;
	int state;
	bool writer, read_first, datasync;
} env = { .threads = 4, .pages = 256, .writer = true };

/* What this run created (fd >= 0), and so removes: nothing else. */
static struct {
	int fd, src_fd;
	char *src_path;		/* FILE.src, with --state reflinked */
	char *map;
	size_t len;
} run = { .fd = -1, .src_fd = -1 };

static atomic_bool faulters_done;
static unsigned long writes;

const char *argp_program_version = TOOL " 1";
const char argp_program_doc[] =
"Synchronous DAX write faults of several threads on one file, while another\n"
"thread allocates blocks of the same file with pwrite(): the workload that\n"
"tells a per-fault ordering check from a per-inode one (validate/).\n"
"\n"
"USAGE: syncstress -f FILE [-t THREADS] [-n PAGES] [--no-writer]\n"
"                  [--state empty|written|reflinked] [--read-first]\n"
"                  [--fdatasync] [--replace] [-v]\n"
"\n"
"Thread i stores to pages i, i+T, i+2T, ... of a MAP_SHARED_VALIDATE|MAP_SYNC\n"
"mapping of the first PAGES pages; the writer pwrite()s the next PAGES pages.\n"
"FILE (and FILE.src with --state reflinked) are the tool's own: created\n"
"afresh on a DAX filesystem and removed at the end; an existing one is\n"
"refused and left untouched.\n"
"\n"
"EXAMPLES:\n"
"    syncstress -f /mnt/ext4/s -t 4 -n 256\n"
"    syncstress -f /mnt/xfs/s -t 1 -n 64 --no-writer --state reflinked\n"
"\n"
"Exit status: 0 ok, 1 runtime error, 2 usage, 3 not a DAX file, 4 kernel\n"
"without MAP_SYNC, 5 MAP_SYNC refused (or no reflink on this filesystem),\n"
"6 no space left, 11 FILE or FILE.src exists (not replaced).\n";

enum { OPT_NO_WRITER = 256, OPT_STATE, OPT_READ_FIRST, OPT_FDATASYNC };

static const struct argp_option opts[] = {
	{ "file", 'f', "PATH", 0, "File to create on the DAX filesystem (required); removed at the end", 0 },
	{ "replace", CLI_OPT_REPLACE, NULL, 0, "Remove FILE (and FILE.src) first if they exist "
	  "(without it, an existing one is refused and left untouched; only a regular file is removed)", 0 },
	{ "threads", 't', "N", 0, "Faulting threads (1..256, default 4)", 0 },
	{ "pages", 'n', "N", 0, "Pages mapped and faulted (1..1048576, default 256)", 0 },
	{ "no-writer", OPT_NO_WRITER, NULL, 0, "No thread allocating blocks alongside", 0 },
	{ "state", OPT_STATE, "STATE", 0, "The mapped pages before the stores: empty (holes, default), "
	  "written (allocated by pwrite, not synced) or reflinked (a FICLONE of FILE.src)", 0 },
	{ "read-first", OPT_READ_FIRST, NULL, 0, "Read each page before its store", 0 },
	{ "fdatasync", OPT_FDATASYNC, NULL, 0, "After each store, fdatasync() and store again", 0 },
	{ "verbose", 'v', NULL, 0, "How DAX was told, on stderr", 0 },
	CLI_OPT_HELP,
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (!cli_target_parse(&env.target, key, arg))	/* -f --replace -v */
		return 0;
	switch (key) {
	case 't':
		if (!cli_parse_u64(arg, 10, 1, 256, &env.threads))
			cli_usage_error("invalid --threads '%s' (1..256)", arg);
		break;
	case 'n':
		if (!cli_parse_u64(arg, 10, 1, 1 << 20, &env.pages))
			cli_usage_error("invalid --pages '%s' (1..1048576)", arg);
		break;
	case OPT_NO_WRITER:
		env.writer = false;
		break;
	case OPT_STATE:
		env.state = cli_choice_arg("--state", arg, state_names, 3);
		break;
	case OPT_READ_FIRST:
		env.read_first = true;
		break;
	case OPT_FDATASYNC:
		env.datasync = true;
		break;
	case ARGP_KEY_END:
		cli_target_end(&env.target);
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}

/* Faulting thread @arg: NULL, or fdatasync()'s errno as a pointer. */
static void *fault_pages(void *arg)
{
	uint64_t id = (uintptr_t)arg;

	/* A stop signal ends the stores early: main() cleans up. */
	for (uint64_t p = id; p < env.pages && !cli_stop_signal; p += env.threads) {
		volatile char *c = (volatile char *)(run.map + p * PAGE);

		if (env.read_first)
			(void)*c;	/* a volatile read: the read fault happens */
		*c = (char)(p | 1);
		if (env.datasync) {
			if (fdatasync(run.fd))
				return (void *)(intptr_t)(errno ? errno : EIO);
			*c = (char)(p | 3);
		}
	}
	return NULL;
}

/* --state written: allocate the mapped pages of @to through write(), unsynced. */
static int write_pages(int to)
{
	char buf[PAGE];

	memset(buf, 0x3c, sizeof(buf));
	for (uint64_t p = 0; p < env.pages; p++)
		if (pwrite(to, buf, sizeof(buf), (off_t)(p * PAGE)) != (ssize_t)sizeof(buf))
			return errno ? errno : ENOSPC;
	return 0;
}

/* --state reflinked: FILE shares every block of FILE.src, both durable,
 * so the faults find shared extents and an inode with nothing to sync.
 * The source stays until the end: its blocks stay shared. */
static int reflink_pages(void)
{
	int err;

	if (ftruncate(run.src_fd, (off_t)(2 * run.len)))
		return cli_fail_errno(errno, "ftruncate %s", run.src_path);
	if ((err = write_pages(run.src_fd)))
		return cli_fail_errno(err, "write %s", run.src_path);
	if (fsync(run.src_fd))
		return cli_fail_errno(errno, "fsync %s", run.src_path);
	if (ioctl(run.fd, FICLONE, run.src_fd))
		return errno == EOPNOTSUPP || errno == EINVAL || errno == EXDEV ?
		       cli_fail(EXIT_SYNC_REFUSED, "FICLONE %s: %s: no reflink on this filesystem",
				run.src_path, strerror(errno)) :
		       cli_fail_errno(errno, "FICLONE %s", run.src_path);
	if (fsync(run.fd))
		return cli_fail_errno(errno, "fsync %s", env.target.path);
	return 0;
}

/*
 * FILE and, with --state reflinked, FILE.src, created afresh (an existing
 * one refused and untouched, lib/cli); FILE refused unless DAX, before
 * anything is written to either.
 */
static int create_files(void)
{
	const char *fs_name;
	bool dax;
	int err;

	if ((err = cli_target_create(env.target.path, env.target.replace, &run.fd)))
		return err;
	if (env.state == STATE_REFLINKED) {
		if (asprintf(&run.src_path, "%s.src", env.target.path) < 0) {
			run.src_path = NULL;
			return cli_fail_errno(ENOMEM, "%s.src", env.target.path);
		}
		if ((err = cli_target_create(run.src_path, env.target.replace, &run.src_fd)))
			return err;
	}
	return daxfile_check(run.fd, env.target.path, false, &dax, &fs_name);
}

/* Size FILE, put its pages in the state asked for, map them with MAP_SYNC. */
static int prepare_file(void)
{
	int err;

	if (ftruncate(run.fd, (off_t)(2 * run.len)))
		return cli_fail_errno(errno, "ftruncate %s", env.target.path);
	if (env.state == STATE_WRITTEN && (err = write_pages(run.fd)))
		return cli_fail_errno(err, "write %s", env.target.path);
	if (env.state == STATE_REFLINKED && (err = reflink_pages()))
		return err;
	run.map = mmap(NULL, run.len, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC,
		       run.fd, 0);
	if (run.map == MAP_FAILED) {
		err = errno;
		run.map = NULL;
		return mapsync_fail_mmap(env.target.path, true, err);
	}
	if (madvise(run.map, run.len, MADV_NOHUGEPAGE))
		fprintf(stderr, "%s: warning: MADV_NOHUGEPAGE: %s\n", cli_prog, strerror(errno));
	return 0;
}

/* Allocate blocks of the same inode through the write path, in the half of
 * the file that is not mapped, until the faulting threads are done. */
static void *allocate_blocks(void *arg)
{
	char buf[PAGE];
	uint64_t p = 0;

	(void)arg;
	memset(buf, 0x5a, sizeof(buf));
	while (!atomic_load(&faulters_done)) {
		off_t off = (off_t)((env.pages + p % env.pages) * PAGE);

		if (pwrite(run.fd, buf, sizeof(buf), off) != (ssize_t)sizeof(buf))
			break;
		writes++;
		/* Punch it again now and then so there is always something
		 * to allocate. */
		if (++p % env.pages == 0)
			fallocate(run.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  (off_t)run.len, (off_t)run.len);
	}
	return NULL;
}

/* The faulting threads and the writer alongside; 0 or an exit code. */
static int run_threads(void)
{
	pthread_t writer, *th = calloc(env.threads, sizeof(*th));
	uint64_t started = 0;
	bool writer_started = false;
	int err = 0;

	if (!th)
		return cli_fail_errno(ENOMEM, "threads");
	if (env.writer && (err = pthread_create(&writer, NULL, allocate_blocks, NULL)))
		err = cli_fail_errno(err, "start the writer thread");
	writer_started = env.writer && !err;
	while (!err && started < env.threads) {
		if ((err = pthread_create(&th[started], NULL, fault_pages, (void *)(uintptr_t)started)))
			err = cli_fail_errno(err, "start faulting thread %llu", (unsigned long long)started);
		else
			started++;
	}
	for (uint64_t i = 0; i < started; i++) {
		void *failed = NULL;

		pthread_join(th[i], &failed);
		if (failed && !err)
			err = cli_fail_errno((int)(intptr_t)failed, "fdatasync %s", env.target.path);
	}
	atomic_store(&faulters_done, true);
	if (writer_started)
		pthread_join(writer, NULL);
	free(th);
	if (!err && cli_stop_signal)
		err = cli_fail(EXIT_RUNTIME, "interrupted: %s", strsignal(cli_stop_signal));
	return err;
}

/* Unmap, close and remove what this run created: FILE, FILE.src. */
static void cleanup(void)
{
	if (run.map)
		munmap(run.map, run.len);
	if (run.fd >= 0) {
		close(run.fd);
		unlink(env.target.path);
	}
	if (run.src_fd >= 0) {
		close(run.src_fd);
		unlink(run.src_path);
	}
	free(run.src_path);
}

int main(int argc, char **argv)
{
	int err;

	cli_parse_args(TOOL, opts, parse_arg, argp_program_doc, argc, argv);
	run.len = env.pages * PAGE;
	if (!(err = cli_install_signal_handlers()) && !(err = create_files()) &&
	    !(err = prepare_file()) && !(err = run_threads()))
		printf("syncstress: %llu pages faulted by %llu threads, %lu blocks written alongside\n",
		       (unsigned long long)env.pages, (unsigned long long)env.threads, writes);
	cleanup();
	return err;
}
