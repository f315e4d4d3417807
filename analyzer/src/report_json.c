/* SPDX-License-Identifier: MIT */
/*
 * The analyze report as JSON (schema "gpuscope.report/1"): fields whose
 * names are fixed (others only add), and more. Written as it goes (nothing is built in
 * memory), with every write checked (out.c). Integers are exact; fractions
 * and efficiency have four decimals (efficiency is null when the schedule
 * broke dependency cycles: see report.c). Ops are named by "op": their
 * correlation id when nonzero, else their index, and "op_index": their
 * index in the trace (gs_trace_ops() order, as `gpuscope dump` has them).
 *
 * Objects at the top are indented; the rows of lists are one line each.
 * Complexity: linear in what is written.
 */
#include <gpuscope/import.h>
#include <gpuscope/report_parts.h>
#include <gpuscope/text.h>
#include "report_model_priv.h"
#include "report_phrases_priv.h"
#include "report_write_priv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gate_priv.h"
#include "job_sum.h"
#include "jw.h"
#include "measures_priv.h"
#include "operators_priv.h"
#include "out.h"

void gs_report_json_finding(struct jw *w, const char *kind, int64_t ns,
			    const struct gs_finding_data *d, const char *text, const char *advice)
{
	char *t = gs_dur_sentence_dup(text, false), *a = gs_dur_sentence_dup(advice, false);

	if (!t || !a) {
		free(t);
		free(a);
		w->o.failed = true;
		w->o.err = ENOMEM;
		return;
	}
	jw_row(w, NULL);
	jw_str(w, "kind", kind);
	jw_i64(w, "ns", ns);
	jw_str(w, "evidence", gs_evidence_name(d->evidence));
	jw_obj(w, "numbers");
	for (size_t k = 0; k < d->n; k++) {
		double v = d->num[k].value;

		/* Whole numbers as integers (times, counts), the rest with four
		 * decimals (shares, ratios). */
		if (fabs(v) < 9007199254740992.0 && v == floor(v))
			jw_i64(w, d->num[k].key, (int64_t)v);
		else
			jw_fixed(w, d->num[k].key, v);
	}
	jw_end_obj(w);
	jw_str(w, "text", t);
	jw_str(w, "advice", a);
	if (d->advice)
		jw_str(w, "advice_kind", d->advice);
	else
		jw_null(w, "advice_kind");
	jw_end_obj(w);
	free(t);
	free(a);
}

static double ratio(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0.0;
}

/* "op", "op_index", "name", "kind", "stream" of one op. */
static void jw_op(struct jw *w, const struct gs_trace *t, const char *prefix, uint32_t op)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	char key[64];

	snprintf(key, sizeof(key), "%s", prefix);
	jw_u64(w, key, gs_report_op_id(t, op));
	snprintf(key, sizeof(key), "%s_index", prefix);
	jw_u64(w, key, op);
	snprintf(key, sizeof(key), "%s_name", prefix);
	jw_str(w, !strcmp(prefix, "op") ? "name" : key,
	       op < n ? gs_trace_string(t, ops[op].name) : "");
	snprintf(key, sizeof(key), "%s_stream", prefix);
	jw_u64(w, !strcmp(prefix, "op") ? "stream" : key, gs_report_op_stream(t, op));
}

static void json_options(struct jw *w, const struct gs_report *r, size_t top);

/* The dependency graph's counts of one rank. */
static void json_graph(struct jw *w, const struct gs_report *r)
{
	unsigned k;

	jw_obj(w, "graph");
	if (r->g) {
		jw_u64(w, "edges", r->g->n_edges + r->g->implied_edges);
		jw_row(w, "edges_by_kind");
		for (k = 0; k < GS_EDGE_KIND_COUNT; k++)
			jw_u64(w, gs_edge_kind_name(k), r->g->edge_count[k]);
		jw_end_obj(w);
		/* Edges kept that the recording contradicts (consumer started
		 * before producer ended), and copies whose call returned
		 * before they ended (no sync_copy edges). */
		jw_row(w, "recorded_early_by_kind");
		for (k = 0; k < GS_EDGE_KIND_COUNT; k++)
			jw_u64(w, gs_edge_kind_name(k), r->g->recorded_early[k]);
		jw_end_obj(w);
		jw_u64(w, "returned_early", r->g->n_returned_early);
		jw_u64(w, "unlinked_waits", r->g->unlinked_waits);
		jw_u64(w, "unlinked_wait_calls", r->g->unlinked_wait_calls);
		jw_bool(w, "stream_kinds_known", r->g->stream_kinds_known);
		jw_bool(w, "data_edges", r->g->has_data_edges);
	}
	jw_end_obj(w);
}

