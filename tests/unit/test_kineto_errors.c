/* SPDX-License-Identifier: MIT */
/*
 * The Kineto importer's containers (gzip, a top-level array) and errors:
 * malformed documents, every truncation, the limits, values larger than
 * the read buffer, a sink that fails. JSON written inline uses ' for "
 * (see jdup, kineto_rec.h).
 */
#include <gpuscope/import.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "kineto_rec.h"

/* ------------------------------------------------------------------------ */
/* Containers: gzip, top-level array                                        */
/* ------------------------------------------------------------------------ */

static void test_gzip(void **state)
{
	size_t n, gzn, gzn2;
	char *plain = read_file(FIXTURE("new_style.json"), &n);
	unsigned char *gz = gzip_bytes(plain, n, &gzn);
	unsigned char *two, *part2;
	char path[64];
	struct rec r;

	(void)state;
	/* In memory. */
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(gz, gzn, "t.json.gz", NULL, &r.sink), GS_OK);
	check_new_style(&r);
	rec_free(&r);

	/* From a file. */
	write_temp(path, sizeof(path), gz, gzn);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto(path, NULL, &r.sink), GS_OK);
	check_new_style(&r);
	rec_free(&r);
	unlink(path);

	/* Two gzip members, the document split between them. */
	free(gz);
	gz = gzip_bytes(plain, n / 2, &gzn);
	part2 = gzip_bytes(plain + n / 2, n - n / 2, &gzn2);
	two = malloc(gzn + gzn2);
	assert_non_null(two);
	memcpy(two, gz, gzn);
	memcpy(two + gzn, part2, gzn2);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(two, gzn + gzn2, "t.json.gz", NULL, &r.sink), GS_OK);
	check_new_style(&r);
	rec_free(&r);

	/* The first member alone: the gzip is whole, the JSON is not. */
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(gz, gzn, "t.json.gz", NULL, &r.sink), GS_ERR_FORMAT);
	assert_error_has("t.json.gz: byte");
	assert_error_has("truncated JSON?");
	rec_free(&r);

	/* Cut inside the compressed data. */
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(two, gzn / 2, "t.json.gz", NULL, &r.sink),
			 GS_ERR_FORMAT);
	assert_error_has("t.json.gz: the gzip stream is truncated");
	rec_free(&r);

	/* Corrupt compressed data. */
	memset(two + 20, 0xA5, 40);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(two, gzn + gzn2, "t.json.gz", NULL, &r.sink),
			 GS_ERR_FORMAT);
	assert_error_has("t.json.gz: ");
	rec_free(&r);

	/* Garbage after the last member. */
	memcpy(two, gz, gzn);
	memcpy(two + gzn, "garbage", 7);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(two, gzn + 7, "t.json.gz", NULL, &r.sink),
			 GS_ERR_FORMAT);
	rec_free(&r);

	/* gzip that is not JSON. */
	free(gz);
	gz = gzip_bytes("hello, world\n", 13, &gzn);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(gz, gzn, "t.json.gz", NULL, &r.sink), GS_ERR_FORMAT);
	assert_string_equal(last_error(),
			    "t.json.gz: byte 0: not JSON: a Chrome trace starts with '{' or '['");
	rec_free(&r);
	free(gz);
	free(part2);
	free(two);
	free(plain);
}

static void test_top_level_array(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	assert_int_equal(import(&r, " [ ] "), GS_OK);
	assert_int_equal(r.nops + r.nranges + r.nwarns, 0);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import(&r, "\xEF\xBB\xBF[" RANGE_TS("1", "2") "," RANGE_TS("3", "4") "]"),
			 GS_OK);
	assert_int_equal(r.nranges, 2);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import(&r, "{'traceEvents':[1,'x',[2],null,{'ph':'i'}],'a':{'b':[]}}"),
			 GS_OK);
	assert_int_equal(warning(&r, "not objects")->count, 4);
	rec_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

static void expect_format_error(const char *json, const char *msg)
{
	struct rec r;

	rec_init(&r);
	assert_int_equal(import(&r, json), GS_ERR_FORMAT);
	if (strcmp(last_error(), msg) != 0)
		fail_msg("error \"%s\", expected \"%s\"", last_error(), msg);
	rec_free(&r);
}

