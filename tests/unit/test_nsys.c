/* SPDX-License-Identifier: MIT */
/*
 * The Nsight Systems SQLite importer.
 *
 * Fixtures are SQLite databases this test builds itself at run time in a
 * temporary directory (nsys_fixtures.c), with the schemas of the two export
 * versions in ../shared/data/nsys (3.x: nsys 2024, ENUM_* tables,
 * TARGET_INFO_CUDA_CONTEXT_INFO; 2.x: nsys 2022, no enum tables,
 * TARGET_INFO_CUDA_NULL_STREAM, runtime calls recorded twice), and every
 * field of every table is checked; then damaged, foreign, read-only and
 * over-limit files. A two-process export: test_nsys_2proc.c; the real
 * exports: test_nsys_shared.c (helpers: nsys_test.h).
 */
#include <gpuscope/import.h>

#include <fcntl.h>
#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "nsys_fixtures.h"
#include "nsys_test.h"

/* ------------------------------------------------------------------------ */
/* Fixture tests                                                            */
/* ------------------------------------------------------------------------ */

static void test_v3_ops(void **state)
{
	const char *path = tmp_path("v3.sqlite");
	struct gs_trace *t;
	const struct gs_op *o;
	uint32_t s13, s14, s7;

	(void)state;
	build_v3(path);
	t = import_ok(path);
	assert_int_equal(count_ops(t, GS_OP_KERNEL), 3);
	assert_int_equal(count_ops(t, GS_OP_MEMCPY), 3);
	assert_int_equal(count_ops(t, GS_OP_MEMSET), 2);
	s13 = stream_index(t, PA, 0, 1, 13);
	s14 = stream_index(t, PA, 0, 1, 14);
	s7 = stream_index(t, PA, 0, 1, 7);

	/* k1: the demangled name, every launch field. */
	o = op_at(t, 150);
	assert_int_equal(o->kind, GS_OP_KERNEL);
	assert_int_equal(o->end_ns, 450);
	assert_string_equal(str(t, o->name), "void ns::k1<int>(float *)");
	assert_int_equal(o->stream, s13);
	assert_int_equal(o->correlation, 10);
	assert_int_equal(lcfg(t, o)->registers, 32);
	assert_int_equal(lcfg(t, o)->grid[0], 4);
	assert_int_equal(lcfg(t, o)->grid[1], 2);
	assert_int_equal(lcfg(t, o)->grid[2], 1);
	assert_int_equal(lcfg(t, o)->block[0], 128);
	assert_int_equal(lcfg(t, o)->block[1], 1);
	assert_int_equal(lcfg(t, o)->block[2], 1);
	assert_int_equal(lcfg(t, o)->shared_mem, 64);
	assert_int_equal(o->graph_node, 0);
	assert_int_equal(lcfg(t, o)->graph_id, 0);
	assert_int_equal(o->flags, 0);
	assert_int_equal(o->bytes, 0);

	/* k2: demangled id missing from StringIds -> short name; graph ids. */
	o = op_at(t, 1850);
	assert_string_equal(str(t, o->name), "k2");
	assert_int_equal(o->stream, s14);
	assert_int_equal(o->graph_node, 77);
	assert_int_equal(lcfg(t, o)->graph_id, 5);
	assert_int_equal(o->flags, GS_OPF_GRAPH);
	assert_int_equal(lcfg(t, o)->block[0], 32);
	assert_int_equal(lcfg(t, o)->block[1], 2);
	assert_int_equal(lcfg(t, o)->block[2], 3);

	/* k3: no name anywhere; on the null stream. */
	o = op_at(t, 2050);
	assert_string_equal(str(t, o->name), "(unnamed kernel)");
	assert_int_equal(o->stream, s7);
	assert_int_equal(o->correlation, 18);

	/* Copies: an async pinned HtoD; B's sync DtoH whose correlation id A
	 * also uses for a kernel launch; a DtoA copy (-> DtoD into an array). */
	o = op_at(t, 350);
	assert_int_equal(o->kind, GS_OP_MEMCPY);
	assert_int_equal(o->end_ns, 380);
	assert_int_equal(o->bytes, 4096);
	assert_int_equal(o->copy_kind, GS_COPY_HTOD);
	assert_int_equal(o->src_mem, GS_MEM_PINNED);
	assert_int_equal(o->dst_mem, GS_MEM_DEVICE);
	assert_int_equal(o->flags, GS_OPF_ASYNC);
	assert_int_equal(o->correlation, 11);
	assert_string_equal(str(t, o->name), "Memcpy HtoD (Pinned -> Device)");
	o = op_at(t, 2450);
	assert_int_equal(o->copy_kind, GS_COPY_DTOH);
	assert_int_equal(o->src_mem, GS_MEM_DEVICE);
	assert_int_equal(o->dst_mem, GS_MEM_PAGEABLE);
	assert_int_equal(o->flags, 0);
	assert_int_equal(o->stream, stream_index(t, PB, 1, 1, 7));
	assert_string_equal(str(t, o->name), "Memcpy DtoH (Device -> Pageable)");
	o = op_at(t, 2500);
	assert_int_equal(o->copy_kind, GS_COPY_DTOD);
	assert_int_equal(o->src_mem, GS_MEM_DEVICE);
	assert_int_equal(o->dst_mem, GS_MEM_ARRAY);
	assert_int_equal(o->correlation, 0);
	assert_int_equal(o->flags, 0);

	/* Memsets. */
	o = op_at(t, 550);
	assert_int_equal(o->kind, GS_OP_MEMSET);
	assert_int_equal(o->bytes, 1024);
	assert_int_equal(o->dst_mem, GS_MEM_DEVICE);
	assert_int_equal(o->flags, GS_OPF_ASYNC);
	assert_string_equal(str(t, o->name), "Memset (Device)");
	o = op_at(t, 2800);
	assert_int_equal(o->dst_mem, GS_MEM_MANAGED);
	assert_string_equal(str(t, o->name), "Memset (Managed)");
	assert_int_equal(o->stream, stream_index(t, PB, 5, 2, 3));
	gs_trace_destroy(t);
}