static void json_trace(struct jw *w, const struct gs_report *r, size_t top)
{
	const struct gs_warning *warn;
	size_t n_ops, n, i;

	gs_trace_ops(r->t, &n_ops);
	jw_obj(w, "trace");
	jw_arr_inline(w, "inputs");
	for (i = 0; i < r->n_inputs; i++)
		jw_str(w, NULL, r->inputs[i]);
	jw_end_arr(w);
	jw_str(w, "format", r->format ? r->format : "");
	jw_u64(w, "ops", n_ops);
	jw_u64(w, "dropped_records", gs_trace_dropped(r->t));
	warn = gs_trace_warnings(r->t, &n);
	jw_arr(w, "warnings");
	for (i = 0; i < n; i++) {
		jw_row(w, NULL);
		jw_str(w, "message", warn[i].message);
		jw_u64(w, "count", warn[i].count);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	gs_trace_streams(r->t, &n);
	jw_u64(w, "streams", n);
	json_graph(w, r);
	jw_end_obj(w);
	json_options(w, r, top);
}

/* The steps the trace marks and which the window covers. */
static void json_steps(struct jw *w, const struct gs_report *r)
{
	const struct gs_steps *s = &r->steps;

	jw_row(w, "steps");
	jw_str(w, "source", s->source ? s->source : "ProfilerStep#N ranges");
	jw_u64(w, "found", s->n);
	jw_bool(w, "window_from_steps", r->window_from_steps);
	jw_u64(w, "analysed", r->window_from_steps ? s->n_selected : 0);
	jw_bool(w, "warmup_left_out", r->window_from_steps && s->warmup_left_out);
	jw_bool(w, "partial_left_out", r->window_from_steps && s->partial_left_out);
	jw_end_obj(w);
}

/* The options the report was made with; `top`: the style's rows in the
 * text and HTML tables, given here for the record. */
static void json_options(struct jw *w, const struct gs_report *r, size_t top)
{
	jw_obj(w, "options");
	jw_u64(w, "top", top);
	if (r->window_set) {
		jw_arr_inline(w, "window_ns");
		jw_i64(w, NULL, r->window.start_ns);
		jw_i64(w, NULL, r->window.end_ns);
		jw_end_arr(w);
	} else {
		jw_null(w, "window_ns");
	}
	json_steps(w, r);
	if (r->mpi_processes) {
		jw_row(w, "mpi");
		jw_u64(w, "processes", r->mpi_processes);
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

/* At most this many host ranges in the JSON (the totals count them all). */
#define JSON_HOST_RANGES 50

/* Host-bound idle by the launching thread's host ranges (in "idle"). */
static void json_host_ranges(struct jw *w, const struct gs_report *r, const struct gs_breakdown *b)
{
	const struct gs_host_ranges *h = &b->host_ranges;
	size_t i, n = h->n_ranges < JSON_HOST_RANGES ? h->n_ranges : JSON_HOST_RANGES;
	int64_t shown_ns = 0;

	jw_bool(w, "host_ranges_recorded", h->recorded);
	jw_i64(w, "host_outside_ranges_ns", h->outside_ns);
	jw_i64(w, "host_forwarded_ns", h->forwarded_ns);
	jw_u64(w, "host_bound_gaps", h->intervals);
	jw_u64(w, "host_short_gaps", h->short_intervals);
	jw_i64(w, "host_short_gap_ns", h->short_ns);
	jw_arr(w, "host_ranges");
	for (i = 0; i < n; i++) {
		const struct gs_host_range_time *x = &h->ranges[i];

		jw_row(w, NULL);
		jw_str(w, "name", gs_trace_string(r->t, x->name));
		jw_str(w, "kind", gs_range_kind_name(x->kind));
		jw_str(w, "class", gs_host_class_name(x->cls));
		jw_i64(w, "ns", x->ns);
		jw_fixed(w, "share", ratio(x->ns, b->host_bound_ns));
		jw_u64(w, "gaps", x->gaps);
		jw_i64(w, "forwarded_ns", x->forwarded_ns);
		if (x->context != GS_NO_STRING)
			jw_str(w, "context", gs_trace_string(r->t, x->context));
		jw_end_obj(w);
		shown_ns += x->ns;
	}
	jw_end_arr(w);
	jw_u64(w, "host_ranges_total", h->n_ranges);
	jw_i64(w, "host_ranges_not_listed_ns", b->host_bound_ns - h->outside_ns - shown_ns);
	jw_row(w, "host_range_kind_ns");
	for (i = 0; i < GS_RANGE_KIND_COUNT; i++)
		if (i != GS_RANGE_GPU_ANNOTATION) /* not a host range */
			jw_i64(w, gs_range_kind_name((unsigned)i), h->kind_ns[i]);
	jw_end_obj(w);
	jw_row(w, "host_class_ns");
	for (i = 0; i < GS_HOST_CLASS_COUNT; i++)
		jw_i64(w, gs_host_class_name((unsigned)i), h->class_ns[i]);
	jw_end_obj(w);
}

static void json_breakdown(struct jw *w, const struct gs_report *r,
			   const struct gs_report_device *d)
{
	const struct gs_breakdown *b = &d->b;
	unsigned c;
	size_t i;

	jw_obj(w, "breakdown");
	jw_i64(w, "kernel_ns", b->total_ns[GS_CAT_KERNEL]);
	jw_i64(w, "copy_ns", b->total_ns[GS_CAT_COPY]);
	jw_i64(w, "sync_ns", b->total_ns[GS_CAT_SYNC]);
	jw_i64(w, "idle_ns", b->total_ns[GS_CAT_IDLE]);
	jw_i64(w, "total_ns", b->window_ns);
	jw_row(w, "fractions");
	for (c = 0; c < GS_CAT_COUNT; c++)
		jw_fixed(w, gs_category_name(c), ratio(b->total_ns[c], b->window_ns));
	jw_end_obj(w);
	jw_str(w, "dominant", gs_category_name(b->dominant));
	jw_end_obj(w);
	jw_u64(w, "segments", b->n_segments);

	jw_obj(w, "overlap");
	jw_i64(w, "copy_total_ns", b->copy_total_ns);
	jw_i64(w, "copy_hidden_ns", b->copy_hidden_ns);
	jw_i64(w, "kernel_concurrency_ns", b->kernel_concurrency_ns);
	jw_end_obj(w);

	jw_obj(w, "idle");
	jw_i64(w, "host_bound_ns", b->host_bound_ns);
	jw_i64(w, "launch_latency_ns", b->launch_latency_ns);
	jw_i64(w, "unattributed_ns", b->unattributed_ns);
	jw_arr(w, "top_host_calls");
	for (i = 0; i < b->n_top_host_calls; i++) {
		jw_row(w, NULL);
		jw_str(w, "name", gs_trace_string(r->t, b->top_host_calls[i].name));
		jw_i64(w, "ns", b->top_host_calls[i].ns);
		jw_u64(w, "count", b->top_host_calls[i].count);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	json_host_ranges(w, r, b);
	jw_end_obj(w);
}

static void json_streams(struct jw *w, const struct gs_report *r, const struct gs_report_device *d)
{
	size_t i;

	jw_arr(w, "streams");
	for (i = 0; i < d->n_streams; i++) {
		const struct gs_report_stream *s = &d->streams[i];

		jw_row(w, NULL);
		jw_u64(w, "stream", s->stream_id);
		jw_str(w, "kind", gs_stream_kind_name(s->kind));
		jw_i64(w, "priority", s->priority);
		jw_u64(w, "ops", s->ops);
		jw_i64(w, "kernel_ns", s->kernel_ns);
		jw_i64(w, "copy_ns", s->copy_ns);
		jw_u64(w, "kernels", s->kernels);
		jw_u64(w, "copies", s->copies);
		jw_i64(w, "busy_ns", s->busy_ns);
		jw_i64(w, "pid", s->pid);
		jw_u64(w, "index", s->index);
		jw_end_obj(w);
	}
	jw_end_arr(w);

	jw_arr(w, "kernels");
	for (i = 0; i < d->n_kernels; i++) {
		const struct gs_report_kernel *k = &d->kernels[i];

		jw_row(w, NULL);
		jw_str(w, "name", gs_trace_string(r->t, k->name));
		jw_u64(w, "count", k->count);
		jw_i64(w, "ns", k->ns);
		jw_i64(w, "mean_ns", k->mean_ns);
		jw_i64(w, "min_ns", k->min_ns);
		jw_i64(w, "median_ns", k->median_ns);
		jw_i64(w, "p95_ns", k->p95_ns);
		jw_i64(w, "max_ns", k->max_ns);
		jw_i64(w, "std_ns", k->std_ns);
		jw_str(w, "class", gs_kernel_class_name(k->cls));
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

/* actual - ideal by cause, adding up to gap_ns; null when not available.
 * The host-bound part by host range: each range's share of it. */
static void json_gap(struct jw *w, const struct gs_report *r, const struct gs_report_device *d)
{
	const struct gs_gap *g = &d->gap;
	const struct gs_host_ranges *h = &d->gap_host;

	jw_i64(w, "gap_ns", d->actual_ns - d->ideal_ns);
	if (!g->available) {
		jw_null(w, "gap");
		return;
	}
	jw_arr(w, "gap");
	for (unsigned c = 0; c < GS_GAP_CAUSE_COUNT; c++) {
		if (!g->ns[c])
			continue;
		jw_row(w, NULL);
		jw_str(w, "cause", gs_gap_cause_name(c));
		jw_i64(w, "ns", g->ns[c]);
		jw_str(w, "evidence", gs_gap_cause_evidence(c));
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_arr(w, "gap_host_ranges");
	for (size_t i = 0; i < h->n_ranges && i < 10 && g->host_charged_ns > 0; i++) {
		jw_row(w, NULL);
		jw_str(w, "name", gs_trace_string(r->t, h->ranges[i].name));
		jw_fixed(w, "share", (double)h->ranges[i].ns / (double)g->host_charged_ns);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_schedule(struct jw *w, const struct gs_report *r, const struct gs_report_device *d)
{
	size_t n_ops, i;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);
	const struct gs_what_if *p = &d->pipelined;
	unsigned c;

	jw_obj(w, "schedule");
	jw_i64(w, "actual_ns", d->actual_ns);
	jw_i64(w, "dependency_bound_ns", d->dependency_bound_ns);
	jw_i64(w, "ideal_ns", d->ideal_ns);
	jw_str(w, "ideal_rule", gs_ideal_rule_name(d->sched.ideal_rule));
	jw_bool(w, "ideal_is_recorded", d->sched.ideal_is_recorded);
	jw_fixed(w, "kernel_capacity", (double)d->sched.kernel_capacity / GS_SHARE_UNIT);
	jw_u64(w, "kernels_by_occupancy", d->sched.kernels_by_occupancy);
	jw_u64(w, "kernels_as_recorded", d->sched.kernels_as_recorded);
	jw_u64(w, "recorded_kernels_at_once", d->sched.recorded_kernels_at_once);
	/* Never above 1 (report.c): null when dependency cycles were broken
	 * (broken_cycles > 0), 1 with efficiency_bounded when the ideal is
	 * longer than the actual run. */
	if (d->efficiency_kind == GS_REPORT_EFF_CYCLES)
		jw_null(w, "efficiency");
	else
		jw_fixed(w, "efficiency", d->efficiency);
	jw_bool(w, "efficiency_bounded", d->efficiency_kind == GS_REPORT_EFF_BOUNDED);
	json_gap(w, r, d);
	jw_bool(w, "optimistic", d->optimistic);
	if (d->optimistic)
		jw_str(w, "optimistic_reason",
		       "ops on several streams and no cross-stream synchronization recorded (no "
		       "event records, stream waits or syncs)");
	jw_u64(w, "broken_cycles", d->broken_cycles);
	jw_i64(w, "critical_lead_ns", d->critical_lead_ns);
	jw_row(w, "invariants");
	jw_bool(w, "ok", d->inv.violations == 0);
	jw_u64(w, "violations", d->inv.violations);
	jw_u64(w, "cross_process_edges", d->inv.cross_process_edges);
	jw_u64(w, "early_starts", d->inv.early_starts);
	jw_i64(w, "early_max_ns", d->inv.early_max_ns);
	jw_bool(w, "ideal_below_bound", d->inv.ideal_below_bound);
	jw_bool(w, "ideal_above_actual", d->inv.ideal_above_actual);
	jw_bool(w, "over_capacity", d->inv.over_capacity);
	jw_fixed(w, "ideal_peak_share", (double)d->inv.ideal_peak_share / GS_SHARE_UNIT);
	jw_i64(w, "critical_path_ns", d->inv.critical_path_ns);
	jw_bool(w, "critical_mismatch", d->inv.critical_mismatch);
	jw_u64(w, "recorded_early", d->inv.actual_early);
	jw_i64(w, "recorded_early_max_ns", d->inv.actual_early_max_ns);
	if (d->inv.actual_early_op != GS_NO_INDEX)
		jw_u64(w, "recorded_early_op", gs_report_op_id(r->t, d->inv.actual_early_op));
	else
		jw_null(w, "recorded_early_op");
	jw_u64(w, "returned_early", d->inv.returned_early);
	jw_i64(w, "returned_early_max_ns", d->inv.returned_early_max_ns);
	if (d->inv.returned_early_op != GS_NO_INDEX)
		jw_u64(w, "returned_early_op", gs_report_op_id(r->t, d->inv.returned_early_op));
	else
		jw_null(w, "returned_early_op");
	jw_end_obj(w);
	jw_row(w, "copy_engines");
	for (c = 1; c < GS_COPY_KIND_COUNT; c++)
		jw_u64(w, gs_copy_kind_name(c), d->copy_engines[c]);
	jw_end_obj(w);
	jw_i64(w, "critical_path_ns", d->critical_ns);
	jw_arr(w, "critical_path");
	for (i = 0; i < d->n_critical; i++) {
		uint32_t op = d->critical[i].op;

		jw_row(w, NULL);
		jw_op(w, r->t, "op", op);
		jw_i64(w, "ns", d->critical[i].ns);
		jw_str(w, "kind", op < n_ops ? gs_op_kind_name(ops[op].kind) : "");
		jw_i64(w, "start_ns", op < n_ops ? ops[op].start_ns : 0);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	/* A list cut to --rows entries says how many it had. */
	if (d->n_critical < d->critical_count)
		jw_u64(w, "critical_path_count", d->critical_count);
	jw_arr(w, "what_if");
	if (p->name) {
		jw_row(w, NULL);
		jw_str(w, "name", p->name);
		jw_i64(w, "makespan_ns", p->makespan_ns);
		jw_i64(w, "saving_ns", p->saving_ns);
		jw_i64(w, "saving_vs_ideal_ns", p->saving_vs_ideal_ns);
		jw_arr_inline(w, "preconditions");
		for (i = 0; i < p->n_preconditions && i < 4; i++)
			jw_str(w, NULL, p->preconditions[i]);
		jw_end_arr(w);
		jw_u64(w, "batches", p->batches);
		jw_end_obj(w);
	}
	if (d->replay.name) {
		jw_row(w, NULL);
		jw_str(w, "name", d->replay.name);
		jw_i64(w, "makespan_ns", d->replay.makespan_ns);
		jw_i64(w, "saving_ns", d->replay.saving_ns);
		jw_i64(w, "saving_vs_ideal_ns", d->replay.saving_vs_ideal_ns);
		jw_arr_inline(w, "preconditions");
		jw_end_arr(w);
		jw_i64(w, "graph_node_ns", r->graph_node_ns);
		jw_i64(w, "max_gap_ns", GS_CUDAGRAPH_MAX_GAP_NS);
		jw_u64(w, "candidates", d->n_cands);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_obj(w, "bound_by");
	for (c = 0; c < GS_BOUND_COUNT; c++) {
		if (!d->bound_ops[c])
			continue;
		jw_row(w, gs_constraint_name(c));
		jw_u64(w, "ops", d->bound_ops[c]);
		/* A sum over the ops: it can exceed the window. */
		jw_i64(w, "delay_sum_ns", d->bound_delay_ns[c]);
		jw_end_obj(w);
	}
	jw_end_obj(w);
	jw_end_obj(w);
}

static void json_missed(struct jw *w, const struct gs_report *r, const struct gs_report_device *d)
{
	size_t n_ops, i;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);

	jw_arr(w, "missed_overlap");
	for (i = 0; i < d->n_missed; i++) {
		const struct gs_missed_overlap *m = &d->missed[i];
		unsigned bit;

		jw_row(w, NULL);
		jw_op(w, r->t, "op", m->op);
		jw_i64(w, "exposed_ns", m->exposed_ns);
		jw_arr_inline(w, "missing_conditions");
		for (bit = 0; bit < 3; bit++)
			if (m->missing & (1u << bit))
				jw_str(w, NULL, gs_condition_name(1u << bit));
		jw_end_arr(w);
		/* Evidence per condition: met, missing or unknown. */
		jw_row(w, "conditions");
		for (bit = 0; bit < 3; bit++)
			jw_str(w, gs_condition_name(1u << bit),
			       m->missing & (1u << bit) ? "missing" :
			       m->unknown & (1u << bit) ? "unknown" :
							  "met");
		jw_end_obj(w);
		jw_bool(w, "possible", m->unknown != 0);
		jw_str(w, "bound_by", gs_constraint_name(m->bound_by));
		jw_i64(w, "hideable_ns", m->hideable_ns);
		jw_bool(w, "hideable_is_upper_bound", m->unknown != 0);
		if (m->op < n_ops) {
			jw_str(w, "copy_kind", gs_copy_kind_name(ops[m->op].copy_kind));
			jw_u64(w, "bytes", ops[m->op].bytes);
			jw_i64(w, "start_ns", ops[m->op].start_ns);
		}
		if (m->kernel != GS_NO_INDEX && m->kernel < n_ops)
			jw_op(w, r->t, "kernel", m->kernel);
		else
			jw_null(w, "kernel");
		jw_end_obj(w);
	}
	jw_end_arr(w);
	if (d->n_missed < d->missed_count) {
		jw_u64(w, "missed_overlap_count", d->missed_count);
		jw_i64(w, "missed_overlap_ns", d->missed_exposed_ns);
		jw_i64(w, "missed_overlap_hideable_ns", d->missed_hideable_ns);
	}
}

static void json_candidates(struct jw *w, const struct gs_report *r,
			    const struct gs_report_device *d)
{
	size_t n_ops, i, k;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);

	jw_arr(w, "graph_candidates");
	for (i = 0; i < d->n_cands; i++) {
		const struct gs_cudagraph_candidate *c = &d->cands[i];

		jw_row(w, NULL);
		jw_u64(w, "stream",
		       c->length && c->kernels[0] < n_ops ?
			       gs_report_op_stream(r->t, c->kernels[0]) :
			       0);
		jw_u64(w, "length", c->length);
		jw_u64(w, "repetitions", c->repetitions);
		jw_i64(w, "exposed_launch_ns", c->exposed_launch_ns);
		jw_i64(w, "mean_gap_ns",
		       c->exposed_launch_ns /
			       (int64_t)(c->repetitions * (c->length > 1 ? c->length - 1 : 1)));
		jw_i64(w, "max_gap_ns", c->max_gap_ns);
		jw_bool(w, "already_graph", c->already_graph);
		jw_arr_inline(w, "sequence");
		for (k = 0; k < c->length; k++)
			jw_str(w, NULL,
			       c->kernels[k] < n_ops ?
				       gs_trace_string(r->t, ops[c->kernels[k]].name) :
				       "");
		jw_end_arr(w);
		jw_arr_inline(w, "first_ops");
		for (k = 0; k < c->length; k++)
			jw_u64(w, NULL, gs_report_op_id(r->t, c->kernels[k]));
		jw_end_arr(w);
		/* This candidate alone replayed from a graph (null: not
		 * computed, past GS_REPLAY_MAX_CANDIDATES). */
		if (d->cand_replay_done && d->cand_replay_done[i]) {
			const struct gs_what_if *p = &d->cand_replay[i];

			jw_row(w, "replay");
			jw_i64(w, "makespan_ns", p->makespan_ns);
			jw_i64(w, "saving_ns", p->saving_ns);
			jw_i64(w, "saving_vs_ideal_ns", p->saving_vs_ideal_ns);
			jw_end_obj(w);
		} else {
			jw_null(w, "replay");
		}
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

/* Every step: its marker, its GPU window and this device's figures there. */
static void json_device_steps(struct jw *w, const struct gs_report *r,
			      const struct gs_report_device *d)
{
	const struct gs_steps *s = &r->steps;

	jw_u64(w, "steps_with_figures", d->step_stats ? d->n_step_figures : 0);
	jw_arr(w, "steps");
	for (size_t i = 0; d->step_stats && i < s->n; i++) {
		const struct gs_step *st = &s->steps[i];
		const struct gs_report_step_stat *x = &d->step_stats[i];

		jw_row(w, NULL);
		jw_u64(w, "step", st->number);
		jw_str(w, "name", gs_trace_string(r->t, st->name));
		jw_bool(w, "analysed", r->window_from_steps && st->selected);
		jw_bool(w, "partial", st->partial);
		jw_arr_inline(w, "host_ns");
		jw_i64(w, NULL, st->host_start_ns);
		jw_i64(w, NULL, st->host_end_ns);
		jw_end_arr(w);
		jw_arr_inline(w, "gpu_window_ns");
		jw_i64(w, NULL, st->gpu_start_ns);
		jw_i64(w, NULL, st->gpu_end_ns);
		jw_end_arr(w);
		jw_bool(w, "gpu_drawn", st->gpu_drawn);
		jw_u64(w, "ops", x->has ? x->ops : 0);
		if (x->has) {
			jw_i64(w, "time_ns", x->window_ns);
			for (unsigned c = 0; c < GS_CAT_COUNT; c++) {
				char key[32];

				snprintf(key, sizeof(key), "%s_ns", gs_category_name(c));
				jw_i64(w, key, x->total_ns[c]);
			}
			jw_i64(w, "actual_ns", x->actual_ns);
			jw_i64(w, "ideal_ns", x->ideal_ns);
			if (isfinite(x->efficiency))
				jw_fixed(w, "efficiency", x->efficiency);
			else
				jw_null(w, "efficiency");
			if (x->gap_cause < GS_GAP_CAUSE_COUNT) {
				jw_str(w, "gap_cause", gs_gap_cause_name(x->gap_cause));
				jw_i64(w, "gap_cause_ns", x->gap_cause_ns);
			} else {
				jw_null(w, "gap_cause");
			}
		}
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_device(struct jw *w, const struct gs_report *r, const struct gs_report_device *d)
{
	size_t i;
	unsigned k;

	jw_obj(w, NULL);
	jw_u64(w, "device", d->device);
	jw_str(w, "name", d->name);
	jw_u64(w, "rank", r->rank);
	if (*r->host)
		jw_str(w, "host", r->host);
	else
		jw_null(w, "host");
	if (r->pid >= 0)
		jw_i64(w, "pid", r->pid);
	else
		jw_null(w, "pid");
	if (*d->uuid)
		jw_str(w, "uuid", d->uuid);
	else
		jw_null(w, "uuid");
	jw_arr_inline(w, "window_ns");
	jw_i64(w, NULL, d->b.window_start);
	jw_i64(w, NULL, d->b.window_end);
	jw_end_arr(w);
	jw_bool(w, "window_default", d->default_window);
	jw_u64(w, "ops", d->ops);
	jw_row(w, "ops_by_kind");
	for (k = 0; k < GS_OP_KIND_COUNT; k++)
		jw_u64(w, gs_op_kind_name(k), d->op_kinds[k]);
	jw_end_obj(w);
	json_breakdown(w, r, d);
	json_streams(w, r, d);
	json_schedule(w, r, d);
	json_device_steps(w, r, d);
	json_missed(w, r, d);
	json_candidates(w, r, d);
	gs_measures_write_json(w, r, d);
	gs_operators_write_json(w, r, d);
	jw_row(w, "waits_summary");
	jw_u64(w, "count", d->wait_count);
	jw_i64(w, "wait_ns", d->wait_ns);
	for (k = 0; k < GS_EDGE_KIND_COUNT; k++)
		if (d->wait_kind_count[k])
			jw_u64(w, gs_edge_kind_name(k), d->wait_kind_count[k]);
	jw_end_obj(w);
	jw_arr(w, "findings");
	for (i = 0; i < d->n_findings; i++) {
		const struct gs_report_finding *f = &d->findings[i];

		gs_report_json_finding(w, f->kind, f->ns, &f->data, f->text, f->advice);
	}
	jw_end_arr(w);
	jw_end_obj(w);
}

/* The rows of the "waits" list of one rank's report. */
static void json_wait_rows(struct jw *w, const struct gs_report *r)
{
	size_t n_ops, i;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);

	for (i = 0; i < r->n_reported_waits; i++) {
		const struct gs_wait *x = &r->waits[r->reported_waits[i]];

		jw_row(w, NULL);
		jw_str(w, "kind", gs_edge_kind_name(x->kind));
		jw_op(w, r->t, "consumer", x->consumer);
		jw_op(w, r->t, "producer", x->producer);
		jw_u64(w, "event", x->event);
		jw_i64(w, "wait_ns", x->wait_ns);
		jw_u64(w, "device", gs_report_op_device(r->t, x->consumer));
		jw_u64(w, "rank", r->rank);
		jw_i64(w, "consumer_start_ns", x->consumer < n_ops ? ops[x->consumer].start_ns : 0);
		jw_i64(w, "producer_end_ns", x->producer < n_ops ? ops[x->producer].end_ns : 0);
		jw_end_obj(w);
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

static void json_rank_part(struct jw *w, const struct gs_report *c, unsigned part)
{
	const struct gs_warning *warn;
	size_t k, n;

	switch (part) {
	case PART_WARNINGS:
		warn = gs_trace_warnings(c->t, &n);
		for (k = 0; k < n; k++) {
			jw_row(w, NULL);
			jw_str(w, "message", warn[k].message);
			jw_u64(w, "count", warn[k].count);
			jw_u64(w, "rank", c->rank);
			jw_end_obj(w);
		}
		break;
	case PART_RANK:
		jw_obj(w, NULL);
		jw_u64(w, "rank", c->rank);
		jw_bool(w, "rank_declared", c->rank_declared);
		if (*c->host)
			jw_str(w, "host", c->host);
		else
			jw_null(w, "host");
		if (c->pid >= 0)
			jw_i64(w, "pid", c->pid);
		else
			jw_null(w, "pid");
		jw_str(w, "input", c->input);
		jw_u64(w, "clock_group", c->clock_group);
		gs_trace_ops(c->t, &n);
		jw_u64(w, "ops", n);
		jw_u64(w, "dropped_records", gs_trace_dropped(c->t));
		jw_arr_inline(w, "devices");
		for (k = 0; k < c->n_dev; k++)
			jw_u64(w, NULL, c->dev[k].device);
		jw_end_arr(w);
		json_graph(w, c);
		jw_end_obj(w);
		break;
	case PART_DEVICES:
		for (k = 0; k < c->n_dev; k++)
			json_device(w, c, &c->dev[k]);
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
typedef gs_status (*json_part_fn)(void *ctx, unsigned part, size_t i, struct jw *w);

static gs_status json_job(FILE *f, const struct gs_report *r, size_t top, size_t n_ranks,
			  uint64_t ops, uint64_t dropped, uint64_t streams, json_part_fn part,
			  void *ctx)
{
	const struct gs_job *j = r->job;
	struct jw w;
	gs_status st = GS_OK;
	size_t i;
	unsigned p;

	memset(&w, 0, sizeof(w));
	gs_out_init(&w.o, f);
	jw_obj(&w, NULL);
	jw_str(&w, "schema", "gpuscope.report/1");
	jw_obj(&w, "trace");
	jw_arr_inline(&w, "inputs");
	for (i = 0; i < r->n_inputs; i++)
		jw_str(&w, NULL, r->inputs[i]);
	jw_end_arr(&w);
	jw_str(&w, "format", r->format ? r->format : "");
	jw_u64(&w, "ops", ops);
	jw_u64(&w, "dropped_records", dropped);
	jw_arr(&w, "warnings");
	for (i = 0; i < j->n_warnings; i++) {
		jw_row(&w, NULL);
		jw_str(&w, "message", j->warnings[i]);
		jw_u64(&w, "count", 1);
		jw_null(&w, "rank");
		jw_end_obj(&w);
	}
	for (p = 0; p < PART_COUNT && st == GS_OK; p++) {
		for (i = 0; i < n_ranks && st == GS_OK; i++)
			st = part(ctx, p, i, &w);
		jw_end_arr(&w);
		if (p == PART_WARNINGS) {
			jw_u64(&w, "streams", streams);
			jw_arr(&w, "ranks");
		} else if (p == PART_RANK) {
			jw_u64(&w, "clock_groups", j->n_clock_groups);
			jw_end_obj(&w);
			json_options(&w, r, top);
			jw_arr(&w, "devices");
		} else if (p == PART_DEVICES) {
			jw_arr(&w, "waits");
		}
	}
	if (st != GS_OK) {
		gs_out_finish(&w.o);
		return st;
	}
	gs_job_analysis_write_json(&w, r);
	gs_gate_write_json(&w, r->verdict);
	jw_end_obj(&w);
	gs_out_putc(&w.o, '\n');
	return gs_out_finish(&w.o);
}

struct local_ctx {
	const struct gs_report *r;
};

static gs_status local_part(void *ctx, unsigned part, size_t i, struct jw *w)
{
	const struct gs_report *r = ((struct local_ctx *)ctx)->r;

	json_rank_part(w, r->ranks[i], part);
	return GS_OK;
}

static gs_status write_job_json(FILE *f, const struct gs_report *r, size_t top)
{
	uint64_t ops = 0, dropped = 0, streams = 0;
	size_t i, n;

	for (i = 0; i < r->n_ranks; i++) {
		gs_trace_ops(r->ranks[i]->t, &n);
		ops += n;
		dropped = gs_trace_dropped(r->ranks[i]->t) > UINT64_MAX - dropped ?
				  UINT64_MAX :
				  dropped + gs_trace_dropped(r->ranks[i]->t);
		gs_trace_streams(r->ranks[i]->t, &n);
		streams += n;
	}
	struct local_ctx lc = {r};

	return json_job(f, r, top, r->n_ranks, ops, dropped, streams, local_part, &lc);
}

gs_status gs_report_write_json(FILE *f, const struct gs_report *r,
			       const struct gs_report_style *style)
{
	const struct gs_gate_verdict *gate = r ? r->verdict : NULL;
	struct jw w;
	size_t i, top = gs_report_style_of(style).top;

	if (!f || !r) {
		gs_error_append("gs_report_write_json: no output or no report");
		return GS_ERR_INVALID;
	}
	/* A job of one rank is that rank's report, with the job's verdict. */
	if (r->job && r->n_ranks == 1 && !r->ranks[0]->in_job)
		r = r->ranks[0];
	if (r->job)
		return write_job_json(f, r, top);
	memset(&w, 0, sizeof(w));
	gs_out_init(&w.o, f);
	jw_obj(&w, NULL);
	jw_str(&w, "schema", "gpuscope.report/1");
	json_trace(&w, r, top);
	jw_arr(&w, "devices");
	for (i = 0; i < r->n_dev; i++)
		json_device(&w, r, &r->dev[i]);
	jw_end_arr(&w);
	jw_arr(&w, "waits");
	json_wait_rows(&w, r);
	jw_end_arr(&w);
	if (r->n_reported_waits < r->reported_wait_count) {
		jw_u64(&w, "waits_count", r->reported_wait_count);
		jw_i64(&w, "waits_ns", r->reported_wait_ns);
	}
	gs_gate_write_json(&w, gate);
	jw_end_obj(&w);
	gs_out_putc(&w.o, '\n');
	return gs_out_finish(&w.o);
}

/* ---- the parts of a job's JSON report (gpuscope-mpi) ---- */

struct parts_ctx {
	gs_status (*part)(void *ctx, unsigned part, size_t i, char **bytes, size_t *len);
	void *ctx;
};

/* Another process's bytes of a part go in as they are, but for the comma
 * before the first member of a list. */
static gs_status parts_bridge(void *ctx, unsigned part, size_t i, struct jw *w)
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
	if (st == GS_OK && bytes && len) {
		/* Each member starts with its comma; the list's first has none. */
		gs_out_puts(&w->o, bytes + (w->first[w->depth] && bytes[0] == ',' ? 1 : 0));
		w->first[w->depth] = false;
	}
	free(bytes);
	return st;
}

gs_status gs_report_json_job_parts(
	FILE *f, const struct gs_report *shell, const struct gs_report_style *style,
	gs_status (*part)(void *ctx, unsigned part, size_t i, char **bytes, size_t *len), void *ctx)
{
	struct parts_ctx pc = {part, ctx};
	size_t n_sums;
	const struct gs_js_rank *const *sums = gs_job_analysis_ranks(shell->ja, &n_sums);
	uint64_t ops = 0, dropped = 0, streams = 0;

	for (size_t i = 0; i < n_sums; i++) {
		ops += sums[i]->ops;
		dropped = sums[i]->dropped > UINT64_MAX - dropped ? UINT64_MAX :
								    dropped + sums[i]->dropped;
		streams += sums[i]->streams;
	}
	return json_job(f, shell, gs_report_style_of(style).top, n_sums, ops, dropped, streams,
			parts_bridge, &pc);
}

gs_status gs_report_json_rank_part(FILE *f, const struct gs_report *rank, unsigned part)
{
	struct jw w;

	if (part >= PART_COUNT) {
		gs_error_append("job report: no part %u", part);
		return GS_ERR_INVALID;
	}
	memset(&w, 0, sizeof(w));
	gs_out_init(&w.o, f);
	w.depth = part_depth[part];
	/* Not the first member: each member starts with its comma. */
	w.first[w.depth] = false;
	json_rank_part(&w, rank, part);
	return gs_out_finish(&w.o);
}
