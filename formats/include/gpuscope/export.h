/* SPDX-License-Identifier: MIT */
/*
 * gpuscope exporters (target gs_export): a finished trace as Chrome trace
 * JSON (Perfetto, chrome://tracing, tools that read PyTorch-profiler traces,
 * and gpuscope itself), as Perfetto's own protobuf trace format, or as
 * CSV.
 *
 * The exporters depend on the trace model only. What the analyses add, the
 * launch of each op, the dependency edges, the breakdown segments and the
 * ideal schedule, comes in as plain data (struct gs_export_extras), which
 * the analyzer fills (gs_export_data_build in gpuscope/export_data.h); so
 * formats/ never depends on analyzer/, and tests can hand-build extras.
 *
 * Output is streamed through a small buffer (never a tree of the whole
 * output), optionally gzip-compressed. Writers return GS_ERR_IO with a
 * cause ("write failed: No space left on device") when a write fails; the
 * caller names the file.
 */
#ifndef GPUSCOPE_EXPORT_H
#define GPUSCOPE_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/error.h>
#include <gpuscope/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A dependency edge between two ops (indices into gs_trace_ops()). */
struct gs_export_edge {
	uint32_t from;
	uint32_t to;
	uint8_t kind; /* index into gs_export_extras.edge_kind_names */
};

/* One breakdown segment; a device's segments are ordered and abut. */
struct gs_export_segment {
	int64_t start_ns;
	int64_t end_ns;
	uint8_t category; /* index into gs_export_extras.category_names */
};

struct gs_export_breakdown {
	uint32_t device;
	const struct gs_export_segment *segments;
	size_t n_segments;
};

/*
 * What the analyses add to an export. Every part is optional: NULL / 0
 * leaves it out (a zeroed struct, or a NULL pointer, is an export of the
 * records alone). Arrays "per op" have one entry per gs_trace_ops() entry.
 */
struct gs_export_extras {
	/* Per op: the API call that launched it (index into
	 * gs_trace_api_calls(), GS_NO_INDEX when unknown). NULL: the exporter
	 * joins ops to calls by correlation id itself. */
	const uint32_t *launch;

	/* Dependency edges; a flow arrow each in Chrome traces. */
	const struct gs_export_edge *edges;
	size_t n_edges;
	const char *const *edge_kind_names; /* flow names, by edge kind */
	size_t n_edge_kinds;

	/* Breakdown segments per device: Chrome counter tracks, CSV
	 * segments. */
	const struct gs_export_breakdown *breakdowns;
	size_t n_breakdowns;
	const char *const *category_names; /* by segment category */
	size_t n_categories;

	/* The ideal schedule: per op, whether it was scheduled, its ideal
	 * start (ns, same clock) and what bound its actual start (index into
	 * bound_names; bound may be NULL). */
	const uint8_t *ideal_in;
	const int64_t *ideal_start;
	const uint8_t *ideal_bound;
	const char *const *bound_names;
	size_t n_bound_names;
};

/* Dependency flows written at most when gs_export_options.has_max_flows
 * is not set: 2^21 (about 0.47 GB of JSON), so an export of a million ops
 * stays within about 4 times its op events whatever its graph. */
#define GS_EXPORT_MAX_FLOWS_DEFAULT (UINT64_C(1) << 21)

/* What an export left out (filled when gs_export_options.stats is set). */
struct gs_export_stats {
	uint64_t dependency_flows; /* dependency flows of the exported ops */
	uint64_t flows_left_out;   /* of those, not written (max_flows) */
	/* Perfetto: added to every time written (its timestamps are
	 * unsigned); 0 unless some time of the trace is negative. */
	int64_t time_offset_ns;
};

struct gs_export_options {
	bool gzip;             /* gzip-compress the output */
	int compression_level; /* zlib level 1..9; 0: default (6) */
	bool with_ideal;       /* Chrome: the ideal schedule as processes of
				 * their own; CSV: ideal columns (needs
				 * extras->ideal_in and ideal_start) */
	/* Only device `device` (export --device): its ops, syncs, GPU
	 * annotations, breakdown and ideal schedule, with every host record of
	 * the trace; the dependency flows between two of its ops. Chrome:
	 * deviceProperties lists that device only. */
	bool has_device;
	uint32_t device;
	/* Chrome: at most max_flows dependency flows (the first, in rank
	 * order then edge order); the count left out is in the header
	 * ("gpuscope_flows") and in *stats. Not set: the default above. */
	bool has_max_flows;
	uint64_t max_flows;
	struct gs_export_stats *stats; /* may be NULL */
};

/* True when `path` names a gzip file (ends with ".gz"). */
bool gs_export_path_is_gzip(const char *path);

