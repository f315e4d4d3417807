/* SPDX-License-Identifier: MIT */
/*
 * gs_analyzer: schedules, missed overlap and the pipelined_batches what-if
 * (docs/design.md) on hand-built timelines (the worked examples of
 * docs/design.md) with hand-built dependency graphs (sched_build.h): names,
 * the examples, windows and other devices, occupancy, the gap, cycles and
 * copy engines. Property tests and CUDA Graph candidates:
 * test_schedule_graphs.c; Kineto fixtures and real traces:
 * test_schedule_traces.c.
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

#include "sched_build.h"

/* ---- names -------------------------------------------------------------- */

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(gs_constraint_name(GS_BOUND_NONE), "none");
	assert_string_equal(gs_constraint_name(GS_BOUND_STREAM_ORDER), "stream_order");
	assert_string_equal(gs_constraint_name(GS_BOUND_EVENT), "event");
	assert_string_equal(gs_constraint_name(GS_BOUND_DEFAULT_STREAM), "default_stream");
	assert_string_equal(gs_constraint_name(GS_BOUND_HOST_SYNC), "host_sync");
	assert_string_equal(gs_constraint_name(GS_BOUND_SYNC_COPY), "sync_copy");
	assert_string_equal(gs_constraint_name(GS_BOUND_HOST_LAUNCH), "host_launch");
	assert_string_equal(gs_constraint_name(GS_BOUND_COPY_ENGINE), "copy_engine");
	assert_string_equal(gs_constraint_name(GS_BOUND_DATA), "data");
	assert_string_equal(gs_constraint_name(GS_BOUND_COUNT), "unknown");
	assert_string_equal(gs_condition_name(GS_COND_PINNED_MEMORY), "pinned_memory");
	assert_string_equal(gs_condition_name(GS_COND_INDEPENDENT), "independent");
	assert_string_equal(gs_condition_name(GS_COND_CONCURRENT_RESOURCES),
			    "concurrent_resources");
	assert_string_equal(gs_condition_name(1u << 3), "unknown");
}

/* ---- Example 1: H2D 12 -> Kernel 40 -> D2H 10 -> Post 8 ----------------- */

static void test_example1_chain(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;
	uint32_t copy, compute, post;
	static const uint64_t cp[] = {1, 2, 3, 4};
	static const int64_t cp_ns[] = {US(12), US(40), US(10), US(8)};

	(void)state;
	tb_init(&b, 1);
	copy = tb_stream(&b, 1, 0);
	compute = tb_stream(&b, 2, 0);
	post = tb_stream(&b, 3, 0);
	tb_copy(&b, copy, GS_COPY_HTOD, GS_MEM_PINNED, AT(0), AT(12), 1);
	tb_kernel(&b, compute, AT(12), AT(52), 2, "kernel");
	tb_copy(&b, copy, GS_COPY_DTOH, GS_MEM_PINNED, AT(52), AT(62), 3);
	tb_kernel(&b, post, AT(62), AT(70), 4, "post");
	for (uint64_t c = 1; c <= 4; c++)
		tb_launch(&b, c, AT(-10), AT(-9));
	tb_edge(&b, 1, 2, GS_EDGE_EVENT);
	tb_edge(&b, 2, 3, GS_EDGE_EVENT);
	tb_edge(&b, 3, 4, GS_EDGE_EVENT);
	tb_build(&b);
	schedule(&b, NULL, &s);

	assert_int_equal(s.window_start, AT(0));
	assert_int_equal(s.window_end, AT(70));
	assert_int_equal(s.n_scheduled, 4);
	assert_int_equal(s.actual_ns, US(70));
	assert_int_equal(s.dependency_bound_ns, US(70));
	assert_int_equal(s.ideal_ns, US(70));
	assert_true(s.efficiency == 1.0);
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 2)), AT(12));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 3)), AT(52));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 4)) + US(8), AT(70));
	for (uint64_t c = 1; c <= 4; c++)
		assert_int_equal(gs_schedule_delay_ns(b.t, &s, OP(&b, c)), 0);
	check_critical(&s, &b, cp, cp_ns, 4);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 1)), GS_BOUND_HOST_LAUNCH);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 2)), GS_BOUND_EVENT);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 3)), GS_BOUND_EVENT);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 4)), GS_BOUND_EVENT);
	assert_int_equal(s.copy_engines[GS_COPY_HTOD], 1);
	assert_int_equal(s.copy_engines[GS_COPY_DTOH], 1);
	assert_int_equal(s.broken_cycles, 0);
	/* Three streams, none cut: the what-if is the recorded chain. */
	assert_string_equal(s.pipelined.name, "pipelined_batches");
	assert_int_equal(s.pipelined.batches, 3);
	assert_int_equal(s.pipelined.makespan_ns, US(70));
	assert_int_equal(s.pipelined.saving_ns, 0);
	assert_int_equal(s.pipelined.n_preconditions, 0);

	/* A chain: every kernel depends on the copies or they on it, so no
	 * order hides them: nothing is missed. */
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 0);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* ---- Example 2: two batches of in 12 / compute 40 / out 10 -------------- */

