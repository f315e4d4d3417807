/* SPDX-License-Identifier: MIT */
/*
 * The dependency graph (graph.c): the legacy default stream's implicit
 * edges: each op of a legacy default stream waits for the ops enqueued
 * before it on the blocking streams of its context, and they for it, one
 * range of ops per (default stream op, blocking stream) pair; edges that
 * others imply are counted, not kept.
 */
#include <gpuscope/graph.h>
#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <gpuscope/u64map.h>
#include "analyzer_priv.h"
#include "graph_priv.h"
#include "schedule_priv.h"

#include <stdlib.h>
#include <string.h>

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

/* What the searches over a run of d's entries compare with: entry i of the
 * run is ops[op[i]]; x (link_into_default), or a time t. */
struct dl_key {
	const struct gs_op *ops;
	const uint32_t *op;
	const struct gs_op *x;
	int64_t t;
};

/* Entry i is before the first entry that x ended before and started no
 * later than. */
static bool dl_not_after_x(const void *ctx, size_t i)
{
	const struct dl_key *k = ctx;
	const struct gs_op *o = &k->ops[k->op[i]];

	return !(k->x->end_ns < o->end_ns && k->x->start_ns <= o->start_ns);
}

/* Entry i ended by t. */
static bool dl_ended_by(const void *ctx, size_t i)
{
	const struct dl_key *k = ctx;

	return k->ops[k->op[i]].end_ns <= k->t;
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
		size_t e = d->run_end[k] < khi ? d->run_end[k] : khi, l, keep;
		struct dl_key key = {.ops = b->ops, .op = d->op + k, .x = px};

		l = k + gs_partition_point(e - k, dl_not_after_x, &key);
		keep = l < e ? l + 1 : e;
		for (size_t j = k; j < keep; j++) {
			gs_status rc = graph_add_edge(b, x, d->op[j], GS_EDGE_DEFAULT_STREAM, 0);

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
		size_t e = d->run_end[k] < khi ? d->run_end[k] : khi, l, w = k;
		struct dl_key key = {.ops = b->ops, .op = d->op + k, .t = py->start_ns};

		l = k + gs_partition_point(e - k, dl_ended_by, &key);
		if (l > k) { /* a = l - 1: [k, w) are implied */
			size_t a = l - 1;

			key.t = ready == INT64_MIN ? INT64_MAX : ready;
			w = k + gs_partition_point(a - k, dl_ended_by, &key);
		}
		b->implied += w - k;
		for (size_t j = w; j < e; j++) {
			gs_status rc = graph_add_edge(b, d->op[j], y, GS_EDGE_DEFAULT_STREAM, 0);

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
			uint64_t c = graph_corr_at(b, x, j);
			uint32_t op = graph_op_at(b, x, j);
			size_t f_lo = dlist_bound(d, c, true);
			size_t f_hi = j + 1 < x->hi ?
					      dlist_bound(d, graph_corr_at(b, x, j + 1), true) :
					      d->n;
			size_t r_lo =
				j > x->lo ? dlist_bound(d, graph_corr_at(b, x, j - 1), false) : 0;
			size_t r_hi = dlist_bound(d, c, false);

			if (f_lo < f_hi)
				rc = link_into_default(b, d, op, f_lo, f_hi);
			if (!rc && r_lo < r_hi)
				rc = link_from_default(b, d, op, r_lo, r_hi);
		}
		return rc;
	}
	for (size_t k = 0; k < d->n && !rc;) { /* runs of d with one op of p before */
		uint32_t op = graph_last_before(b, p, d->corr[k]);
		size_t e = k + 1;

		while (e < d->n && graph_last_before(b, p, d->corr[e]) == op)
			e++;
		if (op != GS_NO_INDEX)
			rc = link_into_default(b, d, op, k, e);
		k = e;
	}
	for (size_t k = 0; k < d->n && !rc;) { /* and with one op of p after */
		uint32_t op = graph_first_after(b, p, d->corr[k]);
		size_t e = k + 1;

		while (e < d->n && graph_first_after(b, p, d->corr[e]) == op)
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
			rc = graph_add_edge(b, graph_last_before(b, peers[p], c), (uint32_t)i,
					    GS_EDGE_DEFAULT_STREAM, 0);
			if (!rc)
				rc = graph_add_edge(b, (uint32_t)i,
						    graph_first_after(b, peers[p], c),
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
gs_status graph_default_stream_edges(struct builder *b)
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
