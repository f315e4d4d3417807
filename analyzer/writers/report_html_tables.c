/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's tables of a device (report_html.c places them):
 * schedule, critical path, waits, missed overlap, idle and sync
 * attribution, CUDA Graph candidates, streams and kernels; the ranked
 * rows, --top of them, with exact numbers.
 */
#include "report_html_priv.h"

#include <gpuscope/names.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- tables ------------------------------------------------------------------ */

/* A list cut to --rows entries (listed of count): "N of M shown". */
static void cut_rows(struct html_writer *w, size_t shown, size_t listed, size_t count)
{
	if (listed < count)
		gs_outbuf_printf(&w->o, "<p class=\"more\">" GS_REPORT_CUT_FMT "</p>\n", shown,
				 count, listed);
}

static void more_rows(struct html_writer *w, size_t shown, size_t n)
{
	if (shown < n)
		gs_outbuf_printf(&w->o,
				 "<p class=\"more\">%zu more (--top N for more rows, --format json "
				 "for all)</p>\n",
				 n - shown);
}

/* "label [s7]" for a table cell. */
static void op_cell(struct html_writer *w, uint32_t op)
{
	char label[128];

	gs_outbuf_puts(&w->o, "<td class=\"name\">");
	html_text(w, op_label(w, op, label, sizeof(label)), NAME_MAX_CPS);
	gs_outbuf_printf(&w->o, " <span class=\"met\">[s%llu, op %llu]</span></td>",
			 (unsigned long long)op_stream_id(w, op),
			 (unsigned long long)gs_report_op_id(w->t, op));
}

/* What the efficiency is: it is never above 1 (report.c, enum gs_report_eff). */
static const char *eff_note(const struct gs_report_device *d)
{
	switch (d->efficiency_kind) {
	case GS_REPORT_EFF_CYCLES:
		return "not available: the schedule broke dependency cycles, so the ideal is no "
		       "bound (see the findings)";
	case GS_REPORT_EFF_BOUNDED:
		return "bounded: the ideal is longer than the actual run, which started some op "
		       "before a dependency allowed";
	default:
		return "ideal / actual";
	}
}

/* Every step: a bar of its GPU time beside its figures (analysed steps
 * bold), under where the steps came from. Names and numbers only: nothing
 * from the trace is written raw. */
void gs_report_html_steps(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	const struct gs_steps *s = gs_results_steps(w->r);
	int64_t longest = 0;

	if (!s->n || !d->step_stats)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (d->step_stats[i].has && d->step_stats[i].window_ns > longest)
			longest = d->step_stats[i].window_ns;
	gs_outbuf_puts(&w->o, "<h3>Steps</h3>\n<p class=\"meta\">from ");
	html_text(w, s->source, 0);
	gs_outbuf_printf(&w->o,
			 "</p>\n<table class=\"tbl\" id=\"steps-%zu\"><thead><tr>"
			 "<th>step</th><th>GPU time</th><th></th><th>kernel</th><th>copy</th>"
			 "<th>sync</th><th>idle</th><th>efficiency</th><th>largest cause of the "
			 "gap</th></tr></thead><tbody>\n",
			 di);
	for (size_t i = 0; i < s->n; i++) {
		const struct gs_step *st = &s->steps[i];
		const struct gs_report_step_stat *x = &d->step_stats[i];
		bool on = gs_results_window_from_steps(w->r) && st->selected;

		gs_outbuf_printf(&w->o, "<tr%s><td class=\"n\">%llu%s</td>",
				 on ? " style=\"font-weight:bold\"" : "",
				 (unsigned long long)st->number, st->partial ? " (partial)" : "");
		if (!x->has) {
			gs_outbuf_puts(&w->o, "<td colspan=\"8\">no GPU work</td></tr>\n");
			continue;
		}
		gs_outbuf_printf(&w->o,
				 "<td class=\"n\">%s</td><td><svg width=\"120\" height=\"10\">"
				 "<rect width=\"%.1f\" height=\"10\" fill=\"#4c78a8\"/></svg></td>",
				 DUR(x->window_ns),
				 longest > 0 ? 120.0 * (double)x->window_ns / (double)longest :
					       0.0);
		for (unsigned c = 0; c < GS_CAT_COUNT; c++)
			gs_outbuf_printf(&w->o, "<td class=\"n\">%.1f%%</td>",
					 x->window_ns > 0 ? 100.0 * (double)x->total_ns[c] /
								    (double)x->window_ns :
							    0.0);
		if (isfinite(x->efficiency))
			gs_outbuf_printf(&w->o, "<td class=\"n\">%.2f</td>", x->efficiency);
		else
			gs_outbuf_puts(&w->o, "<td class=\"n\">n/a</td>");
		if (x->gap_cause < GS_GAP_CAUSE_COUNT)
			gs_outbuf_printf(&w->o, "<td>%s %s</td></tr>\n",
					 gs_gap_cause_name(x->gap_cause), DUR(x->gap_cause_ns));
		else
			gs_outbuf_puts(&w->o, "<td>-</td></tr>\n");
	}
	gs_outbuf_puts(&w->o, "</tbody></table>\n");
}

