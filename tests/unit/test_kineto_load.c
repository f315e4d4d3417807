/* SPDX-License-Identifier: MIT */
/*
 * The format-detecting loader (gs_trace_load) on Kineto input: detection
 * by content, GS_LOAD_SKIP_RANGES, loading files and what it refuses, the
 * wall clock, backend and collective sequence numbers a trace declares.
 */
#include <gpuscope/format.h>
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

#include "kineto_test.h"

/* ------------------------------------------------------------------------ */
/* Detection and loading                                                    */
/* ------------------------------------------------------------------------ */

static enum gs_input_format detect_bytes(const void *p, size_t n)
{
	char path[64];
	enum gs_input_format fmt;

	write_temp(path, sizeof(path), p, n);
	gs_error_clear();
	assert_int_equal(gs_detect_format(path, &fmt), GS_OK);
	assert_int_equal(gs_error_count(), 0);
	unlink(path);
	return fmt;
}

/* The one cause gs_trace_load gives for bytes it cannot load. */
static void load_fails(const void *p, size_t n, gs_status want, const char *why)
{
	char path[64], msg[256];
	struct gs_trace *t = NULL;

	write_temp(path, sizeof(path), p, n);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), want);
	assert_null(t);
	snprintf(msg, sizeof(msg), "%s: %s", path, why);
	assert_string_equal(last_error(), msg);
	assert_int_equal(gs_error_count(), 1);
	unlink(path);
}

/* GS_LOAD_SKIP_RANGES leaves out the host ranges and nothing else, for
 * both a Kineto file and the .gscope it converts to. */
static void counts_of(const char *path, unsigned flags, size_t n[4])
{
	struct gs_load_options lo = {.load_flags = flags};
	struct gs_trace *t = NULL;

	gs_error_clear();
	assert_int_equal(gs_trace_load(path, &lo, &t, NULL), GS_OK);
	gs_trace_ops(t, &n[0]);
	gs_trace_api_calls(t, &n[1]);
	gs_trace_syncs(t, &n[2]);
	gs_trace_ranges(t, &n[3]);
	gs_trace_destroy(t);
}

