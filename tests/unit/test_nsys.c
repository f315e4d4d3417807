/* SPDX-License-Identifier: MIT */
/*
 * The Nsight Systems SQLite importer.
 *
 * Fixtures are SQLite databases this test builds itself at run time in a
 * temporary directory, with the schemas of the two export versions in
 * ../shared/data/nsys (3.x: nsys 2024, ENUM_* tables, TARGET_INFO_CUDA_CONTEXT_INFO;
 * 2.x: nsys 2022, no enum tables, TARGET_INFO_CUDA_NULL_STREAM, runtime
 * calls recorded twice), and every field of every table is checked.
 *
 * `test_nsys --shared` reads the real exports in ../shared/data/nsys/pipit
 * (skips with 77 when absent) and checks the import op by op and call by
 * call against the pipit tool's event listings of the same trace (CSV,
 * read here), against this test's own SQL over the file, and counts with
 * SELECT COUNT(*).
 */
#include <gpuscope/import.h>

#include <dirent.h>
#include <errno.h>
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

#include "nsys_build.h"

#define PIPIT GS_SHARED_DATA "/nsys/pipit"

/* nsys GlobalIds: (vm << 56) | (pid << 24) | tid. */
#define GPID(pid) ((1ll << 56) | ((long long)(pid) << 24))
#define GTID(pid, tid) (GPID(pid) | (tid))

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static char tmpdir[256];

static void make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/gs_nsys_XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
		chmod(p, 0644);
		unlink(p);
	}
	closedir(d);
	rmdir(tmpdir);
}

static int setup(void **state)
{
	(void)state;
	make_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	remove_tmpdir();
	return 0;
}

static const char *tmp_path(const char *name)
{
	static char p[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", tmpdir, name);
	return p[k];
}

static void db_exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("SQL failed: %s\n%s", err ? err : "?", sql);
}

/* Printf-style SQL. */
static void db_execf(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void db_execf(sqlite3 *db, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	db_exec(db, buf);
}

static sqlite3 *db_create(const char *path)
{
	sqlite3 *db = NULL;

	unlink(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	db_exec(db, "PRAGMA page_size = 4096; PRAGMA synchronous = OFF");
	return db;
}

static const char *last_error(void)
{
	static char buf[4096];

	return gs_error_format(buf, sizeof(buf));
}

static void assert_error_has(const char *needle)
{
	const char *msg = last_error();

	if (!strstr(msg, needle))
		fail_msg("error \"%s\" lacks \"%s\"", msg, needle);
}

static gs_status import_lim(const char *path, const struct gs_import_limits *lim,
			    struct gs_trace **out)
{
	struct gs_trace *t = NULL;
	gs_status rc;

	gs_error_clear();
	assert_int_equal(gs_trace_create(&t), GS_OK);
	rc = gs_import_nsys(path, lim, gs_trace_borrow_sink(t));
	if (rc == GS_OK)
		assert_int_equal(gs_trace_finish(t), GS_OK);
	*out = t;
	return rc;
}

static struct gs_trace *import_ok(const char *path)
{
	struct gs_trace *t;
	gs_status rc = import_lim(path, NULL, &t);

	if (rc != GS_OK)
		fail_msg("import of %s failed: %s", path, last_error());
	return t;
}

static const char *str(const struct gs_trace *t, uint32_t id)
{
	return gs_trace_string(t, id);
}

/* An op's launch configuration, all zero when it has none. */
static const struct gs_launch_cfg *lcfg(const struct gs_trace *t, const struct gs_op *o)
{
	static const struct gs_launch_cfg none;
	const struct gs_launch_cfg *lc = gs_trace_op_launch_cfg(t, o);

	return lc ? lc : &none;
}

static const struct gs_op *op_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		if (ops[i].start_ns == start)
			return &ops[i];
	fail_msg("no op starts at %lld", (long long)start);
	abort(); /* not reached: fail_msg leaves the test */
}

static const struct gs_api_call *call_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_api_call *c = gs_trace_api_calls(t, &n);

	for (size_t i = 0; i < n; i++)
		if (c[i].start_ns == start)
			return &c[i];
	fail_msg("no API call starts at %lld", (long long)start);
	abort(); /* not reached: fail_msg leaves the test */
}

static const struct gs_sync *sync_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_sync *y = gs_trace_syncs(t, &n);

	for (size_t i = 0; i < n; i++)
		if (y[i].start_ns == start)
			return &y[i];
	fail_msg("no sync starts at %lld", (long long)start);
	abort(); /* not reached: fail_msg leaves the test */
}

static const struct gs_range *range_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_range *r = gs_trace_ranges(t, &n);

	for (size_t i = 0; i < n; i++)
		if (r[i].start_ns == start)
			return &r[i];
	fail_msg("no range starts at %lld", (long long)start);
	abort(); /* not reached: fail_msg leaves the test */
}

static const struct gs_event_record *record_of(const struct gs_trace *t, uint64_t corr)
{
	size_t n;
	const struct gs_event_record *e = gs_trace_event_records(t, &n);

	for (size_t i = 0; i < n; i++)
		if (e[i].correlation == corr)
			return &e[i];
	fail_msg("no event record with correlation %llu", (unsigned long long)corr);
	abort(); /* not reached: fail_msg leaves the test */
}

