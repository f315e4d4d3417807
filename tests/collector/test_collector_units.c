/* SPDX-License-Identifier: MIT */
/*
 * The collector's pure parts, without CUPTI: record conversion (real CUDA 13
 * record structs -> gs_trace through the sink), allocations and data
 * dependencies, settings, the bounded buffer pool, the hash map.
 */
#include <gpuscope/format.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include "buffer_pool.h"
#include "config.h"
#include "datadeps.h"
#include "record_convert.h"
#include "records.h"

/* ---- helpers ---- */

struct fixture {
	struct gs_trace *t;
	struct gs_sink *sink;
	struct gs_dd *dd;
	struct gs_conv *conv;
};

static const char *fake_names(void *ctx, unsigned domain, uint32_t cbid)
{
	(void)ctx;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 211)
		return "cudaLaunchKernel_v7000";
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 131)
		return "cudaStreamSynchronize_v3020";
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == 135)
		return "cudaEventRecord_v3020";
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == 307)
		return "cuLaunchKernel";
	return NULL;
}

static void fx_init(struct fixture *f)
{
	assert_int_equal(gs_trace_create(&f->t), GS_OK);
	f->sink = gs_trace_borrow_sink(f->t);
	assert_int_equal(gs_dd_create(f->sink, 77, &f->dd), GS_OK);
	assert_int_equal(gs_conv_create(f->sink, f->dd, 77, fake_names, NULL, &f->conv), GS_OK);
}

static void fx_finish(struct fixture *f)
{
	assert_int_equal(gs_conv_finish(f->conv), GS_OK);
	assert_int_equal(gs_dd_settle(f->dd, 100, true), GS_OK);
	assert_int_equal(gs_trace_finish(f->t), GS_OK);
}

static void fx_fini(struct fixture *f)
{
	gs_conv_destroy(f->conv);
	gs_dd_destroy(f->dd);
	gs_trace_destroy(f->t);
}

#define CONV(f, rec)                                                                               \
	do {                                                                                       \
		__typeof__(rec) r_ = (rec);                                                        \
		assert_int_equal(gs_conv_record((f)->conv, (const CUpti_Activity *)(void *)&r_),   \
				 GS_OK);                                                           \
	} while (0)

static const char *str(struct fixture *f, uint32_t id)
{
	return gs_trace_string(f->t, id);
}

/* ---- conversion ---- */

