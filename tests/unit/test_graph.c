/* SPDX-License-Identifier: MIT */
/* The dependency graph and waits (docs/design.md) on hand-built traces. */
#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define PID 100
#define TID 101

struct tb {
	struct gs_trace *t;
	struct gs_sink *s;
};

static struct tb tb_new(void)
{
	struct tb b;

	assert_int_equal(gs_trace_create(&b.t), GS_OK);
	b.s = gs_trace_borrow_sink(b.t);
	return b;
}

static uint32_t tb_stream(struct tb *b, uint64_t id, uint8_t kind)
{
	struct gs_stream st = {.pid = PID, .device = 0, .context = 1, .stream_id = id, .kind = kind};
	uint32_t idx;

	assert_int_equal(b->s->stream(b->s, &st, &idx), GS_OK);
	return idx;
}

static uint32_t tb_str(struct tb *b, const char *s)
{
	uint32_t id;

	assert_int_equal(b->s->intern(b->s, s, strlen(s), &id), GS_OK);
	return id;
}

/* An API call [s, e) with correlation c on the test thread. */
static void tb_api(struct tb *b, const char *name, int64_t s, int64_t e, uint64_t c)
{
	struct gs_api_call a = {.start_ns = s,
				.end_ns = e,
				.pid = PID,
				.tid = TID,
				.correlation = c,
				.name = tb_str(b, name)};

	assert_int_equal(b->s->api_call(b->s, &a), GS_OK);
}

static void tb_op(struct tb *b, uint8_t kind, uint32_t stream, int64_t s, int64_t e, uint64_t c,
		  const char *name)
{
	struct gs_op op = {.kind = kind,
			   .stream = stream,
			   .start_ns = s,
			   .end_ns = e,
			   .correlation = c,
			   .name = tb_str(b, name),
			   .flags = GS_OPF_ASYNC};

	if (kind == GS_OP_MEMCPY) {
		op.copy_kind = GS_COPY_HTOD;
		op.src_mem = GS_MEM_PINNED;
		op.dst_mem = GS_MEM_DEVICE;
	}
	assert_int_equal(b->s->op(b->s, &op, NULL), GS_OK);
}

static void tb_sync(struct tb *b, uint8_t kind, uint32_t stream, int64_t s, int64_t e,
		    uint64_t corr, uint64_t event_corr, uint32_t wait_on, uint64_t sync_id)
{
	struct gs_sync y = {.kind = kind,
			    .start_ns = s,
			    .end_ns = e,
			    .pid = PID,
			    .tid = TID,
			    .correlation = corr,
			    .event_id = 5,
			    .sync_id = sync_id,
			    .event_correlation = event_corr,
			    .stream = stream,
			    .wait_on_stream = wait_on,
			    .device = 0};

	assert_int_equal(b->s->sync(b->s, &y), GS_OK);
}

static struct gs_graph *tb_graph(struct tb *b)
{
	struct gs_graph *g;

	assert_int_equal(gs_trace_finish(b->t), GS_OK);
	assert_int_equal(gs_graph_build(b->t, &g), GS_OK);
	return g;
}

/* Index of the op with correlation c. */
static uint32_t op_of(const struct tb *b, uint64_t c)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(b->t, &n);

	for (size_t i = 0; i < n; i++)
		if (ops[i].correlation == c)
			return (uint32_t)i;
	fail_msg("no op with correlation %llu", (unsigned long long)c);
	return GS_NO_INDEX;
}

static bool has_edge(const struct gs_graph *g, uint32_t from, uint32_t to, uint8_t kind)
{
	for (size_t e = g->in_first[to]; e < g->in_first[to + 1]; e++)
		if (g->edges[e].from == from && g->edges[e].kind == kind)
			return true;
	return false;
}

static size_t in_degree(const struct gs_graph *g, uint32_t to)
{
	return g->in_first[to + 1] - g->in_first[to];
}

/*
 * Producer kernel A on stream 7, event recorded after it; stream 9 waits on
 * the event, then runs B. Edge A -> B (event). B's launch returned at 110;
 * A ended at 300: B waited 190 ns.
 */
