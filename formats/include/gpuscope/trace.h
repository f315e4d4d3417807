/* SPDX-License-Identifier: MIT */
/*
 * gpuscope in-memory trace (target gs_format): the records of one or more
 * sources in flat arrays, filled through its sink, then sorted, indexed and
 * joined by gs_trace_finish for the analyses and exporters.
 */
#ifndef GPUSCOPE_TRACE_H
#define GPUSCOPE_TRACE_H

#include <gpuscope/error.h>
#include <gpuscope/trace_model.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_sink;
struct gs_trace;

/* Counted warnings an importer (or the trace) raised while loading. */
struct gs_warning {
	const char *message;
	uint64_t count;
	uint8_t kind; /* enum gs_warning_kind */
};

/* A host thread and its API calls, contiguous in the api-call array. */
struct gs_thread {
	int64_t pid;
	int64_t tid;
	size_t first_api; /* index into gs_trace_api_calls() */
	size_t api_count;
};

gs_status gs_trace_create(struct gs_trace **out);
void gs_trace_destroy(struct gs_trace *t);

/* The sink that fills this trace. Valid until the trace is destroyed. */
struct gs_sink *gs_trace_borrow_sink(struct gs_trace *t);

/*
 * Sort and index after loading: ops grouped by stream and sorted by start
 * within each stream; api calls grouped by (pid, tid) and sorted by start;
 * syncs, event records and ranges sorted by start. Idempotent.
 */
gs_status gs_trace_finish(struct gs_trace *t);

/* String table. gs_trace_string returns "" for GS_NO_STRING, "?" for an id
 * out of range. */
const char *gs_trace_string(const struct gs_trace *t, uint32_t id);
size_t gs_trace_string_count(const struct gs_trace *t);
gs_status gs_trace_intern(struct gs_trace *t, const char *str, size_t len, uint32_t *id);

/* Record arrays (borrowed; valid until the next mutation). */
const struct gs_process *gs_trace_processes(const struct gs_trace *t, size_t *n);
const struct gs_device *gs_trace_devices(const struct gs_trace *t, size_t *n);
const struct gs_stream *gs_trace_streams(const struct gs_trace *t, size_t *n);
const struct gs_op *gs_trace_ops(const struct gs_trace *t, size_t *n);
const struct gs_collective *gs_trace_collectives(const struct gs_trace *t, size_t *n);
/* The collective of an op (NULL when it has none). */
const struct gs_collective *gs_trace_op_collective(const struct gs_trace *t,
						   const struct gs_op *op);
/* How an op of this trace was launched (NULL when all is zero: a copy not
 * launched from a graph, or a kernel whose source gave nothing). Identical
 * values share one entry. */
const struct gs_launch_cfg *gs_trace_op_launch_cfg(const struct gs_trace *t,
						   const struct gs_op *op);
const struct gs_api_call *gs_trace_api_calls(const struct gs_trace *t, size_t *n);
const struct gs_sync *gs_trace_syncs(const struct gs_trace *t, size_t *n);
const struct gs_event_record *gs_trace_event_records(const struct gs_trace *t, size_t *n);
const struct gs_allocation *gs_trace_allocations(const struct gs_trace *t, size_t *n);
const struct gs_op_alloc *gs_trace_op_allocs(const struct gs_trace *t, size_t *n);
const struct gs_range *gs_trace_ranges(const struct gs_trace *t, size_t *n);
/* How many of the trace's ranges are of this kind. O(1). */
size_t gs_trace_range_count(const struct gs_trace *t, enum gs_range_kind kind);
/* After finish: the indices into gs_trace_ranges() of the annotation
 * ranges (user annotations, NVTX, GPU annotations), ascending; NULL and 0
 * when there are none or the trace is not finished. */
const uint32_t *gs_trace_annotation_ranges(const struct gs_trace *t, size_t *n);
const struct gs_overhead *gs_trace_overheads(const struct gs_trace *t, size_t *n);
const struct gs_clock_pair *gs_trace_clock_pairs(const struct gs_trace *t, size_t *n);
const struct gs_warning *gs_trace_warnings(const struct gs_trace *t, size_t *n);
uint64_t gs_trace_dropped(const struct gs_trace *t);

/* After gs_trace_finish: the ops of stream `s` are
 * ops[first .. first + count). */