static void test_kernel_fields(void **state)
{
	struct fixture f;
	CUpti_ActivityKernel10 k = rec_kernel(1, 13, 42, 1000, 3500, "gemm_kernel");
	const struct gs_op *op;
	const struct gs_stream *st;
	size_t n;

	(void)state;
	fx_init(&f);
	k.graphId = 9;
	k.graphNodeId = 101;
	k.isDeviceLaunched = 1;
	CONV(&f, k);
	fx_finish(&f);
	op = gs_trace_ops(f.t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(op->kind, GS_OP_KERNEL);
	assert_int_equal(op->start_ns, 1000);
	assert_int_equal(op->end_ns, 3500);
	assert_int_equal(op->correlation, 42);
	assert_string_equal(str(&f, op->name), "gemm_kernel");
	assert_non_null(gs_trace_op_launch_cfg(f.t, op));
	assert_int_equal(gs_trace_op_launch_cfg(f.t, op)->grid[0], 4);
	assert_int_equal(gs_trace_op_launch_cfg(f.t, op)->grid[1], 2);
	assert_int_equal(gs_trace_op_launch_cfg(f.t, op)->grid[2], 1);
	assert_int_equal(gs_trace_op_launch_cfg(f.t, op)->block[0], 128);
	assert_int_equal(gs_trace_op_launch_cfg(f.t, op)->shared_mem, 1024 + 2048);
	assert_int_equal(gs_trace_op_launch_cfg(f.t, op)->registers, 32);
	assert_int_equal(gs_trace_op_launch_cfg(f.t, op)->graph_id, 9);
	assert_int_equal(op->graph_node, 101);
	assert_int_equal(op->flags, GS_OPF_GRAPH | GS_OPF_DEVICE_LAUNCHED);
	st = gs_trace_streams(f.t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(st->pid, 77);
	assert_int_equal(st->context, 1);
	assert_int_equal(st->stream_id, 13);
	assert_int_equal(st->kind, GS_STREAM_UNKNOWN);
	fx_fini(&f);
}

static void test_copies_and_memsets(void **state)
{
	struct fixture f;
	const struct gs_op *op;
	size_t n;

	(void)state;
	fx_init(&f);
	/* Synchronous pageable HtoD, async DtoH into pageable memory, an array
	 * copy (HtoA counts as HtoD), a peer copy and a memset. */
	CONV(&f, rec_memcpy(1, 7, 1, 100, 200, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
			    CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
			    false, 4096));
	CONV(&f, rec_memcpy(1, 7, 2, 300, 400, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH,
			    CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
			    true, 8192));
	CONV(&f, rec_memcpy(1, 7, 3, 500, 600, CUPTI_ACTIVITY_MEMCPY_KIND_HTOA,
			    CUPTI_ACTIVITY_MEMORY_KIND_PINNED, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY,
			    true, 16));
	CONV(&f, rec_peer(1, 7, 4, 700, 800, 1 << 20));
	CONV(&f, rec_memset(1, 7, 5, 900, 950, true, 256));
	fx_finish(&f);
	op = gs_trace_ops(f.t, &n);
	assert_int_equal(n, 5);
	assert_int_equal(op[0].kind, GS_OP_MEMCPY);
	assert_int_equal(op[0].copy_kind, GS_COPY_HTOD);
	assert_int_equal(op[0].src_mem, GS_MEM_PAGEABLE);
	assert_int_equal(op[0].dst_mem, GS_MEM_DEVICE);
	assert_int_equal(op[0].flags, 0);
	assert_int_equal(op[0].bytes, 4096);
	assert_string_equal(str(&f, op[0].name), "Memcpy HtoD (Pageable -> Device)");
	assert_int_equal(op[1].copy_kind, GS_COPY_DTOH);
	assert_int_equal(op[1].dst_mem, GS_MEM_PAGEABLE);
	assert_int_equal(op[1].flags, GS_OPF_ASYNC);
	assert_string_equal(str(&f, op[1].name), "Memcpy DtoH (Device -> Pageable)");
	assert_int_equal(op[2].copy_kind, GS_COPY_HTOD);
	assert_int_equal(op[2].dst_mem, GS_MEM_ARRAY);
	assert_string_equal(str(&f, op[2].name), "Memcpy HtoD (Pinned -> Array)");
	assert_int_equal(op[3].copy_kind, GS_COPY_PTOP);
	assert_int_equal(op[3].bytes, 1 << 20);
	assert_int_equal(op[3].flags, GS_OPF_ASYNC);
	assert_int_equal(op[4].kind, GS_OP_MEMSET);
	assert_int_equal(op[4].dst_mem, GS_MEM_DEVICE);
	assert_int_equal(op[4].bytes, 256);
	assert_int_equal(op[4].flags, GS_OPF_ASYNC);
	assert_string_equal(str(&f, op[4].name), "Memset (Device)");
	fx_fini(&f);
}

static void test_untimed_and_incomplete_ops_are_dropped(void **state)
{
	struct fixture f;
	size_t n;
	struct gs_conv_stats s;

	(void)state;
	fx_init(&f);
	CONV(&f, rec_kernel(1, 7, 1, 0, 0, "a"));      /* device buffer full */
	CONV(&f, rec_kernel(1, 7, 2, 500, 0, "b"));    /* still running at a forced flush */
	CONV(&f, rec_kernel(1, 7, 3, 500, 400, "c"));  /* end before start */
	CONV(&f, rec_kernel(1, 7, 4, 500, 600, "ok")); /* kept */
	assert_int_equal(gs_conv_take_dropped(f.conv), 3);
	assert_int_equal(gs_conv_take_dropped(f.conv), 0);
	fx_finish(&f);
	gs_trace_ops(f.t, &n);
	assert_int_equal(n, 1);
	gs_conv_get_stats(f.conv, &s);
	assert_int_equal(s.no_timing, 1);
	assert_int_equal(s.incomplete, 2);
	fx_fini(&f);
}

static void test_stream_kinds(void **state)
{
	struct fixture f;
	const struct gs_stream *st;
	size_t n;

	(void)state;
	fx_init(&f);
	/* An op on the legacy stream before the context record names it. */
	CONV(&f, rec_kernel(1, 7, 1, 100, 200, "k"));
	CONV(&f, rec_stream(1, 13, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT, 0));
	CONV(&f, rec_stream(1, 14, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, 5));
	CONV(&f, rec_context(1, 0, 7));
	CONV(&f, rec_kernel(1, 13, 2, 300, 400, "k"));
	CONV(&f, rec_kernel(1, 14, 3, 300, 400, "k"));
	/* A stream seen before its STREAM record (flag with high bits set). */
	CONV(&f, rec_kernel(1, 15, 4, 300, 400, "k"));
	CONV(&f,
	     rec_stream(1, 15,
			(CUpti_ActivityStreamFlag)(0x30000 |
						   CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING),
			2));
	/* Second context on device 1: its legacy stream is 21. */
	CONV(&f, rec_context(2, 1, 21));
	CONV(&f, rec_kernel(2, 21, 5, 300, 400, "k"));
	fx_finish(&f);
	st = gs_trace_streams(f.t, &n);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		switch (st[i].stream_id) {
		case 7:
			assert_int_equal(st[i].kind, GS_STREAM_LEGACY_DEFAULT);
			assert_int_equal(st[i].device, 0);
			break;
		case 13:
			assert_int_equal(st[i].kind, GS_STREAM_BLOCKING);
			break;
		case 14:
			assert_int_equal(st[i].kind, GS_STREAM_NON_BLOCKING);
			assert_int_equal(st[i].priority, 5);
			break;
		case 15:
			assert_int_equal(st[i].kind, GS_STREAM_NON_BLOCKING);
			assert_int_equal(st[i].priority, 2);
			break;
		case 21:
			assert_int_equal(st[i].kind, GS_STREAM_LEGACY_DEFAULT);
			assert_int_equal(st[i].device, 1);
			assert_int_equal(st[i].context, 2);
			break;
		default:
			fail_msg("unexpected stream %llu", (unsigned long long)st[i].stream_id);
		}
	}
	fx_fini(&f);
}

static void test_sync_and_event_get_thread_in_either_order(void **state)
{
	struct fixture f;
	const struct gs_sync *y;
	const struct gs_event_record *e;
	const struct gs_api_call *a;
	struct gs_conv_stats s;
	size_t n;

	(void)state;
	fx_init(&f);
	/* Event record after its API call: the cache has the call. */
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, 135, 12, 500, 1130, 1135));
	CONV(&f, rec_event(1, 13, 5, 77, 12));
	/* Stream wait before its API call: held until the call comes. */
	CONV(&f, rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 1, 14, 5, 77, 13,
			  1140, 1145));
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, 147, 13, 500, 1140, 1145));
	/* A context sync whose API call never comes: written at the end, no thread. */
	CONV(&f, rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 1,
			  CUPTI_SYNCHRONIZATION_INVALID_VALUE, CUPTI_SYNCHRONIZATION_INVALID_VALUE,
			  CUPTI_SYNCHRONIZATION_INVALID_VALUE, 99, 2000, 2100));
	/* A stream sync with the API first. */
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, 131, 20, 501, 3000, 3300));
	CONV(&f, rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 13,
			  CUPTI_SYNCHRONIZATION_INVALID_VALUE, UINT64_MAX, 20, 3000, 3290));
	fx_finish(&f);

	y = gs_trace_syncs(f.t, &n);
	assert_int_equal(n, 3);
	/* sorted by start */
	assert_int_equal(y[0].kind, GS_SYNC_STREAM_WAIT);
	assert_int_equal(y[0].tid, 500);
	assert_int_equal(y[0].correlation, 13);
	assert_int_equal(y[0].event_id, 5);
	assert_int_equal(y[0].sync_id, 77);
	assert_int_equal(gs_trace_streams(f.t, &n)[y[0].stream].stream_id, 14);
	assert_int_equal(y[0].wait_on_stream, GS_NO_INDEX);
	assert_int_equal(y[1].kind, GS_SYNC_CONTEXT);
	assert_int_equal(y[1].tid, -1);
	assert_int_equal(y[1].stream, GS_NO_INDEX);
	assert_int_equal(y[1].event_id, 0);
	assert_int_equal(y[1].sync_id, GS_NO_SYNC_ID);
	assert_int_equal(y[2].kind, GS_SYNC_STREAM);
	assert_int_equal(y[2].tid, 501);
	assert_int_equal(y[2].sync_id, GS_NO_SYNC_ID);
	assert_int_equal(y[2].start_ns, 3000);
	assert_int_equal(y[2].end_ns, 3290);
	assert_int_equal(gs_trace_streams(f.t, &n)[y[2].stream].stream_id, 13);

	e = gs_trace_event_records(f.t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(e->correlation, 12);
	assert_int_equal(e->event_id, 5);
	assert_int_equal(e->sync_id, 77);
	assert_int_equal(e->time_ns, 1130);
	assert_int_equal(gs_trace_streams(f.t, &n)[e->stream].stream_id, 13);

	a = gs_trace_api_calls(f.t, &n);
	assert_int_equal(n, 3);
	assert_int_equal(a[0].correlation, 12);
	gs_conv_get_stats(f.conv, &s);
	assert_int_equal(s.no_thread, 1);
	fx_fini(&f);
}

