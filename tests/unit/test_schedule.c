/* SPDX-License-Identifier: MIT */
/*
 * gs_analyzer: schedules, missed overlap, the pipelined_batches
 * what-if and CUDA Graph candidates (docs/design.md) on hand-built timelines
 * (the worked examples of docs/design.md) with hand-built dependency graphs,
 * property tests on random traces, and end-to-end runs from Kineto JSON
 * through gs_graph_build.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#define US(x) ((int64_t)(x)*1000)
#define T0 ((int64_t)1000000000)
#define AT(x) (T0 + US(x))
#define MAX_CORR 4096
#define MAX_EDGES 4096

/* ---- building traces and graphs by hand --------------------------------- */

struct tb_edge {
	uint64_t from, to; /* correlation ids */
	uint8_t kind;
};

struct tb {
	struct gs_trace *t;
	struct gs_sink *k;
	struct tb_edge e[MAX_EDGES];
	size_t n_e;
	bool no_stream_order; /* leave out the stream_order edges */
	struct gs_graph g;
	uint32_t *launch;         /* g.launch, which borrows it */
	uint32_t op_of[MAX_CORR]; /* correlation -> op index after tb_build */
	const struct gs_op *ops;
	size_t n_ops;
};

static uint32_t tb_str(struct tb *b, const char *s)
{
	uint32_t id = GS_NO_STRING;

	assert_int_equal(b->k->intern(b->k, s, strlen(s), &id), GS_OK);
	return id;
}

/* Device 0 with `sms` SMs of compute capability major.minor (0: unknown). */
static void tb_init_sms(struct tb *b, uint32_t copy_engines, uint32_t sms, uint32_t major,
			uint32_t minor)
{
	struct gs_device d = {.id = 0,
			      .name = GS_NO_STRING,
			      .uuid = GS_NO_STRING,
			      .sm_count = sms,
			      .cc_major = major,
			      .cc_minor = minor};
	struct gs_device d1 = {.id = 1, .name = GS_NO_STRING, .uuid = GS_NO_STRING};

	memset(b, 0, sizeof(*b));
	assert_int_equal(gs_trace_create(&b->t), GS_OK);
	b->k = gs_trace_borrow_sink(b->t);
	d.copy_engines = copy_engines;
	d1.copy_engines = copy_engines;
	assert_int_equal(b->k->device(b->k, &d), GS_OK);
	assert_int_equal(b->k->device(b->k, &d1), GS_OK);
}

static void tb_init(struct tb *b, uint32_t copy_engines)
{
	tb_init_sms(b, copy_engines, 0, 0, 0);
}

static uint32_t tb_stream(struct tb *b, uint64_t id, uint32_t device)
{
	struct gs_stream st = {.pid = 100,
			       .device = device,
			       .context = 1,
			       .stream_id = id,
			       .kind = GS_STREAM_NON_BLOCKING};
	uint32_t index = GS_NO_INDEX;

	assert_int_equal(b->k->stream(b->k, &st, &index), GS_OK);
	return index;
}

static void tb_push(struct tb *b, struct gs_op *o, const struct gs_launch_cfg *lc)
{
	assert_true(o->correlation > 0 && o->correlation < MAX_CORR);
	assert_int_equal(b->k->op(b->k, o, lc), GS_OK);
}

static void tb_kernel_cfg(struct tb *b, uint32_t s, int64_t start, int64_t end, uint64_t corr,
			  const char *name, const struct gs_launch_cfg *lc)
{
	struct gs_op o = {.start_ns = start,
			  .end_ns = end,
			  .correlation = corr,
			  .name = tb_str(b, name),
			  .stream = s,
			  .kind = GS_OP_KERNEL};

	tb_push(b, &o, lc);
}

static void tb_kernel(struct tb *b, uint32_t s, int64_t start, int64_t end, uint64_t corr,
		      const char *name)
{
	struct gs_launch_cfg lc = {.grid = {128, 1, 1}, .block = {256, 1, 1}};

	tb_kernel_cfg(b, s, start, end, corr, name, &lc);
}

/* A copy; `host` is the memory kind of its host side. */
static void tb_copy(struct tb *b, uint32_t s, uint8_t dir, uint8_t host, int64_t start, int64_t end,
		    uint64_t corr)
{
	struct gs_op o = {.start_ns = start,
			  .end_ns = end,
			  .correlation = corr,
			  .bytes = 1 << 20,
			  .name = tb_str(b, "Memcpy"),
			  .stream = s,
			  .kind = GS_OP_MEMCPY,
			  .copy_kind = dir,
			  .src_mem = GS_MEM_DEVICE,
			  .dst_mem = GS_MEM_DEVICE,
			  .flags = GS_OPF_ASYNC};

	if (dir == GS_COPY_HTOD)
		o.src_mem = host;
	else if (dir == GS_COPY_DTOH)
		o.dst_mem = host;
	tb_push(b, &o, NULL);
}

static void tb_launch(struct tb *b, uint64_t corr, int64_t start, int64_t end)
{
	struct gs_api_call c = {.start_ns = start,
				.end_ns = end,
				.pid = 100,
				.tid = 1,
				.correlation = corr,
				.name = tb_str(b, "cudaLaunchKernel"),
				.kind = GS_API_RUNTIME};

	assert_int_equal(b->k->api_call(b->k, &c), GS_OK);
}

static void tb_edge(struct tb *b, uint64_t from, uint64_t to, uint8_t kind)
{
	assert_true(b->n_e < MAX_EDGES);
	b->e[b->n_e++] = (struct tb_edge){from, to, kind};
}

static int cmp_edge(const void *pa, const void *pb)
{
	const struct gs_edge *a = pa, *b = pb;

	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->kind < b->kind ? -1 : a->kind > b->kind;
}

/* Finish the trace and build the graph: stream_order edges between
 * consecutive ops of each stream (unless no_stream_order), then the
 * listed edges; launch calls joined on correlation ids. */
