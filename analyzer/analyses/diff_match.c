/* SPDX-License-Identifier: MIT */
/*
 * `gpuscope diff BASE NEW` (gpuscope/diff.h): the analyze report of each
 * trace, device by device, side by side.
 *
 * Devices are matched by id. Per device: the headline numbers (window,
 * breakdown, overlap, idle attribution, schedules, efficiency, op counts,
 * waits and missed overlap totals) with NEW - BASE; kernels by name
 * (count and summed time in the device window) ranked by the largest
 * absolute change; waits grouped by (kind, consumer name and stream,
 * producer name and stream) and missed overlaps by (copy name, stream,
 * direction), since op ids differ between runs: a group is "new" (only in
 * NEW), "vanished" (only in BASE), "changed" or "same". Rows are sorted
 * and merged: O(R log R) for R rows of both reports.
 *
 * This file builds the comparison; diff_write.c writes it.
 */
#include "diff_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/import.h>
#include <gpuscope/job.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#define DEFAULT_TOP 10

static char *dup_or(const char *s, const char *def)
{
	const char *v = s ? s : def;
	size_t n = strlen(v) + 1;
	char *p = malloc(n);

	if (p)
		memcpy(p, v, n);
	return p;
}

/* ---- building -------------------------------------------------------------- */

static void fill_metrics(struct gs_diff_gpu *dd, int side)
{
	const struct gs_report_device *d = dd->dev[side];
	int64_t *m = dd->metric[side];

	m[GS_DIFF_M_WINDOW] = d->b.window_ns;
	m[GS_DIFF_M_KERNEL] = d->b.total_ns[GS_CAT_KERNEL];
	m[GS_DIFF_M_COPY] = d->b.total_ns[GS_CAT_COPY];
	m[GS_DIFF_M_SYNC] = d->b.total_ns[GS_CAT_SYNC];
	m[GS_DIFF_M_IDLE] = d->b.total_ns[GS_CAT_IDLE];
	m[GS_DIFF_M_COPY_HIDDEN] = d->b.copy_hidden_ns;
	m[GS_DIFF_M_CONCURRENCY] = d->b.kernel_concurrency_ns;
	m[GS_DIFF_M_HOST_BOUND] = d->b.host_bound_ns;
	m[GS_DIFF_M_LAUNCH_LATENCY] = d->b.launch_latency_ns;
	m[GS_DIFF_M_UNATTRIBUTED] = d->b.unattributed_ns;
	m[GS_DIFF_M_ACTUAL] = d->actual_ns;
	m[GS_DIFF_M_DEP_BOUND] = d->dependency_bound_ns;
	m[GS_DIFF_M_IDEAL] = d->ideal_ns;
	m[GS_DIFF_M_PIPELINED] = d->pipelined.makespan_ns;
	m[GS_DIFF_M_OPS] = (int64_t)d->ops;
	m[GS_DIFF_M_KERNELS] = (int64_t)d->op_kinds[GS_OP_KERNEL];
	m[GS_DIFF_M_MEMCPYS] = (int64_t)d->op_kinds[GS_OP_MEMCPY];
	m[GS_DIFF_M_MEMSETS] = (int64_t)d->op_kinds[GS_OP_MEMSET];
	m[GS_DIFF_M_WAITS] = (int64_t)d->n_waits;
	m[GS_DIFF_M_WAIT_NS] = d->wait_ns;
	m[GS_DIFF_M_MISSED] = (int64_t)d->n_missed;
	m[GS_DIFF_M_MISSED_NS] = d->missed_exposed_ns;
	dd->efficiency[side] = d->efficiency;
	dd->efficiency_kind[side] = d->efficiency_kind;
}

/* A value of one side on the basis of the comparison. */
double gs_diff_norm(const struct gs_diff_gpu *dd, int side, int64_t v)
{
	return (double)v / dd->divisor[side];
}

static int64_t norm_ns(const struct gs_diff_gpu *dd, int side, int64_t v)
{
	return llround(gs_diff_norm(dd, side, v));
}

/* ---- iterations ------------------------------------------------------------ */

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return a < b ? -1 : a > b;
}

/* Distinct ProfilerStep#N range names (the PyTorch profiler's steps; a
 * step drawn on the CPU and on the GPU is one). */
static gs_status profiler_steps(const struct gs_trace *t, uint64_t *out)
{
	size_t n, m = 0;
	const struct gs_range *r = gs_trace_ranges(t, &n);
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));

	*out = 0;
	if (!ids)
		return gs_nomem();
	for (size_t i = 0; i < n; i++)
		if (strncmp(gs_trace_string(t, r[i].name), "ProfilerStep#", 13) == 0)
			ids[m++] = r[i].name;
	qsort(ids, m, sizeof(*ids), cmp_u32);
	for (size_t i = 0; i < m; i++)
		*out += !i || ids[i] != ids[i - 1];
	free(ids);
	return GS_OK;
}

