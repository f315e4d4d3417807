/* SPDX-License-Identifier: MIT */
/*
 * The job analysis: what a job of two or more ranks shows that no rank's
 * report shows alone. Built from the ranks' own reports (report.c) and
 * their traces (step one, job_summary.c); written into the text, JSON and
 * HTML reports (job_text.c, job_json.c, job_html.c, sharing job_view.c).
 * This file is step two, the reduction: data only, no text.
 *
 * Per GPU (each GPU of each rank): its window, breakdown (kernel, copy,
 * sync, idle as shares of the window), efficiency, communication kernel
 * time (NCCL / RCCL kernels), exposed communication (the part of the
 * communication kernels' union with no compute kernel of that GPU
 * alongside) and the overlap of communication with compute,
 * 1 - exposed / union (none without communication kernels): all from the
 * rank's report. Over the GPUs: the min, median and max of each, with the
 * rank of each; the median of an even count is the lower middle (the
 * (n - 1) / 2-th of the sorted values), ties go to the lowest rank. An
 * efficiency that is not available (the schedule broke dependency cycles)
 * and an overlap without communication are left out of those.
 *
 * Collectives. The collective kernels of a rank are its kernels that
 * describe a collective (Kineto's NCCL args) or whose name says NCCL /
 * RCCL, that start in the window of their GPU's report. Step one keys them
 * by communicator (the process group the kernel names, else the collective
 * kind, point-to-point kernels apart: never a stream id); step two
 * (job_match.c, whose header says how) aligns the hosts' clocks on the
 * ends of collectives and matches each communicator's collectives across
 * the ranks of a clock group, by sequence number, else by their ends in
 * order, tolerating collectives a trace missed; point-to-point kernels
 * pair with the peer kernel that ends with them. What does not line up is
 * reported as a mismatch, never guessed over; matched kernels that never
 * ran at once are a mismatch, not a wait; a skew within the clocks' error
 * makes no one last.
 *
 * Per matched collective, on its clock group's aligned clock: each rank's
 * arrival (its kernel's start), the skew (last arrival - first arrival),
 * the last rank (the one the others waited for; ties: the lowest rank),
 * each rank's wait (last arrival - its own arrival) and the transfer (the least, over the ranks, of kernel end
 * - last arrival, at least 0: the time the collective took once all were
 * there). Where the message size S is known (the collective's element
 * count, the larger of input and output, times the size of its dtype:
 * Float/Float32/Int/Int32 4, Half/BFloat16/Float16/Short/Int16 2,
 * Double/Float64/Long/Int64 8, Byte/Char/Int8/UInt8/Bool 1, else unknown;
 * taken from the lowest rank that gives it) and the transfer is not 0:
 * the algorithm bandwidth S / transfer and the bus bandwidth, algbw times
 * a factor of the collective's kind for n ranks (the group size the
 * collective declares, else the ranks matched): all-reduce 2(n-1)/n;
 * all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast, reduce,
 * send/recv 1; unknown kinds have no bus bandwidth. The kind comes from
 * the collective name, else the kernel name, letters only, any case
 * ("allreduce", "AllReduce", "_allgather_base", "reduce_scatter",
 * "all_to_all", "broadcast", "SendRecv"). The larger element count is
 * the size the bus bandwidth is defined on (an all-gather's gathered
 * output, a reduce-scatter's whole input; an all-reduce's input).
 *
 * Per rank, over its compared collectives: the time it waited for others
 * (the sum of its waits), the times it was last, and its compute before
 * the collectives (the union of its GPU's compute kernels between its
 * previous collective kernel of the communicator, or its window start,
 * and its arrival). A collective with a skew of 0 (all arrived together)
 * has no one to wait for and counts for nobody's times last.
 *
 * Stragglers. Chance alone would make a rank last in E = sum over its
 * collectives (of skew > 0) of 1 / ranks of that collective. A rank is a
 * straggler when it was last in L >= 3 of its P collectives and
 * L >= max(P / 4, min(2 E, (P + E) / 2)): at least a quarter of them and
 * twice what chance gives (for n equal ranks: a share of at least
 * max(1/4, 2/n)), but never more than halfway between chance and always
 * (so that with 2 ranks, where chance is a half, three quarters will do).
 * What it cost the others: the sum, over the collectives it was last in,
 * of the others' waits.
 *
 * Findings, ranked by the time at stake (summed over ranks): each
 * straggler (the others' waits for it; with its compute before the
 * collectives against the median rank's); waits with no straggler (load
 * imbalance across ranks: the sum of all waits); exposed communication
 * (at stake: its part beyond each rank's waits for the others, which the
 * two findings before account for); collectives that do not line up
 * across ranks (no time at stake: last). A finding needs its time to be
 * at least 0.5% of the job's longest GPU window, the mismatches excepted.
 *
 * The JSON lists the JSON_COLLECTIVES collectives of largest skew (fewer
 * when their rows of ranks would pass JSON_RANK_ROWS), with the exact
 * count beside; the HTML draws at most JOB_HTML_DRAWN per clock group (JOB_HTML_RECTS
 * kernels). Everything else is exact.
 *
 * Complexity, for K collective kernels and N compute kernels over all
 * ranks, C matched collectives of n ranks each and G GPUs: O(K log K +
 * N log N) to group and order, O(C n log N) to match, O(C log C) to rank
 * by skew, O(G log G) per metric.
 */
