/* SPDX-License-Identifier: MIT */
/*
 * Missed overlap and its three conditions (docs/design.md) over the
 * ops of a schedule (one device, its window).
 *
 * A copy is a missed overlap when it ran exposed although work it does not
 * depend on could have run at the same time. "Could have" is
 * read from the pipelined_batches what-if of the schedule: the copies that
 * it hides, at least in part, under its kernels. A copy that every order
 * leaves exposed (the first input and the last output of a pipeline, a
 * copy that all the work around it depends on) is not one.
 *
 * For each memcpy of the schedule:
 * - exposed_ns: the part of its interval under no kernel of the device
 *   (the union of kernel intervals, merged once, with prefix sums: a binary
 *   search per copy);
 * - hideable_ns: exposed_ns minus its exposed time in the what-if, which
 *   assumes every condition met (pinned memory, the batches independent,
 *   copies beside compute); the copy is reported when it is positive;
 * - kernel: among the GS_MO_NEAR kernels of the set that ended last at or
 *   before its start and the GS_MO_NEAR that started first at or after its
 *   end, by distance (ties: another stream first, then the earlier one),
 *   the nearest one it does not depend on, else the nearest one;
 * - pinned_memory: the host side is pinned (HtoD: source, DtoH:
 *   destination); copies without a host side meet it; an unknown memory
 *   kind meets it and sets the bit in `unverified`;
 * - independent: no dependency path between the copy and the kernel in the
 *   recorded graph. With data edges in the graph, every edge kind but
 *   stream_order counts; else the batch model: every edge counts but
 *   stream_order edges into a batch start (a host-to-device copy after
 *   device work). sync_copy edges from pageable copies never count (they
 *   are the pinned_memory condition's). The search walks in-edges back from
 *   the later of the two, only through ops that started between them, at
 *   most GS_MO_BUDGET ops; past that the condition is unknown (and the bit
 *   is set in `unverified`);
 * - evidence: each condition is met, missing, or unknown (`unknown` bits,
 *   never in `missing`). pinned_memory is unknown when the memory kind is.
 *   independent is met when the search finds no path: with data edges that
 *   is proof; without them a second search over every edge (stream_order
 *   included) must find none either, else only stream order joins the two
 *   (always so on one stream) and the batch model's guess that they are
 *   independent is unknown: the copy is then a possible missed overlap and
 *   hideable_ns an upper bound;
 * - concurrent_resources: the two are on different streams, and the copy
 *   engines of the copy's direction had room during the kernel's recorded
 *   run: the other copies of that direction inside it (an integral of
 *   their count, from sorted endpoints and prefix sums) plus what the copy
 *   needed there (hideable_ns, at most the kernel's duration) fit in
 *   engines x kernel duration;
 * - bound_by: the schedule's constraint on the copy's actual start.
 *
 * Complexity: O(N log N + C * GS_MO_NEAR * GS_MO_BUDGET) for N ops and C
 * copies (sorts, binary searches, bounded path searches for the copies the
 * what-if hides). Memory O(N).
 */
#include <gpuscope/hash.h>
#include "analyzer_priv.h"
#include "schedule_priv.h"

#include <gpuscope/breakdown.h>
#include <gpuscope/conditions.h>
#include <gpuscope/graph.h>
#include <gpuscope/overlap.h>
#include <gpuscope/schedule.h>
#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/vec.h>

#include <stdlib.h>
#include <string.h>

#define GS_MO_NEAR 4                  /* kernels looked at on each side of a copy */
#define GS_MO_BUDGET ((size_t)4096)   /* ops one path search may visit */
#define GS_MO_SEEN (4 * GS_MO_BUDGET) /* slots of the visited set */

const char *gs_condition_name(unsigned bit)
{
	switch (bit) {
	case GS_COND_PINNED_MEMORY:
		return "pinned_memory";
	case GS_COND_INDEPENDENT:
		return "independent";
	case GS_COND_CONCURRENT_RESOURCES:
		return "concurrent_resources";
	default:
		return "unknown";
	}
}

/* ---- union of intervals with prefix sums ------------------------------ */

struct ivl {
	int64_t s;
	int64_t e;
};

struct cover {
	struct ivl *iv; /* disjoint, sorted */
	int64_t *pre;   /* pre[i]: total length of iv[0 .. i) */
	size_t n, cap;
};

