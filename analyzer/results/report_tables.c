/* SPDX-License-Identifier: MIT */
/*
 * The analyze report's per-device tables (report.c assembles them): the
 * per-stream and per-kernel totals over the device window, the
 * communication kernels, the API calls over sync time, and the ranking
 * and cutting of the per-op lists (missed overlap, CUDA Graph candidates,
 * the critical path, waits) to the rows the report keeps.
 */
#include "analyzer_priv.h"
#include "report_build_priv.h"
#include "schedule_priv.h"

#include <gpuscope/breakdown.h>
#include <gpuscope/cudagraph.h>
#include <gpuscope/measures.h>
#include <gpuscope/overlap.h>
#include <gpuscope/results.h>
#include <gpuscope/schedule.h>
#include <gpuscope/search.h>
#include <gpuscope/sort.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/vec.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Per-device tables                                                          */
/* ------------------------------------------------------------------------ */

static int64_t clipped(const struct gs_op *op, struct gs_report_win w)
{
	int64_t s = op->start_ns > w.start ? op->start_ns : w.start;
	int64_t e = op->end_ns < w.end ? op->end_ns : w.end;

	return e > s ? e - s : 0;
}

static int cmp_kernel(const void *pa, const void *pb)
{
	const struct gs_report_kernel *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->first_op < b->first_op ? -1 : a->first_op > b->first_op;
}

