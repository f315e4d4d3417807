/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto writer (pftrace.c): one rank's tracks and events: its
 * sequence, the dependency edges by op, host processes and threads (calls
 * and ranges nested on lanes), profiler overheads, streams (and the ideal
 * schedule), syncs, GPU annotations and the breakdown's counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/export.h>

#include "export_base.h"
#include "export_plan.h"
#include "pftrace_priv.h"

/* ------------------------------------------------------------------------ */
/* The rank                                                                 */
/* ------------------------------------------------------------------------ */

/* The written dependency edges by source and by destination op. */
static gs_status edges_by_op(struct pftrace_writer *f)
{
	const struct xplan *c = f->c;
	const struct gs_export_extras *x = c->x;
	size_t n_e = x ? x->n_edges : 0, m = 0;

	f->out_first = calloc(c->n_ops + 1, sizeof(uint32_t));
	f->in_first = calloc(c->n_ops + 1, sizeof(uint32_t));
	if (!f->out_first || !f->in_first)
		return gs_nomem();
	for (size_t e = 0; e < n_e; e++) {
		if (!gs_xp_edge_written(c, e))
			continue;
		f->out_first[x->edges[e].from + 1]++;
		f->in_first[x->edges[e].to + 1]++;
		m++;
	}
	f->out_edges = malloc((m ? m : 1) * sizeof(uint32_t));
	f->in_edges = malloc((m ? m : 1) * sizeof(uint32_t));
	if (!f->out_edges || !f->in_edges)
		return gs_nomem();
	for (size_t o = 0; o < c->n_ops; o++) {
		f->out_first[o + 1] += f->out_first[o];
		f->in_first[o + 1] += f->in_first[o];
	}
	{
		uint32_t *po = malloc((c->n_ops + 1) * sizeof(uint32_t));
		uint32_t *pi = malloc((c->n_ops + 1) * sizeof(uint32_t));

		if (!po || !pi) {
			free(po);
			free(pi);
			return gs_nomem();
		}
		memcpy(po, f->out_first, (c->n_ops + 1) * sizeof(uint32_t));
		memcpy(pi, f->in_first, (c->n_ops + 1) * sizeof(uint32_t));
		for (size_t e = 0; e < n_e; e++) {
			if (!gs_xp_edge_written(c, e))
				continue;
			f->out_edges[po[x->edges[e].from]++] = (uint32_t)e;
			f->in_edges[pi[x->edges[e].to]++] = (uint32_t)e;
		}
		free(po);
		free(pi);
	}
	return GS_OK;
}

/* A host event's begin: a call (with the flows to the ops it launched) or
 * a range. */
static void host_begin(struct pftrace_writer *f, uint64_t track, const struct href *r)
{
	const struct xplan *c = f->c;
	struct xargs a = {pftrace_da_u64, pftrace_da_i64, pftrace_da_str, pftrace_da_dim3, f};

	if (r->type == HR_RANGE) {
		const struct gs_range *g = &c->ranges[r->idx];

		pftrace_slice_begin(f, track, g->start_ns, pftrace_range_cat(g), g->name, NULL);
		gs_xp_range_args(c, r->idx, &a);
	} else {
		const struct gs_api_call *k = &c->api[r->idx];

		pftrace_slice_begin(f, track, k->start_ns,
				    k->kind == GS_API_DRIVER ? CAT_DRIVER : CAT_RUNTIME, k->name,
				    NULL);
		gs_xp_api_args(c, r->idx, &a);
		for (uint32_t j = c->call_ops_first[r->idx]; j < c->call_ops_first[r->idx + 1]; j++)
			if (gs_xp_op_kept(c, c->call_ops[j]))
				proto_fixed64(&f->pkt, F_TE_FLOW_IDS,
					      pftrace_launch_flow(f, c->call_ops[j]));
	}
	pftrace_slice_begin_end(f);
}

