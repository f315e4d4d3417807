/* SPDX-License-Identifier: MIT */
/*
 * gs_measures_compute: per-GPU measures on traces built through the sink
 * API, with every number worked out by hand: nearest-rank launch delay
 * percentiles, queue length (maximum, time-weighted mean, change points),
 * copy bandwidth, the kernel time split by class (summing exactly to the
 * breakdown's kernel time), and GPU time per annotation (host annotations
 * by launch call, GPU annotations by stream, unions over overlapping ops
 * and nested instances); and a Kineto file's gpu_user_annotation read into
 * the measures.
 */
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

#include "../../analyzer/analyses/analyzer_priv.h"

/* ---- building traces ----------------------------------------------------- */

struct tb {
	struct gs_trace *t;
	struct gs_sink *s;
	uint64_t corr;
};

static void tb_init(struct tb *b)
{
	assert_int_equal(gs_trace_create(&b->t), GS_OK);
	b->s = gs_trace_borrow_sink(b->t);
	b->corr = 0;
}

static uint32_t str(struct tb *b, const char *s)
{
	uint32_t id;

	assert_int_equal(b->s->intern(b->s, s, strlen(s), &id), GS_OK);
	return id;
}

static uint32_t stream(struct tb *b, uint64_t id)
{
	struct gs_stream st = {.pid = 1, .device = 0, .context = 1, .stream_id = id};
	uint32_t idx;

	assert_int_equal(b->s->stream(b->s, &st, &idx), GS_OK);
	return idx;
}

/* An op of `kind` on stream index `s`, launched by a call of (pid 1, tid)
 * starting at `call` (call < 0: no launch call). */
static void op(struct tb *b, uint8_t kind, const char *name, uint32_t s, int64_t start, int64_t end,
	       int64_t tid, int64_t call)
{
	struct gs_op o = {0};

	o.kind = kind;
	o.name = str(b, name);
	o.stream = s;
	o.start_ns = start;
	o.end_ns = end;
	if (call >= 0) {
		struct gs_api_call c = {0};

		o.correlation = ++b->corr;
		c.start_ns = call;
		c.end_ns = call + 1;
		c.pid = 1;
		c.tid = tid;
		c.correlation = o.correlation;
		c.name = str(b, kind == GS_OP_KERNEL ? "cudaLaunchKernel" : "cudaMemcpyAsync");
		assert_int_equal(b->s->api_call(b->s, &c), GS_OK);
	}
	assert_int_equal(b->s->op(b->s, &o, NULL), GS_OK);
}

static void copy(struct tb *b, uint32_t s, int64_t start, int64_t end, uint64_t bytes, uint8_t dir,
		 uint8_t src, uint8_t dst)
{
	struct gs_op o = {0};

	o.kind = GS_OP_MEMCPY;
	o.name = str(b, "Memcpy");
	o.stream = s;
	o.start_ns = start;
	o.end_ns = end;
	o.bytes = bytes;
	o.copy_kind = dir;
	o.src_mem = src;
	o.dst_mem = dst;
	assert_int_equal(b->s->op(b->s, &o, NULL), GS_OK);
}

static void range(struct tb *b, uint8_t kind, const char *name, int64_t tid, int64_t start,
		  int64_t end, uint32_t s)
{
	struct gs_range r = {0};

	r.kind = kind;
	r.name = str(b, name);
	r.pid = kind == GS_RANGE_GPU_ANNOTATION ? -1 : 1;
	r.tid = kind == GS_RANGE_GPU_ANNOTATION ? -1 : tid;
	r.domain = GS_NO_STRING;
	r.start_ns = start;
	r.end_ns = end;
	r.stream = kind == GS_RANGE_GPU_ANNOTATION ? s : 0;
	assert_int_equal(b->s->range(b->s, &r), GS_OK);
}

/* Finish, and the measures of device 0 over [ws, we). */
static void measure(struct tb *b, int64_t ws, int64_t we, struct gs_measures *m)
{
	const uint32_t *launch = NULL;
	size_t n_launch;

	assert_int_equal(gs_trace_finish(b->t), GS_OK);
	launch = gs_trace_op_launches(b->t, &n_launch);
	assert_int_equal(gs_measures_compute(b->t, 0, ws, we, launch, m), GS_OK);
}

