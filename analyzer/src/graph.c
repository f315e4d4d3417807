/* SPDX-License-Identifier: MIT */
/*
 * The dependency graph and the waits (docs/design.md).
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

#include <gpuscope/u64map.h>
#include "analyzer_priv.h"
#include "schedule_priv.h"

#include <stdlib.h>
#include <string.h>

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
};

const char *gs_edge_kind_name(unsigned kind)
{
	static const char *const names[] = {"stream_order", "event",     "default_stream",
					    "host_sync",    "sync_copy", "data"};

	return kind < GS_EDGE_KIND_COUNT ? names[kind] : "unknown";
}

static gs_status add_edge(struct builder *b, uint32_t from, uint32_t to, uint8_t kind,
			  uint64_t event)
{
	if (from == to || from >= b->n_ops || to >= b->n_ops)
		return GS_OK; /* GS_NO_INDEX included */
	if (b->n_edges >= b->max_edges) {
		gs_error_append("more than max_edges (%llu) dependency edges",
				(unsigned long long)b->max_edges);
		return GS_ERR_LIMIT;
	}
	if (b->n_edges == b->cap_edges) {
		size_t cap = b->cap_edges ? b->cap_edges * 2 : 1024;
		struct gs_edge *e = realloc(b->edges, cap * sizeof(*e));

		if (!e)
			return gs_nomem();
		b->edges = e;
		b->cap_edges = cap;
	}
	b->edges[b->n_edges++] =
		(struct gs_edge){.from = from, .to = to, .kind = kind, .event = event};
	return GS_OK;
}

/* ---- indexes ---- */

