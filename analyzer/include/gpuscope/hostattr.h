/* SPDX-License-Identifier: MIT */
/*
 * Host-bound idle attributed to host ranges: what the launching thread was
 * doing (Kineto cpu_op / python_function / user_annotation, NVTX) while the
 * device sat idle because the next op had not been launched yet.
 *
 * For each host-bound interval [a, c) of a launching thread (pid, tid), each
 * instant goes to the innermost range of that thread covering it: the one
 * that started last (same start: the one that ends first; same start and
 * end: cpu_op inside python_function inside other inside user_annotation
 * inside NVTX). Time covered by no range of the thread is "outside".
 *
 * Waits are forwarded: an instant whose innermost range is a wait (a
 * function named wait, acquire, join, select, poll, _wait_for_tstate_lock,
 * or a queue's get) goes to the thread of the same process that is busy
 * then (its innermost range is not a wait) and most recently entered its
 * current innermost piece of work (ties: the lower tid); with no such
 * thread, it stays with the wait range. So the attributed time plus the
 * outside time is exactly the host-bound time.
 */
#ifndef GPUSCOPE_HOSTATTR_H
#define GPUSCOPE_HOSTATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a piece of host time was, for the advice. A range's class comes
 * from its name and from the ranges around it (a resize inside a data
 * loader's __next__ is input pipeline). */
enum gs_host_class {
	GS_HOST_INPUT = 0,    /* data loading, file reads, preprocessing */
	GS_HOST_SYNC = 1,     /* a synchronizing call (.item(), synchronize) */
	GS_HOST_OPERATOR = 2, /* framework operators and Python code */
	GS_HOST_OTHER = 3,    /* annotations and NVTX ranges of other names */
	GS_HOST_WAIT = 4,     /* a wait whose cause the trace does not show */
};
#define GS_HOST_CLASS_COUNT 5
const char *gs_host_class_name(unsigned cls);

/* Host-bound time credited to one range name (and kind). */
struct gs_host_range_time {
	uint32_t name;    /* string id in the trace */
	uint32_t context; /* the outermost input-pipeline range around it
			     ("__next__"), GS_NO_STRING when none */
	uint8_t kind;     /* enum gs_range_kind */
	uint8_t cls;      /* enum gs_host_class where it got time first */
	int64_t ns;
	int64_t forwarded_ns; /* the part reached from a waiting thread */
	uint64_t gaps;        /* host-bound intervals it got time in */
};

struct gs_host_ranges {
	bool recorded;                     /* the trace holds host ranges at all */
	struct gs_host_range_time *ranges; /* ranked, longest first */
	size_t n_ranges;
	int64_t outside_ns;   /* covered by no range of the launching thread */
	int64_t forwarded_ns; /* moved from a wait to another thread's range */
	int64_t kind_ns[GS_RANGE_KIND_COUNT];
	int64_t class_ns[GS_HOST_CLASS_COUNT];
	uint64_t intervals; /* host-bound intervals attributed */
	/* Of those, the ones no longer than GS_HOST_SHORT_GAP_NS, and their
	 * time: per-op overhead, what a CUDA Graph removes. */
	uint64_t short_intervals;
	int64_t short_ns;
};

#define GS_HOST_SHORT_GAP_NS 100000 /* 100 us */

/* One host-bound interval [start_ns, end_ns) of thread (pid, tid). */
struct gs_host_interval {
	int64_t start_ns;
	int64_t end_ns;
	int64_t pid;
	int64_t tid;
};

/* The ranges of a finished trace, per thread, flattened to their innermost
 * pieces: built once in O(R log R) for R ranges, then queried. */
struct gs_host_index;
gs_status gs_host_index_build(const struct gs_trace *t, struct gs_host_index **out);
void gs_host_index_destroy(struct gs_host_index *ix);

/*
 * Attribute the intervals (each one gap; in any order) to the ranges of
 * `ix` (NULL: a trace without ranges, all of it outside). `out` is zeroed
 * first. O(n log P + pieces visited) for P pieces. The index keeps scratch
 * space: one query at a time.
 */
gs_status gs_host_ranges_compute(struct gs_host_index *ix, const struct gs_host_interval *iv,
				 size_t n, struct gs_host_ranges *out);
void gs_host_ranges_fini(struct gs_host_ranges *h);

/* Whether a range name reads as a wait (see above). */
bool gs_host_name_is_wait(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_HOSTATTR_H */
