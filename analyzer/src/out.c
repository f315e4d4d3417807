/* SPDX-License-Identifier: MIT */
/*
 * Internal FILE wrapper: remembers the first write error so that writers
 * can print without checking every call, and report it once at the end.
 */
#include "out.h"

#include <gpuscope/text.h>

#include <errno.h>
#include <stdarg.h>
#include <string.h>

void gs_out_init(struct gs_out *o, FILE *f)
{
	o->f = f;
	o->err = 0;
	o->failed = false;
}

static void gs_out_fail(struct gs_out *o)
{
	if (!o->failed) {
		o->failed = true;
		o->err = errno;
	}
}

void gs_out_printf(struct gs_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->failed)
		return;
	va_start(ap, fmt);
	n = vfprintf(o->f, fmt, ap);
	va_end(ap);
	if (n < 0)
		gs_out_fail(o);
}

void gs_out_puts(struct gs_out *o, const char *s)
{
	if (o->failed)
		return;
	if (fputs(s, o->f) == EOF)
		gs_out_fail(o);
}

void gs_out_putc(struct gs_out *o, int c)
{
	if (o->failed)
		return;
	if (putc(c, o->f) == EOF)
		gs_out_fail(o);
}

void gs_out_quoted(struct gs_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	gs_out_putc(o, '"');
	for (; *p && !o->failed; p++) {
		switch (*p) {
		case '"':
			gs_out_puts(o, "\\\"");
			break;
		case '\\':
			gs_out_puts(o, "\\\\");
			break;
		case '\n':
			gs_out_puts(o, "\\n");
			break;
		case '\t':
			gs_out_puts(o, "\\t");
			break;
		case '\r':
			gs_out_puts(o, "\\r");
			break;
		default: {
			char buf[GS_OUT_CHAR_MAX];
			size_t cols, adv, n = gs_out_text_char(p, buf, &cols, &adv);

			if (fwrite(buf, 1, n, o->f) != n)
				gs_out_fail(o);
			p += adv - 1;
			break;
		}
		}
	}
	gs_out_putc(o, '"');
}

size_t gs_out_text_char(const unsigned char *p, char *buf, size_t *cols, size_t *adv)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = gs_utf8_len(p);

	if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
		buf[0] = '\\';
		buf[1] = 'x';
		buf[2] = hex[*p >> 4];
		buf[3] = hex[*p & 15];
		*cols = 4;
		*adv = 1;
		return 4;
	}
	if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) { /* C1: U+0080..U+009F */
		buf[0] = '\\';
		buf[1] = 'u';
		buf[2] = '0';
		buf[3] = '0';
		buf[4] = hex[p[1] >> 4];
		buf[5] = hex[p[1] & 15];
		*cols = 6;
		*adv = 2;
		return 6;
	}
	memcpy(buf, p, n);
	*cols = 1;
	*adv = n;
	return n;
}

size_t gs_out_text_cols(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char buf[GS_OUT_CHAR_MAX];
	size_t total = 0, cols, adv;

	for (; *p; p += adv) {
		gs_out_text_char(p, buf, &cols, &adv);
		total += cols;
	}
	return total;
}

void gs_out_text(struct gs_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char buf[GS_OUT_CHAR_MAX];
	size_t cols, adv, n;

	for (; *p && !o->failed; p += adv) {
		n = gs_out_text_char(p, buf, &cols, &adv);
		if (fwrite(buf, 1, n, o->f) != n)
			gs_out_fail(o);
	}
}

static void out_write(void *ctx, const char *p, size_t n)
{
	struct gs_out *o = ctx;

	if (!o->failed && fwrite(p, 1, n, o->f) != n)
		gs_out_fail(o);
}

void gs_out_json_string(struct gs_out *o, const char *s)
{
	gs_json_escape(s, GS_JSON_ESCAPE_DEL, out_write, o);
}

void gs_out_duration(struct gs_out *o, int64_t ns)
{
	char buf[GS_DUR_TEXT_MAX];

	gs_out_puts(o, gs_dur_text(buf, sizeof(buf), ns));
}

gs_status gs_out_finish(struct gs_out *o)
{
	if (!o->failed && fflush(o->f) == EOF)
		gs_out_fail(o);
	if (!o->failed && ferror(o->f)) {
		o->failed = true;
		o->err = 0;
	}
	if (!o->failed)
		return GS_OK;
	if (o->err)
		gs_error_append("write failed: %s", strerror(o->err));
	else
		gs_error_append("write failed");
	return GS_ERR_IO;
}
