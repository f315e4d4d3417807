/* SPDX-License-Identifier: MIT */
/*
 * Nsight Systems importer (nsys.c): the lookup tables read before the
 * activity: StringIds, the ENUM_* tables, system and session info (the
 * wall clock), stream kinds and priorities, the streams as they are
 * declared, and the GPUs of TARGET_INFO_GPU as devices.
 */
#include "nsys_priv.h"

#include <gpuscope/hash.h>
#include <gpuscope/u64map.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

NSYS_DEFINE_EMIT(device, struct gs_device)

/* ------------------------------------------------------------------------ */
/* Strings                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * The sink's id of StringIds row `id` (GS_NO_STRING when there is none);
 * `api`: without the version suffix, and *flags what the name says.
 */
gs_status nsys_string(struct nsys *n, int64_t id, bool api, uint32_t *sid, uint8_t *flags)
{
	uint64_t key = (uint64_t)id << 1 | (api ? 1u : 0u), v;
	const char *saved = n->in.table;
	gs_status rc;
	bool row;

	if (gs_u64map_get(&n->strs, key, &v)) {
		*sid = (uint32_t)v;
		if (flags)
			*flags = (uint8_t)(v >> 32);
		return GS_OK;
	}
	*sid = GS_NO_STRING;
	v = GS_NO_STRING;
	if (n->in.str_stmt && n->in.str_by_rowid && id == -1 && n->in.has_row_minus1)
		v = (uint64_t)n->in.row_minus1;
	if (n->in.str_stmt && n->in.str_by_rowid &&
	    (id == -1 ? !n->in.has_row_minus1 :
			!gs_u64map_get(&n->in.str_rows, (uint64_t)id, &v))) {
		v = GS_NO_STRING; /* no row has that id */
	} else if (n->in.str_stmt) {
		sqlite3_reset(n->in.str_stmt);
		sqlite3_bind_int64(n->in.str_stmt, 1, n->in.str_by_rowid ? (int64_t)v : id);
		v = GS_NO_STRING;
		n->in.table = "StringIds";
		rc = nsys_step(&n->in, n->in.str_stmt, &row);
		if (!rc && row && sqlite3_column_type(n->in.str_stmt, 0) != SQLITE_NULL) {
			const char *s = (const char *)sqlite3_column_text(n->in.str_stmt, 0);
			size_t len = (size_t)sqlite3_column_bytes(n->in.str_stmt, 0);
			uint8_t f = 0;

			if (!s) {
				rc = gs_nomem();
			} else {
				if (api) {
					f = nsys_api_name_flags(s);
					len = nsys_api_name_len(s, len);
				}
				rc = nsys_intern(n, s, len, sid);
				v = *sid | (uint64_t)f << 32;
			}
		}
		sqlite3_reset(n->in.str_stmt);
		n->in.table = saved;
		if (rc)
			return rc;
	}
	if (flags)
		*flags = (uint8_t)(v >> 32);
	return gs_u64map_put(&n->strs, key, v, true);
}

/* A text column, interned (GS_NO_STRING when NULL). */
gs_status nsys_text(struct nsys *n, sqlite3_stmt *st, int col, uint32_t *sid)
{
	const char *s;

	*sid = GS_NO_STRING;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return GS_OK;
	s = (const char *)sqlite3_column_text(st, col);
	if (!s)
		return gs_nomem();
	return nsys_intern(n, s, (size_t)sqlite3_column_bytes(st, col), sid);
}

/* ------------------------------------------------------------------------ */
/* Enums                                                                    */
/* ------------------------------------------------------------------------ */

struct nsys_enum_name {
	const char *suffix;
	uint8_t value;
};

static const struct nsys_enum_name nsys_copy_names[] = {
	{"UNKNOWN", GS_COPY_UNKNOWN},
	{"HTOD", GS_COPY_HTOD},
	{"DTOH", GS_COPY_DTOH},
	{"HTOA", GS_COPY_HTOD | NSYS_CK_DST_ARRAY},
	{"ATOH", GS_COPY_DTOH | NSYS_CK_SRC_ARRAY},
	{"ATOA", GS_COPY_DTOD | NSYS_CK_SRC_ARRAY | NSYS_CK_DST_ARRAY},
	{"ATOD", GS_COPY_DTOD | NSYS_CK_SRC_ARRAY},
	{"DTOA", GS_COPY_DTOD | NSYS_CK_DST_ARRAY},
	{"DTOD", GS_COPY_DTOD},
	{"HTOH", GS_COPY_HTOH},
	{"PTOP", GS_COPY_PTOP},
	{"UVM_HTOD", GS_COPY_HTOD},
	{"UVM_DTOH", GS_COPY_DTOH},
	{"UVM_DTOD", GS_COPY_DTOD},
};

