/* SPDX-License-Identifier: MIT */
/*
 * gpuscope format library (target gs_format): the in-memory trace model
 * every analysis uses, the record sink interface every reader emits into,
 * and the .gscope streaming writer and reader.
 *
 * Times are integer nanoseconds on one host clock (docs/design.md). String fields
 * hold ids into the string table of whoever owns the records (a gs_trace or
 * a gs_writer); GS_NO_STRING means "absent".
 */
#ifndef GPUSCOPE_FORMAT_H
#define GPUSCOPE_FORMAT_H

#include <gpuscope/error.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* The trace model (docs/design.md, The trace model)                        */
/* ------------------------------------------------------------------------ */

#define GS_NO_STRING UINT32_MAX
#define GS_NO_INDEX UINT32_MAX

/* Largest duration a record may have before it is dropped (7 days). */
#define GS_MAX_DURATION_NS (7LL * 24 * 3600 * 1000000000LL)

/*
 * Times a loaded record may hold: -2^62 < t < 2^62 ns (about 146 years
 * either side of the clock's zero), so that the difference of any two times
 * fits in int64. A trace that gives a time outside this range is refused
 * (GS_ERR_FORMAT, naming the record); records dropped for their duration
 * (above) are dropped first.
 */
#define GS_TIME_LIMIT_NS (1LL << 62)

/*
 * How a trace's clock maps onto wall-clock (UTC) time, and the evidence:
 * UTC epoch ns = trace time + gs_process.wall_offset_ns. Traces of one run
 * on different hosts are only as close as those hosts' clocks (NTP: 0.1 to
 * 10 ms); the job analysis states and fits that error.
 */
enum gs_clock_source {
	GS_CLOCK_NONE = 0,         /* not known: the trace's times as they are */
	GS_CLOCK_EPOCH = 1,        /* the times are Unix-epoch times (Kineto's epoch-us ts) */
	GS_CLOCK_KINETO_BASE = 2,  /* Kineto: baseTimeNanoseconds + ts */
	GS_CLOCK_NSYS_SESSION = 3, /* Nsight: TARGET_INFO_SESSION_START_TIME */
	GS_CLOCK_COLLECTOR = 4,    /* the collector: CUPTI's clock read beside CLOCK_REALTIME */
};
#define GS_CLOCK_SOURCE_COUNT 5
/* Times at or past this (2001-09-09 in Unix-epoch ns) that a source gives
 * without a base are taken as epoch times (GS_CLOCK_EPOCH); a clock since
 * boot or since the start of a capture never gets there. */
#define GS_EPOCH_PLAUSIBLE_NS 1000000000000000000LL

struct gs_process {
	int64_t pid;
	uint32_t host_name;
	uint32_t command_line;
	/* Versions as reported, as strings ("13000", "6.0.32830"). */
	uint32_t driver_version;
	uint32_t runtime_version;
	uint32_t cupti_version;
	int64_t start_ns;
	uint64_t dropped_records; /* records the collector could not keep */
	/* The process's place in a distributed job (Kineto
	 * distributedInfo.rank, the collector's rank variables), when the
	 * source says; world_size 0 when unknown. */
	bool has_rank;
	uint32_t rank;
	uint32_t world_size;
	/* The communication backend the source names ("nccl", "gloo": Kineto
	 * distributedInfo.backend); a string id, valid with has_backend. */
	bool has_backend;
	uint32_t backend;
	/* The wall clock (enum gs_clock_source; wall_offset_ns is 0 with
	 * GS_CLOCK_NONE). */
	uint8_t clock;
	int64_t wall_offset_ns;
	/* Which capture of its file the process was recorded in, where a file
	 * holds several (gpuscope's export of a job whose ranks came from
	 * different inputs); 0: the file's one. Processes of one file and
	 * capture share a clock. */
	uint32_t capture;
};

struct gs_device {
	uint32_t id;
	uint32_t name;
	uint32_t uuid; /* string form; GS_NO_STRING when unknown */
	uint32_t sm_count;
	uint32_t cc_major;
	uint32_t cc_minor;
	uint64_t memory_bytes;
	uint32_t copy_engines; /* numMemcpyEngines; 0 when unknown */
};

enum gs_stream_kind {
	GS_STREAM_UNKNOWN = 0,
	GS_STREAM_LEGACY_DEFAULT = 1,
	GS_STREAM_PER_THREAD_DEFAULT = 2,
	GS_STREAM_BLOCKING = 3,
	GS_STREAM_NON_BLOCKING = 4,
};
#define GS_STREAM_KIND_COUNT 5

