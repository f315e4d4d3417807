/* SPDX-License-Identifier: MIT */
/*
 * GPU time per host operator (gpuscope/operators.h).
 *
 * Build, once per trace: the ranges that can be operators at the level,
 * sorted by (pid, tid, start, longest first), and per thread one sweep over
 * their starts and ends that cuts the thread's time into disjoint pieces,
 * each owned by the range the level's rule picks among those open (a stack
 * per tier of the rule: the innermost is the top, the outermost the lowest
 * entry still open). O(R log R).
 *
 * Query, per device: each op in the window, through its launch call, to the
 * piece of the call's thread that holds the call's start (a binary search);
 * sums per owner's name and per (name, op name). O(N log R), one hash look-up
 * per op; nothing at all when the trace has no range of the level.
 */
#include <gpuscope/operators.h>
#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/u64map.h>
#include <gpuscope/vec.h>

#include "analyzer_priv.h"

#include <stdlib.h>
#include <string.h>

const char *gs_op_level_name(unsigned level)
{
	static const char *const n[GS_OP_LEVEL_COUNT] = {"operator", "module"};

	return level < GS_OP_LEVEL_COUNT ? n[level] : "?";
}

/* The rule's tiers: an op goes to the first tier with a range open. */
#define OI_TIERS 3
#define OI_NONE UINT32_MAX

/* A range that can be an operator; its thread is its group's, its times
 * and kind the range's, its tier its label's (8 bytes: the candidates of a
 * large trace are as many as its ranges). */
struct oi_cand {
	uint32_t range; /* index into gs_trace_ranges() */
	uint32_t label;
};

struct oi_piece {
	int64_t start;
	int64_t end;
	uint32_t cand; /* the owner, by its place in the sorted candidates */
	uint32_t label;
};

struct oi_thread {
	int64_t pid;
	int64_t tid;
	size_t first; /* pieces[first .. first + n) */
	size_t n;
};

struct oi_label {
	uint32_t name;
	uint8_t kind;
	uint8_t tier;   /* the tier at the index's level of the ranges of the label */
	uint64_t total; /* ranges of this name in the trace */
};

struct gs_op_index {
	unsigned level;
	size_t n_cands;
	struct oi_piece *pieces;
	size_t n_pieces;
	struct oi_thread *threads;
	size_t n_threads;
	struct oi_label *labels;
	size_t n_labels;
};

/* Whether the level's rule takes the outermost open range of a tier (else
 * the innermost). */
static bool tier_outer(unsigned level, unsigned tier)
{
	return level == GS_OP_LEVEL_MODULE && tier > 0;
}

/* What a name says, through a direct-mapped cache by string id (names
 * repeat: a trace has many ranges and few names). */
struct name_memo {
	uint32_t name;
	bool module; /* "nn.Module: ..." */
	bool step;   /* "ProfilerStep#..." */
};

static const struct name_memo *memo_of(const struct gs_trace *t, struct name_memo *memo,
				       uint32_t name)
{
	struct name_memo *m = &memo[(name * 2654435761u) >> 22 & 1023];

	if (m->name != name || name == GS_NO_STRING) {
		const char *s = gs_trace_string(t, name);

		m->name = name;
		m->module = strncmp(s, "nn.Module: ", 11) == 0;
		m->step = strncmp(s, "ProfilerStep#", 13) == 0;
	}
	return m;
}

/* The tier of range r at the level, or -1 when it cannot be an operator. */
static int tier_of(const struct gs_trace *t, struct name_memo *memo, unsigned level,
		   const struct gs_range *r)
{
	if (r->end_ns <= r->start_ns)
		return -1;
	if (level == GS_OP_LEVEL_OPERATOR)
		return r->kind == GS_RANGE_CPU_OP || r->kind == GS_RANGE_NVTX ? 0 : -1;
	switch (r->kind) {
	case GS_RANGE_PYTHON:
		return memo_of(t, memo, r->name)->module ? 0 : -1;
	case GS_RANGE_USER_ANNOTATION:
		return memo_of(t, memo, r->name)->step ? -1 : 1;
	case GS_RANGE_NVTX:
		return 2;
	default:
		return -1;
	}
}

