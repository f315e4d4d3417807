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
 * row iteration are nsys_db.c; this file maps the rows to records, with
 * nsys_tables.c (strings, enums, system, streams, GPUs) and
 * nsys_activity.c (kernels, copies, memsets, syncs, CUDA events);
 * nsys_priv.h holds what they share.
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
 *       op lies nearer 0 than systemClockNs (nsys_wall_offset).
 * Records with end before start, over 7 days long, or without a time, and
 * GPU records without a valid device or stream, are dropped and counted;
 * each kind reaches the sink as one warning at the end.
 */
#include "import_priv.h"
#include "nsys_db.h"
#include "nsys_priv.h"

#include <gpuscope/hash.h>
#include <gpuscope/names.h>
#include <gpuscope/u64map.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Hash maps                                                                */
/* ------------------------------------------------------------------------ */

static uint64_t nsys_key_hash(const struct nsys_key *k)
{
	return gs_hash_u64((uint64_t)k->a ^
			   gs_hash_u64((uint64_t)k->b ^
				       gs_hash_u64((uint64_t)k->c ^ gs_hash_u64((uint64_t)k->d))));
}

bool nsys_key_eq(const struct nsys_key *x, const struct nsys_key *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c && x->d == y->d;
}

static struct nsys_kent *nsys_kmap_slot(const struct nsys_kmap *m, const struct nsys_key *k)
{
	size_t mask = m->cap - 1, i = (size_t)nsys_key_hash(k) & mask;

	for (;; i = (i + 1) & mask)
		if (!m->e[i].used || nsys_key_eq(&m->e[i].k, k))
			return &m->e[i];
}

const struct nsys_kent *nsys_kmap_get(const struct nsys_kmap *m, const struct nsys_key *k)
{
	const struct nsys_kent *e;

	if (!m->cap)
		return NULL;
	e = nsys_kmap_slot(m, k);
	return e->used ? e : NULL;
}