/* A stream is identified by (pid, device, context, stream id). */
struct gs_stream {
	int64_t pid;
	uint32_t device;
	uint32_t context;
	uint64_t stream_id;
	uint8_t kind; /* enum gs_stream_kind */
	int32_t priority;
};

enum gs_op_kind {
	GS_OP_KERNEL = 0,
	GS_OP_MEMCPY = 1,
	GS_OP_MEMSET = 2,
};
#define GS_OP_KIND_COUNT 3

enum gs_copy_kind {
	GS_COPY_UNKNOWN = 0,
	GS_COPY_HTOD = 1,
	GS_COPY_DTOH = 2,
	GS_COPY_DTOD = 3,
	GS_COPY_HTOH = 4,
	GS_COPY_PTOP = 5,
};
#define GS_COPY_KIND_COUNT 6

enum gs_mem_kind {
	GS_MEM_UNKNOWN = 0,
	GS_MEM_PAGEABLE = 1,
	GS_MEM_PINNED = 2,
	GS_MEM_DEVICE = 3,
	GS_MEM_MANAGED = 4,
	GS_MEM_ARRAY = 5,
};
#define GS_MEM_KIND_COUNT 6

enum gs_op_flags {
	GS_OPF_ASYNC = 1u << 0, /* copy/memset issued with an async API */
	GS_OPF_GRAPH = 1u << 1, /* launched from a CUDA Graph */
	GS_OPF_DEVICE_LAUNCHED = 1u << 2,
};

/*
 * How an op was launched: a kernel's configuration, and for any op launched
 * from a CUDA graph that graph's id. Cold: only the kernel tables and the
 * exporters read it, so it lives in a table of the trace, once per distinct
 * value (gs_trace_op_launch_cfg), not in every op: graph ids keep their 64
 * bits without growing the op.
 */
struct gs_launch_cfg {
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_mem; /* static + dynamic bytes */
	uint32_t registers;  /* per thread */
	uint64_t graph_id;   /* the CUDA graph launched from; 0 if none */
	/* The kernel's mangled name + 1 (a string id) when op.name holds it
	 * demangled; 0 when op.name is the name as recorded. */
	uint32_t mangled_name;
};

/*
 * One GPU operation. Kernel fields are zero for copies and the reverse.
 * Every analysis walks arrays of these: keep it within one 64-byte line.
 */
struct gs_op {
	int64_t start_ns;
	int64_t end_ns;
	uint64_t correlation; /* launching API call's correlation id; 0 if none */
	uint64_t bytes;       /* copies and memsets */
	uint64_t graph_node;  /* graph node id; 0 if none (its graph: gs_launch_cfg) */
	uint32_t name;
	uint32_t stream; /* index into the owner's stream table */
	/* 1 + index into the owner's collective table (gs_trace_collectives)
	 * for a communication kernel whose source describes its collective;
	 * 0 otherwise. */
	uint32_t collective;
	/* 1 + index into a gs_trace's launch table (gs_trace_op_launch_cfg); 0
	 * when none. The trace sets it: a sink ignores it and takes the launch
	 * configuration the op callback is given. */
	uint32_t launch;
	uint8_t kind;        /* enum gs_op_kind */
	uint8_t copy_kind;   /* enum gs_copy_kind */
	uint8_t flags;       /* enum gs_op_flags */
	uint8_t src_mem : 4; /* enum gs_mem_kind */
	uint8_t dst_mem : 4; /* enum gs_mem_kind */
};
#ifndef __cplusplus
_Static_assert(sizeof(struct gs_op) <= 64, "struct gs_op must fit one 64-byte cache line");
#endif

/*
 * What the source says of the collective a communication kernel runs
 * (Kineto's NCCL kernel args: "Collective name", "Process Group Name",
 * "Process Group Ranks", "Group size", "In msg nelems", "dtype"). Strings
 * are GS_NO_STRING and numbers 0 when absent.
 */
