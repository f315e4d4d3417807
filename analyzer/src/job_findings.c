/* SPDX-License-Identifier: MIT */
/*
 * The job's findings (the ranking rule is at the top of job_analysis.c):
 * each a kind, the time at stake, its numbers (gs_finding_data) and the
 * sentence and advice the reports print, composed here once for every
 * writer. Durations are written as gs_dur_text does.
 */
#include "job_priv.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_STRAGGLER_FINDINGS 3

#define DUR(ns) gs_dur_text((char[48]){0}, 48, (ns))
#define PCT(a, b) gs_report_pct((char[32]){0}, 32, (a), (b))

/* Worth a finding: at least 0.5% of `window` (and some time at all). */
static bool significant(int64_t ns, int64_t window)
{
	return ns > 0 && ns >= window / 200 + (window % 200 > 0);
}

/* ---- findings ---- */

static gs_status add_finding(struct gs_job_analysis *ja, size_t *cap, const char *kind, int64_t ns,
			     const struct gs_finding_data *data, char *text, char *advice)
{
	if (!text || !advice) {
		free(text);
		free(advice);
		return gs_nomem();
	}
	if (ja->n_findings == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct ja_finding *p = realloc(ja->findings, nc * sizeof(*p));

		if (!p) {
			free(text);
			free(advice);
			return gs_nomem();
		}
		ja->findings = p;
		*cap = nc;
	}
	ja->findings[ja->n_findings++] = (struct ja_finding){kind, ns, text, advice, *data};
	return GS_OK;
}

static int cmp_finding(const void *pa, const void *pb)
{
	const struct ja_finding *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->kind, b->kind);
}

/* The text that names a GPU in a finding: "rank 3" ("rank 3 GPU 1" when
 * the rank has several). */
