/* SPDX-License-Identifier: MIT */
/*
 * Text every writer shares (target gs_common): UTF-8 validation, JSON
 * string escaping through a write callback (so that a FILE, a buffered
 * writer or a memory buffer can take it), and durations for people.
 */
#ifndef GPUSCOPE_TEXT_H
#define GPUSCOPE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0 when the bytes
 * there are not one (overlong forms, surrogates, values past U+10FFFF). A
 * NUL inside a sequence fails the continuation test: no read past it. */
size_t gs_utf8_len(const unsigned char *p);

/* Whether the n bytes at s (no NUL needed) hold the string `sub`. */
bool gs_has_sub(const char *s, size_t n, const char *sub);

/*
 * Text for people from a string of the trace (a name, a warning): one
 * character of `p` as it prints. A control character (C0, DEL, C1) or a
 * byte that is not UTF-8 becomes its escape, "\x1b" or "\u009b", so that
 * a trace can neither move the cursor nor start a line of its own. Writes
 * it to buf (at least GS_TEXT_CHAR_MAX bytes, no NUL) and returns its
 * length in bytes; *cols: the columns it takes (one per code point, the
 * escape's length), *adv: the bytes of `p` it stands for.
 */
#define GS_TEXT_CHAR_MAX 8
size_t gs_text_char(const unsigned char *p, char *buf, size_t *cols, size_t *adv);
/* Columns of `s` (NULL: "") written character by character so. */
size_t gs_text_cols(const char *s);

/* Takes the next `n` bytes of output. */
typedef void (*gs_text_write_fn)(void *ctx, const char *p, size_t n);

/* With gs_json_escape: DEL (U+007F) as "\u007f" too (JSON allows it raw). */
#define GS_JSON_ESCAPE_DEL 1u

/*
 * `s` (NULL: "") as a JSON string between double quotes, passed to
 * write(ctx, ...) in runs: '"' and '\\' escaped, '\n', '\r', '\t' as
 * such, other control characters as "\u00XX" (lowercase hex), each byte
 * that does not begin a well-formed UTF-8 sequence as "\ufffd".
 */
void gs_json_escape(const char *s, unsigned flags, gs_text_write_fn write, void *ctx);

/* Room enough for any duration gs_dur_text and gs_dur_text_in write. */
#define GS_DUR_TEXT_MAX 32

/* A duration for people, three decimals truncated: "830 ns", "12.345 us",
 * "1.500 ms", "-2.000 s". Returns buf. */
const char *gs_dur_text(char *buf, size_t size, int64_t ns);
/* One unit for several durations shown together (a line of a table): the
 * divisor (1e9 s, 1e6 ms, 1e3 us, 1 ns) gs_dur_text would choose for the
 * largest magnitude among them. */
uint64_t gs_dur_unit(uint64_t max_abs_ns);
/* A duration in that unit ("0.013 ms"), with "+" before a positive one
 * when `plus`. Returns buf. */
const char *gs_dur_text_in(char *buf, size_t size, int64_t ns, uint64_t unit, bool plus);

/*
 * Sentences with durations in them (a finding: "idle 1.250 ms of 3.000 ms")
 * are made with each duration marked, GS_DUR_MARK_FMT printed with its ns
 * as a long long, and written out by the writer: every marked duration of
 * the sentence in one unit, the largest's (so it never reads "48.745 ms
 * of 16.025 s"), microseconds as "us" or, with micro_sign, as "µs" (UTF-8).
 * A duration marked GS_DUR_OWN_FMT keeps a unit of its own (gs_dur_text's).
 * A sentence without marks is written as it is.
 */
#define GS_DUR_MARK_FMT "\x01%lld\x02"
#define GS_DUR_OWN_FMT "\x03%lld\x02"
/* Room for one marked duration and its NUL. */
#define GS_DUR_MARK_MAX 24
/* `ns` marked (GS_DUR_MARK_FMT, or GS_DUR_OWN_FMT for gs_dur_own_mark) in
 * buf (GS_DUR_MARK_MAX bytes); returns buf. */
const char *gs_dur_mark(char *buf, size_t size, int64_t ns);
const char *gs_dur_own_mark(char *buf, size_t size, int64_t ns);
/* The same in a buffer of the caller's expression, for printf arguments. */
#define GS_DUR_MARK(ns) gs_dur_mark((char[GS_DUR_MARK_MAX]){0}, GS_DUR_MARK_MAX, (ns))
#define GS_DUR_OWN(ns) gs_dur_own_mark((char[GS_DUR_MARK_MAX]){0}, GS_DUR_MARK_MAX, (ns))
/* Like snprintf: the whole result's length is returned, at most size - 1
 * bytes of it are written, and a NUL (size > 0). */
size_t gs_dur_sentence(const char *s, bool micro_sign, char *buf, size_t size);
/* The same in memory of its own (free), NULL when out of memory. */
char *gs_dur_sentence_dup(const char *s, bool micro_sign);

/*
 * Ascending numbers as runs, for people: "0-3, 5, 7-9" (a run of two as
 * "4, 5" with pairs_apart, else "4-5"). `next` hands out the numbers one
 * by one (false: no more). After max_runs runs, a further one is written
 * as ", ..." and the rest not read. Returns false when buf is too small:
 * what fits was written, cut there.
 */
bool gs_text_runs(char *buf, size_t size, bool (*next)(void *ctx, uint32_t *v), void *ctx,
		  size_t max_runs, bool pairs_apart);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_TEXT_H */
