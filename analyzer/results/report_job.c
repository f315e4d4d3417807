/* SPDX-License-Identifier: MIT */
/*
 * The analyze report of a job: one report per rank (report.c builds
 * each), the ranks picked from --rank and --device, the window checked
 * against each clock group, ranks built on up to GS_POOL_MAX_THREADS
 * threads, and the device titles the writers show.
 */
#include <gpuscope/report_phrases.h>
#include "analyzer_priv.h"
#include "gate_priv.h"
#include "job_sum.h"
#include "report_build_priv.h"
#include "schedule_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/import.h>
#include <gpuscope/job.h>
#include <gpuscope/job_results.h>
#include <gpuscope/job_summary.h>
#include <gpuscope/report.h>
#include <gpuscope/results.h>
#include <gpuscope/text.h>
#include <gpuscope/trace.h>
#include <gpuscope/window.h>
#include <gpuscope/workers.h>

/* ------------------------------------------------------------------------ */
/* The report of a job: one report per rank                                   */
/* ------------------------------------------------------------------------ */

const char *gs_report_device_title(const struct gs_report *r, const struct gs_report_device *d,
				   char *buf, size_t size)
{
	int n;

	if (!r->in_job) {
		snprintf(buf, size, "device %u%s%s", d->device, *d->name ? ": " : "", d->name);
		return buf;
	}
	n = snprintf(buf, size, "rank %u", r->rank);
	if (*r->host && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " \u00b7 %s", r->host);
	if (r->pid >= 0 && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " \u00b7 pid %lld", (long long)r->pid);
	if (n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " \u00b7 GPU %u%s%s", d->device,
			 *d->name ? " " : "", d->name);
	return buf;
}

/* Does rank `k` have GPU ops on device `dev`? */
static bool rank_has_device(const struct gs_job_rank *k, uint32_t dev)
{
	uint32_t *ids = NULL;
	size_t n = 0;
	bool has = false;

	if (gs_trace_op_devices(k->trace, &ids, &n) != GS_OK)
		return false;
	for (size_t i = 0; i < n; i++)
		has |= ids[i] == dev;
	free(ids);
	return has;
}

/* The ranks to report (a bitmap over j->ranks), from --rank and --device. */
static gs_status pick_ranks(const struct gs_job *j, const struct gs_report_options *o, bool *pick)
{
	size_t hits = 0, i;
	char list[160] = "";
	size_t len = 0;

	for (i = 0; i < j->n_ranks; i++) {
		pick[i] = !o->has_rank || j->ranks[i].rank == o->rank;
		hits += pick[i];
	}
	if (o->has_rank && !hits) {
		for (i = 0; i < j->n_ranks && len + 16 < sizeof(list); i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
						i ? ", " : "", j->ranks[i].rank);
		gs_error_append("rank %u is not in the job (ranks: %s)", o->rank, list);
		return GS_ERR_INVALID;
	}
	if (!o->has_device || o->has_rank || j->n_ranks < 2)
		return GS_OK;
	/* --device N alone in a job: the one rank that has device N. */
	hits = 0;
	for (i = 0; i < j->n_ranks; i++) {
		pick[i] = rank_has_device(&j->ranks[i], o->device);
		if (pick[i]) {
			if (len + 16 < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
							hits ? ", " : "", j->ranks[i].rank);
			hits++;
		}
	}
	if (hits == 1)
		return GS_OK;
	if (!hits)
		gs_error_append("device %u has no GPU ops on any rank of the job", o->device);
	else
		gs_error_append("device %u is on %zu ranks (%s): say which with --device R:%u "
				"or --rank R",
				o->device, hits, list, o->device);
	return GS_ERR_INVALID;
}

/* The first op start of the ranks of one clock group. */
static int64_t group_first(const struct gs_job *j, uint32_t group)
{
	int64_t first = 0;
	bool any = false;

	for (size_t i = 0; i < j->n_ranks; i++) {
		const struct gs_job_rank *k = &j->ranks[i];

		if (k->clock_group != group || (k->first_ns == 0 && k->last_ns == 0))
			continue;
		if (!any || k->first_ns < first)
			first = k->first_ns;
		any = true;
	}
	return first;
}

