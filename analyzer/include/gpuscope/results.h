/* SPDX-License-Identifier: MIT */
/*
 * gpuscope/results.h: what a built report holds, read-only.
 *
 * gs_report_build and gs_report_build_job (gpuscope/report.h) run the
 * analyses; the sections they produce are the plain structs below, read
 * through the accessors at the end. The text, JSON and HTML writers show
 * these; a program (the Python package, a second front end) reads the same
 * numbers without parsing any output. Nothing here formats or prints.
 *
 * A report of one process holds its devices. A report of a job holds one
 * report per rank, in rank order (gs_results_rank); a job of one rank is
 * that rank's report. Every pointer stays valid until gs_report_destroy.
 * Times are ns on the trace's own clock; names are string ids of the
 * rank's trace (gs_trace_string) unless they are `const char *`.
 */
#ifndef GPUSCOPE_RESULTS_H
#define GPUSCOPE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/breakdown.h>
#include <gpuscope/cudagraph.h>
#include <gpuscope/graph.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/measures.h>
#include <gpuscope/operators.h>
#include <gpuscope/overlap.h>
#include <gpuscope/report.h>
#include <gpuscope/schedule.h>
#include <gpuscope/steps.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/window.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Per-stream totals over the device window (durations clipped to it). */
struct gs_report_stream {
	uint32_t index; /* stream table index */
	int64_t pid;
	uint64_t stream_id;
	uint8_t kind;
	int32_t priority;
	uint64_t ops;
	uint64_t kernels;
	uint64_t copies; /* memcpy and memset */
	int64_t kernel_ns;
	int64_t copy_ns;
	int64_t busy_ns; /* union of its op intervals */
};

/* Kernels of one name on the device: those overlapping the window, their
 * durations clipped to it. The statistics are of those durations: min,
 * median, p95 and max are durations of the name (nearest rank: the p-th
 * of n sorted ascending is the one at rank ceil(p n / 100), so the median
 * of an even count is the lower middle one); mean and std (population
 * standard deviation) are rounded to the ns. */
struct gs_report_kernel {
	uint32_t name; /* string id */
	uint32_t first_op;
	uint64_t count;
	int64_t ns;
	int64_t mean_ns;
	int64_t min_ns;
	int64_t median_ns;
	int64_t p95_ns;
	int64_t max_ns;
	int64_t std_ns;
	uint8_t cls; /* enum gs_kernel_class (gs_measures_kernel_row_class) */
};

/* A listed op of the critical path (gs_schedule.critical_path holds the
 * op indices alone): the op and its time, gs_schedule_op_ns(). */
struct gs_critical_op {
	uint32_t op; /* index into gs_trace_ops() */
	int64_t ns;
};

/* A device's figures over one step's GPU window. */
struct gs_report_step_stat {
	bool has;
	uint64_t ops;
	int64_t window_ns;
	int64_t total_ns[GS_CAT_COUNT];
	int64_t actual_ns;
	int64_t ideal_ns;
	double efficiency;
	uint8_t gap_cause; /* GS_GAP_CAUSE_COUNT: none */
	int64_t gap_cause_ns;
};

/*
 * A finding's data beside its sentences, for the programs that read the
 * JSON (a CI gate, a notebook): how its figure is known, the kind of
 * advice it gives, and the numbers it rests on, each named for its unit
 * (`_ns`, `_share`, `_count`, `_bytes`, plain for a ratio).
 */
#define GS_FINDING_NUMBERS 8

enum gs_evidence {
	GS_EVIDENCE_MEASURED = 0, /* read off the trace */
	GS_EVIDENCE_MODELED = 1,  /* a schedule or what-if computed from it */
	GS_EVIDENCE_NONE = 2,     /* a property of the trace, no time at stake */
};

struct gs_finding_number {
	const char *key; /* static */
	double value;
};

