/* SPDX-License-Identifier: MIT */
/*
 * Every record of a trace as one text line (`gpuscope dump`): the untimed
 * tables first, then all timed records merged in one total time order.
 */
#include <gpuscope/dump.h>
#include <gpuscope/names.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <stdlib.h>
#include <string.h>

#include <gpuscope/outbuf.h>

/* Record kinds of the timed part, in tie-break order. */
enum gs_dump_kind {
	GS_DUMP_OP,
	GS_DUMP_API,
	GS_DUMP_SYNC,
	GS_DUMP_EVENT_RECORD,
	GS_DUMP_ALLOCATION,
	GS_DUMP_RANGE,
	GS_DUMP_OVERHEAD,
};

struct gs_dump_key {
	int64_t time;
	int64_t end;
	uint64_t corr;
	uint32_t index;
	uint8_t kind;
};

/* The trace's tables, fetched once. */
struct gs_dump_ctx {
	const struct gs_trace *t;
	const struct gs_stream *streams;
	size_t nstreams;
	const struct gs_op *ops;
	const struct gs_api_call *calls;
	const struct gs_sync *syncs;
	const struct gs_event_record *evrecs;
	const struct gs_allocation *allocs;
	const struct gs_range *ranges;
	const struct gs_overhead *overheads;
	size_t nops, ncalls, nsyncs, nevrecs, nallocs, nranges, noverheads;
	bool multi_pid; /* streams of several processes: ops say whose */
};

static int gs_cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int gs_cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int gs_cmp_str(const struct gs_dump_ctx *c, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	return strcmp(gs_trace_string(c->t, a), gs_trace_string(c->t, b));
}

/* Streams by what they are, not by their index in one particular table. */
static int gs_cmp_stream(const struct gs_dump_ctx *c, uint32_t a, uint32_t b)
{
	const struct gs_stream *x, *y;
	int r;

	if (a == b)
		return 0;
	if (a >= c->nstreams || b >= c->nstreams)
		return gs_cmp_u64(a, b);
	x = &c->streams[a];
	y = &c->streams[b];
	if ((r = gs_cmp_i64(x->pid, y->pid)) || (r = gs_cmp_u64(x->device, y->device)) ||
	    (r = gs_cmp_u64(x->context, y->context)))
		return r;
	return gs_cmp_u64(x->stream_id, y->stream_id);
}

/* Content of two records of the same kind whose keys are equal. */
static int gs_cmp_content(const struct gs_dump_ctx *c, const struct gs_dump_key *a,
			  const struct gs_dump_key *b)
{
	uint32_t i = a->index, j = b->index;
	int r = 0;

	switch (a->kind) {
	case GS_DUMP_OP:
		if ((r = gs_cmp_stream(c, c->ops[i].stream, c->ops[j].stream)))
			return r;
		return gs_cmp_str(c, c->ops[i].name, c->ops[j].name);
	case GS_DUMP_API:
		if ((r = gs_cmp_i64(c->calls[i].pid, c->calls[j].pid)) ||
		    (r = gs_cmp_i64(c->calls[i].tid, c->calls[j].tid)))
			return r;
		return gs_cmp_str(c, c->calls[i].name, c->calls[j].name);
	case GS_DUMP_SYNC:
		if ((r = gs_cmp_i64(c->syncs[i].pid, c->syncs[j].pid)) ||
		    (r = gs_cmp_i64(c->syncs[i].tid, c->syncs[j].tid)) ||
		    (r = gs_cmp_u64(c->syncs[i].kind, c->syncs[j].kind)))
			return r;
		return gs_cmp_stream(c, c->syncs[i].stream, c->syncs[j].stream);
	case GS_DUMP_EVENT_RECORD:
		if ((r = gs_cmp_stream(c, c->evrecs[i].stream, c->evrecs[j].stream)))
			return r;
		return gs_cmp_u64(c->evrecs[i].event_id, c->evrecs[j].event_id);
	case GS_DUMP_ALLOCATION:
		return gs_cmp_u64(c->allocs[i].address, c->allocs[j].address);
	case GS_DUMP_RANGE:
		if ((r = gs_cmp_i64(c->ranges[i].pid, c->ranges[j].pid)) ||
		    (r = gs_cmp_i64(c->ranges[i].tid, c->ranges[j].tid)) ||
		    (r = gs_cmp_u64(c->ranges[i].kind, c->ranges[j].kind)))
			return r;
		return gs_cmp_str(c, c->ranges[i].name, c->ranges[j].name);
	case GS_DUMP_OVERHEAD:
		if ((r = gs_cmp_i64(c->overheads[i].pid, c->overheads[j].pid)))
			return r;
		return gs_cmp_str(c, c->overheads[i].kind, c->overheads[j].kind);
	default:
		return 0;
	}
}

