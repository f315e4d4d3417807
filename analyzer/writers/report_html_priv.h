/* SPDX-License-Identifier: MIT */
/*
 * Internal: between the parts of the HTML report (report_html.c writes the
 * page, report_html_timeline.c draws the timeline, report_html_tables.c
 * writes the tables): the drawing sizes, the writer's state and the small
 * helpers all three use.
 */
#ifndef GS_ANALYZER_REPORT_HTML_PRIV_H
#define GS_ANALYZER_REPORT_HTML_PRIV_H

#include <gpuscope/report_parts.h>
#include <gpuscope/report_phrases.h>
#include "report_write_priv.h"

#include <string.h>

#include <gpuscope/outbuf.h>

#define XMAX 1000000                /* drawing units across the whole span */
#define EXACT_OPS 3000              /* ops drawn one by one, over all devices */
#define BINS_MAX 2000               /* slices per lane at most */
#define BINS_MIN 100                /* ... and at least */
#define CELL_BUDGET 96000           /* slices over all lanes of the page */
#define LANES_MAX GS_HTML_LANES_MAX /* streams drawn per device */
#define WAITS_DRAWN 200             /* waits drawn per device */
#define NAME_MAX_CPS 90             /* names in tables, code points */
#define TIP_MAX_CPS 60              /* names in tooltips */

/* Layout of the timeline, in pixels. */
#define PITCH 22 /* one lane */
#define STRIP 3  /* the critical path strip at the top of a lane */
#define BAR_Y 5  /* the op bar inside a lane */
#define BAR_H 15
#define HEAD 22   /* a group header row */
#define BAND_H 18 /* the breakdown band */
#define LABEL_W 170
#define AXIS_H 24 /* the axis above the lanes */

struct html_writer {
	struct gs_outbuf o;
	const struct gs_report *r;
	const struct gs_trace *t;
	const struct gs_report_device *dev; /* r's devices (a rank's report) */
	size_t n_dev;
	struct gs_report_style st; /* resolved (gs_report_style_of) */
	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_stream *streams;
	size_t n_streams;
	bool exact;  /* draw every op */
	size_t bins; /* slices per lane when binned */
	/* A trace's page: the devices whose sections it holds (NULL: all),
	 * at most GS_REPORT_HTML_MAX_DEVICES of them. */
	const bool *dev_shown;
	size_t n_dev_shown;
};

/* Device sections on a trace's page at most (each some 10 KB, up to about
 * 0.6 MB with a timeline of a million ops): those with the most ops. */
#define GS_REPORT_HTML_MAX_DEVICES 64

/* `s` as HTML text (gs_report_html_text). */
static inline void html_text(struct html_writer *w, const char *s, size_t max)
{
	gs_report_html_text(&w->o, s, max);
}

#define DUR(ns) gs_report_dur_utf8((char[48]){0}, 48, (ns))
#define PCT(a, b) gs_report_pct((char[32]){0}, 32, (a), (b))

/* What to call an op (report.c). */
static inline const char *op_label(struct html_writer *w, uint32_t op, char *buf, size_t size)
{
	return gs_report_op_label(w->t, op, buf, size);
}

static inline uint64_t op_stream_id(struct html_writer *w, uint32_t op)
{
	return gs_report_op_stream(w->t, op);
}

/* report_html_timeline.c: a device's timeline (its lanes, band, waits and
 * critical path on one time axis). */
gs_status gs_report_html_timeline(struct html_writer *w, const struct gs_report_device *d,
				  size_t di);

/* report_html_tables.c: a device's tables, in the page's order. */
void gs_report_html_schedule(struct html_writer *w, const struct gs_report_device *d, size_t di);
void gs_report_html_steps(struct html_writer *w, const struct gs_report_device *d, size_t di);
gs_status gs_report_html_critical(struct html_writer *w, const struct gs_report_device *d,
				  size_t di);
void gs_report_html_waits(struct html_writer *w, const struct gs_report_device *d, size_t di);
void gs_report_html_missed(struct html_writer *w, const struct gs_report_device *d, size_t di);
void gs_report_html_idle(struct html_writer *w, const struct gs_report_device *d, size_t di);
void gs_report_html_candidates(struct html_writer *w, const struct gs_report_device *d, size_t di);
void gs_report_html_streams(struct html_writer *w, const struct gs_report_device *d, size_t di);
void gs_report_html_kernels(struct html_writer *w, const struct gs_report_device *d, size_t di);

#endif /* GS_ANALYZER_REPORT_HTML_PRIV_H */
