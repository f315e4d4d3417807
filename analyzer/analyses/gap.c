/* SPDX-License-Identifier: MIT */
/*
 * actual - ideal, split into causes that add up to it (gpuscope/schedule.h,
 * docs/design.md "The gap").
 *
 * The binding chain of the recorded run: from the op that ended last, each
 * op to its producer (the previous op on its stream or an in-edge's
 * producer, in the schedule) that ended last at or before it started. Along
 * the chain X0 .. Xk, delay(X) = actual start - ideal start, and
 *
 *   actual - ideal = delay(Xk) - slack
 *                  = delay(X0) + sum (delay(Xi) - delay(Xi-1)) - slack,
 *
 * slack = the ideal's end - Xk's ideal end. Each term delay(Xi) -
 * delay(Xi-1) > 0 (the run lost time there that the ideal did not) is
 * charged to what bound Xi's recorded start; a term < 0 (the ideal waited
 * there for something the run had already passed) and the slack are taken
 * back from the causes charged last, so that what is left adds up to
 * actual - ideal exactly, every cause at least 0.
 *
 * O(chain x in-edges) after the schedule, plus O(log S) per slot lookup.
 */
#include "analyzer_priv.h"
#include "schedule_priv.h"

#include <gpuscope/graph.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/schedule.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/vec.h>

#include <stdlib.h>
#include <string.h>

/* The most a device takes to start an op whose constraints are all met;
 * a later start is no latency of the constraint's but something the trace
 * did not record. */
#define GS_GAP_START_LATENCY_NS 20000

const char *gs_gap_cause_name(unsigned cause)
{
	static const char *const names[GS_GAP_CAUSE_COUNT] = {"host_bound",  "launch_latency",
							      "host_sync",   "pageable_copy",
							      "stream_wait", "stream_serialisation",
							      "copy_engine", "unexplained"};

	return cause < GS_GAP_CAUSE_COUNT ? names[cause] : "unknown";
}

const char *gs_gap_cause_evidence(unsigned cause)
{
	static const char *const evidence[GS_GAP_CAUSE_COUNT] = {
		"measured: launch call times",
		"measured: launch call times",
		"recorded host syncs",
		"recorded copy memory kinds",
		"recorded event waits and default-stream order",
		"unknown: stream order, no recorded data dependency",
		"copy engines of the device record, or as many as ran at once",
		"unknown: started after every recorded constraint (an unrecorded wait, busy SMs)"};

	return cause < GS_GAP_CAUSE_COUNT ? evidence[cause] : "unknown";
}

struct charge {
	int64_t ns;
	uint8_t cause;
};

struct gapw {
	const struct gs_trace *t;
	const struct gs_graph *g;
	const struct gs_schedule *s;
	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_api_call *api;
	size_t n_api;
	struct charge *stack; /* the causes charged, last on top */
	size_t n_stack;
	int64_t debt; /* taken back with nothing left to take it from */
	struct gs_gap *out;
	size_t host_cap;
};

/* Whether op `o` is in the schedule; its slot in *slot. */
static bool scheduled(const struct gapw *w, uint32_t o, uint32_t *slot)
{
	uint32_t k;

	if (o >= w->n_ops)
		return false;
	k = gs_schedule_slot(w->s, o);
	if (k == GS_NO_INDEX ||
	    !gs_sched_in_window(&w->ops[o], w->s->window_set, w->s->window_start, w->s->window_end))
		return false;
	*slot = k;
	return true;
}

/* The producer of `o` in the schedule that ended last at or before o's
 * recorded start (GS_NO_INDEX: none). */
static uint32_t chain_prev(const struct gapw *w, uint32_t o)
{
	const struct gs_op *op = &w->ops[o];
	uint32_t best = GS_NO_INDEX, k;
	size_t lo = w->g->in_first[o], hi = w->g->in_first[o + 1];

	if (o > 0 && w->ops[o - 1].stream == op->stream && scheduled(w, o - 1, &k) &&
	    w->ops[o - 1].end_ns <= op->start_ns)
		best = o - 1;
	if (hi > w->g->n_edges)
		hi = w->g->n_edges;
	for (size_t i = lo; i < hi; i++) {
		uint32_t f = w->g->edges[i].from;

		if (f == o || !scheduled(w, f, &k) || w->ops[f].end_ns > op->start_ns)
			continue;
		if (best == GS_NO_INDEX || w->ops[f].end_ns > w->ops[best].end_ns)
			best = f;
	}
	return best;
}

