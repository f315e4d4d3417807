/* SPDX-License-Identifier: MIT */
/*
 * The clocks of a job's collectives (job_match.c explains the method):
 * clock domains and groups, the first estimate of a domain's offset from
 * kernels of one signature, the fit of the offsets on matched collectives
 * whose members leave together, and the rounds of aligning and matching.
 */
#include "job_match_priv.h"
#include "job_priv.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuscope/sort.h>
#include <gpuscope/vec.h>

/* ---- clock domains ---- */

gs_status job_build_domains(struct gs_job_analysis *ja)
{
	size_t n = ja->n_sums;
	size_t *by_id = malloc((n ? n : 1) * sizeof(*by_id));

	ja->dom = calloc(n ? n : 1, sizeof(*ja->dom));
	ja->rank_dom = calloc(n ? n : 1, sizeof(*ja->rank_dom));
	if (!by_id || !ja->dom || !ja->rank_dom) {
		free(by_id);
		return gs_nomem();
	}
	for (size_t i = 0; i < n; i++)
		by_id[i] = SIZE_MAX;
	for (size_t ri = 0; ri < n; ri++) {
		const struct gs_js_rank *r = ja->sums[ri];
		uint32_t id = r->clock_domain;
		size_t d = id < n ? by_id[id] : SIZE_MAX;

		/* A domain is one clock group's (an id seen in another group, or
		 * out of range, makes a domain of its own). */
		if (d != SIZE_MAX && ja->dom[d].group != r->clock_group)
			d = SIZE_MAX;
		if (d == SIZE_MAX) {
			d = ja->n_dom++;
			ja->dom[d] = (struct gs_job_domain){.id = id,
							    .group = r->clock_group,
							    .first_ri = ri,
							    .host = gs_js_str(r, r->host),
							    .clock = r->clock,
							    .via = (uint32_t)d};
			if (id < n && by_id[id] == SIZE_MAX)
				by_id[id] = d;
		}
		ja->dom[d].n_ranks++;
		ja->rank_dom[ri] = d;
	}
	free(by_id);
	return GS_OK;
}

/* Collectives whose members leave together: their ends align clocks. */
static bool ends_together(uint8_t kind)
{
	return kind == GS_JOB_COLL_ALLREDUCE || kind == GS_JOB_COLL_ALLGATHER ||
	       kind == GS_JOB_COLL_REDUCE_SCATTER;
}

/* Kernels of two ranks that can be one collective. */
bool job_same_signature(const struct gs_js_rank *ra, const struct gs_js_kernel *a,
			const struct gs_js_rank *rb, const struct gs_js_kernel *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->bytes >= 0 && b->bytes >= 0 && a->bytes != b->bytes)
		return false;
	if (a->kind == GS_JOB_COLL_UNKNOWN)
		return !strcmp(gs_js_str(ra, a->name), gs_js_str(rb, b->name));
	return true;
}

/* A communicator whose members all number their kernels. */
bool job_all_seq(const struct gs_job_comm *c)
{
	if (c->key != GS_JOB_KEY_GROUP)
		return false;
	for (size_t i = 0; i < c->n_m; i++)
		for (size_t k = 0; k < c->m[i].n; k++)
			if (!c->m[i].k[k].has_seq)
				return false;
	return true;
}

/* The member of domain d in communicator c with the lowest rank; SIZE_MAX. */
static size_t member_in(const struct gs_job_analysis *ja, const struct gs_job_comm *c, size_t d)
{
	for (size_t i = 0; i < c->n_m; i++)
		if (ja->rank_dom[c->m[i].ri] == d)
			return i;
	return SIZE_MAX;
}

struct i64vec {
	int64_t *v;
	size_t n, cap;
};

/*
 * First estimate of the offset of domain b against domain a (both wall
 * clocks; a's offset already on): end differences of kernels of one
 * signature within ESTIMATE_WINDOW places of each other (or of equal
 * sequence numbers), in every communicator of ends-together kind the two
 * share. false when there is none.
 */
static gs_status estimate_pair(const struct gs_job_analysis *ja, size_t da, size_t db,
			       struct i64vec *d, bool *found, int64_t *est)
{
	size_t best_lo = 0, best_n = 0, i;
	gs_status rc = GS_OK;