static const struct gs_stream *stream_of(const struct gs_trace *t, uint32_t index)
{
	size_t n;
	const struct gs_stream *s = gs_trace_streams(t, &n);

	assert_true(index < n);
	return &s[index];
}

/* Index of stream (pid, device, context, stream id); fails when absent. */
static uint32_t stream_index(const struct gs_trace *t, int64_t pid, uint32_t dev, uint32_t ctx,
			     uint64_t id)
{
	size_t n;
	const struct gs_stream *s = gs_trace_streams(t, &n);

	for (size_t i = 0; i < n; i++)
		if (s[i].pid == pid && s[i].device == dev && s[i].context == ctx &&
		    s[i].stream_id == id)
			return (uint32_t)i;
	fail_msg("no stream %lld/%u/%u/%llu", (long long)pid, dev, ctx, (unsigned long long)id);
	return 0;
}

static const struct gs_device *device_of(const struct gs_trace *t, uint32_t id)
{
	size_t n;
	const struct gs_device *d = gs_trace_devices(t, &n);

	for (size_t i = 0; i < n; i++)
		if (d[i].id == id)
			return &d[i];
	fail_msg("no device %u", id);
	abort(); /* not reached: fail_msg leaves the test */
}

static const struct gs_process *process_of(const struct gs_trace *t, int64_t pid)
{
	size_t n;
	const struct gs_process *p = gs_trace_processes(t, &n);

	for (size_t i = 0; i < n; i++)
		if (p[i].pid == pid)
			return &p[i];
	fail_msg("no process %lld", (long long)pid);
	abort(); /* not reached: fail_msg leaves the test */
}

static size_t count_ops(const struct gs_trace *t, unsigned kind)
{
	size_t n, c = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		c += ops[i].kind == kind;
	return c;
}

/* Number of records an accessor returns (the comma sequences the call). */
static size_t count_tmp;
#define COUNT(fn, t) ((void)(fn)((t), &count_tmp), count_tmp)

/* ------------------------------------------------------------------------ */
/* Fixtures                                                                 */
/* ------------------------------------------------------------------------ */

/* Schema 3.x (nsys 2024.5), as in a100_cloverleaf.sqlite, with the columns
 * newer exports add (graphId, cudaEventSyncId) and the tables it lacks. */
static const char *const schema_v3 =
	"CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,"
	" launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,"
	" gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,"
	" blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,"
	" staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,"
	" localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,"
	" gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,"
	" sharedMemoryLimitConfig INTEGER, graphId INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,"
	" srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,"
	" dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,"
	" graphNodeId INTEGER, virtualAddress INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,"
	" nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,"
	" nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL,"
	" end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
	" greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,"
	" globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL,"
	" cudaEventSyncId INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER NOT NULL,"
	" contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,"
	" globalPid INTEGER, eventId INTEGER NOT NULL, cudaEventSyncId INTEGER);"
	"CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT,"
	" label TEXT);"
	"CREATE TABLE ENUM_CUPTI_STREAM_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT,"
	" label TEXT);"
	"CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT,"
	" label TEXT);"
	"CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT,"
	" label TEXT);"
	"CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL,"
	" vmId INTEGER NOT NULL, processId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
	" priority INTEGER NOT NULL, flag INTEGER NOT NULL);"
	"CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER NOT NULL,"
	" hwId INTEGER NOT NULL, vmId INTEGER NOT NULL, processId INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, parentContextId INTEGER,"
	" isGreenContext INTEGER);"
	"CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,"
	" busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER,"
	" memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER,"
	" uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, asyncEngines INTEGER,"
	" computeMajor INTEGER, computeMinor INTEGER);"
	"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER,"
	" eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER,"
	" text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,"
	" domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL,"
	" uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER,"
	" jsonText TEXT);"
	"CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
	"CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER NOT NULL,"
	" devStateName TEXT NOT NULL, name TEXT NOT NULL, nameEnum INTEGER NOT NULL,"
	" value TEXT NOT NULL);"
	"CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);";