/* By key, then start, then op index. */
static int cmp_op_key(const void *pa, const void *pb)
{
	const struct op_key *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

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

static uint64_t corr_at(const struct builder *b, const struct corr_index *x, size_t i)
{
	return x->in_place ? b->ops[i].correlation : b->by_corr[i].key;
}

static uint32_t op_at(const struct builder *b, const struct corr_index *x, size_t i)
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
	uint64_t v = corr_at(k->b, k->x, k->lo + i);

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
static uint32_t last_before(const struct builder *b, uint32_t s, uint64_t c)
{
	size_t lo;

	if (s >= b->n_streams)
		return GS_NO_INDEX;
	lo = corr_bound(b, &b->by_stream[s], c, false);
	if (lo == b->by_stream[s].lo)
		return GS_NO_INDEX;
	return op_at(b, &b->by_stream[s], lo - 1);
}

/* The first op of stream `s` enqueued after correlation `c`. */
static uint32_t first_after(const struct builder *b, uint32_t s, uint64_t c)
{
	size_t lo;

	if (s >= b->n_streams)
		return GS_NO_INDEX;
	lo = corr_bound(b, &b->by_stream[s], c, true);
	return lo < b->by_stream[s].hi ? op_at(b, &b->by_stream[s], lo) : GS_NO_INDEX;
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
static bool launched_between(const struct builder *b, uint32_t th, int64_t from, int64_t to)
{
	size_t lo = b->thread_launch[th], hi = b->thread_launch[th + 1];

	lo += gs_lower_bound_i64(b->launch_start + lo, hi - lo, from);
	return lo < b->thread_launch[th + 1] && b->launch_start[lo] < to;
}

/* Whether thread th launched anything at or after `after_ns`. */
static bool launches_after(const struct builder *b, uint32_t th, int64_t after_ns)
{
	size_t k = b->thread_group[th];

	return k < b->thread_group[th + 1] &&
	       b->launches[b->groups[b->by_last[k]].end - 1].api_start >= after_ns;
}

/*
 * Edges from `producer` to the first op of every stream that thread `th`
 * (an index into the threads, GS_NO_INDEX: none) launched at or after
 * `after_ns`: the streams it launched on later are a prefix of by_last,
 * then one binary search per stream, O(log N) per edge.
 */
static gs_status edges_to_later_launches(struct builder *b, uint32_t producer, uint32_t th,
					 int64_t after_ns, uint8_t kind, uint64_t event)
{
	if (th == GS_NO_INDEX)
		return GS_OK; /* a thread that called nothing launched nothing */
	for (size_t k = b->thread_group[th]; k < b->thread_group[th + 1]; k++) {
		const struct launch_group *gr = &b->groups[b->by_last[k]];
		size_t l = gr->first, h = gr->end;
		gs_status rc;

		if (b->launches[gr->end - 1].api_start < after_ns)
			break; /* nor any after it */
		while (l < h) {
			size_t mid = l + (h - l) / 2;

			if (b->launches[mid].api_start < after_ns)
				l = mid + 1;
			else
				h = mid;
		}
		rc = add_edge(b, producer, b->launches[l].op, kind, event);
		if (rc)
			return rc;
	}
	return GS_OK;
}

/* ---- edge kinds ---- */

/* Where the event sync `i` refers to was recorded: stream and correlation
 * (the record the trace resolved, gs_trace_sync_event_record, else what the
 * sync itself says). */
static bool resolve_event(const struct builder *b, size_t i, uint32_t *stream, uint64_t *corr)
{
	size_t n_syncs, n_recs;
	const struct gs_sync *y = &gs_trace_syncs(b->t, &n_syncs)[i];
	const struct gs_event_record *recs = gs_trace_event_records(b->t, &n_recs);
	uint32_t k = gs_trace_sync_event_record(b->t, i);
	const struct gs_event_record *r = k < n_recs ? &recs[k] : NULL;

	*stream = r && r->stream != GS_NO_INDEX ? r->stream : y->wait_on_stream;
	*corr = r ? r->correlation : y->event_correlation;
	return *stream != GS_NO_INDEX && *stream < b->n_streams && *corr != 0;
}

/* A stream of a device with ops that have ids, by the first of those ids. */
struct dev_stream {
	uint32_t device;
	uint32_t stream;
	uint64_t min_corr;
};

/* The id of an op of a device. */
struct dev_corr {
	uint32_t device;
	uint64_t corr;
};

/* What context syncs need: the streams of each device, the ids of each
 * device's ops, and per (thread, device) the last context sync linked. */
struct ctx_index {
	bool built;
	struct dev_stream *ds;
	size_t n_ds;
	struct dev_corr *dc;
	size_t n_dc;
	struct gs_u64map last;
};

static int cmp_dev_stream(const void *pa, const void *pb)
{
	const struct dev_stream *a = pa, *b = pb;

	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->min_corr != b->min_corr)
		return a->min_corr < b->min_corr ? -1 : 1;
	return a->stream < b->stream ? -1 : a->stream > b->stream;
}

static int cmp_dev_corr(const void *pa, const void *pb)
{
	const struct dev_corr *a = pa, *b = pb;

	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->corr < b->corr ? -1 : a->corr > b->corr;
}

static gs_status ctx_index_build(struct builder *b, struct ctx_index *cx, size_t n_syncs)
{
	size_t n = 0;

	cx->built = true;
	for (uint32_t s = 0; s < b->n_streams; s++) {
		const struct corr_index *x = &b->by_stream[s];

		if (x->hi > x->lo) {
			cx->n_ds++;
			n += x->hi - x->lo;
		}
	}
	cx->ds = malloc((cx->n_ds ? cx->n_ds : 1) * sizeof(*cx->ds));
	cx->dc = malloc((n ? n : 1) * sizeof(*cx->dc));
	if (!cx->ds || !cx->dc || gs_u64map_reserve(&cx->last, n_syncs) != GS_OK)
		return gs_nomem();
	cx->n_ds = 0;
	for (uint32_t s = 0; s < b->n_streams; s++) {
		const struct corr_index *x = &b->by_stream[s];

		if (x->hi == x->lo)
			continue;
		cx->ds[cx->n_ds++] = (struct dev_stream){.device = b->streams[s].device,
							 .stream = s,
							 .min_corr = corr_at(b, x, x->lo)};
		for (size_t i = x->lo; i < x->hi; i++)
			cx->dc[cx->n_dc++] = (struct dev_corr){.device = b->streams[s].device,
							       .corr = corr_at(b, x, i)};
	}
	gs_sort(cx->ds, cx->n_ds, sizeof(*cx->ds), cmp_dev_stream);
	gs_sort(cx->dc, cx->n_dc, sizeof(*cx->dc), cmp_dev_corr);
	return GS_OK;
}

static void ctx_index_fini(struct ctx_index *cx)
{
	free(cx->ds);
	free(cx->dc);
	gs_u64map_fini(&cx->last);
}

/* Whether an op of `device` has an id in [lo, hi). */
static bool device_corr_between(const struct ctx_index *cx, uint32_t device, uint64_t lo,
				uint64_t hi)
{
	size_t l = 0, h = cx->n_dc;

	while (l < h) {
		size_t mid = l + (h - l) / 2;

		if (cx->dc[mid].device < device ||
		    (cx->dc[mid].device == device && cx->dc[mid].corr < lo))
			l = mid + 1;
		else
			h = mid;
	}
	return l < cx->n_dc && cx->dc[l].device == device && cx->dc[l].corr < hi;
}

/*
 * Whether context sync i links the same ops as the last one linked of its
 * thread and device: no op of the device enqueued between the two (the
 * same last op on every stream) and no launch of the thread between their
 * ends (the same first ops after). Its edges are then all there already.
 */
static bool context_repeats(struct ctx_index *cx, const struct builder *b,
			    const struct gs_sync *syncs, size_t i, uint32_t th)
{
	const struct gs_sync *y = &syncs[i];
	uint64_t key = (uint64_t)th << 32 | y->device;
	uint64_t prev;

	if (gs_u64map_get(&cx->last, key, &prev)) {
		const struct gs_sync *p = &syncs[prev];
		uint64_t c0 = p->correlation < y->correlation ? p->correlation : y->correlation;
		uint64_t c1 = p->correlation < y->correlation ? y->correlation : p->correlation;
		int64_t e0 = p->end_ns < y->end_ns ? p->end_ns : y->end_ns;
		int64_t e1 = p->end_ns < y->end_ns ? y->end_ns : p->end_ns;

		if (!device_corr_between(cx, y->device, c0, c1) && !launched_between(b, th, e0, e1))
			return true;
	}
	gs_u64map_put(&cx->last, key, (uint32_t)i, true);
	return false;
}

/* The streams of the context index searched for a device: those of lower
 * devices come first. */
struct device_key {
	const struct dev_stream *ds;
	uint32_t device;
};

static bool device_before(const void *ctx, size_t i)
{
	const struct device_key *k = ctx;

	return k->ds[i].device < k->device;
}

/* A context sync: the last op of every stream of its device enqueued
 * before it -> what its thread launched after it. Only the streams with an
 * op before it are looked at (a prefix by first id). */
static gs_status context_edges(struct builder *b, const struct ctx_index *cx,
			       const struct gs_sync *y, uint32_t th)
{
	struct device_key key = {cx->ds, y->device};
	/* the first stream of the device */
	size_t lo = gs_partition_point(cx->n_ds, device_before, &key);
	gs_status rc = GS_OK;

	for (size_t k = lo; k < cx->n_ds && !rc; k++) {
		uint32_t producer;

		if (cx->ds[k].device != y->device || cx->ds[k].min_corr >= y->correlation)
			break;
		producer = last_before(b, cx->ds[k].stream, y->correlation);
		if (producer != GS_NO_INDEX)
			rc = edges_to_later_launches(b, producer, th, y->end_ns, GS_EDGE_HOST_SYNC,
						     0);
	}
	return rc;
}

/*
 * Whether an event or stream sync of thread th links the same ops as the
 * last such sync of the thread: the same producer and no launch between
 * their ends. Its edges are all there already (with the first one's event
 * id, as the deduplication keeps).
 */
static bool sync_repeats(uint32_t *last_prod, int64_t *last_end, const struct builder *b,
			 uint32_t th, uint32_t producer, int64_t end)
{
	if (last_prod[th] == producer) {
		int64_t e0 = last_end[th] < end ? last_end[th] : end;
		int64_t e1 = last_end[th] < end ? end : last_end[th];

		if (!launched_between(b, th, e0, e1))
			return true;
	}
	last_prod[th] = producer;
	last_end[th] = end;
	return false;
}

static gs_status sync_edges(struct builder *b)
{
	size_t n_syncs, n_waits = 0;
	const struct gs_sync *syncs = gs_trace_syncs(b->t, &n_syncs);
	struct ctx_index cx = {0};
	uint32_t *last_prod = malloc((b->n_threads ? b->n_threads : 1) * sizeof(*last_prod));
	int64_t *last_end = malloc((b->n_threads ? b->n_threads : 1) * sizeof(*last_end));
	gs_status rc = GS_OK;

	if (!last_prod || !last_end) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t th = 0; th < b->n_threads; th++)
		last_prod[th] = GS_NO_INDEX;
	for (size_t i = 0; i < n_syncs && !rc; i++) {
		const struct gs_sync *y = &syncs[i];
		uint32_t rs, producer = GS_NO_INDEX, th;
		uint64_t rcorr, event = 0;

		switch (y->kind) {
		case GS_SYNC_STREAM_WAIT:
			n_waits++;
			if (!resolve_event(b, i, &rs, &rcorr) || y->stream == GS_NO_INDEX) {
				b->g->unlinked_waits++;
				break;
			}
			producer = last_before(b, rs, rcorr);
			if (producer == GS_NO_INDEX)
				break; /* nothing recorded before: the wait is a no-op */
			rc = add_edge(b, producer, first_after(b, y->stream, y->correlation),
				      GS_EDGE_EVENT, y->event_id);
			break;
		case GS_SYNC_EVENT:
		case GS_SYNC_STREAM:
			if (y->tid < 0)
				break;
			if (y->kind == GS_SYNC_EVENT) {
				if (!resolve_event(b, i, &rs, &rcorr))
					break;
				producer = last_before(b, rs, rcorr);
				event = y->event_id;
			} else if (y->stream != GS_NO_INDEX) {
				producer = last_before(b, y->stream, y->correlation);
			}
			if (producer == GS_NO_INDEX)
				break;
			th = gs_trace_find_thread(b->t, y->pid, y->tid);
			if (th == GS_NO_INDEX ||
			    sync_repeats(last_prod, last_end, b, th, producer, y->end_ns))
				break;
			rc = edges_to_later_launches(b, producer, th, y->end_ns, GS_EDGE_HOST_SYNC,
						     event);
			break;
		case GS_SYNC_CONTEXT:
			if (y->tid < 0)
				break;
			th = gs_trace_find_thread(b->t, y->pid, y->tid);
			if (th == GS_NO_INDEX || !launches_after(b, th, y->end_ns))
				break; /* nothing launched after it: no edge */
			if (!cx.built)
				rc = ctx_index_build(b, &cx, n_syncs);
			if (!rc && !context_repeats(&cx, b, syncs, i, th))
				rc = context_edges(b, &cx, y, th);
			break;
		default:
			break;
		}
	}
	if (!rc && n_waits == 0) {
		/* Waits were called but the source recorded no sync records. */
		for (size_t i = 0; i < b->n_api; i++) {
			const char *name = gs_trace_string(b->t, b->api[i].name);

			if (strstr(name, "StreamWaitEvent"))
				b->g->unlinked_wait_calls++;
		}
	}
out:
	free(last_prod);
	free(last_end);
	ctx_index_fini(&cx);
	return rc;
}