/* Query records (by their API call, in either order) and failed syncs go. */
static void test_queries_and_failed_syncs_dropped(void **state)
{
	const uint32_t inv = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	CUpti_ActivitySynchronization2 y;
	struct gs_conv_stats s;
	struct fixture f;
	size_t n;

	(void)state;
	fx_init(&f);
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020,
			 12, 500, 100, 110));
	CONV(&f, rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 1, inv, 5, 77, 12,
			  100, 105));
	CONV(&f, rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 13, inv, inv,
			  13, 200, 205));
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz, 13,
			 500, 200, 210));
	/* A stream sync that failed (no CUPTI filter in between here). */
	y = rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 13, inv, inv, 14,
		     300, 305);
	y.returnValue = 600;
	CONV(&f, y);
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_RUNTIME,
			 CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 15, 500, 400, 500));
	CONV(&f, rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 13, inv, inv,
			  15, 400, 495));
	fx_finish(&f);
	gs_trace_syncs(f.t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(gs_trace_syncs(f.t, &n)[0].correlation, 15);
	gs_conv_get_stats(f.conv, &s);
	assert_int_equal(s.queries, 2);
	assert_int_equal(s.failed_syncs, 1);
	assert_int_equal(s.syncs, 1);
	fx_fini(&f);
}