void gs_report_html_schedule(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	const struct gs_what_if *p = &d->pipelined;
	size_t i;
	unsigned c;
	bool any = false;

	const struct gs_device *dev = gs_trace_device(w->t, d->device);
	char model[320];

	/* Plain words and numbers: nothing from the trace. */
	gs_report_ideal_model_text(d, dev && dev->copy_engines, model, sizeof(model));
	gs_outbuf_puts(&w->o, "<h3>Schedule</h3>\n");
	gs_outbuf_printf(&w->o,
			 "<table class=\"tbl\" id=\"schedule-%zu\"><tbody>\n"
			 "<tr><td>actual</td><td class=\"n\">%s</td><td>as recorded</td></tr>\n"
			 "<tr><td>dependency bound</td><td class=\"n\">%s</td><td>the lower bound: "
			 "every edge, no host or launch cost, unlimited SMs and copy "
			 "engines</td></tr>\n"
			 "<tr><td>ideal</td><td class=\"n\">%s</td><td>%s</td></tr>\n"
			 "<tr><td>efficiency</td><td class=\"n\">%s</td><td>%s</td></tr>\n",
			 di, DUR(d->actual_ns), DUR(d->dependency_bound_ns), DUR(d->ideal_ns),
			 model, gs_report_eff_text(d, (char[32]){0}, 32), eff_note(d));
	if (d->actual_ns > d->ideal_ns) {
		char gap[512];

		gs_outbuf_printf(&w->o, "<tr><td>gap</td><td class=\"n\">%s</td><td>%s</td></tr>\n",
				 DUR(d->actual_ns - d->ideal_ns),
				 gs_report_gap_text(d, gap, sizeof(gap)));
	}
	if (p->name && p->makespan_ns > 0) {
		char phrase[224];

		gs_outbuf_printf(&w->o,
				 "<tr><td>pipelined batches</td><td class=\"n\">%s</td><td>%zu "
				 "batch%s, ",
				 DUR(p->makespan_ns), p->batches, p->batches == 1 ? "" : "es");
		gs_report_html_sentence(&w->o, gs_report_whatif_text(p, p->batches < 2, phrase,
								     sizeof(phrase)));
		for (i = 0; i < p->n_preconditions && i < 4; i++)
			gs_outbuf_printf(&w->o, "%s%s", i ? ", " : "; needs ",
					 p->preconditions[i] ? p->preconditions[i] : "?");
		gs_outbuf_puts(&w->o, "</td></tr>\n");
	}
	if (d->replay.name) {
		char phrase[224];

		gs_outbuf_printf(&w->o,
				 "<tr><td>CUDA Graph replay</td><td class=\"n\">%s</td><td>%zu "
				 "candidate%s, %s per node; ",
				 DUR(d->replay.makespan_ns), d->n_cands, d->n_cands == 1 ? "" : "s",
				 DUR(gs_results_graph_node_ns(w->r)));
		gs_report_html_sentence(&w->o, gs_report_whatif_text(&d->replay, false, phrase,
								     sizeof(phrase)));
		gs_outbuf_puts(&w->o, "</td></tr>\n");
	}
	gs_outbuf_puts(&w->o, "<tr><td>ops bound by</td><td></td><td>");
	for (c = 0; c < GS_BOUND_COUNT; c++) {
		if (!d->bound_ops[c] || c == GS_BOUND_NONE)
			continue;
		gs_outbuf_printf(&w->o, "%s%s %llu", any ? ", " : "", gs_constraint_name(c),
				 (unsigned long long)d->bound_ops[c]);
		any = true;
	}
	gs_outbuf_puts(&w->o, any ? "</td></tr>\n" : "-</td></tr>\n");
	gs_outbuf_puts(&w->o, "</tbody></table>\n");
}

