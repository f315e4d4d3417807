/* SPDX-License-Identifier: MIT */
/*
 * The job analysis in the HTML report (gs_job_analysis_write_html): the
 * tables and the drawing of the collectives across ranks.
 */
#include "job_view.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuscope/outbuf.h>

#define H_XMAX 1000000 /* drawing units across the span (as report_html.c) */
#define H_DRAWN 2000   /* collectives drawn per clock group at most, by skew */
#define H_RECTS 20000  /* ... and kernels drawn */
#define H_PITCH 24
#define H_BAR_Y 4
#define H_BAR_H 16
#define H_LABEL_W 170
#define H_AXIS_H 24

/* The index in ja->gpus of GPU `dev` of rank `ri`; SIZE_MAX when none. */
static size_t gpu_index(const struct gs_job_analysis *ja, size_t ri, uint32_t dev)
{
	for (size_t i = ja->first_gpu[ri]; i < ja->n_gpus && ja->gpus[i].ri == ri; i++)
		if (ja->gpus[i].d->device == dev)
			return i;
	return SIZE_MAX;
}

static void job_html_esc(struct gs_outbuf *o, const char *s, size_t max)
{
	gs_report_html_text(o, s, max);
}

/* A duration with "µs". */
#define HDUR(ns) gs_report_dur_utf8((char[48]){0}, 48, (ns))

static void job_html_findings(struct gs_outbuf *o, const struct gs_job_analysis *ja)
{
	gs_outbuf_puts(o, "<h3>Job findings</h3>\n");
	if (!ja->n_findings) {
		gs_outbuf_puts(
			o, "<p class=\"none\" id=\"job-findings\">Nothing stands out across the "
			   "ranks: no straggler, waits or exposed communication above 0.5% of "
			   "a window.</p>\n");
		return;
	}
	gs_outbuf_puts(o, "<ol class=\"findings\" id=\"job-findings\">\n");
	for (size_t i = 0; i < ja->n_findings; i++) {
		char *text = job_finding_text(ja, &ja->findings[i]);
		char *advice = job_finding_advice(ja, &ja->findings[i]);

		if (!text || !advice) {
			free(text);
			free(advice);
			gs_outbuf_fail(o, ENOMEM, NULL);
			return;
		}
		gs_outbuf_puts(o, "<li><div>");
		gs_report_html_sentence(o, text);
		gs_outbuf_puts(o, "</div><div class=\"advice\">&rarr; ");
		gs_report_html_sentence(o, advice);
		gs_outbuf_puts(o, "</div></li>\n");
		free(text);
		free(advice);
	}
	gs_outbuf_puts(o, "</ol>\n");
}

/* One GPU's row of the rank table; with an outlier column (`col`), `why`
 * its outlier's `by` (UINT_MAX: none). */
static void job_html_rank_row(struct gs_outbuf *o, const struct gs_job_gpu *g, bool col,
			      unsigned why)
{
	const struct gs_js_gpu *d = g->d;
	char eff[32];

	gs_outbuf_printf(o, "<tr><td>%u</td><td>", g->r->rank);
	job_html_esc(o, *gs_js_str(g->r, g->r->host) ? gs_js_str(g->r, g->r->host) : "-", 40);
	gs_outbuf_printf(o, "</td><td class=\"n\">%u</td><td class=\"n\">%s</td>", d->device,
			 HDUR(d->window_ns));
	for (unsigned c = 0; c < GS_CAT_COUNT; c++)
		gs_outbuf_printf(o, "<td class=\"n\">%s</td>", PCT(d->total_ns[c], d->window_ns));
	gs_outbuf_printf(o, "<td class=\"n\">%s</td>", job_eff_text(d, eff, sizeof(eff)));
	gs_outbuf_printf(o, "<td class=\"n\">%s</td>", d->comm_kernels ? HDUR(d->comm_ns) : "-");
	gs_outbuf_printf(o, "<td class=\"n\">%s</td>",
			 d->comm_kernels ? HDUR(d->comm_exposed_ns) : "-");
	gs_outbuf_printf(o, "<td class=\"n\">%s</td>",
			 isfinite(g->overlap) ? FRAC(g->overlap) : "-");
	if (col)
		gs_outbuf_printf(o, "<td>%s</td>", why == UINT_MAX ? "" : job_outlier_word(why));
	gs_outbuf_puts(o, "</tr>\n");
}

static void job_html_rank_head(struct gs_outbuf *o, const char *id, bool why)
{
	gs_outbuf_printf(
		o,
		"<table class=\"tbl\" id=\"%s\"><thead><tr>"
		"<th>rank</th><th>host</th><th class=\"n\">GPU</th>"
		"<th class=\"n\">window</th><th class=\"n\">kernel</th>"
		"<th class=\"n\">copy</th><th class=\"n\">sync</th><th class=\"n\">idle</th>"
		"<th class=\"n\">efficiency</th><th class=\"n\">comm time</th>"
		"<th class=\"n\">exposed comm</th><th class=\"n\">overlap</th>%s"
		"</tr></thead><tbody>\n",
		id, why ? "<th>outlier</th>" : "");
}

