// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for lib/json.c: escaping, nesting, numbers, misuse. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "json.h"
#include "ktap.h"

/* A writer whose output lands in a heap string. */
struct doc {
	struct json_writer w;
	char *text;
	size_t len;
	FILE *stream;
};

static struct json_writer *doc_begin(struct doc *d)
{
	d->text = NULL;
	d->len = 0;
	d->stream = open_memstream(&d->text, &d->len);
	json_init(&d->w, d->stream);
	return &d->w;
}

/* Returns json_finish()'s verdict; the text stays in d->text. */
static int doc_end(struct doc *d)
{
	int ret = json_finish(&d->w);

	fclose(d->stream);
	return ret;
}

/* Write one string value as a whole document and return the text. */
static int string_doc(struct doc *d, const char *s)
{
	json_string(doc_begin(d), s);
	return doc_end(d);
}

static void test_escape_quotes_backslash(struct ktap_case_ctx *t)
{
	struct doc d;

	KTAP_EXPECT(t, string_doc(&d, "say \"hi\" C:\\dir\\") == 0, "finish");
	KTAP_EXPECT_TEXT(t, d.text, "\"say \\\"hi\\\" C:\\\\dir\\\\\"\n");
	free(d.text);

	/* '/' needs no escape; leaving it alone keeps paths readable. */
	KTAP_EXPECT(t, string_doc(&d, "/mnt/dax/f") == 0, "finish");
	KTAP_EXPECT_TEXT(t, d.text, "\"/mnt/dax/f\"\n");
	free(d.text);
}

static void test_escape_control_chars(struct ktap_case_ctx *t)
{
	struct doc d;

	KTAP_EXPECT(t, string_doc(&d, "\b\f\n\r\t\x01\x1f\x7f") == 0, "finish");
	/* DEL (0x7f) is not a control character for JSON. */
	KTAP_EXPECT_TEXT(t, d.text,
			 "\"\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\"\n");
	free(d.text);
}