static void test_event_edge_and_wait(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s7 = tb_stream(&b, 7, GS_STREAM_UNKNOWN), s9 = tb_stream(&b, 9, 0);
	struct gs_graph *g;
	struct gs_wait *w;
	size_t nw;

	tb_api(&b, "cudaLaunchKernel", 0, 10, 10);
	tb_op(&b, GS_OP_KERNEL, s7, 100, 300, 10, "A");
	tb_api(&b, "cudaEventRecord", 20, 30, 11);
	tb_api(&b, "cudaStreamWaitEvent", 40, 50, 12);
	tb_sync(&b, GS_SYNC_STREAM_WAIT, s9, 40, 50, 12, 11, s7, 0);
	tb_api(&b, "cudaLaunchKernel", 100, 110, 13);
	tb_op(&b, GS_OP_KERNEL, s9, 300, 400, 13, "B");
	/* An earlier kernel on stream 9, before the wait: not a consumer. */
	tb_api(&b, "cudaLaunchKernel", 1, 2, 9);
	tb_op(&b, GS_OP_KERNEL, s9, 50, 60, 9, "B0");
	g = tb_graph(&b);
	assert_true(has_edge(g, op_of(&b, 10), op_of(&b, 13), GS_EDGE_EVENT));
	assert_false(has_edge(g, op_of(&b, 10), op_of(&b, 9), GS_EDGE_EVENT));
	assert_true(has_edge(g, op_of(&b, 9), op_of(&b, 13), GS_EDGE_STREAM_ORDER));
	assert_int_equal(g->edge_count[GS_EDGE_EVENT], 1);
	assert_int_equal(g->edge_count[GS_EDGE_STREAM_ORDER], 1);
	assert_int_equal(g->unlinked_waits, 0);
	assert_int_not_equal(g->launch[op_of(&b, 13)], GS_NO_INDEX);

	assert_int_equal(gs_waits_compute(b.t, g, &w, &nw), GS_OK);
	assert_int_equal(nw, 1);
	assert_int_equal(w[0].consumer, op_of(&b, 13));
	assert_int_equal(w[0].producer, op_of(&b, 10));
	assert_int_equal(w[0].kind, GS_EDGE_EVENT);
	assert_int_equal(w[0].event, 5);
	assert_int_equal(w[0].wait_ns, 190); /* ready at max(60, 110), A ends 300 */
	free(w);
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

/* The .gscope path: event record and wait joined on cudaEventSyncId. */
static void test_event_edge_by_sync_id(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0), s2 = tb_stream(&b, 2, 0);
	struct gs_event_record rec = {.time_ns = 25,
				      .correlation = 21,
				      .event_id = 5,
				      .sync_id = 777,
				      .stream = s1};
	struct gs_graph *g;

	tb_api(&b, "cudaLaunchKernel", 0, 10, 20);
	tb_op(&b, GS_OP_KERNEL, s1, 100, 200, 20, "P");
	tb_api(&b, "cudaLaunchKernel", 30, 35, 22); /* after the record: not the producer */
	tb_op(&b, GS_OP_KERNEL, s1, 200, 900, 22, "P2");
	assert_int_equal(b.s->event_record(b.s, &rec), GS_OK);
	tb_sync(&b, GS_SYNC_STREAM_WAIT, s2, 40, 41, 23, 0, GS_NO_INDEX, 777);
	tb_api(&b, "cudaLaunchKernel", 50, 60, 24);
	tb_op(&b, GS_OP_KERNEL, s2, 210, 300, 24, "C");
	g = tb_graph(&b);
	assert_true(has_edge(g, op_of(&b, 20), op_of(&b, 24), GS_EDGE_EVENT));
	assert_false(has_edge(g, op_of(&b, 22), op_of(&b, 24), GS_EDGE_EVENT));
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

/* A wait whose event cannot be found is counted, not guessed. */
static void test_unlinked_wait(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0);
	struct gs_graph *g;

	tb_api(&b, "cudaLaunchKernel", 0, 10, 1);
	tb_op(&b, GS_OP_KERNEL, s1, 100, 200, 1, "K");
	tb_sync(&b, GS_SYNC_STREAM_WAIT, s1, 40, 41, 2, 0, GS_NO_INDEX, 0);
	g = tb_graph(&b);
	assert_int_equal(g->unlinked_waits, 1);
	assert_int_equal(g->edge_count[GS_EDGE_EVENT], 0);
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

/* The count of the trace's warning holding `needle` (0: none). */
static uint64_t warning_count(const struct gs_trace *t, const char *needle)
{
	size_t n;
	const struct gs_warning *w = gs_trace_warnings(t, &n);

	for (size_t i = 0; i < n; i++)
		if (strstr(w[i].message, needle))
			return w[i].count;
	return 0;
}

/*
 * Stream waits whose event record the trace does not hold: found at finish
 * (gs_trace_sync_event_record) and counted in one loading warning, the waits
 * the graph then leaves unlinked. Held: by sync id, by the event key (the
 * record of the event before the wait). Not held: a sync id no record has,
 * an event id no record has. A wait that carries the recording stream and
 * the record's correlation links without it, and a host wait on an event is
 * no stream wait: neither is counted. A second finish sets the count again.
 */
static void test_unheld_wait_records(void **state)
{
	(void)state;
	static const char msg[] =
		"stream waits name an event record the trace does not hold; their dependencies "
		"are unknown";
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0), s2 = tb_stream(&b, 2, 0);
	struct gs_event_record rec = {.time_ns = 25,
				      .correlation = 21,
				      .event_id = 5,
				      .sync_id = 777,
				      .stream = s1};
	struct gs_sync other = {.kind = GS_SYNC_STREAM_WAIT,
				.start_ns = 70,
				.end_ns = 71,
				.pid = PID,
				.tid = TID,
				.correlation = 35,
				.event_id = 6,
				.stream = s2,
				.wait_on_stream = GS_NO_INDEX};
	const struct gs_sync *y;
	struct gs_graph *g;
	size_t n;

	tb_api(&b, "cudaLaunchKernel", 0, 10, 20);
	tb_op(&b, GS_OP_KERNEL, s1, 100, 200, 20, "P");
	assert_int_equal(b.s->event_record(b.s, &rec), GS_OK);
	tb_sync(&b, GS_SYNC_STREAM_WAIT, s2, 40, 41, 23, 0, GS_NO_INDEX, 777);    /* held */
	tb_sync(&b, GS_SYNC_STREAM_WAIT, s2, 42, 43, 24, 0, GS_NO_INDEX, 888);    /* not held */
	tb_sync(&b, GS_SYNC_STREAM_WAIT, s2, 44, 45, 25, 99, s1, 0);              /* carries it */
	tb_sync(&b, GS_SYNC_STREAM_WAIT, s2, 60, 61, 30, 0, GS_NO_INDEX, 0);      /* event 5 */
	assert_int_equal(b.s->sync(b.s, &other), GS_OK);                          /* event 6 */
	tb_sync(&b, GS_SYNC_EVENT, GS_NO_INDEX, 80, 81, 36, 0, GS_NO_INDEX, 999); /* host */
	tb_api(&b, "cudaLaunchKernel", 90, 95, 40);
	tb_op(&b, GS_OP_KERNEL, s2, 210, 300, 40, "C");
	g = tb_graph(&b);
	assert_int_equal(warning_count(b.t, msg), 2);
	assert_int_equal(g->unlinked_waits, 2);
	y = gs_trace_syncs(b.t, &n);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++) {
		bool held = (y[i].kind == GS_SYNC_STREAM_WAIT && y[i].sync_id == 777) ||
			    y[i].correlation == 30;

		assert_int_equal(gs_trace_sync_event_record(b.t, i), held ? 0 : GS_NO_INDEX);
	}
	gs_graph_destroy(g);
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	assert_int_equal(warning_count(b.t, msg), 2);
	gs_trace_destroy(b.t);
}

