/* SPDX-License-Identifier: MIT */
/*
 * The joins gs_trace_finish computes once for every analysis and exporter:
 * each op and sync to the API call that issued it (by correlation id, under
 * the rule of trace.h), and each event sync or stream wait to the event
 * record it names.
 */
#include "trace_priv.h"

#include <gpuscope/search.h>
#include <gpuscope/u64map.h>
#include <gpuscope/workers.h>

#include <stdlib.h>
#include <string.h>

/* ---- joins: ops and syncs to the API calls that issued them ---- */

/*
 * The API calls by correlation id: for an id, the calls that carry it,
 * ascending by index (their order in gs_trace_api_calls()). When the ids
 * span at most about four times their number (they are a counter), a
 * direct table: first[id - base] .. first[id - base + 1] into idx; else
 * the (id, index) pairs sorted, found by binary search.
 */
/* An id of at most this many calls is joined by a scan of them. */
#define GS_JOIN_SCAN 16
/* No real trace puts one id on more calls than this. */
#define GS_JOIN_MAX_CALLS (1u << 20)
#define JOIN_REPEAT_WARNING                                                                        \
	"API calls repeat a correlation id of their thread (neither encloses the other): "         \
	"each op or sync with such an id joined to the call that started last before it"

struct corr_ent {
	uint64_t corr;
	uint32_t idx;
};

struct call_ix {
	uint64_t base;
	size_t range;          /* direct: ids base .. base + range - 1 */
	uint32_t *first;       /* direct: range + 1 offsets into idx */
	uint32_t *idx;         /* direct: call indices grouped by id */
	struct corr_ent *ents; /* sorted: (id, index) pairs */
	size_t n;              /* calls with an id */
	bool idx_lent;         /* idx is in the caller's scratch: not freed */
	/* Ids of more than GS_JOIN_SCAN calls, per position of the group in
	 * the index (call_ix_at): the group's calls in three orders, each by
	 * start, end descending, index descending, after its key: by_thread
	 * after (pid, tid), by_pid after pid, by_all alone; thr_end is the
	 * largest end so far in by_thread, from the start of each thread. NULL
	 * when no id has that many calls. */
	uint32_t *by_thread, *by_pid, *by_all;
	int64_t *thr_end;
};

static int cmp_corr_ent(const void *pa, const void *pb)
{
	const struct corr_ent *a = pa, *b = pb;

	CMP(a->corr, b->corr);
	CMP(a->idx, b->idx);
	return 0;
}

static uint64_t key_corr_ent(const void *p)
{
	return ((const struct corr_ent *)p)->corr;
}

/*
 * The index of the n_api calls' ids. The calls are 56-byte records (630 MB
 * at 1e7 ops): one pass gathers their ids into a compact array while it
 * finds the smallest and largest, so that counting and filling the direct
 * table read 8 bytes a call, not a record each. The ids and the direct
 * table's idx go into `scratch` (scratch_bytes long; memory the caller
 * has touched already, and frees) when it holds 12 bytes a call, so that
 * they cost no fresh pages.
 */