static void tb_build(struct tb *b)
{
	size_t n_api, cap, n = 0, i;
	const struct gs_api_call *api;
	struct gs_edge *e;

	assert_int_equal(gs_trace_finish(b->t), GS_OK);
	b->ops = gs_trace_ops(b->t, &b->n_ops);
	api = gs_trace_api_calls(b->t, &n_api);
	for (i = 0; i < MAX_CORR; i++)
		b->op_of[i] = GS_NO_INDEX;
	for (i = 0; i < b->n_ops; i++)
		b->op_of[b->ops[i].correlation] = (uint32_t)i;
	cap = b->n_ops + b->n_e + 1;
	e = calloc(cap, sizeof(*e));
	assert_non_null(e);
	for (i = 1; i < b->n_ops && !b->no_stream_order; i++)
		if (b->ops[i].stream == b->ops[i - 1].stream)
			e[n++] = (struct gs_edge){.from = (uint32_t)(i - 1),
						  .to = (uint32_t)i,
						  .kind = GS_EDGE_STREAM_ORDER};
	for (i = 0; i < b->n_e; i++) {
		uint32_t f = b->op_of[b->e[i].from], t = b->op_of[b->e[i].to];

		assert_int_not_equal(f, GS_NO_INDEX);
		assert_int_not_equal(t, GS_NO_INDEX);
		e[n++] = (struct gs_edge){.from = f, .to = t, .kind = b->e[i].kind};
	}
	qsort(e, n, sizeof(*e), cmp_edge);
	b->g.n_edges = 0;
	for (i = 0; i < n; i++) {
		if (b->g.n_edges && !cmp_edge(&e[i], &e[b->g.n_edges - 1]))
			continue;
		e[b->g.n_edges++] = e[i];
	}
	b->g.edges = e;
	b->g.n_ops = b->n_ops;
	b->g.in_first = calloc(b->n_ops + 1, sizeof(*b->g.in_first));
	b->launch = calloc(b->n_ops + 1, sizeof(*b->launch));
	b->g.launch = b->launch;
	assert_non_null(b->g.in_first);
	assert_non_null(b->launch);
	for (i = 0; i < b->g.n_edges; i++) {
		b->g.in_first[e[i].to + 1]++;
		b->g.edge_count[e[i].kind]++;
		if (e[i].kind == GS_EDGE_DATA)
			b->g.has_data_edges = true;
	}
	for (i = 0; i < b->n_ops; i++)
		b->g.in_first[i + 1] += b->g.in_first[i];
	for (i = 0; i < b->n_ops; i++) {
		b->launch[i] = GS_NO_INDEX;
		for (size_t a = 0; a < n_api; a++)
			if (api[a].correlation == b->ops[i].correlation)
				b->launch[i] = (uint32_t)a;
	}
}

static void tb_fini(struct tb *b)
{
	free(b->g.edges);
	free(b->g.in_first);
	free(b->launch);
	gs_trace_destroy(b->t);
}

static uint32_t OP(const struct tb *b, uint64_t corr)
{
	return b->op_of[corr];
}

static void check_critical(const struct gs_schedule *s, const struct tb *b, const uint64_t *corr,
			   const int64_t *ns, size_t n)
{
	assert_int_equal(s->n_critical, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s->critical_path[i].op, OP(b, corr[i]));
		assert_int_equal(s->critical_path[i].ns, ns[i]);
	}
}

static void schedule(struct tb *b, const struct gs_window *w, struct gs_schedule *s)
{
	assert_int_equal(gs_schedule_compute(b->t, &b->g, 0, w, s), GS_OK);
}

static void missed(struct tb *b, const struct gs_schedule *s, struct gs_missed_overlap **m,
		   size_t *n)
{
	assert_int_equal(gs_missed_overlap_compute(b->t, &b->g, s, NULL, m, n), GS_OK);
}

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
		assert_int_equal(gs_schedule_delay_ns(&s, OP(&b, c)), 0);
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
	assert_int_equal(gs_schedule_delay_ns(&s, OP(&b, 8)), 0);
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
	assert_int_equal(gs_schedule_delay_ns(&s, OP(&b, 2)), US(10));
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

/* ---- property tests ------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

struct gen_op {
	uint64_t corr;
	uint32_t stream;
	uint8_t kind, dir;
	int64_t start, end;
};

/*
 * A random trace whose recording respects every edge: ops are placed one
 * by one, each after the end of the previous op of its stream and of its
 * random producers, after a random gap.
 */
static void random_trace(struct tb *b, bool *window_used, struct gs_window *w)
{
	struct gen_op g[40];
	int64_t stream_end[4] = {0};
	uint32_t streams[4];
	uint32_t n_streams = 1 + rnd(4), n = 2 + rnd(38);
	static const uint8_t dirs[] = {GS_COPY_HTOD, GS_COPY_DTOH, GS_COPY_DTOD};

	tb_init(b, rnd(3));
	for (uint32_t i = 0; i < n_streams; i++)
		streams[i] = tb_stream(b, 1 + i, i == 3 && rnd(2) ? 1 : 0);
	for (uint32_t i = 0; i < n; i++) {
		struct gen_op *o = &g[i];
		int64_t ready;
		uint32_t k = rnd(10);

		o->corr = i + 1;
		o->stream = rnd(n_streams);
		o->kind = k < 5 ? GS_OP_KERNEL : k < 9 ? GS_OP_MEMCPY : GS_OP_MEMSET;
		o->dir = dirs[rnd(3)];
		ready = stream_end[o->stream];
		for (uint32_t e = 0; i && e < rnd(3); e++) {
			uint32_t p = rnd(i);
			static const uint8_t kinds[] = {GS_EDGE_EVENT, GS_EDGE_HOST_SYNC,
							GS_EDGE_DATA, GS_EDGE_SYNC_COPY,
							GS_EDGE_DEFAULT_STREAM};

			tb_edge(b, g[p].corr, o->corr, kinds[rnd(5)]);
			if (g[p].end > ready)
				ready = g[p].end;
		}
		o->start = ready + (rnd(3) ? (int64_t)rnd(20) : 0);
		o->end = o->start + (rnd(8) ? 1 + (int64_t)rnd(30) : 0);
		stream_end[o->stream] = o->end;
		if (o->kind == GS_OP_KERNEL) {
			tb_kernel(b, streams[o->stream], T0 + o->start, T0 + o->end, o->corr, "k");
		} else if (o->kind == GS_OP_MEMCPY) {
			tb_copy(b, streams[o->stream], o->dir,
				rnd(4) ? GS_MEM_PINNED : GS_MEM_PAGEABLE, T0 + o->start,
				T0 + o->end, o->corr);
		} else {
			struct gs_op ms = {.start_ns = T0 + o->start,
					   .end_ns = T0 + o->end,
					   .correlation = o->corr,
					   .name = tb_str(b, "Memset"),
					   .stream = streams[o->stream],
					   .kind = GS_OP_MEMSET};

			tb_push(b, &ms, NULL);
		}
		if (rnd(2))
			tb_launch(b, o->corr, T0 + o->start - (int64_t)rnd(40),
				  T0 + o->start - (int64_t)rnd(10) + 5);
	}
	*window_used = rnd(4) == 0;
	w->set = *window_used;
	w->start_ns = T0 + (int64_t)rnd(100);
	w->end_ns = w->start_ns + (int64_t)rnd(400);
}

static bool in_schedule(const struct tb *b, const struct gs_schedule *s, size_t i)
{
	size_t n_streams;
	const struct gs_stream *st = gs_trace_streams(b->t, &n_streams);
	const struct gs_op *op = &b->ops[i];

	if (st[op->stream].device != s->device)
		return false;
	return !s->window_set || (op->start_ns >= s->window_start && op->start_ns < s->window_end);
}

