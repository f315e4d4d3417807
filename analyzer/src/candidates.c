/* SPDX-License-Identifier: MIT */
/*
 * CUDA Graph candidates (SPEC §4.5, seed 29 Q3): on each stream of a
 * device, a fixed sequence of kernel launches (same name, grid and block),
 * 2 to GS_GC_MAX_LEN kernels long, that occurs at least three times (back
 * to back or not, occurrences never overlapping), whose launch gaps a graph
 * could remove.
 *
 * Per stream, the kernels (those of the window, in stream order) become
 * signature ids (a hash table over name, grid, block). The gap before a
 * kernel is its start minus the end of the op before it on the stream (any
 * kind), when positive, and when it is launch time: not when the kernel's
 * launch call had returned before that op ended (then the device waited on
 * something else, which a graph would not remove); an occurrence covers the gaps before its kernels
 * but the first. For each length L, rolling hashes (two prime moduli) of
 * every window of L kernels are grouped in a hash table; scanning windows
 * in order, each group keeps its occurrences leftmost first (an occurrence
 * starts at or after the end of the group's previous one). The group with the
 * most covered gap time wins (ties: the longer sequence, then the earlier
 * first occurrence); its occurrences are then checked kernel by kernel
 * against the first, so a hash collision cannot produce a wrong answer.
 * Its kernels are set aside and the search runs again, up to
 * GS_GC_ROUNDS candidates per stream. A stream's first GS_GC_MAX_KERNELS
 * kernels are searched.
 *
 * Complexity: O(N) to collect, then per stream of m kernels
 * O(GS_GC_ROUNDS * GS_GC_MAX_LEN * m) time and O(m) memory.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "analyzer_priv.h"
#include "schedule_priv.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define GS_GC_MAX_LEN 32
#define GS_GC_MIN_REPS 3
#define GS_GC_ROUNDS 4
#define GS_GC_MAX_KERNELS (1u << 20)

#define P1 1000000007ull
#define P2 998244353ull
#define B1 911382323ull
#define B2 972663749ull

static gs_status nomem(void)
{
	gs_error_append("out of memory finding CUDA Graph candidates");
	return GS_ERR_NOMEM;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* ---- kernel signatures: (name, grid, block) -> dense id --------------- */

struct sigtab {
	uint32_t *slot; /* op index of the first kernel with that signature */
	uint32_t *id;
	size_t mask;
	uint32_t next;
};

static uint64_t sig_hash(const struct gs_op *op)
{
	uint64_t h = mix64(op->name);

	for (int i = 0; i < 3; i++) {
		h = mix64(h ^ op->grid[i]);
		h = mix64(h ^ ((uint64_t)op->block[i] << 1));
	}
	return h;
}

static bool sig_equal(const struct gs_op *a, const struct gs_op *b)
{
	return a->name == b->name && !memcmp(a->grid, b->grid, sizeof(a->grid)) &&
	       !memcmp(a->block, b->block, sizeof(a->block));
}

static uint32_t sig_of(struct sigtab *st, const struct gs_op *ops, uint32_t i)
{
	size_t h = (size_t)sig_hash(&ops[i]) & st->mask;

	while (st->slot[h] != GS_NO_INDEX) {
		if (sig_equal(&ops[st->slot[h]], &ops[i]))
			return st->id[h];
		h = (h + 1) & st->mask;
	}
	st->slot[h] = i;
	st->id[h] = st->next;
	return st->next++;
}

/* ---- one stream --------------------------------------------------------- */

struct group {
	uint64_t key;
	int64_t gap;
	uint32_t count;
	uint32_t next; /* first window index a new occurrence may start at */
	uint32_t first;
	uint8_t used;
};

struct seq {
	size_t m;
	uint32_t *op;  /* op index per kernel */
	uint32_t *sig; /* signature id + 1 (never 0) */
	int64_t *gap;  /* gap[k]: the gap before kernel k (0 for k = 0) */
	int64_t *gpre; /* gpre[k]: gap[0] + ... + gap[k - 1] */
	uint64_t *h1, *h2;
	uint64_t pw1[GS_GC_MAX_LEN + 1], pw2[GS_GC_MAX_LEN + 1];
	uint32_t *upre; /* upre[k]: kernels set aside among the first k */
	uint8_t *used;
	uint32_t *occ; /* occurrences of the winner */
};

