/* SPDX-License-Identifier: MIT */
/*
 * The breakdown (docs/design.md): per device, the window cut into maximal
 * kernel / copy / sync / idle segments by priority, the overlap figures,
 * and the attribution of idle time to the host (host_bound), the launch
 * path (launch_latency), or nothing known (unattributed).
 *
 * What counts, for device D over the window W (every interval clipped to W):
 *   kernel  kernels of D (ops whose stream is on D);
 *   copy    memcpy and memset ops of D. A peer copy counts only for the
 *           device of its stream: the trace model keeps no second device;
 *   sync    host intervals blocked on D: gs_sync records of D of kind
 *           event, stream or context synchronize (a stream wait does not
 *           block the host; a sync of unknown kind is not counted), and
 *           the launching API call of a host-synchronous memcpy/memset of
 *           D (its host side is pageable, or it lacks GS_OPF_ASYNC and its
 *           call's name does not say "Async"): the part of that call not
 *           covered by the copy itself is time the host waited.
 * The categories are exclusive by priority kernel > copy > sync > idle.
 *
 * Idle attribution: an idle segment [a, b) is held back by N, the first op
 * of D starting at or after b (among ops starting together, the one whose
 * launch call started first). With L = [ls, le] the call that launched N
 * (joined on the correlation id): [a, min(b, ls)) is host_bound and
 * [max(a, ls), b) launch_latency; without N or without L, unattributed.
 * During host_bound time, the CUDA calls the launching thread was inside
 * are credited by name; where calls nest, the outermost one (the first in
 * the thread's start order) is credited, so credits never exceed
 * host_bound. The host-bound intervals are also attributed to the host
 * ranges of the launching thread (hostattr.c).
 *
 * Complexity: O((N + Y + A) log(N + Y + A)) for N ops, Y syncs and A API
 * calls: the 2(N + Y) interval endpoints merged from the sorted runs they
 * come in (one per stream, read from the ops where each stream's intervals
 * follow one another, then the syncs; data in no order is sorted) in one
 * sweep, one sort of D's ops where its streams are not by start (only D's
 * streams are read),
 * a join of ops to calls on correlation ids, and for each idle gap a
 * binary search in the launching thread's flattened calls plus the calls
 * that overlap the gap (each call piece is visited by at most the gaps it
 * overlaps, and the gaps are disjoint).
 */
#include <gpuscope/breakdown.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/names.h>
#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/vec.h>
#include <gpuscope/window.h>

#include "analyzer_priv.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *gs_category_name(unsigned cat)
{
	static const char *const names[GS_CAT_COUNT] = {"kernel", "copy", "sync", "idle"};

	return cat < GS_CAT_COUNT ? names[cat] : "?";
}

/* One interval endpoint: +1 at a start, -1 at an end, of one category. */
struct bd_ev {
	int64_t t;
	int32_t d;
	uint32_t cat;
};

struct ev_list {
	struct bd_ev *v;
	size_t n, cap;
};

/* An op of the device, for finding the op that ends an idle gap. */
struct bd_op {
	int64_t start;
	uint32_t op;
};

/* The part of an API call not inside an earlier-starting call of its
 * thread: per thread, pieces are disjoint and sorted. */
struct bd_piece {
	int64_t start;
	int64_t end;
	uint32_t call;
};

/*
 * A thread's pieces: when its calls come by start (the usual case), a
 * piece is its call's [max(start, the piece before's end), end), so the
 * calls alone say it (`p` is then uint32_t call indices, 4 B a piece
 * instead of 24: flattened on every breakdown unless kept); else struct
 * bd_piece.
 */
struct bd_pieces {
	void *p;
	size_t n;
	bool calls_only;
};

/* Host-bound time credited to one call name. */
struct bd_credit {
	struct gs_host_call_time h;
	size_t last_gap; /* the last idle gap (segment index) it was credited in */
};

/* What the breakdowns of the devices of one trace share (built as needed):
 * per thread its calls flattened into pieces, and the credit slot of each
 * call name, all GS_NO_INDEX between breakdowns (each puts back what it
 * set), so that a device costs its own records, not all threads or names. */
struct gs_breakdown_cache {
	const struct gs_trace *t;
	const uint32_t *launch; /* per op, its launch call (the trace's join) */
	bool keep;              /* the pieces stay from one breakdown to the next */
	bool built;
	struct bd_pieces *pieces; /* per thread, each built when first needed */
	size_t n_threads;
	uint32_t *slot_of_name; /* per string id (+1 for ids out of range) */
	size_t n_names;
	struct gs_host_index *hix; /* the host ranges, built when first needed */
	/* hix was adopted ready to be queried through forks (its share done). */
	bool hix_ready;
	/* Per op, over its stream's ops up to it the latest end and from it
	 * on the earliest start, counting a host-synchronous copy's call as
	 * part of it: a window's ops found by binary searches (built at the
	 * first breakdown over a window). */
	int64_t *reach_end;
	int64_t *reach_start;
	/* With the reach arrays: the syncs (all devices) come by start, and
	 * the longest blocking one, so that a window reads only the syncs
	 * that can reach into it (a step's window, not every sync). */
	bool syncs_by_start;
	uint64_t sync_reach_ns;
	/* Shared (gs_breakdown_cache_share): threads read it through forks. */
	bool shared;
	/* A fork's shared cache: the fork borrows its launch, reach arrays,
	 * index (through a fork of it) and kept pieces; NULL: not a fork. */
	const struct gs_breakdown_cache *parent;
};

gs_status gs_breakdown_cache_create(const struct gs_trace *t, const uint32_t *launch, bool keep,
				    struct gs_breakdown_cache **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out) {
		return gs_nomem();
	}
	(*out)->t = t;
	if (!launch) {
		size_t n;

		launch = gs_trace_op_launches(t, &n);
	}
	(*out)->launch = launch;
	(*out)->keep = keep;
	return GS_OK;
}

gs_status gs_breakdown_cache_adopt_host_index(struct gs_breakdown_cache *c,
					      struct gs_host_index *hix)
{
	gs_status rc;

	gs_host_index_destroy(c->hix);
	c->hix = hix;
	c->hix_ready = false;
	if (!hix)
		return GS_OK;
	rc = gs_host_index_share(hix); /* nothing left to do when its builder shared it */
	c->hix_ready = rc == GS_OK;
	return rc;
}

void gs_breakdown_cache_keep(struct gs_breakdown_cache *c, bool keep)
{
	if (!c)
		return;
	if (!keep)
		for (size_t k = 0; c->pieces && k < c->n_threads; k++) {
			free(c->pieces[k].p);
			c->pieces[k] = (struct bd_pieces){0};
		}
	c->keep = keep;
}

