/* SPDX-License-Identifier: MIT */
/*
 * The gate of a CI job (gpuscope/gate.h): the grammar of --fail-if (what
 * parses, and the cause of each error naming the token at fault), the
 * values checked on hand-written traces whose figures are known (the
 * breakdown of Example 5, a training loop's step times), the worst GPU of
 * a job, the changes of a diff (relative, absolute, pp, from 0, per
 * iteration), the metrics a trace lacks, the line for people and the
 * "gate" member of the JSON of a report and of a diff.
 */
#include <math.h>
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
#define KERNEL(name, stream, ts, dur, corr)                                                        \
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name                                   \
	"\", \"pid\": 0, \"tid\": " #stream ", \"ts\": " #ts ", \"dur\": " #dur                    \
	", \"args\": {\"device\": 0, \"context\": 1, "                                             \
	"\"stream\": " #stream ", \"correlation\": " #corr "}}"

/*
 * Example 5 (µs): kernel 18, copy 2, sync 1, idle 1 over a window of 22
 * (tests/cli/analyze/q3.json): shares 0.818, 0.091, 0.045, 0.045.
 */
static struct gs_trace *q3_trace(void)
{
	char path[1024];
	struct gs_trace *t = NULL;

	snprintf(path, sizeof(path), "%s/../cli/analyze/q3.json", GS_TEST_DATA);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	return t;
}

/* µs: k_one [100, 140), k_two [200, 230) then a copy of 20 on stream 7:
 * window 150, kernel 70, copy 20, idle 60; no copy in `nocopy`. */
static const char base_json[] =
	HEAD RT("cudaLaunchKernel", 95, 2, 11) ",\n" KERNEL("k_one", 7, 100, 40, 11) ",\n" RT(
		"cudaLaunchKernel", 190, 5,
		12) ",\n" KERNEL("k_two", 7, 200, 30,
				 12) ",\n" RT("cudaMemcpyAsync", 196, 3,
					      13) ",\n" COPY("Memcpy HtoD (Pinned -> Device)", 7,
							     230, 20, 13) "\n" TAIL;
/* The same with k_two 60 µs longer: window 210, kernel 130, copy 20. */
static const char slow_json[] =
	HEAD RT("cudaLaunchKernel", 95, 2, 11) ",\n" KERNEL("k_one", 7, 100, 40, 11) ",\n" RT(
		"cudaLaunchKernel", 190, 5,
		12) ",\n" KERNEL("k_two", 7, 200, 90,
				 12) ",\n" RT("cudaMemcpyAsync", 196, 3,
					      13) ",\n" COPY("Memcpy HtoD (Pinned -> Device)", 7,
							     290, 20, 13) "\n" TAIL;
/* No copy: a kernel k_tail [230, 250) in its place (as many ops, other
 * kernel names: the diff compares totals): window 150, kernel 90, copy 0. */
static const char nocopy_json[] =
	HEAD RT("cudaLaunchKernel", 95, 2, 11) ",\n" KERNEL("k_one", 7, 100, 40, 11) ",\n" RT(
		"cudaLaunchKernel", 190, 5,
		12) ",\n" KERNEL("k_two", 7, 200, 30,
				 12) ",\n" RT("cudaLaunchKernel", 196, 3,
					      13) ",\n" KERNEL("k_tail", 7, 230, 20, 13) "\n" TAIL;

/*
 * A training loop: step k (from 1) is a ProfilerStep#k annotation
 * [5000 (k-1), +4900) launching one gemm of dur[k-1] µs at +10. Every step
 * is whole, the first is the warm-up: the analysed steps are 2..n, each of
 * GPU time dur[k-1]. Returns a malloc'd Kineto JSON.
 */
