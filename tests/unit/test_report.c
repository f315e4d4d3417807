/* SPDX-License-Identifier: MIT */
/*
 * The analyze report (gs_report_build / write_text / write_json) over small
 * hand-written Kineto traces: every core report field is in the JSON with the
 * numbers worked out by hand, the text leads with the findings and fits 100
 * columns, --device / --window select what is reported, several inputs
 * merge, write errors are reported. With ../shared/data present, the A100
 * trace's report agrees with the analyses run directly.
 *
 * Traces are in µs from BASE; the model and the report are in ns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_out.h"
#include "tb_build.h"
#include "trace_build.h"

#include <cJSON.h>

#include "json_at.h"

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

/* Base of the hand-written traces: 1 s, in µs; BASE_NS in ns. */
#define BASE_NS 1000000000LL
#define US(x) (BASE_NS + (int64_t)(x)*1000)

/* ---- traces ---------------------------------------------------------------- */

#define HEAD                                                                                       \
	"{\"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\", \"numSms\": 108},"            \
	" {\"id\": 1, \"name\": \"Test GPU 1\", \"numSms\": 108}], \"traceEvents\": [\n"

#define KERNEL(name, dev, stream, ts, dur, corr)                                                   \
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": " #dev              \
	", \"tid\": " #stream ", \"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"device\": " #dev \
	", \"context\": 1, \"stream\": " #stream ", \"correlation\": " #corr                       \
	", \"grid\": [128, 1, 1], \"block\": [256, 1, 1]}}"

/*
 * One stream, device 0 (µs from 1 s):
 *   cudaLaunchKernel [95, 97)  -> k_one [100, 140)
 *   cudaMalloc       [150, 185)
 *   cudaLaunchKernel [190, 195) -> k_two [200, 230)
 *   cudaMemcpyAsync  [196, 199) -> HtoD pinned [230, 250)
 * Window [100, 250) = 150 µs: kernel 70, copy 20, idle 60 ([140, 200)).
 * The gap ends with k_two launched at 190: host_bound [140, 190) = 50, of
 * which 35 inside cudaMalloc; launch_latency [190, 200) = 10.
 * Schedules: stream order only, no host cost: 40 + 30 + 20 = 90 µs.
 */
static const char serial_json[] = HEAD
	RT("cudaLaunchKernel", 1000095, 2, 11) ",\n" KERNEL("k_one", 0, 7, 1000100, 40, 11) ",\n" RT(
		"cudaMalloc", 1000150, 35,
		50) ",\n" RT("cudaLaunchKernel", 1000190, 5,
			     12) ",\n" KERNEL("k_two", 0, 7, 1000200, 30,
					      12) ",\n" RT("cudaMemcpyAsync", 1000196, 3,
							   13) ",\n" COPY("Memcpy HtoD (Pinned -> Device)",
									  7, 1000230, 20,
									  13) "\n" TAIL;

/*
 * Two streams and an event (µs from 1 s): the copy on stream 20 [10, 50),
 * an event recorded after it (corr 22), stream 7 waits on it (corr 23),
 * then the kernel on stream 7 launched at [7, 9) runs [50, 90). The kernel
 * was ready at 9 (launch returned, nothing before it on stream 7), so it
 * waited 50 - 9 = 41 µs for the copy.
 */
static const char wait_json[] = HEAD RT("cudaMemcpyAsync", 1000000, 2, 21) ",\n" COPY(
	"Memcpy HtoD (Pinned -> Device)", 20, 1000010, 40,
	21) ",\n" RT("cudaEventRecord", 1000003, 1,
		     22) ",\n" RT("cudaStreamWaitEvent", 1000005, 1,
				  23) ",\n{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"pid\": 0, "
				      "\"tid\": 7, \"ts\": 1000005, \"dur\": 1, \"args\": {\"cuda_sync_kind\": \"Stream Wait "
				      "Event\", \"wait_on_stream\": 20, \"wait_on_cuda_event_record_corr_id\": 22, \"stream\": 7, "
				      "\"correlation\": 23, \"device\": 0, \"context\": 1}},\n" RT(
					      "cudaLaunchKernel", 1000007, 2,
					      24) ",\n" KERNEL("consumer_kernel", 0, 7, 1000050, 40,
							       24) "\n" TAIL;

/*
 * Three streams (µs from 1 s), no event record, wait or sync: a [10, 50) on
 * 7, b [10, 50) on 8, c [60, 80) on 9. The ideal runs every stream from
 * the window start: optimistic. sync3_json adds one stream wait (9 waits
 * on the event recorded on 7): not optimistic.
 */
#define THREE                                                                                      \
	RT("cudaLaunchKernel", 1000000, 2, 31)                                                     \
	",\n" KERNEL("k_a", 0, 7, 1000010, 40, 31) ",\n" RT(                                       \
		"cudaLaunchKernel", 1000002, 2,                                                    \
		32) ",\n" KERNEL("k_b", 0, 8, 1000010, 40,                                         \
				 32) ",\n" RT("cudaLaunchKernel", 1000004, 2,                      \
					      33) ",\n" KERNEL("k_c", 0, 9, 1000060, 20, 33)
static const char three_json[] = HEAD THREE "\n" TAIL;
static const char sync3_json[] = HEAD THREE ",\n" RT("cudaEventRecord", 1000003, 1, 34) ",\n" RT(
	"cudaStreamWaitEvent", 1000005, 1, 35) ",\n" WAIT(9, 7, 34, 1000005, 35) "\n" TAIL;

/*
 * Waits that form a cycle (µs from 1 s), as no real run can record them:
 * stream 7 waits (call 3) on the event recorded (call 10) after kernel b
 * of stream 8, stream 8 waits (call 4) on the event recorded (call 9)
 * after kernel a of stream 7; a and b both run [30, 40). The schedules
 * break the cycle by dropping a's in-edge, then keep a -> b: ideal 20 µs
 * against an actual 10 µs, which was reported as efficiency 2.00.
 */