static const char *const enums_v3 =
	"INSERT INTO ENUM_CUPTI_SYNC_TYPE (id, name) VALUES"
	" (0, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN'),"
	" (1, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE'),"
	" (2, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT'),"
	" (3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE'),"
	" (4, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE');"
	"INSERT INTO ENUM_CUPTI_STREAM_TYPE (id, name) VALUES"
	" (0, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN'),"
	" (1, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT'),"
	" (2, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING'),"
	" (3, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL');"
	"INSERT INTO ENUM_CUDA_MEMCPY_OPER (id, name) VALUES (0, 'CUDA_MEMCPY_KIND_UNKNOWN'),"
	" (1, 'CUDA_MEMCPY_KIND_HTOD'), (2, 'CUDA_MEMCPY_KIND_DTOH'),"
	" (3, 'CUDA_MEMCPY_KIND_HTOA'), (4, 'CUDA_MEMCPY_KIND_ATOH'),"
	" (5, 'CUDA_MEMCPY_KIND_ATOA'), (6, 'CUDA_MEMCPY_KIND_ATOD'),"
	" (7, 'CUDA_MEMCPY_KIND_DTOA'), (8, 'CUDA_MEMCPY_KIND_DTOD'),"
	" (9, 'CUDA_MEMCPY_KIND_HTOH'), (10, 'CUDA_MEMCPY_KIND_PTOP'),"
	" (11, 'CUDA_MEMCPY_KIND_UVM_HTOD'), (12, 'CUDA_MEMCPY_KIND_UVM_DTOH'),"
	" (13, 'CUDA_MEMCPY_KIND_UVM_DTOD');"
	"INSERT INTO ENUM_CUDA_MEM_KIND (id, name) VALUES"
	" (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE'), (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED'),"
	" (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE'), (3, 'CUDA_MEMOPR_MEMORY_KIND_ARRAY'),"
	" (4, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED'), (5, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC'),"
	" (6, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC'), (7, 'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN');";

/* Two processes: A (pid 1000, threads 1001..1003) and B (pid 2000). */
#define PA 1000
#define PB 2000

static void build_v3(const char *path)
{
	sqlite3 *db = db_create(path);

	db_exec(db, schema_v3);
	db_exec(db, enums_v3);
	db_exec(db, "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.13.2');");
	db_exec(db, "INSERT INTO StringIds VALUES"
		    " (1, 'void ns::k1<int>(float *)'), (2, 'k1'), (3, '_ZN2ns2k1IiEEvPf'),"
		    " (4, 'cudaLaunchKernel_v7000'), (5, 'cudaMemcpyAsync_v3020'),"
		    " (6, 'cudaMemsetAsync_v3020'), (7, 'cudaDeviceSynchronize_v3020'),"
		    " (8, 'cuLaunchKernel'), (9, 'cudaStreamWaitEvent_v3020'),"
		    " (10, 'cudaEventRecord_v3020'), (11, 'cudaStreamSynchronize_v3020'),"
		    " (12, 'cudaGraphLaunch_v10000'), (13, 'registered range'),"
		    " (14, 'cudaMemcpy_v3020'), (15, 'k2'), (16, 'cuMemAlloc_v2');");
	/* Runtime calls: A's thread 1001, and B's thread 2002 whose correlation
	 * id 10 is also one of A's. eventClass 1 is a driver call. */
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid,"
		 " correlationId, nameId, returnValue) VALUES"
		 " (100, 200, 0, %lld, 10, 4, 0), (300, 400, 0, %lld, 11, 5, 0),"
		 " (500, 600, 0, %lld, 12, 6, 0), (700, 800, 0, %lld, 13, 10, 0),"
		 " (900, 1000, 0, %lld, 14, 9, 0), (1100, 1500, 0, %lld, 15, 7, 0),"
		 " (1600, 1700, 0, %lld, 16, 11, 0), (1800, 1900, 0, %lld, 17, 12, 0),"
		 " (2000, 2100, 1, %lld, 18, 8, 0), (2400, 2500, 0, %lld, 10, 14, 719);",
		 GTID(PA, 1001), GTID(PA, 1001), GTID(PA, 1001), GTID(PA, 1001), GTID(PA, 1001),
		 GTID(PA, 1001), GTID(PA, 1001), GTID(PA, 1001), GTID(PA, 1001), GTID(PB, 2002));
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_DRIVER (start, end, eventClass, globalTid,"
		 " correlationId, nameId, returnValue) VALUES (2600, 2700, 1, %lld, 20, 16, 2);",
		 GTID(PA, 1003));
	/* Kernels: k1 named three ways; k2 from a graph, its demangled name
	 * missing from StringIds; k3 with no name at all. */
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
		 " (150, 450, 0, 1, NULL, 13, 10, %lld, 1, 2, 3, 1, 1, 32, 4, 2, 1, 128, 1, 1,"
		 "  16, 48, 0, 0, 1, 0, NULL, 0, NULL),"
		 " (1850, 1950, 0, 1, NULL, 14, 17, %lld, 99, 15, NULL, 1, 1, 8, 1, 1, 1, 32, 2,"
		 "  3, 0, 0, 0, 0, 2, 0, 77, 0, 5),"
		 " (2050, 2150, 0, 1, NULL, 7, 18, %lld, 98, 97, NULL, 1, 1, 0, 1, 1, 1, 1, 1,"
		 "  1, 0, 0, 0, 0, 3, 0, NULL, 0, NULL);",
		 GPID(PA), GPID(PA), GPID(PA));
	db_execf(
		db,
		"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId,"
		" correlationId, globalPid, bytes, copyKind, srcKind, dstKind) VALUES"
		" (350, 380, 0, 1, 13, 11, %lld, 4096, 1, 1, 2),"
		" (2450, 2480, 1, 1, 7, 10, %lld, 64, 2, 2, 0),"
		" (2500, 2510, 0, 1, 13, NULL, %lld, 32, 7, 2, NULL);",
		GPID(PA), GPID(PB), GPID(PA));
	db_execf(
		db,
		"INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId,"
		" correlationId, globalPid, value, bytes, memKind) VALUES"
		" (550, 560, 0, 1, 13, 12, %lld, 0, 1024, 2),"
		" (2800, 2900, 5, 2, 3, NULL, %lld, 255, 8, 4);",
		GPID(PA), GPID(PB));
	/* A stream wait (event 42, recorded on stream 13 by call 13), a
	 * cudaDeviceSynchronize the export labels an event sync, a stream sync. */
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId,"
		 " streamId, correlationId, globalPid, syncType, eventId, cudaEventSyncId) VALUES"
		 " (950, 960, 0, 1, 14, 14, %lld, 2, 42, 9001),"
		 " (1150, 1490, 0, 1, 4294967295, 15, %lld, 1, 4294967295, NULL),"
		 " (1650, 1690, 0, 1, 13, 16, %lld, 3, 4294967295, NULL);",
		 GPID(PA), GPID(PA), GPID(PA));
	db_execf(
		db,
		"INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0, 1, 13, 13, %lld, 42, 9001);",
		GPID(PA));
	db_execf(db,
		 "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (7, 0, 1, %d, 1, 0, 3),"
		 " (13, 0, 1, %d, 1, 0, 2), (14, 0, 1, %d, 1, 4294967291, 1);"
		 "INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (7, 0, 1, %d, 0, 1, NULL, NULL),"
		 " (7, 0, 1, %d, 1, 1, NULL, NULL);",
		 PA, PA, PA, PA, PB);
	/* Two GPUs: nsys id 0 is CUDA device 1, nsys id 1 is CUDA device 0. */
	db_exec(db, "INSERT INTO TARGET_INFO_GPU (vmId, id, name, uuid, smCount, totalMemory,"
		    " cuDevice, asyncEngines, computeMajor, computeMinor) VALUES"
		    " (281474976710656, 0, 'GPU one', 'uuid-1', 132, 85899345920, 1, 3, 9, 0),"
		    " (281474976710656, 1, 'GPU zero', 'uuid-0', 108, 42949672960, 0, 5, 8, 0);");
	/* NVTX: a domain, a push/pop range (default domain), a start/end range
	 * with a registered string in the domain, a mark. */
	db_execf(db,
		 "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId,"
		 " domainId) VALUES (10, NULL, 75, 'MyDomain', %lld, NULL, 3),"
		 " (120, 180, 59, 'step', %lld, NULL, 0),"
		 " (130, 900, 60, NULL, %lld, 13, 3),"
		 " (140, NULL, 34, 'a mark', %lld, NULL, 0);",
		 GTID(PA, 1001), GTID(PA, 1001), GTID(PA, 1002), GTID(PA, 1001));
	db_execf(db,
		 "INSERT INTO PROCESSES VALUES (%lld, %d, 'app-a'), (%lld, %d, 'app-b'),"
		 " (%lld, 3000, 'bash');",
		 GPID(PA), PA, GPID(PB), PB, GPID(3000));
	db_exec(db, "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES"
		    " (1, 'Local', 'CpuCores', 1, '8'), (1, 'Local', 'Hostname', 2, 'node1'),"
		    " (1, 'Local', 'CudaDriverVersion', 3, '12040');");
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* Schema 2.x (nsys 2022.2), as in a100_saxpy_mpi_rank0.sqlite: no enum
 * tables, no green contexts, TARGET_INFO_CUDA_NULL_STREAM, no cuDevice,
 * no sync ids. Calls recorded with CUDA backtraces appear twice. */
