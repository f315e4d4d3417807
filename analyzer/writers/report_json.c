/* SPDX-License-Identifier: MIT */
/*
 * The analyze report as JSON (schema "gpuscope.report/1"): fields whose
 * names are fixed (others only add), and more. Written as it goes (nothing is built in
 * memory), with every write checked (gs_outbuf). Integers are exact; fractions
 * and efficiency have four decimals (efficiency is null when the schedule
 * broke dependency cycles: see report.c). Ops are named by "op": their
 * correlation id when nonzero, else their index, and "op_index": their
 * index in the trace (gs_trace_ops() order, as `gpuscope dump` has them).
 *
 * Objects at the top are indented; the rows of lists are one line each.
 * Complexity: linear in what is written.
 */
#include <gpuscope/gate.h>
#include <gpuscope/import.h>
#include <gpuscope/report_parts.h>
#include <gpuscope/report_phrases.h>
#include <gpuscope/text.h>
#include "report_write_priv.h"

#include <gpuscope/names.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/json.h>
#include <gpuscope/outbuf.h>
#include "measures_priv.h"
#include "operators_priv.h"

void gs_report_json_finding(struct gs_json *w, const char *kind, int64_t ns,
			    const struct gs_finding_data *d, const char *text, const char *advice)
{
	char *t = gs_outbuf_sentence(w->o, text, false),
	     *a = gs_outbuf_sentence(w->o, advice, false);

	if (!t || !a) {
		free(t);
		free(a);
		return;
	}
	gs_json_row(w, NULL);
	gs_json_str(w, "kind", kind);
	gs_json_i64(w, "ns", ns);
	gs_json_str(w, "evidence", gs_evidence_name(d->evidence));
	gs_json_obj(w, "numbers");
	for (size_t k = 0; k < d->n; k++) {
		double v = d->num[k].value;

		/* Whole numbers as integers (times, counts), the rest with four
		 * decimals (shares, ratios). */
		if (fabs(v) < 9007199254740992.0 && v == floor(v))
			gs_json_i64(w, d->num[k].key, (int64_t)v);
		else
			gs_json_fixed(w, d->num[k].key, v);
	}
	gs_json_end_obj(w);
	gs_json_str(w, "text", t);
	gs_json_str(w, "advice", a);
	if (d->advice)
		gs_json_str(w, "advice_kind", d->advice);
	else
		gs_json_null(w, "advice_kind");
	gs_json_end_obj(w);
	free(t);
	free(a);
}

static double ratio(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0.0;
}

/* "op", "op_index", "name", "kind", "stream" of one op. */
static void json_op(struct gs_json *w, const struct gs_trace *t, const char *prefix, uint32_t op)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	char key[64];

	snprintf(key, sizeof(key), "%s", prefix);
	gs_json_u64(w, key, gs_report_op_id(t, op));
	snprintf(key, sizeof(key), "%s_index", prefix);
	gs_json_u64(w, key, op);
	snprintf(key, sizeof(key), "%s_name", prefix);
	gs_json_str(w, !strcmp(prefix, "op") ? "name" : key,
		    op < n ? gs_trace_string(t, ops[op].name) : "");
	snprintf(key, sizeof(key), "%s_stream", prefix);
	gs_json_u64(w, !strcmp(prefix, "op") ? "stream" : key, gs_report_op_stream(t, op));
}

static void json_options(struct gs_json *w, const struct gs_report *r, size_t top);

/* The dependency graph's counts of one rank. */
static void json_graph(struct gs_json *w, const struct gs_report *r)
{
	const struct gs_graph *g = gs_results_graph(r);
	unsigned k;

	gs_json_obj(w, "graph");
	if (g) {
		gs_json_u64(w, "edges", g->n_edges + g->implied_edges);
		gs_json_row(w, "edges_by_kind");
		for (k = 0; k < GS_EDGE_KIND_COUNT; k++)
			gs_json_u64(w, gs_edge_kind_name(k), g->edge_count[k]);
		gs_json_end_obj(w);
		/* Edges kept that the recording contradicts (consumer started
		 * before producer ended), and copies whose call returned
		 * before they ended (no sync_copy edges). */
		gs_json_row(w, "recorded_early_by_kind");
		for (k = 0; k < GS_EDGE_KIND_COUNT; k++)
			gs_json_u64(w, gs_edge_kind_name(k), g->recorded_early[k]);
		gs_json_end_obj(w);
		gs_json_u64(w, "returned_early", g->n_returned_early);
		gs_json_u64(w, "unlinked_waits", g->unlinked_waits);
		gs_json_u64(w, "unlinked_wait_calls", g->unlinked_wait_calls);
		gs_json_bool(w, "stream_kinds_known", g->stream_kinds_known);
		gs_json_bool(w, "data_edges", g->has_data_edges);
		/* Possible data dependencies (not edges), only where there
		 * are any: every report without them stays as it was. */
		if (g->n_segment_edges) {
			gs_json_u64(w, "segment_edges", g->n_segment_edges);
			gs_json_str(w, "segment_edges_evidence", "possible");
		}
	}
	gs_json_end_obj(w);
}

/* "inputs" and "format" of the trace object. */
static void json_inputs(struct gs_json *w, const struct gs_report *r)
{
	gs_json_arr_inline(w, "inputs");
	for (size_t i = 0; i < gs_results_input_count(r); i++)
		gs_json_str(w, NULL, gs_results_input(r, i));
	gs_json_end_arr(w);
	gs_json_str(w, "format", gs_results_format(r));
}

