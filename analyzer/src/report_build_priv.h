/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the report's assembly share beyond report_priv.h (which
 * the writers read too): report.c builds one trace's report,
 * report_job.c a job's (a report per rank), report_helpers.c holds the
 * small helpers the writers share.
 */
#ifndef GS_REPORT_BUILD_PRIV_H
#define GS_REPORT_BUILD_PRIV_H

#include "report_priv.h"

#include <stdint.h>

/* report.c */
gs_status gs_report_copy_options(struct gs_report *r, const struct gs_report_options *o);

/* report_helpers.c */
uint64_t gs_report_mag(int64_t v);

#endif
