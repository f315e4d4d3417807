/* SPDX-License-Identifier: MIT */
/*
 * The analyses' fast paths against plain references:
 * - gs_sort_by_i64 / gs_sort_by_u64 against a stable sort by (key, place);
 * - gs_device_op_ranges against gs_op_device over every op;
 * - gs_graph_build on random traces (correlation ids out of order or
 *   missing, several threads launching on one stream, launches out of
 *   order, every sync kind, default streams, data edges) against a
 *   builder that follows docs/design.md one edge at a time by linear scans, and
 *   sorts and deduplicates the edges the plain way: with every edge kept,
 *   the same edges; as built (edges a path implies left out), the same
 *   counts, waits, schedules, invariants and missed overlaps;
 * - the missed overlaps' kernels: among the GS_MO_NEAR kernels that ended
 *   last before the copy or started first after it, found by scans;
 * - the critical path's listed rows (a bounded heap) against a ranking of
 *   the whole path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>

#include "../../analyzer/analyses/analyzer_priv.h"
#include "../../analyzer/results/report_build_priv.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(rnd64() % n);
}

/* ---- keyed sorts --------------------------------------------------------- */

struct elem {
	uint64_t key;
	uint64_t place; /* where it was before sorting */
	uint64_t pad[3];
};

static bool sgn;

static int cmp_ref(const void *pa, const void *pb)
{
	const struct elem *a = pa, *b = pb;

	if (a->key != b->key) {
		if (sgn)
			return (int64_t)a->key < (int64_t)b->key ? -1 : 1;
		return a->key < b->key ? -1 : 1;
	}
	return a->place < b->place ? -1 : a->place > b->place;
}

/* Keys of one pattern: sorted, reversed, a few sorted runs, few distinct
 * values, or anything (negative and above 2^63 included). */
static uint64_t pattern_key(int pattern, size_t i, size_t n, size_t runs)
{
	switch (pattern) {
	case 0:
		return i * 3;
	case 1:
		return (n - i) * 5;
	case 2:
		return (i % (n / runs + 1)) * 7 + rnd(3);
	case 3:
		return rnd(4);
	default:
		return rnd64();
	}
}

static void check_sort(size_t n, size_t size, int pattern, bool is_signed)
{
	size_t words = size / 8, runs = 1 + rnd(8);
	uint64_t *a = calloc(n * words + 1, 8), *want = calloc(n * words + 1, 8);
	struct elem *ref = calloc(n + 1, sizeof(*ref));

	assert_non_null(a);
	assert_non_null(want);
	assert_non_null(ref);
	for (size_t i = 0; i < n; i++) {
		ref[i].key = pattern_key(pattern, i, n, runs);
		ref[i].place = i;
		a[i * words] = ref[i].key;
		if (words > 1)
			a[i * words + 1] = i;
		for (size_t w = 2; w < words; w++)
			a[i * words + w] = i * 31 + w;
	}
	sgn = is_signed;
	qsort(ref, n, sizeof(*ref), cmp_ref);
	if (is_signed)
		gs_sort_by_i64(a, n, size);
	else
		gs_sort_by_u64(a, n, size);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i * words], ref[i].key);
		if (words > 1) /* stable: the place breaks ties */
			assert_int_equal(a[i * words + 1], ref[i].place);
		for (size_t w = 2; w < words; w++)
			assert_int_equal(a[i * words + w], ref[i].place * 31 + w);
	}
	if (words == 1) { /* keys only: the same multiset, in order */
		for (size_t i = 0; i < n; i++)
			want[i] = ref[i].key;
		assert_memory_equal(a, want, n * 8);
	}
	free(a);
	free(want);
	free(ref);
}

static void test_keyed_sorts(void **state)
{
	static const size_t sizes[] = {8, 16, 24, 32, 40};

	(void)state;
	for (int iter = 0; iter < 600; iter++) {
		size_t n = iter < 50 ? (size_t)iter : rnd(iter % 10 == 0 ? 20000 : 600);

		check_sort(n, sizes[rnd(5)], (int)rnd(5), rnd(2));
	}
}

/* ---- random traces ------------------------------------------------------- */

static const char *const call_names[] = {"cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemcpy",
					 "cudaStreamWaitEvent", "cudaMemsetAsync"};

