/* SPDX-License-Identifier: MIT */
/*
 * The dependency graph of SPEC §4.2 and the waits of SPEC §4.3.
 *
 * Enqueue order is read from correlation ids (one increasing counter per
 * process): "the last op on stream S enqueued before call C" is the op of
 * S with the largest correlation below C's. Each stream keeps its ops
 * sorted by (correlation, start) for binary searches, and each host thread
 * keeps, per stream, the ops it launched sorted by launch-call start, so
 * "the first op the thread launched on S after time T" is a binary search
 * too. Building costs O(N log N) in the ops plus O(K log N) per sync for
 * the K streams involved; no step is quadratic.
 */
#include <gpuscope/analyzer.h>

#include "analyzer_priv.h"
#include "u64map.h"

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

static gs_status nomem(void)
{
	gs_error_append("out of memory building the dependency graph");
	return GS_ERR_NOMEM;
}

static gs_status add_edge(struct builder *b, uint32_t from, uint32_t to, uint8_t kind,
			  uint64_t event)
{
	if (from == to || from >= b->n_ops || to >= b->n_ops)
		return GS_OK; /* GS_NO_INDEX included */
	if (b->n_edges == b->cap_edges) {
		size_t cap = b->cap_edges ? b->cap_edges * 2 : 1024;
		struct gs_edge *e = realloc(b->edges, cap * sizeof(*e));

		if (!e)
			return nomem();
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
		return nomem();
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
		return nomem();
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
		return nomem();
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

/* The first entry of x with an id >= c (above c when `strict`). */
static size_t corr_bound(const struct builder *b, const struct corr_index *x, uint64_t c,
			 bool strict)
{
	size_t lo = x->lo, hi = x->hi;

	if (x->skip) { /* narrow [lo, hi) to one block first */
		size_t klo = 0, khi = (x->hi - x->lo + GS_SKIP - 1) / GS_SKIP;

		while (klo < khi) {
			size_t mid = klo + (khi - klo) / 2;

			if (strict ? x->skip[mid] <= c : x->skip[mid] < c)
				klo = mid + 1;
			else
				khi = mid;
		}
		/* Entry lo + GS_SKIP * klo is past the bound (or the end), the
		 * one GS_SKIP before is not. */
		if (klo > 0)
			lo = x->lo + GS_SKIP * (klo - 1) + 1;
		if (x->lo + GS_SKIP * klo < hi)
			hi = x->lo + GS_SKIP * klo;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k = corr_at(b, x, mid);

		if (strict ? k <= c : k < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
static uint32_t thread_of_call(const struct builder *b, uint32_t a, uint32_t hint)
{
	size_t lo = 0, hi = b->n_threads;

	if (hint < b->n_threads && a >= b->threads[hint].first_api &&
	    a - b->threads[hint].first_api < b->threads[hint].api_count)
		return hint;
	while (lo < hi) { /* the last thread starting at or before a */
		size_t mid = lo + (hi - lo) / 2;

		if (b->threads[mid].first_api <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (uint32_t)(lo - 1) : 0;
}

static gs_status push_group(struct builder *b, size_t *cap, struct launch_group g)
{
	if (b->n_groups == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct launch_group *ng = realloc(b->groups, c * sizeof(*ng));

		if (!ng)
			return nomem();
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

	b->launches = malloc((b->n_ops ? b->n_ops : 1) * sizeof(*b->launches));
	if (!b->launches)
		return nomem();
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

/*
 * Edges from `producer` to the first op of every stream that thread
 * (pid, tid) launched at or after `after_ns`.
 */
static gs_status edges_to_later_launches(struct builder *b, uint32_t producer, int64_t pid,
					 int64_t tid, int64_t after_ns, uint8_t kind,
					 uint64_t event)
{
	uint32_t th = gs_trace_find_thread(b->t, pid, tid);
	size_t lo = 0, hi = b->n_groups;

	if (th == GS_NO_INDEX)
		return GS_OK; /* a thread that called nothing launched nothing */
	/* First group of the thread, then one binary search per stream group:
	 * O(S log N) for the S streams the thread launched on. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->groups[mid].thread < th)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < b->n_groups && b->groups[k].thread == th; k++) {
		size_t l = b->groups[k].first, h = b->groups[k].end;

		while (l < h) {
			size_t mid = l + (h - l) / 2;

			if (b->launches[mid].api_start < after_ns)
				l = mid + 1;
			else
				h = mid;
		}
		if (l < b->groups[k].end) {
			gs_status rc = add_edge(b, producer, b->launches[l].op, kind, event);

			if (rc)
				return rc;
		}
	}
	return GS_OK;
}

/* ---- edge kinds ---- */

struct event_index {
	struct gs_u64map by_sync_id;
	struct gs_u64map by_corr;
	const struct gs_event_record *recs;
};

/* Where the event a sync refers to was recorded: stream and correlation. */
static bool resolve_event(const struct builder *b, const struct event_index *ev,
			  const struct gs_sync *y, uint32_t *stream, uint64_t *corr)
{
	const struct gs_event_record *r = NULL;
	uint32_t idx;

	if (y->sync_id != GS_NO_SYNC_ID && gs_u64map_get(&ev->by_sync_id, y->sync_id, &idx))
		r = &ev->recs[idx];
	else if (y->event_correlation && gs_u64map_get(&ev->by_corr, y->event_correlation, &idx))
		r = &ev->recs[idx];
	*stream = r && r->stream != GS_NO_INDEX ? r->stream : y->wait_on_stream;
	*corr = r ? r->correlation : y->event_correlation;
	return *stream != GS_NO_INDEX && *stream < b->n_streams && *corr != 0;
}

static gs_status sync_edges(struct builder *b)
{
	size_t n_syncs, n_recs, n_waits = 0;
	const struct gs_sync *syncs = gs_trace_syncs(b->t, &n_syncs);
	struct event_index ev = {.recs = gs_trace_event_records(b->t, &n_recs)};
	gs_status rc = GS_OK;

	if (!gs_u64map_init(&ev.by_sync_id, n_recs) || !gs_u64map_init(&ev.by_corr, n_recs)) {
		rc = nomem();
		goto out;
	}
	/* The latest record wins for a sync id (ids are not reused) and for a
	 * correlation (one call records one event). */
	for (size_t i = 0; i < n_recs; i++) {
		if (ev.recs[i].sync_id != GS_NO_SYNC_ID)
			gs_u64map_put(&ev.by_sync_id, ev.recs[i].sync_id, (uint32_t)i, true);
		if (ev.recs[i].correlation)
			gs_u64map_put(&ev.by_corr, ev.recs[i].correlation, (uint32_t)i, true);
	}
	for (size_t i = 0; i < n_syncs && !rc; i++) {
		const struct gs_sync *y = &syncs[i];
		uint32_t rs, producer;
		uint64_t rcorr;

		switch (y->kind) {
		case GS_SYNC_STREAM_WAIT:
			n_waits++;
			if (!resolve_event(b, &ev, y, &rs, &rcorr) || y->stream == GS_NO_INDEX) {
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
			if (y->tid < 0 || !resolve_event(b, &ev, y, &rs, &rcorr))
				break;
			producer = last_before(b, rs, rcorr);
			if (producer != GS_NO_INDEX)
				rc = edges_to_later_launches(b, producer, y->pid, y->tid, y->end_ns,
							     GS_EDGE_HOST_SYNC, y->event_id);
			break;
		case GS_SYNC_STREAM:
			if (y->tid < 0 || y->stream == GS_NO_INDEX)
				break;
			producer = last_before(b, y->stream, y->correlation);
			if (producer != GS_NO_INDEX)
				rc = edges_to_later_launches(b, producer, y->pid, y->tid, y->end_ns,
							     GS_EDGE_HOST_SYNC, 0);
			break;
		case GS_SYNC_CONTEXT:
			if (y->tid < 0)
				break;
			for (uint32_t s = 0; s < b->n_streams && !rc; s++) {
				if (b->streams[s].device != y->device)
					continue;
				producer = last_before(b, s, y->correlation);
				if (producer != GS_NO_INDEX)
					rc = edges_to_later_launches(b, producer, y->pid, y->tid,
								     y->end_ns, GS_EDGE_HOST_SYNC,
								     0);
			}
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
	gs_u64map_fini(&ev.by_sync_id);
	gs_u64map_fini(&ev.by_corr);
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

static gs_status sync_copy_edges(struct builder *b)
{
	for (size_t i = 0; i < b->n_ops; i++) {
		uint32_t a = b->g->launch[i];
		gs_status rc;

		if (a == GS_NO_INDEX || !host_synchronous_copy(&b->ops[i]))
			continue;
		rc = edges_to_later_launches(b, (uint32_t)i, b->api[a].pid, b->api[a].tid,
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

static bool same_context(const struct gs_stream *a, const struct gs_stream *b)
{
	return a->pid == b->pid && a->device == b->device && a->context == b->context;
}

/* The legacy default stream waits for, and is waited for by, the blocking
 * streams of its context (CUPTI records nothing for it). */
static gs_status default_stream_edges(struct builder *b)
{
	uint32_t *peers = NULL;
	gs_status rc = GS_OK;

	for (uint32_t l = 0; l < b->n_streams && !rc; l++) {
		size_t first, count, n_peers = 0;

		if (b->streams[l].kind != GS_STREAM_LEGACY_DEFAULT)
			continue;
		gs_trace_stream_ops(b->t, l, &first, &count);
		if (!count)
			continue;
		if (!peers) {
			peers = malloc(b->n_streams * sizeof(*peers));
			if (!peers)
				return nomem();
		}
		/* The streams it synchronizes with, in stream order. */
		for (uint32_t s = 0; s < b->n_streams; s++)
			if (s != l && blocking_kind(b->streams[s].kind) &&
			    same_context(&b->streams[s], &b->streams[l]))
				peers[n_peers++] = s;
		for (size_t i = first; i < first + count && n_peers && !rc; i++) {
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
	}
	free(peers);
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
	if (!touch || !gs_u64map_init(&by_corr, b->n_ops)) {
		rc = nomem();
		goto out;
	}
	for (size_t i = 0; i < b->n_ops; i++)
		if (b->ops[i].correlation)
			gs_u64map_put(&by_corr,
				      b->ops[i].correlation * GS_OP_KIND_COUNT + b->ops[i].kind,
				      (uint32_t)i, false);
	for (size_t i = 0; i < n_links; i++) {
		uint32_t op;

		if (!gs_u64map_get(&by_corr,
				   links[i].correlation * GS_OP_KIND_COUNT + links[i].op_kind, &op))
			continue;
		touch[n++] = (struct op_key){.key = links[i].allocation,
					     .start = b->ops[op].start_ns,
					     .op = op};
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
 * had been added first (as SPEC §4.2 lists them) and all had been sorted:
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
		return nomem();
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
		return nomem();
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

gs_status gs_graph_build(const struct gs_trace *t, struct gs_graph **out)
{
	struct builder b = {.t = t};
	struct gs_graph *g = calloc(1, sizeof(*g));
	gs_status rc;

	*out = NULL;
	if (!g)
		return nomem();
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
	/* launch[i]: the API call with the op's correlation (analyzer_priv.h). */
	rc = gs_op_launches(t, &g->launch);
	if (rc)
		goto out;
	for (size_t s = 0; s < b.n_streams; s++)
		if (b.streams[s].kind != GS_STREAM_UNKNOWN)
			g->stream_kinds_known = true;
	rc = index_streams(&b);
	if (!rc)
		rc = index_launches(&b);
	if (!rc)
		rc = sync_edges(&b);
	if (!rc)
		rc = sync_copy_edges(&b);
	if (!rc)
		rc = default_stream_edges(&b);
	if (!rc)
		rc = data_edges(&b);
	if (!rc)
		rc = finish_edges(&b);
out:
	free(b.by_stream);
	free(b.skip);
	free(b.by_corr);
	free(b.launches);
	free(b.groups);
	free(b.edges);
	if (rc) {
		gs_graph_destroy(g);
		return rc;
	}
	*out = g;
	return GS_OK;
}

void gs_graph_destroy(struct gs_graph *g)
{
	if (!g)
		return;
	free(g->edges);
	free(g->in_first);
	free(g->launch);
	free(g);
}

/* ---- waits (SPEC §4.3) ---- */

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
					return nomem();
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