/* The min (k 0), median (1) or max (2) row of the rank table. */
static void job_html_stat_row(struct gs_outbuf *o, const struct gs_job_analysis *ja, int k)
{
	static const char *const label[3] = {"min", "median", "max"};
	static const enum gs_job_metric col[] = {GS_JOB_METRIC_WINDOW, GS_JOB_METRIC_KERNEL,
						 GS_JOB_METRIC_COPY,   GS_JOB_METRIC_SYNC,
						 GS_JOB_METRIC_IDLE,   GS_JOB_METRIC_EFF,
						 GS_JOB_METRIC_COMM,   GS_JOB_METRIC_EXPOSED,
						 GS_JOB_METRIC_OVERLAP};
	char buf[48];

	gs_outbuf_printf(o, "<tr class=\"stat\"><td colspan=\"3\">%s</td>", label[k]);
	for (size_t c = 0; c < sizeof(col) / sizeof(col[0]); c++) {
		const struct gs_job_stat *s = &ja->stat[col[c]];

		if (!s->count)
			gs_outbuf_puts(o, "<td class=\"n\">-</td>");
		else if (job_metric_info[col[c]].ns)
			gs_outbuf_printf(o, "<td class=\"n\">%s</td>", HDUR((int64_t)s->v[k]));
		else
			gs_outbuf_printf(o, "<td class=\"n\">%s</td>",
					 job_metric_text(buf, sizeof(buf), col[c], s->v[k]));
	}
	gs_outbuf_puts(o, "<td></td></tr>\n");
}

/*
 * The rank table: every GPU's row when they fit; else each column's min,
 * median and max and the outliers, open, and every row in a collapsed
 * block under them. Then the min / median / max with the rank of each.
 */
static void job_html_ranks(struct gs_outbuf *o, const struct gs_job_analysis *ja,
			   const struct job_view *v)
{
	gs_outbuf_puts(o, "<h3>Ranks</h3>\n");
	if (v->all) {
		job_html_rank_head(o, "job-ranks", false);
		for (size_t i = 0; i < ja->n_gpus; i++)
			job_html_rank_row(o, &ja->gpus[i], false, UINT_MAX);
		gs_outbuf_puts(o, "</tbody></table>\n");
	} else {
		gs_outbuf_printf(o,
				 "<p class=\"more\">Each column's min, median and max over the %zu "
				 "GPUs, then the %zu outlier%s (stragglers, then the GPUs farthest "
				 "from the median; --ranks N|all).</p>\n",
				 ja->n_gpus, v->n_shown, v->n_shown == 1 ? "" : "s");
		job_html_rank_head(o, "job-ranks", true);
		for (int k = 0; k < 3; k++)
			job_html_stat_row(o, ja, k);
		for (size_t i = 0; i < ja->n_gpus; i++)
			if (v->why[i] != UINT_MAX)
				job_html_rank_row(o, &ja->gpus[i], true, v->why[i]);
		gs_outbuf_puts(o, "</tbody></table>\n");
		gs_outbuf_printf(o,
				 "<details class=\"more\" id=\"job-ranks-all\"><summary>Every GPU: "
				 "%zu rows, %zu outlier%s marked</summary>\n",
				 ja->n_gpus, v->n_outs, v->n_outs == 1 ? "" : "s");
		job_html_rank_head(o, "job-ranks-full", true);
		for (size_t i = 0; i < ja->n_gpus; i++)
			job_html_rank_row(o, &ja->gpus[i], true, v->why[i]);
		gs_outbuf_puts(o, "</tbody></table>\n</details>\n");
	}
	gs_outbuf_puts(o,
		       "<table class=\"tbl\" id=\"job-summary\"><thead><tr><th>over the GPUs</th>"
		       "<th class=\"n\">min</th><th class=\"n\">median</th><th class=\"n\">max</th>"
		       "</tr></thead><tbody>\n");
	for (unsigned m = 0; m < GS_JOB_METRIC_COUNT; m++) {
		const struct gs_job_stat *s = &ja->stat[m];
		char buf[96];

		gs_outbuf_printf(o, "<tr><td>%s</td>", job_metric_info[m].label);
		for (int k = 0; k < 3; k++) {
			if (!s->count) {
				gs_outbuf_puts(o, "<td class=\"n\">-</td>");
				continue;
			}
			job_stat_cell(buf, sizeof(buf), ja, s, (enum gs_job_metric)m, k);
			gs_outbuf_puts(o, "<td class=\"n\">");
			job_html_esc(o, buf, 0);
			gs_outbuf_puts(o, "</td>");
		}
		gs_outbuf_puts(o, "</tr>\n");
	}
	gs_outbuf_puts(o, "</tbody></table>\n<p class=\"more\">The median of an even count is the "
			  "lower middle; ties go to the lowest rank.</p>\n");
}

