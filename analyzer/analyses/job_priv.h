/* SPDX-License-Identifier: MIT */
/*
 * Internal: the job analysis's own helpers (job_summary.c: step one, a
 * rank's summary; job_analysis.c: step two, the per-GPU table and
 * stragglers; job_match.c: communicators, clock alignment and the matching
 * of collectives across ranks; job_steps.c: steps across ranks;
 * job_findings.c: the findings). What the analysis holds is public
 * (gpuscope/job_results.h): the writers read it there; this header keeps
 * the builders and their scratch.
 */
#ifndef GS_ANALYZER_JOB_PRIV_H
#define GS_ANALYZER_JOB_PRIV_H

#include <gpuscope/job_results.h>

#include "job_sum.h"

#define JOB_NONE UINT32_MAX /* no kernel */

/* A piece of a union of intervals [a, b). */
struct piece {
	int64_t a, b;
};

/* The findings of a reduced job, ranked (job_findings.c). */
gs_status job_findings_make(struct gs_job_analysis *ja);

/* Steps matched across ranks by number (job_steps.c), after the clocks
 * are aligned. */
gs_status job_steps_make(struct gs_job_analysis *ja);
/* What to add to rank ri's times for its clock group's common clock, and
 * the error of that clock (JOB_CLOCK_UNKNOWN when no collective placed it). */
int64_t job_shift(const struct gs_job_analysis *ja, size_t ri);
int64_t job_clock_err(const struct gs_job_analysis *ja, size_t ri);
#define JOB_CLOCK_UNKNOWN (INT64_MAX / 4)

/* A formatted string (malloc'd); NULL when out of memory. */
char *job_printf(const char *fmt, ...) GS_PRINTF(1, 2);
/* The collective kind of a name ("allreduce", "AllReduce", "_allgather_base",
 * "ncclDevKernel_SendRecv"...). */
enum gs_job_coll_kind job_coll_kind_of_name(const char *name);
/* "0-3, 5" of the ranks of a communicator's members whose flag is set (all:
 * flags NULL). */
void job_rank_list(char *buf, size_t size, const struct gs_job_analysis *ja,
		   const struct gs_job_comm *c, const bool *flags);

/*
 * Step two's collectives (job_match.c): the ranks' communicators grouped,
 * the clock domains aligned, the collectives matched across ranks and
 * measured; fills comms, dom, coll, slot, mm, totals' collective sums and
 * wait_total. ja->totals must be allocated (one per rank).
 */
gs_status job_collectives(struct gs_job_analysis *ja);

#endif /* GS_ANALYZER_JOB_PRIV_H */
