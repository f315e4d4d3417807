/* SPDX-License-Identifier: MIT */
/*
 * gs_breakdown_compute (docs/design.md): Example 5's rows as timelines,
 * hand-written Kineto traces (tests/data/analyze/) with numbers worked out
 * by hand, a property test against a per-nanosecond rasterisation on
 * thousands of random traces, and (with --shared) every real Kineto trace
 * in ../shared/data: totals sum to the window and kernel time equals an
 * independent union of kernel intervals.
 *
 * Hand-written traces are in µs; the model is in ns, hence US().
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#include "../../analyzer/analyses/analyzer_priv.h"

#define US(x) ((int64_t)(x)*1000)
#define K GS_CAT_KERNEL
#define C GS_CAT_COPY
#define S GS_CAT_SYNC
#define I GS_CAT_IDLE

/* ---- helpers ------------------------------------------------------------- */

static struct gs_trace *load(const char *name)
{
	char path[1024];
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;

	snprintf(path, sizeof(path), "%s/analyze/%s", GS_TEST_DATA, name);
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_OK);
	assert_int_equal(fmt, GS_INPUT_KINETO);
	return t;
}

static struct gs_window window(int64_t a, int64_t b)
{
	struct gs_window w = {.set = true, .start_ns = a, .end_ns = b};

	return w;
}

/* Structural invariants every breakdown must hold. */
static void check_invariants(const struct gs_trace *t, const struct gs_breakdown *b)
{
	int64_t sum = 0, per[GS_CAT_COUNT] = {0}, credited = 0;

	assert_int_equal(b->window_ns, b->window_end - b->window_start);
	for (size_t i = 0; i < b->n_segments; i++) {
		const struct gs_segment *s = &b->segments[i];

		assert_true(s->start_ns < s->end_ns);
		assert_true(s->category < GS_CAT_COUNT);
		if (i == 0)
			assert_int_equal(s->start_ns, b->window_start);
		else {
			assert_int_equal(s->start_ns, b->segments[i - 1].end_ns);
			assert_int_not_equal(s->category, b->segments[i - 1].category);
		}
		per[s->category] += s->end_ns - s->start_ns;
	}
	if (b->n_segments)
		assert_int_equal(b->segments[b->n_segments - 1].end_ns, b->window_end);
	else
		assert_int_equal(b->window_ns, 0);
	for (unsigned c = 0; c < GS_CAT_COUNT; c++) {
		assert_int_equal(per[c], b->total_ns[c]);
		assert_true(b->total_ns[c] >= 0);
		sum += b->total_ns[c];
		assert_true(b->total_ns[c] <= b->total_ns[b->dominant]);
	}
	assert_int_equal(sum, b->window_ns);
	assert_int_equal(b->copy_total_ns - b->copy_hidden_ns, b->total_ns[GS_CAT_COPY]);
	assert_true(b->kernel_concurrency_ns <= b->total_ns[GS_CAT_KERNEL]);
	assert_true(b->host_bound_ns >= 0 && b->launch_latency_ns >= 0 && b->unattributed_ns >= 0);
	assert_int_equal(b->host_bound_ns + b->launch_latency_ns + b->unattributed_ns,
			 b->total_ns[GS_CAT_IDLE]);
	for (size_t i = 0; i < b->n_top_host_calls; i++) {
		assert_true(b->top_host_calls[i].ns > 0);
		assert_true(b->top_host_calls[i].count > 0);
		if (i)
			assert_true(b->top_host_calls[i].ns <= b->top_host_calls[i - 1].ns);
		credited += b->top_host_calls[i].ns;
	}
	assert_true(credited <= b->host_bound_ns);
	(void)t;
}

struct seg {
	int64_t start, end;
	unsigned cat;
};

static void check_segments(const struct gs_breakdown *b, const struct seg *want, size_t n)
{
	assert_int_equal(b->n_segments, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(b->segments[i].start_ns, want[i].start);
		assert_int_equal(b->segments[i].end_ns, want[i].end);
		assert_int_equal(b->segments[i].category, want[i].cat);
	}
}

static void check_totals(const struct gs_breakdown *b, int64_t k, int64_t c, int64_t s, int64_t i)
{
	assert_int_equal(b->total_ns[GS_CAT_KERNEL], k);
	assert_int_equal(b->total_ns[GS_CAT_COPY], c);
	assert_int_equal(b->total_ns[GS_CAT_SYNC], s);
	assert_int_equal(b->total_ns[GS_CAT_IDLE], i);
}

static void check_idle(const struct gs_breakdown *b, int64_t hb, int64_t ll, int64_t un)
{
	assert_int_equal(b->host_bound_ns, hb);
	assert_int_equal(b->launch_latency_ns, ll);
	assert_int_equal(b->unattributed_ns, un);
}

static void check_call(const struct gs_trace *t, const struct gs_breakdown *b, size_t i,
		       const char *name, int64_t ns, uint64_t count)
{
	assert_true(i < b->n_top_host_calls);
	assert_string_equal(gs_trace_string(t, b->top_host_calls[i].name), name);
	assert_int_equal(b->top_host_calls[i].ns, ns);
	assert_int_equal(b->top_host_calls[i].count, count);
}

/* ---- building traces through the sink ----------------------------------- */

struct tb {
	struct gs_trace *t;
	struct gs_sink *k;
};

static void tb_init(struct tb *b)
{
	assert_int_equal(gs_trace_create(&b->t), GS_OK);
	b->k = gs_trace_borrow_sink(b->t);
}

static uint32_t tb_str(struct tb *b, const char *s)
{
	uint32_t id = GS_NO_STRING;

	assert_int_equal(b->k->intern(b->k, s, strlen(s), &id), GS_OK);
	return id;
}

static uint32_t tb_stream(struct tb *b, uint32_t device, uint64_t id)
{
	struct gs_stream st = {.pid = 0, .device = device, .context = 1, .stream_id = id};
	uint32_t index = GS_NO_INDEX;

	assert_int_equal(b->k->stream(b->k, &st, &index), GS_OK);
	return index;
}

static void tb_op(struct tb *b, const struct gs_op *o)
{
	assert_int_equal(b->k->op(b->k, o, NULL), GS_OK);
}

static void tb_kernel(struct tb *b, uint32_t s, int64_t start, int64_t end, uint64_t corr)
{
	struct gs_op o = {.start_ns = start,
			  .end_ns = end,
			  .correlation = corr,
			  .name = tb_str(b, "kernel"),
			  .stream = s,
			  .kind = GS_OP_KERNEL};

	tb_op(b, &o);
}

