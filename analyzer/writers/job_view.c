/* SPDX-License-Identifier: MIT */
/*
 * What the job's writers share (job_view.h): the metrics' names, the
 * formatting of their values, and which GPUs a report of many ranks shows
 * (the outliers).
 */
#include "job_view.h"

#include <gpuscope/report_parts.h>
#include <gpuscope/strbuf.h>
#include <gpuscope/text.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct job_metric_info job_metric_info[GS_JOB_METRIC_COUNT] = {
	{"window_ns", "window", true},  {"kernel_share", "kernel", false},
	{"copy_share", "copy", false},  {"sync_share", "sync", false},
	{"idle_share", "idle", false},  {"efficiency", "efficiency", false},
	{"comm_ns", "comm time", true}, {"comm_exposed_ns", "exposed comm", true},
	{"overlap", "overlap", false},
};

/* The unit of the comparable times of the text line being written (0:
 * each its own): a line never mixes ms and s. Per thread, as reports of
 * several jobs may be written at once. */
_Thread_local uint64_t job_line_unit;

const char *job_dur_text(char *buf, size_t size, int64_t ns)
{
	return job_line_unit ? gs_dur_text_in(buf, size, ns, job_line_unit, false) :
			       gs_dur_text(buf, size, ns);
}

/* One unit for the line from the largest of its times; job_line_unit = 0 ends it. */
void job_set_line_unit(const int64_t *v, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = v[i] < 0 ? (uint64_t)0 - (uint64_t)v[i] : (uint64_t)v[i];

		m = a > m ? a : m;
	}
	job_line_unit = gs_dur_unit(m);
}

/* "0.92", or "n/a" (gs_report_eff_text of the summary's numbers). */
const char *job_eff_text(const struct gs_js_gpu *d, char *buf, size_t size)
{
	struct gs_report_device rd;

	memset(&rd, 0, sizeof(rd));
	rd.efficiency = d->efficiency;
	rd.efficiency_kind = d->efficiency_kind;
	return gs_report_eff_text(&rd, buf, size);
}

/* ------------------------------------------------------------------------ */
/* Outliers: the GPUs a report of many ranks shows                            */
/* ------------------------------------------------------------------------ */

/*
 * A job of more GPUs than a report's rank table holds (the style's
 * `ranks`: --top when given, else 8; --ranks N|all) shows each column's
 * min, median and max over the GPUs and the outliers, at most that many,
 * in this order of choice:
 *   1. every GPU of each straggler rank, stragglers by their cost to the
 *      others (the rank the job findings blame);
 *   2. every other GPU that lies far from the median on one of the rank
 *      table's metrics OUTLIER_METRICS (window, idle share, efficiency,
 *      exposed communication): |v - median| > max(OUTLIER_MAD x MAD,
 *      floor), where MAD is the lower median of |v - median| over the GPUs
 *      that have the metric and the floor OUTLIER_FLOOR (2%) of the median
 *      window for the durations, 0.02 for the idle share and the
 *      efficiency (differences below it are noise, however alike the
 *      GPUs); ranked by the largest ratio |v - median| / that bound over
 *      the metrics, ties by the lowest rank (then device).
 * The worst exposed communication of the findings is one of these when it
 * is far from the median, not otherwise: the largest of many alike GPUs
 * is no outlier. Everything comes from the summaries (gpuscope-mpi's root
 * decides the same). O(G log G) per metric for G GPUs.
 */
#define OUTLIER_MAD 6.0
#define OUTLIER_FLOOR 0.02

static const enum gs_job_metric outlier_metrics[] = {GS_JOB_METRIC_WINDOW, GS_JOB_METRIC_IDLE,
						     GS_JOB_METRIC_EFF, GS_JOB_METRIC_EXPOSED};
#define N_OUTLIER_METRICS (sizeof(outlier_metrics) / sizeof(outlier_metrics[0]))

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

static int cmp_outlier(const void *pa, const void *pb)
{
	const struct job_outlier *a = pa, *b = pb;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->gpu < b->gpu ? -1 : a->gpu > b->gpu;
}

/* The bound beyond which a GPU is far from the median on metric m; 0 when
 * no GPU can be (no values, or all alike on a zero floor). */