static void test_api_names_and_own_threads(void **state)
{
	struct fixture f;
	const struct gs_api_call *a;
	size_t n;

	(void)state;
	fx_init(&f);
	gs_conv_ignore_thread(f.conv, 999);
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1, 10, 100, 110));
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_DRIVER, 307, 2, 10, 200, 210));
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, 4000, 3, 10, 300, 310));
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API, 5, 4, 10, 400, 410));
	CONV(&f, rec_api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 5, 999, 500, 510)); /* ours */
	fx_finish(&f);
	a = gs_trace_api_calls(f.t, &n);
	assert_int_equal(n, 4);
	assert_string_equal(str(&f, a[0].name), "cudaLaunchKernel");
	assert_int_equal(a[0].kind, GS_API_RUNTIME);
	assert_int_equal(a[0].cbid, 211);
	assert_int_equal(a[0].pid, 4242);
	assert_int_equal(a[0].tid, 10);
	assert_int_equal(a[0].start_ns, 100);
	assert_int_equal(a[0].end_ns, 110);
	assert_string_equal(str(&f, a[1].name), "cuLaunchKernel");
	assert_int_equal(a[1].kind, GS_API_DRIVER);
	assert_string_equal(str(&f, a[2].name), "runtime_cbid_4000");
	assert_string_equal(str(&f, a[3].name), "(internal launch)");
	assert_int_equal(a[3].cbid, 0);
	assert_int_equal(a[3].kind, GS_API_DRIVER);
	assert_int_equal(gs_conv_api_name_len("cudaMemcpy_v3020"), 10);
	assert_int_equal(gs_conv_api_name_len("cuMemcpyHtoD_v2"), 12);
	assert_int_equal(gs_conv_api_name_len("cudaLaunchKernel_ptsz_v7000"), 21);
	assert_int_equal(gs_conv_api_name_len("cuLaunchKernel"), 14);
	assert_int_equal(gs_conv_api_name_len("_v2"), 3);
	fx_fini(&f);
}

static void test_markers_devices_overheads(void **state)
{
	struct fixture f;
	const struct gs_range *r;
	const struct gs_device *d;
	const struct gs_overhead *o;
	struct gs_conv_stats s;
	size_t n;

	(void)state;
	fx_init(&f);
	CONV(&f, rec_marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 1000, "outer", NULL, 10));
	CONV(&f, rec_marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, 1100, "inner", "mydomain", 10));
	CONV(&f, rec_marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 1500, NULL, NULL, 10));
	CONV(&f, rec_marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 2000, NULL, NULL, 10));
	CONV(&f, rec_marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 3, 2500, "mark", NULL, 11));
	CONV(&f,
	     rec_marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 4, 2600, NULL, NULL, 11)); /* no start */
	CONV(&f, rec_marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 5, 2700, "open", NULL, 11));
	CONV(&f, rec_device(0, "NVIDIA H200"));
	CONV(&f, rec_overhead(CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL, 3000, 3400));
	fx_finish(&f);
	r = gs_trace_ranges(f.t, &n);
	assert_int_equal(n, 3);
	assert_string_equal(str(&f, r[0].name), "outer");
	assert_int_equal(r[0].start_ns, 1000);
	assert_int_equal(r[0].end_ns, 2000);
	assert_int_equal(r[0].tid, 10);
	assert_int_equal(r[0].kind, GS_RANGE_NVTX);
	assert_int_equal(r[0].domain, GS_NO_STRING);
	assert_string_equal(str(&f, r[1].name), "inner");
	assert_string_equal(str(&f, r[1].domain), "mydomain");
	assert_int_equal(r[1].end_ns, 1500);
	assert_string_equal(str(&f, r[2].name), "mark");
	assert_int_equal(r[2].start_ns, r[2].end_ns);
	gs_conv_get_stats(f.conv, &s);
	assert_int_equal(s.unpaired_markers, 2);
	d = gs_trace_devices(f.t, &n);
	assert_int_equal(n, 1);
	assert_string_equal(str(&f, d->name), "NVIDIA H200");
	assert_string_equal(str(&f, d->uuid), "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
	assert_int_equal(d->sm_count, 132);
	assert_int_equal(d->cc_major, 9);
	assert_int_equal(d->memory_bytes, 150000000000ull);
	assert_int_equal(d->copy_engines, 7);
	o = gs_trace_overheads(f.t, &n);
	assert_int_equal(n, 1);
	assert_string_equal(str(&f, o->kind), "COMMAND_BUFFER_FULL");
	assert_int_equal(o->start_ns, 3000);
	assert_int_equal(o->end_ns, 3400);
	fx_fini(&f);
}