void gs_breakdown_cache_destroy(struct gs_breakdown_cache *c)
{
	if (!c)
		return;
	for (size_t k = 0; c->pieces && k < c->n_threads; k++)
		free(c->pieces[k].p);
	free(c->pieces);
	free(c->slot_of_name);
	gs_host_index_destroy(c->hix);
	if (!c->parent || c->reach_end != c->parent->reach_end) { /* not borrowed */
		free(c->reach_end);
		free(c->reach_start);
	}
	free(c);
}

/* The last call name host_synchronous looked at, and whether it names an
 * asynchronous call: a trace's copies are launched by a few names, each
 * looked up in the strings and searched once rather than per copy. */
struct async_memo {
	uint32_t name;
	bool known;
	bool async;
};

/* One device's breakdown while it is computed: the device's ops and API
 * calls in the window, every interval endpoint, the host-call credits. */
struct breakdown_pass {
	const struct gs_trace *t;
	uint32_t device;
	int64_t w0, w1;
	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_api_call *calls;
	size_t n_calls;
	struct gs_op_range *ranges; /* the device's ops */
	size_t n_ranges;
	/* The interval endpoints: with `cursors` the ops' are read by the
	 * sweep straight from the ranges (each range's intervals, cut to the
	 * window, follow one another: a sorted run of endpoints), and `ev`
	 * holds the sync intervals alone; else every endpoint is in `ev`. */
	struct ev_list ev;
	bool cursors;
	/* The device's ops by start, for the gaps' launches: with a few
	 * ranges each in start order (the usual case), read through a cursor
	 * per range (at, by_ranges); else copied and sorted (dev). */
	struct bd_op *dev;
	size_t n_dev;
	bool by_ranges;
	size_t at[GS_KMERGE_MAX_RUNS];
	/* The gaps' launches found so far (gap_launch*): the last one, by
	 * the start of its ops (by_ranges) or its position in dev. */
	size_t gap_p, gap_cache_p;
	int64_t gap_cache_start;
	bool gap_cached;
	uint32_t gap_cache_call;
	struct async_memo async;
	/* The last gap's credits: its thread's pieces, its start and the
	 * first piece ending after it (where the next gap's search starts). */
	const struct bd_pieces *hint_pieces;
	int64_t hint_a;
	size_t hint_lo;

	/* Host-call credits: the pieces and the name slots are the cache's
	 * (shared by the devices of a report), the credits this device's. */
	struct gs_breakdown_cache *cache;
	bool own_cache;
	uint32_t *built; /* the threads whose pieces this breakdown made */
	size_t n_built, cap_built;
	struct bd_credit *hc;
	size_t n_hc, cap_hc;
	/* The host-bound intervals, for the host-range attribution. */
	struct gs_host_interval *hb;
	size_t n_hb, cap_hb;

	struct gs_segment *seg;
	size_t n_seg, cap_seg;
};

/* [s, e) of category cat into list l (clipped to the window later). */
static gs_status add_interval(struct ev_list *l, int64_t s, int64_t e, uint32_t cat)
{
	gs_status rc;

	if (s >= e) /* clipping only shrinks: nothing would be left */
		return GS_OK;
	rc = gs_vec_grow((void **)&l->v, &l->cap, l->n + 2, sizeof(*l->v));
	if (rc)
		return rc;
	l->v[l->n++] = (struct bd_ev){.t = s, .d = 1, .cat = cat};
	l->v[l->n++] = (struct bd_ev){.t = e, .d = -1, .cat = cat};
	return GS_OK;
}

/* Clip the intervals of l (start and end next to each other) to the
 * window, dropping those left empty. */
static void clip(const struct breakdown_pass *b, struct ev_list *l)
{
	size_t k = 0;

	for (size_t i = 0; i + 1 < l->n; i += 2) {
		int64_t s = l->v[i].t > b->w0 ? l->v[i].t : b->w0;
		int64_t e = l->v[i + 1].t < b->w1 ? l->v[i + 1].t : b->w1;

		if (s >= e)
			continue;
		l->v[k] = l->v[i];
		l->v[k++].t = s;
		l->v[k] = l->v[i + 1];
		l->v[k++].t = e;
	}
	l->n = k;
}

/* A memcpy/memset whose launching call blocked the host until it was done. */
static bool host_synchronous(const struct gs_trace *t, const struct gs_api_call *calls,
			     const struct gs_op *op, uint32_t call, struct async_memo *memo)
{
	if (op->src_mem == GS_MEM_PAGEABLE || op->dst_mem == GS_MEM_PAGEABLE)
		return true;
	if (op->flags & GS_OPF_ASYNC)
		return false;
	if (!memo->known || memo->name != calls[call].name) {
		const char *name = gs_trace_string(t, calls[call].name);

		memo->name = calls[call].name;
		memo->known = true;
		memo->async = gs_api_name_is_async(name, strlen(name));
	}
	return !memo->async;
}

static uint32_t launch_of(const struct breakdown_pass *b, size_t op)
{
	return b->cache->launch ? b->cache->launch[op] : GS_NO_INDEX;
}

static bool blocking_sync(const struct gs_sync *y)
{
	return y->kind == GS_SYNC_EVENT || y->kind == GS_SYNC_STREAM || y->kind == GS_SYNC_CONTEXT;
}

/* The longest blocking sync, and whether the syncs come by start (the
 * trace sorts them so): a window then needs only the syncs that start
 * from its start less that length up to its end. */
static void sync_reach(struct gs_breakdown_cache *c)
{
	size_t n_syncs;
	const struct gs_sync *syncs = gs_trace_syncs(c->t, &n_syncs);

	c->syncs_by_start = true;
	c->sync_reach_ns = 0;
	for (size_t i = 0; i < n_syncs; i++) {
		if (i && syncs[i].start_ns < syncs[i - 1].start_ns)
			c->syncs_by_start = false;
		if (blocking_sync(&syncs[i]) && syncs[i].end_ns > syncs[i].start_ns &&
		    (uint64_t)syncs[i].end_ns - (uint64_t)syncs[i].start_ns > c->sync_reach_ns)
			c->sync_reach_ns = (uint64_t)syncs[i].end_ns - (uint64_t)syncs[i].start_ns;
	}
}

/* The cache's reach arrays (struct gs_breakdown_cache): one pass over
 * every stream's ops writes the latest ends and each op's own start,
 * a pass over that array backwards makes them the earliest starts. */
