/* SPDX-License-Identifier: MIT */
/*
 * The analyze report, assembled: runs every analysis over a finished
 * trace and keeps what the text, JSON and HTML writers print
 * (report_text.c, report_json.c, report_html.c): gs_report_build and the
 * per-device assembly (dev_build). The job report (one report per rank) is
 * report_job.c, the small helpers the writers share report_helpers.c
 * (report_build_priv.h: what these three share). The per-device tables
 * and their ranking are in report_tables.c, the findings and their advice
 * in report_findings.c.
 *
 * Complexity, for N ops, S streams, D reported devices and W waits: the
 * graph and the waits once (their own costs), then per device the
 * analyses (each O(N log N) or better), one pass over the device's ops for
 * the stream totals and the constraint counts, a sort of its kernels by
 * name (O(K log K)), and one pass over the waits with a binary search of
 * the device (O(W log D)). Nothing is quadratic.
 */
#include "analyzer_priv.h"
#include "gate_priv.h"
#include "job_sum.h"
#include "report_build_priv.h"
#include "report_model_priv.h"
#include "schedule_priv.h"

#include <gpuscope/breakdown.h>
#include <gpuscope/cudagraph.h>
#include <gpuscope/gate.h>
#include <gpuscope/graph.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/measures.h>
#include <gpuscope/operators.h>
#include <gpuscope/overlap.h>
#include <gpuscope/report.h>
#include <gpuscope/results.h>
#include <gpuscope/schedule.h>
#include <gpuscope/search.h>
#include <gpuscope/sort.h>
#include <gpuscope/steps.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/whatif.h>
#include <gpuscope/window.h>
#include <gpuscope/workers.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* The schedule and the waits, per device                                    */
/* ------------------------------------------------------------------------ */

/* The schedule's results the report keeps; the per-op arrays are
 * summarised over the device's ops in the window, then dropped. */
static gs_status dev_schedule(const struct gs_trace *t, const struct gs_schedule *s,
			      struct gs_report_device *d, struct gs_report_win w, bool window_set)
{
	size_t n_ops, i, st, hint = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);

	d->actual_ns = s->actual_ns;
	d->dependency_bound_ns = s->dependency_bound_ns;
	d->ideal_ns = s->ideal_ns;
	d->broken_cycles = s->broken_cycles;
	/*
	 * Efficiency (ideal / actual) as reported, never above 1.
	 * The ideal schedule bounds the makespan from below only when the
	 * recorded run honoured every edge the schedule keeps.
	 * - Cycles broken (waits that cannot all have happened: a corrupt,
	 *   hand-edited or mis-merged trace): the ideal depends on which edges
	 *   were dropped to break them, so the ratio means nothing, whether
	 *   above 1 or not. None is given (NaN: "n/a", JSON null) rather than
	 *   a clamped 1 that would read "nothing to gain"; a finding says why.
	 * - Else a list schedule longer than the actual run means the run
	 *   started some op before an edge allowed (device clocks that
	 *   disagree, an event joined to the wrong record): the ideal is the
	 *   recorded run (gs_schedule.ideal_is_recorded), so 1, flagged as
	 *   bounded (JSON efficiency_bounded).
	 */
	if (s->broken_cycles) {
		d->efficiency_kind = GS_REPORT_EFF_CYCLES;
		d->efficiency = NAN;
	} else if (s->actual_ns > 0 && (s->ideal_is_recorded || s->ideal_ns > s->actual_ns)) {
		d->efficiency_kind = GS_REPORT_EFF_BOUNDED;
		d->efficiency = 1.0;
	} else {
		d->efficiency_kind = GS_REPORT_EFF_EXACT;
		d->efficiency = s->efficiency > 1.0 ? 1.0 : s->efficiency;
	}
	d->pipelined = s->pipelined;
	d->sched_device_known = gs_sched_device_known(gs_trace_device(t, d->device));
	memcpy(d->copy_engines, s->copy_engines, sizeof(d->copy_engines));
	/* The listed ops come from the kept schedule's path when the lists
	 * are cut (gs_report_cut_lists): no copy of the whole path here. */
	for (i = 0; i < s->n_critical; i++)
		d->critical_ns = gs_report_sat_add(d->critical_ns,
						   gs_schedule_op_ns(&ops[s->critical_path[i]]));
	if (!s->slot_bound_by)
		return GS_OK;
	for (st = 0; st < d->n_streams; st++) {
		size_t first, count;

		gs_trace_stream_ops(t, d->streams[st].index, &first, &count);
		for (i = first; i < first + count && i < n_ops; i++) {
			/* gs_schedule_bound_by and gs_schedule_delay_ns, one slot
			 * lookup (the stream's ops: one range) */
			uint32_t k = gs_sched_slot_near(s, (uint32_t)i, &hint);
			unsigned c = k == GS_NO_INDEX ? GS_BOUND_NONE : s->slot_bound_by[k];
			int64_t delay = k == GS_NO_INDEX ? 0 : gs_sched_slot_delay(s, &ops[i], k);

			/* The schedule's op set: every op, or those starting in the window. */
			if (window_set && (ops[i].start_ns < w.start || ops[i].start_ns >= w.end))
				continue;
			if (c >= GS_BOUND_COUNT)
				continue;
			d->bound_ops[c]++;
			if (delay > 0)
				d->bound_delay_ns[c] =
					gs_report_sat_add(d->bound_delay_ns[c], delay);
		}
	}
	return GS_OK;
}

