/* SPDX-License-Identifier: MIT */
/*
 * Host-bound idle by host ranges (gpuscope/hostattr.h): hand-built traces
 * with the numbers worked out by hand (innermost range wins, a range
 * reaching past a gap, only the launching thread counts, waits forwarded
 * to the most recently busy thread of the process, time outside any
 * range), NVTX ranges through a .gscope file, the advice of the idle
 * finding for each kind of host work, and (with --shared) every shared
 * Kineto and Nsight trace: per device, the ranges' time plus the time
 * outside any range is exactly host_bound_ns.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>
#include <gpuscope/text.h>

#include "../../analyzer/analyses/analyzer_priv.h"
#include "../../analyzer/results/report_model_priv.h"

#define PID 100

struct tb {
	struct gs_trace *t;
	struct gs_sink *k;
	uint32_t stream;
	uint64_t corr;
};

static uint32_t tb_str(struct tb *b, const char *s)
{
	uint32_t id = GS_NO_STRING;

	assert_int_equal(b->k->intern(b->k, s, strlen(s), &id), GS_OK);
	return id;
}

static void tb_init_sink(struct tb *b, struct gs_sink *k)
{
	struct gs_stream st = {.pid = PID, .device = 0, .context = 1, .stream_id = 7};

	b->k = k;
	b->corr = 0;
	assert_int_equal(b->k->stream(b->k, &st, &b->stream), GS_OK);
}

static void tb_init(struct tb *b)
{
	assert_int_equal(gs_trace_create(&b->t), GS_OK);
	tb_init_sink(b, gs_trace_borrow_sink(b->t));
}

/* A kernel [start, end) launched by thread tid with a call [ls, ls + 2). */
static void tb_launch(struct tb *b, int64_t tid, int64_t ls, int64_t start, int64_t end)
{
	uint64_t corr = ++b->corr;
	struct gs_api_call c = {.start_ns = ls,
				.end_ns = ls + 2,
				.pid = PID,
				.tid = tid,
				.correlation = corr,
				.name = tb_str(b, "cudaLaunchKernel")};
	struct gs_op o = {.start_ns = start,
			  .end_ns = end,
			  .correlation = corr,
			  .name = tb_str(b, "kernel"),
			  .stream = b->stream,
			  .kind = GS_OP_KERNEL};

	assert_int_equal(b->k->api_call(b->k, &c), GS_OK);
	assert_int_equal(b->k->op(b->k, &o, NULL), GS_OK);
}

static void tb_range(struct tb *b, int64_t pid, int64_t tid, uint8_t kind, const char *name,
		     int64_t start, int64_t end)
{
	struct gs_range r = {.start_ns = start,
			     .end_ns = end,
			     .pid = pid,
			     .tid = tid,
			     .name = tb_str(b, name),
			     .domain = GS_NO_STRING,
			     .kind = kind};

	assert_int_equal(b->k->range(b->k, &r), GS_OK);
}

/* The breakdown of device 0, with the invariant checked. */
static void breakdown(struct tb *b, struct gs_breakdown *r)
{
	const struct gs_host_ranges *h = &r->host_ranges;
	int64_t sum = 0, kinds = 0, classes = 0;

	assert_int_equal(gs_trace_finish(b->t), GS_OK);
	assert_int_equal(gs_breakdown_compute(b->t, 0, NULL, r), GS_OK);
	for (size_t i = 0; i < h->n_ranges; i++) {
		sum += h->ranges[i].ns;
		if (i)
			assert_true(h->ranges[i].ns <= h->ranges[i - 1].ns);
	}
	for (unsigned k = 0; k < GS_RANGE_KIND_COUNT; k++)
		kinds += h->kind_ns[k];
	for (unsigned c = 0; c < GS_HOST_CLASS_COUNT; c++)
		classes += h->class_ns[c];
	assert_int_equal(sum + h->outside_ns, r->host_bound_ns);
	assert_int_equal(kinds, sum);
	assert_int_equal(classes, sum);
}

static void check_range(const struct gs_trace *t, const struct gs_breakdown *r, size_t i,
			const char *name, uint8_t kind, int64_t ns, uint64_t gaps)
{
	const struct gs_host_range_time *x;

	assert_true(i < r->host_ranges.n_ranges);
	x = &r->host_ranges.ranges[i];
	assert_string_equal(gs_trace_string(t, x->name), name);
	assert_int_equal(x->kind, kind);
	assert_int_equal(x->ns, ns);
	assert_int_equal(x->gaps, gaps);
}

/*
 * Kernels [0, 10) and [100, 110), the second launched at 90 by thread 1:
 * host-bound [10, 90). Thread 1: outer (python) [5, 80) around inner
 * (cpu_op) [20, 40) around deep (cpu_op) [25, 30); later (python) [85, 95)
 * reaches past the gap. Thread 2's range over the whole gap is not the
 * launching thread's. So: outer 10 + 40, inner 5 + 10, deep 5, later 5,
 * outside [80, 85) 5.
 */
