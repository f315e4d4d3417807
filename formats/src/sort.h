/* SPDX-License-Identifier: MIT */
/*
 * Private to gs_format: a stable sort of record arrays for gs_trace_finish,
 * fast on what traces hold (records already in order, or in order within
 * each stream or thread).
 */
#ifndef GS_FORMAT_SORT_H
#define GS_FORMAT_SORT_H

#include <gpuscope/format.h>

#include <stddef.h>
#include <stdint.h>

struct gs_sort_spec {
	size_t size;                              /* bytes per record */
	int (*cmp)(const void *a, const void *b); /* the order (a stable sort by it) */
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
 * Sort `n` records at `base` stably by spec->cmp: the same order as a stable
 * merge sort by cmp (glibc's qsort on Debian 12). O(N) when the records are
 * in order already, or in order within each group; otherwise an LSD radix
 * sort of (key, index) pairs, with cmp only inside runs of equal keys. The
 * records move once, in place (cycles of the permutation). Returns
 * GS_ERR_NOMEM (no cause appended) when the index arrays cannot be had.
 */
gs_status gs_sort_records(void *base, size_t n, const struct gs_sort_spec *spec);

/* An int64 as a uint64 that sorts the same way. */
static inline uint64_t gs_sort_key_i64(int64_t v)
{
	return (uint64_t)v ^ (1ull << 63);
}

/*
 * Dense ranks of (a, b) pairs: out[i] is the rank of (a[i], b[i]) among the
 * distinct pairs ordered by (a, b); *nranks their number. The pairs are read
 * at byte offsets off_a and off_b of records of `size` bytes.
 */
gs_status gs_sort_pair_ranks(const void *base, size_t n, size_t size, size_t off_a, size_t off_b,
			     uint32_t *out, uint32_t *nranks);

#endif