const char *ja_gpu_name(char *buf, size_t size, const struct ja_gpu *g)
{
	if (g->r->n_gpus > 1)
		snprintf(buf, size, "rank %u GPU %u", g->r->rank, g->d->device);
	else
		snprintf(buf, size, "rank %u", g->r->rank);
	return buf;
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

/* What a verdict compared when the job is partial: "; over 2 of 128 ranks
 * (a partial job)", else "". */
static const char *partial_note(const struct gs_job_analysis *ja, char *buf, size_t size)
{
	buf[0] = '\0';
	if (ja->world_size > ja->n_sums)
		snprintf(buf, size, "; over the %zu of %u ranks traced (a partial job)", ja->n_sums,
			 ja->world_size);
	return buf;
}

#define PARTIAL() partial_note(ja, (char[96]){0}, 96)

gs_status ja_findings(struct gs_job_analysis *ja)
{
	int64_t median_compute = median_compute_before(ja);
	struct gs_finding_data fd;
	size_t cap = 0, i;
	gs_status rc = GS_OK;
	int64_t exposed = 0, beyond = 0;
	const struct ja_gpu *worst = NULL;
	size_t with_comm = 0;

	for (i = 0; i < ja->n_stragglers && i < MAX_STRAGGLER_FINDINGS && rc == GS_OK; i++) {
		const struct ja_total *t = &ja->totals[ja->stragglers[i]];
		uint32_t rank = rank_of(ja, t->ri)->rank;
		char share[32], chance[32], compute[160];

		if (!significant(t->cost, ja->longest_window))
			continue;
		gs_report_pct(share, sizeof(share), (int64_t)t->last, (int64_t)t->counted);
		compute[0] = '\0';
		if (t->compute_before > median_compute)
			snprintf(compute, sizeof(compute),
				 "; its compute before them took %s, %s more than the median "
				 "rank's",
				 DUR(t->compute_before), DUR(t->compute_before - median_compute));
		snprintf(chance, sizeof(chance), "%.1f%%",
			 t->counted ? 100.0 * t->expected / (double)t->counted : 0.0);
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "look_at_rank"};
		gs_finding_num(&fd, "rank", rank);
		gs_finding_num(&fd, "times_last_count", (double)t->last);
		gs_finding_num(&fd, "collectives_count", (double)t->counted);
		gs_finding_num(&fd, "expected_by_chance_count", t->expected);
		gs_finding_num(&fd, "cost_ns", (double)t->cost);
		gs_finding_num(&fd, "compute_before_ns", (double)t->compute_before);
		gs_finding_num(&fd, "median_compute_before_ns", (double)median_compute);
		rc = add_finding(
			ja, &cap, "straggler", t->cost, &fd,
			ja_printf("rank %u arrived last at %s of %llu collectives (%llu times; "
				  "chance alone would give %s); the others waited %s for it%s%s",
				  rank, share, (unsigned long long)t->counted,
				  (unsigned long long)t->last, chance, DUR(t->cost), compute,
				  PARTIAL()),
			ja_printf("look at rank %u's own section: what it runs before the "
				  "collectives (its compute, host-bound idle, data loading, "
				  "a slower GPU or link); every other rank waits for it",
				  rank));
	}
	if (rc == GS_OK && !ja->n_stragglers && ja->n_by_skew &&
	    significant(ja->wait_total, ja->longest_window)) {
		int64_t skew_sum = 0, skew_max = 0;
		size_t n = 0;

		for (i = 0; i < ja->n_by_skew; i++) {
			const struct ja_coll *x = &ja->coll[ja->by_skew[i]];

			if (x->state != JA_COMPARED)
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
		rc = add_finding(
			ja, &cap, "skew", ja->wait_total, &fd,
			ja_printf("the ranks waited %s in all for one another at %zu collectives "
				  "(mean skew %s, max %s), with no one rank last most often%s",
				  DUR(ja->wait_total), n, DUR(skew_sum / (int64_t)(n ? n : 1)),
				  DUR(skew_max), PARTIAL()),
			ja_printf("load imbalance across ranks: even out the work of a step "
				  "(uneven batches, sequence lengths or shards), and look for "
				  "jitter on the ranks that arrive late (host threads, data "
				  "loading, garbage collection)"));
	}
	for (i = 0; i < ja->n_gpus; i++) {
		const struct ja_gpu *g = &ja->gpus[i];

		if (!g->d->comm_kernels)
			continue;
		with_comm++;
		exposed += g->d->comm_exposed_ns;
		if (!worst || g->d->comm_exposed_ns > worst->d->comm_exposed_ns)
			worst = g;
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
	if (rc == GS_OK && worst && significant(worst->d->comm_exposed_ns, worst->d->window_ns) &&
	    significant(beyond, ja->longest_window)) {
		char who[64], ov[32] = "n/a";
		const struct ja_stat *s = &ja->stat[M_OVERLAP];

		if (s->count)
			snprintf(ov, sizeof(ov), "%.1f%%", 100.0 * s->v[1]);
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "overlap_communication"};
		gs_finding_num(&fd, "exposed_ns", (double)exposed);
		gs_finding_num(&fd, "beyond_waits_ns", (double)beyond);
		gs_finding_num(&fd, "gpus_count", (double)with_comm);
		gs_finding_num(&fd, "worst_rank", rank_of(ja, worst->ri)->rank);
		gs_finding_num(&fd, "worst_exposed_ns", (double)worst->d->comm_exposed_ns);
		if (s->count)
			gs_finding_num(&fd, "median_overlap", s->v[1]);
		rc = add_finding(
			ja, &cap, "exposed_communication", beyond, &fd,
			ja_printf("communication ran with no compute kernel alongside for %s over "
				  "%zu GPU%s (%s of it beyond the waits for other ranks), up to %s "
				  "on %s (%s of its window); median overlap with compute %s",
				  DUR(exposed), with_comm, with_comm == 1 ? "" : "s", DUR(beyond),
				  DUR(worst->d->comm_exposed_ns),
				  ja_gpu_name(who, sizeof(who), worst),
				  PCT(worst->d->comm_exposed_ns, worst->d->window_ns), ov),
			ja_printf("overlap communication with compute: bucket gradients so that "
				  "all-reduces start during the backward pass (DDP bucket_cap_mb, "
				  "FSDP prefetch), issue collectives asynchronously on their own "
				  "stream; exposed time also holds the waits for late ranks"));
	}
	if (rc == GS_OK && ja->slow_steps.steps &&
	    significant(ja->slow_steps.extra, ja->slow_steps.total)) {
		const struct ja_slow_steps *x = &ja->slow_steps;
		uint32_t rank = rank_of(ja, x->ri)->rank;

		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_MEASURED,
					      .advice = "look_at_rank"};
		gs_finding_num(&fd, "rank", rank);
		gs_finding_num(&fd, "steps_count", (double)x->steps);
		gs_finding_num(&fd, "of_count", (double)x->of);
		gs_finding_num(&fd, "extra_ns", (double)x->extra);
		gs_finding_num(&fd, "median_steps_ns", (double)x->total);
		rc = add_finding(
			ja, &cap, "slow_steps", x->extra, &fd,
			ja_printf("rank %u had the longest step in %zu of the %zu analysed steps "
				  "the ranks share, %s in all beyond the median rank's step time "
				  "(%s of the median steps' %s)%s",
				  rank, x->steps, x->of, DUR(x->extra), PCT(x->extra, x->total),
				  DUR(x->total), PARTIAL()),
			ja_printf("a synchronous job runs at its slowest rank's pace: look at rank "
				  "%u's Steps table (the largest cause of each step's gap) and at "
				  "what differs on it (its share of the data, a slower host or "
				  "GPU, host-side jitter)",
				  rank));
	}
	if (rc == GS_OK && ja->n_mm) {
		fd = (struct gs_finding_data){.evidence = GS_EVIDENCE_NONE,
					      .advice = "record_the_same_steps"};
		gs_finding_num(&fd, "communicators_count", (double)ja->n_mm);
		rc = add_finding(
			ja, &cap, "mismatch", 0, &fd,
			ja_printf("%zu communicator%s do%s not line up across ranks; %s%s",
				  ja->n_mm, ja->n_mm == 1 ? "" : "s", ja->n_mm == 1 ? "es" : "",
				  ja->mm[0].text,
				  ja->n_mm > 1 ? " (and more: see Mismatches)" : ""),
			ja_printf("the traces cover different steps or code paths: record every "
				  "rank over the same iterations (one profiler schedule), or look "
				  "for a rank that took another path"));
	}
	if (ja->n_findings)
		qsort(ja->findings, ja->n_findings, sizeof(*ja->findings), cmp_finding);
	return rc;
}
