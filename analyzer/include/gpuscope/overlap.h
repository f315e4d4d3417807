/* SPDX-License-Identifier: MIT */
/*
 * Missed overlap: copies that ran exposed although a kernel could have
 * hidden them, with the conditions (gpuscope/conditions.h) each one misses.
 */
#ifndef GPUSCOPE_OVERLAP_H
#define GPUSCOPE_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

#include <gpuscope/breakdown.h>
#include <gpuscope/conditions.h>
#include <gpuscope/graph.h>
#include <gpuscope/schedule.h>
#include <gpuscope/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_missed_overlap {
	uint32_t op;     /* the exposed copy */
	uint32_t kernel; /* the kernel it could have hidden under, or GS_NO_INDEX */
	int64_t exposed_ns;
	unsigned missing;    /* enum gs_overlap_condition bits */
	uint8_t bound_by;    /* enum gs_constraint of the copy's actual start */
	int64_t hideable_ns; /* what it would hide with every condition met */
	/* Condition bits taken as met (or, for
	 * independent, as missing) without proof: memory kind unknown, or the
	 * dependency path search hit its bound. */
	unsigned unverified;
	/* Condition bits neither met nor missing (never in `missing`): the
	 * memory kind is not recorded, or only stream order joins the copy and
	 * the kernel and no data dependencies are recorded (analyzer/analyses/
	 * overlap.c). With any, the copy is a possible missed overlap and
	 * hideable_ns an upper bound. */
	unsigned unknown;
};

gs_status gs_missed_overlap_compute(const struct gs_trace *t, const struct gs_graph *g,
				    const struct gs_schedule *s, const struct gs_breakdown *b,
				    struct gs_missed_overlap **out, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_OVERLAP_H */