struct gs_finding_data {
	uint8_t evidence;   /* enum gs_evidence */
	const char *advice; /* static: the kind of advice ("fuse_kernels", ...) */
	uint8_t n;
	struct gs_finding_number num[GS_FINDING_NUMBERS];
};

const char *gs_evidence_name(unsigned e);

/* One finding: what was seen (with numbers) and what to do about it. Its
 * two sentences hold their durations as marks, for each writer to write
 * out in its own way (gs_dur_sentence, gpuscope/text.h: "us" or "µs"). */
struct gs_report_finding {
	const char *kind; /* static: "idle", "sync", "exposed_copy", ... */
	int64_t ns;       /* the time at stake; findings are ranked by it */
	char *text;       /* with duration marks */
	char *advice;     /* likewise */
	struct gs_finding_data data;
};

struct gs_report_device {
	uint32_t device;
	const char *name; /* from the device record; "" when unknown */
	const char *uuid; /* likewise */
	bool default_window;
	uint64_t ops; /* ops of the device in the window */
	uint64_t op_kinds[GS_OP_KIND_COUNT];
	struct gs_breakdown b;

	/* The ideal schedule (gs_schedule_compute): its per-op ideal starts
	 * and its whole critical path; slot_bound_by, slot_pipelined_start
	 * and slot_share are not kept (NULL). */
	struct gs_schedule sched;
	/* From the schedule. */
	int64_t actual_ns;
	int64_t dependency_bound_ns;
	int64_t ideal_ns;
	double efficiency;       /* as reported: see enum gs_report_eff */
	uint8_t efficiency_kind; /* enum gs_report_eff */
	/* Ops whose in-edges the schedule dropped to break a dependency cycle
	 * (gs_schedule.broken_cycles): 0 in a consistent trace. */
	uint64_t broken_cycles;
	/* The schedule's invariants, checked (gs_schedule_check). */
	struct gs_invariants inv;
	int64_t critical_lead_ns;
	/* The critical path's ops listed: the `rows` longest (ties: the
	 * earlier), in path order, each with its position on the path
	 * (critical_step, from 0); critical_count ops are on the path. */
	struct gs_critical_op *critical;
	size_t *critical_step;
	/* Indices into `critical`, longest first (ties: the earlier): the
	 * order of the text and HTML tables. */
	size_t *critical_rank;
	size_t n_critical;
	size_t critical_count;
	int64_t critical_ns; /* sum of all the critical ops' durations */
	struct gs_what_if pipelined;
	uint32_t copy_engines[GS_COPY_KIND_COUNT];
	/* The device record gives what occupancy needs (SM count, a known
	 * compute capability). */
	bool sched_device_known;
	/* actual - ideal by cause (gs_schedule_gap; its host pieces freed),
	 * and the host ranges behind the host-bound part (gap_host: shares
	 * of gap.host_charged_ns). */
	struct gs_gap gap;
	struct gs_host_ranges gap_host;
	/* Per step of the report (r->steps), this device's figures over the
	 * step's GPU window (has: the step has one, and is one of the first
	 * n_step_figures). */
	struct gs_report_step_stat *step_stats;
	size_t n_step_figures;
	/* Ops in the window by the constraint that bound their actual start,
	 * and the summed delays (actual - ideal start, when positive). */
	uint64_t bound_ops[GS_BOUND_COUNT];
	int64_t bound_delay_ns[GS_BOUND_COUNT];

	/* Streams with ops in the window. */
	size_t active_streams;
	/* The schedules are optimistic: ops on two or more streams and no
	 * cross-stream synchronization recorded in the trace at all (no event
	 * record, stream wait, host sync or default-stream edge), so the ideal
	 * runs every stream from the window start. */
	bool optimistic;

	/* The first `rows` missed overlaps, ranked by exposed_ns, of
	 * missed_count; the sums and counts below are over all of them. */
	struct gs_missed_overlap *missed;
	size_t n_missed;
	size_t missed_count;
	int64_t missed_exposed_ns;
	int64_t missed_hideable_ns;
	uint64_t missing_count[3]; /* by condition bit position */
	uint64_t unknown_count[3]; /* likewise, conditions of unknown evidence */
	/* Possible missed overlaps (a condition unknown: hideable_ns is an
	 * upper bound), and their hideable time. */
	uint64_t n_possible;
	int64_t possible_hideable_ns;

