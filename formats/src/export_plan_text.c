/* SPDX-License-Identifier: MIT */
/*
 * The export plan's text (export_plan.h): what the writers write for each
 * record and track: event names and categories as the Kineto importer reads
 * them back, which ops, syncs and edges are written, args, and the names
 * of threads, lanes, streams and processes.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/names.h>

#include "copy_names.h"
#include "export_base.h"
#include "export_plan.h"

/* ------------------------------------------------------------------------ */
/* Names the Kineto importer reads back                                     */
/* ------------------------------------------------------------------------ */

static const char *const copy_dir_names[GS_COPY_KIND_COUNT] = {"",     "HtoD", "DtoH",
							       "DtoD", "HtoH", "PtoP"};
static const char *const mem_names[GS_MEM_KIND_COUNT] = {"Unknown", "Pageable", "Pinned",
							 "Device",  "Managed",  "Array"};

/* Kineto's memory kind names, as the importer reads them. */
static const char *mem_name(uint8_t k)
{
	return k < GS_MEM_KIND_COUNT ? mem_names[k] : "Unknown";
}

/*
 * The name an op is exported under: its own when the importer reads the
 * same direction and memory kinds back from it, else Kineto's
 * ("Memcpy HtoD (Pageable -> Device)", "Memset (Device)").
 */
const char *gs_xp_op_name(const struct xplan *c, const struct gs_op *op, char *buf, size_t size)
{
	const char *name = gs_trace_string(c->t, op->name);
	uint8_t ck, src, dst;

	if (op->kind == GS_OP_MEMCPY) {
		ck = src = dst = 0;
		gs_copy_name_parse(name, strlen(name), NULL, &ck, &src, &dst);
		if (ck == op->copy_kind && src == op->src_mem && dst == op->dst_mem)
			return name;
		if (op->copy_kind == GS_COPY_UNKNOWN || op->copy_kind >= GS_COPY_KIND_COUNT)
			return "Memcpy";
		snprintf(buf, size, "Memcpy %s (%s -> %s)", copy_dir_names[op->copy_kind],
			 mem_name(op->src_mem), mem_name(op->dst_mem));
		return buf;
	}
	if (op->kind == GS_OP_MEMSET) {
		if (gs_memset_name_parse(name, strlen(name)) == op->dst_mem)
			return name;
		if (op->dst_mem == GS_MEM_UNKNOWN)
			return "Memset";
		snprintf(buf, size, "Memset (%s)", mem_name(op->dst_mem));
		return buf;
	}
	return name;
}
const char *gs_xp_op_cat(uint8_t kind)
{
	return kind == GS_OP_KERNEL ? "kernel" : kind == GS_OP_MEMCPY ? "gpu_memcpy" : "gpu_memset";
}

const char *gs_xp_api_cat(const struct gs_api_call *k)
{
	return k->kind == GS_API_DRIVER ? "cuda_driver" : "cuda_runtime";
}

const char *gs_xp_range_cat(const struct gs_range *r)
{
	static const char *const cats[GS_RANGE_KIND_COUNT] = {"user_annotation", "cpu_op",
							      "user_annotation", "python_function",
							      "user_annotation"};

	return cats[r->kind < GS_RANGE_KIND_COUNT ? r->kind : GS_RANGE_OTHER];
}

/* Whether an op (a sync) is written: false for those of a device left
 * out (gs_export_options.has_device). */
bool gs_xp_op_kept(const struct xplan *c, size_t o)
{
	return c->cs[c->ops[o].stream].dev != NONE;
}

bool gs_xp_sync_kept(const struct xplan *c, size_t i)
{
	return gs_xp_find_dev(c, c->syncs[i].device) != NONE;
}

bool gs_xp_edge_written(const struct xplan *c, size_t e)
{
	const struct gs_export_edge *g = &c->x->edges[e];

	return e < c->flow_cut && g->from < c->n_ops && g->to < c->n_ops &&
	       gs_xp_op_kept(c, g->from) && gs_xp_op_kept(c, g->to);
}