/* Within a thread: by start; the same start: the longer first (the
 * outer), then kind (an NVTX range outside a CPU op of the same span), then
 * index: the one pushed last is the inner. */
static int cmp_range_at(const struct gs_range *r, uint32_t a, uint32_t b)
{
	if (r[a].start_ns != r[b].start_ns)
		return r[a].start_ns < r[b].start_ns ? -1 : 1;
	if (r[a].end_ns != r[b].end_ns)
		return r[a].end_ns > r[b].end_ns ? -1 : 1;
	if (r[a].kind != r[b].kind)
		return r[a].kind < r[b].kind ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The order's fields copied, for gs_sort (a comparator has no context). */
struct oi_sort_rec {
	int64_t start;
	int64_t end;
	uint32_t range;
	uint32_t label;
	uint8_t kind;
};

static int cmp_sort_rec(const void *pa, const void *pb)
{
	const struct oi_sort_rec *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->range < b->range ? -1 : a->range > b->range;
}

/* Sort c[0 .. n) by cmp_range_at through a copy of the order's fields. */
static gs_status sort_copied(const struct gs_range *r, struct oi_cand *c, size_t n)
{
	struct oi_sort_rec *v = malloc(n * sizeof(*v));

	if (!v)
		return gs_nomem();
	for (size_t i = 0; i < n; i++)
		v[i] = (struct oi_sort_rec){.start = r[c[i].range].start_ns,
					    .end = r[c[i].range].end_ns,
					    .range = c[i].range,
					    .label = c[i].label,
					    .kind = r[c[i].range].kind};
	gs_sort(v, n, sizeof(*v), cmp_sort_rec);
	for (size_t i = 0; i < n; i++)
		c[i] = (struct oi_cand){.range = v[i].range, .label = v[i].label};
	free(v);
	return GS_OK;
}

#define OI_TIE_MAX 16 /* longer runs of one start: sorted through a copy */

/*
 * A thread's candidates c[0 .. n) by start; the same start: the longer
 * first (the outer), then kind (an NVTX range outside a CPU op of the same
 * span), then index: the one pushed last is the inner. The ranges of a
 * finished trace come by start, so only each run of one start is sorted,
 * in place (an insertion sort); out of start order, the whole group is
 * sorted through a copy. A total order: the same result either way.
 */
static gs_status sort_cands(const struct gs_range *r, struct oi_cand *c, size_t n)
{
	size_t i = 0;

	for (size_t k = 1; k < n; k++)
		if (r[c[k].range].start_ns < r[c[k - 1].range].start_ns)
			return sort_copied(r, c, n);
	while (i < n) {
		size_t j = i + 1;

		while (j < n && r[c[j].range].start_ns == r[c[i].range].start_ns)
			j++;
		if (j - i > OI_TIE_MAX) {
			gs_status rc = sort_copied(r, c + i, j - i);

			if (rc != GS_OK)
				return rc;
		} else {
			for (size_t a = i + 1; a < j; a++) {
				struct oi_cand x = c[a];
				size_t b = a;

				for (; b > i && cmp_range_at(r, c[b - 1].range, x.range) > 0; b--)
					c[b] = c[b - 1];
				c[b] = x;
			}
		}
		i = j;
	}
	return GS_OK;
}

static int cmp_thread(const void *pa, const void *pb)
{
	const struct oi_thread *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* The thread of (pid, tid) among the first ix->n_threads (their n counts
 * candidates while grouping), added when new; SIZE_MAX without memory. The
 * map is by a hash of (pid, tid), a collision resolved by a scan. */
static size_t thread_slot(struct gs_op_index *ix, struct gs_u64map *map, size_t *cap, int64_t pid,
			  int64_t tid)
{
	uint64_t key = ((uint64_t)pid * 0x9e3779b97f4a7c15ull) ^ (uint64_t)tid, v;

	if (gs_u64map_get(map, key, &v)) {
		if (ix->threads[v].pid == pid && ix->threads[v].tid == tid)
			return (size_t)v;
		for (size_t k = 0; k < ix->n_threads; k++)
			if (ix->threads[k].pid == pid && ix->threads[k].tid == tid)
				return k;
	}
	if (gs_vec_grow((void **)&ix->threads, cap, ix->n_threads + 1, sizeof(*ix->threads)) !=
	    GS_OK)
		return SIZE_MAX;
	if (!gs_u64map_get(map, key, &v) && gs_u64map_put(map, key, ix->n_threads, false) != GS_OK)
		return SIZE_MAX;
	ix->threads[ix->n_threads] = (struct oi_thread){.pid = pid, .tid = tid};
	return ix->n_threads++;
}

/* The label of (kind, name), through a direct-mapped cache in front of the
 * map (names repeat); added when new. OI_NONE without memory. */
struct label_memo {
	uint64_t key;
	uint32_t label;
};

static uint32_t label_of(struct gs_op_index *ix, struct gs_u64map *labels, size_t *cap,
			 struct label_memo *memo, const struct gs_range *r, int tier)
{
	uint64_t key = (uint64_t)r->kind << 32 | r->name, v;
	struct label_memo *m = &memo[(key * 0x9e3779b97f4a7c15ull) >> 54];

	if (m->label != OI_NONE && m->key == key)
		return m->label;
	if (!gs_u64map_get(labels, key, &v)) {
		v = ix->n_labels;
		if (gs_vec_grow((void **)&ix->labels, cap, ix->n_labels + 1, sizeof(*ix->labels)) !=
			    GS_OK ||
		    gs_u64map_put(labels, key, v, false) != GS_OK)
			return OI_NONE;
		ix->labels[ix->n_labels++] =
			(struct oi_label){.name = r->name, .kind = r->kind, .tier = (uint8_t)tier};
	}
	*m = (struct label_memo){.key = key, .label = (uint32_t)v};
	return (uint32_t)v;
}

/* A thread's last candidate written, while writing them: whether the
 * group is in cmp_range_at order already. */
struct oi_prev {
	int64_t start;
	int64_t end;
	uint8_t kind;
	bool unordered;
};

/* Range r, written after the candidate p holds, is in cmp_range_at order
 * with it (its index is the larger: equal times and kinds are in order). */
static bool in_order(const struct oi_prev *p, const struct gs_range *r)
{
	if (p->start != r->start_ns)
		return p->start < r->start_ns;
	if (p->end != r->end_ns)
		return p->end > r->end_ns;
	return p->kind <= r->kind;
}

/*
 * The candidates of the trace at the level, with their labels, grouped by
 * thread (ix->threads in (pid, tid) order, `first` the group's start in the
 * candidates while building) and each group sorted (sort_cands). Two passes
 * over the ranges: the first finds each candidate's thread and counts the
 * groups, the second finds them again (the map renumbered to the sorted
 * threads) and writes each candidate in its group's place: nothing per
 * range kept between the passes. A finished trace's ranges come in the
 * order each group wants (by start, the longer first, then kind, then
 * name: the index's order among equal times and kinds), which the second
 * pass checks as it writes: only a group out of it is sorted.
 */
static gs_status collect_cands(const struct gs_trace *t, struct gs_op_index *ix,
			       struct oi_cand **out)
{
	size_t nr, n = 0, cap_labels = 0, cap_threads = 0, last = SIZE_MAX;
	const struct gs_range *r = gs_trace_ranges(t, &nr);
	struct name_memo *memo = malloc(1024 * sizeof(*memo));
	struct label_memo *lmemo = malloc(1024 * sizeof(*lmemo));
	struct gs_u64map labels = {0}, threads = {0};
	struct oi_cand *c = NULL;
	struct oi_prev *prev = NULL;
	gs_status rc = GS_OK;

	*out = NULL;
	if (!memo || !lmemo || gs_u64map_reserve(&labels, 64) != GS_OK) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t i = 0; i < 1024; i++) {
		memo[i].name = GS_NO_STRING;
		lmemo[i].label = OI_NONE;
	}
	for (size_t i = 0; i < nr; i++) {
		int tier = tier_of(t, memo, ix->level, &r[i]);
		uint32_t v;

		if (tier < 0)
			continue;
		v = label_of(ix, &labels, &cap_labels, lmemo, &r[i], tier);
		if (last == SIZE_MAX || ix->threads[last].pid != r[i].pid ||
		    ix->threads[last].tid != r[i].tid)
			last = thread_slot(ix, &threads, &cap_threads, r[i].pid, r[i].tid);
		if (v == OI_NONE || last == SIZE_MAX) {
			rc = gs_nomem();
			goto out;
		}
		ix->labels[v].total++;
		ix->threads[last].n++;
		n++;
	}
	if (!n)
		goto out;
	/* threads in (pid, tid) order, the map to their new places */
	qsort(ix->threads, ix->n_threads, sizeof(*ix->threads), cmp_thread);
	for (size_t k = 0, pos = 0; k < ix->n_threads; k++) {
		uint64_t key = ((uint64_t)ix->threads[k].pid * 0x9e3779b97f4a7c15ull) ^
			       (uint64_t)ix->threads[k].tid,
			 v;

		ix->threads[k].first = pos;
		pos += ix->threads[k].n;
		ix->threads[k].n = 0;
		/* a key's first thread keeps it; the others are found by a scan */
		if (gs_u64map_get(&threads, key, &v) &&
		    (ix->threads[v].pid != ix->threads[k].pid ||
		     ix->threads[v].tid != ix->threads[k].tid) &&
		    gs_u64map_put(&threads, key, k, true) != GS_OK)
			rc = gs_nomem();
	}
	c = rc == GS_OK ? malloc(n * sizeof(*c)) : NULL;
	if (!c) {
		rc = gs_nomem();
		goto out;
	}
	prev = calloc(ix->n_threads, sizeof(*prev));
	if (!prev) {
		rc = gs_nomem();
		goto out;
	}
	last = SIZE_MAX;
	for (size_t i = 0; i < nr; i++) {
		int tier = tier_of(t, memo, ix->level, &r[i]);
		struct oi_thread *th;
		struct oi_prev *p;

		if (tier < 0)
			continue;
		if (last == SIZE_MAX || ix->threads[last].pid != r[i].pid ||
		    ix->threads[last].tid != r[i].tid)
			last = thread_slot(ix, &threads, &cap_threads, r[i].pid, r[i].tid);
		th = &ix->threads[last];
		p = &prev[last];
		if (th->n && !in_order(p, &r[i]))
			p->unordered = true;
		p->start = r[i].start_ns;
		p->end = r[i].end_ns;
		p->kind = r[i].kind;
		c[th->first + th->n++] = (struct oi_cand){
			.range = (uint32_t)i,
			.label = label_of(ix, &labels, &cap_labels, lmemo, &r[i], tier)};
	}
	for (size_t k = 0; rc == GS_OK && k < ix->n_threads; k++)
		if (prev[k].unordered)
			rc = sort_cands(r, c + ix->threads[k].first, ix->threads[k].n);
	if (rc != GS_OK)
		goto out;
	ix->n_cands = n;
	*out = c;
	c = NULL;
out:
	free(c);
	free(prev);
	free(memo);
	free(lmemo);
	gs_u64map_fini(&labels);
	gs_u64map_fini(&threads);
	return rc;
}

/* The sweep's stacks, one per tier. */
struct oi_sweep {
	uint32_t *st[OI_TIERS];
	size_t sp[OI_TIERS], cap[OI_TIERS];
	size_t lo[OI_TIERS]; /* outermost tiers: entries below are over */
};

/* The owner of the instant t (after the starts at t were pushed), by the
 * level's rule, OI_NONE when no tier has a range open; and in *watch the
 * earliest end that can change it (the end of each tier's chosen range:
 * the tiers before the owner's are empty, those after it do not matter). */
static uint32_t owner_at(struct oi_sweep *sw, const struct gs_range *r, const struct oi_cand *c,
			 unsigned level, int64_t t, int64_t *watch)
{
	*watch = INT64_MAX;
	for (unsigned k = 0; k < OI_TIERS; k++) {
		uint32_t *st = sw->st[k], own;
		size_t *sp = &sw->sp[k], *lo = &sw->lo[k];

		while (*sp && r[c[st[*sp - 1]].range].end_ns <= t)
			(*sp)--;
		if (!*sp)
			continue;
		if (!tier_outer(level, k)) {
			own = st[*sp - 1];
		} else {
			if (*lo > *sp)
				*lo = *sp;
			/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): non-empty whenever read */
			while (*lo < *sp && r[c[st[*lo]].range].end_ns <= t)
				(*lo)++;
			if (*lo == *sp)
				continue; /* (the top is open: not reached) */
			/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): non-empty whenever read */
			own = st[*lo];
		}
		*watch = r[c[own].range].end_ns;
		return own;
	}
	return OI_NONE;
}

