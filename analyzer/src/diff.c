/* SPDX-License-Identifier: MIT */
/*
 * `gpuscope diff BASE NEW` (analyzer.h, "diff"): the analyze report of each
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
 */
#include "report_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

#define WIDTH 100
#define DEFAULT_TOP 10

enum {
	SIDE_BASE = 0,
	SIDE_NEW = 1
};

enum metric_id {
	M_WINDOW,
	M_KERNEL,
	M_COPY,
	M_SYNC,
	M_IDLE,
	M_COPY_HIDDEN,
	M_CONCURRENCY,
	M_HOST_BOUND,
	M_LAUNCH_LATENCY,
	M_UNATTRIBUTED,
	M_ACTUAL,
	M_DEP_BOUND,
	M_IDEAL,
	M_PIPELINED,
	M_OPS,
	M_KERNELS,
	M_MEMCPYS,
	M_MEMSETS,
	M_WAITS,
	M_WAIT_NS,
	M_MISSED,
	M_MISSED_NS,
	M_COUNT
};

static const struct {
	const char *key;  /* JSON */
	const char *text; /* text label */
	bool ns;          /* a duration (else a count) */
} metrics[M_COUNT] = {
	[M_WINDOW] = {"window_ns", "window", true},
	[M_KERNEL] = {"kernel_ns", "kernel", true},
	[M_COPY] = {"copy_ns", "copy (exposed)", true},
	[M_SYNC] = {"sync_ns", "sync (exposed)", true},
	[M_IDLE] = {"idle_ns", "idle", true},
	[M_COPY_HIDDEN] = {"copy_hidden_ns", "copy hidden", true},
	[M_CONCURRENCY] = {"kernel_concurrency_ns", "kernel concurrency", true},
	[M_HOST_BOUND] = {"host_bound_ns", "idle: host bound", true},
	[M_LAUNCH_LATENCY] = {"launch_latency_ns", "idle: launch latency", true},
	[M_UNATTRIBUTED] = {"unattributed_ns", "idle: unattributed", true},
	[M_ACTUAL] = {"actual_ns", "actual", true},
	[M_DEP_BOUND] = {"dependency_bound_ns", "dependency bound", true},
	[M_IDEAL] = {"ideal_ns", "ideal", true},
	[M_PIPELINED] = {"pipelined_batches_ns", "pipelined batches", true},
	[M_OPS] = {"ops", "ops", false},
	[M_KERNELS] = {"kernels", "kernels", false},
	[M_MEMCPYS] = {"memcpys", "memcpys", false},
	[M_MEMSETS] = {"memsets", "memsets", false},
	[M_WAITS] = {"waits", "waits", false},
	[M_WAIT_NS] = {"wait_ns", "wait time", true},
	[M_MISSED] = {"missed_overlaps", "missed overlaps", false},
	[M_MISSED_NS] = {"missed_exposed_ns", "missed: exposed", true},
};

/* Kernels of one name on one device. */
struct kern_row {
	const char *name;
	uint64_t count[2];
	int64_t ns[2];
};

enum group_status {
	ST_SAME,
	ST_CHANGED,
	ST_NEW,
	ST_VANISHED
};
static const char *const status_names[] = {"same", "changed", "new", "vanished"};

/* A group of waits or of missed overlaps. */
struct group {
	uint8_t kind;  /* waits: enum gs_edge_kind; missed: enum gs_copy_kind */
	const char *a; /* waits: consumer name; missed: copy name */
	uint64_t sa;   /* its stream id */
	const char *b; /* waits: producer name; missed: unused ("") */
	uint64_t sb;
	uint64_t count[2];
	int64_t ns[2];    /* wait_ns; missed: exposed_ns */
	int64_t extra[2]; /* missed: hideable_ns */
	uint8_t status;
};

struct dev_diff {
	uint32_t device;
	uint32_t rank;
	bool in_job; /* a side has two or more ranks: name the rank */
	const char *name;
	const struct gs_report_device *d[2]; /* NULL when absent on that side */
	const struct gs_report *rk[2];       /* the rank's report on each side */
	int64_t m[2][M_COUNT];
	double eff[2];
	struct kern_row *kernels;
	size_t n_kernels;
	struct group *waits;
	size_t n_waits;
	struct group *missed;
	size_t n_missed;
};

struct gs_diff {
	struct gs_report *r[2]; /* a report, or the report of a job */
	char *label[2];
	char *format[2];
	size_t top;
	uint64_t max_edges;
	struct dev_diff *dev;
	size_t n_dev;
};

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

