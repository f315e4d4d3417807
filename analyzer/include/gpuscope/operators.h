/* SPDX-License-Identifier: MIT */
/*
 * GPU time per host operator: each GPU op of a device goes to the host
 * range that launched it, the range of the launching thread open at the
 * start of its launch call (joined by correlation id), and per range name
 * the calls, the kernels and copies launched, and their GPU time.
 */
#ifndef GPUSCOPE_OPERATORS_H
#define GPUSCOPE_OPERATORS_H

#include <stdbool.h>
#include <stdint.h>

#include <gpuscope/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Which range of the launching thread an op goes to (a range is open at
 * time t when start <= t < end; of two open ranges the one that started
 * later is the inner, on the same start the shorter):
 *   OPERATOR  the innermost open cpu_op / Operator range (Kineto) or NVTX
 *             range (Nsight, .gscope);
 *   MODULE    the innermost open python_function range named
 *             "nn.Module: ..." (PyTorch's module ranges); where none is
 *             open, the outermost open user_annotation that is not a
 *             "ProfilerStep#N" marker; where none is open either, the
 *             outermost open NVTX range.
 * An op whose launch call has no such range open goes to "no operator".
 */
enum gs_op_level {
	GS_OP_LEVEL_OPERATOR = 0,
	GS_OP_LEVEL_MODULE = 1,
};
#define GS_OP_LEVEL_COUNT 2
/* "operator", "module". */
const char *gs_op_level_name(unsigned level);

/* The ranges of a trace that can be operators at one level, cut per host
 * thread into pieces each owned by one of them. Built once for every
 * device of the trace. */
struct gs_op_index;

/* O(R log R) for the trace's R ranges. The trace must be finished and
 * outlive the index. */
gs_status gs_op_index_build(const struct gs_trace *t, unsigned level, struct gs_op_index **out);
void gs_op_index_destroy(struct gs_op_index *ix);
/* Ranges of the trace that can be operators at the index's level. */
uint64_t gs_op_index_ranges(const struct gs_op_index *ix);

/* The ops of one name launched by an operator. */
struct gs_operator_kernel {
	uint32_t name; /* string id */
	uint8_t kind;  /* enum gs_op_kind of the first such op */
	uint64_t count;
	int64_t ns;
};

/* What the reports call the row of the ops launched outside every
 * operator. */
#define GS_OPERATOR_OUTSIDE_NAME "(no operator)"

/* One operator name (or, with outside set, the ops launched outside every
 * operator). */
struct gs_operator {
	uint32_t name;  /* string id; GS_NO_STRING for the outside row */
	uint8_t source; /* enum gs_range_kind of the first range seen */
	bool outside;
	/* Ranges of the name that the device's ops in the window were counted
	 * at (each op at one range); ranges of the name in the whole trace. */
	uint64_t calls;
	uint64_t total_calls;
	uint64_t kernels; /* ops counted at the name, by kind */
	uint64_t copies;  /* memcpy and memset */
	int64_t ns;       /* their summed time, each cut to the window */
	int64_t kernel_ns;
	int64_t copy_ns;
	/* Every op name launched, ranked by ns (then name); n_ops_by_name of
	 * them. Points into gs_operators.names. */
	struct gs_operator_kernel *ops_by_name;
	size_t n_ops_by_name;
};

/*
 * The operators of one device over [window_start, window_end): the device's
 * ops overlapping it, each with its time cut to it. Ops whose launch call
 * is known (`launch`, per op: gs_trace_op_launches()) are `ops`, summing to
 * `ns`, and each is counted at exactly one row, so the rows' ns add up to
 * `ns`; the others are `unlinked_ops` (unlinked_ns), in no row. With no
 * range that can be an operator in the trace, nothing is computed (no rows,
 * every count 0). O(N log R) for the device's N ops.
 */
struct gs_operators {
	uint8_t level;   /* enum gs_op_level */
	uint64_t ranges; /* gs_op_index_ranges */
	uint64_t ops;    /* ops with a known launch call */
	int64_t ns;      /* their summed time */
	uint64_t unlinked_ops;
	int64_t unlinked_ns;
	/* Ranked by ns (largest first), then name; the outside row among
	 * them. */
	struct gs_operator *rows;
	size_t n_rows;
	struct gs_operator_kernel *names; /* the rows' ops_by_name */
	size_t n_names;
};

gs_status gs_operators_compute(const struct gs_trace *t, const struct gs_op_index *ix,
			       uint32_t device, int64_t window_start, int64_t window_end,
			       const uint32_t *launch, struct gs_operators *out);
void gs_operators_fini(struct gs_operators *o);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_OPERATORS_H */