#include "job_priv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuscope/import.h>
#include <gpuscope/sort.h>

#define MIN_LAST 3 /* a straggler was last at least this often */

/* ---- per GPU ---- */

double gs_job_metric_value(const struct gs_job_gpu *g, enum gs_job_metric m)
{
	const struct gs_js_gpu *d = g->d;
	double win = (double)d->window_ns;

	switch (m) {
	case GS_JOB_METRIC_WINDOW:
		return (double)d->window_ns;
	case GS_JOB_METRIC_KERNEL:
		return win > 0 ? (double)d->total_ns[GS_CAT_KERNEL] / win : 0;
	case GS_JOB_METRIC_COPY:
		return win > 0 ? (double)d->total_ns[GS_CAT_COPY] / win : 0;
	case GS_JOB_METRIC_SYNC:
		return win > 0 ? (double)d->total_ns[GS_CAT_SYNC] / win : 0;
	case GS_JOB_METRIC_IDLE:
		return win > 0 ? (double)d->total_ns[GS_CAT_IDLE] / win : 0;
	case GS_JOB_METRIC_EFF:
		return d->efficiency_kind == GS_REPORT_EFF_CYCLES ? NAN : d->efficiency;
	case GS_JOB_METRIC_COMM:
		return (double)d->comm_ns;
	case GS_JOB_METRIC_EXPOSED:
		return (double)d->comm_exposed_ns;
	case GS_JOB_METRIC_OVERLAP:
		return g->overlap;
	default:
		return NAN;
	}
}

struct stat_key {
	double v;
	size_t gpu;
};

static int cmp_stat_key(const void *pa, const void *pb)
{
	const struct stat_key *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->gpu < b->gpu ? -1 : a->gpu > b->gpu;
}

/* GPUs are in rank order, so ties (by gpu index) go to the lowest rank. */
static gs_status build_stats(struct gs_job_analysis *ja)
{
	struct stat_key *k = malloc((ja->n_gpus ? ja->n_gpus : 1) * sizeof(*k));

	if (!k)
		return gs_nomem();
	for (unsigned m = 0; m < GS_JOB_METRIC_COUNT; m++) {
		struct gs_job_stat *s = &ja->stat[m];
		size_t n = 0;

		for (size_t i = 0; i < ja->n_gpus; i++) {
			double v = gs_job_metric_value(&ja->gpus[i], (enum gs_job_metric)m);

			if (isfinite(v))
				k[n++] = (struct stat_key){v, i};
		}
		s->count = n;
		if (!n)
			continue;
		qsort(k, n, sizeof(*k), cmp_stat_key);
		/* The min: the lowest rank of the least value (k is sorted by
		 * value, then rank); the max likewise. */
		s->v[0] = k[0].v;
		s->gpu[0] = k[0].gpu;
		/* The median: the lower middle value, and of the GPUs with that
		 * value the one of the lowest rank. */
		{
			size_t x = (n - 1) / 2;

			while (x > 0 && k[x - 1].v == k[(n - 1) / 2].v)
				x--;
			s->v[1] = k[x].v;
			s->gpu[1] = k[x].gpu;
		}
		{
			size_t x = n - 1;

			while (x > 0 && k[x - 1].v == k[n - 1].v)
				x--;
			s->v[2] = k[x].v;
			s->gpu[2] = k[x].gpu;
		}
	}
	free(k);
	return GS_OK;
}

