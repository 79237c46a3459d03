// SPDX-License-Identifier: GPL-2.0
/* The probe layer: see probe.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probe.h"
#include "json.h"

/* ---- the running kernel --------------------------------------------------- */

static struct ksyms *running_ksyms;
static bool running_ksyms_read;

struct ksyms *probe_kernel_ksyms(void)
{
	if (!running_ksyms_read) {
		running_ksyms_read = true;
		verbose("reading /proc/kallsyms");
		running_ksyms = ksyms_load();
		if (!running_ksyms)
			verbose("cannot read /proc/kallsyms: %s", strerror(errno));
	}
	return running_ksyms;
}

void probe_kernel_free(void)
{
	ksyms_free(running_ksyms);
	running_ksyms = NULL;
	running_ksyms_read = false;
}

static const char *running_ksym(const char *func)
{
	struct ksyms *ks = probe_kernel_ksyms();

	return ks ? ksyms_probe_name(ks, func) : NULL;
}

const struct probe_kernel probe_running_kernel = {
	.btf_home = kernel_btf_home,
	.ksym = running_ksym,
	.has_field = kernel_btf_has_field,
	.load_test = probe_tracing,
};

/* ---- resolution ------------------------------------------------------------ */

static bool is_tp(const struct probe_target *t)
{
	return t->hook->flags & PROBE_TP;
}

/* In BTF: the function, or the tracepoint's btf_trace_ typedef. */
static const char *btf_of(const struct probe_kernel *k, const char *name, bool tp)
{
	char tn[128];

	if (!tp)
		return k->btf_home(name, BTF_KIND_FUNC);
	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	return k->btf_home(tn, BTF_KIND_TYPEDEF);
}

static void lookup_ksym(const struct probe_kernel *k, struct probe_target *t)
{
	if (!t->ksym_done && !is_tp(t) && t->cand) {
		t->ksym = k->ksym(t->name);
		t->ksym_done = true;
	}
}

/* Into @buf the first field of @fields ("type.member ...") BTF lacks; "" if none. */
static void find_missing_field(const struct probe_kernel *k, const char *fields,
			       char *buf, size_t len)
{
	char type[64], member[64];
	const char *p = fields;
	int used;

	buf[0] = '\0';
	while (p && sscanf(p, " %63[^. ].%63s%n", type, member, &used) == 2) {
		if (!k->has_field(type, member)) {
			snprintf(buf, len, "%s.%s", type, member);
			return;
		}
		p += used;
	}
}

/* Is candidate @c of hook @h there? Fills *t when it is. */
static bool find_cand(const struct probe_kernel *k, const struct probe_hook *h,
		      const struct probe_cand *c, struct probe_target *t)
{
	bool tp = h->flags & PROBE_TP;

	if (c->unless && btf_of(k, c->unless, false))
		return false;
	t->cand = c, t->name = c->target;
	t->btf = btf_of(k, c->target, tp);
	if (tp || t->btf)
		return t->btf != NULL;
	/* kallsyms (slow to read) only when BTF does not settle it. */
	lookup_ksym(k, t);
	return t->ksym != NULL;
}

/* <hook>[_<variant>][<slot>]: see probe.h. */
static void prog_base(const struct probe_hook *h, size_t idx, char *buf, size_t len)
{
	const struct probe_cand *c = &h->cands[idx];

	if (c->variant)
		snprintf(buf, len, "%s_%s", h->name, c->variant);
	else if (h->flags & PROBE_EVERY)
		snprintf(buf, len, "%s%zu", h->name, idx);
	else
		snprintf(buf, len, "%s", h->name);
}

static bool use_enabled(const struct probe_set *s, const struct probe_use *u)
{
	return u->with == HOOK_NONE || probe_usable(s, u->with);
}

