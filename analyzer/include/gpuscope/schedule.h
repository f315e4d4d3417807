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

#include <gpuscope/graph.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
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

/*
 * How the ideal schedule lets kernels run side by side. Each kernel holds a
 * share of the device while it runs, in units of GS_SHARE_UNIT (the whole
 * device), and kernels run together while their shares fit the capacity.
 * - OCCUPANCY: every kernel's share comes from its launch configuration
 *   against the device's per-SM limits;
 * - AS_RECORDED: no kernel's could be told (no launch configuration, or a
 *   device whose SM count or compute capability is unknown): each holds
 *   1/K of the device, K the most kernels the recorded run had at once;
 * - MIXED: some of each.
 */
enum gs_ideal_rule {
	GS_IDEAL_NO_KERNELS = 0,
	GS_IDEAL_OCCUPANCY = 1,
	GS_IDEAL_AS_RECORDED = 2,
	GS_IDEAL_MIXED = 3,
};
const char *gs_ideal_rule_name(unsigned rule);
#define GS_SHARE_UNIT (1u << 20)

/* An op's time in every schedule, and on the critical path: its recorded
 * duration, never negative. The schedules keep op indices alone, so that
 * the path costs 4 bytes an op: its times are read back from the trace. */
static inline int64_t gs_schedule_op_ns(const struct gs_op *op)
{
	return op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;
}

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
	double efficiency; /* ideal_ns / actual_ns (1 when actual_ns is 0) */
	/* Indices into gs_trace_ops(), in time order; each op's time is
	 * gs_schedule_op_ns(). */
	uint32_t *critical_path;
	size_t n_critical;
	/* Per slot: the ops of the device, by slot_ranges (ascending), those
	 * outside the schedule 0 / NONE. An op's delay (actual start - ideal
	 * start) is not kept: gs_schedule_delay_ns() derives it. */
	struct gs_schedule_range *slot_ranges;
	size_t n_slot_ranges;
	size_t n_slots;
	int64_t *slot_ideal_start;
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
	/*
	 * The device model shared by the ideal and the pipelined what-if:
	 * each kernel's share (per slot, 0 for other ops and zero-length
	 * kernels), the capacity (GS_SHARE_UNIT, or the recorded run's
	 * busiest instant when that was more, so that the recorded run is
	 * always a feasible schedule) and how the shares were found. Kernels
	 * start in the order they started in the recorded run, as copies on
	 * an engine do, each when it is ready and its share fits.
	 */
	uint32_t *slot_share;
	uint64_t kernel_capacity;
	uint8_t ideal_rule;                /* enum gs_ideal_rule */
	uint64_t kernels_by_occupancy;     /* kernels whose share came from occupancy */
	uint64_t kernels_as_recorded;      /* kernels given 1/K */
	uint32_t recorded_kernels_at_once; /* K */
	uint64_t recorded_peak_share;      /* the recorded run's busiest instant */
	/* The list schedule came out longer than the recorded run (possible
	 * only when the recorded run broke an edge) while the dependency bound
	 * did not: the ideal is then the recorded run itself, every op at its
	 * recorded start. */
	bool ideal_is_recorded;
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
/* Its actual start (in trace `t`, the schedule's) - its ideal start. */
int64_t gs_schedule_delay_ns(const struct gs_trace *t, const struct gs_schedule *s, uint32_t op);
uint8_t gs_schedule_bound_by(const struct gs_schedule *s, uint32_t op);
int64_t gs_schedule_pipelined_start(const struct gs_schedule *s, uint32_t op);

/*
 * actual_ns - ideal_ns split into causes that add up to it exactly
 * (docs/design.md, "The gap"). The recorded run's binding chain is walked
 * back from the op that ended last, each op to the producer that ended
 * last before it started; along it, each op's delay (actual start - ideal
 * start) grows or shrinks from its producer's. Growth is charged to what
 * bound the op's start; a shrink (the ideal itself waited there) and the
 * ideal's slack after the chain's last op are taken back from the causes
 * charged last. Time waited inside a collective for other ranks is in
 * both schedules (same durations), so it is no cause here.
 */
enum gs_gap_cause {
	GS_GAP_HOST_BOUND = 0,     /* the host had not launched the op yet */
	GS_GAP_LAUNCH_LATENCY = 1, /* launched, not yet started */
	GS_GAP_HOST_SYNC = 2,      /* relaunching after a host sync drained the device */
	GS_GAP_PAGEABLE_COPY = 3,  /* likewise after a copy from or to pageable memory */
	GS_GAP_STREAM_WAIT = 4,    /* start latency after another stream's op */
	GS_GAP_STREAM_SERIAL = 5,  /* start latency after the op before on the stream */
	GS_GAP_COPY_ENGINE = 6,    /* a copy waited for a busy engine */
	GS_GAP_UNEXPLAINED = 7,    /* started over 20 us after every recorded constraint */
};
#define GS_GAP_CAUSE_COUNT 8
const char *gs_gap_cause_name(unsigned cause);
/* What a cause's time rests on, in words. */
const char *gs_gap_cause_evidence(unsigned cause);

struct gs_gap {
	bool available; /* a schedule without broken cycles, ideal <= actual */
	int64_t gap_ns; /* actual_ns - ideal_ns */
	int64_t ns[GS_GAP_CAUSE_COUNT];
	size_t chain_ops; /* ops on the binding chain */
	/* The host-bound pieces charged, before any was taken back, for the
	 * host ranges behind them: `host_charged_ns` in all. */
	struct gs_host_interval *host;
	size_t n_host;
	int64_t host_charged_ns;
};

/* The gap of a computed schedule (its per-op arrays still there). */
gs_status gs_schedule_gap(const struct gs_trace *t, const struct gs_graph *g,
			  const struct gs_schedule *s, struct gs_gap *out);
void gs_gap_fini(struct gs_gap *gap);

/*
 * What must hold of every schedule of a consistent trace, checked over a
 * computed one (a violation is a bug in the trace or in gpuscope, never a
 * finding about the program):
 *   - no edge into the schedule joins ops of two processes;
 *   - the ideal schedule starts no op before each of its predecessors
 *     (edges of the graph) has ended (not checked when cycles were broken);
 *   - dependency_bound_ns <= ideal_ns (resources only delay), and
 *     ideal_ns <= actual_ns when the recording kept every edge (it is
 *     then a feasible schedule);
 *   - the kernels the ideal runs at once never hold more than the
 *     capacity;
 *   - the critical path's durations plus critical_lead_ns equal
 *     dependency_bound_ns.
 */
struct gs_invariants {
	uint64_t cross_process_edges;
	uint64_t early_starts;  /* (edge) where the ideal start precedes its producer's end */
	int64_t early_max_ns;   /* by how much, at most */
	uint32_t early_op;      /* an op that started early (GS_NO_INDEX if none) */
	bool ideal_below_bound; /* ideal_ns < dependency_bound_ns */
	/* ideal_ns > actual_ns although the recording kept every edge. */
	bool ideal_above_actual;
	/* The most device share the ideal runs at one instant, and whether
	 * it ever exceeds the capacity. */
	uint64_t ideal_peak_share;
	bool over_capacity;
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
