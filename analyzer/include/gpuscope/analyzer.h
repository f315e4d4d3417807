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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/export.h>
#include <gpuscope/format.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/import.h>
#include <gpuscope/measures.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Summary (`gpuscope info`)                                                 */
/* ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------ */
/* Analyses (`gpuscope analyze`, docs/design.md): shared vocabulary          */
/* ------------------------------------------------------------------------ */

/*
 * A time window [start_ns, end_ns). `set` false means "the default": per
 * device, from its first op start to its last op end.
 */
struct gs_window {
	bool set;
	int64_t start_ns;
	int64_t end_ns;
};

/* The device an op runs on (its stream's device). */
uint32_t gs_op_device(const struct gs_trace *t, const struct gs_op *op);

/* Distinct device ids that have ops, ascending. Caller frees *ids. */
gs_status gs_trace_op_devices(const struct gs_trace *t, uint32_t **ids, size_t *n);

/* ------------------------------------------------------------------------ */
/* Breakdown: kernel / copy / sync / idle segments                           */
/* ------------------------------------------------------------------------ */

enum gs_category {
	GS_CAT_KERNEL = 0,
	GS_CAT_COPY = 1,
	GS_CAT_SYNC = 2,
	GS_CAT_IDLE = 3,
};
#define GS_CAT_COUNT 4
const char *gs_category_name(unsigned cat);

/* A maximal interval of one category. Segments are ordered and abut. */
struct gs_segment {
	int64_t start_ns;
	int64_t end_ns;
	uint8_t category;
};

/* Time the launching host thread spent inside one CUDA call while the
 * device was idle waiting for it (host_bound time), by call name. */
struct gs_host_call_time {
	uint32_t name; /* string id in the trace */
	int64_t ns;
	uint64_t count; /* idle gaps it appeared in */
};

struct gs_breakdown {
	uint32_t device;
	int64_t window_start;
	int64_t window_end;
	struct gs_segment *segments;
	size_t n_segments;
	int64_t total_ns[GS_CAT_COUNT]; /* by enum gs_category; sum == window */
	int64_t window_ns;
	uint8_t dominant; /* a lead to check, not a proven bottleneck */
	/* Overlap. */
	int64_t copy_total_ns;         /* union of copy/memset time */
	int64_t copy_hidden_ns;        /* copy time under a kernel */
	int64_t kernel_concurrency_ns; /* time with two or more kernels */
	/* Idle attribution; the three sum to total_ns[GS_CAT_IDLE]. */
	int64_t host_bound_ns;
	int64_t launch_latency_ns;
	int64_t unattributed_ns;
	struct gs_host_call_time *top_host_calls; /* ranked, longest first */
	size_t n_top_host_calls;
	/* host_bound_ns by the host ranges of the launching thread
	 * (gpuscope/hostattr.h): ranges' time + outside_ns == host_bound_ns. */
	struct gs_host_ranges host_ranges;
};

/*
 * The breakdown of one device over `win` (NULL or !set: the default
 * window). A sweep over sorted interval endpoints, O(N log N). A device
 * with no ops in the window gives an all-idle (possibly empty) breakdown.
 */
gs_status gs_breakdown_compute(const struct gs_trace *t, uint32_t device,
			       const struct gs_window *win, struct gs_breakdown *out);
void gs_breakdown_fini(struct gs_breakdown *b);

/* ------------------------------------------------------------------------ */
/* Dependency graph and waits                                                */
/* ------------------------------------------------------------------------ */

enum gs_edge_kind {
	GS_EDGE_STREAM_ORDER = 0,
	GS_EDGE_EVENT = 1,
	GS_EDGE_DEFAULT_STREAM = 2,
	GS_EDGE_HOST_SYNC = 3,
	GS_EDGE_SYNC_COPY = 4,
	GS_EDGE_DATA = 5,
};
#define GS_EDGE_KIND_COUNT 6
const char *gs_edge_kind_name(unsigned kind);

/* An edge between two ops (indices into gs_trace_ops()). */
struct gs_edge {
	uint32_t from;
	uint32_t to;
	uint8_t kind;   /* enum gs_edge_kind */
	uint64_t event; /* event id for event edges (0 if unknown) */
};

