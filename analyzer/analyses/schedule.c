/* SPDX-License-Identifier: MIT */
/*
 * Schedules and the pipelined_batches what-if (docs/design.md),
 * over the ops of one device.
 *
 * The op set: the ops of the device (all of them by default, or those that
 * start in the given window). The window start is the first op start (or
 * the window's start); actual_ns = last end - window start. An edge from
 * an op outside the set is a constraint met at that op's recorded end.
 *
 * One topological order serves every schedule: Kahn's algorithm with a
 * binary heap keyed by (actual start, op index). On a cycle (impossible in
 * a consistent trace) the waiting op with the smallest actual start has its
 * in-edges from ops not yet ordered dropped, and broken_cycles counts it;
 * afterwards an edge counts only when its producer comes first in the order.
 * When every edge goes forward in (actual start, op index) order, as in a
 * consistent trace, that order is the one Kahn's algorithm gives and is
 * taken as it is.
 *
 * - dependency bound: ASAP over all edges, no resource limit, no host cost:
 *   start = max(window start, producers' ends). The critical path walks back
 *   from the latest end through the producer that set each start (ties: the
 *   latest actual end; a producer in the set before an outside one).
 * - ideal: the same order list-scheduled on the device's resources: a copy
 *   of direction d takes the engine of d that frees first (start =
 *   max(ready, engine free)); engines of d = max(device copy engines, 1 if
 *   unknown, the most copies of d that ran at once in the trace), so the
 *   ideal never assumes fewer engines than the recording used; zero-length
 *   copies take no engine. Kernels hold a share of the device (kernel_model,
 *   occupancy.c) and start in the order, each when ready and when its share
 *   fits under the capacity (gs_sched_kernel_place). Memsets have no limit. When the
 *   actual run respects every edge, every op starts no later than it did
 *   (induction over the order: producers end no later, some engine is free
 *   by the actual start, else more than `engines` copies ran at once, and
 *   the share is free, see gs_sched_kernel_place).
 * - bound_by: among the previous op on the stream, each in-edge's producer,
 *   the launching call, and (copies) the moment the last busy engine of the
 *   direction freed, the latest time at or before the actual start; ties
 *   prefer edge kinds, then stream order, copy engine, host launch. The
 *   launching call counts at its end, or at its start when the op began
 *   while the call was still running (the host was the later party).
 * - pipelined_batches: each stream is cut into batches (a batch starts at a
 *   host-to-device copy that follows device work); stream_order edges into a
 *   batch start are dropped unless a data edge joins the same two ops, and
 *   so are sync_copy edges from pageable copies (the what-if assumes pinned
 *   memory and lists it as a precondition); every other edge is kept. The
 *   same order is list-scheduled on the same device as the ideal.
 *   NVTX ranges are not used to cut batches.
 *
 * Complexity: O((N + E) log N) for N ops and E edges: sorting the set,
 * Kahn's heap, the copy sweep (a sort of 2C endpoints), and the engine heaps
 * (O(log engines) per copy). Memory O(N + E).
 */
#include "analyzer_priv.h"
#include "schedule_priv.h"

#include <gpuscope/graph.h>
#include <gpuscope/schedule.h>
#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/window.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define NONE_LOCAL UINT32_MAX

/* What the passes need to know of an op without reading it again. */
#define SF_COPY 1u   /* a memcpy */
#define SF_ENGINE 2u /* a memcpy that takes an engine (uses_engine) */
#define SF_CUT 4u    /* gs_sched_batch_start: its stream_order edge is cut */
#define SF_BATCH 8u  /* begins a batch of the pipelined what-if */

const char *gs_constraint_name(unsigned c)
{
	static const char *const names[GS_BOUND_COUNT] = {
		"none",        "stream_order", "event", "default_stream", "host_sync", "sync_copy",
		"host_launch", "copy_engine",  "data"};

	return c < GS_BOUND_COUNT ? names[c] : "unknown";
}

struct sched {
	const struct gs_trace *t;
	const struct gs_graph *g;
	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_api_call *api;
	size_t n_api;
	int64_t w0;

	uint32_t *set; /* op indices of the schedule, ascending */
	size_t ns;
	/* The device's ops: op -> slot by its range (out->slot_ranges), slot
	 * -> set index (NONE_LOCAL outside the set), set index -> slot. Both
	 * NULL while every slot is in the set, in order (the usual case: the
	 * ranges are cut to the window already): then both are the identity
	 * (loc_of, slot_of). */
	uint32_t *set_of_slot;
	uint32_t *slot_of_set;
	bool share_is_slot; /* share is out->slot_share (the identity) */
	int64_t *start;     /* per set index: the op's actual start (then scratch) */
	uint8_t *flag;      /* per set index: SF_* (read once from the op) */
	const struct gs_schedule *out;
	uint32_t *order; /* set indices in topological order */
	/* Per set index: position in order; NULL when the order is by actual
	 * start and every edge inside the set goes forward in it (then no
	 * edge goes back in the order, and none needs looking up). */
	uint32_t *pos;
	int64_t *end;    /* per set index: end in the dependency bound */
	uint32_t *crit;  /* per set index: the producer that set the start */
	int64_t *full;   /* per set index (copies): last moment all engines were busy */
	uint32_t *share; /* per set index: the kernel's share (0: none) */
	void *scratch;   /* the copy events, then the kernels' (scratch_get) */
	size_t scratch_bytes;
	uint64_t cap; /* kernel capacity, GS_SHARE_UNIT units */
	uint32_t engines[GS_COPY_KIND_COUNT];
	uint32_t observed[GS_COPY_KIND_COUNT];
	uint32_t copies[GS_COPY_KIND_COUNT]; /* copies in the set that take an engine */
};

static void *alloc_array(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/*
 * Room for `bytes` that the one before no longer needs: the same memory
 * when it is large enough, so that the event lists touch their pages once (each would be a fresh mapping, faulted in page
 * by page, above malloc's mmap threshold). Not zeroed.
 */
static void *scratch_get(struct sched *s, size_t bytes)
{
	if (!bytes)
		bytes = 1;
	if (bytes > s->scratch_bytes) {
		free(s->scratch);
		s->scratch = malloc(bytes);
		s->scratch_bytes = s->scratch ? bytes : 0;
	}
	return s->scratch;
}

/* ---- a heap of set indices keyed by (actual start, op index) ---------- */

struct op_heap {
	uint32_t *a;
	size_t n;
	const struct sched *s;
};

static bool op_before(const struct sched *s, uint32_t x, uint32_t y)
{
	int64_t sx = s->start[x], sy = s->start[y];

	return sx != sy ? sx < sy : x < y;
}

static void op_heap_push(struct op_heap *h, uint32_t v)
{
	size_t i = h->n++;

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!op_before(h->s, v, h->a[p]))
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = v;
}

