/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the Kineto importer share: the import's state (struct
 * kin), the categories and counted warnings, the correlation rings, and the
 * functions one part calls in another. kineto.c: the events and the
 * document walk; kineto_emit.c: correlation rings, job-export ids, emitting
 * records; kineto_args.c: reading args and top-level values (the j_*
 * accessors) and the category names; kineto_meta.c: top-level values other
 * than traceEvents (devices, versions, distributedInfo, gpuscope_job);
 * kineto_end.c: the counted warnings and the end of the import.
 */
#ifndef GS_KINETO_PRIV_H
#define GS_KINETO_PRIV_H

#include "copy_names.h"
#include "gzin.h"
#include "import_priv.h"
#include "kineto_pipe.h"
#include "kineto_scan.h"

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KIN_PEND_CAP 4096u
#define KIN_RECENT_CAP 1024u
#define KIN_PROC_SLOTS 8192u
#define KIN_PROC_MAX 4096u
#define KIN_NAMED_MAX 64u
#define KIN_NAMED_KEY 64u
#define KIN_NONE UINT32_MAX

/* ------------------------------------------------------------------------ */
/* Limits                                                                   */
/* ------------------------------------------------------------------------ */

/* gs_import_limits_default and the resolution of zero fields: limits.c. */

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

enum kin_cat {
	KC_UNKNOWN = 0,
	KC_KERNEL,
	KC_MEMCPY,
	KC_MEMSET,
	KC_RUNTIME,
	KC_DRIVER,
	KC_SYNC,
	KC_CPU_OP,
	KC_USER_ANNOTATION,
	KC_PYTHON,
	KC_GPU_ANNOTATION,
	KC_OVERHEAD,
	KC_IGNORE,
};

/* Counted warnings of a fixed kind. */
enum kin_warn {
	KW_NOT_NUMBER,
	KW_NO_TIME,
	KW_NEG_DUR,
	KW_HUGE_DUR,
	KW_TIME_RANGE,
	KW_MALFORMED,
	KW_NOT_OBJECT,
	KW_NO_PHASE,
	KW_STRING_PID,
	KW_NO_STREAM,
	KW_NONFINITE,
	KW_PROCESSES,
	KW_BAD_DEVICE,
	KW_BAD_IN_DEVICE,
	KW_BAD_PID_DEVICE,
	KW_BAD_STREAM,
	KW_BAD_WAIT_STREAM,
	KW_BAD_TID_STREAM,
	KW_COUNT
};

/* The first offending value kept for the warnings that show one. */
#define KIN_BAD_VALUE_MAX 40u

enum kin_named_kind {
	KN_CATEGORY,
	KN_PHASE,
};

struct kin_named {
	char key[KIN_NAMED_KEY];
	uint8_t kind;
	uint64_t count;
};

/* A ring of up to `cap` slots in arrival order, indexed by correlation id. */
struct kin_ring {
	uint32_t cap; /* power of two */
	uint32_t bits;
	uint32_t head, count;
	uint32_t *bucket; /* cap heads of chains */
	uint32_t *next;   /* per slot */
	uint64_t *key;    /* per slot */
};

enum kin_api_flags {
	KA_GRAPH = 1u << 0,
	KA_ASYNC = 1u << 1,
};

struct kin_api {
	int64_t pid;
	int64_t tid;
	uint8_t flags;
};

enum kin_pend_type {
	KP_OP,
	KP_SYNC,
};

struct kin_pend {
	uint8_t type;
	union {
		struct gs_op op;
		struct gs_sync sync;
	} u;
	struct gs_launch_cfg launch; /* KP_OP: a kernel's; zero otherwise */
};

struct kin_stream_ent {
	int64_t pid; /* 0, or the rank's in gpuscope's job export */
	uint64_t stream;
	uint32_t device;
	uint32_t context;
	uint32_t index;
	bool used;
};

enum kin_proc_flags {
	KPF_API = 1u << 0,
	KPF_HOST_EVENTS = 1u << 1,
	KPF_LABEL_CPU = 1u << 2,
	KPF_LABEL_GPU = 1u << 3,
};

struct kin_proc {
	int64_t pid;
	uint32_t name;
	uint8_t flags;
	bool used;
};

