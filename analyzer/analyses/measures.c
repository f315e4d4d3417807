/* SPDX-License-Identifier: MIT */
/*
 * Per-GPU measures (gpuscope/measures.h): GPU time per user annotation,
 * launch delay, queue length, copy bandwidth, kernel classes.
 *
 * Every pass reads the device's ops stream by stream (each stream's ops are
 * sorted by start); the arrays it fills are one sorted run per stream, read
 * back merged (gs_kmerge) rather than sorted, so the cost is a few linear
 * passes; the allocations are a fixed number of arrays per device, none per
 * op.
 */
#include <gpuscope/measures.h>
#include <gpuscope/results.h>
#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/u64map.h>

#include "analyzer_priv.h"
#include "report_build_priv.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const char *gs_kernel_class_name(unsigned c)
{
	static const char *const n[] = {"compute", "communication", "memory"};
	return c < GS_COUNT_OF(n) ? n[c] : "?";
}

unsigned gs_kernel_class_of_name(const char *name)
{
	static const char *const memory[] = {"memcpy", "memset", "copy_kernel",
					     "catarraybatchedcopy", "fill_kernel"};

	if (gs_report_comm_name(name))
		return GS_KCLASS_COMMUNICATION;
	for (size_t i = 0; i < GS_COUNT_OF(memory); i++)
		if (gs_has_ci(name, memory[i]))
			return GS_KCLASS_MEMORY;
	return GS_KCLASS_COMPUTE;
}

unsigned gs_kernel_class_of(const struct gs_trace *t, const struct gs_op *op)
{
	if (op->collective)
		return GS_KCLASS_COMMUNICATION;
	return gs_kernel_class_of_name(gs_trace_string(t, op->name));
}

/* ------------------------------------------------------------------------ */

struct kev {
	int64_t start; /* sort key */
	int64_t end;
	uint32_t cls;
	uint32_t pad;
};

/* The ops by launch call are 8-byte keys, call << 32 | op: ordered by
 * call, then by op, as the stable merge of the streams' runs (written in
 * op order) ordered 16-byte (call, op) pairs. */
static uint32_t by_call_call(uint64_t o)
{
	return (uint32_t)(o >> 32);
}

static uint32_t by_call_op(uint64_t o)
{
	return (uint32_t)o;
}

/* One device's measures while they are computed: its ops in the window by
 * stream, and what one pass over them collects for each measure. */
struct measures_pass {
	const struct gs_trace *t;
	const struct gs_op *ops;
	const struct gs_api_call *calls;
	size_t n_calls;
	const uint32_t *launch;
	int64_t ws, we;
	struct gs_op_range *runs; /* the device's streams' ops */
	size_t n_runs;
	size_t n_dev; /* ops of the device */
	/* Filled by one pass over the ops (collect): kernels cut to the
	 * window, launch call starts and op ends for the queue, ops by
	 * launch call for the host annotations (want_order). */
	struct kev *kv;
	size_t n_kv;
	int64_t *qa, *qe;
	size_t n_q;
	uint64_t *order; /* call << 32 | op */
	size_t n_order;
	bool want_order;
	uint64_t max_pieces; /* max_annotation_pieces */
};

static bool overlaps(const struct measures_pass *m, const struct gs_op *op)
{
	if (op->end_ns <= op->start_ns)
		return op->start_ns >= m->ws && op->start_ns <= m->we;
	return op->start_ns < m->we && op->end_ns > m->ws;
}

static uint32_t launch_of(const struct measures_pass *m, size_t i)
{
	uint32_t c = m->launch ? m->launch[i] : GS_NO_INDEX;

	return c < m->n_calls ? c : GS_NO_INDEX;
}

/* ---- kernel classes ------------------------------------------------------ */

/* Union lengths, one running union per level: level 0 holds
 * communication, 1 communication and memory, 2 every kernel. */
static void classes(struct measures_pass *m, struct gs_measures *out)
{
	int64_t cur_s[3] = {0, 0, 0}, cur_e[3] = {0, 0, 0}, tot[3] = {0, 0, 0};
	bool open[3] = {false, false, false};
	struct gs_kmerge km;
	const struct kev *v;

	/* by start: the streams' kernels merged */
	gs_kmerge_init_i64(&km, m->kv, m->n_kv, sizeof(*m->kv));
	while ((v = gs_kmerge_next(&km))) {
		unsigned lo = v->cls == GS_KCLASS_COMMUNICATION ? 0 :
			      v->cls == GS_KCLASS_MEMORY        ? 1 :
								  2;

		for (unsigned l = lo; l < 3; l++) {
			if (open[l] && v->start <= cur_e[l]) {
				if (v->end > cur_e[l])
					cur_e[l] = v->end;
				continue;
			}
			if (open[l])
				tot[l] += cur_e[l] - cur_s[l];
			open[l] = true;
			cur_s[l] = v->start;
			cur_e[l] = v->end;
		}
	}
	for (unsigned l = 0; l < 3; l++)
		if (open[l])
			tot[l] += cur_e[l] - cur_s[l];
	out->class_ns[GS_KCLASS_COMMUNICATION] = tot[0];
	out->class_ns[GS_KCLASS_MEMORY] = tot[1] - tot[0];
	out->class_ns[GS_KCLASS_COMPUTE] = tot[2] - tot[1];
}