static uint32_t op_heap_pop(struct op_heap *h)
{
	uint32_t top = h->a[0], v = h->a[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && op_before(h->s, h->a[c + 1], h->a[c]))
			c++;
		if (!op_before(h->s, h->a[c], v))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = v;
	return top;
}

static unsigned copy_dir(const struct gs_op *op)
{
	return op->copy_kind < GS_COPY_KIND_COUNT ? op->copy_kind : GS_COPY_UNKNOWN;
}

static bool uses_engine(const struct gs_op *op)
{
	return op->kind == GS_OP_MEMCPY && op->end_ns > op->start_ns;
}

/* ---- the op set and its order ---------------------------------------- */

/* A set index with its actual start, for sorting by (start, op index). */
struct by_start {
	int64_t start;
	uint32_t v;
};

/* The set index of op `op` (NONE_LOCAL when it is not in the set): its
 * slot among the device's ops, O(log S_d) for S_d streams of the device. */
static uint32_t loc_of(const struct sched *s, uint32_t op)
{
	uint32_t k = gs_schedule_slot(s->out, op);

	if (k == GS_NO_INDEX)
		return NONE_LOCAL;
	return s->set_of_slot ? s->set_of_slot[k] : k;
}

/* The slot of set index v. */
static uint32_t slot_of(const struct sched *s, uint32_t v)
{
	return s->slot_of_set ? s->slot_of_set[v] : v;
}

/* Edge e into set index v: the producer's set index (NONE_LOCAL when it is
 * outside the set), or false when the edge does not count (self loop, bad
 * index, or dropped to break a cycle). */
static bool edge_source(const struct sched *s, const struct gs_edge *e, uint32_t v,
			uint32_t *from_local)
{
	uint32_t lf;

	if (e->from >= s->n_ops)
		return false;
	lf = loc_of(s, e->from);
	if (lf == v)
		return false;
	if (lf != NONE_LOCAL && s->pos && s->pos[lf] > s->pos[v])
		return false;
	*from_local = lf;
	return true;
}

static void in_edges(const struct sched *s, uint32_t op, size_t *lo, size_t *hi)
{
	*lo = s->g->in_first[op];
	*hi = s->g->in_first[op + 1];
	if (*hi > s->g->n_edges)
		*hi = s->g->n_edges;
	if (*lo > *hi)
		*lo = *hi;
}

/*
 * s->order is the set in (actual start, set index) order. When every edge
 * inside the set goes from an op earlier in that order to a later one (a
 * consistent trace: a producer starts before its consumers), it is the
 * order Kahn's algorithm below gives too: the first op left in that order
 * has all its producers ordered already, so it is ready, and it is the
 * smallest ready one. Then no heap is needed. Returns false when some edge
 * goes back. The positions are not needed for this: in that order, x comes
 * before y exactly when (start, set index) of x is the smaller.
 */
static bool start_order(const struct sched *s)
{
	for (uint32_t v = 0; v < s->ns; v++) {
		size_t lo, hi;

		in_edges(s, s->set[v], &lo, &hi);
		for (size_t i = lo; i < hi; i++) {
			uint32_t f = s->g->edges[i].from;

			uint32_t lf = f < s->n_ops ? loc_of(s, f) : NONE_LOCAL;

			if (lf == NONE_LOCAL || lf == v)
				continue;
			if (op_before(s, v, lf))
				return false;
		}
	}
	return true;
}

/* The stretches of s->start that do not go down (each stream's ops come
 * by start: about one a stream), counted up to GS_KMERGE_MAX_RUNS + 1. */
static size_t start_runs(const struct sched *s)
{
	size_t runs = s->ns ? 1 : 0;

	for (uint32_t v = 1; v < s->ns && runs <= GS_KMERGE_MAX_RUNS; v++)
		runs += s->start[v] < s->start[v - 1];
	return runs;
}

/*
 * s->order by (actual start, set index). With few runs a merge reads
 * s->start in place (on equal starts the earlier run, the smaller index,
 * first: the stable sort's order) and nothing is allocated; else the
 * (start, index) pairs are sorted, as gs_kmerge would sort s->start in
 * place, which the schedules still need.
 */
static gs_status by_start_order(struct sched *s)
{
	size_t ns = s->ns;
	struct by_start *by_start;

	if (start_runs(s) <= GS_KMERGE_MAX_RUNS) {
		struct gs_kmerge km;
		const int64_t *e;
		uint32_t k = 0;

		gs_kmerge_init_i64(&km, s->start, ns, sizeof(*s->start));
		while ((e = gs_kmerge_next(&km)))
			s->order[k++] = (uint32_t)(e - s->start);
		return GS_OK;
	}
	by_start = alloc_array(ns, sizeof(struct by_start));
	if (!by_start)
		return gs_nomem();
	/* Set indices ascend with op indices: by start alone is (start, v). */
	for (uint32_t v = 0; v < ns; v++)
		by_start[v] = (struct by_start){.start = s->start[v], .v = v};
	gs_sort_by_i64(by_start, ns, sizeof(*by_start));
	for (uint32_t k = 0; k < ns; k++)
		s->order[k] = by_start[k].v;
	free(by_start);
	return GS_OK;
}

