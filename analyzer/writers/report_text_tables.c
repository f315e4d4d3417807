/* SPDX-License-Identifier: MIT */
/*
 * The analyze report as text (report_text.c): a device's tables: the
 * schedule and its efficiency, waits, missed overlap, idle (sync calls,
 * host ranges), CUDA Graph candidates, streams, kernels and steps.
 */
#include "measures_priv.h"
#include "operators_priv.h"
#include "report_text_priv.h"
#include "report_write_priv.h"

#include <gpuscope/names.h>
#include <gpuscope/sort.h>
#include <gpuscope/text.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/outbuf.h>

/* ---- schedule ------------------------------------------------------------------ */

/* The efficiency line: never above 1 (report.c, enum gs_report_eff). */
static void text_efficiency(struct text_writer *w, const struct gs_report_device *d)
{
	char eff[32], first[64], note[256];

	switch (d->efficiency_kind) {
	case GS_REPORT_EFF_CYCLES:
		snprintf(
			note, sizeof(note),
			"(not available: the schedule broke dependency cycles at %llu op%s, so the "
			"ideal is no bound; see the findings)",
			(unsigned long long)d->broken_cycles, d->broken_cycles == 1 ? "" : "s");
		break;
	case GS_REPORT_EFF_BOUNDED:
		snprintf(
			note, sizeof(note),
			"(bounded: the ideal, %s, is longer than the actual run, which started some "
			"op before a dependency allowed)",
			DUR(d->ideal_ns));
		break;
	default:
		snprintf(note, sizeof(note), "(ideal / actual)");
		break;
	}
	snprintf(first, sizeof(first), "    efficiency         %-4s  ",
		 gs_report_eff_text(d, eff, sizeof(eff)));
	text_wrap(w, first, strlen(first), note, 30);
}

