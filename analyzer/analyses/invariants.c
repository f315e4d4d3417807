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

/* The most share the ideal's kernels hold at one instant, by a sweep of
 * their ideal intervals: independent of how schedule.c placed them. */
static gs_status ideal_peak_share(const struct gs_trace *t, const struct gs_schedule *s,
				  uint64_t *peak)
{
	size_t n_ops, n = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	struct share_ev *ev;
	int64_t used = 0;

	*peak = 0;
	if (!s->slot_share || !ops)
		return GS_OK;
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
			ev[n++] = (struct share_ev){start + gs_sched_dur(&ops[v]),
						    -(int64_t)s->slot_share[slot]};
		}
	gs_sort(ev, n, sizeof(*ev), cmp_share_ev);
	for (size_t i = 0; i < n; i++) {
		used += ev[i].delta;
		if (used > 0 && (uint64_t)used > *peak)
			*peak = (uint64_t)used;
	}
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
							gs_sched_dur(from) :
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
	for (size_t i = 0; i < s->n_critical; i++)
		out->critical_path_ns += s->critical_path[i].ns;
	out->critical_mismatch = s->n_scheduled && out->critical_path_ns != s->dependency_bound_ns;
	out->violations = out->cross_process_edges + out->early_starts +
			  (out->ideal_below_bound ? 1 : 0) + (out->critical_mismatch ? 1 : 0) +
			  (out->ideal_above_actual ? 1 : 0) + (out->over_capacity ? 1 : 0);
	return GS_OK;
}
