/* SPDX-License-Identifier: MIT */
/*
 * The dependency graph and the waits (docs/design.md). The edges of syncs
 * are graph_sync.c, those of the legacy default stream graph_default.c;
 * graph_priv.h holds the builder they share.
 *
 * Enqueue order is read from correlation ids (one increasing counter per
 * process): "the last op on stream S enqueued before call C" is the op of
 * S with the largest correlation below C's. Each stream keeps its ops
 * sorted by (correlation, start) for binary searches, and each host thread
 * keeps, per stream, the ops it launched sorted by launch-call start, so
 * "the first op the thread launched on S after time T" is a binary search
 * too, and the streams a thread launched on after T are found without
 * looking at the others. Every step costs O(log N) per edge it adds, or
 * less: none costs the streams or the syncs of the trace times anything.
 *
 * Default-stream edges: op D of the legacy default stream and each blocking
 * stream S of its context are joined both ways (the last op of S enqueued
 * before D -> D, D -> the first op of S enqueued after it). When D follows
 * D' on the default stream and both have the same op X of S before them,
 * X -> D' -> D is a path already; most of these edges say nothing the path
 * does not, and there are (default-stream ops) x (blocking streams) of
 * them. Such an edge is left out of edges[] (counted in edge_count, as
 * `implied`) exactly when no analysis can tell: when the stream order from
 * D' to D holds in every schedule and every what-if (no batch start, no
 * data edges), ends grow along it, each op there starts after the one
 * before ended, X ended before D' ended and started no later than D'
 * started (so X is never what held D, nor a wait of D, nor the latest
 * producer of D in any schedule or window), and the graph has no cycle.
 * The same holds the other way (D' -> S-op left out when D' -> D -> S-op
 * is a path, the stream order from D' to D holds as above, D ended by the
 * S-op's start and D' ended before the S-op was otherwise ready, so that
 * it is no wait). Each (default stream op, blocking stream) pair is looked at as a
 * range of ops: O((B + D) log N) for B blocking-stream and D default-stream
 * ops, plus the edges kept. With a cycle (a corrupt trace), every edge is
 * kept. The edges a build may add are bounded (max_edges).
 */
#include <gpuscope/graph.h>
#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <gpuscope/u64map.h>
#include <gpuscope/vec.h>
#include "analyzer_priv.h"
#include "graph_priv.h"
#include "schedule_priv.h"

#include <stdlib.h>
#include <string.h>

const char *gs_edge_kind_name(unsigned kind)
{
	static const char *const names[] = {"stream_order", "event",     "default_stream",
					    "host_sync",    "sync_copy", "data"};

	return kind < GS_EDGE_KIND_COUNT ? names[kind] : "unknown";
}

gs_status graph_add_edge(struct builder *b, uint32_t from, uint32_t to, uint8_t kind,
			 uint64_t event)
{
	if (from == to || from >= b->n_ops || to >= b->n_ops)
		return GS_OK; /* GS_NO_INDEX included */
	if (b->n_edges >= b->max_edges) {
		gs_error_append("more than max_edges (%llu) dependency edges",
				(unsigned long long)b->max_edges);
		return GS_ERR_LIMIT;
	}
	if (b->n_edges >= GS_GRAPH_MOST_ADDED) {
		/* Edges are counted and named in 32 bits (gs_graph.in_first,
		 * gs_edge.event_ref). */
		gs_error_append("more than %llu dependency edges (the most a graph holds)",
				(unsigned long long)GS_GRAPH_MOST_ADDED);
		return GS_ERR_LIMIT;
	}
	if (b->n_edges == b->cap_edges && gs_vec_grow((void **)&b->edges, &b->cap_edges,
						      b->n_edges + 1, sizeof(*b->edges)) != GS_OK)
		return GS_ERR_NOMEM;
	if (event && b->n_events == b->cap_events &&
	    gs_vec_grow((void **)&b->events, &b->cap_events, b->n_events + 1, sizeof(*b->events)) !=
		    GS_OK)
		return GS_ERR_NOMEM;
	if (event)
		b->events[b->n_events++] = event;
	b->edges[b->n_edges++] = (struct gs_edge){.from = from,
						  .to = to,
						  .kind = kind,
						  .event_ref = event ? (uint32_t)b->n_events : 0};
	return GS_OK;
}

/* ---- indexes ---- */

