/* SPDX-License-Identifier: MIT */
/*
 * The export plan of a job (export_plan.h): each rank planned
 * (export_plan.c), then the ranks numbered: their pids, ids and clocks, in
 * rank order, and the dependency flows of each.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy_names.h"
#include "export_base.h"
#include "export_plan.h"
#include "export_plan_priv.h"

/* Processes a rank needs: each device (and its ideal schedule), each host
 * process. */
static uint64_t job_lanes(const struct xplan *c)
{
	return (uint64_t)c->n_devs * (c->ideal ? 2 : 1) + c->n_hp;
}

/* pid = key * stride + lane: lanes 0.. the devices by id, each followed by
 * its ideal schedule, then the host processes by recorded pid. */
static void job_pids(struct xplan *c, int64_t base)
{
	int64_t lane = 0;
	size_t i;

	for (i = 0; i < c->n_devs; i++) {
		c->devs[i].pid = base + lane++;
		if (c->ideal)
			c->devs[i].ideal_pid = base + lane++;
	}
	for (i = 0; i < c->n_hp; i++)
		c->hp[i].cpid = base + lane++;
}

/* The process record of a rank: its pid's, else its first (NULL: none). */
static const struct gs_process *rank_process(const struct xplan *c)
{
	for (size_t i = 0; i < c->n_procs; i++)
		if (c->procs[i].pid == c->rank->pid)
			return &c->procs[i];
	return c->n_procs ? &c->procs[0] : NULL;
}

/* The largest id a rank writes (correlation, event, sync, external). */
static uint64_t rank_max_id(const struct xplan *c)
{
	uint64_t m = 0;
	size_t i;

#define GS_MAX_ID(v)                                                                               \
	do {                                                                                       \
		if ((v) > m)                                                                       \
			m = (v);                                                                   \
	} while (0)
	for (i = 0; i < c->n_ops; i++)
		GS_MAX_ID(c->ops[i].correlation);
	for (i = 0; i < c->n_api; i++)
		GS_MAX_ID(c->api[i].correlation);
	for (i = 0; i < c->n_syncs; i++) {
		GS_MAX_ID(c->syncs[i].correlation);
		GS_MAX_ID(c->syncs[i].event_correlation);
		GS_MAX_ID(c->syncs[i].event_id);
		GS_MAX_ID(c->syncs[i].sync_id);
	}
	for (i = 0; i < c->n_ranges; i++)
		GS_MAX_ID(c->ranges[i].external_id);
#undef GS_MAX_ID
	return m;
}

/* Ids a reader that holds JSON numbers as doubles still gets exactly. */
#define ID_LIMIT (1ULL << 53)

/*
 * Each rank's ids in a range of its own, so that no correlation, event,
 * sync or external id of one rank is another's (the Kineto format joins a
 * launch to its op by correlation id across the whole file): id + key * K,
 * K the power of ten (at least 1000) above every rank's largest id, key
 * the rank number, or its position in rank order when rank numbers would
 * pass 2^53; 0 stays 0. Order within a rank is kept. Ids that cannot stay
 * below 2^53 so are refused (GS_ERR_LIMIT).
 */
static gs_status job_ids(struct xplan *cs, size_t n)
{
	uint64_t most = 0, k = 1000, top = cs[n - 1].rank->rank;
	bool by_position;

	for (size_t r = 0; r < n; r++) {
		uint64_t m = rank_max_id(&cs[r]);

		if (m > most)
			most = m;
	}
	while (k <= most && k <= ID_LIMIT / 10)
		k *= 10;
	by_position = most >= ID_LIMIT || top > (ID_LIMIT - 1 - most) / k;
	if (k <= most || (by_position && (uint64_t)(n - 1) > (ID_LIMIT - 1 - most) / k)) {
		gs_error_append("export: the ids of %zu ranks (up to %llu) cannot be kept "
				"apart below 2^53",
				n, (unsigned long long)most);
		return GS_ERR_LIMIT;
	}
	for (size_t r = 0; r < n; r++)
		cs[r].id_offset = (by_position ? (uint64_t)r : cs[r].rank->rank) * k;
	return GS_OK;
}