static void test_format_errors(void **state)
{
	(void)state;
	expect_format_error("", "t.json: empty file: no JSON data");
	expect_format_error(" \n\t ", "t.json: empty file: no JSON data");
	expect_format_error("hello",
			    "t.json: byte 0: not JSON: a Chrome trace starts with '{' or '['");
	expect_format_error("{}", "t.json: no \"traceEvents\" array: not a Chrome trace");
	expect_format_error("{'traceEvents':{}}", "t.json: byte 15: traceEvents is not an array");
	expect_format_error("{'traceEvents':[{'ph':'i'} {'ph':'i'}]}",
			    "t.json: byte 27: expected ',' or ']' in traceEvents");
	expect_format_error("{'traceEvents':[{'ph':'i'};{'ph':'i'}]}",
			    "t.json: byte 26: expected ',' or ']' in traceEvents");
	expect_format_error("{'traceEvents':[{'ph':'i'],'x':1}", "t.json: byte 25: unexpected ']'");
	expect_format_error("{'traceEvents':[]} x",
			    "t.json: byte 19: unexpected data after the JSON document");
	expect_format_error("{'traceEvents':[] 'x':1}",
			    "t.json: byte 18: expected ',' or '}' after a top-level member");
	expect_format_error("{'traceEvents' []}",
			    "t.json: byte 15: expected ':' after a member name");
	expect_format_error("{traceEvents: []}",
			    "t.json: byte 1: expected a member name in the top-level object");
	expect_format_error("{'traceEvents':[,]}", "t.json: byte 16: expected a value");
	expect_format_error("{'traceEvents':[{'ph':'i'},]}", "t.json: byte 27: expected a value");
	expect_format_error("{'traceEvents':[{'name':'abc",
			    "t.json: byte 16: the input ends inside this value (truncated JSON?)");
	expect_format_error("{'traceEvents':[{'name':'ab\\",
			    "t.json: byte 16: the input ends inside a string (truncated JSON?)");
	expect_format_error("{'traceEvents':[{'ph':'i'}",
			    "t.json: byte 26: the input ends inside traceEvents (truncated JSON?)");
	expect_format_error("{'traceEvents':[]",
			    "t.json: byte 17: the input ends inside the top-level object "
			    "(truncated JSON?)");
	expect_format_error("{'deviceProperties':[{'id':0,}],'traceEvents':[]}",
			    "t.json: byte 20: a top-level value is not valid JSON");
}

/* Every proper prefix of a good document is an error, never a crash. */
static void test_truncations(void **state)
{
	size_t n;
	char *doc = read_file(FIXTURE("new_style.json"), &n);
	size_t end = n;

	(void)state;
	while (end && (doc[end - 1] == '\n' || doc[end - 1] == ' '))
		end--;
	for (size_t len = 0; len < end; len++) {
		struct rec r;
		gs_status rc;

		rec_init(&r);
		gs_error_clear();
		rc = gs_import_kineto_mem(doc, len, "cut.json", NULL, &r.sink);
		if (rc != GS_ERR_FORMAT)
			fail_msg("prefix of %zu bytes: status %d", len, rc);
		assert_int_equal(strncmp(last_error(), "cut.json: ", 10), 0);
		rec_free(&r);
	}
	free(doc);
}

static void test_limits(void **state)
{
	struct gs_import_limits lim;
	struct rec r;
	char *big;
	size_t len;

	(void)state;
	/* Depth: the default (64) and a small one. */
	big = malloc(400);
	assert_non_null(big);
	len = (size_t)sprintf(big, "{'traceEvents':[{'args':");
	for (int i = 0; i < 70; i++)
		big[len++] = '[';
	for (int i = 0; i < 70; i++)
		big[len++] = ']';
	strcpy(big + len, "}]}");
	rec_init(&r);
	assert_int_equal(import(&r, big), GS_ERR_LIMIT);
	assert_error_has("JSON nested deeper than max_depth (64)");
	assert_error_has("t.json: byte 85: ");
	rec_free(&r);
	free(big);

	gs_import_limits_default(&lim);
	assert_int_equal(lim.max_depth, 64);
	assert_int_equal(lim.max_event_bytes, 16u << 20);
	assert_int_equal(lim.max_string_bytes, 1u << 20);
	assert_int_equal(lim.max_streams, 65536);
	assert_int_equal(lim.max_records, 1ull << 31);
	lim.max_depth = 4;
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[{'args':{'a':1}}]}", &lim), GS_OK);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[{'args':{'a':[1]}}]}", &lim),
			 GS_ERR_LIMIT);
	assert_string_equal(last_error(), "t.json: byte 29: JSON nested deeper than max_depth (4)");
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'x':[[[[[1]]]]],'traceEvents':[]}", &lim), GS_ERR_LIMIT);
	rec_free(&r);

	/* One event's size. */
	gs_import_limits_default(&lim);
	lim.max_event_bytes = 100;
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[" RANGE_TS("1", "1") "]}", &lim), GS_OK);
	assert_int_equal(r.nranges, 1);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(
		import_lim(&r,
			   "{'traceEvents':[{'ph':'X','cat':'cpu_op','name':'"
			   "0123456789012345678901234567890123456789012345678901234567890123"
			   "4567890123456789','pid':1,'tid':1,'ts':1,'dur':1}]}",
			   &lim),
		GS_ERR_LIMIT);
	assert_string_equal(last_error(),
			    "t.json: byte 16: value larger than max_event_bytes (100)");
	rec_free(&r);

	/* One string, anywhere (even in a skipped member). */
	gs_import_limits_default(&lim);
	lim.max_string_bytes = 12; /* "traceEvents" is a string too */
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[{'name':'012345678901'}]}", &lim), GS_OK);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[{'name':'0123456789012'}]}", &lim),
			 GS_ERR_LIMIT);
	assert_error_has("string longer than max_string_bytes (12)");
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'INFO':['0123456789abcdef'],'traceEvents':[]}", &lim),
			 GS_ERR_LIMIT);
	rec_free(&r);

	/* Streams and records. */
	gs_import_limits_default(&lim);
	lim.max_streams = 2;
	rec_init(&r);
	assert_int_equal(
		import_lim(
			&r,
			"{'traceEvents':[" KERNEL(
				"a", "0",
				"") ","
				    "{'ph':'X','cat':'kernel','name':'b','pid':0,'tid':8,'ts':1,'dur':1}," KERNEL(
					    "c", "0",
					    "") ","
						"{'ph':'X','cat':'kernel','name':'d','pid':0,'tid':9,'ts':1,'dur':1}"
						"]}",
			&lim),
		GS_ERR_LIMIT);
	assert_error_has("more than max_streams (2) streams");
	assert_int_equal(r.nops, 3);
	rec_free(&r);
	gs_import_limits_default(&lim);
	lim.max_records = 3;
	rec_init(&r);
	assert_int_equal(
		import_lim(&r,
			   "{'traceEvents':[" RANGE_TS("1", "1") "," RANGE_TS(
				   "1", "1") "," RANGE_TS("1", "1") "," RANGE_TS("1", "1") "]}",
			   &lim),
		GS_ERR_LIMIT);
	assert_string_equal(last_error(), "t.json: byte 220: more than max_records (3) records");
	assert_int_equal(r.nranges, 3);
	rec_free(&r);
}

