// SPDX-License-Identifier: GPL-2.0
/*
 * persistlat: what MAP_SYNC buys an application. The latency of making one
 * small write durable, per write, four ways, on a file of a DAX filesystem:
 *
 *   mapsync         MAP_SYNC mapping: store, flush its cache lines, sfence.
 *                   No system call: the kernel made the block mapping
 *                   durable when the page was faulted in.
 *   msync           MAP_SHARED mapping: store, msync(MS_SYNC) of its pages
 *   pwrite          pwrite(), fdatasync()
 *   mmap-fdatasync  MAP_SHARED mapping: store, fdatasync()
 *
 * Each write is timed with CLOCK_MONOTONIC from before the store to after
 * the persist step. Afterwards the file is read back: the last write at
 * every offset must be there.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include "cli.h"
#include "daxfile.h"
#include "exitcodes.h"
#include "flush.h"
#include "hist.h"
#include "json.h"
#include "mapsync.h"
#include "samples.h"

#define TOOL		"persistlat"
#define JSON_VERSION	1
#define MIN_SIZE	8ULL
#define MAX_SIZE	(1ULL << 20)
#define MAX_SIZES	18		/* the powers of two from 8 to 1 MiB */
#define MAX_WRITES	(1ULL << 24)
#define MAX_REGION	(1ULL << 40)
#define REGION_ALIGN	4096ULL		/* whole pages: msync and mmap work on them */
#define LIST_MAX	256		/* characters of a -m or -b list */

enum method { METHOD_MAPSYNC, METHOD_MSYNC, METHOD_PWRITE, METHOD_MMAP_FDATASYNC, NR_METHODS };
enum pattern { PATTERN_SEQ, PATTERN_RAND };
enum file_state { STATE_WRITTEN, STATE_EMPTY };

static const char *const method_names[] = { "mapsync", "msync", "pwrite", "mmap-fdatasync" };
static const char *const pattern_names[] = { "seq", "rand" };
static const char *const state_names[] = { "written", "empty" };

static struct env {
	struct cli_target target;	/* -f --replace --no-dax-check -v */
	enum method methods[NR_METHODS];
	int nmethods;
	uint64_t sizes[MAX_SIZES];
	int nsizes;
	enum pattern pattern;
	uint64_t seed;
	uint64_t writes;
	uint64_t region;
	enum file_state state;
	int flush;			/* enum flush_insn, -1 until resolved */
	bool nsecs;
	bool hist;
	bool json;
	const char *json_out;
	const char *samples_out;
	bool keep;
} env = {
	.methods = { METHOD_MAPSYNC, METHOD_MSYNC, METHOD_PWRITE, METHOD_MMAP_FDATASYNC },
	.nmethods = NR_METHODS,
	.sizes = { 8, 64, 256, 4096 },
	.nsizes = 4,
	.seed = 1,
	.writes = 1000,
	.region = 16ULL << 20,
	.flush = FLUSH_NONE,
};

/* One method at one size: one row of the table. */
struct row {
	enum method method;
	uint64_t size;
	uint64_t *samples;		/* ns, one per write; sorted once measured */
	uint64_t sum_ns;
	struct stats st;		/* ns */
};

/* Everything the cleanup path must undo, in one place. */
struct run {
	int fd;
	bool file_exists;		/* we created env.target.path: unlink it */
	char *map;
	size_t map_len;
	uint64_t *offsets;		/* of each write, in write order */
	size_t *order;			/* scratch for the read-back */
	char *buf;			/* what a write stores (MAX_SIZE) */
	char *scratch;			/* fill and read-back buffer (MAX_SIZE) */
	struct row *rows;
	size_t nrows;
	size_t page_size;
	unsigned int line;		/* cache line the flush works on */
	bool dax;
	const char *fs_name;
};