/*
 * The groups of one search: an open-addressing table, all zero between
 * searches, that grows with the number of distinct windows (a handful on
 * the periodic streams of training loops: it stays in cache), and the list
 * of the slots in use. One per thread searching.
 */
struct gtab {
	struct group *g;
	size_t mask;
	uint32_t *touched;
	size_t n_touched;
	bool failed; /* out of memory while growing */
};

static uint64_t window_key(const struct seq *q, size_t j, size_t len)
{
	/* Both sums are below twice the modulus: one subtraction reduces them. */
	uint64_t a = q->h1[j + len] + P1 - q->h1[j] * q->pw1[len] % P1;
	uint64_t b = q->h2[j + len] + P2 - q->h2[j] * q->pw2[len] % P2;

	if (a >= P1)
		a -= P1;
	if (b >= P2)
		b -= P2;
	return a << 32 | b;
}

static int64_t window_gap(const struct seq *q, size_t j, size_t len)
{
	return q->gpre[j + len] - q->gpre[j + 1];
}

static bool window_free(const struct seq *q, size_t j, size_t len)
{
	return q->upre[j + len] == q->upre[j];
}

struct best {
	size_t len;
	uint32_t first;
	int64_t gap;
	uint64_t key;
};

/* The slot of a key: the key is a hash already, a multiply spreads it
 * enough (the slot a group lands in does not change any result). */
static size_t slot_of(uint64_t key, size_t mask)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

/* Double the table, moving the groups in use. */
static bool gtab_grow(struct gtab *t)
{
	size_t mask = 2 * t->mask + 1;
	struct group *ng = calloc(mask + 1, sizeof(*ng));

	if (!ng) {
		t->failed = true;
		return false;
	}
	for (size_t i = 0; i < t->n_touched; i++) {
		const struct group *g = &t->g[t->touched[i]];
		size_t h = slot_of(g->key, mask);

		while (ng[h].used)
			h = (h + 1) & mask;
		ng[h] = *g;
		t->touched[i] = (uint32_t)h;
	}
	free(t->g);
	t->g = ng;
	t->mask = mask;
	return true;
}

/* True when group (gap, len, first) beats the best so far: more gap, then
 * the longer sequence, then the earlier first occurrence. */
static bool beats(int64_t gap, size_t len, uint32_t first, const struct best *b)
{
	return gap > b->gap || (gap == b->gap && len > b->len) ||
	       (gap == b->gap && len == b->len && first < b->first);
}

/*
 * One length: group the free windows by key, counting each group's
 * leftmost non-overlapping occurrences. Only the slots a search used are
 * read back and cleared (a table-wide clear and scan per length cost ten
 * times the search itself on long streams); the winner does not depend on
 * the order groups are looked at, since groups have distinct first windows.
 */
static void search_length(const struct seq *q, struct gtab *t, size_t len, struct best *b)
{
	t->n_touched = 0;
	for (size_t j = 0; j + len <= q->m; j++) {
		uint64_t key;
		size_t h;
		struct group *g;

		if (!window_free(q, j, len))
			continue;
		key = window_key(q, j, len);
		h = slot_of(key, t->mask);
		while (t->g[h].used && t->g[h].key != key)
			h = (h + 1) & t->mask;
		g = &t->g[h];
		if (!g->used) {
			if (2 * (t->n_touched + 1) > t->mask + 1) {
				if (!gtab_grow(t))
					break;
				h = slot_of(key, t->mask);
				while (t->g[h].used)
					h = (h + 1) & t->mask;
				g = &t->g[h];
			}
			g->used = 1;
			g->key = key;
			g->first = (uint32_t)j;
			t->touched[t->n_touched++] = (uint32_t)h;
		}
		if (j < g->next)
			continue;
		g->count++;
		g->gap += window_gap(q, j, len);
		g->next = (uint32_t)(j + len);
	}
	for (size_t i = 0; i < t->n_touched; i++) {
		struct group *g = &t->g[t->touched[i]];

		if (!t->failed && g->count >= GS_GC_MIN_REPS && g->gap > 0 &&
		    beats(g->gap, len, g->first, b)) {
			b->len = len;
			b->first = g->first;
			b->gap = g->gap;
			b->key = g->key;
		}
		memset(g, 0, sizeof(*g));
	}
}