static bool host_synchronous_copy(const struct gs_op *op)
{
	if (op->kind != GS_OP_MEMCPY)
		return false;
	if (!(op->flags & GS_OPF_ASYNC))
		return true;
	return op->src_mem == GS_MEM_PAGEABLE || op->dst_mem == GS_MEM_PAGEABLE;
}

/*
 * A host-synchronous copy -> what its thread launched after its call
 * returned. A call that returned before its copy ended (a pageable
 * host-to-device copy returns once the data is staged) did not wait for
 * the copy: its edges would point back in time, so it has none and is
 * listed in returned_early instead.
 */
static gs_status sync_copy_edges(struct builder *b)
{
	size_t cap = 0;

	for (size_t i = 0; i < b->n_ops; i++) {
		uint32_t a = b->g->launch[i];
		gs_status rc;

		if (a == GS_NO_INDEX || !host_synchronous_copy(&b->ops[i]))
			continue;
		if (b->api[a].end_ns < b->ops[i].end_ns) {
			struct gs_graph *g = b->g;

			if (g->n_returned_early == cap) {
				size_t nc = cap ? 2 * cap : 16;
				uint32_t *nr = realloc(g->returned_early, nc * sizeof(*nr));

				if (!nr)
					return gs_nomem();
				g->returned_early = nr;
				cap = nc;
			}
			g->returned_early[g->n_returned_early++] = (uint32_t)i;
			continue;
		}
		rc = edges_to_later_launches(
			b, (uint32_t)i, gs_trace_find_thread(b->t, b->api[a].pid, b->api[a].tid),
			b->api[a].end_ns, GS_EDGE_SYNC_COPY, 0);
		if (rc)
			return rc;
	}
	return GS_OK;
}

