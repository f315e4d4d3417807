/* SPDX-License-Identifier: MIT */
/*
 * gpuscope diff (gs_diff_build / write_json / write_text) on hand-written
 * Kineto traces whose analyses are known (the numbers are worked out in
 * tests/unit/test_report.c and tests/cli/analyze/run.sh): the deltas of the
 * breakdown and the schedules, kernels ranked by the change of their total
 * time, waits and missed overlaps matched by name and stream (new,
 * vanished, changed, same), devices present on one side only, a trace
 * against itself, and text that fits 100 columns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cJSON.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#include "trace_build.h"

#define HEAD                                                                                       \
	"{\"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\", \"numSms\": 108}],"           \
	" \"traceEvents\": [\n"
#define KERNEL(name, dev, stream, ts, dur, corr)                                                   \
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": " #dev              \
	", \"tid\": " #stream ", \"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"device\": " #dev \
	", \"context\": 1, \"stream\": " #stream ", \"correlation\": " #corr "}}"

/*
 * BASE (µs): k_one [100, 140), k_two [200, 230), copy [230, 250) on
 * stream 7: window 150, kernel 70, copy 20, idle 60.
 */
static const char base_json[] =
	HEAD RT("cudaLaunchKernel", 95, 2, 11) ",\n" KERNEL("k_one", 0, 7, 100, 40, 11) ",\n" RT(
		"cudaLaunchKernel", 190, 5,
		12) ",\n" KERNEL("k_two", 0, 7, 200, 30,
				 12) ",\n" RT("cudaMemcpyAsync", 196, 3,
					      13) ",\n" COPY("Memcpy HtoD (Pinned -> Device)", 7,
							     230, 20, 13) "\n" TAIL;

/*
 * NEW (µs): a copy on stream 20 [10, 50), an event recorded after it, stream
 * 7 waits on it, consumer_kernel [50, 90) on stream 7, launched at [7, 9):
 * window 80, kernel 40, copy 40, idle 0; one wait of 41 µs (event).
 */
static const char new_json[] = HEAD RT("cudaMemcpyAsync", 0, 2, 21) ",\n" COPY(
	"Memcpy HtoD (Pinned -> Device)", 20, 10, 40,
	21) ",\n" RT("cudaEventRecord", 3, 1,
		     22) ",\n" RT("cudaStreamWaitEvent", 5, 1,
				  23) ",\n{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": "
				      "\"Stream Wait Event\", \"pid\": 0, \"tid\": 7, \"ts\": 5, "
				      "\"dur\": 1, \"args\": {\"cuda_sync_kind\": \"Stream Wait "
				      "Event\", \"wait_on_stream\": 20, "
				      "\"wait_on_cuda_event_record_corr_id\": 22, \"stream\": 7, "
				      "\"correlation\": 23, \"device\": 0, \"context\": 1}},\n" RT(
					      "cudaLaunchKernel", 7, 2,
					      24) ",\n" KERNEL("consumer_kernel", 0, 7, 50, 40,
							       24) "\n" TAIL;

/*
 * Waits in a cycle (as in test_report.c): stream 7 waits on the event
 * recorded after b of stream 8 and stream 8 on the one after a of stream
 * 7; a and b both run [30, 40): the schedules break the cycle, and the
 * report gives no efficiency.
 */
static const char cycle_json[] = HEAD RT("cudaStreamWaitEvent", 3, 1, 3) ",\n" RT("cudaStreamWaitEvent", 4, 1, 4) ",\n" RT(
	"cudaLaunchKernel",
	5, 1,
	5) ",\n" RT("cudaLaunchKernel", 6, 1,
		    6) ",\n" RT("cudaEventRecord", 9, 1,
				9) ",\n" RT("cudaEventRecord", 10, 1,
					    10) ",\n" WAIT(7, 8, 10, 3,
							   3) ",\n" WAIT(8, 7, 9, 4,
									 4) ",\n" KERNEL("a", 0, 7,
											 30, 10,
											 5) ",\n" KERNEL("b",
													 0,
													 8,
													 30,
													 10,
													 6) "\n" TAIL;

/* Half of it, no cycle: stream 7 waits on b, yet a ran beside b. The
 * ideal (20 µs) is longer than the recorded 10 µs: bounded, given as 1. */
static const char overtaken_json[] =
	HEAD RT("cudaStreamWaitEvent", 3, 1, 3) ",\n" RT("cudaLaunchKernel", 5, 1, 5) ",\n" RT(
		"cudaLaunchKernel", 6, 1,
		6) ",\n" RT("cudaEventRecord", 10, 1,
			    10) ",\n" WAIT(7, 8, 10, 3,
					   3) ",\n" KERNEL("a", 0, 7, 30, 10,
							   5) ",\n" KERNEL("b", 0, 8, 30, 10,
									   6) "\n" TAIL;

