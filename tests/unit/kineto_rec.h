/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the Kineto importer's tests that import into a recording sink
 * (kineto_sink.h; test_kineto.c, test_kineto_errors.c): inline JSON with '
 * for " (jdup), an import with limits, the records found by name or id,
 * the warnings, and what the new-style fixture must give. Header-only
 * (static functions); needs cmocka.h first.
 */
#ifndef GS_TEST_KINETO_REC_H
#define GS_TEST_KINETO_REC_H

#include <gpuscope/import.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kineto_sink.h"
#include "kineto_test.h"

/* A copy of `s` with every ' made ". */
static inline char *jdup(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	for (char *p = d; *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

static inline gs_status import_lim(struct rec *r, const char *json,
				   const struct gs_import_limits *lim)
{
	char *d = jdup(json);
	gs_status rc;

	gs_error_clear();
	rc = gs_import_kineto_mem(d, strlen(d), "t.json", lim, &r->sink);
	free(d);
	return rc;
}

static inline gs_status import(struct rec *r, const char *json)
{
	return import_lim(r, json, NULL);
}

/* The warning whose message contains `needle` (fails when absent). */
static inline const struct rec_warning *warning(const struct rec *r, const char *needle)
{
	for (size_t i = 0; i < r->nwarns; i++)
		if (strstr(r->warns[i].msg, needle))
			return &r->warns[i];
	for (size_t i = 0; i < r->nwarns; i++)
		print_message("warning: %s (%llu)\n", r->warns[i].msg,
			      (unsigned long long)r->warns[i].count);
	fail_msg("no warning containing \"%s\"", needle);
	abort(); /* not reached: fail_msg jumps out */
}

static inline bool has_warning(const struct rec *r, const char *needle)
{
	for (size_t i = 0; i < r->nwarns; i++)
		if (strstr(r->warns[i].msg, needle))
			return true;
	return false;
}

static inline const struct gs_stream *stream_of(const struct rec *r, uint32_t idx)
{
	assert_true(idx < r->nstreams);
	return &r->streams[idx];
}

static inline const struct gs_op *op_named(const struct rec *r, const char *name)
{
	for (size_t i = 0; i < r->nops; i++)
		if (strcmp(rec_str(r, r->ops[i].name), name) == 0)
			return &r->ops[i];
	fail_msg("no op named %s", name);
	abort(); /* not reached: fail_msg jumps out */
}

static inline const struct gs_api_call *api_named(const struct rec *r, const char *name)
{
	for (size_t i = 0; i < r->napis; i++)
		if (strcmp(rec_str(r, r->apis[i].name), name) == 0)
			return &r->apis[i];
	fail_msg("no api call named %s", name);
	abort(); /* not reached: fail_msg jumps out */
}

static inline const struct gs_sync *sync_corr(const struct rec *r, uint64_t corr)
{
	for (size_t i = 0; i < r->nsyncs; i++)
		if (r->syncs[i].correlation == corr)
			return &r->syncs[i];
	fail_msg("no sync with correlation %llu", (unsigned long long)corr);
	abort(); /* not reached: fail_msg jumps out */
}
/* What the new-style fixture (new_style.json) must give, however it is read. */
static inline void check_new_style(const struct rec *r)
{
	const struct gs_op *k, *cp, *ms;
	const struct gs_api_call *c;
	const struct gs_sync *y;
	const struct gs_stream *st;

	assert_int_equal(r->ndevs, 2);
	assert_int_equal(r->devs[0].id, 0);
	assert_int_equal(r->devs[1].id, 1);
	assert_string_equal(rec_str(r, r->devs[0].name), "NVIDIA A100-SXM4-80GB");
	assert_int_equal(r->devs[0].memory_bytes, 84990623744ull);
	assert_int_equal(r->devs[0].sm_count, 108);
	assert_int_equal(r->devs[0].cc_major, 8);
	assert_int_equal(r->devs[0].cc_minor, 0);
	assert_int_equal(r->devs[0].uuid, GS_NO_STRING);

	assert_int_equal(r->nops, 3);
	k = op_named(r, "add_kernel");
	assert_int_equal(k->kind, GS_OP_KERNEL);
	assert_int_equal(k->start_ns, 1707417525512145123ll);
	assert_int_equal(k->end_ns, 1707417525512146623ll);
	assert_int_equal(k->correlation, 42);
	assert_int_equal(rec_launch(r, k)->grid[0], 128);
	assert_int_equal(rec_launch(r, k)->grid[1], 2);
	assert_int_equal(rec_launch(r, k)->grid[2], 1);
	assert_int_equal(rec_launch(r, k)->block[0], 256);
	assert_int_equal(rec_launch(r, k)->block[1], 1);
	assert_int_equal(rec_launch(r, k)->registers, 16);
	assert_int_equal(rec_launch(r, k)->shared_mem, 1024);
	assert_int_equal(k->flags, 0);
	st = stream_of(r, k->stream);
	assert_int_equal(st->pid, 0);
	assert_int_equal(st->device, 0);
	assert_int_equal(st->context, 1);
	assert_int_equal(st->stream_id, 7);
	assert_int_equal(st->kind, GS_STREAM_UNKNOWN);

	cp = op_named(r, "Memcpy HtoD (Pinned -> Device)");
	assert_int_equal(cp->kind, GS_OP_MEMCPY);
	assert_int_equal(cp->copy_kind, GS_COPY_HTOD);
	assert_int_equal(cp->src_mem, GS_MEM_PINNED);
	assert_int_equal(cp->dst_mem, GS_MEM_DEVICE);
	assert_int_equal(cp->bytes, 4096);
	assert_int_equal(cp->flags, GS_OPF_ASYNC); /* cudaMemcpyAsync */
	assert_int_equal(stream_of(r, cp->stream)->stream_id, 20);

	ms = op_named(r, "Memset (Device)");
	assert_int_equal(ms->kind, GS_OP_MEMSET);
	assert_int_equal(ms->bytes, 512);
	assert_int_equal(ms->dst_mem, GS_MEM_DEVICE);
	assert_int_equal(ms->flags, 0); /* no launch call in the trace */
	st = stream_of(r, ms->stream);
	assert_int_equal(st->device, 1);
	assert_int_equal(st->context, 2);
	assert_int_equal(st->stream_id, 7);
	assert_int_equal(r->nstreams, 3);

	assert_int_equal(r->napis, 4);
	c = api_named(r, "cudaLaunchKernel");
	assert_int_equal(c->kind, GS_API_RUNTIME);
	assert_int_equal(c->start_ns, 1707417525512110500ll);
	assert_int_equal(c->end_ns, 1707417525512115750ll);
	assert_int_equal(c->pid, 1234);
	assert_int_equal(c->tid, 1235);
	assert_int_equal(c->correlation, 42);
	assert_int_equal(c->cbid, 211);
	c = api_named(r, "cuLaunchKernel");
	assert_int_equal(c->kind, GS_API_DRIVER);
	assert_int_equal(c->cbid, 307);

	assert_int_equal(r->nsyncs, 1);
	y = &r->syncs[0];
	assert_int_equal(y->kind, GS_SYNC_STREAM);
	assert_int_equal(y->correlation, 46);
	assert_int_equal(y->stream, k->stream); /* (0, 1, 7) */
	assert_int_equal(y->wait_on_stream, GS_NO_INDEX);
	assert_int_equal(y->device, 0);
	assert_int_equal(y->pid, 1234); /* from cudaStreamSynchronize */
	assert_int_equal(y->tid, 1235);
	assert_int_equal(y->start_ns, 1707417525512230000ll);
	assert_int_equal(y->end_ns, 1707417525512239000ll);

	assert_int_equal(r->nranges, 4);
	assert_int_equal(r->ranges[0].kind, GS_RANGE_USER_ANNOTATION);
	assert_int_equal(r->ranges[0].start_ns, 1707417525512000500ll);
	assert_int_equal(r->ranges[0].end_ns, 1707417525512300750ll);
	assert_int_equal(r->ranges[0].external_id, 1);
	assert_int_equal(r->ranges[1].kind, GS_RANGE_CPU_OP);
	assert_string_equal(rec_str(r, r->ranges[1].name), "aten::add");
	assert_int_equal(r->ranges[1].external_id, 7);
	assert_int_equal(r->ranges[1].tid, 1235);
	assert_int_equal(r->ranges[1].domain, GS_NO_STRING);
	assert_int_equal(r->ranges[2].kind, GS_RANGE_PYTHON);
	assert_int_equal(r->ranges[2].start_ns, 1707417525512050001ll);
	/* gpu_user_annotation: a range on the kernel's stream (pid 0 is the
	 * device, tid 7 the stream; the context of the stream seen before),
	 * never an op. */
	assert_int_equal(r->ranges[3].kind, GS_RANGE_GPU_ANNOTATION);
	assert_string_equal(rec_str(r, r->ranges[3].name), "ProfilerStep#1");
	assert_int_equal(r->ranges[3].start_ns, 1707417525512145000ll);
	assert_int_equal(r->ranges[3].end_ns, 1707417525512245000ll);
	assert_int_equal(r->ranges[3].external_id, 1);
	assert_int_equal(r->ranges[3].stream, k->stream);
	assert_int_equal(r->ranges[3].pid, -1);
	assert_int_equal(r->ranges[3].tid, -1);

	assert_int_equal(r->noverheads, 1);
	assert_int_equal(r->overheads[0].pid, -1);
	assert_string_equal(rec_str(r, r->overheads[0].kind), "Activity Buffer Request");

	assert_int_equal(r->nevrecs, 0);
	assert_int_equal(r->nprocs, 1); /* pid 0 is "GPU 0" */
	assert_int_equal(r->procs[0].pid, 1234);
	assert_string_equal(rec_str(r, r->procs[0].command_line), "python3.10");
	assert_string_equal(rec_str(r, r->procs[0].host_name), "node-17");
	assert_string_equal(rec_str(r, r->procs[0].driver_version), "12020");
	assert_string_equal(rec_str(r, r->procs[0].runtime_version), "12000");
	assert_string_equal(rec_str(r, r->procs[0].cupti_version), "18");

	/* Flows, metadata, Trace, instants and GPU annotations are silent. */
	assert_int_equal(r->nwarns, 0);
}

#endif