static void test_skip_ranges(void **state)
{
	char path[64];
	struct gs_trace *t = NULL;
	struct gs_writer *w = NULL;
	size_t all[4], some[4];
	int fd;

	(void)state;
	counts_of(FIXTURE("new_style.json"), 0, all);
	counts_of(FIXTURE("new_style.json"), GS_LOAD_SKIP_RANGES, some);
	assert_int_equal(all[3], 4);
	assert_int_equal(some[3], 0);
	assert_memory_equal(all, some, 3 * sizeof(all[0]));
	/* With GS_LOAD_KEEP_ANNOTATIONS: the user annotation and the GPU
	 * annotation stay, the cpu_op and the python_function go. */
	counts_of(FIXTURE("new_style.json"), GS_LOAD_SKIP_RANGES | GS_LOAD_KEEP_ANNOTATIONS, some);
	assert_int_equal(some[3], 2);
	assert_memory_equal(all, some, 3 * sizeof(all[0]));

	/* The same through the .gscope reader. */
	assert_int_equal(gs_trace_load(FIXTURE("new_style.json"), NULL, &t, NULL), GS_OK);
	snprintf(path, sizeof(path), "/tmp/gs_skip_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(gs_writer_open(path, NULL, &w), GS_OK);
	assert_int_equal(gs_trace_replay(t, gs_writer_borrow_sink(w)), GS_OK);
	assert_int_equal(gs_writer_close(w), GS_OK);
	gs_trace_destroy(t);
	counts_of(path, 0, all);
	counts_of(path, GS_LOAD_SKIP_RANGES, some);
	assert_int_equal(all[3], 4);
	assert_int_equal(some[3], 0);
	assert_memory_equal(all, some, 3 * sizeof(all[0]));
	unlink(path);
}

static void test_detect(void **state)
{
	unsigned char gscope[32] = "GSCOPE\0\0\1\0";
	static const char sqlite[] = "SQLite format 3\0\x10\0\x01\x01";
	static const char corrupt_gz[] = "\x1f\x8b\x08\x00garbage-garbage";
	size_t gzn;
	unsigned char *gz;
	enum gs_input_format fmt;

	(void)state;
	assert_int_equal(detect_bytes(gscope, sizeof(gscope)), GS_INPUT_GSCOPE);
	assert_int_equal(detect_bytes(sqlite, sizeof(sqlite)), GS_INPUT_NSYS);
	assert_int_equal(detect_bytes("\n  {\"traceEvents\": []}", 22), GS_INPUT_KINETO);
	assert_int_equal(detect_bytes("[]", 2), GS_INPUT_KINETO);
	assert_int_equal(detect_bytes("\xEF\xBB\xBF{", 4), GS_INPUT_KINETO);
	assert_int_equal(detect_bytes("", 0), GS_INPUT_UNKNOWN);
	assert_int_equal(detect_bytes("hello", 5), GS_INPUT_UNKNOWN);
	assert_int_equal(detect_bytes("   ", 3), GS_INPUT_UNKNOWN);
	gz = gzip_bytes(" [{}]", 5, &gzn);
	assert_int_equal(detect_bytes(gz, gzn), GS_INPUT_KINETO);
	free(gz);
	gz = gzip_bytes("hello", 5, &gzn);
	assert_int_equal(detect_bytes(gz, gzn), GS_INPUT_UNKNOWN);
	load_fails(gz, gzn, GS_ERR_FORMAT, "gzip data that is not JSON");
	free(gz);
	gz = gzip_bytes("  \n", 3, &gzn);
	load_fails(gz, gzn, GS_ERR_FORMAT, "gzip data that holds no JSON");
	free(gz);
	assert_int_equal(detect_bytes(corrupt_gz, sizeof(corrupt_gz) - 1), GS_INPUT_UNKNOWN);
	load_fails(corrupt_gz, sizeof(corrupt_gz) - 1, GS_ERR_FORMAT, "corrupt gzip data");
	load_fails("", 0, GS_ERR_FORMAT, "empty file");
	load_fails("   ", 3, GS_ERR_FORMAT, "only whitespace: no JSON data");
	load_fails("hello", 5, GS_ERR_FORMAT,
		   "not a recognised trace (expected .gscope, Kineto / Chrome-trace JSON, or an "
		   "Nsight Systems SQLite export)");
	load_fails(sqlite, sizeof(sqlite), GS_ERR_FORMAT,
		   "truncated SQLite database (21 bytes, shorter than its header)");

	assert_int_equal(gs_detect_format(FIXTURE("old_style.json"), &fmt), GS_OK);
	assert_int_equal(fmt, GS_INPUT_KINETO);
	gs_error_clear();
	assert_int_equal(gs_detect_format("/nonexistent/trace.json", &fmt), GS_ERR_IO);
	assert_error_has("/nonexistent/trace.json: cannot open");

	assert_string_equal(gs_input_format_name(GS_INPUT_GSCOPE), "gscope");
	assert_string_equal(gs_input_format_name(GS_INPUT_KINETO), "kineto");
	assert_string_equal(gs_input_format_name(GS_INPUT_NSYS), "nsys");
	assert_string_equal(gs_input_format_name(GS_INPUT_UNKNOWN), "unknown");
}

static void test_load(void **state)
{
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;
	struct gs_load_options opts = {0};
	size_t n, gzn;
	char path[64], msg[512];
	unsigned char *gz;

	(void)state;
	gs_error_clear();
	assert_int_equal(gs_trace_load(FIXTURE("new_style.json"), NULL, &t, &fmt), GS_OK);
	assert_int_equal(fmt, GS_INPUT_KINETO);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 3);
	gs_trace_api_calls(t, &n);
	assert_int_equal(n, 4);
	gs_trace_syncs(t, &n);
	assert_int_equal(n, 1);
	gs_trace_ranges(t, &n);
	assert_int_equal(n, 4);
	gs_trace_devices(t, &n);
	assert_int_equal(n, 2);
	gs_trace_processes(t, &n);
	assert_int_equal(n, 1);
	gs_trace_warnings(t, &n);
	assert_int_equal(n, 0);
	gs_trace_destroy(t);

	/* gzip through a file, with limits. */
	{
		size_t pn;
		char *plain = read_file(FIXTURE("old_style.json"), &pn);
		struct gs_import_limits lim;

		gz = gzip_bytes(plain, pn, &gzn);
		free(plain);
		write_temp(path, sizeof(path), gz, gzn);
		free(gz);
		gs_import_limits_default(&lim);
		opts.limits = &lim;
		assert_int_equal(gs_trace_load(path, &opts, &t, &fmt), GS_OK);
		assert_int_equal(fmt, GS_INPUT_KINETO);
		gs_trace_ops(t, &n);
		assert_int_equal(n, 3);
		gs_trace_event_records(t, &n);
		assert_int_equal(n, 1);
		gs_trace_destroy(t);
		lim.max_records = 2;
		gs_error_clear();
		assert_int_equal(gs_trace_load(path, &opts, &t, &fmt), GS_ERR_LIMIT);
		assert_null(t);
		unlink(path);
	}

	/* Formats that cannot be loaded, each with one clear cause. */
	write_temp(path, sizeof(path), "SQLite format 3\0rest", 20);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_ERR_FORMAT);
	assert_int_equal(fmt, GS_INPUT_NSYS);
	snprintf(msg, sizeof(msg), "%s: truncated SQLite database (20 bytes, %s)", path,
		 "shorter than its header");
	assert_string_equal(last_error(), msg);
	unlink(path);

	gz = gzip_bytes("not json", 8, &gzn);
	write_temp(path, sizeof(path), gz, gzn);
	free(gz);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_ERR_FORMAT);
	assert_int_equal(fmt, GS_INPUT_UNKNOWN);
	snprintf(msg, sizeof(msg), "%s: gzip data that is not JSON", path);
	assert_string_equal(last_error(), msg);
	unlink(path);

	write_temp(path, sizeof(path), "", 0);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_ERR_FORMAT);
	snprintf(msg, sizeof(msg), "%s: empty file", path);
	assert_string_equal(last_error(), msg);
	unlink(path);

	write_temp(path, sizeof(path), "{\"traceEvents\": [{\"ph\": \"X\"} {}]}", 33);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_ERR_FORMAT);
	snprintf(msg, sizeof(msg), "%s: byte 29: expected ',' or ']' in traceEvents", path);
	assert_string_equal(last_error(), msg);
	assert_int_equal(gs_error_count(), 1);
	unlink(path);
	assert_null(t);
}

