/* SPDX-License-Identifier: MIT */
/*
 * Allocations and data dependencies; see datadeps.h for the design and the
 * complexity. The treap is written with split and merge.
 */
#include "datadeps.h"

#include <gpuscope/vec.h>

#include <stdlib.h>
#include <string.h>

struct link {
	uint64_t correlation;
	uint64_t offset;
	uint64_t bytes;
	uint8_t op_kind;
};

struct node {
	uint64_t address;
	uint64_t bytes;
	uint64_t seq;
	int64_t alloc_ns;
	int64_t free_ns;
	uint32_t device;
	uint32_t prio;
	uint32_t index; /* when declared */
	uint8_t mem_kind;
	bool released;
	bool declared;
	bool touched; /* a link was made: first_offset holds */
	bool segment; /* touched at more than one offset */
	uint64_t first_offset;
	struct link *links; /* held until declared */
	size_t nlinks, cap;
	struct link last; /* the last link made (dedupe) */
	struct node *l, *r;
};

struct pending {
	uint64_t ptr;
	uint64_t bytes;
	uint64_t correlation;
	int64_t time_ns;
	uint64_t generation;
	uint8_t op_kind;
};

struct gs_dd {
	struct gs_sink *sink;
	int64_t pid;
	struct node *root;
	uint64_t seq;
	uint64_t rng;
	struct node **released; /* released, not yet declared and removed */
	size_t nreleased, released_cap;
	struct pending *pend;
	size_t npend, pend_cap;
	struct gs_dd_stats st;
};

/* ---- treap ---- */

static bool key_less(uint64_t a1, uint64_t s1, uint64_t a2, uint64_t s2)
{
	return a1 < a2 || (a1 == a2 && s1 < s2);
}

/* Split into keys < (addr, seq) and keys >= (addr, seq). */
static void split(struct node *t, uint64_t addr, uint64_t seq, struct node **l, struct node **r)
{
	if (!t) {
		*l = *r = NULL;
		return;
	}
	if (key_less(t->address, t->seq, addr, seq)) {
		split(t->r, addr, seq, &t->r, r);
		*l = t;
	} else {
		split(t->l, addr, seq, l, &t->l);
		*r = t;
	}
}

static struct node *merge(struct node *l, struct node *r)
{
	if (!l)
		return r;
	if (!r)
		return l;
	if (l->prio > r->prio) {
		l->r = merge(l->r, r);
		return l;
	}
	r->l = merge(l, r->l);
	return r;
}

static void tree_insert(struct gs_dd *d, struct node *n)
{
	struct node *l, *r;

	split(d->root, n->address, n->seq, &l, &r);
	d->root = merge(merge(l, n), r);
}

static void tree_remove(struct gs_dd *d, struct node *n)
{
	struct node *l, *m, *r;

	split(d->root, n->address, n->seq, &l, &m);
	split(m, n->address, n->seq + 1, &m, &r);
	d->root = merge(l, r);
}

/* The node with the largest key below (addr, seq), or NULL. */
static struct node *below(struct node *t, uint64_t addr, uint64_t seq)
{
	struct node *best = NULL;

	while (t) {
		if (key_less(t->address, t->seq, addr, seq)) {
			best = t;
			t = t->r;
		} else {
			t = t->l;
		}
	}
	return best;
}

static uint32_t next_prio(struct gs_dd *d)
{
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	return (uint32_t)(d->rng >> 16);
}

static void free_tree(struct node *t)
{
	while (t) {
		struct node *r = t->r;

		free_tree(t->l);
		free(t->links);
		free(t);
		t = r;
	}
}

/* ---- API ---- */

gs_status gs_dd_create(struct gs_sink *sink, int64_t pid, struct gs_dd **out)
{
	struct gs_dd *d = calloc(1, sizeof(*d));

	if (!d)
		return gs_nomem();
	d->sink = sink;
	d->pid = pid;
	d->rng = 0x9e3779b97f4a7c15ULL;
	*out = d;
	return GS_OK;
}

void gs_dd_destroy(struct gs_dd *d)
{
	if (!d)
		return;
	free_tree(d->root);
	free(d->released);
	free(d->pend);
	free(d);
}

void gs_dd_get_stats(const struct gs_dd *d, struct gs_dd_stats *s)
{
	*s = d->st;
}

gs_status gs_dd_alloc(struct gs_dd *d, uint64_t address, uint64_t bytes, int64_t time_ns,
		      uint32_t device, uint8_t mem_kind)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n)
		return gs_nomem();
	n->address = address;
	n->bytes = bytes;
	n->seq = ++d->seq;
	n->alloc_ns = time_ns;
	n->device = device;
	n->mem_kind = mem_kind;
	n->prio = next_prio(d);
	tree_insert(d, n);
	return GS_OK;
}

gs_status gs_dd_release(struct gs_dd *d, uint64_t address, int64_t time_ns)
{
	struct node *n = below(d->root, address, UINT64_MAX);

	/* The live allocation at this address (the newest, when a released one
	 * waits for settling at the same address). */
	while (n && n->address == address && n->released)
		n = below(d->root, n->address, n->seq);
	if (!n || n->address != address) {
		d->st.unknown_releases++;
		return GS_OK;
	}
	/* An array of node pointers: the size of a pointer is meant. */
	if (gs_vec_reserve((void **)&d->released, &d->released_cap, d->nreleased + 1,
			   sizeof(*d->released))) /* NOLINT(bugprone-sizeof-expression) */
		return gs_nomem();
	n->released = true;
	n->free_ns = time_ns;
	d->released[d->nreleased++] = n;
	return GS_OK;
}

