/* SPDX-License-Identifier: MIT */
/*
 * CUPTI activity records -> gpuscope records; see record_convert.h for what
 * is handled, how syncs find their thread, and the complexity.
 */
#include "record_convert.h"

#include <gpuscope/u64map.h>
#include <gpuscope/vec.h>

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API_CACHE_SIZE 65536u
#define MAX_PENDING 65536u
#define MAX_OPEN_MARKERS 65536u
#define MAX_IGNORED_THREADS 8
#define NO_DEVICE UINT32_MAX

struct stream_info {
	uint32_t context;
	uint32_t stream_id;
	uint32_t index; /* in the sink, when declared */
	uint32_t device;
	int32_t priority;
	uint8_t kind;
	bool declared;
	bool kind_sent; /* the sink knows the kind */
};

struct context_info {
	uint32_t device;
	uint32_t null_stream;
	bool has_null_stream;
};

struct api_slot {
	uint64_t correlation; /* 0: empty */
	int64_t tid;
	int64_t start_ns;
	uint32_t cbid;
	uint8_t domain; /* CUpti_CallbackDomain; 0: internal launch */
};

enum pending_type {
	PEND_SYNC = 1,
	PEND_EVENT = 2
};

struct pending {
	uint8_t type;
	struct gs_sync sync;
	struct gs_event_record event;
};

struct open_marker {
	int64_t start_ns;
	int64_t tid;
	uint32_t name;
	uint32_t domain;
};

struct gs_conv {
	struct gs_sink *sink;
	struct gs_dd *dd;
	int64_t pid;
	gs_conv_name_fn name_fn;
	void *name_ctx;
	uint32_t ignored[MAX_IGNORED_THREADS];
	unsigned nignored;

	struct stream_info *streams;
	size_t nstreams, streams_cap;
	struct gs_u64map stream_map;  /* (context << 32 | stream id) -> streams[] */
	struct gs_u64map context_map; /* context id -> packed context_info */
	struct gs_u64map api_names;   /* (domain << 32 | cbid) -> string id */
	uint32_t copy_names[GS_COPY_KIND_COUNT][GS_MEM_KIND_COUNT][GS_MEM_KIND_COUNT];
	uint32_t memset_names[GS_MEM_KIND_COUNT];
	uint32_t unnamed_kernel;
	uint32_t internal_launch;

	struct api_slot *api_cache; /* API_CACHE_SIZE entries */
	struct pending *pend;
	uint32_t *pend_free; /* free slots of pend[] */
	size_t npend_free, pend_cap;
	struct gs_u64map pend_map; /* correlation -> pend[] slot */

	struct open_marker *markers;
	uint32_t *marker_free;
	size_t nmarker_free, marker_cap;
	struct gs_u64map marker_map; /* (marker id) -> markers[] slot */
	struct gs_u64map devices;    /* device ids written */
	struct gs_u64map names;      /* kernel name id -> its demangled name's id */
	gs_conv_demangle_fn demangle;

	uint64_t dropped; /* not yet taken */
	struct gs_conv_stats st;
};

gs_status gs_conv_create(struct gs_sink *sink, struct gs_dd *dd, int64_t pid, gs_conv_name_fn name,
			 void *name_ctx, struct gs_conv **out)
{
	struct gs_conv *c = calloc(1, sizeof(*c));

	if (!c)
		return gs_nomem();
	c->sink = sink;
	c->dd = dd;
	c->pid = pid;
	c->name_fn = name;
	c->name_ctx = name_ctx;
	gs_u64map_init(&c->stream_map);
	gs_u64map_init(&c->context_map);
	gs_u64map_init(&c->api_names);
	gs_u64map_init(&c->pend_map);
	gs_u64map_init(&c->marker_map);
	gs_u64map_init(&c->devices);
	gs_u64map_init(&c->names);
	for (size_t i = 0; i < GS_COPY_KIND_COUNT; i++)
		for (size_t j = 0; j < GS_MEM_KIND_COUNT; j++)
			for (size_t k = 0; k < GS_MEM_KIND_COUNT; k++)
				c->copy_names[i][j][k] = GS_NO_STRING;
	for (size_t i = 0; i < GS_MEM_KIND_COUNT; i++)
		c->memset_names[i] = GS_NO_STRING;
	c->unnamed_kernel = GS_NO_STRING;
	c->internal_launch = GS_NO_STRING;
	c->api_cache = calloc(API_CACHE_SIZE, sizeof(*c->api_cache));
	if (!c->api_cache) {
		gs_conv_destroy(c);
		return gs_nomem();
	}
	*out = c;
	return GS_OK;
}

