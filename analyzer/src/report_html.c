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
 * UTF-8 become U+FFFD. Every write is checked (out.c).
 *
 * Complexity, per device of N_d ops: the schedule (O(N log N)), one pass
 * over the ops of each drawn lane, O(bins) per lane, O(segments) for the
 * band, linear in the rows of the tables.
 */
#include "job_sum.h"
#include "measures_priv.h"
#include "report_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

#define XMAX 1000000      /* drawing units across the whole span */
#define EXACT_OPS 3000    /* ops drawn one by one, over all devices */
#define BINS_MAX 2000     /* slices per lane at most */
#define BINS_MIN 100      /* ... and at least */
#define CELL_BUDGET 96000 /* slices over all lanes of the page */
#define LANES_MAX 32      /* streams drawn per device */
#define WAITS_DRAWN 200   /* waits drawn per device */
#define NAME_MAX_CPS 90   /* names in tables, code points */
#define TIP_MAX_CPS 60    /* names in tooltips */

/* Layout of the timeline, in pixels. */
#define PITCH 22 /* one lane */
#define STRIP 3  /* the critical path strip at the top of a lane */
#define BAR_Y 5  /* the op bar inside a lane */
#define BAR_H 15
#define HEAD 22   /* a group header row */
#define BAND_H 18 /* the breakdown band */
#define LABEL_W 170
#define AXIS_H 24 /* the axis above the lanes */

struct hw {
	struct gs_out o;
	const struct gs_report *r;
	const struct gs_trace *t;
	struct gs_report_style st; /* resolved (gs_report_style_of) */
	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_stream *streams;
	size_t n_streams;
	bool exact;  /* draw every op */
	size_t bins; /* slices per lane when binned */
};

/* ---- text --------------------------------------------------------------- */

/*
 * `s` as HTML text, safe in element content and in quoted attributes.
 * Cut to `max` code points with a trailing "…" when longer (0: no cut).
 */
void gs_report_html_text(struct gs_out *o, const char *s, size_t max)
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
			gs_out_puts(o, buf);
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
	gs_out_puts(o, buf);
}

static void h_text(struct hw *w, const char *s, size_t max)
{
	gs_report_html_text(&w->o, s, max);
}

/* `s` as h_text, with "<digit> us" written "<digit> µs" (the findings
 * are the text report's sentences). */
void gs_report_html_sentence(struct gs_out *o, const char *s)
{
	const char *p = s ? s : "", *from = p;
	char *buf;
	size_t len = strlen(p), k = 0;

	buf = malloc(len + len / 3 + 1); /* " us" (3 bytes) grows by one byte */
	if (!buf) {
		gs_report_html_text(o, p, 0);
		return;
	}
	for (; *p; p++) {
		if (p > from && p[-1] >= '0' && p[-1] <= '9' && !strncmp(p, " us", 3) &&
		    !((p[3] >= 'a' && p[3] <= 'z') || (p[3] >= 'A' && p[3] <= 'Z'))) {
			memcpy(buf + k, " \xc2\xb5s", 4);
			k += 4;
			p += 2;
			continue;
		}
		buf[k++] = *p;
	}
	buf[k] = '\0';
	gs_report_html_text(o, buf, 0);
	free(buf);
}

static void h_sentence(struct hw *w, const char *s)
{
	gs_report_html_sentence(&w->o, s);
}

/* A duration for people, as the text report writes it but with "µs". */
static const char *dur_str(char *buf, size_t size, int64_t ns)
{
	size_t len;

	gs_dur_text(buf, size, ns);
	len = strlen(buf);
	if (len >= 3 && !strcmp(buf + len - 3, " us") && len + 2 < size)
		memcpy(buf + len - 2, "\xc2\xb5s", 4);
	return buf;
}

#define DUR(ns) dur_str((char[48]){0}, 48, (ns))
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
#define PCT(a, b) gs_report_pct((char[32]){0}, 32, (a), (b))

/* What to call an op (report.c). */
static const char *op_label(struct hw *w, uint32_t op, char *buf, size_t size)
{
	return gs_report_op_label(w->t, op, buf, size);
}

static uint64_t op_stream_id(struct hw *w, uint32_t op)
{
	return gs_report_op_stream(w->t, op);
}

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

static void h_notes(struct hw *w)
{
	const struct gs_report *r = w->r;
	const struct gs_warning *warn;
	size_t n, i;
	char line[GS_ERROR_MSG_MAX + 64];
	bool any = false;

#define NOTE(label, text)                                                                          \
	do {                                                                                       \
		if (!any)                                                                          \
			gs_out_puts(&w->o, "<ul class=\"notes\" id=\"notes\">\n");                 \
		any = true;                                                                        \
		gs_out_puts(&w->o, "<li><b>" label ":</b> ");                                      \
		h_text(w, (text), 0);                                                              \
		gs_out_puts(&w->o, "</li>\n");                                                     \
	} while (0)

	for (i = 0; i < r->n_inputs; i++)
		NOTE("input", r->inputs[i]);
	if (gs_trace_dropped(w->t)) {
		snprintf(line, sizeof(line),
			 "%llu records were dropped while recording: the times below are lower "
			 "bounds",
			 (unsigned long long)gs_trace_dropped(w->t));
		NOTE("caution", line);
	}
	warn = gs_trace_warnings(w->t, &n);
	for (i = 0; i < n; i++)
		if (!gs_report_warning_restated(r, &warn[i]))
			NOTE("warning", gs_warning_format(&warn[i], line, sizeof(line)));
	if (r->g && r->g->unlinked_waits) {
		snprintf(line, sizeof(line),
			 "%llu stream waits could not be linked to their event record: those "
			 "dependencies are missing from the waits and schedules",
			 (unsigned long long)r->g->unlinked_waits);
		NOTE("caution", line);
	}
	if (r->g && r->g->unlinked_wait_calls) {
		snprintf(line, sizeof(line),
			 "%llu cudaStreamWaitEvent calls have no sync record: cross-stream "
			 "dependencies are unknown, so waits, critical path and ideal schedule "
			 "leave them out (the ideal is optimistic)",
			 (unsigned long long)r->g->unlinked_wait_calls);
		NOTE("caution", line);
	}
	for (i = 0; i < r->n_dev; i++) {
		if (!r->dev[i].optimistic)
			continue;
		snprintf(line, sizeof(line),
			 "device %u: ops on %zu streams and no cross-stream synchronization "
			 "recorded (no event records, stream waits or syncs): the ideal schedule "
			 "runs every stream from the window start and is optimistic",
			 r->dev[i].device, r->dev[i].active_streams);
		NOTE("caution", line);
	}
	if (r->g && !r->g->stream_kinds_known && r->n_dev)
		NOTE("note", "stream kinds are not recorded in this trace: implicit legacy "
			     "default-stream synchronization is not modelled");
	if (any)
		gs_out_puts(&w->o, "</ul>\n");
#undef NOTE
}

static void h_head(struct hw *w)
{
	const struct gs_report *r = w->r;
	size_t i;

	gs_out_puts(&w->o,
		    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
		    "<meta name=\"generator\" content=\"gpuscope analyze\">\n<title>gpuscope: ");
	for (i = 0; i < r->n_inputs && i < 3; i++) {
		const char *slash = strrchr(r->inputs[i], '/');

		if (i)
			gs_out_puts(&w->o, ", ");
		h_text(w, slash ? slash + 1 : r->inputs[i], 60);
	}
	if (r->n_inputs > 3)
		gs_out_printf(&w->o, " and %zu more", r->n_inputs - 3);
	gs_out_puts(&w->o, "</title>\n");
	gs_out_puts(&w->o, css);
	gs_out_puts(&w->o, script_head);
	gs_out_puts(&w->o,
		    "</head>\n<body>\n<header>\n<h1>gpuscope analyze</h1>\n<p class=\"meta\">");
	gs_out_printf(&w->o, "%zu input%s (", r->n_inputs, r->n_inputs == 1 ? "" : "s");
	h_text(w, r->format && *r->format ? r->format : "?", 40);
	gs_out_printf(&w->o, "), %zu ops, %zu device%s with ops</p>\n", w->n_ops, r->n_dev,
		      r->n_dev == 1 ? "" : "s");
	h_notes(w);
	if (r->n_dev > 1) {
		gs_out_puts(&w->o, "<nav>");
		for (i = 0; i < r->n_dev; i++)
			gs_out_printf(&w->o, "<a href=\"#dev-%zu\">device %u</a>", i,
				      r->dev[i].device);
		gs_out_puts(&w->o, "</nav>\n");
	}
	gs_out_puts(&w->o, "</header>\n");
}

/* ---- breakdown bar -------------------------------------------------------- */

static const char *const cat_class[GS_CAT_COUNT] = {"c-kernel", "c-copy", "c-sync", "c-idle"};