static void tb_copy(struct tb *b, uint32_t s, int64_t start, int64_t end, uint64_t corr,
		    uint8_t src, uint8_t flags)
{
	struct gs_op o = {.start_ns = start,
			  .end_ns = end,
			  .correlation = corr,
			  .name = tb_str(b, "Memcpy HtoD"),
			  .stream = s,
			  .kind = GS_OP_MEMCPY,
			  .copy_kind = GS_COPY_HTOD,
			  .src_mem = src,
			  .dst_mem = GS_MEM_DEVICE,
			  .flags = flags};

	tb_op(b, &o);
}

static void tb_api(struct tb *b, int64_t tid, int64_t start, int64_t end, uint64_t corr,
		   const char *name)
{
	struct gs_api_call c = {.start_ns = start,
				.end_ns = end,
				.pid = 100,
				.tid = tid,
				.correlation = corr,
				.name = tb_str(b, name)};

	assert_int_equal(b->k->api_call(b->k, &c), GS_OK);
}

static void tb_sync(struct tb *b, uint8_t kind, uint32_t device, int64_t start, int64_t end)
{
	struct gs_sync y = {.start_ns = start,
			    .end_ns = end,
			    .pid = 100,
			    .tid = 1,
			    .stream = GS_NO_INDEX,
			    .wait_on_stream = GS_NO_INDEX,
			    .device = device,
			    .kind = kind};

	assert_int_equal(b->k->sync(b->k, &y), GS_OK);
}

/* ---- names and helpers -------------------------------------------------- */

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(gs_category_name(GS_CAT_KERNEL), "kernel");
	assert_string_equal(gs_category_name(GS_CAT_COPY), "copy");
	assert_string_equal(gs_category_name(GS_CAT_SYNC), "sync");
	assert_string_equal(gs_category_name(GS_CAT_IDLE), "idle");
	assert_string_equal(gs_category_name(4), "?");
}

/* ---- Example 5 (design.md): the dominant category ----------------------- */

/*
 * One timeline with the four totals: k1 = k/2 of kernel, then the exposed
 * tail of a stream synchronize that started under the kernel (s), idle (i),
 * a copy (c), then the rest of the kernel time.
 */
static void example5_row(int64_t k, int64_t c, int64_t s, int64_t i, unsigned dominant)
{
	struct tb b;
	struct gs_breakdown r;
	int64_t k1 = k / 2, t1 = k1 + s, t2 = t1 + i, t3 = t2 + c, t4 = t3 + (k - k1);
	uint32_t st;

	tb_init(&b);
	st = tb_stream(&b, 0, 7);
	tb_kernel(&b, st, 0, k1, 0);
	tb_sync(&b, GS_SYNC_STREAM, 0, k1 / 2, t1);
	tb_copy(&b, st, t2, t3, 0, GS_MEM_PINNED, GS_OPF_ASYNC);
	tb_kernel(&b, st, t3, t4, 0);
	assert_int_equal(gs_trace_finish(b.t), GS_OK);

	assert_int_equal(gs_breakdown_compute(b.t, 0, NULL, &r), GS_OK);
	check_invariants(b.t, &r);
	assert_int_equal(r.window_ns, k + c + s + i);
	check_totals(&r, k, c, s, i);
	{
		const struct seg want[] = {{0, k1, K},
					   {k1, t1, S},
					   {t1, t2, I},
					   {t2, t3, C},
					   {t3, t4, K}};
		check_segments(&r, want, 5);
	}
	assert_int_equal(r.dominant, dominant);
	check_idle(&r, 0, 0, i); /* no launch calls recorded */
	gs_breakdown_fini(&r);
	gs_trace_destroy(b.t);
}

static void test_example5(void **state)
{
	(void)state;
	example5_row(18, 2, 1, 1, GS_CAT_KERNEL); /* total 22 */
	example5_row(6, 2, 12, 1, GS_CAT_SYNC);
	example5_row(5, 14, 2, 1, GS_CAT_COPY);
}

/* Ties go to the order kernel, copy, sync, idle. */
static void test_dominant_ties(void **state)
{
	struct tb b;
	struct gs_breakdown r;
	uint32_t st;

	(void)state;
	tb_init(&b);
	st = tb_stream(&b, 0, 7);
	tb_copy(&b, st, 0, 10, 0, GS_MEM_PINNED, GS_OPF_ASYNC);
	tb_kernel(&b, st, 20, 30, 0); /* copy 10, idle 10, kernel 10 */
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	assert_int_equal(gs_breakdown_compute(b.t, 0, NULL, &r), GS_OK);
	check_totals(&r, 10, 10, 0, 10);
	assert_int_equal(r.dominant, GS_CAT_KERNEL);
	gs_breakdown_fini(&r);
	gs_trace_destroy(b.t);
}

/* ---- hand-written Kineto traces ------------------------------------------ */

/*
 * serial_loop.json, per batch at base B (0, 100, 200 µs): H2D [B+10, B+20),
 * kernel [B+20, B+60), D2H [B+60, B+70); cudaMemcpyAsync launches at B and
 * B+10, cudaLaunchKernel at B+6; a stream sync [B+15, B+71) (its call
 * [B+15, B+72)). Window [10, 270).
 */
static void test_serial_loop(void **state)
{
	struct gs_trace *t = load("serial_loop.json");
	struct gs_breakdown r;
	const struct seg want[] = {
		{US(10), US(20), C},   {US(20), US(60), K},   {US(60), US(70), C},
		{US(70), US(71), S},   {US(71), US(110), I},  {US(110), US(120), C},
		{US(120), US(160), K}, {US(160), US(170), C}, {US(170), US(171), S},
		{US(171), US(210), I}, {US(210), US(220), C}, {US(220), US(260), K},
		{US(260), US(270), C},
	};

	(void)state;
	assert_int_equal(gs_breakdown_compute(t, 0, NULL, &r), GS_OK);
	check_invariants(t, &r);
	assert_int_equal(r.window_start, US(10));
	assert_int_equal(r.window_end, US(270));
	check_segments(&r, want, sizeof(want) / sizeof(want[0]));
	/* The last sync [215, 271) reaches past the window: clipped. */
	check_totals(&r, US(120), US(60), US(2), US(78));
	assert_int_equal(r.dominant, GS_CAT_KERNEL);
	assert_int_equal(r.copy_total_ns, US(60));
	assert_int_equal(r.copy_hidden_ns, 0);
	assert_int_equal(r.kernel_concurrency_ns, 0);
	/* Gap [71, 110): the next H2D was asked for at 100. host_bound 29,
	 * launch_latency 10, twice; the sync call's tail [71, 72) is credited. */
	check_idle(&r, US(58), US(20), 0);
	assert_int_equal(r.n_top_host_calls, 1);
	check_call(t, &r, 0, "cudaStreamSynchronize", US(2), 2);
	gs_breakdown_fini(&r);
	gs_trace_destroy(t);
}

