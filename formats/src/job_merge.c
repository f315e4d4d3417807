/* SPDX-License-Identifier: MIT */
/*
 * Inputs of one process merged without doubling what they hold
 * (job_merge.h). All are replayed into one new trace through a sink of our
 * own, which is finished once at the end: the first as it is, each next
 * through a filter that drops every record identical to a record already
 * in the new trace (from the inputs before it) not yet matched by this
 * input. The new trace's records are found through one hash index per
 * kind over its arrays, in its own ids (where the records arrive), grown
 * after each input, so nothing is copied: the index costs about eleven
 * bytes a record, and a record's mark says which input took it, so that
 * nothing is cleared between inputs. An input's collectives are passed on
 * only with an op that is kept, so that a dropped op leaves no collective
 * behind.
 */
#include "job_merge.h"
#include "util.h"

#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The records of one kind of the new trace: open addressing over 1 + the
 * record's index; each record stands for one record of each later input at
 * most (used: 1 + the input that took it). */
struct index {
	uint32_t *slots;
	size_t mask;
	uint32_t *used;
	size_t n; /* records indexed */
};

struct merge {
	struct gs_sink sink; /* first: the callbacks recover the merge */
	struct gs_sink *next;
	const struct gs_trace *a; /* the new trace, as it grows */
	bool second;              /* replaying an input after the first */
	uint32_t input;           /* 1 + that input */
	/* The input's collectives (strings of the new trace) and, once an op
	 * of theirs is kept, 1 + their index in the new trace. */
	struct gs_collective *bcoll;
	uint32_t *bcoll_new;
	size_t n_bcoll, cap_bcoll, n_bcoll_new, cap_bcoll_new;
	struct index ops, api, syncs, events, allocs, links, ranges, overheads, clocks;
	uint64_t dropped;
};

static struct merge *mg(struct gs_sink *s)
{
	return (struct merge *)s;
}

#define H(h, x) ((h) = gs_hash_combine((h), (uint64_t)(x)))

/* ---- each kind: the new trace's record k, a hash of
 * the fields that tell records apart, and equality of every field ---- */

static struct gs_op rec_op(const struct merge *g, size_t k)
{
	size_t n;
	return gs_trace_ops(g->a, &n)[k];
}

static uint64_t hash_op(const struct gs_op *o)
{
	uint64_t h = 0;

	H(h, o->start_ns);
	H(h, o->end_ns);
	H(h, o->correlation);
	H(h, o->name);
	H(h, o->stream);
	return H(h, o->kind);
}

static bool eq_collective(const struct gs_collective *x, const struct gs_collective *y)
{
	if (!x || !y)
		return x == y;
	return x->name == y->name && x->group == y->group && x->group_desc == y->group_desc &&
	       x->group_ranks == y->group_ranks && x->dtype == y->dtype &&
	       x->group_size == y->group_size && x->in_nelems == y->in_nelems &&
	       x->out_nelems == y->out_nelems && x->has_nelems == y->has_nelems;
}

static bool eq_launch(const struct gs_launch_cfg *x, const struct gs_launch_cfg *y)
{
	static const struct gs_launch_cfg zero;

	if (!x)
		x = &zero;
	if (!y)
		y = &zero;
	return memcmp(x->grid, y->grid, sizeof(x->grid)) == 0 &&
	       memcmp(x->block, y->block, sizeof(x->block)) == 0 &&
	       x->shared_mem == y->shared_mem && x->registers == y->registers &&
	       x->graph_id == y->graph_id;
}

/* An op of the second trace as it arrives: its launch configuration and
 * its collective (strings of the new trace), for the comparison. */
struct op_in {
	const struct gs_op *op;
	const struct gs_launch_cfg *launch;
	const struct gs_collective *coll;
};

static bool eq_op_at(const struct merge *g, size_t k, const void *rec)
{
	const struct op_in *in = rec;
	const struct gs_op *y = in->op;
	size_t n;
	const struct gs_op *raw = &gs_trace_ops(g->a, &n)[k];
	const struct gs_collective *ac = gs_trace_op_collective(g->a, raw);
	struct gs_op x = rec_op(g, k);

	if (x.start_ns != y->start_ns || x.end_ns != y->end_ns || x.correlation != y->correlation ||
	    x.bytes != y->bytes || x.graph_node != y->graph_node || x.name != y->name ||
	    x.stream != y->stream || x.kind != y->kind || x.copy_kind != y->copy_kind ||
	    x.flags != y->flags || x.src_mem != y->src_mem || x.dst_mem != y->dst_mem)
		return false;
	if (!eq_launch(gs_trace_op_launch_cfg(g->a, raw), in->launch))
		return false;
	return eq_collective(ac, in->coll);
}