/* Cut the thread of candidates c[i .. j) into pieces (room for two a
 * candidate is reserved). */
static gs_status sweep_thread(struct gs_op_index *ix, struct oi_sweep *sw, const struct gs_range *r,
			      const struct oi_cand *c, size_t i, size_t j)
{
	size_t si = i, first = ix->n_pieces;
	int64_t t = r[c[i].range].start_ns;

	for (unsigned k = 0; k < OI_TIERS; k++)
		sw->sp[k] = sw->lo[k] = 0;
	for (;;) {
		int64_t next, watch;
		uint32_t own;

		for (; si < j && r[c[si].range].start_ns <= t; si++) {
			unsigned k = ix->labels[c[si].label].tier;

			if (GS_VEC_PUSH(sw->st[k], sw->sp[k], sw->cap[k], (uint32_t)si))
				return gs_nomem();
		}
		own = owner_at(sw, r, c, ix->level, t, &watch);
		next = si < j ? r[c[si].range].start_ns : INT64_MAX;
		if (watch < next)
			next = watch;
		if (next == INT64_MAX)
			return GS_OK;
		if (own != OI_NONE) {
			struct oi_piece *p = ix->n_pieces > first ? &ix->pieces[ix->n_pieces - 1] :
								    NULL;

			if (p && p->end == t && p->cand == own)
				p->end = next;
			else
				ix->pieces[ix->n_pieces++] =
					(struct oi_piece){.start = t,
							  .end = next,
							  .cand = own,
							  .label = c[own].label};
		}
		t = next;
	}
}