/*
 * serial_pageable.json: synchronous cudaMemcpy from/to pageable memory.
 * Per batch B: H2D call [B, B+22) with the copy [B+10, B+20); launch
 * [B+23, B+26), kernel [B+30, B+70); D2H call [B+27, B+82) with the copy
 * [B+70, B+80); batch 0 also calls cudaFree [85, 95). Window [10, 280).
 * The host waits in the copy calls: sync [B+20, B+22), [B+27, B+30),
 * [B+80, B+82) and, before the next batch's H2D, [B+100, B+110).
 */
static void test_serial_pageable(void **state)
{
	struct gs_trace *t = load("serial_pageable.json");
	struct gs_breakdown r;
	const struct seg want[] = {
		{US(10), US(20), C},   {US(20), US(22), S},   {US(22), US(27), I},
		{US(27), US(30), S},   {US(30), US(70), K},   {US(70), US(80), C},
		{US(80), US(82), S},   {US(82), US(100), I},  {US(100), US(110), S},
		{US(110), US(120), C}, {US(120), US(122), S}, {US(122), US(127), I},
		{US(127), US(130), S}, {US(130), US(170), K}, {US(170), US(180), C},
		{US(180), US(182), S}, {US(182), US(200), I}, {US(200), US(210), S},
		{US(210), US(220), C}, {US(220), US(222), S}, {US(222), US(227), I},
		{US(227), US(230), S}, {US(230), US(270), K}, {US(270), US(280), C},
	};

	(void)state;
	assert_int_equal(gs_breakdown_compute(t, 0, NULL, &r), GS_OK);
	check_invariants(t, &r);
	check_segments(&r, want, sizeof(want) / sizeof(want[0]));
	check_totals(&r, US(120), US(60), US(39), US(51));
	/* [B+22, B+27): the kernel at B+30 was asked for at B+23: 1 host_bound,
	 * 4 launch_latency. [B+82, B+100): the next H2D call starts at B+100:
	 * all host_bound, 10 of it inside cudaFree in batch 0. */
	check_idle(&r, US(39), US(12), 0);
	assert_int_equal(r.n_top_host_calls, 1);
	check_call(t, &r, 0, "cudaFree", US(10), 1);
	gs_breakdown_fini(&r);
	gs_trace_destroy(t);
}

/*
 * sync_then_launch.json: kernel [10, 100); cudaStreamSynchronize call
 * [6, 104), its sync [6, 103); cudaMalloc [106, 150) around cuMemAlloc_v2
 * [110, 140); cudaLaunchKernel [152, 160); kernel [170, 200). Another
 * thread calls cudaEventQuery [120, 125): not the launching thread.
 */
static void test_sync_then_launch(void **state)
{
	struct gs_trace *t = load("sync_then_launch.json");
	struct gs_breakdown r;
	const struct seg want[] = {
		{US(10), US(100), K},
		{US(100), US(103), S},
		{US(103), US(170), I},
		{US(170), US(200), K},
	};

	(void)state;
	assert_int_equal(gs_breakdown_compute(t, 0, NULL, &r), GS_OK);
	check_invariants(t, &r);
	check_segments(&r, want, 4);
	check_totals(&r, US(120), 0, US(3), US(67));
	check_idle(&r, US(49), US(18), 0); /* [103, 152) and [152, 170) */
	assert_int_equal(r.n_top_host_calls, 2);
	check_call(t, &r, 0, "cudaMalloc", US(44),
		   1); /* the driver call inside is not counted again */
	check_call(t, &r, 1, "cudaStreamSynchronize", US(1), 1);
	gs_breakdown_fini(&r);
	gs_trace_destroy(t);
}

/*
 * overlap.json, device 0: k1 [0, 50) and k3 [60, 80) on stream 7, k2
 * [30, 70) on stream 8, a pinned async H2D [40, 90) and a memset [95, 100)
 * on stream 9 (cudaMemsetAsync at 85). Device 1: a kernel [20, 40) and a
 * peer copy [25, 45) (inDevice 1).
 */
static void test_overlap(void **state)
{
	struct gs_trace *t = load("overlap.json");
	struct gs_breakdown r;
	uint32_t *ids;
	size_t n;
	const struct seg want0[] = {{0, US(80), K},
				    {US(80), US(90), C},
				    {US(90), US(95), I},
				    {US(95), US(100), C}};
	const struct seg want1[] = {{US(20), US(40), K}, {US(40), US(45), C}};

	(void)state;
	assert_int_equal(gs_trace_op_devices(t, &ids, &n), GS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 1);
	free(ids);

	assert_int_equal(gs_breakdown_compute(t, 0, NULL, &r), GS_OK);
	check_invariants(t, &r);
	check_segments(&r, want0, 4);
	check_totals(&r, US(80), US(15), 0, US(5));
	assert_int_equal(r.copy_total_ns, US(55));
	assert_int_equal(r.copy_hidden_ns, US(40));
	assert_int_equal(r.kernel_concurrency_ns, US(30)); /* [30, 50) and [60, 70) */
	/* The memset was asked for at 85, before the gap: launch latency. */
	check_idle(&r, 0, US(5), 0);
	assert_int_equal(r.n_top_host_calls, 0);
	gs_breakdown_fini(&r);

	/* The peer copy counts for its stream's device (1) only. */
	assert_int_equal(gs_breakdown_compute(t, 1, NULL, &r), GS_OK);
	check_invariants(t, &r);
	assert_int_equal(r.device, 1);
	check_segments(&r, want1, 2);
	check_totals(&r, US(20), US(5), 0, 0);
	assert_int_equal(r.copy_total_ns, US(20));
	assert_int_equal(r.copy_hidden_ns, US(15));
	gs_breakdown_fini(&r);
	gs_trace_destroy(t);
}

