/* SPDX-License-Identifier: MIT */
/*
 * The Nsight Systems SQLite importer on an export of two processes on two
 * GPUs (nsys_build.h, written to a temporary directory): streams, ops,
 * syncs and their fallbacks, and gs_trace_load.
 */
#include <gpuscope/import.h>

#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nsys_build.h"
#include "nsys_test.h"

/* ------------------------------------------------------------------------ */
/* Two processes on two GPUs (nsys_build.h)                                 */
/* ------------------------------------------------------------------------ */

static const char *build_2proc(const char *name)
{
	const char *path = tmp_path(name);

	if (nsys_build_2proc(path) != 0)
		fail_msg("nsys_build_2proc(%s) failed", path);
	return path;
}

/* The device a process's records belong on. */
static uint32_t dev_of_pid(int64_t pid)
{
	assert_true(pid == NSB_PID_A || pid == NSB_PID_B);
	return pid == NSB_PID_A ? NSB_DEV_A : NSB_DEV_B;
}

static int64_t t0_of_pid(int64_t pid)
{
	return pid == NSB_PID_A ? NSB_T0_A : NSB_T0_B;
}

/* The sync of pid starting at T0 + rel. */
static const struct gs_sync *sync_of(const struct gs_trace *t, int64_t pid, int64_t rel)
{
	const struct gs_sync *y = sync_at(t, t0_of_pid(pid) + rel);

	assert_int_equal(y->pid, pid);
	return y;
}

/* Streams only on (A, GPU 0) and (B, GPU 1): the syncs and event records,
 * whose rows all say device 0, resolve to the ops' own streams. */
static void test_2proc_streams(void **state)
{
	struct gs_trace *t;
	const struct gs_stream *s;
	size_t n;

	(void)state;
	t = import_ok(build_2proc("2proc.sqlite"));
	s = gs_trace_streams(t, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].device, dev_of_pid(s[i].pid));
		assert_int_equal(s[i].context, NSB_CTX);
		assert_true(s[i].stream_id == NSB_STREAM_1 || s[i].stream_id == NSB_STREAM_2);
		assert_int_equal(s[i].kind, GS_STREAM_NON_BLOCKING);
		assert_false(s[i].pid == NSB_PID_B && s[i].device == NSB_DEV_A);
	}
	stream_index(t, NSB_PID_A, NSB_DEV_A, NSB_CTX, NSB_STREAM_1);
	stream_index(t, NSB_PID_A, NSB_DEV_A, NSB_CTX, NSB_STREAM_2);
	stream_index(t, NSB_PID_B, NSB_DEV_B, NSB_CTX, NSB_STREAM_1);
	stream_index(t, NSB_PID_B, NSB_DEV_B, NSB_CTX, NSB_STREAM_2);

	assert_int_equal(COUNT(gs_trace_devices, t), 2);
	assert_string_equal(str(t, device_of(t, NSB_DEV_A)->name), "NVIDIA H100 80GB HBM3");
	assert_string_equal(str(t, device_of(t, NSB_DEV_B)->name), "NVIDIA H100 80GB HBM3");
	assert_int_equal(COUNT(gs_trace_processes, t), 2);
	assert_string_equal(str(t, process_of(t, NSB_PID_A)->command_line), "proc-a");
	assert_string_equal(str(t, process_of(t, NSB_PID_B)->command_line), "proc-b");
	assert_int_equal(COUNT(gs_trace_api_calls, t), 2 * NSB_CALLS);
	assert_int_equal(COUNT(gs_trace_warnings, t), 0);
	gs_trace_destroy(t);
}