static const struct gs_annotation_time *ann(const struct gs_trace *t, const struct gs_measures *m,
					    const char *name, uint8_t source)
{
	for (size_t i = 0; i < m->n_annotations; i++)
		if (m->annotations[i].source == source &&
		    strcmp(gs_trace_string(t, m->annotations[i].name), name) == 0)
			return &m->annotations[i];
	fail_msg("no annotation %s", name);
	abort(); /* not reached: fail_msg leaves the test */
}

/* ---- launch delay -------------------------------------------------------- */

static void test_launch_delay_percentiles(void **state)
{
	/* Stream 7: twenty delays 1..20 us in a shuffled order; stream 9:
	 * three delays 5, 1, 3 ns; one op without a launch call. */
	static const int d7[20] = {7, 19, 3,  12, 1,  20, 15, 5,  9,  14,
				   2, 18, 11, 6,  16, 4,  13, 10, 17, 8};
	static const int d9[3] = {5, 1, 3};
	struct tb b;
	struct gs_measures m;
	uint32_t s7, s9;

	(void)state;
	tb_init(&b);
	s7 = stream(&b, 7);
	s9 = stream(&b, 9);
	for (int i = 0; i < 20; i++)
		op(&b, GS_OP_KERNEL, "k", s7, 100000 * (i + 1), 100000 * (i + 1) + 100, 1,
		   100000 * (i + 1) - 1000 * d7[i]);
	for (int i = 0; i < 3; i++)
		op(&b, GS_OP_KERNEL, "k", s9, 50000 * (i + 1), 50000 * (i + 1) + 10, 1,
		   50000 * (i + 1) - d9[i]);
	op(&b, GS_OP_KERNEL, "k", s9, 3000000, 3000010, 1, -1);
	measure(&b, 0, 4000000, &m);

	assert_int_equal(m.n_delays, 2);
	/* nearest rank: p50 of 20 is the 10th, p95 the 19th */
	assert_int_equal(m.delays[0].stream, s7);
	assert_int_equal(m.delays[0].ops, 20);
	assert_int_equal(m.delays[0].p50_ns, 10000);
	assert_int_equal(m.delays[0].p95_ns, 19000);
	assert_int_equal(m.delays[0].max_ns, 20000);
	/* p50 of 3 is the 2nd (ceil 1.5), p95 the 3rd */
	assert_int_equal(m.delays[1].stream, s9);
	assert_int_equal(m.delays[1].ops, 3);
	assert_int_equal(m.delays[1].p50_ns, 3);
	assert_int_equal(m.delays[1].p95_ns, 5);
	assert_int_equal(m.delays[1].max_ns, 5);
	gs_measures_fini(&m);
	gs_trace_destroy(b.t);
}

/* ---- queue length -------------------------------------------------------- */

