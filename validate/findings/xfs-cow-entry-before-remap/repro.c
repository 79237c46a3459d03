/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reproducer of xfs-cow-entry-before-remap: MAP_SYNC stores to a reflinked
 * xfs file (-o dax) are lost in a crash. Standalone: no BPF, no suite.
 *
 *   repro setup DIR      DIR/src: PAGES pages of 0x5a, fsynced; DIR/dst its
 *                        FICLONE, fsynced: every block of dst shared
 *   repro write DIR N    maps DIR/dst MAP_SHARED_VALIDATE | MAP_SYNC, stores
 *                        page i's pattern into pages 0..N-1 (one store per
 *                        page, each followed by clflush + sfence, then a
 *                        line "stored i" on stdout), then crashes the
 *                        machine (sysrq c; --no-crash: it does not)
 *   repro verify DIR N   after the reboot: pages 0..N-1 of DIR/dst must
 *                        hold their pattern; exit 1 naming each lost page
 *
 * MAP_SYNC promises that a page stored through the mapping and flushed from
 * the CPU cache survives a crash. On the kernels with the bug, a write fault
 * on a shared block installs the writable PTE before the copy-on-write
 * remap is committed (fs/dax.c dax_fault_is_synchronous() looks at
 * IOMAP_F_DIRTY only), so the last page stored before the crash often
 * reads back as the source's 0x5a.
 *
 * Build: cc -O2 -Wall -o repro repro.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif

#define PAGE 4096
#define PAGES 64
#define MAGIC 0x6d617073796e6321ULL	/* "mapsync!" */

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "repro: %s %s: %s\n", what, path, strerror(errno));
	return 2;
}

static int setup(const char *dir)
{
	char src[4096], dst[4096], buf[PAGE];
	int s, d;

	snprintf(src, sizeof(src), "%s/src", dir);
	snprintf(dst, sizeof(dst), "%s/dst", dir);
	memset(buf, 0x5a, sizeof(buf));
	s = open(src, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (s < 0)
		return fail("create", src);
	for (int i = 0; i < PAGES; i++)
		if (write(s, buf, PAGE) != PAGE)
			return fail("write", src);
	if (fsync(s))
		return fail("fsync", src);
	d = open(dst, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (d < 0)
		return fail("create", dst);
	if (ioctl(d, FICLONE, s))
		return fail("FICLONE (mkfs.xfs -m reflink=1?) into", dst);
	if (fsync(d))
		return fail("fsync", dst);
	close(s);
	close(d);
	printf("set up %s: %d shared pages\n", dst, PAGES);
	return 0;
}

static void pattern(uint64_t *p, int page)
{
	p[0] = MAGIC;
	p[1] = page;
}

static int write_pages(const char *dir, int n, int crash)
{
	char dst[4096];
	char *map;
	int d;

	snprintf(dst, sizeof(dst), "%s/dst", dir);
	d = open(dst, O_RDWR);
	if (d < 0)
		return fail("open", dst);
	map = mmap(NULL, (size_t)PAGES * PAGE, PROT_READ | PROT_WRITE,
		   MAP_SHARED_VALIDATE | MAP_SYNC, d, 0);
	if (map == MAP_FAILED)
		return fail("mmap MAP_SYNC (not -o dax?)", dst);
	for (int i = 0; i < n; i++) {
		char *p = map + (size_t)i * PAGE;

		pattern((uint64_t *)p, i);
		asm volatile("clflush %0" : "+m"(*(volatile char *)p));
		asm volatile("sfence" ::: "memory");
		printf("stored %d\n", i);
		fflush(stdout);
	}
	if (crash) {
		int t = open("/proc/sysrq-trigger", O_WRONLY);

		/* No sync(): it would force the log, and the remap with it. */
		if (t < 0 || write(t, "c", 1) != 1)
			return fail("crash through", "/proc/sysrq-trigger");
	}
	return 0;
}

static int verify(const char *dir, int n)
{
	char dst[4096];
	uint64_t want[2], got[2];
	int d, lost = 0;

	snprintf(dst, sizeof(dst), "%s/dst", dir);
	d = open(dst, O_RDONLY);
	if (d < 0)
		return fail("open", dst);
	for (int i = 0; i < n; i++) {
		pattern(want, i);
		if (pread(d, got, sizeof(got), (off_t)i * PAGE) != sizeof(got))
			return fail("read", dst);
		if (memcmp(want, got, sizeof(got))) {
			printf("page %d: lost (reads %#llx, the source's data)\n", i,
			       (unsigned long long)got[0]);
			lost++;
		}
	}
	printf("%d of %d stored pages lost\n", lost, n);
	return lost ? 1 : 0;
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[3]) : 0;

	if (argc == 3 && !strcmp(argv[1], "setup"))
		return setup(argv[2]);
	if (argc >= 4 && n > 0 && n <= PAGES && !strcmp(argv[1], "write"))
		return write_pages(argv[2], n, !(argc > 4 && !strcmp(argv[4], "--no-crash")));
	if (argc == 4 && n > 0 && n <= PAGES && !strcmp(argv[1], "verify"))
		return verify(argv[2], n);
	fprintf(stderr, "usage: repro setup DIR | repro write DIR N [--no-crash] | repro verify DIR N "
		"(1 <= N <= %d)\n", PAGES);
	return 2;
}
