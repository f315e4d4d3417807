/* SPDX-License-Identifier: MIT */
/*
 * The accessor of gpuscope/job_results.h that needs the report's layout:
 * the job analysis a report holds, so that the job's writers read it
 * without report_model_priv.h.
 */
#include "report_model_priv.h"

#include <gpuscope/job_results.h>

const struct gs_job_analysis *gs_job_results(const struct gs_report *job)
{
	return job && job->job ? job->ja : NULL;
}
