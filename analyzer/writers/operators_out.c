/* SPDX-License-Identifier: MIT */
/*
 * GPU time per host operator (operators.c) in the text, JSON and HTML
 * reports.
 */
#include <gpuscope/report_phrases.h>
#include "operators_priv.h"
#include "report_write_priv.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <gpuscope/json.h>
#include <gpuscope/names.h>
#include <gpuscope/outbuf.h>
#include <gpuscope/trace.h>

#include <gpuscope/text.h>

#define DUR(ns) gs_dur_text((char[48]){0}, 48, (ns))
#define HDUR(ns) gs_report_dur_utf8((char[48]){0}, 48, (ns))
#define PCT(a, b) gs_report_pct((char[32]){0}, 32, (a), (b))

/* The device's GPU busy time: its kernel and copy time, each instant once. */
static int64_t busy_ns(const struct gs_report_device *d)
{
	return d->b.total_ns[GS_CAT_KERNEL] + d->b.total_ns[GS_CAT_COPY];
}

static const char *row_name(const struct gs_report *r, const struct gs_operator *o)
{
	return o->outside ? GS_OPERATOR_OUTSIDE_NAME :
			    gs_trace_string(gs_results_trace(r), o->name);
}

static const char *row_source(const struct gs_operator *o)
{
	return o->outside ? "none" : gs_range_kind_name(o->source);
}

/* What the level's rule takes, in words. */
static const char *rule_text(unsigned level)
{
	return level == GS_OP_LEVEL_MODULE ?
		       "innermost nn.Module, else outermost user annotation, else outermost "
		       "NVTX" :
		       "innermost cpu_op / NVTX range";
}

static int64_t mean_ns(const struct gs_operator *o)
{
	return o->calls ? o->ns / (int64_t)o->calls : 0;
}

/* ---- text ------------------------------------------------------------------------ */

void gs_operators_write_text(struct gs_outbuf *o, const struct gs_report *r,
			     const struct gs_report_device *d, const struct gs_report_style *st)
{
	const struct gs_operators *m = &d->operators;
	struct gs_report_style s = gs_report_style_of(st);
	size_t shown = m->n_rows < s.top ? m->n_rows : s.top;
	char buf[512];

	if (!m->n_rows)
		return;
	gs_outbuf_puts(o, "\n  ");
	if (s.color)
		gs_outbuf_puts(o, "\033[1m");
	gs_outbuf_puts(o,
		       "Operators by GPU time (each op at a host range open at its launch call)");
	if (s.color)
		gs_outbuf_puts(o, "\033[0m");
	gs_outbuf_printf(o, "\n    --op-level %s: %s\n", gs_op_level_name(m->level),
			 rule_text(m->level));
	gs_outbuf_printf(o, "    %zu name%s, %" PRIu64 " op%s launched, %s of GPU time (summed)",
			 m->n_rows, m->n_rows == 1 ? "" : "s", m->ops, m->ops == 1 ? "" : "s",
			 DUR(m->ns));
	if (shown < m->n_rows)
		gs_outbuf_printf(o, "; %zu of %zu shown", shown, m->n_rows);
	gs_outbuf_putc(o, '\n');
	if (m->unlinked_ops)
		gs_outbuf_printf(o,
				 "    %" PRIu64 " op%s with no known launch call (%s) in no row\n",
				 m->unlinked_ops, m->unlinked_ops == 1 ? "" : "s",
				 DUR(m->unlinked_ns));
	gs_outbuf_printf(o, "    %4s %11s %7s %11s %7s %6s %11s  %s\n", "#", "GPU time", "share",
			 "calls/total", "kernels", "copies", "mean/call", "operator");
	for (size_t i = 0; i < shown; i++) {
		const struct gs_operator *p = &m->rows[i];
		char calls[48];
		size_t k, nk;

		if (p->outside)
			snprintf(calls, sizeof(calls), "-");
		else
			snprintf(calls, sizeof(calls), "%" PRIu64 "/%" PRIu64, p->calls,
				 p->total_calls);
		gs_outbuf_printf(o, "    %4zu %11s %7s %11s %7" PRIu64 " %6" PRIu64 " %11s  ",
				 i + 1, DUR(p->ns), PCT(p->ns, busy_ns(d)), calls, p->kernels,
				 p->copies, p->outside ? "-" : DUR(mean_ns(p)));
		gs_report_text_fit(buf, sizeof(buf), row_name(r, p), 100 - 69);
		gs_outbuf_puts(o, buf);
		gs_outbuf_putc(o, '\n');
		nk = p->n_ops_by_name < GS_OPERATORS_TEXT_NAMES ? p->n_ops_by_name :
								  GS_OPERATORS_TEXT_NAMES;
		for (k = 0; k < nk; k++) {
			const struct gs_operator_kernel *q = &p->ops_by_name[k];

			gs_outbuf_printf(o, "    %4s %11s %7s %10" PRIu64 "x  ", "", DUR(q->ns),
					 PCT(q->ns, p->ns), q->count);
			gs_report_text_fit(buf, sizeof(buf),
					   gs_trace_string(gs_results_trace(r), q->name),
					   100 - 4 - 4 - 1 - 11 - 1 - 7 - 1 - 11 - 2);
			gs_outbuf_puts(o, buf);
			gs_outbuf_putc(o, '\n');
		}
		if (nk < p->n_ops_by_name)
			gs_outbuf_printf(o, "    %4s %11s ... %zu more op name%s\n", "", "",
					 p->n_ops_by_name - nk,
					 p->n_ops_by_name - nk == 1 ? "" : "s");
	}
	if (shown < m->n_rows)
		gs_outbuf_printf(o, "    ... %zu more (--top N, or --format json for all)\n",
				 m->n_rows - shown);
}