/* By key, then start, then op index. */
/* Whether the ops of [first, first + count) all have ids, in order. */
static bool corr_in_place(const struct gs_op *ops, size_t first, size_t count)
{
	for (size_t i = first; i < first + count; i++)
		if (!ops[i].correlation ||
		    (i > first && ops[i].correlation < ops[i - 1].correlation))
			return false;
	return true;
}

static gs_status index_streams(struct builder *b)
{
	size_t k = 0, need = 0, n_skip = 0;

	b->by_stream = calloc(b->n_streams + 1, sizeof(*b->by_stream));
	if (!b->by_stream)
		return gs_nomem();
	for (uint32_t s = 0; s < b->n_streams; s++) {
		size_t first, count;

		gs_trace_stream_ops(b->t, s, &first, &count);
		if (corr_in_place(b->ops, first, count)) {
			/* A stable sort by id would leave them so: (id, start, op). */
			b->by_stream[s] = (struct corr_index){first, first + count, true, NULL};
			n_skip += (count + GS_SKIP - 1) / GS_SKIP;
			continue;
		}
		need += count;
	}
	b->skip = malloc((n_skip ? n_skip : 1) * sizeof(*b->skip));
	if (!b->skip)
		return gs_nomem();
	for (uint32_t s = 0; s < b->n_streams; s++) {
		struct corr_index *x = &b->by_stream[s];

		if (!x->in_place || x->hi - x->lo < 2 * GS_SKIP)
			continue;
		x->skip = b->skip + k;
		for (size_t i = x->lo; i < x->hi; i += GS_SKIP)
			b->skip[k++] = b->ops[i].correlation;
	}
	k = 0;
	if (!need)
		return GS_OK;
	b->by_corr = malloc(need * sizeof(*b->by_corr));
	if (!b->by_corr)
		return gs_nomem();
	for (uint32_t s = 0; s < b->n_streams; s++) {
		size_t first, count, base = k;

		if (b->by_stream[s].in_place)
			continue;
		gs_trace_stream_ops(b->t, s, &first, &count);
		for (size_t i = first; i < first + count; i++) {
			if (!b->ops[i].correlation)
				continue;
			b->by_corr[k++] = (struct op_key){.key = b->ops[i].correlation,
							  .start = b->ops[i].start_ns,
							  .op = (uint32_t)i};
		}
		/* Built in op order, which is start order on a stream. */
		gs_sort_by_u64(b->by_corr + base, k - base, sizeof(*b->by_corr));
		b->by_stream[s] = (struct corr_index){base, k, false, NULL};
	}
	return GS_OK;
}

uint64_t graph_corr_at(const struct builder *b, const struct corr_index *x, size_t i)
{
	return x->in_place ? b->ops[i].correlation : b->by_corr[i].key;
}

uint32_t graph_op_at(const struct builder *b, const struct corr_index *x, size_t i)
{
	return x->in_place ? (uint32_t)i : b->by_corr[i].op;
}

/* The entries of a corr_index from `lo` on, searched for an id: those
 * below it (at most it when `strict`) come first. */
struct corr_key {
	const struct builder *b;
	const struct corr_index *x;
	size_t lo;
	uint64_t c;
	bool strict;
};

static bool corr_before(const void *ctx, size_t i)
{
	const struct corr_key *k = ctx;
	uint64_t v = graph_corr_at(k->b, k->x, k->lo + i);

	return k->strict ? v <= k->c : v < k->c;
}

/* The first entry of x with an id >= c (above c when `strict`). */
static size_t corr_bound(const struct builder *b, const struct corr_index *x, uint64_t c,
			 bool strict)
{
	size_t lo = x->lo, hi = x->hi;
	struct corr_key key = {b, x, 0, c, strict};

	if (x->skip) { /* narrow [lo, hi) to one block first */
		size_t khi = (x->hi - x->lo + GS_SKIP - 1) / GS_SKIP;
		size_t klo = strict ? gs_upper_bound_u64(x->skip, khi, c) :
				      gs_lower_bound_u64(x->skip, khi, c);

		/* Entry lo + GS_SKIP * klo is past the bound (or the end), the
		 * one GS_SKIP before is not. */
		if (klo > 0)
			lo = x->lo + GS_SKIP * (klo - 1) + 1;
		if (x->lo + GS_SKIP * klo < hi)
			hi = x->lo + GS_SKIP * klo;
	}
	key.lo = lo;
	return lo + gs_partition_point(hi - lo, corr_before, &key);
}