static gs_status build_gpus(struct gs_job_analysis *ja)
{
	size_t n = 0;

	for (size_t i = 0; i < ja->n_sums; i++)
		n += ja->sums[i]->n_gpus;
	ja->gpus = calloc(n ? n : 1, sizeof(*ja->gpus));
	ja->first_gpu = calloc(ja->n_sums ? ja->n_sums : 1, sizeof(*ja->first_gpu));
	if (!ja->gpus || !ja->first_gpu)
		return gs_nomem();
	for (size_t i = 0; i < ja->n_sums; i++) {
		const struct gs_js_rank *r = ja->sums[i];

		ja->first_gpu[i] = ja->n_gpus;

		for (size_t k = 0; k < r->n_gpus; k++) {
			struct gs_job_gpu *g = &ja->gpus[ja->n_gpus++];
			const struct gs_js_gpu *d = &r->gpus[k];

			g->r = r;
			g->ri = i;
			g->d = d;
			g->overlap = d->comm_union_ns > 0 ?
					     1.0 - (double)d->comm_exposed_ns /
							     (double)d->comm_union_ns :
					     NAN;
			if (d->window_ns > ja->longest_window)
				ja->longest_window = d->window_ns;
		}
	}
	return build_stats(ja);
}

/* ---- step two: stragglers ---- */

