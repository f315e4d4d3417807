/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's timeline (report_html.c places it in a device's
 * section): an SVG of the stream lanes of the actual run, the kernel /
 * copy / sync / idle band under them and the lanes of the ideal schedule,
 * on one zoomable time axis, with the waits and the critical path drawn
 * on the lanes; every op drawn when the page is small, else binned (the
 * top of report_html.c says how).
 */
#include "report_html_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- timeline ------------------------------------------------------------- */

/* One lane per drawn stream; `st` indexes d->streams. */
struct lane {
	size_t st;
	int64_t busy;
	int y_real;
	int y_ideal;
};

/* A device's timeline being drawn: its axis (origin and span), its lanes
 * and where each stream is drawn, the ideal schedule and critical path
 * beside them, and the slices of the lane being binned. */
struct timeline_frame {
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

static int64_t x_pixel_of(const struct timeline_frame *L, int64_t t)
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
static int64_t bin_t(const struct timeline_frame *L, size_t k)
{
	if (k >= L->bins)
		return L->span;
	return (int64_t)((double)L->span * (double)k / (double)L->bins);
}

static size_t bin_of(const struct timeline_frame *L, int64_t t)
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
static void bins_add(const struct timeline_frame *L, int64_t *acc, size_t stride, size_t col,
		     int64_t a, int64_t e)
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
static unsigned slice_code(const struct timeline_frame *L, size_t k)
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
static void emit_bins(struct html_writer *w, const struct timeline_frame *L, int y)
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
					gs_outbuf_printf(&w->o, "<path class=\"%s%s\" d=\"",
							 kind_class[kind], level_class[level]);
				open = true;
				x1 = x_pixel_of(L, bin_t(L, k));
				x2 = x_pixel_of(L, bin_t(L, j));
				gs_outbuf_printf(&w->o, "M%lld %dh%lldv%dh-%lldz", (long long)x1,
						 y + BAR_Y, (long long)(x2 - x1), BAR_H,
						 (long long)(x2 - x1));
			}
			if (open)
				gs_outbuf_puts(&w->o, "\"/>\n");
		}
	}
}

/* The critical-path strip of a lane from the `cacc` slices. */
static void emit_crit_bins(struct html_writer *w, const struct timeline_frame *L, int y)
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
			gs_outbuf_puts(&w->o, "<path class=\"cp\" d=\"");
			open = true;
		}
		{
			int64_t x1 = x_pixel_of(L, bin_t(L, k)), x2 = x_pixel_of(L, bin_t(L, j));

			gs_outbuf_printf(&w->o, "M%lld %dh%lldv%dh-%lldz", (long long)x1, y,
					 (long long)(x2 - x1), STRIP, (long long)(x2 - x1));
		}
		k = j;
	}
	if (open)
		gs_outbuf_puts(&w->o, "\"/>\n");
}

/* One op drawn as it is, with a tooltip. */
static void emit_op(struct html_writer *w, const struct timeline_frame *L, uint32_t i, int64_t a,
		    int y, bool ideal)
{
	const struct gs_op *op = &w->ops[i];
	int64_t dur = op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;
	int64_t x1 = x_pixel_of(L, a), x2 = x_pixel_of(L, a + dur);
	char label[128];

	gs_outbuf_printf(
		&w->o,
		"<rect class=\"%s\" x=\"%lld\" y=\"%d\" width=\"%lld\" height=\"%d\"><title>",
		op->kind < GS_OP_KIND_COUNT ? kind_class[op->kind] : "k", (long long)x1, y + BAR_Y,
		(long long)(x2 > x1 ? x2 - x1 : 1), BAR_H);
	html_text(w, op_label(w, i, label, sizeof(label)), TIP_MAX_CPS);
	gs_outbuf_printf(&w->o, "&#10;op %llu, stream %llu: %s at %s%s",
			 (unsigned long long)gs_report_op_id(w->t, i),
			 (unsigned long long)op_stream_id(w, i), DUR(dur), a < 0 ? "" : "+",
			 DUR(a));
	if (ideal)
		gs_outbuf_printf(&w->o, " (actual %s%s)", op->start_ns < L->t0 ? "" : "+",
				 DUR(op->start_ns - L->t0));
	if (L->crit[i])
		gs_outbuf_puts(&w->o, "&#10;on the critical path");
	gs_outbuf_puts(&w->o, "</title></rect>\n");
	if (L->crit[i])
		gs_outbuf_printf(
			&w->o,
			"<rect class=\"cp\" x=\"%lld\" y=\"%d\" width=\"%lld\" height=\"%d\"/>\n",
			(long long)x1, y, (long long)(x2 > x1 ? x2 - x1 : 1), STRIP);
}