static void test_window(void **state)
{
	struct gs_trace *t = load("serial_loop.json");
	struct gs_breakdown r;
	struct gs_window w;

	(void)state;
	/* [50, 150): kernel 10 + 30, copy 10 + 10, sync 1, idle 39. */
	w = window(US(50), US(150));
	assert_int_equal(gs_breakdown_compute(t, 0, &w, &r), GS_OK);
	check_invariants(t, &r);
	assert_int_equal(r.window_start, US(50));
	assert_int_equal(r.window_ns, US(100));
	{
		const struct seg want[] = {{US(50), US(60), K},   {US(60), US(70), C},
					   {US(70), US(71), S},   {US(71), US(110), I},
					   {US(110), US(120), C}, {US(120), US(150), K}};
		check_segments(&r, want, 6);
	}
	check_totals(&r, US(40), US(20), US(1), US(39));
	check_idle(&r, US(29), US(10), 0);
	gs_breakdown_fini(&r);

	/* [75, 105): all idle, cut by the window end; the H2D asked for at
	 * 100 starts at 110. */
	w = window(US(75), US(105));
	assert_int_equal(gs_breakdown_compute(t, 0, &w, &r), GS_OK);
	check_invariants(t, &r);
	check_totals(&r, 0, 0, 0, US(30));
	check_idle(&r, US(25), US(5), 0);
	assert_int_equal(r.dominant, GS_CAT_IDLE);
	gs_breakdown_fini(&r);

	/* [0, 400): idle before the first op (asked at 0: launch latency 10),
	 * the last sync's tail [270, 271), then idle with no op after it. */
	w = window(0, US(400));
	assert_int_equal(gs_breakdown_compute(t, 0, &w, &r), GS_OK);
	check_invariants(t, &r);
	check_totals(&r, US(120), US(60), US(3), US(217));
	check_idle(&r, US(58), US(30), US(129));
	assert_int_equal(r.dominant, GS_CAT_IDLE);
	check_call(t, &r, 0, "cudaStreamSynchronize", US(2), 2);
	gs_breakdown_fini(&r);

	/* Empty and reversed windows. */
	w = window(US(50), US(50));
	assert_int_equal(gs_breakdown_compute(t, 0, &w, &r), GS_OK);
	check_invariants(t, &r);
	assert_int_equal(r.n_segments, 0);
	assert_int_equal(r.dominant, GS_CAT_IDLE);
	gs_breakdown_fini(&r);
	w = window(US(60), US(50));
	gs_error_clear();
	assert_int_equal(gs_breakdown_compute(t, 0, &w, &r), GS_ERR_INVALID);
	assert_true(gs_error_count() > 0);
	gs_error_clear();
	gs_breakdown_fini(&r);

	/* An unset window is the default. */
	w.set = false;
	assert_int_equal(gs_breakdown_compute(t, 0, &w, &r), GS_OK);
	assert_int_equal(r.window_start, US(10));
	assert_int_equal(r.window_end, US(270));
	gs_breakdown_fini(&r);
	gs_trace_destroy(t);
}

static void test_device_without_ops(void **state)
{
	struct gs_trace *t = load("overlap.json");
	struct gs_breakdown r;
	struct gs_window w = window(0, US(100));

	(void)state;
	assert_int_equal(gs_breakdown_compute(t, 5, NULL, &r), GS_OK);
	check_invariants(t, &r);
	assert_int_equal(r.device, 5);
	assert_int_equal(r.window_ns, 0);
	assert_int_equal(r.n_segments, 0);
	check_totals(&r, 0, 0, 0, 0);
	assert_int_equal(r.dominant, GS_CAT_IDLE);
	gs_breakdown_fini(&r);

	assert_int_equal(gs_breakdown_compute(t, 5, &w, &r), GS_OK);
	check_invariants(t, &r);
	assert_int_equal(r.n_segments, 1);
	check_totals(&r, 0, 0, 0, US(100));
	check_idle(&r, 0, 0, US(100));
	gs_breakdown_fini(&r);
	gs_breakdown_fini(&r); /* idempotent */
	gs_trace_destroy(t);

	/* A trace with no ops at all. */
	{
		struct tb b;
		uint32_t *ids = (uint32_t *)&w;
		size_t n = 7;

		tb_init(&b);
		assert_int_equal(gs_trace_finish(b.t), GS_OK);
		assert_int_equal(gs_trace_op_devices(b.t, &ids, &n), GS_OK);
		assert_null(ids);
		assert_int_equal(n, 0);
		assert_int_equal(gs_breakdown_compute(b.t, 0, NULL, &r), GS_OK);
		assert_int_equal(r.window_ns, 0);
		gs_breakdown_fini(&r);
		gs_trace_destroy(b.t);
	}
}

/* Sync kinds: a stream wait does not block the host; unknown is not counted;
 * syncs of another device do not count. */
static void test_sync_kinds(void **state)
{
	struct tb b;
	struct gs_breakdown r;
	uint32_t st;

	(void)state;
	tb_init(&b);
	st = tb_stream(&b, 0, 7);
	tb_kernel(&b, st, 0, 10, 0);
	tb_kernel(&b, st, 100, 110, 0);
	tb_sync(&b, GS_SYNC_STREAM_WAIT, 0, 10, 20);
	tb_sync(&b, GS_SYNC_UNKNOWN, 0, 20, 30);
	tb_sync(&b, GS_SYNC_STREAM, 1, 30, 40);
	tb_sync(&b, GS_SYNC_EVENT, 0, 40, 50);
	tb_sync(&b, GS_SYNC_CONTEXT, 0, 45, 60);
	tb_sync(&b, GS_SYNC_STREAM, 0, 70, 80);
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	assert_int_equal(gs_breakdown_compute(b.t, 0, NULL, &r), GS_OK);
	check_invariants(b.t, &r);
	check_totals(&r, 20, 0, 30, 60);
	gs_breakdown_fini(&r);
	gs_trace_destroy(b.t);
}

/*
 * Host-synchronous copies: pageable memory, or no async flag and a call
 * whose name does not say Async. A pinned async copy's call is not sync.
 */