static gs_status topo_order(struct sched *s, uint64_t *broken)
{
	size_t ns = s->ns, i, k, cursor = 0, n_out = 0;
	uint32_t *by_start = NULL; /* the set indices by (start, index) */
	uint32_t *indeg = NULL;
	size_t *out_first = NULL;
	uint8_t *state = NULL; /* 0 waiting, 1 queued, 2 done */
	uint32_t *out_to = NULL;
	struct op_heap h = {.a = NULL, .n = 0, .s = s};
	gs_status st = by_start_order(s);

	if (st || start_order(s))
		return st;
	s->pos = malloc((ns ? ns : 1) * sizeof(uint32_t));
	by_start = alloc_array(ns, sizeof(uint32_t));
	indeg = alloc_array(ns, sizeof(uint32_t));
	out_first = alloc_array(ns + 1, sizeof(size_t));
	state = alloc_array(ns, 1);
	h.a = alloc_array(ns, sizeof(uint32_t));
	if (!s->pos || !by_start || !indeg || !out_first || !state || !h.a) {
		st = gs_nomem();
		goto out;
	}
	memcpy(by_start, s->order, ns * sizeof(*by_start));
	/* Out-adjacency inside the set (a CSR built from the in-edges). */
	for (uint32_t v = 0; v < ns; v++) {
		size_t lo, hi;

		in_edges(s, s->set[v], &lo, &hi);
		for (i = lo; i < hi; i++) {
			uint32_t f = s->g->edges[i].from;
			uint32_t lf = f < s->n_ops ? loc_of(s, f) : NONE_LOCAL;

			if (lf == NONE_LOCAL || lf == v)
				continue;
			out_first[lf + 1]++;
			indeg[v]++;
			n_out++;
		}
	}
	for (i = 0; i < ns; i++)
		out_first[i + 1] += out_first[i];
	out_to = alloc_array(n_out, sizeof(uint32_t));
	if (!out_to) {
		st = gs_nomem();
		goto out;
	}
	for (uint32_t v = 0; v < ns; v++) {
		size_t lo, hi;

		in_edges(s, s->set[v], &lo, &hi);
		for (i = lo; i < hi; i++) {
			uint32_t f = s->g->edges[i].from;
			uint32_t lf = f < s->n_ops ? loc_of(s, f) : NONE_LOCAL;

			if (lf == NONE_LOCAL || lf == v)
				continue;
			/* out_first[lf] is advanced as a fill cursor, restored below. */
			out_to[out_first[lf]++] = v;
		}
	}
	for (i = ns; i > 0; i--)
		out_first[i] = out_first[i - 1];
	out_first[0] = 0;

	for (uint32_t v = 0; v < ns; v++) {
		if (!indeg[v]) {
			op_heap_push(&h, v);
			state[v] = 1;
		}
	}
	for (k = 0; k < ns; k++) {
		uint32_t u;

		if (!h.n) {
			/* A cycle: free the waiting op that started first. */
			while (cursor < ns && state[by_start[cursor]])
				cursor++;
			if (cursor == ns) {
				gs_error_append(
					"schedule: internal error in the topological order");
				st = GS_ERR_INVALID;
				goto out;
			}
			state[by_start[cursor]] = 1;
			op_heap_push(&h, by_start[cursor]);
			(*broken)++;
		}
		u = op_heap_pop(&h);
		state[u] = 2;
		s->order[k] = u;
		s->pos[u] = (uint32_t)k;
		for (i = out_first[u]; i < out_first[u + 1]; i++) {
			uint32_t w = out_to[i];

			if (state[w] == 0 && --indeg[w] == 0) {
				state[w] = 1;
				op_heap_push(&h, w);
			}
		}
	}
out:
	free(indeg);
	free(out_first);
	free(out_to);
	free(by_start);
	free(state);
	free(h.a);
	return st;
}

/* ---- copy engines observed, and when each copy's engines were full ---- */

struct copy_ev {
	int64_t t;
	uint32_t v;   /* set index */
	uint8_t type; /* 0 end, 1 start of a zero-length copy, 2 start */
};

static int cmp_copy_ev(const void *pa, const void *pb)
{
	const struct copy_ev *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	return a->v < b->v ? -1 : a->v > b->v;
}

static gs_status copy_sweep(struct sched *s, uint32_t base_engines)
{
	size_t n_ev = 0, i;
	struct copy_ev *ev;
	uint32_t count[GS_COPY_KIND_COUNT] = {0};
	int64_t last_full[GS_COPY_KIND_COUNT];

	for (uint32_t v = 0; v < s->ns; v++) {
		s->full[v] = INT64_MIN;
		if (s->flag[v] & SF_COPY)
			n_ev += s->flag[v] & SF_ENGINE ? 2 : 1;
	}
	ev = scratch_get(s, n_ev * sizeof(*ev));
	if (!ev)
		return gs_nomem();
	n_ev = 0;
	for (uint32_t v = 0; v < s->ns; v++) {
		const struct gs_op *op;

		if (!(s->flag[v] & SF_COPY))
			continue;
		op = &s->ops[s->set[v]];
		if (uses_engine(op)) {
			ev[n_ev++] = (struct copy_ev){.t = op->start_ns, .v = v, .type = 2};
			ev[n_ev++] = (struct copy_ev){.t = op->end_ns, .v = v, .type = 0};
		} else {
			ev[n_ev++] = (struct copy_ev){.t = op->start_ns, .v = v, .type = 1};
		}
	}
	gs_sort(ev, n_ev, sizeof(*ev), cmp_copy_ev);

	/* Pass 1: the most copies of each direction running at once. */
	memset(s->copies, 0, sizeof(s->copies));
	for (i = 0; i < n_ev; i++) {
		unsigned d = copy_dir(&s->ops[s->set[ev[i].v]]);

		if (ev[i].type == 0) {
			count[d]--;
		} else if (ev[i].type == 2) {
			s->copies[d]++;
			count[d]++;
			if (count[d] > s->observed[d])
				s->observed[d] = count[d];
		}
	}
	for (unsigned d = 0; d < GS_COPY_KIND_COUNT; d++) {
		s->engines[d] = s->observed[d] > base_engines ? s->observed[d] : base_engines;
		last_full[d] = INT64_MIN;
		count[d] = 0;
	}
	/* Pass 2: for each copy, the last moment before its start when every
	 * engine of its direction was busy (the copy that freed one ended). */
	for (i = 0; i < n_ev; i++) {
		unsigned d = copy_dir(&s->ops[s->set[ev[i].v]]);

		if (ev[i].type == 0) {
			if (count[d] >= s->engines[d] && count[d] - 1 < s->engines[d])
				last_full[d] = ev[i].t;
			count[d]--;
		} else {
			s->full[ev[i].v] = last_full[d];
			if (ev[i].type == 2)
				count[d]++;
		}
	}
	return GS_OK;
}

/* ---- the kernels' shares and the capacity ---------------------------- */

/* A kernel's start (type 1) or end (type 0) in the recorded run. */
struct kernel_ev {
	int64_t t;
	uint32_t v;
	uint8_t type;
};

static int cmp_kernel_ev(const void *pa, const void *pb)
{
	const struct kernel_ev *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1; /* ends first: back to back is not at once */
	return a->v < b->v ? -1 : a->v > b->v;
}

static bool takes_share(const struct gs_op *op)
{
	return op->kind == GS_OP_KERNEL && op->end_ns > op->start_ns;
}

/* recorded_peaks' way when some stream's kernels overlapped in the
 * recorded run: every kernel's start and end, sorted. */
