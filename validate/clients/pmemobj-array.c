// SPDX-License-Identifier: GPL-2.0
/*
 * pmemobj-array: the suite's PMDK client (issue 32). A libpmemobj pool
 * holding a persistent array, updated in transactions by T threads, linked
 * against Debian's libpmemobj as an application would be:
 *
 *   pmemobj-array -f /mnt/xfs/pool [-n TX] [-t THREADS] [-s SIZE] [--keep]
 *
 * Prints what PMDK decided, as seen from the process itself, then the
 * transactions read back from the reopened pool and their latency:
 *
 *   pmdk: map_sync=1 vm_sync=1 msync=10 tx_msync=0
 *   tx: count=1000 threads=4 median_ns=5120 p99_ns=20480
 *
 * map_sync: the mmap that holds the pool was asked for with MAP_SYNC and
 * succeeded (PMDK tries MAP_SHARED_VALIDATE|MAP_SYNC, then falls back to
 * MAP_SHARED); vm_sync: "sf" in /proc/self/smaps for that mapping; msync:
 * the msync() calls PMDK made in the whole run, tx_msync those made while
 * the transactions ran (its flush path when it does not take the
 * pool for pmem), counted by pmdk_shim.c.
 *
 * FILE is the tool's own (lib/cli): created afresh (an existing one refused
 * and left untouched, --replace removes a regular file), fallocated as
 * pmemobj_create does for a pool it creates, and removed at the end unless
 * --keep (then pmempool may check it). Not refused on a non-DAX filesystem:
 * what PMDK does there is one of the things to see.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <libpmemobj.h>

#include "cli.h"
#include "exitcodes.h"
#include "hist.h"
#include "pmdk_shim.h"

#define TOOL "pmemobj-array"
#define LAYOUT "pmemobj-array"
#define MAX_THREADS 64
#define SLOTS 4096		/* per thread: 32 KiB, 8 pages */

/* Each thread's counter on a cache line of its own. */
struct counter {
	uint64_t n;
	uint64_t pad[7];
};
struct root {
	struct counter ntx[MAX_THREADS];
	uint64_t slot[MAX_THREADS][SLOTS];
};

static struct {
	const char *path;
	uint64_t tx, threads, size;
	bool replace, keep, no_map_sync;
} env = { .tx = 1000, .threads = 1, .size = 16 << 20 };

/* ---- command line ---- */

const char *argp_program_version = TOOL " 1";
const char argp_program_doc[] =
"A libpmemobj pool holding a persistent array, updated in transactions by\n"
"several threads (Debian's PMDK): what PMDK decided (MAP_SYNC, VM_SYNC, the\n"
"msync calls of its flush path) and each transaction's latency.\n"
"\n"
"USAGE: pmemobj-array -f FILE [-n TX] [-t THREADS] [-s SIZE] [--keep] [--replace] [--no-map-sync]\n"
"\n"
"Output: 'pmdk: map_sync=0|1 vm_sync=0|1 msync=N tx_msync=M' (msync: the\n"
"calls in the whole run, tx_msync: while the transactions ran), then 'tx: count=N\n"
"threads=T median_ns=M p99_ns=P' (count: the transactions read back from\n"
"the pool reopened). FILE is the tool's own: created afresh (an existing\n"
"one refused and left untouched) and removed at the end unless --keep.\n"
"PMEM_IS_PMEM_FORCE and PMEMOBJ_CONF reach PMDK as usual.\n"
"\n"
"EXAMPLES:\n"
"    pmemobj-array -f /mnt/xfs/pool -n 1000 -t 4\n"
"    pmemobj-array -f /mnt/ext4/pool --keep && pmempool check /mnt/ext4/pool\n"
"\n"
"Exit status: 0 ok, 1 runtime error (PMDK's message named), 2 usage,\n"
"6 no space left, 11 FILE exists (not replaced).\n";

enum { OPT_KEEP = 256, OPT_NO_MAP_SYNC };