static int64_t dur(const struct gs_op *op)
{
	return op->end_ns - op->start_ns;
}

static uint64_t share_of(const struct gs_schedule *s, size_t op)
{
	uint32_t k = gs_schedule_slot(s, (uint32_t)op);

	return k == GS_NO_INDEX ? 0 : s->slot_share[k];
}

/* Starts (per op, for the ops of the schedule) never run more than
 * `cap[d]` copies of direction d at once, nor kernels whose shares add up
 * to more than the capacity; the capacity holds the recorded run. */
static void check_capacity(const struct tb *b, const struct gs_schedule *s, const int64_t *start,
			   const uint32_t *cap)
{
	for (size_t i = 0; i < b->n_ops; i++) {
		const struct gs_op *a = &b->ops[i];
		uint32_t count = 0;
		uint64_t used = share_of(s, i), recorded = share_of(s, i);

		if (!in_schedule(b, s, i) || dur(a) == 0)
			continue;
		/* Count copies of a's direction running at a's start. */
		for (size_t j = 0; j < b->n_ops; j++) {
			const struct gs_op *c = &b->ops[j];

			if (!in_schedule(b, s, j) || dur(c) == 0)
				continue;
			if (a->kind == GS_OP_MEMCPY && c->kind == GS_OP_MEMCPY &&
			    c->copy_kind == a->copy_kind && start[j] <= start[i] &&
			    start[j] + dur(c) > start[i])
				count++;
			if (j != i && start[j] <= start[i] && start[j] + dur(c) > start[i])
				used += share_of(s, j);
			if (j != i && c->start_ns <= a->start_ns && c->end_ns > a->start_ns)
				recorded += share_of(s, j);
		}
		if (a->kind == GS_OP_MEMCPY)
			assert_true(count <= cap[a->copy_kind]);
		if (a->kind == GS_OP_KERNEL) {
			assert_int_not_equal(share_of(s, i), 0);
			assert_true(used <= s->kernel_capacity);
			assert_true(recorded <= s->kernel_capacity);
		} else {
			assert_int_equal(share_of(s, i), 0);
		}
	}
}

static void check_edges(const struct tb *b, const struct gs_schedule *s, const int64_t *start,
			bool pipelined)
{
	for (size_t i = 0; i < b->n_ops; i++) {
		if (!in_schedule(b, s, i))
			continue;
		assert_true(start[i] >= s->window_start);
		for (size_t e = b->g.in_first[i]; e < b->g.in_first[i + 1]; e++) {
			uint32_t f = b->g.edges[e].from;
			int64_t ready;

			if (pipelined && (b->g.edges[e].kind == GS_EDGE_STREAM_ORDER ||
					  b->g.edges[e].kind == GS_EDGE_SYNC_COPY))
				continue; /* the what-if may drop these */
			ready = in_schedule(b, s, f) ? start[f] + dur(&b->ops[f]) :
						       b->ops[f].end_ns;
			assert_true(start[i] >= ready);
		}
	}
}

struct ref_ev {
	int64_t t;
	int64_t delta;
};

static int cmp_ref_ev(const void *pa, const void *pb)
{
	const struct ref_ev *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->delta > 0) - (b->delta > 0); /* ends first */
}

/* The most share the ideal's kernels hold at one instant, by every
 * kernel's two events sorted (the invariant's plain definition). */
static uint64_t ref_peak_share(const struct gs_trace *t, const struct gs_schedule *s)
{
	size_t n_ops, n = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	struct ref_ev *ev = calloc(2 * s->n_slots + 1, sizeof(*ev));
	int64_t used = 0;
	uint64_t peak = 0;

	assert_non_null(ev);
	for (size_t r = 0; s->slot_share && r < s->n_slot_ranges; r++)
		for (size_t k = 0; k < s->slot_ranges[r].count; k++) {
			size_t v = s->slot_ranges[r].first + k, slot = s->slot_ranges[r].slot + k;
			int64_t a = s->slot_ideal_start[slot];
			int64_t d = ops[v].end_ns > ops[v].start_ns ?
					    ops[v].end_ns - ops[v].start_ns :
					    0;

			if (!s->slot_share[slot])
				continue;
			ev[n++] = (struct ref_ev){a, s->slot_share[slot]};
			ev[n++] = (struct ref_ev){a + d, -(int64_t)s->slot_share[slot]};
		}
	qsort(ev, n, sizeof(*ev), cmp_ref_ev);
	for (size_t i = 0; i < n; i++) {
		used += ev[i].delta;
		if (used > 0 && (uint64_t)used > peak)
			peak = (uint64_t)used;
	}
	free(ev);
	return peak;
}

/* The gap's causes add up to actual - ideal exactly, none negative; it is
 * split whenever the ideal is no longer than the run and no cycle was
 * broken. And what must hold of the schedule holds. */
static void check_gap_and_invariants(const struct gs_trace *t, const struct gs_graph *g,
				     const struct gs_schedule *s)
{
	struct gs_gap gap;
	struct gs_invariants inv;
	int64_t sum = 0;

	assert_int_equal(gs_schedule_gap(t, g, s, &gap), GS_OK);
	assert_int_equal(gap.gap_ns, s->actual_ns - s->ideal_ns);
	if (!s->broken_cycles && s->ideal_ns <= s->actual_ns && !gap.available)
		fail_msg("gap not split: actual %lld ideal %lld chain %zu recorded %d",
			 (long long)s->actual_ns, (long long)s->ideal_ns, gap.chain_ops,
			 s->ideal_is_recorded);
	if (gap.available) {
		for (unsigned c = 0; c < GS_GAP_CAUSE_COUNT; c++) {
			assert_true(gap.ns[c] >= 0);
			sum += gap.ns[c];
		}
		assert_int_equal(sum, s->actual_ns - s->ideal_ns);
		assert_true(gap.host_charged_ns >= gap.ns[GS_GAP_HOST_BOUND]);
	}
	gs_gap_fini(&gap);
	assert_int_equal(gs_schedule_check(t, g, s, &inv), GS_OK);
	assert_false(inv.over_capacity);
	assert_false(inv.ideal_above_actual);
	assert_true(inv.ideal_peak_share <= s->kernel_capacity);
	assert_int_equal(inv.ideal_peak_share, ref_peak_share(t, s));
	if (!inv.actual_early && !s->broken_cycles)
		assert_true(s->ideal_ns <= s->actual_ns);
}

/* Per op of the trace: its ideal (or pipelined) start, 0 when not scheduled. */
static int64_t *starts_of(const struct tb *b, const struct gs_schedule *s, bool pipelined)
{
	int64_t *v = calloc(b->n_ops + 1, sizeof(*v));

	assert_non_null(v);
	for (size_t i = 0; i < b->n_ops; i++)
		v[i] = pipelined ? gs_schedule_pipelined_start(s, (uint32_t)i) :
				   gs_schedule_ideal_start(s, (uint32_t)i);
	return v;
}

