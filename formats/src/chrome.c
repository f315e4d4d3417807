/* SPDX-License-Identifier: MIT */
/*
 * Chrome trace JSON export (gpuscope/export.h; layout below).
 *
 * Layout. Processes: every host process (its own pid), then each device
 * (pid = device id, as Kineto writes it, unless a host process has that
 * pid: then a free number above all of them) and, with the ideal schedule,
 * a process for it right after its device. Tracks: a host thread is one
 * track (tid = its tid), a stream one track in its device (tid = stream id
 * when no other stream of the device has that id and it fits 31 bits, else
 * a free number), the syncs of a device one "cuda_sync" track.
 *
 * Jobs (gs_export_chrome_job). Each rank is planned as a trace on its own
 * (its own processes, tracks, lanes and launch joins), then numbered: pid
 * = rank * stride + lane, devices first, so that no two ranks share a pid
 * whatever their recorded pids and device ids. The header is written once;
 * the ranks' events follow rank by rank through one shared output (one
 * flow id counter, so flow ids stay unique). Only flows within a rank are
 * ever written. Each rank's ids are offset into a range of their own and
 * its times shifted onto the reference rank's clock (job_ids, job_clocks);
 * the header's gpuscope_job says who each rank is and what was done to it,
 * so that gpuscope's importer reads the same ranks back (kineto.c).
 *
 * Lanes. A viewer nests the complete events of one track by time, so a
 * track must never hold two events that partly overlap. Ops of a stream
 * (and syncs, overheads, ideal ops) must not overlap at all: an op that
 * starts before the previous one on its track ended (timestamp skew in the
 * record) goes to an overflow track below the stream. Host ranges and calls
 * must nest: one that straddles an open event of its thread goes to an
 * overflow track of the thread (where it may again enclose or nest). Both
 * placements are greedy in start order: the main track first, then a free
 * overflow track (a heap keyed by the time each becomes free; the track
 * last used is also tried for nesting), else a new one. O(N log N).
 *
 * Order. Metadata first; then the host events thread by thread in time
 * order, each API call followed at once by the ops it launched and the
 * syncs with its correlation id (a streaming Kineto reader, gpuscope's own,
 * joins an op to its call through a bounded window); then ops and syncs
 * without a call, overheads, breakdown counters, ideal ops, and flows.
 * Viewers sort events by time themselves.
 *
 * Times: ts and dur are integer ns written as µs with three decimals
 * (never through a double). Flow events sit one ns inside the slices they
 * bind to (the launch call's start, the op's start, a producer's end), so
 * each binds to its own slice even when slices touch.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/export.h>

#include "copy_names.h"
#include "export_out.h"

#define NONE UINT32_MAX

bool gs_export_path_is_gzip(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

static void *alloc_n(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* ------------------------------------------------------------------------ */
/* Lanes                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Overflow tracks: those in use in a min-heap by the time each becomes
 * free, the free ones in a min-heap by number (the lowest free track is
 * taken first, so overflow fills the tracks nearest the main one).
 */
struct lane_pool {
	int64_t *free_at; /* by lane (1-based; [0] unused) */
	uint32_t *busy;   /* heap by free_at */
	uint32_t *idle;   /* heap by lane number */
	size_t n_busy, n_idle, cap;
	uint32_t lanes; /* overflow lanes so far */
};

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

/* Tracks whose events must not overlap at all. */
struct disjoint {
	int64_t main_end;
	bool main_used;
	struct lane_pool pool;
};

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

/* ------------------------------------------------------------------------ */
/* The plan of processes and tracks                                         */
/* ------------------------------------------------------------------------ */

enum href_type {
	HR_RANGE = 0, /* before a call with the same times: it encloses it */
	HR_API = 1,
};

/* A host event, for ordering by thread and time. */
struct href {
	int64_t pid, tid, start, end;
	uint32_t idx;
	uint8_t type;
};

struct hthread {
	int64_t pid, tid;
	uint32_t hp;     /* its process, index into hp */
	uint32_t lanes;  /* overflow lanes */
	int64_t ovf_tid; /* tid of overflow lane 1 (then +1 each) */
};

struct hproc {
	int64_t pid;   /* as recorded */
	int64_t cpid;  /* in the export: pid, or the rank's numbering */
	uint32_t proc; /* index into gs_trace_processes(), NONE when absent */
	size_t first_thread, n_threads;
	int64_t next_tid;
	uint32_t oh_lanes; /* overhead lanes (main + overflow) */
	int64_t oh_tid;
};

struct cdev {
	uint32_t id;
	uint32_t dt; /* index into gs_trace_devices(), NONE when absent */
	int64_t pid, ideal_pid;
	int64_t next_tid, ideal_next_tid;
	uint32_t sync_lanes; /* 0 when no syncs, else main + overflow */
	int64_t sync_tid;
	uint32_t ann_lanes; /* GPU annotation tracks, from ann_tid */
	int64_t ann_tid;
	const struct gs_export_breakdown *bd;
	struct disjoint sync_dj;
};

struct cstream {
	uint32_t dev; /* index into devs */
	int64_t tid;
	uint32_t lanes; /* overflow lanes */
	int64_t ovf_tid;
	uint32_t ideal_lanes;
	int64_t ideal_ovf_tid;
	bool has_ideal;
	bool ambiguous; /* another stream of the device has its id */
};

/* The output stream, shared by every rank of a job export. */
struct chrome_out {
	struct gs_wbuf w;
	bool first_event;
	bool in_args; /* the event being written has opened its args */
	uint64_t next_flow;
	/* Dependency flows: the most to write (max_flows), in the file and
	 * written so far (flow_budget), and left out. */
	uint64_t flows_total, flows_left, flow_budget, max_flows;
};

struct chrome {
	const struct gs_trace *t;
	const struct gs_export_extras *x;
	bool ideal;
	/* Only device `device` (gs_export_options.has_device): the others get
	 * no process, and their streams, ops and syncs are left out. */
	bool one_device;
	uint32_t device;
	struct chrome_out *out;
	/* A rank of a job export (NULL: a trace on its own, the classic
	 * layout). */
	const struct gs_export_rank *rank;
	/* A rank of a job: added to every time written (its clock onto the
	 * reference rank's) and to every id but 0 (correlation, event, sync
	 * and external ids: each rank's in a range of its own). Both 0 for a
	 * trace on its own. */
	int64_t shift;
	uint64_t id_offset;
	int64_t pid_base;               /* the rank's first pid (job_pids) */
	const struct gs_process *rproc; /* the rank's process record, or NULL */

	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_stream *streams;
	size_t n_streams;
	const struct gs_api_call *api;
	size_t n_api;
	const struct gs_sync *syncs;
	size_t n_syncs;
	const struct gs_range *ranges;
	size_t n_ranges;
	const struct gs_overhead *oh;
	size_t n_oh;
	const struct gs_process *procs;
	size_t n_procs;

	struct href *hr;
	size_t n_hr;
	struct hthread *threads;
	size_t n_threads;
	struct hproc *hp;
	size_t n_hp;
	uint32_t *api_lane, *api_thread;
	uint32_t *range_lane, *range_thread;
	int64_t *ann_tid; /* per range: a GPU annotation's tid (on its device) */
	uint32_t *oh_lane;

	struct cdev *devs;
	size_t n_devs;
	struct cstream *cs;
	uint32_t *stream_order; /* streams by device, stream id, pid */
	uint32_t *op_lane, *ideal_lane, *sync_lane;

	uint32_t *launch;          /* per op: its call, NONE when unknown */
	const uint32_t *sync_call; /* per sync: its call (gs_trace_sync_calls) */
	/* API call -> ops it launched / syncs with its correlation (CSR). */
	uint32_t *call_ops_first, *call_ops;
	uint32_t *call_syncs_first, *call_syncs;
};

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