/* The lane of GPU `dev` of rank `ri`: -1 when it has none. */
static int lane_of(const struct gs_job_analysis *ja, const int *lanes, size_t ri, uint32_t dev)
{
	size_t i = gpu_index(ja, ri, dev);

	return i == SIZE_MAX ? -1 : lanes[i];
}

static int64_t job_html_x(int64_t t, int64_t t0, int64_t span)
{
	double x;

	if (t <= t0 || span <= 0)
		return 0;
	if (t - t0 >= span)
		return H_XMAX;
	x = (double)(t - t0) * H_XMAX / (double)span;
	return (int64_t)(x + 0.5);
}

/*
 * The lanes of a drawing when more GPUs than H_LANES take part in its
 * collectives (lanes[q] 0 for each): the outliers shown in the rank table,
 * then the GPUs last most often in the drawn collectives (ties: the lowest
 * rank), H_LANES - 1 of them; the others (lanes[q] H_OTHERS) share one
 * lane, drawn after them.
 */
#define H_LANES 32
#define H_OTHERS (-2)

static gs_status job_html_pick_lanes(const struct gs_job_analysis *ja, uint32_t g, size_t n_draw,
				     const struct job_view *v, int *lanes)
{
	size_t *last = calloc(ja->n_gpus ? ja->n_gpus : 1, sizeof(*last)), picked = 0, i, drawn;

	if (!last)
		return gs_nomem();
	for (i = 0, drawn = 0; i < ja->n_by_skew && drawn < n_draw; i++) {
		const struct gs_job_coll *x = &ja->coll[ja->by_skew[i]];
		const struct gs_job_comm *c = &ja->comms[x->comm];
		size_t q = SIZE_MAX;

		if (c->clock_group != g)
			continue;
		drawn++;
		if (x->skew <= 0 || x->state != GS_JOB_COMPARED)
			continue;
		for (size_t p = 0; p < x->present; p++)
			if (ja->slot[x->slot + p].m == x->last_m)
				q = gpu_index(ja, gs_job_coll_member(ja, x, p)->ri,
					      gs_job_coll_kernel(ja, x, p)->device);
		if (q != SIZE_MAX)
			last[q]++;
	}
	for (i = 0; i < ja->n_gpus; i++)
		if (lanes[i] == 0)
			lanes[i] = H_OTHERS;
	for (i = 0; i < v->n_shown && picked + 1 < H_LANES; i++) {
		size_t q = v->outs[i].gpu;

		if (lanes[q] == H_OTHERS) {
			lanes[q] = 0;
			picked++;
		}
	}
	while (picked + 1 < H_LANES) {
		size_t best = SIZE_MAX;

		for (i = 0; i < ja->n_gpus; i++)
			if (lanes[i] == H_OTHERS && last[i] &&
			    (best == SIZE_MAX || last[i] > last[best]))
				best = i;
		if (best == SIZE_MAX)
			break;
		lanes[best] = 0;
		picked++;
	}
	free(last);
	return GS_OK;
}

/* One drawing of the collectives of clock group `g` on its common clock: a
 * lane per GPU (with many GPUs, H_LANES - 1 of them and one for the
 * others), its collective kernels on it (the last rank's in the wait
 * colour), and each collective's skew as a band from its first to its last
 * arrival across the lanes. */
