/* SPDX-License-Identifier: MIT */
/*
 * The collector end to end, without a GPU: each scenario runs in a child
 * process that loads the collector built against the CUPTI test double
 * (cupti_double.h), "runs" a CUDA program by handing it real CUDA 13
 * activity records and callback data, and exits (or is signalled). The
 * parent then reads the .gscope file the collector wrote and checks it
 * record by record, with the child's exit status, stdout and stderr
 * (running a scenario: harness.h, shared with test_collector_faults.c).
 */
#include <gpuscope/diff.h>
#include <gpuscope/format.h>
#include <gpuscope/graph.h>
#include <gpuscope/import.h>
#include <gpuscope/report.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpuscope/graph.h>

#include "cubin_build.h"
#include "cuda_double.h"
#include "cupti_double.h"
#include "harness.h"
#include "records.h"

#define KCBID_MEMCPY_ASYNC CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020
#define KCBID_MEMCPY CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020
#define PINNED CUPTI_ACTIVITY_MEMORY_KIND_PINNED
#define PAGEABLE CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE
#define DEVICE CUPTI_ACTIVITY_MEMORY_KIND_DEVICE

static const char *s(const struct gs_trace *t, uint32_t id)
{
	return gs_trace_string(t, id);
}

static const struct gs_stream *stream_of(const struct gs_trace *t, uint32_t index)
{
	size_t n;
	const struct gs_stream *st = gs_trace_streams(t, &n);

	assert_true(index < n);
	return &st[index];
}

static const struct gs_stream *find_stream(const struct gs_trace *t, uint64_t id)
{
	size_t n;
	const struct gs_stream *st = gs_trace_streams(t, &n);

	for (size_t i = 0; i < n; i++)
		if (st[i].stream_id == id)
			return &st[i];
	fail_msg("no stream %llu", (unsigned long long)id);
	abort(); /* not reached: fail_msg leaves the test */
}

static const struct gs_op *find_op(const struct gs_trace *t, uint64_t corr, uint8_t kind)
{
	size_t n;
	const struct gs_op *op = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		if (op[i].correlation == corr && op[i].kind == kind)
			return &op[i];
	fail_msg("no op with correlation %llu", (unsigned long long)corr);
	abort(); /* not reached: fail_msg leaves the test */
}

static void check_process(const struct gs_trace *t, const struct run *r)
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

/* ------------------------------------------------------------------------ */
/* Scenarios                                                                 */
/* ------------------------------------------------------------------------ */

/* Two streams, a producer kernel, an event record and a stream wait. */
static void sc_pipeline(void)
{
	uint32_t tid = 100;

	/* Data-dependency callbacks are off by default; flush callbacks on. */
	if (gsd_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, KCBID_MEMCPY_ASYNC))
		_exit(20);
	if (!gsd_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API,
				  CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) ||
	    !gsd_callback_enabled(CUPTI_CB_DOMAIN_RESOURCE,
				  CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING))
		_exit(21);
	if (!gsd_kind_enabled(CUPTI_ACTIVITY_KIND_CUDA_EVENT) ||
	    !gsd_kind_enabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) ||
	    !gsd_kind_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ||
	    gsd_kind_enabled(CUPTI_ACTIVITY_KIND_KERNEL) ||
	    !gsd_kind_enabled(CUPTI_ACTIVITY_KIND_MARKER))
		_exit(22); /* markers: NVTX goes to our CUPTI (set by the collector) */
	EMIT(rec_device(0, "Fake H200"));
	EMIT(rec_context(1, 0, 7));
	EMIT(rec_stream(1, 13, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, (uint32_t)-1));
	EMIT(rec_stream(1, 14, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, 0));
	EMIT(rec_api(RT, KCBID_MEMCPY_ASYNC, 10, tid, 1000, 1100));
	EMIT(rec_memcpy(1, 13, 10, 1200, 1500, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, PINNED, DEVICE,
			true, 4096));
	EMIT(rec_api(RT, KCBID_LAUNCH, 11, tid, 1110, 1120));
	EMIT(rec_kernel(1, 13, 11, 1500, 2500, "producer"));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 12, tid, 1130, 1135));
	EMIT(rec_event(1, 13, 5, 77, 12));
	/* The wait's sync record comes before its API record. */
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 1, 14, 5, 77, 13, 1140,
		      1145));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, 13, tid, 1140, 1145));
	EMIT(rec_api(RT, KCBID_LAUNCH, 14, tid, 1150, 1160));
	EMIT(rec_kernel(1, 14, 14, 2600, 3000, "consumer"));
	EMIT(rec_api(RT, KCBID_MEMCPY_ASYNC, 15, tid, 1170, 1180));
	EMIT(rec_memcpy(1, 14, 15, 3000, 3200, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, DEVICE, PINNED,
			true, 4096));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 16, tid, 1190,
		     3300));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 14,
		      CUPTI_SYNCHRONIZATION_INVALID_VALUE, CUPTI_SYNCHRONIZATION_INVALID_VALUE, 16,
		      1190, 3290));
}

static void test_pipeline_two_streams(void **state)
{
	struct run r = {.name = "pipeline", .fn = sc_pipeline};
	struct gs_trace *t;
	const struct gs_op *op;
	const struct gs_api_call *a;
	const struct gs_sync *y;
	const struct gs_event_record *e;
	const struct gs_device *d;
	size_t n, first, count;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, true);
	check_process(t, &r);
	d = gs_trace_devices(t, &n);
	assert_int_equal(n, 1);
	assert_string_equal(s(t, d->name), "Fake H200");

	gs_trace_streams(t, &n);
	assert_int_equal(n, 2); /* the legacy stream is never used: not declared */
	assert_int_equal(find_stream(t, 13)->kind, GS_STREAM_NON_BLOCKING);
	assert_int_equal(find_stream(t, 13)->priority, -1);
	assert_int_equal(find_stream(t, 14)->kind, GS_STREAM_NON_BLOCKING);
	assert_int_equal(find_stream(t, 14)->pid, r.pid);

	op = gs_trace_ops(t, &n);
	assert_int_equal(n, 4);
	/* Stream 13: the copy then the producer; stream 14: consumer, copy back. */
	gs_trace_stream_ops(t, (uint32_t)(find_stream(t, 13) - gs_trace_streams(t, &n)), &first,
			    &count);
	assert_int_equal(count, 2);
	assert_int_equal(op[first].kind, GS_OP_MEMCPY);
	assert_int_equal(op[first].correlation, 10);
	assert_int_equal(op[first].start_ns, 1200);
	assert_int_equal(op[first].end_ns, 1500);
	assert_int_equal(op[first].bytes, 4096);
	assert_int_equal(op[first].copy_kind, GS_COPY_HTOD);
	assert_int_equal(op[first].flags, GS_OPF_ASYNC);
	assert_string_equal(s(t, op[first + 1].name), "producer");
	assert_int_equal(op[first + 1].correlation, 11);
	assert_int_equal(op[first + 1].start_ns, 1500);
	assert_int_equal(op[first + 1].end_ns, 2500);
	assert_non_null(gs_trace_op_launch_cfg(t, &op[first + 1]));
	assert_int_equal(gs_trace_op_launch_cfg(t, &op[first + 1])->grid[0], 4);
	assert_int_equal(gs_trace_op_launch_cfg(t, &op[first + 1])->block[0], 128);
	assert_int_equal(gs_trace_op_launch_cfg(t, &op[first + 1])->shared_mem, 3072);
	assert_string_equal(s(t, find_op(t, 14, GS_OP_KERNEL)->name), "consumer");
	assert_int_equal(find_op(t, 15, GS_OP_MEMCPY)->copy_kind, GS_COPY_DTOH);
	assert_int_equal(stream_of(t, find_op(t, 15, GS_OP_MEMCPY)->stream)->stream_id, 14);

	a = gs_trace_api_calls(t, &n);
	assert_int_equal(n, 7);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].tid, 100);
		assert_int_equal(a[i].kind, GS_API_RUNTIME);
		assert_int_equal(a[i].correlation, 10 + i);
	}
	assert_string_equal(s(t, a[0].name), "cudaMemcpyAsync");
	assert_string_equal(s(t, a[1].name), "cudaLaunchKernel");
	assert_string_equal(s(t, a[2].name), "cudaEventRecord");
	assert_string_equal(s(t, a[3].name), "cudaStreamWaitEvent");
	assert_int_equal(a[6].end_ns, 3300);

	e = gs_trace_event_records(t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(e->correlation, 12);
	assert_int_equal(e->event_id, 5);
	assert_int_equal(e->sync_id, 77);
	assert_int_equal(e->time_ns, 1130);
	assert_int_equal(stream_of(t, e->stream)->stream_id, 13);

	y = gs_trace_syncs(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(y[0].kind, GS_SYNC_STREAM_WAIT);
	assert_int_equal(y[0].correlation, 13);
	assert_int_equal(y[0].event_id, 5);
	assert_int_equal(y[0].sync_id, 77); /* joins the event record */
	assert_int_equal(y[0].tid, 100);
	assert_int_equal(y[0].pid, r.pid);
	assert_int_equal(stream_of(t, y[0].stream)->stream_id, 14);
	assert_int_equal(y[1].kind, GS_SYNC_STREAM);
	assert_int_equal(y[1].sync_id, GS_NO_SYNC_ID);
	assert_int_equal(y[1].event_id, 0);
	assert_int_equal(y[1].tid, 100);
	assert_int_equal(y[1].start_ns, 1190);
	assert_int_equal(y[1].end_ns, 3290);

	gs_trace_clock_pairs(t, &n);
	assert_true(n >= 2); /* at open and at close */
	assert_int_equal(gs_trace_dropped(t), 0);
	gs_trace_destroy(t);
}

/* The legacy default stream between two blocking streams and a non-blocking one. */
static void sc_legacy(void)
{
	/* A kernel on the legacy stream before the context record says so. */
	EMIT(rec_api(RT, KCBID_LAUNCH, 2, 7, 110, 120));
	EMIT(rec_kernel(1, 7, 2, 250, 300, "on_legacy"));
	EMIT(rec_context(1, 0, 7));
	EMIT(rec_stream(1, 13, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT, 0));
	EMIT(rec_stream(1, 14, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT, 0));
	EMIT(rec_stream(1, 15, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, 0));
	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 7, 100, 105));
	EMIT(rec_kernel(1, 13, 1, 130, 200, "before"));
	EMIT(rec_api(RT, KCBID_LAUNCH, 3, 7, 125, 128));
	EMIT(rec_kernel(1, 14, 3, 350, 400, "after"));
	EMIT(rec_api(RT, KCBID_LAUNCH, 4, 7, 129, 131));
	EMIT(rec_kernel(1, 15, 4, 135, 500, "free_running"));
}