/*
 * A rank of gpuscope's own job export (the top-level "gpuscope_job" the
 * exporter writes before traceEvents, formats/src/chrome.c): its events are
 * those whose pid is in [pid_base, pid_base + pid_stride). They are read
 * back as one process of its own: every stream and host record under
 * `pid`, times less `shift`, ids (but 0) less `id_offset`, and the process
 * record `proc` (rank, world size, backend, host, clock, ...).
 */
struct kin_jrank {
	int64_t pid_base;
	int64_t pid;
	int64_t shift;
	uint64_t id_offset;
	struct gs_process proc;
};

/* The args of the event being handled (kin_parse_args, "cJSON helpers"). */
struct kin_args {
	const cJSON *tree;          /* or */
	const struct kin_event *ev; /* members found by the scanner */
	struct kin *k;              /* kin_ja_str's copy lives in k */
};

struct kin {
	struct kin_scan sc; /* the input; sc.lim points at lim */
	struct gs_import_limits lim;
	struct gs_sink *sink;

	uint64_t ev_off; /* offset of the event being handled */
	uint64_t records;

	struct kin_stream_ent *streams;
	uint32_t stream_slots, nstreams;
	struct kin_stream_ent *last_stream;

	struct kin_proc *procs;
	uint32_t nprocs;
	struct kin_proc *last_proc;

	uint32_t *devs; /* ids from deviceProperties */
	size_t ndevs, devs_cap;

	struct kin_ring pend;
	struct kin_pend *pend_items;
	struct kin_ring recent;
	struct kin_api *recent_items;

	uint64_t warn[KW_COUNT];
	uint64_t warn_at[KW_COUNT];
	char warn_value[KW_COUNT][KIN_BAD_VALUE_MAX]; /* first value, when one is shown */
	struct kin_named named[KIN_NAMED_MAX];
	uint32_t nnamed;
	uint64_t named_other;

	uint32_t host_name, driver_version, runtime_version, cupti_version;
	/* distributedInfo: the rank of this trace's process in its job. */
	bool has_rank, has_backend;
	uint32_t rank, world_size, backend;
	/* The wall clock: baseTimeNanoseconds, else epoch times (the first
	 * op's start tells). */
	bool has_base, has_first_op;
	int64_t base_ns, first_op_ns;
	uint8_t gs_clock; /* "gpuscope_clock" of our own export; 0 none */
	/* gpuscope's job export: its ranks (gpuscope_job), by pid_base; the
	 * rank of the event being handled (KIN_NONE: none); why a marker was
	 * ignored. */
	struct kin_jrank *job;
	uint32_t n_job;
	int64_t job_stride;
	int64_t *job_pids; /* the ranks' pids read back, ascending */
	uint32_t ev_rank;
	char job_ignored[96];
	uint64_t sync_events, wait_calls;
	bool saw_events;      /* the event code has met traceEvents */
	bool walk_saw_events; /* the document walk has (its own thread's) */
	struct kin_args args; /* of the event being handled (kin_parse_args) */
	char *args_str;       /* kin_ja_str's copy */
	size_t args_str_cap;
};

/* kin_emit_<cb>: count one record and pass it to the sink's callback. */
#define KIN_DEFINE_EMIT(cb, type)                                                                  \
	GS_IMPORT_DEFINE_EMIT(kin, struct kin, kin_count, kin_sink_failed, cb, type)

/* How a device or stream id member reads. */
enum kin_id {
	KI_ABSENT,
	KI_OK,
	KI_BAD,
};

enum kin_top {
	KT_TOP_OTHER,
	KT_TOP_EVENTS,
	KT_TOP_DEVICES,
	KT_TOP_HOST,
	KT_TOP_DRIVER,
	KT_TOP_RUNTIME,
	KT_TOP_CUPTI,
	KT_TOP_HIP_DRIVER,
	KT_TOP_HIP_RUNTIME,
	KT_TOP_DISTRIBUTED,
	KT_TOP_BASE_TIME,
	KT_TOP_GS_CLOCK,
	KT_TOP_GS_JOB,
};

#define kin_get_int(obj, key, v)                                                                   \
	_Generic((obj), const struct kin_args *: kin_ja_int, struct kin_args *: kin_ja_int,                \
		 default: kin_jt_int)(obj, key, v)

#define kin_get_u64(obj, key, v)                                                                   \
	_Generic((obj), const struct kin_args *: kin_ja_u64, struct kin_args *: kin_ja_u64,                \
		 default: kin_jt_u64)(obj, key, v)