static void test_nesting(void **state)
{
	struct tb b;
	struct gs_breakdown r;

	(void)state;
	tb_init(&b);
	tb_launch(&b, 1, 0, 0, 10);
	tb_launch(&b, 1, 90, 100, 110);
	tb_range(&b, PID, 1, GS_RANGE_PYTHON, "outer", 5, 80);
	tb_range(&b, PID, 1, GS_RANGE_CPU_OP, "inner", 20, 40);
	tb_range(&b, PID, 1, GS_RANGE_CPU_OP, "deep", 25, 30);
	tb_range(&b, PID, 1, GS_RANGE_PYTHON, "later", 85, 95);
	tb_range(&b, PID, 2, GS_RANGE_CPU_OP, "other thread", 10, 90);
	breakdown(&b, &r);
	assert_int_equal(r.host_bound_ns, 80);
	assert_int_equal(r.launch_latency_ns, 10);
	assert_true(r.host_ranges.recorded);
	assert_int_equal(r.host_ranges.n_ranges, 4);
	check_range(b.t, &r, 0, "outer", GS_RANGE_PYTHON, 50, 1);
	check_range(b.t, &r, 1, "inner", GS_RANGE_CPU_OP, 15, 1);
	check_range(b.t, &r, 2, "deep", GS_RANGE_CPU_OP, 5, 1); /* ties by name */
	check_range(b.t, &r, 3, "later", GS_RANGE_PYTHON, 5, 1);
	assert_int_equal(r.host_ranges.outside_ns, 5);
	assert_int_equal(r.host_ranges.forwarded_ns, 0);
	assert_int_equal(r.host_ranges.kind_ns[GS_RANGE_PYTHON], 55);
	assert_int_equal(r.host_ranges.kind_ns[GS_RANGE_CPU_OP], 20);
	assert_int_equal(r.host_ranges.intervals, 1);
	gs_breakdown_fini(&r);
	gs_trace_destroy(b.t);
}

/*
 * Ties, over two gaps [10, 50) and [60, 100) (launches at 50 and 100):
 * same start, the shorter is inner (short [10, 30) in long [10, 60)); same
 * start and end, cpu_op is inside python (op in py, both [70, 90)). A range
 * over both gaps counts in two.
 */
static void test_ties_and_gaps(void **state)
{
	struct tb b;
	struct gs_breakdown r;

	(void)state;
	tb_init(&b);
	tb_launch(&b, 1, 0, 0, 10);
	tb_launch(&b, 1, 50, 50, 60);
	tb_launch(&b, 1, 100, 100, 110);
	tb_range(&b, PID, 1, GS_RANGE_PYTHON, "long", 10, 80);
	tb_range(&b, PID, 1, GS_RANGE_PYTHON, "short", 10, 30);
	tb_range(&b, PID, 1, GS_RANGE_PYTHON, "py", 70, 90);
	tb_range(&b, PID, 1, GS_RANGE_CPU_OP, "op", 70, 90);
	breakdown(&b, &r);
	assert_int_equal(r.host_bound_ns, 80);
	/* long: [30, 50) + [60, 70) = 30; op 20; short 20; outside [90, 100). */
	check_range(b.t, &r, 0, "long", GS_RANGE_PYTHON, 30, 2);
	check_range(b.t, &r, 1, "op", GS_RANGE_CPU_OP, 20, 1);
	check_range(b.t, &r, 2, "short", GS_RANGE_PYTHON, 20, 1);
	assert_int_equal(r.host_ranges.n_ranges, 3);
	assert_int_equal(r.host_ranges.outside_ns, 10);
	assert_int_equal(r.host_ranges.intervals, 2);
	assert_int_equal(r.host_ranges.short_intervals, 2);
	assert_int_equal(r.host_ranges.short_ns, 80);
	gs_breakdown_fini(&r);
	gs_trace_destroy(b.t);
}

/*
 * Host-bound [10, 90), thread 1 waits over all of it. Thread 2 is busy in
 * worker_a [0, 60), thread 3 in worker_b [30, 50) (it began last: it wins
 * there); thread 5 only waits in a queue get; another process's thread is
 * busy throughout (not counted). So worker_a [10, 30) + [50, 60) = 30,
 * worker_b 20, and the wait keeps [60, 90) = 30.
 */
static void test_wait_forwarding(void **state)
{
	struct tb b;
	struct gs_breakdown r;
	const char *wait = "threading.py(320): wait";

	(void)state;
	tb_init(&b);
	tb_launch(&b, 1, 0, 0, 10);
	tb_launch(&b, 1, 90, 100, 110);
	tb_range(&b, PID, 1, GS_RANGE_PYTHON, wait, 5, 90);
	tb_range(&b, PID, 2, GS_RANGE_PYTHON, "worker_a", 0, 60);
	tb_range(&b, PID, 3, GS_RANGE_PYTHON, "worker_b", 30, 50);
	tb_range(&b, PID, 5, GS_RANGE_PYTHON, "queue.py(171): get", 0, 100);
	tb_range(&b, PID + 1, 9, GS_RANGE_PYTHON, "foreign", 0, 100);
	breakdown(&b, &r);
	assert_int_equal(r.host_bound_ns, 80);
	assert_int_equal(r.host_ranges.n_ranges, 3);
	check_range(b.t, &r, 0, wait, GS_RANGE_PYTHON, 30, 1); /* ties by name */
	check_range(b.t, &r, 1, "worker_a", GS_RANGE_PYTHON, 30, 1);
	check_range(b.t, &r, 2, "worker_b", GS_RANGE_PYTHON, 20, 1);
	assert_int_equal(r.host_ranges.ranges[0].forwarded_ns, 0);
	assert_int_equal(r.host_ranges.ranges[1].forwarded_ns, 30);
	assert_int_equal(r.host_ranges.ranges[2].forwarded_ns, 20);
	assert_int_equal(r.host_ranges.forwarded_ns, 50);
	assert_int_equal(r.host_ranges.outside_ns, 0);
	assert_int_equal(r.host_ranges.class_ns[GS_HOST_WAIT], 30);
	assert_int_equal(r.host_ranges.class_ns[GS_HOST_OPERATOR], 50);
	gs_breakdown_fini(&r);
	gs_trace_destroy(b.t);
}