static struct gs_trace *random_trace(void)
{
	struct gs_trace *t;
	struct gs_sink *k;
	uint32_t names[5], streams[8];
	/* Now and then long streams (searched through their skip lists). */
	bool big = rnd(8) == 0;
	size_t n_streams = big ? 2 : 2 + rnd(5), n_ops = big ? 600 + rnd(1400) : 20 + rnd(220);
	size_t n_threads = 1 + rnd(3);
	uint64_t corr = 10;
	int64_t now = 1000000;
	bool shuffle = !big && rnd(3) == 0;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	k = gs_trace_borrow_sink(t);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(k->intern(k, call_names[i], strlen(call_names[i]), &names[i]),
				 GS_OK);
	for (uint32_t d = 0; d < 2; d++) {
		struct gs_device dv = {.id = d, .name = GS_NO_STRING, .uuid = GS_NO_STRING};

		assert_int_equal(k->device(k, &dv), GS_OK);
	}
	for (size_t s = 0; s < n_streams; s++) {
		struct gs_stream st = {.pid = 1,
				       .device = rnd(4) == 0 ? 1 : 0,
				       .context = 1 + rnd(2) * (rnd(3) == 0),
				       .stream_id = 7 + s,
				       .kind = (uint8_t)rnd(GS_STREAM_KIND_COUNT)};

		if (big) { /* every op of the default stream looks up the other */
			st.device = 0;
			st.context = 1;
			st.kind = s == 0 ? GS_STREAM_LEGACY_DEFAULT : GS_STREAM_BLOCKING;
		}

		assert_int_equal(k->stream(k, &st, &streams[s]), GS_OK);
	}
	for (size_t i = 0; i < n_ops; i++) {
		uint8_t kind = (uint8_t)rnd(GS_OP_KIND_COUNT);
		int64_t launch_at = now + (int64_t)rnd(3000) - 1000;
		struct gs_op o = {.start_ns = now + (big ? 0 : (int64_t)rnd(2000)),
				  .correlation = !big && rnd(12) == 0 ? 0 : corr,
				  .name = names[0],
				  .stream = streams[rnd((uint32_t)n_streams)],
				  .kind = kind,
				  .flags = rnd(2) ? GS_OPF_ASYNC : 0};

		corr += 1 + rnd(3);
		if (shuffle && o.correlation && rnd(4) == 0)
			o.correlation = 10 + rnd((uint32_t)(corr - 10)) + 1;
		o.end_ns = o.start_ns + 100 + (int64_t)rnd(5000);
		if (kind == GS_OP_MEMCPY) {
			o.copy_kind = (uint8_t)(1 + rnd(3));
			o.src_mem = (uint8_t)rnd(GS_MEM_KIND_COUNT);
			o.dst_mem = (uint8_t)rnd(GS_MEM_KIND_COUNT);
		}
		now += 200 + (int64_t)rnd(3000);
		assert_int_equal(k->op(k, &o, NULL), GS_OK);
		if (o.correlation && rnd(10)) {
			struct gs_api_call c = {
				.start_ns = launch_at,
				.end_ns = launch_at + 50 + (int64_t)rnd(4000),
				.pid = 1,
				.tid = 1 + rnd((uint32_t)n_threads),
				.correlation = o.correlation,
				.name = names[kind == GS_OP_KERNEL ? 0 : 1 + rnd(2)]};

			assert_int_equal(k->api_call(k, &c), GS_OK);
		}
	}
	/* Calls that launched nothing: waits, a few on unknown threads. */
	for (size_t i = 0; i < 10; i++) {
		int64_t at = 1000000 + (int64_t)rnd((uint32_t)(now - 1000000 + 1));
		struct gs_api_call c = {.start_ns = at,
					.end_ns = at + 100,
					.pid = 1,
					.tid = 1 + rnd((uint32_t)n_threads + 1),
					.correlation = corr++,
					.name = names[3]};

		assert_int_equal(k->api_call(k, &c), GS_OK);
	}
	for (size_t i = 0; i < 12; i++) {
		struct gs_event_record r = {.time_ns = 1000000 + (int64_t)rnd(1000000),
					    .correlation = 10 + rnd((uint32_t)(corr - 10)),
					    .event_id = 1 + rnd(5),
					    .sync_id = rnd(3) ? 1 + rnd(8) : GS_NO_SYNC_ID,
					    .stream = streams[rnd((uint32_t)n_streams)]};

		assert_int_equal(k->event_record(k, &r), GS_OK);
	}
	for (size_t i = 0, n = rnd(30); i < n; i++) {
		int64_t at = 1000000 + (int64_t)rnd((uint32_t)(now - 1000000 + 1));
		struct gs_sync y = {
			.start_ns = at,
			.end_ns = at + (int64_t)rnd(20000),
			.pid = 1,
			.tid = rnd(6) == 0 ? -1 : (int64_t)(1 + rnd((uint32_t)n_threads + 1)),
			.correlation = 10 + rnd((uint32_t)(corr - 10)),
			.event_id = rnd(5),
			.sync_id = rnd(2) ? 1 + rnd(10) : GS_NO_SYNC_ID,
			.event_correlation = rnd(2) ? 10 + rnd((uint32_t)(corr - 10)) : 0,
			.stream = rnd(5) ? streams[rnd((uint32_t)n_streams)] : GS_NO_INDEX,
			.wait_on_stream = rnd(2) ? streams[rnd((uint32_t)n_streams)] : GS_NO_INDEX,
			.device = rnd(3) == 0 ? 1 : 0,
			.kind = (uint8_t)rnd(GS_SYNC_KIND_COUNT)};

		assert_int_equal(k->sync(k, &y), GS_OK);
	}
	if (rnd(2)) {
		uint32_t alloc[3];

		for (size_t a = 0; a < 3; a++) {
			struct gs_allocation al = {.address = 4096 * (a + 1),
						   .bytes = 4096,
						   .alloc_ns = 1,
						   .pid = 1,
						   .mem_kind = GS_MEM_DEVICE};

			assert_int_equal(k->allocation(k, &al, &alloc[a]), GS_OK);
		}
		for (size_t i = 0, n = rnd(40); i < n; i++) {
			struct gs_op_alloc l = {.correlation = 10 + rnd((uint32_t)(corr - 10)),
						.allocation = alloc[rnd(3)],
						.op_kind = (uint8_t)rnd(GS_OP_KIND_COUNT)};

			assert_int_equal(k->op_alloc(k, &l), GS_OK);
		}
	}
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

/* ---- gs_device_op_ranges ------------------------------------------------- */

static void test_device_op_ranges(void **state)
{
	(void)state;
	for (int iter = 0; iter < 100; iter++) {
		struct gs_trace *t = random_trace();
		size_t n_ops;
		const struct gs_op *ops = gs_trace_ops(t, &n_ops);

		for (uint32_t dev = 0; dev < 3; dev++) {
			struct gs_op_range *r;
			size_t n, k = 0;

			assert_int_equal(gs_device_op_ranges(t, dev, &r, &n), GS_OK);
			for (size_t i = 0; i < n_ops; i++) {
				if (gs_op_device(t, &ops[i]) != dev)
					continue;
				/* The next op of the device is the next in the ranges. */
				while (k < n && r[k].count == 0)
					k++;
				assert_true(k < n);
				assert_int_equal(r[k].first, i);
				r[k].first++;
				r[k].count--;
			}
			for (; k < n; k++)
				assert_int_equal(r[k].count, 0);
			free(r);
		}
		gs_trace_destroy(t);
	}
}

/* ---- the graph, plainly -------------------------------------------------- */

struct ref_edge {
	struct gs_edge e; /* event_ref unset: the event is below */
	uint64_t event;
	size_t seq;
};

struct ref {
	const struct gs_trace *t;
	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_stream *streams;
	size_t n_streams;
	const struct gs_api_call *api;
	const uint32_t *launch;
	struct ref_edge *e;
	size_t n, cap;
	bool data;
	uint32_t *early; /* copies whose call returned before they ended */
	size_t n_early;
};

static void ref_add(struct ref *r, uint32_t from, uint32_t to, uint8_t kind, uint64_t event)
{
	if (from == to || from >= r->n_ops || to >= r->n_ops)
		return;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->e = realloc(r->e, r->cap * sizeof(*r->e));
		assert_non_null(r->e);
	}
	r->e[r->n] = (struct ref_edge){.e = {.from = from, .to = to, .kind = kind},
				       .event = event,
				       .seq = r->n};
	r->n++;
}

