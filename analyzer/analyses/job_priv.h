/* SPDX-License-Identifier: MIT */
/*
 * Internal: the job analysis's own data (job_summary.c: step one, a rank's
 * summary; job_analysis.c: step two, the per-GPU table and stragglers;
 * job_match.c: communicators, clock alignment and the matching of
 * collectives across ranks; job_steps.c: steps across ranks;
 * job_findings.c: the findings). The writers add job_view.h.
 */
#ifndef GS_ANALYZER_JOB_PRIV_H
#define GS_ANALYZER_JOB_PRIV_H

#include "job_sum.h"

#define JOB_NONE UINT32_MAX /* no kernel */

/* A collective's kernel on one member: ja->slot entries, by member. */
struct job_slot {
	uint32_t m; /* member index in its communicator */
	uint32_t k; /* kernel index in that member */
};

/* A piece of a union of intervals [a, b). */
struct piece {
	int64_t a, b;
};

/* One GPU of the job: a row of the rank table. */
struct job_gpu {
	const struct gs_js_rank *r; /* the rank's summary */
	size_t ri;                  /* its index in ja->sums */
	const struct gs_js_gpu *d;
	double overlap; /* 1 - exposed / union; NaN without communication */
};

enum job_metric {
	M_WINDOW,
	M_KERNEL,
	M_COPY,
	M_SYNC,
	M_IDLE,
	M_EFF,
	M_COMM,
	M_EXPOSED,
	M_OVERLAP,
	M_COUNT,
};

/* Min, lower median and max of one metric over the GPUs that have it. */
struct job_stat {
	size_t count;
	double v[3];   /* min, median, max */
	size_t gpu[3]; /* indices into ja->gpus */
};

/* The collective a kernel runs, from its name (letters only, any case). */
enum job_coll_kind {
	K_UNKNOWN,
	K_ALLREDUCE,
	K_ALLGATHER,
	K_REDUCE_SCATTER,
	K_ALLTOALL,
	K_BROADCAST,
	K_REDUCE,
	K_SENDRECV,
	K_COUNT,
};

/* What a rank's communicator is keyed by (never a stream id: those are
 * per process). */
enum job_key {
	JOB_KEY_GROUP = 0, /* the process group the kernels name */
	JOB_KEY_KIND = 1,  /* no group: the rank's kernels of one collective kind */
	JOB_KEY_P2P = 2,   /* point-to-point kernels, paired by their ends */
};

/* How a communicator's collectives were matched across ranks. */
enum job_matched_by {
	JOB_BY_NONE = 0,        /* one rank: nothing to match */
	JOB_BY_SEQ = 1,         /* the group's sequence numbers */
	JOB_BY_GROUP_ORDER = 2, /* a group's kernels in order, aligned on their ends */
	JOB_BY_ORDER = 3,       /* kernels of one kind in order, aligned on their ends */
	JOB_BY_P2P_END = 4,     /* each kernel with the peer kernel that ends with it */
};

/* A rank taking part in a communicator: its collective kernels in order,
 * and the shift that puts its times on the clock group's common clock
 * (its wall-clock offset plus its domain's fitted offset). */
struct job_member {
	size_t ri; /* index into ja->sums */
	const struct gs_js_kernel *k;
	size_t n;
	int64_t shift;
	size_t extra;       /* kernels matched with no other rank's */
	size_t first_extra; /* the first of those (index into k) */
};

struct job_comm {
	uint32_t clock_group;
	uint8_t key;        /* enum job_key */
	uint8_t kind;       /* JOB_KEY_KIND: enum job_coll_kind */
	uint8_t matched_by; /* enum job_matched_by */
	const char *group;  /* JOB_KEY_GROUP: the group name (a summary's string) */
	const char *desc;   /* the group's description, "" when unknown */
	uint32_t group_size;
	char label[96];
	struct job_member *m; /* ascending rank */
	size_t n_m, cap_m;
	size_t n_coll;       /* collectives formed (first_coll ..) */
	size_t matched;      /* ... compared: on two ranks or more, overlapping */
	size_t no_overlap;   /* ... whose kernels did not overlap across ranks */
	size_t within_error; /* ... compared, skew within the clock error */
	size_t first_coll;   /* index of its first in ja->coll */
	int64_t skew_sum, skew_max, wait_sum, transfer_sum;
	double busbw_sum;
	size_t busbw_n;
};

enum job_coll_state {
	JOB_COMPARED = 0,     /* waits, skew and last rank counted */
	JOB_WITHIN_ERROR = 1, /* skew within the clock error: no one waited for certain */
	JOB_NO_OVERLAP = 2,   /* one kernel ended before another began: a mismatch */
};

