/* SPDX-License-Identifier: MIT */
/*
 * The per-GPU measures (measures.c) in the text, JSON and HTML reports.
 */
#include <gpuscope/report_phrases.h>
#include "measures_priv.h"
#include "report_write_priv.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <gpuscope/json.h>
#include <gpuscope/names.h>
#include <gpuscope/outbuf.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <gpuscope/text.h>

#define DUR(ns) gs_dur_text((char[48]){0}, 48, (ns))
#define PCT(a, b) gs_report_pct((char[32]){0}, 32, (a), (b))

static const char *source_name(unsigned kind)
{
	return kind == GS_RANGE_NVTX ? "nvtx" : gs_range_kind_name(kind);
}

/* The stream id and pid of stream index `s`. */
static const struct gs_stream *stream_of(const struct gs_trace *t, uint32_t s)
{
	static const struct gs_stream none = {0};
	size_t n;
	const struct gs_stream *st = gs_trace_streams(t, &n);

	return s < n ? &st[s] : &none;
}

/* The queue's mean for people: three significant digits ("2", "2.05",
 * "123"), whole numbers from 1000 on. */
static const char *mean_text(char *buf, size_t size, double v)
{
	snprintf(buf, size, v < 1000 ? "%.3g" : "%.0f", v);
	return buf;
}

static const char *copy_dir(const struct gs_copy_bandwidth *c)
{
	return c->op_kind == GS_OP_MEMSET ? "memset" : gs_copy_kind_name(c->copy_kind);
}

/* Bytes as "8.0 MiB" (binary units, one decimal) or "512 B". */
static const char *bytes_text(char *buf, size_t size, uint64_t b)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)b / 1024;
	int u = 0;

	if (b < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", b);
		return buf;
	}
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, unit[u]);
	return buf;
}

/* Bytes per ns is GB/s (10^9 bytes a second). */
static double gbps(const struct gs_copy_bandwidth *c)
{
	return c->ns > 0 ? (double)c->bytes / (double)c->ns : 0;
}

/* ---- text ------------------------------------------------------------------------ */

static void measures_text_section(struct gs_outbuf *o, const char *title, bool color)
{
	gs_outbuf_puts(o, "\n  ");
	if (color)
		gs_outbuf_puts(o, "\033[1m");
	gs_outbuf_puts(o, title);
	if (color)
		gs_outbuf_puts(o, "\033[0m");
	gs_outbuf_putc(o, '\n');
}

/* `s` printable, cut to `cols` columns. */
static void measures_text_name(struct gs_outbuf *o, const char *s, size_t cols)
{
	char buf[512];

	gs_report_text_fit(buf, sizeof(buf), s, cols);
	gs_outbuf_puts(o, buf);
}