/* ---- allocations and data dependencies ---- */

static void obs(struct gs_dd *dd, uint64_t corr, int64_t t, uint8_t kind, uint64_t p0, uint64_t p1,
		uint64_t gen)
{
	struct gs_dd_obs o = {.correlation = corr, .time_ns = t, .op_kind = kind, .n = 2};

	o.ptr[0] = p0;
	o.ptr[1] = p1;
	assert_int_equal(gs_dd_observe(dd, &o, gen), GS_OK);
}

static void test_data_deps(void **state)
{
	struct fixture f;
	const struct gs_allocation *a;
	const struct gs_op_alloc *l;
	struct gs_dd_stats s;
	const uint64_t A = 0x700000000000ull, B = A + (4u << 20);
	size_t n;

	(void)state;
	fx_init(&f);
	/* Observations come before the allocation records (callbacks are
	 * synchronous, MEMORY2 records arrive later in buffers). */
	obs(f.dd, 40, 2000, GS_OP_MEMCPY, A + 64, 0x7ffd0000ull /* host */, 0);
	obs(f.dd, 41, 2100, GS_OP_KERNEL, A + 128, B, 0);
	obs(f.dd, 41, 2100, GS_OP_KERNEL, B, 0, 0);     /* B again, same place: one link */
	obs(f.dd, 41, 2100, GS_OP_KERNEL, B + 8, 0, 0); /* B elsewhere: a second one */
	CONV(&f, rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, A, 1 << 20, 1000));
	CONV(&f, rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, B, 2 << 20, 1100));
	CONV(&f, rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, A, 0, 5000));
	/* A new allocation at A's address after A was released: a later op
	 * touches the new one, not A. */
	CONV(&f, rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, A, 4096, 6000));
	obs(f.dd, 50, 7000, GS_OP_MEMSET, A + 16, 0, 0);
	assert_int_equal(gs_dd_settle(f.dd, 0, false), GS_OK);
	/* The host pointer waits two generations, then is dropped. */
	gs_dd_get_stats(f.dd, &s);
	assert_int_equal(s.unresolved, 0);
	assert_int_equal(gs_dd_settle(f.dd, 2, false), GS_OK);
	gs_dd_get_stats(f.dd, &s);
	assert_int_equal(s.unresolved, 1);
	fx_finish(&f);

	a = gs_trace_allocations(f.t, &n);
	assert_int_equal(n, 3);
	/* A is declared first (at its release), then the live ones at the end. */
	assert_int_equal(a[0].address, A);
	assert_int_equal(a[0].bytes, 1 << 20);
	assert_int_equal(a[0].alloc_ns, 1000);
	assert_int_equal(a[0].free_ns, 5000);
	assert_int_equal(a[0].mem_kind, GS_MEM_DEVICE);
	assert_int_equal(a[0].pid, 77);
	assert_int_equal(a[1].address, A);
	assert_int_equal(a[1].bytes, 4096);
	assert_int_equal(a[1].free_ns, 0);
	assert_int_equal(a[2].address, B);
	assert_int_equal(a[2].free_ns, 0);
	l = gs_trace_op_allocs(f.t, &n);
	assert_int_equal(n, 5);
	/* A is touched at 64 and 128: shared (a segment); the second A
	 * at one place only. */
	assert_int_equal(l[0].correlation, 40);
	assert_int_equal(l[0].allocation, 0);
	assert_int_equal(l[0].op_kind, GS_OP_MEMCPY);
	assert_int_equal(l[0].offset, 64);
	assert_int_equal(l[0].flags, GS_LINK_HAS_OFFSET | GS_LINK_SEGMENT);
	assert_int_equal(l[1].correlation, 41);
	assert_int_equal(l[1].allocation, 0);
	assert_int_equal(l[1].op_kind, GS_OP_KERNEL);
	assert_int_equal(l[1].offset, 128);
	assert_int_equal(l[2].correlation, 50);
	assert_int_equal(l[2].allocation, 1);
	assert_int_equal(l[2].op_kind, GS_OP_MEMSET);
	assert_int_equal(l[2].offset, 16);
	assert_int_equal(l[2].flags, GS_LINK_HAS_OFFSET);
	assert_int_equal(l[3].correlation, 41);
	assert_int_equal(l[3].allocation, 2);
	assert_int_equal(l[3].offset, 0);
	assert_int_equal(l[4].correlation, 41);
	assert_int_equal(l[4].allocation, 2);
	assert_int_equal(l[4].offset, 8);
	assert_int_equal(l[4].flags, GS_LINK_HAS_OFFSET | GS_LINK_SEGMENT);
	gs_dd_get_stats(f.dd, &s);
	assert_int_equal(s.allocations, 3);
	assert_int_equal(s.links, 5);
	assert_int_equal(s.segments, 2);
	fx_fini(&f);
}