struct job_coll {
	uint32_t comm;
	uint32_t index;      /* its place in the communicator (reference order) */
	size_t slot;         /* ja->slot[slot .. slot + present): its kernels, by member */
	uint32_t present;    /* members that ran it */
	uint8_t state;       /* enum job_coll_state */
	int64_t first, last; /* first and last arrival (common clock) */
	int64_t skew, transfer, wait_sum;
	int64_t clock_err;   /* the clocks' error between its members */
	size_t last_m;       /* member index of the last rank */
	int64_t bytes;       /* -1 when unknown */
	double algbw, busbw; /* GB/s (bytes per ns); NaN when unknown */
	const char *name;
};

struct job_total {
	size_t ri;
	uint64_t collectives; /* compared collectives it took part in */
	uint64_t counted;     /* ... of skew > 0, beyond the clock error */
	uint64_t last;
	double expected; /* times last chance alone gives */
	int64_t waited, cost;
	/* Compute kernel time (the union on its GPU) between its previous
	 * collective of the communicator (or the window start) and its
	 * arrival, summed over its compared collectives. */
	int64_t compute_before;
	bool straggler;
};

enum job_mismatch_kind {
	MM_COUNT,      /* kernels missing or extra on some ranks */
	MM_NAME,       /* kernels that end together but run other collectives */
	MM_RANKS,      /* a group declares other ranks than the job has */
	MM_NO_OVERLAP, /* matched kernels that never ran at once */
	MM_UNPAIRED,   /* point-to-point kernels without a peer in the job */
};
#define MM_KIND_COUNT 5

struct job_mismatch {
	size_t comm;
	uint8_t kind;
	size_t index; /* MM_NAME, MM_NO_OVERLAP: the first collective (its index) */
	size_t count; /* kernels or collectives it is about */
	char *text;
};

/* What a job finding is about. */
enum job_finding_what {
	JOB_FIND_STRAGGLER,  /* at: its index in totals; v[0]: the median compute before */
	JOB_FIND_SKEW,       /* at: compared collectives; v[0]: their skews summed, v[1]: max */
	JOB_FIND_EXPOSED,    /* at: the worst GPU; v: exposed, beyond the waits, GPUs with comm */
	JOB_FIND_SLOW_STEPS, /* ja->slow_steps */
	JOB_FIND_MISMATCH,   /* ja->mm */
};

/* A finding as data: the writers put it in words (job_view.h). */
struct job_finding {
	const char *kind; /* its JSON kind */
	uint8_t what;     /* enum job_finding_what */
	int64_t ns;       /* the time at stake */
	struct gs_finding_data data;
	size_t at;    /* per `what` */
	int64_t v[3]; /* per `what` */
};

/* The state of a clock domain's offset. */
enum job_domain_state {
	JOB_DOM_REFERENCE = 0,   /* the group's reference: offset 0 */
	JOB_DOM_FITTED = 1,      /* fitted on collectives that end together */
	JOB_DOM_NO_EVIDENCE = 2, /* no such collective links it: offset 0, error unknown */
	JOB_DOM_RAW = 3,         /* --align none: raw clocks kept */
};

/* Ranks that share one clock (a host, or one input): one offset. */
struct job_domain {
	uint32_t id;    /* the summaries' clock_domain */
	uint32_t group; /* its clock group */
	size_t first_ri;
	size_t n_ranks;
	const char *host;   /* "" when unknown */
	uint8_t clock;      /* enum gs_clock_source of its first rank */
	uint8_t state;      /* enum job_domain_state */
	int64_t offset;     /* added to its ranks' wall-clock times */
	int64_t residual;   /* the spread left after the fit (0 for the reference) */
	int64_t spread_max; /* the largest difference left, outliers included */
	size_t evidence;    /* collectives the fit rests on */
	size_t outliers;    /* ... and those set aside */
	uint32_t via;       /* the domain it was fitted against (index into ja->dom) */
};

/* How the clocks of a job's hosts are placed on one (analyze --align). */
enum job_align {
	JOB_ALIGN_AUTO = 0,        /* collectives where a group has two clock domains */
	JOB_ALIGN_COLLECTIVES = 1, /* fitted on the collectives' ends */
	JOB_ALIGN_NONE = 2,        /* raw clocks */
};

/* One step number across the ranks that have it with GPU work
 * (job_steps.c). Times of one rank are on its own clock; the span is on
 * the clock group's aligned clock. */