void gs_report_text_schedule(struct text_writer *w, const struct gs_report_device *d)
{
	const struct gs_trace *t = w->t;
	size_t n_ops, i, k, shown;
	const size_t *order;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_device *dev = gs_trace_device(t, d->device); /* ids are unique */
	const struct gs_what_if *p = &d->pipelined;
	bool engines_known = dev && dev->copy_engines;
	const char *sep = "";
	char line[256], label[96];
	unsigned c;

	text_section(w, "Schedule (same ops, same durations, from the window start)");
	gs_outbuf_printf(&w->o, "    actual             %s\n", DUR(d->actual_ns));
	{
		char first[64], model[320], what[336];

		snprintf(first, sizeof(first), "    dependency bound   %s  ",
			 DUR(d->dependency_bound_ns));
		text_wrap(
			w, first, strlen(first),
			"(the lower bound: every edge, unlimited SMs and copy engines, no host or "
			"launch cost)",
			23);

		snprintf(first, sizeof(first), "    ideal              %s  ", DUR(d->ideal_ns));
		snprintf(what, sizeof(what), "(%s)",
			 gs_report_ideal_model_text(d, engines_known, model, sizeof(model)));
		text_wrap(w, first, strlen(first), what, 23);
	}
	text_efficiency(w, d);
	if (d->actual_ns > d->ideal_ns) {
		char first[64], gap[512], what[528];

		snprintf(first, sizeof(first), "    gap                %s  ",
			 DUR(d->actual_ns - d->ideal_ns));
		snprintf(what, sizeof(what), "(%s)", gs_report_gap_text(d, gap, sizeof(gap)));
		text_wrap(w, first, strlen(first), what, 23);
	}
	if (p->name && p->makespan_ns > 0) {
		char first[96], what[384];
		size_t len;

		LINE_UNIT(w, p->makespan_ns, p->saving_ns);
		snprintf(first, sizeof(first), "    pipelined batches  %s  ", DUR(p->makespan_ns));
		/* A what-if slower than the run (its kernels ran side by side;
		 * the what-if runs one at a time) saves nothing: say so. */
		char phrase[224], marked[224];

		/* Led by the saving beyond the ideal; the rest is host/launch
		 * time, which the ideal removes already. */
		gs_report_whatif_text(p, p->batches < 2, marked, sizeof(marked));
		gs_dur_sentence(marked, false, phrase, sizeof(phrase));
		if (p->batches < 2)
			snprintf(what, sizeof(what), "(%s", phrase);
		else
			snprintf(what, sizeof(what), "(%zu batches; %s", p->batches, phrase);
		for (i = 0; i < p->n_preconditions && i < 4; i++) {
			len = strlen(what);
			snprintf(what + len, sizeof(what) - len, "%s%s", i ? ", " : "; needs ",
				 p->preconditions[i] ? p->preconditions[i] : "?");
		}
		len = strlen(what);
		snprintf(what + len, sizeof(what) - len, ")");
		text_unit(w, NULL, 0);
		text_wrap(w, first, strlen(first), what, 23);
	}
	if (d->replay.name) {
		char first[96], what[384], phrase[224], marked[224];

		snprintf(first, sizeof(first), "    CUDA Graph replay  %s  ",
			 DUR(d->replay.makespan_ns));
		gs_report_whatif_text(&d->replay, false, marked, sizeof(marked));
		gs_dur_sentence(marked, false, phrase, sizeof(phrase));
		snprintf(what, sizeof(what), "(%zu candidate%s, %s per node; %s)", d->n_cands,
			 d->n_cands == 1 ? "" : "s", DUR(gs_results_graph_node_ns(w->r)), phrase);
		text_wrap(w, first, strlen(first), what, 23);
	}
	line[0] = '\0';
	for (c = 0; c < GS_BOUND_COUNT; c++) {
		size_t len = strlen(line);

		if (!d->bound_ops[c] || c == GS_BOUND_NONE)
			continue;
		snprintf(line + len, sizeof(line) - len, "%s%s %llu", sep, gs_constraint_name(c),
			 (unsigned long long)d->bound_ops[c]);
		sep = ", ";
	}
	if (line[0])
		text_wrap(w, "    ops bound by       ", 23, line, 23);

	if (!d->n_critical)
		return;
	gs_outbuf_printf(&w->o, "    critical path      %zu ops, %s; the longest:\n",
			 d->critical_count, DUR(d->critical_ns));
	/* The longest ops of the path, longest first, with their steps. */
	shown = d->n_critical < w->st.top ? d->n_critical : w->st.top;
	order = d->critical_rank;
	gs_outbuf_puts(&w->o, "    ");
	text_cell(w, "step", 7, true);
	gs_outbuf_puts(&w->o, "  ");
	text_cell(w, "op", 12, false);
	text_cell(w, "stream", 8, true);
	gs_outbuf_puts(&w->o, "  ");
	text_cell(w, "kind", 6, false);
	text_cell(w, "time", 12, true);
	gs_outbuf_puts(&w->o, "  name\n");
	for (k = 0; k < shown; k++) {
		uint32_t op = d->critical[order[k]].op;

		gs_outbuf_puts(&w->o, "    ");
		text_cell(w, U64(d->critical_step[order[k]] + 1), 7, true);
		gs_outbuf_puts(&w->o, "  ");
		text_cell(w, U64(gs_report_op_id(t, op)), 12, false);
		text_cell(w, U64(gs_report_op_stream(t, op)), 8, true);
		gs_outbuf_puts(&w->o, "  ");
		text_cell(w, op < n_ops ? gs_op_kind_name(ops[op].kind) : "?", 6, false);
		text_cell(w, DUR(d->critical[order[k]].ns), 12, true);
		gs_outbuf_puts(&w->o, "  ");
		text_last(w, text_op_label(t, op, label, sizeof(label)), WIDTH - 55);
	}
	text_cut(w, shown, d->n_critical, d->critical_count);
}