/* (corr, start, op) of op i is before that of op j. */
static bool corr_before(const struct ref *r, size_t i, size_t j)
{
	if (r->ops[i].correlation != r->ops[j].correlation)
		return r->ops[i].correlation < r->ops[j].correlation;
	if (r->ops[i].start_ns != r->ops[j].start_ns)
		return r->ops[i].start_ns < r->ops[j].start_ns;
	return i < j;
}

/* The op of stream s with an id below c that comes last by (corr, start,
 * op), or with an id above c that comes first. */
static uint32_t ref_last_before(const struct ref *r, uint32_t s, uint64_t c)
{
	uint32_t best = GS_NO_INDEX;

	for (size_t i = 0; i < r->n_ops && s < r->n_streams; i++)
		if (r->ops[i].stream == s && r->ops[i].correlation && r->ops[i].correlation < c &&
		    (best == GS_NO_INDEX || corr_before(r, best, i)))
			best = (uint32_t)i;
	return best;
}

static uint32_t ref_first_after(const struct ref *r, uint32_t s, uint64_t c)
{
	uint32_t best = GS_NO_INDEX;

	for (size_t i = 0; i < r->n_ops && s < r->n_streams; i++)
		if (r->ops[i].stream == s && r->ops[i].correlation && r->ops[i].correlation > c &&
		    (best == GS_NO_INDEX || corr_before(r, i, best)))
			best = (uint32_t)i;
	return best;
}

/* Per stream, the first op (by launch start, then op) that thread (pid,
 * tid) launched at or after `after`. */
static void ref_later(struct ref *r, uint32_t producer, int64_t pid, int64_t tid, int64_t after,
		      uint8_t kind, uint64_t event)
{
	for (uint32_t s = 0; s < r->n_streams; s++) {
		uint32_t best = GS_NO_INDEX;

		for (size_t i = 0; i < r->n_ops; i++) {
			const struct gs_api_call *a;

			if (r->ops[i].stream != s || r->launch[i] == GS_NO_INDEX)
				continue;
			a = &r->api[r->launch[i]];
			if (a->pid != pid || a->tid != tid || a->start_ns < after)
				continue;
			if (best == GS_NO_INDEX || a->start_ns < r->api[r->launch[best]].start_ns)
				best = (uint32_t)i;
		}
		if (best != GS_NO_INDEX)
			ref_add(r, producer, best, kind, event);
	}
}

/* The latest record with the sync's id, else with its event correlation. */
static bool ref_resolve(const struct ref *r, const struct gs_sync *y, uint32_t *stream,
			uint64_t *corr)
{
	size_t n_recs;
	const struct gs_event_record *recs = gs_trace_event_records(r->t, &n_recs);
	const struct gs_event_record *rec = NULL;

	for (size_t i = 0; y->sync_id != GS_NO_SYNC_ID && i < n_recs; i++)
		if (recs[i].sync_id == y->sync_id)
			rec = &recs[i];
	if (!rec)
		for (size_t i = 0; y->event_correlation && i < n_recs; i++)
			if (recs[i].correlation == y->event_correlation)
				rec = &recs[i];
	/* No id at all: the latest record of the event, same process and
	 * context (the waiting stream's, else the device), before the sync. */
	if (!rec && y->sync_id == GS_NO_SYNC_ID && !y->event_correlation && y->event_id &&
	    y->correlation) {
		size_t n_st;
		const struct gs_stream *st = gs_trace_streams(r->t, &n_st);
		const struct gs_stream *ws = y->stream < n_st ? &st[y->stream] : NULL;

		for (size_t k = 0; k < n_recs; k++) {
			const struct gs_event_record *e = &recs[k];
			const struct gs_stream *es = e->stream < n_st ? &st[e->stream] : NULL;

			if (!es || e->event_id != y->event_id || !e->correlation ||
			    e->correlation >= y->correlation || es->pid != y->pid)
				continue;
			if (ws ? es->context != ws->context || es->device != ws->device :
				 es->device != y->device)
				continue;
			if (!rec || e->correlation >= rec->correlation)
				rec = e;
		}
	}
	*stream = rec && rec->stream != GS_NO_INDEX ? rec->stream : y->wait_on_stream;
	*corr = rec ? rec->correlation : y->event_correlation;
	return *stream != GS_NO_INDEX && *stream < r->n_streams && *corr != 0;
}

