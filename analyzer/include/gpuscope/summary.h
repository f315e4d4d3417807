/* SPDX-License-Identifier: MIT */
/*
 * The summary of a trace (`gpuscope info`): record counts, devices,
 * streams, time span, and the loading warnings as text.
 */
#ifndef GPUSCOPE_SUMMARY_H
#define GPUSCOPE_SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Counts over a finished trace. `trace` is borrowed by gs_summary_compute
 * (names, devices and warnings are read from it when writing), so the trace
 * must outlive the summary. `file` and `format` are optional labels the
 * caller may set after computing (NULL: not written).
 */
struct gs_summary {
	const struct gs_trace *trace;
	const char *file;
	const char *format;

	uint64_t ops[GS_OP_KIND_COUNT]; /* by enum gs_op_kind */
	uint64_t op_total;
	uint64_t op_ns[GS_OP_KIND_COUNT]; /* summed durations by kind */
	uint64_t copy_bytes;              /* memcpy bytes */
	uint64_t memset_bytes;
	uint64_t api_calls;
	uint64_t api_by_kind[GS_API_KIND_COUNT]; /* by enum gs_api_kind */
	uint64_t syncs;
	uint64_t syncs_by_kind[GS_SYNC_KIND_COUNT];
	uint64_t event_records;
	/* Every range (host-side, NVTX, and GPU annotation ranges, kind
	 * gpu_user_annotation); by enum gs_range_kind. */
	uint64_t host_ranges;
	uint64_t ranges_by_kind[GS_RANGE_KIND_COUNT];
	uint64_t allocations;
	uint64_t collectives; /* collective descriptions (NCCL kernels) */
	uint64_t overheads;
	uint64_t processes;
	uint64_t devices;
	uint64_t streams;
	uint64_t threads;
	/* First op start, last op end, and their distance; all 0 without ops. */
	int64_t first_ns;
	int64_t last_ns;
	int64_t span_ns;
	uint64_t dropped;
	uint64_t warnings;      /* distinct warning kinds */
	uint64_t warning_total; /* occurrences over all kinds */
};

/* Fill `s` (zeroed first) from a finished trace. */
gs_status gs_summary_compute(const struct gs_trace *t, struct gs_summary *s);

/* Human-readable summary, one "key: value" line per item. */
gs_status gs_summary_write_text(FILE *out, const struct gs_summary *s);

/*
 * One JSON object (schema "gpuscope.info/1") followed by a newline. Integers
 * are written exactly (no floating point); strings are escaped, invalid
 * UTF-8 bytes become U+FFFD.
 */
gs_status gs_summary_write_json(FILE *out, const struct gs_summary *s);

/*
 * One loading warning as text: the message, then " (N times)" when it
 * occurred more than once and the message does not already give N (the
 * importers write counts into their messages, the trace model does not).
 * Always NUL-terminates; returns buf.
 */
const char *gs_warning_format(const struct gs_warning *w, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_SUMMARY_H */