void gs_conv_destroy(struct gs_conv *c)
{
	if (!c)
		return;
	free(c->streams);
	gs_u64map_fini(&c->stream_map);
	gs_u64map_fini(&c->context_map);
	gs_u64map_fini(&c->api_names);
	gs_u64map_fini(&c->pend_map);
	gs_u64map_fini(&c->marker_map);
	gs_u64map_fini(&c->devices);
	gs_u64map_fini(&c->names);
	free(c->api_cache);
	free(c->pend);
	free(c->pend_free);
	free(c->markers);
	free(c->marker_free);
	free(c);
}

void gs_conv_ignore_thread(struct gs_conv *c, uint32_t tid)
{
	if (c->nignored < MAX_IGNORED_THREADS)
		c->ignored[c->nignored++] = tid;
}

uint64_t gs_conv_take_dropped(struct gs_conv *c)
{
	uint64_t n = c->dropped;

	c->dropped = 0;
	return n;
}

void gs_conv_get_stats(const struct gs_conv *c, struct gs_conv_stats *s)
{
	*s = c->st;
}

static gs_status intern(struct gs_conv *c, const char *s, uint32_t *id)
{
	if (!s) {
		*id = GS_NO_STRING;
		return GS_OK;
	}
	return c->sink->intern(c->sink, s, strlen(s), id);
}

/* ---- enums ---- */

static uint8_t mem_kind(uint32_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE:
		return GS_MEM_PAGEABLE;
	case CUPTI_ACTIVITY_MEMORY_KIND_PINNED:
		return GS_MEM_PINNED;
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE:
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC:
		return GS_MEM_DEVICE;
	case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY:
		return GS_MEM_ARRAY;
	case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED:
	case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC:
		return GS_MEM_MANAGED;
	default:
		return GS_MEM_UNKNOWN;
	}
}

/* CUDA arrays live in device memory: array copies count as device copies. */
static uint8_t copy_kind(uint32_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
		return GS_COPY_HTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
		return GS_COPY_DTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
		return GS_COPY_DTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return GS_COPY_HTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return GS_COPY_PTOP;
	default:
		return GS_COPY_UNKNOWN;
	}
}

static const char *copy_word(uint8_t k)
{
	static const char *const w[GS_COPY_KIND_COUNT] = {"",     "HtoD", "DtoH",
							  "DtoD", "HtoH", "PtoP"};
	return k < GS_COPY_KIND_COUNT ? w[k] : "";
}

static const char *mem_word(uint8_t k)
{
	static const char *const w[GS_MEM_KIND_COUNT] = {"Unknown", "Pageable", "Pinned",
							 "Device",  "Managed",  "Array"};
	return k < GS_MEM_KIND_COUNT ? w[k] : "Unknown";
}

/* "Memcpy HtoD (Pageable -> Device)", as Kineto names copies. */
static gs_status copy_name(struct gs_conv *c, uint8_t ck, uint8_t src, uint8_t dst, uint32_t *id)
{
	uint32_t *slot = &c->copy_names[ck][src][dst];
	char buf[96];

	if (*slot == GS_NO_STRING) {
		if (ck == GS_COPY_UNKNOWN)
			snprintf(buf, sizeof(buf), "Memcpy (%s -> %s)", mem_word(src),
				 mem_word(dst));
		else
			snprintf(buf, sizeof(buf), "Memcpy %s (%s -> %s)", copy_word(ck),
				 mem_word(src), mem_word(dst));
		gs_status rc = intern(c, buf, slot);
		if (rc)
			return rc;
	}
	*id = *slot;
	return GS_OK;
}

static gs_status memset_name(struct gs_conv *c, uint8_t mk, uint32_t *id)
{
	uint32_t *slot = &c->memset_names[mk];
	char buf[64];

	if (*slot == GS_NO_STRING) {
		snprintf(buf, sizeof(buf), "Memset (%s)", mem_word(mk));
		gs_status rc = intern(c, buf, slot);
		if (rc)
			return rc;
	}
	*id = *slot;
	return GS_OK;
}

size_t gs_conv_api_name_len(const char *raw)
{
	size_t n = strlen(raw), i = n;

	while (i > 0 && raw[i - 1] >= '0' && raw[i - 1] <= '9')
		i--;
	if (i < n && i >= 3 && raw[i - 1] == 'v' && raw[i - 2] == '_')
		return i - 2;
	return n;
}