static void test_property_random(void **state)
{
	(void)state;
	for (int iter = 0; iter < 3000; iter++) {
		struct tb b;
		struct gs_schedule s;
		struct gs_missed_overlap *m;
		struct gs_window w;
		bool windowed;
		size_t n;

		random_trace(&b, &windowed, &w);
		tb_build(&b);
		schedule(&b, windowed ? &w : NULL, &s);
		assert_int_equal(s.broken_cycles, 0);
		{
			int64_t *ideal = starts_of(&b, &s, false), *pl = starts_of(&b, &s, true);

			check_edges(&b, &s, ideal, false);
			check_capacity(&b, &s, ideal, s.copy_engines);
			check_edges(&b, &s, pl, true);
			check_capacity(&b, &s, pl, s.copy_engines);
			free(ideal);
			free(pl);
		}
		assert_true(s.ideal_ns <= s.actual_ns);
		assert_true(s.dependency_bound_ns <= s.ideal_ns);
		check_gap_and_invariants(b.t, &b.g, &s);
		assert_true(s.efficiency >= 0.0);
		assert_true(s.efficiency <= 1.0);
		for (size_t i = 0; i < b.n_ops; i++) {
			if (!in_schedule(&b, &s, i))
				continue;
			assert_true(gs_schedule_delay_ns(&s, i) >= 0);
			assert_int_equal(gs_schedule_delay_ns(&s, i),
					 b.ops[i].start_ns - gs_schedule_ideal_start(&s, i));
		}
		/* The critical path: consecutive ops joined by edges, summing to
		 * no more than the bound. */
		{
			int64_t sum = 0;

			for (size_t i = 0; i < s.n_critical; i++)
				sum += s.critical_path[i].ns;
			assert_true(sum <= s.dependency_bound_ns);
			assert_true(s.n_scheduled == 0 || s.n_critical >= 1);
		}
		assert_int_equal(gs_missed_overlap_compute(b.t, &b.g, &s, NULL, &m, &n), GS_OK);
		for (size_t i = 0; i < n; i++) {
			assert_true(m[i].exposed_ns > 0);
			assert_true(m[i].hideable_ns > 0 && m[i].hideable_ns <= m[i].exposed_ns);
			assert_true(b.ops[m[i].op].kind == GS_OP_MEMCPY);
			assert_true(b.ops[m[i].kernel].kind == GS_OP_KERNEL);
			if (i)
				assert_true(m[i - 1].exposed_ns >= m[i].exposed_ns);
		}
		free(m);
		gs_schedule_fini(&s);
		tb_fini(&b);
	}
}

/* ---- CUDA Graph candidates ----------------------------------------------- */

static void test_graph_candidates(void **state)
{
	struct tb b;
	struct gs_cudagraph_candidate *c;
	size_t n;
	uint32_t s1, s2, s3;
	static const char *const names[] = {"A", "B", "C"};
	uint64_t corr = 1;
	int64_t t = 0;

	(void)state;
	tb_init(&b, 1);
	s1 = tb_stream(&b, 1, 0);
	s2 = tb_stream(&b, 2, 0);
	s3 = tb_stream(&b, 3, 0);
	/* s1: D, then A B C four times; each kernel 10 us, 5 us gaps. */
	tb_kernel(&b, s1, AT(t), AT(t + 10), corr++, "D");
	t += 15;
	for (int r = 0; r < 4; r++)
		for (int k = 0; k < 3; k++, t += 15)
			tb_kernel(&b, s1, AT(t), AT(t + 10), corr++, names[k]);
	/* s2: the same from a CUDA Graph (gaps of 1 us). */
	t = 0;
	for (int r = 0; r < 3; r++) {
		for (int k = 0; k < 3; k++, t += 11) {
			struct gs_op o = {.start_ns = AT(t),
					  .end_ns = AT(t + 10),
					  .correlation = corr++,
					  .name = tb_str(&b, names[k]),
					  .stream = s2,
					  .kind = GS_OP_KERNEL,
					  .flags = GS_OPF_GRAPH};
			struct gs_launch_cfg lc = {.grid = {128, 1, 1},
						   .block = {256, 1, 1},
						   .graph_id = 1};

			tb_push(&b, &o, &lc);
		}
	}
	/* s3: A B twice only, then A B with another grid: no candidate. */
	t = 0;
	for (int r = 0; r < 3; r++) {
		for (int k = 0; k < 2; k++, t += 20) {
			struct gs_op o = {.start_ns = AT(t),
					  .end_ns = AT(t + 10),
					  .correlation = corr++,
					  .name = tb_str(&b, names[k]),
					  .stream = s3,
					  .kind = GS_OP_KERNEL};
			struct gs_launch_cfg lc = {.grid = {r == 2 ? 64u : 128u, 1, 1},
						   .block = {256, 1, 1}};

			tb_push(&b, &o, &lc);
		}
	}
	tb_build(&b);
	assert_int_equal(gs_cudagraph_candidates_compute(b.t, 0, NULL, &c, &n), GS_OK);
	assert_int_equal(n, 2);
	/* A B C: 4 repetitions, 2 gaps of 5 us each: 40 us. */
	assert_int_equal(c[0].stream, s1);
	assert_int_equal(c[0].length, 3);
	assert_int_equal(c[0].repetitions, 4);
	assert_int_equal(c[0].exposed_launch_ns, US(40));
	assert_false(c[0].already_graph);
	assert_int_equal(c[0].kernels[0], OP(&b, 2));
	assert_int_equal(c[0].kernels[1], OP(&b, 3));
	assert_int_equal(c[0].kernels[2], OP(&b, 4));
	/* s2: A B C three times, 2 gaps of 1 us: already a graph. */
	assert_int_equal(c[1].stream, s2);
	assert_int_equal(c[1].length, 3);
	assert_int_equal(c[1].repetitions, 3);
	assert_int_equal(c[1].exposed_launch_ns, US(6));
	assert_true(c[1].already_graph);
	gs_cudagraph_candidates_free(c, n);

	/* A window holding only two repetitions of s1 and s2: nothing. */
	{
		struct gs_window w = {.set = true, .start_ns = AT(15), .end_ns = AT(100)};

		assert_int_equal(gs_cudagraph_candidates_compute(b.t, 0, &w, &c, &n), GS_OK);
		assert_int_equal(n, 0);
		assert_null(c);
	}
	/* Another device: nothing. */
	assert_int_equal(gs_cudagraph_candidates_compute(b.t, 1, NULL, &c, &n), GS_OK);
	assert_int_equal(n, 0);
	gs_cudagraph_candidates_free(NULL, 0);
	tb_fini(&b);
}