static void test_queue_length(void **state)
{
	struct tb b;
	struct gs_measures m;
	uint32_t s1, s2;

	(void)state;
	tb_init(&b);
	s1 = stream(&b, 1);
	s2 = stream(&b, 2);
	op(&b, GS_OP_KERNEL, "a", s1, 10, 30, 1, 0);  /* queued 0..30 */
	op(&b, GS_OP_KERNEL, "b", s1, 30, 50, 1, 5);  /* 5..50 */
	op(&b, GS_OP_KERNEL, "c", s2, 45, 60, 1, 40); /* 40..60 */
	op(&b, GS_OP_KERNEL, "d", s2, 70, 80, 1, -1); /* no call: not counted */
	measure(&b, 10, 60, &m);

	/* In [10, 60): 2 until 30, 1 until 40, 2 until 50, 1 until 60. */
	assert_int_equal(m.queue_ops, 3);
	assert_int_equal(m.queue_max, 2);
	assert_true(m.queue_area == 80.0);
	assert_true(m.queue_mean == 1.6);
	assert_false(m.queue_binned);
	assert_int_equal(m.queue_changes, 3);
	assert_int_equal(m.n_queue_series, 4);
	assert_int_equal(m.queue_series[0].t_ns, 10);
	assert_int_equal(m.queue_series[0].length, 2);
	assert_int_equal(m.queue_series[1].t_ns, 30);
	assert_int_equal(m.queue_series[1].length, 1);
	assert_int_equal(m.queue_series[2].t_ns, 40);
	assert_int_equal(m.queue_series[2].length, 2);
	assert_int_equal(m.queue_series[3].t_ns, 50);
	assert_int_equal(m.queue_series[3].length, 1);
	/* launch delays: 10, 25 on stream 1; 5 on stream 2 */
	assert_int_equal(m.n_delays, 2);
	assert_int_equal(m.delays[0].p50_ns, 10);
	assert_int_equal(m.delays[0].max_ns, 25);
	assert_int_equal(m.delays[1].p50_ns, 5);
	gs_measures_fini(&m);
	gs_trace_destroy(b.t);
}

/* More change points than GS_QUEUE_SERIES_MAX: one point per bin, the
 * greatest length in it; the mean stays exact. */
static void test_queue_binned(void **state)
{
	struct tb b;
	struct gs_measures m;
	uint32_t s1;

	(void)state;
	tb_init(&b);
	s1 = stream(&b, 1);
	/* 3000 ops of 10 ns every 20 ns, each queued from its start: the
	 * length is 1, 0, 1, 0, ... (6000 change points). */
	for (int i = 0; i < 3000; i++)
		op(&b, GS_OP_KERNEL, "k", s1, 20 * i, 20 * i + 10, 1, 20 * i);
	measure(&b, 0, 60000, &m);
	assert_int_equal(m.queue_max, 1);
	assert_true(m.queue_binned);
	assert_int_equal(m.n_queue_series, GS_QUEUE_SERIES_MAX);
	assert_int_equal(m.queue_series[0].t_ns, 0);
	assert_int_equal(m.queue_series[1].t_ns, 60);
	assert_int_equal(m.queue_series[999].t_ns, 59940);
	for (size_t i = 0; i < m.n_queue_series; i++)
		assert_int_equal(m.queue_series[i].length, 1);
	assert_true(m.queue_mean == 0.5);
	gs_measures_fini(&m);
	gs_trace_destroy(b.t);
}

/* ---- copy bandwidth ------------------------------------------------------ */

static void test_copy_bandwidth(void **state)
{
	struct tb b;
	struct gs_measures m;
	uint32_t s1;

	(void)state;
	tb_init(&b);
	s1 = stream(&b, 1);
	copy(&b, s1, 0, 1000, 4000, GS_COPY_HTOD, GS_MEM_PAGEABLE, GS_MEM_DEVICE);
	copy(&b, s1, 1000, 2000, 2000, GS_COPY_HTOD, GS_MEM_PAGEABLE, GS_MEM_DEVICE);
	copy(&b, s1, 2000, 2100, 1000, GS_COPY_HTOD, GS_MEM_PINNED, GS_MEM_DEVICE);
	copy(&b, s1, 3000, 3400, 8000, GS_COPY_DTOH, GS_MEM_DEVICE, GS_MEM_PINNED);
	{
		struct gs_op o = {.kind = GS_OP_MEMSET,
				  .name = str(&b, "Memset"),
				  .stream = s1,
				  .start_ns = 4000,
				  .end_ns = 4500,
				  .bytes = 1000,
				  .dst_mem = GS_MEM_DEVICE};

		assert_int_equal(b.s->op(b.s, &o, NULL), GS_OK);
	}
	measure(&b, 0, 5000, &m);

	assert_int_equal(m.n_copies, 4);
	/* memcpys by direction, then memory kinds; then memsets */
	assert_int_equal(m.copies[0].op_kind, GS_OP_MEMCPY);
	assert_int_equal(m.copies[0].copy_kind, GS_COPY_HTOD);
	assert_int_equal(m.copies[0].src_mem, GS_MEM_PAGEABLE);
	assert_int_equal(m.copies[0].count, 2);
	assert_int_equal(m.copies[0].bytes, 6000);
	assert_int_equal(m.copies[0].ns, 2000); /* 3 GB/s */
	assert_int_equal(m.copies[1].src_mem, GS_MEM_PINNED);
	assert_int_equal(m.copies[1].bytes, 1000);
	assert_int_equal(m.copies[1].ns, 100); /* 10 GB/s */
	assert_int_equal(m.copies[2].copy_kind, GS_COPY_DTOH);
	assert_int_equal(m.copies[2].dst_mem, GS_MEM_PINNED);
	assert_int_equal(m.copies[2].bytes, 8000);
	assert_int_equal(m.copies[2].ns, 400); /* 20 GB/s */
	assert_int_equal(m.copies[3].op_kind, GS_OP_MEMSET);
	assert_int_equal(m.copies[3].dst_mem, GS_MEM_DEVICE);
	assert_int_equal(m.copies[3].bytes, 1000);
	assert_int_equal(m.copies[3].ns, 500);
	gs_measures_fini(&m);
	gs_trace_destroy(b.t);
}