gs_status gs_report_html_critical(struct html_writer *w, const struct gs_report_device *d,
				  size_t di)
{
	size_t shown = d->n_critical < w->st.top ? d->n_critical : w->st.top, k;
	const size_t *order = d->critical_rank; /* longest first */

	gs_outbuf_printf(&w->o, "<h3>Critical path (%zu ops, %s; the longest)</h3>\n",
			 d->critical_count, DUR(d->critical_ns));
	if (!d->n_critical) {
		gs_outbuf_printf(&w->o, "<p class=\"none\" id=\"critical-%zu\">no ops</p>\n", di);
		return GS_OK;
	}
	gs_outbuf_printf(
		&w->o,
		"<table class=\"tbl\" id=\"critical-%zu\"><thead><tr><th class=\"n\">step</th>"
		"<th class=\"n\">time</th><th>kind</th><th>op</th></tr></thead><tbody>\n",
		di);
	for (k = 0; k < shown; k++) {
		uint32_t op = d->critical[order[k]].op;

		gs_outbuf_printf(&w->o,
				 "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td><td>%s</td>",
				 d->critical_step[order[k]] + 1, DUR(d->critical[order[k]].ns),
				 op < w->n_ops ? gs_op_kind_name(w->ops[op].kind) : "?");
		op_cell(w, op);
		gs_outbuf_puts(&w->o, "</tr>\n");
	}
	gs_outbuf_puts(&w->o, "</tbody></table>\n");
	if (d->n_critical < d->critical_count)
		cut_rows(w, shown, d->n_critical, d->critical_count);
	else
		more_rows(w, shown, d->n_critical);
	return GS_OK;
}

void gs_report_html_waits(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	const struct gs_report *r = w->r;
	size_t i, shown = d->n_waits < w->st.top ? d->n_waits : w->st.top;

	gs_outbuf_printf(&w->o,
			 "<h3>Waits (%zu, %s in total; consumer held back by producer)</h3>\n",
			 d->wait_count, DUR(d->wait_ns));
	if (!d->n_waits) {
		gs_outbuf_printf(&w->o, "<p class=\"none\" id=\"waits-%zu\">no waits</p>\n", di);
		return;
	}
	gs_outbuf_printf(&w->o,
			 "<table class=\"tbl\" id=\"waits-%zu\"><thead><tr><th class=\"n\">#</th>"
			 "<th class=\"n\">wait</th><th>kind</th><th>consumer</th><th>producer</th>"
			 "</tr></thead><tbody>\n",
			 di);
	for (i = 0; i < shown; i++) {
		const struct gs_wait *x = gs_results_device_wait(r, d, i);

		gs_outbuf_printf(&w->o,
				 "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td><td>%s</td>",
				 i + 1, DUR(x->wait_ns), gs_edge_kind_name(x->kind));
		op_cell(w, x->consumer);
		op_cell(w, x->producer);
		gs_outbuf_puts(&w->o, "</tr>\n");
	}
	gs_outbuf_puts(&w->o, "</tbody></table>\n");
	if (d->n_waits < d->wait_count)
		cut_rows(w, shown, d->n_waits, d->wait_count);
	else
		more_rows(w, shown, d->n_waits);
}

