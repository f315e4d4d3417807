/* SPDX-License-Identifier: MIT */
/* The base writers: the growable string, the buffered output (a FILE and a
 * target of its own, the first failure kept) and the JSON writer. */
#include <gpuscope/error.h>
#include <gpuscope/json.h>
#include <gpuscope/outbuf.h>
#include <gpuscope/strbuf.h>
#include <gpuscope/text.h>

#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void test_strbuf(void **state)
{
	struct gs_strbuf b = GS_STRBUF_INIT;
	char *s;

	(void)state;
	s = gs_strbuf_take(&b);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	gs_strbuf_puts(&b, "idle ");
	gs_strbuf_printf(&b, "%d of %s", 3, "4");
	gs_strbuf_putc(&b, '.');
	gs_strbuf_add(&b, "xyz", 1);
	assert_string_equal(b.p, "idle 3 of 4.x");
	/* Longer than any first guess: printed again into the grown buffer. */
	for (int i = 0; i < 100; i++)
		gs_strbuf_printf(&b, "%040d", i);
	assert_int_equal(b.len, 13 + 4000);
	assert_int_equal(strlen(b.p), b.len);
	s = gs_strbuf_take(&b);
	assert_memory_equal(s + 13 + 3960, "0000000000000000000000000000000000000099", 40);
	assert_null(b.p);
	free(s);
	/* Out of memory is sticky: nothing more is added, take returns NULL. */
	b.oom = true;
	gs_strbuf_puts(&b, "lost");
	assert_null(b.p);
	assert_null(gs_strbuf_take(&b));
	assert_false(b.oom);
}