void gs_measures_write_text(struct gs_outbuf *o, const struct gs_report *r,
			    const struct gs_report_device *d, const struct gs_report_style *st)
{
	const struct gs_measures *m = &d->measures;
	int64_t kern = d->b.total_ns[GS_CAT_KERNEL];
	struct gs_report_style s = gs_report_style_of(st);
	size_t top = s.top, i, shown;
	bool color = s.color;
	char title[128];

	if (kern > 0) {
		measures_text_section(
			o,
			"Kernel time by class (each instant once: communication, memory, compute)",
			color);
		for (unsigned c = 0; c < GS_KCLASS_COUNT; c++)
			gs_outbuf_printf(o, "      %-15s %14s %8s  %" PRIu64 " kernel%s\n",
					 gs_kernel_class_name(c), DUR(m->class_ns[c]),
					 PCT(m->class_ns[c], kern), m->class_count[c],
					 m->class_count[c] == 1 ? "" : "s");
	}
	if (m->n_annotations) {
		shown = m->n_annotations < top ? m->n_annotations : top;
		snprintf(title, sizeof(title),
			 "GPU time per annotation (%zu name%s; union of the op time under each)",
			 m->n_annotations, m->n_annotations == 1 ? "" : "s");
		measures_text_section(o, title, color);
		gs_outbuf_printf(o, "    %4s %14s %14s %7s  %-19s  %s\n", "#", "kernel", "copy",
				 "count", "source", "name");
		for (i = 0; i < shown; i++) {
			const struct gs_annotation_time *a = &m->annotations[i];

			gs_outbuf_printf(o, "    %4zu %14s %14s %7" PRIu64 "  %-19s  ", i + 1,
					 DUR(a->kernel_ns), DUR(a->copy_ns), a->count,
					 source_name(a->source));
			measures_text_name(o, gs_trace_string(gs_results_trace(r), a->name),
					   100 - 69);
			gs_outbuf_putc(o, '\n');
		}
		if (shown < m->n_annotations)
			gs_outbuf_printf(o,
					 "    ... %zu more (--top N, or --format json for all)\n",
					 m->n_annotations - shown);
	}
	if (m->n_delays || m->queue_ops) {
		measures_text_section(
			o, "Launch delay (launch call start to op start) and queue length", color);
		if (m->n_delays)
			gs_outbuf_printf(o, "    %10s %9s %14s %14s %14s\n", "stream", "ops", "p50",
					 "p95", "max");
		shown = m->n_delays < top ? m->n_delays : top;
		for (i = 0; i < shown; i++) {
			const struct gs_launch_delay *l = &m->delays[i];

			gs_outbuf_printf(o, "    %10" PRIu64 " %9" PRIu64 " %14s %14s %14s\n",
					 stream_of(gs_results_trace(r), l->stream)->stream_id,
					 l->ops, DUR(l->p50_ns), DUR(l->p95_ns), DUR(l->max_ns));
		}
		if (shown < m->n_delays)
			gs_outbuf_printf(o,
					 "    ... %zu more streams (--top N, or --format json)\n",
					 m->n_delays - shown);
		gs_outbuf_printf(o,
				 "    queue (ops launched, not yet finished): max %" PRIu64
				 ", time-weighted mean %s, over %" PRIu64 " ops\n",
				 m->queue_max, mean_text((char[32]){0}, 32, m->queue_mean),
				 m->queue_ops);
	}
	if (m->n_copies) {
		measures_text_section(
			o,
			"Copy bandwidth (bytes / summed duration; peak unknown: the device record "
			"has none)",
			color);
		gs_outbuf_printf(o, "    %-8s %-20s %8s %12s %14s %10s\n", "dir", "memory", "count",
				 "bytes", "time", "GB/s");
		for (i = 0; i < m->n_copies; i++) {
			const struct gs_copy_bandwidth *c = &m->copies[i];
			char mem[48], b[32];

			if (c->op_kind == GS_OP_MEMSET)
				snprintf(mem, sizeof(mem), "%s", gs_mem_kind_name(c->dst_mem));
			else
				snprintf(mem, sizeof(mem), "%s -> %s", gs_mem_kind_name(c->src_mem),
					 gs_mem_kind_name(c->dst_mem));
			gs_outbuf_printf(o, "    %-8s %-20s %8" PRIu64 " %12s %14s %10.3f\n",
					 copy_dir(c), mem, c->count,
					 bytes_text(b, sizeof(b), c->bytes), DUR(c->ns), gbps(c));
		}
	}
}

/* ---- JSON ------------------------------------------------------------------------ */

