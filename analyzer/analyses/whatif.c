/* SPDX-License-Identifier: MIT */
/*
 * The CUDA Graph replay what-if (gpuscope/whatif.h says how the recorded
 * run is re-timed). The device's ops of the schedule are sorted once by
 * (recorded start, op index) and everything a pass reads is laid out by
 * that position: each op's start and duration, the latest recorded end of
 * its predecessors that a pass never re-times (those outside the schedule
 * or later in the order), and the positions of those it does. Each replay
 * (the total, then each candidate) is then one sequential pass. The
 * latest end of an op's fixed predecessors is one more predecessor: a
 * place past the positions in the ends, which no pass writes, so that only
 * the ops that have such predecessors (few: those with a producer on
 * another device or before the window) pay for it.
 */
#include "analyzer_priv.h"
#include "schedule_priv.h"

#include <gpuscope/cudagraph.h>
#include <gpuscope/graph.h>
#include <gpuscope/schedule.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/whatif.h>

#include <stdlib.h>
#include <string.h>

/* An op of the pass, its recorded start and its slot; sorted by (start,
 * op). */
struct rop {
	int64_t start;
	uint32_t op;
	uint32_t slot;
};

struct replay {
	const struct gs_schedule *s;
	size_t n;         /* ops in the pass */
	int64_t *start;   /* per position: recorded start */
	int64_t *dur;     /* per position: duration */
	uint32_t *pfirst; /* per position: its predecessors' first in pred */
	/* per position: its re-timed predecessors' positions (all earlier),
	 * and its fixed ones' place in end (n and after), if any */
	uint32_t *pred;
	int64_t *end;    /* per position: end' of this pass; then the fixed ends */
	int64_t *remove; /* per position: removed(o) of this pass */
	uint32_t *pos;   /* per slot: its position, or GS_NO_INDEX */
	uint32_t *share; /* per position: the kernel's share of the device (0: none) */
	struct gs_kernel_lane lane;
};