static void test_legacy_default_stream(void **state)
{
	struct run r = {.name = "legacy", .fn = sc_legacy};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	gs_trace_streams(t, &n);
	assert_int_equal(n, 4);
	assert_int_equal(find_stream(t, 7)->kind, GS_STREAM_LEGACY_DEFAULT);
	assert_int_equal(find_stream(t, 13)->kind, GS_STREAM_BLOCKING);
	assert_int_equal(find_stream(t, 14)->kind, GS_STREAM_BLOCKING);
	assert_int_equal(find_stream(t, 15)->kind, GS_STREAM_NON_BLOCKING);
	assert_int_equal(stream_of(t, find_op(t, 2, GS_OP_KERNEL)->stream)->stream_id, 7);
	assert_int_equal(stream_of(t, find_op(t, 1, GS_OP_KERNEL)->stream)->stream_id, 13);
	assert_int_equal(stream_of(t, find_op(t, 3, GS_OP_KERNEL)->stream)->stream_id, 14);
	assert_int_equal(stream_of(t, find_op(t, 4, GS_OP_KERNEL)->stream)->stream_id, 15);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(gs_trace_streams(t, &n)[i].context, 1);
	gs_trace_destroy(t);
}

/*
 * The rank a launcher gives (Open MPI, PMI, Slurm, torchrun variables, the
 * first that holds a number): recorded with the host name, and a value that
 * is not a number is passed over without a word on stderr.
 */
static void test_rank_from_launcher(void **state)
{
	static const struct {
		const char *name;
		const char *env[4][2];
		bool has_rank;
		uint32_t rank, world_size;
	} cases[] = {
		{"rank_slurm",
		 {{"OMPI_COMM_WORLD_RANK", "x"},
		  {"SLURM_PROCID", "5"},
		  {"PMI_SIZE", "-3"},
		  {"SLURM_NTASKS", "16"}},
		 true,
		 5,
		 16},
		{"rank_torchrun",
		 {{"PMI_RANK", ""}, {"RANK", "1"}, {"WORLD_SIZE", "4"}},
		 true,
		 1,
		 4},
		{"rank_ompi_over_torchrun",
		 {{"OMPI_COMM_WORLD_RANK", "0"},
		  {"OMPI_COMM_WORLD_SIZE", "2"},
		  {"RANK", "7"},
		  {"WORLD_SIZE", "8"}},
		 true,
		 0,
		 2},
		{"rank_size_not_above", {{"PMI_RANK", "4"}, {"PMI_SIZE", "4"}}, true, 4, 0},
		{"rank_bad",
		 {{"RANK", "1e3"}, {"SLURM_PROCID", "99999999999"}, {"WORLD_SIZE", "4"}},
		 false,
		 0,
		 0},
	};
	char host[256];

	(void)state;
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = '\0';
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = {.name = cases[i].name, .fn = sc_legacy};
		const struct gs_process *p;
		struct gs_trace *t;
		size_t n;

		for (int k = 0; k < 4 && cases[i].env[k][0]; k++) {
			r.env[k][0] = cases[i].env[k][0];
			r.env[k][1] = cases[i].env[k][1];
		}
		run_scenario(&r);
		expect_exit(&r, 0);
		assert_string_equal(r.out, "");
		assert_string_equal(r.err, "");
		t = load_trace(r.trace, true);
		p = gs_trace_processes(t, &n);
		assert_int_equal(n, 1);
		assert_string_equal(s(t, p->host_name), host);
		if (p->has_rank != cases[i].has_rank || p->rank != cases[i].rank ||
		    p->world_size != cases[i].world_size)
			fail_msg("%s: rank %d/%u of %u, want %d/%u of %u", cases[i].name,
				 (int)p->has_rank, p->rank, p->world_size, (int)cases[i].has_rank,
				 cases[i].rank, cases[i].world_size);
		gs_trace_destroy(t);
	}
}

/* Copies that block the host: synchronous, and async with pageable memory. */
static void sc_pageable(void)
{
	EMIT(rec_context(1, 0, 7));
	EMIT(rec_api(RT, KCBID_MEMCPY, 1, 9, 100, 400));
	EMIT(rec_memcpy(1, 7, 1, 150, 390, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, PAGEABLE, DEVICE, false,
			1 << 20));
	EMIT(rec_api(RT, KCBID_MEMCPY_ASYNC, 2, 9, 500, 900));
	EMIT(rec_memcpy(1, 7, 2, 520, 880, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, DEVICE, PAGEABLE, true,
			2 << 20));
	EMIT(rec_api(RT, KCBID_MEMCPY_ASYNC, 3, 9, 1000, 1010));
	EMIT(rec_memcpy(1, 7, 3, 1020, 1100, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, PINNED, DEVICE, true,
			3 << 20));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, 4, 9, 1200, 1300));
	EMIT(rec_memset(1, 7, 4, 1210, 1290, false, 4096));
	EMIT(rec_api(RT, KCBID_MEMCPY, 5, 9, 1400, 1500));
	EMIT(rec_memcpy(1, 7, 5, 1410, 1490, CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, PAGEABLE, PAGEABLE,
			false, 64));
}

static void test_pageable_copies(void **state)
{
	struct run r = {.name = "pageable", .fn = sc_pageable};
	struct gs_trace *t;
	const struct gs_op *op;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 5);
	op = find_op(t, 1, GS_OP_MEMCPY);
	assert_int_equal(op->copy_kind, GS_COPY_HTOD);
	assert_int_equal(op->src_mem, GS_MEM_PAGEABLE);
	assert_int_equal(op->dst_mem, GS_MEM_DEVICE);
	assert_int_equal(op->flags & GS_OPF_ASYNC, 0);
	assert_int_equal(op->bytes, 1 << 20);
	assert_string_equal(s(t, op->name), "Memcpy HtoD (Pageable -> Device)");
	op = find_op(t, 2, GS_OP_MEMCPY);
	assert_int_equal(op->copy_kind, GS_COPY_DTOH);
	assert_int_equal(op->dst_mem, GS_MEM_PAGEABLE);
	assert_int_equal(op->flags, GS_OPF_ASYNC);
	assert_string_equal(s(t, op->name), "Memcpy DtoH (Device -> Pageable)");
	op = find_op(t, 3, GS_OP_MEMCPY);
	assert_int_equal(op->src_mem, GS_MEM_PINNED);
	assert_int_equal(op->flags, GS_OPF_ASYNC);
	op = find_op(t, 4, GS_OP_MEMSET);
	assert_int_equal(op->flags, 0);
	assert_int_equal(op->bytes, 4096);
	op = find_op(t, 5, GS_OP_MEMCPY);
	assert_int_equal(op->copy_kind, GS_COPY_HTOH);
	assert_int_equal(find_stream(t, 7)->kind, GS_STREAM_LEGACY_DEFAULT);
	gs_trace_destroy(t);
}

/* Every kind of host synchronisation, each with its API call. */
static void sc_host_syncs(void)
{
	const uint32_t inv = CUPTI_SYNCHRONIZATION_INVALID_VALUE;

	EMIT(rec_context(1, 0, 7));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 20, 300, 100, 105));
	EMIT(rec_event(1, 13, 5, 77, 20));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, 21, 300, 200, 900));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 1, inv, 5, 77, 21, 200,
		      890));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 1, 14, 5, 77, 22, 1000,
		      1001));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, 22, 301, 1000, 1002));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 23, 300, 1100,
		     1500));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 13, inv, inv, 23,
		      1100, 1490));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, 24, 302, 1600,
		     2000));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 1, inv, inv, inv, 24,
		      1600, 1990));
}

static void test_host_syncs(void **state)
{
	struct run r = {.name = "syncs", .fn = sc_host_syncs};
	struct gs_trace *t;
	const struct gs_sync *y;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	y = gs_trace_syncs(t, &n);
	assert_int_equal(n, 4);
	assert_int_equal(y[0].kind, GS_SYNC_EVENT);
	assert_int_equal(y[0].tid, 300);
	assert_int_equal(y[0].event_id, 5);
	assert_int_equal(y[0].sync_id, 77);
	assert_int_equal(y[0].stream, GS_NO_INDEX);
	assert_int_equal(y[0].start_ns, 200);
	assert_int_equal(y[0].end_ns, 890);
	assert_int_equal(y[1].kind, GS_SYNC_STREAM_WAIT);
	assert_int_equal(y[1].tid, 301);
	assert_int_equal(stream_of(t, y[1].stream)->stream_id, 14);
	assert_int_equal(y[2].kind, GS_SYNC_STREAM);
	assert_int_equal(y[2].tid, 300);
	assert_int_equal(stream_of(t, y[2].stream)->stream_id, 13);
	assert_int_equal(y[2].event_id, 0);
	assert_int_equal(y[3].kind, GS_SYNC_CONTEXT);
	assert_int_equal(y[3].tid, 302);
	assert_int_equal(y[3].stream, GS_NO_INDEX);
	assert_int_equal(y[3].sync_id, GS_NO_SYNC_ID);
	assert_int_equal(y[3].correlation, 24);
	gs_trace_destroy(t);
}

/* A host polling its work with cudaEventQuery / cudaStreamQuery (and the
 * driver's cuEventQuery / cuStreamQuery) while kernels run, then one real
 * cudaStreamSynchronize. CUPTI 13 reports every query as an EVENT_ or
 * STREAM_SYNCHRONIZE record; unfinished ones carry CUDA_ERROR_NOT_READY. */
static void sc_queries(void)
{
	const uint32_t inv = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	const uint32_t not_ready = 600; /* CUDA_ERROR_NOT_READY */
	CUpti_ActivitySynchronization2 y;

	if (!gsd_get_stats().unfinished_syncs_off)
		_exit(92); /* the collector did not turn unfinished queries off */
	EMIT(rec_context(1, 0, 7));
	EMIT(rec_api(RT, KCBID_LAUNCH, 10, 300, 100, 110));
	EMIT(rec_kernel(1, 13, 10, 120, 5000, "k"));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 11, 300, 115, 118));
	EMIT(rec_event(1, 13, 5, 77, 11));
	/* Unfinished polls: the double drops them once the collector turned
	 * them off (cuptiActivityEnableAllSyncRecords(0)). */
	for (uint32_t i = 0; i < 4; i++) {
		EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, 20 + i, 300,
			     200 + 100 * i, 210 + 100 * i));
		y = rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 1, inv, 5, 77,
			     20 + i, 200 + 100 * i, 209 + 100 * i);
		y.returnValue = not_ready;
		gsd_emit(&y);
	}
	/* Finished polls (success): sync records before or after their API call. */
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 1, inv, 5, 77, 30,
		      5100, 5105));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, 30, 300, 5100, 5110));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020, 31, 300, 5200, 5210));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 13, inv, inv, 31,
		      5200, 5205));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000, 32, 300, 5300, 5310));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 13, inv, inv, 32,
		      5300, 5305));
	EMIT(rec_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuEventQuery, 33, 300,
		     5400, 5410));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 1, inv, 5, 77, 33,
		      5400, 5405));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 13, inv, inv, 34,
		      5500, 5505));
	EMIT(rec_api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuStreamQuery, 34, 300,
		     5500, 5510));
	/* The one real wait. */
	EMIT(rec_api(RT, KCBID_LAUNCH, 40, 300, 6000, 6010));
	EMIT(rec_kernel(1, 13, 40, 6020, 9000, "k"));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 41, 300, 6100,
		     9010));
	EMIT(rec_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 13, inv, inv, 41,
		      6100, 9005));
}