void gs_measures_write_json(struct gs_json *w, const struct gs_report *r,
			    const struct gs_report_device *d)
{
	const struct gs_measures *m = &d->measures;
	size_t i, shown;

	gs_json_row(w, "kernel_classes");
	for (unsigned c = 0; c < GS_KCLASS_COUNT; c++) {
		char key[48];

		snprintf(key, sizeof(key), "%s_ns", gs_kernel_class_name(c));
		gs_json_i64(w, key, m->class_ns[c]);
	}
	for (unsigned c = 0; c < GS_KCLASS_COUNT; c++) {
		char key[48];

		snprintf(key, sizeof(key), "%s_kernels", gs_kernel_class_name(c));
		gs_json_u64(w, key, m->class_count[c]);
	}
	gs_json_end_obj(w);

	shown = m->n_annotations < GS_MEASURES_JSON_ANNOTATIONS ? m->n_annotations :
								  GS_MEASURES_JSON_ANNOTATIONS;
	gs_json_u64(w, "annotations_count", m->n_annotations);
	gs_json_arr(w, "annotations");
	for (i = 0; i < shown; i++) {
		const struct gs_annotation_time *a = &m->annotations[i];

		gs_json_row(w, NULL);
		gs_json_str(w, "name", gs_trace_string(gs_results_trace(r), a->name));
		gs_json_str(w, "source", source_name(a->source));
		gs_json_u64(w, "count", a->count);
		gs_json_i64(w, "kernel_ns", a->kernel_ns);
		gs_json_i64(w, "copy_ns", a->copy_ns);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);

	gs_json_arr(w, "launch_delay");
	for (i = 0; i < m->n_delays; i++) {
		const struct gs_launch_delay *l = &m->delays[i];
		const struct gs_stream *st = stream_of(gs_results_trace(r), l->stream);

		gs_json_row(w, NULL);
		gs_json_u64(w, "stream", st->stream_id);
		gs_json_i64(w, "pid", st->pid);
		gs_json_u64(w, "index", l->stream);
		gs_json_u64(w, "ops", l->ops);
		gs_json_i64(w, "p50_ns", l->p50_ns);
		gs_json_i64(w, "p95_ns", l->p95_ns);
		gs_json_i64(w, "max_ns", l->max_ns);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);

	gs_json_obj(w, "queue");
	gs_json_u64(w, "ops", m->queue_ops);
	gs_json_u64(w, "max", m->queue_max);
	gs_json_fixed(w, "mean", m->queue_mean);
	gs_json_u64(w, "changes", m->queue_changes);
	gs_json_bool(w, "binned", m->queue_binned);
	gs_json_arr_inline(w, "series");
	for (i = 0; i < m->n_queue_series; i++) {
		gs_json_arr_inline(w, NULL);
		gs_json_i64(w, NULL, m->queue_series[i].t_ns);
		gs_json_u64(w, NULL, m->queue_series[i].length);
		gs_json_end_arr(w);
	}
	gs_json_end_arr(w);
	gs_json_end_obj(w);

	gs_json_arr(w, "copy_bandwidth");
	for (i = 0; i < m->n_copies; i++) {
		const struct gs_copy_bandwidth *c = &m->copies[i];

		gs_json_row(w, NULL);
		gs_json_str(w, "direction", copy_dir(c));
		gs_json_str(w, "src_mem", gs_mem_kind_name(c->src_mem));
		gs_json_str(w, "dst_mem", gs_mem_kind_name(c->dst_mem));
		gs_json_u64(w, "count", c->count);
		gs_json_u64(w, "bytes", c->bytes);
		gs_json_i64(w, "ns", c->ns);
		gs_json_fixed(w, "gbps", gbps(c));
		gs_json_null(w, "peak_gbps");
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);

	gs_json_arr(w, "sync_calls");
	for (i = 0; i < d->n_sync_calls; i++) {
		gs_json_row(w, NULL);
		gs_json_str(w, "name", gs_trace_string(gs_results_trace(r), d->sync_calls[i].name));
		gs_json_i64(w, "ns", d->sync_calls[i].ns);
		gs_json_u64(w, "count", d->sync_calls[i].count);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

/* ---- HTML ------------------------------------------------------------------------ */

#define SPARK_W 600
#define SPARK_H 60

/* The queue length as a step line over the window. */
static void html_queue_chart(struct gs_outbuf *o, const struct gs_measures *m, size_t di)
{
	int64_t w = m->window_end - m->window_start;
	uint64_t top = m->queue_max ? m->queue_max : 1;

	if (!m->n_queue_series || w <= 0)
		return;
	gs_outbuf_printf(o,
			 "<svg class=\"queue\" id=\"queue-%zu\" viewBox=\"0 0 %d %d\" width=\"%d\" "
			 "height=\"%d\" style=\"display:block;background:var(--bg2)\">"
			 "<path fill=\"none\" stroke=\"#1c7ed6\" stroke-width=\"1.5\" d=\"",
			 di, SPARK_W, SPARK_H + 2, SPARK_W, SPARK_H + 2);
	for (size_t i = 0; i < m->n_queue_series; i++) {
		double x =
			(double)(m->queue_series[i].t_ns - m->window_start) * SPARK_W / (double)w;
		double y = 1 + SPARK_H - (double)m->queue_series[i].length * SPARK_H / (double)top;

		if (i == 0)
			gs_outbuf_printf(o, "M%.1f %.1f", x, y);
		else
			gs_outbuf_printf(o, "H%.1fV%.1f", x, y);
	}
	gs_outbuf_printf(o, "H%d\"/><title>queue length, max %" PRIu64 "</title></svg>\n", SPARK_W,
			 m->queue_max);
}

void gs_measures_write_html(struct gs_outbuf *o, const struct gs_report *r,
			    const struct gs_report_device *d, size_t di,
			    const struct gs_report_style *st)
{
	const struct gs_measures *m = &d->measures;
	int64_t kern = d->b.total_ns[GS_CAT_KERNEL];
	size_t top = gs_report_style_of(st).top, i, shown;

	if (kern > 0) {
		gs_outbuf_printf(o,
				 "<h3>Kernel time by class</h3>\n<table class=\"tbl\" "
				 "id=\"classes-%zu\"><thead><tr><th>class</th><th class=\"n\">time"
				 "</th><th class=\"n\">share</th><th class=\"n\">kernels</th></tr>"
				 "</thead><tbody>\n",
				 di);
		for (unsigned c = 0; c < GS_KCLASS_COUNT; c++)
			gs_outbuf_printf(
				o,
				"<tr><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
				"<td class=\"n\">%" PRIu64 "</td></tr>\n",
				gs_kernel_class_name(c), DUR(m->class_ns[c]),
				PCT(m->class_ns[c], kern), m->class_count[c]);
		gs_outbuf_puts(o, "</tbody></table>\n");
	}
	if (m->n_annotations) {
		shown = m->n_annotations < top ? m->n_annotations : top;
		gs_outbuf_printf(
			o,
			"<h3>GPU time per annotation (%zu name%s)</h3>\n<table class=\"tbl\" "
			"id=\"annotations-%zu\"><thead><tr><th class=\"n\">#</th><th "
			"class=\"n\">kernel</th><th class=\"n\">copy</th><th class=\"n\">count"
			"</th><th>source</th><th>name</th></tr></thead><tbody>\n",
			m->n_annotations, m->n_annotations == 1 ? "" : "s", di);
		for (i = 0; i < shown; i++) {
			const struct gs_annotation_time *a = &m->annotations[i];

			gs_outbuf_printf(o,
					 "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td><td "
					 "class=\"n\">%s</td><td class=\"n\">%" PRIu64
					 "</td><td>%s</td><td class=\"name\">",
					 i + 1, DUR(a->kernel_ns), DUR(a->copy_ns), a->count,
					 source_name(a->source));
			gs_report_html_text(o, gs_trace_string(gs_results_trace(r), a->name), 90);
			gs_outbuf_puts(o, "</td></tr>\n");
		}
		gs_outbuf_puts(o, "</tbody></table>\n");
		if (shown < m->n_annotations)
			gs_outbuf_printf(
				o,
				"<p class=\"more\">%zu more (--top N for more rows, --format "
				"json for all)</p>\n",
				m->n_annotations - shown);
	}
	if (m->n_delays || m->queue_ops) {
		gs_outbuf_puts(o, "<h3>Launch delay and queue length</h3>\n");
		if (m->n_delays) {
			gs_outbuf_printf(o,
					 "<table class=\"tbl\" id=\"delays-%zu\"><thead><tr><th "
					 "class=\"n\">stream</th><th class=\"n\">ops</th><th "
					 "class=\"n\">p50</th><th class=\"n\">p95</th><th "
					 "class=\"n\">max</th></tr></thead><tbody>\n",
					 di);
			shown = m->n_delays < top ? m->n_delays : top;
			for (i = 0; i < shown; i++) {
				const struct gs_launch_delay *l = &m->delays[i];

				gs_outbuf_printf(
					o,
					"<tr><td class=\"n\">%" PRIu64
					"</td><td class=\"n\">%" PRIu64
					"</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td "
					"class=\"n\">%s</td></tr>\n",
					stream_of(gs_results_trace(r), l->stream)->stream_id,
					l->ops, DUR(l->p50_ns), DUR(l->p95_ns), DUR(l->max_ns));
			}
			gs_outbuf_puts(o, "</tbody></table>\n");
		}
		gs_outbuf_printf(
			o,
			"<p class=\"meta\">queue (ops launched, not yet finished): max %" PRIu64
			", time-weighted mean %s, over %" PRIu64 " ops%s</p>\n",
			m->queue_max, mean_text((char[32]){0}, 32, m->queue_mean), m->queue_ops,
			m->queue_binned ? " (drawn binned: the greatest length per bin)" : "");
		html_queue_chart(o, m, di);
	}
	if (m->n_copies) {
		gs_outbuf_printf(
			o,
			"<h3>Copy bandwidth</h3>\n<p class=\"meta\">bytes / summed duration; "
			"peak unknown (the device record has none)</p>\n<table class=\"tbl\" "
			"id=\"bandwidth-%zu\"><thead><tr><th>dir</th><th>memory</th><th "
			"class=\"n\">count</th><th class=\"n\">bytes</th><th class=\"n\">time"
			"</th><th class=\"n\">GB/s</th></tr></thead><tbody>\n",
			di);
		for (i = 0; i < m->n_copies; i++) {
			const struct gs_copy_bandwidth *c = &m->copies[i];
			char b[32];

			gs_outbuf_printf(o, "<tr><td>%s</td><td>", copy_dir(c));
			if (c->op_kind == GS_OP_MEMSET)
				gs_outbuf_puts(o, gs_mem_kind_name(c->dst_mem));
			else
				gs_outbuf_printf(o, "%s &rarr; %s", gs_mem_kind_name(c->src_mem),
						 gs_mem_kind_name(c->dst_mem));
			gs_outbuf_printf(o,
					 "</td><td class=\"n\">%" PRIu64
					 "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td "
					 "class=\"n\">%.3f</td></tr>\n",
					 c->count, bytes_text(b, sizeof(b), c->bytes), DUR(c->ns),
					 gbps(c));
		}
		gs_outbuf_puts(o, "</tbody></table>\n");
	}
}