static gs_status api_name(struct gs_conv *c, unsigned domain, uint32_t cbid, uint32_t *id)
{
	uint64_t key = (uint64_t)domain << 32 | cbid;
	const char *raw = NULL;
	char buf[64];
	uint64_t v;
	gs_status rc;

	if (gs_u64map_get(&c->api_names, key, &v)) {
		*id = (uint32_t)v;
		return GS_OK;
	}
	if (c->name_fn)
		raw = c->name_fn(c->name_ctx, domain, cbid);
	if (raw && *raw) {
		rc = c->sink->intern(c->sink, raw, gs_conv_api_name_len(raw), id);
	} else {
		snprintf(buf, sizeof(buf), "%s_cbid_%u",
			 domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime" : "driver", cbid);
		rc = intern(c, buf, id);
	}
	if (rc)
		return rc;
	return gs_u64map_put(&c->api_names, key, *id, true);
}

/* ---- contexts and streams ---- */

static bool context_get(const struct gs_conv *c, uint32_t ctx, struct context_info *ci)
{
	uint64_t v;

	if (!gs_u64map_get(&c->context_map, ctx, &v))
		return false;
	ci->device = (uint32_t)v;
	ci->null_stream = (uint32_t)(v >> 32) & 0x7fffffffu;
	ci->has_null_stream = (v >> 63) != 0;
	return true;
}

static gs_status context_put(struct gs_conv *c, uint32_t ctx, const struct context_info *ci)
{
	uint64_t v = ci->device | (uint64_t)(ci->null_stream & 0x7fffffffu) << 32 |
		     (uint64_t)ci->has_null_stream << 63;

	return gs_u64map_put(&c->context_map, ctx, v, true);
}

static gs_status stream_entry(struct gs_conv *c, uint32_t ctx, uint32_t sid,
			      struct stream_info **out)
{
	uint64_t key = (uint64_t)ctx << 32 | sid;
	uint64_t v;
	gs_status rc;

	if (gs_u64map_get(&c->stream_map, key, &v)) {
		*out = &c->streams[v];
		return GS_OK;
	}
	if (gs_vec_reserve((void **)&c->streams, &c->streams_cap, c->nstreams + 1,
			   sizeof(*c->streams)))
		return gs_nomem();
	c->streams[c->nstreams] = (struct stream_info){.context = ctx,
						       .stream_id = sid,
						       .index = GS_NO_INDEX,
						       .device = NO_DEVICE,
						       .kind = GS_STREAM_UNKNOWN};
	rc = gs_u64map_put(&c->stream_map, key, c->nstreams, true);
	if (rc != GS_OK)
		return rc;
	*out = &c->streams[c->nstreams++];
	return GS_OK;
}

static gs_status send_stream(struct gs_conv *c, struct stream_info *si)
{
	struct gs_stream s = {.pid = c->pid,
			      .device = si->device,
			      .context = si->context,
			      .stream_id = si->stream_id,
			      .kind = si->kind,
			      .priority = si->priority};
	gs_status rc = c->sink->stream(c->sink, &s, &si->index);

	if (rc)
		return rc;
	si->declared = true;
	si->kind_sent = si->kind != GS_STREAM_UNKNOWN;
	return GS_OK;
}

/* The sink index of stream (ctx, sid), declaring it on first use. */
static gs_status stream_index(struct gs_conv *c, uint32_t ctx, uint32_t sid, uint32_t device_hint,
			      uint32_t *index)
{
	struct stream_info *si;
	struct context_info ci;
	gs_status rc = stream_entry(c, ctx, sid, &si);

	if (rc)
		return rc;
	if (!si->declared) {
		bool known = context_get(c, ctx, &ci);

		si->device = known ? ci.device : device_hint != NO_DEVICE ? device_hint : 0;
		if (known && ci.has_null_stream && ci.null_stream == sid)
			si->kind = GS_STREAM_LEGACY_DEFAULT;
		rc = send_stream(c, si);
		if (rc)
			return rc;
	}
	*index = si->index;
	return GS_OK;
}

/* A stream's kind and priority became known (STREAM or CONTEXT record). */
static gs_status stream_learn(struct gs_conv *c, uint32_t ctx, uint32_t sid, uint8_t kind,
			      int32_t priority, bool has_priority)
{
	struct stream_info *si;
	gs_status rc = stream_entry(c, ctx, sid, &si);

	if (rc)
		return rc;
	if (si->kind == GS_STREAM_UNKNOWN || kind == GS_STREAM_LEGACY_DEFAULT)
		si->kind = kind;
	if (has_priority)
		si->priority = priority;
	/* The sink takes a kind for a stream declared without one, once. */
	if (si->declared && !si->kind_sent && si->kind != GS_STREAM_UNKNOWN)
		return send_stream(c, si);
	return GS_OK;
}

static uint32_t device_of_context(const struct gs_conv *c, uint32_t ctx, uint32_t fallback)
{
	struct context_info ci;

	return context_get(c, ctx, &ci) ? ci.device : fallback;
}

static uint32_t stream_device(const struct gs_conv *c, uint32_t ctx, uint32_t sid,
			      uint32_t fallback)
{
	uint64_t v;

	if (gs_u64map_get(&c->stream_map, (uint64_t)ctx << 32 | sid, &v) && c->streams[v].declared)
		return c->streams[v].device;
	return fallback;
}

/* ---- GPU ops ---- */

static bool op_times_ok(struct gs_conv *c, uint64_t start, uint64_t end)
{
	if (start == 0 && end == 0) {
		c->st.no_timing++;
		c->dropped++;
		return false;
	}
	if (end == 0 || end < start || start > (uint64_t)INT64_MAX || end > (uint64_t)INT64_MAX) {
		c->st.incomplete++;
		c->dropped++;
		return false;
	}
	return true;
}

static gs_status emit_op(struct gs_conv *c, const struct gs_op *op,
			 const struct gs_launch_cfg *launch)
{
	c->st.ops++;
	return c->sink->op(c->sink, op, launch);
}

static uint32_t clamp_u32(int32_t v)
{
	return v < 0 ? 0 : (uint32_t)v;
}

void gs_conv_set_demangler(struct gs_conv *c, gs_conv_demangle_fn fn)
{
	c->demangle = fn;
}

/* A kernel's name: demangled (once per distinct name; the mangled one kept
 * in the launch configuration, as string id + 1) or as recorded. */
static gs_status kernel_name(struct gs_conv *c, const char *raw, uint32_t *name, uint32_t *mangled)
{
	uint64_t v;
	uint32_t id;
	char *d;
	gs_status rc = intern(c, raw, &id);

	*name = id;
	*mangled = 0;
	if (rc || !c->demangle || strncmp(raw, "_Z", 2) != 0)
		return rc;
	if (!gs_u64map_get(&c->names, id, &v)) {
		v = id;
		d = c->demangle(raw);
		if (d) {
			uint32_t did;

			rc = intern(c, d, &did);
			free(d);
			if (rc)
				return rc;
			v = did;
			c->st.demangled++;
		}
		rc = gs_u64map_put(&c->names, id, v, true);
		if (rc)
			return rc;
	}
	if ((uint32_t)v != id) {
		*name = (uint32_t)v;
		*mangled = id + 1;
	}
	return GS_OK;
}

static gs_status conv_kernel(struct gs_conv *c, const CUpti_ActivityKernel10 *k)
{
	struct gs_op op = {0};
	struct gs_launch_cfg lc = {0};
	gs_status rc;

	if (!op_times_ok(c, k->start, k->end))
		return GS_OK;
	rc = stream_index(c, k->contextId, k->streamId, k->deviceId, &op.stream);
	if (rc)
		return rc;
	if (k->name) {
		rc = kernel_name(c, k->name, &op.name, &lc.mangled_name);
	} else {
		if (c->unnamed_kernel == GS_NO_STRING)
			rc = intern(c, "(unnamed kernel)", &c->unnamed_kernel);
		op.name = c->unnamed_kernel;
	}
	if (rc)
		return rc;
	op.kind = GS_OP_KERNEL;
	op.start_ns = (int64_t)k->start;
	op.end_ns = (int64_t)k->end;
	op.correlation = k->correlationId;
	lc.grid[0] = clamp_u32(k->gridX);
	lc.grid[1] = clamp_u32(k->gridY);
	lc.grid[2] = clamp_u32(k->gridZ);
	lc.block[0] = clamp_u32(k->blockX);
	lc.block[1] = clamp_u32(k->blockY);
	lc.block[2] = clamp_u32(k->blockZ);
	lc.shared_mem = clamp_u32(k->staticSharedMemory) + clamp_u32(k->dynamicSharedMemory);
	lc.registers = k->registersPerThread;
	lc.graph_id = k->graphId;
	op.graph_node = k->graphNodeId;
	if (k->graphId || k->graphNodeId)
		op.flags |= GS_OPF_GRAPH;
	if (k->isDeviceLaunched)
		op.flags |= GS_OPF_DEVICE_LAUNCHED;
	return emit_op(c, &op, &lc);
}

static gs_status conv_copy(struct gs_conv *c, uint8_t ck, uint8_t sk, uint8_t dk, uint8_t flags,
			   uint64_t bytes, uint64_t start, uint64_t end, uint32_t device,
			   uint32_t ctx, uint32_t sid, uint32_t corr, uint32_t graph_id,
			   uint64_t graph_node, bool device_launched)
{
	struct gs_op op = {0};
	struct gs_launch_cfg lc = {.graph_id = graph_id};
	gs_status rc;

	if (!op_times_ok(c, start, end))
		return GS_OK;
	rc = stream_index(c, ctx, sid, device, &op.stream);
	if (rc)
		return rc;
	op.kind = GS_OP_MEMCPY;
	op.copy_kind = copy_kind(ck);
	op.src_mem = mem_kind(sk);
	op.dst_mem = mem_kind(dk);
	rc = copy_name(c, op.copy_kind, op.src_mem, op.dst_mem, &op.name);
	if (rc)
		return rc;
	op.start_ns = (int64_t)start;
	op.end_ns = (int64_t)end;
	op.correlation = corr;
	op.bytes = bytes;
	op.graph_node = graph_node;
	if (flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC)
		op.flags |= GS_OPF_ASYNC;
	if (graph_id || graph_node)
		op.flags |= GS_OPF_GRAPH;
	if (device_launched)
		op.flags |= GS_OPF_DEVICE_LAUNCHED;
	return emit_op(c, &op, graph_id ? &lc : NULL);
}

static gs_status conv_memset(struct gs_conv *c, const CUpti_ActivityMemset4 *m)
{
	struct gs_op op = {0};
	struct gs_launch_cfg lc = {.graph_id = m->graphId};
	gs_status rc;

	if (!op_times_ok(c, m->start, m->end))
		return GS_OK;
	rc = stream_index(c, m->contextId, m->streamId, m->deviceId, &op.stream);
	if (rc)
		return rc;
	op.kind = GS_OP_MEMSET;
	op.dst_mem = mem_kind(m->memoryKind);
	rc = memset_name(c, op.dst_mem, &op.name);
	if (rc)
		return rc;
	op.start_ns = (int64_t)m->start;
	op.end_ns = (int64_t)m->end;
	op.correlation = m->correlationId;
	op.bytes = m->bytes;
	op.graph_node = m->graphNodeId;
	if (m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC)
		op.flags |= GS_OPF_ASYNC;
	if (m->graphId || m->graphNodeId)
		op.flags |= GS_OPF_GRAPH;
	if (m->isDeviceLaunched)
		op.flags |= GS_OPF_DEVICE_LAUNCHED;
	return emit_op(c, &op, m->graphId ? &lc : NULL);
}

/* ---- syncs and event records: joined with their API call's thread ---- */

static uint64_t sync_id(uint64_t v)
{
	if (v == CUPTI_SYNCHRONIZATION_INVALID_VALUE || v == UINT64_MAX)
		return GS_NO_SYNC_ID;
	return v;
}

static gs_status write_pending(struct gs_conv *c, const struct pending *p)
{
	if (p->type == PEND_SYNC) {
		c->st.syncs++;
		return c->sink->sync(c->sink, &p->sync);
	}
	c->st.event_records++;
	return c->sink->event_record(c->sink, &p->event);
}

static void fill_from_api(struct pending *p, int64_t tid, int64_t start_ns)
{
	if (p->type == PEND_SYNC)
		p->sync.tid = tid;
	else
		p->event.time_ns = start_ns;
}

/* cudaEventQuery / cudaStreamQuery and their driver calls: CUPTI 13 reports
 * them as EVENT_ / STREAM_SYNCHRONIZE records, but a query polls, it does
 * not wait (cupti_activity.h, cuptiActivityEnableAllSyncRecords). */
static bool is_query(unsigned domain, uint32_t cbid)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
		return cbid == CUPTI_DRIVER_TRACE_CBID_cuEventQuery ||
		       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamQuery ||
		       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz;
	return false;
}