/* ---- launch delay -------------------------------------------------------- */

static void swap64(int64_t *a, int64_t *b)
{
	int64_t x = *a;

	*a = *b;
	*b = x;
}

/* The k-th smallest of v[0..n) (0-based), v reordered. O(n) expected. */
static int64_t select_kth(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, i, j;
		int64_t p;

		/* median of three as the pivot, at hi */
		if (v[mid] < v[lo])
			swap64(&v[mid], &v[lo]);
		if (v[hi] < v[lo])
			swap64(&v[hi], &v[lo]);
		if (v[mid] < v[hi])
			swap64(&v[mid], &v[hi]);
		p = v[hi];
		/* three-way partition: < p, == p, > p */
		i = lo;
		j = lo;
		{
			size_t g = hi + 1;

			while (j < g) {
				if (v[j] < p)
					swap64(&v[i++], &v[j++]);
				else if (v[j] > p)
					swap64(&v[j], &v[--g]);
				else
					j++;
			}
			if (k < i)
				hi = i - 1;
			else if (k >= g)
				lo = g;
			else
				return p;
		}
	}
	return v[k];
}

/* The kernel class of op `op`, through a small cache by name id (a trace
 * has millions of kernels and a few hundred names: no table over every
 * name, which each of many devices would pay for). */
struct class_memo {
	uint32_t name;
	uint8_t cls;
};

static unsigned op_class(const struct gs_trace *t, struct class_memo *memo, const struct gs_op *op)
{
	size_t h;

	if (op->collective)
		return GS_KCLASS_COMMUNICATION;
	h = (op->name * 2654435761u) >> 24 & 255;
	if (memo[h].name != op->name || op->name == GS_NO_STRING) {
		memo[h].name = op->name;
		memo[h].cls = (uint8_t)gs_kernel_class_of_name(gs_trace_string(t, op->name));
	}
	return memo[h].cls;
}

#define BW_CELLS ((size_t)2 * GS_COPY_KIND_COUNT * GS_MEM_KIND_COUNT * GS_MEM_KIND_COUNT)

static void bw_add(struct gs_copy_bandwidth *cell, const struct gs_op *op)
{
	unsigned ck = op->copy_kind < GS_COPY_KIND_COUNT ? op->copy_kind : 0;
	unsigned sm = op->src_mem < GS_MEM_KIND_COUNT ? op->src_mem : 0;
	unsigned dm = op->dst_mem < GS_MEM_KIND_COUNT ? op->dst_mem : 0;
	struct gs_copy_bandwidth *c;

	if (op->kind == GS_OP_MEMSET)
		ck = sm = 0;
	c = &cell[(((size_t)(op->kind == GS_OP_MEMSET) * GS_COPY_KIND_COUNT + ck) *
			   GS_MEM_KIND_COUNT +
		   sm) * GS_MEM_KIND_COUNT +
		  dm];
	c->op_kind = op->kind;
	c->copy_kind = (uint8_t)ck;
	c->src_mem = (uint8_t)sm;
	c->dst_mem = (uint8_t)dm;
	c->count++;
	c->bytes += op->bytes;
	c->ns += op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;
}

/*
 * One pass over the device's ops, stream by stream: the launch delays of
 * each stream (done here), the copy bandwidth cells (done here), and the
 * arrays the other measures sort and sweep (kernels, queue events, ops by
 * launch call).
 */
#define CALL_AHEAD 16 /* ops ahead whose launching call is fetched */

