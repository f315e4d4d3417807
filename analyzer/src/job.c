/* SPDX-License-Identifier: MIT */
/*
 * The job analysis: what a job of two or more ranks shows that no rank's
 * report shows alone. Built from the ranks' own reports (report.c) and
 * their traces; written into the text, JSON and HTML reports.
 *
 * Per GPU (each GPU of each rank): its window, breakdown (kernel, copy,
 * sync, idle as shares of the window), efficiency, communication kernel
 * time (NCCL / RCCL kernels), exposed communication (the part of the
 * communication kernels' union with no compute kernel of that GPU
 * alongside) and the overlap of communication with compute,
 * 1 - exposed / union (none without communication kernels): all from the
 * rank's report. Over the GPUs: the min, median and max of each, with the
 * rank of each; the median of an even count is the lower middle (the
 * (n - 1) / 2-th of the sorted values), ties go to the lowest rank. An
 * efficiency that is not available (the schedule broke dependency cycles)
 * and an overlap without communication are left out of those.
 *
 * Collectives. The collective kernels of a rank are its kernels that
 * describe a collective (Kineto's NCCL args) or whose name says NCCL /
 * RCCL, that start in the window of their GPU's report. Step one keys them
 * by communicator (the process group the kernel names, else the collective
 * kind, point-to-point kernels apart: never a stream id); step two
 * (job_match.c, whose header says how) aligns the hosts' clocks on the
 * ends of collectives and matches each communicator's collectives across
 * the ranks of a clock group, by sequence number, else by their ends in
 * order, tolerating collectives a trace missed; point-to-point kernels
 * pair with the peer kernel that ends with them. What does not line up is
 * reported as a mismatch, never guessed over; matched kernels that never
 * ran at once are a mismatch, not a wait; a skew within the clocks' error
 * makes no one last.
 *
 * Per matched collective, on its clock group's aligned clock: each rank's
 * arrival (its kernel's start), the skew (last arrival - first arrival),
 * the last rank (the one the others waited for; ties: the lowest rank),
 * each rank's wait (last arrival - its own arrival) and the transfer (the least, over the ranks, of kernel end
 * - last arrival, at least 0: the time the collective took once all were
 * there). Where the message size S is known (the collective's element
 * count, the larger of input and output, times the size of its dtype:
 * Float/Float32/Int/Int32 4, Half/BFloat16/Float16/Short/Int16 2,
 * Double/Float64/Long/Int64 8, Byte/Char/Int8/UInt8/Bool 1, else unknown;
 * taken from the lowest rank that gives it) and the transfer is not 0:
 * the algorithm bandwidth S / transfer and the bus bandwidth, algbw times
 * a factor of the collective's kind for n ranks (the group size the
 * collective declares, else the ranks matched): all-reduce 2(n-1)/n;
 * all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce,
 * send/recv 1; unknown kinds have no bus bandwidth. The kind comes from
 * the collective name, else the kernel name, letters only, any case
 * ("allreduce", "AllReduce", "_allgather_base", "reduce_scatter",
 * "all_to_all", "broadcast", "SendRecv"). The larger element count is
 * the size the bus bandwidth is defined on (an all-gather's gathered
 * output, a reduce-scatter's whole input; an all-reduce's input).
 *
 * Per rank, over its compared collectives: the time it waited for others
 * (the sum of its waits), the times it was last, and its compute before
 * the collectives (the union of its GPU's compute kernels between its
 * previous collective kernel of the communicator, or its window start,
 * and its arrival). A collective with a skew of 0 (all arrived together)
 * has no one to wait for and counts for nobody's times last.
 *
 * Stragglers. Chance alone would make a rank last in E = sum over its
 * collectives (of skew > 0) of 1 / ranks of that collective. A rank is a
 * straggler when it was last in L >= 3 of its P collectives and
 * L >= max(P / 4, min(2 E, (P + E) / 2)): at least a quarter of them and
 * twice what chance gives (for n equal ranks: a share of at least
 * max(1/4, 2/n)), but never more than halfway between chance and always
 * (so that with 2 ranks, where chance is a half, three quarters will do).
 * What it cost the others: the sum, over the collectives it was last in,
 * of the others' waits.
 *
 * Findings, ranked by the time at stake (summed over ranks): each
 * straggler (the others' waits for it; with its compute before the
 * collectives against the median rank's); waits with no straggler (load
 * imbalance across ranks: the sum of all waits); exposed communication
 * (at stake: its part beyond each rank's waits for the others, which the
 * two findings before account for); collectives that do not line up
 * across ranks (no time at stake: last). A finding needs its time to be
 * at least 0.5% of the job's longest GPU window, the mismatches excepted.
 *
 * The JSON lists the JSON_COLLECTIVES collectives of largest skew (fewer
 * when their rows of ranks would pass JSON_RANK_ROWS), with the exact
 * count beside; the HTML draws at most H_DRAWN per clock group (H_RECTS
 * kernels). Everything else is exact.
 *
 * Complexity, for K collective kernels and N compute kernels over all
 * ranks, C matched collectives of n ranks each and G GPUs: O(K log K +
 * N log N) to group and order, O(C n log N) to match, O(C log C) to rank
 * by skew, O(G log G) per metric.
 */
#include "job_priv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuscope/sort.h>
#include "jw.h"
#include "out.h"

#define JSON_COLLECTIVES 1000 /* collectives listed in the JSON, by skew */
#define JSON_RANK_ROWS 100000 /* ... and their rows of ranks, at most */
#define MAX_STRAGGLER_FINDINGS 3
#define MIN_LAST 3 /* a straggler was last at least this often */
#define TEXT_WIDTH 100

/* ------------------------------------------------------------------------ */
/* The analysis                                                               */
/* ------------------------------------------------------------------------ */

/* The union of a GPU's compute-class kernels (the kernel table's) in its window:
 * sorted disjoint pieces, and the length before each. */
struct busy {
	struct piece *busy;
	int64_t *before;
	size_t n_busy;
};

static const struct {
	const char *key;   /* JSON */
	const char *label; /* text, HTML */
	bool ns;           /* a duration (else a fraction) */
} metric_info[M_COUNT] = {
	{"window_ns", "window", true},  {"kernel_share", "kernel", false},
	{"copy_share", "copy", false},  {"sync_share", "sync", false},
	{"idle_share", "idle", false},  {"efficiency", "efficiency", false},
	{"comm_ns", "comm time", true}, {"comm_exposed_ns", "exposed comm", true},
	{"overlap", "overlap", false},
};

/* ---- small helpers ---- */

/* The unit of the comparable times of the text line being written (0:
 * each its own): a line never mixes ms and s. Per thread, as reports of
 * several jobs may be written at once. */
static _Thread_local uint64_t line_unit;

static const char *dur_text(char *buf, size_t size, int64_t ns)
{
	return line_unit ? gs_dur_text_in(buf, size, ns, line_unit, false) :
			   gs_dur_text(buf, size, ns);
}

/* One unit for the line from the largest of its times; line_unit = 0 ends it. */
static void set_line_unit(const int64_t *v, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = v[i] < 0 ? (uint64_t)0 - (uint64_t)v[i] : (uint64_t)v[i];

		m = a > m ? a : m;
	}
	line_unit = gs_dur_unit(m);
}