	struct gs_cudagraph_candidate *cands; /* ranked by exposed_launch_ns */
	size_t n_cands;
	/* The CUDA Graph replay what-if (gpuscope/whatif.h): every candidate
	 * together (name NULL without candidates), and each of the first
	 * GS_REPLAY_MAX_CANDIDATES alone (replay_done says which). */
	struct gs_what_if replay;
	struct gs_what_if *cand_replay;
	bool *cand_replay_done;

	struct gs_report_stream *streams;
	size_t n_streams;
	struct gs_report_kernel *kernels; /* ranked by ns */
	size_t n_kernels;

	/* Communication kernels (NCCL / RCCL, by name): their summed time,
	 * the union of their intervals, and the part of that union with no
	 * other kernel running. */
	uint64_t comm_kernels;
	int64_t comm_ns;
	int64_t comm_union_ns;
	int64_t comm_exposed_ns;

	/* Copies by host memory: pageable ones (their host thread blocks). */
	uint64_t pageable_copies;
	uint64_t pageable_by_dir[GS_COPY_KIND_COUNT];

	/* Sync time (the breakdown's sync segments) overlapped by each API
	 * call name, on any host thread; ranked, longest first. */
	struct gs_host_call_time *sync_calls;
	size_t n_sync_calls;

	/* Waits whose consumer runs on this device in the window
	 * (indices into gs_report.waits, in its ranked order): the first
	 * `rows` of wait_count; wait_ns and the kind counts are of all. */
	size_t *waits;
	size_t n_waits;
	size_t wait_count;
	int64_t wait_ns;
	uint64_t wait_kind_count[GS_EDGE_KIND_COUNT];

	struct gs_report_finding *findings; /* ranked by ns */
	size_t n_findings;

	/* Annotations, launch delay, queue, bandwidth, kernel classes. */
	struct gs_measures measures;
	/* GPU time per host operator. */
	struct gs_operators operators;
};

/*
 * The efficiency the report gives (ideal_ns / actual_ns), never
 * above 1 (report.c says why):
 *   EXACT    ideal_ns / actual_ns, in [0, 1] (1 when actual_ns is 0);
 *   BOUNDED  the ideal schedule is longer than the recorded run (the run
 *            started an op before an edge allowed): given as 1, flagged;
 *   CYCLES   the schedule broke dependency cycles (broken_cycles > 0): not
 *            available (NaN): text and HTML print "n/a", JSON null.
 */
enum gs_report_eff {
	GS_REPORT_EFF_EXACT = 0,
	GS_REPORT_EFF_BOUNDED = 1,
	GS_REPORT_EFF_CYCLES = 2,
};

/* ---- accessors ---- */

/* The inputs a report was read from, as named on the command line, in
 * order (out of range: NULL), and the name of their format ("" when not
 * known). A job's report: every rank's inputs. */
size_t gs_results_input_count(const struct gs_report *r);
const char *gs_results_input(const struct gs_report *r, size_t i);
const char *gs_results_format(const struct gs_report *r);

/* The job (gpuscope/import.h: its ranks, clock groups and warnings) of a
 * job's report; NULL for a rank's report. */
struct gs_job;
const struct gs_job *gs_results_job(const struct gs_report *r);
/* The job analysis of a job's report of two or more ranks (opaque: read
 * through the gs_results_* of the job below, gpuscope/job_summary.h and
 * gpuscope/report_parts.h); NULL without one. */
struct gs_job_analysis;
const struct gs_job_analysis *gs_results_job_analysis(const struct gs_report *r);

/* The window the report was asked for (--window, or the span of the steps
 * it selected), absolute ns on the trace's clock, in *out: false without
 * one (each device then has its own default window). */