/* ---- waits --------------------------------------------------------------------- */

/* "label [s7]" of an op in `cols` columns. */
static void text_op_cell(struct text_writer *w, uint32_t op, size_t cols, bool last)
{
	char tag[32], name[4 * WIDTH + 8], label[96];
	size_t tl, used;

	snprintf(tag, sizeof(tag), " [s%llu]", (unsigned long long)gs_report_op_stream(w->t, op));
	tl = strlen(tag);
	used = text_fit(name, sizeof(name), text_op_label(w->t, op, label, sizeof(label)),
			cols > tl + 4 ? cols - tl : 4);
	gs_outbuf_puts(&w->o, name);
	gs_outbuf_puts(&w->o, tag);
	if (!last)
		text_spaces(w, cols > used + tl ? cols - used - tl : 0);
}

void gs_report_text_waits(struct text_writer *w, const struct gs_report_device *d)
{
	const struct gs_report *r = w->r;
	size_t i, shown = d->n_waits < w->st.top ? d->n_waits : w->st.top;
	char title[160];

	if (!d->n_waits)
		return;
	snprintf(title, sizeof(title), "Waits (%zu, %s in total; consumer held back by producer)",
		 d->wait_count, DUR(d->wait_ns));
	text_section(w, title);
	gs_outbuf_puts(&w->o, "    ");
	text_cell(w, "#", 4, true);
	text_cell(w, "wait", 12, true);
	gs_outbuf_puts(&w->o, "  ");
	text_cell(w, "kind", 14, false);
	gs_outbuf_puts(&w->o, "  ");
	text_cell(w, "consumer [stream]", 31, false);
	gs_outbuf_puts(&w->o, "    producer [stream]\n");
	for (i = 0; i < shown; i++) {
		const struct gs_wait *x = gs_results_device_wait(r, d, i);

		gs_outbuf_puts(&w->o, "    ");
		text_cell(w, U64(i + 1), 4, true);
		text_cell(w, DUR(x->wait_ns), 12, true);
		gs_outbuf_puts(&w->o, "  ");
		text_cell(w, gs_edge_kind_name(x->kind), 14, false);
		gs_outbuf_puts(&w->o, "  ");
		text_op_cell(w, x->consumer, 31, false);
		gs_outbuf_puts(&w->o, " <- ");
		text_op_cell(w, x->producer, WIDTH - 4 - 4 - 12 - 2 - 14 - 2 - 31 - 4, true);
		gs_outbuf_putc(&w->o, '\n');
	}
	text_more(w, shown, d->n_waits, d->wait_count);
}

/* ---- missed overlap ------------------------------------------------------------ */