static gs_status recorded_peaks_sorted(struct sched *s, uint32_t *at_once, uint64_t *peak)
{
	size_t n_ev = 0, i;
	struct kernel_ev *ev;
	uint32_t count = 0, unknown_share;
	uint64_t used = 0;

	for (uint32_t v = 0; v < s->ns; v++)
		n_ev += takes_share(&s->ops[s->set[v]]) ? 2 : 0;
	ev = scratch_get(s, n_ev * sizeof(*ev));
	if (!ev)
		return gs_nomem();
	n_ev = 0;
	for (uint32_t v = 0; v < s->ns; v++) {
		const struct gs_op *op = &s->ops[s->set[v]];

		if (!takes_share(op))
			continue;
		ev[n_ev++] = (struct kernel_ev){.t = op->start_ns, .v = v, .type = 1};
		ev[n_ev++] = (struct kernel_ev){.t = op->end_ns, .v = v, .type = 0};
	}
	gs_sort(ev, n_ev, sizeof(*ev), cmp_kernel_ev);
	for (i = 0; i < n_ev; i++) {
		if (ev[i].type == 0) {
			count--;
		} else if (++count > *at_once) {
			*at_once = count;
		}
	}
	unknown_share = *at_once ? GS_SHARE_UNIT / *at_once : GS_SHARE_UNIT;
	if (!unknown_share)
		unknown_share = 1;
	for (uint32_t v = 0; v < s->ns; v++)
		if (!s->share[v] && takes_share(&s->ops[s->set[v]]))
			s->share[v] = unknown_share;
	for (i = 0; i < n_ev; i++) {
		if (ev[i].type == 0) {
			used -= s->share[ev[i].v];
		} else {
			used += s->share[ev[i].v];
			if (used > *peak)
				*peak = used;
		}
	}
	return GS_OK;
}

/*
 * The recorded run's kernels read in (time, ends first) order without
 * sorting them: each stream's kernels (a run of the set: the set is in
 * slot order, a stream's ops together) start and end one after another
 * in the recorded run, so a heap of one entry a stream merges them. The
 * order within equal (time, kind) does not change the counts' maxima
 * below, which are reached after the last start at an instant.
 */
struct kernel_run {
	int64_t t;     /* the next event's time */
	uint32_t v;    /* the kernel (set index) */
	uint32_t last; /* the run's end (set index, exclusive) */
	bool at_end;   /* the next event is v's end */
};

static uint32_t next_share_kernel(const struct sched *s, uint32_t v, uint32_t last)
{
	while (v < last && !takes_share(&s->ops[s->set[v]]))
		v++;
	return v;
}

/* The streams' runs, each at its first kernel; *in_order false (and no
 * runs) when some stream's kernels overlapped in the recorded run. */
static gs_status kernel_runs(const struct sched *s, struct kernel_run **out, size_t *n_out,
			     bool *in_order)
{
	size_t nr = 0, n = 0;
	struct kernel_run *runs;

	*out = NULL;
	*n_out = 0;
	*in_order = true;
	for (uint32_t v = 0; v < s->ns; v++)
		nr += !v || s->ops[s->set[v]].stream != s->ops[s->set[v - 1]].stream;
	runs = malloc((nr ? nr : 1) * sizeof(*runs));
	if (!runs)
		return gs_nomem();
	for (uint32_t a = 0, b; a < s->ns; a = b) {
		uint32_t stream = s->ops[s->set[a]].stream, k;
		bool any = false;
		int64_t last_end = 0;

		for (b = a + 1; b < s->ns && s->ops[s->set[b]].stream == stream; b++)
			;
		for (k = next_share_kernel(s, a, b); k < b; k = next_share_kernel(s, k + 1, b)) {
			const struct gs_op *op = &s->ops[s->set[k]];

			if (any && op->start_ns < last_end) {
				free(runs);
				*in_order = false;
				return GS_OK;
			}
			last_end = op->end_ns;
			any = true;
		}
		k = next_share_kernel(s, a, b);
		if (k < b)
			runs[n++] = (struct kernel_run){.t = s->ops[s->set[k]].start_ns,
							.v = k,
							.last = b};
	}
	*out = runs;
	*n_out = n;
	return GS_OK;
}

static bool kernel_run_before(const void *pa, const void *pb)
{
	const struct kernel_run *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t;
	return a->at_end && !b->at_end; /* ends first */
}

static void kernel_heap_down(struct kernel_run *h, size_t n, size_t i)
{
	gs_heap_sift_down(h, n, i, sizeof(*h), kernel_run_before);
}

/* One merge of the runs (copied into h): the most kernels at once, or
 * with shares (s->share set) the busiest instant's sum of shares. */
static void kernel_merge(const struct sched *s, const struct kernel_run *runs, size_t n,
			 struct kernel_run *h, bool shares, uint64_t *peak)
{
	uint64_t used = 0;

	memcpy(h, runs, n * sizeof(*h));
	for (size_t i = n / 2; i-- > 0;)
		kernel_heap_down(h, n, i);
	while (n) {
		struct kernel_run *top = &h[0];
		uint64_t w = shares ? s->share[top->v] : 1;

		if (top->at_end) {
			used -= w;
			top->v = next_share_kernel(s, top->v + 1, top->last);
			if (top->v == top->last) {
				h[0] = h[--n];
			} else {
				top->at_end = false;
				top->t = s->ops[s->set[top->v]].start_ns;
			}
		} else {
			used += w;
			if (used > *peak)
				*peak = used;
			top->at_end = true;
			top->t = s->ops[s->set[top->v]].end_ns;
		}
		kernel_heap_down(h, n, 0);
	}
}

/* The most kernels at once in the recorded run, then the unknown shares
 * (1/K), then the busiest instant's sum of shares: by the merge, else by
 * every event sorted. */
static gs_status recorded_peaks(struct sched *s, uint32_t *at_once, uint64_t *peak)
{
	struct kernel_run *runs = NULL, *h = NULL;
	size_t n_runs = 0;
	bool in_order;
	uint64_t most = 0;
	uint32_t unknown_share;
	gs_status st = kernel_runs(s, &runs, &n_runs, &in_order);

	if (st)
		return st;
	if (!in_order)
		return recorded_peaks_sorted(s, at_once, peak);
	h = malloc((n_runs ? n_runs : 1) * sizeof(*h));
	if (!h) {
		free(runs);
		return gs_nomem();
	}
	kernel_merge(s, runs, n_runs, h, false, &most);
	*at_once = (uint32_t)most;
	unknown_share = *at_once ? GS_SHARE_UNIT / *at_once : GS_SHARE_UNIT;
	if (!unknown_share)
		unknown_share = 1;
	for (uint32_t v = 0; v < s->ns; v++)
		if (!s->share[v] && takes_share(&s->ops[s->set[v]]))
			s->share[v] = unknown_share;
	kernel_merge(s, runs, n_runs, h, true, peak);
	free(runs);
	free(h);
	return GS_OK;
}