static gs_status job_html_drawing(struct gs_outbuf *o, const struct gs_job_analysis *ja, uint32_t g,
				  int *lanes, const struct job_view *v)
{
	size_t n_lanes = 0, in_group = 0, n_draw = 0, rects = 0, drawn, i, k, taking = 0,
	       others = 0;
	int64_t t0 = 0, t1 = 0;
	bool any = false, full = false;
	int height, other_lane = -1;

	for (i = 0; i < ja->n_gpus; i++)
		lanes[i] = -1;
	/* The collectives of the group, by skew: the first H_DRAWN are drawn,
	 * fewer when their kernels would pass H_RECTS (a lane holds one kernel
	 * of a collective at most). */
	for (i = 0; i < ja->n_by_skew; i++) {
		const struct gs_job_coll *x = &ja->coll[ja->by_skew[i]];
		const struct gs_job_comm *c = &ja->comms[x->comm];
		size_t cost = x->present < H_LANES ? x->present : H_LANES;

		if (c->clock_group != g)
			continue;
		in_group++;
		if (!full && (n_draw >= H_DRAWN || (n_draw && rects + cost > H_RECTS)))
			full = true;
		if (full)
			continue;
		n_draw++;
		rects += cost;
		for (k = 0; k < x->present; k++) {
			const struct gs_job_member *m = gs_job_coll_member(ja, x, k);
			const struct gs_js_kernel *op = gs_job_coll_kernel(ja, x, k);
			size_t q = gpu_index(ja, m->ri, op->device);

			if (q != SIZE_MAX)
				lanes[q] = 0;
			if (!any || op->start_ns + m->shift < t0)
				t0 = op->start_ns + m->shift;
			if (!any || op->end_ns + m->shift > t1)
				t1 = op->end_ns + m->shift;
			any = true;
		}
	}
	if (!any)
		return GS_OK;
	for (i = 0; i < ja->n_gpus; i++)
		taking += lanes[i] == 0;
	if (taking > H_LANES) {
		gs_status rc = job_html_pick_lanes(ja, g, n_draw, v, lanes);

		if (rc != GS_OK)
			return rc;
	}
	for (i = 0; i < ja->n_gpus; i++) {
		if (lanes[i] == 0)
			lanes[i] = (int)n_lanes++;
		else if (lanes[i] == H_OTHERS)
			others++;
	}
	if (others)
		other_lane = (int)n_lanes++;
	height = (int)n_lanes * H_PITCH;
	if (t1 <= t0)
		t1 = t0 + 1;
	gs_outbuf_printf(o, "<div class=\"timeline\" id=\"job-timeline-%u\" data-span=\"%lld\">\n",
			 g, (long long)(t1 - t0));
	gs_outbuf_printf(o,
			 "<div class=\"tl-ctl\"><button data-z=\"in\" title=\"zoom in\">+</button>"
			 "<button data-z=\"out\" title=\"zoom out\">&minus;</button>"
			 "<button data-z=\"reset\">reset</button>"
			 "<span>wheel: zoom, drag: pan; times from the first collective kernel "
			 "(%lld ns on the clock group's common clock)</span>"
			 "<span class=\"range\"></span></div>\n",
			 (long long)t0);
	gs_outbuf_puts(o, "<div class=\"tl-body\">\n");
	gs_outbuf_printf(o, "<svg class=\"labels\" width=\"%d\" height=\"%d\">\n", H_LABEL_W,
			 H_AXIS_H + height);
	for (i = 0; i < ja->n_gpus; i++) {
		char name[64];

		if (lanes[i] < 0)
			continue;
		snprintf(name, sizeof(name), "rank %u \xc2\xb7 GPU %u", ja->gpus[i].r->rank,
			 ja->gpus[i].d->device);
		gs_outbuf_printf(o, "<text x=\"0\" y=\"%d\">", H_AXIS_H + lanes[i] * H_PITCH + 16);
		job_html_esc(o, name, 0);
		gs_outbuf_puts(o, "</text>\n");
	}
	if (others)
		gs_outbuf_printf(o, "<text x=\"0\" y=\"%d\" class=\"grp\">%zu other GPUs</text>\n",
				 H_AXIS_H + other_lane * H_PITCH + 16, others);
	gs_outbuf_puts(o, "</svg>\n<div class=\"tl-plot\">\n");
	gs_outbuf_printf(o, "<svg class=\"axis\" id=\"job-axis-%u\"></svg>\n", g);
	gs_outbuf_printf(o,
			 "<svg class=\"lanes\" id=\"job-lanes-%u\" viewBox=\"0 0 %d %d\" "
			 "height=\"%d\" preserveAspectRatio=\"none\">\n",
			 g, H_XMAX, height, height);
	for (i = 1; i < n_lanes; i++)
		gs_outbuf_printf(o,
				 "<line class=\"sep\" x1=\"0\" x2=\"%d\" y1=\"%zu\" y2=\"%zu\"/>\n",
				 H_XMAX, i * H_PITCH, i * H_PITCH);
	/* Bands first, under the kernels. */
	for (i = 0, drawn = 0; i < ja->n_by_skew && drawn < n_draw; i++) {
		const struct gs_job_coll *x = &ja->coll[ja->by_skew[i]];
		const struct gs_job_comm *c = &ja->comms[x->comm];
		int64_t a, b;

		if (c->clock_group != g)
			continue;
		drawn++;
		if (x->skew <= 0)
			continue;
		a = job_html_x(x->first, t0, t1 - t0);
		b = job_html_x(x->last, t0, t1 - t0);
		gs_outbuf_printf(o,
				 "<rect x=\"%lld\" y=\"0\" width=\"%lld\" height=\"%d\" "
				 "style=\"fill:#7048e8;fill-opacity:.18\"><title>",
				 (long long)a, (long long)(b > a ? b - a : 1), height);
		job_html_esc(o, c->label, 60);
		gs_outbuf_printf(o, " #%u ", x->index);
		job_html_esc(o, x->name, 60);
		if (x->state == GS_JOB_WITHIN_ERROR)
			gs_outbuf_printf(o,
					 "&#10;skew %s, within the clocks' error</title></rect>\n",
					 HDUR(x->skew));
		else
			gs_outbuf_printf(o, "&#10;skew %s: rank %u arrived last</title></rect>\n",
					 HDUR(x->skew), gs_job_rank(ja, c->m[x->last_m].ri)->rank);
	}
	for (i = 0, drawn = 0; i < ja->n_by_skew && drawn < n_draw; i++) {
		const struct gs_job_coll *x = &ja->coll[ja->by_skew[i]];
		const struct gs_job_comm *c = &ja->comms[x->comm];
		int64_t o0 = 0, o1 = 0, oa = 0; /* the others': first start, last end, last start */
		size_t n_o = 0;

		if (c->clock_group != g)
			continue;
		drawn++;
		for (k = 0; k < x->present; k++) {
			const struct gs_job_member *m = gs_job_coll_member(ja, x, k);
			const struct gs_js_kernel *op = gs_job_coll_kernel(ja, x, k);
			int lane = lane_of(ja, lanes, m->ri, op->device);
			int64_t s0 = op->start_ns + m->shift, s1 = op->end_ns + m->shift;
			int64_t a = job_html_x(s0, t0, t1 - t0), b = job_html_x(s1, t0, t1 - t0);
			bool last = x->skew > 0 && x->state == GS_JOB_COMPARED &&
				    ja->slot[x->slot + k].m == x->last_m;

			if (lane == H_OTHERS) {
				if (!n_o || s0 < o0)
					o0 = s0;
				if (!n_o || s1 > o1)
					o1 = s1;
				if (!n_o || s0 > oa)
					oa = s0;
				n_o++;
				continue;
			}
			if (lane < 0)
				continue;
			gs_outbuf_printf(o,
					 "<rect class=\"k\" x=\"%lld\" y=\"%d\" width=\"%lld\" "
					 "height=\"%d\"%s><title>",
					 (long long)a, lane * H_PITCH + H_BAR_Y,
					 (long long)(b > a ? b - a : 1), H_BAR_H,
					 last ? " style=\"fill:#7048e8\"" : "");
			/* Short: one a kernel (the band names the collective). */
			job_html_esc(o, x->name, 32);
			gs_outbuf_printf(o, " #%u&#10;rank %u: +%s, waited %s, ran %s%s", x->index,
					 gs_job_rank(ja, m->ri)->rank, HDUR(s0 - t0),
					 HDUR(x->state == GS_JOB_COMPARED ? x->last - s0 : 0),
					 HDUR(s1 - s0), last ? ", last" : "");
			gs_outbuf_puts(o, "</title></rect>\n");
		}
		if (n_o) {
			int64_t a = job_html_x(o0, t0, t1 - t0), b = job_html_x(o1, t0, t1 - t0),
				m = job_html_x(oa, t0, t1 - t0);

			/* The others' kernels from the first start to the last
			 * end, their arrivals (first to last start) darker. */
			gs_outbuf_printf(o,
					 "<rect class=\"k o2\" x=\"%lld\" y=\"%d\" width=\"%lld\" "
					 "height=\"%d\"><title>",
					 (long long)a, other_lane * H_PITCH + H_BAR_Y,
					 (long long)(b > a ? b - a : 1), H_BAR_H);
			job_html_esc(o, x->name, 32);
			gs_outbuf_printf(o,
					 " #%u&#10;%zu other GPUs: arrived +%s to +%s, the last "
					 "ended +%s</title></rect>\n",
					 x->index, n_o, HDUR(o0 - t0), HDUR(oa - t0),
					 HDUR(o1 - t0));
			gs_outbuf_printf(o,
					 "<rect class=\"k\" x=\"%lld\" y=\"%d\" width=\"%lld\" "
					 "height=\"%d\"/>\n",
					 (long long)a, other_lane * H_PITCH + H_BAR_Y,
					 (long long)(m > a ? m - a : 1), H_BAR_H);
		}
	}
	gs_outbuf_puts(o, "</svg>\n</div>\n</div>\n");
	gs_outbuf_puts(o,
		       "<div class=\"legend\"><span><span class=\"sw c-kernel\"></span>collective "
		       "kernel</span><span><span class=\"sw c-wait\"></span>the last rank's kernel "
		       "(the others waited for it)</span><span><span class=\"sw c-wait\" "
		       "style=\"opacity:.25\"></span>skew: first to last arrival</span></div>\n");
	if (others)
		gs_outbuf_printf(
			o,
			"<p class=\"more\">%zu GPUs take part: the lanes are the outliers' "
			"and those last most often; the other %zu GPUs share the last lane "
			"(their kernels from the first start to the last end, solid from "
			"the first arrival to the last).</p>\n",
			taking, others);
	if (in_group > n_draw)
		gs_outbuf_printf(o,
				 "<p class=\"more\">The %zu collectives of largest skew of %zu are "
				 "drawn.</p>\n",
				 n_draw, in_group);
	gs_outbuf_puts(o, "</div>\n");
	return GS_OK;
}