#define LINE_UNIT(...)                                                                             \
	set_line_unit((const int64_t[]){__VA_ARGS__},                                              \
		      sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

#define DUR(ns) dur_text((char[48]){0}, 48, (ns))
#define PCT(a, b) gs_report_pct((char[32]){0}, 32, (a), (b))

/* Worth a finding: at least 0.5% of `window` (and some time at all). */
static bool significant(int64_t ns, int64_t window)
{
	return ns > 0 && ns >= window / 200 + (window % 200 > 0);
}

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

/* ---- per GPU ---- */

static double metric_value(const struct ja_gpu *g, enum ja_metric m)
{
	const struct gs_js_gpu *d = g->d;
	double win = (double)d->window_ns;

	switch (m) {
	case M_WINDOW:
		return (double)d->window_ns;
	case M_KERNEL:
		return win > 0 ? (double)d->total_ns[GS_CAT_KERNEL] / win : 0;
	case M_COPY:
		return win > 0 ? (double)d->total_ns[GS_CAT_COPY] / win : 0;
	case M_SYNC:
		return win > 0 ? (double)d->total_ns[GS_CAT_SYNC] / win : 0;
	case M_IDLE:
		return win > 0 ? (double)d->total_ns[GS_CAT_IDLE] / win : 0;
	case M_EFF:
		return d->efficiency_kind == GS_REPORT_EFF_CYCLES ? NAN : d->efficiency;
	case M_COMM:
		return (double)d->comm_ns;
	case M_EXPOSED:
		return (double)d->comm_exposed_ns;
	case M_OVERLAP:
		return g->overlap;
	default:
		return NAN;
	}
}

struct stat_key {
	double v;
	size_t gpu;
};

static int cmp_stat_key(const void *pa, const void *pb)
{
	const struct stat_key *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->gpu < b->gpu ? -1 : a->gpu > b->gpu;
}

/* GPUs are in rank order, so ties (by gpu index) go to the lowest rank. */
static gs_status build_stats(struct gs_job_analysis *ja)
{
	struct stat_key *k = malloc((ja->n_gpus ? ja->n_gpus : 1) * sizeof(*k));

	if (!k)
		return gs_nomem();
	for (unsigned m = 0; m < M_COUNT; m++) {
		struct ja_stat *s = &ja->stat[m];
		size_t n = 0;

		for (size_t i = 0; i < ja->n_gpus; i++) {
			double v = metric_value(&ja->gpus[i], (enum ja_metric)m);

			if (isfinite(v))
				k[n++] = (struct stat_key){v, i};
		}
		s->count = n;
		if (!n)
			continue;
		qsort(k, n, sizeof(*k), cmp_stat_key);
		/* The min: the lowest rank of the least value (k is sorted by
		 * value, then rank); the max likewise. */
		s->v[0] = k[0].v;
		s->gpu[0] = k[0].gpu;
		/* The median: the lower middle value, and of the GPUs with that
		 * value the one of the lowest rank. */
		{
			size_t x = (n - 1) / 2;

			while (x > 0 && k[x - 1].v == k[(n - 1) / 2].v)
				x--;
			s->v[1] = k[x].v;
			s->gpu[1] = k[x].gpu;
		}
		{
			size_t x = n - 1;

			while (x > 0 && k[x - 1].v == k[n - 1].v)
				x--;
			s->v[2] = k[x].v;
			s->gpu[2] = k[x].gpu;
		}
	}
	free(k);
	return GS_OK;
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
	size_t lo = 0, hi = g->n_busy, i, j;
	int64_t total;

	if (b <= a || !g->n_busy)
		return 0;
	/* i: the first piece ending after a; j: the first starting at b or later. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->busy[mid].b <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	hi = g->n_busy;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->busy[mid].a < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	j = lo;
	if (i >= j)
		return 0;
	total = g->before[j] - g->before[i];
	if (g->busy[i].a < a)
		total -= a - g->busy[i].a;
	if (g->busy[j - 1].b > b)
		total -= g->busy[j - 1].b - b;
	return total;
}

static gs_status build_gpus(struct gs_job_analysis *ja)
{
	size_t n = 0;

	for (size_t i = 0; i < ja->n_sums; i++)
		n += ja->sums[i]->n_gpus;
	ja->gpus = calloc(n ? n : 1, sizeof(*ja->gpus));
	ja->first_gpu = calloc(ja->n_sums ? ja->n_sums : 1, sizeof(*ja->first_gpu));
	if (!ja->gpus || !ja->first_gpu)
		return gs_nomem();
	for (size_t i = 0; i < ja->n_sums; i++) {
		const struct gs_js_rank *r = ja->sums[i];

		ja->first_gpu[i] = ja->n_gpus;

		for (size_t k = 0; k < r->n_gpus; k++) {
			struct ja_gpu *g = &ja->gpus[ja->n_gpus++];
			const struct gs_js_gpu *d = &r->gpus[k];

			g->r = r;
			g->ri = i;
			g->d = d;
			g->overlap = d->comm_union_ns > 0 ?
					     1.0 - (double)d->comm_exposed_ns /
							     (double)d->comm_union_ns :
					     NAN;
			if (d->window_ns > ja->longest_window)
				ja->longest_window = d->window_ns;
		}
	}
	return build_stats(ja);
}

/* The index in ja->gpus of GPU `dev` of rank `ri`; SIZE_MAX when none. */
static size_t gpu_index(const struct gs_job_analysis *ja, size_t ri, uint32_t dev)
{
	for (size_t i = ja->first_gpu[ri]; i < ja->n_gpus && ja->gpus[i].ri == ri; i++)
		if (ja->gpus[i].d->device == dev)
			return i;
	return SIZE_MAX;
}

/* "0.92", or "n/a" (gs_report_eff_text of the summary's numbers). */
static const char *eff_text(const struct gs_js_gpu *d, char *buf, size_t size)
{
	struct gs_report_device rd;

	memset(&rd, 0, sizeof(rd));
	rd.efficiency = d->efficiency;
	rd.efficiency_kind = d->efficiency_kind;
	return gs_report_eff_text(&rd, buf, size);
}

/* ---- step one: a rank's summary ---- */

/* A communication kernel of a rank and its communicator's key (job_priv.h,
 * enum ja_key). */
struct entry {
	uint8_t key;
	uint8_t kind;              /* the kind: kind_col, else kind_op */
	uint8_t kind_col, kind_op; /* from the collective's name, the kernel's */
	const char *group;         /* JA_KEY_GROUP: the group's name */
	int64_t start;
	uint32_t op;
};

static int cmp_key(const struct entry *a, const struct entry *b)
{
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->key == JA_KEY_GROUP)
		return strcmp(a->group, b->group);
	if (a->key == JA_KEY_KIND && a->kind != b->kind)
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
					ja_kind_of_name(gs_trace_string(t, c->name)) :
					K_UNKNOWN);
	e->kind_op = (uint8_t)ja_kind_of_name(gs_trace_string(t, op->name));
	e->kind = e->kind_col != K_UNKNOWN ? e->kind_col : e->kind_op;
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
		if (seen->n == seen->cap) {
			size_t nc = seen->cap ? seen->cap * 2 : 16;
			uint32_t *p = realloc(seen->ids, nc * sizeof(*p));

			if (!p)
				return gs_nomem();
			seen->ids = p;
			seen->cap = nc;
		}
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
				if (e[n].kind == K_SENDRECV) {
					e[n].key = JA_KEY_P2P;
				} else if (c && c->group != GS_NO_STRING) {
					e[n].key = JA_KEY_GROUP;
					e[n].group = gs_trace_string(t, c->group);
				} else {
					e[n].key = JA_KEY_KIND;
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
	m->kind = e[0].key == JA_KEY_KIND ? e[0].kind : K_UNKNOWN;
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

		gs_report_text_notes(r, js_note, ctx);
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

/* ---- step two: stragglers ---- */

static int cmp_skew(const void *pa, const void *pb, void *arg)
{
	const struct gs_job_analysis *ja = arg;
	const struct ja_coll *a = &ja->coll[*(const size_t *)pa],
			     *b = &ja->coll[*(const size_t *)pb];

	if (a->skew != b->skew)
		return a->skew > b->skew ? -1 : 1;
	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Insertion-free rank by skew: qsort_r is not C11, so a small merge sort. */
static void sort_by_skew(struct gs_job_analysis *ja, size_t *v, size_t *tmp, size_t n)
{
	size_t mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	sort_by_skew(ja, v, tmp, mid);
	sort_by_skew(ja, v + mid, tmp, n - mid);
	for (i = 0, j = mid, k = 0; i < mid || j < n;) {
		if (j >= n || (i < mid && cmp_skew(&v[i], &v[j], ja) <= 0))
			tmp[k++] = v[i++];
		else
			tmp[k++] = v[j++];
	}
	memcpy(v, tmp, n * sizeof(*v));
}

/* The straggler rule (top of the file). */
static bool is_straggler(const struct ja_total *t)
{
	double p = (double)t->counted, e = t->expected, need = 2 * e;

	if (t->last < MIN_LAST || t->cost <= 0)
		return false;
	if ((p + e) / 2 < need)
		need = (p + e) / 2;
	if (p / 4 > need)
		need = p / 4;
	return (double)t->last >= need;
}

static int cmp_straggler(const void *pa, const void *pb, void *arg)
{
	const struct gs_job_analysis *ja = arg;
	const struct ja_total *a = &ja->totals[*(const size_t *)pa];
	const struct ja_total *b = &ja->totals[*(const size_t *)pb];

	if (a->cost != b->cost)
		return a->cost > b->cost ? -1 : 1;
	return a->ri < b->ri ? -1 : a->ri > b->ri;
}

static gs_status build_collectives(struct gs_job_analysis *ja)
{
	gs_status rc;
	size_t *tmp, i;

	ja->n_totals = ja->n_sums;
	ja->totals = calloc(ja->n_sums ? ja->n_sums : 1, sizeof(*ja->totals));
	if (!ja->totals)
		return gs_nomem();
	for (i = 0; i < ja->n_sums; i++)
		ja->totals[i].ri = i;
	rc = ja_collectives(ja);
	if (rc != GS_OK)
		return rc;
	ja->by_skew = malloc((ja->n_coll ? ja->n_coll : 1) * sizeof(*ja->by_skew));
	tmp = malloc((ja->n_coll ? ja->n_coll : 1) * sizeof(*tmp));
	ja->stragglers = calloc(ja->n_totals ? ja->n_totals : 1, sizeof(*ja->stragglers));
	if (!ja->by_skew || !tmp || !ja->stragglers) {
		free(tmp);
		return gs_nomem();
	}
	/* The collectives compared, largest skew first. */
	ja->n_by_skew = 0;
	for (i = 0; i < ja->n_coll; i++)
		if (ja->coll[i].state != JA_NO_OVERLAP)
			ja->by_skew[ja->n_by_skew++] = i;
	sort_by_skew(ja, ja->by_skew, tmp, ja->n_by_skew);
	free(tmp);
	for (i = 0; i < ja->n_totals; i++) {
		ja->totals[i].straggler = is_straggler(&ja->totals[i]);
		if (ja->totals[i].straggler)
			ja->stragglers[ja->n_stragglers++] = i;
	}
	/* Few stragglers: an insertion sort by cost. */
	for (i = 1; i < ja->n_stragglers; i++)
		for (size_t k = i;
		     k > 0 && cmp_straggler(&ja->stragglers[k - 1], &ja->stragglers[k], ja) > 0;
		     k--) {
			size_t x = ja->stragglers[k];

			ja->stragglers[k] = ja->stragglers[k - 1];
			ja->stragglers[k - 1] = x;
		}
	return GS_OK;
}

/* ---- findings ---- */

static gs_status add_finding(struct gs_job_analysis *ja, size_t *cap, const char *kind, int64_t ns,
			     const struct gs_finding_data *data, char *text, char *advice)
{
	if (!text || !advice) {
		free(text);
		free(advice);
		return gs_nomem();
	}
	if (ja->n_findings == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct ja_finding *p = realloc(ja->findings, nc * sizeof(*p));

		if (!p) {
			free(text);
			free(advice);
			return gs_nomem();
		}
		ja->findings = p;
		*cap = nc;
	}
	ja->findings[ja->n_findings++] = (struct ja_finding){kind, ns, text, advice, *data};
	return GS_OK;
}

static int cmp_finding(const void *pa, const void *pb)
{
	const struct ja_finding *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->kind, b->kind);
}

/* The text that names a GPU in a finding: "rank 3" ("rank 3 GPU 1" when
 * the rank has several). */
static const char *gpu_name(char *buf, size_t size, const struct ja_gpu *g)
{
	if (g->r->n_gpus > 1)
		snprintf(buf, size, "rank %u GPU %u", g->r->rank, g->d->device);
	else
		snprintf(buf, size, "rank %u", g->r->rank);
	return buf;
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
}

/* The lower median of the ranks' compute before their collectives (over
 * the ranks that took part in any). */
static int64_t median_compute_before(const struct gs_job_analysis *ja)
{
	int64_t *v = malloc((ja->n_totals ? ja->n_totals : 1) * sizeof(*v)), m = 0;
	size_t n = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < ja->n_totals; i++)
		if (ja->totals[i].collectives)
			v[n++] = ja->totals[i].compute_before;
	if (n)
		qsort(v, n, sizeof(*v), cmp_i64);
	if (n)
		m = v[(n - 1) / 2];
	free(v);
	return m;
}

/* What a verdict compared when the job is partial: "; over 2 of 128 ranks
 * (a partial job)", else "". */
static const char *partial_note(const struct gs_job_analysis *ja, char *buf, size_t size)
{
	buf[0] = '\0';
	if (ja->world_size > ja->n_sums)
		snprintf(buf, size, "; over the %zu of %u ranks traced (a partial job)", ja->n_sums,
			 ja->world_size);
	return buf;
}

#define PARTIAL() partial_note(ja, (char[96]){0}, 96)

static gs_status build_findings(struct gs_job_analysis *ja)
{
	int64_t median_compute = median_compute_before(ja);
	struct gs_finding_data fd;
	size_t cap = 0, i;
	gs_status rc = GS_OK;
	int64_t exposed = 0, beyond = 0;
	const struct ja_gpu *worst = NULL;
	size_t with_comm = 0;

	for (i = 0; i < ja->n_stragglers && i < MAX_STRAGGLER_FINDINGS && rc == GS_OK; i++) {
		const struct ja_total *t = &ja->totals[ja->stragglers[i]];
		uint32_t rank = rank_of(ja, t->ri)->rank;
		char share[32], chance[32], compute[160];

		if (!significant(t->cost, ja->longest_window))
			continue;
		gs_report_pct(share, sizeof(share), (int64_t)t->last, (int64_t)t->counted);
		compute[0] = '\0';
		if (t->compute_before > median_compute)
			snprintf(compute, sizeof(compute),
				 "; its compute before them took %s, %s more than the median "
				 "rank's",
				 DUR(t->compute_before), DUR(t->compute_before - median_compute));
		snprintf(chance, sizeof(chance), "%.1f%%",
			 t->counted ? 100.0 * t->expected / (double)t->counted : 0.0);
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "look_at_rank"};
		gs_finding_num(&fd, "rank", rank);
		gs_finding_num(&fd, "times_last_count", (double)t->last);
		gs_finding_num(&fd, "collectives_count", (double)t->counted);
		gs_finding_num(&fd, "expected_by_chance_count", t->expected);
		gs_finding_num(&fd, "cost_ns", (double)t->cost);
		gs_finding_num(&fd, "compute_before_ns", (double)t->compute_before);
		gs_finding_num(&fd, "median_compute_before_ns", (double)median_compute);
		rc = add_finding(
			ja, &cap, "straggler", t->cost, &fd,
			ja_printf("rank %u arrived last at %s of %llu collectives (%llu times; "
				  "chance alone would give %s); the others waited %s for it%s%s",
				  rank, share, (unsigned long long)t->counted,
				  (unsigned long long)t->last, chance, DUR(t->cost), compute,
				  PARTIAL()),
			ja_printf("look at rank %u's own section: what it runs before the "
				  "collectives (its compute, host-bound idle, data loading, "
				  "a slower GPU or link); every other rank waits for it",
				  rank));
	}
	if (rc == GS_OK && !ja->n_stragglers && ja->n_by_skew &&
	    significant(ja->wait_total, ja->longest_window)) {
		int64_t skew_sum = 0, skew_max = 0;
		size_t n = 0;

		for (i = 0; i < ja->n_by_skew; i++) {
			const struct ja_coll *x = &ja->coll[ja->by_skew[i]];

			if (x->state != JA_COMPARED)
				continue;
			n++;
			skew_sum += x->skew;
			if (x->skew > skew_max)
				skew_max = x->skew;
		}
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "balance_ranks"};
		gs_finding_num(&fd, "wait_ns", (double)ja->wait_total);
		gs_finding_num(&fd, "collectives_count", (double)n);
		gs_finding_num(&fd, "mean_skew_ns", (double)skew_sum / (double)(n ? n : 1));
		gs_finding_num(&fd, "max_skew_ns", (double)skew_max);
		rc = add_finding(
			ja, &cap, "skew", ja->wait_total, &fd,
			ja_printf("the ranks waited %s in all for one another at %zu collectives "
				  "(mean skew %s, max %s), with no one rank last most often%s",
				  DUR(ja->wait_total), n, DUR(skew_sum / (int64_t)(n ? n : 1)),
				  DUR(skew_max), PARTIAL()),
			ja_printf("load imbalance across ranks: even out the work of a step "
				  "(uneven batches, sequence lengths or shards), and look for "
				  "jitter on the ranks that arrive late (host threads, data "
				  "loading, garbage collection)"));
	}
	for (i = 0; i < ja->n_gpus; i++) {
		const struct ja_gpu *g = &ja->gpus[i];

		if (!g->d->comm_kernels)
			continue;
		with_comm++;
		exposed += g->d->comm_exposed_ns;
		if (!worst || g->d->comm_exposed_ns > worst->d->comm_exposed_ns)
			worst = g;
	}
	/* At stake: the exposed time beyond the rank's waits for the others
	 * (those are the stragglers' and the imbalance's findings). */
	for (i = 0; i < ja->n_totals; i++) {
		int64_t e = 0;

		for (size_t k = ja->first_gpu[i]; k < ja->n_gpus && ja->gpus[k].ri == i; k++)
			e += ja->gpus[k].d->comm_exposed_ns;
		if (e > ja->totals[i].waited)
			beyond += e - ja->totals[i].waited;
	}
	if (rc == GS_OK && worst && significant(worst->d->comm_exposed_ns, worst->d->window_ns) &&
	    significant(beyond, ja->longest_window)) {
		char who[64], ov[32] = "n/a";
		const struct ja_stat *s = &ja->stat[M_OVERLAP];

		if (s->count)
			snprintf(ov, sizeof(ov), "%.1f%%", 100.0 * s->v[1]);
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "overlap_communication"};
		gs_finding_num(&fd, "exposed_ns", (double)exposed);
		gs_finding_num(&fd, "beyond_waits_ns", (double)beyond);
		gs_finding_num(&fd, "gpus_count", (double)with_comm);
		gs_finding_num(&fd, "worst_rank", rank_of(ja, worst->ri)->rank);
		gs_finding_num(&fd, "worst_exposed_ns", (double)worst->d->comm_exposed_ns);
		if (s->count)
			gs_finding_num(&fd, "median_overlap", s->v[1]);
		rc = add_finding(
			ja, &cap, "exposed_communication", beyond, &fd,
			ja_printf("communication ran with no compute kernel alongside for %s over "
				  "%zu GPU%s (%s of it beyond the waits for other ranks), up to %s "
				  "on %s (%s of its window); median overlap with compute %s",
				  DUR(exposed), with_comm, with_comm == 1 ? "" : "s", DUR(beyond),
				  DUR(worst->d->comm_exposed_ns), gpu_name(who, sizeof(who), worst),
				  PCT(worst->d->comm_exposed_ns, worst->d->window_ns), ov),
			ja_printf("overlap communication with compute: bucket gradients so that "
				  "all-reduces start during the backward pass (DDP bucket_cap_mb, "
				  "FSDP prefetch), issue collectives asynchronously on their own "
				  "stream; exposed time also holds the waits for late ranks"));
	}
	if (rc == GS_OK && ja->slow_steps.steps &&
	    significant(ja->slow_steps.extra, ja->slow_steps.total)) {
		const struct ja_slow_steps *x = &ja->slow_steps;
		uint32_t rank = rank_of(ja, x->ri)->rank;

		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "look_at_rank"};
		gs_finding_num(&fd, "rank", rank);
		gs_finding_num(&fd, "steps_count", (double)x->steps);
		gs_finding_num(&fd, "of_count", (double)x->of);
		gs_finding_num(&fd, "extra_ns", (double)x->extra);
		gs_finding_num(&fd, "median_steps_ns", (double)x->total);
		rc = add_finding(
			ja, &cap, "slow_steps", x->extra, &fd,
			ja_printf("rank %u had the longest step in %zu of the %zu analysed steps "
				  "the ranks share, %s in all beyond the median rank's step time "
				  "(%s of the median steps' %s)%s",
				  rank, x->steps, x->of, DUR(x->extra), PCT(x->extra, x->total),
				  DUR(x->total), PARTIAL()),
			ja_printf("a synchronous job runs at its slowest rank's pace: look at rank "
				  "%u's Steps table (the largest cause of each step's gap) and at "
				  "what differs on it (its share of the data, a slower host or "
				  "GPU, host-side jitter)",
				  rank));
	}
	if (rc == GS_OK && ja->n_mm) {
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_NONE,
					      .advice = "record_the_same_steps"};
		gs_finding_num(&fd, "communicators_count", (double)ja->n_mm);
		rc = add_finding(
			ja, &cap, "mismatch", 0, &fd,
			ja_printf("%zu communicator%s do%s not line up across ranks; %s%s",
				  ja->n_mm, ja->n_mm == 1 ? "" : "s", ja->n_mm == 1 ? "es" : "",
				  ja->mm[0].text,
				  ja->n_mm > 1 ? " (and more: see Mismatches)" : ""),
			ja_printf("the traces cover different steps or code paths: record every "
				  "rank over the same iterations (one profiler schedule), or look "
				  "for a rank that took another path"));
	}
	if (ja->n_findings)
		qsort(ja->findings, ja->n_findings, sizeof(*ja->findings), cmp_finding);
	return rc;
}

void gs_job_analysis_destroy(struct gs_job_analysis *ja)
{
	size_t i;

	if (!ja)
		return;
	for (i = 0; i < ja->n_comms; i++)
		free(ja->comms[i].m);
	free(ja->comms);
	for (i = 0; i < ja->n_mm; i++)
		free(ja->mm[i].text);
	free(ja->mm);
	for (i = 0; i < ja->n_findings; i++) {
		free(ja->findings[i].text);
		free(ja->findings[i].advice);
	}
	free(ja->findings);
	free(ja->gpus);
	free(ja->first_gpu);
	free(ja->coll);
	free(ja->slot);
	free(ja->dom);
	free(ja->rank_dom);
	free(ja->by_skew);
	free(ja->totals);
	free(ja->stragglers);
	free(ja->steps);
	free(ja->step_at);
	for (i = 0; i < ja->n_sums; i++)
		gs_js_free(ja->sums[i]);
	free(ja->sums);
	free(ja);
}

gs_status gs_js_reduce(struct gs_js_rank **sums, size_t n, uint32_t n_clock_groups, int align,
		       struct gs_job_analysis **out)
{
	struct gs_job_analysis *ja;
	gs_status rc;

	*out = NULL;
	ja = calloc(1, sizeof(*ja));
	if (!ja) {
		for (size_t i = 0; i < n; i++)
			gs_js_free(sums[i]);
		free(sums);
		return gs_nomem();
	}
	ja->sums = sums;
	ja->n_sums = n;
	ja->n_clock_groups = n_clock_groups ? n_clock_groups : 1;
	ja->align = align == GS_REPORT_ALIGN_NONE        ? JA_ALIGN_NONE :
		    align == GS_REPORT_ALIGN_COLLECTIVES ? JA_ALIGN_COLLECTIVES :
							   JA_ALIGN_AUTO;
	rc = build_gpus(ja);
	if (rc == GS_OK)
		rc = build_collectives(ja);
	if (rc == GS_OK)
		rc = ja_steps(ja);
	if (rc == GS_OK)
		rc = build_findings(ja);
	if (rc != GS_OK) {
		gs_error_append("job analysis");
		gs_job_analysis_destroy(ja);
		return rc;
	}
	*out = ja;
	return GS_OK;
}

const struct gs_js_rank *const *gs_job_analysis_ranks(const struct gs_job_analysis *ja, size_t *n)
{
	*n = ja->n_sums;
	return (const struct gs_js_rank *const *)ja->sums;
}

gs_status gs_job_analysis_build(const struct gs_report *job, struct gs_job_analysis **out)
{
	struct gs_js_rank **sums;
	gs_status rc = GS_OK;

	if (out)
		*out = NULL;
	if (!job || !out) {
		gs_error_append("gs_job_analysis_build: no %s", job ? "output" : "job report");
		return GS_ERR_INVALID;
	}
	sums = calloc(job->n_ranks ? job->n_ranks : 1,
		      sizeof(*sums)); /* NOLINT(bugprone-sizeof-expression): pointers */
	if (!sums)
		return gs_nomem();
	for (size_t i = 0; i < job->n_ranks && rc == GS_OK; i++)
		rc = gs_js_extract(job->ranks[i], &sums[i]);
	if (rc != GS_OK) {
		for (size_t i = 0; i < job->n_ranks; i++)
			gs_js_free(sums[i]);
		free(sums);
		gs_error_append("job analysis");
		return rc;
	}
	return gs_js_reduce(sums, job->n_ranks, job->job ? job->job->n_clock_groups : 1, job->align,
			    out);
}

/* ------------------------------------------------------------------------ */
/* Outliers: the GPUs a report of many ranks shows                            */
/* ------------------------------------------------------------------------ */