static void test_queries_are_not_waits(void **state)
{
	struct run r = {.name = "queries", .fn = sc_queries};
	struct gs_graph *g;
	struct gs_trace *t;
	const struct gs_sync *y;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	y = gs_trace_syncs(t, &n);
	/* Only the cudaStreamSynchronize: no query became sync time. */
	assert_int_equal(n, 1);
	assert_int_equal(y[0].kind, GS_SYNC_STREAM);
	assert_int_equal(y[0].correlation, 41);
	assert_int_equal(y[0].start_ns, 6100);
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	/* No op follows the real wait; the second kernel follows the finished
	 * queries, which must not order it after the first one. */
	assert_int_equal(g->edge_count[GS_EDGE_HOST_SYNC], 0);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

/* Two CUPTI libraries in one process, as under PyTorch: the one the
 * program mapped first (the double this test links, standing for torch's
 * libcupti.so.13; the collector binds to it by soname) and a copy elsewhere
 * (standing for the build machine's). NVTX must be sent to the first. */
static char other_cupti[PATH_MAX];

static void load_other_cupti(void)
{
	char dir[PATH_MAX], cmd[3 * PATH_MAX];
	const char *base = strrchr(GS_CUPTI_DOUBLE_PATH, '/') + 1;

	if (snprintf(dir, sizeof(dir), "%.3000s/other-cupti", tmpdir) >= (int)sizeof(dir) ||
	    snprintf(other_cupti, sizeof(other_cupti), "%.3000s/%.1000s", dir, base) >=
		    (int)sizeof(other_cupti))
		_exit(93);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && cp '%s' '%s'", dir, GS_CUPTI_DOUBLE_PATH,
		 other_cupti);
	if (system(cmd) != 0)
		_exit(93);
	if (!dlopen(other_cupti, RTLD_NOW | RTLD_LOCAL))
		_exit(94);
}

static void sc_print_nvtx(void)
{
	const char *v = getenv("NVTX_INJECTION64_PATH");

	printf("nvtx=%s\n", v ? v : "(unset)");
	printf("markers=%d\n", gsd_kind_enabled(CUPTI_ACTIVITY_KIND_MARKER) ? 1 : 0);
	fflush(stdout);
	EMIT(rec_context(1, 0, 7));
}

static void test_nvtx_gets_the_loaded_cupti(void **state)
{
	struct run r = {.name = "nvtx_cupti", .fn = sc_print_nvtx, .before_load = load_other_cupti};
	struct run u = {.name = "nvtx_user",
			.fn = sc_print_nvtx,
			.env = {{"NVTX_INJECTION64_PATH", "/opt/mine/libcupti.so"}}};
	char want[PATH_MAX + 16], real[PATH_MAX];

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_non_null(realpath(GS_CUPTI_DOUBLE_PATH, real));
	snprintf(want, sizeof(want), "nvtx=%s\n", real);
	if (!strstr(r.out, want) || !strstr(r.out, "markers=1"))
		fail_msg("want %s got: %s", want, r.out);
	run_scenario(&u);
	expect_exit(&u, 0);
	if (!strstr(u.out, "nvtx=/opt/mine/libcupti.so\n") || !strstr(u.out, "markers=1"))
		fail_msg("a user's NVTX_INJECTION64_PATH must be kept: %s", u.out);
}

/* CUDA_VISIBLE_DEVICES=1 on a two-GPU machine: CUPTI reports both devices,
 * GPU 0 with isCudaVisible 0; and GPU 1 twice (dumped at enable, then again
 * at CUDA initialisation). */
static void sc_devices(void)
{
	CUpti_ActivityDevice5 hidden = rec_device(0, "Hidden GPU");

	hidden.isCudaVisible = 0;
	gsd_emit(&hidden);
	EMIT(rec_device(1, "Visible GPU"));
	EMIT(rec_device(1, "Visible GPU"));
	EMIT(rec_context(1, 1, 7));
}

static void test_devices_visible_once(void **state)
{
	struct run r = {.name = "devices", .fn = sc_devices};
	const struct gs_device *d;
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	d = gs_trace_devices(t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(d[0].id, 1);
	assert_string_equal(gs_trace_string(t, d[0].name), "Visible GPU");
	gs_trace_destroy(t);
}

/* C++ kernel names: CUPTI gives them mangled, Kineto and Nsight demangled.
 * With a C++ runtime in the process (a CUDA C++ program links one) the
 * trace has the demangled name, the mangled one beside it; without one
 * (a C program) names stay as recorded. */
static void load_cxx_runtime(void)
{
	if (!dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL))
		_exit(95);
}

static void sc_cxx_names(void)
{
	printf("cxx=%d\n", dlsym(RTLD_DEFAULT, "__cxa_demangle") ? 1 : 0);
	fflush(stdout);
	EMIT(rec_context(1, 0, 7));
	EMIT(rec_kernel(1, 7, 1, 1000, 2000, "_Z6kernelPfi"));
	EMIT(rec_kernel(1, 7, 2, 3000, 4000, "_Z5scaleIfEvPT_S0_i"));
	EMIT(rec_kernel(1, 7, 3, 5000, 6000, "_Z6kernelPfi"));
	EMIT(rec_kernel(1, 7, 4, 7000, 8000, "plain_c_kernel"));
}

static void check_cxx_names(const struct run *r, bool demangled)
{
	static const char *const want[2][4] = {
		{"_Z6kernelPfi", "_Z5scaleIfEvPT_S0_i", "_Z6kernelPfi", "plain_c_kernel"},
		{"kernel(float*, int)", "void scale<float>(float*, float, int)",
		 "kernel(float*, int)", "plain_c_kernel"}};
	const struct gs_op *op;
	struct gs_trace *t = load_trace(r->trace, true);
	size_t n;

	op = gs_trace_ops(t, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		const struct gs_launch_cfg *lc = gs_trace_op_launch_cfg(t, &op[i]);

		assert_string_equal(s(t, op[i].name), want[demangled][i]);
		assert_non_null(lc);
		if (demangled && i < 3)
			assert_string_equal(s(t, lc->mangled_name - 1), want[0][i]);
		else
			assert_int_equal(lc->mangled_name, 0);
	}
	gs_trace_destroy(t);
}

/* The same program as Kineto records it (demangled names): `diff` must
 * pair the kernels by name, none new or vanished. */
static const char kineto_cxx[] =
	"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"Fake\", "
	"\"numSms\": 132, \"computeMajor\": 9, \"computeMinor\": 0}],\n"
	"\"traceEvents\": [\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel(float*, int)\", \"pid\": 0, "
	"\"tid\": 7, \"ts\": 1.0, \"dur\": 1.0, \"args\": {\"device\": 0, \"stream\": 7, "
	"\"correlation\": 1}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void scale<float>(float*, float, "
	"int)\", \"pid\": 0, \"tid\": 7, \"ts\": 3.0, \"dur\": 1.0, \"args\": {\"device\": 0, "
	"\"stream\": 7, \"correlation\": 2}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel(float*, int)\", \"pid\": 0, "
	"\"tid\": 7, \"ts\": 5.0, \"dur\": 1.0, \"args\": {\"device\": 0, \"stream\": 7, "
	"\"correlation\": 3}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"plain_c_kernel\", \"pid\": 0, "
	"\"tid\": 7, \"ts\": 7.0, \"dur\": 1.0, \"args\": {\"device\": 0, \"stream\": 7, "
	"\"correlation\": 4}}]}\n";

static void check_diff_with_kineto(const char *gscope)
{
	char path[PATH_MAX], *text = NULL;
	struct gs_diff_options o;
	struct gs_trace *a, *b = NULL;
	struct gs_diff *d;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%.4000s/cxx_kineto.json", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(kineto_cxx, f);
	fclose(f);
	a = load_trace(gscope, true);
	assert_int_equal(gs_trace_load(path, NULL, &b, NULL), GS_OK);
	memset(&o, 0, sizeof(o));
	assert_int_equal(gs_diff_build(a, b, &o, &d), GS_OK);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(gs_diff_write_json(f, d), GS_OK);
	fclose(f);
	if (!strstr(text,
		    "\"name\": \"kernel(float*, int)\", \"base_count\": 2, \"new_count\": 2") ||
	    !strstr(text, "\"name\": \"void scale<float>(float*, float, int)\", \"base_count\": 1, "
			  "\"new_count\": 1"))
		fail_msg("kernels not paired by name: %s", text);
	free(text);
	gs_diff_destroy(d);
	gs_trace_destroy(b);
	gs_trace_destroy(a);
}

static void test_kernel_names_demangled(void **state)
{
	struct run r = {.name = "cxx_names", .fn = sc_cxx_names, .before_load = load_cxx_runtime};
	struct run c = {.name = "c_names", .fn = sc_cxx_names};

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	check_cxx_names(&r, true);
	check_diff_with_kineto(r.trace);
	run_scenario(&c);
	expect_exit(&c, 0);
	/* No C++ runtime in this process: names as recorded, no load of one. */
	if (strstr(c.out, "cxx=0"))
		check_cxx_names(&c, false);
}

/* A CUDA graph launch: its kernels and copy share the launch's correlation. */
static void sc_graph(void)
{
	CUpti_ActivityKernel10 k;
	CUpti_ActivityMemcpy6 m;

	EMIT(rec_context(1, 0, 7));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, 30, 400, 100, 150));
	for (uint32_t i = 0; i < 3; i++) {
		k = rec_kernel(1, 13, 30, 200 + 100 * i, 280 + 100 * i, "graph_node_kernel");
		k.graphId = 9;
		k.graphNodeId = 101 + i;
		gsd_emit(&k);
	}
	m = rec_memcpy(1, 13, 30, 500, 550, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, DEVICE, DEVICE, true,
		       128);
	m.graphId = 9;
	m.graphNodeId = 104;
	gsd_emit(&m);
}

static void test_graph_launch(void **state)
{
	struct run r = {.name = "graph", .fn = sc_graph};
	struct gs_trace *t;
	const struct gs_op *op;
	const struct gs_api_call *a;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	op = gs_trace_ops(t, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(op[i].correlation, 30);
		assert_non_null(gs_trace_op_launch_cfg(t, &op[i]));
		assert_int_equal(gs_trace_op_launch_cfg(t, &op[i])->graph_id, 9);
		assert_int_equal(op[i].graph_node, 101 + i);
		assert_true(op[i].flags & GS_OPF_GRAPH);
		assert_int_equal(op[i].kind, i < 3 ? GS_OP_KERNEL : GS_OP_MEMCPY);
	}
	a = gs_trace_api_calls(t, &n);
	assert_int_equal(n, 1);
	assert_string_equal(s(t, a->name), "cudaGraphLaunch");
	gs_trace_destroy(t);
}

/*
 * Three host threads launching at once, each into its own buffers. CUPTI
 * fills in the thread ids: they must be the OS thread ids (gettid, as
 * Nsight and the OS show them), and the collector's writer thread, which
 * itself calls cudaRuntimeGetVersion, must know its own records.
 */
#define PER_THREAD 3000

static pid_t launcher_tid[3];