/* One stream, recorded serially: 124 us; the what-if pipelines to 102. */
static void serial_loop(struct tb *b, uint8_t host)
{
	uint32_t s;

	tb_init(b, 0);
	s = tb_stream(b, 7, 0);
	for (int k = 0; k < 2; k++) {
		int64_t o = 62 * k;
		uint64_t c = 1 + 3 * (uint64_t)k;

		tb_copy(b, s, GS_COPY_HTOD, host, AT(o), AT(o + 12), c);
		tb_kernel(b, s, AT(o + 12), AT(o + 52), c + 1, "compute");
		tb_copy(b, s, GS_COPY_DTOH, host, AT(o + 52), AT(o + 62), c + 2);
	}
	for (uint64_t c = 1; c <= 6; c++)
		tb_launch(b, c, AT(-20) + (int64_t)c, AT(-20) + (int64_t)c + 1);
}

static void test_example2_serial(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	serial_loop(&b, GS_MEM_PINNED);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(124));
	assert_int_equal(s.dependency_bound_ns, US(124));
	assert_int_equal(s.ideal_ns, US(124));
	assert_true(s.efficiency == 1.0);
	assert_int_equal(s.n_critical, 6);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 1)), GS_BOUND_HOST_LAUNCH);
	for (uint64_t c = 2; c <= 6; c++)
		assert_int_equal(gs_schedule_bound_by(&s, OP(&b, c)), GS_BOUND_STREAM_ORDER);
	/* The stream_order edge out0 -> in1 is dropped: in1 runs under c0. */
	assert_int_equal(s.pipelined.batches, 2);
	assert_int_equal(s.pipelined.makespan_ns, US(102));
	assert_int_equal(s.pipelined.saving_ns, US(22));
	/* The ideal is the recorded 124 us: all 22 us are pipelining's. */
	assert_int_equal(s.pipelined.saving_vs_ideal_ns, US(22));
	assert_int_equal(s.pipelined.n_preconditions, 0);
	assert_int_equal(gs_schedule_pipelined_start(&s, OP(&b, 4)), AT(12));
	assert_int_equal(gs_schedule_pipelined_start(&s, OP(&b, 5)), AT(52));
	assert_int_equal(gs_schedule_pipelined_start(&s, OP(&b, 6)), AT(92));
	assert_int_equal(gs_schedule_pipelined_start(&s, OP(&b, 3)), AT(52));

	/* in1 could hide under c0 and out0 under c1: one stream is what is
	 * missing. in0 and out1 are exposed in every order. */
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].op, OP(&b, 4));
	assert_int_equal(m[0].kernel, OP(&b, 2));
	assert_int_equal(m[0].exposed_ns, US(12));
	assert_int_equal(m[0].missing, GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].bound_by, GS_BOUND_STREAM_ORDER);
	assert_int_equal(m[0].hideable_ns, US(12));
	assert_int_equal(m[1].op, OP(&b, 3));
	assert_int_equal(m[1].kernel, OP(&b, 5));
	assert_int_equal(m[1].exposed_ns, US(10));
	assert_int_equal(m[1].missing, GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[1].bound_by, GS_BOUND_STREAM_ORDER);
	assert_int_equal(m[1].hideable_ns, US(10));
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* The same loop with pageable memory: the host waits for each copy
 * (sync_copy edges to the next op launched), pinned memory is missing and
 * a precondition of the what-if, which still saves 22 us. */
static void test_serial_pageable(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	serial_loop(&b, GS_MEM_PAGEABLE);
	tb_edge(&b, 1, 2, GS_EDGE_SYNC_COPY);
	tb_edge(&b, 3, 4, GS_EDGE_SYNC_COPY);
	tb_edge(&b, 4, 5, GS_EDGE_SYNC_COPY);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(124));
	assert_int_equal(s.ideal_ns, US(124));
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 2)), GS_BOUND_SYNC_COPY);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 4)), GS_BOUND_SYNC_COPY);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 3)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(s.pipelined.makespan_ns, US(102));
	assert_int_equal(s.pipelined.saving_ns, US(22));
	assert_int_equal(s.pipelined.n_preconditions, 1);
	assert_string_equal(s.pipelined.preconditions[0], "pinned_memory");

	missed(&b, &s, &m, &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].op, OP(&b, 4));
	assert_int_equal(m[0].missing, GS_COND_PINNED_MEMORY | GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].bound_by, GS_BOUND_SYNC_COPY);
	assert_int_equal(m[1].op, OP(&b, 3));
	assert_int_equal(m[1].missing, GS_COND_PINNED_MEMORY | GS_COND_CONCURRENT_RESOURCES);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* Memory kinds unknown: taken as pinned, said to be unverified. */
	serial_loop(&b, GS_MEM_UNKNOWN);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.pipelined.n_preconditions, 1);
	assert_string_equal(s.pipelined.preconditions[0], "pinned_memory (unverified)");
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].missing, GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].unverified, GS_COND_PINNED_MEMORY);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/*
 * Evidence of the independent condition. One stream, no data edges: only
 * stream order joins each copy and its kernel, so independence is unknown
 * (a possible missed overlap, hideable an upper bound), never met nor
 * missing. With data edges inside each batch, none between in1 and c0:
 * met. Memory kinds unknown: pinned_memory unknown too.
 */
