/* SPDX-License-Identifier: MIT */
/*
 * What the text, JSON and HTML writers share of a job's report, written
 * whole (the ranks' reports in this process) or from parts that other
 * processes rendered (gpuscope/report_parts.h): the head's totals over
 * the ranks, the ranks whose sections are shown, and a part's bytes put
 * in. Each writer keeps its own rendering.
 */
#include "report_write_priv.h"

#include <stdlib.h>

#include <gpuscope/outbuf.h>
#include <gpuscope/report_parts.h>

void gs_report_job_totals(const struct gs_report *job, struct gs_report_job_totals *out)
{
	*out = (struct gs_report_job_totals){.ranks = gs_results_job_rank_count(job)};
	for (size_t i = 0; i < out->ranks; i++) {
		struct gs_results_job_rank x;

		if (!gs_results_job_rank(job, i, &x))
			continue;
		out->gpus += x.gpus;
		out->ops += x.ops;
		out->dropped = x.dropped_records > UINT64_MAX - out->dropped ?
				       UINT64_MAX :
				       out->dropped + x.dropped_records;
		out->streams += x.streams;
	}
}

gs_status gs_report_job_shown(const struct gs_report *job, const struct gs_report_style *st,
			      size_t n, bool **shown, size_t *n_shown)
{
	gs_status rc;

	*n_shown = n;
	*shown = calloc(n ? n : 1, sizeof(**shown));
	if (!*shown)
		return gs_nomem();
	for (size_t i = 0; i < n; i++)
		(*shown)[i] = true;
	if (!gs_results_job_analysis(job))
		return GS_OK;
	rc = gs_report_text_job_shown(job, st, *shown, n_shown);
	if (rc != GS_OK) {
		free(*shown);
		*shown = NULL;
	}
	return rc;
}

bool gs_report_put_part(struct gs_outbuf *o, gs_status st, char *bytes, size_t len, bool drop_comma)
{
	bool put = st == GS_OK && bytes && len;

	if (put)
		gs_outbuf_puts(o, bytes + (drop_comma && bytes[0] == ',' ? 1 : 0));
	free(bytes);
	return put;
}
