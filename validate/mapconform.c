// SPDX-License-Identifier: GPL-2.0
/*
 * mapconform: one probe of the MAP_SYNC interface, as an application meets
 * it. Each case maps a fresh, empty (sparse) file one way, stores to its
 * pages and prints what the kernel answered, one line of key=value facts:
 *
 *   case=shared pid=812 mmap=ok sf=1 statx=1 stores=8 child=- sigbus=- intact=- pmem=-
 *
 * mmap: ok or the errno name; sf: VM_SYNC in /proc/self/smaps; statx:
 * STATX_ATTR_DAX; stores: pages stored to by process pid (or by child);
 * sigbus, intact: the truncate case; pmem: the detect case's answer.
 *
 * Whether the stores' faults were synchronous is not visible from user
 * space: the conformance job (tests/guest/conformance.sh) runs the cases
 * under syncorder and reads each process's NEEDDSYNC count. The expected
 * answers, with the kernel source and mmap(2) lines they come from, are
 * rows of validate/conformance.txt.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cli.h"
#include "exitcodes.h"
#include "mapsync.h"

#define TOOL "mapconform"
/* Not a MAP_* flag of any kernel the suite knows: bits 21-25 are unused. */
#define MAP_UNKNOWN_BIT 0x800000

enum probe_case {
	CASE_VALIDATE, CASE_SHARED, CASE_PRIVATE, CASE_UNKNOWN_FLAG,
	CASE_MPROTECT, CASE_TRUNCATE, CASE_FORK, CASE_DETECT, CASE_DAX_DIR,
	CASE_NR
};
static const char *const case_names[CASE_NR] = {
	"validate", "shared", "private", "unknown-flag",
	"mprotect", "truncate", "fork", "detect", "dax-dir",
};

static struct env {
	const char *path;
	enum probe_case which;
	bool have_case;
	uint64_t pages;
} env = { .pages = 8 };

/* What a probe saw; -1 is "does not apply" (printed as -). */
struct facts {
	const char *mmap;
	int sf, statx, stores, child, sigbus, intact, pmem;
};

const char *argp_program_version = TOOL " 1";
static const char doc[] =
"Probe the MAP_SYNC interface one way on a fresh empty FILE and print what\n"
"the kernel answered, one line of key=value facts.\n"
"\n"
"USAGE: mapconform -f FILE -c CASE [-n PAGES] [-v]\n"
"\n"
"CASES:\n"
"  validate      MAP_SHARED_VALIDATE|MAP_SYNC, read-write, store to each page\n"
"  shared        MAP_SHARED|MAP_SYNC (no VALIDATE)\n"
"  private       MAP_PRIVATE|MAP_SYNC\n"
"  unknown-flag  MAP_SHARED_VALIDATE with an unknown flag bit (0x800000)\n"
"  mprotect      MAP_SHARED_VALIDATE|MAP_SYNC read-only, read, mprotect\n"
"                read-write, store\n"
"  truncate      map, store, truncate to half, store past the new EOF:\n"
"                SIGBUS expected, the first half intact\n"
"  fork          map, fork, the child stores (child= is its pid)\n"
"  detect        PMDK's detection: MAP_SHARED_VALIDATE|MAP_SYNC, falling\n"
"                back to MAP_SHARED on EOPNOTSUPP or EINVAL (pmem=0|1)\n"
"  dax-dir       make FILE a directory with FS_XFLAG_DAX (files created in\n"
"                it inherit the flag on a dax=inode mount); made, it stays\n"
"                for the probes that follow (rmdir it after them), refused\n"
"                it is removed again\n"
"\n"
"EXAMPLES:\n"
"    mapconform -f /mnt/ext4/p -c shared\n"
"    syncorder --json-out s.json -c 'mapconform -f /mnt/xfs/p -c fork'\n"
"\n"
"Exit status: 0 the probe ran (whatever the kernel answered), 1 runtime\n"
"error, 2 usage, 3 dax-dir on a filesystem without per-file DAX, 11 FILE\n"
"exists (left untouched). A probe's FILE is removed afterwards.\n";

static const struct argp_option opts[] = {
	{ "file", 'f', "PATH", 0, "The file to create and probe (removed afterwards; -c dax-dir: the directory to make, kept)", 0 },
	{ "case", 'c', "CASE", 0, "What to probe (see CASES)", 0 },
	{ "pages", 'n', "N", 0, "Pages to map and store to (2..4096, default 8)", 0 },
	{ "verbose", 'v', NULL, 0, "Say what each step did on stderr", 0 },
	CLI_OPT_HELP,
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'f':
		env.path = cli_nonempty_arg("--file", arg);
		break;
	case 'c':
		env.which = cli_choice_arg("--case", arg, case_names, CASE_NR);
		env.have_case = true;
		break;
	case 'n':
		if (!cli_parse_u64(arg, 10, 2, 4096, &env.pages))
			cli_usage_error("invalid --pages '%s' (2..4096)", arg);
		break;
	case 'v':
		cli_verbose_on = true;
		break;
	case ARGP_KEY_END:
		if (!env.path || !env.have_case)
			cli_usage_error("--file and --case are required");
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}