/*
 * Chrome trace JSON (an object with "traceEvents"):
 *   - one process per host process (pid as recorded) and one per device
 *     (pid = device id unless a host uses it), with process_name,
 *     process_labels ("CPU", "GPU N") and process_sort_index metadata;
 *     with `with_ideal`, "GPU N ideal schedule" right after each device;
 *   - a track per stream (tid = stream id when unique) and per host thread,
 *     with thread_name and thread_sort_index; ops of one stream that
 *     overlap in the record, and host ranges or calls that do not nest, go
 *     to overflow tracks right below, so no track ever mis-nests;
 *   - complete ("X") events in Kineto's categories and args: kernel,
 *     gpu_memcpy, gpu_memset (device, context, stream, correlation, grid,
 *     block, registers per thread, shared memory, bytes, memory kinds, ...),
 *     cuda_runtime, cuda_driver (correlation, cbid), cuda_sync
 *     (cuda_sync_kind, stream, wait_on_stream,
 *     wait_on_cuda_event_record_corr_id), cpu_op, user_annotation,
 *     python_function, overhead; syncs on a "cuda_sync" track of their
 *     device. ts and dur in µs with exact 3-decimal fractions of the
 *     integer ns;
 *   - flows: launch -> op (cat "ac2g", Kineto's), and one per dependency
 *     edge (cat "dependency", named by edge kind), each a paired "s"/"f"
 *     with an id of its own and "bp": "e", bound inside both slices; at
 *     most max_flows dependency flows, and when some are left out the
 *     top-level "gpuscope_flows" (before traceEvents) gives "dependency",
 *     "written", "left_out" and "max_flows";
 *   - a counter ("C", name "breakdown") per device with one series per
 *     category (1 while that category holds the device, else 0).
 * Host events are written thread by thread in time order, each op and sync
 * right after the call that issued it, so a streaming reader (gpuscope's
 * own Kineto importer) joins every op to its call. `x` and `o` may be NULL.
 */
gs_status gs_export_chrome(FILE *out, const struct gs_trace *t, const struct gs_export_extras *x,
			   const struct gs_export_options *o);

/*
 * One rank of a job (gs_job in gpuscope/import.h): its trace and extras,
 * and who it is, for the process names.
 */
struct gs_export_rank {
	const struct gs_trace *trace;
	const struct gs_export_extras *extras; /* may be NULL */
	uint32_t rank;                         /* unique in the job */
	int64_t pid;                           /* the process's pid; -1 unknown */
	const char *host;                      /* NULL or "": unknown */
	uint32_t capture; /* its clock in the job (its clock domain + 1; 0: none) */
};

/*
 * Chrome trace JSON of the `n` ranks of a job in one file; with n == 1,
 * exactly gs_export_chrome of that rank. Each rank is laid out as
 * gs_export_chrome lays out a trace (tracks, lanes, flows, counters, the
 * ideal schedule), and nothing joins two ranks: a flow's two ends, a
 * counter and a track are always of one rank.
 *
 * Ids: every correlation, event, sync and external id but 0 of a rank is
 * written plus rank * K (K the power of ten, at least 1000, above every
 * id of the job; the rank's position in rank order when that would pass
 * 2^53, GS_ERR_LIMIT when even that would), so that no two ranks share an
 * id (Kineto readers join launches to ops by correlation id across the
 * file) and each rank's order is kept.
 *
 * Times: the reference is the first rank (in rank order) whose wall clock
 * is known (gs_process.clock); every rank with a known clock is written
 * shifted onto the reference's (ts + its wall_offset_ns - the reference's),
 * so ranks that ran together by the wall clocks line up. Ranks whose clock
 * is not known, or whose shifted times would leave +-2^62 ns, keep theirs.
 *
 * Who the ranks are: distributedInfo (as PyTorch writes it, "rank": 0 with
 * its space) is the first rank's, baseTimeNanoseconds and gpuscope_clock
 * the reference's; "gpuscope_job", before traceEvents, lists every rank
 * (number, pid_base, pid, host, command line, versions, world size,
 * backend, clock and its offset, start, dropped records, time_shift_ns,
 * id_offset), and each
 * process_name's args repeat the rank's. gpuscope's Kineto importer reads
 * the file back as the same ranks, each with its own times, ids and clock
 * (gpuscope/import.h).
 *
 * Processes, in rank order: pid = rank * 1000 + lane, lane 0.. being the
 * rank's devices by id (each followed by its ideal schedule with
 * `with_ideal`), then its host processes by recorded pid; so pids never
 * collide though ranks share pids and device ids. The stride is the next
 * power of ten when a rank has more than 1000 processes, and a rank's
 * position in rank order replaces its number when pids would pass
 * 2^31 - 1. process_sort_index is the pid. Names and labels:
 *   "rank 3 · node7 · pid 4242 · GPU 0 NVIDIA H100"  labels "GPU 0, rank 3, pid 4242"
 *   "rank 3 · node7 · pid 4242 (host)"               labels "CPU, rank 3, pid 4242"
 *   "rank 3 · GPU 0 ideal"                           labels "GPU 0 ideal, rank 3"
 *   "rank 3 · node7 · profiler overhead"
 * (the host and pid parts only when known), with rank, pid, host, device,
 * command_line, world_size, backend, clock, wall_offset_ns, time_shift_ns
 * and id_offset (each when known or not 0) in the process_name args. Host
 * events keep their tids, GPU events their args (device, stream: as
 * recorded). deviceProperties lists each device id once (the first
 * rank's), host_name only when every rank names the same host.
 * GS_ERR_INVALID when two ranks have one number.
 */