static int cmp_ref_edge(const void *pa, const void *pb)
{
	const struct ref_edge *a = pa, *b = pb;

	if (a->e.to != b->e.to)
		return a->e.to < b->e.to ? -1 : 1;
	if (a->e.from != b->e.from)
		return a->e.from < b->e.from ? -1 : 1;
	if (a->e.kind != b->e.kind)
		return a->e.kind < b->e.kind ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool ref_blocking(uint8_t kind)
{
	return kind == GS_STREAM_BLOCKING || kind == GS_STREAM_PER_THREAD_DEFAULT;
}

static void ref_graph(struct ref *r, uint64_t *unlinked_waits)
{
	size_t n_syncs, n_links, n_waits = 0;
	const struct gs_sync *syncs = gs_trace_syncs(r->t, &n_syncs);
	const struct gs_op_alloc *links = gs_trace_op_allocs(r->t, &n_links);
	uint32_t rs, p;
	uint64_t rc;

	for (uint32_t s = 0; s < r->n_streams; s++) {
		uint32_t prev = GS_NO_INDEX;

		for (size_t i = 0; i < r->n_ops; i++) {
			if (r->ops[i].stream != s)
				continue;
			if (prev != GS_NO_INDEX)
				ref_add(r, prev, (uint32_t)i, GS_EDGE_STREAM_ORDER, 0);
			prev = (uint32_t)i;
		}
	}
	for (size_t i = 0; i < n_syncs; i++) {
		const struct gs_sync *y = &syncs[i];

		switch (y->kind) {
		case GS_SYNC_STREAM_WAIT:
			n_waits++;
			if (!ref_resolve(r, y, &rs, &rc) || y->stream == GS_NO_INDEX) {
				(*unlinked_waits)++;
				break;
			}
			p = ref_last_before(r, rs, rc);
			if (p != GS_NO_INDEX)
				ref_add(r, p, ref_first_after(r, y->stream, y->correlation),
					GS_EDGE_EVENT, y->event_id);
			break;
		case GS_SYNC_EVENT:
			if (y->tid < 0 || !ref_resolve(r, y, &rs, &rc))
				break;
			p = ref_last_before(r, rs, rc);
			if (p != GS_NO_INDEX)
				ref_later(r, p, y->pid, y->tid, y->end_ns, GS_EDGE_HOST_SYNC,
					  y->event_id);
			break;
		case GS_SYNC_STREAM:
			if (y->tid < 0 || y->stream == GS_NO_INDEX)
				break;
			p = ref_last_before(r, y->stream, y->correlation);
			if (p != GS_NO_INDEX)
				ref_later(r, p, y->pid, y->tid, y->end_ns, GS_EDGE_HOST_SYNC, 0);
			break;
		case GS_SYNC_CONTEXT:
			for (uint32_t s = 0; s < r->n_streams && y->tid >= 0; s++) {
				if (r->streams[s].device != y->device)
					continue;
				p = ref_last_before(r, s, y->correlation);
				if (p != GS_NO_INDEX)
					ref_later(r, p, y->pid, y->tid, y->end_ns,
						  GS_EDGE_HOST_SYNC, 0);
			}
			break;
		default:
			break;
		}
	}
	(void)n_waits;
	for (size_t i = 0; i < r->n_ops; i++) {
		const struct gs_op *o = &r->ops[i];
		const struct gs_api_call *a;

		if (r->launch[i] == GS_NO_INDEX || o->kind != GS_OP_MEMCPY)
			continue;
		if ((o->flags & GS_OPF_ASYNC) && o->src_mem != GS_MEM_PAGEABLE &&
		    o->dst_mem != GS_MEM_PAGEABLE)
			continue;
		a = &r->api[r->launch[i]];
		if (a->end_ns < o->end_ns) { /* returned before the copy ended: no edge */
			r->early = realloc(r->early, (r->n_early + 1) * sizeof(*r->early));
			assert_non_null(r->early);
			r->early[r->n_early++] = (uint32_t)i;
			continue;
		}
		ref_later(r, (uint32_t)i, a->pid, a->tid, a->end_ns, GS_EDGE_SYNC_COPY, 0);
	}
	for (uint32_t l = 0; l < r->n_streams; l++) {
		if (r->streams[l].kind != GS_STREAM_LEGACY_DEFAULT)
			continue;
		for (size_t i = 0; i < r->n_ops; i++) {
			uint64_t c = r->ops[i].correlation;

			if (r->ops[i].stream != l || !c)
				continue;
			for (uint32_t s = 0; s < r->n_streams; s++) {
				const struct gs_stream *a = &r->streams[s], *b = &r->streams[l];

				if (s == l || !ref_blocking(a->kind) || a->pid != b->pid ||
				    a->device != b->device || a->context != b->context)
					continue;
				ref_add(r, ref_last_before(r, s, c), (uint32_t)i,
					GS_EDGE_DEFAULT_STREAM, 0);
				ref_add(r, (uint32_t)i, ref_first_after(r, s, c),
					GS_EDGE_DEFAULT_STREAM, 0);
			}
		}
	}
	/* Data: the ops touching one allocation, by (start, op). */
	for (uint32_t alloc = 0; n_links && alloc < 3; alloc++) {
		uint32_t prev = GS_NO_INDEX;

		for (;;) {
			uint32_t next = GS_NO_INDEX;

			for (size_t k = 0; k < n_links; k++) {
				uint32_t op = GS_NO_INDEX;

				if (links[k].allocation != alloc)
					continue;
				for (size_t i = 0; i < r->n_ops && op == GS_NO_INDEX; i++)
					if (r->ops[i].correlation &&
					    r->ops[i].correlation == links[k].correlation &&
					    r->ops[i].kind == links[k].op_kind)
						op = (uint32_t)i;
				if (op == GS_NO_INDEX)
					continue;
				/* After prev (by start, op; a link repeated counts again). */
				(void)0;
				if (prev != GS_NO_INDEX &&
				    (r->ops[op].start_ns < r->ops[prev].start_ns ||
				     (r->ops[op].start_ns == r->ops[prev].start_ns && op <= prev)))
					continue;
				if (next == GS_NO_INDEX ||
				    r->ops[op].start_ns < r->ops[next].start_ns ||
				    (r->ops[op].start_ns == r->ops[next].start_ns && op < next))
					next = op;
			}
			if (next == GS_NO_INDEX)
				break;
			if (prev != GS_NO_INDEX) {
				ref_add(r, prev, next, GS_EDGE_DATA, 0);
				r->data = true;
			}
			prev = next;
		}
	}
}

/* Links repeated (the same op twice on one allocation) give self edges in
 * the graph that the plain walk above cannot tell apart: skip those
 * traces' data check. */
static bool links_repeat(const struct gs_trace *t)
{
	size_t n;
	const struct gs_op_alloc *l = gs_trace_op_allocs(t, &n);

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (l[i].correlation == l[j].correlation && l[i].op_kind == l[j].op_kind &&
			    l[i].allocation == l[j].allocation)
				return true;
	return false;
}

/* Sort the reference's edges by (to, from, kind) and keep the first of
 * each; count them by kind. Returns how many are left. */
static size_t ref_sorted(struct ref *r, uint64_t *count)
{
	size_t k = 0;

	qsort(r->e, r->n, sizeof(*r->e), cmp_ref_edge);
	for (size_t i = 0; i < r->n; i++) {
		if (k && r->e[k - 1].e.to == r->e[i].e.to && r->e[k - 1].e.from == r->e[i].e.from &&
		    r->e[k - 1].e.kind == r->e[i].e.kind)
			continue;
		count[r->e[i].e.kind]++;
		r->e[k++] = r->e[i];
	}
	r->n = k;
	return k;
}

static void test_graph_reference(void **state)
{
	const struct gs_graph_options keep_all = {.keep_implied = true};

	(void)state;
	for (int iter = 0; iter < 300; iter++) {
		struct gs_trace *t = random_trace();
		struct gs_graph *g;
		struct ref r = {.t = t};
		size_t n_api, k;
		uint64_t unlinked = 0, count[GS_EDGE_KIND_COUNT] = {0};

		if (links_repeat(t)) {
			gs_trace_destroy(t);
			continue;
		}
		assert_int_equal(gs_graph_build_opts(t, &keep_all, &g), GS_OK);
		r.ops = gs_trace_ops(t, &r.n_ops);
		r.streams = gs_trace_streams(t, &r.n_streams);
		r.api = gs_trace_api_calls(t, &n_api);
		r.launch = g->launch;
		/* A correlation id with one call: that call launched the op. */
		for (size_t i = 0; i < r.n_ops; i++) {
			size_t calls = 0, last = 0;

			for (size_t a = 0; a < n_api && r.ops[i].correlation; a++)
				if (r.api[a].correlation == r.ops[i].correlation) {
					calls++;
					last = a;
				}
			if (calls == 1)
				assert_int_equal(g->launch[i], last);
			if (calls == 0)
				assert_int_equal(g->launch[i], GS_NO_INDEX);
		}
		ref_graph(&r, &unlinked);
		k = ref_sorted(&r, count);
		assert_int_equal(g->n_returned_early, r.n_early);
		for (size_t i = 0; i < r.n_early; i++)
			assert_int_equal(g->returned_early[i], r.early[i]);
		assert_int_equal(g->n_edges, k);
		for (size_t i = 0; i < k; i++) {
			assert_int_equal(g->edges[i].from, r.e[i].e.from);
			assert_int_equal(g->edges[i].to, r.e[i].e.to);
			assert_int_equal(g->edges[i].kind, r.e[i].e.kind);
			assert_int_equal(gs_graph_edge_event(g, &g->edges[i]), r.e[i].event);
		}
		for (size_t i = 0; i < r.n_ops; i++) {
			assert_true(g->in_first[i] <= g->in_first[i + 1]);
			for (size_t e = g->in_first[i]; e < g->in_first[i + 1]; e++)
				assert_int_equal(g->edges[e].to, i);
		}
		assert_int_equal(g->in_first[r.n_ops], k);
		for (unsigned c = 0; c < GS_EDGE_KIND_COUNT; c++)
			assert_int_equal(g->edge_count[c], count[c]);
		assert_int_equal(g->unlinked_waits, unlinked);
		assert_int_equal(g->has_data_edges, r.data);
		free(r.e);
		free(r.early);
		gs_graph_destroy(g);
		gs_trace_destroy(t);
	}
}

/* ---- the graph without its implied edges -------------------------------- */

/*
 * Traces shaped for the default-stream edges that a path implies: a legacy
 * default stream and blocking streams of its context (and of another
 * context, and another device), ops placed on the device as CUDA runs them
 * (a default-stream op after the last op of every blocking stream, a
 * blocking-stream op after the last default-stream op), the device behind
 * the host or not, and every so often what a real or corrupt trace may
 * hold instead: ops that overlap on a stream or start early, zero
 * durations and equal times, copies that start a batch, ops without an id,
 * ids out of order, host syncs of every kind, stream waits (cycles
 * included), data edges.
 */
static struct gs_trace *default_stream_trace(void)
{
	struct gs_trace *t;
	struct gs_sink *k;
	uint32_t names[5], streams[10];
	int64_t last_end[10] = {0}, host = 1000000, lag = rnd(2) ? 0 : 2000 + rnd(20000);
	size_t n_peers = 1 + rnd(5), n_streams = n_peers + 1, n_ops = 10 + rnd(200);
	uint32_t odd = rnd(2) ? 0 : 1 + rnd(3); /* how rarely an op breaks the rules: 0 never */
	uint64_t corr = 10;
	bool two_threads = rnd(3) == 0;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	k = gs_trace_borrow_sink(t);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(k->intern(k, call_names[i], strlen(call_names[i]), &names[i]),
				 GS_OK);
	for (uint32_t d = 0; d < 2; d++) {
		struct gs_device dv = {.id = d, .name = GS_NO_STRING, .uuid = GS_NO_STRING};

		assert_int_equal(k->device(k, &dv), GS_OK);
	}
	/* 0: the default stream; 1..n_peers: blocking; then a non-blocking
	 * one, a default stream with a blocking one in context 2, and a
	 * blocking stream on device 1. */
	for (size_t s = 0; s < n_peers + 5; s++) {
		struct gs_stream st = {.pid = 1, .device = 0, .context = 1, .stream_id = 7 + s};

		if (s == 0)
			st.kind = GS_STREAM_LEGACY_DEFAULT;
		else if (s <= n_peers)
			st.kind = rnd(5) ? GS_STREAM_BLOCKING : GS_STREAM_PER_THREAD_DEFAULT;
		else if (s == n_peers + 1)
			st.kind = GS_STREAM_NON_BLOCKING;
		else if (s <= n_peers + 3)
			st = (struct gs_stream){.pid = 1,
						.device = 0,
						.context = 2,
						.stream_id = 7 + s,
						.kind = s == n_peers + 2 ?
								GS_STREAM_LEGACY_DEFAULT :
								GS_STREAM_BLOCKING};
		else
			st = (struct gs_stream){.pid = 1,
						.device = 1,
						.context = 3,
						.stream_id = 7 + s};
		if (s > n_peers && rnd(2))
			continue;
		assert_int_equal(k->stream(k, &st, &streams[n_streams > s ? s : n_streams]), GS_OK);
		if (s >= n_streams)
			n_streams++;
	}
	for (size_t i = 0; i < n_ops; i++) {
		/* A third of the ops on the default stream. */
		uint32_t si = rnd(3) == 0 ? 0 : rnd((uint32_t)n_streams);
		uint8_t kind = rnd(5) == 0 ? GS_OP_MEMCPY : GS_OP_KERNEL;
		int64_t launch = host, ready, dep = last_end[si];
		struct gs_op o = {.correlation = corr, .name = names[0], .stream = streams[si]};
		struct gs_api_call c = {.start_ns = launch,
					.end_ns = launch + 5 + (int64_t)rnd(50),
					.pid = 1,
					.tid = two_threads && rnd(4) == 0 ? 2 : 1,
					.correlation = corr,
					.name = names[kind == GS_OP_KERNEL ? 0 : 1 + rnd(2)]};

		host = c.end_ns + (int64_t)rnd(400);
		ready = c.end_ns + (lag ? (int64_t)rnd((uint32_t)lag) : 0);
		/* The default stream after every blocking stream, and back. */
		for (size_t p = 1; p <= n_peers; p++)
			if (si == 0 || (si <= n_peers && p == 1))
				dep = dep > last_end[si == 0 ? p : 0] ? dep :
									last_end[si == 0 ? p : 0];
		o.start_ns = (ready > dep ? ready : dep) + (rnd(3) ? 0 : (int64_t)rnd(300));
		o.end_ns = o.start_ns + (rnd(6) ? 1 + (int64_t)rnd(3000) : 0);
		if (odd && rnd(12 * odd) == 0) /* early: overlaps the op before */
			o.start_ns -= (int64_t)rnd(4000);
		if (odd && rnd(12 * odd) == 0) /* longer than the ones after it */
			o.end_ns += (int64_t)rnd(20000);
		if (odd && rnd(10 * odd) == 0)
			o.correlation = 0;
		if (odd == 1 && rnd(40) == 0)
			o.correlation = 10 + rnd((uint32_t)(corr - 10) + 1);
		o.kind = kind;
		if (kind == GS_OP_MEMCPY) {
			o.copy_kind = (uint8_t)(1 + rnd(2));
			o.src_mem = (uint8_t)rnd(GS_MEM_KIND_COUNT);
			o.dst_mem = (uint8_t)rnd(GS_MEM_KIND_COUNT);
			o.flags = rnd(3) ? GS_OPF_ASYNC : 0;
		}
		if (o.end_ns > last_end[si])
			last_end[si] = o.end_ns;
		assert_int_equal(k->op(k, &o, NULL), GS_OK);
		if (o.correlation && (!odd || rnd(20)))
			assert_int_equal(k->api_call(k, &c), GS_OK);
		corr += 1 + rnd(2);
		/* Host syncs now and then, at the host's time, at times a few
		 * in a row (the same ops linked again). */
		for (uint32_t rep = rnd(12) ? 0 : 1 + (rnd(3) ? 0 : rnd(3)); rep > 0; rep--) {
			int64_t wait = rnd(2) ? 0 : (int64_t)rnd(30000);
			struct gs_sync y = {.start_ns = host,
					    .end_ns = host + wait,
					    .pid = 1,
					    .tid = two_threads && rnd(3) == 0 ? 2 : 1,
					    .correlation = corr++,
					    .event_id = rnd(4),
					    .stream = streams[rnd((uint32_t)n_streams)],
					    .wait_on_stream = streams[rnd((uint32_t)n_streams)],
					    .event_correlation = 10 + rnd((uint32_t)(corr - 10)),
					    .device = rnd(4) == 0 ? 1 : 0,
					    .kind = (uint8_t)(1 + rnd(4))};
			struct gs_event_record r = {.time_ns = host,
						    .correlation = y.event_correlation,
						    .event_id = y.event_id,
						    .stream = y.wait_on_stream};

			if (y.kind == GS_SYNC_CONTEXT || y.kind == GS_SYNC_EVENT)
				y.stream = GS_NO_INDEX;
			if (rnd(2))
				assert_int_equal(k->event_record(k, &r), GS_OK);
			assert_int_equal(k->sync(k, &y), GS_OK);
			host = y.end_ns + 10;
		}
	}
	if (rnd(4) == 0) {
		uint32_t alloc[3];

		for (size_t a = 0; a < 3; a++) {
			struct gs_allocation al = {.address = 4096 * (a + 1),
						   .bytes = 4096,
						   .alloc_ns = 1,
						   .pid = 1,
						   .mem_kind = GS_MEM_DEVICE};

			assert_int_equal(k->allocation(k, &al, &alloc[a]), GS_OK);
		}
		for (size_t i = 0, n = rnd(20); i < n; i++) {
			struct gs_op_alloc l = {.correlation = 10 + rnd((uint32_t)(corr - 10)),
						.allocation = alloc[rnd(3)],
						.op_kind = (uint8_t)rnd(GS_OP_KIND_COUNT)};

			assert_int_equal(k->op_alloc(k, &l), GS_OK);
		}
	}
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

/* The reference's edges (sorted, deduplicated) as a graph. */
static struct gs_graph *ref_as_graph(const struct ref *r, const struct gs_graph *like)
{
	struct gs_graph *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	g->n_ops = r->n_ops;
	g->n_edges = r->n;
	g->edges = malloc((r->n ? r->n : 1) * sizeof(*g->edges));
	g->in_first = calloc(r->n_ops + 1, sizeof(*g->in_first));
	g->events = malloc((r->n ? r->n : 1) * sizeof(*g->events));
	g->launch = like->launch; /* the trace's, borrowed */
	assert_true(g->edges && g->in_first && g->events);
	for (size_t i = 0; i < r->n; i++) {
		g->edges[i] = r->e[i].e;
		if (r->e[i].event) {
			g->events[g->n_events++] = r->e[i].event;
			g->edges[i].event_ref = (uint32_t)g->n_events;
		}
		g->edge_count[r->e[i].e.kind]++;
		g->in_first[r->e[i].e.to + 1]++;
	}
	for (size_t i = 0; i < r->n_ops; i++)
		g->in_first[i + 1] += g->in_first[i];
	g->has_data_edges = like->has_data_edges;
	g->stream_kinds_known = like->stream_kinds_known;
	g->n_returned_early = r->n_early;
	g->returned_early = malloc((r->n_early ? r->n_early : 1) * sizeof(*g->returned_early));
	assert_non_null(g->returned_early);
	if (r->n_early)
		memcpy(g->returned_early, r->early, r->n_early * sizeof(*r->early));
	return g;
}

static void same_schedule(const struct gs_trace *t, const struct gs_graph *ga,
			  const struct gs_graph *gb, uint32_t device, const struct gs_window *win)
{
	struct gs_schedule a, b;
	struct gs_invariants ia, ib;
	struct gs_breakdown bd;
	struct gs_missed_overlap *ma = NULL, *mb = NULL;
	size_t na = 0, nb = 0, n_ops;

	gs_trace_ops(t, &n_ops);
	assert_int_equal(gs_schedule_compute(t, ga, device, win, &a), GS_OK);
	assert_int_equal(gs_schedule_compute(t, gb, device, win, &b), GS_OK);
	assert_int_equal(a.n_scheduled, b.n_scheduled);
	assert_int_equal(a.actual_ns, b.actual_ns);
	assert_int_equal(a.dependency_bound_ns, b.dependency_bound_ns);
	assert_int_equal(a.ideal_ns, b.ideal_ns);
	assert_int_equal(a.broken_cycles, b.broken_cycles);
	assert_int_equal(a.critical_lead_ns, b.critical_lead_ns);
	assert_int_equal(a.n_critical, b.n_critical);
	for (size_t i = 0; i < a.n_critical; i++)
		assert_int_equal(a.critical_path[i], b.critical_path[i]);
	for (size_t o = 0; o < n_ops; o++) {
		assert_int_equal(gs_schedule_ideal_start(&a, (uint32_t)o),
				 gs_schedule_ideal_start(&b, (uint32_t)o));
		assert_int_equal(gs_schedule_delay_ns(t, &a, (uint32_t)o),
				 gs_schedule_delay_ns(t, &b, (uint32_t)o));
		assert_int_equal(gs_schedule_bound_by(&a, (uint32_t)o),
				 gs_schedule_bound_by(&b, (uint32_t)o));
		assert_int_equal(gs_schedule_pipelined_start(&a, (uint32_t)o),
				 gs_schedule_pipelined_start(&b, (uint32_t)o));
	}
	assert_int_equal(a.pipelined.makespan_ns, b.pipelined.makespan_ns);
	assert_int_equal(a.pipelined.batches, b.pipelined.batches);
	assert_memory_equal(a.copy_engines, b.copy_engines, sizeof(a.copy_engines));
	assert_int_equal(gs_schedule_check(t, ga, &a, &ia), GS_OK);
	assert_int_equal(gs_schedule_check(t, gb, &b, &ib), GS_OK);
	assert_memory_equal(&ia, &ib, sizeof(ia));
	assert_int_equal(gs_breakdown_compute(t, device, win, &bd), GS_OK);
	assert_int_equal(gs_missed_overlap_compute(t, ga, &a, &bd, &ma, &na), GS_OK);
	assert_int_equal(gs_missed_overlap_compute(t, gb, &b, &bd, &mb, &nb), GS_OK);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ma[i].op, mb[i].op);
		assert_int_equal(ma[i].kernel, mb[i].kernel);
		assert_int_equal(ma[i].exposed_ns, mb[i].exposed_ns);
		assert_int_equal(ma[i].missing, mb[i].missing);
		assert_int_equal(ma[i].bound_by, mb[i].bound_by);
		assert_int_equal(ma[i].hideable_ns, mb[i].hideable_ns);
		assert_int_equal(ma[i].unverified, mb[i].unverified);
	}
	free(ma);
	free(mb);
	gs_breakdown_fini(&bd);
	gs_schedule_fini(&a);
	gs_schedule_fini(&b);
}