static bool blocking_kind(uint8_t kind)
{
	return kind == GS_STREAM_BLOCKING || kind == GS_STREAM_PER_THREAD_DEFAULT;
}

/* The ops with ids of one legacy default stream, in op order. */
struct dlist {
	size_t n;
	uint32_t *op;
	uint64_t *corr;
	/* Per entry: the first entry after it in another run of ops that the
	 * stream order chains (chain_holds), n for the last run. */
	size_t *run_end;
};

/*
 * Whether the stream_order edge into op i (not the first of its stream)
 * holds in every schedule and what-if, the previous op ended before this
 * one ended and no later than it started: then a producer that ended
 * before the previous op is never what held op i, nor a wait of it, nor
 * its latest producer in any schedule (see the top of the file).
 */
static bool chain_holds(const struct builder *b, size_t i)
{
	const struct gs_op *p = &b->ops[i - 1], *o = &b->ops[i];

	return b->reduce && !b->g->has_data_edges && p->end_ns < o->end_ns &&
	       p->end_ns <= o->start_ns && !gs_sched_batch_start(b->ops, i);
}

/* The list of stream l; false (nothing built) when its ids ever decrease. */
static gs_status dlist_build(struct builder *b, uint32_t l, struct dlist *d, bool *ok)
{
	size_t first, count, n = 0, run = 0, *run_of;

	*ok = false;
	gs_trace_stream_ops(b->t, l, &first, &count);
	for (size_t i = first; i < first + count; i++) {
		if (!b->ops[i].correlation)
			continue;
		if (n && b->ops[i].correlation < d->corr[n - 1])
			return GS_OK;
		d->op[n] = (uint32_t)i;
		d->corr[n++] = b->ops[i].correlation;
	}
	d->n = n;
	run_of = d->run_end; /* the run of each entry first, then where it ends */
	for (size_t i = first, k = 0; i < first + count; i++) {
		if (i > first && !chain_holds(b, i))
			run++;
		if (k < n && d->op[k] == i)
			run_of[k++] = run;
	}
	for (size_t k = n, next_run = 0, next_end = n; k-- > 0;) {
		size_t r = run_of[k];

		d->run_end[k] = k + 1 < n && r == next_run ? next_end : k + 1;
		next_run = r;
		next_end = d->run_end[k];
	}
	*ok = true;
	return GS_OK;
}

