/* SPDX-License-Identifier: MIT */
/*
 * What the two halves of the job's collectives share: job_match.c
 * (communicators, matching, measures, mismatches) and job_clock.c (clock
 * domains, the first estimate of their offsets, the fit, and the rounds of
 * aligning and matching).
 */
#ifndef GS_JOB_MATCH_PRIV_H
#define GS_JOB_MATCH_PRIV_H

#include "job_priv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The constants of matching and of the fit (job_match.c explains them). */
#define ESTIMATE_WINDOW 16              /* places apart a first estimate pairs kernels */
#define MODE_WIDTH_NS 50000             /* the width of a cluster of end differences */
#define MATCH_CAP_NS 1000000            /* ends further apart are not one collective */
#define P2P_CAP_NS 100000               /* peer kernels end within this of each other */
#define P2P_SCAN 64                     /* neighbours looked at for a peer, each way */
#define CLOCK_UNKNOWN JOB_CLOCK_UNKNOWN /* the error of a clock no collective aligned */
#define FIT_ROUNDS 2
#define OUTLIER_SIGMAS 5.0 /* a fit's outliers lie further from it */
#define MIN_SPREAD_NS 1000 /* ... and at least this far */

/* Per-communicator state of matching's final pass (job_match.c). */
struct comm_gaps;

/* job_match.c */
gs_status job_match_all(struct gs_job_analysis *ja, struct comm_gaps *gaps);

/* job_clock.c */
gs_status job_build_domains(struct gs_job_analysis *ja);
bool job_same_signature(const struct gs_js_rank *ra, const struct gs_js_kernel *a,
			const struct gs_js_rank *rb, const struct gs_js_kernel *b);
bool job_all_seq(const struct gs_job_comm *c);
gs_status job_align_and_match(struct gs_job_analysis *ja, struct comm_gaps *gaps);

#endif
