/* SPDX-License-Identifier: MIT */
/* The in-memory trace's accessors and lookups (gpuscope/trace.h). */
#include "trace_priv.h"

#include <gpuscope/search.h>

/* ---- accessors ---- */

const char *gs_trace_string(const struct gs_trace *t, uint32_t id)
{
	return gs_strtab_get(&t->strings, id);
}

size_t gs_trace_string_count(const struct gs_trace *t)
{
	return t->strings.count;
}

#define ACCESSOR(type, name)                                                                       \
	const type *gs_trace_##name(const struct gs_trace *t, size_t *n)                           \
	{                                                                                          \
		*n = t->n_##name;                                                                  \
		return t->name;                                                                    \
	}

ACCESSOR(struct gs_process, processes)
ACCESSOR(struct gs_device, devices)
ACCESSOR(struct gs_op, ops)
ACCESSOR(struct gs_collective, collectives)

const struct gs_collective *gs_trace_op_collective(const struct gs_trace *t, const struct gs_op *op)
{
	return op->collective && op->collective <= t->n_collectives ?
		       &t->collectives[op->collective - 1] :
		       NULL;
}

const struct gs_launch_cfg *gs_trace_op_launch_cfg(const struct gs_trace *t, const struct gs_op *op)
{
	return op->launch && op->launch <= t->n_launches ? &t->launches[op->launch - 1] : NULL;
}
ACCESSOR(struct gs_api_call, api_calls)
ACCESSOR(struct gs_sync, syncs)
ACCESSOR(struct gs_event_record, event_records)
ACCESSOR(struct gs_allocation, allocations)
ACCESSOR(struct gs_op_alloc, op_allocs)
ACCESSOR(struct gs_range, ranges)

size_t gs_trace_range_count(const struct gs_trace *t, enum gs_range_kind kind)
{
	return (unsigned)kind < GS_RANGE_KIND_COUNT ? t->range_kinds[kind] : 0;
}

const uint32_t *gs_trace_annotation_ranges(const struct gs_trace *t, size_t *n)
{
	*n = t->finished ? t->n_annotations : 0;
	return t->finished ? t->annotations : NULL;
}
ACCESSOR(struct gs_overhead, overheads)
ACCESSOR(struct gs_clock_pair, clock_pairs)
ACCESSOR(struct gs_warning, warnings)
ACCESSOR(struct gs_thread, threads)

const struct gs_stream *gs_trace_streams(const struct gs_trace *t, size_t *n)
{
	*n = t->streams.count;
	return t->streams.streams;
}

uint64_t gs_trace_dropped(const struct gs_trace *t)
{
	return t->dropped;
}

void gs_trace_stream_ops(const struct gs_trace *t, uint32_t s, size_t *first, size_t *count)
{
	if (!t->finished || s >= t->streams.count || !t->stream_count) {
		*first = 0;
		*count = 0;
		return;
	}
	*first = t->stream_first[s];
	*count = t->stream_count[s];
}

const struct gs_device *gs_trace_device(const struct gs_trace *t, uint32_t id)
{
	size_t slot;

	if (!t->device_ix.n)
		return NULL;
	slot = device_slot(t, id);
	return t->device_ix.slots[slot] ? &t->devices[t->device_ix.slots[slot] - 1] : NULL;
}

/* What dev_before compares: the device ranges (by device) with `device`. */
struct dev_key {
	const struct dev_range *ranges;
	uint32_t device;
};

/* Range i is of a device below the one searched for. */
static bool dev_before(const void *ctx, size_t i)
{
	const struct dev_key *k = ctx;

	return k->ranges[i].device < k->device;
}

static const struct dev_range *dev_range_of(const struct gs_trace *t, uint32_t device)
{
	struct dev_key k = {t->by_device, device};
	size_t lo;

	if (!t->finished)
		return NULL;
	lo = gs_partition_point(t->n_by_device, dev_before, &k);
	return lo < t->n_by_device && t->by_device[lo].device == device ? &t->by_device[lo] : NULL;
}

const uint32_t *gs_trace_device_streams(const struct gs_trace *t, uint32_t device, size_t *n)
{
	const struct dev_range *r = dev_range_of(t, device);

	*n = r ? r->stream_count : 0;
	return r ? t->dev_streams + r->stream_first : NULL;
}

const uint32_t *gs_trace_device_syncs(const struct gs_trace *t, uint32_t device, size_t *n)
{
	const struct dev_range *r = dev_range_of(t, device);

	*n = r ? r->sync_count : 0;
	return r ? t->dev_syncs + r->sync_first : NULL;
}

/* ---- joins ---- */

const uint32_t *gs_trace_op_launches(const struct gs_trace *t, size_t *n)
{
	*n = t->finished ? t->n_ops : 0;
	return t->finished ? t->op_launch : NULL;
}

uint32_t gs_trace_op_launch_call(const struct gs_trace *t, size_t op)
{
	return t->finished && op < t->n_ops ? t->op_launch[op] : GS_NO_INDEX;
}

const uint32_t *gs_trace_sync_calls(const struct gs_trace *t, size_t *n)
{
	*n = t->finished ? t->n_syncs : 0;
	return t->finished ? t->sync_call : NULL;
}

uint32_t gs_trace_sync_event_record(const struct gs_trace *t, size_t sync)
{
	return t->finished && t->sync_record && sync < t->n_syncs ? t->sync_record[sync] :
								    GS_NO_INDEX;
}

uint32_t gs_trace_sync_call(const struct gs_trace *t, size_t sync)
{
	return t->finished && sync < t->n_syncs ? t->sync_call[sync] : GS_NO_INDEX;
}

uint32_t gs_trace_stream_device(const struct gs_trace *t, uint32_t stream)
{
	return stream < t->streams.count ? t->streams.streams[stream].device : GS_NO_INDEX;
}

uint32_t gs_trace_op_device(const struct gs_trace *t, size_t op)
{
	return op < t->n_ops ? gs_trace_stream_device(t, t->ops[op].stream) : GS_NO_INDEX;
}

void gs_trace_scan_op_span(const struct gs_trace *t, int64_t *first, int64_t *last)
{
	int64_t lo = 0, hi = 0;

	for (size_t i = 0; i < t->n_ops; i++) {
		if (i == 0 || t->ops[i].start_ns < lo)
			lo = t->ops[i].start_ns;
		if (i == 0 || t->ops[i].end_ns > hi)
			hi = t->ops[i].end_ns;
	}
	*first = lo;
	*last = hi;
}

void gs_trace_op_span(const struct gs_trace *t, int64_t *first, int64_t *last)
{
	if (t->finished) {
		*first = t->op_first_ns;
		*last = t->op_last_ns;
		return;
	}
	gs_trace_scan_op_span(t, first, last);
}