static gs_status call_ix_build(struct call_ix *ix, const struct gs_api_call *api, size_t n_api,
			       void *scratch, size_t scratch_bytes)
{
	bool lent = scratch && scratch_bytes / (sizeof(uint64_t) + sizeof(uint32_t)) >= n_api;
	uint64_t lo = UINT64_MAX, hi = 0, *corr;
	gs_status rc = GS_OK;

	memset(ix, 0, sizeof(*ix));
	corr = lent ? scratch : malloc((n_api ? n_api : 1) * sizeof(*corr));
	if (!corr)
		return gs_nomem();
	for (size_t i = 0; i < n_api; i++) {
		uint64_t c = api[i].correlation;

		corr[i] = c;
		if (!c)
			continue;
		ix->n++;
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	if (!ix->n)
		goto out;
	if (hi - lo < 4 * (uint64_t)ix->n + 1024) {
		ix->base = lo;
		ix->range = (size_t)(hi - lo + 1);
		ix->first = calloc(ix->range + 1, sizeof(*ix->first));
		ix->idx_lent = lent;
		ix->idx = lent ? (uint32_t *)(corr + n_api) : calloc(ix->n, sizeof(*ix->idx));
		if (!ix->first || !ix->idx) {
			rc = gs_nomem();
			goto out;
		}
		for (size_t i = 0; i < n_api; i++)
			if (corr[i])
				ix->first[corr[i] - lo + 1]++;
		for (size_t k = 0; k < ix->range; k++)
			ix->first[k + 1] += ix->first[k];
		/* Fill in call order; first[k] walks to the next group's start,
		 * then is moved back one group. */
		for (size_t i = 0; i < n_api; i++)
			if (corr[i])
				ix->idx[ix->first[corr[i] - lo]++] = (uint32_t)i;
		memmove(ix->first + 1, ix->first, ix->range * sizeof(*ix->first));
		ix->first[0] = 0;
		goto out;
	}
	ix->ents = malloc(ix->n * sizeof(*ix->ents));
	if (!ix->ents) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t i = 0, k = 0; i < n_api; i++)
		if (corr[i])
			ix->ents[k++] = (struct corr_ent){corr[i], (uint32_t)i};
	rc = trace_sort(ix->ents, ix->n, sizeof(*ix->ents), cmp_corr_ent, key_corr_ent);
out:
	if (!lent)
		free(corr);
	return rc;
}

static void call_ix_free(struct call_ix *ix)
{
	free(ix->first);
	if (!ix->idx_lent)
		free(ix->idx);
	free(ix->ents);
	free(ix->by_thread);
	free(ix->by_pid);
	free(ix->by_all);
	free(ix->thr_end);
}

struct corr_key {
	const struct corr_ent *ents;
	uint64_t corr;
};

/* Entry i has an id below the one looked for. */
static bool corr_before(const void *ctx, size_t i)
{
	const struct corr_key *k = ctx;

	return k->ents[i].corr < k->corr;
}

/* The calls with id `corr` (0: none): their number, in call order from
 * position *pos (call_ix_at). */
static size_t call_ix_find(const struct call_ix *ix, uint64_t corr, size_t *pos)
{
	struct corr_key key = {ix->ents, corr};
	size_t a, lo;

	*pos = 0;
	if (!corr || !ix->n)
		return 0;
	if (ix->first) {
		if (corr < ix->base || corr - ix->base >= ix->range)
			return 0;
		*pos = ix->first[corr - ix->base];
		return ix->first[corr - ix->base + 1] - *pos;
	}
	a = gs_partition_point(ix->n, corr_before, &key);
	lo = a;
	while (a < ix->n && ix->ents[a].corr == corr)
		a++;
	*pos = lo;
	return a - lo;
}

static uint32_t call_ix_at(const struct call_ix *ix, size_t pos)
{
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
	return ix->first ? ix->idx[pos] : ix->ents[pos].idx;
}

/* Who asks for a call: its process (0: unknown), its thread (-1: unknown,
 * as for an op) and its start. */
struct call_want {
	int64_t pid, tid, before_ns;
};

/* True when call a is preferred over call b (the rule: trace.h). */
static bool better_call(const struct gs_api_call *a, const struct gs_api_call *b,
			const struct call_want *w)
{
	if (w->tid >= 0) {
		bool ta = a->pid == w->pid && a->tid == w->tid;
		bool tb = b->pid == w->pid && b->tid == w->tid;

		if (ta != tb)
			return ta;
	}
	if (w->pid > 0 && (a->pid == w->pid) != (b->pid == w->pid))
		return a->pid == w->pid;
	if ((a->start_ns <= w->before_ns) != (b->start_ns <= w->before_ns))
		return a->start_ns <= w->before_ns;
	if (a->start_ns != b->start_ns)
		return a->start_ns > b->start_ns;
	return a->end_ns < b->end_ns; /* the inner one; enclosing calls come next */
}