static int gs_dump_key_cmp(const struct gs_dump_ctx *c, const struct gs_dump_key *a,
			   const struct gs_dump_key *b)
{
	int r;

	if ((r = gs_cmp_i64(a->time, b->time)) || (r = gs_cmp_u64(a->kind, b->kind)) ||
	    (r = gs_cmp_i64(a->end, b->end)) || (r = gs_cmp_u64(a->corr, b->corr)) ||
	    (r = gs_cmp_content(c, a, b)))
		return r;
	return gs_cmp_u64(a->index, b->index);
}

/*
 * Bottom-up merge sort (qsort has no context argument in C11, and a total
 * order makes stability moot, but this keeps the comparator reentrant).
 */
static void gs_dump_sort(const struct gs_dump_ctx *c, struct gs_dump_key *a,
			 struct gs_dump_key *tmp, size_t n)
{
	struct gs_dump_key *src = a, *dst = tmp, *swap;
	size_t width, lo;

	for (width = 1; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi) {
				/* Take the right run only when strictly smaller: stable. */
				if (gs_dump_key_cmp(c, &src[j], &src[i]) < 0)
					dst[k++] = src[j++];
				else
					dst[k++] = src[i++];
			}
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

static void gs_dump_ctx_init(struct gs_dump_ctx *c, const struct gs_trace *t)
{
	size_t nprocs, i;

	memset(c, 0, sizeof(*c));
	c->t = t;
	c->streams = gs_trace_streams(t, &c->nstreams);
	c->ops = gs_trace_ops(t, &c->nops);
	c->calls = gs_trace_api_calls(t, &c->ncalls);
	c->syncs = gs_trace_syncs(t, &c->nsyncs);
	c->evrecs = gs_trace_event_records(t, &c->nevrecs);
	c->allocs = gs_trace_allocations(t, &c->nallocs);
	c->ranges = gs_trace_ranges(t, &c->nranges);
	c->overheads = gs_trace_overheads(t, &c->noverheads);

	gs_trace_processes(t, &nprocs);
	c->multi_pid = nprocs > 1;
	for (i = 1; i < c->nstreams && !c->multi_pid; i++)
		c->multi_pid = c->streams[i].pid != c->streams[0].pid;
}

static gs_status gs_dump_keys(const struct gs_dump_ctx *c, struct gs_dump_key **out, size_t *count)
{
	const size_t counts[] = {c->nops,    c->ncalls,  c->nsyncs,    c->nevrecs,
				 c->nallocs, c->nranges, c->noverheads};
	struct gs_dump_key *keys;
	size_t n = 0, k = 0, i;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (counts[i] > UINT32_MAX || n > SIZE_MAX / (2 * sizeof(*keys)) - counts[i]) {
			gs_error_append("dump: too many records (%zu)", counts[i]);
			return GS_ERR_LIMIT;
		}
		n += counts[i];
	}
	keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!keys) {
		gs_error_append("dump: out of memory for %zu records", n);
		return GS_ERR_NOMEM;
	}