/*
 * The graph as built (implied edges left out) against every edge added one
 * at a time (the reference above): the same counts, and the same
 * waits, schedules (of each device, whole and in windows), invariants and
 * missed overlaps. Many traces here have implied edges, some a cycle
 * (where every edge is kept); the test fails when too few do.
 */
static void test_graph_implied(void **state)
{
	size_t with_implied = 0, cyclic = 0, traces = 0;

	(void)state;
	for (int iter = 0; iter < 1500; iter++) {
		struct gs_trace *t = iter % 5 == 4 ? random_trace() : default_stream_trace();
		struct gs_graph *g, *gr;
		struct ref r = {.t = t};
		size_t n_api, na, nb;
		uint64_t unlinked = 0, count[GS_EDGE_KIND_COUNT] = {0};
		struct gs_wait *wa, *wb;
		int64_t first, last;

		if (links_repeat(t)) {
			gs_trace_destroy(t);
			continue;
		}
		traces++;
		assert_int_equal(gs_graph_build(t, &g), GS_OK);
		r.ops = gs_trace_ops(t, &r.n_ops);
		r.streams = gs_trace_streams(t, &r.n_streams);
		r.api = gs_trace_api_calls(t, &n_api);
		r.launch = g->launch;
		ref_graph(&r, &unlinked);
		ref_sorted(&r, count);
		gr = ref_as_graph(&r, g);
		with_implied += g->implied_edges > 0;
		for (unsigned c = 0; c < GS_EDGE_KIND_COUNT; c++)
			assert_int_equal(g->edge_count[c], count[c]);
		assert_int_equal(g->n_edges + g->implied_edges, r.n);
		if (!g->implied_edges) { /* nothing left out: the same edges */
			assert_int_equal(g->n_edges, r.n);
			for (size_t i = 0; i < r.n; i++) {
				assert_int_equal(g->edges[i].from, r.e[i].e.from);
				assert_int_equal(g->edges[i].to, r.e[i].e.to);
				assert_int_equal(g->edges[i].kind, r.e[i].e.kind);
				assert_int_equal(gs_graph_edge_event(g, &g->edges[i]),
						 r.e[i].event);
			}
		}
		assert_int_equal(gs_waits_compute(t, gr, &wa, &na), GS_OK);
		assert_int_equal(gs_waits_compute(t, g, &wb, &nb), GS_OK);
		assert_int_equal(na, nb);
		for (size_t i = 0; i < na; i++) {
			assert_int_equal(wa[i].consumer, wb[i].consumer);
			assert_int_equal(wa[i].producer, wb[i].producer);
			assert_int_equal(wa[i].kind, wb[i].kind);
			assert_int_equal(wa[i].event, wb[i].event);
			assert_int_equal(wa[i].wait_ns, wb[i].wait_ns);
		}
		free(wa);
		free(wb);
		gs_trace_op_span(t, &first, &last);
		for (uint32_t d = 0; d < 2; d++) {
			same_schedule(t, gr, g, d, NULL);
			for (int w = 0; w < 4 && last > first; w++) {
				int64_t a = first + (int64_t)(rnd64() % (uint64_t)(last - first));
				int64_t b = a + 1 + (int64_t)(rnd64() % (uint64_t)(last - a));
				struct gs_window win = {.set = true, .start_ns = a, .end_ns = b};

				same_schedule(t, gr, g, d, &win);
			}
		}
		{
			struct gs_schedule s;

			assert_int_equal(gs_schedule_compute(t, gr, 0, NULL, &s), GS_OK);
			cyclic += s.broken_cycles > 0;
			gs_schedule_fini(&s);
		}
		free(r.e);
		free(r.early);
		gs_graph_destroy(gr);
		gs_graph_destroy(g);
		gs_trace_destroy(t);
	}
	printf("implied edges in %zu of %zu traces; %zu with a cycle\n", with_implied, traces,
	       cyclic);
	assert_true(with_implied * 5 > traces * 2); /* 40% */
	assert_true(cyclic * 10 > traces);
}

