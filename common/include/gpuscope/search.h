/* SPDX-License-Identifier: MIT */
/*
 * Binary searches over sorted data (target gs_common): the one bisection of
 * gpuscope, so that each search says what it looks for, not how.
 *
 * Every search returns an index in [0, n], never a pointer or a "not
 * found": the place where the key would go, n when it would go last. The
 * caller checks what lies there (i < n && v[i] == key for an exact match).
 * O(log n) comparisons; n == 0 returns 0 without reading anything. Ties
 * (equal keys) are found at their first (lower bound) or just past their
 * last (upper bound), as C++'s std::lower_bound and std::upper_bound.
 *
 * The data must be partitioned by the search: sorted ascending by the key
 * searched for. Every search here is gs_partition_point with a predicate;
 * all are inline, so that the predicate, known at each call, is inlined
 * into the loop.
 */
#ifndef GPUSCOPE_SEARCH_H
#define GPUSCOPE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The first i in [0, n) for which before(ctx, i) is false; n when it is
 * true for all. before must be true for a prefix of [0, n) and false for
 * the rest (the elements "before" the place searched for come first).
 * The general form: composite keys, keys of any type, keys computed from
 * an element.
 */
static inline size_t gs_partition_point(size_t n, bool (*before)(const void *ctx, size_t i),
					const void *ctx)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (before(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What the keyed searches below pass their predicate. */
struct gs_search_key {
	const void *base;
	size_t stride, offset; /* records: the key at base + i * stride + offset */
	union {
		uint64_t u;
		int64_t i;
	} key;
};

static inline bool gs_search_u64_lt(const void *ctx, size_t i)
{
	const struct gs_search_key *k = (const struct gs_search_key *)ctx;

	return ((const uint64_t *)k->base)[i] < k->key.u;
}

static inline bool gs_search_u64_le(const void *ctx, size_t i)
{
	const struct gs_search_key *k = (const struct gs_search_key *)ctx;

	return ((const uint64_t *)k->base)[i] <= k->key.u;
}

/* The int64_t key of record i (read with memcpy: it need not be aligned). */
static inline int64_t gs_search_i64_of(const struct gs_search_key *k, size_t i)
{
	int64_t v;

	memcpy(&v, (const char *)k->base + i * k->stride + k->offset, sizeof(v));
	return v;
}

static inline bool gs_search_i64_lt(const void *ctx, size_t i)
{
	const struct gs_search_key *k = (const struct gs_search_key *)ctx;

	return gs_search_i64_of(k, i) < k->key.i;
}

static inline bool gs_search_i64_le(const void *ctx, size_t i)
{
	const struct gs_search_key *k = (const struct gs_search_key *)ctx;

	return gs_search_i64_of(k, i) <= k->key.i;
}

/* The first i with v[i] >= key (lower bound) / v[i] > key (upper bound)
 * in v[0 .. n), sorted ascending. */
static inline size_t gs_lower_bound_u64(const uint64_t *v, size_t n, uint64_t key)
{
	struct gs_search_key k = {.base = v, .key.u = key};

	return gs_partition_point(n, gs_search_u64_lt, &k);
}

static inline size_t gs_upper_bound_u64(const uint64_t *v, size_t n, uint64_t key)
{
	struct gs_search_key k = {.base = v, .key.u = key};

	return gs_partition_point(n, gs_search_u64_le, &k);
}

/*
 * The same over n records of `stride` bytes at base whose int64_t key lies
 * at byte `offset` of each (offsetof(struct x, field)): the first record
 * whose key is >= key (lower bound) / > key (upper bound). For a plain
 * int64_t array: stride sizeof(int64_t), offset 0 (gs_lower_bound_i64).
 */
static inline size_t gs_lower_bound_i64_at(const void *base, size_t n, size_t stride, size_t offset,
					   int64_t key)
{
	struct gs_search_key k = {.base = base, .stride = stride, .offset = offset, .key.i = key};

	return gs_partition_point(n, gs_search_i64_lt, &k);
}

static inline size_t gs_upper_bound_i64_at(const void *base, size_t n, size_t stride, size_t offset,
					   int64_t key)
{
	struct gs_search_key k = {.base = base, .stride = stride, .offset = offset, .key.i = key};

	return gs_partition_point(n, gs_search_i64_le, &k);
}

static inline size_t gs_lower_bound_i64(const int64_t *v, size_t n, int64_t key)
{
	return gs_lower_bound_i64_at(v, n, sizeof(*v), 0, key);
}

static inline size_t gs_upper_bound_i64(const int64_t *v, size_t n, int64_t key)
{
	return gs_upper_bound_i64_at(v, n, sizeof(*v), 0, key);
}

#ifdef __cplusplus
}
#endif

#endif