const char *argp_program_version = TOOL " 1";
const char argp_program_doc[] =
"Measure the cost of making one small write durable, per write, four ways,\n"
"on a file of a DAX filesystem: mapsync (MAP_SYNC mapping: store, flush the\n"
"cache lines, sfence; no system call), msync (MAP_SHARED mapping: store,\n"
"msync MS_SYNC of its pages), pwrite (pwrite, fdatasync) and mmap-fdatasync\n"
"(MAP_SHARED mapping: store, fdatasync). A fresh file for each method and\n"
"size; afterwards the file is read back and the last write at every offset\n"
"must be there.\n"
"\n"
"USAGE: persistlat -f FILE [-m METHODS] [-b SIZES] [-p seq|rand] [-n N]\n"
"                  [-s written|empty] [--flush clwb|clflushopt|clflush]\n"
"                  [--region BYTES] [-u|-N] [-H] [-j] [-v]\n"
"\n"
"EXAMPLES:\n"
"    persistlat -f /mnt/dax/f            # 4 methods x 8, 64, 256, 4096 B\n"
"    persistlat -f /mnt/dax/f -m mapsync,pwrite -b 8,4K -n 10000\n"
"    persistlat -f /mnt/dax/f -s empty   # first write to a page allocates\n"
"    persistlat -f /mnt/dax/f -p rand --seed 7  # random slots, repeatable\n"
"    persistlat -f /mnt/dax/f --flush clflush -H  # forced flush, histograms\n"
"    persistlat -f /tmp/f --no-dax-check -m msync,pwrite -j  # not DAX, JSON\n"
"\n"
"Exit status: 0 ok, 1 runtime error (a write not read back, interrupted),\n"
"2 usage (a --flush the CPU lacks too), 3 not a DAX file, 4 kernel without\n"
"MAP_SYNC, 5 MAP_SYNC refused (EOPNOTSUPP), 6 no space left (or SIGBUS),\n"
"7 VM_SYNC state differs from the method's, 11 FILE exists (not replaced).\n";

enum {
	OPT_SEED = 256,
	OPT_REGION,
	OPT_FLUSH,
	OPT_JSON_OUT,
	OPT_SAMPLES_OUT,
	OPT_KEEP,
};

static const struct argp_option opts[] = {
	{ "file", 'f', "PATH", 0, "File to create on the DAX filesystem (required); removed at the end", 0 },
	{ "replace", CLI_OPT_REPLACE, NULL, 0, "Remove FILE first if it exists (without it, an existing FILE is refused and left untouched)", 0 },
	{ "no-dax-check", CLI_OPT_NO_DAX_CHECK, NULL, 0, "Run even if the file is not on a DAX mapping (mapsync is then refused: exit 5)", 0 },
	{ "verbose", 'v', NULL, 0, "Progress on stderr", 0 },
	{ "methods", 'm', "LIST", 0, "Comma list of mapsync, msync, pwrite, mmap-fdatasync (default all four, in that order)", 0 },
	{ "sizes", 'b', "LIST", 0, "Comma list of write sizes in bytes, powers of two from 8 to 1M, K/M suffixes (default 8,64,256,4096)", 0 },
	{ "pattern", 'p', "seq|rand", 0, "Offsets: seq (one after the other, wrapping at the region's end; default) or rand (uniformly random size-aligned slots, repeatable: --seed)", 0 },
	{ "seed", OPT_SEED, "N", 0, "Seed of the rand offsets (default 1)", 0 },
	{ "writes", 'n', "N", 0, "Writes per method and size (default 1000)", 0 },
	{ "region", OPT_REGION, "BYTES", 0, "File size, K/M/G suffixes: whole 4 KiB pages, at least the largest size (default 16M)", 0 },
	{ "state", 's', "STATE", 0, "File before mapping: written (allocated and written, default) or empty (holes: the first write to a page allocates its block)", 0 },
	{ "flush", OPT_FLUSH, "INSN", 0, "mapsync's cache flush: clwb, clflushopt or clflush (default the first of them the CPU has)", 0 },
	{ "usecs", 'u', NULL, 0, "Text output in microseconds (default)", 0 },
	{ "nsecs", 'N', NULL, 0, "Text output in nanoseconds", 0 },
	{ "hist", 'H', NULL, 0, "Also print each row's histogram (the MAP_SYNC cover letter's format)", 0 },
	{ "json", 'j', NULL, 0, "JSON output (latencies in ns, histograms in us)", 0 },
	{ "json-out", OPT_JSON_OUT, "FILE", 0, "Also write the JSON document to FILE", 0 },
	{ "samples-out", OPT_SAMPLES_OUT, "FILE", 0, "Also write every write's latency to FILE, in ns, a line per row: "
	  "'METHOD-SIZE NS...' (the regression gate's sample lines, after its prefix)", 0 },
	{ "keep", OPT_KEEP, NULL, 0, "Keep FILE (the last method and size's) after a successful run", 0 },
	CLI_OPT_HELP,
	{ 0 },
};

