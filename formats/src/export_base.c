/* SPDX-License-Identifier: MIT */
/*
 * What the exporters share (export_base.h): the gzip target of their
 * gs_outbuf (zlib's deflate with a gzip wrapper, into a 64 KiB buffer
 * written with fwrite), the CSV field, and the ops' launches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <gpuscope/export.h>

#include "export_base.h"

#define ZBUF_SIZE (64u << 10)

struct gz_out {
	z_stream z;
	FILE *f;
	unsigned char zbuf[ZBUF_SIZE];
};

static void write_raw(struct gs_outbuf *o, FILE *f, const void *p, size_t n)
{
	if (!n)
		return;
	errno = 0;
	if (fwrite(p, 1, n, f) != n)
		gs_outbuf_fail(o, errno, NULL);
}

/* The gs_outbuf target: compress p[0..n), ending the stream when `last`. */
static void gz_target(struct gs_outbuf *o, const char *p, size_t n, bool last)
{
	struct gz_out *g = o->ctx;
	z_stream *z = &g->z;
	int flush = last ? Z_FINISH : Z_NO_FLUSH, rc;

	z->next_in = (Bytef *)(uintptr_t)p;
	z->avail_in = (uInt)n;
	do {
		z->next_out = g->zbuf;
		z->avail_out = ZBUF_SIZE;
		rc = deflate(z, flush);
		if (rc == Z_STREAM_ERROR) {
			gs_outbuf_fail(o, 0, "gzip compression failed");
			return;
		}
		write_raw(o, g->f, g->zbuf, ZBUF_SIZE - z->avail_out);
		if (o->failed)
			return;
	} while (z->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	if (last) {
		errno = 0;
		if (fflush(g->f) == EOF || ferror(g->f))
			gs_outbuf_fail(o, errno, NULL);
	}
}

gs_status gs_export_out_open(struct gs_outbuf *o, FILE *f, bool gzip, int level)
{
	struct gz_out *g;

	if (!gzip) {
		gs_outbuf_init(o, f);
		return GS_OK;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return gs_nomem();
	/* windowBits 15 + 16: a gzip header and trailer. */
	if (deflateInit2(&g->z, level > 0 && level <= 9 ? level : 6, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return gs_nomem();
	}
	g->f = f;
	gs_outbuf_init_target(o, gz_target, g);
	return GS_OK;
}

static void gz_free(struct gs_outbuf *o)
{
	struct gz_out *g = o->target == gz_target ? o->ctx : NULL;

	if (g) {
		deflateEnd(&g->z);
		free(g);
		o->ctx = NULL;
		o->target = NULL;
	}
}

gs_status gs_export_out_finish(struct gs_outbuf *o)
{
	gs_status rc = gs_outbuf_finish(o);

	gz_free(o);
	return rc;
}

void gs_export_out_discard(struct gs_outbuf *o)
{
	gs_outbuf_discard(o);
	gz_free(o);
}

void gs_export_csv_str(struct gs_outbuf *o, const char *s)
{
	/* A spreadsheet runs a cell that starts so as a formula: a trace's
	 * name "=HYPERLINK(...)" must stay text, so it gets a leading '. */
	bool formula;
	const char *p;

	if (!s)
		return;
	formula = *s && strchr("=+-@\t\r", *s);
	if (!strpbrk(s, ",\"\r\n")) {
		if (formula)
			gs_outbuf_putc(o, '\'');
		gs_outbuf_puts(o, s);
		return;
	}
	gs_outbuf_putc(o, '"');
	if (formula)
		gs_outbuf_putc(o, '\'');
	for (p = s; *p; p++) {
		if (*p == '"')
			gs_outbuf_putc(o, '"');
		gs_outbuf_putc(o, *p);
	}
	gs_outbuf_putc(o, '"');
}

/* ---- joining ops to their calls ---------------------------------------- */

gs_status gs_export_launches(const struct gs_trace *t, const struct gs_export_extras *x,
			     uint32_t **out)
{
	size_t n_ops, n_api, n_launch;
	const uint32_t *from = x && x->launch ? x->launch : gs_trace_op_launches(t, &n_launch);
	uint32_t *l;

	*out = NULL;
	gs_trace_ops(t, &n_ops);
	gs_trace_api_calls(t, &n_api);
	if (!from && n_ops) {
		gs_error_append("the trace is not finished");
		return GS_ERR_INVALID;
	}
	l = malloc((n_ops ? n_ops : 1) * sizeof(*l));
	*out = l;
	if (!l)
		return gs_nomem();
	for (size_t i = 0; i < n_ops; i++)
		l[i] = from[i] < n_api ? from[i] : GS_NO_INDEX;
	return GS_OK;
}