static const struct argp_option opts[] = {
	{ "file", 'f', "PATH", 0, "The pool file to create (required); removed at the end unless --keep", 0 },
	{ "replace", CLI_OPT_REPLACE, NULL, 0, "Remove FILE first if it exists (a regular file only; "
	  "without it, an existing FILE is refused and left untouched)", 0 },
	{ "transactions", 'n', "N", 0, "Transactions in all, shared by the threads (1..10000000, default 1000)", 0 },
	{ "threads", 't', "N", 0, "Threads (1..64, default 1)", 0 },
	{ "size", 's', "SIZE", 0, "Pool size, K/M/G suffixes (8M..4G, default 16M)", 0 },
	{ "keep", OPT_KEEP, NULL, 0, "Leave the pool for pmempool: it is then the caller's to remove", 0 },
	{ "no-map-sync", OPT_NO_MAP_SYNC, NULL, 0, "Refuse PMDK's MAP_SYNC (EOPNOTSUPP, as a kernel without it): PMDK falls back to MAP_SHARED and msync", 0 },
	CLI_OPT_HELP,
	{ 0 },
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'f':
		env.path = cli_nonempty_arg("--file", arg);
		break;
	case CLI_OPT_REPLACE:
		env.replace = true;
		break;
	case 'n':
		if (!cli_parse_u64(arg, 10, 1, 10000000, &env.tx))
			cli_usage_error("invalid --transactions '%s' (1..10000000)", arg);
		break;
	case 't':
		if (!cli_parse_u64(arg, 10, 1, MAX_THREADS, &env.threads))
			cli_usage_error("invalid --threads '%s' (1..%d)", arg, MAX_THREADS);
		break;
	case 's':
		if (!cli_parse_size(arg, PMEMOBJ_MIN_POOL, 4ULL << 30, &env.size))
			cli_usage_error("invalid --size '%s' (8M..4G)", arg);
		break;
	case OPT_KEEP:
		env.keep = true;
		break;
	case OPT_NO_MAP_SYNC:
		env.no_map_sync = true;
		break;
	case ARGP_KEY_END:
		if (!env.path)
			cli_usage_error("--file is required");
		break;
	default:
		return cli_argp_default(key, arg, state);
	}
	return 0;
}

/* ---- the pool ---- */

/* What this run created, and so removes: nothing else. */
static struct {
	bool created;
	PMEMobjpool *pop;
	struct root *root;
	uint64_t *ns;		/* each transaction's latency */
	bool map_sync, vm_sync;
	unsigned long tx_msyncs;	/* msync calls while the transactions ran */
} run;

/* FILE afresh, then the pool in it. */
static int create_pool(void)
{
	int fd, err;

	if ((err = cli_target_create(env.path, env.replace, &fd)))
		return err;
	run.created = true;
	return pmdk_pool_create(env.path, LAYOUT, fd, env.size, &run.pop);
}

/* The root object, zeroed by PMDK on its first allocation. */
static int get_root(void)
{
	PMEMoid oid = pmemobj_root(run.pop, sizeof(struct root));

	if (OID_IS_NULL(oid))
		return pmdk_fail("pmemobj_root", env.path);
	run.root = pmemobj_direct(oid);
	return 0;
}