/* Every op on its process's GPU, counts per device exact. */
static void test_2proc_ops(void **state)
{
	struct gs_trace *t;
	const struct gs_op *ops;
	size_t n, per[2][GS_OP_KIND_COUNT] = {{0}};

	(void)state;
	t = import_ok(build_2proc("2proc_ops.sqlite"));
	ops = gs_trace_ops(t, &n);
	assert_int_equal(n, 2 * NSB_OPS);
	for (size_t i = 0; i < n; i++) {
		const struct gs_stream *s = stream_of(t, ops[i].stream);

		assert_int_equal(s->device, dev_of_pid(s->pid));
		assert_true(ops[i].kind < GS_OP_KIND_COUNT);
		per[s->device][ops[i].kind]++;
	}
	for (int d = 0; d < 2; d++) {
		assert_int_equal(per[d][GS_OP_KERNEL], NSB_KERNELS);
		assert_int_equal(per[d][GS_OP_MEMCPY], NSB_MEMCPYS);
		assert_int_equal(per[d][GS_OP_MEMSET], NSB_MEMSETS);
	}
	/* Correlation ids coincide: each op is joined to its own process's
	 * call (the async copy and memset, named "...Async" in both). */
	assert_int_equal(op_at(t, NSB_T0_B + NSB_MEMCPY_START)->flags, GS_OPF_ASYNC);
	assert_int_equal(op_at(t, NSB_T0_B + NSB_MEMCPY_START)->correlation, 1);
	assert_int_equal(op_at(t, NSB_T0_B + NSB_MEMCPY_START)->bytes, NSB_MEMCPY_BYTES);
	assert_int_equal(op_at(t, NSB_T0_B + NSB_PRODUCE_START)->stream,
			 stream_index(t, NSB_PID_B, NSB_DEV_B, NSB_CTX, NSB_STREAM_1));
	assert_int_equal(op_at(t, NSB_T0_B + NSB_CONSUME_START)->stream,
			 stream_index(t, NSB_PID_B, NSB_DEV_B, NSB_CTX, NSB_STREAM_2));
	assert_int_equal(op_at(t, NSB_T0_A + NSB_FINISH_START)->stream,
			 stream_index(t, NSB_PID_A, NSB_DEV_A, NSB_CTX, NSB_STREAM_1));
	gs_trace_destroy(t);
}

/* Syncs and event records take their process's GPU and its streams. */
static void test_2proc_syncs(void **state)
{
	struct gs_trace *t;
	const struct gs_sync *y;
	const struct gs_event_record *e;
	size_t n, seen[2] = {0};

	(void)state;
	t = import_ok(build_2proc("2proc_syncs.sqlite"));
	y = gs_trace_syncs(t, &n);
	assert_int_equal(n, 2 * NSB_SYNCS);
	for (size_t i = 0; i < n; i++) {
		uint32_t dev = dev_of_pid(y[i].pid);

		assert_int_equal(y[i].device, dev);
		assert_int_equal(y[i].tid, y[i].pid);
		if (y[i].kind == GS_SYNC_CONTEXT) {
			assert_int_equal(y[i].stream, GS_NO_INDEX);
		} else {
			assert_int_equal(stream_of(t, y[i].stream)->device, dev);
			assert_int_equal(stream_of(t, y[i].stream)->pid, y[i].pid);
		}
		if (y[i].wait_on_stream != GS_NO_INDEX) {
			assert_int_equal(stream_of(t, y[i].wait_on_stream)->device, dev);
			assert_int_equal(stream_of(t, y[i].wait_on_stream)->pid, y[i].pid);
		}
	}
	for (int p = 0; p < 2; p++) {
		int64_t pid = p ? NSB_PID_B : NSB_PID_A;
		uint32_t dev = dev_of_pid(pid);
		uint32_t s1 = stream_index(t, pid, dev, NSB_CTX, NSB_STREAM_1);
		uint32_t s2 = stream_index(t, pid, dev, NSB_CTX, NSB_STREAM_2);

		/* cudaStreamWaitEvent: s2 waits for the record on s1. */
		y = sync_of(t, pid, NSB_WAIT_START);
		assert_int_equal(y->kind, GS_SYNC_STREAM_WAIT);
		assert_int_equal(y->end_ns, t0_of_pid(pid) + NSB_WAIT_END);
		assert_int_equal(y->correlation, 4);
		assert_int_equal(y->stream, s2);
		assert_int_equal(y->wait_on_stream, s1);
		assert_int_equal(y->event_id, NSB_EVENT);
		assert_int_equal(y->event_correlation, 3);
		assert_int_equal(y->device, dev);
		/* cudaStreamSynchronize(s1). */
		y = sync_of(t, pid, NSB_SSYNC_START);
		assert_int_equal(y->kind, GS_SYNC_STREAM);
		assert_int_equal(y->end_ns, t0_of_pid(pid) + NSB_SSYNC_END);
		assert_int_equal(y->stream, s1);
		assert_int_equal(y->device, dev);
		/* cudaDeviceSynchronize: the context's device. */
		y = sync_of(t, pid, NSB_CSYNC_START);
		assert_int_equal(y->kind, GS_SYNC_CONTEXT);
		assert_int_equal(y->end_ns, t0_of_pid(pid) + NSB_CSYNC_END);
		assert_int_equal(y->correlation, 9);
		assert_int_equal(y->stream, GS_NO_INDEX);
		assert_int_equal(y->device, dev);
	}

	e = gs_trace_event_records(t, &n);
	assert_int_equal(n, 2 * NSB_EVENT_RECORDS);
	for (size_t i = 0; i < n; i++) {
		const struct gs_stream *s = stream_of(t, e[i].stream);

		assert_int_equal(s->device, dev_of_pid(s->pid));
		assert_int_equal(s->stream_id, NSB_STREAM_1);
		assert_int_equal(e[i].correlation, 3);
		assert_int_equal(e[i].event_id, NSB_EVENT);
		assert_int_equal(e[i].time_ns, t0_of_pid(s->pid) + NSB_RECORD_CALL_START);
		seen[s->pid == NSB_PID_B]++;
	}
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 1);
	gs_trace_destroy(t);
}