static gs_status reach_build(struct gs_breakdown_cache *c)
{
	size_t n_ops, n_calls, n_streams;
	const struct gs_op *ops = gs_trace_ops(c->t, &n_ops);
	const struct gs_api_call *calls = gs_trace_api_calls(c->t, &n_calls);
	struct async_memo memo = {0};

	gs_trace_streams(c->t, &n_streams);
	c->reach_end = malloc((n_ops ? n_ops : 1) * sizeof(*c->reach_end));
	c->reach_start = malloc((n_ops ? n_ops : 1) * sizeof(*c->reach_start));
	if (!c->reach_end || !c->reach_start) {
		free(c->reach_end);
		free(c->reach_start);
		c->reach_end = c->reach_start = NULL;
		return gs_nomem();
	}
	for (uint32_t st = 0; st < n_streams; st++) {
		size_t first, count;
		int64_t hi = INT64_MIN, lo = INT64_MAX;

		gs_trace_stream_ops(c->t, st, &first, &count);
		for (size_t i = first; i < first + count; i++) {
			const struct gs_op *op = &ops[i];
			uint32_t call = c->launch && op->kind != GS_OP_KERNEL && op->correlation ?
						c->launch[i] :
						GS_NO_INDEX;
			int64_t a = op->start_ns, e = op->end_ns;

			if (call < n_calls && host_synchronous(c->t, calls, op, call, &memo)) {
				if (calls[call].end_ns > e)
					e = calls[call].end_ns;
				if (calls[call].start_ns < a)
					a = calls[call].start_ns;
			}
			hi = e > hi ? e : hi;
			c->reach_end[i] = hi;
			c->reach_start[i] = a;
		}
		for (size_t i = first + count; i-- > first;) {
			lo = c->reach_start[i] < lo ? c->reach_start[i] : lo;
			c->reach_start[i] = lo;
		}
	}
	sync_reach(c);
	return GS_OK;
}

/*
 * The ops of a device's stream range [first, first + count) that a window
 * [w0, w1) needs: those whose interval (a host-synchronous copy's call
 * included) can reach into it, and the earliest-starting ops from w1 on
 * (the op that ends an idle gap at the window's end). Ops by start in a
 * stream; reach_end grows and reach_start too, so binary searches.
 */
static void window_span(const struct gs_breakdown_cache *c, const struct gs_op *ops, size_t first,
			size_t count, int64_t w0, int64_t w1, size_t *from, size_t *to)
{
	size_t lo, a, z;

	/* the first whose reach ends after w0 */
	a = first + gs_upper_bound_i64(c->reach_end + first, count, w0);
	/* from there, the first reaching no earlier than w1 */
	z = a + gs_lower_bound_i64(c->reach_start + a, first + count - a, w1);
	/* the first starting at or after w1, and the ops that start with it */
	lo = gs_op_range_first_at(ops, (struct gs_op_range){first, count}, w1);
	if (lo < first + count) {
		int64_t t = ops[lo].start_ns;

		while (lo < first + count && ops[lo].start_ns == t)
			lo++;
	}
	*from = a;
	*to = z > lo ? z : lo;
	if (*to < *from)
		*to = *from;
}

struct sync_key {
	const struct gs_sync *syncs;
	const uint32_t *dev;
	int64_t t;
};

static bool sync_starts_before(const void *ctx, size_t i)
{
	const struct sync_key *k = ctx;

	return k->syncs[k->dev[i]].start_ns < k->t;
}

/* The part [*from, *to) of a device's syncs (by start) that a window
 * [w0, w1) needs: a sync starting earlier than w0 less the longest one
 * ends by w0, one starting at w1 or later is cut away. */
static void window_syncs(const struct gs_breakdown_cache *c, const struct gs_sync *syncs,
			 const uint32_t *dev, size_t n, int64_t w0, int64_t w1, size_t *from,
			 size_t *to)
{
	struct sync_key k = {syncs, dev, INT64_MIN};

	if (c->sync_reach_ns <= (uint64_t)w0 - (uint64_t)INT64_MIN)
		k.t = (int64_t)((uint64_t)w0 - c->sync_reach_ns);
	*from = gs_partition_point(n, sync_starts_before, &k);
	k.dev = dev + *from;
	k.t = w1;
	*to = *from + gs_partition_point(n - *from, sync_starts_before, &k);
}

/*
 * Intervals of every category, and the device's ops by start. One pass
 * over the device's ops finds the default window and whether each
 * range's intervals, cut to the window, follow one another (`cursors`:
 * the sweep then reads them from the ops, nothing written per op); else
 * their endpoints are written range by range (each in time order,
 * mostly). The sync intervals go after them, sorted apart, so the sweep
 * merges a few runs. Endpoints at one time are taken together by the
 * sweep, so their order among themselves does not matter.
 */
static gs_status collect(struct breakdown_pass *b, const struct gs_window *win,
			 struct gs_breakdown *out)
{
	size_t n_syncs, n_dev_syncs, k = 0, n_before, y0 = 0, y1;
	const struct gs_sync *syncs = gs_trace_syncs(b->t, &n_syncs);
	const uint32_t *dev_syncs = gs_trace_device_syncs(b->t, b->device, &n_dev_syncs);
	struct ev_list calls = {0}; /* the sync part of host-synchronous copies */
	bool win_set = win && win->set;
	/* the window the intervals are cut to: the default one holds them */
	int64_t cw0 = win_set ? win->start_ns : INT64_MIN, cw1 = win_set ? win->end_ns : INT64_MAX;
	int64_t lo = 0, hi = 0;
	gs_status rc = GS_OK;

