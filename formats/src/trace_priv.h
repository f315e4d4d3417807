/* SPDX-License-Identifier: MIT */
/*
 * Private to the in-memory trace (trace*.c): the gs_trace struct and the
 * helpers its files share. trace.c fills it through the sink; trace_finish.c
 * sorts and indexes it; trace_joins.c joins ops and syncs to their API
 * calls and event records; trace_query.c reads it; trace_replay.c replays
 * it into another sink.
 */
#ifndef GS_TRACE_PRIV_H
#define GS_TRACE_PRIV_H

#include "util.h"

#include <gpuscope/error.h>
#include <gpuscope/hash.h>
#include <gpuscope/sort.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY(type, name)                                                                          \
	type *name;                                                                                \
	size_t n_##name, cap_##name

/* An open-addressing index over records kept in an array of the trace:
 * a slot holds 1 + a record's index (0: empty), found by the record's hash
 * and linear probing, at a load factor of at most one half. */
struct slot_table {
	uint32_t *slots;
	size_t n; /* a power of two, or 0 */
};

struct gs_trace {
	struct gs_sink sink; /* first member: the sink callbacks recover the trace */
	struct gs_strtab strings;
	struct gs_stream_map streams;
	ARRAY(struct gs_process, processes);
	ARRAY(struct gs_device, devices);
	ARRAY(struct gs_op, ops);
	ARRAY(struct gs_collective, collectives);
	/* Launch configurations, each kept once (op.launch is 1 + index),
	 * found by value through launch_ix. */
	ARRAY(struct gs_launch_cfg, launches);
	struct slot_table launch_ix;
	uint32_t launch_last; /* the id interned last: kernels repeat theirs */
	ARRAY(struct gs_api_call, api_calls);
	ARRAY(struct gs_sync, syncs);
	ARRAY(struct gs_event_record, event_records);
	ARRAY(struct gs_allocation, allocations);
	ARRAY(struct gs_op_alloc, op_allocs);
	ARRAY(struct gs_range, ranges);
	/* A copy of each annotation range (user annotations, NVTX, GPU
	 * annotations: few beside the operators), to find them after the
	 * sort without walking every range. */
	ARRAY(struct gs_range, ann_copies);
	ARRAY(struct gs_overhead, overheads);
	ARRAY(struct gs_clock_pair, clock_pairs);
	ARRAY(struct gs_warning, warnings);
	/* Warnings by message (open addressing: index + 1, 0 = empty), so
	 * that a repeated message is found in O(1), not by a scan. */
	uint32_t *warning_slots;
	size_t n_warning_slots;
	ARRAY(struct gs_thread, threads);
	size_t *stream_first; /* per stream, after finish */
	size_t *stream_count;
	struct slot_table device_ix; /* devices by id */
	/* After finish, per device id (by_device[k], ascending ids): its
	 * streams, dev_streams[first .. first + count), and its syncs,
	 * dev_syncs[first .. first + count), both ascending. */
	struct dev_range {
		uint32_t device;
		size_t stream_first, stream_count;
		size_t sync_first, sync_count;
	} * by_device;
	size_t n_by_device;
	uint32_t *dev_streams;
	uint32_t *dev_syncs;
	/* After finish (gs_trace_compute_joins): per op the API call that launched it,
	 * per sync the API call that made it; GS_NO_INDEX when none. */
	uint32_t *op_launch;
	uint32_t *sync_call;
	/* After finish (gs_trace_resolve_event_records): per sync the event record an
	 * event sync or stream wait names; NULL when no sync names one. */
	uint32_t *sync_record;
	/* After finish: the earliest op start and the latest op end (0 and 0
	 * without ops), so that asking for them does not walk every op. */
	int64_t op_first_ns, op_last_ns;
	/* Host ranges by kind (enum gs_range_kind), counted as they come. */
	size_t range_kinds[GS_RANGE_KIND_COUNT];
	/* After finish: the indices of the annotation ranges (user
	 * annotations, NVTX, GPU annotations), ascending. */
	uint32_t *annotations;
	size_t n_annotations;
	uint64_t dropped;
	/* Records refused because their times are impossible, by kind. */
	uint64_t bad_times[4];
	bool finished;
};

enum {
	BAD_OP,
	BAD_API,
	BAD_RANGE,
	BAD_SYNC
};

#define PUSH(t, name, value) GS_VEC_PUSH((t)->name, (t)->n_##name, (t)->cap_##name, (value))

/* For comparators: the first of a record's fields that differ decides. */
#define CMP(a, b)                                                                                  \
	do {                                                                                       \
		if ((a) != (b))                                                                    \
			return (a) < (b) ? -1 : 1;                                                 \
	} while (0)

/* A stable sort by cmp (gpuscope/sort.h): the order glibc's merge-sort
 * qsort gave. */
static inline gs_status trace_sort(void *base, size_t n, size_t size,
				   int (*cmp)(const void *, const void *),
				   uint64_t (*key)(const void *))
{
	struct gs_sort_spec spec = {.size = size, .cmp = cmp, .key = key};

	return gs_sort_records(base, n, &spec) ? gs_nomem() : GS_OK;
}

/* The slot of device `id`, or the empty slot where it goes. */
static inline size_t device_slot(const struct gs_trace *t, uint32_t id)
{
	const struct slot_table *x = &t->device_ix;
	size_t i = gs_hash_u64(id) & (x->n - 1);

	while (x->slots[i] && t->devices[x->slots[i] - 1].id != id)
		i = (i + 1) & (x->n - 1);
	return i;
}

/* Set a warning's count, adding it when new and taking it out at 0
 * (trace.c). */
gs_status gs_trace_set_warning(struct gs_trace *t, const char *msg, uint64_t count, unsigned kind);
/* gs_trace_finish's joins: per op its launch call and per sync its call
 * (t->op_launch, t->sync_call), then per sync the event record it names
 * (t->sync_record) (trace_joins.c). */
gs_status gs_trace_compute_joins(struct gs_trace *t);
gs_status gs_trace_resolve_event_records(struct gs_trace *t);
/* The two above in halves: the joins (or the event records) alone, which
 * touch only their own outputs in the trace, so that they may run beside
 * other work (gs_trace_finish), with the count their warning needs; then
 * the warning, set in the trace's list where the whole would have set it. */
/* With `split`, the ops' loop in halves on this thread and another one
 * (a caller with a second CPU to spare). `scratch` (NULL, or scratch_bytes
 * of memory already touched, taken over and freed) holds the index's work
 * arrays when it has room for them: 12 bytes an API call. */
gs_status trace_joins_compute(struct gs_trace *t, uint64_t *repeats, bool split, void *scratch,
			      size_t scratch_bytes);
gs_status trace_joins_warn(struct gs_trace *t, uint64_t repeats);
gs_status trace_event_records_compute(struct gs_trace *t, uint64_t *unheld);
gs_status trace_event_records_warn(struct gs_trace *t, uint64_t unheld);
/* The earliest op start and the latest op end by a walk of the ops (0 and
 * 0 without ops) (trace_query.c). */
void gs_trace_scan_op_span(const struct gs_trace *t, int64_t *first, int64_t *last);

#endif