static void test_data_deps_bounded(void **state)
{
	struct fixture f;
	const struct gs_allocation *a;
	struct gs_dd_stats s;
	size_t n;

	(void)state;
	fx_init(&f);
	CONV(&f, rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, 0x1000, 256, 10));
	for (uint64_t i = 0; i < GS_DD_LINKS_HELD + 10; i++)
		obs(f.dd, 100 + i, 20, GS_OP_KERNEL, 0x1000, 0, 0);
	assert_int_equal(gs_dd_settle(f.dd, 0, false), GS_OK);
	/* Declared early (free time unknown) so the held links stay bounded. */
	gs_trace_allocations(f.t, &n);
	assert_int_equal(n, 1);
	CONV(&f, rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, 0x1000, 0, 30));
	CONV(&f, rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, 0x9000, 0, 30));
	fx_finish(&f);
	a = gs_trace_allocations(f.t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(a->free_ns, 0);
	gs_trace_op_allocs(f.t, &n);
	assert_int_equal(n, GS_DD_LINKS_HELD + 10);
	gs_dd_get_stats(f.dd, &s);
	assert_int_equal(s.early_declared, 1);
	assert_int_equal(s.unknown_releases, 1);
	fx_fini(&f);
}

static void test_many_allocations(void **state)
{
	struct gs_trace *t;
	struct gs_dd *dd;
	const struct gs_op_alloc *l;
	const struct gs_allocation *a;
	size_t n, na;

	(void)state;
	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_dd_create(gs_trace_borrow_sink(t), 1, &dd), GS_OK);
	/* 20000 allocations of 256 bytes at scattered addresses, then a
	 * pointer into each: every one resolves to its own allocation. */
	for (uint64_t i = 0; i < 20000; i++) {
		uint64_t addr = 0x10000000ull + ((i * 7919) % 20000) * 4096;

		assert_int_equal(gs_dd_alloc(dd, addr, 256, 10, 0, GS_MEM_DEVICE), GS_OK);
		struct gs_dd_obs o = {.correlation = i + 1, .time_ns = 20, .n = 1};
		o.ptr[0] = addr + 255;
		assert_int_equal(gs_dd_observe(dd, &o, 0), GS_OK);
	}
	assert_int_equal(gs_dd_settle(dd, 0, true), GS_OK);
	l = gs_trace_op_allocs(t, &n);
	assert_int_equal(n, 20000);
	a = gs_trace_allocations(t, &na);
	assert_int_equal(na, 20000);
	for (size_t i = 0; i < n; i++) {
		uint64_t want = 0x10000000ull + (((l[i].correlation - 1) * 7919) % 20000) * 4096;

		assert_true(l[i].allocation < na);
		assert_int_equal(a[l[i].allocation].address, want);
	}
	gs_dd_destroy(dd);
	gs_trace_destroy(t);
}

/* ---- settings ---- */

static const char *env_table[16][2];

static const char *fake_env(const char *name)
{
	for (int i = 0; i < 16 && env_table[i][0]; i++)
		if (!strcmp(env_table[i][0], name))
			return env_table[i][1];
	return NULL;
}