/* A context without ops keeps its rows' device; a context whose ops name
 * two devices keeps them too and is counted in one warning; a row without a
 * valid device takes its context's. */
static void test_2proc_fallbacks(void **state)
{
	const char *path = build_2proc("2proc_fb.sqlite");
	const struct gs_warning *w;
	const struct gs_sync *y;
	struct gs_trace *t;
	sqlite3 *db = NULL;
	size_t n;
	bool conflict = false;

	(void)state;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	/* Process 300: context 5 with kernels on GPUs 0 and 1, a context sync
	 * and an event record whose rows say device 1. Process 400: no ops, a
	 * stream sync and a context sync on device 1, context 2. Process B: a
	 * context sync whose row has no valid device. */
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId,"
		 " streamId, correlationId, globalPid, demangledName, shortName,"
		 " registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,"
		 " staticSharedMemory, dynamicSharedMemory, localMemoryPerThread,"
		 " localMemoryTotal, gridId) VALUES"
		 " (5000, 5100, 0, 5, 20, 1, %lld, 8, 9, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),"
		 " (5200, 5300, 1, 5, 21, 2, %lld, 8, 9, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId,"
		 " contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES"
		 " (5400, 5500, 1, 5, 4294967295, 3, %lld, 4, 4294967295),"
		 " (6000, 6100, 1, 2, 30, 1, %lld, 3, 4294967295),"
		 " (6200, 6300, 1, 2, 4294967295, 2, %lld, 4, 4294967295),"
		 " (7000, 7100, 4294967295, %d, 4294967295, 50, %lld, 4, 4294967295);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (1, 5, 20, 4, %lld, 9);",
		 NSB_GPID(300), NSB_GPID(300), NSB_GPID(300), NSB_GPID(400), NSB_GPID(400), NSB_CTX,
		 NSB_GPID(NSB_PID_B), NSB_GPID(300));
	assert_int_equal(sqlite3_close(db), SQLITE_OK);

	t = import_ok(path);
	y = sync_at(t, 5400);
	assert_int_equal(y->pid, 300);
	assert_int_equal(y->device, 1);
	y = sync_at(t, 6000);
	assert_int_equal(y->device, 1);
	assert_int_equal(y->stream, stream_index(t, 400, 1, 2, 30));
	assert_int_equal(sync_at(t, 6200)->device, 1);
	y = sync_at(t, 7000);
	assert_int_equal(y->pid, NSB_PID_B);
	assert_int_equal(y->device, NSB_DEV_B);
	assert_int_equal(record_of(t, 4)->stream, stream_index(t, 300, 1, 5, 20));
	/* The ops keep their own rows' devices. */
	assert_int_equal(op_at(t, 5000)->stream, stream_index(t, 300, 0, 5, 20));
	assert_int_equal(op_at(t, 5200)->stream, stream_index(t, 300, 1, 5, 21));

	w = gs_trace_warnings(t, &n);
	for (size_t i = 0; i < n; i++) {
		if (strstr(w[i].message, "1 CUDA contexts have ops on more than one device")) {
			conflict = true;
			assert_int_equal(w[i].count, 1);
		} else {
			fail_msg("unexpected warning: %s", w[i].message);
		}
	}
	assert_true(conflict);
	gs_trace_destroy(t);
}

/* The loader recognises the export by its content (any name). */
static void test_2proc_load(void **state)
{
	enum gs_input_format fmt;
	struct gs_trace *t;

	(void)state;
	gs_error_clear();
	if (gs_trace_load(build_2proc("2proc.bin"), NULL, &t, &fmt) != GS_OK)
		fail_msg("load: %s", last_error());
	assert_int_equal(fmt, GS_INPUT_NSYS);
	assert_int_equal(COUNT(gs_trace_ops, t), 2 * NSB_OPS);
	assert_int_equal(COUNT(gs_trace_syncs, t), 2 * NSB_SYNCS);
	assert_int_equal(COUNT(gs_trace_streams, t), 4);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2proc_streams), cmocka_unit_test(test_2proc_ops),
		cmocka_unit_test(test_2proc_syncs),   cmocka_unit_test(test_2proc_fallbacks),
		cmocka_unit_test(test_2proc_load),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