/* The collectives over time: a drawing per clock group. */
static void job_html_chart(struct gs_outbuf *o, const struct gs_job_analysis *ja,
			   const struct job_view *v)
{
	int *lanes;

	gs_outbuf_puts(o, "<h3>Collectives</h3>\n");
	if (!ja->n_comms) {
		gs_outbuf_puts(o,
			       "<p class=\"none\" id=\"job-collectives\">No communication kernels "
			       "(NCCL / RCCL) in the ranks' windows.</p>\n");
		return;
	}
	lanes = malloc((ja->n_gpus ? ja->n_gpus : 1) * sizeof(*lanes));
	if (!lanes) {
		gs_outbuf_fail(o, ENOMEM, NULL);
		return;
	}
	for (uint32_t g = 0; g < ja->n_clock_groups && !o->failed; g++)
		if (job_html_drawing(o, ja, g, lanes, v) != GS_OK) {
			gs_outbuf_fail(o, ENOMEM, NULL);
		}
	free(lanes);
	if (ja->n_clock_groups > 1)
		gs_outbuf_puts(
			o, "<p class=\"more\">Ranks on different clocks (clock groups) are never "
			   "compared: each group is matched and drawn on its own.</p>\n");
}

/* A rank's row of the table of its collectives. */
static void job_html_total_row(struct gs_outbuf *o, const struct gs_job_analysis *ja,
			       const struct gs_job_total *t)
{
	gs_outbuf_printf(o,
			 "<tr><td>%u</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>"
			 "<td class=\"n\">%llu</td><td class=\"n\">%s</td>"
			 "<td class=\"n\">%s</td><td>%s</td></tr>\n",
			 gs_job_rank(ja, t->ri)->rank, (unsigned long long)t->collectives,
			 HDUR(t->waited), (unsigned long long)t->last,
			 PCT((int64_t)t->last, (int64_t)t->counted), HDUR(t->cost),
			 t->straggler ? "<b>straggler</b>" : "");
}

