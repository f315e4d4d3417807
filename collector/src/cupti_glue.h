/* SPDX-License-Identifier: MIT */
/*
 * Everything the collector asks of CUPTI (cupti_glue.c is the only file
 * that includes cupti.h and calls CUPTI; record_convert.c only reads the
 * record structs). Also the few driver calls, made through
 * dlsym(dlopen("libcuda.so.1", RTLD_NOLOAD)): the collector never links
 * libcuda or libcudart.
 */
#ifndef GS_COLLECTOR_CUPTI_GLUE_H
#define GS_COLLECTOR_CUPTI_GLUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cupti_activity.h>

#include "config.h"
#include "datadeps.h"

/* What CUPTI's callbacks call in the collector. */
struct gs_glue_hooks {
	void (*buffer_requested)(uint8_t **buffer, size_t *size, size_t *max_records);
	void (*buffer_completed)(uint8_t *buffer, size_t size, size_t valid);
	/* A context is about to go (cudaDeviceReset, cuCtxDestroy, ...): flush
	 * now, not forced (kernels still running stay with CUPTI). */
	void (*flush_point)(const char *why);
	/* GPUSCOPE_DATA_DEPS: the pointers a copy, memset or launch was called with. */
	void (*observation)(const struct gs_dd_obs *o);
	/* True when callbacks must do nothing (a forked child, after close). */
	bool (*quiet)(void);
};

/*
 * Subscribe, register the buffer callbacks, enable the activity kinds and
 * callbacks. On failure (no driver, another subscriber, ...) undoes what it
 * can, writes why into msg and returns -1.
 */
int gs_glue_start(const struct gs_config *cfg, const struct gs_glue_hooks *hooks, char *msg,
		  size_t size);
/* cuptiActivityFlushAll (forced: CUPTI_ACTIVITY_FLAG_FLUSH_FORCED). 0 on success. */
int gs_glue_flush(bool forced);
/* Disable every activity kind enabled and the callbacks (at close). Once:
 * later or concurrent calls return at once. */
void gs_glue_stop(void);
/* CUPTI's clock (the trace's timeline), ns. 0 when CUPTI fails. */
int64_t gs_glue_timestamp(void);
/* Records CUPTI dropped since the last call (no buffer to put them in). */
uint64_t gs_glue_dropped(void);
/* Next record of a completed buffer: 1 and *rec set, 0 at the end. */
int gs_glue_next_record(uint8_t *buffer, size_t valid, CUpti_Activity **rec);
/* Free what CUPTI hands the client with a record (Device5.name,
 * Overhead3.overheadData): after the record was converted, or skipped. */
void gs_glue_release_record(CUpti_Activity *rec);
/* The same for every record of a buffer that is not converted at all:
 * the number of records it held. */
uint64_t gs_glue_release_buffer(uint8_t *buffer, size_t valid);
/* The file of the CUPTI library this collector is bound to (found with
 * dladdr on a CUPTI function: the libcupti.so.13 a program such as PyTorch
 * mapped before us, when it did), as an absolute path. False when unknown. */
bool gs_glue_cupti_path(char *buf, size_t size);
/* A gs_conv_name_fn: CUPTI's name for a runtime or driver callback id. */
const char *gs_glue_api_name(void *ctx, unsigned domain, uint32_t cbid);
/* GPUSCOPE_DATA_DEPS, on the writer thread (never in a callback): look up
 * the parameter layouts of the kernels launch callbacks found no layout for
 * (through the driver or the runtime), so that their next launches are read. */
void gs_glue_resolve_layouts(void);
/* Launches whose kernel's parameter layout was not known yet (no data links). */
uint64_t gs_glue_layout_misses(void);
/* Versions as strings ("" when unknown). Makes driver/runtime calls: not from callbacks. */
void gs_glue_versions(char *cupti, size_t ncupti, char *driver, size_t ndriver, char *runtime,
		      size_t nruntime);

#endif