static uint64_t hash_op_at(const struct merge *g, size_t k)
{
	struct gs_op o = rec_op(g, k);

	return hash_op(&o);
}

static struct gs_api_call rec_api(const struct merge *g, size_t k)
{
	size_t n;
	return gs_trace_api_calls(g->a, &n)[k];
}

static uint64_t hash_api(const struct gs_api_call *c)
{
	uint64_t h = 0;

	H(h, c->start_ns);
	H(h, c->end_ns);
	H(h, c->pid);
	H(h, c->tid);
	H(h, c->correlation);
	return H(h, c->name);
}

static bool eq_api(const struct gs_api_call *x, const struct gs_api_call *y)
{
	return x->start_ns == y->start_ns && x->end_ns == y->end_ns && x->pid == y->pid &&
	       x->tid == y->tid && x->correlation == y->correlation && x->name == y->name &&
	       x->return_value == y->return_value && x->cbid == y->cbid && x->kind == y->kind;
}

static struct gs_sync rec_sync(const struct merge *g, size_t k)
{
	size_t n;
	return gs_trace_syncs(g->a, &n)[k];
}

static uint64_t hash_sync(const struct gs_sync *y)
{
	uint64_t h = 0;

	H(h, y->start_ns);
	H(h, y->end_ns);
	H(h, y->pid);
	H(h, y->tid);
	H(h, y->correlation);
	H(h, y->stream);
	return H(h, y->kind);
}

static bool eq_sync(const struct gs_sync *x, const struct gs_sync *y)
{
	return x->start_ns == y->start_ns && x->end_ns == y->end_ns && x->pid == y->pid &&
	       x->tid == y->tid && x->correlation == y->correlation && x->event_id == y->event_id &&
	       x->sync_id == y->sync_id && x->event_correlation == y->event_correlation &&
	       x->stream == y->stream && x->wait_on_stream == y->wait_on_stream &&
	       x->device == y->device && x->kind == y->kind;
}

static struct gs_event_record rec_event(const struct merge *g, size_t k)
{
	size_t n;
	return gs_trace_event_records(g->a, &n)[k];
}

static uint64_t hash_event(const struct gs_event_record *e)
{
	uint64_t h = 0;

	H(h, e->time_ns);
	H(h, e->correlation);
	H(h, e->event_id);
	return H(h, e->stream);
}

static bool eq_event(const struct gs_event_record *x, const struct gs_event_record *y)
{
	return x->time_ns == y->time_ns && x->correlation == y->correlation &&
	       x->event_id == y->event_id && x->sync_id == y->sync_id && x->stream == y->stream;
}

static struct gs_allocation rec_alloc(const struct merge *g, size_t k)
{
	size_t n;

	return gs_trace_allocations(g->a, &n)[k];
}

static uint64_t hash_alloc(const struct gs_allocation *a)
{
	uint64_t h = 0;

	H(h, a->address);
	H(h, a->bytes);
	H(h, a->alloc_ns);
	H(h, a->free_ns);
	return H(h, a->pid);
}

static bool eq_alloc(const struct gs_allocation *x, const struct gs_allocation *y)
{
	return x->address == y->address && x->bytes == y->bytes && x->alloc_ns == y->alloc_ns &&
	       x->free_ns == y->free_ns && x->pid == y->pid && x->device == y->device &&
	       x->mem_kind == y->mem_kind;
}

static struct gs_op_alloc rec_link(const struct merge *g, size_t k)
{
	size_t n;
	return gs_trace_op_allocs(g->a, &n)[k];
}

static uint64_t hash_link(const struct gs_op_alloc *l)
{
	uint64_t h = 0;

	H(h, l->correlation);
	H(h, l->allocation);
	return H(h, l->op_kind);
}

static bool eq_link(const struct gs_op_alloc *x, const struct gs_op_alloc *y)
{
	return x->correlation == y->correlation && x->allocation == y->allocation &&
	       x->op_kind == y->op_kind && x->flags == y->flags && x->offset == y->offset &&
	       x->bytes == y->bytes;
}

static struct gs_range rec_range(const struct merge *g, size_t k)
{
	size_t n;
	return gs_trace_ranges(g->a, &n)[k];
}

