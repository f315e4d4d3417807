/* SPDX-License-Identifier: MIT */
/*
 * Steps (gpuscope/steps.h) on generated PyTorch-profiler traces: which
 * ranges mark them, their GPU windows, the partial last step, and what
 * --step chooses; then the report over the chosen steps. Without
 * ProfilerStep#N or a marker, a repeated top-level annotation (user
 * annotations here, NVTX ranges of a generated .gscope file): which name
 * wins, which may not, and what the report says of it.
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

#include "sink_build.h"
#include "trace_build.h"

/* The error chain on one line. */
static const char *gs_error_text(void)
{
	static char buf[512];

	return gs_error_format(buf, sizeof(buf));
}

/* A growing JSON text. */

/* A host range (cat) named `name` on thread tid of process 100. */
static void range_on(struct js *j, const char *cat, const char *name, long tid, long ts, long dur)
{
	js_add(j,
	       "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 100, \"tid\": %ld, "
	       "\"ts\": %ld, \"dur\": %ld},\n",
	       cat, name, tid, ts, dur);
}

/* The same on thread 100. */
static void range(struct js *j, const char *cat, const char *name, long ts, long dur)
{
	range_on(j, cat, name, 100, ts, dur);
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

/* ---- a repeated top-level annotation ------------------------------------ */

/* What repeated() puts in its trace beside the steps. */
enum {
	REP_NUMBERED = 1,    /* the step ranges named `name` 7 .. `name` 11 */
	REP_EPOCH = 2,       /* one "epoch" range around everything */
	REP_OVERLAP = 4,     /* a `name` range of thread 101 over step 3 */
	REP_SELF_NESTED = 8, /* a `name` range inside step 2 */
	REP_PROFILER = 16,   /* ProfilerStep#11 .. #15 around steps 1 .. 5 */
	REP_CROSSED = 32,    /* a "sync" range across the end of step 2 */
};

/*
 * No ProfilerStep#N: five top-level user annotations named `name` (with
 * REP_NUMBERED, "`name` 6 + i"), step i's [h, h + 900) for h = T0 + 1000 i,
 * the fifth cut to 100 us, launching as five_steps' steps do (kernels
 * [h + 200, + 300) and, but in the fifth, [h + 600, + 400)). Inside each a
 * "forward" [h + 5, h + 150) (the fifth's [h + 5, h + 50)) and, but in the
 * fifth, two "optimizer" ranges: the most frequent name, never top-level.
 * Before each a top-level "log" [h - 80, h - 40) that launches a kernel
 * [h + 150, + 10): as many ranges as the steps, the first earlier, and
 * fewer ops (5 against 9).
 */
static struct gs_trace *repeated(const char *name, unsigned flags)
{
	struct js j = {0};
	struct gs_trace *t;
	char nm[64];
	long corr = 1;

	js_add(&j, "{\"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}], \"traceEvents\": [\n");
	if (flags & REP_EPOCH)
		range(&j, "user_annotation", "epoch", T0 + 500, 6000);
	for (int i = 1; i <= 5; i++) {
		long h = T0 + 1000L * i;

		if (flags & REP_PROFILER) {
			snprintf(nm, sizeof(nm), "ProfilerStep#%d", 10 + i);
			range(&j, "user_annotation", nm, h - 90, i == 5 ? 200 : 1000);
		}
		range(&j, "user_annotation", "log", h - 80, 40);
		launch(&j, h - 70, h + 150, 10, corr++);
		if (flags & REP_NUMBERED)
			snprintf(nm, sizeof(nm), "%s %d", name, 6 + i);
		else
			snprintf(nm, sizeof(nm), "%s", name);
		range(&j, "user_annotation", nm, h, i == 5 ? 100 : 900);
		range(&j, "user_annotation", "forward", h + 5, i == 5 ? 45 : 145);
		if (i < 5) {
			range(&j, "user_annotation", "optimizer", h + 500, 20);
			range(&j, "user_annotation", "optimizer", h + 540, 20);
		}
		launch(&j, h + 10, h + 200, 300, corr++);
		if (i < 5)
			launch(&j, h + 500, h + 600, 400, corr++);
	}
	if (flags & REP_OVERLAP)
		range_on(&j, "user_annotation", name, 101, T0 + 3100, 200);
	if (flags & REP_SELF_NESTED)
		range(&j, "user_annotation", name, T0 + 2700, 100);
	if (flags & REP_CROSSED)
		range(&j, "user_annotation", "sync", T0 + 2850, 60);
	js_add(&j,
	       "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 100, \"tid\": 100, \"ts\": %ld}"
	       "]}\n",
	       T0 + 9500);
	t = trace_of(j.p);
	free(j.p);
	return t;
}

/* The five steps of repeated(), numbered from `first`, by the default
 * rule: the warm-up and the partial fifth left out. */
static void check_repeated(const struct gs_steps *s, uint64_t first, const char *source)
{
	assert_int_equal(s->n, 5);
	assert_string_equal(s->source, source);
	for (size_t i = 0; i < 5; i++) {
		long h = T0 + 1000L * (long)(i + 1);

		assert_int_equal(s->steps[i].number, first + i);
		assert_int_equal(s->steps[i].host_start_ns, us(h));
		assert_int_equal(s->steps[i].host_end_ns, us(h + (i == 4 ? 100 : 900)));
		assert_false(s->steps[i].gpu_drawn);
		assert_int_equal(s->steps[i].gpu_start_ns, us(h + 200));
		assert_int_equal(s->steps[i].gpu_end_ns, us(i == 4 ? h + 500 : h + 1000));
		assert_int_equal(s->steps[i].ops, i == 4 ? 1 : 2);
		assert_int_equal(s->steps[i].partial, i == 4);
		assert_int_equal(s->steps[i].selected, i >= 1 && i <= 3);
	}
	assert_true(s->warmup_left_out);
	assert_true(s->partial_left_out);
	assert_int_equal(s->n_selected, 3);
	assert_true(s->window_set);
	assert_int_equal(s->window_start_ns, us(T0 + 2200));
	assert_int_equal(s->window_end_ns, us(T0 + 5000));
}

/* A repeated top-level range marks the steps: the most frequent name
 * ("optimizer") is nested, "log" as frequent and earlier launches less. */
static void test_repeated(void **state)
{
	struct gs_trace *t = repeated("train_step", 0);
	struct gs_steps s;

	(void)state;
	find(t, NULL, &s);
	check_repeated(&s, 1, "repeated top-level range \"train_step\"");
	gs_steps_fini(&s);
	find(t, "3", &s);
	assert_int_equal(s.n_selected, 1);
	assert_true(s.steps[2].selected);
	assert_int_equal(s.window_start_ns, us(T0 + 3200));
	assert_int_equal(s.window_end_ns, us(T0 + 4000));
	gs_steps_fini(&s);
	gs_trace_destroy(t);
}

/* Names that differ in their numbers are one name; the numbers number
 * the steps, unless every name has the same. */
static void test_repeated_numbered(void **state)
{
	struct gs_trace *t = repeated("iter", REP_NUMBERED);
	struct gs_steps s;

	(void)state;
	find(t, NULL, &s);
	check_repeated(&s, 7, "repeated top-level range \"iter N\"");
	assert_string_equal(gs_trace_string(t, s.steps[0].name), "iter 7");
	gs_steps_fini(&s);
	gs_trace_destroy(t);

	t = repeated("step_x2", 0);
	find(t, NULL, &s);
	check_repeated(&s, 1, "repeated top-level range \"step_xN\"");
	gs_steps_fini(&s);
	gs_trace_destroy(t);
}

/* Not a step marker: a name nested under another range, one whose ranges
 * overlap (on two threads), cross another range or nest in each other,
 * one seen once; and a --step-marker always decides, even matching
 * nothing. */
static void test_repeated_not_steps(void **state)
{
	struct gs_step_options o = {.pick = GS_STEP_DEFAULT, .marker = "^none$"};
	struct gs_trace *t = repeated("train_step", REP_EPOCH);
	struct js j = {0};
	struct gs_steps s;

	(void)state;
	/* All under one "epoch": nothing top-level repeats. */
	find(t, NULL, &s);
	assert_int_equal(s.n, 0);
	assert_false(s.window_set);
	gs_steps_fini(&s);
	gs_trace_destroy(t);

	/* "train_step" put out: "log" is the repeated top-level range. */
	t = repeated("train_step", REP_OVERLAP);
	find(t, NULL, &s);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.source, "repeated top-level range \"log\"");
	assert_int_equal(s.steps[0].host_start_ns, us(T0 + 920));
	assert_int_equal(s.steps[0].gpu_start_ns, us(T0 + 1150));
	assert_int_equal(s.steps[0].gpu_end_ns, us(T0 + 1160));
	gs_steps_fini(&s);
	gs_trace_destroy(t);
	t = repeated("train_step", REP_CROSSED);
	find(t, NULL, &s);
	assert_string_equal(s.source, "repeated top-level range \"log\"");
	gs_steps_fini(&s);
	gs_trace_destroy(t);
	t = repeated("train_step", REP_SELF_NESTED);
	find(t, NULL, &s);
	assert_string_equal(s.source, "repeated top-level range \"log\"");
	gs_steps_fini(&s);
	assert_int_equal(gs_steps_find(t, &o, &s), GS_OK);
	assert_int_equal(s.n, 0);
	gs_steps_fini(&s);
	gs_trace_destroy(t);

	/* One top-level range, twice the work. */
	js_add(&j, "{\"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}], \"traceEvents\": [\n");
	range(&j, "user_annotation", "train_step", T0, 900);
	launch(&j, T0 + 10, T0 + 200, 300, 1);
	launch(&j, T0 + 500, T0 + 600, 300, 2);
	js_add(&j,
	       "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 100, \"tid\": 100, \"ts\": %ld}"
	       "]}\n",
	       T0 + 9500);
	t = trace_of(j.p);
	free(j.p);
	find(t, NULL, &s);
	assert_int_equal(s.n, 0);
	gs_steps_fini(&s);
	gs_trace_destroy(t);
}