/* The test load of the fast flavour, unless told not to use it. */
static void test_fast(struct probe_set *s, struct probe_target *t)
{
	char tn[128];

	t->fast_err = -ENOENT;
	if (!t->btf || t->missing[0])
		return;
	if (is_tp(t)) {
		if (s->raw_tp)
			return;
		snprintf(tn, sizeof(tn), "btf_trace_%s", t->name);
		t->fast_err = s->k->load_test(tn, BTF_KIND_TYPEDEF, BPF_TRACE_RAW_TP);
	} else if (!s->kprobes) {
		t->fast_err = s->k->load_test(t->name, BTF_KIND_FUNC, BPF_TRACE_FENTRY);
	}
}

static int resolve_use(struct probe_set *s, const struct probe_use *u)
{
	const struct probe_hook *h = &probe_hooks[u->hook];
	size_t before = s->n;
	struct probe_target *t;

	for (size_t i = 0; i < PROBE_MAX_CANDS && h->cands[i].target; i++) {
		if (s->n == PROBE_MAX_TARGETS)
			return -E2BIG;
		t = &s->t[s->n];
		memset(t, 0, sizeof(*t));
		t->use = u, t->hook = h;
		if (!use_enabled(s, u) || !find_cand(s->k, h, &h->cands[i], t))
			continue;
		if (s->kprobes)
			lookup_ksym(s->k, t);
		find_missing_field(s->k, u->fields, t->missing, sizeof(t->missing));
		prog_base(h, i, t->prog, sizeof(t->prog));
		test_fast(s, t);
		s->n++;
		if (!(h->flags & PROBE_EVERY))
			break;
	}
	if (s->n > before)
		return 0;
	/* None here: one absent entry, so that reports still name the hook. */
	if (s->n == PROBE_MAX_TARGETS)
		return -E2BIG;
	t = &s->t[s->n++];
	memset(t, 0, sizeof(*t));
	t->use = u, t->hook = h, t->name = h->cands[0].target;
	t->fast_err = -ENOENT;
	snprintf(t->prog, sizeof(t->prog), "%s", h->name);
	return 0;
}

int probe_resolve(struct probe_set *s, const struct probe_kernel *k,
		  const struct probe_use *uses, size_t nuses, bool kprobes, bool raw_tp)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->k = k, s->uses = uses, s->nuses = nuses;
	s->kprobes = kprobes, s->raw_tp = raw_tp;
	for (size_t i = 0; i < nuses; i++) {
		err = resolve_use(s, &uses[i]);
		if (err)
			return err;
	}
	return 0;
}

void probe_use_perf_tracepoints(struct probe_set *s, bool on)
{
	s->tp_perf = on;
}

/* Tracepoint @t as a perf event (PROBE_NOPREEMPT ones never). */
static bool perf_tp(const struct probe_set *s, const struct probe_target *t)
{
	return s->tp_perf && !(t->hook->flags & PROBE_NOPREEMPT);
}

void probe_print_resolved(const struct probe_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct probe_target *t = &s->t[i];
		const char *fast = is_tp(t) ? "tp_btf" : "fentry";

		if (!t->cand) {
			verbose("%s: %s: not in this kernel", t->hook->name, t->name);
			continue;
		}
		verbose("%s: %s: BTF %s, kallsyms %s%s%s, %s %s", t->hook->name, t->name,
			t->btf ? t->btf : "none",
			is_tp(t) ? "-" : !t->ksym_done ? "not read" : t->ksym ? t->ksym : "none",
			t->missing[0] ? ", lacks BTF field " : "", t->missing,
			fast, t->fast_err ? strerror(-t->fast_err) : "loads");
	}
}

/* ---- binding ----------------------------------------------------------------- */

static const char *const flavours[] = {
	"fentry_", "fexit_", "kprobe_", "kretprobe_", "tpbtf_", "rawtp_", "tp_",
};

static bool is_hook_prog(const char *name)
{
	for (size_t i = 0; i < sizeof(flavours) / sizeof(*flavours); i++)
		if (!strncmp(name, flavours[i], strlen(flavours[i])))
			return true;
	return false;
}

static struct bpf_program *find_prog(struct probe_set *s, struct bpf_object *obj,
				     const char *flavour, const char *base)
{
	struct bpf_program *p;
	char n[64];

	snprintf(n, sizeof(n), "%s_%s", flavour, base);
	p = bpf_object__find_program_by_name(obj, n);
	if (!p && !s->missing_prog[0])
		snprintf(s->missing_prog, sizeof(s->missing_prog), "%s", n);
	return p;
}

