/* SPDX-License-Identifier: MIT */
/*
 * Traces built through the trace's own sink (times in ns), for the tests
 * of the exporters: processes, devices, streams, kernels (with a launch
 * geometry), copies, runtime calls and CPU-op ranges. Header-only (static
 * functions); needs cmocka.h first.
 */
#ifndef GS_TEST_TB_BUILD_H
#define GS_TEST_TB_BUILD_H

#include <gpuscope/format.h>
#include <gpuscope/import.h>

#include <string.h>

struct tb {
	struct gs_trace *t;
	struct gs_sink *s;
};

static inline struct tb tb_new(void)
{
	struct tb b;

	assert_int_equal(gs_trace_create(&b.t), GS_OK);
	b.s = gs_trace_borrow_sink(b.t);
	return b;
}

static inline uint32_t tb_str(struct tb *b, const char *s)
{
	uint32_t id;

	assert_int_equal(b->s->intern(b->s, s, strlen(s), &id), GS_OK);
	return id;
}

static inline uint32_t tb_stream(struct tb *b, int64_t pid, uint32_t device, uint64_t id)
{
	struct gs_stream st = {.pid = pid, .device = device, .context = 1, .stream_id = id};
	uint32_t idx;

	assert_int_equal(b->s->stream(b->s, &st, &idx), GS_OK);
	return idx;
}

static inline void tb_kernel(struct tb *b, uint32_t stream, const char *name, int64_t start,
			     int64_t end, uint64_t corr)
{
	struct gs_op op = {.kind = GS_OP_KERNEL,
			   .start_ns = start,
			   .end_ns = end,
			   .stream = stream,
			   .correlation = corr,
			   .name = tb_str(b, name)};
	struct gs_launch_cfg lc = {.grid = {4, 2, 1},
				   .block = {128, 1, 1},
				   .registers = 32,
				   .shared_mem = 1024};

	assert_int_equal(b->s->op(b->s, &op, &lc), GS_OK);
}

static inline void tb_copy(struct tb *b, uint32_t stream, const char *name, int64_t start,
			   int64_t end, uint64_t corr, uint8_t ck, uint8_t src, uint8_t dst,
			   uint8_t flags)
{
	struct gs_op op = {.kind = GS_OP_MEMCPY,
			   .flags = flags,
			   .start_ns = start,
			   .end_ns = end,
			   .stream = stream,
			   .correlation = corr,
			   .name = tb_str(b, name),
			   .bytes = 4096,
			   .copy_kind = ck,
			   .src_mem = src,
			   .dst_mem = dst};

	assert_int_equal(b->s->op(b->s, &op, NULL), GS_OK);
}

static inline void tb_call(struct tb *b, int64_t pid, int64_t tid, const char *name, int64_t start,
			   int64_t end, uint64_t corr)
{
	struct gs_api_call c = {.pid = pid,
				.tid = tid,
				.name = tb_str(b, name),
				.start_ns = start,
				.end_ns = end,
				.correlation = corr,
				.kind = GS_API_RUNTIME};

	assert_int_equal(b->s->api_call(b->s, &c), GS_OK);
}

static inline void tb_range(struct tb *b, int64_t pid, int64_t tid, const char *name, int64_t start,
			    int64_t end)
{
	struct gs_range r = {.pid = pid,
			     .tid = tid,
			     .name = tb_str(b, name),
			     .domain = GS_NO_STRING,
			     .start_ns = start,
			     .end_ns = end,
			     .kind = GS_RANGE_CPU_OP};

	assert_int_equal(b->s->range(b->s, &r), GS_OK);
}

static inline void tb_device(struct tb *b, uint32_t id, const char *name)
{
	struct gs_device d = {.id = id,
			      .name = tb_str(b, name),
			      .uuid = GS_NO_STRING,
			      .sm_count = 108,
			      .cc_major = 8};

	assert_int_equal(b->s->device(b->s, &d), GS_OK);
}

static inline void tb_process(struct tb *b, int64_t pid, const char *cmd, const char *runtime)
{
	struct gs_process p = {.pid = pid,
			       .host_name = GS_NO_STRING,
			       .command_line = tb_str(b, cmd),
			       .driver_version = GS_NO_STRING,
			       .runtime_version = runtime ? tb_str(b, runtime) : GS_NO_STRING,
			       .cupti_version = GS_NO_STRING};

	assert_int_equal(b->s->process(b->s, &p), GS_OK);
}

static inline struct gs_trace *tb_done(struct tb *b)
{
	assert_int_equal(gs_trace_finish(b->t), GS_OK);
	return b->t;
}

#endif /* GS_TEST_TB_BUILD_H */