static char *slurp(FILE *f, size_t *n)
{
	long len;
	char *p;

	fflush(f);
	len = ftell(f);
	rewind(f);
	p = calloc(1, (size_t)len + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
	*n = (size_t)len;
	return p;
}

static void test_outbuf_file(void **state)
{
	FILE *f = tmpfile();
	struct gs_outbuf o;
	char *big = malloc(3 * (size_t)GS_OUTBUF_SIZE), *got;
	size_t n;

	(void)state;
	assert_non_null(f);
	assert_non_null(big);
	memset(big, 'x', 3 * GS_OUTBUF_SIZE - 1);
	big[3 * GS_OUTBUF_SIZE - 1] = '\0';
	gs_outbuf_init(&o, f);
	gs_outbuf_puts(&o, "a");
	gs_outbuf_u64(&o, 18446744073709551615ull);
	gs_outbuf_putc(&o, ' ');
	gs_outbuf_i64(&o, INT64_MIN);
	gs_outbuf_putc(&o, ' ');
	gs_outbuf_us(&o, 1500);
	gs_outbuf_putc(&o, ' ');
	gs_outbuf_us(&o, -1);
	gs_outbuf_putc(&o, ' ');
	gs_outbuf_us(&o, 2000);
	gs_outbuf_putc(&o, ' ');
	gs_outbuf_duration(&o, 1500000);
	gs_outbuf_putc(&o, ' ');
	gs_outbuf_quoted(&o, "a\"b\n\x1b");
	gs_outbuf_putc(&o, ' ');
	gs_outbuf_text(&o, "t\x7f");
	gs_outbuf_putc(&o, ' ');
	gs_outbuf_json_str(&o, "d\x7f", GS_JSON_ESCAPE_DEL);
	gs_outbuf_json_str(&o, "d\x7f", 0);
	gs_outbuf_printf(&o, "|%s|", big); /* longer than the buffer */
	gs_outbuf_printf(&o, "%d", 7);
	assert_int_equal(gs_outbuf_finish(&o), GS_OK);
	got = slurp(f, &n);
	{
		const char *head = "a18446744073709551615 -9223372036854775808 1.500 -0.001 2 "
				   "1.500 ms \"a\\\"b\\n\\x1b\" t\\x7f \"d\\u007f\"\"d\x7f\"|";

		assert_int_equal(n, strlen(head) + strlen(big) + 2);
		assert_memory_equal(got, head, strlen(head));
		assert_memory_equal(got + n - 2, "|7", 2);
	}
	free(got);
	/* Finished: writes are dropped, a second finish says the same. */
	gs_outbuf_puts(&o, "late");
	gs_outbuf_putc(&o, 'l');
	assert_int_equal(gs_outbuf_finish(&o), GS_OK);
	fclose(f);
	free(big);
}

static void test_outbuf_fails_once(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	struct gs_outbuf o;
	char msg[128], got[128];

	(void)state;
	if (!f)
		skip();
	gs_error_clear();
	gs_outbuf_init(&o, f);
	for (int i = 0; i < 20000; i++) /* past the buffer: the write fails */
		gs_outbuf_puts(&o, "0123456789");
	assert_true(o.failed);
	assert_int_equal(o.err, ENOSPC);
	assert_int_equal(gs_outbuf_finish(&o), GS_ERR_IO);
	assert_int_equal(gs_error_count(), 1);
	snprintf(msg, sizeof(msg), "write failed: %s", strerror(ENOSPC));
	assert_string_equal(gs_error_format(got, sizeof(got)), msg);
	gs_error_clear();
	fclose(f);

	/* Failed by the writer (out of memory while making text): kept, and
	 * only the first failure counts. */
	f = tmpfile();
	gs_outbuf_init(&o, f);
	gs_outbuf_fail(&o, ENOMEM, NULL);
	gs_outbuf_fail(&o, EIO, "other");
	gs_outbuf_puts(&o, "dropped");
	assert_int_equal(gs_outbuf_finish(&o), GS_ERR_IO);
	snprintf(msg, sizeof(msg), "write failed: %s", strerror(ENOMEM));
	assert_string_equal(gs_error_format(got, sizeof(got)), msg);
	assert_int_equal(ftell(f), 0);
	gs_error_clear();
	fclose(f);
}

/* An earlier error wins over the finish's, but what is left is written
 * all the same, and a failed write still adds its cause. */
static void test_outbuf_finish_keep(void **state)
{
	FILE *f = tmpfile();
	struct gs_outbuf o;
	char got[128], msg[128];

	(void)state;
	assert_non_null(f);
	gs_error_clear();
	gs_outbuf_init(&o, f);
	gs_outbuf_puts(&o, "kept");
	assert_int_equal(gs_outbuf_finish_keep(&o, GS_ERR_INVALID), GS_ERR_INVALID);
	assert_int_equal(ftell(f), 4);
	assert_int_equal(gs_error_count(), 0);
	fclose(f);

	f = tmpfile();
	gs_outbuf_init(&o, f);
	gs_outbuf_puts(&o, "ok");
	assert_int_equal(gs_outbuf_finish_keep(&o, GS_OK), GS_OK);
	assert_int_equal(ftell(f), 2);
	fclose(f);

	f = tmpfile();
	gs_outbuf_init(&o, f);
	gs_outbuf_fail(&o, ENOSPC, NULL);
	assert_int_equal(gs_outbuf_finish_keep(&o, GS_OK), GS_ERR_IO);
	gs_error_clear();
	gs_outbuf_init(&o, f);
	gs_outbuf_fail(&o, ENOSPC, NULL);
	assert_int_equal(gs_outbuf_finish_keep(&o, GS_ERR_NOMEM), GS_ERR_NOMEM);
	assert_int_equal(gs_error_count(), 1);
	snprintf(msg, sizeof(msg), "write failed: %s", strerror(ENOSPC));
	assert_string_equal(gs_error_format(got, sizeof(got)), msg);
	gs_error_clear();
	fclose(f);
}

struct sink_rec {
	size_t bytes, calls, lasts;
	bool fail;
};

static void rec_target(struct gs_outbuf *o, const char *p, size_t n, bool last)
{
	struct sink_rec *r = o->ctx;

	(void)p;
	r->bytes += n;
	r->calls++;
	r->lasts += last;
	if (r->fail)
		gs_outbuf_fail(o, 0, "target refused");
}

static void test_outbuf_target(void **state)
{
	struct sink_rec r = {0};
	struct gs_outbuf o;
	char msg[128];

	(void)state;
	gs_outbuf_init_target(&o, rec_target, &r);
	for (size_t i = 0; i < GS_OUTBUF_SIZE + 10; i++)
		gs_outbuf_putc(&o, 'c');
	assert_int_equal(r.calls, 1); /* one full buffer */
	assert_int_equal(gs_outbuf_finish(&o), GS_OK);
	assert_int_equal(r.bytes, GS_OUTBUF_SIZE + 10);
	assert_int_equal(r.lasts, 1);

	memset(&r, 0, sizeof(r));
	r.fail = true;
	gs_error_clear();
	gs_outbuf_init_target(&o, rec_target, &r);
	gs_outbuf_puts(&o, "x");
	gs_outbuf_flush(&o);
	gs_outbuf_puts(&o, "y");
	gs_outbuf_flush(&o); /* not called again once failed */
	assert_int_equal(r.calls, 1);
	assert_int_equal(gs_outbuf_finish(&o), GS_ERR_IO);
	assert_string_equal(gs_error_format(msg, sizeof(msg)), "write failed: target refused");
	gs_error_clear();
}

static void test_outbuf_sentence(void **state)
{
	FILE *f = tmpfile();
	struct gs_outbuf o;
	char *s;

	(void)state;
	gs_outbuf_init(&o, f);
	s = gs_outbuf_sentence(&o, "idle " GS_DUR_MARK_FMT, false);
	assert_non_null(s);
	free(s);
	assert_false(o.failed);
	/* A builder that ran out of memory hands NULL: the writer fails. */
	assert_null(gs_outbuf_sentence(&o, NULL, false));
	assert_true(o.failed);
	assert_int_equal(o.err, ENOMEM);
	gs_outbuf_discard(&o);
	fclose(f);
}

static void test_json(void **state)
{
	FILE *f = tmpfile();
	struct gs_outbuf o;
	struct gs_json w;
	char *got;
	size_t n;

	(void)state;
	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, GS_JSON_ESCAPE_DEL);
	gs_json_obj(&w, NULL);
	gs_json_str(&w, "s", "a\x7f");
	gs_json_u64(&w, "u", 18446744073709551615ull);
	gs_json_i64(&w, "i", -5);
	gs_json_fixed(&w, "f", 0.5);
	gs_json_fixed(&w, "nan", NAN);
	gs_json_arr(&w, "rows");
	gs_json_row(&w, NULL);
	gs_json_bool(&w, "b", true);
	gs_json_null(&w, "n");
	gs_json_arr_inline(&w, "a");
	gs_json_u64(&w, NULL, 1);
	gs_json_u64(&w, NULL, 2);
	gs_json_end_arr(&w);
	gs_json_end_obj(&w);
	gs_json_end_arr(&w);
	gs_json_arr(&w, "empty");
	gs_json_end_arr(&w);
	gs_json_obj(&w, "o");
	gs_json_str(&w, "k", NULL);
	gs_json_end_obj(&w);
	gs_json_end_obj(&w);
	assert_int_equal(gs_outbuf_finish(&o), GS_OK);
	got = slurp(f, &n);
	assert_string_equal(got, "{\n"
				 "  \"s\": \"a\\u007f\",\n"
				 "  \"u\": 18446744073709551615,\n"
				 "  \"i\": -5,\n"
				 "  \"f\": 0.5000,\n"
				 "  \"nan\": 0.0000,\n"
				 "  \"rows\": [\n"
				 "    {\"b\": true, \"n\": null, \"a\": [1, 2]}\n"
				 "  ],\n"
				 "  \"empty\": [],\n"
				 "  \"o\": {\n"
				 "    \"k\": \"\"\n"
				 "  }\n"
				 "}");
	free(got);
	fclose(f);
}