static void test_v3_host(void **state)
{
	const char *path = tmp_path("v3h.sqlite");
	struct gs_trace *t;
	const struct gs_api_call *c;
	const struct gs_sync *y;
	const struct gs_event_record *e;
	const struct gs_range *r;
	const struct gs_stream *s;
	const struct gs_device *d;
	const struct gs_process *p;
	uint32_t s13, s14;
	size_t n;

	(void)state;
	build_v3(path);
	t = import_ok(path);
	s13 = stream_index(t, PA, 0, 1, 13);
	s14 = stream_index(t, PA, 0, 1, 14);

	/* API calls: names without the version suffix, thread ids, kinds. */
	assert_int_equal(COUNT(gs_trace_api_calls, t), 11);
	c = call_at(t, 100);
	assert_string_equal(str(t, c->name), "cudaLaunchKernel");
	assert_int_equal(c->end_ns, 200);
	assert_int_equal(c->pid, PA);
	assert_int_equal(c->tid, 1001);
	assert_int_equal(c->correlation, 10);
	assert_int_equal(c->kind, GS_API_RUNTIME);
	assert_int_equal(c->return_value, 0);
	assert_int_equal(c->cbid, 0);
	c = call_at(t, 2000);
	assert_string_equal(str(t, c->name), "cuLaunchKernel");
	assert_int_equal(c->kind, GS_API_DRIVER);
	c = call_at(t, 2400);
	assert_string_equal(str(t, c->name), "cudaMemcpy");
	assert_int_equal(c->pid, PB);
	assert_int_equal(c->tid, 2002);
	assert_int_equal(c->return_value, 719);
	c = call_at(t, 2600); /* CUPTI_ACTIVITY_KIND_DRIVER */
	assert_string_equal(str(t, c->name), "cuMemAlloc");
	assert_int_equal(c->kind, GS_API_DRIVER);
	assert_int_equal(c->tid, 1003);
	assert_int_equal(c->return_value, 2);

	/* Syncs. */
	assert_int_equal(COUNT(gs_trace_syncs, t), 3);
	y = sync_at(t, 950);
	assert_int_equal(y->kind, GS_SYNC_STREAM_WAIT);
	assert_int_equal(y->end_ns, 960);
	assert_int_equal(y->pid, PA);
	assert_int_equal(y->tid, 1001);
	assert_int_equal(y->correlation, 14);
	assert_int_equal(y->stream, s14);
	assert_int_equal(y->event_id, 42);
	assert_int_equal(y->sync_id, 9001);
	assert_int_equal(y->event_correlation, 13);
	assert_int_equal(y->wait_on_stream, s13);
	assert_int_equal(y->device, 0);
	y = sync_at(t, 1150); /* "event sync" of cudaDeviceSynchronize */
	assert_int_equal(y->kind, GS_SYNC_CONTEXT);
	assert_int_equal(y->stream, GS_NO_INDEX);
	assert_int_equal(y->event_id, 0);
	assert_int_equal(y->sync_id, GS_NO_SYNC_ID);
	assert_int_equal(y->wait_on_stream, GS_NO_INDEX);
	y = sync_at(t, 1650);
	assert_int_equal(y->kind, GS_SYNC_STREAM);
	assert_int_equal(y->stream, s13);

	/* The event record: its call's start, stream, sync id. */
	assert_int_equal(COUNT(gs_trace_event_records, t), 1);
	e = record_of(t, 13);
	assert_int_equal(e->time_ns, 700);
	assert_int_equal(e->stream, s13);
	assert_int_equal(e->event_id, 42);
	assert_int_equal(e->sync_id, 9001);

	/* Streams: kinds from the flag, the priority as signed, the null
	 * stream of each context; a stream no table lists. */
	s = gs_trace_streams(t, &n);
	assert_int_equal(n, 5);
	assert_int_equal(s[s13].kind, GS_STREAM_NON_BLOCKING);
	assert_int_equal(s[s14].kind, GS_STREAM_BLOCKING);
	assert_int_equal(s[s14].priority, -5);
	assert_int_equal(stream_of(t, stream_index(t, PA, 0, 1, 7))->kind,
			 GS_STREAM_LEGACY_DEFAULT);
	assert_int_equal(stream_of(t, stream_index(t, PB, 1, 1, 7))->kind,
			 GS_STREAM_LEGACY_DEFAULT);
	assert_int_equal(stream_of(t, stream_index(t, PB, 5, 2, 3))->kind, GS_STREAM_UNKNOWN);

	/* NVTX: two ranges, marks and domain rows are not ranges. */
	assert_int_equal(COUNT(gs_trace_ranges, t), 2);
	r = range_at(t, 120);
	assert_int_equal(r->kind, GS_RANGE_NVTX);
	assert_int_equal(r->end_ns, 180);
	assert_string_equal(str(t, r->name), "step");
	assert_int_equal(r->domain, GS_NO_STRING);
	assert_int_equal(r->pid, PA);
	assert_int_equal(r->tid, 1001);
	r = range_at(t, 130);
	assert_int_equal(r->end_ns, 900);
	assert_string_equal(str(t, r->name), "registered range");
	assert_string_equal(str(t, r->domain), "MyDomain");
	assert_int_equal(r->tid, 1002);

	/* Devices: by CUDA ordinal (cuDevice); device 5 only used. */
	assert_int_equal(COUNT(gs_trace_devices, t), 3);
	d = device_of(t, 0);
	assert_string_equal(str(t, d->name), "GPU zero");
	assert_string_equal(str(t, d->uuid), "uuid-0");
	assert_int_equal(d->sm_count, 108);
	assert_int_equal(d->memory_bytes, 42949672960ull);
	assert_int_equal(d->cc_major, 8);
	assert_int_equal(d->cc_minor, 0);
	assert_int_equal(d->copy_engines, 5);
	d = device_of(t, 1);
	assert_string_equal(str(t, d->name), "GPU one");
	assert_int_equal(d->cc_major, 9);
	assert_int_equal(d->copy_engines, 3);
	d = device_of(t, 5);
	assert_int_equal(d->name, GS_NO_STRING);
	assert_int_equal(d->sm_count, 0);

	/* Processes with records, named; bash has none. */
	assert_int_equal(COUNT(gs_trace_processes, t), 2);
	p = process_of(t, PA);
	assert_string_equal(str(t, p->command_line), "app-a");
	assert_string_equal(str(t, p->host_name), "node1");
	assert_string_equal(str(t, p->driver_version), "12040");
	p = process_of(t, PB);
	assert_string_equal(str(t, p->command_line), "app-b");
	assert_int_equal(COUNT(gs_trace_warnings, t), 0);
	gs_trace_destroy(t);
}