/* Another process on device 1 only. */
static const char dev1_json[] =
	"{\"traceEvents\": [\n" KERNEL("allreduce", 1, 7, 1000, 10, 1) "\n" TAIL;

static struct gs_trace *trace_file(const char *name)
{
	char path[1024];
	struct gs_trace *t = NULL;

	snprintf(path, sizeof(path), "%s/../cli/analyze/%s", GS_TEST_DATA, name);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	return t;
}

static char *write_of(const struct gs_diff *d, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(json ? gs_diff_write_json(f, d) : gs_diff_write_text(f, d), GS_OK);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/*
 * A training loop of `steps` PyTorch profiler steps (µs): step k is a
 * ProfilerStep#k annotation [5000 k, 5000 k + 4900), with one gemm of
 * `gemm_us` and, when `with_copy`, a copy of 100 µs after it on stream 7;
 * `extra` more gemms run at the end, outside any step (when steps is 0,
 * a loop without marks). Returns a malloc'd Kineto JSON.
 */
static char *loop_json(int steps, int gemm_us, int extra, bool marks)
{
	size_t cap = 4096 + (size_t)(steps + extra) * 1024, len = 0;
	char *s = malloc(cap);
	int corr = 1;

	assert_non_null(s);
	len += (size_t)snprintf(s + len, cap - len, "%s", HEAD);
	for (int k = 0; k < steps + extra; k++) {
		long t0 = 5000L * k;

		if (marks && k < steps)
			len += (size_t)snprintf(s + len, cap - len,
						"{\"ph\": \"X\", \"cat\": \"user_annotation\", "
						"\"name\": \"ProfilerStep#%d\", \"pid\": 100, "
						"\"tid\": 100, \"ts\": %ld, \"dur\": 4900},\n",
						k + 1, t0);
		len += (size_t)snprintf(
			s + len, cap - len,
			"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
			"\"pid\": 100, \"tid\": 100, \"ts\": %ld, \"dur\": 5, \"args\": "
			"{\"correlation\": %d}},\n"
			"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, "
			"\"tid\": 7, \"ts\": %ld, \"dur\": %d, \"args\": {\"device\": 0, "
			"\"context\": 1, \"stream\": 7, \"correlation\": %d}}%s\n",
			t0 + 1, corr, t0 + 10, gemm_us, corr, k + 1 < steps + extra ? "," : "");
		corr++;
		assert_true(len < cap);
	}
	len += (size_t)snprintf(s + len, cap - len, "%s", TAIL);
	assert_true(len < cap);
	return s;
}

/* The JSON of diff(a, b) with options (names "a.json", "b.json"). */
static cJSON *diff_json_opt(const struct gs_trace *a, const struct gs_trace *b, char **text,
			    struct gs_diff_options o)
{
	struct gs_diff *d = NULL;
	char *js;
	cJSON *doc;

	o.base_name = "a.json";
	o.new_name = "b.json";
	gs_error_clear();
	assert_int_equal(gs_diff_build(a, b, &o, &d), GS_OK);
	js = write_of(d, true);
	doc = cJSON_Parse(js);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "schema")->valuestring, "gpuscope.diff/1");
	free(js);
	if (text)
		*text = write_of(d, false);
	gs_diff_destroy(d);
	return doc;
}

static cJSON *diff_json(const struct gs_trace *a, const struct gs_trace *b, char **text)
{
	return diff_json_opt(a, b, text, (struct gs_diff_options){0});
}

static const cJSON *device_of(const cJSON *doc, int id)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, cJSON_GetObjectItem(doc, "devices"))
	{
		if (cJSON_GetObjectItem(d, "device")->valueint == id)
			return d;
	}
	fail_msg("no device %d in the diff", id);
	abort(); /* not reached: fail_msg leaves the test */
}

/* metrics.<key>.<side> as a number; side "base", "new" or "delta". */
static double metric(const cJSON *dev, const char *key, const char *side)
{
	const cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(dev, "metrics"), key);
	const cJSON *v;

	assert_non_null(m);
	v = cJSON_GetObjectItem(m, side);
	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static bool metric_null(const cJSON *dev, const char *key, const char *side)
{
	const cJSON *m = cJSON_GetObjectItem(cJSON_GetObjectItem(dev, "metrics"), key);

	return cJSON_IsNull(cJSON_GetObjectItem(m, side));
}

static void assert_lines_fit(const char *text)
{
	const char *p = text;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t cols = 0;

		assert_non_null(e);
		for (const char *q = p; q < e; q++)
			cols += ((unsigned char)*q & 0xc0) != 0x80; /* code points */
		if (cols > 100)
			fail_msg("line over 100 columns: %.*s", (int)(e - p), p);
		assert_true(e == p || e[-1] != ' '); /* no trailing blanks */
		p = e + 1;
	}
}