static gs_status collect(struct measures_pass *m, struct gs_measures *out)
{
	struct class_memo memo[256];
	struct gs_copy_bandwidth *cell = calloc(BW_CELLS, sizeof(*cell));
	size_t cap = 0, nd = m->n_dev ? m->n_dev : 1, k = 0;
	int64_t *v;

	for (size_t r = 0; r < m->n_runs; r++)
		if (m->runs[r].count > cap)
			cap = m->runs[r].count;
	for (size_t i = 0; i < GS_COUNT_OF(memo); i++)
		memo[i].name = GS_NO_STRING;
	out->delays = calloc(m->n_runs ? m->n_runs : 1, sizeof(*out->delays));
	v = malloc((cap ? cap : 1) * sizeof(*v));
	m->kv = malloc(nd * sizeof(*m->kv));
	/* One block: annotations() sorts its pieces there once queue() is done. */
	m->qa = malloc(2 * nd * sizeof(*m->qa));
	m->qe = m->qa ? m->qa + nd : NULL;
	if (m->want_order)
		m->order = malloc(nd * sizeof(*m->order));
	if (!cell || !out->delays || !v || !m->kv || !m->qa || !m->qe ||
	    (m->want_order && !m->order)) {
		free(cell);
		free(v);
		return gs_nomem();
	}
	for (size_t r = 0; r < m->n_runs; r++) {
		struct gs_launch_delay *d = &out->delays[out->n_delays];
		size_t n = 0;
		int64_t mx = INT64_MIN;

		size_t end = m->runs[r].first + m->runs[r].count;

		for (size_t i = m->runs[r].first; i < end; i++) {
			const struct gs_op *op = &m->ops[i];
			uint32_t c = launch_of(m, i);
			bool in = overlaps(m, op);

			/* The launching calls are far apart in the API calls
			 * (one a cache line): each fetched ahead of its read. */
			if (i + CALL_AHEAD < end) {
				uint32_t ahead = launch_of(m, i + CALL_AHEAD);

				if (ahead != GS_NO_INDEX)
					__builtin_prefetch(&m->calls[ahead]);
			}

			if (c != GS_NO_INDEX && op->end_ns > m->calls[c].start_ns) {
				/* in the queue from its call's start to its end */
				m->qa[m->n_q] = m->calls[c].start_ns;
				m->qe[m->n_q++] = op->end_ns;
			}
			if (!in)
				continue;
			if (op->kind == GS_OP_KERNEL) {
				struct kev *kv = &m->kv[m->n_kv];
				unsigned cls = op_class(m->t, memo, op);

				out->class_count[cls]++;
				kv->start = op->start_ns > m->ws ? op->start_ns : m->ws;
				kv->end = op->end_ns < m->we ? op->end_ns : m->we;
				kv->cls = cls;
				kv->pad = 0;
				if (kv->end > kv->start)
					m->n_kv++;
			} else {
				bw_add(cell, op);
			}
			if (c == GS_NO_INDEX)
				continue;
			if (m->want_order)
				m->order[m->n_order++] = (uint64_t)c << 32 | (uint32_t)i;
			v[n] = op->start_ns - m->calls[c].start_ns;
			if (v[n] > mx)
				mx = v[n];
			n++;
		}
		if (!n)
			continue;
		d->stream = m->ops[m->runs[r].first].stream;
		d->ops = n;
		d->max_ns = mx;
		{
			size_t k95 = gs_report_nearest_rank(n, 95);
			size_t k50 = gs_report_nearest_rank(n, 50);

			/* the select leaves the k95 smallest before k95: the
			 * median is the k50-th of them */
			d->p95_ns = select_kth(v, n, k95);
			d->p50_ns = select_kth(v, k50 < k95 ? k95 : n, k50);
		}
		out->n_delays++;
	}
	free(v);
	if (out->n_delays < m->n_runs) { /* keep what is used (many devices) */
		struct gs_launch_delay *nd2 =
			realloc(out->delays, (out->n_delays ? out->n_delays : 1) * sizeof(*nd2));

		if (nd2)
			out->delays = nd2;
	}
	for (size_t i = 0; i < BW_CELLS; i++)
		if (cell[i].count)
			cell[k++] = cell[i];
	if (k < BW_CELLS) { /* keep what is used */
		struct gs_copy_bandwidth *nc = realloc(cell, (k ? k : 1) * sizeof(*nc));

		if (nc)
			cell = nc;
	}
	out->copies = cell;
	out->n_copies = k;
	return GS_OK;
}

/* ---- queue length -------------------------------------------------------- */

struct qstate {
	int64_t ws, we;
	uint64_t len;  /* current length */
	int64_t at;    /* start of the current level (>= ws once inside) */
	size_t at_bin; /* the bin of at, followed as at grows */
	uint64_t bins[GS_QUEUE_SERIES_MAX];
	uint64_t binw; /* bin width, ns */
	size_t nbins;
	struct gs_queue_point *pts; /* the first GS_QUEUE_SERIES_MAX + 1 points */
	size_t npts;
	uint64_t last; /* the length of the last point */
	uint64_t changes;
	uint64_t max;
	double area;
};

/* The level `q->len` held over [q->at, until). */
static void queue_hold(struct qstate *q, int64_t until)
{
	uint64_t off;

	if (until > q->we)
		until = q->we;
	if (until <= q->at)
		return;
	q->area += (double)q->len * (double)(until - q->at);
	if (q->len > q->max)
		q->max = q->len;
	/* (at - ws) / binw, without a division per event: at only grows */
	off = (uint64_t)(q->at - q->ws);
	while ((q->at_bin + 1) * q->binw <= off)
		q->at_bin++;
	for (size_t b = q->at_bin; b < q->nbins && (int64_t)(b * q->binw) < until - q->ws; b++)
		if (q->len > q->bins[b])
			q->bins[b] = q->len;
}

static void queue_point(struct qstate *q, int64_t t)
{
	if (q->npts && q->last == q->len)
		return;
	q->last = q->len;
	if (q->npts)
		q->changes++;
	if (q->npts <= GS_QUEUE_SERIES_MAX) {
		q->pts[q->npts].t_ns = t;
		q->pts[q->npts].length = q->len;
	}
	q->npts++;
}

