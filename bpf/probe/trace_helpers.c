// SPDX-License-Identifier: GPL-2.0
/* User space shared by the libbpf tools: see trace_helpers.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "trace_helpers.h"

/* ---- messages ------------------------------------------------------------ */

static const char *log_prog = "?";
static bool log_on, log_timestamps;

void verbose_setup(const char *prog, bool on, bool timestamps)
{
	log_prog = prog;
	log_on = on;
	log_timestamps = timestamps;
}

void verbose(const char *fmt, ...)
{
	static struct timespec t0;
	struct timespec now;
	va_list ap;

	if (!log_on)
		return;
	if (log_timestamps) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!t0.tv_sec)
			t0 = now;
		fprintf(stderr, "%s: [%.3f] ", log_prog, (double)(now.tv_sec - t0.tv_sec) +
			(double)(now.tv_nsec - t0.tv_nsec) / 1e9);
	} else {
		fprintf(stderr, "%s: ", log_prog);
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int libbpf_print_verbose(enum libbpf_print_level level, const char *fmt,
			 va_list args)
{
	(void)level;
	return log_on ? vfprintf(stderr, fmt, args) : 0;
}

long argp_parse_long(const char *arg, const char *what, long min, long max,
		     struct argp_state *state)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		argp_error(state, "invalid %s: %s (%ld..%ld)", what, arg, min, max);
	return v;
}

error_t trace_opts_parse(struct trace_opts *o, int key, char *arg,
			 struct argp_state *state)
{
	switch (key) {
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case 'p':
		o->pid = (pid_t)argp_parse_long(arg, "PID", 1, PID_MAX_LIMIT_64, state);
		break;
	case 'c':
		if (!arg[0] || strspn(arg, " \t\n") == strlen(arg))
			argp_error(state, "empty command for -c");
		o->cmd = arg;
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_KPROBES:
		o->kprobes = true;
		break;
	case OPT_RAW_TP:
		o->raw_tp = true;
		break;
	case OPT_FENTRY:
		o->fentry = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- kernel BTF ---------------------------------------------------------- */

static struct btf *vmlinux_btf;

struct modbtf {
	char name[64];
	struct btf *btf;
	int fd;
};
static struct modbtf *modbtfs;
static size_t nmodbtfs;
static bool modbtfs_loaded;

int kernel_btf_load(void)
{
	vmlinux_btf = btf__load_vmlinux_btf();
	return vmlinux_btf ? 0 : -errno;
}

const struct btf *kernel_btf_vmlinux(void)
{
	return vmlinux_btf;
}

void kernel_btf_load_modules(void)
{
	__u32 id = 0;

	if (modbtfs_loaded)
		return;
	modbtfs_loaded = true;
	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char name[64] = "";
		struct modbtf *m;
		struct btf *btf;
		int fd;

		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.kernel_btf ||
		    !strcmp(name, "vmlinux")) {
			close(fd);
			continue;
		}
		btf = btf__load_from_kernel_by_id_split(id, vmlinux_btf);
		m = btf ? realloc(modbtfs, (nmodbtfs + 1) * sizeof(*modbtfs)) : NULL;
		if (!m) {
			btf__free(btf);
			close(fd);
			continue;
		}
		modbtfs = m;
		m = &modbtfs[nmodbtfs++];
		snprintf(m->name, sizeof(m->name), "%s", name);
		m->btf = btf;
		m->fd = fd;	/* kept: the kernel wants it as attach_btf_obj_fd */
	}
}

void kernel_btf_free(void)
{
	for (size_t i = 0; i < nmodbtfs; i++) {
		btf__free(modbtfs[i].btf);
		close(modbtfs[i].fd);
	}
	free(modbtfs);
	modbtfs = NULL;
	nmodbtfs = 0;
	modbtfs_loaded = false;
	btf__free(vmlinux_btf);
	vmlinux_btf = NULL;
}

int kernel_btf_find(const char *name, __u32 kind, struct kernel_btf_loc *loc)
{
	struct kernel_btf_loc dummy;
	int id = btf__find_by_name_kind(vmlinux_btf, name, kind);

	if (!loc)
		loc = &dummy;
	if (id > 0) {
		loc->obj_fd = 0, loc->module = NULL;
		return id;
	}
	kernel_btf_load_modules();
	for (size_t i = 0; i < nmodbtfs; i++) {
		id = btf__find_by_name_kind(modbtfs[i].btf, name, kind);
		if (id > 0) {
			loc->obj_fd = modbtfs[i].fd, loc->module = modbtfs[i].name;
			return id;
		}
	}
	return -ENOENT;
}

