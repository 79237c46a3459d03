// SPDX-License-Identifier: GPL-2.0
/*
 * pmwrite: the writer of the MAP_SYNC crash test.
 *
 * Maps a file on a DAX filesystem (MAP_SHARED_VALIDATE|MAP_SYNC, or plain
 * MAP_SHARED for the control), stores one self-describing pattern page per
 * file page (lib/pmpattern.h), flushes what it stored from the CPU caches,
 * and reports each finished page on stdout as "P TAG n". The harness crashes
 * the machine somewhere in the middle; pmverify checks afterwards that every
 * page reported before the crash is in the file.
 *
 * Why stdout is a valid progress record (the argument the whole test rests
 * on): "P TAG n" is written with one write(2) only after pages 0..n-1 were
 * stored and flushed, and, under MAP_SYNC, after the fault of each of them
 * returned, which the kernel allows only once the block mapping is durable.
 * In the guest stdout is the virtio serial port, which QEMU copies to a host
 * file. Every step on that path can only delay or drop lines (a line still
 * in the guest's or QEMU's buffers at the crash is lost), never deliver a
 * line that was not written, nor reorder the lines of one writer. So the
 * highest n the host holds is a LOWER bound of the pages the guest had
 * completed. The pages themselves were stored to the NVDIMM, i.e. to the
 * host's mapping of the backing file, before the line was even written.
 * Only complete lines count (the host ignores a last line without newline);
 * were a line ever split over two write(2)s and mixed with another's, the
 * host rejects the mixed line, and a cut line's number is a prefix, so
 * never more than the real count.
 *
 * In practice the record is tight: a blocking write to a virtio console port
 * returns only after QEMU gave the buffer back, which it does after writing
 * the bytes to the host file (virtio_console's __send_to_port waits for
 * it). pmverify counts the intact pages beyond the record to show the slack.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/fs.h>

#include "cli.h"
#include "crashlink.h"
#include "exitcodes.h"
#include "daxfile.h"
#include "flush.h"
#include "mapsync.h"
#include "pmpattern.h"

#define TOOL		"pmwrite"
#define MAX_TAG		32

enum file_mode { MODE_SPARSE, MODE_FALLOCATED, MODE_GROW, MODE_REFLINK };
/* --flush: auto, or one of lib/flush.h's instructions, or none. */
enum flush_choice { FLUSH_CHOICE_AUTO, FLUSH_CHOICE_FIRST_INSN, FLUSH_CHOICE_NONE = FLUSH_CHOICE_FIRST_INSN + FLUSH_NR };

static const char *const mode_names[] = { "sparse", "fallocated", "grow", "reflink" };
static const char *const flush_names[] = { "auto", "clwb", "clflushopt", "clflush", "none" };

static struct env {
	struct cli_target target;	/* -f -S --replace --no-dax-check -v */
	struct pmp_ident id;	/* -n -s -g -w */
	enum file_mode mode;
	const char *tag;
	bool crash_set;
	uint64_t crash_after;
	bool hold;
	const char *gate;
	enum flush_choice flush;
} env = {
	.id = PMP_IDENT_DEFAULT,
};

struct run {
	int fd;
	int dir_fd;
	int sysrq_fd;
	char *map;
	size_t map_len;
	enum flush_insn flush;	/* resolved: FLUSH_NONE only when --flush none */
	unsigned int line;	/* cache line size in bytes */
	char tag[MAX_TAG + 1];
	const char *name;	/* env.target.path's last component, in dir_fd */
	bool ident_saved;	/* FILE.ident is ours: removed with the data file */
	bool created;		/* the data file is ours: removed if we fail before writing */
	bool src_created;	/* -m reflink: FILE.src is ours, removed like it */
	bool written;		/* a page went in: the file is kept from then on */
};