static void h_breakdown(struct hw *w, const struct gs_report_device *d, size_t di)
{
	const struct gs_breakdown *b = &d->b;
	unsigned c;
	uint64_t u;

	gs_out_printf(&w->o, "<h3>Breakdown</h3>\n<div class=\"bar\" id=\"bdbar-%zu\">", di);
	for (c = 0; c < GS_CAT_COUNT; c++) {
		double pct = b->window_ns > 0 ?
				     100.0 * (double)b->total_ns[c] / (double)b->window_ns :
				     0.0;

		if (b->total_ns[c] <= 0)
			continue;
		gs_out_printf(&w->o,
			      "<span class=\"%s\" style=\"width:%.3f%%\" title=\"%s %s (%s)\">",
			      cat_class[c], pct, gs_category_name(c), DUR(b->total_ns[c]),
			      PCT(b->total_ns[c], b->window_ns));
		if (pct >= 9)
			gs_out_printf(&w->o, "%s %s", gs_category_name(c),
				      PCT(b->total_ns[c], b->window_ns));
		else if (pct >= 4)
			gs_out_printf(&w->o, "%s", PCT(b->total_ns[c], b->window_ns));
		gs_out_puts(&w->o, "</span>");
	}
	gs_out_puts(&w->o, "</div>\n");
	gs_out_printf(&w->o,
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

		gs_out_printf(&w->o,
			      "<tr><td><span class=\"sw %s\"></span>%s</td><td class=\"n\">%s</td>"
			      "<td class=\"n\">%s</td><td>%s</td></tr>\n",
			      cat_class[c], gs_category_name(c), DUR(b->total_ns[c]),
			      PCT(b->total_ns[c], b->window_ns), meaning[c]);
	}
	gs_out_printf(&w->o,
		      "<tr><td><b>window</b></td><td class=\"n\"><b>%s</b></td>"
		      "<td class=\"n\">100.0%%</td><td></td></tr>\n</tbody></table>\n",
		      DUR(b->window_ns));
	/* One unit for the three (the largest's). */
	u = gs_dur_unit((uint64_t)(b->copy_total_ns > b->kernel_concurrency_ns ?
					   b->copy_total_ns :
					   b->kernel_concurrency_ns));
	gs_out_printf(&w->o,
		      "<p class=\"meta\">dominant: <b>%s</b> (%s), a lead to check, not a "
		      "verdict. Overlap: %s of %s copy time hidden under kernels; two or more "
		      "kernels at once for %s.</p>\n",
		      gs_category_name(b->dominant < GS_CAT_COUNT ? b->dominant : 0),
		      PCT(b->total_ns[b->dominant < GS_CAT_COUNT ? b->dominant : 0], b->window_ns),
		      DUR1(b->copy_hidden_ns, u), DUR1(b->copy_total_ns, u),
		      DUR1(b->kernel_concurrency_ns, u));
}

static void h_findings(struct hw *w, const struct gs_report_device *d, size_t di)
{
	size_t i;

	gs_out_puts(&w->o, "<h3>Top findings</h3>\n");
	if (!d->n_findings) {
		gs_out_printf(&w->o,
			      "<p class=\"none\" id=\"findings-%zu\">Nothing stands out: no idle, "
			      "exposed copy or sync time above 0.5%% of the window.</p>\n",
			      di);
		return;
	}
	gs_out_printf(&w->o, "<ol class=\"findings\" id=\"findings-%zu\">\n", di);
	for (i = 0; i < d->n_findings; i++) {
		gs_out_puts(&w->o, "<li><div>");
		h_sentence(w, d->findings[i].text);
		gs_out_puts(&w->o, "</div><div class=\"advice\">&rarr; ");
		h_sentence(w, d->findings[i].advice);
		gs_out_puts(&w->o, "</div></li>\n");
	}
	gs_out_puts(&w->o, "</ol>\n");
}

/* ---- timeline ------------------------------------------------------------- */

/* One lane per drawn stream; `st` indexes d->streams. */
struct lane {
	size_t st;
	int64_t busy;
	int y_real;
	int y_ideal;
};

struct tl {
	const struct gs_report_device *d;
	size_t di;
	int64_t t0;                  /* the axis origin: the window start */
	int64_t span;                /* ns across the axis */
	const struct gs_schedule *s; /* the device's ideal schedule */
	bool sched;                  /* s holds the ideal starts */
	struct lane *lanes;          /* in d->streams order */
	size_t n_lanes;
	size_t skipped;      /* streams with ops not drawn (LANES_MAX) */
	int32_t *lane_of;    /* per stream of the trace: lane, or -1 */
	unsigned char *crit; /* per op: on the critical path */
	int y_band, y_ideal_head, height;
	/* Slices of the lane being drawn: busy ns by op kind, critical ns. */
	int64_t *acc;
	int64_t *cacc;
	size_t bins;
};

static int64_t x_of(const struct tl *L, int64_t t)
{
	double x;

	if (t <= 0)
		return 0;
	if (t >= L->span)
		return XMAX;
	x = (double)t * XMAX / (double)L->span;
	return (int64_t)(x + 0.5);
}

/* Slice k covers [bin_t(k), bin_t(k + 1)). */
static int64_t bin_t(const struct tl *L, size_t k)
{
	if (k >= L->bins)
		return L->span;
	return (int64_t)((double)L->span * (double)k / (double)L->bins);
}

static size_t bin_of(const struct tl *L, int64_t t)
{
	size_t k;

	if (t <= 0)
		return 0;
	if (t >= L->span)
		return L->bins - 1;
	k = (size_t)((double)t * (double)L->bins / (double)L->span);
	if (k >= L->bins)
		k = L->bins - 1;
	/* Rounding: make bin_t(k) <= t < bin_t(k + 1). */
	while (k > 0 && bin_t(L, k) > t)
		k--;
	while (k + 1 < L->bins && bin_t(L, k + 1) <= t)
		k++;
	return k;
}

/* Add [a, e) (ns from the origin) to the slices of `acc` (stride `stride`,
 * column `col`). */
static void bins_add(const struct tl *L, int64_t *acc, size_t stride, size_t col, int64_t a,
		     int64_t e)
{
	size_t k;

	if (a < 0)
		a = 0;
	if (e > L->span)
		e = L->span;
	if (e <= a)
		return;
	for (k = bin_of(L, a); k < L->bins && a < e; k++) {
		int64_t stop = bin_t(L, k + 1);

		if (stop > e || k + 1 == L->bins)
			stop = e;
		if (stop > a)
			acc[k * stride + col] += stop - a;
		a = stop;
	}
}

static const char *const kind_class[GS_OP_KIND_COUNT] = {"k", "m", "s"};

/*
 * What slice k of the lane shows: the op kind that ran longest in it, and
 * how busy it was in quarters (0: empty, 4: busy all through). The kind
 * and level together, as one code (kind * 5 + level).
 */
static unsigned slice_code(const struct tl *L, size_t k)
{
	const int64_t *a = &L->acc[k * GS_OP_KIND_COUNT];
	int64_t width = bin_t(L, k + 1) - bin_t(L, k), busy = a[0] + a[1] + a[2];
	unsigned best = 0, c, level;

	for (c = 1; c < GS_OP_KIND_COUNT; c++)
		if (a[c] > a[best])
			best = c;
	if (busy <= 0 || width <= 0)
		level = 0;
	else if (busy >= width)
		level = 4;
	else
		level = (unsigned)(1 + (busy * 4 - 1) / width);
	return best * 5 + (level > 4 ? 4 : level);
}

/* The slices of one lane as merged shapes: one path per (kind, opacity). */
static void emit_bins(struct hw *w, const struct tl *L, int y)
{
	static const char *const level_class[5] = {"", " o1", " o2", " o3", ""};
	unsigned kind, level;
	size_t k, j;

	for (kind = 0; kind < GS_OP_KIND_COUNT; kind++) {
		for (level = 1; level <= 4; level++) {
			unsigned code = kind * 5 + level;
			bool open = false;

			for (k = 0; k < L->bins; k = j) {
				int64_t x1, x2;

				if (slice_code(L, k) != code) {
					j = k + 1;
					continue;
				}
				/* A run of equal slices, one shape. */
				for (j = k + 1; j < L->bins && slice_code(L, j) == code; j++)
					;
				if (!open)
					gs_out_printf(&w->o, "<path class=\"%s%s\" d=\"",
						      kind_class[kind], level_class[level]);
				open = true;
				x1 = x_of(L, bin_t(L, k));
				x2 = x_of(L, bin_t(L, j));
				gs_out_printf(&w->o, "M%lld %dh%lldv%dh-%lldz", (long long)x1,
					      y + BAR_Y, (long long)(x2 - x1), BAR_H,
					      (long long)(x2 - x1));
			}
			if (open)
				gs_out_puts(&w->o, "\"/>\n");
		}
	}
}

/* The critical-path strip of a lane from the `cacc` slices. */
static void emit_crit_bins(struct hw *w, const struct tl *L, int y)
{
	size_t k, j;
	bool open = false;

	for (k = 0; k < L->bins;) {
		if (L->cacc[k] <= 0) {
			k++;
			continue;
		}
		for (j = k + 1; j < L->bins && L->cacc[j] > 0; j++)
			;
		if (!open) {
			gs_out_puts(&w->o, "<path class=\"cp\" d=\"");
			open = true;
		}
		{
			int64_t x1 = x_of(L, bin_t(L, k)), x2 = x_of(L, bin_t(L, j));

			gs_out_printf(&w->o, "M%lld %dh%lldv%dh-%lldz", (long long)x1, y,
				      (long long)(x2 - x1), STRIP, (long long)(x2 - x1));
		}
		k = j;
	}
	if (open)
		gs_out_puts(&w->o, "\"/>\n");
}

