/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the graph builder share: the builder's state and
 * indexes, and the functions one part calls in another. graph.c: indexes,
 * stream and launch order, data edges, the finish, waits; graph_sync.c:
 * the edges of syncs (event, stream, context) and synchronous copies;
 * graph_default.c: the legacy default stream's edges.
 */
#ifndef GS_GRAPH_PRIV_H
#define GS_GRAPH_PRIV_H

#include <gpuscope/graph.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An op under a sort key: its correlation id, or the allocation it touches. */
struct op_key {
	uint64_t key;
	int64_t start;
	uint32_t op;
};

/*
 * The ops of one stream by (correlation, start, op), ops without an id
 * left out: usually the stream's ops as they are (ids grow with the start
 * on a stream), read in place; else a sorted copy in by_corr.
 */
struct corr_index {
	size_t lo, hi;
	bool in_place; /* ops[lo .. hi); else by_corr[lo .. hi) */
	/* In place: the id of every GS_SKIP-th op, skip[k] for op lo +
	 * GS_SKIP * k, so that a search touches a few ops, not log2(n) of
	 * them far apart. */
	const uint64_t *skip;
};

#define GS_SKIP ((size_t)16)

/* One op launched by a host thread (index into gs_trace_threads()). */
struct launch_entry {
	int64_t api_start;
	uint32_t op;
	uint32_t thread;
};

/* The ops one thread launched on one stream, by (launch start, op):
 * launches[first .. end). Groups are ordered by (thread, stream), that is
 * by (pid, tid, stream). */
struct launch_group {
	uint32_t thread;
	uint32_t stream;
	size_t first;
	size_t end;
};

struct builder {
	const struct gs_trace *t;
	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_stream *streams;
	size_t n_streams;
	const struct gs_api_call *api;
	size_t n_api;
	const struct gs_thread *threads;
	size_t n_threads;
	struct gs_graph *g;

	struct corr_index *by_stream; /* per stream */
	uint64_t *skip;
	struct op_key *by_corr;
	struct launch_entry *launches;
	size_t n_launches;
	struct launch_group *groups;
	size_t n_groups;
	/* Per thread: its groups from thread_group[th] to thread_group[th + 1],
	 * and the same groups by the start of their last launch, latest first
	 * (by_last[thread_group[th] ..)), so that the streams a thread launched
	 * on after a time are a prefix. */
	size_t *thread_group;
	uint32_t *by_last;
	/* Per thread: the starts of all its launches, sorted, from
	 * thread_launch[th] to thread_launch[th + 1]. */
	int64_t *launch_start;
	size_t *thread_launch;

	/* Leave out the edges a path implies (see the top); false to keep
	 * every edge. */
	bool reduce;
	uint64_t max_edges;
	uint64_t implied; /* default-stream edges left out */

	/* Every edge but stream order (implicit until finish_edges). */
	struct gs_edge *edges;
	size_t n_edges, cap_edges;
	/* The event ids the edges name (gs_edge.event_ref), in the order
	 * added; handed to the graph. */
	uint64_t *events;
	size_t n_events, cap_events;
};

/* The most edges a build adds (stream order aside): edges are named in 32
 * bits (gs_edge.event_ref), as the graph's CSR index counts them. */
#define GS_GRAPH_MOST_ADDED ((size_t)UINT32_MAX)

/* graph.c */
gs_status graph_add_edge(struct builder *b, uint32_t from, uint32_t to, uint8_t kind,
			 uint64_t event);
uint64_t graph_corr_at(const struct builder *b, const struct corr_index *x, size_t i);
uint32_t graph_op_at(const struct builder *b, const struct corr_index *x, size_t i);
uint32_t graph_last_before(const struct builder *b, uint32_t s, uint64_t c);
uint32_t graph_first_after(const struct builder *b, uint32_t s, uint64_t c);
bool graph_launched_between(const struct builder *b, uint32_t th, int64_t from, int64_t to);
bool graph_launches_after(const struct builder *b, uint32_t th, int64_t after_ns);

/* graph_sync.c */
gs_status graph_sync_edges(struct builder *b);
gs_status graph_sync_copy_edges(struct builder *b);

/* graph_default.c */
gs_status graph_default_stream_edges(struct builder *b);

#endif
