/* SPDX-License-Identifier: MIT */
/*
 * The analyze report (`gpuscope analyze`; docs/report.md):
 * every analysis of each device of a trace, the ranked findings, and the
 * text, JSON and HTML writers. The report of a job is in gpuscope/job.h.
 */
#ifndef GPUSCOPE_REPORT_H
#define GPUSCOPE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/steps.h>
#include <gpuscope/trace.h>
#include <gpuscope/window.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_report_options {
	bool has_device;
	uint32_t device;
	/* A job: only rank `rank` (with has_device, only that device of it). */
	bool has_rank;
	uint32_t rank;
	struct gs_window window;
	/* The window's bounds are offsets from the first op start of the
	 * whole trace (`--window +1ms:+5ms`), not absolute times. */
	bool window_relative;
	/* How the window is named in an error ("--window +5s:+6s"; NULL: by
	 * its bounds in ns). A window that overlaps no op of the picked ranks
	 * is an error (GS_ERR_INVALID) naming the span the trace has. */
	const char *window_text;
	const char *const *inputs; /* names for "trace.inputs" (copied) */
	size_t n_inputs;
	const char *format; /* input format name (copied) */
	/* Entries kept in each per-op list (critical path, missed overlap,
	 * waits), those with the most time at stake: 0 for
	 * GS_REPORT_DEFAULT_ROWS, GS_REPORT_ROWS_ALL for every one. */
	size_t rows;
	uint64_t max_edges; /* of the dependency graph (gs_graph_options) */
	/* GPU time per annotation (gs_measures_compute_max; 0: default) */
	uint64_t max_annotation_pieces;
	/* The CUDA Graph replay what-if's cost per kernel node, when set
	 * (else GS_CUDAGRAPH_NODE_NS_DEFAULT). */
	bool has_graph_node_ns;
	int64_t graph_node_ns;
	/* A job: how the clocks of its hosts are placed on one (enum
	 * gs_report_align). */
	int align;
	/* The steps covered (`--step`, `--step-marker`) when no window is
	 * given: by default every whole step but the first. */
	struct gs_step_options steps;
	/* The operators table: which host range an op goes to (enum
	 * gs_op_level, gpuscope/operators.h). */
	int op_level;
	/* The threads that build the devices' analyses of a trace at once:
	 * 0 for as many as the CPUs (gs_cpu_count), 1 for one after another.
	 * The report is the same whatever the number. */
	unsigned threads;
};

/*
 * The clocks of a job's hosts (analyze --align): AUTO fits an offset per
 * host from the ends of the collectives wherever a run spans two clocks or
 * more (COLLECTIVES), NONE keeps each trace's clock as it maps to UTC.
 */
enum gs_report_align {
	GS_REPORT_ALIGN_AUTO = 0,
	GS_REPORT_ALIGN_COLLECTIVES = 1,
	GS_REPORT_ALIGN_NONE = 2,
};

#define GS_REPORT_DEFAULT_ROWS 1000
#define GS_REPORT_ROWS_ALL SIZE_MAX

struct gs_report;

/* How the writers present a report, apart from what it holds: the same
 * report can be written with any style. NULL for the defaults. */
struct gs_report_style {
	size_t top; /* rows in ranked text and HTML tables (0: default 10) */
	bool color; /* text: ANSI colour */
	/* A job's rank rows and rank sections (text, HTML): when its GPUs are
	 * more than this, the min / median / max rows and the outliers only, at
	 * most this many (0: `top` when set, else GS_REPORT_DEFAULT_RANKS;
	 * GS_REPORT_RANKS_ALL: every GPU's row and every rank's sections). */
	size_t ranks;
};

#define GS_REPORT_DEFAULT_RANKS 8
#define GS_REPORT_RANKS_ALL SIZE_MAX

/*
 * Run every analysis for each device of a finished trace: the graph and
 * the waits once, then per device (every device with ops, or o->device
 * only) the breakdown, schedules, missed overlap, CUDA Graph candidates,
 * per-stream and per-kernel totals and the ranked findings. The trace is
 * borrowed and must outlive the report. GS_ERR_INVALID when o->device
 * has no ops or the window is empty.
 */
gs_status gs_report_build(const struct gs_trace *t, const struct gs_report_options *o,
			  struct gs_report **out);
void gs_report_destroy(struct gs_report *r);
/* A summary per device for people: findings first, then the tables;
 * fits 100 columns. */
gs_status gs_report_write_text(FILE *out, const struct gs_report *r,
			       const struct gs_report_style *style);
/* Schema "gpuscope.report/1" (docs/report.md); every row
 * of every list (style->top only limits the text and HTML tables; the
 * JSON gives it under "options"). */
gs_status gs_report_write_json(FILE *out, const struct gs_report *r,
			       const struct gs_report_style *style);
/* One self-contained HTML page (inline CSS, SVG and a little script;
 * nothing fetched): per device the breakdown bar, the findings, the
 * stream lanes of the actual run and of the ideal schedule on one zoomable
 * time axis with the breakdown band, waits and critical path, and the
 * tables. Large traces are binned for drawing (the page stays a few MB
 * for a million ops); the tables keep exact numbers (--top rows). */
gs_status gs_report_write_html(FILE *out, const struct gs_report *r,
			       const struct gs_report_style *style);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_REPORT_H */