/*
 * Each kernel's share (occupancy.c where the launch configuration and the
 * device tell it, else 1/K for K the most kernels the recorded run had at
 * once), and the capacity: the whole device, or the recorded run's busiest
 * instant when its shares added up to more.
 */
static gs_status kernel_model(struct sched *s, struct gs_schedule *out, uint32_t device)
{
	const struct gs_device *dev = gs_trace_device(s->t, device);
	bool known = gs_sched_device_known(dev);
	uint32_t at_once = 0;
	uint64_t peak = 0;
	gs_status st;

	for (uint32_t v = 0; v < s->ns; v++) {
		const struct gs_op *op = &s->ops[s->set[v]];

		s->share[v] = 0;
		if (!takes_share(op))
			continue;
		if (known)
			s->share[v] = gs_sched_kernel_share(dev, gs_trace_op_launch_cfg(s->t, op));
		if (s->share[v])
			out->kernels_by_occupancy++;
		else
			out->kernels_as_recorded++;
	}
	st = recorded_peaks(s, &at_once, &peak);
	if (st)
		return st;
	s->cap = peak > GS_SHARE_UNIT ? peak : GS_SHARE_UNIT;
	out->kernel_capacity = s->cap;
	out->recorded_peak_share = peak;
	out->recorded_kernels_at_once = at_once;
	if (!out->kernels_by_occupancy && !out->kernels_as_recorded)
		out->ideal_rule = GS_IDEAL_NO_KERNELS;
	else if (!out->kernels_as_recorded)
		out->ideal_rule = GS_IDEAL_OCCUPANCY;
	else if (!out->kernels_by_occupancy)
		out->ideal_rule = GS_IDEAL_AS_RECORDED;
	else
		out->ideal_rule = GS_IDEAL_MIXED;
	for (uint32_t v = 0; v < s->ns && !s->share_is_slot; v++)
		out->slot_share[s->slot_of_set[v]] = s->share[v];
	return GS_OK;
}

/* ---- the schedules ----------------------------------------------------- */

static gs_status critical_path(struct sched *s, struct gs_schedule *out)
{
	uint32_t best = NONE_LOCAL, v;
	size_t n = 0, i;

	for (v = 0; v < s->ns; v++) {
		if (best == NONE_LOCAL || s->end[v] > s->end[best] ||
		    (s->end[v] == s->end[best] &&
		     s->ops[s->set[v]].end_ns >= s->ops[s->set[best]].end_ns))
			best = v;
	}
	if (best == NONE_LOCAL)
		return GS_OK;
	for (v = best; v != NONE_LOCAL; v = s->crit[v])
		n++;
	out->critical_path = malloc(n * sizeof(*out->critical_path));
	if (!out->critical_path)
		return gs_nomem();
	out->n_critical = n;
	i = n;
	for (v = best; v != NONE_LOCAL; v = s->crit[v]) {
		uint32_t o = s->set[v];

		out->critical_path[--i] = o;
		if (s->crit[v] == NONE_LOCAL)
			out->critical_lead_ns = s->end[v] - gs_schedule_op_ns(&s->ops[o]) - s->w0;
	}
	return GS_OK;
}

/* Whether the stream_order edge at index i (into a batch start) is
 * justified by a data edge between the same two ops. Edges are sorted by
 * (to, from, kind), so that edge follows it. */
static bool data_justified(const struct sched *s, size_t i, size_t hi)
{
	const struct gs_edge *e = &s->g->edges[i];

	for (size_t j = i + 1; j < hi && s->g->edges[j].from == e->from; j++)
		if (s->g->edges[j].kind == GS_EDGE_DATA)
			return true;
	return false;
}

static void pipelined_preconditions(const struct sched *s, struct gs_what_if *w)
{
	bool pageable = false, unknown = false;

	for (size_t v = 0; v < s->ns; v++) {
		const struct gs_op *op;
		uint8_t mem;

		if (!(s->flag[v] & SF_COPY))
			continue;
		op = &s->ops[s->set[v]];
		if (op->copy_kind != GS_COPY_HTOD && op->copy_kind != GS_COPY_DTOH)
			continue;
		mem = gs_sched_host_mem(op);
		if (mem == GS_MEM_PAGEABLE)
			pageable = true;
		else if (mem == GS_MEM_UNKNOWN)
			unknown = true;
	}
	if (pageable)
		w->preconditions[w->n_preconditions++] = "pinned_memory";
	else if (unknown)
		w->preconditions[w->n_preconditions++] = "pinned_memory (unverified)";
}

/*
 * The three schedules in one walk of the order (each reads the in-edges
 * once instead of once per schedule; they do not depend on each other):
 * - dependency bound: ASAP over all edges; fills s->end and s->crit;
 * - ideal: the same order with copy engines; fills ideal_start;
 * - pipelined_batches: see the top of the file; fills pipelined_start.
 * The ideal and pipelined ends of the ops placed so far, which the
 * producers' edges read, are held where their starts go (by slot), and
 * turned into starts after the walk: no per-op array of ends for either.
 */
