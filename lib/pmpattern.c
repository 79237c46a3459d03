// SPDX-License-Identifier: GPL-2.0
/* The crash test's self-describing page pattern; see pmpattern.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pmpattern.h"

#define FNV64_OFFSET	0xcbf29ce484222325ULL
#define FNV64_PRIME	0x100000001b3ULL
#define GOLDEN64	0x9e3779b97f4a7c15ULL

static const char *const class_names[PMP_NR_CLASSES] = {
	[PMP_OK] = "ok",
	[PMP_ZERO] = "zero",
	[PMP_STALE] = "stale",
	[PMP_MISPLACED] = "misplaced",
	[PMP_TORN] = "torn",
	[PMP_GARBAGE] = "garbage",
	[PMP_BEYOND_EOF] = "beyond_eof",
	[PMP_NOFILE] = "nofile",
};

const char *pmp_class_name(enum pmp_class c)
{
	return (unsigned int)c < PMP_NR_CLASSES ? class_names[c] : "invalid";
}

uint64_t pmp_fnv1a64(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = FNV64_OFFSET;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= FNV64_PRIME;
	}
	return h;
}

uint64_t pmp_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += GOLDEN64);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t pmp_run_id(uint64_t seed, uint64_t generation, uint64_t writer)
{
	uint64_t s = seed, id;

	id = pmp_splitmix64(&s);
	s = id ^ generation;
	id = pmp_splitmix64(&s);
	s = id ^ writer;
	id = pmp_splitmix64(&s);
	return id ? id : GOLDEN64;
}

struct pmp_key pmp_ident_key(const struct pmp_ident *id)
{
	return (struct pmp_key){
		.run_id = pmp_run_id(id->seed, id->generation, id->writer),
		.generation = id->generation,
		.pages = id->pages,
	};
}

bool pmp_ident_option(struct pmp_ident *id, int key, const char *arg)
{
	switch (key) {
	case 'n':
		if (!cli_parse_u64(arg, 0, 1, PMP_MAX_PAGES, &id->pages))
			cli_usage_error("invalid --pages '%s' (1..%llu)", arg, PMP_MAX_PAGES);
		return true;
	case 's':
		if (!cli_parse_u64(arg, 0, 0, UINT64_MAX, &id->seed))
			cli_usage_error("invalid --seed '%s'", arg);
		return true;
	case 'g':
		if (!cli_parse_u64(arg, 0, 0, UINT64_MAX, &id->generation))
			cli_usage_error("invalid --generation '%s'", arg);
		return true;
	case 'w':
		if (!cli_parse_u64(arg, 0, 0, UINT64_MAX, &id->writer))
			cli_usage_error("invalid --writer '%s'", arg);
		return true;
	default:
		return false;
	}
}

void pmp_ident_check_count(const struct pmp_ident *id, const char *opt, uint64_t count)
{
	if (count > id->pages)
		cli_usage_error("%s %llu is beyond --pages %llu", opt,
				(unsigned long long)count, (unsigned long long)id->pages);
}

#define IDENT_FORMAT "pmwrite-ident pages=%" SCNu64 " seed=%" SCNu64 " generation=%" SCNu64 " writer=%" SCNu64

int pmp_ident_save(int dir_fd, const char *file_name, const struct pmp_ident *id)
{
	char tmp[PATH_MAX], final[PATH_MAX];
	int fd, err = 0;
	FILE *f;

	if (snprintf(final, sizeof(final), "%s.ident", file_name) >= (int)sizeof(final) ||
	    snprintf(tmp, sizeof(tmp), "%s.ident.tmp", file_name) >= (int)sizeof(tmp))
		return ENAMETOOLONG;
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		return err;
	}
	fprintf(f, "pmwrite-ident pages=%" PRIu64 " seed=%" PRIu64 " generation=%" PRIu64
		" writer=%" PRIu64 "\n", id->pages, id->seed, id->generation, id->writer);
	if (fflush(f) || fsync(fd))
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	if (!err && renameat(dir_fd, tmp, dir_fd, final))
		err = errno;
	if (!err && fsync(dir_fd))
		err = errno;
	return err;
}

int pmp_ident_load(const char *path, struct pmp_ident *id)
{
	char name[PATH_MAX];
	FILE *f;
	int n;

	if (snprintf(name, sizeof(name), "%s.ident", path) >= (int)sizeof(name))
		return ENAMETOOLONG;
	f = fopen(name, "re");
	if (!f)
		return errno == ENOENT ? ENOENT : EINVAL;
	n = fscanf(f, IDENT_FORMAT, &id->pages, &id->seed, &id->generation, &id->writer);
	fclose(f);
	return n == 4 ? 0 : EINVAL;
}

void pmp_ident_remove(int dir_fd, const char *file_name)
{
	char name[PATH_MAX];

	if (snprintf(name, sizeof(name), "%s.ident", file_name) < (int)sizeof(name))
		unlinkat(dir_fd, name, 0);
}

bool pmp_ident_equal(const struct pmp_ident *a, const struct pmp_ident *b)
{
	return a->pages == b->pages && a->seed == b->seed &&
	       a->generation == b->generation && a->writer == b->writer;
}

/* The payload stream of one page: keyed by everything that identifies it. */
static uint64_t payload_state(const struct pmp_key *key, uint64_t index)
{
	uint64_t s = key->run_id ^ (key->generation * GOLDEN64);

	s = pmp_splitmix64(&s) ^ index;
	return pmp_splitmix64(&s);
}

uint64_t pmp_page_checksum(const void *page)
{
	return pmp_fnv1a64(page, PMP_PAGE_SIZE - sizeof(uint64_t));
}

void pmp_fill(void *page, const struct pmp_key *key, uint64_t index)
{
	uint64_t *w = page;
	uint64_t state = payload_state(key, index);

	w[0] = PMP_MAGIC;
	w[1] = key->run_id;
	w[2] = key->generation;
	w[3] = index;
	w[4] = key->pages;
	for (size_t i = PMP_HDR_WORDS; i < PMP_WORDS - 1; i++)
		w[i] = pmp_splitmix64(&state);
	w[PMP_WORDS - 1] = pmp_page_checksum(page);
}

void pmp_read_header(const void *page, struct pmp_header *h)
{
	const uint64_t *w = page;

	h->magic = w[0];
	h->run_id = w[1];
	h->generation = w[2];
	h->index = w[3];
	h->pages = w[4];
	h->checksum = w[PMP_WORDS - 1];
}

static int all_zero(const void *page)
{
	const uint64_t *w = page;

	for (size_t i = 0; i < PMP_WORDS; i++)
		if (w[i])
			return 0;
	return 1;
}

enum pmp_class pmp_classify(const void *page, const struct pmp_key *key,
			    uint64_t index, struct pmp_header *found)
{
	uint64_t expected[PMP_WORDS];
	struct pmp_header h;

	pmp_read_header(page, &h);
	if (found)
		*found = h;
	if (all_zero(page))
		return PMP_ZERO;
	if (h.magic != PMP_MAGIC)
		return PMP_GARBAGE;
	if (h.checksum != pmp_page_checksum(page))
		return PMP_TORN;
	if (h.run_id != key->run_id || h.generation != key->generation)
		return PMP_STALE;
	if (h.index != index)
		return PMP_MISPLACED;
	/* Intact and ours: every word must be exactly what was written. */
	pmp_fill(expected, key, index);
	if (memcmp(expected, page, PMP_PAGE_SIZE) != 0)
		return PMP_TORN;
	return PMP_OK;
}
