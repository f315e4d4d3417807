/* SPDX-License-Identifier: MIT */
/*
 * Stable sorts (target gs_common): the one sort engine of gpuscope.
 *
 * Every sort here is stable, so its order is that of any stable sort by the
 * same comparator (glibc's merge-sort qsort on Debian 12 among them, which
 * the project used before). Input already in order costs n - 1
 * comparisons; integer keys are radix sorted (LSD, a byte a pass, bytes
 * that every key shares skipped); comparators alone are merge sorted, a few
 * sorted runs merged run by run.
 */
#ifndef GPUSCOPE_SORT_H
#define GPUSCOPE_SORT_H

#include <gpuscope/error.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How gs_sort_records orders records. */
struct gs_sort_spec {
	size_t size; /* bytes per record */
	/*
	 * The order: a stable sort by it. May be NULL when `key` is given:
	 * the key alone is the order then (ties keep their place).
	 */
	int (*cmp)(const void *a, const void *b);
	/*
	 * Optional: a key that orders records as cmp's leading field does
	 * (after the group): key(a) < key(b) implies cmp(a, b) < 0 when the
	 * groups are equal. Records of equal key are ordered by cmp.
	 */
	uint64_t (*key)(const void *rec);
	/* Optional: per record a group, 0 .. ngroups - 1, ordered as cmp's
	 * first field (group(a) < group(b) implies cmp(a, b) < 0). */
	const uint32_t *groups;
	uint32_t ngroups;
};

/*
 * Sort `n` records at `base` stably by spec. O(N) when the records are in
 * order already, or in order within each group; otherwise, with a key, a
 * bucket sort of the indexes by the keys' high bits (without groups; O(N)
 * for keys spread over their span or nearly in order) or an LSD radix
 * sort of (key, index) pairs (with groups), cmp only between equal keys;
 * without a key a merge sort by cmp. The records move once: records of
 * up to 40 bytes, or larger ones that move far, are gathered through a
 * copy; larger ones that move a few places (sorted from nearly in order)
 * move in place along the cycles of the permutation, in cache, without a
 * second array. Returns GS_ERR_NOMEM (no
 * cause appended) when the work arrays cannot be had; the records are
 * then unchanged.
 */
gs_status gs_sort_records(void *base, size_t n, const struct gs_sort_spec *spec);

/*
 * As gs_sort_records, but the sorted records go to a new array, *sorted
 * (n records, malloc'd), base left as it was: faster when records move
 * far (interleaved records partitioned by group), at the cost of a second
 * array for a moment. *sorted is NULL when base itself was left sorted:
 * in order already, or sorted in place for want of the memory.
 */
gs_status gs_sort_records_copy(void *base, size_t n, const struct gs_sort_spec *spec,
			       void **sorted);

/*
 * As gs_sort_records_copy, but into the caller's `dst` (room for n
 * records, not overlapping base) instead of a new array: memory already
 * touched (an array just sorted away from) costs no page faults. *sorted
 * is dst when the records went there, NULL when base itself was left
 * sorted (in order already); dst stays the caller's either way.
 */
gs_status gs_sort_records_into(void *base, size_t n, const struct gs_sort_spec *spec, void *dst,
			       void **sorted);

/*
 * The scatter gs_sort_records_copy makes of records in order within each
 * of their groups (up to this many groups: their write streams stay in
 * cache), for a caller that has checked that order itself in a pass it
 * makes anyway: a stable partition of the n records at base by groups[i]
 * (0 .. ngroups - 1), each group's records in the order they come, count[g]
 * of group g, into dst (room for n records, not overlapping base) or, when
 * dst is NULL, a new array. *out is the array they went to. Returns
 * GS_ERR_NOMEM (no cause appended) when memory is short; base is left as
 * it was either way.
 */
#define GS_SORT_SCATTER_MAX_GROUPS 4096

gs_status gs_sort_scatter_groups(const void *base, size_t n, size_t size, const uint32_t *groups,
				 uint32_t ngroups, const size_t *count, void *dst, void **out);

/*
 * qsort's interface, stable. Never fails: without memory for its work
 * arrays it sorts in place (a slower merge by rotations).
 */