/*
 * Stream synchronize, then launches on two streams: the last op before the
 * sync feeds the first op launched on each stream after it returned.
 */
static void test_host_sync_edges(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0), s2 = tb_stream(&b, 2, 0);
	struct gs_graph *g;
	struct gs_wait *w;
	size_t nw;

	tb_api(&b, "cudaLaunchKernel", 0, 10, 1);
	tb_op(&b, GS_OP_KERNEL, s1, 20, 500, 1, "K1");
	tb_api(&b, "cudaStreamSynchronize", 15, 505, 2);
	tb_sync(&b, GS_SYNC_STREAM, s1, 15, 505, 2, 0, GS_NO_INDEX, 0);
	tb_api(&b, "cudaLaunchKernel", 510, 520, 3);
	tb_op(&b, GS_OP_KERNEL, s2, 530, 600, 3, "K2");
	tb_api(&b, "cudaLaunchKernel", 525, 528, 4);
	tb_op(&b, GS_OP_KERNEL, s1, 540, 700, 4, "K3");
	tb_api(&b, "cudaLaunchKernel", 529, 530, 5);
	tb_op(&b, GS_OP_KERNEL, s2, 600, 650, 5, "K4");
	g = tb_graph(&b);
	assert_true(has_edge(g, op_of(&b, 1), op_of(&b, 3), GS_EDGE_HOST_SYNC));
	assert_true(has_edge(g, op_of(&b, 1), op_of(&b, 4), GS_EDGE_HOST_SYNC));
	/* Only the first op of each stream: the rest follow by stream order. */
	assert_false(has_edge(g, op_of(&b, 1), op_of(&b, 5), GS_EDGE_HOST_SYNC));
	assert_int_equal(g->edge_count[GS_EDGE_HOST_SYNC], 2);
	/* The producer ended before the launches: the sync held nothing back. */
	assert_int_equal(gs_waits_compute(b.t, g, &w, &nw), GS_OK);
	assert_int_equal(nw, 0);
	free(w);
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

/* A context synchronize waits for the last op of every stream of the device. */
static void test_context_sync_edges(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0), s2 = tb_stream(&b, 2, 0);
	struct gs_graph *g;

	tb_api(&b, "cudaLaunchKernel", 0, 1, 1);
	tb_op(&b, GS_OP_KERNEL, s1, 10, 50, 1, "A");
	tb_api(&b, "cudaLaunchKernel", 2, 3, 2);
	tb_op(&b, GS_OP_KERNEL, s2, 10, 80, 2, "B");
	tb_sync(&b, GS_SYNC_CONTEXT, GS_NO_INDEX, 4, 85, 3, 0, GS_NO_INDEX, 0);
	tb_api(&b, "cudaLaunchKernel", 90, 91, 4);
	tb_op(&b, GS_OP_KERNEL, s1, 95, 99, 4, "C");
	g = tb_graph(&b);
	assert_true(has_edge(g, op_of(&b, 1), op_of(&b, 4), GS_EDGE_HOST_SYNC));
	assert_true(has_edge(g, op_of(&b, 2), op_of(&b, 4), GS_EDGE_HOST_SYNC));
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