/* The last op of stream `s` enqueued before correlation `c`. */
uint32_t graph_last_before(const struct builder *b, uint32_t s, uint64_t c)
{
	size_t lo;

	if (s >= b->n_streams)
		return GS_NO_INDEX;
	lo = corr_bound(b, &b->by_stream[s], c, false);
	if (lo == b->by_stream[s].lo)
		return GS_NO_INDEX;
	return graph_op_at(b, &b->by_stream[s], lo - 1);
}

/* The first op of stream `s` enqueued after correlation `c`. */
uint32_t graph_first_after(const struct builder *b, uint32_t s, uint64_t c)
{
	size_t lo;

	if (s >= b->n_streams)
		return GS_NO_INDEX;
	lo = corr_bound(b, &b->by_stream[s], c, true);
	return lo < b->by_stream[s].hi ? graph_op_at(b, &b->by_stream[s], lo) : GS_NO_INDEX;
}

static int cmp_launch_in_stream(const void *pa, const void *pb)
{
	const struct launch_entry *a = pa, *b = pb;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->api_start != b->api_start)
		return a->api_start < b->api_start ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct launch_group *a = pa, *b = pb;

	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->stream < b->stream ? -1 : a->stream > b->stream;
}

/* The host thread of API call a (threads cover the calls in order);
 * `hint` is the last answer, usually right again. */
/* The threads searched for a call: those whose calls start at or before
 * it come first. */
struct call_thread_key {
	const struct gs_thread *threads;
	uint32_t a;
};

static bool starts_by(const void *ctx, size_t i)
{
	const struct call_thread_key *k = ctx;

	return k->threads[i].first_api <= k->a;
}

static uint32_t thread_of_call(const struct builder *b, uint32_t a, uint32_t hint)
{
	struct call_thread_key key = {b->threads, a};
	size_t lo;

	if (hint < b->n_threads && a >= b->threads[hint].first_api &&
	    a - b->threads[hint].first_api < b->threads[hint].api_count)
		return hint;
	/* one past the last thread starting at or before a */
	lo = gs_partition_point(b->n_threads, starts_by, &key);
	return lo ? (uint32_t)(lo - 1) : 0;
}

static gs_status push_group(struct builder *b, size_t *cap, struct launch_group g)
{
	if (b->n_groups == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct launch_group *ng = realloc(b->groups, c * sizeof(*ng));

		if (!ng)
			return gs_nomem();
		b->groups = ng;
		*cap = c;
	}
	b->groups[b->n_groups++] = g;
	return GS_OK;
}

/*
 * Per stream, the ops each thread launched, by (launch start, op): a
 * stream's ops come in op order, usually from one thread and in launch
 * order already, so most streams need no sort. The groups, one per
 * (thread, stream), are then put in (pid, tid, stream) order.
 */
static gs_status index_launches(struct builder *b)
{
	size_t cap = 0;
	uint32_t hint = 0;

	b->launches = calloc(b->n_ops ? b->n_ops : 1, sizeof(*b->launches));
	if (!b->launches)
		return gs_nomem();
	for (uint32_t s = 0; s < b->n_streams; s++) {
		size_t first, count, base = b->n_launches;
		bool one_thread = true, ordered = true;
		gs_status rc;

		gs_trace_stream_ops(b->t, s, &first, &count);
		for (size_t i = first; i < first + count; i++) {
			uint32_t a = b->g->launch[i];
			struct launch_entry *e, *prev;

			if (a >= b->n_api)
				continue;
			hint = thread_of_call(b, a, hint);
			e = &b->launches[b->n_launches++];
			*e = (struct launch_entry){.api_start = b->api[a].start_ns,
						   .op = (uint32_t)i,
						   .thread = hint};
			if (b->n_launches - base < 2)
				continue;
			prev = e - 1;
			if (prev->thread != e->thread)
				one_thread = false;
			else if (prev->api_start > e->api_start)
				ordered = false;
		}
		if (b->n_launches == base)
			continue;
		if (!one_thread)
			gs_sort(b->launches + base, b->n_launches - base, sizeof(*b->launches),
				cmp_launch_in_stream);
		else if (!ordered) /* in op order: by start alone is (start, op) */
			gs_sort_by_i64(b->launches + base, b->n_launches - base,
				       sizeof(*b->launches));
		for (size_t i = base; i < b->n_launches; i++) {
			if (i > base && b->launches[i].thread == b->launches[i - 1].thread) {
				b->groups[b->n_groups - 1].end = i + 1;
				continue;
			}
			rc = push_group(b, &cap,
					(struct launch_group){.thread = b->launches[i].thread,
							      .stream = s,
							      .first = i,
							      .end = i + 1});
			if (rc)
				return rc;
		}
	}
	gs_sort(b->groups, b->n_groups, sizeof(*b->groups), cmp_group);
	return GS_OK;
}

