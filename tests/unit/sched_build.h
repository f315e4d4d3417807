/* SPDX-License-Identifier: MIT */
/*
 * Traces and dependency graphs built by hand for the schedule tests
 * (test_schedule.c, test_schedule_graphs.c, test_schedule_traces.c): a
 * trace through its own sink (device 0 and 1, streams of pid 100, kernels,
 * copies and launches by correlation id), the graph's edges given by
 * correlation, then stream_order edges added and the graph built; and the
 * checks every schedule must pass. Header-only (static functions); needs
 * cmocka.h first.
 */
#ifndef GS_TEST_SCHED_BUILD_H
#define GS_TEST_SCHED_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/analyzer.h>

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

static inline uint32_t tb_str(struct tb *b, const char *s)
{
	uint32_t id = GS_NO_STRING;

	assert_int_equal(b->k->intern(b->k, s, strlen(s), &id), GS_OK);
	return id;
}

/* Device 0 with `sms` SMs of compute capability major.minor (0: unknown). */
static inline void tb_init_sms(struct tb *b, uint32_t copy_engines, uint32_t sms, uint32_t major,
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

static inline void tb_init(struct tb *b, uint32_t copy_engines)
{
	tb_init_sms(b, copy_engines, 0, 0, 0);
}

static inline uint32_t tb_stream(struct tb *b, uint64_t id, uint32_t device)
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

static inline void tb_push(struct tb *b, struct gs_op *o, const struct gs_launch_cfg *lc)
{
	assert_true(o->correlation > 0 && o->correlation < MAX_CORR);
	assert_int_equal(b->k->op(b->k, o, lc), GS_OK);
}

static inline void tb_kernel_cfg(struct tb *b, uint32_t s, int64_t start, int64_t end,
				 uint64_t corr, const char *name, const struct gs_launch_cfg *lc)
{
	struct gs_op o = {.start_ns = start,
			  .end_ns = end,
			  .correlation = corr,
			  .name = tb_str(b, name),
			  .stream = s,
			  .kind = GS_OP_KERNEL};

	tb_push(b, &o, lc);
}

static inline void tb_kernel(struct tb *b, uint32_t s, int64_t start, int64_t end, uint64_t corr,
			     const char *name)
{
	struct gs_launch_cfg lc = {.grid = {128, 1, 1}, .block = {256, 1, 1}};

	tb_kernel_cfg(b, s, start, end, corr, name, &lc);
}

/* A copy; `host` is the memory kind of its host side. */
static inline void tb_copy(struct tb *b, uint32_t s, uint8_t dir, uint8_t host, int64_t start,
			   int64_t end, uint64_t corr)
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

static inline void tb_launch(struct tb *b, uint64_t corr, int64_t start, int64_t end)
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

static inline void tb_edge(struct tb *b, uint64_t from, uint64_t to, uint8_t kind)
{
	assert_true(b->n_e < MAX_EDGES);
	b->e[b->n_e++] = (struct tb_edge){from, to, kind};
}

static inline int cmp_edge(const void *pa, const void *pb)
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
static inline void tb_build(struct tb *b)
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

static inline void tb_fini(struct tb *b)
{
	free(b->g.edges);
	free(b->g.in_first);
	free(b->launch);
	gs_trace_destroy(b->t);
}

static inline uint32_t OP(const struct tb *b, uint64_t corr)
{
	return b->op_of[corr];
}

static inline void check_critical(const struct gs_schedule *s, const struct tb *b,
				  const uint64_t *corr, const int64_t *ns, size_t n)
{
	assert_int_equal(s->n_critical, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s->critical_path[i], OP(b, corr[i]));
		assert_int_equal(gs_schedule_op_ns(&b->ops[s->critical_path[i]]), ns[i]);
	}
}

static inline void schedule(struct tb *b, const struct gs_window *w, struct gs_schedule *s)
{
	assert_int_equal(gs_schedule_compute(b->t, &b->g, 0, w, s), GS_OK);
}

static inline void missed(struct tb *b, const struct gs_schedule *s, struct gs_missed_overlap **m,
			  size_t *n)
{
	assert_int_equal(gs_missed_overlap_compute(b->t, &b->g, s, NULL, m, n), GS_OK);
}

struct ref_ev {
	int64_t t;
	int64_t delta;
};

static inline int cmp_ref_ev(const void *pa, const void *pb)
{
	const struct ref_ev *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->delta > 0) - (b->delta > 0); /* ends first */
}

/* The most share the ideal's kernels hold at one instant, by every
 * kernel's two events sorted (the invariant's plain definition). */
static inline uint64_t ref_peak_share(const struct gs_trace *t, const struct gs_schedule *s)
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
static inline void check_gap_and_invariants(const struct gs_trace *t, const struct gs_graph *g,
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

#endif
