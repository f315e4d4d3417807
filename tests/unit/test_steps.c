/* SPDX-License-Identifier: MIT */
/*
 * Steps (gpuscope/steps.h) on generated PyTorch-profiler traces: which
 * ranges mark them, their GPU windows, the partial last step, and what
 * --step chooses; then the report over the chosen steps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/error.h>

#include "trace_build.h"

/* The error chain on one line. */
static const char *gs_error_text(void)
{
	static char buf[512];

	return gs_error_format(buf, sizeof(buf));
}

/* A growing JSON text. */
struct js {
	char *p;
	size_t n, cap;
};

static void js_add(struct js *j, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert_true(len >= 0);
	if (j->n + (size_t)len + 1 > j->cap) {
		j->cap = (j->n + (size_t)len + 1) * 2;
		j->p = realloc(j->p, j->cap);
		assert_non_null(j->p);
	}
	va_start(ap, fmt);
	vsnprintf(j->p + j->n, j->cap - j->n, fmt, ap);
	va_end(ap);
	j->n += (size_t)len;
}

/* A host range (cat) named `name` on thread 100 of process 100. */
static void range(struct js *j, const char *cat, const char *name, long ts, long dur)
{
	js_add(j,
	       "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 100, \"tid\": 100, "
	       "\"ts\": %ld, \"dur\": %ld},\n",
	       cat, name, ts, dur);
}

/* cudaLaunchKernel at `call` (2 us) and its kernel [ts, ts + dur) on
 * device 0, stream 7. */
static void launch(struct js *j, long call, long ts, long dur, long corr)
{
	js_add(j,
	       "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
	       "\"pid\": 100, \"tid\": 100, \"ts\": %ld, \"dur\": 2, \"args\": {\"correlation\": "
	       "%ld}},\n"
	       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
	       "\"ts\": %ld, \"dur\": %ld, \"args\": {\"device\": 0, \"context\": 1, \"stream\": 7, "
	       "\"correlation\": %ld}},\n",
	       call, corr, ts, dur, corr);
}

#define T0 1000000L /* 1 s, in us */

/*
 * Steps 1..5 of the profiler, step i's host range [T0 + 1000 i, + 900);
 * inside it two launches, of kernels [h + 200, + 300) and [h + 600, + 400):
 * its GPU window is [h + 200, h + 1000). Step 5 is cut short by the end of
 * the profile (100 us, one launch). With `dup`, each step's range is also
 * written as a shorter cpu_op, as the profiler can.
 */
static struct gs_trace *five_steps(bool dup)
{
	struct js j = {0};
	struct gs_trace *t;
	char name[32];
	long corr = 1;

	js_add(&j, "{\"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}], \"traceEvents\": [\n");
	for (int i = 1; i <= 5; i++) {
		long h = T0 + 1000L * i;

		snprintf(name, sizeof(name), "ProfilerStep#%d", i);
		range(&j, "user_annotation", name, h, i == 5 ? 100 : 900);
		if (dup)
			range(&j, "cpu_op", name, h + 1, i == 5 ? 50 : 800);
		launch(&j, h + 10, h + 200, 300, corr++);
		if (i < 5)
			launch(&j, h + 500, h + 600, 400, corr++);
	}
	/* Something after the steps, outside every one. */
	launch(&j, T0 + 9000, T0 + 9100, 50, corr++);
	js_add(&j,
	       "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 100, \"tid\": 100, \"ts\": %ld}"
	       "]}\n",
	       T0 + 9500);
	t = trace_of(j.p);
	free(j.p);
	return t;
}

static int64_t us(long v)
{
	return (int64_t)v * 1000;
}

static void find(const struct gs_trace *t, const char *pick, struct gs_steps *s)
{
	struct gs_step_options o = {.pick = GS_STEP_DEFAULT};

	if (pick)
		assert_int_equal(gs_step_options_parse(pick, &o), GS_OK);
	assert_int_equal(gs_steps_find(t, &o, s), GS_OK);
}

static void test_default(void **state)
{
	struct gs_trace *t = five_steps(false);
	struct gs_steps s;

	(void)state;
	find(t, NULL, &s);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.source, "ProfilerStep#N ranges");
	for (size_t i = 0; i < 5; i++) {
		long h = T0 + 1000L * (long)(i + 1);

		assert_int_equal(s.steps[i].number, i + 1);
		assert_int_equal(s.steps[i].host_start_ns, us(h));
		assert_int_equal(s.steps[i].gpu_start_ns, us(h + 200));
		assert_int_equal(s.steps[i].gpu_end_ns, us(i == 4 ? h + 500 : h + 1000));
		assert_int_equal(s.steps[i].ops, i == 4 ? 1 : 2);
		assert_int_equal(s.steps[i].partial, i == 4);
		/* Steps 2..4: the warm-up and the partial step left out. */
		assert_int_equal(s.steps[i].selected, i >= 1 && i <= 3);
	}
	assert_true(s.warmup_left_out);
	assert_true(s.partial_left_out);
	assert_int_equal(s.n_selected, 3);
	assert_true(s.window_set);
	assert_int_equal(s.window_start_ns, us(T0 + 2200));
	assert_int_equal(s.window_end_ns, us(T0 + 5000));
	gs_steps_fini(&s);
	gs_trace_destroy(t);
}

