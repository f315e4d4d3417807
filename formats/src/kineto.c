/* SPDX-License-Identifier: MIT */
/*
 * Kineto / PyTorch-profiler Chrome-trace JSON importer.
 *
 * Bounded memory: the file is never held whole. A streaming scanner walks
 * the top-level value (an object with "traceEvents", or a bare array of
 * events), cuts out the exact bytes of one event at a time (string- and
 * escape-aware bracket matching, with the depth, event-size and string-size
 * limits of struct gs_import_limits) and hands them to the event code. Other
 * top-level members are either parsed the same way, one value at a time
 * ("deviceProperties", "host_name", versions), or skipped without being kept.
 * The scanner finds an event's members as it cuts it out, and the members
 * of its args; args are read from those when cJSON would read them the
 * same (plain strings, numbers, literals, arrays of numbers), else parsed
 * with cJSON_ParseWithLength. The fields whose exact text matters (ts, dur,
 * pid, tid) are read from their text. The JSON scanner (byte window, event
 * and value scan, member scanner, number and string readers) is
 * kineto_scan.c; this file walks the document and maps events.
 *
 * Times: ts and dur are µs, integer or decimal, read from their text to
 * exact integer ns (1707417525512145.123 -> 1707417525512145123); digits
 * below 1 ns round to nearest, exponents are honoured. An event whose ts or
 * dur is not a number, whose dur is negative or over GS_MAX_DURATION_NS, or
 * whose end does not fit in int64 ns is dropped and counted. Times are kept
 * as written: baseTimeNanoseconds is not added (it may follow the events);
 * it becomes each process's wall clock (GS_CLOCK_KINETO_BASE, the offset
 * from ts to Unix-epoch ns, read from its text to the digit). Without it,
 * a trace whose first op starts at GS_EPOCH_PLAUSIBLE_NS or later writes
 * epoch times (older profilers: GS_CLOCK_EPOCH); else the clock is not
 * known (GS_CLOCK_NONE).
 *
 * Categories (ph "X"), old and new spellings:
 *   kernel/Kernel, gpu_memcpy/Memcpy, gpu_memset/Memset -> gs_op
 *   cuda_runtime/Runtime -> gs_api_call GS_API_RUNTIME (ROCm's hip* calls too)
 *   cuda_driver -> gs_api_call GS_API_DRIVER
 *   cuda_sync -> gs_sync (cuda_sync_kind: Event Sync, Stream Wait Event,
 *                Stream Sync, Context Sync / Device Sync)
 *   cpu_op/Operator, user_annotation, python_function -> gs_range
 *   overhead -> gs_overhead
 *   gpu_user_annotation -> gs_range GS_RANGE_GPU_ANNOTATION on its stream
 *   (device and stream found as for GPU ops; the context of a stream already
 *   seen with that device and stream id, else args.context, else 0): a
 *   label over GPU time, never an op.
 *   Trace, cpu_instant_event: understood and skipped.
 *   Anything else: skipped, one warning per distinct category with a count.
 * Phases: s/f/t flows and i/I/n instants are skipped (flows are not needed:
 * args.correlation links a launch to its op); M process_name and
 * process_labels are read; other phases are skipped with a warning.
 *
 * GPU events: device = args.device (args.inDevice for peer copies, else the
 * event pid), context = args.context (else 0), stream = args.stream (else
 * the tid, a number or "stream N"). Streams are declared as (pid 0, device,
 * context, stream): a Kineto file does not say which host process owns a
 * GPU event, so every GPU stream gets pid 0 (in gpuscope's job export, its
 * rank's: below); kind GS_STREAM_UNKNOWN and
 * priority 0 (the file says neither). Copy direction and memory kinds come
 * from the event name ("Memcpy HtoD (Pageable -> Device)"; array copies map
 * to HtoD/DtoH/DtoD with GS_MEM_ARRAY), else from args.kind (ROCm); ROCm's
 * "Host" memory is GS_MEM_UNKNOWN.
 *
 * Joining ops and syncs to their API call (by correlation id): the call may
 * come before or after the op in the file (CUDA traces: after, ROCm: before,
 * and close by). Ops and syncs are held in a FIFO of KIN_PEND_CAP entries
 * until their call is seen or they fall out; the last KIN_RECENT_CAP calls
 * are remembered for ops that follow their call. From the call:
 *   - GS_OPF_GRAPH when the call is a graph launch (name contains
 *     "GraphLaunch": cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch), or
 *     when the kernel's args carry a graph id ("graph id", "graphId");
 *   - GS_OPF_ASYNC on copies and memsets whose call's name contains "Async";
 *   - a sync's host pid and tid (else both -1).
 * Event records: Kineto has none, so each cudaEventRecord / cuEventRecord /
 * hipEventRecord call (and its WithFlags and _ptsz forms) becomes a
 * gs_event_record with the call's correlation and host time, event id 0 and
 * stream GS_NO_INDEX (the call's args do not name the stream); a sync's
 * event_correlation (wait_on_cuda_event_record_corr_id) joins to it.
 *
 * Host processes: a pid is a host process when it has API calls or a
 * process_labels "CPU" (or a list that starts with it: "CPU, rank 3"), or
 * host ranges without a "GPU n" label; pids labelled "GPU n" are devices.
 * Each becomes a gs_process at the end with its process_name as
 * command_line, the top-level host_name and the CUDA (or HIP)
 * driver/runtime and CUPTI versions. Events whose pid is a string
 * ("Spans", "Traces") are skipped. Devices come from deviceProperties; a
 * device that ops use but deviceProperties lacks gets a record with its id
 * only. gs_process.start_ns stays 0: the file does not say when the process
 * started. The top-level distributedInfo gives every host process its rank,
 * world_size and backend.
 *
 * gpuscope's job export (formats/src/chrome.c, gs_export_chrome_job): the
 * top-level "gpuscope_job", before traceEvents, lists the ranks of the file,
 * each owning the pids [pid_base, pid_base + pid_stride). Each rank is read
 * back as a process of its own, so that formats/src/job.c's split by pid
 * makes one rank of each: every GPU stream and host record of its pids under
 * one pid, the one it recorded (when an earlier rank recorded the same pid,
 * ranks of two hosts, or none was known: that pid, or 0, plus k * 2^32, k =
 * 1, 2, ..., the next one free), syncs and GPU annotations without a call
 * under it too; its times less its time_shift_ns; its ids but 0
 * (correlation, event, external) less its id_offset, while launches are
 * joined to ops by the ids as written (unique in the file); and one
 * process record with its rank (declared), world size, backend, host,
 * command line, versions, clock, start and records dropped from the marker
 * (its process metadata events are skipped). A marker that follows
 * traceEvents or is not well formed is ignored, with a warning: the file
 * is then read as one process.
 *
 * Collectives: a kernel whose args carry "Collective name" (PyTorch's NCCL
 * kernels) gets a gs_collective with the process group's name, description
 * and ranks, the group size, the message's element counts and dtype, and
 * the group's collective sequence number ("Seq").
 *
 * Limits: a zero field of struct gs_import_limits means its default. Member
 * names are matched as written (a key spelled with \u escapes is not
 * recognised); string values are unescaped. Errors name the input and the
 * byte offset in the (decompressed) JSON; warnings for skipped or dropped
 * events are counted per kind and reach the sink once each, at the end.
 */
#include "copy_names.h"
#include "gzin.h"
#include "import_priv.h"
#include "kineto_pipe.h"
#include "kineto_scan.h"

#include <gpuscope/sort.h>
#include <gpuscope/text.h>

#include <cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Each warning reads "<verb> <count> <what>". */
static const struct {
	const char *verb, *what;
	bool where; /* append the offset of the first one */
} kin_warn_text[KW_COUNT] = {
	[KW_NOT_NUMBER] = {"dropped", "events whose ts or dur is not a number", true},
	[KW_NO_TIME] = {"dropped", "complete events without ts or dur", true},
	[KW_NEG_DUR] = {"dropped", "events with a negative duration", true},
	[KW_HUGE_DUR] = {"dropped", "events with a duration over 7 days", true},
	[KW_TIME_RANGE] = {"dropped", "events whose time does not fit in 64-bit nanoseconds", true},
	[KW_MALFORMED] = {"skipped", "events that are not valid JSON", true},
	[KW_NOT_OBJECT] = {"skipped", "elements of traceEvents that are not objects", true},
	[KW_NO_PHASE] = {"skipped", "events without a phase (\"ph\")", true},
	[KW_STRING_PID] = {"skipped", "host events whose pid is not a number", true},
	[KW_NO_STREAM] = {"dropped", "GPU events without a device or stream", true},
	[KW_NONFINITE] = {"read NaN or Infinity as null in the args of", "events", true},
	[KW_PROCESSES] = {"did not list the processes of",
			  "host events beyond the first 4096 processes", false},
	[KW_BAD_DEVICE] = {"dropped", "GPU events whose args.device is not a device number", true},
	[KW_BAD_IN_DEVICE] = {"dropped", "GPU events whose args.inDevice is not a device number",
			      true},
	[KW_BAD_PID_DEVICE] = {"dropped", "GPU events whose pid is not a device number", true},
	[KW_BAD_STREAM] = {"dropped", "GPU events whose args.stream is not a stream number", true},
	[KW_BAD_WAIT_STREAM] = {"dropped",
				"GPU events whose args.wait_on_stream is not a stream number",
				true},
	[KW_BAD_TID_STREAM] = {"dropped", "GPU events whose tid is not a stream number", true},
};

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
	struct kin *k;              /* ja_str's copy lives in k */
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
	char *args_str;       /* ja_str's copy */
	size_t args_str_cap;
};

static void kin_warn(struct kin *k, enum kin_warn w)
{
	if (k->warn[w]++ == 0)
		k->warn_at[w] = k->ev_off;
}

/* A counted warning that also shows the first offending value. */
static void kin_warn_value(struct kin *k, enum kin_warn w, const char *text, size_t n)
{
	size_t o = 0;

	if (k->warn[w] == 0) {
		if (n > KIN_BAD_VALUE_MAX - 4) {
			n = KIN_BAD_VALUE_MAX - 4;
			memcpy(k->warn_value[w] + n, "...", 4);
		} else {
			k->warn_value[w][n] = '\0';
		}
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)text[i];

			k->warn_value[w][o++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
		}
	}
	kin_warn(k, w);
}

static void kin_warn_named(struct kin *k, enum kin_named_kind kind, const char *s, size_t n)
{
	uint32_t i;

	if (n >= KIN_NAMED_KEY)
		n = KIN_NAMED_KEY - 1;
	for (i = 0; i < k->nnamed; i++) {
		struct kin_named *e = &k->named[i];

		if (e->kind == kind && strlen(e->key) == n && memcmp(e->key, s, n) == 0) {
			e->count++;
			return;
		}
	}
	if (k->nnamed == KIN_NAMED_MAX) {
		k->named_other++;
		return;
	}
	memcpy(k->named[k->nnamed].key, s, n);
	k->named[k->nnamed].key[n] = '\0';
	k->named[k->nnamed].kind = (uint8_t)kind;
	k->named[k->nnamed].count = 1;
	k->nnamed++;
}

/* ------------------------------------------------------------------------ */
/* Correlation rings                                                        */
/* ------------------------------------------------------------------------ */

