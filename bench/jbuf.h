/* SPDX-License-Identifier: MIT */
/*
 * The generators' JSON output (bench/gen.c, bench/job.c): text written
 * through a gs_outbuf (<gpuscope/outbuf.h>) to a plain FILE and/or a
 * gzFile. Numbers are formatted by hand (no printf on the hot path), and
 * times the way Kineto writes them: ns as µs with three decimals, so that
 * a reader gets the exact integer ns back. A failed write is kept by the
 * gs_outbuf and returned by the next gs_jbuf_reserve, gs_jbuf_long,
 * gs_jbuf_event or gs_jbuf_flush.
 */
#ifndef GS_BENCH_JBUF_H
#define GS_BENCH_JBUF_H

#include <gpuscope/outbuf.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct gs_jbuf {
	struct gs_outbuf o; /* write the text here */
	FILE *json;         /* NULL: not written */
	void *gz;           /* a gzFile; NULL: not written */
	bool first_event;   /* the next gs_jbuf_event opens the list */
	uint64_t bytes;     /* written out so far */
};

/* Either output may be NULL. j must stay where it is until gs_jbuf_fini. */
gs_status gs_jbuf_init(struct gs_jbuf *j, FILE *json, void *gz);
void gs_jbuf_fini(struct gs_jbuf *j);
/* Write out what is buffered; GS_ERR_IO with a cause when a write failed. */
gs_status gs_jbuf_flush(struct gs_jbuf *j);
/* GS_ERR_IO with a cause when a write failed. */
gs_status gs_jbuf_reserve(struct gs_jbuf *j);

/* ns (not negative) as µs with three decimals, as Kineto writes them. */
static inline void gs_jbuf_us(struct gs_jbuf *j, int64_t ns)
{
	int64_t f = ns % 1000;
	char d[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10)};

	gs_outbuf_u64(&j->o, (uint64_t)(ns / 1000));
	gs_outbuf_write(&j->o, d, 4);
}

/* Fixed-point with two decimals (for the derived args Kineto writes). */
static inline void gs_jbuf_fix2(struct gs_jbuf *j, uint64_t hundredths)
{
	char d[3] = {'.', (char)('0' + hundredths / 10 % 10), (char)('0' + hundredths % 10)};

	gs_outbuf_u64(&j->o, hundredths / 100);
	gs_outbuf_write(&j->o, d, 3);
}

/* A string of any length (`len` bytes, no escapes needed). */
gs_status gs_jbuf_long(struct gs_jbuf *j, const char *s, size_t len);

/*
 * Begin an event of the traceEvents list: "{ ph, cat, name, pid, tid,
 * ts[, dur]" with no closing brace (dur < 0: none). `name` is written as
 * it is (it must need no escapes).
 */
gs_status gs_jbuf_event(struct gs_jbuf *j, const char *ph, const char *cat, const char *name,
			int64_t pid, int64_t tid, int64_t ts, int64_t dur);

#endif
