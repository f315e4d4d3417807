/* SPDX-License-Identifier: MIT */
/*
 * Training or inference steps: the iterations a trace marks with host
 * ranges (the PyTorch profiler's ProfilerStep#N, NVTX ranges whose name
 * matches a marker, else a repeated top-level annotation), each with the
 * GPU window of the work launched inside it, and which of them an analysis
 * covers (docs/design.md, "Steps").
 */
#ifndef GPUSCOPE_STEPS_H
#define GPUSCOPE_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_step {
	uint64_t number; /* N of ProfilerStep#N; else the first number in the name, else the ordinal */
	uint32_t name; /* string id of the marker range */
	int64_t pid;
	int64_t host_start_ns; /* the marker range on the host */
	int64_t host_end_ns;
	/* The GPU window: the step's gpu_user_annotation where the trace
	 * draws one (gpu_drawn), else the first start to the last end of the
	 * GPU ops launched inside the marker (a launch call starting in it,
	 * any thread of the process). Empty (start == end) with no such op. */
	int64_t gpu_start_ns;
	int64_t gpu_end_ns;
	bool gpu_drawn;
	uint64_t ops; /* GPU ops launched inside it */
	/* The last step, when its host range is under half the median of the
	 * others' or it launched no GPU op: the profiler stopped inside it. */
	bool partial;
	bool selected; /* covered by the analysis */
};

/* Which steps an analysis covers (`--step`). */
enum gs_step_pick {
	GS_STEP_DEFAULT = 0, /* whole steps but the first; one step: that one */
	GS_STEP_ALL = 1,
	GS_STEP_NONE = 2,  /* the whole trace, steps only listed */
	GS_STEP_RANGE = 3, /* numbers first..last, inclusive */
};

struct gs_step_options {
	uint8_t pick; /* enum gs_step_pick */
	uint64_t first, last;
	/* Extended regular expression over NVTX (and other host) range
	 * names; NULL: ProfilerStep#N ranges, else the repeated top-level
	 * annotation. */
	const char *marker;
	/* Only ops of this device make the GPU windows (--device). */
	bool has_device;
	uint32_t device;
};

struct gs_steps {
	struct gs_step *steps; /* by host start */
	size_t n;
	/* Where the steps came from: "ProfilerStep#N ranges", "ranges
	 * matching --step-marker", or without either a repeated top-level
	 * annotation: `repeated top-level range "train_step"` (the name with
	 * each run of digits as N). Valid until gs_steps_fini. */
	const char *source;
	char *source_buf; /* owned: what source points to when it names a range */
	/* The selection: the span of the selected steps' GPU windows
	 * (window_set false when nothing is selected or no selected step
	 * launched GPU work), and the steps left out by the default rule. */
	bool window_set;
	int64_t window_start_ns;
	int64_t window_end_ns;
	size_t n_selected;
	bool warmup_left_out; /* the first step, by the default rule */
	bool partial_left_out;
};

/* Parses `--step` text: N, A:B, all or none. */
gs_status gs_step_options_parse(const char *text, struct gs_step_options *out);

/*
 * The steps of a finished trace and the selection by `o` (NULL: the
 * default). The marker ranges: with o->marker the ranges it matches; else
 * the ProfilerStep#N ranges; with none, the ranges of the repeated
 * top-level annotation, when the trace has one (docs/design.md, "Steps").
 * A --step N or A:B that names no step is an error listing the steps
 * there are. A marker that is no valid expression is an error.
 * O(R log R + N log S) for R ranges, N ops and S steps (S: with no
 * ProfilerStep#N range nor marker, the top-level ranges of the repeated
 * names).
 */
gs_status gs_steps_find(const struct gs_trace *t, const struct gs_step_options *o,
			struct gs_steps *out);
void gs_steps_fini(struct gs_steps *s);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_STEPS_H */
