// SPDX-License-Identifier: GPL-2.0
/*
 * daxcheck: is DIR a place where the suite can run natively, i.e. on a
 * filesystem mounted -o dax on persistent memory whose files take
 * MAP_SYNC? Native mode (native/job.sh) asks it first and refuses with its
 * one line and exit code; nothing is created in DIR but one unnamed
 * O_TMPFILE inode, which disappears with the process whatever happens.
 *
 * Two independent answers, both required: statx's STATX_ATTR_DAX on a file
 * made in DIR (or the dax mount option, before Linux 5.8), and the kernel
 * accepting MAP_SHARED_VALIDATE|MAP_SYNC on it: a filesystem can be DAX
 * without offering MAP_SYNC (virtiofs, erofs, ext2), and only the mmap says
 * so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "daxfile.h"
#include "exitcodes.h"
#include "json.h"
#include "mapsync.h"

static struct env {
	const char *dir;
	bool json;
} env;

static const char doc[] =
"Check that DIR can host the suite's native runs: a DAX filesystem whose\n"
"files take MAP_SHARED_VALIDATE|MAP_SYNC.\n"
"\n"
"USAGE: daxcheck [-j] [-v] DIR\n"
"\n"
"Prints one line (the filesystem, how DAX was told, MAP_SYNC's answer) and\n"
"exits 0, or refuses with one line and: 3 not DAX, 4 the kernel lacks\n"
"MAP_SYNC, 5 MAP_SYNC refused, 6 no space, 2 DIR is no directory.\n"
"\n"
"EXAMPLES:\n"
"    daxcheck /mnt/pmem       # ok: 'ext4, DAX (statx STATX_ATTR_DAX), MAP_SYNC accepted'\n"
"    daxcheck -j /mnt/pmem    # the same facts as JSON\n"
"    daxcheck /tmp            # refused: not DAX, exit 3\n";

static const struct argp_option options[] = {
	{ "json", 'j', NULL, 0, "The facts as one JSON object on stdout", 0 },
	{ "verbose", 'v', NULL, 0, "Say what is checked, on stderr", 0 },
	CLI_OPT_HELP,
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'j':
		env.json = true;
		return 0;
	case 'v':
		cli_verbose_on = true;
		return 0;
	case ARGP_KEY_ARG:
		if (env.dir)
			cli_usage_error("one DIR only ('%s' too)", arg);
		env.dir = cli_nonempty_arg("DIR", arg);
		return 0;
	case ARGP_KEY_END:
		if (!env.dir)
			cli_usage_error("DIR is required");
		return 0;
	default:
		return cli_argp_default(key, arg, state);
	}
}

struct facts {
	const char *fs;
	const char *dax_how;
	bool dax;
	const char *map_sync;	/* "accepted", or the errno's name */
};

/* One page, allocated, then mapped MAP_SHARED_VALIDATE|MAP_SYNC. */
static int probe_map_sync(int fd, struct facts *f)
{
	long page = sysconf(_SC_PAGESIZE);
	void *map;
	int err;

	err = posix_fallocate(fd, 0, page);
	if (err)
		return cli_fail_errno(err, "%s: allocate one page", env.dir);
	map = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
	if (map == MAP_FAILED) {
		err = errno;
		f->map_sync = err == EOPNOTSUPP ? "EOPNOTSUPP" : err == EINVAL ? "EINVAL" : strerror(err);
		return mapsync_fail_mmap(env.dir, true, err);
	}
	munmap(map, page);
	f->map_sync = "accepted";
	return 0;
}

static int check_dir(struct facts *f)
{
	struct stat st;
	int fd, err;

	if (stat(env.dir, &st))
		return cli_fail(EXIT_USAGE, "%s: %s", env.dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return cli_fail(EXIT_USAGE, "%s: not a directory (native mode takes the DAX mount's directory)",
				env.dir);
	/* Unnamed: nothing is left in DIR, even if this process is killed. */
	fd = open(env.dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return cli_fail_errno(errno, "%s: create a probe file (O_TMPFILE)", env.dir);
	f->fs = daxfile_fs_name(fd);
	err = daxfile_detect(fd, &f->dax, &f->dax_how);
	if (err)
		err = cli_fail_errno(err, "%s: cannot tell whether it is DAX", env.dir);
	else if (!f->dax)
		err = cli_fail(EXIT_NOT_DAX,
			       "%s: not DAX (%s: no; %s): native mode needs a filesystem mounted -o dax on persistent memory",
			       env.dir, f->dax_how, f->fs);
	else
		err = probe_map_sync(fd, f);
	close(fd);
	return err;
}

static int print_facts(const struct facts *f)
{
	struct json_writer w;

	if (!env.json) {
		printf("%s: %s, DAX (%s), MAP_SYNC %s\n", env.dir, f->fs, f->dax_how, f->map_sync);
		return 0;
	}
	json_init(&w, stdout);
	json_begin_object(&w);
	json_kv_string(&w, "dir", env.dir);
	json_kv_string(&w, "fs", f->fs);
	json_kv_bool(&w, "dax", f->dax);
	json_kv_string(&w, "dax_from", f->dax_how);
	json_kv_string(&w, "map_sync", f->map_sync);
	json_end_object(&w);
	return cli_json_finish(&w);
}

int main(int argc, char **argv)
{
	struct facts f = { .fs = "unknown", .dax_how = "-", .map_sync = "-" };
	int err;

	cli_parse_args("daxcheck", options, parse_arg, doc, argc, argv);
	err = check_dir(&f);
	if (err)
		return err;
	return print_facts(&f);
}