static int fail_interrupted(void)
{
	return cli_fail(EXIT_RUNTIME, "interrupted: %s", strsignal(cli_stop_signal));
}

/* ---- cache flushing (lib/flush.h) ---- */

static void parse_flush(const char *arg)
{
	int f = cli_choice_arg("--flush", arg, flush_insn_names, FLUSH_NR);

	if (!(flush_cpu_has() & (1U << f)))
		cli_usage_error("invalid --flush '%s': this CPU has no %s (cpuid)", arg, arg);
	env.flush = f;
}

/* The best the CPU has, unless --flush chose. */
static void resolve_flush(void)
{
	if (env.flush == FLUSH_NONE)
		env.flush = flush_best(flush_cpu_has());
}

/* ---- options ---- */

/* Copies @arg for strsep, or refuses it: a list is never that long. */
static char *list_copy(const char *opt, const char *arg, char *copy)
{
	if (strlen(arg) >= LIST_MAX)
		cli_usage_error("invalid %s: longer than %d characters", opt, LIST_MAX - 1);
	return strcpy(copy, arg);
}

static void parse_methods(const char *arg)
{
	char copy[LIST_MAX], *rest = list_copy("--methods", arg, copy), *item;

	env.nmethods = 0;
	while ((item = strsep(&rest, ","))) {
		int m = cli_lookup_name(item, method_names, NR_METHODS);

		if (m < 0)
			cli_usage_error("invalid --methods '%s' (comma list of mapsync, msync, pwrite, mmap-fdatasync)", arg);
		for (int i = 0; i < env.nmethods; i++)
			if (env.methods[i] == (enum method)m)
				cli_usage_error("invalid --methods '%s': %s twice", arg, item);
		env.methods[env.nmethods++] = m;
	}
}

static void parse_sizes(const char *arg)
{
	char copy[LIST_MAX], *rest = list_copy("--sizes", arg, copy), *item;

	env.nsizes = 0;
	while ((item = strsep(&rest, ","))) {
		uint64_t size;

		if (!cli_parse_size(item, MIN_SIZE, MAX_SIZE, &size) || (size & (size - 1)))
			cli_usage_error("invalid --sizes '%s' (comma list of powers of two from 8 to 1M)", arg);
		for (int i = 0; i < env.nsizes; i++)
			if (env.sizes[i] == size)
				cli_usage_error("invalid --sizes '%s': %llu twice", arg,
						(unsigned long long)size);
		/* Distinct powers of two in range: never more than MAX_SIZES. */
		env.sizes[env.nsizes++] = size;
	}
}

/* After the last option: what depends on several of them. */
static void parse_end(void)
{
	uint64_t largest = 0;

	cli_target_end(&env.target);
	for (int i = 0; i < env.nsizes; i++)
		if (env.sizes[i] > largest)
			largest = env.sizes[i];
	if (env.region < largest)
		cli_usage_error("--region %llu is smaller than the largest size, %llu",
				(unsigned long long)env.region, (unsigned long long)largest);
	resolve_flush();
	if (env.flush == FLUSH_NONE)
		cli_usage_error("this CPU has none of clwb, clflushopt, clflush (cpuid)");
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (!cli_target_parse(&env.target, key, arg))
		return 0;
	switch (key) {
	case 'm':
		parse_methods(arg);
		break;
	case 'b':
		parse_sizes(arg);
		break;
	case 'p':
		env.pattern = cli_choice_arg("--pattern", arg, pattern_names, 2);
		break;
	case OPT_SEED:
		if (!cli_parse_u64(arg, 0, 0, UINT64_MAX, &env.seed))
			cli_usage_error("invalid --seed '%s'", arg);
		break;
	case 'n':
		if (!cli_parse_u64(arg, 10, 1, MAX_WRITES, &env.writes))
			cli_usage_error("invalid --writes '%s' (1..%llu)", arg, MAX_WRITES);
		break;
	case OPT_REGION:
		if (!cli_parse_size(arg, REGION_ALIGN, MAX_REGION, &env.region) ||
		    env.region % REGION_ALIGN)
			cli_usage_error("invalid --region '%s' (a multiple of 4K up to 1T)", arg);
		break;
	case 's':
		env.state = cli_choice_arg("--state", arg, state_names, 2);
		break;
	case OPT_FLUSH:
		parse_flush(arg);
		break;
	case 'u':
	case 'N':
		env.nsecs = key == 'N';
		break;
	case 'H':
		env.hist = true;
		break;
	case 'j':
		env.json = true;
		break;
	case OPT_JSON_OUT:
		env.json_out = cli_nonempty_arg("--json-out", arg);
		break;
	case OPT_SAMPLES_OUT:
		env.samples_out = cli_nonempty_arg("--samples-out", arg);
		break;
	case OPT_KEEP:
		env.keep = true;
		break;
	case ARGP_KEY_END:
		parse_end();
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}

/* ---- the file ---- */

/* pread or pwrite all of @len at @off; a read stops at the end of the file. */
static int io_all(int fd, char *buf, size_t len, uint64_t off, bool write)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write ? pwrite(fd, buf + done, len - done, (off_t)(off + done))
				  : pread(fd, buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return write ? ENOSPC : 0;
		done += (size_t)n;
	}
	return 0;
}

