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
 *
 * Thread i stores to pages i, i+T, i+2T, ... of a MAP_SHARED_VALIDATE|
 * MAP_SYNC mapping of the first PAGES pages (MADV_NOHUGEPAGE: PTE faults);
 * the writer pwrite()s 4 KiB blocks into the next PAGES pages until the
 * faulting threads are done. The file is removed at the end.
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
 * Exit status (lib/exitcodes.h): 0 ok, 1 runtime error, 2 usage,
 * 4 no MAP_SYNC in this kernel, 5 MAP_SYNC refused for this file (or no
 * reflink on this filesystem).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/fs.h>

#include "exitcodes.h"
#include "mapsync.h"	/* its defines only: syncstress links no lib objects */

#define PAGE 4096UL

static struct {
	const char *path;
	unsigned long threads, pages;
	bool writer, written, reflinked, read_first, datasync;
} env = { .threads = 4, .pages = 256, .writer = true };

static char *map;
static int fd = -1, src_fd = -1;
static char src_path[4096];
static atomic_bool faulters_done;
static unsigned long writes;

struct worker {
	pthread_t th;
	unsigned long id;
};

static void *fault_pages(void *arg)
{
	struct worker *w = arg;

	for (unsigned long p = w->id; p < env.pages; p += env.threads) {
		volatile char *c = (volatile char *)(map + p * PAGE);

		if (env.read_first)
			(void)*c;	/* a volatile read: the read fault happens */
		*c = (char)(p | 1);
		if (env.datasync) {
			if (fdatasync(fd))
				return (void *)1;
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
	for (unsigned long p = 0; p < env.pages; p++)
		if (pwrite(to, buf, sizeof(buf), (off_t)(p * PAGE)) != (ssize_t)sizeof(buf))
			return -1;
	return 0;
}

/* --state reflinked: FILE shares every block of FILE.src, both durable,
 * so the faults find shared extents and an inode with nothing to sync.
 * The source stays until the end: its blocks stay shared. Returns an exit
 * status. */
static int reflink_pages(void)
{
	snprintf(src_path, sizeof(src_path), "%s.src", env.path);
	src_fd = open(src_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (src_fd < 0 || ftruncate(src_fd, (off_t)(2 * env.pages * PAGE)) || write_pages(src_fd) ||
	    fsync(src_fd)) {
		fprintf(stderr, "syncstress: %s: %s\n", src_path, strerror(errno));
		return errno == ENOSPC ? EXIT_NO_SPACE : EXIT_RUNTIME;
	}
	if (ioctl(fd, FICLONE, src_fd)) {
		fprintf(stderr, "syncstress: FICLONE %s: %s\n", src_path, strerror(errno));
		return errno == EOPNOTSUPP || errno == EINVAL || errno == EXDEV ?
		       EXIT_SYNC_REFUSED : EXIT_RUNTIME;
	}
	if (fsync(fd)) {
		fprintf(stderr, "syncstress: fsync: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* Allocate blocks of the same inode through the write path, in the half of
 * the file that is not mapped, until the faulting threads are done. */
static void *allocate_blocks(void *arg)
{
	char buf[PAGE];
	unsigned long p = 0;

	(void)arg;
	memset(buf, 0x5a, sizeof(buf));
	while (!atomic_load(&faulters_done)) {
		off_t off = (off_t)((env.pages + p % env.pages) * PAGE);

		if (pwrite(fd, buf, sizeof(buf), off) != (ssize_t)sizeof(buf))
			break;
		writes++;
		/* Punch it again now and then so there is always something
		 * to allocate. */
		if (++p % env.pages == 0)
			fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  (off_t)(env.pages * PAGE), (off_t)(env.pages * PAGE));
	}
	return NULL;
}

#define USAGE "usage: syncstress -f FILE [-t THREADS] [-n PAGES] [--no-writer]\n" \
	      "                  [--state empty|written|reflinked] [--read-first] [--fdatasync]\n"

static int usage(const char *msg)
{
	fprintf(stderr, "syncstress: %s\n%s", msg, USAGE);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "threads", required_argument, NULL, 't' },
		{ "pages", required_argument, NULL, 'n' },
		{ "no-writer", no_argument, NULL, 'W' },
		{ "state", required_argument, NULL, 'S' },
		{ "read-first", no_argument, NULL, 'R' },
		{ "fdatasync", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct worker *w = NULL;
	pthread_t writer;
	bool writer_started = false;
	int c, ret = EXIT_RUNTIME;
	size_t len;

	while ((c = getopt_long(argc, argv, "f:t:n:h", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'f':
			env.path = optarg;
			break;
		case 't':
			env.threads = strtoul(optarg, &end, 10);
			if (*end || !env.threads || env.threads > 256)
				return usage("invalid --threads (1..256)");
			break;
		case 'n':
			env.pages = strtoul(optarg, &end, 10);
			if (*end || !env.pages || env.pages > (1UL << 20))
				return usage("invalid --pages (1..1048576)");
			break;
		case 'W':
			env.writer = false;
			break;
		case 'S':
			if (strcmp(optarg, "empty") && strcmp(optarg, "written") &&
			    strcmp(optarg, "reflinked"))
				return usage("invalid --state (empty, written or reflinked)");
			env.written = !strcmp(optarg, "written");
			env.reflinked = !strcmp(optarg, "reflinked");
			break;
		case 'R':
			env.read_first = true;
			break;
		case 'D':
			env.datasync = true;
			break;
		case 'h':
			printf("%s", USAGE);
			return EXIT_OK;
		default:
			return usage("bad option");
		}
	}
	if (!env.path || optind != argc)
		return usage("-f FILE is required, no other arguments");

	len = env.pages * PAGE;
	fd = open(env.path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "syncstress: %s: %s\n", env.path, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (ftruncate(fd, (off_t)(2 * len))) {
		fprintf(stderr, "syncstress: ftruncate: %s\n", strerror(errno));
		goto out;
	}
	if (env.written && write_pages(fd)) {
		fprintf(stderr, "syncstress: write: %s\n", strerror(errno));
		ret = errno == ENOSPC ? EXIT_NO_SPACE : EXIT_RUNTIME;
		goto out;
	}
	if (env.reflinked && (ret = reflink_pages()) != EXIT_OK)
		goto out;
	ret = EXIT_RUNTIME;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		fprintf(stderr, "syncstress: mmap MAP_SYNC: %s\n", strerror(errno));
		ret = errno == EINVAL ? EXIT_NO_MAP_SYNC : errno == EOPNOTSUPP ? EXIT_SYNC_REFUSED : EXIT_RUNTIME;
		goto out;
	}
	if (madvise(map, len, MADV_NOHUGEPAGE))
		fprintf(stderr, "syncstress: warning: MADV_NOHUGEPAGE: %s\n", strerror(errno));
	w = calloc(env.threads, sizeof(*w));
	if (!w)
		goto out;
	if (env.writer) {
		if (pthread_create(&writer, NULL, allocate_blocks, NULL))
			goto out;
		writer_started = true;
	}
	for (unsigned long i = 0; i < env.threads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].th, NULL, fault_pages, &w[i])) {
			env.threads = i;
			break;
		}
	}
	ret = EXIT_OK;
	for (unsigned long i = 0; i < env.threads; i++) {
		void *failed = NULL;

		pthread_join(w[i].th, &failed);
		if (failed)
			ret = EXIT_RUNTIME;
	}
	atomic_store(&faulters_done, true);
	if (writer_started)
		pthread_join(writer, NULL);
	if (ret != EXIT_OK)
		fprintf(stderr, "syncstress: fdatasync: failed\n");
	else
		printf("syncstress: %lu pages faulted by %lu threads, %lu blocks written alongside\n",
		       env.pages, env.threads, writes);
out:
	if (map)
		munmap(map, len);
	free(w);
	close(fd);
	unlink(env.path);
	if (src_fd >= 0) {
		close(src_fd);
		unlink(src_path);
	}
	return ret;
}