static gs_status ring_init(struct kin_ring *r, uint32_t cap)
{
	r->cap = cap;
	r->bits = 0;
	while ((1u << r->bits) < cap)
		r->bits++;
	r->head = r->count = 0;
	r->bucket = malloc(cap * sizeof(*r->bucket));
	r->next = malloc(cap * sizeof(*r->next));
	r->key = malloc(cap * sizeof(*r->key));
	if (!r->bucket || !r->next || !r->key)
		return gs_nomem();
	for (uint32_t i = 0; i < cap; i++)
		r->bucket[i] = KIN_NONE;
	return GS_OK;
}

static void ring_fini(struct kin_ring *r)
{
	free(r->bucket);
	free(r->next);
	free(r->key);
}

static uint32_t ring_hash(const struct kin_ring *r, uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - r->bits));
}

static bool ring_full(const struct kin_ring *r)
{
	return r->count == r->cap;
}

/* Remove the oldest slot and return it. The ring must not be empty. */
static uint32_t ring_pop(struct kin_ring *r)
{
	uint32_t s = r->head;
	uint32_t *link = &r->bucket[ring_hash(r, r->key[s])];

	while (*link != s)
		link = &r->next[*link];
	*link = r->next[s];
	r->head = (r->head + 1) & (r->cap - 1);
	r->count--;
	return s;
}

/* Add a slot for `key`. The ring must not be full. */
static uint32_t ring_push(struct kin_ring *r, uint64_t key)
{
	uint32_t s = (r->head + r->count) & (r->cap - 1);
	uint32_t h = ring_hash(r, key);

	r->key[s] = key;
	r->next[s] = r->bucket[h];
	r->bucket[h] = s;
	r->count++;
	return s;
}

/* First slot with `key` (KIN_NONE if none); ring_next continues. */
static uint32_t ring_find(const struct kin_ring *r, uint64_t key)
{
	uint32_t s = r->bucket[ring_hash(r, key)];

	while (s != KIN_NONE && r->key[s] != key)
		s = r->next[s];
	return s;
}

static uint32_t ring_next(const struct kin_ring *r, uint32_t s)
{
	uint64_t key = r->key[s];

	s = r->next[s];
	while (s != KIN_NONE && r->key[s] != key)
		s = r->next[s];
	return s;
}

/* ------------------------------------------------------------------------ */
/* gpuscope's job export                                                    */
/* ------------------------------------------------------------------------ */

/* The rank whose pids hold `pid` (KIN_NONE: none, or not a job export). */
static uint32_t kin_job_rank(const struct kin *k, int64_t pid)
{
	uint32_t lo = 0, hi = k->n_job;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (k->job[mid].pid_base <= pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pid - k->job[lo - 1].pid_base >= k->job_stride)
		return KIN_NONE;
	return lo - 1;
}

/* An id of the event being handled as its source had it: less its rank's
 * id_offset (0 stays 0; an id the offset cannot be taken from is kept). */
static uint64_t kin_id(const struct kin *k, uint64_t v)
{
	uint64_t off = k->ev_rank != KIN_NONE ? k->job[k->ev_rank].id_offset : 0;

	return v > off ? v - off : v;
}

