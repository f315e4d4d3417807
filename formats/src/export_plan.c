/* SPDX-License-Identifier: MIT */
/*
 * The plan of an export (export_plan.h): processes, tracks and lanes, the
 * joins of ops and syncs to their calls; names and args are
 * export_plan_text.c, and for a job the ranks' pids, ids and clocks
 * export_plan_job.c (export_plan_priv.h: what they share). The Chrome
 * trace JSON writer (chrome.c) and the Perfetto writer (pftrace.c) write
 * from it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_names.h"
#include "export_base.h"
#include "export_plan.h"
#include "export_plan_priv.h"

#include <gpuscope/search.h>

/* ------------------------------------------------------------------------ */
/* Lanes                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Overflow tracks: those in use in a min-heap by the time each becomes
 * free, the free ones in a min-heap by number (the lowest free track is
 * taken first, so overflow fills the tracks nearest the main one).
 */

static bool lane_less(const struct lane_pool *p, bool by_time, uint32_t a, uint32_t b)
{
	if (by_time && p->free_at[a] != p->free_at[b])
		return p->free_at[a] < p->free_at[b];
	return a < b;
}

static void heap_push(const struct lane_pool *p, uint32_t *h, size_t *n, bool by_time,
		      uint32_t lane)
{
	size_t i = (*n)++;

	h[i] = lane;
	while (i > 0) {
		size_t q = (i - 1) / 2;

		if (!lane_less(p, by_time, h[i], h[q]))
			break;
		uint32_t tmp = h[i];
		h[i] = h[q];
		h[q] = tmp;
		i = q;
	}
}

static uint32_t heap_pop(const struct lane_pool *p, uint32_t *h, size_t *n, bool by_time)
{
	uint32_t top = h[0];
	size_t i = 0;

	h[0] = h[--(*n)];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < *n && lane_less(p, by_time, h[l], h[m]))
			m = l;
		if (r < *n && lane_less(p, by_time, h[r], h[m]))
			m = r;
		if (m == i)
			break;
		uint32_t tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
	return top;
}

static void pool_reset(struct lane_pool *p)
{
	p->n_busy = p->n_idle = 0;
	p->lanes = 0;
}

static void pool_fini(struct lane_pool *p)
{
	free(p->free_at);
	free(p->busy);
	free(p->idle);
	memset(p, 0, sizeof(*p));
}

/* An overflow lane for an event [s, e): the lowest one free by s, else a
 * new one. */
static gs_status pool_take(struct lane_pool *p, int64_t s, int64_t e, uint32_t *lane)
{
	while (p->n_busy && p->free_at[p->busy[0]] <= s)
		heap_push(p, p->idle, &p->n_idle, false, heap_pop(p, p->busy, &p->n_busy, true));
	if (p->n_idle) {
		*lane = heap_pop(p, p->idle, &p->n_idle, false);
	} else {
		if ((size_t)p->lanes + 2 > p->cap) {
			size_t nc = p->cap ? p->cap * 2 : 16;
			int64_t *f = realloc(p->free_at, nc * sizeof(*f));

			if (!f)
				return gs_nomem();
			p->free_at = f;
			uint32_t *b = realloc(p->busy, nc * sizeof(*b));
			if (!b)
				return gs_nomem();
			p->busy = b;
			uint32_t *i = realloc(p->idle, nc * sizeof(*i));
			if (!i)
				return gs_nomem();
			p->idle = i;
			p->cap = nc;
		}
		*lane = ++p->lanes;
	}
	p->free_at[*lane] = e;
	heap_push(p, p->busy, &p->n_busy, true, *lane);
	return GS_OK;
}

static void disjoint_reset(struct disjoint *d)
{
	d->main_used = false;
	pool_reset(&d->pool);
}

/* The lane (0: main, k: overflow k) for [s, e), events in start order. A
 * zero-length event holds [s, s + 1 ns): a viewer would nest it in an event
 * that starts at the same time. */
static gs_status disjoint_place(struct disjoint *d, int64_t s, int64_t e, uint32_t *lane)
{
	if (e <= s && s < INT64_MAX)
		e = s + 1;
	if (!d->main_used || d->main_end <= s) {
		d->main_used = true;
		d->main_end = e;
		*lane = 0;
		return GS_OK;
	}
	return pool_take(&d->pool, s, e, lane);
}

/* Tracks whose events must nest: a stack of open ends per lane. */
struct stack {
	int64_t *end;
	size_t n, cap;
};

struct nesting {
	struct stack *st; /* [0] main, [k] overflow k */
	size_t st_cap;
	uint32_t recent;
	struct lane_pool pool; /* free_at of a lane: the end of its bottom event */
};

