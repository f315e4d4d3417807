/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the Nsight Systems importer share: the import's state
 * (struct nsys), its counted warnings and small maps, and the functions one
 * part calls in another. nsys.c: the state's helpers, API calls, contexts,
 * NVTX, processes, warnings and the entry point; nsys_tables.c: the lookup
 * tables read first (strings, enums, system and session, streams, GPUs);
 * nsys_activity.c: GPU activity (kernels, copies, memsets, syncs, CUDA
 * events) mapped to records.
 */
#ifndef GS_NSYS_PRIV_H
#define GS_NSYS_PRIV_H

#include "import_priv.h"
#include "nsys_db.h"

#include <gpuscope/u64map.h>

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NSYS_ENUM_MAX 64
#define NSYS_MAX_GPUS 4096
#define NSYS_INVALID_ID 0xFFFFFFFFll /* CUPTI's "no stream / no event" */
/* A map keyed by four integers, for the small tables (streams, events). */
struct nsys_key {
	int64_t a;
	int64_t b, c, d;
};

struct nsys_kent {
	struct nsys_key k;
	uint64_t v1, v2;
	bool used;
};

struct nsys_kmap {
	struct nsys_kent *e;
	size_t count, cap;
};
/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

/* Counted warnings. */
enum nsys_warn {
	NW_NO_TIME,
	NW_NEG_DUR,
	NW_HUGE_DUR,
	NW_NO_STREAM,
	NW_COUNT
};

/* What an API call's name says (cached with the name's string id). */
enum nsys_name_flags {
	NF_ASYNC = 1u << 0,
	NF_GRAPH = 1u << 1,
	NF_EVREC = 1u << 2,
	NF_SYNC_SHIFT = 3, /* bits 3..5: the enum gs_sync_kind the name implies */
};

#define NSYS_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Memcpy kind table entries: direction plus the array sides. */
#define NSYS_CK_SRC_ARRAY 0x10u
#define NSYS_CK_DST_ARRAY 0x20u
#define NSYS_CK_KIND(v) ((v)&0x0Fu)

struct nsys_gpu {
	int64_t id, cu_device;
	bool has_cu_device;
	struct gs_device dev; /* every field but id */
};

struct nsys {
	struct nsys_db in; /* in.lim points at lim */
	struct gs_sink *sink;
	struct gs_import_limits lim;
	uint64_t records;
	struct gs_u64map strs;     /* StringIds id << 1 | api -> sink id | flags << 32 */
	struct gs_u64map calls;    /* call key -> tid | flags << 32 */
	struct gs_u64map evrec;    /* call key -> start of a cudaEventRecord call */
	struct gs_u64map pids;     /* pids with records */
	struct gs_u64map dev_used; /* device ids used by records */
	struct gs_u64map dev_done; /* device ids emitted */
	struct nsys_kmap streams;  /* (pid, device, context, stream) -> index */
	struct nsys_kmap sinfo;    /* (pid, 0, context, stream) -> kind, priority */
	struct nsys_kmap domains;  /* (pid, domain id) -> string id */
	struct nsys_kmap events;   /* (pid, event id) -> record correlation, stream */
	struct nsys_kmap ctxdev;   /* (pid, context) -> device of its ops, 1 if several */
	struct nsys_key last_ctx;  /* (pid, context, device) last noted */
	bool have_last_ctx;
	uint64_t ctx_conflicts; /* contexts whose ops name several devices */
	uint32_t nstreams;
	struct nsys_key last_key;
	uint32_t last_index;
	bool have_last;
	uint8_t copy_map[NSYS_ENUM_MAX], mem_map[NSYS_ENUM_MAX];
	uint8_t sync_map[NSYS_ENUM_MAX], stream_map[NSYS_ENUM_MAX];
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
	struct nsys_gpu *gpus;
	size_t ngpus;
};
/* nsys_emit_<cb>: count one record and pass it to the sink's callback. */
#define NSYS_DEFINE_EMIT(cb, type)                                                                 \
	GS_IMPORT_DEFINE_EMIT(nsys, struct nsys, nsys_count, nsys_sink_failed, cb, type)

/* nsys.c */
bool nsys_key_eq(const struct nsys_key *x, const struct nsys_key *y);
const struct nsys_kent *nsys_kmap_get(const struct nsys_kmap *m, const struct nsys_key *k);
gs_status nsys_kmap_put(struct nsys_kmap *m, const struct nsys_key *k, uint64_t v1, uint64_t v2);
void nsys_warn(struct nsys *n, enum nsys_warn w);
gs_status nsys_sink_failed(struct nsys *n, gs_status rc);
gs_status nsys_count(struct nsys *n);
gs_status nsys_emit_op(struct nsys *n, const struct gs_op *op, const struct gs_launch_cfg *launch);
gs_status nsys_intern(struct nsys *n, const char *s, size_t len, uint32_t *id);
gs_status nsys_intern_str(struct nsys *n, const char *s, uint32_t *id);
uint32_t nsys_u32(int64_t v);
uint64_t nsys_u64(int64_t v);
int32_t nsys_i32(int64_t v);
int64_t nsys_pid_of(int64_t global_id);
bool nsys_valid_id(bool present, int64_t v);
uint64_t nsys_call_key(int64_t pid, int64_t corr);
size_t nsys_api_name_len(const char *s, size_t n);
uint8_t nsys_api_name_flags(const char *s);
bool nsys_times_ok(struct nsys *n, bool has_start, int64_t start, bool has_end, int64_t end);
gs_status nsys_note_pid(struct nsys *n, int64_t pid);
bool nsys_call_info(const struct nsys *n, int64_t pid, bool has_corr, int64_t corr, int64_t *tid,
		    uint8_t *flags);
gs_status nsys_ctx_note(struct nsys *n, int64_t pid, int64_t ctx, int64_t dev);
bool nsys_ctx_device(const struct nsys *n, int64_t pid, int64_t ctx, bool has_dev, int64_t dev,
		     int64_t *out);

/* nsys_tables.c */
gs_status nsys_string(struct nsys *n, int64_t id, bool api, uint32_t *sid, uint8_t *flags);
gs_status nsys_text(struct nsys *n, sqlite3_stmt *st, int col, uint32_t *sid);
gs_status nsys_load_enums(struct nsys *n);
uint8_t nsys_enum(const uint8_t *map, sqlite3_stmt *st, int col, uint8_t unknown);
gs_status nsys_load_system(struct nsys *n);
gs_status nsys_load_session(struct nsys *n);
bool nsys_wall_offset(const struct nsys *n, int64_t *off);
gs_status nsys_load_stream_info(struct nsys *n);
gs_status nsys_stream(struct nsys *n, int64_t pid, int64_t device, int64_t ctx, int64_t stream,
		      uint32_t *index);
gs_status nsys_emit_device_once(struct nsys *n, const struct gs_device *d);
gs_status nsys_devices(struct nsys *n);

/* nsys_activity.c */
gs_status nsys_kernels(struct nsys *n);
gs_status nsys_memcpys(struct nsys *n);
gs_status nsys_memsets(struct nsys *n);
gs_status nsys_syncs_events(struct nsys *n);

#endif