static const char *errno_name(int err)
{
	switch (err) {
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINVAL: return "EINVAL";
	case EACCES: return "EACCES";
	case ENODEV: return "ENODEV";
	case EPERM: return "EPERM";
	default: return "other";
	}
}

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* A fresh sparse file of env.pages pages, its size committed. */
static int create_file(int *fd)
{
	*fd = open(env.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (*fd < 0 && errno == EEXIST)
		return cli_fail(EXIT_FILE_EXISTS, "%s exists: left untouched", env.path);
	if (*fd < 0)
		return cli_fail_errno(errno, "create %s", env.path);
	if (ftruncate(*fd, (off_t)(env.pages * page_size())) || fsync(*fd))
		return cli_fail_errno(errno, "size %s", env.path);
	return 0;
}

static int statx_dax(int fd)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, 0, &stx) || !(stx.stx_attributes_mask & STATX_ATTR_DAX))
		return -1;
	return !!(stx.stx_attributes & STATX_ATTR_DAX);
}

/* Maps the whole file; NULL with f->mmap set to the errno's name. */
static char *map(int fd, int prot, int flags, struct facts *f)
{
	char *p = mmap(NULL, env.pages * page_size(), prot, flags, fd, 0);

	if (p == MAP_FAILED) {
		f->mmap = errno_name(errno);
		cli_verbose("mmap flags 0x%x: %s", flags, strerror(errno));
		return NULL;
	}
	f->mmap = "ok";
	return p;
}

static int note_vm_sync(char *p, struct facts *f)
{
	bool sf;
	int err = mapsync_vm_sync(p, &sf, NULL, 0);

	f->sf = sf;
	return err;
}

/* map() and, when it mapped, VM_SYNC into f->sf; *p is NULL when refused. */
static int map_noted(int fd, int prot, int flags, struct facts *f, char **p)
{
	*p = map(fd, prot, flags, f);
	return *p ? note_vm_sync(*p, f) : 0;
}

/* One 8-byte store at the start of each page: one write fault each. */
static void store_pages(char *p, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++)
		*(volatile uint64_t *)(p + i * page_size()) = i + 1;
}

static int read_pages(char *p)
{
	int sum = 0;

	for (uint64_t i = 0; i < env.pages; i++)
		sum += *(volatile char *)(p + i * page_size());
	return sum;
}

/* Every page below @upto holds what store_pages() put there. */
static bool pages_intact(int fd, uint64_t upto)
{
	for (uint64_t i = 0; i < upto; i++) {
		uint64_t v = 0;

		if (pread(fd, &v, sizeof(v), (off_t)(i * page_size())) != sizeof(v) || v != i + 1)
			return false;
	}
	return true;
}

static int probe_store(int fd, int flags, struct facts *f)
{
	char *p;
	int err = map_noted(fd, PROT_READ | PROT_WRITE, flags, f, &p);

	if (err || !p)
		return err;
	store_pages(p, 0, env.pages);
	f->stores = (int)env.pages;
	munmap(p, env.pages * page_size());
	return 0;
}

static int probe_mprotect(int fd, struct facts *f)
{
	char *p = map(fd, PROT_READ, MAP_SHARED_VALIDATE | MAP_SYNC, f);
	int err;

	if (!p)
		return 0;
	cli_verbose("read %d", read_pages(p));
	if (mprotect(p, env.pages * page_size(), PROT_READ | PROT_WRITE))
		return cli_fail_errno(errno, "mprotect %s", env.path);
	/* What the store meets: the VMA after mprotect. */
	if ((err = note_vm_sync(p, f)))
		return err;
	store_pages(p, 0, env.pages);
	f->stores = (int)env.pages;
	munmap(p, env.pages * page_size());
	return 0;
}

static int probe_truncate(int fd, struct facts *f)
{
	uint64_t half = env.pages / 2;
	struct stat st;
	char *p;
	int err = map_noted(fd, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, f, &p);

	if (err || !p)
		return err;
	store_pages(p, 0, env.pages);
	f->stores = (int)env.pages;
	if (ftruncate(fd, (off_t)(half * page_size())))
		return cli_fail_errno(errno, "truncate %s", env.path);
	f->sigbus = 0;
	if (sigsetjmp(cli_sigbus_jump, 1) == 0) {
		cli_sigbus_armed = 1;
		store_pages(p, env.pages - 1, env.pages);
	} else {
		f->sigbus = 1;
	}
	cli_sigbus_armed = 0;
	f->intact = !fstat(fd, &st) && st.st_size == (off_t)(half * page_size()) &&
		    pages_intact(fd, half);
	munmap(p, env.pages * page_size());
	return 0;
}

static int probe_fork(int fd, struct facts *f)
{
	char *p;
	int status, err = map_noted(fd, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, f, &p);
	pid_t child;

	if (err || !p)
		return err;
	fflush(NULL);
	child = fork();
	if (child < 0)
		return cli_fail_errno(errno, "fork");
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		store_pages(p, 0, env.pages);
		_exit(0);
	}
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR)
			return cli_fail_errno(errno, "wait for the child");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return cli_fail(EXIT_RUNTIME, "the child's stores failed (status 0x%x)", status);
	f->child = (int)child;
	f->stores = pages_intact(fd, env.pages) ? (int)env.pages : 0;
	munmap(p, env.pages * page_size());
	return 0;
}