	y1 = n_dev_syncs;
	/* Over a window, with a cache the breakdowns share: only the ops and
	 * syncs the window needs, found by binary searches (the cost is the
	 * window's). The ranges are narrowed in place. */
	if (win_set && !b->own_cache) {
		if (!b->cache->reach_end) {
			rc = reach_build(b->cache);
			if (rc)
				return rc;
		}
		for (size_t r = 0; r < b->n_ranges; r++) {
			size_t from, to;

			window_span(b->cache, b->ops, b->ranges[r].first, b->ranges[r].count,
				    win->start_ns, win->end_ns, &from, &to);
			b->ranges[r].first = from;
			b->ranges[r].count = to - from;
		}
		if (b->cache->syncs_by_start)
			window_syncs(b->cache, syncs, dev_syncs, n_dev_syncs, win->start_ns,
				     win->end_ns, &y0, &y1);
	}
	b->n_dev = 0;
	for (size_t r = 0; r < b->n_ranges; r++)
		b->n_dev += b->ranges[r].count;
	b->by_ranges = b->n_ranges <= GS_KMERGE_MAX_RUNS;
	b->cursors = true;
	/* One pass over the device's ops: the default window (first start to
	 * last end), whether the ops come by start and their intervals one
	 * after another, and the host-synchronous copies' calls. */
	for (size_t r = 0; r < b->n_ranges && !rc; r++) {
		size_t end = b->ranges[r].first + b->ranges[r].count;
		int64_t last = INT64_MIN; /* the range's last interval's end, cut */

		for (size_t i = b->ranges[r].first; i < end && !rc; i++) {
			const struct gs_op *op = &b->ops[i];
			int64_t cs = op->start_ns > cw0 ? op->start_ns : cw0;
			int64_t ce = op->end_ns < cw1 ? op->end_ns : cw1;

			if (!k || op->start_ns < lo)
				lo = op->start_ns;
			if (!k || op->end_ns > hi)
				hi = op->end_ns;
			if (i > b->ranges[r].first && op->start_ns < op[-1].start_ns)
				b->by_ranges = false;
			k++;
			if (cs < ce) {
				if (cs < last)
					b->cursors = false;
				last = ce;
			}
			if (op->kind != GS_OP_KERNEL && op->correlation) {
				uint32_t call = launch_of(b, i);

				if (call != GS_NO_INDEX &&
				    host_synchronous(b->t, b->calls, op, call, &b->async))
					rc = add_interval(&calls, b->calls[call].start_ns,
							  b->calls[call].end_ns, GS_CAT_SYNC);
			}
		}
	}
	/* The cursors need the gaps' launches through the ranges too. */
	b->cursors = b->cursors && b->by_ranges;
	if (!rc && !b->cursors)
		rc = gs_vec_grow((void **)&b->ev.v, &b->ev.cap, 2 * b->n_dev + 2, sizeof(*b->ev.v));
	for (size_t r = 0; r < b->n_ranges && !rc && !b->cursors; r++) {
		size_t end = b->ranges[r].first + b->ranges[r].count;

		for (size_t i = b->ranges[r].first; i < end && !rc; i++) {
			const struct gs_op *op = &b->ops[i];

			rc = add_interval(&b->ev, op->start_ns, op->end_ns,
					  op->kind == GS_OP_KERNEL ? GS_CAT_KERNEL : GS_CAT_COPY);
		}
	}
	if (win_set) {
		lo = win->start_ns;
		hi = win->end_ns;
	}
	b->w0 = out->window_start = lo;
	b->w1 = out->window_end = hi;
	out->window_ns = hi - lo;
	clip(b, &b->ev);
	clip(b, &calls);
	/* Then the sync calls, sorted apart, and the syncs. */
	if (!rc && calls.n) {
		gs_sort_by_i64(calls.v, calls.n, sizeof(*calls.v));
		rc = gs_vec_grow((void **)&b->ev.v, &b->ev.cap, b->ev.n + calls.n,
				 sizeof(*b->ev.v));
		if (!rc) {
			memcpy(b->ev.v + b->ev.n, calls.v, calls.n * sizeof(*calls.v));
			b->ev.n += calls.n;
		}
	}
	free(calls.v);
	n_before = b->ev.n;
	/* The device's own syncs (gs_trace_device_syncs), in sync order. */
	for (size_t k2 = y0; k2 < y1 && !rc; k2++) {
		const struct gs_sync *y = &syncs[dev_syncs[k2]];

		if (blocking_sync(y))
			rc = add_interval(&b->ev, y->start_ns, y->end_ns, GS_CAT_SYNC);
	}
	if (rc)
		return rc;
	if (b->ev.n > n_before) { /* else ev.v may be NULL: no offset on it */
		struct ev_list tail = {.v = b->ev.v + n_before, .n = b->ev.n - n_before};

		clip(b, &tail);
		b->ev.n = n_before + tail.n;
		gs_sort_by_i64(b->ev.v + n_before, b->ev.n - n_before, sizeof(*b->ev.v));
	}
	if (b->by_ranges) {
		for (size_t r = 0; r < b->n_ranges; r++)
			b->at[r] = b->ranges[r].first;
		return GS_OK;
	}
	b->dev = malloc((b->n_dev ? b->n_dev : 1) * sizeof(*b->dev));
	if (!b->dev)
		return gs_nomem();
	k = 0;
	for (size_t r = 0; r < b->n_ranges; r++)
		for (size_t i = b->ranges[r].first; i < b->ranges[r].first + b->ranges[r].count;
		     i++)
			b->dev[k++] =
				(struct bd_op){.start = b->ops[i].start_ns, .op = (uint32_t)i};
	/* Built in op order: by start alone is by (start, op). */
	gs_sort_by_i64(b->dev, b->n_dev, sizeof(*b->dev));
	return GS_OK;
}

static unsigned classify(const int64_t cnt[3])
{
	if (cnt[GS_CAT_KERNEL] > 0)
		return GS_CAT_KERNEL;
	if (cnt[GS_CAT_COPY] > 0)
		return GS_CAT_COPY;
	if (cnt[GS_CAT_SYNC] > 0)
		return GS_CAT_SYNC;
	return GS_CAT_IDLE;
}

static gs_status push_segment(struct breakdown_pass *b, int64_t s, int64_t e, unsigned cat)
{
	gs_status rc;

	if (b->n_seg && b->seg[b->n_seg - 1].category == cat && b->seg[b->n_seg - 1].end_ns == s) {
		b->seg[b->n_seg - 1].end_ns = e;
		return GS_OK;
	}
	rc = gs_vec_grow((void **)&b->seg, &b->cap_seg, b->n_seg + 1, sizeof(*b->seg));
	if (rc)
		return rc;
	b->seg[b->n_seg++] =
		(struct gs_segment){.start_ns = s, .end_ns = e, .category = (uint8_t)cat};
	return GS_OK;
}

/*
 * The endpoints in time order without sorting them: they come in a few
 * sorted runs (with cursors one per range of ops, read from the ops; the
 * sync calls, the syncs; without, one per stream in `ev`), merged here
 * through a heap of runs keyed by their next time. Endpoints at one time
 * are taken together by the sweep, so the order among them is free. An
 * `ev` in no order (more than GS_BD_RUNS runs) is sorted first.
 */
#define GS_BD_RUNS 64
#define BD_MERGE_RUNS (GS_KMERGE_MAX_RUNS + GS_BD_RUNS)

struct ev_merge {
	const struct bd_ev *v;
	const struct gs_op *ops;
	int64_t w0, w1;
	unsigned n_op; /* runs [0, n_op) are ranges of ops, the others runs of v */
	unsigned n;    /* runs with endpoints left */
	unsigned heap[BD_MERGE_RUNS];
	int64_t head[BD_MERGE_RUNS];                   /* per run, its next time */
	size_t pos[BD_MERGE_RUNS], end[BD_MERGE_RUNS]; /* its next op or endpoint, its end */
	int64_t op_end[GS_KMERGE_MAX_RUNS];            /* the op at pos: its end, cut */
	bool in_op[GS_KMERGE_MAX_RUNS];                /* its start taken: head is its end */
};

static void merge_down(struct ev_merge *m, unsigned k)
{
	for (;;) {
		unsigned c = 2 * k + 1, t;

		if (c >= m->n)
			return;
		if (c + 1 < m->n && m->head[m->heap[c + 1]] < m->head[m->heap[c]])
			c++;
		if (m->head[m->heap[k]] <= m->head[m->heap[c]])
			return;
		t = m->heap[k];
		m->heap[k] = m->heap[c];
		m->heap[c] = t;
		k = c;
	}
}