void gs_report_text_missed(struct text_writer *w, const struct gs_report_device *d)
{
	size_t i, shown = d->n_missed < w->st.top ? d->n_missed : w->st.top;
	char title[200];

	if (!d->n_missed)
		return;
	LINE_UNIT(w, d->missed_exposed_ns, d->missed_hideable_ns);
	if (d->n_possible)
		snprintf(title, sizeof(title),
			 "Missed overlap (%zu exposed cop%s, %llu possible: %s, up to "
			 "%s hideable)",
			 d->missed_count, d->missed_count == 1 ? "y" : "ies",
			 (unsigned long long)d->n_possible, DUR(d->missed_exposed_ns),
			 DUR(d->missed_hideable_ns));
	else
		snprintf(title, sizeof(title),
			 "Missed overlap (%zu exposed cop%s a kernel could have hidden: %s, %s "
			 "hideable)",
			 d->missed_count, d->missed_count == 1 ? "y" : "ies",
			 DUR(d->missed_exposed_ns), DUR(d->missed_hideable_ns));
	text_unit(w, NULL, 0);
	text_section(w, title);
	gs_outbuf_puts(&w->o, "    ");
	text_cell(w, "#", 4, true);
	text_cell(w, "exposed", 12, true);
	text_cell(w, "hideable", 12, true);
	gs_outbuf_puts(&w->o, "  ");
	text_cell(w, "copy [stream]", 27, false);
	gs_outbuf_puts(&w->o, "  ");
	text_cell(w, "bound by", 12, false);
	gs_outbuf_puts(&w->o, "  missing\n");
	for (i = 0; i < shown; i++) {
		static const char *const short_name[3] = {"pinned", "indep", "resources"};
		const struct gs_missed_overlap *m = &d->missed[i];
		char miss[96] = "";
		const char *sep = "";
		unsigned bit;

		for (bit = 0; bit < 3; bit++) {
			size_t len = strlen(miss);

			if (!((m->missing | m->unknown) & (1u << bit)))
				continue;
			snprintf(miss + len, sizeof(miss) - len, "%s%s%s", sep, short_name[bit],
				 m->missing & (1u << bit) ? "" : "?");
			sep = ",";
		}
		gs_outbuf_puts(&w->o, "    ");
		text_cell(w, U64(i + 1), 4, true);
		LINE_UNIT(w, m->exposed_ns, m->hideable_ns);
		text_cell(w, DUR(m->exposed_ns), 12, true);
		text_cell(w, DUR(m->hideable_ns), 12, true);
		text_unit(w, NULL, 0);
		gs_outbuf_puts(&w->o, "  ");
		text_op_cell(w, m->op, 27, false);
		gs_outbuf_puts(&w->o, "  ");
		text_cell(w, gs_constraint_name(m->bound_by), 12, false);
		gs_outbuf_puts(&w->o, "  ");
		text_last(w, miss[0] ? miss : "-", WIDTH - 4 - 4 - 12 - 12 - 2 - 27 - 2 - 12 - 2);
	}
	text_more(w, shown, d->n_missed, d->missed_count);
	gs_outbuf_puts(&w->o,
		       "    missing: pinned = pinned_memory (the host side is pinned), indep = "
		       "independent (no\n    dependency path to the kernel), resources = "
		       "concurrent_resources (another stream,\n    a free copy engine)\n");
	if (d->n_possible)
		gs_outbuf_puts(&w->o,
			       "    ?: unknown (indep?: only stream order joins the copy and the "
			       "kernel, no data\n    dependencies recorded; pinned?: memory kind "
			       "not recorded): a possible missed\n    overlap, its hideable time "
			       "an upper bound (up to)\n");
}

/* ---- idle ------------------------------------------------------------------------ */

void gs_report_text_sync(struct text_writer *w, const struct gs_report_device *d)
{
	size_t i, shown = d->n_sync_calls < w->st.top ? d->n_sync_calls : w->st.top;

	if (!d->n_sync_calls)
		return;
	text_section(w, "Sync attribution (CUDA calls the host was in while the device sat idle)");
	for (i = 0; i < shown; i++) {
		const struct gs_host_call_time *h = &d->sync_calls[i];
		char calls[48];

		gs_outbuf_puts(&w->o, "      ");
		text_cell(w, gs_trace_string(w->t, h->name), 40, false);
		text_cell(w, DUR(h->ns), 14, true);
		snprintf(calls, sizeof(calls), "  in %llu call%s", (unsigned long long)h->count,
			 h->count == 1 ? "" : "s");
		gs_outbuf_puts(&w->o, calls);
		gs_outbuf_putc(&w->o, '\n');
	}
	if (d->pageable_copies)
		gs_outbuf_printf(&w->o,
				 "    %llu copies use pageable host memory (HtoD %llu, DtoH %llu): "
				 "each blocks its host thread\n",
				 (unsigned long long)d->pageable_copies,
				 (unsigned long long)d->pageable_by_dir[GS_COPY_HTOD],
				 (unsigned long long)d->pageable_by_dir[GS_COPY_DTOH]);
}

