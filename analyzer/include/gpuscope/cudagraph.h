/* SPDX-License-Identifier: MIT */
/*
 * CUDA Graph candidates: repeated fixed kernel sequences of a stream that
 * one CUDA Graph launch could replace, with the launch gaps they expose.
 * (The dependency graph of gpuscope/graph.h is another thing.)
 */
#ifndef GPUSCOPE_CUDAGRAPH_H
#define GPUSCOPE_CUDAGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/trace.h>
#include <gpuscope/window.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The longest gap between two kernels of a stream that counts as launch
 * overhead: a longer one is the device waiting on something a graph does
 * not remove (the host's other work, another stream, another rank), and no
 * candidate spans it. Communication kernels (NCCL / RCCL, whose time
 * includes waiting for other ranks) are never part of a candidate either.
 */
#define GS_CUDAGRAPH_MAX_GAP_NS 100000

/* A repeated fixed kernel sequence that a CUDA Graph could launch. */
struct gs_cudagraph_candidate {
	uint32_t stream;   /* stream index */
	uint32_t *kernels; /* op indices of the first occurrence */
	size_t length;
	size_t repetitions;
	int64_t exposed_launch_ns; /* idle gaps inside the occurrences */
	int64_t max_gap_ns;        /* the longest of them (<= GS_CUDAGRAPH_MAX_GAP_NS) */
	bool already_graph;        /* launched from a CUDA Graph already */
	/* The gaps exposed_launch_ns sums: the kernel each one ends (op
	 * index) and its length, over every occurrence. */
	uint32_t *gap_ops;
	int64_t *gap_ns;
	size_t n_gaps;
};

gs_status gs_cudagraph_candidates_compute(const struct gs_trace *t, uint32_t device,
					  const struct gs_window *win,
					  struct gs_cudagraph_candidate **out, size_t *n);
void gs_cudagraph_candidates_free(struct gs_cudagraph_candidate *c, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_CUDAGRAPH_H */