#define GS_KEY(kind_, i_, t_, e_, corr_)                                                           \
	keys[k++] = (struct gs_dump_key)                                                           \
	{                                                                                          \
		.time = (t_), .end = (e_), .corr = (corr_), .index = (uint32_t)(i_),               \
		.kind = (kind_)                                                                    \
	}
	for (i = 0; i < c->nops; i++)
		GS_KEY(GS_DUMP_OP, i, c->ops[i].start_ns, c->ops[i].end_ns, c->ops[i].correlation);
	for (i = 0; i < c->ncalls; i++)
		GS_KEY(GS_DUMP_API, i, c->calls[i].start_ns, c->calls[i].end_ns,
		       c->calls[i].correlation);
	for (i = 0; i < c->nsyncs; i++)
		GS_KEY(GS_DUMP_SYNC, i, c->syncs[i].start_ns, c->syncs[i].end_ns,
		       c->syncs[i].correlation);
	for (i = 0; i < c->nevrecs; i++)
		GS_KEY(GS_DUMP_EVENT_RECORD, i, c->evrecs[i].time_ns, c->evrecs[i].time_ns,
		       c->evrecs[i].correlation);
	for (i = 0; i < c->nallocs; i++)
		GS_KEY(GS_DUMP_ALLOCATION, i, c->allocs[i].alloc_ns, c->allocs[i].free_ns, 0);
	for (i = 0; i < c->nranges; i++)
		GS_KEY(GS_DUMP_RANGE, i, c->ranges[i].start_ns, c->ranges[i].end_ns,
		       c->ranges[i].external_id);
	for (i = 0; i < c->noverheads; i++)
		GS_KEY(GS_DUMP_OVERHEAD, i, c->overheads[i].start_ns, c->overheads[i].end_ns, 0);
#undef GS_KEY
	*out = keys;
	*count = n;
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* Lines                                                                     */
/* ------------------------------------------------------------------------ */

static void gs_dump_str(struct gs_outbuf *o, const struct gs_dump_ctx *c, const char *key,
			uint32_t id)
{
	gs_outbuf_printf(o, " %s=", key);
	gs_outbuf_quoted(o, gs_trace_string(c->t, id));
}

/* " dev=D stream=S" for a stream index; '-' for what is not known. */
static void gs_dump_stream(struct gs_outbuf *o, const struct gs_dump_ctx *c, uint32_t s,
			   bool with_pid)
{
	const struct gs_stream *st;

	if (s == GS_NO_INDEX || s >= c->nstreams) {
		if (with_pid)
			gs_outbuf_puts(o, " pid=-");
		gs_outbuf_puts(o, " dev=- stream=-");
		return;
	}
	st = &c->streams[s];
	if (with_pid)
		gs_outbuf_printf(o, " pid=%lld", (long long)st->pid);
	gs_outbuf_printf(o, " dev=%u stream=%llu", st->device, (unsigned long long)st->stream_id);
}

static void gs_dump_dur(struct gs_outbuf *o, int64_t start, int64_t end)
{
	/* Computed unsigned: a hostile pair cannot overflow. */
	gs_outbuf_printf(o, " dur=%lld", (long long)((uint64_t)end - (uint64_t)start));
}

static void gs_dump_op_flags(struct gs_outbuf *o, unsigned flags)
{
	static const char *const names[] = {"async", "graph", "device_launched"};
	const char *sep = " flags=";
	unsigned b;

	for (b = 0; b < sizeof(names) / sizeof(names[0]); b++) {
		if (flags & (1u << b)) {
			gs_outbuf_printf(o, "%s%s", sep, names[b]);
			sep = ",";
		}
	}
	if (flags >> b)
		gs_outbuf_printf(o, "%s0x%x", sep, flags & ~((1u << b) - 1));
}