/* A new inode for every method and size: no state carries over. */
static int create_fresh_file(struct run *r)
{
	int err;

	if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
	}
	/* Only our own file from the previous row, or when asked. */
	err = cli_target_create(env.target.path, r->file_exists || env.target.replace, &r->fd);
	r->file_exists = !err;
	return err;
}

/* Blocks allocated and written: nothing to allocate or convert later. */
static int fill_region(struct run *r)
{
	if (fallocate(r->fd, 0, 0, (off_t)env.region))
		return cli_fail_errno(errno, "fallocate %s", env.target.path);
	memset(r->scratch, 0xa5, MAX_SIZE);
	for (uint64_t off = 0; off < env.region; off += MAX_SIZE) {
		uint64_t len = env.region - off < MAX_SIZE ? env.region - off : MAX_SIZE;
		int err = io_all(r->fd, r->scratch, len, off, true);

		if (err)
			return cli_fail_errno(err, "write %s", env.target.path);
		if (cli_stop_signal)
			return fail_interrupted();
	}
	return 0;
}

static int prepare_state(struct run *r)
{
	int err;

	if (env.state == STATE_WRITTEN && (err = fill_region(r)))
		return err;
	if (env.state == STATE_EMPTY && ftruncate(r->fd, (off_t)env.region))
		return cli_fail_errno(errno, "ftruncate %s", env.target.path);
	/* Commit size and blocks now, not in the first timed persist. */
	if (fsync(r->fd))
		return cli_fail_errno(errno, "fsync %s", env.target.path);
	return 0;
}

static int check_target(struct run *r)
{
	return daxfile_check(r->fd, env.target.path, env.target.no_dax_check,
			     &r->dax, &r->fs_name);
}

/* ---- mapping ---- */

static bool method_maps(enum method m)
{
	return m != METHOD_PWRITE;
}

/*
 * MAP_SYNC for mapsync only; 4 KiB faults as faultlat's default (EINVAL
 * from madvise: no THP, so no PMD faults either); VM_SYNC exactly there.
 */
static int map_file(struct run *r, enum method m)
{
	bool map_sync = m == METHOD_MAPSYNC;
	int flags = map_sync ? MAP_SHARED_VALIDATE | MAP_SYNC : MAP_SHARED;
	char vm_flags[256];
	bool vm_sync;
	void *map;
	int err;

	map = mmap(NULL, env.region, PROT_READ | PROT_WRITE, flags, r->fd, 0);
	if (map == MAP_FAILED)
		return mapsync_fail_mmap(env.target.path, map_sync, errno);
	r->map = map;
	r->map_len = env.region;
	if (madvise(r->map, r->map_len, MADV_NOHUGEPAGE) && errno != EINVAL)
		return cli_fail_errno(errno, "madvise MADV_NOHUGEPAGE %s", env.target.path);
	if ((err = mapsync_vm_sync(r->map, &vm_sync, vm_flags, sizeof(vm_flags))))
		return err;
	cli_verbose("%s mapping VmFlags:%s", method_names[m], vm_flags);
	return mapsync_expect_vm_sync(env.target.path, map_sync, vm_sync);
}

