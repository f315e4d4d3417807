/* SPDX-License-Identifier: MIT */
/*
 * The collectives of a job across its ranks: the job analysis's step two
 * for communication (job_summary.c and job_analysis.c hold the rest). The
 * clocks (domains, estimate, fit) are job_clock.c; job_match_priv.h holds
 * what the two share.
 * Nothing here rests on stream ids, which are each process's own.
 *
 * Communicators. A rank's communication kernels (those that describe a
 * collective, or whose name says NCCL / RCCL) are keyed, in this order of
 * evidence, by the process group the kernel names (Kineto's "Process Group
 * Name"); else by their collective kind (AllReduce, AllGather,
 * ReduceScatter, AllToAll, Broadcast, Reduce; unknown kinds apart), the
 * rank's kernels of one kind in launch order; point-to-point kernels
 * (SendRecv, Send, Recv) form one communicator of their own. Ranks of one
 * key within one clock group are its members.
 *
 * Clocks. Ranks of one clock domain (a host, or one input) share a clock;
 * each rank's times are first put on UTC by its wall-clock offset (0 when
 * the trace gives none). Within a clock group of two domains or more (and
 * unless --align none), each domain gets an offset fitted on the ends of
 * the collectives whose members leave together (all-reduce, all-gather,
 * reduce-scatter): for each such collective matched between the domain
 * and the reference domain (that of the group's lowest rank; a domain
 * without a collective in common with it is fitted through another
 * domain, the offsets adding up), the difference of the two ends, the
 * earliest-ranked member of each domain speaking for it; the offset is
 * the median of those differences, robust to outliers, and the residual
 * the largest distance of a difference from it once the outliers are set
 * aside (the spread left; an outlier lies more than OUTLIER_SIGMAS robust
 * deviations, 1.4826 times the median distance, and at least
 * MIN_SPREAD_NS away: a collective whose members did not leave
 * together). The fit needs matched collectives and matching by ends needs the
 * offsets: a first estimate takes the end differences of kernels of the
 * same signature within ESTIMATE_WINDOW places of each other, finds the
 * densest MODE_WIDTH_NS-wide cluster of them and, of the clusters with at
 * least nine tenths of its support, the one nearest 0 (collectives that
 * repeat with a period give every period's shift nearly the same support,
 * and the wall clocks are right to NTP's milliseconds); then matching and
 * the fit run twice.
 *
 * Matching. By sequence number when every kernel of a group carries one
 * ("seq"): equal numbers are one collective. Otherwise each member's
 * kernels are aligned against the reference member's (the member with the
 * most kernels, the lowest rank on ties) by their ends on the common
 * clock: two kernels are one collective when each is the other's nearest
 * (by end), their ends lie within MATCH_CAP_NS plus four times the two
 * domains' residuals, and their signatures agree (kind; the message size
 * where both know it; the name when the kind is unknown). This is a
 * sequence alignment that tolerates a collective a trace missed or has in
 * excess, wherever it happened ("group_order" for a group, "order" for a
 * kind); kernels of one member that pair with no reference kernel are
 * reported as extra. Point-to-point kernels are paired with the peer
 * kernel that ends with them ("p2p_end"): mutual nearest ends among the
 * other ranks' point-to-point kernels, within P2P_CAP_NS plus three times
 * the residuals, overlapping in time, of one group when both name one; a
 * kernel without a peer in the job is unpaired and never compared.
 *
 * What a collective measures (on the common clock): arrival = kernel
 * start, skew = last arrival - first, the last rank (ties: the lowest),
 * each rank's wait = last arrival - its own, transfer = the least end -
 * last arrival (at least 0), bytes and bandwidths (job_analysis.c's header). Its
 * clock error is the sum of the two largest residuals of the domains it
 * spans (0 within one domain; unknown for a domain no collective aligned).
 * A collective whose kernels did not all run at one instant (last arrival
 * past the least end by more than the clock error) is a mismatch: not
 * compared, no waits. One whose skew is within the clock error is
 * compared but waits for no one ("within clock error": no rank is last in
 * it). The others are compared: waits, times last, costs.
 *
 * Complexity, for K kernels, D domains and M members: O(K log K) to sort
 * and match, O(K * ESTIMATE_WINDOW log) for the first estimates, O(D * M)
 * to fit.
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
#include <gpuscope/text.h>
#include <gpuscope/vec.h>

/* ---- small helpers ---- */