static void *launcher(void *arg)
{
	uint32_t i = (uint32_t)(uintptr_t)arg;

	launcher_tid[i] = (pid_t)syscall(SYS_gettid);
	for (uint32_t k = 0; k < PER_THREAD; k++) {
		uint32_t corr = i * 100000 + k + 1;

		/* Thread id 0: the double puts in what CUPTI would. */
		EMIT(rec_api(RT, KCBID_LAUNCH, corr, 0, 10000 + k * 10, 10000 + k * 10 + 5));
		EMIT(rec_kernel(1, 20 + i, corr, 20000 + k * 100, 20000 + k * 100 + 50, "work"));
	}
	return NULL;
}

static bool writer_asked_versions(void)
{
	return gsd_cuda_runtime_version_calls() > 0;
}

static void sc_threads(void)
{
	char path[PATH_MAX + 64];
	pthread_t th[3];
	FILE *f;

	if (!gsd_get_stats().system_thread_ids || gsd_get_stats().thread_id_type_late)
		_exit(33);
	EMIT(rec_context(1, 0, 7));
	/* The writer opens the file on this buffer and asks for the versions. */
	gsd_complete_thread_buffer();
	if (!wait_until(writer_asked_versions))
		_exit(34);
	for (uintptr_t i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, launcher, (void *)i))
			_exit(30);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	if (gsd_get_stats().dropped)
		_exit(31);
	snprintf(path, sizeof(path), "%s/threads.tids", tmpdir);
	f = fopen(path, "w");
	if (!f)
		_exit(32);
	fprintf(f, "%ld %ld %ld\n", (long)launcher_tid[0], (long)launcher_tid[1],
		(long)launcher_tid[2]);
	fclose(f);
}

static void test_three_threads(void **state)
{
	struct run r = {.name = "threads",
			.fn = sc_threads,
			.env = {{"GPUSCOPE_BUFFER_SIZE", "64K"}}};
	char path[PATH_MAX + 64], text[128];
	struct gs_trace *t;
	const struct gs_thread *th;
	const struct gs_op *op;
	const struct gs_api_call *a;
	long tid[3];
	size_t n, first, count;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	snprintf(path, sizeof(path), "%s/threads.tids", tmpdir);
	read_text(path, text, sizeof(text));
	assert_int_equal(sscanf(text, "%ld %ld %ld", &tid[0], &tid[1], &tid[2]), 3);
	t = load_trace(r.trace, true);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 3 * PER_THREAD);
	/* The writer thread's cudaRuntimeGetVersion is not the program's. */
	a = gs_trace_api_calls(t, &n);
	assert_int_equal(n, 3 * PER_THREAD);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(s(t, a[i].name), "cudaLaunchKernel");
	th = gs_trace_threads(t, &n);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 3; i++) {
		bool found = false;

		for (size_t k = 0; k < 3; k++)
			if (th[k].tid == tid[i]) {
				found = true;
				assert_int_equal(th[k].api_count, PER_THREAD);
				assert_int_equal(th[k].pid, r.pid);
			}
		if (!found)
			fail_msg("launching thread %ld is not in the trace", tid[i]);
	}
	op = gs_trace_ops(t, &n);
	for (uint32_t i = 0; i < 3; i++) {
		gs_trace_stream_ops(t, (uint32_t)(find_stream(t, 20 + i) - gs_trace_streams(t, &n)),
				    &first, &count);
		assert_int_equal(count, PER_THREAD);
		for (size_t k = 0; k < count; k++)
			assert_int_equal(op[first + k].correlation, i * 100000 + k + 1);
	}
	assert_int_equal(gs_trace_dropped(t), 0);
	gs_trace_destroy(t);
}

/* Two buffers at most: two threads hold one each (per-thread buffers), the
 * third thread gets none and its records are dropped. */
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cond = PTHREAD_COND_INITIALIZER;
static int holders_ready;
static bool holders_release;

static void *one_kernel(void *arg)
{
	uint32_t corr = (uint32_t)(uintptr_t)arg;

	EMIT(rec_kernel(1, 13, corr, 100 * corr, 100 * corr + 50, "held"));
	pthread_mutex_lock(&hold_lock);
	holders_ready++;
	pthread_cond_broadcast(&hold_cond);
	while (!holders_release)
		pthread_cond_wait(&hold_cond, &hold_lock);
	pthread_mutex_unlock(&hold_lock);
	return NULL;
}

static void sc_exhaustion(void)
{
	pthread_t th[2];

	for (uintptr_t i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, one_kernel, (void *)(i + 1)))
			_exit(30);
	pthread_mutex_lock(&hold_lock);
	while (holders_ready < 2)
		pthread_cond_wait(&hold_cond, &hold_lock);
	pthread_mutex_unlock(&hold_lock);
	for (uint32_t k = 0; k < 5; k++)
		EMIT(rec_kernel(1, 13, 10 + k, 1000 + k, 1001 + k, "lost"));
	if (gsd_get_stats().buffers_refused != 5 || gsd_get_stats().dropped != 5)
		_exit(32);
	pthread_mutex_lock(&hold_lock);
	holders_release = true;
	pthread_cond_broadcast(&hold_cond);
	pthread_mutex_unlock(&hold_lock);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
}

static void test_buffer_exhaustion(void **state)
{
	struct run r = {.name = "exhaust",
			.fn = sc_exhaustion,
			.env = {{"GPUSCOPE_BUFFER_SIZE", "64K"}, {"GPUSCOPE_MAX_BUFFERS", "2"}}};
	struct gs_trace *t;
	uint64_t count = 0;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, false);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(gs_trace_dropped(t), 5);
	assert_int_equal(gs_trace_processes(t, &n)->dropped_records, 5);
	assert_true(has_warning(t, "activity buffer pool exhausted", &count));
	assert_int_equal(count, 5);
	gs_trace_warnings(t, &n);
	assert_int_equal(n, 1);
	gs_trace_destroy(t);
}

/* The program's own work and output, whatever happens to the collector. */
static void sc_program_only(void)
{
	int (*init)(void) = child_init;

	EMIT(rec_kernel(1, 7, 1, 100, 200, "k")); /* not collected */
	init();
	init();
	printf("result=%d\n", 6 * 7);
	fflush(stdout);
}

static void expect_disabled_once(const struct run *r, const char *why)
{
	expect_exit(r, 0);
	assert_string_equal(r->out, "result=42\n");
	assert_int_equal(count_lines(r->err), 1);
	assert_true(!strncmp(r->err, "gpuscope: collector disabled: ", 30));
	if (!strstr(r->err, why)) {
		print_error("stderr: %s\n", r->err);
		fail();
	}
}

static void test_subscribe_fails(void **state)
{
	struct run r = {.name = "subfail",
			.fn = sc_program_only,
			.opts = {.subscribe_result =
					 CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED}};

	(void)state;
	run_scenario(&r);
	expect_disabled_once(&r, "another CUPTI client is already subscribed");
	assert_int_equal(count_traces(tmpdir, "subfail-"), 0);
}

/* A driver CUPTI cannot use (CUPTI_ERROR_UNKNOWN, as on a machine whose
 * GPU is not visible): said in plain words, the error kept. */
static void test_cupti_cannot_use_driver(void **state)
{
	struct run r = {.name = "cuptiunknown",
			.fn = sc_program_only,
			.opts = {.fail_all = CUPTI_ERROR_UNKNOWN}};

	(void)state;
	run_scenario(&r);
	expect_disabled_once(&r, "collector disabled: CUDA driver present but CUPTI cannot use it "
				 "(CUPTI_ERROR_UNKNOWN, error 999, from cuptiSubscribe)");
	assert_int_equal(count_traces(tmpdir, "cuptiunknown-"), 0);
}

/* A driver library name found nowhere (config.h): no driver, whatever the
 * machine has. */
#define NO_DRIVER_NAME "libgpuscope-test-no-driver.so.1"
#define NO_DRIVER_LINE "gpuscope: collector disabled: no CUDA driver (libcuda.so.1 not found)\n"

static int count_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Threads before the collector is loaded (a sanitizer may run one). */
static int threads_before;

static void note_threads(void)
{
	threads_before = count_threads();
}

/* No driver: no CUPTI call at all, no thread, and the program as usual. */
static void sc_no_driver(void)
{
	struct gsd_stats st;

	child_init();
	st = gsd_get_stats();
	if (st.subscribes || st.flushes || st.buffers_requested)
		_exit(70);
	if (threads_before < 1 || count_threads() != threads_before)
		_exit(71);
	printf("result=%d\n", 6 * 7);
	fflush(stdout);
}

static void write_empty(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	close(fd);
}

/* What record reads from the status file of a process without a driver. */
static void expect_no_driver_status(const char *path, pid_t pid)
{
	char text[1024], want[1024];

	read_text(path, text, sizeof(text));
	snprintf(want, sizeof(want),
		 "loaded %ld\ndisabled %ld no CUDA driver (libcuda.so.1 not found)\n", (long)pid,
		 (long)pid);
	assert_string_equal(text, want);
}

static void test_no_driver(void **state)
{
	char status[PATH_MAX];
	struct run r = {.name = "nodriver",
			.fn = sc_no_driver,
			.before_load = note_threads,
			.env = {{"GPUSCOPE_TEST_DRIVER_NAME", NO_DRIVER_NAME},
				{"GPUSCOPE_STATUS_FILE", status}}};

	(void)state;
	snprintf(status, sizeof(status), "%s/nodriver.status", tmpdir);
	write_empty(status);
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.out, "result=42\n");
	/* This test is linked with the driver double: the process shows CUDA. */
	assert_string_equal(r.err, NO_DRIVER_LINE);
	assert_int_equal(count_traces(tmpdir, "nodriver-"), 0);
	expect_no_driver_status(status, r.pid);
}

/* At GPUSCOPE_LOG=quiet nothing is printed, but record still learns why. */
static void test_no_driver_quiet(void **state)
{
	char status[PATH_MAX];
	struct run r = {.name = "nodriverq",
			.fn = sc_no_driver,
			.before_load = note_threads,
			.env = {{"GPUSCOPE_TEST_DRIVER_NAME", NO_DRIVER_NAME},
				{"GPUSCOPE_STATUS_FILE", status},
				{"GPUSCOPE_LOG", "quiet"}}};

	(void)state;
	snprintf(status, sizeof(status), "%s/nodriverq.status", tmpdir);
	write_empty(status);
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	expect_no_driver_status(status, r.pid);
}

/* A run that records: "loaded", then "wrote" with the file's path. */
static void sc_one_kernel(void)
{
	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	EMIT(rec_kernel(1, 7, 1, 120, 200, "k"));
}

static void test_status_file(void **state)
{
	char status[PATH_MAX], text[PATH_MAX * 2], want[PATH_MAX * 2];
	struct run r = {.name = "status",
			.fn = sc_one_kernel,
			.env = {{"GPUSCOPE_STATUS_FILE", status}}};

	(void)state;
	snprintf(status, sizeof(status), "%s/status.status", tmpdir);
	write_empty(status);
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	read_text(status, text, sizeof(text));
	snprintf(want, sizeof(want), "loaded %ld\nwrote %ld %s\n", (long)r.pid, (long)r.pid,
		 r.trace);
	assert_string_equal(text, want);
}