/* A group and the start of its last launch, for by_last. */
struct group_last {
	int64_t neg_last; /* minus the start: latest first */
	uint32_t group;
};

/*
 * Per thread, its range of groups, its groups by last launch (latest
 * first) and the starts of all its launches in order. O(L log L) for L
 * launches.
 */
static gs_status index_threads(struct builder *b)
{
	struct group_last *gl = calloc(b->n_groups ? b->n_groups : 1, sizeof(*gl));
	size_t k = 0;

	b->thread_group = calloc(b->n_threads + 1, sizeof(*b->thread_group));
	b->thread_launch = calloc(b->n_threads + 1, sizeof(*b->thread_launch));
	b->by_last = malloc((b->n_groups ? b->n_groups : 1) * sizeof(*b->by_last));
	b->launch_start = malloc((b->n_launches ? b->n_launches : 1) * sizeof(*b->launch_start));
	if (!gl || !b->thread_group || !b->thread_launch || !b->by_last || !b->launch_start) {
		free(gl);
		return gs_nomem();
	}
	for (size_t i = 0; i < b->n_groups; i++) {
		b->thread_group[b->groups[i].thread + 1]++;
		b->thread_launch[b->groups[i].thread + 1] += b->groups[i].end - b->groups[i].first;
		gl[i] = (struct group_last){.neg_last =
						    -b->launches[b->groups[i].end - 1].api_start,
					    .group = (uint32_t)i};
	}
	for (size_t th = 0; th < b->n_threads; th++) {
		b->thread_group[th + 1] += b->thread_group[th];
		b->thread_launch[th + 1] += b->thread_launch[th];
	}
	for (size_t th = 0; th < b->n_threads; th++) {
		size_t lo = b->thread_group[th], hi = b->thread_group[th + 1], base = k;

		/* Groups are in thread order: each thread's block is sorted alone. */
		gs_sort_by_i64(gl + lo, hi - lo, sizeof(*gl));
		for (size_t i = lo; i < hi; i++) {
			const struct launch_group *gr = &b->groups[gl[i].group];

			b->by_last[i] = gl[i].group;
			for (size_t j = gr->first; j < gr->end; j++)
				b->launch_start[k++] = b->launches[j].api_start;
		}
		gs_sort_by_i64(b->launch_start + base, k - base, sizeof(*b->launch_start));
	}
	free(gl);
	return GS_OK;
}

/* Whether thread th launched anything starting in [a, b). */
bool graph_launched_between(const struct builder *b, uint32_t th, int64_t from, int64_t to)
{
	size_t lo = b->thread_launch[th], hi = b->thread_launch[th + 1];

	lo += gs_lower_bound_i64(b->launch_start + lo, hi - lo, from);
	return lo < b->thread_launch[th + 1] && b->launch_start[lo] < to;
}

/* Whether thread th launched anything at or after `after_ns`. */
bool graph_launches_after(const struct builder *b, uint32_t th, int64_t after_ns)
{
	size_t k = b->thread_group[th];

	return k < b->thread_group[th + 1] &&
	       b->launches[b->groups[b->by_last[k]].end - 1].api_start >= after_ns;
}

/* An op touching an allocation (one data link). */
struct touch {
	uint64_t key; /* the allocation */
	int64_t start;
	uint32_t op;
	uint32_t link;
};