static double outlier_bound(const struct gs_job_analysis *ja, enum gs_job_metric m, double *dev)
{
	const struct gs_job_stat *s = &ja->stat[m];
	double floor, mad;
	size_t n = 0;

	if (!s->count)
		return 0;
	for (size_t i = 0; i < ja->n_gpus; i++) {
		double v = gs_job_metric_value(&ja->gpus[i], m);

		if (isfinite(v))
			dev[n++] = fabs(v - s->v[1]);
	}
	if (!n)
		return 0;
	qsort(dev, n, sizeof(*dev), cmp_double);
	mad = dev[(n - 1) / 2];
	floor = job_metric_info[m].ns ? OUTLIER_FLOOR * ja->stat[GS_JOB_METRIC_WINDOW].v[1] :
					OUTLIER_FLOOR;
	return OUTLIER_MAD * mad > floor ? OUTLIER_MAD * mad : floor;
}

/* Every outlier of the job, in the order of choice; *out is NULL when
 * there is none. */
static gs_status job_outliers(const struct gs_job_analysis *ja, struct job_outlier **out, size_t *n)
{
	double bound[N_OUTLIER_METRICS], *dev;
	struct job_outlier *o;
	size_t k = 0, first;

	*out = NULL;
	*n = 0;
	if (!ja->n_gpus)
		return GS_OK;
	dev = malloc(ja->n_gpus * sizeof(*dev));
	o = malloc(ja->n_gpus * sizeof(*o));
	if (!dev || !o) {
		free(dev);
		free(o);
		return gs_nomem();
	}
	for (size_t x = 0; x < N_OUTLIER_METRICS; x++)
		bound[x] = outlier_bound(ja, outlier_metrics[x], dev);
	free(dev);
	/* 1. The stragglers' GPUs. */
	for (size_t i = 0; i < ja->n_stragglers; i++) {
		size_t ri = ja->totals[ja->stragglers[i]].ri;

		for (size_t g = ja->first_gpu[ri]; g < ja->n_gpus && ja->gpus[g].ri == ri; g++)
			o[k++] = (struct job_outlier){g, OUTLIER_STRAGGLER, 0};
	}
	/* 2. The GPUs far from the median. */
	first = k;
	for (size_t g = 0; g < ja->n_gpus; g++) {
		const struct gs_job_total *t =
			ja->gpus[g].ri < ja->n_totals ? &ja->totals[ja->gpus[g].ri] : NULL;
		struct job_outlier x = {g, 0, 0};

		if (t && t->straggler)
			continue;
		for (size_t m = 0; m < N_OUTLIER_METRICS; m++) {
			double v = gs_job_metric_value(&ja->gpus[g], outlier_metrics[m]), r;

			if (!isfinite(v) || bound[m] <= 0)
				continue;
			r = fabs(v - ja->stat[outlier_metrics[m]].v[1]) / bound[m];
			if (r > x.score) {
				x.score = r;
				x.by = outlier_metrics[m];
			}
		}
		if (x.score > 1)
			o[k++] = x;
	}
	if (k > first)
		qsort(o + first, k - first, sizeof(*o), cmp_outlier);
	if (!k) {
		free(o);
		return GS_OK;
	}
	*out = o;
	*n = k;
	return GS_OK;
}

/* What a writer shows of the job's GPUs with a style. */
void job_view_free(struct job_view *v)
{
	free(v->outs);
	free(v->why);
	free(v->rank_shown);
	memset(v, 0, sizeof(*v));
}

gs_status job_view_make(const struct gs_job_analysis *ja, size_t limit, struct job_view *v)
{
	gs_status rc;

	memset(v, 0, sizeof(*v));
	v->limit = limit;
	v->all = ja->n_gpus <= limit;
	rc = job_outliers(ja, &v->outs, &v->n_outs);
	v->why = malloc((ja->n_gpus ? ja->n_gpus : 1) * sizeof(*v->why));
	v->rank_shown = calloc(ja->n_sums ? ja->n_sums : 1, sizeof(*v->rank_shown));
	if (rc == GS_OK && (!v->why || !v->rank_shown))
		rc = gs_nomem();
	if (rc != GS_OK) {
		job_view_free(v);
		return rc;
	}
	for (size_t g = 0; g < ja->n_gpus; g++)
		v->why[g] = UINT_MAX;
	v->n_shown = v->all ? v->n_outs : v->n_outs < limit ? v->n_outs : limit;
	for (size_t i = 0; i < v->n_shown; i++) {
		v->why[v->outs[i].gpu] = v->outs[i].by;
		v->rank_shown[ja->gpus[v->outs[i].gpu].ri] = true;
	}
	for (size_t i = 0; i < ja->n_sums; i++) {
		if (v->all)
			v->rank_shown[i] = true;
		v->ranks_shown += v->rank_shown[i];
	}
	return GS_OK;
}