static void test_v2(void **state)
{
	const char *path = tmp_path("v2.sqlite");
	struct gs_trace *t;
	const struct gs_api_call *c;
	const struct gs_sync *y;
	const struct gs_event_record *e;
	const struct gs_op *o;
	const struct gs_range *r;
	const struct gs_device *d;
	uint32_t s8, s9, s10;

	(void)state;
	build_v2(path);
	t = import_ok(path);

	/* 10 rows, two calls recorded twice: 8 calls. The outer row of each
	 * is kept with the kind of the inner runtime row. */
	assert_int_equal(COUNT(gs_trace_api_calls, t), 8);
	c = call_at(t, 1000);
	assert_int_equal(c->end_ns, 2000);
	assert_string_equal(str(t, c->name), "cudaMalloc");
	assert_int_equal(c->kind, GS_API_RUNTIME);
	assert_int_equal(c->tid, 501);
	assert_int_equal(c->correlation, 5);
	c = call_at(t, 3000);
	assert_int_equal(c->end_ns, 3100);
	assert_string_equal(str(t, c->name), "cudaEventRecord");
	/* Same correlation, another thread or process: kept. */
	c = call_at(t, 1005);
	assert_int_equal(c->tid, 502);
	assert_string_equal(str(t, c->name), "cudaFree");
	c = call_at(t, 1020);
	assert_int_equal(c->pid, PD);
	c = call_at(t, 10);
	assert_int_equal(c->kind, GS_API_DRIVER);
	assert_string_equal(str(t, c->name), "cuModuleGetLoadingMode");

	s8 = stream_index(t, PC, 0, 1, 8);
	s9 = stream_index(t, PC, 0, 1, 9);
	s10 = stream_index(t, PC, 0, 1, 10);
	assert_int_equal(stream_of(t, s8)->kind, GS_STREAM_NON_BLOCKING);
	assert_int_equal(stream_of(t, s9)->kind, GS_STREAM_BLOCKING);
	assert_int_equal(stream_of(t, stream_index(t, PC, 0, 1, 7))->kind,
			 GS_STREAM_LEGACY_DEFAULT);

	/* Event records (no sync ids): time of the (folded) record call. */
	assert_int_equal(COUNT(gs_trace_event_records, t), 2);
	e = record_of(t, 6);
	assert_int_equal(e->time_ns, 3000);
	assert_int_equal(e->stream, s8);
	assert_int_equal(e->event_id, 42);
	assert_int_equal(e->sync_id, GS_NO_SYNC_ID);
	e = record_of(t, 8);
	assert_int_equal(e->time_ns, 5000);
	assert_int_equal(e->stream, s9);

	/* Each sync joins the latest record of event 42 before its call. */
	y = sync_at(t, 4010);
	assert_int_equal(y->kind, GS_SYNC_STREAM_WAIT);
	assert_int_equal(y->stream, s10);
	assert_int_equal(y->event_correlation, 6);
	assert_int_equal(y->wait_on_stream, s8);
	assert_int_equal(y->tid, 501);
	y = sync_at(t, 6100);
	assert_int_equal(y->kind, GS_SYNC_EVENT);
	assert_int_equal(y->stream, GS_NO_INDEX);
	assert_int_equal(y->event_id, 42);
	assert_int_equal(y->event_correlation, 8);
	assert_int_equal(y->wait_on_stream, s9);

	/* nsys' own memory-kind numbering without ENUM tables. */
	o = op_at(t, 2100);
	assert_int_equal(o->copy_kind, GS_COPY_HTOD);
	assert_int_equal(o->src_mem, GS_MEM_PAGEABLE);
	assert_int_equal(o->dst_mem, GS_MEM_DEVICE);
	assert_int_equal(o->bytes, 262144000);
	assert_string_equal(str(t, o->name), "Memcpy HtoD (Pageable -> Device)");
	o = op_at(t, 7000);
	assert_int_equal(o->copy_kind, GS_COPY_PTOP);
	o = op_at(t, 2500);
	assert_string_equal(str(t, o->name), "saxpy(double *, double *)");
	assert_int_equal(lcfg(t, o)->shared_mem, 0);
	assert_int_equal(lcfg(t, o)->registers, 26);

	r = range_at(t, 2950);
	assert_string_equal(str(t, r->name), "MPI_Send");
	assert_string_equal(str(t, r->domain), "MPI");

	/* No cuDevice column: the GPU's id. */
	d = device_of(t, 0);
	assert_string_equal(str(t, d->name), "NVIDIA A100-SXM4-40GB");
	assert_string_equal(str(t, process_of(t, PC)->command_line), "./saxpy-mpi-cuda");
	assert_int_equal(process_of(t, PD)->command_line, GS_NO_STRING);
	gs_trace_destroy(t);
}

