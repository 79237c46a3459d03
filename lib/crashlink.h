/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crash test's writers talk to the host the same way (validate/crash/):
 * progress lines on stdout, one write(2) each; a start gate shared by all
 * writers of a boot; the crash of the guest by sysrq at a chosen moment.
 * Used by pmwrite (pages) and pmobjtx (PMDK transactions).
 */
#ifndef SUITE_CRASHLINK_H
#define SUITE_CRASHLINK_H

#include <stdint.h>

/*
 * One progress line ("P TAG n\n"), written with one write(2) and no stdio
 * buffer in between: a line the host holds was written whole, after what
 * it reports. Returns 0 or an exit code (error printed).
 */
int crashlink_emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Say ready (create GATE/ready.TAG), then wait for GATE/go: many writers
 * start storing at once, each after its file is durable. Returns 0, or an
 * exit code when interrupted.
 */
int crashlink_gate(const char *gate, const char *tag);

/*
 * Crash the guest now: "C TAG done sysrq", then 'c' to @sysrq_fd (opened
 * beforehand on /proc/sysrq-trigger, so only the write is left to do).
 * Returns an exit code only if the machine is still alive after it.
 */
int crashlink_sysrq(int sysrq_fd, const char *tag, uint64_t done);

#endif /* SUITE_CRASHLINK_H */