static gs_status queue(const struct measures_pass *m, struct gs_measures *out)
{
	struct qstate *q = calloc(1, sizeof(*q));
	size_t n = m->n_q;
	uint64_t w = (uint64_t)(m->we - m->ws);
	struct gs_kmerge ka, ke; /* the entries and exits in time order */
	const int64_t *a, *e;

	if (!q)
		goto fail;
	q->pts = malloc((GS_QUEUE_SERIES_MAX + 1) * sizeof(*q->pts));
	if (!q->pts)
		goto fail;
	out->queue_ops = n;
	gs_kmerge_init_i64(&ka, m->qa, n, sizeof(*m->qa));
	gs_kmerge_init_i64(&ke, m->qe, n, sizeof(*m->qe));
	a = gs_kmerge_next(&ka);
	e = gs_kmerge_next(&ke);
	q->ws = m->ws;
	q->we = m->we;
	q->at = m->ws;
	q->nbins = w ? GS_QUEUE_SERIES_MAX : 0;
	q->binw = w ? (w + GS_QUEUE_SERIES_MAX - 1) / GS_QUEUE_SERIES_MAX : 1;
	if (q->nbins && (q->nbins - 1) * q->binw >= w)
		q->nbins = (size_t)((w + q->binw - 1) / q->binw);
	/* The level at the window start: every event at or before it. */
	while (a && *a <= m->ws)
		q->len++, a = gs_kmerge_next(&ka);
	while (e && *e <= m->ws)
		q->len--, e = gs_kmerge_next(&ke);
	if (w)
		queue_point(q, m->ws);
	while (a || e) {
		int64_t t = a && (!e || *a < *e) ? *a : *e;

		if (t >= m->we)
			break;
		queue_hold(q, t);
		while (a && *a == t)
			q->len++, a = gs_kmerge_next(&ka);
		while (e && *e == t)
			q->len--, e = gs_kmerge_next(&ke);
		q->at = t;
		queue_point(q, t);
	}
	queue_hold(q, m->we);
	out->queue_max = q->max;
	out->queue_area = q->area;
	out->queue_mean = w ? q->area / (double)w : 0;
	out->queue_changes = q->changes;
	if (q->npts <= GS_QUEUE_SERIES_MAX) {
		struct gs_queue_point *np = realloc(
			q->pts, (q->npts ? q->npts : 1) * sizeof(*np)); /* keep what is used */

		if (np)
			q->pts = np;
		out->queue_series = q->pts;
		out->n_queue_series = q->npts;
		q->pts = NULL;
	} else {
		out->queue_binned = true;
		out->n_queue_series = q->nbins;
		for (size_t b = 0; b < q->nbins; b++) {
			q->pts[b].t_ns = m->ws + (int64_t)(b * q->binw);
			q->pts[b].length = q->bins[b];
		}
		out->queue_series = q->pts;
		q->pts = NULL;
	}
	free(q);
	return GS_OK;
fail:
	if (q)
		free(q->pts);
	free(q);
	return gs_nomem();
}

/* ---- annotations --------------------------------------------------------- */

/* A piece of op time under an annotation name; its group (slot * 2 +
 * (copy ? 1 : 0)) beside it in a parallel array, so that the pieces
 * grouped and sorted by start are 16 bytes each. */
struct piece {
	int64_t start;
	int64_t end;
};

struct ann {
	struct gs_u64map map; /* (source << 32 | name) -> slot */
	struct gs_annotation_time *rows;
	size_t n_rows;
	struct piece *p; /* the kernels' room (m->kv) when it fits */
	uint32_t *group; /* per piece; the ops by launch call's room when it fits */
	size_t n, cap;
	bool p_borrowed;     /* p is m->kv's: not freed here */
	bool group_borrowed; /* group is m->order's */
};

static uint32_t ann_slot(struct ann *an, const struct gs_range *r)
{
	uint64_t key = (uint64_t)r->kind << 32 | r->name;
	uint64_t found;
	uint32_t slot;

	if (gs_u64map_get(&an->map, key, &found))
		return (uint32_t)found;
	slot = (uint32_t)an->n_rows++;
	gs_u64map_put(&an->map, key, slot, false);
	an->rows[slot].name = r->name;
	an->rows[slot].source = r->kind;
	return slot;
}

/* A piece in the room ann_gpu reserved. */
static void ann_piece(struct ann *an, int64_t s, int64_t e, uint32_t slot, bool copy)
{
	if (e <= s || an->n == an->cap)
		return;
	an->group[an->n] = slot * 2 + (copy ? 1u : 0u);
	an->p[an->n++] = (struct piece){s, e};
}

static bool host_annotation(const struct gs_range *r)
{
	return r->kind == GS_RANGE_USER_ANNOTATION || r->kind == GS_RANGE_NVTX;
}

/* A host annotation range by its thread and start, and the row of the
 * annotations table it counts in. */
struct host_range_ref {
	int64_t pid, tid, start;
	uint32_t range;
	uint32_t slot; /* its row; GS_NO_INDEX until first met */
};

static int cmp_host_range_ref(const void *pa, const void *pb)
{
	const struct host_range_ref *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->range < b->range ? -1 : a->range > b->range;
}

/*
 * Ops launched inside host annotations of their launching thread: ops in
 * launch-call order (a counting sort: calls are grouped by thread and
 * sorted by start), against each thread's annotations by start.
 *
 * No piece per (op, annotation): the annotations open at a launch are a
 * path in a tree of nodes (node_ann, node_up), the innermost last, so an
 * op keeps one node; a node is added when an annotation opens, and again
 * for each one still open after one that closed before it (ranges that
 * cross, rare). Then the ops by start, each adding its time to the running
 * union of each annotation on its path: O(ops x depth) time, memory O(ops
 * + annotations + nodes), nodes bounded by max_annotation_pieces.
 */
