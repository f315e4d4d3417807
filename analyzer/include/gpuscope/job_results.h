/* SPDX-License-Identifier: MIT */
/*
 * gpuscope/job_results.h: what the job analysis of a report of two or more
 * ranks holds, read-only.
 *
 * gs_report_build_job (gpuscope/job.h) and the reduction into a shell
 * (gpuscope/job_summary.h) build it; the text, JSON and HTML writers of
 * the job's sections read it through this header only, and so may any
 * program (gpuscope/results.h gives the communicators, collectives and
 * steps as flat rows for the Python package). Nothing here formats or
 * prints.
 *
 * The analysis rests on the ranks' summaries (step one, one per rank, in
 * rank order): their layout is here too, for reading. A front end that
 * only moves summaries between processes treats them as opaque
 * (gpuscope/job_summary.h).
 *
 * Lifetimes: everything below belongs to the report the analysis is of
 * and stays valid, unchanged, until gs_report_destroy. Indices: `ri` is a
 * rank's index in rank order (into sums, first_gpu, rank_dom, totals);
 * a rank's number as the job numbered it is gs_job_rank(ja, ri)->rank.
 * Times are ns: a rank's own on its trace's clock, those across ranks on
 * its clock group's aligned clock (gs_job_domain). Counts that are size_t
 * come with their array; an array of count 0 may be NULL.
 */
#ifndef GPUSCOPE_JOB_RESULTS_H
#define GPUSCOPE_JOB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/report.h>
#include <gpuscope/results.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- a rank's summary (step one) ---- */

#define GS_JS_NONE UINT32_MAX /* no string */

/* One GPU of a rank: the numbers of the rank table, from its report. */
struct gs_js_gpu {
	uint32_t device;
	uint8_t efficiency_kind; /* enum gs_report_eff */
	double efficiency;
	int64_t window_ns, window_start, window_end;
	int64_t total_ns[GS_CAT_COUNT]; /* by enum gs_category */
	uint64_t comm_kernels;
	int64_t comm_ns, comm_union_ns, comm_exposed_ns;
};

/* One collective kernel of a rank (times on its trace's clock). */
struct gs_js_kernel {
	int64_t start_ns, end_ns;
	int64_t bytes;          /* message size; -1 when unknown or no collective */
	int64_t compute_before; /* compute union on its GPU since the previous one */
	uint64_t seq;           /* the group's sequence number, with has_seq */
	uint32_t name;          /* the collective's name, else the kernel's */
	uint32_t group;         /* its process group's name, or GS_JS_NONE */
	uint32_t device;
	uint32_t group_size; /* the collective's declared group size, 0 */
	uint8_t has_col;     /* the kernel describes a collective */
	uint8_t has_seq;
	uint8_t kind_col; /* kind from the collective's name (0: unknown) */
	uint8_t kind_op;  /* kind from the kernel's name */
	uint8_t kind;     /* the kind: kind_col, else kind_op (enum gs_job_coll_kind) */
};

/* The collective kernels of one communicator of the rank: key (enum
 * gs_job_key) a process group (group), a collective kind without a group
 * (kind), or the rank's point-to-point kernels. */
struct gs_js_member {
	uint8_t key;
	uint8_t kind;
	uint32_t group;         /* GS_JOB_KEY_GROUP: the group's name */
	uint32_t e0_group_size; /* of the first kernel's collective */
	uint32_t e0_desc;       /* its group description, or GS_JS_NONE */
	uint64_t n;
	struct gs_js_kernel *k;
};

/* One step of the rank (gpuscope/steps.h; times on its trace's clock),
 * with the figures of its GPU of the longest step window where the rank's
 * report has figures for the step (has_figures). */
struct gs_js_step {
	uint64_t number;
	int64_t start_ns, end_ns; /* its GPU window; equal: no GPU work */
	int64_t idle_ns;          /* with has_figures */
	int64_t gap_cause_ns;
	double efficiency; /* NaN when not available */
	uint32_t device;
	uint8_t selected, partial, has_figures;
	uint8_t gap_cause; /* GS_GAP_CAUSE_COUNT: none */
};

/* A note of the text report: label ("caution", "warning", "note"). */
struct gs_js_note {
	uint32_t label;
	uint32_t text;
};

