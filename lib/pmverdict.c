// SPDX-License-Identifier: GPL-2.0
/* The crash test's verifiers' options and JSON head (pmverdict.h). */
#include <string.h>

#include "cli.h"
#include "json.h"
#include "pmverdict.h"

/* -L KEY=VALUE into @l (@arg is split in place); a bad one is a usage error. */
static void label_add(struct pmv_labels *l, char *arg)
{
	char *eq = strchr(arg, '=');

	if (!eq || eq == arg)
		cli_usage_error("invalid --label '%s' (KEY=VALUE)", arg);
	if (l->n == PMV_MAX_LABELS)
		cli_usage_error("more than %d --label", PMV_MAX_LABELS);
	*eq = '\0';
	l->keys[l->n] = arg;
	l->values[l->n++] = eq + 1;
}

bool pmv_option(struct pmv_opts *o, int key, char *arg)
{
	switch (key) {
	case 'r':
		if (!cli_parse_u64(arg, 0, 0, PMP_MAX_PAGES, &o->recorded))
			cli_usage_error("invalid --recorded '%s'", arg);
		o->recorded_set = true;
		return true;
	case 'j':
		o->json = true;
		return true;
	case 'L':
		label_add(&o->labels, arg);
		return true;
	default:
		return false;
	}
}

void pmv_options_end(struct pmv_opts *o, const struct pmp_ident *id)
{
	if (!o->recorded_set)
		o->recorded = id->pages;
	pmp_ident_check_count(id, "--recorded", o->recorded);
}

void pmv_json_head(struct json_writer *w, const char *tool, unsigned int version,
		   const struct pmv_opts *o, const char *path, const struct pmp_ident *id)
{
	json_begin_object(w);
	json_kv_string(w, "tool", tool);
	json_kv_uint(w, "version", version);
	json_key(w, "labels");
	json_begin_object(w);
	for (int i = 0; i < o->labels.n; i++)
		json_kv_string(w, o->labels.keys[i], o->labels.values[i]);
	json_end_object(w);
	json_kv_string(w, "file", path);
	json_kv_uint(w, "seed", id->seed);
	json_kv_uint(w, "generation", id->generation);
	json_kv_uint(w, "writer", id->writer);
	json_kv_uint(w, "pages", id->pages);
	json_kv_uint(w, "recorded", o->recorded);
}