struct nvtx_row {
	int64_t pid, tid, start, end;
	const char *name;
};

static int cmp_nvtx_row(const void *pa, const void *pb)
{
	const struct nvtx_row *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end; /* the enclosing one first */
}

static int cmp_name_ptr(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* The names of the outermost NVTX ranges of each thread (not inside
 * another NVTX range of that thread), sorted; *n of them. */
static gs_status nvtx_outer_names(const struct gs_trace *t, const char ***out, size_t *n)
{
	size_t n_r, m = 0, k = 0;
	const struct gs_range *r = gs_trace_ranges(t, &n_r);
	struct nvtx_row *rows = malloc((n_r ? n_r : 1) * sizeof(*rows));
	const char **names = malloc((n_r ? n_r : 1) * sizeof(*names));
	int64_t end = 0;

	*out = NULL;
	*n = 0;
	if (!rows || !names) {
		free(rows);
		free(names);
		return gs_nomem();
	}
	for (size_t i = 0; i < n_r; i++)
		if (r[i].kind == GS_RANGE_NVTX)
			rows[m++] = (struct nvtx_row){r[i].pid, r[i].tid, r[i].start_ns,
						      r[i].end_ns, gs_trace_string(t, r[i].name)};
	qsort(rows, m, sizeof(*rows), cmp_nvtx_row);
	for (size_t i = 0; i < m; i++) {
		bool first = !i || rows[i].pid != rows[i - 1].pid || rows[i].tid != rows[i - 1].tid;

		if (first || rows[i].start >= end) {
			names[k++] = rows[i].name;
			end = rows[i].end;
		}
	}
	free(rows);
	qsort(names, k, sizeof(*names), cmp_name_ptr);
	*out = names;
	*n = k;
	return GS_OK;
}

/* The outermost NVTX range name repeated on both sides (twice at least on
 * each), the one BASE repeats most (then by name): its counts. */
static gs_status nvtx_iterations(const struct gs_trace *t0, const struct gs_trace *t1,
				 uint64_t it[2], const char **name)
{
	const char **nm[2] = {NULL, NULL};
	size_t n[2] = {0, 0}, i = 0, j = 0;
	gs_status st = nvtx_outer_names(t0, &nm[0], &n[0]);

	it[0] = it[1] = 0;
	*name = NULL;
	if (!st)
		st = nvtx_outer_names(t1, &nm[1], &n[1]);
	while (!st && i < n[0] && j < n[1]) {
		int c = strcmp(nm[0][i], nm[1][j]);
		size_t ei = i, ej = j;

		if (c < 0) {
			while (i < n[0] && strcmp(nm[0][i], nm[0][ei]) == 0)
				i++;
			continue;
		}
		if (c > 0) {
			while (j < n[1] && strcmp(nm[1][j], nm[1][ej]) == 0)
				j++;
			continue;
		}
		while (i < n[0] && strcmp(nm[0][i], nm[0][ei]) == 0)
			i++;
		while (j < n[1] && strcmp(nm[1][j], nm[1][ej]) == 0)
			j++;
		if (i - ei >= 2 && j - ej >= 2 && i - ei > it[0]) {
			it[0] = i - ei;
			it[1] = j - ej;
			*name = nm[0][ei];
		}
	}
	free(nm[0]);
	free(nm[1]);
	return st;
}

/* Both sides run kernels of the same names (and some). */
static bool same_kernel_names(const struct gs_diff_gpu *dd)
{
	for (size_t i = 0; i < dd->n_kernels; i++)
		if (!dd->kernels[i].count[0] || !dd->kernels[i].count[1])
			return false;
	return dd->n_kernels > 0;
}

/* The basis of a pair present on both sides: per iteration when both
 * sides' iterations are known and differ; else NEW scaled to BASE's op
 * count when both run kernels of the same names and their op counts differ
 * by more than 5% (the same work repeated more or fewer times); else the
 * totals. Needs the kernel rows (build_kernels). */
static gs_status set_basis(struct gs_diff_gpu *dd)
{
	const struct gs_trace *t0, *t1;
	uint64_t it[2] = {0, 0};
	gs_status st;

	dd->divisor[0] = dd->divisor[1] = 1.0;
	dd->basis = GS_DIFF_BASIS_TOTAL;
	if (!dd->dev[0] || !dd->dev[1])
		return GS_OK;
	t0 = dd->report[0]->t;
	t1 = dd->report[1]->t;
	st = profiler_steps(t0, &it[0]);
	if (!st)
		st = profiler_steps(t1, &it[1]);
	if (st)
		return st;
	if (it[0] && it[1]) {
		dd->iter_src = GS_DIFF_ITERS_STEPS;
	} else {
		st = nvtx_iterations(t0, t1, it, &dd->iter_name);
		if (st)
			return st;
		if (dd->iter_name)
			dd->iter_src = GS_DIFF_ITERS_NVTX;
	}
	if (dd->iter_src != GS_DIFF_ITERS_NONE) {
		dd->iters[0] = it[0];
		dd->iters[1] = it[1];
		if (it[0] != it[1]) {
			dd->basis = GS_DIFF_BASIS_PER_ITERATION;
			dd->divisor[0] = (double)it[0];
			dd->divisor[1] = (double)it[1];
		}
		return GS_OK;
	}
	if (dd->dev[0]->ops && dd->dev[1]->ops && same_kernel_names(dd)) {
		uint64_t a = dd->dev[0]->ops, b = dd->dev[1]->ops;

		if ((a > b ? a - b : b - a) * 20 > a) {
			dd->basis = GS_DIFF_BASIS_SCALED_BY_OPS;
			dd->divisor[1] = (double)b / (double)a;
		}
	}
	return GS_OK;
}

static int cmp_kern_name(const void *pa, const void *pb)
{
	const struct gs_diff_kernel *a = pa, *b = pb;

	return strcmp(a->name, b->name);
}

/* The change on the basis of the comparison. */
static int64_t kern_norm_delta(const struct gs_diff_kernel *k)
{
	return k->norm_ns[GS_DIFF_NEW] - k->norm_ns[GS_DIFF_BASE];
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

static int cmp_kern_change(const void *pa, const void *pb)
{
	const struct gs_diff_kernel *a = pa, *b = pb;
	int64_t x = abs64(kern_norm_delta(a)), y = abs64(kern_norm_delta(b));

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

static gs_status build_kernels(struct gs_diff_gpu *dd)
{
	size_t n = 0, m = 0, i;
	struct gs_diff_kernel *rows;

	for (int s = 0; s < 2; s++)
		if (dd->dev[s])
			n += dd->dev[s]->n_kernels;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return gs_nomem();
	for (int s = 0; s < 2; s++) {
		for (i = 0; dd->dev[s] && i < dd->dev[s]->n_kernels; i++) {
			const struct gs_report_kernel *k = &dd->dev[s]->kernels[i];

			rows[m].name = gs_trace_string(dd->report[s]->t, k->name);
			rows[m].count[s] = k->count;
			rows[m].ns[s] = k->ns;
			m++;
		}
	}
	qsort(rows, m, sizeof(*rows), cmp_kern_name);
	n = 0;
	for (i = 0; i < m; i++) {
		if (n && !strcmp(rows[n - 1].name, rows[i].name)) {
			for (int s = 0; s < 2; s++) {
				rows[n - 1].count[s] += rows[i].count[s];
				rows[n - 1].ns[s] += rows[i].ns[s];
			}
			continue;
		}
		rows[n++] = rows[i];
	}
	dd->kernels = rows;
	dd->n_kernels = n;
	return GS_OK;
}

/* Kernels on the basis of the comparison, the largest change first. */
static void rank_kernels(struct gs_diff_gpu *dd)
{
	for (size_t i = 0; i < dd->n_kernels; i++)
		for (int s = 0; s < 2; s++)
			dd->kernels[i].norm_ns[s] = norm_ns(dd, s, dd->kernels[i].ns[s]);
	qsort(dd->kernels, dd->n_kernels, sizeof(*dd->kernels), cmp_kern_change);
}

static int cmp_group_key(const void *pa, const void *pb)
{
	const struct gs_diff_group *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	c = strcmp(a->peer, b->peer);
	if (c)
		return c;
	if (a->peer_stream != b->peer_stream)
		return a->peer_stream < b->peer_stream ? -1 : 1;
	return 0;
}

static int64_t group_weight(const struct gs_diff_group *g)
{
	switch (g->status) {
	case GS_DIFF_ADDED:
		return g->norm_ns[GS_DIFF_NEW];
	case GS_DIFF_VANISHED:
		return g->norm_ns[GS_DIFF_BASE];
	default:
		return abs64(g->norm_ns[GS_DIFF_NEW] - g->norm_ns[GS_DIFF_BASE]);
	}
}

/* new, vanished, changed, same; within each the most time first. */
static int cmp_group_rank(const void *pa, const void *pb)
{
	static const int order[] =
		{[GS_DIFF_ADDED] = 0, [GS_DIFF_VANISHED] = 1, [GS_DIFF_CHANGED] = 2, [GS_DIFF_SAME] = 3};
	const struct gs_diff_group *a = pa, *b = pb;
	int64_t x, y;

	if (a->status != b->status)
		return order[a->status] < order[b->status] ? -1 : 1;
	x = a->weight_ns;
	y = b->weight_ns;
	if (x != y)
		return x > y ? -1 : 1;
	return cmp_group_key(a, b);
}

/* Sort by key, merge equal keys, set each status (on the basis of the
 * comparison), rank. */
static void merge_groups(const struct gs_diff_gpu *dd, struct gs_diff_group *g, size_t m,
			 size_t *n_out)
{
	size_t n = 0, i;

	qsort(g, m, sizeof(*g), cmp_group_key);
	for (i = 0; i < m; i++) {
		if (n && !cmp_group_key(&g[n - 1], &g[i])) {
			for (int s = 0; s < 2; s++) {
				g[n - 1].count[s] += g[i].count[s];
				g[n - 1].ns[s] += g[i].ns[s];
				g[n - 1].hideable_ns[s] += g[i].hideable_ns[s];
			}
			continue;
		}
		g[n++] = g[i];
	}
	for (i = 0; i < n; i++) {
		struct gs_diff_group *x = &g[i];

		for (int s = 0; s < 2; s++)
			x->norm_ns[s] = norm_ns(dd, s, x->ns[s]);
		if (!x->count[GS_DIFF_BASE])
			x->status = GS_DIFF_ADDED;
		else if (!x->count[GS_DIFF_NEW])
			x->status = GS_DIFF_VANISHED;
		else if ((double)x->count[0] * dd->divisor[1] ==
				 (double)x->count[1] * dd->divisor[0] &&
			 x->norm_ns[0] == x->norm_ns[1])
			x->status = GS_DIFF_SAME;
		else
			x->status = GS_DIFF_CHANGED;
		x->weight_ns = group_weight(x);
	}
	qsort(g, n, sizeof(*g), cmp_group_rank);
	*n_out = n;
}

static const char *op_name(const struct gs_trace *t, uint32_t op)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	return op < n ? gs_trace_string(t, ops[op].name) : "?";
}

/* One wait of a side as a member of its group. */
static void wait_member(const struct gs_report *rk, const struct gs_report_device *d, size_t i,
			int s, struct gs_diff_group *g)
{
	const struct gs_wait *w = &rk->waits[d->waits[i]];

	g->kind = w->kind;
	g->name = op_name(rk->t, w->consumer);
	g->stream = gs_report_op_stream(rk->t, w->consumer);
	g->peer = op_name(rk->t, w->producer);
	g->peer_stream = gs_report_op_stream(rk->t, w->producer);
	g->ns[s] = w->wait_ns;
}

/* One missed overlap of a side as a member of its group. */
static void missed_member(const struct gs_report *rk, const struct gs_report_device *d, size_t i,
			  int s, struct gs_diff_group *g)
{
	const struct gs_missed_overlap *mo = &d->missed[i];
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(rk->t, &n_ops);

	g->kind = mo->op < n_ops ? ops[mo->op].copy_kind : 0;
	g->name = op_name(rk->t, mo->op);
	g->stream = gs_report_op_stream(rk->t, mo->op);
	g->peer = "";
	g->ns[s] = mo->exposed_ns;
	g->hideable_ns[s] = mo->hideable_ns;
}

/* What a table of groups is made of: how many rows a side's device
 * section has, and row i as a member of its group. */
struct group_table {
	size_t (*rows)(const struct gs_report_device *d);
	void (*member)(const struct gs_report *rk, const struct gs_report_device *d, size_t i,
		       int s, struct gs_diff_group *g);
};

static size_t wait_rows(const struct gs_report_device *d)
{
	return d->n_waits;
}

static size_t missed_rows(const struct gs_report_device *d)
{
	return d->n_missed;
}

static const struct group_table waits_table = {wait_rows, wait_member};
static const struct group_table missed_table = {missed_rows, missed_member};

/* Every row of both sides, one member each, grouped (merge_groups). */
static gs_status build_groups(struct gs_diff_gpu *dd, const struct group_table *tb,
			      struct gs_diff_group **out, size_t *n_out)
{
	size_t n = 0, m = 0;
	struct gs_diff_group *g;

	for (int s = 0; s < 2; s++)
		if (dd->dev[s])
			n += tb->rows(dd->dev[s]);
	g = calloc(n ? n : 1, sizeof(*g));
	if (!g)
		return gs_nomem();
	for (int s = 0; s < 2; s++) {
		const struct gs_report_device *d = dd->dev[s];

		for (size_t i = 0; d && i < tb->rows(d); i++) {
			tb->member(dd->report[s], d, i, s, &g[m]);
			g[m].count[s] = 1;
			m++;
		}
	}
	merge_groups(dd, g, m, n_out);
	*out = g;
	return GS_OK;
}

/* A GPU of one side: its rank's report and its section. */
struct side_dev {
	const struct gs_report *rk;
	const struct gs_report_device *d;
	uint32_t rank, device; /* the sort key */
};

/* The GPUs of one side in (rank, device) order: a job's ranks come in rank
 * order and each rank's devices in ascending order. */
static struct side_dev *side_devices(const struct gs_report *r, size_t *n)
{
	const struct gs_report *const *rk = r->job ? (const struct gs_report *const *)r->ranks : &r;
	size_t n_rk = r->job ? r->n_ranks : 1, m = 0;
	struct side_dev *out;

	for (size_t i = 0; i < n_rk; i++)
		m += rk[i]->n_dev;
	out = calloc(m ? m : 1, sizeof(*out));
	if (!out)
		return NULL;
	*n = 0;
	for (size_t i = 0; i < n_rk; i++)
		for (size_t k = 0; k < rk[i]->n_dev; k++)
			out[(*n)++] = (struct side_dev){.rk = rk[i],
							.d = &rk[i]->dev[k],
							.rank = rk[i]->rank,
							.device = rk[i]->dev[k].device};
	return out;
}

static int cmp_side_dev(const struct side_dev *a, const struct side_dev *b)
{
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return 0;
}

/* One pair of GPUs (a side NULL when absent): its rows. */
static gs_status fill_pair(struct gs_diff_gpu *dd, const struct side_dev *b,
			   const struct side_dev *nw, bool in_job, bool explicit_pair)
{
	gs_status st;

	if (b) {
		dd->dev[GS_DIFF_BASE] = b->d;
		dd->report[GS_DIFF_BASE] = b->rk;
	}
	if (nw) {
		dd->dev[GS_DIFF_NEW] = nw->d;
		dd->report[GS_DIFF_NEW] = nw->rk;
	}
	dd->in_job = in_job;
	dd->explicit_pair = explicit_pair;
	for (int s = 0; s < 2; s++) {
		if (!dd->dev[s])
			continue;
		dd->device = dd->device_of[s] = dd->dev[s]->device;
		dd->rank = dd->rank_of[s] = dd->report[s]->rank;
		fill_metrics(dd, s);
	}
	dd->name = dd->dev[GS_DIFF_NEW] && *dd->dev[GS_DIFF_NEW]->name ?
			   dd->dev[GS_DIFF_NEW]->name :
		   dd->dev[GS_DIFF_BASE] ? dd->dev[GS_DIFF_BASE]->name :
					   "";
	st = build_kernels(dd);
	if (!st)
		st = set_basis(dd);
	if (!st) {
		rank_kernels(dd);
		st = build_groups(dd, &waits_table, &dd->waits, &dd->n_waits);
	}
	if (!st)
		st = build_groups(dd, &missed_table, &dd->missed, &dd->n_missed);
	return st;
}

/* The GPU of a side that a pair names: its index, or an error. */
static gs_status find_gpu(const struct side_dev *sd, size_t n, int64_t rank, uint32_t device,
			  const char *side, size_t *out)
{
	size_t found = n;

	for (size_t i = 0; i < n; i++) {
		if (sd[i].device != device || (rank >= 0 && sd[i].rank != (uint64_t)rank))
			continue;
		if (found < n) {
			gs_error_append(
				"%s has GPU %u in ranks %u and %u: name the rank (RANK/GPU)", side,
				device, sd[found].rank, sd[i].rank);
			return GS_ERR_INVALID;
		}
		found = i;
	}
	if (found == n) {
		if (rank >= 0)
			gs_error_append("no GPU %u of rank %lld in %s", device, (long long)rank,
					side);
		else
			gs_error_append("no GPU %u in %s", device, side);
		return GS_ERR_INVALID;
	}
	*out = found;
	return GS_OK;
}

/* An explicit pair of two GPU models (both named, the names differ): a
 * warning, since its times compare different hardware. */
static gs_status check_models(struct gs_diff *df, struct gs_diff_gpu *dd)
{
	const char *a = dd->dev[GS_DIFF_BASE]->name, *b = dd->dev[GS_DIFF_NEW]->name;
	char line[3 * GS_ERROR_MSG_MAX / 2], **grown;

	if (!*a || !*b || strcmp(a, b) == 0)
		return GS_OK;
	dd->models_differ = true;
	if (dd->in_job)
		snprintf(line, sizeof(line),
			 "--pair %u/%u:%u/%u compares two GPU models: %.200s (base) and %.200s "
			 "(new)",
			 dd->rank_of[0], dd->device_of[0], dd->rank_of[1], dd->device_of[1], a, b);
	else
		snprintf(line, sizeof(line),
			 "--pair %u:%u compares two GPU models: %.200s (base) and %.200s (new)",
			 dd->device_of[0], dd->device_of[1], a, b);
	grown = realloc(df->warnings, (df->n_warnings + 1) * sizeof(*grown));
	if (!grown)
		return gs_nomem();
	df->warnings = grown;
	df->warnings[df->n_warnings] = strdup(line);
	if (!df->warnings[df->n_warnings])
		return gs_nomem();
	df->n_warnings++;
	return GS_OK;
}

/* The explicit pairs first, in the order given; then the other GPUs,
 * matched by (rank, device): a job's GPU 0 of rank 3 is compared with
 * GPU 0 of rank 3, never with another rank's GPU 0. */
static gs_status build_devices(struct gs_diff *df)
{
	struct side_dev *sd[2];
	bool *used[2];
	size_t n[2] = {0, 0}, i[2] = {0, 0};
	bool in_job = (df->r[0]->job && df->r[0]->n_ranks > 1) ||
		      (df->r[1]->job && df->r[1]->n_ranks > 1);
	gs_status st = GS_OK;

	sd[0] = side_devices(df->r[0], &n[0]);
	sd[1] = side_devices(df->r[1], &n[1]);
	used[0] = calloc(n[0] + 1, sizeof(bool));
	used[1] = calloc(n[1] + 1, sizeof(bool));
	df->gpus = calloc(n[0] + n[1] ? n[0] + n[1] : 1, sizeof(*df->gpus));
	if (!sd[0] || !sd[1] || !used[0] || !used[1] || !df->gpus) {
		st = gs_nomem();
		goto out;
	}
	for (size_t k = 0; k < df->n_pairs && !st; k++) {
		const struct gs_diff_pair *p = &df->pairs[k];
		size_t x = 0, y = 0;

		st = find_gpu(sd[0], n[0], p->base_rank, p->base_device, "base", &x);
		if (!st)
			st = find_gpu(sd[1], n[1], p->new_rank, p->new_device, "new", &y);
		if (!st && (used[0][x] || used[1][y])) {
			gs_error_append("%s GPU %u is in two pairs", used[0][x] ? "base" : "new",
					used[0][x] ? p->base_device : p->new_device);
			st = GS_ERR_INVALID;
		}
		if (st) {
			gs_error_append("pairing base GPU %u with new GPU %u", p->base_device,
					p->new_device);
			break;
		}
		used[0][x] = used[1][y] = true;
		st = fill_pair(&df->gpus[df->n_gpus++], &sd[0][x], &sd[1][y], in_job, true);
		if (!st)
			st = check_models(df, &df->gpus[df->n_gpus - 1]);
	}
	while (!st) {
		const struct side_dev *b, *nw;
		int c;

		while (i[0] < n[0] && used[0][i[0]])
			i[0]++;
		while (i[1] < n[1] && used[1][i[1]])
			i[1]++;
		if (i[0] >= n[0] && i[1] >= n[1])
			break;
		b = i[0] < n[0] ? &sd[0][i[0]] : NULL;
		nw = i[1] < n[1] ? &sd[1][i[1]] : NULL;
		c = b && nw ? cmp_side_dev(b, nw) : b ? -1 : 1;
		i[0] += c <= 0;
		i[1] += c >= 0;
		st = fill_pair(&df->gpus[df->n_gpus++], c <= 0 ? b : NULL, c >= 0 ? nw : NULL,
			       in_job, false);
	}
out:
	free(used[0]);
	free(used[1]);
	free(sd[0]);
	free(sd[1]);
	return st;
}

/* Labels, formats and top from the options; NULL on no memory. */
static struct gs_diff *diff_new(const struct gs_diff_options *o)
{
	struct gs_diff *df = calloc(1, sizeof(*df));

	if (!df)
		return NULL;
	df->top = o->top ? o->top : DEFAULT_TOP;
	df->max_edges = o->max_edges;
	df->pairs = o->pairs;
	df->n_pairs = o->pairs ? o->n_pairs : 0;
	df->label[0] = dup_or(o->base_name, "base");
	df->label[1] = dup_or(o->new_name, "new");
	df->format[0] = dup_or(o->base_format, "");
	df->format[1] = dup_or(o->new_format, "");
	if (!df->label[0] || !df->label[1] || !df->format[0] || !df->format[1]) {
		gs_diff_destroy(df);
		return NULL;
	}
	return df;
}

/* Both runs' reports (of two traces, or of two jobs when j is not NULL),
 * then the pairs; *out the diff, or NULL and the error. */
static gs_status diff_build(const struct gs_trace *const t[2], const struct gs_job *const j[2],
			    const struct gs_diff_options *o, struct gs_diff **out)
{
	static const struct gs_diff_options defaults = {0};
	struct gs_diff *df = diff_new(o ? o : &defaults);
	gs_status st = GS_OK;

	if (!df)
		return gs_nomem();
	for (int s = 0; s < 2 && !st; s++) {
		struct gs_report_options ro = {
			.inputs = (const char *const *)&df->label[s],
			.n_inputs = 1,
			.format = df->format[s],
			.max_edges = df->max_edges,
			.rows = GS_REPORT_ROWS_ALL, /* every wait and missed overlap compared */
			/* The whole runs: the comparison counts iterations itself. */
			.steps = {.pick = GS_STEP_NONE},
		};

		st = j ? gs_report_build_job(j[s], &ro, &df->r[s]) :
			 gs_report_build(t[s], &ro, &df->r[s]);
		if (st)
			gs_error_append("%s", df->label[s]);
	}
	if (!st)
		st = build_devices(df);
	if (st) {
		gs_diff_destroy(df);
		return st;
	}
	*out = df;
	return GS_OK;
}

gs_status gs_diff_build_job(const struct gs_job *base, const struct gs_job *newt,
			    const struct gs_diff_options *o, struct gs_diff **out)
{
	const struct gs_job *const j[2] = {base, newt};

	if (out)
		*out = NULL;
	if (!base || !newt || !out) {
		gs_error_append("gs_diff_build_job: no %s", out ? "job" : "output");
		return GS_ERR_INVALID;
	}
	return diff_build(NULL, j, o, out);
}

gs_status gs_diff_build(const struct gs_trace *base, const struct gs_trace *newt,
			const struct gs_diff_options *o, struct gs_diff **out)
{
	const struct gs_trace *const t[2] = {base, newt};

	if (out)
		*out = NULL;
	if (!base || !newt || !out) {
		gs_error_append("gs_diff_build: no %s", out ? "trace" : "output");
		return GS_ERR_INVALID;
	}
	return diff_build(t, NULL, o, out);
}

void gs_diff_destroy(struct gs_diff *df)
{
	if (!df)
		return;
	for (size_t i = 0; i < df->n_gpus; i++) {
		free(df->gpus[i].kernels);
		free(df->gpus[i].waits);
		free(df->gpus[i].missed);
	}
	free(df->gpus);
	for (int s = 0; s < 2; s++) {
		gs_report_destroy(df->r[s]);
		free(df->label[s]);
		free(df->format[s]);
	}
	for (size_t i = 0; i < df->n_warnings; i++)
		free(df->warnings[i]);
	free(df->warnings);
	gs_gate_verdict_destroy(df->verdict);
	free(df);
}

const char *const *gs_diff_warnings(const struct gs_diff *df, size_t *n)
{
	*n = df ? df->n_warnings : 0;
	return df ? (const char *const *)df->warnings : NULL;
}

const struct gs_diff_gpu *gs_diff_gpus(const struct gs_diff *df, size_t *n)
{
	*n = df ? df->n_gpus : 0;
	return df && df->n_gpus ? df->gpus : NULL;
}

size_t gs_diff_top(const struct gs_diff *df)
{
	return df ? df->top : DEFAULT_TOP;
}

/* Ops and GPUs of one side (a job: all its ranks). */
void gs_diff_run(const struct gs_diff *df, int side, struct gs_diff_run *out)
{
	const struct gs_report *r = df ? df->r[side ? GS_DIFF_NEW : GS_DIFF_BASE] : NULL;
	const struct gs_report *const *rk;
	size_t n_rk, n;

	if (!r) {
		*out = (struct gs_diff_run){.label = "", .format = ""};
		return;
	}
	rk = r->job ? (const struct gs_report *const *)r->ranks : &r;
	n_rk = r->job ? r->n_ranks : 1;
	out->label = df->label[side ? 1 : 0];
	out->format = df->format[side ? 1 : 0];
	out->ops = out->gpus = 0;
	for (size_t i = 0; i < n_rk; i++) {
		gs_trace_ops(rk[i]->t, &n);
		out->ops += n;
		out->gpus += rk[i]->n_dev;
	}
}

size_t gs_diff_compared(const struct gs_diff *df)
{
	size_t k = 0;

	for (size_t i = 0; df && i < df->n_gpus; i++)
		k += df->gpus[i].dev[GS_DIFF_BASE] && df->gpus[i].dev[GS_DIFF_NEW];
	return k;
}

/* "rank 0 GPU 1" (a job) or "GPU 1", and the --pair form "0/1" or "1". */
static void gpu_name(const struct gs_diff_gpu *dd, int s, char *name, size_t size, char *pair,
		     size_t psize)
{
	if (dd->in_job) {
		snprintf(name, size, "rank %u GPU %u", dd->rank_of[s], dd->device_of[s]);
		snprintf(pair, psize, "%u/%u", dd->rank_of[s], dd->device_of[s]);
	} else {
		snprintf(name, size, "GPU %u", dd->device_of[s]);
		snprintf(pair, psize, "%u", dd->device_of[s]);
	}
}

/* The GPUs only one side has, as a list that fits: "GPU 0, GPU 1, ...". */
static void only_in(const struct gs_diff *df, int s, char *buf, size_t size, char *first,
		    size_t fsize)
{
	size_t len = 0, listed = 0;

	buf[0] = first[0] = '\0';
	for (size_t i = 0; i < df->n_gpus; i++) {
		const struct gs_diff_gpu *dd = &df->gpus[i];
		char name[64], pair[32];

		if (!dd->dev[s] || dd->dev[1 - s])
			continue;
		gpu_name(dd, s, name, sizeof(name), pair, sizeof(pair));
		if (!listed)
			snprintf(first, fsize, "%s", pair);
		if (listed == 8) {
			snprintf(buf + len, size - len, ", ...");
			break;
		}
		int k = snprintf(buf + len, size - len, "%s%s", listed ? ", " : "", name);

		if (k < 0 || (size_t)k >= size - len)
			break;
		len += (size_t)k;
		listed++;
	}
}

gs_status gs_diff_check_compared(const struct gs_diff *df)
{
	char a[192], b[192], pa[32], pb[32];

	if (!df) {
		gs_error_append("gs_diff_check_compared: no diff");
		return GS_ERR_INVALID;
	}
	if (gs_diff_compared(df))
		return GS_OK;
	only_in(df, GS_DIFF_BASE, a, sizeof(a), pa, sizeof(pa));
	only_in(df, GS_DIFF_NEW, b, sizeof(b), pb, sizeof(pb));
	if (!*a || !*b) {
		gs_error_append("no GPU is compared: %s has no GPU ops", *a ? "new" : "base");
		return GS_ERR_INVALID;
	}
	gs_error_append("no GPU is in both runs, so nothing is compared (GPUs pair by rank and "
			"device id): only in base: %s; only in new: %s; pair them with --pair "
			"BASE_GPU:NEW_GPU (--pair %s:%s)",
			a, b, pa, pb);
	return GS_ERR_INVALID;
}

/* Per rank report of a side, the median of its default steps' GPU times
 * (as analyze picks them: every whole step but the first); computed once
 * per report. */
struct step_memo {
	const struct gs_report *rk;
	int64_t ns;
};

static gs_status steps_median(const struct gs_report *rk, struct step_memo *memo, size_t *n_memo,
			      int64_t *out)
{
	struct gs_steps steps;
	gs_status st;

	for (size_t i = 0; i < *n_memo; i++) {
		if (memo[i].rk == rk) {
			*out = memo[i].ns;
			return GS_OK;
		}
	}
	memset(&steps, 0, sizeof(steps));
	st = gs_steps_find(rk->t, NULL, &steps);
	*out = st == GS_OK ? gs_gate_steps_median(&steps) : -1;
	gs_steps_fini(&steps);
	if (st != GS_OK)
		return st;
	memo[(*n_memo)++] = (struct step_memo){rk, *out};
	return GS_OK;
}

gs_status gs_diff_gate(struct gs_diff *df, const struct gs_gate *g)
{
	struct gs_gate_gpu *gpus;
	struct step_memo *memo = NULL;
	bool steps = gs_gate_wants_steps(g);
	size_t n = 0, n_memo = 0;
	gs_status st = GS_OK;

	if (!df || !g) {
		gs_error_append("gs_diff_gate: no %s", df ? "gate" : "diff");
		return GS_ERR_INVALID;
	}
	if (gs_gate_use(g) != GS_GATE_DIFF) {
		gs_error_append("gs_diff_gate: thresholds parsed for a report");
		return GS_ERR_INVALID;
	}
	gpus = calloc(df->n_gpus ? df->n_gpus : 1, sizeof(*gpus));
	if (steps)
		memo = calloc(2 * df->n_gpus + 1, sizeof(*memo));
	if (!gpus || (steps && !memo)) {
		free(gpus);
		free(memo);
		return gs_nomem();
	}
	for (size_t i = 0; i < df->n_gpus && st == GS_OK; i++) {
		const struct gs_diff_gpu *dd = &df->gpus[i];
		struct gs_gate_gpu *x = &gpus[n];

		if (!dd->dev[GS_DIFF_BASE] || !dd->dev[GS_DIFF_NEW])
			continue;
		n++;
		for (int s = 0; s < 2; s++) {
			x->d[s] = dd->dev[s];
			x->f[s] = dd->divisor[s];
			x->rank[s] = dd->rank_of[s];
			x->device[s] = dd->device_of[s];
			x->step_ns[s] = -1;
			if (steps && st == GS_OK)
				st = steps_median(dd->report[s], memo, &n_memo, &x->step_ns[s]);
		}
		x->in_job = dd->in_job;
		x->paired = dd->explicit_pair;
	}
	gs_gate_verdict_destroy(df->verdict);
	df->verdict = NULL;
	if (st == GS_OK)
		st = gs_gate_evaluate(g, gpus, n, &df->verdict);
	free(gpus);
	free(memo);
	if (st != GS_OK)
		gs_error_append("--fail-if");
	return st;
}

const struct gs_gate_verdict *gs_diff_verdict(const struct gs_diff *df)
{
	return df ? df->verdict : NULL;
}