/* A synchronous cudaMemcpy holds back what the thread launches after it. */
static void test_sync_copy_edges(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0), s2 = tb_stream(&b, 2, 0);
	struct gs_op copy = {.kind = GS_OP_MEMCPY,
			     .start_ns = 20,
			     .end_ns = 80,
			     .correlation = 1,
			     .copy_kind = GS_COPY_HTOD,
			     .src_mem = GS_MEM_PINNED,
			     .dst_mem = GS_MEM_DEVICE};
	struct gs_op pageable = copy;
	struct gs_graph *g;

	copy.stream = s1;
	copy.name = tb_str(&b, "Memcpy HtoD");
	tb_api(&b, "cudaMemcpy", 10, 85, 1);
	assert_int_equal(b.s->op(b.s, &copy, NULL), GS_OK);
	tb_api(&b, "cudaLaunchKernel", 90, 95, 2);
	tb_op(&b, GS_OP_KERNEL, s2, 100, 200, 2, "K");
	/* An async copy from pageable memory is host-synchronous too. */
	pageable.stream = s2;
	pageable.name = copy.name;
	pageable.correlation = 3;
	pageable.start_ns = 210;
	pageable.end_ns = 260;
	pageable.src_mem = GS_MEM_PAGEABLE;
	pageable.flags = GS_OPF_ASYNC;
	tb_api(&b, "cudaMemcpyAsync", 205, 262, 3);
	assert_int_equal(b.s->op(b.s, &pageable, NULL), GS_OK);
	tb_api(&b, "cudaLaunchKernel", 270, 275, 4);
	tb_op(&b, GS_OP_KERNEL, s1, 280, 300, 4, "K2");
	/* An async pinned copy is not. */
	tb_api(&b, "cudaMemcpyAsync", 301, 302, 5);
	tb_op(&b, GS_OP_MEMCPY, s2, 310, 320, 5, "Memcpy HtoD");
	tb_api(&b, "cudaLaunchKernel", 330, 331, 6);
	tb_op(&b, GS_OP_KERNEL, s1, 340, 350, 6, "K3");
	g = tb_graph(&b);
	assert_true(has_edge(g, op_of(&b, 1), op_of(&b, 2), GS_EDGE_SYNC_COPY));
	assert_true(has_edge(g, op_of(&b, 3), op_of(&b, 4), GS_EDGE_SYNC_COPY));
	assert_false(has_edge(g, op_of(&b, 5), op_of(&b, 6), GS_EDGE_SYNC_COPY));
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

/*
 * Legacy default stream between two blocking streams and a non-blocking
 * one: L waits for the blocking streams' earlier work and holds back their
 * later work; the non-blocking stream is untouched.
 */
/*
 * A pageable host-to-device cudaMemcpyAsync that returns once its data is
 * staged, before the copy ends: K, launched after the return, starts on
 * another stream before the copy ended. The host did not wait for the
 * copy, so there is no sync_copy edge copy -> K (it would point back in
 * time); the copy is listed as returned early. A second pageable copy
 * whose call returns after it ended keeps its edge. Two kernels that
 * overlap on one stream keep their stream-order edge, flagged as one the
 * recording contradicts.
 */
static void test_sync_copy_returned_early(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0), s2 = tb_stream(&b, 2, 0);
	struct gs_op copy = {.kind = GS_OP_MEMCPY,
			     .stream = s1,
			     .start_ns = 20,
			     .end_ns = 5000,
			     .correlation = 1,
			     .copy_kind = GS_COPY_HTOD,
			     .src_mem = GS_MEM_PAGEABLE,
			     .dst_mem = GS_MEM_DEVICE,
			     .flags = GS_OPF_ASYNC};
	struct gs_op late = copy;
	struct gs_graph *g;
	size_t n;
	const struct gs_op *ops;
	uint64_t flagged = 0;

	copy.name = tb_str(&b, "Memcpy HtoD (Pageable -> Device)");
	tb_api(&b, "cudaMemcpyAsync", 10, 400, 1); /* returns 4.6 us before the copy ends */
	assert_int_equal(b.s->op(b.s, &copy, NULL), GS_OK);
	tb_api(&b, "cudaLaunchKernel", 450, 460, 2);
	tb_op(&b, GS_OP_KERNEL, s2, 500, 700, 2, "K");
	late.name = copy.name;
	late.correlation = 3;
	late.start_ns = 6000;
	late.end_ns = 6500;
	tb_api(&b, "cudaMemcpyAsync", 5900, 6510, 3);
	assert_int_equal(b.s->op(b.s, &late, NULL), GS_OK);
	tb_api(&b, "cudaLaunchKernel", 6600, 6610, 4);
	tb_op(&b, GS_OP_KERNEL, s2, 6700, 6900, 4, "K2");
	/* K3 starts 50 ns before K2 ends, on K2's stream. */
	tb_api(&b, "cudaLaunchKernel", 6620, 6630, 5);
	tb_op(&b, GS_OP_KERNEL, s2, 6850, 7000, 5, "K3");
	g = tb_graph(&b);
	ops = gs_trace_ops(b.t, &n);
	assert_false(has_edge(g, op_of(&b, 1), op_of(&b, 2), GS_EDGE_SYNC_COPY));
	assert_int_equal(g->n_returned_early, 1);
	assert_int_equal(g->returned_early[0], op_of(&b, 1));
	assert_true(has_edge(g, op_of(&b, 3), op_of(&b, 4), GS_EDGE_SYNC_COPY));
	assert_true(has_edge(g, op_of(&b, 4), op_of(&b, 5), GS_EDGE_STREAM_ORDER));
	for (size_t e = 0; e < g->n_edges; e++) {
		const struct gs_edge *ed = &g->edges[e];
		bool early = ops[ed->from].end_ns > ops[ed->to].start_ns;

		assert_int_equal(early, (ed->flags & GS_EDGEF_RECORDED_EARLY) != 0);
		flagged += early;
		if (early) {
			assert_int_equal(ed->from, op_of(&b, 4));
			assert_int_equal(ed->to, op_of(&b, 5));
		}
	}
	assert_int_equal(flagged, 1);
	assert_int_equal(g->recorded_early[GS_EDGE_STREAM_ORDER], 1);
	assert_int_equal(g->recorded_early[GS_EDGE_SYNC_COPY], 0);
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

