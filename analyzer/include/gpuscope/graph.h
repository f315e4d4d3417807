/* SPDX-License-Identifier: MIT */
/*
 * The dependency graph over the ops of a trace (stream order, events, the
 * default stream, host syncs, synchronous copies, data) and the waits: the
 * edges that held an op back.
 */
#ifndef GPUSCOPE_GRAPH_H
#define GPUSCOPE_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/* gs_edge.flags: the recording contradicts the edge (its consumer started
 * before its producer ended: clocks that disagree, ops that overlap on a
 * stream). Kept, so that the schedules still order the two ops. */
#define GS_EDGEF_RECORDED_EARLY 1u

/*
 * An edge between two ops (indices into gs_trace_ops()). 16 bytes: a graph
 * holds about one edge an op and lives through every analysis, so the
 * event id (8 bytes, on a few edges in a hundred) is kept aside in the
 * graph's event table: gs_graph_edge_event() reads it.
 */
struct gs_edge {
	uint32_t from;
	uint32_t to;
	uint8_t kind;  /* enum gs_edge_kind */
	uint8_t flags; /* GS_EDGEF_* */
	/* 1 + index into gs_graph.events for an event edge whose event id is
	 * known; 0 otherwise. */
	uint32_t event_ref;
};

/*
 * The graph over all ops of a finished trace. Edges are sorted by
 * (to, from, kind) and deduplicated; in_first has n_ops + 1 entries: the
 * edges into op i are edges[in_first[i] .. in_first[i + 1]).
 *
 * A default_stream edge that a path of kept edges implies so that no
 * schedule, wait, bound or what-if can tell it is there (analyzer/analyses/
 * graph.c says when) is left out of edges[]: implied_edges counts those.
 * edge_count counts every edge of the graph, the implied ones included, so
 * the edges of the graph number n_edges + implied_edges.
 */
struct gs_graph {
	size_t n_ops;
	struct gs_edge *edges;
	size_t n_edges;
	/* 32-bit: edges are counted in 32 bits, as ops are (gs_graph_build
	 * refuses a graph of more edges). */
	uint32_t *in_first;
	/* The event ids edges name (gs_edge.event_ref). */
	uint64_t *events;
	size_t n_events;
	/* Per op: the API call that launched it (index into
	 * gs_trace_api_calls(), GS_NO_INDEX when unknown): the trace's
	 * gs_trace_op_launches(), borrowed (valid while the trace is). */
	const uint32_t *launch;
	uint64_t edge_count[GS_EDGE_KIND_COUNT];
	uint64_t implied_edges;
	/* Stream waits whose event record could not be found. */
	uint64_t unlinked_waits;
	/* cudaStreamWaitEvent calls seen without any sync record to link. */
	uint64_t unlinked_wait_calls;
	/* True when stream kinds were known (default-stream edges possible). */
	bool stream_kinds_known;
	bool has_data_edges;
	/* Host-synchronous copies whose call returned before the copy ended
	 * (a pageable host-to-device cudaMemcpy[Async] returns once its data
	 * is staged): the host did not wait for them, so they have no
	 * sync_copy edges. Op indices, ascending. */
	uint32_t *returned_early;
	size_t n_returned_early;
	/* Edges kept that the recording contradicts (GS_EDGEF_RECORDED_EARLY),
	 * by kind. */
	uint64_t recorded_early[GS_EDGE_KIND_COUNT];
	/* Possible data dependencies (segment evidence), in allocation then
	 * time order: not in edges[]. has_data_edges counts only proven ones. */
	struct gs_segment_edge *segment_edges;
	size_t n_segment_edges;
};

/*
 * A possible data dependency: two ops touch one allocation that several
 * buffers share (a caching allocator's segment, GS_LINK_SEGMENT) at places
 * the trace cannot tell apart or together (an op's pointer, not its size,
 * is known). Not a graph edge: schedules, the critical path and the
 * what-ifs never follow it; it is there to be reported as such.
 */
struct gs_segment_edge {
	uint32_t from;       /* op index, the earlier */
	uint32_t to;         /* op index */
	uint32_t allocation; /* index into gs_trace_allocations() */
};

/* Edges (all but stream order) a graph may hold by default: 16 Mi, about
 * 270 MB (a trace of 10 M ops has a few million). */
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

/* The event id of edge e of g (an event edge's); 0 when unknown or none. */
static inline uint64_t gs_graph_edge_event(const struct gs_graph *g, const struct gs_edge *e)
{
	return e->event_ref && e->event_ref <= g->n_events ? g->events[e->event_ref - 1] : 0;
}

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

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_GRAPH_H */