static gs_status push(struct gapw *w, unsigned cause, int64_t ns)
{
	if (ns <= 0)
		return GS_OK;
	if (w->debt) { /* pay back first */
		int64_t pay = ns < w->debt ? ns : w->debt;

		w->debt -= pay;
		ns -= pay;
		if (!ns)
			return GS_OK;
	}
	if (w->n_stack && w->stack[w->n_stack - 1].cause == cause) {
		w->stack[w->n_stack - 1].ns += ns;
		return GS_OK;
	}
	w->stack[w->n_stack++] = (struct charge){.ns = ns, .cause = (uint8_t)cause};
	return GS_OK;
}

static void take_back(struct gapw *w, int64_t ns)
{
	while (ns > 0 && w->n_stack) {
		struct charge *c = &w->stack[w->n_stack - 1];
		int64_t take = ns < c->ns ? ns : c->ns;

		c->ns -= take;
		ns -= take;
		if (!c->ns)
			w->n_stack--;
	}
	w->debt += ns;
}

static gs_status add_host(struct gapw *w, int64_t a, int64_t b, const struct gs_api_call *c)
{
	struct gs_gap *out = w->out;

	if (b <= a)
		return GS_OK;
	if (gs_vec_grow((void **)&out->host, &w->host_cap, out->n_host + 1, sizeof(*out->host)) !=
	    GS_OK)
		return GS_ERR_NOMEM;
	out->host[out->n_host++] =
		(struct gs_host_interval){.start_ns = a, .end_ns = b, .pid = c->pid, .tid = c->tid};
	out->host_charged_ns += b - a;
	return GS_OK;
}

static unsigned edge_cause(const struct gapw *w, unsigned bound, uint32_t prev)
{
	switch (bound) {
	case GS_BOUND_EVENT:
	case GS_BOUND_DEFAULT_STREAM:
	case GS_BOUND_DATA:
		return GS_GAP_STREAM_WAIT;
	case GS_BOUND_HOST_SYNC:
		return GS_GAP_HOST_SYNC;
	case GS_BOUND_SYNC_COPY:
		return prev != GS_NO_INDEX && w->ops[prev].kind == GS_OP_MEMCPY &&
				       gs_sched_host_mem(&w->ops[prev]) == GS_MEM_PAGEABLE ?
			       GS_GAP_PAGEABLE_COPY :
			       GS_GAP_HOST_SYNC;
	case GS_BOUND_STREAM_ORDER:
		return GS_GAP_STREAM_SERIAL;
	case GS_BOUND_COPY_ENGINE:
		return GS_GAP_COPY_ENGINE;
	default:
		return GS_GAP_UNEXPLAINED;
	}
}

/* Charge `growth` ns lost at op `o` (its producer on the chain `prev`). */
static gs_status charge(struct gapw *w, uint32_t o, uint32_t slot, uint32_t prev, int64_t growth)
{
	unsigned bound = w->s->slot_bound_by[slot];
	uint32_t l = w->g->launch ? w->g->launch[o] : GS_NO_INDEX;
	int64_t a = w->ops[o].start_ns, lo = a - growth, host_end;
	gs_status st;

	if (growth <= 0) {
		take_back(w, -growth);
		return GS_OK;
	}
	if (bound != GS_BOUND_HOST_LAUNCH || l >= w->n_api) {
		/* Started well after its producer ended, every recorded
		 * constraint met: something the trace does not show held it. */
		if (prev == GS_NO_INDEX || a - w->ops[prev].end_ns > GS_GAP_START_LATENCY_NS)
			return push(w, GS_GAP_UNEXPLAINED, growth);
		return push(w, edge_cause(w, bound, prev), growth);
	}
	/* Before the launch call began the host had not asked: host-bound;
	 * after, the launch was on its way: launch latency. */
	host_end = w->api[l].start_ns < a ? w->api[l].start_ns : a;
	if (host_end < lo)
		host_end = lo;
	st = add_host(w, lo, host_end, &w->api[l]);
	if (!st)
		st = push(w, GS_GAP_HOST_BOUND, host_end - lo);
	if (!st)
		st = push(w, GS_GAP_LAUNCH_LATENCY, a - host_end);
	return st;
}

