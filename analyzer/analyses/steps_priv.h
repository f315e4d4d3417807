/* SPDX-License-Identifier: MIT */
/*
 * Internal: the third source of steps (steps_repeat.c), the repeated
 * top-level annotation of a trace that has neither ProfilerStep#N ranges
 * nor a --step-marker (docs/design.md, "Steps").
 */
#ifndef GS_ANALYZER_STEPS_PRIV_H
#define GS_ANALYZER_STEPS_PRIV_H

#include <gpuscope/steps.h>

#include <stddef.h>

/*
 * The ranges of the finished trace's repeated top-level annotation, if it
 * has one: steps[0 .. *n) get their pid, name and host range, unnumbered,
 * by process and host start (`steps` has room for every range of the
 * trace); *source
 * is a malloc'd text naming the annotation (`repeated top-level range
 * "train_step"`), NULL when there is none (*n is 0 then). With
 * o->has_device only ops of that device count as GPU work launched.
 * O(R log R + N log C) for R ranges, N ops and C top-level ranges of
 * the names in the running.
 */
gs_status gs_steps_repeated(const struct gs_trace *t, const struct gs_step_options *o,
			    struct gs_step *steps, size_t *n, char **source);

#endif /* GS_ANALYZER_STEPS_PRIV_H */