/*
 * The CUDA Graph replay what-if on two candidates (kernels 10 us, no
 * launch records, window [0, 175)):
 *   s1: A B C four times, every 15 us (gaps of 5 us): 8 gaps inside the
 *       occurrences, 40 us; ends at 175;
 *   s2: X Y three times, every 30 us (gaps of 20 us): 3 gaps inside, 60 us;
 *       ends at 160.
 * Ideal: 120 us (s1's work). With 1 us per node a gap loses 4 us (s1) or
 * 19 us (s2), and every op moves earlier by what was removed at or before
 * its start, as far as stream order allows:
 *   s2 alone: D = 19, 38, 57 from 30, 90, 150: s1 ends at 127;
 *   s1 alone: D = 4 per B and C: s1's last kernel at 165 - 32: ends 143;
 *   both: s1 ends at 121 (1 us after its first kernel, then back to back).
 * With 5 us per node s1's gaps stay; s2 alone (15 us a gap) ends at 135.
 */
static void replay_trace(struct tb *b)
{
	static const char *const abc[] = {"A", "B", "C"}, *const xy[] = {"X", "Y"};
	uint32_t s1, s2;
	uint64_t corr = 1;

	tb_init(b, 1);
	s1 = tb_stream(b, 1, 0);
	s2 = tb_stream(b, 2, 0);
	for (int j = 0; j < 12; j++, corr++)
		tb_kernel(b, s1, AT(15 * j), AT(15 * j + 10), corr, abc[j % 3]);
	for (int j = 0; j < 6; j++, corr++)
		tb_kernel(b, s2, AT(30 * j), AT(30 * j + 10), corr, xy[j % 2]);
	tb_build(b);
}

static void test_graph_replay(void **state)
{
	struct tb b;
	struct gs_schedule s;
	struct gs_cudagraph_candidate *c;
	struct gs_what_if total, per[2];
	bool done[2];
	size_t n;

	(void)state;
	replay_trace(&b);
	schedule(&b, NULL, &s);
	assert_int_equal(s.actual_ns, US(175));
	assert_int_equal(s.ideal_ns, US(120));
	assert_int_equal(gs_cudagraph_candidates_compute(b.t, 0, NULL, &c, &n), GS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].stream, OP(&b, 13) < b.n_ops ? b.ops[OP(&b, 13)].stream : 0);
	assert_int_equal(c[0].exposed_launch_ns, US(60));
	assert_int_equal(c[0].n_gaps, 3);
	assert_int_equal(c[1].exposed_launch_ns, US(40));
	assert_int_equal(c[1].n_gaps, 8);
	assert_int_equal(c[1].gap_ops[0], OP(&b, 2));
	assert_int_equal(c[1].gap_ns[0], US(5));

	assert_int_equal(gs_cudagraph_replay_compute(b.t, &b.g, &s, c, n, 1000, &total, per, done),
			 GS_OK);
	assert_string_equal(total.name, "cuda_graph_replay");
	assert_int_equal(total.makespan_ns, US(121));
	assert_int_equal(total.saving_ns, US(54));
	assert_int_equal(total.saving_vs_ideal_ns, -US(1));
	assert_true(done[0] && done[1]);
	assert_int_equal(per[0].makespan_ns, US(127)); /* s2 */
	assert_int_equal(per[0].saving_ns, US(48));
	assert_int_equal(per[0].saving_vs_ideal_ns, -US(7));
	assert_int_equal(per[1].makespan_ns, US(143)); /* s1 */
	assert_int_equal(per[1].saving_ns, US(32));
	assert_int_equal(per[1].saving_vs_ideal_ns, -US(23));

	/* 5 us a node: s1's 5 us gaps are no longer than that and stay. */
	assert_int_equal(gs_cudagraph_replay_compute(b.t, &b.g, &s, c, n, 5000, &total, per, done),
			 GS_OK);
	assert_int_equal(total.makespan_ns, US(135));
	assert_int_equal(total.saving_ns, US(40));
	assert_int_equal(per[0].makespan_ns, US(135));
	assert_int_equal(per[1].makespan_ns, US(175));
	assert_int_equal(per[1].saving_ns, 0);

	/* Nothing to replay: the recorded run. */
	assert_int_equal(gs_cudagraph_replay_compute(b.t, &b.g, &s, c, 0, 1000, &total, NULL, NULL),
			 GS_OK);
	assert_int_equal(total.makespan_ns, US(175));
	gs_cudagraph_candidates_free(c, n);
	gs_schedule_fini(&s);
	tb_fini(&b);
}

/* A long periodic stream: the longest whole number of periods under the
 * length limit covers the most gaps (30 = 10 x ABC: 29 gaps a time). */
/*
 * What a graph would not remove is never credited to a candidate:
 *   s1: two NCCL kernels 21.7 ms apart, four times (the gap is far over
 *       launch overhead, and both are communication kernels): nothing;
 *   s2: the same two NCCL kernels 3 us apart, four times: nothing either
 *       (communication kernels wait for other ranks; they end a sequence);
 *   s3: A, 5 us, B, 4 us, ncclAllReduce, 6 us, C, 200 us, D, 150 us, four
 *       times: only A B repeats without a break, and its 5 us gaps are all
 *       that is credited (not the 4 or 6 us beside the NCCL kernel, not the
 *       200 us before D).
 */
static void test_graph_candidates_breaks(void **state)
{
	struct tb b;
	struct gs_cudagraph_candidate *c;
	size_t n;
	uint32_t s1, s2, s3;
	uint64_t corr = 1;
	int64_t t;

	(void)state;
	tb_init(&b, 1);
	s1 = tb_stream(&b, 1, 0);
	s2 = tb_stream(&b, 2, 0);
	s3 = tb_stream(&b, 3, 0);
	t = 0;
	for (int r = 0; r < 4; r++) {
		tb_kernel(&b, s1, AT(t), AT(t + 10), corr++, "ncclDevKernel_AllGather_RING_LL");
		t += 10 + 21700;
		tb_kernel(&b, s1, AT(t), AT(t + 10), corr++, "ncclDevKernel_ReduceScatter_RING");
		t += 10 + 3;
	}
	t = 0;
	for (int r = 0; r < 4; r++) {
		tb_kernel(&b, s2, AT(t), AT(t + 10), corr++, "ncclDevKernel_AllGather_RING_LL");
		t += 10 + 3;
		tb_kernel(&b, s2, AT(t), AT(t + 10), corr++, "ncclDevKernel_ReduceScatter_RING");
		t += 10 + 3;
	}
	t = 0;
	for (int r = 0; r < 4; r++) {
		tb_kernel(&b, s3, AT(t), AT(t + 10), corr++, "A");
		t += 10 + 5;
		tb_kernel(&b, s3, AT(t), AT(t + 10), corr++, "B");
		t += 10 + 4;
		tb_kernel(&b, s3, AT(t), AT(t + 10), corr++, "ncclKernel_AllReduce_RING_LL_Sum");
		t += 10 + 6;
		tb_kernel(&b, s3, AT(t), AT(t + 10), corr++, "C");
		t += 10 + 200;
		tb_kernel(&b, s3, AT(t), AT(t + 10), corr++, "D");
		t += 10 + 150;
	}
	tb_build(&b);
	assert_int_equal(gs_cudagraph_candidates_compute(b.t, 0, NULL, &c, &n), GS_OK);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].stream, s3);
	assert_int_equal(c[0].length, 2);
	assert_int_equal(c[0].repetitions, 4);
	assert_int_equal(c[0].exposed_launch_ns, 4 * US(5));
	assert_int_equal(c[0].max_gap_ns, US(5));
	assert_int_equal(c[0].n_gaps, 4);
	assert_string_equal(gs_trace_string(b.t, b.ops[c[0].kernels[0]].name), "A");
	assert_string_equal(gs_trace_string(b.t, b.ops[c[0].kernels[1]].name), "B");
	gs_cudagraph_candidates_free(c, n);
	tb_fini(&b);
}