static void test_config(void **state)
{
	struct gs_config c;
	char warn[512];

	(void)state;
	memset(env_table, 0, sizeof(env_table));
	gs_config_defaults(&c);
	gs_config_parse(&c, fake_env, warn, sizeof(warn));
	assert_string_equal(warn, "");
	assert_string_equal(c.output, "gpuscope-%h-%p.gscope");
	assert_int_equal(c.flush_ms, 200);
	assert_int_equal(c.buffer_size, 512u << 10);
	assert_int_equal(c.max_buffers, 512);
	assert_false(c.data_deps);
	assert_false(c.nvtx);
	assert_false(gs_config_injected(fake_env));

	env_table[0][0] = "GPUSCOPE_OUTPUT", env_table[0][1] = "/tmp/run-%h-%p-100%%.gscope";
	env_table[1][0] = "GPUSCOPE_FLUSH_MS", env_table[1][1] = "50";
	env_table[2][0] = "GPUSCOPE_DATA_DEPS", env_table[2][1] = "1";
	env_table[3][0] = "GPUSCOPE_BUFFER_SIZE", env_table[3][1] = "8M";
	env_table[4][0] = "GPUSCOPE_MAX_BUFFERS", env_table[4][1] = "16";
	env_table[5][0] = "GPUSCOPE_LOG", env_table[5][1] = "debug";
	env_table[6][0] = "NVTX_INJECTION64_PATH", env_table[6][1] = "/x/libcupti.so";
	env_table[7][0] = "CUDA_INJECTION64_PATH", env_table[7][1] = "/x/lib.so";
	gs_config_parse(&c, fake_env, warn, sizeof(warn));
	assert_string_equal(warn, "");
	assert_string_equal(c.output, "/tmp/run-%h-%p-100%%.gscope");
	assert_int_equal(c.flush_ms, 50);
	assert_true(c.data_deps);
	assert_int_equal(c.buffer_size, 8u << 20);
	assert_int_equal(c.max_buffers, 16);
	assert_int_equal(c.log_level, 2);
	assert_true(c.nvtx);
	assert_true(gs_config_injected(fake_env));

	/* Bad values keep the previous setting and say why. */
	env_table[0][1] = "/tmp/x-%q";
	env_table[1][1] = "-5";
	env_table[2][1] = "maybe";
	env_table[3][1] = "1K";
	env_table[4][1] = "0";
	env_table[5][1] = "loud";
	gs_config_parse(&c, fake_env, warn, sizeof(warn));
	assert_non_null(strstr(warn, "GPUSCOPE_OUTPUT='/tmp/x-%q' ignored"));
	assert_non_null(strstr(warn, "GPUSCOPE_FLUSH_MS='-5' ignored"));
	assert_non_null(strstr(warn, "GPUSCOPE_DATA_DEPS='maybe' ignored"));
	assert_non_null(strstr(warn, "GPUSCOPE_BUFFER_SIZE='1K' ignored"));
	assert_non_null(strstr(warn, "GPUSCOPE_MAX_BUFFERS='0' ignored"));
	assert_non_null(strstr(warn, "GPUSCOPE_LOG='loud' ignored"));
	assert_int_equal(c.flush_ms, 50);
	assert_int_equal(c.max_buffers, 16);
}

/* record's status file and the tests' driver name. */
static void test_config_status_driver(void **state)
{
	struct gs_config c;
	char warn[512];

	(void)state;
	memset(env_table, 0, sizeof(env_table));
	gs_config_defaults(&c);
	gs_config_parse(&c, fake_env, warn, sizeof(warn));
	assert_string_equal(c.status_file, "");
	assert_string_equal(c.driver_name, "libcuda.so.1");
	env_table[0][0] = "GPUSCOPE_STATUS_FILE", env_table[0][1] = "/tmp/gs-rec/status";
	env_table[1][0] = "GPUSCOPE_TEST_DRIVER_NAME", env_table[1][1] = "libnone.so.1";
	gs_config_parse(&c, fake_env, warn, sizeof(warn));
	assert_string_equal(warn, "");
	assert_string_equal(c.status_file, "/tmp/gs-rec/status");
	assert_string_equal(c.driver_name, "libnone.so.1");
	/* A relative status file is refused (the program may change directory). */
	gs_config_defaults(&c);
	env_table[0][1] = "status";
	gs_config_parse(&c, fake_env, warn, sizeof(warn));
	assert_non_null(strstr(warn, "GPUSCOPE_STATUS_FILE='status' ignored (an absolute path)"));
	assert_string_equal(c.status_file, "");
}

