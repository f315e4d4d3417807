/* SPDX-License-Identifier: MIT */
/*
 * The accessors of gpuscope/results.h: a built report's sections, read
 * through its private layout (report_priv.h), so that a program outside
 * the library needs neither.
 */
#include "report_priv.h"

#include <gpuscope/results.h>

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
