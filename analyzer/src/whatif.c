/* SPDX-License-Identifier: MIT */
/*
 * The CUDA Graph replay what-if (gpuscope/whatif.h says how the recorded
 * run is re-timed). The device's ops of the schedule are sorted once by
 * (recorded start, op index); each replay (the total, then each candidate)
 * is one pass over them in that order, reading each op's in-edges once.
 */
#include "analyzer_priv.h"
#include "schedule_priv.h"

#include <stdlib.h>
#include <string.h>

struct rop {
	int64_t start;
	uint32_t op;
};

static int cmp_rop(const void *pa, const void *pb)
{
	const struct rop *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

struct replay {
	const struct gs_trace *t;
	const struct gs_graph *g;
	const struct gs_schedule *s;
	const struct gs_op *ops;
	size_t n_ops;
	struct rop *order; /* the schedule's ops by (start, op) */
	size_t n;
	int64_t *end;    /* per slot: end' (valid when done) */
	uint8_t *done;   /* per slot: re-timed in this pass */
	int64_t *remove; /* per slot: removed(o) of this pass */
	uint32_t *slot;  /* per op: gs_schedule_slot, looked up once for all passes */
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

		if (k != GS_NO_INDEX && c->gap_ns[i] > node_ns)
			r->remove[k] = sat_add64(r->remove[k], c->gap_ns[i] - node_ns);
	}
}

/* One pass: the makespan of the re-timed run. */
static int64_t replay_pass(struct replay *r)
{
	int64_t w0 = r->s->window_start, last = w0, shift = 0;
	size_t i = 0;

	memset(r->done, 0, r->s->n_slots ? r->s->n_slots : 1);
	while (i < r->n) {
		size_t j = i;

		/* D(o) counts every removal at or before start(o): ties first. */
		for (; j < r->n && r->order[j].start == r->order[i].start; j++)
			shift = sat_add64(shift, r->remove[r->slot[r->order[j].op]]);
		for (; i < j; i++) {
			uint32_t o = r->order[i].op, k = r->slot[o];
			const struct gs_op *op = &r->ops[o];
			/* Ops of the set start at or after w0: no overflow. */
			int64_t st = shift >= op->start_ns - w0 ? w0 : op->start_ns - shift;
			size_t lo = r->g->in_first[o], hi = r->g->in_first[o + 1];

			if (hi > r->g->n_edges)
				hi = r->g->n_edges;
			for (size_t e = lo; e < hi; e++) {
				uint32_t f = r->g->edges[e].from, kf;
				int64_t t;

				if (f >= r->n_ops || f == o)
					continue;
				kf = r->slot[f];
				t = kf != GS_NO_INDEX && r->done[kf] ? r->end[kf] :
								       r->ops[f].end_ns;
				if (t > st)
					st = t;
			}
			r->end[k] = st + gs_sched_dur(op);
			r->done[k] = 1;
			if (r->end[k] > last)
				last = r->end[k];
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

static gs_status collect(struct replay *r)
{
	const struct gs_schedule *s = r->s;

	r->order = malloc((s->n_scheduled + 1) * sizeof(*r->order));
	r->end = calloc(s->n_slots + 1, sizeof(*r->end));
	r->done = calloc(s->n_slots + 1, 1);
	r->remove = calloc(s->n_slots + 1, sizeof(*r->remove));
	r->slot = malloc((r->n_ops + 1) * sizeof(*r->slot));
	if (!r->order || !r->end || !r->done || !r->remove || !r->slot)
		return gs_nomem();
	for (size_t i = 0; i < r->n_ops; i++)
		r->slot[i] = gs_schedule_slot(s, (uint32_t)i);
	for (size_t g = 0; g < s->n_slot_ranges; g++) {
		const struct gs_schedule_range *sr = &s->slot_ranges[g];

		for (size_t i = sr->first; i < sr->first + sr->count && i < r->n_ops; i++) {
			if (!gs_sched_in_window(&r->ops[i], s->window_set, s->window_start,
						s->window_end))
				continue;
			if (r->n == s->n_scheduled)
				break;
			r->order[r->n++] =
				(struct rop){.start = r->ops[i].start_ns, .op = (uint32_t)i};
		}
	}
	gs_sort(r->order, r->n, sizeof(*r->order), cmp_rop);
	return GS_OK;
}

gs_status gs_cudagraph_replay_compute(const struct gs_trace *t, const struct gs_graph *g,
				      const struct gs_schedule *s,
				      const struct gs_cudagraph_candidate *c, size_t n,
				      int64_t node_ns, struct gs_what_if *total,
				      struct gs_what_if *per, bool *per_done)
{
	struct replay r;
	gs_status st;

	if (!t || !g || !s || !total || (n && !c)) {
		gs_error_append("gs_cudagraph_replay_compute: no trace, graph, schedule or output");
		return GS_ERR_INVALID;
	}
	memset(&r, 0, sizeof(r));
	r.t = t;
	r.g = g;
	r.s = s;
	r.ops = gs_trace_ops(t, &r.n_ops);
	if (g->n_ops != r.n_ops || s->n_ops != r.n_ops || !g->in_first) {
		gs_error_append(
			"CUDA Graph replay: the graph or schedule does not match the trace");
		return GS_ERR_INVALID;
	}
	if (node_ns < 0)
		node_ns = 0;
	if (per_done)
		memset(per_done, 0, n * sizeof(*per_done));
	st = collect(&r);
	if (st)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (!c[i].already_graph)
			add_removals(&r, &c[i], node_ns);
	fill(total, s, replay_pass(&r));
	for (size_t i = 0; per && i < n && i < GS_REPLAY_MAX_CANDIDATES; i++) {
		memset(r.remove, 0, (s->n_slots + 1) * sizeof(*r.remove));
		if (!c[i].already_graph)
			add_removals(&r, &c[i], node_ns);
		fill(&per[i], s, replay_pass(&r));
		if (per_done)
			per_done[i] = true;
	}
out:
	free(r.order);
	free(r.end);
	free(r.done);
	free(r.remove);
	free(r.slot);
	return st;
}