/*
 * The graph over all ops of a finished trace. Edges are sorted by
 * (to, from, kind) and deduplicated; in_first has n_ops + 1 entries: the
 * edges into op i are edges[in_first[i] .. in_first[i + 1]).
 *
 * A default_stream edge that a path of kept edges implies so that no
 * schedule, wait, bound or what-if can tell it is there (analyzer/src/
 * graph.c says when) is left out of edges[]: implied_edges counts those.
 * edge_count counts every edge of the graph, the implied ones included, so
 * the edges of the graph number n_edges + implied_edges.
 */
struct gs_graph {
	size_t n_ops;
	struct gs_edge *edges;
	size_t n_edges;
	size_t *in_first;
	/* Per op: the API call that launched it (index into
	 * gs_trace_api_calls(), GS_NO_INDEX when unknown). */
	uint32_t *launch;
	uint64_t edge_count[GS_EDGE_KIND_COUNT];
	uint64_t implied_edges;
	/* Stream waits whose event record could not be found. */
	uint64_t unlinked_waits;
	/* cudaStreamWaitEvent calls seen without any sync record to link. */
	uint64_t unlinked_wait_calls;
	/* True when stream kinds were known (default-stream edges possible). */
	bool stream_kinds_known;
	bool has_data_edges;
};

/* Edges (all but stream order) a graph may hold by default: 16 Mi, about
 * 400 MB (a trace of 10 M ops has a few million). */
#define GS_GRAPH_DEFAULT_MAX_EDGES (1ull << 24)

struct gs_graph_options {
	/* More edges (stream order aside) than this stop the build with
	 * GS_ERR_LIMIT naming max_edges (0: GS_GRAPH_DEFAULT_MAX_EDGES). */
	uint64_t max_edges;
	/* Keep the edges a path implies too (implied_edges is then 0). */
	bool keep_implied;
};

/* O((N + E) log N) for N ops and E edges kept; o may be NULL. */
gs_status gs_graph_build_opts(const struct gs_trace *t, const struct gs_graph_options *o,
			      struct gs_graph **out);
gs_status gs_graph_build(const struct gs_trace *t, struct gs_graph **out);
void gs_graph_destroy(struct gs_graph *g);

/* A wait: an edge that held its consumer back. */
struct gs_wait {
	uint32_t consumer; /* op index */
	uint32_t producer; /* op index */
	uint8_t kind;      /* GS_EDGE_EVENT, GS_EDGE_DEFAULT_STREAM or GS_EDGE_HOST_SYNC */
	uint64_t event;
	int64_t wait_ns; /* > 0 */
};

/* All waits, ranked by wait_ns (longest first, ties by consumer start).
 * Caller frees *out. */
gs_status gs_waits_compute(const struct gs_trace *t, const struct gs_graph *g, struct gs_wait **out,
			   size_t *n);

/* ------------------------------------------------------------------------ */
/* Schedules, missed overlap and what-if                                     */
/* ------------------------------------------------------------------------ */

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
};

gs_status gs_schedule_check(const struct gs_trace *t, const struct gs_graph *g,
			    const struct gs_schedule *s, struct gs_invariants *out);

/* The three conditions for a copy to hide under a kernel. */
enum gs_overlap_condition {
	GS_COND_PINNED_MEMORY = 1u << 0,
	GS_COND_INDEPENDENT = 1u << 1,
	GS_COND_CONCURRENT_RESOURCES = 1u << 2,
};
const char *gs_condition_name(unsigned bit);

struct gs_missed_overlap {
	uint32_t op;     /* the exposed copy */
	uint32_t kernel; /* the kernel it could have hidden under, or GS_NO_INDEX */
	int64_t exposed_ns;
	unsigned missing;    /* enum gs_overlap_condition bits */
	uint8_t bound_by;    /* enum gs_constraint of the copy's actual start */
	int64_t hideable_ns; /* what it would hide with every condition met */
	/* Condition bits taken as met (or, for
	 * independent, as missing) without proof: memory kind unknown, or the
	 * dependency path search hit its bound. */
	unsigned unverified;
	/* Condition bits neither met nor missing (never in `missing`): the
	 * memory kind is not recorded, or only stream order joins the copy and
	 * the kernel and no data dependencies are recorded (analyzer/src/
	 * overlap.c). With any, the copy is a possible missed overlap and
	 * hideable_ns an upper bound. */
	unsigned unknown;
};

gs_status gs_missed_overlap_compute(const struct gs_trace *t, const struct gs_graph *g,
				    const struct gs_schedule *s, const struct gs_breakdown *b,
				    struct gs_missed_overlap **out, size_t *n);