static gs_status schedules(struct sched *s, struct gs_schedule *out)
{
	struct gs_copy_engines e_id = {0}, e_pl = {0};
	struct gs_kernel_lane k_id = {.last = s->w0}, k_pl = {.last = s->w0};
	struct gs_what_if *w = &out->pipelined;
	int64_t last_db = s->w0, last_id = s->w0, last_pl = s->w0;
	int64_t *end_id = out->slot_ideal_start, *end_pl = out->slot_pipelined_start;
	gs_status st = gs_sched_engines_init(&e_id, s->engines, s->copies, s->w0);

	if (!st)
		st = gs_sched_engines_init(&e_pl, s->engines, s->copies, s->w0);
	if (!st) {
		k_id.run = alloc_array(s->ns, sizeof(*k_id.run));
		k_pl.run = alloc_array(s->ns, sizeof(*k_pl.run));
		if (!k_id.run || !k_pl.run)
			st = gs_nomem();
	}
	if (st)
		goto out;
	w->name = "pipelined_batches";
	for (size_t v = 0; v < s->ns; v++)
		w->batches += (s->flag[v] & SF_BATCH) != 0;
	for (size_t k = 0; k < s->ns; k++) {
		uint32_t v = s->order[k], o = s->set[v], bp = NONE_LOCAL, ks;
		const struct gs_op *op = &s->ops[o];
		int64_t best = s->w0, ready_id = s->w0, ready_pl = s->w0, start,
			dur = gs_schedule_op_ns(op);
		bool cut = s->flag[v] & SF_CUT;
		size_t lo, hi, i;

		in_edges(s, o, &lo, &hi);
		for (i = lo; i < hi; i++) {
			const struct gs_edge *ed = &s->g->edges[i];
			uint32_t lf;
			int64_t t_db, t_id, t_pl;

			if (!edge_source(s, ed, v, &lf))
				continue;
			if (lf == NONE_LOCAL) {
				t_db = t_id = t_pl = s->ops[ed->from].end_ns;
				if (t_db > best) {
					best = t_db;
					bp = NONE_LOCAL;
				}
			} else {
				uint32_t kf = slot_of(s, lf);

				t_db = s->end[lf];
				t_id = end_id[kf];
				t_pl = end_pl[kf];
				if (t_db > best ||
				    (t_db == best &&
				     (bp == NONE_LOCAL ||
				      s->ops[s->set[lf]].end_ns > s->ops[s->set[bp]].end_ns))) {
					best = t_db;
					bp = lf;
				}
			}
			if (t_id > ready_id)
				ready_id = t_id;
			if (cut && ed->kind == GS_EDGE_STREAM_ORDER && !data_justified(s, i, hi))
				continue;
			if (gs_sched_pageable_sync(s->ops, ed))
				continue;
			if (t_pl > ready_pl)
				ready_pl = t_pl;
		}
		/* Dependency bound. */
		s->crit[v] = bp;
		s->end[v] = best + dur;
		if (s->end[v] > last_db)
			last_db = s->end[v];
		/* Ideal. */
		ks = slot_of(s, v);
		if (uses_engine(op))
			start = gs_sched_engines_take(&e_id, copy_dir(op), ready_id, dur);
		else
			start = gs_sched_kernel_place(&k_id, s->cap, ready_id, dur, s->share[v]);
		end_id[ks] = start + dur;
		if (end_id[ks] > last_id)
			last_id = end_id[ks];
		/* Pipelined batches: the same device. */
		if (uses_engine(op))
			start = gs_sched_engines_take(&e_pl, copy_dir(op), ready_pl, dur);
		else
			start = gs_sched_kernel_place(&k_pl, s->cap, ready_pl, dur, s->share[v]);
		end_pl[ks] = start + dur;
		if (end_pl[ks] > last_pl)
			last_pl = end_pl[ks];
	}
	/* The ends, back to starts (the same sums undone). */
	for (uint32_t v = 0; v < s->ns; v++) {
		uint32_t k = slot_of(s, v);
		int64_t dur = gs_schedule_op_ns(&s->ops[s->set[v]]);

		end_id[k] -= dur;
		end_pl[k] -= dur;
	}
	out->dependency_bound_ns = last_db - s->w0;
	out->ideal_ns = last_id - s->w0;
	w->makespan_ns = last_pl - s->w0;
	w->saving_ns = out->actual_ns - w->makespan_ns;
	w->saving_vs_ideal_ns = out->ideal_ns - w->makespan_ns;
	pipelined_preconditions(s, w);
out:
	free(e_id.free);
	free(e_pl.free);
	free(k_id.run);
	free(k_pl.run);
	return st;
}

/* ---- what bound each actual start -------------------------------------- */

static unsigned edge_constraint(uint8_t kind)
{
	switch (kind) {
	case GS_EDGE_STREAM_ORDER:
		return GS_BOUND_STREAM_ORDER;
	case GS_EDGE_EVENT:
		return GS_BOUND_EVENT;
	case GS_EDGE_DEFAULT_STREAM:
		return GS_BOUND_DEFAULT_STREAM;
	case GS_EDGE_HOST_SYNC:
		return GS_BOUND_HOST_SYNC;
	case GS_EDGE_SYNC_COPY:
		return GS_BOUND_SYNC_COPY;
	case GS_EDGE_DATA:
		return GS_BOUND_DATA;
	default:
		return GS_BOUND_NONE;
	}
}

/* Tie order: edge kinds first, then stream order, copy engine, launch. */
static unsigned constraint_rank(unsigned c)
{
	static const unsigned char rank[GS_BOUND_COUNT] = {
		[GS_BOUND_NONE] = 99,        [GS_BOUND_STREAM_ORDER] = 10,
		[GS_BOUND_EVENT] = 0,        [GS_BOUND_DEFAULT_STREAM] = 1,
		[GS_BOUND_HOST_SYNC] = 2,    [GS_BOUND_SYNC_COPY] = 3,
		[GS_BOUND_HOST_LAUNCH] = 12, [GS_BOUND_COPY_ENGINE] = 11,
		[GS_BOUND_DATA] = 4,
	};

	return c < GS_BOUND_COUNT ? rank[c] : 99;
}

struct bound_pick {
	int64_t limit;
	int64_t t;
	unsigned c;
};

static void consider(struct bound_pick *p, int64_t t, unsigned c)
{
	if (t > p->limit || c == GS_BOUND_NONE)
		return;
	if (p->c == GS_BOUND_NONE || t > p->t ||
	    (t == p->t && constraint_rank(c) < constraint_rank(p->c))) {
		p->t = t;
		p->c = c;
	}
}

static void bound_by(const struct sched *s, struct gs_schedule *out)
{
	for (uint32_t v = 0; v < s->ns; v++) {
		uint32_t o = s->set[v], l;
		const struct gs_op *op = &s->ops[o];
		struct bound_pick p = {.limit = op->start_ns, .t = INT64_MIN, .c = GS_BOUND_NONE};
		size_t lo, hi, i;

		if (o > 0 && s->ops[o - 1].stream == op->stream)
			consider(&p, s->ops[o - 1].end_ns, GS_BOUND_STREAM_ORDER);
		in_edges(s, o, &lo, &hi);
		for (i = lo; i < hi; i++) {
			const struct gs_edge *e = &s->g->edges[i];

			if (e->from < s->n_ops && e->from != o)
				consider(&p, s->ops[e->from].end_ns, edge_constraint(e->kind));
		}
		l = s->g->launch ? s->g->launch[o] : GS_NO_INDEX;
		if (l < s->n_api) {
			const struct gs_api_call *c = &s->api[l];

			if (c->end_ns <= op->start_ns)
				consider(&p, c->end_ns, GS_BOUND_HOST_LAUNCH);
			else
				consider(&p, c->start_ns, GS_BOUND_HOST_LAUNCH);
		}
		if (op->kind == GS_OP_MEMCPY && s->full[v] != INT64_MIN)
			consider(&p, s->full[v], GS_BOUND_COPY_ENGINE);
		out->slot_bound_by[slot_of(s, v)] = (uint8_t)p.c;
	}
}

