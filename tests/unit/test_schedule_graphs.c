/* SPDX-License-Identifier: MIT */
/*
 * gs_analyzer: property tests of schedules on random traces (every edge
 * and the device's capacity respected, the gap's causes adding up), then
 * CUDA Graph candidates on hand-built timelines and random kernel
 * sequences. One random sequence runs through both, in this order.
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
			/* Another device's op, or one outside the window: none. */
			if (!in_schedule(&b, &s, i)) {
				assert_int_equal(gs_schedule_delay_ns(b.t, &s, i), 0);
				continue;
			}
			assert_true(gs_schedule_delay_ns(b.t, &s, i) >= 0);
			assert_int_equal(gs_schedule_delay_ns(b.t, &s, i),
					 b.ops[i].start_ns - gs_schedule_ideal_start(&s, i));
		}
		/* The critical path: consecutive ops joined by edges, summing to
		 * no more than the bound. */
		{
			int64_t sum = 0;

			for (size_t i = 0; i < s.n_critical; i++)
				sum += gs_schedule_op_ns(&b.ops[s.critical_path[i]]);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_property_random),
		cmocka_unit_test(test_graph_candidates),
		cmocka_unit_test(test_graph_replay),
		cmocka_unit_test(test_graph_candidates_long),
		cmocka_unit_test(test_graph_candidates_breaks),
		cmocka_unit_test(test_graph_replay_bounded),
		cmocka_unit_test(test_graph_candidates_property),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
