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

#include "jw.h"
#include "out.h"

static void jw_frac_or_null(struct jw *w, const char *key, double v)
{
	if (isfinite(v))
		jw_fixed(w, key, v);
	else
		jw_null(w, key);
}

static void jw_metric(struct jw *w, const char *key, enum ja_metric m, double v)
{
	if (ja_metric_info[m].ns)
		jw_i64(w, key, (int64_t)v);
	else
		jw_frac_or_null(w, key, v);
}

/* Every GPU's row; `why` per GPU (ja_view's): its outlier's `by`, else
 * UINT_MAX. */
static void json_ranks(struct jw *w, const struct gs_job_analysis *ja, const unsigned *why)
{
	jw_arr(w, "ranks");
	for (size_t i = 0; i < ja->n_gpus; i++) {
		const struct ja_gpu *g = &ja->gpus[i];
		const struct gs_js_gpu *d = g->d;

		jw_row(w, NULL);
		jw_u64(w, "rank", g->r->rank);
		if (*gs_js_str(g->r, g->r->host))
			jw_str(w, "host", gs_js_str(g->r, g->r->host));
		else
			jw_null(w, "host");
		if (g->r->pid >= 0)
			jw_i64(w, "pid", g->r->pid);
		else
			jw_null(w, "pid");
		jw_u64(w, "device", d->device);
		jw_u64(w, "clock_group", g->r->clock_group);
		jw_i64(w, "window_ns", d->window_ns);
		jw_i64(w, "kernel_ns", d->total_ns[GS_CAT_KERNEL]);
		jw_i64(w, "copy_ns", d->total_ns[GS_CAT_COPY]);
		jw_i64(w, "sync_ns", d->total_ns[GS_CAT_SYNC]);
		jw_i64(w, "idle_ns", d->total_ns[GS_CAT_IDLE]);
		jw_frac_or_null(w, "efficiency", ja_metric_value(g, M_EFF));
		jw_u64(w, "comm_kernels", d->comm_kernels);
		jw_i64(w, "comm_ns", d->comm_ns);
		jw_i64(w, "comm_union_ns", d->comm_union_ns);
		jw_i64(w, "comm_exposed_ns", d->comm_exposed_ns);
		jw_frac_or_null(w, "overlap", g->overlap);
		jw_bool(w, "outlier", why[i] != UINT_MAX);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

/* Every outlier, in the order of choice (the text and HTML show the first
 * --ranks of them). */
static void json_outliers(struct jw *w, const struct gs_job_analysis *ja, const struct ja_view *v)
{
	jw_arr(w, "outliers");
	for (size_t i = 0; i < v->n_outs; i++) {
		const struct ja_outlier *x = &v->outs[i];
		const struct ja_gpu *g = &ja->gpus[x->gpu];

		jw_row(w, NULL);
		jw_u64(w, "rank", g->r->rank);
		jw_u64(w, "device", g->d->device);
		jw_str(w, "by",
		       x->by == OUTLIER_STRAGGLER ? "straggler" : ja_metric_info[x->by].key);
		if (x->by == OUTLIER_STRAGGLER)
			jw_null(w, "score");
		else
			jw_fixed(w, "score", x->score);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_summary(struct jw *w, const struct gs_job_analysis *ja)
{
	static const char *const which[3] = {"min", "median", "max"};

	jw_obj(w, "summary");
	for (unsigned m = 0; m < M_COUNT; m++) {
		const struct ja_stat *s = &ja->stat[m];

		jw_row(w, ja_metric_info[m].key);
		jw_u64(w, "count", s->count);
		for (int k = 0; k < 3; k++) {
			char key[32];

			if (!s->count) {
				jw_null(w, which[k]);
				snprintf(key, sizeof(key), "%s_rank", which[k]);
				jw_null(w, key);
				snprintf(key, sizeof(key), "%s_device", which[k]);
				jw_null(w, key);
				continue;
			}
			jw_metric(w, which[k], (enum ja_metric)m, s->v[k]);
			snprintf(key, sizeof(key), "%s_rank", which[k]);
			jw_u64(w, key, ja->gpus[s->gpu[k]].r->rank);
			snprintf(key, sizeof(key), "%s_device", which[k]);
			jw_u64(w, key, ja->gpus[s->gpu[k]].d->device);
		}
		jw_end_obj(w);
	}
	jw_end_obj(w);
}

static void json_communicators(struct jw *w, const struct gs_job_analysis *ja)
{
	static const char *const keys[] = {"process_group", "kind", "point_to_point"};

	jw_arr(w, "communicators");
	for (size_t i = 0; i < ja->n_comms; i++) {
		const struct ja_comm *c = &ja->comms[i];
		int64_t m = c->matched ? (int64_t)c->matched : 1;

		jw_row(w, NULL);
		jw_u64(w, "id", i);
		jw_str(w, "name", c->label);
		jw_str(w, "key", keys[c->key < 3 ? c->key : 0]);
		if (c->key == JA_KEY_GROUP)
			jw_str(w, "group", c->group);
		else
			jw_null(w, "group");
		if (c->key == JA_KEY_KIND)
			jw_str(w, "kind", ja_kind_name((enum ja_kind)c->kind));
		else
			jw_null(w, "kind");
		if (c->group_size)
			jw_u64(w, "group_size", c->group_size);
		else
			jw_null(w, "group_size");
		jw_u64(w, "clock_group", c->clock_group);
		jw_str(w, "matched_by", ja_matched_by_name(c->matched_by));
		jw_arr_inline(w, "ranks");
		for (size_t k = 0; k < c->n_m; k++)
			jw_u64(w, NULL, rank_of(ja, c->m[k].ri)->rank);
		jw_end_arr(w);
		jw_arr_inline(w, "counts");
		for (size_t k = 0; k < c->n_m; k++)
			jw_u64(w, NULL, c->m[k].n);
		jw_end_arr(w);
		jw_arr_inline(w, "unmatched");
		for (size_t k = 0; k < c->n_m; k++)
			jw_u64(w, NULL, c->m[k].extra);
		jw_end_arr(w);
		jw_u64(w, "collectives", c->n_coll);
		jw_u64(w, "matched", c->matched);
		jw_u64(w, "no_overlap", c->no_overlap);
		jw_u64(w, "within_clock_error", c->within_error);
		jw_i64(w, "skew_mean_ns", c->matched ? c->skew_sum / m : 0);
		jw_i64(w, "skew_max_ns", c->skew_max);
		jw_i64(w, "wait_ns", c->wait_sum);
		jw_i64(w, "transfer_mean_ns", c->matched ? c->transfer_sum / m : 0);
		jw_frac_or_null(w, "busbw_mean_gbps",
				c->busbw_n ? c->busbw_sum / (double)c->busbw_n : NAN);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_collectives(struct jw *w, const struct gs_job_analysis *ja)
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
	jw_u64(w, "collectives_total", ja->n_by_skew);
	jw_u64(w, "collectives_listed", n);
	jw_arr(w, "collectives");
	for (size_t i = 0; i < n; i++) {
		const struct ja_coll *x = &ja->coll[ja->by_skew[i]];
		const struct ja_comm *c = &ja->comms[x->comm];

		jw_row(w, NULL);
		jw_u64(w, "communicator", x->comm);
		jw_u64(w, "index", x->index);
		jw_str(w, "name", x->name);
		jw_arr_inline(w, "ranks");
		for (size_t k = 0; k < x->present; k++) {
			const struct ja_member *m = coll_member(ja, x, k);
			int64_t a = coll_op(ja, x, k)->start_ns + m->shift;

			jw_row(w, NULL);
			jw_u64(w, "rank", rank_of(ja, m->ri)->rank);
			jw_i64(w, "arrival_ns", a - m->shift);
			jw_i64(w, "clock_shift_ns", m->shift);
			jw_i64(w, "wait_ns", x->state == JA_COMPARED ? x->last - a : 0);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		jw_i64(w, "skew_ns", x->skew);
		if (x->state == JA_COMPARED)
			jw_u64(w, "last_rank", rank_of(ja, c->m[x->last_m].ri)->rank);
		else
			jw_null(w, "last_rank");
		jw_bool(w, "within_clock_error", x->state == JA_WITHIN_ERROR);
		jw_i64(w, "clock_error_ns", x->clock_err);
		jw_i64(w, "transfer_ns", x->transfer);
		if (x->bytes >= 0)
			jw_i64(w, "bytes", x->bytes);
		else
			jw_null(w, "bytes");
		jw_frac_or_null(w, "algbw_gbps", x->algbw);
		jw_frac_or_null(w, "busbw_gbps", x->busbw);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_totals(struct jw *w, const struct gs_job_analysis *ja)
{
	jw_arr(w, "rank_totals");
	for (size_t i = 0; i < ja->n_totals; i++) {
		const struct ja_total *t = &ja->totals[i];

		jw_row(w, NULL);
		jw_u64(w, "rank", rank_of(ja, t->ri)->rank);
		jw_u64(w, "collectives", t->collectives);
		jw_i64(w, "waited_ns", t->waited);
		jw_u64(w, "times_last", t->last);
		jw_u64(w, "with_skew", t->counted);
		jw_fixed(w, "expected_last", t->expected);
		jw_i64(w, "cost_ns", t->cost);
		jw_i64(w, "compute_before_ns", t->compute_before);
		jw_bool(w, "straggler", t->straggler);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_arr(w, "stragglers");
	for (size_t i = 0; i < ja->n_stragglers; i++) {
		const struct ja_total *t = &ja->totals[ja->stragglers[i]];

		jw_row(w, NULL);
		jw_u64(w, "rank", rank_of(ja, t->ri)->rank);
		jw_u64(w, "times_last", t->last);
		jw_u64(w, "collectives", t->counted);
		jw_fixed(w, "share", t->counted ? (double)t->last / (double)t->counted : 0);
		jw_i64(w, "cost_ns", t->cost);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static void json_mismatches(struct jw *w, const struct gs_job_analysis *ja)
{
	static const char *const kinds[MM_KIND_COUNT] = {"count", "name", "ranks", "no_overlap",
							 "unpaired"};

	jw_arr(w, "mismatches");
	for (size_t i = 0; i < ja->n_mm; i++) {
		const struct ja_mismatch *x = &ja->mm[i];
		const struct ja_comm *c = &ja->comms[x->comm];

		jw_row(w, NULL);
		jw_u64(w, "communicator", x->comm);
		jw_str(w, "kind", kinds[x->kind < MM_KIND_COUNT ? x->kind : 0]);
		jw_arr_inline(w, "ranks");
		for (size_t k = 0; k < c->n_m; k++) {
			jw_row(w, NULL);
			jw_u64(w, "rank", rank_of(ja, c->m[k].ri)->rank);
			jw_u64(w, "count", c->m[k].n);
			jw_u64(w, "unmatched", c->m[k].extra);
			jw_end_obj(w);
		}
		jw_end_arr(w);
		if (x->kind == MM_RANKS)
			jw_u64(w, "group_size", c->group_size);
		if (x->kind == MM_NAME || x->kind == MM_NO_OVERLAP)
			jw_u64(w, "index", x->index);
		jw_u64(w, "count", x->count);
		jw_u64(w, "matched", c->matched);
		jw_str(w, "text", x->text);
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

static const char *dom_state_name(uint8_t s)
{
	static const char *const n[] = {"reference", "fitted", "no_evidence", "raw"};

	return s < 4 ? n[s] : "raw";
}

/* The clocks: per clock domain, its ranks, host, offset and residual. */
static void json_clocks(struct jw *w, const struct gs_job_analysis *ja)
{
	static const char *const align[] = {"auto", "collectives", "none"};

	jw_str(w, "align", align[ja->align < 3 ? ja->align : 0]);
	jw_arr(w, "clocks");
	for (size_t d = 0; d < ja->n_dom; d++) {
		const struct ja_domain *x = &ja->dom[d];
		const struct gs_js_rank *r = rank_of(ja, x->first_ri);

		jw_row(w, NULL);
		jw_u64(w, "clock_group", x->group);
		if (*x->host)
			jw_str(w, "host", x->host);
		else
			jw_null(w, "host");
		jw_bool(w, "host_from_file_name", r->host_from_name);
		jw_arr_inline(w, "ranks");
		for (size_t ri = 0; ri < ja->n_sums; ri++)
			if (ja->rank_dom[ri] == d)
				jw_u64(w, NULL, rank_of(ja, ri)->rank);
		jw_end_arr(w);
		jw_str(w, "wall_clock", gs_clock_source_name(x->clock));
		jw_i64(w, "wall_offset_ns", r->wall_offset_ns);
		jw_str(w, "alignment", dom_state_name(x->state));
		jw_i64(w, "offset_ns", x->offset);
		if (x->state == JA_DOM_FITTED) {
			jw_i64(w, "residual_ns", x->residual);
			jw_i64(w, "spread_max_ns", x->spread_max);
			jw_u64(w, "evidence_collectives", x->evidence);
			jw_u64(w, "outlier_collectives", x->outliers);
			jw_u64(w, "fitted_against_rank",
			       rank_of(ja, ja->dom[x->via].first_ri)->rank);
		} else {
			jw_null(w, "residual_ns");
		}
		jw_end_obj(w);
	}
	jw_end_arr(w);
}

/* The steps matched across ranks, each with every rank's time in it. */
static void json_steps(struct jw *w, const struct gs_job_analysis *ja)
{
	const struct ja_slow_steps *slow = &ja->slow_steps;

	jw_obj(w, "steps");
	jw_u64(w, "ranks_with_steps", ja->step_ranks);
	if (slow->steps) {
		jw_obj(w, "slowest_rank");
		jw_u64(w, "rank", rank_of(ja, slow->ri)->rank);
		jw_u64(w, "steps", slow->steps);
		jw_u64(w, "of", slow->of);
		jw_i64(w, "extra_ns", slow->extra);
		jw_end_obj(w);
	} else {
		jw_null(w, "slowest_rank");
	}
	jw_arr(w, "by_number");
	for (size_t i = 0; i < ja->n_steps; i++) {
		const struct ja_step *x = &ja->steps[i];
		static const char *const key[3][2] = {{"min_ns", "min_rank"},
						      {"median_ns", "median_rank"},
						      {"max_ns", "max_rank"}};

		jw_row(w, NULL);
		jw_u64(w, "number", x->number);
		jw_u64(w, "ranks", x->ranks);
		jw_bool(w, "analysed", x->analysed);
		jw_bool(w, "partial", x->partial);
		for (int k = 0; k < 3; k++) {
			jw_i64(w, key[k][0], x->v[k]);
			jw_u64(w, key[k][1], rank_of(ja, x->ri[k])->rank);
		}
		jw_bool(w, "slow", x->slow);
		if (x->span_known) {
			jw_i64(w, "span_ns", x->span_ns);
			jw_i64(w, "span_error_ns", x->span_err);
			jw_u64(w, "last_rank", rank_of(ja, x->last_ri)->rank);
			jw_i64(w, "last_after_median_ns", x->last_ns);
		} else {
			jw_null(w, "span_ns");
			jw_null(w, "span_error_ns");
			jw_null(w, "last_rank");
			jw_null(w, "last_after_median_ns");
		}
		if (x->cause < GS_GAP_CAUSE_COUNT) {
			jw_str(w, "slowest_gap_cause", gs_gap_cause_name(x->cause));
			jw_i64(w, "slowest_gap_cause_ns", x->cause_ns);
		} else {
			jw_null(w, "slowest_gap_cause");
			jw_null(w, "slowest_gap_cause_ns");
		}
		if (isfinite(x->eff_min)) {
			jw_fixed(w, "efficiency_min", x->eff_min);
			jw_u64(w, "efficiency_min_rank", rank_of(ja, x->eff_ri)->rank);
		} else {
			jw_null(w, "efficiency_min");
			jw_null(w, "efficiency_min_rank");
		}
		jw_arr(w, "by_rank");
		for (size_t p = 0; p < x->ranks; p++) {
			const struct ja_step_at *a = &ja->step_at[x->first + p];
			const struct gs_js_step *st = &ja->sums[a->ri]->steps[a->si];

			jw_row(w, NULL);
			jw_u64(w, "rank", rank_of(ja, a->ri)->rank);
			jw_i64(w, "gpu_start_ns", st->start_ns);
			jw_i64(w, "gpu_end_ns", st->end_ns);
			jw_i64(w, "ns", st->end_ns - st->start_ns);
			jw_bool(w, "analysed", st->selected);
			if (st->has_figures && isfinite(st->efficiency))
				jw_fixed(w, "efficiency", st->efficiency);
			else
				jw_null(w, "efficiency");
			if (st->has_figures && st->gap_cause < GS_GAP_CAUSE_COUNT)
				jw_str(w, "gap_cause", gs_gap_cause_name(st->gap_cause));
			else
				jw_null(w, "gap_cause");
			jw_end_obj(w);
		}
		jw_end_arr(w);
		jw_end_obj(w);
	}
	jw_end_arr(w);
	jw_end_obj(w);
}

void gs_job_analysis_write_json(struct jw *w, const struct gs_report *job)
{
	const struct gs_job_analysis *ja = job ? job->ja : NULL;

	struct ja_view v;

	if (!ja)
		return;
	/* Every outlier (no limit: the JSON has every rank). */
	if (ja_view_make(ja, SIZE_MAX, &v) != GS_OK) {
		w->o.failed = true;
		w->o.err = ENOMEM;
		return;
	}
	jw_obj(w, "job");
	if (ja->world_size > ja->n_sums) {
		jw_obj(w, "partial");
		jw_u64(w, "ranks", ja->n_sums);
		jw_u64(w, "world_size", ja->world_size);
		jw_end_obj(w);
	} else {
		jw_null(w, "partial");
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
	jw_arr(w, "findings");
	for (size_t i = 0; i < ja->n_findings; i++) {
		const struct ja_finding *f = &ja->findings[i];
		char *text = ja_finding_text(ja, f), *advice = ja_finding_advice(ja, f);

		if (!text || !advice) {
			free(text);
			free(advice);
			w->o.failed = true;
			w->o.err = ENOMEM;
			break;
		}
		gs_report_json_finding(w, f->kind, f->ns, &f->data, text, advice);
		free(text);
		free(advice);
	}
	jw_end_arr(w);
	jw_end_obj(w);
	ja_view_free(&v);
}
