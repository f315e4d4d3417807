/* SPDX-License-Identifier: MIT */
/*
 * CUDA Graph candidates: on each stream of a
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
 * something else, which a graph would not remove); an occurrence covers the
 * gaps before its kernels but the first. No occurrence spans a gap over
 * GS_CUDAGRAPH_MAX_GAP_NS (not launch overhead) or holds a communication
 * kernel (NCCL / RCCL: its time includes waiting for other ranks): these
 * are breaks, and a window with a break inside leaves the search as a
 * window with a kernel set aside does. For each length L, the windows of L
 * kernels are grouped by their kernels (exactly: see "Groups" below);
 * scanning windows in order, each group keeps its occurrences leftmost
 * first (an occurrence starts at or after the end of the group's previous
 * one). The group with
 * the most covered gap time wins (ties: the longer sequence, then the
 * earlier first occurrence). Its kernels are set aside and the search runs
 * again, up to GS_GC_ROUNDS candidates per stream. A stream's first
 * GS_GC_MAX_KERNELS kernels are searched.
 *
 * Complexity: O(N) to collect, then per stream of m kernels
 * O(GS_GC_ROUNDS * GS_GC_MAX_LEN * m) time (a table look-up per window and
 * length; much less where little repeats) and O(m) memory.
 */
#include <gpuscope/cudagraph.h>
#include <gpuscope/hash.h>
#include <gpuscope/measures.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/window.h>
#include <gpuscope/workers.h>

#include "analyzer_priv.h"
#include "schedule_priv.h"

#include <stdlib.h>
#include <string.h>

#define GS_GC_MAX_LEN 32
#define GS_GC_MIN_REPS 3
#define GS_GC_ROUNDS 4
#define GS_GC_MAX_KERNELS (1u << 20)

/* ---- kernel signatures: (name, grid, block) -> dense id --------------- */

struct sigtab {
	const struct gs_trace *t; /* whose launch configurations give grid and block */
	uint32_t *slot;           /* op index of the first kernel with that signature */
	uint32_t *id;
	uint8_t *comm; /* per signature id: a communication kernel's name */
	size_t mask;
	uint32_t next;
};

/* Any hash will do: ids are handed out in order of first sight, and
 * sig_equal decides. */
static const struct gs_launch_cfg *sig_launch(const struct sigtab *st, const struct gs_op *op)
{
	static const struct gs_launch_cfg none;
	const struct gs_launch_cfg *lc = gs_trace_op_launch_cfg(st->t, op);

	return lc ? lc : &none;
}

static uint64_t sig_hash(const struct sigtab *st, const struct gs_op *op)
{
	const struct gs_launch_cfg *lc = sig_launch(st, op);
	uint64_t h = gs_hash_u64(op->name);

	for (int i = 0; i < 3; i++)
		h = gs_hash_combine(gs_hash_combine(h, lc->grid[i]), lc->block[i]);
	return h;
}

static bool sig_equal(const struct sigtab *st, const struct gs_op *a, const struct gs_op *b)
{
	const struct gs_launch_cfg *la = sig_launch(st, a), *lb = sig_launch(st, b);

	return a->name == b->name && memcmp(la->grid, lb->grid, sizeof(la->grid)) == 0 &&
	       memcmp(la->block, lb->block, sizeof(la->block)) == 0;
}

static uint32_t sig_of(struct sigtab *st, const struct gs_op *ops, uint32_t i)
{
	size_t h = (size_t)sig_hash(st, &ops[i]) & st->mask;

	while (st->slot[h] != GS_NO_INDEX) {
		if (sig_equal(st, &ops[st->slot[h]], &ops[i]))
			return st->id[h];
		h = (h + 1) & st->mask;
	}
	st->slot[h] = i;
	st->id[h] = st->next;
	st->comm[st->next] = gs_kernel_class_of_name(gs_trace_string(st->t, ops[i].name)) ==
			     GS_KCLASS_COMMUNICATION;
	return st->next++;
}

