/* SPDX-License-Identifier: MIT */
/*
 * The Kineto importer's JSON scanner: the byte window over the (gz) input,
 * the bracket-matching scan that cuts one value out of it within the depth,
 * value-size and string-size limits, and the readers of JSON text in memory
 * (member lookup in an event's bytes, string unescaping, integers, µs number
 * text to exact ns, NaN/Infinity made null). It knows JSON, not Chrome
 * traces: kineto.c walks the document and turns events into records.
 */
#include "kineto_scan.h"

#include "gzin.h"
#include "kineto_pipe.h"

#include <gpuscope/error.h>

#include <stdlib.h>
#include <string.h>

const char *const kin_ev_keys[EV_COUNT] = {"ph", "cat", "name", "ts", "dur", "pid", "tid", "args"};

uint64_t kin_here(const struct kin_scan *k)
{
	return k->base + k->pos;
}

gs_status kin_format_error(struct kin_scan *k, uint64_t off, const char *what)
{
	gs_error_append("%s: byte %llu: %s", k->name, (unsigned long long)off, what);
	return GS_ERR_FORMAT;
}

/* ------------------------------------------------------------------------ */
/* Reading JSON text in memory                                              */
/* ------------------------------------------------------------------------ */

static bool is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && is_ws(*p))
		p++;
	return p;
}

/* p at an opening quote: the byte after the closing quote, or NULL. */
static const char *string_end(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* The end of the JSON value at p, or NULL. Brackets were checked already. */
static const char *value_end(const char *p, const char *end)
{
	int depth = 0;

	if (p >= end)
		return NULL;
	if (*p == '"')
		return string_end(p, end);
	if (*p != '{' && *p != '[') {
		while (p < end && *p != ',' && *p != '}' && *p != ']' && !is_ws(*p))
			p++;
		return p;
	}
	while (p < end) {
		switch (*p) {
		case '"':
			p = string_end(p, end);
			if (!p)
				return NULL;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth == 0)
				return p + 1;
			break;
		default:
			break;
		}
		p++;
	}
	return NULL;
}

/*
 * Find members of the object text [p, p + n): for each keys[i] present, out[i]
 * gets its value text (strings with their quotes); absent ones get n == 0.
 * Returns false when the text is not an object.
 */
bool kin_find_members(const char *p, size_t n, const char *const *keys, size_t nkeys,
		      struct kin_span *out)
{
	const char *end = p + n;

	for (size_t i = 0; i < nkeys; i++)
		out[i] = (struct kin_span){NULL, 0};
	p = skip_ws(p, end);
	if (p >= end || *p != '{')
		return false;
	p = skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return true;
	for (;;) {
		const char *key, *kend, *v, *vend;

		if (p >= end || *p != '"')
			return false;
		key = p + 1;
		kend = string_end(p, end);
		if (!kend)
			return false;
		p = skip_ws(kend, end);
		if (p >= end || *p != ':')
			return false;
		v = skip_ws(p + 1, end);
		vend = value_end(v, end);
		if (!vend || vend == v)
			return false;
		for (size_t i = 0; i < nkeys; i++) {
			size_t kl = (size_t)(kend - 1 - key);

			if (strlen(keys[i]) == kl && memcmp(keys[i], key, kl) == 0) {
				out[i].p = v;
				out[i].n = (size_t)(vend - v);
				break;
			}
		}
		p = skip_ws(vend, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		return p < end && *p == '}';
	}
}

bool kin_span_is_string(const struct kin_span *s)
{
	return s->n >= 2 && s->p[0] == '"';
}

static gs_status scratch_reserve(struct kin_scan *k, int slot, size_t need)
{
	size_t cap = k->scratch_cap[slot];
	char *nb;

	if (need <= cap)
		return GS_OK;
	while (cap < need)
		cap = cap ? cap * 2 : 256;
	nb = realloc(k->scratch[slot], cap);
	if (!nb)
		return gs_nomem();
	k->scratch[slot] = nb;
	k->scratch_cap[slot] = cap;
	return GS_OK;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool read_hex4(const char *p, const char *end, uint32_t *v)
{
	*v = 0;
	if (end - p < 4)
		return false;
	for (int i = 0; i < 4; i++) {
		int h = hex_value(p[i]);

		if (h < 0)
			return false;
		*v = *v << 4 | (uint32_t)h;
	}
	return true;
}

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | cp >> 12);
		o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | cp >> 18);
	o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/*
 * The text of a JSON string value (with its quotes in `s`): without escapes
 * it points into the event; with them it is decoded into scratch `slot`.
 * Returns false (no error) when `s` is not a well-formed string.
 */