/* A sync or event record meets its API call: false when it is dropped (a
 * query's sync record). */
static bool meet_api(struct gs_conv *c, struct pending *p, const struct api_slot *call)
{
	if (p->type == PEND_SYNC && is_query(call->domain, call->cbid)) {
		c->st.queries++;
		return false;
	}
	fill_from_api(p, call->tid, call->start_ns);
	return true;
}

/* Write now when the API call was seen, else hold until it is. */
static gs_status sync_or_hold(struct gs_conv *c, struct pending *p, uint64_t corr)
{
	const struct api_slot *slot = &c->api_cache[corr % API_CACHE_SIZE];
	uint32_t at;

	if (corr && slot->correlation == corr)
		return meet_api(c, p, slot) ? write_pending(c, p) : GS_OK;
	if (!corr || c->npend_free == 0) {
		if (!corr || c->pend_cap >= MAX_PENDING) {
			c->st.no_thread++;
			return write_pending(c, p);
		}
		size_t old = c->pend_cap, n = old ? old * 2 : 256;

		if (gs_vec_reserve((void **)&c->pend, &c->pend_cap, n, sizeof(*c->pend)))
			return gs_nomem();
		size_t fcap = old;
		if (gs_vec_reserve((void **)&c->pend_free, &fcap, c->pend_cap,
				   sizeof(*c->pend_free)))
			return gs_nomem();
		for (size_t i = c->pend_cap; i > old; i--)
			c->pend_free[c->npend_free++] = (uint32_t)(i - 1);
	}
	/* One pending record per correlation: a second one is written at once. */
	if (gs_u64map_get(&c->pend_map, corr, NULL)) {
		c->st.no_thread++;
		return write_pending(c, p);
	}
	at = c->pend_free[--c->npend_free];
	c->pend[at] = *p;
	return gs_u64map_put(&c->pend_map, corr, at, true);
}