static void test_evidence(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	serial_loop(&b, GS_MEM_PINNED);
	tb_build(&b);
	schedule(&b, NULL, &s);
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].op, OP(&b, 4));
	assert_int_equal(m[0].missing, GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].unknown, GS_COND_INDEPENDENT);
	assert_int_equal(m[0].hideable_ns, US(12));
	assert_int_equal(m[1].op, OP(&b, 3));
	assert_int_equal(m[1].missing, GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[1].unknown, GS_COND_INDEPENDENT);
	assert_int_equal(m[1].hideable_ns, US(10));
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* Data recorded: in0 -> c0 -> out0, in1 -> c1 -> out1. */
	serial_loop(&b, GS_MEM_PINNED);
	tb_edge(&b, 1, 2, GS_EDGE_DATA);
	tb_edge(&b, 2, 3, GS_EDGE_DATA);
	tb_edge(&b, 4, 5, GS_EDGE_DATA);
	tb_edge(&b, 5, 6, GS_EDGE_DATA);
	tb_build(&b);
	schedule(&b, NULL, &s);
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].op, OP(&b, 4));
	assert_int_equal(m[0].kernel, OP(&b, 2));
	assert_int_equal(m[0].missing, GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].unknown, 0);
	assert_int_equal(m[0].hideable_ns, US(12));
	assert_int_equal(m[1].unknown, 0);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* A data edge c0 -> in1 (in1 overwrites c0's input): dependent. The
	 * what-if keeps it (in1 after c0, c1 after in1: 114 us), so in1 hides
	 * nowhere, and out0 (52-62) ends before c1 starts (64): nothing is
	 * missed. */
	serial_loop(&b, GS_MEM_PINNED);
	tb_edge(&b, 1, 2, GS_EDGE_DATA);
	tb_edge(&b, 2, 3, GS_EDGE_DATA);
	tb_edge(&b, 2, 4, GS_EDGE_DATA);
	tb_edge(&b, 4, 5, GS_EDGE_DATA);
	tb_edge(&b, 5, 6, GS_EDGE_DATA);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.pipelined.makespan_ns, US(114));
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 0);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* Memory kinds not recorded: pinned_memory unknown as well. */
	serial_loop(&b, GS_MEM_UNKNOWN);
	tb_build(&b);
	schedule(&b, NULL, &s);
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].missing, GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].unknown, GS_COND_PINNED_MEMORY | GS_COND_INDEPENDENT);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* One batch, the kernel launched 8 us late: the what-if saves those 8 us
 * against the actual run but nothing against the ideal, which removes
 * them already. */
static void test_one_batch(void **state)
{
	struct tb b;
	struct gs_schedule s;
	uint32_t st;

	(void)state;
	tb_init(&b, 0);
	st = tb_stream(&b, 7, 0);
	tb_copy(&b, st, GS_COPY_HTOD, GS_MEM_PINNED, AT(0), AT(12), 1);
	tb_kernel(&b, st, AT(20), AT(60), 2, "compute");
	tb_copy(&b, st, GS_COPY_DTOH, GS_MEM_PINNED, AT(60), AT(70), 3);
	tb_launch(&b, 1, AT(-2), AT(-1));
	tb_launch(&b, 2, AT(19), AT(20));
	tb_launch(&b, 3, AT(-1), AT(0));
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(70));
	assert_int_equal(s.ideal_ns, US(62));
	assert_int_equal(s.pipelined.batches, 1);
	assert_int_equal(s.pipelined.makespan_ns, US(62));
	assert_int_equal(s.pipelined.saving_ns, US(8));
	assert_int_equal(s.pipelined.saving_vs_ideal_ns, 0);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* Example 2 on copy_in / compute / copy_out streams with events: already
 * pipelined. 102 us; nothing missed (in0 and out1 are inherent). */
