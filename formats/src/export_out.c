/* SPDX-License-Identifier: MIT */
/*
 * The buffered writer of the exporters (export_out.h): a 64 KiB buffer,
 * written with fwrite or through zlib's deflate with a gzip wrapper, and
 * the number and string encodings (exact integers, ns as µs, JSON and CSV
 * strings) written without printf.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <gpuscope/export.h>
#include <gpuscope/text.h>

#include "export_out.h"

#define ZBUF_SIZE (64u << 10)

gs_status gs_wbuf_init(struct gs_wbuf *w, FILE *f, bool gzip, int level)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->buf = malloc(GS_WBUF_SIZE);
	if (!w->buf)
		goto nomem;
	if (gzip) {
		z_stream *z = calloc(1, sizeof(*z));

		w->zbuf = malloc(ZBUF_SIZE);
		if (!z || !w->zbuf) {
			free(z);
			goto nomem;
		}
		/* windowBits 15 + 16: a gzip header and trailer. */
		if (deflateInit2(z, level > 0 && level <= 9 ? level : 6, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
			free(z);
			goto nomem;
		}
		w->z = z;
	}
	return GS_OK;
nomem:
	free(w->buf);
	free(w->zbuf);
	memset(w, 0, sizeof(*w));
	return gs_nomem();
}

static void fail_errno(struct gs_wbuf *w)
{
	if (!w->failed) {
		w->failed = true;
		w->err = errno ? errno : EIO;
	}
}

static void write_raw(struct gs_wbuf *w, const void *p, size_t n)
{
	if (w->failed || !n)
		return;
	errno = 0;
	if (fwrite(p, 1, n, w->f) != n)
		fail_errno(w);
}

/* Compress buf[0..len) with `flush` (Z_NO_FLUSH or Z_FINISH). */
static void deflate_out(struct gs_wbuf *w, const char *p, size_t n, int flush)
{
	z_stream *z = w->z;
	int rc;

	z->next_in = (Bytef *)(uintptr_t)p;
	z->avail_in = (uInt)n;
	do {
		z->next_out = w->zbuf;
		z->avail_out = ZBUF_SIZE;
		rc = deflate(z, flush);
		if (rc == Z_STREAM_ERROR) {
			if (!w->failed) {
				w->failed = true;
				w->err = -1;
			}
			return;
		}
		write_raw(w, w->zbuf, ZBUF_SIZE - z->avail_out);
		if (w->failed)
			return;
	} while (z->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

void gs_wbuf_flush_buf(struct gs_wbuf *w)
{
	if (!w->failed) {
		if (w->z)
			deflate_out(w, w->buf, w->len, Z_NO_FLUSH);
		else
			write_raw(w, w->buf, w->len);
	}
	w->len = 0;
}

void gs_wbuf_put(struct gs_wbuf *w, const char *p, size_t n)
{
	while (n) {
		size_t room = GS_WBUF_SIZE - w->len, k = n < room ? n : room;

		memcpy(w->buf + w->len, p, k);
		w->len += k;
		p += k;
		n -= k;
		if (w->len == GS_WBUF_SIZE)
			gs_wbuf_flush_buf(w);
	}
}

void gs_wbuf_puts(struct gs_wbuf *w, const char *s)
{
	gs_wbuf_put(w, s, strlen(s));
}

static void release(struct gs_wbuf *w)
{
	if (w->z) {
		deflateEnd(w->z);
		free(w->z);
	}
	free(w->zbuf);
	free(w->buf);
	w->z = NULL;
	w->zbuf = NULL;
	w->buf = NULL;
}

gs_status gs_wbuf_finish(struct gs_wbuf *w)
{
	if (!w->failed) {
		if (w->z)
			deflate_out(w, w->buf, w->len, Z_FINISH);
		else
			write_raw(w, w->buf, w->len);
	}
	w->len = 0;
	if (!w->failed) {
		errno = 0;
		if (fflush(w->f) == EOF || ferror(w->f))
			fail_errno(w);
	}
	release(w);
	if (!w->failed)
		return GS_OK;
	if (w->err == -1)
		gs_error_append("write failed: gzip compression failed");
	else
		gs_error_append("write failed: %s", strerror(w->err));
	return GS_ERR_IO;
}

void gs_wbuf_discard(struct gs_wbuf *w)
{
	release(w);
}

void gs_wbuf_u64(struct gs_wbuf *w, uint64_t v)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	gs_wbuf_put(w, tmp + i, sizeof(tmp) - i);
}

void gs_wbuf_i64(struct gs_wbuf *w, int64_t v)
{
	if (v < 0) {
		gs_wbuf_putc(w, '-');
		gs_wbuf_u64(w, (uint64_t)0 - (uint64_t)v);
	} else {
		gs_wbuf_u64(w, (uint64_t)v);
	}
}

void gs_wbuf_us(struct gs_wbuf *w, int64_t ns)
{
	uint64_t a;
	unsigned f;

	if (ns < 0) {
		gs_wbuf_putc(w, '-');
		a = (uint64_t)0 - (uint64_t)ns;
	} else {
		a = (uint64_t)ns;
	}
	gs_wbuf_u64(w, a / 1000);
	f = (unsigned)(a % 1000);
	if (f) {
		char d[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10),
			     (char)('0' + f % 10)};

		gs_wbuf_put(w, d, 4);
	}
}

static void wbuf_write(void *ctx, const char *p, size_t n)
{
	gs_wbuf_put(ctx, p, n);
}

void gs_wbuf_json_str(struct gs_wbuf *w, const char *s)
{
	gs_json_escape(s, 0, wbuf_write, w);
}

void gs_wbuf_csv_str(struct gs_wbuf *w, const char *s)
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
			gs_wbuf_putc(w, '\'');
		gs_wbuf_puts(w, s);
		return;
	}
	gs_wbuf_putc(w, '"');
	if (formula)
		gs_wbuf_putc(w, '\'');
	for (p = s; *p; p++) {
		if (*p == '"')
			gs_wbuf_putc(w, '"');
		gs_wbuf_putc(w, *p);
	}
	gs_wbuf_putc(w, '"');
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
