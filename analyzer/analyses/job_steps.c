/* SPDX-License-Identifier: MIT */
/*
 * Steps across the ranks of a job: each rank's steps (its report's, with
 * the figures of each) matched by number (docs/design.md, "Steps").
 *
 * Per step number, over the ranks that ran it with GPU work: the min,
 * median (lower middle) and max of the ranks' step times (each rank's GPU
 * window of the step, on its own clock: no alignment enters these), with
 * the rank of each (ties: the lowest rank); the step is analysed when
 * every one of those ranks analysed it. On the clock group's aligned
 * clock, when the ranks share a group and no clock of theirs is without
 * evidence: the job's span of the step (first GPU start to last end over
 * the ranks) with the clocks' error, and the rank that ended last with
 * how long after the median rank's end. The slowest rank's largest cause
 * of its gap and the lowest efficiency come from the ranks' own figures.
 *
 * Over the analysed steps two or more ranks ran: the rank with the
 * longest step most often (strictly longer than the median rank's), when
 * that is more than half of them, with its time beyond the median rank's.
 * O(E log E) for E (rank, step) pairs.
 */
#include "job_priv.h"

#include <gpuscope/sort.h>

#include <math.h>
#include <stdlib.h>

/* A step of a rank, sorted by number (stable: ranks in order). */
struct at_key {
	uint64_t number;
	struct gs_job_step_at at;
};

/* A rank's time in one step, sorted by time (stable: ranks in order). */
struct dur_key {
	int64_t ns;
	size_t ri;
};

static const struct gs_js_step *step_of(const struct gs_job_analysis *ja,
					const struct gs_job_step_at *a)
{
	return &ja->sums[a->ri]->steps[a->si];
}

static bool has_work(const struct gs_js_step *s)
{
	return s->end_ns > s->start_ns;
}

/* The span of step x on the common clock, when its ranks share one;
 * ends: room for x->ranks. */
static void step_span(struct gs_job_analysis *ja, struct gs_job_step *x, int64_t *ends)
{
	const struct gs_job_step_at *at = &ja->step_at[x->first];
	int64_t lo = INT64_MAX, hi = INT64_MIN, err = 0;
	uint32_t group = ja->sums[at[0].ri]->clock_group;

	for (size_t i = 0; i < x->ranks; i++) {
		const struct gs_js_step *s = step_of(ja, &at[i]);
		int64_t shift = job_shift(ja, at[i].ri), e = job_clock_err(ja, at[i].ri);

		if (ja->sums[at[i].ri]->clock_group != group || e >= JOB_CLOCK_UNKNOWN)
			return;
		if (e > err)
			err = e;
		ends[i] = s->end_ns + shift;
		if (s->start_ns + shift < lo)
			lo = s->start_ns + shift;
		if (ends[i] > hi) {
			hi = ends[i];
			x->last_ri = at[i].ri;
		}
	}
	x->span_known = true;
	x->span_ns = hi - lo;
	/* Two clocks compared: each end or start may be off by its error. */
	x->span_err = x->ranks > 1 ? 2 * err : 0;
	gs_sort_by_i64(ends, x->ranks, sizeof(*ends));
	x->last_ns = hi - ends[(x->ranks - 1) / 2];
}

/* The figures of step x from its ranks' entries; dur and ends: room for
 * x->ranks. */
static void step_figures(struct gs_job_analysis *ja, struct gs_job_step *x, struct dur_key *dur,
			 int64_t *ends)
{
	const struct gs_job_step_at *at = &ja->step_at[x->first];

	x->analysed = true;
	x->eff_min = NAN;
	x->cause = GS_GAP_CAUSE_COUNT;
	for (size_t i = 0; i < x->ranks; i++) {
		const struct gs_js_step *s = step_of(ja, &at[i]);

		dur[i] = (struct dur_key){s->end_ns - s->start_ns, at[i].ri};
		x->analysed = x->analysed && s->selected;
		x->partial = x->partial || s->partial;
		if (s->has_figures && isfinite(s->efficiency) &&
		    (!isfinite(x->eff_min) || s->efficiency < x->eff_min)) {
			x->eff_min = s->efficiency;
			x->eff_ri = at[i].ri;
		}
	}
	gs_sort_by_i64(dur, x->ranks, sizeof(*dur));
	for (int k = 0; k < 3; k++) {
		size_t p = k == 0 ? 0 : k == 1 ? (x->ranks - 1) / 2 : x->ranks - 1;

		x->v[k] = dur[p].ns;
		x->ri[k] = dur[p].ri;
	}
	/* Ties of the max go to the lowest rank, as the others. */
	for (size_t p = x->ranks - 1; p > 0 && dur[p - 1].ns == x->v[2]; p--)
		x->ri[2] = dur[p - 1].ri;
	x->slow = x->ranks > 1 && x->v[2] * 5 > x->v[1] * 6;
	for (size_t i = 0; i < x->ranks; i++) {
		const struct gs_js_step *s = step_of(ja, &at[i]);

		if (at[i].ri == x->ri[2] && s->has_figures) {
			x->cause = s->gap_cause;
			x->cause_ns = s->gap_cause_ns;
		}
	}
	step_span(ja, x, ends);
}

