// SPDX-License-Identifier: GPL-2.0
/* mmap() and msync() of the process, PMDK's included; the pool every PMDK
 * client makes (pmdk_shim.h). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "cli.h"
#include "exitcodes.h"
#include "mapsync.h"
#include "pmdk_shim.h"

bool pmdk_shim_refuse_map_sync;

#define MAPS 32
static struct map_rec {
	uintptr_t start, end;
	int flags;
} maps[MAPS];
static unsigned int nmaps;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_ulong msyncs;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	void *p;

	if (!real && !(real = (void *(*)(void *, size_t, int, int, int, off_t))
		       dlsym(RTLD_NEXT, "mmap"))) {
		errno = ENOSYS;
		return MAP_FAILED;
	}
	if (pmdk_shim_refuse_map_sync && (flags & MAP_SYNC)) {
		errno = EOPNOTSUPP;
		return MAP_FAILED;
	}
	p = real(addr, len, prot, flags, fd, off);
	/* Only file mappings that succeeded: what holds the pool. */
	if (p != MAP_FAILED && fd >= 0) {
		pthread_mutex_lock(&maps_lock);
		maps[nmaps++ % MAPS] = (struct map_rec){ (uintptr_t)p, (uintptr_t)p + len, flags };
		pthread_mutex_unlock(&maps_lock);
	}
	return p;
}

int msync(void *addr, size_t len, int flags)
{
	static int (*real)(void *, size_t, int);

	if (!real && !(real = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "msync"))) {
		errno = ENOSYS;
		return -1;
	}
	atomic_fetch_add(&msyncs, 1);
	return real(addr, len, flags);
}

unsigned long pmdk_shim_msyncs(void)
{
	return atomic_load(&msyncs);
}

/* The flags of the latest file mapping that holds @addr, or -1. */
static int map_flags_of(const void *addr)
{
	int flags = -1;

	pthread_mutex_lock(&maps_lock);
	for (unsigned int i = nmaps; i > 0 && i + MAPS > nmaps; i--) {
		const struct map_rec *m = &maps[(i - 1) % MAPS];

		if ((uintptr_t)addr >= m->start && (uintptr_t)addr < m->end) {
			flags = m->flags;
			break;
		}
	}
	pthread_mutex_unlock(&maps_lock);
	return flags;
}

/* The start of the VMA holding @addr (/proc/self/maps), or 0. */
static uintptr_t vma_start(const void *addr)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long start, end, found = 0;
	char line[512];

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    (uintptr_t)addr >= start && (uintptr_t)addr < end)
			found = start;
	fclose(f);
	return found;
}

int pmdk_shim_decision(const void *addr, const char *path, bool *map_sync, bool *vm_sync)
{
	uintptr_t start = vma_start(addr);
	int flags = map_flags_of(addr);

	if (!start || flags < 0)
		return cli_fail(EXIT_RUNTIME, "%s: no file mapping holds the pool at %p", path, addr);
	*map_sync = flags & MAP_SYNC;
	return mapsync_vm_sync((void *)start, vm_sync, NULL, 0);
}

int pmdk_fail(const char *what, const char *path)
{
	int err = errno ? errno : EIO;
	const char *msg = pmemobj_errormsg();

	return cli_fail(cli_exit_code(err), "%s %s: %s", what, path, msg && *msg ? msg : strerror(err));
}

int pmdk_pool_create(const char *path, const char *layout, int fd, uint64_t size, PMEMobjpool **pop)
{
	int err = posix_fallocate(fd, 0, (off_t)size);

	close(fd);
	if (err)
		return cli_fail_errno(err, "fallocate %s", path);
	if (!(*pop = pmemobj_create(path, layout, 0, 0)))
		return pmdk_fail("pmemobj_create", path);
	return 0;
}
