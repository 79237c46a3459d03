/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny streaming JSON writer for the tools' --json output.
 *
 * The writer inserts commas and colons itself, so callers only say what
 * comes next. Output is compact (one line); json_finish() adds the final
 * newline, which makes a run of several tools a valid JSON Lines stream.
 * Misuse (a value where a key is expected, unbalanced ends, too deep) is
 * recorded and reported by json_finish() instead of producing bad JSON
 * silently.
 *
 *	struct json_writer w;
 *	json_init(&w, stdout);
 *	json_begin_object(&w);
 *	json_kv_string(&w, "tool", "faultlat");
 *	json_key(&w, "hist");
 *	json_begin_array(&w);
 *	...
 *	json_end_array(&w);
 *	json_end_object(&w);
 *	if (json_finish(&w)) error;
 */
#ifndef SUITE_JSON_H
#define SUITE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json_writer {
	FILE *out;
	int depth;
	bool failed;
	bool key_pending;		/* a key was written, its value is due */
	bool in_object[JSON_MAX_DEPTH];	/* else in an array */
	bool has_items[JSON_MAX_DEPTH];	/* a comma is due before the next item */
};

void json_init(struct json_writer *w, FILE *out);

void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w);
void json_end_array(struct json_writer *w);

/* Only inside an object, and must be followed by exactly one value. */
void json_key(struct json_writer *w, const char *key);

/*
 * Strings are escaped per RFC 8259. Bytes that are not valid UTF-8 are
 * written as \u00XX (their Latin-1 reading) so the output stays valid JSON
 * whatever a path name contains. NULL is written as null.
 */
void json_string(struct json_writer *w, const char *s);
void json_uint(struct json_writer *w, uint64_t v);
void json_int(struct json_writer *w, int64_t v);
/* NaN and infinities have no JSON form: written as null. */
void json_double(struct json_writer *w, double v);
void json_bool(struct json_writer *w, bool v);
void json_null(struct json_writer *w);

/* key + value shorthands */
void json_kv_string(struct json_writer *w, const char *key, const char *v);
void json_kv_uint(struct json_writer *w, const char *key, uint64_t v);
void json_kv_int(struct json_writer *w, const char *key, int64_t v);
void json_kv_double(struct json_writer *w, const char *key, double v);
void json_kv_bool(struct json_writer *w, const char *key, bool v);

/*
 * Ends the document with a newline and flushes. Returns 0, or -1 if the
 * writer was misused, the document is incomplete, or the stream failed.
 */
int json_finish(struct json_writer *w);

#endif /* SUITE_JSON_H */