/* A rank's summary. Strings are ids into its pool (gs_js_str). */
struct gs_js_rank {
	uint32_t rank; /* as the job numbered it */
	uint32_t clock_group;
	uint32_t clock_domain;
	bool rank_declared;
	bool host_from_name;
	uint8_t clock;          /* enum gs_clock_source */
	int64_t wall_offset_ns; /* its times + this = UTC ns (0 unknown) */
	uint32_t world_size;    /* declared; 0 unknown */
	int64_t pid;            /* -1 when unknown */
	uint32_t host;          /* "" when unknown (never GS_JS_NONE) */
	uint64_t ops, dropped, streams;
	uint64_t html_ops, html_lanes; /* the rank's load on the HTML page */
	struct gs_js_gpu *gpus;
	uint64_t n_gpus;
	struct gs_js_member *m;
	uint64_t n_m;
	struct gs_js_note *notes;
	uint64_t n_notes;
	struct gs_js_step *steps; /* by host start, as the report's */
	uint64_t n_steps;
	char *pool; /* NUL-terminated strings; ids are offsets */
	uint64_t pool_len, pool_cap;
};

/* A summary's string: "" for GS_JS_NONE or an id out of range. */
static inline const char *gs_js_str(const struct gs_js_rank *r, uint32_t id)
{
	return id == GS_JS_NONE || id >= r->pool_len ? "" : r->pool + id;
}

/* ---- the GPUs ---- */

/* One GPU of the job: a row of the rank table. */
struct gs_job_gpu {
	const struct gs_js_rank *r; /* the rank's summary */
	size_t ri;                  /* its index in rank order */
	const struct gs_js_gpu *d;  /* the GPU in that summary */
	double overlap;             /* 1 - exposed / union; NaN without communication */
};

/* The metrics of the rank table, per GPU (gs_job_metric_value). */
enum gs_job_metric {
	GS_JOB_METRIC_WINDOW,  /* its window, ns */
	GS_JOB_METRIC_KERNEL,  /* kernel time, a share of the window */
	GS_JOB_METRIC_COPY,    /* copy time, a share */
	GS_JOB_METRIC_SYNC,    /* sync time, a share */
	GS_JOB_METRIC_IDLE,    /* idle time, a share */
	GS_JOB_METRIC_EFF,     /* efficiency (NaN when not available) */
	GS_JOB_METRIC_COMM,    /* communication kernel time, ns */
	GS_JOB_METRIC_EXPOSED, /* exposed communication, ns */
	GS_JOB_METRIC_OVERLAP, /* communication overlapped, a fraction (NaN without) */
	GS_JOB_METRIC_COUNT,
};

/* Min, lower median and max of one metric over the GPUs that have it
 * (count 0: none has it, v and gpu unset). */
struct gs_job_stat {
	size_t count;
	double v[3];   /* min, median, max */
	size_t gpu[3]; /* indices into ja->gpus (ties: the lowest rank) */
};

/* ---- communicators and collectives ---- */

/* The collective a kernel runs, from its name (letters only, any case). */
enum gs_job_coll_kind {
	GS_JOB_COLL_UNKNOWN,
	GS_JOB_COLL_ALLREDUCE,
	GS_JOB_COLL_ALLGATHER,
	GS_JOB_COLL_REDUCE_SCATTER,
	GS_JOB_COLL_ALLTOALL,
	GS_JOB_COLL_BROADCAST,
	GS_JOB_COLL_REDUCE,
	GS_JOB_COLL_SENDRECV,
	GS_JOB_COLL_KIND_COUNT,
};

/* What a rank's communicator is keyed by (never a stream id: those are
 * per process). */
enum gs_job_key {
	GS_JOB_KEY_GROUP = 0, /* the process group the kernels name */
	GS_JOB_KEY_KIND = 1,  /* no group: the rank's kernels of one collective kind */
	GS_JOB_KEY_P2P = 2,   /* point-to-point kernels, paired by their ends */
};

/* How a communicator's collectives were matched across ranks. */
enum gs_job_matched_by {
	GS_JOB_BY_NONE = 0,        /* one rank: nothing to match */
	GS_JOB_BY_SEQ = 1,         /* the group's sequence numbers */
	GS_JOB_BY_GROUP_ORDER = 2, /* a group's kernels in order, aligned on their ends */
	GS_JOB_BY_ORDER = 3,       /* kernels of one kind in order, aligned on their ends */
	GS_JOB_BY_P2P_END = 4,     /* each kernel with the peer kernel that ends with it */
};