/*
 * The list schedule came out longer than the recorded run: possible only
 * when the recorded run broke an edge (clocks of two devices that
 * disagree, a wait joined to the wrong record) or cycles were broken. The
 * recorded run is a feasible schedule of the device, so it is the ideal.
 */
static void ideal_is_recorded(const struct sched *s, struct gs_schedule *out)
{
	for (uint32_t v = 0; v < s->ns; v++) {
		uint32_t k = slot_of(s, v);

		out->slot_ideal_start[k] = s->ops[s->set[v]].start_ns;
	}
	out->ideal_ns = out->actual_ns;
	out->ideal_is_recorded = true;
}

/* ---- entry points ------------------------------------------------------- */

static uint32_t device_copy_engines(const struct gs_trace *t, uint32_t device)
{
	const struct gs_device *d = gs_trace_device(t, device); /* ids are unique */

	return d && d->copy_engines ? d->copy_engines : 1;
}

static gs_status check_graph(const struct gs_graph *g, size_t n_ops)
{
	if (g->n_ops != n_ops || !g->in_first || (g->n_edges && !g->edges)) {
		gs_error_append("schedule: the dependency graph does not match the trace "
				"(%zu ops in the graph, %zu in the trace)",
				g->n_ops, n_ops);
		return GS_ERR_INVALID;
	}
	return GS_OK;
}

/* The first slot outside the set, k: the maps, the identity until k. */
static gs_status maps_begin(struct sched *s, size_t n_dev, size_t k)
{
	s->set_of_slot = malloc(n_dev * sizeof(*s->set_of_slot));
	s->slot_of_set = malloc(n_dev * sizeof(*s->slot_of_set));
	if (!s->set_of_slot || !s->slot_of_set)
		return gs_nomem();
	for (size_t j = 0; j < k; j++)
		s->set_of_slot[j] = s->slot_of_set[j] = (uint32_t)j;
	return GS_OK;
}

static gs_status select_ops(struct sched *s, uint32_t device, const struct gs_window *win,
			    struct gs_schedule *out)
{
	bool wset = win && win->set;
	int64_t first = 0, last = 0;
	struct gs_op_range *ranges;
	size_t n_ranges, n_dev = 0;
	gs_status st;

	if (wset && win->end_ns < win->start_ns) {
		gs_error_append("schedule: window ends (%lld) before it starts (%lld)",
				(long long)win->end_ns, (long long)win->start_ns);
		return GS_ERR_INVALID;
	}
	st = gs_device_op_ranges(s->t, device, &ranges, &n_ranges);
	if (st)
		return st;
	/* With a window, each stream's ops starting in it (a stream's ops
	 * come by start): the slots, and the cost, are the window's. */
	if (wset) {
		size_t kept = 0;

		for (size_t r = 0; r < n_ranges; r++) {
			size_t a = gs_op_range_first_at(s->ops, ranges[r], win->start_ns);
			size_t b = gs_op_range_first_at(s->ops, ranges[r], win->end_ns);

			if (b > a)
				ranges[kept++] = (struct gs_op_range){.first = a, .count = b - a};
		}
		n_ranges = kept;
	}
	out->slot_ranges = alloc_array(n_ranges, sizeof(*out->slot_ranges));
	if (!out->slot_ranges) {
		free(ranges);
		return gs_nomem();
	}
	for (size_t r = 0; r < n_ranges; r++) {
		out->slot_ranges[r] = (struct gs_schedule_range){.first = ranges[r].first,
								 .count = ranges[r].count,
								 .slot = n_dev};
		n_dev += ranges[r].count;
	}
	out->n_slot_ranges = n_ranges;
	out->n_slots = n_dev;
	s->set = alloc_array(n_dev, sizeof(*s->set));
	s->start = alloc_array(n_dev, sizeof(*s->start));
	s->flag = alloc_array(n_dev, sizeof(*s->flag));
	if (!s->set || !s->start || !s->flag) {
		free(ranges);
		return gs_nomem();
	}
	for (size_t r = 0, k = 0; r < n_ranges; r++) {
		bool prev_in = false; /* the op before on the stream is in the set */

		for (size_t i = ranges[r].first; i < ranges[r].first + ranges[r].count; i++, k++) {
			const struct gs_op *op = &s->ops[i];
			unsigned f = 0;

			if (!gs_sched_in_window(op, wset, wset ? win->start_ns : 0,
						wset ? win->end_ns : 0)) {
				if (!s->set_of_slot && maps_begin(s, n_dev, k) != GS_OK) {
					free(ranges);
					return gs_nomem();
				}
				s->set_of_slot[k] = NONE_LOCAL;
				prev_in = false;
				continue;
			}
			if (!s->ns || op->start_ns < first)
				first = op->start_ns;
			if (!s->ns || op->end_ns > last)
				last = op->end_ns;
			if (op->kind == GS_OP_MEMCPY)
				f |= SF_COPY;
			if (uses_engine(op))
				f |= SF_ENGINE;
			if (gs_sched_batch_start(s->ops, i))
				f |= SF_CUT;
			/* A batch starts at the first op of a stream in the set and
			 * at each host-to-device copy after device work. */
			if (i == 0 || s->ops[i - 1].stream != op->stream || !prev_in ||
			    (f & SF_CUT))
				f |= SF_BATCH;
			prev_in = true;
			s->set[s->ns] = (uint32_t)i;
			s->start[s->ns] = op->start_ns;
			s->flag[s->ns] = (uint8_t)f;
			if (s->set_of_slot) {
				s->slot_of_set[s->ns] = (uint32_t)k;
				s->set_of_slot[k] = (uint32_t)s->ns;
			}
			s->ns++;
		}
	}
	free(ranges);
	out->window_set = wset;
	out->window_start = wset ? win->start_ns : first;
	out->window_end = wset ? win->end_ns : last;
	s->w0 = out->window_start;
	out->n_scheduled = s->ns;
	out->actual_ns = s->ns && last > s->w0 ? last - s->w0 : 0;
	return GS_OK;
}

/* What nothing reads after the schedules and the bounds. */
static void free_unread(struct sched *s)
{
	free(s->start);
	free(s->flag);
	free(s->order);
	free(s->pos);
	free(s->full);
	free(s->share_is_slot ? NULL : s->share);
	free(s->scratch);
	s->start = s->full = NULL;
	s->flag = NULL;
	s->order = s->pos = s->share = NULL;
	s->scratch = NULL;
	s->scratch_bytes = 0;
}

static gs_status schedule_run(struct sched *s, uint32_t device, const struct gs_window *win,
			      struct gs_schedule *out)
{
	gs_status st = select_ops(s, device, win, out);

