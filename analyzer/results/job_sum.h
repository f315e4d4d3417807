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
 * one, the packing, step two into a shell), and so is what the analysis
 * holds, the summary's layout with it (gpuscope/job_results.h: the
 * writers read the analysis through it); this header holds the reduction
 * and the analysis's lifetime.
 */
#ifndef GS_ANALYZER_JOB_SUM_H
#define GS_ANALYZER_JOB_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/job_results.h>
#include <gpuscope/job_summary.h>
#include <gpuscope/report.h>
#include <gpuscope/report_parts.h>

#include "report_model_priv.h"

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

#endif /* GS_ANALYZER_JOB_SUM_H */