/* Is op i in the schedule's op set? (every op of the device, or those
 * starting in the window) */
static bool scheduled(const struct html_writer *w, const struct timeline_frame *L, uint32_t i)
{
	const struct gs_op *op = &w->ops[i];

	if (!L->sched || i >= L->s->n_ops)
		return false;
	return !L->s->window_set ||
	       (op->start_ns >= L->s->window_start && op->start_ns < L->s->window_end);
}

/* A lane of the actual run (ideal false) or of the ideal schedule. */
static void draw_lane(struct html_writer *w, struct timeline_frame *L, const struct lane *ln,
		      bool ideal)
{
	const struct gs_report_stream *rs = &L->d->streams[ln->st];
	int y = ideal ? ln->y_ideal : ln->y_real;
	size_t first, count, i;

	gs_outbuf_printf(&w->o, "<g class=\"lane %s\" data-stream=\"%llu\">\n",
			 ideal ? "ideal" : "real", (unsigned long long)rs->stream_id);
	gs_outbuf_printf(&w->o,
			 "<rect class=\"bg\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
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
	gs_outbuf_puts(&w->o, "</g>\n");
}

/* False when out of memory. */
static bool draw_band(struct html_writer *w, struct timeline_frame *L)
{
	const struct gs_breakdown *b = &L->d->b;
	int y = L->y_band;
	size_t i, k;

	gs_outbuf_printf(&w->o, "<g class=\"band\" id=\"band-%zu\">\n", L->di);
	if (b->n_segments <= 2 * L->bins || w->exact) {
		for (i = 0; i < b->n_segments; i++) {
			const struct gs_segment *s = &b->segments[i];
			int64_t x1 = x_pixel_of(L, s->start_ns - L->t0),
				x2 = x_pixel_of(L, s->end_ns - L->t0);

			if (s->category >= GS_CAT_COUNT || x2 <= x1)
				continue;
			gs_outbuf_printf(&w->o,
					 "<rect class=\"b%u\" x=\"%lld\" y=\"%d\" width=\"%lld\" "
					 "height=\"%d\"><title>%s %s at +%s</title></rect>\n",
					 (unsigned)s->category, (long long)x1, y,
					 (long long)(x2 - x1), BAND_H,
					 gs_category_name(s->category),
					 DUR(s->end_ns - s->start_ns), DUR(s->start_ns - L->t0));
		}
		gs_outbuf_puts(&w->o, "</g>\n");
		return true;
	}
	/* Binned: each slice takes the category that held most of it. */
	{
		int64_t *acc = calloc(L->bins * GS_CAT_COUNT, sizeof(*acc));
		unsigned char *cat = malloc(L->bins);

		if (!acc || !cat) {
			free(acc);
			free(cat);
			gs_outbuf_puts(&w->o, "</g>\n");
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
			x1 = x_pixel_of(L, bin_t(L, k));
			x2 = x_pixel_of(L, bin_t(L, j));
			if (cat[k] != 0xff && x2 > x1)
				gs_outbuf_printf(
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
	gs_outbuf_puts(&w->o, "</g>\n");
	return true;
}

/* Waits on the lanes of the actual run: a dashed line on the consumer's
 * lane while it was held back, and a link from the producer's lane at the
 * moment the producer ended. */
static void draw_waits(struct html_writer *w, struct timeline_frame *L)
{
	const struct gs_report *r = w->r;
	const struct gs_report_device *d = L->d;
	size_t i, shown = d->n_waits < WAITS_DRAWN ? d->n_waits : WAITS_DRAWN;
	char lc[128], lp[128];

	if (!shown)
		return;
	gs_outbuf_printf(&w->o, "<g class=\"waits\" id=\"waitlines-%zu\">\n", L->di);
	for (i = 0; i < shown; i++) {
		const struct gs_wait *x = gs_results_device_wait(r, d, i);
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
		xa = x_pixel_of(L, pend - x->wait_ns - L->t0);
		xb = x_pixel_of(L, pend - L->t0);
		yc = L->lanes[lcn].y_real + BAR_Y + BAR_H / 2;
		gs_outbuf_printf(
			&w->o, "<line class=\"wait\" x1=\"%lld\" x2=\"%lld\" y1=\"%d\" y2=\"%d\">",
			(long long)xa, (long long)(xb > xa ? xb : xa + 1), yc, yc);
		gs_outbuf_printf(&w->o, "<title>wait %s (%s): ", DUR(x->wait_ns),
				 gs_edge_kind_name(x->kind));
		html_text(w, op_label(w, x->consumer, lc, sizeof(lc)), 60);
		gs_outbuf_printf(&w->o, " [s%llu] held back by ",
				 (unsigned long long)op_stream_id(w, x->consumer));
		html_text(w, op_label(w, x->producer, lp, sizeof(lp)), 60);
		gs_outbuf_printf(&w->o, " [s%llu]</title></line>\n",
				 (unsigned long long)op_stream_id(w, x->producer));
		lpn = p->stream < w->n_streams ? L->lane_of[p->stream] : -1;
		if (lpn >= 0 && lpn != lcn) {
			int yp = L->lanes[lpn].y_real + BAR_Y + BAR_H / 2;

			gs_outbuf_printf(&w->o,
					 "<line class=\"wlink\" x1=\"%lld\" x2=\"%lld\" y1=\"%d\" "
					 "y2=\"%d\"/>\n",
					 (long long)xb, (long long)xb, yp, yc);
		}
	}
	gs_outbuf_puts(&w->o, "</g>\n");
}

/* The static axis (the script redraws it on zoom): ticks at 1, 2 or 5
 * times a power of ten, about eight across. */
static void draw_axis(struct html_writer *w, const struct timeline_frame *L)
{
	static const struct {
		double ns;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\xc2\xb5s"}, {1, "ns"}};
	double r = (double)L->span / 8, p, m, st;
	size_t u = 3, i, n_ticks;
	int dec;

	gs_outbuf_printf(&w->o, "<svg class=\"axis\" id=\"axis-%zu\">", L->di);
	if (L->span <= 0 || r <= 0) {
		gs_outbuf_puts(&w->o, "</svg>\n");
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

		gs_outbuf_printf(&w->o, "<line x1=\"%.3f%%\" x2=\"%.3f%%\" y1=\"16\" y2=\"24\"/>",
				 x, x);
		if (k == 0)
			gs_outbuf_printf(
				&w->o,
				"<text x=\"0%%\" y=\"12\" style=\"text-anchor:start\">0</text>");
		else
			gs_outbuf_printf(
				&w->o,
				"<text x=\"%.3f%%\" y=\"12\" style=\"text-anchor:%s\">%.*f %s</text>",
				x, anchor, dec, t / units[u].ns, units[u].unit);
	}
	gs_outbuf_puts(&w->o, "</svg>\n");
}

static void draw_labels(struct html_writer *w, const struct timeline_frame *L)
{
	const struct gs_report_device *d = L->d;
	size_t i;
	bool pids = false;

	for (i = 1; i < L->n_lanes; i++)
		if (d->streams[L->lanes[i].st].pid != d->streams[L->lanes[0].st].pid)
			pids = true;
	gs_outbuf_printf(&w->o, "<svg class=\"labels\" width=\"%d\" height=\"%d\">\n", LABEL_W,
			 AXIS_H + L->height);
	/* Room for the axis above the lanes. */
	gs_outbuf_printf(&w->o, "<text class=\"grp\" x=\"0\" y=\"%d\">actual run</text>\n",
			 AXIS_H + 15);
	gs_outbuf_printf(&w->o, "<text class=\"grp\" x=\"0\" y=\"%d\">ideal schedule</text>\n",
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
		gs_outbuf_printf(&w->o, "<text x=\"8\" y=\"%d\">%s</text>\n",
				 AXIS_H + L->lanes[i].y_real + BAR_Y + 12, name);
		gs_outbuf_printf(&w->o, "<text x=\"8\" y=\"%d\">%s</text>\n",
				 AXIS_H + L->lanes[i].y_ideal + BAR_Y + 12, name);
	}
	gs_outbuf_printf(&w->o, "<text x=\"8\" y=\"%d\">breakdown</text>\n",
			 AXIS_H + L->y_band + 13);
	gs_outbuf_puts(&w->o, "</svg>\n");
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
static gs_status timeline_lanes(struct timeline_frame *L)
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

static void timeline_fini(struct timeline_frame *L)
{
	free(L->lanes);
	free(L->lane_of);
	free(L->crit);
	free(L->acc);
	free(L->cacc);
}

static gs_status timeline_init(struct html_writer *w, struct timeline_frame *L,
			       const struct gs_report_device *d, size_t di)
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
	st = timeline_lanes(L);
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
		if (d->sched.critical_path[i] < w->n_ops)
			L->crit[d->sched.critical_path[i]] = 1;

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

gs_status gs_report_html_timeline(struct html_writer *w, const struct gs_report_device *d,
				  size_t di)
{
	struct timeline_frame L;
	gs_status st;
	size_t i;
	int64_t first = 0, last = 0;

	gs_trace_op_span(w->t, &first, &last);
	st = timeline_init(w, &L, d, di);
	if (st != GS_OK) {
		timeline_fini(&L);
		return st;
	}
	gs_outbuf_puts(&w->o, "<h3>Timeline</h3>\n");
	gs_outbuf_printf(&w->o, "<div class=\"timeline\" id=\"timeline-%zu\" data-span=\"%lld\">\n",
			 di, (long long)L.span);
	gs_outbuf_printf(&w->o,
			 "<div class=\"tl-ctl\"><button data-z=\"in\" title=\"zoom in\">+</button>"
			 "<button data-z=\"out\" title=\"zoom out\">&minus;</button>"
			 "<button data-z=\"reset\">reset</button>"
			 "<span>wheel: zoom, drag: pan; times from the window start (+%s into the "
			 "trace)</span>"
			 "<span class=\"range\"></span></div>\n",
			 DUR(L.t0 - first));
	gs_outbuf_puts(&w->o, "<div class=\"tl-body\">\n");
	draw_labels(w, &L);
	gs_outbuf_puts(&w->o, "<div class=\"tl-plot\">\n");
	draw_axis(w, &L);
	gs_outbuf_printf(
		&w->o,
		"<svg class=\"lanes\" id=\"lanes-%zu\" viewBox=\"0 0 %d %d\" height=\"%d\" "
		"preserveAspectRatio=\"none\">\n",
		di, XMAX, L.height, L.height);
	/* Group separators and the end of the ideal schedule. */
	gs_outbuf_printf(&w->o, "<line class=\"sep\" x1=\"0\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n",
			 XMAX, L.y_ideal_head + 2, L.y_ideal_head + 2);
	for (i = 0; i < L.n_lanes; i++)
		draw_lane(w, &L, &L.lanes[i], false);
	if (!draw_band(w, &L)) {
		timeline_fini(&L);
		return gs_nomem();
	}
	for (i = 0; i < L.n_lanes; i++)
		draw_lane(w, &L, &L.lanes[i], true);
	if (L.n_lanes && d->ideal_ns > 0) {
		int64_t x = x_pixel_of(&L, d->ideal_ns);

		gs_outbuf_printf(&w->o,
				 "<line class=\"mark\" x1=\"%lld\" x2=\"%lld\" y1=\"%d\" y2=\"%d\">"
				 "<title>ideal makespan %s</title></line>\n",
				 (long long)x, (long long)x, L.y_ideal_head + HEAD - 2,
				 L.height - 2, DUR(d->ideal_ns));
	}
	draw_waits(w, &L);
	gs_outbuf_puts(&w->o, "</svg>\n</div>\n</div>\n");
	/* Legend. */
	gs_outbuf_puts(
		&w->o,
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
	gs_outbuf_printf(&w->o,
			 "<p class=\"more\">ideal schedule: the same ops with the same "
			 "durations and dependencies, without host or launch cost; it ends at %s "
			 "(actual %s, efficiency %s).",
			 DUR(d->ideal_ns), DUR(d->actual_ns),
			 gs_report_eff_text(d, (char[32]){0}, 32));
	if (!w->exact)
		gs_outbuf_printf(
			&w->o,
			" Drawn in %zu slices per lane (%s each): a slice takes the colour "
			"of the op kind that ran longest in it, paler when the stream was "
			"busy for less of it.",
			L.bins, DUR(L.span / (int64_t)L.bins));
	if (L.skipped)
		gs_outbuf_printf(&w->o, " %zu less busy stream%s not drawn (see Streams).",
				 L.skipped, L.skipped == 1 ? "" : "s");
	if (d->wait_count > WAITS_DRAWN || d->n_waits < d->wait_count)
		gs_outbuf_printf(&w->o, " The %zu longest of %zu waits are drawn.",
				 d->n_waits < WAITS_DRAWN ? d->n_waits : (size_t)WAITS_DRAWN,
				 d->wait_count);
	gs_outbuf_puts(&w->o, "</p>\n</div>\n");
	timeline_fini(&L);
	return GS_OK;
}