static void test_config_expand(void **state)
{
	char out[256];

	(void)state;

	assert_int_equal(
		gs_config_expand("/d/run-%h-%p.gscope", 1234, "gpu01", 0, out, sizeof(out)), 0);
	assert_string_equal(out, "/d/run-gpu01-1234.gscope");
	assert_int_equal(gs_config_expand("/d/run-%p.gscope", 1234, "h", 2, out, sizeof(out)), 0);
	assert_string_equal(out, "/d/run-1234.2.gscope");
	assert_int_equal(gs_config_expand("100%%-%h", 1, NULL, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "100%-localhost");
	assert_int_equal(gs_config_expand("bad-%", 1, "h", 0, out, sizeof(out)), -1);
	assert_int_equal(gs_config_expand("", 1, "h", 0, out, sizeof(out)), -1);
	assert_int_equal(gs_config_expand("long-%p", 1234567, "h", 0, out, 8), -1);
	assert_true(gs_config_has_pid("a-%p"));
	assert_false(gs_config_has_pid("a-%%p"));
	assert_false(gs_config_has_pid("a-%h"));
}

/* The rank variables of launchers: the first that holds a number wins,
 * anything else is passed over, and no warning is ever given for them. */
static void test_config_rank(void **state)
{
	static const struct {
		const char *env[5][2];
		bool has_rank;
		uint32_t rank, world_size;
	} cases[] = {
		{{{NULL, NULL}}, false, 0, 0},
		{{{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"}}, true, 3, 8},
		{{{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}, {"RANK", "9"}, {"WORLD_SIZE", "16"}},
		 true,
		 2,
		 4},
		{{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}}, true, 0, 1},
		{{{"RANK", "7"}}, true, 7, 0},
		/* not numbers: skipped for the next variable */
		{{{"OMPI_COMM_WORLD_RANK", " 1"},
		  {"PMI_RANK", "+1"},
		  {"SLURM_PROCID", "1x"},
		  {"RANK", "6"},
		  {"WORLD_SIZE", "0"}},
		 true,
		 6,
		 0},
		{{{"RANK", "-1"}, {"WORLD_SIZE", "4"}}, false, 0, 0},
		{{{"RANK", "4294967296"}}, false, 0, 0},
		{{{"RANK", "4294967295"}}, true, 4294967295u, 0},
		{{{"RANK", ""}, {"SLURM_PROCID", "12"}, {"SLURM_NTASKS", "12"}}, true, 12, 0},
		{{{"RANK", "3"}, {"PMI_SIZE", "huge"}, {"WORLD_SIZE", "5"}}, true, 3, 5},
	};
	struct gs_config c;
	char warn[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(env_table, 0, sizeof(env_table));
		for (int k = 0; k < 5 && cases[i].env[k][0]; k++) {
			env_table[k][0] = cases[i].env[k][0];
			env_table[k][1] = cases[i].env[k][1];
		}
		gs_config_defaults(&c);
		gs_config_parse(&c, fake_env, warn, sizeof(warn));
		assert_string_equal(warn, "");
		if (c.has_rank != cases[i].has_rank || c.rank != cases[i].rank ||
		    c.world_size != cases[i].world_size)
			fail_msg("case %zu: rank %d/%u of %u, want %d/%u of %u", i, (int)c.has_rank,
				 c.rank, c.world_size, (int)cases[i].has_rank, cases[i].rank,
				 cases[i].world_size);
	}
	memset(env_table, 0, sizeof(env_table));
}

/* ---- buffer pool ---- */

static void test_pool_bounded(void **state)
{
	struct gs_pool p;
	unsigned char *a, *b, *c;

	(void)state;
	assert_int_equal(gs_pool_init(&p, 4096, 2), 0);
	a = gs_pool_get(&p);
	b = gs_pool_get(&p);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(((uintptr_t)a & 7) == 0);
	memset(a, 0xab, 4096);
	/* Exhausted: no third buffer, the refusal is counted. */
	assert_null(gs_pool_get(&p));
	assert_null(gs_pool_get(&p));
	assert_int_equal(atomic_load(&p.refused), 2);
	assert_int_equal(atomic_load(&p.out), 2);
	gs_pool_put(&p, a);
	c = gs_pool_get(&p);
	assert_ptr_equal(c, a); /* reused, not a new allocation */
	assert_int_equal(atomic_load(&p.allocated), 2);
	gs_pool_put(&p, b);
	gs_pool_put(&p, c);
	assert_int_equal(atomic_load(&p.out), 0);
	gs_pool_fini(&p);
	assert_int_equal(gs_pool_init(&p, 100, 2), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_fields),
		cmocka_unit_test(test_copies_and_memsets),
		cmocka_unit_test(test_untimed_and_incomplete_ops_are_dropped),
		cmocka_unit_test(test_stream_kinds),
		cmocka_unit_test(test_sync_and_event_get_thread_in_either_order),
		cmocka_unit_test(test_queries_and_failed_syncs_dropped),
		cmocka_unit_test(test_api_names_and_own_threads),
		cmocka_unit_test(test_markers_devices_overheads),
		cmocka_unit_test(test_data_deps),
		cmocka_unit_test(test_data_deps_bounded),
		cmocka_unit_test(test_many_allocations),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_config_status_driver),
		cmocka_unit_test(test_config_expand),
		cmocka_unit_test(test_config_rank),
		cmocka_unit_test(test_pool_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