/*
 * A job of more GPUs than a report's rank table holds (the style's
 * `ranks`: --top when given, else 8; --ranks N|all) shows each column's
 * min, median and max over the GPUs and the outliers, at most that many,
 * in this order of choice:
 *   1. every GPU of each straggler rank, stragglers by their cost to the
 *      others (the rank the job findings blame);
 *   2. every other GPU that lies far from the median on one of the rank
 *      table's metrics OUTLIER_METRICS (window, idle share, efficiency,
 *      exposed communication): |v - median| > max(OUTLIER_MAD x MAD,
 *      floor), where MAD is the lower median of |v - median| over the GPUs
 *      that have the metric and the floor OUTLIER_FLOOR (2%) of the median
 *      window for the durations, 0.02 for the idle share and the
 *      efficiency (differences below it are noise, however alike the
 *      GPUs); ranked by the largest ratio |v - median| / that bound over
 *      the metrics, ties by the lowest rank (then device).
 * The worst exposed communication of the findings is one of these when it
 * is far from the median, not otherwise: the largest of many alike GPUs
 * is no outlier. Everything comes from the summaries (gpuscope-mpi's root
 * decides the same). O(G log G) per metric for G GPUs.
 */
#define OUTLIER_MAD 6.0
#define OUTLIER_FLOOR 0.02
#define OUTLIER_STRAGGLER M_COUNT /* ja_outlier.by of a straggler's GPU */

static const enum ja_metric outlier_metrics[] = {M_WINDOW, M_IDLE, M_EFF, M_EXPOSED};
#define N_OUTLIER_METRICS (sizeof(outlier_metrics) / sizeof(outlier_metrics[0]))

struct ja_outlier {
	size_t gpu;   /* index into ja->gpus */
	unsigned by;  /* the metric farthest beyond its bound; OUTLIER_STRAGGLER */
	double score; /* |v - median| / bound on it (> 1); 0 for a straggler's */
};

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

static int cmp_outlier(const void *pa, const void *pb)
{
	const struct ja_outlier *a = pa, *b = pb;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->gpu < b->gpu ? -1 : a->gpu > b->gpu;
}

/* The bound beyond which a GPU is far from the median on metric m; 0 when
 * no GPU can be (no values, or all alike on a zero floor). */
static double outlier_bound(const struct gs_job_analysis *ja, enum ja_metric m, double *dev)
{
	const struct ja_stat *s = &ja->stat[m];
	double floor, mad;
	size_t n = 0;

	if (!s->count)
		return 0;
	for (size_t i = 0; i < ja->n_gpus; i++) {
		double v = metric_value(&ja->gpus[i], m);

		if (isfinite(v))
			dev[n++] = fabs(v - s->v[1]);
	}
	if (!n)
		return 0;
	qsort(dev, n, sizeof(*dev), cmp_double);
	mad = dev[(n - 1) / 2];
	floor = metric_info[m].ns ? OUTLIER_FLOOR * ja->stat[M_WINDOW].v[1] : OUTLIER_FLOOR;
	return OUTLIER_MAD * mad > floor ? OUTLIER_MAD * mad : floor;
}

/* Every outlier of the job, in the order of choice; *out is NULL when
 * there is none. */
static gs_status ja_outliers(const struct gs_job_analysis *ja, struct ja_outlier **out, size_t *n)
{
	double bound[N_OUTLIER_METRICS], *dev;
	struct ja_outlier *o;
	size_t k = 0, first;

	*out = NULL;
	*n = 0;
	if (!ja->n_gpus)
		return GS_OK;
	dev = malloc(ja->n_gpus * sizeof(*dev));
	o = malloc(ja->n_gpus * sizeof(*o));
	if (!dev || !o) {
		free(dev);
		free(o);
		return gs_nomem();
	}
	for (size_t x = 0; x < N_OUTLIER_METRICS; x++)
		bound[x] = outlier_bound(ja, outlier_metrics[x], dev);
	free(dev);
	/* 1. The stragglers' GPUs. */
	for (size_t i = 0; i < ja->n_stragglers; i++) {
		size_t ri = ja->totals[ja->stragglers[i]].ri;

		for (size_t g = ja->first_gpu[ri]; g < ja->n_gpus && ja->gpus[g].ri == ri; g++)
			o[k++] = (struct ja_outlier){g, OUTLIER_STRAGGLER, 0};
	}
	/* 2. The GPUs far from the median. */
	first = k;
	for (size_t g = 0; g < ja->n_gpus; g++) {
		const struct ja_total *t =
			ja->gpus[g].ri < ja->n_totals ? &ja->totals[ja->gpus[g].ri] : NULL;
		struct ja_outlier x = {g, 0, 0};

		if (t && t->straggler)
			continue;
		for (size_t m = 0; m < N_OUTLIER_METRICS; m++) {
			double v = metric_value(&ja->gpus[g], outlier_metrics[m]), r;

			if (!isfinite(v) || bound[m] <= 0)
				continue;
			r = fabs(v - ja->stat[outlier_metrics[m]].v[1]) / bound[m];
			if (r > x.score) {
				x.score = r;
				x.by = outlier_metrics[m];
			}
		}
		if (x.score > 1)
			o[k++] = x;
	}
	if (k > first)
		qsort(o + first, k - first, sizeof(*o), cmp_outlier);
	if (!k) {
		free(o);
		return GS_OK;
	}
	*out = o;
	*n = k;
	return GS_OK;
}

/* What a writer shows of the job's GPUs with a style. */
struct ja_view {
	bool all;                /* every GPU fits the rank table (or --ranks all) */
	size_t limit;            /* outliers shown at most */
	struct ja_outlier *outs; /* every outlier, in the order of choice */
	size_t n_outs;
	size_t n_shown;     /* the first n_shown of outs are shown */
	unsigned *why;      /* per GPU: its outlier's `by` when shown, else UINT_MAX */
	bool *rank_shown;   /* per rank: a GPU of it is shown (all: every rank) */
	size_t ranks_shown; /* ... how many */
};

static void ja_view_free(struct ja_view *v)
{
	free(v->outs);
	free(v->why);
	free(v->rank_shown);
	memset(v, 0, sizeof(*v));
}

static gs_status ja_view_make(const struct gs_job_analysis *ja, size_t limit, struct ja_view *v)
{
	gs_status rc;

	memset(v, 0, sizeof(*v));
	v->limit = limit;
	v->all = ja->n_gpus <= limit;
	rc = ja_outliers(ja, &v->outs, &v->n_outs);
	v->why = malloc((ja->n_gpus ? ja->n_gpus : 1) * sizeof(*v->why));
	v->rank_shown = calloc(ja->n_sums ? ja->n_sums : 1, sizeof(*v->rank_shown));
	if (rc == GS_OK && (!v->why || !v->rank_shown))
		rc = gs_nomem();
	if (rc != GS_OK) {
		ja_view_free(v);
		return rc;
	}
	for (size_t g = 0; g < ja->n_gpus; g++)
		v->why[g] = UINT_MAX;
	v->n_shown = v->all ? v->n_outs : v->n_outs < limit ? v->n_outs : limit;
	for (size_t i = 0; i < v->n_shown; i++) {
		v->why[v->outs[i].gpu] = v->outs[i].by;
		v->rank_shown[ja->gpus[v->outs[i].gpu].ri] = true;
	}
	for (size_t i = 0; i < ja->n_sums; i++) {
		if (v->all)
			v->rank_shown[i] = true;
		v->ranks_shown += v->rank_shown[i];
	}
	return GS_OK;
}

/* Why a GPU is an outlier, in words ("straggler", "idle share"). */
static const char *outlier_word(unsigned by)
{
	if (by == OUTLIER_STRAGGLER)
		return "straggler";
	if (by == M_EXPOSED)
		return "exposed comm";
	if (by == M_IDLE)
		return "idle share";
	return by < M_COUNT ? metric_info[by].label : "?";
}