const char *const gs_xp_key_names[XK_COUNT] = {
	[XK_DEVICE] = "device",
	[XK_CONTEXT] = "context",
	[XK_STREAM] = "stream",
	[XK_CORRELATION] = "correlation",
	[XK_REGISTERS] = "registers per thread",
	[XK_SHARED_MEM] = "shared memory",
	[XK_GRID] = "grid",
	[XK_BLOCK] = "block",
	[XK_GRAPH_ID] = "graph id",
	[XK_GRAPH_NODE] = "graph node id",
	[XK_BYTES] = "bytes",
	[XK_COPY_KIND] = "copy kind",
	[XK_SRC_MEM] = "src memory",
	[XK_DST_MEM] = "dst memory",
	[XK_MEMORY] = "memory",
	[XK_ASYNC] = "async",
	[XK_DEVICE_LAUNCHED] = "device launched",
	[XK_COLL_NAME] = "Collective name",
	[XK_PG_NAME] = "Process Group Name",
	[XK_PG_DESC] = "Process Group Description",
	[XK_PG_RANKS] = "Process Group Ranks",
	[XK_DTYPE] = "dtype",
	[XK_GROUP_SIZE] = "Group size",
	[XK_IN_NELEMS] = "In msg nelems",
	[XK_OUT_NELEMS] = "Out msg nelems",
	[XK_SEQ] = "Seq",
	[XK_SYNC_KIND] = "cuda_sync_kind",
	[XK_WAIT_STREAM] = "wait_on_stream",
	[XK_WAIT_EVENT_CORR] = "wait_on_cuda_event_record_corr_id",
	[XK_WAIT_EVENT_ID] = "wait_on_cuda_event_id",
	[XK_EVENT_SYNC_ID] = "event sync id",
	[XK_CBID] = "cbid",
	[XK_RETURN_VALUE] = "return value",
	[XK_EXTERNAL_ID] = "External id",
	[XK_NVTX] = "nvtx",
	[XK_DOMAIN] = "domain",
	[XK_DELAY_NS] = "delay_ns",
	[XK_BOUND_BY] = "bound by",
};

/* A communication kernel's collective as the PyTorch profiler writes it. */
static void collective_args(const struct xplan *c, const struct gs_collective *k,
			    const struct xargs *a)
{
	static const struct {
		enum xkey key;
		size_t off;
	} strs[] = {
		{XK_COLL_NAME, offsetof(struct gs_collective, name)},
		{XK_PG_NAME, offsetof(struct gs_collective, group)},
		{XK_PG_DESC, offsetof(struct gs_collective, group_desc)},
		{XK_PG_RANKS, offsetof(struct gs_collective, group_ranks)},
		{XK_DTYPE, offsetof(struct gs_collective, dtype)},
	};

	if (!k)
		return;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		uint32_t id = *(const uint32_t *)(const void *)((const char *)k + strs[i].off);

		if (id != GS_NO_STRING)
			a->str(a->ctx, strs[i].key, gs_trace_string(c->t, id));
	}
	if (k->group_size)
		a->u64(a->ctx, XK_GROUP_SIZE, k->group_size);
	if (k->has_nelems) {
		a->u64(a->ctx, XK_IN_NELEMS, k->in_nelems);
		a->u64(a->ctx, XK_OUT_NELEMS, k->out_nelems);
	}
	if (k->has_seq)
		a->u64(a->ctx, XK_SEQ, k->seq);
}