/* Whether `pid` is a rank's pid read back. */
static bool kin_job_pid(const struct kin *k, int64_t pid)
{
	uint32_t lo = 0, hi = k->n_job;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (k->job_pids[mid] < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->n_job && k->job_pids[lo] == pid;
}

/* ------------------------------------------------------------------------ */
/* Emitting records                                                         */
/* ------------------------------------------------------------------------ */

static gs_status kin_count(struct kin *k)
{
	if (++k->records > k->lim.max_records) {
		gs_error_append("%s: byte %llu: more than max_records (%llu) records", k->sc.name,
				(unsigned long long)k->ev_off,
				(unsigned long long)k->lim.max_records);
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

/* Context for an error a sink callback returned. */
static gs_status kin_sink_failed(struct kin *k, gs_status rc)
{
	gs_error_append("%s: byte %llu", k->sc.name, (unsigned long long)k->ev_off);
	return rc;
}

/* kin_emit_<cb>: count one record and pass it to the sink's callback. */
#define KIN_DEFINE_EMIT(cb, type)                                                                  \
	GS_IMPORT_DEFINE_EMIT(kin, struct kin, kin_count, kin_sink_failed, cb, type)

/* kin_emit_op: the same for an op held in a kin_pend, with its launch
 * configuration. */
static gs_status kin_emit_op(struct kin *k, const struct kin_pend *e)
{
	gs_status rc = kin_count(k);

	if (!k->has_first_op || e->u.op.start_ns < k->first_op_ns) {
		k->has_first_op = true;
		k->first_op_ns = e->u.op.start_ns;
	}
	if (!rc && k->sink->op && (rc = k->sink->op(k->sink, &e->u.op, &e->launch)))
		rc = kin_sink_failed(k, rc);
	return rc;
}

KIN_DEFINE_EMIT(sync, struct gs_sync)
KIN_DEFINE_EMIT(api_call, struct gs_api_call)
KIN_DEFINE_EMIT(event_record, struct gs_event_record)
KIN_DEFINE_EMIT(range, struct gs_range)
KIN_DEFINE_EMIT(overhead, struct gs_overhead)
KIN_DEFINE_EMIT(device, struct gs_device)
KIN_DEFINE_EMIT(process, struct gs_process)

static gs_status kin_intern(struct kin *k, const char *s, size_t n, uint32_t *id)
{
	gs_status rc;

	*id = GS_NO_STRING;
	if (!k->sink->intern)
		return GS_OK;
	rc = k->sink->intern(k->sink, s, n, id);
	if (rc)
		return kin_sink_failed(k, rc);
	return GS_OK;
}

static gs_status kin_intern_str(struct kin *k, const char *s, uint32_t *id)
{
	return kin_intern(k, s, strlen(s), id);
}

static bool kin_valid_stream_id(int64_t v)
{
	/* CUPTI writes "no stream" as -1 or as (uint32_t)-1. */
	return v >= 0 && v != (int64_t)UINT32_MAX;
}

static uint32_t kin_stream_hash(int64_t pid, uint32_t device, uint64_t stream)
{
	return (uint32_t)(((stream * 31 + device) * 31 + (uint64_t)pid) * 0x9E3779B97F4A7C15ull >>
			  32);
}

/* The pid of the GPU event being handled: its rank's in gpuscope's job
 * export, else 0 (a Kineto file does not say which process a GPU event is
 * of). */
static int64_t kin_gpu_pid(const struct kin *k)
{
	return k->ev_rank != KIN_NONE ? k->job[k->ev_rank].pid : 0;
}

/* Index of stream (kin_gpu_pid, device, context, stream), declaring it if
 * new. */
static gs_status kin_stream(struct kin *k, uint32_t device, uint32_t context, uint64_t stream,
			    uint32_t *index)
{
	struct kin_stream_ent *e = k->last_stream;
	int64_t pid = kin_gpu_pid(k);
	uint32_t mask, h;

	if (e && e->pid == pid && e->device == device && e->context == context &&
	    e->stream == stream) {
		*index = e->index;
		return GS_OK;
	}
	if (!k->streams || (k->nstreams + 1) * 2 > k->stream_slots) {
		uint32_t nslots = k->stream_slots ? k->stream_slots * 2 : 64;
		struct kin_stream_ent *ns = calloc(nslots, sizeof(*ns));

		if (!ns)
			return gs_nomem();
		for (uint32_t i = 0; k->streams && i < k->stream_slots; i++) {
			struct kin_stream_ent *o = &k->streams[i];

			if (!o->used)
				continue;
			h = kin_stream_hash(o->pid, o->device, o->stream) & (nslots - 1);
			while (ns[h].used)
				h = (h + 1) & (nslots - 1);
			ns[h] = *o;
		}
		free(k->streams);
		k->streams = ns;
		k->stream_slots = nslots;
		k->last_stream = NULL;
	}
	mask = k->stream_slots - 1;
	h = kin_stream_hash(pid, device, stream) & mask;
	for (;; h = (h + 1) & mask) {
		e = &k->streams[h];
		if (!e->used)
			break;
		if (e->pid == pid && e->device == device && e->context == context &&
		    e->stream == stream) {
			k->last_stream = e;
			*index = e->index;
			return GS_OK;
		}
	}
	if (k->nstreams >= k->lim.max_streams) {
		gs_error_append("%s: byte %llu: more than max_streams (%u) streams", k->sc.name,
				(unsigned long long)k->ev_off, k->lim.max_streams);
		return GS_ERR_LIMIT;
	}
	{
		struct gs_stream st = {
			.pid = pid,
			.device = device,
			.context = context,
			.stream_id = stream,
			.kind = GS_STREAM_UNKNOWN,
			.priority = 0,
		};
		uint32_t idx = k->nstreams;
		gs_status rc;

		if (k->sink->stream) {
			rc = k->sink->stream(k->sink, &st, &idx);
			if (rc)
				return kin_sink_failed(k, rc);
		}
		e->used = true;
		e->pid = pid;
		e->device = device;
		e->context = context;
		e->stream = stream;
		e->index = idx;
		k->nstreams++;
		k->last_stream = e;
		*index = idx;
	}
	return GS_OK;
}

/* The host process `pid` (NULL when the table is full). */
static struct kin_proc *kin_proc(struct kin *k, int64_t pid)
{
	uint32_t h, mask = KIN_PROC_SLOTS - 1;

	if (k->last_proc && k->last_proc->pid == pid)
		return k->last_proc;
	h = (uint32_t)(((uint64_t)pid * 0x9E3779B97F4A7C15ull) >> 51) & mask;
	for (;; h = (h + 1) & mask) {
		struct kin_proc *p = &k->procs[h];

		if (p->used && p->pid == pid) {
			k->last_proc = p;
			return p;
		}
		if (!p->used) {
			if (k->nprocs >= KIN_PROC_MAX) {
				kin_warn(k, KW_PROCESSES);
				return NULL;
			}
			p->used = true;
			p->pid = pid;
			p->name = GS_NO_STRING;
			k->nprocs++;
			k->last_proc = p;
			return p;
		}
	}
}

static void kin_proc_flag(struct kin *k, int64_t pid, uint8_t flag)
{
	struct kin_proc *p = kin_proc(k, pid);

	if (p)
		p->flags |= flag;
}

/* Ops and syncs waiting for their API call: emit the oldest. */
static gs_status kin_pend_pop(struct kin *k)
{
	uint32_t s = ring_pop(&k->pend);
	const struct kin_pend *e = &k->pend_items[s];

	if (e->type == KP_OP)
		return kin_emit_op(k, e);
	return kin_emit_sync(k, &e->u.sync);
}

static void kin_apply_api_op(struct gs_op *op, uint8_t flags)
{
	if (flags & KA_GRAPH)
		op->flags |= GS_OPF_GRAPH;
	if ((flags & KA_ASYNC) && op->kind != GS_OP_KERNEL)
		op->flags |= GS_OPF_ASYNC;
}

/* An op or sync: completed from a call seen before, or held back. */
static gs_status kin_submit(struct kin *k, const struct kin_pend *item, uint64_t corr)
{
	struct kin_pend e = *item;
	uint32_t s;

	if (corr) {
		s = ring_find(&k->recent, corr);
		if (s != KIN_NONE) {
			const struct kin_api *a = &k->recent_items[s];

			if (e.type == KP_OP) {
				kin_apply_api_op(&e.u.op, a->flags);
				return kin_emit_op(k, &e);
			}
			e.u.sync.pid = a->pid;
			e.u.sync.tid = a->tid;
			return kin_emit_sync(k, &e.u.sync);
		}
	} else {
		if (e.type == KP_OP)
			return kin_emit_op(k, &e);
		return kin_emit_sync(k, &e.u.sync);
	}
	if (ring_full(&k->pend)) {
		gs_status rc = kin_pend_pop(k);

		if (rc)
			return rc;
	}
	s = ring_push(&k->pend, corr);
	k->pend_items[s] = e;
	return GS_OK;
}

/* An API call: complete what waits for it, and remember it. */
static gs_status kin_api_seen(struct kin *k, uint64_t corr, const struct kin_api *a)
{
	uint32_t s;

	if (!corr)
		return GS_OK;
	for (s = ring_find(&k->pend, corr); s != KIN_NONE; s = ring_next(&k->pend, s)) {
		struct kin_pend *e = &k->pend_items[s];

		if (e->type == KP_OP) {
			kin_apply_api_op(&e->u.op, a->flags);
		} else {
			e->u.sync.pid = a->pid;
			e->u.sync.tid = a->tid;
		}
	}
	if (ring_full(&k->recent))
		ring_pop(&k->recent);
	s = ring_push(&k->recent, corr);
	k->recent_items[s] = *a;
	return GS_OK;
}

/* start/end of a complete event, or false (counted) when it must go. */
static bool kin_times(struct kin *k, const struct kin_span *ts, const struct kin_span *dur,
		      int64_t *start, int64_t *end)
{
	int64_t s, d;
	enum kin_time r;

	if (ts->n == 0 || dur->n == 0) {
		kin_warn(k, KW_NO_TIME);
		return false;
	}
	r = kin_us_text_to_ns(ts->p, ts->n, &s);
	if (r == KT_OK)
		r = kin_us_text_to_ns(dur->p, dur->n, &d);
	if (r != KT_OK) {
		kin_warn(k, r == KT_RANGE ? KW_TIME_RANGE : KW_NOT_NUMBER);
		return false;
	}
	if (d < 0) {
		kin_warn(k, KW_NEG_DUR);
		return false;
	}
	if (d > GS_MAX_DURATION_NS) {
		kin_warn(k, KW_HUGE_DUR);
		return false;
	}
	if (s > INT64_MAX - d) {
		kin_warn(k, KW_TIME_RANGE);
		return false;
	}
	*start = s;
	*end = s + d;
	return true;
}

/* ------------------------------------------------------------------------ */
/* cJSON helpers                                                            */
/* ------------------------------------------------------------------------ */

/*
 * The args of the event being handled (kin_parse_args) are read through the
 * j_* accessors below. When the scanner found args to be an object cJSON
 * would read the same way (ev->args_state KIN_ARGS_JSON: strings without
 * escapes, numbers, literals, arrays of numbers), its members answer; any
 * other text is parsed by cJSON as before. Both give the same answers: a
 * number is what strtod makes of its text, a string its bytes up to a NUL,
 * the first of two members of one name. The j_* names also take a cJSON
 * object (top-level values: deviceProperties, the job marker): _Generic
 * picks the reader from the argument's type.
 */

/* Parse the args object of an event; *args is NULL when it has none. */
static gs_status kin_parse_args(struct kin *k, const struct kin_event *ev, struct kin_args **args,
				bool *ok)
{
	const struct kin_span *s = &ev->f[EV_ARGS];
	cJSON *tree;
	size_t n;
	gs_status rc = GS_OK;

	*args = NULL;
	*ok = true;
	if (s->n == 0)
		return GS_OK;
	k->args = (struct kin_args){.k = k};
	if (ev->args_state == KIN_ARGS_JSON) {
		k->args.ev = ev;
		*args = &k->args;
		return GS_OK;
	}
	tree = cJSON_ParseWithLength(s->p, s->n);
	if (!tree && kin_sanitise_nonfinite(&k->sc, s->p, s->n, &n, &rc)) {
		tree = cJSON_ParseWithLength(k->sc.scratch[1], n);
		if (tree)
			kin_warn(k, KW_NONFINITE);
	} else if (!tree && rc) {
		return rc;
	}
	if (!tree || !cJSON_IsObject(tree)) {
		cJSON_Delete(tree);
		*ok = false;
		return GS_OK;
	}
	k->args.tree = tree;
	*args = &k->args;
	return GS_OK;
}

static void kin_args_free(struct kin_args *a)
{
	if (a) {
		cJSON_Delete((cJSON *)(uintptr_t)a->tree);
		a->tree = NULL;
	}
}

/* The member `key` of args read by the scanner, or NULL. */
static const struct kin_member *ja_member(const struct kin_args *a, const char *key)
{
	return kin_event_arg(a->ev, key, strlen(key));
}

/* A number member as an integer (numbers, or integer text in a string). */
static bool jt_int(const cJSON *obj, const char *key, int64_t *v)
{
	const cJSON *it = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	double d;

	if (!it)
		return false;
	if (cJSON_IsString(it) && it->valuestring)
		return kin_parse_int_text(it->valuestring, strlen(it->valuestring), v);
	if (!cJSON_IsNumber(it))
		return false;
	d = it->valuedouble;
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != (double)(int64_t)d)
		return false;
	*v = (int64_t)d;
	return true;
}

/* The bytes of a string member as cJSON keeps them: up to a NUL. */
static size_t ja_string_len(const struct kin_member *m)
{
	const char *z = memchr(m->val + 1, '\0', m->vlen - 2);

	return z ? (size_t)(z - (m->val + 1)) : m->vlen - 2;
}

static bool ja_int(const struct kin_args *a, const char *key, int64_t *v)
{
	const struct kin_member *m;
	double d;

	if (!a)
		return false;
	if (a->tree)
		return jt_int(a->tree, key, v);
	m = ja_member(a, key);
	if (!m)
		return false;
	if (m->type == KA_STRING)
		return kin_parse_int_text(m->val + 1, ja_string_len(m), v);
	if (m->type != KA_NUMBER)
		return false;
	d = kin_number_value(m->val, m->vlen);
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != (double)(int64_t)d)
		return false;
	*v = (int64_t)d;
	return true;
}

#define j_int(obj, key, v)                                                                         \
	_Generic((obj), const struct kin_args *: ja_int, struct kin_args *: ja_int,                \
		 default: jt_int)(obj, key, v)

static bool jt_u64(const cJSON *obj, const char *key, uint64_t *v)
{
	int64_t x;

	if (!j_int(obj, key, &x) || x < 0)
		return false;
	*v = (uint64_t)x;
	return true;
}

static bool ja_u64(const struct kin_args *obj, const char *key, uint64_t *v)
{
	int64_t x;

	if (!j_int(obj, key, &x) || x < 0)
		return false;
	*v = (uint64_t)x;
	return true;
}

#define j_u64(obj, key, v)                                                                         \
	_Generic((obj), const struct kin_args *: ja_u64, struct kin_args *: ja_u64,                \
		 default: jt_u64)(obj, key, v)

static bool jt_u32(const cJSON *obj, const char *key, uint32_t *v)
{
	int64_t x;

	if (!j_int(obj, key, &x) || x < 0 || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool ja_u32(const struct kin_args *obj, const char *key, uint32_t *v)
{
	int64_t x;

	if (!j_int(obj, key, &x) || x < 0 || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

#define j_u32(obj, key, v)                                                                         \
	_Generic((obj), const struct kin_args *: ja_u32, struct kin_args *: ja_u32,                \
		 default: jt_u32)(obj, key, v)

/* How a device or stream id member reads. */
enum kin_id {
	KI_ABSENT,
	KI_OK,
	KI_BAD,
};

/* The text a bad id value is shown as: a number as %.0f (whole) or %.15g. */
static void id_number_text(double d, char *text, size_t cap)
{
	bool whole = d > -1e20 && d < 1e20 && (d >= 9e15 || d <= -9e15 || d == (double)(int64_t)d);

	if (whole)
		snprintf(text, cap, "%.0f", d);
	else
		snprintf(text, cap, "%.15g", d);
}

/*
 * A member that must hold an id from lo to hi: an integer number, or
 * integer text in a string. Anything else present (a fraction, a value out
 * of range, other text, null, an object) is KI_BAD, counted under w with
 * the value shown.
 */
static enum kin_id jt_id(struct kin *k, const cJSON *obj, const char *key, int64_t lo, int64_t hi,
			 enum kin_warn w, int64_t *v)
{
	const cJSON *it = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	char text[KIN_BAD_VALUE_MAX];
	int64_t x;

	if (!it)
		return KI_ABSENT;
	if (j_int(obj, key, &x) && x >= lo && x <= hi) {
		*v = x;
		return KI_OK;
	}
	if (cJSON_IsNumber(it)) {
		id_number_text(it->valuedouble, text, sizeof(text));
	} else if (cJSON_IsString(it) && it->valuestring) {
		snprintf(text, sizeof(text), "\"%s\"", it->valuestring);
	} else if (cJSON_IsNull(it)) {
		snprintf(text, sizeof(text), "null");
	} else if (cJSON_IsBool(it)) {
		snprintf(text, sizeof(text), "%s", cJSON_IsTrue(it) ? "true" : "false");
	} else {
		snprintf(text, sizeof(text), "%s", cJSON_IsArray(it) ? "an array" : "an object");
	}
	kin_warn_value(k, w, text, strlen(text));
	return KI_BAD;
}

static enum kin_id ja_id(struct kin *k, const struct kin_args *a, const char *key, int64_t lo,
			 int64_t hi, enum kin_warn w, int64_t *v)
{
	const struct kin_member *m;
	char text[KIN_BAD_VALUE_MAX];
	int64_t x;

	if (!a)
		return KI_ABSENT;
	if (a->tree)
		return jt_id(k, a->tree, key, lo, hi, w, v);
	m = ja_member(a, key);
	if (!m)
		return KI_ABSENT;
	if (j_int(a, key, &x) && x >= lo && x <= hi) {
		*v = x;
		return KI_OK;
	}
	switch (m->type) {
	case KA_NUMBER:
		id_number_text(kin_number_value(m->val, m->vlen), text, sizeof(text));
		break;
	case KA_STRING:
		snprintf(text, sizeof(text), "\"%.*s\"", (int)ja_string_len(m), m->val + 1);
		break;
	case KA_NULL:
		snprintf(text, sizeof(text), "null");
		break;
	case KA_TRUE:
	case KA_FALSE:
		snprintf(text, sizeof(text), "%s", m->type == KA_TRUE ? "true" : "false");
		break;
	default:
		snprintf(text, sizeof(text), "%s", m->type == KA_ARRAY ? "an array" : "an object");
		break;
	}
	kin_warn_value(k, w, text, strlen(text));
	return KI_BAD;
}

#define j_id(k, obj, key, lo, hi, w, v)                                                            \
	_Generic((obj), const struct kin_args *: ja_id, struct kin_args *: ja_id,                  \
		 default: jt_id)(k, obj, key, lo, hi, w, v)

static const char *jt_str(const cJSON *obj, const char *key)
{
	const cJSON *it = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

	return it && cJSON_IsString(it) ? it->valuestring : NULL;
}

/* A string member; from the scanner's members, a copy valid until the
 * next ja_str (NULL also when it cannot be made). */
static const char *ja_str(const struct kin_args *a, const char *key)
{
	const struct kin_member *m;
	struct kin *k;
	size_t n;

	if (!a)
		return NULL;
	if (a->tree)
		return jt_str(a->tree, key);
	m = ja_member(a, key);
	if (!m || m->type != KA_STRING)
		return NULL;
	k = a->k;
	n = ja_string_len(m);
	if (n + 1 > k->args_str_cap) {
		size_t nc = k->args_str_cap ? k->args_str_cap : 64;
		char *nb;

		while (nc < n + 1)
			nc *= 2;
		nb = realloc(k->args_str, nc);
		if (!nb)
			return NULL;
		k->args_str = nb;
		k->args_str_cap = nc;
	}
	memcpy(k->args_str, m->val + 1, n);
	k->args_str[n] = '\0';
	return k->args_str;
}

#define j_str(obj, key)                                                                            \
	_Generic((obj), const struct kin_args *: ja_str, struct kin_args *: ja_str,                \
		 default: jt_str)(obj, key)

/* An array of up to three non-negative integers ("grid": [128, 1, 1]). */
static void jt_dim3(const cJSON *obj, const char *key, uint32_t out[3])
{
	const cJSON *arr = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	const cJSON *it;
	int i = 0;

	if (!cJSON_IsArray(arr))
		return;
	cJSON_ArrayForEach(it, arr)
	{
		if (i == 3)
			break;
		if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= UINT32_MAX)
			out[i] = (uint32_t)it->valuedouble;
		i++;
	}
}

static void ja_dim3(const struct kin_args *a, const char *key, uint32_t out[3])
{
	const struct kin_member *m;
	const char *p, *end;
	int i = 0;

	if (!a)
		return;
	if (a->tree) {
		jt_dim3(a->tree, key, out);
		return;
	}
	m = ja_member(a, key);
	if (!m || m->type != KA_ARRAY)
		return;
	/* The scanner checked the form: '[' numbers separated by ',' ']'. */
	p = m->val + 1;
	end = m->val + m->vlen - 1;
	while (i < 3) {
		const char *q;
		double d;

		while (p < end &&
		       (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ','))
			p++;
		if (p >= end)
			break;
		q = p;
		while (q < end && *q != ',' && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
			q++;
		d = kin_number_value(p, (size_t)(q - p));
		if (d >= 0 && d <= UINT32_MAX)
			out[i] = (uint32_t)d;
		i++;
		p = q;
	}
}

#define j_dim3(obj, key, out)                                                                      \
	_Generic((obj), const struct kin_args *: ja_dim3, struct kin_args *: ja_dim3,              \
		 default: jt_dim3)(obj, key, out)

/*
 * The collective of an NCCL kernel, from the args PyTorch's profiler adds
 * ("Collective name", "Process Group Name", "In msg nelems", ...): declared
 * to the sink, *index its 1-based id (0 when the args name no collective
 * or the sink keeps none).
 */
static gs_status kin_collective(struct kin *k, const struct kin_args *args, uint32_t *index)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{"Collective name", offsetof(struct gs_collective, name)},
		{"Process Group Name", offsetof(struct gs_collective, group)},
		{"Process Group Description", offsetof(struct gs_collective, group_desc)},
		{"Process Group Ranks", offsetof(struct gs_collective, group_ranks)},
		{"dtype", offsetof(struct gs_collective, dtype)},
	};
	struct gs_collective c = {0};
	const char *name = j_str(args, "Collective name");
	uint32_t idx = 0;
	gs_status rc;

	*index = 0;
	if (!name || !*name || !k->sink->collective)
		return GS_OK;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *v = j_str(args, strs[i].key);
		uint32_t *dst = (uint32_t *)(void *)((char *)&c + strs[i].off);

		*dst = GS_NO_STRING;
		if (v && (rc = kin_intern_str(k, v, dst)))
			return rc;
	}
	j_u32(args, "Group size", &c.group_size);
	c.has_nelems = j_u64(args, "In msg nelems", &c.in_nelems);
	if (!j_u64(args, "Out msg nelems", &c.out_nelems))
		c.out_nelems = c.in_nelems;
	c.has_seq = j_u64(args, "Seq", &c.seq);
	rc = kin_count(k);
	if (!rc && (rc = k->sink->collective(k->sink, &c, &idx)))
		rc = kin_sink_failed(k, rc);
	if (!rc)
		*index = idx + 1;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Mapping                                                                  */
/* ------------------------------------------------------------------------ */

/* The names with their lengths: compared by length first, no strlen. */
#define KIN_CAT(s, c)                                                                              \
	{                                                                                          \
		s, sizeof(s) - 1, c                                                                \
	}
static const struct {
	const char *name;
	size_t len;
	enum kin_cat cat;
} kin_cats[] = {
	KIN_CAT("cpu_op", KC_CPU_OP),
	KIN_CAT("cuda_runtime", KC_RUNTIME),
	KIN_CAT("kernel", KC_KERNEL),
	KIN_CAT("python_function", KC_PYTHON),
	KIN_CAT("gpu_memcpy", KC_MEMCPY),
	KIN_CAT("gpu_memset", KC_MEMSET),
	KIN_CAT("cuda_driver", KC_DRIVER),
	KIN_CAT("cuda_sync", KC_SYNC),
	KIN_CAT("user_annotation", KC_USER_ANNOTATION),
	KIN_CAT("gpu_user_annotation", KC_GPU_ANNOTATION),
	KIN_CAT("overhead", KC_OVERHEAD),
	KIN_CAT("Operator", KC_CPU_OP),
	KIN_CAT("Runtime", KC_RUNTIME),
	KIN_CAT("Kernel", KC_KERNEL),
	KIN_CAT("Memcpy", KC_MEMCPY),
	KIN_CAT("Memset", KC_MEMSET),
	KIN_CAT("Trace", KC_IGNORE),
	KIN_CAT("ideal", KC_IGNORE), /* gpuscope export --with-ideal: not recorded work */
	KIN_CAT("cpu_instant_event", KC_IGNORE),
};

static enum kin_cat kin_cat_lookup(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(kin_cats) / sizeof(kin_cats[0]); i++)
		if (kin_cats[i].len == n && memcmp(kin_cats[i].name, s, n) == 0)
			return kin_cats[i].cat;
	return KC_UNKNOWN;
}

static bool has_prefix(const char *s, size_t n, const char *pre)
{
	size_t m = strlen(pre);

	return n >= m && memcmp(s, pre, m) == 0;
}

/* One side of "(Pageable -> Device)". */
/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

static gs_status kin_name(struct kin *k, const struct kin_event *ev, uint32_t *id, const char **s,
			  size_t *n)
{
	gs_status rc;

	*s = "";
	*n = 0;
	if (!kin_span_string(&k->sc, &ev->f[EV_NAME], 0, s, n, &rc)) {
		*s = "";
		*n = 0;
		if (rc)
			return rc;
	}
	return kin_intern(k, *s, *n, id);
}

/* A GPU event's pid or tid as an id from lo to hi (see j_id). */
static enum kin_id span_id(struct kin *k, const struct kin_span *s, bool stream_text, int64_t lo,
			   int64_t hi, enum kin_warn w, int64_t *v)
{
	int64_t x;

	if (s->n == 0)
		return KI_ABSENT;
	if ((stream_text ? kin_span_stream_tid(s, &x) : kin_span_int(s, &x)) && x >= lo &&
	    x <= hi) {
		*v = x;
		return KI_OK;
	}
	kin_warn_value(k, w, s->p, s->n);
	return KI_BAD;
}

/*
 * A GPU event's device: args.device, else args.inDevice (peer copies, when
 * in_device), else the pid. The first one present must be a device number.
 */
static enum kin_id kin_gpu_device(struct kin *k, const struct kin_event *ev,
				  const struct kin_args *args, bool in_device, uint32_t *device)
{
	enum kin_id r;
	int64_t v = 0;

	r = j_id(k, args, "device", 0, UINT32_MAX, KW_BAD_DEVICE, &v);
	if (r == KI_ABSENT && in_device)
		r = j_id(k, args, "inDevice", 0, UINT32_MAX, KW_BAD_IN_DEVICE, &v);
	if (r == KI_ABSENT)
		r = span_id(k, &ev->f[EV_PID], false, 0, UINT32_MAX, KW_BAD_PID_DEVICE, &v);
	if (r == KI_OK)
		*device = (uint32_t)v;
	return r;
}

/*
 * A GPU event's stream: args.KEY, else (when tid is not NULL) the tid, a
 * number or "stream N". CUPTI's "no stream" (-1 or (uint32_t)-1) reads as
 * absent; other negative values and values beyond int64 are bad.
 */
static enum kin_id kin_gpu_stream(struct kin *k, const struct kin_args *args, const char *key,
				  enum kin_warn w, const struct kin_span *tid, int64_t *stream)
{
	enum kin_id r;
	int64_t v = 0;

	r = j_id(k, args, key, -1, INT64_MAX, w, &v);
	if (r == KI_ABSENT && tid)
		r = span_id(k, tid, true, -1, INT64_MAX, KW_BAD_TID_STREAM, &v);
	if (r == KI_OK && !kin_valid_stream_id(v))
		r = KI_ABSENT;
	if (r == KI_OK)
		*stream = v;
	return r;
}

/*
 * A GPU event's device and stream (kin_gpu_device, then kin_gpu_stream of
 * args.stream or the tid); false when either is bad (warned by those) or
 * absent (warned here): the event is then left out.
 */
static bool kin_gpu_place(struct kin *k, const struct kin_event *ev, const struct kin_args *args,
			  bool in_device, uint32_t *device, int64_t *stream)
{
	switch (kin_gpu_device(k, ev, args, in_device, device)) {
	case KI_BAD:
		return false;
	case KI_ABSENT:
		kin_warn(k, KW_NO_STREAM);
		return false;
	default:
		break;
	}
	switch (kin_gpu_stream(k, args, "stream", KW_BAD_STREAM, &ev->f[EV_TID], stream)) {
	case KI_BAD:
		return false;
	case KI_ABSENT:
		kin_warn(k, KW_NO_STREAM);
		return false;
	default:
		return true;
	}
}

static gs_status kin_gpu_op(struct kin *k, const struct kin_event *ev, enum kin_cat cat)
{
	struct kin_pend item = {.type = KP_OP};
	struct gs_op *op = &item.u.op;
	struct gs_launch_cfg *lc = &item.launch;
	uint64_t corr = 0; /* as in the file: the key that joins the op to its call */
	int64_t stream = -1;
	uint32_t device = 0, context = 0;
	struct kin_args *args;
	const char *name;
	size_t nlen;
	gs_status rc;
	bool ok;

	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc)
		return rc;
	if (!ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	if (!kin_gpu_place(k, ev, args, true, &device, &stream))
		goto out;
	if (!j_u32(args, "context", &context))
		j_u32(args, "inContext", &context);
	op->start_ns = ev->start;
	op->end_ns = ev->end;
	if (!j_u64(args, "correlation", &corr))
		corr = 0;
	op->correlation = kin_id(k, corr);
	rc = kin_name(k, ev, &op->name, &name, &nlen);
	if (!rc)
		rc = kin_stream(k, device, context, (uint64_t)stream, &op->stream);
	if (rc)
		goto out;
	switch (cat) {
	case KC_KERNEL: {
		uint64_t g;

		op->kind = GS_OP_KERNEL;
		j_dim3(args, "grid", lc->grid);
		j_dim3(args, "block", lc->block);
		j_u32(args, "registers per thread", &lc->registers);
		j_u32(args, "shared memory", &lc->shared_mem);
		if (j_u64(args, "graph id", &g) || j_u64(args, "graphId", &g)) {
			lc->graph_id = g;
			if (g)
				op->flags |= GS_OPF_GRAPH;
		}
		if (!j_u64(args, "graph node id", &op->graph_node))
			j_u64(args, "graphNodeId", &op->graph_node);
		if (op->graph_node)
			op->flags |= GS_OPF_GRAPH;
		rc = kin_collective(k, args, &op->collective);
		if (rc)
			goto out;
		break;
	}
	case KC_MEMCPY: {
		uint8_t src = GS_MEM_UNKNOWN, dst = GS_MEM_UNKNOWN;

		op->kind = GS_OP_MEMCPY;
		j_u64(args, "bytes", &op->bytes);
		gs_copy_name_parse(name, nlen, j_str(args, "kind"), &op->copy_kind, &src, &dst);
		op->src_mem = src & 0xf;
		op->dst_mem = dst & 0xf;
		break;
	}
	default:
		op->kind = GS_OP_MEMSET;
		j_u64(args, "bytes", &op->bytes);
		op->dst_mem = gs_memset_name_parse(name, nlen);
		break;
	}
	rc = kin_submit(k, &item, corr);
out:
	kin_args_free(args);
	return rc;
}

static uint32_t kin_sync_kind(const char *s)
{
	if (!s)
		return GS_SYNC_UNKNOWN;
	if (strcmp(s, "Event Sync") == 0)
		return GS_SYNC_EVENT;
	if (strcmp(s, "Stream Wait Event") == 0)
		return GS_SYNC_STREAM_WAIT;
	if (strcmp(s, "Stream Sync") == 0)
		return GS_SYNC_STREAM;
	if (strcmp(s, "Context Sync") == 0 || strcmp(s, "Device Sync") == 0)
		return GS_SYNC_CONTEXT;
	return GS_SYNC_UNKNOWN;
}

static gs_status kin_sync(struct kin *k, const struct kin_event *ev)
{
	struct kin_pend item = {.type = KP_SYNC};
	struct gs_sync *y = &item.u.sync;
	uint32_t device = 0, context = 0;
	uint64_t corr = 0;
	int64_t v, stream = -1, wait = -1;
	struct kin_args *args;
	const char *kind;
	gs_status rc;
	bool ok;

	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc)
		return rc;
	if (!ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	k->sync_events++;
	if (kin_gpu_device(k, ev, args, false, &device) == KI_BAD ||
	    kin_gpu_stream(k, args, "stream", KW_BAD_STREAM, NULL, &stream) == KI_BAD ||
	    kin_gpu_stream(k, args, "wait_on_stream", KW_BAD_WAIT_STREAM, NULL, &wait) == KI_BAD)
		goto out;
	j_u32(args, "context", &context);
	y->start_ns = ev->start;
	y->end_ns = ev->end;
	/* Its call says its pid and tid; in a job export its rank does too. */
	y->pid = k->ev_rank != KIN_NONE ? k->job[k->ev_rank].pid : -1;
	y->tid = -1;
	y->device = device;
	y->stream = GS_NO_INDEX;
	y->wait_on_stream = GS_NO_INDEX;
	y->sync_id = GS_NO_SYNC_ID;
	kind = j_str(args, "cuda_sync_kind");
	if (!kind) {
		const char *name;
		size_t n;

		if (kin_span_string(&k->sc, &ev->f[EV_NAME], 0, &name, &n, &rc) &&
		    !memchr(name, 0, n) && n < 64) {
			char tmp[64];

			memcpy(tmp, name, n);
			tmp[n] = '\0';
			y->kind = (uint8_t)kin_sync_kind(tmp);
		} else if (rc) {
			goto out;
		}
	} else {
		y->kind = (uint8_t)kin_sync_kind(kind);
	}
	if (!j_u64(args, "correlation", &corr))
		corr = 0;
	y->correlation = kin_id(k, corr);
	if (j_int(args, "wait_on_cuda_event_record_corr_id", &v) && v > 0)
		y->event_correlation = kin_id(k, (uint64_t)v);
	if (j_int(args, "wait_on_cuda_event_id", &v) && v >= 0)
		y->event_id = kin_id(k, (uint64_t)v);
	if (stream >= 0) {
		rc = kin_stream(k, device, context, (uint64_t)stream, &y->stream);
		if (rc)
			goto out;
	}
	if (wait >= 0) {
		rc = kin_stream(k, device, context, (uint64_t)wait, &y->wait_on_stream);
		if (rc)
			goto out;
	}
	rc = kin_submit(k, &item, corr);
out:
	kin_args_free(args);
	return rc;
}

/* The host pid and tid of an event; false (counted) for string pids. */
static bool kin_host_ids(struct kin *k, const struct kin_event *ev, int64_t *pid, int64_t *tid)
{
	if (!kin_span_int(&ev->f[EV_PID], pid)) {
		kin_warn(k, KW_STRING_PID);
		return false;
	}
	if (!kin_span_int(&ev->f[EV_TID], tid))
		*tid = -1;
	if (k->ev_rank != KIN_NONE)
		*pid = k->job[k->ev_rank].pid;
	return true;
}

static bool is_event_record(const char *s, size_t n)
{
	return has_prefix(s, n, "cudaEventRecord") || has_prefix(s, n, "cuEventRecord") ||
	       has_prefix(s, n, "hipEventRecord");
}

static gs_status kin_api_call(struct kin *k, const struct kin_event *ev, enum kin_cat cat)
{
	struct gs_api_call c = {0};
	struct kin_api a = {0};
	uint64_t corr = 0;
	const char *name;
	size_t n;
	struct kin_args *args;
	gs_status rc;
	bool ok;

	if (!kin_host_ids(k, ev, &c.pid, &c.tid))
		return GS_OK;
	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc)
		return rc;
	if (!ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	c.start_ns = ev->start;
	c.end_ns = ev->end;
	c.kind = cat == KC_DRIVER ? GS_API_DRIVER : GS_API_RUNTIME;
	if (!j_u64(args, "correlation", &corr))
		corr = 0;
	c.correlation = kin_id(k, corr);
	j_u32(args, "cbid", &c.cbid);
	kin_args_free(args);
	rc = kin_name(k, ev, &c.name, &name, &n);
	if (rc)
		return rc;
	kin_proc_flag(k, c.pid, KPF_API);
	rc = kin_emit_api_call(k, &c);
	if (rc)
		return rc;
	if (gs_api_name_is_graph_launch(name, n))
		a.flags |= KA_GRAPH;
	if (gs_api_name_is_async(name, n))
		a.flags |= KA_ASYNC;
	if (gs_has_sub(name, n, "StreamWaitEvent"))
		k->wait_calls++;
	if (is_event_record(name, n)) {
		struct gs_event_record e = {
			.time_ns = c.start_ns,
			.correlation = c.correlation,
			.event_id = 0,
			.sync_id = GS_NO_SYNC_ID,
			.stream = GS_NO_INDEX,
		};

		rc = kin_emit_event_record(k, &e);
		if (rc)
			return rc;
	}
	a.pid = c.pid;
	a.tid = c.tid;
	return kin_api_seen(k, corr, &a);
}

static const char *const ext_keys[2] = {"External id", "external id"};

static gs_status kin_range(struct kin *k, const struct kin_event *ev, enum kin_cat cat)
{
	struct gs_range r = {0};
	struct kin_span ext[2];
	const char *name;
	size_t n;
	int64_t v;
	gs_status rc;

	if (!kin_host_ids(k, ev, &r.pid, &r.tid))
		return GS_OK;
	r.start_ns = ev->start;
	r.end_ns = ev->end;
	r.domain = GS_NO_STRING;
	r.kind = cat == KC_CPU_OP          ? GS_RANGE_CPU_OP :
		 cat == KC_USER_ANNOTATION ? GS_RANGE_USER_ANNOTATION :
					     GS_RANGE_PYTHON;
	/* Host ranges are most of a trace and their args are large: read the
	 * one member needed without building a tree. */
	if (cat != KC_PYTHON && ev->f[EV_ARGS].n && kin_event_args_members(ev, ext_keys, 2, ext)) {
		if ((kin_span_int(&ext[0], &v) || kin_span_int(&ext[1], &v)) && v > 0)
			r.external_id = kin_id(k, (uint64_t)v);
	}
	rc = kin_name(k, ev, &r.name, &name, &n);
	if (rc)
		return rc;
	kin_proc_flag(k, r.pid, KPF_HOST_EVENTS);
	return kin_emit_range(k, &r);
}

/* The context of a stream already declared with this device and stream id
 * (the first one the table finds), or false. */
static bool kin_stream_context(const struct kin *k, uint32_t device, uint64_t stream,
			       uint32_t *context)
{
	int64_t pid = kin_gpu_pid(k);
	uint32_t mask, h;

	if (!k->streams)
		return false;
	mask = k->stream_slots - 1;
	h = kin_stream_hash(pid, device, stream) & mask;
	for (; k->streams[h].used; h = (h + 1) & mask)
		if (k->streams[h].pid == pid && k->streams[h].device == device &&
		    k->streams[h].stream == stream) {
			*context = k->streams[h].context;
			return true;
		}
	return false;
}

/* A gpu_user_annotation: the profiler's drawing of a user annotation over
 * the GPU ops it covers on one stream (pid: the device, tid: the stream). */
static gs_status kin_gpu_annotation(struct kin *k, const struct kin_event *ev)
{
	struct gs_range r = {0};
	struct kin_span ext[2];
	uint32_t device = 0, context = 0;
	int64_t stream = -1, v;
	const char *name;
	size_t n;
	struct kin_args *args;
	gs_status rc;
	bool ok;

	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc)
		return rc;
	if (!ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	if (!kin_gpu_place(k, ev, args, false, &device, &stream))
		goto out;
	if (!kin_stream_context(k, device, (uint64_t)stream, &context) &&
	    !j_u32(args, "context", &context))
		context = 0;
	r.start_ns = ev->start;
	r.end_ns = ev->end;
	r.pid = k->ev_rank != KIN_NONE ? k->job[k->ev_rank].pid : -1;
	r.tid = -1;
	r.domain = GS_NO_STRING;
	r.kind = GS_RANGE_GPU_ANNOTATION;
	if (ev->f[EV_ARGS].n && kin_event_args_members(ev, ext_keys, 2, ext)) {
		if ((kin_span_int(&ext[0], &v) || kin_span_int(&ext[1], &v)) && v > 0)
			r.external_id = kin_id(k, (uint64_t)v);
	}
	rc = kin_name(k, ev, &r.name, &name, &n);
	if (!rc)
		rc = kin_stream(k, device, context, (uint64_t)stream, &r.stream);
	if (!rc)
		rc = kin_emit_range(k, &r);
out:
	kin_args_free(args);
	return rc;
}

static gs_status kin_overhead(struct kin *k, const struct kin_event *ev)
{
	struct gs_overhead o = {0};
	const char *name;
	size_t n;
	int64_t tid;
	gs_status rc;

	if (!kin_host_ids(k, ev, &o.pid, &tid))
		return GS_OK;
	o.start_ns = ev->start;
	o.end_ns = ev->end;
	rc = kin_name(k, ev, &o.kind, &name, &n);
	if (rc)
		return rc;
	return kin_emit_overhead(k, &o);
}

static gs_status kin_complete(struct kin *k, struct kin_event *ev)
{
	const char *cs = "";
	size_t cn = 0;
	enum kin_cat cat;
	gs_status rc;

	if (ev->f[EV_CAT].n && !kin_span_string(&k->sc, &ev->f[EV_CAT], 0, &cs, &cn, &rc)) {
		if (rc)
			return rc;
		cs = "";
		cn = 0;
	}
	cat = kin_cat_lookup(cs, cn);
	switch (cat) {
	case KC_UNKNOWN:
		kin_warn_named(k, KN_CATEGORY, cs, cn);
		return GS_OK;
	case KC_IGNORE:
		return GS_OK;
	default:
		break;
	}
	if (!kin_times(k, &ev->f[EV_TS], &ev->f[EV_DUR], &ev->start, &ev->end))
		return GS_OK;
	/* gpuscope's job export: the rank's own times again. */
	k->ev_rank = KIN_NONE;
	if (k->n_job) {
		int64_t pid, shift;

		if (kin_span_int(&ev->f[EV_PID], &pid))
			k->ev_rank = kin_job_rank(k, pid);
		shift = k->ev_rank != KIN_NONE ? k->job[k->ev_rank].shift : 0;
		if (__builtin_sub_overflow(ev->start, shift, &ev->start) ||
		    __builtin_sub_overflow(ev->end, shift, &ev->end)) {
			kin_warn(k, KW_TIME_RANGE);
			return GS_OK;
		}
	}
	switch (cat) {
	case KC_KERNEL:
	case KC_MEMCPY:
	case KC_MEMSET:
		return kin_gpu_op(k, ev, cat);
	case KC_RUNTIME:
	case KC_DRIVER:
		return kin_api_call(k, ev, cat);
	case KC_SYNC:
		return kin_sync(k, ev);
	case KC_OVERHEAD:
		return kin_overhead(k, ev);
	case KC_GPU_ANNOTATION:
		return kin_gpu_annotation(k, ev);
	default:
		return kin_range(k, ev, cat);
	}
}

static gs_status kin_metadata(struct kin *k, const struct kin_event *ev)
{
	bool pname = kin_span_equals(&ev->f[EV_NAME], "process_name");
	bool plabels = kin_span_equals(&ev->f[EV_NAME], "process_labels");
	struct kin_proc *p;
	const char *s;
	struct kin_args *args;
	int64_t pid;
	gs_status rc = GS_OK;
	bool ok;

	if ((!pname && !plabels) || !kin_span_int(&ev->f[EV_PID], &pid))
		return GS_OK;
	/* A rank's processes in gpuscope's job export: gpuscope_job says who
	 * they are. */
	if (kin_job_rank(k, pid) != KIN_NONE)
		return GS_OK;
	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc || !ok)
		return rc;
	p = kin_proc(k, pid);
	if (!p)
		goto out;
	if (pname) {
		s = j_str(args, "name");
		if (s)
			rc = kin_intern_str(k, s, &p->name);
	} else {
		/* Labels are a comma-separated list; the first says what
		 * the process is ("CPU", "CPU, rank 3, pid 4242"). */
		s = j_str(args, "labels");
		if (s && strncmp(s, "CPU", 3) == 0 && (s[3] == '\0' || s[3] == ','))
			p->flags |= KPF_LABEL_CPU;
		else if (s && strncmp(s, "GPU", 3) == 0)
			p->flags |= KPF_LABEL_GPU;
	}
out:
	kin_args_free(args);
	return rc;
}

/* One element of traceEvents that is an object, its members found
 * (kin_scan_event). */
static gs_status kin_event(struct kin *k, struct kin_event *ev)
{
	const struct kin_span *ph = &ev->f[EV_PH];

	if (!ev->members_ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	if (!kin_span_is_string(ph)) {
		kin_warn(k, KW_NO_PHASE);
		return GS_OK;
	}
	if (ph->n == 3) {
		switch (ph->p[1]) {
		case 'X':
			return kin_complete(k, ev);
		case 'M':
			return kin_metadata(k, ev);
		case 's':
		case 'f':
		case 't':
		case 'i':
		case 'I':
		case 'n':
		case 'C': /* counter tracks (ours carry the breakdown category) */
			return GS_OK;
		default:
			break;
		}
	}
	{
		const char *s;
		size_t sn;
		gs_status rc;

		if (!kin_span_string(&k->sc, ph, 0, &s, &sn, &rc)) {
			if (rc)
				return rc;
			s = "?";
			sn = 1;
		}
		kin_warn_named(k, KN_PHASE, s, sn);
	}
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* Top-level values other than traceEvents                                  */
/* ------------------------------------------------------------------------ */

static gs_status kin_devices(struct kin *k, const cJSON *arr)
{
	const cJSON *d;

	if (!cJSON_IsArray(arr))
		return GS_OK;
	cJSON_ArrayForEach(d, arr)
	{
		struct gs_device dev = {
			.name = GS_NO_STRING,
			.uuid = GS_NO_STRING,
		};
		const char *s;
		gs_status rc;

		if (!cJSON_IsObject(d) || !j_u32(d, "id", &dev.id))
			continue;
		s = j_str(d, "name");
		if (s && (rc = kin_intern_str(k, s, &dev.name)))
			return rc;
		s = j_str(d, "uuid");
		if (s && (rc = kin_intern_str(k, s, &dev.uuid)))
			return rc;
		j_u32(d, "numSms", &dev.sm_count);
		j_u32(d, "computeMajor", &dev.cc_major);
		j_u32(d, "computeMinor", &dev.cc_minor);
		j_u64(d, "totalGlobalMem", &dev.memory_bytes);
		if (!j_u32(d, "numMemcpyEngines", &dev.copy_engines))
			j_u32(d, "asyncEngineCount", &dev.copy_engines);
		if (k->ndevs == k->devs_cap) {
			size_t nc = k->devs_cap ? k->devs_cap * 2 : 16;
			uint32_t *nd = realloc(k->devs, nc * sizeof(*nd));

			if (!nd)
				return gs_nomem();
			k->devs = nd;
			k->devs_cap = nc;
		}
		k->devs[k->ndevs++] = dev.id;
		rc = kin_emit_device(k, &dev);
		if (rc)
			return rc;
	}
	return GS_OK;
}

/* A version number or string, kept as text ("12090"). */
static gs_status kin_version(struct kin *k, const cJSON *v, uint32_t *id)
{
	char tmp[32];

	if (cJSON_IsString(v) && v->valuestring)
		return kin_intern_str(k, v->valuestring, id);
	if (!cJSON_IsNumber(v))
		return GS_OK;
	/* The cast only in range: a huge or NaN version is printed with %g. */
	if (v->valuedouble > -9e15 && v->valuedouble < 9e15 &&
	    v->valuedouble == (double)(long long)v->valuedouble)
		snprintf(tmp, sizeof(tmp), "%lld", (long long)v->valuedouble);
	else
		snprintf(tmp, sizeof(tmp), "%g", v->valuedouble);
	return kin_intern_str(k, tmp, id);
}

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

static enum kin_top kin_top_key(const char *s, size_t n)
{
	static const struct {
		const char *key;
		enum kin_top top;
	} keys[] = {
		{"traceEvents", KT_TOP_EVENTS},
		{"deviceProperties", KT_TOP_DEVICES},
		{"host_name", KT_TOP_HOST},
		{"cuda_driver_version", KT_TOP_DRIVER},
		{"cuda_runtime_version", KT_TOP_RUNTIME},
		{"cupti_version", KT_TOP_CUPTI},
		{"hip_driver_version", KT_TOP_HIP_DRIVER},
		{"hip_runtime_version", KT_TOP_HIP_RUNTIME},
		{"distributedInfo", KT_TOP_DISTRIBUTED},
		{"baseTimeNanoseconds", KT_TOP_BASE_TIME},
		{"gpuscope_clock", KT_TOP_GS_CLOCK},
		{"gpuscope_job", KT_TOP_GS_JOB},
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].key) == n && memcmp(keys[i].key, s, n) == 0)
			return keys[i].top;
	return KT_TOP_OTHER;
}

/* An integer written as JSON text (no fraction, no exponent), exactly;
 * false when it is not one or is out of the model's time range. */
static bool kin_int_text(const char *p, size_t n, int64_t *v)
{
	size_t i = 0;
	bool neg = false;
	uint64_t x = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i < n && p[i] == '-') {
		neg = true;
		i++;
	}
	if (i >= n || p[i] < '0' || p[i] > '9')
		return false;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		x = x * 10 + (uint64_t)(p[i] - '0');
		if (x >= (uint64_t)GS_TIME_LIMIT_NS)
			return false;
	}
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i != n)
		return false;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return true;
}

