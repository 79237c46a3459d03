// SPDX-License-Identifier: GPL-2.0
/* The crash test's writer-to-host link (crashlink.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "crashlink.h"
#include "exitcodes.h"

int crashlink_emit(const char *fmt, ...)
{
	char buf[256];
	struct timespec tick = { 0, 1000 * 1000 };
	va_list ap;
	int len;
	ssize_t n;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(buf))
		return cli_fail(EXIT_RUNTIME, "progress line too long");
	for (int off = 0, tries = 0; off < len;) {
		n = write(STDOUT_FILENO, buf + off, (size_t)(len - off));
		if (n > 0) {
			off += (int)n;
			continue;
		}
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return cli_fail_errno(errno, "write progress to stdout");
		/*
		 * 0: the virtio console's ring was full (two writers raced
		 * past its "writable" check); nothing was sent, try again.
		 */
		if (++tries > 10000)
			return cli_fail(EXIT_RUNTIME, "write progress to stdout: no progress in 10 s");
		nanosleep(&tick, NULL);
	}
	return 0;
}

/*
 * Without the gate, one writer's preparation fsync would commit another
 * control writer's first page faults, and the crash delay would count from
 * a moment nobody agreed on.
 */
int crashlink_gate(const char *gate, const char *tag)
{
	struct timespec tick = { 0, 5 * 1000 * 1000 };
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/ready.%s", gate, tag);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return cli_fail_errno(errno, "create %s", path);
	close(fd);
	snprintf(path, sizeof(path), "%s/go", gate);
	while (access(path, F_OK) && !cli_stop_signal)
		nanosleep(&tick, NULL);
	if (cli_stop_signal)
		return cli_fail(EXIT_RUNTIME, "interrupted at the start gate: %s", strsignal(cli_stop_signal));
	return 0;
}

int crashlink_sysrq(int sysrq_fd, const char *tag, uint64_t done)
{
	/* Say why the guest is about to die; the host may or may not get it. */
	crashlink_emit("C %s %llu sysrq\n", tag, (unsigned long long)done);
	if (write(sysrq_fd, "c", 1) != 1)
		return cli_fail_errno(errno, "write /proc/sysrq-trigger");
	return cli_fail(EXIT_RUNTIME, "still alive after writing 'c' to /proc/sysrq-trigger");
}