/* The first entry of d with an id above c (`strict`), or at least c. */
static size_t dlist_bound(const struct dlist *d, uint64_t c, bool strict)
{
	return strict ? gs_upper_bound_u64(d->corr, d->n, c) : gs_lower_bound_u64(d->corr, d->n, c);
}

/*
 * x -> every entry of [klo, khi) (x is the last op of its stream enqueued
 * before each). In each run of the range, the edges up to the first entry
 * that x ended before and started no later than are kept; the stream order
 * from that entry implies the rest.
 */
static gs_status link_into_default(struct builder *b, const struct dlist *d, uint32_t x, size_t klo,
				   size_t khi)
{
	const struct gs_op *px = &b->ops[x];

	for (size_t k = klo; k < khi;) {
		size_t e = d->run_end[k] < khi ? d->run_end[k] : khi, l = k, h = e, keep;

		while (l < h) {
			size_t mid = l + (h - l) / 2;
			const struct gs_op *o = &b->ops[d->op[mid]];

			if (px->end_ns < o->end_ns && px->start_ns <= o->start_ns)
				h = mid;
			else
				l = mid + 1;
		}
		keep = l < e ? l + 1 : e;
		for (size_t j = k; j < keep; j++) {
			gs_status rc = add_edge(b, x, d->op[j], GS_EDGE_DEFAULT_STREAM, 0);

			if (rc)
				return rc;
		}
		b->implied += e - keep;
		k = e;
	}
	return GS_OK;
}