/* The ranks of a job export at most, and its largest pid (a marker past
 * either is ignored). */
#define KIN_JOB_MAX_RANKS (1u << 20)
#define KIN_JOB_MAX_PID (1LL << 62)

static gs_status kin_job_ignore(struct kin *k, const char *why)
{
	free(k->job);
	k->job = NULL;
	k->n_job = 0;
	if (!k->job_ignored[0])
		snprintf(k->job_ignored, sizeof(k->job_ignored), "%s", why);
	return GS_OK;
}

/* Whether `pid` is in the open-addressed set `set` (cap slots, a power of
 * two; used[] marks the slots in use); adds it when `add`. */
static bool pid_set(int64_t *set, uint8_t *used, size_t cap, int64_t pid, bool add)
{
	size_t h = (size_t)(((uint64_t)pid * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);

	for (; used[h]; h = (h + 1) & (cap - 1))
		if (set[h] == pid)
			return true;
	if (add) {
		used[h] = 1;
		set[h] = pid;
	}
	return false;
}

/*
 * The pid each rank is read back under: the pid it recorded, unless an
 * earlier rank (in marker order) recorded it too (ranks of two hosts) or
 * it is unknown (-1); then pid + k * 2^32 (0 + k * 2^32 when unknown),
 * k = 1, 2, ... over the ranks that share it (the next k free, should a
 * rank have recorded that one: a file read back and exported again), so
 * that every rank is a process of its own (formats/src/job.c splits a
 * trace by pid).
 */
static gs_status kin_job_pids(struct kin *k)
{
	size_t n = k->n_job, cap = 16, i, first = 0;
	int64_t(*o)[2] = malloc(n * sizeof(*o));
	int64_t *kth = malloc(n * sizeof(*kth)), *set;
	uint8_t *used;
	gs_status rc = GS_OK;

	while (cap < 2 * n)
		cap <<= 1;
	set = malloc(cap * sizeof(*set));
	used = calloc(cap, 1);
	k->job_pids = malloc(n * sizeof(*k->job_pids));
	if (!o || !kth || !set || !used || !k->job_pids) {
		rc = gs_nomem();
		goto out;
	}
	for (i = 0; i < n; i++) {
		o[i][0] = k->job[i].pid;
		o[i][1] = (int64_t)i;
	}
	/* Each rank's place among those that recorded its pid (o is built in
	 * index order: a stable sort by pid keeps it within a pid). */
	gs_sort_by_i64(o, n, sizeof(*o));
	for (i = 0; i < n; i++) {
		if (i && o[i][0] != o[i - 1][0])
			first = i;
		kth[o[i][1]] = (int64_t)(i - first) + (o[i][0] < 0);
	}
	for (i = 0; i < n; i++) {
		int64_t rec = k->job[i].pid, pid = (rec >= 0 ? rec : 0) + kth[i] * (1LL << 32);

		while (pid_set(set, used, cap, pid, false))
			pid += 1LL << 32;
		pid_set(set, used, cap, pid, true);
		k->job[i].pid = pid;
		k->job[i].proc.pid = pid;
		k->job_pids[i] = pid;
	}
	gs_sort_by_i64(k->job_pids, n, sizeof(*k->job_pids));
out:
	free(o);
	free(kth);
	free(set);
	free(used);
	return rc;
}

/* A string member interned into *id (left as it is when absent). */
static gs_status kin_job_str(struct kin *k, const cJSON *o, const char *key, uint32_t *id)
{
	const char *v = j_str(o, key);

	return v ? kin_intern_str(k, v, id) : GS_OK;
}

/*
 * gpuscope_job (formats/src/chrome.c, write_job_marker): the ranks of
 * gpuscope's job export. Read only before traceEvents (where the exporter
 * writes it); a marker that is not well formed is ignored with a warning
 * (the file is then read as one process, as any Kineto file).
 */
static gs_status kin_job_marker(struct kin *k, const cJSON *v)
{
	const cJSON *ranks, *it;
	int64_t ver, stride;
	uint32_t n, i = 0;
	gs_status rc;

	if (k->saw_events)
		return kin_job_ignore(k, "it follows traceEvents");
	if (k->n_job)
		return kin_job_ignore(k, "given twice");
	if (!j_int(v, "version", &ver) || ver != 1)
		return kin_job_ignore(k, "not version 1");
	if (!j_int(v, "pid_stride", &stride) || stride < 1 || stride > INT32_MAX)
		return kin_job_ignore(k, "no pid_stride");
	ranks = cJSON_GetObjectItemCaseSensitive(v, "ranks");
	n = cJSON_IsArray(ranks) ? (uint32_t)cJSON_GetArraySize(ranks) : 0;
	if (!n || n > KIN_JOB_MAX_RANKS)
		return kin_job_ignore(k, "no ranks, or too many");
	k->job = calloc(n, sizeof(*k->job));
	if (!k->job)
		return gs_nomem();
	k->job_stride = stride;
	cJSON_ArrayForEach(it, ranks)
	{
		struct kin_jrank *j = &k->job[i];
		struct gs_process *p = &j->proc;
		const char *clock = j_str(it, "clock");
		int64_t rank, base, x = 0;

		if (!cJSON_IsObject(it) || !j_int(it, "rank", &rank) || rank < 0 ||
		    rank > UINT32_MAX || !j_int(it, "pid_base", &base) || base < 0 ||
		    base > INT32_MAX)
			return kin_job_ignore(k, "a rank without its number or pids");
		if (i && base - k->job[i - 1].pid_base < stride)
			return kin_job_ignore(k, "ranks whose pids are not apart, in order");
		j->pid_base = base;
		if (!j_int(it, "pid", &j->pid) || j->pid < 0)
			j->pid = -1;
		if (j->pid > KIN_JOB_MAX_PID)
			return kin_job_ignore(k, "a pid past 2^62");
		*p = (struct gs_process){
			.host_name = GS_NO_STRING,
			.command_line = GS_NO_STRING,
			.driver_version = GS_NO_STRING,
			.runtime_version = GS_NO_STRING,
			.cupti_version = GS_NO_STRING,
			.backend = GS_NO_STRING,
			.has_rank = true,
			.rank = (uint32_t)rank,
		};
		if ((rc = kin_job_str(k, it, "host", &p->host_name)) ||
		    (rc = kin_job_str(k, it, "command_line", &p->command_line)) ||
		    (rc = kin_job_str(k, it, "cuda_driver_version", &p->driver_version)) ||
		    (rc = kin_job_str(k, it, "cuda_runtime_version", &p->runtime_version)) ||
		    (rc = kin_job_str(k, it, "cupti_version", &p->cupti_version)) ||
		    (rc = kin_job_str(k, it, "backend", &p->backend)))
			return rc;
		p->has_backend = p->backend != GS_NO_STRING;
		/* As recorded: a rank of a job made of several runs' traces may
		 * be numbered past its own run's world size. */
		if (!j_u32(it, "world_size", &p->world_size))
			p->world_size = 0;
		if (!j_u32(it, "capture", &p->capture))
			p->capture = 0;
		for (unsigned c = 1; clock && c < GS_CLOCK_SOURCE_COUNT; c++)
			if (!strcmp(clock, gs_clock_source_name(c)))
				p->clock = (uint8_t)c;
		if (p->clock && (!j_int(it, "wall_offset_ns", &x) || x <= -GS_TIME_LIMIT_NS ||
				 x >= GS_TIME_LIMIT_NS))
			return kin_job_ignore(k, "a clock without its offset");
		p->wall_offset_ns = p->clock ? x : 0;
		if (j_int(it, "time_shift_ns", &x)) {
			if (x <= -GS_TIME_LIMIT_NS || x >= GS_TIME_LIMIT_NS)
				return kin_job_ignore(k, "a time shift out of range");
			j->shift = x;
		}
		if (!j_u64(it, "id_offset", &j->id_offset))
			j->id_offset = 0;
		if (j_int(it, "start_ns", &x) && x > -GS_TIME_LIMIT_NS && x < GS_TIME_LIMIT_NS)
			p->start_ns = x;
		j_u64(it, "dropped_records", &p->dropped_records);
		i++;
	}
	k->n_job = n;
	return kin_job_pids(k);
}

static gs_status kin_top_value(struct kin *k, enum kin_top top, const char *p, size_t n)
{
	cJSON *v;
	gs_status rc = GS_OK;

	/* baseTimeNanoseconds (about 1.7e18) needs every digit: read from the
	 * text; a value that is not a whole number in range is ignored. */
	if (top == KT_TOP_BASE_TIME) {
		k->has_base = kin_int_text(p, n, &k->base_ns);
		return GS_OK;
	}
	v = cJSON_ParseWithLength(p, n);
	if (!v)
		return kin_format_error(&k->sc, k->ev_off, "a top-level value is not valid JSON");
	switch (top) {
	case KT_TOP_DEVICES:
		rc = kin_devices(k, v);
		break;
	case KT_TOP_HOST:
		if (cJSON_IsString(v) && v->valuestring)
			rc = kin_intern_str(k, v->valuestring, &k->host_name);
		break;
	case KT_TOP_DRIVER:
		rc = kin_version(k, v, &k->driver_version);
		break;
	case KT_TOP_RUNTIME:
		rc = kin_version(k, v, &k->runtime_version);
		break;
	case KT_TOP_CUPTI:
		rc = kin_version(k, v, &k->cupti_version);
		break;
	case KT_TOP_HIP_DRIVER:
		if (k->driver_version == GS_NO_STRING)
			rc = kin_version(k, v, &k->driver_version);
		break;
	case KT_TOP_HIP_RUNTIME:
		if (k->runtime_version == GS_NO_STRING)
			rc = kin_version(k, v, &k->runtime_version);
		break;
	case KT_TOP_GS_CLOCK:
		/* gpuscope's export says where its base came from. */
		for (unsigned c = 1;
		     cJSON_IsString(v) && v->valuestring && c < GS_CLOCK_SOURCE_COUNT; c++)
			if (!strcmp(v->valuestring, gs_clock_source_name(c)))
				k->gs_clock = (uint8_t)c;
		break;
	case KT_TOP_GS_JOB:
		rc = kin_job_marker(k, v);
		break;
	case KT_TOP_DISTRIBUTED:
		k->has_rank = j_u32(v, "rank", &k->rank);
		if (!k->has_rank || !j_u32(v, "world_size", &k->world_size) ||
		    k->world_size <= k->rank)
			k->world_size = 0;
		{
			const char *b = j_str(v, "backend");

			if (b && *b && !(rc = kin_intern_str(k, b, &k->backend)))
				k->has_backend = true;
		}
		break;
	default:
		break;
	}
	cJSON_Delete(v);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* The document walk: items for the event code (kineto_pipe.h)             */
/* ------------------------------------------------------------------------ */

/*
 * The walk (kin_document and what it calls) reads the input and writes
 * items; kin_handle, on the thread that builds the model, does what each
 * says. On one CPU each item is handled as soon as it is written, as the
 * walk used to call the event code itself; on two the walk runs ahead on
 * its own thread. The walk touches only k->sc and walk_* fields.
 */
static gs_status kin_handle(void *ctx, struct kin_item *it)
{
	struct kin *k = ctx;

	k->ev_off = it->off;
	switch (it->type) {
	case KIN_ITEM_EVENT:
		return kin_event(k, &it->ev);
	case KIN_ITEM_NOT_OBJECT:
		kin_warn(k, KW_NOT_OBJECT);
		return GS_OK;
	case KIN_ITEM_TOP:
		return kin_top_value(k, (enum kin_top)it->top, it->text.p, it->text.n);
	default:
		k->saw_events = true;
		return GS_OK;
	}
}

/* An item of `type` at input offset `off`, with nothing more to it. */
static gs_status kin_put(struct kin *k, uint8_t type, uint64_t off)
{
	struct kin_item *it = kin_item_next(&k->sc);

	it->type = type;
	it->off = off;
	return kin_item_put(&k->sc);
}

/* The elements of an array whose '[' is at k->sc.pos. */
static gs_status kin_events_array(struct kin *k, uint32_t depth)
{
	gs_status rc;
	int c;

	k->walk_saw_events = true;
	rc = kin_put(k, KIN_ITEM_EVENTS, kin_here(&k->sc));
	if (rc)
		return rc;
	k->sc.pos++; /* '[' */
	rc = kin_peek(&k->sc, &c);
	if (rc)
		return rc;
	if (c == ']') {
		k->sc.pos++;
		return GS_OK;
	}
	for (;;) {
		uint64_t off;
		size_t start;

		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c < 0)
			return kin_format_error(
				&k->sc, kin_here(&k->sc),
				"the input ends inside traceEvents (truncated JSON?)");
		off = kin_here(&k->sc);
		if (c == '{') {
			struct kin_item *it = kin_item_next(&k->sc);

			rc = kin_scan_event(&k->sc, depth, &it->ev);
			if (!rc) {
				it->type = KIN_ITEM_EVENT;
				it->off = off;
				rc = kin_item_put(&k->sc);
			}
		} else {
			rc = kin_scan_value(&k->sc, depth, false, &start);
			if (!rc)
				rc = kin_put(k, KIN_ITEM_NOT_OBJECT, off);
		}
		if (rc)
			return rc;
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c == ',') {
			k->sc.pos++;
			continue;
		}
		if (c == ']') {
			k->sc.pos++;
			return GS_OK;
		}
		if (c < 0)
			return kin_format_error(
				&k->sc, kin_here(&k->sc),
				"the input ends inside traceEvents (truncated JSON?)");
		return kin_format_error(&k->sc, kin_here(&k->sc),
					"expected ',' or ']' in traceEvents");
	}
}