static void nesting_reset(struct nesting *g)
{
	for (size_t i = 0; i < g->st_cap; i++)
		g->st[i].n = 0;
	g->recent = 0;
	pool_reset(&g->pool);
}

static gs_status stack_push(struct stack *s, int64_t e)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		int64_t *p = realloc(s->end, nc * sizeof(*p));

		if (!p)
			return gs_nomem();
		s->end = p;
		s->cap = nc;
	}
	s->end[s->n++] = e;
	return GS_OK;
}

/* Close what ended by s; true when [s, e) nests in what is left open. */
static bool stack_fits(struct stack *s, int64_t st, int64_t e)
{
	while (s->n && s->end[s->n - 1] <= st)
		s->n--;
	return s->n == 0 || e <= s->end[s->n - 1];
}

/* Events in (start, end descending) order; the main lane only when
 * `main_ok`. */
static gs_status nesting_place(struct nesting *g, int64_t s, int64_t e, bool main_ok,
			       uint32_t *lane)
{
	gs_status rc;

	if (!g->st_cap) {
		g->st = calloc(8, sizeof(*g->st));
		if (!g->st)
			return gs_nomem();
		g->st_cap = 8;
	}
	if (main_ok && stack_fits(&g->st[0], s, e)) {
		*lane = 0;
		return stack_push(&g->st[0], e);
	}
	/* Nest inside an open event of the overflow lane used last; the time
	 * that lane is free (its bottom event's end) does not change. */
	if (g->recent) {
		struct stack *r = &g->st[g->recent];

		if (stack_fits(r, s, e) && r->n) {
			*lane = g->recent;
			return stack_push(r, e);
		}
	}
	rc = pool_take(&g->pool, s, e, lane);
	if (rc)
		return rc;
	if (*lane >= g->st_cap) {
		size_t nc = g->st_cap * 2;
		struct stack *p = realloc(g->st, nc * sizeof(*p));

		if (!p)
			return gs_nomem();
		memset(p + g->st_cap, 0, (nc - g->st_cap) * sizeof(*p));
		g->st = p;
		g->st_cap = nc;
	}
	g->st[*lane].n = 0;
	g->recent = *lane;
	return stack_push(&g->st[*lane], e);
}

static void nesting_fini(struct nesting *g)
{
	for (size_t i = 0; i < g->st_cap; i++)
		free(g->st[i].end);
	free(g->st);
	pool_fini(&g->pool);
}
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_href(const void *pa, const void *pb)
{
	const struct href *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

size_t gs_xp_find_hproc(const struct xplan *c, int64_t pid)
{
	size_t lo = gs_lower_bound_i64_at(c->hp, c->n_hp, sizeof(*c->hp),
					  offsetof(struct hproc, pid), pid);

	return lo < c->n_hp && c->hp[lo].pid == pid ? lo : NONE;
}

/* What dev_before compares: the devices (ascending ids) with `id`. */
struct dev_key {
	const struct cdev *devs;
	uint32_t id;
};

/* Device i's id is below the one searched for. */
static bool dev_before(const void *ctx, size_t i)
{
	const struct dev_key *k = ctx;

	return k->devs[i].id < k->id;
}

size_t gs_xp_find_dev(const struct xplan *c, uint32_t id)
{
	struct dev_key k = {c->devs, id};
	size_t lo = gs_partition_point(c->n_devs, dev_before, &k);

	return lo < c->n_devs && c->devs[lo].id == id ? lo : NONE;
}

/* Host processes: the process table and every pid of a host event. */
static gs_status plan_host_procs(struct xplan *c)
{
	size_t n = c->n_procs + c->n_api + c->n_ranges + c->n_oh, k = 0, i;
	int64_t *pids = gs_xp_alloc_n(n, sizeof(*pids));

	if (!pids)
		return gs_nomem();
	for (i = 0; i < c->n_procs; i++)
		pids[k++] = c->procs[i].pid;
	for (i = 0; i < c->n_api; i++)
		if (!k || pids[k - 1] != c->api[i].pid)
			pids[k++] = c->api[i].pid;
	for (i = 0; i < c->n_ranges; i++)
		if (c->ranges[i].kind != GS_RANGE_GPU_ANNOTATION)
			pids[k++] = c->ranges[i].pid;
	for (i = 0; i < c->n_oh; i++)
		pids[k++] = c->oh[i].pid;
	qsort(pids, k, sizeof(*pids), cmp_i64);
	c->hp = gs_xp_alloc_n(k, sizeof(*c->hp));
	if (!c->hp) {
		free(pids);
		return gs_nomem();
	}
	for (i = 0; i < k; i++) {
		if (c->n_hp && c->hp[c->n_hp - 1].pid == pids[i])
			continue;
		c->hp[c->n_hp].pid = pids[i];
		c->hp[c->n_hp].cpid = pids[i];
		c->hp[c->n_hp].proc = NONE;
		c->n_hp++;
	}
	free(pids);
	for (i = 0; i < c->n_procs; i++) {
		size_t h = gs_xp_find_hproc(c, c->procs[i].pid);

		if (h != NONE && c->hp[h].proc == NONE)
			c->hp[h].proc = (uint32_t)i;
	}
	return GS_OK;
}

/*
 * The calls a thread's main lane holds (properly nested, in start order),
 * each with the innermost one around it: to tell in O(depth) whether a
 * range would straddle one of them.
 */
struct main_calls {
	int64_t *start, *end;
	uint32_t *parent; /* NONE at the top */
	uint32_t *open;   /* the calls open at the last start, innermost last */
	size_t n, cap, depth;
};

/* Add a main call (calls come in start order, properly nested). */
static gs_status main_calls_push(struct main_calls *m, int64_t s, int64_t e)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		int64_t *ps = realloc(m->start, nc * sizeof(*ps));

		if (!ps)
			return gs_nomem();
		m->start = ps;
		int64_t *pe = realloc(m->end, nc * sizeof(*pe));
		if (!pe)
			return gs_nomem();
		m->end = pe;
		uint32_t *pp = realloc(m->parent, nc * sizeof(*pp));
		if (!pp)
			return gs_nomem();
		m->parent = pp;
		uint32_t *po = realloc(m->open, nc * sizeof(*po));
		if (!po)
			return gs_nomem();
		m->open = po;
		m->cap = nc;
	}
	while (m->depth && m->end[m->open[m->depth - 1]] <= s)
		m->depth--;
	m->start[m->n] = s;
	m->end[m->n] = e;
	m->parent[m->n] = m->depth ? m->open[m->depth - 1] : NONE;
	m->open[m->depth++] = (uint32_t)m->n;
	m->n++;
	return GS_OK;
}

