/* SPDX-License-Identifier: MIT */
/*
 * Nsight Systems importer (nsys.c): the GPU activity tables mapped to
 * records: kernels, memcpys and memsets as ops (joined to their API call
 * and context), synchronizations and CUDA event records.
 */
#include "nsys_priv.h"

#include <gpuscope/hash.h>
#include <gpuscope/u64map.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

NSYS_DEFINE_EMIT(sync, struct gs_sync)
NSYS_DEFINE_EMIT(event_record, struct gs_event_record)

/* ------------------------------------------------------------------------ */
/* GPU ops                                                                  */
/* ------------------------------------------------------------------------ */

/* The first seven fields of every op table. */
#define NSYS_OP_FIELDS                                                                             \
	"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid"

/*
 * The common part of an op row. *ok false when the row is dropped
 * (counted). *flags: what the launching call's name says.
 */
static gs_status nsys_op_common(struct nsys *n, sqlite3_stmt *st, struct gs_op *op, bool *ok,
				uint8_t *flags)
{
	int64_t start = 0, end = 0, dev = 0, ctx = 0, stream = 0, corr = 0, gpid = 0, pid, tid;
	bool hs = nsys_i64(st, 0, &start), he = nsys_i64(st, 1, &end);
	bool hd = nsys_i64(st, 2, &dev), hstr = nsys_i64(st, 4, &stream);
	bool hc = nsys_i64(st, 5, &corr) && corr > 0;
	gs_status rc;

	*ok = false;
	*flags = 0;
	if (!nsys_times_ok(n, hs, start, he, end))
		return GS_OK;
	if (!nsys_valid_id(hd, dev) || !nsys_valid_id(hstr, stream)) {
		nsys_warn(n, NW_NO_STREAM);
		return GS_OK;
	}
	nsys_i64(st, 3, &ctx);
	nsys_i64(st, 6, &gpid);
	pid = nsys_pid_of(gpid);
	memset(op, 0, sizeof(*op));
	op->start_ns = start;
	op->end_ns = end;
	op->correlation = hc ? (uint64_t)corr : 0;
	op->name = GS_NO_STRING;
	rc = nsys_stream(n, pid, dev, ctx, stream, &op->stream);
	if (!rc)
		rc = nsys_note_pid(n, pid);
	if (!rc)
		rc = gs_u64map_put(&n->dev_used, (uint64_t)dev, 1, false);
	if (!rc)
		rc = nsys_ctx_note(n, pid, ctx, dev);
	if (rc)
		return rc;
	nsys_call_info(n, pid, hc, corr, &tid, flags);
	*ok = true;
	return GS_OK;
}

gs_status nsys_kernels(struct nsys *n)
{
	static const char *const fields[] = {
		NSYS_OP_FIELDS,
		"demangledName",
		"shortName",
		"mangledName",
		"registersPerThread",
		"gridX",
		"gridY",
		"gridZ",
		"blockX",
		"blockY",
		"blockZ",
		"staticSharedMemory",
		"dynamicSharedMemory",
		"graphNodeId",
		"graphId",
	};
	struct nsys_query q;
	gs_status rc;
	bool row;

	rc = nsys_query_open(&n->in, &q, "CUPTI_ACTIVITY_KIND_KERNEL", fields,
			     NSYS_COUNT_OF(fields), NULL, NULL, 0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = nsys_step(&n->in, q.st, &row)) && row) {
		struct gs_op op;
		struct gs_launch_cfg lc = {0};
		uint8_t flags;
		bool ok;
		int64_t v, node = 0, graph = 0;

		rc = nsys_op_common(n, q.st, &op, &ok, &flags);
		if (rc)
			break;
		if (!ok)
			continue;
		op.kind = GS_OP_KERNEL;
		for (int c = 7; c <= 9 && op.name == GS_NO_STRING && !rc; c++)
			if (nsys_i64(q.st, c, &v))
				rc = nsys_string(n, v, false, &op.name, NULL);
		if (!rc && op.name == GS_NO_STRING) {
			if (n->unnamed_kernel == GS_NO_STRING)
				rc = nsys_intern_str(n, "(unnamed kernel)", &n->unnamed_kernel);
			op.name = n->unnamed_kernel;
		}
		if (rc)
			break;
		lc.registers = nsys_u32(nsys_i64_or(q.st, 10, 0));
		for (int i = 0; i < 3; i++) {
			lc.grid[i] = nsys_u32(nsys_i64_or(q.st, 11 + i, 0));
			lc.block[i] = nsys_u32(nsys_i64_or(q.st, 14 + i, 0));
		}
		{
			/* Static + dynamic shared memory, saturating (hostile rows). */
			int64_t smem;

			if (__builtin_add_overflow(nsys_i64_or(q.st, 17, 0),
						   nsys_i64_or(q.st, 18, 0), &smem))
				smem = INT64_MAX;
			lc.shared_mem = nsys_u32(smem);
		}
		nsys_i64(q.st, 19, &node);
		nsys_i64(q.st, 20, &graph);
		op.graph_node = nsys_u64(node);
		lc.graph_id = nsys_u64(graph);
		if (node > 0 || graph > 0 || (flags & NF_GRAPH))
			op.flags |= GS_OPF_GRAPH;
		rc = nsys_emit_op(n, &op, &lc);
		if (rc)
			break;
	}
	nsys_query_close(&q);
	return rc;
}