/*
 * The replay what-if never saves more than it removes: on random traces of
 * three streams (gaps of 0 to 300 us, some over launch overhead; random
 * event edges, some pointing back in time as a recording can have them),
 * each candidate alone saves between 0 and its exposed launch time, and
 * all of them together between 0 and the sum of theirs.
 */
static void test_graph_replay_bounded(void **state)
{
	static const char *const names[] = {"A", "B", "C", "ncclKernel_SendRecv"};

	(void)state;
	/* An edge the recording contradicts (Y ended at 30 us, X, which it
	 * points to, started at 0): with nothing removed, still the recorded
	 * run, not X moved after Y. */
	{
		struct tb b;
		struct gs_schedule s;
		struct gs_what_if total;

		tb_init(&b, 1);
		tb_kernel(&b, tb_stream(&b, 1, 0), AT(0), AT(10), 1, "X");
		tb_kernel(&b, tb_stream(&b, 2, 0), AT(5), AT(30), 2, "Y");
		tb_edge(&b, 2, 1, GS_EDGE_EVENT);
		tb_build(&b);
		schedule(&b, NULL, &s);
		assert_int_equal(gs_cudagraph_replay_compute(b.t, &b.g, &s, NULL, 0, 1000, &total,
							     NULL, NULL),
				 GS_OK);
		assert_int_equal(total.makespan_ns, US(30));
		assert_int_equal(total.saving_ns, 0);
		gs_schedule_fini(&s);
		tb_fini(&b);
	}
	for (int iter = 0; iter < 200; iter++) {
		struct tb b;
		struct gs_schedule s;
		struct gs_cudagraph_candidate *c;
		struct gs_what_if total, per[GS_REPLAY_MAX_CANDIDATES];
		bool done[GS_REPLAY_MAX_CANDIDATES];
		size_t n, nr, m = 0;
		uint64_t corr = 1;
		int64_t sum = 0;

		tb_init(&b, 1);
		for (uint32_t k = 0; k < 3; k++) {
			uint32_t st = tb_stream(&b, k + 1, 0);
			int64_t t = (int64_t)rnd(50);
			size_t len = 10 + rnd(60);

			for (size_t i = 0; i < len; i++, corr++) {
				int64_t d = 1 + rnd(20);

				tb_kernel(&b, st, AT(t), AT(t + d), corr, names[rnd(7) % 4]);
				t += d + (rnd(8) == 0 ? 100 + (int64_t)rnd(200) : (int64_t)rnd(12));
			}
			m += len;
		}
		for (int e = 0; e < 20; e++) {
			uint64_t f = 1 + rnd((uint32_t)m), to = 1 + rnd((uint32_t)m);

			if (f != to)
				tb_edge(&b, f, to, GS_EDGE_EVENT);
		}
		tb_build(&b);
		schedule(&b, NULL, &s);
		assert_int_equal(gs_cudagraph_candidates_compute(b.t, 0, NULL, &c, &n), GS_OK);
		nr = n < GS_REPLAY_MAX_CANDIDATES ? n : GS_REPLAY_MAX_CANDIDATES;
		if (!s.broken_cycles) {
			assert_int_equal(gs_cudagraph_replay_compute(b.t, &b.g, &s, c, nr, 1000,
								     &total, per, done),
					 GS_OK);
			for (size_t i = 0; i < nr; i++) {
				assert_true(c[i].max_gap_ns <= GS_CUDAGRAPH_MAX_GAP_NS);
				assert_true(c[i].exposed_launch_ns > 0);
				assert_true(done[i]);
				assert_true(per[i].saving_ns >= 0);
				assert_true(per[i].saving_ns <= c[i].exposed_launch_ns);
				for (size_t k = 0; k < c[i].length; k++)
					assert_null(strstr(
						gs_trace_string(b.t, b.ops[c[i].kernels[k]].name),
						"nccl"));
				sum += c[i].exposed_launch_ns;
			}
			assert_true(total.saving_ns >= 0);
			assert_true(total.saving_ns <= sum);
		}
		gs_cudagraph_candidates_free(c, n);
		gs_schedule_fini(&s);
		tb_fini(&b);
	}
}

static void test_graph_candidates_long(void **state)
{
	struct tb b;
	struct gs_cudagraph_candidate *c;
	size_t n;
	uint32_t s1;
	static const char *const names[] = {"A", "B", "C"};
	int64_t t = 0;

	(void)state;
	tb_init(&b, 1);
	s1 = tb_stream(&b, 1, 0);
	for (uint64_t i = 0; i < 300; i++, t += 3)
		tb_kernel(&b, s1, AT(t), AT(t + 2), i + 1, names[i % 3]);
	tb_build(&b);
	assert_int_equal(gs_cudagraph_candidates_compute(b.t, 0, NULL, &c, &n), GS_OK);
	assert_true(n >= 1);
	assert_int_equal(c[0].length, 30);
	assert_int_equal(c[0].repetitions, 10);
	assert_int_equal(c[0].exposed_launch_ns, 10 * 29 * US(1));
	gs_cudagraph_candidates_free(c, n);
	tb_fini(&b);
}

/* Random kernel sequences: the best candidate equals a brute-force search
 * over every length and pattern (occurrences taken leftmost first, never
 * overlapping). */