void gs_report_html_missed(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	static const char *const cond[3] = {"pinned_memory", "independent", "concurrent_resources"};
	size_t i, shown = d->n_missed < w->st.top ? d->n_missed : w->st.top;

	if (d->n_possible)
		gs_outbuf_printf(
			&w->o,
			"<h3>Missed overlap (%zu exposed cop%s a kernel could have hidden, "
			"%llu possible: %s, up to %s hideable)</h3>\n",
			d->missed_count, d->missed_count == 1 ? "y" : "ies",
			(unsigned long long)d->n_possible, DUR(d->missed_exposed_ns),
			DUR(d->missed_hideable_ns));
	else
		gs_outbuf_printf(
			&w->o,
			"<h3>Missed overlap (%zu exposed cop%s a kernel could have hidden: "
			"%s, %s hideable)</h3>\n",
			d->missed_count, d->missed_count == 1 ? "y" : "ies",
			DUR(d->missed_exposed_ns), DUR(d->missed_hideable_ns));
	if (!d->n_missed) {
		gs_outbuf_printf(&w->o,
				 "<p class=\"none\" id=\"missed-%zu\">no missed overlap</p>\n", di);
		return;
	}
	gs_outbuf_printf(
		&w->o,
		"<table class=\"tbl\" id=\"missed-%zu\"><thead><tr><th class=\"n\">#</th>"
		"<th class=\"n\">exposed</th><th class=\"n\">hideable</th><th>copy</th>"
		"<th>could hide under</th><th>bound by</th><th>conditions</th></tr></thead>"
		"<tbody>\n",
		di);
	for (i = 0; i < shown; i++) {
		const struct gs_missed_overlap *m = &d->missed[i];
		unsigned bit;

		gs_outbuf_printf(&w->o,
				 "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td>"
				 "<td class=\"n\">%s%s</td>",
				 i + 1, DUR(m->exposed_ns), m->unknown ? "up to " : "",
				 DUR(m->hideable_ns));
		op_cell(w, m->op);
		if (m->kernel != GS_NO_INDEX && m->kernel < w->n_ops)
			op_cell(w, m->kernel);
		else
			gs_outbuf_puts(&w->o, "<td>-</td>");
		gs_outbuf_printf(&w->o, "<td>%s</td><td>", gs_constraint_name(m->bound_by));
		for (bit = 0; bit < 3; bit++) {
			bool miss = (m->missing & (1u << bit)) != 0;
			bool unk = !miss && (m->unknown & (1u << bit)) != 0;
			bool unv = (m->unverified & (1u << bit)) != 0;

			gs_outbuf_printf(&w->o, "%s<span class=\"%s\">%s %s%s</span>",
					 bit ? "<br>" : "",
					 miss ? "miss" :
					 unk  ? "unv" :
						"met",
					 miss ? "&#10007;" :
					 unk  ? "?" :
						"&#10003;",
					 cond[bit],
					 unk ? " <span class=\"unv\">(unknown)</span>" :
					 unv ? " <span class=\"unv\">(unverified)</span>" :
					       "");
		}
		gs_outbuf_puts(&w->o, "</td></tr>\n");
	}
	gs_outbuf_puts(&w->o, "</tbody></table>\n");
	if (d->n_missed < d->missed_count)
		cut_rows(w, shown, d->n_missed, d->missed_count);
	else
		more_rows(w, shown, d->n_missed);
	gs_outbuf_puts(&w->o,
		       "<p class=\"more\">A copy hides under a kernel only when all three "
		       "hold: pinned_memory (the host side is pinned), independent (no "
		       "dependency path to the kernel), concurrent_resources (another stream "
		       "and a free copy engine).</p>\n");
	if (d->n_possible)
		gs_outbuf_puts(&w->o,
			       "<p class=\"more\">? unknown: only stream order joins the copy "
			       "and the kernel and no data dependencies are recorded (or the "
			       "memory kind is not): a possible missed overlap, its hideable time "
			       "an upper bound (up to).</p>\n");
}