gs_status gs_export_chrome_job(FILE *out, const struct gs_export_rank *ranks, size_t n,
			       const struct gs_export_options *o);

/*
 * Perfetto's own trace format (a .pftrace, as ui.perfetto.dev and
 * trace_processor open it): the `n` ranks of a job (n == 1: a trace on its
 * own) laid out exactly as gs_export_chrome_job lays them out, with the
 * same processes, tracks, lanes, names, args, flows, counters and ideal
 * schedule, as a stream of TracePackets written one at a time:
 *   - each rank a packet sequence of its own (trusted_packet_sequence_id
 *     rank position + 1), its first packet clearing the incremental
 *     state; event names, categories, args keys and string values are
 *     interned on it the first time they are used;
 *   - a process track per process (ProcessDescriptor: pid, process_name,
 *     process_labels, as the Chrome export names them; pids outside
 *     1 .. 2^31 - 1 become free numbers above all the others), and a named
 *     child track per thread, stream, overflow lane, cuda_sync and
 *     gpu_user_annotation lane (sibling_order_rank: the Chrome sort
 *     index);
 *   - a SLICE_BEGIN / SLICE_END pair per op, call, sync, range, overhead
 *     and ideal op, with the Chrome export's categories and args (debug
 *     annotations: grid and block as arrays);
 *   - flows: flow_ids on the launch call and terminating_flow_ids on the
 *     op it launched, and the same for every dependency edge written
 *     (max_flows as for Chrome; both ends in one rank);
 *   - per device a counter track per breakdown category ("breakdown
 *     kernel", ...), 1 while that category holds the device, else 0, a
 *     value written where it changes.
 * Times are ns as the Chrome export's (a rank's shift included), plus
 * stats->time_offset_ns (0 unless a time is negative: Perfetto's are
 * unsigned). Writes fail as the other writers do (GS_ERR_IO with a cause).
 */
gs_status gs_export_perfetto(FILE *out, const struct gs_trace *t, const struct gs_export_extras *x,
			     const struct gs_export_options *o);
gs_status gs_export_perfetto_job(FILE *out, const struct gs_export_rank *ranks, size_t n,
				 const struct gs_export_options *o);

/*
 * CSV (RFC 4180 quoting: a field holding a comma, a double quote, CR or LF
 * is quoted and its quotes doubled; lines end with LF), with a header row.
 *
 * Ops, one row per op in gs_trace_ops() order, every model field:
 *   index,kind,device,pid,context,stream,stream_kind,stream_priority,
 *   start_ns,end_ns,dur_ns,correlation,name,grid_x,grid_y,grid_z,
 *   block_x,block_y,block_z,shared_mem,registers,bytes,copy_kind,src_mem,
 *   dst_mem,flags,graph_id,graph_node,launch_api,launch_pid,launch_tid
 * and with `with_ideal`: ideal_start_ns,delay_ns,bound_by (empty for ops
 * outside the ideal schedule). flags is '|'-separated (async, graph,
 * device_launched); launch_* are empty when the launch is unknown.
 */
gs_status gs_export_csv_ops(FILE *out, const struct gs_trace *t, const struct gs_export_extras *x,
			    const struct gs_export_options *o);

/* Segments, one row per breakdown segment, devices in extras order:
 *   device,start_ns,end_ns,dur_ns,category */
gs_status gs_export_csv_segments(FILE *out, const struct gs_trace *t,
				 const struct gs_export_extras *x,
				 const struct gs_export_options *o);

/*
 * The CSV files of the `n` ranks of a job, ranks in the order given: with
 * n == 1 exactly the files of that rank alone; with more, each row starts
 * with a `rank` column (ops: rank,index,kind,device,...; index is the op's
 * within its rank; segments: rank,device,start_ns,...).
 */
gs_status gs_export_csv_ops_job(FILE *out, const struct gs_export_rank *ranks, size_t n,
				const struct gs_export_options *o);
gs_status gs_export_csv_segments_job(FILE *out, const struct gs_export_rank *ranks, size_t n,
				     const struct gs_export_options *o);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_EXPORT_H */
