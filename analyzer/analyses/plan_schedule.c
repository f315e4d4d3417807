/* SPDX-License-Identifier: MIT */
/*
 * gpuscope plan: the stage calculator's schedule (docs/design.md, Plan);
 * the input is plan_parse.c's, the writers plan_output.c's.
 *
 * The schedule: a stage's predecessors are its depends_on and
 * the stage declared before it on the same stream; it starts when the last
 * of them ends (0 without any). serial = sum of durations, ideal = latest
 * end, saved = serial - ideal, overlap_ratio = saved / serial (0 when serial
 * is 0), net_saved = saved - exposed_overhead. The overlap conditions come
 * from declared resources (pageable copies, copy engines), see gpuscope/plan.h.
 *
 * Complexity, for S stages and E edges (depends_on entries, at most S
 * stream-order edges, at most 2 S sync_copy edges):
 *   - names and streams: hash maps, O(S) expected;
 *   - edges sorted once, O(E log E); cycle checks (Kahn), O(S + E);
 *   - the schedule: an event simulation with binary heaps, O((S + E) log S);
 *   - hidden time: sorted unions of compute intervals with prefix sums and
 *     binary search per copy, O(S log S); the breakdown: three sorted
 *     unions, O(S log S).
 */
#include "plan_priv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/search.h>
#include <gpuscope/trace_model.h> /* GS_NO_INDEX */

/* ------------------------------------------------------------------------ */
/* A string -> index hash map (open addressing, FNV-1a)                      */
/* ------------------------------------------------------------------------ */

struct plan_map {
	const char **keys;
	uint32_t *vals;
	size_t mask;
};

static gs_status plan_map_init(struct plan_map *m, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	m->keys = calloc(cap, sizeof(*m->keys));
	m->vals = calloc(cap, sizeof(*m->vals));
	m->mask = cap - 1;
	if (!m->keys || !m->vals) {
		free(m->keys); /* the caller frees nothing on failure */
		free(m->vals);
		m->keys = NULL;
		m->vals = NULL;
		gs_error_append("out of memory for %zu names", n);
		return GS_ERR_NOMEM;
	}
	return GS_OK;
}

static void plan_map_fini(struct plan_map *m)
{
	free(m->keys);
	free(m->vals);
}

static size_t plan_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

/* The slot of `key`: its own or the empty one where it would go. */
static size_t plan_map_slot(const struct plan_map *m, const char *key)
{
	size_t i = plan_hash(key) & m->mask;

	while (m->keys[i] && strcmp(m->keys[i], key) != 0)
		i = (i + 1) & m->mask;
	return i;
}

static uint32_t plan_map_get(const struct plan_map *m, const char *key)
{
	size_t i = plan_map_slot(m, key);

	return m->keys[i] ? m->vals[i] : GS_NO_INDEX;
}

/* ------------------------------------------------------------------------ */
/* A min-heap of (key, stage): ties by stage index                           */
/* ------------------------------------------------------------------------ */

struct plan_hent {
	int64_t key;
	uint32_t v;
};

struct plan_heap {
	struct plan_hent *a;
	size_t n;
};

static bool plan_hless(const struct plan_hent *x, const struct plan_hent *y)
{
	return x->key < y->key || (x->key == y->key && x->v < y->v);
}

/* The heap's array holds every stage at most once: no growth needed. */
static void plan_heap_push(struct plan_heap *h, int64_t key, uint32_t v)
{
	size_t i = h->n++;

	h->a[i].key = key;
	h->a[i].v = v;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		struct plan_hent t;

		if (!plan_hless(&h->a[i], &h->a[up]))
			break;
		t = h->a[i];
		h->a[i] = h->a[up];
		h->a[up] = t;
		i = up;
	}
}

static struct plan_hent plan_heap_pop(struct plan_heap *h)
{
	struct plan_hent top = h->a[0];
	size_t i = 0;

	h->a[0] = h->a[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct plan_hent t;

		if (l < h->n && plan_hless(&h->a[l], &h->a[m]))
			m = l;
		if (r < h->n && plan_hless(&h->a[r], &h->a[m]))
			m = r;
		if (m == i)
			break;
		t = h->a[i];
		h->a[i] = h->a[m];
		h->a[m] = t;
		i = m;
	}
	return top;
}

/* ------------------------------------------------------------------------ */
/* Scheduling                                                                */
/* ------------------------------------------------------------------------ */

enum {
	ROLE_FREE = 0,
	ROLE_READER = 1,
	ROLE_WRITER = 2
};
enum {
	Q_READ = 0,
	Q_EXCL = 1,
	Q_POOL = 2,
	PLAN_NPOOLS = 3,
	PLAN_NQ = Q_POOL + PLAN_NPOOLS
};