static bool fast_ok(const struct probe_set *s, const struct probe_target *t, bool fast)
{
	return fast && !t->fast_err && !(is_tp(t) ? s->raw_tp : s->kprobes);
}

static void load_prog(struct bpf_program *p, const char *target)
{
	if (!p)
		return;
	bpf_program__set_autoload(p, true);
	if (target)
		bpf_program__set_attach_target(p, 0, target);
}

static void bind_target(struct probe_set *s, struct probe_target *t,
			struct bpf_object *obj, bool fast)
{
	unsigned int sides = t->use->sides;
	bool f = fast_ok(s, t, fast);

	if (is_tp(t) && perf_tp(s, t)) {
		/* slow[1]: a tracepoint has no exit side. */
		t->slow[1] = find_prog(s, obj, "tp", t->prog);
		load_prog(t->slow[1], NULL);
		return;
	}
	if (is_tp(t)) {
		t->fast[0] = find_prog(s, obj, "tpbtf", t->prog);
		t->slow[0] = find_prog(s, obj, "rawtp", t->prog);
		if (f)
			load_prog(t->fast[0], t->name);
		load_prog(t->slow[0], NULL);
		return;
	}
	for (int side = 0; side < 2; side++) {
		if (!(sides & (side ? PROBE_EXIT : PROBE_ENTRY)))
			continue;
		t->fast[side] = find_prog(s, obj, side ? "fexit" : "fentry", t->prog);
		t->slow[side] = find_prog(s, obj, side ? "kretprobe" : "kprobe", t->prog);
		if (f)
			load_prog(t->fast[side], t->name);
		/* No target needed to load: the fallback when fentry will not attach. */
		load_prog(t->slow[side], NULL);
	}
}

int probe_bind(struct probe_set *s, struct bpf_object *obj, bool fast)
{
	struct bpf_program *p;

	s->missing_prog[0] = '\0';
	s->fast_loaded = fast;
	bpf_object__for_each_program(p, obj)
		if (is_hook_prog(bpf_program__name(p)))
			bpf_program__set_autoload(p, false);
	for (size_t i = 0; i < s->n; i++) {
		struct probe_target *t = &s->t[i];

		t->fast[0] = t->fast[1] = t->slow[0] = t->slow[1] = NULL;
		if (t->cand && !t->missing[0])
			bind_target(s, t, obj, fast);
	}
	return s->missing_prog[0] ? -ENOENT : 0;
}

static int check_prog(struct bpf_object *obj, const char *flavour, const char *base,
		      char *buf, size_t len)
{
	snprintf(buf, len, "%s_%s", flavour, base);
	return bpf_object__find_program_by_name(obj, buf) ? 0 : -ENOENT;
}

int probe_check_programs(const struct probe_use *uses, size_t nuses,
			 struct bpf_object *obj, char *buf, size_t len)
{
	static const char *const func_flavours[2][2] = {
		{ "fentry", "kprobe" }, { "fexit", "kretprobe" },
	};
	char base[48];

	for (size_t u = 0; u < nuses; u++) {
		const struct probe_hook *h = &probe_hooks[uses[u].hook];

		for (size_t i = 0; i < PROBE_MAX_CANDS && h->cands[i].target; i++) {
			prog_base(h, i, base, sizeof(base));
			if (h->flags & PROBE_TP) {
				if (check_prog(obj, "tpbtf", base, buf, len) ||
				    check_prog(obj, "rawtp", base, buf, len) ||
				    check_prog(obj, "tp", base, buf, len))
					return -ENOENT;
				continue;
			}
			for (int side = 0; side < 2; side++)
				if ((uses[u].sides & (side ? PROBE_EXIT : PROBE_ENTRY)) &&
				    (check_prog(obj, func_flavours[side][0], base, buf, len) ||
				     check_prog(obj, func_flavours[side][1], base, buf, len)))
					return -ENOENT;
		}
	}
	buf[0] = '\0';
	return 0;
}