static void fill_metrics(struct dev_diff *dd, int side)
{
	const struct gs_report_device *d = dd->d[side];
	int64_t *m = dd->m[side];

	m[M_WINDOW] = d->b.window_ns;
	m[M_KERNEL] = d->b.total_ns[GS_CAT_KERNEL];
	m[M_COPY] = d->b.total_ns[GS_CAT_COPY];
	m[M_SYNC] = d->b.total_ns[GS_CAT_SYNC];
	m[M_IDLE] = d->b.total_ns[GS_CAT_IDLE];
	m[M_COPY_HIDDEN] = d->b.copy_hidden_ns;
	m[M_CONCURRENCY] = d->b.kernel_concurrency_ns;
	m[M_HOST_BOUND] = d->b.host_bound_ns;
	m[M_LAUNCH_LATENCY] = d->b.launch_latency_ns;
	m[M_UNATTRIBUTED] = d->b.unattributed_ns;
	m[M_ACTUAL] = d->actual_ns;
	m[M_DEP_BOUND] = d->dependency_bound_ns;
	m[M_IDEAL] = d->ideal_ns;
	m[M_PIPELINED] = d->pipelined.makespan_ns;
	m[M_OPS] = (int64_t)d->ops;
	m[M_KERNELS] = (int64_t)d->op_kinds[GS_OP_KERNEL];
	m[M_MEMCPYS] = (int64_t)d->op_kinds[GS_OP_MEMCPY];
	m[M_MEMSETS] = (int64_t)d->op_kinds[GS_OP_MEMSET];
	m[M_WAITS] = (int64_t)d->n_waits;
	m[M_WAIT_NS] = d->wait_ns;
	m[M_MISSED] = (int64_t)d->n_missed;
	m[M_MISSED_NS] = d->missed_exposed_ns;
	dd->eff[side] = d->efficiency;
}

static int cmp_kern_name(const void *pa, const void *pb)
{
	const struct kern_row *a = pa, *b = pb;

	return strcmp(a->name, b->name);
}