struct dev_key {
	const struct gs_report *r;
	uint32_t device;
};

static bool dev_before(const void *ctx, size_t i)
{
	const struct dev_key *k = ctx;

	return k->r->dev[i].device < k->device;
}

/* The index of `device` among the reported devices (by device), SIZE_MAX
 * when it is not reported. */
static size_t find_dev(const struct gs_report *r, uint32_t device)
{
	struct dev_key key = {r, device};
	size_t i = gs_partition_point(r->n_dev, dev_before, &key);

	return i < r->n_dev && r->dev[i].device == device ? i : SIZE_MAX;
}

/* Hand each wait to the device of its consumer (when that device is
 * reported and the consumer lies in its window). */
static gs_status assign_waits(struct gs_report *r)
{
	size_t n_ops, i, *dev_of = NULL;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);

	if (!r->n_waits)
		return GS_OK;
	dev_of = malloc(r->n_waits * sizeof(*dev_of));
	r->reported_waits = malloc(r->n_waits * sizeof(*r->reported_waits));
	if (!dev_of || !r->reported_waits) {
		free(dev_of);
		return gs_nomem();
	}
	for (i = 0; i < r->n_waits; i++) {
		const struct gs_wait *w = &r->waits[i];
		size_t k;

		dev_of[i] = SIZE_MAX;
		if (w->consumer >= n_ops)
			continue;
		k = find_dev(r, gs_report_op_device(r->t, w->consumer));
		if (k == SIZE_MAX)
			continue;
		if (!gs_report_in_window(&ops[w->consumer],
					 (struct gs_report_win){r->dev[k].b.window_start,
								r->dev[k].b.window_end}))
			continue;
		dev_of[i] = k;
		r->dev[k].n_waits++;
		r->reported_waits[r->n_reported_waits++] = i;
	}
	for (i = 0; i < r->n_dev; i++) {
		if (!r->dev[i].n_waits)
			continue;
		r->dev[i].waits = malloc(r->dev[i].n_waits * sizeof(size_t));
		if (!r->dev[i].waits) {
			free(dev_of);
			return gs_nomem();
		}
		r->dev[i].n_waits = 0;
	}
	for (i = 0; i < r->n_waits; i++) {
		struct gs_report_device *d;

		if (dev_of[i] == SIZE_MAX)
			continue;
		d = &r->dev[dev_of[i]];
		d->waits[d->n_waits++] = i;
		d->wait_ns = gs_report_sat_add(d->wait_ns, r->waits[i].wait_ns);
		if (r->waits[i].kind < GS_EDGE_KIND_COUNT)
			d->wait_kind_count[r->waits[i].kind]++;
	}
	free(dev_of);
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* One device                                                                 */
/* ------------------------------------------------------------------------ */

/* The device record's name or UUID (uuid true) of device `id`; "". */
static const char *device_string(const struct gs_trace *t, uint32_t id, bool uuid)
{
	const struct gs_device *dv = gs_trace_device(t, id); /* ids are unique */
	uint32_t s = dv ? (uuid ? dv->uuid : dv->name) : GS_NO_STRING;

	return s != GS_NO_STRING ? gs_trace_string(t, s) : "";
}

/*
 * Whether the device's schedules are optimistic: ops on two or more of its
 * streams, and nothing in the trace that synchronizes streams (event
 * records, syncs of any kind, stream-wait calls seen or unlinked, event,
 * host-sync or default-stream edges). Such a trace may have had the
 * synchronization and not recorded it; the ideal then runs each stream
 * from the window start as if independent.
 */
static void dev_optimistic(const struct gs_report *r, struct gs_report_device *d)
{
	size_t n_sync = 0, n_rec = 0;
	const struct gs_graph *g = r->g;

	d->active_streams = 0;
	for (size_t i = 0; i < d->n_streams; i++)
		d->active_streams += d->streams[i].ops > 0;
	gs_trace_syncs(r->t, &n_sync);
	gs_trace_event_records(r->t, &n_rec);
	d->optimistic =
		d->active_streams >= 2 && !n_sync && !n_rec &&
		(!g ||
		 (!g->unlinked_waits && !g->unlinked_wait_calls && !g->edge_count[GS_EDGE_EVENT] &&
		  !g->edge_count[GS_EDGE_HOST_SYNC] && !g->edge_count[GS_EDGE_DEFAULT_STREAM]));
}

/* The CUDA Graph replay what-if over the ranked candidates. */
static gs_status dev_replay(const struct gs_report *r, struct gs_report_device *d,
			    const struct gs_schedule *s)
{
	gs_status st;

	if (!d->n_cands || !r->g)
		return GS_OK;
	d->cand_replay = calloc(d->n_cands, sizeof(*d->cand_replay));
	d->cand_replay_done = calloc(d->n_cands, sizeof(*d->cand_replay_done));
	if (!d->cand_replay || !d->cand_replay_done)
		return gs_nomem();
	st = gs_cudagraph_replay_compute(r->t, r->g, s, d->cands, d->n_cands, r->graph_node_ns,
					 &d->replay, d->cand_replay, d->cand_replay_done);
	if (st != GS_OK)
		gs_error_append("device %u: CUDA Graph replay", d->device);
	return st;
}