static const char *const schema_v2 =
	"CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
	" correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,"
	" shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,"
	" cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,"
	" gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL,"
	" blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,"
	" staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,"
	" localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,"
	" gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,"
	" sharedMemoryLimitConfig INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
	" correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,"
	" copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,"
	" srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,"
	" migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER, name TEXT);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
	" correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,"
	" bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,"
	" nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER,"
	" name TEXT);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL,"
	" end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER NOT NULL,"
	" contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,"
	" globalPid INTEGER, eventId INTEGER NOT NULL);"
	"CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL,"
	" vmId INTEGER NOT NULL, processId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
	" priority INTEGER NOT NULL, flag INTEGER NOT NULL);"
	"CREATE TABLE TARGET_INFO_CUDA_NULL_STREAM (streamId INTEGER NOT NULL,"
	" hwId INTEGER NOT NULL, vmId INTEGER NOT NULL, processId INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL);"
	"CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,"
	" busLocation TEXT, totalMemory INTEGER, smCount INTEGER, uuid TEXT,"
	" asyncEngines INTEGER, computeMajor INTEGER, computeMinor INTEGER);"
	"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER,"
	" eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER,"
	" text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,"
	" domainId INTEGER);"
	"CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
	"CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT);";

#define PC 500
#define PD 600