/* The rule by a scan of the n calls from position pos: for the few calls
 * an id has in real traces (a runtime call and its driver call). */
static uint32_t pick_scan(const struct call_ix *ix, const struct gs_api_call *api, size_t pos,
			  size_t n, const struct call_want *w)
{
	uint32_t best = GS_NO_INDEX, outer;

	for (size_t k = 0; k < n; k++) {
		uint32_t c = call_ix_at(ix, pos + k);

		if (best == GS_NO_INDEX || better_call(&api[c], &api[best], w))
			best = c;
	}
	/* A call of the same thread around the chosen one: the outermost. */
	outer = best;
	for (size_t k = 0; k < n; k++) {
		uint32_t c = call_ix_at(ix, pos + k);
		const struct gs_api_call *a = &api[c], *o = &api[outer], *b = &api[best];

		if (a->pid != b->pid || a->tid != b->tid || c == outer)
			continue;
		if (a->start_ns <= b->start_ns && a->end_ns >= b->end_ns &&
		    (a->start_ns < o->start_ns ||
		     (a->start_ns == o->start_ns && a->end_ns > o->end_ns)))
			outer = c;
	}
	return outer;
}

/* ---- ids of many calls: the rule by binary searches ----
 *
 * In an order by start, end descending and index descending, the rule's
 * choice among calls that started no later than the record is the last of
 * them (the latest start, then the earliest end, then the lowest index),
 * and without such a call the last of all. The calls the rule looks at
 * first (the record's thread, else its process, else all) are one run of
 * by_thread or by_pid, found by binary search; the call around the chosen
 * one is the first of its thread's run whose largest end so far reaches
 * the chosen one's end. */

struct call_key {
	int64_t pid, tid, start, end;
	uint32_t idx;
};

static int cmp_key_span(const struct call_key *a, const struct call_key *b)
{
	CMP(a->start, b->start);
	CMP(b->end, a->end);
	CMP(b->idx, a->idx);
	return 0;
}

static int cmp_key_all(const void *pa, const void *pb)
{
	return cmp_key_span(pa, pb);
}

static int cmp_key_pid(const void *pa, const void *pb)
{
	const struct call_key *a = pa, *b = pb;

	CMP(a->pid, b->pid);
	return cmp_key_span(a, b);
}

static int cmp_key_thread(const void *pa, const void *pb)
{
	const struct call_key *a = pa, *b = pb;

	CMP(a->pid, b->pid);
	CMP(a->tid, b->tid);
	return cmp_key_span(a, b);
}

/* The first place in ord[lo, hi) whose call is not before (pid, tid) (not
 * before pid alone without with_tid); with `upper`, the first after it. */
struct owner_key {
	const uint32_t *ord;
	const struct gs_api_call *api;
	int64_t pid, tid;
	bool with_tid, upper;
};

/* The call at place i of the order is before the owner looked for (or
 * is of it, for the upper bound). */
static bool owner_before(const void *ctx, size_t i)
{
	const struct owner_key *k = ctx;
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
	const struct gs_api_call *c = &k->api[k->ord[i]];
	int d = c->pid != k->pid                ? (c->pid < k->pid ? -1 : 1) :
		k->with_tid && c->tid != k->tid ? (c->tid < k->tid ? -1 : 1) :
						  0;

	return d < 0 || (k->upper && d == 0);
}

static size_t owner_bound(const uint32_t *ord, size_t lo, size_t hi, const struct gs_api_call *api,
			  int64_t pid, int64_t tid, bool with_tid, bool upper)
{
	struct owner_key k = {ord + lo, api, pid, tid, with_tid, upper};

	return lo + gs_partition_point(hi - lo, owner_before, &k);
}

/* What started_by compares: the calls api[ord[i]] with the time `before`. */
struct start_key {
	const uint32_t *ord;
	const struct gs_api_call *api;
	int64_t before;
};