/* Threads for work a device at a time: the option's (0: every CPU the
 * process may use), no more than there are devices. */
static size_t device_threads(const struct gs_report *r, unsigned threads)
{
	size_t want = threads ? threads : gs_cpu_count();

	return want < r->n_dev ? want : r->n_dev;
}

/* Device d's operator window: the one its breakdown takes (--window or
 * the steps' span, else from its first op start to its last op end). */
static gs_status operators_window(const struct gs_report *r, const struct gs_report_device *d,
				  int64_t *lo, int64_t *hi)
{
	size_t n_ops, nr = 0;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);
	struct gs_op_range *rg = NULL;
	bool any = false;
	gs_status st;

	*lo = r->window.start_ns;
	*hi = r->window.end_ns;
	if (r->window_set)
		return GS_OK;
	st = gs_device_op_ranges(r->t, d->device, &rg, &nr);
	for (size_t k = 0; st == GS_OK && k < nr; k++)
		for (size_t o = rg[k].first; o < rg[k].first + rg[k].count; o++) {
			if (!any || ops[o].start_ns < *lo)
				*lo = ops[o].start_ns;
			if (!any || ops[o].end_ns > *hi)
				*hi = ops[o].end_ns;
			any = true;
		}
	free(rg);
	if (!any)
		*lo = *hi = 0;
	return st;
}

/* Device i's operator table, over its window. */
static gs_status operators_one(void *ctx, void *local, size_t i)
{
	struct gs_report *r = ctx;
	struct gs_report_device *d = &r->dev[i];
	int64_t lo, hi;
	gs_status st;

	(void)local;
	st = operators_window(r, d, &lo, &hi);
	if (st == GS_OK)
		st = gs_operators_compute(r->t, r->op_index, d->device, lo, hi,
					  r->g ? r->g->launch : NULL, &d->operators);
	return st;
}

/*
 * The operator tables of every device, before the devices' other analyses,
 * so that the operator index's memory goes back before theirs. Each reads
 * the trace, the index and the graph alone: with two devices or more, on
 * as many threads (as the devices' analyses, all_devices). A device that
 * failed on a thread is built again here, for its causes.
 */
static gs_status all_operators(struct gs_report *r, unsigned threads)
{
	struct gs_pool_job job = {.n = r->n_dev, .ctx = r, .run = operators_one};
	size_t nth = 0, want = device_threads(r, threads);
	gs_status *dst = NULL;
	gs_status st = r->op_index ? GS_OK : gs_op_index_build(r->t, r->op_level, &r->op_index);

	if (st == GS_OK && want >= 2) {
		dst = calloc(r->n_dev, sizeof(*dst));
		if (dst)
			nth = gs_pool_run(&job, want, dst);
	}
	for (size_t i = 0; st == GS_OK && i < r->n_dev; i++) {
		struct gs_report_device *d = &r->dev[i];

		if (nth && dst[i] == GS_OK)
			continue;
		gs_operators_fini(&d->operators);
		memset(&d->operators, 0, sizeof(d->operators));
		st = operators_one(r, NULL, i);
		if (st != GS_OK)
			gs_error_append("device %u: operators", d->device);
	}
	free(dst);
	gs_op_index_destroy(r->op_index);
	r->op_index = NULL;
	return st;
}

/*
 * What reads the trace alone, built on a thread of its own (with a second
 * CPU) while this one finds the steps and builds the graph and the waits:
 * the operator index (the operators themselves need the graph's launch
 * map), then the host range index the devices' breakdowns share. On a
 * failure the causes stay on that thread: what failed is built again here
 * where it is needed (all_operators, the breakdown cache).
 */
#define INDEX_THREAD_MIN_OPS (1u << 16) /* below, a thread costs more */

struct index_job {
	const struct gs_trace *t;
	unsigned level;
	bool host; /* the host range index too */
	struct gs_op_index *ix;
	struct gs_host_index *hix;
	gs_status st, host_st;
	struct gs_aside aside;
};

static void index_main(void *arg)
{
	struct index_job *j = arg;

	j->st = gs_op_index_build(j->t, j->level, &j->ix);
	if (j->host) {
		j->host_st = gs_host_index_build(j->t, &j->hix);
		if (j->host_st == GS_OK)
			j->host_st = gs_host_index_share(j->hix);
	}
}

static void index_start(struct index_job *j, const struct gs_report *r, unsigned threads)
{
	size_t n_ops, n_ranges;

	gs_trace_ops(r->t, &n_ops);
	gs_trace_ranges(r->t, &n_ranges);
	*j = (struct index_job){.t = r->t, .level = r->op_level, .host = n_ranges > 0};
	if (n_ops >= INDEX_THREAD_MIN_OPS && threads != 1 && gs_cpu_count() >= 2)
		gs_aside_start(&j->aside, index_main, j);
}