/* Op run r from its op at pos on: the first op whose interval cut to the
 * window is not empty (as clip() would keep it); false: none left. */
static bool op_seek(struct ev_merge *m, unsigned r)
{
	for (size_t i = m->pos[r]; i < m->end[r]; i++) {
		int64_t s = m->ops[i].start_ns > m->w0 ? m->ops[i].start_ns : m->w0;
		int64_t e = m->ops[i].end_ns < m->w1 ? m->ops[i].end_ns : m->w1;

		if (s < e) {
			m->pos[r] = i;
			m->head[r] = s;
			m->op_end[r] = e;
			m->in_op[r] = false;
			return true;
		}
	}
	return false;
}

static void merge_init(struct ev_merge *m, const struct breakdown_pass *b, struct ev_list *l)
{
	unsigned runs = 0;

	for (size_t i = 1; i < l->n && runs < GS_BD_RUNS; i++)
		runs += l->v[i].t < l->v[i - 1].t;
	if (runs >= GS_BD_RUNS - 1)
		gs_sort_by_i64(l->v, l->n, sizeof(*l->v));
	m->v = l->v;
	m->ops = b->ops;
	m->w0 = b->w0;
	m->w1 = b->w1;
	m->n = 0;
	m->n_op = b->cursors ? (unsigned)b->n_ranges : 0;
	for (unsigned r = 0; r < m->n_op; r++) {
		m->pos[r] = b->ranges[r].first;
		m->end[r] = b->ranges[r].first + b->ranges[r].count;
		if (op_seek(m, r))
			m->heap[m->n++] = r;
	}
	for (size_t i = 0, r = m->n_op; i < l->n; i++) {
		if (i && l->v[i].t >= l->v[i - 1].t)
			continue;
		if (r > m->n_op)
			m->end[r - 1] = i;
		m->pos[r] = i;
		m->head[r] = l->v[i].t;
		m->heap[m->n++] = (unsigned)r++;
		m->end[r - 1] = l->n;
	}
	for (unsigned k = m->n / 2; k-- > 0;)
		merge_down(m, k);
}

/* The next endpoint: +1 or -1 (*d) of category *cat. */
static void merge_pop(struct ev_merge *m, int32_t *d, unsigned *cat)
{
	unsigned r = m->heap[0];

	if (r < m->n_op) {
		*cat = m->ops[m->pos[r]].kind == GS_OP_KERNEL ? GS_CAT_KERNEL : GS_CAT_COPY;
		if (!m->in_op[r]) {
			*d = 1;
			m->in_op[r] = true;
			m->head[r] = m->op_end[r];
		} else {
			*d = -1;
			m->pos[r]++;
			if (!op_seek(m, r))
				m->heap[0] = m->heap[--m->n];
		}
	} else {
		const struct bd_ev *e = &m->v[m->pos[r]++];

		*d = e->d;
		*cat = e->cat;
		if (m->pos[r] == m->end[r])
			m->heap[0] = m->heap[--m->n];
		else
			m->head[r] = m->v[m->pos[r]].t;
	}
	merge_down(m, 0);
}

static gs_status attribute_gap(struct breakdown_pass *b, struct gs_breakdown *out, size_t i);

/* One pass over the endpoints in time order: segments, totals and
 * overlap. Each segment, once the next one is begun (it can no longer
 * grow), has its idle time attributed: the ops that end a gap were just
 * read by the merge. */
static gs_status sweep(struct breakdown_pass *b, struct gs_breakdown *out)
{
	int64_t cnt[3] = {0, 0, 0};
	int64_t cur = b->w0;
	size_t done = 0; /* the segments attributed */
	struct ev_merge m;
	gs_status rc = GS_OK;

	merge_init(&m, b, &b->ev);
	while (cur < b->w1 && !rc) {
		int64_t next, len;
		unsigned cat;

		while (m.n && m.head[m.heap[0]] <= cur) {
			int32_t d;

			merge_pop(&m, &d, &cat);
			cnt[cat] += d;
		}
		next = m.n ? m.head[m.heap[0]] : b->w1;
		len = next - cur;
		cat = classify(cnt);
		out->total_ns[cat] += len;
		if (cnt[GS_CAT_COPY] > 0) {
			out->copy_total_ns += len;
			if (cnt[GS_CAT_KERNEL] > 0)
				out->copy_hidden_ns += len;
		}
		if (cnt[GS_CAT_KERNEL] >= 2)
			out->kernel_concurrency_ns += len;
		rc = push_segment(b, cur, next, cat);
		while (!rc && done + 1 < b->n_seg)
			rc = attribute_gap(b, out, done++);
		cur = next;
	}
	while (!rc && done < b->n_seg)
		rc = attribute_gap(b, out, done++);
	return rc;
}

/* The tables for host-call credits (per thread, the pieces come later),
 * once per cache. */
static gs_status build_pieces(struct gs_breakdown_cache *c)
{
	gs_trace_threads(c->t, &c->n_threads);
	c->built = true;
	c->pieces = calloc(c->n_threads + 1, sizeof(*c->pieces));
	c->n_names = gs_trace_string_count(c->t) + 1;
	c->slot_of_name = malloc(c->n_names * sizeof(*c->slot_of_name));
	if (!c->pieces || !c->slot_of_name)
		return gs_nomem();
	memset(c->slot_of_name, 0xff, c->n_names * sizeof(*c->slot_of_name));
	return GS_OK;
}

/* Thread k's calls flattened into disjoint pieces, in start order (ends
 * strictly increasing): by their calls when the calls come by start. */
static gs_status flatten_thread(const struct gs_trace *t, uint32_t k, struct bd_pieces *out)
{
	size_t n_threads, n_calls;
	const struct gs_thread *th = &gs_trace_threads(t, &n_threads)[k];
	const struct gs_api_call *calls = gs_trace_api_calls(t, &n_calls);
	size_t first = th->first_api, last = th->first_api + th->api_count;
	uint32_t *pc = malloc((th->api_count ? th->api_count : 1) * sizeof(*pc));
	struct bd_piece *p;
	int64_t cur = INT64_MIN;
	size_t np = 0, i;

	if (!pc)
		return gs_nomem();
	for (i = first; i < last; i++) {
		const struct gs_api_call *c = &calls[i];

		if (i > first && c->start_ns < c[-1].start_ns)
			break;
		if (c->end_ns > (c->start_ns > cur ? c->start_ns : cur))
			pc[np++] = (uint32_t)i;
		if (c->end_ns > cur)
			cur = c->end_ns;
	}
	if (i == last) {
		*out = (struct bd_pieces){.p = pc, .n = np, .calls_only = true};
		return GS_OK;
	}
	free(pc);
	p = malloc((th->api_count ? th->api_count : 1) * sizeof(*p));
	if (!p)
		return gs_nomem();
	cur = INT64_MIN;
	np = 0;
	for (i = first; i < last; i++) {
		const struct gs_api_call *c = &calls[i];
		int64_t s = c->start_ns > cur ? c->start_ns : cur;

		if (c->end_ns > s)
			p[np++] = (struct bd_piece){.start = s,
						    .end = c->end_ns,
						    .call = (uint32_t)i};
		if (c->end_ns > cur)
			cur = c->end_ns;
	}
	*out = (struct bd_pieces){.p = p, .n = np};
	return GS_OK;
}

