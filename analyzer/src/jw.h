/* SPDX-License-Identifier: MIT */
/*
 * Internal: the streaming JSON writer of the analyze report (report_json.c)
 * and of its job section (job_json.c). Objects are indented, rows (jw_row,
 * jw_arr_inline) are one line each; every write goes through gs_out, which
 * records the first failure.
 */
#ifndef GS_ANALYZER_JW_H
#define GS_ANALYZER_JW_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "out.h"

#define JW_MAX_DEPTH 16

struct jw {
	struct gs_out o;
	int depth;
	bool first[JW_MAX_DEPTH];
	bool compact[JW_MAX_DEPTH];
};

/* Separator and indentation before a member of the current container. */
static inline void jw_sep(struct jw *w)
{
	int d = w->depth;

	if (d == 0)
		return;
	if (!w->first[d])
		gs_out_putc(&w->o, ',');
	if (w->compact[d]) {
		if (!w->first[d])
			gs_out_putc(&w->o, ' ');
	} else {
		int i;

		gs_out_putc(&w->o, '\n');
		for (i = 0; i < d; i++)
			gs_out_puts(&w->o, "  ");
	}
	w->first[d] = false;
}

static inline void jw_key(struct jw *w, const char *key)
{
	jw_sep(w);
	if (key) {
		gs_out_json_string(&w->o, key);
		gs_out_puts(&w->o, ": ");
	}
}

static inline void jw_open(struct jw *w, const char *key, char c, bool compact)
{
	bool parent_compact = w->depth > 0 && w->compact[w->depth];

	jw_key(w, key);
	gs_out_putc(&w->o, c);
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
	w->compact[w->depth] = compact || parent_compact;
}

static inline void jw_obj(struct jw *w, const char *key)
{
	jw_open(w, key, '{', false);
}

static inline void jw_row(struct jw *w, const char *key)
{
	jw_open(w, key, '{', true);
}

static inline void jw_arr(struct jw *w, const char *key)
{
	jw_open(w, key, '[', false);
}

static inline void jw_arr_inline(struct jw *w, const char *key)
{
	jw_open(w, key, '[', true);
}

static inline void jw_close(struct jw *w, char c)
{
	int d = w->depth;

	if (!w->first[d] && !w->compact[d]) {
		int i;

		gs_out_putc(&w->o, '\n');
		for (i = 0; i < d - 1; i++)
			gs_out_puts(&w->o, "  ");
	}
	gs_out_putc(&w->o, c);
	if (w->depth > 0)
		w->depth--;
}

static inline void jw_end_obj(struct jw *w)
{
	jw_close(w, '}');
}

static inline void jw_end_arr(struct jw *w)
{
	jw_close(w, ']');
}

static inline void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	gs_out_printf(&w->o, "%llu", (unsigned long long)v);
}

static inline void jw_i64(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	gs_out_printf(&w->o, "%lld", (long long)v);
}

static inline void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	gs_out_json_string(&w->o, s ? s : "");
}

static inline void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	gs_out_puts(&w->o, v ? "true" : "false");
}

static inline void jw_null(struct jw *w, const char *key)
{
	jw_key(w, key);
	gs_out_puts(&w->o, "null");
}

/* A fraction with four decimals (0 for a value that is not finite). */
static inline void jw_fixed(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	if (!isfinite(v))
		v = 0;
	gs_out_printf(&w->o, "%.4f", v);
}

#endif /* GS_ANALYZER_JW_H */