static int64_t sat_add64(int64_t a, int64_t b)
{
	return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Add the removals of candidate c to the pass. */
static void add_removals(struct replay *r, const struct gs_cudagraph_candidate *c, int64_t node_ns)
{
	for (size_t i = 0; i < c->n_gaps; i++) {
		uint32_t k = gs_schedule_slot(r->s, c->gap_ops[i]);
		uint32_t p = k != GS_NO_INDEX ? r->pos[k] : GS_NO_INDEX;

		if (p != GS_NO_INDEX && c->gap_ns[i] > node_ns)
			r->remove[p] = sat_add64(r->remove[p], c->gap_ns[i] - node_ns);
	}
}

/* One pass: the makespan of the re-timed run. */
static int64_t replay_pass(struct replay *r)
{
	int64_t w0 = r->s->window_start, last = w0, shift = 0;
	size_t i = 0;

	/* The kernels on the device of the ideal: shares under the capacity. */
	r->lane.n = 0;
	r->lane.used = 0;
	r->lane.last = w0;
	while (i < r->n) {
		size_t j = i;

		/* D(o) counts every removal at or before start(o): ties first. */
		for (; j < r->n && r->start[j] == r->start[i]; j++)
			shift = sat_add64(shift, r->remove[j]);
		for (; i < j; i++) {
			/* Ops of the set start at or after w0: no overflow. */
			int64_t st = shift >= r->start[i] - w0 ? w0 : r->start[i] - shift;

			for (uint32_t e = r->pfirst[i]; e < r->pfirst[i + 1]; e++)
				if (r->end[r->pred[e]] > st)
					st = r->end[r->pred[e]];
			/* Never later than recorded: a predecessor can end past
			 * the recorded start only on an edge the recording
			 * contradicts (its consumer started before it ended). */
			if (st > r->start[i])
				st = r->start[i];
			/* In recorded order, never later than recorded either
			 * (gs_sched_kernel_place). */
			st = gs_sched_kernel_place(&r->lane, r->s->kernel_capacity, st, r->dur[i],
						   r->share[i]);
			r->end[i] = st + r->dur[i];
			if (r->end[i] > last)
				last = r->end[i];
		}
	}
	return last - w0;
}

static void fill(struct gs_what_if *w, const struct gs_schedule *s, int64_t makespan)
{
	memset(w, 0, sizeof(*w));
	w->name = "cuda_graph_replay";
	w->makespan_ns = makespan;
	w->saving_ns = s->actual_ns - makespan;
	w->saving_vs_ideal_ns = s->ideal_ns - makespan;
}

/* The schedule's ops in the window, by op (the ranges are sorted and
 * disjoint), each with its slot. */
static struct rop *order_ops(const struct gs_schedule *s, const struct gs_op *ops, size_t n_ops,
			     size_t *n)
{
	struct rop *order = malloc((s->n_scheduled + 1) * sizeof(*order));

	*n = 0;
	if (!order)
		return NULL;
	for (size_t g = 0; g < s->n_slot_ranges; g++) {
		const struct gs_schedule_range *sr = &s->slot_ranges[g];

		for (size_t i = sr->first; i < sr->first + sr->count && i < n_ops; i++) {
			if (!gs_sched_in_window(&ops[i], s->window_set, s->window_start,
						s->window_end))
				continue;
			if (*n == s->n_scheduled)
				break;
			order[(*n)++] =
				(struct rop){.start = ops[i].start_ns,
					     .op = (uint32_t)i,
					     .slot = (uint32_t)(sr->slot + (i - sr->first))};
		}
	}
	return order;
}

/* Each position's predecessors: the re-timed ones (a slot earlier in the
 * order: done when the pass reaches this op) by position, the rest folded
 * into the latest of their recorded ends, which goes past the positions in
 * r->end (made here). r->pfirst holds each position's op on entry; each is
 * read before its place is overwritten. */
static gs_status link(struct replay *r, const struct gs_graph *g, const struct gs_op *ops,
		      size_t n_ops)
{
	size_t np = 0, cap = 0, hint = 0, n_fixed = 0, fixed_cap = 0;
	int64_t *fixed = NULL; /* the fixed ends, in their order in pred */

	for (size_t i = 0; i < r->n; i++) {
		size_t lo = g->in_first[r->pfirst[i]], hi = g->in_first[r->pfirst[i] + 1];

		if (hi > g->n_edges)
			hi = g->n_edges;
		cap += hi > lo ? hi - lo : 0;
	}
	if (cap > UINT32_MAX) {
		gs_error_append("CUDA Graph replay: more than 2^32 edges");
		return GS_ERR_INVALID;
	}
	r->pred = malloc((cap ? cap : 1) * sizeof(*r->pred));
	if (!r->pred)
		return gs_nomem();
	for (size_t i = 0; i < r->n; i++) {
		uint32_t o = r->pfirst[i];
		size_t lo = g->in_first[o], hi = g->in_first[o + 1];
		int64_t latest = INT64_MIN;

		if (hi > g->n_edges)
			hi = g->n_edges;
		r->pfirst[i] = (uint32_t)np;
		for (size_t e = lo; e < hi; e++) {
			uint32_t f = g->edges[e].from, kf, pf;

			if (f >= n_ops || f == o)
				continue;
			kf = gs_sched_slot_near(r->s, f, &hint);
			pf = kf != GS_NO_INDEX ? r->pos[kf] : GS_NO_INDEX;
			if (pf != GS_NO_INDEX && pf < i)
				r->pred[np++] = pf;
			else if (ops[f].end_ns > latest)
				latest = ops[f].end_ns;
		}
		/* None, or none later than INT64_MIN, never moves a start. */
		if (latest == INT64_MIN)
			continue;
		if (n_fixed == fixed_cap) {
			int64_t *grown;

			fixed_cap = fixed_cap ? 2 * fixed_cap : 64;
			grown = realloc(fixed, fixed_cap * sizeof(*fixed));
			if (!grown) {
				free(fixed);
				return gs_nomem();
			}
			fixed = grown;
		}
		if (r->n + n_fixed >= UINT32_MAX) {
			free(fixed);
			gs_error_append("CUDA Graph replay: more than 2^32 ops and fixed ends");
			return GS_ERR_INVALID;
		}
		/* After the re-timed ones: the pass takes the latest of all. */
		r->pred[np++] = (uint32_t)(r->n + n_fixed);
		fixed[n_fixed++] = latest;
	}
	r->pfirst[r->n] = (uint32_t)np;
	r->end = calloc(r->n + n_fixed + 1, sizeof(*r->end));
	if (r->end && n_fixed)
		memcpy(r->end + r->n, fixed, n_fixed * sizeof(*fixed));
	free(fixed);
	return r->end ? GS_OK : gs_nomem();
}

/* Position i: op o, of slot k. */
static void place(struct replay *r, const struct gs_op *ops, size_t i, uint32_t o, uint32_t k)
{
	const struct gs_schedule *s = r->s;

	r->start[i] = ops[o].start_ns;
	r->dur[i] = gs_schedule_op_ns(&ops[o]);
	r->pfirst[i] = o; /* link() reads it, then overwrites it */
	if (k != GS_NO_INDEX) {
		r->pos[k] = (uint32_t)i;
		if (s->slot_share && k < s->n_slots)
			r->share[i] = s->slot_share[k];
	}
}

/* A slot range's next op in the pass, keyed by (start, op). */
struct rcur {
	int64_t start;
	uint32_t op;
	uint32_t range;
};

static bool rcur_before(const void *pa, const void *pb)
{
	const struct rcur *a = pa, *b = pb;

	return a->start != b->start ? a->start < b->start : a->op < b->op;
}

static void rcur_down(struct rcur *h, size_t n, size_t i)
{
	gs_heap_sift_down(h, n, i, sizeof(*h), rcur_before);
}

/* The first op of slot range g at or after op i that is in the pass (in
 * the window), GS_NO_INDEX when none. */
static uint32_t next_in(const struct gs_schedule *s, const struct gs_op *ops, size_t n_ops,
			size_t g, size_t i)
{
	const struct gs_schedule_range *sr = &s->slot_ranges[g];
	size_t e = sr->first + sr->count < n_ops ? sr->first + sr->count : n_ops;

	for (; i < e; i++)
		if (gs_sched_in_window(&ops[i], s->window_set, s->window_start, s->window_end))
			return (uint32_t)i;
	return GS_NO_INDEX;
}

/*
 * The positions by (start, op) read straight from the slot ranges, through
 * a heap of one cursor a range: what sorting order_ops' array gives when
 * each range's ops in the pass come by start and they are the schedule's
 * n_scheduled, without that array (16 B an op). *done false otherwise (a
 * range out of start order, another count): the caller sorts.
 */
static gs_status merge_ranges(struct replay *r, const struct gs_op *ops, size_t n_ops, bool *done)
{
	const struct gs_schedule *s = r->s;
	struct rcur *h = malloc((s->n_slot_ranges + 1) * sizeof(*h));
	size_t n_h = 0, i = 0;
	bool ok = true;

	*done = false;
	if (!h)
		return gs_nomem();
	for (size_t g = 0; g < s->n_slot_ranges; g++) {
		uint32_t o = next_in(s, ops, n_ops, g, s->slot_ranges[g].first);

		if (o != GS_NO_INDEX)
			h[n_h++] = (struct rcur){.start = ops[o].start_ns,
						 .op = o,
						 .range = (uint32_t)g};
	}
	for (size_t k = n_h / 2; k-- > 0;)
		rcur_down(h, n_h, k);
	while (n_h) {
		struct rcur top = h[0];
		const struct gs_schedule_range *sr = &s->slot_ranges[top.range];
		uint32_t o;

		if (i == r->n) {
			ok = false;
			break;
		}
		place(r, ops, i++, top.op, (uint32_t)(sr->slot + (top.op - sr->first)));
		o = next_in(s, ops, n_ops, top.range, (size_t)top.op + 1);
		if (o == GS_NO_INDEX) {
			h[0] = h[--n_h];
		} else if (ops[o].start_ns < top.start) {
			ok = false;
			break;
		} else {
			h[0] = (struct rcur){.start = ops[o].start_ns, .op = o, .range = top.range};
		}
		rcur_down(h, n_h, 0);
	}
	free(h);
	*done = ok && i == r->n;
	return GS_OK;
}

static gs_status collect(struct replay *r, const struct gs_graph *g, const struct gs_op *ops,
			 size_t n_ops)
{
	const struct gs_schedule *s = r->s;
	struct rop *order;
	const struct rop *o;
	struct gs_kmerge km;
	size_t i = 0;
	bool done;
	gs_status st;

	r->n = s->n_scheduled; /* the fallback below may find fewer */
	r->start = malloc((r->n + 1) * sizeof(*r->start));
	r->dur = malloc((r->n + 1) * sizeof(*r->dur));
	r->pfirst = malloc((r->n + 1) * sizeof(*r->pfirst));
	/* Read by the first pass before any is written: zeroed by a write, so
	 * that its pages are not mapped read-only first and copied at the
	 * next clearing. */
	r->remove = malloc((r->n + 1) * sizeof(*r->remove));
	r->pos = malloc((s->n_slots + 1) * sizeof(*r->pos));
	r->share = calloc(r->n + 1, sizeof(*r->share));
	r->lane.run = malloc((r->n + 1) * sizeof(*r->lane.run));
	if (!r->start || !r->dur || !r->pfirst || !r->remove || !r->pos || !r->share ||
	    !r->lane.run)
		return gs_nomem();
	memset(r->remove, 0, (r->n + 1) * sizeof(*r->remove));
	for (size_t k = 0; k < s->n_slots; k++)
		r->pos[k] = GS_NO_INDEX;
	st = merge_ranges(r, ops, n_ops, &done);
	if (st || done)
		return st ? st : link(r, g, ops, n_ops);
	for (size_t k = 0; k < s->n_slots; k++)
		r->pos[k] = GS_NO_INDEX;
	order = order_ops(s, ops, n_ops, &r->n);
	if (!order)
		return gs_nomem();
	/* By (start, op): built by op, each stream's part mostly by start, so
	 * the merge of those runs is the stable sort by start (more than a few
	 * runs: sorted at init). */
	gs_kmerge_init_i64(&km, order, r->n, sizeof(*order));
	while ((o = gs_kmerge_next(&km)))
		place(r, ops, i++, o->op, o->slot);
	free(order);
	return link(r, g, ops, n_ops);
}

gs_status gs_cudagraph_replay_compute(const struct gs_trace *t, const struct gs_graph *g,
				      const struct gs_schedule *s,
				      const struct gs_cudagraph_candidate *c, size_t n,
				      int64_t node_ns, struct gs_what_if *total,
				      struct gs_what_if *per, bool *per_done)
{
	struct replay r;
	const struct gs_op *ops;
	size_t n_ops;
	gs_status st;

	if (!t || !g || !s || !total || (n && !c)) {
		gs_error_append("gs_cudagraph_replay_compute: no trace, graph, schedule or output");
		return GS_ERR_INVALID;
	}
	memset(&r, 0, sizeof(r));
	r.s = s;
	ops = gs_trace_ops(t, &n_ops);
	if (g->n_ops != n_ops || s->n_ops != n_ops || !g->in_first) {
		gs_error_append(
			"CUDA Graph replay: the graph or schedule does not match the trace");
		return GS_ERR_INVALID;
	}
	if (node_ns < 0)
		node_ns = 0;
	if (per_done)
		memset(per_done, 0, n * sizeof(*per_done));
	st = collect(&r, g, ops, n_ops);
	if (st)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (!c[i].already_graph)
			add_removals(&r, &c[i], node_ns);
	fill(total, s, replay_pass(&r));
	for (size_t i = 0; per && i < n && i < GS_REPLAY_MAX_CANDIDATES; i++) {
		memset(r.remove, 0, (r.n + 1) * sizeof(*r.remove));
		if (!c[i].already_graph)
			add_removals(&r, &c[i], node_ns);
		fill(&per[i], s, replay_pass(&r));
		if (per_done)
			per_done[i] = true;
	}
out:
	free(r.start);
	free(r.dur);
	free(r.pfirst);
	free(r.pred);
	free(r.end);
	free(r.remove);
	free(r.pos);
	free(r.share);
	free(r.lane.run);
	return st;
}