/* Call i started at or before `before`. */
static bool started_by(const void *ctx, size_t i)
{
	const struct start_key *k = ctx;

	return k->api[k->ord[i]].start_ns <= k->before;
}

/* Among ord[lo, hi) (lo < hi), the rule's choice by start alone. */
static uint32_t last_before(const uint32_t *ord, size_t lo, size_t hi,
			    const struct gs_api_call *api, int64_t before)
{
	struct start_key k = {ord + lo, api, before};
	size_t a = lo + gs_partition_point(hi - lo, started_by, &k);

	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
	return ord[a > lo ? a - 1 : hi - 1];
}

/* The run of (pid, tid) in by_thread, or of pid in by_pid, in the group of
 * n calls from pos; its choice, GS_NO_INDEX when the run is empty. */
static uint32_t pick_in_run(const uint32_t *ord, size_t pos, size_t n,
			    const struct gs_api_call *api, int64_t pid, int64_t tid, bool with_tid,
			    int64_t before)
{
	size_t lo = owner_bound(ord, pos, pos + n, api, pid, tid, with_tid, false);
	size_t hi = owner_bound(ord, lo, pos + n, api, pid, tid, with_tid, true);

	return lo < hi ? last_before(ord, lo, hi, api, before) : GS_NO_INDEX;
}

/* What same_span compares: the calls api[ord[i]] with o's span. */
struct span_key {
	const uint32_t *ord;
	const struct gs_api_call *api;
	const struct gs_api_call *o;
};

/* Call i has o's start and end. */
static bool same_span(const void *ctx, size_t i)
{
	const struct span_key *k = ctx;
	const struct gs_api_call *c = &k->api[k->ord[i]];

	return c->start_ns == k->o->start_ns && c->end_ns == k->o->end_ns;
}

static uint32_t pick_large(const struct call_ix *ix, const struct gs_api_call *api, size_t pos,
			   size_t n, const struct call_want *w)
{
	uint32_t best = GS_NO_INDEX;
	const struct gs_api_call *b, *o;
	struct span_key sk;
	size_t lo, hi, a;

	if (w->tid >= 0)
		best = pick_in_run(ix->by_thread, pos, n, api, w->pid, w->tid, true, w->before_ns);
	if (best == GS_NO_INDEX && w->pid > 0)
		best = pick_in_run(ix->by_pid, pos, n, api, w->pid, 0, false, w->before_ns);
	if (best == GS_NO_INDEX)
		best = last_before(ix->by_all, pos, pos + n, api, w->before_ns);
	/* The outermost call of its thread around it: the first of the
	 * thread's run whose largest end so far reaches its end (the run is
	 * by start, so that call starts no later), the lowest index of those
	 * with that span (the last of them), or itself when it has it. */
	b = &api[best];
	lo = owner_bound(ix->by_thread, pos, pos + n, api, b->pid, b->tid, true, false);
	hi = owner_bound(ix->by_thread, lo, pos + n, api, b->pid, b->tid, true, true);
	a = lo + gs_lower_bound_i64(ix->thr_end + lo, hi - lo, b->end_ns);
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
	o = &api[ix->by_thread[a]];
	if (o->start_ns == b->start_ns && o->end_ns == b->end_ns)
		return best;
	sk = (struct span_key){ix->by_thread + a + 1, api, o};
	lo = a + 1 + gs_partition_point(hi - (a + 1), same_span, &sk);
	return ix->by_thread[lo - 1];
}

static uint32_t pick_call(const struct call_ix *ix, const struct gs_api_call *api, uint64_t corr,
			  const struct call_want *w)
{
	size_t pos, n = call_ix_find(ix, corr, &pos);

	if (n <= 1)
		return n ? call_ix_at(ix, pos) : GS_NO_INDEX;
	if (n <= GS_JOIN_SCAN)
		return pick_scan(ix, api, pos, n, w);
	return pick_large(ix, api, pos, n, w);
}