	d->n = 0;
	*found = false;
	for (size_t ci = 0; ci < ja->n_comms && rc == GS_OK; ci++) {
		const struct gs_job_comm *c = &ja->comms[ci];
		size_t ma, mb;
		const struct gs_job_member *a, *b;
		const struct gs_js_rank *ra, *rb;
		int64_t sa, sb;
		bool seq;

		if (c->clock_group != ja->dom[da].group || c->key == GS_JOB_KEY_P2P)
			continue;
		ma = member_in(ja, c, da);
		mb = member_in(ja, c, db);
		if (ma == SIZE_MAX || mb == SIZE_MAX)
			continue;
		a = &c->m[ma];
		b = &c->m[mb];
		ra = gs_job_rank(ja, a->ri);
		rb = gs_job_rank(ja, b->ri);
		sa = job_shift(ja, a->ri);
		sb = rb->clock ? rb->wall_offset_ns : 0;
		seq = job_all_seq(c);
		for (size_t x = 0; x < a->n && rc == GS_OK; x++) {
			const struct gs_js_kernel *ka = &a->k[x];
			size_t lo = x > ESTIMATE_WINDOW ? x - ESTIMATE_WINDOW : 0;

			if (!ends_together(ka->kind))
				continue;
			for (size_t y = lo; y < b->n && y <= x + ESTIMATE_WINDOW; y++) {
				const struct gs_js_kernel *kb = &b->k[y];

				if (seq ? ka->seq != kb->seq : !job_same_signature(ra, ka, rb, kb))
					continue;
				rc = GS_VEC_PUSH(d->v, d->n, d->cap,
						 (ka->end_ns + sa) - (kb->end_ns + sb));
				if (rc)
					return gs_nomem();
			}
		}
	}
	if (!d->n)
		return GS_OK;
	gs_sort_by_i64(d->v, d->n, sizeof(*d->v));
	/* The densest window of MODE_WIDTH_NS, then of the windows with at
	 * least half its support the one nearest 0. */
	{
		size_t j = 0, most = 0;

		for (i = 0; i < d->n; i++) {
			while (d->v[i] - d->v[j] > MODE_WIDTH_NS)
				j++;
			if (i - j + 1 > most)
				most = i - j + 1;
		}
		j = 0;
		for (i = 0; i < d->n; i++) {
			size_t cnt;
			int64_t mid, bm;

			while (d->v[i] - d->v[j] > MODE_WIDTH_NS)
				j++;
			cnt = i - j + 1;
			if (10 * cnt < 9 * most)
				continue;
			mid = d->v[j + (i - j) / 2];
			bm = best_n ? d->v[best_lo + (best_n - 1) / 2] : 0;
			if (!best_n || (mid < 0 ? -mid : mid) < (bm < 0 ? -bm : bm) ||
			    ((mid < 0 ? -mid : mid) == (bm < 0 ? -bm : bm) && cnt > best_n)) {
				best_lo = j;
				best_n = cnt;
			}
		}
	}
	*est = d->v[best_lo + (best_n - 1) / 2];
	*found = true;
	return GS_OK;
}

/* ---- fitting the offsets ---- */

/*
 * The ends of one clock group's ends-together collectives per domain, for
 * the fit: domain d's entries are ends[first[d] .. first[d + 1]), in
 * collective order, each the end (on the wall clock, without d's offset)
 * of the earliest-ranked member of d that ran it. Built in one pass over
 * the matched kernels: a fit then costs the two domains' entries.
 */
struct dom_ends {
	size_t *first; /* n_dom + 1 */
	struct {
		size_t coll;
		int64_t end;
	} * e;
};

static void dom_ends_free(struct dom_ends *de)
{
	free(de->first);
	free(de->e);
}

static gs_status dom_ends_build(const struct gs_job_analysis *ja, uint32_t group,
				struct dom_ends *de)
{
	size_t *stamp = malloc((ja->n_dom ? ja->n_dom : 1) * sizeof(*stamp)), total = 0;

