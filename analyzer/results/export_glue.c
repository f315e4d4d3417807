/* SPDX-License-Identifier: MIT */
/*
 * What the analyses hand to the exporters (gs_export_data_build): the
 * launch of each op, the dependency graph's edges, each device's breakdown
 * segments and ideal schedule, copied into the plain arrays of struct
 * gs_export_extras (gpuscope/export.h), so gs_export never depends on the
 * analyzer. Cost: the graph O(E log E) and, per device, the breakdown and
 * the schedule (see breakdown.c, schedule.c); memory O(N + E + segments).
 */
#include "analyzer_priv.h"

#include <gpuscope/breakdown.h>
#include <gpuscope/export.h>
#include <gpuscope/export_data.h>
#include <gpuscope/graph.h>
#include <gpuscope/schedule.h>
#include <gpuscope/trace.h>
#include <gpuscope/window.h>

#include <stdlib.h>
#include <string.h>

struct gs_export_data {
	struct gs_export_extras x;
	struct gs_export_edge *edges;
	struct gs_export_breakdown *bds;
	struct gs_export_segment **segs;
	size_t n_bds;
	uint8_t *ideal_in;
	int64_t *ideal_start;
	uint8_t *ideal_bound;
	const char *edge_names[GS_EDGE_KIND_COUNT];
	const char *cat_names[GS_CAT_COUNT];
	const char *bound_names[GS_BOUND_COUNT];
};

static void *alloc_n(size_t n, size_t size)
{
	return calloc(n ? n : 1, size);
}

static gs_status take_edges(struct gs_export_data *d, const struct gs_graph *g)
{
	d->edges = alloc_n(g->n_edges, sizeof(*d->edges));
	if (!d->edges)
		return gs_nomem();
	for (size_t i = 0; i < g->n_edges; i++)
		d->edges[i] =
			(struct gs_export_edge){g->edges[i].from, g->edges[i].to, g->edges[i].kind};
	for (unsigned k = 0; k < GS_EDGE_KIND_COUNT; k++)
		d->edge_names[k] = gs_edge_kind_name(k);
	d->x.edges = d->edges;
	d->x.n_edges = g->n_edges;
	d->x.edge_kind_names = d->edge_names;
	d->x.n_edge_kinds = GS_EDGE_KIND_COUNT;
	return GS_OK;
}

/* The breakdown of every device, with one cache for all of them. */
static gs_status take_breakdown(struct gs_export_data *d, const struct gs_trace *t,
				const uint32_t *devs, size_t n_devs)
{
	struct gs_breakdown_cache *cache = NULL;
	gs_status rc;

	d->bds = alloc_n(n_devs, sizeof(*d->bds));
	d->segs = alloc_n(n_devs, sizeof(struct gs_export_segment *));
	if (!d->bds || !d->segs)
		return gs_nomem();
	rc = gs_breakdown_cache_create(t, NULL, n_devs >= GS_SHARE_MIN_DEVICES, &cache);
	d->n_bds = n_devs;
	for (size_t i = 0; i < n_devs && !rc; i++) {
		struct gs_breakdown b;

		rc = gs_breakdown_compute_cached(t, devs[i], NULL, cache, &b);
		if (rc)
			break;
		d->segs[i] = alloc_n(b.n_segments, sizeof(*d->segs[i]));
		if (!d->segs[i]) {
			gs_breakdown_fini(&b);
			rc = gs_nomem();
			break;
		}
		for (size_t s = 0; s < b.n_segments; s++)
			d->segs[i][s] = (struct gs_export_segment){b.segments[s].start_ns,
								   b.segments[s].end_ns,
								   b.segments[s].category};
		d->bds[i] = (struct gs_export_breakdown){devs[i], d->segs[i], b.n_segments};
		gs_breakdown_fini(&b);
	}
	gs_breakdown_cache_destroy(cache);
	if (rc)
		return rc;
	for (unsigned k = 0; k < GS_CAT_COUNT; k++)
		d->cat_names[k] = gs_category_name(k);
	d->x.breakdowns = d->bds;
	d->x.n_breakdowns = n_devs;
	d->x.category_names = d->cat_names;
	d->x.n_categories = GS_CAT_COUNT;
	return GS_OK;
}