/* Adds the non-empty [s, e) to a union whose intervals come by start:
 * intervals starting together merge into the same union whatever their
 * order. */
static gs_status cover_add(struct cover *c, int64_t s, int64_t e)
{
	if (c->n && s <= c->iv[c->n - 1].e) {
		if (e > c->iv[c->n - 1].e)
			c->iv[c->n - 1].e = e;
		return GS_OK;
	}
	if (c->n == c->cap &&
	    gs_vec_grow((void **)&c->iv, &c->cap, c->n + 1, sizeof(*c->iv)) != GS_OK)
		return GS_ERR_NOMEM;
	c->iv[c->n++] = (struct ivl){s, e};
	return GS_OK;
}

/* The prefix sums, once every interval is in. */
static gs_status cover_sums(struct cover *c)
{
	c->pre = malloc((c->n + 1) * sizeof(*c->pre));
	if (!c->pre)
		return gs_nomem();
	c->pre[0] = 0;
	for (size_t i = 0; i < c->n; i++)
		c->pre[i + 1] = c->pre[i] + (c->iv[i].e - c->iv[i].s);
	return GS_OK;
}

/* Takes ownership of iv (n entries, any order, empty ones allowed). */
static gs_status cover_build(struct cover *c, struct ivl *iv, size_t n)
{
	size_t m = 0, i;

	/* By start only: intervals starting together merge into the same
	 * union whatever their order. */
	gs_sort_by_i64(iv, n, sizeof(*iv));
	for (i = 0; i < n; i++) {
		if (iv[i].e <= iv[i].s)
			continue;
		if (m && iv[i].s <= iv[m - 1].e) {
			if (iv[i].e > iv[m - 1].e)
				iv[m - 1].e = iv[i].e;
		} else {
			iv[m++] = iv[i];
		}
	}
	c->iv = iv;
	c->n = m;
	c->cap = n;
	return cover_sums(c);
}

/* Covered length in (-inf, x). */
static int64_t cover_upto(const struct cover *c, int64_t x)
{
	/* the first interval starting at or after x */
	size_t lo = gs_lower_bound_i64_at(c->iv, c->n, sizeof(*c->iv), offsetof(struct ivl, s), x);

	if (lo && c->iv[lo - 1].e > x)
		return c->pre[lo - 1] + (x - c->iv[lo - 1].s);
	return c->pre[lo];
}

static int64_t cover_len(const struct cover *c, int64_t a, int64_t b)
{
	return b > a ? cover_upto(c, b) - cover_upto(c, a) : 0;
}

static void cover_fini(struct cover *c)
{
	free(c->iv);
	free(c->pre);
}

/* ---- busy copy-engine time per direction ------------------------------ */

/*
 * For the copies of one direction, sorted starts and ends with prefix sums
 * (unsigned, modulo 2^64: the differences taken are exact as long as the
 * true result fits). busy(a, b) = sum over copies of |copy ∩ [a, b)|.
 */
struct busy {
	int64_t *st, *en;
	uint64_t *pst, *pen;
	size_t first[GS_COPY_KIND_COUNT + 1];
};

/* Number of values < x in v[0 .. n). */
static size_t count_below(const int64_t *v, size_t n, int64_t x)
{
	return gs_lower_bound_i64(v, n, x);
}

/* Integral of the number of running copies over (-inf, x). */
static uint64_t busy_upto(const struct busy *b, unsigned d, int64_t x)
{
	size_t f = b->first[d], n = b->first[d + 1] - f;
	size_t ks = count_below(b->st + f, n, x), ke = count_below(b->en + f, n, x);
	uint64_t ux = (uint64_t)x;

	return (ks * ux - (b->pst[f + ks] - b->pst[f])) - (ke * ux - (b->pen[f + ke] - b->pen[f]));
}

static uint64_t busy_len(const struct busy *b, unsigned d, int64_t a, int64_t c)
{
	return busy_upto(b, d, c) - busy_upto(b, d, a);
}

static void busy_fini(struct busy *b)
{
	free(b->st);
	free(b->en);
	free(b->pst);
	free(b->pen);
}

/* ---- the context ------------------------------------------------------- */

/* A kernel of the set by its end (by_end). */
struct kref {
	int64_t t;
	uint32_t op;
};