	de->first = calloc(ja->n_dom + 1, sizeof(*de->first));
	de->e = NULL;
	if (!stamp || !de->first) {
		free(stamp);
		return gs_nomem();
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t d = 0; d < ja->n_dom; d++)
			stamp[d] = SIZE_MAX;
		for (size_t i = 0; i < ja->n_coll; i++) {
			const struct gs_job_coll *x = &ja->coll[i];

			if (ja->comms[x->comm].clock_group != group ||
			    !ends_together(gs_job_coll_kernel(ja, x, 0)->kind))
				continue;
			for (size_t p = 0; p < x->present; p++) {
				const struct gs_job_member *m = gs_job_coll_member(ja, x, p);
				size_t d = ja->rank_dom[m->ri];
				const struct gs_js_rank *r = gs_job_rank(ja, m->ri);

				if (stamp[d] == i)
					continue;
				stamp[d] = i;
				if (!pass) {
					de->first[d + 1]++;
					continue;
				}
				de->e[de->first[d]].coll = i;
				de->e[de->first[d]++].end = gs_job_coll_kernel(ja, x, p)->end_ns +
							    (r->clock ? r->wall_offset_ns : 0);
			}
		}
		if (pass)
			break;
		for (size_t d = 0; d < ja->n_dom; d++)
			de->first[d + 1] += de->first[d];
		total = de->first[ja->n_dom];
		de->e = malloc((total ? total : 1) * sizeof(*de->e));
		if (!de->e) {
			free(stamp);
			return gs_nomem();
		}
	}
	/* The second pass moved each first[d] to its end: back one place. */
	for (size_t d = ja->n_dom; d > 0; d--)
		de->first[d] = de->first[d - 1];
	de->first[0] = 0;
	free(stamp);
	return GS_OK;
}

/* Fit domain d against domain `via` (its offset known) on the matched
 * collectives both ran; false without evidence. */
static gs_status fit_domain(struct gs_job_analysis *ja, const struct dom_ends *de, size_t d,
			    size_t via, struct i64vec *v, bool *fitted)
{
	struct gs_job_domain *dom = &ja->dom[d];
	size_t i = de->first[via], k = de->first[d];
	int64_t med;

	v->n = 0;
	*fitted = false;
	/* Both lists in collective order: a merge. */
	while (i < de->first[via + 1] && k < de->first[d + 1]) {
		if (de->e[i].coll < de->e[k].coll) {
			i++;
		} else if (de->e[k].coll < de->e[i].coll) {
			k++;
		} else {
			if (GS_VEC_PUSH(v->v, v->n, v->cap,
					de->e[i].end + ja->dom[via].offset - de->e[k].end))
				return gs_nomem();
			i++;
			k++;
		}
	}
	if (!v->n)
		return GS_OK;
	gs_sort_by_i64(v->v, v->n, sizeof(*v->v));
	med = v->v[(v->n - 1) / 2];
	/* The spread left: distances from the median. Those past
	 * OUTLIER_SIGMAS robust deviations (1.4826 x their median), and at
	 * least MIN_SPREAD_NS, are outliers (a collective whose members did
	 * not leave together); the residual is the largest of the others. */
	for (size_t q = 0; q < v->n; q++)
		v->v[q] = v->v[q] > med ? v->v[q] - med : med - v->v[q];
	gs_sort_by_i64(v->v, v->n, sizeof(*v->v));
	{
		size_t mid = (v->n - 1) / 2;
		double mad = (double)v->v[mid];
		double lim = OUTLIER_SIGMAS * 1.4826 * mad;
		size_t keep = v->n;

		if (lim < MIN_SPREAD_NS)
			lim = MIN_SPREAD_NS;
		while (keep > 1 && (double)v->v[keep - 1] > lim)
			keep--;
		dom->offset = med;
		dom->residual = v->v[keep - 1];
		dom->spread_max = v->v[v->n - 1];
		dom->evidence = keep;
		dom->outliers = v->n - keep;
	}
	dom->via = (uint32_t)via;
	dom->state = GS_JOB_DOM_FITTED;
	*fitted = true;
	return GS_OK;
}

