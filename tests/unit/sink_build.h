/* SPDX-License-Identifier: MIT */
/*
 * Hand-built traces through a sink (times in ns): host ranges of any kind
 * (NVTX among them, which Kineto JSON cannot carry), runtime calls and the
 * GPU ops they launch on device 0, written to a .gscope file and read back
 * (sb_gscope) or straight into a trace. Header-only (static functions);
 * needs cmocka.h first.
 */
#ifndef GS_TEST_SINK_BUILD_H
#define GS_TEST_SINK_BUILD_H

#include <gpuscope/format.h>
#include <gpuscope/import.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SB_PID 100
#define SB_STREAMS 2

struct sb {
	struct gs_sink *k;
	uint32_t stream[SB_STREAMS]; /* stream ids 7 and 8 of device 0 */
	uint64_t corr;
};

static inline uint32_t sb_str(struct sb *b, const char *s)
{
	uint32_t id = GS_NO_STRING;

	assert_int_equal(b->k->intern(b->k, s, strlen(s), &id), GS_OK);
	return id;
}

static inline void sb_init(struct sb *b, struct gs_sink *k)
{
	b->k = k;
	b->corr = 0;
	for (unsigned i = 0; i < SB_STREAMS; i++) {
		struct gs_stream st = {.pid = SB_PID, .device = 0, .context = 1, .stream_id = 7 + i};

		assert_int_equal(k->stream(k, &st, &b->stream[i]), GS_OK);
	}
}

/* An op `name` of `kind` on stream index `s`, [start, end), launched by
 * thread tid with a call [call, call + 2) (cudaLaunchKernel, or
 * cudaMemcpyAsync for a copy); with call < 0, by no call at all. */
static inline void sb_op(struct sb *b, int64_t tid, int64_t call, unsigned s, uint8_t kind,
			 const char *name, int64_t start, int64_t end)
{
	uint64_t corr = ++b->corr;
	struct gs_api_call c = {.start_ns = call,
				.end_ns = call + 2,
				.pid = SB_PID,
				.tid = tid,
				.correlation = corr,
				.name = sb_str(b, kind == GS_OP_KERNEL ? "cudaLaunchKernel" :
									 "cudaMemcpyAsync")};
	struct gs_op o = {.start_ns = start,
			  .end_ns = end,
			  .correlation = corr,
			  .name = sb_str(b, name),
			  .stream = b->stream[s],
			  .kind = kind};

	if (call >= 0)
		assert_int_equal(b->k->api_call(b->k, &c), GS_OK);
	assert_int_equal(b->k->op(b->k, &o, NULL), GS_OK);
}

/* A kernel "k" on the first stream, launched by thread tid at `call`. */
static inline void sb_launch(struct sb *b, int64_t tid, int64_t call, int64_t start, int64_t end)
{
	sb_op(b, tid, call, 0, GS_OP_KERNEL, "k", start, end);
}

static inline void sb_range(struct sb *b, int64_t tid, uint8_t kind, const char *name,
			    int64_t start, int64_t end)
{
	struct gs_range r = {.start_ns = start,
			     .end_ns = end,
			     .pid = SB_PID,
			     .tid = tid,
			     .name = sb_str(b, name),
			     .domain = GS_NO_STRING,
			     .kind = kind};

	assert_int_equal(b->k->range(b->k, &r), GS_OK);
}

/* The trace `fill` writes, through a .gscope file read back. */
static inline struct gs_trace *sb_gscope(void (*fill)(struct sb *b, void *arg), void *arg)
{
	char path[] = "/tmp/gs_sink_build_XXXXXX";
	int fd = mkstemp(path);
	struct gs_writer *w = NULL;
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;
	struct sb b;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(gs_writer_open(path, NULL, &w), GS_OK);
	sb_init(&b, gs_writer_borrow_sink(w));
	fill(&b, arg);
	assert_int_equal(gs_writer_close(w), GS_OK);
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_OK);
	unlink(path);
	assert_int_equal(fmt, GS_INPUT_GSCOPE);
	return t;
}

#endif /* GS_TEST_SINK_BUILD_H */