/* ---- one stream --------------------------------------------------------- */

struct seq {
	size_t m;
	uint32_t *op;   /* op index per kernel */
	uint32_t *sig;  /* signature id + 1 (never 0) */
	int64_t *gap;   /* gap[k]: the gap before kernel k (0 for k = 0) */
	int64_t *gpre;  /* gpre[k]: gap[0] + ... + gap[k - 1] */
	uint32_t *upre; /* upre[k]: kernels set aside among the first k */
	uint8_t *used;
	uint8_t *brk;   /* brk[k]: kernels k - 1 and k are never in one occurrence */
	uint32_t *bpre; /* bpre[k]: brk[0] + ... + brk[k - 1] */
	uint32_t *occ;  /* occurrences of the winner */
};

static int64_t window_gap(const struct seq *q, size_t j, size_t len)
{
	return q->gpre[j + len] - q->gpre[j + 1];
}

static bool window_free(const struct seq *q, size_t j, size_t len)
{
	return q->upre[j + len] == q->upre[j] && q->bpre[j + len] == q->bpre[j + 1];
}

struct best {
	size_t len;
	uint32_t first;
	int64_t gap;
};

/* True when group (gap, len, first) beats the best so far: more gap, then
 * the longer sequence, then the earlier first occurrence. */
static bool beats(int64_t gap, size_t len, uint32_t first, const struct best *b)
{
	return gap > b->gap || (gap == b->gap && len > b->len) ||
	       (gap == b->gap && len == b->len && first < b->first);
}

/*
 * Groups are exact: the windows of length L that hold the same kernels get
 * one group id, numbered in order of first window. A window's id at L is
 * looked up from a pair of smaller ids: (its id at L - 1, the signature of
 * its last kernel), or (its first half's id, its second half's id) when L
 * doubles. Pairs of 32-bit ids are compared whole, so no two different
 * sequences ever share a group (the rolling hashes this replaced could,
 * rarely, and then the winner was checked and dropped).
 *
 * A group with fewer than GS_GC_MIN_REPS non-overlapping occurrences at L
 * has fewer at every longer length (the prefixes of non-overlapping longer
 * occurrences do not overlap either), so its windows leave the search: on a
 * stream with little repetition only short lengths cost anything.
 */
#define DEAD UINT32_MAX

struct gstat {
	int64_t gap;
	/* The gaps any longer sequence starting with this group could cover:
	 * those inside the union of [j + 1, j + hi) over its windows j. */
	int64_t reach;
	uint32_t reach_end; /* the end of that union so far */
	uint32_t count;
	uint32_t next; /* first window a new occurrence may start at */
	uint32_t first;
	/* The last pair looked up with this group first: (this id, child_key)
	 * is group child_id at the next length. */
	uint32_t child_key;
	uint32_t child_id;
};

struct gslot {
	uint64_t key;
	uint32_t id;
	uint32_t gen; /* the slot is in use in pass `gen` only */
};

/* The lengths one thread searches, [lo, hi], and what it needs to. */
struct chain {
	const struct seq *q;
	size_t lo, hi;
	uint32_t *cur;   /* per kernel: the id of the window starting there, or DEAD */
	uint32_t *alive; /* the windows still searched, ascending */
	size_t n_alive;
	struct gstat *st[2]; /* ids of this pass (st[now]) and of the one before */
	size_t cap[2], n_ids[2];
	unsigned now;
	struct gslot *slot; /* pair -> id, open addressing */
	size_t mask;
	unsigned shift;
	uint32_t gen;
	/* Per signature: the first pass's child cache (valid in pass gen). */
	struct sig_child {
		uint32_t gen, key, id;
	} * by_sig;
	size_t n_by_sig;
	bool failed; /* out of memory */
	struct best b;
};

#define PAIR_MUL 0x9e3779b97f4a7c15ull

static size_t pair_slot(const struct chain *c, uint64_t key)
{
	return (size_t)((key * PAIR_MUL) >> c->shift);
}