/* The kernels of the device (positive length) ending at or before `at`
 * (after: starting at or after it), nearest first, ties by op: the `near`
 * nearest, as indices into ops, in *out. */
static size_t ref_near(const struct gs_trace *t, uint32_t device, int64_t at, bool after,
		       size_t near, uint32_t *out)
{
	size_t n_ops, n = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);

	for (size_t k = 0; k < near; k++) {
		uint32_t best = GS_NO_INDEX;

		for (size_t i = 0; i < n_ops; i++) {
			const struct gs_op *op = &ops[i];
			int64_t v = after ? op->start_ns : op->end_ns;
			bool taken = false;

			if (op->kind != GS_OP_KERNEL || op->end_ns <= op->start_ns ||
			    gs_op_device(t, op) != device || (after ? v < at : v > at))
				continue;
			for (size_t j = 0; j < n; j++)
				taken |= out[j] == i;
			if (taken)
				continue;
			if (best == GS_NO_INDEX) {
				best = (uint32_t)i;
			} else {
				int64_t b = after ? ops[best].start_ns : ops[best].end_ns;

				/* before: the latest end, the later op on a tie;
				 * after: the earliest start, the earlier op. */
				if (after ? v < b : v >= b)
					best = (uint32_t)i;
			}
		}
		if (best == GS_NO_INDEX)
			break;
		out[n++] = best;
	}
	return n;
}