static int64_t kern_delta(const struct kern_row *k)
{
	return k->ns[SIDE_NEW] - k->ns[SIDE_BASE];
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

static int cmp_kern_change(const void *pa, const void *pb)
{
	const struct kern_row *a = pa, *b = pb;
	int64_t x = abs64(kern_delta(a)), y = abs64(kern_delta(b));

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

static gs_status build_kernels(struct dev_diff *dd)
{
	size_t n = 0, m = 0, i;
	struct kern_row *rows;

	for (int s = 0; s < 2; s++)
		if (dd->d[s])
			n += dd->d[s]->n_kernels;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return gs_nomem();
	for (int s = 0; s < 2; s++) {
		for (i = 0; dd->d[s] && i < dd->d[s]->n_kernels; i++) {
			const struct gs_report_kernel *k = &dd->d[s]->kernels[i];

			rows[m].name = gs_trace_string(dd->rk[s]->t, k->name);
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
	qsort(rows, n, sizeof(*rows), cmp_kern_change);
	dd->kernels = rows;
	dd->n_kernels = n;
	return GS_OK;
}

static int cmp_group_key(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	c = strcmp(a->a, b->a);
	if (c)
		return c;
	if (a->sa != b->sa)
		return a->sa < b->sa ? -1 : 1;
	c = strcmp(a->b, b->b);
	if (c)
		return c;
	if (a->sb != b->sb)
		return a->sb < b->sb ? -1 : 1;
	return 0;
}

static int64_t group_weight(const struct group *g)
{
	switch (g->status) {
	case ST_NEW:
		return g->ns[SIDE_NEW];
	case ST_VANISHED:
		return g->ns[SIDE_BASE];
	default:
		return abs64(g->ns[SIDE_NEW] - g->ns[SIDE_BASE]);
	}
}

/* new, vanished, changed, same; within each the most time first. */
static int cmp_group_rank(const void *pa, const void *pb)
{
	static const int order[] =
		{[ST_NEW] = 0, [ST_VANISHED] = 1, [ST_CHANGED] = 2, [ST_SAME] = 3};
	const struct group *a = pa, *b = pb;
	int64_t x, y;

	if (a->status != b->status)
		return order[a->status] < order[b->status] ? -1 : 1;
	x = group_weight(a);
	y = group_weight(b);
	if (x != y)
		return x > y ? -1 : 1;
	return cmp_group_key(a, b);
}

/* Sort by key, merge equal keys, set each status, rank. */
static void merge_groups(struct group *g, size_t m, size_t *n_out)
{
	size_t n = 0, i;

	qsort(g, m, sizeof(*g), cmp_group_key);
	for (i = 0; i < m; i++) {
		if (n && !cmp_group_key(&g[n - 1], &g[i])) {
			for (int s = 0; s < 2; s++) {
				g[n - 1].count[s] += g[i].count[s];
				g[n - 1].ns[s] += g[i].ns[s];
				g[n - 1].extra[s] += g[i].extra[s];
			}
			continue;
		}
		g[n++] = g[i];
	}
	for (i = 0; i < n; i++) {
		struct group *x = &g[i];

		if (!x->count[SIDE_BASE])
			x->status = ST_NEW;
		else if (!x->count[SIDE_NEW])
			x->status = ST_VANISHED;
		else if (x->count[0] == x->count[1] && x->ns[0] == x->ns[1])
			x->status = ST_SAME;
		else
			x->status = ST_CHANGED;
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

static gs_status build_waits(struct dev_diff *dd)
{
	size_t n = 0, m = 0;
	struct group *g;

	for (int s = 0; s < 2; s++)
		if (dd->d[s])
			n += dd->d[s]->n_waits;
	g = calloc(n ? n : 1, sizeof(*g));
	if (!g)
		return gs_nomem();
	for (int s = 0; s < 2; s++) {
		const struct gs_report *rk = dd->rk[s];
		const struct gs_trace *t = rk ? rk->t : NULL;

		for (size_t i = 0; rk && dd->d[s] && i < dd->d[s]->n_waits; i++) {
			const struct gs_wait *w = &rk->waits[dd->d[s]->waits[i]];

			g[m].kind = w->kind;
			g[m].a = op_name(t, w->consumer);
			g[m].sa = gs_report_op_stream(t, w->consumer);
			g[m].b = op_name(t, w->producer);
			g[m].sb = gs_report_op_stream(t, w->producer);
			g[m].count[s] = 1;
			g[m].ns[s] = w->wait_ns;
			m++;
		}
	}
	merge_groups(g, m, &dd->n_waits);
	dd->waits = g;
	return GS_OK;
}

static gs_status build_missed(struct dev_diff *dd)
{
	size_t n = 0, m = 0;
	struct group *g;

	for (int s = 0; s < 2; s++)
		if (dd->d[s])
			n += dd->d[s]->n_missed;
	g = calloc(n ? n : 1, sizeof(*g));
	if (!g)
		return gs_nomem();
	for (int s = 0; s < 2; s++) {
		const struct gs_trace *t = dd->rk[s] ? dd->rk[s]->t : NULL;
		size_t n_ops = 0;
		const struct gs_op *ops = t ? gs_trace_ops(t, &n_ops) : NULL;

		for (size_t i = 0; dd->d[s] && i < dd->d[s]->n_missed; i++) {
			const struct gs_missed_overlap *mo = &dd->d[s]->missed[i];

			g[m].kind = mo->op < n_ops ? ops[mo->op].copy_kind : 0;
			g[m].a = op_name(t, mo->op);
			g[m].sa = gs_report_op_stream(t, mo->op);
			g[m].b = "";
			g[m].count[s] = 1;
			g[m].ns[s] = mo->exposed_ns;
			g[m].extra[s] = mo->hideable_ns;
			m++;
		}
	}
	merge_groups(g, m, &dd->n_missed);
	dd->missed = g;
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

/* GPUs are matched by (rank, device): a job's GPU 0 of rank 3 is compared
 * with GPU 0 of rank 3, never with another rank's GPU 0. */
static gs_status build_devices(struct gs_diff *df)
{
	struct side_dev *sd[2];
	size_t n[2] = {0, 0}, i[2] = {0, 0};
	bool in_job = (df->r[0]->job && df->r[0]->n_ranks > 1) ||
		      (df->r[1]->job && df->r[1]->n_ranks > 1);
	gs_status st = GS_OK;

	sd[0] = side_devices(df->r[0], &n[0]);
	sd[1] = side_devices(df->r[1], &n[1]);
	df->dev = calloc(n[0] + n[1] ? n[0] + n[1] : 1, sizeof(*df->dev));
	if (!sd[0] || !sd[1] || !df->dev) {
		free(sd[0]);
		free(sd[1]);
		return gs_nomem();
	}
	while (!st && (i[0] < n[0] || i[1] < n[1])) {
		const struct side_dev *b = i[0] < n[0] ? &sd[0][i[0]] : NULL;
		const struct side_dev *nw = i[1] < n[1] ? &sd[1][i[1]] : NULL;
		struct dev_diff *dd = &df->dev[df->n_dev++];
		int c = b && nw ? cmp_side_dev(b, nw) : b ? -1 : 1;

		if (c <= 0) {
			dd->d[SIDE_BASE] = b->d;
			dd->rk[SIDE_BASE] = b->rk;
		}
		if (c >= 0) {
			dd->d[SIDE_NEW] = nw->d;
			dd->rk[SIDE_NEW] = nw->rk;
		}
		dd->in_job = in_job;
		for (int s = 0; s < 2; s++) {
			if (!dd->d[s])
				continue;
			dd->device = dd->d[s]->device;
			dd->rank = dd->rk[s]->rank;
			i[s]++;
			fill_metrics(dd, s);
		}
		dd->name = dd->d[SIDE_NEW] && *dd->d[SIDE_NEW]->name ? dd->d[SIDE_NEW]->name :
			   dd->d[SIDE_BASE]                          ? dd->d[SIDE_BASE]->name :
								       "";
		st = build_kernels(dd);
		if (!st)
			st = build_waits(dd);
		if (!st)
			st = build_missed(dd);
	}
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

gs_status gs_diff_build_job(const struct gs_job *base, const struct gs_job *newt,
			    const struct gs_diff_options *o, struct gs_diff **out)
{
	static const struct gs_diff_options defaults = {0};
	const struct gs_job *j[2] = {base, newt};
	struct gs_diff *df;
	gs_status st = GS_OK;

	if (out)
		*out = NULL;
	if (!base || !newt || !out) {
		gs_error_append("gs_diff_build_job: no %s", out ? "job" : "output");
		return GS_ERR_INVALID;
	}
	df = diff_new(o ? o : &defaults);
	if (!df)
		return gs_nomem();
	for (int s = 0; s < 2 && !st; s++) {
		struct gs_report_options ro = {
			.inputs = (const char *const *)&df->label[s],
			.n_inputs = 1,
			.format = df->format[s],
			.max_edges = df->max_edges,
		};

		st = gs_report_build_job(j[s], &ro, &df->r[s]);
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

gs_status gs_diff_build(const struct gs_trace *base, const struct gs_trace *newt,
			const struct gs_diff_options *o, struct gs_diff **out)
{
	static const struct gs_diff_options defaults = {0};
	struct gs_diff *df;
	gs_status st = GS_OK;

	if (out)
		*out = NULL;
	if (!base || !newt || !out) {
		gs_error_append("gs_diff_build: no %s", out ? "trace" : "output");
		return GS_ERR_INVALID;
	}
	if (!o)
		o = &defaults;
	df = diff_new(o);
	if (!df)
		return gs_nomem();
	for (int s = 0; s < 2 && !st; s++) {
		const struct gs_trace *t = s ? newt : base;
		struct gs_report_options ro = {
			.inputs = (const char *const *)&df->label[s],
			.n_inputs = 1,
			.format = df->format[s],
			.max_edges = df->max_edges,
		};

		st = gs_report_build(t, &ro, &df->r[s]);
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

void gs_diff_destroy(struct gs_diff *df)
{
	if (!df)
		return;
	for (size_t i = 0; i < df->n_dev; i++) {
		free(df->dev[i].kernels);
		free(df->dev[i].waits);
		free(df->dev[i].missed);
	}
	free(df->dev);
	for (int s = 0; s < 2; s++) {
		gs_report_destroy(df->r[s]);
		free(df->label[s]);
		free(df->format[s]);
	}
	free(df);
}

/* ---- JSON ------------------------------------------------------------------ */

static void j_side_i64(struct gs_out *o, const char *key, const struct dev_diff *dd,
		       const int64_t v[2])
{
	gs_out_printf(o, "\"%s\": {\"base\": ", key);
	if (dd->d[SIDE_BASE])
		gs_out_printf(o, "%lld", (long long)v[SIDE_BASE]);
	else
		gs_out_puts(o, "null");
	gs_out_puts(o, ", \"new\": ");
	if (dd->d[SIDE_NEW])
		gs_out_printf(o, "%lld", (long long)v[SIDE_NEW]);
	else
		gs_out_puts(o, "null");
	gs_out_puts(o, ", \"delta\": ");
	if (dd->d[SIDE_BASE] && dd->d[SIDE_NEW])
		gs_out_printf(o, "%lld", (long long)(v[SIDE_NEW] - v[SIDE_BASE]));
	else
		gs_out_puts(o, "null");
	gs_out_putc(o, '}');
}

/* null when not finite: a report gives no efficiency when its schedule
 * broke dependency cycles (report.c). */
static void j_fixed4(struct gs_out *o, double v)
{
	if (!isfinite(v))
		gs_out_puts(o, "null");
	else
		gs_out_printf(o, "%.4f", v);
}

/* Ops and GPUs of one side (a job: all its ranks). */
static void side_counts(const struct gs_report *r, size_t *ops, size_t *gpus)
{
	const struct gs_report *const *rk = r->job ? (const struct gs_report *const *)r->ranks : &r;
	size_t n_rk = r->job ? r->n_ranks : 1, n;

	*ops = *gpus = 0;
	for (size_t i = 0; i < n_rk; i++) {
		gs_trace_ops(rk[i]->t, &n);
		*ops += n;
		*gpus += rk[i]->n_dev;
	}
}

static void j_side(struct gs_out *o, const struct gs_diff *df, int s)
{
	size_t n_ops, n_dev;

	side_counts(df->r[s], &n_ops, &n_dev);
	gs_out_printf(o, "  \"%s\": {\"file\": ", s ? "new" : "base");
	gs_out_json_string(o, df->label[s]);
	gs_out_puts(o, ", \"format\": ");
	gs_out_json_string(o, df->format[s]);
	gs_out_printf(o, ", \"ops\": %llu, \"devices\": %llu}", (unsigned long long)n_ops,
		      (unsigned long long)n_dev);
}

static void j_counts(struct gs_out *o, const struct group *g, const char *ns_key)
{
	gs_out_printf(o,
		      ", \"base_count\": %llu, \"new_count\": %llu, \"base_%s\": %lld, "
		      "\"new_%s\": %lld, \"delta_ns\": %lld",
		      (unsigned long long)g->count[0], (unsigned long long)g->count[1], ns_key,
		      (long long)g->ns[0], ns_key, (long long)g->ns[1],
		      (long long)(g->ns[1] - g->ns[0]));
}

static void j_device(struct gs_out *o, const struct dev_diff *dd)
{
	size_t i;

	gs_out_printf(o, "    {\"device\": %u, \"rank\": %u, \"name\": ", dd->device, dd->rank);
	gs_out_json_string(o, dd->name);
	gs_out_printf(o, ", \"in_base\": %s, \"in_new\": %s,\n      \"metrics\": {",
		      dd->d[SIDE_BASE] ? "true" : "false", dd->d[SIDE_NEW] ? "true" : "false");
	for (i = 0; i < M_COUNT; i++) {
		int64_t v[2] = {dd->m[0][i], dd->m[1][i]};

		gs_out_puts(o, i ? ",\n        " : "\n        ");
		j_side_i64(o, metrics[i].key, dd, v);
	}
	gs_out_puts(o, ",\n        \"efficiency\": {\"base\": ");
	if (dd->d[SIDE_BASE])
		j_fixed4(o, dd->eff[SIDE_BASE]);
	else
		gs_out_puts(o, "null");
	gs_out_puts(o, ", \"new\": ");
	if (dd->d[SIDE_NEW])
		j_fixed4(o, dd->eff[SIDE_NEW]);
	else
		gs_out_puts(o, "null");
	gs_out_puts(o, ", \"delta\": ");
	if (dd->d[SIDE_BASE] && dd->d[SIDE_NEW])
		j_fixed4(o, dd->eff[SIDE_NEW] - dd->eff[SIDE_BASE]);
	else
		gs_out_puts(o, "null");
	gs_out_puts(o, "}\n      },\n      \"dominant\": {\"base\": ");
	if (dd->d[SIDE_BASE])
		gs_out_json_string(o, gs_category_name(dd->d[SIDE_BASE]->b.dominant));
	else
		gs_out_puts(o, "null");
	gs_out_puts(o, ", \"new\": ");
	if (dd->d[SIDE_NEW])
		gs_out_json_string(o, gs_category_name(dd->d[SIDE_NEW]->b.dominant));
	else
		gs_out_puts(o, "null");
	gs_out_puts(o, "},\n      \"kernels\": [");
	for (i = 0; i < dd->n_kernels; i++) {
		const struct kern_row *k = &dd->kernels[i];

		gs_out_puts(o, i ? ",\n        {\"name\": " : "\n        {\"name\": ");
		gs_out_json_string(o, k->name);
		gs_out_printf(o,
			      ", \"base_count\": %llu, \"new_count\": %llu, \"base_ns\": %lld, "
			      "\"new_ns\": %lld, \"delta_ns\": %lld}",
			      (unsigned long long)k->count[0], (unsigned long long)k->count[1],
			      (long long)k->ns[0], (long long)k->ns[1], (long long)kern_delta(k));
	}
	gs_out_puts(o, dd->n_kernels ? "\n      ],\n      \"waits\": [" : "],\n      \"waits\": [");
	for (i = 0; i < dd->n_waits; i++) {
		const struct group *g = &dd->waits[i];

		gs_out_puts(o, i ? ",\n        {\"status\": " : "\n        {\"status\": ");
		gs_out_json_string(o, status_names[g->status]);
		gs_out_puts(o, ", \"kind\": ");
		gs_out_json_string(o, gs_edge_kind_name(g->kind));
		gs_out_puts(o, ", \"consumer\": ");
		gs_out_json_string(o, g->a);
		gs_out_printf(o, ", \"consumer_stream\": %llu, \"producer\": ",
			      (unsigned long long)g->sa);
		gs_out_json_string(o, g->b);
		gs_out_printf(o, ", \"producer_stream\": %llu", (unsigned long long)g->sb);
		j_counts(o, g, "wait_ns");
		gs_out_putc(o, '}');
	}
	gs_out_puts(o, dd->n_waits ? "\n      ],\n      \"missed_overlap\": [" :
				     "],\n      \"missed_overlap\": [");
	for (i = 0; i < dd->n_missed; i++) {
		const struct group *g = &dd->missed[i];

		gs_out_puts(o, i ? ",\n        {\"status\": " : "\n        {\"status\": ");
		gs_out_json_string(o, status_names[g->status]);
		gs_out_puts(o, ", \"name\": ");
		gs_out_json_string(o, g->a);
		gs_out_printf(o, ", \"stream\": %llu, \"direction\": ", (unsigned long long)g->sa);
		gs_out_json_string(o, gs_copy_kind_name(g->kind));
		j_counts(o, g, "exposed_ns");
		gs_out_printf(o, ", \"base_hideable_ns\": %lld, \"new_hideable_ns\": %lld}",
			      (long long)g->extra[0], (long long)g->extra[1]);
	}
	gs_out_puts(o, dd->n_missed ? "\n      ]}" : "]}");
}

gs_status gs_diff_write_json(FILE *f, const struct gs_diff *df)
{
	struct gs_out o;

	if (!f || !df) {
		gs_error_append("gs_diff_write_json: no output or no diff");
		return GS_ERR_INVALID;
	}
	gs_out_init(&o, f);
	gs_out_puts(&o, "{\n  \"schema\": \"gpuscope.diff/1\",\n");
	j_side(&o, df, SIDE_BASE);
	gs_out_puts(&o, ",\n");
	j_side(&o, df, SIDE_NEW);
	gs_out_puts(&o, ",\n  \"devices\": [");
	for (size_t i = 0; i < df->n_dev; i++) {
		gs_out_puts(&o, i ? ",\n" : "\n");
		j_device(&o, &df->dev[i]);
	}
	gs_out_puts(&o, df->n_dev ? "\n  ]\n}\n" : "]\n}\n");
	return gs_out_finish(&o);
}

/* ---- text ------------------------------------------------------------------ */

/* `s` printable (control characters and bad UTF-8 as their escapes,
 * gs_out_text_char) in at most `cols` columns, cut with "..." when longer.
 * Returns the columns used. */
static size_t fit(char *buf, size_t size, const char *s, size_t cols)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = 0, used = 0, total = gs_out_text_cols(s);
	char ch[GS_OUT_CHAR_MAX];

	while (*p && len + GS_OUT_CHAR_MAX + 4 < size) {
		size_t c, adv, n = gs_out_text_char(p, ch, &c, &adv);

		if (total > cols && used + c + 3 > cols) {
			for (int k = 0; k < 3 && used < cols; k++) {
				buf[len++] = '.';
				used++;
			}
			break;
		}
		memcpy(buf + len, ch, n);
		len += n;
		used += c;
		p += adv;
	}
	buf[len] = '\0';
	return used;
}

static void t_cell(struct gs_out *o, const char *s, size_t cols, bool right)
{
	char buf[4 * WIDTH + 16];
	size_t used = fit(buf, sizeof(buf), s, cols);

	if (right)
		for (size_t i = used; i < cols; i++)
			gs_out_putc(o, ' ');
	gs_out_puts(o, buf);
	if (!right)
		for (size_t i = used; i < cols; i++)
			gs_out_putc(o, ' ');
}

/* The last cell of a line: no padding, then the newline. */
static void t_last(struct gs_out *o, const char *s, size_t cols)
{
	char buf[4 * WIDTH + 16];

	fit(buf, sizeof(buf), s, cols);
	gs_out_puts(o, buf);
	gs_out_putc(o, '\n');
}

/* A signed duration: "+1.500 ms", "-830 ns", "0 ns". */
static const char *sdur(char *buf, size_t size, int64_t ns)
{
	if (size < 2)
		return gs_report_dur(buf, size, ns);
	buf[0] = '+';
	gs_report_dur(buf + (ns > 0), size - 1, ns);
	return buf;
}

static const char *value_text(char *buf, size_t size, bool ns, int64_t v)
{
	if (ns)
		return gs_report_dur(buf, size, v);
	snprintf(buf, size, "%lld", (long long)v);
	return buf;
}

/* (new - base) / base as "+12.5%"; "" when base is 0. */
static const char *change_text(char *buf, size_t size, int64_t base, int64_t v)
{
	if (base == 0) {
		snprintf(buf, size, "%s", v ? "new" : "");
		return buf;
	}
	snprintf(buf, size, "%+.1f%%", 100.0 * (double)(v - base) / (double)base);
	return buf;
}

#define C_LABEL 22
#define C_VALUE 18
#define C_DELTA 16
#define C_CHANGE 9

static void t_metric_row(struct gs_out *o, const struct dev_diff *dd, int i)
{
	char b[48], n[48], d[48], c[32];
	bool both = dd->d[0] && dd->d[1];
	int64_t vb = dd->m[0][i], vn = dd->m[1][i];

	gs_out_puts(o, "  ");
	t_cell(o, metrics[i].text, C_LABEL, false);
	t_cell(o, dd->d[0] ? value_text(b, sizeof(b), metrics[i].ns, vb) : "-", C_VALUE, true);
	t_cell(o, dd->d[1] ? value_text(n, sizeof(n), metrics[i].ns, vn) : "-", C_VALUE, true);
	if (!both) {
		gs_out_putc(o, '\n');
		return;
	}
	if (metrics[i].ns)
		sdur(d, sizeof(d), vn - vb);
	else
		snprintf(d, sizeof(d), "%+lld", (long long)(vn - vb));
	t_cell(o, vn == vb ? "=" : d, C_DELTA, true);
	change_text(c, sizeof(c), vb, vn);
	if (vn != vb && *c) {
		gs_out_putc(o, ' ');
		t_cell(o, c, C_CHANGE, true);
	}
	gs_out_putc(o, '\n');
}

static void t_eff_row(struct gs_out *o, const struct dev_diff *dd)
{
	char b[32], n[32], d[32];

	snprintf(b, sizeof(b), "%.4f", dd->eff[0]);
	snprintf(n, sizeof(n), "%.4f", dd->eff[1]);
	snprintf(d, sizeof(d), "%+.4f", dd->eff[1] - dd->eff[0]);
	/* n/a: no efficiency (the schedule broke dependency cycles). */
	if (!isfinite(dd->eff[0]))
		snprintf(b, sizeof(b), "n/a");
	if (!isfinite(dd->eff[1]))
		snprintf(n, sizeof(n), "n/a");
	if (!isfinite(dd->eff[1] - dd->eff[0]))
		snprintf(d, sizeof(d), "n/a");
	gs_out_puts(o, "  ");
	t_cell(o, "efficiency", C_LABEL, false);
	t_cell(o, dd->d[0] ? b : "-", C_VALUE, true);
	t_cell(o, dd->d[1] ? n : "-", C_VALUE, true);
	if (dd->d[0] && dd->d[1])
		t_cell(o, d, C_DELTA, true);
	gs_out_putc(o, '\n');
}

static void t_kernels(struct gs_out *o, const struct gs_diff *df, const struct dev_diff *dd)
{
	size_t shown = dd->n_kernels < df->top ? dd->n_kernels : df->top;
	char a[48], b[48], c[48], k[64];

	if (!dd->n_kernels)
		return;
	gs_out_printf(o, "\n  kernels whose total time changed most (%zu of %zu names)\n", shown,
		      dd->n_kernels);
	gs_out_puts(o, "  ");
	t_cell(o, "delta", 14, true);
	t_cell(o, "base", 14, true);
	t_cell(o, "new", 14, true);
	t_cell(o, "calls", 22, true);
	gs_out_puts(o, "\n    name\n");
	for (size_t i = 0; i < shown; i++) {
		const struct kern_row *r = &dd->kernels[i];

		snprintf(k, sizeof(k), "%llu -> %llu", (unsigned long long)r->count[0],
			 (unsigned long long)r->count[1]);
		gs_out_puts(o, "  ");
		t_cell(o, sdur(a, sizeof(a), kern_delta(r)), 14, true);
		t_cell(o, gs_report_dur(b, sizeof(b), r->ns[0]), 14, true);
		t_cell(o, gs_report_dur(c, sizeof(c), r->ns[1]), 14, true);
		t_cell(o, k, 22, true);
		gs_out_puts(o, "\n    ");
		t_last(o, r->name, WIDTH - 4);
	}
}

static size_t count_status(const struct group *g, size_t n, uint8_t st)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += g[i].status == st;
	return k;
}

/* One group: status, kind, time base / new / delta, count; then what it is
 * on a line of its own. */
static void t_group_line(struct gs_out *o, const struct group *g, const char *kind,
			 const char *what)
{
	char a[48], b[48], d[48], k[48];

	gs_out_puts(o, "  ");
	t_cell(o, status_names[g->status], 9, false);
	t_cell(o, kind, 15, false);
	gs_report_dur(a, sizeof(a), g->ns[0]);
	gs_report_dur(b, sizeof(b), g->ns[1]);
	t_cell(o, g->count[0] ? a : "-", 12, true);
	t_cell(o, g->count[1] ? b : "-", 12, true);
	t_cell(o, sdur(d, sizeof(d), g->ns[1] - g->ns[0]), 13, true);
	snprintf(k, sizeof(k), "%llu -> %llu", (unsigned long long)g->count[0],
		 (unsigned long long)g->count[1]);
	t_cell(o, k, 16, true);
	gs_out_puts(o, "\n             ");
	t_last(o, what, WIDTH - 13);
}

static void t_group_head(struct gs_out *o, const char *what)
{
	gs_out_puts(o, "  ");
	t_cell(o, "status", 9, false);
	t_cell(o, "kind", 15, false);
	t_cell(o, "base", 12, true);
	t_cell(o, "new", 12, true);
	t_cell(o, "delta", 13, true);
	t_cell(o, "count", 16, true);
	gs_out_puts(o, "\n             ");
	gs_out_puts(o, what);
	gs_out_putc(o, '\n');
}

/* The rows worth showing: new, vanished and changed ones, `top` at most. */
static size_t shown_groups(const struct group *g, size_t n, size_t top)
{
	size_t k = 0;

	while (k < n && k < top && g[k].status != ST_SAME)
		k++;
	return k;
}

static void t_waits(struct gs_out *o, const struct gs_diff *df, const struct dev_diff *dd)
{
	size_t shown = shown_groups(dd->waits, dd->n_waits, df->top);
	char what[8 * WIDTH + 64];

	if (!dd->n_waits)
		return;
	gs_out_printf(o,
		      "\n  waits: %zu new, %zu vanished, %zu changed, %zu same (by consumer and "
		      "producer)\n",
		      count_status(dd->waits, dd->n_waits, ST_NEW),
		      count_status(dd->waits, dd->n_waits, ST_VANISHED),
		      count_status(dd->waits, dd->n_waits, ST_CHANGED),
		      count_status(dd->waits, dd->n_waits, ST_SAME));
	if (!shown)
		return;
	t_group_head(o, "consumer <- producer [stream]");
	for (size_t i = 0; i < shown; i++) {
		const struct group *g = &dd->waits[i];

		char ca[4 * WIDTH], cb[4 * WIDTH];

		fit(ca, sizeof(ca), g->a, 38);
		fit(cb, sizeof(cb), g->b, 38);
		snprintf(what, sizeof(what), "%s [%llu] <- %s [%llu]", ca,
			 (unsigned long long)g->sa, cb, (unsigned long long)g->sb);
		t_group_line(o, g, gs_edge_kind_name(g->kind), what);
	}
}

static void t_missed(struct gs_out *o, const struct gs_diff *df, const struct dev_diff *dd)
{
	size_t shown = shown_groups(dd->missed, dd->n_missed, df->top);
	char what[4 * WIDTH];

	if (!dd->n_missed)
		return;
	gs_out_printf(o,
		      "\n  missed overlaps: %zu new, %zu vanished, %zu changed, %zu same (by "
		      "copy, stream, direction)\n",
		      count_status(dd->missed, dd->n_missed, ST_NEW),
		      count_status(dd->missed, dd->n_missed, ST_VANISHED),
		      count_status(dd->missed, dd->n_missed, ST_CHANGED),
		      count_status(dd->missed, dd->n_missed, ST_SAME));
	if (!shown)
		return;
	t_group_head(o, "copy [stream] (exposed time)");
	for (size_t i = 0; i < shown; i++) {
		const struct group *g = &dd->missed[i];

		snprintf(what, sizeof(what), "%.200s [%llu]", g->a, (unsigned long long)g->sa);
		t_group_line(o, g, gs_copy_kind_name(g->kind), what);
	}
}

static void t_device(struct gs_out *o, const struct gs_diff *df, const struct dev_diff *dd)
{
	char name[4 * WIDTH];

	fit(name, sizeof(name), dd->name, 60);
	if (dd->in_job)
		gs_out_printf(o, "\nrank %u \u00b7 GPU %u%s%s%s\n", dd->rank, dd->device,
			      *name ? " (" : "", name, *name ? ")" : "");
	else
		gs_out_printf(o, "\ndevice %u%s%s%s\n", dd->device, *name ? " (" : "", name,
			      *name ? ")" : "");
	if (!dd->d[SIDE_BASE] || !dd->d[SIDE_NEW])
		gs_out_printf(o, "  only in %s\n", dd->d[SIDE_BASE] ? "base" : "new");
	gs_out_puts(o, "  ");
	t_cell(o, "", C_LABEL, false);
	t_cell(o, "base", C_VALUE, true);
	t_cell(o, "new", C_VALUE, true);
	t_cell(o, "delta", C_DELTA, true);
	gs_out_putc(o, ' ');
	t_cell(o, "change", C_CHANGE, true);
	gs_out_putc(o, '\n');
	for (int i = 0; i < M_COUNT; i++) {
		t_metric_row(o, dd, i);
		if (i == M_IDEAL)
			t_eff_row(o, dd);
	}
	gs_out_puts(o, "  ");
	t_cell(o, "dominant", C_LABEL, false);
	t_cell(o, dd->d[0] ? gs_category_name(dd->d[0]->b.dominant) : "-", C_VALUE, true);
	t_cell(o, dd->d[1] ? gs_category_name(dd->d[1]->b.dominant) : "-", C_VALUE, true);
	gs_out_putc(o, '\n');
	t_kernels(o, df, dd);
	t_waits(o, df, dd);
	t_missed(o, df, dd);
}

gs_status gs_diff_write_text(FILE *f, const struct gs_diff *df)
{
	char a[4 * WIDTH], b[4 * WIDTH];
	struct gs_out o;

	if (!f || !df) {
		gs_error_append("gs_diff_write_text: no output or no diff");
		return GS_ERR_INVALID;
	}
	gs_out_init(&o, f);
	fit(a, sizeof(a), df->label[0], WIDTH - 6);
	fit(b, sizeof(b), df->label[1], WIDTH - 6);
	gs_out_printf(&o, "base: %s\nnew:  %s\n", a, b);
	gs_out_puts(&o, "delta = new - base; change = delta / base\n");
	if (!df->n_dev)
		gs_out_puts(&o, "\nneither trace has GPU ops\n");
	for (size_t i = 0; i < df->n_dev; i++)
		t_device(&o, df, &df->dev[i]);
	return gs_out_finish(&o);
}