gs_status gs_op_index_build(const struct gs_trace *t, unsigned level, struct gs_op_index **out)
{
	struct gs_op_index *ix = calloc(1, sizeof(*ix));
	struct oi_cand *c = NULL;
	struct oi_sweep sw;
	size_t nr;
	const struct gs_range *r = gs_trace_ranges(t, &nr);
	gs_status rc;

	*out = NULL;
	memset(&sw, 0, sizeof(sw));
	if (!ix)
		return gs_nomem();
	ix->level = level < GS_OP_LEVEL_COUNT ? level : GS_OP_LEVEL_OPERATOR;
	if (nr >= UINT32_MAX) {
		free(ix);
		gs_error_append("operators: too many host ranges (%zu)", nr);
		return GS_ERR_LIMIT;
	}
	rc = collect_cands(t, ix, &c);
	if (rc != GS_OK || !ix->n_cands)
		goto out;
	/* pages of the room never written cost nothing */
	ix->pieces = malloc(2 * ix->n_cands * sizeof(*ix->pieces));
	if (!ix->pieces)
		rc = gs_nomem();
	for (size_t k = 0; rc == GS_OK && k < ix->n_threads; k++) {
		struct oi_thread *th = &ix->threads[k];
		size_t i = th->first, j = i + th->n;

		th->first = ix->n_pieces;
		rc = sweep_thread(ix, &sw, r, c, i, j);
		th->n = ix->n_pieces - th->first;
	}
	if (rc == GS_OK && ix->n_pieces) { /* give back the slack */
		struct oi_piece *p = realloc(ix->pieces, ix->n_pieces * sizeof(*p));

		if (p)
			ix->pieces = p;
	}
out:
	for (unsigned k = 0; k < OI_TIERS; k++)
		free(sw.st[k]);
	free(c);
	if (rc != GS_OK) {
		gs_op_index_destroy(ix);
		gs_error_append("operators: the %s index", gs_op_level_name(level));
		return rc;
	}
	*out = ix;
	return GS_OK;
}