bool gs_results_window(const struct gs_report *r, struct gs_window *out);

/* Entries kept in each per-op list (--rows; the lists' counts and totals
 * are of all). */
size_t gs_results_rows(const struct gs_report *r);

/* The cost per graph node (ns) the CUDA Graph replay what-if assumes. */
int64_t gs_results_graph_node_ns(const struct gs_report *r);

/* The MPI processes that made the report (gpuscope-mpi); 0 otherwise. */
size_t gs_results_mpi_processes(const struct gs_report *r);

/* The ranks of a report: a job's, in rank order, or the report itself as
 * its only rank. Out of range: NULL. */
size_t gs_results_rank_count(const struct gs_report *r);
const struct gs_report *gs_results_rank(const struct gs_report *r, size_t i);

/* The process a rank's report is of, as its job numbered it. */
struct gs_results_process {
	uint32_t rank;
	bool in_job;          /* one rank of a job of two or more */
	int64_t pid;          /* -1: unknown */
	const char *host;     /* "": unknown */
	const char *input;    /* the input it came from ("" when not known) */
	bool rank_declared;   /* the trace declares its rank (else numbered) */
	uint32_t clock_group; /* the job's clock group of the process */
};
void gs_results_process(const struct gs_report *rank, struct gs_results_process *out);

/* The trace a rank's report was built from (NULL for a job's report). */
const struct gs_trace *gs_results_trace(const struct gs_report *rank);

/* The devices of a rank's report, in device order. */
const struct gs_report_device *gs_results_devices(const struct gs_report *rank, size_t *n);

/* The dependency graph of a rank's report: its edges' counts and what the
 * recording contradicts (NULL for a job's report). */
const struct gs_graph *gs_results_graph(const struct gs_report *rank);

/* The steps the rank's trace marks and which the report covers. */
const struct gs_steps *gs_results_steps(const struct gs_report *rank);

/* Whether the report's window is the span of the steps it selected (each
 * selected step is then analysed), rather than --window or the default. */
bool gs_results_window_from_steps(const struct gs_report *rank);

/* The waits the report lists (consumer on a reported device, in its
 * window), ranked: the first `rows` (gs_report_options) of them. */
size_t gs_results_wait_rows(const struct gs_report *rank);
const struct gs_wait *gs_results_wait(const struct gs_report *rank, size_t i);
/* The i-th of the waits a device lists (gs_report_device.waits, of
 * n_waits; NULL out of range). */
const struct gs_wait *gs_results_device_wait(const struct gs_report *rank,
					     const struct gs_report_device *d, size_t i);
/* All the waits the report would list, of which those rows are the first,
 * and their summed wait time (ns). */
size_t gs_results_wait_count(const struct gs_report *rank);
int64_t gs_results_wait_ns(const struct gs_report *rank);

/* ---- the job analysis of a report of two or more ranks ---- */

/* A communicator: the ranks that run one sequence of collectives
 * together, and what its collectives show. */
struct gs_results_communicator {
	size_t id;
	const char *name; /* "process group 0 (default_pg, 8 ranks)", ... */
	const char *
		key; /* how its kernels were told apart: "process_group", "kind", "point_to_point" */
	const char *group;   /* the process group (NULL unless key is process_group) */
	const char *kind;    /* the collective kind (NULL unless key is kind) */
	uint32_t group_size; /* 0: unknown */
	uint32_t clock_group;
	const char *matched_by; /* how its members' kernels were paired */
	size_t ranks;           /* its members */
	size_t collectives;     /* formed */
	size_t matched;         /* compared: on two ranks or more, overlapping */
	size_t no_overlap;      /* whose kernels did not overlap across ranks */
	size_t within_clock_error;
	int64_t skew_mean_ns, skew_max_ns, wait_ns, transfer_mean_ns;
	double busbw_mean_gbps; /* NaN: unknown */
};