/* A rank taking part in a communicator: its collective kernels in order
 * (in its summary), and the shift that puts its times on the clock
 * group's common clock (its wall-clock offset plus its domain's fitted
 * offset). */
struct gs_job_member {
	size_t ri; /* the rank (index in rank order) */
	const struct gs_js_kernel *k;
	size_t n;
	int64_t shift;      /* ns */
	size_t extra;       /* kernels matched with no other rank's */
	size_t first_extra; /* the first of those (index into k) */
};

/* The ranks that run one sequence of collectives together. The sums are
 * over its `matched` collectives (those within the clocks' error too). */
struct gs_job_comm {
	uint32_t clock_group;
	uint8_t key;             /* enum gs_job_key */
	uint8_t kind;            /* GS_JOB_KEY_KIND: enum gs_job_coll_kind */
	uint8_t matched_by;      /* enum gs_job_matched_by */
	const char *group;       /* GS_JOB_KEY_GROUP: the group name (a summary's string) */
	const char *desc;        /* the group's description, "" when unknown */
	uint32_t group_size;     /* declared; 0 unknown */
	char label[96];          /* its name for people */
	struct gs_job_member *m; /* ascending rank */
	size_t n_m;
	size_t n_coll;       /* collectives formed (first_coll ..) */
	size_t matched;      /* ... compared: on two ranks or more, overlapping */
	size_t no_overlap;   /* ... whose kernels did not overlap across ranks */
	size_t within_error; /* ... compared, skew within the clock error */
	size_t first_coll;   /* index of its first in ja->coll */
	int64_t skew_sum, skew_max, wait_sum, transfer_sum; /* ns */
	double busbw_sum; /* GB/s, over the busbw_n collectives that have one */
	size_t busbw_n;
};

enum gs_job_coll_state {
	GS_JOB_COMPARED = 0,     /* waits, skew and last rank counted */
	GS_JOB_WITHIN_ERROR = 1, /* skew within the clock error: no one waited for certain */
	GS_JOB_NO_OVERLAP = 2,   /* one kernel ended before another began: a mismatch */
};

/* A collective's kernel on one member: ja->slot entries, by member. */
struct gs_job_slot {
	uint32_t m; /* member index in its communicator */
	uint32_t k; /* kernel index in that member */
};

/* One collective: the kernels of a communicator's members that ran it
 * (gs_job_coll_member, gs_job_coll_kernel). Times on the common clock. */
struct gs_job_coll {
	uint32_t comm;       /* index into ja->comms */
	uint32_t index;      /* its place in the communicator (reference order) */
	size_t slot;         /* ja->slot[slot .. slot + present): its kernels, by member */
	uint32_t present;    /* members that ran it */
	uint8_t state;       /* enum gs_job_coll_state */
	int64_t first, last; /* first and last arrival */
	int64_t skew, transfer, wait_sum;
	int64_t clock_err;   /* the clocks' error between its members */
	size_t last_m;       /* member index of the last rank (with GS_JOB_COMPARED) */
	int64_t bytes;       /* -1 when unknown */
	double algbw, busbw; /* GB/s (bytes per ns); NaN when unknown */
	const char *name;
};

/* A rank's part in the collectives (ja->totals, per rank). */
struct gs_job_total {
	size_t ri;
	uint64_t collectives; /* matched collectives it took part in */
	uint64_t counted;     /* ... of skew > 0, beyond the clock error */
	uint64_t last;        /* ... it arrived last at */
	double expected;      /* times last chance alone gives */
	int64_t waited, cost; /* its waits; the others' waits for it */
	/* Compute kernel time (the union on its GPU) between its previous
	 * collective of the communicator (or the window start) and its
	 * arrival, summed over its compared collectives. */
	int64_t compute_before;
	bool straggler;
};

enum gs_job_mismatch_kind {
	GS_JOB_MM_COUNT,      /* kernels missing or extra on some ranks */
	GS_JOB_MM_NAME,       /* kernels that end together but run other collectives */
	GS_JOB_MM_RANKS,      /* a group declares other ranks than the job has */
	GS_JOB_MM_NO_OVERLAP, /* matched kernels that never ran at once */
	GS_JOB_MM_UNPAIRED,   /* point-to-point kernels without a peer in the job */
};
#define GS_JOB_MM_KIND_COUNT 5