/* Enum values are read by their symbol names, whatever their numbers. */
static void test_enum_by_name(void **state)
{
	const char *path = tmp_path("enum.sqlite");
	sqlite3 *db = db_create(path);
	struct gs_trace *t;
	const struct gs_op *o;

	(void)state;
	db_exec(db, schema_v3);
	db_exec(db,
		"INSERT INTO ENUM_CUPTI_SYNC_TYPE (id, name) VALUES"
		" (7, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE'),"
		" (8, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE'),"
		" (3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_SOMETHING_NEW');"
		"INSERT INTO ENUM_CUPTI_STREAM_TYPE (id, name) VALUES"
		" (5, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING');"
		"INSERT INTO ENUM_CUDA_MEMCPY_OPER (id, name) VALUES"
		" (20, 'CUDA_MEMCPY_KIND_DTOH');"
		"INSERT INTO ENUM_CUDA_MEM_KIND (id, name) VALUES"
		" (10, 'CUDA_MEMOPR_MEMORY_KIND_PINNED'), (11, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE');");
	db_execf(db,
		 "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (4, 0, 1, %d, 1, 0, 5);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId,"
		 " streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind) VALUES"
		 " (10, 20, 0, 1, 4, 1, %lld, 8, 20, 11, 10);"
		 "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId,"
		 " streamId, correlationId, globalPid, syncType, eventId) VALUES"
		 " (30, 40, 0, 1, 4, 2, %lld, 8, 4294967295),"
		 " (50, 60, 0, 1, 4, 3, %lld, 7, 4294967295),"
		 " (70, 80, 0, 1, 4, 4, %lld, 3, 4294967295);",
		 PA, GPID(PA), GPID(PA), GPID(PA), GPID(PA));
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	t = import_ok(path);
	o = op_at(t, 10);
	assert_int_equal(o->copy_kind, GS_COPY_DTOH);
	assert_int_equal(o->src_mem, GS_MEM_DEVICE);
	assert_int_equal(o->dst_mem, GS_MEM_PINNED);
	assert_int_equal(stream_of(t, o->stream)->kind, GS_STREAM_NON_BLOCKING);
	assert_int_equal(sync_at(t, 30)->kind, GS_SYNC_STREAM);
	assert_int_equal(sync_at(t, 30)->stream, o->stream);
	assert_int_equal(sync_at(t, 30)->tid, -1); /* no call in the file */
	assert_int_equal(sync_at(t, 50)->kind, GS_SYNC_CONTEXT);
	assert_int_equal(sync_at(t, 70)->kind, GS_SYNC_UNKNOWN);
	gs_trace_destroy(t);
}