static bool btf_has_member(const struct btf *btf, const char *type, const char *member)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return true;
	return false;
}

bool kernel_btf_has_field(const char *type, const char *member)
{
	if (vmlinux_btf && btf_has_member(vmlinux_btf, type, member))
		return true;
	kernel_btf_load_modules();
	for (size_t i = 0; i < nmodbtfs; i++)
		if (btf_has_member(modbtfs[i].btf, type, member))
			return true;
	return false;
}

const char *kernel_btf_home(const char *name, __u32 kind)
{
	struct kernel_btf_loc loc;

	if (kernel_btf_find(name, kind, &loc) < 0)
		return NULL;
	return loc.module ? loc.module : "vmlinux";
}

int detect_size_arg(const char *func, bool *is_order, const char **arg_name)
{
	const struct btf_type *t, *proto, *at;
	const struct btf_param *p;
	int id;

	id = btf__find_by_name_kind(vmlinux_btf, func, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(vmlinux_btf, id);
	proto = btf__type_by_id(vmlinux_btf, t->type);
	if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) < 2)
		return -EINVAL;
	p = btf_params(proto) + 1;
	if (arg_name)
		*arg_name = btf__name_by_offset(vmlinux_btf, p->name_off);
	id = btf__resolve_type(vmlinux_btf, p->type);
	at = id > 0 ? btf__type_by_id(vmlinux_btf, id) : NULL;
	if (at && btf_is_any_enum(at))
		*is_order = false;
	else if (at && btf_is_int(at))
		*is_order = true;
	else
		return -EINVAL;
	return 0;
}

unsigned int pmd_order_of(unsigned long pmd, unsigned long page)
{
	unsigned int order = 0;

	if (!pmd || !page || pmd < page)
		return 9;
	while ((page << order) < pmd)
		order++;
	return order;
}

unsigned int detect_pmd_order(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
	unsigned long pmd = 0;

	if (f) {
		if (fscanf(f, "%lu", &pmd) != 1)
			pmd = 0;
		fclose(f);
	}
	return pmd_order_of(pmd, (unsigned long)sysconf(_SC_PAGESIZE));
}

/* ---- probes -------------------------------------------------------------- */

const char *const mode_names[] = {
	"absent", "fentry", "kprobe", "tp_btf", "raw_tp", "failed", "tracepoint",
};

int probe_tracing(const char *name, __u32 kind, enum bpf_attach_type type)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct kernel_btf_loc loc;
	int id, fd;

	id = kernel_btf_find(name, kind, &loc);
	if (id < 0)
		return id;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type,
		    .attach_btf_id = id, .attach_btf_obj_fd = loc.obj_fd);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

bool kprobes_unavailable(void)
{
	return access("/sys/bus/event_source/devices/kprobe", F_OK) &&
	       access("/sys/kernel/tracing/kprobe_events", F_OK) &&
	       access("/sys/kernel/debug/tracing/kprobe_events", F_OK);
}

/* The pair as fentry/fexit (@ksym NULL) or kprobe/kretprobe at @ksym. */
static int attach_pair(const char *ksym, struct bpf_program *entry,
		       struct bpf_program *exit, struct bpf_link *links[2])
{
	struct bpf_link *l0 = NULL, *l1 = NULL;
	int err;

	if (exit)
		l1 = ksym ? bpf_program__attach_kprobe(exit, true, ksym) :
			    bpf_program__attach(exit);
	if ((!exit || l1) && entry)
		l0 = ksym ? bpf_program__attach_kprobe(entry, false, ksym) :
			    bpf_program__attach(entry);
	if ((!exit || l1) && (!entry || l0)) {
		links[0] = l0, links[1] = l1;
		return 0;
	}
	err = -errno;
	bpf_link__destroy(l0);
	bpf_link__destroy(l1);
	return err;
}

int attach_fentry_pair(const char *func, struct bpf_program *entry,
		       struct bpf_program *exit, struct bpf_link *links[2])
{
	int err = attach_pair(NULL, entry, exit, links);

	if (err)
		verbose("%s: fentry attach failed (%s), trying a kprobe", func,
			strerror(-err));
	return err;
}

int attach_kprobe_pair(const char *ksym, struct bpf_program *entry,
		       struct bpf_program *exit, struct bpf_link *links[2])
{
	return attach_pair(ksym, entry, exit, links);
}