/* A host thread: a track per lane, its calls and ranges nested. */
static void write_thread(struct pftrace_writer *f, uint64_t parent, const struct hthread *th,
			 size_t first, size_t last, int64_t *sort)
{
	const struct xplan *c = f->c;
	size_t n = last - first, k;
	uint32_t *items = malloc((n ? n : 1) * sizeof(*items));
	uint32_t *lane = malloc((n ? n : 1) * sizeof(*lane));
	uint32_t *lf = NULL;
	char name[320];

	if (!items || !lane) {
		pftrace_fail(f, gs_nomem());
		goto out;
	}
	for (k = 0; k < n; k++) {
		const struct href *r = &c->hr[first + k];

		items[k] = (uint32_t)(first + k);
		lane[k] = r->type == HR_API ? c->api_lane[r->idx] : c->range_lane[r->idx];
	}
	if (!pftrace_by_lane(f, items, lane, n, th->lanes, &lf))
		goto out;
	for (uint32_t l = 0; l <= th->lanes && !f->rc; l++) {
		uint64_t track;
		size_t depth = 0;

		gs_xp_thread_name(name, sizeof(name), th->tid, l);
		track = pftrace_track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			const struct href *r = &c->hr[f->order[j]];

			while (depth && f->stack[depth - 1] <= r->start)
				pftrace_slice_end(f, track, f->stack[--depth]);
			host_begin(f, track, r);
			f->stack[depth++] = r->end;
		}
		while (depth)
			pftrace_slice_end(f, track, f->stack[--depth]);
	}
out:
	free(items);
	free(lane);
	free(lf);
}

/* A sort key: a time and the item. */
struct tkey {
	int64_t a, b;
	uint32_t idx;
};