static const struct nsys_enum_name nsys_mem_names[] = {
	{"PAGEABLE", GS_MEM_PAGEABLE},      {"PINNED", GS_MEM_PINNED},
	{"DEVICE", GS_MEM_DEVICE},          {"ARRAY", GS_MEM_ARRAY},
	{"MANAGED", GS_MEM_MANAGED},        {"DEVICE_STATIC", GS_MEM_DEVICE},
	{"MANAGED_STATIC", GS_MEM_MANAGED}, {"UNKNOWN", GS_MEM_UNKNOWN},
};

static const struct nsys_enum_name nsys_sync_names[] = {
	{"UNKNOWN", GS_SYNC_UNKNOWN},
	{"EVENT_SYNCHRONIZE", GS_SYNC_EVENT},
	{"STREAM_WAIT_EVENT", GS_SYNC_STREAM_WAIT},
	{"STREAM_SYNCHRONIZE", GS_SYNC_STREAM},
	{"CONTEXT_SYNCHRONIZE", GS_SYNC_CONTEXT},
};

static const struct nsys_enum_name nsys_stream_names[] = {
	{"UNKNOWN", GS_STREAM_UNKNOWN},
	{"DEFAULT", GS_STREAM_BLOCKING},
	{"NON_BLOCKING", GS_STREAM_NON_BLOCKING},
	{"NULL", GS_STREAM_LEGACY_DEFAULT},
	{"PER_THREAD", GS_STREAM_PER_THREAD_DEFAULT},
};

/*
 * Fill map (value -> model value) with nsys' numbering (the order of
 * `names`), then read `table` where present: each row's symbol name, less
 * `prefix`, says what its id means.
 */
static gs_status nsys_load_enum(struct nsys *n, uint8_t *map, const char *table, const char *prefix,
				const struct nsys_enum_name *names, size_t nnames, uint8_t unknown)
{
	static const char *const fields[] = {"id", "name"};
	size_t plen = strlen(prefix);
	struct nsys_query q;
	gs_status rc;
	bool row;

	for (size_t i = 0; i < NSYS_ENUM_MAX; i++)
		map[i] = i < nnames ? names[i].value : unknown;
	rc = nsys_query_open(&n->in, &q, table, fields, 2, NULL, NULL, 0);
	if (rc || !q.exists)
		return rc;
	if (!q.col[0] || !q.col[1]) {
		nsys_query_close(&q);
		return GS_OK;
	}
	while (!(rc = nsys_step(&n->in, q.st, &row)) && row) {
		int64_t id;
		const char *s = (const char *)sqlite3_column_text(q.st, 1);

		if (!nsys_i64(q.st, 0, &id) || id < 0 || id >= NSYS_ENUM_MAX || !s)
			continue;
		if (strncmp(s, prefix, plen) == 0)
			s += plen;
		map[id] = unknown;
		for (size_t i = 0; i < nnames; i++)
			if (strcmp(s, names[i].suffix) == 0)
				map[id] = names[i].value;
	}
	nsys_query_close(&q);
	return rc;
}

gs_status nsys_load_enums(struct nsys *n)
{
	gs_status rc;

	rc = nsys_load_enum(n, n->copy_map, "ENUM_CUDA_MEMCPY_OPER", "CUDA_MEMCPY_KIND_",
			    nsys_copy_names, NSYS_COUNT_OF(nsys_copy_names), GS_COPY_UNKNOWN);
	if (!rc)
		rc = nsys_load_enum(n, n->mem_map, "ENUM_CUDA_MEM_KIND", "CUDA_MEMOPR_MEMORY_KIND_",
				    nsys_mem_names, NSYS_COUNT_OF(nsys_mem_names), GS_MEM_UNKNOWN);
	if (!rc)
		rc = nsys_load_enum(n, n->sync_map, "ENUM_CUPTI_SYNC_TYPE",
				    "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_", nsys_sync_names,
				    NSYS_COUNT_OF(nsys_sync_names), GS_SYNC_UNKNOWN);
	if (!rc)
		rc = nsys_load_enum(n, n->stream_map, "ENUM_CUPTI_STREAM_TYPE",
				    "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_", nsys_stream_names,
				    NSYS_COUNT_OF(nsys_stream_names), GS_STREAM_UNKNOWN);
	return rc;
}