/* ---- JSON ------------------------------------------------------------------------ */

void gs_operators_write_json(struct gs_json *w, const struct gs_report *r,
			     const struct gs_report_device *d)
{
	const struct gs_operators *m = &d->operators;
	size_t rows = gs_results_rows(r), shown = m->n_rows < rows ? m->n_rows : rows;

	gs_json_obj(w, "operators");
	gs_json_str(w, "level", gs_op_level_name(m->level));
	gs_json_str(w, "rule", rule_text(m->level));
	gs_json_u64(w, "ranges", m->ranges);
	gs_json_u64(w, "ops", m->ops);
	gs_json_i64(w, "gpu_ns", m->ns);
	gs_json_u64(w, "unlinked_ops", m->unlinked_ops);
	gs_json_i64(w, "unlinked_ns", m->unlinked_ns);
	gs_json_i64(w, "busy_ns", busy_ns(d));
	gs_json_u64(w, "count", m->n_rows);
	gs_json_arr(w, "rows");
	for (size_t i = 0; i < shown; i++) {
		const struct gs_operator *p = &m->rows[i];
		size_t nk = p->n_ops_by_name < rows ? p->n_ops_by_name : rows;

		gs_json_obj(w, NULL);
		gs_json_str(w, "name", row_name(r, p));
		gs_json_str(w, "source", row_source(p));
		gs_json_bool(w, "outside", p->outside);
		gs_json_u64(w, "calls", p->calls);
		gs_json_u64(w, "total_calls", p->total_calls);
		gs_json_u64(w, "kernels", p->kernels);
		gs_json_u64(w, "copies", p->copies);
		gs_json_i64(w, "gpu_ns", p->ns);
		gs_json_i64(w, "kernel_ns", p->kernel_ns);
		gs_json_i64(w, "copy_ns", p->copy_ns);
		gs_json_fixed(w, "share", busy_ns(d) > 0 ? (double)p->ns / (double)busy_ns(d) : 0);
		if (p->outside)
			gs_json_null(w, "mean_ns");
		else
			gs_json_i64(w, "mean_ns", mean_ns(p));
		gs_json_u64(w, "top_kernels_count", p->n_ops_by_name);
		gs_json_arr(w, "top_kernels");
		for (size_t k = 0; k < nk; k++) {
			const struct gs_operator_kernel *q = &p->ops_by_name[k];

			gs_json_row(w, NULL);
			gs_json_str(w, "name", gs_trace_string(gs_results_trace(r), q->name));
			gs_json_str(w, "kind", gs_op_kind_name(q->kind));
			gs_json_u64(w, "count", q->count);
			gs_json_i64(w, "gpu_ns", q->ns);
			gs_json_end_obj(w);
		}
		gs_json_end_arr(w);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	gs_json_end_obj(w);
}

/* ---- HTML ------------------------------------------------------------------------ */

void gs_operators_write_html(struct gs_outbuf *o, const struct gs_report *r,
			     const struct gs_report_device *d, size_t di,
			     const struct gs_report_style *st)
{
	const struct gs_operators *m = &d->operators;
	size_t top = gs_report_style_of(st).top;
	size_t shown = m->n_rows < top ? m->n_rows : top;

	if (!m->n_rows)
		return;
	gs_outbuf_printf(
		o,
		"<h3>Operators by GPU time (%zu name%s)</h3>\n<p class=\"meta\">each op at "
		"the %s open at its launch call; %" PRIu64 " ops launched, %s summed",
		m->n_rows, m->n_rows == 1 ? "" : "s", rule_text(m->level), m->ops, HDUR(m->ns));
	if (m->unlinked_ops)
		gs_outbuf_printf(o, "; %" PRIu64 " ops with no known launch call (%s) in no row",
				 m->unlinked_ops, HDUR(m->unlinked_ns));
	gs_outbuf_printf(o,
			 "</p>\n<table class=\"tbl\" id=\"operators-%zu\"><thead><tr><th "
			 "class=\"n\">#</th><th class=\"n\">GPU time</th><th class=\"n\">share</th>"
			 "<th class=\"n\">calls</th><th class=\"n\">total calls</th><th "
			 "class=\"n\">kernels</th><th class=\"n\">copies</th><th class=\"n\">mean "
			 "/ call</th><th>operator (top op names)</th></tr></thead><tbody>\n",
			 di);
	for (size_t i = 0; i < shown; i++) {
		const struct gs_operator *p = &m->rows[i];
		size_t nk = p->n_ops_by_name < GS_OPERATORS_TEXT_NAMES ? p->n_ops_by_name :
									 GS_OPERATORS_TEXT_NAMES;

		gs_outbuf_printf(o,
				 "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td><td "
				 "class=\"n\">%s</td>",
				 i + 1, HDUR(p->ns), PCT(p->ns, busy_ns(d)));
		if (p->outside)
			gs_outbuf_puts(o, "<td class=\"n\">-</td><td class=\"n\">-</td>");
		else
			gs_outbuf_printf(o,
					 "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
					 "</td>",
					 p->calls, p->total_calls);
		gs_outbuf_printf(o,
				 "<td class=\"n\">%" PRIu64 "</td><td class=\"n\">%" PRIu64
				 "</td><td class=\"n\">%s</td><td class=\"name\">",
				 p->kernels, p->copies, p->outside ? "-" : HDUR(mean_ns(p)));
		gs_report_html_text(o, row_name(r, p), 90);
		for (size_t k = 0; k < nk; k++) {
			const struct gs_operator_kernel *q = &p->ops_by_name[k];

			gs_outbuf_printf(o, "<br><small>%s &times;%" PRIu64 " ", HDUR(q->ns),
					 q->count);
			gs_report_html_text(o, gs_trace_string(gs_results_trace(r), q->name), 80);
			gs_outbuf_puts(o, "</small>");
		}
		gs_outbuf_puts(o, "</td></tr>\n");
	}
	gs_outbuf_puts(o, "</tbody></table>\n");
	if (shown < m->n_rows)
		gs_outbuf_printf(
			o,
			"<p class=\"more\">%zu more (--top N for more rows, --format json for "
			"all)</p>\n",
			m->n_rows - shown);
}