/* The op that ended last (ties: the later start, then the higher index). */
static uint32_t last_op(const struct gapw *w)
{
	uint32_t best = GS_NO_INDEX, k;

	for (size_t r = 0; r < w->s->n_slot_ranges; r++)
		for (size_t i = 0; i < w->s->slot_ranges[r].count; i++) {
			uint32_t o = (uint32_t)(w->s->slot_ranges[r].first + i);
			const struct gs_op *op;

			if (!scheduled(w, o, &k))
				continue;
			op = &w->ops[o];
			if (best == GS_NO_INDEX || op->end_ns > w->ops[best].end_ns ||
			    (op->end_ns == w->ops[best].end_ns &&
			     (op->start_ns > w->ops[best].start_ns ||
			      (op->start_ns == w->ops[best].start_ns && o > best))))
				best = o;
		}
	return best;
}

static gs_status walk(struct gapw *w)
{
	const struct gs_schedule *s = w->s;
	struct gs_gap *out = w->out;
	uint32_t *chain, o = last_op(w), k = 0;
	uint8_t *seen;
	size_t n = 0, i;
	int64_t prev_delay = 0, last_ideal_end = s->window_start;
	gs_status st = GS_OK;

	if (o == GS_NO_INDEX) { /* no op: nothing to split */
		out->available = out->gap_ns == 0;
		return GS_OK;
	}
	chain = malloc((s->n_scheduled + 1) * sizeof(*chain));
	seen = calloc(s->n_slots + 1, 1);
	w->stack = calloc(2 * s->n_scheduled + 2, sizeof(*w->stack));
	if (!chain || !seen || !w->stack) {
		free(chain);
		free(seen);
		return gs_nomem();
	}
	/* Back from the last op. Ops of no length at one instant can be each
	 * other's producers: the chain ends where it would meet itself. */
	while (o != GS_NO_INDEX && scheduled(w, o, &k) && !seen[k] && n < s->n_scheduled) {
		seen[k] = 1;
		chain[n++] = o;
		o = chain_prev(w, o);
	}
	free(seen);
	out->chain_ops = n;
	for (i = n; i-- > 0 && !st;) {
		int64_t delay;

		o = chain[i];
		scheduled(w, o, &k); /* every op of the chain is */
		delay = gs_sched_slot_delay(s, &w->ops[o], k);
		st = charge(w, o, k, i + 1 < n ? chain[i + 1] : GS_NO_INDEX, delay - prev_delay);
		prev_delay = delay;
		if (i == 0)
			last_ideal_end = s->slot_ideal_start[k] + gs_schedule_op_ns(&w->ops[o]);
	}
	free(chain);
	if (st)
		return st;
	/* After the chain's last op, the ideal ran on to its own end. */
	take_back(w, s->window_start + s->ideal_ns - last_ideal_end);
	if (w->debt)
		return GS_OK; /* the ideal is longer than the run: not available */
	for (i = 0; i < w->n_stack; i++)
		out->ns[w->stack[i].cause] += w->stack[i].ns;
	out->available = true;
	return GS_OK;
}

gs_status gs_schedule_gap(const struct gs_trace *t, const struct gs_graph *g,
			  const struct gs_schedule *s, struct gs_gap *out)
{
	struct gapw w = {.t = t, .g = g, .s = s, .out = out};
	gs_status st;

	if (!out)
		return GS_ERR_INVALID;
	memset(out, 0, sizeof(*out));
	if (!t || !g || !s) {
		gs_error_append("gs_schedule_gap: missing argument");
		return GS_ERR_INVALID;
	}
	out->gap_ns = s->actual_ns - s->ideal_ns;
	w.ops = gs_trace_ops(t, &w.n_ops);
	w.api = gs_trace_api_calls(t, &w.n_api);
	if (s->broken_cycles || out->gap_ns < 0 || !s->slot_ideal_start || !s->slot_bound_by ||
	    g->n_ops != w.n_ops)
		return GS_OK; /* not available */
	st = walk(&w);
	free(w.stack);
	if (st) {
		gs_gap_fini(out);
		return st;
	}
	if (!out->available) {
		free(out->host);
		out->host = NULL;
		out->n_host = 0;
		out->host_charged_ns = 0;
		memset(out->ns, 0, sizeof(out->ns));
	}
	return GS_OK;
}

void gs_gap_fini(struct gs_gap *gap)
{
	if (!gap)
		return;
	free(gap->host);
	memset(gap, 0, sizeof(*gap));
}