/* Column `col` through an enum map (`unknown` when NULL or out of range). */
uint8_t nsys_enum(const uint8_t *map, sqlite3_stmt *st, int col, uint8_t unknown)
{
	int64_t v;

	return nsys_i64(st, col, &v) && v >= 0 && v < NSYS_ENUM_MAX ? map[v] : unknown;
}

/* ------------------------------------------------------------------------ */
/* System, streams, devices                                                 */
/* ------------------------------------------------------------------------ */

gs_status nsys_load_system(struct nsys *n)
{
	static const char *const fields[] = {"name", "value"};
	struct nsys_query q;
	gs_status rc;
	bool row;

	rc = nsys_query_open(&n->in, &q, "TARGET_INFO_SYSTEM_ENV", fields, 2,
			     "WHERE name IN ('Hostname', 'CudaDriverVersion')", NULL, 0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = nsys_step(&n->in, q.st, &row)) && row) {
		const char *name = (const char *)sqlite3_column_text(q.st, 0);
		uint32_t *dst;

		if (!name)
			continue;
		dst = strcmp(name, "Hostname") == 0 ? &n->host_name : &n->driver_version;
		if (*dst == GS_NO_STRING && (rc = nsys_text(n, q.st, 1, dst)))
			break;
	}
	nsys_query_close(&q);
	return rc;
}

/*
 * The capture's start: utcEpochNs (UTC) and, where the export has it,
 * systemClockNs (the same instant on the clock the records use). A time t
 * of the trace is then utcEpochNs + (t - systemClockNs); without
 * systemClockNs (older exports, whose times count from the capture's
 * start) utcEpochNs + t.
 */
gs_status nsys_load_session(struct nsys *n)
{
	static const char *const fields[] = {"utcEpochNs", "systemClockNs"};
	struct nsys_query q;
	gs_status rc;
	bool row;

	rc = nsys_query_open(&n->in, &q, "TARGET_INFO_SESSION_START_TIME", fields, 2, NULL, NULL,
			     0);
	if (rc || !q.exists)
		return rc;
	if (!(rc = nsys_step(&n->in, q.st, &row)) && row) {
		int64_t utc, sys = 0;

		if (nsys_i64(q.st, 0, &utc) && utc > 0 && utc < GS_TIME_LIMIT_NS) {
			n->has_session = true;
			n->session_utc_ns = utc;
			if (nsys_i64(q.st, 1, &sys) && sys >= 0 && sys < GS_TIME_LIMIT_NS) {
				n->has_sys_clock = true;
				n->session_sys_ns = sys;
			}
		}
	}
	nsys_query_close(&q);
	n->in.table = NULL;
	return rc;
}

/*
 * The offset from the trace's times to UTC, when the session start gives
 * it. Where systemClockNs is given but the records' times lie far below it
 * (nearer 0 than it: an export whose times count from the capture's start),
 * the times are taken from the start, as without it.
 */
bool nsys_wall_offset(const struct nsys *n, int64_t *off)
{
	if (!n->has_session)
		return false;
	if (n->has_sys_clock &&
	    (!n->has_first_op || n->first_op_ns - n->session_sys_ns > -n->first_op_ns))
		*off = n->session_utc_ns - n->session_sys_ns;
	else
		*off = n->session_utc_ns;
	return true;
}

static gs_status nsys_sinfo_put(struct nsys *n, int64_t pid, int64_t ctx, int64_t stream,
				uint8_t kind, int32_t prio, bool keep_prio)
{
	struct nsys_key k = {pid, 0, ctx, stream};
	const struct nsys_kent *e = nsys_kmap_get(&n->sinfo, &k);

	if (!e && n->sinfo.count >= n->lim.max_streams) {
		gs_error_append("%s: %s: more than max_streams (%u) streams", n->in.name,
				n->in.table, n->lim.max_streams);
		return GS_ERR_LIMIT;
	}
	if (e && keep_prio)
		prio = (int32_t)(uint32_t)e->v2;
	return nsys_kmap_put(&n->sinfo, &k, kind, (uint32_t)prio);
}

