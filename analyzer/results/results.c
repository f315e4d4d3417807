/* SPDX-License-Identifier: MIT */
/*
 * The accessors of gpuscope/results.h: a built report's sections, read
 * through its private layout (report_model_priv.h), so that a program outside
 * the library needs neither.
 */
#include "report_model_priv.h"

#include <gpuscope/import.h>
#include <gpuscope/job_results.h>
#include <gpuscope/report_parts.h>
#include <gpuscope/report_phrases.h>
#include <gpuscope/results.h>

#include <math.h>

size_t gs_results_input_count(const struct gs_report *r)
{
	return r ? r->n_inputs : 0;
}

const char *gs_results_input(const struct gs_report *r, size_t i)
{
	return r && i < r->n_inputs ? r->inputs[i] : NULL;
}

const char *gs_results_format(const struct gs_report *r)
{
	return r && r->format ? r->format : "";
}

const struct gs_job *gs_results_job(const struct gs_report *r)
{
	return r ? r->job : NULL;
}

const struct gs_job_analysis *gs_results_job_analysis(const struct gs_report *r)
{
	return r && r->job ? r->ja : NULL;
}

bool gs_results_window(const struct gs_report *r, struct gs_window *out)
{
	if (!r || !r->window_set)
		return false;
	*out = r->window;
	return true;
}

size_t gs_results_rows(const struct gs_report *r)
{
	return r ? r->rows : 0;
}

int64_t gs_results_graph_node_ns(const struct gs_report *r)
{
	return r ? r->graph_node_ns : 0;
}

size_t gs_results_mpi_processes(const struct gs_report *r)
{
	return r ? r->mpi_processes : 0;
}

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
	out->rank_declared = rank->rank_declared;
	out->clock_group = rank->clock_group;
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

const struct gs_graph *gs_results_graph(const struct gs_report *rank)
{
	return rank && !rank->job ? rank->g : NULL;
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

const struct gs_wait *gs_results_device_wait(const struct gs_report *rank,
					     const struct gs_report_device *d, size_t i)
{
	if (!rank || rank->job || !d || i >= d->n_waits || d->waits[i] >= rank->n_waits)
		return NULL;
	return &rank->waits[d->waits[i]];
}

size_t gs_results_wait_count(const struct gs_report *rank)
{
	return rank && !rank->job ? rank->reported_wait_count : 0;
}

int64_t gs_results_wait_ns(const struct gs_report *rank)
{
	return rank && !rank->job ? rank->reported_wait_ns : 0;
}

/* ---- the ranks of a job's report, held or summarised ---- */

/* The summaries of a job's report that holds no rank of its own (a
 * shell); NULL when it holds its ranks, or has no job analysis. */
static const struct gs_js_rank *const *job_sums(const struct gs_report *job, size_t *n)
{
	*n = 0;
	if (!job || !job->job || job->n_ranks || !job->ja)
		return NULL;
	return gs_job_analysis_ranks(job->ja, n);
}

size_t gs_results_job_rank_count(const struct gs_report *job)
{
	size_t n;

	if (job && job->job && job->n_ranks)
		return job->n_ranks;
	job_sums(job, &n);
	return n;
}

bool gs_results_job_rank(const struct gs_report *job, size_t i, struct gs_results_job_rank *out)
{
	size_t n;
	const struct gs_js_rank *const *sums = job_sums(job, &n);

	*out = (struct gs_results_job_rank){.host = ""};
	if (sums) {
		if (i >= n)
			return false;
		*out = (struct gs_results_job_rank){
			.rank = sums[i]->rank,
			.host = gs_js_str(sums[i], sums[i]->host),
			.ops = sums[i]->ops,
			.dropped_records = sums[i]->dropped,
			.streams = sums[i]->streams,
			.gpus = (size_t)sums[i]->n_gpus,
		};
		return true;
	}
	if (!job || !job->job || i >= job->n_ranks)
		return false;
	const struct gs_report *r = job->ranks[i];
	size_t n_ops, n_streams;

	gs_trace_ops(r->t, &n_ops);
	gs_trace_streams(r->t, &n_streams);
	*out = (struct gs_results_job_rank){
		.rank = r->rank,
		.host = r->host ? r->host : "",
		.ops = n_ops,
		.dropped_records = gs_trace_dropped(r->t),
		.streams = n_streams,
		.gpus = r->n_dev,
	};
	return true;
}

void gs_report_job_rank_html_load(const struct gs_report *job, size_t i, uint64_t *ops,
				  uint64_t *lanes)
{
	size_t n;
	const struct gs_js_rank *const *sums = job_sums(job, &n);

	*ops = *lanes = 0;
	if (sums) {
		if (i < n) {
			*ops = sums[i]->html_ops;
			*lanes = sums[i]->html_lanes;
		}
		return;
	}
	if (job && job->job && i < job->n_ranks)
		gs_report_html_rank_load(job->ranks[i], ops, lanes);
}

uint32_t gs_results_job_rank_device(const struct gs_report *job, size_t i, size_t k)
{
	size_t n;
	const struct gs_js_rank *const *sums = job_sums(job, &n);

	if (sums)
		return i < n && k < sums[i]->n_gpus ? sums[i]->gpus[k].device : UINT32_MAX;
	if (!job || !job->job || i >= job->n_ranks || k >= job->ranks[i]->n_dev)
		return UINT32_MAX;
	return job->ranks[i]->dev[k].device;
}

void gs_results_job_rank_notes(const struct gs_report *job, size_t i,
			       void (*fn)(void *ctx, const char *label, const char *text),
			       void *ctx)
{
	static const char *const labels[3] = {"caution", "warning", "note"};
	size_t n;
	const struct gs_js_rank *const *sums = job_sums(job, &n);

	if (sums) {
		for (size_t k = 0; i < n && k < sums[i]->n_notes; k++)
			fn(ctx, labels[sums[i]->notes[k].label % 3],
			   gs_js_str(sums[i], sums[i]->notes[k].text));
		return;
	}
	if (job && job->job && i < job->n_ranks)
		gs_report_notes(job->ranks[i], fn, ctx);
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