/*
 * The offsets of one group's domains: from first estimates (fit = false)
 * or from the matched collectives (fit = true); each domain against the
 * reference or, failing that, against a domain already placed.
 */
static gs_status place_domains(struct gs_job_analysis *ja, uint32_t group, bool fit,
			       struct i64vec *v)
{
	size_t ref = SIZE_MAX, placed = 0, n = 0;
	bool *done, progress = true;
	struct dom_ends de = {0};
	gs_status rc = GS_OK;

	for (size_t d = 0; d < ja->n_dom; d++)
		if (ja->dom[d].group == group) {
			n++;
			if (ref == SIZE_MAX)
				ref = d;
		}
	if (ref == SIZE_MAX)
		return GS_OK;
	done = calloc(ja->n_dom, sizeof(*done));
	if (!done)
		return gs_nomem();
	if (fit && (rc = dom_ends_build(ja, group, &de)) != GS_OK) {
		free(done);
		dom_ends_free(&de);
		return rc;
	}
	ja->dom[ref].state = GS_JOB_DOM_REFERENCE;
	ja->dom[ref].offset = 0;
	done[ref] = true;
	placed = 1;
	while (progress && placed < n && rc == GS_OK) {
		progress = false;
		for (size_t d = 0; d < ja->n_dom && rc == GS_OK; d++) {
			if (ja->dom[d].group != group || done[d])
				continue;
			for (size_t via = 0; via < ja->n_dom && rc == GS_OK; via++) {
				bool ok = false;
				int64_t est = 0;

				if (!done[via] || ja->dom[via].group != group)
					continue;
				if (fit) {
					rc = fit_domain(ja, &de, d, via, v, &ok);
				} else {
					rc = estimate_pair(ja, via, d, v, &ok, &est);
					if (ok) {
						ja->dom[d].offset = est;
						ja->dom[d].residual = 0;
						ja->dom[d].state = GS_JOB_DOM_FITTED;
						ja->dom[d].via = (uint32_t)via;
					}
				}
				if (ok) {
					done[d] = true;
					placed++;
					progress = true;
					break;
				}
			}
		}
	}
	for (size_t d = 0; d < ja->n_dom; d++)
		if (ja->dom[d].group == group && !done[d]) {
			ja->dom[d].state = GS_JOB_DOM_NO_EVIDENCE;
			ja->dom[d].offset = 0;
			ja->dom[d].evidence = 0;
			ja->dom[d].via = (uint32_t)d;
		}
	free(done);
	dom_ends_free(&de);
	return rc;
}

gs_status job_align_and_match(struct gs_job_analysis *ja, struct comm_gaps *gaps)
{
	struct i64vec v = {0};
	gs_status rc = GS_OK;
	bool any = false;

	for (uint32_t g = 0; g < ja->n_clock_groups; g++) {
		size_t n = 0;

		for (size_t d = 0; d < ja->n_dom; d++)
			n += ja->dom[d].group == g;
		for (size_t d = 0; d < ja->n_dom; d++) {
			if (ja->dom[d].group != g)
				continue;
			ja->dom[d].state = n < 2                          ? GS_JOB_DOM_REFERENCE :
					   ja->align == GS_JOB_ALIGN_NONE ? GS_JOB_DOM_RAW :
									    GS_JOB_DOM_REFERENCE;
			ja->dom[d].offset = 0;
		}
		if (n >= 2 && ja->align != GS_JOB_ALIGN_NONE) {
			any = true;
			rc = place_domains(ja, g, false, &v);
		}
		if (rc)
			break;
	}
	for (int round = 0; rc == GS_OK && round <= (any ? FIT_ROUNDS : 0); round++) {
		rc = job_match_all(ja, gaps);
		if (rc || !any || round == FIT_ROUNDS)
			break;
		for (uint32_t g = 0; g < ja->n_clock_groups && rc == GS_OK; g++) {
			size_t n = 0;

			for (size_t d = 0; d < ja->n_dom; d++)
				n += ja->dom[d].group == g;
			if (n >= 2)
				rc = place_domains(ja, g, true, &v);
		}
	}
	free(v.v);
	return rc;
}