/* The n calls from pos into key (room for n), in the order of cmp. */
static void group_keys(const struct call_ix *ix, const struct gs_api_call *api, size_t pos,
		       size_t n, struct call_key *key, int (*cmp)(const void *, const void *))
{
	for (size_t k = 0; k < n; k++) {
		uint32_t c = call_ix_at(ix, pos + k);

		key[k] = (struct call_key){api[c].pid, api[c].tid, api[c].start_ns, api[c].end_ns,
					   c};
	}
	gs_sort(key, n, sizeof(*key), cmp);
}

/*
 * One id's n calls (n >= 2) from pos: the calls of a thread that repeat
 * its id (a call that no other call of the thread with the id encloses,
 * but the first: a runtime call and its driver call nest, a record kept
 * twice is enclosed by its copy) added to *repeats; for more than
 * GS_JOIN_SCAN calls, the group's orders (call_ix). `key` has room for n.
 */
static void group_index(struct call_ix *ix, const struct gs_api_call *api, size_t pos, size_t n,
			struct call_key *key, uint64_t *repeats)
{
	int64_t end = 0;

	group_keys(ix, api, pos, n, key, cmp_key_thread);
	for (size_t k = 0; k < n; k++) {
		bool first = !k || key[k].pid != key[k - 1].pid || key[k].tid != key[k - 1].tid;

		if (!first && key[k].end > end)
			(*repeats)++;
		if (first || key[k].end > end)
			end = key[k].end;
		if (n > GS_JOIN_SCAN) {
			ix->by_thread[pos + k] = key[k].idx;
			ix->thr_end[pos + k] = end;
		}
	}
	if (n <= GS_JOIN_SCAN)
		return;
	group_keys(ix, api, pos, n, key, cmp_key_pid);
	for (size_t k = 0; k < n; k++)
		ix->by_pid[pos + k] = key[k].idx;
	group_keys(ix, api, pos, n, key, cmp_key_all);
	for (size_t k = 0; k < n; k++)
		ix->by_all[pos + k] = key[k].idx;
}

/*
 * Every id of two or more calls: the repeats counted (*repeats), the
 * orders of the large groups built. GS_ERR_LIMIT over GS_JOIN_MAX_CALLS
 * calls an id.
 */
/* The group at *g (an index of `first`, or a position in `ents`): its
 * first position in *pos and its size; *g moves past it. */
static size_t next_group(const struct call_ix *ix, size_t *g, size_t *pos)
{
	if (ix->first) {
		*pos = ix->first[*g];
		return ix->first[++*g] - *pos;
	}
	*pos = *g;
	while (*g < ix->n && ix->ents[*g].corr == ix->ents[*pos].corr)
		(*g)++;
	return *g - *pos;
}

static gs_status call_ix_groups(struct call_ix *ix, const struct gs_api_call *api,
				uint64_t *repeats)
{
	size_t n_groups = ix->first ? ix->range : ix->n, largest = 0, big = 0;
	struct call_key *key;

	*repeats = 0;
	/* Pass 1: the largest group, and whether any needs the orders. */
	for (size_t g = 0, pos = 0; g < n_groups;) {
		size_t n = next_group(ix, &g, &pos);

		if (n > GS_JOIN_MAX_CALLS) {
			gs_error_append(
				"correlation id %llu is on %zu API calls, more than %u: "
				"not joined (a launch has one, or two with its driver call)",
				(unsigned long long)api[call_ix_at(ix, pos)].correlation, n,
				GS_JOIN_MAX_CALLS);
			return GS_ERR_LIMIT;
		}
		largest = n > largest ? n : largest;
		big += n > GS_JOIN_SCAN;
	}
	if (largest < 2)
		return GS_OK;
	key = malloc(largest * sizeof(*key));
	if (!key)
		return gs_nomem();
	if (big) {
		ix->by_thread = malloc(ix->n * sizeof(*ix->by_thread));
		ix->by_pid = malloc(ix->n * sizeof(*ix->by_pid));
		ix->by_all = malloc(ix->n * sizeof(*ix->by_all));
		ix->thr_end = malloc(ix->n * sizeof(*ix->thr_end));
		if (!ix->by_thread || !ix->by_pid || !ix->by_all || !ix->thr_end) {
			free(key);
			return gs_nomem();
		}
	}
	for (size_t g = 0, pos = 0; g < n_groups;) {
		size_t n = next_group(ix, &g, &pos);

		if (n >= 2)
			group_index(ix, api, pos, n, key, repeats);
	}
	free(key);
	return GS_OK;
}