/* What does not line up across ranks, in a communicator. */
struct gs_job_mismatch {
	size_t comm;  /* index into ja->comms */
	uint8_t kind; /* enum gs_job_mismatch_kind */
	size_t index; /* GS_JOB_MM_NAME, _NO_OVERLAP: the first collective (its index) */
	size_t count; /* kernels or collectives it is about */
	char *text;   /* in words */
};

/* ---- findings ---- */

/* What a job finding is about. */
enum gs_job_finding_what {
	GS_JOB_FIND_STRAGGLER, /* at: its index in totals; v[0]: the median compute before */
	GS_JOB_FIND_SKEW,      /* at: compared collectives; v[0]: their skews summed, v[1]: max */
	GS_JOB_FIND_EXPOSED,   /* at: the worst GPU; v: exposed, beyond the waits, GPUs with comm */
	GS_JOB_FIND_SLOW_STEPS, /* ja->slow_steps */
	GS_JOB_FIND_MISMATCH,   /* ja->mm */
};

/* A finding as data: the writers put it in words. */
struct gs_job_finding {
	const char *kind; /* static: its JSON kind */
	uint8_t what;     /* enum gs_job_finding_what */
	int64_t ns;       /* the time at stake; findings are ranked by it */
	struct gs_finding_data data;
	size_t at;    /* per `what` */
	int64_t v[3]; /* per `what` */
};

/* ---- clocks ---- */

/* The state of a clock domain's offset. */
enum gs_job_domain_state {
	GS_JOB_DOM_REFERENCE = 0,   /* the group's reference: offset 0 */
	GS_JOB_DOM_FITTED = 1,      /* fitted on collectives that end together */
	GS_JOB_DOM_NO_EVIDENCE = 2, /* no such collective links it: offset 0, error unknown */
	GS_JOB_DOM_RAW = 3,         /* --align none: raw clocks kept */
};

/* Ranks that share one clock (a host, or one input): one offset. */
struct gs_job_domain {
	uint32_t id;    /* the summaries' clock_domain */
	uint32_t group; /* its clock group */
	size_t first_ri;
	size_t n_ranks;
	const char *host;   /* "" when unknown */
	uint8_t clock;      /* enum gs_clock_source of its first rank */
	uint8_t state;      /* enum gs_job_domain_state */
	int64_t offset;     /* added to its ranks' wall-clock times */
	int64_t residual;   /* the spread left after the fit (0 for the reference) */
	int64_t spread_max; /* the largest difference left, outliers included */
	size_t evidence;    /* collectives the fit rests on */
	size_t outliers;    /* ... and those set aside */
	uint32_t via;       /* the domain it was fitted against (index into ja->dom) */
};

/* How the clocks of a job's hosts are placed on one (analyze --align). */
enum gs_job_align {
	GS_JOB_ALIGN_AUTO = 0,        /* collectives where a group has two clock domains */
	GS_JOB_ALIGN_COLLECTIVES = 1, /* fitted on the collectives' ends */
	GS_JOB_ALIGN_NONE = 2,        /* raw clocks */
};

/* ---- steps ---- */

/* One step number across the ranks that have it with GPU work. Times of
 * one rank are on its own clock; the span is on the clock group's aligned
 * clock. */
struct gs_job_step {
	uint64_t number;
	size_t ranks;     /* ranks with the step's GPU work */
	bool analysed;    /* selected on every one of them */
	bool partial;     /* partial on one of them */
	int64_t v[3];     /* min, median (lower middle) and max of the ranks' step time */
	size_t ri[3];     /* ... their ranks (index in rank order; ties: the lowest) */
	bool slow;        /* the max is over 1.2x the median */
	bool span_known;  /* the ranks share a clock group and its error is known */
	int64_t span_ns;  /* first GPU start to last end over the ranks */
	int64_t span_err; /* ... and the clocks' error on it */
	size_t last_ri;   /* the rank that ended last (with span_known) */
	int64_t last_ns;  /* ... how long after the median rank's end */
	uint8_t cause;    /* the largest gap cause on the slowest rank; GS_GAP_CAUSE_COUNT */
	int64_t cause_ns;
	double eff_min; /* the lowest efficiency of the ranks with figures (NaN) */
	size_t eff_ri;
	size_t first; /* its entries in ja->step_at, by rank */
};

/* A rank's step in ja->step_at. */
struct gs_job_step_at {
	uint32_t ri; /* index in rank order */
	uint32_t si; /* index into that summary's steps */
};