/* What the thread built goes to the report (the host range index to its
 * breakdown cache, when there is one); nothing of what failed, or when
 * none ran. */
static gs_status index_join(struct index_job *j, struct gs_report *r)
{
	if (!j->aside.started)
		return GS_OK;
	gs_aside_join(&j->aside);
	if (j->st == GS_OK)
		r->op_index = j->ix;
	else
		gs_op_index_destroy(j->ix);
	if (j->host_st == GS_OK && r->bd_cache)
		return gs_breakdown_cache_adopt_host_index(r->bd_cache, j->hix);
	gs_host_index_destroy(j->hix);
	return GS_OK;
}

/*
 * The analyses of a device, in order: each stage reads what the stages
 * before it left in the device (and in the context), fills its part, and
 * on failure names itself in the cause (`what`, "device 0: schedule";
 * NULL: the stage's own cause says enough). dev_fini frees what they
 * filled. A new per-device analysis is a stage here, its part of struct
 * gs_report_device (results.h) and its line in dev_fini.
 */
struct dev_ctx {
	struct gs_report *r;
	struct gs_report_scratch *x; /* the thread's */
	struct gs_report_device *d;
	const struct gs_window *win; /* --window, else NULL: the default */
	struct gs_report_win w;      /* the device's window, once the breakdown has it */
	struct gs_schedule s;        /* until the device keeps it */
};

static gs_status stage_breakdown(struct dev_ctx *c)
{
	struct gs_report *r = c->r;
	struct gs_report_device *d = c->d;
	gs_status st;

	d->name = device_string(r->t, d->device, false);
	d->uuid = device_string(r->t, d->device, true);
	d->default_window = !r->window_set;
	st = gs_breakdown_compute_cached(r->t, d->device, c->win, c->x->bd, &d->b);
	if (st != GS_OK) {
		gs_error_append("device %u: breakdown", d->device);
		return st;
	}
	c->w.start = d->b.window_start;
	c->w.end = d->b.window_end;
	return GS_OK;
}

static gs_status stage_streams(struct dev_ctx *c)
{
	gs_status st = gs_report_dev_streams(c->r, c->x, c->d, c->w);

	if (st == GS_OK)
		dev_optimistic(c->r, c->d);
	return st;
}

static gs_status stage_comm(struct dev_ctx *c)
{
	return gs_report_dev_comm(c->r, c->x, c->d, c->w);
}

static gs_status stage_sync_calls(struct dev_ctx *c)
{
	return gs_report_dev_sync_calls(c->r, c->x, c->d);
}

static gs_status stage_measures(struct dev_ctx *c)
{
	const struct gs_report *r = c->r;

	return gs_measures_compute_max(r->t, c->d->device, c->w.start, c->w.end,
				       r->g ? r->g->launch : NULL, r->max_annotation_pieces,
				       &c->d->measures);
}

static gs_status stage_schedule(struct dev_ctx *c)
{
	return gs_schedule_compute(c->r->t, c->r->g, c->d->device, c->win, &c->s);
}

/* The invariants, the missed overlap, the schedule's figures and the gap
 * by cause: one cause ("missed overlap") for all four, as before. */
static gs_status stage_over_schedule(struct dev_ctx *c)
{
	const struct gs_report *r = c->r;
	struct gs_report_device *d = c->d;
	gs_status st;

	st = gs_schedule_check(r->t, r->g, &c->s, &d->inv);
	if (st == GS_OK)
		st = gs_missed_overlap_compute(r->t, r->g, &c->s, &d->b, &d->missed, &d->n_missed);
	if (st == GS_OK)
		st = dev_schedule(r->t, &c->s, d, c->w, r->window_set);
	if (st == GS_OK)
		st = gs_schedule_gap(r->t, r->g, &c->s, &d->gap);
	if (st == GS_OK && d->gap.n_host)
		st = gs_breakdown_cache_host_ranges(c->x->bd, d->gap.host, d->gap.n_host,
						    &d->gap_host);
	if (st == GS_OK) {
		free(d->gap.host);
		d->gap.host = NULL;
		d->gap.n_host = 0;
	}
	d->critical_lead_ns = c->s.critical_lead_ns;
	/* The per-op bounds and pipelined starts are summed: nothing
	 * after this reads them, so they go before the candidates and the
	 * replay add their own per-op arrays. */
	free(c->s.slot_bound_by);
	free(c->s.slot_pipelined_start);
	c->s.slot_bound_by = NULL;
	c->s.slot_pipelined_start = NULL;
	return st;
}

static gs_status stage_missed_sums(struct dev_ctx *c)
{
	struct gs_report_device *d = c->d;

	if (d->n_missed)
		qsort(d->missed, d->n_missed, sizeof(*d->missed), gs_report_cmp_missed);
	for (size_t i = 0; i < d->n_missed; i++) {
		d->missed_exposed_ns =
			gs_report_sat_add(d->missed_exposed_ns, d->missed[i].exposed_ns);
		d->missed_hideable_ns =
			gs_report_sat_add(d->missed_hideable_ns, d->missed[i].hideable_ns);
		for (unsigned bit = 0; bit < 3; bit++) {
			if (d->missed[i].missing & (1u << bit))
				d->missing_count[bit]++;
			if (d->missed[i].unknown & (1u << bit))
				d->unknown_count[bit]++;
		}
		if (d->missed[i].unknown) {
			d->n_possible++;
			d->possible_hideable_ns = gs_report_sat_add(d->possible_hideable_ns,
								    d->missed[i].hideable_ns);
		}
	}
	return GS_OK;
}