/* The earliest and latest time a rank writes (false: none). */
bool gs_xp_time_span(const struct xplan *c, int64_t *lo, int64_t *hi)
{
	bool any = false;
	size_t i;

#define GS_SPAN(a, b)                                                                              \
	do {                                                                                       \
		if (!any || (a) < *lo)                                                             \
			*lo = (a);                                                                 \
		if (!any || (b) > *hi)                                                             \
			*hi = (b);                                                                 \
		any = true;                                                                        \
	} while (0)
	for (i = 0; i < c->n_ops; i++) {
		GS_SPAN(c->ops[i].start_ns, c->ops[i].end_ns);
		if (c->ideal && c->x->ideal_in[i])
			GS_SPAN(c->x->ideal_start[i],
				c->x->ideal_start[i] + (c->ops[i].end_ns - c->ops[i].start_ns));
	}
	for (i = 0; i < c->n_api; i++)
		GS_SPAN(c->api[i].start_ns, c->api[i].end_ns);
	for (i = 0; i < c->n_syncs; i++)
		GS_SPAN(c->syncs[i].start_ns, c->syncs[i].end_ns);
	for (i = 0; i < c->n_ranges; i++)
		GS_SPAN(c->ranges[i].start_ns, c->ranges[i].end_ns);
	for (i = 0; i < c->n_oh; i++)
		GS_SPAN(c->oh[i].start_ns, c->oh[i].end_ns);
	for (i = 0; c->x && i < c->x->n_breakdowns; i++) {
		const struct gs_export_breakdown *b = &c->x->breakdowns[i];

		if (b->n_segments)
			GS_SPAN(b->segments[0].start_ns, b->segments[b->n_segments - 1].end_ns);
	}
#undef GS_SPAN
	return any;
}

/*
 * One time axis where the wall clocks say the ranks ran together: the
 * reference is the first rank (in rank order) whose clock is known; every
 * other rank with a known clock is written shifted onto it, by the
 * difference of their offsets to UTC (t + own offset = t' + reference's
 * offset). Ranks whose clock is not known, and any whose shifted times
 * would leave the model's range (+-2^62 ns), keep their times. The shift
 * is in the rank's process args and in gpuscope_job, and the importer
 * takes it off again.
 */
static void job_clocks(struct xplan *cs, size_t n)
{
	const struct gs_process *ref = NULL;

	for (size_t r = 0; r < n && !ref; r++)
		if (cs[r].rproc && cs[r].rproc->clock)
			ref = cs[r].rproc;
	for (size_t r = 0; r < n && ref; r++) {
		const struct gs_process *p = cs[r].rproc;
		int64_t d, lo = 0, hi = 0;

		cs[r].shift = 0;
		if (!p || !p->clock ||
		    __builtin_sub_overflow(p->wall_offset_ns, ref->wall_offset_ns, &d))
			continue;
		if (d >= GS_TIME_LIMIT_NS || d <= -GS_TIME_LIMIT_NS)
			continue;
		if (gs_xp_time_span(&cs[r], &lo, &hi) &&
		    (lo + d <= -GS_TIME_LIMIT_NS || hi + d >= GS_TIME_LIMIT_NS))
			continue;
		cs[r].shift = d;
	}
}

static int cmp_rank_ptr(const void *pa, const void *pb)
{
	uint32_t a = (*(const struct gs_export_rank *const *)pa)->rank;
	uint32_t b = (*(const struct gs_export_rank *const *)pb)->rank;

	return (a > b) - (a < b);
}

/* The stride of the pids (1000, or the power of ten above the most
 * processes of a rank) and whether rank numbers fit 31-bit pids; else the
 * ranks' positions in rank order stand for their numbers. */