/* The members of the top-level object whose '{' is at k->sc.pos. */
static gs_status kin_top_object(struct kin *k)
{
	gs_status rc;
	int c;

	k->sc.pos++; /* '{' */
	rc = kin_peek(&k->sc, &c);
	if (rc)
		return rc;
	if (c == '}') {
		k->sc.pos++;
		return GS_OK;
	}
	for (;;) {
		enum kin_top top;
		uint64_t off;
		size_t start;

		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c < 0)
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"the input ends inside the top-level object "
						"(truncated JSON?)");
		if (c != '"')
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"expected a member name in the top-level object");
		rc = kin_scan_value(&k->sc, 1, true, &start);
		if (rc)
			return rc;
		top = kin_top_key(k->sc.buf + start + 1, k->sc.pos - start - 2);
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c != ':')
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"expected ':' after a member name");
		k->sc.pos++;
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c < 0)
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"the input ends inside the top-level object "
						"(truncated JSON?)");
		off = kin_here(&k->sc);
		if (top == KT_TOP_EVENTS) {
			if (c != '[')
				return kin_format_error(&k->sc, kin_here(&k->sc),
							"traceEvents is not an array");
			rc = kin_events_array(k, 2);
		} else if (top == KT_TOP_OTHER) {
			rc = kin_scan_value(&k->sc, 1, false, &start);
		} else {
			rc = kin_scan_value(&k->sc, 1, true, &start);
			if (!rc) {
				struct kin_item *it = kin_item_next(&k->sc);

				it->type = KIN_ITEM_TOP;
				it->off = off;
				it->top = (int)top;
				it->text.p = k->sc.buf + start;
				it->text.n = k->sc.pos - start;
				rc = kin_item_put(&k->sc);
			}
		}
		if (rc)
			return rc;
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c == ',') {
			k->sc.pos++;
			continue;
		}
		if (c == '}') {
			k->sc.pos++;
			return GS_OK;
		}
		if (c < 0)
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"the input ends inside the top-level object "
						"(truncated JSON?)");
		return kin_format_error(&k->sc, kin_here(&k->sc),
					"expected ',' or '}' after a top-level member");
	}
}