static gs_status gtab_init(struct gtab *t, size_t m)
{
	memset(t, 0, sizeof(*t));
	t->mask = 1023;
	t->g = calloc(t->mask + 1, sizeof(*t->g));
	t->touched = malloc((m + 1) * sizeof(*t->touched));
	return t->g && t->touched ? GS_OK : nomem();
}

static void gtab_fini(struct gtab *t)
{
	free(t->g);
	free(t->touched);
	memset(t, 0, sizeof(*t));
}

/* ---- the lengths of one round, on both cores when the stream is long ---- */

/* Below this many kernels a stream is searched on one thread. */
#define GS_GC_THREAD_MIN (1u << 14)

struct length_job {
	const struct seq *q;
	struct gtab *t;
	size_t lo, hi; /* lengths, inclusive */
	struct best b;
};

static void *run_lengths(void *arg)
{
	struct length_job *j = arg;

	for (size_t len = j->lo; len <= j->hi; len++)
		search_length(j->q, j->t, len, &j->b);
	return NULL;
}

/* CPUs this process may run on (1 when unknown). */
static unsigned cpu_count(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	return (unsigned)CPU_COUNT(&set);
}

/*
 * The best group over lengths 2 .. max_len. With two CPUs and a long stream
 * the lengths are split in two halves searched at once, each with its own
 * table; the better of the two halves' winners is the same winner as one
 * pass over every length gives (beats() is a total order on (gap, len,
 * first) and the halves hold different lengths), so the result never
 * depends on the number of threads.
 */
static gs_status search_round(const struct seq *q, struct gtab *t, size_t max_len, bool threads,
			      struct best *b)
{
	struct length_job lo = {.q = q, .t = &t[0], .lo = 2, .hi = max_len};
	struct length_job hi = {.q = q, .t = &t[1]};
	pthread_t th;
	bool started = false;

	if (threads && max_len >= 3 && t[1].g) {
		lo.hi = (2 + max_len) / 2;
		hi.lo = lo.hi + 1;
		hi.hi = max_len;
		started = pthread_create(&th, NULL, run_lengths, &hi) == 0;
	}
	run_lengths(&lo);
	if (hi.hi) {
		if (started)
			pthread_join(th, NULL);
		else
			run_lengths(&hi);
	}
	if (t[0].failed || t[1].failed)
		return nomem();
	*b = lo.b;
	if (hi.b.len && (!b->len || beats(hi.b.gap, hi.b.len, hi.b.first, b)))
		*b = hi.b;
	return GS_OK;
}

/* The winner's occurrences, checked kernel by kernel. */
static size_t verify(struct seq *q, const struct best *b, int64_t *gap)
{
	size_t n = 0, next = 0;

	*gap = 0;
	for (size_t j = b->first; j + b->len <= q->m; j++) {
		if (j < next || !window_free(q, j, b->len) || window_key(q, j, b->len) != b->key ||
		    memcmp(&q->sig[j], &q->sig[b->first], b->len * sizeof(*q->sig)) != 0)
			continue;
		q->occ[n++] = (uint32_t)j;
		*gap += window_gap(q, j, b->len);
		next = j + b->len;
	}
	return n;
}

struct out_list {
	struct gs_graph_candidate *c;
	size_t n, cap;
};

static gs_status emit(struct out_list *l, const struct seq *q, uint32_t stream,
		      const struct gs_op *ops, const struct best *b, size_t reps, int64_t gap)
{
	struct gs_graph_candidate *c;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct gs_graph_candidate *nc = realloc(l->c, cap * sizeof(*nc));

		if (!nc)
			return nomem();
		l->c = nc;
		l->cap = cap;
	}
	c = &l->c[l->n];
	memset(c, 0, sizeof(*c));
	c->kernels = malloc(b->len * sizeof(*c->kernels));
	if (!c->kernels)
		return nomem();
	l->n++;
	c->stream = stream;
	c->length = b->len;
	c->repetitions = reps;
	c->exposed_launch_ns = gap;
	c->already_graph = true;
	for (size_t k = 0; k < b->len; k++) {
		uint32_t o = q->op[b->first + k];

		c->kernels[k] = o;
		if (!(ops[o].flags & GS_OPF_GRAPH))
			c->already_graph = false;
	}
	return GS_OK;
}

