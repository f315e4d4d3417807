/* SPDX-License-Identifier: MIT */
/*
 * What must hold of every schedule (gpuscope/schedule.h, gs_invariants),
 * checked after the fact by walking the graph's edges into the scheduled
 * ops: independent of how schedule.c computed them, so that a bug there, or
 * records of two processes joined by mistake, shows as numbers in the
 * report instead of a quietly impossible schedule. O((N + E) log S) for the
 * N ops, E edges into them and S streams of the device.
 */
#include "analyzer_priv.h"
#include "schedule_priv.h"

#include <gpuscope/graph.h>
#include <gpuscope/schedule.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/window.h>

#include <stdlib.h>
#include <string.h>

static bool in_schedule(const struct gs_trace *t, const struct gs_schedule *s,
			const struct gs_op *op)
{
	return gs_op_device(t, op) == s->device &&
	       gs_sched_in_window(op, s->window_set, s->window_start, s->window_end);
}

/* A kernel's start (+share) or end (-share) in the ideal schedule. */
struct share_ev {
	int64_t t;
	int64_t delta;
};

static int cmp_share_ev(const void *pa, const void *pb)
{
	const struct share_ev *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->delta > 0) - (b->delta > 0); /* ends first */
}

/* The most share held at once over events sorted by (t, ends first):
 * within equal (t, kind) the order cannot change the maximum, which is
 * reached after the last start at an instant. */
static void peak_over(const struct share_ev *ev, size_t n, uint64_t *peak)
{
	int64_t used = 0;

	for (size_t i = 0; i < n; i++) {
		used += ev[i].delta;
		if (used > 0 && (uint64_t)used > *peak)
			*peak = (uint64_t)used;
	}
}

/* One stream's kernels (a slot range) read as events in time order: the
 * start of kernel `k`, then its end (`at_end`), then the next kernel's. */
struct share_run {
	int64_t t;   /* the next event's time */
	bool at_end; /* it is the end of kernel k */
	size_t k;    /* index in the range */
	size_t r;    /* the range */
};

static bool run_before(const void *pa, const void *pb)
{
	const struct share_run *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t;
	return !a->at_end < !b->at_end; /* ends first */
}

/* The kernel at or after index k of range r (its count when none). */
static size_t next_kernel(const struct gs_schedule *s, size_t n_ops, size_t r, size_t k)
{
	const struct gs_schedule_range *sr = &s->slot_ranges[r];

	while (k < sr->count && (!s->slot_share[sr->slot + k] || sr->first + k >= n_ops))
		k++;
	return k;
}

/* Each range's kernels' events already in order (every kernel ends after
 * it starts and no later than the next one starts)? */
static bool runs_in_order(const struct gs_schedule *s, const struct gs_op *ops, size_t n_ops)
{
	for (size_t r = 0; r < s->n_slot_ranges; r++) {
		const struct gs_schedule_range *sr = &s->slot_ranges[r];
		bool any = false;
		int64_t last_end = 0;

		for (size_t k = next_kernel(s, n_ops, r, 0); k < sr->count;
		     k = next_kernel(s, n_ops, r, k + 1)) {
			int64_t a = s->slot_ideal_start[sr->slot + k];
			int64_t dur = gs_schedule_op_ns(&ops[sr->first + k]);

			if (dur <= 0 || a > INT64_MAX - dur || (any && a < last_end))
				return false;
			last_end = a + dur;
			any = true;
		}
	}
	return true;
}

static void heap_down(struct share_run *h, size_t n, size_t i)
{
	gs_heap_sift_down(h, n, i, sizeof(*h), run_before);
}

/* The peak by a merge of the streams' runs: memory for one entry a
 * stream, not two events a kernel and a sort's copy of them. */
