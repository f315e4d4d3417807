/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the schedule code: schedule.c (schedules and
 * the pipelined_batches what-if), overlap.c (missed overlap) and
 * candidates.c (CUDA Graph candidates).
 */
#ifndef GS_ANALYZER_SCHEDULE_PRIV_H
#define GS_ANALYZER_SCHEDULE_PRIV_H

#include <gpuscope/graph.h>
#include <gpuscope/schedule.h>
#include <gpuscope/trace_model.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* gs_schedule_slot, with the slot range found stored in *hint (left as it
 * is when op has no slot). */
uint32_t gs_sched_slot_search(const struct gs_schedule *s, uint32_t op, size_t *hint);

/*
 * gs_schedule_slot(s, op), the range of the previous answer (*hint; any
 * value to begin with) tried first: ops met stream by stream, or an op's
 * predecessors on its own stream, take no search. The ranges are sorted
 * and disjoint, so the answer is the same.
 */
static inline uint32_t gs_sched_slot_near(const struct gs_schedule *s, uint32_t op, size_t *hint)
{
	if (*hint < s->n_slot_ranges) {
		const struct gs_schedule_range *sr = &s->slot_ranges[*hint];

		if (op >= sr->first && op - sr->first < sr->count)
			return (uint32_t)(sr->slot + (op - sr->first));
	}
	return gs_sched_slot_search(s, op, hint);
}

/* Device of an op through a borrowed stream table (UINT32_MAX: unknown). */
static inline uint32_t gs_sched_device(const struct gs_stream *streams, size_t n_streams,
				       const struct gs_op *op)
{
	return op->stream < n_streams ? streams[op->stream].device : UINT32_MAX;
}

/*
 * Whether an op of the device belongs to a schedule's op set: every op of
 * the device by default, else the ops that start in [w0, w1).
 */
static inline bool gs_sched_in_window(const struct gs_op *op, bool window_set, int64_t w0,
				      int64_t w1)
{
	return !window_set || (op->start_ns >= w0 && op->start_ns < w1);
}

/*
 * The delay of `op`, slot k: its actual start - its ideal start (0 where
 * the ideal is the recorded run), 0 for an op of the device outside the op
 * set, which has no ideal start. Derived, not kept: 8 bytes an op fewer at
 * the schedule's peak.
 */
static inline int64_t gs_sched_slot_delay(const struct gs_schedule *s, const struct gs_op *op,
					  uint32_t k)
{
	if (!gs_sched_in_window(op, s->window_set, s->window_start, s->window_end))
		return 0;
	return op->start_ns - s->slot_ideal_start[k];
}

static inline bool gs_sched_is_htod(const struct gs_op *op)
{
	return op->kind == GS_OP_MEMCPY && op->copy_kind == GS_COPY_HTOD;
}

/*
 * The batch model of the pipelined_batches what-if: op i starts a batch when it is a
 * host-to-device copy and the op before it on its stream is device work
 * (anything but a host-to-device copy). The first op of a stream starts
 * one too but has no stream_order edge into it, so it is not flagged here.
 * Ops are those of a finished trace (grouped by stream). O(N).
 */
static inline bool gs_sched_batch_start(const struct gs_op *ops, size_t i)
{
	return i > 0 && gs_sched_is_htod(&ops[i]) && ops[i - 1].stream == ops[i].stream &&
	       !gs_sched_is_htod(&ops[i - 1]);
}

/* The copy's host side memory (HtoD: source, DtoH: destination; HtoH:
 * pageable if either side is). GS_MEM_DEVICE when there is no host side. */
static inline uint8_t gs_sched_host_mem(const struct gs_op *op)
{
	switch (op->copy_kind) {
	case GS_COPY_HTOD:
		return op->src_mem;
	case GS_COPY_DTOH:
		return op->dst_mem;
	case GS_COPY_HTOH:
		if (op->src_mem == GS_MEM_PAGEABLE || op->dst_mem == GS_MEM_PAGEABLE)
			return GS_MEM_PAGEABLE;
		if (op->src_mem == GS_MEM_UNKNOWN || op->dst_mem == GS_MEM_UNKNOWN)
			return GS_MEM_UNKNOWN;
		return GS_MEM_PINNED;
	case GS_COPY_UNKNOWN:
		return GS_MEM_UNKNOWN;
	default:
		return GS_MEM_DEVICE;
	}
}

/*
 * A sync_copy edge whose producer is a copy with pageable host memory: the
 * host waited because the memory was pageable. The what-if assumes pinned
 * memory (a precondition it lists) and drops it; the missed-overlap search
 * leaves it to the pinned_memory condition rather than to independent.
 */
static inline bool gs_sched_pageable_sync(const struct gs_op *ops, const struct gs_edge *e)
{
	return e->kind == GS_EDGE_SYNC_COPY && ops[e->from].kind == GS_OP_MEMCPY &&
	       gs_sched_host_mem(&ops[e->from]) == GS_MEM_PAGEABLE;
}

/* A kernel running in a schedule being built: when it ends, its share. */
struct gs_kernel_run {
	int64_t end;
	uint32_t share;
};

/*
 * The kernels of a schedule being built, placed one by one in the recorded
 * start order: each starts at the first moment at or after it is ready,
 * and after the kernel placed before it started, when its share fits
 * beside those still running (a min-heap by end; `run` holds as many as
 * will be placed). In that order, a kernel of a run that kept every edge
 * starts no later than it did: at its recorded start the kernels still
 * running here started no later and end no later than they did, so they
 * were running then too, and the recorded run fitted them with it under
 * the capacity.
 */
struct gs_kernel_lane {
	struct gs_kernel_run *run;
	size_t n;
	uint64_t used;
	int64_t last; /* start of the kernel placed last */
};

/* The start of a kernel of `dur` ns and `share` (0: none, starts when
 * ready), ready at `ready`, under capacity `cap`. */
int64_t gs_sched_kernel_place(struct gs_kernel_lane *l, uint64_t cap, int64_t ready, int64_t dur,
			      uint32_t share);

/*
 * The copy engines of a schedule being built: per direction, a min-heap of
 * the moments each engine frees (free[first[d]] to free[first[d + 1]]).
 */
struct gs_copy_engines {
	int64_t *free;
	size_t first[GS_COPY_KIND_COUNT + 1];
};

/* `count` engines per direction, all free at w0; no more are kept than
 * `copies` could use (a device record may claim four billion engines: the
 * schedule is the same with one per copy, found by fuzz_nsys). */
gs_status gs_sched_engines_init(struct gs_copy_engines *e, const uint32_t *count,
				const uint32_t *copies, int64_t w0);

/* Start a copy of direction `dir` and `dur` ns, ready at `ready`, on the
 * engine of `dir` that frees first; returns its start. */
int64_t gs_sched_engines_take(struct gs_copy_engines *e, unsigned dir, int64_t ready, int64_t dur);

/* Whether the device's per-SM limits are known (an SM count and a compute
 * capability in occupancy.c's table). */
bool gs_sched_device_known(const struct gs_device *d);

/* The share of device `d` a kernel launched with `lc` holds while it runs,
 * in GS_SHARE_UNIT units (1 to GS_SHARE_UNIT); 0 when it cannot be told. */
uint32_t gs_sched_kernel_share(const struct gs_device *d, const struct gs_launch_cfg *lc);

#endif /* GS_ANALYZER_SCHEDULE_PRIV_H */