static gs_status conv_sync(struct gs_conv *c, const CUpti_ActivitySynchronization2 *y)
{
	struct pending p = {.type = PEND_SYNC};
	struct gs_sync *s = &p.sync;
	gs_status rc;

	/* A failed call, or a query of unfinished work (NOT_READY) when CUPTI
	 * still reports those: nothing was waited for. */
	if (y->returnValue != 0) {
		c->st.failed_syncs++;
		return GS_OK;
	}
	s->start_ns = (int64_t)y->start;
	s->end_ns = (int64_t)y->end;
	if (y->end < y->start)
		s->end_ns = s->start_ns;
	s->pid = c->pid;
	s->tid = -1;
	s->correlation = y->correlationId;
	s->sync_id = sync_id(y->cudaEventSyncId);
	s->stream = GS_NO_INDEX;
	s->wait_on_stream = GS_NO_INDEX;
	s->device = device_of_context(c, y->contextId, 0);
	switch (y->type) {
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
		s->kind = GS_SYNC_EVENT;
		break;
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
		s->kind = GS_SYNC_STREAM_WAIT;
		break;
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
		s->kind = GS_SYNC_STREAM;
		break;
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
		s->kind = GS_SYNC_CONTEXT;
		break;
	default:
		s->kind = GS_SYNC_UNKNOWN;
		break;
	}
	if ((s->kind == GS_SYNC_STREAM_WAIT || s->kind == GS_SYNC_STREAM) &&
	    y->streamId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) {
		rc = stream_index(c, y->contextId, y->streamId, NO_DEVICE, &s->stream);
		if (rc)
			return rc;
		s->device = stream_device(c, y->contextId, y->streamId, s->device);
	}
	if ((s->kind == GS_SYNC_STREAM_WAIT || s->kind == GS_SYNC_EVENT) &&
	    y->cudaEventId != CUPTI_SYNCHRONIZATION_INVALID_VALUE)
		s->event_id = y->cudaEventId;
	return sync_or_hold(c, &p, y->correlationId);
}