/* The innermost main call with start < p < end, or NONE. */
static uint32_t main_calls_around(const struct main_calls *m, int64_t p)
{
	size_t lo = gs_lower_bound_i64(m->start, m->n, p);
	uint32_t i;

	if (!lo)
		return NONE;
	for (i = (uint32_t)(lo - 1); i != NONE && m->end[i] <= p; i = m->parent[i])
		;
	return i;
}

/* Whether [s, e) nests with every main call (encloses or is inside each
 * one it meets). */
static bool main_calls_nest(const struct main_calls *m, int64_t s, int64_t e)
{
	uint32_t a = main_calls_around(m, s), b = main_calls_around(m, e);

	return (a == NONE || m->end[a] >= e) && (b == NONE || m->start[b] <= s);
}

/*
 * Lanes of one thread's events hr[first, last): API calls first (they keep
 * the thread's own tid whenever they nest among themselves, so a reader
 * sees every call on its thread), then ranges, on the main lane when they
 * nest with the calls and ranges there, else on overflow lanes after the
 * calls' ones.
 */
static gs_status plan_thread_lanes(struct xplan *c, size_t first, size_t last, struct nesting *g,
				   struct main_calls *m, struct hthread *th)
{
	uint32_t t = (uint32_t)(th - c->threads), lane, call_lanes;
	size_t i;
	gs_status rc = GS_OK;

	nesting_reset(g);
	m->n = 0;
	m->depth = 0;
	for (i = first; i < last && !rc; i++) {
		const struct href *r = &c->hr[i];

		if (r->type != HR_API)
			continue;
		rc = nesting_place(g, r->start, r->end, true, &lane);
		if (rc)
			break; /* lane is not set */
		c->api_lane[r->idx] = lane;
		c->api_thread[r->idx] = t;
		if (!lane)
			rc = main_calls_push(m, r->start, r->end);
	}
	call_lanes = g->pool.lanes;
	nesting_reset(g);
	for (i = first; i < last && !rc; i++) {
		const struct href *r = &c->hr[i];

		if (r->type != HR_RANGE)
			continue;
		rc = nesting_place(g, r->start, r->end, main_calls_nest(m, r->start, r->end),
				   &lane);
		if (rc)
			break;
		c->range_lane[r->idx] = lane ? call_lanes + lane : 0;
		c->range_thread[r->idx] = t;
	}
	th->lanes = call_lanes + g->pool.lanes;
	return rc;
}