struct gs_collective {
	uint32_t name;        /* "allreduce", "_allgather_base", ... */
	uint32_t group;       /* process group name ("0") */
	uint32_t group_desc;  /* process group description ("default_pg") */
	uint32_t group_ranks; /* the group's ranks as the source writes them */
	uint32_t dtype;       /* element type ("Float", "BFloat16") */
	uint32_t group_size;  /* ranks in the group */
	uint64_t in_nelems;   /* elements in / out; valid with has_nelems */
	uint64_t out_nelems;
	bool has_nelems;
	/* The process group's collective sequence number (PyTorch's "Seq"),
	 * valid with has_seq: the same collective has the same number on every
	 * rank of the group. */
	bool has_seq;
	uint64_t seq;
};

enum gs_api_kind {
	GS_API_RUNTIME = 0,
	GS_API_DRIVER = 1,
};
#define GS_API_KIND_COUNT 2

struct gs_api_call {
	int64_t start_ns;
	int64_t end_ns;
	int64_t pid;
	int64_t tid;
	uint64_t correlation;
	uint32_t name;
	int32_t return_value;
	uint32_t cbid; /* CUPTI callback id when known; 0 otherwise */
	uint8_t kind;  /* enum gs_api_kind */
};

enum gs_sync_kind {
	GS_SYNC_UNKNOWN = 0,
	GS_SYNC_EVENT = 1,       /* cudaEventSynchronize */
	GS_SYNC_STREAM_WAIT = 2, /* cudaStreamWaitEvent */
	GS_SYNC_STREAM = 3,      /* cudaStreamSynchronize */
	GS_SYNC_CONTEXT = 4,     /* cudaDeviceSynchronize / cuCtxSynchronize */
};
#define GS_SYNC_KIND_COUNT 5

#define GS_NO_SYNC_ID 0

/*
 * A synchronisation. start/end are host times of the API call. For a stream
 * wait, `stream` is the waiting stream. `event_correlation` is the
 * correlation id of the cudaEventRecord the sync waits on when the source
 * says so (Kineto's wait_on_cuda_event_record_corr_id); `wait_on_stream` is
 * the recording stream when the source names it.
 */
struct gs_sync {
	int64_t start_ns;
	int64_t end_ns;
	int64_t pid;
	int64_t tid; /* -1 if unknown */
	uint64_t correlation;
	uint64_t event_id;
	uint64_t sync_id; /* cudaEventSyncId; GS_NO_SYNC_ID if none */
	uint64_t event_correlation;
	uint32_t stream;         /* index; GS_NO_INDEX for context/event syncs */
	uint32_t wait_on_stream; /* index; GS_NO_INDEX if unknown */
	uint32_t device;
	uint8_t kind; /* enum gs_sync_kind */
};

/* A cudaEventRecord: the point in `stream`'s order an event captures. */
struct gs_event_record {
	int64_t time_ns; /* host time of the record call; 0 if unknown */
	uint64_t correlation;
	uint64_t event_id;
	uint64_t sync_id;
	uint32_t stream; /* index */
};

struct gs_allocation {
	uint64_t address;
	uint64_t bytes;
	int64_t alloc_ns;
	int64_t free_ns; /* 0 while still live at the end of the trace */
	int64_t pid;
	uint32_t device;
	uint8_t mem_kind; /* enum gs_mem_kind */
};

/* gs_op_alloc.flags */
/* `offset` (and `bytes`, when not 0) say where in the allocation the op's
 * pointer points (traces without it: only that it falls inside). */
#define GS_LINK_HAS_OFFSET 1u
/* The allocation is shared by several buffers (pointers at different
 * offsets touch it: a caching allocator's segment): two ops touching it
 * depend on each other only where their ranges are known to meet. */
#define GS_LINK_SEGMENT 2u

/* An op (by its correlation id and kind) touches an allocation. */
struct gs_op_alloc {
	uint64_t correlation;
	uint32_t allocation; /* index into the owner's allocation table */
	uint8_t op_kind;
	uint8_t flags;   /* GS_LINK_* */
	uint64_t offset; /* the op's pointer - the allocation's address */
	uint64_t bytes;  /* bytes the op touches from there (copies, memsets); 0: unknown */
};

enum gs_range_kind {
	GS_RANGE_NVTX = 0,
	GS_RANGE_CPU_OP = 1,
	GS_RANGE_USER_ANNOTATION = 2,
	GS_RANGE_PYTHON = 3,
	GS_RANGE_OTHER = 4,
	/* A user annotation as the profiler drew it on a GPU stream (Kineto
	 * gpu_user_annotation): a label over GPU time, not GPU work. */
	GS_RANGE_GPU_ANNOTATION = 5,
};
#define GS_RANGE_KIND_COUNT 6