static void test_graph_candidates_property(void **state)
{
	static const char *const names[] = {"A", "B", "C", "D"};

	(void)state;
	for (int iter = 0; iter < 400; iter++) {
		struct tb b;
		struct gs_cudagraph_candidate *c;
		size_t n, m = 6 + rnd(50), alpha = 1 + rnd(3);
		uint32_t sig[64];
		int64_t gap[64], t = 0, best = 0;
		uint32_t s1;

		tb_init(&b, 1);
		s1 = tb_stream(&b, 1, 0);
		for (size_t i = 0; i < m; i++) {
			sig[i] = rnd((uint32_t)alpha + 1);
			gap[i] = i ? (int64_t)rnd(4) : 0;
			t += gap[i];
			tb_kernel(&b, s1, AT(t), AT(t + 3), i + 1, names[sig[i]]);
			t += 3;
		}
		tb_build(&b);
		for (size_t len = 2; len <= 32 && 3 * len <= m; len++) {
			for (size_t j = 0; j + len <= m; j++) {
				size_t reps = 0, next = 0, x;
				int64_t g = 0;

				for (x = 0; x < j; x++) /* counted from its first occurrence */
					if (!memcmp(&sig[x], &sig[j], len * sizeof(*sig)))
						break;
				if (x < j)
					continue;
				for (x = j; x + len <= m; x++) {
					if (x < next ||
					    memcmp(&sig[x], &sig[j], len * sizeof(*sig)))
						continue;
					reps++;
					for (size_t y = x + 1; y < x + len; y++)
						g += gap[y];
					next = x + len;
				}
				if (reps >= 3 && US(g) > best)
					best = US(g);
			}
		}
		assert_int_equal(gs_cudagraph_candidates_compute(b.t, 0, NULL, &c, &n), GS_OK);
		if (!best) {
			assert_int_equal(n, 0);
		} else {
			assert_true(n >= 1);
			assert_int_equal(c[0].exposed_launch_ns, best);
			assert_true(c[0].repetitions >= 3);
			for (size_t i = 1; i < n; i++)
				assert_true(c[i].exposed_launch_ns <= c[i - 1].exposed_launch_ns);
		}
		gs_cudagraph_candidates_free(c, n);
		tb_fini(&b);
	}
}

/* ---- end to end: Kineto JSON -> gs_graph_build -> schedules -------------- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long sz;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	sz = ftell(f);
	assert_true(sz >= 0);
	rewind(f);
	buf = malloc((size_t)sz + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	buf[sz] = '\0';
	*len = (size_t)sz;
	return buf;
}

static struct gs_trace *load_fixture(const char *name)
{
	char path[1024];
	size_t len;
	char *json;
	struct gs_trace *t = NULL;

	snprintf(path, sizeof(path), "%s/schedule/%s", GS_TEST_DATA, name);
	json = read_file(path, &len);
	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_import_kineto_mem(json, len, name, NULL, gs_trace_borrow_sink(t)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	free(json);
	return t;
}

static uint32_t op_by_corr(const struct gs_trace *t, uint64_t corr)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		if (ops[i].correlation == corr)
			return (uint32_t)i;
	fail_msg("no op with correlation %llu", (unsigned long long)corr);
	return GS_NO_INDEX;
}

static void test_kineto_serial_loop(void **state)
{
	struct gs_trace *t = load_fixture("serial_loop.json");
	struct gs_graph *g = NULL;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	assert_int_equal(g->edge_count[GS_EDGE_STREAM_ORDER], 5);
	assert_int_equal(gs_schedule_compute(t, g, 0, NULL, &s), GS_OK);
	assert_int_equal(s.actual_ns, US(124));
	assert_int_equal(s.ideal_ns, US(124));
	assert_int_equal(s.dependency_bound_ns, US(124));
	assert_int_equal(s.n_critical, 6);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 1)), GS_BOUND_HOST_LAUNCH);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 4)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(s.pipelined.batches, 2);
	assert_int_equal(s.pipelined.makespan_ns, US(102));
	assert_int_equal(s.pipelined.saving_ns, US(22));
	assert_int_equal(s.pipelined.n_preconditions, 0);
	assert_int_equal(gs_missed_overlap_compute(t, g, &s, NULL, &m, &n), GS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].op, op_by_corr(t, 4));
	assert_int_equal(m[0].kernel, op_by_corr(t, 2));
	assert_int_equal(m[0].exposed_ns, US(12));
	assert_int_equal(m[0].missing, GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].bound_by, GS_BOUND_STREAM_ORDER);
	assert_int_equal(m[0].hideable_ns, US(12));
	assert_int_equal(m[1].op, op_by_corr(t, 3));
	assert_int_equal(m[1].kernel, op_by_corr(t, 5));
	assert_int_equal(m[1].exposed_ns, US(10));
	assert_int_equal(m[1].missing, GS_COND_CONCURRENT_RESOURCES);
	free(m);
	gs_schedule_fini(&s);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

/*
 * Pageable memory: the DtoH calls return when their copy is done, so the
 * second batch starts 2 us late (126 us) and is bound by its launch. The
 * graph has sync_copy edges 1->2, 3->4, 4->5; the dependency bound and the
 * ideal keep them (124 us); the what-if assumes pinned memory (102 us).
 */
static void test_kineto_serial_pageable(void **state)
{
	struct gs_trace *t = load_fixture("serial_loop_pageable.json");
	struct gs_graph *g = NULL;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	/* The pageable HtoD calls (1 and 4) return before their copies end
	 * (the data is staged): no sync_copy edges from them; the DtoH call 3
	 * waits for its copy: one edge, to the next launch (4). */
	assert_int_equal(g->edge_count[GS_EDGE_SYNC_COPY], 1);
	assert_int_equal(g->n_returned_early, 2);
	assert_int_equal(g->returned_early[0], op_by_corr(t, 1));
	assert_int_equal(g->returned_early[1], op_by_corr(t, 4));
	assert_int_equal(gs_schedule_compute(t, g, 0, NULL, &s), GS_OK);
	assert_int_equal(s.actual_ns, US(126));
	assert_int_equal(s.dependency_bound_ns, US(124));
	assert_int_equal(s.ideal_ns, US(124));
	assert_int_equal(gs_schedule_delay_ns(&s, op_by_corr(t, 4)), US(2));
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 2)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 4)), GS_BOUND_HOST_LAUNCH);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 3)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(s.pipelined.makespan_ns, US(102));
	assert_int_equal(s.pipelined.saving_ns, US(24));
	assert_int_equal(s.pipelined.n_preconditions, 1);
	assert_string_equal(s.pipelined.preconditions[0], "pinned_memory");
	assert_int_equal(gs_missed_overlap_compute(t, g, &s, NULL, &m, &n), GS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].op, op_by_corr(t, 4));
	assert_int_equal(m[0].kernel, op_by_corr(t, 2));
	assert_int_equal(m[0].exposed_ns, US(12));
	assert_int_equal(m[0].missing, GS_COND_PINNED_MEMORY | GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].bound_by, GS_BOUND_HOST_LAUNCH);
	assert_int_equal(m[1].op, op_by_corr(t, 3));
	assert_int_equal(m[1].kernel, op_by_corr(t, 5));
	assert_int_equal(m[1].exposed_ns, US(10));
	assert_int_equal(m[1].missing, GS_COND_PINNED_MEMORY | GS_COND_CONCURRENT_RESOURCES);
	free(m);
	gs_schedule_fini(&s);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