/* Every missed overlap's kernel is one of the 4 nearest on either side of
 * its copy (overlap.c, GS_MO_NEAR): the kernels by end and by start it
 * searches are in time order however the streams interleave. */
static void test_missed_near(void **state)
{
	size_t named = 0;

	(void)state;
	for (int iter = 0; iter < 400; iter++) {
		struct gs_trace *t = random_trace();
		struct gs_graph *g;
		size_t n_ops;
		const struct gs_op *ops = gs_trace_ops(t, &n_ops);

		assert_int_equal(gs_graph_build(t, &g), GS_OK);
		for (uint32_t dev = 0; dev < 2; dev++) {
			struct gs_schedule s;
			struct gs_breakdown bd;
			struct gs_missed_overlap *m = NULL;
			size_t nm = 0;

			assert_int_equal(gs_schedule_compute(t, g, dev, NULL, &s), GS_OK);
			assert_int_equal(gs_breakdown_compute(t, dev, NULL, &bd), GS_OK);
			assert_int_equal(gs_missed_overlap_compute(t, g, &s, &bd, &m, &nm), GS_OK);
			for (size_t i = 0; i < nm; i++) {
				uint32_t near[8];
				size_t n;
				bool found = false;

				if (m[i].kernel == GS_NO_INDEX)
					continue;
				n = ref_near(t, dev, ops[m[i].op].start_ns, false, 4, near);
				n += ref_near(t, dev, ops[m[i].op].end_ns, true, 4, near + n);
				for (size_t j = 0; j < n; j++)
					found |= near[j] == m[i].kernel;
				if (!found)
					fail_msg(
						"trace %d device %u: copy %u, kernel %u not among the "
						"nearest",
						iter, dev, m[i].op, m[i].kernel);
				named++;
			}
			free(m);
			gs_breakdown_fini(&bd);
			gs_schedule_fini(&s);
		}
		gs_graph_destroy(g);
		gs_trace_destroy(t);
	}
	if (named < 100)
		fail_msg("only %zu missed overlaps named a kernel", named);
}