/* Double the pair table, keeping this pass's pairs. */
static bool pairs_grow(struct chain *c)
{
	size_t mask = 2 * c->mask + 1;
	struct gslot *ns = calloc(mask + 1, sizeof(*ns));

	if (!ns)
		return false;
	c->shift--;
	for (size_t i = 0; i <= c->mask; i++) {
		size_t h;

		if (c->slot[i].gen != c->gen)
			continue;
		h = pair_slot(c, c->slot[i].key);
		while (ns[h].gen == c->gen)
			h = (h + 1) & mask;
		ns[h] = c->slot[i];
	}
	free(c->slot);
	c->slot = ns;
	c->mask = mask;
	return true;
}

/* A new group for pair `key`, first seen at window j. */
static uint32_t new_group(struct chain *c, uint64_t key, uint32_t j, size_t h)
{
	unsigned now = c->now;
	uint32_t id;

	if (2 * (c->n_ids[now] + 1) > c->mask + 1) {
		if (!pairs_grow(c))
			goto fail;
		h = pair_slot(c, key);
		while (c->slot[h].gen == c->gen)
			h = (h + 1) & c->mask;
	}
	if (c->n_ids[now] == c->cap[now]) {
		size_t cap = 2 * c->cap[now];
		struct gstat *st = realloc(c->st[now], cap * sizeof(*st));

		if (!st)
			goto fail;
		c->st[now] = st;
		c->cap[now] = cap;
	}
	id = (uint32_t)c->n_ids[now]++;
	c->st[now][id] = (struct gstat){.first = j, .child_key = DEAD};
	c->slot[h] = (struct gslot){.key = key, .id = id, .gen = c->gen};
	return id;
fail:
	c->failed = true;
	return DEAD;
}

/* Start a pass: this pass's ids go to the other stats array. */
static void pass_begin(struct chain *c)
{
	c->now ^= 1;
	c->n_ids[c->now] = 0;
	if (++c->gen == 0) { /* wrapped: forget every slot */
		memset(c->slot, 0, (c->mask + 1) * sizeof(*c->slot));
		memset(c->by_sig, 0, c->n_by_sig * sizeof(*c->by_sig));
		c->gen = 1;
	}
}

/* The id of pair `key` (a new group first seen at window j if new). */
static uint32_t pair_id(struct chain *c, uint64_t key, uint32_t j)
{
	size_t h = pair_slot(c, key);

	while (c->slot[h].gen == c->gen) {
		if (c->slot[h].key == key)
			return c->slot[h].id;
		h = (h + 1) & c->mask;
	}
	return new_group(c, key, j, h);
}

/* The group of a window of group p followed by r (a signature, or the
 * group of the window right after), remembered in p: periodic streams go
 * on the same way most of the time. DEAD when out of memory. *st is the
 * current pass's table, which a new group may move. */
static inline uint32_t child_id(struct chain *c, struct gstat *p, uint32_t left, uint32_t r,
				uint32_t j, struct gstat **st)
{
	uint32_t id;

	if (p->child_key == r)
		return p->child_id;
	id = pair_id(c, (uint64_t)left << 32 | r, j);
	if (id == DEAD)
		return DEAD;
	*st = c->st[c->now];
	p->child_key = r;
	p->child_id = id;
	return id;
}

/* Count window j (length len) in group g: leftmost first, never
 * overlapping. */
static inline void count_window(const int64_t *gpre, struct gstat *g, uint32_t j, size_t len,
				size_t reach_end, bool gaps)
{
	size_t lo = j + 1 > g->reach_end ? j + 1 : g->reach_end;

	if (reach_end > lo) {
		g->reach += gpre[reach_end] - gpre[lo];
		g->reach_end = (uint32_t)reach_end;
	}
	if (j < g->next)
		return;
	g->count++;
	g->next = (uint32_t)(j + len);
	if (gaps)
		g->gap += gpre[j + len] - gpre[j + 1];
}