static void *load_once(struct probe_set *s, const struct probe_loader *l, const void *cfg,
		       bool fast, int *errp)
{
	void *skel = l->open(cfg);
	struct bpf_object_skeleton *sk;
	int err;

	if (!skel) {
		*errp = -errno;
		return NULL;
	}
	sk = l->skeleton(skel);
	err = probe_bind(s, *sk->obj, fast);
	if (!err)
		err = bpf_object__load_skeleton(sk);
	if (err) {
		*errp = err;
		l->destroy(skel);
		return NULL;
	}
	return skel;
}

void *probe_load(struct probe_set *s, const struct probe_loader *l, const void *cfg, int *errp)
{
	void *skel = load_once(s, l, cfg, true, errp);

	s->fast_load_err = 0;
	if (!skel && !s->missing_prog[0]) {
		s->fast_load_err = *errp;
		verbose("load failed (%s); retrying with kprobes and raw_tp only", strerror(-*errp));
		skel = load_once(s, l, cfg, false, errp);
	}
	return skel;
}

/* ---- attaching ----------------------------------------------------------------- */

static void attach_func(struct probe_set *s, struct probe_target *t)
{
	const char *ksym;
	bool fast = fast_ok(s, t, s->fast_loaded) && t->btf;

	if (fast) {
		t->err = attach_fentry_pair(t->name, t->fast[0], t->fast[1], t->links);
		if (!t->err) {
			t->mode = M_FENTRY;
			return;
		}
	}
	lookup_ksym(s->k, t);
	/* In BTF but not found in kallsyms (or it is unreadable): by name. */
	ksym = t->ksym ? t->ksym : t->btf ? t->name : NULL;
	if (!ksym) {
		t->mode = M_FAILED;
		if (!t->err)
			t->err = -ENOENT;
		return;
	}
	t->err = attach_kprobe_pair(ksym, t->slow[0], t->slow[1], t->links);
	t->mode = t->err ? M_FAILED : M_KPROBE;
}

/* perf tracepoints when the set chose them (s->tp_perf), and nothing else:
 * the others can be preempted there; PROBE_NOPREEMPT ones cannot. */
static void attach_tp(struct probe_set *s, struct probe_target *t)
{
	struct tp_programs p = {
		.system = t->hook->tp_system, .name = t->name,
		.tpbtf = !perf_tp(s, t) && fast_ok(s, t, s->fast_loaded) ? t->fast[0] : NULL,
		.rawtp = perf_tp(s, t) ? NULL : t->slow[0],
		.perf = perf_tp(s, t) ? t->slow[1] : NULL,
	};

	t->mode = attach_tracepoint(&p, &t->links[0], &t->err);
	if (t->mode == M_FAILED && t->err == -ENOENT)
		t->mode = M_ABSENT;
}

static void attach_target(struct probe_set *s, struct probe_target *t)
{
	t->mode = M_ABSENT;
	t->err = 0;
	if (!t->cand || t->missing[0])
		return;
	if (is_tp(t))
		attach_tp(s, t);
	else
		attach_func(s, t);
}

void probe_attach(struct probe_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		attach_target(s, &s->t[i]);
}

void probe_detach(struct probe_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		destroy_links(s->t[i].links, 2);
}

/* ---- what attached ----------------------------------------------------------------- */

bool probe_attached(const struct probe_target *t)
{
	return t->mode == M_FENTRY || t->mode == M_KPROBE ||
	       t->mode == M_TPBTF || t->mode == M_RAWTP || t->mode == M_TP;
}

const struct probe_target *probe_first(const struct probe_set *s, enum probe_hook_id hook)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].use->hook == hook)
			return &s->t[i];
	return NULL;
}

const struct probe_target *probe_next(const struct probe_set *s, const struct probe_target *t)
{
	enum probe_hook_id hook = t->use->hook;

	for (t++; t < s->t + s->n; t++)
		if (t->use->hook == hook)
			return t;
	return NULL;
}