void gs_trace_stream_ops(const struct gs_trace *t, uint32_t s, size_t *first, size_t *count);
/* After gs_trace_finish: host threads, ordered by (pid, tid). */
const struct gs_thread *gs_trace_threads(const struct gs_trace *t, size_t *n);
/* The device record with id `id`, or NULL. O(1). */
const struct gs_device *gs_trace_device(const struct gs_trace *t, uint32_t id);
/* After gs_trace_finish: the streams (indices, ascending) and the syncs
 * (indices into gs_trace_syncs(), ascending) of device `device`, so that
 * the work on one device reads its own records only. O(log D). *n is 0
 * (and the result NULL) for a device with none. */
const uint32_t *gs_trace_device_streams(const struct gs_trace *t, uint32_t device, size_t *n);
const uint32_t *gs_trace_device_syncs(const struct gs_trace *t, uint32_t device, size_t *n);

/*
 * Joins, computed once by gs_trace_finish (docs/design.md, The trace
 * model). An op's launch call and a sync's call are the API call with the
 * record's correlation id. When several calls carry the id (the runtime and
 * the driver row of one call, a record duplicated, several processes merged
 * into one trace with ids that collide) one is chosen by this rule, in
 * order: for a sync, a call of the sync's own thread (pid, tid); a call of
 * the record's process (an op's is its stream's; not applied for pid <= 0);
 * a call that started no later than the record; the latest start; the
 * earliest end (the inner of nested calls); the lowest index. Then a call
 * of the chosen one's thread with the same id that encloses it (a runtime
 * call around its driver call) replaces it, the outermost first. Indices
 * are into gs_trace_api_calls(); GS_NO_INDEX when no call has the id (or
 * the id is 0), and for a trace not finished (an array is then NULL, *n 0).
 */
const uint32_t *gs_trace_op_launches(const struct gs_trace *t, size_t *n); /* per op */
uint32_t gs_trace_op_launch_call(const struct gs_trace *t, size_t op);
const uint32_t *gs_trace_sync_calls(const struct gs_trace *t, size_t *n); /* per sync */
uint32_t gs_trace_sync_call(const struct gs_trace *t, size_t sync);
/*
 * The event record an event sync or stream wait names, as an index into
 * gs_trace_event_records(), computed once by gs_trace_finish: the latest
 * record with the sync's sync id (cudaEventSyncId), else the latest with
 * its event correlation, else, for a sync that gives neither, the latest
 * record of its event id in its process and context (the waiting stream's,
 * the device's for a host wait) whose correlation is below the sync's.
 * GS_NO_INDEX when the trace holds none (or it is not finished, or the sync
 * is of another kind). A stream wait without its record links nothing
 * unless it carries the recording stream and the record's correlation
 * itself; the trace counts those in one loading warning.
 */
uint32_t gs_trace_sync_event_record(const struct gs_trace *t, size_t sync);
/* The device id of a stream (by index) and of an op (by index into
 * gs_trace_ops()); GS_NO_INDEX for an index out of range. O(1). */
uint32_t gs_trace_stream_device(const struct gs_trace *t, uint32_t stream);
uint32_t gs_trace_op_device(const struct gs_trace *t, size_t op);

/* Earliest start and latest end over GPU ops (0, 0 when there are none). */
void gs_trace_op_span(const struct gs_trace *t, int64_t *first, int64_t *last);

/* Add a warning directly (importers use the sink's warning callback);
 * `kind`: enum gs_warning_kind. */
gs_status gs_trace_add_warning(struct gs_trace *t, const char *msg, uint64_t count, unsigned kind);

/* Replay every record of a finished trace into a sink (strings, streams,
 * processes, devices first). Used by convert and by tests. */
gs_status gs_trace_replay(const struct gs_trace *t, struct gs_sink *sink);
/*
 * Append the records of `src`, a trace not yet finished, to `dst`, not
 * finished either: `dst` ends as if the source `src` was loaded from had
 * been loaded into `dst` directly (the same string ids, stream indexes,
 * record order, warnings and dropped-record counts). For loading several
 * files at once, each into a trace of its own (gs_trace_load_all).
 */
gs_status gs_trace_append(struct gs_trace *dst, const struct gs_trace *src);

/* CPUs this process may run on (its affinity mask; 1 when unknown). Work
 * is split over more threads only when this is 2 or more, and never so
 * that a result depends on it. */
unsigned gs_cpu_count(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_TRACE_H */
