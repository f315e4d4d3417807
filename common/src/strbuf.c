/* SPDX-License-Identifier: MIT */
/* The growable string (strbuf.h). */
#include <gpuscope/strbuf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gs_strbuf_init(struct gs_strbuf *b)
{
	b->p = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

/* Room for `n` more bytes and a NUL. */
static bool reserve(struct gs_strbuf *b, size_t n)
{
	size_t cap;
	char *p;

	if (b->oom)
		return false;
	if (b->len + n < b->cap)
		return true;
	if (n >= ((size_t)-1) / 4 - b->len) {
		b->oom = true;
		return false;
	}
	cap = b->cap ? b->cap : 128;
	while (cap <= b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

void gs_strbuf_add(struct gs_strbuf *b, const char *s, size_t n)
{
	if (!reserve(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void gs_strbuf_puts(struct gs_strbuf *b, const char *s)
{
	gs_strbuf_add(b, s, strlen(s));
}

void gs_strbuf_putc(struct gs_strbuf *b, char c)
{
	gs_strbuf_add(b, &c, 1);
}

void gs_strbuf_vprintf(struct gs_strbuf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (b->oom)
		return;
	va_copy(aq, ap);
	n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, aq);
	va_end(aq);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (b->p && (size_t)n < b->cap - b->len) {
		b->len += (size_t)n;
		return;
	}
	if (!reserve(b, (size_t)n))
		return;
	vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	b->len += (size_t)n;
}

void gs_strbuf_printf(struct gs_strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gs_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *gs_strbuf_take(struct gs_strbuf *b)
{
	char *p;

	if (!b->oom && !b->p)
		reserve(b, 0);
	if (b->oom || !b->p) {
		gs_strbuf_free(b);
		return NULL;
	}
	p = b->p;
	p[b->len] = '\0';
	gs_strbuf_init(b);
	return p;
}

void gs_strbuf_free(struct gs_strbuf *b)
{
	free(b->p);
	gs_strbuf_init(b);
}