/* One collective compared across the ranks that ran it (largest skew
 * first): the skew between the first and last arrival on the job's
 * aligned clock, and who arrived last. */
struct gs_results_collective {
	size_t communicator; /* its id */
	uint32_t index;      /* its place in the communicator */
	const char *name;
	size_t ranks; /* that ran it */
	int64_t skew_ns;
	bool compared;           /* waits, skew and last rank counted */
	bool within_clock_error; /* the skew is within the clocks' error: no last rank */
	uint32_t last_rank;      /* when compared */
	int64_t clock_error_ns;
	int64_t transfer_ns;
	int64_t bytes;                 /* -1: unknown */
	double algbw_gbps, busbw_gbps; /* NaN: unknown */
};

/* A step number across the ranks that ran it; each rank's time is on its
 * own clock, the span on the job's aligned one (span_known). */
struct gs_results_job_step {
	uint64_t number;
	size_t ranks;
	bool analysed; /* on every one of them */
	bool partial;  /* on one of them */
	int64_t min_ns, median_ns, max_ns;
	uint32_t min_rank, median_rank, max_rank;
	bool slow; /* the max is over 1.2x the median */
	bool span_known;
	int64_t span_ns, span_error_ns;
	uint32_t last_rank;
	int64_t last_after_median_ns;
	const char *slowest_gap_cause; /* NULL: none */
	int64_t slowest_gap_cause_ns;
	double efficiency_min; /* NaN: no rank has figures */
	uint32_t efficiency_min_rank;
};

/* A rank of a job's report as the job's head counts it: from the rank's
 * report where the job's report holds it, else from the rank's summary in
 * its job analysis (a shell's, gpuscope/job_summary.h); the same numbers
 * either way. */
struct gs_results_job_rank {
	uint32_t rank;
	const char *host; /* "": unknown */
	uint64_t ops;     /* in its trace */
	uint64_t dropped_records;
	uint64_t streams;
	size_t gpus; /* its devices with ops (gs_results_job_rank_device) */
};
/* The ranks counted: those the report holds, else its summaries (0 for a
 * rank's report, or a shell without a job analysis). */
size_t gs_results_job_rank_count(const struct gs_report *job);
bool gs_results_job_rank(const struct gs_report *job, size_t i, struct gs_results_job_rank *out);
/* The device of the k-th GPU of rank i (UINT32_MAX out of range). */
uint32_t gs_results_job_rank_device(const struct gs_report *job, size_t i, size_t k);
/* The notes of rank i on what its trace could not show, each to fn with its
 * label ("caution", "warning" or "note"), in the order the text report
 * prints them (gpuscope/report_phrases.h, gs_report_notes). */
void gs_results_job_rank_notes(const struct gs_report *job, size_t i,
			       void (*fn)(void *ctx, const char *label, const char *text),
			       void *ctx);

/* Counts are 0, and the getters false, for a report of one rank. */
size_t gs_results_communicator_count(const struct gs_report *job);
bool gs_results_communicator(const struct gs_report *job, size_t i,
			     struct gs_results_communicator *out);
size_t gs_results_collective_count(const struct gs_report *job);
bool gs_results_collective(const struct gs_report *job, size_t i,
			   struct gs_results_collective *out);
size_t gs_results_job_step_count(const struct gs_report *job);
bool gs_results_job_step(const struct gs_report *job, size_t i, struct gs_results_job_step *out);

/* The id an op is reported under: its correlation id when nonzero, else
 * its index. */
uint64_t gs_report_op_id(const struct gs_trace *t, uint32_t op);

/* The device an op runs on, from its stream (UINT32_MAX if out of range). */
uint32_t gs_report_op_device(const struct gs_trace *t, uint32_t op);

/* Stream id of an op's stream (0 when out of range). */
uint64_t gs_report_op_stream(const struct gs_trace *t, uint32_t op);

/* "measured", "modeled" or "none" (enum gs_evidence). */
const char *gs_evidence_name(unsigned e);

#ifdef __cplusplus
}
#endif

#endif
