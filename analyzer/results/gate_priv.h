/* SPDX-License-Identifier: MIT */
/*
 * Internal: what gate.c checks (one GPU of a report, or one pair of GPUs
 * of a diff), and the verdict's lifetime, for report.c, diff_match.c,
 * gate_figures.c and report_json.c.
 */
#ifndef GS_ANALYZER_GATE_PRIV_H
#define GS_ANALYZER_GATE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/gate.h>
#include <gpuscope/results.h>
#include <gpuscope/steps.h>

/* One GPU of a report (side 1 only), or a pair of a diff (0: BASE, 1:
 * NEW), with what the gate needs of each side. */
struct gs_gate_gpu {
	const struct gs_report_device *d[2]; /* NULL: absent on that side */
	/* The divisor of each side's times and counts: the diff's basis of
	 * comparison (its iterations, or NEW scaled to BASE's ops); 1. */
	double f[2];
	/* The median GPU time of the process's analysed steps; -1: none. */
	int64_t step_ns[2];
	uint32_t rank[2], device[2];
	bool in_job;
	bool paired; /* by --pair */
};

/* What `g` was parsed for (enum gs_gate_for). */
enum gs_gate_for gs_gate_use(const struct gs_gate *g);
/* Whether a threshold of `g` needs the steps' times. */
bool gs_gate_wants_steps(const struct gs_gate *g);
/* The lower median of the selected steps' GPU windows (those that have
 * one), as the Steps table gives it; -1 without such a step. */
int64_t gs_gate_steps_median(const struct gs_steps *s);
/* Check every threshold against the `n` GPUs; *out the verdict (owned). */
gs_status gs_gate_evaluate(const struct gs_gate *g, const struct gs_gate_gpu *gpus, size_t n,
			   struct gs_gate_verdict **out);

#endif /* GS_ANALYZER_GATE_PRIV_H */