void gs_op_index_destroy(struct gs_op_index *ix)
{
	if (!ix)
		return;
	free(ix->pieces);
	free(ix->threads);
	free(ix->labels);
	free(ix);
}

uint64_t gs_op_index_ranges(const struct gs_op_index *ix)
{
	return ix ? ix->n_cands : 0;
}

/* ---- per device ---------------------------------------------------------- */

/* A thread searched for by (pid, tid). */
struct thread_key {
	const struct oi_thread *threads;
	int64_t pid, tid;
};

static bool thread_before(const void *ctx, size_t i)
{
	const struct thread_key *k = ctx;
	const struct oi_thread *th = &k->threads[i];

	return th->pid < k->pid || (th->pid == k->pid && th->tid < k->tid);
}

/* The thread (pid, tid) of the index (one each), or NULL. */
static const struct oi_thread *find_thread(const struct gs_op_index *ix, int64_t pid, int64_t tid)
{
	struct thread_key key = {ix->threads, pid, tid};
	size_t i = gs_partition_point(ix->n_threads, thread_before, &key);

	return i < ix->n_threads && ix->threads[i].pid == pid && ix->threads[i].tid == tid ?
		       &ix->threads[i] :
		       NULL;
}

/* The piece of thread th that holds instant t, or NULL. `hint`: the piece
 * found last in this thread; the launches come mostly in time order, so
 * the search gallops forward from it when t is past its start. */