/* Load JSON text through a file into a finished trace. */
static struct gs_trace *load_text(const char *json)
{
	char path[64];
	struct gs_trace *t = NULL;

	write_temp(path, sizeof(path), json, strlen(json));
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	unlink(path);
	return t;
}

#define CLOCK_EVENTS                                                                               \
	"\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "                  \
	"\"cudaLaunchKernel\", \"pid\": 7, \"tid\": 7, \"ts\": %s, \"dur\": 1, \"args\": "         \
	"{\"correlation\": 1}}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "                   \
	"\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", \"pid\": 0, \"tid\": 13, \"ts\": %s, "       \
	"\"dur\": 5, \"args\": {\"device\": 0, \"stream\": 13, \"correlation\": 1, "               \
	"\"Collective name\": \"allreduce\", \"Process Group Name\": \"0\", \"Seq\": 41}}]"

/* The wall clock a trace declares, the backend and the collective's
 * sequence number. */
static void test_clock_backend_seq(void **state)
{
	char json[2048];
	struct gs_trace *t;
	const struct gs_process *p;
	const struct gs_collective *c;
	size_t n;

	(void)state;
	/* baseTimeNanoseconds after the events, every digit kept (a double
	 * would lose the last); backend from distributedInfo; Seq. */
	snprintf(
		json, sizeof(json),
		"{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 2, \"world_size\": 4}, " CLOCK_EVENTS
		", \"baseTimeNanoseconds\": 1735632360000000001}",
		"4203669603018.756", "4203669603020");
	t = load_text(json);
	p = gs_trace_processes(t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(p->clock, GS_CLOCK_KINETO_BASE);
	assert_int_equal(p->wall_offset_ns, 1735632360000000001LL);
	assert_true(p->has_backend);
	assert_string_equal(gs_trace_string(t, p->backend), "nccl");
	gs_trace_collectives(t, &n);
	assert_int_equal(n, 1);
	c = gs_trace_collectives(t, &n);
	assert_true(c->has_seq);
	assert_int_equal(c->seq, 41);
	gs_trace_destroy(t);

	/* Epoch-us times without a base: epoch clock, offset 0; no Seq, no
	 * backend. */
	snprintf(json, sizeof(json), "{" CLOCK_EVENTS "}", "1707417525509335", "1707417525509340");
	{
		char *q = strstr(json, ", \"Seq\": 41");

		memmove(q, q + 11, strlen(q + 11) + 1);
	}
	t = load_text(json);
	p = gs_trace_processes(t, &n);
	assert_int_equal(p->clock, GS_CLOCK_EPOCH);
	assert_int_equal(p->wall_offset_ns, 0);
	assert_false(p->has_backend);
	c = gs_trace_collectives(t, &n);
	assert_false(c->has_seq);
	gs_trace_destroy(t);

	/* Times since boot, no base: not known. A base that is not a whole
	 * number is not one. */
	snprintf(json, sizeof(json), "{" CLOCK_EVENTS ", \"baseTimeNanoseconds\": 1.5e18}",
		 "1365627862757.064", "1365627862760");
	t = load_text(json);
	p = gs_trace_processes(t, &n);
	assert_int_equal(p->clock, GS_CLOCK_NONE);
	assert_int_equal(p->wall_offset_ns, 0);
	gs_trace_destroy(t);

	/* gpuscope's own export names its source. */
	snprintf(json, sizeof(json),
		 "{" CLOCK_EVENTS ", \"baseTimeNanoseconds\": -12, \"gpuscope_clock\": "
		 "\"nsys_session\"}",
		 "1000", "1002");
	t = load_text(json);
	p = gs_trace_processes(t, &n);
	assert_int_equal(p->clock, GS_CLOCK_NSYS_SESSION);
	assert_int_equal(p->wall_offset_ns, -12);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_skip_ranges),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_clock_backend_seq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