/* The rank slowest most often over the analysed steps of two or more. */
static gs_status slow_steps(struct gs_job_analysis *ja)
{
	size_t *count = calloc(ja->n_sums ? ja->n_sums : 1, sizeof(*count));
	int64_t *extra = calloc(ja->n_sums ? ja->n_sums : 1, sizeof(*extra));
	struct gs_job_slow_steps *w = &ja->slow_steps;

	if (!count || !extra) {
		free(count);
		free(extra);
		return gs_nomem();
	}
	for (size_t i = 0; i < ja->n_steps; i++) {
		const struct gs_job_step *x = &ja->steps[i];

		if (!x->analysed || x->ranks < 2)
			continue;
		w->of++;
		w->total += x->v[1];
		if (x->v[2] > x->v[1]) {
			count[x->ri[2]]++;
			extra[x->ri[2]] += x->v[2] - x->v[1];
		}
	}
	for (size_t ri = 0; ri < ja->n_sums; ri++)
		if (count[ri] > w->steps || (count[ri] == w->steps && extra[ri] > w->extra)) {
			w->ri = ri;
			w->steps = count[ri];
			w->extra = extra[ri];
		}
	if (w->of < 2 || w->steps * 2 <= w->of)
		w->steps = 0;
	free(count);
	free(extra);
	return GS_OK;
}

gs_status job_steps_make(struct gs_job_analysis *ja)
{
	struct at_key *keys;
	struct dur_key *dur = NULL;
	int64_t *ends = NULL;
	size_t n = 0, groups = 0, most = 0;
	gs_status rc;

	for (size_t ri = 0; ri < ja->n_sums; ri++) {
		n += ja->sums[ri]->n_steps;
		ja->step_ranks += ja->sums[ri]->n_steps > 0;
	}
	if (!n)
		return GS_OK;
	keys = malloc(n * sizeof(*keys));
	if (!keys)
		return gs_nomem();
	n = 0;
	for (size_t ri = 0; ri < ja->n_sums; ri++)
		for (size_t si = 0; si < ja->sums[ri]->n_steps; si++)
			if (has_work(&ja->sums[ri]->steps[si]))
				keys[n++] = (struct at_key){ja->sums[ri]->steps[si].number,
							    {(uint32_t)ri, (uint32_t)si}};
	gs_sort_by_u64(keys, n, sizeof(*keys));
	ja->step_at = malloc((n ? n : 1) * sizeof(*ja->step_at));
	ja->steps = calloc(n ? n : 1, sizeof(*ja->steps));
	if (!ja->step_at || !ja->steps) {
		free(keys);
		return gs_nomem();
	}
	for (size_t i = 0; i < n; i++) {
		struct gs_job_step *x = groups ? &ja->steps[groups - 1] : NULL;

		if (!x || keys[i].number != x->number) {
			x = &ja->steps[groups++];
			x->number = keys[i].number;
			x->first = ja->n_step_at;
		} else if (ja->step_at[ja->n_step_at - 1].ri == keys[i].at.ri) {
			continue; /* a number a rank's markers repeat: its first */
		}
		ja->step_at[ja->n_step_at++] = keys[i].at;
		x->ranks++;
		if (x->ranks > most)
			most = x->ranks;
	}
	free(keys);
	ja->n_steps = groups;
	if (most) {
		dur = malloc(most * sizeof(*dur));
		ends = malloc(most * sizeof(*ends));
	}
	if (most && (!dur || !ends)) {
		free(dur);
		free(ends);
		return gs_nomem();
	}
	for (size_t i = 0; i < ja->n_steps; i++)
		step_figures(ja, &ja->steps[i], dur, ends);
	free(dur);
	free(ends);
	rc = slow_steps(ja);
	return rc;
}