/*
 * A window that overlaps no op of the picked ranks (their op spans, first
 * start to last end, as the job read them) selects nothing: an error that
 * names the span, as offsets from the first op of each rank's clock group
 * (what --window +T0:+T1 takes), and in ns too for an absolute window.
 * Decided from the job alone, so every process of gpuscope-mpi decides the
 * same.
 */
static gs_status check_window(const struct gs_job *j, const struct gs_report_options *o,
			      const bool *pick)
{
	int64_t lo = 0, hi = 0, abs_lo = 0, abs_hi = 0;
	size_t spans = 0;
	uint64_t unit;
	char a[GS_DUR_TEXT_MAX], b[GS_DUR_TEXT_MAX], name[96];

	if (!o->window.set)
		return GS_OK;
	for (size_t i = 0; i < j->n_ranks; i++) {
		const struct gs_job_rank *k = &j->ranks[i];
		int64_t first = group_first(j, k->clock_group), w0, w1;

		if (!pick[i] || (k->first_ns == 0 && k->last_ns == 0))
			continue;
		w0 = o->window.start_ns;
		w1 = o->window.end_ns;
		if (o->window_relative) {
			if (w0 > INT64_MAX - first || w1 > INT64_MAX - first)
				return GS_OK; /* build_rank says so */
			w0 += first;
			w1 += first;
		}
		if (k->first_ns < w1 && (k->last_ns > w0 || k->first_ns >= w0))
			return GS_OK; /* it selects an op */
		if (!spans || k->first_ns - first < lo)
			lo = k->first_ns - first;
		if (!spans || k->last_ns - first > hi)
			hi = k->last_ns - first;
		if (!spans || k->first_ns < abs_lo)
			abs_lo = k->first_ns;
		if (!spans || k->last_ns > abs_hi)
			abs_hi = k->last_ns;
		spans++;
	}
	if (!spans)
		return GS_OK; /* no ops at all: the report says so */
	unit = gs_dur_unit(gs_report_mag(lo) > gs_report_mag(hi) ? gs_report_mag(lo) :
								   gs_report_mag(hi));
	if (o->window_text)
		snprintf(name, sizeof(name), "%s", o->window_text);
	else
		snprintf(name, sizeof(name), "window %s%lld:%s%lld ns",
			 o->window_relative ? "+" : "", (long long)o->window.start_ns,
			 o->window_relative ? "+" : "", (long long)o->window.end_ns);
	if (o->window_relative)
		gs_error_append("%s: the trace%s span%s %s%s .. %s%s", name, spans > 1 ? "s" : "",
				spans > 1 ? "" : "s", lo >= 0 ? "+" : "",
				gs_dur_text_in(a, sizeof(a), lo, unit, false), hi >= 0 ? "+" : "",
				gs_dur_text_in(b, sizeof(b), hi, unit, false));
	else
		gs_error_append("%s: the trace%s span%s %lld .. %lld ns (%s%s .. %s%s)", name,
				spans > 1 ? "s" : "", spans > 1 ? "" : "s", (long long)abs_lo,
				(long long)abs_hi, lo >= 0 ? "+" : "",
				gs_dur_text_in(a, sizeof(a), lo, unit, false), hi >= 0 ? "+" : "",
				gs_dur_text_in(b, sizeof(b), hi, unit, false));
	return GS_ERR_INVALID;
}

static gs_status build_rank(const struct gs_job *j, size_t i, const struct gs_report_options *o,
			    struct gs_report **out)
{
	const struct gs_job_rank *k = &j->ranks[i];
	struct gs_report_options ro = *o;
	struct gs_report *c = NULL;
	gs_status st;