static void test_wait_names(void **state)
{
	(void)state;
	assert_true(gs_host_name_is_wait("threading.py(320): wait"));
	assert_true(
		gs_host_name_is_wait("<built-in method acquire of _thread.lock object at 0x7f>"));
	assert_true(gs_host_name_is_wait("<method 'acquire' of '_thread.lock' objects>"));
	assert_true(gs_host_name_is_wait("queue.py(171): get"));
	assert_true(gs_host_name_is_wait("Queue.get"));
	assert_true(gs_host_name_is_wait("lock.acquire"));
	assert_true(gs_host_name_is_wait("threading.py(1116): _wait_for_tstate_lock"));
	assert_true(gs_host_name_is_wait("selectors.py(415): select"));
	assert_true(gs_host_name_is_wait("threading.py(1060): join"));
	assert_false(gs_host_name_is_wait("aten::select"));
	assert_false(gs_host_name_is_wait("<method 'join' of 'str' objects>"));
	assert_false(gs_host_name_is_wait("dict.get"));
	assert_false(gs_host_name_is_wait("zoom"));
	assert_false(gs_host_name_is_wait(NULL));
}

/* No ranges at all: every host-bound ns is outside, nothing recorded. */
static void test_no_ranges(void **state)
{
	struct tb b;
	struct gs_breakdown r;

	(void)state;
	tb_init(&b);
	tb_launch(&b, 1, 0, 0, 10);
	tb_launch(&b, 1, 90, 100, 110);
	breakdown(&b, &r);
	assert_false(r.host_ranges.recorded);
	assert_int_equal(r.host_ranges.n_ranges, 0);
	assert_int_equal(r.host_ranges.outside_ns, 80);
	gs_breakdown_fini(&r);
	gs_trace_destroy(b.t);
}

/* NVTX ranges written to a .gscope file and read back count the same. */
static void test_gscope_nvtx(void **state)
{
	char path[] = "/tmp/gs_hostattr_XXXXXX";
	int fd = mkstemp(path);
	struct gs_writer *w = NULL;
	struct tb b;
	struct gs_trace *t = NULL;
	struct gs_breakdown r;
	enum gs_input_format fmt;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(gs_writer_open(path, NULL, &w), GS_OK);
	tb_init_sink(&b, gs_writer_borrow_sink(w));
	tb_launch(&b, 1, 0, 0, 10);
	tb_launch(&b, 1, 90, 100, 110);
	tb_range(&b, PID, 1, GS_RANGE_NVTX, "step", 0, 100);
	tb_range(&b, PID, 1, GS_RANGE_NVTX, "prepare batch", 30, 70);
	assert_int_equal(gs_writer_close(w), GS_OK);
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_OK);
	unlink(path);
	b.t = t;
	breakdown(&b, &r);
	assert_int_equal(r.host_bound_ns, 80);
	check_range(t, &r, 0, "prepare batch", GS_RANGE_NVTX, 40, 1);
	check_range(t, &r, 1, "step", GS_RANGE_NVTX, 40, 1); /* ties by name */
	assert_int_equal(r.host_ranges.kind_ns[GS_RANGE_NVTX], 80);
	gs_breakdown_fini(&r);
	gs_trace_destroy(t);
}

/* ---- the advice of the idle finding ------------------------------------- */

/* The idle finding of device 0 of a report of b's trace, copied. */
struct finding {
	char text[1024];
	char advice[1024];
};

static void idle_finding(struct tb *b, struct finding *f)
{
	struct gs_report_options o = {0};
	struct gs_report *r = NULL;
	bool found = false;

	assert_int_equal(gs_trace_finish(b->t), GS_OK);
	assert_int_equal(gs_report_build(b->t, &o, &r), GS_OK);
	assert_true(r->n_dev >= 1);
	for (size_t i = 0; i < r->dev[0].n_findings && !found; i++)
		if (strcmp(r->dev[0].findings[i].kind, "idle") == 0) {
			/* As the writers show it: its durations written out. */
			gs_dur_sentence(r->dev[0].findings[i].text, false, f->text,
					sizeof(f->text));
			gs_dur_sentence(r->dev[0].findings[i].advice, false, f->advice,
					sizeof(f->advice));
			found = true;
		}
	assert_true(found);
	gs_report_destroy(r);
}

/* One gap [10, 90) (times in µs, so that the report's figures read well). */
#define US(x) ((int64_t)(x)*1000)

static void gap_trace(struct tb *b)
{
	tb_init(b);
	tb_launch(b, 1, 0, 0, US(10));
	tb_launch(b, 1, US(90), US(100), US(110));
}