/* The end of the reach of window j: the longest sequence the chain
 * scores from it. */
static inline size_t reach_end(const struct chain *c, size_t j)
{
	return j + c->hi < c->q->m ? j + c->hi : c->q->m;
}

/* Windows that do not fit at length len: the last ones of the list. */
static size_t fitting(const struct chain *c, size_t len)
{
	size_t n = c->n_alive;

	while (n && c->alive[n - 1] + len > c->q->m)
		n--;
	return n;
}

/* Out only at the end of a pass: the windows before them read their ids. */
static void pass_end(struct chain *c, size_t fit, size_t k)
{
	for (size_t i = fit; i < c->n_alive; i++)
		c->cur[c->alive[i]] = DEAD;
	c->n_alive = k;
}

/*
 * The passes go over the alive windows in ascending order. A window leaves
 * when it does not fit, touches a kernel set aside, or its group had under
 * GS_GC_MIN_REPS occurrences at the previous length. Each pair is looked up
 * once per parent group and remembered there (child_key, child_id): in a
 * periodic stream nearly every window of a group continues the same way.
 */

/*
 * A group whose reach is below this cannot lead to a winner: every longer
 * sequence starting with it covers at most `reach` of gaps, and a winner
 * needs more than 0 and at least the best so far (a tie with a longer
 * sequence would still win, so not less). On streams where the launch gaps
 * sit in a few places, most windows leave after the first lengths.
 */
static int64_t prune_below(const struct chain *c)
{
	return c->b.len && c->b.gap > 1 ? c->b.gap : 1;
}

/* Length 2, from the signatures. */
static void pass_first(struct chain *c, bool gaps)
{
	const struct seq *q = c->q;
	uint32_t *cur = c->cur, *alive = c->alive;
	struct gstat *st;
	size_t fit, k = 0;

	pass_begin(c);
	st = c->st[c->now];
	fit = fitting(c, 2);
	for (size_t i = 0; i < fit; i++) {
		uint32_t j = alive[i], p = cur[j], r = q->sig[j + 1], id;
		struct sig_child *sc = &c->by_sig[p];

		if (q->used[j + 1] || q->brk[j + 1]) {
			cur[j] = DEAD;
			continue;
		}
		if (sc->gen == c->gen && sc->key == r) {
			id = sc->id;
		} else {
			id = pair_id(c, (uint64_t)p << 32 | r, j);
			if (id == DEAD)
				return;
			st = c->st[c->now]; /* may have moved */
			*sc = (struct sig_child){.gen = c->gen, .key = r, .id = id};
		}
		cur[j] = id;
		alive[k++] = j;
		count_window(q->gpre, &st[id], j, 2, reach_end(c, j), gaps);
	}
	pass_end(c, fit, k);
}

/* Length len - 1 -> len: each window with the signature of its next
 * kernel. */
static void pass_extend(struct chain *c, size_t len, bool gaps)
{
	const struct seq *q = c->q;
	struct gstat *prev = c->st[c->now];
	uint32_t *cur = c->cur, *alive = c->alive;
	const uint32_t *next_sig = q->sig + len - 1;
	const uint8_t *next_used = q->used + len - 1;
	const uint8_t *next_brk = q->brk + len - 1;
	const int64_t *gpre = q->gpre;
	int64_t min_reach = prune_below(c);
	struct gstat *st;
	size_t fit, k = 0, hi = c->hi, m = q->m;

	pass_begin(c);
	st = c->st[c->now];
	fit = fitting(c, len);
	for (size_t i = 0; i < fit; i++) {
		uint32_t j = alive[i], r, id;
		struct gstat *p = &prev[cur[j]];

		if (p->count < GS_GC_MIN_REPS || p->reach < min_reach || next_used[j] ||
		    next_brk[j]) {
			cur[j] = DEAD;
			continue;
		}
		r = next_sig[j];
		id = child_id(c, p, cur[j], r, j, &st);
		if (id == DEAD)
			return;
		cur[j] = id;
		alive[k++] = j;
		count_window(gpre, &st[id], j, len, j + hi < m ? j + hi : m, gaps);
	}
	pass_end(c, fit, k);
}