/* Piece i of ps. */
static struct bd_piece piece_at(const struct gs_api_call *calls, const struct bd_pieces *ps,
				size_t i)
{
	const uint32_t *pc = ps->p;
	int64_t before;

	if (!ps->calls_only)
		return ((const struct bd_piece *)ps->p)[i];
	before = i ? calls[pc[i - 1]].end_ns : INT64_MIN;
	return (struct bd_piece){.start = calls[pc[i]].start_ns > before ? calls[pc[i]].start_ns :
									   before,
				 .end = calls[pc[i]].end_ns,
				 .call = pc[i]};
}

/* The end of piece i of ps. */
static int64_t piece_end(const struct gs_api_call *calls, const struct bd_pieces *ps, size_t i)
{
	if (!ps->calls_only)
		return ((const struct bd_piece *)ps->p)[i].end;
	return calls[((const uint32_t *)ps->p)[i]].end_ns;
}

struct piece_key {
	const struct gs_api_call *calls;
	const struct bd_pieces *ps;
	size_t from;
	int64_t a;
};

static bool piece_ends_by(const void *ctx, size_t i)
{
	const struct piece_key *k = ctx;

	return piece_end(k->calls, k->ps, k->from + i) <= k->a;
}

/* The first piece of ps ending after a, given that none before `from`
 * does. The gaps come in time order, so the answer is mostly a few pieces
 * on from the last gap's: steps that double from there, then a binary
 * search within the last step. */
static size_t piece_after(const struct gs_api_call *calls, const struct bd_pieces *ps, size_t from,
			  int64_t a)
{
	struct piece_key key = {calls, ps, from, a};
	size_t step = 1, stop;

	for (;;) {
		size_t j = key.from + step - 1;

		if (j >= ps->n || piece_end(calls, ps, j) > a)
			break;
		key.from = j + 1;
		step *= 2;
	}
	stop = key.from + step - 1 < ps->n ? key.from + step - 1 : ps->n;
	return key.from + gs_partition_point(stop - key.from, piece_ends_by, &key);
}

/* Flatten one thread's calls (only the threads that launched an op after
 * an idle gap of the device), for this breakdown, or kept. */
static gs_status thread_pieces(struct breakdown_pass *b, uint32_t k)
{
	gs_status rc = flatten_thread(b->t, k, &b->cache->pieces[k]);

	if (rc)
		return rc;
	if (!b->cache->keep) {
		rc = gs_vec_grow((void **)&b->built, &b->cap_built, b->n_built + 1,
				 sizeof(*b->built));
		if (rc)
			return rc;
		b->built[b->n_built++] = k;
	}
	return GS_OK;
}

static gs_status credit(struct breakdown_pass *b, uint32_t name, int64_t ns, size_t gap)
{
	size_t n_names = b->cache->n_names, key = name < n_names - 1 ? name : n_names - 1;
	uint32_t slot = b->cache->slot_of_name[key];
	struct bd_credit *c;

	if (slot == GS_NO_INDEX) {
		gs_status rc =
			gs_vec_grow((void **)&b->hc, &b->cap_hc, b->n_hc + 1, sizeof(*b->hc));

		if (rc)
			return rc;
		slot = (uint32_t)b->n_hc++;
		b->cache->slot_of_name[key] = slot;
		b->hc[slot] = (struct bd_credit){.h = {.name = key == name ? name : GS_NO_STRING},
						 .last_gap = SIZE_MAX};
	}
	c = &b->hc[slot];
	c->h.ns += ns;
	if (c->last_gap != gap) {
		c->last_gap = gap;
		c->h.count++;
	}
	return GS_OK;
}

/* Credit the calls of L's thread (other than L) inside [a, c). */
static gs_status credit_host_calls(struct breakdown_pass *b, uint32_t launch, int64_t a, int64_t c,
				   size_t gap)
{
	const struct gs_api_call *l = &b->calls[launch];
	const struct gs_breakdown_cache *par = b->cache->parent;
	const struct bd_pieces *pieces;
	uint32_t th;
	size_t lo, from;
	gs_status rc;

	if (!b->cache->built) {
		rc = build_pieces(b->cache);
		if (rc)
			return rc;
	}
	th = gs_trace_find_thread(b->t, l->pid, l->tid);
	if (th == GS_NO_INDEX)
		return GS_OK;
	/* the pieces of a shared cache (a fork's parent), else its own */
	if (par && par->built && par->pieces[th].p) {
		pieces = &par->pieces[th];
	} else {
		if (!b->cache->pieces[th].p) {
			rc = thread_pieces(b, th);
			if (rc)
				return rc;
		}
		pieces = &b->cache->pieces[th];
	}
	/* the first piece ending after a: on from the last gap's when it was
	 * in the same pieces at or before a */
	from = b->hint_pieces == pieces && b->hint_a <= a ? b->hint_lo : 0;
	lo = piece_after(b->calls, pieces, from, a);
	b->hint_pieces = pieces;
	b->hint_a = a;
	b->hint_lo = lo;
	for (size_t i = lo; i < pieces->n; i++) {
		struct bd_piece p = piece_at(b->calls, pieces, i);
		int64_t s = p.start > a ? p.start : a;
		int64_t e = p.end < c ? p.end : c;

		if (p.start >= c)
			break;
		if (e <= s || p.call == launch)
			continue;
		rc = credit(b, b->calls[p.call].name, e - s, gap);
		if (rc)
			return rc;
	}
	return GS_OK;
}

static int cmp_host_call(const void *pa, const void *pb, const struct gs_trace *t)
{
	const struct gs_host_call_time *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(gs_trace_string(t, a->name), gs_trace_string(t, b->name));
}

/* A stable merge sort (qsort has no context argument for the names). */
static void rank_host_calls(struct gs_host_call_time *v, struct gs_host_call_time *tmp, size_t n,
			    const struct gs_trace *t)
{
	size_t mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	rank_host_calls(v, tmp, mid, t);
	rank_host_calls(v + mid, tmp, n - mid, t);
	for (i = 0, j = mid, k = 0; i < mid || j < n;) {
		if (j >= n || (i < mid && cmp_host_call(&v[i], &v[j], t) <= 0))
			tmp[k++] = v[i++];
		else
			tmp[k++] = v[j++];
	}
	memcpy(v, tmp, n * sizeof(*v));
}

