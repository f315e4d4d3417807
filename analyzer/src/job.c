/* SPDX-License-Identifier: MIT */
/* The job analysis: placeholder until the analysis lands. */
#include "report_priv.h"

#include <stdlib.h>

#include "jw.h"

struct gs_job_analysis {
	int unused;
};

gs_status gs_job_analysis_build(const struct gs_report *job, struct gs_job_analysis **out)
{
	(void)job;
	*out = NULL;
	return GS_OK;
}

void gs_job_analysis_destroy(struct gs_job_analysis *ja)
{
	free(ja);
}

void gs_job_analysis_write_text(struct gs_out *o, const struct gs_report *job, bool color)
{
	(void)o;
	(void)job;
	(void)color;
}

void gs_job_analysis_write_json(struct jw *w, const struct gs_report *job)
{
	(void)w;
	(void)job;
}

void gs_job_analysis_write_html(struct gs_out *o, const struct gs_report *job)
{
	(void)o;
	(void)job;
}