static const char *nsys_copy_word(unsigned k)
{
	static const char *const w[GS_COPY_KIND_COUNT] = {"",     "HtoD", "DtoH",
							  "DtoD", "HtoH", "PtoP"};
	return k < GS_COPY_KIND_COUNT ? w[k] : "";
}

static const char *nsys_mem_word(unsigned k)
{
	static const char *const w[GS_MEM_KIND_COUNT] = {"Unknown", "Pageable", "Pinned",
							 "Device",  "Managed",  "Array"};
	return k < GS_MEM_KIND_COUNT ? w[k] : "Unknown";
}

/* "Memcpy HtoD (Pageable -> Device)", as Kineto and the collector name
 * copies. */
static gs_status nsys_copy_name(struct nsys *n, const struct gs_op *op, uint32_t *id)
{
	uint32_t *slot = &n->copy_names[op->copy_kind][op->src_mem][op->dst_mem];
	char buf[96];

	if (*slot == GS_NO_STRING) {
		gs_status rc;

		if (op->copy_kind == GS_COPY_UNKNOWN)
			snprintf(buf, sizeof(buf), "Memcpy (%s -> %s)", nsys_mem_word(op->src_mem),
				 nsys_mem_word(op->dst_mem));
		else
			snprintf(buf, sizeof(buf), "Memcpy %s (%s -> %s)",
				 nsys_copy_word(op->copy_kind), nsys_mem_word(op->src_mem),
				 nsys_mem_word(op->dst_mem));
		rc = nsys_intern_str(n, buf, slot);
		if (rc)
			return rc;
	}
	*id = *slot;
	return GS_OK;
}

gs_status nsys_memcpys(struct nsys *n)
{
	static const char *const fields[] = {NSYS_OP_FIELDS, "bytes",   "copyKind",
					     "srcKind",      "dstKind", "graphNodeId"};
	struct nsys_query q;
	gs_status rc;
	bool row;

	rc = nsys_query_open(&n->in, &q, "CUPTI_ACTIVITY_KIND_MEMCPY", fields,
			     NSYS_COUNT_OF(fields), NULL, NULL, 0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = nsys_step(&n->in, q.st, &row)) && row) {
		struct gs_op op;
		uint8_t flags, ck;
		int64_t node = 0;
		bool ok;

		rc = nsys_op_common(n, q.st, &op, &ok, &flags);
		if (rc)
			break;
		if (!ok)
			continue;
		op.kind = GS_OP_MEMCPY;
		op.bytes = nsys_u64(nsys_i64_or(q.st, 7, 0));
		ck = nsys_enum(n->copy_map, q.st, 8, GS_COPY_UNKNOWN);
		op.copy_kind = NSYS_CK_KIND(ck) < GS_COPY_KIND_COUNT ? NSYS_CK_KIND(ck) : 0;
		op.src_mem = nsys_enum(n->mem_map, q.st, 9, GS_MEM_UNKNOWN);
		op.dst_mem = nsys_enum(n->mem_map, q.st, 10, GS_MEM_UNKNOWN);
		if ((ck & NSYS_CK_SRC_ARRAY) && op.src_mem == GS_MEM_UNKNOWN)
			op.src_mem = GS_MEM_ARRAY;
		if ((ck & NSYS_CK_DST_ARRAY) && op.dst_mem == GS_MEM_UNKNOWN)
			op.dst_mem = GS_MEM_ARRAY;
		if (nsys_i64(q.st, 11, &node) && node > 0) {
			op.graph_node = (uint64_t)node;
			op.flags |= GS_OPF_GRAPH;
		}
		if (flags & NF_ASYNC)
			op.flags |= GS_OPF_ASYNC;
		if (flags & NF_GRAPH)
			op.flags |= GS_OPF_GRAPH;
		rc = nsys_copy_name(n, &op, &op.name);
		if (!rc)
			rc = nsys_emit_op(n, &op, NULL);
		if (rc)
			break;
	}
	nsys_query_close(&q);
	return rc;
}

