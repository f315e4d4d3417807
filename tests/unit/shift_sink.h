/* SPDX-License-Identifier: MIT */
/*
 * Test helper: a finished trace replayed into a new one as another host,
 * process clock or rank would have recorded it: every time shifted, the
 * process's host, wall clock and rank replaced, and the ends of the
 * communication kernels moved by a jitter of the test's choosing.
 */
#ifndef GS_TEST_SHIFT_SINK_H
#define GS_TEST_SHIFT_SINK_H

#include <gpuscope/format.h>

#include <stdbool.h>
#include <stdint.h>

struct shift_opts {
	const char *host; /* NULL: keep; "": none */
	int64_t shift_ns; /* added to every time */
	bool set_clock;   /* the process's wall clock becomes (clock, offset_ns) */
	uint8_t clock;
	int64_t offset_ns;
	bool set_rank; /* the process declares `rank` */
	uint32_t rank;
	/* Added to the end of the k-th communication kernel (name with
	 * "nccl", any case), when set; the end stays after the start. */
	int64_t (*end_jitter)(void *ctx, uint64_t k);
	void *ctx;
};

/* `src` replayed into a new finished trace as o says; NULL on failure. */
struct gs_trace *shift_copy(const struct gs_trace *src, const struct shift_opts *o);

#endif