struct plan_work {
	const struct gs_plan_input *in;
	struct gs_plan_result *r;
	size_t n;
	struct plan_map names;
	/* Edges into each stage: r->edges[in_first[v] .. in_first[v + 1]). */
	size_t *in_first;
	/* Edges out of each stage, as indices into r->edges. */
	size_t *out_first;
	uint32_t *out_edge;
	uint32_t *order; /* a topological order */
	uint8_t *done;
	uint32_t *indeg;
	int64_t *rstart, *rend; /* the relaxed schedule */
	/* The simulation. */
	int64_t *ready;
	int8_t *pool;
	uint8_t *role;
	struct plan_heap q[PLAN_NQ];
	struct plan_heap fin;
	uint32_t pool_cap[PLAN_NPOOLS], pool_used[PLAN_NPOOLS];
	uint32_t pool_rel_v[PLAN_NPOOLS];
	int64_t pool_rel_t[PLAN_NPOOLS];
	uint32_t dev_rel_v;
	int64_t dev_rel_t;
	size_t readers;
	bool writer;
	size_t started;
};

static const char *plan_sname(const struct plan_work *w, uint32_t v, char buf[80])
{
	return plan_short(w->in->stages[v].name, buf);
}

static bool plan_is_copy(unsigned kind)
{
	return kind == GS_PLAN_KIND_H2D || kind == GS_PLAN_KIND_D2H;
}

static bool plan_is_device(unsigned kind)
{
	return plan_is_copy(kind) || kind == GS_PLAN_KIND_COMPUTE;
}

static gs_status plan_validate(struct plan_work *w)
{
	const struct gs_plan_input *in = w->in;
	char b[80];
	size_t i;
	gs_status st;

	if (in->has_overhead &&
	    (in->exposed_overhead_ns < 0 || in->exposed_overhead_ns > GS_PLAN_MAX_DURATION_NS)) {
		gs_error_append("exposed_overhead_us must be from 0 to 7 days");
		return GS_ERR_FORMAT;
	}
	if (in->engine_mode > GS_PLAN_ENGINES_PER_DIRECTION ||
	    (in->engine_mode == GS_PLAN_ENGINES_SHARED &&
	     in->engines_shared > GS_PLAN_MAX_ENGINES) ||
	    (in->engine_mode == GS_PLAN_ENGINES_PER_DIRECTION &&
	     ((in->engines_h2d > GS_PLAN_MAX_ENGINES && in->engines_h2d != GS_PLAN_UNLIMITED) ||
	      (in->engines_d2h > GS_PLAN_MAX_ENGINES && in->engines_d2h != GS_PLAN_UNLIMITED)))) {
		gs_error_append("copy_engines must be from 0 to %d", GS_PLAN_MAX_ENGINES);
		return GS_ERR_FORMAT;
	}
	st = plan_map_init(&w->names, w->n);
	if (st != GS_OK)
		return st;
	for (i = 0; i < w->n; i++) {
		const struct gs_plan_stage *s = &in->stages[i];
		size_t slot;

		if (plan_blank(s->name)) {
			gs_error_append("stages[%zu]: the name must be a non-empty string", i);
			return GS_ERR_FORMAT;
		}
		if (plan_blank(s->stream)) {
			gs_error_append("stage '%s' (stages[%zu]): the stream must be a non-empty "
					"string",
					plan_short(s->name, b), i);
			return GS_ERR_FORMAT;
		}
		if (s->duration_ns < 0) {
			gs_error_append("stage '%s' (stages[%zu]): the duration is negative",
					plan_short(s->name, b), i);
			return GS_ERR_FORMAT;
		}
		if (s->duration_ns > GS_PLAN_MAX_DURATION_NS) {
			gs_error_append("stage '%s' (stages[%zu]): the duration is over 7 days",
					plan_short(s->name, b), i);
			return GS_ERR_FORMAT;
		}
		if (s->kind >= GS_PLAN_KIND_COUNT || s->memory > GS_PLAN_MEM_PAGEABLE ||
		    (s->memory == GS_PLAN_MEM_PAGEABLE && !plan_is_copy(s->kind))) {
			gs_error_append("stage '%s' (stages[%zu]): bad kind or memory (pageable "
					"applies to h2d/d2h only)",
					plan_short(s->name, b), i);
			return GS_ERR_FORMAT;
		}
		if (s->n_depends_on && !s->depends_on) {
			gs_error_append("stage '%s' (stages[%zu]): depends_on is missing",
					plan_short(s->name, b), i);
			return GS_ERR_INVALID;
		}
		slot = plan_map_slot(&w->names, s->name);
		if (w->names.keys[slot]) {
			gs_error_append("stage '%s' (stages[%zu]): duplicate name (first at "
					"stages[%u])",
					plan_short(s->name, b), i, w->names.vals[slot]);
			return GS_ERR_FORMAT;
		}
		w->names.keys[slot] = s->name;
		w->names.vals[slot] = (uint32_t)i;
	}
	return GS_OK;
}