static gs_status search_stream(struct seq *q, struct gtab *t, bool threads, uint32_t stream,
			       const struct gs_op *ops, struct out_list *l)
{
	size_t k, max_len = q->m / GS_GC_MIN_REPS;

	if (max_len > GS_GC_MAX_LEN)
		max_len = GS_GC_MAX_LEN;
	if (max_len < 2)
		return GS_OK;
	q->h1[0] = q->h2[0] = 0;
	q->gpre[0] = 0;
	for (k = 0; k < q->m; k++) {
		q->h1[k + 1] = (q->h1[k] * B1 + q->sig[k]) % P1;
		q->h2[k + 1] = (q->h2[k] * B2 + q->sig[k]) % P2;
		q->gpre[k + 1] = q->gpre[k] + q->gap[k];
		q->used[k] = 0;
	}
	for (int round = 0; round < GS_GC_ROUNDS; round++) {
		struct best b = {0};
		size_t reps;
		int64_t gap;
		gs_status st;

		q->upre[0] = 0;
		for (k = 0; k < q->m; k++)
			q->upre[k + 1] = q->upre[k] + q->used[k];
		st = search_round(q, t, max_len, threads && q->m >= GS_GC_THREAD_MIN, &b);
		if (st)
			return st;
		if (!b.len)
			break;
		reps = verify(q, &b, &gap);
		if (reps < GS_GC_MIN_REPS || gap <= 0)
			break; /* a hash collision fooled the groups: stop here */
		st = emit(l, q, stream, ops, &b, reps, gap);
		if (st)
			return st;
		for (size_t r = 0; r < reps; r++)
			for (k = 0; k < b.len; k++)
				q->used[q->occ[r] + k] = 1;
	}
	return GS_OK;
}

static gs_status seq_init(struct seq *q, size_t m)
{
	q->op = malloc((m + 1) * sizeof(*q->op));
	q->sig = malloc((m + 1) * sizeof(*q->sig));
	q->gap = malloc((m + 1) * sizeof(*q->gap));
	q->gpre = malloc((m + 1) * sizeof(*q->gpre));
	q->h1 = malloc((m + 1) * sizeof(*q->h1));
	q->h2 = malloc((m + 1) * sizeof(*q->h2));
	q->upre = malloc((m + 1) * sizeof(*q->upre));
	q->used = malloc(m + 1);
	q->occ = malloc((m + 1) * sizeof(*q->occ));
	q->pw1[0] = q->pw2[0] = 1;
	for (size_t i = 1; i <= GS_GC_MAX_LEN; i++) {
		q->pw1[i] = q->pw1[i - 1] * B1 % P1;
		q->pw2[i] = q->pw2[i - 1] * B2 % P2;
	}
	if (!q->op || !q->sig || !q->gap || !q->gpre || !q->h1 || !q->h2 || !q->upre || !q->used ||
	    !q->occ)
		return nomem();
	return GS_OK;
}

static void seq_fini(struct seq *q)
{
	free(q->op);
	free(q->sig);
	free(q->gap);
	free(q->gpre);
	free(q->h1);
	free(q->h2);
	free(q->upre);
	free(q->used);
	free(q->occ);
}

static int cmp_candidate(const void *pa, const void *pb)
{
	const struct gs_graph_candidate *a = pa, *b = pb;

	if (a->exposed_launch_ns != b->exposed_launch_ns)
		return a->exposed_launch_ns > b->exposed_launch_ns ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	return a->kernels[0] < b->kernels[0] ? -1 : a->kernels[0] > b->kernels[0];
}

static bool take_kernel(const struct gs_op *op, const struct gs_window *win)
{
	return op->kind == GS_OP_KERNEL &&
	       gs_sched_in_window(op, win && win->set, win ? win->start_ns : 0,
				  win ? win->end_ns : 0);
}