/* Length len -> 2 len: each window with the one right after it (ascending
 * order reads cur[j + len] before this pass rewrites it). A window is
 * needed here as the second half of the one len before it too, so groups
 * leave only for their count (a sequence has no more occurrences than its
 * second half), not for their reach (which bounds sequences they start). */
static void pass_double(struct chain *c, size_t len, bool gaps)
{
	const struct seq *q = c->q;
	struct gstat *prev = c->st[c->now];
	uint32_t *cur = c->cur, *alive = c->alive;
	const int64_t *gpre = q->gpre;
	struct gstat *st;
	size_t fit, k = 0, hi = c->hi, m = q->m;

	pass_begin(c);
	st = c->st[c->now];
	fit = fitting(c, 2 * len);
	for (size_t i = 0; i < fit; i++) {
		uint32_t j = alive[i], r = cur[j + len], id;
		struct gstat *p = &prev[cur[j]];

		if (p->count < GS_GC_MIN_REPS || r == DEAD || prev[r].count < GS_GC_MIN_REPS ||
		    q->brk[j + len]) {
			cur[j] = DEAD;
			continue;
		}
		id = child_id(c, p, cur[j], r, j, &st);
		if (id == DEAD)
			return;
		cur[j] = id;
		alive[k++] = j;
		count_window(gpre, &st[id], j, 2 * len, j + hi < m ? j + hi : m, gaps);
	}
	pass_end(c, fit, k);
}

/* The best group of this pass (length len). The winner does not depend on
 * the order groups are looked at: groups have distinct first windows. */
static void score(struct chain *c, size_t len)
{
	const struct gstat *st = c->st[c->now];

	for (size_t id = 0; id < c->n_ids[c->now]; id++)
		if (st[id].count >= GS_GC_MIN_REPS && st[id].gap > 0 &&
		    beats(st[id].gap, len, st[id].first, &c->b))
			c->b = (struct best){.len = len, .first = st[id].first, .gap = st[id].gap};
}

/*
 * Every length of [lo, hi]: from the signatures, one kernel more per pass;
 * a chain that starts at lo > 2 doubles its way up first (2, 4, 8, ...)
 * without scoring, so two chains can search different lengths at once.
 */
static void run_chain(void *arg)
{
	struct chain *c = arg;
	const struct seq *q = c->q;
	size_t len = 2;

	c->b = (struct best){0};
	c->n_alive = 0;
	for (size_t j = 0; j < q->m; j++) {
		c->cur[j] = q->used[j] ? DEAD : q->sig[j];
		if (!q->used[j])
			c->alive[c->n_alive++] = (uint32_t)j;
	}
	pass_first(c, c->lo <= 2);
	if (c->lo <= 2)
		score(c, 2);
	while (!c->failed && c->n_alive && 2 * len <= c->lo) {
		pass_double(c, len, 2 * len >= c->lo);
		len *= 2;
		if (len >= c->lo)
			score(c, len);
	}
	while (!c->failed && c->n_alive && len < c->hi) {
		len++;
		pass_extend(c, len, len >= c->lo);
		if (len >= c->lo)
			score(c, len);
	}
}

static gs_status chain_init(struct chain *c, const struct seq *q, size_t m, size_t n_sigs)
{
	memset(c, 0, sizeof(*c));
	c->q = q;
	c->n_by_sig = n_sigs + 1;
	c->by_sig = calloc(c->n_by_sig, sizeof(*c->by_sig));
	c->cur = malloc((m + 1) * sizeof(*c->cur));
	c->alive = malloc((m + 1) * sizeof(*c->alive));
	c->cap[0] = c->cap[1] = 256;
	c->st[0] = malloc(c->cap[0] * sizeof(*c->st[0]));
	c->st[1] = malloc(c->cap[1] * sizeof(*c->st[1]));
	c->mask = 1023;
	c->shift = 64 - 10;
	c->slot = calloc(c->mask + 1, sizeof(*c->slot));
	return c->cur && c->alive && c->st[0] && c->st[1] && c->slot && c->by_sig ? GS_OK :
										    gs_nomem();
}

