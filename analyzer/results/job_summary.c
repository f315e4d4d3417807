/* SPDX-License-Identifier: MIT */
/*
 * Step one of the job analysis (job_sum.h): a rank's plain summary, built
 * from its report and trace: its GPUs' figures, its collective kernels by
 * communicator with their message sizes and the compute before each, its
 * steps, and what the writers show of the rank (its text notes, its HTML
 * drawing), so that gpuscope-mpi can reduce packed summaries (job_pack.c)
 * exactly as one process does.
 */
#include <gpuscope/report_phrases.h>
#include "job_priv.h"
#include "report_build_priv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuscope/search.h>
#include <gpuscope/sort.h>
#include <gpuscope/vec.h>

/* The union of a GPU's compute-class kernels (the kernel table's) in its window:
 * sorted disjoint pieces, and the length before each. */
struct busy {
	struct piece *busy;
	int64_t *before;
	size_t n_busy;
};

/* ---- the collective kind and the message size ---- */

/* Bytes of one element of a dtype as the source names it; 0: unknown. */
static uint64_t dtype_size(const char *d)
{
	static const struct {
		const char *name;
		uint64_t size;
	} sizes[] = {
		{"Float", 4},    {"Float32", 4}, {"Int", 4},   {"Int32", 4}, {"Half", 2},
		{"BFloat16", 2}, {"Float16", 2}, {"Short", 2}, {"Int16", 2}, {"Double", 8},
		{"Float64", 8},  {"Long", 8},    {"Int64", 8}, {"Byte", 1},  {"Char", 1},
		{"Int8", 1},     {"UInt8", 1},   {"Bool", 1},
	};

	if (!d || !*d)
		return 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcasecmp(d, sizes[i].name))
			return sizes[i].size;
	return 0;
}

/* The message size of a collective; -1 when unknown. */
static int64_t message_bytes(const struct gs_trace *t, const struct gs_collective *c)
{
	uint64_t n, size, b;

	if (!c || !c->has_nelems || c->dtype == GS_NO_STRING)
		return -1;
	size = dtype_size(gs_trace_string(t, c->dtype));
	n = c->in_nelems > c->out_nelems ? c->in_nelems : c->out_nelems;
	if (!size || !n || __builtin_mul_overflow(n, size, &b) || b > (uint64_t)INT64_MAX)
		return -1;
	return (int64_t)b;
}