static void call_rows(struct html_writer *w, const struct gs_host_call_time *h, size_t n,
		      const char *unit)
{
	size_t i, shown = n < w->st.top ? n : w->st.top;

	for (i = 0; i < shown; i++) {
		gs_outbuf_puts(&w->o, "<tr><td class=\"name\">");
		html_text(w, gs_trace_string(w->t, h[i].name), NAME_MAX_CPS);
		gs_outbuf_printf(
			&w->o, "</td><td class=\"n\">%s</td><td class=\"n\">%llu %s%s</td></tr>\n",
			DUR(h[i].ns), (unsigned long long)h[i].count, unit,
			h[i].count == 1 ? "" : "s");
	}
}

/* Host-bound idle by the launching thread's innermost host ranges. */
static void html_host_ranges(struct html_writer *w, const struct gs_breakdown *b, size_t di)
{
	const struct gs_host_ranges *h = &b->host_ranges;
	size_t i, shown = h->n_ranges < w->st.top ? h->n_ranges : w->st.top;

	if (!h->n_ranges)
		return;
	gs_outbuf_printf(
		&w->o,
		"<p class=\"meta\">Host ranges the launching thread was in during "
		"host-bound idle (innermost):</p>\n<table class=\"tbl\" id=\"hostranges-%zu\">"
		"<thead><tr><th>range</th><th>kind</th><th class=\"n\">time</th>"
		"<th class=\"n\">of host-bound</th><th class=\"n\">in</th></tr></thead>"
		"<tbody>\n",
		di);
	for (i = 0; i < shown; i++) {
		const struct gs_host_range_time *x = &h->ranges[i];

		gs_outbuf_puts(&w->o, "<tr><td class=\"name\">");
		html_text(w, gs_trace_string(w->t, x->name), NAME_MAX_CPS);
		gs_outbuf_printf(&w->o,
				 "</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
				 "<td class=\"n\">%llu gap%s</td></tr>\n",
				 gs_range_kind_name(x->kind), DUR(x->ns),
				 PCT(x->ns, b->host_bound_ns), (unsigned long long)x->gaps,
				 x->gaps == 1 ? "" : "s");
	}
	gs_outbuf_printf(&w->o,
			 "<tr><td>(outside any host range)</td><td></td><td class=\"n\">%s</td>"
			 "<td class=\"n\">%s</td><td></td></tr>\n</tbody></table>\n",
			 DUR(h->outside_ns), PCT(h->outside_ns, b->host_bound_ns));
	more_rows(w, shown, h->n_ranges);
}

void gs_report_html_idle(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	const struct gs_breakdown *b = &d->b;
	int64_t idle = b->total_ns[GS_CAT_IDLE];

	gs_outbuf_printf(&w->o, "<h3>Idle attribution (%s idle: what held the next op back)</h3>\n",
			 DUR(idle));
	gs_outbuf_printf(
		&w->o,
		"<table class=\"tbl\" id=\"idle-%zu\"><thead><tr><th>cause</th>"
		"<th class=\"n\">time</th><th class=\"n\">of idle</th><th>meaning</th></tr>"
		"</thead><tbody>\n"
		"<tr><td>host-bound</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		"<td>the host had not launched the next op yet</td></tr>\n"
		"<tr><td>launch latency</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		"<td>launched, not started yet</td></tr>\n"
		"<tr><td>unattributed</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		"<td>no launch call recorded</td></tr>\n</tbody></table>\n",
		di, DUR(b->host_bound_ns), PCT(b->host_bound_ns, idle), DUR(b->launch_latency_ns),
		PCT(b->launch_latency_ns, idle), DUR(b->unattributed_ns),
		PCT(b->unattributed_ns, idle));
	html_host_ranges(w, b, di);
	if (b->n_top_host_calls) {
		gs_outbuf_printf(
			&w->o,
			"<p class=\"meta\">CUDA calls the launching thread was in during "
			"host-bound idle:</p>\n<table class=\"tbl\" id=\"idlecalls-%zu\">"
			"<thead><tr><th>call</th><th class=\"n\">time</th><th class=\"n\">in"
			"</th></tr></thead><tbody>\n",
			di);
		call_rows(w, b->top_host_calls, b->n_top_host_calls, "gap");
		gs_outbuf_puts(&w->o, "</tbody></table>\n");
		more_rows(w, b->n_top_host_calls < w->st.top ? b->n_top_host_calls : w->st.top,
			  b->n_top_host_calls);
	}
	if (d->n_sync_calls) {
		gs_outbuf_printf(
			&w->o,
			"<h3>Sync attribution (CUDA calls the host was in while the device "
			"sat idle)</h3>\n<table class=\"tbl\" id=\"sync-%zu\"><thead><tr>"
			"<th>call</th><th class=\"n\">time</th><th class=\"n\">in</th></tr>"
			"</thead><tbody>\n",
			di);
		call_rows(w, d->sync_calls, d->n_sync_calls, "call");
		gs_outbuf_puts(&w->o, "</tbody></table>\n");
		more_rows(w, d->n_sync_calls < w->st.top ? d->n_sync_calls : w->st.top,
			  d->n_sync_calls);
	}
	if (d->pageable_copies)
		gs_outbuf_printf(
			&w->o,
			"<p class=\"meta\">%llu copies use pageable host memory (HtoD %llu, "
			"DtoH %llu): each blocks its host thread.</p>\n",
			(unsigned long long)d->pageable_copies,
			(unsigned long long)d->pageable_by_dir[GS_COPY_HTOD],
			(unsigned long long)d->pageable_by_dir[GS_COPY_DTOH]);
}