static void chain_fini(struct chain *c)
{
	free(c->by_sig);
	free(c->cur);
	free(c->alive);
	free(c->st[0]);
	free(c->st[1]);
	free(c->slot);
	memset(c, 0, sizeof(*c));
}

/* Below this many kernels a stream is searched on one thread. */
#define GS_GC_THREAD_MIN (1u << 14)
/* With two threads: lengths 2 .. GS_GC_SPLIT on one, the rest on the other
 * (which first doubles its way to 16: about as many passes each). */
#define GS_GC_SPLIT 20

/*
 * The best group over lengths 2 .. max_len. With two CPUs and a long stream
 * the lengths are split in two ranges searched at once; the better of the
 * two winners is the same winner one pass over every length gives
 * (beats() is a total order on (gap, len, first), each length is scored by
 * one chain, and groups are exact), so the result never depends on the
 * number of threads.
 */
static gs_status search_round(struct chain *ch, size_t max_len, bool threads, struct best *b)
{
	struct gs_aside th = {0};
	bool started = false, split = threads && ch[1].cur && max_len > GS_GC_SPLIT;

	ch[0].lo = 2;
	ch[0].hi = split ? GS_GC_SPLIT : max_len;
	if (split) {
		ch[1].lo = GS_GC_SPLIT + 1;
		ch[1].hi = max_len;
		started = gs_aside_start(&th, run_chain, &ch[1]);
	}
	run_chain(&ch[0]);
	if (split) {
		if (started)
			gs_aside_join(&th);
		else
			run_chain(&ch[1]);
	}
	if (ch[0].failed || (split && ch[1].failed))
		return gs_nomem();
	*b = ch[0].b;
	if (split && ch[1].b.len && (!b->len || beats(ch[1].b.gap, ch[1].b.len, ch[1].b.first, b)))
		*b = ch[1].b;
	return GS_OK;
}

/* The winner's occurrences, leftmost first, never overlapping. */
static size_t verify(struct seq *q, const struct best *b, int64_t *gap)
{
	size_t n = 0, next = 0;
	const uint32_t *w = &q->sig[b->first];

	*gap = 0;
	for (size_t j = b->first; j + b->len <= q->m; j++) {
		if (j < next || q->sig[j] != w[0] || !window_free(q, j, b->len) ||
		    memcmp(&q->sig[j], w, b->len * sizeof(*q->sig)) != 0)
			continue;
		q->occ[n++] = (uint32_t)j;
		*gap += window_gap(q, j, b->len);
		next = j + b->len;
	}
	return n;
}

struct out_list {
	struct gs_cudagraph_candidate *c;
	size_t n, cap;
};

static gs_status emit(struct out_list *l, const struct seq *q, uint32_t stream,
		      const struct gs_op *ops, const struct best *b, size_t reps, int64_t gap)
{
	struct gs_cudagraph_candidate *c;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct gs_cudagraph_candidate *nc = realloc(l->c, cap * sizeof(*nc));

		if (!nc)
			return gs_nomem();
		l->c = nc;
		l->cap = cap;
	}
	c = &l->c[l->n];
	memset(c, 0, sizeof(*c));
	c->kernels = malloc(b->len * sizeof(*c->kernels));
	c->gap_ops = malloc((reps * b->len + 1) * sizeof(*c->gap_ops));
	c->gap_ns = malloc((reps * b->len + 1) * sizeof(*c->gap_ns));
	l->n++;
	if (!c->kernels || !c->gap_ops || !c->gap_ns)
		return gs_nomem();
	/* The gaps of every occurrence (those before its kernels but the
	 * first), for the replay what-if. */
	for (size_t r = 0; r < reps; r++)
		for (size_t k = 1; k < b->len; k++) {
			size_t j = q->occ[r] + k;

			if (q->gap[j] <= 0)
				continue;
			c->gap_ops[c->n_gaps] = q->op[j];
			c->gap_ns[c->n_gaps++] = q->gap[j];
			if (q->gap[j] > c->max_gap_ns)
				c->max_gap_ns = q->gap[j];
		}
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