static uint64_t hash_range(const struct gs_range *r)
{
	uint64_t h = 0;

	H(h, r->start_ns);
	H(h, r->end_ns);
	H(h, r->pid);
	H(h, r->tid);
	H(h, r->name);
	return H(h, r->kind);
}

static bool eq_range(const struct gs_range *x, const struct gs_range *y)
{
	return x->start_ns == y->start_ns && x->end_ns == y->end_ns && x->pid == y->pid &&
	       x->tid == y->tid && x->external_id == y->external_id && x->name == y->name &&
	       x->domain == y->domain && x->kind == y->kind && x->stream == y->stream;
}

static struct gs_overhead rec_overhead(const struct merge *g, size_t k)
{
	size_t n;
	return gs_trace_overheads(g->a, &n)[k];
}

static uint64_t hash_overhead(const struct gs_overhead *o)
{
	uint64_t h = 0;

	H(h, o->start_ns);
	H(h, o->end_ns);
	H(h, o->pid);
	return H(h, o->kind);
}

static bool eq_overhead(const struct gs_overhead *x, const struct gs_overhead *y)
{
	return x->start_ns == y->start_ns && x->end_ns == y->end_ns && x->pid == y->pid &&
	       x->kind == y->kind;
}

static struct gs_clock_pair rec_clock(const struct merge *g, size_t k)
{
	size_t n;

	return gs_trace_clock_pairs(g->a, &n)[k];
}

static uint64_t hash_clock(const struct gs_clock_pair *c)
{
	uint64_t h = 0;

	H(h, c->pid);
	H(h, c->device);
	H(h, c->host_ns);
	return H(h, c->gpu_ns);
}

static bool eq_clock(const struct gs_clock_pair *x, const struct gs_clock_pair *y)
{
	return x->pid == y->pid && x->device == y->device && x->host_ns == y->host_ns &&
	       x->gpu_ns == y->gpu_ns;
}

/* hash_NAME_at and eq_NAME_at of a kind with a_NAME, h_NAME, eq_NAME. */
#define KIND_AT(name, type)                                                                        \
	static uint64_t hash_##name##_at(const struct merge *g, size_t k)                          \
	{                                                                                          \
		type r = rec_##name(g, k);                                                         \
                                                                                                   \
		return hash_##name(&r);                                                            \
	}                                                                                          \
	static bool eq_##name##_at(const struct merge *g, size_t k, const void *rec)               \
	{                                                                                          \
		type r = rec_##name(g, k);                                                         \
                                                                                                   \
		return eq_##name(&r, rec);                                                         \
	}

KIND_AT(api, struct gs_api_call)
KIND_AT(sync, struct gs_sync)
KIND_AT(event, struct gs_event_record)
KIND_AT(alloc, struct gs_allocation)
KIND_AT(link, struct gs_op_alloc)
KIND_AT(range, struct gs_range)
KIND_AT(overhead, struct gs_overhead)
KIND_AT(clock, struct gs_clock_pair)

/* ---- the index ---- */

/* Index the new trace's records up to n (records are only added): twice
 * the slots and every record again when past half full. */
static gs_status index_extend(const struct merge *g, struct index *x, size_t n,
			      uint64_t (*hash_at)(const struct merge *, size_t))
{
	size_t size = x->mask + 1, from = x->n;

	if (n <= x->n)
		return GS_OK;
	if (n >= UINT32_MAX / 2) {
		gs_error_append("merging inputs of one process: too many records (%zu)", n);
		return GS_ERR_LIMIT;
	}
	if (!x->slots || 2 * n > size) {
		uint32_t *used;

		for (size = 16; size < 4 * n;)
			size *= 2;
		/* a mark for each record the slots may take: size / 2 */
		used = realloc(x->used, size / 2 * sizeof(*used));
		if (!used)
			return gs_nomem();
		x->used = used;
		memset(used + x->n, 0, (size / 2 - x->n) * sizeof(*used));
		free(x->slots);
		x->slots = calloc(size, sizeof(*x->slots));
		if (!x->slots)
			return gs_nomem();
		x->mask = size - 1;
		from = 0;
	}
	for (size_t k = from; k < n; k++) {
		size_t i = hash_at(g, k) & x->mask;

		while (x->slots[i])
			i = (i + 1) & x->mask;
		x->slots[i] = (uint32_t)k + 1;
	}
	x->n = n;
	return GS_OK;
}