/* Host-bound idle by the launching thread's innermost host ranges. */
static void text_host_ranges(struct text_writer *w, const struct gs_breakdown *b)
{
	const struct gs_host_ranges *h = &b->host_ranges;
	size_t i, shown = h->n_ranges < w->st.top ? h->n_ranges : w->st.top;

	if (!h->n_ranges)
		return;
	gs_outbuf_puts(&w->o, "    Host ranges the launching thread was in during host-bound idle "
			      "(innermost):\n");
	for (i = 0; i < shown; i++) {
		const struct gs_host_range_time *x = &h->ranges[i];
		char gaps[64];

		gs_outbuf_puts(&w->o, "      ");
		text_cell(w, gs_trace_string(w->t, x->name), 40, false);
		text_cell(w, DUR(x->ns), 14, true);
		text_cell(w, PCT(x->ns, b->host_bound_ns), 8, true);
		snprintf(gaps, sizeof(gaps), "  %-15s in %llu gap%s", gs_range_kind_name(x->kind),
			 (unsigned long long)x->gaps, x->gaps == 1 ? "" : "s");
		gs_outbuf_puts(&w->o, gaps);
		gs_outbuf_putc(&w->o, '\n');
	}
	if (shown < h->n_ranges)
		gs_outbuf_printf(&w->o, "      (%zu more)\n", h->n_ranges - shown);
	gs_outbuf_printf(&w->o, "      %-40s%14s%8s\n", "(outside any host range)",
			 DUR(h->outside_ns), PCT(h->outside_ns, b->host_bound_ns));
	if (h->forwarded_ns > 0)
		gs_outbuf_printf(
			&w->o,
			"      %s of it while the launching thread waited, credited to the "
			"busy thread of its process\n",
			DUR(h->forwarded_ns));
}

void gs_report_text_idle(struct text_writer *w, const struct gs_report_device *d)
{
	const struct gs_breakdown *b = &d->b;
	int64_t idle = b->total_ns[GS_CAT_IDLE];
	size_t i, shown;

	if (idle <= 0)
		return;
	text_section(w, "Idle attribution (what held the next op back)");
	gs_outbuf_printf(&w->o,
			 "    host-bound      %14s  %6s of idle  (the host had not launched it "
			 "yet)\n",
			 DUR(b->host_bound_ns), PCT(b->host_bound_ns, idle));
	gs_outbuf_printf(&w->o,
			 "    launch latency  %14s  %6s of idle  (launched, not started yet)\n",
			 DUR(b->launch_latency_ns), PCT(b->launch_latency_ns, idle));
	gs_outbuf_printf(&w->o,
			 "    unattributed    %14s  %6s of idle  (no launch call recorded)\n",
			 DUR(b->unattributed_ns), PCT(b->unattributed_ns, idle));
	text_host_ranges(w, b);
	if (!b->n_top_host_calls)
		return;
	gs_outbuf_puts(&w->o,
		       "    CUDA calls the launching thread was in during host-bound idle:\n");
	shown = b->n_top_host_calls < w->st.top ? b->n_top_host_calls : w->st.top;
	for (i = 0; i < shown; i++) {
		const struct gs_host_call_time *h = &b->top_host_calls[i];
		char gaps[48];

		gs_outbuf_puts(&w->o, "      ");
		text_cell(w, gs_trace_string(w->t, h->name), 40, false);
		text_cell(w, DUR(h->ns), 14, true);
		snprintf(gaps, sizeof(gaps), "  in %llu gap%s", (unsigned long long)h->count,
			 h->count == 1 ? "" : "s");
		gs_outbuf_puts(&w->o, gaps);
		gs_outbuf_putc(&w->o, '\n');
	}
}

/* ---- CUDA Graph candidates ----------------------------------------------------- */