static int plan_edge_cmp(const void *a, const void *b)
{
	const struct gs_plan_edge *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

/* depends_on, stream order, sync_copy edges; sorted, one per pair. */
static gs_status plan_edges(struct plan_work *w)
{
	const struct gs_plan_input *in = w->in;
	struct gs_plan_result *r = w->r;
	struct plan_map streams;
	struct gs_plan_edge *e;
	size_t cap = 3 * w->n, i, j, m = 0;
	uint32_t last_pageable = GS_NO_INDEX;
	char b[80], b2[80];
	gs_status st;

	for (i = 0; i < w->n; i++) {
		if (in->stages[i].n_depends_on > SIZE_MAX / 2 - cap) {
			gs_error_append("too many depends_on entries");
			return GS_ERR_LIMIT;
		}
		cap += in->stages[i].n_depends_on;
	}
	e = malloc((cap ? cap : 1) * sizeof(*e));
	if (!e) {
		gs_error_append("out of memory for %zu edges", cap);
		return GS_ERR_NOMEM;
	}
	r->edges = e;
	st = plan_map_init(&streams, w->n);
	if (st != GS_OK)
		return st;
	for (i = 0; i < w->n; i++) {
		const struct gs_plan_stage *s = &in->stages[i];
		uint32_t v = (uint32_t)i;
		size_t slot;

		for (j = 0; j < s->n_depends_on; j++) {
			const char *dn = s->depends_on[j];
			uint32_t u;

			if (plan_blank(dn)) {
				gs_error_append(
					"stage '%s' (stages[%zu]): depends_on[%zu] must be a "
					"non-empty stage name",
					plan_short(s->name, b), i, j);
				st = GS_ERR_FORMAT;
				goto out;
			}
			u = plan_map_get(&w->names, dn);
			if (u == GS_NO_INDEX) {
				gs_error_append(
					"stage '%s' (stages[%zu]): unknown predecessor '%s' "
					"in depends_on",
					plan_short(s->name, b), i, plan_short(dn, b2));
				st = GS_ERR_FORMAT;
				goto out;
			}
			e[m++] = (struct gs_plan_edge){.from = u,
						       .to = v,
						       .kind = GS_PLAN_EDGE_DEPENDS_ON};
		}
		slot = plan_map_slot(&streams, s->stream);
		if (streams.keys[slot]) {
			e[m++] = (struct gs_plan_edge){.from = streams.vals[slot],
						       .to = v,
						       .kind = GS_PLAN_EDGE_STREAM_ORDER};
		} else {
			streams.keys[slot] = s->stream;
			r->n_streams++;
		}
		streams.vals[slot] = v;
		/* A pageable copy: after all before it, before all after it. */
		if (last_pageable != GS_NO_INDEX)
			e[m++] = (struct gs_plan_edge){.from = last_pageable,
						       .to = v,
						       .kind = GS_PLAN_EDGE_SYNC_COPY};
		if (s->memory == GS_PLAN_MEM_PAGEABLE && plan_is_copy(s->kind)) {
			uint32_t k = last_pageable == GS_NO_INDEX ? 0 : last_pageable + 1;

			for (; k < v; k++)
				e[m++] = (struct gs_plan_edge){.from = k,
							       .to = v,
							       .kind = GS_PLAN_EDGE_SYNC_COPY};
			last_pageable = v;
		}
	}
	qsort(e, m, sizeof(*e), plan_edge_cmp);
	/* One edge per pair, of the first kind (depends_on before the rest). */
	for (i = 0, j = 0; i < m; i++)
		if (j == 0 || e[j - 1].from != e[i].from || e[j - 1].to != e[i].to)
			e[j++] = e[i];
	r->n_edges = j;
	st = GS_OK;
out:
	plan_map_fini(&streams);
	return st;
}

static gs_status plan_csr(struct plan_work *w)
{
	const struct gs_plan_result *r = w->r;
	size_t i, n = w->n, *fill;

	w->in_first = calloc(n + 1, sizeof(*w->in_first));
	w->out_first = calloc(n + 1, sizeof(*w->out_first));
	w->out_edge = malloc((r->n_edges ? r->n_edges : 1) * sizeof(*w->out_edge));
	fill = calloc(n + 1, sizeof(*fill));
	if (!w->in_first || !w->out_first || !w->out_edge || !fill) {
		free(fill);
		return gs_nomem();
	}
	for (i = 0; i < r->n_edges; i++) {
		w->in_first[r->edges[i].to + 1]++;
		w->out_first[r->edges[i].from + 1]++;
	}
	for (i = 0; i < n; i++) {
		w->in_first[i + 1] += w->in_first[i];
		w->out_first[i + 1] += w->out_first[i];
	}
	for (i = 0; i < r->n_edges; i++) {
		uint32_t u = r->edges[i].from;

		w->out_edge[w->out_first[u] + fill[u]++] = (uint32_t)i;
	}
	free(fill);
	return GS_OK;
}

/* Describe a cycle among the stages Kahn left (each has a pred left). */
static gs_status plan_cycle_error(struct plan_work *w, bool relaxed)
{
	const struct gs_plan_edge *e = w->r->edges;
	uint32_t *walk, *kind, *pos, *fk;
	uint32_t v = GS_NO_INDEX, first, len = 0, k, j, rot;
	char msg[GS_ERROR_MSG_MAX], b[80];
	size_t used = 0, s;

	for (s = 0; s < w->n; s++) {
		if (!w->done[s]) {
			v = (uint32_t)s;
			break;
		}
	}
	walk = malloc((w->n ? w->n : 1) * sizeof(*walk));
	kind = malloc((w->n ? w->n : 1) * sizeof(*kind));
	pos = malloc((w->n ? w->n : 1) * sizeof(*pos));
	if (!walk || !kind || !pos || v == GS_NO_INDEX) {
		free(walk);
		free(kind);
		free(pos);
		gs_error_append("the dependencies form a cycle");
		return GS_ERR_FORMAT;
	}
	for (s = 0; s < w->n; s++)
		pos[s] = GS_NO_INDEX;
	/* Walk back over predecessors not scheduled by Kahn until one
	 * repeats; kind[i] is the kind of the edge into walk[i]. */
	while (pos[v] == GS_NO_INDEX) {
		uint32_t u = GS_NO_INDEX, uk = 0;

		pos[v] = len;
		walk[len] = v;
		for (s = w->in_first[v]; s < w->in_first[v + 1]; s++) {
			if (relaxed && e[s].kind == GS_PLAN_EDGE_SYNC_COPY)
				continue;
			if (!w->done[e[s].from]) {
				u = e[s].from;
				uk = e[s].kind;
				break;
			}
		}
		kind[len++] = uk;
		if (u == GS_NO_INDEX)
			break; /* cannot happen: Kahn left v with a pred */
		v = u;
	}
	/* The cycle, forward: walk[len-1] -> walk[len-2] -> ... -> walk[first]
	 * -> walk[len-1]. kind[i] is the edge walk[i + 1] -> walk[i], and
	 * kind[len - 1] the closing edge walk[first] -> walk[len - 1]. Put the
	 * stages in pos[0 .. k) (no longer needed) and the kind of the edge
	 * pos[j] -> pos[(j + 1) % k] in fk[j]. */
	first = pos[v];
	k = len - first;
	fk = malloc(k * sizeof(*fk));
	if (!fk) {
		free(walk);
		free(kind);
		free(pos);
		gs_error_append("the dependencies form a cycle");
		return GS_ERR_FORMAT;
	}
	for (j = 0; j < k; j++) {
		/* walk[first .. len) and kind[first .. len) were written above
		 * (the static analyzer does not follow the walk). */
		/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
		pos[j] = walk[len - 1 - j];
		/* NOLINTNEXTLINE(clang-analyzer-core.uninitialized.Assign) */
		fk[j] = j + 1 < k ? kind[len - 2 - j] : kind[len - 1];
	}
	rot = 0;
	for (j = 1; j < k; j++)
		if (pos[j] < pos[rot])
			rot = j;
	used += (size_t)snprintf(msg, sizeof(msg), "'%s'", plan_sname(w, pos[rot], b));
	for (j = 0; j < k && used < sizeof(msg) - 1; j++) {
		uint32_t c = (rot + j) % k, next = (rot + j + 1) % k;
		const char *arrow = fk[c] == GS_PLAN_EDGE_STREAM_ORDER ? " -(stream order)-> " :
				    fk[c] == GS_PLAN_EDGE_SYNC_COPY    ? " -(pageable copy)-> " :
									 " -> ";

		if (j >= 8 && j + 1 < k) {
			snprintf(msg + used, sizeof(msg) - used,
				 " -> ... (%u stages in all) -> '%s'", k,
				 plan_sname(w, pos[rot], b));
			break;
		}
		used += (size_t)snprintf(msg + used, sizeof(msg) - used, "%s'%s'", arrow,
					 plan_sname(w, pos[next], b));
	}
	gs_error_append("stage '%s' (stages[%u]): the dependencies form a cycle: %s",
			plan_sname(w, pos[rot], b), pos[rot], msg);
	free(fk);
	free(walk);
	free(kind);
	free(pos);
	return GS_ERR_FORMAT;
}

/* Kahn's algorithm; `relaxed` leaves the sync_copy edges out. */
static gs_status plan_topo(struct plan_work *w, bool relaxed)
{
	const struct gs_plan_edge *e = w->r->edges;
	size_t head = 0, tail = 0, i, s;

	for (i = 0; i < w->n; i++) {
		w->indeg[i] = 0;
		w->done[i] = 0;
		for (s = w->in_first[i]; s < w->in_first[i + 1]; s++)
			if (!relaxed || e[s].kind != GS_PLAN_EDGE_SYNC_COPY)
				w->indeg[i]++;
		if (w->indeg[i] == 0)
			w->order[tail++] = (uint32_t)i;
	}
	while (head < tail) {
		uint32_t u = w->order[head++];

		w->done[u] = 1;
		for (s = w->out_first[u]; s < w->out_first[u + 1]; s++) {
			const struct gs_plan_edge *x = &e[w->out_edge[s]];

			if (relaxed && x->kind == GS_PLAN_EDGE_SYNC_COPY)
				continue;
			if (--w->indeg[x->to] == 0)
				w->order[tail++] = x->to;
		}
	}
	if (tail < w->n)
		return plan_cycle_error(w, relaxed);
	return GS_OK;
}

/* The relaxed schedule: depends_on and stream order only, no resources. */
static void plan_relaxed(struct plan_work *w)
{
	const struct gs_plan_edge *e = w->r->edges;
	size_t i, s;

	for (i = 0; i < w->n; i++) {
		uint32_t v = w->order[i];
		int64_t st = 0;

		for (s = w->in_first[v]; s < w->in_first[v + 1]; s++)
			if (e[s].kind != GS_PLAN_EDGE_SYNC_COPY && w->rend[e[s].from] > st)
				st = w->rend[e[s].from];
		w->rstart[v] = st;
		w->rend[v] = st + w->in->stages[v].duration_ns;
	}
}

static void plan_start(struct plan_work *w, uint32_t v, int64_t t)
{
	const struct gs_plan_edge *e = w->r->edges;
	struct gs_plan_timing *tm = &w->r->timing[v];
	size_t s;

	tm->start_ns = t;
	tm->end_ns = t + w->in->stages[v].duration_ns;
	tm->bound_by = GS_PLAN_BOUND_NONE;
	tm->after = GS_NO_INDEX;
	if (t > w->ready[v]) {
		/* Waited for a resource: the stage that freed it ended at t. */
		if (w->pool[v] >= 0 && w->pool_rel_t[w->pool[v]] == t) {
			tm->bound_by = GS_PLAN_BOUND_COPY_ENGINE;
			tm->after = w->pool_rel_v[w->pool[v]];
		} else {
			tm->bound_by = GS_PLAN_BOUND_EXCLUSIVE_COPY;
			tm->after = w->dev_rel_t == t ? w->dev_rel_v : GS_NO_INDEX;
		}
	} else {
		/* The predecessor ending at the start: depends_on first. */
		unsigned best = 99;

		for (s = w->in_first[v]; s < w->in_first[v + 1]; s++) {
			if (w->r->timing[e[s].from].end_ns == t && e[s].kind < best) {
				best = e[s].kind;
				tm->after = e[s].from;
			}
		}
		if (tm->after != GS_NO_INDEX)
			tm->bound_by =
				best == GS_PLAN_EDGE_DEPENDS_ON   ? GS_PLAN_BOUND_DEPENDS_ON :
				best == GS_PLAN_EDGE_STREAM_ORDER ? GS_PLAN_BOUND_STREAM_ORDER :
								    GS_PLAN_BOUND_SYNC_COPY;
	}
	if (w->pool[v] >= 0)
		w->pool_used[w->pool[v]]++;
	if (w->role[v] == ROLE_READER)
		w->readers++;
	else if (w->role[v] == ROLE_WRITER)
		w->writer = true;
	plan_heap_push(&w->fin, tm->end_ns, v);
	w->started++;
}

static void plan_enqueue(struct plan_work *w, uint32_t v, int64_t t)
{
	w->ready[v] = t;
	if (w->role[v] == ROLE_FREE && w->pool[v] < 0)
		plan_start(w, v, t);
	else if (w->role[v] == ROLE_WRITER)
		plan_heap_push(&w->q[Q_EXCL], t, v);
	else if (w->pool[v] >= 0)
		plan_heap_push(&w->q[Q_POOL + w->pool[v]], t, v);
	else
		plan_heap_push(&w->q[Q_READ], t, v);
}

/* Start what the resources allow, in order of (ready time, index). */
static void plan_dispatch(struct plan_work *w, int64_t t)
{
	bool blocked[PLAN_NQ] = {false};

	for (;;) {
		int q, best = -1;
		uint32_t v;

		for (q = 0; q < PLAN_NQ; q++)
			if (w->q[q].n && !blocked[q] &&
			    (best < 0 || plan_hless(&w->q[q].a[0], &w->q[best].a[0])))
				best = q;
		if (best < 0)
			break;
		v = w->q[best].a[0].v;
		if (best == Q_EXCL) {
			/* Later device stages wait behind a waiting exclusive copy. */
			if (w->readers || w->writer)
				break;
		} else {
			if (w->writer)
				break;
			if (w->pool[v] >= 0 &&
			    w->pool_used[w->pool[v]] >= w->pool_cap[w->pool[v]]) {
				blocked[best] = true;
				continue;
			}
		}
		plan_heap_pop(&w->q[best]);
		plan_start(w, v, t);
	}
}

static gs_status plan_simulate(struct plan_work *w)
{
	const struct gs_plan_input *in = w->in;
	const struct gs_plan_edge *e = w->r->edges;
	bool exclusive = false;
	size_t i, s, n = w->n;
	int q;

	for (q = 0; q < PLAN_NPOOLS; q++) {
		w->pool_cap[q] = GS_PLAN_UNLIMITED;
		w->pool_rel_t[q] = -1;
	}
	if (in->engine_mode == GS_PLAN_ENGINES_SHARED) {
		w->pool_cap[0] = in->engines_shared;
	} else if (in->engine_mode == GS_PLAN_ENGINES_PER_DIRECTION) {
		w->pool_cap[1] = in->engines_h2d;
		w->pool_cap[2] = in->engines_d2h;
	}
	w->dev_rel_t = -1;
	for (i = 0; i < n; i++) {
		unsigned kind = in->stages[i].kind;
		int p = -1;

		w->pool[i] = -1;
		w->role[i] = ROLE_FREE;
		if (in->engine_mode == GS_PLAN_ENGINES_SHARED && plan_is_copy(kind))
			p = 0;
		else if (in->engine_mode == GS_PLAN_ENGINES_PER_DIRECTION && plan_is_copy(kind))
			p = kind == GS_PLAN_KIND_H2D ? 1 : 2;
		if (p >= 0 && w->pool_cap[p] == 0) {
			w->role[i] = ROLE_WRITER;
			exclusive = true;
		} else if (p >= 0 && w->pool_cap[p] != GS_PLAN_UNLIMITED) {
			w->pool[i] = (int8_t)p;
		}
	}
	if (exclusive)
		for (i = 0; i < n; i++)
			if (w->role[i] == ROLE_FREE && plan_is_device(in->stages[i].kind))
				w->role[i] = ROLE_READER;
	for (q = 0; q < PLAN_NQ; q++) {
		w->q[q].a = malloc((n ? n : 1) * sizeof(*w->q[q].a));
		if (!w->q[q].a)
			goto nomem;
	}
	w->fin.a = malloc((n ? n : 1) * sizeof(*w->fin.a));
	if (!w->fin.a)
		goto nomem;

	for (i = 0; i < n; i++) {
		w->indeg[i] = (uint32_t)(w->in_first[i + 1] - w->in_first[i]);
		w->ready[i] = 0;
	}
	for (i = 0; i < n; i++)
		if (w->indeg[i] == 0)
			plan_enqueue(w, (uint32_t)i, 0);
	plan_dispatch(w, 0);
	while (w->fin.n) {
		int64_t t = w->fin.a[0].key;

		while (w->fin.n && w->fin.a[0].key == t) {
			uint32_t u = plan_heap_pop(&w->fin).v;

			if (w->pool[u] >= 0) {
				w->pool_used[w->pool[u]]--;
				w->pool_rel_t[w->pool[u]] = t;
				w->pool_rel_v[w->pool[u]] = u;
			}
			if (w->role[u] != ROLE_FREE) {
				if (w->role[u] == ROLE_WRITER)
					w->writer = false;
				else
					w->readers--;
				w->dev_rel_t = t;
				w->dev_rel_v = u;
			}
			for (s = w->out_first[u]; s < w->out_first[u + 1]; s++) {
				uint32_t x = e[w->out_edge[s]].to;

				if (--w->indeg[x] == 0)
					plan_enqueue(w, x, t);
			}
		}
		plan_dispatch(w, t);
	}
	if (w->started != n) {
		gs_error_append("internal error: %zu of %zu stages scheduled", w->started, n);
		return GS_ERR_INVALID;
	}
	return GS_OK;
nomem:
	return gs_nomem();
}

/* ------------------------------------------------------------------------ */
/* Unions of intervals: hidden time and the breakdown                        */
/* ------------------------------------------------------------------------ */

struct plan_iv {
	int64_t s, e;
};

static int plan_iv_cmp(const void *a, const void *b)
{
	const struct plan_iv *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->e < y->e ? -1 : x->e > y->e;
}

/* Sort and merge in place (empty intervals dropped); returns the count. */
static size_t plan_merge(struct plan_iv *iv, size_t m)
{
	size_t i, k = 0;

	qsort(iv, m, sizeof(*iv), plan_iv_cmp);
	for (i = 0; i < m; i++) {
		if (iv[i].e <= iv[i].s)
			continue;
		if (k && iv[i].s <= iv[k - 1].e) {
			if (iv[i].e > iv[k - 1].e)
				iv[k - 1].e = iv[i].e;
		} else {
			iv[k++] = iv[i];
		}
	}
	return k;
}

static int64_t plan_union_len(struct plan_iv *iv, size_t m)
{
	int64_t len = 0;
	size_t i, k = plan_merge(iv, m);

	for (i = 0; i < k; i++)
		len += iv[i].e - iv[i].s;
	return len;
}

/* Merged intervals with prefix sums: covered time before x in O(log k). */
struct plan_cover {
	struct plan_iv *iv;
	int64_t *pre; /* pre[i]: covered length of iv[0 .. i) */
	size_t k;
};

static int64_t plan_covered(const struct plan_cover *c, int64_t x)
{
	/* the number of intervals starting before x */
	size_t lo =
		gs_lower_bound_i64_at(c->iv, c->k, sizeof(*c->iv), offsetof(struct plan_iv, s), x);

	if (lo == 0)
		return 0;
	return c->pre[lo - 1] + (x < c->iv[lo - 1].e ? x : c->iv[lo - 1].e) - c->iv[lo - 1].s;
}

/* The compute intervals of a schedule given by start[] (durations known). */
static gs_status plan_cover_build(const struct plan_work *w, const int64_t *start,
				  const struct gs_plan_timing *tm, struct plan_cover *c)
{
	size_t i, m = 0;

	c->iv = malloc((w->n ? w->n : 1) * sizeof(*c->iv));
	c->pre = malloc((w->n + 1) * sizeof(*c->pre));
	if (!c->iv || !c->pre) {
		return gs_nomem();
	}
	if (!start && !tm) {
		gs_error_append("plan_cover_build: no schedule");
		return GS_ERR_INVALID;
	}
	for (i = 0; i < w->n; i++) {
		if (w->in->stages[i].kind != GS_PLAN_KIND_COMPUTE)
			continue;
		c->iv[m].s = start ? start[i] : tm[i].start_ns;
		c->iv[m].e = c->iv[m].s + w->in->stages[i].duration_ns;
		m++;
	}
	c->k = plan_merge(c->iv, m);
	c->pre[0] = 0;
	for (i = 0; i < c->k; i++)
		c->pre[i + 1] = c->pre[i] + c->iv[i].e - c->iv[i].s;
	return GS_OK;
}

static gs_status plan_copies(struct plan_work *w)
{
	const struct gs_plan_input *in = w->in;
	struct gs_plan_result *r = w->r;
	struct plan_cover main = {0}, relaxed = {0};
	bool has_compute = false;
	size_t i;
	gs_status st;

	for (i = 0; i < w->n; i++) {
		if (plan_is_copy(in->stages[i].kind))
			r->n_copies++;
		if (in->stages[i].kind == GS_PLAN_KIND_COMPUTE && in->stages[i].duration_ns > 0)
			has_compute = true;
	}
	r->copies = calloc(r->n_copies ? r->n_copies : 1, sizeof(*r->copies));
	if (!r->copies) {
		return gs_nomem();
	}
	st = plan_cover_build(w, NULL, r->timing, &main);
	if (st == GS_OK)
		st = plan_cover_build(w, w->rstart, NULL, &relaxed);
	if (st != GS_OK)
		goto out;
	r->n_copies = 0;
	for (i = 0; i < w->n; i++) {
		const struct gs_plan_stage *s = &in->stages[i];
		struct gs_plan_copy *c;
		int p;

		if (!plan_is_copy(s->kind))
			continue;
		c = &r->copies[r->n_copies++];
		c->stage = (uint32_t)i;
		c->hidden_ns = plan_covered(&main, r->timing[i].end_ns) -
			       plan_covered(&main, r->timing[i].start_ns);
		c->exposed_ns = s->duration_ns - c->hidden_ns;
		c->hideable_ns =
			plan_covered(&relaxed, w->rend[i]) - plan_covered(&relaxed, w->rstart[i]);
		if (s->memory == GS_PLAN_MEM_PAGEABLE)
			c->missing |= GS_COND_PINNED_MEMORY;
		if (s->duration_ns > 0 && has_compute && c->hideable_ns == 0)
			c->missing |= GS_COND_INDEPENDENT;
		p = in->engine_mode == GS_PLAN_ENGINES_SHARED ?
			    0 :
		    in->engine_mode == GS_PLAN_ENGINES_PER_DIRECTION ?
			    (s->kind == GS_PLAN_KIND_H2D ? 1 : 2) :
			    -1;
		if (p >= 0 && w->pool_cap[p] == 0)
			c->missing |= GS_COND_CONCURRENT_RESOURCES;
		r->missing |= c->missing;
	}
out:
	free(main.iv);
	free(main.pre);
	free(relaxed.iv);
	free(relaxed.pre);
	return st;
}

/* The breakdown's priorities over [0, ideal): kernel, copy, sync, idle. */
static gs_status plan_breakdown(struct plan_work *w)
{
	const struct gs_plan_input *in = w->in;
	struct gs_plan_result *r = w->r;
	struct plan_iv *iv;
	int64_t upto[3];
	size_t i, m;
	int cat, c;

	iv = malloc((w->n ? w->n : 1) * sizeof(*iv));
	if (!iv) {
		return gs_nomem();
	}
	/* upto[c]: the union of the categories 0..c. */
	for (cat = 0; cat < 3; cat++) {
		m = 0;
		for (i = 0; i < w->n; i++) {
			unsigned k = in->stages[i].kind;
			int sc = k == GS_PLAN_KIND_COMPUTE ? 0 :
				 plan_is_copy(k)           ? 1 :
				 k == GS_PLAN_KIND_SYNC    ? 2 :
							     3;

			if (sc > cat)
				continue;
			iv[m].s = r->timing[i].start_ns;
			iv[m].e = r->timing[i].end_ns;
			m++;
		}
		upto[cat] = plan_union_len(iv, m);
	}
	free(iv);
	r->breakdown_ns[0] = upto[0];
	r->breakdown_ns[1] = upto[1] - upto[0];
	r->breakdown_ns[2] = upto[2] - upto[1];
	r->breakdown_ns[3] = r->ideal_ns - upto[2];
	r->dominant = -1;
	if (r->ideal_ns > 0) {
		r->dominant = 0;
		for (c = 1; c < 4; c++)
			if (r->breakdown_ns[c] > r->breakdown_ns[r->dominant])
				r->dominant = c;
	}
	return GS_OK;
}

static gs_status plan_critical(struct plan_work *w)
{
	struct gs_plan_result *r = w->r;
	uint32_t v = GS_NO_INDEX, *path;
	size_t i, k = 0;

	if (w->n == 0)
		return GS_OK;
	for (i = 0; i < w->n; i++) {
		if (r->timing[i].end_ns == r->ideal_ns) {
			v = (uint32_t)i;
			break;
		}
	}
	path = malloc(w->n * sizeof(*path));
	if (!path) {
		return gs_nomem();
	}
	while (v != GS_NO_INDEX && k < w->n) {
		path[k++] = v;
		v = r->timing[v].after;
	}
	for (i = 0; i < k / 2; i++) {
		uint32_t t = path[i];

		path[i] = path[k - 1 - i];
		path[k - 1 - i] = t;
	}
	r->critical_path = path;
	r->n_critical = k;
	return GS_OK;
}

static void plan_work_fini(struct plan_work *w)
{
	int q;

	plan_map_fini(&w->names);
	free(w->in_first);
	free(w->out_first);
	free(w->out_edge);
	free(w->order);
	free(w->done);
	free(w->indeg);
	free(w->rstart);
	free(w->rend);
	free(w->ready);
	free(w->pool);
	free(w->role);
	for (q = 0; q < PLAN_NQ; q++)
		free(w->q[q].a);
	free(w->fin.a);
}

gs_status gs_plan_compute(const struct gs_plan_input *in, struct gs_plan_result *out)
{
	struct plan_work w;
	size_t i, n;
	char b[80];
	gs_status st;

	memset(out, 0, sizeof(*out));
	out->dominant = -1;
	out->speedup = 1.0;
	if (!in || (in->n_stages && !in->stages)) {
		gs_error_append("no stages given");
		return GS_ERR_INVALID;
	}
	n = in->n_stages;
	if (n > GS_PLAN_MAX_STAGES) {
		gs_error_append("%zu stages, more than the limit of %d", n, GS_PLAN_MAX_STAGES);
		return GS_ERR_LIMIT;
	}
	memset(&w, 0, sizeof(w));
	w.in = in;
	w.r = out;
	w.n = n;
	out->n_stages = n;
	st = plan_validate(&w);
	if (st != GS_OK)
		goto fail;
	/* Every time below is at most the serial sum: keep it (and the
	 * overhead added to it) in range. */
	for (i = 0; i < n; i++) {
		int64_t d = in->stages[i].duration_ns;

		if (out->serial_ns > INT64_MAX - GS_PLAN_MAX_DURATION_NS - d) {
			gs_error_append("stage '%s' (stages[%zu]): the durations add up to more "
					"than 9e18 ns",
					plan_short(in->stages[i].name, b), i);
			st = GS_ERR_LIMIT;
			goto fail;
		}
		out->serial_ns += d;
	}
	st = plan_edges(&w);
	if (st == GS_OK)
		st = plan_csr(&w);
	if (st != GS_OK)
		goto fail;
	w.order = malloc((n ? n : 1) * sizeof(*w.order));
	w.done = malloc(n ? n : 1);
	w.indeg = malloc((n ? n : 1) * sizeof(*w.indeg));
	w.rstart = malloc((n ? n : 1) * sizeof(*w.rstart));
	w.rend = malloc((n ? n : 1) * sizeof(*w.rend));
	w.ready = malloc((n ? n : 1) * sizeof(*w.ready));
	w.pool = malloc(n ? n : 1);
	w.role = malloc(n ? n : 1);
	out->timing = calloc(n ? n : 1, sizeof(*out->timing));
	if (!w.order || !w.done || !w.indeg || !w.rstart || !w.rend || !w.ready || !w.pool ||
	    !w.role || !out->timing) {
		gs_error_append("out of memory for %zu stages", n);
		st = GS_ERR_NOMEM;
		goto fail;
	}
	/* The declared dependencies alone first: their cycles are the user's;
	 * then with the pageable-copy edges. */
	st = plan_topo(&w, true);
	if (st != GS_OK)
		goto fail;
	plan_relaxed(&w);
	st = plan_topo(&w, false);
	if (st != GS_OK)
		goto fail;
	st = plan_simulate(&w);
	if (st != GS_OK)
		goto fail;
	for (i = 0; i < n; i++)
		if (out->timing[i].end_ns > out->ideal_ns)
			out->ideal_ns = out->timing[i].end_ns;
	out->saved_ns = out->serial_ns - out->ideal_ns;
	out->overlap_ratio = out->serial_ns ? (double)out->saved_ns / (double)out->serial_ns : 0.0;
	out->speedup = out->ideal_ns ? (double)out->serial_ns / (double)out->ideal_ns : 1.0;
	out->has_overhead = in->has_overhead;
	out->exposed_overhead_ns = in->has_overhead ? in->exposed_overhead_ns : 0;
	out->elapsed_ns = out->ideal_ns + out->exposed_overhead_ns;
	out->net_saved_ns = out->saved_ns - out->exposed_overhead_ns;
	st = plan_critical(&w);
	if (st == GS_OK)
		st = plan_copies(&w);
	if (st == GS_OK)
		st = plan_breakdown(&w);
	if (st != GS_OK)
		goto fail;
	plan_work_fini(&w);
	return GS_OK;
fail:
	plan_work_fini(&w);
	gs_plan_result_fini(out);
	return st;
}

void gs_plan_result_fini(struct gs_plan_result *r)
{
	if (!r)
		return;
	free(r->timing);
	free(r->edges);
	free(r->critical_path);
	free(r->copies);
	memset(r, 0, sizeof(*r));
	r->dominant = -1;
}
