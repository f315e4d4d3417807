/* SPDX-License-Identifier: MIT */
/*
 * Private to gs_export: the plan of an export, shared by the Chrome trace
 * JSON writer (chrome.c) and the Perfetto protobuf writer (pftrace.c), so
 * that both draw the same processes, tracks, lanes, names, args and flows.
 *
 * Processes: every host process (its own pid), then each device (pid =
 * device id, as Kineto writes it, unless a host process has that pid: then
 * a free number above all of them) and, with the ideal schedule, a process
 * for it right after its device. Tracks: a host thread is one track (tid =
 * its tid), a stream one track in its device (tid = stream id when no other
 * stream of the device has that id and it fits 31 bits, else a free
 * number), the syncs of a device one "cuda_sync" track.
 *
 * Lanes. A viewer nests the slices of one track by time, so a track must
 * never hold two slices that partly overlap. Ops of a stream (and syncs,
 * overheads, ideal ops) must not overlap at all: an op that starts before
 * the previous one on its track ended (timestamp skew in the record) goes
 * to an overflow track below the stream. Host ranges and calls must nest:
 * one that straddles an open event of its thread goes to an overflow track
 * of the thread (where it may again enclose or nest). Both placements are
 * greedy in start order: the main track first, then a free overflow track
 * (a heap keyed by the time each becomes free; the track last used is also
 * tried for nesting), else a new one. O(N log N).
 *
 * Jobs (gs_xp_job_init). Each rank is planned as a trace on its own (its
 * own processes, tracks, lanes and launch joins), then numbered: pid = rank
 * * stride + lane, devices first, so that no two ranks share a pid whatever
 * their recorded pids and device ids. Each rank's ids are offset into a
 * range of their own and its times shifted onto the reference rank's clock
 * (see gpuscope/export.h). Only flows within a rank are ever written.
 */
#ifndef GS_FORMATS_EXPORT_PLAN_H
#define GS_FORMATS_EXPORT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <gpuscope/export.h>

#define NONE UINT32_MAX