gs_status gs_job_analysis_shown_ranks(const struct gs_job_analysis *ja,
				      const struct gs_report_style *style, bool *shown,
				      size_t *n_shown)
{
	struct ja_view v;
	gs_status rc = ja_view_make(ja, gs_report_style_of(style).ranks, &v);

	if (rc != GS_OK)
		return rc;
	memcpy(shown, v.rank_shown, ja->n_sums * sizeof(*shown));
	*n_shown = v.ranks_shown;
	ja_view_free(&v);
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* Text                                                                       */
/* ------------------------------------------------------------------------ */

struct jt {
	struct gs_out *o;
	bool color;
	size_t top; /* rows in the ranked tables */
};

static void jt_bold(struct jt *w, bool on)
{
	if (w->color)
		gs_out_puts(w->o, on ? "\033[1m" : "\033[0m");
}

static void jt_spaces(struct jt *w, size_t n)
{
	while (n--)
		gs_out_putc(w->o, ' ');
}

/* `s` in a column of `cols`, left- or right-aligned. */
static void jt_cell(struct jt *w, const char *s, size_t cols, bool right)
{
	char buf[4 * TEXT_WIDTH + 8];
	size_t used = gs_report_text_fit(buf, sizeof(buf), s, cols);

	if (right)
		jt_spaces(w, cols - used);
	gs_out_puts(w->o, buf);
	if (!right)
		jt_spaces(w, cols - used);
}

static void jt_section(struct jt *w, const char *title)
{
	char buf[4 * TEXT_WIDTH + 8];

	gs_report_text_fit(buf, sizeof(buf), title, TEXT_WIDTH - 2);
	gs_out_puts(w->o, "\n  ");
	jt_bold(w, true);
	gs_out_puts(w->o, buf);
	jt_bold(w, false);
	gs_out_putc(w->o, '\n');
}

static void jt_rule(struct jt *w, const char *title)
{
	char buf[4 * TEXT_WIDTH + 8];
	size_t used;

	jt_bold(w, true);
	gs_out_puts(w->o, "\n━━ ");
	used = 4 + gs_report_text_fit(buf, sizeof(buf), title, TEXT_WIDTH - 4);
	gs_out_puts(w->o, buf);
	gs_out_putc(w->o, ' ');
	while (used++ < TEXT_WIDTH)
		gs_out_puts(w->o, "━");
	jt_bold(w, false);
	gs_out_putc(w->o, '\n');
}

/* A fraction as a percentage with one decimal; "n/a" when not finite. */
static const char *frac_text(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.1f%%", 100.0 * v);
	return buf;
}

#define FRAC(v) frac_text((char[32]){0}, 32, (v))

/* Bytes per ns is GB/s. */
static const char *bw_text(char *buf, size_t size, double gbps)
{
	if (!isfinite(gbps))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.2f GB/s", gbps);
	return buf;
}

#define BW(v) bw_text((char[32]){0}, 32, (v))

static const char *metric_text(char *buf, size_t size, enum ja_metric m, double v)
{
	if (metric_info[m].ns)
		return dur_text(buf, size, (int64_t)v);
	if (m == M_EFF) {
		snprintf(buf, size, "%.2f", v);
		return buf;
	}
	return frac_text(buf, size, v);
}

static void text_findings(struct jt *w, const struct gs_job_analysis *ja)
{
	jt_section(w, "Job findings");
	if (!ja->n_findings) {
		gs_out_puts(w->o, "    nothing stands out across the ranks: no straggler, waits or "
				  "exposed communication\n    above 0.5% of a window\n");
		return;
	}
	for (size_t i = 0; i < ja->n_findings; i++) {
		char num[32];

		snprintf(num, sizeof(num), "  %2zu. ", i + 1);
		jt_bold(w, true);
		gs_out_puts(w->o, num);
		jt_bold(w, false);
		gs_report_text_wrap(w->o, "", strlen(num), ja->findings[i].text, 6);
		gs_report_text_wrap(w->o, "      -> ", 9, ja->findings[i].advice, 9);
	}
}

static void text_rank_head(struct jt *w)
{
	gs_out_puts(w->o, "    ");
	jt_cell(w, "rank", 6, false);
	jt_cell(w, "host", 10, false);
	jt_cell(w, "GPU", 3, true);
	jt_cell(w, "window", 11, true);
	jt_cell(w, "kernel", 7, true);
	jt_cell(w, "copy", 7, true);
	jt_cell(w, "sync", 7, true);
	jt_cell(w, "idle", 7, true);
	jt_cell(w, "eff", 6, true);
	jt_cell(w, "comm", 11, true);
	jt_cell(w, "exposed", 11, true);
	jt_cell(w, "overlap", 8, true);
	gs_out_putc(w->o, '\n');
}

static void text_rank_row(struct jt *w, const struct ja_gpu *g)
{
	const struct gs_js_gpu *d = g->d;
	char rank[16], dev[16], eff[32];

	snprintf(rank, sizeof(rank), "%u", g->r->rank);
	snprintf(dev, sizeof(dev), "%u", d->device);
	gs_out_puts(w->o, "    ");
	jt_cell(w, rank, 6, false);
	jt_cell(w, *gs_js_str(g->r, g->r->host) ? gs_js_str(g->r, g->r->host) : "-", 10, false);
	jt_cell(w, dev, 3, true);
	LINE_UNIT(d->window_ns, d->comm_kernels ? d->comm_ns : 0,
		  d->comm_kernels ? d->comm_exposed_ns : 0);
	jt_cell(w, DUR(d->window_ns), 11, true);
	jt_cell(w, PCT(d->total_ns[GS_CAT_KERNEL], d->window_ns), 7, true);
	jt_cell(w, PCT(d->total_ns[GS_CAT_COPY], d->window_ns), 7, true);
	jt_cell(w, PCT(d->total_ns[GS_CAT_SYNC], d->window_ns), 7, true);
	jt_cell(w, PCT(d->total_ns[GS_CAT_IDLE], d->window_ns), 7, true);
	jt_cell(w, eff_text(d, eff, sizeof(eff)), 6, true);
	jt_cell(w, d->comm_kernels ? DUR(d->comm_ns) : "-", 11, true);
	jt_cell(w, d->comm_kernels ? DUR(d->comm_exposed_ns) : "-", 11, true);
	jt_cell(w, isfinite(g->overlap) ? FRAC(g->overlap) : "-", 8, true);
	line_unit = 0;
	gs_out_putc(w->o, '\n');
}

/* A row of the rank table with each column's min (k 0), median (1) or
 * max (2) over the GPUs. */
static void text_stat_row(struct jt *w, const struct gs_job_analysis *ja, int k)
{
	static const char *const label[3] = {"min", "median", "max"};
	static const struct {
		enum ja_metric m;
		size_t cols;
	} col[] = {
		{M_WINDOW, 11}, {M_KERNEL, 7}, {M_COPY, 7},     {M_SYNC, 7},    {M_IDLE, 7},
		{M_EFF, 6},     {M_COMM, 11},  {M_EXPOSED, 11}, {M_OVERLAP, 8},
	};
	char buf[48];

	gs_out_puts(w->o, "    ");
	jt_cell(w, label[k], 19, false);
	LINE_UNIT(ja->stat[M_WINDOW].count ? (int64_t)ja->stat[M_WINDOW].v[k] : 0,
		  ja->stat[M_COMM].count ? (int64_t)ja->stat[M_COMM].v[k] : 0,
		  ja->stat[M_EXPOSED].count ? (int64_t)ja->stat[M_EXPOSED].v[k] : 0);
	for (size_t c = 0; c < sizeof(col) / sizeof(col[0]); c++) {
		const struct ja_stat *s = &ja->stat[col[c].m];

		jt_cell(w, s->count ? metric_text(buf, sizeof(buf), col[c].m, s->v[k]) : "-",
			col[c].cols, true);
	}
	line_unit = 0;
	gs_out_putc(w->o, '\n');
}

/* "rank 3" ("rank 3 GPU 1" when the rank has several), with why. */
static void outlier_name(char *buf, size_t size, const struct ja_gpu *g, unsigned by)
{
	char who[64];

	gpu_name(who, sizeof(who), g);
	snprintf(buf, size, "%s (%s)", who, outlier_word(by));
}

/* "rank 37 (straggler), rank 5 GPU 1 (idle share)": the outliers shown,
 * in the order of choice; NULL when out of memory. */
static char *outlier_list(const struct gs_job_analysis *ja, const struct ja_view *v)
{
	size_t cap = v->n_shown * 112 + 1, len = 0;
	char *text = malloc(cap), line[96];

	if (!text)
		return NULL;
	text[0] = '\0';
	for (size_t i = 0; i < v->n_shown; i++) {
		outlier_name(line, sizeof(line), &ja->gpus[v->outs[i].gpu], v->outs[i].by);
		len += (size_t)snprintf(text + len, cap - len, "%s%s", i ? ", " : "", line);
	}
	return text;
}

static void text_ranks(struct jt *w, const struct gs_job_analysis *ja, const struct ja_view *v)
{
	char title[160], line[160];
	struct gs_out *o = w->o;

	if (v->all) {
		jt_section(w, "Ranks");
		text_rank_head(w);
		for (size_t i = 0; i < ja->n_gpus; i++)
			text_rank_row(w, &ja->gpus[i]);
		return;
	}
	snprintf(title, sizeof(title),
		 "Ranks: each column's min, median and max over the %zu GPUs, then the "
		 "outliers (%zu)",
		 ja->n_gpus, v->n_shown);
	jt_section(w, title);
	text_rank_head(w);
	for (int k = 0; k < 3; k++)
		text_stat_row(w, ja, k);
	for (size_t i = 0; i < ja->n_gpus; i++)
		if (v->why[i] != UINT_MAX)
			text_rank_row(w, &ja->gpus[i]);
	if (v->n_shown) {
		char *text = outlier_list(ja, v);

		if (!text) {
			o->failed = true;
			o->err = ENOMEM;
			return;
		}
		gs_report_text_wrap(o, "    outliers: ", 14, text, 14);
		free(text);
	}
	if (v->n_outs > v->n_shown)
		snprintf(line, sizeof(line), "%zu more outlier%s", v->n_outs - v->n_shown,
			 v->n_outs - v->n_shown == 1 ? "" : "s");
	else
		snprintf(line, sizeof(line), "no %soutlier", v->n_shown ? "other " : "");
	gs_out_printf(o,
		      "    %zu of %zu GPUs not listed (%s among them): --ranks all lists every "
		      "one,\n    --rank R shows one rank\n",
		      ja->n_gpus - v->n_shown, ja->n_gpus, line);
}

/* "12.000 ms (rank 3)"; "(rank 3:1)" for GPU 1 of a rank with several. */
static const char *stat_cell(char *buf, size_t size, const struct gs_job_analysis *ja,
			     const struct ja_stat *s, enum ja_metric m, int which)
{
	const struct ja_gpu *g = &ja->gpus[s->gpu[which]];
	char v[48];

	metric_text(v, sizeof(v), m, s->v[which]);
	if (g->r->n_gpus > 1)
		snprintf(buf, size, "%s (rank %u:%u)", v, g->r->rank, g->d->device);
	else
		snprintf(buf, size, "%s (rank %u)", v, g->r->rank);
	return buf;
}

static void text_summary(struct jt *w, const struct gs_job_analysis *ja)
{
	char title[128];

	snprintf(title, sizeof(title),
		 "Across the %zu GPUs (the median of an even count is the "
		 "lower middle)",
		 ja->n_gpus);
	jt_section(w, title);
	gs_out_puts(w->o, "    ");
	jt_cell(w, "", 14, false);
	jt_cell(w, "min", 26, false);
	jt_cell(w, "median", 26, false);
	gs_out_puts(w->o, "max\n");
	for (unsigned m = 0; m < M_COUNT; m++) {
		const struct ja_stat *s = &ja->stat[m];
		char buf[96];

		gs_out_puts(w->o, "    ");
		jt_cell(w, metric_info[m].label, 14, false);
		if (!s->count) {
			gs_out_puts(w->o, "-\n");
			continue;
		}
		if (metric_info[m].ns)
			LINE_UNIT((int64_t)s->v[0], (int64_t)s->v[1], (int64_t)s->v[2]);
		for (int k = 0; k < 3; k++) {
			stat_cell(buf, sizeof(buf), ja, s, (enum ja_metric)m, k);
			if (k < 2)
				jt_cell(w, buf, 26, false);
			else
				gs_out_puts(w->o, buf);
		}
		line_unit = 0;
		gs_out_putc(w->o, '\n');
	}
}

/* The short name of how a communicator was matched, for the text table. */
static const char *by_short(uint8_t by)
{
	static const char *const n[] = {"-", "seq", "group", "order", "p2p"};

	return by < sizeof(n) / sizeof(n[0]) ? n[by] : "-";
}

static void text_collectives(struct jt *w, const struct gs_job_analysis *ja,
			     const struct ja_view *v)
{
	char title[160];
	size_t comms = 0, i, shown, within = 0, lw = 12, n_comms;

	/* The communicator column as wide as its longest name, 22 at most. */
	for (i = 0; i < ja->n_comms; i++) {
		size_t l = gs_out_text_cols(ja->comms[i].label) + 1;

		comms += ja->comms[i].matched > 0;
		within += ja->comms[i].within_error;
		lw = l > lw ? (l > 22 ? 22 : l) : lw;
	}
	if (!ja->n_comms) {
		jt_section(w, "Collectives");
		gs_out_puts(w->o, "    no communication kernels (NCCL / RCCL) in the ranks' "
				  "windows\n");
		return;
	}
	snprintf(title, sizeof(title), "Collectives: %zu compared in %zu communicator%s",
		 ja->n_by_skew, comms, comms == 1 ? "" : "s");
	jt_section(w, title);
	gs_out_puts(w->o, "    ");
	jt_cell(w, "communicator", lw, false);
	jt_cell(w, "ranks", 5, true);
	jt_cell(w, "count", 7, true);
	jt_cell(w, "by", 6, true);
	jt_cell(w, "mean skew", 11, true);
	jt_cell(w, "max skew", 11, true);
	jt_cell(w, "waited", 11, true);
	jt_cell(w, "transfer", 11, true);
	jt_cell(w, "busbw", 12, true);
	gs_out_putc(w->o, '\n');
	/* Many GPUs: as many communicators as rank rows (a communicator a
	 * stream can make one a rank). */
	n_comms = v->all || ja->n_comms <= v->limit ? ja->n_comms : v->limit;
	for (i = 0; i < n_comms; i++) {
		const struct ja_comm *c = &ja->comms[i];
		char n[32], k[32];
		int64_t m = c->matched ? (int64_t)c->matched : 1;

		snprintf(n, sizeof(n), "%zu", c->n_m);
		snprintf(k, sizeof(k), "%zu", c->matched);
		gs_out_puts(w->o, "    ");
		jt_cell(w, c->label, lw, false);
		jt_cell(w, n, 5, true);
		jt_cell(w, k, 7, true);
		jt_cell(w, by_short(c->matched_by), 6, true);
		if (!c->matched) {
			gs_out_puts(w->o, c->n_m < 2 ? "   not compared: one rank\n" :
						       "   not compared\n");
			continue;
		}
		/* One unit for the per-collective times; the waits summed over
		 * every rank and collective (a thousand ranks: a thousand times a
		 * skew) in their own. */
		LINE_UNIT(c->skew_sum / m, c->skew_max, c->transfer_sum / m);
		jt_cell(w, DUR(c->skew_sum / m), 11, true);
		jt_cell(w, DUR(c->skew_max), 11, true);
		line_unit = 0;
		jt_cell(w, DUR(c->wait_sum), 11, true);
		LINE_UNIT(c->skew_sum / m, c->skew_max, c->transfer_sum / m);
		jt_cell(w, DUR(c->transfer_sum / m), 11, true);
		line_unit = 0;
		jt_cell(w, c->busbw_n ? BW(c->busbw_sum / (double)c->busbw_n) : "-", 12, true);
		gs_out_putc(w->o, '\n');
	}
	if (n_comms < ja->n_comms)
		gs_out_printf(w->o,
			      "    ... %zu more communicators (--ranks all, or --format json for "
			      "all)\n",
			      ja->n_comms - n_comms);
	gs_out_puts(w->o,
		    "    by: seq (the group's sequence numbers), group / order (a group's, or one "
		    "kind's, kernels\n    in order, aligned on their ends), p2p (peer kernels "
		    "that end together); never by\n    stream id. skew: last arrival - first; "
		    "waited: the ranks' waits summed; transfer: kernel\n    end after the last "
		    "arrival (least over the ranks); busbw: mean of the known sizes\n");
	if (within)
		gs_out_printf(w->o,
			      "    %zu collective%s with a skew within the clocks' error (~): no "
			      "one waited for certain\n",
			      within, within == 1 ? "" : "s");
	if (ja->n_clock_groups > 1)
		gs_out_puts(w->o,
			    "    ranks on different clocks (clock groups) are never compared: "
			    "each group is matched on its own\n");
	if (!ja->n_by_skew)
		return;

	shown = ja->n_by_skew < w->top ? ja->n_by_skew : w->top;
	snprintf(title, sizeof(title), "Collectives by skew (%zu of %zu)", shown, ja->n_by_skew);
	jt_section(w, title);
	gs_out_puts(w->o, "    ");
	jt_cell(w, "#", 4, true);
	gs_out_puts(w->o, "  ");
	jt_cell(w, "communicator", lw > 20 ? 20 : lw, false);
	jt_cell(w, "index", 6, true);
	gs_out_puts(w->o, "  ");
	jt_cell(w, "name", 20, false);
	jt_cell(w, "skew", 11, true);
	jt_cell(w, "last", 6, true);
	jt_cell(w, "transfer", 11, true);
	jt_cell(w, "busbw", 12, true);
	gs_out_putc(w->o, '\n');
	for (i = 0; i < shown; i++) {
		const struct ja_coll *x = &ja->coll[ja->by_skew[i]];
		const struct ja_comm *c = &ja->comms[x->comm];
		char num[32], idx[32], last[32];

		snprintf(num, sizeof(num), "%zu", i + 1);
		snprintf(idx, sizeof(idx), "%u", x->index);
		if (x->state == JA_WITHIN_ERROR)
			snprintf(last, sizeof(last), "~");
		else if (x->skew > 0)
			snprintf(last, sizeof(last), "%u", rank_of(ja, c->m[x->last_m].ri)->rank);
		else
			snprintf(last, sizeof(last), "-");
		gs_out_puts(w->o, "    ");
		jt_cell(w, num, 4, true);
		gs_out_puts(w->o, "  ");
		jt_cell(w, c->label, lw > 20 ? 20 : lw, false);
		jt_cell(w, idx, 6, true);
		gs_out_puts(w->o, "  ");
		jt_cell(w, x->name, 20, false);
		LINE_UNIT(x->skew, x->transfer);
		jt_cell(w, DUR(x->skew), 11, true);
		jt_cell(w, last, 6, true);
		jt_cell(w, DUR(x->transfer), 11, true);
		line_unit = 0;
		jt_cell(w, BW(x->busbw), 12, true);
		gs_out_putc(w->o, '\n');
	}
	if (shown < ja->n_by_skew)
		gs_out_printf(w->o,
			      "    ... %zu more (--top N, or --format json for the %d "
			      "largest)\n",
			      ja->n_by_skew - shown, JSON_COLLECTIVES);
}

/* "+1.234 ms" / "-20.000 us" / "0". */
static const char *signed_dur(char *buf, size_t size, int64_t ns)
{
	char d[40];

	if (!ns) {
		snprintf(buf, size, "0");
		return buf;
	}
	gs_dur_text(d, sizeof(d), ns < 0 ? -ns : ns);
	snprintf(buf, size, "%c%s", ns < 0 ? '-' : '+', d);
	return buf;
}

/* The ranks of a clock domain, one by one (gs_text_runs). */
struct dom_iter {
	const struct gs_job_analysis *ja;
	size_t d, i;
};

static bool dom_next(void *ctx, uint32_t *v)
{
	struct dom_iter *it = ctx;

	while (it->i < it->ja->n_sums && it->ja->rank_dom[it->i] != it->d)
		it->i++;
	if (it->i >= it->ja->n_sums)
		return false;
	*v = rank_of(it->ja, it->i++)->rank;
	return true;
}

/* "0-7", the ranks of domain d (three runs at most). */
static void dom_ranks(char *buf, size_t size, const struct gs_job_analysis *ja, size_t d)
{
	struct dom_iter it = {ja, d, 0};

	gs_text_runs(buf, size, dom_next, &it, 3, false);
}

/* One row of the Clocks table: domain d. */
static void text_clock_row(struct jt *w, const struct gs_job_analysis *ja, size_t d)
{
	const struct ja_domain *x = &ja->dom[d];
	char g[16], ranks[64], off[48], res[48], how[96];

	snprintf(g, sizeof(g), "%u", x->group);
	dom_ranks(ranks, sizeof(ranks), ja, d);
	signed_dur(off, sizeof(off), x->offset);
	switch (x->state) {
	case JA_DOM_REFERENCE:
		snprintf(res, sizeof(res), "-");
		snprintf(how, sizeof(how), "reference");
		break;
	case JA_DOM_FITTED:
		gs_dur_text(res, sizeof(res), x->residual);
		snprintf(how, sizeof(how), "%zu collectives, against rank %u%s", x->evidence,
			 rank_of(ja, ja->dom[x->via].first_ri)->rank,
			 x->outliers ? " (outliers set aside)" : "");
		break;
	case JA_DOM_NO_EVIDENCE:
		snprintf(res, sizeof(res), "unknown");
		snprintf(how, sizeof(how), "no collective ends with another host's");
		break;
	default:
		snprintf(res, sizeof(res), "-");
		snprintf(how, sizeof(how), "raw clock (--align none)");
		break;
	}
	gs_out_puts(w->o, "    ");
	jt_cell(w, g, 6, false);
	jt_cell(w, *x->host ? x->host : "?", 16, false);
	jt_cell(w, ranks, 14, false);
	jt_cell(w, off, 13, true);
	jt_cell(w, res, 11, true);
	gs_out_puts(w->o, "  ");
	gs_out_puts(w->o, how);
	gs_out_putc(w->o, '\n');
}

#define CLOCK_ROWS 8 /* hosts listed one by one; more: a summary and the extremes */

/* The clocks: how the ranks' times were put on one clock per group. */
static void text_clocks(struct jt *w, const struct gs_job_analysis *ja, const struct ja_view *v)
{
	size_t fitted = 0, unknown = 0, big_off = SIZE_MAX, big_res = SIZE_MAX;

	/* Nothing is compared across ranks without communication: with
	 * several hosts, say that their clocks stay as the traces give them. */
	if (!ja->n_comms) {
		if (ja->n_dom > 1) {
			jt_section(w, "Clocks");
			gs_out_printf(
				w->o,
				"    %zu clocks (hosts or inputs) and no collective to align them "
				"on: each trace's\n    times as it maps them to UTC; nothing is "
				"compared across ranks\n",
				ja->n_dom);
		}
		return;
	}
	for (size_t d = 0; d < ja->n_dom; d++) {
		const struct ja_domain *x = &ja->dom[d];
		int64_t a = x->offset < 0 ? -x->offset : x->offset;

		fitted += x->state == JA_DOM_FITTED;
		unknown += x->state == JA_DOM_NO_EVIDENCE;
		if (x->state != JA_DOM_FITTED)
			continue;
		if (big_off == SIZE_MAX ||
		    a > (ja->dom[big_off].offset < 0 ? -ja->dom[big_off].offset :
						       ja->dom[big_off].offset))
			big_off = d;
		if (big_res == SIZE_MAX || x->residual > ja->dom[big_res].residual)
			big_res = d;
	}
	if (ja->n_dom == 1) {
		const struct ja_domain *x = &ja->dom[0];

		jt_section(w, "Clocks");
		gs_out_puts(w->o, "    one clock: every rank ");
		if (*x->host) {
			gs_out_puts(w->o, "on host ");
			gs_out_text(w->o, x->host);
		} else {
			gs_out_puts(w->o, "of one input");
		}
		gs_out_printf(w->o, "; its wall clock: %s\n", gs_clock_source_text(x->clock));
		return;
	}
	jt_section(w, fitted ? "Clocks: hosts aligned on the ends of collectives" : "Clocks");
	gs_out_puts(w->o, "    ");
	jt_cell(w, "group", 6, false);
	jt_cell(w, "host", 16, false);
	jt_cell(w, "ranks", 14, false);
	jt_cell(w, "offset", 13, true);
	jt_cell(w, "residual", 11, true);
	gs_out_puts(w->o, "  how\n");
	if (v->all || ja->n_dom <= CLOCK_ROWS) {
		for (size_t d = 0; d < ja->n_dom; d++)
			text_clock_row(w, ja, d);
	} else {
		/* Many hosts: the reference, the largest offset and residual,
		 * and how many are left out. */
		size_t shown = 1;

		text_clock_row(w, ja, 0);
		if (big_off != SIZE_MAX && big_off != 0) {
			text_clock_row(w, ja, big_off);
			shown++;
		}
		if (big_res != SIZE_MAX && big_res != 0 && big_res != big_off) {
			text_clock_row(w, ja, big_res);
			shown++;
		}
		gs_out_printf(w->o,
			      "    ... %zu more hosts (%zu fitted, %zu with no collective to align "
			      "on): --ranks all or\n    --format json for every one; above, the "
			      "largest offset and residual\n",
			      ja->n_dom - shown, fitted, unknown);
	}
	gs_out_puts(w->o,
		    "    each trace's times first go to UTC by what it says of its clock; offset: "
		    "then added to\n    a host's ranks so that the ends of its all-reduces, "
		    "all-gathers and reduce-scatters meet\n    the reference's (the median "
		    "difference); residual: the spread left, outliers set aside;\n    a skew "
		    "within the clocks' residuals is clock error, never a straggler\n");
}

#define STEP_ROWS 64 /* steps in the text report's table */

/* The steps matched across ranks by number. */
static void text_steps(struct jt *w, const struct gs_job_analysis *ja)
{
	int64_t err = 0;
	size_t unknown = 0;

	if (!ja->n_steps)
		return;
	jt_section(w,
		   "Steps across ranks (by number; * analysed on every rank; ! max over 1.2x the "
		   "median; p partial)");
	gs_out_puts(w->o, "       ");
	jt_cell(w, "step", 5, true);
	jt_cell(w, "ranks", 6, true);
	jt_cell(w, "min", 12, true);
	jt_cell(w, "median", 12, true);
	jt_cell(w, "max", 12, true);
	jt_cell(w, "rank", 5, true);
	jt_cell(w, "job span", 12, true);
	gs_out_puts(w->o, "  ");
	jt_cell(w, "last to end", 13, false);
	gs_out_puts(w->o, "slowest's gap\n");
	for (size_t i = 0; i < ja->n_steps; i++) {
		const struct ja_step *x = &ja->steps[i];
		char num[32], ranks[32], rank[16], last[48], cause[4 * TEXT_WIDTH];

		if (!x->span_known)
			unknown++;
		else if (x->span_err > err)
			err = x->span_err;
		if (i >= STEP_ROWS)
			continue;
		snprintf(num, sizeof(num), "%llu", (unsigned long long)x->number);
		snprintf(ranks, sizeof(ranks), "%zu", x->ranks);
		snprintf(rank, sizeof(rank), "%u", rank_of(ja, x->ri[2])->rank);
		LINE_UNIT(x->v[0], x->v[1], x->v[2], x->span_known ? x->span_ns : 0);
		gs_out_printf(w->o, "    %c%c%c", x->analysed ? '*' : ' ', x->slow ? '!' : ' ',
			      x->partial ? 'p' : ' ');
		jt_cell(w, num, 5, true);
		jt_cell(w, ranks, 6, true);
		for (int k = 0; k < 3; k++)
			jt_cell(w, DUR(x->v[k]), 12, true);
		jt_cell(w, x->ranks > 1 ? rank : "", 5, true);
		jt_cell(w, x->span_known ? DUR(x->span_ns) : "unknown", 12, true);
		line_unit = 0;
		if (!x->span_known || x->ranks < 2)
			snprintf(last, sizeof(last), "-");
		else if (x->last_ns == 0)
			snprintf(last, sizeof(last), "together");
		else
			snprintf(last, sizeof(last), "%u +%s", rank_of(ja, x->last_ri)->rank,
				 DUR(x->last_ns));
		gs_out_puts(w->o, "  ");
		jt_cell(w, last, 13, false);
		gs_report_text_fit(cause, sizeof(cause),
				   x->cause < GS_GAP_CAUSE_COUNT ? gs_gap_cause_name(x->cause) :
								   "-",
				   TEXT_WIDTH - 86);
		gs_out_printf(w->o, "%s\n", cause);
	}
	if (ja->n_steps > STEP_ROWS)
		gs_out_printf(w->o, "    ... %zu more steps (--format json for every one)\n",
			      ja->n_steps - STEP_ROWS);
	if (ja->step_ranks < ja->n_sums)
		gs_out_printf(w->o,
			      "    %zu of %zu ranks have no steps (no step markers in their "
			      "traces)\n",
			      ja->n_sums - ja->step_ranks, ja->n_sums);
	if (err > 0)
		gs_out_printf(w->o, "    job spans are on the aligned clocks, within %s\n",
			      DUR(err));
	if (unknown)
		gs_out_printf(w->o,
			      "    job span unknown for %zu step%s: its ranks are on clocks no "
			      "collective aligns\n",
			      unknown, unknown == 1 ? "" : "s");
	if (ja->slow_steps.steps)
		gs_out_printf(w->o,
			      "    rank %u had the longest step in %zu of %zu analysed steps, %s "
			      "beyond the median rank's\n",
			      rank_of(ja, ja->slow_steps.ri)->rank, ja->slow_steps.steps,
			      ja->slow_steps.of, DUR(ja->slow_steps.extra));
}

static void text_totals(struct jt *w, const struct gs_job_analysis *ja, const struct ja_view *v)
{
	size_t with = 0, listed = 0;

	if (!ja->n_by_skew)
		return;
	for (size_t i = 0; i < ja->n_totals; i++)
		with += ja->totals[i].collectives > 0;
	if (v->all) {
		jt_section(w, "Per rank, over its collectives");
	} else {
		char title[128];

		snprintf(title, sizeof(title),
			 "Per rank, over its collectives: the outliers' ranks");
		jt_section(w, title);
	}
	gs_out_puts(w->o, "    ");
	jt_cell(w, "rank", 6, false);
	jt_cell(w, "collectives", 12, true);
	jt_cell(w, "waited", 12, true);
	jt_cell(w, "last", 8, true);
	jt_cell(w, "share", 8, true);
	jt_cell(w, "cost to others", 16, true);
	jt_cell(w, "compute before", 16, true);
	gs_out_putc(w->o, '\n');
	for (size_t i = 0; i < ja->n_totals; i++) {
		const struct ja_total *t = &ja->totals[i];
		char rank[16], n[32], last[32];

		if (!t->collectives || !v->rank_shown[t->ri])
			continue;
		listed++;
		snprintf(rank, sizeof(rank), "%u", rank_of(ja, t->ri)->rank);
		snprintf(n, sizeof(n), "%llu", (unsigned long long)t->collectives);
		snprintf(last, sizeof(last), "%llu", (unsigned long long)t->last);
		gs_out_puts(w->o, "    ");
		jt_cell(w, rank, 6, false);
		jt_cell(w, n, 12, true);
		/* The rank's own times in one unit; what it cost the others,
		 * summed over every other rank, in its own. */
		LINE_UNIT(t->waited, t->compute_before);
		jt_cell(w, DUR(t->waited), 12, true);
		jt_cell(w, last, 8, true);
		jt_cell(w, PCT((int64_t)t->last, (int64_t)t->counted), 8, true);
		line_unit = 0;
		jt_cell(w, DUR(t->cost), 16, true);
		LINE_UNIT(t->waited, t->compute_before);
		jt_cell(w, DUR(t->compute_before), 16, true);
		line_unit = 0;
		gs_out_puts(w->o, t->straggler ? "  straggler\n" : "\n");
	}
	if (listed < with)
		gs_out_printf(w->o,
			      "    %zu of %zu ranks not listed (--ranks all lists every one)\n",
			      with - listed, with);
	gs_out_puts(w->o, "    last: times the others waited for it (a skew of 0 counts for no "
			  "one); share: of its\n    collectives with a skew; straggler: last in at "
			  "least 3, a quarter, and twice chance;\n    compute before: its compute "
			  "kernels' time between its previous collective and its arrival\n");
}

static void text_mismatches(struct jt *w, const struct gs_job_analysis *ja)
{
	if (!ja->n_mm)
		return;
	jt_section(w, "Mismatches (reported, not guessed over)");
	for (size_t i = 0; i < ja->n_mm && i < w->top; i++)
		gs_report_text_wrap(w->o, "    ", 4, ja->mm[i].text, 6);
	if (ja->n_mm > w->top)
		gs_out_printf(w->o, "    ... %zu more (--top N, or --format json for all)\n",
			      ja->n_mm - w->top);
}

void gs_job_analysis_write_text(struct gs_out *o, const struct gs_report *job,
				const struct gs_report_style *st)
{
	const struct gs_job_analysis *ja = job ? job->ja : NULL;
	struct gs_report_style s = gs_report_style_of(st);
	struct jt w = {o, s.color, s.top};
	struct ja_view v;
	char title[96];

	if (!ja)
		return;
	snprintf(title, sizeof(title), "job: %zu ranks, %zu GPU%s", ja->n_sums, ja->n_gpus,
		 ja->n_gpus == 1 ? "" : "s");
	jt_rule(&w, title);
	if (ja_view_make(ja, s.ranks, &v) != GS_OK) {
		o->failed = true;
		o->err = ENOMEM;
		return;
	}
	if (ja->world_size > ja->n_sums)
		gs_out_printf(
			o,
			"\n  partial job: %zu of %u ranks (the world size the traces declare): "
			"every verdict\n  below is over the ranks at hand\n",
			ja->n_sums, ja->world_size);
	text_findings(&w, ja);
	text_ranks(&w, ja, &v);
	/* Many GPUs: the min / median / max rows above say it. */
	if (v.all)
		text_summary(&w, ja);
	text_steps(&w, ja);
	text_clocks(&w, ja, &v);
	text_collectives(&w, ja, &v);
	text_totals(&w, ja, &v);
	text_mismatches(&w, ja);
	ja_view_free(&v);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                       */
/* ------------------------------------------------------------------------ */

static void jw_frac_or_null(struct jw *w, const char *key, double v)
{
	if (isfinite(v))
		jw_fixed(w, key, v);
	else
		jw_null(w, key);
}

static void jw_metric(struct jw *w, const char *key, enum ja_metric m, double v)
{
	if (metric_info[m].ns)
		jw_i64(w, key, (int64_t)v);
	else
		jw_frac_or_null(w, key, v);
}

/* Every GPU's row; `why` per GPU (ja_view's): its outlier's `by`, else
 * UINT_MAX. */
static void json_ranks(struct jw *w, const struct gs_job_analysis *ja, const unsigned *why)
{
	jw_arr(w, "ranks");
	for (size_t i = 0; i < ja->n_gpus; i++) {
		const struct ja_gpu *g = &ja->gpus[i];
		const struct gs_js_gpu *d = g->d;

		jw_row(w, NULL);
		jw_u64(w, "rank", g->r->rank);
		if (*gs_js_str(g->r, g->r->host))
			jw_str(w, "host", gs_js_str(g->r, g->r->host));
		else
			jw_null(w, "host");
		if (g->r->pid >= 0)
			jw_i64(w, "pid", g->r->pid);
		else
			jw_null(w, "pid");
		jw_u64(w, "device", d->device);
		jw_u64(w, "clock_group", g->r->clock_group);
		jw_i64(w, "window_ns", d->window_ns);
		jw_i64(w, "kernel_ns", d->total_ns[GS_CAT_KERNEL]);
		jw_i64(w, "copy_ns", d->total_ns[GS_CAT_COPY]);
		jw_i64(w, "sync_ns", d->total_ns[GS_CAT_SYNC]);
		jw_i64(w, "idle_ns", d->total_ns[GS_CAT_IDLE]);
		jw_frac_or_null(w, "efficiency", metric_value(g, M_EFF));
		jw_u64(w, "comm_kernels", d->comm_kernels);
		jw_i64(w, "comm_ns", d->comm_ns);
		jw_i64(w, "comm_union_ns", d->comm_union_ns);
		jw_i64(w, "comm_exposed_ns", d->comm_exposed_ns);
		jw_frac_or_null(w, "overlap", g->overlap);
		jw_bool(w, "outlier", why[i] != UINT_MAX);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

/* Every outlier, in the order of choice (the text and HTML show the first
 * --ranks of them). */
static void json_outliers(struct jw *w, const struct gs_job_analysis *ja, const struct ja_view *v)
{
	jw_arr(w, "outliers");
	for (size_t i = 0; i < v->n_outs; i++) {
		const struct ja_outlier *x = &v->outs[i];
		const struct ja_gpu *g = &ja->gpus[x->gpu];

		jw_row(w, NULL);
		jw_u64(w, "rank", g->r->rank);
		jw_u64(w, "device", g->d->device);
		jw_str(w, "by", x->by == OUTLIER_STRAGGLER ? "straggler" : metric_info[x->by].key);
		if (x->by == OUTLIER_STRAGGLER)
			jw_null(w, "score");
		else
			jw_fixed(w, "score", x->score);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_summary(struct jw *w, const struct gs_job_analysis *ja)
{
	static const char *const which[3] = {"min", "median", "max"};

	jw_obj(w, "summary");
	for (unsigned m = 0; m < M_COUNT; m++) {
		const struct ja_stat *s = &ja->stat[m];

		jw_row(w, metric_info[m].key);
		jw_u64(w, "count", s->count);
		for (int k = 0; k < 3; k++) {
			char key[32];

			if (!s->count) {
				jw_null(w, which[k]);
				snprintf(key, sizeof(key), "%s_rank", which[k]);
				jw_null(w, key);
				snprintf(key, sizeof(key), "%s_device", which[k]);
				jw_null(w, key);
				continue;
			}
			jw_metric(w, which[k], (enum ja_metric)m, s->v[k]);
			snprintf(key, sizeof(key), "%s_rank", which[k]);
			jw_u64(w, key, ja->gpus[s->gpu[k]].r->rank);
			snprintf(key, sizeof(key), "%s_device", which[k]);
			jw_u64(w, key, ja->gpus[s->gpu[k]].d->device);
		}
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

static void json_communicators(struct jw *w, const struct gs_job_analysis *ja)
{
	static const char *const keys[] = {"process_group", "kind", "point_to_point"};

	jw_arr(w, "communicators");
	for (size_t i = 0; i < ja->n_comms; i++) {
		const struct ja_comm *c = &ja->comms[i];
		int64_t m = c->matched ? (int64_t)c->matched : 1;

		jw_row(w, NULL);
		jw_u64(w, "id", i);
		jw_str(w, "name", c->label);
		jw_str(w, "key", keys[c->key < 3 ? c->key : 0]);
		if (c->key == JA_KEY_GROUP)
			jw_str(w, "group", c->group);
		else
			jw_null(w, "group");
		if (c->key == JA_KEY_KIND)
			jw_str(w, "kind", ja_kind_name((enum ja_kind)c->kind));
		else
			jw_null(w, "kind");
		if (c->group_size)
			jw_u64(w, "group_size", c->group_size);
		else
			jw_null(w, "group_size");
		jw_u64(w, "clock_group", c->clock_group);
		jw_str(w, "matched_by", ja_matched_by_name(c->matched_by));
		jw_arr_inline(w, "ranks");
		for (size_t k = 0; k < c->n_m; k++)
			jw_u64(w, NULL, rank_of(ja, c->m[k].ri)->rank);
		jw_end_arr(w);
		jw_arr_inline(w, "counts");
		for (size_t k = 0; k < c->n_m; k++)
			jw_u64(w, NULL, c->m[k].n);
		jw_end_arr(w);
		jw_arr_inline(w, "unmatched");
		for (size_t k = 0; k < c->n_m; k++)
			jw_u64(w, NULL, c->m[k].extra);
		jw_end_arr(w);
		jw_u64(w, "collectives", c->n_coll);
		jw_u64(w, "matched", c->matched);
		jw_u64(w, "no_overlap", c->no_overlap);
		jw_u64(w, "within_clock_error", c->within_error);
		jw_i64(w, "skew_mean_ns", c->matched ? c->skew_sum / m : 0);
		jw_i64(w, "skew_max_ns", c->skew_max);
		jw_i64(w, "wait_ns", c->wait_sum);
		jw_i64(w, "transfer_mean_ns", c->matched ? c->transfer_sum / m : 0);
		jw_frac_or_null(w, "busbw_mean_gbps",
				c->busbw_n ? c->busbw_sum / (double)c->busbw_n : NAN);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_collectives(struct jw *w, const struct gs_job_analysis *ja)
{
	size_t n = 0, entries = 0;

	/* The largest skews first: JSON_COLLECTIVES at most, fewer when their
	 * per-rank rows would pass JSON_RANK_ROWS (a job of many ranks). */
	while (n < ja->n_by_skew && n < JSON_COLLECTIVES) {
		size_t m = ja->coll[ja->by_skew[n]].present;

		if (n && entries + m > JSON_RANK_ROWS)
			break;
		entries += m;
		n++;
	}
	jw_u64(w, "collectives_total", ja->n_by_skew);
	jw_u64(w, "collectives_listed", n);
	jw_arr(w, "collectives");
	for (size_t i = 0; i < n; i++) {
		const struct ja_coll *x = &ja->coll[ja->by_skew[i]];
		const struct ja_comm *c = &ja->comms[x->comm];

		jw_row(w, NULL);
		jw_u64(w, "communicator", x->comm);
		jw_u64(w, "index", x->index);
		jw_str(w, "name", x->name);
		jw_arr_inline(w, "ranks");
		for (size_t k = 0; k < x->present; k++) {
			const struct ja_member *m = coll_member(ja, x, k);
			int64_t a = coll_op(ja, x, k)->start_ns + m->shift;

			jw_row(w, NULL);
			jw_u64(w, "rank", rank_of(ja, m->ri)->rank);
			jw_i64(w, "arrival_ns", a - m->shift);
			jw_i64(w, "clock_shift_ns", m->shift);
			jw_i64(w, "wait_ns", x->state == JA_COMPARED ? x->last - a : 0);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		jw_i64(w, "skew_ns", x->skew);
		if (x->state == JA_COMPARED)
			jw_u64(w, "last_rank", rank_of(ja, c->m[x->last_m].ri)->rank);
		else
			jw_null(w, "last_rank");
		jw_bool(w, "within_clock_error", x->state == JA_WITHIN_ERROR);
		jw_i64(w, "clock_error_ns", x->clock_err);
		jw_i64(w, "transfer_ns", x->transfer);
		if (x->bytes >= 0)
			jw_i64(w, "bytes", x->bytes);
		else
			jw_null(w, "bytes");
		jw_frac_or_null(w, "algbw_gbps", x->algbw);
		jw_frac_or_null(w, "busbw_gbps", x->busbw);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_totals(struct jw *w, const struct gs_job_analysis *ja)
{
	jw_arr(w, "rank_totals");
	for (size_t i = 0; i < ja->n_totals; i++) {
		const struct ja_total *t = &ja->totals[i];

		jw_row(w, NULL);
		jw_u64(w, "rank", rank_of(ja, t->ri)->rank);
		jw_u64(w, "collectives", t->collectives);
		jw_i64(w, "waited_ns", t->waited);
		jw_u64(w, "times_last", t->last);
		jw_u64(w, "with_skew", t->counted);
		jw_fixed(w, "expected_last", t->expected);
		jw_i64(w, "cost_ns", t->cost);
		jw_i64(w, "compute_before_ns", t->compute_before);
		jw_bool(w, "straggler", t->straggler);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_arr(w, "stragglers");
	for (size_t i = 0; i < ja->n_stragglers; i++) {
		const struct ja_total *t = &ja->totals[ja->stragglers[i]];

		jw_row(w, NULL);
		jw_u64(w, "rank", rank_of(ja, t->ri)->rank);
		jw_u64(w, "times_last", t->last);
		jw_u64(w, "collectives", t->counted);
		jw_fixed(w, "share", t->counted ? (double)t->last / (double)t->counted : 0);
		jw_i64(w, "cost_ns", t->cost);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_mismatches(struct jw *w, const struct gs_job_analysis *ja)
{
	static const char *const kinds[MM_KIND_COUNT] = {"count", "name", "ranks", "no_overlap",
							 "unpaired"};

	jw_arr(w, "mismatches");
	for (size_t i = 0; i < ja->n_mm; i++) {
		const struct ja_mismatch *x = &ja->mm[i];
		const struct ja_comm *c = &ja->comms[x->comm];

		jw_row(w, NULL);
		jw_u64(w, "communicator", x->comm);
		jw_str(w, "kind", kinds[x->kind < MM_KIND_COUNT ? x->kind : 0]);
		jw_arr_inline(w, "ranks");
		for (size_t k = 0; k < c->n_m; k++) {
			jw_row(w, NULL);
			jw_u64(w, "rank", rank_of(ja, c->m[k].ri)->rank);
			jw_u64(w, "count", c->m[k].n);
			jw_u64(w, "unmatched", c->m[k].extra);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		if (x->kind == MM_RANKS)
			jw_u64(w, "group_size", c->group_size);
		if (x->kind == MM_NAME || x->kind == MM_NO_OVERLAP)
			jw_u64(w, "index", x->index);
		jw_u64(w, "count", x->count);
		jw_u64(w, "matched", c->matched);
		jw_str(w, "text", x->text);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static const char *dom_state_name(uint8_t s)
{
	static const char *const n[] = {"reference", "fitted", "no_evidence", "raw"};

	return s < 4 ? n[s] : "raw";
}

/* The clocks: per clock domain, its ranks, host, offset and residual. */
static void json_clocks(struct jw *w, const struct gs_job_analysis *ja)
{
	static const char *const align[] = {"auto", "collectives", "none"};

	jw_str(w, "align", align[ja->align < 3 ? ja->align : 0]);
	jw_arr(w, "clocks");
	for (size_t d = 0; d < ja->n_dom; d++) {
		const struct ja_domain *x = &ja->dom[d];
		const struct gs_js_rank *r = rank_of(ja, x->first_ri);

		jw_row(w, NULL);
		jw_u64(w, "clock_group", x->group);
		if (*x->host)
			jw_str(w, "host", x->host);
		else
			jw_null(w, "host");
		jw_bool(w, "host_from_file_name", r->host_from_name);
		jw_arr_inline(w, "ranks");
		for (size_t ri = 0; ri < ja->n_sums; ri++)
			if (ja->rank_dom[ri] == d)
				jw_u64(w, NULL, rank_of(ja, ri)->rank);
		jw_end_arr(w);
		jw_str(w, "wall_clock", gs_clock_source_name(x->clock));
		jw_i64(w, "wall_offset_ns", r->wall_offset_ns);
		jw_str(w, "alignment", dom_state_name(x->state));
		jw_i64(w, "offset_ns", x->offset);
		if (x->state == JA_DOM_FITTED) {
			jw_i64(w, "residual_ns", x->residual);
			jw_i64(w, "spread_max_ns", x->spread_max);
			jw_u64(w, "evidence_collectives", x->evidence);
			jw_u64(w, "outlier_collectives", x->outliers);
			jw_u64(w, "fitted_against_rank",
			       rank_of(ja, ja->dom[x->via].first_ri)->rank);
		} else {
			jw_null(w, "residual_ns");
		}
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

/* The steps matched across ranks, each with every rank's time in it. */
static void json_steps(struct jw *w, const struct gs_job_analysis *ja)
{
	const struct ja_slow_steps *slow = &ja->slow_steps;

	jw_obj(w, "steps");
	jw_u64(w, "ranks_with_steps", ja->step_ranks);
	if (slow->steps) {
		jw_obj(w, "slowest_rank");
		jw_u64(w, "rank", rank_of(ja, slow->ri)->rank);
		jw_u64(w, "steps", slow->steps);
		jw_u64(w, "of", slow->of);
		jw_i64(w, "extra_ns", slow->extra);
		jw_end_obj(w);
	} else {
		jw_null(w, "slowest_rank");
	}
	jw_arr(w, "by_number");
	for (size_t i = 0; i < ja->n_steps; i++) {
		const struct ja_step *x = &ja->steps[i];
		static const char *const key[3][2] = {{"min_ns", "min_rank"},
						      {"median_ns", "median_rank"},
						      {"max_ns", "max_rank"}};

		jw_row(w, NULL);
		jw_u64(w, "number", x->number);
		jw_u64(w, "ranks", x->ranks);
		jw_bool(w, "analysed", x->analysed);
		jw_bool(w, "partial", x->partial);
		for (int k = 0; k < 3; k++) {
			jw_i64(w, key[k][0], x->v[k]);
			jw_u64(w, key[k][1], rank_of(ja, x->ri[k])->rank);
		}
		jw_bool(w, "slow", x->slow);
		if (x->span_known) {
			jw_i64(w, "span_ns", x->span_ns);
			jw_i64(w, "span_error_ns", x->span_err);
			jw_u64(w, "last_rank", rank_of(ja, x->last_ri)->rank);
			jw_i64(w, "last_after_median_ns", x->last_ns);
		} else {
			jw_null(w, "span_ns");
			jw_null(w, "span_error_ns");
			jw_null(w, "last_rank");
			jw_null(w, "last_after_median_ns");
		}
		if (x->cause < GS_GAP_CAUSE_COUNT) {
			jw_str(w, "slowest_gap_cause", gs_gap_cause_name(x->cause));
			jw_i64(w, "slowest_gap_cause_ns", x->cause_ns);
		} else {
			jw_null(w, "slowest_gap_cause");
			jw_null(w, "slowest_gap_cause_ns");
		}
		if (isfinite(x->eff_min)) {
			jw_fixed(w, "efficiency_min", x->eff_min);
			jw_u64(w, "efficiency_min_rank", rank_of(ja, x->eff_ri)->rank);
		} else {
			jw_null(w, "efficiency_min");
			jw_null(w, "efficiency_min_rank");
		}
		jw_arr(w, "by_rank");
		for (size_t p = 0; p < x->ranks; p++) {
			const struct ja_step_at *a = &ja->step_at[x->first + p];
			const struct gs_js_step *st = &ja->sums[a->ri]->steps[a->si];

			jw_row(w, NULL);
			jw_u64(w, "rank", rank_of(ja, a->ri)->rank);
			jw_i64(w, "gpu_start_ns", st->start_ns);
			jw_i64(w, "gpu_end_ns", st->end_ns);
			jw_i64(w, "ns", st->end_ns - st->start_ns);
			jw_bool(w, "analysed", st->selected);
			if (st->has_figures && isfinite(st->efficiency))
				jw_fixed(w, "efficiency", st->efficiency);
			else
				jw_null(w, "efficiency");
			if (st->has_figures && st->gap_cause < GS_GAP_CAUSE_COUNT)
				jw_str(w, "gap_cause", gs_gap_cause_name(st->gap_cause));
			else
				jw_null(w, "gap_cause");
			jw_end_obj(w);
		}
		jw_end_arr(w);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_end_obj(w);
}

void gs_job_analysis_write_json(struct jw *w, const struct gs_report *job)
{
	const struct gs_job_analysis *ja = job ? job->ja : NULL;

	struct ja_view v;

	if (!ja)
		return;
	/* Every outlier (no limit: the JSON has every rank). */
	if (ja_view_make(ja, SIZE_MAX, &v) != GS_OK) {
		w->o.failed = true;
		w->o.err = ENOMEM;
		return;
	}
	jw_obj(w, "job");
	if (ja->world_size > ja->n_sums) {
		jw_obj(w, "partial");
		jw_u64(w, "ranks", ja->n_sums);
		jw_u64(w, "world_size", ja->world_size);
		jw_end_obj(w);
	} else {
		jw_null(w, "partial");
	}
	json_clocks(w, ja);
	json_ranks(w, ja, v.why);
	json_outliers(w, ja, &v);
	json_summary(w, ja);
	json_communicators(w, ja);
	json_collectives(w, ja);
	json_totals(w, ja);
	json_mismatches(w, ja);
	json_steps(w, ja);
	jw_arr(w, "findings");
	for (size_t i = 0; i < ja->n_findings; i++) {
		const struct ja_finding *f = &ja->findings[i];

		gs_report_json_finding(w, f->kind, f->ns, &f->data, f->text, f->advice);
	}
	jw_end_arr(w);
	jw_end_obj(w);
	ja_view_free(&v);
}

/* ------------------------------------------------------------------------ */
/* HTML                                                                       */
/* ------------------------------------------------------------------------ */

#define H_XMAX 1000000 /* drawing units across the span (as report_html.c) */
#define H_DRAWN 2000   /* collectives drawn per clock group at most, by skew */
#define H_RECTS 20000  /* ... and kernels drawn */
#define H_PITCH 24
#define H_BAR_Y 4
#define H_BAR_H 16
#define H_LABEL_W 170
#define H_AXIS_H 24

static void h_esc(struct gs_out *o, const char *s, size_t max)
{
	gs_report_html_text(o, s, max);
}

/* A duration with "µs". */
#define HDUR(ns) gs_report_dur_utf8((char[48]){0}, 48, (ns))

static void h_findings(struct gs_out *o, const struct gs_job_analysis *ja)
{
	gs_out_puts(o, "<h3>Job findings</h3>\n");
	if (!ja->n_findings) {
		gs_out_puts(o,
			    "<p class=\"none\" id=\"job-findings\">Nothing stands out across the "
			    "ranks: no straggler, waits or exposed communication above 0.5% of "
			    "a window.</p>\n");
		return;
	}
	gs_out_puts(o, "<ol class=\"findings\" id=\"job-findings\">\n");
	for (size_t i = 0; i < ja->n_findings; i++) {
		gs_out_puts(o, "<li><div>");
		gs_report_html_sentence(o, ja->findings[i].text);
		gs_out_puts(o, "</div><div class=\"advice\">&rarr; ");
		gs_report_html_sentence(o, ja->findings[i].advice);
		gs_out_puts(o, "</div></li>\n");
	}
	gs_out_puts(o, "</ol>\n");
}

/* One GPU's row of the rank table; with an outlier column (`col`), `why`
 * its outlier's `by` (UINT_MAX: none). */
static void h_rank_row(struct gs_out *o, const struct ja_gpu *g, bool col, unsigned why)
{
	const struct gs_js_gpu *d = g->d;
	char eff[32];

	gs_out_printf(o, "<tr><td>%u</td><td>", g->r->rank);
	h_esc(o, *gs_js_str(g->r, g->r->host) ? gs_js_str(g->r, g->r->host) : "-", 40);
	gs_out_printf(o, "</td><td class=\"n\">%u</td><td class=\"n\">%s</td>", d->device,
		      HDUR(d->window_ns));
	for (unsigned c = 0; c < GS_CAT_COUNT; c++)
		gs_out_printf(o, "<td class=\"n\">%s</td>", PCT(d->total_ns[c], d->window_ns));
	gs_out_printf(o, "<td class=\"n\">%s</td>", eff_text(d, eff, sizeof(eff)));
	gs_out_printf(o, "<td class=\"n\">%s</td>", d->comm_kernels ? HDUR(d->comm_ns) : "-");
	gs_out_printf(o, "<td class=\"n\">%s</td>",
		      d->comm_kernels ? HDUR(d->comm_exposed_ns) : "-");
	gs_out_printf(o, "<td class=\"n\">%s</td>", isfinite(g->overlap) ? FRAC(g->overlap) : "-");
	if (col)
		gs_out_printf(o, "<td>%s</td>", why == UINT_MAX ? "" : outlier_word(why));
	gs_out_puts(o, "</tr>\n");
}

static void h_rank_head(struct gs_out *o, const char *id, bool why)
{
	gs_out_printf(o,
		      "<table class=\"tbl\" id=\"%s\"><thead><tr>"
		      "<th>rank</th><th>host</th><th class=\"n\">GPU</th>"
		      "<th class=\"n\">window</th><th class=\"n\">kernel</th>"
		      "<th class=\"n\">copy</th><th class=\"n\">sync</th><th class=\"n\">idle</th>"
		      "<th class=\"n\">efficiency</th><th class=\"n\">comm time</th>"
		      "<th class=\"n\">exposed comm</th><th class=\"n\">overlap</th>%s"
		      "</tr></thead><tbody>\n",
		      id, why ? "<th>outlier</th>" : "");
}

/* The min (k 0), median (1) or max (2) row of the rank table. */
static void h_stat_row(struct gs_out *o, const struct gs_job_analysis *ja, int k)
{
	static const char *const label[3] = {"min", "median", "max"};
	static const enum ja_metric col[] = {M_WINDOW, M_KERNEL, M_COPY,    M_SYNC,   M_IDLE,
					     M_EFF,    M_COMM,   M_EXPOSED, M_OVERLAP};
	char buf[48];

	gs_out_printf(o, "<tr class=\"stat\"><td colspan=\"3\">%s</td>", label[k]);
	for (size_t c = 0; c < sizeof(col) / sizeof(col[0]); c++) {
		const struct ja_stat *s = &ja->stat[col[c]];

		if (!s->count)
			gs_out_puts(o, "<td class=\"n\">-</td>");
		else if (metric_info[col[c]].ns)
			gs_out_printf(o, "<td class=\"n\">%s</td>", HDUR((int64_t)s->v[k]));
		else
			gs_out_printf(o, "<td class=\"n\">%s</td>",
				      metric_text(buf, sizeof(buf), col[c], s->v[k]));
	}
	gs_out_puts(o, "<td></td></tr>\n");
}

/*
 * The rank table: every GPU's row when they fit; else each column's min,
 * median and max and the outliers, open, and every row in a collapsed
 * block under them. Then the min / median / max with the rank of each.
 */
static void h_ranks(struct gs_out *o, const struct gs_job_analysis *ja, const struct ja_view *v)
{
	gs_out_puts(o, "<h3>Ranks</h3>\n");
	if (v->all) {
		h_rank_head(o, "job-ranks", false);
		for (size_t i = 0; i < ja->n_gpus; i++)
			h_rank_row(o, &ja->gpus[i], false, UINT_MAX);
		gs_out_puts(o, "</tbody></table>\n");
	} else {
		gs_out_printf(o,
			      "<p class=\"more\">Each column's min, median and max over the %zu "
			      "GPUs, then the %zu outlier%s (stragglers, then the GPUs farthest "
			      "from the median; --ranks N|all).</p>\n",
			      ja->n_gpus, v->n_shown, v->n_shown == 1 ? "" : "s");
		h_rank_head(o, "job-ranks", true);
		for (int k = 0; k < 3; k++)
			h_stat_row(o, ja, k);
		for (size_t i = 0; i < ja->n_gpus; i++)
			if (v->why[i] != UINT_MAX)
				h_rank_row(o, &ja->gpus[i], true, v->why[i]);
		gs_out_puts(o, "</tbody></table>\n");
		gs_out_printf(o,
			      "<details class=\"more\" id=\"job-ranks-all\"><summary>Every GPU: "
			      "%zu rows, %zu outlier%s marked</summary>\n",
			      ja->n_gpus, v->n_outs, v->n_outs == 1 ? "" : "s");
		h_rank_head(o, "job-ranks-full", true);
		for (size_t i = 0; i < ja->n_gpus; i++)
			h_rank_row(o, &ja->gpus[i], true, v->why[i]);
		gs_out_puts(o, "</tbody></table>\n</details>\n");
	}
	gs_out_puts(o, "<table class=\"tbl\" id=\"job-summary\"><thead><tr><th>over the GPUs</th>"
		       "<th class=\"n\">min</th><th class=\"n\">median</th><th class=\"n\">max</th>"
		       "</tr></thead><tbody>\n");
	for (unsigned m = 0; m < M_COUNT; m++) {
		const struct ja_stat *s = &ja->stat[m];
		char buf[96];

		gs_out_printf(o, "<tr><td>%s</td>", metric_info[m].label);
		for (int k = 0; k < 3; k++) {
			if (!s->count) {
				gs_out_puts(o, "<td class=\"n\">-</td>");
				continue;
			}
			stat_cell(buf, sizeof(buf), ja, s, (enum ja_metric)m, k);
			gs_out_puts(o, "<td class=\"n\">");
			h_esc(o, buf, 0);
			gs_out_puts(o, "</td>");
		}
		gs_out_puts(o, "</tr>\n");
	}
	gs_out_puts(o, "</tbody></table>\n<p class=\"more\">The median of an even count is the "
		       "lower middle; ties go to the lowest rank.</p>\n");
}

/* The lane of GPU `dev` of rank `ri`: -1 when it has none. */
static int lane_of(const struct gs_job_analysis *ja, const int *lanes, size_t ri, uint32_t dev)
{
	size_t i = gpu_index(ja, ri, dev);

	return i == SIZE_MAX ? -1 : lanes[i];
}

static int64_t h_x(int64_t t, int64_t t0, int64_t span)
{
	double x;

	if (t <= t0 || span <= 0)
		return 0;
	if (t - t0 >= span)
		return H_XMAX;
	x = (double)(t - t0) * H_XMAX / (double)span;
	return (int64_t)(x + 0.5);
}

/*
 * The lanes of a drawing when more GPUs than H_LANES take part in its
 * collectives (lanes[q] 0 for each): the outliers shown in the rank table,
 * then the GPUs last most often in the drawn collectives (ties: the lowest
 * rank), H_LANES - 1 of them; the others (lanes[q] H_OTHERS) share one
 * lane, drawn after them.
 */
#define H_LANES 32
#define H_OTHERS (-2)

static gs_status h_pick_lanes(const struct gs_job_analysis *ja, uint32_t g, size_t n_draw,
			      const struct ja_view *v, int *lanes)
{
	size_t *last = calloc(ja->n_gpus ? ja->n_gpus : 1, sizeof(*last)), picked = 0, i, drawn;

	if (!last)
		return gs_nomem();
	for (i = 0, drawn = 0; i < ja->n_by_skew && drawn < n_draw; i++) {
		const struct ja_coll *x = &ja->coll[ja->by_skew[i]];
		const struct ja_comm *c = &ja->comms[x->comm];
		size_t q = SIZE_MAX;

		if (c->clock_group != g)
			continue;
		drawn++;
		if (x->skew <= 0 || x->state != JA_COMPARED)
			continue;
		for (size_t p = 0; p < x->present; p++)
			if (ja->slot[x->slot + p].m == x->last_m)
				q = gpu_index(ja, coll_member(ja, x, p)->ri,
					      coll_op(ja, x, p)->device);
		if (q != SIZE_MAX)
			last[q]++;
	}
	for (i = 0; i < ja->n_gpus; i++)
		if (lanes[i] == 0)
			lanes[i] = H_OTHERS;
	for (i = 0; i < v->n_shown && picked + 1 < H_LANES; i++) {
		size_t q = v->outs[i].gpu;

		if (lanes[q] == H_OTHERS) {
			lanes[q] = 0;
			picked++;
		}
	}
	while (picked + 1 < H_LANES) {
		size_t best = SIZE_MAX;

		for (i = 0; i < ja->n_gpus; i++)
			if (lanes[i] == H_OTHERS && last[i] &&
			    (best == SIZE_MAX || last[i] > last[best]))
				best = i;
		if (best == SIZE_MAX)
			break;
		lanes[best] = 0;
		picked++;
	}
	free(last);
	return GS_OK;
}

/* One drawing of the collectives of clock group `g` on its common clock: a
 * lane per GPU (with many GPUs, H_LANES - 1 of them and one for the
 * others), its collective kernels on it (the last rank's in the wait
 * colour), and each collective's skew as a band from its first to its last
 * arrival across the lanes. */
static gs_status h_drawing(struct gs_out *o, const struct gs_job_analysis *ja, uint32_t g,
			   int *lanes, const struct ja_view *v)
{
	size_t n_lanes = 0, in_group = 0, n_draw = 0, rects = 0, drawn, i, k, taking = 0,
	       others = 0;
	int64_t t0 = 0, t1 = 0;
	bool any = false, full = false;
	int height, other_lane = -1;

	for (i = 0; i < ja->n_gpus; i++)
		lanes[i] = -1;
	/* The collectives of the group, by skew: the first H_DRAWN are drawn,
	 * fewer when their kernels would pass H_RECTS (a lane holds one kernel
	 * of a collective at most). */
	for (i = 0; i < ja->n_by_skew; i++) {
		const struct ja_coll *x = &ja->coll[ja->by_skew[i]];
		const struct ja_comm *c = &ja->comms[x->comm];
		size_t cost = x->present < H_LANES ? x->present : H_LANES;

		if (c->clock_group != g)
			continue;
		in_group++;
		if (!full && (n_draw >= H_DRAWN || (n_draw && rects + cost > H_RECTS)))
			full = true;
		if (full)
			continue;
		n_draw++;
		rects += cost;
		for (k = 0; k < x->present; k++) {
			const struct ja_member *m = coll_member(ja, x, k);
			const struct gs_js_kernel *op = coll_op(ja, x, k);
			size_t q = gpu_index(ja, m->ri, op->device);

			if (q != SIZE_MAX)
				lanes[q] = 0;
			if (!any || op->start_ns + m->shift < t0)
				t0 = op->start_ns + m->shift;
			if (!any || op->end_ns + m->shift > t1)
				t1 = op->end_ns + m->shift;
			any = true;
		}
	}
	if (!any)
		return GS_OK;
	for (i = 0; i < ja->n_gpus; i++)
		taking += lanes[i] == 0;
	if (taking > H_LANES) {
		gs_status rc = h_pick_lanes(ja, g, n_draw, v, lanes);

		if (rc != GS_OK)
			return rc;
	}
	for (i = 0; i < ja->n_gpus; i++) {
		if (lanes[i] == 0)
			lanes[i] = (int)n_lanes++;
		else if (lanes[i] == H_OTHERS)
			others++;
	}
	if (others)
		other_lane = (int)n_lanes++;
	height = (int)n_lanes * H_PITCH;
	if (t1 <= t0)
		t1 = t0 + 1;
	gs_out_printf(o, "<div class=\"timeline\" id=\"job-timeline-%u\" data-span=\"%lld\">\n", g,
		      (long long)(t1 - t0));
	gs_out_printf(o,
		      "<div class=\"tl-ctl\"><button data-z=\"in\" title=\"zoom in\">+</button>"
		      "<button data-z=\"out\" title=\"zoom out\">&minus;</button>"
		      "<button data-z=\"reset\">reset</button>"
		      "<span>wheel: zoom, drag: pan; times from the first collective kernel "
		      "(%lld ns on the clock group's common clock)</span>"
		      "<span class=\"range\"></span></div>\n",
		      (long long)t0);
	gs_out_puts(o, "<div class=\"tl-body\">\n");
	gs_out_printf(o, "<svg class=\"labels\" width=\"%d\" height=\"%d\">\n", H_LABEL_W,
		      H_AXIS_H + height);
	for (i = 0; i < ja->n_gpus; i++) {
		char name[64];

		if (lanes[i] < 0)
			continue;
		snprintf(name, sizeof(name), "rank %u \xc2\xb7 GPU %u", ja->gpus[i].r->rank,
			 ja->gpus[i].d->device);
		gs_out_printf(o, "<text x=\"0\" y=\"%d\">", H_AXIS_H + lanes[i] * H_PITCH + 16);
		h_esc(o, name, 0);
		gs_out_puts(o, "</text>\n");
	}
	if (others)
		gs_out_printf(o, "<text x=\"0\" y=\"%d\" class=\"grp\">%zu other GPUs</text>\n",
			      H_AXIS_H + other_lane * H_PITCH + 16, others);
	gs_out_puts(o, "</svg>\n<div class=\"tl-plot\">\n");
	gs_out_printf(o, "<svg class=\"axis\" id=\"job-axis-%u\"></svg>\n", g);
	gs_out_printf(o,
		      "<svg class=\"lanes\" id=\"job-lanes-%u\" viewBox=\"0 0 %d %d\" "
		      "height=\"%d\" preserveAspectRatio=\"none\">\n",
		      g, H_XMAX, height, height);
	for (i = 1; i < n_lanes; i++)
		gs_out_printf(o, "<line class=\"sep\" x1=\"0\" x2=\"%d\" y1=\"%zu\" y2=\"%zu\"/>\n",
			      H_XMAX, i * H_PITCH, i * H_PITCH);
	/* Bands first, under the kernels. */
	for (i = 0, drawn = 0; i < ja->n_by_skew && drawn < n_draw; i++) {
		const struct ja_coll *x = &ja->coll[ja->by_skew[i]];
		const struct ja_comm *c = &ja->comms[x->comm];
		int64_t a, b;

		if (c->clock_group != g)
			continue;
		drawn++;
		if (x->skew <= 0)
			continue;
		a = h_x(x->first, t0, t1 - t0);
		b = h_x(x->last, t0, t1 - t0);
		gs_out_printf(o,
			      "<rect x=\"%lld\" y=\"0\" width=\"%lld\" height=\"%d\" "
			      "style=\"fill:#7048e8;fill-opacity:.18\"><title>",
			      (long long)a, (long long)(b > a ? b - a : 1), height);
		h_esc(o, c->label, 60);
		gs_out_printf(o, " #%u ", x->index);
		h_esc(o, x->name, 60);
		if (x->state == JA_WITHIN_ERROR)
			gs_out_printf(o, "&#10;skew %s, within the clocks' error</title></rect>\n",
				      HDUR(x->skew));
		else
			gs_out_printf(o, "&#10;skew %s: rank %u arrived last</title></rect>\n",
				      HDUR(x->skew), rank_of(ja, c->m[x->last_m].ri)->rank);
	}
	for (i = 0, drawn = 0; i < ja->n_by_skew && drawn < n_draw; i++) {
		const struct ja_coll *x = &ja->coll[ja->by_skew[i]];
		const struct ja_comm *c = &ja->comms[x->comm];
		int64_t o0 = 0, o1 = 0, oa = 0; /* the others': first start, last end, last start */
		size_t n_o = 0;

		if (c->clock_group != g)
			continue;
		drawn++;
		for (k = 0; k < x->present; k++) {
			const struct ja_member *m = coll_member(ja, x, k);
			const struct gs_js_kernel *op = coll_op(ja, x, k);
			int lane = lane_of(ja, lanes, m->ri, op->device);
			int64_t s0 = op->start_ns + m->shift, s1 = op->end_ns + m->shift;
			int64_t a = h_x(s0, t0, t1 - t0), b = h_x(s1, t0, t1 - t0);
			bool last = x->skew > 0 && x->state == JA_COMPARED &&
				    ja->slot[x->slot + k].m == x->last_m;

			if (lane == H_OTHERS) {
				if (!n_o || s0 < o0)
					o0 = s0;
				if (!n_o || s1 > o1)
					o1 = s1;
				if (!n_o || s0 > oa)
					oa = s0;
				n_o++;
				continue;
			}
			if (lane < 0)
				continue;
			gs_out_printf(o,
				      "<rect class=\"k\" x=\"%lld\" y=\"%d\" width=\"%lld\" "
				      "height=\"%d\"%s><title>",
				      (long long)a, lane * H_PITCH + H_BAR_Y,
				      (long long)(b > a ? b - a : 1), H_BAR_H,
				      last ? " style=\"fill:#7048e8\"" : "");
			/* Short: one a kernel (the band names the collective). */
			h_esc(o, x->name, 32);
			gs_out_printf(o, " #%u&#10;rank %u: +%s, waited %s, ran %s%s", x->index,
				      rank_of(ja, m->ri)->rank, HDUR(s0 - t0),
				      HDUR(x->state == JA_COMPARED ? x->last - s0 : 0),
				      HDUR(s1 - s0), last ? ", last" : "");
			gs_out_puts(o, "</title></rect>\n");
		}
		if (n_o) {
			int64_t a = h_x(o0, t0, t1 - t0), b = h_x(o1, t0, t1 - t0),
				m = h_x(oa, t0, t1 - t0);

			/* The others' kernels from the first start to the last
			 * end, their arrivals (first to last start) darker. */
			gs_out_printf(o,
				      "<rect class=\"k o2\" x=\"%lld\" y=\"%d\" width=\"%lld\" "
				      "height=\"%d\"><title>",
				      (long long)a, other_lane * H_PITCH + H_BAR_Y,
				      (long long)(b > a ? b - a : 1), H_BAR_H);
			h_esc(o, x->name, 32);
			gs_out_printf(o,
				      " #%u&#10;%zu other GPUs: arrived +%s to +%s, the last "
				      "ended +%s</title></rect>\n",
				      x->index, n_o, HDUR(o0 - t0), HDUR(oa - t0), HDUR(o1 - t0));
			gs_out_printf(o,
				      "<rect class=\"k\" x=\"%lld\" y=\"%d\" width=\"%lld\" "
				      "height=\"%d\"/>\n",
				      (long long)a, other_lane * H_PITCH + H_BAR_Y,
				      (long long)(m > a ? m - a : 1), H_BAR_H);
		}
	}
	gs_out_puts(o, "</svg>\n</div>\n</div>\n");
	gs_out_puts(o, "<div class=\"legend\"><span><span class=\"sw c-kernel\"></span>collective "
		       "kernel</span><span><span class=\"sw c-wait\"></span>the last rank's kernel "
		       "(the others waited for it)</span><span><span class=\"sw c-wait\" "
		       "style=\"opacity:.25\"></span>skew: first to last arrival</span></div>\n");
	if (others)
		gs_out_printf(o,
			      "<p class=\"more\">%zu GPUs take part: the lanes are the outliers' "
			      "and those last most often; the other %zu GPUs share the last lane "
			      "(their kernels from the first start to the last end, solid from "
			      "the first arrival to the last).</p>\n",
			      taking, others);
	if (in_group > n_draw)
		gs_out_printf(o,
			      "<p class=\"more\">The %zu collectives of largest skew of %zu are "
			      "drawn.</p>\n",
			      n_draw, in_group);
	gs_out_puts(o, "</div>\n");
	return GS_OK;
}

/* The collectives over time: a drawing per clock group. */
static void h_chart(struct gs_out *o, const struct gs_job_analysis *ja, const struct ja_view *v)
{
	int *lanes;

	gs_out_puts(o, "<h3>Collectives</h3>\n");
	if (!ja->n_comms) {
		gs_out_puts(o, "<p class=\"none\" id=\"job-collectives\">No communication kernels "
			       "(NCCL / RCCL) in the ranks' windows.</p>\n");
		return;
	}
	lanes = malloc((ja->n_gpus ? ja->n_gpus : 1) * sizeof(*lanes));
	if (!lanes) {
		o->failed = true;
		o->err = ENOMEM;
		return;
	}
	for (uint32_t g = 0; g < ja->n_clock_groups && !o->failed; g++)
		if (h_drawing(o, ja, g, lanes, v) != GS_OK) {
			o->failed = true;
			o->err = ENOMEM;
		}
	free(lanes);
	if (ja->n_clock_groups > 1)
		gs_out_puts(o,
			    "<p class=\"more\">Ranks on different clocks (clock groups) are never "
			    "compared: each group is matched and drawn on its own.</p>\n");
}

/* A rank's row of the table of its collectives. */
static void h_total_row(struct gs_out *o, const struct gs_job_analysis *ja,
			const struct ja_total *t)
{
	gs_out_printf(o,
		      "<tr><td>%u</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>"
		      "<td class=\"n\">%llu</td><td class=\"n\">%s</td>"
		      "<td class=\"n\">%s</td><td>%s</td></tr>\n",
		      rank_of(ja, t->ri)->rank, (unsigned long long)t->collectives, HDUR(t->waited),
		      (unsigned long long)t->last, PCT((int64_t)t->last, (int64_t)t->counted),
		      HDUR(t->cost), t->straggler ? "<b>straggler</b>" : "");
}

static void h_totals_head(struct gs_out *o, const char *id)
{
	gs_out_printf(o,
		      "<table class=\"tbl\" id=\"%s\"><thead><tr><th>rank</th>"
		      "<th class=\"n\">collectives</th><th class=\"n\">waited</th>"
		      "<th class=\"n\">times last</th><th class=\"n\">share</th>"
		      "<th class=\"n\">cost to others</th><th></th></tr></thead><tbody>\n",
		      id);
}

/* Per rank over its collectives: every rank when they fit, else the
 * outliers' ranks and every rank in a collapsed block. */
static void h_totals(struct gs_out *o, const struct gs_job_analysis *ja, const struct ja_view *v)
{
	size_t with = 0, i;

	for (i = 0; i < ja->n_totals; i++)
		with += ja->totals[i].collectives > 0;
	h_totals_head(o, "job-totals");
	for (i = 0; i < ja->n_totals; i++)
		if (ja->totals[i].collectives && (v->all || v->rank_shown[ja->totals[i].ri]))
			h_total_row(o, ja, &ja->totals[i]);
	gs_out_puts(o, "</tbody></table>\n");
	if (v->all)
		return;
	gs_out_printf(o,
		      "<details class=\"more\" id=\"job-totals-all\"><summary>Every rank: %zu "
		      "rows</summary>\n",
		      with);
	h_totals_head(o, "job-totals-full");
	for (i = 0; i < ja->n_totals; i++)
		if (ja->totals[i].collectives)
			h_total_row(o, ja, &ja->totals[i]);
	gs_out_puts(o, "</tbody></table>\n</details>\n");
}

/* The communicators, the collectives by skew, per rank, mismatches. */
static void h_collectives(struct gs_out *o, const struct gs_job_analysis *ja, size_t top,
			  const struct ja_view *v)
{
	size_t shown, i;

	bool fold = !v->all && ja->n_comms > v->limit;

	if (!ja->n_comms)
		return;
	gs_out_puts(o, "<h3>Communicators and the collectives of largest skew</h3>\n");
	/* Many GPUs and many communicators (by stream, one a rank can make):
	 * collapsed. */
	if (fold)
		gs_out_printf(o,
			      "<details class=\"more\" id=\"job-communicators-all\"><summary>%zu "
			      "communicators</summary>\n",
			      ja->n_comms);
	gs_out_puts(o,
		    "<table class=\"tbl\" id=\"job-communicators\"><thead><tr>"
		    "<th>communicator</th><th class=\"n\">ranks</th><th class=\"n\">compared</th>"
		    "<th class=\"n\">mean skew</th><th class=\"n\">max skew</th>"
		    "<th class=\"n\">waited</th><th class=\"n\">mean transfer</th>"
		    "<th class=\"n\">mean busbw</th></tr></thead><tbody>\n");
	for (i = 0; i < ja->n_comms; i++) {
		const struct ja_comm *c = &ja->comms[i];
		int64_t m = c->matched ? (int64_t)c->matched : 1;

		gs_out_puts(o, "<tr><td>");
		h_esc(o, c->label, 0);
		gs_out_printf(o, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>", c->n_m,
			      c->matched);
		if (!c->matched) {
			gs_out_puts(o, "<td colspan=\"5\" class=\"met\">not compared</td></tr>\n");
			continue;
		}
		gs_out_printf(o, "<td class=\"n\">%s</td>", HDUR(c->skew_sum / m));
		gs_out_printf(o, "<td class=\"n\">%s</td>", HDUR(c->skew_max));
		gs_out_printf(o, "<td class=\"n\">%s</td>", HDUR(c->wait_sum));
		gs_out_printf(o, "<td class=\"n\">%s</td>", HDUR(c->transfer_sum / m));
		gs_out_printf(o, "<td class=\"n\">%s</td></tr>\n",
			      c->busbw_n ? BW(c->busbw_sum / (double)c->busbw_n) : "-");
	}
	gs_out_puts(o, fold ? "</tbody></table>\n</details>\n" : "</tbody></table>\n");
	if (ja->n_by_skew) {
		shown = ja->n_by_skew < top ? ja->n_by_skew : top;
		gs_out_puts(o, "<table class=\"tbl\" id=\"job-skew\"><thead><tr><th class=\"n\">#"
			       "</th><th>communicator</th><th class=\"n\">index</th><th>name</th>"
			       "<th class=\"n\">skew</th><th class=\"n\">last rank</th>"
			       "<th class=\"n\">transfer</th><th class=\"n\">algbw</th>"
			       "<th class=\"n\">busbw</th></tr></thead><tbody>\n");
		for (i = 0; i < shown; i++) {
			const struct ja_coll *x = &ja->coll[ja->by_skew[i]];
			const struct ja_comm *c = &ja->comms[x->comm];

			gs_out_printf(o, "<tr><td class=\"n\">%zu</td><td>", i + 1);
			h_esc(o, c->label, 0);
			gs_out_printf(o, "</td><td class=\"n\">%u</td><td class=\"name\">",
				      x->index);
			h_esc(o, x->name, 90);
			gs_out_printf(o, "</td><td class=\"n\">%s</td>", HDUR(x->skew));
			if (x->state == JA_WITHIN_ERROR)
				gs_out_puts(o, "<td class=\"n\" title=\"within the clocks' "
					       "error\">~</td>");
			else if (x->skew > 0)
				gs_out_printf(o, "<td class=\"n\">%u</td>",
					      rank_of(ja, c->m[x->last_m].ri)->rank);
			else
				gs_out_puts(o, "<td class=\"n\">-</td>");
			gs_out_printf(o, "<td class=\"n\">%s</td><td class=\"n\">%s</td>",
				      HDUR(x->transfer), BW(x->algbw));
			gs_out_printf(o, "<td class=\"n\">%s</td></tr>\n", BW(x->busbw));
		}
		gs_out_puts(o, "</tbody></table>\n");
		if (shown < ja->n_by_skew)
			gs_out_printf(o,
				      "<p class=\"more\">%zu more (--top N for more rows, --format "
				      "json for the %d largest)</p>\n",
				      ja->n_by_skew - shown, JSON_COLLECTIVES);
		h_totals(o, ja, v);
	}
	if (ja->n_mm) {
		gs_out_puts(o, "<h3>Mismatches</h3>\n");
		if (ja->n_mm > top)
			gs_out_printf(o,
				      "<details class=\"more\" id=\"job-mismatches-all\"><summary>"
				      "%zu communicators do not line up</summary>\n",
				      ja->n_mm);
		gs_out_puts(o, "<ul class=\"notes\" id=\"job-mismatches\">\n");
		for (i = 0; i < ja->n_mm; i++) {
			gs_out_puts(o, "<li>");
			h_esc(o, ja->mm[i].text, 0);
			gs_out_puts(o, "</li>\n");
		}
		gs_out_puts(o, ja->n_mm > top ? "</ul>\n</details>\n" : "</ul>\n");
	}
}

#define H_STEP_ROWS 500 /* steps in the HTML table */

/* The steps matched across ranks: a bar from the fastest rank's step time
 * to the slowest's, the median marked, beside the numbers. */
static void h_steps(struct gs_out *o, const struct gs_job_analysis *ja)
{
	int64_t longest = 0;
	size_t shown = ja->n_steps < H_STEP_ROWS ? ja->n_steps : H_STEP_ROWS;

	if (!ja->n_steps)
		return;
	for (size_t i = 0; i < shown; i++)
		if (ja->steps[i].v[2] > longest)
			longest = ja->steps[i].v[2];
	gs_out_puts(o,
		    "<h3>Steps across ranks</h3>\n<p class=\"more\">Matched by number; each "
		    "rank's GPU window of the step; bold: analysed on every rank; the bar runs "
		    "from the fastest rank's step time to the slowest's, the median marked.</p>\n"
		    "<table class=\"tbl\" id=\"job-steps\"><thead><tr><th>step</th>"
		    "<th class=\"n\">ranks</th><th></th><th class=\"n\">min</th>"
		    "<th class=\"n\">median</th><th class=\"n\">max</th><th>rank</th>"
		    "<th class=\"n\">job span</th><th>last to end</th>"
		    "<th>slowest rank's gap</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < shown; i++) {
		const struct ja_step *x = &ja->steps[i];
		double k = longest > 0 ? 160.0 / (double)longest : 0.0;

		gs_out_printf(
			o,
			"<tr%s><td class=\"n\">%llu%s</td><td class=\"n\">%zu</td>"
			"<td><svg width=\"160\" height=\"10\"><rect x=\"%.1f\" width=\"%.1f\" "
			"height=\"10\" fill=\"%s\"/><rect x=\"%.1f\" width=\"2\" "
			"height=\"10\" fill=\"#222\"/></svg></td>",
			x->analysed ? " style=\"font-weight:bold\"" : "",
			(unsigned long long)x->number, x->partial ? " (partial)" : "", x->ranks,
			k * (double)x->v[0], k * (double)(x->v[2] - x->v[0]),
			x->slow ? "#e45756" : "#4c78a8", k * (double)x->v[1]);
		gs_out_printf(o, "<td class=\"n\">%s</td><td class=\"n\">%s</td>", HDUR(x->v[0]),
			      HDUR(x->v[1]));
		gs_out_printf(o, "<td class=\"n\">%s%s</td><td>%u</td>", HDUR(x->v[2]),
			      x->slow ? " !" : "", rank_of(ja, x->ri[2])->rank);
		if (x->span_known && x->ranks > 1)
			gs_out_printf(o, "<td class=\"n\">%s</td><td>rank %u, +%s</td>",
				      HDUR(x->span_ns), rank_of(ja, x->last_ri)->rank,
				      HDUR(x->last_ns));
		else if (x->span_known)
			gs_out_printf(o, "<td class=\"n\">%s</td><td>-</td>", HDUR(x->span_ns));
		else
			gs_out_puts(o, "<td class=\"n\">unknown</td><td>-</td>");
		if (x->cause < GS_GAP_CAUSE_COUNT)
			gs_out_printf(o, "<td>%s %s</td></tr>\n", gs_gap_cause_name(x->cause),
				      HDUR(x->cause_ns));
		else
			gs_out_puts(o, "<td>-</td></tr>\n");
	}
	gs_out_puts(o, "</tbody></table>\n");
	if (shown < ja->n_steps)
		gs_out_printf(o,
			      "<p class=\"more\">%zu of %zu steps shown (the JSON report has every "
			      "one).</p>\n",
			      shown, ja->n_steps);
}

void gs_job_analysis_write_html(struct gs_out *o, const struct gs_report *job,
				const struct gs_report_style *st)
{
	const struct gs_job_analysis *ja = job ? job->ja : NULL;
	struct gs_report_style s = gs_report_style_of(st);
	struct ja_view v;

	if (!ja)
		return;
	if (ja_view_make(ja, s.ranks, &v) != GS_OK) {
		o->failed = true;
		o->err = ENOMEM;
		return;
	}
	gs_out_printf(o, "<section class=\"job\" id=\"job\">\n<h2>Job: %zu ranks, %zu GPU%s</h2>\n",
		      ja->n_sums, ja->n_gpus, ja->n_gpus == 1 ? "" : "s");
	/* What stands out first: the findings and the collectives over time;
	 * then the ranks and the tables. */
	h_findings(o, ja);
	h_chart(o, ja, &v);
	h_ranks(o, ja, &v);
	h_steps(o, ja);
	h_collectives(o, ja, s.top, &v);
	gs_out_puts(o, "</section>\n");
	ja_view_free(&v);
}

/* ------------------------------------------------------------------------ */
/* Summaries as bytes                                                         */
/* ------------------------------------------------------------------------ */

/*
 * The rank's struct (pointers zeroed), its GPUs, each member's struct and
 * kernels, its notes, its strings: the in-memory layouts, for processes of
 * one build on one architecture (an MPI job's).
 */
struct js_buf {
	char *p;
	size_t len, cap;
};

static gs_status js_put(struct js_buf *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap : 1024;
		char *p;

		while (nc < b->len + n)
			nc *= 2;
		p = realloc(b->p, nc);
		if (!p)
			return gs_nomem();
		b->p = p;
		b->cap = nc;
	}
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
	return GS_OK;
}

gs_status gs_js_pack(const struct gs_js_rank *r, char **buf, size_t *len)
{
	struct js_buf b = {0};
	struct gs_js_rank head = *r;
	gs_status rc;

	head.gpus = NULL;
	head.m = NULL;
	head.notes = NULL;
	head.steps = NULL;
	head.pool = NULL;
	head.pool_cap = 0;
	rc = js_put(&b, &head, sizeof(head));
	if (rc == GS_OK)
		rc = js_put(&b, r->gpus, r->n_gpus * sizeof(*r->gpus));
	for (size_t i = 0; i < r->n_m && rc == GS_OK; i++) {
		struct gs_js_member m = r->m[i];

		m.k = NULL;
		rc = js_put(&b, &m, sizeof(m));
		if (rc == GS_OK)
			rc = js_put(&b, r->m[i].k, r->m[i].n * sizeof(*r->m[i].k));
	}
	if (rc == GS_OK)
		rc = js_put(&b, r->notes, r->n_notes * sizeof(*r->notes));
	if (rc == GS_OK)
		rc = js_put(&b, r->steps, r->n_steps * sizeof(*r->steps));
	if (rc == GS_OK)
		rc = js_put(&b, r->pool, r->pool_len);
	if (rc != GS_OK) {
		free(b.p);
		return rc;
	}
	*buf = b.p;
	*len = b.len;
	return GS_OK;
}

/* The next n items of `size` bytes from buf, copied; false past its end. */
static bool js_get(const char *buf, size_t len, size_t *at, void *dst, uint64_t n, size_t size)
{
	if (n > (len - *at) / (size ? size : 1))
		return false;
	if (n)
		memcpy(dst, buf + *at, (size_t)n * size);
	*at += (size_t)n * size;
	return true;
}

static void *js_alloc(uint64_t n, size_t size)
{
	return calloc(n ? (size_t)n : 1, size);
}

gs_status gs_js_unpack(const char *buf, size_t len, struct gs_js_rank **out)
{
	struct gs_js_rank *r = calloc(1, sizeof(*r));
	size_t at = 0;
	bool ok;

	*out = NULL;
	if (!r)
		return gs_nomem();
	ok = js_get(buf, len, &at, r, 1, sizeof(*r));
	if (ok) {
		uint64_t n_m = r->n_m;

		r->n_m = 0;
		r->gpus = js_alloc(r->n_gpus, sizeof(*r->gpus));
		r->m = js_alloc(n_m, sizeof(*r->m));
		r->notes = js_alloc(r->n_notes, sizeof(*r->notes));
		r->steps = js_alloc(r->n_steps, sizeof(*r->steps));
		r->pool = js_alloc(r->pool_len + 1, 1);
		r->pool_cap = r->pool_len + 1;
		if (!r->gpus || !r->m || !r->notes || !r->steps || !r->pool) {
			gs_js_free(r);
			return gs_nomem();
		}
		ok = js_get(buf, len, &at, r->gpus, r->n_gpus, sizeof(*r->gpus));
		for (uint64_t i = 0; ok && i < n_m; i++) {
			struct gs_js_member *m = &r->m[i];

			ok = js_get(buf, len, &at, m, 1, sizeof(*m));
			if (!ok)
				break;
			m->k = js_alloc(m->n, sizeof(*m->k));
			if (!m->k) {
				gs_js_free(r);
				return gs_nomem();
			}
			r->n_m++;
			ok = js_get(buf, len, &at, m->k, m->n, sizeof(*m->k));
		}
		if (ok)
			ok = js_get(buf, len, &at, r->notes, r->n_notes, sizeof(*r->notes));
		if (ok)
			ok = js_get(buf, len, &at, r->steps, r->n_steps, sizeof(*r->steps));
		if (ok)
			ok = js_get(buf, len, &at, r->pool, r->pool_len, 1);
		ok = ok && at == len && (!r->pool_len || r->pool[r->pool_len - 1] == '\0');
	}
	if (!ok) {
		gs_js_free(r);
		gs_error_append("job summary: %zu bytes that are not one", len);
		return GS_ERR_FORMAT;
	}
	*out = r;
	return GS_OK;
}