static char *loop_json(const int *dur, int steps)
{
	size_t cap = 4096 + (size_t)steps * 1024, len = 0;
	char *s = malloc(cap);

	assert_non_null(s);
	len += (size_t)snprintf(s + len, cap - len, "%s", HEAD);
	for (int k = 0; k < steps; k++) {
		long t0 = 5000L * k;

		len += (size_t)snprintf(
			s + len, cap - len,
			"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
			"\"ProfilerStep#%d\", \"pid\": 100, \"tid\": 100, \"ts\": %ld, \"dur\": "
			"4900},\n"
			"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
			"\"pid\": 100, \"tid\": 100, \"ts\": %ld, \"dur\": 5, \"args\": "
			"{\"correlation\": %d}},\n"
			"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, "
			"\"tid\": 7, \"ts\": %ld, \"dur\": %d, \"args\": {\"device\": 0, "
			"\"context\": 1, \"stream\": 7, \"correlation\": %d}}%s\n",
			k + 1, t0, t0 + 1, k + 1, t0 + 10, dur[k], k + 1, k + 1 < steps ? "," : "");
		assert_true(len < cap);
	}
	len += (size_t)snprintf(s + len, cap - len, "%s", TAIL);
	assert_true(len < cap);
	return s;
}

static struct gs_trace *loop_trace(const int *dur, int steps)
{
	char *js = loop_json(dur, steps);
	struct gs_trace *t = trace_of(js);

	free(js);
	return t;
}

/* |a - b| <= eps, in doubles (cmocka's float comparison is in floats). */
#define assert_near(a, b, eps) near_at((double)(a), (double)(b), (eps), __LINE__)

static void near_at(double a, double b, double eps, int line)
{
	if (!(fabs(a - b) <= eps))
		fail_msg("line %d: %.17g is not %.17g (within %g)", line, a, b, eps);
}

/* The cause chain of the last failure, then cleared. */
static const char *chain(void)
{
	static char buf[4096];

	gs_error_format(buf, sizeof(buf));
	gs_error_clear();
	return buf;
}

static struct gs_gate *parse_ok(const char *text, enum gs_gate_for use)
{
	struct gs_gate *g = NULL;

	gs_error_clear();
	if (gs_gate_parse(text, use, &g) != GS_OK)
		fail_msg("'%s' did not parse: %s", text, chain());
	return g;
}

/* ---- the grammar ---- */

static void test_parse_ok(void **state)
{
	static const struct {
		const char *text;
		enum gs_gate_for use;
		size_t n;
	} ok[] = {
		{"efficiency<0.6", GS_GATE_REPORT, 1},
		{"efficiency<60%", GS_GATE_REPORT, 1},
		{" step_time > 120ms , idle_share>=30% ,ops<=1000", GS_GATE_REPORT, 3},
		{"window<1.5s,gap>250us,exposed_comm>2000000ns", GS_GATE_REPORT, 3},
		{"step_time>+5%,exposed_comm>+2ms,idle_share>+3pp", GS_GATE_DIFF, 3},
		{"efficiency<-0.05,efficiency<-5pp,efficiency<-10%,efficiency<0.6", GS_GATE_DIFF,
		 4},
		{"ops>+10,ops>+1.5%,kernel_time>=-0.5ms", GS_GATE_DIFF, 3},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct gs_gate *g = parse_ok(ok[i].text, ok[i].use);

		assert_int_equal(gs_gate_count(g), ok[i].n);
		gs_gate_destroy(g);
	}
}