/* NVTX ranges and host ranges (PyTorch CPU ops, annotations, Python), and
 * GPU-side annotation ranges (GS_RANGE_GPU_ANNOTATION: pid and tid are
 * those the source gave, -1 when none; `stream` says where it lies). */
struct gs_range {
	int64_t start_ns;
	int64_t end_ns;
	int64_t pid;
	int64_t tid;
	uint64_t external_id; /* Kineto "External id"; 0 if none */
	uint32_t name;
	uint32_t domain; /* NVTX domain; GS_NO_STRING for the default */
	uint8_t kind;    /* enum gs_range_kind */
	/* GS_RANGE_GPU_ANNOTATION: index into the owner's stream table; 0 and
	 * unused for the other kinds. */
	uint32_t stream;
};

/* Time the collector (CUPTI) spent in overhead. */
struct gs_overhead {
	int64_t start_ns;
	int64_t end_ns;
	int64_t pid;
	uint32_t kind; /* string id ("buffer flush", "COMMAND_BUFFER_FULL") */
};

/* One sample of the host clock against a GPU clock. */
struct gs_clock_pair {
	int64_t pid;
	uint32_t device;
	int64_t host_ns;
	int64_t gpu_ns;
};

/* ------------------------------------------------------------------------ */
/* Record sink: what every reader emits into                                 */
/* ------------------------------------------------------------------------ */

/*
 * A reader (the .gscope reader, the Kineto importer, ...) feeds records to a
 * sink. The sink owns the string table and the stream table: the reader
 * interns each string and declares each stream first and uses the ids the
 * sink returns. Every callback returns GS_OK or an error (with a cause
 * appended) that stops the reader. A NULL callback ignores that record kind.
 * Records are passed by pointer and copied by the sink.
 */
struct gs_sink {
	gs_status (*intern)(struct gs_sink *s, const char *str, size_t len, uint32_t *id);
	gs_status (*stream)(struct gs_sink *s, const struct gs_stream *st, uint32_t *index);
	gs_status (*process)(struct gs_sink *s, const struct gs_process *p);
	gs_status (*device)(struct gs_sink *s, const struct gs_device *d);
	/* An op and how it was launched: a kernel's configuration, the graph
	 * of any op launched from one (NULL: none known, read as all zero).
	 * op->launch is ignored. */
	gs_status (*op)(struct gs_sink *s, const struct gs_op *op,
			const struct gs_launch_cfg *launch);
	/* A collective description; ops refer to it by 1 + *index. May be
	 * NULL in a sink that drops them (ops then keep 0). */
	gs_status (*collective)(struct gs_sink *s, const struct gs_collective *c, uint32_t *index);
	gs_status (*api_call)(struct gs_sink *s, const struct gs_api_call *c);
	gs_status (*sync)(struct gs_sink *s, const struct gs_sync *y);
	gs_status (*event_record)(struct gs_sink *s, const struct gs_event_record *e);
	gs_status (*allocation)(struct gs_sink *s, const struct gs_allocation *a, uint32_t *index);
	gs_status (*op_alloc)(struct gs_sink *s, const struct gs_op_alloc *l);
	gs_status (*range)(struct gs_sink *s, const struct gs_range *r);
	gs_status (*overhead)(struct gs_sink *s, const struct gs_overhead *o);
	gs_status (*clock_pair)(struct gs_sink *s, const struct gs_clock_pair *c);
	/* Records the source dropped itself (collector buffer overflow). */
	gs_status (*dropped)(struct gs_sink *s, int64_t pid, uint64_t count);
	/* A warning about the input; `count` occurrences of the same kind;
	 * `kind` (enum gs_warning_kind) says what it is about, so that no one
	 * needs to read the message to know. */
	gs_status (*warning)(struct gs_sink *s, const char *msg, uint64_t count, unsigned kind);
};

/* ------------------------------------------------------------------------ */
/* The in-memory trace                                                       */
/* ------------------------------------------------------------------------ */

struct gs_trace;

/* What a warning is about, where something else says it too (the report
 * shows its own caution in the warning's place). */
enum gs_warning_kind {
	GS_WARNING_OTHER = 0,
	/* cudaStreamWaitEvent calls and no sync record at all: waits between
	 * streams cannot be linked. */
	GS_WARNING_UNLINKED_WAIT_CALLS = 1,
	/* Stream waits that name an event record the trace does not hold. */
	GS_WARNING_UNHELD_WAITS = 2,
	GS_WARNING_KIND_COUNT
};