static void build_v2(const char *path)
{
	sqlite3 *db = db_create(path);

	db_exec(db, schema_v2);
	db_exec(db, "INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_SCHEMA_VERSION', '2.9.1');");
	db_exec(db, "INSERT INTO StringIds VALUES (20, 'cudaMalloc'), (21, 'cudaMalloc_v3020'),"
		    " (22, 'cudaEventRecord'), (23, 'cudaEventRecord_v3020'),"
		    " (24, 'cudaStreamWaitEvent_v3020'), (25, 'cudaEventSynchronize_v3020'),"
		    " (26, 'cudaFree_v3020'), (27, 'saxpy(double *, double *)'), (28, 'saxpy'),"
		    " (29, '_Z5saxpyPdS_'), (30, 'MPI_Send'), (31, 'cuModuleGetLoadingMode');");
	/* Calls recorded twice (eventClass 67 around eventClass 0), one call
	 * once, the same correlation on another thread and in another process
	 * (not folded), and a driver call (eventClass 1). */
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid,"
		 " correlationId, nameId, returnValue, callchainId) VALUES"
		 " (1010, 1990, 0, %lld, 5, 21, 0, NULL), (1000, 2000, 67, %lld, 5, 20, 0, 0),"
		 " (3000, 3100, 67, %lld, 6, 22, 0, 1), (3010, 3090, 0, %lld, 6, 23, 0, NULL),"
		 " (4000, 4100, 0, %lld, 7, 24, 0, NULL), (5000, 5100, 0, %lld, 8, 23, 0, NULL),"
		 " (6000, 6500, 0, %lld, 9, 25, 0, NULL),"
		 " (1005, 1995, 0, %lld, 5, 26, 0, NULL), (1020, 1030, 0, %lld, 5, 26, 0, NULL),"
		 " (10, 20, 1, %lld, 1, 31, 0, NULL);",
		 GTID(PC, 501), GTID(PC, 501), GTID(PC, 501), GTID(PC, 501), GTID(PC, 501),
		 GTID(PC, 501), GTID(PC, 501), GTID(PC, 502), GTID(PD, 601), GTID(PC, 501));
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
		 " (2500, 2900, 0, 1, 7, 0, %lld, 27, 28, 29, 1, 1, 26, 2, 1, 1, 512, 1, 1, 0, 0,"
		 " 0, 127401984, 1, 16384, NULL, 0);",
		 GPID(PC));
	db_execf(
		db,
		"INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId,"
		" correlationId, globalPid, bytes, copyKind, srcKind, dstKind) VALUES"
		" (2100, 2400, 0, 1, 7, 0, %lld, 262144000, 1, 0, 2),"
		" (7000, 7100, 0, 1, 9, 0, %lld, 16, 10, 2, 2);",
		GPID(PC), GPID(PC));
	/* Event 42 recorded on stream 8 (call 6), waited on by stream 10
	 * (call 7), recorded again on stream 9 (call 8), synchronized (call 9). */
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0, 1, 8, 6, %lld, 42),"
		 " (0, 1, 9, 8, %lld, 42);",
		 GPID(PC), GPID(PC));
	db_execf(db,
		 "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES"
		 " (6100, 6400, 0, 1, 4294967295, 9, %lld, 1, 42),"
		 " (4010, 4020, 0, 1, 10, 7, %lld, 2, 42);",
		 GPID(PC), GPID(PC));
	db_execf(db,
		 "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (8, 0, 1, %d, 1, 0, 2),"
		 " (9, 0, 1, %d, 1, 0, 1), (10, 0, 1, %d, 1, 0, 2);"
		 "INSERT INTO TARGET_INFO_CUDA_NULL_STREAM VALUES (7, 0, 1, %d, 0, 1);",
		 PC, PC, PC, PC);
	db_exec(db, "INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, smCount, uuid,"
		    " asyncEngines, computeMajor, computeMinor) VALUES"
		    " (281474976710656, 0, 'NVIDIA A100-SXM4-40GB', 42297524224, 108, 'u-a100',"
		    " 5, 8, 0);");
	db_execf(db,
		 "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId,"
		 " domainId) VALUES (5, NULL, 75, 'MPI', %lld, NULL, 1),"
		 " (2950, 2990, 59, NULL, %lld, 30, 1);",
		 GTID(PC, 501), GTID(PC, 501));
	db_execf(db, "INSERT INTO PROCESSES VALUES (%lld, %d, './saxpy-mpi-cuda');", GPID(PC), PC);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

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

/* ------------------------------------------------------------------------ */
/* The real exports against the pipit listings and SQL                      */
/* ------------------------------------------------------------------------ */

/* A whole CSV file (RFC 4180: quoted fields, "" in quotes), as rows of
 * fields. */
struct csv {
	char *data;
	char ***rows;
	size_t *nfields;
	size_t nrows;
};