static void test_advice_input(void **state)
{
	struct tb b;
	struct finding f;

	(void)state;
	gap_trace(&b);
	tb_range(&b, PID, 1, GS_RANGE_PYTHON, "transformers/pipelines/pt_utils.py(124): __next__",
		 US(5), US(90));
	tb_range(&b, PID, 1, GS_RANGE_PYTHON, "scipy/ndimage/_interpolation.py(700): zoom", US(20),
		 US(80));
	idle_finding(&b, &f);
	assert_non_null(strstr(f.text, "80.000 us host-bound: 60.000 us (75.0%) in "
				       "scipy/ndimage/_interpolation.py(700): zoom (python) inside "
				       "transformers/pipelines/pt_utils.py(124): __next__; "
				       "input_pipeline 100.0%"));
	assert_non_null(strstr(f.advice, "the GPU waited for the input pipeline"));
	assert_non_null(strstr(f.advice, "num_workers"));
	assert_null(strstr(f.advice, "CUDA Graph"));
	gs_trace_destroy(b.t);
}

static void test_advice_sync(void **state)
{
	struct tb b;
	struct finding f;

	(void)state;
	gap_trace(&b);
	tb_range(&b, PID, 1, GS_RANGE_CPU_OP, "aten::item", US(10), US(90));
	tb_range(&b, PID, 1, GS_RANGE_CPU_OP, "aten::_local_scalar_dense", US(12), US(88));
	idle_finding(&b, &f);
	assert_non_null(strstr(f.text, "76.000 us (95.0%) in aten::_local_scalar_dense (cpu_op); "
				       "sync 100.0%"));
	assert_non_null(strstr(f.advice,
			       "a synchronizing call (aten::_local_scalar_dense) held the "
			       "host: remove it or defer it"));
	gs_trace_destroy(b.t);
}

/* Four gaps of 10 µs between small kernels, the host in aten::add. */
static void test_advice_operator(void **state)
{
	struct tb b;
	struct finding f;

	(void)state;
	tb_init(&b);
	tb_launch(&b, 1, 0, 0, US(10));
	for (int i = 1; i < 5; i++) {
		tb_launch(&b, 1, US(20 * i), US(20 * i), US(20 * i + 10));
		tb_range(&b, PID, 1, GS_RANGE_CPU_OP, "aten::add", US(20 * i - 10) + 2,
			 US(20 * i) + 2);
	}
	idle_finding(&b, &f);
	assert_non_null(strstr(f.text, "40.000 us host-bound: 39.992 us (100.0%) in aten::add "
				       "(cpu_op); operator 100.0%, outside any host range 0.0%"));
	assert_non_null(strstr(f.advice,
			       "the host spent 4 gaps in framework operators and Python "
			       "between kernels (mostly aten::add): capture the step in a CUDA "
			       "Graph or use torch.compile to cut the per-op overhead, or do "
			       "more per launch (larger batches)"));
	assert_null(strstr(f.advice, "check first"));
	gs_trace_destroy(b.t);
}

/* A wait nobody else in the process explains; a step annotation with
 * nothing finer; ranges that cover less than half of the host-bound time. */
static void test_advice_wait_other_sparse(void **state)
{
	struct tb b;
	struct finding f;

	(void)state;
	gap_trace(&b);
	tb_range(&b, PID, 1, GS_RANGE_PYTHON, "queue.py(171): get", US(10), US(90));
	idle_finding(&b, &f);
	assert_non_null(strstr(f.text, "in queue.py(171): get (python); wait 100.0%"));
	assert_non_null(strstr(f.advice, "the launching thread was waiting (queue.py(171): get) "
					 "for work this trace does not show"));
	gs_trace_destroy(b.t);

	gap_trace(&b);
	tb_range(&b, PID, 1, GS_RANGE_USER_ANNOTATION, "ProfilerStep#3", 0, US(110));
	idle_finding(&b, &f);
	assert_non_null(strstr(f.advice, "the host was inside ProfilerStep#3 (user_annotation) "
					 "with no finer host range recorded there"));
	gs_trace_destroy(b.t);

	gap_trace(&b);
	tb_range(&b, PID, 1, GS_RANGE_CPU_OP, "aten::add", US(10), US(40));
	idle_finding(&b, &f);
	assert_non_null(strstr(f.text, "30.000 us (37.5%) in aten::add (cpu_op); operator 37.5%, "
				       "outside any host range 62.5%"));
	assert_non_null(strstr(f.advice, "evidence: unknown; the launching thread's host ranges "
					 "cover less than half"));
	assert_null(strstr(f.advice, "CUDA Graph"));
	gs_trace_destroy(b.t);
}

/* One long gap (290 us) in operators: graph advice with the long-gap caveat. */
static void test_advice_operator_long(void **state)
{
	struct tb b;
	struct finding f;

	(void)state;
	tb_init(&b);
	tb_launch(&b, 1, 0, 0, US(10));
	tb_launch(&b, 1, US(300), US(310), US(320));
	tb_range(&b, PID, 1, GS_RANGE_CPU_OP, "aten::nonzero", US(10), US(300));
	idle_finding(&b, &f);
	assert_non_null(strstr(f.advice, "the host spent 1 gaps in framework operators and Python "
					 "between kernels (mostly aten::nonzero)"));
	assert_non_null(strstr(f.advice, "; most of it is in gaps over 100.000 us: check first "
					 "that it is dispatch overhead, not host computation"));
	gs_trace_destroy(b.t);
}

