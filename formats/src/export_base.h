/* SPDX-License-Identifier: MIT */
/*
 * Private to gs_export: what every exporter shares beyond the gs_outbuf it
 * streams through. The output, plain or gzip (a gs_outbuf target over
 * zlib's deflate), one CSV field, and the API call that launched each op.
 */
#ifndef GS_FORMATS_EXPORT_BASE_H
#define GS_FORMATS_EXPORT_BASE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/error.h>
#include <gpuscope/outbuf.h>
#include <gpuscope/trace.h>

/*
 * Write to `f` through o, gzip with zlib `level` (0: default) when `gzip`.
 * GS_ERR_NOMEM with a cause (o then holds nothing to free).
 */
gs_status gs_export_out_open(struct gs_outbuf *o, FILE *f, bool gzip, int level);
/* gs_outbuf_finish (ending the gzip stream), then free the compressor.
 * GS_OK or GS_ERR_IO with a cause. */
gs_status gs_export_out_finish(struct gs_outbuf *o);
/* Free without writing what is left. */
void gs_export_out_discard(struct gs_outbuf *o);

/* One CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma,
 * a double quote, CR or LF; as is otherwise. A field that starts with '=',
 * '+', '-', '@', TAB or CR (a spreadsheet formula) gets a leading '\''. */
void gs_export_csv_str(struct gs_outbuf *o, const char *s);

struct gs_export_extras;

/*
 * Per op, the API call that launched it (index into gs_trace_api_calls(),
 * GS_NO_INDEX when unknown): from x->launch when given (an index out of
 * range is none), else the trace's join (gs_trace_op_launches()). O(N).
 * Caller frees *out (also on error; it may be NULL).
 */
gs_status gs_export_launches(const struct gs_trace *t, const struct gs_export_extras *x,
			     uint32_t **out);

#endif /* GS_FORMATS_EXPORT_BASE_H */