static const struct oi_piece *find_piece(const struct gs_op_index *ix, const struct oi_thread *th,
					 int64_t t, size_t *hint)
{
	size_t lo = th->first, hi = th->first + th->n, h = *hint;

	if (h >= lo && h < hi && ix->pieces[h].start <= t) {
		size_t a = h + 1, step = 1;

		while (a < hi && ix->pieces[a].start <= t) {
			h = a;
			a += step;
			step *= 2;
		}
		lo = h + 1;
		if (a < hi)
			hi = a;
	}
	/* the first piece starting after t */
	lo += gs_upper_bound_i64_at(ix->pieces + lo, hi - lo, sizeof(*ix->pieces),
				    offsetof(struct oi_piece, start), t);
	if (lo == th->first)
		return NULL;
	*hint = lo - 1;
	return ix->pieces[lo - 1].end > t ? &ix->pieces[lo - 1] : NULL;
}

struct oq_acc {
	uint64_t calls;
	uint64_t kernels;
	uint64_t copies;
	int64_t kernel_ns;
	int64_t copy_ns;
};

struct oq_pair {
	uint32_t row; /* label, or n_labels for no operator */
	struct gs_operator_kernel k;
};

struct oq_rank {
	struct gs_operator_kernel k;
	const char *name;
};

static int cmp_kernel(const void *pa, const void *pb)
{
	const struct oq_rank *a = pa, *b = pb;
	int c;

	if (a->k.ns != b->k.ns)
		return a->k.ns > b->k.ns ? -1 : 1;
	if (a->k.count != b->k.count)
		return a->k.count > b->k.count ? -1 : 1;
	c = strcmp(a->name, b->name);
	return c < 0 ? -1 : c > 0;
}

struct row_rank {
	struct gs_operator row;
	const char *name;
};