/* Why a GPU is an outlier, in words ("straggler", "idle share"). */
const char *job_outlier_word(unsigned by)
{
	if (by == OUTLIER_STRAGGLER)
		return "straggler";
	if (by == GS_JOB_METRIC_EXPOSED)
		return "exposed comm";
	if (by == GS_JOB_METRIC_IDLE)
		return "idle share";
	return by < GS_JOB_METRIC_COUNT ? job_metric_info[by].label : "?";
}

gs_status gs_job_analysis_shown_ranks(const struct gs_job_analysis *ja,
				      const struct gs_report_style *style, bool *shown,
				      size_t *n_shown)
{
	struct job_view v;
	gs_status rc = job_view_make(ja, gs_report_style_of(style).ranks, &v);

	if (rc != GS_OK)
		return rc;
	memcpy(shown, v.rank_shown, ja->n_sums * sizeof(*shown));
	*n_shown = v.ranks_shown;
	job_view_free(&v);
	return GS_OK;
}

/* A fraction as a percentage with one decimal; "n/a" when not finite. */
const char *job_frac_text(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.1f%%", 100.0 * v);
	return buf;
}

/* Bytes per ns is GB/s. */
const char *job_bw_text(char *buf, size_t size, double gbps)
{
	if (!isfinite(gbps))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.2f GB/s", gbps);
	return buf;
}

const char *job_metric_text(char *buf, size_t size, enum gs_job_metric m, double v)
{
	if (job_metric_info[m].ns)
		return job_dur_text(buf, size, (int64_t)v);
	if (m == GS_JOB_METRIC_EFF) {
		snprintf(buf, size, "%.2f", v);
		return buf;
	}
	return job_frac_text(buf, size, v);
}

/* "12.000 ms (rank 3)"; "(rank 3:1)" for GPU 1 of a rank with several. */
const char *job_stat_cell(char *buf, size_t size, const struct gs_job_analysis *ja,
			  const struct gs_job_stat *s, enum gs_job_metric m, int which)
{
	const struct gs_job_gpu *g = &ja->gpus[s->gpu[which]];
	char v[48];

	job_metric_text(v, sizeof(v), m, s->v[which]);
	if (g->r->n_gpus > 1)
		snprintf(buf, size, "%s (rank %u:%u)", v, g->r->rank, g->d->device);
	else
		snprintf(buf, size, "%s (rank %u)", v, g->r->rank);
	return buf;
}

/* ---- findings in words ---- */

