/* SPDX-License-Identifier: MIT */
/*
 * The analyze report as one self-contained HTML page: inline CSS, inline
 * SVG and a few lines of plain script (zoom and pan); nothing is fetched.
 * Per device: the breakdown as a bar with its numbers, the findings with
 * their advice, a timeline (the stream lanes of the actual run, the
 * kernel / copy / sync / idle band under them, the lanes of the ideal
 * schedule, on one time axis, with the waits and the critical path drawn
 * on the lanes), then the tables: schedule, critical path, waits, missed
 * overlap, idle and sync attribution, CUDA Graph candidates, streams and
 * kernels.
 *
 * Drawing. The timeline is an SVG whose x axis is XMAX units wide for the
 * whole span; the script zooms by changing its viewBox. Small traces (at
 * most EXACT_OPS ops over all reported devices) draw every op with a
 * tooltip. Larger ones are binned: each lane is cut into `bins` equal
 * slices (BINS_MAX at most, fewer when there are many lanes), a slice is
 * drawn in the colour of the op kind that held it longest with an opacity
 * that says how busy it was, and equal neighbours merge into one shape.
 * At most LANES_MAX streams are drawn per device (the busiest), and at
 * most WAITS_DRAWN waits. So the drawing is bounded whatever the trace
 * holds, and the tables (ranked rows, --top of them) stay exact.
 *
 * Everything drawn and listed comes from the report: its ideal schedule
 * per device (the ideal starts and the whole critical path) and its lists.
 *
 * Text from the trace is escaped (& < > " '); control bytes and invalid
 * UTF-8 become U+FFFD. Every write is checked (gs_outbuf).
 *
 * This file holds the page: the text helpers, the document head (CSS and
 * script), the breakdown bar and findings, the order of a device's
 * sections, the drawing resolution, the job page and the entry points.
 * The timeline is drawn in report_html_timeline.c, the tables written in
 * report_html_tables.c (report_html_priv.h between them).
 *
 * Complexity, per device of N_d ops: the schedule (O(N log N)), one pass
 * over the ops of each drawn lane, O(bins) per lane, O(segments) for the
 * band, linear in the rows of the tables.
 */
#include "measures_priv.h"
#include "operators_priv.h"
#include "report_html_priv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/import.h>
#include <gpuscope/names.h>
#include <gpuscope/summary.h>
#include <gpuscope/text.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

/* ---- text --------------------------------------------------------------- */

/*
 * `s` as HTML text, safe in element content and in quoted attributes.
 * Cut to `max` code points with a trailing "…" when longer (0: no cut).
 */
void gs_report_html_text(struct gs_outbuf *o, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char buf[512];
	size_t len = 0, cps = 0, total = 0;
	const unsigned char *q;

	if (max) {
		for (q = p; *q && total <= max; total++) {
			size_t n = gs_utf8_len(q);

			q += n ? n : 1;
		}
	}
	while (*p) {
		const char *rep = NULL;
		size_t n = gs_utf8_len(p);

		if (max && total > max && cps + 1 == max) {
			rep = "\xe2\x80\xa6";
			n = 0;
		} else if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
			rep = "\xef\xbf\xbd";
			n = 1;
		} else if (*p == '&') {
			rep = "&amp;";
		} else if (*p == '<') {
			rep = "&lt;";
		} else if (*p == '>') {
			rep = "&gt;";
		} else if (*p == '"') {
			rep = "&quot;";
		} else if (*p == '\'') {
			rep = "&#39;";
		}
		if (len + 8 >= sizeof(buf)) {
			buf[len] = '\0';
			gs_outbuf_puts(o, buf);
			len = 0;
		}
		if (rep) {
			size_t rl = strlen(rep);

			memcpy(buf + len, rep, rl);
			len += rl;
		} else {
			memcpy(buf + len, p, n);
			len += n;
		}
		if (n == 0)
			break; /* the ellipsis ends the text */
		p += n;
		cps++;
	}
	buf[len] = '\0';
	gs_outbuf_puts(o, buf);
}

/* A finding's sentence (its duration marks written out with "µs",
 * gs_dur_sentence) as html_text. */
void gs_report_html_sentence(struct gs_outbuf *o, const char *s)
{
	char *text = gs_outbuf_sentence(o, s, true);

	if (!text)
		return;
	gs_report_html_text(o, text, 0);
	free(text);
}

static void html_sentence(struct html_writer *w, const char *s)
{
	gs_report_html_sentence(&w->o, s);
}

/* A duration in the unit `u` (gs_dur_unit), "µs" as above: one unit
 * per sentence. */
static const char *dur_in_str(char *buf, size_t size, int64_t ns, uint64_t u)
{
	size_t len;

	gs_dur_text_in(buf, size, ns, u, false);
	len = strlen(buf);
	if (len >= 3 && !strcmp(buf + len - 3, " us") && len + 2 < size)
		memcpy(buf + len - 2, "\xc2\xb5s", 4);
	return buf;
}

#define DUR1(ns, u) dur_in_str((char[48]){0}, 48, (ns), (u))

/* ---- page head ------------------------------------------------------------ */