static gs_status conv_event(struct gs_conv *c, const CUpti_ActivityCudaEvent2 *e)
{
	struct pending p = {.type = PEND_EVENT};
	gs_status rc = stream_index(c, e->contextId, e->streamId, e->deviceId, &p.event.stream);

	if (rc)
		return rc;
	p.event.correlation = e->correlationId;
	p.event.event_id = e->eventId;
	p.event.sync_id = sync_id(e->cudaEventSyncId);
	return sync_or_hold(c, &p, e->correlationId);
}

static gs_status conv_api(struct gs_conv *c, const CUpti_ActivityAPI *a)
{
	struct gs_api_call call = {0};
	unsigned domain;
	uint64_t at;
	gs_status rc;

	for (unsigned i = 0; i < c->nignored; i++) {
		if (c->ignored[i] == a->threadId) {
			c->st.own_api_skipped++;
			return GS_OK;
		}
	}
	if (a->kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		domain = CUPTI_CB_DOMAIN_RUNTIME_API;
	else if (a->kind == CUPTI_ACTIVITY_KIND_DRIVER)
		domain = CUPTI_CB_DOMAIN_DRIVER_API;
	else
		domain = 0; /* internal launch */
	call.start_ns = (int64_t)a->start;
	call.end_ns = a->end >= a->start ? (int64_t)a->end : (int64_t)a->start;
	call.pid = a->processId ? (int64_t)a->processId : c->pid;
	call.tid = a->threadId;
	call.correlation = a->correlationId;
	call.return_value = (int32_t)a->returnValue;
	call.kind = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? GS_API_RUNTIME : GS_API_DRIVER;
	if (domain) {
		call.cbid = a->cbid;
		rc = api_name(c, domain, a->cbid, &call.name);
	} else {
		/* A driver launch outside any public API: its cbid is not used. */
		if (c->internal_launch == GS_NO_STRING)
			rc = intern(c, "(internal launch)", &c->internal_launch);
		else
			rc = GS_OK;
		call.name = c->internal_launch;
	}
	if (rc)
		return rc;
	if (a->correlationId) {
		struct api_slot *slot = &c->api_cache[a->correlationId % API_CACHE_SIZE];

		slot->correlation = a->correlationId;
		slot->tid = call.tid;
		slot->start_ns = call.start_ns;
		slot->cbid = domain ? a->cbid : 0;
		slot->domain = (uint8_t)domain;
		if (c->pend_map.count && gs_u64map_del(&c->pend_map, a->correlationId, &at)) {
			rc = meet_api(c, &c->pend[at], slot) ? write_pending(c, &c->pend[at]) :
							       GS_OK;
			c->pend_free[c->npend_free++] = (uint32_t)at;
			if (rc)
				return rc;
		}
	}
	c->st.api_calls++;
	return c->sink->api_call(c->sink, &call);
}

/* ---- the rest ---- */

static gs_status conv_memory(struct gs_conv *c, const CUpti_ActivityMemory4 *m)
{
	if (!c->dd)
		return GS_OK;
	if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
		return gs_dd_alloc(c->dd, m->address, m->bytes, (int64_t)m->timestamp, m->deviceId,
				   mem_kind(m->memoryKind));
	if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
		return gs_dd_release(c->dd, m->address, (int64_t)m->timestamp);
	return GS_OK;
}

static gs_status conv_stream(struct gs_conv *c, const CUpti_ActivityStream *s)
{
	uint8_t kind;

	switch ((uint32_t)s->flag & CUPTI_ACTIVITY_STREAM_CREATE_MASK) {
	case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT:
		kind = GS_STREAM_BLOCKING;
		break;
	case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING:
		kind = GS_STREAM_NON_BLOCKING;
		break;
	case CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL:
		kind = GS_STREAM_LEGACY_DEFAULT;
		break;
	default:
		kind = GS_STREAM_UNKNOWN;
		break;
	}
	return stream_learn(c, s->contextId, s->streamId, kind, (int32_t)s->priority, true);
}

static gs_status conv_context(struct gs_conv *c, const CUpti_ActivityContext3 *x)
{
	struct context_info ci = {.device = x->deviceId,
				  .null_stream = x->nullStreamId,
				  .has_null_stream = true};
	gs_status rc = context_put(c, x->contextId, &ci);

	if (rc)
		return rc;
	return stream_learn(c, x->contextId, x->nullStreamId, GS_STREAM_LEGACY_DEFAULT, 0, false);
}

static gs_status conv_device(struct gs_conv *c, const CUpti_ActivityDevice5 *d)
{
	struct gs_device dev = {0};
	char uuid[48];
	const unsigned char *u = (const unsigned char *)d->uuid.bytes;
	gs_status rc;

	/* A GPU CUDA_VISIBLE_DEVICES hides is not the program's; a device
	 * dumped twice (cuptiActivityEnableAndDump, then CUDA init) is one. */
	if (!d->isCudaVisible || gs_u64map_get(&c->devices, d->id, NULL)) {
		c->st.devices_skipped++;
		return GS_OK;
	}
	rc = gs_u64map_put(&c->devices, d->id, 1, true);
	if (rc)
		return rc;
	dev.id = d->id;
	rc = intern(c, d->name, &dev.name);
	if (rc)
		return rc;
	snprintf(uuid, sizeof(uuid),
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
	rc = intern(c, uuid, &dev.uuid);
	if (rc)
		return rc;
	dev.sm_count = d->numMultiprocessors;
	dev.cc_major = d->computeCapabilityMajor;
	dev.cc_minor = d->computeCapabilityMinor;
	dev.memory_bytes = d->globalMemorySize;
	dev.copy_engines = d->numMemcpyEngines;
	return c->sink->device ? c->sink->device(c->sink, &dev) : GS_OK;
}

static const char *overhead_word(uint32_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
		return "DRIVER_COMPILER";
	case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
		return "CUPTI_BUFFER_FLUSH";
	case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
		return "CUPTI_INSTRUMENTATION";
	case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
		return "CUPTI_RESOURCE";
	case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
		return "RUNTIME_TRIGGERED_MODULE_LOADING";
	case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
		return "LAZY_FUNCTION_LOADING";
	case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
		return "COMMAND_BUFFER_FULL";
	case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
		return "ACTIVITY_BUFFER_REQUEST";
	case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
		return "UVM_ACTIVITY_INIT";
	default:
		return "UNKNOWN";
	}
}

static gs_status conv_overhead(struct gs_conv *c, const CUpti_ActivityOverhead3 *o)
{
	struct gs_overhead ov = {0};
	gs_status rc;

	if (o->end < o->start || o->start > (uint64_t)INT64_MAX)
		return GS_OK;
	rc = intern(c, overhead_word((uint32_t)o->overheadKind), &ov.kind);
	if (rc)
		return rc;
	ov.start_ns = (int64_t)o->start;
	ov.end_ns = (int64_t)o->end;
	ov.pid = c->pid;
	return c->sink->overhead ? c->sink->overhead(c->sink, &ov) : GS_OK;
}

static gs_status conv_marker(struct gs_conv *c, const CUpti_ActivityMarker2 *m)
{
	uint32_t flags = (uint32_t)m->flags;
	int64_t tid = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ?
			      (int64_t)m->objectId.pt.threadId :
			      -1;
	struct open_marker om = {.start_ns = (int64_t)m->timestamp, .tid = tid};
	struct gs_range r = {0};
	uint64_t at;
	gs_status rc;

	if (flags & (CUPTI_ACTIVITY_FLAG_MARKER_START | CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS)) {
		rc = intern(c, m->name ? m->name : "", &om.name);
		if (!rc)
			rc = intern(c, m->domain, &om.domain);
		if (rc)
			return rc;
	}
	if (flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
		r = (struct gs_range){.start_ns = om.start_ns,
				      .end_ns = om.start_ns,
				      .pid = c->pid,
				      .tid = tid,
				      .name = om.name,
				      .domain = om.domain,
				      .kind = GS_RANGE_NVTX};
		c->st.ranges++;
		return c->sink->range ? c->sink->range(c->sink, &r) : GS_OK;
	}
	if (flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
		if (gs_u64map_get(&c->marker_map, m->id, NULL) ||
		    (c->nmarker_free == 0 && c->marker_cap >= MAX_OPEN_MARKERS)) {
			c->st.unpaired_markers++;
			return GS_OK;
		}
		if (c->nmarker_free == 0) {
			size_t old = c->marker_cap, fcap = old;

			if (gs_vec_reserve((void **)&c->markers, &c->marker_cap, old ? old * 2 : 64,
					   sizeof(*c->markers)) ||
			    gs_vec_reserve((void **)&c->marker_free, &fcap, c->marker_cap,
					   sizeof(*c->marker_free)))
				return gs_nomem();
			for (size_t i = c->marker_cap; i > old; i--)
				c->marker_free[c->nmarker_free++] = (uint32_t)(i - 1);
		}
		at = c->marker_free[--c->nmarker_free];
		c->markers[at] = om;
		return gs_u64map_put(&c->marker_map, m->id, at, true);
	}
	if (flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
		if (!gs_u64map_del(&c->marker_map, m->id, &at)) {
			c->st.unpaired_markers++;
			return GS_OK;
		}
		om = c->markers[at];
		c->marker_free[c->nmarker_free++] = (uint32_t)at;
		r = (struct gs_range){.start_ns = om.start_ns,
				      .end_ns = (int64_t)m->timestamp,
				      .pid = c->pid,
				      .tid = om.tid >= 0 ? om.tid : tid,
				      .name = om.name,
				      .domain = om.domain,
				      .kind = GS_RANGE_NVTX};
		if (r.end_ns < r.start_ns) {
			c->st.unpaired_markers++;
			return GS_OK;
		}
		c->st.ranges++;
		return c->sink->range ? c->sink->range(c->sink, &r) : GS_OK;
	}
	return GS_OK;
}

gs_status gs_conv_record(struct gs_conv *c, const CUpti_Activity *rec)
{
	c->st.records++;
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_KERNEL:
		return conv_kernel(c, (const CUpti_ActivityKernel10 *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)(const void *)rec;

		return conv_copy(c, m->copyKind, m->srcKind, m->dstKind, m->flags, m->bytes,
				 m->start, m->end, m->deviceId, m->contextId, m->streamId,
				 m->correlationId, m->graphId, m->graphNodeId,
				 m->isDeviceLaunched != 0);
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY2: {
		const CUpti_ActivityMemcpyPtoP4 *m =
			(const CUpti_ActivityMemcpyPtoP4 *)(const void *)rec;

		return conv_copy(c, m->copyKind ? m->copyKind : CUPTI_ACTIVITY_MEMCPY_KIND_PTOP,
				 m->srcKind, m->dstKind, m->flags, m->bytes, m->start, m->end,
				 m->deviceId, m->contextId, m->streamId, m->correlationId,
				 m->graphId, m->graphNodeId, false);
	}
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return conv_memset(c, (const CUpti_ActivityMemset4 *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return conv_sync(c, (const CUpti_ActivitySynchronization2 *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
		return conv_event(c, (const CUpti_ActivityCudaEvent2 *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
	case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
		return conv_api(c, (const CUpti_ActivityAPI *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		return conv_memory(c, (const CUpti_ActivityMemory4 *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_STREAM:
		return conv_stream(c, (const CUpti_ActivityStream *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_CONTEXT:
		return conv_context(c, (const CUpti_ActivityContext3 *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_DEVICE:
		return conv_device(c, (const CUpti_ActivityDevice5 *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return conv_overhead(c, (const CUpti_ActivityOverhead3 *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_MARKER:
		return conv_marker(c, (const CUpti_ActivityMarker2 *)(const void *)rec);
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		c->st.ext_correlations++;
		return GS_OK;
	case CUPTI_ACTIVITY_KIND_MARKER_DATA:
	case CUPTI_ACTIVITY_KIND_NAME:
		return GS_OK;
	default:
		c->st.unknown_kinds++;
		return GS_OK;
	}
}

gs_status gs_conv_finish(struct gs_conv *c)
{
	gs_status rc = GS_OK;

	GS_U64MAP_FOREACH(&c->pend_map, i)
	{
		const struct pending *p = &c->pend[c->pend_map.vals[i]];

		c->st.no_thread++;
		if (!rc)
			rc = write_pending(c, p);
	}
	gs_u64map_fini(&c->pend_map);
	gs_u64map_init(&c->pend_map);
	c->npend_free = 0;
	for (size_t i = c->pend_cap; i > 0; i--)
		c->pend_free[c->npend_free++] = (uint32_t)(i - 1);
	c->st.unpaired_markers += c->marker_map.count;
	return rc;
}