/* Host threads and their lanes. */
static gs_status plan_host_threads(struct xplan *c)
{
	struct nesting g = {0};
	struct main_calls m = {0};
	size_t i, k = 0, first;
	gs_status rc = GS_OK;

	c->n_hr = c->n_api;
	for (i = 0; i < c->n_ranges; i++)
		c->n_hr += c->ranges[i].kind != GS_RANGE_GPU_ANNOTATION;
	c->hr = gs_xp_alloc_n(c->n_hr, sizeof(*c->hr));
	c->api_lane = gs_xp_alloc_n(c->n_api, sizeof(uint32_t));
	c->api_thread = gs_xp_alloc_n(c->n_api, sizeof(uint32_t));
	c->range_lane = gs_xp_alloc_n(c->n_ranges, sizeof(uint32_t));
	c->range_thread = gs_xp_alloc_n(c->n_ranges, sizeof(uint32_t));
	c->threads = gs_xp_alloc_n(c->n_hr, sizeof(*c->threads));
	if (!c->hr || !c->api_lane || !c->api_thread || !c->range_lane || !c->range_thread ||
	    !c->threads)
		return gs_nomem();
	for (i = 0; i < c->n_api; i++)
		c->hr[k++] = (struct href){c->api[i].pid,    c->api[i].tid, c->api[i].start_ns,
					   c->api[i].end_ns, (uint32_t)i,   HR_API};
	for (i = 0; i < c->n_ranges; i++)
		if (c->ranges[i].kind != GS_RANGE_GPU_ANNOTATION)
			c->hr[k++] = (struct href){c->ranges[i].pid,      c->ranges[i].tid,
						   c->ranges[i].start_ns, c->ranges[i].end_ns,
						   (uint32_t)i,           HR_RANGE};
	qsort(c->hr, c->n_hr, sizeof(*c->hr), cmp_href);
	for (first = 0; first < c->n_hr && !rc; first = i) {
		struct hthread *th = &c->threads[c->n_threads++];

		th->pid = c->hr[first].pid;
		th->tid = c->hr[first].tid;
		for (i = first; i < c->n_hr && c->hr[i].pid == th->pid && c->hr[i].tid == th->tid;
		     i++)
			;
		rc = plan_thread_lanes(c, first, i, &g, &m, th);
	}
	nesting_fini(&g);
	free(m.start);
	free(m.end);
	free(m.parent);
	free(m.open);
	if (rc)
		return rc;
	/* Threads into their processes; overflow tids above every tid of the
	 * process. */
	for (i = 0; i < c->n_threads; i++) {
		size_t h = gs_xp_find_hproc(c, c->threads[i].pid);
		struct hproc *p = &c->hp[h];

		c->threads[i].hp = (uint32_t)h;
		if (!p->n_threads)
			p->first_thread = i;
		p->n_threads++;
		if (c->threads[i].tid >= p->next_tid)
			p->next_tid = c->threads[i].tid + 1;
	}
	for (i = 0; i < c->n_hp; i++)
		if (c->hp[i].next_tid < 1)
			c->hp[i].next_tid = 1;
	for (i = 0; i < c->n_threads; i++) {
		struct hproc *p = &c->hp[gs_xp_find_hproc(c, c->threads[i].pid)];

		c->threads[i].ovf_tid = p->next_tid;
		p->next_tid += c->threads[i].lanes;
	}
	return GS_OK;
}

/* A sort key and the index it belongs to. */
struct key3 {
	int64_t a, b, c;
	uint32_t idx;
};

static int cmp_key3(const void *pa, const void *pb)
{
	const struct key3 *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->c != y->c)
		return x->c < y->c ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Overheads: disjoint lanes per process, after its threads' tids. */
