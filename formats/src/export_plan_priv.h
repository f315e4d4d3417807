/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the export plan share beyond export_plan.h (which the
 * writers read): export_plan.c plans one rank; export_plan_job.c numbers
 * the ranks of a job (pids, ids, clocks) and calls it.
 */
#ifndef GS_EXPORT_PLAN_PRIV_H
#define GS_EXPORT_PLAN_PRIV_H

#include "export_plan.h"

/* export_plan.c */
uint64_t gs_xplan_count_flows(const struct xplan *c);
void gs_xplan_free(struct xplan *c);
gs_status gs_xplan_plan(struct xplan *c, struct xflows *flows, const struct gs_trace *t,
			const struct gs_export_extras *x, const struct gs_export_options *o);

#endif