/*
 * Per op its launch call, per sync its call, by correlation id under the
 * rule of trace.h. O(A + N + Y) when the ids are dense, else
 * O(A log A + (N + Y) log A); an id of more than GS_JOIN_SCAN calls adds
 * O(log) per record and O(n log n) for its n calls, whatever the records
 * that share it.
 */
/* The ops from..to-1 each to its launch call: the loop of the joins, which
 * only reads the index and the calls (pick_call has no side effects) and
 * writes its own part of op_launch, so its halves may run at once. */
struct op_join {
	struct gs_trace *t;
	const struct call_ix *ix;
	size_t from, to;
};

static void join_ops(void *arg)
{
	const struct op_join *j = arg;
	struct gs_trace *t = j->t;
	size_t ns = t->streams.count;

	for (size_t i = j->from; i < j->to; i++) {
		const struct gs_op *op = &t->ops[i];
		struct call_want w = {.pid = op->stream < ns ? t->streams.streams[op->stream].pid :
							       0,
				      .tid = -1,
				      .before_ns = op->start_ns};

		t->op_launch[i] = pick_call(j->ix, t->api_calls, op->correlation, &w);
	}
}

/* Ops to split the loop over two threads; below, a thread costs more. */
#define GS_JOIN_SPLIT_MIN (1u << 16)

gs_status trace_joins_compute(struct gs_trace *t, uint64_t *repeats, bool split, void *scratch,
			      size_t scratch_bytes)
{
	struct op_join lower, upper;
	struct gs_aside half;
	bool two = false;
	struct call_ix ix;
	gs_status rc;

	*repeats = 0;
	free(t->op_launch);
	free(t->sync_call);
	t->op_launch = malloc((t->n_ops ? t->n_ops : 1) * sizeof(*t->op_launch));
	t->sync_call = malloc((t->n_syncs ? t->n_syncs : 1) * sizeof(*t->sync_call));
	if (!t->op_launch || !t->sync_call) {
		free(scratch);
		return gs_nomem();
	}
	if (t->n_api_calls >= UINT32_MAX) {
		free(scratch);
		gs_error_append("too many API calls to join (%zu)", t->n_api_calls);
		return GS_ERR_LIMIT;
	}
	rc = call_ix_build(&ix, t->api_calls, t->n_api_calls, scratch, scratch_bytes);
	if (!rc)
		rc = call_ix_groups(&ix, t->api_calls, repeats);
	if (rc) {
		call_ix_free(&ix);
		free(scratch);
		return rc;
	}
	lower = (struct op_join){t, &ix, 0, t->n_ops};
	if (split && t->n_ops >= GS_JOIN_SPLIT_MIN) {
		upper = (struct op_join){t, &ix, t->n_ops / 2, t->n_ops};
		two = gs_aside_start(&half, join_ops, &upper);
		if (two)
			lower.to = upper.from;
	}
	join_ops(&lower);
	for (size_t i = 0; i < t->n_syncs; i++) {
		const struct gs_sync *y = &t->syncs[i];
		struct call_want w = {.pid = y->pid, .tid = y->tid, .before_ns = y->start_ns};

		t->sync_call[i] = pick_call(&ix, t->api_calls, y->correlation, &w);
	}
	if (two)
		gs_aside_join(&half);
	call_ix_free(&ix);
	free(scratch);
	return GS_OK;
}

gs_status trace_joins_warn(struct gs_trace *t, uint64_t repeats)
{
	return gs_trace_set_warning(t, JOIN_REPEAT_WARNING, repeats, GS_WARNING_OTHER);
}