/* One op drawn as it is, with a tooltip. */
static void emit_op(struct hw *w, const struct tl *L, uint32_t i, int64_t a, int y, bool ideal)
{
	const struct gs_op *op = &w->ops[i];
	int64_t dur = op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;
	int64_t x1 = x_of(L, a), x2 = x_of(L, a + dur);
	char label[128];

	gs_out_printf(&w->o,
		      "<rect class=\"%s\" x=\"%lld\" y=\"%d\" width=\"%lld\" height=\"%d\"><title>",
		      op->kind < GS_OP_KIND_COUNT ? kind_class[op->kind] : "k", (long long)x1,
		      y + BAR_Y, (long long)(x2 > x1 ? x2 - x1 : 1), BAR_H);
	h_text(w, op_label(w, i, label, sizeof(label)), TIP_MAX_CPS);
	gs_out_printf(&w->o, "&#10;op %llu, stream %llu: %s at %s%s",
		      (unsigned long long)gs_report_op_id(w->t, i),
		      (unsigned long long)op_stream_id(w, i), DUR(dur), a < 0 ? "" : "+", DUR(a));
	if (ideal)
		gs_out_printf(&w->o, " (actual %s%s)", op->start_ns < L->t0 ? "" : "+",
			      DUR(op->start_ns - L->t0));
	if (L->crit[i])
		gs_out_puts(&w->o, "&#10;on the critical path");
	gs_out_puts(&w->o, "</title></rect>\n");
	if (L->crit[i])
		gs_out_printf(
			&w->o,
			"<rect class=\"cp\" x=\"%lld\" y=\"%d\" width=\"%lld\" height=\"%d\"/>\n",
			(long long)x1, y, (long long)(x2 > x1 ? x2 - x1 : 1), STRIP);
}

/* Is op i in the schedule's op set? (every op of the device, or those
 * starting in the window) */
static bool scheduled(const struct hw *w, const struct tl *L, uint32_t i)
{
	const struct gs_op *op = &w->ops[i];

	if (!L->sched || i >= L->s->n_ops)
		return false;
	return !L->s->window_set ||
	       (op->start_ns >= L->s->window_start && op->start_ns < L->s->window_end);
}

