/* SPDX-License-Identifier: MIT */
/*
 * Internal: the report sections of the per-GPU measures (measures_out.c),
 * written by the text, JSON and HTML writers.
 */
#ifndef GS_ANALYZER_MEASURES_PRIV_H
#define GS_ANALYZER_MEASURES_PRIV_H

#include <gpuscope/results.h>

struct gs_report;
struct gs_report_style;

struct gs_outbuf;
struct gs_json;

/* Annotation rows in the JSON report at most (the count beside them). */
#define GS_MEASURES_JSON_ANNOTATIONS 100

void gs_measures_write_text(struct gs_outbuf *o, const struct gs_report *r,
			    const struct gs_report_device *d, const struct gs_report_style *st);
/* Members of the device object: kernel_classes, annotations, launch_delay,
 * queue, copy_bandwidth, sync_calls. */
void gs_measures_write_json(struct gs_json *w, const struct gs_report *r,
			    const struct gs_report_device *d);
void gs_measures_write_html(struct gs_outbuf *o, const struct gs_report *r,
			    const struct gs_report_device *d, size_t di,
			    const struct gs_report_style *st);
/* The class of a row of the kernel table. */
unsigned gs_measures_kernel_row_class(const struct gs_trace *t, const struct gs_report_kernel *k);

#endif /* GS_ANALYZER_MEASURES_PRIV_H */