/* A repeated fixed kernel sequence that a CUDA Graph could launch. */
struct gs_graph_candidate {
	uint32_t stream;   /* stream index */
	uint32_t *kernels; /* op indices of the first occurrence */
	size_t length;
	size_t repetitions;
	int64_t exposed_launch_ns; /* idle gaps inside the occurrences */
	bool already_graph;        /* launched from a CUDA Graph already */
	/* The gaps exposed_launch_ns sums: the kernel each one ends (op
	 * index) and its length, over every occurrence. */
	uint32_t *gap_ops;
	int64_t *gap_ns;
	size_t n_gaps;
};

gs_status gs_graph_candidates_compute(const struct gs_trace *t, uint32_t device,
				      const struct gs_window *win, struct gs_graph_candidate **out,
				      size_t *n);
void gs_graph_candidates_free(struct gs_graph_candidate *c, size_t n);

#include <gpuscope/whatif.h>

/* ------------------------------------------------------------------------ */
/* The analyze report (README.md, Reading the report)                        */
/* ------------------------------------------------------------------------ */

struct gs_report_options {
	bool has_device;
	uint32_t device;
	/* A job: only rank `rank` (with has_device, only that device of it). */
	bool has_rank;
	uint32_t rank;
	struct gs_window window;
	/* The window's bounds are offsets from the first op start of the
	 * whole trace (`--window +1ms:+5ms`), not absolute times. */
	bool window_relative;
	const char *const *inputs; /* names for "trace.inputs" (copied) */
	size_t n_inputs;
	const char *format; /* input format name (copied) */
	size_t top;         /* rows in ranked text tables (0: default 10) */
	bool color;         /* text: ANSI colour */
	/* Entries kept in each per-op list (critical path, missed overlap,
	 * waits), those with the most time at stake: 0 for
	 * GS_REPORT_DEFAULT_ROWS, GS_REPORT_ROWS_ALL for every one. */
	size_t rows;
	uint64_t max_edges; /* of the dependency graph (gs_graph_options) */
	/* The CUDA Graph replay what-if's cost per kernel node, when set
	 * (else GS_GRAPH_NODE_NS_DEFAULT). */
	bool has_graph_node_ns;
	int64_t graph_node_ns;
};

#define GS_REPORT_DEFAULT_ROWS 1000
#define GS_REPORT_ROWS_ALL SIZE_MAX

struct gs_report;

/*
 * Run every analysis for each device of a finished trace: the graph and
 * the waits once, then per device (every device with ops, or o->device
 * only) the breakdown, schedules, missed overlap, CUDA Graph candidates,
 * per-stream and per-kernel totals and the ranked findings. The trace is
 * borrowed and must outlive the report. GS_ERR_INVALID when o->device
 * has no ops or the window is empty.
 */
gs_status gs_report_build(const struct gs_trace *t, const struct gs_report_options *o,
			  struct gs_report **out);
/*
 * The report of a job (gpuscope/import.h): one report per rank, each as
 * gs_report_build of the rank's trace, and with two or more ranks the job
 * analysis. o->has_rank picks one rank; o->has_device alone picks the
 * device in the one rank that has it (GS_ERR_INVALID, naming the ranks,
 * when several have it). A relative window is offset from the first op of
 * each rank's clock group. The job is borrowed and must outlive the report.
 */
gs_status gs_report_build_job(const struct gs_job *j, const struct gs_report_options *o,
			      struct gs_report **out);
void gs_report_destroy(struct gs_report *r);
/* A summary per device for people: findings first, then the tables;
 * fits 100 columns. */
gs_status gs_report_write_text(FILE *out, const struct gs_report *r);
/* Schema "gpuscope.report/1" (README.md, Reading the report); every row
 * of every list (--top only limits the text tables). */
gs_status gs_report_write_json(FILE *out, const struct gs_report *r);
/* One self-contained HTML page (inline CSS, SVG and a little script;
 * nothing fetched): per device the breakdown bar, the findings, the
 * stream lanes of the actual run and of the ideal schedule on one zoomable
 * time axis with the breakdown band, waits and critical path, and the
 * tables. Large traces are binned for drawing (the page stays a few MB
 * for a million ops); the tables keep exact numbers (--top rows). */
gs_status gs_report_write_html(FILE *out, const struct gs_report *r);

/* ---- plan ---- */