/* Each error names the threshold and the token at fault. */
static void test_parse_errors(void **state)
{
	static const struct {
		const char *text;
		enum gs_gate_for use;
		const char *cause;
	} bad[] = {
		{"step_tim>5ms", GS_GATE_REPORT,
		 "--fail-if: 'step_tim>5ms': unknown metric 'step_tim' (step_time, window, "
		 "kernel_time, copy_time, sync_time, idle_time, kernel_share, copy_share, "
		 "sync_share, idle_share, efficiency, gap, host_bound, launch_latency, "
		 "exposed_comm, comm_time, wait_time, missed_overlap, ops)"},
		{"step_time+5%", GS_GATE_DIFF,
		 "'step_time+5%': no comparison after 'step_time' (>, >=, <, <=)"},
		{"efficiency==1", GS_GATE_REPORT, "'efficiency==1': '==' is no comparison"},
		{"efficiency=>1", GS_GATE_REPORT, "'efficiency=>1': '=>' is no comparison"},
		{"efficiency 0.6", GS_GATE_REPORT,
		 "'efficiency 0.6': no comparison after 'efficiency'"},
		{">5ms", GS_GATE_REPORT, "'>5ms': no metric before the comparison"},
		{"step_time>", GS_GATE_REPORT, "'step_time>': no value after '>'"},
		{"step_time>5", GS_GATE_REPORT,
		 "'step_time>5': step_time is a time: '5' wants a unit, ns, us, ms or s"},
		{"step_time>5 ms", GS_GATE_REPORT, "'5 ms' is not one value"},
		{"step_time>5xs", GS_GATE_REPORT, "unknown unit 'xs' in '5xs'"},
		{"step_time>fast", GS_GATE_REPORT, "'fast' is not a number with a unit"},
		{"step_time>+5%", GS_GATE_REPORT,
		 "'step_time>+5%': '+5%' is a change, which needs two runs (gpuscope diff"},
		{"idle_share>3pp", GS_GATE_DIFF,
		 "'idle_share>3pp': pp (percentage points) is a change: give its sign ('+3pp')"},
		{"idle_share>+3ms", GS_GATE_DIFF, "idle_share is a share: '+3ms' wants a fraction"},
		{"efficiency<1s", GS_GATE_REPORT, "efficiency is a ratio: '1s' wants a fraction"},
		{"ops>3ms", GS_GATE_REPORT, "ops is a count: '3ms' wants a plain number"},
		{"window>5%", GS_GATE_REPORT, "window is a time: '5%' wants a unit"},
		{"", GS_GATE_REPORT, "'': no threshold (METRIC>VALUE, ...)"},
		{"efficiency<0.6,", GS_GATE_REPORT, "an empty threshold"},
		{"efficiency<0.6,,ops>1", GS_GATE_REPORT, "an empty threshold"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gs_gate *g = (struct gs_gate *)1;
		const char *c;

		gs_error_clear();
		assert_int_equal(gs_gate_parse(bad[i].text, bad[i].use, &g), GS_ERR_INVALID);
		assert_null(g);
		c = chain();
		if (!strstr(c, bad[i].cause))
			fail_msg("'%s': cause '%s' lacks '%s'", bad[i].text, c, bad[i].cause);
		if (strncmp(c, "--fail-if: ", 11) != 0)
			fail_msg("'%s': cause '%s' does not start with --fail-if", bad[i].text, c);
	}
}

static void test_parse_many(void **state)
{
	size_t cap = (GS_GATE_MAX + 1) * 8 + 1, len = 0;
	char *s = malloc(cap);
	struct gs_gate *g = NULL;

	(void)state;
	assert_non_null(s);
	for (int i = 0; i < GS_GATE_MAX; i++)
		len += (size_t)snprintf(s + len, cap - len, "%sops>%d", i ? "," : "", i);
	g = parse_ok(s, GS_GATE_REPORT);
	assert_int_equal(gs_gate_count(g), GS_GATE_MAX);
	gs_gate_destroy(g);
	snprintf(s + len, cap - len, ",ops>1");
	assert_int_equal(gs_gate_parse(s, GS_GATE_REPORT, &g), GS_ERR_INVALID);
	assert_non_null(strstr(chain(), "256 thresholds at most"));
	free(s);
}

/* ---- a report ---- */

static struct gs_report *report_of(const struct gs_trace *t)
{
	struct gs_report_options o = {0};
	struct gs_report *r = NULL;

	gs_error_clear();
	assert_int_equal(gs_report_build(t, &o, &r), GS_OK);
	return r;
}

static const struct gs_gate_verdict *gate_report(struct gs_report *r, const char *text)
{
	struct gs_gate *g = parse_ok(text, GS_GATE_REPORT);

	if (gs_report_gate(r, g) != GS_OK)
		fail_msg("'%s': %s", text, chain());
	gs_gate_destroy(g);
	return gs_report_verdict(r);
}

static void test_report_values(void **state)
{
	struct gs_trace *t = q3_trace();
	struct gs_report *r = report_of(t);
	const struct gs_gate_verdict *v;
	const struct gs_gate_result *x;

	(void)state;
	assert_null(gs_report_verdict(r));
	v = gate_report(r, "kernel_share>0.8,idle_share>=5%,window<22us,window<=22us,"
			   "copy_time>=2us,ops<3,sync_time>1us,efficiency>1");
	assert_int_equal(v->use, GS_GATE_REPORT);
	assert_int_equal(v->n, 8);
	x = &v->results[0];
	assert_string_equal(x->threshold, "kernel_share>0.8");
	assert_string_equal(x->metric, "kernel_share");
	assert_string_equal(x->op, ">");
	assert_int_equal(x->compare, GS_GATE_VALUE);
	assert_int_equal(x->unit, GS_GATE_FRACTION);
	assert_true(x->crossed);
	assert_near(x->value, 18.0 / 22.0, 1e-12);
	assert_near(x->limit, 0.8, 1e-12);
	assert_int_equal(x->gpus, 1);
	assert_int_equal(x->gpus_crossing, 1);
	assert_int_equal(x->device, 0);
	/* 1/22 = 4.5% is not 5% or more. */
	assert_false(v->results[1].crossed);
	assert_near(v->results[1].limit, 0.05, 1e-12);
	assert_near(v->results[1].value, 1.0 / 22.0, 1e-12);
	/* 22 us is not under 22us, but at most it. */
	assert_false(v->results[2].crossed);
	assert_int_equal(v->results[2].unit, GS_GATE_NS);
	assert_near(v->results[2].limit, 22000, 0);
	assert_near(v->results[2].value, 22000, 0);
	assert_true(v->results[3].crossed);
	assert_true(v->results[4].crossed);
	assert_near(v->results[4].value, 2000, 0);
	assert_false(v->results[5].crossed); /* 3 ops */
	assert_near(v->results[5].value, 3, 0);
	assert_false(v->results[6].crossed); /* sync 1 us */
	assert_false(v->results[7].crossed); /* never above 1 */
	assert_int_equal(v->crossed, 3);
	/* A second gate replaces the verdict. */
	v = gate_report(r, "idle_share>4%");
	assert_int_equal(v->n, 1);
	assert_int_equal(v->crossed, 1);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/* The analysed steps' median GPU time; none without steps, nor with a
 * window that analyses none. */
static void test_step_time(void **state)
{
	static const int dur[] = {900, 100, 300, 200, 250, 120};
	struct gs_trace *t = loop_trace(dur, 6), *t3 = q3_trace();
	struct gs_report_options o = {.steps = {.pick = GS_STEP_ALL}};
	struct gs_report *r = report_of(t);
	const struct gs_gate_verdict *v;
	struct gs_gate *g;

	(void)state;
	/* Steps 2..6 (the warm-up left out): 100 120 200 250 300, median 200. */
	v = gate_report(r, "step_time>199us,step_time>200us");
	assert_near(v->results[0].value, 200000, 0);
	assert_true(v->results[0].crossed);
	assert_false(v->results[1].crossed);
	gs_report_destroy(r);
	/* Every step: the lower middle of six, 200 still (100 120 200 250 300 900). */
	assert_int_equal(gs_report_build(t, &o, &r), GS_OK);
	v = gate_report(r, "step_time<=200us");
	assert_true(v->results[0].crossed);
	gs_report_destroy(r);
	/* --step none: no step analysed. */
	o.steps.pick = GS_STEP_NONE;
	assert_int_equal(gs_report_build(t, &o, &r), GS_OK);
	g = parse_ok("step_time>1ms", GS_GATE_REPORT);
	assert_int_equal(gs_report_gate(r, g), GS_ERR_INVALID);
	assert_non_null(strstr(chain(), "--fail-if: step_time>1ms: no GPU has a step time: no "
					"steps analysed"));
	assert_null(gs_report_verdict(r));
	gs_report_destroy(r);
	/* A trace without steps. */
	r = report_of(t3);
	assert_int_equal(gs_report_gate(r, g), GS_ERR_INVALID);
	assert_non_null(strstr(chain(), "no GPU has a step time"));
	gs_gate_destroy(g);
	gs_report_destroy(r);
	gs_trace_destroy(t);
	gs_trace_destroy(t3);
}

/* A job: every rank's GPU is checked, the verdict names the worst. */
static void test_job_worst(void **state)
{
	const char *paths[2];
	char a[1024], b[1024], line[512];
	struct gs_report_options o = {0};
	struct gs_job *j = NULL;
	struct gs_report *r = NULL;
	const struct gs_gate_verdict *v;

	(void)state;
	snprintf(a, sizeof(a), "%s/../cli/analyze/serial.json", GS_TEST_DATA);
	snprintf(b, sizeof(b), "%s/../cli/analyze/rank1.json", GS_TEST_DATA);
	paths[0] = a;
	paths[1] = b;
	gs_error_clear();
	assert_int_equal(gs_job_load(paths, 2, NULL, &j, NULL, NULL), GS_OK);
	assert_int_equal(gs_report_build_job(j, &o, &r), GS_OK);
	/* serial: window 135 us, rank1: 67 us. */
	v = gate_report(r, "window>100us,window<100us,window>1s");
	assert_true(v->results[0].crossed);
	assert_int_equal(v->results[0].gpus, 2);
	assert_int_equal(v->results[0].gpus_crossing, 1);
	assert_true(v->results[0].in_job);
	assert_int_equal(v->results[0].rank, 0);
	assert_int_equal(v->results[0].device, 0);
	assert_near(v->results[0].value, 135000, 0);
	assert_true(v->results[1].crossed);
	assert_int_equal(v->results[1].rank, 1);
	assert_int_equal(v->results[1].device, 1);
	assert_near(v->results[1].value, 67000, 0);
	/* Not crossed: still the worst GPU, the largest. */
	assert_false(v->results[2].crossed);
	assert_int_equal(v->results[2].gpus_crossing, 0);
	assert_int_equal(v->results[2].rank, 0);
	assert_int_equal(v->crossed, 2);
	assert_string_equal(gs_gate_result_text(&v->results[0], line, sizeof(line)),
			    "window>100us: 135.000 us on rank 0 GPU 0; 1 of 2 GPUs cross it");
	assert_string_equal(gs_gate_result_text(&v->results[1], line, sizeof(line)),
			    "window<100us: 67.000 us on rank 1 GPU 1; 1 of 2 GPUs cross it");
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* ---- a diff ---- */

static struct gs_diff *diff_of(const struct gs_trace *a, const struct gs_trace *b)
{
	struct gs_diff_options o = {.base_name = "a.json", .new_name = "b.json"};
	struct gs_diff *d = NULL;

	gs_error_clear();
	assert_int_equal(gs_diff_build(a, b, &o, &d), GS_OK);
	return d;
}

static const struct gs_gate_verdict *gate_diff(struct gs_diff *d, const char *text)
{
	struct gs_gate *g = parse_ok(text, GS_GATE_DIFF);

	if (gs_diff_gate(d, g) != GS_OK)
		fail_msg("'%s': %s", text, chain());
	gs_gate_destroy(g);
	return gs_diff_verdict(d);
}

static void test_diff_changes(void **state)
{
	struct gs_trace *a = trace_of(base_json), *b = trace_of(slow_json);
	struct gs_diff *d = diff_of(a, b), *self = diff_of(a, a);
	const struct gs_gate_verdict *v;
	const struct gs_gate_result *x;
	const char *all = "window>+5%,window>+40%,window>+60us,kernel_time>+61us,"
			  "idle_share>+3pp,idle_share<-10pp,copy_time>+0ns,window>200us,"
			  "efficiency<-0.5";
	char line[512];

	(void)state;
	/* window 150 -> 210 us (+40%), kernel 70 -> 130, idle 60 of 150 -> 60 of
	 * 210 (-11.4 pp), copy the same. */
	v = gate_diff(d, all);
	assert_int_equal(v->use, GS_GATE_DIFF);
	x = &v->results[0];
	assert_int_equal(x->compare, GS_GATE_RELATIVE);
	assert_int_equal(x->unit, GS_GATE_FRACTION);
	assert_int_equal(x->metric_unit, GS_GATE_NS);
	assert_near(x->value, 0.4, 1e-12);
	assert_near(x->base, 150000, 0);
	assert_near(x->now, 210000, 0);
	assert_true(x->crossed);
	assert_false(v->results[1].crossed); /* +40% is not over +40% */
	assert_int_equal(v->results[2].compare, GS_GATE_CHANGE);
	assert_near(v->results[2].value, 60000, 0);
	assert_false(v->results[2].crossed); /* +60 us is not over +60us */
	assert_false(v->results[3].crossed); /* kernel +60 us */
	assert_near(v->results[3].value, 60000, 0);
	assert_false(v->results[4].crossed);
	assert_true(v->results[5].crossed);
	assert_near(v->results[5].value, 60.0 / 210 - 60.0 / 150, 1e-12);
	assert_false(v->results[6].crossed); /* copy the same */
	/* Without a sign: NEW's value. */
	assert_int_equal(v->results[7].compare, GS_GATE_VALUE);
	assert_near(v->results[7].value, 210000, 0);
	assert_true(v->results[7].crossed);
	assert_int_equal(v->crossed, 3);
	assert_string_equal(gs_gate_result_text(&v->results[0], line, sizeof(line)),
			    "window>+5%: +40.0% on GPU 0 (150.000 us -> 210.000 us)");
	assert_string_equal(gs_gate_result_text(&v->results[5], line, sizeof(line)),
			    "idle_share<-10pp: -11.4 pp on GPU 0 (40.0% -> 28.6%)");
	/* The same run on both sides crosses nothing. */
	v = gate_diff(self, all);
	assert_int_equal(v->crossed, 0);
	assert_near(v->results[0].value, 0, 0);
	assert_near(v->results[7].value, 150000, 0); /* window>200us: no */
	gs_diff_destroy(self);
	gs_diff_destroy(d);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

/* A relative change from 0 is infinite: crossed upward, null in JSON. */
static void test_diff_from_zero(void **state)
{
	struct gs_trace *a = trace_of(nocopy_json), *b = trace_of(base_json);
	struct gs_diff *d = diff_of(a, b), *back = diff_of(b, a);
	const struct gs_gate_verdict *v;
	char line[512];

	(void)state;
	v = gate_diff(d, "copy_time>+1000%,copy_time<-50%,copy_share>+10pp");
	assert_true(v->results[0].crossed);
	assert_false(isfinite(v->results[0].value));
	assert_false(v->results[1].crossed);
	assert_true(v->results[2].crossed); /* 0 -> 20 of 150: +13.3 pp */
	assert_near(v->results[2].value, 20.0 / 150, 1e-12);
	assert_string_equal(gs_gate_result_text(&v->results[0], line, sizeof(line)),
			    "copy_time>+1000%: from 0 on GPU 0 (0 ns -> 20.000 us)");
	/* Down to 0: -100%. */
	v = gate_diff(back, "copy_time<-99%");
	assert_true(v->results[0].crossed);
	assert_near(v->results[0].value, -1, 0);
	gs_diff_destroy(back);
	gs_diff_destroy(d);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

/* Runs of other iteration counts compare per iteration: 4 steps of a
 * 100 us gemm against 8 of 110 us is +10% per iteration, not +120%. The
 * step time is the median of the default steps (the warm-up left out). */
static void test_diff_per_iteration(void **state)
{
	static const int d100[] = {500, 100, 100, 100};
	static const int d110[] = {500, 110, 110, 110, 110, 110, 110, 110};
	struct gs_trace *a = loop_trace(d100, 4), *b = loop_trace(d110, 8);
	struct gs_diff *d = diff_of(a, b);
	const struct gs_gate_verdict *v;

	(void)state;
	v = gate_diff(d, "step_time>+5%,step_time>+15%,kernel_time>+15%,ops>+0");
	assert_near(v->results[0].base, 100000, 0);
	assert_near(v->results[0].now, 110000, 0);
	assert_near(v->results[0].value, 0.1, 1e-12);
	assert_true(v->results[0].crossed);
	assert_false(v->results[1].crossed);
	/* kernel time per iteration: 800 / 4 = 200 us -> 1270 / 8 = 158.75 us. */
	assert_near(v->results[2].base, 200000, 0);
	assert_near(v->results[2].now, 158750, 0);
	assert_false(v->results[2].crossed);
	/* one op per iteration on each side */
	assert_near(v->results[3].value, 0, 0);
	assert_false(v->results[3].crossed);
	gs_diff_destroy(d);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

/* A metric no compared GPU has is an error naming the threshold; a gate
 * parsed for the other use is refused. */
static void test_diff_unavailable(void **state)
{
	struct gs_trace *a = trace_of(base_json), *b = trace_of(slow_json);
	struct gs_diff *d = diff_of(a, b);
	struct gs_report *r = report_of(a);
	struct gs_gate *g = parse_ok("step_time>+5%", GS_GATE_DIFF);

	(void)state;
	assert_int_equal(gs_diff_gate(d, g), GS_ERR_INVALID);
	assert_non_null(strstr(chain(), "--fail-if: step_time>+5%: no GPU has a step time on both "
					"sides: no steps found"));
	assert_null(gs_diff_verdict(d));
	assert_int_equal(gs_report_gate(r, g), GS_ERR_INVALID);
	assert_non_null(strstr(chain(), "thresholds parsed for a diff"));
	gs_gate_destroy(g);
	g = parse_ok("efficiency<0.5", GS_GATE_REPORT);
	assert_int_equal(gs_diff_gate(d, g), GS_ERR_INVALID);
	assert_non_null(strstr(chain(), "thresholds parsed for a report"));
	gs_gate_destroy(g);
	gs_report_destroy(r);
	gs_diff_destroy(d);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

/* ---- JSON ---- */

static char *written(bool diff, const void *obj)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (diff)
		assert_int_equal(gs_diff_write_json(f, obj), GS_OK);
	else
		assert_int_equal(gs_report_write_json(f, obj, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static const cJSON *member(const cJSON *o, const char *key)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!m)
		fail_msg("no member '%s'", key);
	return m;
}

static void test_json_report(void **state)
{
	struct gs_trace *t = q3_trace();
	struct gs_report *r = report_of(t);
	char *js = written(false, r);
	cJSON *doc = cJSON_Parse(js);
	const cJSON *gate, *th, *x;

	(void)state;
	/* No gate asked, no member. */
	assert_non_null(doc);
	assert_null(cJSON_GetObjectItemCaseSensitive(doc, "gate"));
	cJSON_Delete(doc);
	free(js);
	gate_report(r, "kernel_share>80%,window>1ms");
	js = written(false, r);
	doc = cJSON_Parse(js);
	assert_non_null(doc);
	gate = member(doc, "gate");
	assert_false(cJSON_IsTrue(member(gate, "passed")));
	assert_int_equal(member(gate, "crossed")->valueint, 1);
	th = member(gate, "thresholds");
	assert_int_equal(cJSON_GetArraySize(th), 2);
	x = cJSON_GetArrayItem(th, 0);
	assert_string_equal(member(x, "threshold")->valuestring, "kernel_share>80%");
	assert_string_equal(member(x, "metric")->valuestring, "kernel_share");
	assert_string_equal(member(x, "op")->valuestring, ">");
	assert_string_equal(member(x, "compare")->valuestring, "value");
	assert_string_equal(member(x, "unit")->valuestring, "fraction");
	assert_near(member(x, "limit")->valuedouble, 0.8, 1e-9);
	assert_near(member(x, "value")->valuedouble, 0.818182, 1e-9);
	assert_true(cJSON_IsTrue(member(x, "crossed")));
	assert_int_equal(member(x, "gpus")->valueint, 1);
	assert_int_equal(member(x, "gpus_crossing")->valueint, 1);
	x = member(x, "worst");
	assert_int_equal(member(x, "rank")->valueint, 0);
	assert_int_equal(member(x, "device")->valueint, 0);
	assert_string_equal(member(x, "metric_unit")->valuestring, "fraction");
	x = cJSON_GetArrayItem(th, 1);
	assert_string_equal(member(x, "unit")->valuestring, "ns");
	assert_int_equal(member(x, "limit")->valueint, 1000000);
	assert_int_equal(member(x, "value")->valueint, 22000);
	assert_false(cJSON_IsTrue(member(x, "crossed")));
	/* The rest of the report is as it was. */
	assert_string_equal(member(doc, "schema")->valuestring, "gpuscope.report/1");
	assert_int_equal(cJSON_GetArraySize(member(doc, "devices")), 1);
	cJSON_Delete(doc);
	free(js);
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

static void test_json_diff(void **state)
{
	struct gs_trace *a = trace_of(nocopy_json), *b = trace_of(base_json);
	struct gs_diff *d = diff_of(a, b);
	char *js;
	cJSON *doc;
	const cJSON *gate, *x;

	(void)state;
	gate_diff(d, "copy_time>+10%,kernel_time>+2ms");
	js = written(true, d);
	doc = cJSON_Parse(js);
	if (!doc)
		fail_msg("not JSON: %s", js);
	assert_string_equal(member(doc, "schema")->valuestring, "gpuscope.diff/1");
	assert_int_equal(cJSON_GetArraySize(member(doc, "warnings")), 0);
	gate = member(doc, "gate");
	assert_false(cJSON_IsTrue(member(gate, "passed")));
	assert_int_equal(member(gate, "crossed")->valueint, 1);
	x = cJSON_GetArrayItem(member(gate, "thresholds"), 0);
	assert_string_equal(member(x, "compare")->valuestring, "relative_change");
	assert_true(cJSON_IsNull(member(x, "value")));
	assert_true(cJSON_IsTrue(member(x, "from_zero")));
	x = member(x, "worst");
	assert_int_equal(member(x, "base_device")->valueint, 0);
	assert_int_equal(member(x, "base")->valueint, 0);
	assert_int_equal(member(x, "new")->valueint, 20000);
	x = cJSON_GetArrayItem(member(gate, "thresholds"), 1);
	assert_string_equal(member(x, "compare")->valuestring, "change");
	assert_int_equal(member(x, "value")->valueint, -20000); /* 90 -> 70 us */
	assert_false(cJSON_IsTrue(member(x, "crossed")));
	assert_null(cJSON_GetObjectItemCaseSensitive(x, "from_zero"));
	cJSON_Delete(doc);
	free(js);
	gs_diff_destroy(d);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),           cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_many),         cmocka_unit_test(test_report_values),
		cmocka_unit_test(test_step_time),          cmocka_unit_test(test_job_worst),
		cmocka_unit_test(test_diff_changes),       cmocka_unit_test(test_diff_from_zero),
		cmocka_unit_test(test_diff_per_iteration), cmocka_unit_test(test_diff_unavailable),
		cmocka_unit_test(test_json_report),        cmocka_unit_test(test_json_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
