/* SPDX-License-Identifier: MIT */
/*
 * Internal: what diff_match.c holds beside the comparison it builds (the
 * result structs are public, gpuscope/diff.h): both runs' reports, the
 * options, the warnings and the gate's verdict.
 */
#ifndef GS_ANALYZER_DIFF_PRIV_H
#define GS_ANALYZER_DIFF_PRIV_H

#include "gate_priv.h"
#include "report_model_priv.h"

#include <gpuscope/diff.h>
#include <gpuscope/report.h>

struct gs_diff {
	struct gs_report *r[2]; /* a report, or the report of a job */
	char *label[2];
	char *format[2];
	size_t top;
	uint64_t max_edges;
	const struct gs_diff_pair *pairs;
	size_t n_pairs;
	struct gs_diff_gpu *gpus;
	size_t n_gpus;
	/* Warnings about the comparison, one line each (owned). */
	char **warnings;
	size_t n_warnings;
	/* The verdict of --fail-if (gs_diff_gate); NULL without one. */
	struct gs_gate_verdict *verdict;
};

#endif /* GS_ANALYZER_DIFF_PRIV_H */
