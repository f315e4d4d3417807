/* SPDX-License-Identifier: MIT */
/*
 * Nsight Systems SQLite export importer (`nsys export --type sqlite`).
 *
 * The file is opened read-only through the system SQLite library, as an
 * immutable URI (no lock, no -wal or -journal file is ever created next to
 * the input). A database in WAL mode with a -wal file beside it is the
 * exception: it is read with it, from a private copy of the two (SQLite
 * creates a -shm file beside a database in WAL mode; never beside the input).
 * One in WAL mode without a -wal file that holds no record is refused. Every table is read row by row with sqlite3_step; nothing is
 * loaded whole but what the model keeps (plus a map of API calls by
 * correlation id, and SQLite's own sorter, which spills to temporary files).
 * Columns are probed with pragma_table_info, so old and new schema versions
 * (2.x of nsys 2022, 3.x of nsys 2024) read the same; missing tables and
 * columns are fine. A database without any CUPTI_ACTIVITY_KIND_* table is
 * not an Nsight export and is refused. Opening, the checks, statements and
 * row iteration are nsys_db.c; this file maps the rows to records.
 *
 * Mapping (times are integer ns already; pid = (globalPid >> 24) & 0xFFFFFF,
 * tid = globalTid & 0xFFFFFF, as nsys serialises its GlobalIds):
 *   CUPTI_ACTIVITY_KIND_KERNEL   -> kernel ops. Name: demangledName, else
 *       shortName, else mangledName (through StringIds), as Kineto names
 *       kernels; grid, block, registers, static + dynamic shared memory,
 *       graphNodeId and graphId when present (GS_OPF_GRAPH with either, or
 *       when the launching call is a graph launch).
 *   CUPTI_ACTIVITY_KIND_MEMCPY   -> memcpy ops: copyKind and srcKind /
 *       dstKind through ENUM_CUDA_MEMCPY_OPER / ENUM_CUDA_MEM_KIND (by their
 *       symbol names; nsys' own numbering when the tables are absent: array
 *       copies become HtoD / DtoH / DtoD with GS_MEM_ARRAY, unified-memory
 *       copies keep their direction, static device / managed memory is
 *       device / managed); named as Kineto names copies
 *       ("Memcpy HtoD (Pageable -> Device)").
 *   CUPTI_ACTIVITY_KIND_MEMSET   -> memset ops ("Memset (Device)").
 *       Copies and memsets get GS_OPF_ASYNC when their call's name contains
 *       "Async" (the export has no flags column).
 *   CUPTI_ACTIVITY_KIND_RUNTIME / _DRIVER -> API calls, named through
 *       StringIds without the "_vNNNN" version suffix (cudaMalloc_v3020 ->
 *       cudaMalloc, as the collector names them). RUNTIME rows whose
 *       eventClass is 1 (CUDA driver) are driver calls. Older exports
 *       recorded a call twice with one correlation id when CUDA backtraces
 *       were collected (an outer eventClass 67 row around the real one):
 *       rows of one thread and one correlation id where one lies within the
 *       other are folded into the outer one (its times, name and return
 *       value; the kind of the inner runtime/driver row).
 *   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION -> syncs: syncType through
 *       ENUM_CUPTI_SYNC_TYPE; when the call's name says another kind (nsys
 *       2024 with CUDA 11 records cudaDeviceSynchronize as an event sync
 *       with no event) the name wins. Host thread from the call; stream for
 *       stream syncs and waits; eventId; eventSyncId / cudaEventSyncId.
 *   CUPTI_ACTIVITY_KIND_CUDA_EVENT -> event records (stream, event,
 *       correlation, sync id; the time is the record call's start). A sync
 *       on an event is joined to the latest record of that event before it
 *       (by correlation id, in each process): event_correlation and
 *       wait_on_stream.
 *   Device of a sync, a stream wait, an event record and the streams they
 *       name: the device of its (process, context), not the row's deviceId.
 *       Exports of two processes on two GPUs hold deviceId 0 in every
 *       SYNCHRONIZATION row whatever the GPU (CUDA_EVENT rows may too);
 *       only the context tells. The op tables (KERNEL, MEMCPY, MEMSET, read
 *       before syncs and records) carry the right deviceId: their rows map
 *       (pid, contextId) -> deviceId, so a sync's or record's stream is the
 *       ops' own (pid, device, context, stream). A context without ops
 *       keeps the row's deviceId; so does one whose ops name more than one
 *       device (impossible in CUDA), counted in one warning.
 *   TARGET_INFO_CUDA_STREAM, TARGET_INFO_CUDA_NULL_STREAM,
 *   TARGET_INFO_CUDA_CONTEXT_INFO -> stream kind (flag through
 *       ENUM_CUPTI_STREAM_TYPE: default -> blocking, non-blocking, null ->
 *       legacy default) and priority. Streams are declared as (pid, device,
 *       context, stream) when a record uses them.
 *   TARGET_INFO_GPU (+ TARGET_INFO_CUDA_DEVICE) -> devices. The device id
 *       of the records is the CUDA ordinal: TARGET_INFO_CUDA_DEVICE maps it
 *       to a GPU where present, else a GPU row's cuDevice is its id (its
 *       own id when cuDevice is absent). Copy engines: asyncEngines.
 *   NVTX_EVENTS -> NVTX ranges: push/pop (eventType 59) and start/end (60)
 *       ranges with an end; text, else textId; the domain's name from its
 *       NvtxDomainCreate row (75).
 *   PROCESSES, TARGET_INFO_SYSTEM_ENV -> one gs_process per pid that has
 *       records: its name as command line, Hostname, CudaDriverVersion.
 *   TARGET_INFO_SESSION_START_TIME -> each process's wall clock
 *       (GS_CLOCK_NSYS_SESSION): a time t is utcEpochNs + (t -
 *       systemClockNs); older exports lack systemClockNs and count from the
 *       capture's start (utcEpochNs + t), and so does an export whose first
 *       op lies nearer 0 than systemClockNs (ns_wall_offset).
 * Records with end before start, over 7 days long, or without a time, and
 * GPU records without a valid device or stream, are dropped and counted;
 * each kind reaches the sink as one warning at the end.
 */
#include "import_priv.h"
#include "nsys_db.h"

#include <gpuscope/hash.h>
#include <gpuscope/u64map.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_ENUM_MAX 64
#define NS_MAX_GPUS 4096
#define NS_INVALID_ID 0xFFFFFFFFll /* CUPTI's "no stream / no event" */

/* ------------------------------------------------------------------------ */
/* Hash maps                                                                */
/* ------------------------------------------------------------------------ */

/* A map keyed by four integers, for the small tables (streams, events). */
struct ns_key {
	int64_t a;
	int64_t b, c, d;
};

struct ns_kent {
	struct ns_key k;
	uint64_t v1, v2;
	bool used;
};

struct ns_kmap {
	struct ns_kent *e;
	size_t count, cap;
};

static uint64_t ns_key_hash(const struct ns_key *k)
{
	return gs_hash_u64((uint64_t)k->a ^
			   gs_hash_u64((uint64_t)k->b ^
				       gs_hash_u64((uint64_t)k->c ^ gs_hash_u64((uint64_t)k->d))));
}

static bool ns_key_eq(const struct ns_key *x, const struct ns_key *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c && x->d == y->d;
}

static struct ns_kent *ns_kmap_slot(const struct ns_kmap *m, const struct ns_key *k)
{
	size_t mask = m->cap - 1, i = (size_t)ns_key_hash(k) & mask;

	for (;; i = (i + 1) & mask)
		if (!m->e[i].used || ns_key_eq(&m->e[i].k, k))
			return &m->e[i];
}

static const struct ns_kent *ns_kmap_get(const struct ns_kmap *m, const struct ns_key *k)
{
	const struct ns_kent *e;

	if (!m->cap)
		return NULL;
	e = ns_kmap_slot(m, k);
	return e->used ? e : NULL;
}