static void test_utf8(struct ktap_case_ctx *t)
{
	struct doc d;

	/* Valid multi-byte sequences pass through untouched. */
	KTAP_EXPECT(t, string_doc(&d, "\xc2\xb5s caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == 0,
		    "finish");
	KTAP_EXPECT_TEXT(t, d.text,
			 "\"\xc2\xb5s caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n");
	free(d.text);

	/*
	 * Invalid bytes (stray continuation, truncated sequence, overlong
	 * '/', UTF-16 surrogate, 0xff) become \u00XX, never raw bytes.
	 */
	KTAP_EXPECT(t, string_doc(&d, "\x80|\xc3|\xc0\xaf|\xed\xa0\x80|\xff") == 0,
		    "finish");
	KTAP_EXPECT_TEXT(t, d.text,
			 "\"\\u0080|\\u00c3|\\u00c0\\u00af|\\u00ed\\u00a0\\u0080|\\u00ff\"\n");
	free(d.text);

	/* A sequence cut short by the end of the string. */
	KTAP_EXPECT(t, string_doc(&d, "a\xe2\x82") == 0, "finish");
	KTAP_EXPECT_TEXT(t, d.text, "\"a\\u00e2\\u0082\"\n");
	free(d.text);
}

static void test_nesting(struct ktap_case_ctx *t)
{
	struct json_writer *w;
	struct doc d;

	w = doc_begin(&d);
	json_begin_object(w);
	json_key(w, "a");
	json_begin_array(w);
	json_uint(w, 1);
	json_begin_object(w);
	json_key(w, "b");
	json_begin_array(w);
	json_end_array(w);
	json_end_object(w);
	json_begin_array(w);
	json_bool(w, true);
	json_bool(w, false);
	json_null(w);
	json_end_array(w);
	json_end_array(w);
	json_key(w, "c");
	json_begin_object(w);
	json_end_object(w);
	json_kv_string(w, "k\"ey", "v");
	json_end_object(w);
	KTAP_EXPECT(t, doc_end(&d) == 0, "finish failed");
	KTAP_EXPECT_TEXT(t, d.text,
			 "{\"a\":[1,{\"b\":[]},[true,false,null]],\"c\":{},"
			 "\"k\\\"ey\":\"v\"}\n");
	free(d.text);
}

static void test_numbers(struct ktap_case_ctx *t)
{
	struct json_writer *w;
	struct doc d;

	w = doc_begin(&d);
	json_begin_array(w);
	json_uint(w, 0);
	json_uint(w, UINT64_MAX);
	json_int(w, INT64_MIN);
	json_int(w, -1);
	json_double(w, 0.5);
	json_double(w, NAN);
	json_double(w, -INFINITY);
	json_string(w, NULL);
	json_end_array(w);
	KTAP_EXPECT(t, doc_end(&d) == 0, "finish failed");
	KTAP_EXPECT_TEXT(t, d.text,
			 "[0,18446744073709551615,-9223372036854775808,-1,0.5,"
			 "null,null,null]\n");
	free(d.text);

	w = doc_begin(&d);
	json_begin_object(w);
	json_kv_uint(w, "u", 7);
	json_kv_int(w, "i", -7);
	json_kv_double(w, "d", 1.25);
	json_kv_bool(w, "b", true);
	json_end_object(w);
	KTAP_EXPECT(t, doc_end(&d) == 0, "finish failed");
	KTAP_EXPECT_TEXT(t, d.text, "{\"u\":7,\"i\":-7,\"d\":1.25,\"b\":true}\n");
	free(d.text);
}

static void test_misuse_is_reported(struct ktap_case_ctx *t)
{
	struct json_writer *w;
	struct doc d;

	w = doc_begin(&d);
	json_begin_object(w);
	json_uint(w, 1);		/* value without a key */
	json_end_object(w);
	KTAP_EXPECT(t, doc_end(&d) == -1, "value without key accepted");
	free(d.text);

	w = doc_begin(&d);
	json_begin_object(w);
	json_end_array(w);		/* wrong closer */
	KTAP_EXPECT(t, doc_end(&d) == -1, "mismatched end accepted");
	free(d.text);

	w = doc_begin(&d);
	json_begin_array(w);		/* never closed */
	KTAP_EXPECT(t, doc_end(&d) == -1, "unclosed array accepted");
	free(d.text);

	w = doc_begin(&d);
	json_begin_object(w);
	json_key(w, "a");		/* key without value */
	json_end_object(w);
	KTAP_EXPECT(t, doc_end(&d) == -1, "dangling key accepted");
	free(d.text);

	w = doc_begin(&d);
	json_key(w, "a");		/* key outside an object */
	KTAP_EXPECT(t, doc_end(&d) == -1, "top-level key accepted");
	free(d.text);

	w = doc_begin(&d);
	json_uint(w, 1);
	json_uint(w, 2);		/* two top-level values */
	KTAP_EXPECT(t, doc_end(&d) == -1, "two documents accepted");
	free(d.text);

	doc_begin(&d);			/* nothing written */
	KTAP_EXPECT(t, doc_end(&d) == -1, "empty document accepted");
	free(d.text);

	w = doc_begin(&d);
	for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
		json_begin_array(w);
	for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
		json_end_array(w);
	KTAP_EXPECT(t, doc_end(&d) == -1, "excess depth accepted");
	free(d.text);
}

static void test_max_depth_allowed(struct ktap_case_ctx *t)
{
	struct json_writer *w;
	struct doc d;
	int depth = JSON_MAX_DEPTH - 1;

	w = doc_begin(&d);
	for (int i = 0; i < depth; i++)
		json_begin_array(w);
	for (int i = 0; i < depth; i++)
		json_end_array(w);
	KTAP_EXPECT(t, doc_end(&d) == 0, "depth %d refused", depth);
	KTAP_EXPECT(t, d.len == (size_t)depth * 2 + 1, "length %zu", d.len);
	free(d.text);
}

static const struct ktap_case cases[] = {
	KTAP_CASE(test_escape_quotes_backslash),
	KTAP_CASE(test_escape_control_chars),
	KTAP_CASE(test_utf8),
	KTAP_CASE(test_nesting),
	KTAP_CASE(test_numbers),
	KTAP_CASE(test_misuse_is_reported),
	KTAP_CASE(test_max_depth_allowed),
};

int main(void)
{
	return ktap_run(cases, KTAP_COUNT(cases));
}