gs_status nsys_memsets(struct nsys *n)
{
	static const char *const fields[] = {NSYS_OP_FIELDS, "bytes", "memKind", "graphNodeId"};
	struct nsys_query q;
	gs_status rc;
	bool row;

	rc = nsys_query_open(&n->in, &q, "CUPTI_ACTIVITY_KIND_MEMSET", fields,
			     NSYS_COUNT_OF(fields), NULL, NULL, 0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = nsys_step(&n->in, q.st, &row)) && row) {
		struct gs_op op;
		uint8_t flags;
		int64_t node = 0;
		bool ok;

		rc = nsys_op_common(n, q.st, &op, &ok, &flags);
		if (rc)
			break;
		if (!ok)
			continue;
		op.kind = GS_OP_MEMSET;
		op.bytes = nsys_u64(nsys_i64_or(q.st, 7, 0));
		op.dst_mem = nsys_enum(n->mem_map, q.st, 8, GS_MEM_UNKNOWN);
		if (nsys_i64(q.st, 9, &node) && node > 0) {
			op.graph_node = (uint64_t)node;
			op.flags |= GS_OPF_GRAPH;
		}
		if (flags & NF_ASYNC)
			op.flags |= GS_OPF_ASYNC;
		if (flags & NF_GRAPH)
			op.flags |= GS_OPF_GRAPH;
		if (n->memset_names[op.dst_mem] == GS_NO_STRING) {
			char buf[48];

			snprintf(buf, sizeof(buf), "Memset (%s)", nsys_mem_word(op.dst_mem));
			rc = nsys_intern_str(n, buf, &n->memset_names[op.dst_mem]);
			if (rc)
				break;
		}
		op.name = n->memset_names[op.dst_mem];
		rc = nsys_emit_op(n, &op, NULL);
		if (rc)
			break;
	}
	nsys_query_close(&q);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Syncs and event records                                                  */
/* ------------------------------------------------------------------------ */

#define NSYS_SYNC_TABLE "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
#define NSYS_EVENT_TABLE "CUPTI_ACTIVITY_KIND_CUDA_EVENT"

static gs_status nsys_event_row(struct nsys *n, sqlite3_stmt *st)
{
	int64_t dev = 0, ctx = 0, stream = 0, corr = 0, gpid = 0, ev = 0, sync = 0, start, pid;
	bool hd = nsys_i64(st, 0, &dev), hstr = nsys_i64(st, 2, &stream);
	bool hc = nsys_i64(st, 3, &corr) && corr > 0, hev = nsys_i64(st, 5, &ev);
	struct gs_event_record r = {.stream = GS_NO_INDEX};
	uint64_t v;
	gs_status rc;

	n->in.table = NSYS_EVENT_TABLE;
	nsys_i64(st, 1, &ctx);
	nsys_i64(st, 4, &gpid);
	pid = nsys_pid_of(gpid);
	if (nsys_ctx_device(n, pid, ctx, hd, dev, &dev) && nsys_valid_id(hstr, stream)) {
		rc = nsys_stream(n, pid, dev, ctx, stream, &r.stream);
		if (rc)
			return rc;
	}
	r.correlation = hc ? (uint64_t)corr : 0;
	hev = nsys_valid_id(hev, ev);
	r.event_id = hev ? (uint64_t)ev : 0;
	r.sync_id = nsys_i64(st, 6, &sync) ? nsys_u64(sync) : GS_NO_SYNC_ID;
	if (nsys_i64(st, 7, &start))
		r.time_ns = start;
	else if (hc && gs_u64map_get(&n->evrec, nsys_call_key(pid, corr), &v))
		r.time_ns = (int64_t)v;
	rc = nsys_emit_event_record(n, &r);
	if (!rc)
		rc = nsys_note_pid(n, pid);
	if (!rc && hev) {
		struct nsys_key k = {pid, ev, 0, 0};

		rc = nsys_kmap_put(&n->events, &k, r.correlation, r.stream);
	}
	return rc;
}