static void unmap_file(struct run *r)
{
	if (r->map) {
		munmap(r->map, r->map_len);
		r->map = NULL;
	}
}

/* ---- the writes ---- */

/* Word @word of the file as write @index leaves it: both are in it. */
static uint64_t pattern_word(uint64_t index, uint64_t word)
{
	return ((index + 1) << 32) ^ word;
}

static void fill_pattern(char *buf, uint64_t index, uint64_t off, uint64_t size)
{
	uint64_t *w = (uint64_t *)buf;

	for (uint64_t j = 0; j < size / 8; j++)
		w[j] = pattern_word(index, off / 8 + j);
}

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Uniform in [0, n): draws past the last whole multiple of n are redrawn. */
static uint64_t random_below(uint64_t *s, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = xorshift64(s);
	while (x >= limit);
	return x % n;
}

/* splitmix64: nearby seeds give unrelated xorshift states. */
static uint64_t seed_state(uint64_t seed)
{
	uint64_t x = seed + 0x9e3779b97f4a7c15ULL;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x ? x : 1;	/* xorshift stays at 0 forever */
}

/* The same offsets for every method of a size: rows stay comparable. */
static void make_offsets(struct run *r, uint64_t size)
{
	uint64_t slots = env.region / size, state = seed_state(env.seed);

	for (uint64_t i = 0; i < env.writes; i++) {
		uint64_t slot = env.pattern == PATTERN_SEQ ? i % slots : random_below(&state, slots);

		r->offsets[i] = slot * size;
	}
}

/* One write of @size bytes at @off, made durable by @m. 0 or an errno. */
static int persist_write(struct run *r, enum method m, uint64_t off, uint64_t size)
{
	uint64_t start, end;
	int err;

	switch (m) {
	case METHOD_MAPSYNC:
		memcpy(r->map + off, r->buf, size);
		flush_range(env.flush, r->line, r->map + off, size);
		return 0;
	case METHOD_MSYNC:
		memcpy(r->map + off, r->buf, size);
		start = off & ~(uint64_t)(r->page_size - 1);
		end = (off + size + r->page_size - 1) & ~(uint64_t)(r->page_size - 1);
		return msync(r->map + start, end - start, MS_SYNC) ? errno : 0;
	case METHOD_PWRITE:
		if ((err = io_all(r->fd, r->buf, size, off, true)))
			return err;
		return fdatasync(r->fd) ? errno : 0;
	case METHOD_MMAP_FDATASYNC:
		memcpy(r->map + off, r->buf, size);
		return fdatasync(r->fd) ? errno : 0;
	default:
		return EINVAL;
	}
}

static uint64_t timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

/* One sample per write: from before the store to after the persist step. */
static int time_writes(struct run *r, struct row *row)
{
	volatile uint64_t i = 0;
	struct timespec t0, t1;

	if (sigsetjmp(cli_sigbus_jump, 1)) {
		cli_sigbus_armed = 0;
		return cli_fail(EXIT_NO_SPACE,
				"store to offset %llu of %s: SIGBUS: no block could be allocated (filesystem full?)",
				(unsigned long long)r->offsets[i], env.target.path);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);	/* warm the vDSO path */
	for (i = 0; i < env.writes; i++) {
		uint64_t off = r->offsets[i];
		int err;

		fill_pattern(r->buf, i, off, row->size);
		cli_sigbus_armed = 1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		err = persist_write(r, row->method, off, row->size);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		cli_sigbus_armed = 0;
		if (err)
			return cli_fail_errno(err, "%s of %llu bytes at offset %llu of %s",
					      method_names[row->method], (unsigned long long)row->size,
					      (unsigned long long)off, env.target.path);
		if (cli_stop_signal)
			return fail_interrupted();
		row->samples[i] = timespec_ns(&t1) - timespec_ns(&t0);
		row->sum_ns += row->samples[i];
	}
	return 0;
}

/* ---- read-back ---- */

/* By offset, and the last write first among those at the same offset. */
static int cmp_last_first(const void *a, const void *b, void *offsets)
{
	const uint64_t *off = offsets;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (off[i] != off[j])
		return off[i] < off[j] ? -1 : 1;
	return i < j ? 1 : i > j ? -1 : 0;
}

