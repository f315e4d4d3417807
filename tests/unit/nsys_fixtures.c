/* SPDX-License-Identifier: MIT */
/*
 * The two Nsight Systems exports test_nsys.c builds (nsys_fixtures.h):
 * schema 3.x with two processes, schema 2.x with its calls recorded twice.
 */
#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nsys_fixtures.h"
#include "nsys_test.h"

const char *const schema_v3 =
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

void build_v3(const char *path)
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

void build_v2(const char *path)
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
