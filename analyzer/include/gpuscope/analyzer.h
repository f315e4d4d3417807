/* SPDX-License-Identifier: MIT */
/*
 * gpuscope analyzer library (target gs_analyzer): what the command line
 * computes and prints from a loaded trace. Library functions never print
 * errors: they return a gs_status and append causes (gpuscope/error.h).
 *
 * Output functions write to a caller's FILE and return GS_ERR_IO when a
 * write fails (the cause says so, with the errno text of the failed write).
 *
 * This header includes every header of the library; each topic has its own
 * (docs/design.md, Architecture):
 *   summary.h     `gpuscope info`: counts over a trace, warnings as text
 *   dump.h        `gpuscope dump`: every record as one line
 *   window.h      the window of an analysis, the devices with ops
 *   breakdown.h   kernel / copy / sync / idle segments, idle attribution
 *   hostattr.h    host-bound idle by the host ranges of the launching thread
 *   measures.h    per-GPU measures: annotations, launch delay, bandwidth
 *   graph.h       the dependency graph of the ops, and the waits
 *   schedule.h    actual / dependency-bound / ideal schedules, invariants
 *   conditions.h  the conditions for a copy to hide under a kernel
 *   overlap.h     missed overlap
 *   cudagraph.h   CUDA Graph candidates
 *   whatif.h      the CUDA Graph replay what-if
 *   report.h      the analyze report of a trace and its writers
 *   results.h     what a built report holds, read-only
 *   job.h         the analyze report of a job
 *   plan.h        `gpuscope plan`: the stage calculator (no trace)
 *   export_data.h what `gpuscope export` adds to the records
 *   diff.h        `gpuscope diff`: two reports side by side
 *   gate.h        `--fail-if`: thresholds over a report or a diff, verdicts
 */
#ifndef GPUSCOPE_ANALYZER_H
#define GPUSCOPE_ANALYZER_H

#include <gpuscope/export.h>
#include <gpuscope/format.h>
#include <gpuscope/import.h>

#include <gpuscope/breakdown.h>
#include <gpuscope/conditions.h>
#include <gpuscope/cudagraph.h>
#include <gpuscope/diff.h>
#include <gpuscope/dump.h>
#include <gpuscope/export_data.h>
#include <gpuscope/gate.h>
#include <gpuscope/graph.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/job.h>
#include <gpuscope/job_summary.h>
#include <gpuscope/measures.h>
#include <gpuscope/operators.h>
#include <gpuscope/overlap.h>
#include <gpuscope/plan.h>
#include <gpuscope/report.h>
#include <gpuscope/report_parts.h>
#include <gpuscope/results.h>
#include <gpuscope/schedule.h>
#include <gpuscope/steps.h>
#include <gpuscope/summary.h>
#include <gpuscope/whatif.h>
#include <gpuscope/window.h>

#endif /* GPUSCOPE_ANALYZER_H */
