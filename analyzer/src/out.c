/* SPDX-License-Identifier: MIT */
/*
 * Internal FILE wrapper: remembers the first write error so that writers
 * can print without checking every call, and report it once at the end.
 */
#include "out.h"

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

/*
 * Length of the well-formed UTF-8 sequence at p (1..4), or 0 when the bytes
 * there are not one (overlong forms, surrogates and values past U+10FFFF
 * included).
 */
size_t gs_out_utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		unsigned lo = p[0] == 0xe0 ? 0xa0 : 0x80;
		unsigned hi = p[0] == 0xed ? 0x9f : 0xbf;

		if (p[1] < lo || p[1] > hi || (p[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		unsigned lo = p[0] == 0xf0 ? 0x90 : 0x80;
		unsigned hi = p[0] == 0xf4 ? 0x8f : 0xbf;

		if (p[1] < lo || p[1] > hi || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

size_t gs_out_text_char(const unsigned char *p, char *buf, size_t *cols, size_t *adv)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = gs_out_utf8_len(p);

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

void gs_out_json_string(struct gs_out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	gs_out_putc(o, '"');
	while (*p && !o->failed) {
		size_t len;

		switch (*p) {
		case '"':
			gs_out_puts(o, "\\\"");
			p++;
			continue;
		case '\\':
			gs_out_puts(o, "\\\\");
			p++;
			continue;
		case '\n':
			gs_out_puts(o, "\\n");
			p++;
			continue;
		case '\t':
			gs_out_puts(o, "\\t");
			p++;
			continue;
		case '\r':
			gs_out_puts(o, "\\r");
			p++;
			continue;
		default:
			break;
		}
		if (*p < 0x20 || *p == 0x7f) {
			gs_out_printf(o, "\\u%04x", *p);
			p++;
			continue;
		}
		/* A NUL inside a sequence fails the continuation test: no overrun. */
		len = gs_out_utf8_len(p);
		if (len == 0) {
			gs_out_puts(o, "\\ufffd");
			p++;
			continue;
		}
		if (o->failed)
			break;
		if (fwrite(p, 1, len, o->f) != len)
			gs_out_fail(o);
		p += len;
	}
	gs_out_putc(o, '"');
}

void gs_out_duration(struct gs_out *o, int64_t ns)
{
	static const struct {
		int64_t div;
		const char *unit;
	} units[] = {
		{1000000000LL, "s"},
		{1000000LL, "ms"},
		{1000LL, "us"},
	};
	const char *sign = "";
	uint64_t v;
	size_t i;

	if (ns < 0) {
		sign = "-";
		v = (uint64_t)0 - (uint64_t)ns;
	} else {
		v = (uint64_t)ns;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t div = (uint64_t)units[i].div;

		if (v >= div) {
			/* Three decimals, truncated: exact and the same everywhere. */
			uint64_t frac = (v % div) / (div / 1000);

			gs_out_printf(o, "%s%llu.%03llu %s", sign, (unsigned long long)(v / div),
				      (unsigned long long)frac, units[i].unit);
			return;
		}
	}
	gs_out_printf(o, "%s%llu ns", sign, (unsigned long long)v);
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
		gs_error_append("write error: %s", strerror(o->err));
	else
		gs_error_append("write error");
	return GS_ERR_IO;
}