static int cmp_skew(const void *pa, const void *pb, void *arg)
{
	const struct gs_job_analysis *ja = arg;
	const struct gs_job_coll *a = &ja->coll[*(const size_t *)pa],
				 *b = &ja->coll[*(const size_t *)pb];

	if (a->skew != b->skew)
		return a->skew > b->skew ? -1 : 1;
	if (a->comm != b->comm)
		return a->comm < b->comm ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Insertion-free rank by skew: qsort_r is not C11, so a small merge sort. */
static void sort_by_skew(struct gs_job_analysis *ja, size_t *v, size_t *tmp, size_t n)
{
	size_t mid, i, j, k;

	if (n < 2)
		return;
	mid = n / 2;
	sort_by_skew(ja, v, tmp, mid);
	sort_by_skew(ja, v + mid, tmp, n - mid);
	for (i = 0, j = mid, k = 0; i < mid || j < n;) {
		if (j >= n || (i < mid && cmp_skew(&v[i], &v[j], ja) <= 0))
			tmp[k++] = v[i++];
		else
			tmp[k++] = v[j++];
	}
	memcpy(v, tmp, n * sizeof(*v));
}

/* The straggler rule (top of the file). */
static bool is_straggler(const struct gs_job_total *t)
{
	double p = (double)t->counted, e = t->expected, need = 2 * e;

	if (t->last < MIN_LAST || t->cost <= 0)
		return false;
	if ((p + e) / 2 < need)
		need = (p + e) / 2;
	if (p / 4 > need)
		need = p / 4;
	return (double)t->last >= need;
}

static int cmp_straggler(const void *pa, const void *pb, void *arg)
{
	const struct gs_job_analysis *ja = arg;
	const struct gs_job_total *a = &ja->totals[*(const size_t *)pa];
	const struct gs_job_total *b = &ja->totals[*(const size_t *)pb];

	if (a->cost != b->cost)
		return a->cost > b->cost ? -1 : 1;
	return a->ri < b->ri ? -1 : a->ri > b->ri;
}

static gs_status build_collectives(struct gs_job_analysis *ja)
{
	gs_status rc;
	size_t *tmp, i;

	ja->n_totals = ja->n_sums;
	ja->totals = calloc(ja->n_sums ? ja->n_sums : 1, sizeof(*ja->totals));
	if (!ja->totals)
		return gs_nomem();
	for (i = 0; i < ja->n_sums; i++)
		ja->totals[i].ri = i;
	rc = job_collectives(ja);
	if (rc != GS_OK)
		return rc;
	ja->by_skew = malloc((ja->n_coll ? ja->n_coll : 1) * sizeof(*ja->by_skew));
	tmp = malloc((ja->n_coll ? ja->n_coll : 1) * sizeof(*tmp));
	ja->stragglers = calloc(ja->n_totals ? ja->n_totals : 1, sizeof(*ja->stragglers));
	if (!ja->by_skew || !tmp || !ja->stragglers) {
		free(tmp);
		return gs_nomem();
	}
	/* The collectives compared, largest skew first. */
	ja->n_by_skew = 0;
	for (i = 0; i < ja->n_coll; i++)
		if (ja->coll[i].state != GS_JOB_NO_OVERLAP)
			ja->by_skew[ja->n_by_skew++] = i;
	sort_by_skew(ja, ja->by_skew, tmp, ja->n_by_skew);
	free(tmp);
	for (i = 0; i < ja->n_totals; i++) {
		ja->totals[i].straggler = is_straggler(&ja->totals[i]);
		if (ja->totals[i].straggler)
			ja->stragglers[ja->n_stragglers++] = i;
	}
	/* Few stragglers: an insertion sort by cost. */
	for (i = 1; i < ja->n_stragglers; i++)
		for (size_t k = i;
		     k > 0 && cmp_straggler(&ja->stragglers[k - 1], &ja->stragglers[k], ja) > 0;
		     k--) {
			size_t x = ja->stragglers[k];

			ja->stragglers[k] = ja->stragglers[k - 1];
			ja->stragglers[k - 1] = x;
		}
	return GS_OK;
}

void gs_job_analysis_destroy(struct gs_job_analysis *ja)
{
	size_t i;

	if (!ja)
		return;
	for (i = 0; i < ja->n_comms; i++)
		free(ja->comms[i].m);
	free(ja->comms);
	for (i = 0; i < ja->n_mm; i++)
		free(ja->mm[i].text);
	free(ja->mm);
	free(ja->findings);
	free(ja->gpus);
	free(ja->first_gpu);
	free(ja->coll);
	free(ja->slot);
	free(ja->dom);
	free(ja->rank_dom);
	free(ja->by_skew);
	free(ja->totals);
	free(ja->stragglers);
	free(ja->steps);
	free(ja->step_at);
	for (i = 0; i < ja->n_sums; i++)
		gs_js_free(ja->sums[i]);
	free(ja->sums);
	free(ja);
}

gs_status gs_js_reduce(struct gs_js_rank **sums, size_t n, uint32_t n_clock_groups, int align,
		       struct gs_job_analysis **out)
{
	struct gs_job_analysis *ja;
	gs_status rc;

	*out = NULL;
	ja = calloc(1, sizeof(*ja));
	if (!ja) {
		for (size_t i = 0; i < n; i++)
			gs_js_free(sums[i]);
		free(sums);
		return gs_nomem();
	}
	ja->sums = sums;
	ja->n_sums = n;
	ja->n_clock_groups = n_clock_groups ? n_clock_groups : 1;
	ja->align = align == GS_REPORT_ALIGN_NONE        ? GS_JOB_ALIGN_NONE :
		    align == GS_REPORT_ALIGN_COLLECTIVES ? GS_JOB_ALIGN_COLLECTIVES :
							   GS_JOB_ALIGN_AUTO;
	rc = build_gpus(ja);
	if (rc == GS_OK)
		rc = build_collectives(ja);
	if (rc == GS_OK)
		rc = job_steps_make(ja);
	if (rc == GS_OK)
		rc = job_findings_make(ja);
	if (rc != GS_OK) {
		gs_error_append("job analysis");
		gs_job_analysis_destroy(ja);
		return rc;
	}
	*out = ja;
	return GS_OK;
}

const struct gs_js_rank *const *gs_job_analysis_ranks(const struct gs_job_analysis *ja, size_t *n)
{
	*n = ja->n_sums;
	return (const struct gs_js_rank *const *)ja->sums;
}

gs_status gs_job_analysis_build(const struct gs_report *job, struct gs_job_analysis **out)
{
	struct gs_js_rank **sums;
	gs_status rc = GS_OK;

	if (out)
		*out = NULL;
	if (!job || !out) {
		gs_error_append("gs_job_analysis_build: no %s", job ? "output" : "job report");
		return GS_ERR_INVALID;
	}
	sums = calloc(job->n_ranks ? job->n_ranks : 1,
		      sizeof(*sums)); /* NOLINT(bugprone-sizeof-expression): pointers */
	if (!sums)
		return gs_nomem();
	for (size_t i = 0; i < job->n_ranks && rc == GS_OK; i++)
		rc = gs_js_extract(job->ranks[i], &sums[i]);
	if (rc != GS_OK) {
		for (size_t i = 0; i < job->n_ranks; i++)
			gs_js_free(sums[i]);
		free(sums);
		gs_error_append("job analysis");
		return rc;
	}
	return gs_js_reduce(sums, job->n_ranks, job->job ? job->job->n_clock_groups : 1, job->align,
			    out);
}

/* ---- a job's report made by many processes (gpuscope/job_summary.h) ---- */

gs_status gs_report_job_reduce(struct gs_report *shell, struct gs_js_rank **sums, size_t n)
{
	if (!shell) {
		for (size_t i = 0; sums && i < n; i++)
			gs_js_free(sums[i]);
		free(sums);
		gs_error_append("gs_report_job_reduce: no report");
		return GS_ERR_INVALID;
	}
	gs_job_analysis_destroy(shell->ja);
	shell->ja = NULL;
	return gs_js_reduce(sums, n, shell->job ? shell->job->n_clock_groups : 1, shell->align,
			    &shell->ja);
}

size_t gs_report_job_rank_gpus(const struct gs_report *shell, size_t i)
{
	size_t n = 0;
	const struct gs_js_rank *const *sums =
		shell && shell->ja ? gs_job_analysis_ranks(shell->ja, &n) : NULL;

	return sums && i < n ? (size_t)sums[i]->n_gpus : 0;
}

void gs_report_set_mpi_processes(struct gs_report *shell, size_t n)
{
	if (shell)
		shell->mpi_processes = n;
}