/* Impossible records are dropped, counted, and reported once per kind. */
static void test_bad_rows(void **state)
{
	const char *path = tmp_path("bad.sqlite");
	sqlite3 *db = db_create(path);
	const struct gs_warning *w;
	struct gs_trace *t;
	size_t n;
	bool neg = false, huge = false, none = false, nostream = false;

	(void)state;
	db_exec(db, schema_v3);
	db_execf(
		db,
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId,"
		" correlationId, globalPid, demangledName, shortName, registersPerThread, gridX,"
		" gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory,"
		" localMemoryPerThread, localMemoryTotal, gridId) VALUES"
		" (100, 50, 0, 1, 7, 1, %lld, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),"
		" (100, 100 + 8 * 86400000000000, 0, 1, 7, 2, %lld, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0,"
		"  0, 0, 0, 2),"
		" (100, 200, 0, 1, 7, 3, %lld, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId,"
		" streamId, correlationId, globalPid, bytes, copyKind) VALUES"
		" (10, 20, 0, 1, 4294967295, 1, %lld, 8, 1), (10, 20, -1, 1, 4, 1, %lld, 8, 1);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid,"
		" correlationId, nameId, returnValue) VALUES (300, 299, 0, %lld, 9, 1, 0);"
		"INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid) VALUES"
		" (5, NULL, 59, 'never closed', %lld);",
		GPID(PA), GPID(PA), GPID(PA), GPID(PA), GPID(PA), GTID(PA, 1), GTID(PA, 1));
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	t = import_ok(path);
	assert_int_equal(COUNT(gs_trace_ops, t), 1);
	assert_int_equal(COUNT(gs_trace_api_calls, t), 0);
	assert_int_equal(COUNT(gs_trace_ranges, t), 0);
	w = gs_trace_warnings(t, &n);
	for (size_t i = 0; i < n; i++) {
		if (strstr(w[i].message, "dropped 2 records whose end is before their start")) {
			neg = true;
			assert_int_equal(w[i].count, 2);
		} else if (strstr(w[i].message, "dropped 1 records longer than 7 days")) {
			huge = true;
		} else if (strstr(w[i].message, "dropped 1 records without a start or end time")) {
			none = true;
			assert_non_null(strstr(w[i].message, "NVTX_EVENTS"));
		} else if (strstr(w[i].message,
				  "dropped 2 GPU records without a valid device or stream")) {
			nostream = true;
		} else {
			fail_msg("unexpected warning: %s", w[i].message);
		}
	}
	assert_true(neg && huge && none && nostream);
	gs_trace_destroy(t);
}

