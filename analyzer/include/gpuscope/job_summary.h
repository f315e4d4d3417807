/* SPDX-License-Identifier: MIT */
/*
 * gpuscope/job_summary.h: a job's analysis over processes that each hold
 * some of its ranks (gpuscope-mpi).
 *
 * The job analysis of a report of two or more ranks takes two steps. Step
 * one reads one rank's report and trace into a summary: no pointer into
 * the trace, strings in a pool of its own, so that it packs into bytes
 * and travels to another process. Step two reduces the summaries of every
 * rank, in rank order, into the job analysis. `gpuscope analyze` takes
 * both steps in one process (gs_report_build_job); a front end that spreads
 * the ranks over processes builds each process's share of the reports
 * (gs_report_build_job_own), takes step one where a rank's report is, and
 * step two into a shell: the job's report without ranks of its own, which
 * gpuscope/report_parts.h writes from the ranks' sections. Both make the
 * same job analysis.
 */
#ifndef GPUSCOPE_JOB_SUMMARY_H
#define GPUSCOPE_JOB_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include <gpuscope/report.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_job;
struct gs_report;
/* One rank's summary: about 100 bytes per GPU and 48 per collective
 * kernel, plus the strings. Moving summaries between processes needs
 * only the calls below; its layout, for reading, is in
 * gpuscope/job_results.h. */
struct gs_js_rank;

/* gs_report_build_job of the ranks with own[i] only (the others' traces
 * may be NULL), and no job analysis: a process's share of a job. With no
 * rank its own, the shell of the job's report (its inputs, format,
 * options, warnings, ranks and clock groups). */
gs_status gs_report_build_job_own(const struct gs_job *j, const struct gs_report_options *o,
				  const bool *own, struct gs_report **out);

/* Step one: the summary of one rank's report (a report of gs_results_rank). */
gs_status gs_js_extract(const struct gs_report *rank, struct gs_js_rank **out);
void gs_js_free(struct gs_js_rank *s);
/* A summary as bytes (the same architecture on both ends) and back. */
gs_status gs_js_pack(const struct gs_js_rank *s, char **buf, size_t *len);
gs_status gs_js_unpack(const char *buf, size_t len, struct gs_js_rank **out);

/* Step two, into a shell: the job analysis of the n summaries, in rank
 * order (taken over, freed with the report, also on failure), with the
 * shell's clock groups and --align. */
gs_status gs_report_job_reduce(struct gs_report *shell, struct gs_js_rank **sums, size_t n);
/* The GPUs of rank i (index in rank order) by its summary in the shell's
 * job analysis; 0 out of range or without one. */
size_t gs_report_job_rank_gpus(const struct gs_report *shell, size_t i);
/* The MPI processes that made the report, written in the JSON's options
 * ("mpi": {"processes": n}); 0, the default: none. */
void gs_report_set_mpi_processes(struct gs_report *shell, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_JOB_SUMMARY_H */