/* The collective a communication kernel runs, when the trace says. */
static void gs_dump_collective(struct gs_outbuf *o, const struct gs_dump_ctx *c,
			       const struct gs_op *op)
{
	const struct gs_collective *k = gs_trace_op_collective(c->t, op);

	if (!k)
		return;
	gs_dump_str(o, c, "collective", k->name);
	gs_dump_str(o, c, "group", k->group);
	gs_dump_str(o, c, "group_desc", k->group_desc);
	gs_dump_str(o, c, "group_ranks", k->group_ranks);
	gs_outbuf_printf(o, " group_size=%u", k->group_size);
	gs_dump_str(o, c, "dtype", k->dtype);
	if (k->has_nelems)
		gs_outbuf_printf(o, " in_nelems=%llu out_nelems=%llu",
				 (unsigned long long)k->in_nelems,
				 (unsigned long long)k->out_nelems);
	else
		gs_outbuf_puts(o, " in_nelems=- out_nelems=-");
	if (k->has_seq)
		gs_outbuf_printf(o, " seq=%llu", (unsigned long long)k->seq);
}

static void gs_dump_op(struct gs_outbuf *o, const struct gs_dump_ctx *c, const struct gs_op *op)
{
	gs_outbuf_printf(o, "%lld %s", (long long)op->start_ns, gs_op_kind_name(op->kind));
	gs_dump_stream(o, c, op->stream, c->multi_pid);
	gs_dump_dur(o, op->start_ns, op->end_ns);
	gs_outbuf_printf(o, " corr=%llu", (unsigned long long)op->correlation);
	switch (op->kind) {
	case GS_OP_KERNEL: {
		static const struct gs_launch_cfg none;
		const struct gs_launch_cfg *lc = gs_trace_op_launch_cfg(c->t, op);

		if (!lc)
			lc = &none;
		gs_outbuf_printf(o, " grid=%u,%u,%u block=%u,%u,%u smem=%u regs=%u", lc->grid[0],
				 lc->grid[1], lc->grid[2], lc->block[0], lc->block[1], lc->block[2],
				 lc->shared_mem, lc->registers);
		if (lc->graph_id || op->graph_node)
			gs_outbuf_printf(o, " graph=%llu node=%llu",
					 (unsigned long long)lc->graph_id,
					 (unsigned long long)op->graph_node);
		break;
	}
	case GS_OP_MEMCPY:
		gs_outbuf_printf(o, " bytes=%llu dir=%s src=%s dst=%s",
				 (unsigned long long)op->bytes, gs_copy_kind_name(op->copy_kind),
				 gs_mem_kind_name(op->src_mem), gs_mem_kind_name(op->dst_mem));
		break;
	default:
		gs_outbuf_printf(o, " bytes=%llu dst=%s", (unsigned long long)op->bytes,
				 gs_mem_kind_name(op->dst_mem));
		break;
	}
	gs_dump_op_flags(o, op->flags);
	gs_dump_collective(o, c, op);
	gs_dump_str(o, c, "name", op->name);
}

static void gs_dump_api(struct gs_outbuf *o, const struct gs_dump_ctx *c,
			const struct gs_api_call *a)
{
	gs_outbuf_printf(o, "%lld api kind=%s pid=%lld tid=%lld", (long long)a->start_ns,
			 gs_api_kind_name(a->kind), (long long)a->pid, (long long)a->tid);
	gs_dump_dur(o, a->start_ns, a->end_ns);
	gs_outbuf_printf(o, " corr=%llu cbid=%u ret=%d", (unsigned long long)a->correlation,
			 a->cbid, a->return_value);
	gs_dump_str(o, c, "name", a->name);
}