static void job_html_totals_head(struct gs_outbuf *o, const char *id)
{
	gs_outbuf_printf(o,
			 "<table class=\"tbl\" id=\"%s\"><thead><tr><th>rank</th>"
			 "<th class=\"n\">collectives</th><th class=\"n\">waited</th>"
			 "<th class=\"n\">times last</th><th class=\"n\">share</th>"
			 "<th class=\"n\">cost to others</th><th></th></tr></thead><tbody>\n",
			 id);
}

/* Per rank over its collectives: every rank when they fit, else the
 * outliers' ranks and every rank in a collapsed block. */
static void job_html_totals(struct gs_outbuf *o, const struct gs_job_analysis *ja,
			    const struct job_view *v)
{
	size_t with = 0, i;

	for (i = 0; i < ja->n_totals; i++)
		with += ja->totals[i].collectives > 0;
	job_html_totals_head(o, "job-totals");
	for (i = 0; i < ja->n_totals; i++)
		if (ja->totals[i].collectives && (v->all || v->rank_shown[ja->totals[i].ri]))
			job_html_total_row(o, ja, &ja->totals[i]);
	gs_outbuf_puts(o, "</tbody></table>\n");
	if (v->all)
		return;
	gs_outbuf_printf(o,
			 "<details class=\"more\" id=\"job-totals-all\"><summary>Every rank: %zu "
			 "rows</summary>\n",
			 with);
	job_html_totals_head(o, "job-totals-full");
	for (i = 0; i < ja->n_totals; i++)
		if (ja->totals[i].collectives)
			job_html_total_row(o, ja, &ja->totals[i]);
	gs_outbuf_puts(o, "</tbody></table>\n</details>\n");
}

