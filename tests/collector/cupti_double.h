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
 * What it does as CUPTI 13.0 does (the collector's fixes are tested on it):
 * - Buffers are handed back on the double's own worker thread, never on
 *   the thread that filled them: a full buffer is queued to it at once;
 *   cuptiActivityFlushAll queues the buffers it returns and waits until the
 *   worker has delivered them. Records thus reach the collector after the
 *   API callbacks of their calls, in a later buffer.
 * - Incomplete records (gsd_emit_incomplete): end == 0 until the scenario
 *   completes them. A full buffer holding one waits until it is complete;
 *   a flush without CUPTI_ACTIVITY_FLAG_FLUSH_FORCED leaves such a buffer
 *   with CUPTI; a forced flush returns it as it is (end == 0), and a record
 *   completed after that is never delivered again.
 * - Thread ids: an API record a scenario leaves threadId 0 in (and an
 *   OVERHEAD record of a thread) gets the calling thread's id the way the
 *   thread id type says: (uint32_t)pthread_self() by default, gettid()
 *   after cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM).
 *   A non-zero threadId is kept: a call the scenario makes for a pretend
 *   thread.
 * - DEVICE, CONTEXT and STREAM records of objects that exist before the
 *   kind is enabled (gsd_cuda_exists, CUDA initialised before CUPTI
 *   attached) come only from cuptiActivityEnableAndDump.
 * - cuptiActivityEnableRuntimeApi / EnableDriverApi(cbid, 0) stop the API
 *   records of that cbid.
 * - Event and stream queries give SYNCHRONIZATION records (EVENT_ /
 *   STREAM_SYNCHRONIZE, returnValue CUDA_ERROR_NOT_READY while the work
 *   runs); after cuptiActivityEnableAllSyncRecords(0) the double drops
 *   those with a non-zero returnValue, as CUPTI does.
 * - CUpti_ActivityDevice5.name and CUpti_ActivityOverhead3.overheadData
 *   are malloc'd, the client must free() them; in an AddressSanitizer
 *   build the double checks at exit (after the collector's exit handler)
 *   that every one was freed, and _exit(86)s with a message if not.
 *
 * - fork: the double's own lock is held around it (pthread_atfork), so a
 *   child never finds it taken by a thread it does not have.
 *
 * Differences from CUPTI, on purpose: the clock is the scenario's
 * (gsd_set_time); a CUPTI call that needs CUPTI's worker thread (a flush,
 * enable or disable) from a forked child calls abort(), standing in for
 * the futex hang real CUPTI shows there.
 */
#ifndef GS_CUPTI_DOUBLE_H
#define GS_CUPTI_DOUBLE_H

#include <cupti.h>
#include <pthread.h>
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
	/* cuptiActivityDisable of this kind never returns (CUPTI 13.0 GA's
	 * deadlock with CONCURRENT_KERNEL). 0: disables return. */
	CUpti_ActivityKind hang_disable;
	/* What cuptiGetVersion says (0: CUPTI_API_VERSION of the headers). */
	uint32_t version;
};

/* Set before the collector is loaded. */
void gsd_configure(const struct gsd_options *o);

/* The clock cuptiGetTimestamp reads (it adds 1 ns per call to stay increasing). */
void gsd_set_time(uint64_t ns);

/* Append a record (its kind field picks the struct size) to this thread's
 * buffer, asking the collector for one when needed. 0, or -1 when the
 * collector gave no buffer: the record is dropped and counted. */
int gsd_emit(const void *record);
/* Hand this thread's buffer back (as CUPTI does when a buffer is full) and
 * wait until the worker thread delivered it. */
void gsd_complete_thread_buffer(void);

/* Emit a kernel, memcpy or memset record still running: end (and a
 * kernel's completed) 0 until gsd_complete_record. A ticket (>= 0), -1 when
 * the record was not collected. */
int gsd_emit_incomplete(const void *record);
/* The record of `ticket` ends (with the end it was emitted with): written
 * into its buffer while CUPTI still holds that; else lost, as in CUPTI. */
void gsd_complete_record(int ticket);

/* A DEVICE, CONTEXT or STREAM record of an object that exists already (CUDA
 * was initialised before the collector attached): emitted at once while its
 * kind is enabled, else only by cuptiActivityEnableAndDump of its kind. */
void gsd_cuda_exists(const void *record);

/* The thread id CUPTI puts in this thread's records now. */
uint32_t gsd_thread_id(void);

/* Call the collector's bufferCompleted with anything, as a misbehaving
 * CUPTI might: a NULL buffer, a buffer with no valid bytes. */
void gsd_complete_raw(uint8_t *buffer, size_t size, size_t valid);
/* Ask the collector for a buffer as CUPTI does; returns what it gave
 * (NULL: nothing) and its size in *size. */
uint8_t *gsd_request_raw(size_t *size);

/* Deliver an API callback (when the collector enabled it). */
void gsd_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
	     uint32_t correlation, const void *params);
/* The same with the kernel's name (CUpti_CallbackData.symbolName, which
 * CUPTI fills for launches). */
void gsd_api_sym(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
		 uint32_t correlation, const void *params, const char *symbol);
/* Deliver a resource callback. */
void gsd_resource(CUpti_CallbackId cbid);
/* A module resource callback (CUPTI_CBID_RESOURCE_MODULE_LOADED or
 * _UNLOAD_STARTING) with its CUpti_ModuleResourceData: the cubin. */
void gsd_module(CUpti_CallbackId cbid, uint32_t module_id, const void *cubin, size_t size);
/* True while a subscriber callback runs on this thread (the driver double
 * counts the calls the collector makes from inside one). */
bool gsd_in_callback(void);

bool gsd_callback_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
bool gsd_kind_enabled(CUpti_ActivityKind kind);

struct gsd_stats {
	unsigned subscribes;
	unsigned flushes;        /* cuptiActivityFlushAll calls */
	unsigned forced_flushes; /* with CUPTI_ACTIVITY_FLAG_FLUSH_FORCED */
	unsigned buffers_requested;
	unsigned buffers_refused;
	unsigned buffers_completed;
	unsigned enable_and_dump;  /* cuptiActivityEnableAndDump calls */
	bool system_thread_ids;    /* CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM set */
	bool thread_id_type_late;  /* ... after an activity kind was enabled */
	bool unfinished_syncs_off; /* cuptiActivityEnableAllSyncRecords(0) called */
	pthread_t worker;          /* the thread that completes buffers */
	uint64_t dropped;          /* records dropped so far (total) */
};
struct gsd_stats gsd_get_stats(void);

/* One order for what the doubles see, across their threads: the next
 * number of it (the first is 1). */
uint64_t gsd_next_seq(void);
/* The number (gsd_next_seq) of the last cuptiActivityGetNumDroppedRecords
 * call, 0 before any: the collector's writer asks once a pass, after the
 * pass has resolved the kernel layouts it was asked for. */
uint64_t gsd_last_dropped_query(void);

/* The size CUPTI 13.0 gives records of this kind (0: not supported here). */
size_t gsd_record_size(CUpti_ActivityKind kind);

#endif