static int cmp_tkey(const void *pa, const void *pb)
{
	const struct tkey *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* items[0, n) sorted by keys (a, b, index). */
static bool sort_items(struct pftrace_writer *f, uint32_t *items, size_t n, const int64_t *a,
		       const int64_t *b)
{
	struct tkey *k = malloc((n ? n : 1) * sizeof(*k));

	if (!k) {
		pftrace_fail(f, gs_nomem());
		return false;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = (struct tkey){a[i], b ? b[i] : 0, items[i]};
	qsort(k, n, sizeof(*k), cmp_tkey);
	for (size_t i = 0; i < n; i++)
		items[i] = k[i].idx;
	free(k);
	return true;
}

/* A process's profiler overhead lanes (the plan's order: by start). */
static void write_overheads(struct pftrace_writer *f, uint64_t parent, size_t h, int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct hproc *p = &c->hp[h];
	uint32_t *items = malloc((c->n_oh ? c->n_oh : 1) * sizeof(*items));
	uint32_t *lane = malloc((c->n_oh ? c->n_oh : 1) * sizeof(*lane));
	uint32_t *lf = NULL;
	size_t n = 0;
	char name[64];

	if (!items || !lane) {
		pftrace_fail(f, gs_nomem());
		goto out;
	}
	for (size_t i = 0; i < c->n_oh; i++)
		if (c->oh[i].pid == p->pid)
			items[n++] = (uint32_t)i;
	/* The plan's order: by start, then end. */
	{
		int64_t *a = malloc((n ? n : 1) * sizeof(*a)),
			*b = malloc((n ? n : 1) * sizeof(*b));
		bool ok = a && b;

		for (size_t i = 0; ok && i < n; i++) {
			a[i] = c->oh[items[i]].start_ns;
			b[i] = c->oh[items[i]].end_ns;
		}
		ok = ok && sort_items(f, items, n, a, b);
		if (!a || !b)
			pftrace_fail(f, gs_nomem());
		free(a);
		free(b);
		if (!ok)
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		lane[i] = c->oh_lane[items[i]];
	if (!pftrace_by_lane(f, items, lane, n, p->oh_lanes ? p->oh_lanes - 1 : 0, &lf))
		goto out;
	for (uint32_t l = 0; l < p->oh_lanes && !f->rc; l++) {
		uint64_t track;

		gs_xp_overhead_name(name, sizeof(name), l);
		track = pftrace_track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			const struct gs_overhead *o = &c->oh[f->order[j]];

			pftrace_slice_begin(f, track, o->start_ns, CAT_OVERHEAD, o->kind, NULL);
			pftrace_slice_begin_end(f);
			pftrace_slice_end(f, track, o->end_ns);
		}
	}
out:
	free(items);
	free(lane);
	free(lf);
}

static void write_host(struct pftrace_writer *f, uint64_t *proc_uuid)
{
	const struct xplan *c = f->c;
	/* Thread t's host events: hr[first[t], first[t + 1]) (threads are
	 * numbered in the order of their events). */
	size_t *first = malloc((c->n_threads + 1) * sizeof(*first)), k = 0;

	if (!first) {
		pftrace_fail(f, gs_nomem());
		return;
	}
	for (size_t t = 0; t < c->n_threads; t++) {
		first[t] = k;
		while (k < c->n_hr && c->hr[k].pid == c->threads[t].pid &&
		       c->hr[k].tid == c->threads[t].tid)
			k++;
	}
	first[c->n_threads] = k;
	for (size_t i = 0; i < c->n_hp && !f->rc; i++) {
		const struct hproc *p = &c->hp[i];
		int64_t sort = 0;

		for (size_t j = p->first_thread; j < p->first_thread + p->n_threads; j++)
			write_thread(f, proc_uuid[i], &c->threads[j], first[j], first[j + 1],
				     &sort);
		if (p->oh_lanes)
			write_overheads(f, proc_uuid[i], i, &sort);
	}
	free(first);
}

/* The ops of stream s on their lanes (ideal: in the ideal schedule). */
static void write_stream(struct pftrace_writer *f, uint64_t parent, uint32_t s, bool ideal,
			 int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct cstream *x = &c->cs[s];
	uint32_t lanes = ideal ? x->ideal_lanes : x->lanes;
	size_t first, count, n = 0;
	uint32_t *items, *lane, *lf = NULL;
	char label[256], name[320];

	gs_trace_stream_ops(c->t, s, &first, &count);
	items = malloc((count ? count : 1) * sizeof(*items));
	lane = malloc((count ? count : 1) * sizeof(*lane));
	if (!items || !lane) {
		pftrace_fail(f, gs_nomem());
		goto out;
	}
	for (size_t o = first; o < first + count; o++)
		if (!ideal || c->x->ideal_in[o])
			items[n++] = (uint32_t)o;
	if (ideal) {
		/* The plan's order: by ideal start. */
		int64_t *a = malloc((n ? n : 1) * sizeof(*a));
		bool ok = a != NULL;

		for (size_t i = 0; ok && i < n; i++)
			a[i] = c->x->ideal_start[items[i]];
		ok = ok && sort_items(f, items, n, a, NULL);
		if (!a)
			pftrace_fail(f, gs_nomem());
		free(a);
		if (!ok)
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		lane[i] = ideal ? c->ideal_lane[items[i]] : c->op_lane[items[i]];
	if (!pftrace_by_lane(f, items, lane, n, lanes, &lf))
		goto out;
	gs_xp_stream_label(c, s, label, sizeof(label));
	for (uint32_t l = 0; l <= lanes && !f->rc; l++) {
		uint64_t track;

		gs_xp_lane_name(name, sizeof(name), label, l);
		track = pftrace_track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			uint32_t o = f->order[j];
			const struct gs_op *op = &c->ops[o];
			int64_t st = ideal ? c->x->ideal_start[o] : op->start_ns;

			pftrace_op_begin(f, track, o, st, ideal);
			pftrace_slice_end(f, track, st + (op->end_ns - op->start_ns));
		}
	}
out:
	free(items);
	free(lane);
	free(lf);
}

/* A device's syncs on their lanes (syncs are by start). */
static void write_syncs(struct pftrace_writer *f, uint64_t parent, size_t di, int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct cdev *d = &c->devs[di];
	struct xargs a = {pftrace_da_u64, pftrace_da_i64, pftrace_da_str, pftrace_da_dim3, f};
	uint32_t *items = malloc((c->n_syncs ? c->n_syncs : 1) * sizeof(*items));
	uint32_t *lane = malloc((c->n_syncs ? c->n_syncs : 1) * sizeof(*lane));
	uint32_t *lf = NULL;
	size_t n = 0;
	char name[64];

	if (!items || !lane) {
		pftrace_fail(f, gs_nomem());
		goto out;
	}
	for (size_t i = 0; i < c->n_syncs; i++) {
		if (c->syncs[i].device != d->id)
			continue;
		lane[n] = c->sync_lane[i];
		items[n++] = (uint32_t)i;
	}
	if (!pftrace_by_lane(f, items, lane, n, d->sync_lanes - 1, &lf))
		goto out;
	for (uint32_t l = 0; l < d->sync_lanes && !f->rc; l++) {
		uint64_t track;

		gs_xp_sync_name(name, sizeof(name), l);
		track = pftrace_track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			const struct gs_sync *y = &c->syncs[f->order[j]];

			pftrace_slice_begin(f, track, y->start_ns, CAT_SYNC, NONE,
					    gs_xp_sync_kind_text(y->kind));
			gs_xp_sync_args(c, f->order[j], &a);
			pftrace_slice_begin_end(f);
			pftrace_slice_end(f, track, y->end_ns);
		}
	}
out:
	free(items);
	free(lane);
	free(lf);
}

/* A device's GPU annotations on their lanes, nested (ranges are by start). */
static void write_annotations(struct pftrace_writer *f, uint64_t parent, size_t di, int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct cdev *d = &c->devs[di];
	struct xargs a = {pftrace_da_u64, pftrace_da_i64, pftrace_da_str, pftrace_da_dim3, f};
	uint32_t *items = malloc((c->n_ranges ? c->n_ranges : 1) * sizeof(*items));
	uint32_t *lane = malloc((c->n_ranges ? c->n_ranges : 1) * sizeof(*lane));
	uint32_t *lf = NULL;
	size_t n = 0;
	char name[64];

	if (!items || !lane) {
		pftrace_fail(f, gs_nomem());
		goto out;
	}
	for (size_t i = 0; i < c->n_ranges; i++) {
		if (!gs_xp_annotation_kept(c, i) || c->cs[c->ranges[i].stream].dev != di)
			continue;
		lane[n] = (uint32_t)(c->ann_tid[i] - d->ann_tid);
		items[n++] = (uint32_t)i;
	}
	if (!pftrace_by_lane(f, items, lane, n, d->ann_lanes - 1, &lf))
		goto out;
	for (uint32_t l = 0; l < d->ann_lanes && !f->rc; l++) {
		uint64_t track;
		size_t depth = 0;

		gs_xp_annotation_name(name, sizeof(name), l);
		track = pftrace_track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			const struct gs_range *r = &c->ranges[f->order[j]];

			while (depth && f->stack[depth - 1] <= r->start_ns)
				pftrace_slice_end(f, track, f->stack[--depth]);
			pftrace_slice_begin(f, track, r->start_ns, CAT_GPU_ANNOTATION, r->name,
					    NULL);
			gs_xp_annotation_args(c, f->order[j], &a);
			pftrace_slice_begin_end(f);
			f->stack[depth++] = r->end_ns;
		}
		while (depth)
			pftrace_slice_end(f, track, f->stack[--depth]);
	}
out:
	free(items);
	free(lane);
	free(lf);
}