static inline void *gs_xp_alloc_n(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

/* Overflow lanes: those in use in a min-heap by the time each becomes
 * free, the free ones in a min-heap by number. */
struct lane_pool {
	int64_t *free_at; /* by lane (1-based; [0] unused) */
	uint32_t *busy;   /* heap by free_at */
	uint32_t *idle;   /* heap by lane number */
	size_t n_busy, n_idle, cap;
	uint32_t lanes; /* overflow lanes so far */
};

/* Tracks whose events must not overlap at all. */
struct disjoint {
	int64_t main_end;
	bool main_used;
	struct lane_pool pool;
};

enum href_type {
	HR_RANGE = 0, /* before a call with the same times: it encloses it */
	HR_API = 1,
};

/* A host event, for ordering by thread and time. */
struct href {
	int64_t pid, tid, start, end;
	uint32_t idx;
	uint8_t type;
};

struct hthread {
	int64_t pid, tid;
	uint32_t hp;     /* its process, index into hp */
	uint32_t lanes;  /* overflow lanes */
	int64_t ovf_tid; /* tid of overflow lane 1 (then +1 each) */
};

struct hproc {
	int64_t pid;   /* as recorded */
	int64_t cpid;  /* in the export: pid, or the rank's numbering */
	uint32_t proc; /* index into gs_trace_processes(), NONE when absent */
	size_t first_thread, n_threads;
	int64_t next_tid;
	uint32_t oh_lanes; /* overhead lanes (main + overflow) */
	int64_t oh_tid;
};

struct cdev {
	uint32_t id;
	uint32_t dt; /* index into gs_trace_devices(), NONE when absent */
	int64_t pid, ideal_pid;
	int64_t next_tid, ideal_next_tid;
	uint32_t sync_lanes; /* 0 when no syncs, else main + overflow */
	int64_t sync_tid;
	uint32_t ann_lanes; /* GPU annotation tracks, from ann_tid */
	int64_t ann_tid;
	const struct gs_export_breakdown *bd;
	struct disjoint sync_dj;
};

struct cstream {
	uint32_t dev; /* index into devs */
	int64_t tid;
	uint32_t lanes; /* overflow lanes */
	int64_t ovf_tid;
	uint32_t ideal_lanes;
	int64_t ideal_ovf_tid;
	bool has_ideal;
	bool ambiguous; /* another stream of the device has its id */
};

/* The dependency flows of a whole export against max_flows: the first in
 * rank order, then edge order, are written. */
struct xflows {
	uint64_t total;  /* dependency flows whose two ops are written */
	uint64_t left;   /* of those, left out */
	uint64_t budget; /* the Chrome writer's countdown while writing */
	uint64_t max;    /* max_flows */
};

struct chrome_out; /* the Chrome writer's output (chrome.c) */

/* The plan of one trace, or of one rank of a job. */
struct xplan {
	const struct gs_trace *t;
	const struct gs_export_extras *x;
	bool ideal;
	/* Only device `device` (gs_export_options.has_device): the others get
	 * no process, and their streams, ops and syncs are left out. */
	bool one_device;
	uint32_t device;
	struct chrome_out *out; /* the Chrome writer's; NULL elsewhere */
	struct xflows *flows;   /* of the whole export */
	/* Dependency edges of index >= flow_cut are not written (max_flows). */
	size_t flow_cut;
	/* A rank of a job export (NULL: a trace on its own, the classic
	 * layout). */
	const struct gs_export_rank *rank;
	/* A rank of a job: added to every time written (its clock onto the
	 * reference rank's) and to every id but 0 (correlation, event, sync
	 * and external ids: each rank's in a range of its own). Both 0 for a
	 * trace on its own. */
	int64_t shift;
	uint64_t id_offset;
	int64_t pid_base;               /* the rank's first pid (job_pids) */
	const struct gs_process *rproc; /* the rank's process record, or NULL */

	const struct gs_op *ops;
	size_t n_ops;
	const struct gs_stream *streams;
	size_t n_streams;
	const struct gs_api_call *api;
	size_t n_api;
	const struct gs_sync *syncs;
	size_t n_syncs;
	const struct gs_range *ranges;
	size_t n_ranges;
	const struct gs_overhead *oh;
	size_t n_oh;
	const struct gs_process *procs;
	size_t n_procs;

	struct href *hr; /* host events by (pid, tid, start, end desc, type) */
	size_t n_hr;
	struct hthread *threads;
	size_t n_threads;
	struct hproc *hp;
	size_t n_hp;
	uint32_t *api_lane, *api_thread;
	uint32_t *range_lane, *range_thread;
	int64_t *ann_tid; /* per range: a GPU annotation's tid (on its device) */
	uint32_t *oh_lane;

	struct cdev *devs;
	size_t n_devs;
	struct cstream *cs;
	uint32_t *stream_order; /* streams by device, stream id, pid */
	uint32_t *op_lane, *ideal_lane, *sync_lane;

	uint32_t *launch;          /* per op: its call, NONE when unknown */
	const uint32_t *sync_call; /* per sync: its call (gs_trace_sync_calls) */
	/* API call -> ops it launched / syncs with its correlation (CSR). */
	uint32_t *call_ops_first, *call_ops;
	uint32_t *call_syncs_first, *call_syncs;
};

/* What an export writes: one trace (n == 1, the classic layout) or the
 * ranks of a job, in rank order, planned and numbered. */
struct gs_xp_job {
	struct xplan *cs;
	const struct gs_export_rank **order;
	size_t n;
	int64_t stride; /* a job's pids per rank; 0 for one trace */
	struct xflows flows;
};

/*
 * Plans `n` ranks (n == 1: the trace alone, exactly as gs_export_chrome
 * lays it out): checks, lanes, joins, and for a job the pids, ids and
 * clocks; the dependency flows against o->max_flows (*o->stats filled).
 * GS_ERR_INVALID / _LIMIT / _NOMEM with a cause. gs_xp_job_fini after a
 * failure too.
 */
gs_status gs_xp_job_init(struct gs_xp_job *j, const struct gs_export_rank *ranks, size_t n,
			 const struct gs_export_options *o);
void gs_xp_job_fini(struct gs_xp_job *j);

size_t gs_xp_find_hproc(const struct xplan *c, int64_t pid);
size_t gs_xp_find_dev(const struct xplan *c, uint32_t id);

/* Whether an op, a sync, a GPU annotation is written: false for those of a
 * device left out (gs_export_options.has_device). */
bool gs_xp_op_kept(const struct xplan *c, size_t o);
bool gs_xp_sync_kept(const struct xplan *c, size_t i);
bool gs_xp_annotation_kept(const struct xplan *c, size_t i);
/* Whether dependency edge `e` of the extras is written (both ops kept,
 * within max_flows). */
bool gs_xp_edge_written(const struct xplan *c, size_t e);

/* The earliest and latest time a rank writes, before its shift (false:
 * none). */
bool gs_xp_time_span(const struct xplan *c, int64_t *lo, int64_t *hi);

/* An id as written: apart from the other ranks' (id_offset); 0 stays 0. */
static inline uint64_t gs_xp_id(const struct xplan *c, uint64_t id)
{
	return id ? id + c->id_offset : 0;
}

/* ---- names ---------------------------------------------------------------- */

/* The separator of the parts of a rank's process names. */
#define SEP " \xc2\xb7 "

/* The name an op is exported under (its own, or Kineto's for a copy or a
 * memset whose name does not say its direction and memory kinds); `buf`
 * may hold it. */
const char *gs_xp_op_name(const struct xplan *c, const struct gs_op *op, char *buf, size_t size);
/* kernel, gpu_memcpy, gpu_memset */
const char *gs_xp_op_cat(uint8_t kind);
/* "Event Sync", "Stream Wait Event", ... */
const char *gs_xp_sync_kind_text(uint8_t kind);
/* cuda_driver / cuda_runtime; the category of a host range */
const char *gs_xp_api_cat(const struct gs_api_call *k);
const char *gs_xp_range_cat(const struct gs_range *r);
/* "stream 7", or "stream 7 (pid 12, context 1)" when ambiguous. */
const char *gs_xp_stream_label(const struct xplan *c, uint32_t s, char *buf, size_t size);

/* Who a process of the export is. */
struct xproc_names {
	const char *name; /* process_name (buf, or a string of the trace); "" for none */
	char buf[448];
	char label[128]; /* process_labels; "" for none */
	int64_t sort;    /* process_sort_index */
	/* A rank of a job: who it is (pid, device: -1 when unknown or none;
	 * cmd NULL when none). */
	int64_t pid, device;
	const char *cmd;
};

/* Host process i, device i, and device i's ideal schedule. */
void gs_xp_host_names(const struct xplan *c, size_t i, struct xproc_names *n);
void gs_xp_dev_names(const struct xplan *c, size_t i, struct xproc_names *n);
void gs_xp_ideal_names(const struct xplan *c, size_t i, struct xproc_names *n);

/* Track names: thread `tid` lane k (0 the thread's own, k the overflow
 * lane k), overhead lane k, a stream label's lane k, sync lane k, GPU
 * annotation lane k. */
void gs_xp_thread_name(char *buf, size_t size, int64_t tid, uint32_t k);
void gs_xp_overhead_name(char *buf, size_t size, uint32_t k);
void gs_xp_lane_name(char *buf, size_t size, const char *label, uint32_t k);
void gs_xp_sync_name(char *buf, size_t size, uint32_t k);
void gs_xp_annotation_name(char *buf, size_t size, uint32_t k);

/* ---- args ------------------------------------------------------------------ */

/* The args keys of every event, as Kineto writes them. */
enum xkey {
	XK_DEVICE,
	XK_CONTEXT,
	XK_STREAM,
	XK_CORRELATION,
	XK_REGISTERS,
	XK_SHARED_MEM,
	XK_GRID,
	XK_BLOCK,
	XK_GRAPH_ID,
	XK_GRAPH_NODE,
	XK_BYTES,
	XK_COPY_KIND,
	XK_SRC_MEM,
	XK_DST_MEM,
	XK_MEMORY,
	XK_ASYNC,
	XK_DEVICE_LAUNCHED,
	XK_COLL_NAME,
	XK_PG_NAME,
	XK_PG_DESC,
	XK_PG_RANKS,
	XK_DTYPE,
	XK_GROUP_SIZE,
	XK_IN_NELEMS,
	XK_OUT_NELEMS,
	XK_SEQ,
	XK_SYNC_KIND,
	XK_WAIT_STREAM,
	XK_WAIT_EVENT_CORR,
	XK_WAIT_EVENT_ID,
	XK_EVENT_SYNC_ID,
	XK_CBID,
	XK_RETURN_VALUE,
	XK_EXTERNAL_ID,
	XK_NVTX,
	XK_DOMAIN,
	XK_DELAY_NS,
	XK_BOUND_BY,
	XK_COUNT
};

extern const char *const gs_xp_key_names[XK_COUNT];

/* Where args go: each writer's encoding of one arg. */
struct xargs {
	void (*u64)(void *ctx, enum xkey k, uint64_t v);
	void (*i64)(void *ctx, enum xkey k, int64_t v);
	void (*str)(void *ctx, enum xkey k, const char *v);
	void (*dim3)(void *ctx, enum xkey k, const uint32_t v[3]);
	void *ctx;
};

/* The args of an op, a sync, an API call, a host range, a GPU annotation
 * and an op in the ideal schedule, in the order the Chrome export writes
 * them. */
void gs_xp_op_args(const struct xplan *c, const struct gs_op *op, const struct xargs *a);
void gs_xp_sync_args(const struct xplan *c, uint32_t i, const struct xargs *a);
void gs_xp_api_args(const struct xplan *c, uint32_t i, const struct xargs *a);
void gs_xp_range_args(const struct xplan *c, uint32_t i, const struct xargs *a);
void gs_xp_annotation_args(const struct xplan *c, uint32_t i, const struct xargs *a);
void gs_xp_ideal_args(const struct xplan *c, uint32_t o, const struct xargs *a);

#endif /* GS_FORMATS_EXPORT_PLAN_H */