/* The new trace's record not yet taken by this input that equals `rec`
 * (of hash h), taken now; SIZE_MAX when none. */
static size_t index_take(const struct merge *g, struct index *x, uint64_t h,
			 bool (*eq_at)(const struct merge *, size_t, const void *), const void *rec)
{
	if (!x->slots)
		return SIZE_MAX;
	for (size_t i = h & x->mask; x->slots[i]; i = (i + 1) & x->mask) {
		size_t k = x->slots[i] - 1;

		if (x->used[k] != g->input && eq_at(g, k, rec)) {
			x->used[k] = g->input;
			return k;
		}
	}
	return SIZE_MAX;
}

static void index_free(struct index *x)
{
	free(x->slots);
	free(x->used);
}

/* ---- the sink ---- */

static gs_status merge_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	return mg(s)->next->intern(mg(s)->next, str, len, id);
}

static gs_status merge_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *index)
{
	return mg(s)->next->stream(mg(s)->next, st, index);
}

static gs_status merge_process(struct gs_sink *s, const struct gs_process *p)
{
	return mg(s)->next->process(mg(s)->next, p);
}

static gs_status merge_device(struct gs_sink *s, const struct gs_device *d)
{
	return mg(s)->next->device(mg(s)->next, d);
}

static gs_status merge_collective(struct gs_sink *s, const struct gs_collective *c, uint32_t *index)
{
	struct merge *g = mg(s);

	if (!g->second)
		return g->next->collective(g->next, c, index);
	/* Held back until an op that refers to it is kept. */
	if (GS_VEC_PUSH(g->bcoll, g->n_bcoll, g->cap_bcoll, *c) ||
	    GS_VEC_PUSH(g->bcoll_new, g->n_bcoll_new, g->cap_bcoll_new, 0))
		return gs_nomem();
	*index = (uint32_t)(g->n_bcoll - 1);
	return GS_OK;
}

static gs_status merge_op(struct gs_sink *s, const struct gs_op *op,
			  const struct gs_launch_cfg *launch)
{
	struct merge *g = mg(s);
	struct op_in in = {.op = op, .launch = launch};
	struct gs_op kept = *op;

	if (!g->second)
		return g->next->op(g->next, op, launch);
	if (op->collective && op->collective <= g->n_bcoll)
		in.coll = &g->bcoll[op->collective - 1];
	if (index_take(g, &g->ops, hash_op(op), eq_op_at, &in) != SIZE_MAX) {
		g->dropped++;
		return GS_OK;
	}
	kept.collective = 0;
	if (in.coll) {
		uint32_t *at = &g->bcoll_new[op->collective - 1];

		if (!*at) {
			uint32_t idx = 0;
			gs_status rc = g->next->collective(g->next, in.coll, &idx);

			if (rc)
				return rc;
			*at = idx + 1;
		}
		kept.collective = *at;
	}
	return g->next->op(g->next, &kept, launch);
}

/* m_CB for a record kind without ids of its own to hand back, indexed in
 * g->FIELD, with h_KIND and eq_KIND_at. */