static void test_breakdown_and_kernels(void **state)
{
	(void)state;
	struct gs_trace *a = trace_of(base_json), *b = trace_of(new_json);
	char *text;
	cJSON *doc = diff_json(a, b, &text);
	const cJSON *dev = device_of(doc, 0), *k, *w;

	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(dev, "in_base")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(dev, "in_new")));
	assert_int_equal(metric(dev, "window_ns", "base"), 150000);
	assert_int_equal(metric(dev, "window_ns", "new"), 80000);
	assert_int_equal(metric(dev, "window_ns", "delta"), -70000);
	assert_int_equal(metric(dev, "kernel_ns", "delta"), -30000);
	assert_int_equal(metric(dev, "copy_ns", "delta"), 20000);
	assert_int_equal(metric(dev, "idle_ns", "base"), 60000);
	assert_int_equal(metric(dev, "idle_ns", "delta"), -60000);
	assert_int_equal(metric(dev, "kernels", "delta"), -1);
	assert_int_equal(metric(dev, "waits", "new"), 1);
	assert_int_equal(metric(dev, "wait_ns", "delta"), 41000);
	/* Kernels by the size of the change, then name: consumer_kernel +40,
	 * k_one -40, k_two -30. */
	k = cJSON_GetObjectItem(dev, "kernels");
	assert_int_equal(cJSON_GetArraySize(k), 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "name")->valuestring,
			    "consumer_kernel");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "delta_ns")->valuedouble,
			 40000);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 0), "base_count")->valueint, 0);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "name")->valuestring,
			    "k_one");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 1), "delta_ns")->valuedouble,
			 -40000);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(k, 2), "name")->valuestring,
			    "k_two");
	/* The wait is new, matched by names and streams. */
	w = cJSON_GetArrayItem(cJSON_GetObjectItem(dev, "waits"), 0);
	assert_non_null(w);
	assert_string_equal(cJSON_GetObjectItem(w, "status")->valuestring, "new");
	assert_string_equal(cJSON_GetObjectItem(w, "kind")->valuestring, "event");
	assert_string_equal(cJSON_GetObjectItem(w, "consumer")->valuestring, "consumer_kernel");
	assert_int_equal(cJSON_GetObjectItem(w, "consumer_stream")->valueint, 7);
	assert_string_equal(cJSON_GetObjectItem(w, "producer")->valuestring,
			    "Memcpy HtoD (Pinned -> Device)");
	assert_int_equal(cJSON_GetObjectItem(w, "producer_stream")->valueint, 20);
	assert_int_equal(cJSON_GetObjectItem(w, "new_wait_ns")->valuedouble, 41000);
	assert_int_equal(cJSON_GetObjectItem(w, "base_count")->valueint, 0);
	/* Text: the header, the numbers, 100 columns. */
	assert_non_null(strstr(text, "base: a.json\nnew:  b.json\n"));
	assert_non_null(strstr(text, "\ndevice 0 (Test GPU)\n"));
	assert_non_null(strstr(text, "150.000 us"));
	assert_non_null(strstr(text, "-70.000 us"));
	assert_non_null(strstr(text, "consumer_kernel [7] <- Memcpy HtoD (Pinned -> Device) [20]"));
	assert_lines_fit(text);
	free(text);
	cJSON_Delete(doc);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

/*
 * The Example 2 traces (docs/design.md) of the analyze tests: serial (pageable copies on one
 * stream, 135 µs, ideal 124) against pipelined (three streams, pinned, 102):
 * efficiency 0.9185 -> 1, two missed overlaps vanish, event waits appear.
 */
static void test_schedules_waits_missed(void **state)
{
	(void)state;
	struct gs_trace *a = trace_file("serial.json"), *b = trace_file("pipelined.json");
	char *text;
	cJSON *doc = diff_json(a, b, &text);
	const cJSON *dev = device_of(doc, 0), *g;
	int vanished = 0, new_waits = 0;
	double new_wait_ns = 0;

	assert_int_equal(metric(dev, "actual_ns", "base"), 135000);
	assert_int_equal(metric(dev, "actual_ns", "new"), 102000);
	assert_int_equal(metric(dev, "ideal_ns", "base"), 124000);
	assert_int_equal(metric(dev, "ideal_ns", "delta"), -22000);
	assert_int_equal(metric(dev, "pipelined_batches_ns", "base"), 102000);
	assert_int_equal(metric(dev, "missed_overlaps", "base"), 2);
	assert_int_equal(metric(dev, "missed_overlaps", "new"), 0);
	assert_float_equal(metric(dev, "efficiency", "base"), 124.0 / 135.0, 0.00006);
	assert_float_equal(metric(dev, "efficiency", "new"), 1.0, 0.00006);
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetObjectItem(dev, "dominant"), "base")->valuestring,
		"kernel");
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(dev, "missed_overlap"))
	{
		assert_string_equal(cJSON_GetObjectItem(g, "status")->valuestring, "vanished");
		assert_int_equal(cJSON_GetObjectItem(g, "stream")->valueint, 7);
		assert_int_equal(cJSON_GetObjectItem(g, "new_count")->valueint, 0);
		vanished++;
	}
	assert_int_equal(vanished, 2);
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(dev, "waits"))
	{
		assert_string_equal(cJSON_GetObjectItem(g, "status")->valuestring, "new");
		new_waits += cJSON_GetObjectItem(g, "new_count")->valueint;
		new_wait_ns += cJSON_GetObjectItem(g, "new_wait_ns")->valuedouble;
	}
	assert_int_equal(new_waits, (int)metric(dev, "waits", "new"));
	assert_int_equal(new_wait_ns, metric(dev, "wait_ns", "new"));
	assert_non_null(strstr(text, "missed overlaps: 0 new, 2 vanished, 0 changed, 0 same"));
	assert_lines_fit(text);
	free(text);
	cJSON_Delete(doc);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