gs_status gs_dd_observe(struct gs_dd *d, const struct gs_dd_obs *o, uint64_t generation)
{
	for (unsigned i = 0; i < o->n && i < GS_DD_MAX_PTRS; i++) {
		if (!o->ptr[i])
			continue;
		if (d->npend >= GS_DD_MAX_PENDING) {
			d->st.pending_dropped++;
			continue;
		}
		if (gs_vec_reserve((void **)&d->pend, &d->pend_cap, d->npend + 1, sizeof(*d->pend)))
			return gs_nomem();
		d->pend[d->npend++] = (struct pending){.ptr = o->ptr[i],
						       .bytes = o->bytes,
						       .correlation = o->correlation,
						       .time_ns = o->time_ns,
						       .generation = generation,
						       .op_kind = o->op_kind};
	}
	return GS_OK;
}

static bool contains(const struct node *n, uint64_t ptr, int64_t t)
{
	if (ptr < n->address ||
	    (ptr - n->address >= n->bytes && !(n->bytes == 0 && ptr == n->address)))
		return false;
	if (!t)
		return true;
	if (t < n->alloc_ns)
		return false;
	return !n->released || t < n->free_ns;
}

/* The allocation holding `ptr` at time t: the nearest few below it. */
static struct node *lookup(struct gs_dd *d, uint64_t ptr, int64_t t)
{
	struct node *n = below(d->root, ptr, UINT64_MAX);

	for (int step = 0; n && step < 8; step++) {
		if (contains(n, ptr, t))
			return n;
		n = below(d->root, n->address, n->seq);
	}
	return NULL;
}

static gs_status emit_link(struct gs_dd *d, const struct node *n, struct link l)
{
	struct gs_op_alloc oa = {.correlation = l.correlation,
				 .allocation = n->index,
				 .op_kind = l.op_kind,
				 .flags = GS_LINK_HAS_OFFSET | (n->segment ? GS_LINK_SEGMENT : 0),
				 .offset = l.offset,
				 .bytes = l.bytes};

	d->st.links++;
	return d->sink->op_alloc ? d->sink->op_alloc(d->sink, &oa) : GS_OK;
}

static gs_status declare(struct gs_dd *d, struct node *n)
{
	struct gs_allocation a = {.address = n->address,
				  .bytes = n->bytes,
				  .alloc_ns = n->alloc_ns,
				  .free_ns = n->released ? n->free_ns : 0,
				  .pid = d->pid,
				  .device = n->device,
				  .mem_kind = n->mem_kind};
	gs_status rc = GS_OK;

	if (n->declared)
		return GS_OK;
	if (d->sink->allocation)
		rc = d->sink->allocation(d->sink, &a, &n->index);
	if (rc)
		return rc;
	n->declared = true;
	d->st.allocations++;
	for (size_t i = 0; i < n->nlinks && !rc; i++)
		rc = emit_link(d, n, n->links[i]);
	free(n->links);
	n->links = NULL;
	n->nlinks = n->cap = 0;
	return rc;
}

static gs_status add_link(struct gs_dd *d, struct node *n, const struct pending *p)
{
	struct link l = {.correlation = p->correlation,
			 .offset = p->ptr - n->address,
			 .bytes = p->bytes,
			 .op_kind = p->op_kind};

	/* Two pointers of one op to one place in one allocation make one link. */
	if (n->last.correlation == l.correlation && n->last.op_kind == l.op_kind &&
	    n->last.offset == l.offset && (n->declared || n->nlinks))
		return GS_OK;
	n->last = l;
	if (!n->touched) {
		n->touched = true;
		n->first_offset = l.offset;
	} else if (l.offset != n->first_offset && !n->segment) {
		n->segment = true;
		d->st.segments++;
	}
	if (n->declared)
		return emit_link(d, n, l);
	if (n->nlinks >= GS_DD_LINKS_HELD) {
		gs_status rc = declare(d, n);

		d->st.early_declared++;
		return rc ? rc : emit_link(d, n, l);
	}
	if (gs_vec_reserve((void **)&n->links, &n->cap, n->nlinks + 1, sizeof(*n->links)))
		return gs_nomem();
	n->links[n->nlinks++] = l;
	return GS_OK;
}

static gs_status declare_all(struct gs_dd *d, struct node *t)
{
	gs_status rc = GS_OK;

	while (t && !rc) {
		rc = declare_all(d, t->l);
		if (!rc)
			rc = declare(d, t);
		t = t->r;
	}
	return rc;
}

gs_status gs_dd_settle(struct gs_dd *d, uint64_t generation, bool final)
{
	gs_status rc = GS_OK;
	size_t keep = 0;

	for (size_t i = 0; i < d->npend; i++) {
		struct pending p = d->pend[i];
		struct node *n = lookup(d, p.ptr, p.time_ns);

		if (n) {
			rc = add_link(d, n, &p);
			if (rc)
				return rc;
		} else if (final || p.generation + 2 <= generation) {
			d->st.unresolved++;
		} else {
			d->pend[keep++] = p;
		}
	}
	d->npend = keep;
	for (size_t i = 0; i < d->nreleased; i++) {
		struct node *n = d->released[i];

		rc = declare(d, n);
		if (rc)
			return rc;
		tree_remove(d, n);
		free(n);
	}
	d->nreleased = 0;
	if (final)
		rc = declare_all(d, d->root);
	return rc;
}
