/* SPDX-License-Identifier: MIT */
/*
 * The accessors of gpuscope/results.h: a built report's sections, read
 * through its private layout (report_priv.h), so that a program outside
 * the library needs neither.
 */
#include "report_model_priv.h"

#include <gpuscope/job_results.h>
#include <gpuscope/results.h>

#include <math.h>

size_t gs_results_rank_count(const struct gs_report *r)
{
	if (!r)
		return 0;
	return r->job ? r->n_ranks : 1;
}

const struct gs_report *gs_results_rank(const struct gs_report *r, size_t i)
{
	if (!r)
		return NULL;
	if (!r->job)
		return i == 0 ? r : NULL;
	return i < r->n_ranks ? r->ranks[i] : NULL;
}

void gs_results_process(const struct gs_report *rank, struct gs_results_process *out)
{
	*out = (struct gs_results_process){.pid = -1, .host = "", .input = ""};
	if (!rank)
		return;
	out->rank = rank->rank;
	out->in_job = rank->in_job;
	out->pid = rank->pid;
	out->host = rank->host ? rank->host : "";
	out->input = rank->input ? rank->input : "";
}

const struct gs_trace *gs_results_trace(const struct gs_report *rank)
{
	return rank && !rank->job ? rank->t : NULL;
}

const struct gs_report_device *gs_results_devices(const struct gs_report *rank, size_t *n)
{
	if (!rank || rank->job) {
		*n = 0;
		return NULL;
	}
	*n = rank->n_dev;
	return rank->dev;
}

const struct gs_steps *gs_results_steps(const struct gs_report *rank)
{
	return rank && !rank->job ? &rank->steps : NULL;
}

bool gs_results_window_from_steps(const struct gs_report *rank)
{
	return rank && !rank->job && rank->window_from_steps;
}

size_t gs_results_wait_rows(const struct gs_report *rank)
{
	return rank && !rank->job ? rank->n_reported_waits : 0;
}

const struct gs_wait *gs_results_wait(const struct gs_report *rank, size_t i)
{
	if (!rank || rank->job || i >= rank->n_reported_waits)
		return NULL;
	return &rank->waits[rank->reported_waits[i]];
}

/* ---- the job analysis ---- */

size_t gs_results_communicator_count(const struct gs_report *job)
{
	const struct gs_job_analysis *ja = gs_job_results(job);

	return ja ? ja->n_comms : 0;
}

bool gs_results_communicator(const struct gs_report *job, size_t i,
			     struct gs_results_communicator *out)
{
	static const char *const keys[] = {"process_group", "kind", "point_to_point"};
	const struct gs_job_analysis *ja = gs_job_results(job);
	const struct gs_job_comm *c;
	int64_t m;

	if (!ja || i >= ja->n_comms)
		return false;
	c = &ja->comms[i];
	m = c->matched ? (int64_t)c->matched : 1;
	*out = (struct gs_results_communicator){
		.id = i,
		.name = c->label,
		.key = keys[c->key < 3 ? c->key : 0],
		.group = c->key == GS_JOB_KEY_GROUP ? c->group : NULL,
		.kind = c->key == GS_JOB_KEY_KIND ?
				gs_job_coll_kind_name((enum gs_job_coll_kind)c->kind) :
				NULL,
		.group_size = c->group_size,
		.clock_group = c->clock_group,
		.matched_by = gs_job_matched_by_name(c->matched_by),
		.ranks = c->n_m,
		.collectives = c->n_coll,
		.matched = c->matched,
		.no_overlap = c->no_overlap,
		.within_clock_error = c->within_error,
		.skew_mean_ns = c->matched ? c->skew_sum / m : 0,
		.skew_max_ns = c->skew_max,
		.wait_ns = c->wait_sum,
		.transfer_mean_ns = c->matched ? c->transfer_sum / m : 0,
		.busbw_mean_gbps = c->busbw_n ? c->busbw_sum / (double)c->busbw_n : NAN,
	};
	return true;
}

size_t gs_results_collective_count(const struct gs_report *job)
{
	const struct gs_job_analysis *ja = gs_job_results(job);

	return ja ? ja->n_by_skew : 0;
}

bool gs_results_collective(const struct gs_report *job, size_t i, struct gs_results_collective *out)
{
	const struct gs_job_analysis *ja = gs_job_results(job);
	const struct gs_job_coll *x;
	const struct gs_job_comm *c;

	if (!ja || i >= ja->n_by_skew)
		return false;
	x = &ja->coll[ja->by_skew[i]];
	c = &ja->comms[x->comm];
	*out = (struct gs_results_collective){
		.communicator = x->comm,
		.index = x->index,
		.name = x->name,
		.ranks = x->present,
		.skew_ns = x->skew,
		.compared = x->state == GS_JOB_COMPARED,
		.within_clock_error = x->state == GS_JOB_WITHIN_ERROR,
		.last_rank =
			x->state == GS_JOB_COMPARED ? gs_job_rank(ja, c->m[x->last_m].ri)->rank : 0,
		.clock_error_ns = x->clock_err,
		.transfer_ns = x->transfer,
		.bytes = x->bytes,
		.algbw_gbps = x->algbw,
		.busbw_gbps = x->busbw,
	};
	return true;
}

size_t gs_results_job_step_count(const struct gs_report *job)
{
	const struct gs_job_analysis *ja = gs_job_results(job);

	return ja ? ja->n_steps : 0;
}

bool gs_results_job_step(const struct gs_report *job, size_t i, struct gs_results_job_step *out)
{
	const struct gs_job_analysis *ja = gs_job_results(job);
	const struct gs_job_step *x;

	if (!ja || i >= ja->n_steps)
		return false;
	x = &ja->steps[i];
	*out = (struct gs_results_job_step){
		.number = x->number,
		.ranks = x->ranks,
		.analysed = x->analysed,
		.partial = x->partial,
		.min_ns = x->v[0],
		.median_ns = x->v[1],
		.max_ns = x->v[2],
		.min_rank = gs_job_rank(ja, x->ri[0])->rank,
		.median_rank = gs_job_rank(ja, x->ri[1])->rank,
		.max_rank = gs_job_rank(ja, x->ri[2])->rank,
		.slow = x->slow,
		.span_known = x->span_known,
		.span_ns = x->span_known ? x->span_ns : 0,
		.span_error_ns = x->span_known ? x->span_err : 0,
		.last_rank = x->span_known ? gs_job_rank(ja, x->last_ri)->rank : 0,
		.last_after_median_ns = x->span_known ? x->last_ns : 0,
		.slowest_gap_cause = x->cause < GS_GAP_CAUSE_COUNT ? gs_gap_cause_name(x->cause) :
								     NULL,
		.slowest_gap_cause_ns = x->cause < GS_GAP_CAUSE_COUNT ? x->cause_ns : 0,
		.efficiency_min = x->eff_min,
		.efficiency_min_rank = isfinite(x->eff_min) ? gs_job_rank(ja, x->eff_ri)->rank : 0,
	};
	return true;
}
