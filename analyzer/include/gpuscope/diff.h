/* SPDX-License-Identifier: MIT */
/*
 * The comparison of two traces or two jobs (`gpuscope diff`).
 */
#ifndef GPUSCOPE_DIFF_H
#define GPUSCOPE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/import.h>
#include <gpuscope/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

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
/* The GPUs compared: paired, present on both sides. */
size_t gs_diff_compared(const struct gs_diff *d);
/*
 * GS_OK when the diff compares a GPU at all; else GS_ERR_INVALID, its cause
 * listing the GPUs only in base and only in new and naming --pair (their
 * ids differ between the runs, so pairing by id compared none).
 */
gs_status gs_diff_check_compared(const struct gs_diff *d);
/* Warnings about the comparison, one line each (a --pair of two GPU
 * models); valid while the diff lives. */
const char *const *gs_diff_warnings(const struct gs_diff *d, size_t *n);

/* ---- the comparison, read-only ----------------------------------------------
 *
 * What gs_diff_build / gs_diff_build_job produce, for the writers and any
 * other reader. Every pointer below stays valid until gs_diff_destroy (the
 * names are the traces' strings: the traces or jobs, borrowed, must live
 * as long). Arrays indexed [2] hold BASE at GS_DIFF_BASE and NEW at
 * GS_DIFF_NEW. Times are durations in ns.
 */
enum gs_diff_side {
	GS_DIFF_BASE = 0,
	GS_DIFF_NEW = 1,
};

/* The headline numbers of a GPU, in the order the writers list them. Each
 * is ns, but for the counts GS_DIFF_M_OPS .. GS_DIFF_M_WAITS and
 * GS_DIFF_M_MISSED. */
enum gs_diff_metric {
	GS_DIFF_M_WINDOW,         /* the device window */
	GS_DIFF_M_KERNEL,         /* breakdown: kernel */
	GS_DIFF_M_COPY,           /* breakdown: copy (exposed) */
	GS_DIFF_M_SYNC,           /* breakdown: sync (exposed) */
	GS_DIFF_M_IDLE,           /* breakdown: idle */
	GS_DIFF_M_COPY_HIDDEN,    /* copy time under kernels */
	GS_DIFF_M_CONCURRENCY,    /* kernel time under other kernels */
	GS_DIFF_M_HOST_BOUND,     /* idle: host bound */
	GS_DIFF_M_LAUNCH_LATENCY, /* idle: launch latency */
	GS_DIFF_M_UNATTRIBUTED,   /* idle: unattributed */
	GS_DIFF_M_ACTUAL,         /* the schedules: as recorded */
	GS_DIFF_M_DEP_BOUND,      /* dependency bound */
	GS_DIFF_M_IDEAL,          /* ideal */
	GS_DIFF_M_PIPELINED,      /* the pipelined batches what-if */
	GS_DIFF_M_OPS,            /* ops in the window (a count) */
	GS_DIFF_M_KERNELS,        /* of them kernels (a count) */
	GS_DIFF_M_MEMCPYS,        /* memcpys (a count) */
	GS_DIFF_M_MEMSETS,        /* memsets (a count) */
	GS_DIFF_M_WAITS,          /* waits on the device (a count) */
	GS_DIFF_M_WAIT_NS,        /* their summed wait */
	GS_DIFF_M_MISSED,         /* missed overlaps (a count) */
	GS_DIFF_M_MISSED_NS,      /* their exposed time */
	GS_DIFF_M_COUNT
};

/* What the times and counts of a GPU pair are compared on. */
enum gs_diff_basis {
	GS_DIFF_BASIS_TOTAL = 0,         /* as recorded (both divisors 1) */
	GS_DIFF_BASIS_PER_ITERATION = 1, /* divided by each side's iterations */
	GS_DIFF_BASIS_SCALED_BY_OPS = 2, /* NEW scaled to BASE's op count */
};

/* Where a pair's iteration counts come from. */
enum gs_diff_iterations {
	GS_DIFF_ITERS_NONE = 0,  /* not known */
	GS_DIFF_ITERS_STEPS = 1, /* distinct ProfilerStep#N range names */
	GS_DIFF_ITERS_NVTX = 2,  /* the most repeated outermost NVTX range name of both */
};

/* A group's change between the runs, on the basis of the comparison. */
enum gs_diff_status {
	GS_DIFF_SAME = 0,
	GS_DIFF_CHANGED = 1,
	GS_DIFF_ADDED = 2,    /* only in NEW ("new") */
	GS_DIFF_VANISHED = 3, /* only in BASE */
};

