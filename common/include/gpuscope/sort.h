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
 * order already, or in order within each group; otherwise an LSD radix
 * sort of (key, index) pairs, with cmp only inside runs of equal keys, or
 * without a key a merge sort by cmp. The records move once: records of
 * up to 40 bytes are gathered through a copy, larger ones move in place
 * along the cycles of the permutation. Returns GS_ERR_NOMEM (no
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

/* An int64 as a uint64 that sorts the same way. */
static inline uint64_t gs_sort_key_i64(int64_t v)
{
	return (uint64_t)v ^ (1ull << 63);
}

/*
 * Dense ranks of (a, b) int64 pairs: out[i] is the rank of (a[i], b[i])
 * among the distinct pairs ordered by (a, b); *nranks their number. The
 * pairs are read at byte offsets off_a and off_b of records of `size`
 * bytes. GS_ERR_NOMEM without a cause on failure.
 */
gs_status gs_sort_pair_ranks(const void *base, size_t n, size_t size, size_t off_a, size_t off_b,
			     uint32_t *out, uint32_t *nranks);

#ifdef __cplusplus
}
#endif

#endif
