/* SPDX-License-Identifier: MIT */
/*
 * The devices of a trace built on several threads (gs_report_options.threads)
 * give the same report as one after another: the JSON, text and HTML of
 * generated traces (gs_bench_gen) of 4 devices, and of 9 (from
 * GS_SHARE_MIN_DEVICES on, the shared tables), by default, over a window
 * and over the steps, byte for byte; one device of 70,000 ops, whose
 * operator index is built beside the graph; and two such devices, by
 * default and over a window. Labelled "threads": `make tsan` runs it.
 */
#include <gpuscope/analyzer.h>
#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gen.h"
#include "report_out.h"

/* A generated trace of `ops` ops on `devices` devices, loaded. */
static struct gs_trace *gen_trace(uint64_t ops, uint32_t devices)
{
	struct gs_bench_gen_options o = {.ops = ops, .devices = devices};
	struct gs_bench_gen_counts c;
	char path[] = "/tmp/gs_test_report_threads_XXXXXX";
	struct gs_writer *w = NULL;
	struct gs_trace *t = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(gs_writer_open(path, NULL, &w), GS_OK);
	assert_int_equal(gs_bench_generate(&o, gs_writer_borrow_sink(w), NULL, NULL, &c), GS_OK);
	assert_int_equal(gs_writer_close(w), GS_OK);
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	unlink(path);
	assert_int_equal(c.devices, devices);
	return t;
}

/* The report of t with `threads` threads, as JSON, text and HTML. */
static void outputs(const struct gs_trace *t, struct gs_report_options o, unsigned threads,
		    char *out[3])
{
	struct gs_report *r = NULL;

	o.threads = threads;
	assert_int_equal(gs_report_build(t, &o, &r), GS_OK);
	out[0] = report_out(gs_report_write_json, r, NULL, NULL);
	out[1] = report_out(gs_report_write_text, r, NULL, NULL);
	out[2] = report_out(gs_report_write_html, r, NULL, NULL);
	gs_report_destroy(r);
}

static void same_on_threads(const struct gs_trace *t, const struct gs_report_options *o)
{
	static const unsigned threads[] = {2, 3, 16};
	char *one[3], *many[3];

	outputs(t, *o, 1, one);
	for (size_t k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
		outputs(t, *o, threads[k], many);
		for (int i = 0; i < 3; i++) {
			assert_string_equal(one[i], many[i]);
			free(many[i]);
		}
	}
	for (int i = 0; i < 3; i++)
		free(one[i]);
}

static void check_devices(uint32_t devices)
{
	struct gs_trace *t = gen_trace(4000 * (uint64_t)devices, devices);
	struct gs_report_options o = {.rows = 0};
	int64_t first, last;

	same_on_threads(t, &o); /* the steps' span, the steps' figures */
	gs_trace_op_span(t, &first, &last);
	o.window = (struct gs_window){.set = true,
				      .start_ns = first + (last - first) / 4,
				      .end_ns = first + (last - first) / 2};
	same_on_threads(t, &o); /* a window: the reach arrays */
	o.window.set = false;
	o.has_device = true; /* one device: one thread whatever asked */
	o.device = 1;
	same_on_threads(t, &o);
	gs_trace_destroy(t);
}

static void test_four_devices(void **state)
{
	(void)state;
	check_devices(4);
}

/* From GS_SHARE_MIN_DEVICES (8) on: kept pieces, the call tree. */
static void test_nine_devices(void **state)
{
	(void)state;
	check_devices(9);
}

/* By default and over a window. */
static void check_large(uint64_t ops, uint32_t devices)
{
	struct gs_trace *t = gen_trace(ops, devices);
	struct gs_report_options o = {.rows = 0};
	int64_t first, last;

	same_on_threads(t, &o);
	gs_trace_op_span(t, &first, &last);
	o.window = (struct gs_window){.set = true,
				      .start_ns = first + (last - first) / 3,
				      .end_ns = first + (last - first) / 2};
	same_on_threads(t, &o);
	gs_trace_destroy(t);
}

/* One device of enough ops that the operator index is built on a thread
 * of its own while the graph builds (threads other than 1). */
static void test_index_thread(void **state)
{
	(void)state;
	check_large(70000, 1);
}

/* Two devices of 35,000 ops, beside the index thread. */
static void test_two_devices_index_thread(void **state)
{
	(void)state;
	check_large(70000, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_four_devices),
		cmocka_unit_test(test_nine_devices),
		cmocka_unit_test(test_index_thread),
		cmocka_unit_test(test_two_devices_index_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