static int cmp_stream(const void *pa, const void *pb)
{
	const struct gs_report_stream *a = pa, *b = pb;

	if (a->stream_id != b->stream_id)
		return a->stream_id < b->stream_id ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* The kernel totals of op `i`'s name, made on first sight. `slot` maps a
 * name id to its row + 1 (0: none yet). */
static struct gs_report_kernel *kernel_row(struct gs_report_device *d, uint32_t *slot, size_t *cap,
					   uint32_t name, size_t i)
{
	if (!slot[name]) {
		if (d->n_kernels == *cap) {
			/* From one row: a job of 60000 devices of a kernel each
			 * held 300 MB of rows it never filled at 64. */
			size_t nc = *cap ? *cap * 2 : 1;
			struct gs_report_kernel *nk = realloc(d->kernels, nc * sizeof(*nk));

			if (!nk)
				return NULL;
			d->kernels = nk;
			*cap = nc;
		}
		memset(&d->kernels[d->n_kernels], 0, sizeof(*d->kernels));
		d->kernels[d->n_kernels].name = name;
		d->kernels[d->n_kernels].first_op = (uint32_t)i;
		slot[name] = (uint32_t)++d->n_kernels;
	}
	return &d->kernels[slot[name] - 1];
}

/* Put the name slots kernel_row set for device d back to 0. */
static void clear_slots(const struct gs_report_device *d, uint32_t *slot, size_t n_names)
{
	for (size_t k = 0; k < d->n_kernels; k++)
		slot[d->kernels[k].name < n_names ? d->kernels[k].name : n_names] = 0;
}

/* The statistics of row k from its durations v[0..n), sorted ascending
 * (n >= 1). The standard deviation is taken about the floor of the mean,
 * whose deviations sum exactly in 64 bits; their squares are summed in
 * long double (exact while the sum fits its 64-bit mantissa). */
static void kernel_row_stats(struct gs_report_kernel *k, const int64_t *v, size_t n)
{
	int64_t base = k->ns / (int64_t)n, dev = 0;
	long double sq = 0, var;

	k->min_ns = v[0];
	k->max_ns = v[n - 1];
	k->median_ns = v[gs_report_nearest_rank(n, 50)];
	k->p95_ns = v[gs_report_nearest_rank(n, 95)];
	/* Round half up: durations are never negative. */
	k->mean_ns = base + (2 * (k->ns % (int64_t)n) >= (int64_t)n);
	for (size_t i = 0; i < n; i++) {
		int64_t x = v[i] - base;

		dev += x;
		sq += (long double)x * (long double)x;
	}
	var = (sq - (long double)dev * (long double)dev / (long double)n) / (long double)n;
	k->std_ns = var > 0 ? (int64_t)llroundl(sqrtl(var)) : 0;
}

/* Per kernel name, the statistics of its clipped durations. The slots of
 * gs_report_dev_streams are still set: a second walk over the device's
 * kernels puts each name's durations in its own run of one array (runs in
 * row order, at offsets from the counts), and each run is sorted once:
 * O(N_d + K log K) for K kernels. */
static gs_status kernel_stats(const struct gs_report *r, struct gs_report_device *d,
			      struct gs_report_win w, const uint32_t *slot, size_t n_names)
{
	const struct gs_trace *t = r->t;
	size_t n_ops, n_dev, total = 0, *at;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const uint32_t *dev = gs_trace_device_streams(t, d->device, &n_dev);
	int64_t *dur;

	if (!d->n_kernels)
		return GS_OK;
	at = malloc(d->n_kernels * sizeof(*at));
	if (!at)
		return gs_nomem();
	for (size_t k = 0; k < d->n_kernels; k++) {
		at[k] = total;
		total += d->kernels[k].count;
	}
	dur = malloc(total * sizeof(*dur));
	if (!dur) {
		free(at);
		return gs_nomem();
	}
	for (size_t j = 0; j < n_dev; j++) {
		size_t first, count;

		gs_trace_stream_ops(t, dev[j], &first, &count);
		for (size_t i = first; i < first + count && i < n_ops; i++) {
			const struct gs_op *op = &ops[i];
			uint32_t name;

			if (op->kind != GS_OP_KERNEL || !gs_report_in_window(op, w))
				continue;
			name = op->name < n_names ? op->name : (uint32_t)n_names;
			dur[at[slot[name] - 1]++] = clipped(op, w);
		}
	}
	for (size_t k = 0, end = 0; k < d->n_kernels; k++) {
		struct gs_report_kernel *row = &d->kernels[k];
		int64_t *v = dur + end;

		end += row->count;
		gs_sort_by_i64(v, row->count, sizeof(*v));
		kernel_row_stats(row, v, row->count);
	}
	free(dur);
	free(at);
	return GS_OK;
}

/* Streams of the device, their totals, the per-name kernel totals and
 * statistics, and the op counts. O(N_d + S_d + K log K) for K kernels: the
 * totals are kept per name id (in the report's slot table, cleared after),
 * the names are sorted, and each name's durations (kernel_stats). */
gs_status gs_report_dev_streams(const struct gs_report *r, struct gs_report_scratch *x,
				struct gs_report_device *d, struct gs_report_win w)
{
	const struct gs_trace *t = r->t;
	size_t n_streams, n_ops, n_dev, s, cap = 0, n_names = gs_trace_string_count(t);
	const struct gs_stream *streams = gs_trace_streams(t, &n_streams);
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const uint32_t *dev = gs_trace_device_streams(t, d->device, &n_dev);
	uint32_t *slot = x->name_slot;
	gs_status st;

	d->n_streams = n_dev;
	if (d->n_streams) {
		d->streams = calloc(d->n_streams, sizeof(*d->streams));
		if (!d->streams)
			return gs_nomem();
	}
	d->n_streams = 0;
	for (size_t j = 0; j < n_dev; j++) {
		struct gs_report_stream *rs;
		size_t first, count, i;
		int64_t cover = INT64_MIN;

		s = dev[j];
		gs_trace_stream_ops(t, (uint32_t)s, &first, &count);
		rs = &d->streams[d->n_streams];
		rs->index = (uint32_t)s;
		rs->pid = streams[s].pid;
		rs->stream_id = streams[s].stream_id;
		rs->kind = streams[s].kind;
		rs->priority = streams[s].priority;
		for (i = first; i < first + count && i < n_ops; i++) {
			const struct gs_op *op = &ops[i];
			int64_t ns, a, b;

			if (!gs_report_in_window(op, w))
				continue;
			ns = clipped(op, w);
			rs->ops++;
			if (op->kind < GS_OP_KIND_COUNT)
				d->op_kinds[op->kind]++;
			if (op->kind == GS_OP_KERNEL) {
				uint32_t name = op->name < n_names ? op->name : (uint32_t)n_names;
				struct gs_report_kernel *k = kernel_row(d, slot, &cap, name, i);

				if (!k) {
					clear_slots(d, slot, n_names);
					return gs_nomem();
				}
				rs->kernels++;
				rs->kernel_ns = gs_report_sat_add(rs->kernel_ns, ns);
				k->name = op->name;
				k->count++;
				k->ns += ns;
				if (i < k->first_op)
					k->first_op = (uint32_t)i;
			} else {
				rs->copies++;
				rs->copy_ns = gs_report_sat_add(rs->copy_ns, ns);
			}
			/* Union of the stream's intervals: ops are sorted by start. */
			a = op->start_ns > w.start ? op->start_ns : w.start;
			b = op->end_ns < w.end ? op->end_ns : w.end;
			if (a < cover)
				a = cover;
			if (b > a)
				rs->busy_ns += b - a;
			if (b > cover)
				cover = b;
		}
		d->ops += rs->ops;
		d->n_streams++;
	}
	st = kernel_stats(r, d, w, slot, n_names);
	clear_slots(d, slot, n_names);
	if (st != GS_OK)
		return st;

	if (d->n_streams > 1)
		gs_sort(d->streams, d->n_streams, sizeof(*d->streams), cmp_stream);
	/* Ranked by time; first_op tells names of equal time apart. */
	if (d->n_kernels > 1)
		gs_sort(d->kernels, d->n_kernels, sizeof(*d->kernels), cmp_kernel);
	for (size_t k = 0; k < d->n_kernels; k++)
		d->kernels[k].cls = (uint8_t)gs_measures_kernel_row_class(r->t, &d->kernels[k]);
	return GS_OK;
}

/* ---- communication kernels ---- */

struct ival {
	int64_t a;
	int64_t b;
};

static int cmp_ival(const void *pa, const void *pb)
{
	const struct ival *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

/* Sort and merge in place; returns the union's length, *m its pieces. */
static int64_t ival_union(struct ival *v, size_t n, size_t *m)
{
	size_t i, k = 0;
	int64_t total = 0;

	*m = 0;
	if (!n)
		return 0;
	gs_sort(v, n, sizeof(*v), cmp_ival); /* a sorted run per stream */
	for (i = 1; i < n; i++) {
		if (v[i].a <= v[k].b) {
			if (v[i].b > v[k].b)
				v[k].b = v[i].b;
		} else {
			v[++k] = v[i];
		}
	}
	*m = k + 1;
	for (i = 0; i < *m; i++)
		total += v[i].b - v[i].a;
	return total;
}

/* Length of the intersection of two merged interval lists. */
static int64_t ival_meet(const struct ival *x, size_t nx, const struct ival *y, size_t ny)
{
	size_t i = 0, j = 0;
	int64_t total = 0;

	while (i < nx && j < ny) {
		int64_t a = x[i].a > y[j].a ? x[i].a : y[j].a;
		int64_t b = x[i].b < y[j].b ? x[i].b : y[j].b;

		if (b > a)
			total += b - a;
		if (x[i].b < y[j].b)
			i++;
		else
			j++;
	}
	return total;
}

/* NCCL / RCCL kernels by name (any case): the name holds "nccl" or "rccl". */
bool gs_report_comm_name(const char *s)
{
	for (; *s; s++) {
		if ((s[0] == 'n' || s[0] == 'N' || s[0] == 'r' || s[0] == 'R') &&
		    (s[1] == 'c' || s[1] == 'C') && (s[2] == 'c' || s[2] == 'C') &&
		    (s[3] == 'l' || s[3] == 'L'))
			return true;
	}
	return false;
}

/* gs_report_comm_name() of a name id, worked out once per name: `memo` holds 0 for
 * not yet, 1 for no, 2 for yes (names are interned; a trace has millions of
 * kernels but a few hundred names). */
static unsigned kernel_class(const struct gs_trace *t, uint8_t *memo, size_t n_names,
			     const struct gs_op *op)
{
	if (op->collective)
		return GS_KCLASS_COMMUNICATION;
	if (op->name >= n_names)
		return gs_kernel_class_of_name(gs_trace_string(t, op->name));
	if (!memo[op->name])
		memo[op->name] =
			(uint8_t)(gs_kernel_class_of_name(gs_trace_string(t, op->name)) + 1);
	return memo[op->name] - 1u;
}

/* Communication kernels against the compute kernels (the kernel classes of
 * the kernel table: memory-class kernels, copies done by a kernel, are
 * neither), and pageable copies; O(K log K). */
gs_status gs_report_dev_comm(const struct gs_report *r, struct gs_report_scratch *x,
			     struct gs_report_device *d, struct gs_report_win w)
{
	const struct gs_trace *t = r->t;
	size_t n_ops, st, nc = 0, nk = 0, mc, mk, n_names = gs_trace_string_count(t);
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	struct ival *comm, *comp;
	uint64_t kernels = d->op_kinds[GS_OP_KERNEL];
	uint8_t *memo = x->name_memo; /* the names of d->kernels are put back */

	comm = malloc((kernels ? kernels : 1) * sizeof(*comm));
	comp = malloc((kernels ? kernels : 1) * sizeof(*comp));
	if (!comm || !comp) {
		free(comm);
		free(comp);
		return gs_nomem();
	}
	for (st = 0; st < d->n_streams; st++) {
		size_t first, count, i;

		gs_trace_stream_ops(t, d->streams[st].index, &first, &count);
		for (i = first; i < first + count && i < n_ops; i++) {
			const struct gs_op *op = &ops[i];
			struct ival v;

			if (!gs_report_in_window(op, w))
				continue;
			if (op->kind == GS_OP_MEMCPY && gs_sched_host_mem(op) == GS_MEM_PAGEABLE) {
				d->pageable_copies++;
				if (op->copy_kind < GS_COPY_KIND_COUNT)
					d->pageable_by_dir[op->copy_kind]++;
			}
			if (op->kind != GS_OP_KERNEL || nc + nk >= kernels)
				continue;
			v.a = op->start_ns > w.start ? op->start_ns : w.start;
			v.b = op->end_ns < w.end ? op->end_ns : w.end;
			if (v.b <= v.a)
				continue;
			switch (kernel_class(t, memo, n_names, op)) {
			case GS_KCLASS_COMMUNICATION:
				comm[nc++] = v;
				d->comm_kernels++;
				d->comm_ns += v.b - v.a;
				break;
			case GS_KCLASS_COMPUTE:
				comp[nk++] = v;
				break;
			default:
				break;
			}
		}
	}
	d->comm_union_ns = ival_union(comm, nc, &mc);
	ival_union(comp, nk, &mk);
	d->comm_exposed_ns = d->comm_union_ns - ival_meet(comm, mc, comp, mk);
	free(comm);
	free(comp);
	for (size_t k = 0; k < d->n_kernels; k++)
		if (d->kernels[k].name < n_names)
			memo[d->kernels[k].name] = 0;
	return GS_OK;
}

/* ---- what the host was inside during sync time ---- */

static int cmp_call_time_name(const void *pa, const void *pb)
{
	const struct gs_host_call_time *a = pa, *b = pb;

	return a->name < b->name ? -1 : a->name > b->name;
}

static int cmp_call_time(const void *pa, const void *pb)
{
	const struct gs_host_call_time *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* Calls by start (ties by index), for the call tree. */
struct call_start {
	int64_t start;
	uint32_t call;
};

/* The calls by start and the tree of their latest ends (leaves padded to
 * a power of two with INT64_MIN). O(A log A), once a report. */
gs_status gs_report_call_tree_build(struct gs_report *r)
{
	size_t n_api, n = 1;
	const struct gs_api_call *api = gs_trace_api_calls(r->t, &n_api);
	struct call_start *cs = malloc((n_api ? n_api : 1) * sizeof(*cs));

	while (n < n_api)
		n *= 2;
	r->call_order = malloc((n_api ? n_api : 1) * sizeof(*r->call_order));
	r->call_tree = malloc(2 * n * sizeof(*r->call_tree));
	if (!cs || !r->call_order || !r->call_tree) {
		free(cs);
		return gs_nomem();
	}
	for (size_t i = 0; i < n_api; i++)
		cs[i] = (struct call_start){.start = api[i].start_ns, .call = (uint32_t)i};
	gs_sort_by_i64(cs, n_api, sizeof(*cs)); /* built by index: ties by index */
	for (size_t i = 0; i < n; i++)
		r->call_tree[n + i] = i < n_api ? api[cs[i].call].end_ns : INT64_MIN;
	for (size_t i = 0; i < n_api; i++)
		r->call_order[i] = cs[i].call;
	for (size_t i = n; i-- > 1;)
		r->call_tree[i] = r->call_tree[2 * i] > r->call_tree[2 * i + 1] ?
					  r->call_tree[2 * i] :
					  r->call_tree[2 * i + 1];
	r->call_leaves = n;
	free(cs);
	return GS_OK;
}

/* Each call among the first `prefix` by start that ends after `a`: node
 * `node` of the tree covers leaves [lo, hi). */
static gs_status calls_ending_after(const struct gs_report *r, size_t node, size_t lo, size_t hi,
				    size_t prefix, int64_t a, uint32_t **hit, size_t *n,
				    size_t *cap)
{
	gs_status st;

	if (lo >= prefix || r->call_tree[node] <= a)
		return GS_OK;
	if (hi - lo == 1) {
		if (*n == *cap) {
			size_t nc = *cap ? 2 * *cap : 64;
			uint32_t *nh = realloc(*hit, nc * sizeof(*nh));

			if (!nh)
				return gs_nomem();
			*hit = nh;
			*cap = nc;
		}
		(*hit)[(*n)++] = r->call_order[lo];
		return GS_OK;
	}
	st = calls_ending_after(r, 2 * node, lo, lo + (hi - lo) / 2, prefix, a, hit, n, cap);
	return st ? st :
		    calls_ending_after(r, 2 * node + 1, lo + (hi - lo) / 2, hi, prefix, a, hit, n,
				       cap);
}

/* Room for one more row. */
static gs_status push_row(struct gs_host_call_time **rows, size_t *nr, size_t *cap,
			  struct gs_host_call_time row)
{
	if (gs_vec_grow((void **)rows, cap, *nr + 1, sizeof(**rows)) != GS_OK)
		return GS_ERR_NOMEM;
	(*rows)[(*nr)++] = row;
	return GS_OK;
}

/* The first of the segments seg[lo .. ns) that ends after t (their ends
 * do not decrease): a few steps forward from lo, else a binary search. */
static size_t first_seg_after(const struct ival *seg, size_t lo, size_t ns, int64_t t)
{
	size_t hi = ns;

	for (int step = 0; step < 8 && lo < ns; step++, lo++)
		if (seg[lo].b > t)
			return lo;
	if (lo >= ns)
		return ns;
	return lo +
	       gs_upper_bound_i64_at(seg + lo, hi - lo, sizeof(*seg), offsetof(struct ival, b), t);
}

/* Each API call's time over the sync segments, call by call: its first
 * segment (found from the previous call's while the calls' starts do not
 * decrease, as on one thread; else from the first segment), then the ones
 * inside it. O(A + S) per thread at best, O(A log S) at worst. */
static gs_status sync_rows_by_call(const struct gs_trace *t, const struct gs_breakdown *b,
				   struct gs_host_call_time **rows, size_t *nr, size_t *cap)
{
	size_t n_api, ns = 0;
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	/* zeroed: the analyzer cannot follow the segments' count through the
	 * search below */
	struct ival *seg = calloc(b->n_segments ? b->n_segments : 1, sizeof(*seg));
	gs_status st = GS_OK;

	if (!seg)
		return gs_nomem();
	for (size_t i = 0; i < b->n_segments; i++)
		if (b->segments[i].category == GS_CAT_SYNC)
			seg[ns++] = (struct ival){b->segments[i].start_ns, b->segments[i].end_ns};
	for (size_t i = 0, lo = 0, prev = 0; i < n_api && !st; i++) {
		int64_t sum = 0;

		if (api[i].end_ns <= api[i].start_ns)
			continue;
		if (prev >= i || api[i].start_ns < api[prev].start_ns)
			lo = 0; /* another thread, or out of order */
		prev = i;
		lo = first_seg_after(seg, lo, ns, api[i].start_ns);
		for (size_t k = lo; k < ns && seg[k].a < api[i].end_ns; k++) {
			int64_t a = seg[k].a > api[i].start_ns ? seg[k].a : api[i].start_ns;
			int64_t e = seg[k].b < api[i].end_ns ? seg[k].b : api[i].end_ns;

			if (e > a)
				sum += e - a;
		}
		if (sum > 0)
			st = push_row(rows, nr, cap,
				      (struct gs_host_call_time){.name = api[i].name,
								 .ns = sum,
								 .count = 1});
	}
	free(seg);
	return st;
}

/* The calls, by start (call_order), searched for an end: those starting
 * before it come first. */
struct call_key {
	const struct gs_api_call *api;
	const uint32_t *order;
	int64_t end;
};

static bool call_before(const void *ctx, size_t i)
{
	const struct call_key *k = ctx;

	return k->api[k->order[i]].start_ns < k->end;
}

/*
 * The same, segment by segment: the calls over a segment are those that
 * start before it ends (a prefix by start) and end after it starts (a
 * descent of the report's tree of latest ends), so that each of many
 * devices costs its segments and the calls over them, not every call:
 * O((S + overlaps) log A) after the tree, O(A log A) once a report.
 */
static gs_status sync_rows_by_segment(struct gs_report *r, struct gs_report_scratch *x,
				      const struct gs_breakdown *b, struct gs_host_call_time **rows,
				      size_t *nr, size_t *cap)
{
	size_t n_api, n_hit = 0, cap_hit = 0;
	const struct gs_api_call *api = gs_trace_api_calls(r->t, &n_api);
	uint32_t *hit = NULL;
	gs_status st = GS_OK;

	if (!r->call_tree) {
		st = gs_report_call_tree_build(r);
		if (st)
			return st;
	}
	if (!x->call_sum) {
		x->call_sum = calloc(n_api ? n_api : 1, sizeof(*x->call_sum));
		if (!x->call_sum)
			return gs_nomem();
	}
	for (size_t k = 0; k < b->n_segments && !st; k++) {
		const struct gs_segment *sg = &b->segments[k];
		struct call_key key = {api, r->call_order, sg->end_ns};
		size_t lo, from = n_hit;

		if (sg->category != GS_CAT_SYNC)
			continue;
		/* the calls starting before the segment ends */
		lo = gs_partition_point(n_api, call_before, &key);
		st = calls_ending_after(r, 1, 0, r->call_leaves, lo, sg->start_ns, &hit, &n_hit,
					&cap_hit);
		for (size_t h = from; h < n_hit && !st; h++) {
			const struct gs_api_call *c = &api[hit[h]];
			int64_t a = sg->start_ns > c->start_ns ? sg->start_ns : c->start_ns;
			int64_t e = sg->end_ns < c->end_ns ? sg->end_ns : c->end_ns;

			if (c->end_ns > c->start_ns && e > a)
				x->call_sum[hit[h]] += e - a;
		}
	}
	/* A call over several segments is a hit of each: one row. */
	for (size_t h = 0; h < n_hit && !st; h++) {
		int64_t sum = x->call_sum[hit[h]];

		x->call_sum[hit[h]] = 0;
		if (sum > 0)
			st = push_row(rows, nr, cap,
				      (struct gs_host_call_time){.name = api[hit[h]].name,
								 .ns = sum,
								 .count = 1});
	}
	for (size_t h = 0; h < n_hit; h++) /* back to 0 for the next device */
		x->call_sum[hit[h]] = 0;
	free(hit);
	return st;
}

/*
 * What the host was inside during sync time, summed by call name. With a
 * few devices each looks at every call; with many, at the calls over its
 * sync segments only (the same rows: they are summed by name after).
 */
gs_status gs_report_dev_sync_calls(struct gs_report *r, struct gs_report_scratch *x,
				   struct gs_report_device *d)
{
	const struct gs_breakdown *b = &d->b;
	size_t n_api, i, nr = 0, cap = 0, g;
	struct gs_host_call_time *rows = NULL;
	gs_status st;

	gs_trace_api_calls(r->t, &n_api);
	if (b->total_ns[GS_CAT_SYNC] <= 0 || !n_api)
		return GS_OK;
	st = r->n_dev >= GS_SHARE_MIN_DEVICES ? sync_rows_by_segment(r, x, b, &rows, &nr, &cap) :
						sync_rows_by_call(r->t, b, &rows, &nr, &cap);
	if (st) {
		free(rows);
		return st;
	}
	if (!nr) {
		free(rows);
		return GS_OK;
	}
	qsort(rows, nr, sizeof(*rows), cmp_call_time_name);
	for (i = 1, g = 0; i < nr; i++) {
		if (rows[i].name == rows[g].name) {
			rows[g].ns += rows[i].ns;
			rows[g].count++;
		} else {
			rows[++g] = rows[i];
		}
	}
	d->n_sync_calls = g + 1;
	qsort(rows, d->n_sync_calls, sizeof(*rows), cmp_call_time);
	d->sync_calls = rows;
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* Ranking and cutting the per-op lists                                      */
/* ------------------------------------------------------------------------ */

int gs_report_cmp_missed(const void *pa, const void *pb)
{
	const struct gs_missed_overlap *a = pa, *b = pb;

	if (a->exposed_ns != b->exposed_ns)
		return a->exposed_ns > b->exposed_ns ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

int gs_report_cmp_cand(const void *pa, const void *pb)
{
	const struct gs_cudagraph_candidate *a = pa, *b = pb;

	if (a->already_graph != b->already_graph)
		return a->already_graph ? 1 : -1;
	if (a->exposed_launch_ns != b->exposed_launch_ns)
		return a->exposed_launch_ns > b->exposed_launch_ns ? -1 : 1;
	if (a->length != b->length)
		return a->length > b->length ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->length && b->length && a->kernels[0] != b->kernels[0])
		return a->kernels[0] < b->kernels[0] ? -1 : 1;
	return 0;
}

/* An op of the critical path: its time and its position on the path.
 * The kept ones are then ranked as (time negated, row): the time comes
 * first, the key gs_sort_by_i64 reads. */
struct crit_pick {
	int64_t ns;
	size_t step;
};

/* The heap's order: its root is the worst op kept, the shortest, of equal
 * times the later on the path. */
static bool crit_worse(const void *pa, const void *pb)
{
	const struct crit_pick *a = pa, *b = pb;

	return a->ns < b->ns || (a->ns == b->ns && a->step > b->step);
}

static int cmp_step(const void *pa, const void *pb)
{
	const struct crit_pick *a = pa, *b = pb;

	return a->step < b->step ? -1 : a->step > b->step;
}

/*
 * The `keep` (1 .. n) longest ops of a path of n (ties: the earlier), in
 * path order, into pick[0 .. keep): a heap of `keep` whose root is the
 * worst kept, which an op replaces when it is longer. The path is walked
 * in order, so an op as long as the root comes after it and stays out, as
 * a stable ranking of the whole path would leave it: O(P log keep) time
 * and `keep` entries instead of that ranking's P.
 */
static void top_critical(const struct gs_op *ops, const uint32_t *path, size_t n, size_t keep,
			 struct crit_pick *pick)
{
	size_t i;

	for (i = 0; i < keep; i++)
		pick[i] = (struct crit_pick){gs_schedule_op_ns(&ops[path[i]]), i};
	if (keep == n)
		return; /* every op, in path order already */
	for (i = keep / 2; i-- > 0;)
		gs_heap_sift_down(pick, keep, i, sizeof(*pick), crit_worse);
	for (i = keep; i < n; i++) {
		int64_t ns = gs_schedule_op_ns(&ops[path[i]]);

		if (ns > pick[0].ns) {
			pick[0] = (struct crit_pick){ns, i};
			gs_heap_sift_down(pick, keep, 0, sizeof(*pick), crit_worse);
		}
	}
	gs_sort(pick, keep, sizeof(*pick), cmp_step);
}

/*
 * Keep the `rows` longest ops of the device's critical path (the kept
 * schedule's whole path, op indices into `ops`), in path order, with
 * their positions on it, and rank them (critical_rank: longest first,
 * ties in path order). O(P log rows) for a path of P ops.
 */
gs_status gs_report_cut_critical(struct gs_report_device *d, const struct gs_op *ops, size_t rows)
{
	size_t n = d->sched.n_critical, keep = n < rows ? n : rows, i;
	struct crit_pick *pick;

	d->critical_count = n;
	d->n_critical = 0;
	if (!keep)
		return GS_OK;
	/* Zeroed though every entry is set before it is read: clang-tidy's
	 * analyzer follows the heap's sift past the entries it saw set. */
	pick = calloc(keep, sizeof(*pick));
	d->critical = malloc(keep * sizeof(*d->critical));
	d->critical_step = malloc(keep * sizeof(*d->critical_step));
	d->critical_rank = malloc(keep * sizeof(*d->critical_rank));
	if (!pick || !d->critical || !d->critical_step || !d->critical_rank) {
		free(pick);
		return gs_nomem();
	}
	top_critical(ops, d->sched.critical_path, n, keep, pick);
	for (i = 0; i < keep; i++) {
		d->critical[i] =
			(struct gs_critical_op){d->sched.critical_path[pick[i].step], pick[i].ns};
		d->critical_step[i] = pick[i].step;
		/* Ranked by a stable sort of the negated times: of equal
		 * times, the earlier row (on the path) first. */
		pick[i] = (struct crit_pick){-pick[i].ns, i};
	}
	gs_sort_by_i64(pick, keep, sizeof(*pick));
	for (i = 0; i < keep; i++)
		d->critical_rank[i] = pick[i].step;
	free(pick);
	d->n_critical = keep;
	return GS_OK;
}

/*
 * The per-op lists as the report keeps them: at most r->rows entries
 * each, those with the most time at stake, beside their exact counts
 * (the totals were summed over every entry while building). Runs last:
 * the findings have seen every entry.
 */
gs_status gs_report_cut_lists(struct gs_report *r)
{
	size_t rows = r->rows, i, n_ops;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);
	gs_status st;

	for (i = 0; i < r->n_dev; i++) {
		struct gs_report_device *d = &r->dev[i];

		st = gs_report_cut_critical(d, ops, rows);
		if (st != GS_OK)
			return st;
		d->missed_count = d->n_missed;
		if (d->n_missed > rows)
			d->n_missed = rows;
		d->wait_count = d->n_waits;
		if (d->n_waits > rows)
			d->n_waits = rows;
	}
	r->reported_wait_count = r->n_reported_waits;
	for (i = 0; i < r->n_reported_waits; i++)
		r->reported_wait_ns = gs_report_sat_add(r->reported_wait_ns,
							r->waits[r->reported_waits[i]].wait_ns);
	if (r->n_reported_waits > rows)
		r->n_reported_waits = rows;
	return GS_OK;
}