/* ProfilerStep#N ranges win over a repeated top-level range. */
static void test_repeated_profiler_wins(void **state)
{
	struct gs_trace *t = repeated("train_step", REP_PROFILER);
	struct gs_steps s;

	(void)state;
	find(t, NULL, &s);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.source, "ProfilerStep#N ranges");
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(s.steps[i].number, 11 + i);
		assert_int_equal(s.steps[i].host_start_ns, us(T0 + 1000L * (long)(i + 1) - 90));
	}
	gs_steps_fini(&s);
	gs_trace_destroy(t);
}

#define MS 1000000LL

/* Thread 1: four NVTX "batch" ranges [h, h + 0.9 ms), h = 1 s + i ms,
 * each with an NVTX "fwd" inside and two kernels launched in it,
 * [h + 0.2, h + 0.5) and [h + 0.6, h + 1.0) ms. Thread 2: six NVTX
 * "loader" ranges, more than "batch", that launch nothing. */
static void fill_batches(struct sb *b, void *arg)
{
	(void)arg;
	for (int64_t i = 0; i < 4; i++) {
		int64_t h = 1000 * MS + i * MS;

		sb_range(b, 1, GS_RANGE_NVTX, "batch", h, h + 9 * MS / 10);
		sb_range(b, 1, GS_RANGE_NVTX, "fwd", h + MS / 100, h + 4 * MS / 10);
		sb_launch(b, 1, h + MS / 50, h + 2 * MS / 10, h + 5 * MS / 10);
		sb_launch(b, 1, h + 45 * MS / 100, h + 6 * MS / 10, h + MS);
	}
	for (int64_t i = 0; i < 6; i++)
		sb_range(b, 2, GS_RANGE_NVTX, "loader", 1000 * MS + i * 7 * MS / 10,
			 1000 * MS + i * 7 * MS / 10 + MS / 10);
}