bool probe_usable(const struct probe_set *s, enum probe_hook_id hook)
{
	for (const struct probe_target *t = probe_first(s, hook); t; t = probe_next(s, t))
		if (t->cand && !t->missing[0])
			return true;
	return false;
}

enum attach_mode probe_mode(const struct probe_set *s, enum probe_hook_id hook)
{
	const struct probe_target *first = probe_first(s, hook);

	for (const struct probe_target *t = first; t; t = probe_next(s, t))
		if (probe_attached(t))
			return t->mode;
	return first ? first->mode : M_ABSENT;
}

static const char *why_not(const struct probe_target *t)
{
	if (!t->cand)
		return "not in this kernel";
	if (t->missing[0])
		return "BTF lacks field";
	return t->err ? strerror(-t->err) : "not attached";
}

/* The use's verdict: NULL when satisfied, else its first failing target. */
static const struct probe_target *unmet(const struct probe_set *s, const struct probe_use *u)
{
	const struct probe_target *first = NULL, *missed = NULL;
	bool present = false, attached = false;

	for (size_t i = 0; i < s->n; i++) {
		const struct probe_target *t = &s->t[i];
		/* Without its fields it is not there for IF_PRESENT: the tool
		 * works without it (and says so), as without the module. */
		bool here = t->cand && !t->missing[0];

		if (t->use != u)
			continue;
		if (probe_attached(t)) {
			attached = true;
			continue;
		}
		if (!first || (!first->cand && t->cand))
			first = t;
		/* PROBE_EVERY: each helper the kernel has is a way in; one
		 * that did not attach is a blind spot, whatever the others did. */
		if (here && !missed && (t->hook->flags & PROBE_EVERY))
			missed = t;
		present |= here;
	}
	if (u->need == PROBE_OPTIONAL || !use_enabled(s, u))
		return NULL;
	if (missed)
		return missed;
	if (attached || !first)
		return NULL;
	if (u->need == PROBE_IF_PRESENT && !present)
		return NULL;
	return first;
}

bool probe_ok(const struct probe_set *s, char *why, size_t len)
{
	size_t off = 0;

	why[0] = '\0';
	for (size_t i = 0; i < s->nuses; i++) {
		const struct probe_target *t = unmet(s, &s->uses[i]);

		if (!t)
			continue;
		off += (size_t)snprintf(why + off, off < len ? len - off : 0, "%s%s: %s%s%s",
					off ? "; " : "", t->name, why_not(t),
					t->missing[0] ? " " : "", t->missing);
	}
	return off == 0;
}

/* ---- reports ----------------------------------------------------------------------- */

static const char *const need_names[] = {
	[PROBE_REQUIRED] = "required", [PROBE_IF_PRESENT] = "if_present",
	[PROBE_OPTIONAL] = "optional",
};

void probe_json(const struct probe_set *s, struct json_writer *w)
{
	json_key(w, "attach");
	json_begin_object(w);
	for (size_t i = 0; i < s->n; i++)
		json_kv_string(w, s->t[i].name, mode_names[s->t[i].mode]);
	json_end_object(w);
	json_key(w, "probes");
	json_begin_array(w);
	for (size_t i = 0; i < s->n; i++) {
		const struct probe_target *t = &s->t[i];

		json_begin_object(w);
		json_kv_string(w, "hook", t->hook->name);
		json_kv_string(w, "target", t->name);
		json_kv_string(w, "need", need_names[t->use->need]);
		json_kv_string(w, "mode", mode_names[t->mode]);
		if (t->btf)
			json_kv_string(w, "btf", t->btf);
		if (t->ksym)
			json_kv_string(w, "ksym", t->ksym);
		if (t->missing[0])
			json_kv_string(w, "missing_field", t->missing);
		if (t->cand && !probe_attached(t))
			json_kv_string(w, "error", why_not(t));
		json_end_object(w);
	}
	json_end_array(w);
}

void probe_summary(const struct probe_set *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].mode != M_ABSENT)
			off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s %s",
						off ? ", " : "", s->t[i].name,
						mode_names[s->t[i].mode]);
}