/* When op y was ready but for its dependencies, as gs_waits_compute reads
 * it: the end of the op before it on its stream or of its launch call,
 * whichever is later; INT64_MIN when neither is known. */
static int64_t ready_time(const struct builder *b, uint32_t y)
{
	int64_t r = INT64_MIN;
	uint32_t l = b->g->launch[y];

	if (y > 0 && b->ops[y - 1].stream == b->ops[y].stream)
		r = b->ops[y - 1].end_ns;
	if (l != GS_NO_INDEX && b->api[l].end_ns > r)
		r = b->api[l].end_ns;
	return r;
}

/*
 * Every entry of [klo, khi) -> y (y is the first op of its stream enqueued
 * after each). In each run of the range, a, the last entry that ended by
 * y's start, is kept and so are the entries after it; before a,
 * the entries that ended before y was otherwise ready are implied by the
 * stream order to a (and held nothing), the later ones are kept (waits).
 */
static gs_status link_from_default(struct builder *b, const struct dlist *d, uint32_t y, size_t klo,
				   size_t khi)
{
	const struct gs_op *py = &b->ops[y];
	int64_t ready = ready_time(b, y);

	for (size_t k = klo; k < khi;) {
		size_t e = d->run_end[k] < khi ? d->run_end[k] : khi, l = k, h = e, w;

		while (l < h) {
			size_t mid = l + (h - l) / 2;
			const struct gs_op *o = &b->ops[d->op[mid]];

			if (o->end_ns <= py->start_ns)
				l = mid + 1;
			else
				h = mid;
		}
		w = k;
		if (l > k) { /* a = l - 1: [k, w) are implied */
			size_t a = l - 1;

			h = a;
			w = k;
			while (w < h) {
				size_t mid = w + (h - w) / 2;

				if (ready != INT64_MIN && b->ops[d->op[mid]].end_ns > ready)
					h = mid;
				else
					w = mid + 1;
			}
		}
		b->implied += w - k;
		for (size_t j = w; j < e; j++) {
			gs_status rc = add_edge(b, d->op[j], y, GS_EDGE_DEFAULT_STREAM, 0);

			if (rc)
				return rc;
		}
		k = e;
	}
	return GS_OK;
}

/*
 * The default stream d and blocking stream p, both ways. The edges come in
 * ranges: each op of p is the last one before, and the first one after, a
 * range of d. They are found from whichever of the two has fewer ops:
 * O(min(|d|, |p|) log N) plus the edges added.
 */
static gs_status link_default_peer(struct builder *b, const struct dlist *d, uint32_t p)
{
	const struct corr_index *x = &b->by_stream[p];
	gs_status rc = GS_OK;

	if (x->hi - x->lo <= d->n) {
		for (size_t j = x->lo; j < x->hi && !rc; j++) {
			uint64_t c = corr_at(b, x, j);
			uint32_t op = op_at(b, x, j);
			size_t f_lo = dlist_bound(d, c, true);
			size_t f_hi = j + 1 < x->hi ? dlist_bound(d, corr_at(b, x, j + 1), true) :
						      d->n;
			size_t r_lo = j > x->lo ? dlist_bound(d, corr_at(b, x, j - 1), false) : 0;
			size_t r_hi = dlist_bound(d, c, false);

			if (f_lo < f_hi)
				rc = link_into_default(b, d, op, f_lo, f_hi);
			if (!rc && r_lo < r_hi)
				rc = link_from_default(b, d, op, r_lo, r_hi);
		}
		return rc;
	}
	for (size_t k = 0; k < d->n && !rc;) { /* runs of d with one op of p before */
		uint32_t op = last_before(b, p, d->corr[k]);
		size_t e = k + 1;

		while (e < d->n && last_before(b, p, d->corr[e]) == op)
			e++;
		if (op != GS_NO_INDEX)
			rc = link_into_default(b, d, op, k, e);
		k = e;
	}
	for (size_t k = 0; k < d->n && !rc;) { /* and with one op of p after */
		uint32_t op = first_after(b, p, d->corr[k]);
		size_t e = k + 1;

		while (e < d->n && first_after(b, p, d->corr[e]) == op)
			e++;
		if (op != GS_NO_INDEX)
			rc = link_from_default(b, d, op, k, e);
		k = e;
	}
	return rc;
}