static const char cycle_json[] = HEAD
	RT("cudaStreamWaitEvent", 1000003, 1, 3) ",\n" RT("cudaStreamWaitEvent", 1000004, 1, 4) ",\n" RT(
		"cudaLaunchKernel", 1000005, 1,
		5) ",\n" RT("cudaLaunchKernel", 1000006, 1,
			    6) ",\n" RT("cudaEventRecord", 1000009, 1,
					9) ",\n" RT("cudaEventRecord", 1000010, 1,
						    10) ",\n" WAIT(7, 8, 10, 1000003,
								   3) ",\n" WAIT(8, 7, 9, 1000004,
										 4) ",\n" KERNEL("a",
												 0,
												 7,
												 1000030,
												 10,
												 5) ",\n" KERNEL("b",
														 0,
														 8,
														 1000030,
														 10,
														 6) "\n" TAIL;

/* Half of it, no cycle: stream 7 waits on b, yet a ran beside b. The
 * ideal (b, then a: 20 µs) is longer than the recorded 10 µs. */
static const char overtaken_json[] = HEAD RT("cudaStreamWaitEvent", 1000003, 1, 3) ",\n" RT(
	"cudaLaunchKernel", 1000005, 1,
	5) ",\n" RT("cudaLaunchKernel", 1000006, 1,
		    6) ",\n" RT("cudaEventRecord", 1000010, 1,
				10) ",\n" WAIT(7, 8, 10, 1000003,
					       3) ",\n" KERNEL("a", 0, 7, 1000030, 10,
							       5) ",\n" KERNEL("b", 0, 8, 1000030,
									       10, 6) "\n" TAIL;

/*
 * Cut lists (µs from 1 s). Stream 7 runs four kernels one after another:
 * k_a [10, 30), k_b [40, 120), k_c [130, 170), k_d [180, 240); the
 * critical path is those four, 200 µs, and its two longest ops k_b
 * (step 2) and k_d (step 4). Three times, at host times 0, 10 and 20, a
 * copy on stream 20, an event recorded after it, stream 9 waiting on the
 * event and a kernel launched on stream 9 (returning at 4, 14 and 24):
 *   copy x [5, 60)   -> k_x [60, 65):   ready at 4, waited 56;
 *   copy y [60, 90)  -> k_y [90, 95):   ready at 65 (k_x's end), waited 25;
 *   copy z [90, 150) -> k_z [150, 155): ready at 95, waited 55.
 */
#define CUTK(name, ts, dur, corr)                                                                  \
	RT("cudaLaunchKernel", ts, 1, corr) ",\n" KERNEL(name, 0, 7, ts, dur, corr) ",\n"