static gs_status nsys_sync_row(struct nsys *n, sqlite3_stmt *st)
{
	int64_t start = 0, end = 0, dev = 0, ctx = 0, stream = 0, corr = 0, gpid = 0;
	int64_t ev = 0, sync = 0, pid;
	bool hs = nsys_i64(st, 0, &start), he = nsys_i64(st, 1, &end);
	bool hd = nsys_i64(st, 2, &dev), hstr = nsys_i64(st, 4, &stream);
	bool hc = nsys_i64(st, 5, &corr) && corr > 0, hev = nsys_i64(st, 8, &ev);
	struct gs_sync y = {.stream = GS_NO_INDEX, .wait_on_stream = GS_NO_INDEX};
	uint8_t flags, named;
	gs_status rc;

	n->in.table = NSYS_SYNC_TABLE;
	if (!nsys_times_ok(n, hs, start, he, end))
		return GS_OK;
	nsys_i64(st, 3, &ctx);
	nsys_i64(st, 6, &gpid);
	pid = nsys_pid_of(gpid);
	y.start_ns = start;
	y.end_ns = end;
	y.pid = pid;
	y.correlation = hc ? (uint64_t)corr : 0;
	y.kind = nsys_enum(n->sync_map, st, 7, GS_SYNC_UNKNOWN);
	nsys_call_info(n, pid, hc, corr, &y.tid, &flags);
	named = (uint8_t)(flags >> NF_SYNC_SHIFT);
	if (named != GS_SYNC_UNKNOWN)
		y.kind = named;
	y.device = nsys_ctx_device(n, pid, ctx, hd, dev, &dev) ? (uint32_t)dev : UINT32_MAX;
	if ((y.kind == GS_SYNC_STREAM || y.kind == GS_SYNC_STREAM_WAIT) && y.device != UINT32_MAX &&
	    nsys_valid_id(hstr, stream)) {
		rc = nsys_stream(n, pid, dev, ctx, stream, &y.stream);
		if (rc)
			return rc;
	}
	hev = nsys_valid_id(hev, ev);
	y.event_id = hev ? (uint64_t)ev : 0;
	y.sync_id = nsys_i64(st, 9, &sync) ? nsys_u64(sync) : GS_NO_SYNC_ID;
	if (hev && (y.kind == GS_SYNC_EVENT || y.kind == GS_SYNC_STREAM_WAIT)) {
		struct nsys_key k = {pid, ev, 0, 0};
		const struct nsys_kent *e = nsys_kmap_get(&n->events, &k);

		if (e) {
			y.event_correlation = e->v1;
			y.wait_on_stream = (uint32_t)e->v2;
		}
	}
	rc = nsys_emit_sync(n, &y);
	if (!rc)
		rc = nsys_note_pid(n, pid);
	if (!rc && y.device != UINT32_MAX)
		rc = gs_u64map_put(&n->dev_used, y.device, 1, false);
	return rc;
}

/* (globalPid, correlationId) of the current row, NULL first as SQLite
 * sorts. */
static int nsys_order_cmp(sqlite3_stmt *a, int ap, int ac, sqlite3_stmt *b, int bp, int bc)
{
	int64_t x = nsys_i64_or(a, ap, INT64_MIN), y = nsys_i64_or(b, bp, INT64_MIN);

	if (x != y)
		return x < y ? -1 : 1;
	x = nsys_i64_or(a, ac, INT64_MIN);
	y = nsys_i64_or(b, bc, INT64_MIN);
	return x < y ? -1 : x > y;
}

/*
 * Syncs and event records. With a CUDA_EVENT table both are read in
 * (process, correlation id) order and merged, so that a sync on an event
 * finds the latest record of that event before it.
 */
gs_status nsys_syncs_events(struct nsys *n)
{
	static const char *const sfields[] = {
		"start",     "end",
		"deviceId",  "contextId",
		"streamId",  "correlationId",
		"globalPid", "syncType",
		"eventId",   "eventSyncId|cudaEventSyncId",
	};
	static const char *const efields[] = {
		"deviceId",
		"contextId",
		"streamId",
		"correlationId",
		"globalPid",
		"eventId",
		"eventSyncId|cudaEventSyncId",
		"start",
	};
	static const int sorder[] = {6, 5}, eorder[] = {4, 3};
	struct nsys_query qs, qe;
	bool rs = false, re = false;
	gs_status rc;

	rc = nsys_query_open(&n->in, &qe, NSYS_EVENT_TABLE, efields, NSYS_COUNT_OF(efields), NULL,
			     eorder, NSYS_COUNT_OF(eorder));
	if (rc)
		return rc;
	rc = nsys_query_open(&n->in, &qs, NSYS_SYNC_TABLE, sfields, NSYS_COUNT_OF(sfields), NULL,
			     sorder, qe.exists ? NSYS_COUNT_OF(sorder) : 0);
	if (!rc && qe.exists) {
		n->in.table = NSYS_EVENT_TABLE;
		rc = nsys_step(&n->in, qe.st, &re);
	}
	if (!rc && qs.exists) {
		n->in.table = NSYS_SYNC_TABLE;
		rc = nsys_step(&n->in, qs.st, &rs);
	}
	while (!rc && (rs || re)) {
		if (re && (!rs || nsys_order_cmp(qe.st, 4, 3, qs.st, 6, 5) <= 0)) {
			rc = nsys_event_row(n, qe.st);
			if (!rc)
				rc = nsys_step(&n->in, qe.st, &re);
		} else {
			rc = nsys_sync_row(n, qs.st);
			if (!rc) {
				n->in.table = NSYS_SYNC_TABLE;
				rc = nsys_step(&n->in, qs.st, &rs);
			}
		}
	}
	nsys_query_close(&qe);
	nsys_query_close(&qs);
	return rc;
}