void gs_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* gs_sort's way without memory: stable, no allocation, O(n log^2 n). */
void gs_sort_in_place(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/*
 * Stable sorts of n elements of `size` bytes (at least 8) by their first 8
 * bytes, an int64_t (gs_sort_by_i64) or a uint64_t (gs_sort_by_u64): the
 * result of gs_sort with a comparator on that key alone. Elements built in
 * an order that breaks ties the way a longer comparator would (by index,
 * say) need no second key. Never fails (as gs_sort).
 */
void gs_sort_by_i64(void *base, size_t n, size_t size);
void gs_sort_by_u64(void *base, size_t n, size_t size);

/*
 * A k-way merge of the sorted runs an array already has, read element by
 * element: what gs_sort_by_i64 / gs_sort_by_u64 would leave there, without
 * moving anything. Made for arrays built stream by stream, each stream's
 * part in order: the array's maximal non-decreasing stretches (by the
 * leading 8-byte key) are its runs, and gs_kmerge_next returns their
 * elements smallest key first, on equal keys the earlier run's first, so
 * the order is exactly that of the stable sort. With more than
 * GS_KMERGE_MAX_RUNS runs the array is sorted in place by that sort at
 * init and read as one run. Never fails, allocates nothing; the array
 * must stay as it is while it is read.
 */
#define GS_KMERGE_MAX_RUNS 16

struct gs_kmerge_head {
	uint64_t key; /* the run's next key, as an unsigned order */
	uint32_t run;
};

struct gs_kmerge {
	const char *base;
	size_t size;
	uint64_t flip;  /* 1 << 63 for int64 keys */
	const char *at; /* the span being read: the next element, */
	size_t left;    /* and how many of the span are left */
	size_t n_runs;
	size_t n_heap;
	size_t pos[GS_KMERGE_MAX_RUNS]; /* per run: next element, end */
	size_t end[GS_KMERGE_MAX_RUNS];
	struct gs_kmerge_head heap[GS_KMERGE_MAX_RUNS]; /* min-heap by (key, run) */
};

/* n elements of `size` bytes (at least 8) at base, keyed by their first 8
 * bytes as an int64_t (_i64) or a uint64_t (_u64). */
void gs_kmerge_init_i64(struct gs_kmerge *m, void *base, size_t n, size_t size);
void gs_kmerge_init_u64(struct gs_kmerge *m, void *base, size_t n, size_t size);
/* The runs the array was read as (1 after a sort at init; 0 when empty). */
size_t gs_kmerge_runs(const struct gs_kmerge *m);
/* The next span: the elements of one run that come next, all of them
 * before any other run's next; false at the end. */
bool gs_kmerge_refill(struct gs_kmerge *m);

/* The next element in order; NULL once all were returned. */
static inline const void *gs_kmerge_next(struct gs_kmerge *m)
{
	const char *e;

	if (!m->left && !gs_kmerge_refill(m))
		return NULL;
	m->left--;
	e = m->at;
	m->at += m->size;
	return e;
}

/* An int64 as a uint64 that sorts the same way. */
static inline uint64_t gs_sort_key_i64(int64_t v)
{
	return (uint64_t)v ^ (1ull << 63);
}

/*
 * A binary min-heap's sift-down: h[0..n) of `size`-byte elements is a heap
 * by before(a, b) (a strictly comes first) except perhaps at i, whose
 * element moves down until neither child comes before it. The merges of
 * the analyses keep one heap entry a run in their own record type; inline,
 * so that the size and the predicate, known at each call, are compiled in.
 */
static inline void gs_heap_sift_down(void *h, size_t n, size_t i, size_t size,
				     bool (*before)(const void *a, const void *b))
{
	unsigned char *e = h;

	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && before(e + l * size, e + m * size))
			m = l;
		if (l + 1 < n && before(e + (l + 1) * size, e + m * size))
			m = l + 1;
		if (m == i)
			return;
		for (size_t k = 0; k < size; k++) {
			unsigned char t = e[i * size + k];

			e[i * size + k] = e[m * size + k];
			e[m * size + k] = t;
		}
		i = m;
	}
}

/*
 * Dense ranks of (a, b) int64 pairs: out[i] is the rank of (a[i], b[i])
 * among the distinct pairs ordered by (a, b); *nranks their number. The
 * pairs are read at byte offsets off_a and off_b of records of `size`
 * bytes. With `order` (its cmp and key; its groups unused), *within tells
 * besides whether the records of each pair come in that order (so that
 * gs_sort_scatter_groups by the ranks sorts them), checked in the same
 * pass; order may be NULL (within unused). GS_ERR_NOMEM without a cause
 * on failure.
 */
gs_status gs_sort_pair_ranks(const void *base, size_t n, size_t size, size_t off_a, size_t off_b,
			     const struct gs_sort_spec *order, bool *within, uint32_t *out,
			     uint32_t *nranks);

#ifdef __cplusplus
}
#endif

#endif