/* Counted warnings an importer (or the trace) raised while loading. */
struct gs_warning {
	const char *message;
	uint64_t count;
	uint8_t kind; /* enum gs_warning_kind */
};

/* A host thread and its API calls, contiguous in the api-call array. */
struct gs_thread {
	int64_t pid;
	int64_t tid;
	size_t first_api; /* index into gs_trace_api_calls() */
	size_t api_count;
};

gs_status gs_trace_create(struct gs_trace **out);
void gs_trace_destroy(struct gs_trace *t);

/* The sink that fills this trace. Valid until the trace is destroyed. */
struct gs_sink *gs_trace_borrow_sink(struct gs_trace *t);

/*
 * Sort and index after loading: ops grouped by stream and sorted by start
 * within each stream; api calls grouped by (pid, tid) and sorted by start;
 * syncs, event records and ranges sorted by start. Idempotent.
 */
gs_status gs_trace_finish(struct gs_trace *t);

/* String table. gs_trace_string returns "" for GS_NO_STRING, "?" for an id
 * out of range. */
const char *gs_trace_string(const struct gs_trace *t, uint32_t id);
size_t gs_trace_string_count(const struct gs_trace *t);
gs_status gs_trace_intern(struct gs_trace *t, const char *str, size_t len, uint32_t *id);

/* Record arrays (borrowed; valid until the next mutation). */
const struct gs_process *gs_trace_processes(const struct gs_trace *t, size_t *n);
const struct gs_device *gs_trace_devices(const struct gs_trace *t, size_t *n);
const struct gs_stream *gs_trace_streams(const struct gs_trace *t, size_t *n);
const struct gs_op *gs_trace_ops(const struct gs_trace *t, size_t *n);
const struct gs_collective *gs_trace_collectives(const struct gs_trace *t, size_t *n);
/* The collective of an op (NULL when it has none). */
const struct gs_collective *gs_trace_op_collective(const struct gs_trace *t,
						   const struct gs_op *op);
/* How an op of this trace was launched (NULL when all is zero: a copy not
 * launched from a graph, or a kernel whose source gave nothing). Identical
 * values share one entry. */
const struct gs_launch_cfg *gs_trace_op_launch_cfg(const struct gs_trace *t,
						   const struct gs_op *op);
const struct gs_api_call *gs_trace_api_calls(const struct gs_trace *t, size_t *n);
const struct gs_sync *gs_trace_syncs(const struct gs_trace *t, size_t *n);
const struct gs_event_record *gs_trace_event_records(const struct gs_trace *t, size_t *n);
const struct gs_allocation *gs_trace_allocations(const struct gs_trace *t, size_t *n);
const struct gs_op_alloc *gs_trace_op_allocs(const struct gs_trace *t, size_t *n);
const struct gs_range *gs_trace_ranges(const struct gs_trace *t, size_t *n);
/* How many of the trace's ranges are of this kind. O(1). */
size_t gs_trace_range_count(const struct gs_trace *t, enum gs_range_kind kind);
/* After finish: the indices into gs_trace_ranges() of the annotation
 * ranges (user annotations, NVTX, GPU annotations), ascending; NULL and 0
 * when there are none or the trace is not finished. */
const uint32_t *gs_trace_annotation_ranges(const struct gs_trace *t, size_t *n);
const struct gs_overhead *gs_trace_overheads(const struct gs_trace *t, size_t *n);
const struct gs_clock_pair *gs_trace_clock_pairs(const struct gs_trace *t, size_t *n);
const struct gs_warning *gs_trace_warnings(const struct gs_trace *t, size_t *n);
uint64_t gs_trace_dropped(const struct gs_trace *t);

/* After gs_trace_finish: the ops of stream `s` are
 * ops[first .. first + count). */
void gs_trace_stream_ops(const struct gs_trace *t, uint32_t s, size_t *first, size_t *count);
/* After gs_trace_finish: host threads, ordered by (pid, tid). */
const struct gs_thread *gs_trace_threads(const struct gs_trace *t, size_t *n);
/* The device record with id `id`, or NULL. O(1). */
const struct gs_device *gs_trace_device(const struct gs_trace *t, uint32_t id);
/* After gs_trace_finish: the streams (indices, ascending) and the syncs
 * (indices into gs_trace_syncs(), ascending) of device `device`, so that
 * the work on one device reads its own records only. O(log D). *n is 0
 * (and the result NULL) for a device with none. */