static gs_status stage_candidates(struct dev_ctx *c)
{
	struct gs_report_device *d = c->d;
	gs_status st;

	st = gs_cudagraph_candidates_compute_launch(c->r->t, d->device, c->win,
						    c->r->g ? c->r->g->launch : NULL, &d->cands,
						    &d->n_cands);
	if (st == GS_OK && d->n_cands)
		qsort(d->cands, d->n_cands, sizeof(*d->cands), gs_report_cmp_cand);
	return st;
}

static gs_status stage_replay(struct dev_ctx *c)
{
	return dev_replay(c->r, c->d, &c->s);
}

/* The writers draw the ideal schedule and the whole critical path; the
 * per-op bounds were summed and freed (stage_over_schedule),
 * the shares served the replay: the device keeps the rest. */
static gs_status stage_keep_schedule(struct dev_ctx *c)
{
	struct gs_schedule *s = &c->s;

	free(s->slot_share);
	s->slot_share = NULL;
	c->d->sched = *s;
	memset(s, 0, sizeof(*s));
	return GS_OK;
}

static const struct dev_stage {
	gs_status (*run)(struct dev_ctx *c);
	const char *what; /* the cause's name for it, NULL: none */
} dev_stages[] = {
	{stage_breakdown, NULL},
	{stage_streams, NULL},
	{stage_comm, NULL},
	{stage_sync_calls, NULL},
	{stage_measures, NULL},
	{stage_schedule, "schedule"},
	{stage_over_schedule, "missed overlap"},
	{stage_missed_sums, NULL},
	{stage_candidates, "CUDA Graph candidates"},
	{stage_replay, NULL},
	{stage_keep_schedule, NULL},
};

static gs_status dev_build(struct gs_report *r, struct gs_report_scratch *x,
			   struct gs_report_device *d)
{
	struct dev_ctx c = {.r = r, .x = x, .d = d, .win = r->window_set ? &r->window : NULL};
	gs_status st = GS_OK;

	for (size_t i = 0; st == GS_OK && i < GS_COUNT_OF(dev_stages); i++) {
		st = dev_stages[i].run(&c);
		if (st != GS_OK && dev_stages[i].what)
			gs_error_append("device %u: %s", d->device, dev_stages[i].what);
	}
	/* The schedule until the device keeps it (on a failure before). */
	gs_schedule_fini(&c.s);
	return st;
}

static void dev_fini(struct gs_report_device *d)
{
	size_t i;

	gs_breakdown_fini(&d->b);
	gs_schedule_fini(&d->sched);
	gs_gap_fini(&d->gap);
	gs_host_ranges_fini(&d->gap_host);
	free(d->step_stats);
	free(d->critical);
	free(d->critical_step);
	free(d->critical_rank);
	free(d->missed);
	gs_cudagraph_candidates_free(d->cands, d->n_cands);
	free(d->cand_replay);
	free(d->cand_replay_done);
	free(d->streams);
	free(d->kernels);
	free(d->waits);
	free(d->sync_calls);
	gs_measures_fini(&d->measures);
	gs_operators_fini(&d->operators);
	for (i = 0; i < d->n_findings; i++) {
		free(d->findings[i].text);
		free(d->findings[i].advice);
	}
	free(d->findings);
}

/* ------------------------------------------------------------------------ */
/* The report                                                                 */
/* ------------------------------------------------------------------------ */

void gs_report_destroy(struct gs_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_dev; i++)
		dev_fini(&r->dev[i]);
	free(r->dev);
	gs_steps_fini(&r->steps);
	free(r->call_order);
	free(r->call_tree);
	gs_breakdown_cache_destroy(r->bd_cache);
	gs_op_index_destroy(r->op_index);
	free(r->waits);
	free(r->reported_waits);
	gs_graph_destroy(r->g);
	for (i = 0; i < r->n_inputs; i++)
		free(r->inputs[i]);
	free(r->inputs);
	free(r->format);
	for (i = 0; i < r->n_ranks; i++)
		gs_report_destroy(r->ranks[i]);
	free(r->ranks);
	gs_job_analysis_destroy(r->ja);
	gs_gate_verdict_destroy(r->verdict);
	free(r);
}

gs_status gs_report_copy_options(struct gs_report *r, const struct gs_report_options *o)
{
	size_t i;

	r->rows = o->rows ? o->rows : GS_REPORT_DEFAULT_ROWS;
	r->max_annotation_pieces = o->max_annotation_pieces;
	r->op_level = o->op_level == GS_OP_LEVEL_MODULE ? GS_OP_LEVEL_MODULE : GS_OP_LEVEL_OPERATOR;
	r->graph_node_ns = o->has_graph_node_ns ? o->graph_node_ns : GS_CUDAGRAPH_NODE_NS_DEFAULT;
	if (o->format) {
		r->format = strdup(o->format);
		if (!r->format)
			return gs_nomem();
	}
	if (o->n_inputs) {
		r->inputs = calloc(o->n_inputs, sizeof(*r->inputs));
		if (!r->inputs)
			return gs_nomem();
		for (i = 0; i < o->n_inputs; i++) {
			r->inputs[i] = strdup(o->inputs && o->inputs[i] ? o->inputs[i] : "");
			if (!r->inputs[i])
				return gs_nomem();
			r->n_inputs++;
		}
	}
	return GS_OK;
}

