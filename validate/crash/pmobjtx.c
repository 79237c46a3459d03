// SPDX-License-Identifier: GPL-2.0
/*
 * pmobjtx: the crash test's PMDK writer and its verifier (issue 32).
 *
 * Writer: a libpmemobj pool (Debian's PMDK) on a DAX file; transaction i
 * allocates a new object, fills it with pattern page i (lib/pmpattern.h),
 * links it at root->obj[i] and sets root->count = i + 1, all in one
 * transaction; "P TAG n" goes to the host only after pmemobj_tx_commit of
 * transaction n - 1 returned (lib/crashlink.h: the same link as pmwrite).
 * Each object lands on pages the pool never touched before, so a
 * transaction is durable only if its page faults made the new blocks'
 * mapping durable (MAP_SYNC) or PMDK called msync.
 *
 * Verifier (--verify): after the crash, pmemobj_check, then open (PMDK rolls
 * back what did not commit) and classify transaction i: ok, not committed
 * (i >= count), no object, or its object's page class (zero, stale, torn...).
 * Every transaction below the recorded point (-r) must be ok: one that is
 * not is LOST. A committed transaction whose object is not intact, or an
 * object linked beyond the count, is HALF-APPLIED: PMDK's atomicity broken.
 *
 * The control (--no-map-sync, with PMEM_IS_PMEM_FORCE=1 in the environment):
 * the same program on the same DAX file with MAP_SYNC refused, as a kernel
 * without it would (validate/clients/pmdk_shim.h); PMDK then maps plain
 * MAP_SHARED, takes the pool for pmem because it is told to, and never
 * calls msync: the new blocks' mapping is not durable and a crash must be
 * able to lose reported transactions.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <libpmemobj.h>

#include "cli.h"
#include "crashlink.h"
#include "daxfile.h"
#include "exitcodes.h"
#include "json.h"
#include "pmdk_shim.h"
#include "pmpattern.h"
#include "pmverdict.h"

#define TOOL		"pmobjtx"
#define LAYOUT		"pmobjtx"
#define JSON_VERSION	1
#define ROOT_MAGIC	0x315854424f4d50ULL	/* "PMOBTX1" */
#define OBJ_TYPE	1
#define POOL_SIZE	(16ULL << 20)
#define MAX_TX		65536

/* The root: who wrote the pool (as pmwrite's FILE.ident), then the data. */
struct root {
	uint64_t magic;
	struct pmp_ident id;
	uint64_t count;			/* transactions committed */
	PMEMoid obj[];			/* id.pages of them */
};

static struct env {
	const char *path, *tag, *gate;
	struct pmp_ident id;
	bool replace, hold, no_map_sync, no_dax_check, verify;
	bool crash_set;
	uint64_t crash_after;
	struct pmv_opts vopts;	/* --verify: -r -j -L */
} env = { .id = PMP_IDENT_DEFAULT };

/* ---- command line ---- */

const char *argp_program_version = TOOL " 1";
const char argp_program_doc[] =
"The crash test's PMDK writer and verifier: transactions on a libpmemobj\n"
"pool, each a new object holding one pattern page (validate/crash/README.md).\n"
"\n"
"USAGE: pmobjtx -f FILE [-n TX] [-s SEED] [-g GEN] [-w W] [-t TAG] [--no-map-sync] [--no-dax-check]\n"
"               [--gate DIR] [--hold] [--crash-after K] [--replace]\n"
"       pmobjtx --verify -f FILE [-n TX] [-s SEED] [-g GEN] [-w W] [-r R] [-j] [-L K=V]...\n"
"\n"
"Writer output (one write(2) a line): 'S TAG mode=pmdk map=sync|shared\n"
"map_sync=0|1 vm_sync=0|1 msync=N tx=N gen=G' once the pool is durable, 'P TAG n'\n"
"after transaction n committed, 'D TAG n' at the end. -n counts transactions.\n"
"\n"
"EXAMPLES:\n"
"    pmobjtx -f /mnt/dax/pool -n 256 -s 7 -w 3 --hold\n"
"    PMEM_IS_PMEM_FORCE=1 pmobjtx -f /mnt/dax/pool --no-map-sync   # the control\n"
"    pmobjtx --verify -f /mnt/dax/pool -n 256 -s 7 -w 3 -r 120 -j\n"
"\n"
"Exit status: 0 ok, 1 runtime error, 2 usage, 3 not DAX, 6 no space, 10 (--verify) a\n"
"recorded transaction lost, one half-applied or the pool inconsistent,\n"
"11 FILE exists (not replaced).\n";

enum { OPT_HOLD = 256, OPT_GATE, OPT_CRASH_AFTER, OPT_NO_MAP_SYNC, OPT_NO_DAX_CHECK, OPT_VERIFY };