/* The status file is record's: never created, never through a link. */
static void test_status_file_never_created(void **state)
{
	char status[PATH_MAX], link_path[PATH_MAX], target[PATH_MAX];
	struct stat sb;
	struct run r = {.name = "nostatus",
			.fn = sc_no_driver,
			.before_load = note_threads,
			.env = {{"GPUSCOPE_TEST_DRIVER_NAME", NO_DRIVER_NAME},
				{"GPUSCOPE_STATUS_FILE", status}}};
	struct run l = {.name = "linkstatus",
			.fn = sc_no_driver,
			.before_load = note_threads,
			.env = {{"GPUSCOPE_TEST_DRIVER_NAME", NO_DRIVER_NAME},
				{"GPUSCOPE_STATUS_FILE", link_path}}};

	(void)state;
	snprintf(status, sizeof(status), "%s/missing.status", tmpdir);
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, NO_DRIVER_LINE);
	assert_int_not_equal(lstat(status, &sb), 0);
	snprintf(target, sizeof(target), "%s/target.status", tmpdir);
	snprintf(link_path, sizeof(link_path), "%s/link.status", tmpdir);
	write_empty(target);
	unlink(link_path);
	assert_int_equal(symlink(target, link_path), 0);
	run_scenario(&l);
	expect_exit(&l, 0);
	assert_int_equal(stat(target, &sb), 0);
	assert_int_equal(sb.st_size, 0);
	unlink(link_path);
}

/* A program that initialises CUDA but records nothing writes no file. */
static void sc_nothing(void)
{
}

static void test_no_records_no_file(void **state)
{
	struct run r = {.name = "nothing", .fn = sc_nothing};

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(count_traces(tmpdir, "nothing-"), 0);
}

/* fork without exec: the child must not call CUPTI (the double aborts if it
 * flushes) and writes no file; the parent's file is whole. The fork comes
 * right after the collector's activation (the first record): the child must
 * not hang at exit (it once did under AddressSanitizer, on the allocator
 * lock of a collector thread still starting; a hang now fails in 30 s). */
static void sc_fork(void)
{
	char path[PATH_MAX + 64];
	int status;
	pid_t pid;
	FILE *f;

	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	EMIT(rec_kernel(1, 7, 1, 120, 200, "before_fork"));
	pid = fork();
	if (pid < 0)
		_exit(60);
	if (pid == 0) {
		EMIT(rec_kernel(1, 7, 2, 300, 400, "in_child")); /* refused: no buffer */
		child_init();
		exit(0); /* runs the inherited atexit handler */
	}
	if (wait_child(pid, &status, 30) == 0) {
		fprintf(stderr, "fork child %ld still running after 30 s (hung): killed\n",
			(long)pid);
		kill(pid, SIGKILL);
		_exit(63);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		_exit(61);
	snprintf(path, sizeof(path), "%s/fork.child", tmpdir);
	f = fopen(path, "w");
	if (!f)
		_exit(62);
	fprintf(f, "%ld\n", (long)pid);
	fclose(f);
	EMIT(rec_api(RT, KCBID_LAUNCH, 3, 5, 500, 510));
	EMIT(rec_kernel(1, 7, 3, 520, 600, "after_fork"));
}

static void test_fork_child(void **state)
{
	struct run r = {.name = "fork", .fn = sc_fork};
	struct gs_trace *t;
	const struct gs_op *op;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(count_traces(tmpdir, "fork-"), 1);
	t = load_trace(r.trace, true);
	op = gs_trace_ops(t, &n);
	assert_int_equal(n, 2);
	assert_string_equal(s(t, op[0].name), "before_fork");
	assert_string_equal(s(t, op[1].name), "after_fork");
	gs_trace_destroy(t);
}

/* SIGTERM with the default action: flushed and closed, then the signal kills. */
static void sc_sigterm(void)
{
	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	EMIT(rec_kernel(1, 7, 1, 120, 200, "before_signal"));
	raise(SIGTERM);
	_exit(70); /* not reached */
}

static void test_sigterm(void **state)
{
	struct run r = {.name = "sigterm", .fn = sc_sigterm};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGTERM);
	t = load_trace(r.trace, true); /* whole: end chunk written */
	gs_trace_ops(t, &n);
	assert_int_equal(n, 1);
	gs_trace_api_calls(t, &n);
	assert_int_equal(n, 1);
	gs_trace_destroy(t);
}

/* The program's own SIGTERM handler runs (after a flush), and wins. */
static void program_handler(int sig)
{
	static const char msg[] = "handled\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(72);
	_exit(7);
}

static void install_program_handler(void)
{
	signal(SIGTERM, program_handler);
}

static void test_sigterm_program_handler(void **state)
{
	struct run r = {.name = "sigterm_own",
			.fn = sc_sigterm,
			.before_load = install_program_handler};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 7);
	assert_string_equal(r.out, "handled\n");
	/* The handler _exit()s: no end chunk, but the flushed records are there. */
	t = load_trace(r.trace, false);
	assert_true(has_warning(t, "cut short", NULL));
	gs_trace_ops(t, &n);
	assert_int_equal(n, 1);
	gs_trace_destroy(t);
}

/* exit() from a worker thread while the main thread waits. */
static void *exiting_worker(void *arg)
{
	(void)arg;
	EMIT(rec_api(RT, KCBID_LAUNCH, 2, 6, 300, 310));
	EMIT(rec_kernel(1, 7, 2, 320, 400, "from_worker"));
	exit(0);
}

static void sc_exit_thread(void)
{
	pthread_t th;

	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	EMIT(rec_kernel(1, 7, 1, 120, 200, "from_main"));
	if (pthread_create(&th, NULL, exiting_worker, NULL))
		_exit(80);
	pthread_join(th, NULL);
	for (;;)
		pause();
}

static void test_exit_from_thread(void **state)
{
	struct run r = {.name = "exitthread", .fn = sc_exit_thread};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 2);
	assert_string_equal(s(t, find_op(t, 2, GS_OP_KERNEL)->name), "from_worker");
	gs_trace_threads(t, &n);
	assert_int_equal(n, 2);
	gs_trace_destroy(t);
}

/* The output path exists, or is a symbolic link: never written through. */
static void sc_some_records(void)
{
	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	EMIT(rec_kernel(1, 7, 1, 120, 200, "k"));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_output_exists(void **state)
{
	char path[PATH_MAX + 32], text[64];
	struct run r = {.name = "exists", .fn = sc_some_records, .no_default_output = true};

	(void)state;
	snprintf(path, sizeof(path), "%s/exists.gscope", tmpdir);
	write_text(path, "precious\n");
	r.env[0][0] = "GPUSCOPE_OUTPUT";
	r.env[0][1] = path;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.out, "");
	assert_int_equal(count_lines(r.err), 1);
	assert_non_null(strstr(r.err, "gpuscope: collector disabled: "));
	assert_non_null(strstr(r.err, "already exists: not overwritten"));
	read_text(path, text, sizeof(text));
	assert_string_equal(text, "precious\n");
}

static void test_output_symlink(void **state)
{
	char link[PATH_MAX + 32], target[PATH_MAX + 32], text[64];
	struct run r = {.name = "symlink", .fn = sc_some_records, .no_default_output = true};
	struct stat st;

	(void)state;
	snprintf(link, sizeof(link), "%s/link.gscope", tmpdir);
	snprintf(target, sizeof(target), "%s/target.txt", tmpdir);
	write_text(target, "target\n");
	unlink(link);
	assert_int_equal(symlink(target, link), 0);
	r.env[0][0] = "GPUSCOPE_OUTPUT";
	r.env[0][1] = link;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_int_equal(count_lines(r.err), 1);
	assert_non_null(strstr(r.err, "is a symbolic link: not followed"));
	read_text(target, text, sizeof(text));
	assert_string_equal(text, "target\n");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* A dangling link is not followed either (O_NOFOLLOW, not a stat race). */
	unlink(target);
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_non_null(strstr(r.err, "is a symbolic link: not followed"));
	assert_int_equal(access(target, F_OK), -1);
}

/* The name with this pid is taken (an exec'd program keeps its pid). */
static void take_pid_name(void)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pidtaken-%ld.gscope", tmpdir, (long)getpid());
	f = fopen(path, "w");
	if (!f)
		_exit(63);
	fputs("earlier program\n", f);
	fclose(f);
}

static void test_output_pid_name_taken(void **state)
{
	struct run r = {.name = "pidtaken", .fn = sc_some_records, .before_load = take_pid_name};
	char alt[PATH_MAX + 64], text[64];
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	read_text(r.trace, text, sizeof(text));
	assert_string_equal(text, "earlier program\n");
	snprintf(alt, sizeof(alt), "%s/pidtaken-%ld.1.gscope", tmpdir, (long)r.pid);
	t = load_trace(alt, true);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 1);
	gs_trace_destroy(t);
}

/* GPUSCOPE_DATA_DEPS: copy and kernel pointers linked to MEMORY2 allocations. */
#define A_BASE 0x700000000000ull
#define B_BASE (A_BASE + (8ull << 20))
static const int kernel_handle_k = 1, kernel_handle_f = 2;

/* A module whose cubin describes kernel "k" (the name CUPTI gives its launches). */
static void load_module_k(void)
{
	static const unsigned k_sizes[] = {8, 8, 4};
	static const struct test_kernel ks[] = {{"_Z1kPfS_i", 3, k_sizes}};
	static uint8_t cubin[4096];
	size_t size = test_cubin(cubin, sizeof(cubin), ks, 1);

	if (!size)
		_exit(39);
	gsd_module(CUPTI_CBID_RESOURCE_MODULE_LOADED, 1, cubin, size);
}

static unsigned resolved_calls;
static bool f_resolved(void)
{
	return gsd_cuda_param_info_calls() >= resolved_calls;
}

/*
 * Kernel "k"'s layout comes from its module's cubin (found by the launch's
 * symbol name); kernel "f" is in no module seen: its first launch is not
 * read and its handle goes to the writer thread, which asks the driver;
 * its next launch is read. No parameter query is ever made from inside a
 * callback.
 */