/* The communicators, the collectives by skew, per rank, mismatches. */
static void job_html_collectives(struct gs_outbuf *o, const struct gs_job_analysis *ja, size_t top,
				 const struct job_view *v)
{
	size_t shown, i;

	bool fold = !v->all && ja->n_comms > v->limit;

	if (!ja->n_comms)
		return;
	gs_outbuf_puts(o, "<h3>Communicators and the collectives of largest skew</h3>\n");
	/* Many GPUs and many communicators (by stream, one a rank can make):
	 * collapsed. */
	if (fold)
		gs_outbuf_printf(
			o,
			"<details class=\"more\" id=\"job-communicators-all\"><summary>%zu "
			"communicators</summary>\n",
			ja->n_comms);
	gs_outbuf_puts(
		o, "<table class=\"tbl\" id=\"job-communicators\"><thead><tr>"
		   "<th>communicator</th><th class=\"n\">ranks</th><th class=\"n\">compared</th>"
		   "<th class=\"n\">mean skew</th><th class=\"n\">max skew</th>"
		   "<th class=\"n\">waited</th><th class=\"n\">mean transfer</th>"
		   "<th class=\"n\">mean busbw</th></tr></thead><tbody>\n");
	for (i = 0; i < ja->n_comms; i++) {
		const struct gs_job_comm *c = &ja->comms[i];
		int64_t m = c->matched ? (int64_t)c->matched : 1;

		gs_outbuf_puts(o, "<tr><td>");
		job_html_esc(o, c->label, 0);
		gs_outbuf_printf(o, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>", c->n_m,
				 c->matched);
		if (!c->matched) {
			gs_outbuf_puts(o,
				       "<td colspan=\"5\" class=\"met\">not compared</td></tr>\n");
			continue;
		}
		gs_outbuf_printf(o, "<td class=\"n\">%s</td>", HDUR(c->skew_sum / m));
		gs_outbuf_printf(o, "<td class=\"n\">%s</td>", HDUR(c->skew_max));
		gs_outbuf_printf(o, "<td class=\"n\">%s</td>", HDUR(c->wait_sum));
		gs_outbuf_printf(o, "<td class=\"n\">%s</td>", HDUR(c->transfer_sum / m));
		gs_outbuf_printf(o, "<td class=\"n\">%s</td></tr>\n",
				 c->busbw_n ? BW(c->busbw_sum / (double)c->busbw_n) : "-");
	}
	gs_outbuf_puts(o, fold ? "</tbody></table>\n</details>\n" : "</tbody></table>\n");
	if (ja->n_by_skew) {
		shown = ja->n_by_skew < top ? ja->n_by_skew : top;
		gs_outbuf_puts(o,
			       "<table class=\"tbl\" id=\"job-skew\"><thead><tr><th class=\"n\">#"
			       "</th><th>communicator</th><th class=\"n\">index</th><th>name</th>"
			       "<th class=\"n\">skew</th><th class=\"n\">last rank</th>"
			       "<th class=\"n\">transfer</th><th class=\"n\">algbw</th>"
			       "<th class=\"n\">busbw</th></tr></thead><tbody>\n");
		for (i = 0; i < shown; i++) {
			const struct gs_job_coll *x = &ja->coll[ja->by_skew[i]];
			const struct gs_job_comm *c = &ja->comms[x->comm];

			gs_outbuf_printf(o, "<tr><td class=\"n\">%zu</td><td>", i + 1);
			job_html_esc(o, c->label, 0);
			gs_outbuf_printf(o, "</td><td class=\"n\">%u</td><td class=\"name\">",
					 x->index);
			job_html_esc(o, x->name, 90);
			gs_outbuf_printf(o, "</td><td class=\"n\">%s</td>", HDUR(x->skew));
			if (x->state == GS_JOB_WITHIN_ERROR)
				gs_outbuf_puts(o, "<td class=\"n\" title=\"within the clocks' "
						  "error\">~</td>");
			else if (x->skew > 0)
				gs_outbuf_printf(o, "<td class=\"n\">%u</td>",
						 gs_job_rank(ja, c->m[x->last_m].ri)->rank);
			else
				gs_outbuf_puts(o, "<td class=\"n\">-</td>");
			gs_outbuf_printf(o, "<td class=\"n\">%s</td><td class=\"n\">%s</td>",
					 HDUR(x->transfer), BW(x->algbw));
			gs_outbuf_printf(o, "<td class=\"n\">%s</td></tr>\n", BW(x->busbw));
		}
		gs_outbuf_puts(o, "</tbody></table>\n");
		if (shown < ja->n_by_skew)
			gs_outbuf_printf(
				o,
				"<p class=\"more\">%zu more (--top N for more rows, --format "
				"json for the %d largest)</p>\n",
				ja->n_by_skew - shown, JSON_COLLECTIVES);
		job_html_totals(o, ja, v);
	}
	if (ja->n_mm) {
		gs_outbuf_puts(o, "<h3>Mismatches</h3>\n");
		if (ja->n_mm > top)
			gs_outbuf_printf(
				o,
				"<details class=\"more\" id=\"job-mismatches-all\"><summary>"
				"%zu communicators do not line up</summary>\n",
				ja->n_mm);
		gs_outbuf_puts(o, "<ul class=\"notes\" id=\"job-mismatches\">\n");
		for (i = 0; i < ja->n_mm; i++) {
			gs_outbuf_puts(o, "<li>");
			job_html_esc(o, ja->mm[i].text, 0);
			gs_outbuf_puts(o, "</li>\n");
		}
		gs_outbuf_puts(o, ja->n_mm > top ? "</ul>\n</details>\n" : "</ul>\n");
	}
}

#define H_STEP_ROWS 500 /* steps in the HTML table */