static int cmp_row(const void *pa, const void *pb)
{
	const struct row_rank *a = pa, *b = pb;
	int c;

	if (a->row.ns != b->row.ns)
		return a->row.ns > b->row.ns ? -1 : 1;
	if (a->row.outside != b->row.outside)
		return a->row.outside ? 1 : -1;
	c = strcmp(a->name, b->name);
	if (c)
		return c < 0 ? -1 : 1;
	return a->row.source < b->row.source ? -1 : a->row.source > b->row.source;
}

static bool in_window(const struct gs_op *op, int64_t ws, int64_t we)
{
	if (op->end_ns <= op->start_ns)
		return op->start_ns >= ws && op->start_ns <= we;
	return op->start_ns < we && op->end_ns > ws;
}

/* The rows from the sums: one per label with ops (and the outside row),
 * each with its op names grouped and ranked, then the rows ranked. */
static gs_status make_rows(const struct gs_trace *t, const struct gs_op_index *ix,
			   const struct oq_acc *acc, const struct oq_pair *pairs, size_t n_pairs,
			   struct gs_operators *out)
{
	size_t nl = ix->n_labels, n_rows = 0;
	size_t *first = calloc(nl + 2, sizeof(*first));
	struct oq_rank *kr = malloc((n_pairs ? n_pairs : 1) * sizeof(*kr));
	struct row_rank *rr = malloc((nl + 1) * sizeof(*rr));
	gs_status rc = GS_OK;

	out->names = malloc((n_pairs ? n_pairs : 1) * sizeof(*out->names));
	if (!first || !kr || !rr || !out->names) {
		rc = gs_nomem();
		goto out;
	}
	/* the pairs grouped by row (a counting sort), each group ranked */
	for (size_t i = 0; i < n_pairs; i++)
		first[pairs[i].row + 1]++;
	for (size_t l = 0; l <= nl; l++)
		first[l + 1] += first[l];
	for (size_t i = 0; i < n_pairs; i++)
		kr[first[pairs[i].row]++] =
			(struct oq_rank){pairs[i].k, gs_trace_string(t, pairs[i].k.name)};
	for (size_t l = nl + 1; l-- > 0;) /* first[l] back to the group's start */
		first[l + 1] = first[l];
	first[0] = 0;
	for (size_t l = 0; l <= nl; l++)
		gs_sort(kr + first[l], first[l + 1] - first[l], sizeof(*kr), cmp_kernel);
	for (size_t i = 0; i < n_pairs; i++)
		out->names[i] = kr[i].k;
	out->n_names = n_pairs;
	for (size_t l = 0; l <= nl; l++) {
		const struct oq_acc *a = &acc[l];
		struct gs_operator *o = &rr[n_rows].row;

		if (!a->kernels && !a->copies)
			continue;
		memset(o, 0, sizeof(*o));
		o->outside = l == nl;
		o->name = o->outside ? GS_NO_STRING : ix->labels[l].name;
		o->source = o->outside ? 0 : ix->labels[l].kind;
		o->calls = a->calls;
		o->total_calls = o->outside ? 0 : ix->labels[l].total;
		o->kernels = a->kernels;
		o->copies = a->copies;
		o->kernel_ns = a->kernel_ns;
		o->copy_ns = a->copy_ns;
		o->ns = a->kernel_ns + a->copy_ns;
		o->ops_by_name = out->names + first[l];
		o->n_ops_by_name = first[l + 1] - first[l];
		rr[n_rows].name = o->outside ? "" : gs_trace_string(t, o->name);
		n_rows++;
	}
	gs_sort(rr, n_rows, sizeof(*rr), cmp_row);
	out->rows = malloc((n_rows ? n_rows : 1) * sizeof(*out->rows));
	if (!out->rows) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t i = 0; i < n_rows; i++)
		out->rows[i] = rr[i].row;
	out->n_rows = n_rows;
out:
	free(first);
	free(kr);
	free(rr);
	return rc;
}

