/* SPDX-License-Identifier: MIT */
/*
 * Per-GPU measures of the analyze report beside the breakdown: GPU time per
 * user annotation, launch delay and queue length, copy bandwidth, and the
 * kernel classes.
 */
#ifndef GPUSCOPE_MEASURES_H
#define GPUSCOPE_MEASURES_H

#include <stdbool.h>
#include <stdint.h>

#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Kernel classes, by the kernel's name: communication (NCCL / RCCL names,
 * any case, or a kernel whose source describes its collective), else memory
 * (copy-like: a name containing "memcpy", "memset", "copy_kernel",
 * "CatArrayBatchedCopy" or "fill_kernel", any case), else compute.
 */
enum gs_kernel_class {
	GS_KCLASS_COMPUTE = 0,
	GS_KCLASS_COMMUNICATION = 1,
	GS_KCLASS_MEMORY = 2,
};
#define GS_KCLASS_COUNT 3
/* "compute", "communication", "memory". */
const char *gs_kernel_class_name(unsigned c);
/* The class of a kernel name (without collective args). */
unsigned gs_kernel_class_of_name(const char *name);
/* The class of kernel op `op` (its name, and its collective). */
unsigned gs_kernel_class_of(const struct gs_trace *t, const struct gs_op *op);

/*
 * GPU time under one annotation name (per source: a Kineto
 * gpu_user_annotation, a user_annotation, an NVTX range). Ops under an
 * annotation: for a GPU annotation, the ops of its stream that overlap it,
 * cut to it; for a host range, the ops whose launch call starts inside it
 * ([start, end)) on the same thread (the op is joined to its launch call by
 * correlation id), whole. kernel_ns and copy_ns (memcpy and memset) are the
 * union of those ops' intervals over every instance of the name, cut to the
 * window: ops under two instances, nested or overlapping, count once.
 * count: instances with an op of the device in the window under them (GPU
 * annotations: instances on the device's streams overlapping the window).
 */
struct gs_annotation_time {
	uint32_t name;  /* string id */
	uint8_t source; /* GS_RANGE_GPU_ANNOTATION, _USER_ANNOTATION or _NVTX */
	uint64_t count;
	int64_t kernel_ns;
	int64_t copy_ns;
};

/* Launch delay (launch call start to op start) of the ops of one stream
 * that overlap the window and have a known launch call; nearest-rank
 * percentiles: the p-th is the value at rank ceil(p/100 * n) of the n
 * delays sorted ascending. */
struct gs_launch_delay {
	uint32_t stream; /* stream index */
	uint64_t ops;
	int64_t p50_ns;
	int64_t p95_ns;
	int64_t max_ns;
};

/* A change point of the queue length: `length` from t_ns on. */
struct gs_queue_point {
	int64_t t_ns;
	uint64_t length;
};

/* Series with more change points than this in the window are binned. */
#define GS_QUEUE_SERIES_MAX 1000

/* Copies of one direction and memory kinds (memsets: copy_kind unknown,
 * src_mem unknown) overlapping the window, whole: bytes / ns is GB/s. */
struct gs_copy_bandwidth {
	uint8_t op_kind; /* GS_OP_MEMCPY or GS_OP_MEMSET */
	uint8_t copy_kind;
	uint8_t src_mem;
	uint8_t dst_mem;
	uint64_t count;
	uint64_t bytes;
	int64_t ns; /* summed durations */
};

struct gs_measures {
	uint32_t device;
	int64_t window_start;
	int64_t window_end;

	/* Ranked by kernel_ns + copy_ns (largest first), then source, then
	 * name; every name. */
	struct gs_annotation_time *annotations;
	size_t n_annotations;

	/* Per stream of the device with such ops, ascending stream index. */
	struct gs_launch_delay *delays;
	size_t n_delays;

	/*
	 * Queue length: ops of the device with a known launch call, counted
	 * from their launch call's start to their end. Its maximum and its
	 * time-weighted mean over the window (queue_area / window ns), and
	 * the series: the change points in the window (the first at the
	 * window start), or with more than GS_QUEUE_SERIES_MAX of them, the
	 * window cut in GS_QUEUE_SERIES_MAX equal bins (the last shorter),
	 * each point a bin start with the greatest length in the bin.
	 */
	uint64_t queue_ops;
	uint64_t queue_max;
	double queue_area; /* integral of the length over the window, length x ns */
	double queue_mean;
	struct gs_queue_point *queue_series;
	size_t n_queue_series;
	uint64_t queue_changes; /* change points in the window */
	bool queue_binned;

	/* By op kind, direction, source and destination memory; ordered so. */
	struct gs_copy_bandwidth *copies;
	size_t n_copies;

	/* Kernel time by class: each instant of the window with a kernel
	 * running goes to one class, communication before memory before
	 * compute, so the three sum to the breakdown's kernel time. Counts:
	 * kernels overlapping the window. */
	int64_t class_ns[GS_KCLASS_COUNT];
	uint64_t class_count[GS_KCLASS_COUNT];
};

/*
 * The measures of one device over [window_start, window_end). `launch`:
 * per op of the trace, the API call that launched it (gs_trace_op_launches(),
 * as gs_graph.launch is; NULL: none known). O(N log N) for the device's N
 * ops, with few allocations (none per op).
 */
gs_status gs_measures_compute(const struct gs_trace *t, uint32_t device, int64_t window_start,
			      int64_t window_end, const uint32_t *launch, struct gs_measures *out);
/* The default bound on the pieces of GPU time per annotation (the
 * max_annotation_pieces limit). */
#define GS_MEASURES_DEFAULT_MAX_PIECES (1ull << 26)
/* gs_measures_compute with that bound (0: the default): more pieces fail
 * with GS_ERR_LIMIT naming max_annotation_pieces, before they are kept. */
gs_status gs_measures_compute_max(const struct gs_trace *t, uint32_t device, int64_t window_start,
				  int64_t window_end, const uint32_t *launch, uint64_t max_pieces,
				  struct gs_measures *out);
void gs_measures_fini(struct gs_measures *m);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_MEASURES_H */