/* ---- the critical path's listed rows ----------------------------------- */

/* An op of the path in the reference ranking: its time, its place. */
struct crit_ref {
	int64_t ns;
	size_t step;
};

/* Longest first, of equal times the earlier on the path. */
static int cmp_crit_ref(const void *pa, const void *pb)
{
	const struct crit_ref *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->step < b->step ? -1 : a->step > b->step;
}

/* The rows gs_report_cut_critical keeps of `path`, against the first
 * `rows` of the whole path ranked (ref, n entries). */
static void check_critical_rows(const struct gs_op *ops, uint32_t *path, size_t n,
				const struct crit_ref *ref, size_t rows)
{
	struct gs_report_device d;
	size_t keep = n < rows ? n : rows;

	memset(&d, 0, sizeof(d));
	d.sched.critical_path = path;
	d.sched.n_critical = n;
	assert_int_equal(gs_report_cut_critical(&d, ops, rows), GS_OK);
	assert_int_equal(d.critical_count, n);
	assert_int_equal(d.n_critical, keep);
	/* The kept rows in path order, */
	for (size_t j = 1; j < keep; j++)
		assert_true(d.critical_step[j - 1] < d.critical_step[j]);
	/* ranked as the whole path is: the same ops, times and places. */
	for (size_t r = 0; r < keep; r++) {
		size_t j = d.critical_rank[r];

		assert_true(j < keep);
		assert_int_equal(d.critical_step[j], ref[r].step);
		assert_int_equal(d.critical[j].op, path[ref[r].step]);
		assert_int_equal(d.critical[j].ns, ref[r].ns);
	}
	free(d.critical);
	free(d.critical_step);
	free(d.critical_rank);
}

/*
 * gs_report_cut_critical keeps the `rows` longest ops of a path with a heap
 * of `rows` entries: against a stable ranking of the whole path, over
 * random paths whose times take a few values (ties everywhere, ops that
 * end before they start among them, whose time is 0), with `rows` of 1,
 * of the path less one, of all of it and past it, and between.
 */
static void test_critical_rows(void **state)
{
	(void)state;
	for (int iter = 0; iter < 300; iter++) {
		size_t n_ops = 1 + rnd(300), n = 1 + rnd(iter % 10 ? 200 : 5000);
		uint32_t values = 1 + rnd(6);
		struct gs_op *ops = calloc(n_ops, sizeof(*ops));
		uint32_t *path = malloc(n * sizeof(*path));
		struct crit_ref *ref = malloc(n * sizeof(*ref));
		size_t rows[] = {1, 2, n - 1 ? n - 1 : 1, n, n + 3, 1 + rnd((uint32_t)n)};

		assert_non_null(ops);
		assert_non_null(path);
		assert_non_null(ref);
		for (size_t i = 0; i < n_ops; i++) {
			ops[i].start_ns = rnd(1000);
			ops[i].end_ns =
				ops[i].start_ns + 10 * (int64_t)rnd(values) - (rnd(8) ? 0 : 25);
		}
		for (size_t i = 0; i < n; i++) {
			path[i] = rnd((uint32_t)n_ops);
			ref[i] = (struct crit_ref){gs_schedule_op_ns(&ops[path[i]]), i};
		}
		qsort(ref, n, sizeof(*ref), cmp_crit_ref);
		for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++)
			check_critical_rows(ops, path, n, ref, rows[k]);
		free(ops);
		free(path);
		free(ref);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keyed_sorts),     cmocka_unit_test(test_device_op_ranges),
		cmocka_unit_test(test_graph_reference), cmocka_unit_test(test_graph_implied),
		cmocka_unit_test(test_missed_near),     cmocka_unit_test(test_critical_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
