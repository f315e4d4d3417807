/* SPDX-License-Identifier: MIT */
/*
 * Internal: what the plan's parser and scheduler share (plan_parse.c,
 * plan_schedule.c); its writer, plan_output.c, reads gpuscope/plan.h only.
 */
#ifndef GS_ANALYZER_PLAN_PRIV_H
#define GS_ANALYZER_PLAN_PRIV_H

#include <stdbool.h>

#include <gpuscope/plan.h>

/* A name short enough for an error line (its start, then "..."); s itself
 * when short, "" for NULL. */
const char *plan_short(const char *s, char buf[80]);
/* NULL, empty, or only white space. */
bool plan_blank(const char *s);

#endif /* GS_ANALYZER_PLAN_PRIV_H */