static gs_status kin_document(struct kin *k)
{
	gs_status rc;
	int c;

	rc = kin_peek(&k->sc, &c);
	if (rc)
		return rc;
	/* A UTF-8 byte order mark. */
	if (c == 0xEF && k->sc.len - k->sc.pos >= 3 &&
	    memcmp(k->sc.buf + k->sc.pos, "\xEF\xBB\xBF", 3) == 0) {
		k->sc.pos += 3;
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
	}
	if (c < 0) {
		gs_error_append("%s: empty file: no JSON data", k->sc.name);
		return GS_ERR_FORMAT;
	}
	if (c == '[')
		rc = kin_events_array(k, 1);
	else if (c == '{')
		rc = kin_top_object(k);
	else
		return kin_format_error(&k->sc, kin_here(&k->sc),
					"not JSON: a Chrome trace starts with '{' or '['");
	if (rc)
		return rc;
	rc = kin_peek(&k->sc, &c);
	if (rc)
		return rc;
	if (c >= 0)
		return kin_format_error(&k->sc, kin_here(&k->sc),
					"unexpected data after the JSON document");
	if (!k->walk_saw_events) {
		gs_error_append("%s: no \"traceEvents\" array: not a Chrome trace", k->sc.name);
		return GS_ERR_FORMAT;
	}
	return GS_OK;
}