static const char css[] =
	"<style>\n"
	":root{--kernel:#2f9e44;--copy:#1098ad;--memset:#0b7285;--sync:#e8a202;"
	"--idle:#e03131;--crit:#212529;--wait:#7048e8;--fg:#212529;--mute:#6c757d;"
	"--line:#dee2e6;--bg2:#f8f9fa}\n"
	"*{box-sizing:border-box}\n"
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
	"color:var(--fg);margin:0;padding:16px 24px 48px;max-width:1800px}\n"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 6px;"
	"padding-top:10px;border-top:3px solid var(--fg)}"
	"h3{font-size:15px;margin:22px 0 6px}\n"
	".meta{color:var(--mute);margin:2px 0}.notes{margin:6px 0;padding-left:20px}"
	".notes li{margin:2px 0}.notes b{font-weight:600}\n"
	"code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
	"font-size:12.5px}\n"
	"nav a{margin-right:12px}\n"
	".bar{display:flex;height:30px;border-radius:4px;overflow:hidden;margin:6px 0;"
	"max-width:900px;border:1px solid var(--line)}"
	".bar span{display:flex;align-items:center;justify-content:center;color:#fff;"
	"font-size:12px;white-space:nowrap;overflow:hidden;min-width:0}\n"
	".c-kernel{background:var(--kernel)}.c-copy{background:var(--copy)}"
	".c-sync{background:var(--sync)}.c-idle{background:var(--idle)}"
	".c-memset{background:var(--memset)}.c-crit{background:var(--crit)}"
	".c-wait{background:var(--wait)}\n"
	".sw{display:inline-block;width:12px;height:12px;border-radius:2px;"
	"vertical-align:-1px;margin-right:5px}\n"
	"table.tbl{border-collapse:collapse;margin:4px 0 6px;font-size:13px}"
	".tbl th,.tbl td{padding:3px 10px 3px 0;text-align:left;vertical-align:top;"
	"border-bottom:1px solid var(--line)}.tbl th{font-weight:600;"
	"border-bottom:2px solid var(--line)}"
	".tbl td.n,.tbl th.n{text-align:right;font-variant-numeric:tabular-nums;"
	"white-space:nowrap}.tbl td.name{max-width:560px;overflow-wrap:anywhere}\n"
	".none{color:var(--mute);font-style:italic;margin:4px 0}"
	".more{color:var(--mute);font-size:12.5px;margin:2px 0 8px}\n"
	".miss{color:#c92a2a;font-weight:600}.met{color:var(--mute)}"
	".unv{color:var(--mute);font-style:italic}\n"
	"ol.findings{padding-left:24px;margin:6px 0;max-width:1100px}"
	"ol.findings li{margin:0 0 10px}"
	"ol.findings .advice{margin:2px 0 0;color:#1864ab}\n"
	".timeline{margin:8px 0;border:1px solid var(--line);border-radius:4px;"
	"padding:6px 8px 8px}\n"
	".tl-ctl{display:flex;gap:6px;align-items:center;margin-bottom:4px;"
	"font-size:12.5px;color:var(--mute)}\n"
	".tl-ctl button{font:inherit;padding:1px 9px;border:1px solid #adb5bd;"
	"border-radius:3px;background:#fff;cursor:pointer;color:var(--fg)}\n"
	".tl-body{display:flex}.tl-plot{flex:1;min-width:0}\n"
	"svg.labels{flex:none;font-size:12px}svg.labels text{fill:var(--fg)}"
	"svg.labels .grp{font-weight:700}svg.labels .sub{fill:var(--mute);"
	"font-size:11px}\n"
	"svg.axis{display:block;width:100%;height:24px;font-size:11px;overflow:visible}"
	"svg.axis text{fill:var(--mute);text-anchor:middle}"
	"svg.axis line{stroke:#adb5bd}\n"
	"svg.lanes{display:block;width:100%;cursor:grab;background:#fff}"
	"svg.lanes *{vector-effect:non-scaling-stroke}\n"
	"svg.lanes .bg{fill:var(--bg2)}svg.lanes .sep{stroke:#ced4da}"
	".k{fill:var(--kernel)}.m{fill:var(--copy)}.s{fill:var(--memset)}"
	".cp{fill:var(--crit)}.b0{fill:var(--kernel)}.b1{fill:var(--copy)}"
	".b2{fill:var(--sync)}.b3{fill:var(--idle);fill-opacity:.6}"
	".o1{fill-opacity:.3}.o2{fill-opacity:.55}.o3{fill-opacity:.8}\n"
	/* Ops drawn one by one: a darker hairline keeps the shortest visible
	 * and shows where two ops of a stream meet. */
	"rect.k{stroke:#1b6b2e}rect.m{stroke:#0a6a7a}rect.s{stroke:#063f49}"
	"rect.k,rect.m,rect.s{stroke-width:.7}\n"
	".wait{stroke:var(--wait);stroke-width:2;stroke-dasharray:4 2}"
	".wlink{stroke:var(--wait);stroke-width:1;stroke-opacity:.6}"
	".mark{stroke:var(--fg);stroke-width:1;stroke-dasharray:3 3}\n"
	".legend{font-size:12.5px;color:var(--fg);margin-top:6px;display:flex;"
	"flex-wrap:wrap;gap:4px 16px}\n"
	"</style>\n";

/* The script: errors are recorded on <html data-error> (the browser test
 * reads it); zoom with the wheel, pan by dragging, buttons to reset. */
static const char script_head[] =
	"<script>\n"
	"window.addEventListener('error',function(e){document.documentElement."
	"setAttribute('data-error',String(e.message||e))});\n"
	"</script>\n";