/* gs_json_double: the shortest "%.17g" text, read back to the same bits;
 * null for what JSON cannot hold. */
static void test_json_double(void **state)
{
	static const double v[] = {0.1, 1.0, -0.0, 2.0 / 3.0, 1e300, 4.9e-324, 135.74494917484984};
	FILE *f = tmpfile();
	struct gs_outbuf o;
	struct gs_json w;
	char *got, *p;
	size_t n;

	(void)state;
	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, 0);
	gs_json_row(&w, NULL);
	gs_json_double(&w, "a", 0.1);
	gs_json_double(&w, "b", 1.0);
	gs_json_double(&w, "c", NAN);
	gs_json_double(&w, "d", -INFINITY);
	gs_json_double(&w, "e", 1e300);
	gs_json_end_obj(&w);
	gs_json_arr_inline(&w, NULL);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		gs_json_double(&w, NULL, v[i]);
	gs_json_end_arr(&w);
	assert_int_equal(gs_outbuf_finish(&o), GS_OK);
	got = slurp(f, &n);
	p = strchr(got, '}');
	assert_non_null(p);
	assert_memory_equal(got,
			    "{\"a\": 0.10000000000000001, \"b\": 1, \"c\": null, \"d\": null, "
			    "\"e\": 1.0000000000000001e+300}",
			    (size_t)(p + 1 - got));
	/* Every value comes back exactly, the sign of zero too. */
	assert_int_equal(*++p, '[');
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *end;
		double back = strtod(p + 1, &end);

		assert_memory_equal(&back, &v[i], sizeof(back));
		assert_true(*end == (i + 1 < sizeof(v) / sizeof(v[0]) ? ',' : ']'));
		p = end + (*end == ',');
	}
	free(got);
	fclose(f);
}