static void test_sync_copies(void **state)
{
	struct tb b;
	struct gs_breakdown r;
	uint32_t st;

	(void)state;
	tb_init(&b);
	st = tb_stream(&b, 0, 7);
	tb_kernel(&b, st, 0, 10, 0);
	tb_copy(&b, st, 20, 25, 1, GS_MEM_PINNED, GS_OPF_ASYNC); /* call [12, 30): not sync */
	tb_api(&b, 1, 12, 30, 1, "cudaMemcpyAsync");
	tb_copy(&b, st, 40, 45, 2, GS_MEM_PAGEABLE, GS_OPF_ASYNC); /* call [35, 50): sync */
	tb_api(&b, 1, 35, 50, 2, "cudaMemcpyAsync");
	tb_copy(&b, st, 60, 65, 3, GS_MEM_PINNED, 0); /* call [55, 66): sync */
	tb_api(&b, 1, 55, 66, 3, "cudaMemcpy");
	tb_copy(&b, st, 80, 85, 4, GS_MEM_PINNED, 0); /* no flag, "Async" call: not sync */
	tb_api(&b, 1, 70, 90, 4, "cudaMemcpyAsync");
	tb_kernel(&b, st, 100, 110, 0);
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	assert_int_equal(gs_breakdown_compute(b.t, 0, NULL, &r), GS_OK);
	check_invariants(b.t, &r);
	/* sync: [35, 40) + [45, 50) + [55, 60) + [65, 66) = 16 */
	check_totals(&r, 20, 20, 16, 54);
	gs_breakdown_fini(&r);
	gs_trace_destroy(b.t);
}

/* Of two ops starting when a gap ends, the one asked for first decides. */
static void test_gap_tie_earliest_launch(void **state)
{
	struct tb b;
	struct gs_breakdown r;
	uint32_t s1, s2;

	(void)state;
	tb_init(&b);
	s1 = tb_stream(&b, 0, 7);
	s2 = tb_stream(&b, 0, 8);
	tb_kernel(&b, s1, 0, 10, 0);
	tb_kernel(&b, s1, 50, 60, 1);
	tb_api(&b, 1, 40, 45, 1, "cudaLaunchKernel");
	tb_kernel(&b, s2, 50, 55, 2);
	tb_api(&b, 2, 30, 32, 2, "cudaLaunchKernel");
	tb_api(&b, 2, 12, 20, 0, "cudaMalloc");
	tb_api(&b, 1, 12, 20, 0, "cudaFree");
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	assert_int_equal(gs_breakdown_compute(b.t, 0, NULL, &r), GS_OK);
	check_invariants(b.t, &r);
	check_idle(&r, 20, 20, 0); /* gap [10, 50), asked at 30 on thread 2 */
	assert_int_equal(r.n_top_host_calls, 1);
	check_call(b.t, &r, 0, "cudaMalloc", 8, 1);
	gs_breakdown_fini(&r);
	gs_trace_destroy(b.t);
}

/*
 * The trace's join of an op to its call when several calls share the
 * correlation id, as the breakdown reads it (the rule itself: test_trace.c):
 * the op's process first, then calls started before the op, the latest; a
 * same-thread call around it wins (the runtime call around its driver call).
 */
static void test_launch_index(void **state)
{
	struct tb b;
	const struct gs_api_call *calls;
	size_t n, n_launch;
	const uint32_t *launch;
	const struct gs_op *ops;

	(void)state;
	tb_init(&b);
	tb_api(&b, 1, 10, 40, 7, "cudaMemcpy");       /* outer, thread 1 */
	tb_api(&b, 1, 12, 30, 7, "cuMemcpyHtoD_v2");  /* inner */
	tb_api(&b, 2, 45, 50, 7, "cudaLaunchKernel"); /* after the op */
	tb_api(&b, 3, 5, 8, 7, "cudaEventRecord");    /* earlier, other thread */
	tb_api(&b, 1, 0, 1, 9, "cudaLaunchKernel");
	{
		struct gs_api_call c = {.start_ns = 2,
					.end_ns = 3,
					.pid = 200,
					.tid = 1,
					.correlation = 9,
					.name = tb_str(&b, "cudaMemsetAsync")};
		struct gs_stream st = {.pid = 200, .device = 0, .context = 1, .stream_id = 9};
		uint32_t s2 = GS_NO_INDEX;

		assert_int_equal(b.k->api_call(b.k, &c), GS_OK);
		assert_int_equal(b.k->stream(b.k, &st, &s2), GS_OK);
		tb_kernel(&b, s2, 20, 30, 9); /* process 200's stream: its call */
	}
	tb_kernel(&b, tb_stream(&b, 0, 7), 35, 60, 7);
	tb_kernel(&b, tb_stream(&b, 0, 7), 60, 70, 0);
	tb_kernel(&b, tb_stream(&b, 0, 7), 70, 80, 12345);
	assert_int_equal(gs_trace_finish(b.t), GS_OK);

	calls = gs_trace_api_calls(b.t, &n);
	ops = gs_trace_ops(b.t, &n);
	launch = gs_trace_op_launches(b.t, &n_launch);
	assert_int_equal(n_launch, n);
	for (size_t i = 0; i < n; i++) {
		const char *want = ops[i].correlation == 7 ? "cudaMemcpy" :
				   ops[i].correlation == 9 ? "cudaMemsetAsync" :
							     NULL;

		if (want)
			assert_string_equal(gs_trace_string(b.t, calls[launch[i]].name), want);
		else
			assert_int_equal(launch[i], GS_NO_INDEX);
		assert_int_equal(gs_op_device(b.t, &ops[i]), 0);
	}
	assert_int_equal(gs_trace_find_thread(b.t, 100, 2), 1);
	assert_int_equal(gs_trace_find_thread(b.t, 200, 1), 3);
	assert_int_equal(gs_trace_find_thread(b.t, 100, 4), GS_NO_INDEX);
	gs_trace_destroy(b.t);
}

/* ---- property test: sweep == per-ns rasterisation ------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? (uint32_t)(rng_state % n) : 0;
}

static const char *const other_names[] = {"cudaMalloc", "cudaFree", "cudaEventQuery",
					  "cuMemAlloc_v2"};

/* Brute force, per ns over the window. */
struct brute {
	int64_t w0, w1;
	unsigned *cat;
	int64_t total[GS_CAT_COUNT];
	int64_t copy_total, copy_hidden, conc;
	int64_t hb, ll, un;
	int64_t name_ns[64];
	uint64_t name_count[64];
};

static uint32_t brute_call(const struct gs_api_call *calls, size_t n, uint64_t corr)
{
	if (!corr)
		return GS_NO_INDEX;
	for (size_t i = 0; i < n; i++)
		if (calls[i].correlation == corr)
			return (uint32_t)i;
	return GS_NO_INDEX;
}