static gs_status ns_kmap_put(struct ns_kmap *m, const struct ns_key *k, uint64_t v1, uint64_t v2)
{
	struct ns_kent *e;

	if ((m->count + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct ns_kmap nm = {.cap = ncap, .count = m->count};

		nm.e = calloc(ncap, sizeof(*nm.e));
		if (!nm.e) {
			return gs_nomem();
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->e[i].used)
				*ns_kmap_slot(&nm, &m->e[i].k) = m->e[i];
		free(m->e);
		*m = nm;
	}
	e = ns_kmap_slot(m, k);
	if (!e->used) {
		e->used = true;
		e->k = *k;
		m->count++;
	}
	e->v1 = v1;
	e->v2 = v2;
	return GS_OK;
}

static void ns_kmap_fini(struct ns_kmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

/* Counted warnings. */
enum ns_warn {
	NW_NO_TIME,
	NW_NEG_DUR,
	NW_HUGE_DUR,
	NW_NO_STREAM,
	NW_COUNT
};

static const char *const ns_warn_text[NW_COUNT] = {
	[NW_NO_TIME] = "records without a start or end time",
	[NW_NEG_DUR] = "records whose end is before their start",
	[NW_HUGE_DUR] = "records longer than 7 days",
	[NW_NO_STREAM] = "GPU records without a valid device or stream",
};

/* What an API call's name says (cached with the name's string id). */
enum ns_name_flags {
	NF_ASYNC = 1u << 0,
	NF_GRAPH = 1u << 1,
	NF_EVREC = 1u << 2,
	NF_SYNC_SHIFT = 3, /* bits 3..5: the enum gs_sync_kind the name implies */
};

/* Memcpy kind table entries: direction plus the array sides. */
#define NS_CK_SRC_ARRAY 0x10u
#define NS_CK_DST_ARRAY 0x20u
#define NS_CK_KIND(v) ((v)&0x0Fu)

struct ns_gpu {
	int64_t id, cu_device;
	bool has_cu_device;
	struct gs_device dev; /* every field but id */
};

struct nsys {
	struct ns_db in; /* in.lim points at lim */
	struct gs_sink *sink;
	struct gs_import_limits lim;
	uint64_t records;
	struct gs_u64map strs;     /* StringIds id << 1 | api -> sink id | flags << 32 */
	struct gs_u64map calls;    /* call key -> tid | flags << 32 */
	struct gs_u64map evrec;    /* call key -> start of a cudaEventRecord call */
	struct gs_u64map pids;     /* pids with records */
	struct gs_u64map dev_used; /* device ids used by records */
	struct gs_u64map dev_done; /* device ids emitted */
	struct ns_kmap streams;    /* (pid, device, context, stream) -> index */
	struct ns_kmap sinfo;      /* (pid, 0, context, stream) -> kind, priority */
	struct ns_kmap domains;    /* (pid, domain id) -> string id */
	struct ns_kmap events;     /* (pid, event id) -> record correlation, stream */
	struct ns_kmap ctxdev;     /* (pid, context) -> device of its ops, 1 if several */
	struct ns_key last_ctx;    /* (pid, context, device) last noted */
	bool have_last_ctx;
	uint64_t ctx_conflicts; /* contexts whose ops name several devices */
	uint32_t nstreams;
	struct ns_key last_key;
	uint32_t last_index;
	bool have_last;
	uint8_t copy_map[NS_ENUM_MAX], mem_map[NS_ENUM_MAX];
	uint8_t sync_map[NS_ENUM_MAX], stream_map[NS_ENUM_MAX];
	uint32_t copy_names[GS_COPY_KIND_COUNT][GS_MEM_KIND_COUNT][GS_MEM_KIND_COUNT];
	uint32_t memset_names[GS_MEM_KIND_COUNT];
	uint32_t unnamed_kernel;
	uint32_t host_name, driver_version;
	/* TARGET_INFO_SESSION_START_TIME: the capture's start in UTC and, in
	 * newer exports, on the system clock; the first op's start. */
	bool has_session, has_sys_clock, has_first_op;
	int64_t session_utc_ns, session_sys_ns, first_op_ns;
	uint64_t warn[NW_COUNT];
	const char *warn_table[NW_COUNT];
	struct ns_gpu *gpus;
	size_t ngpus;
};

static void ns_warn(struct nsys *n, enum ns_warn w)
{
	if (!n->warn[w]++)
		n->warn_table[w] = n->in.table;
}

static gs_status ns_sink_failed(struct nsys *n, gs_status rc)
{
	gs_error_append("%s: %s", n->in.name, n->in.table ? n->in.table : "Nsight export");
	return rc;
}

static gs_status ns_count(struct nsys *n)
{
	if (++n->records > n->lim.max_records) {
		gs_error_append("%s: %s: more than max_records (%llu) records", n->in.name,
				n->in.table ? n->in.table : "Nsight export",
				(unsigned long long)n->lim.max_records);
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

/* ns_emit_<cb>: count one record and pass it to the sink's callback. */
#define NS_DEFINE_EMIT(cb, type)                                                                   \
	GS_IMPORT_DEFINE_EMIT(ns, struct nsys, ns_count, ns_sink_failed, cb, type)

/* ns_emit_op: the same for an op, with its launch configuration (NULL for
 * a copy or a memset). */
static gs_status ns_emit_op(struct nsys *n, const struct gs_op *op,
			    const struct gs_launch_cfg *launch)
{
	gs_status rc = ns_count(n);

	if (!n->has_first_op || op->start_ns < n->first_op_ns) {
		n->has_first_op = true;
		n->first_op_ns = op->start_ns;
	}
	if (!rc && n->sink->op && (rc = n->sink->op(n->sink, op, launch)))
		rc = ns_sink_failed(n, rc);
	return rc;
}

NS_DEFINE_EMIT(api_call, struct gs_api_call)
NS_DEFINE_EMIT(sync, struct gs_sync)
NS_DEFINE_EMIT(event_record, struct gs_event_record)
NS_DEFINE_EMIT(range, struct gs_range)
NS_DEFINE_EMIT(device, struct gs_device)
NS_DEFINE_EMIT(process, struct gs_process)

static gs_status ns_intern(struct nsys *n, const char *s, size_t len, uint32_t *id)
{
	gs_status rc;

	*id = GS_NO_STRING;
	if (len > n->lim.max_string_bytes) {
		gs_error_append("%s: %s: string longer than max_string_bytes (%llu)", n->in.name,
				n->in.table ? n->in.table : "StringIds",
				(unsigned long long)n->lim.max_string_bytes);
		return GS_ERR_LIMIT;
	}
	if (!n->sink->intern)
		return GS_OK;
	rc = n->sink->intern(n->sink, s, len, id);
	if (rc)
		return ns_sink_failed(n, rc);
	return GS_OK;
}

static gs_status ns_intern_str(struct nsys *n, const char *s, uint32_t *id)
{
	return ns_intern(n, s, strlen(s), id);
}

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static uint32_t ns_u32(int64_t v)
{
	if (v < 0)
		return 0;
	return v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint64_t ns_u64(int64_t v)
{
	return v < 0 ? 0 : (uint64_t)v;
}

/* A 32-bit value nsys may store unsigned (priority -5 as 4294967291). */
static int32_t ns_i32(int64_t v)
{
	if (v >= INT32_MIN && v <= INT32_MAX)
		return (int32_t)v;
	if (v > INT32_MAX && v <= (int64_t)UINT32_MAX)
		return (int32_t)(uint32_t)v;
	return 0;
}

static int64_t ns_pid_of(int64_t global_id)
{
	return (int64_t)(((uint64_t)global_id >> 24) & 0xFFFFFF);
}

static int64_t ns_tid_of(int64_t global_id)
{
	return (int64_t)((uint64_t)global_id & 0xFFFFFF);
}

/* A device, stream or event id that names something (not NULL, -1 or
 * CUPTI's 0xFFFFFFFF). */
static bool ns_valid_id(bool present, int64_t v)
{
	return present && v >= 0 && v != NS_INVALID_ID;
}

/* Key of an API call: its process and correlation id (ids repeat across
 * processes). 0 when the call cannot be keyed. */
static uint64_t ns_call_key(int64_t pid, int64_t corr)
{
	if (corr <= 0 || corr >= (1LL << 40))
		return 0;
	return ((uint64_t)pid & 0xFFFFFF) << 40 | (uint64_t)corr;
}

/* Length of an API name without its "_vNNNN" version suffix. */
static size_t ns_api_name_len(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i < n && i >= 3 && s[i - 1] == 'v' && s[i - 2] == '_')
		return i - 2;
	return n;
}

static uint8_t ns_api_name_flags(const char *s)
{
	unsigned f = 0, k = GS_SYNC_UNKNOWN;

	if (gs_api_name_is_async(s, strlen(s)))
		f |= NF_ASYNC;
	if (gs_api_name_is_graph_launch(s, strlen(s)))
		f |= NF_GRAPH;
	if (strstr(s, "EventRecord"))
		f |= NF_EVREC;
	if (strstr(s, "DeviceSynchronize") || strstr(s, "CtxSynchronize"))
		k = GS_SYNC_CONTEXT;
	else if (strstr(s, "StreamSynchronize"))
		k = GS_SYNC_STREAM;
	else if (strstr(s, "EventSynchronize"))
		k = GS_SYNC_EVENT;
	else if (strstr(s, "StreamWaitEvent"))
		k = GS_SYNC_STREAM_WAIT;
	return (uint8_t)(f | k << NF_SYNC_SHIFT);
}

/* Check the times of a record: true when usable, else counted. */
static bool ns_times_ok(struct nsys *n, bool has_start, int64_t start, bool has_end, int64_t end)
{
	if (!has_start || !has_end) {
		ns_warn(n, NW_NO_TIME);
		return false;
	}
	if (end < start) {
		ns_warn(n, NW_NEG_DUR);
		return false;
	}
	if ((uint64_t)end - (uint64_t)start > (uint64_t)GS_MAX_DURATION_NS) {
		ns_warn(n, NW_HUGE_DUR);
		return false;
	}
	return true;
}

static gs_status ns_note_pid(struct nsys *n, int64_t pid)
{
	return gs_u64map_put(&n->pids, (uint64_t)pid, 1, false);
}

/* ------------------------------------------------------------------------ */
/* Strings                                                                  */
/* ------------------------------------------------------------------------ */

/*
 * The sink's id of StringIds row `id` (GS_NO_STRING when there is none);
 * `api`: without the version suffix, and *flags what the name says.
 */
static gs_status ns_string(struct nsys *n, int64_t id, bool api, uint32_t *sid, uint8_t *flags)
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
		rc = ns_step(&n->in, n->in.str_stmt, &row);
		if (!rc && row && sqlite3_column_type(n->in.str_stmt, 0) != SQLITE_NULL) {
			const char *s = (const char *)sqlite3_column_text(n->in.str_stmt, 0);
			size_t len = (size_t)sqlite3_column_bytes(n->in.str_stmt, 0);
			uint8_t f = 0;

			if (!s) {
				rc = gs_nomem();
			} else {
				if (api) {
					f = ns_api_name_flags(s);
					len = ns_api_name_len(s, len);
				}
				rc = ns_intern(n, s, len, sid);
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
static gs_status ns_text(struct nsys *n, sqlite3_stmt *st, int col, uint32_t *sid)
{
	const char *s;

	*sid = GS_NO_STRING;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return GS_OK;
	s = (const char *)sqlite3_column_text(st, col);
	if (!s)
		return gs_nomem();
	return ns_intern(n, s, (size_t)sqlite3_column_bytes(st, col), sid);
}

/* ------------------------------------------------------------------------ */
/* Enums                                                                    */
/* ------------------------------------------------------------------------ */

struct ns_enum_name {
	const char *suffix;
	uint8_t value;
};

static const struct ns_enum_name ns_copy_names[] = {
	{"UNKNOWN", GS_COPY_UNKNOWN},
	{"HTOD", GS_COPY_HTOD},
	{"DTOH", GS_COPY_DTOH},
	{"HTOA", GS_COPY_HTOD | NS_CK_DST_ARRAY},
	{"ATOH", GS_COPY_DTOH | NS_CK_SRC_ARRAY},
	{"ATOA", GS_COPY_DTOD | NS_CK_SRC_ARRAY | NS_CK_DST_ARRAY},
	{"ATOD", GS_COPY_DTOD | NS_CK_SRC_ARRAY},
	{"DTOA", GS_COPY_DTOD | NS_CK_DST_ARRAY},
	{"DTOD", GS_COPY_DTOD},
	{"HTOH", GS_COPY_HTOH},
	{"PTOP", GS_COPY_PTOP},
	{"UVM_HTOD", GS_COPY_HTOD},
	{"UVM_DTOH", GS_COPY_DTOH},
	{"UVM_DTOD", GS_COPY_DTOD},
};

static const struct ns_enum_name ns_mem_names[] = {
	{"PAGEABLE", GS_MEM_PAGEABLE},      {"PINNED", GS_MEM_PINNED},
	{"DEVICE", GS_MEM_DEVICE},          {"ARRAY", GS_MEM_ARRAY},
	{"MANAGED", GS_MEM_MANAGED},        {"DEVICE_STATIC", GS_MEM_DEVICE},
	{"MANAGED_STATIC", GS_MEM_MANAGED}, {"UNKNOWN", GS_MEM_UNKNOWN},
};

static const struct ns_enum_name ns_sync_names[] = {
	{"UNKNOWN", GS_SYNC_UNKNOWN},
	{"EVENT_SYNCHRONIZE", GS_SYNC_EVENT},
	{"STREAM_WAIT_EVENT", GS_SYNC_STREAM_WAIT},
	{"STREAM_SYNCHRONIZE", GS_SYNC_STREAM},
	{"CONTEXT_SYNCHRONIZE", GS_SYNC_CONTEXT},
};

static const struct ns_enum_name ns_stream_names[] = {
	{"UNKNOWN", GS_STREAM_UNKNOWN},
	{"DEFAULT", GS_STREAM_BLOCKING},
	{"NON_BLOCKING", GS_STREAM_NON_BLOCKING},
	{"NULL", GS_STREAM_LEGACY_DEFAULT},
	{"PER_THREAD", GS_STREAM_PER_THREAD_DEFAULT},
};

#define NS_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Fill map (value -> model value) with nsys' numbering (the order of
 * `names`), then read `table` where present: each row's symbol name, less
 * `prefix`, says what its id means.
 */
static gs_status ns_load_enum(struct nsys *n, uint8_t *map, const char *table, const char *prefix,
			      const struct ns_enum_name *names, size_t nnames, uint8_t unknown)
{
	static const char *const fields[] = {"id", "name"};
	size_t plen = strlen(prefix);
	struct ns_query q;
	gs_status rc;
	bool row;

	for (size_t i = 0; i < NS_ENUM_MAX; i++)
		map[i] = i < nnames ? names[i].value : unknown;
	rc = ns_query_open(&n->in, &q, table, fields, 2, NULL, NULL, 0);
	if (rc || !q.exists)
		return rc;
	if (!q.col[0] || !q.col[1]) {
		ns_query_close(&q);
		return GS_OK;
	}
	while (!(rc = ns_step(&n->in, q.st, &row)) && row) {
		int64_t id;
		const char *s = (const char *)sqlite3_column_text(q.st, 1);

		if (!ns_i64(q.st, 0, &id) || id < 0 || id >= NS_ENUM_MAX || !s)
			continue;
		if (strncmp(s, prefix, plen) == 0)
			s += plen;
		map[id] = unknown;
		for (size_t i = 0; i < nnames; i++)
			if (strcmp(s, names[i].suffix) == 0)
				map[id] = names[i].value;
	}
	ns_query_close(&q);
	return rc;
}

static gs_status ns_load_enums(struct nsys *n)
{
	gs_status rc;

	rc = ns_load_enum(n, n->copy_map, "ENUM_CUDA_MEMCPY_OPER", "CUDA_MEMCPY_KIND_",
			  ns_copy_names, NS_COUNT_OF(ns_copy_names), GS_COPY_UNKNOWN);
	if (!rc)
		rc = ns_load_enum(n, n->mem_map, "ENUM_CUDA_MEM_KIND", "CUDA_MEMOPR_MEMORY_KIND_",
				  ns_mem_names, NS_COUNT_OF(ns_mem_names), GS_MEM_UNKNOWN);
	if (!rc)
		rc = ns_load_enum(n, n->sync_map, "ENUM_CUPTI_SYNC_TYPE",
				  "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_", ns_sync_names,
				  NS_COUNT_OF(ns_sync_names), GS_SYNC_UNKNOWN);
	if (!rc)
		rc = ns_load_enum(n, n->stream_map, "ENUM_CUPTI_STREAM_TYPE",
				  "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_", ns_stream_names,
				  NS_COUNT_OF(ns_stream_names), GS_STREAM_UNKNOWN);
	return rc;
}

/* Column `col` through an enum map (`unknown` when NULL or out of range). */
static uint8_t ns_enum(const uint8_t *map, sqlite3_stmt *st, int col, uint8_t unknown)
{
	int64_t v;

	return ns_i64(st, col, &v) && v >= 0 && v < NS_ENUM_MAX ? map[v] : unknown;
}

/* ------------------------------------------------------------------------ */
/* System, streams, devices                                                 */
/* ------------------------------------------------------------------------ */

static gs_status ns_load_system(struct nsys *n)
{
	static const char *const fields[] = {"name", "value"};
	struct ns_query q;
	gs_status rc;
	bool row;

	rc = ns_query_open(&n->in, &q, "TARGET_INFO_SYSTEM_ENV", fields, 2,
			   "WHERE name IN ('Hostname', 'CudaDriverVersion')", NULL, 0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = ns_step(&n->in, q.st, &row)) && row) {
		const char *name = (const char *)sqlite3_column_text(q.st, 0);
		uint32_t *dst;

		if (!name)
			continue;
		dst = strcmp(name, "Hostname") == 0 ? &n->host_name : &n->driver_version;
		if (*dst == GS_NO_STRING && (rc = ns_text(n, q.st, 1, dst)))
			break;
	}
	ns_query_close(&q);
	return rc;
}

/*
 * The capture's start: utcEpochNs (UTC) and, where the export has it,
 * systemClockNs (the same instant on the clock the records use). A time t
 * of the trace is then utcEpochNs + (t - systemClockNs); without
 * systemClockNs (older exports, whose times count from the capture's
 * start) utcEpochNs + t.
 */
static gs_status ns_load_session(struct nsys *n)
{
	static const char *const fields[] = {"utcEpochNs", "systemClockNs"};
	struct ns_query q;
	gs_status rc;
	bool row;

	rc = ns_query_open(&n->in, &q, "TARGET_INFO_SESSION_START_TIME", fields, 2, NULL, NULL, 0);
	if (rc || !q.exists)
		return rc;
	if (!(rc = ns_step(&n->in, q.st, &row)) && row) {
		int64_t utc, sys = 0;

		if (ns_i64(q.st, 0, &utc) && utc > 0 && utc < GS_TIME_LIMIT_NS) {
			n->has_session = true;
			n->session_utc_ns = utc;
			if (ns_i64(q.st, 1, &sys) && sys >= 0 && sys < GS_TIME_LIMIT_NS) {
				n->has_sys_clock = true;
				n->session_sys_ns = sys;
			}
		}
	}
	ns_query_close(&q);
	n->in.table = NULL;
	return rc;
}

/*
 * The offset from the trace's times to UTC, when the session start gives
 * it. Where systemClockNs is given but the records' times lie far below it
 * (nearer 0 than it: an export whose times count from the capture's start),
 * the times are taken from the start, as without it.
 */
static bool ns_wall_offset(const struct nsys *n, int64_t *off)
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

static gs_status ns_sinfo_put(struct nsys *n, int64_t pid, int64_t ctx, int64_t stream,
			      uint8_t kind, int32_t prio, bool keep_prio)
{
	struct ns_key k = {pid, 0, ctx, stream};
	const struct ns_kent *e = ns_kmap_get(&n->sinfo, &k);

	if (!e && n->sinfo.count >= n->lim.max_streams) {
		gs_error_append("%s: %s: more than max_streams (%u) streams", n->in.name,
				n->in.table, n->lim.max_streams);
		return GS_ERR_LIMIT;
	}
	if (e && keep_prio)
		prio = (int32_t)(uint32_t)e->v2;
	return ns_kmap_put(&n->sinfo, &k, kind, (uint32_t)prio);
}

/* Stream kinds and priorities, from the tables that list streams. */
static gs_status ns_load_stream_info(struct nsys *n)
{
	static const char *const sfields[] = {"streamId", "processId", "contextId", "priority",
					      "flag"};
	static const struct {
		const char *table, *stream;
	} nulls[] = {
		{"TARGET_INFO_CUDA_NULL_STREAM", "streamId"},
		{"TARGET_INFO_CUDA_CONTEXT_INFO", "nullStreamId"},
	};
	struct ns_query q;
	gs_status rc;
	bool row;

	rc = ns_query_open(&n->in, &q, "TARGET_INFO_CUDA_STREAM", sfields, 5, NULL, NULL, 0);
	if (rc)
		return rc;
	while (q.exists && !(rc = ns_step(&n->in, q.st, &row)) && row) {
		int64_t stream, pid;

		if (!ns_i64(q.st, 0, &stream) || !ns_i64(q.st, 1, &pid))
			continue;
		rc = ns_sinfo_put(n, pid, ns_i64_or(q.st, 2, 0), stream,
				  ns_enum(n->stream_map, q.st, 4, GS_STREAM_UNKNOWN),
				  ns_i32(ns_i64_or(q.st, 3, 0)), false);
		if (rc)
			break;
	}
	ns_query_close(&q);
	for (size_t t = 0; !rc && t < NS_COUNT_OF(nulls); t++) {
		const char *fields[3] = {nulls[t].stream, "processId", "contextId"};

		rc = ns_query_open(&n->in, &q, nulls[t].table, fields, 3, NULL, NULL, 0);
		while (!rc && q.exists && !(rc = ns_step(&n->in, q.st, &row)) && row) {
			int64_t stream, pid;

			if (!ns_i64(q.st, 0, &stream) || !ns_i64(q.st, 1, &pid))
				continue;
			rc = ns_sinfo_put(n, pid, ns_i64_or(q.st, 2, 0), stream,
					  GS_STREAM_LEGACY_DEFAULT, 0, true);
		}
		ns_query_close(&q);
	}
	return rc;
}

/* The index of stream (pid, device, context, stream), declared when new. */
static gs_status ns_stream(struct nsys *n, int64_t pid, int64_t device, int64_t ctx, int64_t stream,
			   uint32_t *index)
{
	struct ns_key k = {pid, device, ctx, stream}, ik = {pid, 0, ctx, stream};
	const struct ns_kent *e;
	struct gs_stream st = {0};
	uint32_t idx;
	gs_status rc;

	if (n->have_last && ns_key_eq(&n->last_key, &k)) {
		*index = n->last_index;
		return GS_OK;
	}
	e = ns_kmap_get(&n->streams, &k);
	if (e) {
		idx = (uint32_t)e->v1;
	} else {
		if (n->nstreams >= n->lim.max_streams) {
			gs_error_append("%s: %s: more than max_streams (%u) streams", n->in.name,
					n->in.table, n->lim.max_streams);
			return GS_ERR_LIMIT;
		}
		st.pid = pid;
		st.device = ns_u32(device);
		st.context = ns_u32(ctx);
		st.stream_id = ns_u64(stream);
		e = ns_kmap_get(&n->sinfo, &ik);
		if (e) {
			st.kind = (uint8_t)e->v1;
			st.priority = (int32_t)(uint32_t)e->v2;
		}
		idx = n->nstreams;
		if (n->sink->stream && (rc = n->sink->stream(n->sink, &st, &idx)))
			return ns_sink_failed(n, rc);
		rc = ns_kmap_put(&n->streams, &k, idx, 0);
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

static gs_status ns_emit_device_once(struct nsys *n, const struct gs_device *d)
{
	gs_status rc;

	if (gs_u64map_get(&n->dev_done, d->id, NULL))
		return GS_OK;
	rc = gs_u64map_put(&n->dev_done, d->id, 1, false);
	if (!rc)
		rc = ns_emit_device(n, d);
	return rc;
}

/* The GPUs of TARGET_INFO_GPU (a handful of rows; at most NS_MAX_GPUS). */
static gs_status ns_load_gpus(struct nsys *n)
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
	struct ns_query q;
	gs_status rc;
	bool row;

	rc = ns_query_open(&n->in, &q, "TARGET_INFO_GPU", fields, NS_COUNT_OF(fields), NULL, NULL,
			   0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = ns_step(&n->in, q.st, &row)) && row && n->ngpus < NS_MAX_GPUS) {
		struct ns_gpu g = {0};

		if (!ns_i64(q.st, 0, &g.id))
			continue;
		g.has_cu_device = ns_i64(q.st, 1, &g.cu_device);
		if ((rc = ns_text(n, q.st, 2, &g.dev.name)) ||
		    (rc = ns_text(n, q.st, 3, &g.dev.uuid)))
			break;
		g.dev.sm_count = ns_u32(ns_i64_or(q.st, 4, 0));
		g.dev.memory_bytes = ns_u64(ns_i64_or(q.st, 5, 0));
		g.dev.cc_major = ns_u32(ns_i64_or(q.st, 6, 0));
		g.dev.cc_minor = ns_u32(ns_i64_or(q.st, 7, 0));
		g.dev.copy_engines = ns_u32(ns_i64_or(q.st, 8, 0));
		if (!n->gpus) {
			n->gpus = calloc(NS_MAX_GPUS, sizeof(*n->gpus));
			if (!n->gpus) {
				rc = gs_nomem();
				break;
			}
		}
		n->gpus[n->ngpus++] = g;
	}
	ns_query_close(&q);
	return rc;
}

static int ns_gpu_cmp(const void *pa, const void *pb)
{
	const struct ns_gpu *a = pa, *b = pb;

	return a->dev.id < b->dev.id ? -1 : a->dev.id > b->dev.id;
}

static gs_status ns_devices(struct nsys *n)
{
	static const char *const fields[] = {"cudaId", "gpuId"};
	struct ns_query q;
	gs_status rc;
	bool row, mapped = false;

	rc = ns_load_gpus(n);
	if (!rc)
		rc = ns_query_open(&n->in, &q, "TARGET_INFO_CUDA_DEVICE", fields, 2, NULL, NULL, 0);
	if (rc)
		return rc;
	/* CUDA ordinal -> GPU, where the export says so. */
	if (q.exists && q.col[0] && q.col[1]) {
		mapped = true;
		while (!(rc = ns_step(&n->in, q.st, &row)) && row) {
			int64_t cuda, gpu;

			if (!ns_i64(q.st, 0, &cuda) || !ns_i64(q.st, 1, &gpu))
				continue;
			for (size_t i = 0; i < n->ngpus; i++) {
				if (n->gpus[i].id != gpu)
					continue;
				struct gs_device d = n->gpus[i].dev;

				d.id = ns_u32(cuda);
				rc = ns_emit_device_once(n, &d);
				break;
			}
			if (rc)
				break;
		}
	}
	ns_query_close(&q);
	if (rc || mapped)
		return rc;
	/* Else each GPU by its CUDA ordinal, in order of id. */
	n->in.table = "TARGET_INFO_GPU";
	for (size_t i = 0; i < n->ngpus; i++)
		n->gpus[i].dev.id =
			ns_u32(n->gpus[i].has_cu_device ? n->gpus[i].cu_device : n->gpus[i].id);
	if (n->ngpus)
		qsort(n->gpus, n->ngpus, sizeof(*n->gpus), ns_gpu_cmp);
	for (size_t i = 0; !rc && i < n->ngpus; i++)
		rc = ns_emit_device_once(n, &n->gpus[i].dev);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* API calls                                                                */
/* ------------------------------------------------------------------------ */

struct ns_call {
	struct gs_api_call c;
	int64_t global_tid;
	uint8_t flags;
	bool kind_known;
	bool have;
};

/* Emit a call and remember what ops and syncs need from it. */
static gs_status ns_call_flush(struct nsys *n, struct ns_call *p)
{
	uint64_t key;
	gs_status rc;

	if (!p->have)
		return GS_OK;
	p->have = false;
	rc = ns_emit_api_call(n, &p->c);
	if (!rc)
		rc = ns_note_pid(n, p->c.pid);
	key = ns_call_key(p->c.pid, (int64_t)p->c.correlation);
	if (rc || !key)
		return rc;
	rc = gs_u64map_put(&n->calls, key, (uint32_t)p->c.tid | (uint64_t)p->flags << 32, false);
	if (!rc && (p->flags & NF_EVREC))
		rc = gs_u64map_put(&n->evrec, key, (uint64_t)p->c.start_ns, false);
	return rc;
}

static gs_status ns_api_table(struct nsys *n, const char *table, bool driver)
{
	static const char *const fields[] = {"start",         "end",    "eventClass", "globalTid",
					     "correlationId", "nameId", "returnValue"};
	/* Duplicates of one call sit together, the outer one first. */
	static const int order[] = {3, 4, 0, -2};
	struct ns_call p = {0};
	struct ns_query q;
	gs_status rc;
	bool row;

	rc = ns_query_open(&n->in, &q, table, fields, NS_COUNT_OF(fields), NULL, order,
			   NS_COUNT_OF(order));
	if (rc || !q.exists)
		return rc;
	while (!(rc = ns_step(&n->in, q.st, &row)) && row) {
		struct ns_call r = {.have = true};
		int64_t start = 0, end = 0, cls, corr = 0, gtid = 0, name;
		bool hs = ns_i64(q.st, 0, &start), he = ns_i64(q.st, 1, &end);
		bool hc = ns_i64(q.st, 4, &corr) && corr > 0;

		if (!ns_times_ok(n, hs, start, he, end))
			continue;
		ns_i64(q.st, 3, &gtid);
		if (p.have && hc && (uint64_t)corr == p.c.correlation && gtid == p.global_tid &&
		    start >= p.c.start_ns && end <= p.c.end_ns) {
			/* The inner row of a call recorded twice: fold it. */
			cls = ns_i64_or(q.st, 2, -1);
			if (!p.kind_known && (driver || cls == 0 || cls == 1)) {
				p.c.kind = driver || cls == 1 ? GS_API_DRIVER : GS_API_RUNTIME;
				p.kind_known = true;
			}
			if (ns_i64(q.st, 5, &name)) {
				uint32_t sid;
				uint8_t f = 0;

				rc = ns_string(n, name, true, &sid, &f);
				if (rc)
					break;
				p.flags |= f;
				if (p.c.name == GS_NO_STRING)
					p.c.name = sid;
			}
			continue;
		}
		rc = ns_call_flush(n, &p);
		if (rc)
			break;
		cls = ns_i64_or(q.st, 2, -1);
		r.c.start_ns = start;
		r.c.end_ns = end;
		r.global_tid = gtid;
		r.c.pid = ns_pid_of(gtid);
		r.c.tid = ns_tid_of(gtid);
		r.c.correlation = hc ? (uint64_t)corr : 0;
		r.c.return_value = ns_i32(ns_i64_or(q.st, 6, 0));
		r.kind_known = driver || cls == 0 || cls == 1;
		r.c.kind = driver || cls == 1 ? GS_API_DRIVER : GS_API_RUNTIME;
		r.c.name = GS_NO_STRING;
		if (ns_i64(q.st, 5, &name) && (rc = ns_string(n, name, true, &r.c.name, &r.flags)))
			break;
		p = r;
	}
	if (!rc)
		rc = ns_call_flush(n, &p);
	ns_query_close(&q);
	return rc;
}

/* What the call (pid, corr) said: thread and name flags. */
static bool ns_call_info(const struct nsys *n, int64_t pid, bool has_corr, int64_t corr,
			 int64_t *tid, uint8_t *flags)
{
	uint64_t key = has_corr ? ns_call_key(pid, corr) : 0, v;

	if (!key || !gs_u64map_get(&n->calls, key, &v)) {
		*tid = -1;
		*flags = 0;
		return false;
	}
	*tid = (int64_t)(uint32_t)v;
	*flags = (uint8_t)(v >> 32);
	return true;
}

/* ------------------------------------------------------------------------ */
/* Contexts                                                                 */
/* ------------------------------------------------------------------------ */

/*
 * An op of context ctx of pid ran on dev. Only ops whose stream was
 * declared are noted, so there are at most max_streams contexts.
 */
static gs_status ns_ctx_note(struct nsys *n, int64_t pid, int64_t ctx, int64_t dev)
{
	struct ns_key seen = {pid, ctx, dev, 0}, k = {pid, ctx, 0, 0};
	const struct ns_kent *e;
	gs_status rc = GS_OK;

	if (n->have_last_ctx && ns_key_eq(&n->last_ctx, &seen))
		return GS_OK;
	e = ns_kmap_get(&n->ctxdev, &k);
	if (!e) {
		rc = ns_kmap_put(&n->ctxdev, &k, (uint64_t)dev, 0);
	} else if (e->v1 != (uint64_t)dev && !e->v2) {
		n->ctx_conflicts++;
		rc = ns_kmap_put(&n->ctxdev, &k, e->v1, 1);
	}
	if (!rc) {
		n->last_ctx = seen;
		n->have_last_ctx = true;
	}
	return rc;
}

/*
 * The device of a sync or event record of context ctx of pid whose row says
 * (has_dev, dev): the device the context's ops ran on; else the row's own
 * (no ops, or ops on several devices). false when there is none.
 */
static bool ns_ctx_device(const struct nsys *n, int64_t pid, int64_t ctx, bool has_dev, int64_t dev,
			  int64_t *out)
{
	struct ns_key k = {pid, ctx, 0, 0};
	const struct ns_kent *e = ns_kmap_get(&n->ctxdev, &k);

	if (e && !e->v2) {
		*out = (int64_t)e->v1;
		return true;
	}
	*out = dev;
	return ns_valid_id(has_dev, dev);
}

/* ------------------------------------------------------------------------ */
/* GPU ops                                                                  */
/* ------------------------------------------------------------------------ */

/* The first seven fields of every op table. */
#define NS_OP_FIELDS                                                                               \
	"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid"

/*
 * The common part of an op row. *ok false when the row is dropped
 * (counted). *flags: what the launching call's name says.
 */
static gs_status ns_op_common(struct nsys *n, sqlite3_stmt *st, struct gs_op *op, bool *ok,
			      uint8_t *flags)
{
	int64_t start = 0, end = 0, dev = 0, ctx = 0, stream = 0, corr = 0, gpid = 0, pid, tid;
	bool hs = ns_i64(st, 0, &start), he = ns_i64(st, 1, &end);
	bool hd = ns_i64(st, 2, &dev), hstr = ns_i64(st, 4, &stream);
	bool hc = ns_i64(st, 5, &corr) && corr > 0;
	gs_status rc;

	*ok = false;
	*flags = 0;
	if (!ns_times_ok(n, hs, start, he, end))
		return GS_OK;
	if (!ns_valid_id(hd, dev) || !ns_valid_id(hstr, stream)) {
		ns_warn(n, NW_NO_STREAM);
		return GS_OK;
	}
	ns_i64(st, 3, &ctx);
	ns_i64(st, 6, &gpid);
	pid = ns_pid_of(gpid);
	memset(op, 0, sizeof(*op));
	op->start_ns = start;
	op->end_ns = end;
	op->correlation = hc ? (uint64_t)corr : 0;
	op->name = GS_NO_STRING;
	rc = ns_stream(n, pid, dev, ctx, stream, &op->stream);
	if (!rc)
		rc = ns_note_pid(n, pid);
	if (!rc)
		rc = gs_u64map_put(&n->dev_used, (uint64_t)dev, 1, false);
	if (!rc)
		rc = ns_ctx_note(n, pid, ctx, dev);
	if (rc)
		return rc;
	ns_call_info(n, pid, hc, corr, &tid, flags);
	*ok = true;
	return GS_OK;
}

static gs_status ns_kernels(struct nsys *n)
{
	static const char *const fields[] = {
		NS_OP_FIELDS,
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
	struct ns_query q;
	gs_status rc;
	bool row;

	rc = ns_query_open(&n->in, &q, "CUPTI_ACTIVITY_KIND_KERNEL", fields, NS_COUNT_OF(fields),
			   NULL, NULL, 0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = ns_step(&n->in, q.st, &row)) && row) {
		struct gs_op op;
		struct gs_launch_cfg lc = {0};
		uint8_t flags;
		bool ok;
		int64_t v, node = 0, graph = 0;

		rc = ns_op_common(n, q.st, &op, &ok, &flags);
		if (rc)
			break;
		if (!ok)
			continue;
		op.kind = GS_OP_KERNEL;
		for (int c = 7; c <= 9 && op.name == GS_NO_STRING && !rc; c++)
			if (ns_i64(q.st, c, &v))
				rc = ns_string(n, v, false, &op.name, NULL);
		if (!rc && op.name == GS_NO_STRING) {
			if (n->unnamed_kernel == GS_NO_STRING)
				rc = ns_intern_str(n, "(unnamed kernel)", &n->unnamed_kernel);
			op.name = n->unnamed_kernel;
		}
		if (rc)
			break;
		lc.registers = ns_u32(ns_i64_or(q.st, 10, 0));
		for (int i = 0; i < 3; i++) {
			lc.grid[i] = ns_u32(ns_i64_or(q.st, 11 + i, 0));
			lc.block[i] = ns_u32(ns_i64_or(q.st, 14 + i, 0));
		}
		{
			/* Static + dynamic shared memory, saturating (hostile rows). */
			int64_t smem;

			if (__builtin_add_overflow(ns_i64_or(q.st, 17, 0), ns_i64_or(q.st, 18, 0),
						   &smem))
				smem = INT64_MAX;
			lc.shared_mem = ns_u32(smem);
		}
		ns_i64(q.st, 19, &node);
		ns_i64(q.st, 20, &graph);
		op.graph_node = ns_u64(node);
		lc.graph_id = ns_u64(graph);
		if (node > 0 || graph > 0 || (flags & NF_GRAPH))
			op.flags |= GS_OPF_GRAPH;
		rc = ns_emit_op(n, &op, &lc);
		if (rc)
			break;
	}
	ns_query_close(&q);
	return rc;
}

static const char *ns_copy_word(unsigned k)
{
	static const char *const w[GS_COPY_KIND_COUNT] = {"",     "HtoD", "DtoH",
							  "DtoD", "HtoH", "PtoP"};
	return k < GS_COPY_KIND_COUNT ? w[k] : "";
}

static const char *ns_mem_word(unsigned k)
{
	static const char *const w[GS_MEM_KIND_COUNT] = {"Unknown", "Pageable", "Pinned",
							 "Device",  "Managed",  "Array"};
	return k < GS_MEM_KIND_COUNT ? w[k] : "Unknown";
}

/* "Memcpy HtoD (Pageable -> Device)", as Kineto and the collector name
 * copies. */
static gs_status ns_copy_name(struct nsys *n, const struct gs_op *op, uint32_t *id)
{
	uint32_t *slot = &n->copy_names[op->copy_kind][op->src_mem][op->dst_mem];
	char buf[96];

	if (*slot == GS_NO_STRING) {
		gs_status rc;

		if (op->copy_kind == GS_COPY_UNKNOWN)
			snprintf(buf, sizeof(buf), "Memcpy (%s -> %s)", ns_mem_word(op->src_mem),
				 ns_mem_word(op->dst_mem));
		else
			snprintf(buf, sizeof(buf), "Memcpy %s (%s -> %s)",
				 ns_copy_word(op->copy_kind), ns_mem_word(op->src_mem),
				 ns_mem_word(op->dst_mem));
		rc = ns_intern_str(n, buf, slot);
		if (rc)
			return rc;
	}
	*id = *slot;
	return GS_OK;
}

static gs_status ns_memcpys(struct nsys *n)
{
	static const char *const fields[] = {NS_OP_FIELDS, "bytes",   "copyKind",
					     "srcKind",    "dstKind", "graphNodeId"};
	struct ns_query q;
	gs_status rc;
	bool row;

	rc = ns_query_open(&n->in, &q, "CUPTI_ACTIVITY_KIND_MEMCPY", fields, NS_COUNT_OF(fields),
			   NULL, NULL, 0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = ns_step(&n->in, q.st, &row)) && row) {
		struct gs_op op;
		uint8_t flags, ck;
		int64_t node = 0;
		bool ok;

		rc = ns_op_common(n, q.st, &op, &ok, &flags);
		if (rc)
			break;
		if (!ok)
			continue;
		op.kind = GS_OP_MEMCPY;
		op.bytes = ns_u64(ns_i64_or(q.st, 7, 0));
		ck = ns_enum(n->copy_map, q.st, 8, GS_COPY_UNKNOWN);
		op.copy_kind = NS_CK_KIND(ck) < GS_COPY_KIND_COUNT ? NS_CK_KIND(ck) : 0;
		op.src_mem = ns_enum(n->mem_map, q.st, 9, GS_MEM_UNKNOWN);
		op.dst_mem = ns_enum(n->mem_map, q.st, 10, GS_MEM_UNKNOWN);
		if ((ck & NS_CK_SRC_ARRAY) && op.src_mem == GS_MEM_UNKNOWN)
			op.src_mem = GS_MEM_ARRAY;
		if ((ck & NS_CK_DST_ARRAY) && op.dst_mem == GS_MEM_UNKNOWN)
			op.dst_mem = GS_MEM_ARRAY;
		if (ns_i64(q.st, 11, &node) && node > 0) {
			op.graph_node = (uint64_t)node;
			op.flags |= GS_OPF_GRAPH;
		}
		if (flags & NF_ASYNC)
			op.flags |= GS_OPF_ASYNC;
		if (flags & NF_GRAPH)
			op.flags |= GS_OPF_GRAPH;
		rc = ns_copy_name(n, &op, &op.name);
		if (!rc)
			rc = ns_emit_op(n, &op, NULL);
		if (rc)
			break;
	}
	ns_query_close(&q);
	return rc;
}

static gs_status ns_memsets(struct nsys *n)
{
	static const char *const fields[] = {NS_OP_FIELDS, "bytes", "memKind", "graphNodeId"};
	struct ns_query q;
	gs_status rc;
	bool row;

	rc = ns_query_open(&n->in, &q, "CUPTI_ACTIVITY_KIND_MEMSET", fields, NS_COUNT_OF(fields),
			   NULL, NULL, 0);
	if (rc || !q.exists)
		return rc;
	while (!(rc = ns_step(&n->in, q.st, &row)) && row) {
		struct gs_op op;
		uint8_t flags;
		int64_t node = 0;
		bool ok;

		rc = ns_op_common(n, q.st, &op, &ok, &flags);
		if (rc)
			break;
		if (!ok)
			continue;
		op.kind = GS_OP_MEMSET;
		op.bytes = ns_u64(ns_i64_or(q.st, 7, 0));
		op.dst_mem = ns_enum(n->mem_map, q.st, 8, GS_MEM_UNKNOWN);
		if (ns_i64(q.st, 9, &node) && node > 0) {
			op.graph_node = (uint64_t)node;
			op.flags |= GS_OPF_GRAPH;
		}
		if (flags & NF_ASYNC)
			op.flags |= GS_OPF_ASYNC;
		if (flags & NF_GRAPH)
			op.flags |= GS_OPF_GRAPH;
		if (n->memset_names[op.dst_mem] == GS_NO_STRING) {
			char buf[48];

			snprintf(buf, sizeof(buf), "Memset (%s)", ns_mem_word(op.dst_mem));
			rc = ns_intern_str(n, buf, &n->memset_names[op.dst_mem]);
			if (rc)
				break;
		}
		op.name = n->memset_names[op.dst_mem];
		rc = ns_emit_op(n, &op, NULL);
		if (rc)
			break;
	}
	ns_query_close(&q);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Syncs and event records                                                  */
/* ------------------------------------------------------------------------ */

#define NS_SYNC_TABLE "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
#define NS_EVENT_TABLE "CUPTI_ACTIVITY_KIND_CUDA_EVENT"

static gs_status ns_event_row(struct nsys *n, sqlite3_stmt *st)
{
	int64_t dev = 0, ctx = 0, stream = 0, corr = 0, gpid = 0, ev = 0, sync = 0, start, pid;
	bool hd = ns_i64(st, 0, &dev), hstr = ns_i64(st, 2, &stream);
	bool hc = ns_i64(st, 3, &corr) && corr > 0, hev = ns_i64(st, 5, &ev);
	struct gs_event_record r = {.stream = GS_NO_INDEX};
	uint64_t v;
	gs_status rc;

	n->in.table = NS_EVENT_TABLE;
	ns_i64(st, 1, &ctx);
	ns_i64(st, 4, &gpid);
	pid = ns_pid_of(gpid);
	if (ns_ctx_device(n, pid, ctx, hd, dev, &dev) && ns_valid_id(hstr, stream)) {
		rc = ns_stream(n, pid, dev, ctx, stream, &r.stream);
		if (rc)
			return rc;
	}
	r.correlation = hc ? (uint64_t)corr : 0;
	hev = ns_valid_id(hev, ev);
	r.event_id = hev ? (uint64_t)ev : 0;
	r.sync_id = ns_i64(st, 6, &sync) ? ns_u64(sync) : GS_NO_SYNC_ID;
	if (ns_i64(st, 7, &start))
		r.time_ns = start;
	else if (hc && gs_u64map_get(&n->evrec, ns_call_key(pid, corr), &v))
		r.time_ns = (int64_t)v;
	rc = ns_emit_event_record(n, &r);
	if (!rc)
		rc = ns_note_pid(n, pid);
	if (!rc && hev) {
		struct ns_key k = {pid, ev, 0, 0};

		rc = ns_kmap_put(&n->events, &k, r.correlation, r.stream);
	}
	return rc;
}

static gs_status ns_sync_row(struct nsys *n, sqlite3_stmt *st)
{
	int64_t start = 0, end = 0, dev = 0, ctx = 0, stream = 0, corr = 0, gpid = 0;
	int64_t ev = 0, sync = 0, pid;
	bool hs = ns_i64(st, 0, &start), he = ns_i64(st, 1, &end);
	bool hd = ns_i64(st, 2, &dev), hstr = ns_i64(st, 4, &stream);
	bool hc = ns_i64(st, 5, &corr) && corr > 0, hev = ns_i64(st, 8, &ev);
	struct gs_sync y = {.stream = GS_NO_INDEX, .wait_on_stream = GS_NO_INDEX};
	uint8_t flags, named;
	gs_status rc;

	n->in.table = NS_SYNC_TABLE;
	if (!ns_times_ok(n, hs, start, he, end))
		return GS_OK;
	ns_i64(st, 3, &ctx);
	ns_i64(st, 6, &gpid);
	pid = ns_pid_of(gpid);
	y.start_ns = start;
	y.end_ns = end;
	y.pid = pid;
	y.correlation = hc ? (uint64_t)corr : 0;
	y.kind = ns_enum(n->sync_map, st, 7, GS_SYNC_UNKNOWN);
	ns_call_info(n, pid, hc, corr, &y.tid, &flags);
	named = (uint8_t)(flags >> NF_SYNC_SHIFT);
	if (named != GS_SYNC_UNKNOWN)
		y.kind = named;
	y.device = ns_ctx_device(n, pid, ctx, hd, dev, &dev) ? (uint32_t)dev : UINT32_MAX;
	if ((y.kind == GS_SYNC_STREAM || y.kind == GS_SYNC_STREAM_WAIT) && y.device != UINT32_MAX &&
	    ns_valid_id(hstr, stream)) {
		rc = ns_stream(n, pid, dev, ctx, stream, &y.stream);
		if (rc)
			return rc;
	}
	hev = ns_valid_id(hev, ev);
	y.event_id = hev ? (uint64_t)ev : 0;
	y.sync_id = ns_i64(st, 9, &sync) ? ns_u64(sync) : GS_NO_SYNC_ID;
	if (hev && (y.kind == GS_SYNC_EVENT || y.kind == GS_SYNC_STREAM_WAIT)) {
		struct ns_key k = {pid, ev, 0, 0};
		const struct ns_kent *e = ns_kmap_get(&n->events, &k);

		if (e) {
			y.event_correlation = e->v1;
			y.wait_on_stream = (uint32_t)e->v2;
		}
	}
	rc = ns_emit_sync(n, &y);
	if (!rc)
		rc = ns_note_pid(n, pid);
	if (!rc && y.device != UINT32_MAX)
		rc = gs_u64map_put(&n->dev_used, y.device, 1, false);
	return rc;
}

/* (globalPid, correlationId) of the current row, NULL first as SQLite
 * sorts. */
static int ns_order_cmp(sqlite3_stmt *a, int ap, int ac, sqlite3_stmt *b, int bp, int bc)
{
	int64_t x = ns_i64_or(a, ap, INT64_MIN), y = ns_i64_or(b, bp, INT64_MIN);

	if (x != y)
		return x < y ? -1 : 1;
	x = ns_i64_or(a, ac, INT64_MIN);
	y = ns_i64_or(b, bc, INT64_MIN);
	return x < y ? -1 : x > y;
}

/*
 * Syncs and event records. With a CUDA_EVENT table both are read in
 * (process, correlation id) order and merged, so that a sync on an event
 * finds the latest record of that event before it.
 */
static gs_status ns_syncs_events(struct nsys *n)
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
	struct ns_query qs, qe;
	bool rs = false, re = false;
	gs_status rc;

	rc = ns_query_open(&n->in, &qe, NS_EVENT_TABLE, efields, NS_COUNT_OF(efields), NULL, eorder,
			   NS_COUNT_OF(eorder));
	if (rc)
		return rc;
	rc = ns_query_open(&n->in, &qs, NS_SYNC_TABLE, sfields, NS_COUNT_OF(sfields), NULL, sorder,
			   qe.exists ? NS_COUNT_OF(sorder) : 0);
	if (!rc && qe.exists) {
		n->in.table = NS_EVENT_TABLE;
		rc = ns_step(&n->in, qe.st, &re);
	}
	if (!rc && qs.exists) {
		n->in.table = NS_SYNC_TABLE;
		rc = ns_step(&n->in, qs.st, &rs);
	}
	while (!rc && (rs || re)) {
		if (re && (!rs || ns_order_cmp(qe.st, 4, 3, qs.st, 6, 5) <= 0)) {
			rc = ns_event_row(n, qe.st);
			if (!rc)
				rc = ns_step(&n->in, qe.st, &re);
		} else {
			rc = ns_sync_row(n, qs.st);
			if (!rc) {
				n->in.table = NS_SYNC_TABLE;
				rc = ns_step(&n->in, qs.st, &rs);
			}
		}
	}
	ns_query_close(&qe);
	ns_query_close(&qs);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* NVTX                                                                     */
/* ------------------------------------------------------------------------ */

#define NS_NVTX_PUSH_POP 59
#define NS_NVTX_START_END 60
#define NS_NVTX_DOMAIN_CREATE 75

/* A text column, else a StringIds reference. */
static gs_status ns_text_or_id(struct nsys *n, sqlite3_stmt *st, int text, int id, uint32_t *sid)
{
	int64_t v;
	gs_status rc = ns_text(n, st, text, sid);

	if (!rc && *sid == GS_NO_STRING && ns_i64(st, id, &v))
		rc = ns_string(n, v, false, sid, NULL);
	return rc;
}

static gs_status ns_nvtx(struct nsys *n)
{
	static const char *const fields[] = {"start",  "end",      "globalTid", "text",
					     "textId", "domainId", "eventType"};
	char where[96];
	struct ns_query q;
	gs_status rc;
	bool row;

	/* Domain names first. */
	snprintf(where, sizeof(where), "WHERE eventType = %d", NS_NVTX_DOMAIN_CREATE);
	rc = ns_query_open(&n->in, &q, "NVTX_EVENTS", fields, NS_COUNT_OF(fields), NULL, NULL, 0);
	if (rc || !q.exists || !q.col[6]) {
		ns_query_close(&q);
		return rc;
	}
	ns_query_close(&q);
	rc = ns_query_open(&n->in, &q, "NVTX_EVENTS", fields, NS_COUNT_OF(fields), where, NULL, 0);
	while (!rc && !(rc = ns_step(&n->in, q.st, &row)) && row) {
		int64_t gtid = 0, dom;
		uint32_t sid;

		if (!ns_i64(q.st, 5, &dom))
			continue;
		ns_i64(q.st, 2, &gtid);
		rc = ns_text_or_id(n, q.st, 3, 4, &sid);
		if (!rc && sid != GS_NO_STRING) {
			struct ns_key k = {ns_pid_of(gtid), dom, 0, 0};

			rc = ns_kmap_put(&n->domains, &k, sid, 0);
		}
	}
	ns_query_close(&q);
	if (rc)
		return rc;
	snprintf(where, sizeof(where), "WHERE eventType IN (%d, %d)", NS_NVTX_PUSH_POP,
		 NS_NVTX_START_END);
	rc = ns_query_open(&n->in, &q, "NVTX_EVENTS", fields, NS_COUNT_OF(fields), where, NULL, 0);
	while (!rc && !(rc = ns_step(&n->in, q.st, &row)) && row) {
		int64_t start = 0, end = 0, gtid = 0, dom;
		bool hs = ns_i64(q.st, 0, &start), he = ns_i64(q.st, 1, &end);
		struct gs_range r = {.kind = GS_RANGE_NVTX, .domain = GS_NO_STRING};

		if (!ns_times_ok(n, hs, start, he, end))
			continue;
		ns_i64(q.st, 2, &gtid);
		r.start_ns = start;
		r.end_ns = end;
		r.pid = ns_pid_of(gtid);
		r.tid = ns_tid_of(gtid);
		rc = ns_text_or_id(n, q.st, 3, 4, &r.name);
		if (rc)
			break;
		if (ns_i64(q.st, 5, &dom) && dom != 0) {
			struct ns_key k = {r.pid, dom, 0, 0};
			const struct ns_kent *e = ns_kmap_get(&n->domains, &k);

			if (e)
				r.domain = (uint32_t)e->v1;
		}
		rc = ns_emit_range(n, &r);
		if (!rc)
			rc = ns_note_pid(n, r.pid);
	}
	ns_query_close(&q);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Processes, unlisted devices, warnings                                    */
/* ------------------------------------------------------------------------ */

static gs_status ns_emit_pid(struct nsys *n, int64_t pid, uint32_t name)
{
	struct gs_process p = {
		.pid = pid,
		.host_name = n->host_name,
		.command_line = name,
		.driver_version = n->driver_version,
		.runtime_version = GS_NO_STRING,
		.cupti_version = GS_NO_STRING,
		.backend = GS_NO_STRING,
	};
	gs_status rc = gs_u64map_put(&n->pids, (uint64_t)pid, 2, true);

	if (ns_wall_offset(n, &p.wall_offset_ns))
		p.clock = GS_CLOCK_NSYS_SESSION;

	return rc ? rc : ns_emit_process(n, &p);
}

static gs_status ns_processes(struct nsys *n)
{
	static const char *const fields[] = {"pid", "name"};
	struct ns_query q;
	gs_status rc;
	bool row;

	rc = ns_query_open(&n->in, &q, "PROCESSES", fields, NS_COUNT_OF(fields), NULL, NULL, 0);
	while (!rc && q.exists && !(rc = ns_step(&n->in, q.st, &row)) && row) {
		int64_t pid;
		uint64_t state;
		uint32_t name;

		if (!ns_i64(q.st, 0, &pid) || !gs_u64map_get(&n->pids, (uint64_t)pid, &state) ||
		    state != 1)
			continue;
		rc = ns_text(n, q.st, 1, &name);
		if (!rc)
			rc = ns_emit_pid(n, pid, name);
	}
	ns_query_close(&q);
	n->in.table = NULL;
	/* Processes the table does not name (state 1: not emitted yet). */
	GS_U64MAP_FOREACH(&n->pids, i)
	{
		if (!rc && n->pids.vals[i] == 1)
			rc = ns_emit_pid(n, (int64_t)n->pids.keys[i], GS_NO_STRING);
	}
	/* Devices records use that no table describes. */
	GS_U64MAP_FOREACH(&n->dev_used, i)
	{
		struct gs_device d = {.name = GS_NO_STRING, .uuid = GS_NO_STRING};

		if (rc)
			break;
		d.id = (uint32_t)n->dev_used.keys[i];
		rc = ns_emit_device_once(n, &d);
	}
	return rc;
}

static gs_status ns_warnings(struct nsys *n)
{
	char msg[256];

	if (!n->sink->warning)
		return GS_OK;
	for (int w = 0; w < NW_COUNT; w++) {
		gs_status rc;

		if (!n->warn[w])
			continue;
		snprintf(msg, sizeof(msg), "dropped %llu %s (first in %s)",
			 (unsigned long long)n->warn[w], ns_warn_text[w],
			 n->warn_table[w] ? n->warn_table[w] : "?");
		rc = n->sink->warning(n->sink, msg, n->warn[w], GS_WARNING_OTHER);
		if (rc)
			return ns_sink_failed(n, rc);
	}
	for (uint32_t i = 0; i < n->in.ntype_warn; i++) {
		const struct ns_type_warn *e = &n->in.type_warn[i];
		gs_status rc;

		snprintf(msg, sizeof(msg),
			 "dropped %llu rows of %s whose %s is not an integer (%s)",
			 (unsigned long long)e->count, e->table, e->column, e->value);
		rc = n->sink->warning(n->sink, msg, e->count, GS_WARNING_OTHER);
		if (rc)
			return ns_sink_failed(n, rc);
	}
	if (n->in.type_other) {
		gs_status rc;

		snprintf(msg, sizeof(msg),
			 "dropped %llu further rows with a value that is not an integer in an "
			 "integer column",
			 (unsigned long long)n->in.type_other);
		rc = n->sink->warning(n->sink, msg, n->in.type_other, GS_WARNING_OTHER);
		if (rc)
			return ns_sink_failed(n, rc);
	}
	if (n->ctx_conflicts) {
		gs_status rc;

		snprintf(msg, sizeof(msg),
			 "%llu CUDA contexts have ops on more than one device; their syncs and "
			 "event records keep the device their rows name",
			 (unsigned long long)n->ctx_conflicts);
		rc = n->sink->warning(n->sink, msg, n->ctx_conflicts, GS_WARNING_OTHER);
		if (rc)
			return ns_sink_failed(n, rc);
	}
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                              */
/* ------------------------------------------------------------------------ */

static void ns_limits(struct gs_import_limits *out, const struct gs_import_limits *in)
{
	gs_import_limits_default(out);
	if (!in)
		return;
	if (in->max_string_bytes)
		out->max_string_bytes = in->max_string_bytes;
	if (in->max_streams)
		out->max_streams = in->max_streams;
	if (in->max_records)
		out->max_records = in->max_records;
	if (in->max_sqlite_ms)
		out->max_sqlite_ms = in->max_sqlite_ms;
}

gs_status gs_import_nsys(const char *path, const struct gs_import_limits *lim, struct gs_sink *sink)
{
	struct nsys *n;
	gs_status rc;

	if (!path || !sink) {
		gs_error_append("gs_import_nsys: no %s", path ? "sink" : "path");
		return GS_ERR_INVALID;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return gs_nomem();
	n->in.name = path;
	n->in.lim = &n->lim;
	n->sink = sink;
	ns_limits(&n->lim, lim);
	n->host_name = n->driver_version = n->unnamed_kernel = GS_NO_STRING;
	memset(n->copy_names, 0xFF, sizeof(n->copy_names));
	memset(n->memset_names, 0xFF, sizeof(n->memset_names));

	rc = ns_check_file(&n->in);
	if (!rc)
		rc = ns_open(&n->in);
	if (!rc)
		rc = ns_check_nsys(&n->in);
	if (!rc)
		rc = ns_load_enums(n);
	if (!rc)
		rc = ns_load_system(n);
	if (!rc)
		rc = ns_load_session(n);
	if (!rc)
		rc = ns_load_stream_info(n);
	if (!rc)
		rc = ns_devices(n);
	if (!rc)
		rc = ns_api_table(n, "CUPTI_ACTIVITY_KIND_RUNTIME", false);
	if (!rc)
		rc = ns_api_table(n, "CUPTI_ACTIVITY_KIND_DRIVER", true);
	if (!rc)
		rc = ns_kernels(n);
	if (!rc)
		rc = ns_memcpys(n);
	if (!rc)
		rc = ns_memsets(n);
	/* After the op tables: syncs and event records take their device from
	 * the contexts of the ops (ns_ctx_device). */
	if (!rc)
		rc = ns_syncs_events(n);
	if (!rc)
		rc = ns_nvtx(n);
	/* A database in WAL mode without its -wal file and without a record:
	 * its rows are likely in a -wal file left behind. Refused, never read
	 * as an empty trace. */
	if (!rc && n->in.wal && !n->in.with_wal && n->records == 0)
		rc = ns_wal_refused(&n->in);
	if (!rc)
		rc = ns_processes(n);
	if (!rc)
		rc = ns_warnings(n);

	sqlite3_finalize(n->in.str_stmt);
	sqlite3_finalize(n->in.col_stmt);
	ns_close(&n->in);
	gs_u64map_fini(&n->strs);
	gs_u64map_fini(&n->in.str_rows);
	gs_u64map_fini(&n->calls);
	gs_u64map_fini(&n->evrec);
	gs_u64map_fini(&n->pids);
	gs_u64map_fini(&n->dev_used);
	gs_u64map_fini(&n->dev_done);
	ns_kmap_fini(&n->streams);
	ns_kmap_fini(&n->sinfo);
	ns_kmap_fini(&n->domains);
	ns_kmap_fini(&n->events);
	ns_kmap_fini(&n->ctxdev);
	free(n->gpus);
	free(n);
	return rc;
}