/* ---- kernel classes ------------------------------------------------------ */

static void test_kernel_classes(void **state)
{
	struct tb b;
	struct gs_measures m;
	struct gs_breakdown bd;
	struct gs_window w = {.set = true, .start_ns = 0, .end_ns = 500};
	struct gs_collective coll = {0};
	uint32_t s1, s2, s3, ci;

	(void)state;
	assert_int_equal(gs_kernel_class_of_name("ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
			 GS_KCLASS_COMMUNICATION);
	assert_int_equal(gs_kernel_class_of_name("void at::native::CatArrayBatchedCopy<float>"),
			 GS_KCLASS_MEMORY);
	assert_int_equal(gs_kernel_class_of_name(
				 "void at::native::vectorized_elementwise_kernel<4, "
				 "at::native::FillFunctor<float>>"),
			 GS_KCLASS_COMPUTE);
	assert_int_equal(gs_kernel_class_of_name("fill_kernel_cuda"), GS_KCLASS_MEMORY);
	assert_int_equal(gs_kernel_class_of_name("ampere_sgemm_128x64_tn"), GS_KCLASS_COMPUTE);
	assert_string_equal(gs_kernel_class_name(GS_KCLASS_MEMORY), "memory");

	tb_init(&b);
	s1 = stream(&b, 1);
	s2 = stream(&b, 2);
	s3 = stream(&b, 3);
	op(&b, GS_OP_KERNEL, "ncclKernel_AllReduce", s1, 0, 100, 1, -1);
	op(&b, GS_OP_KERNEL, "CatArrayBatchedCopy", s2, 50, 150, 1, -1);
	op(&b, GS_OP_KERNEL, "gemm", s3, 120, 300, 1, -1);
	/* A kernel whose source describes its collective: communication,
	 * whatever its name; it runs under a compute kernel, which it takes. */
	coll.name = str(&b, "allreduce");
	coll.group = coll.group_desc = coll.group_ranks = coll.dtype = GS_NO_STRING;
	assert_int_equal(b.s->collective(b.s, &coll, &ci), GS_OK);
	{
		struct gs_op o = {.kind = GS_OP_KERNEL,
				  .name = str(&b, "my_allreduce"),
				  .stream = s1,
				  .start_ns = 250,
				  .end_ns = 400,
				  .collective = ci + 1};

		assert_int_equal(b.s->op(b.s, &o, NULL), GS_OK);
	}
	op(&b, GS_OP_KERNEL, "gemm", s3, 450, 600, 1, -1); /* cut by the window at 500 */
	measure(&b, 0, 500, &m);
	assert_int_equal(gs_breakdown_compute(b.t, 0, &w, &bd), GS_OK);

	/* communication: [0,100) + [250,400) = 250; memory: [100,150) = 50;
	 * compute: [150,250) + [450,500) = 150 */
	assert_int_equal(m.class_ns[GS_KCLASS_COMMUNICATION], 250);
	assert_int_equal(m.class_ns[GS_KCLASS_MEMORY], 50);
	assert_int_equal(m.class_ns[GS_KCLASS_COMPUTE], 150);
	assert_int_equal(bd.total_ns[GS_CAT_KERNEL], 450);
	assert_int_equal(m.class_ns[0] + m.class_ns[1] + m.class_ns[2], bd.total_ns[GS_CAT_KERNEL]);
	assert_int_equal(m.class_count[GS_KCLASS_COMMUNICATION], 2);
	assert_int_equal(m.class_count[GS_KCLASS_MEMORY], 1);
	assert_int_equal(m.class_count[GS_KCLASS_COMPUTE], 2);
	gs_breakdown_fini(&bd);
	gs_measures_fini(&m);
	gs_trace_destroy(b.t);
}

/* ---- annotations --------------------------------------------------------- */

static void test_annotations(void **state)
{
	struct tb b;
	struct gs_measures m;
	const struct gs_annotation_time *a;
	uint32_t s1, s2;

	(void)state;
	tb_init(&b);
	s1 = stream(&b, 1);
	s2 = stream(&b, 2);
	/* Thread 1: "step" [0, 1000) holds two "fwd" instances, the first
	 * with a "fwd" nested in it; an NVTX range over the copy's call. */
	range(&b, GS_RANGE_USER_ANNOTATION, "step", 1, 0, 1000, 0);
	range(&b, GS_RANGE_USER_ANNOTATION, "fwd", 1, 0, 500, 0);
	range(&b, GS_RANGE_USER_ANNOTATION, "fwd", 1, 5, 15, 0);
	range(&b, GS_RANGE_USER_ANNOTATION, "fwd", 1, 500, 900, 0);
	range(&b, GS_RANGE_NVTX, "nv", 1, 590, 610, 0);
	range(&b, GS_RANGE_USER_ANNOTATION, "idle", 1, 960, 990, 0); /* launches nothing */
	/* Two GPU annotations of one name on stream 1, overlapping. */
	range(&b, GS_RANGE_GPU_ANNOTATION, "gstep", 0, 150, 750, s1);
	range(&b, GS_RANGE_GPU_ANNOTATION, "gstep", 0, 250, 350, s1);
	op(&b, GS_OP_KERNEL, "k1", s1, 100, 300, 1, 10);
	op(&b, GS_OP_KERNEL, "k2", s2, 200, 400, 1, 20); /* overlaps k1 */
	op(&b, GS_OP_MEMCPY, "Memcpy", s1, 700, 800, 1, 600);
	op(&b, GS_OP_KERNEL, "k3", s1, 1000, 1100, 1, 950);
	op(&b, GS_OP_KERNEL, "k4", s2, 2000, 2100, 2, 30); /* thread 2: none */
	measure(&b, 100, 2100, &m);

	assert_int_equal(m.n_annotations, 4);
	/* step: kernels [100,400) + [1000,1100) (k1 and k2 once), copy 100 */
	a = &m.annotations[0];
	assert_string_equal(gs_trace_string(b.t, a->name), "step");
	assert_int_equal(a->source, GS_RANGE_USER_ANNOTATION);
	assert_int_equal(a->count, 1);
	assert_int_equal(a->kernel_ns, 400);
	assert_int_equal(a->copy_ns, 100);
	/* fwd: three instances; k1 under two of them counts once */
	a = &m.annotations[1];
	assert_string_equal(gs_trace_string(b.t, a->name), "fwd");
	assert_int_equal(a->count, 3);
	assert_int_equal(a->kernel_ns, 300);
	assert_int_equal(a->copy_ns, 100);
	/* gstep: ops of stream 1 cut to the ranges: k1 [150,300), the copy
	 * [700,750); the second instance adds nothing */
	a = &m.annotations[2];
	assert_string_equal(gs_trace_string(b.t, a->name), "gstep");
	assert_int_equal(a->source, GS_RANGE_GPU_ANNOTATION);
	assert_int_equal(a->count, 2);
	assert_int_equal(a->kernel_ns, 150);
	assert_int_equal(a->copy_ns, 50);
	a = ann(b.t, &m, "nv", GS_RANGE_NVTX);
	assert_int_equal(a->count, 1);
	assert_int_equal(a->kernel_ns, 0);
	assert_int_equal(a->copy_ns, 100);
	assert_ptr_equal(a, &m.annotations[3]);
	gs_measures_fini(&m);
	gs_trace_destroy(b.t);
}

/* A Kineto file: its gpu_user_annotation (ProfilerStep#1 on stream 7) in
 * the measures, with the user_annotation of the same name beside it. */
static void test_kineto_gpu_annotation(void **state)
{
	char path[1024];
	struct gs_trace *t = NULL;
	struct gs_measures m;
	const uint32_t *launch = NULL;
	size_t n_launch;
	int64_t first, last;
	const struct gs_annotation_time *g;

	(void)state;
	snprintf(path, sizeof(path), "%s/kineto/new_style.json", GS_TEST_DATA);
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	launch = gs_trace_op_launches(t, &n_launch);
	gs_trace_op_span(t, &first, &last);
	assert_int_equal(gs_measures_compute(t, 0, first, last, launch, &m), GS_OK);
	g = ann(t, &m, "ProfilerStep#1", GS_RANGE_GPU_ANNOTATION);
	assert_int_equal(g->count, 1);
	/* [145, 245) us over stream 7's kernel of 1.5 us; the copy in it runs
	 * on stream 20, the memset on device 1 */
	assert_int_equal(g->kernel_ns, 1500);
	assert_int_equal(g->copy_ns, 0);
	gs_measures_fini(&m);
	gs_trace_destroy(t);
}

/* A GPU annotation through a .gscope file: kind, stream (remapped by the
 * reader to the same stream) and the measures the same. */
static void test_gscope_round_trip(void **state)
{
	char path[64];
	struct tb b;
	struct gs_trace *back = NULL;
	const struct gs_range *r;
	const struct gs_stream *st;
	struct gs_measures m1, m2;
	const uint32_t *launch = NULL;
	size_t n_launch;
	size_t n, ns;
	int fd;

	(void)state;
	tb_init(&b);
	(void)stream(&b, 3);
	op(&b, GS_OP_KERNEL, "k", stream(&b, 9), 100, 200, 1, 50);
	range(&b, GS_RANGE_GPU_ANNOTATION, "g", 0, 120, 180, 1);
	measure(&b, 100, 200, &m1);
	snprintf(path, sizeof(path), "/tmp/gs_measures_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(gs_trace_save_gscope(b.t, path, NULL), GS_OK);
	assert_int_equal(gs_trace_load_gscope(path, 0, &back), GS_OK);
	unlink(path);
	r = gs_trace_ranges(back, &n);
	st = gs_trace_streams(back, &ns);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].kind, GS_RANGE_GPU_ANNOTATION);
	assert_true(r[0].stream < ns);
	assert_int_equal(st[r[0].stream].stream_id, 9);
	launch = gs_trace_op_launches(back, &n_launch);
	assert_int_equal(gs_measures_compute(back, 0, 100, 200, launch, &m2), GS_OK);
	assert_int_equal(m1.n_annotations, 1);
	assert_int_equal(m2.n_annotations, 1);
	assert_int_equal(m1.annotations[0].kernel_ns, 60);
	assert_int_equal(m2.annotations[0].kernel_ns, 60);
	assert_int_equal(m2.annotations[0].count, 1);
	gs_measures_fini(&m1);
	gs_measures_fini(&m2);
	gs_trace_destroy(back);
	gs_trace_destroy(b.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_delay_percentiles),
		cmocka_unit_test(test_queue_length),
		cmocka_unit_test(test_queue_binned),
		cmocka_unit_test(test_copy_bandwidth),
		cmocka_unit_test(test_kernel_classes),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_kineto_gpu_annotation),
		cmocka_unit_test(test_gscope_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
