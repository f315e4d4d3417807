/* SPDX-License-Identifier: MIT */
/*
 * The buffered output every writer streams through (target gs_common): a
 * 64 KiB buffer in front of a FILE, or of a target of the writer's own (a
 * compressor, see gs_export's gzip). The first failure is kept (sticky):
 * later writes are skipped, and gs_outbuf_finish returns it once, at the
 * end, as GS_ERR_IO with the cause "write failed: ..." (GS_ERR_IO even for
 * an out of memory met while writing, gs_outbuf_fail). So a writer prints
 * without checking every call.
 *
 * Nothing reaches the target before the buffer is full or the writer
 * finishes: whoever writes to the same FILE meanwhile must not.
 */
#ifndef GPUSCOPE_OUTBUF_H
#define GPUSCOPE_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <gpuscope/error.h>
#include <gpuscope/text.h> /* gs_json_escape flags */

#ifdef __cplusplus
extern "C" {
#endif

#define GS_OUTBUF_SIZE (64u << 10)

struct gs_outbuf;

/*
 * A target: takes the `n` bytes at p (n may be 0); `last` on the final
 * call, from gs_outbuf_finish, after which it writes whatever it holds
 * and flushes. On failure it calls gs_outbuf_fail. Not called once the
 * writer failed.
 */
typedef void (*gs_outbuf_target_fn)(struct gs_outbuf *o, const char *p, size_t n, bool last);

struct gs_outbuf {
	char *buf;
	size_t len;
	size_t cap;
	FILE *f;                    /* the FILE target (NULL with a target of its own) */
	gs_outbuf_target_fn target; /* NULL: fwrite to f */
	void *ctx;                  /* the target's */
	int err;                    /* errno of the first failure */
	const char *why;            /* or a message of the target's, instead of strerror */
	bool failed;
	bool done;       /* finished or discarded: the buffer is gone */
	char spare[256]; /* the buffer when 64 KiB could not be had */
};

/* Write to `f`. Never fails (short of memory, with a small buffer). */
void gs_outbuf_init(struct gs_outbuf *o, FILE *f);
/* Write through `target` (ctx: its own, as o->ctx). */
void gs_outbuf_init_target(struct gs_outbuf *o, gs_outbuf_target_fn target, void *ctx);
/*
 * Write what is left (the target's last call; for a FILE, fflush and its
 * error flag), free the buffer. GS_OK, or GS_ERR_IO with a cause when any
 * write failed. Once finished, a writer takes nothing more; a second
 * finish returns the first's result again (and its cause again).
 */
gs_status gs_outbuf_finish(struct gs_outbuf *o);
/*
 * gs_outbuf_finish for a writer that already failed otherwise: what is
 * left is written all the same (a write that fails adds its cause), and
 * `earlier` is returned when it is an error, else the finish's result.
 */
gs_status gs_outbuf_finish_keep(struct gs_outbuf *o, gs_status earlier);
/* Free the buffer without writing what is left. */
void gs_outbuf_discard(struct gs_outbuf *o);
/*
 * Fail the writer (if it has not failed yet): `err` an errno value (0:
 * EIO), or `why` a message of its own (NULL: strerror(err)). Out of memory
 * while making what to write is gs_outbuf_fail(o, ENOMEM, NULL).
 */
void gs_outbuf_fail(struct gs_outbuf *o, int err, const char *why);

/* Hand the buffer to the target (the buffer is then empty). */
void gs_outbuf_flush(struct gs_outbuf *o);
void gs_outbuf_write_slow(struct gs_outbuf *o, const char *p, size_t n);
void gs_outbuf_puts(struct gs_outbuf *o, const char *s);
void gs_outbuf_printf(struct gs_outbuf *o, const char *fmt, ...) GS_PRINTF(2, 3);

static inline void gs_outbuf_putc(struct gs_outbuf *o, int c)
{
	if (o->len == o->cap)
		gs_outbuf_flush(o);
	if (o->len < o->cap)
		o->buf[o->len++] = (char)c;
}

static inline void gs_outbuf_write(struct gs_outbuf *o, const char *p, size_t n)
{
	if (n <= o->cap - o->len) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
	} else {
		gs_outbuf_write_slow(o, p, n);
	}
}

/* Exact integers, without printf. */
void gs_outbuf_u64(struct gs_outbuf *o, uint64_t v);
void gs_outbuf_i64(struct gs_outbuf *o, int64_t v);
/* Integer ns as µs, exactly: 1500 -> "1.500", 2000 -> "2", -1 -> "-0.001". */
void gs_outbuf_us(struct gs_outbuf *o, int64_t ns);
/* gs_dur_text: "830 ns", "12.345 us", "1.500 ms", "2.000 s". */
void gs_outbuf_duration(struct gs_outbuf *o, int64_t ns);
/* `s` between double quotes; '"', '\\', control characters and bytes that
 * are not UTF-8 as C escapes (C1 as "\u0080".."\u009f"). */
void gs_outbuf_quoted(struct gs_outbuf *o, const char *s);
/* `s` (a string of the trace; NULL: "") as text, each character as
 * gs_text_char writes it. */
void gs_outbuf_text(struct gs_outbuf *o, const char *s);
/* `s` as a JSON string with its quotes (gs_json_escape with `flags`). */
void gs_outbuf_json_str(struct gs_outbuf *o, const char *s, unsigned flags);
/*
 * A sentence with marked durations (gs_dur_sentence_dup) in memory of its
 * own (free): NULL, and o failed with ENOMEM, when out of memory or when
 * `marked` is NULL (a builder that ran out of memory).
 */
char *gs_outbuf_sentence(struct gs_outbuf *o, const char *marked, bool micro_sign);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_OUTBUF_H */