gs_status gs_operators_compute(const struct gs_trace *t, const struct gs_op_index *ix,
			       uint32_t device, int64_t window_start, int64_t window_end,
			       const uint32_t *launch, struct gs_operators *out)
{
	size_t n_ops, n_calls, n_runs = 0, n_pairs = 0, cap_pairs = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_api_call *calls = gs_trace_api_calls(t, &n_calls);
	struct gs_op_range *runs = NULL;
	struct oq_acc *acc = NULL;
	uint64_t *seen = NULL;
	struct oq_pair *pairs = NULL;
	struct gs_u64map map = {0};
	const struct oi_thread *th = NULL;
	size_t hint = SIZE_MAX; /* find_piece's, in thread th */
	int64_t ws = window_start, we = window_end > window_start ? window_end : window_start;
	gs_status rc;

	memset(out, 0, sizeof(*out));
	out->level = ix ? (uint8_t)ix->level : GS_OP_LEVEL_OPERATOR;
	out->ranges = gs_op_index_ranges(ix);
	if (!out->ranges)
		return GS_OK;
	rc = gs_device_op_ranges(t, device, &runs, &n_runs);
	if (rc != GS_OK)
		return rc;
	acc = calloc(ix->n_labels + 1, sizeof(*acc));
	seen = calloc(ix->n_cands / 64 + 1, sizeof(*seen));
	if (!acc || !seen || gs_u64map_reserve(&map, 256) != GS_OK) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t r = 0; r < n_runs && rc == GS_OK; r++)
		for (size_t i = runs[r].first; i < runs[r].first + runs[r].count; i++) {
			const struct gs_op *op = &ops[i];
			uint32_t c = launch ? launch[i] : GS_NO_INDEX;
			int64_t s = op->start_ns > ws ? op->start_ns : ws;
			int64_t e = op->end_ns < we ? op->end_ns : we;
			int64_t ns = e > s ? e - s : 0;
			const struct oi_piece *p = NULL;
			bool copy = op->kind != GS_OP_KERNEL;
			uint32_t row;
			uint64_t key, v;
			struct oq_acc *a;

			if (!in_window(op, ws, we))
				continue;
			if (c >= n_calls) {
				out->unlinked_ops++;
				out->unlinked_ns += ns;
				continue;
			}
			out->ops++;
			out->ns += ns;
			if (!th || th->pid != calls[c].pid || th->tid != calls[c].tid) {
				th = find_thread(ix, calls[c].pid, calls[c].tid);
				hint = SIZE_MAX;
			}
			if (th)
				p = find_piece(ix, th, calls[c].start_ns, &hint);
			row = p ? p->label : (uint32_t)ix->n_labels;
			a = &acc[row];
			if (p && !(seen[p->cand / 64] >> (p->cand % 64) & 1)) {
				seen[p->cand / 64] |= 1ull << (p->cand % 64);
				a->calls++;
			}
			if (copy) {
				a->copies++;
				a->copy_ns += ns;
			} else {
				a->kernels++;
				a->kernel_ns += ns;
			}
			key = (uint64_t)row << 32 | op->name;
			if (!gs_u64map_get(&map, key, &v)) {
				v = n_pairs;
				rc = gs_vec_grow((void **)&pairs, &cap_pairs, n_pairs + 1,
						 sizeof(*pairs));
				if (rc == GS_OK)
					rc = gs_u64map_put(&map, key, v, false);
				if (rc != GS_OK)
					break;
				pairs[n_pairs++] =
					(struct oq_pair){row, {.name = op->name, .kind = op->kind}};
			}
			/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): non-empty whenever read */
			pairs[v].k.count++;
			pairs[v].k.ns += ns;
		}
	if (rc == GS_OK)
		rc = make_rows(t, ix, acc, pairs, n_pairs, out);
out:
	free(runs);
	free(acc);
	free(seen);
	free(pairs);
	gs_u64map_fini(&map);
	if (rc != GS_OK) {
		gs_operators_fini(out);
		gs_error_append("device %u: operators", device);
	}
	return rc;
}

void gs_operators_fini(struct gs_operators *o)
{
	free(o->rows);
	free(o->names);
	memset(o, 0, sizeof(*o));
}