/* A trace against itself: every delta 0, every group "same". */
static void test_same_trace(void **state)
{
	(void)state;
	struct gs_trace *a = trace_file("serial.json");
	char *text;
	cJSON *doc = diff_json(a, a, &text);
	const cJSON *dev = device_of(doc, 0), *m, *g;

	cJSON_ArrayForEach(m, cJSON_GetObjectItem(dev, "metrics"))
	{
		assert_float_equal(cJSON_GetObjectItem(m, "delta")->valuedouble, 0, 0);
	}
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(dev, "kernels"))
	{
		assert_int_equal(cJSON_GetObjectItem(g, "delta_ns")->valuedouble, 0);
	}
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(dev, "missed_overlap"))
	{
		assert_string_equal(cJSON_GetObjectItem(g, "status")->valuestring, "same");
	}
	assert_non_null(strstr(text, "missed overlaps: 0 new, 0 vanished, 0 changed, 2 same"));
	assert_lines_fit(text);
	free(text);
	cJSON_Delete(doc);
	gs_trace_destroy(a);
}

/* Device 0 only in BASE, device 1 only in NEW: nulls on the missing side. */
static void test_devices_on_one_side(void **state)
{
	(void)state;
	struct gs_trace *a = trace_of(base_json), *b = trace_of(dev1_json);
	char *text;
	cJSON *doc = diff_json(a, b, &text);
	const cJSON *d0 = device_of(doc, 0), *d1 = device_of(doc, 1);

	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "devices")), 2);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(d0, "in_new")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(d1, "in_new")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(d1, "in_base")));
	assert_int_equal(metric(d0, "kernel_ns", "base"), 70000);
	assert_true(metric_null(d0, "kernel_ns", "new"));
	assert_true(metric_null(d0, "kernel_ns", "delta"));
	assert_int_equal(metric(d1, "kernel_ns", "new"), 10000);
	assert_true(metric_null(d1, "efficiency", "base"));
	assert_non_null(strstr(text, "only in base"));
	assert_non_null(strstr(text, "only in new"));
	assert_lines_fit(text);
	free(text);
	cJSON_Delete(doc);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	if (!cJSON_IsNumber(v))
		fail_msg("%s is not a number", key);
	return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	if (!cJSON_IsString(v))
		fail_msg("%s is not a string", key);
	return v->valuestring;
}

/*
 * 34 steps of a 3.999 ms gemm against 30 of a 4.012 ms one: in total the
 * gemm is 15.606 ms faster (135.966 -> 120.360 ms), but per call and per
 * iteration it is 13 µs slower; the diff compares per iteration and says so.
 */