/* NVTX ranges of a .gscope file; the report says where its steps came
 * from. */
static void test_repeated_nvtx_report(void **state)
{
	struct gs_trace *t = sb_gscope(fill_batches, NULL);
	struct gs_report_options ro = {.format = "gscope"};
	struct gs_report *r = NULL;
	struct gs_steps s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	find(t, NULL, &s);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.source, "repeated top-level range \"batch\"");
	for (size_t i = 0; i < 4; i++) {
		int64_t h = 1000 * MS + (int64_t)i * MS;

		assert_int_equal(s.steps[i].number, i + 1);
		assert_int_equal(s.steps[i].gpu_start_ns, h + 2 * MS / 10);
		assert_int_equal(s.steps[i].gpu_end_ns, h + MS);
		assert_int_equal(s.steps[i].ops, 2);
		assert_false(s.steps[i].partial);
		assert_int_equal(s.steps[i].selected, i > 0);
	}
	gs_steps_fini(&s);

	assert_int_equal(gs_report_build(t, &ro, &r), GS_OK);
	f = open_memstream(&buf, &len);
	assert_int_equal(gs_report_write_text(f, r, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "steps 2..4, 3 of 4 (repeated top-level range \"batch\"); "
				    "step 1 left out as warm-up"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(gs_report_write_json(f, r, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "\"source\": \"repeated top-level range \\\"batch\\\"\""));
	assert_non_null(strstr(buf, "\"window_ns\": [1001200000, 1004000000]"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(gs_report_write_html(f, r, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "<h3>Steps</h3>\n<p class=\"meta\">from repeated top-level "
				    "range &quot;batch&quot;</p>"));
	free(buf);
	gs_report_destroy(r);
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
		cmocka_unit_test(test_repeated),
		cmocka_unit_test(test_repeated_numbered),
		cmocka_unit_test(test_repeated_not_steps),
		cmocka_unit_test(test_repeated_profiler_wins),
		cmocka_unit_test(test_repeated_nvtx_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
