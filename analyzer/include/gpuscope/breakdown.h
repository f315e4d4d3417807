/* SPDX-License-Identifier: MIT */
/*
 * The breakdown of one device's time into kernel / copy / sync / idle
 * segments, the overlap of copies and kernels, and the attribution of idle
 * time to the host (host ranges: gpuscope/hostattr.h).
 */
#ifndef GPUSCOPE_BREAKDOWN_H
#define GPUSCOPE_BREAKDOWN_H

#include <stddef.h>
#include <stdint.h>

#include <gpuscope/hostattr.h>
#include <gpuscope/trace.h>
#include <gpuscope/window.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_category {
	GS_CAT_KERNEL = 0,
	GS_CAT_COPY = 1,
	GS_CAT_SYNC = 2,
	GS_CAT_IDLE = 3,
};
#define GS_CAT_COUNT 4
const char *gs_category_name(unsigned cat);

/* A maximal interval of one category. Segments are ordered and abut. */
struct gs_segment {
	int64_t start_ns;
	int64_t end_ns;
	uint8_t category;
};

/* Time the launching host thread spent inside one CUDA call while the
 * device was idle waiting for it (host_bound time), by call name. */
struct gs_host_call_time {
	uint32_t name; /* string id in the trace */
	int64_t ns;
	uint64_t count; /* idle gaps it appeared in */
};

struct gs_breakdown {
	uint32_t device;
	int64_t window_start;
	int64_t window_end;
	struct gs_segment *segments;
	size_t n_segments;
	int64_t total_ns[GS_CAT_COUNT]; /* by enum gs_category; sum == window */
	int64_t window_ns;
	uint8_t dominant; /* a lead to check, not a proven bottleneck */
	/* Overlap. */
	int64_t copy_total_ns;         /* union of copy/memset time */
	int64_t copy_hidden_ns;        /* copy time under a kernel */
	int64_t kernel_concurrency_ns; /* time with two or more kernels */
	/* Idle attribution; the three sum to total_ns[GS_CAT_IDLE]. */
	int64_t host_bound_ns;
	int64_t launch_latency_ns;
	int64_t unattributed_ns;
	struct gs_host_call_time *top_host_calls; /* ranked, longest first */
	size_t n_top_host_calls;
	/* host_bound_ns by the host ranges of the launching thread
	 * (gpuscope/hostattr.h): ranges' time + outside_ns == host_bound_ns. */
	struct gs_host_ranges host_ranges;
};

/*
 * The breakdown of one device over `win` (NULL or !set: the default
 * window). A sweep over sorted interval endpoints, O(N log N). A device
 * with no ops in the window gives an all-idle (possibly empty) breakdown.
 */
gs_status gs_breakdown_compute(const struct gs_trace *t, uint32_t device,
			       const struct gs_window *win, struct gs_breakdown *out);
void gs_breakdown_fini(struct gs_breakdown *b);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_BREAKDOWN_H */