static void json_trace(struct gs_json *w, const struct gs_report *r, size_t top)
{
	const struct gs_trace *t = gs_results_trace(r);
	const struct gs_warning *warn;
	size_t n_ops, n, i;

	gs_trace_ops(t, &n_ops);
	gs_json_obj(w, "trace");
	json_inputs(w, r);
	gs_json_u64(w, "ops", n_ops);
	gs_json_u64(w, "dropped_records", gs_trace_dropped(t));
	warn = gs_trace_warnings(t, &n);
	gs_json_arr(w, "warnings");
	for (i = 0; i < n; i++) {
		gs_json_row(w, NULL);
		gs_json_str(w, "message", warn[i].message);
		gs_json_u64(w, "count", warn[i].count);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	gs_trace_streams(t, &n);
	gs_json_u64(w, "streams", n);
	json_graph(w, r);
	gs_json_end_obj(w);
	json_options(w, r, top);
}

/* The steps the trace marks and which the window covers. */
static void json_steps(struct gs_json *w, const struct gs_report *r)
{
	static const struct gs_steps none;
	const struct gs_steps *s = gs_results_steps(r) ? gs_results_steps(r) : &none;
	bool from_steps = gs_results_window_from_steps(r);

	gs_json_row(w, "steps");
	gs_json_str(w, "source", s->source ? s->source : "ProfilerStep#N ranges");
	gs_json_u64(w, "found", s->n);
	gs_json_bool(w, "window_from_steps", from_steps);
	gs_json_u64(w, "analysed", from_steps ? s->n_selected : 0);
	gs_json_bool(w, "warmup_left_out", from_steps && s->warmup_left_out);
	gs_json_bool(w, "partial_left_out", from_steps && s->partial_left_out);
	gs_json_end_obj(w);
}

/* The options the report was made with; `top`: the style's rows in the
 * text and HTML tables, given here for the record. */
static void json_options(struct gs_json *w, const struct gs_report *r, size_t top)
{
	struct gs_window win;

	gs_json_obj(w, "options");
	gs_json_u64(w, "top", top);
	if (gs_results_window(r, &win)) {
		gs_json_arr_inline(w, "window_ns");
		gs_json_i64(w, NULL, win.start_ns);
		gs_json_i64(w, NULL, win.end_ns);
		gs_json_end_arr(w);
	} else {
		gs_json_null(w, "window_ns");
	}
	json_steps(w, r);
	if (gs_results_mpi_processes(r)) {
		gs_json_row(w, "mpi");
		gs_json_u64(w, "processes", gs_results_mpi_processes(r));
		gs_json_end_obj(w);
	}
	gs_json_end_obj(w);
}

/* At most this many host ranges in the JSON (the totals count them all). */
#define JSON_HOST_RANGES 50

/* Host-bound idle by the launching thread's host ranges (in "idle"). */
static void json_host_ranges(struct gs_json *w, const struct gs_report *r,
			     const struct gs_breakdown *b)
{
	const struct gs_host_ranges *h = &b->host_ranges;
	size_t i, n = h->n_ranges < JSON_HOST_RANGES ? h->n_ranges : JSON_HOST_RANGES;
	int64_t shown_ns = 0;

	gs_json_bool(w, "host_ranges_recorded", h->recorded);
	gs_json_i64(w, "host_outside_ranges_ns", h->outside_ns);
	gs_json_i64(w, "host_forwarded_ns", h->forwarded_ns);
	gs_json_u64(w, "host_bound_gaps", h->intervals);
	gs_json_u64(w, "host_short_gaps", h->short_intervals);
	gs_json_i64(w, "host_short_gap_ns", h->short_ns);
	gs_json_arr(w, "host_ranges");
	for (i = 0; i < n; i++) {
		const struct gs_host_range_time *x = &h->ranges[i];

		gs_json_row(w, NULL);
		gs_json_str(w, "name", gs_trace_string(gs_results_trace(r), x->name));
		gs_json_str(w, "kind", gs_range_kind_name(x->kind));
		gs_json_str(w, "class", gs_host_class_name(x->cls));
		gs_json_i64(w, "ns", x->ns);
		gs_json_fixed(w, "share", ratio(x->ns, b->host_bound_ns));
		gs_json_u64(w, "gaps", x->gaps);
		gs_json_i64(w, "forwarded_ns", x->forwarded_ns);
		if (x->context != GS_NO_STRING)
			gs_json_str(w, "context", gs_trace_string(gs_results_trace(r), x->context));
		gs_json_end_obj(w);
		shown_ns += x->ns;
	}
	gs_json_end_arr(w);
	gs_json_u64(w, "host_ranges_total", h->n_ranges);
	gs_json_i64(w, "host_ranges_not_listed_ns", b->host_bound_ns - h->outside_ns - shown_ns);
	gs_json_row(w, "host_range_kind_ns");
	for (i = 0; i < GS_RANGE_KIND_COUNT; i++)
		if (i != GS_RANGE_GPU_ANNOTATION) /* not a host range */
			gs_json_i64(w, gs_range_kind_name((unsigned)i), h->kind_ns[i]);
	gs_json_end_obj(w);
	gs_json_row(w, "host_class_ns");
	for (i = 0; i < GS_HOST_CLASS_COUNT; i++)
		gs_json_i64(w, gs_host_class_name((unsigned)i), h->class_ns[i]);
	gs_json_end_obj(w);
}

static void json_breakdown(struct gs_json *w, const struct gs_report *r,
			   const struct gs_report_device *d)
{
	const struct gs_breakdown *b = &d->b;
	unsigned c;
	size_t i;

	gs_json_obj(w, "breakdown");
	gs_json_i64(w, "kernel_ns", b->total_ns[GS_CAT_KERNEL]);
	gs_json_i64(w, "copy_ns", b->total_ns[GS_CAT_COPY]);
	gs_json_i64(w, "sync_ns", b->total_ns[GS_CAT_SYNC]);
	gs_json_i64(w, "idle_ns", b->total_ns[GS_CAT_IDLE]);
	gs_json_i64(w, "total_ns", b->window_ns);
	gs_json_row(w, "fractions");
	for (c = 0; c < GS_CAT_COUNT; c++)
		gs_json_fixed(w, gs_category_name(c), ratio(b->total_ns[c], b->window_ns));
	gs_json_end_obj(w);
	gs_json_str(w, "dominant", gs_category_name(b->dominant));
	gs_json_end_obj(w);
	gs_json_u64(w, "segments", b->n_segments);

	gs_json_obj(w, "overlap");
	gs_json_i64(w, "copy_total_ns", b->copy_total_ns);
	gs_json_i64(w, "copy_hidden_ns", b->copy_hidden_ns);
	gs_json_i64(w, "kernel_concurrency_ns", b->kernel_concurrency_ns);
	gs_json_end_obj(w);

	gs_json_obj(w, "idle");
	gs_json_i64(w, "host_bound_ns", b->host_bound_ns);
	gs_json_i64(w, "launch_latency_ns", b->launch_latency_ns);
	gs_json_i64(w, "unattributed_ns", b->unattributed_ns);
	gs_json_arr(w, "top_host_calls");
	for (i = 0; i < b->n_top_host_calls; i++) {
		gs_json_row(w, NULL);
		gs_json_str(w, "name",
			    gs_trace_string(gs_results_trace(r), b->top_host_calls[i].name));
		gs_json_i64(w, "ns", b->top_host_calls[i].ns);
		gs_json_u64(w, "count", b->top_host_calls[i].count);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	json_host_ranges(w, r, b);
	gs_json_end_obj(w);
}

static void json_streams(struct gs_json *w, const struct gs_report *r,
			 const struct gs_report_device *d)
{
	size_t i;

	gs_json_arr(w, "streams");
	for (i = 0; i < d->n_streams; i++) {
		const struct gs_report_stream *s = &d->streams[i];

		gs_json_row(w, NULL);
		gs_json_u64(w, "stream", s->stream_id);
		gs_json_str(w, "kind", gs_stream_kind_name(s->kind));
		gs_json_i64(w, "priority", s->priority);
		gs_json_u64(w, "ops", s->ops);
		gs_json_i64(w, "kernel_ns", s->kernel_ns);
		gs_json_i64(w, "copy_ns", s->copy_ns);
		gs_json_u64(w, "kernels", s->kernels);
		gs_json_u64(w, "copies", s->copies);
		gs_json_i64(w, "busy_ns", s->busy_ns);
		gs_json_i64(w, "pid", s->pid);
		gs_json_u64(w, "index", s->index);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);

	gs_json_arr(w, "kernels");
	for (i = 0; i < d->n_kernels; i++) {
		const struct gs_report_kernel *k = &d->kernels[i];

		gs_json_row(w, NULL);
		gs_json_str(w, "name", gs_trace_string(gs_results_trace(r), k->name));
		gs_json_u64(w, "count", k->count);
		gs_json_i64(w, "ns", k->ns);
		gs_json_i64(w, "mean_ns", k->mean_ns);
		gs_json_i64(w, "min_ns", k->min_ns);
		gs_json_i64(w, "median_ns", k->median_ns);
		gs_json_i64(w, "p95_ns", k->p95_ns);
		gs_json_i64(w, "max_ns", k->max_ns);
		gs_json_i64(w, "std_ns", k->std_ns);
		gs_json_str(w, "class", gs_kernel_class_name(k->cls));
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

/* actual - ideal by cause, adding up to gap_ns; null when not available.
 * The host-bound part by host range: each range's share of it. */
static void json_gap(struct gs_json *w, const struct gs_report *r, const struct gs_report_device *d)
{
	const struct gs_gap *g = &d->gap;
	const struct gs_host_ranges *h = &d->gap_host;

	gs_json_i64(w, "gap_ns", d->actual_ns - d->ideal_ns);
	if (!g->available) {
		gs_json_null(w, "gap");
		return;
	}
	gs_json_arr(w, "gap");
	for (unsigned c = 0; c < GS_GAP_CAUSE_COUNT; c++) {
		if (!g->ns[c])
			continue;
		gs_json_row(w, NULL);
		gs_json_str(w, "cause", gs_gap_cause_name(c));
		gs_json_i64(w, "ns", g->ns[c]);
		gs_json_str(w, "evidence", gs_gap_cause_evidence(c));
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	gs_json_arr(w, "gap_host_ranges");
	for (size_t i = 0; i < h->n_ranges && i < 10 && g->host_charged_ns > 0; i++) {
		gs_json_row(w, NULL);
		gs_json_str(w, "name", gs_trace_string(gs_results_trace(r), h->ranges[i].name));
		gs_json_fixed(w, "share", (double)h->ranges[i].ns / (double)g->host_charged_ns);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static void json_schedule(struct gs_json *w, const struct gs_report *r,
			  const struct gs_report_device *d)
{
	size_t n_ops, i;
	const struct gs_op *ops = gs_trace_ops(gs_results_trace(r), &n_ops);
	const struct gs_what_if *p = &d->pipelined;
	unsigned c;

	gs_json_obj(w, "schedule");
	gs_json_i64(w, "actual_ns", d->actual_ns);
	gs_json_i64(w, "dependency_bound_ns", d->dependency_bound_ns);
	gs_json_i64(w, "ideal_ns", d->ideal_ns);
	gs_json_str(w, "ideal_rule", gs_ideal_rule_name(d->sched.ideal_rule));
	gs_json_bool(w, "ideal_is_recorded", d->sched.ideal_is_recorded);
	gs_json_fixed(w, "kernel_capacity", (double)d->sched.kernel_capacity / GS_SHARE_UNIT);
	gs_json_u64(w, "kernels_by_occupancy", d->sched.kernels_by_occupancy);
	gs_json_u64(w, "kernels_as_recorded", d->sched.kernels_as_recorded);
	gs_json_u64(w, "recorded_kernels_at_once", d->sched.recorded_kernels_at_once);
	/* Never above 1 (report.c): null when dependency cycles were broken
	 * (broken_cycles > 0), 1 with efficiency_bounded when the ideal is
	 * longer than the actual run. */
	if (d->efficiency_kind == GS_REPORT_EFF_CYCLES)
		gs_json_null(w, "efficiency");
	else
		gs_json_fixed(w, "efficiency", d->efficiency);
	gs_json_bool(w, "efficiency_bounded", d->efficiency_kind == GS_REPORT_EFF_BOUNDED);
	json_gap(w, r, d);
	gs_json_bool(w, "optimistic", d->optimistic);
	if (d->optimistic)
		gs_json_str(
			w, "optimistic_reason",
			"ops on several streams and no cross-stream synchronization recorded (no "
			"event records, stream waits or syncs)");
	gs_json_u64(w, "broken_cycles", d->broken_cycles);
	gs_json_i64(w, "critical_lead_ns", d->critical_lead_ns);
	gs_json_row(w, "invariants");
	gs_json_bool(w, "ok", d->inv.violations == 0);
	gs_json_u64(w, "violations", d->inv.violations);
	gs_json_u64(w, "cross_process_edges", d->inv.cross_process_edges);
	gs_json_u64(w, "early_starts", d->inv.early_starts);
	gs_json_i64(w, "early_max_ns", d->inv.early_max_ns);
	gs_json_bool(w, "ideal_below_bound", d->inv.ideal_below_bound);
	gs_json_bool(w, "ideal_above_actual", d->inv.ideal_above_actual);
	gs_json_bool(w, "over_capacity", d->inv.over_capacity);
	gs_json_fixed(w, "ideal_peak_share", (double)d->inv.ideal_peak_share / GS_SHARE_UNIT);
	gs_json_i64(w, "critical_path_ns", d->inv.critical_path_ns);
	gs_json_bool(w, "critical_mismatch", d->inv.critical_mismatch);
	gs_json_u64(w, "recorded_early", d->inv.actual_early);
	gs_json_i64(w, "recorded_early_max_ns", d->inv.actual_early_max_ns);
	if (d->inv.actual_early_op != GS_NO_INDEX)
		gs_json_u64(w, "recorded_early_op",
			    gs_report_op_id(gs_results_trace(r), d->inv.actual_early_op));
	else
		gs_json_null(w, "recorded_early_op");
	gs_json_u64(w, "returned_early", d->inv.returned_early);
	gs_json_i64(w, "returned_early_max_ns", d->inv.returned_early_max_ns);
	if (d->inv.returned_early_op != GS_NO_INDEX)
		gs_json_u64(w, "returned_early_op",
			    gs_report_op_id(gs_results_trace(r), d->inv.returned_early_op));
	else
		gs_json_null(w, "returned_early_op");
	gs_json_end_obj(w);
	gs_json_row(w, "copy_engines");
	for (c = 1; c < GS_COPY_KIND_COUNT; c++)
		gs_json_u64(w, gs_copy_kind_name(c), d->copy_engines[c]);
	gs_json_end_obj(w);
	gs_json_i64(w, "critical_path_ns", d->critical_ns);
	gs_json_arr(w, "critical_path");
	for (i = 0; i < d->n_critical; i++) {
		uint32_t op = d->critical[i].op;

		gs_json_row(w, NULL);
		json_op(w, gs_results_trace(r), "op", op);
		gs_json_i64(w, "ns", d->critical[i].ns);
		gs_json_str(w, "kind", op < n_ops ? gs_op_kind_name(ops[op].kind) : "");
		gs_json_i64(w, "start_ns", op < n_ops ? ops[op].start_ns : 0);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	/* A list cut to --rows entries says how many it had. */
	if (d->n_critical < d->critical_count)
		gs_json_u64(w, "critical_path_count", d->critical_count);
	gs_json_arr(w, "what_if");
	if (p->name) {
		gs_json_row(w, NULL);
		gs_json_str(w, "name", p->name);
		gs_json_i64(w, "makespan_ns", p->makespan_ns);
		gs_json_i64(w, "saving_ns", p->saving_ns);
		gs_json_i64(w, "saving_vs_ideal_ns", p->saving_vs_ideal_ns);
		gs_json_arr_inline(w, "preconditions");
		for (i = 0; i < p->n_preconditions && i < 4; i++)
			gs_json_str(w, NULL, p->preconditions[i]);
		gs_json_end_arr(w);
		gs_json_u64(w, "batches", p->batches);
		gs_json_end_obj(w);
	}
	if (d->replay.name) {
		gs_json_row(w, NULL);
		gs_json_str(w, "name", d->replay.name);
		gs_json_i64(w, "makespan_ns", d->replay.makespan_ns);
		gs_json_i64(w, "saving_ns", d->replay.saving_ns);
		gs_json_i64(w, "saving_vs_ideal_ns", d->replay.saving_vs_ideal_ns);
		gs_json_arr_inline(w, "preconditions");
		gs_json_end_arr(w);
		gs_json_i64(w, "graph_node_ns", gs_results_graph_node_ns(r));
		gs_json_i64(w, "max_gap_ns", GS_CUDAGRAPH_MAX_GAP_NS);
		gs_json_u64(w, "candidates", d->n_cands);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	gs_json_obj(w, "bound_by");
	for (c = 0; c < GS_BOUND_COUNT; c++) {
		if (!d->bound_ops[c])
			continue;
		gs_json_row(w, gs_constraint_name(c));
		gs_json_u64(w, "ops", d->bound_ops[c]);
		/* A sum over the ops: it can exceed the window. */
		gs_json_i64(w, "delay_sum_ns", d->bound_delay_ns[c]);
		gs_json_end_obj(w);
	}
	gs_json_end_obj(w);
	gs_json_end_obj(w);
}

static void json_missed(struct gs_json *w, const struct gs_report *r,
			const struct gs_report_device *d)
{
	size_t n_ops, i;
	const struct gs_op *ops = gs_trace_ops(gs_results_trace(r), &n_ops);

	gs_json_arr(w, "missed_overlap");
	for (i = 0; i < d->n_missed; i++) {
		const struct gs_missed_overlap *m = &d->missed[i];
		unsigned bit;

		gs_json_row(w, NULL);
		json_op(w, gs_results_trace(r), "op", m->op);
		gs_json_i64(w, "exposed_ns", m->exposed_ns);
		gs_json_arr_inline(w, "missing_conditions");
		for (bit = 0; bit < 3; bit++)
			if (m->missing & (1u << bit))
				gs_json_str(w, NULL, gs_condition_name(1u << bit));
		gs_json_end_arr(w);
		/* Evidence per condition: met, missing or unknown. */
		gs_json_row(w, "conditions");
		for (bit = 0; bit < 3; bit++)
			gs_json_str(w, gs_condition_name(1u << bit),
				    m->missing & (1u << bit) ? "missing" :
				    m->unknown & (1u << bit) ? "unknown" :
							       "met");
		gs_json_end_obj(w);
		gs_json_bool(w, "possible", m->unknown != 0);
		gs_json_str(w, "bound_by", gs_constraint_name(m->bound_by));
		gs_json_i64(w, "hideable_ns", m->hideable_ns);
		gs_json_bool(w, "hideable_is_upper_bound", m->unknown != 0);
		if (m->op < n_ops) {
			gs_json_str(w, "copy_kind", gs_copy_kind_name(ops[m->op].copy_kind));
			gs_json_u64(w, "bytes", ops[m->op].bytes);
			gs_json_i64(w, "start_ns", ops[m->op].start_ns);
		}
		if (m->kernel != GS_NO_INDEX && m->kernel < n_ops)
			json_op(w, gs_results_trace(r), "kernel", m->kernel);
		else
			gs_json_null(w, "kernel");
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	if (d->n_missed < d->missed_count) {
		gs_json_u64(w, "missed_overlap_count", d->missed_count);
		gs_json_i64(w, "missed_overlap_ns", d->missed_exposed_ns);
		gs_json_i64(w, "missed_overlap_hideable_ns", d->missed_hideable_ns);
	}
}

static void json_candidates(struct gs_json *w, const struct gs_report *r,
			    const struct gs_report_device *d)
{
	size_t n_ops, i, k;
	const struct gs_op *ops = gs_trace_ops(gs_results_trace(r), &n_ops);

	gs_json_arr(w, "graph_candidates");
	for (i = 0; i < d->n_cands; i++) {
		const struct gs_cudagraph_candidate *c = &d->cands[i];

		gs_json_row(w, NULL);
		gs_json_u64(w, "stream",
			    c->length && c->kernels[0] < n_ops ?
				    gs_report_op_stream(gs_results_trace(r), c->kernels[0]) :
				    0);
		gs_json_u64(w, "length", c->length);
		gs_json_u64(w, "repetitions", c->repetitions);
		gs_json_i64(w, "exposed_launch_ns", c->exposed_launch_ns);
		gs_json_i64(w, "mean_gap_ns",
			    c->exposed_launch_ns / (int64_t)(c->repetitions *
							     (c->length > 1 ? c->length - 1 : 1)));
		gs_json_i64(w, "max_gap_ns", c->max_gap_ns);
		gs_json_bool(w, "already_graph", c->already_graph);
		gs_json_arr_inline(w, "sequence");
		for (k = 0; k < c->length; k++)
			gs_json_str(w, NULL,
				    c->kernels[k] < n_ops ?
					    gs_trace_string(gs_results_trace(r),
							    ops[c->kernels[k]].name) :
					    "");
		gs_json_end_arr(w);
		gs_json_arr_inline(w, "first_ops");
		for (k = 0; k < c->length; k++)
			gs_json_u64(w, NULL, gs_report_op_id(gs_results_trace(r), c->kernels[k]));
		gs_json_end_arr(w);
		/* This candidate alone replayed from a graph (null: not
		 * computed, past GS_REPLAY_MAX_CANDIDATES). */
		if (d->cand_replay_done && d->cand_replay_done[i]) {
			const struct gs_what_if *p = &d->cand_replay[i];

			gs_json_row(w, "replay");
			gs_json_i64(w, "makespan_ns", p->makespan_ns);
			gs_json_i64(w, "saving_ns", p->saving_ns);
			gs_json_i64(w, "saving_vs_ideal_ns", p->saving_vs_ideal_ns);
			gs_json_end_obj(w);
		} else {
			gs_json_null(w, "replay");
		}
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

/* Every step: its marker, its GPU window and this device's figures there. */
static void json_device_steps(struct gs_json *w, const struct gs_report *r,
			      const struct gs_report_device *d)
{
	const struct gs_steps *s = gs_results_steps(r);

	gs_json_u64(w, "steps_with_figures", d->step_stats ? d->n_step_figures : 0);
	gs_json_arr(w, "steps");
	for (size_t i = 0; d->step_stats && i < s->n; i++) {
		const struct gs_step *st = &s->steps[i];
		const struct gs_report_step_stat *x = &d->step_stats[i];

		gs_json_row(w, NULL);
		gs_json_u64(w, "step", st->number);
		gs_json_str(w, "name", gs_trace_string(gs_results_trace(r), st->name));
		gs_json_bool(w, "analysed", gs_results_window_from_steps(r) && st->selected);
		gs_json_bool(w, "partial", st->partial);
		gs_json_arr_inline(w, "host_ns");
		gs_json_i64(w, NULL, st->host_start_ns);
		gs_json_i64(w, NULL, st->host_end_ns);
		gs_json_end_arr(w);
		gs_json_arr_inline(w, "gpu_window_ns");
		gs_json_i64(w, NULL, st->gpu_start_ns);
		gs_json_i64(w, NULL, st->gpu_end_ns);
		gs_json_end_arr(w);
		gs_json_bool(w, "gpu_drawn", st->gpu_drawn);
		gs_json_u64(w, "ops", x->has ? x->ops : 0);
		if (x->has) {
			gs_json_i64(w, "time_ns", x->window_ns);
			for (unsigned c = 0; c < GS_CAT_COUNT; c++) {
				char key[32];

				snprintf(key, sizeof(key), "%s_ns", gs_category_name(c));
				gs_json_i64(w, key, x->total_ns[c]);
			}
			gs_json_i64(w, "actual_ns", x->actual_ns);
			gs_json_i64(w, "ideal_ns", x->ideal_ns);
			if (isfinite(x->efficiency))
				gs_json_fixed(w, "efficiency", x->efficiency);
			else
				gs_json_null(w, "efficiency");
			if (x->gap_cause < GS_GAP_CAUSE_COUNT) {
				gs_json_str(w, "gap_cause", gs_gap_cause_name(x->gap_cause));
				gs_json_i64(w, "gap_cause_ns", x->gap_cause_ns);
			} else {
				gs_json_null(w, "gap_cause");
			}
		}
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static void json_device(struct gs_json *w, const struct gs_report *r,
			const struct gs_report_device *d)
{
	struct gs_results_process p;
	size_t i;
	unsigned k;

	gs_results_process(r, &p);
	gs_json_obj(w, NULL);
	gs_json_u64(w, "device", d->device);
	gs_json_str(w, "name", d->name);
	gs_json_u64(w, "rank", p.rank);
	if (*p.host)
		gs_json_str(w, "host", p.host);
	else
		gs_json_null(w, "host");
	if (p.pid >= 0)
		gs_json_i64(w, "pid", p.pid);
	else
		gs_json_null(w, "pid");
	if (*d->uuid)
		gs_json_str(w, "uuid", d->uuid);
	else
		gs_json_null(w, "uuid");
	gs_json_arr_inline(w, "window_ns");
	gs_json_i64(w, NULL, d->b.window_start);
	gs_json_i64(w, NULL, d->b.window_end);
	gs_json_end_arr(w);
	gs_json_bool(w, "window_default", d->default_window);
	gs_json_u64(w, "ops", d->ops);
	gs_json_row(w, "ops_by_kind");
	for (k = 0; k < GS_OP_KIND_COUNT; k++)
		gs_json_u64(w, gs_op_kind_name(k), d->op_kinds[k]);
	gs_json_end_obj(w);
	json_breakdown(w, r, d);
	json_streams(w, r, d);
	json_schedule(w, r, d);
	json_device_steps(w, r, d);
	json_missed(w, r, d);
	json_candidates(w, r, d);
	gs_measures_write_json(w, r, d);
	gs_operators_write_json(w, r, d);
	gs_json_row(w, "waits_summary");
	gs_json_u64(w, "count", d->wait_count);
	gs_json_i64(w, "wait_ns", d->wait_ns);
	for (k = 0; k < GS_EDGE_KIND_COUNT; k++)
		if (d->wait_kind_count[k])
			gs_json_u64(w, gs_edge_kind_name(k), d->wait_kind_count[k]);
	gs_json_end_obj(w);
	gs_json_arr(w, "findings");
	for (i = 0; i < d->n_findings; i++) {
		const struct gs_report_finding *f = &d->findings[i];

		gs_report_json_finding(w, f->kind, f->ns, &f->data, f->text, f->advice);
	}
	gs_json_end_arr(w);
	gs_json_end_obj(w);
}

/* The rows of the "waits" list of one rank's report. */
static void json_wait_rows(struct gs_json *w, const struct gs_report *r)
{
	const struct gs_trace *t = gs_results_trace(r);
	struct gs_results_process p;
	size_t n_ops, i;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);

	gs_results_process(r, &p);
	for (i = 0; i < gs_results_wait_rows(r); i++) {
		const struct gs_wait *x = gs_results_wait(r, i);

		gs_json_row(w, NULL);
		gs_json_str(w, "kind", gs_edge_kind_name(x->kind));
		json_op(w, t, "consumer", x->consumer);
		json_op(w, t, "producer", x->producer);
		gs_json_u64(w, "event", x->event);
		gs_json_i64(w, "wait_ns", x->wait_ns);
		gs_json_u64(w, "device", gs_report_op_device(t, x->consumer));
		gs_json_u64(w, "rank", p.rank);
		gs_json_i64(w, "consumer_start_ns",
			    x->consumer < n_ops ? ops[x->consumer].start_ns : 0);
		gs_json_i64(w, "producer_end_ns",
			    x->producer < n_ops ? ops[x->producer].end_ns : 0);
		gs_json_end_obj(w);
	}
}

/* The parts of a job's JSON report that each rank writes: the rows of its
 * loading warnings, its row of trace.ranks, its devices, its waits. Each
 * is a list's members, written at the list's depth. */
enum {
	PART_WARNINGS,
	PART_RANK,
	PART_DEVICES,
	PART_WAITS,
	PART_COUNT
};

static const int part_depth[PART_COUNT] = {3, 3, 2, 2};

static void json_rank_part(struct gs_json *w, const struct gs_report *c, unsigned part)
{
	const struct gs_trace *t = gs_results_trace(c);
	const struct gs_report_device *dev;
	const struct gs_warning *warn;
	struct gs_results_process p;
	size_t k, n, n_dev;

	gs_results_process(c, &p);
	dev = gs_results_devices(c, &n_dev);
	switch (part) {
	case PART_WARNINGS:
		warn = gs_trace_warnings(t, &n);
		for (k = 0; k < n; k++) {
			gs_json_row(w, NULL);
			gs_json_str(w, "message", warn[k].message);
			gs_json_u64(w, "count", warn[k].count);
			gs_json_u64(w, "rank", p.rank);
			gs_json_end_obj(w);
		}
		break;
	case PART_RANK:
		gs_json_obj(w, NULL);
		gs_json_u64(w, "rank", p.rank);
		gs_json_bool(w, "rank_declared", p.rank_declared);
		if (*p.host)
			gs_json_str(w, "host", p.host);
		else
			gs_json_null(w, "host");
		if (p.pid >= 0)
			gs_json_i64(w, "pid", p.pid);
		else
			gs_json_null(w, "pid");
		gs_json_str(w, "input", p.input);
		gs_json_u64(w, "clock_group", p.clock_group);
		gs_trace_ops(t, &n);
		gs_json_u64(w, "ops", n);
		gs_json_u64(w, "dropped_records", gs_trace_dropped(t));
		gs_json_arr_inline(w, "devices");
		for (k = 0; k < n_dev; k++)
			gs_json_u64(w, NULL, dev[k].device);
		gs_json_end_arr(w);
		json_graph(w, c);
		gs_json_end_obj(w);
		break;
	case PART_DEVICES:
		for (k = 0; k < n_dev; k++)
			json_device(w, c, &dev[k]);
		break;
	case PART_WAITS:
		json_wait_rows(w, c);
		break;
	default:
		break;
	}
}

/* The job's JSON report; part(ctx, p, i, w) writes part p of the i-th rank
 * into w (at the depth of its list). */
typedef gs_status (*json_part_fn)(void *ctx, unsigned part, size_t i, struct gs_json *w);

static gs_status json_job(FILE *f, const struct gs_report *r, size_t top, json_part_fn part,
			  void *ctx)
{
	const struct gs_job *j = gs_results_job(r);
	struct gs_report_job_totals tot;
	struct gs_outbuf o;
	struct gs_json w;
	gs_status st = GS_OK;
	size_t i;
	unsigned p;

	gs_report_job_totals(r, &tot);
	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, GS_JSON_ESCAPE_DEL);
	gs_json_obj(&w, NULL);
	gs_json_str(&w, "schema", "gpuscope.report/1");
	gs_json_obj(&w, "trace");
	json_inputs(&w, r);
	gs_json_u64(&w, "ops", tot.ops);
	gs_json_u64(&w, "dropped_records", tot.dropped);
	gs_json_arr(&w, "warnings");
	for (i = 0; i < j->n_warnings; i++) {
		gs_json_row(&w, NULL);
		gs_json_str(&w, "message", j->warnings[i]);
		gs_json_u64(&w, "count", 1);
		gs_json_null(&w, "rank");
		gs_json_end_obj(&w);
	}
	for (p = 0; p < PART_COUNT && st == GS_OK; p++) {
		for (i = 0; i < tot.ranks && st == GS_OK; i++)
			st = part(ctx, p, i, &w);
		gs_json_end_arr(&w);
		if (p == PART_WARNINGS) {
			gs_json_u64(&w, "streams", tot.streams);
			gs_json_arr(&w, "ranks");
		} else if (p == PART_RANK) {
			gs_json_u64(&w, "clock_groups", j->n_clock_groups);
			gs_json_end_obj(&w);
			json_options(&w, r, top);
			gs_json_arr(&w, "devices");
		} else if (p == PART_DEVICES) {
			gs_json_arr(&w, "waits");
		}
	}
	if (st != GS_OK)
		return gs_outbuf_finish_keep(w.o, st);
	gs_job_analysis_write_json(&w, r);
	gs_gate_write_json(&w, gs_report_verdict(r));
	gs_json_end_obj(&w);
	gs_outbuf_putc(w.o, '\n');
	return gs_outbuf_finish(w.o);
}

/* Part p of rank i, from the rank's report that the job's report holds. */
struct json_own {
	const struct gs_report *job;
};

static gs_status own_part(void *ctx, unsigned part, size_t i, struct gs_json *w)
{
	json_rank_part(w, gs_results_rank(((struct json_own *)ctx)->job, i), part);
	return GS_OK;
}

gs_status gs_report_write_json(FILE *f, const struct gs_report *r,
			       const struct gs_report_style *style)
{
	const struct gs_gate_verdict *gate = gs_report_verdict(r);
	struct gs_outbuf o;
	struct gs_json w;
	size_t i, n_dev, top = gs_report_style_of(style).top;
	const struct gs_report_device *dev;

	if (!f || !r) {
		gs_error_append("gs_report_write_json: no output or no report");
		return GS_ERR_INVALID;
	}
	/* A job of one rank is that rank's report, with the job's verdict. */
	r = gs_report_single(r);
	if (gs_results_job(r)) {
		struct json_own own = {r};

		return json_job(f, r, top, own_part, &own);
	}
	dev = gs_results_devices(r, &n_dev);
	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, GS_JSON_ESCAPE_DEL);
	gs_json_obj(&w, NULL);
	gs_json_str(&w, "schema", "gpuscope.report/1");
	json_trace(&w, r, top);
	gs_json_arr(&w, "devices");
	for (i = 0; i < n_dev; i++)
		json_device(&w, r, &dev[i]);
	gs_json_end_arr(&w);
	gs_json_arr(&w, "waits");
	json_wait_rows(&w, r);
	gs_json_end_arr(&w);
	if (gs_results_wait_rows(r) < gs_results_wait_count(r)) {
		gs_json_u64(&w, "waits_count", gs_results_wait_count(r));
		gs_json_i64(&w, "waits_ns", gs_results_wait_ns(r));
	}
	gs_gate_write_json(&w, gate);
	gs_json_end_obj(&w);
	gs_outbuf_putc(w.o, '\n');
	return gs_outbuf_finish(w.o);
}

/* ---- the parts of a job's JSON report (gpuscope-mpi) ---- */

struct parts_ctx {
	gs_status (*part)(void *ctx, unsigned part, size_t i, char **bytes, size_t *len);
	void *ctx;
};

/* Another process's bytes of a part go in as they are, but for the comma
 * before the first member of a list. */
static gs_status parts_bridge(void *ctx, unsigned part, size_t i, struct gs_json *w)
{
	struct parts_ctx *pc = ctx;
	char *bytes = NULL;
	size_t len = 0;
	gs_status st;

	if (w->depth != part_depth[part]) {
		gs_error_append("job report: part %u at depth %d", part, w->depth);
		return GS_ERR_INVALID;
	}
	st = pc->part(pc->ctx, part, i, &bytes, &len);
	/* Each member starts with its comma; the list's first has none. */
	if (gs_report_put_part(w->o, st, bytes, len, w->first[w->depth]))
		w->first[w->depth] = false;
	return st;
}

gs_status gs_report_json_job_parts(
	FILE *f, const struct gs_report *shell, const struct gs_report_style *style,
	gs_status (*part)(void *ctx, unsigned part, size_t i, char **bytes, size_t *len), void *ctx)
{
	struct parts_ctx pc = {part, ctx};

	return json_job(f, shell, gs_report_style_of(style).top, parts_bridge, &pc);
}

gs_status gs_report_json_rank_part(FILE *f, const struct gs_report *rank, unsigned part)
{
	struct gs_outbuf o;
	struct gs_json w;

	if (part >= PART_COUNT) {
		gs_error_append("job report: no part %u", part);
		return GS_ERR_INVALID;
	}
	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, GS_JSON_ESCAPE_DEL);
	w.depth = part_depth[part];
	/* Not the first member: each member starts with its comma. */
	w.first[w.depth] = false;
	json_rank_part(&w, rank, part);
	return gs_outbuf_finish(w.o);
}