void gs_report_text_candidates(struct text_writer *w, const struct gs_report_device *d)
{
	size_t n_ops, i, k, shown = d->n_cands < w->st.top ? d->n_cands : w->st.top;
	const struct gs_op *ops = gs_trace_ops(w->t, &n_ops);

	if (!d->n_cands)
		return;
	text_section(w,
		     "CUDA Graph candidates (repeated kernel sequences; gaps: idle on the stream "
		     "between their kernels)");
	gs_outbuf_puts(&w->o, "    ");
	text_cell(w, "#", 4, true);
	text_cell(w, "stream", 8, true);
	text_cell(w, "kernels", 9, true);
	text_cell(w, "repeats", 9, true);
	text_cell(w, "gaps", 12, true);
	text_cell(w, "mean gap", 12, true);
	gs_outbuf_puts(&w->o, "  sequence\n");
	for (i = 0; i < shown; i++) {
		const struct gs_cudagraph_candidate *c = &d->cands[i];
		uint64_t gaps = (uint64_t)c->repetitions * (c->length > 1 ? c->length - 1 : 1);
		char seq[4 * WIDTH + 8];
		size_t len = 0;

		seq[0] = '\0';
		if (c->already_graph)
			len += (size_t)snprintf(seq, sizeof(seq), "(already a graph) ");
		for (k = 0; k < c->length && len + 8 < sizeof(seq); k++) {
			char name[64];

			text_fit(name, sizeof(name),
				 c->kernels[k] < n_ops ?
					 gs_trace_string(w->t, ops[c->kernels[k]].name) :
					 "?",
				 14);
			len += (size_t)snprintf(seq + len, sizeof(seq) - len, "%s%s",
						k ? " > " : "", name);
			if (len >= sizeof(seq))
				len = sizeof(seq) - 1;
		}
		gs_outbuf_puts(&w->o, "    ");
		text_cell(w, U64(i + 1), 4, true);
		text_cell(w,
			  U64(c->length && c->kernels[0] < n_ops ?
				      gs_report_op_stream(w->t, c->kernels[0]) :
				      0),
			  8, true);
		text_cell(w, U64(c->length), 9, true);
		text_cell(w, U64(c->repetitions), 9, true);
		LINE_UNIT(w, c->exposed_launch_ns);
		text_cell(w, DUR(c->exposed_launch_ns), 12, true);
		text_cell(w, DUR(gaps ? c->exposed_launch_ns / (int64_t)gaps : 0), 12, true);
		text_unit(w, NULL, 0);
		gs_outbuf_puts(&w->o, "  ");
		text_last(w, seq, WIDTH - 4 - 4 - 8 - 9 - 9 - 12 - 12 - 2);
	}
	if (shown < d->n_cands)
		gs_outbuf_printf(&w->o, "    ... %zu more (--top N, or --format json for all)\n",
				 d->n_cands - shown);
	if (d->cand_replay_done) {
		char line[1024];
		size_t len;

		/* Each alone: what replaying it from a graph saves. */
		len = (size_t)snprintf(line, sizeof(line),
				       "each replayed from a graph (%s per node):",
				       DUR(gs_results_graph_node_ns(w->r)));
		for (i = 0; i < shown && len < sizeof(line); i++) {
			const struct gs_what_if *p = &d->cand_replay[i];

			if (!d->cand_replay_done[i])
				continue;
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						"%s #%zu saves %s (%s vs the ideal)", i ? "," : "",
						i + 1, DUR(p->saving_ns),
						DUR(p->saving_vs_ideal_ns));
		}
		text_wrap(w, "    ", 4, line, 4);
	}
	gs_outbuf_printf(&w->o,
			 "    a gap over %s is not launch overhead, nor is a communication kernel "
			 "(it waits for\n    other ranks): a graph would not remove either, so "
			 "both end a sequence\n",
			 DUR(GS_CUDAGRAPH_MAX_GAP_NS));
}

/* ---- streams and kernels ------------------------------------------------------- */