static int cmp_touch(const void *pa, const void *pb)
{
	const struct touch *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

/*
 * Whether two links of one allocation touch the same bytes: 1 proven, 0
 * proven not, -1 unknown. Without the segment mark on either (one buffer
 * per allocation, or a trace without offsets) every two touches meet, as
 * they always did. On a segment: the same offset meets; else, with the
 * lower pointer's size known, the higher one meets it when it starts
 * inside that range and not when it starts past its end (an op is taken
 * to touch the bytes from its pointer up); with that size unknown, nothing
 * is proven.
 */
static int links_meet(const struct gs_op_alloc *x, const struct gs_op_alloc *y)
{
	const struct gs_op_alloc *lo = x->offset <= y->offset ? x : y, *hi = lo == x ? y : x;

	if (!((x->flags | y->flags) & GS_LINK_SEGMENT) || x->offset == y->offset)
		return 1;
	if (!(x->flags & y->flags & GS_LINK_HAS_OFFSET) || !lo->bytes)
		return -1;
	return hi->offset - lo->offset < lo->bytes ? 1 : 0;
}

/* Touches of a segment looked back over for the one each op meets. */
#define SEGMENT_LOOKBACK 64

/*
 * Ops touching one allocation, in time order: each depends on the latest
 * one before that touches the same bytes (a data edge). On a segment
 * (GS_LINK_SEGMENT: one allocation shared by several buffers, a caching
 * allocator's), an op before it whose bytes may or may not be the same
 * (the latest such one, when later than the proven one) gives a segment
 * edge instead: a possible dependency, kept apart (segment_edges), never
 * a graph edge.
 */
static gs_status data_edges(struct builder *b)
{
	size_t n_links;
	const struct gs_op_alloc *links = gs_trace_op_allocs(b->t, &n_links);
	struct gs_u64map by_corr = {0};
	struct touch *touch = NULL;
	size_t n = 0, cap_seg = 0, first = 0;
	gs_status rc = GS_OK;

	if (!n_links)
		return GS_OK;
	touch = malloc(n_links * sizeof(*touch));
	if (!touch || gs_u64map_reserve(&by_corr, b->n_ops) != GS_OK) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t i = 0; i < b->n_ops; i++)
		if (b->ops[i].correlation)
			gs_u64map_put(&by_corr,
				      b->ops[i].correlation * GS_OP_KIND_COUNT + b->ops[i].kind,
				      (uint32_t)i, false);
	for (size_t i = 0; i < n_links; i++) {
		uint64_t op;

		if (!gs_u64map_get(&by_corr,
				   links[i].correlation * GS_OP_KIND_COUNT + links[i].op_kind, &op))
			continue;
		touch[n++] = (struct touch){.key = links[i].allocation,
					    .start = b->ops[op].start_ns,
					    .op = (uint32_t)op,
					    .link = (uint32_t)i};
	}
	if (n > 1)
		gs_sort(touch, n, sizeof(*touch), cmp_touch);
	for (size_t i = 1; i < n && !rc; i++) {
		size_t possible = SIZE_MAX;

		if (touch[i].key != touch[i - 1].key) {
			first = i;
			continue;
		}
		for (size_t j = i; j-- > first && i - j <= SEGMENT_LOOKBACK;) {
			int meet;

			if (touch[j].op == touch[i].op)
				continue; /* two pointers of one op */
			meet = links_meet(&links[touch[j].link], &links[touch[i].link]);
			if (meet == 1) {
				rc = graph_add_edge(b, touch[j].op, touch[i].op, GS_EDGE_DATA, 0);
				if (!rc)
					b->g->has_data_edges = true;
				break;
			}
			if (meet < 0 && possible == SIZE_MAX)
				possible = j;
		}
		if (rc || possible == SIZE_MAX)
			continue;
		if (GS_VEC_PUSH(b->g->segment_edges, b->g->n_segment_edges, cap_seg,
				((struct gs_segment_edge){.from = touch[possible].op,
							  .to = touch[i].op,
							  .allocation = (uint32_t)touch[i].key})))
			rc = gs_nomem();
	}
out:
	gs_u64map_fini(&by_corr);
	free(touch);
	return rc;
}

static int cmp_edge(const void *pa, const void *pb)
{
	const struct gs_edge *a = pa, *b = pb;

	/* finish_edges sorts filled edges only; the analyzer's path takes its
	 * loops both ways. */
	/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->kind < b->kind ? -1 : a->kind > b->kind;
}

/* Edges into one op, by (from, kind), stable: an insertion sort (an op has
 * a few in-edges), gs_sort for the rare op with many. */
static void sort_in_edges(struct gs_edge *e, size_t n)
{
	if (n > 16) {
		gs_sort(e, n, sizeof(*e), cmp_edge);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct gs_edge x = e[i];
		size_t j = i;

		while (j > 0 && cmp_edge(&e[j - 1], &x) > 0) {
			e[j] = e[j - 1];
			j--;
		}
		e[j] = x;
	}
}

