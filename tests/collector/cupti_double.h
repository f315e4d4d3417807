/* SPDX-License-Identifier: MIT */
/*
 * A CUPTI test double: libgs_cupti_double.so defines the CUPTI entry points
 * the collector calls (same names, same prototypes from the real CUDA 13
 * headers) and is linked into the tests in place of libcupti. A scenario
 * "runs" CUDA by calling gsd_*: records (real CUpti_Activity* structs) go
 * into per-thread activity buffers obtained from the collector's
 * bufferRequested and handed back through its bufferCompleted, as CUPTI
 * does; API callbacks are delivered with CUpti_CallbackData.
 *
 * Differences from CUPTI, on purpose: records are never incomplete unless a
 * scenario writes them so; any flush returns every non-empty buffer; the
 * clock is the scenario's (gsd_set_time); a CUPTI call that needs CUPTI's
 * worker thread (a flush, enable or disable) from a forked child calls
 * abort(), standing in for the futex hang real CUPTI shows there.
 */
#ifndef GS_CUPTI_DOUBLE_H
#define GS_CUPTI_DOUBLE_H

#include <cupti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gsd_options {
	/* Every CUPTI call returns this (CUPTI_SUCCESS: behave). 999 = no driver. */
	CUptiResult fail_all;
	/* cuptiSubscribe returns this (e.g. MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED). */
	CUptiResult subscribe_result;
	/* From the Nth cuptiActivityFlushAll call on (1 = the first), the call
	 * never returns (a wedged driver). 0: flushes return. */
	unsigned hang_flush_from;
};

/* Set before the collector is loaded. */
void gsd_configure(const struct gsd_options *o);

/* The clock cuptiGetTimestamp reads (it adds 1 ns per call to stay increasing). */
void gsd_set_time(uint64_t ns);

/* Append a record (its kind field picks the struct size) to this thread's
 * buffer, asking the collector for one when needed. 0, or -1 when the
 * collector gave no buffer: the record is dropped and counted. */
int gsd_emit(const void *record);
/* Hand this thread's buffer back (as CUPTI does when a buffer is full). */
void gsd_complete_thread_buffer(void);

/* Call the collector's bufferCompleted with anything, as a misbehaving
 * CUPTI might: a NULL buffer, a buffer with no valid bytes. */
void gsd_complete_raw(uint8_t *buffer, size_t size, size_t valid);
/* Ask the collector for a buffer as CUPTI does; returns what it gave
 * (NULL: nothing) and its size in *size. */
uint8_t *gsd_request_raw(size_t *size);

/* Deliver an API callback (when the collector enabled it). */
void gsd_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
	     uint32_t correlation, const void *params);
/* Deliver a resource callback. */
void gsd_resource(CUpti_CallbackId cbid);

bool gsd_callback_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
bool gsd_kind_enabled(CUpti_ActivityKind kind);

struct gsd_stats {
	unsigned subscribes;
	unsigned flushes;        /* cuptiActivityFlushAll calls */
	unsigned forced_flushes; /* with CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
	unsigned buffers_requested;
	unsigned buffers_refused;
	unsigned buffers_completed;
	uint64_t dropped; /* records dropped so far (total) */
};
struct gsd_stats gsd_get_stats(void);

/* The size CUPTI 13.0 gives records of this kind (0: not supported here). */
size_t gsd_record_size(CUpti_ActivityKind kind);

#endif