/* No host ranges and no CUDA call in the gap: unknown, no graph advice. */
static void test_advice_no_ranges(void **state)
{
	struct tb b;
	struct finding f;

	(void)state;
	gap_trace(&b);
	idle_finding(&b, &f);
	assert_non_null(strstr(f.text, "80.000 us host-bound, 10.000 us launch latency"));
	assert_non_null(strstr(f.advice, "the trace does not show what the host was doing in these "
					 "gaps (evidence: unknown; no host ranges recorded"));
	assert_non_null(strstr(f.advice, "with_stack=True"));
	assert_null(strstr(f.advice, "CUDA Graph"));
	assert_null(strstr(f.advice, "fuse"));
	gs_trace_destroy(b.t);
}

/* ---- real traces (--shared) ---------------------------------------------- */

static void check_shared(void **state)
{
	const char *path = *state;
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;
	uint32_t *ids = NULL;
	size_t n_ids = 0, n_ranges;

	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_OK);
	gs_trace_ranges(t, &n_ranges);
	assert_int_equal(gs_trace_op_devices(t, &ids, &n_ids), GS_OK);
	for (size_t d = 0; d < n_ids; d++) {
		struct gs_breakdown r;
		int64_t sum = 0;

		assert_int_equal(gs_breakdown_compute(t, ids[d], NULL, &r), GS_OK);
		for (size_t i = 0; i < r.host_ranges.n_ranges; i++)
			sum += r.host_ranges.ranges[i].ns;
		assert_int_equal(sum + r.host_ranges.outside_ns, r.host_bound_ns);
		assert_true(r.host_ranges.outside_ns >= 0);
		assert_true(r.host_ranges.forwarded_ns <= sum);
		if (n_ranges && r.host_bound_ns > 0)
			assert_true(r.host_ranges.recorded);
		printf("  %s device %u: host-bound %lld ns, %zu ranges, outside %lld ns\n",
		       strrchr(path, '/') + 1, ids[d], (long long)r.host_bound_ns,
		       r.host_ranges.n_ranges, (long long)r.host_ranges.outside_ns);
		gs_breakdown_fini(&r);
	}
	free(ids);
	gs_trace_destroy(t);
}

static int run_shared(void)
{
	glob_t g;
	struct CMUnitTest *tests;
	size_t n = 0;
	int rc;

	if (glob(GS_SHARED_DATA "/kineto/*/*.json.gz", 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		printf("skipped: ../shared/data absent\n");
		return 77;
	}
	glob(GS_SHARED_DATA "/nsys/*/*.sqlite", GLOB_APPEND, NULL, &g);
	tests = calloc(g.gl_pathc, sizeof(*tests));
	assert_non_null(tests);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		tests[n].name = g.gl_pathv[i];
		tests[n].test_func = check_shared;
		tests[n].initial_state = g.gl_pathv[i];
		n++;
	}
	rc = _cmocka_run_group_tests("hostattr_shared", tests, n, NULL, NULL);
	free(tests);
	globfree(&g);
	return rc;
}

/* ---- the index against a brute force ------------------------------------ */

/*
 * Random ranges on a few threads of two processes (nested, equal starts,
 * equal spans of different kinds, zero-length, overlapping without
 * nesting, GPU annotations to be left out), queried with random intervals
 * (overlapping each other, empty, on a thread without ranges). Each ns of
 * each interval is attributed by the rule of gpuscope/hostattr.h worked out
 * directly from the ranges, and the results must agree in every field,
 * through the index and through a fork of it.
 */
#define BF_T 96 /* the ranges lie in [0, BF_T) */
#define BF_TIDS 3

/* The names and what they read as (fixed here, not asked of the code). */
static const struct bf_name {
	const char *name;
	bool input, sync, wait;
} bf_names[] = {
	{"aten::mm", false, false, false},
	{"aten::item", false, true, false},
	{"threading.py(320): wait", false, false, true},
	{"queue.py(171): get", false, false, true},
	{"dataloader.py(630): __next__", true, false, false},
	{"resize", true, false, false},
	{"forward", false, false, false},
	{"backward", false, false, false},
};
#define BF_NAMES (sizeof(bf_names) / sizeof(bf_names[0]))

static uint64_t bf_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

struct bf {
	const struct gs_trace *t;
	const struct gs_range *r;
	size_t n;
	const struct bf_name *what; /* per range */
};

static bool bf_host(const struct gs_range *r)
{
	return r->end_ns > r->start_ns && r->kind != GS_RANGE_GPU_ANNOTATION;
}

/* Same span: NVTX outside user annotation outside other outside Python
 * outside cpu_op. */
static int bf_prio(unsigned kind)
{
	switch (kind) {
	case GS_RANGE_NVTX:
		return 0;
	case GS_RANGE_USER_ANNOTATION:
		return 1;
	case GS_RANGE_PYTHON:
		return 3;
	case GS_RANGE_CPU_OP:
		return 4;
	default:
		return 2;
	}
}

/* Whether range a is pushed before range b (same thread). */
static bool bf_before(const struct gs_range *r, size_t a, size_t b)
{
	if (r[a].start_ns != r[b].start_ns)
		return r[a].start_ns < r[b].start_ns;
	if (r[a].end_ns != r[b].end_ns)
		return r[a].end_ns > r[b].end_ns;
	if (bf_prio(r[a].kind) != bf_prio(r[b].kind))
		return bf_prio(r[a].kind) < bf_prio(r[b].kind);
	return a < b;
}