/* Kernels of one name on one GPU: those overlapping the window, their
 * durations clipped to it, as the report counts them (count 0: none on
 * that side). */
struct gs_diff_kernel {
	const char *name;
	uint64_t count[2];
	int64_t ns[2];      /* summed time */
	int64_t norm_ns[2]; /* ns on the basis of the comparison, rounded */
};

/* A group of waits, or of missed overlaps, of one key (gpuscope diff's
 * waits and missed_overlap). */
struct gs_diff_group {
	uint8_t kind;           /* waits: enum gs_edge_kind; missed: enum gs_copy_kind */
	const char *name;       /* waits: the consumer's name; missed: the copy's */
	uint64_t stream;        /* its stream id */
	const char *peer;       /* waits: the producer's name; missed: "" */
	uint64_t peer_stream;   /* waits: its stream id; missed: 0 */
	uint64_t count[2];      /* members on each side (0: none) */
	int64_t ns[2];          /* waits: summed wait_ns; missed: summed exposed_ns */
	int64_t hideable_ns[2]; /* missed: summed hideable_ns; waits: 0 */
	int64_t norm_ns[2];     /* ns on the basis of the comparison, rounded */
	int64_t weight_ns;      /* the time at stake, what ranks the groups */
	uint8_t status;         /* enum gs_diff_status */
};

struct gs_report;
struct gs_report_device;

/* A pair of GPUs, one of each run (or a GPU of one run only: the other
 * side's dev and report NULL, its numbers 0). */
struct gs_diff_gpu {
	uint32_t device;  /* NEW's GPU when paired (else the present side's) */
	uint32_t rank;    /* likewise */
	bool in_job;      /* a side has two or more ranks: name the rank */
	const char *name; /* NEW's GPU model, else BASE's; "" when unknown */
	/* Each side's device section (gpuscope/results.h) and its rank's
	 * report; NULL when absent on that side. */
	const struct gs_report_device *dev[2];
	const struct gs_report *report[2];
	uint32_t device_of[2], rank_of[2];  /* each side's GPU (when present) */
	bool explicit_pair;                 /* paired by --pair, not by id */
	bool models_differ;                 /* ... and of two GPU models */
	uint8_t basis;                      /* enum gs_diff_basis */
	uint8_t iter_src;                   /* enum gs_diff_iterations */
	uint64_t iters[2];                  /* 0: not known */
	const char *iter_name;              /* GS_DIFF_ITERS_NVTX: the range name */
	double divisor[2];                  /* each side's divisor for the basis (1: none) */
	int64_t metric[2][GS_DIFF_M_COUNT]; /* as recorded (enum gs_diff_metric) */
	double efficiency[2];               /* as the report gives it (NaN: none) */
	uint8_t efficiency_kind[2];         /* enum gs_report_eff */
	/* Ranked by the largest change on the basis, then by name. */
	struct gs_diff_kernel *kernels;
	size_t n_kernels;
	/* Ranked: new, vanished, changed, same; within each, weight_ns, most
	 * first, then by key. */
	struct gs_diff_group *waits;
	size_t n_waits;
	struct gs_diff_group *missed;
	size_t n_missed;
};

/* The GPU pairs: the --pair ones in the order given, then the others in
 * (rank, device) order. *n 0 (and NULL) when neither run has GPU ops. */
const struct gs_diff_gpu *gs_diff_gpus(const struct gs_diff *d, size_t *n);

/* A value `v` of side `side` of a pair on the basis of its comparison:
 * v / divisor[side]. */
double gs_diff_norm(const struct gs_diff_gpu *g, int side, int64_t v);

/* One run of a diff (side: enum gs_diff_side); d NULL: "", 0. */
struct gs_diff_run {
	const char *label;  /* the base_name / new_name option; "base", "new" */
	const char *format; /* the base_format / new_format option; "" */
	size_t ops;         /* GPU ops of its trace(s), every rank's */
	size_t gpus;        /* devices reported, every rank's */
};
void gs_diff_run(const struct gs_diff *d, int side, struct gs_diff_run *out);

/* The rows of a ranked text table (the top option; default 10). */
size_t gs_diff_top(const struct gs_diff *d);

/* Aligned tables for people; every line fits 100 columns. */
gs_status gs_diff_write_text(FILE *out, const struct gs_diff *d);
/* One object, schema "gpuscope.diff/1"; every row of every list. */
gs_status gs_diff_write_json(FILE *out, const struct gs_diff *d);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_DIFF_H */