struct hop {
	int64_t start; /* sort key: the op cut to the window */
	int64_t end;
	uint32_t node;
	uint32_t copy;
};

_Static_assert(sizeof(struct hop) <= sizeof(struct kev), "ann_host's ops in the kernels' room");
_Static_assert(sizeof(struct piece) <= sizeof(struct kev), "ann_gpu's pieces in the kernels' room");

struct hnodes {
	uint32_t *ann, *up;
	size_t n, cap;
	uint64_t max;
};

static gs_status node_add(struct hnodes *nd, uint32_t ann, uint32_t up, uint32_t *out)
{
	if (nd->n >= nd->max) {
		gs_error_append("GPU time per annotation: more than max_annotation_pieces (%llu) "
				"pieces",
				(unsigned long long)nd->max);
		return GS_ERR_LIMIT;
	}
	if (nd->n == nd->cap) {
		size_t nc = nd->cap ? 2 * nd->cap : 256;
		uint32_t *a = realloc(nd->ann, nc * sizeof(*a)), *u;

		if (a)
			nd->ann = a;
		u = a ? realloc(nd->up, nc * sizeof(*u)) : NULL;
		if (!u)
			return gs_nomem();
		nd->up = u;
		nd->cap = nc;
	}
	nd->ann[nd->n] = ann;
	nd->up[nd->n] = up;
	*out = (uint32_t)nd->n++;
	return GS_OK;
}

/* The path to `cur` without the annotations that closed by `ls`: nodes
 * kept up to the first closed one, the open ones after it added again.
 * `path` has room for every annotation. */
static gs_status path_prune(const struct host_range_ref *h, const struct gs_range *ranges,
			    struct hnodes *nd, uint32_t *path, uint32_t *cur, int64_t ls)
{
	size_t len = 0, f = SIZE_MAX;
	uint32_t at;

	for (at = *cur; at != GS_NO_INDEX; at = nd->up[at])
		path[len++] = at; /* innermost first */
	for (size_t k = len; k-- > 0;)
		if (ranges[h[nd->ann[path[k]]].range].end_ns <= ls) {
			f = k;
			break;
		}
	if (f == SIZE_MAX)
		return GS_OK;
	at = f + 1 < len ? path[f + 1] : GS_NO_INDEX;
	for (size_t k = f; k-- > 0;) {
		uint32_t a = nd->ann[path[k]];
		gs_status rc;

		if (ranges[h[a].range].end_ns <= ls)
			continue;
		rc = node_add(nd, a, at, &at);
		if (rc)
			return rc;
	}
	*cur = at;
	return GS_OK;
}