static void test_example2_pipelined(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;
	uint32_t in, cmp, out;

	(void)state;
	tb_init(&b, 1);
	in = tb_stream(&b, 1, 0);
	cmp = tb_stream(&b, 2, 0);
	out = tb_stream(&b, 3, 0);
	tb_copy(&b, in, GS_COPY_HTOD, GS_MEM_PINNED, AT(0), AT(12), 1);
	tb_copy(&b, in, GS_COPY_HTOD, GS_MEM_PINNED, AT(12), AT(24), 4);
	tb_kernel(&b, cmp, AT(12), AT(52), 2, "compute");
	tb_kernel(&b, cmp, AT(52), AT(92), 5, "compute");
	tb_copy(&b, out, GS_COPY_DTOH, GS_MEM_PINNED, AT(52), AT(62), 3);
	tb_copy(&b, out, GS_COPY_DTOH, GS_MEM_PINNED, AT(92), AT(102), 6);
	for (uint64_t c = 1; c <= 6; c++)
		tb_launch(&b, c, AT(-20) + (int64_t)c, AT(-20) + (int64_t)c + 1);
	tb_edge(&b, 1, 2, GS_EDGE_EVENT);
	tb_edge(&b, 2, 3, GS_EDGE_EVENT);
	tb_edge(&b, 4, 5, GS_EDGE_EVENT);
	tb_edge(&b, 5, 6, GS_EDGE_EVENT);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(102));
	assert_int_equal(s.dependency_bound_ns, US(102));
	assert_int_equal(s.ideal_ns, US(102));
	assert_int_equal(s.pipelined.batches, 3);
	assert_int_equal(s.pipelined.makespan_ns, US(102));
	assert_int_equal(s.pipelined.saving_ns, 0);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 5)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 6)), GS_BOUND_EVENT);
	{
		static const uint64_t cp[] = {1, 2, 5, 6};
		static const int64_t cp_ns[] = {US(12), US(40), US(40), US(10)};

		check_critical(&s, &b, cp, cp_ns, 4);
	}
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 0);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* Three streams, one batch each (H2D 12, kernel 40, D2H 10), launched so
 * that kernels ran one after another: no missed overlap. Nothing tells the
 * kernels' share of the device, and the recorded run never ran two at
 * once: the ideal runs them one at a time too, so it is the run itself. */
static void test_three_streams(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;
	uint32_t st[3];

	(void)state;
	tb_init(&b, 1);
	for (int i = 0; i < 3; i++)
		st[i] = tb_stream(&b, 10 + (uint64_t)i, 0);
	/* H2D_i [12i, 12i+12); K_i after K_{i-1}; D2H_i after K_i. */
	tb_copy(&b, st[0], GS_COPY_HTOD, GS_MEM_PINNED, AT(0), AT(12), 1);
	tb_kernel(&b, st[0], AT(12), AT(52), 2, "k");
	tb_copy(&b, st[0], GS_COPY_DTOH, GS_MEM_PINNED, AT(52), AT(62), 3);
	tb_copy(&b, st[1], GS_COPY_HTOD, GS_MEM_PINNED, AT(12), AT(24), 4);
	tb_kernel(&b, st[1], AT(52), AT(92), 5, "k");
	tb_copy(&b, st[1], GS_COPY_DTOH, GS_MEM_PINNED, AT(92), AT(102), 6);
	tb_copy(&b, st[2], GS_COPY_HTOD, GS_MEM_PINNED, AT(24), AT(36), 7);
	tb_kernel(&b, st[2], AT(92), AT(132), 8, "k");
	tb_copy(&b, st[2], GS_COPY_DTOH, GS_MEM_PINNED, AT(132), AT(142), 9);
	for (uint64_t c = 1; c <= 9; c++)
		tb_launch(&b, c, AT(-20) + (int64_t)c, AT(-20) + (int64_t)c + 1);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(142));
	assert_int_equal(s.dependency_bound_ns, US(62));
	/* H2D copies share one engine: 0-12, 12-24, 24-36; the kernels run
	 * one after another, as recorded (each holds the whole device). */
	assert_int_equal(s.ideal_rule, GS_IDEAL_AS_RECORDED);
	assert_int_equal(s.recorded_kernels_at_once, 1);
	assert_int_equal(s.kernel_capacity, GS_SHARE_UNIT);
	assert_int_equal(s.ideal_ns, US(142));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 8)), AT(92));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 9)), AT(132));
	assert_int_equal(gs_schedule_delay_ns(b.t, &s, OP(&b, 8)), 0);
	assert_true(s.efficiency == 1.0);
	/* Kernels waited for the GPU, not for an edge: the latest candidate
	 * is the end of their own stream's copy. */
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 5)), GS_BOUND_STREAM_ORDER);
	/* One compute lane: the recorded order again. */
	assert_int_equal(s.pipelined.makespan_ns, US(142));
	assert_int_equal(s.pipelined.saving_ns, 0);
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 0);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* ---- Examples 3 and 4: copy 10, compute 20, sync 4 ---------------------- */

/*
 * Copy [0, 10) on stream 1 and compute on stream 2, recorded one after the
 * other (the kernel's launch returned at 10); a host sync then a 4 us op.
 * `dependent`: an event edge copy -> compute.
 */
static void copy_compute(struct tb *b, uint8_t host, bool dependent, int64_t copy_us)
{
	uint32_t s1, s2, s3;

	tb_init(b, 1);
	s1 = tb_stream(b, 1, 0);
	s2 = tb_stream(b, 2, 0);
	s3 = tb_stream(b, 3, 0);
	tb_copy(b, s1, GS_COPY_HTOD, host, AT(0), AT(copy_us), 1);
	tb_kernel(b, s2, AT(copy_us), AT(copy_us + 20), 2, "compute");
	tb_kernel(b, s3, AT(copy_us + 20), AT(copy_us + 24), 3, "sync");
	tb_launch(b, 1, AT(-5), AT(-4));
	tb_launch(b, 2, AT(copy_us - 2), AT(copy_us));
	tb_launch(b, 3, AT(copy_us + 20), AT(copy_us + 20));
	tb_edge(b, 1, 3, GS_EDGE_HOST_SYNC);
	tb_edge(b, 2, 3, GS_EDGE_HOST_SYNC);
	if (dependent)
		tb_edge(b, 1, 2, GS_EDGE_EVENT);
}

