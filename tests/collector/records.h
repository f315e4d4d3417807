/* SPDX-License-Identifier: MIT */
/*
 * Builders for real CUDA 13 CUPTI activity records (the structs from the
 * CUPTI headers), zeroed and filled with what the tests care about.
 */
#ifndef GS_TEST_COLLECTOR_RECORDS_H
#define GS_TEST_COLLECTOR_RECORDS_H

#include <cupti_activity.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define REC_DEVICE 0u

static inline CUpti_ActivityKernel10 rec_kernel(uint32_t ctx, uint32_t stream, uint32_t corr,
						uint64_t start, uint64_t end, const char *name)
{
	CUpti_ActivityKernel10 k;

	memset(&k, 0, sizeof(k));
	k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k.deviceId = REC_DEVICE;
	k.contextId = ctx;
	k.streamId = stream;
	k.correlationId = corr;
	k.start = start;
	k.end = end;
	k.name = name;
	k.gridX = 4;
	k.gridY = 2;
	k.gridZ = 1;
	k.blockX = 128;
	k.blockY = 1;
	k.blockZ = 1;
	k.registersPerThread = 32;
	k.staticSharedMemory = 1024;
	k.dynamicSharedMemory = 2048;
	return k;
}

static inline CUpti_ActivityMemcpy6 rec_memcpy(uint32_t ctx, uint32_t stream, uint32_t corr,
					       uint64_t start, uint64_t end, uint8_t copy_kind,
					       uint8_t src, uint8_t dst, bool async, uint64_t bytes)
{
	CUpti_ActivityMemcpy6 m;

	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = copy_kind;
	m.srcKind = src;
	m.dstKind = dst;
	m.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
	m.bytes = bytes;
	m.start = start;
	m.end = end;
	m.deviceId = REC_DEVICE;
	m.contextId = ctx;
	m.streamId = stream;
	m.correlationId = corr;
	m.runtimeCorrelationId = corr;
	return m;
}

static inline CUpti_ActivityMemcpyPtoP4 rec_peer(uint32_t ctx, uint32_t stream, uint32_t corr,
						 uint64_t start, uint64_t end, uint64_t bytes)
{
	CUpti_ActivityMemcpyPtoP4 m;

	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
	m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
	m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
	m.bytes = bytes;
	m.start = start;
	m.end = end;
	m.deviceId = REC_DEVICE;
	m.contextId = ctx;
	m.streamId = stream;
	m.srcDeviceId = 0;
	m.dstDeviceId = 1;
	m.correlationId = corr;
	return m;
}

static inline CUpti_ActivityMemset4 rec_memset(uint32_t ctx, uint32_t stream, uint32_t corr,
					       uint64_t start, uint64_t end, bool async,
					       uint64_t bytes)
{
	CUpti_ActivityMemset4 m;

	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	m.value = 0;
	m.bytes = bytes;
	m.start = start;
	m.end = end;
	m.deviceId = REC_DEVICE;
	m.contextId = ctx;
	m.streamId = stream;
	m.correlationId = corr;
	m.flags = async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : 0;
	m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	return m;
}

static inline CUpti_ActivityAPI rec_api(CUpti_ActivityKind kind, uint32_t cbid, uint32_t corr,
					uint32_t tid, uint64_t start, uint64_t end)
{
	CUpti_ActivityAPI a;

	memset(&a, 0, sizeof(a));
	a.kind = kind;
	a.cbid = cbid;
	a.start = start;
	a.end = end;
	a.processId = 4242;
	a.threadId = tid;
	a.correlationId = corr;
	a.returnValue = 0;
	return a;
}

static inline CUpti_ActivitySynchronization2 rec_sync(CUpti_ActivitySynchronizationType type,
						      uint32_t ctx, uint32_t stream, uint32_t event,
						      uint64_t sync_id, uint32_t corr,
						      uint64_t start, uint64_t end)
{
	CUpti_ActivitySynchronization2 y;

	memset(&y, 0, sizeof(y));
	y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	y.type = type;
	y.start = start;
	y.end = end;
	y.correlationId = corr;
	y.contextId = ctx;
	y.streamId = stream;
	y.cudaEventId = event;
	y.cudaEventSyncId = sync_id;
	return y;
}

static inline CUpti_ActivityCudaEvent2 rec_event(uint32_t ctx, uint32_t stream, uint32_t event,
						 uint64_t sync_id, uint32_t corr)
{
	CUpti_ActivityCudaEvent2 e;

	memset(&e, 0, sizeof(e));
	e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
	e.correlationId = corr;
	e.contextId = ctx;
	e.streamId = stream;
	e.eventId = event;
	e.deviceId = REC_DEVICE;
	e.cudaEventSyncId = sync_id;
	return e;
}

static inline CUpti_ActivityStream rec_stream(uint32_t ctx, uint32_t stream,
					      CUpti_ActivityStreamFlag flag, uint32_t priority)
{
	CUpti_ActivityStream s;

	memset(&s, 0, sizeof(s));
	s.kind = CUPTI_ACTIVITY_KIND_STREAM;
	s.contextId = ctx;
	s.streamId = stream;
	s.priority = priority;
	s.flag = flag;
	return s;
}

static inline CUpti_ActivityContext3 rec_context(uint32_t ctx, uint32_t device,
						 uint16_t null_stream)
{
	CUpti_ActivityContext3 c;

	memset(&c, 0, sizeof(c));
	c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
	c.contextId = ctx;
	c.deviceId = device;
	c.nullStreamId = null_stream;
	return c;
}

static inline CUpti_ActivityDevice5 rec_device(uint32_t id, const char *name)
{
	CUpti_ActivityDevice5 d;

	memset(&d, 0, sizeof(d));
	d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
	d.id = id;
	d.name = name;
	d.numMultiprocessors = 132;
	d.computeCapabilityMajor = 9;
	d.computeCapabilityMinor = 0;
	d.globalMemorySize = 150000000000ull;
	d.numMemcpyEngines = 7;
	d.isCudaVisible = 1;
	for (int i = 0; i < 16; i++)
		d.uuid.bytes[i] = (char)(0x10 + i);
	return d;
}

static inline CUpti_ActivityMemory4 rec_memory(CUpti_ActivityMemoryOperationType op,
					       uint64_t address, uint64_t bytes, uint64_t ts)
{
	CUpti_ActivityMemory4 m;

	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
	m.memoryOperationType = op;
	m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
	m.address = address;
	m.bytes = bytes;
	m.timestamp = ts;
	m.deviceId = REC_DEVICE;
	m.contextId = 1;
	m.streamId = CUPTI_INVALID_STREAM_ID;
	return m;
}

static inline CUpti_ActivityMarker2 rec_marker(uint32_t flags, uint32_t id, uint64_t ts,
					       const char *name, const char *domain, uint32_t tid)
{
	CUpti_ActivityMarker2 m;

	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MARKER;
	m.flags = (CUpti_ActivityFlag)flags;
	m.timestamp = ts;
	m.id = id;
	m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
	m.objectId.pt.processId = 4242;
	m.objectId.pt.threadId = tid;
	m.name = name;
	m.domain = domain;
	return m;
}

static inline CUpti_ActivityOverhead3 rec_overhead(CUpti_ActivityOverheadKind kind, uint64_t start,
						   uint64_t end)
{
	CUpti_ActivityOverhead3 o;

	memset(&o, 0, sizeof(o));
	o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
	o.overheadKind = kind;
	o.start = start;
	o.end = end;
	return o;
}

#endif