static void sc_data_deps(void)
{
	static const size_t fsizes[] = {16};
	char host[64];
	uint64_t a0 = A_BASE + 128, a1 = B_BASE;
	int a2 = 5;
	void *args[3] = {&a0, &a1, &a2};
	struct {
		uint64_t ptr, junk;
	} fparam = {A_BASE + 4096, 0};
	void *fargs[1] = {&fparam};
	cudaMemcpyAsync_v3020_params cp;
	cudaLaunchKernel_v7000_params kp;
	cudaMemsetAsync_v3020_params mp;
	cuLaunchKernel_params dp;

	if (!gsd_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API,
				  CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000) ||
	    !gsd_callback_enabled(CUPTI_CB_DOMAIN_DRIVER_API,
				  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) ||
	    !gsd_callback_enabled(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED))
		_exit(40);
	gsd_cuda_set_params(&kernel_handle_f, 1, fsizes);
	load_module_k();
	gsd_set_time(2000);
	memset(&cp, 0, sizeof(cp));
	cp.dst = (void *)(uintptr_t)(A_BASE + 64);
	cp.src = host;
	cp.count = 64;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, KCBID_MEMCPY_ASYNC, CUPTI_API_ENTER, 40, &cp);
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, KCBID_MEMCPY_ASYNC, CUPTI_API_EXIT, 40, &cp);
	memset(&kp, 0, sizeof(kp));
	kp.func = &kernel_handle_k;
	kp.args = args;
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 41, &kp, "_Z1kPfS_i");
	memset(&mp, 0, sizeof(mp));
	mp.devPtr = (void *)(uintptr_t)(B_BASE + 16);
	mp.count = 16;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
		CUPTI_API_ENTER, 42, &mp);
	memset(&dp, 0, sizeof(dp));
	dp.f = (CUfunction)(uintptr_t)&kernel_handle_f;
	dp.kernelParams = fargs;
	gsd_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_ENTER,
		43, &dp);
	/* The same kernel again: its layout is known by name. */
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 44, &kp, "_Z1kPfS_i");
	if (gsd_cuda_param_info_calls() != 0) /* "k" from the cubin; "f" not yet asked */
		_exit(41);
	/* The writer thread wakes for a buffer and asks for f's layout: one
	 * parameter, then "no more". */
	EMIT(rec_context(1, 0, 7));
	resolved_calls = 2;
	gsd_complete_thread_buffer();
	if (!wait_until(f_resolved))
		_exit(42);
	gsd_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_ENTER,
		45, &dp);
	if (gsd_cuda_param_info_calls_in_callback() != 0 || gsd_cuda_param_info_calls() != 2)
		_exit(43);
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, A_BASE, 1 << 20, 1000));
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, B_BASE, 2 << 20, 1100));
	EMIT(rec_memcpy(1, 7, 40, 2100, 2200, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, PAGEABLE, DEVICE,
			true, 64));
	EMIT(rec_kernel(1, 7, 41, 2300, 2400, "k"));
	EMIT(rec_memset(1, 7, 42, 2500, 2600, true, 16));
	EMIT(rec_kernel(1, 7, 43, 2700, 2800, "f"));
	EMIT(rec_kernel(1, 7, 44, 2900, 3000, "k"));
	EMIT(rec_kernel(1, 7, 45, 3100, 3200, "f"));
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, A_BASE, 1 << 20, 5000));
}

static bool has_link(const struct gs_trace *t, uint64_t corr, uint64_t address, uint8_t kind)
{
	size_t n, na;
	const struct gs_op_alloc *l = gs_trace_op_allocs(t, &n);
	const struct gs_allocation *a = gs_trace_allocations(t, &na);

	for (size_t i = 0; i < n; i++)
		if (l[i].correlation == corr && l[i].op_kind == kind && l[i].allocation < na &&
		    a[l[i].allocation].address == address)
			return true;
	return false;
}

static const struct gs_op_alloc *find_link(const struct gs_trace *t, uint64_t corr,
					   uint64_t address)
{
	size_t n, na;
	const struct gs_op_alloc *l = gs_trace_op_allocs(t, &n);
	const struct gs_allocation *a = gs_trace_allocations(t, &na);

	static const struct gs_op_alloc none;

	for (size_t i = 0; i < n; i++)
		if (l[i].correlation == corr && l[i].allocation < na &&
		    a[l[i].allocation].address == address)
			return &l[i];
	fail_msg("no link of op %llu to the allocation at 0x%llx", (unsigned long long)corr,
		 (unsigned long long)address);
	return &none;
}

static void test_data_deps(void **state)
{
	struct run r = {.name = "datadeps",
			.fn = sc_data_deps,
			.env = {{"GPUSCOPE_DATA_DEPS", "1"}}};
	const struct gs_op_alloc *l;
	struct gs_trace *t;
	const struct gs_allocation *a;
	uint64_t misses = 0;
	size_t n, nw;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, false);
	/* f's first launch, and only it, had no layout yet. */
	gs_trace_warnings(t, &nw);
	assert_int_equal(nw, 1);
	assert_true(has_warning(t, "before their kernel's parameter layout was known", &misses));
	assert_int_equal(misses, 1);
	a = gs_trace_allocations(t, &n);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		if (a[i].address == A_BASE) {
			assert_int_equal(a[i].bytes, 1 << 20);
			assert_int_equal(a[i].alloc_ns, 1000);
			assert_int_equal(a[i].free_ns, 5000);
		} else {
			assert_int_equal(a[i].address, B_BASE);
			assert_int_equal(a[i].bytes, 2 << 20);
			assert_int_equal(a[i].free_ns, 0); /* still live at exit */
		}
		assert_int_equal(a[i].mem_kind, GS_MEM_DEVICE);
	}
	gs_trace_op_allocs(t, &n);
	assert_int_equal(n, 7);
	assert_true(has_link(t, 40, A_BASE, GS_OP_MEMCPY));
	assert_true(has_link(t, 41, A_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 41, B_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 42, B_BASE, GS_OP_MEMSET));
	assert_false(has_link(t, 43, A_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 44, A_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 44, B_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 45, A_BASE, GS_OP_KERNEL));
	/* Where each pointer fell, and what copies and memsets say of their size. */
	l = find_link(t, 40, A_BASE);
	assert_int_equal(l->offset, 64);
	assert_int_equal(l->bytes, 64);
	l = find_link(t, 42, B_BASE);
	assert_int_equal(l->offset, 16);
	assert_int_equal(l->bytes, 16);
	assert_true(l->flags & GS_LINK_HAS_OFFSET);
	l = find_link(t, 45, A_BASE);
	assert_int_equal(l->offset, 4096);
	assert_int_equal(l->bytes, 0); /* a kernel: unknown */
	/* A is touched at 64, 128 and 4096: shared by several buffers. */
	assert_true(l->flags & GS_LINK_SEGMENT);
	gs_trace_destroy(t);
}

/*
 * A caching allocator's segment: one 8 MiB allocation (PyTorch's
 * cudaMalloc of a segment) holds the tensors. A memset clears [0, 4 KiB)
 * and a copy fills [1 MiB, 1 MiB + 4 KiB); kernel "k" reads the first
 * tensor (pointer at 0), then two kernels touch disjoint parts (pointers
 * at 2 MiB and 4 MiB, sizes unknown). The links say where each pointer
 * fell, the allocation is marked a segment, and the analyzer joins only
 * what the ranges prove: memset -> k0 (same offset) is a data edge; the
 * copy is proven apart from the memset (it starts past the memset's
 * 4 KiB) and from k2 and k4 (they start past its end); k0 (size unknown)
 * may reach the copy and k2, k2 may reach k4: segment edges (possible),
 * not graph edges. Before, every op here was chained to the one before.
 */
#define SEG_BASE 0x7a0000000000ull

static void sc_segment(void)
{
	static const unsigned k_sizes[] = {8, 8, 4};
	static const struct test_kernel ks[] = {{"_Z1kPfS_i", 3, k_sizes}};
	static uint8_t cubin[4096];
	size_t size = test_cubin(cubin, sizeof(cubin), ks, 1);
	char host[64];
	uint64_t p0 = SEG_BASE, p2 = SEG_BASE + (2u << 20), p4 = SEG_BASE + (4u << 20), none = 0;
	int n = 4;
	void *a0[3] = {&p0, &none, &n}, *a2[3] = {&p2, &none, &n}, *a4[3] = {&p4, &none, &n};
	cudaLaunchKernel_v7000_params kp;
	cudaMemsetAsync_v3020_params mp;
	cudaMemcpyAsync_v3020_params cp;

	if (!size)
		_exit(39);
	gsd_module(CUPTI_CBID_RESOURCE_MODULE_LOADED, 1, cubin, size);
	gsd_set_time(2000);
	memset(&mp, 0, sizeof(mp));
	mp.devPtr = (void *)(uintptr_t)SEG_BASE;
	mp.count = 4096;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
		CUPTI_API_ENTER, 70, &mp);
	memset(&cp, 0, sizeof(cp));
	cp.dst = (void *)(uintptr_t)(SEG_BASE + (1u << 20));
	cp.src = host;
	cp.count = 4096;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, KCBID_MEMCPY_ASYNC, CUPTI_API_ENTER, 71, &cp);
	memset(&kp, 0, sizeof(kp));
	kp.func = &kernel_handle_k;
	kp.args = a0;
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 72, &kp, "_Z1kPfS_i");
	kp.args = a2;
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 73, &kp, "_Z1kPfS_i");
	kp.args = a4;
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 74, &kp, "_Z1kPfS_i");
	if (gsd_cuda_param_info_calls() != 0)
		_exit(41);
	EMIT(rec_context(1, 0, 7));
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, SEG_BASE, 8u << 20, 1000));
	EMIT(rec_memset(1, 7, 70, 2100, 2200, true, 4096));
	EMIT(rec_memcpy(1, 7, 71, 2300, 2400, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, PAGEABLE, DEVICE,
			true, 4096));
	EMIT(rec_kernel(1, 7, 72, 2500, 2600, "k0"));
	EMIT(rec_kernel(1, 7, 73, 2700, 2800, "k2"));
	EMIT(rec_kernel(1, 7, 74, 2900, 3000, "k4"));
}

static uint32_t op_by_corr(const struct gs_trace *t, uint64_t corr)
{
	size_t n;
	const struct gs_op *op = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		if (op[i].correlation == corr)
			return (uint32_t)i;
	fail_msg("no op with correlation %llu", (unsigned long long)corr);
	return 0;
}

static bool graph_has(const struct gs_graph *g, uint32_t from, uint32_t to, unsigned kind)
{
	for (size_t i = g->in_first[to]; i < g->in_first[to + 1]; i++)
		if (g->edges[i].from == from && g->edges[i].kind == kind)
			return true;
	return false;
}