/*
 * `gpuscope plan`: the stage calculator (schedule, pipeline comparison,
 * overlap conditions and breakdown; docs/design.md, Plan) on a declared
 * list of stages. Times are integer
 * nanoseconds; the JSON input gives them in µs with at most 3 decimals.
 *
 * Model. A stage starts when all its predecessors have ended: the stages
 * named in its depends_on, and the stage declared before it on the same
 * stream (a stream is a lane whose stages run one at a time, in declaration
 * order; different streams have independent resources). Two declared
 * resources refine that model:
 *   - a pageable h2d/d2h copy is host-synchronous (cudaMemcpy from pageable
 *     memory): it starts after every stage declared before it has ended, and
 *     every stage declared after it waits for it (edges of kind sync_copy);
 *   - copy engines: copies of a pool run at most `engines` at a time; a pool
 *     of 0 engines means such a copy cannot overlap device work: it runs
 *     with no other h2d/d2h/compute stage running.
 * Competing ready stages take a resource in order of (ready time,
 * declaration index); a waiting copy that cannot overlap device work holds
 * back device stages that became ready after it.
 */
enum gs_plan_kind {
	GS_PLAN_KIND_OTHER = 0,   /* not declared: scheduled, not classified */
	GS_PLAN_KIND_H2D = 1,     /* host-to-device copy: "h2d" or "copy_in" */
	GS_PLAN_KIND_D2H = 2,     /* device-to-host copy: "d2h" or "copy_out" */
	GS_PLAN_KIND_COMPUTE = 3, /* device work: "compute" or "kernel" */
	GS_PLAN_KIND_SYNC = 4,    /* host blocked on the device: "sync" */
	GS_PLAN_KIND_HOST = 5,    /* host work, device idle: "host" */
};
#define GS_PLAN_KIND_COUNT 6
/* "other", "h2d", "d2h", "compute", "sync", "host". */
const char *gs_plan_kind_name(unsigned kind);
/* A kind name or alias (above) to its value; false when unknown. */
bool gs_plan_kind_parse(const char *s, unsigned *kind);

enum gs_plan_memory {
	GS_PLAN_MEM_PINNED = 0, /* the default */
	GS_PLAN_MEM_PAGEABLE = 1,
};

enum gs_plan_engine_mode {
	GS_PLAN_ENGINES_UNLIMITED = 0,     /* no copy_engines: the plain model */
	GS_PLAN_ENGINES_SHARED = 1,        /* "copy_engines": N, one pool for all copies */
	GS_PLAN_ENGINES_PER_DIRECTION = 2, /* {"h2d": A, "d2h": B} */
};
#define GS_PLAN_UNLIMITED UINT32_MAX

/* Limits (an input beyond them is refused with GS_ERR_LIMIT / FORMAT). */
#define GS_PLAN_MAX_STAGES 100000
#define GS_PLAN_MAX_FILE_BYTES (16u << 20)
#define GS_PLAN_MAX_DURATION_NS (7LL * 24 * 3600 * 1000000000LL) /* 7 days */
#define GS_PLAN_MAX_ENGINES 64

struct gs_plan_stage {
	const char *name;   /* non-empty, not blank, unique */
	const char *stream; /* non-empty, not blank */
	int64_t duration_ns;
	uint8_t kind;                  /* enum gs_plan_kind */
	uint8_t memory;                /* enum gs_plan_memory; pageable only for h2d/d2h */
	const char *const *depends_on; /* names of other stages */
	size_t n_depends_on;
};

struct gs_plan_input {
	const struct gs_plan_stage *stages;
	size_t n_stages;
	bool has_overhead;
	int64_t exposed_overhead_ns; /* >= 0 */
	uint8_t engine_mode;         /* enum gs_plan_engine_mode */
	uint32_t engines_shared;     /* SHARED: engines of the one pool */
	uint32_t engines_h2d;        /* PER_DIRECTION (GS_PLAN_UNLIMITED: no limit) */
	uint32_t engines_d2h;
};

/*
 * Parse a plan (README.md, Plan input). Every cause names `label` (when not NULL)
 * and the stage: "plan.json: stage 'b' (stages[1]): ...". Types, keys and
 * value ranges are checked here; names, predecessors and cycles by
 * gs_plan_compute. Free with gs_plan_input_destroy.
 */
gs_status gs_plan_parse(const char *json, size_t len, const char *label,
			struct gs_plan_input **out);
