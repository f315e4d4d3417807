/* SPDX-License-Identifier: MIT */
/*
 * gpuscope importers (target gs_import): recognise a trace by its content
 * and load it into the trace model. Kineto / PyTorch-profiler Chrome-trace
 * JSON (.json, .json.gz) is parsed event by event with bounded memory.
 */
#ifndef GPUSCOPE_IMPORT_H
#define GPUSCOPE_IMPORT_H

#include <gpuscope/format.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_input_format {
	GS_INPUT_UNKNOWN = 0,
	GS_INPUT_GSCOPE = 1,
	GS_INPUT_KINETO = 2, /* Chrome-trace JSON, plain or gzip */
	GS_INPUT_NSYS = 3,   /* Nsight Systems SQLite export */
};

const char *gs_input_format_name(enum gs_input_format f);

/*
 * Recognise a file by its first bytes (gzip is looked inside). Returns
 * GS_OK with *fmt set (GS_INPUT_UNKNOWN when nothing matches), or an I/O
 * error naming the file.
 */
gs_status gs_detect_format(const char *path, enum gs_input_format *fmt);

/* Limits that keep a hostile input from running away with memory. */
struct gs_import_limits {
	uint32_t max_depth;        /* JSON nesting (default 64) */
	uint64_t max_event_bytes;  /* one JSON event (default 16 MiB) */
	uint64_t max_string_bytes; /* one string (default 1 MiB) */
	uint32_t max_streams;      /* distinct streams (default 65536) */
	uint64_t max_records;      /* records of all kinds (default 2^31) */
};

/* Fill with the defaults. */
void gs_import_limits_default(struct gs_import_limits *lim);

struct gs_load_options {
	unsigned reader_flags;                 /* enum gs_reader_flags */
	const struct gs_import_limits *limits; /* NULL: defaults */
};

/*
 * Stream a Kineto / PyTorch-profiler trace (plain or gzip JSON) into a sink.
 * Unknown categories are skipped and counted; impossible values are dropped
 * and counted; both reach the sink as warnings.
 */
gs_status gs_import_kineto(const char *path, const struct gs_import_limits *lim,
			   struct gs_sink *sink);
/* The same over a memory buffer (plain JSON or gzip bytes). */
gs_status gs_import_kineto_mem(const void *data, size_t size, const char *name,
			       const struct gs_import_limits *lim, struct gs_sink *sink);

/*
 * Load any supported trace, recognised by content, into an existing trace
 * (several inputs merge into one; call gs_trace_finish after the last).
 * `opts` and `fmt` may be NULL.
 */
gs_status gs_trace_load_into(const char *path, const struct gs_load_options *opts,
			     struct gs_trace *t, enum gs_input_format *fmt);

/* Load any supported trace, recognised by content, into a finished trace.
 * `opts` may be NULL. */
gs_status gs_trace_load(const char *path, const struct gs_load_options *opts, struct gs_trace **out,
			enum gs_input_format *fmt);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_IMPORT_H */