static void test_default_stream_edges(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t l = tb_stream(&b, 7, GS_STREAM_LEGACY_DEFAULT);
	uint32_t b1 = tb_stream(&b, 13, GS_STREAM_BLOCKING);
	uint32_t b2 = tb_stream(&b, 14, GS_STREAM_BLOCKING);
	uint32_t nb = tb_stream(&b, 15, GS_STREAM_NON_BLOCKING);
	struct gs_graph *g;

	tb_api(&b, "cudaLaunchKernel", 0, 1, 1);
	tb_op(&b, GS_OP_KERNEL, b1, 10, 100, 1, "B1");
	tb_api(&b, "cudaLaunchKernel", 2, 3, 2);
	tb_op(&b, GS_OP_KERNEL, b2, 10, 120, 2, "B2");
	tb_api(&b, "cudaLaunchKernel", 4, 5, 3);
	tb_op(&b, GS_OP_KERNEL, nb, 10, 50, 3, "N");
	tb_api(&b, "cudaLaunchKernel", 6, 7, 4);
	tb_op(&b, GS_OP_KERNEL, l, 120, 200, 4, "L");
	tb_api(&b, "cudaLaunchKernel", 8, 9, 5);
	tb_op(&b, GS_OP_KERNEL, b1, 200, 220, 5, "B1b");
	tb_api(&b, "cudaLaunchKernel", 10, 11, 6);
	tb_op(&b, GS_OP_KERNEL, nb, 60, 70, 6, "Nb");
	g = tb_graph(&b);
	assert_true(g->stream_kinds_known);
	assert_true(has_edge(g, op_of(&b, 1), op_of(&b, 4), GS_EDGE_DEFAULT_STREAM));
	assert_true(has_edge(g, op_of(&b, 2), op_of(&b, 4), GS_EDGE_DEFAULT_STREAM));
	assert_true(has_edge(g, op_of(&b, 4), op_of(&b, 5), GS_EDGE_DEFAULT_STREAM));
	assert_false(has_edge(g, op_of(&b, 3), op_of(&b, 4), GS_EDGE_DEFAULT_STREAM));
	assert_int_equal(in_degree(g, op_of(&b, 6)), 1); /* stream order only */
	assert_int_equal(g->edge_count[GS_EDGE_DEFAULT_STREAM], 3);
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

/* With --data-deps: ops touching one allocation are chained in time order. */
static void test_data_edges(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0), s2 = tb_stream(&b, 2, 0);
	struct gs_allocation a = {.address = 0x1000, .bytes = 4096};
	uint32_t ai, aj;
	struct gs_graph *g;

	assert_int_equal(b.s->allocation(b.s, &a, &ai), GS_OK);
	a.address = 0x9000;
	assert_int_equal(b.s->allocation(b.s, &a, &aj), GS_OK);
	tb_op(&b, GS_OP_MEMCPY, s1, 10, 20, 1, "copy");
	tb_op(&b, GS_OP_KERNEL, s2, 30, 40, 2, "k");
	tb_op(&b, GS_OP_KERNEL, s2, 50, 60, 3, "k2");
	struct gs_op_alloc links[] = {
		{.correlation = 1, .allocation = ai, .op_kind = GS_OP_MEMCPY},
		{.correlation = 3, .allocation = ai, .op_kind = GS_OP_KERNEL},
		{.correlation = 2, .allocation = aj, .op_kind = GS_OP_KERNEL},
	};
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(b.s->op_alloc(b.s, &links[i]), GS_OK);
	g = tb_graph(&b);
	assert_true(g->has_data_edges);
	assert_true(has_edge(g, op_of(&b, 1), op_of(&b, 3), GS_EDGE_DATA));
	assert_false(has_edge(g, op_of(&b, 1), op_of(&b, 2), GS_EDGE_DATA));
	assert_int_equal(g->edge_count[GS_EDGE_DATA], 1);
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

/*
 * A caching allocator's segment (GS_LINK_SEGMENT): ops are joined only where
 * their ranges are known to meet. A memset of [0, 4 KiB); two kernels at
 * 1 MiB (the same tensor: a data edge; the memset ends below them: none);
 * a kernel at 8 (inside the memset's range: a data edge from it; the
 * tensor at 1 MiB may reach down to it or not, its size unknown: a
 * segment edge, possible, outside the graph's edges).
 */
static void test_segment_edges(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s1 = tb_stream(&b, 1, 0), s2 = tb_stream(&b, 2, 0), s3 = tb_stream(&b, 3, 0);
	struct gs_allocation a = {.address = 0x7a0000000000ull, .bytes = 8u << 20};
	const uint8_t seg = GS_LINK_HAS_OFFSET | GS_LINK_SEGMENT;
	uint32_t ai;
	struct gs_graph *g;

	assert_int_equal(b.s->allocation(b.s, &a, &ai), GS_OK);
	tb_op(&b, GS_OP_MEMSET, s1, 10, 20, 1, "clear");
	tb_op(&b, GS_OP_KERNEL, s2, 30, 40, 2, "k_t");
	tb_op(&b, GS_OP_KERNEL, s3, 50, 60, 3, "k_t_again");
	tb_op(&b, GS_OP_KERNEL, s1, 70, 80, 4, "k_low");
	struct gs_op_alloc links[] = {
		{.correlation = 1,
		 .allocation = ai,
		 .op_kind = GS_OP_MEMSET,
		 .flags = seg,
		 .offset = 0,
		 .bytes = 4096},
		{.correlation = 2,
		 .allocation = ai,
		 .op_kind = GS_OP_KERNEL,
		 .flags = seg,
		 .offset = 1u << 20},
		{.correlation = 3,
		 .allocation = ai,
		 .op_kind = GS_OP_KERNEL,
		 .flags = seg,
		 .offset = 1u << 20},
		{.correlation = 4,
		 .allocation = ai,
		 .op_kind = GS_OP_KERNEL,
		 .flags = seg,
		 .offset = 8},
	};
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(b.s->op_alloc(b.s, &links[i]), GS_OK);
	g = tb_graph(&b);
	assert_true(g->has_data_edges);
	assert_int_equal(g->edge_count[GS_EDGE_DATA], 2);
	assert_true(has_edge(g, op_of(&b, 2), op_of(&b, 3), GS_EDGE_DATA));
	assert_true(has_edge(g, op_of(&b, 1), op_of(&b, 4), GS_EDGE_DATA));
	assert_false(has_edge(g, op_of(&b, 1), op_of(&b, 2), GS_EDGE_DATA));
	assert_false(has_edge(g, op_of(&b, 3), op_of(&b, 4), GS_EDGE_DATA));
	assert_int_equal(in_degree(g, op_of(&b, 2)), 0);
	assert_int_equal(g->n_segment_edges, 1);
	assert_int_equal(g->segment_edges[0].from, op_of(&b, 3));
	assert_int_equal(g->segment_edges[0].to, op_of(&b, 4));
	assert_int_equal(g->segment_edges[0].allocation, ai);
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);

	/* Without the mark (one buffer per allocation, or a trace written
	 * before offsets were): the same ops are chained, as before. */
	b = tb_new();
	s1 = tb_stream(&b, 1, 0);
	s2 = tb_stream(&b, 2, 0);
	s3 = tb_stream(&b, 3, 0);
	assert_int_equal(b.s->allocation(b.s, &a, &ai), GS_OK);
	tb_op(&b, GS_OP_MEMSET, s1, 10, 20, 1, "clear");
	tb_op(&b, GS_OP_KERNEL, s2, 30, 40, 2, "k_t");
	tb_op(&b, GS_OP_KERNEL, s3, 50, 60, 3, "k_t_again");
	tb_op(&b, GS_OP_KERNEL, s1, 70, 80, 4, "k_low");
	for (size_t i = 0; i < 4; i++) {
		links[i].flags &= (uint8_t)~GS_LINK_SEGMENT;
		assert_int_equal(b.s->op_alloc(b.s, &links[i]), GS_OK);
	}
	g = tb_graph(&b);
	assert_int_equal(g->edge_count[GS_EDGE_DATA], 3);
	assert_true(has_edge(g, op_of(&b, 1), op_of(&b, 2), GS_EDGE_DATA));
	assert_true(has_edge(g, op_of(&b, 3), op_of(&b, 4), GS_EDGE_DATA));
	assert_int_equal(g->n_segment_edges, 0);
	gs_graph_destroy(g);
	gs_trace_destroy(b.t);
}

