/* SPDX-License-Identifier: MIT */
/*
 * The dependency graph (graph.c): the edges of syncs, each found by
 * binary searches over the builder's indexes: event syncs and stream waits
 * (the recording stream's last op before the record, to what the waiting
 * thread or stream enqueues after), stream and context syncs, and the
 * synchronous copies that block their thread.
 */
#include <gpuscope/graph.h>
#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <gpuscope/u64map.h>
#include "analyzer_priv.h"
#include "graph_priv.h"
#include "schedule_priv.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
		size_t l;
		gs_status rc;

		if (b->launches[gr->end - 1].api_start < after_ns)
			break; /* nor any after it */
		l = gr->first + gs_lower_bound_i64_at(&b->launches[gr->first], gr->end - gr->first,
						      sizeof(*b->launches),
						      offsetof(struct launch_entry, api_start),
						      after_ns);
		rc = graph_add_edge(b, producer, b->launches[l].op, kind, event);
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
							 .min_corr = graph_corr_at(b, x, x->lo)};
		for (size_t i = x->lo; i < x->hi; i++)
			cx->dc[cx->n_dc++] = (struct dev_corr){.device = b->streams[s].device,
							       .corr = graph_corr_at(b, x, i)};
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

struct dev_corr_key {
	const struct dev_corr *dc;
	uint32_t device;
	uint64_t corr;
};

/* Entry i is before (device, corr) in the (device, id) order. */
static bool dev_corr_before(const void *ctx, size_t i)
{
	const struct dev_corr_key *k = ctx;
	const struct dev_corr *e = &k->dc[i];

	return e->device < k->device || (e->device == k->device && e->corr < k->corr);
}

/* Whether an op of `device` has an id in [lo, hi). */
static bool device_corr_between(const struct ctx_index *cx, uint32_t device, uint64_t lo,
				uint64_t hi)
{
	struct dev_corr_key k = {cx->dc, device, lo};
	size_t l = gs_partition_point(cx->n_dc, dev_corr_before, &k);

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

		if (!device_corr_between(cx, y->device, c0, c1) &&
		    !graph_launched_between(b, th, e0, e1))
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
		producer = graph_last_before(b, cx->ds[k].stream, y->correlation);
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

		if (!graph_launched_between(b, th, e0, e1))
			return true;
	}
	last_prod[th] = producer;
	last_end[th] = end;
	return false;
}

gs_status graph_sync_edges(struct builder *b)
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
			producer = graph_last_before(b, rs, rcorr);
			if (producer == GS_NO_INDEX)
				break; /* nothing recorded before: the wait is a no-op */
			rc = graph_add_edge(b, producer,
					    graph_first_after(b, y->stream, y->correlation),
					    GS_EDGE_EVENT, y->event_id);
			break;
		case GS_SYNC_EVENT:
		case GS_SYNC_STREAM:
			if (y->tid < 0)
				break;
			if (y->kind == GS_SYNC_EVENT) {
				if (!resolve_event(b, i, &rs, &rcorr))
					break;
				producer = graph_last_before(b, rs, rcorr);
				event = y->event_id;
			} else if (y->stream != GS_NO_INDEX) {
				producer = graph_last_before(b, y->stream, y->correlation);
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
			if (th == GS_NO_INDEX || !graph_launches_after(b, th, y->end_ns))
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
gs_status graph_sync_copy_edges(struct builder *b)
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