static void brute_force(const struct gs_trace *t, uint32_t dev, const struct gs_window *win,
			struct brute *o)
{
	size_t n_ops, n_calls, n_syncs, n_streams;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_api_call *calls = gs_trace_api_calls(t, &n_calls);
	const struct gs_sync *syncs = gs_trace_syncs(t, &n_syncs);
	const struct gs_stream *streams = gs_trace_streams(t, &n_streams);
	bool any = false;

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < n_ops; i++) {
		if (streams[ops[i].stream].device != dev)
			continue;
		if (!any || ops[i].start_ns < o->w0)
			o->w0 = ops[i].start_ns;
		if (!any || ops[i].end_ns > o->w1)
			o->w1 = ops[i].end_ns;
		any = true;
	}
	if (win) {
		o->w0 = win->start_ns;
		o->w1 = win->end_ns;
	}
	o->cat = calloc((size_t)(o->w1 - o->w0) + 1, sizeof(*o->cat));
	assert_non_null(o->cat);
	for (int64_t x = o->w0; x < o->w1; x++) {
		int k = 0, c = 0, s = 0;
		unsigned cat;

		for (size_t i = 0; i < n_ops; i++) {
			const struct gs_op *op = &ops[i];

			if (streams[op->stream].device != dev)
				continue;
			if (op->start_ns <= x && x < op->end_ns) {
				if (op->kind == GS_OP_KERNEL)
					k++;
				else
					c++;
			}
			if (op->kind != GS_OP_KERNEL) {
				uint32_t l = brute_call(calls, n_calls, op->correlation);

				if (l != GS_NO_INDEX &&
				    (op->src_mem == GS_MEM_PAGEABLE ||
				     !(op->flags & GS_OPF_ASYNC)) &&
				    calls[l].start_ns <= x && x < calls[l].end_ns)
					s++;
			}
		}
		for (size_t i = 0; i < n_syncs; i++)
			if (syncs[i].device == dev &&
			    (syncs[i].kind == GS_SYNC_EVENT || syncs[i].kind == GS_SYNC_STREAM ||
			     syncs[i].kind == GS_SYNC_CONTEXT) &&
			    syncs[i].start_ns <= x && x < syncs[i].end_ns)
				s++;
		cat = k ? GS_CAT_KERNEL : c ? GS_CAT_COPY : s ? GS_CAT_SYNC : GS_CAT_IDLE;
		o->cat[x - o->w0] = cat;
		o->total[cat]++;
		o->copy_total += c > 0;
		o->copy_hidden += c > 0 && k > 0;
		o->conc += k >= 2;
	}
	/* Idle gaps, one at a time. */
	for (int64_t a = o->w0; a < o->w1;) {
		int64_t b = a, next = INT64_MAX, ls = 0, hb;
		uint32_t launch = GS_NO_INDEX;
		bool credited[64] = {false};

		if (o->cat[a - o->w0] != GS_CAT_IDLE) {
			a++;
			continue;
		}
		while (b < o->w1 && o->cat[b - o->w0] == GS_CAT_IDLE)
			b++;
		for (size_t i = 0; i < n_ops; i++)
			if (streams[ops[i].stream].device == dev && ops[i].start_ns >= b &&
			    ops[i].start_ns < next)
				next = ops[i].start_ns;
		for (size_t i = 0; i < n_ops; i++) {
			uint32_t l;

			if (streams[ops[i].stream].device != dev || ops[i].start_ns != next)
				continue;
			l = brute_call(calls, n_calls, ops[i].correlation);
			if (l != GS_NO_INDEX &&
			    (launch == GS_NO_INDEX || calls[l].start_ns < calls[launch].start_ns ||
			     (calls[l].start_ns == calls[launch].start_ns && l < launch)))
				launch = l;
		}
		if (launch == GS_NO_INDEX) {
			o->un += b - a;
			a = b;
			continue;
		}
		ls = calls[launch].start_ns;
		hb = (ls < b ? ls : b) - a;
		if (hb < 0)
			hb = 0;
		o->hb += hb;
		o->ll += (b - a) - hb;
		for (int64_t x = a; x < a + hb; x++) {
			/* The first call of the launching thread, in the trace's
			 * order, that contains x. */
			for (size_t i = 0; i < n_calls; i++) {
				const struct gs_api_call *c = &calls[i];
				uint32_t name;

				if (c->pid != calls[launch].pid || c->tid != calls[launch].tid ||
				    !(c->start_ns <= x && x < c->end_ns))
					continue;
				if (i != launch) {
					name = c->name;
					assert_true(name < 64);
					o->name_ns[name]++;
					if (!credited[name]) {
						credited[name] = true;
						o->name_count[name]++;
					}
				}
				break;
			}
		}
		a = b;
	}
}

/* The breakdown through a cache the breakdowns share (over a window: only
 * the ops the window needs, found by binary searches) equals the one
 * without (every op of the device, clipped), field by field. */
static void same_as_shared(const struct gs_trace *t, uint32_t dev, const struct gs_window *win,
			   const struct gs_breakdown *r)
{
	struct gs_breakdown_cache *c = NULL;
	struct gs_breakdown x;

	assert_int_equal(gs_breakdown_cache_create(t, NULL, true, &c), GS_OK);
	assert_int_equal(gs_breakdown_compute_cached(t, dev, win, c, &x), GS_OK);
	assert_int_equal(x.window_start, r->window_start);
	assert_int_equal(x.window_end, r->window_end);
	assert_int_equal(x.n_segments, r->n_segments);
	for (size_t i = 0; i < r->n_segments; i++) {
		assert_int_equal(x.segments[i].start_ns, r->segments[i].start_ns);
		assert_int_equal(x.segments[i].end_ns, r->segments[i].end_ns);
		assert_int_equal(x.segments[i].category, r->segments[i].category);
	}
	assert_memory_equal(x.total_ns, r->total_ns, sizeof(x.total_ns));
	assert_int_equal(x.copy_total_ns, r->copy_total_ns);
	assert_int_equal(x.copy_hidden_ns, r->copy_hidden_ns);
	assert_int_equal(x.kernel_concurrency_ns, r->kernel_concurrency_ns);
	assert_int_equal(x.host_bound_ns, r->host_bound_ns);
	assert_int_equal(x.launch_latency_ns, r->launch_latency_ns);
	assert_int_equal(x.unattributed_ns, r->unattributed_ns);
	assert_int_equal(x.n_top_host_calls, r->n_top_host_calls);
	for (size_t i = 0; i < r->n_top_host_calls; i++) {
		assert_int_equal(x.top_host_calls[i].name, r->top_host_calls[i].name);
		assert_int_equal(x.top_host_calls[i].ns, r->top_host_calls[i].ns);
		assert_int_equal(x.top_host_calls[i].count, r->top_host_calls[i].count);
	}
	assert_int_equal(x.host_ranges.outside_ns, r->host_ranges.outside_ns);
	assert_int_equal(x.host_ranges.intervals, r->host_ranges.intervals);
	gs_breakdown_fini(&x);
	gs_breakdown_cache_destroy(c);
}