/* The range of (pid, tid) pushed last among those open at ns t and pushed
 * before `below` (SIZE_MAX: any); SIZE_MAX when none. */
static size_t bf_top(const struct bf *x, int64_t pid, int64_t tid, int64_t t, size_t below)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < x->n; i++) {
		const struct gs_range *q = &x->r[i];

		if (!bf_host(q) || q->pid != pid || q->tid != tid || q->start_ns > t ||
		    q->end_ns <= t)
			continue;
		if (below != SIZE_MAX && !bf_before(x->r, i, below))
			continue;
		if (best == SIZE_MAX || bf_before(x->r, best, i))
			best = i;
	}
	return best;
}

/* A range's flags and context: its own, or those of the range it was
 * pushed on (the one on top when it started). */
static void bf_frame(const struct bf *x, size_t i, bool *input, bool *sync, uint32_t *context)
{
	const struct gs_range *q = &x->r[i];
	size_t p = bf_top(x, q->pid, q->tid, q->start_ns, i);
	bool pin = false, psync = false;
	uint32_t pctx = GS_NO_STRING;

	if (p != SIZE_MAX)
		bf_frame(x, p, &pin, &psync, &pctx);
	*input = x->what[i].input || pin;
	*sync = x->what[i].sync || psync;
	*context = pctx != GS_NO_STRING ? pctx : x->what[i].input ? q->name : GS_NO_STRING;
}

/* What thread (pid, tid) does at ns t: the owner's name and kind, its
 * context and class; false outside every range. */
struct bf_tag {
	uint32_t name, context;
	uint8_t kind, cls;
	bool wait;
};

static bool bf_tag_at(const struct bf *x, int64_t pid, int64_t tid, int64_t t, struct bf_tag *g)
{
	size_t i = bf_top(x, pid, tid, t, SIZE_MAX);
	bool input, sync;

	if (i == SIZE_MAX)
		return false;
	bf_frame(x, i, &input, &sync, &g->context);
	g->name = x->r[i].name;
	g->kind = x->r[i].kind;
	g->wait = x->what[i].wait;
	if (g->wait)
		g->cls = input ? GS_HOST_INPUT : GS_HOST_WAIT;
	else if (sync)
		g->cls = GS_HOST_SYNC;
	else if (input)
		g->cls = GS_HOST_INPUT;
	else if (g->kind == GS_RANGE_CPU_OP || g->kind == GS_RANGE_PYTHON)
		g->cls = GS_HOST_OPERATOR;
	else
		g->cls = GS_HOST_OTHER;
	return true;
}

static bool bf_same(const struct bf_tag *a, const struct bf_tag *b)
{
	return a->name == b->name && a->kind == b->kind && a->context == b->context &&
	       a->cls == b->cls;
}

/* The threads of a process that hold host ranges, in tid order. */
static size_t bf_threads(const struct bf *x, int64_t pid, int64_t *tids)
{
	size_t n = 0;

	for (int64_t tid = 0; tid <= BF_TIDS + 1; tid++)
		for (size_t i = 0; i < x->n; i++)
			if (bf_host(&x->r[i]) && x->r[i].pid == pid && x->r[i].tid == tid) {
				tids[n++] = tid;
				break;
			}
	return n;
}

struct bf_acc {
	struct gs_host_range_time h;
	size_t last_gap;
};

static void bf_credit(struct bf_acc *acc, size_t *n_acc, struct gs_host_ranges *out,
		      const struct bf_tag *g, size_t gap, bool forwarded)
{
	struct bf_acc *a = NULL;

	for (size_t k = 0; k < *n_acc && !a; k++)
		if (acc[k].h.name == g->name && acc[k].h.kind == g->kind)
			a = &acc[k];
	if (!a) {
		a = &acc[(*n_acc)++];
		*a = (struct bf_acc){.h = {.name = g->name,
					   .context = g->context,
					   .kind = g->kind,
					   .cls = g->cls},
				     .last_gap = SIZE_MAX};
	}
	if (a->h.context == GS_NO_STRING)
		a->h.context = g->context;
	a->h.ns++;
	if (forwarded) {
		a->h.forwarded_ns++;
		out->forwarded_ns++;
	}
	if (a->last_gap != gap) {
		a->last_gap = gap;
		a->h.gaps++;
	}
	out->kind_ns[g->kind]++;
	out->class_ns[g->cls]++;
}

static const struct gs_trace *bf_rank_trace;

static int bf_cmp_rank(const void *pa, const void *pb)
{
	const struct gs_host_range_time *a = pa, *b = pb;
	int c;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	if (a->gaps != b->gaps)
		return a->gaps > b->gaps ? -1 : 1;
	c = strcmp(gs_trace_string(bf_rank_trace, a->name),
		   gs_trace_string(bf_rank_trace, b->name));
	if (c)
		return c;
	return a->kind < b->kind ? -1 : a->kind > b->kind;
}

/* The busy thread a wait at ns t of thread `self` goes to: of the other
 * threads' pieces (runs of one tag) at t that are not waits, the one that
 * started last; then the one that ends first; then the lower tid. */