static int cmp_piece(const void *pa, const void *pb)
{
	const struct piece *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

/* The compute kernels of a GPU in its window, as a sorted union. */
static gs_status gpu_busy(const struct gs_trace *t, const struct gs_report_device *d,
			  struct busy *g)
{
	size_t n_ops, n = 0, k = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	uint64_t cap = d->op_kinds[GS_OP_KERNEL];

	g->busy = malloc((cap ? cap : 1) * sizeof(*g->busy));
	if (!g->busy)
		return gs_nomem();
	for (size_t s = 0; s < d->n_streams; s++) {
		size_t first, count;

		gs_trace_stream_ops(t, d->streams[s].index, &first, &count);
		for (size_t i = first; i < first + count && i < n_ops && n < cap; i++) {
			const struct gs_op *op = &ops[i];
			int64_t a = op->start_ns > d->b.window_start ? op->start_ns :
								       d->b.window_start;
			int64_t b = op->end_ns < d->b.window_end ? op->end_ns : d->b.window_end;

			if (op->kind != GS_OP_KERNEL || b <= a ||
			    gs_kernel_class_of(t, op) != GS_KCLASS_COMPUTE)
				continue;
			g->busy[n++] = (struct piece){a, b};
		}
	}
	if (n) {
		qsort(g->busy, n, sizeof(*g->busy), cmp_piece);
		for (size_t i = 1; i < n; i++) {
			if (g->busy[i].a <= g->busy[k].b) {
				if (g->busy[i].b > g->busy[k].b)
					g->busy[k].b = g->busy[i].b;
			} else {
				g->busy[++k] = g->busy[i];
			}
		}
		k++;
	}
	g->n_busy = k;
	g->before = malloc((k + 1) * sizeof(*g->before));
	if (!g->before)
		return gs_nomem();
	g->before[0] = 0;
	for (size_t i = 0; i < k; i++)
		g->before[i + 1] = g->before[i] + (g->busy[i].b - g->busy[i].a);
	return GS_OK;
}

/* Length of the GPU's compute union inside [a, b); O(log pieces). */
static int64_t busy_between(const struct busy *g, int64_t a, int64_t b)
{
	size_t i, j;
	int64_t total;

	if (b <= a || !g->n_busy)
		return 0;
	/* i: the first piece ending after a; j: the first starting at b or later. */
	i = gs_upper_bound_i64_at(g->busy, g->n_busy, sizeof(*g->busy), offsetof(struct piece, b),
				  a);
	j = i + gs_lower_bound_i64_at(g->busy + i, g->n_busy - i, sizeof(*g->busy),
				      offsetof(struct piece, a), b);
	if (i >= j)
		return 0;
	total = g->before[j] - g->before[i];
	if (g->busy[i].a < a)
		total -= a - g->busy[i].a;
	if (g->busy[j - 1].b > b)
		total -= g->busy[j - 1].b - b;
	return total;
}

/* ---- step one: a rank's summary ---- */

/* A communication kernel of a rank and its communicator's key (job_results.h,
 * enum gs_job_key). */
struct entry {
	uint8_t key;
	uint8_t kind;              /* the kind: kind_col, else kind_op */
	uint8_t kind_col, kind_op; /* from the collective's name, the kernel's */
	const char *group;         /* GS_JOB_KEY_GROUP: the group's name */
	int64_t start;
	uint32_t op;
};

static int cmp_key(const struct entry *a, const struct entry *b)
{
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->key == GS_JOB_KEY_GROUP)
		return strcmp(a->group, b->group);
	if (a->key == GS_JOB_KEY_KIND && a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return 0;
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c = cmp_key(a, b);

	if (c)
		return c;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

static bool same_key(const struct entry *a, const struct entry *b)
{
	return cmp_key(a, b) == 0;
}

/* The kinds of an op that is a communication kernel, each name read once:
 * its collective's, its own, and the one that decides (the collective's
 * when it says). */
static void op_kinds(const struct gs_trace *t, const struct gs_op *op,
		     const struct gs_collective *c, struct entry *e)
{
	e->kind_col = (uint8_t)(c && c->name != GS_NO_STRING ?
					job_coll_kind_of_name(gs_trace_string(t, c->name)) :
					GS_JOB_COLL_UNKNOWN);
	e->kind_op = (uint8_t)job_coll_kind_of_name(gs_trace_string(t, op->name));
	e->kind = e->kind_col != GS_JOB_COLL_UNKNOWN ? e->kind_col : e->kind_op;
}

/* The pool offset of `s` in the summary, added when new. Few distinct
 * strings (kernel and group names): a linear search of the ones added. */
struct pool_ids {
	uint32_t *ids;
	size_t n, cap;
};

static gs_status pool_add(struct gs_js_rank *r, struct pool_ids *seen, const char *s, uint32_t *id)
{
	size_t len = strlen(s);

	for (size_t i = 0; seen && i < seen->n; i++)
		if (!strcmp(r->pool + seen->ids[i], s)) {
			*id = seen->ids[i];
			return GS_OK;
		}
	if (r->pool_len + len + 1 > r->pool_cap) {
		size_t nc = r->pool_cap ? r->pool_cap : 256;
		char *p;

		while (nc < r->pool_len + len + 1)
			nc *= 2;
		p = realloc(r->pool, nc);
		if (!p)
			return gs_nomem();
		r->pool = p;
		r->pool_cap = nc;
	}
	if (r->pool_len >= GS_JS_NONE - len - 1) {
		gs_error_append("job summary: strings over 4 GiB");
		return GS_ERR_LIMIT;
	}
	*id = (uint32_t)r->pool_len;
	memcpy(r->pool + r->pool_len, s, len + 1);
	r->pool_len += len + 1;
	if (seen) {
		if (gs_vec_grow((void **)&seen->ids, &seen->cap, seen->n + 1, sizeof(*seen->ids)) !=
		    GS_OK)
			return GS_ERR_NOMEM;
		seen->ids[seen->n++] = *id;
	}
	return GS_OK;
}

/* A kernel starts in the window of its GPU's report. */
static bool starts_in(const struct gs_op *op, const struct gs_report_device *d)
{
	return op->start_ns >= d->b.window_start && op->start_ns <= d->b.window_end;
}

/* The collective kernels of rank `r`, by communicator. */
static gs_status rank_entries(const struct gs_report *r, struct entry **out, size_t *n_out)
{
	const struct gs_trace *t = r->t;
	size_t n_ops, n = 0, cap_e = 0, i;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	struct entry *e = NULL;

	for (size_t k = 0; k < r->n_dev; k++) {
		const struct gs_report_device *d = &r->dev[k];

		for (size_t s = 0; s < d->n_streams; s++) {
			size_t first, count;
			uint32_t si = d->streams[s].index;

			gs_trace_stream_ops(t, si, &first, &count);
			for (i = first; i < first + count && i < n_ops; i++) {
				const struct gs_op *op = &ops[i];
				const struct gs_collective *c;

				if (op->kind != GS_OP_KERNEL || !starts_in(op, d))
					continue;
				c = gs_trace_op_collective(t, op);
				if (!c && !gs_report_comm_name(gs_trace_string(t, op->name)))
					continue;
				if (n == cap_e) {
					size_t nc = cap_e ? cap_e * 2 : 64;
					struct entry *p = realloc(e, nc * sizeof(*p));

					if (!p) {
						free(e);
						return gs_nomem();
					}
					e = p;
					cap_e = nc;
				}
				op_kinds(t, op, c, &e[n]);
				e[n].group = NULL;
				if (e[n].kind == GS_JOB_COLL_SENDRECV) {
					e[n].key = GS_JOB_KEY_P2P;
				} else if (c && c->group != GS_NO_STRING) {
					e[n].key = GS_JOB_KEY_GROUP;
					e[n].group = gs_trace_string(t, c->group);
				} else {
					e[n].key = GS_JOB_KEY_KIND;
				}
				e[n].start = op->start_ns;
				e[n].op = (uint32_t)i;
				n++;
			}
		}
	}
	if (n)
		gs_sort(e, n, sizeof(*e), cmp_entry);
	*out = e;
	*n_out = n;
	return GS_OK;
}

/* One communicator of the rank: entries e[0..n) of one key. */
static gs_status add_js_member(struct gs_js_rank *s, struct pool_ids *seen,
			       const struct gs_report *r, const struct busy *busy,
			       const struct entry *e, size_t n)
{
	const struct gs_trace *t = r->t;
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	struct gs_js_member *m = &s->m[s->n_m];
	const struct gs_collective *c0 = gs_trace_op_collective(t, &ops[e[0].op]);
	gs_status rc = GS_OK;

	memset(m, 0, sizeof(*m));
	m->key = e[0].key;
	m->kind = e[0].key == GS_JOB_KEY_KIND ? e[0].kind : GS_JOB_COLL_UNKNOWN;
	m->group = GS_JS_NONE;
	m->e0_desc = GS_JS_NONE;
	m->k = calloc(n, sizeof(*m->k));
	if (!m->k)
		return gs_nomem();
	s->n_m++;
	m->n = n;
	if (e[0].group)
		rc = pool_add(s, seen, e[0].group, &m->group);
	if (rc == GS_OK && c0) {
		m->e0_group_size = c0->group_size;
		if (c0->group_desc != GS_NO_STRING)
			rc = pool_add(s, seen, gs_trace_string(t, c0->group_desc), &m->e0_desc);
	}
	for (size_t i = 0; i < n && rc == GS_OK; i++) {
		const struct gs_op *op = &ops[e[i].op];
		const struct gs_collective *col = gs_trace_op_collective(t, op);
		struct gs_js_kernel *k = &m->k[i];
		uint32_t dev = gs_report_op_device(t, e[i].op);

		k->start_ns = op->start_ns;
		k->end_ns = op->end_ns;
		k->bytes = message_bytes(t, col);
		k->device = dev;
		k->has_col = col != NULL;
		k->group_size = col ? col->group_size : 0;
		k->kind_col = e[i].kind_col;
		k->kind_op = e[i].kind_op;
		k->kind = e[i].kind;
		k->has_seq = col && col->has_seq;
		k->seq = col && col->has_seq ? col->seq : 0;
		k->group = GS_JS_NONE;
		if (rc == GS_OK && col && col->group != GS_NO_STRING)
			rc = pool_add(s, seen, gs_trace_string(t, col->group), &k->group);
		if (rc == GS_OK)
			rc = pool_add(s, seen,
				      col && col->name != GS_NO_STRING ?
					      gs_trace_string(t, col->name) :
					      gs_trace_string(t, op->name),
				      &k->name);
		for (size_t q = 0; q < r->n_dev; q++) {
			if (r->dev[q].device != dev)
				continue;
			k->compute_before = busy_between(
				&busy[q], i ? m->k[i - 1].end_ns : r->dev[q].b.window_start,
				op->start_ns);
			break;
		}
	}
	return rc;
}

/* The notes of the text report, recorded (report_text.c gives them). */
static void js_note(void *ctx, const char *label, const char *text)
{
	struct gs_js_rank *s = ((void **)ctx)[0];
	gs_status *rc = ((void **)ctx)[1];
	uint32_t l = !strcmp(label, "caution") ? 0 : !strcmp(label, "warning") ? 1 : 2;
	struct gs_js_note *p;

	if (*rc != GS_OK)
		return;
	p = realloc(s->notes, (s->n_notes + 1) * sizeof(*p));
	if (!p) {
		*rc = gs_nomem();
		return;
	}
	s->notes = p;
	p[s->n_notes].label = l;
	*rc = pool_add(s, NULL, text, &p[s->n_notes].text);
	if (*rc == GS_OK)
		s->n_notes++;
}

/* The rank's steps, each with the figures of its GPU of the longest step
 * window. */
static gs_status js_steps(struct gs_js_rank *s, const struct gs_report *r)
{
	const struct gs_steps *st = &r->steps;

	if (!st->n)
		return GS_OK;
	s->steps = calloc(st->n, sizeof(*s->steps));
	if (!s->steps)
		return gs_nomem();
	for (size_t i = 0; i < st->n; i++) {
		const struct gs_step *x = &st->steps[i];
		struct gs_js_step *y = &s->steps[s->n_steps++];
		const struct gs_report_step_stat *best = NULL;

		y->number = x->number;
		y->start_ns = x->gpu_start_ns;
		y->end_ns = x->gpu_end_ns;
		y->selected = x->selected;
		y->partial = x->partial;
		y->efficiency = NAN;
		y->gap_cause = GS_GAP_CAUSE_COUNT;
		for (size_t k = 0; k < r->n_dev; k++) {
			const struct gs_report_device *d = &r->dev[k];
			const struct gs_report_step_stat *f;

			if (!d->step_stats || i >= d->n_step_figures || !d->step_stats[i].has)
				continue;
			f = &d->step_stats[i];
			if (!best || f->window_ns > best->window_ns) {
				best = f;
				y->device = d->device;
			}
		}
		if (!best)
			continue;
		y->has_figures = 1;
		y->idle_ns = best->total_ns[GS_CAT_IDLE];
		y->efficiency = best->efficiency;
		y->gap_cause = best->gap_cause;
		y->gap_cause_ns = best->gap_cause_ns;
	}
	return GS_OK;
}

gs_status gs_js_extract(const struct gs_report *r, struct gs_js_rank **out)
{
	struct gs_js_rank *s = calloc(1, sizeof(*s));
	struct pool_ids seen = {0};
	struct busy *busy = NULL;
	struct entry *e = NULL;
	size_t n_e = 0, n, groups = 0;
	gs_status rc;

	*out = NULL;
	if (!s)
		return gs_nomem();
	s->rank = r->rank;
	s->clock_group = r->clock_group;
	s->clock_domain = r->clock_domain;
	s->rank_declared = r->rank_declared;
	s->host_from_name = r->host_from_name;
	s->clock = r->clock;
	s->wall_offset_ns = r->clock ? r->wall_offset_ns : 0;
	s->world_size = r->world_size;
	s->pid = r->pid;
	rc = pool_add(s, NULL, r->host ? r->host : "", &s->host);
	gs_trace_ops(r->t, &n);
	s->ops = n;
	s->dropped = gs_trace_dropped(r->t);
	gs_trace_streams(r->t, &n);
	s->streams = n;
	gs_report_html_rank_load(r, &s->html_ops, &s->html_lanes);
	s->gpus = calloc(r->n_dev ? r->n_dev : 1, sizeof(*s->gpus));
	busy = calloc(r->n_dev ? r->n_dev : 1, sizeof(*busy));
	if (rc == GS_OK && (!s->gpus || !busy))
		rc = gs_nomem();
	for (size_t k = 0; k < r->n_dev && rc == GS_OK; k++) {
		const struct gs_report_device *d = &r->dev[k];
		struct gs_js_gpu *g = &s->gpus[s->n_gpus++];

		g->device = d->device;
		g->efficiency = d->efficiency;
		g->efficiency_kind = d->efficiency_kind;
		g->window_ns = d->b.window_ns;
		g->window_start = d->b.window_start;
		g->window_end = d->b.window_end;
		memcpy(g->total_ns, d->b.total_ns, sizeof(g->total_ns));
		g->comm_kernels = d->comm_kernels;
		g->comm_ns = d->comm_ns;
		g->comm_union_ns = d->comm_union_ns;
		g->comm_exposed_ns = d->comm_exposed_ns;
		rc = gpu_busy(r->t, d, &busy[k]);
	}
	if (rc == GS_OK)
		rc = rank_entries(r, &e, &n_e);
	for (size_t i = 0; i < n_e; i++)
		groups += !i || !same_key(&e[i - 1], &e[i]);
	if (rc == GS_OK && groups) {
		s->m = calloc(groups, sizeof(*s->m));
		if (!s->m)
			rc = gs_nomem();
	}
	for (size_t i = 0; i < n_e && rc == GS_OK;) {
		size_t k = i + 1;

		while (k < n_e && same_key(&e[i], &e[k]))
			k++;
		rc = add_js_member(s, &seen, r, busy, &e[i], k - i);
		i = k;
	}
	if (rc == GS_OK)
		rc = js_steps(s, r);
	if (rc == GS_OK) {
		void *ctx[2] = {s, &rc};

		gs_report_notes(r, js_note, ctx);
	}
	free(e);
	free(seen.ids);
	for (size_t k = 0; busy && k < r->n_dev; k++) {
		free(busy[k].busy);
		free(busy[k].before);
	}
	free(busy);
	if (rc != GS_OK) {
		gs_js_free(s);
		return rc;
	}
	*out = s;
	return GS_OK;
}

void gs_js_free(struct gs_js_rank *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_m; i++)
		free(r->m[i].k);
	free(r->m);
	free(r->gpus);
	free(r->notes);
	free(r->steps);
	free(r->pool);
	free(r);
}