#define CUTW(t0, t1, t2, t3, copy_ts, copy_dur, c, name, k_ts)                                     \
	RT("cudaMemcpyAsync", t0, 1, c##0)                                                         \
	",\n" COPY("Memcpy HtoD (Pinned -> Device)", 20, copy_ts, copy_dur, c##0) ",\n" RT(        \
		"cudaEventRecord", t1, 1,                                                          \
		c##1) ",\n" RT("cudaStreamWaitEvent", t2, 1,                                       \
			       c##2) ",\n" WAIT(9, 20, c##1, t2,                                   \
						c##2) ",\n" RT("cudaLaunchKernel", t3, 1,          \
							       c##3) ",\n" KERNEL(name, 0, 9,      \
										  k_ts, 5, c##3)
static const char cut_json[] = HEAD CUTK("k_a", 1000010, 20, 71) CUTK("k_b", 1000040, 80, 72)
	CUTK("k_c", 1000130, 40, 73) CUTK("k_d", 1000180, 60, 74)
		CUTW(1000000, 1000001, 1000002, 1000003, 1000005, 55, 8, "k_x", 1000060) ",\n" CUTW(
			1000010, 1000011, 1000012, 1000013, 1000060, 30, 9, "k_y",
			1000090) ",\n" CUTW(1000020, 1000021, 1000022, 1000023, 1000090, 60, 6,
					    "k_z", 1000150) "\n" TAIL;

/* Another process on device 1: one kernel [0, 10) µs. */
static const char rank1_json[] =
	"{\"traceEvents\": [\n" KERNEL("allreduce", 1, 7, 1000000, 10, 1) "\n" TAIL;

static struct gs_report *report_of(const struct gs_trace *t, const struct gs_report_options *o)
{
	static const char *const inputs[] = {"test.json"};
	struct gs_report_options def = {.inputs = inputs, .n_inputs = 1, .format = "kineto"};
	struct gs_report *r = NULL;

	gs_error_clear();
	assert_int_equal(gs_report_build(t, o ? o : &def, &r), GS_OK);
	assert_non_null(r);
	return r;
}

/* ---- output to memory ------------------------------------------------------- */

static char *text_of(const struct gs_report *r)
{
	return report_out(gs_report_write_text, r, NULL, NULL);
}

static char *html_of(const struct gs_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(gs_report_write_html(f, r, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *json_text_of(const struct gs_report *r)
{
	size_t len;
	char *buf = report_out(gs_report_write_json, r, NULL, &len);

	assert_true(len > 0 && buf[len - 1] == '\n');
	return buf;
}

static cJSON *json_of(const struct gs_report *r, char **raw)
{
	char *buf = json_text_of(r);
	cJSON *j = cJSON_Parse(buf);

	assert_non_null(j);
	if (raw)
		*raw = buf;
	else
		free(buf);
	return j;
}

static void num_is(const cJSON *j, double want)
{
	assert_true(cJSON_IsNumber(j));
	if (j->valuedouble != want)
		print_error("got %.17g, want %.17g\n", j->valuedouble, want);
	assert_true(j->valuedouble == want);
}

/* ---- tests ------------------------------------------------------------------- */

/* Every core field (docs/report.md) is there, with the hand-worked numbers. */
static void test_json_fields(void **state)
{
	static const char *const dev_keys[] = {
		"device", "name",    "window_ns", "breakdown",      "segments",        "overlap",
		"idle",   "streams", "schedule",  "missed_overlap", "graph_candidates"};
	struct gs_trace *t = trace_of(serial_json);
	struct gs_report *r = report_of(t, NULL);
	char *raw = NULL;
	cJSON *j = json_of(r, &raw);
	const cJSON *d, *b, *cp, *s;
	size_t i;

	(void)state;
	str_is(at(j, "schema", NULL), "gpuscope.report/1");
	str_is(at(j, "trace", "inputs", "#0", NULL), "test.json");
	str_is(at(j, "trace", "format", NULL), "kineto");
	num_is(at(j, "trace", "ops", NULL), 3);
	num_is(at(j, "trace", "dropped_records", NULL), 0);
	assert_true(cJSON_IsArray(at(j, "trace", "warnings", NULL)));
	assert_true(cJSON_IsArray(at(j, "waits", NULL)));
	assert_int_equal(cJSON_GetArraySize(at(j, "devices", NULL)), 1);

	d = at(j, "devices", "#0", NULL);
	for (i = 0; i < sizeof(dev_keys) / sizeof(dev_keys[0]); i++)
		at(d, dev_keys[i], NULL);
	num_is(at(d, "device", NULL), 0);
	str_is(at(d, "name", NULL), "Test GPU");
	num_is(at(d, "window_ns", "#0", NULL), (double)US(100));
	num_is(at(d, "window_ns", "#1", NULL), (double)US(250));
	/* Exact integers in the text too (a double would print 1.00025e+12). */
	assert_non_null(strstr(raw, "\"window_ns\": [1000100000, 1000250000]"));

	b = at(d, "breakdown", NULL);
	num_is(at(b, "kernel_ns", NULL), 70000);
	num_is(at(b, "copy_ns", NULL), 20000);
	num_is(at(b, "sync_ns", NULL), 0);
	num_is(at(b, "idle_ns", NULL), 60000);
	num_is(at(b, "total_ns", NULL), 150000);
	num_is(at(b, "fractions", "kernel", NULL), 0.4667);
	num_is(at(b, "fractions", "copy", NULL), 0.1333);
	num_is(at(b, "fractions", "sync", NULL), 0);
	num_is(at(b, "fractions", "idle", NULL), 0.4);
	assert_non_null(strstr(raw, "\"kernel\": 0.4667"));
	assert_non_null(strstr(raw, "\"idle\": 0.4000"));
	str_is(at(b, "dominant", NULL), "kernel");
	num_is(at(d, "segments", NULL), 4); /* kernel, idle, kernel, copy */

	num_is(at(d, "overlap", "copy_total_ns", NULL), 20000);
	num_is(at(d, "overlap", "copy_hidden_ns", NULL), 0);
	num_is(at(d, "overlap", "kernel_concurrency_ns", NULL), 0);

	num_is(at(d, "idle", "host_bound_ns", NULL), 50000);
	num_is(at(d, "idle", "launch_latency_ns", NULL), 10000);
	num_is(at(d, "idle", "unattributed_ns", NULL), 0);
	str_is(at(d, "idle", "top_host_calls", "#0", "name", NULL), "cudaMalloc");
	num_is(at(d, "idle", "top_host_calls", "#0", "ns", NULL), 35000);
	num_is(at(d, "idle", "top_host_calls", "#0", "count", NULL), 1);

	assert_int_equal(cJSON_GetArraySize(at(d, "streams", NULL)), 1);
	s = at(d, "streams", "#0", NULL);
	num_is(at(s, "stream", NULL), 7);
	str_is(at(s, "kind", NULL), "unknown");
	num_is(at(s, "priority", NULL), 0);
	num_is(at(s, "ops", NULL), 3);
	num_is(at(s, "kernel_ns", NULL), 70000);
	num_is(at(s, "copy_ns", NULL), 20000);

	s = at(d, "schedule", NULL);
	num_is(at(s, "actual_ns", NULL), 150000);
	num_is(at(s, "dependency_bound_ns", NULL), 90000);
	num_is(at(s, "ideal_ns", NULL), 90000);
	num_is(at(s, "efficiency", NULL), 0.6);
	assert_non_null(strstr(raw, "\"efficiency\": 0.6000"));
	assert_true(cJSON_IsFalse(at(s, "efficiency_bounded", NULL)));
	num_is(at(s, "broken_cycles", NULL), 0);
	cp = at(s, "critical_path", NULL);
	assert_int_equal(cJSON_GetArraySize(cp), 3);
	/* "op" is the correlation id; "op_index" the index in the trace. */
	num_is(at(cp, "#0", "op", NULL), 11);
	str_is(at(cp, "#0", "name", NULL), "k_one");
	num_is(at(cp, "#0", "stream", NULL), 7);
	num_is(at(cp, "#0", "ns", NULL), 40000);
	num_is(at(cp, "#1", "op", NULL), 12);
	num_is(at(cp, "#1", "ns", NULL), 30000);
	num_is(at(cp, "#2", "op", NULL), 13);
	num_is(at(cp, "#2", "ns", NULL), 20000);
	for (i = 0; i < 3; i++) {
		char idx[8];
		double op;
		size_t n;
		const struct gs_op *ops = gs_trace_ops(t, &n);

		snprintf(idx, sizeof(idx), "#%zu", i);
		op = at(cp, idx, "op_index", NULL)->valuedouble;
		assert_true(op >= 0 && op < (double)n);
		assert_int_equal(ops[(size_t)op].correlation,
				 (uint64_t)at(cp, idx, "op", NULL)->valuedouble);
	}
	str_is(at(s, "what_if", "#0", "name", NULL), "pipelined_batches");
	at(s, "what_if", "#0", "makespan_ns", NULL);
	at(s, "what_if", "#0", "saving_ns", NULL);
	assert_true(cJSON_IsArray(at(s, "what_if", "#0", "preconditions", NULL)));
	assert_int_equal(cJSON_GetArraySize(at(j, "waits", NULL)), 0);

	cJSON_Delete(j);
	free(raw);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* The text puts the findings first, with their numbers and the fix. */
static void test_text_findings(void **state)
{
	struct gs_trace *t = trace_of(serial_json);
	struct gs_report *r = report_of(t, NULL);
	char *text = text_of(r);
	const char *findings, *schedule, *idle;

	(void)state;
	check_lines(text);
	assert_non_null(strstr(text, "device 0: Test GPU"));
	assert_non_null(strstr(text, "150.000 us (first op start to last op end)"));
	/* The bar: a legend and one glyph per category. */
	assert_non_null(strstr(text, "█ kernel"));
	assert_non_null(strstr(text, "░ idle"));
	assert_non_null(strstr(text, "kernel       70.000 us    46.7%"));
	assert_non_null(strstr(text, "idle         60.000 us    40.0%"));
	assert_non_null(strstr(text, "dominant: kernel (46.7%) - a lead to check, not a verdict"));

	flat(text);
	findings = strstr(text, "Top findings");
	schedule = strstr(text, "Schedule (");
	assert_non_null(findings);
	assert_non_null(schedule);
	assert_true(findings < schedule);
	/* The headline first: 90 µs instead of 150. */
	assert_non_null(strstr(findings, " 1. efficiency 0.60: the same ops could finish in "
					 "90.000 us (ideal schedule) instead of 150.000 us"));
	idle = strstr(findings, "idle 40.0% (60.000 us): 50.000 us host-bound (mostly 35.000 us "
				"inside cudaMalloc), 10.000 us launch latency");
	assert_non_null(idle);
	assert_true(idle < schedule);
	assert_non_null(strstr(idle, "-> allocate once and reuse the buffers"));
	assert_non_null(strstr(schedule, "dependency bound 90.000 us"));
	assert_non_null(strstr(schedule, "efficiency 0.60 (ideal / actual)"));
	assert_non_null(strstr(text, "cudaMalloc 35.000 us in 1 gap"));

	free(text);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* Several streams and no synchronization recorded at all: the schedule is
 * flagged optimistic, with one caution in the text; one stream wait is
 * enough to lift it. */
static void test_optimistic(void **state)
{
	struct gs_trace *t = trace_of(three_json);
	struct gs_report *r = report_of(t, NULL);
	cJSON *j = json_of(r, NULL);
	char *text, *p;
	int count = 0;

	(void)state;
	assert_true(cJSON_IsTrue(at(j, "devices", "#0", "schedule", "optimistic", NULL)));
	str_is(at(j, "devices", "#0", "schedule", "optimistic_reason", NULL),
	       "ops on several streams and no cross-stream synchronization recorded (no event "
	       "records, stream waits or syncs)");
	text = text_of(r);
	check_lines(text);
	flat(text);
	assert_non_null(strstr(text, "caution device 0: ops on 3 streams and no cross-stream "
				     "synchronization recorded (no event records, stream waits or "
				     "syncs): the ideal schedule runs every stream from the window "
				     "start and is optimistic"));
	for (p = text; (p = strstr(p, "no cross-stream synchronization")) != NULL; p++)
		count++;
	assert_int_equal(count, 1);
	free(text);
	text = html_of(r);
	count = 0;
	for (p = text; (p = strstr(p, "no cross-stream synchronization")) != NULL; p++)
		count++;
	assert_int_equal(count, 1);
	assert_non_null(strstr(text, "<li><b>caution:</b> device 0: ops on 3 streams"));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);

	t = trace_of(sync3_json);
	r = report_of(t, NULL);
	j = json_of(r, NULL);
	assert_true(cJSON_IsFalse(at(j, "devices", "#0", "schedule", "optimistic", NULL)));
	assert_null(cJSON_GetObjectItemCaseSensitive(at(j, "devices", "#0", "schedule", NULL),
						     "optimistic_reason"));
	text = text_of(r);
	assert_null(strstr(text, "no cross-stream synchronization"));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/*
 * Two kernels on disjoint parts of one caching-allocator segment (pointers
 * at 2 MiB and 4 MiB of an 8 MiB allocation, sizes unknown): no data edge,
 * one possible (segment) dependency, which the text, HTML and JSON report
 * as such. Without the segment mark the two are a proven data edge and the
 * report says nothing of possible ones (the field is left out).
 */
static struct gs_trace *segment_trace(uint8_t flags)
{
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0, 7), s2 = tb_stream(&b, 1, 0, 8);
	struct gs_allocation a = {.address = 0x7a0000000000ull, .bytes = 8u << 20};
	uint32_t ai;

	assert_int_equal(b.s->allocation(b.s, &a, &ai), GS_OK);
	tb_kernel(&b, s1, "k_low", 1000, 2000, 1);
	tb_kernel(&b, s2, "k_high", 3000, 4000, 2);
	for (uint64_t c = 1; c <= 2; c++) {
		struct gs_op_alloc l = {.correlation = c,
					.allocation = ai,
					.op_kind = GS_OP_KERNEL,
					.flags = flags,
					.offset = (c * 2) << 20};

		assert_int_equal(b.s->op_alloc(b.s, &l), GS_OK);
	}
	return tb_done(&b);
}

static void test_segment_edges(void **state)
{
	static const char note[] =
		"1 possible data dependency on shared allocations (caching allocator segments, "
		"ranges not known to meet): not proven, so the waits, critical path, ideal "
		"schedule and what-ifs leave it out";
	struct gs_trace *t = segment_trace(GS_LINK_HAS_OFFSET | GS_LINK_SEGMENT);
	struct gs_report *r = report_of(t, NULL);
	cJSON *j = json_of(r, NULL);
	char *text;

	(void)state;
	num_is(at(j, "trace", "graph", "segment_edges", NULL), 1);
	str_is(at(j, "trace", "graph", "segment_edges_evidence", NULL), "possible");
	num_is(at(j, "trace", "graph", "edges_by_kind", "data", NULL), 0);
	assert_true(cJSON_IsFalse(at(j, "trace", "graph", "data_edges", NULL)));
	text = text_of(r);
	check_lines(text);
	flat(text);
	assert_non_null(strstr(text, note));
	free(text);
	text = html_of(r);
	assert_non_null(strstr(text, "<li><b>note:</b> 1 possible data dependency on shared"));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);

	t = segment_trace(GS_LINK_HAS_OFFSET);
	r = report_of(t, NULL);
	j = json_of(r, NULL);
	num_is(at(j, "trace", "graph", "edges_by_kind", "data", NULL), 1);
	assert_null(
		cJSON_GetObjectItemCaseSensitive(at(j, "trace", "graph", NULL), "segment_edges"));
	assert_null(cJSON_GetObjectItemCaseSensitive(at(j, "trace", "graph", NULL),
						     "segment_edges_evidence"));
	text = text_of(r);
	assert_null(strstr(text, "possible data dependenc"));
	free(text);
	text = html_of(r);
	assert_null(strstr(text, "possible data dependenc"));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/*
 * One stream (serial_json): the gap to the ideal (150 - 90 µs) is host and
 * launch time, and the advice says so, never "its own stream". Pipelining
 * (k_one, k_two | the HtoD copy, which runs from the start on its engine):
 * 70 µs, 20 µs beyond the ideal of 90; the rest of its 80 µs saving is the
 * host/launch time the ideal removes.
 */
static void test_one_stream(void **state)
{
	struct gs_trace *t = trace_of(serial_json);
	struct gs_report *r = report_of(t, NULL);
	cJSON *j = json_of(r, NULL);
	const cJSON *f = at(j, "devices", "#0", "findings", "#0", NULL), *w;
	char *text;

	(void)state;
	str_is(at(f, "kind", NULL), "schedule");
	/* The headline splits the gap: host-bound and launch latency only,
	 * adding up to it, and never advises "its own stream". */
	{
		const cJSON *gap = at(j, "devices", "#0", "schedule", "gap", NULL), *c;
		double sum = 0;

		cJSON_ArrayForEach(c, gap)
		{
			const char *cause = at(c, "cause", NULL)->valuestring;

			assert_true(!strcmp(cause, "host_bound") ||
				    !strcmp(cause, "launch_latency"));
			sum += at(c, "ns", NULL)->valuedouble;
		}
		assert_true(sum == 60000);
		num_is(at(j, "devices", "#0", "schedule", "gap_ns", NULL), 60000);
	}
	assert_non_null(strstr(at(f, "text", NULL)->valuestring, "the 60.000 us between is"));
	assert_null(strstr(at(f, "advice", NULL)->valuestring, "own stream"));
	w = at(j, "devices", "#0", "schedule", "what_if", "#0", NULL);
	str_is(at(w, "name", NULL), "pipelined_batches");
	num_is(at(w, "makespan_ns", NULL), 70000);
	num_is(at(w, "saving_ns", NULL), 80000);
	num_is(at(w, "saving_vs_ideal_ns", NULL), 20000);
	num_is(at(w, "batches", NULL), 2);
	text = text_of(r);
	flat(text);
	assert_non_null(strstr(text,
			       "pipelined batches 70.000 us (2 batches; 20.000 us beyond the "
			       "ideal; of its 80.000 us saving, 60.000 us is host/launch time "
			       "the ideal already removes)"));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* A cross-stream event wait: kind, consumer, producer and wait_ns. */
static void test_waits(void **state)
{
	struct gs_trace *t = trace_of(wait_json);
	struct gs_report *r = report_of(t, NULL);
	cJSON *j = json_of(r, NULL);
	const cJSON *w;
	char *text;

	(void)state;
	assert_int_equal(cJSON_GetArraySize(at(j, "waits", NULL)), 1);
	w = at(j, "waits", "#0", NULL);
	str_is(at(w, "kind", NULL), "event");
	num_is(at(w, "consumer", NULL), 24);
	num_is(at(w, "producer", NULL), 21);
	num_is(at(w, "wait_ns", NULL), 41000);
	at(w, "event", NULL);
	str_is(at(w, "consumer_name", NULL), "consumer_kernel");
	num_is(at(w, "consumer_stream", NULL), 7);
	num_is(at(w, "producer_stream", NULL), 20);
	num_is(at(w, "device", NULL), 0);
	num_is(at(j, "devices", "#0", "waits_summary", "count", NULL), 1);
	num_is(at(j, "devices", "#0", "waits_summary", "wait_ns", NULL), 41000);
	/* Two streams, by stream id. */
	num_is(at(j, "devices", "#0", "streams", "#0", "stream", NULL), 7);
	num_is(at(j, "devices", "#0", "streams", "#1", "stream", NULL), 20);

	text = text_of(r);
	check_lines(text);
	assert_non_null(strstr(text, "Waits (1, 41.000 us in total"));
	assert_non_null(strstr(text, "41.000 us  event           consumer_kernel [s7]"));
	assert_non_null(strstr(text, "<- HtoD 1.0 MiB pinned [s20]"));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* Waits in a cycle: the report says so (a finding first, broken_cycles)
 * and gives no efficiency, rather than ideal / actual = 2. */
static void test_wait_cycle(void **state)
{
	struct gs_trace *t = trace_of(cycle_json);
	struct gs_report *r = report_of(t, NULL);
	char *raw = NULL, *text;
	cJSON *j = json_of(r, &raw);
	const cJSON *s = at(j, "devices", "#0", "schedule", NULL);
	const cJSON *f = at(j, "devices", "#0", "findings", NULL);
	const cJSON *e;
	int i;

	(void)state;
	/* The cycle is there: two waits, each holding the other's producer. */
	assert_int_equal(cJSON_GetArraySize(at(j, "waits", NULL)), 2);
	num_is(at(s, "actual_ns", NULL), 10000);
	num_is(at(s, "ideal_ns", NULL), 20000);
	num_is(at(s, "broken_cycles", NULL), 1);
	assert_true(cJSON_IsNull(at(s, "efficiency", NULL)));
	assert_non_null(strstr(raw, "\"efficiency\": null,"));
	assert_true(cJSON_IsFalse(at(s, "efficiency_bounded", NULL)));
	/* The cycle finding first; no efficiency headline, no pipelining lead
	 * (both rest on the broken schedule). */
	str_is(at(f, "#0", "kind", NULL), "dependency_cycles");
	num_is(at(f, "#0", "ns", NULL), 0);
	assert_non_null(strstr(at(f, "#0", "text", NULL)->valuestring,
			       "the schedules broke the cycles at 1 op by dropping edges"));
	for (i = 0; i < cJSON_GetArraySize(f); i++) {
		const char *kind;

		e = cJSON_GetArrayItem(f, i);
		kind = at(e, "kind", NULL)->valuestring;
		assert_string_not_equal(kind, "schedule");
		assert_string_not_equal(kind, "pipelining");
		assert_null(strstr(at(e, "text", NULL)->valuestring, "efficiency 2"));
	}

	text = text_of(r);
	check_lines(text);
	assert_null(strstr(text, "2.00"));
	flat(text);
	assert_non_null(strstr(text,
			       "Top findings 1. dependency cycles: ops wait (through events, "
			       "host syncs or the default stream) on work that waits on them"));
	assert_non_null(strstr(text,
			       "efficiency n/a (not available: the schedule broke dependency "
			       "cycles at 1 op, so the ideal is no bound; see the findings)"));
	free(text);
	free(raw);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* No cycle, but the recording ran an op before its wait allowed: the ideal
 * is longer than the actual run, and the efficiency is 1, flagged. */
static void test_efficiency_bounded(void **state)
{
	struct gs_trace *t = trace_of(overtaken_json);
	struct gs_report *r = report_of(t, NULL);
	char *raw = NULL, *text;
	cJSON *j = json_of(r, &raw);
	const cJSON *s = at(j, "devices", "#0", "schedule", NULL);
	const cJSON *f = at(j, "devices", "#0", "findings", NULL);
	int i;

	(void)state;
	num_is(at(s, "actual_ns", NULL), 10000);
	num_is(at(s, "ideal_ns", NULL), 20000);
	num_is(at(s, "broken_cycles", NULL), 0);
	num_is(at(s, "efficiency", NULL), 1);
	assert_non_null(strstr(raw, "\"efficiency\": 1.0000,"));
	assert_true(cJSON_IsTrue(at(s, "efficiency_bounded", NULL)));
	for (i = 0; i < cJSON_GetArraySize(f); i++) {
		const char *kind = at(cJSON_GetArrayItem(f, i), "kind", NULL)->valuestring;

		assert_string_not_equal(kind, "dependency_cycles");
		assert_string_not_equal(kind, "schedule");
	}

	text = text_of(r);
	check_lines(text);
	flat(text);
	assert_non_null(strstr(text, "efficiency 1.00 (bounded: the ideal, 20.000 us, is longer "
				     "than the actual run, which started some op before a "
				     "dependency allowed)"));
	free(text);
	free(raw);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* Two inputs, two devices; --device picks one; a missing one is an error. */
static void test_devices_and_merge(void **state)
{
	static const char *const inputs[] = {"a.json", "b.json"};
	struct gs_report_options o = {.inputs = inputs, .n_inputs = 2, .format = "kineto"};
	struct gs_trace *t = NULL;
	struct gs_report *r;
	cJSON *j;
	char buf[512];

	(void)state;
	assert_int_equal(gs_trace_create(&t), GS_OK);
	load_into(t, serial_json, "a.json");
	load_into(t, rank1_json, "b.json");
	assert_int_equal(gs_trace_finish(t), GS_OK);

	r = report_of(t, &o);
	j = json_of(r, NULL);
	num_is(at(j, "trace", "ops", NULL), 4);
	str_is(at(j, "trace", "inputs", "#1", NULL), "b.json");
	assert_int_equal(cJSON_GetArraySize(at(j, "devices", NULL)), 2);
	num_is(at(j, "devices", "#0", "device", NULL), 0);
	num_is(at(j, "devices", "#1", "device", NULL), 1);
	str_is(at(j, "devices", "#1", "name", NULL), "Test GPU 1");
	num_is(at(j, "devices", "#1", "breakdown", "kernel_ns", NULL), 10000);
	num_is(at(j, "devices", "#1", "breakdown", "total_ns", NULL), 10000);
	cJSON_Delete(j);
	gs_report_destroy(r);

	o.has_device = true;
	o.device = 1;
	r = report_of(t, &o);
	j = json_of(r, NULL);
	assert_int_equal(cJSON_GetArraySize(at(j, "devices", NULL)), 1);
	num_is(at(j, "devices", "#0", "device", NULL), 1);
	cJSON_Delete(j);
	gs_report_destroy(r);

	o.device = 5;
	r = (struct gs_report *)(uintptr_t)1; /* must be reset to NULL */
	gs_error_clear();
	assert_int_equal(gs_report_build(t, &o, &r), GS_ERR_INVALID);
	assert_null(r);
	gs_error_format(buf, sizeof(buf));
	assert_non_null(
		strstr(buf, "device 5 has no GPU ops in the trace (devices with ops: 0, 1)"));
	gs_error_clear();
	gs_trace_destroy(t);
}

/* An absolute and a relative window; an empty one is refused. */
static void test_window(void **state)
{
	struct gs_report_options o = {.format = "kineto"};
	struct gs_trace *t = trace_of(serial_json);
	struct gs_report *r = NULL;
	cJSON *j;

	(void)state;
	o.window = (struct gs_window){.set = true, .start_ns = US(120), .end_ns = US(220)};
	r = report_of(t, &o);
	j = json_of(r, NULL);
	num_is(at(j, "devices", "#0", "window_ns", "#0", NULL), (double)US(120));
	num_is(at(j, "devices", "#0", "breakdown", "total_ns", NULL), 100000);
	/* [120, 140) k_one, [140, 200) idle, [200, 220) k_two. */
	num_is(at(j, "devices", "#0", "breakdown", "kernel_ns", NULL), 40000);
	num_is(at(j, "devices", "#0", "breakdown", "idle_ns", NULL), 60000);
	assert_true(cJSON_IsFalse(at(j, "devices", "#0", "window_default", NULL)));
	num_is(at(j, "options", "window_ns", "#1", NULL), (double)US(220));
	cJSON_Delete(j);
	gs_report_destroy(r);

	/* +20us:+120us from the first op start (100 µs): the same window. */
	o.window = (struct gs_window){.set = true, .start_ns = 20000, .end_ns = 120000};
	o.window_relative = true;
	r = report_of(t, &o);
	j = json_of(r, NULL);
	num_is(at(j, "devices", "#0", "window_ns", "#0", NULL), (double)US(120));
	num_is(at(j, "devices", "#0", "window_ns", "#1", NULL), (double)US(220));
	cJSON_Delete(j);
	gs_report_destroy(r);

	o.window = (struct gs_window){.set = true, .start_ns = 50, .end_ns = 50};
	gs_error_clear();
	assert_int_equal(gs_report_build(t, &o, &r), GS_ERR_INVALID);
	assert_null(r);
	gs_error_clear();
	gs_trace_destroy(t);
}

/* No GPU ops: no devices, a sentence instead. */
static void test_empty(void **state)
{
	struct gs_trace *t = trace_of("{\"traceEvents\": [" RT("cudaMalloc", 1000000, 5, 1) "]}");
	struct gs_report *r = report_of(t, NULL);
	cJSON *j = json_of(r, NULL);
	char *text = text_of(r);

	(void)state;
	assert_int_equal(cJSON_GetArraySize(at(j, "devices", NULL)), 0);
	assert_int_equal(cJSON_GetArraySize(at(j, "waits", NULL)), 0);
	assert_non_null(strstr(text, "no GPU ops in the trace"));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* Long names are cut with an ellipsis; control bytes reach the text escaped;
 * the JSON keeps the whole name, escaped. */
static void test_names(void **state)
{
	char json[4096], name[400];
	struct gs_trace *t;
	struct gs_report *r;
	char *text, *raw = NULL;
	cJSON *j;
	size_t i;

	(void)state;
	for (i = 0; i < 300; i++)
		name[i] = (char)('a' + i % 26);
	memcpy(name, "void k\\t<", 9); /* an escaped tab inside the name */
	name[300] = '\0';
	snprintf(
		json, sizeof(json),
		"{\"traceEvents\": [" RT(
			"cudaLaunchKernel", 1000000, 2,
			1) ",\n"
			   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, "
			   "\"ts\": 1000010, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7, "
			   "\"correlation\": 1}}]}",
		name);
	t = trace_of(json);
	r = report_of(t, NULL);
	text = text_of(r);
	check_lines(text);
	assert_non_null(strstr(text, "void k\\x09<"));
	assert_non_null(strstr(text, "…"));
	j = json_of(r, &raw);
	assert_int_equal(strlen(at(j, "devices", "#0", "kernels", "#0", "name", NULL)->valuestring),
			 300 - 1);
	assert_non_null(strstr(raw, "void k\\t<"));
	free(raw);
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* Colour only when asked. */
static void test_color(void **state)
{
	struct gs_report_options o = {.format = "kineto"};
	struct gs_report_style color = {.color = true};
	struct gs_trace *t = trace_of(serial_json);
	struct gs_report *r = report_of(t, &o);
	char *text = report_out(gs_report_write_text, r, &color, NULL);

	(void)state;
	assert_non_null(strstr(text, "\033["));
	check_lines(text);
	free(text);
	gs_report_destroy(r);
	r = report_of(t, NULL);
	text = text_of(r);
	assert_null(strstr(text, "\033"));
	free(text);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* A full disk is an I/O error with a cause. */
/* The i-th row of a list has member `key` equal to `want`. */
static void row_is(const cJSON *list, int i, const char *key, const char *want)
{
	str_is(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, i), key), want);
}

/* --rows N: N entries of each per-op list, those with the most time at
 * stake, and the exact counts and totals beside a cut one; --rows all:
 * every entry and no count fields. */
static void test_rows(void **state)
{
	static const char *const inputs[] = {"test.json"};
	struct gs_report_options o = {.inputs = inputs, .n_inputs = 1, .format = "kineto"};
	struct gs_trace *t = trace_of(cut_json);
	const cJSON *dev, *cp;
	struct gs_report *r;
	char *text;
	cJSON *j;

	(void)state;
	o.rows = 2;
	r = report_of(t, &o);
	j = json_of(r, NULL);
	dev = at(j, "devices", "#0", NULL);
	cp = at(dev, "schedule", "critical_path", NULL);
	assert_int_equal(cJSON_GetArraySize(cp), 2);
	row_is(cp, 0, "name", "k_b"); /* the two longest, in path order */
	num_is(at(cp, "#0", "ns", NULL), 80000);
	row_is(cp, 1, "name", "k_d");
	num_is(at(cp, "#1", "ns", NULL), 60000);
	num_is(at(dev, "schedule", "critical_path_count", NULL), 4);
	num_is(at(dev, "schedule", "critical_path_ns", NULL), 200000);
	assert_int_equal(cJSON_GetArraySize(at(j, "waits", NULL)), 2);
	row_is(at(j, "waits", NULL), 0, "consumer_name", "k_x");
	num_is(at(j, "waits", "#0", "wait_ns", NULL), 56000);
	row_is(at(j, "waits", NULL), 1, "consumer_name", "k_z");
	num_is(at(j, "waits", "#1", "wait_ns", NULL), 55000);
	num_is(at(j, "waits_count", NULL), 3);
	num_is(at(j, "waits_ns", NULL), 136000);
	num_is(at(dev, "waits_summary", "count", NULL), 3);
	num_is(at(dev, "waits_summary", "wait_ns", NULL), 136000);
	/* Two missed overlaps: not cut, no count. */
	assert_int_equal(cJSON_GetArraySize(at(dev, "missed_overlap", NULL)), 2);
	assert_null(cJSON_GetObjectItemCaseSensitive(dev, "missed_overlap_count"));
	cJSON_Delete(j);
	text = flat(text_of(r));
	assert_non_null(strstr(text, "critical path 4 ops, 200.000 us; the longest: step op stream "
				     "kind time name 2 72 7 kernel 80.000 us k_b 4 74 7 kernel "
				     "60.000 us k_d 2 of 4 shown"));
	assert_non_null(strstr(text, "Waits (3, 136.000 us in total;"));
	assert_non_null(strstr(text, "2 of 3 shown (--top N; the report keeps 2,"));
	free(text);
	text = html_of(r);
	assert_non_null(
		strstr(text, "<p class=\"more\">2 of 4 shown (--top N; the report keeps 2,"));
	assert_non_null(
		strstr(text, "<p class=\"more\">2 of 3 shown (--top N; the report keeps 2,"));
	free(text);
	gs_report_destroy(r);

	o.rows = 1;
	r = report_of(t, &o);
	j = json_of(r, NULL);
	dev = at(j, "devices", "#0", NULL);
	assert_int_equal(cJSON_GetArraySize(at(dev, "missed_overlap", NULL)), 1);
	num_is(at(dev, "missed_overlap", "#0", "exposed_ns", NULL), 15000); /* [5,10), [30,40) */
	num_is(at(dev, "missed_overlap_count", NULL), 2);
	num_is(at(dev, "missed_overlap_ns", NULL), 25000); /* and z's [120, 130) */
	/* The what-if runs the kernels as the recorded run did (at most two
	 * at once): it hides 20 of the 25 us. */
	num_is(at(dev, "missed_overlap_hideable_ns", NULL), 20000);
	cJSON_Delete(j);
	gs_report_destroy(r);

	o.rows = GS_REPORT_ROWS_ALL;
	r = report_of(t, &o);
	j = json_of(r, NULL);
	dev = at(j, "devices", "#0", NULL);
	assert_int_equal(cJSON_GetArraySize(at(dev, "schedule", "critical_path", NULL)), 4);
	assert_int_equal(cJSON_GetArraySize(at(j, "waits", NULL)), 3);
	assert_null(
		cJSON_GetObjectItemCaseSensitive(at(dev, "schedule", NULL), "critical_path_count"));
	assert_null(cJSON_GetObjectItemCaseSensitive(j, "waits_count"));
	text = text_of(r);
	assert_null(strstr(text, " shown ("));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

static void test_write_error(void **state)
{
	struct gs_trace *t = trace_of(serial_json);
	struct gs_report *r = report_of(t, NULL);
	char buf[512];
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f) {
		gs_report_destroy(r);
		gs_trace_destroy(t);
		skip();
	}
	gs_error_clear();
	assert_int_equal(gs_report_write_json(f, r, NULL), GS_ERR_IO);
	gs_error_format(buf, sizeof(buf));
	assert_non_null(strstr(buf, "write failed"));
	gs_error_clear();
	clearerr(f);
	assert_int_equal(gs_report_write_text(f, r, NULL), GS_ERR_IO);
	gs_error_clear();
	fclose(f);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* The real A100 trace: the report repeats what the analyses compute. */
static void test_shared_a100(void **state)
{
	const char *path = GS_SHARED_DATA "/kineto/hta-misc/a100_16rank_rank0_graphs_waits.json.gz";
	static const char *const inputs[] = {"test.json"};
	const struct gs_report_options whole = {.inputs = inputs,
						.n_inputs = 1,
						.format = "kineto",
						.steps = {.pick = GS_STEP_NONE}};
	struct gs_trace *t = NULL;
	struct gs_report *r;
	struct gs_breakdown b;
	cJSON *j;
	const cJSON *d;
	char *text;
	int k;

	(void)state;
	if (gs_trace_load(path, NULL, &t, NULL) != GS_OK) {
		gs_error_clear();
		skip();
	}
	/* The whole trace (--step none): its breakdown against one computed
	 * on its own. */
	r = report_of(t, &whole);
	j = json_of(r, NULL);
	cJSON_ArrayForEach(d, at(j, "devices", NULL))
	{
		const cJSON *bd = at(d, "breakdown", NULL);
		double sum = 0;

		assert_int_equal(gs_breakdown_compute(
					 t, (uint32_t)at(d, "device", NULL)->valuedouble, NULL, &b),
				 GS_OK);
		num_is(at(bd, "kernel_ns", NULL), (double)b.total_ns[GS_CAT_KERNEL]);
		num_is(at(bd, "copy_ns", NULL), (double)b.total_ns[GS_CAT_COPY]);
		num_is(at(bd, "sync_ns", NULL), (double)b.total_ns[GS_CAT_SYNC]);
		num_is(at(bd, "idle_ns", NULL), (double)b.total_ns[GS_CAT_IDLE]);
		num_is(at(d, "segments", NULL), (double)b.n_segments);
		for (k = 0; k < GS_CAT_COUNT; k++)
			sum += b.total_ns[k];
		num_is(at(bd, "total_ns", NULL), sum);
		gs_breakdown_fini(&b);
		/* A consistent trace: no cycles, an efficiency in (0, 1]. */
		num_is(at(d, "schedule", "broken_cycles", NULL), 0);
		assert_true(at(d, "schedule", "efficiency", NULL)->valuedouble > 0);
		assert_true(at(d, "schedule", "efficiency", NULL)->valuedouble <= 1);
	}
	text = text_of(r);
	check_lines(text);
	assert_non_null(strstr(text, "Top findings"));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_fields),
		cmocka_unit_test(test_text_findings),
		cmocka_unit_test(test_waits),
		cmocka_unit_test(test_wait_cycle),
		cmocka_unit_test(test_efficiency_bounded),
		cmocka_unit_test(test_devices_and_merge),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_optimistic),
		cmocka_unit_test(test_segment_edges),
		cmocka_unit_test(test_one_stream),
		cmocka_unit_test(test_color),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_shared_a100),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