void gs_report_html_candidates(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	size_t i, k, shown = d->n_cands < w->st.top ? d->n_cands : w->st.top;

	gs_outbuf_puts(&w->o, "<h3>CUDA Graph candidates (repeated kernel sequences)</h3>\n");
	if (!d->n_cands) {
		gs_outbuf_printf(
			&w->o,
			"<p class=\"none\" id=\"candidates-%zu\">no kernel sequence repeats "
			"three times or more</p>\n",
			di);
		return;
	}
	gs_outbuf_printf(
		&w->o,
		"<table class=\"tbl\" id=\"candidates-%zu\"><thead><tr><th class=\"n\">#</th>"
		"<th class=\"n\">stream</th><th class=\"n\">kernels</th><th class=\"n\">"
		"repeats</th><th class=\"n\">gaps</th><th class=\"n\">mean gap</th>"
		"<th>sequence</th></tr></thead><tbody>\n",
		di);
	for (i = 0; i < shown; i++) {
		const struct gs_cudagraph_candidate *c = &d->cands[i];
		uint64_t gaps = (uint64_t)c->repetitions * (c->length > 1 ? c->length - 1 : 1);

		gs_outbuf_printf(
			&w->o,
			"<tr><td class=\"n\">%zu</td><td class=\"n\">%llu</td><td "
			"class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"name\">",
			i + 1,
			(unsigned long long)(c->length && c->kernels[0] < w->n_ops ?
						     op_stream_id(w, c->kernels[0]) :
						     0),
			c->length, c->repetitions, DUR(c->exposed_launch_ns),
			DUR(gaps ? c->exposed_launch_ns / (int64_t)gaps : 0));
		if (c->already_graph)
			gs_outbuf_puts(&w->o, "<i>(already a graph)</i> ");
		for (k = 0; k < c->length && k < 12; k++) {
			if (k)
				gs_outbuf_puts(&w->o, " &rsaquo; ");
			html_text(w,
				  c->kernels[k] < w->n_ops ?
					  gs_trace_string(w->t, w->ops[c->kernels[k]].name) :
					  "?",
				  40);
		}
		if (c->length > 12)
			gs_outbuf_printf(&w->o, " &rsaquo; &hellip; (%zu more)", c->length - 12);
		gs_outbuf_puts(&w->o, "</td></tr>\n");
	}
	gs_outbuf_puts(&w->o, "</tbody></table>\n");
	more_rows(w, shown, d->n_cands);
	if (d->cand_replay_done) {
		gs_outbuf_printf(&w->o,
				 "<p class=\"more\">Each replayed from a graph (%s per node):",
				 DUR(gs_results_graph_node_ns(w->r)));
		for (i = 0; i < shown; i++)
			if (d->cand_replay_done[i])
				gs_outbuf_printf(&w->o, "%s #%zu saves %s (%s vs the ideal)",
						 i ? "," : "", i + 1,
						 DUR(d->cand_replay[i].saving_ns),
						 DUR(d->cand_replay[i].saving_vs_ideal_ns));
		gs_outbuf_puts(&w->o, ".</p>\n");
	}
	gs_outbuf_printf(
		&w->o,
		"<p class=\"more\">A gap over %s is not launch overhead, nor is a "
		"communication kernel (it waits for other ranks): a graph would not remove "
		"either, so both end a sequence.</p>\n",
		DUR(GS_CUDAGRAPH_MAX_GAP_NS));
}