struct job_step {
	uint64_t number;
	size_t ranks;     /* ranks with the step's GPU work */
	bool analysed;    /* selected on every one of them */
	bool partial;     /* partial on one of them */
	int64_t v[3];     /* min, median (lower middle) and max of the ranks' step time */
	size_t ri[3];     /* ... their ranks (index into ja->sums; ties: the lowest) */
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
struct job_step_at {
	uint32_t ri; /* index into ja->sums */
	uint32_t si; /* index into that summary's steps */
};

/* The rank that had the longest step most often among the analysed steps
 * two or more ranks ran (with steps > 0). */
struct job_slow_steps {
	size_t ri;
	size_t steps;  /* the steps it was slowest in */
	size_t of;     /* the analysed steps compared */
	int64_t extra; /* over those: its step time beyond the median rank's */
	int64_t total; /* the median step times of the steps compared, summed */
};

struct gs_job_analysis {
	struct gs_js_rank **sums; /* per rank, in rank order (owned) */
	size_t n_sums;
	uint32_t n_clock_groups;
	uint8_t align;        /* enum job_align, as asked */
	struct job_gpu *gpus; /* in rank order, a rank's GPUs together */
	size_t n_gpus;
	size_t *first_gpu; /* per rank (job->ranks order): its first in gpus */
	struct job_stat stat[M_COUNT];
	struct job_domain *dom;
	size_t n_dom;
	size_t *rank_dom; /* per rank: its index in dom */
	struct job_comm *comms;
	size_t n_comms;
	struct job_coll *coll;
	size_t n_coll;
	struct job_slot *slot; /* the collectives' kernels */
	size_t n_slot, cap_slot;
	size_t cap_coll;
	size_t *by_skew; /* indices into coll, largest skew first (compared ones) */
	size_t n_by_skew;
	struct job_total *totals; /* per rank of the job (job->ranks order) */
	size_t n_totals;
	size_t *stragglers; /* indices into totals, by cost */
	size_t n_stragglers;
	struct job_mismatch *mm;
	size_t n_mm;
	struct job_finding *findings;
	size_t n_findings;
	int64_t wait_total;
	int64_t longest_window;
	struct job_step *steps; /* by number */
	size_t n_steps;
	struct job_step_at *step_at;
	size_t n_step_at;
	size_t step_ranks; /* ranks with steps */
	struct job_slow_steps slow_steps;
	/* A partial job: fewer ranks than the traces say the job had. */
	uint32_t world_size; /* the largest declared world or group size; 0 unknown */
};

static inline const struct gs_js_rank *rank_of(const struct gs_job_analysis *ja, size_t ri)
{
	return ja->sums[ri];
}

/* The p-th member (p < x->present) that ran collective x, and its
 * kernel. */
static inline const struct job_member *coll_member(const struct gs_job_analysis *ja,
						   const struct job_coll *x, size_t p)
{
	return &ja->comms[x->comm].m[ja->slot[x->slot + p].m];
}

static inline const struct gs_js_kernel *coll_op(const struct gs_job_analysis *ja,
						 const struct job_coll *x, size_t p)
{
	return &coll_member(ja, x, p)->k[ja->slot[x->slot + p].k];
}

/* A GPU's value of a metric; NaN when it has none. */
double job_metric_value(const struct job_gpu *g, enum job_metric m);

/* The findings of a reduced job, ranked (job_findings.c). */
gs_status job_findings_make(struct gs_job_analysis *ja);

/* Steps matched across ranks by number (job_steps.c), after the clocks
 * are aligned. */
gs_status job_steps_make(struct gs_job_analysis *ja);
/* What to add to rank ri's times for its clock group's common clock, and
 * the error of that clock (JOB_CLOCK_UNKNOWN when no collective placed it). */
int64_t job_shift(const struct gs_job_analysis *ja, size_t ri);
int64_t job_clock_err(const struct gs_job_analysis *ja, size_t ri);
#define JOB_CLOCK_UNKNOWN (INT64_MAX / 4)

/* A formatted string (malloc'd); NULL when out of memory. */
char *job_printf(const char *fmt, ...) GS_PRINTF(1, 2);
/* The collective kind of a name ("allreduce", "AllReduce", "_allgather_base",
 * "ncclDevKernel_SendRecv"...). */
enum job_coll_kind job_coll_kind_of_name(const char *name);
const char *job_coll_kind_name(enum job_coll_kind k);
/* "0-3, 5" of the ranks of a communicator's members whose flag is set (all:
 * flags NULL). */
void job_rank_list(char *buf, size_t size, const struct gs_job_analysis *ja,
		   const struct job_comm *c, const bool *flags);
const char *job_matched_by_name(uint8_t by);

/*
 * Step two's collectives (job_match.c): the ranks' communicators grouped,
 * the clock domains aligned, the collectives matched across ranks and
 * measured; fills comms, dom, coll, slot, mm, totals' collective sums and
 * wait_total. ja->totals must be allocated (one per rank).
 */
gs_status job_collectives(struct gs_job_analysis *ja);

#endif /* GS_ANALYZER_JOB_PRIV_H */
