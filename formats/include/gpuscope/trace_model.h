/* SPDX-License-Identifier: MIT */
/*
 * gpuscope trace model (target gs_format; docs/design.md, The trace model):
 * the records every reader, the in-memory trace and every analysis share.
 *
 * Times are integer nanoseconds on one host clock (docs/design.md). String fields
 * hold ids into the string table of whoever owns the records (a gs_trace or
 * a gs_writer); GS_NO_STRING means "absent".
 */
#ifndef GPUSCOPE_TRACE_MODEL_H
#define GPUSCOPE_TRACE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_TRACE_MODEL_H */