void gs_report_text_streams(struct text_writer *w, const struct gs_report_device *d)
{
	size_t i;
	bool pids = false;

	if (!d->n_streams)
		return;
	for (i = 1; i < d->n_streams; i++)
		if (d->streams[i].pid != d->streams[0].pid)
			pids = true;
	text_section(w, "Streams");
	gs_outbuf_puts(&w->o, "    ");
	text_cell(w, "stream", 10, false);
	gs_outbuf_puts(&w->o, "  ");
	text_cell(w, "kind", 18, false);
	text_cell(w, "prio", 6, true);
	text_cell(w, "ops", 9, true);
	text_cell(w, "kernel time", 14, true);
	text_cell(w, "copy time", 14, true);
	text_cell(w, "busy", 7, true);
	gs_outbuf_puts(&w->o, pids ? "  pid\n" : "\n");
	for (i = 0; i < d->n_streams; i++) {
		const struct gs_report_stream *s = &d->streams[i];
		char prio[16];

		snprintf(prio, sizeof(prio), "%d", s->priority);
		gs_outbuf_puts(&w->o, "    ");
		text_cell(w, U64(s->stream_id), 10, false);
		gs_outbuf_puts(&w->o, "  ");
		text_cell(w, gs_stream_kind_name(s->kind), 18, false);
		text_cell(w, prio, 6, true);
		text_cell(w, U64(s->ops), 9, true);
		LINE_UNIT(w, s->kernel_ns, s->copy_ns);
		text_cell(w, DUR(s->kernel_ns), 14, true);
		text_cell(w, DUR(s->copy_ns), 14, true);
		text_unit(w, NULL, 0);
		text_cell(w, PCT(s->busy_ns, d->b.window_ns), 7, true);
		if (pids)
			gs_outbuf_printf(&w->o, "  %lld", (long long)s->pid);
		gs_outbuf_putc(&w->o, '\n');
	}
}

/* The kernel table: per name its total, share and count, then mean, p95
 * and max in one unit of their own (a name's total can be seconds where
 * its kernels take microseconds); min, median and std are in JSON and
 * HTML. */
void gs_report_text_kernels(struct text_writer *w, const struct gs_report_device *d)
{
	size_t i, shown = d->n_kernels < w->st.top ? d->n_kernels : w->st.top;
	int64_t all = 0;
	char title[96];

	if (!d->n_kernels)
		return;
	for (i = 0; i < d->n_kernels; i++)
		all += d->kernels[i].ns;
	snprintf(title, sizeof(title), "Kernels by time (%zu name%s, %s)", d->n_kernels,
		 d->n_kernels == 1 ? "" : "s", DUR(all));
	text_section(w, title);
	gs_outbuf_puts(&w->o, "    ");
	text_cell(w, "#", 4, true);
	text_cell(w, "time", 11, true);
	text_cell(w, "share", 7, true);
	text_cell(w, "count", 8, true);
	text_cell(w, "mean", 11, true);
	text_cell(w, "p95", 11, true);
	text_cell(w, "max", 11, true);
	gs_outbuf_puts(&w->o, "  class         name\n");
	for (i = 0; i < shown; i++) {
		const struct gs_report_kernel *k = &d->kernels[i];

		gs_outbuf_puts(&w->o, "    ");
		text_cell(w, U64(i + 1), 4, true);
		LINE_UNIT(w, k->ns);
		text_cell(w, DUR(k->ns), 11, true);
		text_cell(w, PCT(k->ns, all), 7, true);
		text_cell(w, U64(k->count), 8, true);
		LINE_UNIT(w, k->mean_ns, k->p95_ns, k->max_ns);
		text_cell(w, DUR(k->mean_ns), 11, true);
		text_cell(w, DUR(k->p95_ns), 11, true);
		text_cell(w, DUR(k->max_ns), 11, true);
		text_unit(w, NULL, 0);
		gs_outbuf_puts(&w->o, "  ");
		text_cell(w, gs_kernel_class_name(k->cls), 14, false);
		text_last(w, gs_trace_string(w->t, k->name),
			  WIDTH - 4 - 4 - 11 - 7 - 8 - 3 * 11 - 2 - 14);
	}
	if (shown < d->n_kernels)
		gs_outbuf_printf(&w->o, "    ... %zu more (--top N, or --format json for all)\n",
				 d->n_kernels - shown);
}

