/* SPDX-License-Identifier: MIT */
/*
 * Internal: the layout of a gs_report, the results model that
 * gpuscope/results.h reads through its accessors. The report's builder
 * fills it (report.c, report_job.c, report_build_priv.h), the job
 * analysis reads it (job_sum.h), and results.c's accessors hand it to the
 * writers, which never include this header.
 */
#ifndef GS_ANALYZER_REPORT_MODEL_PRIV_H
#define GS_ANALYZER_REPORT_MODEL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/cudagraph.h>
#include <gpuscope/graph.h>
#include <gpuscope/results.h>
#include <gpuscope/steps.h>
#include <gpuscope/trace.h>
#include <gpuscope/window.h>

/* Steps with figures of their own (breakdown, schedules, gap): each costs
 * about the device's ops that start in its window, so the first steps get
 * them, at most GS_REPORT_STEP_FIGURES (gs_report_device.step_stats). */
#define GS_REPORT_STEP_FIGURES 64

/* The longest gap a CUDA Graph candidate covers (gpuscope/cudagraph.h). */
#define GS_REPORT_LAUNCH_GAP_NS GS_CUDAGRAPH_MAX_GAP_NS

struct gs_job;
struct gs_job_analysis;
struct gs_gate_verdict;
struct gs_op_index;
struct gs_breakdown_cache;

struct gs_report {
	const struct gs_trace *t;
	char **inputs;
	size_t n_inputs;
	char *format;
	uint64_t max_annotation_pieces; /* the option, for the measures */
	unsigned op_level;              /* the option, for the operators */
	struct gs_op_index *op_index;   /* built for the first device */
	int64_t graph_node_ns;          /* the replay what-if's cost per graph node */
	bool window_set;
	struct gs_window window; /* absolute, after resolving a relative one */

	struct gs_graph *g;
	struct gs_wait *waits; /* all waits, ranked */
	size_t n_waits;
	/* Waits reported (consumer on a reported device, in its window): the
	 * JSON "waits" list, as indices into `waits`; the first `rows` of
	 * reported_wait_count, whose wait time is reported_wait_ns. */
	size_t *reported_waits;
	size_t n_reported_waits;
	size_t reported_wait_count;
	int64_t reported_wait_ns;
	size_t rows; /* entries kept in each per-op list */

	struct gs_report_device *dev;
	size_t n_dev;
	/* The devices' breakdowns share it, each thread through a fork of
	 * its own (struct gs_report_scratch, report_build_priv.h). */
	struct gs_breakdown_cache *bd_cache;
	/* The trace's steps and which the window covers (window_from_steps:
	 * the window is the selected steps' span, not --window). */
	struct gs_steps steps;
	bool window_from_steps;
	/* The API calls by start, and over them a tree of the latest end, to
	 * find the calls over a sync segment (with many devices). Built
	 * before the devices when several threads build them, else when a
	 * device first has sync time. */
	uint32_t *call_order;
	int64_t *call_tree;
	size_t call_leaves;

	/* The process this report is of, as its job numbered it (pid -1 and
	 * host "" when unknown; input: the name of the input it came from). */
	bool in_job; /* one rank of a job of two or more */
	uint32_t rank;
	bool rank_declared;
	int64_t pid;
	const char *host;
	const char *input;
	uint32_t clock_group;
	/* Its clock (gs_job_rank): domain, wall-clock source and offset; the
	 * world size it declares (0 unknown); its host from its file name. */
	uint32_t clock_domain;
	uint8_t clock;
	int64_t wall_offset_ns;
	uint32_t world_size;
	bool host_from_name;
	/* A job report: enum gs_report_align, as asked. */
	int align;

	/* A job report (gs_report_build_job): `t`, `g`, the waits and `dev`
	 * are unused; each rank reported has a report of its own, in rank
	 * order, and a job of two or more ranks its job analysis. */
	const struct gs_job *job;
	struct gs_report **ranks;
	size_t n_ranks;
	struct gs_job_analysis *ja;
	/* gpuscope-mpi: the MPI processes (options.mpi); 0 otherwise. */
	size_t mpi_processes;
	/* The verdict of --fail-if (gs_report_gate), written as the JSON's
	 * "gate" member; NULL without one. */
	struct gs_gate_verdict *verdict;
};

#endif /* GS_ANALYZER_REPORT_MODEL_PRIV_H */