/* Events and strings larger than the read buffer, values split anywhere. */
static void test_large_values(void **state)
{
	enum {
		NAME = 900 * 1024
	};
	size_t cap = 2 * (size_t)NAME + NAME / 50 + 4096, len = 0;
	char *doc = malloc(cap);
	struct rec r;

	(void)state;
	assert_non_null(doc);
	len += (size_t)sprintf(doc, "{\"INFO\": [\"");
	for (int i = 0; i < NAME; i++)
		doc[len++] = (char)(i % 64 == 63 ? '\\' : 'a' + i % 26);
	doc[len - 1] = 'z';
	len += (size_t)sprintf(doc + len, "\"], \"traceEvents\": [{\"ph\": \"X\", \"cat\": "
					  "\"cpu_op\", \"name\": \"");
	for (int i = 0; i < NAME; i++) {
		doc[len++] = i % 100 == 99 ? '\\' : 'x';
		if (i % 100 == 99)
			doc[len++] = 'n';
	}
	len += (size_t)sprintf(doc + len, "\", \"pid\": 1, \"tid\": 2, \"ts\": 3, \"dur\": 4}]}");
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(doc, len, "big.json", NULL, &r.sink), GS_OK);
	assert_int_equal(r.nranges, 1);
	assert_int_equal(strlen(rec_str(&r, r.ranges[0].name)), NAME);
	assert_int_equal(rec_str(&r, r.ranges[0].name)[99], '\n');
	rec_free(&r);
	free(doc);
}

static gs_status fail_sink_warning(struct gs_sink *s, const char *msg, uint64_t count,
				   unsigned kind)
{
	(void)s;
	(void)msg;
	(void)count;
	(void)kind;
	gs_error_append("warning rejected");
	return GS_ERR_INVALID;
}

static void test_sink_errors(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	r.fail_op_at = 2;
	assert_int_equal(
		import(&r, "{'traceEvents':[" KERNEL("a", "0", "") "," KERNEL("b", "0", "") "]}"),
		GS_ERR_NOMEM);
	assert_string_equal(last_error(), "t.json: byte 143: test sink: no room for op");
	rec_free(&r);
	rec_init(&r);
	r.sink.warning = fail_sink_warning;
	assert_int_equal(import(&r, "{'traceEvents':[{'ph':'X','cat':'zzz'}]}"), GS_ERR_INVALID);
	assert_error_has("warning rejected");
	rec_free(&r);
	/* A sink that keeps nothing. */
	{
		struct gs_sink none = {0};

		gs_error_clear();
		assert_int_equal(gs_import_kineto(FIXTURE("new_style.json"), NULL, &none), GS_OK);
	}
	gs_error_clear();
	assert_int_equal(gs_import_kineto(FIXTURE("no_such_file.json"), NULL, &r.sink), GS_ERR_IO);
	assert_error_has("no_such_file.json: cannot open: ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gzip),          cmocka_unit_test(test_top_level_array),
		cmocka_unit_test(test_format_errors), cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_limits),        cmocka_unit_test(test_large_values),
		cmocka_unit_test(test_sink_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