const char *job_gpu_name(char *buf, size_t size, const struct gs_job_gpu *g)
{
	if (g->r->n_gpus > 1)
		snprintf(buf, size, "rank %u GPU %u", g->r->rank, g->d->device);
	else
		snprintf(buf, size, "rank %u", g->r->rank);
	return buf;
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
/* A finding's durations, each in its own unit (never a line's), marked
 * for the writers to write out (gs_dur_sentence: "us" or "µs"). */
#define FDUR(ns) GS_DUR_OWN(ns)

/* A formatted string (malloc'd); NULL when out of memory. */
static char *view_printf(const char *fmt, ...) GS_PRINTF(1, 2);
static char *view_printf(const char *fmt, ...)
{
	struct gs_strbuf b = GS_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	gs_strbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	return gs_strbuf_take(&b);
}

char *job_finding_text(const struct gs_job_analysis *ja, const struct gs_job_finding *f)
{
	switch (f->what) {
	case GS_JOB_FIND_STRAGGLER: {
		const struct gs_job_total *t = &ja->totals[f->at];
		int64_t median_compute = f->v[0];
		char share[32], chance[32], compute[160];

		gs_report_pct(share, sizeof(share), (int64_t)t->last, (int64_t)t->counted);
		compute[0] = '\0';
		if (t->compute_before > median_compute)
			snprintf(compute, sizeof(compute),
				 "; its compute before them took %s, %s more than the median "
				 "rank's",
				 FDUR(t->compute_before), FDUR(t->compute_before - median_compute));
		snprintf(chance, sizeof(chance), "%.1f%%",
			 t->counted ? 100.0 * t->expected / (double)t->counted : 0.0);
		return view_printf("rank %u arrived last at %s of %llu collectives (%llu times; "
				   "chance alone would give %s); the others waited %s for it%s%s",
				   gs_job_rank(ja, t->ri)->rank, share,
				   (unsigned long long)t->counted, (unsigned long long)t->last,
				   chance, FDUR(t->cost), compute, PARTIAL());
	}
	case GS_JOB_FIND_SKEW: {
		size_t n = f->at;

		return view_printf("the ranks waited %s in all for one another at %zu collectives "
				   "(mean skew %s, max %s), with no one rank last most often%s",
				   FDUR(ja->wait_total), n, FDUR(f->v[0] / (int64_t)(n ? n : 1)),
				   FDUR(f->v[1]), PARTIAL());
	}
	case GS_JOB_FIND_EXPOSED: {
		const struct gs_job_gpu *worst = &ja->gpus[f->at];
		const struct gs_job_stat *s = &ja->stat[GS_JOB_METRIC_OVERLAP];
		size_t with_comm = (size_t)f->v[2];
		char who[64], ov[32] = "n/a";

		if (s->count)
			snprintf(ov, sizeof(ov), "%.1f%%", 100.0 * s->v[1]);
		return view_printf(
			"communication ran with no compute kernel alongside for %s over "
			"%zu GPU%s (%s of it beyond the waits for other ranks), up to %s "
			"on %s (%s of its window); median overlap with compute %s",
			FDUR(f->v[0]), with_comm, with_comm == 1 ? "" : "s", FDUR(f->v[1]),
			FDUR(worst->d->comm_exposed_ns), job_gpu_name(who, sizeof(who), worst),
			PCT(worst->d->comm_exposed_ns, worst->d->window_ns), ov);
	}
	case GS_JOB_FIND_SLOW_STEPS: {
		const struct gs_job_slow_steps *x = &ja->slow_steps;

		return view_printf("rank %u had the longest step in %zu of the %zu analysed steps "
				   "the ranks share, %s in all beyond the median rank's step time "
				   "(%s of the median steps' %s)%s",
				   gs_job_rank(ja, x->ri)->rank, x->steps, x->of, FDUR(x->extra),
				   PCT(x->extra, x->total), FDUR(x->total), PARTIAL());
	}
	case GS_JOB_FIND_MISMATCH:
		return view_printf("%zu communicator%s do%s not line up across ranks; %s%s",
				   ja->n_mm, ja->n_mm == 1 ? "" : "s", ja->n_mm == 1 ? "es" : "",
				   ja->mm[0].text,
				   ja->n_mm > 1 ? " (and more: see Mismatches)" : "");
	default:
		return view_printf("%s", f->kind);
	}
}

char *job_finding_advice(const struct gs_job_analysis *ja, const struct gs_job_finding *f)
{
	switch (f->what) {
	case GS_JOB_FIND_STRAGGLER:
		return view_printf("look at rank %u's own section: what it runs before the "
				   "collectives (its compute, host-bound idle, data loading, "
				   "a slower GPU or link); every other rank waits for it",
				   gs_job_rank(ja, ja->totals[f->at].ri)->rank);
	case GS_JOB_FIND_SKEW:
		return view_printf("load imbalance across ranks: even out the work of a step "
				   "(uneven batches, sequence lengths or shards), and look for "
				   "jitter on the ranks that arrive late (host threads, data "
				   "loading, garbage collection)");
	case GS_JOB_FIND_EXPOSED:
		return view_printf("overlap communication with compute: bucket gradients so that "
				   "all-reduces start during the backward pass (DDP bucket_cap_mb, "
				   "FSDP prefetch), issue collectives asynchronously on their own "
				   "stream; exposed time also holds the waits for late ranks");
	case GS_JOB_FIND_SLOW_STEPS:
		return view_printf(
			"a synchronous job runs at its slowest rank's pace: look at rank "
			"%u's Steps table (the largest cause of each step's gap) and at "
			"what differs on it (its share of the data, a slower host or "
			"GPU, host-side jitter)",
			gs_job_rank(ja, ja->slow_steps.ri)->rank);
	case GS_JOB_FIND_MISMATCH:
		return view_printf("the traces cover different steps or code paths: record every "
				   "rank over the same iterations (one profiler schedule), or look "
				   "for a rank that took another path");
	default:
		return view_printf("%s", "");
	}
}

gs_status gs_report_text_job_shown(const struct gs_report *shell,
				   const struct gs_report_style *style, bool *shown,
				   size_t *n_shown)
{
	const struct gs_job_analysis *ja = gs_job_results(shell);

	if (!ja) {
		gs_error_append("gs_report_text_job_shown: no job analysis");
		return GS_ERR_INVALID;
	}
	return gs_job_analysis_shown_ranks(ja, style, shown, n_shown);
}