static gs_status ann_host(const struct measures_pass *m, struct ann *an,
			  const struct gs_range *ranges, const uint32_t *sel, size_t n_sel)
{
	struct host_range_ref *h = NULL;
	const uint64_t *o;
	const struct gs_api_call *prev = NULL;
	struct gs_kmerge km;
	struct hnodes nd = {.max = m->max_pieces};
	struct hop *ops = NULL;
	const struct hop *hp_op;
	uint32_t *path = NULL, cur = GS_NO_INDEX;
	int64_t *cs = NULL, *ce = NULL, *tot = NULL;
	size_t nh = 0, hp = 0, n_ops = 0;
	gs_status rc = GS_OK;

	for (size_t x = 0; x < n_sel; x++)
		nh += host_annotation(&ranges[sel[x]]);
	if (!nh || !m->order)
		return GS_OK;
	h = malloc(nh * sizeof(*h));
	path = malloc(nh * sizeof(*path));
	/* The kernels' room (classes() has read them): no more ops than the
	 * device's, as large an entry, pages already touched. */
	ops = (struct hop *)m->kv;
	if (!h || !path || !ops) {
		rc = gs_nomem();
		goto out;
	}
	nh = 0;
	for (size_t x = 0; x < n_sel; x++) {
		size_t i = sel[x];

		if (host_annotation(&ranges[i]))
			h[nh++] = (struct host_range_ref){ranges[i].pid, ranges[i].tid,
							  ranges[i].start_ns, (uint32_t)i,
							  GS_NO_INDEX};
	}
	gs_sort(h, nh, sizeof(*h), cmp_host_range_ref);
	/* Ops by launch call (the streams' parts merged): calls are grouped
	 * by thread and sorted by start, so this is launch order thread by
	 * thread. */
	gs_kmerge_init_u64(&km, m->order, m->n_order, sizeof(*m->order));
	while (rc == GS_OK && (o = gs_kmerge_next(&km))) {
		const struct gs_op *op = &m->ops[by_call_op(*o)];
		const struct gs_api_call *c = &m->calls[by_call_call(*o)];
		int64_t ls = c->start_ns;
		int64_t s = op->start_ns > m->ws ? op->start_ns : m->ws;
		int64_t e = op->end_ns < m->we ? op->end_ns : m->we;

		if (prev && (c->pid != prev->pid || c->tid != prev->tid))
			cur = GS_NO_INDEX; /* another thread */
		prev = c;
		while (hp < nh &&
		       (h[hp].pid < c->pid || (h[hp].pid == c->pid && h[hp].tid < c->tid)))
			hp++;
		rc = path_prune(h, ranges, &nd, path, &cur, ls);
		for (; rc == GS_OK && hp < nh && h[hp].pid == c->pid && h[hp].tid == c->tid &&
		       h[hp].start <= ls;
		     hp++) {
			struct host_range_ref *a = &h[hp];

			if (ranges[a->range].end_ns <= ls)
				continue; /* over before this launch: never open */
			if (a->slot == GS_NO_INDEX) {
				a->slot = ann_slot(an, &ranges[a->range]);
				an->rows[a->slot].count++;
			}
			rc = node_add(&nd, (uint32_t)hp, cur, &cur);
		}
		if (rc == GS_OK && cur != GS_NO_INDEX && e > s)
			ops[n_ops++] = (struct hop){s, e, cur, op->kind != GS_OP_KERNEL};
	}
	if (rc != GS_OK || !n_ops)
		goto out;
	/* By start: each group's union grows at its end, none kept apart (the
	 * sort's order, read without its copy for a few runs). */
	gs_kmerge_init_i64(&km, ops, n_ops, sizeof(*ops));
	cs = malloc(2 * an->n_rows * sizeof(*cs));
	ce = malloc(2 * an->n_rows * sizeof(*ce));
	tot = calloc(2 * an->n_rows, sizeof(*tot));
	if (!cs || !ce || !tot) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t g = 0; g < 2 * an->n_rows; g++)
		cs[g] = ce[g] = INT64_MIN;
	while ((hp_op = gs_kmerge_next(&km)))
		for (uint32_t at = hp_op->node; at != GS_NO_INDEX; at = nd.up[at]) {
			size_t g = (size_t)h[nd.ann[at]].slot * 2 + hp_op->copy;

			if (hp_op->start <= ce[g] && cs[g] != INT64_MIN) {
				if (hp_op->end > ce[g])
					ce[g] = hp_op->end;
				continue;
			}
			if (cs[g] != INT64_MIN)
				tot[g] += ce[g] - cs[g];
			cs[g] = hp_op->start;
			ce[g] = hp_op->end;
		}
	for (size_t g = 0; g < 2 * an->n_rows; g++) {
		if (cs[g] == INT64_MIN)
			continue;
		tot[g] += ce[g] - cs[g];
		if (g & 1)
			an->rows[g / 2].copy_ns = tot[g];
		else
			an->rows[g / 2].kernel_ns = tot[g];
	}
out:
	free(h);
	free(path);
	free(nd.ann);
	free(nd.up);
	free(cs);
	free(ce);
	free(tot);
	return rc;
}

struct run_key {
	const struct measures_pass *m;
	uint32_t stream;
};

/* Run i is of a stream before the one looked for. */
static bool run_before(const void *ctx, size_t i)
{
	const struct run_key *k = ctx;

	return k->m->ops[k->m->runs[i].first].stream < k->stream;
}

/* The runs (streams) of the device, by stream index, for GPU annotations. */
static const struct gs_op_range *run_of(const struct measures_pass *m, uint32_t stream)
{
	struct run_key k = {m, stream};
	size_t i = gs_partition_point(m->n_runs, run_before, &k);

	return i < m->n_runs && m->ops[m->runs[i].first].stream == stream ? &m->runs[i] : NULL;
}

/* The ops of `run` that may share time with [rs, re) (a GPU annotation cut
 * to the window, starting at `start`): [*lo, *hi). */
static void gpu_span(const struct measures_pass *m, const struct gs_op_range *run, int64_t start,
		     int64_t rs, int64_t re, size_t *lo, size_t *hi)
{
	size_t a = run->first, b = run->first + run->count;

	/* the first op starting at or after the range, then back over ops
	 * that start before it and reach into it */
	a += gs_lower_bound_i64_at(&m->ops[a], b - a, sizeof(*m->ops),
				   offsetof(struct gs_op, start_ns), start);
	while (a > run->first && m->ops[a - 1].end_ns > rs)
		a--;
	*lo = a;
	/* the first op starting at or after its end: an annotation holds a
	 * few ops, so steps that double from lo, then a binary search within
	 * the last step, rather than a search over the rest of the stream */
	for (size_t step = 1;; step *= 2) {
		size_t j = a + step - 1;

		if (j >= b || m->ops[j].start_ns >= re) {
			b = j < b ? j : b;
			break;
		}
		a = j + 1;
	}
	*hi = a + gs_lower_bound_i64_at(&m->ops[a], b - a, sizeof(*m->ops),
					offsetof(struct gs_op, start_ns), re);
}

/* The ops of a GPU annotation (gpu_span); lo is SIZE_MAX for a range
 * that is no GPU annotation in the window. */
struct op_span {
	size_t lo, hi;
};

/*
 * Ops under GPU annotations, a piece each, cut to the annotation. The
 * pieces are counted first (binary searches, their spans kept for the
 * second pass), so that more than max_annotation_pieces are refused before
 * any is kept.
 */