bool kin_span_string(struct kin_scan *k, const struct kin_span *s, int slot, const char **out,
		     size_t *len, gs_status *rc)
{
	const char *p, *end;
	char *o;

	*rc = GS_OK;
	if (!kin_span_is_string(s))
		return false;
	p = s->p + 1;
	end = s->p + s->n - 1;
	if (!memchr(p, '\\', (size_t)(end - p))) {
		*out = p;
		*len = (size_t)(end - p);
		return true;
	}
	*rc = scratch_reserve(k, slot, (size_t)(end - p) + 1);
	if (*rc)
		return false;
	o = k->scratch[slot];
	while (p < end) {
		uint32_t cp, lo;

		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		if (++p >= end)
			return false;
		switch (*p++) {
		case '"':
			*o++ = '"';
			break;
		case '\\':
			*o++ = '\\';
			break;
		case '/':
			*o++ = '/';
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			if (!read_hex4(p, end, &cp))
				return false;
			p += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' &&
			    p[1] == 'u' && read_hex4(p + 2, end, &lo) && lo >= 0xDC00 &&
			    lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				p += 6;
			} else if (cp >= 0xD800 && cp < 0xE000) {
				cp = 0xFFFD; /* a lone surrogate */
			}
			/* \uXXXX is 6 bytes of input, at most 4 of output. */
			o += put_utf8(o, cp);
			break;
		default:
			return false;
		}
	}
	*o = '\0';
	*out = k->scratch[slot];
	*len = (size_t)(o - k->scratch[slot]);
	return true;
}

bool kin_span_equals(const struct kin_span *s, const char *lit)
{
	size_t n = strlen(lit);

	return s->n == n + 2 && s->p[0] == '"' && memcmp(s->p + 1, lit, n) == 0;
}

/* An integer: a JSON number without fraction or exponent, or such text in a
 * string ("4093687616"). */