/* Values of the wrong type in integer columns drop the row, naming table and
 * column. */
static void test_wrong_types(void **state)
{
	const char *path = tmp_path("types.sqlite");
	sqlite3 *db = db_create(path);
	const struct gs_warning *w;
	struct gs_trace *t;
	size_t n;
	bool start = false, end = false, stream = false, corr = false;

	(void)state;
	db_exec(db, schema_v3);
	db_execf(
		db,
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, streamId,"
		" correlationId, globalPid, demangledName, shortName, registersPerThread, gridX,"
		" gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory,"
		" localMemoryPerThread, localMemoryTotal, gridId) VALUES"
		" ('abc', 50, 0, 1, 7, 1, %lld, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),"
		" ('x', 50, 0, 1, 7, 1, %lld, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),"
		" (100, x'0102', 0, 1, 7, 2, %lld, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2),"
		" (100, 200, 0, 1, 7.5, 3, %lld, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3),"
		" (100, 200, 0, 1, 7, 4, %lld, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 4);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid,"
		" correlationId, nameId, returnValue) VALUES (90, 95, 0, %lld, 'nine', 1, 0);",
		GPID(PA), GPID(PA), GPID(PA), GPID(PA), GPID(PA), GTID(PA, 1));
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	t = import_ok(path);
	assert_int_equal(COUNT(gs_trace_ops, t), 1);
	assert_int_equal(COUNT(gs_trace_api_calls, t), 0);
	w = gs_trace_warnings(t, &n);
	for (size_t i = 0; i < n; i++) {
		const char *m = w[i].message;

		if (strcmp(m, "dropped 2 rows of CUPTI_ACTIVITY_KIND_KERNEL whose start is not an "
			      "integer ('abc')") == 0) {
			start = true;
			assert_int_equal(w[i].count, 2);
		} else if (strcmp(m, "dropped 1 rows of CUPTI_ACTIVITY_KIND_KERNEL whose end is "
				     "not an integer (a blob of 2 bytes)") == 0) {
			end = true;
		} else if (strcmp(m, "dropped 1 rows of CUPTI_ACTIVITY_KIND_KERNEL whose streamId "
				     "is not an integer (7.5)") == 0) {
			stream = true;
		} else if (strcmp(m, "dropped 1 rows of CUPTI_ACTIVITY_KIND_RUNTIME whose "
				     "correlationId is not an integer ('nine')") == 0) {
			corr = true;
		} else {
			fail_msg("unexpected warning: %s", m);
		}
	}
	assert_true(start && end && stream && corr);
	gs_trace_destroy(t);
}