static void test_example3(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	/* Independent: serial 34, ideal 24, hidden 10. */
	copy_compute(&b, GS_MEM_PINNED, false, 10);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(34));
	assert_int_equal(s.ideal_ns, US(24));
	assert_int_equal(s.dependency_bound_ns, US(24));
	assert_int_equal(s.actual_ns - s.ideal_ns, US(10));
	assert_int_equal(gs_schedule_delay_ns(b.t, &s, OP(&b, 2)), US(10));
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 1)), GS_BOUND_HOST_LAUNCH);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 2)), GS_BOUND_HOST_LAUNCH);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 3)), GS_BOUND_HOST_SYNC);
	{
		static const uint64_t cp[] = {2, 3};
		static const int64_t cp_ns[] = {US(20), US(4)};

		check_critical(&s, &b, cp, cp_ns, 2);
	}
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 1);
	assert_int_equal(m[0].op, OP(&b, 1));
	assert_int_equal(m[0].kernel, OP(&b, 2));
	assert_int_equal(m[0].missing, 0);
	assert_int_equal(m[0].exposed_ns, US(10));
	assert_int_equal(m[0].hideable_ns, US(10));
	assert_int_equal(m[0].bound_by, GS_BOUND_HOST_LAUNCH);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* Dependent: 34 either way, nothing hidden, nothing missed. */
	copy_compute(&b, GS_MEM_PINNED, true, 10);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(34));
	assert_int_equal(s.ideal_ns, US(34));
	assert_int_equal(s.dependency_bound_ns, US(34));
	assert_true(s.efficiency == 1.0);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 2)), GS_BOUND_EVENT);
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 0);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* No copy time: speedup 1.0. */
	copy_compute(&b, GS_MEM_PINNED, false, 0);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(24));
	assert_int_equal(s.ideal_ns, US(24));
	assert_true(s.efficiency == 1.0);
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 0);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

static void test_example4(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;
	uint32_t s1, s2, s3;

	(void)state;
	/* Pageable: only pinned_memory is missing. */
	copy_compute(&b, GS_MEM_PAGEABLE, false, 10);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.pipelined.n_preconditions, 1);
	assert_string_equal(s.pipelined.preconditions[0], "pinned_memory");
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 1);
	assert_int_equal(m[0].missing, GS_COND_PINNED_MEMORY);
	/* Other streams, no path between them: independence is met. */
	assert_int_equal(m[0].unknown, 0);
	assert_int_equal(m[0].hideable_ns, US(10));
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* The single H2D engine is busy during the kernel: another 20 us
	 * copy C2 on a third stream ran under it. Only concurrent_resources
	 * is missing; C2's start was bound by the engine. */
	tb_init(&b, 1);
	s1 = tb_stream(&b, 1, 0);
	s2 = tb_stream(&b, 2, 0);
	s3 = tb_stream(&b, 3, 0);
	tb_copy(&b, s1, GS_COPY_HTOD, GS_MEM_PINNED, AT(0), AT(10), 1);
	tb_kernel(&b, s2, AT(10), AT(30), 2, "compute");
	tb_copy(&b, s3, GS_COPY_HTOD, GS_MEM_PINNED, AT(10), AT(30), 3);
	tb_launch(&b, 1, AT(-5), AT(-4));
	tb_launch(&b, 2, AT(8), AT(10));
	tb_launch(&b, 3, AT(4), AT(5));
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.copy_engines[GS_COPY_HTOD], 1);
	assert_int_equal(s.copy_concurrency[GS_COPY_HTOD], 1);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 3)), GS_BOUND_COPY_ENGINE);
	assert_int_equal(s.actual_ns, US(30));
	assert_int_equal(s.ideal_ns, US(30)); /* C2 still waits for C's engine */
	assert_int_equal(s.dependency_bound_ns, US(20));
	missed(&b, &s, &m, &n);
	assert_int_equal(n, 1);
	assert_int_equal(m[0].op, OP(&b, 1));
	assert_int_equal(m[0].kernel, OP(&b, 2));
	assert_int_equal(m[0].missing, GS_COND_CONCURRENT_RESOURCES);
	free(m);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* ---- windows, other devices, cycles, copy engines ---------------------- */