/* One device's missed-overlap search while it runs: the device's ops,
 * its kernels' covers, the set's kernels and copies, and the visited set
 * of one search. */
struct overlap_pass {
	const struct gs_trace *t;
	const struct gs_graph *g;
	const struct gs_schedule *s;
	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_stream *streams;
	size_t n_streams;
	struct gs_op_range *ranges; /* the ops of the schedule's device */
	size_t n_ranges;

	struct cover kernels; /* every kernel of the device */
	struct cover whatif;  /* kernels of the set in the what-if schedule */
	struct busy busy;
	/* The kernels of the set (op indices) by end and by start: the times
	 * are the ops' own, read through the index. */
	uint32_t *by_end, *by_start;
	size_t n_kernels;
	uint32_t *copies; /* memcpys of the set, in op order */
	size_t n_copies;

	/* The ops one search visited: a hash set of op indices that a new
	 * generation empties (a search visits at most GS_MO_BUDGET + 1), so a
	 * device costs no array over every op of the trace. */
	uint32_t *seen_op;
	uint32_t *seen_gen;
	uint32_t gen;
	uint32_t *queue;
};

/* Each op of the schedule's device, in op order (r, i: size_t). */
#define FOR_DEVICE_OP(m, r, i)                                                                     \
	for ((r) = 0; (r) < (m)->n_ranges; (r)++)                                                  \
		for ((i) = (m)->ranges[r].first;                                                   \
		     (i) < (m)->ranges[r].first + (m)->ranges[r].count; (i)++)

static unsigned copy_dir(const struct gs_op *op)
{
	return op->copy_kind < GS_COPY_KIND_COUNT ? op->copy_kind : GS_COPY_UNKNOWN;
}

/* An op of the device in the schedule's set (its window). */
static bool in_set(const struct overlap_pass *m, const struct gs_op *op)
{
	return gs_sched_in_window(op, m->s->window_set, m->s->window_start, m->s->window_end);
}

/* A kernel of the set, of positive length: the kernels every list holds. */
static bool set_kernel(const struct overlap_pass *m, const struct gs_op *op)
{
	return op->kind == GS_OP_KERNEL && op->end_ns > op->start_ns && in_set(m, op);
}

/* The next kernel (of positive length) of range r at or after op i (the
 * range's end when none). */
static size_t next_kernel(const struct overlap_pass *m, size_t r, size_t i)
{
	size_t end = m->ranges[r].first + m->ranges[r].count;

	while (i < end &&
	       (m->ops[i].kind != GS_OP_KERNEL || m->ops[i].end_ns <= m->ops[i].start_ns))
		i++;
	return i;
}

/* Set kernel i as it runs in the what-if (gs_schedule_pipelined_start,
 * the slot found from *hint). */
static struct ivl whatif_of(const struct overlap_pass *m, size_t i, size_t *hint)
{
	uint32_t k = gs_sched_slot_near(m->s, (uint32_t)i, hint);
	int64_t ps = k == GS_NO_INDEX ? 0 : m->s->slot_pipelined_start[k];

	return (struct ivl){ps, ps + gs_schedule_op_ns(&m->ops[i])};
}

/* ---- the kernels by start: the two covers and by_start, merged -------- */

/* A range's next kernel, by its start. */
struct start_run {
	int64_t t;
	size_t op;
	size_t r;
	size_t hint; /* the range's own: its kernels take no slot search */
};

/* By start, then by the range: a stable sort's order of the list built
 * range by range in op order (a range's kernels come one at a time, in
 * that order). */
static bool start_before(const void *pa, const void *pb)
{
	const struct start_run *a = pa, *b = pb;

	return a->t != b->t ? a->t < b->t : a->r < b->r;
}

static void start_down(struct start_run *h, size_t n, size_t i)
{
	gs_heap_sift_down(h, n, i, sizeof(*h), start_before);
}

/*
 * One merge of the device's kernels by start fills three tables. A
 * stream's ops are in start order, so a heap of streams by the start of
 * their next kernel gives them all in start order, with no array of every
 * kernel and no sort:
 * - the cover of every kernel of the device, merged into as they come;
 * - by_start, the set's kernels in that order;
 * - the cover of the set's kernels in the what-if, merged into as they
 *   come while their what-if starts do not go back. In a consistent trace
 *   they do not: the schedule places kernels in (recorded start, op)
 *   order, every kernel of positive length holds a share, and
 *   gs_sched_kernel_place starts those in the order it places them. A
 *   schedule whose order left the recorded one (an edge back in time)
 *   may step back: *whatif_merged is then false, the what-if's cover
 *   empty, for the caller to sort.
 */
