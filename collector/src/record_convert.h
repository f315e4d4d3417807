/* SPDX-License-Identifier: MIT */
/*
 * CUPTI activity records -> gpuscope model records, pushed into a gs_sink
 * (the .gscope writer in the collector, a gs_trace in tests). Pure: no
 * CUPTI calls, no I/O but the sink; API names come from a caller function.
 *
 * Handled (CUDA 13.0 structs): CONCURRENT_KERNEL (Kernel10), MEMCPY
 * (Memcpy6), MEMCPY2 (MemcpyPtoP4), MEMSET (Memset4), SYNCHRONIZATION
 * (Synchronization2), CUDA_EVENT (CudaEvent2), RUNTIME / DRIVER /
 * INTERNAL_LAUNCH_API (ActivityAPI), MEMORY2 (Memory4, through datadeps),
 * STREAM, CONTEXT (Context3: nullStreamId is the legacy default stream),
 * DEVICE (Device5: those CUDA sees, once per id), OVERHEAD (Overhead3), EXTERNAL_CORRELATION (counted:
 * the model has no field for it yet), MARKER (Marker2: NVTX start/end
 * pairs by id become ranges). Other kinds are counted and skipped.
 *
 * Sync records of event and stream queries (found by the API call behind
 * them) and sync records with a non-zero returnValue are dropped: a poll is
 * no wait. Sync and event records carry no thread; the API record with the same
 * correlation id gives it (and the event record's host time). Whichever of
 * the two arrives first waits: API records are remembered in a 64Ki-entry
 * direct-mapped cache, syncs and events in a pending table (bounded: when
 * full they are written without a thread).
 *
 * Complexity: O(1) expected per record (hash maps), memory bounded by the
 * number of streams, contexts, open NVTX ranges and pending syncs.
 */
#ifndef GS_COLLECTOR_RECORD_CONVERT_H
#define GS_COLLECTOR_RECORD_CONVERT_H

#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

#include <cupti_activity.h>

#include "datadeps.h"

/* The name of callback `cbid` in CUPTI callback domain `domain`, or NULL. */
typedef const char *(*gs_conv_name_fn)(void *ctx, unsigned domain, uint32_t cbid);

struct gs_conv_stats {
	uint64_t records;          /* records seen */
	uint64_t ops;              /* kernels, copies, memsets written */
	uint64_t api_calls;        /* API records written */
	uint64_t syncs;            /* sync records written */
	uint64_t event_records;    /* event records written */
	uint64_t ranges;           /* NVTX ranges written */
	uint64_t no_timing;        /* ops with start == end == 0 (device buffer full) */
	uint64_t incomplete;       /* ops with no end or end < start */
	uint64_t unknown_kinds;    /* records of kinds not converted */
	uint64_t ext_correlations; /* external correlation records (not in the model) */
	uint64_t own_api_skipped;  /* API calls made by the collector's threads */
	uint64_t unpaired_markers; /* NVTX ends with no start, starts never ended */
	uint64_t no_thread;        /* syncs and events written without their API call */
	uint64_t queries;          /* sync records of event / stream queries (not waits) */
	uint64_t failed_syncs;     /* sync records with a non-zero returnValue */
	uint64_t devices_skipped;  /* devices hidden from CUDA, or already written */
	uint64_t demangled;        /* distinct kernel names demangled */
};

struct gs_conv;

gs_status gs_conv_create(struct gs_sink *sink, struct gs_dd *dd, int64_t pid, gs_conv_name_fn name,
			 void *name_ctx, struct gs_conv **out);
void gs_conv_destroy(struct gs_conv *c);

/* Kernel names: `fn` gives a mangled name's demangled form (malloc'd) or
 * NULL; the op then has the demangled name and its launch configuration
 * the mangled one. Each distinct name is asked once. None: names as recorded. */
typedef char *(*gs_conv_demangle_fn)(const char *mangled);
void gs_conv_set_demangler(struct gs_conv *c, gs_conv_demangle_fn fn);

/* Skip API records of this thread (the collector's own threads). */
void gs_conv_ignore_thread(struct gs_conv *c, uint32_t tid);

gs_status gs_conv_record(struct gs_conv *c, const CUpti_Activity *rec);

/* Write what still waits (syncs and events whose API call never came). */
gs_status gs_conv_finish(struct gs_conv *c);

/* Records dropped by the conversion since the last call (no timing, incomplete). */
uint64_t gs_conv_take_dropped(struct gs_conv *c);
void gs_conv_get_stats(const struct gs_conv *c, struct gs_conv_stats *s);

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" (a trailing _v<digits> goes). */
size_t gs_conv_api_name_len(const char *raw);

#endif