/* Every edge of each op of stream l with each peer (ids out of order). */
static gs_status link_default_each(struct builder *b, uint32_t l, const uint32_t *peers,
				   size_t n_peers)
{
	size_t first, count;
	gs_status rc = GS_OK;

	gs_trace_stream_ops(b->t, l, &first, &count);
	for (size_t i = first; i < first + count && !rc; i++) {
		uint64_t c = b->ops[i].correlation;

		if (!c)
			continue;
		for (size_t p = 0; p < n_peers && !rc; p++) {
			rc = add_edge(b, last_before(b, peers[p], c), (uint32_t)i,
				      GS_EDGE_DEFAULT_STREAM, 0);
			if (!rc)
				rc = add_edge(b, (uint32_t)i, first_after(b, peers[p], c),
					      GS_EDGE_DEFAULT_STREAM, 0);
		}
	}
	return rc;
}

/* A stream, keyed for sorting by context then index. */
struct ctx_key {
	int64_t pid;
	uint32_t device;
	uint32_t context;
	uint32_t stream;
};

static bool cmp_context_same(const struct ctx_key *a, const struct ctx_key *b)
{
	return a->pid == b->pid && a->device == b->device && a->context == b->context;
}

static int cmp_ctx_key(const void *pa, const void *pb)
{
	const struct ctx_key *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->context != b->context)
		return a->context < b->context ? -1 : 1;
	return a->stream < b->stream ? -1 : a->stream > b->stream;
}

/*
 * The legacy default stream waits for, and is waited for by, the blocking
 * streams of its context (CUPTI records nothing for it). Streams are
 * grouped by context once; each default stream is linked with the
 * blocking streams of its group that have ops with ids.
 */
static gs_status default_stream_edges(struct builder *b)
{
	struct ctx_key *key = NULL;
	uint32_t *peers = NULL;
	struct dlist d = {0};
	size_t n_keys = 0, most = 0;
	gs_status rc = GS_OK;

	for (uint32_t s = 0; s < b->n_streams; s++)
		if (b->streams[s].kind == GS_STREAM_LEGACY_DEFAULT ||
		    blocking_kind(b->streams[s].kind))
			n_keys++;
	for (uint32_t s = 0; s < b->n_streams; s++) {
		size_t first, count;

		gs_trace_stream_ops(b->t, s, &first, &count);
		if (b->streams[s].kind == GS_STREAM_LEGACY_DEFAULT && count > most)
			most = count;
	}
	if (!most)
		return GS_OK;
	key = malloc(n_keys * sizeof(*key));
	peers = malloc(n_keys * sizeof(*peers));
	d.op = malloc(most * sizeof(*d.op));
	d.corr = malloc(most * sizeof(*d.corr));
	d.run_end = malloc(most * sizeof(*d.run_end));
	if (!key || !peers || !d.op || !d.corr || !d.run_end) {
		rc = gs_nomem();
		goto out;
	}
	n_keys = 0;
	for (uint32_t s = 0; s < b->n_streams; s++) {
		const struct gs_stream *st = &b->streams[s];

		if (st->kind == GS_STREAM_LEGACY_DEFAULT || blocking_kind(st->kind))
			key[n_keys++] = (struct ctx_key){.pid = st->pid,
							 .device = st->device,
							 .context = st->context,
							 .stream = s};
	}
	gs_sort(key, n_keys, sizeof(*key), cmp_ctx_key);
	for (size_t g0 = 0, g1; g0 < n_keys && !rc; g0 = g1) {
		size_t n_peers = 0;

		for (g1 = g0; g1 < n_keys && cmp_context_same(&key[g0], &key[g1]); g1++) {
			const struct corr_index *x = &b->by_stream[key[g1].stream];

			if (blocking_kind(b->streams[key[g1].stream].kind) && x->hi > x->lo)
				peers[n_peers++] = key[g1].stream;
		}
		for (size_t k = g0; k < g1 && n_peers && !rc; k++) {
			uint32_t l = key[k].stream;
			bool ok;

			if (b->streams[l].kind != GS_STREAM_LEGACY_DEFAULT)
				continue;
			rc = dlist_build(b, l, &d, &ok);
			if (!rc && !ok)
				rc = link_default_each(b, l, peers, n_peers);
			for (size_t p = 0; ok && p < n_peers && !rc; p++)
				rc = link_default_peer(b, &d, peers[p]);
		}
	}
out:
	free(key);
	free(peers);
	free(d.op);
	free(d.corr);
	free(d.run_end);
	return rc;
}

