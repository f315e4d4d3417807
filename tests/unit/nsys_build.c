/* SPDX-License-Identifier: MIT */
/*
 * The two-process, two-GPU Nsight Systems export of nsys_build.h.
 */
#include "nsys_build.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* Column sets of the real exports (types and NOT NULL as there). */
static const char *const nsb_schema =
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
	" sharedMemoryLimitConfig INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,"
	" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
	" bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER,"
	" srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER,"
	" dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,"
	" graphNodeId INTEGER, virtualAddress INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,"
	" correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,"
	" bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,"
	" eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,"
	" nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL,"
	" end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
	" greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,"
	" globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_CUDA_EVENT (deviceId INTEGER NOT NULL,"
	" contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER,"
	" globalPid INTEGER, eventId INTEGER NOT NULL);"
	"CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT,"
	" label TEXT);"
	"CREATE TABLE ENUM_CUPTI_STREAM_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT,"
	" label TEXT);"
	"CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT,"
	" label TEXT);"
	"CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT,"
	" label TEXT);"
	"CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,"
	" busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER,"
	" memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER,"
	" uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT,"
	" ctrlDevPath TEXT, revision INTEGER, nodeMask INTEGER, constantMemory INTEGER,"
	" maxIPC INTEGER, maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER,"
	" maxShmemPerBlockOptin INTEGER, maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER,"
	" threadsPerWarp INTEGER, asyncEngines INTEGER, maxWarpsPerSm INTEGER,"
	" maxBlocksPerSm INTEGER, maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER,"
	" maxBlockDimY INTEGER, maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER,"
	" maxGridDimZ INTEGER, computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER,"
	" smMinor INTEGER);"
	"CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER NOT NULL,"
	" vmId INTEGER NOT NULL, processId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
	" priority INTEGER NOT NULL, flag INTEGER NOT NULL);"
	"CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER NOT NULL,"
	" hwId INTEGER NOT NULL, vmId INTEGER NOT NULL, processId INTEGER NOT NULL,"
	" deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, parentContextId INTEGER,"
	" isGreenContext INTEGER);"
	"CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);"
	"CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT NOT NULL,"
	" name TEXT NOT NULL, nameEnum INTEGER NOT NULL, value TEXT NOT NULL);"
	"CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);";

/* The enum rows the importer reads, numbered as nsys numbers them. */
static const char *const nsb_enums =
	"INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES"
	" (0, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN', 'Unknown'),"
	" (1, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE', 'Event sync'),"
	" (2, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT', 'Stream wait sync'),"
	" (3, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE', 'Stream sync'),"
	" (4, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE', 'Context sync');"
	"INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES"
	" (0, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN', 'Unknown stream type'),"
	" (1, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT', 'Default stream'),"
	" (2, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING', 'Non-blocking stream'),"
	" (3, 'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL', 'Null stream');"
	"INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0, 'CUDA_MEMCPY_KIND_UNKNOWN', 'Unknown'),"
	" (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device'),"
	" (2, 'CUDA_MEMCPY_KIND_DTOH', 'Device-to-Host'),"
	" (3, 'CUDA_MEMCPY_KIND_HTOA', 'Host-to-Array'),"
	" (4, 'CUDA_MEMCPY_KIND_ATOH', 'Array-to-Host'),"
	" (5, 'CUDA_MEMCPY_KIND_ATOA', 'Array-to-Array'),"
	" (6, 'CUDA_MEMCPY_KIND_ATOD', 'Array-to-Device'),"
	" (7, 'CUDA_MEMCPY_KIND_DTOA', 'Device-to-Array'),"
	" (8, 'CUDA_MEMCPY_KIND_DTOD', 'Device-to-Device'),"
	" (9, 'CUDA_MEMCPY_KIND_HTOH', 'Host-to-Host'),"
	" (10, 'CUDA_MEMCPY_KIND_PTOP', 'Peer-to-Peer'),"
	" (11, 'CUDA_MEMCPY_KIND_UVM_HTOD', 'Unified Host-to-Device'),"
	" (12, 'CUDA_MEMCPY_KIND_UVM_DTOH', 'Unified Device-to-Host'),"
	" (13, 'CUDA_MEMCPY_KIND_UVM_DTOD', 'Unified Device-to-Device');"
	"INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0, 'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE', 'Pageable'),"
	" (1, 'CUDA_MEMOPR_MEMORY_KIND_PINNED', 'Pinned'),"
	" (2, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE', 'Device'),"
	" (3, 'CUDA_MEMOPR_MEMORY_KIND_ARRAY', 'Array'),"
	" (4, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED', 'Managed'),"
	" (5, 'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC', 'Device Static'),"
	" (6, 'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC', 'Managed Static'),"
	" (7, 'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN', 'Unknown');";

