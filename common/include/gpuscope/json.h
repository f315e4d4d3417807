/* SPDX-License-Identifier: MIT */
/*
 * The streaming JSON writer (target gs_common) over a gs_outbuf, for the
 * reports, the diff, the plan, the counts of `gpuscope info` and the job
 * generator's expected.json. Objects
 * and arrays are indented two spaces a level, one member a line; rows
 * (gs_json_row, gs_json_arr_inline) are one line each, their members
 * separated by ", "; everything inside a row stays on its line. A mixed
 * object (gs_json_mixed) opens and closes like a row, its members one
 * after another on a line, but gs_json_wrap starts its next member on a
 * line of its own, indented as an object's member, and the containers in
 * it are indented or rows as opened (inside a row, it is a row). A
 * member's key is written when given (inside an object) and left out when
 * NULL (an array's element, the top value). Failures are the gs_outbuf's.
 *
 * Compact JSON written for speed (the Chrome trace export) goes straight
 * to the gs_outbuf: gs_outbuf_json_str, gs_outbuf_u64, gs_outbuf_i64 and
 * gs_outbuf_us are its raw values, without printf.
 */
#ifndef GPUSCOPE_JSON_H
#define GPUSCOPE_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <gpuscope/outbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Deeper containers are written, but indented as this deep. */
#define GS_JSON_MAX_DEPTH 16

struct gs_json {
	struct gs_outbuf *o;
	unsigned esc; /* gs_json_escape's flags for every string */
	int depth;
	bool first[GS_JSON_MAX_DEPTH];
	bool compact[GS_JSON_MAX_DEPTH];
	bool mixed[GS_JSON_MAX_DEPTH];
	bool wrap; /* gs_json_wrap: the next member on a line of its own */
};

/* Strings escaped with `esc` (gs_json_escape's flags). At depth 0; a
 * writer that continues a document one level in sets depth (and first[],
 * false: a member before). */
void gs_json_init(struct gs_json *w, struct gs_outbuf *o, unsigned esc);

/* The separator and indentation before a member of the current container,
 * then its key and ": " when `key` is not NULL. */
void gs_json_key(struct gs_json *w, const char *key);
/* Open an object or an array: indented, or one line (row). */
void gs_json_obj(struct gs_json *w, const char *key);
void gs_json_row(struct gs_json *w, const char *key);
void gs_json_arr(struct gs_json *w, const char *key);
void gs_json_arr_inline(struct gs_json *w, const char *key);
/* Open a mixed object; start its next member on a line of its own (in a
 * mixed object only: nothing elsewhere). */
void gs_json_mixed(struct gs_json *w, const char *key);
void gs_json_wrap(struct gs_json *w);
void gs_json_end_obj(struct gs_json *w);
void gs_json_end_arr(struct gs_json *w);

void gs_json_u64(struct gs_json *w, const char *key, uint64_t v);
void gs_json_i64(struct gs_json *w, const char *key, int64_t v);
/* NULL: "". */
void gs_json_str(struct gs_json *w, const char *key, const char *s);
void gs_json_bool(struct gs_json *w, const char *key, bool v);
void gs_json_null(struct gs_json *w, const char *key);
/* `text` as it is: a number formatted by the caller ("1.5", "2e-06"). */
void gs_json_raw(struct gs_json *w, const char *key, const char *text);
/* A fraction with four decimals (0 for a value that is not finite). */
void gs_json_fixed(struct gs_json *w, const char *key, double v);
/* A double to its last bit ("%.17g": strtod gives `v` back), for the
 * numbers a reader compares exactly; null for a value that is not
 * finite. */
void gs_json_double(struct gs_json *w, const char *key, double v);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_JSON_H */