#define KIND_SINK(field, kind, cb, type)                                                           \
	static gs_status merge_##cb(struct gs_sink *s, const type *r)                              \
	{                                                                                          \
		struct merge *g = mg(s);                                                           \
                                                                                                   \
		if (g->second &&                                                                   \
		    index_take(g, &g->field, hash_##kind(r), eq_##kind##_at, r) != SIZE_MAX) {     \
			g->dropped++;                                                              \
			return GS_OK;                                                              \
		}                                                                                  \
		return g->next->cb(g->next, r);                                                    \
	}

KIND_SINK(api, api, api_call, struct gs_api_call)
KIND_SINK(syncs, sync, sync, struct gs_sync)
KIND_SINK(events, event, event_record, struct gs_event_record)
KIND_SINK(links, link, op_alloc, struct gs_op_alloc)
KIND_SINK(ranges, range, range, struct gs_range)
KIND_SINK(overheads, overhead, overhead, struct gs_overhead)
KIND_SINK(clocks, clock, clock_pair, struct gs_clock_pair)

static gs_status merge_allocation(struct gs_sink *s, const struct gs_allocation *a, uint32_t *index)
{
	struct merge *g = mg(s);
	size_t k;

	if (!g->second)
		return g->next->allocation(g->next, a, index);
	k = index_take(g, &g->allocs, hash_alloc(a), eq_alloc_at, a);
	if (k != SIZE_MAX) {
		/* The op links of this input now name the one kept. */
		*index = (uint32_t)k;
		g->dropped++;
		return GS_OK;
	}
	return g->next->allocation(g->next, a, index);
}

static gs_status merge_dropped(struct gs_sink *s, int64_t pid, uint64_t count)
{
	return mg(s)->next->dropped(mg(s)->next, pid, count);
}

static gs_status merge_warning(struct gs_sink *s, const char *msg, uint64_t count, unsigned kind)
{
	return mg(s)->next->warning(mg(s)->next, msg, count, kind);
}

/* Before input `input` (from 1): the records so far indexed. */
static gs_status prepare_next(struct merge *g, uint32_t input)
{
	const struct gs_trace *a = g->a;
	size_t n;
	gs_status rc;

	gs_trace_ops(a, &n);
	rc = index_extend(g, &g->ops, n, hash_op_at);
#define EXTEND(name, get, hash_at)                                                                 \
	if (!rc) {                                                                                 \
		get(a, &n);                                                                        \
		rc = index_extend(g, &g->name, n, hash_at);                                        \
	}
	EXTEND(api, gs_trace_api_calls, hash_api_at)
	EXTEND(syncs, gs_trace_syncs, hash_sync_at)
	EXTEND(events, gs_trace_event_records, hash_event_at)
	EXTEND(allocs, gs_trace_allocations, hash_alloc_at)
	EXTEND(links, gs_trace_op_allocs, hash_link_at)
	EXTEND(ranges, gs_trace_ranges, hash_range_at)
	EXTEND(overheads, gs_trace_overheads, hash_overhead_at)
	EXTEND(clocks, gs_trace_clock_pairs, hash_clock_at)
#undef EXTEND
	g->second = true;
	g->input = input + 1;
	g->n_bcoll = 0;
	g->n_bcoll_new = 0;
	g->dropped = 0;
	return rc;
}

static void merge_free(struct merge *g)
{
	struct index *ix[] = {&g->ops,   &g->api,    &g->syncs,     &g->events, &g->allocs,
			      &g->links, &g->ranges, &g->overheads, &g->clocks};

	for (size_t i = 0; i < sizeof(ix) / sizeof(ix[0]); i++)
		index_free(ix[i]);
	free(g->bcoll);
	free(g->bcoll_new);
}

gs_status gs_job_merge_traces_n(const struct gs_trace *const *in, size_t n, struct gs_trace **out,
				uint64_t *dropped)
{
	struct merge g = {
		.sink =
			{
				.intern = merge_intern,
				.stream = merge_stream,
				.process = merge_process,
				.device = merge_device,
				.op = merge_op,
				.collective = merge_collective,
				.api_call = merge_api_call,
				.sync = merge_sync,
				.event_record = merge_event_record,
				.allocation = merge_allocation,
				.op_alloc = merge_op_alloc,
				.range = merge_range,
				.overhead = merge_overhead,
				.clock_pair = merge_clock_pair,
				.dropped = merge_dropped,
				.warning = merge_warning,
			},
	};
	struct gs_trace *m = NULL;
	gs_status rc;

	*out = NULL;
	for (size_t k = 0; dropped && k < n; k++)
		dropped[k] = 0;
	if (n >= UINT32_MAX) {
		gs_error_append("merging inputs of one process: too many inputs (%zu)", n);
		return GS_ERR_LIMIT;
	}
	rc = gs_trace_create(&m);
	if (rc)
		return rc;
	g.a = m;
	g.next = gs_trace_borrow_sink(m);
	for (size_t k = 0; !rc && k < n; k++) {
		if (k)
			rc = prepare_next(&g, (uint32_t)k);
		if (!rc)
			rc = gs_trace_replay(in[k], &g.sink);
		if (!rc && dropped)
			dropped[k] = g.dropped;
	}
	if (!rc)
		rc = gs_trace_finish(m);
	merge_free(&g);
	if (rc) {
		gs_trace_destroy(m);
		return rc;
	}
	*out = m;
	return GS_OK;
}

gs_status gs_job_merge_traces(const struct gs_trace *a, const struct gs_trace *b,
			      struct gs_trace **out, uint64_t *dropped)
{
	const struct gs_trace *in[2] = {a, b};
	uint64_t d[2] = {0, 0};
	gs_status rc = gs_job_merge_traces_n(in, 2, out, d);

	if (dropped)
		*dropped = rc ? 0 : d[1];
	return rc;
}