/* What write(f, r, NULL) writes, NUL-terminated; the caller frees it. */
static char *report_text(gs_status (*write)(FILE *, const struct gs_report *,
					    const struct gs_report_style *),
			 const struct gs_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(write(f, r, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_data_deps_segment(void **state)
{
	struct run r = {.name = "datadeps_segment",
			.fn = sc_segment,
			.env = {{"GPUSCOPE_DATA_DEPS", "1"}}};
	const struct gs_op_alloc *l;
	struct gs_graph *g = NULL;
	struct gs_trace *t;
	uint32_t ms, cp, k0, k2, k4;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, true);
	l = gs_trace_op_allocs(t, &n);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(l[i].flags, GS_LINK_HAS_OFFSET | GS_LINK_SEGMENT);
	assert_int_equal(find_link(t, 71, SEG_BASE)->offset, 1u << 20);
	assert_int_equal(find_link(t, 71, SEG_BASE)->bytes, 4096);
	assert_int_equal(find_link(t, 73, SEG_BASE)->offset, 2u << 20);
	assert_int_equal(find_link(t, 73, SEG_BASE)->bytes, 0);
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	ms = op_by_corr(t, 70);
	cp = op_by_corr(t, 71);
	k0 = op_by_corr(t, 72);
	k2 = op_by_corr(t, 73);
	k4 = op_by_corr(t, 74);
	assert_true(g->has_data_edges);
	assert_int_equal(g->edge_count[GS_EDGE_DATA], 1);
	assert_true(graph_has(g, ms, k0, GS_EDGE_DATA));
	assert_false(graph_has(g, cp, k0, GS_EDGE_DATA));
	assert_false(graph_has(g, k0, k2, GS_EDGE_DATA));
	assert_false(graph_has(g, k2, k4, GS_EDGE_DATA));
	/* Possible only, in time order of their later op. */
	assert_int_equal(g->n_segment_edges, 3);
	assert_int_equal(g->segment_edges[0].from, cp);
	assert_int_equal(g->segment_edges[0].to, k0);
	assert_int_equal(g->segment_edges[1].from, k0);
	assert_int_equal(g->segment_edges[1].to, k2);
	assert_int_equal(g->segment_edges[2].from, k2);
	assert_int_equal(g->segment_edges[2].to, k4);
	assert_int_equal(g->segment_edges[2].allocation, find_link(t, 74, SEG_BASE)->allocation);
	gs_graph_destroy(g);
	/* The analyze report counts them as possible, apart from the edges. */
	{
		struct gs_report_options o = {.format = "gscope"};
		struct gs_report *rep = NULL;
		char *out;

		assert_int_equal(gs_report_build(t, &o, &rep), GS_OK);
		out = report_text(gs_report_write_json, rep);
		assert_non_null(strstr(out, "\"segment_edges\": 3,"));
		assert_non_null(strstr(out, "\"segment_edges_evidence\": \"possible\""));
		free(out);
		out = report_text(gs_report_write_text, rep);
		assert_non_null(strstr(out, "3 possible data dependencies on shared allocations"));
		free(out);
		gs_report_destroy(rep);
	}
	gs_trace_destroy(t);
}

/*
 * --data-deps: the API forms added (memset 2D/3D and their _ptds/_ptsz,
 * the driver's D16 and _ptds/_ptsz memsets, 3D copies, batch copies, symbol
 * copies) each give a link; then a burst of observations, some of which may
 * find the writer's batch full: every one is either linked or counted in
 * the trace's warning (none vanishes unaccounted).
 */
#define DD_BURST 60000

static void sc_data_deps_forms(void)
{
	static char host[64];
	uint64_t a = A_BASE;
	cudaMemset2DAsync_v3020_params m2;
	cudaMemset3D_v3020_params m3;
	cuMemsetD16Async_params d16;
	struct cudaMemcpy3DParms c3p;
	cudaMemcpy3D_v3020_params c3;
	void *dsts[2] = {(void *)(uintptr_t)(A_BASE + 512), host};
	const void *srcs[2] = {host, host};
	size_t sizes[2] = {8, 8};
	cudaMemcpyBatchAsync_v13000_params b;
	cudaMemcpyFromSymbol_v3020_params fs;
	cudaMemset_ptds_v7000_params ms;

	EMIT(rec_context(1, 0, 7));
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, A_BASE, 1 << 20, 1000));
	gsd_complete_thread_buffer();
	gsd_set_time(2000);
	memset(&m2, 0, sizeof(m2));
	m2.devPtr = (void *)(uintptr_t)(a + 64);
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000,
		CUPTI_API_ENTER, 60, &m2);
	memset(&m3, 0, sizeof(m3));
	m3.pitchedDevPtr.ptr = (void *)(uintptr_t)(a + 128);
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemset3D_ptds_v7000,
		CUPTI_API_ENTER, 61, &m3);
	memset(&d16, 0, sizeof(d16));
	d16.dstDevice = a + 192;
	gsd_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz,
		CUPTI_API_ENTER, 62, &d16);
	memset(&c3p, 0, sizeof(c3p));
	c3p.dstPtr.ptr = (void *)(uintptr_t)(a + 256);
	c3p.srcPtr.ptr = host;
	c3.p = &c3p;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000,
		CUPTI_API_ENTER, 63, &c3);
	memset(&b, 0, sizeof(b));
	b.dsts = dsts;
	b.srcs = srcs;
	b.sizes = sizes;
	b.count = 2;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000,
		CUPTI_API_ENTER, 64, &b);
	memset(&fs, 0, sizeof(fs));
	fs.dst = (void *)(uintptr_t)(a + 768);
	fs.symbol = host;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020,
		CUPTI_API_ENTER, 65, &fs);
	for (uint32_t i = 0; i < DD_BURST; i++) {
		memset(&ms, 0, sizeof(ms));
		ms.devPtr = (void *)(uintptr_t)(a + 1024 + (i % 1000) * 8);
		gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
			CUPTI_API_ENTER, 1000 + i, &ms);
	}
}

static void test_data_deps_forms_and_drops(void **state)
{
	struct run r = {.name = "datadeps_forms",
			.fn = sc_data_deps_forms,
			.env = {{"GPUSCOPE_DATA_DEPS", "1"}}};
	uint64_t dropped = 0;
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, false);
	assert_true(has_link(t, 60, A_BASE, GS_OP_MEMSET));
	assert_true(has_link(t, 61, A_BASE, GS_OP_MEMSET));
	assert_true(has_link(t, 62, A_BASE, GS_OP_MEMSET));
	assert_true(has_link(t, 63, A_BASE, GS_OP_MEMCPY));
	assert_true(has_link(t, 64, A_BASE, GS_OP_MEMCPY));
	assert_true(has_link(t, 65, A_BASE, GS_OP_MEMCPY));
	gs_trace_op_allocs(t, &n);
	has_warning(t, "observations dropped", &dropped);
	printf("data deps: %zu links, %llu observations dropped of %d\n", n - 6,
	       (unsigned long long)dropped, DD_BURST);
	assert_int_equal(n - 6 + dropped, DD_BURST);
	gs_trace_destroy(t);
}

/* The periodic flush puts records on disk; SIGKILL loses only what came after. */
static void sc_periodic_then_kill(void)
{
	char path[PATH_MAX + 64];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s-%ld.gscope", tmpdir, scenario_name, (long)getpid());
	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	EMIT(rec_kernel(1, 7, 1, 120, 200, "flushed"));
	for (int i = 0; i < 1000; i++) { /* up to 10 s */
		struct timespec ts = {0, 10000000};

		if (stat(path, &st) == 0 && st.st_size > 20 + 28)
			break;
		nanosleep(&ts, NULL);
	}
	kill(getpid(), SIGKILL);
}

static void test_periodic_flush_survives_sigkill(void **state)
{
	struct run r = {.name = "sigkill",
			.fn = sc_periodic_then_kill,
			.env = {{"GPUSCOPE_FLUSH_MS", "20"}}};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGKILL);
	t = load_trace(r.trace, false);
	assert_true(has_warning(t, "cut short", NULL));
	gs_trace_ops(t, &n);
	assert_int_equal(n, 1);
	gs_trace_overheads(t, &n);
	assert_true(n >= 1); /* the flush itself is an overhead interval */
	gs_trace_destroy(t);
}

/* cudaDeviceReset and context destruction flush (not forced: a forced flush
 * would take kernels still running, incomplete) before the context goes. */
static void sc_device_reset(void)
{
	struct gsd_stats before, after;

	EMIT(rec_kernel(1, 7, 1, 120, 200, "k1"));
	before = gsd_get_stats();
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020,
		CUPTI_API_ENTER, 2, NULL);
	after = gsd_get_stats();
	/* This thread's buffer, and maybe the writer thread's own (its
	 * version queries are recorded too). */
	if (after.flushes != before.flushes + 1 || after.forced_flushes != before.forced_flushes ||
	    after.buffers_completed < before.buffers_completed + 1)
		_exit(44);
	before = after;
	EMIT(rec_kernel(1, 7, 3, 300, 400, "k2"));
	gsd_resource(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
	after = gsd_get_stats();
	if (after.flushes != before.flushes + 1 || after.forced_flushes != before.forced_flushes ||
	    after.buffers_completed < before.buffers_completed + 1)
		_exit(45);
}

static void test_device_reset_flushes(void **state)
{
	struct run r = {.name = "reset", .fn = sc_device_reset};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 2);
	gs_trace_destroy(t);
}

/* With CUDA_INJECTION64_PATH the constructor leaves setup to InitializeInjection. */
static void test_injection_path(void **state)
{
	struct run r = {.name = "inject",
			.fn = sc_some_records,
			.check_deferred = true,
			.env = {{"CUDA_INJECTION64_PATH", GS_COLLECTOR_DOUBLE}}};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 1);
	gs_trace_destroy(t);
}

/* CUDA was initialised before the collector attached (a late attach): the
 * device, its context and a stream exist already. */
static void cuda_exists_early(void)
{
	CUpti_ActivityDevice5 d = rec_device(0, "Early H200");
	CUpti_ActivityContext3 c = rec_context(1, 0, 7);
	CUpti_ActivityStream st =
		rec_stream(1, 13, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, 0);

	gsd_cuda_exists(&d);
	gsd_cuda_exists(&c);
	gsd_cuda_exists(&st);
}

static void sc_late_attach(void)
{
	if (gsd_get_stats().enable_and_dump < 3)
		_exit(35);
	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	EMIT(rec_kernel(1, 13, 1, 120, 200, "after_attach"));
}

static void test_late_attach_devices(void **state)
{
	struct run r = {.name = "lateattach",
			.fn = sc_late_attach,
			.before_load = cuda_exists_early};
	const struct gs_device *d;
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, true);
	d = gs_trace_devices(t, &n);
	assert_int_equal(n, 1);
	assert_string_equal(s(t, d->name), "Early H200");
	assert_int_equal(d->sm_count, 132);
	assert_int_equal(d->copy_engines, 7);
	assert_int_equal(find_stream(t, 13)->kind, GS_STREAM_NON_BLOCKING);
	gs_trace_destroy(t);
}

/* A kernel still running when cudaDeviceReset is entered: the flush there
 * must not take it incomplete (a forced flush would: end == 0, dropped). */
static void sc_reset_in_flight(void)
{
	CUpti_ActivityKernel10 k = rec_kernel(1, 7, 1, 120, 900, "in_flight");
	struct gsd_stats before;
	int ticket;

	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	ticket = gsd_emit_incomplete(&k);
	if (ticket < 0)
		_exit(46);
	before = gsd_get_stats();
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020,
		CUPTI_API_ENTER, 2, NULL);
	if (gsd_get_stats().flushes != before.flushes + 1)
		_exit(47);
	gsd_complete_record(ticket); /* the device finishes it */
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, 2, 5, 150, 1000));
}

static void test_reset_with_kernel_in_flight(void **state)
{
	struct run r = {.name = "resetinflight", .fn = sc_reset_in_flight};
	const struct gs_op *op;
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	op = gs_trace_ops(t, &n);
	assert_int_equal(n, 1);
	assert_string_equal(s(t, op->name), "in_flight");
	assert_int_equal(op->end_ns, 900);
	assert_int_equal(gs_trace_dropped(t), 0);
	gs_trace_destroy(t);
}

/* A CUDA 13 <<<>>> launch: the stub pushes and pops the launch
 * configuration and looks the kernel up before __cudaLaunchKernel. */
static void sc_triple_chevron(void)
{
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t c = 10 * i;

		EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID___cudaPushCallConfiguration_v13000, c + 1,
			     0, 100 + c, 101 + c));
		EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID___cudaPopCallConfiguration_v13000, c + 2,
			     0, 102 + c, 103 + c));
		EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID___cudaGetKernel_v13000, c + 3, 0, 104 + c,
			     105 + c));
		EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, c + 4, 0,
			     106 + c, 108 + c));
		EMIT(rec_kernel(1, 7, c + 4, 200 + c, 205 + c, "chevron"));
	}
}