char *job_printf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	p = malloc((size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

/* `s` lowered, letters and digits only, into buf. */
static void squash(char *buf, size_t size, const char *s)
{
	size_t k = 0;

	for (; s && *s && k + 1 < size; s++) {
		char c = *s;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			buf[k++] = c;
	}
	buf[k] = '\0';
}

enum gs_job_coll_kind job_coll_kind_of_name(const char *name)
{
	char s[256];

	squash(s, sizeof(s), name);
	if (strstr(s, "allreduce"))
		return GS_JOB_COLL_ALLREDUCE;
	if (strstr(s, "reducescatter"))
		return GS_JOB_COLL_REDUCE_SCATTER;
	if (strstr(s, "allgather"))
		return GS_JOB_COLL_ALLGATHER;
	if (strstr(s, "alltoall"))
		return GS_JOB_COLL_ALLTOALL;
	if (strstr(s, "broadcast") || strstr(s, "bcast"))
		return GS_JOB_COLL_BROADCAST;
	if (strstr(s, "sendrecv") || strstr(s, "send") || strstr(s, "recv"))
		return GS_JOB_COLL_SENDRECV;
	if (strstr(s, "reduce"))
		return GS_JOB_COLL_REDUCE;
	return GS_JOB_COLL_UNKNOWN;
}

const char *gs_job_coll_kind_name(enum gs_job_coll_kind k)
{
	static const char *const n[GS_JOB_COLL_KIND_COUNT] = {"unknown",   "AllReduce",
							      "AllGather", "ReduceScatter",
							      "AllToAll",  "Broadcast",
							      "Reduce",    "SendRecv"};

	return (unsigned)k < GS_JOB_COLL_KIND_COUNT ? n[k] : "unknown";
}

const char *gs_job_matched_by_name(uint8_t by)
{
	static const char *const n[] = {"none", "seq", "group_order", "order", "p2p_end"};

	return by < sizeof(n) / sizeof(n[0]) ? n[by] : "none";
}

/* The ranks of a communicator's members whose flag is set, one by one. */
struct member_iter {
	const struct gs_job_analysis *ja;
	const struct gs_job_comm *c;
	const bool *flags;
	size_t i;
};

static bool member_next(void *ctx, uint32_t *v)
{
	struct member_iter *it = ctx;

	while (it->i < it->c->n_m && it->flags && !it->flags[it->i])
		it->i++;
	if (it->i >= it->c->n_m)
		return false;
	*v = gs_job_rank(it->ja, it->c->m[it->i++].ri)->rank;
	return true;
}

void job_rank_list(char *buf, size_t size, const struct gs_job_analysis *ja,
		   const struct gs_job_comm *c, const bool *flags)
{
	struct member_iter it = {ja, c, flags, 0};

	if (!gs_text_runs(buf, size, member_next, &it, SIZE_MAX, true) && size > 4)
		memcpy(buf + size - 4, "...", 4);
}

static bool several(const char *list)
{
	return strchr(list, ',') || strchr(list, '-');
}

/* A domain's index in ja->dom of rank ri. */
static const struct gs_job_domain *dom_of(const struct gs_job_analysis *ja, size_t ri)
{
	return &ja->dom[ja->rank_dom[ri]];
}

int64_t job_shift(const struct gs_job_analysis *ja, size_t ri)
{
	const struct gs_js_rank *r = ja->sums[ri];

	return (r->clock ? r->wall_offset_ns : 0) + dom_of(ja, ri)->offset;
}

/* The error of comparing two domains' times. */
static int64_t dom_err(const struct gs_job_domain *d)
{
	switch (d->state) {
	case GS_JOB_DOM_FITTED:
		return d->residual;
	case GS_JOB_DOM_NO_EVIDENCE:
		return CLOCK_UNKNOWN;
	default:
		return 0;
	}
}

int64_t job_clock_err(const struct gs_job_analysis *ja, size_t ri)
{
	return dom_err(dom_of(ja, ri));
}

/* ---- communicators ---- */

static const char *member_group(const struct gs_js_rank *r, const struct gs_js_member *e)
{
	return e->key == GS_JOB_KEY_GROUP ? gs_js_str(r, e->group) : NULL;
}

static struct gs_job_comm *find_comm(struct gs_job_analysis *ja, const struct gs_js_rank *r,
				     const struct gs_js_member *e)
{
	for (size_t i = ja->n_comms; i-- > 0;) {
		struct gs_job_comm *c = &ja->comms[i];

		if (c->clock_group != r->clock_group || c->key != e->key)
			continue;
		if (e->key == GS_JOB_KEY_GROUP ? !strcmp(c->group, member_group(r, e)) :
		    e->key == GS_JOB_KEY_KIND  ? c->kind == e->kind :
						 true)
			return c;
	}
	return NULL;
}

static gs_status add_member(struct gs_job_analysis *ja, size_t *cap, size_t ri,
			    const struct gs_js_member *e)
{
	const struct gs_js_rank *r = ja->sums[ri];
	struct gs_job_comm *c = find_comm(ja, r, e);
	struct gs_job_member m = {.ri = ri, .k = e->k, .n = e->n};

	if (!c) {
		struct gs_job_comm nc = {.clock_group = r->clock_group,
					 .key = e->key,
					 .kind = e->kind,
					 .group = member_group(r, e),
					 .desc = ""};

		if (GS_VEC_PUSH(ja->comms, ja->n_comms, *cap, nc))
			return gs_nomem();
		c = &ja->comms[ja->n_comms - 1];
	}
	if (GS_VEC_APPEND(c->m, c->n_m, m))
		return gs_nomem();
	if (c->key == GS_JOB_KEY_GROUP) {
		if (!c->group_size)
			c->group_size = e->e0_group_size;
		if (!*c->desc && e->e0_desc != GS_JS_NONE)
			c->desc = gs_js_str(r, e->e0_desc);
	}
	return GS_OK;
}

static int cmp_comm(const void *pa, const void *pb)
{
	const struct gs_job_comm *a = pa, *b = pb;

	if (a->clock_group != b->clock_group)
		return a->clock_group < b->clock_group ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->key == GS_JOB_KEY_GROUP) {
		/* Numeric names ("0", "10") in numeric order. */
		size_t la = strlen(a->group), lb = strlen(b->group);
		bool na = la && strspn(a->group, "0123456789") == la;
		bool nb = lb && strspn(b->group, "0123456789") == lb;

		if (na && nb && la != lb)
			return la < lb ? -1 : 1;
		return strcmp(a->group, b->group);
	}
	return a->kind < b->kind ? -1 : a->kind > b->kind;
}

static void label_comm(const struct gs_job_analysis *ja, struct gs_job_comm *c)
{
	int n;

	if (c->key == GS_JOB_KEY_GROUP)
		n = snprintf(c->label, sizeof(c->label), "pg %.40s%s%.30s", c->group,
			     *c->desc ? " " : "", c->desc);
	else if (c->key == GS_JOB_KEY_KIND)
		n = snprintf(c->label, sizeof(c->label), "%s (no pg)",
			     gs_job_coll_kind_name((enum gs_job_coll_kind)c->kind));
	else
		n = snprintf(c->label, sizeof(c->label), "point-to-point");
	/* Communicators of two clock groups have the same key: say which. */
	if (ja->n_clock_groups > 1 && n > 0 && (size_t)n < sizeof(c->label))
		snprintf(c->label + n, sizeof(c->label) - (size_t)n, " @clock %u", c->clock_group);
}

/* ---- matching ---- */

struct ends {
	int64_t end; /* on the common clock */
	uint32_t k;
};

static int cmp_ends(const void *pa, const void *pb)
{
	const struct ends *a = pa, *b = pb;

	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

/* A member's kernels by end on the common clock. */
static struct ends *ends_of(const struct gs_job_member *m)
{
	struct ends *e = malloc((m->n ? m->n : 1) * sizeof(*e));

	if (!e)
		return NULL;
	for (size_t i = 0; i < m->n; i++)
		e[i] = (struct ends){m->k[i].end_ns + m->shift, (uint32_t)i};
	gs_sort(e, m->n, sizeof(*e), cmp_ends);
	return e;
}

/* For each e[i], the index in f of the nearest end (f sorted). */
static void nearest(const struct ends *e, size_t ne, const struct ends *f, size_t nf, size_t *out)
{
	size_t j = 0;

	for (size_t i = 0; i < ne; i++) {
		while (j + 1 < nf && f[j + 1].end <= e[i].end)
			j++;
		if (j + 1 < nf && f[j].end < e[i].end &&
		    f[j + 1].end - e[i].end < e[i].end - f[j].end)
			out[i] = j + 1;
		else
			out[i] = j;
	}
}

/* The slots being built: per collective of a communicator, its kernel on
 * each member (JOB_NONE) before they are packed into ja->slot. */
struct grid {
	uint32_t *k; /* n_coll x n_m */
	size_t n_coll, n_m, cells;
};

/* Cell (x, m); JOB_NONE outside the grid. */
static uint32_t grid_get(const struct grid *g, size_t x, size_t m)
{
	size_t i = x * g->n_m + m;

	return m < g->n_m && i < g->cells ? g->k[i] : JOB_NONE;
}

static void grid_set(struct grid *g, size_t x, size_t m, uint32_t v)
{
	size_t i = x * g->n_m + m;

	if (m < g->n_m && i < g->cells)
		g->k[i] = v;
}

/*
 * Align member b against the reference a by their ends: grid column b
 * gets b's kernel for each of a's kernels it pairs with. name_mm counts
 * kernels whose ends coincide with another signature.
 */
static gs_status align_member(const struct gs_job_analysis *ja, const struct gs_job_comm *c,
			      size_t ia, size_t ib, struct grid *g, size_t *name_mm,
			      size_t *first_name_mm)
{
	const struct gs_job_member *a = &c->m[ia], *b = &c->m[ib];
	struct ends *ea = ends_of(a), *eb = ends_of(b);
	size_t *na = malloc((a->n ? a->n : 1) * sizeof(*na));
	size_t *nb = malloc((b->n ? b->n : 1) * sizeof(*nb));
	int64_t xa = dom_err(dom_of(ja, a->ri)), xb = dom_err(dom_of(ja, b->ri));
	int64_t cap = xa >= CLOCK_UNKNOWN || xb >= CLOCK_UNKNOWN ? MATCH_CAP_NS :
								   MATCH_CAP_NS + 4 * (xa + xb);
	gs_status rc = GS_OK;

	if (!ea || !eb || !na || !nb) {
		rc = gs_nomem();
		goto out;
	}
	if (!a->n || !b->n)
		goto out;
	nearest(ea, a->n, eb, b->n, na);
	nearest(eb, b->n, ea, a->n, nb);
	for (size_t i = 0; i < a->n; i++) {
		size_t j = na[i];
		const struct gs_js_kernel *ka = &a->k[ea[i].k], *kb = &b->k[eb[j].k];
		int64_t dd = ea[i].end - eb[j].end;

		if (nb[j] != i || (dd < 0 ? -dd : dd) > cap)
			continue;
		if (ea[i].k >= g->n_coll || ib >= g->n_m)
			continue; /* cannot be: a's kernels are the grid's rows */
		if (!job_same_signature(gs_job_rank(ja, a->ri), ka, gs_job_rank(ja, b->ri), kb)) {
			if (!(*name_mm)++)
				*first_name_mm = ea[i].k;
			continue;
		}
		grid_set(g, ea[i].k, ib, eb[j].k);
	}
out:
	free(ea);
	free(eb);
	free(na);
	free(nb);
	return rc;
}

struct seq_entry {
	uint64_t seq;
	uint32_t m, k;
};

static int cmp_seq_entry(const void *pa, const void *pb)
{
	const struct seq_entry *a = pa, *b = pb;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	if (a->m != b->m)
		return a->m < b->m ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

/* Per-communicator state of the final pass, for its mismatches. */
struct comm_gaps {
	size_t name_mm, first_name_mm;
};

/* g->k: rows x cols cells (g->n_coll, g->n_m), each JOB_NONE; false
 * without memory. */
static bool grid_init(struct grid *g, size_t rows, size_t cols)
{
	size_t n;

	g->k = NULL;
	g->n_coll = rows;
	g->n_m = cols;
	g->cells = 0;
	if (cols && rows > SIZE_MAX / sizeof(*g->k) / cols)
		return false;
	n = rows * cols;
	g->k = malloc((n ? n : 1) * sizeof(*g->k));
	if (!g->k)
		return false;
	for (size_t i = 0; i < (n ? n : 1); i++)
		g->k[i] = JOB_NONE;
	g->cells = n;
	return true;
}

/* Append the collectives of grid g (rows with two members or more) to
 * ja->coll and ja->slot. */
static gs_status pack_grid(struct gs_job_analysis *ja, size_t ci, const struct grid *g)
{
	struct gs_job_comm *c = &ja->comms[ci];

	c->first_coll = ja->n_coll;
	c->n_coll = 0;
	for (size_t x = 0; x < g->n_coll; x++) {
		uint32_t present = 0;
		struct gs_job_coll coll;

		for (size_t m = 0; m < g->n_m; m++)
			present += grid_get(g, x, m) != JOB_NONE;
		if (present < 2)
			continue;
		memset(&coll, 0, sizeof(coll));
		coll.comm = (uint32_t)ci;
		coll.index = (uint32_t)x;
		coll.slot = ja->n_slot;
		coll.present = present;
		for (size_t m = 0; m < g->n_m; m++) {
			struct gs_job_slot s = {(uint32_t)m, grid_get(g, x, m)};

			if (s.k == JOB_NONE)
				continue;
			if (GS_VEC_APPEND(ja->slot, ja->n_slot, s))
				return gs_nomem();
		}
		if (GS_VEC_APPEND(ja->coll, ja->n_coll, coll))
			return gs_nomem();
		c->n_coll++;
	}
	return GS_OK;
}

/* Kernels of each member in no collective of c (the ones pack_grid made):
 * extra, and the first of them. */
static gs_status count_extra(struct gs_job_analysis *ja, struct gs_job_comm *c)
{
	size_t total = 0, *off = malloc((c->n_m + 1) * sizeof(*off));
	bool *used;

	if (!off)
		return gs_nomem();
	for (size_t m = 0; m < c->n_m; m++) {
		off[m] = total;
		total += c->m[m].n;
	}
	off[c->n_m] = total;
	used = calloc(total ? total : 1, sizeof(*used));
	if (!used) {
		free(off);
		return gs_nomem();
	}
	for (size_t i = 0; i < c->n_coll; i++) {
		const struct gs_job_coll *x = &ja->coll[c->first_coll + i];

		for (size_t p = 0; p < x->present; p++) {
			const struct gs_job_slot *sl = &ja->slot[x->slot + p];

			if (sl->m < c->n_m && off[sl->m] + sl->k < off[sl->m + 1])
				used[off[sl->m] + sl->k] = true;
		}
	}
	for (size_t m = 0; m < c->n_m; m++) {
		c->m[m].extra = 0;
		c->m[m].first_extra = SIZE_MAX;
		for (size_t k = 0; k < c->m[m].n; k++)
			if (!used[off[m] + k] && !c->m[m].extra++)
				c->m[m].first_extra = k;
	}
	free(used);
	free(off);
	return GS_OK;
}

static gs_status match_seq(struct gs_job_analysis *ja, size_t ci, struct comm_gaps *gaps)
{
	struct gs_job_comm *c = &ja->comms[ci];
	size_t total = 0, n = 0, distinct = 0;
	struct seq_entry *e;
	struct grid g = {.n_m = c->n_m};
	gs_status rc;

	for (size_t m = 0; m < c->n_m; m++)
		total += c->m[m].n;
	e = malloc((total ? total : 1) * sizeof(*e));
	if (!e)
		return gs_nomem();
	for (size_t m = 0; m < c->n_m; m++)
		for (size_t k = 0; k < c->m[m].n; k++)
			e[n++] = (struct seq_entry){c->m[m].k[k].seq, (uint32_t)m, (uint32_t)k};
	gs_sort(e, n, sizeof(*e), cmp_seq_entry);
	for (size_t i = 0; i < n; i++)
		distinct += !i || e[i].seq != e[i - 1].seq;
	if (!grid_init(&g, distinct, c->n_m)) {
		free(e);
		return gs_nomem();
	}
	for (size_t i = 0, x = 0; i < n; i++) {
		size_t fm = SIZE_MAX;

		if (i && e[i].seq != e[i - 1].seq)
			x++;
		if (grid_get(&g, x, e[i].m) != JOB_NONE)
			continue; /* the same number twice on one rank: extra */
		/* One number, one collective: another kind is a mismatch. */
		for (size_t m = 0; m < c->n_m && fm == SIZE_MAX; m++)
			if (grid_get(&g, x, m) != JOB_NONE)
				fm = m;
		if (fm != SIZE_MAX && !job_same_signature(gs_job_rank(ja, c->m[fm].ri),
							  &c->m[fm].k[grid_get(&g, x, fm)],
							  gs_job_rank(ja, c->m[e[i].m].ri),
							  &c->m[e[i].m].k[e[i].k])) {
			if (!gaps->name_mm++)
				gaps->first_name_mm = x;
			continue;
		}
		grid_set(&g, x, e[i].m, e[i].k);
	}
	free(e);
	c->matched_by = GS_JOB_BY_SEQ;
	rc = pack_grid(ja, ci, &g);
	free(g.k);
	if (rc == GS_OK)
		rc = count_extra(ja, c);
	return rc;
}

static gs_status match_ends(struct gs_job_analysis *ja, size_t ci, struct comm_gaps *gaps)
{
	struct gs_job_comm *c = &ja->comms[ci];
	const struct gs_job_member *ref;
	size_t ref_m = 0;
	struct grid g = {.n_m = c->n_m};
	gs_status rc = GS_OK;

	for (size_t m = 1; m < c->n_m; m++)
		if (c->m[m].n > c->m[ref_m].n)
			ref_m = m;
	ref = &c->m[ref_m];
	if (!grid_init(&g, ref->n, c->n_m))
		return gs_nomem();
	for (size_t x = 0; x < g.n_coll; x++)
		grid_set(&g, x, ref_m, (uint32_t)x);
	for (size_t m = 0; m < c->n_m && rc == GS_OK; m++)
		if (m != ref_m)
			rc = align_member(ja, c, ref_m, m, &g, &gaps->name_mm,
					  &gaps->first_name_mm);
	c->matched_by = c->key == GS_JOB_KEY_GROUP ? GS_JOB_BY_GROUP_ORDER : GS_JOB_BY_ORDER;
	if (rc == GS_OK)
		rc = pack_grid(ja, ci, &g);
	free(g.k);
	if (rc == GS_OK)
		rc = count_extra(ja, c);
	return rc;
}

/* ---- point-to-point ---- */

struct p2p {
	int64_t end, start; /* common clock */
	uint32_t m, k;
};

static int cmp_p2p(const void *pa, const void *pb)
{
	const struct p2p *a = pa, *b = pb;

	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->m != b->m)
		return a->m < b->m ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

/* Can entries x and y of c be the two ends of one transfer? */
static bool p2p_peers(const struct gs_job_analysis *ja, const struct gs_job_comm *c,
		      const struct p2p *x, const struct p2p *y, int64_t *dist)
{
	const struct gs_job_member *mx = &c->m[x->m], *my = &c->m[y->m];
	const struct gs_js_rank *rx = gs_job_rank(ja, mx->ri), *ry = gs_job_rank(ja, my->ri);
	const struct gs_js_kernel *kx = &mx->k[x->k], *ky = &my->k[y->k];
	int64_t ex = dom_err(dom_of(ja, mx->ri)), ey = dom_err(dom_of(ja, my->ri));
	int64_t err = ex == CLOCK_UNKNOWN || ey == CLOCK_UNKNOWN ? CLOCK_UNKNOWN : ex + ey;
	int64_t cap = err == CLOCK_UNKNOWN ? MATCH_CAP_NS : P2P_CAP_NS + 3 * err;
	int64_t d = x->end - y->end;

	if (x->m == y->m)
		return false;
	d = d < 0 ? -d : d;
	if (d > cap)
		return false;
	/* Both ran at one instant (within the clocks' error). */
	if ((x->start > y->start ? x->start : y->start) >
	    (x->end < y->end ? x->end : y->end) + (err == CLOCK_UNKNOWN ? MATCH_CAP_NS : err))
		return false;
	if (kx->group != GS_JS_NONE && ky->group != GS_JS_NONE &&
	    strcmp(gs_js_str(rx, kx->group), gs_js_str(ry, ky->group)) != 0)
		return false;
	*dist = d;
	return true;
}

static gs_status match_p2p(struct gs_job_analysis *ja, size_t ci)
{
	struct gs_job_comm *c = &ja->comms[ci];
	size_t total = 0, n = 0, *best;
	struct p2p *e;
	struct grid g = {.n_m = c->n_m};
	gs_status rc = GS_OK;

	for (size_t m = 0; m < c->n_m; m++)
		total += c->m[m].n;
	e = malloc((total ? total : 1) * sizeof(*e));
	best = malloc((total ? total : 1) * sizeof(*best));
	if (!e || !best) {
		free(e);
		free(best);
		return gs_nomem();
	}
	for (size_t m = 0; m < c->n_m; m++)
		for (size_t k = 0; k < c->m[m].n; k++)
			e[n++] = (struct p2p){c->m[m].k[k].end_ns + c->m[m].shift,
					      c->m[m].k[k].start_ns + c->m[m].shift, (uint32_t)m,
					      (uint32_t)k};
	gs_sort(e, n, sizeof(*e), cmp_p2p);
	/* Each one's nearest possible peer, among P2P_SCAN neighbours a side. */
	for (size_t i = 0; i < n; i++) {
		int64_t bd = INT64_MAX, d;
		size_t lo = i > P2P_SCAN ? i - P2P_SCAN : 0;

		best[i] = SIZE_MAX;
		for (size_t j = lo; j < n && j <= i + P2P_SCAN; j++)
			if (j != i && p2p_peers(ja, c, &e[i], &e[j], &d) && d < bd) {
				bd = d;
				best[i] = j;
			}
	}
	{
		size_t pairs = 0;

		for (size_t i = 0; i < n; i++)
			pairs += best[i] != SIZE_MAX && best[i] > i && best[best[i]] == i;
		if (!grid_init(&g, pairs, c->n_m)) {
			free(g.k);
			free(e);
			free(best);
			return gs_nomem();
		}
	}
	for (size_t i = 0, x = 0; i < n; i++) {
		size_t j = best[i];

		if (j == SIZE_MAX || j <= i || best[j] != i)
			continue;
		grid_set(&g, x, e[i].m, e[i].k);
		grid_set(&g, x, e[j].m, e[j].k);
		x++;
	}
	free(e);
	free(best);
	c->matched_by = GS_JOB_BY_P2P_END;
	rc = pack_grid(ja, ci, &g);
	free(g.k);
	if (rc == GS_OK)
		rc = count_extra(ja, c);
	return rc;
}

/* Every communicator matched anew with the current offsets. */
gs_status job_match_all(struct gs_job_analysis *ja, struct comm_gaps *gaps)
{
	gs_status rc = GS_OK;

	ja->n_coll = 0;
	ja->n_slot = 0;
	for (size_t ci = 0; ci < ja->n_comms && rc == GS_OK; ci++) {
		struct gs_job_comm *c = &ja->comms[ci];

		memset(&gaps[ci], 0, sizeof(gaps[ci]));
		for (size_t m = 0; m < c->n_m; m++) {
			c->m[m].shift = job_shift(ja, c->m[m].ri);
		}
		c->first_coll = ja->n_coll;
		c->n_coll = 0;
		c->matched_by = GS_JOB_BY_NONE;
		if (c->n_m < 2) {
			for (size_t m = 0; m < c->n_m; m++) {
				c->m[m].extra = c->m[m].n;
				c->m[m].first_extra = 0;
			}
			continue;
		}
		if (c->key == GS_JOB_KEY_P2P)
			rc = match_p2p(ja, ci);
		else if (job_all_seq(c))
			rc = match_seq(ja, ci, &gaps[ci]);
		else
			rc = match_ends(ja, ci, &gaps[ci]);
	}
	return rc;
}

/* ---- what each collective measures ---- */

/* The bus bandwidth factor of a kind for n ranks; NaN when unknown. */
static double bus_factor(enum gs_job_coll_kind k, uint32_t n)
{
	if (n == 0)
		return NAN;
	switch (k) {
	case GS_JOB_COLL_ALLREDUCE:
		return 2.0 * (double)(n - 1) / (double)n;
	case GS_JOB_COLL_ALLGATHER:
	case GS_JOB_COLL_REDUCE_SCATTER:
	case GS_JOB_COLL_ALLTOALL:
		return (double)(n - 1) / (double)n;
	case GS_JOB_COLL_BROADCAST:
	case GS_JOB_COLL_REDUCE:
	case GS_JOB_COLL_SENDRECV:
		return 1.0;
	default:
		return NAN;
	}
}

/* The clock error between the members of x: the sum of the two largest
 * errors of the domains it spans (0 within one domain). */
static int64_t coll_clock_err(const struct gs_job_analysis *ja, const struct gs_job_coll *x)
{
	size_t d0 = SIZE_MAX;
	int64_t e1 = 0, e2 = 0;
	bool two = false;

	for (size_t p = 0; p < x->present; p++) {
		size_t d = ja->rank_dom[gs_job_coll_member(ja, x, p)->ri];
		int64_t e = dom_err(&ja->dom[d]);

		if (d0 == SIZE_MAX)
			d0 = d;
		else if (d != d0)
			two = true;
		if (e > e1) {
			e2 = e1;
			e1 = e;
		} else if (e > e2) {
			e2 = e;
		}
	}
	if (!two)
		return 0;
	if (e1 >= CLOCK_UNKNOWN)
		return CLOCK_UNKNOWN;
	return e1 + e2;
}

static void measure(struct gs_job_analysis *ja, struct gs_job_coll *x)
{
	struct gs_job_comm *c = &ja->comms[x->comm];
	const struct gs_js_kernel *desc = NULL;
	int64_t min_end = INT64_MAX;
	enum gs_job_coll_kind kind;
	uint32_t n;

	x->bytes = -1;
	x->algbw = x->busbw = NAN;
	x->name = gs_js_str(gs_job_rank(ja, gs_job_coll_member(ja, x, 0)->ri),
			    gs_job_coll_kernel(ja, x, 0)->name);
	for (size_t p = 0; p < x->present; p++) {
		const struct gs_job_member *m = gs_job_coll_member(ja, x, p);
		const struct gs_js_kernel *op = gs_job_coll_kernel(ja, x, p);
		int64_t a = op->start_ns + m->shift, e = op->end_ns + m->shift;

		if (!p || a < x->first)
			x->first = a;
		if (!p || a > x->last) {
			x->last = a;
			x->last_m = ja->slot[x->slot + p].m;
		}
		if (e < min_end)
			min_end = e;
		if (x->bytes < 0) {
			x->bytes = op->bytes;
			if (op->has_col && !desc)
				desc = op;
		}
	}
	x->skew = x->last - x->first;
	x->clock_err = coll_clock_err(ja, x);
	if (x->last > min_end && x->last - min_end > x->clock_err)
		x->state = GS_JOB_NO_OVERLAP;
	else if (x->clock_err > 0 && x->skew <= x->clock_err)
		x->state = GS_JOB_WITHIN_ERROR;
	else
		x->state = GS_JOB_COMPARED;
	x->transfer = min_end > x->last ? min_end - x->last : 0;
	x->wait_sum = 0;
	if (x->state == GS_JOB_COMPARED)
		for (size_t p = 0; p < x->present; p++)
			x->wait_sum += x->last - (gs_job_coll_kernel(ja, x, p)->start_ns +
						  gs_job_coll_member(ja, x, p)->shift);
	kind = desc ? (enum gs_job_coll_kind)desc->kind_col : GS_JOB_COLL_UNKNOWN;
	if (kind == GS_JOB_COLL_UNKNOWN)
		kind = (enum gs_job_coll_kind)gs_job_coll_kernel(ja, x, 0)->kind_op;
	n = desc && desc->group_size ? desc->group_size : x->present;
	if (x->state != GS_JOB_NO_OVERLAP && x->bytes >= 0 && x->transfer > 0) {
		x->algbw = (double)x->bytes / (double)x->transfer;
		x->busbw = x->algbw * bus_factor(kind, n);
	}
	if (x->state == GS_JOB_NO_OVERLAP) {
		c->no_overlap++;
		return;
	}
	/* Totals of the communicator and of each rank. */
	c->matched++;
	c->within_error += x->state == GS_JOB_WITHIN_ERROR;
	c->skew_sum += x->skew;
	if (x->skew > c->skew_max)
		c->skew_max = x->skew;
	c->wait_sum += x->wait_sum;
	c->transfer_sum += x->transfer;
	if (isfinite(x->busbw)) {
		c->busbw_sum += x->busbw;
		c->busbw_n++;
	}
	ja->wait_total += x->wait_sum;
	for (size_t p = 0; p < x->present; p++) {
		size_t m = ja->slot[x->slot + p].m;
		struct gs_job_total *tot = &ja->totals[c->m[m].ri];
		const struct gs_js_kernel *op = gs_job_coll_kernel(ja, x, p);

		tot->collectives++;
		tot->compute_before += op->compute_before;
		if (x->state != GS_JOB_COMPARED)
			continue;
		tot->waited += x->last - (op->start_ns + c->m[m].shift);
		if (x->skew > 0) {
			tot->counted++;
			tot->expected += 1.0 / (double)x->present;
			if (m == x->last_m) {
				tot->last++;
				tot->cost += x->wait_sum;
			}
		}
	}
}

/* ---- mismatches ---- */

static gs_status add_mismatch(struct gs_job_analysis *ja, size_t *cap, size_t comm, uint8_t kind,
			      size_t index, size_t count, char *text)
{
	struct gs_job_mismatch x = {comm, kind, index, count, text};

	if (!text)
		return gs_nomem();
	if (GS_VEC_PUSH(ja->mm, ja->n_mm, *cap, x)) {
		free(text);
		return gs_nomem();
	}
	return GS_OK;
}

/* "+1.234 ms" of a time on the common clock, into the group's span. */
static const char *at_text(char *buf, size_t size, int64_t t, int64_t t0)
{
	char d[48];

	gs_dur_text(d, sizeof(d), t - t0);
	snprintf(buf, size, "+%s", d);
	return buf;
}

/* The first start of any member of c on the common clock. */
static int64_t comm_t0(const struct gs_job_comm *c)
{
	int64_t t0 = INT64_MAX;

	for (size_t m = 0; m < c->n_m; m++)
		if (c->m[m].n && c->m[m].k[0].start_ns + c->m[m].shift < t0)
			t0 = c->m[m].k[0].start_ns + c->m[m].shift;
	return t0 == INT64_MAX ? 0 : t0;
}

/*
 * The gaps of a communicator matched by sequence or by ends: per member,
 * the collectives it lacks (the first by its index) and its kernels that
 * match no other rank's (the first by time). Members with the same gap
 * share one phrase; three phrases at most, then a count.
 */
static gs_status gap_mismatch(struct gs_job_analysis *ja, size_t ci, int64_t t0, size_t *cap)
{
	struct gs_job_comm *c = &ja->comms[ci];
	size_t *lack = calloc(c->n_m ? c->n_m : 1, sizeof(*lack));
	size_t *first = calloc(c->n_m ? c->n_m : 1, sizeof(*first));
	bool *flags = calloc(c->n_m ? c->n_m : 1, sizeof(*flags));
	bool *done = calloc(c->n_m ? c->n_m : 1, sizeof(*done));
	char text[1024], list[256], at[64];
	size_t len, phrases = 0, more = 0, total = 0;
	gs_status rc = GS_OK;

	if (!lack || !first || !flags || !done) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t m = 0; m < c->n_m; m++)
		first[m] = SIZE_MAX;
	/* A collective's kernels are by member: the members between them
	 * lack it. */
	for (size_t i = 0; i < c->n_coll; i++) {
		const struct gs_job_coll *x = &ja->coll[c->first_coll + i];
		size_t p = 0;

		for (size_t m = 0; m < c->n_m; m++) {
			if (p < x->present && ja->slot[x->slot + p].m == m) {
				p++;
				continue;
			}
			if (!lack[m]++)
				first[m] = c->first_coll + i;
		}
	}
	for (size_t m = 0; m < c->n_m; m++)
		total += lack[m] + c->m[m].extra;
	if (!total)
		goto out;
	len = (size_t)snprintf(text, sizeof(text), "%s: %zu collective%s matched %s", c->label,
			       c->n_coll, c->n_coll == 1 ? "" : "s",
			       c->matched_by == GS_JOB_BY_SEQ ? "by sequence number" :
								"by their ends, in order");
	/* Lacks: members with the same count and first gap together. */
	for (size_t m = 0; m < c->n_m && len < sizeof(text); m++) {
		const struct gs_job_coll *x;

		if (!lack[m] || done[m])
			continue;
		for (size_t q = 0; q < c->n_m; q++) {
			flags[q] = lack[q] == lack[m] && first[q] == first[m];
			done[q] |= flags[q];
		}
		if (phrases++ >= 3) {
			more++;
			continue;
		}
		x = &ja->coll[first[m]];
		job_rank_list(list, sizeof(list), ja, c, flags);
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"; rank%s %s lack%s %zu (the first #%u, at %s)",
					several(list) ? "s" : "", list, several(list) ? "" : "s",
					lack[m], x->index, at_text(at, sizeof(at), x->first, t0));
	}
	for (size_t m = 0; m < c->n_m && len < sizeof(text); m++) {
		const struct gs_job_member *mm = &c->m[m];

		if (!mm->extra)
			continue;
		if (phrases++ >= 3) {
			more++;
			continue;
		}
		len += (size_t)snprintf(
			text + len, sizeof(text) - len,
			"; rank %u has %zu no other rank ran (the first its #%zu, at %s)",
			gs_job_rank(ja, mm->ri)->rank, mm->extra, mm->first_extra,
			at_text(at, sizeof(at), mm->k[mm->first_extra].start_ns + mm->shift, t0));
	}
	if (more && len < sizeof(text))
		len += (size_t)snprintf(text + len, sizeof(text) - len, "; and %zu more", more);
	if (len < sizeof(text))
		snprintf(text + len, sizeof(text) - len,
			 ": each compared over the ranks that ran it");
	rc = add_mismatch(ja, cap, ci, GS_JOB_MM_COUNT, 0, total, job_printf("%s", text));
out:
	free(lack);
	free(first);
	free(flags);
	free(done);
	return rc;
}

static gs_status comm_mismatches(struct gs_job_analysis *ja, size_t ci,
				 const struct comm_gaps *gaps, size_t *cap)
{
	struct gs_job_comm *c = &ja->comms[ci];
	int64_t t0 = comm_t0(c);
	bool *flags = calloc(c->n_m ? c->n_m : 1, sizeof(*flags));
	char list[256], at[64];
	gs_status rc = GS_OK;
	size_t extra = 0;

	if (!flags)
		return gs_nomem();
	if (c->key == GS_JOB_KEY_GROUP && c->group_size && c->group_size != c->n_m) {
		job_rank_list(list, sizeof(list), ja, c, NULL);
		rc = add_mismatch(ja, cap, ci, GS_JOB_MM_RANKS, 0, c->group_size,
				  job_printf("%s: the group has %u ranks, the job has its "
					     "collectives on %zu (rank%s %s)",
					     c->label, c->group_size, c->n_m,
					     c->n_m == 1 ? "" : "s", list));
	}
	if (c->n_m < 2 || rc != GS_OK) {
		free(flags);
		return rc;
	}
	/* Kernels in no collective with another rank. */
	if (c->key == GS_JOB_KEY_P2P) {
		size_t first = SIZE_MAX;

		for (size_t m = 0; m < c->n_m; m++) {
			flags[m] = c->m[m].extra > 0;
			extra += c->m[m].extra;
			if (flags[m] && first == SIZE_MAX)
				first = m;
		}
		if (extra) {
			const struct gs_job_member *m = &c->m[first];

			job_rank_list(list, sizeof(list), ja, c, flags);
			rc = add_mismatch(
				ja, cap, ci, GS_JOB_MM_UNPAIRED, 0, extra,
				job_printf(
					"%s: %zu kernel%s on rank%s %s end%s with no other rank's "
					"(the first on rank %u at %s): a peer the job does not "
					"hold, never compared",
					c->label, extra, extra == 1 ? "" : "s",
					several(list) ? "s" : "", list, extra == 1 ? "s" : "",
					gs_job_rank(ja, m->ri)->rank,
					at_text(at, sizeof(at),
						m->k[m->first_extra].start_ns + m->shift, t0)));
		}
	} else {
		rc = gap_mismatch(ja, ci, t0, cap);
	}
	if (rc == GS_OK && gaps->name_mm)
		rc = add_mismatch(
			ja, cap, ci, GS_JOB_MM_NAME, gaps->first_name_mm, gaps->name_mm,
			job_printf("%s: %zu kernel%s end%s with another rank's of another "
				   "collective (kind or size; the first the reference's #%zu): not "
				   "compared",
				   c->label, gaps->name_mm, gaps->name_mm == 1 ? "" : "s",
				   gaps->name_mm == 1 ? "s" : "", gaps->first_name_mm));
	if (rc == GS_OK && c->no_overlap && c->n_coll) {
		const struct gs_job_coll *first = NULL;

		for (size_t i = 0; i < c->n_coll && !first; i++)
			if (ja->coll[c->first_coll + i].state == GS_JOB_NO_OVERLAP)
				first = &ja->coll[c->first_coll + i];
		if (first) {
			int64_t gap = 0;

			for (size_t p = 0; p < first->present; p++) {
				const struct gs_js_kernel *op = gs_job_coll_kernel(ja, first, p);
				int64_t e = op->end_ns + gs_job_coll_member(ja, first, p)->shift;

				if (first->last - e > gap)
					gap = first->last - e;
			}
			rc = add_mismatch(
				ja, cap, ci, GS_JOB_MM_NO_OVERLAP, first->index, c->no_overlap,
				job_printf("%s: %zu of %zu matched collective%s never ran at once "
					   "across ranks (the first #%u, at %s: one rank's kernel "
					   "ended %s before rank %u's began): not waits, not "
					   "compared",
					   c->label, c->no_overlap, c->n_coll,
					   c->n_coll == 1 ? "" : "s", first->index,
					   at_text(at, sizeof(at), first->first, t0),
					   gs_dur_text((char[48]){0}, 48, gap),
					   gs_job_rank(ja, c->m[first->last_m].ri)->rank));
		}
	}
	free(flags);
	return rc;
}

/* ---- the entry point ---- */

gs_status job_collectives(struct gs_job_analysis *ja)
{
	size_t cap = 0, cap_mm = 0;
	struct comm_gaps *gaps = NULL;
	gs_status rc = job_build_domains(ja);

	for (size_t i = 0; i < ja->n_sums && rc == GS_OK; i++)
		for (size_t k = 0; k < ja->sums[i]->n_m && rc == GS_OK; k++)
			rc = add_member(ja, &cap, i, &ja->sums[i]->m[k]);
	if (rc != GS_OK)
		return rc;
	if (ja->n_comms)
		gs_sort(ja->comms, ja->n_comms, sizeof(*ja->comms), cmp_comm);
	for (size_t i = 0; i < ja->n_comms; i++)
		label_comm(ja, &ja->comms[i]);
	gaps = calloc(ja->n_comms ? ja->n_comms : 1, sizeof(*gaps));
	if (!gaps)
		return gs_nomem();
	rc = job_align_and_match(ja, gaps);
	for (size_t i = 0; i < ja->n_coll && rc == GS_OK; i++)
		measure(ja, &ja->coll[i]);
	for (size_t i = 0; i < ja->n_comms && rc == GS_OK; i++)
		rc = comm_mismatches(ja, i, &gaps[i], &cap_mm);
	/* A partial job: fewer ranks than a trace or a group says it had. */
	for (size_t i = 0; i < ja->n_sums; i++)
		if (ja->sums[i]->world_size > ja->world_size)
			ja->world_size = ja->sums[i]->world_size;
	for (size_t i = 0; i < ja->n_comms; i++)
		if (ja->comms[i].group_size > ja->world_size)
			ja->world_size = ja->comms[i].group_size;
	free(gaps);
	return rc;
}
