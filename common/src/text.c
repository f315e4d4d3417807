/* SPDX-License-Identifier: MIT */
/* UTF-8 validation, JSON string escaping, durations for people. */
#include <gpuscope/text.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t gs_utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		unsigned lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;

		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		unsigned lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;

		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ?
			       4 :
			       0;
	}
	return 0;
}

bool gs_has_sub(const char *s, size_t n, const char *sub)
{
	size_t m = strlen(sub);
	const char *p = s, *last;

	if (m == 0)
		return true;
	if (n < m)
		return false;
	/* Candidates by their first byte (memchr), then the rest. */
	last = s + (n - m);
	while (p <= last && (p = memchr(p, sub[0], (size_t)(last - p) + 1)) != NULL) {
		if (memcmp(p + 1, sub + 1, m - 1) == 0)
			return true;
		p++;
	}
	return false;
}

void gs_json_escape(const char *s, unsigned flags, gs_text_write_fn write, void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	const unsigned char *run = p;
	bool del = (flags & GS_JSON_ESCAPE_DEL) != 0;

	write(ctx, "\"", 1);
	while (*p) {
		unsigned char c = *p;
		size_t n;

		/* Runs of what stays as it is go out in one write. */
		if (c >= 0x20 && c != '"' && c != '\\' && (c < 0x7f || (c == 0x7f && !del))) {
			p++;
			continue;
		}
		n = c >= 0x80 ? gs_utf8_len(p) : 0;
		if (n) {
			p += n;
			continue;
		}
		if (p > run)
			write(ctx, (const char *)run, (size_t)(p - run));
		switch (c) {
		case '"':
			write(ctx, "\\\"", 2);
			break;
		case '\\':
			write(ctx, "\\\\", 2);
			break;
		case '\n':
			write(ctx, "\\n", 2);
			break;
		case '\r':
			write(ctx, "\\r", 2);
			break;
		case '\t':
			write(ctx, "\\t", 2);
			break;
		default:
			if (c <= 0x7f) {
				char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};

				write(ctx, e, 6);
			} else {
				write(ctx, "\\ufffd", 6); /* not UTF-8 */
			}
			break;
		}
		p++;
		run = p;
	}
	if (p > run)
		write(ctx, (const char *)run, (size_t)(p - run));
	write(ctx, "\"", 1);
}

uint64_t gs_dur_unit(uint64_t max_abs_ns)
{
	static const uint64_t divs[] = {1000000000ULL, 1000000ULL, 1000ULL};

	for (size_t i = 0; i < sizeof(divs) / sizeof(divs[0]); i++)
		if (max_abs_ns >= divs[i])
			return divs[i];
	return 1;
}

const char *gs_dur_text_in(char *buf, size_t size, int64_t ns, uint64_t unit, bool plus)
{
	const char *sign = ns < 0 ? "-" : plus && ns > 0 ? "+" : "";
	const char *name = unit == 1000000000ULL ? "s" :
			   unit == 1000000ULL    ? "ms" :
			   unit == 1000ULL       ? "us" :
						   "ns";
	uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	if (unit != 1000000000ULL && unit != 1000000ULL && unit != 1000ULL)
		snprintf(buf, size, "%s%llu ns", sign, (unsigned long long)v);
	else
		snprintf(buf, size, "%s%llu.%03llu %s", sign, (unsigned long long)(v / unit),
			 (unsigned long long)((v % unit) / (unit / 1000)), name);
	return buf;
}

const char *gs_dur_text(char *buf, size_t size, int64_t ns)
{
	uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	return gs_dur_text_in(buf, size, ns, gs_dur_unit(v), false);
}

/* Appends n bytes of p at *len, as far as they fit (snprintf's rule). */
static void put_bytes(char *buf, size_t size, size_t *len, const char *p, size_t n)
{
	if (*len < size) {
		size_t room = size - *len - 1;

		memcpy(buf + *len, p, n < room ? n : room);
	}
	*len += n;
}

/* The next mark of either kind at or after p (NULL: none). */
static const char *next_mark(const char *p)
{
	p += strcspn(p, "\x01\x03");
	return *p ? p : NULL;
}

size_t gs_dur_sentence(const char *s, bool micro_sign, char *buf, size_t size)
{
	const char *p, *q, *end;
	uint64_t m = 0, unit;
	size_t len = 0;

	s = s ? s : "";
	for (p = strchr(s, '\x01'); p; p = strchr(p + 1, '\x01')) {
		long long v = strtoll(p + 1, NULL, 10);
		uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

		m = a > m ? a : m;
	}
	unit = gs_dur_unit(m);
	for (p = s; (q = next_mark(p)) != NULL && (end = strchr(q, '\x02')) != NULL; p = end + 1) {
		char d[GS_DUR_TEXT_MAX];
		long long v = strtoll(q + 1, NULL, 10);
		size_t n;

		put_bytes(buf, size, &len, p, (size_t)(q - p));
		if (*q == '\x01')
			gs_dur_text_in(d, sizeof(d), v, unit, false);
		else
			gs_dur_text(d, sizeof(d), v);
		n = strlen(d);
		if (micro_sign && n >= 3 && strcmp(d + n - 3, " us") == 0) {
			put_bytes(buf, size, &len, d, n - 2);
			put_bytes(buf, size, &len, "\xc2\xb5s", 3);
		} else {
			put_bytes(buf, size, &len, d, n);
		}
	}
	put_bytes(buf, size, &len, p, strlen(p));
	if (size)
		buf[len < size ? len : size - 1] = '\0';
	return len;
}

const char *gs_dur_mark(char *buf, size_t size, int64_t ns)
{
	snprintf(buf, size, GS_DUR_MARK_FMT, (long long)ns);
	return buf;
}

const char *gs_dur_own_mark(char *buf, size_t size, int64_t ns)
{
	snprintf(buf, size, GS_DUR_OWN_FMT, (long long)ns);
	return buf;
}

char *gs_dur_sentence_dup(const char *s, bool micro_sign)
{
	char small[1];
	size_t n = gs_dur_sentence(s, micro_sign, small, sizeof(small));
	char *out = malloc(n + 1);

	if (out)
		gs_dur_sentence(s, micro_sign, out, n + 1);
	return out;
}

bool gs_text_runs(char *buf, size_t size, bool (*next)(void *ctx, uint32_t *v), void *ctx,
		  size_t max_runs, bool pairs_apart)
{
	size_t len = 0, runs = 0;
	uint32_t a, b, v;
	bool more;

	if (!size)
		return false;
	buf[0] = '\0';
	more = next(ctx, &a);
	while (more) {
		int w;

		b = a;
		while ((more = next(ctx, &v)) && v == b + 1)
			b = v;
		if (runs++ == max_runs) {
			w = snprintf(buf + len, size - len, ", ...");
			return w >= 0 && (size_t)w < size - len;
		}
		if (a == b)
			w = snprintf(buf + len, size - len, "%s%u", len ? ", " : "", a);
		else
			w = snprintf(buf + len, size - len, "%s%u%s%u", len ? ", " : "", a,
				     pairs_apart && b == a + 1 ? ", " : "-", b);
		if (w < 0 || (size_t)w >= size - len)
			return false;
		len += (size_t)w;
		a = v;
	}
	return true;
}

size_t gs_text_char(const unsigned char *p, char *buf, size_t *cols, size_t *adv)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = gs_utf8_len(p);

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

size_t gs_text_cols(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char buf[GS_TEXT_CHAR_MAX];
	size_t total = 0, cols, adv;

	for (; *p; p += adv) {
		gs_text_char(p, buf, &cols, &adv);
		total += cols;
	}
	return total;
}
