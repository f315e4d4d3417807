/* SPDX-License-Identifier: MIT */
/*
 * Schedules of one device's ops over the dependency graph: the recorded
 * run, the dependency bound with its critical path, the ideal schedule with
 * the copy engines, the pipelined_batches what-if, and the invariants every
 * schedule of a consistent trace keeps.
 */
#ifndef GPUSCOPE_SCHEDULE_H
#define GPUSCOPE_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/format.h>
#include <gpuscope/graph.h>
#include <gpuscope/window.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What bound an op's actual start. */
enum gs_constraint {
	GS_BOUND_NONE = 0, /* first op: nothing before it */
	GS_BOUND_STREAM_ORDER = 1,
	GS_BOUND_EVENT = 2,
	GS_BOUND_DEFAULT_STREAM = 3,
	GS_BOUND_HOST_SYNC = 4,
	GS_BOUND_SYNC_COPY = 5,
	GS_BOUND_HOST_LAUNCH = 6,
	GS_BOUND_COPY_ENGINE = 7,
	GS_BOUND_DATA = 8,
};
#define GS_BOUND_COUNT 9
const char *gs_constraint_name(unsigned c);

struct gs_critical_op {
	uint32_t op; /* index into gs_trace_ops() */
	int64_t ns;  /* its duration */
};

struct gs_what_if {
	const char *name; /* static: "pipelined_batches" or "cuda_graph_replay" */
	int64_t makespan_ns;
	int64_t saving_ns; /* actual_ns - makespan_ns */
	/* ideal_ns - makespan_ns: what the change adds beyond removing host
	 * and launch cost (the ideal removes those already); 0 or negative
	 * when it is no better than the ideal. */
	int64_t saving_vs_ideal_ns;
	const char *preconditions[4]; /* static strings, e.g. "pinned_memory" */
	size_t n_preconditions;
	size_t batches;
};

/* Ops [first, first + count) of the trace are slots [slot, slot + count). */
struct gs_schedule_range {
	size_t first;
	size_t count;
	size_t slot;
};

/*
 * Schedules of the ops of one device (edges from ops of other devices are
 * kept as constraints satisfied at their recorded end). All start at the
 * window start and use recorded durations.
 *
 * The per-op results are kept per op of the device, not per op of the
 * trace, so that each of many devices costs its own ops: read them by op
 * with gs_schedule_ideal_start() and the others below (0, or
 * GS_BOUND_NONE, for an op not scheduled), or walk the slots.
 */
struct gs_schedule {
	uint32_t device;
	int64_t window_start;
	int64_t actual_ns;
	int64_t dependency_bound_ns;
	int64_t ideal_ns;
	double efficiency;                    /* ideal_ns / actual_ns (1 when actual_ns is 0) */
	struct gs_critical_op *critical_path; /* in time order */
	size_t n_critical;
	/* Per slot: the ops of the device, by slot_ranges (ascending), those
	 * outside the schedule 0 / NONE. */
	struct gs_schedule_range *slot_ranges;
	size_t n_slot_ranges;
	size_t n_slots;
	int64_t *slot_ideal_start;
	int64_t *slot_delay_ns;                    /* actual start - ideal start */
	uint8_t *slot_bound_by;                    /* enum gs_constraint */
	uint32_t copy_engines[GS_COPY_KIND_COUNT]; /* used for the ideal, by direction */
	struct gs_what_if pipelined;
	/* The ops scheduled: those of `device`
	 * (all of them when !window_set, else those starting in
	 * [window_start, window_end)); window_end is the last end otherwise. */
	int64_t window_end;
	bool window_set;
	size_t n_ops;       /* ops of the trace */
	size_t n_scheduled; /* ops in the schedule */
	/* Ops whose in-edges were dropped to break a dependency cycle (the
	 * graph of a consistent trace has none). */
	uint64_t broken_cycles;
	/* Per slot: the start in the pipelined_batches what-if (0 elsewhere). */
	int64_t *slot_pipelined_start;
	/* Most copies of each direction that ran at once in the trace. */
	uint32_t copy_concurrency[GS_COPY_KIND_COUNT];
	/* The time from the window start to the dependency-bound start of the
	 * critical path's first op: 0 unless an op outside the schedule (on
	 * another device of the process, or before the window) held it. The
	 * critical path's durations plus this are dependency_bound_ns. */
	int64_t critical_lead_ns;
};

gs_status gs_schedule_compute(const struct gs_trace *t, const struct gs_graph *g, uint32_t device,
			      const struct gs_window *win, struct gs_schedule *out);
void gs_schedule_fini(struct gs_schedule *s);
/* The slot of op `op` (an index into gs_trace_ops()), GS_NO_INDEX when it
 * is not an op of the device. O(log S) for S streams of the device. */
uint32_t gs_schedule_slot(const struct gs_schedule *s, uint32_t op);
/* The per-op results of op `op`: 0 (GS_BOUND_NONE) when not scheduled. */
int64_t gs_schedule_ideal_start(const struct gs_schedule *s, uint32_t op);
int64_t gs_schedule_delay_ns(const struct gs_schedule *s, uint32_t op);
uint8_t gs_schedule_bound_by(const struct gs_schedule *s, uint32_t op);
int64_t gs_schedule_pipelined_start(const struct gs_schedule *s, uint32_t op);

/*
 * What must hold of every schedule of a consistent trace, checked over a
 * computed one (a violation is a bug in the trace or in gpuscope, never a
 * finding about the program):
 *   - no edge into the schedule joins ops of two processes;
 *   - the ideal schedule starts no op before each of its predecessors
 *     (edges of the graph) has ended (not checked when cycles were broken);
 *   - ideal_ns >= dependency_bound_ns (resources only delay);
 *   - the critical path's durations plus critical_lead_ns equal
 *     dependency_bound_ns.
 */
struct gs_invariants {
	uint64_t cross_process_edges;
	uint64_t early_starts;    /* (edge) where the ideal start precedes its producer's end */
	int64_t early_max_ns;     /* by how much, at most */
	uint32_t early_op;        /* an op that started early (GS_NO_INDEX if none) */
	bool ideal_below_bound;   /* ideal_ns < dependency_bound_ns */
	int64_t critical_path_ns; /* sum of the critical durations + critical_lead_ns */
	bool critical_mismatch;   /* critical_path_ns != dependency_bound_ns */
	uint64_t violations;      /* all of the above that failed, counted */
	/* Of the recording, not of the schedule: edges whose consumer started
	 * before its producer ended in the recorded run (clocks that
	 * disagree, a wait joined to the wrong record), the largest such
	 * overlap and an op that had it. */
	uint64_t actual_early;
	int64_t actual_early_max_ns;
	uint32_t actual_early_op;
	/* Of the recording too: the schedule's host-synchronous copies whose
	 * call returned before the copy ended (gs_graph.returned_early: they
	 * have no sync_copy edges), the most a copy ran past its call's return,
	 * and that copy (GS_NO_INDEX if none). */
	uint64_t returned_early;
	int64_t returned_early_max_ns;
	uint32_t returned_early_op;
};

gs_status gs_schedule_check(const struct gs_trace *t, const struct gs_graph *g,
			    const struct gs_schedule *s, struct gs_invariants *out);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_SCHEDULE_H */