static void compare(const struct gs_trace *t, uint32_t dev, const struct gs_window *win)
{
	struct gs_breakdown r;
	struct brute o;
	int64_t names_seen = 0;

	assert_int_equal(gs_breakdown_compute(t, dev, win, &r), GS_OK);
	same_as_shared(t, dev, win, &r);
	check_invariants(t, &r);
	brute_force(t, dev, win, &o);
	assert_int_equal(r.window_start, o.w0);
	assert_int_equal(r.window_end, o.w1);
	for (size_t i = 0; i < r.n_segments; i++)
		for (int64_t x = r.segments[i].start_ns; x < r.segments[i].end_ns; x++)
			assert_int_equal(r.segments[i].category, o.cat[x - o.w0]);
	for (unsigned c = 0; c < GS_CAT_COUNT; c++)
		assert_int_equal(r.total_ns[c], o.total[c]);
	assert_int_equal(r.copy_total_ns, o.copy_total);
	assert_int_equal(r.copy_hidden_ns, o.copy_hidden);
	assert_int_equal(r.kernel_concurrency_ns, o.conc);
	assert_int_equal(r.host_bound_ns, o.hb);
	assert_int_equal(r.launch_latency_ns, o.ll);
	assert_int_equal(r.unattributed_ns, o.un);
	for (size_t i = 0; i < r.n_top_host_calls; i++) {
		uint32_t name = r.top_host_calls[i].name;

		assert_true(name < 64);
		assert_int_equal(r.top_host_calls[i].ns, o.name_ns[name]);
		assert_int_equal(r.top_host_calls[i].count, o.name_count[name]);
		names_seen += o.name_ns[name];
	}
	for (size_t n = 0; n < 64; n++)
		names_seen -= o.name_ns[n];
	assert_int_equal(names_seen, 0); /* nothing credited the sweep missed */
	free(o.cat);
	gs_breakdown_fini(&r);
}

static struct gs_trace *random_trace(void)
{
	struct tb b;
	uint32_t st[4];
	unsigned n_ops = rnd(9), n_other = rnd(6), n_syncs = rnd(4);
	uint64_t corr = 1;

	tb_init(&b);
	st[0] = tb_stream(&b, 0, 1);
	st[1] = tb_stream(&b, 0, 2);
	st[2] = tb_stream(&b, 0, 3);
	st[3] = tb_stream(&b, 1, 4);
	for (unsigned i = 0; i < n_ops; i++) {
		unsigned kind = rnd(20);
		int64_t s = rnd(60), e = s + rnd(16);
		uint64_t c = rnd(5) ? corr++ : 0;
		struct gs_op o = {.start_ns = s,
				  .end_ns = e,
				  .correlation = c,
				  .stream = st[rnd(4)],
				  .name = tb_str(&b, "op")};
		bool async = rnd(2);

		if (kind < 10) {
			o.kind = GS_OP_KERNEL;
		} else {
			static const uint8_t mem[] = {GS_MEM_PAGEABLE, GS_MEM_PINNED,
						      GS_MEM_DEVICE};

			o.kind = kind < 17 ? GS_OP_MEMCPY : GS_OP_MEMSET;
			o.src_mem = o.kind == GS_OP_MEMCPY ? mem[rnd(3)] : 0;
			o.dst_mem = GS_MEM_DEVICE;
			o.flags = async ? GS_OPF_ASYNC : 0;
		}
		tb_op(&b, &o);
		if (c && rnd(7)) {
			int64_t ls = s - (int64_t)rnd(21);
			const char *name = o.kind == GS_OP_KERNEL ? "cudaLaunchKernel" :
					   async                  ? "cudaMemcpyAsync" :
								    "cudaMemcpy";

			tb_api(&b, 1 + rnd(2), ls, ls + rnd(11), c, name);
		}
	}
	for (unsigned i = 0; i < n_other; i++) {
		int64_t s = (int64_t)rnd(75) - 5;

		tb_api(&b, 1 + rnd(2), s, s + rnd(21), rnd(2) ? 1000 + i : 0, other_names[rnd(4)]);
	}
	for (unsigned i = 0; i < n_syncs; i++) {
		int64_t s = (int64_t)rnd(75) - 5;

		tb_sync(&b, (uint8_t)rnd(GS_SYNC_KIND_COUNT), rnd(3) ? 0 : 1, s, s + rnd(21));
	}
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	return b.t;
}

static void test_property_random(void **state)
{
	(void)state;
	rng_state = 0x2545F4914F6CDD1Dull;
	for (int it = 0; it < 6000; it++) {
		struct gs_trace *t = random_trace();

		for (uint32_t dev = 0; dev < 3; dev++) {
			int64_t a = (int64_t)rnd(80) - 10;
			struct gs_window w = window(a, a + rnd(90));

			compare(t, dev, NULL);
			compare(t, dev, &w);
		}
		gs_trace_destroy(t);
	}
}

/* ---- real traces (--shared) ---------------------------------------------- */

struct iv {
	int64_t s, e;
};

static int cmp_iv(const void *pa, const void *pb)
{
	const struct iv *a = pa, *b = pb;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	return (a->e > b->e) - (a->e < b->e);
}

/* Total length of the union of the device's ops of the given kinds,
 * clipped to [w0, w1). */
static int64_t union_len_in(const struct gs_trace *t, uint32_t dev, bool kernels, int64_t w0,
			    int64_t w1);

static int64_t union_len(const struct gs_trace *t, uint32_t dev, bool kernels)
{
	return union_len_in(t, dev, kernels, INT64_MIN, INT64_MAX);
}