static void test_per_iteration(void **state)
{
	(void)state;
	char *ja = loop_json(34, 3999, 0, true), *jb = loop_json(30, 4012, 0, true), *text;
	struct gs_trace *a = trace_of(ja), *b = trace_of(jb);
	cJSON *doc = diff_json(a, b, &text);
	const cJSON *dev = device_of(doc, 0), *it = cJSON_GetObjectItem(dev, "iterations");
	const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(dev, "kernels"), 0);
	const cJSON *kn = cJSON_GetObjectItem(cJSON_GetObjectItem(dev, "metrics"), "kernel_ns");

	assert_string_equal(str(doc, "basis"), "per_iteration");
	assert_string_equal(str(dev, "basis"), "per_iteration");
	assert_int_equal(num(it, "base"), 34);
	assert_int_equal(num(it, "new"), 30);
	assert_string_equal(str(it, "from"), "profiler_steps");
	/* The totals as recorded, the field names as before. */
	assert_string_equal(str(k, "name"), "gemm");
	assert_int_equal(num(k, "base_count"), 34);
	assert_int_equal(num(k, "new_count"), 30);
	assert_int_equal(num(k, "base_ns"), 135966000);
	assert_int_equal(num(k, "new_ns"), 120360000);
	assert_int_equal(num(k, "delta_ns"), -15606000);
	assert_int_equal(num(k, "delta_count"), -4);
	/* Per call and per iteration: 13 µs slower. */
	assert_int_equal(num(k, "base_mean_ns"), 3999000);
	assert_int_equal(num(k, "new_mean_ns"), 4012000);
	assert_int_equal(num(k, "delta_mean_ns"), 13000);
	assert_int_equal(num(k, "base_normalized_ns"), 3999000);
	assert_int_equal(num(k, "new_normalized_ns"), 4012000);
	assert_int_equal(num(k, "delta_normalized_ns"), 13000);
	/* The headline metrics keep their totals, normalized beside them. */
	assert_int_equal(num(kn, "delta"), -15606000);
	assert_int_equal(num(cJSON_GetObjectItem(kn, "normalized"), "delta"), 13000);
	assert_int_equal(metric(dev, "ops", "base"), 34);
	assert_float_equal(
		num(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(dev, "metrics"),
							    "ops"),
					"normalized"),
		    "new"),
		1.0, 0);
	/* Text: one line says so; the gemm row per iteration and per call. */
	assert_non_null(strstr(text, "\ncompared per iteration: 34 iterations in base, 30 in new "
				     "(ProfilerStep#N ranges)\n"));
	assert_non_null(
		strstr(text, "kernels whose time per iteration changed most (1 of 1 names)"));
	assert_non_null(strstr(text,
			       "      34      30      -4    3.999 ms    4.012 ms   +0.013 ms    "
			       "3.999 ms    4.012 ms   +0.013 ms\n    gemm\n"));
	assert_non_null(strstr(text,
			       "  kernel                            3.999 ms            4.012 ms"
			       "       +0.013 ms     +0.3%\n"));
	assert_lines_fit(text);
	free(text);
	cJSON_Delete(doc);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
	free(ja);
	free(jb);
}

/* The loop without marks, each step drawn as an NVTX range "step" [5000 k,
 * 5000 k + 4900) holding two nested "fwd" ranges, plus one "init". */
static struct gs_trace *nvtx_loop(int steps, int gemm_us)
{
	char *js = loop_json(0, gemm_us, steps, false);
	struct gs_trace *t = NULL;
	struct gs_sink *sk;
	uint32_t step, fwd, init;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	sk = gs_trace_borrow_sink(t);
	assert_int_equal(gs_import_kineto_mem(js, strlen(js), "test.json", NULL, sk), GS_OK);
	assert_int_equal(sk->intern(sk, "step", 4, &step), GS_OK);
	assert_int_equal(sk->intern(sk, "fwd", 3, &fwd), GS_OK);
	assert_int_equal(sk->intern(sk, "init", 4, &init), GS_OK);
	for (int k = -1; k < steps; k++) {
		int64_t t0 = 5000000LL * k;
		struct gs_range r = {.start_ns = t0,
				     .end_ns = t0 + 4900000,
				     .pid = 100,
				     .tid = 100,
				     .name = k < 0 ? init : step,
				     .domain = GS_NO_STRING,
				     .kind = GS_RANGE_NVTX};

		assert_int_equal(sk->range(sk, &r), GS_OK);
		for (int i = 0; i < 2 && k >= 0; i++) {
			r.start_ns = t0 + 1000 + 2000000LL * i;
			r.end_ns = r.start_ns + 1000000;
			r.name = fwd;
			assert_int_equal(sk->range(sk, &r), GS_OK);
		}
	}
	assert_int_equal(gs_trace_finish(t), GS_OK);
	free(js);
	return t;
}

/* No profiler steps: the outermost NVTX range repeated on both sides
 * ("step", not the nested "fwd" repeated twice as often) counts them. */
static void test_per_iteration_nvtx(void **state)
{
	(void)state;
	struct gs_trace *a = nvtx_loop(34, 3999), *b = nvtx_loop(30, 4012);
	char *text;
	cJSON *doc = diff_json(a, b, &text);
	const cJSON *dev = device_of(doc, 0), *it = cJSON_GetObjectItem(dev, "iterations");
	const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(dev, "kernels"), 0);

	assert_string_equal(str(dev, "basis"), "per_iteration");
	assert_string_equal(str(it, "from"), "nvtx");
	assert_string_equal(str(it, "nvtx_range"), "step");
	assert_int_equal(num(it, "base"), 34);
	assert_int_equal(num(it, "new"), 30);
	assert_int_equal(num(k, "delta_normalized_ns"), 13000);
	assert_non_null(strstr(text, "\ncompared per iteration: 34 iterations in base, 30 in new "
				     "(NVTX ranges \"step\")\n"));
	free(text);
	cJSON_Delete(doc);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