const char *argp_program_version = TOOL " 1";
const char argp_program_doc[] =
"Write a verifiable pattern through a MAP_SYNC (or plain MAP_SHARED) mapping\n"
"of a DAX file, one page at a time, flushing each page from the CPU caches,\n"
"and report \"P TAG n\" on stdout after each finished page: the writer of the\n"
"crash test (validate/crash/README.md). pmverify checks the file afterwards.\n"
"\n"
"USAGE: pmwrite -f FILE [-n PAGES] [-m sparse|fallocated|grow|reflink] [-S]\n"
"               [-s SEED] [-g GEN] [-w WRITER] [-t TAG] [--crash-after K]\n"
"               [--hold] [--gate DIR]\n"
"               [--flush auto|clwb|clflushopt|clflush|none]\n"
"\n"
"EXAMPLES:\n"
"    pmwrite -f /mnt/dax/f -S              # 256 pages, sparse file, MAP_SYNC\n"
"    pmwrite -f /mnt/dax/f                 # the control: plain MAP_SHARED\n"
"    pmwrite -f /mnt/dax/f -S -m grow      # grow the file page by page\n"
"    pmwrite -f /mnt/dax/f -S --hold       # keep the mapping until killed\n"
"    pmwrite -f /mnt/dax/f -S --crash-after 100  # sysrq crash after 100 pages\n"
"    pmverify -f /mnt/dax/f -r 256         # check it (same -n -s -g -w)\n"
"\n"
"Files: sparse = ftruncate to the full size; fallocated = fallocate (unwritten\n"
"extents); grow = size 0, extended with ftruncate before each page while\n"
"mapped; reflink = a FICLONE of FILE.src, zeros written and synced first:\n"
"every store is a copy-on-write fault (xfs -m reflink=1). The file is\n"
"created, sized and fsynced with its directory before the mapping: only the\n"
"page faults are under test. FILE.ident records -n -s -g -w for pmverify.\n"
"FILE, FILE.ident and FILE.src are pmwrite's own: an existing one is refused\n"
"and left untouched (--replace removes it, if a regular file); a run refused\n"
"before its first store removes what it made.\n"
"\n"
"Exit status: 0 ok, 1 runtime error, 2 usage, 3 not a DAX file, 4 kernel\n"
"without MAP_SYNC, 5 MAP_SYNC refused (EOPNOTSUPP), 6 no space left (or\n"
"SIGBUS on a store), 7 VM_SYNC state differs from the request, 11 FILE,\n"
"FILE.ident or FILE.src exists (not replaced).\n";

enum {
	OPT_CRASH_AFTER = 256,
	OPT_HOLD,
	OPT_FLUSH,
	OPT_GATE,
};

static const struct argp_option opts[] = {
	CLI_TARGET_OPTIONS("File to create on the DAX filesystem (required); kept",
			   "Map with MAP_SHARED_VALIDATE|MAP_SYNC (default MAP_SHARED: the control)",
			   "Run even if the file is not DAX (host tests of the control)",
			   "Details on stderr"),
	PMP_IDENT_OPTIONS,
	{ "mode", 'm', "MODE", 0, "sparse (default), fallocated, grow or reflink", 0 },
	{ "tag", 't', "TAG", 0, "Name in the progress lines (default: the file name)", 0 },
	{ "crash-after", OPT_CRASH_AFTER, "K", 0, "After K finished pages (0..PAGES) crash the machine: write 'c' to /proc/sysrq-trigger", 0 },
	{ "hold", OPT_HOLD, NULL, 0, "After the last page keep the mapping and wait until killed", 0 },
	{ "gate", OPT_GATE, "DIR", 0, "When mapped, create DIR/ready.TAG, then wait for DIR/go before the first store (starts many writers at once)", 0 },
	{ "flush", OPT_FLUSH, "HOW", 0, "Cache flush per line: auto (clwb, else clflushopt, else clflush; default), clwb, clflushopt, clflush, none", 0 },
	CLI_OPT_HELP,
	{ 0 },
};

