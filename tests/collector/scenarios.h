/* SPDX-License-Identifier: MIT */
/*
 * What the collector's scenario tests share (test_collector_scenarios.c,
 * test_collector_scenarios_life.c, test_collector_scenarios_deps.c): short
 * names of CUPTI constants and the records of a loaded trace found by
 * index, stream id or correlation. Header-only (static functions); needs
 * cmocka.h and harness.h first.
 */
#ifndef GS_TESTS_COLLECTOR_SCENARIOS_H
#define GS_TESTS_COLLECTOR_SCENARIOS_H

#include <gpuscope/format.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define KCBID_MEMCPY_ASYNC CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020
#define KCBID_MEMCPY CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020
#define PINNED CUPTI_ACTIVITY_MEMORY_KIND_PINNED
#define PAGEABLE CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
#define DEVICE CUPTI_ACTIVITY_MEMORY_KIND_DEVICE

static inline const char *s(const struct gs_trace *t, uint32_t id)
{
	return gs_trace_string(t, id);
}

static inline const struct gs_stream *stream_of(const struct gs_trace *t, uint32_t index)
{
	size_t n;
	const struct gs_stream *st = gs_trace_streams(t, &n);

	assert_true(index < n);
	return &st[index];
}

static inline const struct gs_stream *find_stream(const struct gs_trace *t, uint64_t id)
{
	size_t n;
	const struct gs_stream *st = gs_trace_streams(t, &n);

	for (size_t i = 0; i < n; i++)
		if (st[i].stream_id == id)
			return &st[i];
	fail_msg("no stream %llu", (unsigned long long)id);
	abort(); /* not reached: fail_msg leaves the test */
}

static inline const struct gs_op *find_op(const struct gs_trace *t, uint64_t corr, uint8_t kind)
{
	size_t n;
	const struct gs_op *op = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		if (op[i].correlation == corr && op[i].kind == kind)
			return &op[i];
	fail_msg("no op with correlation %llu", (unsigned long long)corr);
	abort(); /* not reached: fail_msg leaves the test */
}

static inline void check_process(const struct gs_trace *t, const struct run *r)
{
	size_t n;
	const struct gs_process *p = gs_trace_processes(t, &n);

	assert_int_equal(n, 1);
	assert_int_equal(p->pid, r->pid);
	assert_non_null(strstr(s(t, p->command_line), "test_collector_scenarios"));
	assert_string_equal(s(t, p->cupti_version), "130001");
	assert_string_equal(s(t, p->driver_version), "13000"); /* the driver double */
	assert_true(strlen(s(t, p->host_name)) > 0);
	assert_true(p->start_ns > 0);
	/* No launcher variable is set (the harness unsets them): no rank. */
	assert_false(p->has_rank);
	assert_int_equal(p->world_size, 0);
}

#endif