	if (o->window.set && o->window_relative) {
		int64_t first = group_first(j, k->clock_group);

		if (o->window.start_ns > INT64_MAX - first ||
		    o->window.end_ns > INT64_MAX - first) {
			gs_error_append("window: offsets too large");
			return GS_ERR_INVALID;
		}
		ro.window.start_ns = first + o->window.start_ns;
		ro.window.end_ns = first + o->window.end_ns;
		ro.window_relative = false;
	}
	/* In a job of two or more ranks, a rank's report names its own input
	 * only (the job's report names them all): a copy of every input in
	 * every rank's report grew as the square of the ranks (1,024 ranks:
	 * a million paths). A job of one rank is that rank's report, with
	 * every input (two inputs can be one process). */
	if (j->n_ranks > 1) {
		ro.inputs = o->inputs && k->input < o->n_inputs ? &o->inputs[k->input] : NULL;
		ro.n_inputs = ro.inputs ? 1 : 0;
	}
	/* --device N picks the device inside the rank; without --rank in a
	 * job, only the rank that has it was picked. */
	st = gs_report_build(k->trace, &ro, &c);
	if (st != GS_OK) {
		if (j->n_ranks > 1)
			gs_error_append("rank %u", k->rank);
		return st;
	}
	c->rank = k->rank;
	c->rank_declared = k->rank_declared;
	c->pid = k->pid;
	c->host = k->host_name;
	c->input = "";
	if (o->inputs && k->input < o->n_inputs && o->inputs[k->input])
		c->input = c->inputs[j->n_ranks > 1 ? 0 : k->input];
	c->clock_group = k->clock_group;
	c->clock_domain = k->clock_domain;
	c->clock = k->clock;
	c->wall_offset_ns = k->wall_offset_ns;
	c->world_size = k->world_size;
	c->host_from_name = k->host_from_name;
	c->in_job = j->n_ranks > 1;
	*out = c;
	return GS_OK;
}

/*
 * The picked ranks' reports, on as many CPUs as the process may use (at
 * most GS_POOL_MAX_THREADS): each rank's report depends on its trace alone,
 * so the reports are the same whatever the threads. Threads take ranks in
 * order (gs_pool_run). On a failure the causes live on the thread that
 * failed: the first failing rank, in order, is built again on this thread
 * to report them.
 */
struct rank_jobs {
	const struct gs_job *j;
	const struct gs_report_options *o;
	const bool *pick;
	struct gs_report **out; /* per rank of the job */
};

static bool rank_wanted(const void *ctx, size_t i)
{
	const struct rank_jobs *rj = ctx;

	return rj->pick[i];
}

static gs_status rank_run(void *ctx, void *local, size_t i)
{
	struct rank_jobs *rj = ctx;

	(void)local;
	return build_rank(rj->j, i, rj->o, &rj->out[i]);
}

static gs_status build_ranks(const struct gs_job *j, const struct gs_report_options *o,
			     const bool *pick, struct gs_report *r)
{
	/* The ranks on threads share the CPUs: each builds its devices on
	 * its part of them (report.c, all_devices). */
	struct gs_report_options per = *o;
	struct rank_jobs rj = {.j = j, .o = &per, .pick = pick};
	struct gs_pool_job job = {.n = j->n_ranks,
				  .ctx = &rj,
				  .run = rank_run,
				  .wanted = rank_wanted};
	size_t nth = 0, cpus = o->threads ? o->threads : gs_cpu_count(), want = gs_cpu_count();
	size_t picked = 0, i;
	gs_status st = GS_OK, *rst;

	for (i = 0; i < j->n_ranks; i++)
		picked += pick[i];
	if (want > GS_POOL_MAX_THREADS)
		want = GS_POOL_MAX_THREADS;
	if (want > picked)
		want = picked;
	rj.out = calloc(j->n_ranks ? j->n_ranks : 1,
			sizeof(*rj.out)); /* NOLINT(bugprone-sizeof-expression): pointers */
	rst = calloc(j->n_ranks ? j->n_ranks : 1, sizeof(*rst));
	if (!rj.out || !rst) {
		free(rj.out);
		free(rst);
		return gs_nomem();
	}
	per.threads = want >= 2 && cpus / want > 1 ? (unsigned)(cpus / want) : 1;
	if (want >= 2)
		nth = gs_pool_run(&job, want, rst);
	for (i = 0; i < j->n_ranks; i++) {
		if (!pick[i])
			continue;
		if (!nth) /* one CPU, or no thread could start */
			rst[i] = build_rank(j, i, o, &rj.out[i]);
		else if (rst[i] != GS_OK && st == GS_OK)
			rst[i] = build_rank(j, i, o, &rj.out[i]); /* for its causes */
		if (rst[i] != GS_OK && st == GS_OK)
			st = rst[i];
		if (rj.out[i])
			r->ranks[r->n_ranks++] = rj.out[i];
	}
	free(rj.out);
	free(rst);
	return st;
}