static gs_status kin_walk(void *ctx)
{
	return kin_document(ctx);
}

/* ------------------------------------------------------------------------ */
/* The end: held-back records, devices, processes, warnings                 */
/* ------------------------------------------------------------------------ */

static bool kin_dev_known(const struct kin *k, uint32_t id)
{
	for (size_t i = 0; i < k->ndevs; i++)
		if (k->devs[i] == id)
			return true;
	return false;
}

static gs_status kin_finish(struct kin *k)
{
	gs_status rc;
	char msg[256];

	k->ev_off = kin_here(&k->sc);
	while (k->pend.count) {
		rc = kin_pend_pop(k);
		if (rc)
			return rc;
	}
	/* Devices that ops use but deviceProperties did not describe. */
	for (uint32_t i = 0; i < k->stream_slots; i++) {
		const struct kin_stream_ent *e = &k->streams[i];
		struct gs_device dev = {.name = GS_NO_STRING, .uuid = GS_NO_STRING};
		uint32_t *nd;

		if (!e->used || kin_dev_known(k, e->device))
			continue;
		dev.id = e->device;
		if (k->ndevs == k->devs_cap) {
			size_t nc = k->devs_cap ? k->devs_cap * 2 : 16;

			nd = realloc(k->devs, nc * sizeof(*nd));
			if (!nd)
				return gs_nomem();
			k->devs = nd;
			k->devs_cap = nc;
		}
		k->devs[k->ndevs++] = dev.id;
		rc = kin_emit_device(k, &dev);
		if (rc)
			return rc;
	}
	/* gpuscope's job export: each rank's process as gpuscope_job says. */
	for (uint32_t i = 0; i < k->n_job; i++) {
		rc = kin_emit_process(k, &k->job[i].proc);
		if (rc)
			return rc;
	}
	for (uint32_t i = 0; i < KIN_PROC_SLOTS; i++) {
		const struct kin_proc *p = &k->procs[i];
		struct gs_process proc = {0};
		bool host;

		if (!p->used || (k->n_job && kin_job_pid(k, p->pid)))
			continue;
		host = (p->flags & (KPF_API | KPF_LABEL_CPU)) ||
		       ((p->flags & KPF_HOST_EVENTS) && !(p->flags & KPF_LABEL_GPU));
		if (!host)
			continue;
		proc.pid = p->pid;
		proc.command_line = p->name;
		proc.host_name = k->host_name;
		proc.driver_version = k->driver_version;
		proc.runtime_version = k->runtime_version;
		proc.cupti_version = k->cupti_version;
		proc.has_rank = k->has_rank;
		proc.rank = k->rank;
		proc.world_size = k->world_size;
		proc.has_backend = k->has_backend;
		proc.backend = k->backend;
		if (k->gs_clock) {
			proc.clock = k->gs_clock;
			proc.wall_offset_ns = k->has_base ? k->base_ns : 0;
		} else if (k->has_base) {
			proc.clock = GS_CLOCK_KINETO_BASE;
			proc.wall_offset_ns = k->base_ns;
		} else if (k->has_first_op && k->first_op_ns >= GS_EPOCH_PLAUSIBLE_NS) {
			proc.clock = GS_CLOCK_EPOCH;
		}
		rc = kin_emit_process(k, &proc);
		if (rc)
			return rc;
	}
	if (!k->sink->warning)
		return GS_OK;
	if (k->job_ignored[0]) {
		snprintf(msg, sizeof(msg),
			 "ignored gpuscope's job marker (gpuscope_job: %s): the ranks are read "
			 "as one process",
			 k->job_ignored);
		rc = k->sink->warning(k->sink, msg, 1, GS_WARNING_OTHER);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	for (int w = 0; w < KW_COUNT; w++) {
		if (!k->warn[w])
			continue;
		if (kin_warn_text[w].where && k->warn_value[w][0])
			snprintf(msg, sizeof(msg), "%s %llu %s (%s, first at byte %llu)",
				 kin_warn_text[w].verb, (unsigned long long)k->warn[w],
				 kin_warn_text[w].what, k->warn_value[w],
				 (unsigned long long)k->warn_at[w]);
		else if (kin_warn_text[w].where)
			snprintf(msg, sizeof(msg), "%s %llu %s (first at byte %llu)",
				 kin_warn_text[w].verb, (unsigned long long)k->warn[w],
				 kin_warn_text[w].what, (unsigned long long)k->warn_at[w]);
		else
			snprintf(msg, sizeof(msg), "%s %llu %s", kin_warn_text[w].verb,
				 (unsigned long long)k->warn[w], kin_warn_text[w].what);
		rc = k->sink->warning(k->sink, msg, k->warn[w], GS_WARNING_OTHER);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	for (uint32_t i = 0; i < k->nnamed; i++) {
		const struct kin_named *e = &k->named[i];

		if (e->kind == KN_PHASE)
			snprintf(msg, sizeof(msg), "skipped %llu events of unsupported phase '%s'",
				 (unsigned long long)e->count, e->key);
		else if (e->key[0])
			snprintf(msg, sizeof(msg), "skipped %llu events of unknown category '%s'",
				 (unsigned long long)e->count, e->key);
		else
			snprintf(msg, sizeof(msg),
				 "skipped %llu complete events without a category",
				 (unsigned long long)e->count);
		rc = k->sink->warning(k->sink, msg, e->count, GS_WARNING_OTHER);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	if (k->named_other) {
		snprintf(msg, sizeof(msg), "skipped %llu events of other unknown categories",
			 (unsigned long long)k->named_other);
		rc = k->sink->warning(k->sink, msg, k->named_other, GS_WARNING_OTHER);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	if (k->wait_calls && !k->sync_events) {
		snprintf(msg, sizeof(msg),
			 "%llu cudaStreamWaitEvent calls but no cuda_sync events: waits between "
			 "streams cannot be linked",
			 (unsigned long long)k->wait_calls);
		rc = k->sink->warning(k->sink, msg, k->wait_calls, GS_WARNING_UNLINKED_WAIT_CALLS);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

static gs_status kin_run(struct gs_gzin *in, const char *name, const struct gs_import_limits *lim,
			 struct gs_sink *sink)
{
	struct kin *k = calloc(1, sizeof(*k));
	gs_status rc;

	if (!k) {
		gs_gzin_close(in);
		return gs_nomem();
	}
	k->sc.name = name;
	k->sc.in = in;
	k->sc.lim = &k->lim;
	k->sink = sink;
	gs_import_limits_resolve(&k->lim, lim);
	gs_gzin_set_limits(in, k->lim.max_inflated_bytes, k->lim.max_inflate_ratio);
	k->host_name = k->driver_version = k->runtime_version = k->cupti_version = GS_NO_STRING;
	k->backend = GS_NO_STRING;
	k->ev_rank = KIN_NONE;
	k->sc.cap = (size_t)KIN_READ_CHUNK * 2;
	k->sc.buf = malloc(k->sc.cap);
	k->pend_items = malloc(KIN_PEND_CAP * sizeof(*k->pend_items));
	k->recent_items = malloc(KIN_RECENT_CAP * sizeof(*k->recent_items));
	k->procs = calloc(KIN_PROC_SLOTS, sizeof(*k->procs));
	if (!k->sc.buf || !k->pend_items || !k->recent_items || !k->procs)
		rc = gs_nomem();
	else
		rc = ring_init(&k->pend, KIN_PEND_CAP);
	if (!rc)
		rc = ring_init(&k->recent, KIN_RECENT_CAP);
	if (!rc)
		rc = kin_pipe_run(&k->sc, kin_walk, kin_handle, k);
	if (!rc)
		rc = kin_finish(k);
	gs_gzin_close(in);
	ring_fini(&k->pend);
	ring_fini(&k->recent);
	free(k->pend_items);
	free(k->recent_items);
	free(k->sc.buf);
	free(k->sc.stack);
	free(k->sc.scratch[0]);
	free(k->sc.scratch[1]);
	free(k->args_str);
	free(k->streams);
	free(k->procs);
	free(k->devs);
	free(k->job);
	free(k->job_pids);
	free(k);
	return rc;
}

gs_status gs_import_kineto(const char *path, const struct gs_import_limits *lim,
			   struct gs_sink *sink)
{
	struct gs_gzin *in;
	gs_status rc;

	if (!path || !sink) {
		gs_error_append("gs_import_kineto: no %s", path ? "sink" : "path");
		return GS_ERR_INVALID;
	}
	rc = gs_gzin_open(path, &in);
	if (rc)
		return rc;
	return kin_run(in, gs_gzin_name(in), lim, sink);
}

gs_status gs_import_kineto_gzin(struct gs_gzin *in, const struct gs_import_limits *lim,
				struct gs_sink *sink)
{
	return kin_run(in, gs_gzin_name(in), lim, sink);
}

gs_status gs_import_kineto_mem(const void *data, size_t size, const char *name,
			       const struct gs_import_limits *lim, struct gs_sink *sink)
{
	struct gs_gzin *in;
	gs_status rc;

	if (!sink) {
		gs_error_append("gs_import_kineto_mem: no sink");
		return GS_ERR_INVALID;
	}
	rc = gs_gzin_open_mem(data, size, name ? name : "(memory)", &in);
	if (rc)
		return rc;
	return kin_run(in, gs_gzin_name(in), lim, sink);
}