/* The better launch call of an op starting at the gap's end: the one that
 * started first, then the lower index. */
static uint32_t better_launch(const struct breakdown_pass *b, uint32_t best, uint32_t c)
{
	if (c == GS_NO_INDEX)
		return best;
	if (best == GS_NO_INDEX || b->calls[c].start_ns < b->calls[best].start_ns ||
	    (b->calls[c].start_ns == b->calls[best].start_ns && c < best))
		return c;
	return best;
}

/* gap_launch through the ranges' cursors (by_ranges): the first start at
 * or after `end` over all ranges, then every op starting then; the cache
 * is by that start (the sorted way: by its position). */
static uint32_t gap_launch_ranges(struct breakdown_pass *b, int64_t end, int64_t *cache_start,
				  bool *cached, uint32_t *cache_call)
{
	int64_t first = 0;
	bool any = false;
	uint32_t best = GS_NO_INDEX;

	for (size_t r = 0; r < b->n_ranges; r++) {
		size_t e = b->ranges[r].first + b->ranges[r].count, *a = &b->at[r];

		while (*a < e && b->ops[*a].start_ns < end)
			(*a)++;
		if (*a < e && (!any || b->ops[*a].start_ns < first)) {
			first = b->ops[*a].start_ns;
			any = true;
		}
	}
	if (!any)
		return GS_NO_INDEX;
	if (*cached && *cache_start == first)
		return *cache_call;
	for (size_t r = 0; r < b->n_ranges; r++) {
		size_t e = b->ranges[r].first + b->ranges[r].count;

		for (size_t q = b->at[r]; q < e && b->ops[q].start_ns == first; q++)
			best = better_launch(b, best, launch_of(b, q));
	}
	*cached = true;
	*cache_start = first;
	*cache_call = best;
	return best;
}

/* The launch call of the op that ends an idle gap at b (GS_NO_INDEX: none). */
static uint32_t gap_launch(struct breakdown_pass *b, size_t *p, int64_t end, size_t *cache_p,
			   uint32_t *cache_call)
{
	size_t q;
	uint32_t best = GS_NO_INDEX;

	while (*p < b->n_dev && b->dev[*p].start < end)
		(*p)++;
	if (*p >= b->n_dev)
		return GS_NO_INDEX;
	if (*cache_p == *p)
		return *cache_call;
	for (q = *p; q < b->n_dev && b->dev[q].start == b->dev[*p].start; q++)
		best = better_launch(b, best, launch_of(b, b->dev[q].op));
	*cache_p = *p;
	*cache_call = best;
	return best;
}

/* With keep: the flattened calls of every thread that launched an op
 * (those an idle gap's credits read), built once for all the devices. */
static gs_status share_pieces(struct gs_breakdown_cache *c)
{
	size_t n_ops, n_calls, n_threads;
	const struct gs_thread *th = gs_trace_threads(c->t, &n_threads);
	uint8_t *launched;
	gs_status rc = GS_OK;

	gs_trace_ops(c->t, &n_ops);
	gs_trace_api_calls(c->t, &n_calls);
	if (!c->built) {
		rc = build_pieces(c);
		if (rc)
			return rc;
	}
	if (!c->launch)
		return GS_OK;
	launched = calloc(n_calls ? n_calls : 1, 1);
	if (!launched)
		return gs_nomem();
	for (size_t i = 0; i < n_ops; i++)
		if (c->launch[i] < n_calls)
			launched[c->launch[i]] = 1;
	for (size_t k = 0; k < n_threads && !rc; k++) {
		bool any = false;

		for (size_t i = th[k].first_api; i < th[k].first_api + th[k].api_count && !any; i++)
			any = launched[i];
		if (any && !c->pieces[k].p)
			rc = flatten_thread(c->t, (uint32_t)k, &c->pieces[k]);
	}
	free(launched);
	return rc;
}

gs_status gs_breakdown_cache_reach(struct gs_breakdown_cache *c)
{
	return c->reach_end ? GS_OK : reach_build(c);
}

gs_status gs_breakdown_cache_share(struct gs_breakdown_cache *c, bool windows)
{
	size_t n_ranges;
	gs_status rc = GS_OK;

	if (windows && !c->reach_end)
		rc = reach_build(c);
	gs_trace_ranges(c->t, &n_ranges);
	if (!rc && n_ranges && !c->hix)
		rc = gs_host_index_build(c->t, &c->hix);
	if (!rc && c->hix)
		rc = gs_host_index_share(c->hix);
	if (!rc && c->keep)
		rc = share_pieces(c);
	c->shared = rc == GS_OK;
	return rc;
}

gs_status gs_breakdown_cache_fork(const struct gs_breakdown_cache *c,
				  struct gs_breakdown_cache **out)
{
	struct gs_breakdown_cache *f;
	gs_status rc;

	*out = NULL;
	rc = gs_breakdown_cache_create(c->t, c->launch, c->keep, &f);
	if (rc)
		return rc;
	/* What the cache has built for sharing (all of it once shared, else
	 * the reach arrays, complete once built, and an index adopted ready)
	 * the fork borrows; the rest it builds for itself, as a cache would. */
	if (c->shared || c->reach_end) {
		f->parent = c;
		f->reach_end = c->reach_end;
		f->reach_start = c->reach_start;
		f->syncs_by_start = c->syncs_by_start;
		f->sync_reach_ns = c->sync_reach_ns;
	}
	if (c->hix && (c->shared || c->hix_ready))
		rc = gs_host_index_fork(c->hix, &f->hix);
	if (rc) {
		gs_breakdown_cache_destroy(f);
		return rc;
	}
	*out = f;
	return GS_OK;
}

/* The host-bound intervals by the launching threads' host ranges; with
 * no ranges in the trace, all of it is outside any range. */
static gs_status host_ranges(struct breakdown_pass *b, struct gs_breakdown *out)
{
	return gs_breakdown_cache_host_ranges(b->cache, b->hb, b->n_hb, &out->host_ranges);
}

gs_status gs_breakdown_cache_host_ranges(struct gs_breakdown_cache *c,
					 const struct gs_host_interval *iv, size_t n,
					 struct gs_host_ranges *out)
{
	size_t n_ranges;

	gs_trace_ranges(c->t, &n_ranges);
	if (!n_ranges || !n) {
		gs_status rc = gs_host_ranges_compute(NULL, iv, n, out);

		out->recorded = n_ranges > 0;
		return rc;
	}
	if (!c->hix) {
		gs_status rc = gs_host_index_build(c->t, &c->hix);

		if (rc)
			return rc;
	}
	return gs_host_ranges_compute(c->hix, iv, n, out);
}