/* A database in WAL mode is read with its -wal file, and refused without
 * one (never read as an empty trace). */
static void test_wal(void **state)
{
	const char *path = tmp_path("wal.sqlite");
	char wal[600];
	sqlite3 *db = db_create(path);
	struct gs_trace *t;

	(void)state;
	db_exec(db, schema_v3);
	assert_int_equal(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL),
			 SQLITE_OK);
	db_exec(db, "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0");
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId,"
		 " streamId, correlationId, globalPid, demangledName, shortName,"
		 " registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ,"
		 " staticSharedMemory, dynamicSharedMemory, localMemoryPerThread,"
		 " localMemoryTotal, gridId) VALUES"
		 " (100, 200, 0, 1, 7, 1, %lld, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1);",
		 GPID(PA));
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	t = import_ok(path);
	assert_int_equal(COUNT(gs_trace_ops, t), 1);
	gs_trace_destroy(t);
	assert_int_equal(unlink(wal), 0);
	assert_int_equal(import_lim(path, NULL, &t), GS_ERR_FORMAT);
	assert_error_has("a SQLite database in WAL mode: checkpoint it first (sqlite3 ");
	assert_error_has("wal.sqlite 'PRAGMA wal_checkpoint')");
	gs_trace_destroy(t);
}

static void test_not_nsys(void **state)
{
	const char *path = tmp_path("other.sqlite");
	sqlite3 *db = db_create(path);
	struct gs_trace *t;
	char want[600];
	enum gs_input_format fmt;

	(void)state;
	db_exec(db, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('x');"
		    "CREATE TABLE CUPTI_ACTIVITY_KINDS (x INTEGER);");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	assert_int_equal(import_lim(path, NULL, &t), GS_ERR_FORMAT);
	gs_trace_destroy(t);
	snprintf(want, sizeof(want),
		 "%s: SQLite database is not an Nsight Systems export (no "
		 "CUPTI_ACTIVITY_KIND_* tables)",
		 path);
	assert_string_equal(last_error(), want);
	/* The same through the loader, which recognises SQLite by content. */
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_ERR_FORMAT);
	assert_null(t);
	assert_int_equal(fmt, GS_INPUT_NSYS);
	assert_string_equal(last_error(), want);
}

static void copy_file(const char *from, const char *to, long keep)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[4096];
	size_t got;
	long done = 0;

	assert_non_null(in);
	assert_non_null(out);
	while ((got = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (keep >= 0 && done + (long)got > keep)
			got = (size_t)(keep - done);
		assert_int_equal(fwrite(buf, 1, got, out), got);
		done += (long)got;
		if (keep >= 0 && done >= keep)
			break;
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static long file_size(const char *path)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	return (long)sb.st_size;
}

static void test_truncated(void **state)
{
	const char *good = tmp_path("good.sqlite"), *cut = tmp_path("cut.sqlite");
	long size;
	struct gs_trace *t;
	long cuts[3];

	(void)state;
	build_v3(good);
	size = file_size(good);
	assert_true(size > 8 * 4096);
	cuts[0] = size / 2;   /* whole pages missing */
	cuts[1] = size - 100; /* part of the last page */
	cuts[2] = 50;         /* part of the header */
	for (int i = 0; i < 3; i++) {
		copy_file(good, cut, cuts[i]);
		assert_int_equal(import_lim(cut, NULL, &t), GS_ERR_FORMAT);
		gs_trace_destroy(t);
		assert_error_has("cut.sqlite: truncated SQLite database");
		/* One error, through the loader too. */
		gs_error_clear();
		assert_int_equal(gs_trace_load(cut, NULL, &t, NULL), GS_ERR_FORMAT);
		assert_int_equal(gs_error_count(), 1);
	}
}

static void test_corrupt(void **state)
{
	const char *good = tmp_path("good2.sqlite"), *bad = tmp_path("bad2.sqlite");
	unsigned char junk[4096];
	struct gs_trace *t;
	long size;
	FILE *f;

	(void)state;
	build_v3(good);
	size = file_size(good);
	copy_file(good, bad, -1);
	/* Every page but the first (the header and the start of the schema)
	 * overwritten: same size, so only SQLite can tell. */
	memset(junk, 0xA5, sizeof(junk));
	f = fopen(bad, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 4096, SEEK_SET), 0);
	for (long off = 4096; off < size; off += 4096)
		assert_int_equal(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(import_lim(bad, NULL, &t), GS_ERR_FORMAT);
	gs_trace_destroy(t);
	assert_error_has("bad2.sqlite: corrupt SQLite database: ");
	assert_int_equal(gs_error_count(), 1);

	/* A header and then nothing SQLite can read. */
	f = fopen(bad, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 100, SEEK_SET), 0);
	assert_int_equal(fwrite(junk, 1, 3996, f), 3996);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(import_lim(bad, NULL, &t), GS_ERR_FORMAT);
	gs_trace_destroy(t);
	assert_error_has("bad2.sqlite: corrupt SQLite database: ");
}

