/* SPDX-License-Identifier: MIT */
/*
 * Internal: the operators section (operators_out.c) of the text, JSON and
 * HTML reports.
 */
#ifndef GS_ANALYZER_OPERATORS_PRIV_H
#define GS_ANALYZER_OPERATORS_PRIV_H

#include <gpuscope/results.h>

struct gs_report;
struct gs_report_style;

struct gs_outbuf;
struct gs_json;

/* Op names under each operator in the text and HTML tables. */
#define GS_OPERATORS_TEXT_NAMES 3

void gs_operators_write_text(struct gs_outbuf *o, const struct gs_report *r,
			     const struct gs_report_device *d, const struct gs_report_style *st);
/* The "operators" member of the device object. */
void gs_operators_write_json(struct gs_json *w, const struct gs_report *r,
			     const struct gs_report_device *d);
void gs_operators_write_html(struct gs_outbuf *o, const struct gs_report *r,
			     const struct gs_report_device *d, size_t di,
			     const struct gs_report_style *st);

#endif /* GS_ANALYZER_OPERATORS_PRIV_H */
