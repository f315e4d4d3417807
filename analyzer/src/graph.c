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

/* One op launched by a host thread: grouped by (pid, tid, stream). */
struct launch_entry {
	int64_t pid;
	int64_t tid;
	uint32_t stream;
	int64_t api_start;
	uint32_t op;
};

struct launch_group {
	int64_t pid;
	int64_t tid;
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
	struct gs_graph *g;

	/* Per stream: [corr_first[s], corr_first[s + 1]) in by_corr. */
	struct op_key *by_corr;
	size_t *corr_first;
	struct launch_entry *launches;
	size_t n_launches;
	/* Runs of launches with one (pid, tid, stream): [first, end). */
	struct launch_group *groups;
	size_t n_groups;

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
	if (from == to || from == GS_NO_INDEX || to == GS_NO_INDEX)
		return GS_OK;
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

static gs_status index_streams(struct builder *b)
{
	size_t k = 0;

	b->by_corr = malloc((b->n_ops ? b->n_ops : 1) * sizeof(*b->by_corr));
	b->corr_first = calloc(b->n_streams + 1, sizeof(*b->corr_first));
	if (!b->by_corr || !b->corr_first)
		return nomem();
	for (uint32_t s = 0; s < b->n_streams; s++) {
		size_t first, count, base = k;

		gs_trace_stream_ops(b->t, s, &first, &count);
		b->corr_first[s] = k;
		for (size_t i = first; i < first + count; i++) {
			if (!b->ops[i].correlation)
				continue;
			b->by_corr[k++] = (struct op_key){.key = b->ops[i].correlation,
							  .start = b->ops[i].start_ns,
							  .op = (uint32_t)i};
		}
		if (k - base > 1)
			gs_sort(b->by_corr + base, k - base, sizeof(*b->by_corr), cmp_op_key);
	}
	b->corr_first[b->n_streams] = k;
	return GS_OK;
}

/* The last op of stream `s` enqueued before correlation `c`. */
static uint32_t last_before(const struct builder *b, uint32_t s, uint64_t c)
{
	size_t lo, hi;

	if (s >= b->n_streams)
		return GS_NO_INDEX;
	lo = b->corr_first[s];
	hi = b->corr_first[s + 1];
	/* First entry with corr >= c. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->by_corr[mid].key < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == b->corr_first[s])
		return GS_NO_INDEX;
	return b->by_corr[lo - 1].op;
}

/* The first op of stream `s` enqueued after correlation `c`. */
static uint32_t first_after(const struct builder *b, uint32_t s, uint64_t c)
{
	size_t lo, hi;

	if (s >= b->n_streams)
		return GS_NO_INDEX;
	lo = b->corr_first[s];
	hi = b->corr_first[s + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->by_corr[mid].key <= c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->corr_first[s + 1] ? b->by_corr[lo].op : GS_NO_INDEX;
}

static int cmp_launch(const void *pa, const void *pb)
{
	const struct launch_entry *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->api_start != b->api_start)
		return a->api_start < b->api_start ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

static gs_status index_launches(struct builder *b)
{
	b->launches = malloc((b->n_ops ? b->n_ops : 1) * sizeof(*b->launches));
	if (!b->launches)
		return nomem();
	for (size_t i = 0; i < b->n_ops; i++) {
		uint32_t a = b->g->launch[i];

		if (a == GS_NO_INDEX)
			continue;
		b->launches[b->n_launches++] =
			(struct launch_entry){.pid = b->api[a].pid,
					      .tid = b->api[a].tid,
					      .stream = b->ops[i].stream,
					      .api_start = b->api[a].start_ns,
					      .op = (uint32_t)i};
	}
	if (b->n_launches > 1)
		gs_sort(b->launches, b->n_launches, sizeof(*b->launches), cmp_launch);
	b->groups = malloc((b->n_launches ? b->n_launches : 1) * sizeof(*b->groups));
	if (!b->groups)
		return nomem();
	for (size_t i = 0; i < b->n_launches; i++) {
		const struct launch_entry *e = &b->launches[i];
		struct launch_group *last = b->n_groups ? &b->groups[b->n_groups - 1] : NULL;

		/* groups[0 .. n_groups) are written below before they are read
		 * (the static analyzer loses track of that). */
		/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult) */
		if (last && last->pid == e->pid && last->tid == e->tid &&
		    b->launches[last->first].stream == e->stream) {
			last->end = i + 1;
			continue;
		}
		b->groups[b->n_groups++] = (struct launch_group){.pid = e->pid,
								 .tid = e->tid,
								 .first = i,
								 .end = i + 1};
	}
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
	size_t lo = 0, hi = b->n_groups;

	/* First group of the thread, then one binary search per stream group:
	 * O(S log N) for the S streams the thread launched on. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct launch_group *gr = &b->groups[mid];

		if (gr->pid < pid || (gr->pid == pid && gr->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < b->n_groups && b->groups[k].pid == pid && b->groups[k].tid == tid;
	     k++) {
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

static gs_status stream_order_edges(struct builder *b)
{
	for (uint32_t s = 0; s < b->n_streams; s++) {
		size_t first, count;

		gs_trace_stream_ops(b->t, s, &first, &count);
		for (size_t i = first + 1; i < first + count; i++) {
			gs_status rc = add_edge(b, (uint32_t)(i - 1), (uint32_t)i,
						GS_EDGE_STREAM_ORDER, 0);
			if (rc)
				return rc;
		}
	}
	return GS_OK;
}

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
	for (uint32_t l = 0; l < b->n_streams; l++) {
		size_t first, count;

		if (b->streams[l].kind != GS_STREAM_LEGACY_DEFAULT)
			continue;
		gs_trace_stream_ops(b->t, l, &first, &count);
		for (size_t i = first; i < first + count; i++) {
			uint64_t c = b->ops[i].correlation;

			if (!c)
				continue;
			for (uint32_t s = 0; s < b->n_streams; s++) {
				gs_status rc;

				if (s == l || !blocking_kind(b->streams[s].kind) ||
				    !same_context(&b->streams[s], &b->streams[l]))
					continue;
				rc = add_edge(b, last_before(b, s, c), (uint32_t)i,
					      GS_EDGE_DEFAULT_STREAM, 0);
				if (!rc)
					rc = add_edge(b, (uint32_t)i, first_after(b, s, c),
						      GS_EDGE_DEFAULT_STREAM, 0);
				if (rc)
					return rc;
			}
		}
	}
	return GS_OK;
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

static gs_status finish_edges(struct builder *b)
{
	struct gs_graph *g = b->g;
	size_t k = 0;

	if (b->n_edges > 1)
		gs_sort(b->edges, b->n_edges, sizeof(*b->edges), cmp_edge);
	for (size_t i = 0; i < b->n_edges; i++) {
		if (k && b->edges[k - 1].to == b->edges[i].to &&
		    b->edges[k - 1].from == b->edges[i].from &&
		    b->edges[k - 1].kind == b->edges[i].kind)
			continue;
		b->edges[k++] = b->edges[i];
	}
	g->edges = b->edges;
	g->n_edges = k;
	b->edges = NULL;
	g->in_first = calloc(b->n_ops + 1, sizeof(*g->in_first));
	if (!g->in_first)
		return nomem();
	for (size_t i = 0; i < k; i++) {
		g->in_first[g->edges[i].to + 1]++;
		g->edge_count[g->edges[i].kind]++;
	}
	for (size_t i = 0; i < b->n_ops; i++)
		g->in_first[i + 1] += g->in_first[i];
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
		rc = stream_order_edges(&b);
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
	free(b.by_corr);
	free(b.corr_first);
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
	if (k > 1)
		gs_sort(w, k, sizeof(*w), cmp_wait);
	*out = w;
	*n = k;
	return GS_OK;
}
