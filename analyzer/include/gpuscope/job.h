/* SPDX-License-Identifier: MIT */
/*
 * The analyze report of a job (several ranks' traces, gpuscope/import.h).
 */
#ifndef GPUSCOPE_JOB_H
#define GPUSCOPE_JOB_H

#include <gpuscope/import.h>
#include <gpuscope/report.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The report of a job (gpuscope/import.h): one report per rank, each as
 * gs_report_build of the rank's trace, and with two or more ranks the job
 * analysis (gpuscope/job_results.h reads it). o->has_rank picks one rank;
 * o->has_device alone picks the device in the one rank that has it
 * (GS_ERR_INVALID, naming the ranks, when several have it). A relative window is offset from the first op of
 * each rank's clock group. A job without a single GPU op (a CPU-only
 * profile) is GS_ERR_INVALID, its cause saying what to record. The job is
 * borrowed and must outlive the report.
 */
gs_status gs_report_build_job(const struct gs_job *j, const struct gs_report_options *o,
			      struct gs_report **out);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_JOB_H */