const uint32_t *gs_trace_device_streams(const struct gs_trace *t, uint32_t device, size_t *n);
const uint32_t *gs_trace_device_syncs(const struct gs_trace *t, uint32_t device, size_t *n);

/*
 * Joins, computed once by gs_trace_finish (docs/design.md, The trace
 * model). An op's launch call and a sync's call are the API call with the
 * record's correlation id. When several calls carry the id (the runtime and
 * the driver row of one call, a record duplicated, several processes merged
 * into one trace with ids that collide) one is chosen by this rule, in
 * order: for a sync, a call of the sync's own thread (pid, tid); a call of
 * the record's process (an op's is its stream's; not applied for pid <= 0);
 * a call that started no later than the record; the latest start; the
 * earliest end (the inner of nested calls); the lowest index. Then a call
 * of the chosen one's thread with the same id that encloses it (a runtime
 * call around its driver call) replaces it, the outermost first. Indices
 * are into gs_trace_api_calls(); GS_NO_INDEX when no call has the id (or
 * the id is 0), and for a trace not finished (an array is then NULL, *n 0).
 */
const uint32_t *gs_trace_op_launches(const struct gs_trace *t, size_t *n); /* per op */
uint32_t gs_trace_op_launch_call(const struct gs_trace *t, size_t op);
const uint32_t *gs_trace_sync_calls(const struct gs_trace *t, size_t *n); /* per sync */
uint32_t gs_trace_sync_call(const struct gs_trace *t, size_t sync);
/*
 * The event record an event sync or stream wait names, as an index into
 * gs_trace_event_records(), computed once by gs_trace_finish: the latest
 * record with the sync's sync id (cudaEventSyncId), else the latest with
 * its event correlation, else, for a sync that gives neither, the latest
 * record of its event id in its process and context (the waiting stream's,
 * the device's for a host wait) whose correlation is below the sync's.
 * GS_NO_INDEX when the trace holds none (or it is not finished, or the sync
 * is of another kind). A stream wait without its record links nothing
 * unless it carries the recording stream and the record's correlation
 * itself; the trace counts those in one loading warning.
 */
uint32_t gs_trace_sync_event_record(const struct gs_trace *t, size_t sync);
/* The device id of a stream (by index) and of an op (by index into
 * gs_trace_ops()); GS_NO_INDEX for an index out of range. O(1). */
uint32_t gs_trace_stream_device(const struct gs_trace *t, uint32_t stream);
uint32_t gs_trace_op_device(const struct gs_trace *t, size_t op);

/* Earliest start and latest end over GPU ops (0, 0 when there are none). */
void gs_trace_op_span(const struct gs_trace *t, int64_t *first, int64_t *last);

/* Add a warning directly (importers use the sink's warning callback);
 * `kind`: enum gs_warning_kind. */
gs_status gs_trace_add_warning(struct gs_trace *t, const char *msg, uint64_t count, unsigned kind);

/* Replay every record of a finished trace into a sink (strings, streams,
 * processes, devices first). Used by convert and by tests. */
gs_status gs_trace_replay(const struct gs_trace *t, struct gs_sink *sink);
/*
 * Append the records of `src`, a trace not yet finished, to `dst`, not
 * finished either: `dst` ends as if the source `src` was loaded from had
 * been loaded into `dst` directly (the same string ids, stream indexes,
 * record order, warnings and dropped-record counts). For loading several
 * files at once, each into a trace of its own (gs_trace_load_all).
 */
gs_status gs_trace_append(struct gs_trace *dst, const struct gs_trace *src);

/* CPUs this process may run on (its affinity mask; 1 when unknown). Work
 * is split over more threads only when this is 2 or more, and never so
 * that a result depends on it. */
unsigned gs_cpu_count(void);

/* Names for enums (stable strings used in text and JSON output). */
const char *gs_op_kind_name(unsigned kind);
const char *gs_copy_kind_name(unsigned kind);
const char *gs_mem_kind_name(unsigned kind);
const char *gs_stream_kind_name(unsigned kind);
const char *gs_sync_kind_name(unsigned kind);
const char *gs_range_kind_name(unsigned kind);
const char *gs_api_kind_name(unsigned kind);
/* enum gs_clock_source: a stable name ("kineto_base") and the evidence in
 * words ("Kineto baseTimeNanoseconds"). */