static bool bf_busy_at(const struct bf *x, int64_t pid, int64_t t, struct bf_tag *won)
{
	int64_t tids[BF_TIDS + 2], best_s = 0, best_e = 0;
	size_t n = bf_threads(x, pid, tids);
	bool found = false;

	for (size_t k = 0; k < n; k++) {
		struct bf_tag g, h;
		int64_t s = t, e = t + 1;

		if (!bf_tag_at(x, pid, tids[k], t, &g) || g.wait)
			continue;
		while (bf_tag_at(x, pid, tids[k], s - 1, &h) && bf_same(&g, &h))
			s--;
		while (bf_tag_at(x, pid, tids[k], e, &h) && bf_same(&g, &h))
			e++;
		if (!found || s > best_s || (s == best_s && e < best_e)) {
			found = true;
			best_s = s;
			best_e = e;
			*won = g;
		}
	}
	return found;
}

static void bf_compute(const struct bf *x, const struct gs_host_interval *iv, size_t n,
		       struct gs_host_ranges *out, struct bf_acc *acc)
{
	size_t n_acc = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < x->n; i++)
		out->recorded |= bf_host(&x->r[i]);
	for (size_t i = 0; i < n; i++) {
		int64_t tids[BF_TIDS + 2];

		if (iv[i].end_ns <= iv[i].start_ns)
			continue;
		out->intervals++;
		if (iv[i].end_ns - iv[i].start_ns <= GS_HOST_SHORT_GAP_NS) {
			out->short_intervals++;
			out->short_ns += iv[i].end_ns - iv[i].start_ns;
		}
		for (int64_t t = iv[i].start_ns; t < iv[i].end_ns; t++) {
			struct bf_tag g = {0}, b = {0};

			if (!bf_tag_at(x, iv[i].pid, iv[i].tid, t, &g))
				out->outside_ns++;
			else if (g.wait && bf_threads(x, iv[i].pid, tids) >= 2 &&
				 bf_busy_at(x, iv[i].pid, t, &b))
				bf_credit(acc, &n_acc, out, &b, i, true);
			else
				bf_credit(acc, &n_acc, out, &g, i, false);
		}
	}
	out->n_ranges = n_acc;
	out->ranges = malloc((n_acc ? n_acc : 1) * sizeof(*out->ranges));
	assert_non_null(out->ranges);
	for (size_t k = 0; k < n_acc; k++)
		out->ranges[k] = acc[k].h;
	bf_rank_trace = x->t;
	qsort(out->ranges, n_acc, sizeof(*out->ranges), bf_cmp_rank);
}

static void bf_check(const struct gs_host_ranges *want, const struct gs_host_ranges *got)
{
	assert_int_equal(got->recorded, want->recorded);
	assert_int_equal(got->n_ranges, want->n_ranges);
	for (size_t k = 0; k < want->n_ranges; k++) {
		const struct gs_host_range_time *a = &want->ranges[k], *b = &got->ranges[k];

		assert_int_equal(b->name, a->name);
		assert_int_equal(b->kind, a->kind);
		assert_int_equal(b->context, a->context);
		assert_int_equal(b->cls, a->cls);
		assert_int_equal(b->ns, a->ns);
		assert_int_equal(b->forwarded_ns, a->forwarded_ns);
		assert_int_equal(b->gaps, a->gaps);
	}
	assert_int_equal(got->outside_ns, want->outside_ns);
	assert_int_equal(got->forwarded_ns, want->forwarded_ns);
	for (unsigned k = 0; k < GS_RANGE_KIND_COUNT; k++)
		assert_int_equal(got->kind_ns[k], want->kind_ns[k]);
	for (unsigned c = 0; c < GS_HOST_CLASS_COUNT; c++)
		assert_int_equal(got->class_ns[c], want->class_ns[c]);
	assert_int_equal(got->intervals, want->intervals);
	assert_int_equal(got->short_intervals, want->short_intervals);
	assert_int_equal(got->short_ns, want->short_ns);
}

/* One random trace of seed s, its ranges added out of start order; one in
 * eight with a run of more than 16 ranges of one start on one thread. */