static int64_t union_len_in(const struct gs_trace *t, uint32_t dev, bool kernels, int64_t w0,
			    int64_t w1)
{
	size_t n_ops, m = 0, n_streams;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_stream *streams = gs_trace_streams(t, &n_streams);
	struct iv *v = malloc((n_ops + 1) * sizeof(*v));
	int64_t total = 0, cs = 0, ce = 0;
	bool open = false;

	assert_non_null(v);
	for (size_t i = 0; i < n_ops; i++)
		if (streams[ops[i].stream].device == dev &&
		    (ops[i].kind == GS_OP_KERNEL) == kernels) {
			int64_t a = ops[i].start_ns > w0 ? ops[i].start_ns : w0;
			int64_t e = ops[i].end_ns < w1 ? ops[i].end_ns : w1;

			if (e > a)
				v[m++] = (struct iv){a, e};
		}
	qsort(v, m, sizeof(*v), cmp_iv);
	for (size_t i = 0; i < m; i++) {
		if (open && v[i].s <= ce) {
			if (v[i].e > ce)
				ce = v[i].e;
			continue;
		}
		if (open)
			total += ce - cs;
		cs = v[i].s;
		ce = v[i].e;
		open = true;
	}
	if (open)
		total += ce - cs;
	free(v);
	return total;
}

/* The steps chosen by default: the breakdown over their window is the
 * window exactly, and its kernel time the union of the kernels clipped to
 * it, computed here on its own. */
static void check_steps(const struct gs_trace *t, uint32_t dev)
{
	struct gs_steps s;
	struct gs_breakdown r;
	struct gs_window w;
	int64_t sum = 0;

	assert_int_equal(gs_steps_find(t, NULL, &s), GS_OK);
	if (!s.window_set) {
		gs_steps_fini(&s);
		return;
	}
	w = (struct gs_window){.set = true,
			       .start_ns = s.window_start_ns,
			       .end_ns = s.window_end_ns};
	assert_int_equal(gs_breakdown_compute(t, dev, &w, &r), GS_OK);
	same_as_shared(t, dev, &w, &r);
	for (size_t i = 0; i < s.n; i++) {
		struct gs_window sw = {.set = true,
				       .start_ns = s.steps[i].gpu_start_ns,
				       .end_ns = s.steps[i].gpu_end_ns};
		struct gs_breakdown x;

		if (sw.end_ns <= sw.start_ns)
			continue;
		assert_int_equal(gs_breakdown_compute(t, dev, &sw, &x), GS_OK);
		same_as_shared(t, dev, &sw, &x);
		gs_breakdown_fini(&x);
	}
	for (unsigned c = 0; c < GS_CAT_COUNT; c++)
		sum += r.total_ns[c];
	assert_int_equal(sum, s.window_end_ns - s.window_start_ns);
	assert_int_equal(r.total_ns[GS_CAT_KERNEL],
			 union_len_in(t, dev, true, s.window_start_ns, s.window_end_ns));
	printf("    steps: %zu of %zu analysed, window %lld ns, kernel %lld ns\n", s.n_selected,
	       s.n, (long long)(s.window_end_ns - s.window_start_ns),
	       (long long)r.total_ns[GS_CAT_KERNEL]);
	gs_breakdown_fini(&r);
	gs_steps_fini(&s);
}

static void check_shared_trace(void **state)
{
	const char *path = *state;
	struct gs_trace *t = NULL;
	uint32_t *ids;
	size_t n;

	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	assert_int_equal(gs_trace_op_devices(t, &ids, &n), GS_OK);
	for (size_t d = 0; d < n; d++) {
		struct gs_breakdown r;
		int64_t first = 0, last = 0;

		assert_int_equal(gs_breakdown_compute(t, ids[d], NULL, &r), GS_OK);
		check_invariants(t, &r);
		assert_int_equal(r.total_ns[GS_CAT_KERNEL], union_len(t, ids[d], true));
		assert_int_equal(r.copy_total_ns, union_len(t, ids[d], false));
		gs_trace_op_span(t, &first, &last);
		assert_true(r.window_start >= first && r.window_end <= last);
		printf("  %s device %u: window %lld ns, kernel %lld copy %lld sync %lld idle "
		       "%lld (host_bound %lld launch %lld unattributed %lld), %zu segments, "
		       "dominant %s\n",
		       strrchr(path, '/') + 1, ids[d], (long long)r.window_ns,
		       (long long)r.total_ns[0], (long long)r.total_ns[1], (long long)r.total_ns[2],
		       (long long)r.total_ns[3], (long long)r.host_bound_ns,
		       (long long)r.launch_latency_ns, (long long)r.unattributed_ns, r.n_segments,
		       gs_category_name(r.dominant));
		for (size_t i = 0; i < r.n_top_host_calls && i < 3; i++)
			printf("    %s %lld ns in %llu gaps\n",
			       gs_trace_string(t, r.top_host_calls[i].name),
			       (long long)r.top_host_calls[i].ns,
			       (unsigned long long)r.top_host_calls[i].count);
		gs_breakdown_fini(&r);
		check_steps(t, ids[d]);
	}
	free(ids);
	gs_trace_destroy(t);
}

static int run_shared(void)
{
	glob_t g;
	struct CMUnitTest *tests;
	int rc;

	if (glob(GS_SHARED_DATA "/kineto/*/*.json.gz", 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		printf("skipped: ../shared/data absent\n");
		return 77;
	}
	tests = calloc(g.gl_pathc, sizeof(*tests));
	assert_non_null(tests);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		tests[i].name = strrchr(g.gl_pathv[i], '/') + 1;
		tests[i].test_func = check_shared_trace;
		tests[i].initial_state = g.gl_pathv[i];
	}
	rc = _cmocka_run_group_tests("breakdown_shared", tests, g.gl_pathc, NULL, NULL);
	free(tests);
	globfree(&g);
	return rc;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_example5),
		cmocka_unit_test(test_dominant_ties),
		cmocka_unit_test(test_serial_loop),
		cmocka_unit_test(test_serial_pageable),
		cmocka_unit_test(test_sync_then_launch),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_device_without_ops),
		cmocka_unit_test(test_sync_kinds),
		cmocka_unit_test(test_sync_copies),
		cmocka_unit_test(test_gap_tie_earliest_launch),
		cmocka_unit_test(test_launch_index),
		cmocka_unit_test(test_property_random),
	};

	if (argc > 1 && strcmp(argv[1], "--shared") == 0)
		return run_shared();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