static const struct argp_option opts[] = {
	{ "file", 'f', "PATH", 0, "The pool file (required)", 0 },
	PMP_IDENT_OPTIONS,
	{ "tag", 't', "TAG", 0, "Name in the progress lines (default: the file's name)", 0 },
	{ "replace", CLI_OPT_REPLACE, NULL, 0, "Writer: remove FILE first if it is a regular file", 0 },
	{ "no-map-sync", OPT_NO_MAP_SYNC, NULL, 0, "Writer: refuse PMDK's MAP_SYNC (the control)", 0 },
	{ "no-dax-check", OPT_NO_DAX_CHECK, NULL, 0, "Writer: run on a file that is not DAX (host tests)", 0 },
	{ "gate", OPT_GATE, "DIR", 0, "Writer: when the pool is durable, create DIR/ready.TAG and wait for DIR/go", 0 },
	{ "hold", OPT_HOLD, NULL, 0, "Writer: after the last transaction keep the pool open until killed", 0 },
	{ "crash-after", OPT_CRASH_AFTER, "K", 0, "Writer: crash the machine (sysrq c) after K transactions", 0 },
	{ "verify", OPT_VERIFY, NULL, 0, "Check the pool after a crash instead of writing", 0 },
	PMV_OPTIONS("Verify: transactions the host saw committed (default: all)"),
	CLI_OPT_HELP,
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	if (pmp_ident_option(&env.id, key, arg) || pmv_option(&env.vopts, key, arg))
		return 0;
	switch (key) {
	case 'f': env.path = cli_nonempty_arg("--file", arg); break;
	case 't': env.tag = cli_nonempty_arg("--tag", arg); break;
	case CLI_OPT_REPLACE: env.replace = true; break;
	case OPT_NO_MAP_SYNC: env.no_map_sync = true; break;
	case OPT_NO_DAX_CHECK: env.no_dax_check = true; break;
	case OPT_GATE: env.gate = cli_nonempty_arg("--gate", arg); break;
	case OPT_HOLD: env.hold = true; break;
	case OPT_VERIFY: env.verify = true; break;
	case OPT_CRASH_AFTER:
		if (!cli_parse_u64(arg, 0, 0, PMP_MAX_PAGES, &env.crash_after))
			cli_usage_error("invalid --crash-after '%s'", arg);
		env.crash_set = true;
		break;
	case ARGP_KEY_END:
		if (!env.path)
			cli_usage_error("--file is required");
		if (env.id.pages > MAX_TX)
			cli_usage_error("--pages %llu: at most %d transactions",
					(unsigned long long)env.id.pages, MAX_TX);
		if (env.crash_set)
			pmp_ident_check_count(&env.id, "--crash-after", env.crash_after);
		pmv_options_end(&env.vopts, &env.id);
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}

static size_t root_size(void)
{
	return sizeof(struct root) + env.id.pages * sizeof(PMEMoid);
}

/* ---- writer ---- */

static struct {
	char tag[64];
	bool created;
	PMEMobjpool *pop;
	struct root *root;
	int sysrq_fd;
} w = { .sysrq_fd = -1 };

/* fsync FILE and its directory: the pool exists after a crash. */
static int make_durable(void)
{
	char *copy = strdup(env.path);
	int fd = open(env.path, O_RDONLY | O_CLOEXEC), dfd = -1, err = 0;

	if (!copy || fd < 0 || fsync(fd))
		err = cli_fail_errno(copy ? errno : ENOMEM, "fsync %s", env.path);
	else if ((dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || fsync(dfd))
		err = cli_fail_errno(errno, "fsync the directory of %s", env.path);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	free(copy);
	return err;
}

/* FILE afresh (a DAX file), the pool, the root with the writer's identity;
 * all of it durable before the gate. */
static int create_pool(void)
{
	const char *fs_name;
	PMEMoid oid;
	int fd, err;
	bool dax;

	if ((err = cli_target_create(env.path, env.replace, &fd)))
		return err;
	w.created = true;
	if ((err = daxfile_check(fd, env.path, env.no_dax_check, &dax, &fs_name))) {
		close(fd);
		return err;
	}
	if ((err = pmdk_pool_create(env.path, LAYOUT, fd, POOL_SIZE, &w.pop)))
		return err;
	oid = pmemobj_root(w.pop, root_size());
	if (OID_IS_NULL(oid))
		return pmdk_fail("pmemobj_root", env.path);
	w.root = pmemobj_direct(oid);
	w.root->id = env.id;
	w.root->magic = ROOT_MAGIC;
	pmemobj_persist(w.pop, w.root, sizeof(*w.root));
	return make_durable();
}

/* Transaction @i: a new object holding pattern page i, linked and counted. */
static int one_tx(uint64_t i, const struct pmp_key *key)
{
	volatile int failed = 0;

	TX_BEGIN(w.pop) {
		PMEMoid oid = pmemobj_tx_alloc(PMP_PAGE_SIZE, OBJ_TYPE);

		pmp_fill(pmemobj_direct(oid), key, i);
		pmemobj_tx_add_range_direct(&w.root->obj[i], sizeof(PMEMoid));
		pmemobj_tx_add_range_direct(&w.root->count, sizeof(w.root->count));
		w.root->obj[i] = oid;
		w.root->count = i + 1;
	} TX_ONABORT {
		failed = errno ? errno : EIO;
	} TX_END
	if (failed)
		return cli_fail(cli_exit_code(failed), "transaction %llu on %s aborted: %s",
				(unsigned long long)i, env.path, pmemobj_errormsg());
	return 0;
}

static int write_transactions(void)
{
	const struct pmp_key key = pmp_ident_key(&env.id);
	bool map_sync, vm_sync;
	uint64_t i;
	int err;

	if ((err = pmdk_shim_decision(w.root, env.path, &map_sync, &vm_sync)) ||
	    (env.gate && (err = crashlink_gate(env.gate, w.tag))))
		return err;
	/* What PMDK decided, from the process itself: the host keeps it. */
	if ((err = crashlink_emit("S %s mode=pmdk map=%s map_sync=%d vm_sync=%d msync=%lu tx=%llu gen=%llu\n",
				  w.tag, env.no_map_sync ? "shared" : "sync", map_sync, vm_sync,
				  pmdk_shim_msyncs(), (unsigned long long)env.id.pages,
				  (unsigned long long)env.id.generation)))
		return err;
	if (env.crash_set && env.crash_after == 0)
		return crashlink_sysrq(w.sysrq_fd, w.tag, 0);
	for (i = 0; i < env.id.pages && !cli_stop_signal; i++) {
		if ((err = one_tx(i, &key)) ||
		    (err = crashlink_emit("P %s %llu\n", w.tag, (unsigned long long)(i + 1))))
			return err;
		if (env.crash_set && env.crash_after == i + 1)
			return crashlink_sysrq(w.sysrq_fd, w.tag, i + 1);
	}
	if (cli_stop_signal)
		return cli_fail(EXIT_RUNTIME, "interrupted after %llu transactions: %s",
				(unsigned long long)i, strsignal(cli_stop_signal));
	return crashlink_emit("D %s %llu msync=%lu\n", w.tag, (unsigned long long)i, pmdk_shim_msyncs());
}

static int writer(void)
{
	char *copy = strdup(env.path);
	int err;

	snprintf(w.tag, sizeof(w.tag), "%s", env.tag ? env.tag : copy ? basename(copy) : "pool");
	free(copy);
	pmdk_shim_refuse_map_sync = env.no_map_sync;
	if (env.crash_set && (w.sysrq_fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC)) < 0)
		return cli_fail_errno(errno, "open /proc/sysrq-trigger");
	if (!(err = create_pool()) && !(err = write_transactions()))
		while (env.hold && !cli_stop_signal)
			pause();
	if (w.pop)
		pmemobj_close(w.pop);
	/* Refused or failed before the pool was durable: leave nothing. */
	if (err && w.created && !w.root)
		unlink(env.path);
	if (w.sysrq_fd >= 0)
		close(w.sysrq_fd);
	return err;
}

/* ---- verifier ---- */

/* Classes of a transaction besides the page classes of its object. */
enum { TX_UNCOMMITTED = PMP_NR_CLASSES, TX_NO_OBJECT, TX_UNOPENABLE, TX_NR_CLASSES };

static const char *tx_class_name(int c)
{
	switch (c) {
	case TX_UNCOMMITTED: return "uncommitted";
	case TX_NO_OBJECT: return "no_object";
	case TX_UNOPENABLE: return "unopenable";
	default: return pmp_class_name((enum pmp_class)c);
	}
}

struct verdict {
	bool file_exists, opened;
	int check;			/* pmemobj_check: 1 consistent, 0 not, -1 error */
	uint64_t committed, half_applied;
	uint64_t before[TX_NR_CLASSES], after[TX_NR_CLASSES];
};

static int classify_tx(const struct root *r, uint64_t i, const struct pmp_key *key,
		       struct verdict *v)
{
	PMEMoid oid = r->obj[i];
	int c;

	if (i >= r->count) {
		c = TX_UNCOMMITTED;
		if (!OID_IS_NULL(oid))
			v->half_applied++;	/* linked, not counted: not rolled back */
	} else if (OID_IS_NULL(oid) || oid.pool_uuid_lo != pmemobj_oid(r).pool_uuid_lo) {
		c = TX_NO_OBJECT;
		v->half_applied++;
	} else {
		c = pmp_classify(pmemobj_direct(oid), key, i, NULL);
		if (c != PMP_OK)
			v->half_applied++;
	}
	return c;
}

static int verify_pool(struct verdict *v)
{
	const struct pmp_key key = pmp_ident_key(&env.id);
	PMEMobjpool *pop;
	struct root *r;
	struct stat st;
	size_t have;

	v->file_exists = stat(env.path, &st) == 0;
	if (!v->file_exists) {
		v->before[PMP_NOFILE] = env.vopts.recorded;
		return 0;
	}
	/* Before the open, whose recovery would repair what it finds. */
	v->check = pmemobj_check(env.path, LAYOUT);
	if (!(pop = pmemobj_open(env.path, LAYOUT))) {
		v->before[TX_UNOPENABLE] = env.vopts.recorded;
		return 0;
	}
	v->opened = true;
	/* Asked with the size it has: a root of another size would be reallocated. */
	have = pmemobj_root_size(pop);
	r = have ? pmemobj_direct(pmemobj_root(pop, have)) : NULL;
	if (!r || have != root_size() || r->magic != ROOT_MAGIC || !pmp_ident_equal(&r->id, &env.id)) {
		pmemobj_close(pop);
		return cli_fail(EXIT_RUNTIME, "%s: not this writer's pool (root of %zu bytes): "
				"wrong -n/-s/-g/-w?", env.path, have);
	}
	v->committed = r->count;
	for (uint64_t i = 0; i < env.id.pages; i++) {
		int c = classify_tx(r, i, &key, v);

		if (i < env.vopts.recorded)
			v->before[c]++;
		else
			v->after[c]++;
	}
	pmemobj_close(pop);
	return 0;
}

static void json_counts(struct json_writer *jw, const char *key, const uint64_t *counts)
{
	json_key(jw, key);
	json_begin_object(jw);
	for (int c = 0; c < TX_NR_CLASSES; c++)
		if (c != PMP_BEYOND_EOF)
			json_kv_uint(jw, tx_class_name(c), counts[c]);
	json_end_object(jw);
}

static const char *check_name(int check)
{
	return check > 0 ? "consistent" : check == 0 ? "inconsistent" : "error";
}

static int print_verdict(const struct verdict *v)
{
	uint64_t lost = env.vopts.recorded - v->before[PMP_OK];
	struct json_writer jw;

	if (!env.vopts.json) {
		printf("%s: %llu transactions, recorded %llu: verified %llu, lost %llu, committed %llu, "
		       "half-applied %llu, pmemobj_check %s\n", env.path, (unsigned long long)env.id.pages,
		       (unsigned long long)env.vopts.recorded, (unsigned long long)v->before[PMP_OK],
		       (unsigned long long)lost, (unsigned long long)v->committed,
		       (unsigned long long)v->half_applied, v->file_exists ? check_name(v->check) : "nofile");
		return fflush(stdout) ? cli_fail_errno(errno, "write stdout") : 0;
	}
	json_init(&jw, stdout);
	pmv_json_head(&jw, TOOL, JSON_VERSION, &env.vopts, env.path, &env.id);
	json_kv_bool(&jw, "file_exists", v->file_exists);
	json_kv_string(&jw, "pool_check", v->file_exists ? check_name(v->check) : "nofile");
	json_kv_bool(&jw, "pool_opened", v->opened);
	json_kv_uint(&jw, "committed", v->committed);
	json_kv_uint(&jw, "half_applied", v->half_applied);
	json_kv_uint(&jw, "verified", v->before[PMP_OK]);
	json_kv_uint(&jw, "lost", lost);
	json_kv_uint(&jw, "ok_after", v->after[PMP_OK]);
	json_counts(&jw, "before", v->before);
	json_counts(&jw, "after", v->after);
	json_end_object(&jw);
	return cli_json_finish(&jw);
}

static int verifier(void)
{
	struct verdict v = { .check = -1 };
	int err;

	if ((err = verify_pool(&v)) || (err = print_verdict(&v)))
		return err;
	if (v.before[PMP_OK] != env.vopts.recorded || v.half_applied || v.check != 1)
		return EXIT_DATA_LOST;
	return 0;
}

int main(int argc, char **argv)
{
	int err;

	cli_parse_args(TOOL, opts, parse_arg, argp_program_doc, argc, argv);
	if ((err = cli_install_signal_handlers()))
		return err;
	return env.verify ? verifier() : writer();
}