static void csv_read(const char *path, struct csv *c)
{
	FILE *f = fopen(path, "rb");
	size_t len, cap_rows = 0, cap_f = 0, nf = 0;
	char *w, *p, *end, **fields = NULL;
	long sz;

	memset(c, 0, sizeof(*c));
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	sz = ftell(f);
	assert_true(sz >= 0);
	rewind(f);
	c->data = malloc((size_t)sz + 1);
	assert_non_null(c->data);
	len = fread(c->data, 1, (size_t)sz, f);
	assert_int_equal(len, (size_t)sz);
	fclose(f);
	c->data[len] = '\0';
	/* Fields are unescaped in place: w never passes p. */
	p = c->data;
	end = c->data + len;
	while (p < end) {
		char *start = w = p;

		if (*p == '"') {
			p++;
			for (;;) {
				assert_true(p < end);
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
		} else {
			while (p < end && *p != ',' && *p != '\n' && *p != '\r')
				*w++ = *p++;
		}
		if (nf == cap_f) {
			cap_f = cap_f ? cap_f * 2 : 16;
			fields = realloc(fields, cap_f * sizeof(*fields));
			assert_non_null(fields);
		}
		fields[nf++] = start;
		if (p < end && *p == ',') {
			*w = '\0';
			p++;
			continue;
		}
		/* End of the row. */
		if (p < end && *p == '\r')
			p++;
		assert_true(p >= end || *p == '\n');
		*w = '\0';
		p++;
		if (c->nrows == cap_rows) {
			cap_rows = cap_rows ? cap_rows * 2 : 1024;
			c->rows = realloc(c->rows, cap_rows * sizeof(*c->rows));
			c->nfields = realloc(c->nfields, cap_rows * sizeof(*c->nfields));
			assert_non_null(c->rows);
			assert_non_null(c->nfields);
		}
		c->rows[c->nrows] = fields;
		c->nfields[c->nrows++] = nf;
		fields = NULL;
		nf = cap_f = 0;
	}
	free(fields);
}

static void csv_free(struct csv *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i]);
	free(c->rows);
	free(c->nfields);
	free(c->data);
}

static int csv_col(const struct csv *c, const char *name)
{
	assert_true(c->nrows > 0);
	for (size_t i = 0; i < c->nfields[0]; i++)
		if (strcmp(c->rows[0][i], name) == 0)
			return (int)i;
	fail_msg("no column %s", name);
	return -1;
}

static int64_t parse_ns(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	assert_int_equal(errno, 0);
	assert_true(end != s);
	if (*end == '.') /* "123.0" */
		for (end++; *end == '0'; end++)
			;
	if (*end)
		fail_msg("not an integer time: \"%s\"", s);
	return v;
}

/* An op or call as the pipit listing has it. */
struct ev {
	int64_t start, end, a, b; /* gpu: stream id, bytes; api: pid, tid */
	const char *name, *type;
};

static int ev_cmp(const void *pa, const void *pb)
{
	const struct ev *x = pa, *y = pb;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The Enter rows of a pipit listing (each with its Leave time). */
static size_t pipit_events(const struct csv *c, bool gpu, struct ev **out)
{
	int cname = csv_col(c, "Name"), cev = csv_col(c, "Event Type");
	int cts = csv_col(c, "Timestamp (ns)"), cend = csv_col(c, "_matching_timestamp");
	int ca = csv_col(c, gpu ? "streamId" : "Process");
	int cb = csv_col(c, gpu ? "bytes" : "Thread");
	int ctype = gpu ? csv_col(c, "type") : -1;
	struct ev *v = calloc(c->nrows, sizeof(*v));
	size_t n = 0, enter = 0, leave = 0;

	assert_non_null(v);
	for (size_t i = 1; i < c->nrows; i++) {
		char **f = c->rows[i];

		assert_int_equal(c->nfields[i], c->nfields[0]);
		if (strcmp(f[cev], "Leave") == 0) {
			leave++;
			continue;
		}
		assert_string_equal(f[cev], "Enter");
		enter++;
		v[n].start = parse_ns(f[cts]);
		v[n].end = parse_ns(f[cend]);
		v[n].a = f[ca][0] ? parse_ns(f[ca]) : -1;
		v[n].b = f[cb][0] ? parse_ns(f[cb]) : 0;
		v[n].name = f[cname];
		v[n].type = gpu ? f[ctype] : NULL;
		n++;
	}
	assert_int_equal(enter, leave);
	qsort(v, n, sizeof(*v), ev_cmp);
	*out = v;
	return n;
}

static uint8_t pipit_copy_kind(const char *type)
{
	static const struct {
		const char *name;
		uint8_t kind;
	} k[] = {
		{"CUDA_MEMCPY_KIND_HTOD", GS_COPY_HTOD}, {"CUDA_MEMCPY_KIND_DTOH", GS_COPY_DTOH},
		{"CUDA_MEMCPY_KIND_DTOD", GS_COPY_DTOD}, {"CUDA_MEMCPY_KIND_HTOH", GS_COPY_HTOH},
		{"CUDA_MEMCPY_KIND_PTOP", GS_COPY_PTOP},
	};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(type, k[i].name) == 0)
			return k[i].kind;
	fail_msg("unexpected pipit type %s", type);
	return 0;
}

/* "cudaMalloc_v3020" -> "cudaMalloc" (this test's own reading). */
static void strip_version(const char *s, char *out, size_t cap)
{
	const char *v = strrchr(s, '_');
	size_t n = strlen(s);

	if (v && v[1] == 'v' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2))
		n = (size_t)(v - s);
	assert_true(n < cap);
	memcpy(out, s, n);
	out[n] = '\0';
}