static void test_pick(void **state)
{
	struct gs_trace *t = five_steps(false);
	struct gs_steps s;
	struct gs_step_options o = {.pick = GS_STEP_DEFAULT};

	(void)state;
	find(t, "3", &s);
	assert_int_equal(s.n_selected, 1);
	assert_true(s.steps[2].selected);
	assert_int_equal(s.window_start_ns, us(T0 + 3200));
	assert_int_equal(s.window_end_ns, us(T0 + 4000));
	gs_steps_fini(&s);

	find(t, "2:3", &s);
	assert_int_equal(s.n_selected, 2);
	assert_int_equal(s.window_start_ns, us(T0 + 2200));
	assert_int_equal(s.window_end_ns, us(T0 + 4000));
	gs_steps_fini(&s);

	find(t, "all", &s);
	assert_int_equal(s.n_selected, 5);
	assert_int_equal(s.window_start_ns, us(T0 + 1200));
	assert_int_equal(s.window_end_ns, us(T0 + 5500));
	gs_steps_fini(&s);

	find(t, "none", &s);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.n_selected, 0);
	assert_false(s.window_set);
	gs_steps_fini(&s);

	/* A number the trace lacks: an error that lists the steps. */
	assert_int_equal(gs_step_options_parse("9", &o), GS_OK);
	gs_error_clear();
	assert_int_equal(gs_steps_find(t, &o, &s), GS_ERR_INVALID);
	assert_non_null(strstr(gs_error_text(), "--step 9: no such step with GPU work (the trace "
						"has steps 1..5)"));
	gs_error_clear();
	gs_trace_destroy(t);

	/* What --step takes. */
	assert_int_equal(gs_step_options_parse("4:2", &o), GS_ERR_INVALID);
	assert_int_equal(gs_step_options_parse("-1", &o), GS_ERR_INVALID);
	assert_int_equal(gs_step_options_parse("2:", &o), GS_ERR_INVALID);
	assert_int_equal(gs_step_options_parse("99999999999999999999", &o), GS_ERR_INVALID);
	assert_int_equal(gs_step_options_parse("18446744073709551615", &o), GS_OK);
	assert_int_equal(o.first, UINT64_MAX);
	gs_error_clear();
}

/* The profiler writing a step twice (annotation and operator): one step,
 * the longer range. */
static void test_duplicates(void **state)
{
	struct gs_trace *t = five_steps(true);
	struct gs_steps s;

	(void)state;
	find(t, NULL, &s);
	assert_int_equal(s.n, 5);
	assert_int_equal(s.steps[1].host_end_ns - s.steps[1].host_start_ns, us(900));
	assert_int_equal(s.n_selected, 3);
	gs_steps_fini(&s);
	gs_trace_destroy(t);
}

/* NVTX-like markers by --step-marker; the profiler's drawing of a step on
 * the GPU is that step's window. */
static void test_marker_and_gpu_drawing(void **state)
{
	struct js j = {0};
	struct gs_trace *t;
	struct gs_steps s;
	struct gs_step_options o = {.pick = GS_STEP_DEFAULT, .marker = "^iter [0-9]+$"};

	(void)state;
	js_add(&j, "{\"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}], \"traceEvents\": [\n");
	for (int i = 0; i < 3; i++) {
		long h = T0 + 1000L * i;
		char name[32];

		snprintf(name, sizeof(name), "iter %d", 7 + i);
		range(&j, "user_annotation", name, h, 900);
		launch(&j, h + 10, h + 200, 300, 1 + i);
	}
	range(&j, "user_annotation", "iteration summary", T0 + 5000, 10);
	js_add(&j,
	       "{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"iter 8\", "
	       "\"pid\": 0, \"tid\": 7, \"ts\": %ld, \"dur\": 700, \"args\": {\"device\": 0, "
	       "\"stream\": 7}}\n]}\n",
	       T0 + 1100);
	t = trace_of(j.p);
	free(j.p);
	assert_int_equal(gs_steps_find(t, &o, &s), GS_OK);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.source, "ranges matching --step-marker");
	assert_int_equal(s.steps[0].number, 7);
	assert_int_equal(s.steps[2].number, 9);
	assert_true(s.steps[1].gpu_drawn);
	assert_int_equal(s.steps[1].gpu_start_ns, us(T0 + 1100));
	assert_int_equal(s.steps[1].gpu_end_ns, us(T0 + 1800));
	assert_false(s.steps[0].gpu_drawn);
	assert_int_equal(s.n_selected, 2); /* 8 and 9: 7 is the warm-up */
	gs_steps_fini(&s);

	/* A marker that is no expression. */
	o.marker = "iter (";
	gs_error_clear();
	assert_int_equal(gs_steps_find(t, &o, &s), GS_ERR_INVALID);
	assert_non_null(strstr(gs_error_text(), "--step-marker iter ("));
	gs_error_clear();
	gs_trace_destroy(t);
}