const char *gs_clock_source_name(unsigned source);
const char *gs_clock_source_text(unsigned source);

/* What an API call's name (its first n bytes; no NUL needed) says of the
 * call: it returns before its work is done ("Async": cudaMemcpyAsync,
 * cuMemsetD8Async), or it launches a CUDA Graph ("GraphLaunch":
 * cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch). Every importer and
 * analysis asks these, so that they agree on each name. */
bool gs_api_name_is_async(const char *name, size_t n);
bool gs_api_name_is_graph_launch(const char *name, size_t n);

/* ------------------------------------------------------------------------ */
/* .gscope files (docs/design.md, The .gscope file)                         */
/* ------------------------------------------------------------------------ */

/*
 * File layout (little endian):
 *   header:  "GSCOPE\0\0", u16 major, u16 minor, u32 feature mask,
 *            u32 CRC-32 of the preceding 16 bytes            (20 bytes)
 *   chunks:  "GSCK", u16 type, u16 flags, u32 raw length,
 *            u32 compressed length, u32 record count,
 *            u32 CRC-32 of the payload, u32 CRC-32 of the 24 bytes before
 *            it (28 bytes), then the zlib-compressed protobuf payload.
 *            The header's own CRC tells a file cut short (whole header,
 *            missing payload) from a corrupt length field.
 *   payload: one protobuf `Chunk` (formats/proto/gs_trace.proto): strings,
 *            streams, processes, devices, collectives and allocations
 *            declared, then the records; ops, API calls and ranges by
 *            column.
 *
 * Times in columns: a row's start is stored as the difference from the
 * previous row's start and its duration as end - start, both modulo 2^64,
 * so that every int64 time reads back as written. A reader takes the end
 * exactly: a row whose start + duration passes INT64_MAX lasts over 7 days
 * (dropped, as any such record) or starts past 2^62 ns (refused for its
 * start, GS_TIME_LIMIT_NS); it never reads as a record that ends before it
 * starts.
 *
 * Versions: a reader refuses a newer major version and reads any minor
 * one; minor versions only add protobuf fields, which a reader that does
 * not know them skips. 1.0: the first layout. 1.1: a process's rank and
 * world size (Process.rank as rank + 1, 0 none; .world_size), collectives
 * (Chunk.collectives, declared in file order from Chunk.collective_base,
 * not counted as records) and each op's collective (Ops.collective, index
 * + 1, 0 none, left out of a chunk where no op has one). A 1.0 file reads
 * with no ranks and no collectives. Also in 1.1: GPU annotation ranges
 * (range kind 5) and their stream (Ranges.stream, index + 1, 0 none, left
 * out of a chunk where no range has one); a reader that does not know them
 * reads such ranges as host ranges of kind "other". 1.2: each process's
 * wall clock (Process.clock, enum gs_clock_source, and .wall_offset_ns)
 * and communication backend (Process.backend), and each collective's
 * sequence number (Collective.seq with .has_seq); a 1.1 file reads with
 * clocks not known, no backend and no sequence numbers.
 */
#define GS_FILE_MAGIC "GSCOPE\0\0"
#define GS_FILE_MAGIC_LEN 8
#define GS_FILE_HEADER_LEN 20
#define GS_CHUNK_HEADER_LEN 28
#define GS_FORMAT_MAJOR 1
#define GS_FORMAT_MINOR 2

/*
 * The header's feature mask: bits 0-15 name required features (a reader
 * refuses a file with one it does not know), bits 16-31 optional ones (a
 * reader ignores those it does not know). None is defined yet: writers
 * write 0.
 */
#define GS_FEATURES_REQUIRED 0x0000FFFFu
#define GS_FEATURES_KNOWN 0u

/*
 * The flags of a chunk header: none is defined yet (writers write 0). A
 * reader reads a chunk whose flags hold bits it does not know as if they
 * were clear, and says so once for the file: a warning naming the bits,
 * how many chunks have them and the first.
 */
#define GS_CHUNK_FLAGS_KNOWN 0u

/* Bounds a hostile file cannot exceed (checked before allocating). */
#define GS_CHUNK_MAX_RAW (64u << 20)
#define GS_CHUNK_MAX_COMPRESSED (GS_CHUNK_MAX_RAW + (GS_CHUNK_MAX_RAW >> 8) + 64)