/* Stream kinds and priorities, from the tables that list streams. */
gs_status nsys_load_stream_info(struct nsys *n)
{
	static const char *const sfields[] = {"streamId", "processId", "contextId", "priority",
					      "flag"};
	static const struct {
		const char *table, *stream;
	} nulls[] = {
		{"TARGET_INFO_CUDA_NULL_STREAM", "streamId"},
		{"TARGET_INFO_CUDA_CONTEXT_INFO", "nullStreamId"},
	};
	struct nsys_query q;
	gs_status rc;
	bool row;

	rc = nsys_query_open(&n->in, &q, "TARGET_INFO_CUDA_STREAM", sfields, 5, NULL, NULL, 0);
	if (rc)
		return rc;
	while (q.exists && !(rc = nsys_step(&n->in, q.st, &row)) && row) {
		int64_t stream, pid;

		if (!nsys_i64(q.st, 0, &stream) || !nsys_i64(q.st, 1, &pid))
			continue;
		rc = nsys_sinfo_put(n, pid, nsys_i64_or(q.st, 2, 0), stream,
				    nsys_enum(n->stream_map, q.st, 4, GS_STREAM_UNKNOWN),
				    nsys_i32(nsys_i64_or(q.st, 3, 0)), false);
		if (rc)
			break;
	}
	nsys_query_close(&q);
	for (size_t t = 0; !rc && t < NSYS_COUNT_OF(nulls); t++) {
		const char *fields[3] = {nulls[t].stream, "processId", "contextId"};

		rc = nsys_query_open(&n->in, &q, nulls[t].table, fields, 3, NULL, NULL, 0);
		while (!rc && q.exists && !(rc = nsys_step(&n->in, q.st, &row)) && row) {
			int64_t stream, pid;

			if (!nsys_i64(q.st, 0, &stream) || !nsys_i64(q.st, 1, &pid))
				continue;
			rc = nsys_sinfo_put(n, pid, nsys_i64_or(q.st, 2, 0), stream,
					    GS_STREAM_LEGACY_DEFAULT, 0, true);
		}
		nsys_query_close(&q);
	}
	return rc;
}

/* The index of stream (pid, device, context, stream), declared when new. */
gs_status nsys_stream(struct nsys *n, int64_t pid, int64_t device, int64_t ctx, int64_t stream,
		      uint32_t *index)
{
	struct nsys_key k = {pid, device, ctx, stream}, ik = {pid, 0, ctx, stream};
	const struct nsys_kent *e;
	struct gs_stream st = {0};
	uint32_t idx;
	gs_status rc;

	if (n->have_last && nsys_key_eq(&n->last_key, &k)) {
		*index = n->last_index;
		return GS_OK;
	}
	e = nsys_kmap_get(&n->streams, &k);
	if (e) {
		idx = (uint32_t)e->v1;
	} else {
		if (n->nstreams >= n->lim.max_streams) {
			gs_error_append("%s: %s: more than max_streams (%u) streams", n->in.name,
					n->in.table, n->lim.max_streams);
			return GS_ERR_LIMIT;
		}
		st.pid = pid;
		st.device = nsys_u32(device);
		st.context = nsys_u32(ctx);
		st.stream_id = nsys_u64(stream);
		e = nsys_kmap_get(&n->sinfo, &ik);
		if (e) {
			st.kind = (uint8_t)e->v1;
			st.priority = (int32_t)(uint32_t)e->v2;
		}
		idx = n->nstreams;
		if (n->sink->stream && (rc = n->sink->stream(n->sink, &st, &idx)))
			return nsys_sink_failed(n, rc);
		rc = nsys_kmap_put(&n->streams, &k, idx, 0);
		if (rc)
			return rc;
		n->nstreams++;
	}
	n->last_key = k;
	n->last_index = idx;
	n->have_last = true;
	*index = idx;
	return GS_OK;
}

gs_status nsys_emit_device_once(struct nsys *n, const struct gs_device *d)
{
	gs_status rc;

	if (gs_u64map_get(&n->dev_done, d->id, NULL))
		return GS_OK;
	rc = gs_u64map_put(&n->dev_done, d->id, 1, false);
	if (!rc)
		rc = nsys_emit_device(n, d);
	return rc;
}

