// SPDX-License-Identifier: GPL-2.0
/* A tiny streaming JSON writer; see json.h. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json.h"

void json_init(struct json_writer *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

/* Called before every value: places the comma, checks the grammar. */
static bool begin_value(struct json_writer *w)
{
	if (w->failed)
		return false;
	if (w->depth == 0) {
		/* Exactly one top-level value per document. */
		if (w->has_items[0])
			goto misuse;
		w->has_items[0] = true;
		return true;
	}
	if (w->in_object[w->depth]) {
		if (!w->key_pending)
			goto misuse;
		w->key_pending = false;
		return true;
	}
	if (w->has_items[w->depth])
		fputc(',', w->out);
	w->has_items[w->depth] = true;
	return true;
misuse:
	w->failed = true;
	return false;
}

static void begin_container(struct json_writer *w, bool object)
{
	if (!begin_value(w))
		return;
	if (w->depth + 1 >= JSON_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	w->depth++;
	w->in_object[w->depth] = object;
	w->has_items[w->depth] = false;
	fputc(object ? '{' : '[', w->out);
}

static void end_container(struct json_writer *w, bool object)
{
	if (w->failed)
		return;
	if (w->depth == 0 || w->in_object[w->depth] != object ||
	    w->key_pending) {
		w->failed = true;
		return;
	}
	w->depth--;
	fputc(object ? '}' : ']', w->out);
}

void json_begin_object(struct json_writer *w) { begin_container(w, true); }
void json_end_object(struct json_writer *w) { end_container(w, true); }
void json_begin_array(struct json_writer *w) { begin_container(w, false); }
void json_end_array(struct json_writer *w) { end_container(w, false); }

/* Length of the valid UTF-8 sequence at @s, or 0 if it is not valid. */
static size_t utf8_sequence_length(const unsigned char *s)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	/* The NUL terminator is not a continuation byte, so this stops there. */
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Reject overlong forms, UTF-16 surrogates and values past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void write_escaped(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	while (*s) {
		size_t len = utf8_sequence_length(s);

		switch (*s) {
		case '"':  fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*s < 0x20 || len == 0) {
				fprintf(out, "\\u%04x", *s);
				len = 1;
			} else {
				fwrite(s, 1, len, out);
			}
		}
		s += len;
	}
	fputc('"', out);
}

void json_key(struct json_writer *w, const char *key)
{
	if (w->failed)
		return;
	if (w->depth == 0 || !w->in_object[w->depth] || w->key_pending ||
	    !key) {
		w->failed = true;
		return;
	}
	if (w->has_items[w->depth])
		fputc(',', w->out);
	w->has_items[w->depth] = true;
	write_escaped(w->out, key);
	fputc(':', w->out);
	w->key_pending = true;
}

void json_string(struct json_writer *w, const char *s)
{
	if (!s) {
		json_null(w);
		return;
	}
	if (begin_value(w))
		write_escaped(w->out, s);
}

void json_uint(struct json_writer *w, uint64_t v)
{
	if (begin_value(w))
		fprintf(w->out, "%" PRIu64, v);
}

void json_int(struct json_writer *w, int64_t v)
{
	if (begin_value(w))
		fprintf(w->out, "%" PRId64, v);
}

void json_double(struct json_writer *w, double v)
{
	if (!isfinite(v)) {
		json_null(w);
		return;
	}
	/* %.17g round-trips every double. */
	if (begin_value(w))
		fprintf(w->out, "%.17g", v);
}

void json_bool(struct json_writer *w, bool v)
{
	if (begin_value(w))
		fputs(v ? "true" : "false", w->out);
}

void json_null(struct json_writer *w)
{
	if (begin_value(w))
		fputs("null", w->out);
}

void json_kv_string(struct json_writer *w, const char *key, const char *v)
{
	json_key(w, key);
	json_string(w, v);
}

void json_kv_uint(struct json_writer *w, const char *key, uint64_t v)
{
	json_key(w, key);
	json_uint(w, v);
}

void json_kv_int(struct json_writer *w, const char *key, int64_t v)
{
	json_key(w, key);
	json_int(w, v);
}

void json_kv_double(struct json_writer *w, const char *key, double v)
{
	json_key(w, key);
	json_double(w, v);
}

void json_kv_bool(struct json_writer *w, const char *key, bool v)
{
	json_key(w, key);
	json_bool(w, v);
}

int json_finish(struct json_writer *w)
{
	if (w->depth != 0 || !w->has_items[0])
		w->failed = true;
	if (!w->failed)
		fputc('\n', w->out);
	if (fflush(w->out) || ferror(w->out))
		w->failed = true;
	return w->failed ? -1 : 0;
}