/* The steps matched across ranks: a bar from the fastest rank's step time
 * to the slowest's, the median marked, beside the numbers. */
static void job_html_steps(struct gs_outbuf *o, const struct gs_job_analysis *ja)
{
	int64_t longest = 0;
	size_t shown = ja->n_steps < H_STEP_ROWS ? ja->n_steps : H_STEP_ROWS;

	if (!ja->n_steps)
		return;
	for (size_t i = 0; i < shown; i++)
		if (ja->steps[i].v[2] > longest)
			longest = ja->steps[i].v[2];
	gs_outbuf_puts(
		o, "<h3>Steps across ranks</h3>\n<p class=\"more\">Matched by number; each "
		   "rank's GPU window of the step; bold: analysed on every rank; the bar runs "
		   "from the fastest rank's step time to the slowest's, the median marked.</p>\n"
		   "<table class=\"tbl\" id=\"job-steps\"><thead><tr><th>step</th>"
		   "<th class=\"n\">ranks</th><th></th><th class=\"n\">min</th>"
		   "<th class=\"n\">median</th><th class=\"n\">max</th><th>rank</th>"
		   "<th class=\"n\">job span</th><th>last to end</th>"
		   "<th>slowest rank's gap</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < shown; i++) {
		const struct gs_job_step *x = &ja->steps[i];
		double k = longest > 0 ? 160.0 / (double)longest : 0.0;

		gs_outbuf_printf(
			o,
			"<tr%s><td class=\"n\">%llu%s</td><td class=\"n\">%zu</td>"
			"<td><svg width=\"160\" height=\"10\"><rect x=\"%.1f\" width=\"%.1f\" "
			"height=\"10\" fill=\"%s\"/><rect x=\"%.1f\" width=\"2\" "
			"height=\"10\" fill=\"#222\"/></svg></td>",
			x->analysed ? " style=\"font-weight:bold\"" : "",
			(unsigned long long)x->number, x->partial ? " (partial)" : "", x->ranks,
			k * (double)x->v[0], k * (double)(x->v[2] - x->v[0]),
			x->slow ? "#e45756" : "#4c78a8", k * (double)x->v[1]);
		gs_outbuf_printf(o, "<td class=\"n\">%s</td><td class=\"n\">%s</td>", HDUR(x->v[0]),
				 HDUR(x->v[1]));
		gs_outbuf_printf(o, "<td class=\"n\">%s%s</td><td>%u</td>", HDUR(x->v[2]),
				 x->slow ? " !" : "", gs_job_rank(ja, x->ri[2])->rank);
		if (x->span_known && x->ranks > 1)
			gs_outbuf_printf(o, "<td class=\"n\">%s</td><td>rank %u, +%s</td>",
					 HDUR(x->span_ns), gs_job_rank(ja, x->last_ri)->rank,
					 HDUR(x->last_ns));
		else if (x->span_known)
			gs_outbuf_printf(o, "<td class=\"n\">%s</td><td>-</td>", HDUR(x->span_ns));
		else
			gs_outbuf_puts(o, "<td class=\"n\">unknown</td><td>-</td>");
		if (x->cause < GS_GAP_CAUSE_COUNT)
			gs_outbuf_printf(o, "<td>%s %s</td></tr>\n", gs_gap_cause_name(x->cause),
					 HDUR(x->cause_ns));
		else
			gs_outbuf_puts(o, "<td>-</td></tr>\n");
	}
	gs_outbuf_puts(o, "</tbody></table>\n");
	if (shown < ja->n_steps)
		gs_outbuf_printf(
			o,
			"<p class=\"more\">%zu of %zu steps shown (the JSON report has every "
			"one).</p>\n",
			shown, ja->n_steps);
}

void gs_job_analysis_write_html(struct gs_outbuf *o, const struct gs_report *job,
				const struct gs_report_style *st)
{
	const struct gs_job_analysis *ja = gs_job_results(job);
	struct gs_report_style s = gs_report_style_of(st);
	struct job_view v;

	if (!ja)
		return;
	if (job_view_make(ja, s.ranks, &v) != GS_OK) {
		gs_outbuf_fail(o, ENOMEM, NULL);
		return;
	}
	gs_outbuf_printf(o,
			 "<section class=\"job\" id=\"job\">\n<h2>Job: %zu ranks, %zu GPU%s</h2>\n",
			 ja->n_sums, ja->n_gpus, ja->n_gpus == 1 ? "" : "s");
	/* What stands out first: the findings and the collectives over time;
	 * then the ranks and the tables. */
	job_html_findings(o, ja);
	job_html_chart(o, ja, &v);
	job_html_ranks(o, ja, &v);
	job_html_steps(o, ja);
	job_html_collectives(o, ja, s.top, &v);
	gs_outbuf_puts(o, "</section>\n");
	job_view_free(&v);
}