/*
 * The edges sorted by (to, from, kind), stably, without repeats (the
 * first one of each (to, from, kind) stays), as if every stream-order edge
 * had been added first (stream order is the first kind) and all had been sorted:
 * a counting sort by `to` (which is also the CSR index in_first), the
 * stream-order edge into an op (from the op before it on its stream) at
 * the head of its list, then each op's few in-edges by (from, kind).
 * O(E + N); the stream-order edges, one per op, are never stored twice.
 */
static gs_status finish_edges(struct builder *b)
{
	struct gs_graph *g = b->g;
	size_t n = b->n_edges, n_all = n, k = 0;
	/* Counted with ++ (a read first): zeroed by a write, else each page is
	 * mapped to the zero page by the read and copied at the write. */
	uint32_t *first = malloc((b->n_ops + 1) * sizeof(*first));
	uint8_t *chained = calloc(b->n_ops + 1, 1); /* has a stream-order edge */
	struct gs_edge *e;

	if (!first || !chained) {
		free(first);
		free(chained);
		return gs_nomem();
	}
	memset(first, 0, (b->n_ops + 1) * sizeof(*first));
	for (uint32_t s = 0; s < b->n_streams; s++) {
		size_t f, count;

		gs_trace_stream_ops(b->t, s, &f, &count);
		for (size_t i = f + 1; i < f + count; i++) {
			chained[i] = 1;
			first[i + 1]++;
			n_all++;
		}
	}
	if (n_all > UINT32_MAX) { /* first[] counts them in 32 bits */
		free(first);
		free(chained);
		gs_error_append("more than %llu dependency edges (the most a graph holds)",
				(unsigned long long)UINT32_MAX);
		return GS_ERR_LIMIT;
	}
	for (size_t i = 0; i < n; i++)
		first[b->edges[i].to + 1]++; /* graph_add_edge keeps to < n_ops */
	for (size_t i = 0; i < b->n_ops; i++)
		first[i + 1] += first[i];
	e = malloc((n_all ? n_all : 1) * sizeof(*e));
	if (!e) {
		free(first);
		free(chained);
		return gs_nomem();
	}
	/* first[to] advances as the fill cursor of op `to`... */
	for (size_t i = 0; i < b->n_ops; i++)
		if (chained[i])
			e[first[i]++] = (struct gs_edge){.from = (uint32_t)(i - 1),
							 .to = (uint32_t)i,
							 .kind = GS_EDGE_STREAM_ORDER};
	free(chained);
	for (size_t i = 0; i < n; i++)
		e[first[b->edges[i].to]++] = b->edges[i];
	free(b->edges);
	b->edges = NULL;
	/* ...and ends at the start of op to + 1: sort and compact each op's
	 * edges, and set first[] to where they start now. */
	for (size_t to = 0, lo = 0; to < b->n_ops; to++) {
		size_t hi = first[to];

		first[to] = (uint32_t)k;
		sort_in_edges(e + lo, hi - lo);
		for (size_t i = lo; i < hi; i++) {
			if (i > lo && e[i - 1].from == e[i].from && e[i - 1].kind == e[i].kind)
				continue;
			/* The analyzer's path takes a loop both ways; e[lo .. hi) is
			 * filled above. */
			/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.ArraySubscript) */
			g->edge_count[e[i].kind]++;
			e[k++] = e[i];
		}
		lo = hi;
	}
	first[b->n_ops] = (uint32_t)k;
	g->edges = e;
	g->n_edges = k;
	g->in_first = first;
	if (k < n_all) { /* give back what the repeats took */
		struct gs_edge *shrunk = realloc(e, (k ? k : 1) * sizeof(*e));

		if (shrunk)
			g->edges = shrunk;
	}
	return GS_OK;
}

/*
 * Whether the graph has a cycle: ops are taken off from the end (an op no
 * edge leaves), Kahn's algorithm on the reversed edges. O(N + E).
 */
static gs_status has_cycle(const struct gs_graph *g, bool *cycle)
{
	uint32_t *out = malloc((g->n_ops + 1) * sizeof(*out)); /* zeroed by a write (++) */
	uint32_t *queue = malloc((g->n_ops + 1) * sizeof(*queue));
	size_t head = 0, tail = 0;

	if (!out || !queue) {
		free(out);
		free(queue);
		return gs_nomem();
	}
	memset(out, 0, (g->n_ops + 1) * sizeof(*out));
	for (size_t i = 0; i < g->n_edges; i++)
		out[g->edges[i].from]++;
	for (size_t v = 0; v < g->n_ops; v++)
		if (!out[v])
			queue[tail++] = (uint32_t)v;
	while (head < tail) {
		uint32_t v = queue[head++];

		for (size_t i = g->in_first[v]; i < g->in_first[v + 1]; i++)
			if (--out[g->edges[i].from] == 0)
				queue[tail++] = g->edges[i].from;
	}
	*cycle = tail < g->n_ops;
	free(out);
	free(queue);
	return GS_OK;
}

