/* SPDX-License-Identifier: MIT */
/*
 * gpuscope names (target gs_format): the stable names of the trace model's
 * enums, and what an API call's name says of the call.
 */
#ifndef GPUSCOPE_NAMES_H
#define GPUSCOPE_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Names for enums (stable strings used in text and JSON output). */
const char *gs_op_kind_name(unsigned kind);
const char *gs_copy_kind_name(unsigned kind);
const char *gs_mem_kind_name(unsigned kind);
const char *gs_stream_kind_name(unsigned kind);
const char *gs_sync_kind_name(unsigned kind);
const char *gs_range_kind_name(unsigned kind);
const char *gs_api_kind_name(unsigned kind);
/* enum gs_clock_source: a stable name ("kineto_base") and the evidence in
 * words ("Kineto baseTimeNanoseconds"). */
const char *gs_clock_source_name(unsigned source);
const char *gs_clock_source_text(unsigned source);

/* What an API call's name (its first n bytes; no NUL needed) says of the
 * call: it returns before its work is done ("Async": cudaMemcpyAsync,
 * cuMemsetD8Async), or it launches a CUDA Graph ("GraphLaunch":
 * cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch). Every importer and
 * analysis asks these, so that they agree on each name. */
bool gs_api_name_is_async(const char *name, size_t n);
bool gs_api_name_is_graph_launch(const char *name, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_NAMES_H */