static gs_status start_merge(struct overlap_pass *m, bool *whatif_merged)
{
	struct start_run *h;
	size_t n = 0, k = 0;
	int64_t last = INT64_MIN;
	gs_status st = GS_OK;

	*whatif_merged = true;
	h = malloc((m->n_ranges + 1) * sizeof(*h));
	if (!h)
		return gs_nomem();
	for (size_t r = 0; r < m->n_ranges; r++) {
		size_t i = next_kernel(m, r, m->ranges[r].first);

		if (i < m->ranges[r].first + m->ranges[r].count)
			h[n++] = (struct start_run){.t = m->ops[i].start_ns, .op = i, .r = r};
	}
	for (size_t i = n / 2; i-- > 0;)
		start_down(h, n, i);
	while (n && !st) {
		const struct gs_op *op = &m->ops[h[0].op];
		size_t r = h[0].r, i;

		st = cover_add(&m->kernels, op->start_ns, op->end_ns);
		if (in_set(m, op)) {
			m->by_start[k++] = (uint32_t)h[0].op;
			if (*whatif_merged) {
				struct ivl w = whatif_of(m, h[0].op, &h[0].hint);

				*whatif_merged = w.s >= last;
				last = w.s;
				if (*whatif_merged && !st)
					st = cover_add(&m->whatif, w.s, w.e);
			}
		}
		i = next_kernel(m, r, h[0].op + 1);
		if (i < m->ranges[r].first + m->ranges[r].count) {
			h[0].t = m->ops[i].start_ns;
			h[0].op = i;
		} else {
			h[0] = h[--n];
		}
		start_down(h, n, 0);
	}
	free(h);
	if (!st)
		st = cover_sums(&m->kernels);
	if (!*whatif_merged) {
		free(m->whatif.iv);
		memset(&m->whatif, 0, sizeof(m->whatif));
	} else if (!st) {
		st = cover_sums(&m->whatif);
	}
	return st;
}

/* The what-if's cover when its starts went back: every interval written
 * out and sorted. */
static gs_status whatif_sorted(struct overlap_pass *m)
{
	struct ivl *iv = malloc((m->n_kernels + 1) * sizeof(*iv));
	size_t n = 0, r, i, hint = 0;

	if (!iv)
		return gs_nomem();
	FOR_DEVICE_OP(m, r, i)
	{
		if (set_kernel(m, &m->ops[i]))
			iv[n++] = whatif_of(m, i, &hint);
	}
	return cover_build(&m->whatif, iv, n);
}

/* ---- the set's kernels by end, merged ---------------------------------- */

/* The next kernel of the set (of positive length) of range r at or after
 * op i (the range's end when none). */
static size_t next_set_kernel(const struct overlap_pass *m, size_t r, size_t i)
{
	size_t end = m->ranges[r].first + m->ranges[r].count;

	for (i = next_kernel(m, r, i); i < end && !in_set(m, &m->ops[i]);)
		i = next_kernel(m, r, i + 1);
	return i;
}

struct kref_run {
	struct kref next; /* the run's next kernel */
	size_t r;
};

/* By time, then by the run: the op-order list's order among equal times
 * (a run's kernels come one at a time, in that order). */
static bool kref_before(const void *pa, const void *pb)
{
	const struct kref_run *a = pa, *b = pb;

	return a->next.t != b->next.t ? a->next.t < b->next.t : a->r < b->r;
}

static void kref_down(struct kref_run *h, size_t n, size_t i)
{
	gs_heap_sift_down(h, n, i, sizeof(*h), kref_before);
}

static struct kref kref_of(const struct overlap_pass *m, size_t i)
{
	return (struct kref){m->ops[i].end_ns, (uint32_t)i};
}

/*
 * by_end (m->n_kernels entries): the set's kernels by end, what a stable
 * sort by end of the list built range by range in op order gives. Each
 * stream's kernels come in op order, and their ends in order too unless
 * one overlaps the next, so a heap of one entry a stream merges them with
 * no copy to sort in. *merged false (by_end partly written) when some
 * stream's ends go back: the merged ends then step back somewhere.
 */