enum attach_mode attach_tracepoint(const struct tp_programs *p, struct bpf_link **link,
				   int *err)
{
	if (p->perf) {
		*link = bpf_program__attach_tracepoint(p->perf, p->system, p->name);
		*err = *link ? 0 : -errno;
		return *link ? M_TP : M_FAILED;
	}
	if (p->tpbtf) {
		*link = bpf_program__attach(p->tpbtf);
		if (*link)
			return M_TPBTF;
		verbose("%s: tp_btf attach failed (%s), trying raw_tp", p->name,
			strerror(errno));
	}
	*link = p->rawtp ? bpf_program__attach_raw_tracepoint(p->rawtp, p->name) : NULL;
	if (*link)
		return M_RAWTP;
	*err = p->rawtp ? -errno : -ENOENT;
	return M_FAILED;
}

void destroy_links(struct bpf_link **links, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
}

int filter_add_tgid(struct bpf_map *tgids, pid_t pid)
{
	__u32 tgid = (__u32)pid;
	__u8 one = 1;

	return bpf_map_update_elem(bpf_map__fd(tgids), &tgid, &one, BPF_ANY) ? -1 : 0;
}

/* ---- kallsyms ------------------------------------------------------------ */

#define BLOCK_SIZE (1 << 20)

/* Names go into large blocks: one malloc per symbol would be ~100k. */
static char *store_string(struct ksyms *ks, size_t *used, const char *s)
{
	size_t len = strlen(s) + 1;
	char **blocks, *dst;

	if (!ks->nblocks || *used + len > BLOCK_SIZE) {
		blocks = realloc(ks->blocks, (ks->nblocks + 1) * sizeof(*blocks));
		if (!blocks)
			return NULL;
		ks->blocks = blocks;
		ks->blocks[ks->nblocks] = malloc(len > BLOCK_SIZE ? len : BLOCK_SIZE);
		if (!ks->blocks[ks->nblocks])
			return NULL;
		ks->nblocks++;
		*used = 0;
	}
	dst = ks->blocks[ks->nblocks - 1] + *used;
	memcpy(dst, s, len);
	*used += len;
	return dst;
}

static int compare_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Stable choice among aliases: the lexically first name. */
	return strcmp(x->name, y->name);
}

struct ksyms *ksyms_parse(FILE *f)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	char line[512], name[256], mod[128], type;
	size_t cap = 0, used = 0;
	const char *last_mod = NULL;
	unsigned long addr;

	if (!ks)
		return NULL;
	ks->all_zero = true;
	while (fgets(line, sizeof(line), f)) {
		struct ksym *sym;
		int n;

		mod[0] = '\0';
		n = sscanf(line, "%lx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3)
			continue;
		/* Stacks hold code addresses: text symbols only. */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (ks->n == cap) {
			struct ksym *syms;

			cap = cap ? cap * 2 : 4096;
			syms = realloc(ks->syms, cap * sizeof(*syms));
			if (!syms)
				goto nomem;
			ks->syms = syms;
		}
		sym = &ks->syms[ks->n];
		sym->addr = addr;
		sym->name = store_string(ks, &used, name);
		if (!sym->name)
			goto nomem;
		sym->module = NULL;
		if (mod[0]) {
			/* Module symbols come in runs: share the string. */
			if (!last_mod || strcmp(last_mod, mod))
				last_mod = store_string(ks, &used, mod);
			if (!last_mod)
				goto nomem;
			sym->module = last_mod;
		}
		if (addr)
			ks->all_zero = false;
		ks->n++;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), compare_addr);
	return ks;
nomem:
	ksyms_free(ks);
	errno = ENOMEM;
	return NULL;
}

struct ksyms *ksyms_read(FILE *f)
{
	struct ksyms *ks;

	if (!f)
		return NULL;
	ks = ksyms_parse(f);
	fclose(f);
	return ks;
}

struct ksyms *ksyms_load(void)
{
	return ksyms_read(fopen("/proc/kallsyms", "r"));
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->nblocks; i++)
		free(ks->blocks[i]);
	free(ks->blocks);
	free(ks->syms);
	free(ks);
}

const struct ksym *ksyms_find(const struct ksyms *ks, unsigned long addr)
{
	size_t lo = 0, hi;

	if (!ks || !ks->n || ks->all_zero || addr < ks->syms[0].addr)
		return NULL;
	/* Last symbol with syms[i].addr <= addr; among aliases at the same
	 * address, the first one (the sort put them in name order). */
	hi = ks->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* kallsyms has no sizes: an address far past the last symbol before
	 * it (a BPF program or trampoline) belongs to something unnamed. */
	if (addr - ks->syms[lo].addr > KSYM_MAX_OFFSET)
		return NULL;
	while (lo > 0 && ks->syms[lo - 1].addr == ks->syms[lo].addr)
		lo--;
	return &ks->syms[lo];
}

