/* SPDX-License-Identifier: MIT */
/*
 * The job's findings (the ranking rule is at the top of job_analysis.c):
 * each a kind, the time at stake and its numbers (gs_finding_data, and
 * what its sentence refers to). Data only: the writers put them in words
 * (job_finding_text and job_finding_advice, job_view.c).
 */
#include "job_priv.h"
#include "report_build_priv.h"

#include <gpuscope/vec.h>

#include <stdlib.h>
#include <string.h>

#define MAX_STRAGGLER_FINDINGS 3

/* Worth a finding: at least 0.5% of `window` (and some time at all). */
static bool significant(int64_t ns, int64_t window)
{
	return ns > 0 && ns >= window / 200 + (window % 200 > 0);
}

/* ---- findings ---- */

static gs_status add_finding(struct gs_job_analysis *ja, size_t *cap, struct gs_job_finding f)
{
	if (gs_vec_grow((void **)&ja->findings, cap, ja->n_findings + 1, sizeof(*ja->findings)) !=
	    GS_OK)
		return GS_ERR_NOMEM;
	ja->findings[ja->n_findings++] = f;
	return GS_OK;
}

static int cmp_finding(const void *pa, const void *pb)
{
	const struct gs_job_finding *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->kind, b->kind);
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
}

/* The lower median of the ranks' compute before their collectives (over
 * the ranks that took part in any). */
static int64_t median_compute_before(const struct gs_job_analysis *ja)
{
	int64_t *v = malloc((ja->n_totals ? ja->n_totals : 1) * sizeof(*v)), m = 0;
	size_t n = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < ja->n_totals; i++)
		if (ja->totals[i].collectives)
			v[n++] = ja->totals[i].compute_before;
	if (n)
		qsort(v, n, sizeof(*v), cmp_i64);
	if (n)
		m = v[(n - 1) / 2];
	free(v);
	return m;
}

