/* SPDX-License-Identifier: MIT */
/*
 * The analyze report: runs every analysis over a finished trace
 * and keeps what the text and JSON writers print (report_text.c,
 * report_json.c), including the ranked findings with their advice.
 *
 * Complexity, for N ops, S streams, D reported devices and W waits: the
 * graph and the waits once (their own costs), then per device the
 * analyses (each O(N log N) or better), one pass over the device's ops for
 * the stream totals and the constraint counts, a sort of its kernels by
 * name (O(K log K)), and one pass over the waits with a binary search of
 * the device (O(W log D)). Nothing is quadratic.
 */
#include "analyzer_priv.h"
#include "job_sum.h"
#include "measures_priv.h"
#include "report_priv.h"

#include <gpuscope/sort.h>

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* a + b, held at INT64_MAX / INT64_MIN: sums of many op times from a trace
 * with absurd (but valid) times must not overflow (found by fuzz_kineto). */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* ------------------------------------------------------------------------ */
/* Small helpers shared with the writers (report_priv.h)                    */
/* ------------------------------------------------------------------------ */

bool gs_report_warning_restated(const struct gs_report *r, const struct gs_warning *w)
{
	/* The importer's "N cudaStreamWaitEvent calls but no cuda_sync events"
	 * is the caution about unlinked wait calls, which says what follows. */
	return r->g && r->g->unlinked_wait_calls && w->message &&
	       strstr(w->message, "cudaStreamWaitEvent calls but no cuda_sync events");
}

static uint64_t mag(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

const char *gs_report_window_text(const struct gs_trace *t, const struct gs_report_device *d,
				  char *buf, size_t size)
{
	int64_t first = 0, last = 0, a, b;
	uint64_t unit, m;
	char x[48], y[48], z[48];

	gs_trace_op_span(t, &first, &last);
	a = d->b.window_start - first;
	b = d->b.window_end - first;
	m = mag(a) > mag(b) ? mag(a) : mag(b);
	unit = gs_dur_unit(m > mag(d->b.window_ns) ? m : mag(d->b.window_ns));
	snprintf(buf, size, "%s%s .. %s%s into the trace: %s", a >= 0 ? "+" : "",
		 gs_dur_text_in(x, sizeof(x), a, unit, false), b >= 0 ? "+" : "",
		 gs_dur_text_in(y, sizeof(y), b, unit, false),
		 gs_dur_text_in(z, sizeof(z), d->b.window_ns, unit, false));
	return buf;
}

/* Bytes for people: "512 B", "64.0 KiB", "8.0 MiB". */
static const char *bytes_str(char *buf, size_t size, uint64_t b)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	double v = (double)b;
	size_t u = 0;

	if (b < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)b);
		return buf;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}

const char *gs_report_op_label(const struct gs_trace *t, uint32_t op, char *buf, size_t size)
{
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_op *o;
	char b[32];

	if (op >= n_ops)
		return "?";
	o = &ops[op];
	if (o->kind == GS_OP_MEMCPY) {
		uint8_t host = o->copy_kind == GS_COPY_HTOD ? o->src_mem :
			       o->copy_kind == GS_COPY_DTOH ? o->dst_mem :
							      GS_MEM_UNKNOWN;

		snprintf(buf, size, "%s %s%s%s", gs_copy_kind_name(o->copy_kind),
			 bytes_str(b, sizeof(b), o->bytes), host != GS_MEM_UNKNOWN ? " " : "",
			 host != GS_MEM_UNKNOWN ? gs_mem_kind_name(host) : "");
		return buf;
	}
	if (o->kind == GS_OP_MEMSET) {
		snprintf(buf, size, "memset %s", bytes_str(b, sizeof(b), o->bytes));
		return buf;
	}
	return gs_trace_string(t, o->name);
}

const char *gs_report_pct(char *buf, size_t size, int64_t part, int64_t whole)
{
	double p = whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;

	snprintf(buf, size, "%.1f%%", p);
	return buf;
}

const char *gs_report_eff_text(const struct gs_report_device *d, char *buf, size_t size)
{
	if (d->efficiency_kind == GS_REPORT_EFF_CYCLES || !isfinite(d->efficiency))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.2f", d->efficiency);
	return buf;
}

const char *gs_report_whatif_text(const struct gs_what_if *w, bool one_batch, char *buf,
				  size_t size)
{
	char a[32], b[32];
	int64_t svi = w->saving_vs_ideal_ns, host = w->saving_ns - (svi > 0 ? svi : 0);

	/* One batch is one stream (each stream starts a batch), whose ops the
	 * ideal runs back to back already: nothing is left to gain. */
	if (one_batch) {
		snprintf(buf, size, "1 batch: nothing to pipeline, no saving beyond the ideal");
		return buf;
	}
	if (svi > 0)
		snprintf(buf, size, "%s beyond the ideal", gs_dur_text(a, sizeof(a), svi));
	else if (svi < 0)
		snprintf(buf, size, "no saving beyond the ideal (%s longer than it)",
			 gs_dur_text(a, sizeof(a), -svi));
	else
		snprintf(buf, size, "0 ns beyond the ideal");
	if (w->saving_ns < 0) {
		size_t len = strlen(buf);

		snprintf(buf + len, size - len, "; slower than the actual run by %s",
			 gs_dur_text(a, sizeof(a), -w->saving_ns));
	} else if (host > 0) {
		size_t len = strlen(buf);

		if (svi > 0)
			snprintf(buf + len, size - len,
				 "; of its %s saving, %s is host/launch time the ideal already "
				 "removes",
				 gs_dur_text(a, sizeof(a), w->saving_ns),
				 gs_dur_text(b, sizeof(b), host));
		else
			snprintf(buf + len, size - len,
				 "; its %s saving is host/launch time the ideal already removes",
				 gs_dur_text(a, sizeof(a), w->saving_ns));
	}
	return buf;
}

uint64_t gs_report_op_id(const struct gs_trace *t, uint32_t op)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	if (op >= n)
		return op;
	return ops[op].correlation ? ops[op].correlation : op;
}

uint32_t gs_report_op_device(const struct gs_trace *t, uint32_t op)
{
	size_t n, ns;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	const struct gs_stream *st = gs_trace_streams(t, &ns);

	if (op >= n || ops[op].stream >= ns)
		return UINT32_MAX;
	return st[ops[op].stream].device;
}

uint64_t gs_report_op_stream(const struct gs_trace *t, uint32_t op)
{
	size_t n, ns;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	const struct gs_stream *st = gs_trace_streams(t, &ns);

	if (op >= n || ops[op].stream >= ns)
		return 0;
	return st[ops[op].stream].stream_id;
}

/* ------------------------------------------------------------------------ */
/* A growable string for the findings                                        */
/* ------------------------------------------------------------------------ */

struct sb {
	char *p;
	size_t len;
	size_t cap;
	bool oom;
};

static void sb_printf(struct sb *s, const char *fmt, ...) GS_PRINTF(2, 3);

static void sb_printf(struct sb *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->oom)
		return;
	for (;;) {
		size_t room = s->cap - s->len;

		va_start(ap, fmt);
		n = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			s->oom = true;
			return;
		}
		if (s->p && (size_t)n < room) {
			s->len += (size_t)n;
			return;
		}
		{
			size_t cap = s->cap ? s->cap : 128;
			char *p;

			while (cap < s->len + (size_t)n + 1)
				cap *= 2;
			p = realloc(s->p, cap);
			if (!p) {
				s->oom = true;
				return;
			}
			s->p = p;
			s->cap = cap;
		}
	}
}

/* A duration in a finding: a marker ("\x01<ns>\x02") that sb_take writes
 * out, every duration of the string in one unit (the largest's), so that
 * a finding never says "48.745 ms instead of 16.025 s". */
static void sb_dur(struct sb *s, int64_t ns)
{
	sb_printf(s, "\x01%lld\x02", (long long)ns);
}

/* The markers of sb_dur written out in one unit. */
static void sb_units(struct sb *s)
{
	struct sb out = {0};
	uint64_t m = 0, unit;
	const char *p, *q;
	char buf[48];

	if (s->oom || !s->p || !strchr(s->p, '\x01'))
		return;
	for (p = strchr(s->p, '\x01'); p; p = strchr(p + 1, '\x01')) {
		long long v = strtoll(p + 1, NULL, 10);
		uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

		m = a > m ? a : m;
	}
	unit = gs_dur_unit(m);
	for (p = s->p; (q = strchr(p, '\x01')) != NULL && strchr(q, '\x02');
	     p = strchr(q, '\x02') + 1)
		sb_printf(&out, "%.*s%s", (int)(q - p), p,
			  gs_dur_text_in(buf, sizeof(buf), strtoll(q + 1, NULL, 10), unit, false));
	sb_printf(&out, "%s", p);
	free(s->p);
	*s = out;
	if (!s->p)
		s->oom = true;
}

/* A name cut to 60 code points with an ellipsis (findings stay short). */
static void sb_name(struct sb *s, const char *name)
{
	const unsigned char *p = (const unsigned char *)(name ? name : "");
	size_t cps = 0, cut = 0, i;

	for (i = 0; p[i]; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			if (cps == 59)
				cut = i;
			cps++;
		}
	}
	if (cps <= 60)
		sb_printf(s, "%s", (const char *)p);
	else
		sb_printf(s, "%.*s\xe2\x80\xa6", (int)cut, (const char *)p);
}

static void sb_pct(struct sb *s, int64_t part, int64_t whole)
{
	char buf[32];

	sb_printf(s, "%s", gs_report_pct(buf, sizeof(buf), part, whole));
}

/* Take the string (NULL when out of memory). */
static char *sb_take(struct sb *s)
{
	char *p;

	sb_units(s);
	if (s->oom || !s->p) {
		free(s->p);
		if (!s->oom)
			return strdup("");
		return NULL;
	}
	p = s->p;
	s->p = NULL;
	s->len = s->cap = 0;
	return p;
}

/* ------------------------------------------------------------------------ */
/* Per-device tables                                                          */
/* ------------------------------------------------------------------------ */

struct win {
	int64_t start;
	int64_t end;
};

/* An op counts for a window when it overlaps it (an instant op: when it
 * lies inside it, ends included). */
static bool in_window(const struct gs_op *op, struct win w)
{
	if (op->end_ns <= op->start_ns)
		return op->start_ns >= w.start && op->start_ns <= w.end;
	return op->start_ns < w.end && op->end_ns > w.start;
}

static int64_t clipped(const struct gs_op *op, struct win w)
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
			size_t nc = *cap ? *cap * 2 : 64;
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

/* Streams of the device, their totals, the per-name kernel totals and the
 * op counts. O(N_d + S_d + K log K) for K distinct kernel names: the
 * totals are kept per name id (in the report's slot table, cleared after),
 * only the names are sorted. */