static gs_status candidates_run(const struct gs_trace *t, uint32_t device,
				const struct gs_window *win, struct out_list *l)
{
	size_t n_ops, n_streams, max_m = 0, total = 0, cap = 16;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_stream *streams = gs_trace_streams(t, &n_streams);
	struct sigtab sg = {0};
	struct seq q;
	struct gtab gt[2];
	size_t n_api;
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	struct gs_launch_index ix;
	bool threads;
	gs_status st;

	memset(&q, 0, sizeof(q));
	memset(gt, 0, sizeof(gt));
	/* Launch calls are looked up only for kernels after an idle gap. */
	st = gs_launch_index_init(&ix, t);
	if (st)
		return st;
	for (uint32_t s = 0; s < n_streams; s++) {
		size_t first, count, m = 0;

		if (streams[s].device != device)
			continue;
		gs_trace_stream_ops(t, s, &first, &count);
		for (size_t i = first; i < first + count && i < n_ops; i++)
			m += take_kernel(&ops[i], win);
		if (m > GS_GC_MAX_KERNELS)
			m = GS_GC_MAX_KERNELS;
		total += m;
		if (m > max_m)
			max_m = m;
	}
	if (max_m < (size_t)2 * GS_GC_MIN_REPS) {
		gs_launch_index_fini(&ix);
		return GS_OK;
	}
	while (cap < 2 * total + 2)
		cap *= 2;
	sg.slot = malloc(cap * sizeof(*sg.slot));
	sg.id = malloc(cap * sizeof(*sg.id));
	sg.mask = cap - 1;
	st = sg.slot && sg.id ? seq_init(&q, max_m) : nomem();
	threads = max_m >= GS_GC_THREAD_MIN && cpu_count() >= 2;
	if (!st)
		st = gtab_init(&gt[0], max_m);
	if (!st && threads)
		st = gtab_init(&gt[1], max_m);
	if (st)
		goto out;
	for (size_t i = 0; i < cap; i++)
		sg.slot[i] = GS_NO_INDEX;
	for (uint32_t s = 0; s < n_streams && !st; s++) {
		size_t first, count;

		if (streams[s].device != device)
			continue;
		gs_trace_stream_ops(t, s, &first, &count);
		q.m = 0;
		for (size_t i = first; i < first + count && i < n_ops && q.m < max_m; i++) {
			int64_t g = 0;

			if (!take_kernel(&ops[i], win))
				continue;
			/* A gap is launch time a graph removes unless the kernel's
			 * launch call had returned before the op ahead of it ended
			 * (queued in time: the device waited on something else). */
			if (q.m && i > first && ops[i].start_ns > ops[i - 1].end_ns) {
				uint32_t c = gs_launch_index_find_op(&ix, t, &ops[i]);

				if (c == GS_NO_INDEX || (ops[i].flags & GS_OPF_GRAPH) ||
				    api[c].end_ns > ops[i - 1].end_ns)
					g = ops[i].start_ns - ops[i - 1].end_ns;
			}
			q.op[q.m] = (uint32_t)i;
			q.sig[q.m] = sig_of(&sg, ops, (uint32_t)i) + 1;
			q.gap[q.m++] = g;
		}
		st = search_stream(&q, gt, threads, s, ops, l);
	}
out:
	gs_launch_index_fini(&ix);
	free(sg.slot);
	free(sg.id);
	gtab_fini(&gt[0]);
	gtab_fini(&gt[1]);
	seq_fini(&q);
	return st;
}

gs_status gs_graph_candidates_compute(const struct gs_trace *t, uint32_t device,
				      const struct gs_window *win, struct gs_graph_candidate **out,
				      size_t *n)
{
	struct out_list l = {0};
	gs_status st;

	if (!out || !n) {
		gs_error_append("gs_graph_candidates_compute: no output");
		return GS_ERR_INVALID;
	}
	*out = NULL;
	*n = 0;
	if (!t) {
		gs_error_append("gs_graph_candidates_compute: no trace");
		return GS_ERR_INVALID;
	}
	st = candidates_run(t, device, win, &l);
	if (st) {
		gs_graph_candidates_free(l.c, l.n);
		return st;
	}
	if (l.n)
		gs_sort(l.c, l.n, sizeof(*l.c), cmp_candidate);
	*out = l.c;
	*n = l.n;
	return GS_OK;
}

void gs_graph_candidates_free(struct gs_graph_candidate *c, size_t n)
{
	if (!c)
		return;
	for (size_t i = 0; i < n; i++)
		free(c[i].kernels);
	free(c);
}