/* StringIds of the calls and kernels. */
enum {
	NSB_S_MEMCPY_ASYNC = 1,
	NSB_S_LAUNCH,
	NSB_S_EVENT_RECORD,
	NSB_S_STREAM_WAIT,
	NSB_S_MEMSET_ASYNC,
	NSB_S_STREAM_SYNC,
	NSB_S_DEVICE_SYNC,
	NSB_S_PRODUCE, /* demangled, short, mangled: three ids each */
	NSB_S_CONSUME = NSB_S_PRODUCE + 3,
	NSB_S_FINISH = NSB_S_CONSUME + 3,
};

static const char *const nsb_strings =
	"INSERT INTO StringIds VALUES (1, 'cudaMemcpyAsync_v3020'), (2, 'cudaLaunchKernel_v7000'),"
	" (3, 'cudaEventRecord_v3020'), (4, 'cudaStreamWaitEvent_v3020'),"
	" (5, 'cudaMemsetAsync_v3020'), (6, 'cudaStreamSynchronize_v3020'),"
	" (7, 'cudaDeviceSynchronize_v3020'),"
	" (8, 'produce(float *, int)'), (9, 'produce'), (10, '_Z7producePfi'),"
	" (11, 'consume(const float *, float *, int)'), (12, 'consume'),"
	" (13, '_Z7consumePKfPfi'),"
	" (14, 'finish(float *, int)'), (15, 'finish'), (16, '_Z6finishPfi');";

#define NSB_INVALID 4294967295ll /* CUPTI's "no stream / no event" */

static int nsb_exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "nsys_build: SQL failed: %s\n", err ? err : sqlite3_errmsg(db));
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