	if (st)
		return st;
	/* Per op of the device (0 outside the set), not per op of the trace:
	 * with many devices, each costs its own ops. */
	out->slot_ideal_start = alloc_array(out->n_slots, sizeof(int64_t));
	out->slot_bound_by = alloc_array(out->n_slots, 1);
	out->slot_pipelined_start = alloc_array(out->n_slots, sizeof(int64_t));
	out->slot_share = alloc_array(out->n_slots, sizeof(uint32_t));
	/* Every entry of these is written before it is read. */
	s->order = malloc((s->ns ? s->ns : 1) * sizeof(uint32_t));
	s->end = malloc((s->ns ? s->ns : 1) * sizeof(int64_t));
	s->crit = malloc((s->ns ? s->ns : 1) * sizeof(uint32_t));
	s->full = malloc((s->ns ? s->ns : 1) * sizeof(int64_t));
	/* With every slot in the set, the shares by set index are the slots'. */
	s->share_is_slot = !s->slot_of_set;
	s->share = s->share_is_slot ? out->slot_share :
				      malloc((s->ns ? s->ns : 1) * sizeof(uint32_t));
	if (!out->slot_ideal_start || !out->slot_bound_by || !out->slot_pipelined_start ||
	    !out->slot_share || !s->order || !s->end || !s->crit || !s->full || !s->share)
		return gs_nomem();
	st = topo_order(s, &out->broken_cycles);
	/* Each per-op array goes once nothing after reads it, so that the
	 * schedules' walk, which holds the most, holds no more than it reads:
	 * the actual starts served the order; the moments the engines were
	 * full, the bounds (which read nothing the schedules write). */
	free(s->start);
	s->start = NULL;
	if (!st)
		st = copy_sweep(s, device_copy_engines(s->t, device));
	if (!st)
		bound_by(s, out);
	free(s->full);
	s->full = NULL;
	if (!st)
		st = kernel_model(s, out, device);
	free(s->scratch);
	s->scratch = NULL;
	s->scratch_bytes = 0;
	if (st)
		return st;
	memcpy(out->copy_engines, s->engines, sizeof(out->copy_engines));
	memcpy(out->copy_concurrency, s->observed, sizeof(out->copy_concurrency));
	st = schedules(s, out);
	if (st)
		return st;
	/* The critical path (4 B an op of it, nearly every op) reads the ends
	 * and producers alone: the other per-op arrays go before it comes. */
	free_unread(s);
	st = critical_path(s, out);
	if (st)
		return st;
	/* When even the dependency bound is longer than the run, the run broke
	 * edges the bound keeps: the recorded run is no schedule of this
	 * graph, and the list schedule stays (above the run; the report says
	 * the efficiency is bounded). */
	if (out->ideal_ns > out->actual_ns && out->dependency_bound_ns <= out->actual_ns)
		ideal_is_recorded(s, out);
	out->efficiency = out->actual_ns > 0 ? (double)out->ideal_ns / (double)out->actual_ns : 1.0;
	return GS_OK;
}

gs_status gs_schedule_compute(const struct gs_trace *t, const struct gs_graph *g, uint32_t device,
			      const struct gs_window *win, struct gs_schedule *out)
{
	struct sched s;
	gs_status st;

	if (!out) {
		gs_error_append("gs_schedule_compute: no output");
		return GS_ERR_INVALID;
	}
	memset(out, 0, sizeof(*out));
	out->device = device;
	if (!t || !g) {
		gs_error_append("gs_schedule_compute: no trace or no graph");
		return GS_ERR_INVALID;
	}
	memset(&s, 0, sizeof(s));
	s.t = t;
	s.g = g;
	s.ops = gs_trace_ops(t, &s.n_ops);
	s.api = gs_trace_api_calls(t, &s.n_api);
	s.out = out;
	out->n_ops = s.n_ops;
	st = check_graph(g, s.n_ops);
	if (!st)
		st = schedule_run(&s, device, win, out);
	free(s.set);
	free(s.set_of_slot);
	free(s.slot_of_set);
	free(s.end);
	free(s.crit);
	free_unread(&s);
	if (st) {
		gs_schedule_fini(out);
		out->device = device;
	}
	return st;
}

void gs_schedule_fini(struct gs_schedule *s)
{
	if (!s)
		return;
	free(s->critical_path);
	free(s->slot_ranges);
	free(s->slot_ideal_start);
	free(s->slot_bound_by);
	free(s->slot_pipelined_start);
	free(s->slot_share);
	memset(s, 0, sizeof(*s));
}

/* The slot ranges searched for an op: those starting at or before it
 * come first. */
struct range_key {
	const struct gs_schedule_range *r;
	uint32_t op;
};

static bool range_before(const void *ctx, size_t i)
{
	const struct range_key *k = ctx;

	return k->r[i].first <= k->op;
}

uint32_t gs_sched_slot_search(const struct gs_schedule *s, uint32_t op, size_t *hint)
{
	struct range_key key = {s->slot_ranges, op};
	/* one past the last range starting at or before op */
	size_t lo = gs_partition_point(s->n_slot_ranges, range_before, &key);

	if (!lo || op - s->slot_ranges[lo - 1].first >= s->slot_ranges[lo - 1].count)
		return GS_NO_INDEX;
	*hint = lo - 1;
	return (uint32_t)(s->slot_ranges[lo - 1].slot + (op - s->slot_ranges[lo - 1].first));
}

uint32_t gs_schedule_slot(const struct gs_schedule *s, uint32_t op)
{
	size_t hint;

	return gs_sched_slot_search(s, op, &hint);
}

int64_t gs_schedule_ideal_start(const struct gs_schedule *s, uint32_t op)
{
	uint32_t k = gs_schedule_slot(s, op);

	return k == GS_NO_INDEX ? 0 : s->slot_ideal_start[k];
}

int64_t gs_schedule_delay_ns(const struct gs_trace *t, const struct gs_schedule *s, uint32_t op)
{
	uint32_t k = gs_schedule_slot(s, op);
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);

	return k == GS_NO_INDEX || op >= n_ops ? 0 : gs_sched_slot_delay(s, &ops[op], k);
}

uint8_t gs_schedule_bound_by(const struct gs_schedule *s, uint32_t op)
{
	uint32_t k = gs_schedule_slot(s, op);

	return k == GS_NO_INDEX ? GS_BOUND_NONE : s->slot_bound_by[k];
}

int64_t gs_schedule_pipelined_start(const struct gs_schedule *s, uint32_t op)
{
	uint32_t k = gs_schedule_slot(s, op);

	return k == GS_NO_INDEX ? 0 : s->slot_pipelined_start[k];
}