/* The Kineto path: cuda_sync "Stream Wait Event" with wait_on_* args. */
static const char kineto_wait[] =
	"{\"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":5,\"tid\":6,"
	"\"ts\":1000,\"dur\":2,\"args\":{\"correlation\":10}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaEventRecord\",\"pid\":5,\"tid\":6,"
	"\"ts\":1003,\"dur\":1,\"args\":{\"correlation\":11}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamWaitEvent\",\"pid\":5,"
	"\"tid\":6,\"ts\":1005,\"dur\":1,\"args\":{\"correlation\":12}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":5,\"tid\":6,"
	"\"ts\":1007,\"dur\":2,\"args\":{\"correlation\":13}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"producer\",\"pid\":0,\"tid\":7,\"ts\":1010,"
	"\"dur\":50,\"args\":{\"device\":0,\"context\":1,\"stream\":7,\"correlation\":10}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Wait Event\",\"pid\":0,\"tid\":9,"
	"\"ts\":1005,\"dur\":1,\"args\":{\"cuda_sync_kind\":\"Stream Wait Event\",\"device\":0,"
	"\"context\":1,\"stream\":9,\"correlation\":12,\"wait_on_stream\":7,"
	"\"wait_on_cuda_event_record_corr_id\":11}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"consumer\",\"pid\":0,\"tid\":9,\"ts\":1060,"
	"\"dur\":20,\"args\":{\"device\":0,\"context\":1,\"stream\":9,\"correlation\":13}}\n"
	"]}\n";

