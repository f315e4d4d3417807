/* SPDX-License-Identifier: MIT */
/*
 * The job analysis in the JSON report (gs_job_analysis_write_json).
 */
#include "job_view.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuscope/json.h>
#include <gpuscope/names.h>
#include <gpuscope/outbuf.h>

static void job_json_frac_or_null(struct gs_json *w, const char *key, double v)
{
	if (isfinite(v))
		gs_json_fixed(w, key, v);
	else
		gs_json_null(w, key);
}

static void job_json_metric(struct gs_json *w, const char *key, enum gs_job_metric m, double v)
{
	if (job_metric_info[m].ns)
		gs_json_i64(w, key, (int64_t)v);
	else
		job_json_frac_or_null(w, key, v);
}

/* Every GPU's row; `why` per GPU (job_view's): its outlier's `by`, else
 * UINT_MAX. */
static void json_ranks(struct gs_json *w, const struct gs_job_analysis *ja, const unsigned *why)
{
	gs_json_arr(w, "ranks");
	for (size_t i = 0; i < ja->n_gpus; i++) {
		const struct gs_job_gpu *g = &ja->gpus[i];
		const struct gs_js_gpu *d = g->d;

		gs_json_row(w, NULL);
		gs_json_u64(w, "rank", g->r->rank);
		if (*gs_js_str(g->r, g->r->host))
			gs_json_str(w, "host", gs_js_str(g->r, g->r->host));
		else
			gs_json_null(w, "host");
		if (g->r->pid >= 0)
			gs_json_i64(w, "pid", g->r->pid);
		else
			gs_json_null(w, "pid");
		gs_json_u64(w, "device", d->device);
		gs_json_u64(w, "clock_group", g->r->clock_group);
		gs_json_i64(w, "window_ns", d->window_ns);
		gs_json_i64(w, "kernel_ns", d->total_ns[GS_CAT_KERNEL]);
		gs_json_i64(w, "copy_ns", d->total_ns[GS_CAT_COPY]);
		gs_json_i64(w, "sync_ns", d->total_ns[GS_CAT_SYNC]);
		gs_json_i64(w, "idle_ns", d->total_ns[GS_CAT_IDLE]);
		job_json_frac_or_null(w, "efficiency", gs_job_metric_value(g, GS_JOB_METRIC_EFF));
		gs_json_u64(w, "comm_kernels", d->comm_kernels);
		gs_json_i64(w, "comm_ns", d->comm_ns);
		gs_json_i64(w, "comm_union_ns", d->comm_union_ns);
		gs_json_i64(w, "comm_exposed_ns", d->comm_exposed_ns);
		job_json_frac_or_null(w, "overlap", g->overlap);
		gs_json_bool(w, "outlier", why[i] != UINT_MAX);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

/* Every outlier, in the order of choice (the text and HTML show the first
 * --ranks of them). */
static void json_outliers(struct gs_json *w, const struct gs_job_analysis *ja,
			  const struct job_view *v)
{
	gs_json_arr(w, "outliers");
	for (size_t i = 0; i < v->n_outs; i++) {
		const struct job_outlier *x = &v->outs[i];
		const struct gs_job_gpu *g = &ja->gpus[x->gpu];

		gs_json_row(w, NULL);
		gs_json_u64(w, "rank", g->r->rank);
		gs_json_u64(w, "device", g->d->device);
		gs_json_str(w, "by",
			    x->by == OUTLIER_STRAGGLER ? "straggler" : job_metric_info[x->by].key);
		if (x->by == OUTLIER_STRAGGLER)
			gs_json_null(w, "score");
		else
			gs_json_fixed(w, "score", x->score);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static void json_summary(struct gs_json *w, const struct gs_job_analysis *ja)
{
	static const char *const which[3] = {"min", "median", "max"};

	gs_json_obj(w, "summary");
	for (unsigned m = 0; m < GS_JOB_METRIC_COUNT; m++) {
		const struct gs_job_stat *s = &ja->stat[m];

		gs_json_row(w, job_metric_info[m].key);
		gs_json_u64(w, "count", s->count);
		for (int k = 0; k < 3; k++) {
			char key[32];

			if (!s->count) {
				gs_json_null(w, which[k]);
				snprintf(key, sizeof(key), "%s_rank", which[k]);
				gs_json_null(w, key);
				snprintf(key, sizeof(key), "%s_device", which[k]);
				gs_json_null(w, key);
				continue;
			}
			job_json_metric(w, which[k], (enum gs_job_metric)m, s->v[k]);
			snprintf(key, sizeof(key), "%s_rank", which[k]);
			gs_json_u64(w, key, ja->gpus[s->gpu[k]].r->rank);
			snprintf(key, sizeof(key), "%s_device", which[k]);
			gs_json_u64(w, key, ja->gpus[s->gpu[k]].d->device);
		}
		gs_json_end_obj(w);
	}
	gs_json_end_obj(w);
}

static void json_communicators(struct gs_json *w, const struct gs_job_analysis *ja)
{
	static const char *const keys[] = {"process_group", "kind", "point_to_point"};

	gs_json_arr(w, "communicators");
	for (size_t i = 0; i < ja->n_comms; i++) {
		const struct gs_job_comm *c = &ja->comms[i];
		int64_t m = c->matched ? (int64_t)c->matched : 1;

		gs_json_row(w, NULL);
		gs_json_u64(w, "id", i);
		gs_json_str(w, "name", c->label);
		gs_json_str(w, "key", keys[c->key < 3 ? c->key : 0]);
		if (c->key == GS_JOB_KEY_GROUP)
			gs_json_str(w, "group", c->group);
		else
			gs_json_null(w, "group");
		if (c->key == GS_JOB_KEY_KIND)
			gs_json_str(w, "kind",
				    gs_job_coll_kind_name((enum gs_job_coll_kind)c->kind));
		else
			gs_json_null(w, "kind");
		if (c->group_size)
			gs_json_u64(w, "group_size", c->group_size);
		else
			gs_json_null(w, "group_size");
		gs_json_u64(w, "clock_group", c->clock_group);
		gs_json_str(w, "matched_by", gs_job_matched_by_name(c->matched_by));
		gs_json_arr_inline(w, "ranks");
		for (size_t k = 0; k < c->n_m; k++)
			gs_json_u64(w, NULL, gs_job_rank(ja, c->m[k].ri)->rank);
		gs_json_end_arr(w);
		gs_json_arr_inline(w, "counts");
		for (size_t k = 0; k < c->n_m; k++)
			gs_json_u64(w, NULL, c->m[k].n);
		gs_json_end_arr(w);
		gs_json_arr_inline(w, "unmatched");
		for (size_t k = 0; k < c->n_m; k++)
			gs_json_u64(w, NULL, c->m[k].extra);
		gs_json_end_arr(w);
		gs_json_u64(w, "collectives", c->n_coll);
		gs_json_u64(w, "matched", c->matched);
		gs_json_u64(w, "no_overlap", c->no_overlap);
		gs_json_u64(w, "within_clock_error", c->within_error);
		gs_json_i64(w, "skew_mean_ns", c->matched ? c->skew_sum / m : 0);
		gs_json_i64(w, "skew_max_ns", c->skew_max);
		gs_json_i64(w, "wait_ns", c->wait_sum);
		gs_json_i64(w, "transfer_mean_ns", c->matched ? c->transfer_sum / m : 0);
		job_json_frac_or_null(w, "busbw_mean_gbps",
				      c->busbw_n ? c->busbw_sum / (double)c->busbw_n : NAN);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static void json_collectives(struct gs_json *w, const struct gs_job_analysis *ja)
{
	size_t n = 0, entries = 0;

	/* The largest skews first: JSON_COLLECTIVES at most, fewer when their
	 * per-rank rows would pass JSON_RANK_ROWS (a job of many ranks). */
	while (n < ja->n_by_skew && n < JSON_COLLECTIVES) {
		size_t m = ja->coll[ja->by_skew[n]].present;

		if (n && entries + m > JSON_RANK_ROWS)
			break;
		entries += m;
		n++;
	}
	gs_json_u64(w, "collectives_total", ja->n_by_skew);
	gs_json_u64(w, "collectives_listed", n);
	gs_json_arr(w, "collectives");
	for (size_t i = 0; i < n; i++) {
		const struct gs_job_coll *x = &ja->coll[ja->by_skew[i]];
		const struct gs_job_comm *c = &ja->comms[x->comm];

		gs_json_row(w, NULL);
		gs_json_u64(w, "communicator", x->comm);
		gs_json_u64(w, "index", x->index);
		gs_json_str(w, "name", x->name);
		gs_json_arr_inline(w, "ranks");
		for (size_t k = 0; k < x->present; k++) {
			const struct gs_job_member *m = gs_job_coll_member(ja, x, k);
			int64_t a = gs_job_coll_kernel(ja, x, k)->start_ns + m->shift;

			gs_json_row(w, NULL);
			gs_json_u64(w, "rank", gs_job_rank(ja, m->ri)->rank);
			gs_json_i64(w, "arrival_ns", a - m->shift);
			gs_json_i64(w, "clock_shift_ns", m->shift);
			gs_json_i64(w, "wait_ns", x->state == GS_JOB_COMPARED ? x->last - a : 0);
			gs_json_end_obj(w);
		}
		gs_json_end_arr(w);
		gs_json_i64(w, "skew_ns", x->skew);
		if (x->state == GS_JOB_COMPARED)
			gs_json_u64(w, "last_rank", gs_job_rank(ja, c->m[x->last_m].ri)->rank);
		else
			gs_json_null(w, "last_rank");
		gs_json_bool(w, "within_clock_error", x->state == GS_JOB_WITHIN_ERROR);
		gs_json_i64(w, "clock_error_ns", x->clock_err);
		gs_json_i64(w, "transfer_ns", x->transfer);
		if (x->bytes >= 0)
			gs_json_i64(w, "bytes", x->bytes);
		else
			gs_json_null(w, "bytes");
		job_json_frac_or_null(w, "algbw_gbps", x->algbw);
		job_json_frac_or_null(w, "busbw_gbps", x->busbw);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static void json_totals(struct gs_json *w, const struct gs_job_analysis *ja)
{
	gs_json_arr(w, "rank_totals");
	for (size_t i = 0; i < ja->n_totals; i++) {
		const struct gs_job_total *t = &ja->totals[i];

		gs_json_row(w, NULL);
		gs_json_u64(w, "rank", gs_job_rank(ja, t->ri)->rank);
		gs_json_u64(w, "collectives", t->collectives);
		gs_json_i64(w, "waited_ns", t->waited);
		gs_json_u64(w, "times_last", t->last);
		gs_json_u64(w, "with_skew", t->counted);
		gs_json_fixed(w, "expected_last", t->expected);
		gs_json_i64(w, "cost_ns", t->cost);
		gs_json_i64(w, "compute_before_ns", t->compute_before);
		gs_json_bool(w, "straggler", t->straggler);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	gs_json_arr(w, "stragglers");
	for (size_t i = 0; i < ja->n_stragglers; i++) {
		const struct gs_job_total *t = &ja->totals[ja->stragglers[i]];

		gs_json_row(w, NULL);
		gs_json_u64(w, "rank", gs_job_rank(ja, t->ri)->rank);
		gs_json_u64(w, "times_last", t->last);
		gs_json_u64(w, "collectives", t->counted);
		gs_json_fixed(w, "share", t->counted ? (double)t->last / (double)t->counted : 0);
		gs_json_i64(w, "cost_ns", t->cost);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static void json_mismatches(struct gs_json *w, const struct gs_job_analysis *ja)
{
	static const char *const kinds[GS_JOB_MM_KIND_COUNT] = {"count", "name", "ranks",
								"no_overlap", "unpaired"};

	gs_json_arr(w, "mismatches");
	for (size_t i = 0; i < ja->n_mm; i++) {
		const struct gs_job_mismatch *x = &ja->mm[i];
		const struct gs_job_comm *c = &ja->comms[x->comm];

		gs_json_row(w, NULL);
		gs_json_u64(w, "communicator", x->comm);
		gs_json_str(w, "kind", kinds[x->kind < GS_JOB_MM_KIND_COUNT ? x->kind : 0]);
		gs_json_arr_inline(w, "ranks");
		for (size_t k = 0; k < c->n_m; k++) {
			gs_json_row(w, NULL);
			gs_json_u64(w, "rank", gs_job_rank(ja, c->m[k].ri)->rank);
			gs_json_u64(w, "count", c->m[k].n);
			gs_json_u64(w, "unmatched", c->m[k].extra);
			gs_json_end_obj(w);
		}
		gs_json_end_arr(w);
		if (x->kind == GS_JOB_MM_RANKS)
			gs_json_u64(w, "group_size", c->group_size);
		if (x->kind == GS_JOB_MM_NAME || x->kind == GS_JOB_MM_NO_OVERLAP)
			gs_json_u64(w, "index", x->index);
		gs_json_u64(w, "count", x->count);
		gs_json_u64(w, "matched", c->matched);
		gs_json_str(w, "text", x->text);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static const char *dom_state_name(uint8_t s)
{
	static const char *const n[] = {"reference", "fitted", "no_evidence", "raw"};

	return s < 4 ? n[s] : "raw";
}

/* The clocks: per clock domain, its ranks, host, offset and residual. */
static void json_clocks(struct gs_json *w, const struct gs_job_analysis *ja)
{
	static const char *const align[] = {"auto", "collectives", "none"};

	gs_json_str(w, "align", align[ja->align < 3 ? ja->align : 0]);
	gs_json_arr(w, "clocks");
	for (size_t d = 0; d < ja->n_dom; d++) {
		const struct gs_job_domain *x = &ja->dom[d];
		const struct gs_js_rank *r = gs_job_rank(ja, x->first_ri);

		gs_json_row(w, NULL);
		gs_json_u64(w, "clock_group", x->group);
		if (*x->host)
			gs_json_str(w, "host", x->host);
		else
			gs_json_null(w, "host");
		gs_json_bool(w, "host_from_file_name", r->host_from_name);
		gs_json_arr_inline(w, "ranks");
		for (size_t ri = 0; ri < ja->n_sums; ri++)
			if (ja->rank_dom[ri] == d)
				gs_json_u64(w, NULL, gs_job_rank(ja, ri)->rank);
		gs_json_end_arr(w);
		gs_json_str(w, "wall_clock", gs_clock_source_name(x->clock));
		gs_json_i64(w, "wall_offset_ns", r->wall_offset_ns);
		gs_json_str(w, "alignment", dom_state_name(x->state));
		gs_json_i64(w, "offset_ns", x->offset);
		if (x->state == GS_JOB_DOM_FITTED) {
			gs_json_i64(w, "residual_ns", x->residual);
			gs_json_i64(w, "spread_max_ns", x->spread_max);
			gs_json_u64(w, "evidence_collectives", x->evidence);
			gs_json_u64(w, "outlier_collectives", x->outliers);
			gs_json_u64(w, "fitted_against_rank",
				    gs_job_rank(ja, ja->dom[x->via].first_ri)->rank);
		} else {
			gs_json_null(w, "residual_ns");
		}
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

/* The steps matched across ranks, each with every rank's time in it. */
static void json_steps(struct gs_json *w, const struct gs_job_analysis *ja)
{
	const struct gs_job_slow_steps *slow = &ja->slow_steps;

	gs_json_obj(w, "steps");
	gs_json_u64(w, "ranks_with_steps", ja->step_ranks);
	if (slow->steps) {
		gs_json_obj(w, "slowest_rank");
		gs_json_u64(w, "rank", gs_job_rank(ja, slow->ri)->rank);
		gs_json_u64(w, "steps", slow->steps);
		gs_json_u64(w, "of", slow->of);
		gs_json_i64(w, "extra_ns", slow->extra);
		gs_json_end_obj(w);
	} else {
		gs_json_null(w, "slowest_rank");
	}
	gs_json_arr(w, "by_number");
	for (size_t i = 0; i < ja->n_steps; i++) {
		const struct gs_job_step *x = &ja->steps[i];
		static const char *const key[3][2] = {{"min_ns", "min_rank"},
						      {"median_ns", "median_rank"},
						      {"max_ns", "max_rank"}};

		gs_json_row(w, NULL);
		gs_json_u64(w, "number", x->number);
		gs_json_u64(w, "ranks", x->ranks);
		gs_json_bool(w, "analysed", x->analysed);
		gs_json_bool(w, "partial", x->partial);
		for (int k = 0; k < 3; k++) {
			gs_json_i64(w, key[k][0], x->v[k]);
			gs_json_u64(w, key[k][1], gs_job_rank(ja, x->ri[k])->rank);
		}
		gs_json_bool(w, "slow", x->slow);
		if (x->span_known) {
			gs_json_i64(w, "span_ns", x->span_ns);
			gs_json_i64(w, "span_error_ns", x->span_err);
			gs_json_u64(w, "last_rank", gs_job_rank(ja, x->last_ri)->rank);
			gs_json_i64(w, "last_after_median_ns", x->last_ns);
		} else {
			gs_json_null(w, "span_ns");
			gs_json_null(w, "span_error_ns");
			gs_json_null(w, "last_rank");
			gs_json_null(w, "last_after_median_ns");
		}
		if (x->cause < GS_GAP_CAUSE_COUNT) {
			gs_json_str(w, "slowest_gap_cause", gs_gap_cause_name(x->cause));
			gs_json_i64(w, "slowest_gap_cause_ns", x->cause_ns);
		} else {
			gs_json_null(w, "slowest_gap_cause");
			gs_json_null(w, "slowest_gap_cause_ns");
		}
		if (isfinite(x->eff_min)) {
			gs_json_fixed(w, "efficiency_min", x->eff_min);
			gs_json_u64(w, "efficiency_min_rank", gs_job_rank(ja, x->eff_ri)->rank);
		} else {
			gs_json_null(w, "efficiency_min");
			gs_json_null(w, "efficiency_min_rank");
		}
		gs_json_arr(w, "by_rank");
		for (size_t p = 0; p < x->ranks; p++) {
			const struct gs_job_step_at *a = &ja->step_at[x->first + p];
			const struct gs_js_step *st = &ja->sums[a->ri]->steps[a->si];

			gs_json_row(w, NULL);
			gs_json_u64(w, "rank", gs_job_rank(ja, a->ri)->rank);
			gs_json_i64(w, "gpu_start_ns", st->start_ns);
			gs_json_i64(w, "gpu_end_ns", st->end_ns);
			gs_json_i64(w, "ns", st->end_ns - st->start_ns);
			gs_json_bool(w, "analysed", st->selected);
			if (st->has_figures && isfinite(st->efficiency))
				gs_json_fixed(w, "efficiency", st->efficiency);
			else
				gs_json_null(w, "efficiency");
			if (st->has_figures && st->gap_cause < GS_GAP_CAUSE_COUNT)
				gs_json_str(w, "gap_cause", gs_gap_cause_name(st->gap_cause));
			else
				gs_json_null(w, "gap_cause");
			gs_json_end_obj(w);
		}
		gs_json_end_arr(w);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	gs_json_end_obj(w);
}

void gs_job_analysis_write_json(struct gs_json *w, const struct gs_report *job)
{
	const struct gs_job_analysis *ja = gs_job_results(job);

	struct job_view v;

	if (!ja)
		return;
	/* Every outlier (no limit: the JSON has every rank). */
	if (job_view_make(ja, SIZE_MAX, &v) != GS_OK) {
		gs_outbuf_fail(w->o, ENOMEM, NULL);
		return;
	}
	gs_json_obj(w, "job");
	if (ja->world_size > ja->n_sums) {
		gs_json_obj(w, "partial");
		gs_json_u64(w, "ranks", ja->n_sums);
		gs_json_u64(w, "world_size", ja->world_size);
		gs_json_end_obj(w);
	} else {
		gs_json_null(w, "partial");
	}
	json_clocks(w, ja);
	json_ranks(w, ja, v.why);
	json_outliers(w, ja, &v);
	json_summary(w, ja);
	json_communicators(w, ja);
	json_collectives(w, ja);
	json_totals(w, ja);
	json_mismatches(w, ja);
	json_steps(w, ja);
	gs_json_arr(w, "findings");
	for (size_t i = 0; i < ja->n_findings; i++) {
		const struct gs_job_finding *f = &ja->findings[i];
		char *text = job_finding_text(ja, f), *advice = job_finding_advice(ja, f);

		if (!text || !advice) {
			free(text);
			free(advice);
			gs_outbuf_fail(w->o, ENOMEM, NULL);
			break;
		}
		gs_report_json_finding(w, f->kind, f->ns, &f->data, text, advice);
		free(text);
		free(advice);
	}
	gs_json_end_arr(w);
	gs_json_end_obj(w);
	job_view_free(&v);
}