static gs_status dev_streams(const struct gs_report *r, struct gs_report_device *d, struct win w)
{
	const struct gs_trace *t = r->t;
	size_t n_streams, n_ops, n_dev, s, cap = 0, n_names = gs_trace_string_count(t);
	const struct gs_stream *streams = gs_trace_streams(t, &n_streams);
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const uint32_t *dev = gs_trace_device_streams(t, d->device, &n_dev);
	uint32_t *slot = r->name_slot;

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

			if (!in_window(op, w))
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
				rs->kernel_ns = sat_add(rs->kernel_ns, ns);
				k->name = op->name;
				k->count++;
				k->ns += ns;
				if (ns > k->max_ns)
					k->max_ns = ns;
				if (i < k->first_op)
					k->first_op = (uint32_t)i;
			} else {
				rs->copies++;
				rs->copy_ns = sat_add(rs->copy_ns, ns);
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
	clear_slots(d, slot, n_names);

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
static bool is_comm_name(const struct gs_trace *t, uint8_t *memo, size_t n_names, uint32_t name)
{
	if (name >= n_names)
		return gs_report_comm_name(gs_trace_string(t, name));
	if (!memo[name])
		memo[name] = gs_report_comm_name(gs_trace_string(t, name)) ? 2 : 1;
	return memo[name] == 2;
}

/* Host side memory of a copy (GS_MEM_DEVICE when it has none). */
static uint8_t host_mem(const struct gs_op *op)
{
	switch (op->copy_kind) {
	case GS_COPY_HTOD:
		return op->src_mem;
	case GS_COPY_DTOH:
		return op->dst_mem;
	case GS_COPY_HTOH:
		return op->src_mem == GS_MEM_PAGEABLE ? op->src_mem : op->dst_mem;
	default:
		return GS_MEM_DEVICE;
	}
}

/* Communication kernels against the others, and pageable copies; O(K log K). */
static gs_status dev_comm(const struct gs_report *r, struct gs_report_device *d, struct win w)
{
	const struct gs_trace *t = r->t;
	size_t n_ops, st, nc = 0, nk = 0, mc, mk, n_names = gs_trace_string_count(t);
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	struct ival *comm, *comp;
	uint64_t kernels = d->op_kinds[GS_OP_KERNEL];
	uint8_t *memo = r->name_memo; /* the names of d->kernels are put back */

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

			if (!in_window(op, w))
				continue;
			if (op->kind == GS_OP_MEMCPY && host_mem(op) == GS_MEM_PAGEABLE) {
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
			if (is_comm_name(t, memo, n_names, op->name)) {
				comm[nc++] = v;
				d->comm_kernels++;
				d->comm_ns += v.b - v.a;
			} else {
				comp[nk++] = v;
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
static gs_status call_tree_build(struct gs_report *r)
{
	size_t n_api, n = 1;
	const struct gs_api_call *api = gs_trace_api_calls(r->t, &n_api);
	struct call_start *cs = malloc((n_api ? n_api : 1) * sizeof(*cs));

	while (n < n_api)
		n *= 2;
	r->call_order = malloc((n_api ? n_api : 1) * sizeof(*r->call_order));
	r->call_tree = malloc(2 * n * sizeof(*r->call_tree));
	r->call_sum = calloc(n_api ? n_api : 1, sizeof(*r->call_sum));
	if (!cs || !r->call_order || !r->call_tree || !r->call_sum) {
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
	if (*nr == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct gs_host_call_time *nrw = realloc(*rows, nc * sizeof(**rows));

		if (!nrw)
			return gs_nomem();
		*rows = nrw;
		*cap = nc;
	}
	(*rows)[(*nr)++] = row;
	return GS_OK;
}

/* Each API call's time over the sync segments, call by call (a binary
 * search for its first segment, then the ones inside it): O(A log S). */
static gs_status sync_rows_by_call(const struct gs_trace *t, const struct gs_breakdown *b,
				   struct gs_host_call_time **rows, size_t *nr, size_t *cap)
{
	size_t n_api, ns = 0;
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	struct ival *seg = malloc((b->n_segments ? b->n_segments : 1) * sizeof(*seg));
	gs_status st = GS_OK;

	if (!seg)
		return gs_nomem();
	for (size_t i = 0; i < b->n_segments; i++)
		if (b->segments[i].category == GS_CAT_SYNC)
			seg[ns++] = (struct ival){b->segments[i].start_ns, b->segments[i].end_ns};
	for (size_t i = 0; i < n_api && !st; i++) {
		size_t lo = 0, hi = ns;
		int64_t sum = 0;

		if (api[i].end_ns <= api[i].start_ns)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (seg[mid].b <= api[i].start_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
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

/*
 * The same, segment by segment: the calls over a segment are those that
 * start before it ends (a prefix by start) and end after it starts (a
 * descent of the report's tree of latest ends), so that each of many
 * devices costs its segments and the calls over them, not every call:
 * O((S + overlaps) log A) after the tree, O(A log A) once a report.
 */
static gs_status sync_rows_by_segment(struct gs_report *r, const struct gs_breakdown *b,
				      struct gs_host_call_time **rows, size_t *nr, size_t *cap)
{
	size_t n_api, n_hit = 0, cap_hit = 0;
	const struct gs_api_call *api = gs_trace_api_calls(r->t, &n_api);
	uint32_t *hit = NULL;
	gs_status st = GS_OK;

	if (!r->call_tree) {
		st = call_tree_build(r);
		if (st)
			return st;
	}
	for (size_t k = 0; k < b->n_segments && !st; k++) {
		const struct gs_segment *sg = &b->segments[k];
		size_t lo = 0, hi = n_api, from = n_hit;

		if (sg->category != GS_CAT_SYNC)
			continue;
		while (lo < hi) { /* the calls starting before the segment ends */
			size_t mid = lo + (hi - lo) / 2;

			if (api[r->call_order[mid]].start_ns < sg->end_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		st = calls_ending_after(r, 1, 0, r->call_leaves, lo, sg->start_ns, &hit, &n_hit,
					&cap_hit);
		for (size_t h = from; h < n_hit && !st; h++) {
			const struct gs_api_call *c = &api[hit[h]];
			int64_t a = sg->start_ns > c->start_ns ? sg->start_ns : c->start_ns;
			int64_t e = sg->end_ns < c->end_ns ? sg->end_ns : c->end_ns;

			if (c->end_ns > c->start_ns && e > a)
				r->call_sum[hit[h]] += e - a;
		}
	}
	/* A call over several segments is a hit of each: one row. */
	for (size_t h = 0; h < n_hit && !st; h++) {
		int64_t sum = r->call_sum[hit[h]];

		r->call_sum[hit[h]] = 0;
		if (sum > 0)
			st = push_row(rows, nr, cap,
				      (struct gs_host_call_time){.name = api[hit[h]].name,
								 .ns = sum,
								 .count = 1});
	}
	for (size_t h = 0; h < n_hit; h++) /* back to 0 for the next device */
		r->call_sum[hit[h]] = 0;
	free(hit);
	return st;
}

/*
 * What the host was inside during sync time, summed by call name. With a
 * few devices each looks at every call; with many, at the calls over its
 * sync segments only (the same rows: they are summed by name after).
 */
static gs_status dev_sync_calls(struct gs_report *r, struct gs_report_device *d)
{
	const struct gs_breakdown *b = &d->b;
	size_t n_api, i, nr = 0, cap = 0, g;
	struct gs_host_call_time *rows = NULL;
	gs_status st;

	gs_trace_api_calls(r->t, &n_api);
	if (b->total_ns[GS_CAT_SYNC] <= 0 || !n_api)
		return GS_OK;
	st = r->n_dev >= GS_SHARE_MIN_DEVICES ? sync_rows_by_segment(r, b, &rows, &nr, &cap) :
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

static int cmp_missed(const void *pa, const void *pb)
{
	const struct gs_missed_overlap *a = pa, *b = pb;

	if (a->exposed_ns != b->exposed_ns)
		return a->exposed_ns > b->exposed_ns ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

static int cmp_cand(const void *pa, const void *pb)
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

/* The schedule's results the report keeps; the per-op arrays are
 * summarised over the device's ops in the window, then dropped. */
static gs_status dev_schedule(const struct gs_trace *t, const struct gs_schedule *s,
			      struct gs_report_device *d, struct win w, bool window_set)
{
	size_t n_ops, i, st;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);

	d->actual_ns = s->actual_ns;
	d->dependency_bound_ns = s->dependency_bound_ns;
	d->ideal_ns = s->ideal_ns;
	d->broken_cycles = s->broken_cycles;
	/*
	 * Efficiency (ideal / actual) as reported, never above 1.
	 * The ideal schedule bounds the makespan from below only when the
	 * recorded run honoured every edge the schedule keeps.
	 * - Cycles broken (waits that cannot all have happened: a corrupt,
	 *   hand-edited or mis-merged trace): the ideal depends on which edges
	 *   were dropped to break them, so the ratio means nothing, whether
	 *   above 1 or not. None is given (NaN: "n/a", JSON null) rather than
	 *   a clamped 1 that would read "nothing to gain"; a finding says why.
	 * - Else an ideal longer than the actual run means the run started
	 *   some op before an edge allowed (device clocks that disagree, an
	 *   event joined to the wrong record): the model finds nothing to
	 *   gain, so 1, flagged as bounded (JSON efficiency_bounded).
	 */
	if (s->broken_cycles) {
		d->efficiency_kind = GS_REPORT_EFF_CYCLES;
		d->efficiency = NAN;
	} else if (s->actual_ns > 0 && s->ideal_ns > s->actual_ns) {
		d->efficiency_kind = GS_REPORT_EFF_BOUNDED;
		d->efficiency = 1.0;
	} else {
		d->efficiency_kind = GS_REPORT_EFF_EXACT;
		d->efficiency = s->efficiency > 1.0 ? 1.0 : s->efficiency;
	}
	d->pipelined = s->pipelined;
	memcpy(d->copy_engines, s->copy_engines, sizeof(d->copy_engines));
	if (s->n_critical) {
		d->critical = malloc(s->n_critical * sizeof(*d->critical));
		if (!d->critical)
			return gs_nomem();
		memcpy(d->critical, s->critical_path, s->n_critical * sizeof(*d->critical));
		d->n_critical = s->n_critical;
		for (i = 0; i < d->n_critical; i++)
			d->critical_ns = sat_add(d->critical_ns, d->critical[i].ns);
	}
	if (!s->slot_bound_by)
		return GS_OK;
	for (st = 0; st < d->n_streams; st++) {
		size_t first, count;

		gs_trace_stream_ops(t, d->streams[st].index, &first, &count);
		for (i = first; i < first + count && i < n_ops; i++) {
			unsigned c = gs_schedule_bound_by(s, (uint32_t)i);

			/* The schedule's op set: every op, or those starting in the window. */
			if (window_set && (ops[i].start_ns < w.start || ops[i].start_ns >= w.end))
				continue;
			if (c >= GS_BOUND_COUNT)
				continue;
			d->bound_ops[c]++;
			if (gs_schedule_delay_ns(s, (uint32_t)i) > 0)
				d->bound_delay_ns[c] = sat_add(
					d->bound_delay_ns[c], gs_schedule_delay_ns(s, (uint32_t)i));
		}
	}
	return GS_OK;
}

static size_t find_dev(const struct gs_report *r, uint32_t device)
{
	size_t lo = 0, hi = r->n_dev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->dev[mid].device < device)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n_dev && r->dev[lo].device == device ? lo : SIZE_MAX;
}

/* Hand each wait to the device of its consumer (when that device is
 * reported and the consumer lies in its window). */
static gs_status assign_waits(struct gs_report *r)
{
	size_t n_ops, i, *dev_of = NULL;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);

	if (!r->n_waits)
		return GS_OK;
	dev_of = malloc(r->n_waits * sizeof(*dev_of));
	r->reported_waits = malloc(r->n_waits * sizeof(*r->reported_waits));
	if (!dev_of || !r->reported_waits) {
		free(dev_of);
		return gs_nomem();
	}
	for (i = 0; i < r->n_waits; i++) {
		const struct gs_wait *w = &r->waits[i];
		size_t k;

		dev_of[i] = SIZE_MAX;
		if (w->consumer >= n_ops)
			continue;
		k = find_dev(r, gs_report_op_device(r->t, w->consumer));
		if (k == SIZE_MAX)
			continue;
		if (!in_window(&ops[w->consumer],
			       (struct win){r->dev[k].b.window_start, r->dev[k].b.window_end}))
			continue;
		dev_of[i] = k;
		r->dev[k].n_waits++;
		r->reported_waits[r->n_reported_waits++] = i;
	}
	for (i = 0; i < r->n_dev; i++) {
		if (!r->dev[i].n_waits)
			continue;
		r->dev[i].waits = malloc(r->dev[i].n_waits * sizeof(size_t));
		if (!r->dev[i].waits) {
			free(dev_of);
			return gs_nomem();
		}
		r->dev[i].n_waits = 0;
	}
	for (i = 0; i < r->n_waits; i++) {
		struct gs_report_device *d;

		if (dev_of[i] == SIZE_MAX)
			continue;
		d = &r->dev[dev_of[i]];
		d->waits[d->n_waits++] = i;
		d->wait_ns = sat_add(d->wait_ns, r->waits[i].wait_ns);
		if (r->waits[i].kind < GS_EDGE_KIND_COUNT)
			d->wait_kind_count[r->waits[i].kind]++;
	}
	free(dev_of);
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* Findings                                                                  */
/* ------------------------------------------------------------------------ */

#define MAX_FINDINGS 12

struct finding_list {
	struct gs_report_finding f[MAX_FINDINGS];
	size_t n;
	bool oom;
};

static void add_finding(struct finding_list *l, const char *kind, int64_t ns, struct sb *text,
			struct sb *advice)
{
	struct gs_report_finding *f;

	if (l->n == MAX_FINDINGS) {
		free(text->p);
		free(advice->p);
		return;
	}
	f = &l->f[l->n];
	f->kind = kind;
	f->ns = ns;
	f->text = sb_take(text);
	f->advice = sb_take(advice);
	if (!f->text || !f->advice) {
		free(f->text);
		free(f->advice);
		l->oom = true;
		return;
	}
	l->n++;
}

/* Worth a finding: at least 0.5% of the window (and some time at all). */
static bool significant(int64_t ns, int64_t window)
{
	/* ns * 200 >= window, without overflow on absurd spans. */
	return ns > 0 && ns >= window / 200 + (window % 200 > 0);
}

static bool name_has(const char *name, const char *part)
{
	return strstr(name, part) != NULL;
}

/* "N%" of the window and the time: "41.0% (12.300 ms)". */
static void sb_share(struct sb *s, int64_t ns, int64_t window)
{
	sb_pct(s, ns, window);
	sb_printf(s, " (");
	sb_dur(s, ns);
	sb_printf(s, ")");
}

/* Cross-stream dependencies the trace could not link (graph caveats). */
static uint64_t unlinked(const struct gs_report *r)
{
	return r->g ? r->g->unlinked_waits + r->g->unlinked_wait_calls : 0;
}

/* What to do about time the host spent inside `call` while the device
 * waited. */
static void advise_call(struct sb *adv, const char *call, bool pageable)
{
	if (name_has(call, "Launch"))
		sb_printf(adv,
			  "the launch calls themselves (%s) are slower than the kernels they "
			  "launch: launch fewer, larger kernels (fuse them) or replay the "
			  "sequence from a CUDA Graph",
			  call);
	else if ((name_has(call, "Memcpy") || name_has(call, "Memset")) &&
		 (pageable || !gs_api_name_is_async(call, strlen(call))))
		sb_printf(adv,
			  "%s blocks the host until the device reaches the copy (%s): copy "
			  "to/from pinned buffers (cudaHostAlloc; pin_memory=True, "
			  "non_blocking=True) and read the result later instead of "
			  ".item()/.cpu() every iteration",
			  call, pageable ? "pageable host memory" : "a synchronous copy");
	else if (name_has(call, "Synchronize") || name_has(call, "Query"))
		sb_printf(adv,
			  "remove the per-iteration sync in %s (.item(), .cpu(), printing a "
			  "loss) or move it off the critical path: queue the next work first",
			  call);
	else if (name_has(call, "Malloc") || name_has(call, "Free") ||
		 name_has(call, "HostAlloc") || name_has(call, "HostRegister") ||
		 name_has(call, "HostUnregister"))
		sb_printf(adv,
			  "allocate once and reuse the buffers (a caching allocator) instead "
			  "of calling %s in the loop",
			  call);
	else
		sb_printf(adv,
			  "the host was inside %s: move it out of the loop or onto another "
			  "thread",
			  call);
}

/* The class of host work that got most of the host-bound time. */
static unsigned host_dominant(const struct gs_host_ranges *h)
{
	unsigned best = 0;

	for (unsigned c = 1; c < GS_HOST_CLASS_COUNT; c++)
		if (h->class_ns[c] > h->class_ns[best])
			best = c;
	return best;
}

/* The host ranges explain the host-bound time: at least half of it lies
 * in ranges of the launching thread. */
static bool host_ranges_explain(const struct gs_breakdown *b)
{
	const struct gs_host_ranges *h = &b->host_ranges;

	return h->n_ranges && (b->host_bound_ns - h->outside_ns) * 2 >= b->host_bound_ns;
}

/* ": 420.1 ms (84%) in zoom (python) inside __next__; input_pipeline 96%,
 * outside any host range 1%" */
static void sb_host_ranges(struct sb *s, const struct gs_trace *t, const struct gs_breakdown *b)
{
	const struct gs_host_ranges *h = &b->host_ranges;
	const struct gs_host_range_time *top = &h->ranges[0];
	unsigned dom = host_dominant(h);

	sb_printf(s, ": ");
	sb_dur(s, top->ns);
	sb_printf(s, " (");
	sb_pct(s, top->ns, b->host_bound_ns);
	sb_printf(s, ") in ");
	sb_name(s, gs_trace_string(t, top->name));
	sb_printf(s, " (%s)", gs_range_kind_name(top->kind));
	if (top->context != GS_NO_STRING && top->context != top->name) {
		sb_printf(s, " inside ");
		sb_name(s, gs_trace_string(t, top->context));
	}
	sb_printf(s, "; %s ", gs_host_class_name(dom));
	sb_pct(s, h->class_ns[dom], b->host_bound_ns);
	for (unsigned c = 0; c < GS_HOST_CLASS_COUNT; c++) /* the others of 10% or more */
		if (c != dom && h->class_ns[c] > 0 && h->class_ns[c] * 10 >= b->host_bound_ns) {
			sb_printf(s, ", %s ", gs_host_class_name(c));
			sb_pct(s, h->class_ns[c], b->host_bound_ns);
		}
	if (h->outside_ns > 0) {
		sb_printf(s, ", outside any host range ");
		sb_pct(s, h->outside_ns, b->host_bound_ns);
	}
}

/* Advice from what dominated the host ranges during host-bound idle. */
static void advise_host_ranges(struct sb *adv, const struct gs_trace *t,
			       const struct gs_breakdown *b)
{
	const struct gs_host_ranges *h = &b->host_ranges;
	unsigned dom = host_dominant(h);
	const struct gs_host_range_time *top = &h->ranges[0];

	for (size_t i = 0; i < h->n_ranges; i++) /* the top range of that class */
		if (h->ranges[i].cls == dom) {
			top = &h->ranges[i];
			break;
		}
	switch (dom) {
	case GS_HOST_INPUT:
		sb_printf(adv, "the GPU waited for the input pipeline (");
		sb_name(adv, gs_trace_string(t, top->name));
		if (top->context != GS_NO_STRING && top->context != top->name) {
			sb_printf(adv, " inside ");
			sb_name(adv, gs_trace_string(t, top->context));
		}
		sb_printf(adv, "): prepare batches ahead of the GPU: more data-loader workers "
			       "(num_workers), pin_memory=True with non_blocking copies, prefetch "
			       "(prefetch_factor), or move the preprocessing onto the GPU or "
			       "offline");
		break;
	case GS_HOST_SYNC:
		sb_printf(adv, "a synchronizing call (");
		sb_name(adv, gs_trace_string(t, top->name));
		sb_printf(adv, ") held the host: remove it or defer it (read .item()/.cpu() "
			       "results later, not every step) and queue the next work first");
		break;
	case GS_HOST_OPERATOR:
		sb_printf(adv,
			  "the host spent %llu gaps in framework operators and Python between "
			  "kernels (mostly ",
			  (unsigned long long)h->intervals);
		sb_name(adv, gs_trace_string(t, top->name));
		sb_printf(adv, "): capture the step in a CUDA Graph or use torch.compile to cut "
			       "the per-op overhead, or do more per launch (larger batches)");
		if (h->short_ns * 2 < b->host_bound_ns) {
			sb_printf(adv, "; most of it is in gaps over ");
			sb_dur(adv, GS_HOST_SHORT_GAP_NS);
			sb_printf(adv,
				  ": check first that it is dispatch overhead, not host "
				  "computation (a CPU fallback, allocations, data conversion)");
		}
		break;
	case GS_HOST_WAIT:
		sb_printf(adv, "the launching thread was waiting (");
		sb_name(adv, gs_trace_string(t, top->name));
		sb_printf(adv, ") for work this trace does not show: record the thread or "
			       "process it waited for (data-loader workers) to see what it did");
		break;
	default:
		sb_printf(adv, "the host was inside ");
		sb_name(adv, gs_trace_string(t, top->name));
		sb_printf(adv,
			  " (%s) with no finer host range recorded there: add ranges inside it "
			  "(record_function, NVTX) or record with with_stack=True to see what "
			  "the host did between launches",
			  gs_range_kind_name(top->kind));
		break;
	}
}

static void finding_idle(const struct gs_report *r, const struct gs_report_device *d,
			 struct finding_list *l)
{
	const struct gs_trace *t = r->t;
	const struct gs_breakdown *b = &d->b;
	int64_t idle = b->total_ns[GS_CAT_IDLE];
	struct sb text = {0}, adv = {0};
	const char *sep = "";
	const char *call = NULL;
	int64_t call_ns = 0, calls_ns = 0;

	if (!significant(idle, b->window_ns))
		return;
	if (b->n_top_host_calls) {
		call = gs_trace_string(t, b->top_host_calls[0].name);
		call_ns = b->top_host_calls[0].ns;
	}
	for (size_t i = 0; i < b->n_top_host_calls; i++)
		calls_ns += b->top_host_calls[i].ns;
	sb_printf(&text, "idle ");
	sb_share(&text, idle, b->window_ns);
	sb_printf(&text, ": ");
	if (b->host_bound_ns > 0) {
		sb_dur(&text, b->host_bound_ns);
		sb_printf(&text, " host-bound");
		if (call && call_ns > 0) {
			sb_printf(&text, " (%s", call_ns * 2 >= b->host_bound_ns ? "mostly " : "");
			sb_dur(&text, call_ns);
			sb_printf(&text, " inside %s)", call);
		}
		if (b->host_ranges.n_ranges)
			sb_host_ranges(&text, t, b);
		sep = b->host_ranges.n_ranges ? "; " : ", ";
	}
	if (b->launch_latency_ns > 0) {
		sb_printf(&text, "%s", sep);
		sb_dur(&text, b->launch_latency_ns);
		sb_printf(&text, " launch latency");
		sep = ", ";
	}
	if (b->unattributed_ns > 0) {
		sb_printf(&text, "%s", sep);
		sb_dur(&text, b->unattributed_ns);
		sb_printf(&text, " unattributed (no launch call recorded)");
	}

	if (b->host_bound_ns >= b->launch_latency_ns && b->host_bound_ns >= b->unattributed_ns) {
		if (call && call_ns * 3 >= b->host_bound_ns)
			advise_call(&adv, call, false);
		else if (host_ranges_explain(b))
			advise_host_ranges(&adv, t, b);
		else if (calls_ns * 10 < b->host_bound_ns)
			sb_printf(
				&adv,
				"the trace does not show what the host was doing in these gaps "
				"(evidence: unknown; %s): record host ranges (PyTorch profiler "
				"with_stack=True and record_function, or NVTX ranges) to see it "
				"before changing the code",
				b->host_ranges.recorded ?
					"the launching thread's host ranges cover less than half" :
					"no host ranges recorded, the CUDA calls explain little");
		else
			sb_printf(&adv,
				  "the CPU did not issue work fast enough (host code between "
				  "launches): overlap host work with GPU work, do more per "
				  "launch (fuse kernels, larger batches) or capture the launches "
				  "in a CUDA Graph");
	} else if (b->launch_latency_ns >= b->unattributed_ns) {
		if (unlinked(r) || d->comm_kernels)
			sb_printf(&adv,
				  "the ops were launched early but started late: they waited on "
				  "something this trace does not link (%s%s%s): %s",
				  unlinked(r) ? "cross-stream events" : "",
				  unlinked(r) && d->comm_kernels ? ", " : "",
				  d->comm_kernels ? "other ranks through NCCL" : "",
				  unlinked(r) ?
					  "record cuda_sync events (PyTorch profiler: "
					  "_ExperimentalConfig(enable_cuda_sync_events=True)) "
					  "to see the waits, and compare the ranks' traces" :
					  "compare the ranks' traces: the slowest rank sets the "
					  "pace");
		else
			sb_printf(&adv,
				  "the ops started late after their launch call began (launch "
				  "overhead, or a full launch queue): launch fewer, larger "
				  "kernels (fuse them) or replay them from a CUDA Graph");
	} else {
		sb_printf(&adv,
			  "no launch call is recorded for the ops that ended these gaps: "
			  "record the CUDA runtime API too (the PyTorch profiler does by default) "
			  "to attribute them");
	}
	add_finding(l, "idle", idle, &text, &adv);
}

static void finding_sync(const struct gs_report *r, const struct gs_report_device *d,
			 struct finding_list *l)
{
	int64_t sync = d->b.total_ns[GS_CAT_SYNC];
	struct sb text = {0}, adv = {0};
	const char *call = NULL;

	if (!significant(sync, d->b.window_ns))
		return;
	sb_printf(&text, "sync ");
	sb_share(&text, sync, d->b.window_ns);
	sb_printf(&text, ": the device ran nothing while the host was blocked waiting on it");
	if (d->n_sync_calls) {
		call = gs_trace_string(r->t, d->sync_calls[0].name);
		sb_printf(&text, ", %sinside %s (",
			  d->sync_calls[0].ns * 2 >= sync ? "mostly " : "", call);
		sb_dur(&text, d->sync_calls[0].ns);
		sb_printf(&text, " in %llu call%s)", (unsigned long long)d->sync_calls[0].count,
			  d->sync_calls[0].count == 1 ? "" : "s");
	}
	if (d->pageable_copies && call && (name_has(call, "Memcpy") || name_has(call, "Memset"))) {
		sb_printf(&text, "; %llu copies use pageable host memory",
			  (unsigned long long)d->pageable_copies);
		if (d->pageable_by_dir[GS_COPY_DTOH])
			sb_printf(&text, " (%llu DtoH)",
				  (unsigned long long)d->pageable_by_dir[GS_COPY_DTOH]);
	}
	if (call)
		advise_call(&adv, call, d->pageable_copies > 0);
	else
		sb_printf(&adv, "queue the next work before synchronizing, or sync on an event "
				"later (only when the result is really needed)");
	add_finding(l, "sync", sync, &text, &adv);
}

static void finding_copy(const struct gs_report_device *d, struct finding_list *l)
{
	int64_t copy = d->b.total_ns[GS_CAT_COPY];
	struct sb text = {0}, adv = {0};
	unsigned worst = 0;
	size_t i;

	if (!significant(copy, d->b.window_ns))
		return;
	sb_printf(&text, "copy exposed ");
	sb_share(&text, copy, d->b.window_ns);
	if (!d->n_missed) {
		sb_printf(&text, ": no kernel could have hidden these copies");
		sb_printf(&adv, "move fewer bytes (keep data on the device, smaller dtypes) or "
				"overlap the copies with the work of the next step");
		add_finding(l, "exposed_copy", copy, &text, &adv);
		return;
	}
	sb_printf(&text, ": %zu cop%s (", d->n_missed, d->n_missed == 1 ? "y" : "ies");
	sb_dur(&text, d->missed_exposed_ns);
	if (d->n_possible == d->n_missed)
		sb_printf(&text, ") ran exposed where a kernel might have hidden %s (possible: ",
			  d->n_missed == 1 ? "it" : "them");
	else if (d->n_possible)
		sb_printf(&text,
			  ") ran exposed although a kernel could have hidden %s (%llu possible: ",
			  d->n_missed == 1 ? "it" : "them", (unsigned long long)d->n_possible);
	else
		sb_printf(&text, ") ran exposed although a kernel could have hidden %s",
			  d->n_missed == 1 ? "it" : "them");
	if (d->n_possible)
		sb_printf(&text, "%s)",
			  d->unknown_count[1] ? "only stream order joins them, no data "
						"dependencies recorded" :
						"host memory kind not recorded");
	for (i = 0; i < 3; i++)
		if (d->missing_count[i] > d->missing_count[worst])
			worst = (unsigned)i;
	if (d->missing_count[worst]) {
		const char *sep = "; missing ";

		for (i = 0; i < 3; i++) {
			if (!d->missing_count[i])
				continue;
			sb_printf(&text, "%s%s (%llu)", sep, gs_condition_name(1u << i),
				  (unsigned long long)d->missing_count[i]);
			sep = ", ";
		}
	}
	sb_printf(&text, "; %s", d->n_possible ? "up to " : "");
	sb_dur(&text, d->missed_hideable_ns);
	sb_printf(&text, " could be hidden");
	if (!d->missing_count[worst] && d->n_possible)
		sb_printf(&adv,
			  "no condition is known to be missing, but independence is not "
			  "proven: check that the copies do not use the data of the kernels "
			  "around them (gpuscope record --data-deps records it); if not, issue "
			  "them on a separate stream ahead of those kernels (prefetch)");
	else if (!d->missing_count[worst])
		sb_printf(&adv, "every condition holds: issue these copies on a separate stream "
				"ahead of the kernels that can hide them (prefetch)");
	else if ((1u << worst) == GS_COND_PINNED_MEMORY)
		sb_printf(&adv, "allocate the host buffers pinned (cudaHostAlloc / "
				"cudaHostRegister; pin_memory=True in a DataLoader) so copies run "
				"asynchronously");
	else if ((1u << worst) == GS_COND_INDEPENDENT)
		sb_printf(&adv, "double-buffer: split the data into batches so the next batch's "
				"copy does not depend on the kernel running now");
	else
		sb_printf(&adv,
			  "issue the copies on their own stream (ops of one stream never "
			  "overlap) and keep a copy engine of that direction free: merge small "
			  "copies");
	add_finding(l, "exposed_copy", copy, &text, &adv);
}

static bool has_precondition(const struct gs_what_if *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->n_preconditions && i < COUNT_OF(w->preconditions); i++)
		if (w->preconditions[i] && !strcmp(w->preconditions[i], name))
			return true;
	return false;
}

/* Only when the batches exist and pipelining beats the ideal schedule of
 * the current structure (else the saving is only the host overhead that
 * the schedule finding already counts). */
static void finding_pipeline(const struct gs_report_device *d, struct finding_list *l)
{
	const struct gs_what_if *w = &d->pipelined;
	struct sb text = {0}, adv = {0};
	size_t i;

	if (!w->name || w->batches < 2 || w->makespan_ns <= 0 || w->makespan_ns >= d->ideal_ns ||
	    d->broken_cycles || !significant(d->ideal_ns - w->makespan_ns, d->actual_ns))
		return;
	sb_printf(&text, "pipelining %zu batches over streams: makespan ", w->batches);
	sb_dur(&text, w->makespan_ns);
	sb_printf(&text, ", ");
	sb_dur(&text, d->ideal_ns - w->makespan_ns);
	sb_printf(&text, " under the ideal schedule of the current structure (");
	sb_dur(&text, w->saving_ns);
	sb_printf(&text, " under the actual ");
	sb_dur(&text, d->actual_ns);
	sb_printf(&text, ")");
	for (i = 0; i < w->n_preconditions && i < COUNT_OF(w->preconditions); i++)
		sb_printf(&text, "%s%s", i ? ", " : "; precondition: ",
			  w->preconditions[i] ? w->preconditions[i] : "?");
	sb_printf(&adv, "issue each batch's copy-in, compute and copy-out on its own stream, "
			"with events between them, so one batch's copies run under another's "
			"kernels");
	if (has_precondition(w, "pinned_memory"))
		sb_printf(&adv, "; pin the host buffers first");
	add_finding(l, "pipelining", d->ideal_ns - w->makespan_ns, &text, &adv);
}

static const char *constraint_advice(unsigned c)
{
	switch (c) {
	case GS_BOUND_HOST_LAUNCH:
		return "the GPU waited for the CPU to launch: cut per-launch host work, fuse "
		       "kernels, or replay them from a CUDA Graph";
	case GS_BOUND_HOST_SYNC:
		return "host synchronizations serialise the work: remove them or wait on an "
		       "event later";
	case GS_BOUND_EVENT:
		return "cross-stream events gate the work: record each event right after the op "
		       "the other stream needs";
	case GS_BOUND_STREAM_ORDER:
		return "ops queued behind earlier ops of their stream: a delay upstream carries "
		       "over to every op behind it; shorten the ops at the head of the queue, and "
		       "give independent work its own stream";
	case GS_BOUND_DEFAULT_STREAM:
		return "the legacy default stream serialises the blocking streams: use streams "
		       "created with cudaStreamNonBlocking, or --default-stream per-thread";
	case GS_BOUND_SYNC_COPY:
		return "synchronous copies block the host: use cudaMemcpyAsync from pinned memory";
	case GS_BOUND_COPY_ENGINE:
		return "copies queue for a copy engine: merge small copies or spread them out";
	case GS_BOUND_DATA:
		return "data dependencies order the work: double-buffer so batches do not share "
		       "buffers";
	default:
		return "compare the ideal schedule with the actual one op by op (JSON output)";
	}
}

/* The headline: how fast the same ops could run. */
static void finding_schedule(const struct gs_report *r, const struct gs_report_device *d,
			     struct finding_list *l)
{
	int64_t slack = d->actual_ns - d->ideal_ns;
	struct sb text = {0}, adv = {0};
	unsigned c, worst = GS_BOUND_NONE;

	if (d->actual_ns <= 0 || d->ideal_ns <= 0 || d->efficiency_kind != GS_REPORT_EFF_EXACT ||
	    !significant(slack, d->actual_ns))
		return;
	for (c = 1; c < GS_BOUND_COUNT; c++)
		if (d->bound_delay_ns[c] > d->bound_delay_ns[worst])
			worst = c;
	sb_printf(&text, "efficiency %.2f: the same ops could finish in ", d->efficiency);
	sb_dur(&text, d->ideal_ns);
	sb_printf(&text, " (ideal schedule) instead of ");
	sb_dur(&text, d->actual_ns);
	if (unlinked(r))
		sb_printf(&text, " - optimistic: %llu cross-stream waits are not linked",
			  (unsigned long long)unlinked(r));
	if (worst != GS_BOUND_NONE && d->bound_delay_ns[worst] > 0)
		sb_printf(&text, "; most delay is bound by %s (%llu op%s)",
			  gs_constraint_name(worst), (unsigned long long)d->bound_ops[worst],
			  d->bound_ops[worst] == 1 ? "" : "s");
	if (d->optimistic)
		sb_printf(&text, " - optimistic (see the caution on synchronization)");
	if (d->active_streams <= 1)
		/* One stream: its ops run one after another in both schedules,
		 * so the whole gap is host and launch time between them. */
		sb_printf(&adv, "one stream: the gap to the ideal is host and launch time between "
				"the ops: launch fewer, larger kernels (fuse them, larger batches) "
				"or replay the sequence from a CUDA Graph");
	else
		sb_printf(&adv, "%s", constraint_advice(worst));
	add_finding(l, "schedule", slack, &text, &adv);
}

/* Dependency cycles: the schedules rest on a graph no real run has. First
 * of the findings, whatever the time at stake (none is known). */
static void finding_cycles(const struct gs_report_device *d, struct finding_list *l)
{
	struct sb text = {0}, adv = {0};

	if (!d->broken_cycles)
		return;
	sb_printf(&text,
		  "dependency cycles: ops wait (through events, host syncs or the default stream) "
		  "on work that waits on them, which no real run can do; the schedules broke the "
		  "cycles at %llu op%s by dropping edges, so the ideal and dependency-bound "
		  "schedules, the critical path and the waits are unreliable and no efficiency "
		  "is given",
		  (unsigned long long)d->broken_cycles, d->broken_cycles == 1 ? "" : "s");
	sb_printf(&adv, "check how the trace was made: a corrupt, hand-edited or wrongly merged "
			"trace (waits joined to the wrong event records) has cycles; the waits "
			"listed are a place to start");
	add_finding(l, "dependency_cycles", 0, &text, &adv);
}

/* A schedule that breaks what must hold (gs_invariants), or an ideal
 * longer than the run: the numbers say which and how much. First of the
 * findings, like cycles. */
/* sb_dur's marker, for a printf argument: one unit when taken. */
#define DUR(buf, ns) (snprintf(buf, sizeof(buf), "\x01%lld\x02", (long long)(ns)), buf)

static void finding_invariants(const struct gs_report *r, const struct gs_report_device *d,
			       struct finding_list *l)
{
	const struct gs_invariants *v = &d->inv;
	struct sb text = {0}, adv = {0};
	char a[32], b[32];
	bool bounded = d->efficiency_kind == GS_REPORT_EFF_BOUNDED;

	if (!v->violations && !bounded)
		return;
	sb_printf(&text, "inconsistent schedule:");
	if (bounded)
		sb_printf(&text,
			  " the ideal schedule (%s) is longer than the recorded run (%s), so "
			  "the efficiency is given as 1;",
			  DUR(a, d->ideal_ns), DUR(b, d->actual_ns));
	if (v->actual_early)
		sb_printf(&text,
			  " in the recording %llu op%s started before an op %s depend%s on "
			  "ended (by up to %s, op %llu);",
			  (unsigned long long)v->actual_early, v->actual_early == 1 ? "" : "s",
			  v->actual_early == 1 ? "it" : "they", v->actual_early == 1 ? "s" : "",
			  DUR(a, v->actual_early_max_ns),
			  (unsigned long long)gs_report_op_id(r->t, v->actual_early_op));
	if (v->cross_process_edges)
		sb_printf(&text, " %llu dependenc%s join%s two processes;",
			  (unsigned long long)v->cross_process_edges,
			  v->cross_process_edges == 1 ? "y" : "ies",
			  v->cross_process_edges == 1 ? "s" : "");
	if (v->early_starts)
		sb_printf(&text,
			  " the ideal schedule starts %llu op%s before a predecessor ends (by up "
			  "to %s, op %llu);",
			  (unsigned long long)v->early_starts, v->early_starts == 1 ? "" : "s",
			  DUR(a, v->early_max_ns),
			  (unsigned long long)gs_report_op_id(r->t, v->early_op));
	if (v->ideal_below_bound)
		sb_printf(&text, " the ideal (%s) is shorter than the dependency bound (%s);",
			  DUR(a, d->ideal_ns), DUR(b, d->dependency_bound_ns));
	if (v->critical_mismatch)
		sb_printf(&text, " the critical path (%s) differs from the dependency bound (%s);",
			  DUR(a, v->critical_path_ns), DUR(b, d->dependency_bound_ns));
	sb_printf(&text, " the schedules and waits of this GPU are not reliable");
	sb_printf(&adv, "%s",
		  v->violations ? "this is a bug in gpuscope or in how the trace was merged: "
				  "please report it with the trace" :
				  "check the trace: device clocks that disagree with the host's, "
				  "or a wait joined to the wrong event record, make a run look "
				  "faster than its dependencies allow");
	add_finding(l, "inconsistent_schedule", 0, &text, &adv);
}
#undef DUR

/* Waits matter where the device had nothing else to run: their time at
 * stake is capped by the device's idle and sync time. */
static void finding_waits(const struct gs_report *r, const struct gs_report_device *d,
			  struct finding_list *l)
{
	const struct gs_trace *t = r->t;
	struct sb text = {0}, adv = {0};
	const struct gs_wait *w;
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	int64_t at_stake, empty = d->b.total_ns[GS_CAT_IDLE] + d->b.total_ns[GS_CAT_SYNC];
	const char *sep = " (";
	unsigned k;

	if (!d->n_waits)
		return;
	at_stake = d->wait_ns < empty ? d->wait_ns : empty;
	if (!significant(at_stake, d->b.window_ns))
		return;
	w = &r->waits[d->waits[0]];
	sb_printf(&text, "%zu wait%s held ops back for ", d->n_waits, d->n_waits == 1 ? "" : "s");
	sb_dur(&text, d->wait_ns);
	sb_printf(&text, " in total");
	for (k = 0; k < GS_EDGE_KIND_COUNT; k++) {
		if (!d->wait_kind_count[k])
			continue;
		sb_printf(&text, "%s%s %llu", sep, gs_edge_kind_name(k),
			  (unsigned long long)d->wait_kind_count[k]);
		sep = ", ";
	}
	if (sep[0] == ',')
		sb_printf(&text, ")");
	if (w->consumer < n_ops && w->producer < n_ops) {
		sb_printf(&text, "; longest: ");
		sb_name(&text, gs_trace_string(t, ops[w->consumer].name));
		sb_printf(&text, " on stream %llu waited ",
			  (unsigned long long)gs_report_op_stream(t, w->consumer));
		sb_dur(&text, w->wait_ns);
		sb_printf(&text, " for ");
		sb_name(&text, gs_trace_string(t, ops[w->producer].name));
		sb_printf(&text, " on stream %llu",
			  (unsigned long long)gs_report_op_stream(t, w->producer));
	}
	switch (w->kind) {
	case GS_EDGE_HOST_SYNC:
		sb_printf(&adv, "the host waited for the GPU before launching more: launch the "
				"next work before the sync, or sync later");
		break;
	case GS_EDGE_DEFAULT_STREAM:
		sb_printf(&adv, "%s", constraint_advice(GS_BOUND_DEFAULT_STREAM));
		break;
	default:
		sb_printf(&adv, "check that the consumer really needs the whole producer: record "
				"the event right after the op it needs, or split the producer");
		break;
	}
	add_finding(l, "waits", at_stake, &text, &adv);
}

/* Mean gap between the kernels of a candidate's occurrences. */
static int64_t cand_mean_gap(const struct gs_cudagraph_candidate *c)
{
	uint64_t gaps = (uint64_t)c->repetitions * (c->length > 1 ? c->length - 1 : 1);

	return gaps ? c->exposed_launch_ns / (int64_t)gaps : 0;
}

/* Candidates whose gaps look like launch overhead (a mean gap of at most
 * GS_REPORT_LAUNCH_GAP_NS): longer gaps wait on something a graph does not
 * remove. */
static bool cand_launch_bound(const struct gs_cudagraph_candidate *c)
{
	return !c->already_graph && c->exposed_launch_ns > 0 &&
	       cand_mean_gap(c) <= GS_REPORT_LAUNCH_GAP_NS;
}

static void finding_graphs(const struct gs_trace *t, const struct gs_report_device *d,
			   struct finding_list *l)
{
	struct sb text = {0}, adv = {0};
	const struct gs_cudagraph_candidate *c = NULL;
	size_t n_ops, i, n = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	int64_t total = 0, at_stake, empty;

	for (i = 0; i < d->n_cands; i++) {
		if (!cand_launch_bound(&d->cands[i]))
			continue;
		if (!c)
			c = &d->cands[i]; /* ranked: most exposed first */
		total = sat_add(total, d->cands[i].exposed_launch_ns);
		n++;
	}
	empty = d->b.total_ns[GS_CAT_IDLE] + d->b.total_ns[GS_CAT_SYNC];
	at_stake = total < empty ? total : empty;
	if (!c || !significant(at_stake, d->b.window_ns))
		return;
	sb_printf(&text, "%zu repeated kernel sequence%s with launch gaps: ", n, n == 1 ? "" : "s");
	sb_dur(&text, total);
	sb_printf(&text, " between their kernels; the largest: %zu kernels x %zu on stream %llu (",
		  c->length, c->repetitions,
		  (unsigned long long)(c->length && c->kernels[0] < n_ops ?
					       gs_report_op_stream(t, c->kernels[0]) :
					       0));
	sb_dur(&text, c->exposed_launch_ns);
	sb_printf(&text, ", ");
	sb_dur(&text, cand_mean_gap(c));
	sb_printf(&text, " a gap)");
	if (c->length && c->kernels[0] < n_ops) {
		sb_printf(&text, ", starting with ");
		sb_name(&text, gs_trace_string(t, ops[c->kernels[0]].name));
	}
	if (d->replay.name && d->replay.saving_ns > 0) {
		/* The replay what-if: the recorded run re-timed. */
		sb_printf(&text, "; replayed from graphs the run takes ");
		sb_dur(&text, d->replay.makespan_ns);
		sb_printf(&text, " (");
		sb_dur(&text, d->replay.saving_ns);
		sb_printf(&text, " less)");
	}
	sb_printf(&adv,
		  "capture the sequence once in a CUDA Graph (cudaStreamBeginCapture / "
		  "torch.cuda.CUDAGraph) and replay it: one launch instead of %zu",
		  c->length);
	add_finding(l, "graph_candidates", at_stake, &text, &adv);
}

static void finding_comm(const struct gs_report_device *d, struct finding_list *l)
{
	struct sb text = {0}, adv = {0};
	int64_t all = 0;
	size_t i;

	if (!d->comm_kernels || !significant(d->comm_exposed_ns, d->b.window_ns))
		return;
	for (i = 0; i < d->n_kernels; i++)
		all += d->kernels[i].ns;
	sb_printf(&text, "communication: %llu NCCL kernels ran ",
		  (unsigned long long)d->comm_kernels);
	sb_dur(&text, d->comm_union_ns);
	sb_printf(&text, " (");
	sb_pct(&text, d->comm_ns, all);
	sb_printf(&text, " of kernel time); ");
	sb_dur(&text, d->comm_exposed_ns);
	sb_printf(&text, " of it with no compute kernel alongside");
	sb_printf(&adv, "NCCL kernel time includes waiting for the other ranks: compare the "
			"ranks' traces (the slowest sets the pace), and overlap communication "
			"with compute (bucketed all-reduce, send/recv on their own stream)");
	add_finding(l, "communication", d->comm_exposed_ns, &text, &adv);
}

static void finding_kernels(const struct gs_trace *t, const struct gs_report_device *d,
			    struct finding_list *l)
{
	int64_t kern = d->b.total_ns[GS_CAT_KERNEL], all = 0;
	const struct gs_report_kernel *k;
	struct sb text = {0}, adv = {0};
	size_t i;

	if (!d->n_kernels || d->b.dominant != GS_CAT_KERNEL || !significant(kern, d->b.window_ns))
		return;
	k = &d->kernels[0];
	for (i = 0; i < d->n_kernels; i++)
		all += d->kernels[i].ns;
	sb_printf(&text, "kernels ran ");
	sb_pct(&text, kern, d->b.window_ns);
	sb_printf(&text, " of the window (the dominant category: a lead to check); the top "
			 "kernel ");
	sb_name(&text, gs_trace_string(t, k->name));
	sb_printf(&text, " takes ");
	sb_dur(&text, k->ns);
	sb_printf(&text, " (");
	sb_pct(&text, k->ns, all);
	sb_printf(&text, " of kernel time, %llu launches)", (unsigned long long)k->count);
	sb_printf(&adv, "the GPU is busy: speed up the top kernels (profile them with Nsight "
			"Compute), or run independent work concurrently on other streams");
	add_finding(l, "kernels", k->ns, &text, &adv);
}

/* Ranked by the time at stake; dependency cycles (which make the rest
 * doubtful) first, then the efficiency headline, the dominant-kernel lead
 * last. */
static int finding_rank(const char *kind)
{
	if (!strcmp(kind, "dependency_cycles") || !strcmp(kind, "inconsistent_schedule"))
		return -1;
	if (!strcmp(kind, "schedule"))
		return 0;
	if (!strcmp(kind, "kernels"))
		return 2;
	return 1;
}

static int cmp_finding(const void *pa, const void *pb)
{
	const struct gs_report_finding *a = pa, *b = pb;
	int ra = finding_rank(a->kind), rb = finding_rank(b->kind);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->kind, b->kind);
}

static gs_status dev_findings(const struct gs_report *r, struct gs_report_device *d)
{
	struct finding_list l = {.n = 0};

	finding_cycles(d, &l);
	finding_invariants(r, d, &l);
	finding_schedule(r, d, &l);
	finding_idle(r, d, &l);
	finding_sync(r, d, &l);
	finding_copy(d, &l);
	finding_pipeline(d, &l);
	finding_waits(r, d, &l);
	finding_graphs(r->t, d, &l);
	finding_comm(d, &l);
	finding_kernels(r->t, d, &l);
	if (l.n) {
		qsort(l.f, l.n, sizeof(l.f[0]), cmp_finding);
		d->findings = malloc(l.n * sizeof(*d->findings));
		if (d->findings) {
			memcpy(d->findings, l.f, l.n * sizeof(*d->findings));
			d->n_findings = l.n;
		} else {
			size_t i;

			for (i = 0; i < l.n; i++) {
				free(l.f[i].text);
				free(l.f[i].advice);
			}
			l.oom = true;
		}
	}
	return l.oom ? gs_nomem() : GS_OK;
}

/* ------------------------------------------------------------------------ */
/* One device                                                                 */
/* ------------------------------------------------------------------------ */

/* The device record's name or UUID (uuid true) of device `id`; "". */
static const char *device_string(const struct gs_trace *t, uint32_t id, bool uuid)
{
	const struct gs_device *dv = gs_trace_device(t, id); /* ids are unique */
	uint32_t s = dv ? (uuid ? dv->uuid : dv->name) : GS_NO_STRING;

	return s != GS_NO_STRING ? gs_trace_string(t, s) : "";
}

/*
 * Whether the device's schedules are optimistic: ops on two or more of its
 * streams, and nothing in the trace that synchronizes streams (event
 * records, syncs of any kind, stream-wait calls seen or unlinked, event,
 * host-sync or default-stream edges). Such a trace may have had the
 * synchronization and not recorded it; the ideal then runs each stream
 * from the window start as if independent.
 */
static void dev_optimistic(const struct gs_report *r, struct gs_report_device *d)
{
	size_t n_sync = 0, n_rec = 0;
	const struct gs_graph *g = r->g;

	d->active_streams = 0;
	for (size_t i = 0; i < d->n_streams; i++)
		d->active_streams += d->streams[i].ops > 0;
	gs_trace_syncs(r->t, &n_sync);
	gs_trace_event_records(r->t, &n_rec);
	d->optimistic =
		d->active_streams >= 2 && !n_sync && !n_rec &&
		(!g ||
		 (!g->unlinked_waits && !g->unlinked_wait_calls && !g->edge_count[GS_EDGE_EVENT] &&
		  !g->edge_count[GS_EDGE_HOST_SYNC] && !g->edge_count[GS_EDGE_DEFAULT_STREAM]));
}

/* The CUDA Graph replay what-if over the ranked candidates. */
static gs_status dev_replay(const struct gs_report *r, struct gs_report_device *d,
			    const struct gs_schedule *s)
{
	gs_status st;

	if (!d->n_cands || !r->g)
		return GS_OK;
	d->cand_replay = calloc(d->n_cands, sizeof(*d->cand_replay));
	d->cand_replay_done = calloc(d->n_cands, sizeof(*d->cand_replay_done));
	if (!d->cand_replay || !d->cand_replay_done)
		return gs_nomem();
	st = gs_cudagraph_replay_compute(r->t, r->g, s, d->cands, d->n_cands, r->graph_node_ns,
					 &d->replay, d->cand_replay, d->cand_replay_done);
	if (st != GS_OK)
		gs_error_append("device %u: CUDA Graph replay", d->device);
	return st;
}

static gs_status dev_build(struct gs_report *r, struct gs_report_device *d)
{
	const struct gs_window *win = r->window_set ? &r->window : NULL;
	struct gs_schedule s;
	struct win w;
	gs_status st;
	size_t i;

	d->name = device_string(r->t, d->device, false);
	d->uuid = device_string(r->t, d->device, true);
	d->default_window = !r->window_set;
	if (!r->bd_cache) {
		st = gs_breakdown_cache_create(r->t, r->g ? r->g->launch : NULL,
					       r->n_dev >= GS_SHARE_MIN_DEVICES, &r->bd_cache);
		if (st != GS_OK)
			return st;
	}
	st = gs_breakdown_compute_cached(r->t, d->device, win, r->bd_cache, &d->b);
	if (st != GS_OK) {
		gs_error_append("device %u: breakdown", d->device);
		return st;
	}
	w.start = d->b.window_start;
	w.end = d->b.window_end;
	if (!r->name_slot) {
		size_t n_names = gs_trace_string_count(r->t) + 1;

		r->name_slot = calloc(n_names, sizeof(*r->name_slot));
		r->name_memo = calloc(n_names, sizeof(*r->name_memo));
		if (!r->name_slot || !r->name_memo)
			return gs_nomem();
	}
	st = dev_streams(r, d, w);
	if (st == GS_OK)
		dev_optimistic(r, d);
	if (st == GS_OK)
		st = dev_comm(r, d, w);
	if (st == GS_OK)
		st = dev_sync_calls(r, d);
	if (st == GS_OK)
		st = gs_measures_compute(r->t, d->device, w.start, w.end,
					 r->g ? r->g->launch : NULL, &d->measures);
	if (st != GS_OK)
		return st;

	memset(&s, 0, sizeof(s));
	st = gs_schedule_compute(r->t, r->g, d->device, win, &s);
	if (st != GS_OK) {
		gs_schedule_fini(&s);
		gs_error_append("device %u: schedule", d->device);
		return st;
	}
	st = gs_schedule_check(r->t, r->g, &s, &d->inv);
	if (st == GS_OK)
		st = gs_missed_overlap_compute(r->t, r->g, &s, &d->b, &d->missed, &d->n_missed);
	if (st == GS_OK)
		st = dev_schedule(r->t, &s, d, w, r->window_set);
	d->critical_lead_ns = s.critical_lead_ns;
	if (st != GS_OK) {
		gs_schedule_fini(&s);
		gs_error_append("device %u: missed overlap", d->device);
		return st;
	}
	if (d->n_missed)
		qsort(d->missed, d->n_missed, sizeof(*d->missed), cmp_missed);
	for (i = 0; i < d->n_missed; i++) {
		unsigned bit;

		d->missed_exposed_ns = sat_add(d->missed_exposed_ns, d->missed[i].exposed_ns);
		d->missed_hideable_ns = sat_add(d->missed_hideable_ns, d->missed[i].hideable_ns);
		for (bit = 0; bit < 3; bit++) {
			if (d->missed[i].missing & (1u << bit))
				d->missing_count[bit]++;
			if (d->missed[i].unknown & (1u << bit))
				d->unknown_count[bit]++;
		}
		if (d->missed[i].unknown) {
			d->n_possible++;
			d->possible_hideable_ns =
				sat_add(d->possible_hideable_ns, d->missed[i].hideable_ns);
		}
	}

	st = gs_cudagraph_candidates_compute_launch(
		r->t, d->device, win, r->g ? r->g->launch : NULL, &d->cands, &d->n_cands);
	if (st != GS_OK) {
		gs_schedule_fini(&s);
		gs_error_append("device %u: CUDA Graph candidates", d->device);
		return st;
	}
	if (d->n_cands)
		qsort(d->cands, d->n_cands, sizeof(*d->cands), cmp_cand);
	st = dev_replay(r, d, &s);
	if (st != GS_OK) {
		gs_schedule_fini(&s);
		return st;
	}
	/* The writers draw the ideal schedule and the whole critical path;
	 * the per-op delays and bounds were summed above. */
	free(s.slot_delay_ns);
	free(s.slot_bound_by);
	free(s.slot_pipelined_start);
	s.slot_delay_ns = NULL;
	s.slot_bound_by = NULL;
	s.slot_pipelined_start = NULL;
	d->sched = s;
	return GS_OK;
}

static void dev_fini(struct gs_report_device *d)
{
	size_t i;

	gs_breakdown_fini(&d->b);
	gs_schedule_fini(&d->sched);
	free(d->critical);
	free(d->critical_step);
	free(d->critical_rank);
	free(d->missed);
	gs_cudagraph_candidates_free(d->cands, d->n_cands);
	free(d->cand_replay);
	free(d->cand_replay_done);
	free(d->streams);
	free(d->kernels);
	free(d->waits);
	free(d->sync_calls);
	gs_measures_fini(&d->measures);
	for (i = 0; i < d->n_findings; i++) {
		free(d->findings[i].text);
		free(d->findings[i].advice);
	}
	free(d->findings);
}

/* ------------------------------------------------------------------------ */
/* The report                                                                 */
/* ------------------------------------------------------------------------ */

void gs_report_destroy(struct gs_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_dev; i++)
		dev_fini(&r->dev[i]);
	free(r->dev);
	free(r->name_slot);
	free(r->name_memo);
	free(r->call_order);
	free(r->call_tree);
	free(r->call_sum);
	gs_breakdown_cache_destroy(r->bd_cache);
	free(r->waits);
	free(r->reported_waits);
	gs_graph_destroy(r->g);
	for (i = 0; i < r->n_inputs; i++)
		free(r->inputs[i]);
	free(r->inputs);
	free(r->format);
	for (i = 0; i < r->n_ranks; i++)
		gs_report_destroy(r->ranks[i]);
	free(r->ranks);
	gs_job_analysis_destroy(r->ja);
	free(r);
}

static gs_status copy_options(struct gs_report *r, const struct gs_report_options *o)
{
	size_t i;

	r->rows = o->rows ? o->rows : GS_REPORT_DEFAULT_ROWS;
	r->graph_node_ns = o->has_graph_node_ns ? o->graph_node_ns : GS_CUDAGRAPH_NODE_NS_DEFAULT;
	if (o->format) {
		r->format = strdup(o->format);
		if (!r->format)
			return gs_nomem();
	}
	if (o->n_inputs) {
		r->inputs = calloc(o->n_inputs, sizeof(*r->inputs));
		if (!r->inputs)
			return gs_nomem();
		for (i = 0; i < o->n_inputs; i++) {
			r->inputs[i] = strdup(o->inputs && o->inputs[i] ? o->inputs[i] : "");
			if (!r->inputs[i])
				return gs_nomem();
			r->n_inputs++;
		}
	}
	return GS_OK;
}

static gs_status resolve_window(struct gs_report *r, const struct gs_report_options *o)
{
	int64_t first = 0, last = 0;

	if (!o->window.set)
		return GS_OK;
	r->window = o->window;
	if (o->window_relative) {
		gs_trace_op_span(r->t, &first, &last);
		if (o->window.start_ns > INT64_MAX - first ||
		    o->window.end_ns > INT64_MAX - first) {
			gs_error_append("window: offsets too large");
			return GS_ERR_INVALID;
		}
		r->window.start_ns = first + o->window.start_ns;
		r->window.end_ns = first + o->window.end_ns;
	}
	if (r->window.end_ns <= r->window.start_ns) {
		gs_error_append("window: end %lld is not after start %lld",
				(long long)r->window.end_ns, (long long)r->window.start_ns);
		return GS_ERR_INVALID;
	}
	r->window_set = true;
	return GS_OK;
}

/* The devices to report: all with ops, or the one asked for. */
static gs_status pick_devices(struct gs_report *r, const struct gs_report_options *o)
{
	uint32_t *ids = NULL;
	size_t n = 0, i;
	gs_status st;

	st = gs_trace_op_devices(r->t, &ids, &n);
	if (st != GS_OK)
		return st;
	if (o->has_device) {
		for (i = 0; i < n && ids[i] != o->device; i++)
			;
		if (i == n) {
			char list[256] = "";
			size_t len = 0, k;

			for (k = 0; k < n && len + 16 < sizeof(list); k++)
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
							k ? ", " : "", ids[k]);
			if (n)
				gs_error_append(
					"device %u has no GPU ops in the trace (devices with "
					"ops: %s)",
					o->device, list);
			else
				gs_error_append(
					"device %u has no GPU ops: the trace has no GPU ops",
					o->device);
			free(ids);
			return GS_ERR_INVALID;
		}
		ids[0] = o->device;
		n = 1;
	}
	if (n) {
		r->dev = calloc(n, sizeof(*r->dev));
		if (!r->dev) {
			free(ids);
			return gs_nomem();
		}
	}
	for (i = 0; i < n; i++)
		r->dev[i].device = ids[i];
	r->n_dev = n;
	free(ids);
	return GS_OK;
}

/* A critical op and its position on the path; sorted by `key` (the op's
 * time negated: longest first) with gs_sort_by_i64, which is stable, so
 * ties stay in path order. */
struct crit_rank {
	int64_t key;
	size_t step;
};

static struct crit_rank *ranked_critical(const struct gs_report_device *d)
{
	struct crit_rank *rank = malloc(d->n_critical * sizeof(*rank));

	if (!rank)
		return NULL;
	for (size_t i = 0; i < d->n_critical; i++)
		rank[i] = (struct crit_rank){-d->critical[i].ns, i};
	gs_sort_by_i64(rank, d->n_critical, sizeof(*rank));
	return rank;
}

/* The listed critical ops, longest first (ties in path order). O(P). */
static gs_status rank_critical(struct gs_report_device *d)
{
	struct crit_rank *rank = ranked_critical(d);

	d->critical_rank = malloc(d->n_critical * sizeof(*d->critical_rank));
	if (!rank || !d->critical_rank) {
		free(rank);
		return gs_nomem();
	}
	for (size_t i = 0; i < d->n_critical; i++)
		d->critical_rank[i] = rank[i].step;
	free(rank);
	return GS_OK;
}

/* Keep the `rows` longest ops of the critical path, in path order, with
 * their positions on it, and rank them. O(P). */
static gs_status cut_critical(struct gs_report_device *d, size_t rows)
{
	size_t n = d->n_critical, keep = n < rows ? n : rows, i, k = 0;
	struct gs_critical_op *kept;
	struct crit_rank *rank;
	bool *chosen;

	d->critical_count = n;
	if (!n)
		return GS_OK;
	d->critical_step = malloc(keep * sizeof(*d->critical_step));
	if (!d->critical_step)
		return gs_nomem();
	if (keep == n) {
		for (i = 0; i < n; i++)
			d->critical_step[i] = i;
		return rank_critical(d);
	}
	rank = ranked_critical(d);
	kept = malloc(keep * sizeof(*kept));
	chosen = calloc(n, sizeof(*chosen));
	if (!rank || !kept || !chosen) {
		free(rank);
		free(kept);
		free(chosen);
		return gs_nomem();
	}
	for (i = 0; i < keep; i++)
		chosen[rank[i].step] = true;
	for (i = 0; i < n; i++) {
		if (!chosen[i])
			continue;
		d->critical_step[k] = i;
		kept[k++] = d->critical[i];
	}
	free(rank);
	free(chosen);
	free(d->critical);
	d->critical = kept;
	d->n_critical = keep;
	return rank_critical(d);
}

/*
 * The per-op lists as the report keeps them: at most r->rows entries
 * each, those with the most time at stake, beside their exact counts
 * (the totals were summed over every entry while building). Runs last:
 * the findings have seen every entry.
 */
static gs_status cut_lists(struct gs_report *r)
{
	size_t rows = r->rows, i;
	gs_status st;

	for (i = 0; i < r->n_dev; i++) {
		struct gs_report_device *d = &r->dev[i];

		st = cut_critical(d, rows);
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
		r->reported_wait_ns =
			sat_add(r->reported_wait_ns, r->waits[r->reported_waits[i]].wait_ns);
	if (r->n_reported_waits > rows)
		r->n_reported_waits = rows;
	return GS_OK;
}

gs_status gs_report_build(const struct gs_trace *t, const struct gs_report_options *o,
			  struct gs_report **out)
{
	static const struct gs_report_options defaults = {.rows = 0};
	struct gs_report *r;
	gs_status st;
	size_t i;

	if (out)
		*out = NULL;
	if (!t || !out) {
		gs_error_append("gs_report_build: no %s", t ? "output" : "trace");
		return GS_ERR_INVALID;
	}
	if (!o)
		o = &defaults;
	r = calloc(1, sizeof(*r));
	if (!r)
		return gs_nomem();
	r->t = t;
	r->pid = -1;
	r->host = "";
	r->input = "";
	st = copy_options(r, o);
	if (st == GS_OK)
		st = resolve_window(r, o);
	if (st == GS_OK)
		st = pick_devices(r, o);
	if (st == GS_OK && r->n_dev) {
		struct gs_graph_options go = {.max_edges = o->max_edges};

		st = gs_graph_build_opts(t, &go, &r->g);
		if (st != GS_OK)
			gs_error_append("dependency graph");
	}
	if (st == GS_OK && r->g) {
		st = gs_waits_compute(t, r->g, &r->waits, &r->n_waits);
		if (st != GS_OK)
			gs_error_append("waits");
	}
	for (i = 0; st == GS_OK && i < r->n_dev; i++)
		st = dev_build(r, &r->dev[i]);
	/* The breakdown cache (per-thread pieces, the host range index) serves
	 * the devices' breakdowns only: its memory goes back before the rest. */
	gs_breakdown_cache_destroy(r->bd_cache);
	r->bd_cache = NULL;
	if (st == GS_OK)
		st = assign_waits(r);
	for (i = 0; st == GS_OK && i < r->n_dev; i++)
		st = dev_findings(r, &r->dev[i]);
	if (st == GS_OK)
		st = cut_lists(r);
	if (st != GS_OK) {
		gs_report_destroy(r);
		return st;
	}
	*out = r;
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* The report of a job: one report per rank                                   */
/* ------------------------------------------------------------------------ */

const char *gs_report_device_title(const struct gs_report *r, const struct gs_report_device *d,
				   char *buf, size_t size)
{
	int n;

	if (!r->in_job) {
		snprintf(buf, size, "device %u%s%s", d->device, *d->name ? ": " : "", d->name);
		return buf;
	}
	n = snprintf(buf, size, "rank %u", r->rank);
	if (*r->host && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " \u00b7 %s", r->host);
	if (r->pid >= 0 && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " \u00b7 pid %lld", (long long)r->pid);
	if (n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " \u00b7 GPU %u%s%s", d->device,
			 *d->name ? " " : "", d->name);
	return buf;
}

/* Does rank `k` have GPU ops on device `dev`? */
static bool rank_has_device(const struct gs_job_rank *k, uint32_t dev)
{
	uint32_t *ids = NULL;
	size_t n = 0;
	bool has = false;

	if (gs_trace_op_devices(k->trace, &ids, &n) != GS_OK)
		return false;
	for (size_t i = 0; i < n; i++)
		has |= ids[i] == dev;
	free(ids);
	return has;
}

/* The ranks to report (a bitmap over j->ranks), from --rank and --device. */
static gs_status pick_ranks(const struct gs_job *j, const struct gs_report_options *o, bool *pick)
{
	size_t hits = 0, i;
	char list[160] = "";
	size_t len = 0;

	for (i = 0; i < j->n_ranks; i++) {
		pick[i] = !o->has_rank || j->ranks[i].rank == o->rank;
		hits += pick[i];
	}
	if (o->has_rank && !hits) {
		for (i = 0; i < j->n_ranks && len + 16 < sizeof(list); i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
						i ? ", " : "", j->ranks[i].rank);
		gs_error_append("rank %u is not in the job (ranks: %s)", o->rank, list);
		return GS_ERR_INVALID;
	}
	if (!o->has_device || o->has_rank || j->n_ranks < 2)
		return GS_OK;
	/* --device N alone in a job: the one rank that has device N. */
	hits = 0;
	for (i = 0; i < j->n_ranks; i++) {
		pick[i] = rank_has_device(&j->ranks[i], o->device);
		if (pick[i]) {
			if (len + 16 < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
							hits ? ", " : "", j->ranks[i].rank);
			hits++;
		}
	}
	if (hits == 1)
		return GS_OK;
	if (!hits)
		gs_error_append("device %u has no GPU ops on any rank of the job", o->device);
	else
		gs_error_append("device %u is on %zu ranks (%s): say which with --device R:%u "
				"or --rank R",
				o->device, hits, list, o->device);
	return GS_ERR_INVALID;
}

/* The first op start of the ranks of one clock group. */
static int64_t group_first(const struct gs_job *j, uint32_t group)
{
	int64_t first = 0;
	bool any = false;

	for (size_t i = 0; i < j->n_ranks; i++) {
		const struct gs_job_rank *k = &j->ranks[i];

		if (k->clock_group != group || (k->first_ns == 0 && k->last_ns == 0))
			continue;
		if (!any || k->first_ns < first)
			first = k->first_ns;
		any = true;
	}
	return first;
}

static gs_status build_rank(const struct gs_job *j, size_t i, const struct gs_report_options *o,
			    struct gs_report **out)
{
	const struct gs_job_rank *k = &j->ranks[i];
	struct gs_report_options ro = *o;
	struct gs_report *c = NULL;
	gs_status st;

	if (o->window.set && o->window_relative) {
		int64_t first = group_first(j, k->clock_group);

		if (o->window.start_ns > INT64_MAX - first ||
		    o->window.end_ns > INT64_MAX - first) {
			gs_error_append("window: offsets too large");
			return GS_ERR_INVALID;
		}
		ro.window.start_ns = first + o->window.start_ns;
		ro.window.end_ns = first + o->window.end_ns;
		ro.window_relative = false;
	}
	/* --device N picks the device inside the rank; without --rank in a
	 * job, only the rank that has it was picked. */
	st = gs_report_build(k->trace, &ro, &c);
	if (st != GS_OK) {
		if (j->n_ranks > 1)
			gs_error_append("rank %u", k->rank);
		return st;
	}
	c->rank = k->rank;
	c->rank_declared = k->rank_declared;
	c->pid = k->pid;
	c->host = k->host == GS_NO_STRING ? "" : gs_trace_string(k->trace, k->host);
	c->input = o->inputs && k->input < o->n_inputs && o->inputs[k->input] ?
			   c->inputs[k->input] :
			   "";
	c->clock_group = k->clock_group;
	c->in_job = j->n_ranks > 1;
	*out = c;
	return GS_OK;
}

/*
 * The picked ranks' reports, on as many CPUs as the process may use (at
 * most RANK_THREADS): each rank's report depends on its trace alone, so the
 * reports are the same whatever the threads. Threads take ranks in order
 * from a shared counter. On a failure the causes live on the thread that
 * failed: the first failing rank, in order, is built again on this thread
 * to report them.
 */
#define RANK_THREADS 16

struct rank_jobs {
	const struct gs_job *j;
	const struct gs_report_options *o;
	const bool *pick;
	struct gs_report **out; /* per rank of the job */
	gs_status *st;
	pthread_mutex_t mu;
	size_t next;
};

static void *rank_worker(void *arg)
{
	struct rank_jobs *rj = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&rj->mu);
		while (rj->next < rj->j->n_ranks && !rj->pick[rj->next])
			rj->next++;
		i = rj->next++;
		pthread_mutex_unlock(&rj->mu);
		if (i >= rj->j->n_ranks)
			return NULL;
		rj->st[i] = build_rank(rj->j, i, rj->o, &rj->out[i]);
		gs_error_clear();
	}
}

static gs_status build_ranks(const struct gs_job *j, const struct gs_report_options *o,
			     const bool *pick, struct gs_report *r)
{
	struct rank_jobs rj = {.j = j, .o = o, .pick = pick};
	pthread_t th[RANK_THREADS];
	size_t nth = 0, want = gs_cpu_count(), picked = 0, i;
	gs_status st = GS_OK;

	for (i = 0; i < j->n_ranks; i++)
		picked += pick[i];
	if (want > RANK_THREADS)
		want = RANK_THREADS;
	if (want > picked)
		want = picked;
	rj.out = calloc(j->n_ranks ? j->n_ranks : 1,
			sizeof(*rj.out)); /* NOLINT(bugprone-sizeof-expression): pointers */
	rj.st = calloc(j->n_ranks ? j->n_ranks : 1, sizeof(*rj.st));
	if (!rj.out || !rj.st) {
		free(rj.out);
		free(rj.st);
		return gs_nomem();
	}
	if (want >= 2 && pthread_mutex_init(&rj.mu, NULL) == 0) {
		while (nth < want && pthread_create(&th[nth], NULL, rank_worker, &rj) == 0)
			nth++;
		for (size_t k = 0; k < nth; k++)
			pthread_join(th[k], NULL);
		pthread_mutex_destroy(&rj.mu);
	}
	for (i = 0; i < j->n_ranks; i++) {
		if (!pick[i])
			continue;
		if (!nth) /* one CPU, or no thread could start */
			rj.st[i] = build_rank(j, i, o, &rj.out[i]);
		else if (rj.st[i] != GS_OK && st == GS_OK)
			rj.st[i] = build_rank(j, i, o, &rj.out[i]); /* for its causes */
		if (rj.st[i] != GS_OK && st == GS_OK)
			st = rj.st[i];
		if (rj.out[i])
			r->ranks[r->n_ranks++] = rj.out[i];
	}
	free(rj.out);
	free(rj.st);
	return st;
}

static gs_status build_job(const struct gs_job *j, const struct gs_report_options *o,
			   const bool *own, struct gs_report **out)
{
	static const struct gs_report_options defaults = {.rows = 0};
	struct gs_report *r;
	bool *pick = NULL;
	gs_status st;

	if (out)
		*out = NULL;
	if (!j || !out) {
		gs_error_append("gs_report_build_job: no %s", j ? "output" : "job");
		return GS_ERR_INVALID;
	}
	if (!o)
		o = &defaults;
	r = calloc(1, sizeof(*r));
	if (!r)
		return gs_nomem();
	r->job = j;
	r->pid = -1;
	r->host = "";
	r->input = "";
	st = copy_options(r, o);
	if (st == GS_OK && o->window.set) {
		r->window_set = true;
		r->window = o->window;
	}
	pick = calloc(j->n_ranks ? j->n_ranks : 1, sizeof(*pick));
	if (st == GS_OK && !pick)
		st = gs_nomem();
	if (st == GS_OK)
		st = pick_ranks(j, o, pick);
	for (size_t i = 0; own && st == GS_OK && i < j->n_ranks; i++)
		pick[i] = pick[i] && own[i];
	if (st == GS_OK) {
		r->ranks = calloc(
			j->n_ranks ? j->n_ranks : 1,
			sizeof(*r->ranks)); /* NOLINT(bugprone-sizeof-expression): pointers */
		if (!r->ranks)
			st = gs_nomem();
	}
	if (st == GS_OK)
		st = build_ranks(j, o, pick, r);
	if (st == GS_OK && !own && j->n_ranks > 1 && !o->has_rank && !o->has_device)
		st = gs_job_analysis_build(r, &r->ja);
	free(pick);
	if (st != GS_OK) {
		gs_report_destroy(r);
		return st;
	}
	*out = r;
	return GS_OK;
}

gs_status gs_report_build_job(const struct gs_job *j, const struct gs_report_options *o,
			      struct gs_report **out)
{
	return build_job(j, o, NULL, out);
}

gs_status gs_report_build_job_own(const struct gs_job *j, const struct gs_report_options *o,
				  const bool *own, struct gs_report **out)
{
	return build_job(j, o, own, out);
}