/*
 * No iteration marks, the same kernels, 22 gemms against 20 (10% more
 * ops): NEW is scaled to BASE's op count (x 20/22), and the 100 µs gemms
 * are the same. 21 against 20 (5%, not more): the totals.
 */
static void test_scaled_by_ops(void **state)
{
	(void)state;
	char *ja = loop_json(0, 100, 20, false), *jb = loop_json(0, 100, 22, false);
	char *jc = loop_json(0, 100, 21, false), *text;
	struct gs_trace *a = trace_of(ja), *b = trace_of(jb), *c = trace_of(jc);
	cJSON *doc = diff_json(a, b, &text);
	const cJSON *dev = device_of(doc, 0);
	const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItem(dev, "kernels"), 0);

	assert_string_equal(str(dev, "basis"), "scaled_by_ops");
	assert_true(
		cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(dev, "iterations"), "from")));
	assert_float_equal(num(dev, "new_scale"), 20.0 / 22.0, 0.000001);
	assert_int_equal(num(k, "delta_ns"), 200000);
	assert_int_equal(num(k, "base_normalized_ns"), 2000000);
	assert_int_equal(num(k, "new_normalized_ns"), 2000000);
	assert_int_equal(num(k, "delta_normalized_ns"), 0);
	assert_int_equal(num(k, "delta_mean_ns"), 0);
	assert_non_null(strstr(text, "\ncompared per op: 20 ops in base, 22 in new (+10.0%), no "
				     "iterations marked; new scaled to base\n"));
	assert_non_null(strstr(text,
			       "  kernel                            2.000 ms            2.000 ms"
			       "               =\n"));
	assert_lines_fit(text);
	free(text);
	cJSON_Delete(doc);
	doc = diff_json(a, c, NULL);
	dev = device_of(doc, 0);
	assert_string_equal(str(doc, "basis"), "total");
	assert_string_equal(str(dev, "basis"), "total");
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(dev, "kernels"), 0),
					"delta_normalized_ns"));
	cJSON_Delete(doc);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
	gs_trace_destroy(c);
	free(ja);
	free(jb);
	free(jc);
}

/* --pair: base GPU 0 against new GPU 1, one pair; bad pairs are errors. */
static void test_explicit_pair(void **state)
{
	(void)state;
	struct gs_trace *a = trace_of(base_json), *b = trace_of(dev1_json);
	const struct gs_diff_pair p[] = {{GS_DIFF_ANY_RANK, 0, GS_DIFF_ANY_RANK, 1}};
	const struct gs_diff_pair bad[][2] = {
		{{GS_DIFF_ANY_RANK, 3, GS_DIFF_ANY_RANK, 1}},
		{{GS_DIFF_ANY_RANK, 0, 5, 1}},
		{{GS_DIFF_ANY_RANK, 0, GS_DIFF_ANY_RANK, 1}, {0, 0, GS_DIFF_ANY_RANK, 1}},
	};
	const char *const why[] = {"no GPU 3 in base", "no GPU 1 of rank 5 in new",
				   "base GPU 0 is in two pairs"};
	char *text, msg[512];
	cJSON *doc = diff_json_opt(a, b, &text, (struct gs_diff_options){.pairs = p, .n_pairs = 1});
	const cJSON *dev = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "devices"), 0);
	struct gs_diff *d = NULL;

	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "devices")), 1);
	assert_int_equal(num(dev, "base_device"), 0);
	assert_int_equal(num(dev, "new_device"), 1);
	assert_string_equal(str(dev, "paired"), "explicit");
	assert_int_equal(metric(dev, "kernel_ns", "base"), 70000);
	assert_int_equal(metric(dev, "kernel_ns", "new"), 10000);
	assert_int_equal(metric(dev, "kernel_ns", "delta"), -60000);
	assert_non_null(strstr(text, "\nbase device 0 <-> new device 1 (Test GPU)\n"));
	assert_null(strstr(text, "only in"));
	assert_lines_fit(text);
	free(text);
	cJSON_Delete(doc);
	/* Without --pair, by id: two devices, each on one side. */
	doc = diff_json(a, b, NULL);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "devices")), 2);
	assert_string_equal(str(device_of(doc, 0), "paired"), "by_id");
	cJSON_Delete(doc);
	for (size_t i = 0; i < 3; i++) {
		struct gs_diff_options o = {.pairs = bad[i], .n_pairs = i == 2 ? 2 : 1};

		gs_error_clear();
		assert_int_equal(gs_diff_build(a, b, &o, &d), GS_ERR_INVALID);
		assert_null(d);
		gs_error_format(msg, sizeof(msg));
		if (!strstr(msg, why[i]))
			fail_msg("pair %zu: '%s' does not say '%s'", i, msg, why[i]);
	}
	gs_error_clear();
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

/* A cycle-broken and a bounded efficiency: named, never a number to
 * compare (no delta), whichever side. */