/* The GPUs of TARGET_INFO_GPU (a handful of rows; at most NSYS_MAX_GPUS). */
static gs_status nsys_load_gpus(struct nsys *n)
{
	static const char *const fields[] = {
		"id",
		"cuDevice",
		"name",
		"uuid",
		"smCount|multiProcessorCount",
		"totalMemory|totalGlobalMem|globalMemorySize",
		"computeMajor|computeCapabilityMajor",
		"computeMinor|computeCapabilityMinor",
		"asyncEngines|asyncEngineCount|numMemcpyEngines",
	};
	struct nsys_query q;
	gs_status rc;
	bool row;

	rc = nsys_query_open(&n->in, &q, "TARGET_INFO_GPU", fields, NSYS_COUNT_OF(fields), NULL,
			     NULL, 0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = nsys_step(&n->in, q.st, &row)) && row && n->ngpus < NSYS_MAX_GPUS) {
		struct nsys_gpu g = {0};

		if (!nsys_i64(q.st, 0, &g.id))
			continue;
		g.has_cu_device = nsys_i64(q.st, 1, &g.cu_device);
		if ((rc = nsys_text(n, q.st, 2, &g.dev.name)) ||
		    (rc = nsys_text(n, q.st, 3, &g.dev.uuid)))
			break;
		g.dev.sm_count = nsys_u32(nsys_i64_or(q.st, 4, 0));
		g.dev.memory_bytes = nsys_u64(nsys_i64_or(q.st, 5, 0));
		g.dev.cc_major = nsys_u32(nsys_i64_or(q.st, 6, 0));
		g.dev.cc_minor = nsys_u32(nsys_i64_or(q.st, 7, 0));
		g.dev.copy_engines = nsys_u32(nsys_i64_or(q.st, 8, 0));
		if (!n->gpus) {
			n->gpus = calloc(NSYS_MAX_GPUS, sizeof(*n->gpus));
			if (!n->gpus) {
				rc = gs_nomem();
				break;
			}
		}
		n->gpus[n->ngpus++] = g;
	}
	nsys_query_close(&q);
	return rc;
}

static int nsys_gpu_cmp(const void *pa, const void *pb)
{
	const struct nsys_gpu *a = pa, *b = pb;

	return a->dev.id < b->dev.id ? -1 : a->dev.id > b->dev.id;
}

gs_status nsys_devices(struct nsys *n)
{
	static const char *const fields[] = {"cudaId", "gpuId"};
	struct nsys_query q;
	gs_status rc;
	bool row, mapped = false;

	rc = nsys_load_gpus(n);
	if (!rc)
		rc = nsys_query_open(&n->in, &q, "TARGET_INFO_CUDA_DEVICE", fields, 2, NULL, NULL,
				     0);
	if (rc)
		return rc;
	/* CUDA ordinal -> GPU, where the export says so. */
	if (q.exists && q.col[0] && q.col[1]) {
		mapped = true;
		while (!(rc = nsys_step(&n->in, q.st, &row)) && row) {
			int64_t cuda, gpu;

			if (!nsys_i64(q.st, 0, &cuda) || !nsys_i64(q.st, 1, &gpu))
				continue;
			for (size_t i = 0; i < n->ngpus; i++) {
				if (n->gpus[i].id != gpu)
					continue;
				struct gs_device d = n->gpus[i].dev;

				d.id = nsys_u32(cuda);
				rc = nsys_emit_device_once(n, &d);
				break;
			}
			if (rc)
				break;
		}
	}
	nsys_query_close(&q);
	if (rc || mapped)
		return rc;
	/* Else each GPU by its CUDA ordinal, in order of id. */
	n->in.table = "TARGET_INFO_GPU";
	for (size_t i = 0; i < n->ngpus; i++)
		n->gpus[i].dev.id =
			nsys_u32(n->gpus[i].has_cu_device ? n->gpus[i].cu_device : n->gpus[i].id);
	if (n->ngpus)
		qsort(n->gpus, n->ngpus, sizeof(*n->gpus), nsys_gpu_cmp);
	for (size_t i = 0; !rc && i < n->ngpus; i++)
		rc = nsys_emit_device_once(n, &n->gpus[i].dev);
	return rc;
}