static gs_status end_merge(const struct overlap_pass *m, bool *merged)
{
	struct kref_run *h;
	size_t n = 0, k = 0;
	int64_t last = INT64_MIN;

	*merged = false;
	h = malloc((m->n_ranges + 1) * sizeof(*h));
	if (!h)
		return gs_nomem();
	for (size_t r = 0; r < m->n_ranges; r++) {
		size_t i = next_set_kernel(m, r, m->ranges[r].first);

		if (i < m->ranges[r].first + m->ranges[r].count)
			h[n++] = (struct kref_run){kref_of(m, i), r};
	}
	for (size_t i = n / 2; i-- > 0;)
		kref_down(h, n, i);
	while (n && k < m->n_kernels) {
		size_t r = h[0].r, i;

		/* A run whose ends go back shows as a step back here. */
		if (h[0].next.t < last)
			break;
		last = h[0].next.t;
		m->by_end[k++] = h[0].next.op;
		i = next_set_kernel(m, r, (size_t)h[0].next.op + 1);
		if (i < m->ranges[r].first + m->ranges[r].count)
			h[0].next = kref_of(m, i);
		else
			h[0] = h[--n];
		kref_down(h, n, 0);
	}
	free(h);
	*merged = k == m->n_kernels && !n;
	return GS_OK;
}

/* by_end when some stream's ends go back: built in op order and sorted,
 * by end alone is by (end, op). */
static gs_status end_sorted(struct overlap_pass *m)
{
	struct kref *sorted = malloc((m->n_kernels + 1) * sizeof(*sorted));
	size_t n = 0, r, i;

	if (!sorted)
		return gs_nomem();
	FOR_DEVICE_OP(m, r, i)
	{
		if (set_kernel(m, &m->ops[i]))
			sorted[n++] = kref_of(m, i);
	}
	gs_sort_by_i64(sorted, n, sizeof(*sorted));
	for (size_t k = 0; k < n; k++)
		m->by_end[k] = sorted[k].op;
	free(sorted);
	return GS_OK;
}

/* ---- the tables -------------------------------------------------------- */

/*
 * The copies' sorted endpoints per direction: one pass to count (the
 * set's kernels too), one to fill (each op of the device read twice, not
 * once per table); then the kernels by start with their covers, and by
 * end.
 */
static gs_status build_tables(struct overlap_pass *m)
{
	struct busy *b = &m->busy;
	size_t n = 0, r, i;
	size_t count[GS_COPY_KIND_COUNT] = {0}, fill[GS_COPY_KIND_COUNT];
	bool merged = false;
	gs_status st;

	FOR_DEVICE_OP(m, r, i)
	{
		const struct gs_op *op = &m->ops[i];

		if (op->kind == GS_OP_KERNEL) {
			m->n_kernels += set_kernel(m, op);
		} else if (op->kind == GS_OP_MEMCPY && in_set(m, op)) {
			m->n_copies++;
			if (op->end_ns > op->start_ns)
				count[copy_dir(op)]++;
		}
	}
	for (unsigned d = 0; d < GS_COPY_KIND_COUNT; d++) {
		b->first[d] = fill[d] = n;
		n += count[d];
	}
	b->first[GS_COPY_KIND_COUNT] = n;
	m->by_end = malloc((m->n_kernels + 1) * sizeof(*m->by_end));
	m->by_start = malloc((m->n_kernels + 1) * sizeof(*m->by_start));
	m->copies = malloc((m->n_copies + 1) * sizeof(*m->copies));
	b->st = malloc((n + 1) * sizeof(*b->st));
	b->en = malloc((n + 1) * sizeof(*b->en));
	b->pst = malloc((n + 1) * sizeof(*b->pst));
	b->pen = malloc((n + 1) * sizeof(*b->pen));
	if (!m->by_end || !m->by_start || !m->copies || !b->st || !b->en || !b->pst || !b->pen)
		return gs_nomem();
	m->n_copies = 0;
	FOR_DEVICE_OP(m, r, i)
	{
		const struct gs_op *op = &m->ops[i];

		if (op->kind == GS_OP_MEMCPY && in_set(m, op)) {
			m->copies[m->n_copies++] = (uint32_t)i;
			if (op->end_ns > op->start_ns) {
				unsigned d = copy_dir(op);

				b->st[fill[d]] = op->start_ns;
				b->en[fill[d]++] = op->end_ns;
			}
		}
	}
	for (unsigned d = 0; d < GS_COPY_KIND_COUNT; d++) {
		size_t f = b->first[d], c = b->first[d + 1] - f;

		gs_sort_by_i64(b->st + f, c, sizeof(*b->st));
		gs_sort_by_i64(b->en + f, c, sizeof(*b->en));
	}
	/* pst[f + k] - pst[f]: sum of the first k starts of the direction. */
	b->pst[0] = b->pen[0] = 0;
	for (i = 0; i < n; i++) {
		b->pst[i + 1] = b->pst[i] + (uint64_t)b->st[i];
		b->pen[i + 1] = b->pen[i] + (uint64_t)b->en[i];
	}
	st = start_merge(m, &merged);
	if (!st && !merged)
		st = whatif_sorted(m);
	if (!st)
		st = end_merge(m, &merged);
	if (!st && !merged)
		st = end_sorted(m);
	return st;
}

