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
	};

	if (argc > 1 && strcmp(argv[1], "--shared") == 0)
		return run_shared();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