gs_status gs_trace_compute_joins(struct gs_trace *t)
{
	uint64_t repeats;
	gs_status rc = trace_joins_compute(t, &repeats, false, NULL, 0);

	return rc ? rc : trace_joins_warn(t, repeats);
}

/* ---- the event record an event sync or stream wait names ---- */

#define UNHELD_WAIT_WARNING                                                                        \
	"stream waits name an event record the trace does not hold; their dependencies are "       \
	"unknown"

/* An event record by (process, event id, correlation): the fallback. */
struct event_key {
	int64_t pid;
	uint64_t event_id;
	uint64_t corr;
	uint32_t rec;
	uint32_t device, context; /* of the recording stream */
};

static int cmp_event_key(const void *pa, const void *pb)
{
	const struct event_key *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->event_id != b->event_id)
		return a->event_id < b->event_id ? -1 : 1;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	return a->rec < b->rec ? -1 : a->rec > b->rec;
}

static bool names_event(const struct gs_sync *y)
{
	return y->kind == GS_SYNC_EVENT || y->kind == GS_SYNC_STREAM_WAIT;
}

/* A sync that names its event by id alone: no sync id, no event correlation. */
static bool needs_event_key(const struct gs_sync *y)
{
	return y->sync_id == GS_NO_SYNC_ID && !y->event_correlation && y->event_id &&
	       y->correlation;
}

struct event_index {
	struct gs_u64map by_sync_id, by_corr;
	struct event_key *keys; /* sorted; only when a sync needs the fallback */
	size_t n_keys;
};

static gs_status event_index_build(const struct gs_trace *t, struct event_index *ev, bool keys)
{
	const struct gs_stream *st = t->streams.streams;
	size_t ns = t->streams.count;

	if (gs_u64map_reserve(&ev->by_sync_id, t->n_event_records) ||
	    gs_u64map_reserve(&ev->by_corr, t->n_event_records))
		return GS_ERR_NOMEM;
	/* The latest record wins for a sync id (ids are not reused) and for a
	 * correlation (one call records one event). */
	for (size_t i = 0; i < t->n_event_records; i++) {
		const struct gs_event_record *r = &t->event_records[i];

		if (r->sync_id != GS_NO_SYNC_ID)
			gs_u64map_put(&ev->by_sync_id, r->sync_id, (uint32_t)i, true);
		if (r->correlation)
			gs_u64map_put(&ev->by_corr, r->correlation, (uint32_t)i, true);
	}
	if (!keys)
		return GS_OK;
	ev->keys = malloc((t->n_event_records ? t->n_event_records : 1) * sizeof(*ev->keys));
	if (!ev->keys)
		return gs_nomem();
	for (size_t i = 0; i < t->n_event_records; i++) {
		const struct gs_event_record *r = &t->event_records[i];

		if (!r->event_id || !r->correlation || r->stream >= ns)
			continue;
		ev->keys[ev->n_keys++] = (struct event_key){.pid = st[r->stream].pid,
							    .event_id = r->event_id,
							    .corr = r->correlation,
							    .rec = (uint32_t)i,
							    .device = st[r->stream].device,
							    .context = st[r->stream].context};
	}
	gs_sort(ev->keys, ev->n_keys, sizeof(*ev->keys), cmp_event_key);
	return GS_OK;
}

/* What event_key_before compares: the sorted keys with the one wanted. */
struct event_want {
	const struct event_key *keys;
	const struct event_key *want;
};

/* Key i sorts before the one wanted. */
static bool event_key_before(const void *ctx, size_t i)
{
	const struct event_want *w = ctx;

	return cmp_event_key(&w->keys[i], w->want) < 0;
}

/*
 * Without a sync id or an event correlation (drivers before cudaEventSyncId,
 * or an id of 0): the latest record of the same event in the same context
 * (the waiting stream's; the device's for a host wait) whose correlation
 * is below the sync's. Correlation ids come from one increasing counter, so
 * that is the record the wait saw, whatever order the records came in.
 */