/* ---- options ---- */

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (!cli_target_parse(&env.target, key, arg) || pmp_ident_option(&env.id, key, arg))
		return 0;
	switch (key) {
	case 'm':
		env.mode = cli_choice_arg("--mode", arg, mode_names, 4);
		break;
	case 't':
		if (!*arg || strlen(arg) > MAX_TAG || strpbrk(arg, " \t\n"))
			cli_usage_error("invalid --tag '%s' (1..%d characters, no blanks)", arg, MAX_TAG);
		env.tag = arg;
		break;
	case OPT_CRASH_AFTER:
		if (!cli_parse_u64(arg, 0, 0, PMP_MAX_PAGES, &env.crash_after))
			cli_usage_error("invalid --crash-after '%s'", arg);
		env.crash_set = true;
		break;
	case OPT_HOLD:
		env.hold = true;
		break;
	case OPT_GATE:
		env.gate = cli_nonempty_arg("--gate", arg);
		break;
	case OPT_FLUSH:
		env.flush = cli_choice_arg("--flush", arg, flush_names, 5);
		break;
	case ARGP_KEY_END:
		cli_target_end(&env.target);
		if (env.crash_set)
			pmp_ident_check_count(&env.id, "--crash-after", env.crash_after);
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}

/* ---- cache flushing (lib/flush.h) ---- */

/* --flush resolved against what the CPU has (cpuid). */
static int resolve_flush(struct run *r)
{
	unsigned int have = flush_cpu_has();

	r->line = flush_line_size();
	if (env.flush == FLUSH_CHOICE_AUTO) {
		r->flush = flush_best(have);
		if (r->flush == FLUSH_NONE)
			return cli_fail(EXIT_RUNTIME, "the CPU has none of clwb, clflushopt, clflush (cpuid): use --flush none to run anyway");
	} else if (env.flush == FLUSH_CHOICE_NONE) {
		r->flush = FLUSH_NONE;
	} else {
		r->flush = env.flush - FLUSH_CHOICE_FIRST_INSN;
		if (!(have & (1U << r->flush)))
			return cli_fail(EXIT_RUNTIME, "--flush %s: the CPU has no %s (cpuid)",
					flush_insn_names[r->flush], flush_insn_names[r->flush]);
	}
	cli_verbose("cache flush: %s, line %u bytes", flush_insn_names[r->flush], r->line);
	return 0;
}

/* ---- file and mapping ---- */

/*
 * FILE, FILE.ident and (-m reflink) FILE.src are pmwrite's own: one that
 * exists is refused and left untouched, unless --replace, which removes a
 * regular file only (lib/cli).
 */
static int make_room(void)
{
	static const char *const suffixes[] = { "", ".ident", ".src" };
	int n = env.mode == MODE_REFLINK ? 3 : 2, err;
	char path[PATH_MAX];

	for (int i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s%s", env.target.path, suffixes[i]) >= (int)sizeof(path))
			return cli_fail(EXIT_USAGE, "%s: name too long", env.target.path);
		if (env.target.replace) {
			if ((err = cli_target_remove(path)))
				return err;
		} else if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			return cli_fail(EXIT_FILE_EXISTS, "%s exists: pmwrite writes a file of its own "
					"and left it untouched (--replace removes it)", path);
		}
	}
	return 0;
}

/* A run refused before its first store: remove what it made, nothing else. */
static void remove_own(const struct run *r)
{
	char src[PATH_MAX];

	if (r->created)
		unlinkat(r->dir_fd, r->name, 0);
	if (r->ident_saved)
		pmp_ident_remove(r->dir_fd, r->name);
	if (r->src_created && snprintf(src, sizeof(src), "%s.src", r->name) < (int)sizeof(src))
		unlinkat(r->dir_fd, src, 0);
}

/*
 * -m reflink: FILE.src gets every page allocated and written (zeros) and
 * synced, then FILE shares all its blocks (FICLONE). FILE.src stays: its
 * removal would unshare them. The verifier sees zeros where no store went.
 */
