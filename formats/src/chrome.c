/* SPDX-License-Identifier: MIT */
/*
 * Chrome trace JSON export (gpuscope/export.h; layout below).
 *
 * Layout: the plan of processes, tracks and lanes (export_plan.h), which the
 * Perfetto writer (pftrace.c) shares.
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
#include <gpuscope/names.h>

#include "export_base.h"
#include "export_plan.h"

/* The output, shared by every rank of a job export. */
struct chrome_out {
	struct gs_outbuf w;
	bool first_event;
	bool in_args;       /* the event being written has opened its args */
	uint64_t next_flow; /* flow ids */
};

bool gs_export_path_is_gzip(const char *path)
{
	size_t n = path ? strlen(path) : 0;

	return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                  */
/* ------------------------------------------------------------------------ */

static void ev_open(struct xplan *c, const char *ph)
{
	gs_outbuf_puts(&c->out->w, c->out->first_event ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
	c->out->first_event = false;
	c->out->in_args = false;
	gs_outbuf_puts(&c->out->w, ph);
	gs_outbuf_putc(&c->out->w, '"');
}

static void ev_close(struct xplan *c)
{
	if (c->out->in_args)
		gs_outbuf_putc(&c->out->w, '}');
	c->out->in_args = false;
	gs_outbuf_putc(&c->out->w, '}');
}

/* A member of the event: `,"key":`. */
static void key(struct xplan *c, const char *k)
{
	gs_outbuf_putc(&c->out->w, ',');
	gs_outbuf_json_str(&c->out->w, k, 0);
	gs_outbuf_putc(&c->out->w, ':');
}

/* A member of its args, opening them the first time. */
static void akey(struct xplan *c, const char *k)
{
	gs_outbuf_puts(&c->out->w, c->out->in_args ? "," : ",\"args\":{");
	c->out->in_args = true;
	gs_outbuf_json_str(&c->out->w, k, 0);
	gs_outbuf_putc(&c->out->w, ':');
}

static void kv_i64(struct xplan *c, const char *k, int64_t v)
{
	key(c, k);
	gs_outbuf_i64(&c->out->w, v);
}

static void kv_str(struct xplan *c, const char *k, const char *v)
{
	key(c, k);
	gs_outbuf_json_str(&c->out->w, v, 0);
}

static void kv_us(struct xplan *c, const char *k, int64_t ns)
{
	key(c, k);
	gs_outbuf_us(&c->out->w, ns);
}

/* "ts": a time of the trace, on the export's axis (c->shift). */
static void kv_ts(struct xplan *c, int64_t ns)
{
	kv_us(c, "ts", ns + c->shift);
}

static void arg_i64(struct xplan *c, const char *k, int64_t v)
{
	akey(c, k);
	gs_outbuf_i64(&c->out->w, v);
}

static void arg_u64(struct xplan *c, const char *k, uint64_t v)
{
	akey(c, k);
	gs_outbuf_u64(&c->out->w, v);
}

static void arg_str(struct xplan *c, const char *k, const char *v)
{
	akey(c, k);
	gs_outbuf_json_str(&c->out->w, v, 0);
}

static void arg_dim3(struct xplan *c, const char *k, const uint32_t v[3])
{
	akey(c, k);
	gs_outbuf_putc(&c->out->w, '[');
	gs_outbuf_u64(&c->out->w, v[0]);
	gs_outbuf_putc(&c->out->w, ',');
	gs_outbuf_u64(&c->out->w, v[1]);
	gs_outbuf_putc(&c->out->w, ',');
	gs_outbuf_u64(&c->out->w, v[2]);
	gs_outbuf_putc(&c->out->w, ']');
}

/* The args of the shared plan (gs_xp_*_args) as JSON. */
static void json_u64(void *ctx, enum xkey k, uint64_t v)
{
	arg_u64(ctx, gs_xp_key_names[k], v);
}

static void json_i64(void *ctx, enum xkey k, int64_t v)
{
	arg_i64(ctx, gs_xp_key_names[k], v);
}

static void json_str(void *ctx, enum xkey k, const char *v)
{
	arg_str(ctx, gs_xp_key_names[k], v);
}

static void json_dim3(void *ctx, enum xkey k, const uint32_t v[3])
{
	arg_dim3(ctx, gs_xp_key_names[k], v);
}

static struct xargs json_args(struct xplan *c)
{
	return (struct xargs){json_u64, json_i64, json_str, json_dim3, c};
}

/* A complete event up to its args. */
static void chrome_event(struct xplan *c, const char *cat, const char *name, int64_t pid,
			 int64_t tid, int64_t start, int64_t end)
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
static void meta_str(struct xplan *c, const char *what, int64_t pid, int64_t tid, const char *argk,
		     const char *v)
{
	ev_open(c, "M");
	kv_str(c, "name", what);
	kv_i64(c, "pid", pid);
	kv_i64(c, "tid", tid);
	arg_str(c, argk, v);
	ev_close(c);
}

static void meta_i64(struct xplan *c, const char *what, int64_t pid, int64_t tid, const char *argk,
		     int64_t v)
{
	ev_open(c, "M");
	kv_str(c, "name", what);
	kv_i64(c, "pid", pid);
	kv_i64(c, "tid", tid);
	arg_i64(c, argk, v);
	ev_close(c);
}

static void thread_meta(struct xplan *c, int64_t pid, int64_t tid, const char *name, int64_t sort)
{
	meta_str(c, "thread_name", pid, tid, "name", name);
	meta_i64(c, "thread_sort_index", pid, tid, "sort_index", sort);
}

/* process_name of a rank's process, with who it is in args (pid and
 * device -1: unknown or none). */
static void job_name(struct xplan *c, int64_t cpid, const struct xproc_names *n)
{
	ev_open(c, "M");
	kv_str(c, "name", "process_name");
	kv_i64(c, "pid", cpid);
	kv_i64(c, "tid", 0);
	arg_str(c, "name", n->name);
	arg_u64(c, "rank", c->rank->rank);
	if (n->pid >= 0)
		arg_i64(c, "pid", n->pid);
	if (c->rank->host && *c->rank->host)
		arg_str(c, "host", c->rank->host);
	if (n->device >= 0)
		arg_i64(c, "device", n->device);
	if (n->cmd && *n->cmd)
		arg_str(c, "command_line", n->cmd);
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

/* A process's metadata: its name (with who it is, for a rank of a job),
 * labels and sort index (gs_xp_*_names). */
static void proc_meta(struct xplan *c, int64_t cpid, const struct xproc_names *n)
{
	if (c->rank)
		job_name(c, cpid, n);
	else if (*n->name)
		meta_str(c, "process_name", cpid, 0, "name", n->name);
	if (*n->label)
		meta_str(c, "process_labels", cpid, 0, "labels", n->label);
	meta_i64(c, "process_sort_index", cpid, 0, "sort_index", n->sort);
}

static void write_metadata(struct xplan *c)
{
	struct xproc_names pn;
	size_t i, j;
	char name[320], label[256];
	int64_t sort, isort = 0;

	for (i = 0; i < c->n_hp; i++) {
		const struct hproc *p = &c->hp[i];

		gs_xp_host_names(c, i, &pn);
		proc_meta(c, p->cpid, &pn);
		sort = 0;
		for (j = p->first_thread; j < p->first_thread + p->n_threads; j++) {
			const struct hthread *th = &c->threads[j];

			for (uint32_t k = 0; k <= th->lanes; k++) {
				gs_xp_thread_name(name, sizeof(name), th->tid, k);
				thread_meta(c, p->cpid, k ? th->ovf_tid + k - 1 : th->tid, name,
					    sort++);
			}
		}
		for (uint32_t k = 0; k < p->oh_lanes; k++) {
			gs_xp_overhead_name(name, sizeof(name), k);
			thread_meta(c, p->cpid, p->oh_tid + k, name, sort++);
		}
	}
	for (i = 0; i < c->n_devs; i++) {
		gs_xp_dev_names(c, i, &pn);
		proc_meta(c, c->devs[i].pid, &pn);
		if (c->ideal) {
			gs_xp_ideal_names(c, i, &pn);
			proc_meta(c, c->devs[i].ideal_pid, &pn);
		}
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
		gs_xp_stream_label(c, s, label, sizeof(label));
		for (uint32_t k = 0; k <= x->lanes; k++) {
			gs_xp_lane_name(name, sizeof(name), label, k);
			thread_meta(c, d->pid, k ? x->ovf_tid + k - 1 : x->tid, name, sort++);
		}
		if (!c->ideal || !x->has_ideal)
			continue;
		for (uint32_t k = 0; k <= x->ideal_lanes; k++) {
			gs_xp_lane_name(name, sizeof(name), label, k);
			thread_meta(c, d->ideal_pid, k ? x->ideal_ovf_tid + k - 1 : x->tid, name,
				    isort++);
		}
	}
	for (i = 0; i < c->n_devs; i++) {
		const struct cdev *d = &c->devs[i];

		for (uint32_t k = 0; k < d->sync_lanes; k++) {
			gs_xp_sync_name(name, sizeof(name), k);
			thread_meta(c, d->pid, d->sync_tid + k, name, sort++);
		}
		for (uint32_t k = 0; k < d->ann_lanes; k++) {
			gs_xp_annotation_name(name, sizeof(name), k);
			thread_meta(c, d->pid, d->ann_tid + k, name, sort++);
		}
	}
}

static int64_t op_tid(const struct xplan *c, uint32_t o)
{
	const struct cstream *x = &c->cs[c->ops[o].stream];

	return c->op_lane[o] ? x->ovf_tid + c->op_lane[o] - 1 : x->tid;
}

static int64_t op_pid(const struct xplan *c, uint32_t o)
{
	return c->devs[c->cs[c->ops[o].stream].dev].pid;
}

static void write_op(struct xplan *c, uint32_t o)
{
	const struct gs_op *op = &c->ops[o];
	struct xargs a = json_args(c);
	char buf[128];

	chrome_event(c, gs_xp_op_cat(op->kind), gs_xp_op_name(c, op, buf, sizeof(buf)),
		     op_pid(c, o), op_tid(c, o), op->start_ns, op->end_ns);
	gs_xp_op_args(c, op, &a);
	ev_close(c);
}

static void write_sync(struct xplan *c, uint32_t i)
{
	const struct gs_sync *y = &c->syncs[i];
	const struct cdev *d = &c->devs[gs_xp_find_dev(c, y->device)];
	struct xargs a = json_args(c);

	chrome_event(c, "cuda_sync", gs_xp_sync_kind_text(y->kind), d->pid,
		     d->sync_tid + c->sync_lane[i], y->start_ns, y->end_ns);
	gs_xp_sync_args(c, i, &a);
	ev_close(c);
}

static int64_t api_tid(const struct xplan *c, uint32_t a)
{
	const struct hthread *th = &c->threads[c->api_thread[a]];

	return c->api_lane[a] ? th->ovf_tid + c->api_lane[a] - 1 : th->tid;
}

/* The pid of a call's track in the export. */
static int64_t api_pid(const struct xplan *c, uint32_t a)
{
	return c->hp[c->threads[c->api_thread[a]].hp].cpid;
}

static void write_api(struct xplan *c, uint32_t i)
{
	const struct gs_api_call *k = &c->api[i];
	struct xargs a = json_args(c);

	chrome_event(c, gs_xp_api_cat(k), gs_trace_string(c->t, k->name), api_pid(c, i),
		     api_tid(c, i), k->start_ns, k->end_ns);
	gs_xp_api_args(c, i, &a);
	ev_close(c);
}

static void write_range(struct xplan *c, uint32_t i)
{
	const struct gs_range *r = &c->ranges[i];
	const struct hthread *th = &c->threads[c->range_thread[i]];
	int64_t tid = c->range_lane[i] ? th->ovf_tid + c->range_lane[i] - 1 : th->tid;
	struct xargs a = json_args(c);

	chrome_event(c, gs_xp_range_cat(r), gs_trace_string(c->t, r->name), c->hp[th->hp].cpid, tid,
		     r->start_ns, r->end_ns);
	gs_xp_range_args(c, i, &a);
	ev_close(c);
}

/* GPU annotations on their tracks (plan_gpu_annotations), their device
 * and stream in args as the PyTorch profiler writes them. */
static void write_gpu_annotations(struct xplan *c)
{
	struct xargs a = json_args(c);

	for (size_t i = 0; i < c->n_ranges; i++) {
		const struct gs_range *r = &c->ranges[i];
		const struct cstream *x;

		if (!gs_xp_annotation_kept(c, i))
			continue;
		x = &c->cs[r->stream];
		chrome_event(c, "gpu_user_annotation", gs_trace_string(c->t, r->name),
			     c->devs[x->dev].pid, c->ann_tid[i], r->start_ns, r->end_ns);
		gs_xp_annotation_args(c, (uint32_t)i, &a);
		ev_close(c);
	}
}

static void write_overheads(struct xplan *c)
{
	for (size_t i = 0; i < c->n_oh; i++) {
		const struct gs_overhead *o = &c->oh[i];
		const struct hproc *p = &c->hp[gs_xp_find_hproc(c, o->pid)];

		chrome_event(c, "overhead", gs_trace_string(c->t, o->kind), p->cpid,
			     p->oh_tid + c->oh_lane[i], o->start_ns, o->end_ns);
		ev_close(c);
	}
}

/* Host events thread by thread; each call followed by its ops and syncs.
 * Then the ops and syncs that have no call. */
static void write_host_and_ops(struct xplan *c)
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
			if (gs_xp_op_kept(c, c->call_ops[j]))
				write_op(c, c->call_ops[j]);
		for (j = c->call_syncs_first[r->idx]; j < c->call_syncs_first[r->idx + 1]; j++)
			if (gs_xp_sync_kept(c, c->call_syncs[j]))
				write_sync(c, c->call_syncs[j]);
	}
	for (i = 0; i < c->n_ops; i++)
		if (c->launch[i] == NONE && gs_xp_op_kept(c, i))
			write_op(c, (uint32_t)i);
	for (i = 0; i < c->n_syncs; i++)
		if (c->sync_call[i] == NONE && gs_xp_sync_kept(c, i))
			write_sync(c, (uint32_t)i);
}

static void write_counters(struct xplan *c)
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

static void write_ideal(struct xplan *c)
{
	const struct gs_export_extras *x = c->x;
	struct xargs a = json_args(c);
	char buf[128];

	for (size_t o = 0; o < c->n_ops; o++) {
		const struct gs_op *op = &c->ops[o];
		const struct cstream *s = &c->cs[op->stream];
		const struct cdev *d;
		int64_t st = x->ideal_start[o];

		if (!x->ideal_in[o] || !gs_xp_op_kept(c, o))
			continue;
		d = &c->devs[s->dev];
		chrome_event(c, "ideal", gs_xp_op_name(c, op, buf, sizeof(buf)), d->ideal_pid,
			     c->ideal_lane[o] ? s->ideal_ovf_tid + c->ideal_lane[o] - 1 : s->tid,
			     st, st + (op->end_ns - op->start_ns));
		gs_xp_ideal_args(c, (uint32_t)o, &a);
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

static void flow_event(struct xplan *c, const char *ph, uint64_t id, const char *cat,
		       const char *name, int64_t pid, int64_t tid, int64_t ts)
{
	ev_open(c, ph);
	key(c, "id");
	gs_outbuf_u64(&c->out->w, id);
	kv_i64(c, "pid", pid);
	kv_i64(c, "tid", tid);
	kv_ts(c, ts);
	kv_str(c, "cat", cat);
	kv_str(c, "name", name);
	if (ph[0] == 'f')
		kv_str(c, "bp", "e");
	ev_close(c);
}

static void write_flows(struct xplan *c)
{
	const struct gs_export_extras *x = c->x;
	size_t i;

	for (i = 0; i < c->n_ops; i++) {
		const struct gs_op *op = &c->ops[i];
		const struct gs_api_call *a;
		uint64_t id;

		if (c->launch[i] == NONE || !gs_xp_op_kept(c, i))
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

		if (!gs_xp_edge_written(c, i))
			continue;
		from = &c->ops[e->from];
		to = &c->ops[e->to];
		if (x->edge_kind_names && e->kind < x->n_edge_kinds && x->edge_kind_names[e->kind])
			name = x->edge_kind_names[e->kind];
		id = ++c->out->next_flow;
		flow_event(c, "s", id, "dependency", name, op_pid(c, e->from), op_tid(c, e->from),
			   bind_out(from->start_ns, from->end_ns));
		flow_event(c, "f", id, "dependency", name, op_pid(c, e->to), op_tid(c, e->to),
			   bind_in(to->start_ns, to->end_ns));
	}
}

/* A version string as Kineto writes it: a number when it is one. */
static void version_value(struct xplan *c, const char *v)
{
	size_t n = strlen(v);
	bool digits = n > 0 && n < 19 && (v[0] != '0' || n == 1);

	for (size_t i = 0; digits && i < n; i++)
		digits = v[i] >= '0' && v[i] <= '9';
	if (digits)
		gs_outbuf_puts(&c->out->w, v);
	else
		gs_outbuf_json_str(&c->out->w, v, 0);
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
static gs_status header_devices(const struct xplan *cs, size_t n, struct dev_ref **out,
				size_t *n_out)
{
	size_t total = 0, k = 0, m = 0, r, i;
	struct dev_ref *d;

	for (r = 0; r < n; r++) {
		size_t n_dt;

		gs_trace_devices(cs[r].t, &n_dt);
		total += n_dt;
	}
	d = gs_xp_alloc_n(total, sizeof(*d));
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

static void write_device(struct xplan *c, const struct gs_device *d, bool first)
{
	struct gs_outbuf *w = &c->out->w;

	gs_outbuf_puts(w, first ? "\n{\"id\":" : ",\n{\"id\":");
	gs_outbuf_u64(w, d->id);
	if (d->name != GS_NO_STRING) {
		gs_outbuf_puts(w, ",\"name\":");
		gs_outbuf_json_str(w, gs_trace_string(c->t, d->name), 0);
	}
	if (d->uuid != GS_NO_STRING) {
		gs_outbuf_puts(w, ",\"uuid\":");
		gs_outbuf_json_str(w, gs_trace_string(c->t, d->uuid), 0);
	}
	gs_outbuf_puts(w, ",\"totalGlobalMem\":");
	gs_outbuf_u64(w, d->memory_bytes);
	gs_outbuf_puts(w, ",\"computeMajor\":");
	gs_outbuf_u64(w, d->cc_major);
	gs_outbuf_puts(w, ",\"computeMinor\":");
	gs_outbuf_u64(w, d->cc_minor);
	gs_outbuf_puts(w, ",\"numSms\":");
	gs_outbuf_u64(w, d->sm_count);
	gs_outbuf_puts(w, ",\"numMemcpyEngines\":");
	gs_outbuf_u64(w, d->copy_engines);
	gs_outbuf_putc(w, '}');
}

/* A trace's host name and CUDA versions: those of its first process that
 * has each. */
static void trace_versions(const struct xplan *c, const char **host, const char *ver[3])
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
static void write_distributed(struct xplan *c, const struct gs_process *p, uint32_t rank)
{
	struct gs_outbuf *w = &c->out->w;

	gs_outbuf_puts(w, ",\n\"distributedInfo\": {");
	if (p && p->has_backend) {
		gs_outbuf_puts(w, "\"backend\": ");
		gs_outbuf_json_str(w, gs_trace_string(c->t, p->backend), 0);
		gs_outbuf_puts(w, ", ");
	}
	gs_outbuf_puts(w, "\"rank\": ");
	gs_outbuf_u64(w, rank);
	if (p && p->world_size) {
		gs_outbuf_puts(w, ", \"world_size\": ");
		gs_outbuf_u64(w, p->world_size);
	}
	gs_outbuf_putc(w, '}');
}

/* The wall clock of a process (known): Kineto's baseTimeNanoseconds (ts
 * plus it is Unix-epoch ns) and, for gpuscope, where it came from. */
static void write_clock(struct xplan *c, const struct gs_process *p)
{
	struct gs_outbuf *w = &c->out->w;

	if (p->wall_offset_ns) {
		gs_outbuf_puts(w, ",\n\"baseTimeNanoseconds\":");
		gs_outbuf_i64(w, p->wall_offset_ns);
	}
	gs_outbuf_puts(w, ",\n\"gpuscope_clock\":");
	gs_outbuf_json_str(w, gs_clock_source_name(p->clock), 0);
}

/* ,"key": */
static void put_key(struct gs_outbuf *w, const char *k)
{
	gs_outbuf_puts(w, ",\"");
	gs_outbuf_puts(w, k);
	gs_outbuf_puts(w, "\":");
}

/* A string of the rank's trace under `key`, when it has one. */
static void put_str_id(const struct xplan *c, struct gs_outbuf *w, const char *k, uint32_t id)
{
	if (id == GS_NO_STRING)
		return;
	put_key(w, k);
	gs_outbuf_json_str(w, gs_trace_string(c->t, id), 0);
}

/* An int64 as decimal text in a string: exact for readers that hold JSON
 * numbers as doubles (wall clocks are about 1.7e18 ns, past 2^53). */
static void put_i64_text(struct gs_outbuf *w, const char *k, int64_t v)
{
	put_key(w, k);
	gs_outbuf_putc(w, '"');
	gs_outbuf_i64(w, v);
	gs_outbuf_putc(w, '"');
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
static void write_job_marker(struct xplan *cs, size_t n, int64_t stride)
{
	struct gs_outbuf *w = &cs[0].out->w;

	gs_outbuf_puts(w, ",\n\"gpuscope_job\":{\"version\":1,\"pid_stride\":");
	gs_outbuf_i64(w, stride);
	gs_outbuf_puts(w, ",\"ranks\":[");
	for (size_t r = 0; r < n; r++) {
		const struct xplan *c = &cs[r];
		const struct gs_process *p = c->rproc;

		gs_outbuf_puts(w, r ? ",\n{\"rank\":" : "\n{\"rank\":");
		gs_outbuf_u64(w, c->rank->rank);
		put_key(w, "pid_base");
		gs_outbuf_i64(w, c->pid_base);
		put_key(w, "pid");
		gs_outbuf_i64(w, c->rank->pid >= 0 ? c->rank->pid : -1);
		if (c->rank->host && *c->rank->host) {
			put_key(w, "host");
			gs_outbuf_json_str(w, c->rank->host, 0);
		}
		if (c->rank->capture) {
			put_key(w, "capture");
			gs_outbuf_u64(w, c->rank->capture);
		}
		if (p) {
			put_str_id(c, w, "command_line", p->command_line);
			put_str_id(c, w, "cuda_driver_version", p->driver_version);
			put_str_id(c, w, "cuda_runtime_version", p->runtime_version);
			put_str_id(c, w, "cupti_version", p->cupti_version);
			if (p->world_size) {
				put_key(w, "world_size");
				gs_outbuf_u64(w, p->world_size);
			}
			if (p->has_backend)
				put_str_id(c, w, "backend", p->backend);
			if (p->clock) {
				put_key(w, "clock");
				gs_outbuf_json_str(w, gs_clock_source_name(p->clock), 0);
				put_i64_text(w, "wall_offset_ns", p->wall_offset_ns);
			}
			if (p->start_ns)
				put_i64_text(w, "start_ns", p->start_ns);
			if (p->dropped_records) {
				put_key(w, "dropped_records");
				gs_outbuf_u64(w, p->dropped_records);
			}
		}
		if (c->shift)
			put_i64_text(w, "time_shift_ns", c->shift);
		if (c->id_offset) {
			put_key(w, "id_offset");
			gs_outbuf_u64(w, c->id_offset);
		}
		gs_outbuf_putc(w, '}');
	}
	gs_outbuf_puts(w, "]}");
}

/*
 * The top level before the events, of `n` ranks (one: a trace on its
 * own): deviceProperties (header_devices), distributedInfo and the clock,
 * host_name (when every rank names the same host), the versions of the
 * first rank that has each and, for a job, gpuscope_job (pids from
 * `stride`).
 */
static void write_header(struct xplan *cs, size_t n, const struct dev_ref *devs, size_t n_devs,
			 int64_t stride)
{
	struct gs_outbuf *w = &cs[0].out->w;
	const char *host = NULL, *ver[3] = {NULL, NULL, NULL};
	static const char *const ver_keys[3] = {"cuda_driver_version", "cuda_runtime_version",
						"cupti_version"};
	bool one_host = true;
	size_t r, i;

	gs_outbuf_puts(w, "{\"schemaVersion\":1,\"displayTimeUnit\":\"ns\",\"deviceProperties\":[");
	for (i = 0; i < n_devs; i++) {
		size_t n_dt;
		const struct gs_device *dt = gs_trace_devices(cs[devs[i].rank].t, &n_dt);

		write_device(&cs[devs[i].rank], &dt[devs[i].idx], i == 0);
	}
	gs_outbuf_puts(w, "]");
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
		gs_outbuf_puts(w, ",\n\"host_name\":");
		gs_outbuf_json_str(w, host, 0);
	}
	for (i = 0; i < 3; i++) {
		if (!ver[i])
			continue;
		gs_outbuf_puts(w, ",\n\"");
		gs_outbuf_puts(w, ver_keys[i]);
		gs_outbuf_puts(w, "\":");
		version_value(&cs[0], ver[i]);
	}
	if (cs[0].flows->left) {
		gs_outbuf_puts(w, ",\n\"gpuscope_flows\":{\"dependency\":");
		gs_outbuf_u64(w, cs[0].flows->total);
		gs_outbuf_puts(w, ",\"written\":");
		gs_outbuf_u64(w, cs[0].flows->total - cs[0].flows->left);
		gs_outbuf_puts(w, ",\"left_out\":");
		gs_outbuf_u64(w, cs[0].flows->left);
		gs_outbuf_puts(w, ",\"max_flows\":");
		gs_outbuf_u64(w, cs[0].flows->max);
		gs_outbuf_puts(w, "}");
	}
	gs_outbuf_puts(w, ",\n\"traceEvents\":[");
}

static void chrome_write(struct xplan *c)
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

/* Chrome trace JSON of a planned export (gs_xp_job_init). */
static gs_status chrome_write_job(FILE *out, struct gs_xp_job *j, const struct gs_export_options *o)
{
	struct chrome_out w = {.first_event = true};
	struct dev_ref *devs = NULL;
	size_t n_devs = 0;
	gs_status rc;

	for (size_t r = 0; r < j->n; r++)
		j->cs[r].out = &w;
	rc = header_devices(j->cs, j->n, &devs, &n_devs);
	if (!rc)
		rc = gs_export_out_open(&w.w, out, o && o->gzip, o ? o->compression_level : 0);
	if (!rc) {
		write_header(j->cs, j->n, devs, n_devs, j->stride);
		for (size_t r = 0; r < j->n; r++)
			chrome_write(&j->cs[r]);
		gs_outbuf_puts(&w.w, "\n]}\n");
		rc = gs_export_out_finish(&w.w);
	}
	free(devs);
	return rc;
}

gs_status gs_export_chrome(FILE *out, const struct gs_trace *t, const struct gs_export_extras *x,
			   const struct gs_export_options *o)
{
	struct gs_export_rank r = {.trace = t, .extras = x, .pid = -1};

	if (!out || !t) {
		gs_error_append("gs_export_chrome: no %s", out ? "trace" : "output");
		return GS_ERR_INVALID;
	}
	return gs_export_chrome_job(out, &r, 1, o);
}

gs_status gs_export_chrome_job(FILE *out, const struct gs_export_rank *ranks, size_t n,
			       const struct gs_export_options *o)
{
	struct gs_xp_job j;
	gs_status rc;

	if (!out || !ranks || !n) {
		gs_error_append("gs_export_chrome_job: no %s", out ? "rank" : "output");
		return GS_ERR_INVALID;
	}
	rc = gs_xp_job_init(&j, ranks, n, o);
	if (!rc)
		rc = chrome_write_job(out, &j, o);
	gs_xp_job_fini(&j);
	return rc;
}