static void test_window_and_devices(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_window w = {.set = true, .start_ns = AT(62), .end_ns = AT(124)};
	uint32_t other;

	(void)state;
	serial_loop(&b, GS_MEM_PINNED);
	other = tb_stream(&b, 99, 1);
	tb_kernel(&b, other, AT(0), AT(500), 100, "elsewhere");
	tb_edge(&b, 100, 5, GS_EDGE_EVENT); /* another device's op into c1 */
	tb_build(&b);
	/* Device 1's kernel ends at 500: it binds c1 in every schedule. */
	schedule(&b, NULL, &s);
	assert_int_equal(s.n_scheduled, 6);
	assert_int_equal(s.actual_ns, US(124));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 100)), 0);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 100)), GS_BOUND_NONE);
	/* The recording broke that edge, so badly that the dependency bound
	 * is longer than the run: the run is no schedule of this graph, and
	 * the ideal stays the list schedule. */
	assert_false(s.ideal_is_recorded);
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 5)), AT(500));
	assert_int_equal(s.ideal_ns, US(550));
	assert_true(s.efficiency > 1.0);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* Only the second batch: out0 (outside) binds in1 at its recorded end. */
	serial_loop(&b, GS_MEM_PINNED);
	tb_build(&b);
	schedule(&b, &w, &s);
	assert_true(s.window_set);
	assert_int_equal(s.window_start, AT(62));
	assert_int_equal(s.window_end, AT(124));
	assert_int_equal(s.n_scheduled, 3);
	assert_int_equal(s.actual_ns, US(62));
	assert_int_equal(s.ideal_ns, US(62));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 4)), AT(62));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 1)), 0);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 4)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 1)), GS_BOUND_NONE);
	/* in1 is a batch start: its stream_order edge from out0 goes. */
	assert_int_equal(s.pipelined.batches, 1);
	assert_int_equal(s.pipelined.makespan_ns, US(62));
	assert_int_equal(gs_schedule_pipelined_start(&s, OP(&b, 4)), AT(62));
	gs_schedule_fini(&s);

	/* A window with no ops, and a device with none. */
	w.start_ns = AT(1000);
	w.end_ns = AT(2000);
	schedule(&b, &w, &s);
	assert_int_equal(s.n_scheduled, 0);
	assert_int_equal(s.actual_ns, 0);
	assert_int_equal(s.ideal_ns, 0);
	assert_true(s.efficiency == 1.0);
	assert_int_equal(s.n_critical, 0);
	gs_schedule_fini(&s);
	assert_int_equal(gs_schedule_compute(b.t, &b.g, 5, NULL, &s), GS_OK);
	assert_int_equal(s.n_scheduled, 0);
	gs_schedule_fini(&s);

	/* Bad arguments. */
	w.start_ns = AT(10);
	w.end_ns = AT(5);
	assert_int_equal(gs_schedule_compute(b.t, &b.g, 0, &w, &s), GS_ERR_INVALID);
	assert_null(s.slot_ideal_start);
	gs_schedule_fini(&s);
	b.g.n_ops++;
	assert_int_equal(gs_schedule_compute(b.t, &b.g, 0, NULL, &s), GS_ERR_INVALID);
	b.g.n_ops--;
	assert_int_equal(gs_schedule_compute(b.t, NULL, 0, NULL, &s), GS_ERR_INVALID);
	gs_error_clear();
	tb_fini(&b);
}

/*
 * `n` kernels of 50 us on n streams, recorded one after another (never two
 * at once), each launched long before it ran, on a device of 100 SMs of
 * compute capability 9.0 (64 warps, 32 blocks, 228 KiB per SM).
 */
static void occupancy_trace(struct tb *b, int n, const struct gs_launch_cfg *lc, uint32_t sms)
{
	tb_init_sms(b, 1, sms, 9, 0);
	for (int i = 0; i < n; i++) {
		uint32_t st = tb_stream(b, 10 + (uint64_t)i, 0);

		tb_kernel_cfg(b, st, AT(50 * i), AT(50 * i + 50), 1 + (uint64_t)i, "k", lc);
		tb_launch(b, 1 + (uint64_t)i, AT(-20) + i, AT(-20) + i + 1);
	}
	tb_build(b);
}

/* The ideal lets kernels run side by side only as far as their shares of
 * the device fit. */