bool kin_parse_int_text(const char *p, size_t n, int64_t *v)
{
	bool neg = false;
	uint64_t x = 0;
	size_t i = 0;

	if (n && p[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		if (!is_digit(p[i]))
			return false;
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(p[i] - '0');
	}
	if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
		return false;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return true;
}

bool kin_span_int(const struct kin_span *s, int64_t *v)
{
	if (s->n == 0)
		return false;
	if (kin_span_is_string(s))
		return kin_parse_int_text(s->p + 1, s->n - 2, v);
	return kin_parse_int_text(s->p, s->n, v);
}

/* A GPU event's tid: a number or "stream N". */
bool kin_span_stream_tid(const struct kin_span *s, int64_t *v)
{
	if (kin_span_is_string(s) && s->n > 9 && memcmp(s->p + 1, "stream ", 7) == 0)
		return kin_parse_int_text(s->p + 8, s->n - 9, v);
	return kin_span_int(s, v);
}

static const uint64_t pow10_u64[20] = {
	1ull,
	10ull,
	100ull,
	1000ull,
	10000ull,
	100000ull,
	1000000ull,
	10000000ull,
	100000000ull,
	1000000000ull,
	10000000000ull,
	100000000000ull,
	1000000000000ull,
	10000000000000ull,
	100000000000000ull,
	1000000000000000ull,
	10000000000000000ull,
	100000000000000000ull,
	1000000000000000000ull,
	10000000000000000000ull,
};

/*
 * The JSON number text [p, p + n) in µs as exact integer ns. Up to 19
 * significant digits are kept; the part below 1 ns rounds to nearest.
 */
enum kin_time kin_us_text_to_ns(const char *p, size_t n, int64_t *ns)
{
	uint64_t mant = 0;
	int64_t exp10 = 0, e = 0;
	bool neg = false, eneg = false;
	size_t i = 0;
	int64_t sh;

	if (i < n && p[i] == '-') {
		neg = true;
		i++;
	}
	if (i >= n || !is_digit(p[i]))
		return KT_NOT_NUMBER;
	for (; i < n && is_digit(p[i]); i++) {
		if (mant <= (UINT64_MAX - 9) / 10)
			mant = mant * 10 + (uint64_t)(p[i] - '0');
		else
			exp10++; /* a digit beyond the 19 kept */
	}
	if (i < n && p[i] == '.') {
		if (++i >= n || !is_digit(p[i]))
			return KT_NOT_NUMBER;
		for (; i < n && is_digit(p[i]); i++) {
			if (mant <= (UINT64_MAX - 9) / 10) {
				mant = mant * 10 + (uint64_t)(p[i] - '0');
				exp10--;
			}
		}
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			eneg = p[i++] == '-';
		if (i >= n || !is_digit(p[i]))
			return KT_NOT_NUMBER;
		for (; i < n && is_digit(p[i]); i++)
			if (e < 100000)
				e = e * 10 + (p[i] - '0');
		exp10 += eneg ? -e : e;
	}
	if (i != n)
		return KT_NOT_NUMBER;
	sh = exp10 + 3; /* µs -> ns */
	if (mant == 0) {
		*ns = 0;
		return KT_OK;
	}
	if (sh > 0) {
		if (sh > 19 || mant > UINT64_MAX / pow10_u64[sh])
			return KT_RANGE;
		mant *= pow10_u64[sh];
	} else if (sh < 0) {
		if (sh < -19) {
			mant = 0;
		} else {
			uint64_t div = pow10_u64[-sh], q = mant / div, r = mant % div;

			mant = q + (r >= div - r ? 1 : 0);
		}
	}
	if (mant > (uint64_t)INT64_MAX)
		return KT_RANGE;
	*ns = neg ? -(int64_t)mant : (int64_t)mant;
	return KT_OK;
}

/* ------------------------------------------------------------------------ */
/* NaN and Infinity in args                                                 */
/* ------------------------------------------------------------------------ */

/* Write the four bytes of the JSON literal null (no terminator). */
static char *put_null(char *o)
{
	o[0] = 'n';
	o[1] = 'u';
	o[2] = 'l';
	o[3] = 'l';
	return o + 4;
}

/* Copy [p, p + n) with NaN, Infinity and -Infinity outside strings made
 * null, into scratch 1. Returns false when there were none. */
bool kin_sanitise_nonfinite(struct kin_scan *k, const char *p, size_t n, size_t *out_n,
			    gs_status *rc)
{
	const char *end = p + n;
	bool changed = false;
	char *o;

	/* Only "NaN" (3 bytes -> 4) grows: at most by a third. */
	*rc = scratch_reserve(k, 1, n + n / 3 + 2);
	if (*rc)
		return false;
	o = k->scratch[1];
	while (p < end) {
		if (*p == '"') {
			const char *q = string_end(p, end);

			if (!q)
				q = end;
			memcpy(o, p, (size_t)(q - p));
			o += q - p;
			p = q;
			continue;
		}
		if (end - p >= 9 && memcmp(p, "-Infinity", 9) == 0) {
			o = put_null(o);
			p += 9;
			changed = true;
		} else if (end - p >= 8 && memcmp(p, "Infinity", 8) == 0) {
			o = put_null(o);
			p += 8;
			changed = true;
		} else if (end - p >= 3 && memcmp(p, "NaN", 3) == 0) {
			o = put_null(o);
			p += 3;
			changed = true;
		} else {
			*o++ = *p++;
		}
	}
	*out_n = (size_t)(o - k->scratch[1]);
	return changed;
}

/* ------------------------------------------------------------------------ */
/* The streaming scanner                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Drop buf[0 .. keep), then read more. *more is false at the end of the
 * input. Positions in the buffer move down by `keep`.
 */
static gs_status kin_fill(struct kin_scan *k, size_t keep, bool *more)
{
	size_t got, left = k->len - keep, nc = k->cap;
	gs_status rc;

	*more = false;
	k->cur.live = false; /* positions move, bytes come */
	if (!k->eof && k->cap - left < KIN_READ_CHUNK / 2)
		nc = k->cap * 2 > left + KIN_READ_CHUNK ? k->cap * 2 : left + KIN_READ_CHUNK;
	if (k->pipe && (keep || nc != k->cap)) {
		/* Items not yet handled point into this buffer: a new one. */
		rc = kin_pipe_move(k, keep, nc);
		if (rc)
			return rc;
	} else {
		if (keep)
			memmove(k->buf, k->buf + keep, left);
		if (nc != k->cap) {
			char *nb = realloc(k->buf, nc);

			if (!nb)
				return gs_nomem();
			k->buf = nb;
			k->cap = nc;
		}
	}
	k->len = left;
	k->pos -= keep;
	k->base += keep;
	if (k->eof)
		return GS_OK;
	rc = gs_gzin_read(k->in, k->buf + k->len, k->cap - k->len, &got);
	if (rc)
		return rc;
	if (got == 0)
		k->eof = true;
	k->len += got;
	*more = got > 0;
	return GS_OK;
}

/* The next byte that is not whitespace, without consuming it; -1 at EOF. */
gs_status kin_peek(struct kin_scan *k, int *c)
{
	for (;;) {
		while (k->pos < k->len) {
			char ch = k->buf[k->pos];

			if (!is_ws(ch)) {
				*c = (unsigned char)ch;
				return GS_OK;
			}
			k->pos++;
		}
		{
			bool more;
			gs_status rc = kin_fill(k, k->pos, &more);

			if (rc)
				return rc;
			if (!more) {
				*c = -1;
				return GS_OK;
			}
		}
	}
}

static gs_status kin_limit(struct kin_scan *k, uint64_t off, const char *what, unsigned long long v)
{
	gs_error_append("%s: byte %llu: %s (%llu)", k->name, (unsigned long long)off, what, v);
	return GS_ERR_LIMIT;
}

static gs_status kin_push(struct kin_scan *k, uint32_t depth, size_t d, char c)
{
	if (depth + d + 1 > k->lim->max_depth)
		return kin_limit(k, kin_here(k) - 1, "JSON nested deeper than max_depth",
				 k->lim->max_depth);
	if (d >= k->stack_cap) {
		size_t nc = k->stack_cap ? k->stack_cap * 2 : 64;
		uint8_t *ns = realloc(k->stack, nc);

		if (!ns)
			return gs_nomem();
		k->stack = ns;
		k->stack_cap = nc;
	}
	k->stack[d] = (uint8_t)c;
	return GS_OK;
}

/*
 * Scan the JSON value at k->pos (whitespace already skipped) inside a
 * container at nesting `depth`. With `capture`, the value stays in the
 * buffer and on return occupies buf[*start .. k->pos); without, what was
 * consumed may be dropped. Checks bracket pairing, the depth, string and
 * (with capture) value size limits; does not check scalars or separators.
 */
gs_status kin_scan_value(struct kin_scan *k, uint32_t depth, bool capture, size_t *start)
{
	uint64_t off = kin_here(k);
	size_t d = 0, s0 = k->pos;
	uint64_t str_len = 0;
	bool in_str = false, scalar;
	char c = k->buf[k->pos];
	gs_status rc;

	/* The block scan starts again after this (kin_scan_event). */
	k->cur.live = false;
	if (c == ',' || c == ':' || c == '}' || c == ']')
		return kin_format_error(k, off, "expected a value");
	scalar = c != '"' && c != '{' && c != '[';
	for (;;) {
		if (k->pos == k->len) {
			bool more;

			rc = kin_fill(k, capture ? s0 : k->pos, &more);
			if (rc)
				return rc;
			if (capture)
				s0 = 0;
			if (!more) {
				if (scalar)
					break;
				return kin_format_error(k, off,
							"the input ends inside this value "
							"(truncated JSON?)");
			}
		}
		if (capture && k->pos - s0 > k->lim->max_event_bytes)
			return kin_limit(k, off, "value larger than max_event_bytes",
					 (unsigned long long)k->lim->max_event_bytes);
		c = k->buf[k->pos];
		if (scalar) {
			if (c == ',' || c == '}' || c == ']' || c == ':' || is_ws(c))
				break;
			k->pos++;
			continue;
		}
		if (in_str) {
			/* Runs of plain bytes go fast. */
			size_t i = k->pos, end = k->len;

			while (i < end && k->buf[i] != '"' && k->buf[i] != '\\')
				i++;
			str_len += i - k->pos;
			k->pos = i;
			if (str_len > k->lim->max_string_bytes)
				return kin_limit(k, kin_here(k),
						 "string longer than max_string_bytes",
						 (unsigned long long)k->lim->max_string_bytes);
			if (i == end)
				continue;
			if (k->buf[i] == '\\') {
				/* Consume the backslash and the byte it escapes. */
				if (i + 1 == end) {
					bool more;

					rc = kin_fill(k, capture ? s0 : k->pos, &more);
					if (rc)
						return rc;
					if (capture)
						s0 = 0;
					if (!more)
						return kin_format_error(
							k, off,
							"the input ends inside a string "
							"(truncated JSON?)");
					continue;
				}
				k->pos += 2;
				str_len += 2;
				continue;
			}
			k->pos++;
			in_str = false;
			if (d == 0)
				break;
			continue;
		}
		k->pos++;
		switch (c) {
		case '"':
			in_str = true;
			str_len = 0;
			break;
		case '{':
		case '[':
			rc = kin_push(k, depth, d, c);
			if (rc)
				return rc;
			d++;
			break;
		case '}':
		case ']':
			if (d == 0 || k->stack[d - 1] != (c == '}' ? '{' : '['))
				return kin_format_error(k, kin_here(k) - 1,
							c == '}' ? "unexpected '}'" :
								   "unexpected ']'");
			d--;
			break;
		default:
			break;
		}
		if (d == 0 && !in_str)
			break;
	}
	*start = s0;
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* Events by positions                                                      */
/* ------------------------------------------------------------------------ */

/*
 * The fast way through an element of traceEvents. The buffer is classified
 * 64 bytes at a time (kineto_blocks.c) into the positions that matter: the
 * structural characters outside strings, the quotes that open and close
 * strings, and the first byte of each run of scalar bytes (so that "1 2" is
 * two positions and a member whose value is two scalars is seen as wrong).
 * Escapes are found from the runs of backslashes, the inside of strings as
 * the running parity of the real quotes. The walk visits only those
 * positions: a Kineto event of 600 bytes is about 70 of them.
 *
 * The walk keeps to what it can answer exactly: an event wholly inside the
 * buffer, within the limits, with matching brackets and no backslash
 * outside a string. For anything else it gives up before it has changed
 * anything, and kin_scan_value reads the event from its first byte with
 * the buffer as it was, so every error, its offset and every read from the
 * input are what they were without the fast way. An event whose members
 * are not the plain "key": value form (a comma too many, two scalars, text
 * glued to a string) is cut out by the walk and its members found again by
 * kin_find_members, which decides what such text means.
 */

#define KIN_FAST_LEVELS 64

static inline unsigned ctz64(uint64_t x)
{
	return (unsigned)__builtin_ctzll(x);
}

/* Bit i: the parity of the set bits of x at 0 .. i. */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/*
 * The bytes of a block that a backslash escapes, from its backslashes `bs`:
 * the byte after each run of an odd number of them (a run's first backslash
 * escapes the second, the third the fourth, ...). *carry says on entry that
 * the block's first byte is escaped, on return that the next block's is.
 */
static uint64_t escaped_bytes(uint64_t bs, bool *carry)
{
	uint64_t esc = 0;

	if (*carry) {
		esc = 1;
		bs &= ~(uint64_t)1; /* an escaped backslash escapes nothing */
	}
	*carry = false;
	while (bs) {
		unsigned s = ctz64(bs);
		uint64_t rest = ~(bs >> s);
		unsigned len = rest ? ctz64(rest) : 64 - s;
		unsigned end = s + len;

		if (len & 1) {
			if (end < 64)
				esc |= (uint64_t)1 << end;
			else
				*carry = true;
		}
		bs = end < 64 ? bs & ~((((uint64_t)1 << len) - 1) << s) : 0;
	}
	return esc;
}

/*
 * Classify the 64 bytes at buffer offset `base` (past the end of the
 * buffer: blanks) into k->cur. False when a backslash lies outside a
 * string: the escapes found from all backslashes then need not be JSON's.
 */
static bool cur_load(struct kin_scan *k, size_t base)
{
	struct kin_cursor *c = &k->cur;
	struct kin_block b;
	uint64_t esc = 0, quote, instr, sc;

	if (base + 64 <= k->len) {
		k->classify(k->buf + base, &b);
	} else {
		char tmp[64];
		size_t n = k->len - base;

		memcpy(tmp, k->buf + base, n);
		memset(tmp + n, ' ', 64 - n);
		k->classify(tmp, &b);
	}
	if (b.bslash || c->esc)
		esc = escaped_bytes(b.bslash, &c->esc);
	quote = b.quote & ~esc;
	/* Opening quotes and string bytes 1, closing quotes 0. */
	instr = prefix_xor(quote) ^ c->in_str;
	if (b.bslash & ~instr)
		return false;
	c->in_str = 0 - (instr >> 63);
	sc = ~(b.ws | b.op | quote | instr);
	c->tok = (b.op & ~instr) | quote | (sc & ~(sc << 1 | c->sc));
	c->sc = sc >> 63;
	c->weird = b.bslash | b.ctl;
	c->any_weird |= c->weird != 0;
	c->base = base;
	return true;
}

/* One walk through an event: the cursor's block and positions in locals
 * (written back to k->cur when the walk ends well). */
struct kin_walk {
	struct kin_scan *k;
	const char *buf;
	uint64_t tok;
	size_t base;
	uint64_t max_str;
	uint32_t max_level;          /* levels of brackets the limits allow */
	uint8_t st[KIN_FAST_LEVELS]; /* the kinds of the open brackets */
};

/* The next position; false at the end of the buffer or of what the masks
 * can say (the walk then gives up). */
static inline bool walk_next(struct kin_walk *w, size_t *at)
{
	while (!w->tok) {
		struct kin_scan *k = w->k;
		size_t nb = w->base + 64;

		if (nb >= k->len || !cur_load(k, nb)) {
			k->cur.live = false;
			return false;
		}
		w->tok = k->cur.tok;
		w->base = nb;
	}
	*at = w->base + ctz64(w->tok);
	w->tok &= w->tok - 1;
	return true;
}

/* Take the position `pos` (an event's '{'): from where the last event
 * left the cursor, or classifying again from there. */
static bool walk_take(struct kin_walk *w, size_t pos)
{
	struct kin_scan *k = w->k;
	struct kin_cursor *c = &k->cur;
	size_t at;

	if (!k->classify)
		k->classify = kin_blocks_classifier();
	if (c->live && pos >= c->base) {
		w->tok = c->tok;
		w->base = c->base;
		while (walk_next(w, &at)) {
			if (at == pos)
				return true;
			if (at > pos)
				break;
		}
	}
	c->in_str = 0;
	c->sc = 0;
	c->esc = false;
	c->live = cur_load(k, pos);
	if (!c->live || !(c->tok & 1))
		return c->live = false;
	w->tok = c->tok & (c->tok - 1);
	w->base = pos;
	return true;
}

/* Which of kin_ev_keys a member name is, or -1. */
static inline int ev_field(const char *key, size_t n)
{
	switch (n) {
	case 2:
		if (key[0] == 'p' && key[1] == 'h')
			return EV_PH;
		if (key[0] == 't' && key[1] == 's')
			return EV_TS;
		return -1;
	case 3:
		if (memcmp(key, "cat", 3) == 0)
			return EV_CAT;
		if (memcmp(key, "dur", 3) == 0)
			return EV_DUR;
		if (memcmp(key, "pid", 3) == 0)
			return EV_PID;
		if (memcmp(key, "tid", 3) == 0)
			return EV_TID;
		return -1;
	case 4:
		if (memcmp(key, "name", 4) == 0)
			return EV_NAME;
		if (memcmp(key, "args", 4) == 0)
			return EV_ARGS;
		return -1;
	default:
		return -1;
	}
}

/*
 * From the position `at` (not taken yet), inside containers open to level
 * `level` (their kinds in st[0 .. level)), to the bracket that closes level
 * `stop` + 1: *close gets its position. False (give up) on a bracket that
 * does not match, too deep, a string over the limit or the buffer's end.
 */
static bool walk_to_close(struct kin_walk *w, size_t at, uint32_t level, uint32_t stop,
			  size_t *close)
{
	const char *buf = w->buf;
	uint8_t *st = w->st;

	for (;;) {
		char c = buf[at];
		size_t q;

		switch (c) {
		case '"':
			if (!walk_next(w, &q) || q - at - 1 > w->max_str)
				return false;
			break;
		case '{':
		case '[':
			if (level >= w->max_level || level >= KIN_FAST_LEVELS)
				return false;
			st[level++] = (uint8_t)c;
			break;
		case '}':
		case ']':
			if (st[level - 1] != (c == '}' ? '{' : '['))
				return false;
			if (--level == stop) {
				*close = at;
				return true;
			}
			break;
		default:
			break;
		}
		if (!walk_next(w, &at))
			return false;
	}
}

static bool is_digit_c(char c)
{
	return c >= '0' && c <= '9';
}

/* A JSON number of at most 63 bytes: cJSON reads it whole with strtod. */
static bool json_number(const char *p, size_t n)
{
	size_t i = 0;

	if (n == 0 || n > 63)
		return false;
	if (p[i] == '-')
		i++;
	if (i == n)
		return false;
	if (p[i] == '0')
		i++;
	else if (p[i] >= '1' && p[i] <= '9')
		while (i < n && is_digit_c(p[i]))
			i++;
	else
		return false;
	if (i < n && p[i] == '.') {
		if (++i == n || !is_digit_c(p[i]))
			return false;
		while (i < n && is_digit_c(p[i]))
			i++;
	}
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		if (i == n || !is_digit_c(p[i]))
			return false;
		while (i < n && is_digit_c(p[i]))
			i++;
	}
	return i == n;
}

/* What the scalar text [p, p + n) is to cJSON (KA_OTHER: not a value). */
static uint8_t scalar_type(const char *p, size_t n)
{
	if (json_number(p, n))
		return KA_NUMBER;
	if (n == 4 && memcmp(p, "true", 4) == 0)
		return KA_TRUE;
	if (n == 5 && memcmp(p, "false", 5) == 0)
		return KA_FALSE;
	if (n == 4 && memcmp(p, "null", 4) == 0)
		return KA_NULL;
	return KA_OTHER;
}

/* The end of a scalar whose next position (',', '}' or ']') is `next`. */
static inline size_t scalar_end(const char *buf, size_t next)
{
	while (is_ws(buf[next - 1]))
		next--;
	return next;
}

/*
 * An array value of args, its '[' the position `at` (taken) at level
 * `level`: KA_ARRAY when it holds numbers only, KA_OTHER else; -1: give up.
 * *close gets its ']'.
 */
static int walk_array(struct kin_walk *w, size_t at, uint32_t level, size_t *close)
{
	const char *buf = w->buf;
	int type = KA_ARRAY;

	if (level >= w->max_level)
		return -1;
	w->st[level] = '[';
	if (!walk_next(w, &at))
		return -1;
	if (buf[at] == ']') {
		*close = at;
		return type;
	}
	for (;;) {
		size_t vs = at;
		char c = buf[at];

		if (c == '"' || c == '{' || c == '[' || c == ',' || c == ':' || c == '}' ||
		    c == ']')
			break;
		if (!walk_next(w, &at))
			return -1;
		if (buf[at] != ',' && buf[at] != ']')
			break;
		if (!json_number(buf + vs, scalar_end(buf, at) - vs))
			type = KA_OTHER;
		if (buf[at] == ']') {
			*close = at;
			return type;
		}
		if (!walk_next(w, &at))
			return -1;
	}
	/* Not a list of scalars: find its end. */
	return walk_to_close(w, at, level + 1, level, close) ? KA_OTHER : -1;
}

/*
 * The args object, its '{' the position `at` (taken), at level 2: its
 * members into ev->args and ev->args_state. False: give up. *close gets its
 * '}'.
 */
static bool walk_args(struct kin_walk *w, size_t at, struct kin_event *ev, size_t *close)
{
	const char *buf = w->buf;
	const uint64_t max_str = w->max_str;
	struct kin_cursor *c = &w->k->cur;
	bool json = true, full = false;
	uint32_t n = 0;
	size_t q;

	if (w->max_level < 2)
		return false;
	w->st[1] = '{';
	c->any_weird = (c->weird >> (at - w->base)) != 0;
	if (!walk_next(w, &at))
		return false;
	if (buf[at] == '}') {
		*close = at;
		goto out;
	}
	for (;;) {
		size_t key, klen, vs, ve;
		int type;

		if (buf[at] != '"')
			goto not_members;
		if (!walk_next(w, &q) || q - at - 1 > max_str)
			return false;
		key = at + 1;
		klen = q - at - 1;
		if (!walk_next(w, &at))
			return false;
		if (buf[at] != ':')
			goto not_members;
		if (!walk_next(w, &at))
			return false;
		vs = at;
		switch (buf[at]) {
		case '"':
			if (!walk_next(w, &q) || q - at - 1 > max_str)
				return false;
			type = KA_STRING;
			ve = q + 1;
			break;
		case '[':
			type = walk_array(w, at, 2, &q);
			if (type < 0)
				return false;
			ve = q + 1;
			break;
		case '{':
			if (!walk_to_close(w, at, 2, 2, &q))
				return false;
			type = KA_OTHER;
			ve = q + 1;
			break;
		case ',':
		case ':':
		case '}':
		case ']':
			goto not_members;
		default:
			if (!walk_next(w, &at))
				return false;
			if (buf[at] != ',' && buf[at] != '}')
				goto not_members;
			ve = scalar_end(buf, at);
			type = scalar_type(buf + vs, ve - vs);
			goto have_next;
		}
		if (!walk_next(w, &at))
			return false;
have_next:
		if (type == KA_OTHER)
			json = false;
		if (n < KIN_ARGS_MAX) {
			struct kin_member *m = &ev->args[n++];

			m->key = buf + key;
			m->klen = (uint32_t)klen;
			m->val = buf + vs;
			m->vlen = (uint32_t)(ve - vs);
			m->type = (uint8_t)type;
		} else {
			full = true;
		}
		if (buf[at] == ',') {
			if (!walk_next(w, &at))
				return false;
			continue;
		}
		if (buf[at] == '}') {
			*close = at;
			break;
		}
		goto not_members;
	}
out:
	ev->nargs = n;
	ev->args_state = full                  ? KIN_ARGS_UNREAD :
			 json && !c->any_weird ? KIN_ARGS_JSON :
						 KIN_ARGS_MEMBERS;
	return true;
not_members:
	/* Text kin_find_members reads its own way: left to it. */
	ev->args_state = KIN_ARGS_UNREAD;
	return walk_to_close(w, at, 2, 1, close);
}

/* The fast way through the event at k->pos; false: give up (nothing
 * changed but the cursor). */
static bool fast_event(struct kin_scan *k, uint32_t depth, struct kin_event *ev)
{
	struct kin_walk wk = {
		.k = k,
		.buf = k->buf,
		.max_str = k->lim->max_string_bytes,
		.max_level = depth < k->lim->max_depth ? k->lim->max_depth - depth : 0,
		.st = {'{'},
	};
	struct kin_walk *w = &wk;
	const char *buf = k->buf;
	const uint64_t max_str = w->max_str;
	size_t s0 = k->pos, at, q, end;

	if (w->max_level == 0 || !walk_take(w, s0))
		return false;
	memset(ev->f, 0, sizeof(ev->f));
	ev->members_ok = true;
	ev->args_state = KIN_ARGS_UNREAD;
	ev->nargs = 0;
	if (!walk_next(w, &at))
		return false;
	if (buf[at] == '}') {
		end = at;
		goto done;
	}
	for (;;) {
		size_t vs, ve;
		int field;

		if (buf[at] != '"')
			goto not_members;
		if (!walk_next(w, &q) || q - at - 1 > max_str)
			return false;
		field = ev_field(buf + at + 1, q - at - 1);
		if (!walk_next(w, &at))
			return false;
		if (buf[at] != ':')
			goto not_members;
		if (!walk_next(w, &at))
			return false;
		vs = at;
		switch (buf[at]) {
		case '"':
			if (!walk_next(w, &q) || q - at - 1 > max_str)
				return false;
			ve = q + 1;
			break;
		case '{':
			if (field == EV_ARGS) {
				if (!walk_args(w, at, ev, &q))
					return false;
				ve = q + 1;
				break;
			}
			/* fall through */
		case '[':
			if (!walk_to_close(w, at, 1, 1, &q))
				return false;
			ve = q + 1;
			break;
		case ',':
		case ':':
		case '}':
		case ']':
			goto not_members;
		default:
			if (!walk_next(w, &at))
				return false;
			if (buf[at] != ',' && buf[at] != '}')
				goto not_members;
			ve = scalar_end(buf, at);
			goto have_next;
		}
		if (!walk_next(w, &at))
			return false;
have_next:
		if (field >= 0) {
			ev->f[field].p = buf + vs;
			ev->f[field].n = ve - vs;
			if (field == EV_ARGS && buf[vs] != '{')
				ev->args_state = KIN_ARGS_UNREAD;
		}
		if (buf[at] == ',') {
			if (!walk_next(w, &at))
				return false;
			continue;
		}
		if (buf[at] == '}') {
			end = at;
			goto done;
		}
		goto not_members;
	}
not_members:
	if (!walk_to_close(w, at, 1, 0, &end))
		return false;
	if (end - s0 > k->lim->max_event_bytes)
		return false;
	k->cur.tok = w->tok;
	k->cur.base = w->base;
	k->pos = end + 1;
	ev->p = buf + s0;
	ev->n = end + 1 - s0;
	ev->members_ok = kin_find_members(ev->p, ev->n, kin_ev_keys, EV_COUNT, ev->f);
	ev->args_state = KIN_ARGS_UNREAD;
	return true;
done:
	if (end - s0 > k->lim->max_event_bytes)
		return false;
	k->cur.tok = w->tok;
	k->cur.base = w->base;
	k->pos = end + 1;
	ev->p = buf + s0;
	ev->n = end + 1 - s0;
	return true;
}

gs_status kin_scan_event(struct kin_scan *k, uint32_t depth, struct kin_event *ev)
{
	size_t start;
	gs_status rc;

	if (fast_event(k, depth, ev))
		return GS_OK;
	k->cur.live = false;
	rc = kin_scan_value(k, depth, true, &start);
	if (rc)
		return rc;
	ev->p = k->buf + start;
	ev->n = k->pos - start;
	ev->members_ok = kin_find_members(ev->p, ev->n, kin_ev_keys, EV_COUNT, ev->f);
	ev->args_state = KIN_ARGS_UNREAD;
	ev->nargs = 0;
	return GS_OK;
}

bool kin_event_args_members(const struct kin_event *ev, const char *const *keys, size_t nkeys,
			    struct kin_span *out)
{
	size_t len[8];

	if (ev->args_state == KIN_ARGS_UNREAD || nkeys > 8)
		return kin_find_members(ev->f[EV_ARGS].p, ev->f[EV_ARGS].n, keys, nkeys, out);
	for (size_t i = 0; i < nkeys; i++) {
		out[i] = (struct kin_span){NULL, 0};
		len[i] = strlen(keys[i]);
	}
	for (uint32_t j = 0; j < ev->nargs; j++) {
		const struct kin_member *m = &ev->args[j];

		for (size_t i = 0; i < nkeys; i++) {
			if (len[i] == m->klen && memcmp(keys[i], m->key, m->klen) == 0) {
				out[i].p = m->val;
				out[i].n = m->vlen;
				break;
			}
		}
	}
	return true;
}

const struct kin_member *kin_event_arg(const struct kin_event *ev, const char *key, size_t klen)
{
	for (uint32_t j = 0; j < ev->nargs; j++) {
		const struct kin_member *m = &ev->args[j];

		if (m->klen == klen && m->key[0] == key[0] && memcmp(m->key, key, klen) == 0)
			return m;
	}
	return NULL;
}

double kin_number_value(const char *p, size_t n)
{
	size_t i = p[0] == '-' ? 1 : 0, j;
	char tmp[64];

	/* Up to 15 digits: exact in a double, as strtod would give it. */
	if (n - i <= 15) {
		uint64_t v = 0;

		for (j = i; j < n && is_digit(p[j]); j++)
			v = v * 10 + (uint64_t)(p[j] - '0');
		if (j == n)
			return i ? -(double)v : (double)v;
	}
	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	return strtod(tmp, NULL);
}