static void test_kineto_wait_on_links(void **state)
{
	(void)state;
	struct gs_trace *t;
	struct gs_graph *g;
	struct gs_wait *w;
	size_t n, nw;
	const struct gs_op *ops;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_import_kineto_mem(kineto_wait, sizeof(kineto_wait) - 1, "wait.json",
					      NULL, gs_trace_borrow_sink(t)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	ops = gs_trace_ops(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(g->edge_count[GS_EDGE_EVENT], 1);
	assert_int_equal(g->edges[0].kind, GS_EDGE_EVENT);
	assert_string_equal(gs_trace_string(t, ops[g->edges[0].from].name), "producer");
	assert_string_equal(gs_trace_string(t, ops[g->edges[0].to].name), "consumer");
	/* The consumer's launch returned at 1009 µs; the producer ended at 1060 µs. */
	assert_int_equal(gs_waits_compute(t, g, &w, &nw), GS_OK);
	assert_int_equal(nw, 1);
	assert_int_equal(w[0].wait_ns, 51000);
	free(w);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

/* The real traces: the graph builds, every edge points at real ops and
 * forward in enqueue order, and the known facts of each trace hold. */
static void test_shared_traces(void **state)
{
	(void)state;
	static const struct {
		const char *path;
		bool has_event_edges;
		bool unlinked_calls;
	} traces[] = {
		{"kineto/hta-critical-path/simple_add.json.gz", false, false},
		{"kineto/hta-critical-path/cuda_event_sync.json.gz", false, false},
		{"kineto/hta-critical-path/cuda_event_sync_multi_stream.json.gz", true, false},
		{"kineto/hta-misc/a100_16rank_rank0_graphs_waits.json.gz", false, true},
		{"kineto/tb-plugin/v100_resnet50_workers0_2021-01.json.gz", false, false},
	};
	char path[1024];
	FILE *probe;

	snprintf(path, sizeof(path), "%s/kineto", GS_SHARED_DATA);
	probe = fopen(path, "r");
	if (!probe)
		skip();
	fclose(probe);
	for (size_t k = 0; k < sizeof(traces) / sizeof(traces[0]); k++) {
		struct gs_trace *t;
		struct gs_graph *g;
		struct gs_wait *w;
		size_t n, nw;
		const struct gs_op *ops;

		snprintf(path, sizeof(path), "%s/%s", GS_SHARED_DATA, traces[k].path);
		assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
		assert_int_equal(gs_graph_build(t, &g), GS_OK);
		ops = gs_trace_ops(t, &n);
		assert_int_equal(g->n_ops, n);
		assert_int_equal(g->in_first[n], g->n_edges);
		for (size_t e = 0; e < g->n_edges; e++) {
			const struct gs_edge *ed = &g->edges[e];

			assert_true(ed->from < n && ed->to < n && ed->from != ed->to);
			if (ed->kind != GS_EDGE_STREAM_ORDER && ops[ed->from].correlation &&
			    ops[ed->to].correlation)
				assert_true(ops[ed->from].correlation < ops[ed->to].correlation);
		}
		if (traces[k].has_event_edges)
			assert_true(g->edge_count[GS_EDGE_EVENT] > 0);
		if (traces[k].unlinked_calls)
			assert_int_equal(g->unlinked_wait_calls, 425);
		assert_int_equal(gs_waits_compute(t, g, &w, &nw), GS_OK);
		for (size_t i = 1; i < nw; i++)
			assert_true(w[i - 1].wait_ns >= w[i].wait_ns);
		printf("%s: %zu ops, %zu edges (event %llu, host_sync %llu, sync_copy %llu), "
		       "%zu waits\n",
		       traces[k].path, n, g->n_edges,
		       (unsigned long long)g->edge_count[GS_EDGE_EVENT],
		       (unsigned long long)g->edge_count[GS_EDGE_HOST_SYNC],
		       (unsigned long long)g->edge_count[GS_EDGE_SYNC_COPY], nw);
		free(w);
		gs_graph_destroy(g);
		gs_trace_destroy(t);
	}
}

/*
 * Every edge of the graph of a real trace goes forward in time (its
 * producer ended by the time its consumer started) or is flagged as one
 * the recording contradicts, and counted; a sync_copy edge never is (a copy
 * whose call returned before it ended has none), and its copy's call
 * returned after the copy ended. Returns the edges looked at.
 */
static size_t edges_forward(const char *path)
{
	struct gs_trace *t;
	struct gs_graph *g;
	size_t n, n_api, seen;
	const struct gs_op *ops;
	const struct gs_api_call *api;
	uint64_t flagged[GS_EDGE_KIND_COUNT] = {0};

	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	ops = gs_trace_ops(t, &n);
	api = gs_trace_api_calls(t, &n_api);
	for (size_t e = 0; e < g->n_edges; e++) {
		const struct gs_edge *ed = &g->edges[e];
		bool early = ops[ed->from].end_ns > ops[ed->to].start_ns;

		if (early != ((ed->flags & GS_EDGEF_RECORDED_EARLY) != 0))
			fail_msg("%s: %s edge %u -> %u: producer ends %lld, consumer starts %lld, "
				 "flags %u",
				 path, gs_edge_kind_name(ed->kind), ed->from, ed->to,
				 (long long)ops[ed->from].end_ns, (long long)ops[ed->to].start_ns,
				 ed->flags);
		if (ed->kind == GS_EDGE_SYNC_COPY) {
			uint32_t a = g->launch[ed->from];

			assert_false(early);
			assert_true(a < n_api);
			assert_true(api[a].end_ns >= ops[ed->from].end_ns);
		}
		flagged[ed->kind] += early;
	}
	for (unsigned k = 0; k < GS_EDGE_KIND_COUNT; k++)
		assert_int_equal(flagged[k], g->recorded_early[k]);
	for (size_t i = 0; i < g->n_returned_early; i++) {
		uint32_t v = g->returned_early[i];

		assert_true(v < n && g->launch[v] < n_api);
		assert_true(api[g->launch[v]].end_ns < ops[v].end_ns);
		for (size_t e = 0; e < g->n_edges; e++)
			assert_false(g->edges[e].from == v &&
				     g->edges[e].kind == GS_EDGE_SYNC_COPY);
	}
	printf("%s: %zu edges, %llu flagged (stream order %llu), %zu copies returned early\n",
	       strrchr(path, '/') + 1, g->n_edges,
	       (unsigned long long)(flagged[0] + flagged[1] + flagged[2] + flagged[3] + flagged[4] +
				    flagged[5]),
	       (unsigned long long)flagged[GS_EDGE_STREAM_ORDER], g->n_returned_early);
	seen = g->n_edges;
	gs_graph_destroy(g);
	gs_trace_destroy(t);
	return seen;
}

/* Every trace file under dir (recursively): .gscope, Kineto JSON (.json,
 * .json.gz), Nsight SQLite. Returns the traces read. */
static size_t edges_forward_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t traces = 0;
	char path[1024];

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if ((len > 7 && !strcmp(e->d_name + len - 7, ".gscope")) ||
		    (len > 5 && !strcmp(e->d_name + len - 5, ".json")) ||
		    (len > 8 && !strcmp(e->d_name + len - 8, ".json.gz")) ||
		    (len > 7 && !strcmp(e->d_name + len - 7, ".sqlite"))) {
			edges_forward(path);
			traces++;
		} else if (!strchr(e->d_name, '.')) {
			traces += edges_forward_dir(path);
		}
	}
	closedir(d);
	return traces;
}

/* Every sample, and every shared trace when ../shared/data is there. */
static void test_edges_forward(void **state)
{
	size_t samples;

	(void)state;
	samples = edges_forward_dir(GS_SAMPLES);
	assert_true(samples >= 10);
	if (edges_forward_dir(GS_SHARED_DATA) == 0)
		printf("../shared/data absent: samples only\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_edge_and_wait),
		cmocka_unit_test(test_event_edge_by_sync_id),
		cmocka_unit_test(test_unlinked_wait),
		cmocka_unit_test(test_unheld_wait_records),
		cmocka_unit_test(test_host_sync_edges),
		cmocka_unit_test(test_context_sync_edges),
		cmocka_unit_test(test_sync_copy_edges),
		cmocka_unit_test(test_sync_copy_returned_early),
		cmocka_unit_test(test_edges_forward),
		cmocka_unit_test(test_default_stream_edges),
		cmocka_unit_test(test_data_edges),
		cmocka_unit_test(test_segment_edges),
		cmocka_unit_test(test_kineto_wait_on_links),
		cmocka_unit_test(test_shared_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