/* ---- independence ------------------------------------------------------ */

/* `full`: every edge counts (stream order included), for the evidence. */
static bool edge_counts(const struct overlap_pass *m, const struct gs_edge *e, bool full)
{
	if (gs_sched_pageable_sync(m->ops, e))
		return false;
	if (full)
		return true;
	if (m->g->has_data_edges)
		return e->kind != GS_EDGE_STREAM_ORDER;
	return !(e->kind == GS_EDGE_STREAM_ORDER && gs_sched_batch_start(m->ops, e->to));
}

/* Mark op `op` visited by this search; false when it was already. */
static bool visit(struct overlap_pass *m, uint32_t op)
{
	size_t i = (size_t)gs_hash_u64(op) & (GS_MO_SEEN - 1);

	while (m->seen_gen[i] == m->gen) {
		if (m->seen_op[i] == op)
			return false;
		i = (i + 1) & (GS_MO_SEEN - 1);
	}
	m->seen_gen[i] = m->gen;
	m->seen_op[i] = op;
	return true;
}

/* 1: a path from `early` to `late` exists; 0: none; -1: search cut short. */
static int depends_in(struct overlap_pass *m, uint32_t late, uint32_t early, bool full)
{
	int64_t lo = m->ops[early].start_ns, hi = m->ops[late].start_ns;
	size_t head = 0, tail = 0;

	if (++m->gen == 0) {
		memset(m->seen_gen, 0, GS_MO_SEEN * sizeof(*m->seen_gen));
		m->gen = 1;
	}
	visit(m, late);
	m->queue[tail++] = late;
	while (head < tail) {
		uint32_t u = m->queue[head++];
		size_t a = m->g->in_first[u], z = m->g->in_first[u + 1];

		if (z > m->g->n_edges)
			z = m->g->n_edges;
		for (size_t i = a; i < z; i++) {
			const struct gs_edge *e = &m->g->edges[i];
			uint32_t f = e->from;

			if (f >= m->n_ops || !edge_counts(m, e, full))
				continue;
			if (f == early)
				return 1;
			if (m->ops[f].start_ns < lo || m->ops[f].start_ns > hi || !visit(m, f))
				continue;
			if (tail == GS_MO_BUDGET)
				return -1;
			m->queue[tail++] = f;
		}
	}
	return 0;
}

static int depends(struct overlap_pass *m, uint32_t late, uint32_t early)
{
	return depends_in(m, late, early, false);
}

/* ---- one copy ---------------------------------------------------------- */

struct cand {
	int64_t dist;
	uint32_t op;
	uint8_t same_stream;
	uint8_t after;
};