static void bf_trace(struct tb *b, uint64_t *s)
{
	static const uint8_t kinds[] = {GS_RANGE_NVTX,   GS_RANGE_CPU_OP, GS_RANGE_USER_ANNOTATION,
					GS_RANGE_PYTHON, GS_RANGE_OTHER,  GS_RANGE_GPU_ANNOTATION};
	size_t n = 10 + bf_rand(s) % 30;
	int64_t prev_s = 0, prev_e = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t pid = PID + (int64_t)(bf_rand(s) % 4 == 0);
		int64_t tid = 1 + (int64_t)(bf_rand(s) % BF_TIDS);
		uint8_t kind = kinds[bf_rand(s) % 6 == 5 ? 5 : bf_rand(s) % 5];
		const char *name = bf_names[bf_rand(s) % BF_NAMES].name;
		int64_t st, en;

		switch (bf_rand(s) % 6) {
		case 0: /* the previous span again, or its start */
			st = prev_s;
			en = bf_rand(s) % 2 ? prev_e : prev_s + (int64_t)(bf_rand(s) % 30);
			break;
		case 1: /* zero length */
			st = (int64_t)(bf_rand(s) % BF_T);
			en = st;
			break;
		case 2: /* long */
			st = (int64_t)(bf_rand(s) % (BF_T / 2));
			en = st + BF_T / 3 + (int64_t)(bf_rand(s) % (BF_T / 2));
			break;
		default:
			st = (int64_t)(bf_rand(s) % BF_T);
			en = st + 1 + (int64_t)(bf_rand(s) % 12);
			break;
		}
		if (en > BF_T)
			en = BF_T;
		if (kind == GS_RANGE_GPU_ANNOTATION) {
			struct gs_range r = {.start_ns = st,
					     .end_ns = en,
					     .pid = pid,
					     .tid = tid,
					     .name = tb_str(b, name),
					     .domain = GS_NO_STRING,
					     .kind = kind,
					     .stream = b->stream};

			assert_int_equal(b->k->range(b->k, &r), GS_OK);
		} else {
			tb_range(b, pid, tid, kind, name, st, en);
		}
		prev_s = st;
		prev_e = en;
	}
	if (bf_rand(s) % 8 == 0) {
		int64_t st = (int64_t)(bf_rand(s) % (BF_T / 2));

		for (size_t i = 0, k = 17 + bf_rand(s) % 8; i < k; i++)
			tb_range(b, PID, 1, kinds[bf_rand(s) % 5],
				 bf_names[bf_rand(s) % BF_NAMES].name, st,
				 st + (int64_t)(bf_rand(s) % 40));
	}
}

static void test_brute_force(void **state)
{
	uint64_t seed = 12345;
	/* rounds that forwarded a wait, credited an input context, a sync */
	int forwarded = 0, context = 0, sync = 0;

	(void)state;
	for (int round = 0; round < 300; round++) {
		struct tb b;
		struct bf x;
		struct gs_host_index *ix = NULL, *fork = NULL;
		struct gs_host_interval iv[24];
		struct gs_host_ranges want, got;
		struct bf_acc acc[BF_NAMES * GS_RANGE_KIND_COUNT];
		struct bf_name *what;
		size_t n_iv = 1 + bf_rand(&seed) % 24;

		tb_init(&b);
		bf_trace(&b, &seed);
		assert_int_equal(gs_trace_finish(b.t), GS_OK);
		x.t = b.t;
		x.r = gs_trace_ranges(b.t, &x.n);
		what = calloc(x.n ? x.n : 1, sizeof(*what));
		assert_non_null(what);
		for (size_t i = 0; i < x.n; i++)
			for (size_t k = 0; k < BF_NAMES; k++)
				if (strcmp(gs_trace_string(b.t, x.r[i].name), bf_names[k].name) ==
				    0)
					what[i] = bf_names[k];
		x.what = what;
		for (size_t i = 0; i < n_iv; i++) {
			int64_t a = (int64_t)(bf_rand(&seed) % (BF_T + 8)) - 4;
			int64_t len = (int64_t)(bf_rand(&seed) % 40) - 3;

			iv[i] = (struct gs_host_interval){
				.start_ns = a,
				.end_ns = a + len,
				.pid = PID + (int64_t)(bf_rand(&seed) % 5 == 0),
				.tid = 1 + (int64_t)(bf_rand(&seed) % (BF_TIDS + 1))};
		}
		bf_compute(&x, iv, n_iv, &want, acc);
		forwarded += want.forwarded_ns > 0;
		sync += want.class_ns[GS_HOST_SYNC] > 0;
		for (size_t k = 0; k < want.n_ranges; k++)
			if (want.ranges[k].context != GS_NO_STRING) {
				context++;
				break;
			}
		assert_int_equal(gs_host_index_build(b.t, &ix), GS_OK);
		assert_int_equal(gs_host_ranges_compute(ix, iv, n_iv, &got), GS_OK);
		bf_check(&want, &got);
		gs_host_ranges_fini(&got);
		/* again: the scratch is back as it was */
		assert_int_equal(gs_host_ranges_compute(ix, iv, n_iv, &got), GS_OK);
		bf_check(&want, &got);
		gs_host_ranges_fini(&got);
		assert_int_equal(gs_host_index_share(ix), GS_OK);
		assert_int_equal(gs_host_index_fork(ix, &fork), GS_OK);
		assert_int_equal(gs_host_ranges_compute(fork, iv, n_iv, &got), GS_OK);
		bf_check(&want, &got);
		gs_host_ranges_fini(&got);
		gs_host_index_destroy(fork);
		gs_host_index_destroy(ix);
		gs_host_ranges_fini(&want);
		free(what);
		gs_trace_destroy(b.t);
	}
	/* the cases above all came up, often */
	assert_true(forwarded > 30 && context > 30 && sync > 30);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_ties_and_gaps),
		cmocka_unit_test(test_wait_forwarding),
		cmocka_unit_test(test_wait_names),
		cmocka_unit_test(test_no_ranges),
		cmocka_unit_test(test_gscope_nvtx),
		cmocka_unit_test(test_advice_input),
		cmocka_unit_test(test_advice_sync),
		cmocka_unit_test(test_advice_operator),
		cmocka_unit_test(test_advice_no_ranges),
		cmocka_unit_test(test_advice_wait_other_sparse),
		cmocka_unit_test(test_advice_operator_long),
		cmocka_unit_test(test_brute_force),
	};

	if (argc > 1 && strcmp(argv[1], "--shared") == 0)
		return run_shared();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