static void test_occupancy(void **state)
{
	struct tb b;
	struct gs_schedule s;
	/* 1024 threads: 32 warps, 2 blocks per SM; 200 blocks fill 100 SMs. */
	struct gs_launch_cfg fill = {.grid = {200, 1, 1}, .block = {1024, 1, 1}};
	/* A tenth: 20 blocks of 1024 threads; or 256 threads held to 2 blocks
	 * per SM by 128 registers a thread (4096 a warp); or by 100 KiB of
	 * shared memory (plus the 1 KiB the runtime keeps per block). */
	struct gs_launch_cfg tenth[] = {
		{.grid = {20, 1, 1}, .block = {1024, 1, 1}},
		{.grid = {10, 2, 1}, .block = {64, 4, 1}, .registers = 128},
		{.grid = {20, 1, 1}, .block = {256, 1, 1}, .shared_mem = 100u << 10},
	};

	(void)state;
	/* Each fills the device: one at a time, the sum of their times. */
	occupancy_trace(&b, 10, &fill, 100);
	schedule(&b, NULL, &s);
	assert_int_equal(s.ideal_rule, GS_IDEAL_OCCUPANCY);
	assert_int_equal(s.kernels_by_occupancy, 10);
	assert_int_equal(s.actual_ns, US(500));
	assert_int_equal(s.dependency_bound_ns, US(50));
	assert_int_equal(s.ideal_ns, US(500));
	assert_int_equal(gs_schedule_slot(&s, OP(&b, 1)) != GS_NO_INDEX, 1);
	assert_int_equal(s.slot_share[gs_schedule_slot(&s, OP(&b, 1))], GS_SHARE_UNIT);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* A tenth each: ten run together, the eleventh and twelfth after. */
	for (size_t c = 0; c < sizeof(tenth) / sizeof(tenth[0]); c++) {
		occupancy_trace(&b, 12, &tenth[c], 100);
		schedule(&b, NULL, &s);
		assert_int_equal(s.ideal_rule, GS_IDEAL_OCCUPANCY);
		assert_int_equal(s.slot_share[gs_schedule_slot(&s, OP(&b, 1))], GS_SHARE_UNIT / 10);
		assert_int_equal(s.kernel_capacity, GS_SHARE_UNIT);
		assert_int_equal(s.ideal_ns, US(100));
		assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 10)), AT(0));
		assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 11)), AT(50));
		gs_schedule_fini(&s);
		tb_fini(&b);
	}

	/* No SM count: the rule is the recorded run's, one at a time. */
	occupancy_trace(&b, 4, &tenth[0], 0);
	schedule(&b, NULL, &s);
	assert_int_equal(s.ideal_rule, GS_IDEAL_AS_RECORDED);
	assert_int_equal(s.kernels_as_recorded, 4);
	assert_int_equal(s.ideal_ns, US(200));
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* The recorded run ran more than the device's worth of shares at once (a
 * share computed too large): the capacity grows to what it used, so the
 * recorded run stays feasible and the ideal no longer than it. */
static void test_capacity_recorded(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_launch_cfg fill = {.grid = {200, 1, 1}, .block = {1024, 1, 1}};
	uint32_t st[3];

	(void)state;
	tb_init_sms(&b, 1, 100, 9, 0);
	for (int i = 0; i < 3; i++)
		st[i] = tb_stream(&b, 10 + (uint64_t)i, 0);
	/* Two full kernels at once, then a third after them. */
	tb_kernel_cfg(&b, st[0], AT(0), AT(50), 1, "k", &fill);
	tb_kernel_cfg(&b, st[1], AT(10), AT(60), 2, "k", &fill);
	tb_kernel_cfg(&b, st[2], AT(60), AT(110), 3, "k", &fill);
	for (uint64_t c = 1; c <= 3; c++)
		tb_launch(&b, c, AT(-20) + (int64_t)c, AT(-20) + (int64_t)c + 1);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.recorded_peak_share, 2 * (uint64_t)GS_SHARE_UNIT);
	assert_int_equal(s.kernel_capacity, 2 * (uint64_t)GS_SHARE_UNIT);
	/* Two at a time from 0: 0-50, 0-50, then 50-100. */
	assert_int_equal(s.ideal_ns, US(100));
	assert_true(s.ideal_ns <= s.actual_ns);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/*
 * The gap by cause, worked by hand. One stream: A [0, 10); B [30, 40),
 * launched by a call [25, 27): 15 us host-bound (the host had not asked)
 * and 5 us launch latency; C [100, 110), launched at -20, started 60 us
 * after B although nothing recorded held it: unexplained. Ideal: A, B, C
 * back to back, 30 us; actual 110 us: a gap of 80 us.
 */
static void test_gap(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_gap gap;
	uint32_t st;

	(void)state;
	tb_init(&b, 1);
	st = tb_stream(&b, 7, 0);
	tb_kernel(&b, st, AT(0), AT(10), 1, "a");
	tb_kernel(&b, st, AT(30), AT(40), 2, "b");
	tb_kernel(&b, st, AT(100), AT(110), 3, "c");
	tb_launch(&b, 1, AT(-5), AT(-4));
	tb_launch(&b, 2, AT(25), AT(27));
	tb_launch(&b, 3, AT(-20), AT(-19));
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(110));
	assert_int_equal(s.ideal_ns, US(30));
	assert_int_equal(gs_schedule_gap(b.t, &b.g, &s, &gap), GS_OK);
	assert_true(gap.available);
	assert_int_equal(gap.chain_ops, 3);
	assert_int_equal(gap.gap_ns, US(80));
	assert_int_equal(gap.ns[GS_GAP_HOST_BOUND], US(15));
	assert_int_equal(gap.ns[GS_GAP_LAUNCH_LATENCY], US(5));
	assert_int_equal(gap.ns[GS_GAP_UNEXPLAINED], US(60));
	assert_int_equal(gap.ns[GS_GAP_STREAM_SERIAL], 0);
	/* The host-bound piece, for the host ranges: [10, 25) on the
	 * launching thread. */
	assert_int_equal(gap.n_host, 1);
	assert_int_equal(gap.host[0].start_ns, AT(10));
	assert_int_equal(gap.host[0].end_ns, AT(25));
	assert_int_equal(gap.host_charged_ns, US(15));
	gs_gap_fini(&gap);
	gs_schedule_fini(&s);
	tb_fini(&b);

	/* C 5 us after B instead: a start latency after the op before it on
	 * the stream, charged to stream order. */
	tb_init(&b, 1);
	st = tb_stream(&b, 7, 0);
	tb_kernel(&b, st, AT(0), AT(10), 1, "a");
	tb_kernel(&b, st, AT(30), AT(40), 2, "b");
	tb_kernel(&b, st, AT(45), AT(55), 3, "c");
	tb_launch(&b, 1, AT(-5), AT(-4));
	tb_launch(&b, 2, AT(25), AT(27));
	tb_launch(&b, 3, AT(-20), AT(-19));
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(gs_schedule_gap(b.t, &b.g, &s, &gap), GS_OK);
	assert_int_equal(gap.gap_ns, US(25));
	assert_int_equal(gap.ns[GS_GAP_HOST_BOUND], US(15));
	assert_int_equal(gap.ns[GS_GAP_LAUNCH_LATENCY], US(5));
	assert_int_equal(gap.ns[GS_GAP_STREAM_SERIAL], US(5));
	assert_int_equal(gap.ns[GS_GAP_UNEXPLAINED], 0);
	gs_gap_fini(&gap);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* A cycle (hostile graph): broken at the earliest op, counted, scheduled. */
