/* SPDX-License-Identifier: MIT */
/*
 * gpuscope-mpi's gate (--fail-if): every GPU's figures to the root, in
 * rank order, checked there as gpuscope analyze checks a job's report.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#include <gpuscope/error.h>
#include <gpuscope/gate.h>
#include <gpuscope/results.h>

#include "gpuscope_mpi.h"

/* ---- the gate (--fail-if) ---- */

/* Every GPU's figures (gs_gate_figures_pack: what a threshold can check,
 * as gs_report_gate reads them) to the root, in rank order: each rank's
 * are packed by the process that analysed it and checked at the root over
 * every GPU of the job, so that the verdict is gpuscope analyze's without
 * the root holding the ranks' reports. A threshold no GPU has is an error
 * there (exit 1 on every process); the root keeps the verdict for the
 * report's JSON and the exit status. A job of one rank is written whole by
 * the process that analysed it: that process gates its report too, for
 * the JSON. */
int gate_phase(struct state *s)
{
	struct gs_gate_figures *g = NULL;
	char msg[GS_ERROR_MSG_MAX * 2];
	int st = 0;

	for (size_t i = 0; i < s->j.n_ranks; i++) {
		char *p = NULL;
		size_t len = 0;

		gs_error_clear();
		if (s->rank_owner[i] == mpi_me) {
			if (gs_gate_figures_pack(gs_results_rank(s->mine, s->mine_at[i]), &p,
						 &len) != GS_OK)
				die("out of memory");
			if (mpi_me != 0)
				send_root(p, len, TAG_GATE);
		} else if (mpi_me == 0) {
			p = recv_from(s->rank_owner[i], TAG_GATE, &len);
		}
		if (mpi_me == 0) {
			gs_status gs = gs_gate_figures_add(&g, p, len);

			if (gs != GS_OK)
				die(chain(gs, msg, sizeof(msg)));
		}
		free(p);
	}
	if (mpi_me == 0) {
		struct gs_gate_verdict *v = NULL;
		gs_status gs;

		gs_error_clear();
		gs = gs_gate_figures_evaluate(s->gate, g, &v);
		if (gs != GS_OK) {
			gs_error_append("--fail-if");
			errorf("%s", chain(gs, msg, sizeof(msg)));
			st = 1;
		} else if (s->j.n_ranks > 1) {
			gs_report_keep_verdict(s->shell, v); /* the JSON's "gate" */
			s->verdict = v;
		} else {
			s->verdict_own = v;
			s->verdict = v;
		}
	}
	gs_gate_figures_destroy(g);
	if (!st && s->j.n_ranks == 1 && s->rank_owner[0] == mpi_me) {
		gs_error_clear();
		if (gs_report_gate(s->mine, s->gate) != GS_OK) {
			gs_error_clear();
			st = 1; /* cannot happen: the root's check passed on the same figures */
		}
	}
	return agree(st);
}

/* After the report is out: the root's line per threshold crossed, and the
 * exit status 3 on every process when one is. */
int gate_verdict(const struct state *s)
{
	int crossed = 0;

	if (mpi_me == 0 && s->verdict && s->verdict->crossed) {
		char line[1024];

		crossed = 1;
		for (size_t i = 0; i < s->verdict->n; i++)
			if (s->verdict->results[i].crossed)
				fprintf(stderr, "gpuscope-mpi: threshold crossed: %s\n",
					gs_gate_result_text(&s->verdict->results[i], line,
							    sizeof(line)));
		fflush(stderr);
	}
	MPI_Bcast(&crossed, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return crossed ? 3 : 0;
}