const struct ksym *ksyms_by_name(const struct ksyms *ks, const char *name)
{
	if (!ks)
		return NULL;
	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->syms[i].name, name))
			return &ks->syms[i];
	return NULL;
}

const char *ksyms_probe_name(const struct ksyms *ks, const char *name)
{
	size_t len = strlen(name);
	const struct ksym *sym = ksyms_by_name(ks, name);

	if (sym)
		return sym->name;
	for (size_t i = 0; ks && i < ks->n; i++) {
		const char *s = ks->syms[i].name;

		/* .cold parts are not the function's entry. */
		if (!strncmp(s, name, len) && s[len] == '.' &&
		    strcmp(s + len, ".cold"))
			return s;
	}
	return NULL;
}

char *ksyms_format(const struct ksyms *ks, unsigned long addr, char *buf,
		   size_t len)
{
	const struct ksym *sym = ksyms_find(ks, addr);

	if (!sym)
		snprintf(buf, len, "0x%lx", addr);
	else if (sym->module)
		snprintf(buf, len, "%s+0x%lx [%s]", sym->name, addr - sym->addr,
			 sym->module);
	else
		snprintf(buf, len, "%s+0x%lx", sym->name, addr - sym->addr);
	return buf;
}

/* ---- -c: the command, held until the probes are attached ----------------- */

int held_cmd_spawn(struct held_cmd *c, const char *cmd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		char b;

		close(p[1]);
		setpgid(0, 0);
		/* EOF instead of the byte: the tool failed, do not run. */
		if (read(p[0], &b, 1) != 1)
			_exit(127);
		close(p[0]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	setpgid(pid, pid);	/* both sides: whichever runs first */
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	c->pid = pid;
	c->go_fd = p[1];
	c->pidfd = pid_watch(pid);
	return 0;
}

int held_cmd_release(struct held_cmd *c)
{
	if (write(c->go_fd, "g", 1) != 1)
		return -1;
	held_cmd_cancel(c);
	c->released = true;
	return 0;
}

void held_cmd_cancel(struct held_cmd *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	c->go_fd = -1;
}

static void held_cmd_unwatch(struct held_cmd *c)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
}

void held_cmd_cleanup(struct held_cmd *c)
{
	held_cmd_cancel(c);
	held_cmd_unwatch(c);
	if (c->pid <= 0 || c->reaped)
		return;
	if (c->released) {
		kill(-c->pid, SIGTERM);
		for (int i = 0; i < 20 && waitpid(c->pid, NULL, WNOHANG) == 0; i++)
			usleep(100000);
		kill(-c->pid, SIGKILL);
	}
	waitpid(c->pid, NULL, 0);
	c->reaped = true;
}

bool held_cmd_ended(struct held_cmd *c, int *code, int unknown)
{
	int status;

	if (waitpid(c->pid, &status, WNOHANG) != c->pid)
		return false;
	c->reaped = true;
	held_cmd_unwatch(c);
	*code = exit_code(status, unknown);
	return true;
}

int held_cmd_stopped_status(const struct held_cmd *c, int sig, int ret)
{
	return sig && c->released && !c->reaped ? 128 + sig : ret;
}

int pid_watch(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd < 0 ? -1 : fd;
}

int wait_for_work(struct ring_buffer *rb, int pidfd, int mountsfd, bool *mounts_changed,
		  int timeout_ms, const volatile sig_atomic_t *stop)
{
	struct pollfd fds[3];
	struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
	sigset_t stops, old;
	nfds_t n = 0;
	int err = 0;

	if (rb)
		fds[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(rb), .events = POLLIN };
	if (pidfd >= 0)
		fds[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	/* A mount table change is POLLERR|POLLPRI, reported once per change. */
	if (mountsfd >= 0)
		fds[n++] = (struct pollfd){ .fd = mountsfd, .events = POLLPRI };
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &old);
	if (!*stop && ppoll(fds, n, timeout_ms < 0 ? NULL : &ts, &old) < 0 && errno != EINTR)
		err = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (mounts_changed)
		*mounts_changed = mountsfd >= 0 && (fds[n - 1].revents & (POLLPRI | POLLERR));
	if (!err && rb) {
		err = ring_buffer__consume(rb);
		if (err == -EINTR || err > 0)
			err = 0;
	}
	return err;
}

bool process_gone(pid_t pid)
{
	char path[64], buf[256], *rp;
	ssize_t n;
	int fd;

	if (kill(pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	/* "pid (comm) S ...": the state follows the last ')'. */
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

int exit_code(int status, int unknown)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return unknown;
}