static void test_triple_chevron_quiet(void **state)
{
	struct run r = {.name = "chevron", .fn = sc_triple_chevron};
	const struct gs_api_call *a;
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, true);
	a = gs_trace_api_calls(t, &n);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(s(t, a[i].name), "__cudaLaunchKernel");
		assert_int_equal(a[i].tid, r.pid); /* the main thread: tid == pid */
	}
	gs_trace_ops(t, &n);
	assert_int_equal(n, 3);
	gs_trace_destroy(t);
}

/* --data-deps with the runtime's launch calls (-D__NV_LEGACY_LAUNCH, and
 * cudaLaunchKernelEx): the handle is the host stub, its layout comes from
 * the program's cudaFuncGetParamInfo. */
static const int host_stub = 3;

static void dd_launch(CUpti_CallbackId cbid)
{
	static const size_t sizes[] = {8, 4};
	uint64_t a0 = A_BASE + 256;
	int a1 = 7;
	void *args[2] = {&a0, &a1};
	cudaLaunchConfig_t cfg;
	union {
		cudaLaunchKernel_v7000_params k;
		cudaLaunchKernel_ptsz_v7000_params kp;
		cudaLaunchKernelExC_v11060_params x;
		cudaLaunchKernelExC_ptsz_v11060_params xp;
	} p;

	if (!gsd_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, cbid))
		_exit(48);
	/* The host stub is unknown to the driver: its layout comes from the
	 * writer thread through the program's cudaFuncGetParamInfo. */
	gsd_cuda_set_params(&host_stub, 2, sizes);
	memset(&p, 0, sizeof(p));
	memset(&cfg, 0, sizeof(cfg));
	cfg.gridDim.x = 1;
	cfg.blockDim.x = 32;
	switch (cbid) {
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
		p.k.func = &host_stub;
		p.k.args = args;
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
		p.kp.func = &host_stub;
		p.kp.args = args;
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
		p.x.config = &cfg;
		p.x.func = &host_stub;
		p.x.args = args;
		break;
	default:
		p.xp.config = &cfg;
		p.xp.func = &host_stub;
		p.xp.args = args;
		break;
	}
	gsd_set_time(2000);
	/* The first launch is not read; the writer thread, woken by a buffer,
	 * asks for the stub's layout (two parameters, then "no more"). */
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, CUPTI_API_ENTER, 49, &p);
	EMIT(rec_context(1, 0, 7));
	resolved_calls = 3;
	gsd_complete_thread_buffer();
	if (!wait_until(f_resolved))
		_exit(47);
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, CUPTI_API_ENTER, 50, &p);
	if (gsd_cuda_param_info_calls_in_callback() != 0)
		_exit(46);
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, A_BASE, 1 << 20, 1000));
	EMIT(rec_api(RT, cbid, 50, 0, 1990, 2010));
	EMIT(rec_kernel(1, 7, 50, 2100, 2200, "legacy_launch"));
}

static void sc_dd_launch(void)
{
	dd_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
}
static void sc_dd_launch_ptsz(void)
{
	dd_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000);
}
static void sc_dd_launch_exc(void)
{
	dd_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060);
}
static void sc_dd_launch_exc_ptsz(void)
{
	dd_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060);
}

static void test_data_deps_runtime_launches(void **state)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {
		{"dd_launch", sc_dd_launch},
		{"dd_launch_ptsz", sc_dd_launch_ptsz},
		{"dd_launch_exc", sc_dd_launch_exc},
		{"dd_launch_exc_ptsz", sc_dd_launch_exc_ptsz},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = {.name = cases[i].name,
				.fn = cases[i].fn,
				.env = {{"GPUSCOPE_DATA_DEPS", "1"}}};
		struct gs_trace *t;
		size_t n;

		run_scenario(&r);
		expect_exit(&r, 0);
		t = load_trace(r.trace, false);
		assert_true(has_warning(t, "parameter layout was known", NULL));
		gs_trace_op_allocs(t, &n);
		if (n != 1 || !has_link(t, 50, A_BASE, GS_OP_KERNEL))
			fail_msg("%s: %zu links, want the kernel's to A", cases[i].name, n);
		gs_trace_destroy(t);
	}
}

/*
 * Waits on an event recorded twice, with cudaEventSyncId and without (0,
 * older drivers): the same edges. The records arrive out of correlation
 * order (the re-record first); each wait links to the latest record of its
 * event made before it.
 */
static void event_waits(bool ids)
{
	const uint32_t W = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;

	EMIT(rec_context(1, 0, 7));
	EMIT(rec_stream(1, 13, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, 0));
	EMIT(rec_stream(1, 14, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, 0));
	/* The second round first. */
	EMIT(rec_api(RT, KCBID_LAUNCH, 21, 100, 1200, 1205));
	EMIT(rec_kernel(1, 13, 21, 3000, 3100, "produce2"));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 22, 100, 1210, 1215));
	EMIT(rec_event(1, 13, 5, ids ? 78 : 0, 22));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, 23, 100, 1220, 1225));
	EMIT(rec_sync(W, 1, 14, 5, ids ? 78 : 0, 23, 1220, 1225));
	EMIT(rec_api(RT, KCBID_LAUNCH, 24, 100, 1230, 1235));
	EMIT(rec_kernel(1, 14, 24, 3200, 3300, "consume2"));
	/* The first round. */
	EMIT(rec_api(RT, KCBID_LAUNCH, 11, 100, 1000, 1005));
	EMIT(rec_kernel(1, 13, 11, 2000, 2100, "produce1"));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 12, 100, 1010, 1015));
	EMIT(rec_event(1, 13, 5, ids ? 77 : 0, 12));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, 13, 100, 1020, 1025));
	EMIT(rec_sync(W, 1, 14, 5, ids ? 77 : 0, 13, 1020, 1025));
	EMIT(rec_api(RT, KCBID_LAUNCH, 14, 100, 1030, 1035));
	EMIT(rec_kernel(1, 14, 14, 2200, 2300, "consume1"));
}

static void sc_event_waits_ids(void)
{
	event_waits(true);
}

static void sc_event_waits_no_ids(void)
{
	event_waits(false);
}

static uint32_t op_index(const struct gs_trace *t, uint64_t corr)
{
	size_t n;

	return (uint32_t)(find_op(t, corr, GS_OP_KERNEL) - gs_trace_ops(t, &n));
}

static bool has_event_edge(const struct gs_graph *g, uint32_t from, uint32_t to)
{
	for (size_t i = 0; i < g->n_edges; i++)
		if (g->edges[i].kind == GS_EDGE_EVENT && g->edges[i].from == from &&
		    g->edges[i].to == to && g->edges[i].event == 5)
			return true;
	return false;
}

static void test_event_waits_without_sync_ids(void **state)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {{"waits_ids", sc_event_waits_ids}, {"waits_no_ids", sc_event_waits_no_ids}};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct run r = {.name = cases[i].name, .fn = cases[i].fn};
		struct gs_graph *g;
		struct gs_trace *t;

		run_scenario(&r);
		expect_exit(&r, 0);
		t = load_trace(r.trace, true);
		assert_int_equal(gs_graph_build(t, &g), GS_OK);
		if (g->edge_count[GS_EDGE_EVENT] != 2 || g->unlinked_waits != 0 ||
		    !has_event_edge(g, op_index(t, 11), op_index(t, 14)) ||
		    !has_event_edge(g, op_index(t, 21), op_index(t, 24)))
			fail_msg("%s: %llu event edges, %llu unlinked waits", cases[i].name,
				 (unsigned long long)g->edge_count[GS_EDGE_EVENT],
				 (unsigned long long)g->unlinked_waits);
		gs_graph_destroy(g);
		gs_trace_destroy(t);
	}
}

/* Device names and overhead data are the client's to free (CUPTI's
 * headers say so); the double checks it at exit in ASan builds. */
static void sc_client_frees(void)
{
	CUpti_ActivityOverhead3 o =
		rec_overhead(CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL, 100, 200);

	o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	EMIT(rec_device(0, "Freed H200"));
	EMIT(rec_device(1, "Freed H200 too"));
	gsd_emit(&o);
	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 0, 100, 110));
	EMIT(rec_kernel(1, 7, 1, 120, 200, "k"));
}

static void test_client_frees_cupti_memory(void **state)
{
	struct run r = {.name = "clientfree", .fn = sc_client_frees};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0); /* 86: a block left unfreed (ASan builds) */
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, true);
	gs_trace_devices(t, &n);
	assert_int_equal(n, 2);
	gs_trace_overheads(t, &n);
	assert_int_equal(n, 1);
	gs_trace_destroy(t);
}

static int setup_tmp(void **state)
{
	(void)state;
	return setup_tmpdir("scenarios");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipeline_two_streams),
		cmocka_unit_test(test_legacy_default_stream),
		cmocka_unit_test(test_rank_from_launcher),
		cmocka_unit_test(test_pageable_copies),
		cmocka_unit_test(test_host_syncs),
		cmocka_unit_test(test_queries_are_not_waits),
		cmocka_unit_test(test_nvtx_gets_the_loaded_cupti),
		cmocka_unit_test(test_devices_visible_once),
		cmocka_unit_test(test_kernel_names_demangled),
		cmocka_unit_test(test_graph_launch),
		cmocka_unit_test(test_three_threads),
		cmocka_unit_test(test_buffer_exhaustion),
		cmocka_unit_test(test_subscribe_fails),
		cmocka_unit_test(test_cupti_cannot_use_driver),
		cmocka_unit_test(test_no_driver),
		cmocka_unit_test(test_no_driver_quiet),
		cmocka_unit_test(test_status_file),
		cmocka_unit_test(test_status_file_never_created),
		cmocka_unit_test(test_no_records_no_file),
		cmocka_unit_test(test_fork_child),
		cmocka_unit_test(test_sigterm),
		cmocka_unit_test(test_sigterm_program_handler),
		cmocka_unit_test(test_exit_from_thread),
		cmocka_unit_test(test_output_exists),
		cmocka_unit_test(test_output_symlink),
		cmocka_unit_test(test_output_pid_name_taken),
		cmocka_unit_test(test_data_deps),
		cmocka_unit_test(test_data_deps_segment),
		cmocka_unit_test(test_data_deps_forms_and_drops),
		cmocka_unit_test(test_periodic_flush_survives_sigkill),
		cmocka_unit_test(test_device_reset_flushes),
		cmocka_unit_test(test_injection_path),
		cmocka_unit_test(test_late_attach_devices),
		cmocka_unit_test(test_reset_with_kernel_in_flight),
		cmocka_unit_test(test_triple_chevron_quiet),
		cmocka_unit_test(test_data_deps_runtime_launches),
		cmocka_unit_test(test_event_waits_without_sync_ids),
		cmocka_unit_test(test_client_frees_cupti_memory),
	};

	/* GS_TEST_FILTER=test_fork_child: one case (a loop hunting a rare hang). */
	if (getenv("GS_TEST_FILTER"))
		cmocka_set_test_filter(getenv("GS_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup_tmp, NULL);
}