/* A lane of the actual run (ideal false) or of the ideal schedule. */
static void draw_lane(struct hw *w, struct tl *L, const struct lane *ln, bool ideal)
{
	const struct gs_report_stream *rs = &L->d->streams[ln->st];
	int y = ideal ? ln->y_ideal : ln->y_real;
	size_t first, count, i;

	gs_out_printf(&w->o, "<g class=\"lane %s\" data-stream=\"%llu\">\n",
		      ideal ? "ideal" : "real", (unsigned long long)rs->stream_id);
	gs_out_printf(&w->o, "<rect class=\"bg\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		      y + BAR_Y, XMAX, BAR_H);
	gs_trace_stream_ops(w->t, rs->index, &first, &count);
	if (!w->exact) {
		memset(L->acc, 0, L->bins * GS_OP_KIND_COUNT * sizeof(*L->acc));
		memset(L->cacc, 0, L->bins * sizeof(*L->cacc));
	}
	for (i = first; i < first + count && i < w->n_ops; i++) {
		const struct gs_op *op = &w->ops[i];
		int64_t a, dur = op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;

		if (ideal) {
			if (!scheduled(w, L, (uint32_t)i))
				continue;
			a = gs_schedule_ideal_start(L->s, (uint32_t)i) - L->t0;
		} else {
			a = op->start_ns - L->t0;
		}
		if (a + dur < 0 || a > L->span)
			continue;
		if (w->exact) {
			emit_op(w, L, (uint32_t)i, a, y, ideal);
			continue;
		}
		bins_add(L, L->acc, GS_OP_KIND_COUNT, op->kind < GS_OP_KIND_COUNT ? op->kind : 0, a,
			 a + (dur ? dur : 1));
		if (L->crit[i])
			bins_add(L, L->cacc, 1, 0, a, a + (dur ? dur : 1));
	}
	if (!w->exact) {
		emit_bins(w, L, y);
		emit_crit_bins(w, L, y);
	}
	gs_out_puts(&w->o, "</g>\n");
}

/* False when out of memory. */
static bool draw_band(struct hw *w, struct tl *L)
{
	const struct gs_breakdown *b = &L->d->b;
	int y = L->y_band;
	size_t i, k;

	gs_out_printf(&w->o, "<g class=\"band\" id=\"band-%zu\">\n", L->di);
	if (b->n_segments <= 2 * L->bins || w->exact) {
		for (i = 0; i < b->n_segments; i++) {
			const struct gs_segment *s = &b->segments[i];
			int64_t x1 = x_of(L, s->start_ns - L->t0), x2 = x_of(L, s->end_ns - L->t0);

			if (s->category >= GS_CAT_COUNT || x2 <= x1)
				continue;
			gs_out_printf(&w->o,
				      "<rect class=\"b%u\" x=\"%lld\" y=\"%d\" width=\"%lld\" "
				      "height=\"%d\"><title>%s %s at +%s</title></rect>\n",
				      (unsigned)s->category, (long long)x1, y, (long long)(x2 - x1),
				      BAND_H, gs_category_name(s->category),
				      DUR(s->end_ns - s->start_ns), DUR(s->start_ns - L->t0));
		}
		gs_out_puts(&w->o, "</g>\n");
		return true;
	}
	/* Binned: each slice takes the category that held most of it. */
	{
		int64_t *acc = calloc(L->bins * GS_CAT_COUNT, sizeof(*acc));
		unsigned char *cat = malloc(L->bins);

		if (!acc || !cat) {
			free(acc);
			free(cat);
			gs_out_puts(&w->o, "</g>\n");
			return false;
		}
		for (i = 0; i < b->n_segments; i++) {
			const struct gs_segment *s = &b->segments[i];

			if (s->category < GS_CAT_COUNT)
				bins_add(L, acc, GS_CAT_COUNT, s->category, s->start_ns - L->t0,
					 s->end_ns - L->t0);
		}
		for (k = 0; k < L->bins; k++) {
			const int64_t *a = &acc[k * GS_CAT_COUNT];
			unsigned c, best = GS_CAT_IDLE;

			for (c = 0; c < GS_CAT_COUNT; c++)
				if (a[c] > a[best])
					best = c;
			cat[k] = a[0] + a[1] + a[2] + a[3] > 0 ? (unsigned char)best : 0xff;
		}
		for (k = 0; k < L->bins;) {
			size_t j;
			int64_t x1, x2;

			for (j = k + 1; j < L->bins && cat[j] == cat[k]; j++)
				;
			x1 = x_of(L, bin_t(L, k));
			x2 = x_of(L, bin_t(L, j));
			if (cat[k] != 0xff && x2 > x1)
				gs_out_printf(
					&w->o,
					"<rect class=\"b%u\" x=\"%lld\" y=\"%d\" width=\"%lld\" "
					"height=\"%d\"/>\n",
					(unsigned)cat[k], (long long)x1, y, (long long)(x2 - x1),
					BAND_H);
			k = j;
		}
		free(acc);
		free(cat);
	}
	gs_out_puts(&w->o, "</g>\n");
	return true;
}

/* Waits on the lanes of the actual run: a dashed line on the consumer's
 * lane while it was held back, and a link from the producer's lane at the
 * moment the producer ended. */
static void draw_waits(struct hw *w, struct tl *L)
{
	const struct gs_report *r = w->r;
	const struct gs_report_device *d = L->d;
	size_t i, shown = d->n_waits < WAITS_DRAWN ? d->n_waits : WAITS_DRAWN;
	char lc[128], lp[128];

	if (!shown)
		return;
	gs_out_printf(&w->o, "<g class=\"waits\" id=\"waitlines-%zu\">\n", L->di);
	for (i = 0; i < shown; i++) {
		const struct gs_wait *x = &r->waits[d->waits[i]];
		const struct gs_op *c, *p;
		int32_t lcn, lpn;
		int64_t pend, xa, xb;
		int yc;

		if (x->consumer >= w->n_ops || x->producer >= w->n_ops)
			continue;
		c = &w->ops[x->consumer];
		p = &w->ops[x->producer];
		lcn = c->stream < w->n_streams ? L->lane_of[c->stream] : -1;
		if (lcn < 0)
			continue;
		pend = p->end_ns < c->start_ns ? p->end_ns : c->start_ns;
		xa = x_of(L, pend - x->wait_ns - L->t0);
		xb = x_of(L, pend - L->t0);
		yc = L->lanes[lcn].y_real + BAR_Y + BAR_H / 2;
		gs_out_printf(&w->o,
			      "<line class=\"wait\" x1=\"%lld\" x2=\"%lld\" y1=\"%d\" y2=\"%d\">",
			      (long long)xa, (long long)(xb > xa ? xb : xa + 1), yc, yc);
		gs_out_printf(&w->o, "<title>wait %s (%s): ", DUR(x->wait_ns),
			      gs_edge_kind_name(x->kind));
		h_text(w, op_label(w, x->consumer, lc, sizeof(lc)), 60);
		gs_out_printf(&w->o, " [s%llu] held back by ",
			      (unsigned long long)op_stream_id(w, x->consumer));
		h_text(w, op_label(w, x->producer, lp, sizeof(lp)), 60);
		gs_out_printf(&w->o, " [s%llu]</title></line>\n",
			      (unsigned long long)op_stream_id(w, x->producer));
		lpn = p->stream < w->n_streams ? L->lane_of[p->stream] : -1;
		if (lpn >= 0 && lpn != lcn) {
			int yp = L->lanes[lpn].y_real + BAR_Y + BAR_H / 2;

			gs_out_printf(&w->o,
				      "<line class=\"wlink\" x1=\"%lld\" x2=\"%lld\" y1=\"%d\" "
				      "y2=\"%d\"/>\n",
				      (long long)xb, (long long)xb, yp, yc);
		}
	}
	gs_out_puts(&w->o, "</g>\n");
}

/* The static axis (the script redraws it on zoom): ticks at 1, 2 or 5
 * times a power of ten, about eight across. */
static void draw_axis(struct hw *w, const struct tl *L)
{
	static const struct {
		double ns;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\xc2\xb5s"}, {1, "ns"}};
	double r = (double)L->span / 8, p, m, st;
	size_t u = 3, i, n_ticks;
	int dec;

	gs_out_printf(&w->o, "<svg class=\"axis\" id=\"axis-%zu\">", L->di);
	if (L->span <= 0 || r <= 0) {
		gs_out_puts(&w->o, "</svg>\n");
		return;
	}
	p = pow(10, floor(log10(r)));
	m = r / p;
	st = p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
	if (st < 1)
		st = 1;
	for (i = 0; i < 3; i++) {
		if (st * 10 >= units[i].ns) {
			u = i;
			break;
		}
	}
	dec = (int)ceil(-log10(st / units[u].ns) - 1e-9);
	if (dec < 0)
		dec = 0;
	/* An integer counter: adding st up would drift and could miss the last tick. */
	n_ticks = (size_t)floor((double)L->span / st);
	for (size_t k = 0; k <= n_ticks; k++) {
		double t = (double)k * st;
		double x = t / (double)L->span * 100;
		const char *anchor = x < 2 ? "start" : x > 98 ? "end" : "middle";

		gs_out_printf(&w->o, "<line x1=\"%.3f%%\" x2=\"%.3f%%\" y1=\"16\" y2=\"24\"/>", x,
			      x);
		if (k == 0)
			gs_out_printf(
				&w->o,
				"<text x=\"0%%\" y=\"12\" style=\"text-anchor:start\">0</text>");
		else
			gs_out_printf(
				&w->o,
				"<text x=\"%.3f%%\" y=\"12\" style=\"text-anchor:%s\">%.*f %s</text>",
				x, anchor, dec, t / units[u].ns, units[u].unit);
	}
	gs_out_puts(&w->o, "</svg>\n");
}

static void draw_labels(struct hw *w, const struct tl *L)
{
	const struct gs_report_device *d = L->d;
	size_t i;
	bool pids = false;

	for (i = 1; i < L->n_lanes; i++)
		if (d->streams[L->lanes[i].st].pid != d->streams[L->lanes[0].st].pid)
			pids = true;
	gs_out_printf(&w->o, "<svg class=\"labels\" width=\"%d\" height=\"%d\">\n", LABEL_W,
		      AXIS_H + L->height);
	/* Room for the axis above the lanes. */
	gs_out_printf(&w->o, "<text class=\"grp\" x=\"0\" y=\"%d\">actual run</text>\n",
		      AXIS_H + 15);
	gs_out_printf(&w->o, "<text class=\"grp\" x=\"0\" y=\"%d\">ideal schedule</text>\n",
		      AXIS_H + L->y_ideal_head + 15);
	for (i = 0; i < L->n_lanes; i++) {
		const struct gs_report_stream *rs = &d->streams[L->lanes[i].st];
		char name[96];

		if (pids)
			snprintf(name, sizeof(name), "stream %llu (pid %lld)",
				 (unsigned long long)rs->stream_id, (long long)rs->pid);
		else
			snprintf(name, sizeof(name), "stream %llu",
				 (unsigned long long)rs->stream_id);
		gs_out_printf(&w->o, "<text x=\"8\" y=\"%d\">%s</text>\n",
			      AXIS_H + L->lanes[i].y_real + BAR_Y + 12, name);
		gs_out_printf(&w->o, "<text x=\"8\" y=\"%d\">%s</text>\n",
			      AXIS_H + L->lanes[i].y_ideal + BAR_Y + 12, name);
	}
	gs_out_printf(&w->o, "<text x=\"8\" y=\"%d\">breakdown</text>\n", AXIS_H + L->y_band + 13);
	gs_out_puts(&w->o, "</svg>\n");
}

static int cmp_lane_busy(const void *pa, const void *pb)
{
	const struct lane *a = pa, *b = pb;

	if (a->busy != b->busy)
		return a->busy > b->busy ? -1 : 1;
	return a->st < b->st ? -1 : a->st > b->st;
}

static int cmp_lane_st(const void *pa, const void *pb)
{
	const struct lane *a = pa, *b = pb;

	return a->st < b->st ? -1 : a->st > b->st;
}

/* The lanes of a device: streams with ops in the window, the busiest
 * LANES_MAX of them, in stream order. */
static gs_status tl_lanes(struct tl *L)
{
	const struct gs_report_device *d = L->d;
	size_t i, n = 0;

	L->lanes = calloc(d->n_streams ? d->n_streams : 1, sizeof(*L->lanes));
	if (!L->lanes) {
		return gs_nomem();
	}
	for (i = 0; i < d->n_streams; i++) {
		if (!d->streams[i].ops)
			continue;
		L->lanes[n].st = i;
		L->lanes[n].busy = d->streams[i].busy_ns;
		n++;
	}
	if (n > LANES_MAX) {
		qsort(L->lanes, n, sizeof(*L->lanes), cmp_lane_busy);
		L->skipped = n - LANES_MAX;
		n = LANES_MAX;
		qsort(L->lanes, n, sizeof(*L->lanes), cmp_lane_st);
	}
	L->n_lanes = n;
	return GS_OK;
}

static void tl_fini(struct tl *L)
{
	free(L->lanes);
	free(L->lane_of);
	free(L->crit);
	free(L->acc);
	free(L->cacc);
}

static gs_status tl_init(struct hw *w, struct tl *L, const struct gs_report_device *d, size_t di)
{
	gs_status st;
	size_t i;
	int y;

	memset(L, 0, sizeof(*L));
	L->d = d;
	L->di = di;
	L->t0 = d->b.window_start;
	L->span = d->b.window_ns;
	if (d->actual_ns > L->span)
		L->span = d->actual_ns;
	if (d->ideal_ns > L->span)
		L->span = d->ideal_ns;
	if (L->span <= 0)
		L->span = 1;
	L->bins = w->bins;
	st = tl_lanes(L);
	if (st != GS_OK)
		return st;
	L->lane_of = malloc((w->n_streams ? w->n_streams : 1) * sizeof(*L->lane_of));
	L->crit = calloc(w->n_ops ? w->n_ops : 1, 1);
	L->acc = calloc(L->bins * GS_OP_KIND_COUNT, sizeof(*L->acc));
	L->cacc = calloc(L->bins, sizeof(*L->cacc));
	if (!L->lane_of || !L->crit || !L->acc || !L->cacc) {
		return gs_nomem();
	}
	for (i = 0; i < w->n_streams; i++)
		L->lane_of[i] = -1;
	for (i = 0; i < L->n_lanes; i++)
		L->lane_of[d->streams[L->lanes[i].st].index] = (int32_t)i;
	for (i = 0; i < d->sched.n_critical; i++)
		if (d->sched.critical_path[i].op < w->n_ops)
			L->crit[d->sched.critical_path[i].op] = 1;

	/* Layout: header, actual lanes, band, header, ideal lanes. */
	y = HEAD;
	for (i = 0; i < L->n_lanes; i++, y += PITCH)
		L->lanes[i].y_real = y;
	y += 6;
	L->y_band = y;
	y += BAND_H + 10;
	L->y_ideal_head = y;
	y += HEAD;
	for (i = 0; i < L->n_lanes; i++, y += PITCH)
		L->lanes[i].y_ideal = y;
	L->height = y + 6;
	L->s = &d->sched;
	L->sched = d->sched.slot_ideal_start != NULL;
	return GS_OK;
}

static gs_status h_timeline(struct hw *w, const struct gs_report_device *d, size_t di)
{
	struct tl L;
	gs_status st;
	size_t i;
	int64_t first = 0, last = 0;

	gs_trace_op_span(w->t, &first, &last);
	st = tl_init(w, &L, d, di);
	if (st != GS_OK) {
		tl_fini(&L);
		return st;
	}
	gs_out_puts(&w->o, "<h3>Timeline</h3>\n");
	gs_out_printf(&w->o, "<div class=\"timeline\" id=\"timeline-%zu\" data-span=\"%lld\">\n",
		      di, (long long)L.span);
	gs_out_printf(&w->o,
		      "<div class=\"tl-ctl\"><button data-z=\"in\" title=\"zoom in\">+</button>"
		      "<button data-z=\"out\" title=\"zoom out\">&minus;</button>"
		      "<button data-z=\"reset\">reset</button>"
		      "<span>wheel: zoom, drag: pan; times from the window start (+%s into the "
		      "trace)</span>"
		      "<span class=\"range\"></span></div>\n",
		      DUR(L.t0 - first));
	gs_out_puts(&w->o, "<div class=\"tl-body\">\n");
	draw_labels(w, &L);
	gs_out_puts(&w->o, "<div class=\"tl-plot\">\n");
	draw_axis(w, &L);
	gs_out_printf(&w->o,
		      "<svg class=\"lanes\" id=\"lanes-%zu\" viewBox=\"0 0 %d %d\" height=\"%d\" "
		      "preserveAspectRatio=\"none\">\n",
		      di, XMAX, L.height, L.height);
	/* Group separators and the end of the ideal schedule. */
	gs_out_printf(&w->o, "<line class=\"sep\" x1=\"0\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", XMAX,
		      L.y_ideal_head + 2, L.y_ideal_head + 2);
	for (i = 0; i < L.n_lanes; i++)
		draw_lane(w, &L, &L.lanes[i], false);
	if (!draw_band(w, &L)) {
		tl_fini(&L);
		return gs_nomem();
	}
	for (i = 0; i < L.n_lanes; i++)
		draw_lane(w, &L, &L.lanes[i], true);
	if (L.n_lanes && d->ideal_ns > 0) {
		int64_t x = x_of(&L, d->ideal_ns);

		gs_out_printf(&w->o,
			      "<line class=\"mark\" x1=\"%lld\" x2=\"%lld\" y1=\"%d\" y2=\"%d\">"
			      "<title>ideal makespan %s</title></line>\n",
			      (long long)x, (long long)x, L.y_ideal_head + HEAD - 2, L.height - 2,
			      DUR(d->ideal_ns));
	}
	draw_waits(w, &L);
	gs_out_puts(&w->o, "</svg>\n</div>\n</div>\n");
	/* Legend. */
	gs_out_puts(&w->o,
		    "<div class=\"legend\"><span><span class=\"sw c-kernel\"></span>kernel</span>"
		    "<span><span class=\"sw c-copy\"></span>memcpy</span>"
		    "<span><span class=\"sw c-memset\"></span>memset</span>"
		    "<span><span class=\"sw c-crit\"></span>critical path (strip above the "
		    "op)</span>"
		    "<span><span class=\"sw c-wait\"></span>wait (dashed: consumer ready, held "
		    "back)</span>"
		    "<span>band: <span class=\"sw c-kernel\"></span>kernel "
		    "<span class=\"sw c-copy\"></span>exposed copy "
		    "<span class=\"sw c-sync\"></span>sync <span class=\"sw c-idle\"></span>idle"
		    "</span></div>\n");
	gs_out_printf(&w->o,
		      "<p class=\"more\">ideal schedule: the same ops with the same "
		      "durations and dependencies, without host or launch cost; it ends at %s "
		      "(actual %s, efficiency %s).",
		      DUR(d->ideal_ns), DUR(d->actual_ns),
		      gs_report_eff_text(d, (char[32]){0}, 32));
	if (!w->exact)
		gs_out_printf(&w->o,
			      " Drawn in %zu slices per lane (%s each): a slice takes the colour "
			      "of the op kind that ran longest in it, paler when the stream was "
			      "busy for less of it.",
			      L.bins, DUR(L.span / (int64_t)L.bins));
	if (L.skipped)
		gs_out_printf(&w->o, " %zu less busy stream%s not drawn (see Streams).", L.skipped,
			      L.skipped == 1 ? "" : "s");
	if (d->wait_count > WAITS_DRAWN || d->n_waits < d->wait_count)
		gs_out_printf(&w->o, " The %zu longest of %zu waits are drawn.",
			      d->n_waits < WAITS_DRAWN ? d->n_waits : (size_t)WAITS_DRAWN,
			      d->wait_count);
	gs_out_puts(&w->o, "</p>\n</div>\n");
	tl_fini(&L);
	return GS_OK;
}

/* ---- tables ------------------------------------------------------------------ */

/* A list cut to --rows entries (listed of count): "N of M shown". */
static void cut_rows(struct hw *w, size_t shown, size_t listed, size_t count)
{
	if (listed < count)
		gs_out_printf(&w->o,
			      "<p class=\"more\">%zu of %zu shown (--top N; the report keeps %zu, "
			      "--rows N or --rows all for more)</p>\n",
			      shown, count, listed);
}

static void more_rows(struct hw *w, size_t shown, size_t n)
{
	if (shown < n)
		gs_out_printf(&w->o,
			      "<p class=\"more\">%zu more (--top N for more rows, --format json "
			      "for all)</p>\n",
			      n - shown);
}

/* "label [s7]" for a table cell. */
static void op_cell(struct hw *w, uint32_t op)
{
	char label[128];

	gs_out_puts(&w->o, "<td class=\"name\">");
	h_text(w, op_label(w, op, label, sizeof(label)), NAME_MAX_CPS);
	gs_out_printf(&w->o, " <span class=\"met\">[s%llu, op %llu]</span></td>",
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

static void h_schedule(struct hw *w, const struct gs_report_device *d, size_t di)
{
	const struct gs_what_if *p = &d->pipelined;
	size_t i;
	unsigned c;
	bool any = false;

	gs_out_puts(&w->o, "<h3>Schedule</h3>\n");
	gs_out_printf(&w->o,
		      "<table class=\"tbl\" id=\"schedule-%zu\"><tbody>\n"
		      "<tr><td>actual</td><td class=\"n\">%s</td><td>as recorded</td></tr>\n"
		      "<tr><td>dependency bound</td><td class=\"n\">%s</td><td>every edge, no "
		      "host or launch cost, unlimited resources</td></tr>\n"
		      "<tr><td>ideal</td><td class=\"n\">%s</td><td>with copy engines HtoD %u, "
		      "DtoH %u</td></tr>\n"
		      "<tr><td>efficiency</td><td class=\"n\">%s</td><td>%s</td></tr>\n",
		      di, DUR(d->actual_ns), DUR(d->dependency_bound_ns), DUR(d->ideal_ns),
		      d->copy_engines[GS_COPY_HTOD], d->copy_engines[GS_COPY_DTOH],
		      gs_report_eff_text(d, (char[32]){0}, 32), eff_note(d));
	if (p->name && p->makespan_ns > 0) {
		char phrase[224];

		gs_out_printf(&w->o,
			      "<tr><td>pipelined batches</td><td class=\"n\">%s</td><td>%zu "
			      "batch%s, ",
			      DUR(p->makespan_ns), p->batches, p->batches == 1 ? "" : "es");
		gs_report_html_sentence(&w->o, gs_report_whatif_text(p, p->batches < 2, phrase,
								     sizeof(phrase)));
		for (i = 0; i < p->n_preconditions && i < 4; i++)
			gs_out_printf(&w->o, "%s%s", i ? ", " : "; needs ",
				      p->preconditions[i] ? p->preconditions[i] : "?");
		gs_out_puts(&w->o, "</td></tr>\n");
	}
	if (d->replay.name) {
		char phrase[224];

		gs_out_printf(&w->o,
			      "<tr><td>CUDA Graph replay</td><td class=\"n\">%s</td><td>%zu "
			      "candidate%s, %s per node; ",
			      DUR(d->replay.makespan_ns), d->n_cands, d->n_cands == 1 ? "" : "s",
			      DUR(w->r->graph_node_ns));
		gs_report_html_sentence(&w->o, gs_report_whatif_text(&d->replay, false, phrase,
								     sizeof(phrase)));
		gs_out_puts(&w->o, "</td></tr>\n");
	}
	gs_out_puts(&w->o, "<tr><td>ops bound by</td><td></td><td>");
	for (c = 0; c < GS_BOUND_COUNT; c++) {
		if (!d->bound_ops[c] || c == GS_BOUND_NONE)
			continue;
		gs_out_printf(&w->o, "%s%s %llu", any ? ", " : "", gs_constraint_name(c),
			      (unsigned long long)d->bound_ops[c]);
		any = true;
	}
	gs_out_puts(&w->o, any ? "</td></tr>\n" : "-</td></tr>\n");
	gs_out_puts(&w->o, "</tbody></table>\n");
}

static gs_status h_critical(struct hw *w, const struct gs_report_device *d, size_t di)
{
	size_t shown = d->n_critical < w->st.top ? d->n_critical : w->st.top, k;
	const size_t *order = d->critical_rank; /* longest first */

	gs_out_printf(&w->o, "<h3>Critical path (%zu ops, %s; the longest)</h3>\n",
		      d->critical_count, DUR(d->critical_ns));
	if (!d->n_critical) {
		gs_out_printf(&w->o, "<p class=\"none\" id=\"critical-%zu\">no ops</p>\n", di);
		return GS_OK;
	}
	gs_out_printf(
		&w->o,
		"<table class=\"tbl\" id=\"critical-%zu\"><thead><tr><th class=\"n\">step</th>"
		"<th class=\"n\">time</th><th>kind</th><th>op</th></tr></thead><tbody>\n",
		di);
	for (k = 0; k < shown; k++) {
		uint32_t op = d->critical[order[k]].op;

		gs_out_printf(&w->o,
			      "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td><td>%s</td>",
			      d->critical_step[order[k]] + 1, DUR(d->critical[order[k]].ns),
			      op < w->n_ops ? gs_op_kind_name(w->ops[op].kind) : "?");
		op_cell(w, op);
		gs_out_puts(&w->o, "</tr>\n");
	}
	gs_out_puts(&w->o, "</tbody></table>\n");
	if (d->n_critical < d->critical_count)
		cut_rows(w, shown, d->n_critical, d->critical_count);
	else
		more_rows(w, shown, d->n_critical);
	return GS_OK;
}

static void h_waits(struct hw *w, const struct gs_report_device *d, size_t di)
{
	const struct gs_report *r = w->r;
	size_t i, shown = d->n_waits < w->st.top ? d->n_waits : w->st.top;

	gs_out_printf(&w->o, "<h3>Waits (%zu, %s in total; consumer held back by producer)</h3>\n",
		      d->wait_count, DUR(d->wait_ns));
	if (!d->n_waits) {
		gs_out_printf(&w->o, "<p class=\"none\" id=\"waits-%zu\">no waits</p>\n", di);
		return;
	}
	gs_out_printf(&w->o,
		      "<table class=\"tbl\" id=\"waits-%zu\"><thead><tr><th class=\"n\">#</th>"
		      "<th class=\"n\">wait</th><th>kind</th><th>consumer</th><th>producer</th>"
		      "</tr></thead><tbody>\n",
		      di);
	for (i = 0; i < shown; i++) {
		const struct gs_wait *x = &r->waits[d->waits[i]];

		gs_out_printf(&w->o,
			      "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td><td>%s</td>",
			      i + 1, DUR(x->wait_ns), gs_edge_kind_name(x->kind));
		op_cell(w, x->consumer);
		op_cell(w, x->producer);
		gs_out_puts(&w->o, "</tr>\n");
	}
	gs_out_puts(&w->o, "</tbody></table>\n");
	if (d->n_waits < d->wait_count)
		cut_rows(w, shown, d->n_waits, d->wait_count);
	else
		more_rows(w, shown, d->n_waits);
}

static void h_missed(struct hw *w, const struct gs_report_device *d, size_t di)
{
	static const char *const cond[3] = {"pinned_memory", "independent", "concurrent_resources"};
	size_t i, shown = d->n_missed < w->st.top ? d->n_missed : w->st.top;

	if (d->n_possible)
		gs_out_printf(&w->o,
			      "<h3>Missed overlap (%zu exposed cop%s a kernel could have hidden, "
			      "%llu possible: %s, up to %s hideable)</h3>\n",
			      d->missed_count, d->missed_count == 1 ? "y" : "ies",
			      (unsigned long long)d->n_possible, DUR(d->missed_exposed_ns),
			      DUR(d->missed_hideable_ns));
	else
		gs_out_printf(&w->o,
			      "<h3>Missed overlap (%zu exposed cop%s a kernel could have hidden: "
			      "%s, %s hideable)</h3>\n",
			      d->missed_count, d->missed_count == 1 ? "y" : "ies",
			      DUR(d->missed_exposed_ns), DUR(d->missed_hideable_ns));
	if (!d->n_missed) {
		gs_out_printf(&w->o, "<p class=\"none\" id=\"missed-%zu\">no missed overlap</p>\n",
			      di);
		return;
	}
	gs_out_printf(&w->o,
		      "<table class=\"tbl\" id=\"missed-%zu\"><thead><tr><th class=\"n\">#</th>"
		      "<th class=\"n\">exposed</th><th class=\"n\">hideable</th><th>copy</th>"
		      "<th>could hide under</th><th>bound by</th><th>conditions</th></tr></thead>"
		      "<tbody>\n",
		      di);
	for (i = 0; i < shown; i++) {
		const struct gs_missed_overlap *m = &d->missed[i];
		unsigned bit;

		gs_out_printf(&w->o,
			      "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td>"
			      "<td class=\"n\">%s%s</td>",
			      i + 1, DUR(m->exposed_ns), m->unknown ? "up to " : "",
			      DUR(m->hideable_ns));
		op_cell(w, m->op);
		if (m->kernel != GS_NO_INDEX && m->kernel < w->n_ops)
			op_cell(w, m->kernel);
		else
			gs_out_puts(&w->o, "<td>-</td>");
		gs_out_printf(&w->o, "<td>%s</td><td>", gs_constraint_name(m->bound_by));
		for (bit = 0; bit < 3; bit++) {
			bool miss = (m->missing & (1u << bit)) != 0;
			bool unk = !miss && (m->unknown & (1u << bit)) != 0;
			bool unv = (m->unverified & (1u << bit)) != 0;

			gs_out_printf(&w->o, "%s<span class=\"%s\">%s %s%s</span>",
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
		gs_out_puts(&w->o, "</td></tr>\n");
	}
	gs_out_puts(&w->o, "</tbody></table>\n");
	if (d->n_missed < d->missed_count)
		cut_rows(w, shown, d->n_missed, d->missed_count);
	else
		more_rows(w, shown, d->n_missed);
	gs_out_puts(&w->o, "<p class=\"more\">A copy hides under a kernel only when all three "
			   "hold: pinned_memory (the host side is pinned), independent (no "
			   "dependency path to the kernel), concurrent_resources (another stream "
			   "and a free copy engine).</p>\n");
	if (d->n_possible)
		gs_out_puts(&w->o,
			    "<p class=\"more\">? unknown: only stream order joins the copy "
			    "and the kernel and no data dependencies are recorded (or the "
			    "memory kind is not): a possible missed overlap, its hideable time "
			    "an upper bound (up to).</p>\n");
}

static void call_rows(struct hw *w, const struct gs_host_call_time *h, size_t n, const char *unit)
{
	size_t i, shown = n < w->st.top ? n : w->st.top;

	for (i = 0; i < shown; i++) {
		gs_out_puts(&w->o, "<tr><td class=\"name\">");
		h_text(w, gs_trace_string(w->t, h[i].name), NAME_MAX_CPS);
		gs_out_printf(&w->o,
			      "</td><td class=\"n\">%s</td><td class=\"n\">%llu %s%s</td></tr>\n",
			      DUR(h[i].ns), (unsigned long long)h[i].count, unit,
			      h[i].count == 1 ? "" : "s");
	}
}

/* Host-bound idle by the launching thread's innermost host ranges. */
static void h_host_ranges(struct hw *w, const struct gs_breakdown *b, size_t di)
{
	const struct gs_host_ranges *h = &b->host_ranges;
	size_t i, shown = h->n_ranges < w->st.top ? h->n_ranges : w->st.top;

	if (!h->n_ranges)
		return;
	gs_out_printf(
		&w->o,
		"<p class=\"meta\">Host ranges the launching thread was in during "
		"host-bound idle (innermost):</p>\n<table class=\"tbl\" id=\"hostranges-%zu\">"
		"<thead><tr><th>range</th><th>kind</th><th class=\"n\">time</th>"
		"<th class=\"n\">of host-bound</th><th class=\"n\">in</th></tr></thead>"
		"<tbody>\n",
		di);
	for (i = 0; i < shown; i++) {
		const struct gs_host_range_time *x = &h->ranges[i];

		gs_out_puts(&w->o, "<tr><td class=\"name\">");
		h_text(w, gs_trace_string(w->t, x->name), NAME_MAX_CPS);
		gs_out_printf(&w->o,
			      "</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			      "<td class=\"n\">%llu gap%s</td></tr>\n",
			      gs_range_kind_name(x->kind), DUR(x->ns), PCT(x->ns, b->host_bound_ns),
			      (unsigned long long)x->gaps, x->gaps == 1 ? "" : "s");
	}
	gs_out_printf(&w->o,
		      "<tr><td>(outside any host range)</td><td></td><td class=\"n\">%s</td>"
		      "<td class=\"n\">%s</td><td></td></tr>\n</tbody></table>\n",
		      DUR(h->outside_ns), PCT(h->outside_ns, b->host_bound_ns));
	more_rows(w, shown, h->n_ranges);
}

static void h_idle(struct hw *w, const struct gs_report_device *d, size_t di)
{
	const struct gs_breakdown *b = &d->b;
	int64_t idle = b->total_ns[GS_CAT_IDLE];

	gs_out_printf(&w->o, "<h3>Idle attribution (%s idle: what held the next op back)</h3>\n",
		      DUR(idle));
	gs_out_printf(&w->o,
		      "<table class=\"tbl\" id=\"idle-%zu\"><thead><tr><th>cause</th>"
		      "<th class=\"n\">time</th><th class=\"n\">of idle</th><th>meaning</th></tr>"
		      "</thead><tbody>\n"
		      "<tr><td>host-bound</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		      "<td>the host had not launched the next op yet</td></tr>\n"
		      "<tr><td>launch latency</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		      "<td>launched, not started yet</td></tr>\n"
		      "<tr><td>unattributed</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
		      "<td>no launch call recorded</td></tr>\n</tbody></table>\n",
		      di, DUR(b->host_bound_ns), PCT(b->host_bound_ns, idle),
		      DUR(b->launch_latency_ns), PCT(b->launch_latency_ns, idle),
		      DUR(b->unattributed_ns), PCT(b->unattributed_ns, idle));
	h_host_ranges(w, b, di);
	if (b->n_top_host_calls) {
		gs_out_printf(&w->o,
			      "<p class=\"meta\">CUDA calls the launching thread was in during "
			      "host-bound idle:</p>\n<table class=\"tbl\" id=\"idlecalls-%zu\">"
			      "<thead><tr><th>call</th><th class=\"n\">time</th><th class=\"n\">in"
			      "</th></tr></thead><tbody>\n",
			      di);
		call_rows(w, b->top_host_calls, b->n_top_host_calls, "gap");
		gs_out_puts(&w->o, "</tbody></table>\n");
		more_rows(w, b->n_top_host_calls < w->st.top ? b->n_top_host_calls : w->st.top,
			  b->n_top_host_calls);
	}
	if (d->n_sync_calls) {
		gs_out_printf(&w->o,
			      "<h3>Sync attribution (CUDA calls the host was in while the device "
			      "sat idle)</h3>\n<table class=\"tbl\" id=\"sync-%zu\"><thead><tr>"
			      "<th>call</th><th class=\"n\">time</th><th class=\"n\">in</th></tr>"
			      "</thead><tbody>\n",
			      di);
		call_rows(w, d->sync_calls, d->n_sync_calls, "call");
		gs_out_puts(&w->o, "</tbody></table>\n");
		more_rows(w, d->n_sync_calls < w->st.top ? d->n_sync_calls : w->st.top,
			  d->n_sync_calls);
	}
	if (d->pageable_copies)
		gs_out_printf(&w->o,
			      "<p class=\"meta\">%llu copies use pageable host memory (HtoD %llu, "
			      "DtoH %llu): each blocks its host thread.</p>\n",
			      (unsigned long long)d->pageable_copies,
			      (unsigned long long)d->pageable_by_dir[GS_COPY_HTOD],
			      (unsigned long long)d->pageable_by_dir[GS_COPY_DTOH]);
}

static void h_candidates(struct hw *w, const struct gs_report_device *d, size_t di)
{
	size_t i, k, shown = d->n_cands < w->st.top ? d->n_cands : w->st.top;

	gs_out_puts(&w->o, "<h3>CUDA Graph candidates (repeated kernel sequences)</h3>\n");
	if (!d->n_cands) {
		gs_out_printf(&w->o,
			      "<p class=\"none\" id=\"candidates-%zu\">no kernel sequence repeats "
			      "three times or more</p>\n",
			      di);
		return;
	}
	gs_out_printf(&w->o,
		      "<table class=\"tbl\" id=\"candidates-%zu\"><thead><tr><th class=\"n\">#</th>"
		      "<th class=\"n\">stream</th><th class=\"n\">kernels</th><th class=\"n\">"
		      "repeats</th><th class=\"n\">gaps</th><th class=\"n\">mean gap</th>"
		      "<th>sequence</th></tr></thead><tbody>\n",
		      di);
	for (i = 0; i < shown; i++) {
		const struct gs_cudagraph_candidate *c = &d->cands[i];
		uint64_t gaps = (uint64_t)c->repetitions * (c->length > 1 ? c->length - 1 : 1);

		gs_out_printf(&w->o,
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
			gs_out_puts(&w->o, "<i>(already a graph)</i> ");
		for (k = 0; k < c->length && k < 12; k++) {
			if (k)
				gs_out_puts(&w->o, " &rsaquo; ");
			h_text(w,
			       c->kernels[k] < w->n_ops ?
				       gs_trace_string(w->t, w->ops[c->kernels[k]].name) :
				       "?",
			       40);
		}
		if (c->length > 12)
			gs_out_printf(&w->o, " &rsaquo; &hellip; (%zu more)", c->length - 12);
		gs_out_puts(&w->o, "</td></tr>\n");
	}
	gs_out_puts(&w->o, "</tbody></table>\n");
	more_rows(w, shown, d->n_cands);
	if (d->cand_replay_done) {
		gs_out_printf(&w->o, "<p class=\"more\">Each replayed from a graph (%s per node):",
			      DUR(w->r->graph_node_ns));
		for (i = 0; i < shown; i++)
			if (d->cand_replay_done[i])
				gs_out_printf(&w->o, "%s #%zu saves %s (%s vs the ideal)",
					      i ? "," : "", i + 1, DUR(d->cand_replay[i].saving_ns),
					      DUR(d->cand_replay[i].saving_vs_ideal_ns));
		gs_out_puts(&w->o, ".</p>\n");
	}
	gs_out_printf(&w->o,
		      "<p class=\"more\">A mean gap over %s is not launch overhead: a graph would "
		      "not remove it.</p>\n",
		      DUR(GS_REPORT_LAUNCH_GAP_NS));
}

static void h_streams(struct hw *w, const struct gs_report_device *d, size_t di)
{
	size_t i;

	gs_out_printf(&w->o,
		      "<h3>Streams</h3>\n<table class=\"tbl\" id=\"streams-%zu\"><thead><tr>"
		      "<th class=\"n\">stream</th><th>kind</th><th class=\"n\">prio</th>"
		      "<th class=\"n\">ops</th><th class=\"n\">kernel time</th><th class=\"n\">"
		      "copy time</th><th class=\"n\">busy</th><th class=\"n\">pid</th></tr></thead>"
		      "<tbody>\n",
		      di);
	for (i = 0; i < d->n_streams; i++) {
		const struct gs_report_stream *s = &d->streams[i];

		gs_out_printf(&w->o,
			      "<tr><td class=\"n\">%llu</td><td>%s</td><td class=\"n\">%d</td>"
			      "<td class=\"n\">%llu</td><td class=\"n\">%s</td><td class=\"n\">%s"
			      "</td><td class=\"n\">%s</td><td class=\"n\">%lld</td></tr>\n",
			      (unsigned long long)s->stream_id, gs_stream_kind_name(s->kind),
			      s->priority, (unsigned long long)s->ops, DUR(s->kernel_ns),
			      DUR(s->copy_ns), PCT(s->busy_ns, d->b.window_ns), (long long)s->pid);
	}
	gs_out_puts(&w->o, "</tbody></table>\n");
}

static void h_kernels(struct hw *w, const struct gs_report_device *d, size_t di)
{
	size_t i, shown = d->n_kernels < w->st.top ? d->n_kernels : w->st.top;
	int64_t all = 0;

	for (i = 0; i < d->n_kernels; i++)
		all += d->kernels[i].ns;
	gs_out_printf(&w->o, "<h3>Kernels by time (%zu name%s, %s)</h3>\n", d->n_kernels,
		      d->n_kernels == 1 ? "" : "s", DUR(all));
	if (!d->n_kernels) {
		gs_out_printf(&w->o, "<p class=\"none\" id=\"kernels-%zu\">no kernels</p>\n", di);
		return;
	}
	gs_out_printf(&w->o,
		      "<table class=\"tbl\" id=\"kernels-%zu\"><thead><tr><th class=\"n\">#</th>"
		      "<th class=\"n\">time</th><th class=\"n\">share</th><th class=\"n\">count"
		      "</th><th class=\"n\">mean</th><th class=\"n\">max</th><th>class</th>"
		      "<th>name</th></tr>"
		      "</thead><tbody>\n",
		      di);
	for (i = 0; i < shown; i++) {
		const struct gs_report_kernel *k = &d->kernels[i];

		gs_out_printf(&w->o,
			      "<tr><td class=\"n\">%zu</td><td class=\"n\">%s</td><td class=\"n\">"
			      "%s</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>"
			      "<td class=\"n\">%s</td><td>%s</td><td class=\"name\">",
			      i + 1, DUR(k->ns), PCT(k->ns, all), (unsigned long long)k->count,
			      DUR(k->count ? k->ns / (int64_t)k->count : 0), DUR(k->max_ns),
			      gs_kernel_class_name(k->cls));
		h_text(w, gs_trace_string(w->t, k->name), 0);
		gs_out_puts(&w->o, "</td></tr>\n");
	}
	gs_out_puts(&w->o, "</tbody></table>\n");
	more_rows(w, shown, d->n_kernels);
}

/* ---- a device ------------------------------------------------------------------ */

static gs_status h_device(struct hw *w, const struct gs_report_device *d, size_t di)
{
	const char *sep = " (";
	gs_status st;
	unsigned k;

	char title[512];

	gs_out_printf(&w->o, "<section class=\"device\" id=\"dev-%zu\">\n<h2>", di);
	h_text(w, gs_report_device_title(w->r, d, title, sizeof(title)), 160);
	gs_out_printf(&w->o, "</h2>\n<p class=\"meta\">window %s%s; ",
		      gs_report_window_text(w->t, d, (char[160]){0}, 160),
		      d->default_window ? " (first op start to last op end)" : " (--window)");
	gs_out_printf(&w->o, "%llu ops", (unsigned long long)d->ops);
	for (k = 0; k < GS_OP_KIND_COUNT; k++) {
		if (!d->op_kinds[k])
			continue;
		gs_out_printf(&w->o, "%s%s %llu", sep, gs_op_kind_name(k),
			      (unsigned long long)d->op_kinds[k]);
		sep = ", ";
	}
	gs_out_printf(&w->o, "%s on %zu stream%s</p>\n", sep[0] == ',' ? ")" : "", d->n_streams,
		      d->n_streams == 1 ? "" : "s");
	h_breakdown(w, d, di);
	h_findings(w, d, di);
	st = h_timeline(w, d, di);
	if (st != GS_OK)
		return st;
	h_schedule(w, d, di);
	st = h_critical(w, d, di);
	if (st != GS_OK)
		return st;
	h_waits(w, d, di);
	h_missed(w, d, di);
	h_idle(w, d, di);
	h_candidates(w, d, di);
	h_streams(w, d, di);
	h_kernels(w, d, di);
	gs_measures_write_html(&w->o, w->r, d, di, &w->st);
	gs_out_puts(&w->o, "</section>\n");
	return GS_OK;
}

void gs_report_html_rank_load(const struct gs_report *r, uint64_t *ops, uint64_t *lanes)
{
	*ops = 0;
	*lanes = 0;
	for (size_t i = 0; i < r->n_dev; i++) {
		size_t n = 0;

		*ops += r->dev[i].ops;
		for (size_t k = 0; k < r->dev[i].n_streams; k++)
			if (r->dev[i].streams[k].ops)
				n++;
		*lanes += 2 * (n < LANES_MAX ? n : LANES_MAX) + 1;
	}
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
	size_t n = 0;
	const struct gs_js_rank *const *sums = shell->ja ? gs_job_analysis_ranks(shell->ja, &n) :
							   NULL;
	uint64_t ops = 0, lanes = 0;

	for (size_t i = 0; sums && i < n; i++) {
		ops += sums[i]->html_ops;
		lanes += sums[i]->html_lanes;
	}
	return gs_report_html_layout(ops, lanes);
}

/* Drawing resolution for the whole page (see the top of the file). */
static void pick_resolution(struct hw *w)
{
	const struct gs_report *job = w->r;
	const struct gs_report *const *reps =
		job->job ? (const struct gs_report *const *)job->ranks : &job;
	size_t n_reps = job->job ? job->n_ranks : 1;
	uint64_t ops = 0, lanes = 0;
	struct gs_html_layout L;

	for (size_t x = 0; x < n_reps; x++) {
		uint64_t o, l;

		gs_report_html_rank_load(reps[x], &o, &l);
		ops += o;
		lanes += l;
	}
	L = gs_report_html_layout(ops, lanes);
	w->exact = L.exact;
	w->bins = (size_t)L.bins;
}

/*
 * A job's page is written from parts: the head and the job section from
 * the job report alone, and per rank, in rank order, its warnings (part 0,
 * in the head's notes) and its GPUs' sections (part 1). The ranks' numbers
 * the head needs (ops, GPUs) come from the ranks' reports when the report
 * holds them, else from the summaries of its job analysis (a shell's);
 * both are the same numbers.
 */
typedef gs_status (*h_part_fn)(void *ctx, unsigned part, size_t i, struct gs_out *o);

static size_t hj_n(const struct gs_report *r, const struct gs_js_rank *const *sums, size_t n)
{
	return sums ? n : r->n_ranks;
}

static uint32_t hj_rank(const struct gs_report *r, const struct gs_js_rank *const *sums, size_t i)
{
	return sums ? sums[i]->rank : r->ranks[i]->rank;
}

static size_t hj_n_dev(const struct gs_report *r, const struct gs_js_rank *const *sums, size_t i)
{
	return sums ? (size_t)sums[i]->n_gpus : r->ranks[i]->n_dev;
}

static uint32_t hj_device(const struct gs_report *r, const struct gs_js_rank *const *sums, size_t i,
			  size_t k)
{
	return sums ? sums[i]->gpus[k].device : r->ranks[i]->dev[k].device;
}

static uint64_t hj_ops(const struct gs_report *r, const struct gs_js_rank *const *sums, size_t i)
{
	size_t n;

	if (sums)
		return sums[i]->ops;
	gs_trace_ops(r->ranks[i]->t, &n);
	return n;
}

/* The page of a job of two or more ranks: its notes, the job, then every
 * GPU of every rank, each section as for one process. */
static gs_status h_job(struct hw *w, const struct gs_report *r, h_part_fn part, void *ctx)
{
	const struct gs_job *j = r->job;
	const struct gs_js_rank *const *sums = NULL;
	char title[512];
	size_t n_sums = 0, n, gpus = 0, i, k, di = 0;
	uint64_t ops = 0;
	gs_status st = GS_OK;

	if (!r->n_ranks && r->ja)
		sums = gs_job_analysis_ranks(r->ja, &n_sums);
	n = hj_n(r, sums, n_sums);
	for (i = 0; i < n; i++) {
		ops += hj_ops(r, sums, i);
		gpus += hj_n_dev(r, sums, i);
	}
	gs_out_puts(&w->o,
		    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
		    "<meta name=\"generator\" content=\"gpuscope analyze\">\n<title>gpuscope: ");
	gs_out_printf(&w->o, "job of %zu ranks</title>\n", j->n_ranks);
	gs_out_puts(&w->o, css);
	gs_out_puts(&w->o, script_head);
	gs_out_puts(&w->o,
		    "</head>\n<body>\n<header>\n<h1>gpuscope analyze</h1>\n<p class=\"meta\">");
	gs_out_printf(&w->o, "%zu input%s (", r->n_inputs, r->n_inputs == 1 ? "" : "s");
	h_text(w, r->format && *r->format ? r->format : "?", 40);
	gs_out_printf(&w->o, "), %zu ranks, %zu GPU%s with ops, %llu ops</p>\n", j->n_ranks, gpus,
		      gpus == 1 ? "" : "s", (unsigned long long)ops);
	gs_out_puts(&w->o, "<ul class=\"notes\" id=\"notes\">\n");
	/* A thousand ranks: the first inputs, and how many more. */
	for (i = 0; i < r->n_inputs && i < 4; i++) {
		gs_out_puts(&w->o, "<li><b>input:</b> ");
		h_text(w, r->inputs[i], 0);
		gs_out_puts(&w->o, "</li>\n");
	}
	if (r->n_inputs > 4)
		gs_out_printf(&w->o, "<li><b>input:</b> ... and %zu more</li>\n", r->n_inputs - 4);
	for (i = 0; i < j->n_warnings; i++) {
		gs_out_puts(&w->o, "<li><b>warning:</b> ");
		h_text(w, j->warnings[i], 0);
		gs_out_puts(&w->o, "</li>\n");
	}
	for (i = 0; i < n && st == GS_OK; i++)
		st = part(ctx, 0, i, &w->o);
	gs_out_puts(&w->o, "</ul>\n<nav>");
	for (i = 0; i < n; i++)
		for (k = 0; k < hj_n_dev(r, sums, i); k++) {
			gs_out_printf(&w->o, "<a href=\"#dev-%zu\">", di++);
			snprintf(title, sizeof(title), "rank %u GPU %u", hj_rank(r, sums, i),
				 hj_device(r, sums, i, k));
			h_text(w, title, 0);
			gs_out_puts(&w->o, "</a>");
		}
	gs_out_puts(&w->o, "</nav>\n</header>\n");
	gs_job_analysis_write_html(&w->o, r, &w->st);
	for (i = 0; i < n && st == GS_OK && !w->o.failed; i++)
		st = part(ctx, 1, i, &w->o);
	gs_out_puts(&w->o, script_body);
	gs_out_puts(&w->o, "</body>\n</html>\n");
	return st;
}

/* Part `part` of one rank of a job (see h_job); `di0` the index of its
 * first GPU on the page. */
static gs_status h_rank_part(struct hw *w, const struct gs_report *rank, size_t di0, unsigned part)
{
	char line[GS_ERROR_MSG_MAX + 96], msg[GS_ERROR_MSG_MAX + 64];
	gs_status st = GS_OK;
	size_t n;

	w->r = rank;
	w->t = rank->t;
	w->ops = gs_trace_ops(w->t, &w->n_ops);
	w->streams = gs_trace_streams(w->t, &w->n_streams);
	if (part == 0) {
		const struct gs_warning *warn = gs_trace_warnings(rank->t, &n);

		for (size_t x = 0; x < n; x++) {
			snprintf(line, sizeof(line), "rank %u: %s", rank->rank,
				 gs_warning_format(&warn[x], msg, sizeof(msg)));
			gs_out_puts(&w->o, "<li><b>warning:</b> ");
			h_text(w, line, 0);
			gs_out_puts(&w->o, "</li>\n");
		}
		return GS_OK;
	}
	for (size_t k = 0; k < rank->n_dev && st == GS_OK && !w->o.failed; k++)
		st = h_device(w, &rank->dev[k], di0 + k);
	return st;
}

/* The parts of a job whose ranks' reports this report holds. */
struct h_own {
	struct hw *w;
	const struct gs_report *job;
	size_t di; /* the next rank's first GPU, as part 1 goes in rank order */
};

static gs_status h_own_part(void *ctx, unsigned part, size_t i, struct gs_out *o)
{
	struct h_own *c = ctx;
	const struct gs_report *rank = c->job->ranks[i];
	gs_status st;

	(void)o; /* c->w->o */
	st = h_rank_part(c->w, rank, c->di, part);
	if (part == 1)
		c->di += rank->n_dev;
	c->w->r = c->job;
	return st;
}

gs_status
gs_report_html_job_parts(FILE *f, const struct gs_report *shell, const struct gs_html_layout *L,
			 const struct gs_report_style *style,
			 gs_status (*part)(void *ctx, unsigned part, size_t i, struct gs_out *o),
			 void *ctx)
{
	struct hw w;
	gs_status st;

	memset(&w, 0, sizeof(w));
	gs_out_init(&w.o, f);
	w.r = shell;
	w.st = gs_report_style_of(style);
	w.exact = L->exact != 0;
	w.bins = (size_t)L->bins;
	st = h_job(&w, shell, part, ctx);
	if (st != GS_OK) {
		gs_out_finish(&w.o);
		return st;
	}
	return gs_out_finish(&w.o);
}

gs_status gs_report_html_rank_part(FILE *f, const struct gs_report *rank,
				   const struct gs_html_layout *L, size_t di0, unsigned part,
				   const struct gs_report_style *style)
{
	struct hw w;
	gs_status st;

	memset(&w, 0, sizeof(w));
	gs_out_init(&w.o, f);
	w.st = gs_report_style_of(style);
	w.exact = L->exact != 0;
	w.bins = (size_t)L->bins;
	st = h_rank_part(&w, rank, di0, part);
	if (st != GS_OK) {
		gs_out_finish(&w.o);
		return st;
	}
	return gs_out_finish(&w.o);
}

gs_status gs_report_write_html(FILE *f, const struct gs_report *r,
			       const struct gs_report_style *style)
{
	struct hw w;
	gs_status st = GS_OK;
	size_t i;

	if (!f || !r) {
		gs_error_append("gs_report_write_html: no output or no report");
		return GS_ERR_INVALID;
	}
	if (r->job && r->n_ranks == 1 && !r->ranks[0]->in_job)
		return gs_report_write_html(f, r->ranks[0], style);
	memset(&w, 0, sizeof(w));
	w.st = gs_report_style_of(style);
	if (r->job) {
		struct h_own c = {&w, r, 0};

		gs_out_init(&w.o, f);
		w.r = r;
		pick_resolution(&w);
		st = h_job(&w, r, h_own_part, &c);
		if (st != GS_OK) {
			gs_out_finish(&w.o);
			return st;
		}
		return gs_out_finish(&w.o);
	}
	gs_out_init(&w.o, f);
	w.r = r;
	w.t = r->t;
	w.ops = gs_trace_ops(r->t, &w.n_ops);
	w.streams = gs_trace_streams(r->t, &w.n_streams);
	pick_resolution(&w);
	h_head(&w);
	if (!r->n_dev)
		gs_out_puts(&w.o, "<p class=\"none\" id=\"nodev\">No GPU ops in the trace: nothing "
				  "to analyze (a host-only trace?)</p>\n");
	for (i = 0; i < r->n_dev && st == GS_OK && !w.o.failed; i++)
		st = h_device(&w, &r->dev[i], i);
	gs_out_puts(&w.o, script_body);
	gs_out_puts(&w.o, "</body>\n</html>\n");
	if (st != GS_OK) {
		gs_out_finish(&w.o);
		return st;
	}
	return gs_out_finish(&w.o);
}