static gs_status peak_by_merge(const struct gs_schedule *s, const struct gs_op *ops, size_t n_ops,
			       uint64_t *peak)
{
	struct share_run *h = malloc((s->n_slot_ranges ? s->n_slot_ranges : 1) * sizeof(*h));
	size_t n = 0;
	int64_t used = 0;

	if (!h)
		return gs_nomem();
	for (size_t r = 0; r < s->n_slot_ranges; r++) {
		size_t k = next_kernel(s, n_ops, r, 0);

		if (k < s->slot_ranges[r].count)
			h[n++] = (struct share_run){
				.t = s->slot_ideal_start[s->slot_ranges[r].slot + k],
				.k = k,
				.r = r};
	}
	for (size_t i = n / 2; i-- > 0;)
		heap_down(h, n, i);
	while (n) {
		struct share_run *top = &h[0];
		const struct gs_schedule_range *sr = &s->slot_ranges[top->r];
		uint32_t share = s->slot_share[sr->slot + top->k];

		if (top->at_end) {
			used -= (int64_t)share;
			top->k = next_kernel(s, n_ops, top->r, top->k + 1);
			if (top->k == sr->count) {
				h[0] = h[--n];
			} else {
				top->at_end = false;
				top->t = s->slot_ideal_start[sr->slot + top->k];
			}
		} else {
			used += (int64_t)share;
			if (used > 0 && (uint64_t)used > *peak)
				*peak = (uint64_t)used;
			top->at_end = true;
			top->t = s->slot_ideal_start[sr->slot + top->k] +
				 gs_schedule_op_ns(&ops[sr->first + top->k]);
		}
		heap_down(h, n, 0);
	}
	free(h);
	return GS_OK;
}

/* The most share the ideal's kernels hold at one instant, by a sweep of
 * their ideal intervals: independent of how schedule.c placed them. */
static gs_status ideal_peak_share(const struct gs_trace *t, const struct gs_schedule *s,
				  uint64_t *peak)
{
	size_t n_ops, n = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	struct share_ev *ev;

	*peak = 0;
	if (!s->slot_share || !ops)
		return GS_OK;
	if (runs_in_order(s, ops, n_ops))
		return peak_by_merge(s, ops, n_ops, peak);
	/* Some stream's kernels overlap in the ideal (a broken cycle, the
	 * recorded run kept): every event, sorted. */
	for (size_t k = 0; k < s->n_slots; k++)
		n += s->slot_share[k] ? 2 : 0;
	ev = malloc((n ? n : 1) * sizeof(*ev));
	if (!ev)
		return gs_nomem();
	n = 0;
	for (size_t r = 0; r < s->n_slot_ranges; r++)
		for (size_t k = 0; k < s->slot_ranges[r].count; k++) {
			size_t v = s->slot_ranges[r].first + k, slot = s->slot_ranges[r].slot + k;
			int64_t start = s->slot_ideal_start[slot];

			if (!s->slot_share[slot] || v >= n_ops)
				continue;
			ev[n++] = (struct share_ev){start, s->slot_share[slot]};
			ev[n++] = (struct share_ev){start + gs_schedule_op_ns(&ops[v]),
						    -(int64_t)s->slot_share[slot]};
		}
	gs_sort(ev, n, sizeof(*ev), cmp_share_ev);
	peak_over(ev, n, peak);
	free(ev);
	return GS_OK;
}