#define kin_get_u32(obj, key, v)                                                                   \
	_Generic((obj), const struct kin_args *: kin_ja_u32, struct kin_args *: kin_ja_u32,                \
		 default: kin_jt_u32)(obj, key, v)

#define kin_get_id(k, obj, key, lo, hi, w, v)                                                      \
	_Generic((obj), const struct kin_args *: kin_ja_id, struct kin_args *: kin_ja_id,                  \
		 default: kin_jt_id)(k, obj, key, lo, hi, w, v)

#define kin_get_str(obj, key)                                                                      \
	_Generic((obj), const struct kin_args *: kin_ja_str, struct kin_args *: kin_ja_str,                \
		 default: kin_jt_str)(obj, key)

#define kin_get_dim3(obj, key, out)                                                                \
	_Generic((obj), const struct kin_args *: kin_ja_dim3, struct kin_args *: kin_ja_dim3,              \
		 default: kin_jt_dim3)(obj, key, out)

/* kineto_emit.c */
gs_status kin_ring_init(struct kin_ring *r, uint32_t cap);
void kin_ring_fini(struct kin_ring *r);
uint32_t kin_job_rank(const struct kin *k, int64_t pid);
uint64_t kin_id(const struct kin *k, uint64_t v);
bool kin_job_pid(const struct kin *k, int64_t pid);
gs_status kin_count(struct kin *k);
gs_status kin_sink_failed(struct kin *k, gs_status rc);
gs_status kin_intern(struct kin *k, const char *s, size_t n, uint32_t *id);
gs_status kin_intern_str(struct kin *k, const char *s, uint32_t *id);
bool kin_valid_stream_id(int64_t v);
uint32_t kin_stream_hash(int64_t pid, uint32_t device, uint64_t stream);
int64_t kin_gpu_pid(const struct kin *k);
gs_status kin_stream(struct kin *k, uint32_t device, uint32_t context, uint64_t stream,
		     uint32_t *index);
struct kin_proc *kin_proc(struct kin *k, int64_t pid);
void kin_proc_flag(struct kin *k, int64_t pid, uint8_t flag);
gs_status kin_pend_pop(struct kin *k);
gs_status kin_submit(struct kin *k, const struct kin_pend *item, uint64_t corr);
gs_status kin_api_seen(struct kin *k, uint64_t corr, const struct kin_api *a);
bool kin_times(struct kin *k, const struct kin_span *ts, const struct kin_span *dur, int64_t *start,
	       int64_t *end);

/* kineto_args.c */
gs_status kin_parse_args(struct kin *k, const struct kin_event *ev, struct kin_args **args,
			 bool *ok);
void kin_args_free(struct kin_args *a);
bool kin_jt_int(const cJSON *obj, const char *key, int64_t *v);
bool kin_ja_int(const struct kin_args *a, const char *key, int64_t *v);
bool kin_jt_u64(const cJSON *obj, const char *key, uint64_t *v);
bool kin_ja_u64(const struct kin_args *obj, const char *key, uint64_t *v);
bool kin_jt_u32(const cJSON *obj, const char *key, uint32_t *v);
bool kin_ja_u32(const struct kin_args *obj, const char *key, uint32_t *v);
enum kin_id kin_jt_id(struct kin *k, const cJSON *obj, const char *key, int64_t lo, int64_t hi,
		      enum kin_warn w, int64_t *v);
enum kin_id kin_ja_id(struct kin *k, const struct kin_args *a, const char *key, int64_t lo,
		      int64_t hi, enum kin_warn w, int64_t *v);
const char *kin_jt_str(const cJSON *obj, const char *key);
const char *kin_ja_str(const struct kin_args *a, const char *key);
void kin_jt_dim3(const cJSON *obj, const char *key, uint32_t out[3]);
void kin_ja_dim3(const struct kin_args *a, const char *key, uint32_t out[3]);
gs_status kin_collective(struct kin *k, const struct kin_args *args, uint32_t *index);
enum kin_cat kin_cat_lookup(const char *s, size_t n);

/* kineto_meta.c */
enum kin_top kin_top_key(const char *s, size_t n);
gs_status kin_top_value(struct kin *k, enum kin_top top, const char *p, size_t n);

/* kineto_end.c */
void kin_warn(struct kin *k, enum kin_warn w);
void kin_warn_value(struct kin *k, enum kin_warn w, const char *text, size_t n);
void kin_warn_named(struct kin *k, enum kin_named_kind kind, const char *s, size_t n);
gs_status kin_finish(struct kin *k);

#endif