static gs_status plan_overheads(struct xplan *c)
{
	struct disjoint d = {0};
	struct key3 *k = gs_xp_alloc_n(c->n_oh, sizeof(*k));
	gs_status rc = GS_OK;
	size_t i;

	c->oh_lane = gs_xp_alloc_n(c->n_oh, sizeof(uint32_t));
	if (!k || !c->oh_lane) {
		free(k);
		return gs_nomem();
	}
	for (i = 0; i < c->n_oh; i++)
		k[i] = (struct key3){c->oh[i].pid, c->oh[i].start_ns, c->oh[i].end_ns, (uint32_t)i};
	qsort(k, c->n_oh, sizeof(*k), cmp_key3);
	for (i = 0; i < c->n_oh && !rc; i++) {
		struct hproc *p = &c->hp[gs_xp_find_hproc(c, k[i].a)];
		uint32_t lane;

		if (i == 0 || k[i - 1].a != k[i].a)
			disjoint_reset(&d);
		rc = disjoint_place(&d, k[i].b, k[i].c, &lane);
		if (rc)
			break;
		c->oh_lane[k[i].idx] = lane;
		if (lane + 1 > p->oh_lanes)
			p->oh_lanes = lane + 1;
	}
	free(k);
	pool_fini(&d.pool);
	for (i = 0; i < c->n_hp; i++) {
		c->hp[i].oh_tid = c->hp[i].next_tid;
		c->hp[i].next_tid += c->hp[i].oh_lanes;
	}
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Devices: the device table, stream devices, sync devices, breakdowns. */
static gs_status plan_devices(struct xplan *c)
{
	size_t n_dt, i, k = 0;
	const struct gs_device *dt = gs_trace_devices(c->t, &n_dt);
	size_t nb = c->x ? c->x->n_breakdowns : 0;
	uint32_t *ids = gs_xp_alloc_n(n_dt + c->n_streams + c->n_syncs + nb, sizeof(*ids));
	int64_t next_pid = 0;

	if (!ids)
		return gs_nomem();
	/* A rank of a job: only the devices it used (the device table of a
	 * multi-process input lists every process's). */
	for (i = 0; i < n_dt && !c->rank; i++)
		ids[k++] = dt[i].id;
	for (i = 0; i < c->n_streams; i++)
		ids[k++] = c->streams[i].device;
	for (i = 0; i < c->n_syncs; i++)
		ids[k++] = c->syncs[i].device;
	for (i = 0; i < nb; i++)
		ids[k++] = c->x->breakdowns[i].device;
	if (c->one_device) {
		size_t m = 0;

		for (i = 0; i < k; i++)
			if (ids[i] == c->device)
				ids[m++] = ids[i];
		k = m;
	}
	qsort(ids, k, sizeof(*ids), cmp_u32);
	c->devs = gs_xp_alloc_n(k, sizeof(*c->devs));
	if (!c->devs) {
		free(ids);
		return gs_nomem();
	}
	for (i = 0; i < k; i++) {
		if (c->n_devs && c->devs[c->n_devs - 1].id == ids[i])
			continue;
		c->devs[c->n_devs].id = ids[i];
		c->devs[c->n_devs].dt = NONE;
		c->n_devs++;
	}
	free(ids);
	for (i = n_dt; i-- > 0;) {
		size_t d = gs_xp_find_dev(c, dt[i].id);

		if (d != NONE)
			c->devs[d].dt = (uint32_t)i;
	}
	for (i = 0; i < nb; i++) {
		size_t d = gs_xp_find_dev(c, c->x->breakdowns[i].device);

		if (d != NONE && !c->devs[d].bd)
			c->devs[d].bd = &c->x->breakdowns[i];
	}
	/* Pids: the device id (as Kineto) unless a host process has it. A
	 * rank of a job is numbered later (job_pids). */
	if (c->rank)
		return GS_OK;
	for (i = 0; i < c->n_hp; i++)
		if (c->hp[i].pid >= next_pid)
			next_pid = c->hp[i].pid + 1;
	for (i = 0; i < c->n_devs; i++)
		if ((int64_t)c->devs[i].id >= next_pid)
			next_pid = (int64_t)c->devs[i].id + 1;
	for (i = 0; i < c->n_devs; i++) {
		struct cdev *d = &c->devs[i];

		d->pid = gs_xp_find_hproc(c, d->id) == NONE ? (int64_t)d->id : next_pid++;
		if (c->ideal)
			d->ideal_pid = next_pid++;
	}
	return GS_OK;
}

/* Streams in display order: by device, stream id, pid, context. */
static gs_status plan_stream_order(struct xplan *c)
{
	struct key3 *k = gs_xp_alloc_n(c->n_streams, sizeof(*k));
	size_t i;

	if (!k)
		return gs_nomem();
	for (i = 0; i < c->n_streams; i++) {
		const struct gs_stream *st = &c->streams[i];

		/* Stream ids above INT64_MAX sort among themselves after the rest. */
		k[i] = (struct key3){(int64_t)st->device,
				     st->stream_id > INT64_MAX ? INT64_MAX : (int64_t)st->stream_id,
				     st->pid, (uint32_t)i};
	}
	qsort(k, c->n_streams, sizeof(*k), cmp_key3);
	for (i = 0; i < c->n_streams; i++)
		c->stream_order[i] = k[i].idx;
	free(k);
	return GS_OK;
}

/* Ideal lanes of the ops of one stream (`k`: scratch of n_ops keys). */
static gs_status plan_ideal_stream(struct xplan *c, struct key3 *k, struct disjoint *d,
				   size_t first, size_t count, struct cstream *x, struct cdev *dv)
{
	size_t j, m = 0;
	gs_status rc = GS_OK;

	for (j = first; j < first + count; j++)
		if (c->x->ideal_in[j])
			k[m++] = (struct key3){c->x->ideal_start[j], 0, 0, (uint32_t)j};
	qsort(k, m, sizeof(*k), cmp_key3);
	x->has_ideal = m > 0;
	disjoint_reset(d);
	for (j = 0; j < m && !rc; j++) {
		const struct gs_op *op = &c->ops[k[j].idx];
		uint32_t lane;

		rc = disjoint_place(d, k[j].a, k[j].a + (op->end_ns - op->start_ns), &lane);
		if (rc)
			break;
		c->ideal_lane[k[j].idx] = lane;
	}
	x->ideal_lanes = d->pool.lanes;
	x->ideal_ovf_tid = dv->ideal_next_tid;
	dv->ideal_next_tid += x->ideal_lanes;
	return rc;
}

/* Stream tracks, op lanes, ideal lanes, sync lanes. */
static gs_status plan_streams(struct xplan *c)
{
	struct disjoint d = {0};
	struct key3 *k = NULL;
	gs_status rc;
	size_t i;

	c->cs = gs_xp_alloc_n(c->n_streams, sizeof(*c->cs));
	c->stream_order = gs_xp_alloc_n(c->n_streams, sizeof(uint32_t));
	c->op_lane = gs_xp_alloc_n(c->n_ops, sizeof(uint32_t));
	c->sync_lane = gs_xp_alloc_n(c->n_syncs, sizeof(uint32_t));
	if (c->ideal) {
		c->ideal_lane = gs_xp_alloc_n(c->n_ops, sizeof(uint32_t));
		k = gs_xp_alloc_n(c->n_ops, sizeof(*k));
	}
	if (!c->cs || !c->stream_order || !c->op_lane || !c->sync_lane ||
	    (c->ideal && (!c->ideal_lane || !k))) {
		free(k);
		return gs_nomem();
	}
	rc = plan_stream_order(c);
	/* Main tids: the stream id when no other stream of the device has it. */
	for (i = 0; i < c->n_streams && !rc; i++) {
		uint32_t s = c->stream_order[i];
		const struct gs_stream *st = &c->streams[s];
		struct cstream *x = &c->cs[s];
		const struct gs_stream *prev = i ? &c->streams[c->stream_order[i - 1]] : NULL;
		const struct gs_stream *next =
			i + 1 < c->n_streams ? &c->streams[c->stream_order[i + 1]] : NULL;

		x->dev = (uint32_t)gs_xp_find_dev(c, st->device);
		if (x->dev == NONE) /* a device left out */
			continue;
		x->ambiguous =
			(prev && prev->device == st->device && prev->stream_id == st->stream_id) ||
			(next && next->device == st->device && next->stream_id == st->stream_id);
		x->tid = -1;
		if (!x->ambiguous && st->stream_id <= INT32_MAX) {
			struct cdev *dv = &c->devs[x->dev];

			x->tid = (int64_t)st->stream_id;
			if (x->tid >= dv->next_tid)
				dv->next_tid = x->tid + 1;
		}
	}
	for (i = 0; i < c->n_devs; i++)
		if (c->devs[i].next_tid < 1)
			c->devs[i].next_tid = 1;
	/* The other main tids, then the overflow tids above all of them (the
	 * ideal process mirrors the main tids). */
	for (i = 0; i < c->n_streams && !rc; i++) {
		struct cstream *x = &c->cs[c->stream_order[i]];

		if (x->dev != NONE && x->tid < 0)
			x->tid = c->devs[x->dev].next_tid++;
	}
	for (i = 0; i < c->n_devs; i++)
		c->devs[i].ideal_next_tid = c->devs[i].next_tid;
	for (i = 0; i < c->n_streams && !rc; i++) {
		uint32_t s = c->stream_order[i];
		struct cstream *x = &c->cs[s];
		struct cdev *dv;
		size_t first, count, j;

		if (x->dev == NONE)
			continue;
		dv = &c->devs[x->dev];
		gs_trace_stream_ops(c->t, s, &first, &count);
		disjoint_reset(&d);
		for (j = first; j < first + count && !rc; j++) {
			uint32_t lane;

			rc = disjoint_place(&d, c->ops[j].start_ns, c->ops[j].end_ns, &lane);
			if (rc)
				break;
			c->op_lane[j] = lane;
		}
		x->lanes = d.pool.lanes;
		x->ovf_tid = dv->next_tid;
		dv->next_tid += x->lanes;
		if (c->ideal && !rc)
			rc = plan_ideal_stream(c, k, &d, first, count, x, dv);
	}
	free(k);
	pool_fini(&d.pool);
	/* Syncs (sorted by start): disjoint lanes per device. */
	for (i = 0; i < c->n_syncs && !rc; i++) {
		size_t di = gs_xp_find_dev(c, c->syncs[i].device);
		struct cdev *dv;
		uint32_t lane;

		if (di == NONE)
			continue;
		dv = &c->devs[di];
		rc = disjoint_place(&dv->sync_dj, c->syncs[i].start_ns, c->syncs[i].end_ns, &lane);
		if (rc)
			break;
		c->sync_lane[i] = lane;
		if (lane + 1 > dv->sync_lanes)
			dv->sync_lanes = lane + 1;
	}
	for (i = 0; i < c->n_devs; i++) {
		struct cdev *dv = &c->devs[i];

		dv->sync_tid = dv->next_tid;
		dv->next_tid += dv->sync_lanes;
		pool_fini(&dv->sync_dj.pool);
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Joining ops and syncs to their calls                                     */
/* ------------------------------------------------------------------------ */

/* Per call, the list of items (ops or syncs) that point to it. */
static gs_status csr(const uint32_t *owner, size_t n_items, size_t n_calls, uint32_t **first,
		     uint32_t **items)
{
	uint32_t *f = gs_xp_alloc_n(n_calls + 1, sizeof(*f));
	uint32_t *it = gs_xp_alloc_n(n_items, sizeof(*it));
	size_t i;

	*first = f;
	*items = it;
	if (!f || !it)
		return gs_nomem();
	for (i = 0; i < n_items; i++)
		if (owner[i] != NONE)
			f[owner[i] + 1]++;
	for (i = 0; i < n_calls; i++)
		f[i + 1] += f[i];
	{
		uint32_t *pos = gs_xp_alloc_n(n_calls, sizeof(*pos));

		if (!pos)
			return gs_nomem();
		memcpy(pos, f, n_calls * sizeof(*pos));
		for (i = 0; i < n_items; i++)
			if (owner[i] != NONE)
				it[pos[owner[i]]++] = (uint32_t)i;
		free(pos);
	}
	return GS_OK;
}

/* Each op's launch call (gs_export_launches) and each sync's call (the
 * trace's join), and per call the ops and syncs that point to it. */
static gs_status plan_launches(struct xplan *c)
{
	size_t n_sync_calls;
	gs_status rc = gs_export_launches(c->t, c->x, &c->launch);

	c->sync_call = gs_trace_sync_calls(c->t, &n_sync_calls);
	if (!rc && n_sync_calls != c->n_syncs) {
		gs_error_append("export: the trace is not finished");
		rc = GS_ERR_INVALID;
	}
	if (!rc)
		rc = csr(c->launch, c->n_ops, c->n_api, &c->call_ops_first, &c->call_ops);
	if (!rc)
		rc = csr(c->sync_call, c->n_syncs, c->n_api, &c->call_syncs_first, &c->call_syncs);
	return rc;
}

/* A GPU annotation written: on a stream of a device kept. */
bool gs_xp_annotation_kept(const struct xplan *c, size_t i)
{
	const struct gs_range *r = &c->ranges[i];

	return r->kind == GS_RANGE_GPU_ANNOTATION && r->stream < c->n_streams &&
	       c->cs[r->stream].dev != NONE;
}

/*
 * GPU annotations go on tracks of their own above every other tid of their
 * device (a GPU track holds ops that never overlap; annotations span
 * them): lanes where each annotation nests in the one before it or follows
 * it, the first lane that fits.
 */
static gs_status plan_gpu_annotations(struct xplan *c)
{
	uint32_t *idx, *up, *top = NULL;
	size_t n = 0, cap = 0, *at;

	for (size_t i = 0; i < c->n_ranges; i++)
		n += gs_xp_annotation_kept(c, i);
	if (!n)
		return GS_OK;
	c->ann_tid = gs_xp_alloc_n(c->n_ranges, sizeof(*c->ann_tid));
	idx = gs_xp_alloc_n(n, sizeof(*idx));
	up = gs_xp_alloc_n(c->n_ranges, sizeof(*up));
	at = gs_xp_alloc_n(c->n_devs + 1, sizeof(*at));
	if (!c->ann_tid || !idx || !up || !at) {
		free(idx);
		free(up);
		free(at);
		return gs_nomem();
	}
	/* By device, in range order (by start) within each. */
	for (size_t i = 0; i < c->n_ranges; i++)
		if (gs_xp_annotation_kept(c, i))
			at[c->cs[c->ranges[i].stream].dev + 1]++;
	for (size_t d = 0; d < c->n_devs; d++)
		at[d + 1] += at[d];
	for (size_t i = 0; i < c->n_ranges; i++)
		if (gs_xp_annotation_kept(c, i))
			idx[at[c->cs[c->ranges[i].stream].dev]++] = (uint32_t)i;
	free(at);
	for (size_t first = 0, last; first < n; first = last) {
		struct cdev *dv = &c->devs[c->cs[c->ranges[idx[first]].stream].dev];
		size_t lanes = 0;

		for (last = first;
		     last < n && &c->devs[c->cs[c->ranges[idx[last]].stream].dev] == dv; last++) {
			const struct gs_range *r = &c->ranges[idx[last]];
			size_t l;

			for (l = 0; l < lanes; l++) {
				while (top[l] != NONE && c->ranges[top[l]].end_ns <= r->start_ns)
					top[l] = up[top[l]];
				if (top[l] == NONE || c->ranges[top[l]].end_ns >= r->end_ns)
					break;
			}
			if (l == lanes) {
				if (lanes == cap) {
					size_t nc = cap ? cap * 2 : 8;
					uint32_t *nt = realloc(top, nc * sizeof(*nt));

					if (!nt) {
						free(top);
						free(idx);
						free(up);
						return gs_nomem();
					}
					top = nt;
					cap = nc;
				}
				top[lanes++] = NONE;
			}
			up[idx[last]] = top[l];
			top[l] = idx[last];
			c->ann_tid[idx[last]] = dv->next_tid + (int64_t)l;
		}
		dv->ann_tid = dv->next_tid;
		dv->ann_lanes = (uint32_t)lanes;
		dv->next_tid += (int64_t)lanes;
	}
	free(top);
	free(idx);
	free(up);
	return GS_OK;
}

/* GPU annotations on their tracks (plan_gpu_annotations), their device
 * and stream in args as the PyTorch profiler writes them. */

/* Dependency flows of a rank: those whose two ops are written. */
uint64_t gs_xplan_count_flows(const struct xplan *c)
{
	const struct gs_export_extras *x = c->x;
	uint64_t n = 0;

	for (size_t i = 0; x && i < x->n_edges; i++) {
		const struct gs_export_edge *e = &x->edges[i];

		n += e->from < c->n_ops && e->to < c->n_ops && gs_xp_op_kept(c, e->from) &&
		     gs_xp_op_kept(c, e->to);
	}
	return n;
}

void gs_xplan_free(struct xplan *c)
{
	free(c->hr);
	free(c->threads);
	free(c->hp);
	free(c->api_lane);
	free(c->api_thread);
	free(c->range_lane);
	free(c->ann_tid);
	free(c->range_thread);
	free(c->oh_lane);
	free(c->devs);
	free(c->cs);
	free(c->stream_order);
	free(c->op_lane);
	free(c->ideal_lane);
	free(c->sync_lane);
	free(c->launch);
	free(c->call_ops_first);
	free(c->call_ops);
	free(c->call_syncs_first);
	free(c->call_syncs);
}

static gs_status xplan_check(const struct xplan *c)
{
	size_t i;

	for (i = 0; i < c->n_ops; i++) {
		if (c->ops[i].stream >= c->n_streams) {
			gs_error_append("export: op %zu names stream %u of %zu", i,
					c->ops[i].stream, c->n_streams);
			return GS_ERR_INVALID;
		}
	}
	if (c->ideal && (!c->x || !c->x->ideal_in || !c->x->ideal_start)) {
		gs_error_append("export: the ideal schedule was asked for but not given");
		return GS_ERR_INVALID;
	}
	if (c->n_ops >= NONE || c->n_api >= NONE || c->n_syncs >= NONE || c->n_ranges >= NONE) {
		gs_error_append("export: more than 2^32 - 1 records of one kind");
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

/* Everything but the pids of a job's ranks (job_pids). */
gs_status gs_xplan_plan(struct xplan *c, struct xflows *flows, const struct gs_trace *t,
			const struct gs_export_extras *x, const struct gs_export_options *o)
{
	gs_status rc;

	c->flows = flows;
	c->t = t;
	c->x = x;
	c->ideal = o && o->with_ideal;
	c->one_device = o && o->has_device;
	c->device = o ? o->device : 0;
	c->ops = gs_trace_ops(t, &c->n_ops);
	c->streams = gs_trace_streams(t, &c->n_streams);
	c->api = gs_trace_api_calls(t, &c->n_api);
	c->syncs = gs_trace_syncs(t, &c->n_syncs);
	c->ranges = gs_trace_ranges(t, &c->n_ranges);
	c->oh = gs_trace_overheads(t, &c->n_oh);
	c->procs = gs_trace_processes(t, &c->n_procs);

	rc = xplan_check(c);
	if (!rc)
		rc = plan_host_procs(c);
	if (!rc)
		rc = plan_host_threads(c);
	if (!rc)
		rc = plan_overheads(c);
	if (!rc)
		rc = plan_devices(c);
	if (!rc)
		rc = plan_streams(c);
	if (!rc)
		rc = plan_gpu_annotations(c);
	if (!rc)
		rc = plan_launches(c);
	return rc;
}