static void test_json_mixed(void **state)
{
	FILE *f = tmpfile();
	struct gs_outbuf o;
	struct gs_json w;
	char *got;
	size_t n;

	(void)state;
	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, 0);
	gs_json_arr(&w, NULL);
	gs_json_mixed(&w, NULL);
	gs_json_u64(&w, "a", 1);
	gs_json_row(&w, "r");
	gs_json_u64(&w, "x", 2);
	gs_json_end_obj(&w);
	gs_json_wrap(&w);
	gs_json_str(&w, "b", "c");
	gs_json_null(&w, "d");
	gs_json_wrap(&w);
	/* Containers in a mixed object: indented or one line, as opened. */
	gs_json_obj(&w, "o");
	gs_json_row(&w, "p");
	gs_json_arr(&w, "q"); /* in a row: one line */
	gs_json_u64(&w, NULL, 3);
	gs_json_end_arr(&w);
	gs_json_end_obj(&w);
	gs_json_end_obj(&w);
	gs_json_wrap(&w);
	gs_json_arr(&w, "empty");
	gs_json_end_arr(&w);
	gs_json_wrap(&w);
	gs_json_arr(&w, "l");
	gs_json_u64(&w, NULL, 4);
	gs_json_end_arr(&w);
	gs_json_end_obj(&w);
	/* In a row, a mixed object is a row and a wrap does nothing. */
	gs_json_row(&w, NULL);
	gs_json_mixed(&w, "m");
	gs_json_u64(&w, "e", 5);
	gs_json_wrap(&w);
	gs_json_obj(&w, "f");
	gs_json_u64(&w, "g", 6);
	gs_json_end_obj(&w);
	gs_json_end_obj(&w);
	gs_json_wrap(&w);
	gs_json_u64(&w, "h", 7);
	gs_json_end_obj(&w);
	gs_json_end_arr(&w);
	assert_int_equal(gs_outbuf_finish(&o), GS_OK);
	got = slurp(f, &n);
	assert_string_equal(got, "[\n"
				 "  {\"a\": 1, \"r\": {\"x\": 2},\n"
				 "    \"b\": \"c\", \"d\": null,\n"
				 "    \"o\": {\n"
				 "      \"p\": {\"q\": [3]}\n"
				 "    },\n"
				 "    \"empty\": [],\n"
				 "    \"l\": [\n"
				 "      4\n"
				 "    ]},\n"
				 "  {\"m\": {\"e\": 5, \"f\": {\"g\": 6}}, \"h\": 7}\n"
				 "]");
	free(got);
	fclose(f);
}

static void test_text_char(void **state)
{
	char buf[GS_TEXT_CHAR_MAX];
	size_t cols, adv, n;

	(void)state;
	n = gs_text_char((const unsigned char *)"\x1b", buf, &cols, &adv);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "\\x1b", 4);
	n = gs_text_char((const unsigned char *)"\xc2\x9b", buf, &cols, &adv);
	assert_int_equal(n, 6);
	assert_int_equal(adv, 2);
	assert_memory_equal(buf, "\\u009b", 6);
	assert_int_equal(gs_text_cols("h\xc3\xa9\x01"), 2 + 4);
	assert_int_equal(gs_text_cols(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_outbuf_file),
		cmocka_unit_test(test_outbuf_fails_once),
		cmocka_unit_test(test_outbuf_finish_keep),
		cmocka_unit_test(test_outbuf_target),
		cmocka_unit_test(test_outbuf_sentence),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_mixed),
		cmocka_unit_test(test_json_double),
		cmocka_unit_test(test_text_char),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
