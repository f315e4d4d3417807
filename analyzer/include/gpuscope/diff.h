/* SPDX-License-Identifier: MIT */
/*
 * The comparison of two traces or two jobs (`gpuscope diff`).
 */
#ifndef GPUSCOPE_DIFF_H
#define GPUSCOPE_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/format.h>
#include <gpuscope/import.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * `gpuscope diff BASE NEW`: the analyze report of each trace
 * (gs_report_build, every device, default windows) side by side. Per
 * device present in either: window, breakdown (kernel / copy / sync / idle
 * and fractions), overlap, idle attribution, schedules (actual, dependency
 * bound, ideal, efficiency, pipelined batches), op counts, wait and missed
 * overlap totals, with NEW - BASE deltas; kernels by name (count and total
 * time on the device) ranked by the largest change; waits grouped by
 * (kind, consumer name and stream, producer name and stream) and missed
 * overlaps by (copy name, stream, direction), each group new, vanished or
 * changed. O(R log R) over the rows of both reports after building them.
 * Kernels also get their mean time per call. When the two runs hold
 * different numbers of iterations (distinct ProfilerStep#N ranges, else
 * the most repeated outermost NVTX range name of both, else op counts
 * that differ by more than 5%), times and counts are compared per
 * iteration (or NEW scaled to BASE's op count), and the output says so.
 */
/* An explicit pairing of a BASE GPU with a NEW GPU: rank and device of
 * each side; a rank of GS_DIFF_ANY_RANK matches the one rank that has
 * that device (an error when several have it). */
#define GS_DIFF_ANY_RANK (-1)
struct gs_diff_pair {
	int64_t base_rank;
	uint32_t base_device;
	int64_t new_rank;
	uint32_t new_device;
};

struct gs_diff_options {
	const char *base_name; /* labels for the output (copied; NULL: "base") */
	const char *new_name;  /* (NULL: "new") */
	const char *base_format;
	const char *new_format;
	size_t top;         /* rows per ranked text table (0: default 10) */
	uint64_t max_edges; /* of each side's dependency graph (gs_graph_options) */
	/* GPUs paired explicitly (borrowed; each GPU in one pair at most);
	 * the others are matched by (rank, device). */
	const struct gs_diff_pair *pairs;
	size_t n_pairs;
};

struct gs_diff;

/* Both traces are borrowed and must outlive the diff. */
gs_status gs_diff_build(const struct gs_trace *base, const struct gs_trace *newt,
			const struct gs_diff_options *o, struct gs_diff **out);
/* The same for two jobs (gpuscope/import.h): GPUs are matched by
 * (rank, device). Both jobs are borrowed and must outlive the diff. */
gs_status gs_diff_build_job(const struct gs_job *base, const struct gs_job *newt,
			    const struct gs_diff_options *o, struct gs_diff **out);
void gs_diff_destroy(struct gs_diff *d);
/* The GPUs compared: paired, present on both sides. */
size_t gs_diff_compared(const struct gs_diff *d);
/*
 * GS_OK when the diff compares a GPU at all; else GS_ERR_INVALID, its cause
 * listing the GPUs only in base and only in new and naming --pair (their
 * ids differ between the runs, so pairing by id compared none).
 */
gs_status gs_diff_check_compared(const struct gs_diff *d);
/* Warnings about the comparison, one line each (a --pair of two GPU
 * models); valid while the diff lives. */
const char *const *gs_diff_warnings(const struct gs_diff *d, size_t *n);
/* Aligned tables for people; every line fits 100 columns. */
gs_status gs_diff_write_text(FILE *out, const struct gs_diff *d);
/* One object, schema "gpuscope.diff/1"; every row of every list. */
gs_status gs_diff_write_json(FILE *out, const struct gs_diff *d);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_DIFF_H */
