/* SPDX-License-Identifier: MIT */
/* The streaming JSON writer (json.h). */
#include <gpuscope/json.h>

#include <math.h>
#include <string.h>

#include <gpuscope/text.h>

void gs_json_init(struct gs_json *w, struct gs_outbuf *o, unsigned esc)
{
	memset(w, 0, sizeof(*w));
	w->o = o;
	w->esc = esc;
}

static void indent(struct gs_outbuf *o, int levels)
{
	gs_outbuf_putc(o, '\n');
	for (int i = 0; i < levels; i++)
		gs_outbuf_write(o, "  ", 2);
}

void gs_json_key(struct gs_json *w, const char *key)
{
	int d = w->depth;

	if (d > 0) {
		if (!w->first[d])
			gs_outbuf_putc(w->o, ',');
		if (!w->compact[d] || (w->wrap && w->mixed[d]))
			indent(w->o, d);
		else if (!w->first[d])
			gs_outbuf_putc(w->o, ' ');
		w->first[d] = false;
	}
	w->wrap = false;
	if (key) {
		gs_outbuf_json_str(w->o, key, w->esc);
		gs_outbuf_write(w->o, ": ", 2);
	}
}

static void json_open(struct gs_json *w, const char *key, char c, bool compact, bool mixed)
{
	/* Inside a row, everything is one line; inside a mixed object, as opened. */
	bool parent_compact = w->depth > 0 && w->compact[w->depth] && !w->mixed[w->depth];

	gs_json_key(w, key);
	gs_outbuf_putc(w->o, c);
	if (w->depth + 1 < GS_JSON_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
	w->compact[w->depth] = compact || mixed || parent_compact;
	w->mixed[w->depth] = mixed && !parent_compact;
}

static void json_close(struct gs_json *w, char c)
{
	int d = w->depth;

	if (!w->first[d] && !w->compact[d])
		indent(w->o, d - 1);
	gs_outbuf_putc(w->o, c);
	if (w->depth > 0)
		w->depth--;
}

void gs_json_obj(struct gs_json *w, const char *key)
{
	json_open(w, key, '{', false, false);
}

void gs_json_row(struct gs_json *w, const char *key)
{
	json_open(w, key, '{', true, false);
}

void gs_json_arr(struct gs_json *w, const char *key)
{
	json_open(w, key, '[', false, false);
}

void gs_json_arr_inline(struct gs_json *w, const char *key)
{
	json_open(w, key, '[', true, false);
}

void gs_json_mixed(struct gs_json *w, const char *key)
{
	json_open(w, key, '{', false, true);
}

void gs_json_wrap(struct gs_json *w)
{
	w->wrap = true;
}

void gs_json_end_obj(struct gs_json *w)
{
	json_close(w, '}');
}

void gs_json_end_arr(struct gs_json *w)
{
	json_close(w, ']');
}

void gs_json_u64(struct gs_json *w, const char *key, uint64_t v)
{
	gs_json_key(w, key);
	gs_outbuf_u64(w->o, v);
}

void gs_json_i64(struct gs_json *w, const char *key, int64_t v)
{
	gs_json_key(w, key);
	gs_outbuf_i64(w->o, v);
}

void gs_json_str(struct gs_json *w, const char *key, const char *s)
{
	gs_json_key(w, key);
	gs_outbuf_json_str(w->o, s ? s : "", w->esc);
}

void gs_json_bool(struct gs_json *w, const char *key, bool v)
{
	gs_json_key(w, key);
	gs_outbuf_puts(w->o, v ? "true" : "false");
}

void gs_json_null(struct gs_json *w, const char *key)
{
	gs_json_key(w, key);
	gs_outbuf_write(w->o, "null", 4);
}

void gs_json_raw(struct gs_json *w, const char *key, const char *text)
{
	gs_json_key(w, key);
	gs_outbuf_puts(w->o, text);
}

void gs_json_fixed(struct gs_json *w, const char *key, double v)
{
	gs_json_key(w, key);
	if (!isfinite(v))
		v = 0;
	gs_outbuf_printf(w->o, "%.4f", v);
}

void gs_json_double(struct gs_json *w, const char *key, double v)
{
	gs_json_key(w, key);
	if (isfinite(v))
		gs_outbuf_printf(w->o, "%.17g", v);
	else
		gs_outbuf_write(w->o, "null", 4);
}