/* No marker: nothing chosen, and --step N says there are no steps. */
static void test_no_steps(void **state)
{
	struct js j = {0};
	struct gs_trace *t;
	struct gs_steps s;
	struct gs_step_options o = {.pick = GS_STEP_DEFAULT};

	(void)state;
	js_add(&j, "{\"traceEvents\": [\n");
	launch(&j, T0, T0 + 10, 10, 1);
	js_add(&j,
	       "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 100, \"tid\": 100, \"ts\": %ld}"
	       "]}\n",
	       T0 + 100);
	t = trace_of(j.p);
	free(j.p);
	find(t, NULL, &s);
	assert_int_equal(s.n, 0);
	assert_false(s.window_set);
	gs_steps_fini(&s);
	assert_int_equal(gs_step_options_parse("3", &o), GS_OK);
	gs_error_clear();
	assert_int_equal(gs_steps_find(t, &o, &s), GS_ERR_INVALID);
	assert_non_null(strstr(gs_error_text(), "--step 3: the trace marks no steps"));
	gs_error_clear();
	gs_trace_destroy(t);
}

/* The report over the default steps: its window is theirs, each step has
 * its figures, and the breakdown adds up to the window. */
static void test_report(void **state)
{
	static const char *const inputs[] = {"test.json"};
	struct gs_report_options o = {.inputs = inputs, .n_inputs = 1, .format = "kineto"};
	struct gs_trace *t = five_steps(false);
	struct gs_report *r = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(gs_report_build(t, &o, &r), GS_OK);
	assert_int_equal(gs_report_write_json(f, r, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	/* [T0 + 2200, T0 + 5000) us: 2.8 ms, kernels 3 x 700 us. */
	assert_non_null(strstr(buf, "\"window_ns\": [1002200000, 1005000000]"));
	assert_non_null(strstr(buf, "\"kernel_ns\": 2100000"));
	assert_non_null(strstr(buf, "\"window_from_steps\": true, \"analysed\": 3, "
				    "\"warmup_left_out\": true, \"partial_left_out\": true"));
	assert_non_null(strstr(buf, "\"step\": 3, \"name\": \"ProfilerStep#3\", \"analysed\": "
				    "true, \"partial\": false"));
	/* Step 3 alone: 800 us, 700 of them kernels. */
	assert_non_null(strstr(buf, "\"time_ns\": 800000, \"kernel_ns\": 700000"));
	free(buf);
	gs_report_destroy(r);

	/* --step none: the whole trace again, the steps listed. */
	o.steps.pick = GS_STEP_NONE;
	assert_int_equal(gs_report_build(t, &o, &r), GS_OK);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(gs_report_write_json(f, r, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "\"window_ns\": [1001200000, 1009150000]"));
	assert_non_null(strstr(buf, "\"window_from_steps\": false"));
	free(buf);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* Step ranges recorded under a pid that launches nothing (the work's
 * process seen from another pid namespace) take the launches of every
 * process; a step range of a process that launches takes its own only. */
static void test_marker_of_other_pid(void **state)
{
	struct js j = {0};
	struct gs_trace *t;
	struct gs_steps s;

	(void)state;
	js_add(&j, "{\"traceEvents\": [\n");
	for (int i = 1; i <= 3; i++) {
		long h = T0 + 1000L * i;

		js_add(&j,
		       "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
		       "\"ProfilerStep#%d\", \"pid\": 900, \"tid\": 900, \"ts\": %ld, \"dur\": "
		       "900},\n",
		       i, h);
		launch(&j, h + 10, h + 200, 300, i);
	}
	js_add(&j,
	       "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 100, \"tid\": 100, \"ts\": "
	       "%ld}]}\n",
	       T0 + 5000);
	t = trace_of(j.p);
	free(j.p);
	find(t, "all", &s);
	assert_int_equal(s.n, 3);
	for (size_t i = 0; i < 3; i++) {
		long h = T0 + 1000L * (long)(i + 1);

		assert_int_equal(s.steps[i].ops, 1);
		assert_int_equal(s.steps[i].gpu_start_ns, us(h + 200));
		assert_int_equal(s.steps[i].gpu_end_ns, us(h + 500));
	}
	gs_steps_fini(&s);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_marker_and_gpu_drawing),
		cmocka_unit_test(test_no_steps),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_marker_of_other_pid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