/* The model fields of an op as Kineto args (and a few of our own). */
void gs_xp_op_args(const struct xplan *c, const struct gs_op *op, const struct xargs *a)
{
	const struct gs_stream *st = &c->streams[op->stream];

	a->u64(a->ctx, XK_DEVICE, st->device);
	a->u64(a->ctx, XK_CONTEXT, st->context);
	a->u64(a->ctx, XK_STREAM, st->stream_id);
	a->u64(a->ctx, XK_CORRELATION, gs_xp_id(c, op->correlation));
	switch (op->kind) {
	case GS_OP_KERNEL: {
		static const struct gs_launch_cfg none;
		const struct gs_launch_cfg *lc = gs_trace_op_launch_cfg(c->t, op);

		if (!lc)
			lc = &none;
		a->u64(a->ctx, XK_REGISTERS, lc->registers);
		a->u64(a->ctx, XK_SHARED_MEM, lc->shared_mem);
		a->dim3(a->ctx, XK_GRID, lc->grid);
		a->dim3(a->ctx, XK_BLOCK, lc->block);
		if (lc->graph_id)
			a->u64(a->ctx, XK_GRAPH_ID, lc->graph_id);
		if (op->graph_node)
			a->u64(a->ctx, XK_GRAPH_NODE, op->graph_node);
		break;
	}
	case GS_OP_MEMCPY:
		a->u64(a->ctx, XK_BYTES, op->bytes);
		a->str(a->ctx, XK_COPY_KIND,
		       gs_copy_kind_name(op->copy_kind < GS_COPY_KIND_COUNT ? op->copy_kind : 0));
		a->str(a->ctx, XK_SRC_MEM, gs_mem_kind_name(op->src_mem));
		a->str(a->ctx, XK_DST_MEM, gs_mem_kind_name(op->dst_mem));
		break;
	default:
		a->u64(a->ctx, XK_BYTES, op->bytes);
		a->str(a->ctx, XK_MEMORY, gs_mem_kind_name(op->dst_mem));
		break;
	}
	if (op->flags & GS_OPF_ASYNC)
		a->i64(a->ctx, XK_ASYNC, 1);
	if (op->flags & GS_OPF_DEVICE_LAUNCHED)
		a->i64(a->ctx, XK_DEVICE_LAUNCHED, 1);
	collective_args(c, gs_trace_op_collective(c->t, op), a);
}

const char *gs_xp_sync_kind_text(uint8_t kind)
{
	static const char *const names[GS_SYNC_KIND_COUNT] = {
		"Unknown", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};

	return kind < GS_SYNC_KIND_COUNT ? names[kind] : "Unknown";
}

void gs_xp_sync_args(const struct xplan *c, uint32_t i, const struct xargs *a)
{
	const struct gs_sync *y = &c->syncs[i];
	uint32_t ctx_stream = y->stream < c->n_streams         ? y->stream :
			      y->wait_on_stream < c->n_streams ? y->wait_on_stream :
								 NONE;

	a->str(a->ctx, XK_SYNC_KIND, gs_xp_sync_kind_text(y->kind));
	a->u64(a->ctx, XK_DEVICE, y->device);
	if (ctx_stream != NONE)
		a->u64(a->ctx, XK_CONTEXT, c->streams[ctx_stream].context);
	if (y->stream < c->n_streams)
		a->u64(a->ctx, XK_STREAM, c->streams[y->stream].stream_id);
	a->u64(a->ctx, XK_CORRELATION, gs_xp_id(c, y->correlation));
	if (y->wait_on_stream < c->n_streams)
		a->u64(a->ctx, XK_WAIT_STREAM, c->streams[y->wait_on_stream].stream_id);
	if (y->event_correlation)
		a->u64(a->ctx, XK_WAIT_EVENT_CORR, gs_xp_id(c, y->event_correlation));
	if (y->event_id)
		a->u64(a->ctx, XK_WAIT_EVENT_ID, gs_xp_id(c, y->event_id));
	if (y->sync_id != GS_NO_SYNC_ID)
		a->u64(a->ctx, XK_EVENT_SYNC_ID, gs_xp_id(c, y->sync_id));
}

void gs_xp_api_args(const struct xplan *c, uint32_t i, const struct xargs *a)
{
	const struct gs_api_call *k = &c->api[i];

	a->u64(a->ctx, XK_CORRELATION, gs_xp_id(c, k->correlation));
	if (k->cbid)
		a->u64(a->ctx, XK_CBID, k->cbid);
	if (k->return_value)
		a->i64(a->ctx, XK_RETURN_VALUE, k->return_value);
}

void gs_xp_range_args(const struct xplan *c, uint32_t i, const struct xargs *a)
{
	const struct gs_range *r = &c->ranges[i];

	if (r->external_id)
		a->u64(a->ctx, XK_EXTERNAL_ID, gs_xp_id(c, r->external_id));
	if (r->kind == GS_RANGE_NVTX) {
		a->str(a->ctx, XK_NVTX, "range");
		if (r->domain != GS_NO_STRING)
			a->str(a->ctx, XK_DOMAIN, gs_trace_string(c->t, r->domain));
	}
}