static void test_cycle(void **state)
{
	struct tb b;
	struct gs_schedule s;
	uint32_t s1, s2;

	(void)state;
	tb_init(&b, 1);
	s1 = tb_stream(&b, 1, 0);
	s2 = tb_stream(&b, 2, 0);
	tb_kernel(&b, s1, AT(0), AT(10), 1, "a");
	tb_kernel(&b, s2, AT(10), AT(20), 2, "b");
	tb_kernel(&b, s1, AT(20), AT(30), 3, "c");
	tb_edge(&b, 1, 2, GS_EDGE_EVENT);
	tb_edge(&b, 2, 1, GS_EDGE_EVENT);
	tb_edge(&b, 2, 2, GS_EDGE_EVENT); /* a self loop is ignored */
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.broken_cycles, 1);
	assert_int_equal(s.n_scheduled, 3);
	/* a first (its in-edge from b dropped), then b, then c: one kernel
	 * at a time, as recorded. */
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 1)), AT(0));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 2)), AT(10));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 3)), AT(20));
	assert_int_equal(s.ideal_ns, US(30));
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* Two copy engines in the device record, three copies at once in the
 * trace: the ideal uses three and never fewer than the device's two. */
static void test_copy_engines(void **state)
{
	struct tb b;
	struct gs_schedule s;
	uint32_t st[4];

	(void)state;
	tb_init(&b, 2);
	for (int i = 0; i < 4; i++)
		st[i] = tb_stream(&b, 1 + (uint64_t)i, 0);
	tb_copy(&b, st[0], GS_COPY_HTOD, GS_MEM_PINNED, AT(0), AT(10), 1);
	tb_copy(&b, st[1], GS_COPY_HTOD, GS_MEM_PINNED, AT(2), AT(12), 2);
	tb_copy(&b, st[2], GS_COPY_HTOD, GS_MEM_PINNED, AT(4), AT(14), 3);
	tb_copy(&b, st[3], GS_COPY_HTOD, GS_MEM_PINNED, AT(14), AT(24), 4);
	tb_copy(&b, st[3], GS_COPY_DTOH, GS_MEM_PINNED, AT(24), AT(26), 5);
	tb_build(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.copy_concurrency[GS_COPY_HTOD], 3);
	assert_int_equal(s.copy_engines[GS_COPY_HTOD], 3);
	assert_int_equal(s.copy_engines[GS_COPY_DTOH], 2);
	assert_int_equal(s.copy_engines[GS_COPY_DTOD], 2);
	/* Copies 1-3 start at 0 on three engines; 4 on stream 4 is first on
	 * its stream: it takes the engine free first (at 10). */
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 2)), AT(0));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 3)), AT(0));
	assert_int_equal(gs_schedule_ideal_start(&s, OP(&b, 4)), AT(10));
	assert_int_equal(s.ideal_ns, US(22));
	assert_int_equal(s.dependency_bound_ns, US(12));
	/* Copy 4 had no other constraint: the last time all three engines
	 * were busy ended at 10 (copy 1). */
	assert_int_equal(gs_schedule_bound_by(&s, OP(&b, 4)), GS_BOUND_COPY_ENGINE);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_example1_chain),
		cmocka_unit_test(test_example2_serial),
		cmocka_unit_test(test_serial_pageable),
		cmocka_unit_test(test_evidence),
		cmocka_unit_test(test_one_batch),
		cmocka_unit_test(test_example2_pipelined),
		cmocka_unit_test(test_three_streams),
		cmocka_unit_test(test_example3),
		cmocka_unit_test(test_example4),
		cmocka_unit_test(test_window_and_devices),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_occupancy),
		cmocka_unit_test(test_capacity_recorded),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_copy_engines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
