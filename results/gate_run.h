/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a gate run (bench/gate-run.sh, make reproduce): its meta.txt and
 * samples.txt, every line checked before anything is compared. A malformed
 * file is refused with "FILE:LINE: what" and EXIT_BAD_INPUT; a missing one
 * is named (EXIT_RUNTIME). The rules: results/README.md, "Inputs it
 * refuses"; tests/unit/test-gate.sh and test-gate-fuzz.sh.
 */
#ifndef SUITE_GATE_RUN_H
#define SUITE_GATE_RUN_H

#include <stdbool.h>
#include <stddef.h>

#define ID_MAX 999999UL		/* boots and rounds: a reference's boots are offset by 1e6 */
#define NS_DIGITS 15		/* a sample is below 1e15 ns (11 days) */

/* A run's meta.txt: KEY=VALUE lines, each key once (values without their
 * shell quotes), and the numbers its rows are checked by (-1: not given). */
struct meta {
	char path[4096];
	struct meta_kv {
		char *key, *val;
		size_t line;
	} *kv;
	size_t n;
	long pages, rounds, boots, reps, persist_writes, phases;
};

/* A row of samples.txt: one faultlat run (or one daxlat phase run). */
struct run {
	long boot;		/* plus the reference's offset */
	unsigned long round;
	size_t line;		/* of samples.txt, for "again (first on line N)" */
	double *v;
	size_t n;
};

enum { SIDE_BASE, SIDE_NEW, SIDE_REF, NSIDES };

struct group {
	char fs[16], scen[64];
	struct run *runs[NSIDES];
	size_t nruns[NSIDES];
};

struct groups {
	struct group *g;
	size_t n;
};

/*
 * A run: DIR's meta.txt into m, then its samples.txt's rows into side's
 * runs of gs (boot_base keeps several references' boots apart); *lines
 * gets samples.txt's line count. Returns 0 or the exit code of the line it
 * printed.
 */
int read_run(struct groups *gs, int side, long boot_base, const char *dir, struct meta *m, size_t *lines);
void free_groups(struct groups *gs);
void free_meta(struct meta *m);

const struct meta_kv *meta_get(const struct meta *m, const char *key);
/* The value of key, or "(none)". */
const char *meta_val(const struct meta *m, const char *key);
/* SCENARIO:PHASE, daxlat's in-kernel phases of the scenario's faults. */
bool is_phase(const char *scen);
bool is_tool_row(const char *scen);
/* The group of fs and scen, or NULL. */
const struct group *lookup_group(const struct groups *gs, const char *fs, const char *scen);
/* "PATH:LINE: what" (line 0: "PATH: what") on stderr; EXIT_BAD_INPUT. */
int bad(const char *path, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* SUITE_GATE_RUN_H */
