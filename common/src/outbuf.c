/* SPDX-License-Identifier: MIT */
/*
 * The buffered output (outbuf.h): a 64 KiB buffer handed to fwrite or to a
 * target of the writer's own, the first failure kept, and the encodings
 * every writer shares (exact integers, ns as µs, quoted and escaped
 * strings) written without printf where they are hot.
 */
#include <gpuscope/outbuf.h>

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/text.h>

static void init(struct gs_outbuf *o, FILE *f, gs_outbuf_target_fn target, void *ctx)
{
	o->f = f;
	o->target = target;
	o->ctx = ctx;
	o->err = 0;
	o->why = NULL;
	o->failed = false;
	o->done = false;
	o->len = 0;
	o->buf = malloc(GS_OUTBUF_SIZE);
	o->cap = GS_OUTBUF_SIZE;
	if (!o->buf) {
		o->buf = o->spare;
		o->cap = sizeof(o->spare);
	}
}

void gs_outbuf_init(struct gs_outbuf *o, FILE *f)
{
	init(o, f, NULL, NULL);
}

void gs_outbuf_init_target(struct gs_outbuf *o, gs_outbuf_target_fn target, void *ctx)
{
	init(o, NULL, target, ctx);
}

void gs_outbuf_fail(struct gs_outbuf *o, int err, const char *why)
{
	if (o->failed)
		return;
	o->failed = true;
	o->err = err ? err : EIO;
	o->why = why;
}

static void put_file(struct gs_outbuf *o, const char *p, size_t n)
{
	if (!n)
		return;
	errno = 0;
	if (fwrite(p, 1, n, o->f) != n)
		gs_outbuf_fail(o, errno, NULL);
}

static void hand_over(struct gs_outbuf *o, bool last)
{
	if (o->failed)
		return;
	if (o->target)
		o->target(o, o->buf, o->len, last);
	else
		put_file(o, o->buf, o->len);
}

void gs_outbuf_flush(struct gs_outbuf *o)
{
	if (!o->done)
		hand_over(o, false);
	o->len = 0;
}

void gs_outbuf_write_slow(struct gs_outbuf *o, const char *p, size_t n)
{
	while (n && !o->done) {
		size_t room = o->cap - o->len, k = n < room ? n : room;

		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p += k;
		n -= k;
		if (o->len == o->cap)
			gs_outbuf_flush(o);
	}
}

void gs_outbuf_puts(struct gs_outbuf *o, const char *s)
{
	gs_outbuf_write(o, s, strlen(s));
}

void gs_outbuf_printf(struct gs_outbuf *o, const char *fmt, ...)
{
	va_list ap;
	size_t room = o->cap - o->len;
	int n;

	if (o->failed || o->done)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, room, fmt, ap);
	va_end(ap);
	if (n < 0) {
		gs_outbuf_fail(o, errno, NULL);
		return;
	}
	if ((size_t)n < room) {
		o->len += (size_t)n;
		return;
	}
	gs_outbuf_flush(o);
	if ((size_t)n < o->cap) {
		va_start(ap, fmt);
		vsnprintf(o->buf, o->cap, fmt, ap);
		va_end(ap);
		o->len = (size_t)n;
	} else { /* longer than the buffer: in memory of its own */
		char *big = malloc((size_t)n + 1);

		if (!big) {
			gs_outbuf_fail(o, ENOMEM, NULL);
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		gs_outbuf_write(o, big, (size_t)n);
		free(big);
	}
}

static void release(struct gs_outbuf *o)
{
	if (o->buf != o->spare)
		free(o->buf);
	o->buf = o->spare; /* never NULL: a write after the end stays harmless */
	o->len = 0;
	o->cap = 0;
	o->done = true;
}

gs_status gs_outbuf_finish(struct gs_outbuf *o)
{
	if (!o->done) {
		hand_over(o, true);
		if (!o->failed && !o->target) {
			errno = 0;
			if (fflush(o->f) == EOF || ferror(o->f))
				gs_outbuf_fail(o, errno, NULL);
		}
		release(o);
	}
	if (!o->failed)
		return GS_OK;
	gs_error_append("write failed: %s", o->why ? o->why : strerror(o->err));
	return GS_ERR_IO;
}

gs_status gs_outbuf_finish_keep(struct gs_outbuf *o, gs_status earlier)
{
	gs_status st = gs_outbuf_finish(o);

	return earlier != GS_OK ? earlier : st;
}

void gs_outbuf_discard(struct gs_outbuf *o)
{
	if (!o->done)
		release(o);
}

void gs_outbuf_u64(struct gs_outbuf *o, uint64_t v)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	gs_outbuf_write(o, tmp + i, sizeof(tmp) - i);
}

void gs_outbuf_i64(struct gs_outbuf *o, int64_t v)
{
	if (v < 0) {
		gs_outbuf_putc(o, '-');
		gs_outbuf_u64(o, (uint64_t)0 - (uint64_t)v);
	} else {
		gs_outbuf_u64(o, (uint64_t)v);
	}
}

void gs_outbuf_us(struct gs_outbuf *o, int64_t ns)
{
	uint64_t a;
	unsigned f;

	if (ns < 0) {
		gs_outbuf_putc(o, '-');
		a = (uint64_t)0 - (uint64_t)ns;
	} else {
		a = (uint64_t)ns;
	}
	gs_outbuf_u64(o, a / 1000);
	f = (unsigned)(a % 1000);
	if (f) {
		char d[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10),
			     (char)('0' + f % 10)};

		gs_outbuf_write(o, d, 4);
	}
}

void gs_outbuf_duration(struct gs_outbuf *o, int64_t ns)
{
	char buf[GS_DUR_TEXT_MAX];

	gs_outbuf_puts(o, gs_dur_text(buf, sizeof(buf), ns));
}

void gs_outbuf_quoted(struct gs_outbuf *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	gs_outbuf_putc(o, '"');
	for (; *p && !o->failed; p++) {
		switch (*p) {
		case '"':
			gs_outbuf_puts(o, "\\\"");
			break;
		case '\\':
			gs_outbuf_puts(o, "\\\\");
			break;
		case '\n':
			gs_outbuf_puts(o, "\\n");
			break;
		case '\t':
			gs_outbuf_puts(o, "\\t");
			break;
		case '\r':
			gs_outbuf_puts(o, "\\r");
			break;
		default: {
			char buf[GS_TEXT_CHAR_MAX];
			size_t cols, adv, n = gs_text_char(p, buf, &cols, &adv);

			gs_outbuf_write(o, buf, n);
			p += adv - 1;
			break;
		}
		}
	}
	gs_outbuf_putc(o, '"');
}

void gs_outbuf_text(struct gs_outbuf *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char buf[GS_TEXT_CHAR_MAX];
	size_t cols, adv, n;

	for (; *p && !o->failed; p += adv) {
		n = gs_text_char(p, buf, &cols, &adv);
		gs_outbuf_write(o, buf, n);
	}
}

static void put_run(void *ctx, const char *p, size_t n)
{
	gs_outbuf_write(ctx, p, n);
}

void gs_outbuf_json_str(struct gs_outbuf *o, const char *s, unsigned flags)
{
	gs_json_escape(s, flags, put_run, o);
}

char *gs_outbuf_sentence(struct gs_outbuf *o, const char *marked, bool micro_sign)
{
	char *s = marked ? gs_dur_sentence_dup(marked, micro_sign) : NULL;

	if (!s)
		gs_outbuf_fail(o, ENOMEM, NULL);
	return s;
}