static void test_efficiency_not_exact(void **state)
{
	(void)state;
	struct gs_trace *c = trace_of(cycle_json), *o = trace_of(overtaken_json);
	struct gs_trace *a = trace_of(base_json);
	char *text;
	cJSON *doc = diff_json(c, o, &text);
	const cJSON *e = cJSON_GetObjectItem(cJSON_GetObjectItem(device_of(doc, 0), "metrics"),
					     "efficiency");

	assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "base")));
	assert_int_equal(num(e, "new"), 1);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "delta")));
	assert_string_equal(str(e, "base_kind"), "cycles_broken");
	assert_string_equal(str(e, "new_kind"), "bounded");
	assert_non_null(strstr(text, "\n  efficiency             n/a (cycles broken)       "
				     "n/a (bounded)             n/a\n"));
	assert_non_null(strstr(text, "(cycles broken: "));
	assert_non_null(strstr(text, "(bounded: "));
	assert_lines_fit(text);
	free(text);
	cJSON_Delete(doc);
	/* Bounded on both sides: not "1.0000 1.0000 =". */
	doc = diff_json(o, o, &text);
	e = cJSON_GetObjectItem(cJSON_GetObjectItem(device_of(doc, 0), "metrics"), "efficiency");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "delta")));
	assert_null(strstr(text, "1.0000"));
	free(text);
	cJSON_Delete(doc);
	/* An exact one against a broken one: no delta either. */
	doc = diff_json(a, c, &text);
	e = cJSON_GetObjectItem(cJSON_GetObjectItem(device_of(doc, 0), "metrics"), "efficiency");
	assert_string_equal(str(e, "base_kind"), "exact");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "delta")));
	free(text);
	cJSON_Delete(doc);
	gs_trace_destroy(a);
	gs_trace_destroy(c);
	gs_trace_destroy(o);
}

/* Traces without GPU ops, bad arguments, a write that fails. */
/*
 * The comparison read through gpuscope/diff.h, without a writer: the same
 * numbers the JSON gives (BASE against NEW of test_breakdown_and_kernels,
 * then the missed overlaps of serial against pipelined).
 */