gs_status job_findings_make(struct gs_job_analysis *ja)
{
	int64_t median_compute = median_compute_before(ja);
	struct gs_finding_data fd;
	size_t cap = 0, i, worst = SIZE_MAX;
	gs_status rc = GS_OK;
	int64_t exposed = 0, beyond = 0;
	size_t with_comm = 0;

	for (i = 0; i < ja->n_stragglers && i < MAX_STRAGGLER_FINDINGS && rc == GS_OK; i++) {
		const struct gs_job_total *t = &ja->totals[ja->stragglers[i]];
		uint32_t rank = gs_job_rank(ja, t->ri)->rank;

		if (!significant(t->cost, ja->longest_window))
			continue;
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "look_at_rank"};
		gs_finding_num(&fd, "rank", rank);
		gs_finding_num(&fd, "times_last_count", (double)t->last);
		gs_finding_num(&fd, "collectives_count", (double)t->counted);
		gs_finding_num(&fd, "expected_by_chance_count", t->expected);
		gs_finding_num(&fd, "cost_ns", (double)t->cost);
		gs_finding_num(&fd, "compute_before_ns", (double)t->compute_before);
		gs_finding_num(&fd, "median_compute_before_ns", (double)median_compute);
		rc = add_finding(ja, &cap,
				 (struct gs_job_finding){.kind = "straggler",
							 .what = GS_JOB_FIND_STRAGGLER,
							 .ns = t->cost,
							 .data = fd,
							 .at = ja->stragglers[i],
							 .v = {median_compute}});
	}
	if (rc == GS_OK && !ja->n_stragglers && ja->n_by_skew &&
	    significant(ja->wait_total, ja->longest_window)) {
		int64_t skew_sum = 0, skew_max = 0;
		size_t n = 0;

		for (i = 0; i < ja->n_by_skew; i++) {
			const struct gs_job_coll *x = &ja->coll[ja->by_skew[i]];

			if (x->state != GS_JOB_COMPARED)
				continue;
			n++;
			skew_sum += x->skew;
			if (x->skew > skew_max)
				skew_max = x->skew;
		}
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "balance_ranks"};
		gs_finding_num(&fd, "wait_ns", (double)ja->wait_total);
		gs_finding_num(&fd, "collectives_count", (double)n);
		gs_finding_num(&fd, "mean_skew_ns", (double)skew_sum / (double)(n ? n : 1));
		gs_finding_num(&fd, "max_skew_ns", (double)skew_max);
		rc = add_finding(ja, &cap,
				 (struct gs_job_finding){.kind = "skew",
							 .what = GS_JOB_FIND_SKEW,
							 .ns = ja->wait_total,
							 .data = fd,
							 .at = n,
							 .v = {skew_sum, skew_max}});
	}
	for (i = 0; i < ja->n_gpus; i++) {
		const struct gs_job_gpu *g = &ja->gpus[i];

		if (!g->d->comm_kernels)
			continue;
		with_comm++;
		exposed += g->d->comm_exposed_ns;
		if (worst == SIZE_MAX || g->d->comm_exposed_ns > ja->gpus[worst].d->comm_exposed_ns)
			worst = i;
	}
	/* At stake: the exposed time beyond the rank's waits for the others
	 * (those are the stragglers' and the imbalance's findings). */
	for (i = 0; i < ja->n_totals; i++) {
		int64_t e = 0;

		for (size_t k = ja->first_gpu[i]; k < ja->n_gpus && ja->gpus[k].ri == i; k++)
			e += ja->gpus[k].d->comm_exposed_ns;
		if (e > ja->totals[i].waited)
			beyond += e - ja->totals[i].waited;
	}
	if (rc == GS_OK && worst != SIZE_MAX &&
	    significant(ja->gpus[worst].d->comm_exposed_ns, ja->gpus[worst].d->window_ns) &&
	    significant(beyond, ja->longest_window)) {
		const struct gs_job_gpu *w = &ja->gpus[worst];
		const struct gs_job_stat *s = &ja->stat[GS_JOB_METRIC_OVERLAP];

		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "overlap_communication"};
		gs_finding_num(&fd, "exposed_ns", (double)exposed);
		gs_finding_num(&fd, "beyond_waits_ns", (double)beyond);
		gs_finding_num(&fd, "gpus_count", (double)with_comm);
		gs_finding_num(&fd, "worst_rank", gs_job_rank(ja, w->ri)->rank);
		gs_finding_num(&fd, "worst_exposed_ns", (double)w->d->comm_exposed_ns);
		if (s->count)
			gs_finding_num(&fd, "median_overlap", s->v[1]);
		rc = add_finding(
			ja, &cap,
			(struct gs_job_finding){.kind = "exposed_communication",
						.what = GS_JOB_FIND_EXPOSED,
						.ns = beyond,
						.data = fd,
						.at = worst,
						.v = {exposed, beyond, (int64_t)with_comm}});
	}
	if (rc == GS_OK && ja->slow_steps.steps &&
	    significant(ja->slow_steps.extra, ja->slow_steps.total)) {
		const struct gs_job_slow_steps *x = &ja->slow_steps;

		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "look_at_rank"};
		gs_finding_num(&fd, "rank", gs_job_rank(ja, x->ri)->rank);
		gs_finding_num(&fd, "steps_count", (double)x->steps);
		gs_finding_num(&fd, "of_count", (double)x->of);
		gs_finding_num(&fd, "extra_ns", (double)x->extra);
		gs_finding_num(&fd, "median_steps_ns", (double)x->total);
		rc = add_finding(ja, &cap,
				 (struct gs_job_finding){.kind = "slow_steps",
							 .what = GS_JOB_FIND_SLOW_STEPS,
							 .ns = x->extra,
							 .data = fd});
	}
	if (rc == GS_OK && ja->n_mm) {
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_NONE,
					      .advice = "record_the_same_steps"};
		gs_finding_num(&fd, "communicators_count", (double)ja->n_mm);
		rc = add_finding(ja, &cap,
				 (struct gs_job_finding){.kind = "mismatch",
							 .what = GS_JOB_FIND_MISMATCH,
							 .ns = 0,
							 .data = fd});
	}
	if (ja->n_findings)
		qsort(ja->findings, ja->n_findings, sizeof(*ja->findings), cmp_finding);
	return rc;
}