static void gs_dump_sync(struct gs_outbuf *o, const struct gs_dump_ctx *c, const struct gs_sync *y)
{
	gs_outbuf_printf(o, "%lld sync kind=%s pid=%lld tid=%lld", (long long)y->start_ns,
			 gs_sync_kind_name(y->kind), (long long)y->pid, (long long)y->tid);
	gs_dump_dur(o, y->start_ns, y->end_ns);
	gs_outbuf_printf(o, " corr=%llu dev=%u", (unsigned long long)y->correlation, y->device);
	if (y->stream == GS_NO_INDEX || y->stream >= c->nstreams)
		gs_outbuf_puts(o, " stream=-");
	else
		gs_outbuf_printf(o, " stream=%llu",
				 (unsigned long long)c->streams[y->stream].stream_id);
	if (y->wait_on_stream == GS_NO_INDEX || y->wait_on_stream >= c->nstreams)
		gs_outbuf_puts(o, " wait_on_stream=-");
	else
		gs_outbuf_printf(o, " wait_on_stream=%llu",
				 (unsigned long long)c->streams[y->wait_on_stream].stream_id);
	gs_outbuf_printf(o, " event=%llu sync_id=%llu event_corr=%llu",
			 (unsigned long long)y->event_id, (unsigned long long)y->sync_id,
			 (unsigned long long)y->event_correlation);
}

static void gs_dump_event_record(struct gs_outbuf *o, const struct gs_dump_ctx *c,
				 const struct gs_event_record *e)
{
	gs_outbuf_printf(o, "%lld event_record", (long long)e->time_ns);
	gs_dump_stream(o, c, e->stream, c->multi_pid);
	gs_outbuf_printf(o, " corr=%llu event=%llu sync_id=%llu",
			 (unsigned long long)e->correlation, (unsigned long long)e->event_id,
			 (unsigned long long)e->sync_id);
}

static void gs_dump_allocation(struct gs_outbuf *o, const struct gs_allocation *a)
{
	gs_outbuf_printf(o, "%lld allocation pid=%lld dev=%u addr=0x%llx bytes=%llu kind=%s",
			 (long long)a->alloc_ns, (long long)a->pid, a->device,
			 (unsigned long long)a->address, (unsigned long long)a->bytes,
			 gs_mem_kind_name(a->mem_kind));
	if (a->free_ns)
		gs_outbuf_printf(o, " free=%lld", (long long)a->free_ns);
	else
		gs_outbuf_puts(o, " free=-");
}

static void gs_dump_range(struct gs_outbuf *o, const struct gs_dump_ctx *c,
			  const struct gs_range *r)
{
	gs_outbuf_printf(o, "%lld range kind=%s pid=%lld tid=%lld", (long long)r->start_ns,
			 gs_range_kind_name(r->kind), (long long)r->pid, (long long)r->tid);
	gs_dump_dur(o, r->start_ns, r->end_ns);
	if (r->kind == GS_RANGE_GPU_ANNOTATION)
		gs_outbuf_printf(o, " stream=%u", r->stream);
	gs_outbuf_printf(o, " ext=%llu", (unsigned long long)r->external_id);
	if (r->domain != GS_NO_STRING)
		gs_dump_str(o, c, "domain", r->domain);
	gs_dump_str(o, c, "name", r->name);
}

static void gs_dump_overhead(struct gs_outbuf *o, const struct gs_dump_ctx *c,
			     const struct gs_overhead *v)
{
	gs_outbuf_printf(o, "%lld overhead pid=%lld", (long long)v->start_ns, (long long)v->pid);
	gs_dump_dur(o, v->start_ns, v->end_ns);
	gs_dump_str(o, c, "kind", v->kind);
}

static void gs_dump_line(struct gs_outbuf *o, const struct gs_dump_ctx *c,
			 const struct gs_dump_key *k)
{
	switch (k->kind) {
	case GS_DUMP_OP:
		gs_dump_op(o, c, &c->ops[k->index]);
		break;
	case GS_DUMP_API:
		gs_dump_api(o, c, &c->calls[k->index]);
		break;
	case GS_DUMP_SYNC:
		gs_dump_sync(o, c, &c->syncs[k->index]);
		break;
	case GS_DUMP_EVENT_RECORD:
		gs_dump_event_record(o, c, &c->evrecs[k->index]);
		break;
	case GS_DUMP_ALLOCATION:
		gs_dump_allocation(o, &c->allocs[k->index]);
		break;
	case GS_DUMP_RANGE:
		gs_dump_range(o, c, &c->ranges[k->index]);
		break;
	default:
		gs_dump_overhead(o, c, &c->overheads[k->index]);
		break;
	}
	gs_outbuf_putc(o, '\n');
}

