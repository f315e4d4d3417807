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
#include "analyzer_priv.h"
#include "schedule_priv.h"

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
	struct group *tab;
	size_t tab_mask;
	uint32_t *occ; /* occurrences of the winner */
};

static uint64_t window_key(const struct seq *q, size_t j, size_t len)
{
	uint64_t a = (q->h1[j + len] + P1 - q->h1[j] * q->pw1[len] % P1) % P1;
	uint64_t b = (q->h2[j + len] + P2 - q->h2[j] * q->pw2[len] % P2) % P2;

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

static void search_length(struct seq *q, size_t len, struct best *b)
{
	memset(q->tab, 0, (q->tab_mask + 1) * sizeof(*q->tab));
	for (size_t j = 0; j + len <= q->m; j++) {
		uint64_t key;
		size_t h;
		struct group *g;

		if (!window_free(q, j, len))
			continue;
		key = window_key(q, j, len);
		h = (size_t)mix64(key) & q->tab_mask;
		while (q->tab[h].used && q->tab[h].key != key)
			h = (h + 1) & q->tab_mask;
		g = &q->tab[h];
		if (!g->used) {
			g->used = 1;
			g->key = key;
			g->first = (uint32_t)j;
		}
		if (j < g->next)
			continue;
		g->count++;
		g->gap += window_gap(q, j, len);
		g->next = (uint32_t)(j + len);
	}
	for (size_t h = 0; h <= q->tab_mask; h++) {
		const struct group *g = &q->tab[h];

		if (!g->used || g->count < GS_GC_MIN_REPS || g->gap <= 0)
			continue;
		if (g->gap > b->gap || (g->gap == b->gap && len > b->len) ||
		    (g->gap == b->gap && len == b->len && g->first < b->first)) {
			b->len = len;
			b->first = g->first;
			b->gap = g->gap;
			b->key = g->key;
		}
	}
}

/* The winner's occurrences, checked kernel by kernel. */
static size_t verify(struct seq *q, const struct best *b, int64_t *gap)
{
	size_t n = 0, next = 0;

	*gap = 0;
	for (size_t j = b->first; j + b->len <= q->m; j++) {
		if (j < next || !window_free(q, j, b->len) || window_key(q, j, b->len) != b->key ||
		    memcmp(&q->sig[j], &q->sig[b->first], b->len * sizeof(*q->sig)))
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

static gs_status search_stream(struct seq *q, uint32_t stream, const struct gs_op *ops,
			       struct out_list *l)
{
	size_t k, max_len = q->m / GS_GC_MIN_REPS;

	if (max_len > GS_GC_MAX_LEN)
		max_len = GS_GC_MAX_LEN;
	if (max_len < 2)
		return GS_OK;
	/* The table was sized for the longest stream; use what this one needs. */
	q->tab_mask = 15;
	while (q->tab_mask + 1 < 2 * q->m + 2)
		q->tab_mask = 2 * q->tab_mask + 1;
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
		for (size_t len = 2; len <= max_len; len++)
			search_length(q, len, &b);
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
	size_t cap = 16;

	while (cap < 2 * m + 2)
		cap *= 2;
	q->op = malloc((m + 1) * sizeof(*q->op));
	q->sig = malloc((m + 1) * sizeof(*q->sig));
	q->gap = malloc((m + 1) * sizeof(*q->gap));
	q->gpre = malloc((m + 1) * sizeof(*q->gpre));
	q->h1 = malloc((m + 1) * sizeof(*q->h1));
	q->h2 = malloc((m + 1) * sizeof(*q->h2));
	q->upre = malloc((m + 1) * sizeof(*q->upre));
	q->used = malloc(m + 1);
	q->occ = malloc((m + 1) * sizeof(*q->occ));
	q->tab = malloc(cap * sizeof(*q->tab));
	q->tab_mask = cap - 1;
	q->pw1[0] = q->pw2[0] = 1;
	for (size_t i = 1; i <= GS_GC_MAX_LEN; i++) {
		q->pw1[i] = q->pw1[i - 1] * B1 % P1;
		q->pw2[i] = q->pw2[i - 1] * B2 % P2;
	}
	if (!q->op || !q->sig || !q->gap || !q->gpre || !q->h1 || !q->h2 || !q->upre || !q->used ||
	    !q->occ || !q->tab)
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
	free(q->tab);
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
	size_t n_api;
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	uint32_t *launch = NULL;
	gs_status st;

	memset(&q, 0, sizeof(q));
	st = gs_op_launches(t, &launch);
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
	if (max_m < 2 * GS_GC_MIN_REPS) {
		free(launch);
		return GS_OK;
	}
	while (cap < 2 * total + 2)
		cap *= 2;
	sg.slot = malloc(cap * sizeof(*sg.slot));
	sg.id = malloc(cap * sizeof(*sg.id));
	sg.mask = cap - 1;
	st = sg.slot && sg.id ? seq_init(&q, max_m) : nomem();
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
			if (q.m && i > first && ops[i].start_ns > ops[i - 1].end_ns &&
			    (launch[i] == GS_NO_INDEX || (ops[i].flags & GS_OPF_GRAPH) ||
			     api[launch[i]].end_ns > ops[i - 1].end_ns))
				g = ops[i].start_ns - ops[i - 1].end_ns;
			q.op[q.m] = (uint32_t)i;
			q.sig[q.m] = sig_of(&sg, ops, (uint32_t)i) + 1;
			q.gap[q.m++] = g;
		}
		st = search_stream(&q, s, ops, l);
	}
out:
	free(launch);
	free(sg.slot);
	free(sg.id);
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
		qsort(l.c, l.n, sizeof(*l.c), cmp_candidate);
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
