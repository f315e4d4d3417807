/* SPDX-License-Identifier: MIT */
/*
 * Private to gs_export: the small buffered writer every exporter streams
 * through (optionally gzip), with the number and string encodings they
 * share. The first failed write is kept (sticky); later writes are
 * skipped and gs_wbuf_finish returns it as GS_ERR_IO with a cause.
 */
#ifndef GS_FORMATS_EXPORT_OUT_H
#define GS_FORMATS_EXPORT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/error.h>
#include <gpuscope/trace.h>

#define GS_WBUF_SIZE (64u << 10)

struct gs_wbuf {
	FILE *f;
	char *buf;
	size_t len;
	void *z; /* z_stream when compressing */
	unsigned char *zbuf;
	int err; /* errno of the first failure, or -1 for a zlib failure */
	bool failed;
};

/* gzip with zlib `level` (0: default). GS_ERR_NOMEM with a cause. */
gs_status gs_wbuf_init(struct gs_wbuf *w, FILE *f, bool gzip, int level);
/* Flush everything (ending the gzip stream) and the FILE, free. Returns
 * GS_OK or GS_ERR_IO with a cause. */
gs_status gs_wbuf_finish(struct gs_wbuf *w);
/* Free without writing what is left. */
void gs_wbuf_discard(struct gs_wbuf *w);

void gs_wbuf_flush_buf(struct gs_wbuf *w);
void gs_wbuf_put(struct gs_wbuf *w, const char *p, size_t n);

static inline void gs_wbuf_putc(struct gs_wbuf *w, char c)
{
	if (w->len == GS_WBUF_SIZE)
		gs_wbuf_flush_buf(w);
	w->buf[w->len++] = c;
}

void gs_wbuf_puts(struct gs_wbuf *w, const char *s);
void gs_wbuf_u64(struct gs_wbuf *w, uint64_t v);
void gs_wbuf_i64(struct gs_wbuf *w, int64_t v);
/* Integer ns as µs, exactly: 1500 -> "1.500", 2000 -> "2", -1 -> "-0.001". */
void gs_wbuf_us(struct gs_wbuf *w, int64_t ns);
/* A JSON string with its quotes (gs_json_escape: control bytes escaped,
 * invalid UTF-8 as U+FFFD, DEL as is). */
void gs_wbuf_json_str(struct gs_wbuf *w, const char *s);
/* One CSV field (RFC 4180): quoted, quotes doubled, when it holds a comma,
 * a double quote, CR or LF; as is otherwise. A field that starts with '=',
 * '+', '-', '@', TAB or CR (a spreadsheet formula) gets a leading '\''. */
void gs_wbuf_csv_str(struct gs_wbuf *w, const char *s);

struct gs_export_extras;

/*
 * Per op, the API call that launched it (index into gs_trace_api_calls(),
 * GS_NO_INDEX when unknown): from x->launch when given (an index out of
 * range is none), else the trace's join (gs_trace_op_launches()). O(N).
 * Caller frees *out (also on error; it may be NULL).
 */
gs_status gs_export_launches(const struct gs_trace *t, const struct gs_export_extras *x,
			     uint32_t **out);

#endif /* GS_FORMATS_EXPORT_OUT_H */