static gs_status resolve_window(struct gs_report *r, const struct gs_report_options *o)
{
	int64_t first = 0, last = 0;

	if (!o->window.set)
		return GS_OK;
	r->window = o->window;
	if (o->window_relative) {
		gs_trace_op_span(r->t, &first, &last);
		if (o->window.start_ns > INT64_MAX - first ||
		    o->window.end_ns > INT64_MAX - first) {
			gs_error_append("window: offsets too large");
			return GS_ERR_INVALID;
		}
		r->window.start_ns = first + o->window.start_ns;
		r->window.end_ns = first + o->window.end_ns;
	}
	if (r->window.end_ns <= r->window.start_ns) {
		gs_error_append("window: end %lld is not after start %lld",
				(long long)r->window.end_ns, (long long)r->window.start_ns);
		return GS_ERR_INVALID;
	}
	r->window_set = true;
	return GS_OK;
}

/* The trace's steps; without --window, the selected steps' span is the
 * window. With --window, the steps are listed and none is selected. */
static gs_status find_steps(struct gs_report *r, const struct gs_report_options *o)
{
	struct gs_step_options so = o->steps;
	gs_status st;

	so.has_device = o->has_device;
	so.device = o->device;
	if (r->window_set)
		so.pick = GS_STEP_NONE;
	st = gs_steps_find(r->t, &so, &r->steps);
	if (st != GS_OK || !r->steps.window_set)
		return st;
	r->window = (struct gs_window){.set = true,
				       .start_ns = r->steps.window_start_ns,
				       .end_ns = r->steps.window_end_ns};
	r->window_set = true;
	r->window_from_steps = true;
	return GS_OK;
}

/* Step i's figures on device d: its breakdown, schedules and the largest
 * cause of its gap, over the step's GPU window. */
static gs_status step_figures(struct gs_report *r, struct gs_breakdown_cache *bd,
			      struct gs_report_device *d, size_t i)
{
	const struct gs_step *stp = &r->steps.steps[i];
	struct gs_report_step_stat *x = &d->step_stats[i];
	struct gs_window w = {.set = true,
			      .start_ns = stp->gpu_start_ns,
			      .end_ns = stp->gpu_end_ns};
	struct gs_breakdown b;
	struct gs_schedule s;
	struct gs_gap gap;
	gs_status st;

	st = gs_breakdown_compute_cached(r->t, d->device, &w, bd, &b);
	if (st != GS_OK)
		return st;
	x->window_ns = b.window_ns;
	memcpy(x->total_ns, b.total_ns, sizeof(x->total_ns));
	gs_breakdown_fini(&b);
	st = gs_schedule_compute(r->t, r->g, d->device, &w, &s);
	if (st == GS_OK)
		st = gs_schedule_gap(r->t, r->g, &s, &gap);
	if (st != GS_OK) {
		gs_schedule_fini(&s);
		return st;
	}
	x->has = s.n_scheduled > 0;
	x->ops = s.n_scheduled;
	x->actual_ns = s.actual_ns;
	x->ideal_ns = s.ideal_ns;
	x->efficiency = s.actual_ns > 0 && s.ideal_ns <= s.actual_ns && !s.broken_cycles ?
				(double)s.ideal_ns / (double)s.actual_ns :
				NAN;
	for (unsigned c = 0; gap.available && c < GS_GAP_CAUSE_COUNT; c++)
		if (gap.ns[c] > 0 && gap.ns[c] > x->gap_cause_ns) {
			x->gap_cause = (uint8_t)c;
			x->gap_cause_ns = gap.ns[c];
		}
	gs_gap_fini(&gap);
	gs_schedule_fini(&s);
	return GS_OK;
}

/* How many of the first steps get figures on device d: each costs about
 * the device's ops that start in its window. */
static gs_status steps_with_figures(struct gs_report *r, struct gs_report_device *d)
{
	size_t n_ops, n_ranges, used = 0;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);
	struct gs_op_range *ranges = NULL;
	gs_status st = gs_device_op_ranges(r->t, d->device, &ranges, &n_ranges);

	if (st != GS_OK)
		return st;
	d->n_step_figures = 0;
	for (size_t i = 0; i < r->steps.n && i < GS_REPORT_STEP_FIGURES; i++) {
		const struct gs_step *stp = &r->steps.steps[i];
		size_t cost = 1;

		for (size_t k = 0; k < n_ranges && stp->gpu_end_ns > stp->gpu_start_ns; k++)
			cost += gs_op_range_first_at(ops, ranges[k], stp->gpu_end_ns) -
				gs_op_range_first_at(ops, ranges[k], stp->gpu_start_ns);
		if (i && used + cost > GS_REPORT_STEP_BUDGET)
			break;
		used += cost;
		d->n_step_figures = i + 1;
	}
	free(ranges);
	return GS_OK;
}

