/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the analyses (op_devices.c): finding a host
 * thread, small macros. Joins of ops and syncs to their API calls are the
 * trace's (gs_trace_op_launches(), gs_trace_sync_calls()).
 */
#ifndef GS_ANALYZER_PRIV_H
#define GS_ANALYZER_PRIV_H

#include <gpuscope/breakdown.h>
#include <gpuscope/cudagraph.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/sort.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/window.h>

#include <stddef.h>
#include <stdint.h>

#define GS_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/*
 * From this many devices on, the per-device passes of a report (or an
 * export) share tables built once instead of reading every API call or
 * thread of the trace for each device; with fewer, a device's own pass
 * costs no more than the tables and keeps less memory.
 */
#define GS_SHARE_MIN_DEVICES 8

/*
 * What the breakdowns of the devices of one trace share: the launch call of
 * every op (borrowed; NULL: the trace's, gs_trace_op_launches()) and tables built once instead of once
 * a device; with `keep`, also each thread's calls flattened, kept from one
 * device to the next (else freed after each). gs_breakdown_compute_cached
 * is gs_breakdown_compute with one (NULL: a cache of its own).
 */
struct gs_breakdown_cache;
gs_status gs_breakdown_cache_create(const struct gs_trace *t, const uint32_t *launch, bool keep,
				    struct gs_breakdown_cache **out);
void gs_breakdown_cache_destroy(struct gs_breakdown_cache *c);
/* Keep each thread's flattened calls from one breakdown to the next (many
 * breakdowns of one device, its steps'), or, turned off, free the kept
 * ones. */
void gs_breakdown_cache_keep(struct gs_breakdown_cache *c, bool keep);
/* gs_host_ranges_compute over the cache's index of the trace's host
 * ranges (built when first needed). */
gs_status gs_breakdown_cache_host_ranges(struct gs_breakdown_cache *c,
					 const struct gs_host_interval *iv, size_t n,
					 struct gs_host_ranges *out);
/* The cache takes a host range index built for its trace beforehand
 * (gs_host_index_build, on another thread while this one did other work)
 * and owns it from here; its forks borrow it, shared or not. */
gs_status gs_breakdown_cache_adopt_host_index(struct gs_breakdown_cache *c,
					      struct gs_host_index *hix);
gs_status gs_breakdown_compute_cached(const struct gs_trace *t, uint32_t device,
				      const struct gs_window *win, struct gs_breakdown_cache *cache,
				      struct gs_breakdown *out);
/*
 * The devices' breakdowns on several threads at once: gs_breakdown_cache_share
 * builds on the calling thread what the breakdowns would build on first
 * need (the reach arrays when `windows`: some breakdown is over a window;
 * the host range index and its busy cuts; with `keep`, the flattened calls
 * of every thread that launched an op), so that each thread, through a
 * gs_breakdown_cache_fork of its own (its own name slots, its own pieces
 * when not kept, its own query scratch of the index), only reads the shared
 * cache. A fork is destroyed before its cache. Without sharing first, a
 * fork builds what it needs for itself (one thread: as the cache would).
 */
gs_status gs_breakdown_cache_share(struct gs_breakdown_cache *c, bool windows);
/* The reach arrays alone (what _share builds when `windows`), built ahead
 * by a caller with time to spare before the breakdowns. */
gs_status gs_breakdown_cache_reach(struct gs_breakdown_cache *c);
gs_status gs_breakdown_cache_fork(const struct gs_breakdown_cache *c,
				  struct gs_breakdown_cache **out);

/* The host range index for several threads (hostattr.c): _share builds
 * what queries would build on first need, after which each thread queries
 * through a _fork (scratch of its own, the rest borrowed), destroyed with
 * gs_host_index_destroy before the index. */
gs_status gs_host_index_share(struct gs_host_index *ix);
gs_status gs_host_index_fork(const struct gs_host_index *ix, struct gs_host_index **out);

/* gs_cudagraph_candidates_compute with the launch call of every op given (as
 * above; NULL: the trace's, gs_trace_op_launches()). */
gs_status gs_cudagraph_candidates_compute_launch(const struct gs_trace *t, uint32_t device,
						 const struct gs_window *win,
						 const uint32_t *launch,
						 struct gs_cudagraph_candidate **out, size_t *n);

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

/* In a range of ops by start (a stream's), the first that starts at or
 * after t; the range's end when none. O(log n). */
size_t gs_op_range_first_at(const struct gs_op *ops, struct gs_op_range r, int64_t t);

#endif /* GS_ANALYZER_PRIV_H */