/* Opened read-only and immutable: a read-only file in WAL mode imports,
 * and nothing (-wal, -shm, -journal) appears next to it. */
static void test_read_only(void **state)
{
	const char *path = tmp_path("ro.sqlite");
	struct gs_trace *t;
	struct dirent *e;
	DIR *d;
	int files = 0;
	sqlite3 *db;

	(void)state;
	build_v3(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	db_exec(db, "PRAGMA journal_mode = WAL");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	assert_int_equal(chmod(path, 0444), 0);
	t = import_ok(path);
	assert_int_equal(COUNT(gs_trace_ops, t), 8);
	gs_trace_destroy(t);
	d = opendir(tmpdir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "ro.sqlite", 9) != 0)
			continue;
		if (strcmp(e->d_name, "ro.sqlite") != 0)
			fail_msg("the import left %s next to the input", e->d_name);
		files++;
	}
	closedir(d);
	assert_int_equal(files, 1);
}

static void test_limits(void **state)
{
	const char *path = tmp_path("lim.sqlite");
	struct gs_import_limits lim;
	struct gs_trace *t;

	(void)state;
	build_v3(path);
	memset(&lim, 0, sizeof(lim));
	lim.max_streams = 2;
	assert_int_equal(import_lim(path, &lim, &t), GS_ERR_LIMIT);
	gs_trace_destroy(t);
	assert_error_has("more than max_streams (2) streams");
	memset(&lim, 0, sizeof(lim));
	lim.max_records = 5;
	assert_int_equal(import_lim(path, &lim, &t), GS_ERR_LIMIT);
	gs_trace_destroy(t);
	assert_error_has("more than max_records (5) records");
	memset(&lim, 0, sizeof(lim));
	lim.max_string_bytes = 8;
	assert_int_equal(import_lim(path, &lim, &t), GS_ERR_LIMIT);
	gs_trace_destroy(t);
	assert_error_has("max_string_bytes");
}

/* The loader recognises the export by content (any name) and imports it. */
static void test_load(void **state)
{
	const char *path = tmp_path("trace.bin");
	enum gs_input_format fmt;
	struct gs_trace *t;

	(void)state;
	build_v3(path);
	gs_error_clear();
	if (gs_trace_load(path, NULL, &t, &fmt) != GS_OK)
		fail_msg("load: %s", last_error());
	assert_int_equal(fmt, GS_INPUT_NSYS);
	assert_string_equal(gs_input_format_name(fmt), "nsys");
	assert_int_equal(COUNT(gs_trace_ops, t), 8);
	assert_int_equal(COUNT(gs_trace_api_calls, t), 11);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v3_ops),    cmocka_unit_test(test_v3_host),
		cmocka_unit_test(test_v2),        cmocka_unit_test(test_enum_by_name),
		cmocka_unit_test(test_bad_rows),  cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_wal),       cmocka_unit_test(test_not_nsys),
		cmocka_unit_test(test_truncated), cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_read_only), cmocka_unit_test(test_limits),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