/* Each step's figures on device d, for the first steps within the
 * budget (the others list their windows only). */
static gs_status dev_steps(struct gs_report *r, struct gs_report_scratch *x,
			   struct gs_report_device *d)
{
	bool keep = r->n_dev >= GS_SHARE_MIN_DEVICES; /* the cache keeps them already */
	gs_status st;

	if (!r->steps.n || !r->g)
		return GS_OK;
	d->step_stats = calloc(r->steps.n, sizeof(*d->step_stats));
	if (!d->step_stats)
		return gs_nomem();
	for (size_t i = 0; i < r->steps.n; i++)
		d->step_stats[i].gap_cause = GS_GAP_CAUSE_COUNT;
	st = steps_with_figures(r, d);
	/* The steps' breakdowns share the threads' flattened calls; they go
	 * after this device's steps. */
	if (!keep)
		gs_breakdown_cache_keep(x->bd, true);
	for (size_t i = 0; st == GS_OK && i < d->n_step_figures; i++)
		if (r->steps.steps[i].gpu_end_ns > r->steps.steps[i].gpu_start_ns)
			st = step_figures(r, x->bd, d, i);
	if (!keep)
		gs_breakdown_cache_keep(x->bd, false);
	return st;
}

/* ------------------------------------------------------------------------ */
/* The devices, on several threads                                           */
/* ------------------------------------------------------------------------ */

static void scratch_fini(struct gs_report_scratch *x)
{
	free(x->name_slot);
	free(x->name_memo);
	free(x->call_sum);
	gs_breakdown_cache_destroy(x->bd);
	memset(x, 0, sizeof(*x));
}

static gs_status scratch_init(const struct gs_report *r, struct gs_report_scratch *x)
{
	size_t n_names = gs_trace_string_count(r->t) + 1;
	gs_status st;

	memset(x, 0, sizeof(*x));
	x->name_slot = calloc(n_names, sizeof(*x->name_slot));
	x->name_memo = calloc(n_names, sizeof(*x->name_memo));
	if (!x->name_slot || !x->name_memo) {
		scratch_fini(x);
		return gs_nomem();
	}
	st = gs_breakdown_cache_fork(r->bd_cache, &x->bd);
	if (st != GS_OK)
		scratch_fini(x);
	return st;
}

/* One device: its analyses, then its steps' figures. */
static gs_status dev_build_all(struct gs_report *r, struct gs_report_scratch *x,
			       struct gs_report_device *d)
{
	gs_status st = dev_build(r, x, d);

	if (st == GS_OK)
		st = dev_steps(r, x, d);
	return st;
}

/* Device d as before its build (its operators were made before). */
static void dev_reset(struct gs_report_device *d)
{
	struct gs_operators ops = d->operators;
	uint32_t device = d->device;

	memset(&d->operators, 0, sizeof(d->operators));
	dev_fini(d);
	memset(d, 0, sizeof(*d));
	d->device = device;
	d->operators = ops;
}

/*
 * The devices' builds on as many CPUs as the process may use: a device's
 * results depend on the trace and the report's shared tables alone, which
 * are built before and only read by the threads (the breakdown cache,
 * shared; the call tree); each thread has its scratch (struct
 * gs_report_scratch). So the report is the same whatever the threads.
 * Threads take devices in order (gs_pool_run). On a failure the causes
 * live on the thread that failed: the first failing device, in order, is
 * built again on this thread to report them.
 */
static gs_status scratch_new(void *ctx, void **local)
{
	struct gs_report_scratch *x = malloc(sizeof(*x));
	const struct gs_report *r = ctx;
	gs_status st;

	if (!x)
		return gs_nomem();
	st = scratch_init(r, x);
	if (st != GS_OK) {
		free(x);
		return st;
	}
	*local = x;
	return GS_OK;
}

static void scratch_free(void *ctx, void *local)
{
	(void)ctx;
	scratch_fini(local);
	free(local);
}

static gs_status device_build(void *ctx, void *local, size_t i)
{
	struct gs_report *r = ctx;

	return dev_build_all(r, local, &r->dev[i]);
}

/* Whether some breakdown of the report is over a window (--window, or
 * the steps' figures). */
static bool breakdown_windows(const struct gs_report *r)
{
	return r->window_set || (r->steps.n && r->g);
}

/* What the threads only read, built before them on this thread. */
static gs_status share_tables(struct gs_report *r)
{
	size_t n_api;
	gs_status st;

	st = gs_breakdown_cache_share(r->bd_cache, breakdown_windows(r));
	gs_trace_api_calls(r->t, &n_api);
	if (st == GS_OK && r->n_dev >= GS_SHARE_MIN_DEVICES && n_api && !r->call_tree)
		st = gs_report_call_tree_build(r);
	return st;
}