/* Read and parse a file ("-": stdin), at most GS_PLAN_MAX_FILE_BYTES. */
gs_status gs_plan_load(const char *path, struct gs_plan_input **out);
/* Only for inputs from gs_plan_parse / gs_plan_load. NULL is fine. */
void gs_plan_input_destroy(struct gs_plan_input *in);

enum gs_plan_edge_kind {
	GS_PLAN_EDGE_DEPENDS_ON = 0,   /* declared in depends_on */
	GS_PLAN_EDGE_STREAM_ORDER = 1, /* previous stage on the same stream */
	GS_PLAN_EDGE_SYNC_COPY = 2,    /* around a pageable copy */
};
const char *gs_plan_edge_kind_name(unsigned kind);

/* What set a stage's start. */
enum gs_plan_bound {
	GS_PLAN_BOUND_NONE = 0, /* started at 0: nothing before it */
	GS_PLAN_BOUND_DEPENDS_ON = 1,
	GS_PLAN_BOUND_STREAM_ORDER = 2,
	GS_PLAN_BOUND_SYNC_COPY = 3,
	GS_PLAN_BOUND_COPY_ENGINE = 4,    /* waited for a copy engine */
	GS_PLAN_BOUND_EXCLUSIVE_COPY = 5, /* waited for a copy that cannot overlap */
};
const char *gs_plan_bound_name(unsigned bound);

struct gs_plan_edge {
	uint32_t from; /* stage indices */
	uint32_t to;
	uint8_t kind; /* enum gs_plan_edge_kind */
};

struct gs_plan_timing {
	int64_t start_ns;
	int64_t end_ns;
	uint8_t bound_by; /* enum gs_plan_bound */
	uint32_t after;   /* the stage whose end set the start, or GS_NO_INDEX */
};

/* An h2d/d2h stage and the overlap conditions for it. */
struct gs_plan_copy {
	uint32_t stage;
	int64_t hidden_ns;   /* under compute in the schedule */
	int64_t exposed_ns;  /* duration - hidden */
	int64_t hideable_ns; /* under compute with pinned memory and free engines */
	unsigned missing;    /* enum gs_overlap_condition bits */
};

struct gs_plan_result {
	size_t n_stages;
	struct gs_plan_timing *timing; /* per stage, declaration order */
	struct gs_plan_edge *edges;    /* sorted by (to, from), one per pair */
	size_t n_edges;
	uint32_t *critical_path; /* stage indices, in time order */
	size_t n_critical;
	size_t n_streams;
	int64_t serial_ns;    /* sum of durations */
	int64_t ideal_ns;     /* makespan */
	int64_t saved_ns;     /* serial - ideal */
	double overlap_ratio; /* saved / serial (0 when serial is 0) */
	double speedup;       /* serial / ideal (1 when ideal is 0) */
	bool has_overhead;
	int64_t exposed_overhead_ns;
	int64_t elapsed_ns;   /* ideal + overhead */
	int64_t net_saved_ns; /* saved - overhead */
	/* The schedule's breakdown (priorities as analyze's) over [0, ideal): compute stages
	 * are kernel, h2d/d2h copy, sync stages sync, the rest idle. */
	int64_t breakdown_ns[4];     /* kernel, copy, sync, idle */
	int dominant;                /* 0..3 (first largest), -1 when ideal is 0 */
	struct gs_plan_copy *copies; /* h2d/d2h stages, declaration order */
	size_t n_copies;
	unsigned missing; /* union of the copies' missing conditions */
};

/*
 * Validate and schedule. O((S + E) log (S + E)) for S stages and E edges.
 * Errors (GS_ERR_FORMAT, GS_ERR_LIMIT) name the stage: duplicate or blank
 * names, unknown predecessors, cycles (with the stages in them), durations
 * that are negative or over GS_PLAN_MAX_DURATION_NS.
 */
gs_status gs_plan_compute(const struct gs_plan_input *in, struct gs_plan_result *out);
void gs_plan_result_fini(struct gs_plan_result *r);

/* `file` (may be NULL) is named in the output. */
gs_status gs_plan_write_text(FILE *out, const struct gs_plan_input *in,
			     const struct gs_plan_result *r, const char *file);
/* One object, schema "gpuscope.plan/1"; times in µs (see gs_plan_us). */
gs_status gs_plan_write_json(FILE *out, const struct gs_plan_input *in,
			     const struct gs_plan_result *r, const char *file);

/* ns as µs without float noise: 102000 -> "102", 12500 -> "12.5". */
#define GS_PLAN_US_MAX 32
const char *gs_plan_us(int64_t ns, char buf[GS_PLAN_US_MAX]);