static gs_status search_stream(struct seq *q, struct chain *ch, bool threads, uint32_t stream,
			       const struct gs_op *ops, struct out_list *l)
{
	size_t k, max_len = q->m / GS_GC_MIN_REPS;

	if (max_len > GS_GC_MAX_LEN)
		max_len = GS_GC_MAX_LEN;
	if (max_len < 2)
		return GS_OK;
	q->gpre[0] = 0;
	q->bpre[0] = 0;
	for (k = 0; k < q->m; k++) {
		q->gpre[k + 1] = q->gpre[k] + q->gap[k];
		q->bpre[k + 1] = q->bpre[k] + q->brk[k];
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
		st = search_round(ch, max_len, threads && q->m >= GS_GC_THREAD_MIN, &b);
		if (st)
			return st;
		if (!b.len)
			break;
		reps = verify(q, &b, &gap);
		if (reps < GS_GC_MIN_REPS || gap <= 0)
			break; /* cannot happen: the groups are exact */
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
	q->upre = malloc((m + 1) * sizeof(*q->upre));
	q->used = malloc(m + 1);
	q->brk = malloc(m + 1);
	q->bpre = malloc((m + 1) * sizeof(*q->bpre));
	q->occ = malloc((m + 1) * sizeof(*q->occ));
	if (!q->op || !q->sig || !q->gap || !q->gpre || !q->upre || !q->used || !q->brk ||
	    !q->bpre || !q->occ)
		return gs_nomem();
	return GS_OK;
}

static void seq_fini(struct seq *q)
{
	free(q->op);
	free(q->sig);
	free(q->gap);
	free(q->gpre);
	free(q->upre);
	free(q->used);
	free(q->brk);
	free(q->bpre);
	free(q->occ);
}

static int cmp_candidate(const void *pa, const void *pb)
{
	const struct gs_cudagraph_candidate *a = pa, *b = pb;

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
				const struct gs_window *win, const uint32_t *launch,
				struct out_list *l)
{
	size_t n_ops, n_dev, max_m = 0, total = 0, cap = 16;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const uint32_t *dev = gs_trace_device_streams(t, device, &n_dev);
	struct sigtab sg = {0};
	struct seq q;
	struct chain ch[2];
	size_t n_api;
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	bool threads;
	gs_status st = GS_OK;

	memset(&q, 0, sizeof(q));
	memset(ch, 0, sizeof(ch));
	for (size_t k = 0; k < n_dev; k++) {
		size_t first, count, m = 0;

		gs_trace_stream_ops(t, dev[k], &first, &count);
		for (size_t i = first; i < first + count && i < n_ops; i++)
			m += take_kernel(&ops[i], win);
		if (m > GS_GC_MAX_KERNELS)
			m = GS_GC_MAX_KERNELS;
		total += m;
		if (m > max_m)
			max_m = m;
	}
	if (max_m < (size_t)2 * GS_GC_MIN_REPS)
		return GS_OK;
	while (cap < 2 * total + 2)
		cap *= 2;
	sg.t = t;
	sg.slot = malloc(cap * sizeof(*sg.slot));
	sg.id = malloc(cap * sizeof(*sg.id));
	sg.comm = malloc(cap);
	sg.mask = cap - 1;
	st = sg.slot && sg.id && sg.comm ? seq_init(&q, max_m) : gs_nomem();
	threads = max_m >= GS_GC_THREAD_MIN && gs_cpu_count() >= 2;
	if (!st)
		st = chain_init(&ch[0], &q, max_m, total + 1);
	if (!st && threads)
		st = chain_init(&ch[1], &q, max_m, total + 1);
	if (st)
		goto out;
	for (size_t i = 0; i < cap; i++)
		sg.slot[i] = GS_NO_INDEX;
	for (size_t k = 0; k < n_dev && !st; k++) {
		uint32_t s = dev[k];
		size_t first, count;
		bool after_comm = false;

		gs_trace_stream_ops(t, s, &first, &count);
		q.m = 0;
		for (size_t i = first; i < first + count && i < n_ops && q.m < max_m; i++) {
			int64_t g = 0;
			uint32_t sig;
			bool comm;

			if (!take_kernel(&ops[i], win))
				continue;
			sig = sig_of(&sg, ops, (uint32_t)i);
			comm = ops[i].collective || sg.comm[sig];
			/* A communication kernel breaks the sequence on both sides. */
			q.brk[q.m] = comm || after_comm;
			/* A gap is launch time a graph removes unless the kernel's
			 * launch call had returned before the op ahead of it ended
			 * (queued in time: the device waited on something else);
			 * a gap too long for launch overhead breaks the sequence. */
			if (q.m && i > first && ops[i].start_ns > ops[i - 1].end_ns) {
				uint32_t c = launch ? launch[i] : GS_NO_INDEX;
				int64_t raw = ops[i].start_ns - ops[i - 1].end_ns;

				if (raw > GS_CUDAGRAPH_MAX_GAP_NS)
					q.brk[q.m] = 1;
				else if (c == GS_NO_INDEX || (ops[i].flags & GS_OPF_GRAPH) ||
					 api[c].end_ns > ops[i - 1].end_ns)
					g = raw;
			}
			after_comm = comm;
			q.op[q.m] = (uint32_t)i;
			q.sig[q.m] = sig + 1;
			q.gap[q.m++] = g;
		}
		st = search_stream(&q, ch, threads, s, ops, l);
	}
out:
	free(sg.slot);
	free(sg.id);
	free(sg.comm);
	chain_fini(&ch[0]);
	chain_fini(&ch[1]);
	seq_fini(&q);
	return st;
}

gs_status gs_cudagraph_candidates_compute(const struct gs_trace *t, uint32_t device,
					  const struct gs_window *win,
					  struct gs_cudagraph_candidate **out, size_t *n)
{
	return gs_cudagraph_candidates_compute_launch(t, device, win, NULL, out, n);
}

gs_status gs_cudagraph_candidates_compute_launch(const struct gs_trace *t, uint32_t device,
						 const struct gs_window *win,
						 const uint32_t *launch,
						 struct gs_cudagraph_candidate **out, size_t *n)
{
	struct out_list l = {0};
	gs_status st;

	if (!out || !n) {
		gs_error_append("gs_cudagraph_candidates_compute: no output");
		return GS_ERR_INVALID;
	}
	*out = NULL;
	*n = 0;
	if (!t) {
		gs_error_append("gs_cudagraph_candidates_compute: no trace");
		return GS_ERR_INVALID;
	}
	if (!launch) {
		size_t n_ops;

		launch = gs_trace_op_launches(t, &n_ops);
	}
	st = candidates_run(t, device, win, launch, &l);
	if (st) {
		gs_cudagraph_candidates_free(l.c, l.n);
		return st;
	}
	if (l.n)
		gs_sort(l.c, l.n, sizeof(*l.c), cmp_candidate);
	*out = l.c;
	*n = l.n;
	return GS_OK;
}

void gs_cudagraph_candidates_free(struct gs_cudagraph_candidate *c, size_t n)
{
	if (!c)
		return;
	for (size_t i = 0; i < n; i++) {
		free(c[i].kernels);
		free(c[i].gap_ops);
		free(c[i].gap_ns);
	}
	free(c);
}