static gs_status take_ideal(struct gs_export_data *d, const struct gs_trace *t,
			    const struct gs_graph *g, const uint32_t *devs, size_t n_devs)
{
	size_t n_ops;

	gs_trace_ops(t, &n_ops);
	d->ideal_in = alloc_n(n_ops, 1);
	d->ideal_start = alloc_n(n_ops, sizeof(int64_t));
	d->ideal_bound = alloc_n(n_ops, 1);
	if (!d->ideal_in || !d->ideal_start || !d->ideal_bound)
		return gs_nomem();
	for (size_t i = 0; i < n_devs; i++) {
		struct gs_schedule s;
		gs_status rc = gs_schedule_compute(t, g, devs[i], NULL, &s);

		if (rc)
			return rc;
		/* The device's ops: the schedule's slots. */
		for (size_t r = 0; r < s.n_slot_ranges; r++) {
			for (size_t k = 0; k < s.slot_ranges[r].count; k++) {
				size_t o = s.slot_ranges[r].first + k,
				       slot = s.slot_ranges[r].slot + k;

				if (o >= n_ops)
					break;
				d->ideal_in[o] = 1;
				d->ideal_start[o] = s.slot_ideal_start[slot];
				d->ideal_bound[o] = s.slot_bound_by[slot];
			}
		}
		gs_schedule_fini(&s);
	}
	for (unsigned k = 0; k < GS_BOUND_COUNT; k++)
		d->bound_names[k] = gs_constraint_name(k);
	d->x.ideal_in = d->ideal_in;
	d->x.ideal_start = d->ideal_start;
	d->x.ideal_bound = d->ideal_bound;
	d->x.bound_names = d->bound_names;
	d->x.n_bound_names = GS_BOUND_COUNT;
	return GS_OK;
}

gs_status gs_export_data_build(const struct gs_trace *t, unsigned want, struct gs_export_data **out)
{
	return gs_export_data_build_max(t, want, 0, out);
}

gs_status gs_export_data_build_max(const struct gs_trace *t, unsigned want, uint64_t max_edges,
				   struct gs_export_data **out)
{
	/* Every edge: an exported graph draws each dependency, implied or not. */
	const struct gs_graph_options go = {.max_edges = max_edges, .keep_implied = true};
	struct gs_export_data *d;
	struct gs_graph *g = NULL;
	uint32_t *devs = NULL;
	size_t n_devs = 0, n_ops;
	gs_status rc = GS_OK;
	bool want_edges = want & GS_EXPORT_WANT_EDGES, want_ideal = want & GS_EXPORT_WANT_IDEAL;

	if (!t || !out) {
		gs_error_append("gs_export_data_build: no trace or no output");
		return GS_ERR_INVALID;
	}
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return gs_nomem();
	gs_trace_ops(t, &n_ops);
	if (want_edges || want_ideal)
		rc = gs_graph_build_opts(t, &go, &g);
	if (!rc && (want_ideal || (want & GS_EXPORT_WANT_BREAKDOWN)))
		rc = gs_trace_op_devices(t, &devs, &n_devs);
	if (!rc && (want & GS_EXPORT_WANT_LAUNCH)) {
		size_t n_launch;

		/* Borrowed: the trace's join, valid while the trace is. */
		d->x.launch = gs_trace_op_launches(t, &n_launch);
	}
	if (!rc && want_edges)
		rc = take_edges(d, g);
	if (!rc && (want & GS_EXPORT_WANT_BREAKDOWN))
		rc = take_breakdown(d, t, devs, n_devs);
	if (!rc && want_ideal)
		rc = take_ideal(d, t, g, devs, n_devs);
	gs_graph_destroy(g);
	free(devs);
	if (rc) {
		gs_export_data_destroy(d);
		return rc;
	}
	*out = d;
	return GS_OK;
}

const struct gs_export_extras *gs_export_data_extras(const struct gs_export_data *d)
{
	return d ? &d->x : NULL;
}

void gs_export_data_destroy(struct gs_export_data *d)
{
	if (!d)
		return;
	free(d->edges);
	for (size_t i = 0; d->segs && i < d->n_bds; i++)
		free(d->segs[i]);
	free(d->segs);
	free(d->bds);
	free(d->ideal_in);
	free(d->ideal_start);
	free(d->ideal_bound);
	free(d);
}