/* ---- export ---- */

/*
 * What `gpuscope export` adds to the records (gpuscope/export.h): the
 * analyses' results as the plain data of struct gs_export_extras.
 */
enum gs_export_want {
	GS_EXPORT_WANT_LAUNCH = 1u << 0,    /* per op, the API call that launched it */
	GS_EXPORT_WANT_EDGES = 1u << 1,     /* every dependency edge */
	GS_EXPORT_WANT_BREAKDOWN = 1u << 2, /* each device's breakdown segments */
	GS_EXPORT_WANT_IDEAL = 1u << 3,     /* each device's ideal schedule */
};

struct gs_export_data;

/* Compute what `want` asks for over a finished trace (borrowed: it must
 * outlive the data). Default windows (whole trace per device). */
gs_status gs_export_data_build(const struct gs_trace *t, unsigned want,
			       struct gs_export_data **out);
/* The same with a bound on the dependency graph's edges (gs_graph_options;
 * 0: the default). The edges exported are every edge of the graph, the
 * ones a path implies included. */
gs_status gs_export_data_build_max(const struct gs_trace *t, unsigned want, uint64_t max_edges,
				   struct gs_export_data **out);
/* The extras to pass to gs_export_chrome / gs_export_csv_*; valid until
 * the data is destroyed. */
const struct gs_export_extras *gs_export_data_extras(const struct gs_export_data *d);
void gs_export_data_destroy(struct gs_export_data *d);

/* ---- diff ---- */

/*
 * `gpuscope diff BASE NEW`: the analyze report of each trace
 * (gs_report_build, every device, default windows) side by side. Per
 * device present in either: window, breakdown (kernel / copy / sync / idle
 * and fractions), overlap, idle attribution, schedules (actual, dependency
 * bound, ideal, efficiency, pipelined batches), op counts, wait and missed
 * overlap totals, with NEW - BASE deltas; kernels by name (count and total
 * time on the device) ranked by the largest change; waits grouped by
 * (kind, consumer name and stream, producer name and stream) and missed
 * overlaps by (copy name, stream, direction), each group new, vanished or
 * changed. O(R log R) over the rows of both reports after building them.
 * Kernels also get their mean time per call. When the two runs hold
 * different numbers of iterations (distinct ProfilerStep#N ranges, else
 * the most repeated outermost NVTX range name of both, else op counts
 * that differ by more than 5%), times and counts are compared per
 * iteration (or NEW scaled to BASE's op count), and the output says so.
 */
/* An explicit pairing of a BASE GPU with a NEW GPU: rank and device of
 * each side; a rank of GS_DIFF_ANY_RANK matches the one rank that has
 * that device (an error when several have it). */
#define GS_DIFF_ANY_RANK (-1)
struct gs_diff_pair {
	int64_t base_rank;
	uint32_t base_device;
	int64_t new_rank;
	uint32_t new_device;
};

struct gs_diff_options {
	const char *base_name; /* labels for the output (copied; NULL: "base") */
	const char *new_name;  /* (NULL: "new") */
	const char *base_format;
	const char *new_format;
	size_t top;         /* rows per ranked text table (0: default 10) */
	uint64_t max_edges; /* of each side's dependency graph (gs_graph_options) */
	/* GPUs paired explicitly (borrowed; each GPU in one pair at most);
	 * the others are matched by (rank, device). */
	const struct gs_diff_pair *pairs;
	size_t n_pairs;
};

struct gs_diff;

/* Both traces are borrowed and must outlive the diff. */
gs_status gs_diff_build(const struct gs_trace *base, const struct gs_trace *newt,
			const struct gs_diff_options *o, struct gs_diff **out);
/* The same for two jobs (gpuscope/import.h): GPUs are matched by
 * (rank, device). Both jobs are borrowed and must outlive the diff. */
gs_status gs_diff_build_job(const struct gs_job *base, const struct gs_job *newt,
			    const struct gs_diff_options *o, struct gs_diff **out);
void gs_diff_destroy(struct gs_diff *d);
/* Aligned tables for people; every line fits 100 columns. */
gs_status gs_diff_write_text(FILE *out, const struct gs_diff *d);
/* One object, schema "gpuscope.diff/1"; every row of every list. */
gs_status gs_diff_write_json(FILE *out, const struct gs_diff *d);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_ANALYZER_H */