/* The rank that had the longest step most often among the analysed steps
 * two or more ranks ran (with steps > 0). */
struct gs_job_slow_steps {
	size_t ri;
	size_t steps;  /* the steps it was slowest in */
	size_t of;     /* the analysed steps compared */
	int64_t extra; /* over those: its step time beyond the median rank's */
	int64_t total; /* the median step times of the steps compared, summed */
};

/* ---- the analysis ---- */

struct gs_job_analysis {
	struct gs_js_rank **sums; /* per rank, in rank order (owned) */
	size_t n_sums;
	uint32_t n_clock_groups;
	uint8_t align;           /* enum gs_job_align, as asked */
	struct gs_job_gpu *gpus; /* in rank order, a rank's GPUs together */
	size_t n_gpus;
	size_t *first_gpu; /* per rank: its first in gpus */
	struct gs_job_stat stat[GS_JOB_METRIC_COUNT];
	struct gs_job_domain *dom;
	size_t n_dom;
	size_t *rank_dom; /* per rank: its index in dom */
	struct gs_job_comm *comms;
	size_t n_comms;
	struct gs_job_coll *coll;
	size_t n_coll;
	struct gs_job_slot *slot; /* the collectives' kernels */
	size_t n_slot;
	size_t *by_skew; /* indices into coll, largest skew first (compared ones) */
	size_t n_by_skew;
	struct gs_job_total *totals; /* per rank */
	size_t n_totals;
	size_t *stragglers; /* indices into totals, by cost */
	size_t n_stragglers;
	struct gs_job_mismatch *mm;
	size_t n_mm;
	struct gs_job_finding *findings; /* ranked by ns */
	size_t n_findings;
	int64_t wait_total;        /* every rank's waits, summed */
	int64_t longest_window;    /* the longest GPU window */
	struct gs_job_step *steps; /* by number */
	size_t n_steps;
	struct gs_job_step_at *step_at;
	size_t n_step_at;
	size_t step_ranks; /* ranks with steps */
	struct gs_job_slow_steps slow_steps;
	/* A partial job: fewer ranks than the traces say the job had. */
	uint32_t world_size; /* the largest declared world or group size; 0 unknown */
};

/* ---- accessors ---- */

/* The job analysis of a report of two or more ranks; NULL for any other
 * report (or NULL). */
const struct gs_job_analysis *gs_job_results(const struct gs_report *job);

/* The summary of rank ri (index in rank order, < ja->n_sums). */
static inline const struct gs_js_rank *gs_job_rank(const struct gs_job_analysis *ja, size_t ri)
{
	return ja->sums[ri];
}

/* The summaries the analysis holds, in rank order. */
const struct gs_js_rank *const *gs_job_analysis_ranks(const struct gs_job_analysis *ja, size_t *n);

/* The p-th member (p < x->present) that ran collective x, and its
 * kernel. */
static inline const struct gs_job_member *gs_job_coll_member(const struct gs_job_analysis *ja,
							     const struct gs_job_coll *x, size_t p)
{
	return &ja->comms[x->comm].m[ja->slot[x->slot + p].m];
}

static inline const struct gs_js_kernel *gs_job_coll_kernel(const struct gs_job_analysis *ja,
							    const struct gs_job_coll *x, size_t p)
{
	return &gs_job_coll_member(ja, x, p)->k[ja->slot[x->slot + p].k];
}

/* A GPU's value of a metric (enum gs_job_metric says its unit); NaN when
 * it has none. */
double gs_job_metric_value(const struct gs_job_gpu *g, enum gs_job_metric m);

/* "AllReduce", "AllGather", ... ("unknown"); static. */
const char *gs_job_coll_kind_name(enum gs_job_coll_kind k);
/* "none", "seq", "group_order", "order", "p2p_end" (enum
 * gs_job_matched_by); static. */
const char *gs_job_matched_by_name(uint8_t by);

/* The ranks (by index in rank order, a slot each in shown[]) whose GPU
 * sections a job's text report shows with `style`: every one when every
 * GPU's row fits the rank table, else the ranks of the outliers it lists.
 * *n_shown: how many. Decided from the summaries alone, so that
 * gpuscope-mpi's root can tell the others (gs_report_text_job_shown). */
gs_status gs_job_analysis_shown_ranks(const struct gs_job_analysis *ja,
				      const struct gs_report_style *style, bool *shown,
				      size_t *n_shown);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_JOB_RESULTS_H */
