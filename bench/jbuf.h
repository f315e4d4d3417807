/* SPDX-License-Identifier: MIT */
/*
 * The generators' JSON output (bench/gen.c, bench/job.c): text built in a
 * 1 MiB buffer and written, when nearly full, to a plain FILE and/or a
 * gzFile. Numbers are formatted by hand (no printf on the hot path), and
 * times the way Kineto writes them: ns as µs with three decimals, so that
 * a reader gets the exact integer ns back.
 *
 * Callers reserve room for one event (gs_jbuf_reserve, or gs_jbuf_event,
 * which does it) before writing it: no event is longer than
 * GS_JBUF_EVENT_MAX bytes, and the formatters do not check the capacity.
 */
#ifndef GS_BENCH_JBUF_H
#define GS_BENCH_JBUF_H

#include <gpuscope/format.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define GS_JBUF_CAP (1u << 20)
#define GS_JBUF_EVENT_MAX (16u << 10) /* no event is longer */

struct gs_jbuf {
	char *b;
	size_t n;
	FILE *json;       /* NULL: not written */
	void *gz;         /* a gzFile; NULL: not written */
	bool first_event; /* the next gs_jbuf_event opens the list */
	uint64_t bytes;   /* written out so far */
};

/* Allocate the buffer; either output may be NULL. */
gs_status gs_jbuf_init(struct gs_jbuf *j, FILE *json, void *gz);
void gs_jbuf_fini(struct gs_jbuf *j);
/* Write out what is buffered. */
gs_status gs_jbuf_flush(struct gs_jbuf *j);

/* Flush when one more event might not fit. */
static inline gs_status gs_jbuf_reserve(struct gs_jbuf *j)
{
	return j->n + GS_JBUF_EVENT_MAX > GS_JBUF_CAP ? gs_jbuf_flush(j) : GS_OK;
}

static inline void gs_jbuf_str(struct gs_jbuf *j, const char *s)
{
	size_t n = strlen(s);

	memcpy(j->b + j->n, s, n);
	j->n += n;
}

static inline void gs_jbuf_u64(struct gs_jbuf *j, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		j->b[j->n++] = tmp[--n];
}

static inline void gs_jbuf_i64(struct gs_jbuf *j, int64_t v)
{
	if (v < 0) {
		j->b[j->n++] = '-';
		gs_jbuf_u64(j, (uint64_t)0 - (uint64_t)v);
	} else {
		gs_jbuf_u64(j, (uint64_t)v);
	}
}

/* ns (not negative) as µs with three decimals, as Kineto writes them. */
static inline void gs_jbuf_us(struct gs_jbuf *j, int64_t ns)
{
	int64_t f = ns % 1000;

	gs_jbuf_u64(j, (uint64_t)(ns / 1000));
	j->b[j->n++] = '.';
	j->b[j->n++] = (char)('0' + f / 100);
	j->b[j->n++] = (char)('0' + f / 10 % 10);
	j->b[j->n++] = (char)('0' + f % 10);
}

/* Fixed-point with two decimals (for the derived args Kineto writes). */
static inline void gs_jbuf_fix2(struct gs_jbuf *j, uint64_t hundredths)
{
	gs_jbuf_u64(j, hundredths / 100);
	j->b[j->n++] = '.';
	j->b[j->n++] = (char)('0' + hundredths / 10 % 10);
	j->b[j->n++] = (char)('0' + hundredths % 10);
}

/* A string of any length (`len` bytes, no escapes needed), flushing as it
 * goes so that GS_JBUF_EVENT_MAX bytes of room are left after it. */
gs_status gs_jbuf_long(struct gs_jbuf *j, const char *s, size_t len);

/*
 * Begin an event of the traceEvents list, after reserving room for it:
 * "{ ph, cat, name, pid, tid, ts[, dur]" with no closing brace (dur < 0:
 * none). `name` is written as it is (it must need no escapes).
 */
gs_status gs_jbuf_event(struct gs_jbuf *j, const char *ph, const char *cat, const char *name,
			int64_t pid, int64_t tid, int64_t ts, int64_t dur);

#endif
