/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the analyses (common.c): joining ops and syncs
 * to the API call that issued them, finding a host thread, small macros.
 */
#ifndef GS_ANALYZER_PRIV_H
#define GS_ANALYZER_PRIV_H

#include <gpuscope/analyzer.h>
#include <gpuscope/sort.h>

#include <stddef.h>
#include <stdint.h>

#define GS_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/*
 * API calls of a finished trace indexed by correlation id (an open-addressing
 * hash table of call indices; several calls may share one id: runtime and
 * driver rows of one call in some exports, or several processes merged into
 * one trace). Built in O(A) for A calls; a lookup costs O(1 + calls sharing
 * the id). Borrows the trace, which must not change while the index lives.
 */
struct gs_launch_index {
	const struct gs_api_call *calls;
	size_t n_calls;
	uint32_t *slots; /* call index, or GS_NO_INDEX when the slot is empty */
	size_t mask;     /* slot count - 1 (a power of two) */
	/* Correlation ids are a counter: when they are dense, a direct table
	 * replaces the hash (slots NULL): head[corr - base] is the first call
	 * with that id, next[] the following ones, in call order. */
	uint64_t base;
	size_t range;
	uint32_t *head;
	uint32_t *next;
};

gs_status gs_launch_index_init(struct gs_launch_index *ix, const struct gs_trace *t);
void gs_launch_index_fini(struct gs_launch_index *ix);

/*
 * The call with correlation id `corr` (0: none), or GS_NO_INDEX. When several
 * calls share the id: those of process `pid` are preferred when pid > 0, then
 * those that started no later than `before_ns` (an op starts after its launch
 * call; pass INT64_MAX for no constraint), then the latest start; a call of
 * the same thread enclosing the chosen one (a runtime call around its driver
 * call) wins over it, the outermost first.
 */
uint32_t gs_launch_index_find(const struct gs_launch_index *ix, uint64_t corr, int64_t pid,
			      int64_t before_ns);

/* The API call that launched op `op` (GS_NO_INDEX when unknown). */
uint32_t gs_launch_index_find_op(const struct gs_launch_index *ix, const struct gs_trace *t,
				 const struct gs_op *op);

/*
 * Per op of the trace (gs_trace_ops() order), the index of the API call that
 * launched it, GS_NO_INDEX when unknown. Caller frees *out. O(N + A).
 */
gs_status gs_op_launches(const struct gs_trace *t, uint32_t **out);

/*
 * From this many devices on, the per-device passes of a report (or an
 * export) share tables built once instead of reading every API call or
 * thread of the trace for each device; with fewer, a device's own pass
 * costs no more than the tables and keeps less memory.
 */
#define GS_SHARE_MIN_DEVICES 8

/*
 * What the breakdowns of the devices of one trace share: the launch call of
 * every op (gs_op_launches(), the graph's `launch`, borrowed; NULL: each
 * breakdown indexes the calls itself) and tables built once instead of once
 * a device; with `keep`, also each thread's calls flattened, kept from one
 * device to the next (else freed after each). gs_breakdown_compute_cached
 * is gs_breakdown_compute with one (NULL: a cache of its own).
 */
struct gs_breakdown_cache;
gs_status gs_breakdown_cache_create(const struct gs_trace *t, const uint32_t *launch, bool keep,
				    struct gs_breakdown_cache **out);
void gs_breakdown_cache_destroy(struct gs_breakdown_cache *c);
gs_status gs_breakdown_compute_cached(const struct gs_trace *t, uint32_t device,
				      const struct gs_window *win, struct gs_breakdown_cache *cache,
				      struct gs_breakdown *out);

/* gs_graph_candidates_compute with the launch call of every op given (as
 * above; NULL: it indexes the calls itself when it needs them). */
gs_status gs_graph_candidates_compute_launch(const struct gs_trace *t, uint32_t device,
					     const struct gs_window *win, const uint32_t *launch,
					     struct gs_graph_candidate **out, size_t *n);

/* Index into gs_trace_threads() of host thread (pid, tid), or GS_NO_INDEX.
 * Binary search, O(log T). */
uint32_t gs_trace_find_thread(const struct gs_trace *t, int64_t pid, int64_t tid);

/* True when `part` (lower case) is in `s`, in any case. */
bool gs_has_ci(const char *s, const char *part);

/* A range of gs_trace_ops(): ops[first .. first + count). */
struct gs_op_range {
	size_t first;
	size_t count;
};

/*
 * The ops of `device` (gs_op_device), as ranges in ascending order: one
 * per stream of the device (a stream's ops are contiguous in a finished
 * trace), so visiting them costs O(ops and streams of the device), not
 * O(all ops) nor O(all streams). Caller frees *out (NULL when *n is 0).
 */
gs_status gs_device_op_ranges(const struct gs_trace *t, uint32_t device, struct gs_op_range **out,
			      size_t *n);

#endif /* GS_ANALYZER_PRIV_H */