static int cmp_cand(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	if (a->same_stream != b->same_stream)
		return a->same_stream < b->same_stream ? -1 : 1;
	if (a->after != b->after)
		return a->after < b->after ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

/* What kernel_before compares: the kernels ops[v[i]], by end or start. */
struct kernel_key {
	const struct gs_op *ops;
	const uint32_t *v;
	bool end, upto;
	int64_t x;
};

/* Kernel i's time is below x, or at most x (`upto`). */
static bool kernel_before(const void *ctx, size_t i)
{
	const struct kernel_key *k = ctx;
	int64_t t = k->end ? k->ops[k->v[i]].end_ns : k->ops[k->v[i]].start_ns;

	return k->upto ? t <= k->x : t < k->x;
}

/* The GS_MO_NEAR kernels that ended last at or before the copy's start and
 * the GS_MO_NEAR that started first at or after its end, nearest first. */
/* How many of the list's kernels (by end: `end`, else by start) have a
 * time below x, or at most x (`upto`): a search. */
static size_t kernels_upto(const struct overlap_pass *m, const uint32_t *v, bool end, int64_t x,
			   bool upto)
{
	struct kernel_key key = {.ops = m->ops, .v = v, .end = end, .upto = upto, .x = x};

	return gs_partition_point(m->n_kernels, kernel_before, &key);
}

static size_t near_kernels(const struct overlap_pass *m, const struct gs_op *c, struct cand *out)
{
	size_t n = 0, lo, i, k;

	lo = kernels_upto(m, m->by_end, true, c->start_ns, true);
	for (k = 0, i = lo; i > 0 && k < GS_MO_NEAR; i--, k++) {
		uint32_t op = m->by_end[i - 1];

		out[n++] = (struct cand){.dist = c->start_ns - m->ops[op].end_ns,
					 .op = op,
					 .same_stream = m->ops[op].stream == c->stream,
					 .after = 0};
	}
	lo = kernels_upto(m, m->by_start, false, c->end_ns, false);
	for (k = 0, i = lo; i < m->n_kernels && k < GS_MO_NEAR; i++, k++) {
		uint32_t op = m->by_start[i];

		out[n++] = (struct cand){.dist = m->ops[op].start_ns - c->end_ns,
					 .op = op,
					 .same_stream = m->ops[op].stream == c->stream,
					 .after = 1};
	}
	gs_sort(out, n, sizeof(*out), cmp_cand);
	return n;
}

static bool engines_free(const struct overlap_pass *m, const struct gs_op *c, const struct gs_op *k,
			 int64_t need)
{
	unsigned d = copy_dir(c);
	int64_t kdur = gs_schedule_op_ns(k);
	uint64_t engines = m->s->copy_engines[d] ? m->s->copy_engines[d] : 1;
	uint64_t busy = busy_len(&m->busy, d, k->start_ns, k->end_ns);
	int64_t own_lo = c->start_ns > k->start_ns ? c->start_ns : k->start_ns;
	int64_t own_hi = c->end_ns < k->end_ns ? c->end_ns : k->end_ns;

	if (own_hi > own_lo) /* the copy itself is not "another" copy */
		busy -= (uint64_t)(own_hi - own_lo);
	if (kdur <= 0 || engines > (uint64_t)INT64_MAX / (uint64_t)kdur)
		return true;
	return busy + (uint64_t)need <= engines * (uint64_t)kdur;
}

/* Fills r; returns false when the copy is not a missed overlap. */
static bool examine_copy(struct overlap_pass *m, uint32_t ci, struct gs_missed_overlap *r)
{
	const struct gs_op *c = &m->ops[ci], *k;
	int64_t dur = gs_schedule_op_ns(c), ps = gs_schedule_pipelined_start(m->s, ci), exposed,
		hideable, need;
	struct cand cands[2 * GS_MO_NEAR];
	size_t n, i, pick = 0;
	int dep = 1, first_dep = 1, pick_after = 0;
	uint8_t mem;

	exposed = dur - cover_len(&m->kernels, c->start_ns, c->end_ns);
	if (exposed <= 0)
		return false;
	hideable = exposed - (dur - cover_len(&m->whatif, ps, ps + dur));
	if (hideable <= 0)
		return false;
	n = near_kernels(m, c, cands);
	if (!n)
		return false;
	/* The nearest kernel it does not depend on, else the nearest. */
	for (i = 0; i < n; i++) {
		dep = cands[i].after ? depends(m, cands[i].op, ci) : depends(m, ci, cands[i].op);
		if (i == 0)
			first_dep = dep;
		if (dep == 0) {
			pick = i;
			break;
		}
	}
	pick_after = cands[pick].after;
	if (dep != 0)
		dep = first_dep;
	k = &m->ops[cands[pick].op];
	memset(r, 0, sizeof(*r));
	r->op = ci;
	r->kernel = cands[pick].op;
	r->exposed_ns = exposed;
	r->hideable_ns = hideable;
	r->bound_by = gs_schedule_bound_by(m->s, ci);

	mem = gs_sched_host_mem(c);
	if (mem == GS_MEM_PAGEABLE) {
		r->missing |= GS_COND_PINNED_MEMORY;
	} else if (mem == GS_MEM_UNKNOWN) {
		r->unverified |= GS_COND_PINNED_MEMORY;
		r->unknown |= GS_COND_PINNED_MEMORY;
	}
	if (dep < 0) {
		r->unverified |= GS_COND_INDEPENDENT;
		r->unknown |= GS_COND_INDEPENDENT;
	} else if (dep > 0) {
		r->missing |= GS_COND_INDEPENDENT;
	} else if (!m->g->has_data_edges) {
		/* No data recorded: met only with no path at all. */
		int full = pick_after ? depends_in(m, r->kernel, ci, true) :
					depends_in(m, ci, r->kernel, true);

		if (full != 0)
			r->unknown |= GS_COND_INDEPENDENT;
		if (full < 0)
			r->unverified |= GS_COND_INDEPENDENT;
	}
	need = hideable < gs_schedule_op_ns(k) ? hideable : gs_schedule_op_ns(k);
	if (k->stream == c->stream || !engines_free(m, c, k, need))
		r->missing |= GS_COND_CONCURRENT_RESOURCES;
	return true;
}

static int cmp_missed(const void *pa, const void *pb)
{
	const struct gs_missed_overlap *a = pa, *b = pb;

	if (a->exposed_ns != b->exposed_ns)
		return a->exposed_ns > b->exposed_ns ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

static gs_status run(struct overlap_pass *m, struct gs_missed_overlap **out, size_t *n)
{
	const struct gs_schedule *s = m->s;
	size_t i;
	gs_status st;

	st = gs_device_op_ranges(m->t, s->device, &m->ranges, &m->n_ranges);
	if (st)
		return st;
	st = build_tables(m);
	if (st)
		return st;
	m->seen_op = malloc(GS_MO_SEEN * sizeof(*m->seen_op));
	m->seen_gen = calloc(GS_MO_SEEN, sizeof(*m->seen_gen));
	m->queue = malloc(GS_MO_BUDGET * sizeof(*m->queue));
	*out = malloc((m->n_copies + 1) * sizeof(**out));
	if (!m->seen_op || !m->seen_gen || !m->queue || !*out)
		return gs_nomem();
	for (i = 0; i < m->n_copies; i++)
		if (examine_copy(m, m->copies[i], &(*out)[*n]))
			(*n)++;
	gs_sort(*out, *n, sizeof(**out), cmp_missed);
	return GS_OK;
}

gs_status gs_missed_overlap_compute(const struct gs_trace *t, const struct gs_graph *g,
				    const struct gs_schedule *s, const struct gs_breakdown *b,
				    struct gs_missed_overlap **out, size_t *n)
{
	struct overlap_pass m;
	gs_status st;

	if (!out || !n) {
		gs_error_append("gs_missed_overlap_compute: no output");
		return GS_ERR_INVALID;
	}
	*out = NULL;
	*n = 0;
	if (!t || !g || !s) {
		gs_error_append("gs_missed_overlap_compute: no trace, graph or schedule");
		return GS_ERR_INVALID;
	}
	memset(&m, 0, sizeof(m));
	m.t = t;
	m.g = g;
	m.s = s;
	m.ops = gs_trace_ops(t, &m.n_ops);
	m.streams = gs_trace_streams(t, &m.n_streams);
	if (g->n_ops != m.n_ops || !g->in_first || (g->n_edges && !g->edges) ||
	    s->n_ops != m.n_ops || (s->n_slots && !s->slot_pipelined_start)) {
		gs_error_append("missed overlap: the graph or schedule does not match the trace");
		return GS_ERR_INVALID;
	}
	if (b && b->device != s->device) {
		gs_error_append("missed overlap: breakdown of device %u, schedule of device %u",
				b->device, s->device);
		return GS_ERR_INVALID;
	}
	st = run(&m, out, n);
	free(m.ranges);
	cover_fini(&m.kernels);
	cover_fini(&m.whatif);
	busy_fini(&m.busy);
	free(m.by_end);
	free(m.by_start);
	free(m.copies);
	free(m.seen_op);
	free(m.seen_gen);
	free(m.queue);
	if (st) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return st;
}