static const char script_body[] =
	"<script>\n"
	"(function(){\n"
	"var X=1e6,U=[[1e9,'s'],[1e6,'ms'],[1e3,'\\u00b5s'],[1,'ns']];\n"
	"function step(s){var r=s/8,p=Math.pow(10,Math.floor(Math.log10(r))),m=r/p;\n"
	" return Math.max(1,p*(m<1.5?1:m<3.5?2:m<7.5?5:10));}\n"
	"function lab(t,st){if(t===0)return '0';var u=U[3];\n"
	" for(var i=0;i<3;i++)if(st*10>=U[i][0]){u=U[i];break;}\n"
	" var d=Math.max(0,Math.ceil(-Math.log10(st/u[0])-1e-9));\n"
	" return (t/u[0]).toFixed(d)+' '+u[1];}\n"
	"function dur(ns){var u=U[3];for(var i=0;i<3;i++)if(ns>=U[i][0]){u=U[i];break;}\n"
	" return (ns/u[0]).toPrecision(4).replace(/\\.?0+$/,'')+' '+u[1];}\n"
	"document.querySelectorAll('.timeline').forEach(function(tl){\n"
	" var sv=tl.querySelector('svg.lanes'),ax=tl.querySelector('svg.axis'),\n"
	"  rg=tl.querySelector('.range'),span=+tl.getAttribute('data-span'),\n"
	"  H=+sv.getAttribute('height'),x0=0,w=X,drag=null;\n"
	" function draw(){\n"
	"  sv.setAttribute('viewBox',x0+' 0 '+w+' '+H);\n"
	"  var v0=x0/X*span,v1=(x0+w)/X*span,st=step(v1-v0),h='';\n"
	"  for(var t=Math.ceil(v0/st)*st;t<=v1;t+=st){var p=(t-v0)/(v1-v0)*100,\n"
	"   a=p<2?'start':p>98?'end':'middle';\n"
	"   h+='<line x1=\"'+p+'%\" x2=\"'+p+'%\" y1=\"16\" y2=\"24\"/><text x=\"'+p+\n"
	"    '%\" y=\"12\" style=\"text-anchor:'+a+'\">'+lab(t,st)+'</text>';}\n"
	"  ax.innerHTML=h;\n"
	"  if(rg)rg.textContent=w<X?'showing '+dur(v0)+' to '+dur(v1)+' of '+dur(span):'';}\n"
	" function zoom(f,c){var nw=Math.min(X,Math.max(100,w*f));\n"
	"  x0=Math.min(X-nw,Math.max(0,c-(c-x0)*nw/w));w=nw;draw();}\n"
	" sv.addEventListener('wheel',function(e){e.preventDefault();\n"
	"  var r=sv.getBoundingClientRect();\n"
	"  zoom(Math.pow(1.002,e.deltaY),x0+(e.clientX-r.left)/r.width*w);},{passive:false});\n"
	" sv.addEventListener('mousedown',function(e){drag={x:e.clientX,x0:x0};\n"
	"  sv.style.cursor='grabbing';e.preventDefault();});\n"
	" window.addEventListener('mousemove',function(e){if(!drag)return;\n"
	"  var r=sv.getBoundingClientRect();\n"
	"  x0=Math.min(X-w,Math.max(0,drag.x0-(e.clientX-drag.x)/r.width*w));draw();});\n"
	" window.addEventListener('mouseup',function(){drag=null;sv.style.cursor='';});\n"
	" tl.querySelectorAll('button').forEach(function(b){b.addEventListener('click',\n"
	"  function(){var z=b.getAttribute('data-z');\n"
	"   if(z==='reset'){x0=0;w=X;draw();}else zoom(z==='in'?0.5:2,x0+w/2);});});\n"
	" draw();\n"
	" tl.setAttribute('data-px',Math.round(sv.getBoundingClientRect().width));\n"
	"});\n"
	"document.documentElement.setAttribute('data-ready','1');\n"
	"})();\n"
	"</script>\n";

static bool dev_shown(const struct html_writer *w, size_t i)
{
	return !w->dev_shown || w->dev_shown[i];
}

/* "N of M shown", as under a cut table: the sections the page holds. */
static void html_dev_cut(struct html_writer *w, const char *id)
{
	if (w->n_dev_shown >= w->n_dev)
		return;
	gs_outbuf_printf(&w->o,
			 "<p class=\"more\" id=\"%s\">%zu of %zu devices' sections shown (those "
			 "with the most ops; --device N for another, --format json for every "
			 "one)</p>\n",
			 id, w->n_dev_shown, w->n_dev);
}

/* At most GS_REPORT_HTML_MAX_DEVICES sections: those with the most ops
 * (the first by device order among equals), in device order. */