static size_t find_hproc(const struct chrome *c, int64_t pid)
{
	size_t lo = 0, hi = c->n_hp;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->hp[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n_hp && c->hp[lo].pid == pid ? lo : NONE;
}

static size_t find_dev(const struct chrome *c, uint32_t id)
{
	size_t lo = 0, hi = c->n_devs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->devs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n_devs && c->devs[lo].id == id ? lo : NONE;
}

/* Host processes: the process table and every pid of a host event. */
static gs_status plan_host_procs(struct chrome *c)
{
	size_t n = c->n_procs + c->n_api + c->n_ranges + c->n_oh, k = 0, i;
	int64_t *pids = alloc_n(n, sizeof(*pids));

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
	c->hp = alloc_n(k, sizeof(*c->hp));
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
		size_t h = find_hproc(c, c->procs[i].pid);

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
	size_t lo = 0, hi = m->n;
	uint32_t i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->start[mid] < p)
			lo = mid + 1;
		else
			hi = mid;
	}
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
static gs_status plan_thread_lanes(struct chrome *c, size_t first, size_t last, struct nesting *g,
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
static gs_status plan_host_threads(struct chrome *c)
{
	struct nesting g = {0};
	struct main_calls m = {0};
	size_t i, k = 0, first;
	gs_status rc = GS_OK;

	c->n_hr = c->n_api;
	for (i = 0; i < c->n_ranges; i++)
		c->n_hr += c->ranges[i].kind != GS_RANGE_GPU_ANNOTATION;
	c->hr = alloc_n(c->n_hr, sizeof(*c->hr));
	c->api_lane = alloc_n(c->n_api, sizeof(uint32_t));
	c->api_thread = alloc_n(c->n_api, sizeof(uint32_t));
	c->range_lane = alloc_n(c->n_ranges, sizeof(uint32_t));
	c->range_thread = alloc_n(c->n_ranges, sizeof(uint32_t));
	c->threads = alloc_n(c->n_hr, sizeof(*c->threads));
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
		size_t h = find_hproc(c, c->threads[i].pid);
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
		struct hproc *p = &c->hp[find_hproc(c, c->threads[i].pid)];

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
static gs_status plan_overheads(struct chrome *c)
{
	struct disjoint d = {0};
	struct key3 *k = alloc_n(c->n_oh, sizeof(*k));
	gs_status rc = GS_OK;
	size_t i;

	c->oh_lane = alloc_n(c->n_oh, sizeof(uint32_t));
	if (!k || !c->oh_lane) {
		free(k);
		return gs_nomem();
	}
	for (i = 0; i < c->n_oh; i++)
		k[i] = (struct key3){c->oh[i].pid, c->oh[i].start_ns, c->oh[i].end_ns, (uint32_t)i};
	qsort(k, c->n_oh, sizeof(*k), cmp_key3);
	for (i = 0; i < c->n_oh && !rc; i++) {
		struct hproc *p = &c->hp[find_hproc(c, k[i].a)];
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
static gs_status plan_devices(struct chrome *c)
{
	size_t n_dt, i, k = 0;
	const struct gs_device *dt = gs_trace_devices(c->t, &n_dt);
	size_t nb = c->x ? c->x->n_breakdowns : 0;
	uint32_t *ids = alloc_n(n_dt + c->n_streams + c->n_syncs + nb, sizeof(*ids));
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
	c->devs = alloc_n(k, sizeof(*c->devs));
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
		size_t d = find_dev(c, dt[i].id);

		if (d != NONE)
			c->devs[d].dt = (uint32_t)i;
	}
	for (i = 0; i < nb; i++) {
		size_t d = find_dev(c, c->x->breakdowns[i].device);

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

		d->pid = find_hproc(c, d->id) == NONE ? (int64_t)d->id : next_pid++;
		if (c->ideal)
			d->ideal_pid = next_pid++;
	}
	return GS_OK;
}

/* Streams in display order: by device, stream id, pid, context. */
static gs_status plan_stream_order(struct chrome *c)
{
	struct key3 *k = alloc_n(c->n_streams, sizeof(*k));
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
static gs_status plan_ideal_stream(struct chrome *c, struct key3 *k, struct disjoint *d,
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
static gs_status plan_streams(struct chrome *c)
{
	struct disjoint d = {0};
	struct key3 *k = NULL;
	gs_status rc;
	size_t i;

	c->cs = alloc_n(c->n_streams, sizeof(*c->cs));
	c->stream_order = alloc_n(c->n_streams, sizeof(uint32_t));
	c->op_lane = alloc_n(c->n_ops, sizeof(uint32_t));
	c->sync_lane = alloc_n(c->n_syncs, sizeof(uint32_t));
	if (c->ideal) {
		c->ideal_lane = alloc_n(c->n_ops, sizeof(uint32_t));
		k = alloc_n(c->n_ops, sizeof(*k));
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

		x->dev = (uint32_t)find_dev(c, st->device);
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
		size_t di = find_dev(c, c->syncs[i].device);
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
	uint32_t *f = alloc_n(n_calls + 1, sizeof(*f));
	uint32_t *it = alloc_n(n_items, sizeof(*it));
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
		uint32_t *pos = alloc_n(n_calls, sizeof(*pos));

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
static gs_status plan_launches(struct chrome *c)
{
	size_t n_sync_calls;
	gs_status rc = gs_export_launches(c->t, c->x, &c->launch);

	c->sync_call = gs_trace_sync_calls(c->t, &n_sync_calls);
	if (!rc && n_sync_calls != c->n_syncs) {
		gs_error_append("gs_export_chrome: the trace is not finished");
		rc = GS_ERR_INVALID;
	}
	if (!rc)
		rc = csr(c->launch, c->n_ops, c->n_api, &c->call_ops_first, &c->call_ops);
	if (!rc)
		rc = csr(c->sync_call, c->n_syncs, c->n_api, &c->call_syncs_first, &c->call_syncs);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Names the Kineto importer reads back                                     */
/* ------------------------------------------------------------------------ */

static const char *const copy_dir_names[GS_COPY_KIND_COUNT] = {"",     "HtoD", "DtoH",
							       "DtoD", "HtoH", "PtoP"};
static const char *const mem_names[GS_MEM_KIND_COUNT] = {"Unknown", "Pageable", "Pinned",
							 "Device",  "Managed",  "Array"};

/* Kineto's memory kind names, as the importer reads them. */
static const char *mem_name(uint8_t k)
{
	return k < GS_MEM_KIND_COUNT ? mem_names[k] : "Unknown";
}

/*
 * The name an op is exported under: its own when the importer reads the
 * same direction and memory kinds back from it, else Kineto's
 * ("Memcpy HtoD (Pageable -> Device)", "Memset (Device)").
 */
static const char *op_name(const struct chrome *c, const struct gs_op *op, char *buf, size_t size)
{
	const char *name = gs_trace_string(c->t, op->name);
	uint8_t ck, src, dst;

	if (op->kind == GS_OP_MEMCPY) {
		ck = src = dst = 0;
		gs_copy_name_parse(name, strlen(name), NULL, &ck, &src, &dst);
		if (ck == op->copy_kind && src == op->src_mem && dst == op->dst_mem)
			return name;
		if (op->copy_kind == GS_COPY_UNKNOWN || op->copy_kind >= GS_COPY_KIND_COUNT)
			return "Memcpy";
		snprintf(buf, size, "Memcpy %s (%s -> %s)", copy_dir_names[op->copy_kind],
			 mem_name(op->src_mem), mem_name(op->dst_mem));
		return buf;
	}
	if (op->kind == GS_OP_MEMSET) {
		if (gs_memset_name_parse(name, strlen(name)) == op->dst_mem)
			return name;
		if (op->dst_mem == GS_MEM_UNKNOWN)
			return "Memset";
		snprintf(buf, size, "Memset (%s)", mem_name(op->dst_mem));
		return buf;
	}
	return name;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

static void ev_open(struct chrome *c, const char *ph)
{
	gs_wbuf_puts(&c->out->w, c->out->first_event ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	c->out->first_event = false;
	c->out->in_args = false;
	gs_wbuf_puts(&c->out->w, ph);
	gs_wbuf_putc(&c->out->w, '"');
}

static void ev_close(struct chrome *c)
{
	if (c->out->in_args)
		gs_wbuf_putc(&c->out->w, '}');
	c->out->in_args = false;
	gs_wbuf_putc(&c->out->w, '}');
}

/* A member of the event: `,"key":`. */
static void key(struct chrome *c, const char *k)
{
	gs_wbuf_putc(&c->out->w, ',');
	gs_wbuf_json_str(&c->out->w, k);
	gs_wbuf_putc(&c->out->w, ':');
}

/* A member of its args, opening them the first time. */
static void akey(struct chrome *c, const char *k)
{
	gs_wbuf_puts(&c->out->w, c->out->in_args ? "," : ",\"args\":{");
	c->out->in_args = true;
	gs_wbuf_json_str(&c->out->w, k);
	gs_wbuf_putc(&c->out->w, ':');
}

static void kv_i64(struct chrome *c, const char *k, int64_t v)
{
	key(c, k);
	gs_wbuf_i64(&c->out->w, v);
}

static void kv_str(struct chrome *c, const char *k, const char *v)
{
	key(c, k);
	gs_wbuf_json_str(&c->out->w, v);
}

static void kv_us(struct chrome *c, const char *k, int64_t ns)
{
	key(c, k);
	gs_wbuf_us(&c->out->w, ns);
}

/* "ts": a time of the trace, on the export's axis (c->shift). */
static void kv_ts(struct chrome *c, int64_t ns)
{
	kv_us(c, "ts", ns + c->shift);
}

/* An id as written: apart from the other ranks' (c->id_offset); 0 stays 0
 * (none). */
static uint64_t xid(const struct chrome *c, uint64_t id)
{
	return id ? id + c->id_offset : 0;
}

static void arg_i64(struct chrome *c, const char *k, int64_t v)
{
	akey(c, k);
	gs_wbuf_i64(&c->out->w, v);
}

static void arg_u64(struct chrome *c, const char *k, uint64_t v)
{
	akey(c, k);
	gs_wbuf_u64(&c->out->w, v);
}

static void arg_str(struct chrome *c, const char *k, const char *v)
{
	akey(c, k);
	gs_wbuf_json_str(&c->out->w, v);
}

static void arg_dim3(struct chrome *c, const char *k, const uint32_t v[3])
{
	akey(c, k);
	gs_wbuf_putc(&c->out->w, '[');
	gs_wbuf_u64(&c->out->w, v[0]);
	gs_wbuf_putc(&c->out->w, ',');
	gs_wbuf_u64(&c->out->w, v[1]);
	gs_wbuf_putc(&c->out->w, ',');
	gs_wbuf_u64(&c->out->w, v[2]);
	gs_wbuf_putc(&c->out->w, ']');
}

/* A complete event up to its args. */
static void x_event(struct chrome *c, const char *cat, const char *name, int64_t pid, int64_t tid,
		    int64_t start, int64_t end)
{
	ev_open(c, "X");
	kv_str(c, "cat", cat);
	kv_str(c, "name", name);
	kv_i64(c, "pid", pid);
	kv_i64(c, "tid", tid);
	kv_ts(c, start);
	kv_us(c, "dur", end - start);
}

/* Metadata: {"ph":"M","name":what,"pid","tid","args":{argk: value}}. */
static void meta_str(struct chrome *c, const char *what, int64_t pid, int64_t tid, const char *argk,
		     const char *v)
{
	ev_open(c, "M");
	kv_str(c, "name", what);
	kv_i64(c, "pid", pid);
	kv_i64(c, "tid", tid);
	arg_str(c, argk, v);
	ev_close(c);
}

static void meta_i64(struct chrome *c, const char *what, int64_t pid, int64_t tid, const char *argk,
		     int64_t v)
{
	ev_open(c, "M");
	kv_str(c, "name", what);
	kv_i64(c, "pid", pid);
	kv_i64(c, "tid", tid);
	arg_i64(c, argk, v);
	ev_close(c);
}

static void thread_meta(struct chrome *c, int64_t pid, int64_t tid, const char *name, int64_t sort)
{
	meta_str(c, "thread_name", pid, tid, "name", name);
	meta_i64(c, "thread_sort_index", pid, tid, "sort_index", sort);
}

static const char *stream_label(const struct chrome *c, uint32_t s, char *buf, size_t size)
{
	const struct gs_stream *st = &c->streams[s];

	if (c->cs[s].ambiguous)
		snprintf(buf, size, "stream %llu (pid %lld, context %u)",
			 (unsigned long long)st->stream_id, (long long)st->pid, st->context);
	else
		snprintf(buf, size, "stream %llu", (unsigned long long)st->stream_id);
	return buf;
}

/* A trace on its own: host processes keep their pids and names (the
 * command line), devices are "GPU N: name"; hosts sort first. */
static void host_proc_meta(struct chrome *c, size_t i)
{
	const struct hproc *p = &c->hp[i];
	char label[64];

	if (p->proc != NONE) {
		const char *cmd = gs_trace_string(c->t, c->procs[p->proc].command_line);

		if (*cmd)
			meta_str(c, "process_name", p->cpid, 0, "name", cmd);
		meta_str(c, "process_labels", p->cpid, 0, "labels", "CPU");
	} else if (!p->n_threads) {
		/* Only overheads (Kineto writes them under pid -1). */
		meta_str(c, "process_name", p->cpid, 0, "name", "profiler overhead");
	} else if (p->pid >= 0 && p->pid <= UINT32_MAX && find_dev(c, (uint32_t)p->pid) != NONE) {
		/* Host events under a device's pid and not a process of the
		 * trace: Kineto draws Python stacks there ("GPU N"). */
		snprintf(label, sizeof(label), "GPU %lld", (long long)p->pid);
		meta_str(c, "process_labels", p->cpid, 0, "labels", label);
	}
	meta_i64(c, "process_sort_index", p->cpid, 0, "sort_index", (int64_t)i);
}

static void dev_proc_meta(struct chrome *c, size_t i, const char *dn)
{
	const struct cdev *d = &c->devs[i];
	int64_t base = (int64_t)(c->n_hp + 2 * i);
	char name[320], label[64];

	if (*dn)
		snprintf(name, sizeof(name), "GPU %u: %s", d->id, dn);
	else
		snprintf(name, sizeof(name), "GPU %u", d->id);
	meta_str(c, "process_name", d->pid, 0, "name", name);
	snprintf(label, sizeof(label), "GPU %u", d->id);
	meta_str(c, "process_labels", d->pid, 0, "labels", label);
	meta_i64(c, "process_sort_index", d->pid, 0, "sort_index", base);
	if (c->ideal) {
		snprintf(name, sizeof(name), "GPU %u ideal schedule", d->id);
		meta_str(c, "process_name", d->ideal_pid, 0, "name", name);
		snprintf(label, sizeof(label), "GPU %u ideal", d->id);
		meta_str(c, "process_labels", d->ideal_pid, 0, "labels", label);
		meta_i64(c, "process_sort_index", d->ideal_pid, 0, "sort_index", base + 1);
	}
}

/* The separator of the parts of a rank's process names. */
#define SEP " \xc2\xb7 "

/* "rank 3 · node7" (the host when known). */
static void rank_prefix(const struct chrome *c, char *buf, size_t size)
{
	if (c->rank->host && *c->rank->host)
		snprintf(buf, size, "rank %u" SEP "%s", c->rank->rank, c->rank->host);
	else
		snprintf(buf, size, "rank %u", c->rank->rank);
}

/* process_name of a rank's process, with who it is in args (pid and
 * device -1: unknown or none). */
static void job_name(struct chrome *c, int64_t cpid, const char *name, int64_t pid, int64_t device,
		     const char *cmd)
{
	ev_open(c, "M");
	kv_str(c, "name", "process_name");
	kv_i64(c, "pid", cpid);
	kv_i64(c, "tid", 0);
	arg_str(c, "name", name);
	arg_u64(c, "rank", c->rank->rank);
	if (pid >= 0)
		arg_i64(c, "pid", pid);
	if (c->rank->host && *c->rank->host)
		arg_str(c, "host", c->rank->host);
	if (device >= 0)
		arg_i64(c, "device", device);
	if (cmd && *cmd)
		arg_str(c, "command_line", cmd);
	if (c->rproc && c->rproc->world_size)
		arg_u64(c, "world_size", c->rproc->world_size);
	if (c->rproc && c->rproc->has_backend)
		arg_str(c, "backend", gs_trace_string(c->t, c->rproc->backend));
	if (c->rproc && c->rproc->clock) {
		arg_str(c, "clock", gs_clock_source_name(c->rproc->clock));
		arg_i64(c, "wall_offset_ns", c->rproc->wall_offset_ns);
	}
	if (c->shift)
		arg_i64(c, "time_shift_ns", c->shift);
	if (c->id_offset)
		arg_u64(c, "id_offset", c->id_offset);
	ev_close(c);
}

/* A rank of a job: every process named after its rank, host and pid; the
 * sort index is the pid (ranks in order, GPUs before the host). */
static void job_host_meta(struct chrome *c, size_t i)
{
	const struct hproc *p = &c->hp[i];
	const char *cmd = p->proc != NONE ? gs_trace_string(c->t, c->procs[p->proc].command_line) :
					    NULL;
	char prefix[192], name[320], label[128];

	rank_prefix(c, prefix, sizeof(prefix));
	if (p->proc == NONE && !p->n_threads) {
		snprintf(name, sizeof(name), "%s" SEP "profiler overhead", prefix);
		job_name(c, p->cpid, name, p->pid, -1, NULL);
	} else {
		snprintf(name, sizeof(name), "%s" SEP "pid %lld (host)", prefix, (long long)p->pid);
		job_name(c, p->cpid, name, p->pid, -1, cmd);
		if (p->proc == NONE && p->pid >= 0 && p->pid <= UINT32_MAX &&
		    find_dev(c, (uint32_t)p->pid) != NONE)
			snprintf(label, sizeof(label), "GPU %lld, rank %u", (long long)p->pid,
				 c->rank->rank);
		else
			snprintf(label, sizeof(label), "CPU, rank %u, pid %lld", c->rank->rank,
				 (long long)p->pid);
		meta_str(c, "process_labels", p->cpid, 0, "labels", label);
	}
	meta_i64(c, "process_sort_index", p->cpid, 0, "sort_index", p->cpid);
}

static void job_dev_meta(struct chrome *c, size_t i, const char *dn)
{
	const struct cdev *d = &c->devs[i];
	int64_t pid = c->rank->pid;
	char prefix[192], who[256], name[448], label[128];

	rank_prefix(c, prefix, sizeof(prefix));
	if (pid >= 0)
		snprintf(who, sizeof(who), "%s" SEP "pid %lld", prefix, (long long)pid);
	else
		snprintf(who, sizeof(who), "%s", prefix);
	snprintf(name, sizeof(name), "%s" SEP "GPU %u%s%s", who, d->id, *dn ? " " : "", dn);
	job_name(c, d->pid, name, pid, d->id, NULL);
	if (pid >= 0)
		snprintf(label, sizeof(label), "GPU %u, rank %u, pid %lld", d->id, c->rank->rank,
			 (long long)pid);
	else
		snprintf(label, sizeof(label), "GPU %u, rank %u", d->id, c->rank->rank);
	meta_str(c, "process_labels", d->pid, 0, "labels", label);
	meta_i64(c, "process_sort_index", d->pid, 0, "sort_index", d->pid);
	if (c->ideal) {
		snprintf(name, sizeof(name), "rank %u" SEP "GPU %u ideal", c->rank->rank, d->id);
		job_name(c, d->ideal_pid, name, pid, d->id, NULL);
		snprintf(label, sizeof(label), "GPU %u ideal, rank %u", d->id, c->rank->rank);
		meta_str(c, "process_labels", d->ideal_pid, 0, "labels", label);
		meta_i64(c, "process_sort_index", d->ideal_pid, 0, "sort_index", d->ideal_pid);
	}
}

static void write_metadata(struct chrome *c)
{
	size_t n_dt, i, j;
	const struct gs_device *dt = gs_trace_devices(c->t, &n_dt);
	char name[320], label[256];
	int64_t sort, isort = 0;

	for (i = 0; i < c->n_hp; i++) {
		const struct hproc *p = &c->hp[i];

		if (c->rank)
			job_host_meta(c, i);
		else
			host_proc_meta(c, i);
		sort = 0;
		for (j = p->first_thread; j < p->first_thread + p->n_threads; j++) {
			const struct hthread *th = &c->threads[j];

			snprintf(name, sizeof(name), "thread %lld", (long long)th->tid);
			thread_meta(c, p->cpid, th->tid, name, sort++);
			for (uint32_t k = 0; k < th->lanes; k++) {
				snprintf(name, sizeof(name),
					 "thread %lld: calls and ranges that do not nest (%u)",
					 (long long)th->tid, k + 1);
				thread_meta(c, p->cpid, th->ovf_tid + k, name, sort++);
			}
		}
		for (uint32_t k = 0; k < p->oh_lanes; k++) {
			if (k)
				snprintf(name, sizeof(name), "profiler overhead (%u)", k + 1);
			else
				snprintf(name, sizeof(name), "profiler overhead");
			thread_meta(c, p->cpid, p->oh_tid + k, name, sort++);
		}
	}
	for (i = 0; i < c->n_devs; i++) {
		const struct cdev *d = &c->devs[i];
		const char *dn = d->dt != NONE ? gs_trace_string(c->t, dt[d->dt].name) : "";

		if (c->rank)
			job_dev_meta(c, i, dn);
		else
			dev_proc_meta(c, i, dn);
	}
	/* Streams (in display order) of each device, then its syncs. */
	sort = 0;
	for (i = 0; i < c->n_streams; i++) {
		uint32_t s = c->stream_order[i];
		const struct cstream *x = &c->cs[s];
		const struct cdev *d;

		if (x->dev == NONE)
			continue;
		d = &c->devs[x->dev];
		stream_label(c, s, label, sizeof(label));
		thread_meta(c, d->pid, x->tid, label, sort++);
		for (uint32_t k = 0; k < x->lanes; k++) {
			snprintf(name, sizeof(name), "%s: overlapping ops (%u)", label, k + 1);
			thread_meta(c, d->pid, x->ovf_tid + k, name, sort++);
		}
		if (!c->ideal || !x->has_ideal)
			continue;
		thread_meta(c, d->ideal_pid, x->tid, label, isort++);
		for (uint32_t k = 0; k < x->ideal_lanes; k++) {
			snprintf(name, sizeof(name), "%s: overlapping ops (%u)", label, k + 1);
			thread_meta(c, d->ideal_pid, x->ideal_ovf_tid + k, name, isort++);
		}
	}
	for (i = 0; i < c->n_devs; i++) {
		const struct cdev *d = &c->devs[i];

		for (uint32_t k = 0; k < d->sync_lanes; k++) {
			if (k)
				snprintf(name, sizeof(name), "cuda_sync (%u)", k + 1);
			else
				snprintf(name, sizeof(name), "cuda_sync");
			thread_meta(c, d->pid, d->sync_tid + k, name, sort++);
		}
		for (uint32_t k = 0; k < d->ann_lanes; k++) {
			if (k)
				snprintf(name, sizeof(name), "gpu_user_annotation (%u)", k + 1);
			else
				snprintf(name, sizeof(name), "gpu_user_annotation");
			thread_meta(c, d->pid, d->ann_tid + k, name, sort++);
		}
	}
}

static const char *op_cat(uint8_t kind)
{
	return kind == GS_OP_KERNEL ? "kernel" : kind == GS_OP_MEMCPY ? "gpu_memcpy" : "gpu_memset";
}

static int64_t op_tid(const struct chrome *c, uint32_t o)
{
	const struct cstream *x = &c->cs[c->ops[o].stream];

	return c->op_lane[o] ? x->ovf_tid + c->op_lane[o] - 1 : x->tid;
}

static int64_t op_pid(const struct chrome *c, uint32_t o)
{
	return c->devs[c->cs[c->ops[o].stream].dev].pid;
}

/* Whether an op (a sync) is written: false for those of a device left
 * out (gs_export_options.has_device). */
static bool op_kept(const struct chrome *c, size_t o)
{
	return c->cs[c->ops[o].stream].dev != NONE;
}

static bool sync_kept(const struct chrome *c, size_t i)
{
	return find_dev(c, c->syncs[i].device) != NONE;
}

/* A communication kernel's collective as the PyTorch profiler writes it. */
static void collective_args(struct chrome *c, const struct gs_collective *k)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{"Collective name", offsetof(struct gs_collective, name)},
		{"Process Group Name", offsetof(struct gs_collective, group)},
		{"Process Group Description", offsetof(struct gs_collective, group_desc)},
		{"Process Group Ranks", offsetof(struct gs_collective, group_ranks)},
		{"dtype", offsetof(struct gs_collective, dtype)},
	};

	if (!k)
		return;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		uint32_t id = *(const uint32_t *)(const void *)((const char *)k + strs[i].off);

		if (id != GS_NO_STRING)
			arg_str(c, strs[i].key, gs_trace_string(c->t, id));
	}
	if (k->group_size)
		arg_u64(c, "Group size", k->group_size);
	if (k->has_nelems) {
		arg_u64(c, "In msg nelems", k->in_nelems);
		arg_u64(c, "Out msg nelems", k->out_nelems);
	}
	if (k->has_seq)
		arg_u64(c, "Seq", k->seq);
}

/* The model fields of an op as Kineto args (and a few of our own). */
static void op_args(struct chrome *c, const struct gs_op *op)
{
	const struct gs_stream *st = &c->streams[op->stream];

	arg_u64(c, "device", st->device);
	arg_u64(c, "context", st->context);
	arg_u64(c, "stream", st->stream_id);
	arg_u64(c, "correlation", xid(c, op->correlation));
	switch (op->kind) {
	case GS_OP_KERNEL: {
		static const struct gs_launch_cfg none;
		const struct gs_launch_cfg *lc = gs_trace_op_launch_cfg(c->t, op);

		if (!lc)
			lc = &none;
		arg_u64(c, "registers per thread", lc->registers);
		arg_u64(c, "shared memory", lc->shared_mem);
		arg_dim3(c, "grid", lc->grid);
		arg_dim3(c, "block", lc->block);
		if (op->graph_id)
			arg_u64(c, "graph id", op->graph_id);
		if (op->graph_node)
			arg_u64(c, "graph node id", op->graph_node);
		break;
	}
	case GS_OP_MEMCPY:
		arg_u64(c, "bytes", op->bytes);
		arg_str(c, "copy kind",
			gs_copy_kind_name(op->copy_kind < GS_COPY_KIND_COUNT ? op->copy_kind : 0));
		arg_str(c, "src memory", gs_mem_kind_name(op->src_mem));
		arg_str(c, "dst memory", gs_mem_kind_name(op->dst_mem));
		break;
	default:
		arg_u64(c, "bytes", op->bytes);
		arg_str(c, "memory", gs_mem_kind_name(op->dst_mem));
		break;
	}
	if (op->flags & GS_OPF_ASYNC)
		arg_i64(c, "async", 1);
	if (op->flags & GS_OPF_DEVICE_LAUNCHED)
		arg_i64(c, "device launched", 1);
	collective_args(c, gs_trace_op_collective(c->t, op));
}

static void write_op(struct chrome *c, uint32_t o)
{
	const struct gs_op *op = &c->ops[o];
	char buf[128];

	x_event(c, op_cat(op->kind), op_name(c, op, buf, sizeof(buf)), op_pid(c, o), op_tid(c, o),
		op->start_ns, op->end_ns);
	op_args(c, op);
	ev_close(c);
}

static const char *sync_kind_text(uint8_t kind)
{
	static const char *const names[GS_SYNC_KIND_COUNT] = {
		"Unknown", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};

	return kind < GS_SYNC_KIND_COUNT ? names[kind] : "Unknown";
}

static void write_sync(struct chrome *c, uint32_t i)
{
	const struct gs_sync *y = &c->syncs[i];
	const struct cdev *d = &c->devs[find_dev(c, y->device)];
	const char *kind = sync_kind_text(y->kind);
	uint32_t ctx_stream = y->stream < c->n_streams         ? y->stream :
			      y->wait_on_stream < c->n_streams ? y->wait_on_stream :
								 NONE;

	x_event(c, "cuda_sync", kind, d->pid, d->sync_tid + c->sync_lane[i], y->start_ns,
		y->end_ns);
	arg_str(c, "cuda_sync_kind", kind);
	arg_u64(c, "device", y->device);
	if (ctx_stream != NONE)
		arg_u64(c, "context", c->streams[ctx_stream].context);
	if (y->stream < c->n_streams)
		arg_u64(c, "stream", c->streams[y->stream].stream_id);
	arg_u64(c, "correlation", xid(c, y->correlation));
	if (y->wait_on_stream < c->n_streams)
		arg_u64(c, "wait_on_stream", c->streams[y->wait_on_stream].stream_id);
	if (y->event_correlation)
		arg_u64(c, "wait_on_cuda_event_record_corr_id", xid(c, y->event_correlation));
	if (y->event_id)
		arg_u64(c, "wait_on_cuda_event_id", xid(c, y->event_id));
	if (y->sync_id != GS_NO_SYNC_ID)
		arg_u64(c, "event sync id", xid(c, y->sync_id));
	ev_close(c);
}

static int64_t api_tid(const struct chrome *c, uint32_t a)
{
	const struct hthread *th = &c->threads[c->api_thread[a]];

	return c->api_lane[a] ? th->ovf_tid + c->api_lane[a] - 1 : th->tid;
}

/* The pid of a call's track in the export. */
static int64_t api_pid(const struct chrome *c, uint32_t a)
{
	return c->hp[c->threads[c->api_thread[a]].hp].cpid;
}

static void write_api(struct chrome *c, uint32_t a)
{
	const struct gs_api_call *k = &c->api[a];

	x_event(c, k->kind == GS_API_DRIVER ? "cuda_driver" : "cuda_runtime",
		gs_trace_string(c->t, k->name), api_pid(c, a), api_tid(c, a), k->start_ns,
		k->end_ns);
	arg_u64(c, "correlation", xid(c, k->correlation));
	if (k->cbid)
		arg_u64(c, "cbid", k->cbid);
	if (k->return_value)
		arg_i64(c, "return value", k->return_value);
	ev_close(c);
}

static void write_range(struct chrome *c, uint32_t i)
{
	static const char *const cats[GS_RANGE_KIND_COUNT] = {"user_annotation", "cpu_op",
							      "user_annotation", "python_function",
							      "user_annotation"};
	const struct gs_range *r = &c->ranges[i];
	const struct hthread *th = &c->threads[c->range_thread[i]];
	int64_t tid = c->range_lane[i] ? th->ovf_tid + c->range_lane[i] - 1 : th->tid;

	x_event(c, cats[r->kind < GS_RANGE_KIND_COUNT ? r->kind : GS_RANGE_OTHER],
		gs_trace_string(c->t, r->name), c->hp[th->hp].cpid, tid, r->start_ns, r->end_ns);
	if (r->external_id)
		arg_u64(c, "External id", xid(c, r->external_id));
	if (r->kind == GS_RANGE_NVTX) {
		arg_str(c, "nvtx", "range");
		if (r->domain != GS_NO_STRING)
			arg_str(c, "domain", gs_trace_string(c->t, r->domain));
	}
	ev_close(c);
}

/* A GPU annotation written: on a stream of a device kept. */
static bool annotation_kept(const struct chrome *c, size_t i)
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
static gs_status plan_gpu_annotations(struct chrome *c)
{
	uint32_t *idx, *up, *top = NULL;
	size_t n = 0, cap = 0, *at;

	for (size_t i = 0; i < c->n_ranges; i++)
		n += annotation_kept(c, i);
	if (!n)
		return GS_OK;
	c->ann_tid = alloc_n(c->n_ranges, sizeof(*c->ann_tid));
	idx = alloc_n(n, sizeof(*idx));
	up = alloc_n(c->n_ranges, sizeof(*up));
	at = alloc_n(c->n_devs + 1, sizeof(*at));
	if (!c->ann_tid || !idx || !up || !at) {
		free(idx);
		free(up);
		free(at);
		return gs_nomem();
	}
	/* By device, in range order (by start) within each. */
	for (size_t i = 0; i < c->n_ranges; i++)
		if (annotation_kept(c, i))
			at[c->cs[c->ranges[i].stream].dev + 1]++;
	for (size_t d = 0; d < c->n_devs; d++)
		at[d + 1] += at[d];
	for (size_t i = 0; i < c->n_ranges; i++)
		if (annotation_kept(c, i))
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
static void write_gpu_annotations(struct chrome *c)
{
	for (size_t i = 0; i < c->n_ranges; i++) {
		const struct gs_range *r = &c->ranges[i];
		const struct cstream *x;

		if (!annotation_kept(c, i))
			continue;
		x = &c->cs[r->stream];
		x_event(c, "gpu_user_annotation", gs_trace_string(c->t, r->name),
			c->devs[x->dev].pid, c->ann_tid[i], r->start_ns, r->end_ns);
		if (r->external_id)
			arg_u64(c, "External id", xid(c, r->external_id));
		arg_u64(c, "device", gs_trace_stream_device(c->t, r->stream));
		arg_u64(c, "context", c->streams[r->stream].context);
		arg_u64(c, "stream", c->streams[r->stream].stream_id);
		ev_close(c);
	}
}

static void write_overheads(struct chrome *c)
{
	for (size_t i = 0; i < c->n_oh; i++) {
		const struct gs_overhead *o = &c->oh[i];
		const struct hproc *p = &c->hp[find_hproc(c, o->pid)];

		x_event(c, "overhead", gs_trace_string(c->t, o->kind), p->cpid,
			p->oh_tid + c->oh_lane[i], o->start_ns, o->end_ns);
		ev_close(c);
	}
}

/* Host events thread by thread; each call followed by its ops and syncs.
 * Then the ops and syncs that have no call. */
static void write_host_and_ops(struct chrome *c)
{
	size_t i, j;

	for (i = 0; i < c->n_hr; i++) {
		const struct href *r = &c->hr[i];

		if (r->type == HR_RANGE) {
			write_range(c, r->idx);
			continue;
		}
		write_api(c, r->idx);
		for (j = c->call_ops_first[r->idx]; j < c->call_ops_first[r->idx + 1]; j++)
			if (op_kept(c, c->call_ops[j]))
				write_op(c, c->call_ops[j]);
		for (j = c->call_syncs_first[r->idx]; j < c->call_syncs_first[r->idx + 1]; j++)
			if (sync_kept(c, c->call_syncs[j]))
				write_sync(c, c->call_syncs[j]);
	}
	for (i = 0; i < c->n_ops; i++)
		if (c->launch[i] == NONE && op_kept(c, i))
			write_op(c, (uint32_t)i);
	for (i = 0; i < c->n_syncs; i++)
		if (c->sync_call[i] == NONE && sync_kept(c, i))
			write_sync(c, (uint32_t)i);
}

static void write_counters(struct chrome *c)
{
	const struct gs_export_extras *x = c->x;

	for (size_t i = 0; x && i < c->n_devs; i++) {
		const struct gs_export_breakdown *bd = c->devs[i].bd;

		if (!bd || !bd->n_segments)
			continue;
		for (size_t s = 0; s <= bd->n_segments; s++) {
			bool last = s == bd->n_segments;
			const struct gs_export_segment *g = &bd->segments[last ? s - 1 : s];

			ev_open(c, "C");
			kv_str(c, "name", "breakdown");
			kv_i64(c, "pid", c->devs[i].pid);
			kv_i64(c, "tid", 0);
			kv_ts(c, last ? g->end_ns : g->start_ns);
			for (size_t k = 0; k < x->n_categories; k++)
				arg_i64(c, x->category_names[k] ? x->category_names[k] : "?",
					!last && g->category == k);
			ev_close(c);
		}
	}
}

static void write_ideal(struct chrome *c)
{
	const struct gs_export_extras *x = c->x;
	char buf[128];

	for (size_t o = 0; o < c->n_ops; o++) {
		const struct gs_op *op = &c->ops[o];
		const struct cstream *s = &c->cs[op->stream];
		const struct cdev *d;
		int64_t st = x->ideal_start[o];

		if (!x->ideal_in[o] || !op_kept(c, o))
			continue;
		d = &c->devs[s->dev];
		x_event(c, "ideal", op_name(c, op, buf, sizeof(buf)), d->ideal_pid,
			c->ideal_lane[o] ? s->ideal_ovf_tid + c->ideal_lane[o] - 1 : s->tid, st,
			st + (op->end_ns - op->start_ns));
		arg_u64(c, "device", gs_trace_stream_device(c->t, op->stream));
		arg_u64(c, "stream", c->streams[op->stream].stream_id);
		arg_u64(c, "correlation", xid(c, op->correlation));
		arg_i64(c, "delay_ns", op->start_ns - st);
		if (x->ideal_bound && x->bound_names && x->ideal_bound[o] < x->n_bound_names &&
		    x->bound_names[x->ideal_bound[o]])
			arg_str(c, "bound by", x->bound_names[x->ideal_bound[o]]);
		ev_close(c);
	}
}

/* A point inside [s, e) near its start / its end (slices that touch
 * another slice still bind their own flow). */
static int64_t bind_in(int64_t s, int64_t e)
{
	return e - s >= 2 ? s + 1 : s;
}

static int64_t bind_out(int64_t s, int64_t e)
{
	return e - s >= 2 ? e - 1 : s;
}

static void flow_event(struct chrome *c, const char *ph, uint64_t id, const char *cat,
		       const char *name, int64_t pid, int64_t tid, int64_t ts)
{
	ev_open(c, ph);
	key(c, "id");
	gs_wbuf_u64(&c->out->w, id);
	kv_i64(c, "pid", pid);
	kv_i64(c, "tid", tid);
	kv_ts(c, ts);
	kv_str(c, "cat", cat);
	kv_str(c, "name", name);
	if (ph[0] == 'f')
		kv_str(c, "bp", "e");
	ev_close(c);
}

/* Dependency flows of a rank: those whose two ops are written. */
static uint64_t count_flows(const struct chrome *c)
{
	const struct gs_export_extras *x = c->x;
	uint64_t n = 0;

	for (size_t i = 0; x && i < x->n_edges; i++) {
		const struct gs_export_edge *e = &x->edges[i];

		n += e->from < c->n_ops && e->to < c->n_ops && op_kept(c, e->from) &&
		     op_kept(c, e->to);
	}
	return n;
}

/* The flows of every rank against max_flows (the first in rank order,
 * then edge order, are written); the count left out for the header. */
static void plan_flows(struct chrome *cs, size_t n, struct chrome_out *out,
		       const struct gs_export_options *o)
{
	out->max_flows = o && o->has_max_flows ? o->max_flows : GS_EXPORT_MAX_FLOWS_DEFAULT;
	out->flows_total = 0;
	for (size_t r = 0; r < n; r++)
		out->flows_total += count_flows(&cs[r]);
	out->flow_budget = out->flows_total < out->max_flows ? out->flows_total : out->max_flows;
	out->flows_left = out->flows_total - out->flow_budget;
	if (o && o->stats) {
		o->stats->dependency_flows = out->flows_total;
		o->stats->flows_left_out = out->flows_left;
	}
}

static void write_flows(struct chrome *c)
{
	const struct gs_export_extras *x = c->x;
	size_t i;

	for (i = 0; i < c->n_ops; i++) {
		const struct gs_op *op = &c->ops[i];
		const struct gs_api_call *a;
		uint64_t id;

		if (c->launch[i] == NONE || !op_kept(c, i))
			continue;
		a = &c->api[c->launch[i]];
		id = ++c->out->next_flow;
		flow_event(c, "s", id, "ac2g", "ac2g", api_pid(c, c->launch[i]),
			   api_tid(c, c->launch[i]), bind_in(a->start_ns, a->end_ns));
		flow_event(c, "f", id, "ac2g", "ac2g", op_pid(c, (uint32_t)i),
			   op_tid(c, (uint32_t)i), bind_in(op->start_ns, op->end_ns));
	}
	for (i = 0; x && i < x->n_edges; i++) {
		const struct gs_export_edge *e = &x->edges[i];
		const struct gs_op *from, *to;
		const char *name = "dependency";
		uint64_t id;

		if (e->from >= c->n_ops || e->to >= c->n_ops || !op_kept(c, e->from) ||
		    !op_kept(c, e->to))
			continue;
		from = &c->ops[e->from];
		to = &c->ops[e->to];
		if (x->edge_kind_names && e->kind < x->n_edge_kinds && x->edge_kind_names[e->kind])
			name = x->edge_kind_names[e->kind];
		if (!c->out->flow_budget)
			break;
		c->out->flow_budget--;
		id = ++c->out->next_flow;
		flow_event(c, "s", id, "dependency", name, op_pid(c, e->from), op_tid(c, e->from),
			   bind_out(from->start_ns, from->end_ns));
		flow_event(c, "f", id, "dependency", name, op_pid(c, e->to), op_tid(c, e->to),
			   bind_in(to->start_ns, to->end_ns));
	}
}

/* A version string as Kineto writes it: a number when it is one. */
static void version_value(struct chrome *c, const char *v)
{
	size_t n = strlen(v);
	bool digits = n > 0 && n < 19 && (v[0] != '0' || n == 1);

	for (size_t i = 0; digits && i < n; i++)
		digits = v[i] >= '0' && v[i] <= '9';
	if (digits)
		gs_wbuf_puts(&c->out->w, v);
	else
		gs_wbuf_json_str(&c->out->w, v);
}

/* A device of the header: deviceProperties entry `idx` of rank `rank`. */
struct dev_ref {
	uint32_t id;
	uint32_t rank; /* index into the ranks written */
	uint32_t idx;
};

static int cmp_dev_ref(const void *pa, const void *pb)
{
	const struct dev_ref *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int cmp_dev_ref_order(const void *pa, const void *pb)
{
	const struct dev_ref *a = pa, *b = pb;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * The devices of the header of `n` ranks, in rank and table order: with
 * one, its whole table; with more, each id once, as the first rank that
 * has it describes it. Caller frees *out.
 */
static gs_status header_devices(const struct chrome *cs, size_t n, struct dev_ref **out,
				size_t *n_out)
{
	size_t total = 0, k = 0, m = 0, r, i;
	struct dev_ref *d;

	for (r = 0; r < n; r++) {
		size_t n_dt;

		gs_trace_devices(cs[r].t, &n_dt);
		total += n_dt;
	}
	d = alloc_n(total, sizeof(*d));
	if (!d)
		return gs_nomem();
	for (r = 0; r < n; r++) {
		size_t n_dt;
		const struct gs_device *dt = gs_trace_devices(cs[r].t, &n_dt);

		for (i = 0; i < n_dt; i++)
			if (!cs[r].one_device || dt[i].id == cs[r].device)
				d[k++] = (struct dev_ref){dt[i].id, (uint32_t)r, (uint32_t)i};
	}
	if (n > 1) {
		qsort(d, k, sizeof(*d), cmp_dev_ref);
		for (i = 0; i < k; i++)
			if (!m || d[m - 1].id != d[i].id)
				d[m++] = d[i];
		k = m;
		qsort(d, k, sizeof(*d), cmp_dev_ref_order);
	}
	*out = d;
	*n_out = k;
	return GS_OK;
}

static void write_device(struct chrome *c, const struct gs_device *d, bool first)
{
	struct gs_wbuf *w = &c->out->w;

	gs_wbuf_puts(w, first ? "\n{\"id\":" : ",\n{\"id\":");
	gs_wbuf_u64(w, d->id);
	if (d->name != GS_NO_STRING) {
		gs_wbuf_puts(w, ",\"name\":");
		gs_wbuf_json_str(w, gs_trace_string(c->t, d->name));
	}
	if (d->uuid != GS_NO_STRING) {
		gs_wbuf_puts(w, ",\"uuid\":");
		gs_wbuf_json_str(w, gs_trace_string(c->t, d->uuid));
	}
	gs_wbuf_puts(w, ",\"totalGlobalMem\":");
	gs_wbuf_u64(w, d->memory_bytes);
	gs_wbuf_puts(w, ",\"computeMajor\":");
	gs_wbuf_u64(w, d->cc_major);
	gs_wbuf_puts(w, ",\"computeMinor\":");
	gs_wbuf_u64(w, d->cc_minor);
	gs_wbuf_puts(w, ",\"numSms\":");
	gs_wbuf_u64(w, d->sm_count);
	gs_wbuf_puts(w, ",\"numMemcpyEngines\":");
	gs_wbuf_u64(w, d->copy_engines);
	gs_wbuf_putc(w, '}');
}

/* A trace's host name and CUDA versions: those of its first process that
 * has each. */
static void trace_versions(const struct chrome *c, const char **host, const char *ver[3])
{
	uint32_t h = GS_NO_STRING, v[3] = {GS_NO_STRING, GS_NO_STRING, GS_NO_STRING};

	for (size_t i = 0; i < c->n_procs; i++) {
		const struct gs_process *p = &c->procs[i];

		if (h == GS_NO_STRING)
			h = p->host_name;
		if (v[0] == GS_NO_STRING)
			v[0] = p->driver_version;
		if (v[1] == GS_NO_STRING)
			v[1] = p->runtime_version;
		if (v[2] == GS_NO_STRING)
			v[2] = p->cupti_version;
	}
	*host = h != GS_NO_STRING ? gs_trace_string(c->t, h) : NULL;
	for (int i = 0; i < 3; i++)
		ver[i] = v[i] != GS_NO_STRING ? gs_trace_string(c->t, v[i]) : NULL;
}

/* Kineto's distributedInfo of a process (NULL: only the rank), as PyTorch
 * writes it: readers match "rank": 0 with its space. */
static void write_distributed(struct chrome *c, const struct gs_process *p, uint32_t rank)
{
	struct gs_wbuf *w = &c->out->w;

	gs_wbuf_puts(w, ",\n\"distributedInfo\": {");
	if (p && p->has_backend) {
		gs_wbuf_puts(w, "\"backend\": ");
		gs_wbuf_json_str(w, gs_trace_string(c->t, p->backend));
		gs_wbuf_puts(w, ", ");
	}
	gs_wbuf_puts(w, "\"rank\": ");
	gs_wbuf_u64(w, rank);
	if (p && p->world_size) {
		gs_wbuf_puts(w, ", \"world_size\": ");
		gs_wbuf_u64(w, p->world_size);
	}
	gs_wbuf_putc(w, '}');
}

/* The wall clock of a process (known): Kineto's baseTimeNanoseconds (ts
 * plus it is Unix-epoch ns) and, for gpuscope, where it came from. */
static void write_clock(struct chrome *c, const struct gs_process *p)
{
	struct gs_wbuf *w = &c->out->w;

	if (p->wall_offset_ns) {
		gs_wbuf_puts(w, ",\n\"baseTimeNanoseconds\":");
		gs_wbuf_i64(w, p->wall_offset_ns);
	}
	gs_wbuf_puts(w, ",\n\"gpuscope_clock\":");
	gs_wbuf_json_str(w, gs_clock_source_name(p->clock));
}

/* ,"key": */
static void put_key(struct gs_wbuf *w, const char *k)
{
	gs_wbuf_puts(w, ",\"");
	gs_wbuf_puts(w, k);
	gs_wbuf_puts(w, "\":");
}

/* A string of the rank's trace under `key`, when it has one. */
static void put_str_id(const struct chrome *c, struct gs_wbuf *w, const char *k, uint32_t id)
{
	if (id == GS_NO_STRING)
		return;
	put_key(w, k);
	gs_wbuf_json_str(w, gs_trace_string(c->t, id));
}

/* An int64 as decimal text in a string: exact for readers that hold JSON
 * numbers as doubles (wall clocks are about 1.7e18 ns, past 2^53). */
static void put_i64_text(struct gs_wbuf *w, const char *k, int64_t v)
{
	put_key(w, k);
	gs_wbuf_putc(w, '"');
	gs_wbuf_i64(w, v);
	gs_wbuf_putc(w, '"');
}

/*
 * gpuscope_job: who each rank of a job export is, for gpuscope's importer
 * to read the file back as the same ranks (kineto.c): its number, its pids
 * (pid_base .. pid_base + pid_stride - 1), its process (pid, host, command
 * line, versions, world size, backend, start, records dropped), its clock
 * (source and offset to UTC) and what the export did to its times and ids
 * (time_shift_ns added to every ts, id_offset to every id but 0). Written before traceEvents, so
 * a streaming reader knows it before the first event.
 */
static void write_job_marker(struct chrome *cs, size_t n, int64_t stride)
{
	struct gs_wbuf *w = &cs[0].out->w;

	gs_wbuf_puts(w, ",\n\"gpuscope_job\":{\"version\":1,\"pid_stride\":");
	gs_wbuf_i64(w, stride);
	gs_wbuf_puts(w, ",\"ranks\":[");
	for (size_t r = 0; r < n; r++) {
		const struct chrome *c = &cs[r];
		const struct gs_process *p = c->rproc;

		gs_wbuf_puts(w, r ? ",\n{\"rank\":" : "\n{\"rank\":");
		gs_wbuf_u64(w, c->rank->rank);
		put_key(w, "pid_base");
		gs_wbuf_i64(w, c->pid_base);
		put_key(w, "pid");
		gs_wbuf_i64(w, c->rank->pid >= 0 ? c->rank->pid : -1);
		if (c->rank->host && *c->rank->host) {
			put_key(w, "host");
			gs_wbuf_json_str(w, c->rank->host);
		}
		if (c->rank->capture) {
			put_key(w, "capture");
			gs_wbuf_u64(w, c->rank->capture);
		}
		if (p) {
			put_str_id(c, w, "command_line", p->command_line);
			put_str_id(c, w, "cuda_driver_version", p->driver_version);
			put_str_id(c, w, "cuda_runtime_version", p->runtime_version);
			put_str_id(c, w, "cupti_version", p->cupti_version);
			if (p->world_size) {
				put_key(w, "world_size");
				gs_wbuf_u64(w, p->world_size);
			}
			if (p->has_backend)
				put_str_id(c, w, "backend", p->backend);
			if (p->clock) {
				put_key(w, "clock");
				gs_wbuf_json_str(w, gs_clock_source_name(p->clock));
				put_i64_text(w, "wall_offset_ns", p->wall_offset_ns);
			}
			if (p->start_ns)
				put_i64_text(w, "start_ns", p->start_ns);
			if (p->dropped_records) {
				put_key(w, "dropped_records");
				gs_wbuf_u64(w, p->dropped_records);
			}
		}
		if (c->shift)
			put_i64_text(w, "time_shift_ns", c->shift);
		if (c->id_offset) {
			put_key(w, "id_offset");
			gs_wbuf_u64(w, c->id_offset);
		}
		gs_wbuf_putc(w, '}');
	}
	gs_wbuf_puts(w, "]}");
}

/*
 * The top level before the events, of `n` ranks (one: a trace on its
 * own): deviceProperties (header_devices), distributedInfo and the clock,
 * host_name (when every rank names the same host), the versions of the
 * first rank that has each and, for a job, gpuscope_job (pids from
 * `stride`).
 */
static void write_header(struct chrome *cs, size_t n, const struct dev_ref *devs, size_t n_devs,
			 int64_t stride)
{
	struct gs_wbuf *w = &cs[0].out->w;
	const char *host = NULL, *ver[3] = {NULL, NULL, NULL};
	static const char *const ver_keys[3] = {"cuda_driver_version", "cuda_runtime_version",
						"cupti_version"};
	bool one_host = true;
	size_t r, i;

	gs_wbuf_puts(w, "{\"schemaVersion\":1,\"displayTimeUnit\":\"ns\",\"deviceProperties\":[");
	for (i = 0; i < n_devs; i++) {
		size_t n_dt;
		const struct gs_device *dt = gs_trace_devices(cs[devs[i].rank].t, &n_dt);

		write_device(&cs[devs[i].rank], &dt[devs[i].idx], i == 0);
	}
	gs_wbuf_puts(w, "]");
	for (r = 0; r < n; r++) {
		const char *h, *v[3];

		trace_versions(&cs[r], &h, v);
		if (!r)
			host = h;
		else if (!host || !h || strcmp(host, h) != 0)
			one_host = false;
		for (i = 0; i < 3; i++)
			if (!ver[i])
				ver[i] = v[i];
	}
	if (n == 1) {
		/* Kineto gives one rank a file: its first process's that has
		 * one (and its clock). */
		for (i = 0; i < cs[0].n_procs; i++) {
			if (cs[0].procs[i].has_rank) {
				write_distributed(&cs[0], &cs[0].procs[i], cs[0].procs[i].rank);
				break;
			}
		}
		for (i = 0; i < cs[0].n_procs; i++) {
			if (cs[0].procs[i].clock) {
				write_clock(&cs[0], &cs[0].procs[i]);
				break;
			}
		}
	} else {
		/* A job: the first rank's, as tools that read one rank a file
		 * expect; the clock the ranks' times are written on (the
		 * reference's, job_clocks); every rank in gpuscope_job. */
		write_distributed(&cs[0], cs[0].rproc, cs[0].rank->rank);
		for (r = 0; r < n; r++) {
			if (cs[r].rproc && cs[r].rproc->clock) {
				write_clock(&cs[r], cs[r].rproc);
				break;
			}
		}
		write_job_marker(cs, n, stride);
	}
	if (host && one_host) {
		gs_wbuf_puts(w, ",\n\"host_name\":");
		gs_wbuf_json_str(w, host);
	}
	for (i = 0; i < 3; i++) {
		if (!ver[i])
			continue;
		gs_wbuf_puts(w, ",\n\"");
		gs_wbuf_puts(w, ver_keys[i]);
		gs_wbuf_puts(w, "\":");
		version_value(&cs[0], ver[i]);
	}
	if (cs[0].out->flows_left) {
		gs_wbuf_puts(w, ",\n\"gpuscope_flows\":{\"dependency\":");
		gs_wbuf_u64(w, cs[0].out->flows_total);
		gs_wbuf_puts(w, ",\"written\":");
		gs_wbuf_u64(w, cs[0].out->flows_total - cs[0].out->flows_left);
		gs_wbuf_puts(w, ",\"left_out\":");
		gs_wbuf_u64(w, cs[0].out->flows_left);
		gs_wbuf_puts(w, ",\"max_flows\":");
		gs_wbuf_u64(w, cs[0].out->max_flows);
		gs_wbuf_puts(w, "}");
	}
	gs_wbuf_puts(w, ",\n\"traceEvents\":[");
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                              */
/* ------------------------------------------------------------------------ */

static void chrome_free(struct chrome *c)
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

static gs_status chrome_check(const struct chrome *c)
{
	size_t i;

	for (i = 0; i < c->n_ops; i++) {
		if (c->ops[i].stream >= c->n_streams) {
			gs_error_append("chrome export: op %zu names stream %u of %zu", i,
					c->ops[i].stream, c->n_streams);
			return GS_ERR_INVALID;
		}
	}
	if (c->ideal && (!c->x || !c->x->ideal_in || !c->x->ideal_start)) {
		gs_error_append("chrome export: the ideal schedule was asked for but not given");
		return GS_ERR_INVALID;
	}
	if (c->n_ops >= NONE || c->n_api >= NONE || c->n_syncs >= NONE || c->n_ranges >= NONE) {
		gs_error_append("chrome export: more than 2^32 - 1 records of one kind");
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

/* Everything but the pids of a job's ranks (job_pids). */
static gs_status chrome_plan(struct chrome *c, struct chrome_out *out, const struct gs_trace *t,
			     const struct gs_export_extras *x, const struct gs_export_options *o)
{
	gs_status rc;

	c->out = out;
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

	rc = chrome_check(c);
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

/* The events of one trace (or rank), after the header. */
static void chrome_write(struct chrome *c)
{
	write_metadata(c);
	write_host_and_ops(c);
	write_gpu_annotations(c);
	write_overheads(c);
	write_counters(c);
	if (c->ideal)
		write_ideal(c);
	write_flows(c);
}

gs_status gs_export_chrome(FILE *out, const struct gs_trace *t, const struct gs_export_extras *x,
			   const struct gs_export_options *o)
{
	struct chrome_out w = {.first_event = true};
	struct chrome c = {0};
	struct dev_ref *devs = NULL;
	size_t n_devs = 0;
	gs_status rc;

	if (!out || !t) {
		gs_error_append("gs_export_chrome: no %s", out ? "trace" : "output");
		return GS_ERR_INVALID;
	}
	rc = chrome_plan(&c, &w, t, x, o);
	if (!rc)
		plan_flows(&c, 1, &w, o);
	if (!rc)
		rc = header_devices(&c, 1, &devs, &n_devs);
	if (!rc)
		rc = gs_wbuf_init(&w.w, out, o && o->gzip, o ? o->compression_level : 0);
	if (rc) {
		free(devs);
		chrome_free(&c);
		return rc;
	}
	write_header(&c, 1, devs, n_devs, 0);
	chrome_write(&c);
	gs_wbuf_puts(&w.w, "\n]}\n");
	rc = gs_wbuf_finish(&w.w);
	free(devs);
	chrome_free(&c);
	return rc;
}

/* Processes a rank needs: each device (and its ideal schedule), each host
 * process. */
static uint64_t job_lanes(const struct chrome *c)
{
	return (uint64_t)c->n_devs * (c->ideal ? 2 : 1) + c->n_hp;
}

/* pid = key * stride + lane: lanes 0.. the devices by id, each followed by
 * its ideal schedule, then the host processes by recorded pid. */
static void job_pids(struct chrome *c, int64_t base)
{
	int64_t lane = 0;
	size_t i;

	for (i = 0; i < c->n_devs; i++) {
		c->devs[i].pid = base + lane++;
		if (c->ideal)
			c->devs[i].ideal_pid = base + lane++;
	}
	for (i = 0; i < c->n_hp; i++)
		c->hp[i].cpid = base + lane++;
}

/* The process record of a rank: its pid's, else its first (NULL: none). */
static const struct gs_process *rank_process(const struct chrome *c)
{
	for (size_t i = 0; i < c->n_procs; i++)
		if (c->procs[i].pid == c->rank->pid)
			return &c->procs[i];
	return c->n_procs ? &c->procs[0] : NULL;
}

/* The largest id a rank writes (correlation, event, sync, external). */
static uint64_t rank_max_id(const struct chrome *c)
{
	uint64_t m = 0;
	size_t i;

#define GS_MAX_ID(v)                                                                               \
	do {                                                                                       \
		if ((v) > m)                                                                       \
			m = (v);                                                                   \
	} while (0)
	for (i = 0; i < c->n_ops; i++)
		GS_MAX_ID(c->ops[i].correlation);
	for (i = 0; i < c->n_api; i++)
		GS_MAX_ID(c->api[i].correlation);
	for (i = 0; i < c->n_syncs; i++) {
		GS_MAX_ID(c->syncs[i].correlation);
		GS_MAX_ID(c->syncs[i].event_correlation);
		GS_MAX_ID(c->syncs[i].event_id);
		GS_MAX_ID(c->syncs[i].sync_id);
	}
	for (i = 0; i < c->n_ranges; i++)
		GS_MAX_ID(c->ranges[i].external_id);
#undef GS_MAX_ID
	return m;
}

/* Ids a reader that holds JSON numbers as doubles still gets exactly. */
#define ID_LIMIT (1ULL << 53)

/*
 * Each rank's ids in a range of its own, so that no correlation, event,
 * sync or external id of one rank is another's (the Kineto format joins a
 * launch to its op by correlation id across the whole file): id + key * K,
 * K the power of ten (at least 1000) above every rank's largest id, key
 * the rank number, or its position in rank order when rank numbers would
 * pass 2^53; 0 stays 0. Order within a rank is kept. Ids that cannot stay
 * below 2^53 so are refused (GS_ERR_LIMIT).
 */
static gs_status job_ids(struct chrome *cs, size_t n)
{
	uint64_t most = 0, k = 1000, top = cs[n - 1].rank->rank;
	bool by_position;

	for (size_t r = 0; r < n; r++) {
		uint64_t m = rank_max_id(&cs[r]);

		if (m > most)
			most = m;
	}
	while (k <= most && k <= ID_LIMIT / 10)
		k *= 10;
	by_position = most >= ID_LIMIT || top > (ID_LIMIT - 1 - most) / k;
	if (k <= most || (by_position && (uint64_t)(n - 1) > (ID_LIMIT - 1 - most) / k)) {
		gs_error_append("chrome export: the ids of %zu ranks (up to %llu) cannot be kept "
				"apart below 2^53",
				n, (unsigned long long)most);
		return GS_ERR_LIMIT;
	}
	for (size_t r = 0; r < n; r++)
		cs[r].id_offset = (by_position ? (uint64_t)r : cs[r].rank->rank) * k;
	return GS_OK;
}

/* The earliest and latest time a rank writes (false: none). */
static bool rank_time_span(const struct chrome *c, int64_t *lo, int64_t *hi)
{
	bool any = false;
	size_t i;

#define GS_SPAN(a, b)                                                                              \
	do {                                                                                       \
		if (!any || (a) < *lo)                                                             \
			*lo = (a);                                                                 \
		if (!any || (b) > *hi)                                                             \
			*hi = (b);                                                                 \
		any = true;                                                                        \
	} while (0)
	for (i = 0; i < c->n_ops; i++) {
		GS_SPAN(c->ops[i].start_ns, c->ops[i].end_ns);
		if (c->ideal && c->x->ideal_in[i])
			GS_SPAN(c->x->ideal_start[i],
				c->x->ideal_start[i] + (c->ops[i].end_ns - c->ops[i].start_ns));
	}
	for (i = 0; i < c->n_api; i++)
		GS_SPAN(c->api[i].start_ns, c->api[i].end_ns);
	for (i = 0; i < c->n_syncs; i++)
		GS_SPAN(c->syncs[i].start_ns, c->syncs[i].end_ns);
	for (i = 0; i < c->n_ranges; i++)
		GS_SPAN(c->ranges[i].start_ns, c->ranges[i].end_ns);
	for (i = 0; i < c->n_oh; i++)
		GS_SPAN(c->oh[i].start_ns, c->oh[i].end_ns);
	for (i = 0; c->x && i < c->x->n_breakdowns; i++) {
		const struct gs_export_breakdown *b = &c->x->breakdowns[i];

		if (b->n_segments)
			GS_SPAN(b->segments[0].start_ns, b->segments[b->n_segments - 1].end_ns);
	}
#undef GS_SPAN
	return any;
}

/*
 * One time axis where the wall clocks say the ranks ran together: the
 * reference is the first rank (in rank order) whose clock is known; every
 * other rank with a known clock is written shifted onto it, by the
 * difference of their offsets to UTC (t + own offset = t' + reference's
 * offset). Ranks whose clock is not known, and any whose shifted times
 * would leave the model's range (+-2^62 ns), keep their times. The shift
 * is in the rank's process args and in gpuscope_job, and the importer
 * takes it off again.
 */
static void job_clocks(struct chrome *cs, size_t n)
{
	const struct gs_process *ref = NULL;

	for (size_t r = 0; r < n && !ref; r++)
		if (cs[r].rproc && cs[r].rproc->clock)
			ref = cs[r].rproc;
	for (size_t r = 0; r < n && ref; r++) {
		const struct gs_process *p = cs[r].rproc;
		int64_t d, lo = 0, hi = 0;

		cs[r].shift = 0;
		if (!p || !p->clock ||
		    __builtin_sub_overflow(p->wall_offset_ns, ref->wall_offset_ns, &d))
			continue;
		if (d >= GS_TIME_LIMIT_NS || d <= -GS_TIME_LIMIT_NS)
			continue;
		if (rank_time_span(&cs[r], &lo, &hi) &&
		    (lo + d <= -GS_TIME_LIMIT_NS || hi + d >= GS_TIME_LIMIT_NS))
			continue;
		cs[r].shift = d;
	}
}

static int cmp_rank_ptr(const void *pa, const void *pb)
{
	uint32_t a = (*(const struct gs_export_rank *const *)pa)->rank;
	uint32_t b = (*(const struct gs_export_rank *const *)pb)->rank;

	return (a > b) - (a < b);
}

/* The stride of the pids (1000, or the power of ten above the most
 * processes of a rank) and whether rank numbers fit 31-bit pids; else the
 * ranks' positions in rank order stand for their numbers. */
static gs_status job_numbering(struct chrome *cs, const struct gs_export_rank **order, size_t n,
			       int64_t *stride, bool *by_position)
{
	uint64_t most = 0, top = 0;

	for (size_t r = 0; r < n; r++) {
		uint64_t l = job_lanes(&cs[r]);

		if (l > most)
			most = l;
		if (order[r]->rank > top)
			top = order[r]->rank;
	}
	*stride = 1000;
	while ((uint64_t)*stride < most && *stride < 1000000000)
		*stride *= 10;
	*by_position = (top + 1) * (uint64_t)*stride - 1 > INT32_MAX;
	if ((uint64_t)*stride < most ||
	    (*by_position && (uint64_t)n * (uint64_t)*stride - 1 > INT32_MAX)) {
		gs_error_append("chrome export: %zu ranks of up to %llu processes need pids past "
				"2^31 - 1",
				n, (unsigned long long)most);
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

gs_status gs_export_chrome_job(FILE *out, const struct gs_export_rank *ranks, size_t n,
			       const struct gs_export_options *o)
{
	struct chrome_out w = {.first_event = true};
	const struct gs_export_rank **order;
	struct chrome *cs;
	struct dev_ref *devs = NULL;
	size_t n_devs = 0;
	int64_t stride;
	bool by_position;
	gs_status rc = GS_OK;
	size_t r;

	if (!out || !ranks || !n) {
		gs_error_append("gs_export_chrome_job: no %s", out ? "rank" : "output");
		return GS_ERR_INVALID;
	}
	for (r = 0; r < n; r++) {
		if (!ranks[r].trace) {
			gs_error_append("gs_export_chrome_job: rank %zu has no trace", r);
			return GS_ERR_INVALID;
		}
	}
	if (n == 1)
		return gs_export_chrome(out, ranks[0].trace, ranks[0].extras, o);
	order = calloc(n, sizeof(*order)); /* NOLINT(bugprone-sizeof-expression): pointers */
	cs = calloc(n, sizeof(*cs));
	if (!order || !cs) {
		free(order);
		free(cs);
		return gs_nomem();
	}
	for (r = 0; r < n; r++)
		order[r] = &ranks[r];
	qsort(order, n, sizeof(*order), cmp_rank_ptr); /* NOLINT(bugprone-sizeof-expression) */
	for (r = 1; r < n && !rc; r++) {
		if (order[r]->rank == order[r - 1]->rank) {
			gs_error_append("gs_export_chrome_job: rank %u given twice",
					order[r]->rank);
			rc = GS_ERR_INVALID;
		}
	}
	for (r = 0; r < n && !rc; r++) {
		cs[r].rank = order[r];
		rc = chrome_plan(&cs[r], &w, order[r]->trace, order[r]->extras, o);
		cs[r].rproc = rank_process(&cs[r]);
	}
	if (!rc)
		rc = job_numbering(cs, order, n, &stride, &by_position);
	if (!rc)
		rc = job_ids(cs, n);
	if (!rc)
		job_clocks(cs, n);
	if (!rc)
		plan_flows(cs, n, &w, o);
	if (!rc)
		rc = header_devices(cs, n, &devs, &n_devs);
	if (!rc)
		rc = gs_wbuf_init(&w.w, out, o && o->gzip, o ? o->compression_level : 0);
	if (!rc) {
		for (r = 0; r < n; r++) {
			cs[r].pid_base =
				(by_position ? (int64_t)r : (int64_t)order[r]->rank) * stride;
			job_pids(&cs[r], cs[r].pid_base);
		}
		write_header(cs, n, devs, n_devs, stride);
		for (r = 0; r < n; r++)
			chrome_write(&cs[r]);
		gs_wbuf_puts(&w.w, "\n]}\n");
		rc = gs_wbuf_finish(&w.w);
	}
	for (r = 0; r < n; r++)
		chrome_free(&cs[r]);
	free(devs);
	free(cs);
	free(order);
	return rc;
}
