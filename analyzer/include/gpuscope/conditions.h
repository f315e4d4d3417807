/* SPDX-License-Identifier: MIT */
/*
 * The conditions for a copy to hide under a kernel, shared by the missed
 * overlap of a trace (gpuscope/overlap.h) and the overlap of declared
 * stages (gpuscope/plan.h).
 */
#ifndef GPUSCOPE_CONDITIONS_H
#define GPUSCOPE_CONDITIONS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The three conditions for a copy to hide under a kernel. */
enum gs_overlap_condition {
	GS_COND_PINNED_MEMORY = 1u << 0,
	GS_COND_INDEPENDENT = 1u << 1,
	GS_COND_CONCURRENT_RESOURCES = 1u << 2,
};
const char *gs_condition_name(unsigned bit);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_CONDITIONS_H */