static void gs_dump_tables(struct gs_outbuf *o, const struct gs_dump_ctx *c)
{
	const struct gs_process *p;
	const struct gs_device *d;
	size_t n, i;

	p = gs_trace_processes(c->t, &n);
	for (i = 0; i < n; i++) {
		gs_outbuf_printf(o, "process pid=%lld", (long long)p[i].pid);
		gs_dump_str(o, c, "host", p[i].host_name);
		gs_dump_str(o, c, "cmd", p[i].command_line);
		gs_dump_str(o, c, "driver", p[i].driver_version);
		gs_dump_str(o, c, "runtime", p[i].runtime_version);
		gs_dump_str(o, c, "cupti", p[i].cupti_version);
		gs_outbuf_printf(o, " start=%lld dropped=%llu", (long long)p[i].start_ns,
				 (unsigned long long)p[i].dropped_records);
		if (p[i].has_rank)
			gs_outbuf_printf(o, " rank=%u", p[i].rank);
		else
			gs_outbuf_puts(o, " rank=-");
		if (p[i].world_size)
			gs_outbuf_printf(o, " world_size=%u", p[i].world_size);
		else
			gs_outbuf_puts(o, " world_size=-");
		if (p[i].has_backend)
			gs_dump_str(o, c, "backend", p[i].backend);
		gs_outbuf_printf(o, " clock=%s wall_offset=%lld\n",
				 gs_clock_source_name(p[i].clock), (long long)p[i].wall_offset_ns);
	}
	d = gs_trace_devices(c->t, &n);
	for (i = 0; i < n; i++) {
		gs_outbuf_printf(o, "device id=%u", d[i].id);
		gs_dump_str(o, c, "name", d[i].name);
		gs_dump_str(o, c, "uuid", d[i].uuid);
		gs_outbuf_printf(o, " sms=%u cc=%u.%u memory=%llu copy_engines=%u\n", d[i].sm_count,
				 d[i].cc_major, d[i].cc_minor,
				 (unsigned long long)d[i].memory_bytes, d[i].copy_engines);
	}
	for (i = 0; i < c->nstreams; i++) {
		const struct gs_stream *s = &c->streams[i];

		gs_outbuf_printf(o,
				 "stream index=%zu pid=%lld dev=%u ctx=%u id=%llu kind=%s "
				 "priority=%d\n",
				 i, (long long)s->pid, s->device, s->context,
				 (unsigned long long)s->stream_id, gs_stream_kind_name(s->kind),
				 s->priority);
	}
}

gs_status gs_dump_write(FILE *f, const struct gs_trace *t, size_t limit)
{
	struct gs_dump_ctx c;
	struct gs_dump_key *keys = NULL, *tmp = NULL;
	struct gs_outbuf o;
	size_t n = 0, i;
	gs_status st;

	if (!f || !t) {
		gs_error_append("gs_dump_write: no output or no trace");
		return GS_ERR_INVALID;
	}
	gs_dump_ctx_init(&c, t);
	st = gs_dump_keys(&c, &keys, &n);
	if (st != GS_OK)
		goto out;
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!tmp) {
		gs_error_append("dump: out of memory for %zu records", n);
		st = GS_ERR_NOMEM;
		goto out;
	}
	gs_dump_sort(&c, keys, tmp, n);
	free(tmp);
	tmp = NULL;

	gs_outbuf_init(&o, f);
	gs_dump_tables(&o, &c);
	if (limit && limit < n)
		n = limit;
	for (i = 0; i < n && !o.failed; i++)
		gs_dump_line(&o, &c, &keys[i]);
	st = gs_outbuf_finish(&o);
out:
	free(tmp);
	free(keys);
	return st;
}
