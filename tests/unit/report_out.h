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

/* What write(f, r) writes, NUL-terminated (its length in *len unless
 * len is NULL); the caller frees it. */
static inline char *report_out(gs_status (*write)(FILE *, const struct gs_report *),
			       const struct gs_report *r, size_t *len)
{
	struct report_out *m = calloc(1, sizeof(*m));
	FILE *f;
	char *buf;

	assert_non_null(m);
	f = open_memstream(&m->buf, &m->len);
	assert_non_null(f);
	assert_int_equal(write(f, r), GS_OK);
	assert_int_equal(fclose(f), 0);
	buf = m->buf;
	if (len)
		*len = m->len;
	free(m);
	return buf;
}

#endif /* GS_TEST_REPORT_OUT_H */