enum gs_chunk_type {
	GS_CHUNK_META = 1,    /* processes, devices, streams, strings */
	GS_CHUNK_RECORDS = 2, /* ops, api calls, syncs, ranges, ... */
	GS_CHUNK_END = 3,     /* clean end of file (totals) */
			      /* Readers skip chunks of other types (a warning per type). */
};

struct gs_writer;

struct gs_writer_options {
	/* Records buffered before a chunk is written (0: default 65536). */
	uint32_t flush_records;
	/* zlib level 0..9 (-1: default 6). */
	int compression_level;
	/* Open with O_EXCL|O_NOFOLLOW: never overwrite, never follow a link. */
	bool exclusive;
};

/* Open `path` for writing, write the header. */
gs_status gs_writer_open(const char *path, const struct gs_writer_options *opts,
			 struct gs_writer **out);
/* Write to an already open descriptor (not closed by gs_writer_close). */
gs_status gs_writer_open_fd(int fd, const char *name, const struct gs_writer_options *opts,
			    struct gs_writer **out);
/* The sink interface of the writer: append records. Strings and streams
 * are interned in the writer's own tables. */
struct gs_sink *gs_writer_borrow_sink(struct gs_writer *w);
/* Write what is buffered as one chunk now (no-op when empty). */
gs_status gs_writer_flush(struct gs_writer *w);
/* Flush, write the end chunk, close. Frees the writer even on error. */
gs_status gs_writer_close(struct gs_writer *w);
/*
 * Close a writer whose output failed (a write error, a full disk): cut the
 * file back to its last whole chunk, then try to end it with a chunk that
 * counts the records that never reached it (those appended since the last
 * whole chunk, plus `also_lost` the caller discarded) as dropped by `pid`,
 * with a warning "N records lost: WHY", and the end chunk. When that fails
 * too the file still ends at a whole chunk (read as cut short). *lost (may
 * be NULL) gets N. Frees the writer. Not for a writer without an error.
 */
gs_status gs_writer_close_lost(struct gs_writer *w, int64_t pid, uint64_t also_lost,
			       const char *why, uint64_t *lost);
/* Records appended and chunks written so far. */
uint64_t gs_writer_record_count(const struct gs_writer *w);
uint64_t gs_writer_chunk_count(const struct gs_writer *w);

struct gs_reader;

enum gs_reader_flags {
	/* Skip chunks with a bad CRC or payload (warning) instead of failing. */
	GS_READER_SALVAGE = 1u << 0,
};

/* Open a file, or a memory buffer (borrowed until close). `name` is used
 * in error messages. */
gs_status gs_reader_open(const char *path, unsigned flags, struct gs_reader **out);
gs_status gs_reader_open_mem(const void *data, size_t size, const char *name, unsigned flags,
			     struct gs_reader **out);
/*
 * Decode the next chunk into `sink`. Returns GS_OK after a chunk, GS_END at
 * the end of the data (a file cut short ends with a warning to the sink
 * saying where), or an error naming the chunk.
 */
gs_status gs_reader_next(struct gs_reader *r, struct gs_sink *sink);
/* All chunks into `sink`. */
gs_status gs_reader_read_all(struct gs_reader *r, struct gs_sink *sink);
/*
 * Past 16 MiB inflated (a chunk's payload, or the file's so far), payloads
 * may inflate to at most `ratio` times their compressed size (0: the
 * default, 250; the max_inflate_ratio import limit); a chunk may claim at
 * most one record a payload byte. A frame over either is refused before it
 * is inflated (GS_ERR_FORMAT naming the chunk).
 */
#define GS_READER_DEFAULT_INFLATE_RATIO 250u
void gs_reader_set_max_inflate_ratio(struct gs_reader *r, uint32_t ratio);
uint64_t gs_reader_chunk_index(const struct gs_reader *r);
void gs_reader_close(struct gs_reader *r);

/* True when the bytes start with the .gscope magic. */
bool gs_is_gscope(const void *head, size_t len);

/* Load a .gscope file into a new trace (finished). */
gs_status gs_trace_load_gscope(const char *path, unsigned reader_flags, struct gs_trace **out);

/* Write a finished trace to a .gscope file. */
gs_status gs_trace_save_gscope(const struct gs_trace *t, const char *path,
			       const struct gs_writer_options *opts);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_FORMAT_H */