/* A job whose traces hold no GPU op at all: a profile of the host only,
 * which has nothing to analyze; the cause says what to record. */
static gs_status check_gpu_ops(const struct gs_job *j)
{
	size_t n;

	for (size_t i = 0; i < j->n_ranks; i++) {
		gs_trace_ops(j->ranks[i].trace, &n);
		if (n)
			return GS_OK;
	}
	if (j->n_ranks > 1)
		gs_error_append("no GPU ops in any of its %zu processes: they record the host only "
				"(a CPU-only profile): record the GPU too (PyTorch profiler: "
				"activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]; Nsight "
				"Systems: nsys profile --trace=cuda)",
				j->n_ranks);
	else
		gs_error_append("no GPU ops: the trace records the host only (a CPU-only "
				"profile): record the GPU too (PyTorch profiler: "
				"activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]; Nsight "
				"Systems: nsys profile --trace=cuda)");
	return GS_ERR_INVALID;
}

static gs_status build_job(const struct gs_job *j, const struct gs_report_options *o,
			   const bool *own, struct gs_report **out)
{
	static const struct gs_report_options defaults = {.rows = 0};
	struct gs_report *r;
	bool *pick = NULL;
	gs_status st;

	if (out)
		*out = NULL;
	if (!j || !out) {
		gs_error_append("gs_report_build_job: no %s", j ? "output" : "job");
		return GS_ERR_INVALID;
	}
	if (!o)
		o = &defaults;
	/* gpuscope-mpi (own) holds the traces of its own ranks only. */
	if (!own && check_gpu_ops(j) != GS_OK)
		return GS_ERR_INVALID;
	r = calloc(1, sizeof(*r));
	if (!r)
		return gs_nomem();
	r->job = j;
	r->pid = -1;
	r->host = "";
	r->input = "";
	r->align = o->align;
	st = gs_report_copy_options(r, o);
	if (st == GS_OK && o->window.set) {
		r->window_set = true;
		r->window = o->window;
	}
	pick = calloc(j->n_ranks ? j->n_ranks : 1, sizeof(*pick));
	if (st == GS_OK && !pick)
		st = gs_nomem();
	if (st == GS_OK)
		st = pick_ranks(j, o, pick);
	if (st == GS_OK)
		st = check_window(j, o, pick);
	for (size_t i = 0; own && st == GS_OK && i < j->n_ranks; i++)
		pick[i] = pick[i] && own[i];
	if (st == GS_OK) {
		r->ranks = calloc(
			j->n_ranks ? j->n_ranks : 1,
			sizeof(*r->ranks)); /* NOLINT(bugprone-sizeof-expression): pointers */
		if (!r->ranks)
			st = gs_nomem();
	}
	if (st == GS_OK)
		st = build_ranks(j, o, pick, r);
	if (st == GS_OK && !own && j->n_ranks > 1 && !o->has_rank && !o->has_device)
		st = gs_job_analysis_build(r, &r->ja);
	free(pick);
	if (st != GS_OK) {
		gs_report_destroy(r);
		return st;
	}
	*out = r;
	return GS_OK;
}

gs_status gs_report_build_job(const struct gs_job *j, const struct gs_report_options *o,
			      struct gs_report **out)
{
	return build_job(j, o, NULL, out);
}

gs_status gs_report_build_job_own(const struct gs_job *j, const struct gs_report_options *o,
				  const bool *own, struct gs_report **out)
{
	return build_job(j, o, own, out);
}