/* Is write @i, the last at its offset, in the file? */
static int check_write(struct run *r, const struct row *row, size_t i)
{
	const uint64_t *got = (const uint64_t *)r->scratch;
	const uint64_t *want = (const uint64_t *)r->buf;
	uint64_t off = r->offsets[i];
	int err;

	memset(r->scratch, 0, row->size);	/* past the end reads as zeroes */
	if ((err = io_all(r->fd, r->scratch, row->size, off, false)))
		return cli_fail_errno(err, "read back %s", env.target.path);
	fill_pattern(r->buf, i, off, row->size);
	for (uint64_t j = 0; j < row->size / 8; j++)
		if (got[j] != want[j])
			return cli_fail(EXIT_RUNTIME, "%s %llu B: offset %llu of %s holds 0x%016llx after the run, "
					"want 0x%016llx (write %zu)", method_names[row->method],
					(unsigned long long)row->size,
					(unsigned long long)(off + j * 8), env.target.path,
					(unsigned long long)got[j], (unsigned long long)want[j], i);
	return 0;
}

/* The persist step must at least have left the data in the file. */
static int verify_row(struct run *r, const struct row *row)
{
	size_t n = env.writes;

	for (size_t k = 0; k < n; k++)
		r->order[k] = k;
	qsort_r(r->order, n, sizeof(*r->order), cmp_last_first, r->offsets);
	for (size_t k = 0; k < n; k++) {
		size_t i = r->order[k];
		int err;

		/* Overwritten by a later write at the same offset. */
		if (k > 0 && r->offsets[r->order[k - 1]] == r->offsets[i])
			continue;
		if ((err = check_write(r, row, i)))
			return err;
	}
	return 0;
}

static int measure_row(struct run *r, struct row *row, bool first)
{
	int err;

	if (cli_stop_signal)
		return fail_interrupted();
	if ((!first && (err = create_fresh_file(r))) || (err = prepare_state(r)))
		return err;
	make_offsets(r, row->size);
	if (method_maps(row->method) && (err = map_file(r, row->method)))
		return err;
	if ((err = time_writes(r, row)))
		return err;
	unmap_file(r);
	if ((err = verify_row(r, row)))
		return err;
	stats_compute(row->samples, env.writes, 1, &row->st);
	cli_verbose("%s %llu B: %llu writes, median %llu ns, max %llu ns",
		    method_names[row->method], (unsigned long long)row->size,
		    (unsigned long long)env.writes, (unsigned long long)row->st.median,
		    (unsigned long long)row->st.max);
	return 0;
}

/* ---- output ---- */

/* This row's median over the mapsync row's of its size, or -1: none. */
static double ratio_vs_mapsync(const struct run *r, const struct row *row)
{
	for (size_t k = 0; k < r->nrows; k++) {
		const struct row *m = &r->rows[k];

		if (m->method == METHOD_MAPSYNC && m->size == row->size)
			return m->st.median ? (double)row->st.median / (double)m->st.median : -1;
	}
	return -1;
}

/* Writes per second over the time spent in them; NaN when none was. */
static double writes_per_sec(const struct row *row)
{
	return row->sum_ns ? (double)env.writes * 1e9 / (double)row->sum_ns : NAN;
}

static void kernel_release(char *buf, size_t len)
{
	struct utsname uts;

	snprintf(buf, len, "%s", uname(&uts) ? "unknown" : uts.release);
}

/* Fractions of a MB/s too (8-byte writes): digits down to 4 decimals. */
static void format_rate(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", v >= 100 ? 0 : v >= 1 ? 2 : 4, v);
}

static void print_row(const struct run *r, const struct row *row, uint64_t div)
{
	double wps = writes_per_sec(row), ratio = ratio_vs_mapsync(r, row);
	char ratio_text[32] = "-", wps_text[32], mbps_text[32];

	if (ratio >= 0)
		snprintf(ratio_text, sizeof(ratio_text), "%.1f", ratio);
	format_rate(wps_text, sizeof(wps_text), wps);
	format_rate(mbps_text, sizeof(mbps_text), wps * (double)row->size / 1e6);
	printf("%-14s %7llu %8llu %8llu %8llu %8llu %8llu %10s %9s %9s\n",
	       method_names[row->method], (unsigned long long)row->size,
	       (unsigned long long)(row->st.min / div), (unsigned long long)(row->st.median / div),
	       (unsigned long long)(row->st.p99 / div), (unsigned long long)(row->st.p999 / div),
	       (unsigned long long)(row->st.max / div), wps_text, mbps_text, ratio_text);
}