/* Ops touching one allocation, in time order: each depends on the one
 * before. */
static gs_status data_edges(struct builder *b)
{
	size_t n_links;
	const struct gs_op_alloc *links = gs_trace_op_allocs(b->t, &n_links);
	struct gs_u64map by_corr = {0};
	struct op_key *touch = NULL;
	size_t n = 0;
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
		touch[n++] = (struct op_key){.key = links[i].allocation,
					     .start = b->ops[op].start_ns,
					     .op = (uint32_t)op};
	}
	if (n > 1)
		gs_sort(touch, n, sizeof(*touch), cmp_op_key);
	for (size_t i = 1; i < n && !rc; i++) {
		if (touch[i].key != touch[i - 1].key)
			continue;
		rc = add_edge(b, touch[i - 1].op, touch[i].op, GS_EDGE_DATA, 0);
		if (!rc)
			b->g->has_data_edges = true;
	}
out:
	gs_u64map_fini(&by_corr);
	free(touch);
	return rc;
}

static int cmp_edge(const void *pa, const void *pb)
{
	const struct gs_edge *a = pa, *b = pb;

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
	size_t *first = calloc(b->n_ops + 1, sizeof(*first));
	uint8_t *chained = calloc(b->n_ops + 1, 1); /* has a stream-order edge */
	struct gs_edge *e;

	if (!first || !chained) {
		free(first);
		free(chained);
		return gs_nomem();
	}
	for (uint32_t s = 0; s < b->n_streams; s++) {
		size_t f, count;

		gs_trace_stream_ops(b->t, s, &f, &count);
		for (size_t i = f + 1; i < f + count; i++) {
			chained[i] = 1;
			first[i + 1]++;
			n_all++;
		}
	}
	for (size_t i = 0; i < n; i++)
		first[b->edges[i].to + 1]++; /* add_edge keeps to < n_ops */
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

		first[to] = k;
		sort_in_edges(e + lo, hi - lo);
		for (size_t i = lo; i < hi; i++) {
			if (i > lo && e[i - 1].from == e[i].from && e[i - 1].kind == e[i].kind)
				continue;
			g->edge_count[e[i].kind]++;
			e[k++] = e[i];
		}
		lo = hi;
	}
	first[b->n_ops] = k;
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
	uint32_t *out = calloc(g->n_ops + 1, sizeof(*out));
	uint32_t *queue = malloc((g->n_ops + 1) * sizeof(*queue));
	size_t head = 0, tail = 0;

	if (!out || !queue) {
		free(out);
		free(queue);
		return gs_nomem();
	}
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
		rc = sync_edges(&b);
	if (!rc)
		rc = sync_copy_edges(&b);
	/* Data edges first: with them, the stream order implies nothing. */
	if (!rc)
		rc = data_edges(&b);
	if (!rc)
		rc = default_stream_edges(&b);
	if (!rc)
		rc = finish_edges(&b);
	if (!rc) {
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
	free(g->returned_early);
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
		bool prev_known = false;

		for (size_t e = g->in_first[to]; e < g->in_first[to + 1]; e++) {
			const struct gs_edge *ed = &g->edges[e];

			if (ed->kind == GS_EDGE_STREAM_ORDER) {
				if (!prev_known || ops[ed->from].end_ns > ready)
					ready = ops[ed->from].end_ns;
				prev_known = true;
			}
		}
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
						  .event = ed->event,
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