static uint32_t latest_record_before(const struct gs_trace *t, const struct event_index *ev,
				     const struct gs_sync *y)
{
	const struct gs_stream *ws = y->stream < t->streams.count ? &t->streams.streams[y->stream] :
								    NULL;
	const struct event_key want = {.pid = y->pid,
				       .event_id = y->event_id,
				       .corr = y->correlation};
	const struct event_want w = {ev->keys, &want};
	/* the first key at or after (pid, event, corr) */
	size_t lo = gs_partition_point(ev->n_keys, event_key_before, &w);

	while (lo-- > 0) {
		const struct event_key *k = &ev->keys[lo];

		if (k->pid != y->pid || k->event_id != y->event_id)
			break;
		if (ws ? k->context == ws->context && k->device == ws->device :
			 k->device == y->device)
			return k->rec;
	}
	return GS_NO_INDEX;
}

static uint32_t event_record_of(const struct gs_trace *t, const struct event_index *ev,
				const struct gs_sync *y)
{
	uint64_t idx;

	if (y->sync_id != GS_NO_SYNC_ID && gs_u64map_get(&ev->by_sync_id, y->sync_id, &idx))
		return (uint32_t)idx;
	if (y->event_correlation && gs_u64map_get(&ev->by_corr, y->event_correlation, &idx))
		return (uint32_t)idx;
	if (needs_event_key(y))
		return latest_record_before(t, ev, y);
	return GS_NO_INDEX;
}

/*
 * Per event sync and stream wait, the event record it names: by its sync id,
 * else by the correlation of the record call, else the latest record of its
 * event before it (needs_event_key). A stream wait whose record the trace
 * does not hold, and that does not carry the recording stream and the
 * record's correlation itself, links nothing: the dependency graph cannot
 * place what it waited for. Those are counted in one warning.
 */
gs_status trace_event_records_compute(struct gs_trace *t, uint64_t *unheld)
{
	struct event_index ev = {0};
	bool any = false, keys = false;
	gs_status rc;

	*unheld = 0;
	free(t->sync_record);
	t->sync_record = NULL;
	for (size_t i = 0; i < t->n_syncs; i++) {
		any |= names_event(&t->syncs[i]);
		keys |= names_event(&t->syncs[i]) && needs_event_key(&t->syncs[i]);
	}
	if (!any)
		return GS_OK;
	t->sync_record = malloc(t->n_syncs * sizeof(*t->sync_record));
	if (!t->sync_record)
		return gs_nomem();
	if (t->n_event_records >= GS_NO_INDEX) {
		gs_error_append("too many event records (%zu)", t->n_event_records);
		return GS_ERR_LIMIT;
	}
	gs_u64map_init(&ev.by_sync_id);
	gs_u64map_init(&ev.by_corr);
	rc = event_index_build(t, &ev, keys);
	for (size_t i = 0; i < t->n_syncs && !rc; i++) {
		const struct gs_sync *y = &t->syncs[i];

		t->sync_record[i] = names_event(y) ? event_record_of(t, &ev, y) : GS_NO_INDEX;
		if (y->kind == GS_SYNC_STREAM_WAIT && t->sync_record[i] == GS_NO_INDEX &&
		    (y->wait_on_stream >= t->streams.count || !y->event_correlation))
			(*unheld)++;
	}
	gs_u64map_fini(&ev.by_sync_id);
	gs_u64map_fini(&ev.by_corr);
	free(ev.keys);
	return rc;
}

gs_status trace_event_records_warn(struct gs_trace *t, uint64_t unheld)
{
	return gs_trace_set_warning(t, UNHELD_WAIT_WARNING, unheld, GS_WARNING_UNHELD_WAITS);
}

gs_status gs_trace_resolve_event_records(struct gs_trace *t)
{
	uint64_t unheld;
	gs_status rc = trace_event_records_compute(t, &unheld);

	return rc ? rc : trace_event_records_warn(t, unheld);
}