static gs_status ann_gpu(const struct measures_pass *m, struct ann *an,
			 const struct gs_range *ranges, const uint32_t *sel, size_t n_sel)
{
	uint64_t want = 0;
	struct op_span *sp = malloc((n_sel ? n_sel : 1) * sizeof(*sp));

	if (!sp)
		return gs_nomem();
	for (size_t x = 0; x < n_sel; x++) {
		const struct gs_range *g = &ranges[sel[x]];
		const struct gs_op_range *run;
		int64_t rs, re;

		sp[x].lo = SIZE_MAX;
		if (g->kind != GS_RANGE_GPU_ANNOTATION)
			continue;
		rs = g->start_ns > m->ws ? g->start_ns : m->ws;
		re = g->end_ns < m->we ? g->end_ns : m->we;
		if (re <= rs || !(run = run_of(m, g->stream)))
			continue;
		gpu_span(m, run, g->start_ns, rs, re, &sp[x].lo, &sp[x].hi);
		want += sp[x].hi - sp[x].lo;
	}
	if (want > m->max_pieces) {
		free(sp);
		gs_error_append("GPU time per annotation: more than max_annotation_pieces "
				"(%llu) pieces",
				(unsigned long long)m->max_pieces);
		return GS_ERR_LIMIT;
	}
	if (!want) {
		free(sp);
		return GS_OK;
	}
	/* ann_host, the last reader of the kernels (its ops went in their
	 * room) and the only one of the ops by launch call, is done: their
	 * pages, already touched, take the pieces and their groups when they
	 * fit. */
	if (m->kv && want <= m->n_dev * sizeof(struct kev) / sizeof(struct piece)) {
		an->p = (struct piece *)m->kv;
		an->p_borrowed = true;
	} else {
		an->p = malloc(want * sizeof(*an->p));
	}
	if (m->order && want <= m->n_dev * sizeof(uint64_t) / sizeof(uint32_t)) {
		an->group = (uint32_t *)m->order;
		an->group_borrowed = true;
	} else {
		an->group = malloc(want * sizeof(*an->group));
	}
	if (!an->p || !an->group) {
		free(sp);
		return gs_nomem();
	}
	an->cap = want;
	for (size_t x = 0; x < n_sel; x++) {
		const struct gs_range *g = &ranges[sel[x]];
		int64_t rs = g->start_ns > m->ws ? g->start_ns : m->ws;
		int64_t re = g->end_ns < m->we ? g->end_ns : m->we;
		uint32_t slot;

		if (sp[x].lo == SIZE_MAX)
			continue;
		slot = ann_slot(an, g);
		an->rows[slot].count++;
		for (size_t k = sp[x].lo; k < sp[x].hi; k++) {
			const struct gs_op *op = &m->ops[k];
			int64_t s = op->start_ns > rs ? op->start_ns : rs;
			int64_t e = op->end_ns < re ? op->end_ns : re;

			ann_piece(an, s, e, slot, op->kind != GS_OP_KERNEL);
		}
	}
	free(sp);
	return GS_OK;
}

/* A row to rank, with its name's text. */
struct ann_rank {
	struct gs_annotation_time row;
	const char *name;
};

static int cmp_ann(const void *pa, const void *pb)
{
	const struct ann_rank *a = pa, *b = pb;
	int64_t x = a->row.kernel_ns + a->row.copy_ns, y = b->row.kernel_ns + b->row.copy_ns;
	int c;

	if (x != y)
		return x > y ? -1 : 1;
	if (a->row.source != b->row.source)
		return a->row.source > b->row.source ? -1 : 1; /* GPU annotations first */
	c = strcmp(a->name, b->name);
	return c < 0 ? -1 : c > 0;
}

/* Rank the rows with a count (drop the others). */
static gs_status ann_rank(const struct gs_trace *t, struct ann *an)
{
	struct ann_rank *v = malloc((an->n_rows ? an->n_rows : 1) * sizeof(*v));
	size_t k = 0;

	if (!v)
		return gs_nomem();
	for (size_t i = 0; i < an->n_rows; i++)
		if (an->rows[i].count)
			v[k++] = (struct ann_rank){an->rows[i],
						   gs_trace_string(t, an->rows[i].name)};
	gs_sort(v, k, sizeof(*v), cmp_ann);
	for (size_t i = 0; i < k; i++)
		an->rows[i] = v[i].row;
	an->n_rows = k;
	free(v);
	return GS_OK;
}

