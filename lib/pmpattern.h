/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The self-describing page pattern of the crash test (validate/crash/):
 * pmwrite stores one such page per file page, pmverify reads the file back
 * after a crash and classifies every page.
 *
 * A pattern page is PMP_PAGE_SIZE bytes of native-endian 64-bit words:
 *
 *	word 0		PMP_MAGIC
 *	word 1		run id: which file of which run (one per writer and crash)
 *	word 2		generation: which crash round wrote it
 *	word 3		page index: the file page it belongs at
 *	word 4		pages: the length of the file the writer meant to write
 *	words 5..510	payload: a splitmix64 stream keyed by (run id, generation, index)
 *	word 511	checksum: FNV-1a 64 of bytes 0 .. PMP_PAGE_SIZE - 9
 *
 * Because each page carries its own identity, a page read back can be told
 * apart as: exactly the page expected (OK), zeros (a hole, an unwritten
 * extent, or a block whose allocation was lost), an intact page of another
 * run or generation (STALE: old data surfaced), an intact page of this run
 * at the wrong offset (MISPLACED), a page with the magic but a bad checksum
 * or payload (TORN), or anything else (GARBAGE).
 */
#ifndef SUITE_PMPATTERN_H
#define SUITE_PMPATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMP_PAGE_SIZE	4096u
#define PMP_WORDS	(PMP_PAGE_SIZE / sizeof(uint64_t))
#define PMP_HDR_WORDS	5u
#define PMP_MAGIC	0x314750434e59534dULL	/* the bytes "MSYNCPG1" on little-endian */

enum pmp_class {
	PMP_OK,
	PMP_ZERO,	/* all zero bytes */
	PMP_STALE,	/* intact pattern page, other run id or generation */
	PMP_MISPLACED,	/* intact page of this run and generation, other index */
	PMP_TORN,	/* magic present, checksum or payload wrong */
	PMP_GARBAGE,	/* neither zero nor a pattern page */
	PMP_BEYOND_EOF,	/* not from the content: the file is shorter */
	PMP_NOFILE,	/* not from the content: the file does not exist */
	PMP_NR_CLASSES,
};

/* What a page is expected to hold. */
struct pmp_key {
	uint64_t run_id;
	uint64_t generation;
	uint64_t pages;
};

/* Header fields as read from a page (valid when the magic is present). */
struct pmp_header {
	uint64_t magic;
	uint64_t run_id;
	uint64_t generation;
	uint64_t index;
	uint64_t pages;
	uint64_t checksum;
};

/* Lower-case names for reports and JSON keys: "ok", "zero", "stale", ... */
const char *pmp_class_name(enum pmp_class c);

/* FNV-1a 64 over @len bytes. */
uint64_t pmp_fnv1a64(const void *buf, size_t len);

/* splitmix64: the next value of the stream whose state is *@state. */
uint64_t pmp_splitmix64(uint64_t *state);

/*
 * A run id for writer @writer of crash round @generation in the run with
 * seed @seed: distinct inputs give distinct ids with overwhelming odds, and
 * the id is never 0 (a zero word must not look like a valid id).
 */
uint64_t pmp_run_id(uint64_t seed, uint64_t generation, uint64_t writer);

/*
 * Who wrote a file: what pmwrite is told and pmverify must be told alike,
 * with the same options (-n PAGES, -s SEED, -g GEN, -w WRITER) parsed by
 * the same code.
 */
struct pmp_ident {
	uint64_t pages;		/* -n: the length of the file meant, 1..PMP_MAX_PAGES */
	uint64_t seed;		/* -s: the run */
	uint64_t generation;	/* -g: the crash round */
	uint64_t writer;	/* -w: the writer within the round */
};

#define PMP_MAX_PAGES	(1ULL << 24)	/* 64 GiB */
#define PMP_IDENT_DEFAULT { .pages = 256, .generation = 1 }

/* The key of the pages @id writes. */
struct pmp_key pmp_ident_key(const struct pmp_ident *id);

/*
 * Command-line option @key ('n', 's', 'g' or 'w') with value @arg into @id.
 * Returns false for any other key. A bad value is a usage error: one line
 * ("invalid --seed 'x'") and exit EXIT_USAGE (cli.h).
 */
bool pmp_ident_option(struct pmp_ident *id, int key, const char *arg);
/* Those options, for the argp tables of the writer and the verifier (which
 * must be given what the writer was). */
#define PMP_IDENT_OPTIONS							\
	{ "pages", 'n', "N", 0, "Pages of the file (default 256)", 0 },		\
	{ "seed", 's', "N", 0, "Run seed, part of every page's identity (default 0)", 0 }, \
	{ "generation", 'g', "N", 0, "Crash round, part of every page's identity (default 1)", 0 }, \
	{ "writer", 'w', "N", 0, "Writer number, part of every page's identity (default 0)", 0 }

/*
 * @count pages, given with option @opt (--crash-after, --recorded), may not
 * be beyond -n: "--recorded 300 is beyond --pages 256" is a usage error.
 */
void pmp_ident_check_count(const struct pmp_ident *id, const char *opt, uint64_t count);

/*
 * The writer's parameters travel with the data, in FILE.ident beside FILE
 * (one line, "pmwrite-ident pages=N seed=S generation=G writer=W"), so a
 * verifier given other parameters refuses instead of reporting data loss.
 * pmp_ident_save writes it (temporary name, fsync, rename) in directory
 * @dir_fd before the data file exists; returns 0 or an errno.
 * pmp_ident_load reads it: 0, ENOENT (no record) or EINVAL (unreadable).
 */
int pmp_ident_save(int dir_fd, const char *file_name, const struct pmp_ident *id);
int pmp_ident_load(const char *path, struct pmp_ident *id);
/* Remove FILE.ident of @file_name in @dir_fd (a writer that gave up). */
void pmp_ident_remove(int dir_fd, const char *file_name);
/* @a and @b name the same pages. */
bool pmp_ident_equal(const struct pmp_ident *a, const struct pmp_ident *b);

/* Fill @page (PMP_PAGE_SIZE bytes, 8-byte aligned) with page @index of @key. */
void pmp_fill(void *page, const struct pmp_key *key, uint64_t index);

/* Read the header words of @page. */
void pmp_read_header(const void *page, struct pmp_header *h);

/* The checksum @page should carry (of everything but its last word). */
uint64_t pmp_page_checksum(const void *page);

/*
 * Classify @page as read from file page @index, against @key. When @found
 * is not NULL it receives the header as read (meaningful for STALE,
 * MISPLACED and TORN).
 */
enum pmp_class pmp_classify(const void *page, const struct pmp_key *key,
			    uint64_t index, struct pmp_header *found);

#endif /* SUITE_PMPATTERN_H */
