/* SPDX-License-Identifier: MIT */
/*
 * A growable string in memory (target gs_common): appends that never fail
 * one by one. Out of memory is kept (sticky): later appends do nothing and
 * gs_strbuf_take returns NULL, so that a builder checks once, at the end.
 * The text is NUL-terminated after every append that succeeded.
 */
#ifndef GPUSCOPE_STRBUF_H
#define GPUSCOPE_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <gpuscope/error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_strbuf {
	char *p; /* the text, NUL-terminated; NULL while empty */
	size_t len;
	size_t cap;
	bool oom; /* an append ran out of memory */
};

#define GS_STRBUF_INIT                                                                             \
	{                                                                                          \
		NULL, 0, 0, false                                                                  \
	}

void gs_strbuf_init(struct gs_strbuf *b);
/* `n` bytes of `s` (no NUL needed). */
void gs_strbuf_add(struct gs_strbuf *b, const char *s, size_t n);
void gs_strbuf_puts(struct gs_strbuf *b, const char *s);
void gs_strbuf_putc(struct gs_strbuf *b, char c);
void gs_strbuf_printf(struct gs_strbuf *b, const char *fmt, ...) GS_PRINTF(2, 3);
void gs_strbuf_vprintf(struct gs_strbuf *b, const char *fmt, va_list ap);
/* The text ("" when nothing was appended), the caller's to free; NULL
 * when an append ran out of memory (or this one does). Leaves b empty. */
char *gs_strbuf_take(struct gs_strbuf *b);
/* Free the text; b is empty again (its out of memory forgotten). */
void gs_strbuf_free(struct gs_strbuf *b);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_STRBUF_H */