static int nsb_execf(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int nsb_execf(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	char *sql;
	int rc;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	if (!sql) {
		fprintf(stderr, "nsys_build: out of memory\n");
		return -1;
	}
	rc = nsb_exec(db, sql);
	sqlite3_free(sql);
	return rc;
}

/* One process's calls and records (see nsys_build.h). */
static int nsb_process(sqlite3 *db, long long pid, long long dev, long long t0)
{
	long long gpid = NSB_GPID(pid), gtid = NSB_GTID(pid, pid);
	int c = NSB_CTX, s1 = NSB_STREAM_1, s2 = NSB_STREAM_2, rd = NSB_ROW_DEVICE;

	if (nsb_execf(db,
		      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid,"
		      " correlationId, nameId, returnValue) VALUES"
		      " (%lld, %lld, 0, %lld, 1, %d, 0), (%lld, %lld, 0, %lld, 2, %d, 0),"
		      " (%lld, %lld, 0, %lld, 3, %d, 0), (%lld, %lld, 0, %lld, 4, %d, 0),"
		      " (%lld, %lld, 0, %lld, 5, %d, 0), (%lld, %lld, 0, %lld, 6, %d, 0),"
		      " (%lld, %lld, 0, %lld, 7, %d, 0), (%lld, %lld, 0, %lld, 8, %d, 0),"
		      " (%lld, %lld, 0, %lld, 9, %d, 0);",
		      t0, t0 + 20, gtid, NSB_S_MEMCPY_ASYNC, t0 + 25, t0 + 35, gtid, NSB_S_LAUNCH,
		      t0 + NSB_RECORD_CALL_START, t0 + 45, gtid, NSB_S_EVENT_RECORD,
		      t0 + NSB_WAIT_START, t0 + NSB_WAIT_END, gtid, NSB_S_STREAM_WAIT, t0 + 60,
		      t0 + 65, gtid, NSB_S_MEMSET_ASYNC, t0 + 70, t0 + 80, gtid, NSB_S_LAUNCH,
		      t0 + 85, t0 + 345, gtid, NSB_S_STREAM_SYNC, t0 + 350, t0 + 360, gtid,
		      NSB_S_LAUNCH, t0 + 370, t0 + 570, gtid, NSB_S_DEVICE_SYNC))
		return -1;
	if (nsb_execf(db,
		      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId,"
		      " streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind,"
		      " srcDeviceId, srcContextId, dstDeviceId, dstContextId, migrationCause)"
		      " VALUES (%lld, %lld, %lld, %d, %d, 1, %lld, %d, 1, 1, 2, NULL, NULL, %lld,"
		      " %d, 0);",
		      t0 + NSB_MEMCPY_START, t0 + NSB_MEMCPY_END, dev, c, s1, gpid,
		      NSB_MEMCPY_BYTES, dev, c))
		return -1;
	if (nsb_execf(
		    db,
		    "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId,"
		    " streamId, correlationId, globalPid, demangledName, shortName, mangledName,"
		    " launchType, cacheConfig, registersPerThread, gridX, gridY, gridZ, blockX,"
		    " blockY, blockZ, staticSharedMemory, dynamicSharedMemory,"
		    " localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted,"
		    " sharedMemoryLimitConfig) VALUES"
		    " (%lld, %lld, %lld, %d, %d, 2, %lld, %d, %d, %d, 0, 0, 32, 1024, 1, 1, 256, 1,"
		    "  1, 0, 0, 0, 127401984, 1, 0, 0),"
		    " (%lld, %lld, %lld, %d, %d, 6, %lld, %d, %d, %d, 0, 0, 40, 512, 1, 1, 128, 1,"
		    "  1, 1024, 0, 0, 127401984, 2, 8192, 0),"
		    " (%lld, %lld, %lld, %d, %d, 8, %lld, %d, %d, %d, 0, 0, 16, 256, 1, 1, 256, 1,"
		    "  1, 0, 0, 0, 127401984, 3, 0, 0);",
		    t0 + NSB_PRODUCE_START, t0 + NSB_PRODUCE_END, dev, c, s1, gpid, NSB_S_PRODUCE,
		    NSB_S_PRODUCE + 1, NSB_S_PRODUCE + 2, t0 + NSB_CONSUME_START,
		    t0 + NSB_CONSUME_END, dev, c, s2, gpid, NSB_S_CONSUME, NSB_S_CONSUME + 1,
		    NSB_S_CONSUME + 2, t0 + NSB_FINISH_START, t0 + NSB_FINISH_END, dev, c, s1, gpid,
		    NSB_S_FINISH, NSB_S_FINISH + 1, NSB_S_FINISH + 2))
		return -1;
	if (nsb_execf(db,
		      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId,"
		      " streamId, correlationId, globalPid, value, bytes, memKind) VALUES"
		      " (%lld, %lld, %lld, %d, %d, 5, %lld, 0, %d, 2);",
		      t0 + NSB_MEMSET_START, t0 + NSB_MEMSET_END, dev, c, s2, gpid,
		      NSB_MEMSET_BYTES))
		return -1;
	/* The rows nsys writes with deviceId 0 whatever the GPU. */
	if (nsb_execf(db,
		      "INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (%d, %d, %d, 3, %lld, %d);",
		      rd, c, s1, gpid, NSB_EVENT))
		return -1;
	if (nsb_execf(db,
		      "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId,"
		      " contextId, streamId, correlationId, globalPid, syncType, eventId) VALUES"
		      " (%lld, %lld, %d, %d, %d, 4, %lld, 2, %d),"
		      " (%lld, %lld, %d, %d, %d, 7, %lld, 3, %lld),"
		      " (%lld, %lld, %d, %d, %lld, 9, %lld, 4, %lld);",
		      t0 + NSB_WAIT_START, t0 + NSB_WAIT_END, rd, c, s2, gpid, NSB_EVENT,
		      t0 + NSB_SSYNC_START, t0 + NSB_SSYNC_END, rd, c, s1, gpid, NSB_INVALID,
		      t0 + NSB_CSYNC_START, t0 + NSB_CSYNC_END, rd, c, NSB_INVALID, gpid,
		      NSB_INVALID))
		return -1;
	return nsb_execf(db,
			 "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (%d, 0, 1, %lld, %d, 0, 2),"
			 " (%d, 0, 1, %lld, %d, 0, 2);"
			 "INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES"
			 " (%d, 0, 1, %lld, %lld, %d, NULL, 0);"
			 "INSERT INTO PROCESSES VALUES (%lld, %lld, '%s');",
			 s1, pid, c, s2, pid, c, NSB_NULL_STREAM, pid, dev, c, gpid, pid,
			 pid == NSB_PID_A ? "proc-a" : "proc-b");
}

/* A new export at `path` (replacing any file there), in a transaction, with
 * the schema, the enum rows and `strings`; 0, or -1 with a message. */
static int nsb_begin(const char *path, const char *strings, sqlite3 **out)
{
	sqlite3 *db = NULL;
	int rc;

	*out = NULL;
	if (unlink(path) != 0 && access(path, F_OK) == 0) {
		fprintf(stderr, "nsys_build: cannot replace %s\n", path);
		return -1;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "nsys_build: cannot create %s: %s\n", path,
			db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -1;
	}
	rc = nsb_exec(db, "BEGIN;");
	if (!rc)
		rc = nsb_exec(db, nsb_schema);
	if (!rc)
		rc = nsb_exec(db, nsb_enums);
	if (!rc)
		rc = nsb_exec(db, strings);
	*out = db;
	return rc;
}

/* Commit (after rc 0) and close; on any failure the file is removed. */
static int nsb_end(sqlite3 *db, const char *path, int rc)
{
	if (!rc)
		rc = nsb_exec(db, "COMMIT;");
	if (sqlite3_close(db) != SQLITE_OK && !rc) {
		fprintf(stderr, "nsys_build: cannot close %s\n", path);
		rc = -1;
	}
	if (rc)
		unlink(path);
	return rc;
}

int nsys_build_2proc(const char *path)
{
	sqlite3 *db = NULL;
	int rc = nsb_begin(path, nsb_strings, &db);

	if (!db)
		return -1;
	if (!rc)
		rc = nsb_exec(
			db,
			"INSERT INTO META_DATA_EXPORT VALUES"
			" ('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems'),"
			" ('EXPORT_SCHEMA_VERSION', '3.13.2'), ('EXPORT_SCHEMA_VERSION_MAJOR', '3'),"
			" ('EXPORT_SCHEMA_VERSION_MINOR', '13'), ('EXPORT_SCHEMA_VERSION_MICRO', '2');"
			"INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES"
			" (281474976710656, 'Local (CLI)', 'Hostname', 619, 'gpunode1'),"
			" (281474976710656, 'Local (CLI)', 'CudaDriverVersion', 611, '12040');"
			"INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, totalMemory,"
			" smCount, uuid, cuDevice, asyncEngines, computeMajor, computeMinor) VALUES"
			" (281474976710656, 0, 'NVIDIA H100 80GB HBM3', '0000:18:00.0', 85045231616,"
			"  132, 'a1d3c5e7-0000-4000-8000-000000000000', 0, 3, 9, 0),"
			" (281474976710656, 1, 'NVIDIA H100 80GB HBM3', '0000:2a:00.0', 85045231616,"
			"  132, 'a1d3c5e7-0000-4000-8000-000000000001', 1, 3, 9, 0);");
	if (!rc)
		rc = nsb_process(db, NSB_PID_A, NSB_DEV_A, NSB_T0_A);
	if (!rc)
		rc = nsb_process(db, NSB_PID_B, NSB_DEV_B, NSB_T0_B);
	return nsb_end(db, path, rc);
}

/* ---- a job ---- */

long long nsb_job_arrival(const struct nsb_job *o, int p, int j)
{
	long long a = (long long)j * NSB_JOB_PERIOD + (long long)((j * 7 + p * 3) % 11) * 1000 + p;

	if (o->skew_ns > 0 && p == o->skew_proc && j == o->skew_index) {
		long long latest = 0;

		for (int q = 0; q < o->procs; q++) {
			long long x = (long long)j * NSB_JOB_PERIOD +
				      (long long)((j * 7 + q * 3) % 11) * 1000 + q;

			if (q != p && x > latest)
				latest = x;
		}
		a = latest + o->skew_ns;
	}
	return a;
}

long long nsb_job_end(const struct nsb_job *o, int j)
{
	long long latest = 0;

	for (int p = 0; p < o->procs; p++)
		if (nsb_job_arrival(o, p, j) > latest)
			latest = nsb_job_arrival(o, p, j);
	return latest + NSB_JOB_TRANSFER;
}

static const char *const nsb_job_strings =
	"INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'),"
	" (2, 'gemm(float *, int)'), (3, 'gemm'), (4, '_Z4gemmPfi'),"
	" (5, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)'),"
	" (6, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL'),"
	" (7, '_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE');";

static int nsb_job_kernel(sqlite3 *db, long long start, long long end, int dev, long long stream,
			  long long corr, long long gpid, int name)
{
	return nsb_execf(
		db,
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId,"
		" streamId, correlationId, globalPid, demangledName, shortName, mangledName,"
		" launchType, cacheConfig, registersPerThread, gridX, gridY, gridZ, blockX,"
		" blockY, blockZ, staticSharedMemory, dynamicSharedMemory,"
		" localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted,"
		" sharedMemoryLimitConfig) VALUES"
		" (%lld, %lld, %d, %d, %lld, %lld, %lld, %d, %d, %d, 0, 0, 32, 132, 1, 1, 256, 1,"
		"  1, 0, 0, 0, 0, %lld, 0, 0);",
		start, end, dev, NSB_CTX, stream, corr, gpid, name, name + 1, name + 2, corr);
}

static int nsb_job_process(sqlite3 *db, const struct nsb_job *o, int p)
{
	long long pid = 100LL * (p + 1), gpid = NSB_GPID(pid), gtid = NSB_GTID(pid, pid);
	long long corr = 1, t0 = o->t0;

	for (int j = 0; j < o->collectives; j++) {
		long long b = t0 + j * NSB_JOB_PERIOD;
		long long call = b - 100000;

		/* The compute kernel and its launch. */
		if (nsb_execf(db,
			      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass,"
			      " globalTid, correlationId, nameId, returnValue) VALUES"
			      " (%lld, %lld, 0, %lld, %lld, 1, 0);",
			      call, call + 5000, gtid, corr) ||
		    nsb_job_kernel(db, b - 60000, b - 10000, p, 13, corr, gpid, 2))
			return -1;
		corr++;
		if (p == o->drop_proc && j == o->drop_index)
			continue;
		if (nsb_execf(db,
			      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass,"
			      " globalTid, correlationId, nameId, returnValue) VALUES"
			      " (%lld, %lld, 0, %lld, %lld, 1, 0);",
			      call + 6000, call + 11000, gtid, corr) ||
		    nsb_job_kernel(db, t0 + nsb_job_arrival(o, p, j), t0 + nsb_job_end(o, j), p,
				   o->nccl_stream[p], corr, gpid, 5))
			return -1;
		corr++;
	}
	return nsb_execf(db,
			 "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (13, 0, 1, %lld, %d, 0, 2),"
			 " (%lld, 0, 1, %lld, %d, 0, 2);"
			 "INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES"
			 " (%d, 0, 1, %lld, %d, %d, NULL, 0);"
			 "INSERT INTO PROCESSES VALUES (%lld, %lld, 'rank%d');",
			 pid, NSB_CTX, o->nccl_stream[p], pid, NSB_CTX, NSB_NULL_STREAM, pid, p,
			 NSB_CTX, gpid, pid, p);
}

int nsys_build_job(const char *path, const struct nsb_job *o)
{
	sqlite3 *db = NULL;
	int rc;

	if (o->procs < 1 || o->procs > NSB_JOB_MAX_PROCS) {
		fprintf(stderr, "nsys_build: %d processes\n", o->procs);
		return -1;
	}
	rc = nsb_begin(path, nsb_job_strings, &db);
	if (!db)
		return -1;
	if (!rc)
		rc = nsb_execf(db,
			       "INSERT INTO META_DATA_EXPORT VALUES"
			       " ('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems'),"
			       " ('EXPORT_SCHEMA_VERSION', '3.13.2');"
			       "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES"
			       " (281474976710656, 'Local (CLI)', 'Hostname', 619, '%s');",
			       o->host ? o->host : "gpunode1");
	for (int p = 0; !rc && p < o->procs; p++)
		rc = nsb_execf(
			db,
			"INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, totalMemory,"
			" smCount, uuid, cuDevice, asyncEngines, computeMajor, computeMinor)"
			" VALUES (281474976710656, %d, 'NVIDIA H100 80GB HBM3', '0000:%02x:00.0',"
			" 85045231616, 132, 'a1d3c5e7-0000-4000-8000-00000000000%d', %d, 3, 9,"
			" 0);",
			p, 0x18 + p, p, p);
	if (!rc && o->session_utc_ns > 0) {
		if (o->sys_clock)
			rc = nsb_execf(
				db,
				"CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER,"
				" utcTime TEXT, localTime TEXT, systemClockNs INTEGER);"
				"INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (%lld,"
				" 'utc', 'local', %lld);",
				o->session_utc_ns, o->session_sys_ns);
		else
			rc = nsb_execf(
				db,
				"CREATE TABLE TARGET_INFO_SESSION_START_TIME (utcEpochNs INTEGER,"
				" utcTime TEXT, localTime TEXT);"
				"INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (%lld,"
				" 'utc', 'local');",
				o->session_utc_ns);
	}
	for (int p = 0; !rc && p < o->procs; p++)
		rc = nsb_job_process(db, o, p);
	return nsb_end(db, path, rc);
}

/* ---- NVTX ranges and the ops they launch ---- */

/* StringIds: 1 and 2 the calls, then each op's name (op k: 3 + k). */
static const char *const nsb_nvtx_strings =
	"INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000'),"
	" (2, 'cudaMemcpyAsync_v3020');";

static int nsb_nvtx_op(sqlite3 *db, const struct nsb_op *o, int k)
{
	long long gpid = NSB_GPID(NSB_PID_A), corr = k + 1;
	int name = 3 + k;

	if (nsb_execf(db, "INSERT INTO StringIds VALUES (%d, '%s');", name, o->name))
		return -1;
	if (o->call >= 0 &&
	    nsb_execf(db,
		      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass,"
		      " globalTid, correlationId, nameId, returnValue) VALUES"
		      " (%lld, %lld, 0, %lld, %lld, %d, 0);",
		      o->call, o->call + NSB_CALL_NS, NSB_GTID(NSB_PID_A, o->tid), corr,
		      o->copy ? 2 : 1))
		return -1;
	if (o->copy)
		return nsb_execf(db,
				 "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId,"
				 " contextId, streamId, correlationId, globalPid, bytes, copyKind,"
				 " srcKind, dstKind, srcDeviceId, srcContextId, dstDeviceId,"
				 " dstContextId, migrationCause) VALUES (%lld, %lld, %d, %d, %d,"
				 " %lld, %lld, 4096, 1, 1, 2, NULL, NULL, %d, %d, 0);",
				 o->start, o->end, NSB_DEV_A, NSB_CTX, NSB_STREAM_2, corr, gpid,
				 NSB_DEV_A, NSB_CTX);
	return nsb_execf(
		db,
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId,"
		" streamId, correlationId, globalPid, demangledName, shortName, mangledName,"
		" launchType, cacheConfig, registersPerThread, gridX, gridY, gridZ, blockX,"
		" blockY, blockZ, staticSharedMemory, dynamicSharedMemory,"
		" localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted,"
		" sharedMemoryLimitConfig) VALUES"
		" (%lld, %lld, %d, %d, %d, %lld, %lld, %d, %d, %d, 0, 0, 32, 132, 1, 1, 256, 1,"
		"  1, 0, 0, 0, 0, %lld, 0, 0);",
		o->start, o->end, NSB_DEV_A, NSB_CTX, NSB_STREAM_1, corr, gpid, name, name, name,
		corr);
}

int nsys_build_nvtx(const char *path, const struct nsb_nvtx *ranges, int n_ranges,
		    const struct nsb_op *ops, int n_ops)
{
	sqlite3 *db = NULL;
	int rc = nsb_begin(path, nsb_nvtx_strings, &db);

	if (!db)
		return -1;
	if (!rc)
		rc = nsb_execf(
			db,
			"INSERT INTO META_DATA_EXPORT VALUES"
			" ('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems'),"
			" ('EXPORT_SCHEMA_VERSION', '3.13.2');"
			"INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES"
			" (281474976710656, 'Local (CLI)', 'Hostname', 619, 'gpunode1');"
			"INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, totalMemory,"
			" smCount, uuid, cuDevice, asyncEngines, computeMajor, computeMinor) VALUES"
			" (281474976710656, %d, 'NVIDIA H100 80GB HBM3', '0000:18:00.0', 85045231616,"
			"  132, 'a1d3c5e7-0000-4000-8000-000000000000', %d, 3, 9, 0);"
			"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER,"
			" eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER,"
			" color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,"
			" textId INTEGER REFERENCES StringIds(id), domainId INTEGER,"
			" uint64Value INTEGER, int64Value INTEGER, doubleValue REAL,"
			" uint32Value INTEGER, int32Value INTEGER, floatValue REAL,"
			" jsonTextId INTEGER, jsonText TEXT);"
			"INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (%d, 0, 1, %d, %d, 0, 2),"
			" (%d, 0, 1, %d, %d, 0, 2);"
			"INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES"
			" (%d, 0, 1, %d, %d, %d, NULL, 0);"
			"INSERT INTO PROCESSES VALUES (%lld, %d, 'nvtx');",
			NSB_DEV_A, NSB_DEV_A, NSB_STREAM_1, NSB_PID_A, NSB_CTX, NSB_STREAM_2,
			NSB_PID_A, NSB_CTX, NSB_NULL_STREAM, NSB_PID_A, NSB_DEV_A, NSB_CTX,
			NSB_GPID(NSB_PID_A), NSB_PID_A);
	for (int i = 0; !rc && i < n_ranges; i++) /* 59: push/pop, 60: start/end */
		rc = nsb_execf(db,
			       "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid,"
			       " domainId) VALUES (%lld, %lld, %d, '%s', %lld, 0);",
			       ranges[i].start, ranges[i].end, ranges[i].start_end ? 60 : 59,
			       ranges[i].name, NSB_GTID(NSB_PID_A, ranges[i].tid));
	for (int k = 0; !rc && k < n_ops; k++)
		rc = nsb_nvtx_op(db, &ops[k], k);
	return nsb_end(db, path, rc);
}