/* ---- steps ------------------------------------------------------------------------- */

/* Every step of the trace on this device with figures (at most
 * GS_REPORT_STEP_FIGURES, report.c's bound, all of which the table shows):
 * GPU time, breakdown, efficiency and the largest cause of its gap; `*`
 * marks the steps analysed. */
void gs_report_text_steps(struct text_writer *w, const struct gs_report_device *d)
{
	const struct gs_steps *s = gs_results_steps(w->r);
	int64_t *times, median = 0;
	size_t n = 0;

	if (!s->n || !d->step_stats)
		return;
	times = malloc(s->n * sizeof(*times));
	if (!times)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (s->steps[i].selected && s->steps[i].gpu_end_ns > s->steps[i].gpu_start_ns)
			times[n++] = s->steps[i].gpu_end_ns - s->steps[i].gpu_start_ns;
	if (n) {
		gs_sort_by_i64(times, n, sizeof(*times));
		median = times[(n - 1) / 2];
	}
	text_section(
		w, "Steps (GPU window of each; * analysed; ! over 1.2x or under 0.8x the median)");
	gs_outbuf_puts(&w->o,
		       "      step      GPU time  kernel    copy    sync    idle  effic.  largest "
		       "cause of the gap\n");
	for (size_t i = 0; i < s->n && i < d->n_step_figures; i++) {
		const struct gs_report_step_stat *x = &d->step_stats[i];
		const struct gs_step *st = &s->steps[i];
		/* window * 5 > median * 6 or < median * 4, without multiplying
		 * (times near 2^62 ns overflowed): |window - median| > median / 5. */
		int64_t off = x->window_ns - median;
		bool odd = x->has && st->selected && median > 0 && x->window_ns >= 0 &&
			   (off > median / 5 || -off > median / 5);
		char eff[16];

		gs_outbuf_printf(&w->o, "    %c%c", st->selected ? '*' : ' ', odd ? '!' : ' ');
		text_cell(w, U64(st->number), 6, true);
		if (!x->has) {
			gs_outbuf_printf(&w->o, "  %s\n",
					 st->partial ? "(partial: no GPU work here)" :
						       "(no GPU work here)");
			continue;
		}
		text_cell(w, DUR(x->window_ns), 14, true);
		for (unsigned c = 0; c < GS_CAT_COUNT; c++)
			text_cell(w, PCT(x->total_ns[c], x->window_ns), 8, true);
		snprintf(eff, sizeof(eff), isfinite(x->efficiency) ? "%.2f" : "n/a", x->efficiency);
		text_cell(w, eff, 8, true);
		gs_outbuf_puts(&w->o, "  ");
		if (x->gap_cause < GS_GAP_CAUSE_COUNT)
			gs_outbuf_printf(&w->o, "%s %s%s\n", gs_gap_cause_name(x->gap_cause),
					 DUR(x->gap_cause_ns), st->partial ? " (partial)" : "");
		else
			gs_outbuf_printf(&w->o, "-%s\n", st->partial ? " (partial)" : "");
	}
	if (s->n > d->n_step_figures)
		gs_outbuf_printf(
			&w->o,
			"    figures for the first %zu of %zu steps only (--step A:B for others; "
			"JSON: every step's windows)\n",
			d->n_step_figures, s->n);
	if (n)
		gs_outbuf_printf(&w->o, "    analysed steps' GPU time: min %s, median %s, max %s\n",
				 DUR(times[0]), DUR(median), DUR(times[n - 1]));
	free(times);
}
