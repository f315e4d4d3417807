/* SPDX-License-Identifier: MIT */
/*
 * A report written into memory, for the tests that look at the text, JSON
 * or HTML a writer produces. Header-only (static functions).
 *
 * The memory stream's buffer pointer and length live on the heap: with
 * them as locals, GCC's -Wdangling-pointer (at -O2 and above) takes every
 * pointer into the returned text for a pointer to those locals.
 */
#ifndef GS_TEST_REPORT_OUT_H
#define GS_TEST_REPORT_OUT_H

#include <gpuscope/analyzer.h>

#include <stdio.h>
#include <stdlib.h>

struct report_out {
	char *buf;
	size_t len;
};

/* What write(f, r, style) writes, NUL-terminated (its length in *len
 * unless len is NULL); the caller frees it. */
static inline char *
report_out(gs_status (*write)(FILE *, const struct gs_report *, const struct gs_report_style *),
	   const struct gs_report *r, const struct gs_report_style *style, size_t *len)
{
	struct report_out *m = calloc(1, sizeof(*m));
	FILE *f;
	char *buf;

	assert_non_null(m);
	f = open_memstream(&m->buf, &m->len);
	assert_non_null(f);
	assert_int_equal(write(f, r, style), GS_OK);
	assert_int_equal(fclose(f), 0);
	buf = m->buf;
	if (len)
		*len = m->len;
	free(m);
	return buf;
}

/* Every line of a text report at most 100 columns (code points), no
 * control bytes but '\n' (colour, ESC [ ... m, passed over). */
static inline void check_lines(const char *text)
{
	size_t cols = 0;
	const unsigned char *p;

	for (p = (const unsigned char *)text; *p; p++) {
		if (*p == '\n') {
			cols = 0;
			continue;
		}
		if (*p == 0x1b) {
			while (p[1] && p[1] != 'm')
				p++;
			p++;
			continue;
		}
		assert_true(*p >= 0x20 && *p != 0x7f);
		if ((*p & 0xc0) != 0x80)
			cols++;
		if (cols > 100)
			print_error("line over 100 columns near: %.60s\n", (const char *)p - 50);
		assert_true(cols <= 100);
	}
}

/* The text with every run of spaces and line breaks as one space, so
 * wrapped sentences and aligned columns can be searched. In place. */
static inline char *flat(char *text)
{
	char *r = text, *w = text;

	while (*r) {
		if (*r == '\n' || *r == ' ') {
			while (r[1] == ' ' || r[1] == '\n')
				r++;
			*w++ = ' ';
			r++;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
	return text;
}

#endif /* GS_TEST_REPORT_OUT_H */