static void test_kineto_pipelined(void **state)
{
	struct gs_trace *t = load_fixture("pipelined_events.json");
	struct gs_graph *g = NULL;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	assert_true(g->edge_count[GS_EDGE_EVENT] >= 4);
	assert_int_equal(gs_schedule_compute(t, g, 0, NULL, &s), GS_OK);
	assert_int_equal(s.actual_ns, US(102));
	assert_int_equal(s.dependency_bound_ns, US(102));
	assert_int_equal(s.ideal_ns, US(102));
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 14)), GS_BOUND_EVENT);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 4)), GS_BOUND_EVENT);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 11)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(gs_missed_overlap_compute(t, g, &s, NULL, &m, &n), GS_OK);
	assert_int_equal(n, 0);
	free(m);
	gs_schedule_fini(&s);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

static void test_kineto_graph_candidates(void **state)
{
	struct gs_trace *t = load_fixture("repeated_sequence.json");
	struct gs_cudagraph_candidate *c;
	size_t n;

	(void)state;
	assert_int_equal(gs_cudagraph_candidates_compute(t, 0, NULL, &c, &n), GS_OK);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].length, 3);
	assert_int_equal(c[0].repetitions, 3);
	/* Launch gaps of 4 us inside each of three "fwd, act, bwd". */
	assert_int_equal(c[0].exposed_launch_ns, 3 * 2 * US(4));
	assert_false(c[0].already_graph);
	gs_cudagraph_candidates_free(c, n);
	gs_trace_destroy(t);
}

/* ---- real traces ------------------------------------------------------- */

static bool exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

static void run_real(const char *path)
{
	struct gs_trace *t = NULL;
	struct gs_graph *g = NULL;
	uint32_t *dev;
	size_t n_dev, n_ops;
	const struct gs_op *ops;

	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	assert_int_equal(gs_trace_op_devices(t, &dev, &n_dev), GS_OK);
	ops = gs_trace_ops(t, &n_ops);
	for (size_t d = 0; d < n_dev; d++) {
		struct gs_schedule s;
		struct gs_missed_overlap *m;
		struct gs_cudagraph_candidate *c;
		size_t n, nc;

		assert_int_equal(gs_schedule_compute(t, g, dev[d], NULL, &s), GS_OK);
		assert_true(s.n_scheduled > 0);
		assert_true(s.dependency_bound_ns <= s.ideal_ns);
		assert_true(s.efficiency > 0.0 && s.efficiency <= 1.0);
		/* Every edge into a scheduled op is respected by the ideal. */
		for (size_t i = 0; i < n_ops; i++) {
			if (gs_op_device(t, &ops[i]) != dev[d])
				continue;
			for (size_t e = g->in_first[i]; e < g->in_first[i + 1]; e++) {
				uint32_t f = g->edges[e].from;
				int64_t ready = gs_op_device(t, &ops[f]) == dev[d] ?
							gs_schedule_ideal_start(&s, f) +
								(ops[f].end_ns - ops[f].start_ns) :
							ops[f].end_ns;

				if (s.broken_cycles == 0)
					assert_true(gs_schedule_ideal_start(&s, i) >= ready);
			}
		}
		check_gap_and_invariants(t, g, &s);
		print_message(
			"  %s device %u: %zu ops, actual %lld, bound %lld, ideal %lld "
			"(efficiency %.3f, %llu cycles broken), what-if %lld in %zu batches\n",
			strrchr(path, '/') + 1, dev[d], s.n_scheduled, (long long)s.actual_ns,
			(long long)s.dependency_bound_ns, (long long)s.ideal_ns, s.efficiency,
			(unsigned long long)s.broken_cycles, (long long)s.pipelined.makespan_ns,
			s.pipelined.batches);
		assert_int_equal(gs_missed_overlap_compute(t, g, &s, NULL, &m, &n), GS_OK);
		assert_int_equal(gs_cudagraph_candidates_compute(t, dev[d], NULL, &c, &nc), GS_OK);
		print_message("    %zu missed overlaps, %zu graph candidates\n", n, nc);
		free(m);
		gs_cudagraph_candidates_free(c, nc);
		gs_schedule_fini(&s);
	}
	free(dev);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

/* Every Kineto trace of ../shared/data/kineto/<dir>/. */
static void test_real_traces(void **state)
{
	static const char *const dirs[] = {"hta-critical-path", "hta-misc", "tb-plugin",
					   "tracelens"};
	char path[1024];
	size_t runs = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof(path), "%s/kineto/%s", GS_SHARED_DATA, dirs[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((e = readdir(d)) != NULL) {
			size_t len = strlen(e->d_name);

			if (len < 8 || strcmp(e->d_name + len - 8, ".json.gz") != 0)
				continue;
			snprintf(path, sizeof(path), "%s/kineto/%s/%s", GS_SHARED_DATA, dirs[i],
				 e->d_name);
			run_real(path);
			runs++;
		}
		closedir(d);
	}
	/* And the Nsight exports. */
	{
		static const char *const nsys[] = {"a100_cloverleaf.sqlite",
						   "a100_saxpy_mpi_rank0.sqlite"};

		for (size_t i = 0; i < sizeof(nsys) / sizeof(nsys[0]); i++) {
			snprintf(path, sizeof(path), "%s/nsys/pipit/%s", GS_SHARED_DATA, nsys[i]);
			if (exists(path)) {
				run_real(path);
				runs++;
			}
		}
	}
	assert_true(runs > 0);
}

/* Without arguments: the unit tests. With "shared": the real traces of
 * ../shared/data (exit 77 when it is absent). */
int main(int argc, char **argv)
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
		cmocka_unit_test(test_property_random),
		cmocka_unit_test(test_graph_candidates),
		cmocka_unit_test(test_graph_replay),
		cmocka_unit_test(test_graph_candidates_long),
		cmocka_unit_test(test_graph_candidates_breaks),
		cmocka_unit_test(test_graph_replay_bounded),
		cmocka_unit_test(test_graph_candidates_property),
		cmocka_unit_test(test_kineto_serial_loop),
		cmocka_unit_test(test_kineto_serial_pageable),
		cmocka_unit_test(test_kineto_pipelined),
		cmocka_unit_test(test_kineto_graph_candidates),
	};
	const struct CMUnitTest real[] = {
		cmocka_unit_test(test_real_traces),
	};

	if (argc > 1 && strcmp(argv[1], "shared") == 0) {
		if (!exists(GS_SHARED_DATA)) {
			printf("skipped: ../shared/data absent\n");
			return 77;
		}
		return cmocka_run_group_tests(real, NULL, NULL);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