void gs_xp_annotation_args(const struct xplan *c, uint32_t i, const struct xargs *a)
{
	const struct gs_range *r = &c->ranges[i];

	if (r->external_id)
		a->u64(a->ctx, XK_EXTERNAL_ID, gs_xp_id(c, r->external_id));
	a->u64(a->ctx, XK_DEVICE, gs_trace_stream_device(c->t, r->stream));
	a->u64(a->ctx, XK_CONTEXT, c->streams[r->stream].context);
	a->u64(a->ctx, XK_STREAM, c->streams[r->stream].stream_id);
}

void gs_xp_ideal_args(const struct xplan *c, uint32_t o, const struct xargs *a)
{
	const struct gs_export_extras *x = c->x;
	const struct gs_op *op = &c->ops[o];

	a->u64(a->ctx, XK_DEVICE, gs_trace_stream_device(c->t, op->stream));
	a->u64(a->ctx, XK_STREAM, c->streams[op->stream].stream_id);
	a->u64(a->ctx, XK_CORRELATION, gs_xp_id(c, op->correlation));
	a->i64(a->ctx, XK_DELAY_NS, op->start_ns - x->ideal_start[o]);
	if (x->ideal_bound && x->bound_names && x->ideal_bound[o] < x->n_bound_names &&
	    x->bound_names[x->ideal_bound[o]])
		a->str(a->ctx, XK_BOUND_BY, x->bound_names[x->ideal_bound[o]]);
}

/* ------------------------------------------------------------------------ */
/* Names                                                                    */
/* ------------------------------------------------------------------------ */

const char *gs_xp_stream_label(const struct xplan *c, uint32_t s, char *buf, size_t size)
{
	const struct gs_stream *st = &c->streams[s];

	if (c->cs[s].ambiguous)
		snprintf(buf, size, "stream %llu (pid %lld, context %u)",
			 (unsigned long long)st->stream_id, (long long)st->pid, st->context);
	else
		snprintf(buf, size, "stream %llu", (unsigned long long)st->stream_id);
	return buf;
}

void gs_xp_thread_name(char *buf, size_t size, int64_t tid, uint32_t k)
{
	if (k)
		snprintf(buf, size, "thread %lld: calls and ranges that do not nest (%u)",
			 (long long)tid, k);
	else
		snprintf(buf, size, "thread %lld", (long long)tid);
}

void gs_xp_overhead_name(char *buf, size_t size, uint32_t k)
{
	if (k)
		snprintf(buf, size, "profiler overhead (%u)", k + 1);
	else
		snprintf(buf, size, "profiler overhead");
}

void gs_xp_lane_name(char *buf, size_t size, const char *label, uint32_t k)
{
	if (k)
		snprintf(buf, size, "%s: overlapping ops (%u)", label, k);
	else
		snprintf(buf, size, "%s", label);
}

void gs_xp_sync_name(char *buf, size_t size, uint32_t k)
{
	if (k)
		snprintf(buf, size, "cuda_sync (%u)", k + 1);
	else
		snprintf(buf, size, "cuda_sync");
}

void gs_xp_annotation_name(char *buf, size_t size, uint32_t k)
{
	if (k)
		snprintf(buf, size, "gpu_user_annotation (%u)", k + 1);
	else
		snprintf(buf, size, "gpu_user_annotation");
}

/* "rank 3 · node7" (the host when known). */
static void rank_prefix(const struct xplan *c, char *buf, size_t size)
{
	if (c->rank->host && *c->rank->host)
		snprintf(buf, size, "rank %u" SEP "%s", c->rank->rank, c->rank->host);
	else
		snprintf(buf, size, "rank %u", c->rank->rank);
}

/*
 * A trace on its own: host processes keep their pids and names (the
 * command line), devices are "GPU N: name"; hosts sort first. A rank of a
 * job: every process named after its rank, host and pid; the sort index is
 * the pid (ranks in order, GPUs before the host).
 */
