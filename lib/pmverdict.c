// SPDX-License-Identifier: GPL-2.0
/* The crash test's verifiers' labels and JSON head (pmverdict.h). */
#include <string.h>

#include "cli.h"
#include "json.h"
#include "pmverdict.h"

void pmv_label_add(struct pmv_labels *l, char *arg)
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

void pmv_json_head(struct json_writer *w, const char *tool, unsigned int version,
		   const struct pmv_labels *l, const char *path, const struct pmp_ident *id,
		   uint64_t recorded)
{
	json_begin_object(w);
	json_kv_string(w, "tool", tool);
	json_kv_uint(w, "version", version);
	json_key(w, "labels");
	json_begin_object(w);
	for (int i = 0; i < l->n; i++)
		json_kv_string(w, l->keys[i], l->values[i]);
	json_end_object(w);
	json_kv_string(w, "file", path);
	json_kv_uint(w, "seed", id->seed);
	json_kv_uint(w, "generation", id->generation);
	json_kv_uint(w, "writer", id->writer);
	json_kv_uint(w, "pages", id->pages);
	json_kv_uint(w, "recorded", recorded);
}