/* Flag the edges the recording contradicts, and count them by kind. */
static void mark_recorded_early(struct builder *b)
{
	struct gs_graph *g = b->g;

	for (size_t i = 0; i < g->n_edges; i++) {
		struct gs_edge *e = &g->edges[i];

		if (b->ops[e->from].end_ns > b->ops[e->to].start_ns) {
			e->flags |= GS_EDGEF_RECORDED_EARLY;
			if (e->kind < GS_EDGE_KIND_COUNT)
				g->recorded_early[e->kind]++;
		}
	}
}

static gs_status graph_build(const struct gs_trace *t, uint64_t max_edges, bool reduce,
			     struct gs_graph **out)
{
	struct builder b = {.t = t, .reduce = reduce, .max_edges = max_edges};
	struct gs_graph *g = calloc(1, sizeof(*g));
	gs_status rc;

	*out = NULL;
	if (!g)
		return gs_nomem();
	b.g = g;
	b.ops = gs_trace_ops(t, &b.n_ops);
	b.streams = gs_trace_streams(t, &b.n_streams);
	b.api = gs_trace_api_calls(t, &b.n_api);
	b.threads = gs_trace_threads(t, &b.n_threads);
	if (b.n_ops >= GS_NO_INDEX) {
		free(g);
		gs_error_append("too many ops for the dependency graph (%zu)", b.n_ops);
		return GS_ERR_LIMIT;
	}
	g->n_ops = b.n_ops;
	/* launch[i]: the API call with the op's correlation (the trace's join). */
	{
		size_t n_launch;

		g->launch = gs_trace_op_launches(t, &n_launch);
		if (n_launch != b.n_ops) {
			rc = GS_ERR_INVALID;
			gs_error_append("the trace is not finished");
			goto out;
		}
	}
	for (size_t s = 0; s < b.n_streams; s++)
		if (b.streams[s].kind != GS_STREAM_UNKNOWN)
			g->stream_kinds_known = true;
	rc = index_streams(&b);
	if (!rc)
		rc = index_launches(&b);
	if (!rc)
		rc = index_threads(&b);
	if (!rc)
		rc = graph_sync_edges(&b);
	if (!rc)
		rc = graph_sync_copy_edges(&b);
	/* Data edges first: with them, the stream order implies nothing. */
	if (!rc)
		rc = data_edges(&b);
	if (!rc)
		rc = graph_default_stream_edges(&b);
	if (!rc)
		rc = finish_edges(&b);
	if (!rc) {
		g->events = b.events;
		g->n_events = b.n_events;
		b.events = NULL;
		g->implied_edges = b.implied;
		g->edge_count[GS_EDGE_DEFAULT_STREAM] += b.implied;
		mark_recorded_early(&b);
	}
out:
	free(b.by_stream);
	free(b.skip);
	free(b.by_corr);
	free(b.launches);
	free(b.groups);
	free(b.thread_group);
	free(b.by_last);
	free(b.launch_start);
	free(b.thread_launch);
	free(b.edges);
	free(b.events);
	if (rc) {
		gs_graph_destroy(g);
		return rc;
	}
	*out = g;
	return GS_OK;
}

gs_status gs_graph_build_opts(const struct gs_trace *t, const struct gs_graph_options *o,
			      struct gs_graph **out)
{
	uint64_t max_edges = o && o->max_edges ? o->max_edges : GS_GRAPH_DEFAULT_MAX_EDGES;
	bool cycle = false;
	gs_status rc = graph_build(t, max_edges, !(o && o->keep_implied), out);

	/* Edges a path implies are left out only when there is no cycle (a
	 * schedule breaks a cycle at an edge, and a left-out one could be
	 * where). A cycle only comes from a corrupt trace: then every edge. */
	if (!rc && (*out)->implied_edges)
		rc = has_cycle(*out, &cycle);
	if (!rc && cycle) {
		gs_graph_destroy(*out);
		rc = graph_build(t, max_edges, false, out);
	} else if (rc && *out) {
		gs_graph_destroy(*out);
		*out = NULL;
	}
	return rc;
}