static gs_status annotations(const struct measures_pass *m, struct gs_measures *out)
{
	size_t n_ranges, na;
	const struct gs_range *ranges = gs_trace_ranges(m->t, &n_ranges);
	/* The annotations among the ranges (most ranges are operators), as
	 * the trace indexes them. */
	const uint32_t *sel = gs_trace_annotation_ranges(m->t, &na);
	struct ann an;
	uint32_t *first = NULL;
	struct piece *sorted = NULL;
	gs_status rc;

	memset(&an, 0, sizeof(an));
	if (!na)
		return GS_OK;
	an.rows = calloc(na, sizeof(*an.rows));
	if (!an.rows || gs_u64map_reserve(&an.map, na) != GS_OK) {
		free(an.rows);
		gs_u64map_fini(&an.map);
		return gs_nomem();
	}
	rc = ann_host(m, &an, ranges, sel, na);
	if (rc == GS_OK)
		rc = ann_gpu(m, &an, ranges, sel, na);
	if (rc != GS_OK)
		goto out;
	/* by group (a stable counting sort), then each group by start: each
	 * group's pieces come nearly in start order, so sorting them apart
	 * costs less than sorting all by start first */
	first = calloc(2 * an.n_rows + 1, sizeof(*first));
	/* each written once; in the queue's events (read by queue(), done)
	 * when they fit, pages already touched */
	sorted = an.n <= m->n_dev && m->qa ? (struct piece *)m->qa :
					     malloc((an.n ? an.n : 1) * sizeof(*sorted));
	if (!first || !sorted) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t i = 0; i < an.n; i++)
		first[an.group[i] + 1]++;
	for (size_t g = 0; g < 2 * an.n_rows; g++)
		first[g + 1] += first[g];
	for (size_t i = 0; i < an.n; i++)
		sorted[first[an.group[i]]++] = an.p[i];
	for (size_t g = 0, at = 0; g < 2 * an.n_rows; at = first[g++]) {
		/* first[g] is now the end of group g: its pieces' union */
		size_t end = first[g];
		int64_t cs = 0, ce = 0, tot = 0;
		struct gs_kmerge km;
		const struct piece *pc;
		bool open = false;

		if (at == end)
			continue;
		/* by start (the sort, without its copy for a few runs) */
		gs_kmerge_init_i64(&km, sorted + at, end - at, sizeof(*sorted));
		while ((pc = gs_kmerge_next(&km))) {
			if (open && pc->start <= ce) {
				if (pc->end > ce)
					ce = pc->end;
				continue;
			}
			if (open)
				tot += ce - cs;
			open = true;
			cs = pc->start;
			ce = pc->end;
		}
		tot += ce - cs;
		if (g & 1)
			an.rows[g / 2].copy_ns = tot;
		else
			an.rows[g / 2].kernel_ns = tot;
	}
	rc = ann_rank(m->t, &an);
	if (rc != GS_OK)
		goto out;
	out->annotations = an.rows;
	out->n_annotations = an.n_rows;
	an.rows = NULL;
out:
	free(first);
	if (sorted != (struct piece *)m->qa)
		free(sorted);
	if (!an.p_borrowed)
		free(an.p);
	if (!an.group_borrowed)
		free(an.group);
	free(an.rows);
	gs_u64map_fini(&an.map);
	return rc;
}

/* ------------------------------------------------------------------------ */

gs_status gs_measures_compute(const struct gs_trace *t, uint32_t device, int64_t window_start,
			      int64_t window_end, const uint32_t *launch, struct gs_measures *out)
{
	return gs_measures_compute_max(t, device, window_start, window_end, launch, 0, out);
}

gs_status gs_measures_compute_max(const struct gs_trace *t, uint32_t device, int64_t window_start,
				  int64_t window_end, const uint32_t *launch, uint64_t max_pieces,
				  struct gs_measures *out)
{
	struct measures_pass m;
	size_t n_ops;
	gs_status rc;

	memset(out, 0, sizeof(*out));
	memset(&m, 0, sizeof(m));
	out->device = device;
	out->window_start = window_start;
	out->window_end = window_end > window_start ? window_end : window_start;
	m.t = t;
	m.ops = gs_trace_ops(t, &n_ops);
	m.calls = gs_trace_api_calls(t, &m.n_calls);
	m.launch = launch;
	m.max_pieces = max_pieces ? max_pieces : GS_MEASURES_DEFAULT_MAX_PIECES;
	m.ws = out->window_start;
	m.we = out->window_end;
	rc = gs_device_op_ranges(t, device, &m.runs, &m.n_runs);
	if (rc != GS_OK)
		return rc;
	{
		size_t k = 0;

		for (size_t r = 0; r < m.n_runs; r++) {
			m.n_dev += m.runs[r].count;
			if (m.runs[r].count)
				m.runs[k++] = m.runs[r];
		}
		m.n_runs = k;
	}
	m.want_order = launch && (gs_trace_range_count(t, GS_RANGE_USER_ANNOTATION) ||
				  gs_trace_range_count(t, GS_RANGE_NVTX));
	rc = collect(&m, out);
	if (rc == GS_OK) {
		classes(&m, out);
		rc = queue(&m, out);
	}
	if (rc == GS_OK)
		rc = annotations(&m, out);
	free(m.runs);
	free(m.kv);
	free(m.qa); /* and m.qe */
	free(m.order);
	if (rc != GS_OK) {
		gs_measures_fini(out);
		gs_error_append("device %u: measures", device);
	}
	return rc;
}

void gs_measures_fini(struct gs_measures *m)
{
	free(m->annotations);
	free(m->delays);
	free(m->queue_series);
	free(m->copies);
	memset(m, 0, sizeof(*m));
}

unsigned gs_measures_kernel_row_class(const struct gs_trace *t, const struct gs_report_kernel *k)
{
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);

	if (k->first_op < n_ops && ops[k->first_op].kind == GS_OP_KERNEL)
		return gs_kernel_class_of(t, &ops[k->first_op]);
	return gs_kernel_class_of_name(gs_trace_string(t, k->name));
}