/* PMDK's pmem_map_file(): MAP_SYNC where it is refused means "not pmem". */
static int probe_detect(int fd, struct facts *f)
{
	char *p = map(fd, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, f);

	f->pmem = p != NULL;
	if (!p && strcmp(f->mmap, "EOPNOTSUPP") && strcmp(f->mmap, "EINVAL"))
		return cli_fail(EXIT_RUNTIME, "mmap MAP_SYNC %s: %s, neither answer PMDK expects",
				env.path, f->mmap);
	if (!p)
		p = map(fd, PROT_READ | PROT_WRITE, MAP_SHARED, f);
	if (!p)
		return cli_fail(EXIT_RUNTIME, "the MAP_SHARED fallback failed too: %s", f->mmap);
	f->mmap = "ok";
	munmap(p, env.pages * page_size());
	return 0;
}

/* EOPNOTSUPP, ENOTTY: the filesystem has no per-file DAX (tmpfs): not DAX. */
static int fail_dax_flag(int err, const char *what)
{
	if (err == EOPNOTSUPP || err == ENOTTY)
		return cli_fail(EXIT_NOT_DAX, "%s %s: %s: no per-file DAX on this filesystem",
				what, env.path, strerror(err));
	return cli_fail_errno(err, "%s %s", what, env.path);
}

static int set_dax_flag(void)
{
	struct fsxattr fa;
	int fd = open(env.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return cli_fail_errno(errno, "open %s", env.path);
	if (ioctl(fd, FS_IOC_FSGETXATTR, &fa) == 0) {
		fa.fsx_xflags |= FS_XFLAG_DAX;
		if (ioctl(fd, FS_IOC_FSSETXATTR, &fa))
			err = fail_dax_flag(errno, "set FS_XFLAG_DAX on");
	} else {
		err = fail_dax_flag(errno, "FS_IOC_FSGETXATTR");
	}
	close(fd);
	return err;
}

/*
 * -c dax-dir: FILE made a directory with FS_XFLAG_DAX, for the probes that
 * follow to create their files in (conformance.sh), so it stays when made;
 * refused, it is removed again. An existing FILE is left untouched.
 */
static int make_dax_dir(void)
{
	int err;

	if (mkdir(env.path, 0755))
		return errno == EEXIST ? cli_fail(EXIT_FILE_EXISTS, "%s exists: left untouched", env.path) :
		       cli_fail_errno(errno, "mkdir %s", env.path);
	if ((err = set_dax_flag()))
		rmdir(env.path);
	return err;
}

static int run_probe(int fd, struct facts *f)
{
	switch (env.which) {
	case CASE_VALIDATE:
		return probe_store(fd, MAP_SHARED_VALIDATE | MAP_SYNC, f);
	case CASE_SHARED:
		return probe_store(fd, MAP_SHARED | MAP_SYNC, f);
	case CASE_PRIVATE:
		return probe_store(fd, MAP_PRIVATE | MAP_SYNC, f);
	case CASE_UNKNOWN_FLAG:
		return probe_store(fd, MAP_SHARED_VALIDATE | MAP_UNKNOWN_BIT, f);
	case CASE_MPROTECT:
		return probe_mprotect(fd, f);
	case CASE_TRUNCATE:
		return probe_truncate(fd, f);
	case CASE_FORK:
		return probe_fork(fd, f);
	case CASE_DETECT:
		return probe_detect(fd, f);
	default:
		return cli_fail(EXIT_RUNTIME, "case %s is not a probe", case_names[env.which]);
	}
}

static void print_fact(const char *key, int v)
{
	if (v < 0)
		printf(" %s=-", key);
	else
		printf(" %s=%d", key, v);
}

static int print_facts(const struct facts *f)
{
	printf("case=%s pid=%d mmap=%s", case_names[env.which], (int)getpid(), f->mmap);
	print_fact("sf", f->sf);
	print_fact("statx", f->statx);
	print_fact("stores", f->stores);
	print_fact("child", f->child);
	print_fact("sigbus", f->sigbus);
	print_fact("intact", f->intact);
	print_fact("pmem", f->pmem);
	printf("\n");
	if (fflush(stdout) || ferror(stdout))
		return cli_fail_errno(errno ? errno : EIO, "write stdout");
	return 0;
}

int main(int argc, char **argv)
{
	struct facts f = { "-", -1, -1, -1, -1, -1, -1, -1 };
	int fd = -1, err;

	cli_parse_args(TOOL, opts, parse_arg, doc, argc, argv);
	if (env.which == CASE_DAX_DIR)
		return make_dax_dir();
	if ((err = cli_install_signal_handlers()) || (err = create_file(&fd)))
		goto out;
	f.statx = statx_dax(fd);
	if (!(err = run_probe(fd, &f)))
		err = print_facts(&f);
out:
	if (fd >= 0) {
		close(fd);
		unlink(env.path);
	}
	return err;
}
