/* SPDX-License-Identifier: MIT */
/*
 * gpuscope analyzer library (target gs_analyzer): what the command line
 * computes and prints from a loaded trace. Library functions never print
 * errors: they return a gs_status and append causes (gpuscope/format.h).
 *
 * Output functions write to a caller's FILE and return GS_ERR_IO when a
 * write fails (the cause says so, with the errno text of the failed write).
 */
#ifndef GPUSCOPE_ANALYZER_H
#define GPUSCOPE_ANALYZER_H

#include <stdio.h>

#include <gpuscope/format.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Summary (`gpuscope info`)                                                 */
/* ------------------------------------------------------------------------ */

#ifndef GS_API_KIND_COUNT
#define GS_API_KIND_COUNT 2 /* enum gs_api_kind: runtime, driver */
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
	/* All ranges are host-side (NVTX included); by enum gs_range_kind. */
	uint64_t host_ranges;
	uint64_t ranges_by_kind[GS_RANGE_KIND_COUNT];
	uint64_t allocations;
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

/* ------------------------------------------------------------------------ */
/* Dump (`gpuscope dump`)                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Every record of a finished trace as one text line. First the untimed
 * records (processes, devices, streams, in table order), then all timed
 * records (ops, api calls, syncs, event records, allocations, ranges,
 * overheads) merged by time, each line starting with its time in ns:
 *
 *   1707417525512145000 kernel dev=0 stream=7 dur=1000 corr=1482 ...
 *
 * Ties are broken by record kind (in the order above), then end time,
 * correlation id, and finally table index, so the order is total and the
 * output is the same on every run. Strings are quoted; '"', '\\' and
 * control bytes are escaped, so a record never spans two lines.
 * `limit` caps the number of timed lines (0: no cap).
 */
gs_status gs_dump_write(FILE *out, const struct gs_trace *t, size_t limit);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_ANALYZER_H */