gs_status nsys_kmap_put(struct nsys_kmap *m, const struct nsys_key *k, uint64_t v1, uint64_t v2)
{
	struct nsys_kent *e;

	if ((m->count + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct nsys_kmap nm = {.cap = ncap, .count = m->count};

		nm.e = calloc(ncap, sizeof(*nm.e));
		if (!nm.e) {
			return gs_nomem();
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->e[i].used)
				*nsys_kmap_slot(&nm, &m->e[i].k) = m->e[i];
		free(m->e);
		*m = nm;
	}
	e = nsys_kmap_slot(m, k);
	if (!e->used) {
		e->used = true;
		e->k = *k;
		m->count++;
	}
	e->v1 = v1;
	e->v2 = v2;
	return GS_OK;
}

static void nsys_kmap_fini(struct nsys_kmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

static const char *const nsys_warn_text[NW_COUNT] = {
	[NW_NO_TIME] = "records without a start or end time",
	[NW_NEG_DUR] = "records whose end is before their start",
	[NW_HUGE_DUR] = "records longer than 7 days",
	[NW_NO_STREAM] = "GPU records without a valid device or stream",
};

void nsys_warn(struct nsys *n, enum nsys_warn w)
{
	if (!n->warn[w]++)
		n->warn_table[w] = n->in.table;
}

gs_status nsys_sink_failed(struct nsys *n, gs_status rc)
{
	gs_error_append("%s: %s", n->in.name, n->in.table ? n->in.table : "Nsight export");
	return rc;
}

gs_status nsys_count(struct nsys *n)
{
	if (++n->records > n->lim.max_records) {
		gs_error_append("%s: %s: more than max_records (%llu) records", n->in.name,
				n->in.table ? n->in.table : "Nsight export",
				(unsigned long long)n->lim.max_records);
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

/* nsys_emit_op: the same for an op, with its launch configuration (NULL for
 * a copy or a memset). */
gs_status nsys_emit_op(struct nsys *n, const struct gs_op *op, const struct gs_launch_cfg *launch)
{
	gs_status rc = nsys_count(n);

	if (!n->has_first_op || op->start_ns < n->first_op_ns) {
		n->has_first_op = true;
		n->first_op_ns = op->start_ns;
	}
	if (!rc && n->sink->op && (rc = n->sink->op(n->sink, op, launch)))
		rc = nsys_sink_failed(n, rc);
	return rc;
}

NSYS_DEFINE_EMIT(api_call, struct gs_api_call)
NSYS_DEFINE_EMIT(range, struct gs_range)
NSYS_DEFINE_EMIT(process, struct gs_process)

gs_status nsys_intern(struct nsys *n, const char *s, size_t len, uint32_t *id)
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
		return nsys_sink_failed(n, rc);
	return GS_OK;
}

gs_status nsys_intern_str(struct nsys *n, const char *s, uint32_t *id)
{
	return nsys_intern(n, s, strlen(s), id);
}

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

uint32_t nsys_u32(int64_t v)
{
	if (v < 0)
		return 0;
	return v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

uint64_t nsys_u64(int64_t v)
{
	return v < 0 ? 0 : (uint64_t)v;
}

/* A 32-bit value nsys may store unsigned (priority -5 as 4294967291). */
int32_t nsys_i32(int64_t v)
{
	if (v >= INT32_MIN && v <= INT32_MAX)
		return (int32_t)v;
	if (v > INT32_MAX && v <= (int64_t)UINT32_MAX)
		return (int32_t)(uint32_t)v;
	return 0;
}

int64_t nsys_pid_of(int64_t global_id)
{
	return (int64_t)(((uint64_t)global_id >> 24) & 0xFFFFFF);
}

static int64_t nsys_tid_of(int64_t global_id)
{
	return (int64_t)((uint64_t)global_id & 0xFFFFFF);
}

/* A device, stream or event id that names something (not NULL, -1 or
 * CUPTI's 0xFFFFFFFF). */
bool nsys_valid_id(bool present, int64_t v)
{
	return present && v >= 0 && v != NSYS_INVALID_ID;
}

/* Key of an API call: its process and correlation id (ids repeat across
 * processes). 0 when the call cannot be keyed. */
uint64_t nsys_call_key(int64_t pid, int64_t corr)
{
	if (corr <= 0 || corr >= (1LL << 40))
		return 0;
	return ((uint64_t)pid & 0xFFFFFF) << 40 | (uint64_t)corr;
}

/* Length of an API name without its "_vNNNN" version suffix. */
size_t nsys_api_name_len(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i < n && i >= 3 && s[i - 1] == 'v' && s[i - 2] == '_')
		return i - 2;
	return n;
}

uint8_t nsys_api_name_flags(const char *s)
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
bool nsys_times_ok(struct nsys *n, bool has_start, int64_t start, bool has_end, int64_t end)
{
	if (!has_start || !has_end) {
		nsys_warn(n, NW_NO_TIME);
		return false;
	}
	if (end < start) {
		nsys_warn(n, NW_NEG_DUR);
		return false;
	}
	if ((uint64_t)end - (uint64_t)start > (uint64_t)GS_MAX_DURATION_NS) {
		nsys_warn(n, NW_HUGE_DUR);
		return false;
	}
	return true;
}

gs_status nsys_note_pid(struct nsys *n, int64_t pid)
{
	return gs_u64map_put(&n->pids, (uint64_t)pid, 1, false);
}

/* ------------------------------------------------------------------------ */
/* API calls                                                                */
/* ------------------------------------------------------------------------ */

struct nsys_call {
	struct gs_api_call c;
	int64_t global_tid;
	uint8_t flags;
	bool kind_known;
	bool have;
};

/* Emit a call and remember what ops and syncs need from it. */
static gs_status nsys_call_flush(struct nsys *n, struct nsys_call *p)
{
	uint64_t key;
	gs_status rc;

	if (!p->have)
		return GS_OK;
	p->have = false;
	rc = nsys_emit_api_call(n, &p->c);
	if (!rc)
		rc = nsys_note_pid(n, p->c.pid);
	key = nsys_call_key(p->c.pid, (int64_t)p->c.correlation);
	if (rc || !key)
		return rc;
	rc = gs_u64map_put(&n->calls, key, (uint32_t)p->c.tid | (uint64_t)p->flags << 32, false);
	if (!rc && (p->flags & NF_EVREC))
		rc = gs_u64map_put(&n->evrec, key, (uint64_t)p->c.start_ns, false);
	return rc;
}

static gs_status nsys_api_table(struct nsys *n, const char *table, bool driver)
{
	static const char *const fields[] = {"start",         "end",    "eventClass", "globalTid",
					     "correlationId", "nameId", "returnValue"};
	/* Duplicates of one call sit together, the outer one first. */
	static const int order[] = {3, 4, 0, -2};
	struct nsys_call p = {0};
	struct nsys_query q;
	gs_status rc;
	bool row;

	rc = nsys_query_open(&n->in, &q, table, fields, NSYS_COUNT_OF(fields), NULL, order,
			     NSYS_COUNT_OF(order));
	if (rc || !q.exists)
		return rc;
	while (!(rc = nsys_step(&n->in, q.st, &row)) && row) {
		struct nsys_call r = {.have = true};
		int64_t start = 0, end = 0, cls, corr = 0, gtid = 0, name;
		bool hs = nsys_i64(q.st, 0, &start), he = nsys_i64(q.st, 1, &end);
		bool hc = nsys_i64(q.st, 4, &corr) && corr > 0;

		if (!nsys_times_ok(n, hs, start, he, end))
			continue;
		nsys_i64(q.st, 3, &gtid);
		if (p.have && hc && (uint64_t)corr == p.c.correlation && gtid == p.global_tid &&
		    start >= p.c.start_ns && end <= p.c.end_ns) {
			/* The inner row of a call recorded twice: fold it. */
			cls = nsys_i64_or(q.st, 2, -1);
			if (!p.kind_known && (driver || cls == 0 || cls == 1)) {
				p.c.kind = driver || cls == 1 ? GS_API_DRIVER : GS_API_RUNTIME;
				p.kind_known = true;
			}
			if (nsys_i64(q.st, 5, &name)) {
				uint32_t sid;
				uint8_t f = 0;

				rc = nsys_string(n, name, true, &sid, &f);
				if (rc)
					break;
				p.flags |= f;
				if (p.c.name == GS_NO_STRING)
					p.c.name = sid;
			}
			continue;
		}
		rc = nsys_call_flush(n, &p);
		if (rc)
			break;
		cls = nsys_i64_or(q.st, 2, -1);
		r.c.start_ns = start;
		r.c.end_ns = end;
		r.global_tid = gtid;
		r.c.pid = nsys_pid_of(gtid);
		r.c.tid = nsys_tid_of(gtid);
		r.c.correlation = hc ? (uint64_t)corr : 0;
		r.c.return_value = nsys_i32(nsys_i64_or(q.st, 6, 0));
		r.kind_known = driver || cls == 0 || cls == 1;
		r.c.kind = driver || cls == 1 ? GS_API_DRIVER : GS_API_RUNTIME;
		r.c.name = GS_NO_STRING;
		if (nsys_i64(q.st, 5, &name) &&
		    (rc = nsys_string(n, name, true, &r.c.name, &r.flags)))
			break;
		p = r;
	}
	if (!rc)
		rc = nsys_call_flush(n, &p);
	nsys_query_close(&q);
	return rc;
}

/* What the call (pid, corr) said: thread and name flags. */
bool nsys_call_info(const struct nsys *n, int64_t pid, bool has_corr, int64_t corr, int64_t *tid,
		    uint8_t *flags)
{
	uint64_t key = has_corr ? nsys_call_key(pid, corr) : 0, v;

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
gs_status nsys_ctx_note(struct nsys *n, int64_t pid, int64_t ctx, int64_t dev)
{
	struct nsys_key seen = {pid, ctx, dev, 0}, k = {pid, ctx, 0, 0};
	const struct nsys_kent *e;
	gs_status rc = GS_OK;

	if (n->have_last_ctx && nsys_key_eq(&n->last_ctx, &seen))
		return GS_OK;
	e = nsys_kmap_get(&n->ctxdev, &k);
	if (!e) {
		rc = nsys_kmap_put(&n->ctxdev, &k, (uint64_t)dev, 0);
	} else if (e->v1 != (uint64_t)dev && !e->v2) {
		n->ctx_conflicts++;
		rc = nsys_kmap_put(&n->ctxdev, &k, e->v1, 1);
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
bool nsys_ctx_device(const struct nsys *n, int64_t pid, int64_t ctx, bool has_dev, int64_t dev,
		     int64_t *out)
{
	struct nsys_key k = {pid, ctx, 0, 0};
	const struct nsys_kent *e = nsys_kmap_get(&n->ctxdev, &k);

	if (e && !e->v2) {
		*out = (int64_t)e->v1;
		return true;
	}
	*out = dev;
	return nsys_valid_id(has_dev, dev);
}

/* ------------------------------------------------------------------------ */
/* NVTX                                                                     */
/* ------------------------------------------------------------------------ */

#define NSYS_NVTX_PUSH_POP 59
#define NSYS_NVTX_START_END 60
#define NSYS_NVTX_DOMAIN_CREATE 75

/* A text column, else a StringIds reference. */
static gs_status nsys_text_or_id(struct nsys *n, sqlite3_stmt *st, int text, int id, uint32_t *sid)
{
	int64_t v;
	gs_status rc = nsys_text(n, st, text, sid);

	if (!rc && *sid == GS_NO_STRING && nsys_i64(st, id, &v))
		rc = nsys_string(n, v, false, sid, NULL);
	return rc;
}

static gs_status nsys_nvtx(struct nsys *n)
{
	static const char *const fields[] = {"start",  "end",      "globalTid", "text",
					     "textId", "domainId", "eventType"};
	char where[96];
	struct nsys_query q;
	gs_status rc;
	bool row;

	/* Domain names first. */
	snprintf(where, sizeof(where), "WHERE eventType = %d", NSYS_NVTX_DOMAIN_CREATE);
	rc = nsys_query_open(&n->in, &q, "NVTX_EVENTS", fields, NSYS_COUNT_OF(fields), NULL, NULL,
			     0);
	if (rc || !q.exists || !q.col[6]) {
		nsys_query_close(&q);
		return rc;
	}
	nsys_query_close(&q);
	rc = nsys_query_open(&n->in, &q, "NVTX_EVENTS", fields, NSYS_COUNT_OF(fields), where, NULL,
			     0);
	while (!rc && !(rc = nsys_step(&n->in, q.st, &row)) && row) {
		int64_t gtid = 0, dom;
		uint32_t sid;

		if (!nsys_i64(q.st, 5, &dom))
			continue;
		nsys_i64(q.st, 2, &gtid);
		rc = nsys_text_or_id(n, q.st, 3, 4, &sid);
		if (!rc && sid != GS_NO_STRING) {
			struct nsys_key k = {nsys_pid_of(gtid), dom, 0, 0};

			rc = nsys_kmap_put(&n->domains, &k, sid, 0);
		}
	}
	nsys_query_close(&q);
	if (rc)
		return rc;
	snprintf(where, sizeof(where), "WHERE eventType IN (%d, %d)", NSYS_NVTX_PUSH_POP,
		 NSYS_NVTX_START_END);
	rc = nsys_query_open(&n->in, &q, "NVTX_EVENTS", fields, NSYS_COUNT_OF(fields), where, NULL,
			     0);
	while (!rc && !(rc = nsys_step(&n->in, q.st, &row)) && row) {
		int64_t start = 0, end = 0, gtid = 0, dom;
		bool hs = nsys_i64(q.st, 0, &start), he = nsys_i64(q.st, 1, &end);
		struct gs_range r = {.kind = GS_RANGE_NVTX, .domain = GS_NO_STRING};

		if (!nsys_times_ok(n, hs, start, he, end))
			continue;
		nsys_i64(q.st, 2, &gtid);
		r.start_ns = start;
		r.end_ns = end;
		r.pid = nsys_pid_of(gtid);
		r.tid = nsys_tid_of(gtid);
		rc = nsys_text_or_id(n, q.st, 3, 4, &r.name);
		if (rc)
			break;
		if (nsys_i64(q.st, 5, &dom) && dom != 0) {
			struct nsys_key k = {r.pid, dom, 0, 0};
			const struct nsys_kent *e = nsys_kmap_get(&n->domains, &k);

			if (e)
				r.domain = (uint32_t)e->v1;
		}
		rc = nsys_emit_range(n, &r);
		if (!rc)
			rc = nsys_note_pid(n, r.pid);
	}
	nsys_query_close(&q);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Processes, unlisted devices, warnings                                    */
/* ------------------------------------------------------------------------ */

static gs_status nsys_emit_pid(struct nsys *n, int64_t pid, uint32_t name)
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

	if (nsys_wall_offset(n, &p.wall_offset_ns))
		p.clock = GS_CLOCK_NSYS_SESSION;

	return rc ? rc : nsys_emit_process(n, &p);
}

static gs_status nsys_processes(struct nsys *n)
{
	static const char *const fields[] = {"pid", "name"};
	struct nsys_query q;
	gs_status rc;
	bool row;

	rc = nsys_query_open(&n->in, &q, "PROCESSES", fields, NSYS_COUNT_OF(fields), NULL, NULL, 0);
	while (!rc && q.exists && !(rc = nsys_step(&n->in, q.st, &row)) && row) {
		int64_t pid;
		uint64_t state;
		uint32_t name;

		if (!nsys_i64(q.st, 0, &pid) || !gs_u64map_get(&n->pids, (uint64_t)pid, &state) ||
		    state != 1)
			continue;
		rc = nsys_text(n, q.st, 1, &name);
		if (!rc)
			rc = nsys_emit_pid(n, pid, name);
	}
	nsys_query_close(&q);
	n->in.table = NULL;
	/* Processes the table does not name (state 1: not emitted yet). */
	GS_U64MAP_FOREACH(&n->pids, i)
	{
		if (!rc && n->pids.vals[i] == 1)
			rc = nsys_emit_pid(n, (int64_t)n->pids.keys[i], GS_NO_STRING);
	}
	/* Devices records use that no table describes. */
	GS_U64MAP_FOREACH(&n->dev_used, i)
	{
		struct gs_device d = {.name = GS_NO_STRING, .uuid = GS_NO_STRING};

		if (rc)
			break;
		d.id = (uint32_t)n->dev_used.keys[i];
		rc = nsys_emit_device_once(n, &d);
	}
	return rc;
}

static gs_status nsys_warnings(struct nsys *n)
{
	char msg[256];

	if (!n->sink->warning)
		return GS_OK;
	for (int w = 0; w < NW_COUNT; w++) {
		gs_status rc;

		if (!n->warn[w])
			continue;
		snprintf(msg, sizeof(msg), "dropped %llu %s (first in %s)",
			 (unsigned long long)n->warn[w], nsys_warn_text[w],
			 n->warn_table[w] ? n->warn_table[w] : "?");
		rc = n->sink->warning(n->sink, msg, n->warn[w], GS_WARNING_OTHER);
		if (rc)
			return nsys_sink_failed(n, rc);
	}
	for (uint32_t i = 0; i < n->in.ntype_warn; i++) {
		const struct nsys_type_warn *e = &n->in.type_warn[i];
		gs_status rc;

		snprintf(msg, sizeof(msg),
			 "dropped %llu rows of %s whose %s is not an integer (%s)",
			 (unsigned long long)e->count, e->table, e->column, e->value);
		rc = n->sink->warning(n->sink, msg, e->count, GS_WARNING_OTHER);
		if (rc)
			return nsys_sink_failed(n, rc);
	}
	if (n->in.type_other) {
		gs_status rc;

		snprintf(msg, sizeof(msg),
			 "dropped %llu further rows with a value that is not an integer in an "
			 "integer column",
			 (unsigned long long)n->in.type_other);
		rc = n->sink->warning(n->sink, msg, n->in.type_other, GS_WARNING_OTHER);
		if (rc)
			return nsys_sink_failed(n, rc);
	}
	if (n->ctx_conflicts) {
		gs_status rc;

		snprintf(msg, sizeof(msg),
			 "%llu CUDA contexts have ops on more than one device; their syncs and "
			 "event records keep the device their rows name",
			 (unsigned long long)n->ctx_conflicts);
		rc = n->sink->warning(n->sink, msg, n->ctx_conflicts, GS_WARNING_OTHER);
		if (rc)
			return nsys_sink_failed(n, rc);
	}
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                              */
/* ------------------------------------------------------------------------ */

static void nsys_limits(struct gs_import_limits *out, const struct gs_import_limits *in)
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
	nsys_limits(&n->lim, lim);
	n->host_name = n->driver_version = n->unnamed_kernel = GS_NO_STRING;
	memset(n->copy_names, 0xFF, sizeof(n->copy_names));
	memset(n->memset_names, 0xFF, sizeof(n->memset_names));

	rc = nsys_check_file(&n->in);
	if (!rc)
		rc = nsys_open(&n->in);
	if (!rc)
		rc = nsys_check_nsys(&n->in);
	if (!rc)
		rc = nsys_load_enums(n);
	if (!rc)
		rc = nsys_load_system(n);
	if (!rc)
		rc = nsys_load_session(n);
	if (!rc)
		rc = nsys_load_stream_info(n);
	if (!rc)
		rc = nsys_devices(n);
	if (!rc)
		rc = nsys_api_table(n, "CUPTI_ACTIVITY_KIND_RUNTIME", false);
	if (!rc)
		rc = nsys_api_table(n, "CUPTI_ACTIVITY_KIND_DRIVER", true);
	if (!rc)
		rc = nsys_kernels(n);
	if (!rc)
		rc = nsys_memcpys(n);
	if (!rc)
		rc = nsys_memsets(n);
	/* After the op tables: syncs and event records take their device from
	 * the contexts of the ops (nsys_ctx_device). */
	if (!rc)
		rc = nsys_syncs_events(n);
	if (!rc)
		rc = nsys_nvtx(n);
	/* A database in WAL mode without its -wal file and without a record:
	 * its rows are likely in a -wal file left behind. Refused, never read
	 * as an empty trace. */
	if (!rc && n->in.wal && !n->in.with_wal && n->records == 0)
		rc = nsys_wal_refused(&n->in);
	if (!rc)
		rc = nsys_processes(n);
	if (!rc)
		rc = nsys_warnings(n);

	sqlite3_finalize(n->in.str_stmt);
	sqlite3_finalize(n->in.col_stmt);
	nsys_close(&n->in);
	gs_u64map_fini(&n->strs);
	gs_u64map_fini(&n->in.str_rows);
	gs_u64map_fini(&n->calls);
	gs_u64map_fini(&n->evrec);
	gs_u64map_fini(&n->pids);
	gs_u64map_fini(&n->dev_used);
	gs_u64map_fini(&n->dev_done);
	nsys_kmap_fini(&n->streams);
	nsys_kmap_fini(&n->sinfo);
	nsys_kmap_fini(&n->domains);
	nsys_kmap_fini(&n->events);
	nsys_kmap_fini(&n->ctxdev);
	free(n->gpus);
	free(n);
	return rc;
}