static int share_blocks(struct run *r, off_t size)
{
	static const char zero[PMP_PAGE_SIZE];
	char src[PATH_MAX];
	int fd, err = 0;

	if (snprintf(src, sizeof(src), "%s.src", r->name) >= (int)sizeof(src))
		return cli_fail(EXIT_USAGE, "%s: name too long", env.target.path);
	/* Its own, like FILE (make_room): never an existing one truncated. */
	fd = openat(r->dir_fd, src, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return cli_fail_errno(errno, "create %s.src", env.target.path);
	r->src_created = true;
	for (off_t off = 0; off < size && !err; off += PMP_PAGE_SIZE)
		if (pwrite(fd, zero, sizeof(zero), off) != (ssize_t)sizeof(zero))
			err = cli_fail_errno(errno ? errno : EIO, "write %s.src", env.target.path);
	if (!err && fsync(fd))
		err = cli_fail_errno(errno, "fsync %s.src", env.target.path);
	if (!err && ioctl(r->fd, FICLONE, fd))
		err = errno == EOPNOTSUPP || errno == EINVAL || errno == EXDEV ?
		      cli_fail(EXIT_SYNC_REFUSED, "FICLONE %s.src: %s: no reflink on this filesystem",
			       env.target.path, strerror(errno)) :
		      cli_fail_errno(errno, "FICLONE %s.src", env.target.path);
	close(fd);
	return err;
}

static int prepare_file(struct run *r)
{
	char *copy = strdup(env.target.path);
	off_t size = (off_t)(env.id.pages * PMP_PAGE_SIZE);
	const char *fs_name;
	bool dax;
	int err;

	if (!copy)
		return cli_fail_errno(ENOMEM, "strdup");
	r->dir_fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	r->name = strrchr(env.target.path, '/');
	r->name = r->name ? r->name + 1 : env.target.path;
	if (r->dir_fd < 0)
		return cli_fail_errno(errno, "open the directory of %s", env.target.path);
	if ((err = make_room()))
		return err;
	/* The parameters first: where the data file exists, so does its record. */
	if ((err = pmp_ident_save(r->dir_fd, r->name, &env.id)))
		return cli_fail_errno(err, "write %s.ident", env.target.path);
	r->ident_saved = true;
	r->fd = open(env.target.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (r->fd < 0)
		return cli_fail_errno(errno, "create %s", env.target.path);
	r->created = true;
	if ((err = daxfile_check(r->fd, env.target.path, env.target.no_dax_check, &dax, &fs_name)))
		return err;
	switch (env.mode) {
	case MODE_SPARSE:
		if (ftruncate(r->fd, size))
			return cli_fail_errno(errno, "ftruncate %s", env.target.path);
		break;
	case MODE_FALLOCATED:
		if (fallocate(r->fd, 0, 0, size))
			return cli_fail_errno(errno, "fallocate %s", env.target.path);
		break;
	case MODE_GROW:
		break;
	case MODE_REFLINK:
		if ((err = share_blocks(r, size)))
			return err;
		break;
	}
	/*
	 * The name, the size and the preallocation are durable before the
	 * first store: what the crash tests is the page faults alone.
	 */
	if (fsync(r->fd))
		return cli_fail_errno(errno, "fsync %s", env.target.path);
	if (fsync(r->dir_fd))
		return cli_fail_errno(errno, "fsync the directory of %s", env.target.path);
	return 0;
}

static int map_file(struct run *r)
{
	int flags = env.target.map_sync ? MAP_SHARED_VALIDATE | MAP_SYNC : MAP_SHARED;
	void *map;

	r->map_len = env.id.pages * PMP_PAGE_SIZE;
	map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, flags, r->fd, 0);
	if (map == MAP_FAILED)
		return mapsync_fail_mmap(env.target.path, env.target.map_sync, errno);
	r->map = map;
	/* One fault per page: more distinct points for the crash to hit. */
	if (madvise(r->map, r->map_len, MADV_NOHUGEPAGE) && errno != EINVAL)
		return cli_fail_errno(errno, "madvise MADV_NOHUGEPAGE %s", env.target.path);
	return 0;
}

/* VM_SYNC ("sf" in smaps VmFlags) must be there exactly when asked for. */
static int check_vm_sync(const struct run *r)
{
	bool sf;
	int err = mapsync_vm_sync(r->map, &sf, NULL, 0);

	return err ? err : mapsync_expect_vm_sync(env.target.path, env.target.map_sync, sf);
}

/* ---- the writing ---- */

static int write_pages(struct run *r)
{
	const struct pmp_key key = pmp_ident_key(&env.id);
	uint64_t page[PMP_WORDS];
	volatile uint64_t i = 0;
	int err;

	if (sigsetjmp(cli_sigbus_jump, 1)) {
		cli_sigbus_armed = 0;
		return cli_fail(EXIT_NO_SPACE, "store to page %llu of %s: SIGBUS",
				(unsigned long long)i, env.target.path);
	}
	if ((err = crashlink_emit("S %s mode=%s map=%s flush=%s pages=%llu gen=%llu\n", r->tag,
			mode_names[env.mode], env.target.map_sync ? "sync" : "shared",
			flush_names[r->flush], (unsigned long long)env.id.pages,
			(unsigned long long)env.id.generation)))
		return err;
	if (env.crash_set && env.crash_after == 0)
		return crashlink_sysrq(r->sysrq_fd, r->tag, 0);
	for (i = 0; i < env.id.pages && !cli_stop_signal; i++) {
		volatile uint64_t *dst = (volatile uint64_t *)(r->map + i * PMP_PAGE_SIZE);

		if (env.mode == MODE_GROW &&
		    ftruncate(r->fd, (off_t)((i + 1) * PMP_PAGE_SIZE)))
			return cli_fail_errno(errno, "ftruncate %s to %llu pages", env.target.path,
					      (unsigned long long)(i + 1));
		pmp_fill(page, &key, i);
		r->written = true;
		cli_sigbus_armed = 1;
		/* The first store takes the write fault (under MAP_SYNC: synchronous). */
		for (size_t w = 0; w < PMP_WORDS; w++)
			dst[w] = page[w];
		cli_sigbus_armed = 0;
		flush_range(r->flush, r->line, (const void *)dst, PMP_PAGE_SIZE);
		if ((err = crashlink_emit("P %s %llu\n", r->tag, (unsigned long long)(i + 1))))
			return err;
		if (env.crash_set && env.crash_after == i + 1)
			return crashlink_sysrq(r->sysrq_fd, r->tag, i + 1);
	}
	if (cli_stop_signal)
		return cli_fail(EXIT_RUNTIME, "interrupted after %llu pages: %s",
				(unsigned long long)i, strsignal(cli_stop_signal));
	return crashlink_emit("D %s %llu\n", r->tag, (unsigned long long)env.id.pages);
}

int main(int argc, char **argv)
{
	struct run r = { .fd = -1, .dir_fd = -1, .sysrq_fd = -1 };
	char *copy = NULL;
	int err;

	cli_parse_args(TOOL, opts, parse_arg, argp_program_doc, argc, argv);
	if (env.tag) {
		snprintf(r.tag, sizeof(r.tag), "%s", env.tag);
	} else {
		copy = strdup(env.target.path);
		snprintf(r.tag, sizeof(r.tag), "%s", copy ? basename(copy) : "file");
		for (char *c = r.tag; *c; c++)
			if (isspace((unsigned char)*c))
				*c = '_';
	}
	if ((err = cli_install_signal_handlers()) || (err = resolve_flush(&r)))
		goto cleanup;
	if (env.crash_set) {
		/* Opened now: at the chosen moment only the write is left to do. */
		r.sysrq_fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
		if (r.sysrq_fd < 0) {
			err = cli_fail_errno(errno, "open /proc/sysrq-trigger");
			goto cleanup;
		}
	}
	if ((err = prepare_file(&r)) || (err = map_file(&r)) ||
	    (err = check_vm_sync(&r)) || (err = (env.gate ? crashlink_gate(env.gate, r.tag) : 0)) ||
	    (err = write_pages(&r)))
		goto cleanup;
	cli_verbose("%llu pages written to %s", (unsigned long long)env.id.pages, env.target.path);
	/* The crash is meant to find the mapping still in place. */
	while (env.hold && !cli_stop_signal)
		pause();

cleanup:
	if (r.map)
		munmap(r.map, r.map_len);
	if (r.fd >= 0)
		close(r.fd);
	/* Refused before the first store (not DAX, no MAP_SYNC): leave nothing behind. */
	if (err && !r.written)
		remove_own(&r);
	if (r.dir_fd >= 0)
		close(r.dir_fd);
	if (r.sysrq_fd >= 0)
		close(r.sysrq_fd);
	free(copy);
	return err;
}