static gs_status all_devices(struct gs_report *r, unsigned threads)
{
	struct gs_pool_job job = {.n = r->n_dev,
				  .ctx = r,
				  .run = device_build,
				  .init = scratch_new,
				  .fini = scratch_free};
	size_t nth = 0, want = device_threads(r, threads);
	gs_status *dst = NULL;
	struct gs_report_scratch x = {0};
	gs_status st = GS_OK;

	/* The breakdown cache (r->bd_cache) was made with the graph. */
	if (!r->n_dev)
		return GS_OK;
	if (want >= 2) {
		dst = calloc(r->n_dev, sizeof(*dst));
		if (!dst)
			return gs_nomem();
		st = share_tables(r);
		if (st == GS_OK)
			nth = gs_pool_run(&job, want, dst);
	}
	/* One CPU, or no thread could start: one after another, on this
	 * thread. Else the first failing device again, for its causes. */
	for (size_t i = 0; st == GS_OK && i < r->n_dev; i++) {
		if (nth && dst[i] == GS_OK)
			continue;
		if (nth)
			dev_reset(&r->dev[i]);
		if (!x.bd)
			st = scratch_init(r, &x);
		if (st == GS_OK)
			st = dev_build_all(r, &x, &r->dev[i]);
	}
	scratch_fini(&x);
	free(dst);
	return st;
}

/* The devices to report: all with ops, or the one asked for. */
static gs_status pick_devices(struct gs_report *r, const struct gs_report_options *o)
{
	uint32_t *ids = NULL;
	size_t n = 0, i;
	gs_status st;

	st = gs_trace_op_devices(r->t, &ids, &n);
	if (st != GS_OK)
		return st;
	if (o->has_device) {
		for (i = 0; i < n && ids[i] != o->device; i++)
			;
		if (i == n) {
			char list[256] = "";
			size_t len = 0, k;

			for (k = 0; k < n && len + 16 < sizeof(list); k++)
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
							k ? ", " : "", ids[k]);
			if (n)
				gs_error_append(
					"device %u has no GPU ops in the trace (devices with "
					"ops: %s)",
					o->device, list);
			else
				gs_error_append(
					"device %u has no GPU ops: the trace has no GPU ops",
					o->device);
			free(ids);
			return GS_ERR_INVALID;
		}
		ids[0] = o->device;
		n = 1;
	}
	if (n) {
		r->dev = calloc(n, sizeof(*r->dev));
		if (!r->dev) {
			free(ids);
			return gs_nomem();
		}
	}
	for (i = 0; i < n; i++)
		r->dev[i].device = ids[i];
	r->n_dev = n;
	free(ids);
	return GS_OK;
}

gs_status gs_report_build(const struct gs_trace *t, const struct gs_report_options *o,
			  struct gs_report **out)
{
	static const struct gs_report_options defaults = {.rows = 0};
	struct index_job ix = {0};
	struct gs_report *r;
	gs_status st;
	size_t i;

	if (out)
		*out = NULL;
	if (!t || !out) {
		gs_error_append("gs_report_build: no %s", t ? "output" : "trace");
		return GS_ERR_INVALID;
	}
	if (!o)
		o = &defaults;
	r = calloc(1, sizeof(*r));
	if (!r)
		return gs_nomem();
	r->t = t;
	r->pid = -1;
	r->host = "";
	r->input = "";
	st = gs_report_copy_options(r, o);
	if (st == GS_OK)
		st = resolve_window(r, o);
	if (st == GS_OK)
		index_start(&ix, r, o->threads);
	if (st == GS_OK)
		st = find_steps(r, o);
	if (st == GS_OK)
		st = pick_devices(r, o);
	if (st == GS_OK && r->n_dev) {
		struct gs_graph_options go = {.max_edges = o->max_edges};

		st = gs_graph_build_opts(t, &go, &r->g);
		if (st != GS_OK)
			gs_error_append("dependency graph");
	}
	if (st == GS_OK && r->g) {
		st = gs_waits_compute(t, r->g, &r->waits, &r->n_waits);
		if (st != GS_OK)
			gs_error_append("waits");
	}
	/* The breakdowns' cache, and its reach arrays when some breakdown is
	 * over a window, made while the thread may still be at its indexes. */
	if (st == GS_OK && r->n_dev)
		st = gs_breakdown_cache_create(t, r->g ? r->g->launch : NULL,
					       r->n_dev >= GS_SHARE_MIN_DEVICES, &r->bd_cache);
	if (st == GS_OK && r->n_dev && breakdown_windows(r))
		st = gs_breakdown_cache_reach(r->bd_cache);
	{
		gs_status joined = index_join(&ix, r);

		if (st == GS_OK)
			st = joined;
	}
	if (st == GS_OK)
		st = all_operators(r, o->threads);
	if (st == GS_OK)
		st = all_devices(r, o->threads);
	/* The breakdown cache (per-thread pieces, the host range index) serves
	 * the devices' breakdowns only: its memory goes back before the rest. */
	gs_breakdown_cache_destroy(r->bd_cache);
	r->bd_cache = NULL;
	if (st == GS_OK)
		st = assign_waits(r);
	for (i = 0; st == GS_OK && i < r->n_dev; i++)
		st = gs_report_dev_findings(r, &r->dev[i]);
	if (st == GS_OK)
		st = gs_report_cut_lists(r);
	if (st != GS_OK) {
		gs_report_destroy(r);
		return st;
	}
	*out = r;
	return GS_OK;
}