static gs_status pick_devices(struct html_writer *w, bool **out)
{
	const struct gs_report_device *dev = w->dev;
	size_t n = w->n_dev, *idx, i;
	bool *shown;

	*out = NULL;
	w->n_dev_shown = n;
	if (n <= GS_REPORT_HTML_MAX_DEVICES)
		return GS_OK;
	idx = malloc(n * sizeof(*idx));
	shown = calloc(n, sizeof(*shown));
	if (!idx || !shown) {
		free(idx);
		free(shown);
		return gs_nomem();
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	/* A partial selection: the GS_REPORT_HTML_MAX_DEVICES largest. */
	for (i = 0; i < GS_REPORT_HTML_MAX_DEVICES; i++) {
		size_t best = i;

		for (size_t k = i + 1; k < n; k++)
			if (dev[idx[k]].ops > dev[idx[best]].ops ||
			    (dev[idx[k]].ops == dev[idx[best]].ops && idx[k] < idx[best]))
				best = k;
		size_t tmp = idx[i];

		idx[i] = idx[best];
		idx[best] = tmp;
		shown[idx[i]] = true;
	}
	free(idx);
	w->n_dev_shown = GS_REPORT_HTML_MAX_DEVICES;
	w->dev_shown = shown;
	*out = shown;
	return GS_OK;
}

static void html_notes(struct html_writer *w)
{
	const struct gs_report *r = w->r;
	const struct gs_report_device *dev = w->dev;
	const struct gs_graph *g = gs_results_graph(r);
	const struct gs_warning *warn;
	size_t n, i;
	char line[GS_ERROR_MSG_MAX + 64];
	bool any = false;

#define NOTE(label, text)                                                                          \
	do {                                                                                       \
		if (!any)                                                                          \
			gs_outbuf_puts(&w->o, "<ul class=\"notes\" id=\"notes\">\n");              \
		any = true;                                                                        \
		gs_outbuf_puts(&w->o, "<li><b>" label ":</b> ");                                   \
		html_text(w, (text), 0);                                                           \
		gs_outbuf_puts(&w->o, "</li>\n");                                                  \
	} while (0)

	for (i = 0; i < gs_results_input_count(r); i++)
		NOTE("input", gs_results_input(r, i));
	if (gs_trace_dropped(w->t)) {
		snprintf(line, sizeof(line),
			 "%s%llu records were dropped while recording: the times below are lower "
			 "bounds",
			 gs_trace_dropped(w->t) == UINT64_MAX ? "at least " : "",
			 (unsigned long long)gs_trace_dropped(w->t));
		NOTE("caution", line);
	}
	warn = gs_trace_warnings(w->t, &n);
	for (i = 0; i < n; i++)
		if (!gs_report_warning_restated(r, &warn[i]))
			NOTE("warning", gs_warning_format(&warn[i], line, sizeof(line)));
	if (gs_report_unlinked_note(r, GS_REPORT_UNLINKED_WAITS, line, sizeof(line)))
		NOTE("caution", line);
	if (gs_report_unlinked_note(r, GS_REPORT_UNLINKED_CALLS, line, sizeof(line)))
		NOTE("caution", line);
	for (i = 0; i < w->n_dev; i++) {
		if (!dev[i].optimistic || !dev_shown(w, i))
			continue;
		snprintf(line, sizeof(line),
			 "device %u: ops on %zu streams and no cross-stream synchronization "
			 "recorded (no event records, stream waits or syncs): the ideal schedule "
			 "runs every stream from the window start and is optimistic",
			 dev[i].device, dev[i].active_streams);
		NOTE("caution", line);
	}
	for (i = 0; i < w->n_dev; i++) {
		if (!dev_shown(w, i))
			continue;
		if (gs_report_early_note(r, &dev[i], GS_REPORT_EARLY_RETURNED, line, sizeof(line)))
			NOTE("note", line);
		if (gs_report_early_note(r, &dev[i], GS_REPORT_EARLY_RECORDED, line, sizeof(line)))
			NOTE("caution", line);
	}
	if (gs_report_segment_note(r, line, sizeof(line)))
		NOTE("note", line);
	if (g && !g->stream_kinds_known && w->n_dev)
		NOTE("note", "stream kinds are not recorded in this trace: implicit legacy "
			     "default-stream synchronization is not modelled");
	if (any)
		gs_outbuf_puts(&w->o, "</ul>\n");
#undef NOTE
}

static void html_head(struct html_writer *w)
{
	const struct gs_report *r = w->r;
	const char *format = gs_results_format(r);
	size_t i, n_in = gs_results_input_count(r);

	gs_outbuf_puts(&w->o,
		       "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
		       "<meta name=\"generator\" content=\"gpuscope analyze\">\n<title>gpuscope: ");
	for (i = 0; i < n_in && i < 3; i++) {
		const char *in = gs_results_input(r, i), *slash = strrchr(in, '/');

		if (i)
			gs_outbuf_puts(&w->o, ", ");
		html_text(w, slash ? slash + 1 : in, 60);
	}
	if (n_in > 3)
		gs_outbuf_printf(&w->o, " and %zu more", n_in - 3);
	gs_outbuf_puts(&w->o, "</title>\n");
	gs_outbuf_puts(&w->o, css);
	gs_outbuf_puts(&w->o, script_head);
	gs_outbuf_puts(&w->o,
		       "</head>\n<body>\n<header>\n<h1>gpuscope analyze</h1>\n<p class=\"meta\">");
	gs_outbuf_printf(&w->o, "%zu input%s (", n_in, n_in == 1 ? "" : "s");
	html_text(w, *format ? format : "?", 40);
	gs_outbuf_printf(&w->o, "), %zu ops, %zu device%s with ops</p>\n", w->n_ops, w->n_dev,
			 w->n_dev == 1 ? "" : "s");
	html_notes(w);
	if (w->n_dev_shown > 1) {
		gs_outbuf_puts(&w->o, "<nav>");
		for (i = 0; i < w->n_dev; i++)
			if (dev_shown(w, i))
				gs_outbuf_printf(&w->o, "<a href=\"#dev-%zu\">device %u</a>", i,
						 w->dev[i].device);
		gs_outbuf_puts(&w->o, "</nav>\n");
	}
	html_dev_cut(w, "devcut");
	gs_outbuf_puts(&w->o, "</header>\n");
}

/* ---- breakdown bar -------------------------------------------------------- */

static const char *const cat_class[GS_CAT_COUNT] = {"c-kernel", "c-copy", "c-sync", "c-idle"};

static void html_breakdown(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	const struct gs_breakdown *b = &d->b;
	unsigned c;
	uint64_t u;

	gs_outbuf_printf(&w->o, "<h3>Breakdown</h3>\n<div class=\"bar\" id=\"bdbar-%zu\">", di);
	for (c = 0; c < GS_CAT_COUNT; c++) {
		double pct = b->window_ns > 0 ?
				     100.0 * (double)b->total_ns[c] / (double)b->window_ns :
				     0.0;

		if (b->total_ns[c] <= 0)
			continue;
		gs_outbuf_printf(&w->o,
				 "<span class=\"%s\" style=\"width:%.3f%%\" title=\"%s %s (%s)\">",
				 cat_class[c], pct, gs_category_name(c), DUR(b->total_ns[c]),
				 PCT(b->total_ns[c], b->window_ns));
		if (pct >= 9)
			gs_outbuf_printf(&w->o, "%s %s", gs_category_name(c),
					 PCT(b->total_ns[c], b->window_ns));
		else if (pct >= 4)
			gs_outbuf_printf(&w->o, "%s", PCT(b->total_ns[c], b->window_ns));
		gs_outbuf_puts(&w->o, "</span>");
	}
	gs_outbuf_puts(&w->o, "</div>\n");
	gs_outbuf_printf(&w->o,
			 "<table class=\"tbl\" id=\"breakdown-%zu\"><thead><tr><th>category</th>"
			 "<th class=\"n\">time</th><th class=\"n\">share</th><th>meaning</th></tr>"
			 "</thead><tbody>\n",
			 di);
	for (c = 0; c < GS_CAT_COUNT; c++) {
		static const char *const meaning[GS_CAT_COUNT] = {
			"a kernel runs",
			"a copy runs with no kernel over it (exposed copy)",
			"the device runs nothing while a host thread waits on it",
			"nothing runs and no host thread waits",
		};

		gs_outbuf_printf(
			&w->o,
			"<tr><td><span class=\"sw %s\"></span>%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td><td>%s</td></tr>\n",
			cat_class[c], gs_category_name(c), DUR(b->total_ns[c]),
			PCT(b->total_ns[c], b->window_ns), meaning[c]);
	}
	gs_outbuf_printf(&w->o,
			 "<tr><td><b>window</b></td><td class=\"n\"><b>%s</b></td>"
			 "<td class=\"n\">100.0%%</td><td></td></tr>\n</tbody></table>\n",
			 DUR(b->window_ns));
	/* One unit for the three (the largest's). */
	u = gs_dur_unit((uint64_t)(b->copy_total_ns > b->kernel_concurrency_ns ?
					   b->copy_total_ns :
					   b->kernel_concurrency_ns));
	gs_outbuf_printf(&w->o,
			 "<p class=\"meta\">dominant: <b>%s</b> (%s), a lead to check, not a "
			 "verdict. Overlap: %s of %s copy time hidden under kernels; two or more "
			 "kernels at once for %s.</p>\n",
			 gs_category_name(b->dominant < GS_CAT_COUNT ? b->dominant : 0),
			 PCT(b->total_ns[b->dominant < GS_CAT_COUNT ? b->dominant : 0],
			     b->window_ns),
			 DUR1(b->copy_hidden_ns, u), DUR1(b->copy_total_ns, u),
			 DUR1(b->kernel_concurrency_ns, u));
}

static void html_findings(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	size_t i;

	gs_outbuf_puts(&w->o, "<h3>Top findings</h3>\n");
	if (!d->n_findings) {
		gs_outbuf_printf(
			&w->o,
			"<p class=\"none\" id=\"findings-%zu\">Nothing stands out: no idle, "
			"exposed copy or sync time above 0.5%% of the window.</p>\n",
			di);
		return;
	}
	gs_outbuf_printf(&w->o, "<ol class=\"findings\" id=\"findings-%zu\">\n", di);
	for (i = 0; i < d->n_findings; i++) {
		gs_outbuf_puts(&w->o, "<li><div>");
		html_sentence(w, d->findings[i].text);
		gs_outbuf_puts(&w->o, "</div><div class=\"advice\">&rarr; ");
		html_sentence(w, d->findings[i].advice);
		gs_outbuf_puts(&w->o, "</div></li>\n");
	}
	gs_outbuf_puts(&w->o, "</ol>\n");
}

/* ---- a device ------------------------------------------------------------------ */

static gs_status html_device(struct html_writer *w, const struct gs_report_device *d, size_t di)
{
	const char *sep = " (";
	gs_status st;
	unsigned k;

	char title[512];

	gs_outbuf_printf(&w->o, "<section class=\"device\" id=\"dev-%zu\">\n<h2>", di);
	html_text(w, gs_report_device_title(w->r, d, title, sizeof(title)), 160);
	gs_outbuf_printf(&w->o, "</h2>\n<p class=\"meta\">window %s%s; ",
			 gs_report_window_text(w->t, d, (char[160]){0}, 160),
			 d->default_window ? " (first op start to last op end)" : " (--window)");
	gs_outbuf_printf(&w->o, "%llu ops", (unsigned long long)d->ops);
	for (k = 0; k < GS_OP_KIND_COUNT; k++) {
		if (!d->op_kinds[k])
			continue;
		gs_outbuf_printf(&w->o, "%s%s %llu", sep, gs_op_kind_name(k),
				 (unsigned long long)d->op_kinds[k]);
		sep = ", ";
	}
	gs_outbuf_printf(&w->o, "%s on %zu stream%s</p>\n", sep[0] == ',' ? ")" : "", d->n_streams,
			 d->n_streams == 1 ? "" : "s");
	html_breakdown(w, d, di);
	html_findings(w, d, di);
	st = gs_report_html_timeline(w, d, di);
	if (st != GS_OK)
		return st;
	gs_report_html_schedule(w, d, di);
	gs_report_html_steps(w, d, di);
	st = gs_report_html_critical(w, d, di);
	if (st != GS_OK)
		return st;
	gs_report_html_waits(w, d, di);
	gs_report_html_missed(w, d, di);
	gs_report_html_idle(w, d, di);
	gs_report_html_candidates(w, d, di);
	gs_report_html_streams(w, d, di);
	gs_report_html_kernels(w, d, di);
	gs_measures_write_html(&w->o, w->r, d, di, &w->st);
	gs_operators_write_html(&w->o, w->r, d, di, &w->st);
	gs_outbuf_puts(&w->o, "</section>\n");
	return GS_OK;
}

struct gs_html_layout gs_report_html_layout(uint64_t ops, uint64_t lanes)
{
	struct gs_html_layout L;

	L.exact = ops <= EXACT_OPS;
	L.bins = lanes ? CELL_BUDGET / lanes : BINS_MAX;
	if (L.bins > BINS_MAX)
		L.bins = BINS_MAX;
	if (L.bins < BINS_MIN)
		L.bins = BINS_MIN;
	return L;
}

struct gs_html_layout gs_report_html_job_layout(const struct gs_report *shell)
{
	uint64_t ops = 0, lanes = 0;

	for (size_t i = 0; i < gs_results_job_rank_count(shell); i++) {
		uint64_t o, l;

		gs_report_job_rank_html_load(shell, i, &o, &l);
		ops += o;
		lanes += l;
	}
	return gs_report_html_layout(ops, lanes);
}

/* Drawing resolution for the whole page (see the top of the file). */
static void pick_resolution(struct html_writer *w)
{
	const struct gs_report *job = w->r;
	size_t n_reps = gs_results_rank_count(job);
	uint64_t ops = 0, lanes = 0;
	struct gs_html_layout L;

	for (size_t x = 0; x < n_reps; x++) {
		uint64_t o, l;

		gs_report_html_rank_load(gs_results_rank(job, x), &o, &l);
		ops += o;
		lanes += l;
	}
	L = gs_report_html_layout(ops, lanes);
	w->exact = L.exact;
	w->bins = (size_t)L.bins;
}

/* The rank whose sections w writes. */
static void html_rank(struct html_writer *w, const struct gs_report *rank)
{
	w->r = rank;
	w->t = gs_results_trace(rank);
	w->dev = gs_results_devices(rank, &w->n_dev);
	w->ops = gs_trace_ops(w->t, &w->n_ops);
	w->streams = gs_trace_streams(w->t, &w->n_streams);
}

/*
 * A job's page is written from parts: the head and the job section from
 * the job report alone, and per rank, in rank order, its warnings (part 0,
 * in the head's notes) and its GPUs' sections (part 1). The ranks' numbers
 * the head needs (ops, GPUs) come from the ranks' reports when the report
 * holds them, else from the summaries of its job analysis (a shell's):
 * gs_results_job_rank, the same numbers either way.
 */
typedef gs_status (*html_part_fn)(void *ctx, unsigned part, size_t i, struct gs_outbuf *o);

/* A job page's own style and script (a page of one process has neither):
 * the collapsed blocks, the index of the GPU sections and its filter; a
 * link into a collapsed block opens it. */
static const char job_css[] =
	"<style>\n"
	"details.more{margin:4px 0 10px}details>summary{cursor:pointer;color:#1864ab}"
	"details.ranks,details.rank{margin:6px 0}details.rank>summary{font-weight:600}\n"
	"tr.stat td{background:var(--bg2);font-style:italic}\n"
	"#job-index p{margin:2px 0;font-size:12.5px}#job-index a{margin-right:7px}"
	"#job-index input{font:inherit;margin:6px 0;padding:2px 6px;width:260px}\n"
	"</style>\n";

static const char job_script[] =
	"<script>\n"
	"(function(){\n"
	"function open(id){var e=document.getElementById(id);\n"
	" for(var p=e&&e.parentElement;p;p=p.parentElement)if(p.tagName==='DETAILS')p.open=true;}\n"
	"function go(){if(location.hash.length>1)open(decodeURIComponent(location.hash.slice(1)));}\n"
	"window.addEventListener('hashchange',go);go();\n"
	"document.addEventListener('click',function(e){var a=e.target.closest&&\n"
	" e.target.closest('a[href^=\"#\"]');if(a)open(a.getAttribute('href').slice(1));});\n"
	"var f=document.getElementById('job-filter');\n"
	"if(f)f.addEventListener('input',function(){var q=f.value.trim().toLowerCase(),\n"
	" num=/^[0-9]+$/.test(q);\n"
	" document.querySelectorAll('#job-index p').forEach(function(p){var any=false;\n"
	"  p.querySelectorAll('a').forEach(function(a){var t=a.textContent,m=!q||(num?\n"
	"   t===q||t.indexOf(q+':')===0:a.title.toLowerCase().indexOf(q)>=0);\n"
	"   a.hidden=!m;any=any||m;});p.hidden=!any;});});\n"
	"})();\n"
	"</script>\n";

/* A GPU's name in the job page's links: "rank 3 GPU 0". */
static void html_job_link(struct html_writer *w, size_t di, uint32_t rank, uint32_t dev)
{
	char title[64];

	gs_outbuf_printf(&w->o, "<a href=\"#dev-%zu\">", di);
	snprintf(title, sizeof(title), "rank %u GPU %u", rank, dev);
	html_text(w, title, 0);
	gs_outbuf_puts(&w->o, "</a>");
}

/*
 * The index of every GPU section of a job whose sections are many (a
 * collapsed block): a line per run of ranks on one host, a link per GPU
 * ("12", or "12:1" for GPU 1 of a rank with several), and a filter box.
 */
static void html_job_index(struct html_writer *w, const struct gs_report *r,
			   const struct gs_results_job_rank *rk, size_t n, size_t gpus)
{
	size_t di = 0;

	gs_outbuf_printf(&w->o,
			 "<details id=\"job-index\"><summary>Every GPU's section: an index of the "
			 "%zu, by host</summary>\n<input type=\"search\" id=\"job-filter\" "
			 "placeholder=\"filter: a rank, or host text\" aria-label=\"filter\">\n",
			 gpus);
	for (size_t i = 0; i < n; i++) {
		const char *host = rk[i].host;
		size_t nd = rk[i].gpus;

		if (!i || strcmp(host, rk[i - 1].host) != 0) {
			gs_outbuf_puts(&w->o, i ? "</p>\n<p><b>" : "<p><b>");
			html_text(w, *host ? host : "-", 60);
			gs_outbuf_puts(&w->o, "</b> ");
		}
		for (size_t k = 0; k < nd; k++, di++) {
			uint32_t dev = gs_results_job_rank_device(r, i, k);
			char title[160];

			snprintf(title, sizeof(title), "rank %u \xc2\xb7 %s \xc2\xb7 GPU %u",
				 rk[i].rank, *host ? host : "-", dev);
			gs_outbuf_printf(&w->o, "<a href=\"#dev-%zu\" title=\"", di);
			html_text(w, title, 0);
			if (nd > 1)
				gs_outbuf_printf(&w->o, "\">%u:%u</a> ", rk[i].rank, dev);
			else
				gs_outbuf_printf(&w->o, "\">%u</a> ", rk[i].rank);
		}
	}
	gs_outbuf_puts(&w->o, n ? "</p>\n</details>\n" : "</details>\n");
}

/* The page of a job of two or more ranks: its notes, the job, then every
 * GPU of every rank, each section as for one process. With more GPUs than
 * the rank table holds, the outliers' ranks' sections are open and the
 * others' collapsed, a block per run of ranks between them and one per
 * rank inside it, reached from the index. */
static gs_status html_job(struct html_writer *w, const struct gs_report *r, html_part_fn part,
			  void *ctx)
{
	const struct gs_job *j = gs_results_job(r);
	const char *format = gs_results_format(r);
	struct gs_report_job_totals tot;
	struct gs_results_job_rank *rk;
	size_t n, i, k, di = 0, n_shown, n_in = gs_results_input_count(r);
	gs_status st = GS_OK;
	bool *shown;

	gs_report_job_totals(r, &tot);
	n = tot.ranks;
	rk = calloc(n ? n : 1, sizeof(*rk));
	if (!rk)
		return gs_nomem();
	for (i = 0; i < n; i++)
		gs_results_job_rank(r, i, &rk[i]);
	st = gs_report_job_shown(r, &w->st, n, &shown, &n_shown);
	if (st != GS_OK) {
		free(rk);
		return st;
	}
	gs_outbuf_puts(&w->o,
		       "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
		       "<meta name=\"generator\" content=\"gpuscope analyze\">\n<title>gpuscope: ");
	gs_outbuf_printf(&w->o, "job of %zu ranks</title>\n", j->n_ranks);
	gs_outbuf_puts(&w->o, css);
	gs_outbuf_puts(&w->o, job_css);
	gs_outbuf_puts(&w->o, script_head);
	gs_outbuf_puts(&w->o,
		       "</head>\n<body>\n<header>\n<h1>gpuscope analyze</h1>\n<p class=\"meta\">");
	gs_outbuf_printf(&w->o, "%zu input%s (", n_in, n_in == 1 ? "" : "s");
	html_text(w, *format ? format : "?", 40);
	gs_outbuf_printf(&w->o, "), %zu ranks, %zu GPU%s with ops, %llu ops</p>\n", j->n_ranks,
			 tot.gpus, tot.gpus == 1 ? "" : "s", (unsigned long long)tot.ops);
	gs_outbuf_puts(&w->o, "<ul class=\"notes\" id=\"notes\">\n");
	/* A thousand ranks: the first inputs, and how many more. */
	for (i = 0; i < n_in && i < 4; i++) {
		gs_outbuf_puts(&w->o, "<li><b>input:</b> ");
		html_text(w, gs_results_input(r, i), 0);
		gs_outbuf_puts(&w->o, "</li>\n");
	}
	if (n_in > 4)
		gs_outbuf_printf(&w->o, "<li><b>input:</b> ... and %zu more</li>\n", n_in - 4);
	for (i = 0; i < j->n_warnings; i++) {
		gs_outbuf_puts(&w->o, "<li><b>warning:</b> ");
		html_text(w, j->warnings[i], 0);
		gs_outbuf_puts(&w->o, "</li>\n");
	}
	for (i = 0; i < n && st == GS_OK; i++) {
		gs_outbuf_flush(&w->o); /* part() may write to the FILE */
		st = part(ctx, 0, i, &w->o);
	}
	gs_outbuf_puts(&w->o, "</ul>\n<nav>");
	/* Every GPU's link when they are few; the outliers' and an index. */
	if (n_shown < n)
		gs_outbuf_puts(&w->o, "The outliers' sections: ");
	for (i = 0; i < n; i++)
		for (k = 0; k < rk[i].gpus; k++, di++)
			if (shown[i])
				html_job_link(w, di, rk[i].rank,
					      gs_results_job_rank_device(r, i, k));
	gs_outbuf_puts(&w->o, "</nav>\n");
	if (n_shown < n)
		html_job_index(w, r, rk, n, tot.gpus);
	gs_outbuf_puts(&w->o, "</header>\n");
	gs_job_analysis_write_html(&w->o, r, &w->st);
	for (i = 0; i < n && st == GS_OK && !w->o.failed; i++) {
		size_t end = i;

		if (shown[i]) {
			gs_outbuf_flush(&w->o); /* part() may write to the FILE */
			st = part(ctx, 1, i, &w->o);
			continue;
		}
		/* A run of ranks not shown: i .. end - 1. */
		while (end < n && !shown[end])
			end++;
		if (end - i == 1)
			gs_outbuf_printf(&w->o,
					 "<details class=\"ranks\"><summary>rank %u: its sections "
					 "(not an outlier)</summary>\n",
					 rk[i].rank);
		else
			gs_outbuf_printf(&w->o,
					 "<details class=\"ranks\"><summary>ranks %u to %u: %zu "
					 "ranks' sections (no outlier)</summary>\n",
					 rk[i].rank, rk[end - 1].rank, end - i);
		for (; i < end && st == GS_OK && !w->o.failed; i++) {
			const char *host = rk[i].host;

			gs_outbuf_printf(&w->o, "<details class=\"rank\"><summary>rank %u",
					 rk[i].rank);
			if (*host) {
				gs_outbuf_puts(&w->o, " \xc2\xb7 ");
				html_text(w, host, 60);
			}
			for (k = 0; k < rk[i].gpus; k++)
				gs_outbuf_printf(&w->o, "%s%u", k ? ", " : " \xc2\xb7 GPU ",
						 gs_results_job_rank_device(r, i, k));
			gs_outbuf_puts(&w->o, "</summary>\n");
			gs_outbuf_flush(&w->o); /* part() may write to the FILE */
			st = part(ctx, 1, i, &w->o);
			gs_outbuf_puts(&w->o, "</details>\n");
		}
		gs_outbuf_puts(&w->o, "</details>\n");
		i = end - 1;
	}
	free(shown);
	free(rk);
	gs_outbuf_puts(&w->o, script_body);
	gs_outbuf_puts(&w->o, job_script);
	gs_outbuf_puts(&w->o, "</body>\n</html>\n");
	return st;
}

/* Part `part` of one rank of a job (see html_job); `di0` the index of its
 * first GPU on the page. */
static gs_status html_rank_part(struct html_writer *w, const struct gs_report *rank, size_t di0,
				unsigned part)
{
	char line[GS_ERROR_MSG_MAX + 96], msg[GS_ERROR_MSG_MAX + 64];
	gs_status st = GS_OK;
	size_t n;

	html_rank(w, rank);
	if (part == 0) {
		const struct gs_warning *warn = gs_trace_warnings(w->t, &n);
		struct gs_results_process p;

		gs_results_process(rank, &p);
		for (size_t x = 0; x < n; x++) {
			snprintf(line, sizeof(line), "rank %u: %s", p.rank,
				 gs_warning_format(&warn[x], msg, sizeof(msg)));
			gs_outbuf_puts(&w->o, "<li><b>warning:</b> ");
			html_text(w, line, 0);
			gs_outbuf_puts(&w->o, "</li>\n");
		}
		return GS_OK;
	}
	for (size_t k = 0; k < w->n_dev && st == GS_OK && !w->o.failed; k++)
		st = html_device(w, &w->dev[k], di0 + k);
	return st;
}

/* The parts of a job whose ranks' reports this report holds. */
struct html_own {
	struct html_writer *w;
	const struct gs_report *job;
	size_t di; /* the next rank's first GPU, as part 1 goes in rank order */
};

static gs_status html_own_part(void *ctx, unsigned part, size_t i, struct gs_outbuf *o)
{
	struct html_own *c = ctx;
	gs_status st;

	(void)o; /* c->w->o */
	st = html_rank_part(c->w, gs_results_rank(c->job, i), c->di, part);
	if (part == 1)
		c->di += c->w->n_dev;
	c->w->r = c->job;
	return st;
}

/* The parts of a job whose ranks' reports live elsewhere: part() hands
 * over each part's bytes. */
struct html_given {
	gs_status (*part)(void *ctx, unsigned part, size_t i, char **bytes, size_t *len);
	void *ctx;
};

static gs_status html_given_part(void *ctx, unsigned part, size_t i, struct gs_outbuf *o)
{
	struct html_given *c = ctx;
	char *bytes = NULL;
	size_t len = 0;
	gs_status st = c->part(c->ctx, part, i, &bytes, &len);

	gs_report_put_part(o, st, bytes, len, false);
	return st;
}

gs_status gs_report_html_job_parts(
	FILE *f, const struct gs_report *shell, const struct gs_html_layout *L,
	const struct gs_report_style *style,
	gs_status (*part)(void *ctx, unsigned part, size_t i, char **bytes, size_t *len), void *ctx)
{
	struct html_given given = {part, ctx};
	struct html_writer w;

	memset(&w, 0, sizeof(w));
	gs_outbuf_init(&w.o, f);
	w.r = shell;
	w.st = gs_report_style_of(style);
	w.exact = L->exact != 0;
	w.bins = (size_t)L->bins;
	return gs_outbuf_finish_keep(&w.o, html_job(&w, shell, html_given_part, &given));
}

gs_status gs_report_html_rank_part(FILE *f, const struct gs_report *rank,
				   const struct gs_html_layout *L, size_t di0, unsigned part,
				   const struct gs_report_style *style)
{
	struct html_writer w;

	memset(&w, 0, sizeof(w));
	gs_outbuf_init(&w.o, f);
	w.st = gs_report_style_of(style);
	w.exact = L->exact != 0;
	w.bins = (size_t)L->bins;
	return gs_outbuf_finish_keep(&w.o, html_rank_part(&w, rank, di0, part));
}

gs_status gs_report_write_html(FILE *f, const struct gs_report *r,
			       const struct gs_report_style *style)
{
	struct html_writer w;
	gs_status st = GS_OK;
	bool *shown = NULL;
	size_t i;

	if (!f || !r) {
		gs_error_append("gs_report_write_html: no output or no report");
		return GS_ERR_INVALID;
	}
	r = gs_report_single(r);
	memset(&w, 0, sizeof(w));
	w.st = gs_report_style_of(style);
	gs_outbuf_init(&w.o, f);
	if (gs_results_job(r)) {
		struct html_own c = {&w, r, 0};

		w.r = r;
		pick_resolution(&w);
		return gs_outbuf_finish_keep(&w.o, html_job(&w, r, html_own_part, &c));
	}
	html_rank(&w, r);
	st = pick_devices(&w, &shown);
	if (st != GS_OK)
		return gs_outbuf_finish_keep(&w.o, st);
	pick_resolution(&w);
	html_head(&w);
	if (!w.n_dev)
		gs_outbuf_puts(&w.o,
			       "<p class=\"none\" id=\"nodev\">No GPU ops in the trace: nothing "
			       "to analyze (a host-only trace?)</p>\n");
	for (i = 0; i < w.n_dev && st == GS_OK && !w.o.failed; i++)
		if (dev_shown(&w, i))
			st = html_device(&w, &w.dev[i], i);
	html_dev_cut(&w, "devcut-end");
	free(shown);
	gs_outbuf_puts(&w.o, script_body);
	gs_outbuf_puts(&w.o, "</body>\n</html>\n");
	return gs_outbuf_finish_keep(&w.o, st);
}