/* One TYPE_COUNTER event: the counters whose value changed (want[k] !=
 * have[k]) at `ts`. */
static void counter_changes(struct pftrace_writer *f, const uint64_t *uuid, const int8_t *want,
			    int8_t *have, size_t n, int64_t ts)
{
	size_t first = n;

	for (size_t k = 0; k < n && first == n; k++)
		if (want[k] != have[k])
			first = k;
	if (first == n)
		return;
	pftrace_pkt_begin_at(f, 0, ts);
	proto_begin(&f->pkt, F_PKT_TRACK_EVENT);
	proto_uint(&f->pkt, F_TE_TYPE, TYPE_COUNTER);
	pftrace_event_track(f, uuid[first]);
	proto_int(&f->pkt, F_TE_COUNTER_VALUE, want[first]);
	for (size_t k = first + 1; k < n; k++)
		if (want[k] != have[k])
			proto_uint(&f->pkt, F_TE_EXTRA_COUNTER_UUIDS, uuid[k]);
	for (size_t k = first + 1; k < n; k++)
		if (want[k] != have[k])
			proto_int(&f->pkt, F_TE_EXTRA_COUNTER_VALUES, want[k]);
	proto_end(&f->pkt);
	pftrace_pkt_end(f);
	for (size_t k = first; k < n; k++)
		have[k] = want[k];
}

/* A device's breakdown: a counter track per category, 1 while the category
 * holds the device, else 0 (the Chrome export's "breakdown" counter). */
