/* SPDX-License-Identifier: MIT */
/*
 * The collector end to end, without a GPU: each scenario runs in a child
 * process that loads the collector built against the CUPTI test double
 * (cupti_double.h), "runs" a CUDA program by handing it real CUDA 13
 * activity records and callback data, and exits (or is signalled). The
 * parent then reads the .gscope file the collector wrote and checks it
 * record by record, with the child's exit status, stdout and stderr
 * (running a scenario: harness.h, shared with test_collector_faults.c).
 *
 * Here, what a program does, recorded: streams, copies, syncs, queries,
 * NVTX, devices, kernel names, graph launches, threads, the buffer pool,
 * and CUPTI's memory. The collector's life (no driver, status and output
 * files, forks, signals, flushes, resets, late attach):
 * test_collector_scenarios_life.c; data dependencies and event waits:
 * test_collector_scenarios_deps.c.
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

#include "cubin_build.h"
#include "cuda_double.h"
#include "cupti_double.h"
#include "harness.h"
#include "records.h"
#include "scenarios.h"

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
		cmocka_unit_test(test_client_frees_cupti_memory),
	};

	/* GS_TEST_FILTER=NAME: one case (a loop hunting a rare hang). */
	if (getenv("GS_TEST_FILTER"))
		cmocka_set_test_filter(getenv("GS_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup_tmp, NULL);
}