gs_status gs_graph_build(const struct gs_trace *t, struct gs_graph **out)
{
	return gs_graph_build_opts(t, NULL, out);
}

void gs_graph_destroy(struct gs_graph *g)
{
	if (!g)
		return;
	free(g->edges);
	free(g->in_first);
	free(g->events);
	free(g->returned_early);
	free(g->segment_edges);
	free(g);
}

/* ---- waits ---- */

static int cmp_wait(const void *pa, const void *pb)
{
	const struct gs_wait *a = pa, *b = pb;

	if (a->wait_ns != b->wait_ns)
		return a->wait_ns > b->wait_ns ? -1 : 1;
	if (a->consumer != b->consumer)
		return a->consumer < b->consumer ? -1 : 1;
	return a->producer < b->producer ? -1 : a->producer > b->producer;
}

gs_status gs_waits_compute(const struct gs_trace *t, const struct gs_graph *g, struct gs_wait **out,
			   size_t *n)
{
	size_t n_ops, n_api, k = 0, cap = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	struct gs_wait *w = NULL;

	*out = NULL;
	*n = 0;
	for (size_t to = 0; to < g->n_ops; to++) {
		const struct gs_op *c = &ops[to];
		int64_t ready = INT64_MIN;
		bool prev_known = false, waits = false;

		for (size_t e = g->in_first[to]; e < g->in_first[to + 1]; e++) {
			const struct gs_edge *ed = &g->edges[e];

			if (ed->kind == GS_EDGE_STREAM_ORDER) {
				if (!prev_known || ops[ed->from].end_ns > ready)
					ready = ops[ed->from].end_ns;
				prev_known = true;
			}
			waits = waits || ed->kind == GS_EDGE_EVENT ||
				ed->kind == GS_EDGE_DEFAULT_STREAM || ed->kind == GS_EDGE_HOST_SYNC;
		}
		/* Most ops wait on nothing: their launch call is not read. */
		if (!waits)
			continue;
		if (g->launch[to] != GS_NO_INDEX && api[g->launch[to]].end_ns > ready)
			ready = api[g->launch[to]].end_ns;
		for (size_t e = g->in_first[to]; e < g->in_first[to + 1]; e++) {
			const struct gs_edge *ed = &g->edges[e];
			int64_t held, pend;

			if (ed->kind != GS_EDGE_EVENT && ed->kind != GS_EDGE_DEFAULT_STREAM &&
			    ed->kind != GS_EDGE_HOST_SYNC)
				continue;
			if (ready == INT64_MIN)
				continue; /* nothing else known: the wait cannot be measured */
			/* A producer ending after the consumer started did not hold it
			 * (clock skew between records): count up to the start only. */
			pend = ops[ed->from].end_ns < c->start_ns ? ops[ed->from].end_ns :
								    c->start_ns;
			held = pend - ready;
			if (held <= 0)
				continue;
			if (k == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				struct gs_wait *nw = realloc(w, ncap * sizeof(*nw));

				if (!nw) {
					free(w);
					return gs_nomem();
				}
				w = nw;
				cap = ncap;
			}
			w[k++] = (struct gs_wait){.consumer = (uint32_t)to,
						  .producer = ed->from,
						  .kind = ed->kind,
						  .event = gs_graph_edge_event(g, ed),
						  .wait_ns = held};
		}
	}
	if (k > 1) {
		/* Built by (consumer, producer): a stable sort by wait_ns,
		 * longest first, is the cmp_wait order. */
		struct wait_key {
			int64_t neg_ns;
			uint32_t i;
		} *key = malloc(k * sizeof(*key));
		struct gs_wait *sorted = malloc(k * sizeof(*sorted));

		if (!key || !sorted) {
			free(key);
			free(sorted);
			gs_sort(w, k, sizeof(*w), cmp_wait);
		} else {
			for (size_t i = 0; i < k; i++)
				key[i] = (struct wait_key){.neg_ns = -w[i].wait_ns,
							   .i = (uint32_t)i};
			gs_sort_by_i64(key, k, sizeof(*key));
			for (size_t i = 0; i < k; i++)
				sorted[i] = w[key[i].i];
			free(key);
			free(w);
			w = sorted;
		}
	}
	*out = w;
	*n = k;
	return GS_OK;
}