static void write_counters(struct pftrace_writer *f, uint64_t parent, size_t di, int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct gs_export_extras *x = c->x;
	const struct gs_export_breakdown *bd = c->devs[di].bd;
	size_t n = x ? x->n_categories : 0;
	uint64_t *uuid;
	int8_t *want, *have;
	char name[160];

	if (!bd || !bd->n_segments || !n)
		return;
	uuid = calloc(n, sizeof(*uuid));
	want = calloc(n, 1);
	have = calloc(n, 1);
	if (!uuid || !want || !have) {
		pftrace_fail(f, gs_nomem());
		goto out;
	}
	pftrace_seq_begin(f, 0);
	for (size_t k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "breakdown %s",
			 x->category_names[k] ? x->category_names[k] : "?");
		uuid[k] = pftrace_track_child(f, parent, name, (*sort)++, true);
		have[k] = -1; /* every counter's first value is written */
	}
	for (size_t s = 0; s < bd->n_segments && !f->rc; s++) {
		for (size_t k = 0; k < n; k++)
			want[k] = bd->segments[s].category == k;
		counter_changes(f, uuid, want, have, n, bd->segments[s].start_ns);
	}
	memset(want, 0, n);
	counter_changes(f, uuid, want, have, n, bd->segments[bd->n_segments - 1].end_ns);
out:
	free(uuid);
	free(want);
	free(have);
}

static void write_devices(struct pftrace_writer *f, const uint64_t *dev_uuid,
			  const uint64_t *ideal_uuid)
{
	const struct xplan *c = f->c;
	int64_t sort = 0, isort = 0;

	/* Streams in display order (their sort index runs on over the
	 * devices, as in the Chrome export), then each device's syncs,
	 * annotations and counters. */
	for (size_t i = 0; i < c->n_streams && !f->rc; i++) {
		uint32_t s = c->stream_order[i];
		const struct cstream *x = &c->cs[s];

		if (x->dev == NONE)
			continue;
		write_stream(f, dev_uuid[x->dev], s, false, &sort);
		if (c->ideal && x->has_ideal)
			write_stream(f, ideal_uuid[x->dev], s, true, &isort);
	}
	for (size_t d = 0; d < c->n_devs && !f->rc; d++) {
		if (c->devs[d].sync_lanes)
			write_syncs(f, dev_uuid[d], d, &sort);
		if (c->devs[d].ann_lanes)
			write_annotations(f, dev_uuid[d], d, &sort);
	}
	for (size_t d = 0; d < c->n_devs && !f->rc; d++)
		write_counters(f, dev_uuid[d], d, &sort);
}

static void rank_fini(struct pftrace_writer *f)
{
	free(f->name_seq);
	free(f->out_first);
	free(f->out_edges);
	free(f->in_first);
	free(f->in_edges);
	pftrace_strmap_fini(&f->names);
	pftrace_strmap_fini(&f->values);
	f->name_seq = NULL;
	f->out_first = f->out_edges = f->in_first = f->in_edges = NULL;
}

/* One rank: its sequence, processes, tracks and events. pids: the pid of
 * each of its processes (hosts, then per device the device and its ideal
 * schedule). */
void pftrace_write_rank(struct pftrace_writer *f, const struct xplan *c, const int64_t *pids)
{
	size_t n_str = gs_trace_string_count(c->t);
	uint64_t *uuid = calloc(c->n_hp + 2 * c->n_devs + 1, sizeof(*uuid));
	struct xproc_names pn;
	gs_status rc;

	f->c = c;
	f->next_name_iid = (uint64_t)n_str + 1;
	f->next_value_iid = 1;
	f->name_seq = calloc(n_str ? n_str : 1, sizeof(*f->name_seq));
	if (!uuid || !f->name_seq) {
		pftrace_fail(f, gs_nomem());
		goto out;
	}
	rc = edges_by_op(f);
	if (rc) {
		pftrace_fail(f, rc);
		goto out;
	}
	/* The processes on a sequence of their own. */
	pftrace_seq_begin(f, 0);
	for (size_t i = 0; i < c->n_hp; i++) {
		gs_xp_host_names(c, i, &pn);
		uuid[i] = pftrace_track_process(f, pids[i], &pn);
	}
	for (size_t d = 0; d < c->n_devs; d++) {
		gs_xp_dev_names(c, d, &pn);
		uuid[c->n_hp + d] = pftrace_track_process(f, pids[c->n_hp + 2 * d], &pn);
		if (c->ideal) {
			gs_xp_ideal_names(c, d, &pn);
			uuid[c->n_hp + c->n_devs + d] =
				pftrace_track_process(f, pids[c->n_hp + 2 * d + 1], &pn);
		}
	}
	write_host(f, uuid);
	write_devices(f, uuid + c->n_hp, uuid + c->n_hp + c->n_devs);
	f->flow_base += (uint64_t)c->n_ops + (c->x ? c->x->n_edges : 0);
out:
	free(uuid);
	rank_fini(f);
}
