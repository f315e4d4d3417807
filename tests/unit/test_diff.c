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

#define HEAD                                                                                       \
	"{\"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\", \"numSms\": 108}],"           \
	" \"traceEvents\": [\n"
#define TAIL "]}\n"
#define RT(name, ts, dur, corr)                                                                    \
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"" name "\", \"pid\": 100, "        \
	"\"tid\": 100, \"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"correlation\": " #corr     \
	"}}"
#define KERNEL(name, dev, stream, ts, dur, corr)                                                   \
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": " #dev              \
	", \"tid\": " #stream ", \"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"device\": " #dev \
	", \"context\": 1, \"stream\": " #stream ", \"correlation\": " #corr "}}"
#define COPY(name, stream, ts, dur, corr)                                                          \
	"{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"" name                               \
	"\", \"pid\": 0, \"tid\": " #stream ", \"ts\": " #ts ", \"dur\": " #dur                    \
	", \"args\": {\"device\": 0, \"context\": 1, "                                             \
	"\"stream\": " #stream ", \"correlation\": " #corr ", \"bytes\": 1048576}}"

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

/* Another process on device 1 only. */
static const char dev1_json[] =
	"{\"traceEvents\": [\n" KERNEL("allreduce", 1, 7, 1000, 10, 1) "\n" TAIL;

static struct gs_trace *trace_of(const char *json)
{
	struct gs_trace *t = NULL;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_import_kineto_mem(json, strlen(json), "test.json", NULL,
					      gs_trace_borrow_sink(t)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

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

/* The JSON of diff(a, b). */
static cJSON *diff_json(const struct gs_trace *a, const struct gs_trace *b, char **text)
{
	struct gs_diff_options o = {.base_name = "a.json", .new_name = "b.json"};
	struct gs_diff *d = NULL;
	char *js;
	cJSON *doc;

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

/* Traces without GPU ops, bad arguments, a write that fails. */
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
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