/* The mapping that holds the root object: asked with MAP_SYNC, and VM_SYNC. */
static int see_decision(void)
{
	return pmdk_shim_decision(run.root, env.path, &run.map_sync, &run.vm_sync);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One transaction: bump @slot and thread @t's counter; 0 or the abort's errno. */
static int one_tx(struct root *r, uint64_t t, uint64_t *slot)
{
	volatile int failed = 0;

	TX_BEGIN(run.pop) {
		pmemobj_tx_add_range_direct(slot, sizeof(*slot));
		pmemobj_tx_add_range_direct(&r->ntx[t].n, sizeof(r->ntx[t].n));
		(*slot)++;
		r->ntx[t].n++;
	} TX_ONABORT {
		failed = errno ? errno : EIO;
	} TX_END
	return failed;
}

/* Thread @arg: its share of the transactions, each on one slot of its row
 * (rows are the threads' own: no two transactions touch the same range);
 * NULL, or the abort's errno as a pointer. */
static void *transactions(void *arg)
{
	uint64_t t = (uintptr_t)arg, base = env.tx / env.threads, rem = env.tx % env.threads;
	uint64_t n = base + (t < rem), *ns = run.ns + t * base + (t < rem ? t : rem);

	for (uint64_t i = 0; i < n && !cli_stop_signal; i++) {
		uint64_t t0 = now_ns();
		int err = one_tx(run.root, t, &run.root->slot[t][i % SLOTS]);

		if (err)
			return (void *)(intptr_t)err;
		ns[i] = now_ns() - t0;
	}
	return NULL;
}

/* The threads; 0 or an exit code. */
static int run_threads(void)
{
	pthread_t th[MAX_THREADS];
	uint64_t started = 0;
	int err = 0;
	unsigned long msyncs_before = pmdk_shim_msyncs();

	if (!(run.ns = calloc(env.tx, sizeof(*run.ns))))
		return cli_fail_errno(ENOMEM, "latencies");
	while (!err && started < env.threads) {
		if ((err = pthread_create(&th[started], NULL, transactions, (void *)(uintptr_t)started)))
			err = cli_fail_errno(err, "start thread %llu", (unsigned long long)started);
		else
			started++;
	}
	for (uint64_t i = 0; i < started; i++) {
		void *failed = NULL;

		pthread_join(th[i], &failed);
		if (failed && !err)
			err = cli_fail(cli_exit_code((int)(intptr_t)failed), "transaction on %s aborted: %s",
				       env.path, pmemobj_errormsg());
	}
	run.tx_msyncs = pmdk_shim_msyncs() - msyncs_before;
	if (!err && cli_stop_signal)
		err = cli_fail(EXIT_RUNTIME, "interrupted: %s", strsignal(cli_stop_signal));
	return err;
}

/* Close, reopen and count: every transaction is in the pool, once. */
static int read_back(uint64_t *count)
{
	uint64_t slots = 0;
	struct root *r;

	pmemobj_close(run.pop);
	if (!(run.pop = pmemobj_open(env.path, LAYOUT)))
		return pmdk_fail("pmemobj_open", env.path);
	if (pmemobj_root_size(run.pop) != sizeof(struct root))
		return cli_fail(EXIT_RUNTIME, "%s: root object of %zu bytes, want %zu", env.path,
				pmemobj_root_size(run.pop), sizeof(struct root));
	r = pmemobj_direct(pmemobj_root(run.pop, sizeof(struct root)));
	*count = 0;
	for (uint64_t t = 0; t < MAX_THREADS; t++) {
		*count += r->ntx[t].n;
		for (uint64_t k = 0; k < SLOTS; k++)
			slots += r->slot[t][k];
	}
	if (*count != env.tx || slots != env.tx)
		return cli_fail(EXIT_RUNTIME, "%s reopened: %llu transactions counted, %llu in the "
				"slots, %llu committed", env.path, (unsigned long long)*count,
				(unsigned long long)slots, (unsigned long long)env.tx);
	return 0;
}

static int report(uint64_t count)
{
	struct stats st;

	if (stats_compute(run.ns, env.tx, 1, &st))
		return cli_fail(EXIT_RUNTIME, "no latencies");
	printf("pmdk: map_sync=%d vm_sync=%d msync=%lu tx_msync=%lu\n", run.map_sync, run.vm_sync,
	       pmdk_shim_msyncs(), run.tx_msyncs);
	printf("tx: count=%llu threads=%llu median_ns=%llu p99_ns=%llu\n", (unsigned long long)count,
	       (unsigned long long)env.threads, (unsigned long long)st.median,
	       (unsigned long long)st.p99);
	if (fflush(stdout) || ferror(stdout))
		return cli_fail_errno(errno ? errno : EIO, "write stdout");
	return 0;
}

/* Close the pool; remove FILE if this run created it, unless kept. */
static void cleanup(bool keep)
{
	if (run.pop)
		pmemobj_close(run.pop);
	if (run.created && !keep)
		unlink(env.path);
	free(run.ns);
}

int main(int argc, char **argv)
{
	uint64_t count = 0;
	int err;

	cli_parse_args(TOOL, opts, parse_arg, argp_program_doc, argc, argv);
	pmdk_shim_refuse_map_sync = env.no_map_sync;
	if (!(err = cli_install_signal_handlers()) && !(err = create_pool()) && !(err = get_root()) &&
	    !(err = see_decision()) && !(err = run_threads()) && !(err = read_back(&count)))
		err = report(count);
	/* A failed run leaves nothing; a kept pool is the caller's. */
	cleanup(env.keep && !err);
	return err;
}