static void test_public_results(void **state)
{
	(void)state;
	struct gs_trace *a = trace_of(base_json), *b = trace_of(new_json);
	struct gs_trace *sa = trace_file("serial.json"), *pa = trace_file("pipelined.json");
	struct gs_trace *e = trace_of("{\"traceEvents\": []}");
	struct gs_diff_options o = {.base_name = "a.json", .top = 3};
	struct gs_diff *d = NULL;
	const struct gs_diff_gpu *g;
	const struct gs_diff_group *w;
	struct gs_diff_run run;
	size_t n = 99;
	cJSON *doc;
	char *js;

	gs_error_clear();
	assert_int_equal(gs_diff_build(a, b, &o, &d), GS_OK);
	assert_int_equal(gs_diff_top(d), 3);
	gs_diff_run(d, GS_DIFF_BASE, &run);
	assert_string_equal(run.label, "a.json");
	assert_string_equal(run.format, "");
	assert_int_equal(run.gpus, 1);
	gs_diff_run(d, GS_DIFF_NEW, &run);
	assert_string_equal(run.label, "new");
	js = write_of(d, true);
	doc = cJSON_Parse(js);
	assert_non_null(doc);
	assert_int_equal(run.ops, num(cJSON_GetObjectItem(doc, "new"), "ops"));
	g = gs_diff_gpus(d, &n);
	assert_int_equal(n, 1);
	assert_non_null(g->dev[GS_DIFF_BASE]);
	assert_non_null(g->dev[GS_DIFF_NEW]);
	assert_int_equal(g->device, 0);
	assert_string_equal(g->name, "Test GPU");
	assert_false(g->explicit_pair);
	assert_int_equal(g->basis, GS_DIFF_BASIS_TOTAL);
	assert_float_equal(gs_diff_norm(g, GS_DIFF_NEW, 1234), 1234.0, 0);
	assert_int_equal(g->metric[GS_DIFF_BASE][GS_DIFF_M_WINDOW], 150000);
	assert_int_equal(g->metric[GS_DIFF_NEW][GS_DIFF_M_WINDOW], 80000);
	assert_int_equal(g->metric[GS_DIFF_NEW][GS_DIFF_M_WAITS], 1);
	assert_int_equal(g->metric[GS_DIFF_NEW][GS_DIFF_M_WAIT_NS] -
				 g->metric[GS_DIFF_BASE][GS_DIFF_M_WAIT_NS],
			 41000);
	/* Kernels ranked by the change: consumer_kernel +40 µs first. */
	assert_int_equal(g->n_kernels, 3);
	assert_string_equal(g->kernels[0].name, "consumer_kernel");
	assert_int_equal(g->kernels[0].count[GS_DIFF_BASE], 0);
	assert_int_equal(g->kernels[0].ns[GS_DIFF_NEW], 40000);
	assert_int_equal(g->kernels[0].norm_ns[GS_DIFF_NEW], 40000);
	assert_string_equal(g->kernels[2].name, "k_two");
	/* The one wait, new. */
	assert_int_equal(g->n_waits, 1);
	w = &g->waits[0];
	assert_int_equal(w->status, GS_DIFF_ADDED);
	assert_int_equal(w->kind, GS_EDGE_EVENT);
	assert_string_equal(w->name, "consumer_kernel");
	assert_int_equal(w->stream, 7);
	assert_string_equal(w->peer, "Memcpy HtoD (Pinned -> Device)");
	assert_int_equal(w->peer_stream, 20);
	assert_int_equal(w->count[GS_DIFF_BASE], 0);
	assert_int_equal(w->count[GS_DIFF_NEW], 1);
	assert_int_equal(w->ns[GS_DIFF_NEW], 41000);
	assert_int_equal(w->weight_ns, 41000);
	free(js);
	cJSON_Delete(doc);
	gs_diff_destroy(d);

	/* Two missed overlaps of BASE vanish: copies on stream 7, their
	 * hideable time kept apart from the exposed. */
	d = NULL;
	assert_int_equal(gs_diff_build(sa, pa, NULL, &d), GS_OK);
	assert_int_equal(gs_diff_top(d), 10);
	g = gs_diff_gpus(d, &n);
	assert_int_equal(n, 1);
	assert_int_equal(g->n_missed, 2);
	for (size_t i = 0; i < g->n_missed; i++) {
		w = &g->missed[i];
		assert_int_equal(w->status, GS_DIFF_VANISHED);
		assert_int_equal(w->stream, 7);
		assert_string_equal(w->peer, "");
		assert_int_equal(w->count[GS_DIFF_BASE], 1);
		assert_int_equal(w->count[GS_DIFF_NEW], 0);
		assert_true(w->ns[GS_DIFF_BASE] > 0);
		assert_true(w->hideable_ns[GS_DIFF_BASE] > 0);
		assert_int_equal(w->weight_ns, w->norm_ns[GS_DIFF_BASE]);
		assert_true(i == 0 || w->weight_ns <= g->missed[i - 1].weight_ns);
	}
	assert_int_equal(g->missed[0].ns[GS_DIFF_BASE] + g->missed[1].ns[GS_DIFF_BASE],
			 g->metric[GS_DIFF_BASE][GS_DIFF_M_MISSED_NS]);
	gs_diff_destroy(d);

	/* No pair without GPU ops: NULL, 0. */
	d = NULL;
	assert_int_equal(gs_diff_build(e, e, NULL, &d), GS_OK);
	assert_null(gs_diff_gpus(d, &n));
	assert_int_equal(n, 0);
	gs_diff_run(d, GS_DIFF_BASE, &run);
	assert_int_equal(run.ops, 0);
	assert_int_equal(run.gpus, 0);
	gs_diff_destroy(d);
	gs_diff_run(NULL, GS_DIFF_NEW, &run);
	assert_string_equal(run.label, "");
	assert_int_equal(run.ops, 0);
	gs_trace_destroy(e);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
	gs_trace_destroy(sa);
	gs_trace_destroy(pa);
}

static void test_edges(void **state)
{
	(void)state;
	static const char empty_json[] = "{\"traceEvents\": []}";
	struct gs_trace *e = trace_of(empty_json), *a = trace_of(base_json);
	struct gs_diff *d = NULL;
	char *text;
	cJSON *doc = diff_json(e, e, &text);
	FILE *f;

	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "devices")), 0);
	assert_non_null(strstr(text, "neither trace has GPU ops"));
	free(text);
	cJSON_Delete(doc);
	gs_error_clear();
	assert_int_equal(gs_diff_build(NULL, a, NULL, &d), GS_ERR_INVALID);
	assert_null(d);
	gs_error_clear();
	assert_int_equal(gs_diff_build(a, a, NULL, &d), GS_OK);
	f = fopen("/dev/full", "w");
	if (f) {
		assert_int_equal(gs_diff_write_json(f, d), GS_ERR_IO);
		fclose(f);
	}
	gs_error_clear();
	gs_diff_destroy(d);
	gs_trace_destroy(e);
	gs_trace_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_breakdown_and_kernels),
		cmocka_unit_test(test_schedules_waits_missed),
		cmocka_unit_test(test_same_trace),
		cmocka_unit_test(test_devices_on_one_side),
		cmocka_unit_test(test_per_iteration),
		cmocka_unit_test(test_per_iteration_nvtx),
		cmocka_unit_test(test_scaled_by_ops),
		cmocka_unit_test(test_explicit_pair),
		cmocka_unit_test(test_efficiency_not_exact),
		cmocka_unit_test(test_public_results),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