/* "method size B:" and the cover letter's table, in the text's unit. */
static void print_row_hist(const struct row *row, uint64_t div)
{
	struct stats st;
	struct hist h;

	hist_init(&h);
	hist_add_samples(&h, row->samples, env.writes, div);
	stats_compute(row->samples, env.writes, div, &st);
	printf("\n%s %llu B:\n", method_names[row->method], (unsigned long long)row->size);
	hist_print_letter(stdout, &st, &h, env.nsecs ? "ns" : "us");
}

static int print_text(const struct run *r)
{
	uint64_t div = env.nsecs ? 1 : 1000;
	char kernel[128];

	kernel_release(kernel, sizeof(kernel));
	printf("kernel %s, fs %s, dax %s, state %s, pattern %s", kernel, r->fs_name,
	       r->dax ? "yes" : "no", state_names[env.state], pattern_names[env.pattern]);
	if (env.pattern == PATTERN_RAND)
		printf(" (seed %llu)", (unsigned long long)env.seed);
	printf(", %llu writes per row, region %llu B, flush %s, latencies in %s\n",
	       (unsigned long long)env.writes, (unsigned long long)env.region,
	       flush_insn_names[env.flush], env.nsecs ? "ns" : "us");
	printf("%-14s %7s %8s %8s %8s %8s %8s %10s %9s %9s\n", "method", "size", "min",
	       "median", "p99", "p99.9", "max", "writes/s", "MB/s", "x mapsync");
	for (size_t k = 0; k < r->nrows; k++)
		print_row(r, &r->rows[k], div);
	for (size_t k = 0; env.hist && k < r->nrows; k++)
		print_row_hist(&r->rows[k], div);
	printf("note: under an emulator (QEMU TCG) cache flushes cost nothing and the media is DRAM: "
	       "the mapsync row shows the software cost (page faults, syscalls avoided), "
	       "not real persistent-memory write latency\n");
	if (fflush(stdout) || ferror(stdout))
		return cli_fail_errno(errno ? errno : EIO, "write stdout");
	return 0;
}

/* The histogram in us, like faultlat's. */
static void json_hist(struct json_writer *w, const struct row *row)
{
	struct hist h;

	hist_init(&h);
	hist_add_samples(&h, row->samples, env.writes, 1000);
	hist_json(w, &h);
}

static void json_row(struct json_writer *w, const struct run *r, const struct row *row)
{
	double wps = writes_per_sec(row), ratio = ratio_vs_mapsync(r, row);

	json_begin_object(w);
	json_kv_string(w, "method", method_names[row->method]);
	json_kv_uint(w, "size", row->size);
	json_kv_uint(w, "writes", env.writes);
	json_kv_uint(w, "min", row->st.min);
	json_kv_uint(w, "avg", row->st.avg);
	json_kv_uint(w, "median", row->st.median);
	json_kv_uint(w, "p99", row->st.p99);
	json_kv_uint(w, "p999", row->st.p999);
	json_kv_uint(w, "max", row->st.max);
	json_kv_double(w, "writes_per_sec", wps);
	json_kv_double(w, "bytes_per_sec", wps * (double)row->size);
	json_key(w, "ratio_vs_mapsync");
	if (ratio >= 0)
		json_double(w, ratio);
	else
		json_null(w);
	json_hist(w, row);
	json_end_object(w);
}

static int print_json(const struct run *r, FILE *out)
{
	struct json_writer w;
	char kernel[128];

	kernel_release(kernel, sizeof(kernel));
	json_init(&w, out);
	json_begin_object(&w);
	json_kv_string(&w, "tool", TOOL);
	json_kv_uint(&w, "version", JSON_VERSION);
	json_kv_string(&w, "kernel", kernel);
	json_kv_string(&w, "fs", r->fs_name);
	json_kv_string(&w, "path", env.target.path);
	json_kv_bool(&w, "dax", r->dax);
	json_kv_string(&w, "state", state_names[env.state]);
	json_kv_string(&w, "pattern", pattern_names[env.pattern]);
	json_kv_uint(&w, "seed", env.seed);
	json_kv_uint(&w, "writes", env.writes);
	json_kv_uint(&w, "region", env.region);
	json_kv_string(&w, "flush", flush_insn_names[env.flush]);
	json_kv_string(&w, "unit", "ns");
	json_key(&w, "rows");
	json_begin_array(&w);
	for (size_t k = 0; k < r->nrows; k++)
		json_row(&w, r, &r->rows[k]);
	json_end_array(&w);
	json_end_object(&w);
	return cli_json_finish(&w);
}

