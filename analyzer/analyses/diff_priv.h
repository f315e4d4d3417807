/* SPDX-License-Identifier: MIT */
/*
 * Internal: the diff of two reports as diff_match.c builds it and
 * diff_write.c writes it (text, JSON).
 */
#ifndef GS_ANALYZER_DIFF_PRIV_H
#define GS_ANALYZER_DIFF_PRIV_H

#include "gate_priv.h"
#include "report_model_priv.h"

#include <gpuscope/diff.h>
#include <gpuscope/report.h>

enum {
	SIDE_BASE = 0,
	SIDE_NEW = 1
};

enum metric_id {
	M_WINDOW,
	M_KERNEL,
	M_COPY,
	M_SYNC,
	M_IDLE,
	M_COPY_HIDDEN,
	M_CONCURRENCY,
	M_HOST_BOUND,
	M_LAUNCH_LATENCY,
	M_UNATTRIBUTED,
	M_ACTUAL,
	M_DEP_BOUND,
	M_IDEAL,
	M_PIPELINED,
	M_OPS,
	M_KERNELS,
	M_MEMCPYS,
	M_MEMSETS,
	M_WAITS,
	M_WAIT_NS,
	M_MISSED,
	M_MISSED_NS,
	M_COUNT
};

/* Kernels of one name on one device. */
struct kern_row {
	const char *name;
	uint64_t count[2];
	int64_t ns[2];
	int64_t norm[2]; /* ns on the basis of the comparison (basis) */
};

/* What the times and counts of a GPU pair are compared on. */
enum basis {
	B_TOTAL,         /* as recorded */
	B_PER_ITERATION, /* divided by each side's iterations */
	B_SCALED_BY_OPS  /* NEW scaled to BASE's op count */
};

/* Where the iteration counts come from. */
enum iter_src {
	IT_NONE,
	IT_STEPS, /* distinct ProfilerStep#N range names */
	IT_NVTX   /* the most repeated outermost NVTX range name of both */
};
enum group_status {
	ST_SAME,
	ST_CHANGED,
	ST_NEW,
	ST_VANISHED
};

/* A group of waits or of missed overlaps. */
struct group {
	uint8_t kind;  /* waits: enum gs_edge_kind; missed: enum gs_copy_kind */
	const char *a; /* waits: consumer name; missed: copy name */
	uint64_t sa;   /* its stream id */
	const char *b; /* waits: producer name; missed: unused ("") */
	uint64_t sb;
	uint64_t count[2];
	int64_t ns[2];    /* wait_ns; missed: exposed_ns */
	int64_t extra[2]; /* missed: hideable_ns */
	int64_t norm[2];  /* ns on the basis of the comparison */
	int64_t weight;   /* the time at stake, for the ranking */
	uint8_t status;
};

struct dev_diff {
	uint32_t device;
	uint32_t rank;
	bool in_job; /* a side has two or more ranks: name the rank */
	const char *name;
	const struct gs_report_device *d[2]; /* NULL when absent on that side */
	const struct gs_report *rk[2];       /* the rank's report on each side */
	uint32_t dev_of[2], rank_of[2];      /* each side's GPU */
	bool explicit_pair;                  /* paired by an option, not by id */
	bool models_differ;                  /* ... and of two GPU models */
	uint8_t basis;                       /* enum basis */
	uint8_t iter_src;                    /* enum iter_src */
	uint64_t iters[2];                   /* 0: not known */
	const char *iter_name;               /* IT_NVTX: the range name */
	double f[2];                         /* each side's divisor (basis) */
	int64_t m[2][M_COUNT];
	double eff[2];
	uint8_t eff_kind[2]; /* enum gs_report_eff */
	struct kern_row *kernels;
	size_t n_kernels;
	struct group *waits;
	size_t n_waits;
	struct group *missed;
	size_t n_missed;
};

struct gs_diff {
	struct gs_report *r[2]; /* a report, or the report of a job */
	char *label[2];
	char *format[2];
	size_t top;
	uint64_t max_edges;
	const struct gs_diff_pair *pairs;
	size_t n_pairs;
	struct dev_diff *dev;
	size_t n_dev;
	/* Warnings about the comparison, one line each (owned). */
	char **warnings;
	size_t n_warnings;
	/* The verdict of --fail-if (gs_diff_gate); NULL without one. */
	struct gs_gate_verdict *verdict;
};

/* A value of one side on the basis of the comparison. */
double diff_norm_of(const struct dev_diff *dd, int side, int64_t v);

#endif /* GS_ANALYZER_DIFF_PRIV_H */