struct op_ref {
	const struct gs_op *op;
};

static int op_ref_cmp(const void *pa, const void *pb)
{
	const struct gs_op *x = ((const struct op_ref *)pa)->op;
	const struct gs_op *y = ((const struct op_ref *)pb)->op;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

static int call_cmp(const void *pa, const void *pb)
{
	const struct gs_api_call *x = *(const struct gs_api_call *const *)pa;
	const struct gs_api_call *y = *(const struct gs_api_call *const *)pb;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

static sqlite3 *open_ro(const char *path)
{
	sqlite3 *db = NULL;
	char uri[1024];

	snprintf(uri, sizeof(uri), "file:%s?immutable=1", path);
	assert_int_equal(sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL),
			 SQLITE_OK);
	return db;
}

static int64_t sql_count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void check_cloverleaf(void)
{
	const char *path = PIPIT "/a100_cloverleaf.sqlite";
	struct gs_trace *t;
	enum gs_input_format fmt;
	struct csv gcsv, acsv;
	struct ev *gev, *aev;
	size_t ngev, naev, nops, ncalls, nsync;
	const struct gs_op *ops;
	const struct gs_api_call *calls;
	const struct gs_sync *syncs;
	struct op_ref *refs;
	const struct gs_api_call **cref;
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t k = 0;

	gs_error_clear();
	if (gs_trace_load(path, NULL, &t, &fmt) != GS_OK)
		fail_msg("load: %s", last_error());
	assert_int_equal(fmt, GS_INPUT_NSYS);
	ops = gs_trace_ops(t, &nops);
	calls = gs_trace_api_calls(t, &ncalls);
	syncs = gs_trace_syncs(t, &nsync);

	/* GPU ops, one by one, against pipit's listing. */
	csv_read(PIPIT "/a100_cloverleaf.pipit_gpu_events.csv", &gcsv);
	ngev = pipit_events(&gcsv, true, &gev);
	assert_int_equal(ngev, 1591);
	assert_int_equal(nops, ngev);
	refs = calloc(nops, sizeof(*refs));
	assert_non_null(refs);
	for (size_t i = 0; i < nops; i++)
		refs[i].op = &ops[i];
	qsort(refs, nops, sizeof(*refs), op_ref_cmp);
	for (size_t i = 0; i < nops; i++) {
		const struct gs_op *o = refs[i].op;
		const struct ev *e = &gev[i];

		assert_int_equal(o->start_ns, e->start);
		assert_int_equal(o->end_ns, e->end);
		assert_int_equal(stream_of(t, o->stream)->stream_id, e->a);
		if (strcmp(e->type, "kernel") == 0) {
			assert_int_equal(o->kind, GS_OP_KERNEL);
			/* pipit shows the short name; the import the full one. */
			if (!strstr(str(t, o->name), e->name))
				fail_msg("kernel at %lld: \"%s\" lacks \"%s\"", (long long)e->start,
					 str(t, o->name), e->name);
		} else {
			assert_int_equal(o->kind, GS_OP_MEMCPY);
			assert_string_equal(e->name, e->type);
			assert_int_equal(o->copy_kind, pipit_copy_kind(e->type));
			assert_int_equal(o->bytes, e->b);
		}
	}

	/* API calls, one by one. */
	csv_read(PIPIT "/a100_cloverleaf.pipit_api_events.csv", &acsv);
	naev = pipit_events(&acsv, false, &aev);
	assert_int_equal(naev, 3048);
	assert_int_equal(ncalls, naev);
	cref = calloc(ncalls, sizeof(*cref));
	assert_non_null(cref);
	for (size_t i = 0; i < ncalls; i++)
		cref[i] = &calls[i];
	qsort(cref, ncalls, sizeof(*cref), call_cmp);
	for (size_t i = 0; i < ncalls; i++) {
		char want[256];

		strip_version(aev[i].name, want, sizeof(want));
		assert_int_equal(cref[i]->start_ns, aev[i].start);
		assert_int_equal(cref[i]->end_ns, aev[i].end);
		assert_int_equal(cref[i]->pid, aev[i].a);
		assert_int_equal(cref[i]->tid, aev[i].b);
		assert_string_equal(str(t, cref[i]->name), want);
	}

	/* This test's own SQL: every kernel's full name and launch fields. */
	db = open_ro(path);
	assert_int_equal(
		sqlite3_prepare_v2(db,
				   "SELECT k.start, k.end, s.value, k.gridX, k.gridY, k.gridZ,"
				   " k.blockX, k.blockY, k.blockZ, k.registersPerThread,"
				   " k.staticSharedMemory + k.dynamicSharedMemory, k.correlationId"
				   " FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s"
				   " ON s.id = k.demangledName ORDER BY k.start",
				   -1, &st, NULL),
		SQLITE_OK);
	for (size_t i = 0; i < nops; i++) {
		const struct gs_op *o = refs[i].op;

		if (o->kind != GS_OP_KERNEL)
			continue;
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(o->start_ns, sqlite3_column_int64(st, 0));
		assert_int_equal(o->end_ns, sqlite3_column_int64(st, 1));
		assert_string_equal(str(t, o->name), (const char *)sqlite3_column_text(st, 2));
		for (int d = 0; d < 3; d++) {
			assert_int_equal(lcfg(t, o)->grid[d], sqlite3_column_int64(st, 3 + d));
			assert_int_equal(lcfg(t, o)->block[d], sqlite3_column_int64(st, 6 + d));
		}
		assert_int_equal(lcfg(t, o)->registers, sqlite3_column_int64(st, 9));
		assert_int_equal(lcfg(t, o)->shared_mem, sqlite3_column_int64(st, 10));
		assert_int_equal(o->correlation, sqlite3_column_int64(st, 11));
		k++;
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);

	/* Counts. */
	assert_int_equal(k, sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
	assert_int_equal(k, 1312);
	assert_int_equal(count_ops(t, GS_OP_MEMCPY),
			 sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
	assert_int_equal(count_ops(t, GS_OP_MEMCPY), 279);
	assert_int_equal(ncalls, sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
	assert_int_equal(nsync,
			 sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
	assert_int_equal(nsync, 1312);
	assert_int_equal(COUNT(gs_trace_devices, t),
			 sql_count(db, "SELECT COUNT(*) FROM TARGET_INFO_GPU"));
	/* Every sync is a cudaDeviceSynchronize of the main thread, on the
	 * device of the one context; one stream in all. */
	for (size_t i = 0; i < nsync; i++) {
		assert_int_equal(syncs[i].kind, GS_SYNC_CONTEXT);
		assert_int_equal(syncs[i].tid, 1701896);
		assert_int_equal(syncs[i].device, 0);
	}
	assert_int_equal(COUNT(gs_trace_streams, t), 1);
	assert_int_equal(stream_of(t, ops[0].stream)->kind, GS_STREAM_LEGACY_DEFAULT);
	assert_string_equal(str(t, process_of(t, 1701896)->command_line), "cuda-cloverleaf");
	assert_int_equal(COUNT(gs_trace_warnings, t), 0);
	sqlite3_close(db);

	free(cref);
	free(refs);
	free(gev);
	free(aev);
	csv_free(&gcsv);
	csv_free(&acsv);
	gs_trace_destroy(t);
}

static void check_saxpy(void)
{
	const char *path = PIPIT "/a100_saxpy_mpi_rank0.sqlite";
	struct gs_trace *t = import_ok(path);
	sqlite3 *db = open_ro(path);
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	int64_t folded;

	assert_int_equal(count_ops(t, GS_OP_KERNEL),
			 sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
	assert_int_equal(count_ops(t, GS_OP_MEMCPY),
			 sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
	/* Calls: the rows no other row of the same thread and correlation id
	 * encloses. */
	folded = sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE NOT EXISTS"
			       " (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME o"
			       " WHERE o.correlationId = r.correlationId"
			       " AND o.globalTid = r.globalTid AND o.rowid != r.rowid"
			       " AND o.start <= r.start AND o.end >= r.end"
			       " AND (o.start < r.start OR o.end > r.end))");
	assert_int_equal(COUNT(gs_trace_api_calls, t), folded);
	assert_true(folded < sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
	assert_int_equal(COUNT(gs_trace_ranges, t),
			 sql_count(db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN"
				       " (59, 60) AND end IS NOT NULL"));
	assert_int_equal(COUNT(gs_trace_devices, t), 1);
	assert_int_equal(COUNT(gs_trace_streams, t), 1);
	for (size_t i = 0; i < n; i++) {
		if (ops[i].kind != GS_OP_MEMCPY)
			continue;
		if (ops[i].copy_kind == GS_COPY_HTOD) {
			assert_int_equal(ops[i].src_mem, GS_MEM_PAGEABLE);
			assert_int_equal(ops[i].dst_mem, GS_MEM_DEVICE);
		} else {
			assert_int_equal(ops[i].copy_kind, GS_COPY_DTOH);
		}
	}
	assert_int_equal(COUNT(gs_trace_warnings, t), 0);
	sqlite3_close(db);
	gs_trace_destroy(t);
}

static void test_shared(void **state)
{
	(void)state;
	check_cloverleaf();
	check_saxpy();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v3_ops),
		cmocka_unit_test(test_v3_host),
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_enum_by_name),
		cmocka_unit_test(test_bad_rows),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_wal),
		cmocka_unit_test(test_not_nsys),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_2proc_streams),
		cmocka_unit_test(test_2proc_ops),
		cmocka_unit_test(test_2proc_syncs),
		cmocka_unit_test(test_2proc_fallbacks),
		cmocka_unit_test(test_2proc_load),
	};
	const struct CMUnitTest shared[] = {
		cmocka_unit_test(test_shared),
	};

	if (argc > 1 && strcmp(argv[1], "--shared") == 0) {
		if (access(PIPIT "/a100_cloverleaf.sqlite", R_OK) != 0) {
			printf("skipped: ../shared/data absent\n");
			return 77;
		}
		return cmocka_run_group_tests(shared, NULL, NULL);
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