static gs_status job_numbering(struct xplan *cs, const struct gs_export_rank **order, size_t n,
			       int64_t *stride, bool *by_position)
{
	uint64_t most = 0, top = 0;

	for (size_t r = 0; r < n; r++) {
		uint64_t l = job_lanes(&cs[r]);

		if (l > most)
			most = l;
		if (order[r]->rank > top)
			top = order[r]->rank;
	}
	*stride = 1000;
	while ((uint64_t)*stride < most && *stride < 1000000000)
		*stride *= 10;
	*by_position = (top + 1) * (uint64_t)*stride - 1 > INT32_MAX;
	if ((uint64_t)*stride < most ||
	    (*by_position && (uint64_t)n * (uint64_t)*stride - 1 > INT32_MAX)) {
		gs_error_append("export: %zu ranks of up to %llu processes need pids past "
				"2^31 - 1",
				n, (unsigned long long)most);
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

/*
 * The dependency flows of every rank against max_flows: the first in rank
 * order, then edge order, are written (each rank's flow_cut); the count
 * left out goes to the Chrome header and *o->stats.
 */
static void plan_flows(struct gs_xp_job *j, const struct gs_export_options *o)
{
	struct xflows *f = &j->flows;
	uint64_t budget;

	f->max = o && o->has_max_flows ? o->max_flows : GS_EXPORT_MAX_FLOWS_DEFAULT;
	f->total = 0;
	for (size_t r = 0; r < j->n; r++)
		f->total += gs_xplan_count_flows(&j->cs[r]);
	f->budget = f->total < f->max ? f->total : f->max;
	f->left = f->total - f->budget;
	budget = f->budget;
	for (size_t r = 0; r < j->n; r++) {
		struct xplan *c = &j->cs[r];
		const struct gs_export_extras *x = c->x;
		size_t e = 0;

		for (; x && e < x->n_edges; e++) {
			const struct gs_export_edge *g = &x->edges[e];

			if (g->from >= c->n_ops || g->to >= c->n_ops ||
			    !gs_xp_op_kept(c, g->from) || !gs_xp_op_kept(c, g->to))
				continue;
			if (!budget)
				break;
			budget--;
		}
		c->flow_cut = e;
	}
	if (o && o->stats) {
		o->stats->dependency_flows = f->total;
		o->stats->flows_left_out = f->left;
	}
}

void gs_xp_job_fini(struct gs_xp_job *j)
{
	for (size_t r = 0; j->cs && r < j->n; r++)
		gs_xplan_free(&j->cs[r]);
	free(j->cs);
	free(j->order);
	memset(j, 0, sizeof(*j));
}

gs_status gs_xp_job_init(struct gs_xp_job *j, const struct gs_export_rank *ranks, size_t n,
			 const struct gs_export_options *o)
{
	bool by_position = false;
	gs_status rc = GS_OK;
	size_t r;

	memset(j, 0, sizeof(*j));
	if (!ranks || !n) {
		gs_error_append("export: no rank");
		return GS_ERR_INVALID;
	}
	for (r = 0; r < n; r++) {
		if (!ranks[r].trace) {
			gs_error_append("export: rank %zu has no trace", r);
			return GS_ERR_INVALID;
		}
	}
	j->order = calloc(n, sizeof(*j->order)); /* NOLINT(bugprone-sizeof-expression): pointers */
	j->cs = calloc(n, sizeof(*j->cs));
	if (!j->order || !j->cs) {
		gs_xp_job_fini(j);
		return gs_nomem();
	}
	j->n = n;
	for (r = 0; r < n; r++)
		j->order[r] = &ranks[r];
	if (n == 1) {
		/* A trace on its own: the classic layout, no rank numbering. */
		rc = gs_xplan_plan(&j->cs[0], &j->flows, ranks[0].trace, ranks[0].extras, o);
		if (!rc)
			plan_flows(j, o);
		return rc;
	}
	qsort(j->order, n, sizeof(*j->order), /* NOLINT(bugprone-sizeof-expression) */
	      cmp_rank_ptr);
	for (r = 1; r < n && !rc; r++) {
		if (j->order[r]->rank == j->order[r - 1]->rank) {
			gs_error_append("export: rank %u given twice", j->order[r]->rank);
			rc = GS_ERR_INVALID;
		}
	}
	for (r = 0; r < n && !rc; r++) {
		j->cs[r].rank = j->order[r];
		rc = gs_xplan_plan(&j->cs[r], &j->flows, j->order[r]->trace, j->order[r]->extras,
				   o);
		j->cs[r].rproc = rank_process(&j->cs[r]);
	}
	if (!rc)
		rc = job_numbering(j->cs, j->order, n, &j->stride, &by_position);
	if (!rc)
		rc = job_ids(j->cs, n);
	if (!rc)
		job_clocks(j->cs, n);
	if (!rc)
		plan_flows(j, o);
	for (r = 0; r < n && !rc; r++) {
		j->cs[r].pid_base =
			(by_position ? (int64_t)r : (int64_t)j->order[r]->rank) * j->stride;
		job_pids(&j->cs[r], j->cs[r].pid_base);
	}
	return rc;
}