void gs_xp_host_names(const struct xplan *c, size_t i, struct xproc_names *n)
{
	const struct hproc *p = &c->hp[i];
	const char *cmd = p->proc != NONE ? gs_trace_string(c->t, c->procs[p->proc].command_line) :
					    NULL;
	bool gpu_pid = p->proc == NONE && p->pid >= 0 && p->pid <= UINT32_MAX &&
		       gs_xp_find_dev(c, (uint32_t)p->pid) != NONE;
	char prefix[192];

	n->name = n->buf;
	n->buf[0] = n->label[0] = '\0';
	n->pid = p->pid;
	n->device = -1;
	n->cmd = NULL;
	if (!c->rank) {
		n->sort = (int64_t)i;
		if (p->proc != NONE) {
			n->name = cmd;
			snprintf(n->label, sizeof(n->label), "CPU");
		} else if (!p->n_threads) {
			/* Only overheads (Kineto writes them under pid -1). */
			snprintf(n->buf, sizeof(n->buf), "profiler overhead");
		} else if (gpu_pid) {
			/* Host events under a device's pid and not a process of
			 * the trace: Kineto draws Python stacks there ("GPU N"). */
			snprintf(n->label, sizeof(n->label), "GPU %lld", (long long)p->pid);
		}
		return;
	}
	n->sort = p->cpid;
	rank_prefix(c, prefix, sizeof(prefix));
	if (p->proc == NONE && !p->n_threads) {
		snprintf(n->buf, sizeof(n->buf), "%s" SEP "profiler overhead", prefix);
		return;
	}
	n->cmd = cmd;
	snprintf(n->buf, sizeof(n->buf), "%s" SEP "pid %lld (host)", prefix, (long long)p->pid);
	if (gpu_pid)
		snprintf(n->label, sizeof(n->label), "GPU %lld, rank %u", (long long)p->pid,
			 c->rank->rank);
	else
		snprintf(n->label, sizeof(n->label), "CPU, rank %u, pid %lld", c->rank->rank,
			 (long long)p->pid);
}

static const char *dev_name(const struct xplan *c, const struct cdev *d)
{
	size_t n_dt;
	const struct gs_device *dt = gs_trace_devices(c->t, &n_dt);

	return d->dt != NONE ? gs_trace_string(c->t, dt[d->dt].name) : "";
}

void gs_xp_dev_names(const struct xplan *c, size_t i, struct xproc_names *n)
{
	const struct cdev *d = &c->devs[i];
	const char *dn = dev_name(c, d);
	int64_t pid = c->rank ? c->rank->pid : -1;
	char prefix[192], who[256];

	n->name = n->buf;
	n->cmd = NULL;
	n->device = d->id;
	n->pid = pid;
	if (!c->rank) {
		/* 320: the Chrome export's names as they always were */
		if (*dn)
			snprintf(n->buf, 320, "GPU %u: %s", d->id, dn);
		else
			snprintf(n->buf, 320, "GPU %u", d->id);
		snprintf(n->label, sizeof(n->label), "GPU %u", d->id);
		n->sort = (int64_t)(c->n_hp + 2 * i);
		return;
	}
	rank_prefix(c, prefix, sizeof(prefix));
	if (pid >= 0)
		snprintf(who, sizeof(who), "%s" SEP "pid %lld", prefix, (long long)pid);
	else
		snprintf(who, sizeof(who), "%s", prefix);
	snprintf(n->buf, sizeof(n->buf), "%s" SEP "GPU %u%s%s", who, d->id, *dn ? " " : "", dn);
	if (pid >= 0)
		snprintf(n->label, sizeof(n->label), "GPU %u, rank %u, pid %lld", d->id,
			 c->rank->rank, (long long)pid);
	else
		snprintf(n->label, sizeof(n->label), "GPU %u, rank %u", d->id, c->rank->rank);
	n->sort = d->pid;
}

void gs_xp_ideal_names(const struct xplan *c, size_t i, struct xproc_names *n)
{
	const struct cdev *d = &c->devs[i];

	n->name = n->buf;
	n->cmd = NULL;
	n->device = d->id;
	n->pid = c->rank ? c->rank->pid : -1;
	if (!c->rank) {
		snprintf(n->buf, sizeof(n->buf), "GPU %u ideal schedule", d->id);
		snprintf(n->label, sizeof(n->label), "GPU %u ideal", d->id);
		n->sort = (int64_t)(c->n_hp + 2 * i) + 1;
		return;
	}
	snprintf(n->buf, sizeof(n->buf), "rank %u" SEP "GPU %u ideal", c->rank->rank, d->id);
	snprintf(n->label, sizeof(n->label), "GPU %u ideal, rank %u", d->id, c->rank->rank);
	n->sort = d->ideal_pid;
}