static int write_json_file(const struct run *r)
{
	FILE *out = fopen(env.json_out, "w");
	int err;

	if (!out)
		return cli_fail_errno(errno, "open %s", env.json_out);
	err = print_json(r, out);
	if (fclose(out) && !err)
		err = cli_fail_errno(errno, "close %s", env.json_out);
	return err;
}

/* One line of samples per row, named METHOD-SIZE. */
static int write_samples_file(const struct run *r)
{
	FILE *out = fopen(env.samples_out, "w");

	if (!out)
		return cli_fail_errno(errno, "open %s", env.samples_out);
	for (size_t k = 0; k < r->nrows; k++) {
		char name[64];

		snprintf(name, sizeof(name), "%s-%llu", method_names[r->rows[k].method],
			 (unsigned long long)r->rows[k].size);
		samples_line(out, name, r->rows[k].samples, env.writes);
	}
	/* Both run: a write error must not leak the stream. */
	if (ferror(out) | fclose(out))
		return cli_fail_errno(errno ? errno : EIO, "write %s", env.samples_out);
	return 0;
}

/* ---- main ---- */

/* Rows by size, then by method; every buffer touched before timing. */
static int alloc_run(struct run *r)
{
	size_t n = env.writes;

	r->page_size = (size_t)sysconf(_SC_PAGESIZE);
	r->line = flush_line_size();
	r->nrows = (size_t)env.nsizes * (size_t)env.nmethods;
	r->rows = calloc(r->nrows, sizeof(*r->rows));
	r->offsets = calloc(n, sizeof(*r->offsets));
	r->order = calloc(n, sizeof(*r->order));
	r->buf = aligned_alloc(4096, MAX_SIZE);
	r->scratch = aligned_alloc(4096, MAX_SIZE);
	if (!r->rows || !r->offsets || !r->order || !r->buf || !r->scratch)
		return cli_fail_errno(ENOMEM, "allocate buffers for %zu writes", n);
	memset(r->buf, 0, MAX_SIZE);
	for (size_t k = 0; k < r->nrows; k++) {
		struct row *row = &r->rows[k];

		row->size = env.sizes[k / (size_t)env.nmethods];
		row->method = env.methods[k % (size_t)env.nmethods];
		row->samples = calloc(n, sizeof(*row->samples));
		if (!row->samples)
			return cli_fail_errno(ENOMEM, "allocate %zu samples", n);
		memset(row->samples, 0, n * sizeof(*row->samples));
	}
	return 0;
}

static void free_run(struct run *r)
{
	for (size_t k = 0; r->rows && k < r->nrows; k++)
		free(r->rows[k].samples);
	free(r->rows);
	free(r->offsets);
	free(r->order);
	free(r->buf);
	free(r->scratch);
}

int main(int argc, char **argv)
{
	struct run r = { .fd = -1, .fs_name = "unknown" };
	int err;

	cli_parse_args(TOOL, opts, parse_arg, argp_program_doc, argc, argv);
	if ((err = cli_install_signal_handlers()) || (err = alloc_run(&r)) ||
	    (err = create_fresh_file(&r)) || (err = check_target(&r)))
		goto cleanup;
	cli_verbose("flush %s, cache line %u bytes", flush_insn_names[env.flush], r.line);
	for (size_t k = 0; k < r.nrows && !err; k++)
		err = measure_row(&r, &r.rows[k], k == 0);
	if (err)
		goto cleanup;
	err = env.json ? print_json(&r, stdout) : print_text(&r);
	if (!err && env.json_out)
		err = write_json_file(&r);
	if (!err && env.samples_out)
		err = write_samples_file(&r);

cleanup:
	unmap_file(&r);
	if (r.fd >= 0)
		close(r.fd);
	if (r.file_exists && (err || !env.keep))
		unlink(env.target.path);
	free_run(&r);
	return err;
}