/* The idle time of segment i, if idle: host-bound (with the host calls
 * credited), launch latency or unattributed, by the op that ends it. */
static gs_status attribute_gap(struct breakdown_pass *b, struct gs_breakdown *out, size_t i)
{
	const struct gs_segment *s = &b->seg[i];
	int64_t a = s->start_ns, e = s->end_ns, ls, hb;
	uint32_t call;

	if (s->category != GS_CAT_IDLE)
		return GS_OK;
	call = b->by_ranges ? gap_launch_ranges(b, e, &b->gap_cache_start, &b->gap_cached,
						&b->gap_cache_call) :
			      gap_launch(b, &b->gap_p, e, &b->gap_cache_p, &b->gap_cache_call);
	if (call == GS_NO_INDEX) {
		out->unattributed_ns += e - a;
		return GS_OK;
	}
	ls = b->calls[call].start_ns;
	hb = (ls < e ? ls : e) - a;
	if (hb < 0)
		hb = 0;
	out->host_bound_ns += hb;
	out->launch_latency_ns += (e - a) - hb;
	if (hb > 0) {
		gs_status rc = credit_host_calls(b, call, a, a + hb, i);

		if (!rc)
			rc = gs_vec_grow((void **)&b->hb, &b->cap_hb, b->n_hb + 1, sizeof(*b->hb));
		if (rc)
			return rc;
		b->hb[b->n_hb++] = (struct gs_host_interval){.start_ns = a,
							     .end_ns = a + hb,
							     .pid = b->calls[call].pid,
							     .tid = b->calls[call].tid};
	}
	return GS_OK;
}

/* After the sweep (which attributed the gaps): the host-bound time by
 * host range, and the credited calls ranked. */
static gs_status attribute_finish(struct breakdown_pass *b, struct gs_breakdown *out)
{
	gs_status rc;

	/* The device's ops by start served the gaps' launches only. */
	free(b->dev);
	b->dev = NULL;
	b->n_dev = 0;
	rc = host_ranges(b, out);
	if (rc)
		return rc;
	if (b->n_hc) {
		struct gs_host_call_time *v = malloc(b->n_hc * sizeof(*v));
		struct gs_host_call_time *tmp = malloc(b->n_hc * sizeof(*tmp));

		if (!v || !tmp) {
			free(v);
			free(tmp);
			return gs_nomem();
		}
		for (size_t i = 0; i < b->n_hc; i++)
			v[i] = b->hc[i].h;
		rank_host_calls(v, tmp, b->n_hc, b->t);
		free(tmp);
		out->top_host_calls = v;
		out->n_top_host_calls = b->n_hc;
	}
	return GS_OK;
}

static void breakdown_pass_fini(struct breakdown_pass *b)
{
	free(b->ranges);
	free(b->ev.v);
	free(b->dev);
	/* The name slots go back to GS_NO_INDEX for the next device. */
	for (size_t k = 0; k < b->n_hc; k++) {
		uint32_t name = b->hc[k].h.name;
		size_t n_names = b->cache->n_names;

		b->cache->slot_of_name[name < n_names - 1 ? name : n_names - 1] = GS_NO_INDEX;
	}
	for (size_t k = 0; k < b->n_built; k++) { /* not kept: freed again */
		free(b->cache->pieces[b->built[k]].p);
		b->cache->pieces[b->built[k]] = (struct bd_pieces){0};
	}
	free(b->built);
	if (b->own_cache)
		gs_breakdown_cache_destroy(b->cache);
	free(b->hc);
	free(b->hb);
	free(b->seg);
}

gs_status gs_breakdown_compute(const struct gs_trace *t, uint32_t device,
			       const struct gs_window *win, struct gs_breakdown *out)
{
	return gs_breakdown_compute_cached(t, device, win, NULL, out);
}

gs_status gs_breakdown_compute_cached(const struct gs_trace *t, uint32_t device,
				      const struct gs_window *win, struct gs_breakdown_cache *cache,
				      struct gs_breakdown *out)
{
	struct breakdown_pass b;
	gs_status rc;

	if (!t || !out) {
		gs_error_append("gs_breakdown_compute: no trace or no output");
		return GS_ERR_INVALID;
	}
	memset(out, 0, sizeof(*out));
	out->device = device;
	out->dominant = GS_CAT_IDLE;
	if (win && win->set &&
	    (win->end_ns < win->start_ns ||
	     (uint64_t)win->end_ns - (uint64_t)win->start_ns > (uint64_t)INT64_MAX)) {
		gs_error_append("window %lld:%lld: the end is before the start",
				(long long)win->start_ns, (long long)win->end_ns);
		return GS_ERR_INVALID;
	}
	memset(&b, 0, sizeof(b));
	b.gap_cache_p = SIZE_MAX;
	b.gap_cache_call = GS_NO_INDEX;
	b.t = t;
	b.device = device;
	b.ops = gs_trace_ops(t, &b.n_ops);
	b.calls = gs_trace_api_calls(t, &b.n_calls);
	if (b.n_ops >= UINT32_MAX) {
		gs_error_append("too many ops (%zu)", b.n_ops);
		return GS_ERR_LIMIT;
	}
	b.cache = cache;
	if (!cache) {
		rc = gs_breakdown_cache_create(t, NULL, false, &b.cache);
		if (rc)
			return rc;
		b.own_cache = true;
	}
	rc = gs_device_op_ranges(t, device, &b.ranges, &b.n_ranges);
	if (rc) {
		breakdown_pass_fini(&b);
		return rc;
	}
	rc = collect(&b, win, out);
	if (!rc)
		rc = sweep(&b, out);
	/* The endpoints are swept: their memory goes back before the host
	 * range index (built at the first breakdown that needs it) adds its
	 * own peak. */
	free(b.ev.v);
	b.ev = (struct ev_list){0};
	if (!rc)
		rc = attribute_finish(&b, out);
	if (rc) {
		breakdown_pass_fini(&b);
		gs_breakdown_fini(out);
		return rc;
	}
	out->segments = b.seg;
	out->n_segments = b.n_seg;
	b.seg = NULL;
	breakdown_pass_fini(&b);

	/* Largest total; ties by the order kernel, copy, sync, idle. An empty
	 * window stays idle. */
	if (out->window_ns > 0) {
		unsigned best = 0;

		for (unsigned c = 1; c < GS_CAT_COUNT; c++)
			if (out->total_ns[c] > out->total_ns[best])
				best = c;
		out->dominant = (uint8_t)best;
	}
	return GS_OK;
}

void gs_breakdown_fini(struct gs_breakdown *b)
{
	if (!b)
		return;
	free(b->segments);
	free(b->top_host_calls);
	gs_host_ranges_fini(&b->host_ranges);
	memset(b, 0, sizeof(*b));
}