gs_status gs_schedule_check(const struct gs_trace *t, const struct gs_graph *g,
			    const struct gs_schedule *s, struct gs_invariants *out)
{
	size_t n_ops, n_st;
	const struct gs_op *ops;
	const struct gs_stream *st;
	gs_status st_peak;

	if (!t || !g || !s || !out) {
		gs_error_append("gs_schedule_check: missing argument");
		return GS_ERR_INVALID;
	}
	memset(out, 0, sizeof(*out));
	out->early_op = GS_NO_INDEX;
	out->actual_early_op = GS_NO_INDEX;
	out->returned_early_op = GS_NO_INDEX;
	ops = gs_trace_ops(t, &n_ops);
	st = gs_trace_streams(t, &n_st);
	if (g->n_ops != n_ops || s->n_ops != n_ops || (s->n_slots && !s->slot_ideal_start)) {
		gs_error_append("gs_schedule_check: graph, schedule and trace disagree");
		return GS_ERR_INVALID;
	}
	/* The device's ops only: the schedule's slots, in op order. */
	for (size_t r = 0; r < s->n_slot_ranges; r++)
		for (size_t k = 0; k < s->slot_ranges[r].count; k++) {
			size_t v = s->slot_ranges[r].first + k, slot = s->slot_ranges[r].slot + k;
			const struct gs_op *op = v < n_ops ? &ops[v] : NULL;

			if (!op || !in_schedule(t, s, op))
				continue;
			for (size_t i = g->in_first[v]; i < g->in_first[v + 1] && i < g->n_edges;
			     i++) {
				const struct gs_edge *e = &g->edges[i];
				const struct gs_op *from;
				int64_t ready;

				if (e->from >= n_ops || e->from == v)
					continue;
				from = &ops[e->from];
				if (from->stream < n_st && op->stream < n_st &&
				    st[from->stream].pid != st[op->stream].pid)
					out->cross_process_edges++;
				if (from->end_ns > op->start_ns) {
					out->actual_early++;
					if (from->end_ns - op->start_ns >
					    out->actual_early_max_ns) {
						out->actual_early_max_ns =
							from->end_ns - op->start_ns;
						out->actual_early_op = (uint32_t)v;
					}
				}
				/* With cycles broken, or the recorded run as the
				 * ideal, the edges the recording broke stay
				 * broken: counted above as recorded early. */
				if (s->broken_cycles || s->ideal_is_recorded)
					continue;
				ready = in_schedule(t, s, from) ?
						gs_schedule_ideal_start(s, e->from) +
							gs_schedule_op_ns(from) :
						from->end_ns;
				if (s->slot_ideal_start[slot] < ready) {
					int64_t by = ready - s->slot_ideal_start[slot];

					out->early_starts++;
					if (by > out->early_max_ns) {
						out->early_max_ns = by;
						out->early_op = (uint32_t)v;
					}
				}
			}
		}
	for (size_t i = 0; ops && i < g->n_returned_early; i++) {
		uint32_t v = g->returned_early[i],
			 a = v < n_ops && g->launch ? g->launch[v] : GS_NO_INDEX;
		size_t n_api;
		const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
		int64_t past;

		if (a >= n_api || !in_schedule(t, s, &ops[v]))
			continue;
		past = ops[v].end_ns - api[a].end_ns;
		out->returned_early++;
		if (past > out->returned_early_max_ns) {
			out->returned_early_max_ns = past;
			out->returned_early_op = v;
		}
	}
	out->ideal_below_bound = s->ideal_ns < s->dependency_bound_ns;
	/* Only a recording that broke an edge can leave the ideal above it. */
	out->ideal_above_actual = s->ideal_ns > s->actual_ns && !out->actual_early;
	st_peak = ideal_peak_share(t, s, &out->ideal_peak_share);
	if (st_peak)
		return st_peak;
	out->over_capacity = out->ideal_peak_share > s->kernel_capacity;
	out->critical_path_ns = s->critical_lead_ns;
	for (size_t i = 0; ops && i < s->n_critical; i++)
		out->critical_path_ns += gs_schedule_op_ns(&ops[s->critical_path[i]]);
	out->critical_mismatch = s->n_scheduled && out->critical_path_ns != s->dependency_bound_ns;
	out->violations = out->cross_process_edges + out->early_starts +
			  (out->ideal_below_bound ? 1 : 0) + (out->critical_mismatch ? 1 : 0) +
			  (out->ideal_above_actual ? 1 : 0) + (out->over_capacity ? 1 : 0);
	return GS_OK;
}