void gs_report_html_streams(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	size_t i;

	gs_outbuf_printf(
		&w->o,
		"<h3>Streams</h3>\n<table class=\"tbl\" id=\"streams-%zu\"><thead><tr>"
		"<th class=\"n\">stream</th><th>kind</th><th class=\"n\">prio</th>"
		"<th class=\"n\">ops</th><th class=\"n\">kernel time</th><th class=\"n\">"
		"copy time</th><th class=\"n\">busy</th><th class=\"n\">pid</th></tr></thead>"
		"<tbody>\n",
		di);
	for (i = 0; i < d->n_streams; i++) {
		const struct gs_report_stream *s = &d->streams[i];

		gs_outbuf_printf(
			&w->o,
			"<tr><td class=\"n\">%llu</td><td>%s</td><td class=\"n\">%d</td>"
			"<td class=\"n\">%llu</td><td class=\"n\">%s</td><td class=\"n\">%s"
			"</td><td class=\"n\">%s</td><td class=\"n\">%lld</td></tr>\n",
			(unsigned long long)s->stream_id, gs_stream_kind_name(s->kind), s->priority,
			(unsigned long long)s->ops, DUR(s->kernel_ns), DUR(s->copy_ns),
			PCT(s->busy_ns, d->b.window_ns), (long long)s->pid);
	}
	gs_outbuf_puts(&w->o, "</tbody></table>\n");
}

void gs_report_html_kernels(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	size_t i, shown = d->n_kernels < w->st.top ? d->n_kernels : w->st.top;
	int64_t all = 0;

	for (i = 0; i < d->n_kernels; i++)
		all += d->kernels[i].ns;
	gs_outbuf_printf(&w->o, "<h3>Kernels by time (%zu name%s, %s)</h3>\n", d->n_kernels,
			 d->n_kernels == 1 ? "" : "s", DUR(all));
	if (!d->n_kernels) {
		gs_outbuf_printf(&w->o, "<p class=\"none\" id=\"kernels-%zu\">no kernels</p>\n",
				 di);
		return;
	}
	gs_outbuf_printf(&w->o,
			 "<table class=\"tbl\" id=\"kernels-%zu\"><thead><tr><th class=\"n\">#</th>"
			 "<th class=\"n\">time</th><th class=\"n\">share</th><th class=\"n\">count"
			 "</th><th class=\"n\">mean</th><th class=\"n\">min</th><th class=\"n\">"
			 "median</th><th class=\"n\">p95</th><th class=\"n\">max</th>"
			 "<th class=\"n\">std</th><th>class</th><th>name</th></tr>"
			 "</thead><tbody>\n",
			 di);
	for (i = 0; i < shown; i++) {
		const struct gs_report_kernel *k = &d->kernels[i];

		gs_outbuf_printf(
			&w->o,
			"<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td><td class=\"n\">"
			"%s</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td>"
			"<td class=\"name\">",
			i + 1, DUR(k->ns), PCT(k->ns, all), (unsigned long long)k->count,
			DUR(k->mean_ns), DUR(k->min_ns), DUR(k->median_ns), DUR(k->p95_ns),
			DUR(k->max_ns), DUR(k->std_ns), gs_kernel_class_name(k->cls));
		html_text(w, gs_trace_string(w->t, k->name), 0);
		gs_outbuf_puts(&w->o, "</td></tr>\n");
	}
	gs_outbuf_puts(&w->o, "</tbody></table>\n");
	more_rows(w, shown, d->n_kernels);
}
