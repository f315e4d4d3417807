/* SPDX-License-Identifier: MIT */
/*
 * Internal: the job analysis in two steps (job_summary.c, job_analysis.c).
 * Step one reads one rank's report and trace into a plain summary (gs_js_rank): no pointer
 * into the trace, strings copied into a pool of its own, so that it can be
 * packed into bytes and sent to another process (gpuscope-mpi). Step two
 * reduces the summaries of every rank, in rank order, into the job
 * analysis. `gpuscope analyze` and gpuscope-mpi both take these two steps,
 * so that their job analyses are the same.
 *
 * A summary holds, per GPU of the rank, the numbers of the rank table;
 * per communicator of the rank (the process group its kernels name, else
 * the collective kind, and its point-to-point kernels apart), its
 * collective kernels in start order with what matching needs (arrival,
 * end, name, message size, the kind, group size and sequence number the
 * collective declares, the compute time before it on its GPU); the rank's
 * identity and clock (wall-clock offset, clock domain); its steps (GPU
 * window and the figures of each);
 * its totals (ops, dropped records, streams), its notes for the text
 * report and its load on the HTML page (ops and lanes drawn). About 100
 * bytes per GPU, 48 per collective kernel, plus the strings.
 *
 * What a second front end calls is public (gpuscope/job_summary.h: step
 * one, the packing, step two into a shell); this header holds the
 * summary's layout and what the analysis and results.c share of it (the
 * report writers read the summaries through gpuscope/results.h).
 */
#ifndef GS_ANALYZER_JOB_SUM_H
#define GS_ANALYZER_JOB_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/format.h>
#include <gpuscope/job_summary.h>
#include <gpuscope/report.h>
#include <gpuscope/report_parts.h>

#include "report_model_priv.h"

#define GS_JS_NONE UINT32_MAX /* no string */

struct gs_js_gpu {
	uint32_t device;
	uint8_t efficiency_kind; /* enum gs_report_eff */
	double efficiency;
	int64_t window_ns, window_start, window_end;
	int64_t total_ns[GS_CAT_COUNT];
	uint64_t comm_kernels;
	int64_t comm_ns, comm_union_ns, comm_exposed_ns;
};

/* One collective kernel of a rank (times on its trace's clock). */
struct gs_js_kernel {
	int64_t start_ns, end_ns;
	int64_t bytes;          /* message size; -1 when unknown or no collective */
	int64_t compute_before; /* compute union on its GPU since the previous one */
	uint64_t seq;           /* the group's sequence number, with has_seq */
	uint32_t name;          /* the collective's name, else the kernel's */
	uint32_t group;         /* its process group's name, or GS_JS_NONE */
	uint32_t device;
	uint32_t group_size; /* the collective's declared group size, 0 */
	uint8_t has_col;     /* the kernel describes a collective */
	uint8_t has_seq;
	uint8_t kind_col; /* kind from the collective's name (0: unknown) */
	uint8_t kind_op;  /* kind from the kernel's name */
	uint8_t kind;     /* the kind: kind_col, else kind_op */
};

/* The collective kernels of one communicator of the rank: key (enum
 * job_key) a process group (group), a collective kind without a group
 * (kind), or the rank's point-to-point kernels. */
struct gs_js_member {
	uint8_t key;
	uint8_t kind;
	uint32_t group;         /* JOB_KEY_GROUP: the group's name */
	uint32_t e0_group_size; /* of the first kernel's collective */
	uint32_t e0_desc;       /* its group description, or GS_JS_NONE */
	uint64_t n;
	struct gs_js_kernel *k;
};

/* One step of the rank (gpuscope/steps.h; times on its trace's clock),
 * with the figures of its GPU of the longest step window where the rank's
 * report has figures for the step (has_figures). */
struct gs_js_step {
	uint64_t number;
	int64_t start_ns, end_ns; /* its GPU window; equal: no GPU work */
	int64_t idle_ns;          /* with has_figures */
	int64_t gap_cause_ns;
	double efficiency; /* NaN when not available */
	uint32_t device;
	uint8_t selected, partial, has_figures;
	uint8_t gap_cause; /* GS_GAP_CAUSE_COUNT: none */
};

/* A note of the text report: label ("caution", "warning", "note"). */
struct gs_js_note {
	uint32_t label;
	uint32_t text;
};

struct gs_js_rank {
	uint32_t rank;
	uint32_t clock_group;
	uint32_t clock_domain;
	bool rank_declared;
	bool host_from_name;
	uint8_t clock;          /* enum gs_clock_source */
	int64_t wall_offset_ns; /* its times + this = UTC ns (0 unknown) */
	uint32_t world_size;    /* declared; 0 unknown */
	int64_t pid;
	uint32_t host; /* "" when unknown (never GS_JS_NONE) */
	uint64_t ops, dropped, streams;
	uint64_t html_ops, html_lanes; /* the rank's load on the HTML page */
	struct gs_js_gpu *gpus;
	uint64_t n_gpus;
	struct gs_js_member *m;
	uint64_t n_m;
	struct gs_js_note *notes;
	uint64_t n_notes;
	struct gs_js_step *steps; /* by host start, as the report's */
	uint64_t n_steps;
	char *pool; /* NUL-terminated strings; ids are offsets */
	uint64_t pool_len, pool_cap;
};

static inline const char *gs_js_str(const struct gs_js_rank *r, uint32_t id)
{
	return id == GS_JS_NONE || id >= r->pool_len ? "" : r->pool + id;
}

/* Step two: the job analysis of n summaries, in rank order (taken over,
 * freed with the analysis, also on failure); align: enum
 * gs_report_align. (Step one, gs_js_extract, and the packing are public:
 * gpuscope/job_summary.h.) */
gs_status gs_js_reduce(struct gs_js_rank **sums, size_t n, uint32_t n_clock_groups, int align,
		       struct gs_job_analysis **out);
/* The job analysis (job_analysis.c) of a job report's ranks: both steps
 * in one process; NULL-safe destroy. */
gs_status gs_job_analysis_build(const struct gs_report *job, struct gs_job_analysis **out);
void gs_job_analysis_destroy(struct gs_job_analysis *ja);
/* The summaries the analysis holds, in rank order. */
const struct gs_js_rank *const *gs_job_analysis_ranks(const struct gs_job_analysis *ja, size_t *n);
/* The ranks (by index in rank order, a slot each in shown[]) whose GPU
 * sections a job's text report shows with `style`: every one when every
 * GPU's row fits the rank table, else the ranks of the outliers it lists
 * (job_view.c says which). *n_shown: how many. Decided from the summaries
 * alone, so that gpuscope-mpi's root can tell the others
 * (gs_report_text_job_shown). */
gs_status gs_job_analysis_shown_ranks(const struct gs_job_analysis *ja,
				      const struct gs_report_style *style, bool *shown,
				      size_t *n_shown);

/* A rank's load on the HTML page (html_ops, html_lanes): see
 * gs_report_html_rank_load, gpuscope/report_parts.h. */

#endif /* GS_ANALYZER_JOB_SUM_H */
