/* SPDX-License-Identifier: MIT */
/*
 * The stable record sort of gs_trace_finish (see sort.h).
 *
 * The records never move until their final order is known: the sort works
 * on 4-byte indexes (plus 8-byte keys when a radix pass is needed), then
 * moves each record once, in place, along the cycles of the permutation. A
 * copy of the records (what glibc's merge-sort qsort allocated: 960 MB for
 * 10 M ops) is never made.
 *
 * Paths, fastest first:
 *   1. the records are in order already (n - 1 comparisons);
 *   2. with groups, in order within each group: one stable counting pass;
 *   3. otherwise: LSD radix sort of (key, index) by the key (11-bit digits,
 *      digits that every key shares skipped), then a stable counting pass by
 *      group, then runs of equal (group, key) ordered by cmp (insertion sort
 *      for short runs, merge sort for long ones);
 *   4. without a key: a stable merge sort of the indexes by cmp.
 * Every path is stable, so the order equals that of any stable sort by cmp.
 */
#include "sort.h"

#include <gpuscope/hash.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES ((64 + RADIX_BITS - 1) / RADIX_BITS)
#define INSERTION_MAX 16

struct ctx {
	const char *base;
	size_t size;
	int (*cmp)(const void *, const void *);
};

static const void *rec(const struct ctx *c, uint32_t i)
{
	return c->base + (size_t)i * c->size;
}

static bool le(const struct ctx *c, uint32_t a, uint32_t b)
{
	return c->cmp(rec(c, a), rec(c, b)) <= 0;
}

static void insertion_sort(const struct ctx *c, uint32_t *idx, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = idx[i];
		size_t j = i;

		while (j > 0 && !le(c, idx[j - 1], x)) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = x;
	}
}

/* Stable bottom-up merge sort of idx[0 .. n) by cmp; tmp holds n. */
static void merge_sort(const struct ctx *c, uint32_t *idx, uint32_t *tmp, size_t n)
{
	uint32_t *src = idx, *dst = tmp;

	for (size_t i = 0; i < n; i += INSERTION_MAX)
		insertion_sort(c, idx + i, n - i < INSERTION_MAX ? n - i : INSERTION_MAX);
	for (size_t w = INSERTION_MAX; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, b = mid, o = lo;

			while (a < mid && b < hi)
				dst[o++] = le(c, src[a], src[b]) ? src[a++] : src[b++];
			while (a < mid)
				dst[o++] = src[a++];
			while (b < hi)
				dst[o++] = src[b++];
		}
		uint32_t *t = src;

		src = dst;
		dst = t;
	}
	if (src != idx)
		memcpy(idx, src, n * sizeof(*idx));
}

/* Stable LSD radix sort of (k, idx) pairs by k. k2, idx2 hold n each. */
static void radix_sort(uint64_t *k, uint32_t *idx, uint64_t *k2, uint32_t *idx2, size_t n,
		       size_t (*count)[RADIX_SIZE])
{
	uint64_t *ks = k, *kd = k2;
	uint32_t *is = idx, *id = idx2;

	memset(count, 0, RADIX_PASSES * sizeof(*count));
	for (size_t i = 0; i < n; i++)
		for (int p = 0; p < RADIX_PASSES; p++)
			count[p][(k[i] >> (p * RADIX_BITS)) & (RADIX_SIZE - 1)]++;
	for (int p = 0; p < RADIX_PASSES; p++) {
		size_t sum = 0;
		bool trivial = false;

		for (size_t d = 0; d < RADIX_SIZE; d++) {
			size_t c = count[p][d];

			if (c == n)
				trivial = true;
			count[p][d] = sum;
			sum += c;
		}
		if (trivial)
			continue; /* every key has the same digit here */
		for (size_t i = 0; i < n; i++) {
			size_t o = count[p][(ks[i] >> (p * RADIX_BITS)) & (RADIX_SIZE - 1)]++;

			kd[o] = ks[i];
			id[o] = is[i];
		}
		uint64_t *tk = ks;
		uint32_t *ti = is;

		ks = kd;
		kd = tk;
		is = id;
		id = ti;
	}
	if (ks != k) {
		memcpy(k, ks, n * sizeof(*k));
		memcpy(idx, is, n * sizeof(*idx));
	}
}

/* Stable counting pass: out = in ordered by groups[in[i]]. */
static gs_status group_pass(const uint32_t *in, uint32_t *out, size_t n, const uint32_t *groups,
			    uint32_t ngroups)
{
	size_t *start = calloc((size_t)ngroups + 1, sizeof(*start));

	if (!start)
		return GS_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		start[groups[i] + 1]++;
	for (uint32_t g = 0; g < ngroups; g++)
		start[g + 1] += start[g];
	for (size_t i = 0; i < n; i++)
		out[start[groups[in[i]]]++] = in[i];
	free(start);
	return GS_OK;
}

/* True when the records are in cmp order within each group. */
static gs_status in_order_within_groups(const struct ctx *c, size_t n, const uint32_t *groups,
					uint32_t ngroups, bool *yes)
{
	uint32_t *last = malloc(((size_t)ngroups ? ngroups : 1) * sizeof(*last));

	if (!last)
		return GS_ERR_NOMEM;
	memset(last, 0xff, (size_t)ngroups * sizeof(*last));
	*yes = true;
	for (size_t i = 0; i < n; i++) {
		uint32_t g = groups[i];

		if (last[g] != UINT32_MAX && !le(c, last[g], (uint32_t)i)) {
			*yes = false;
			break;
		}
		last[g] = (uint32_t)i;
	}
	free(last);
	return GS_OK;
}

/* Copy one record; record sizes the trace uses get an inlined copy. */
static inline void copy_rec(char *dst, const char *src, size_t size)
{
	switch (size) {
	case 16:
		memcpy(dst, src, 16);
		break;
	case 24:
		memcpy(dst, src, 24);
		break;
	case 32:
		memcpy(dst, src, 32);
		break;
	case 40:
		memcpy(dst, src, 40);
		break;
	case 56:
		memcpy(dst, src, 56);
		break;
	case 80:
		memcpy(dst, src, 80);
		break;
	case 96:
		memcpy(dst, src, 96);
		break;
	default:
		memcpy(dst, src, size);
		break;
	}
}

/* Records fetched ahead along a cycle: enough to cover a cache miss. */
#define PREFETCH_AHEAD 8

static inline void prefetch_rec(const char *p, size_t size)
{
	for (size_t o = 0; o < size; o += 64)
		__builtin_prefetch(p + o, 0, 0);
	__builtin_prefetch(p + size - 1, 0, 0);
}

/*
 * Move the records into the order idx gives (idx[p]: the record that goes
 * to p), once each, in place along the permutation's cycles (idx is
 * consumed). Gathering into a copy reads memory in order but doubles the
 * array for a moment; on this machine first-touch page faults cost more
 * than the cache misses of the cycles (bench/NOTES.md). The misses are
 * hidden instead: a second walk runs PREFETCH_AHEAD records ahead on the
 * same cycle and prefetches each record before the copy needs it (the
 * destination is always the record just read, in cache already).
 */
static gs_status apply(char *base, size_t n, size_t size, uint32_t *idx)
{
	char *tmp = malloc(size);

	if (!tmp)
		return GS_ERR_NOMEM;
	for (size_t s = 0; s < n; s++) {
		size_t p = s, ahead = s;
		bool open = true; /* the look-ahead has not come back to s */

		if (idx[s] == s)
			continue;
		for (int k = 0; k < PREFETCH_AHEAD && open; k++) {
			ahead = idx[ahead];
			open = ahead != s;
			if (open)
				prefetch_rec(base + ahead * size, size);
		}
		memcpy(tmp, base + s * size, size);
		for (;;) {
			size_t q = idx[p];

			if (open) {
				ahead = idx[ahead];
				open = ahead != s;
				if (open)
					prefetch_rec(base + ahead * size, size);
			}
			idx[p] = (uint32_t)p;
			if (q == s) {
				memcpy(base + p * size, tmp, size);
				break;
			}
			copy_rec(base + p * size, base + q * size, size);
			p = q;
		}
	}
	free(tmp);
	return GS_OK;
}

gs_status gs_sort_records(void *base, size_t n, const struct gs_sort_spec *spec)
{
	struct ctx c = {.base = base, .size = spec->size, .cmp = spec->cmp};
	uint32_t *idx = NULL, *idx2 = NULL;
	uint64_t *k = NULL, *k2 = NULL;
	size_t(*count)[RADIX_SIZE] = NULL;
	gs_status rc = GS_ERR_NOMEM;
	bool done = false;
	size_t i;

	if (n < 2)
		return GS_OK;
	for (i = 1; i < n; i++)
		if (!le(&c, (uint32_t)(i - 1), (uint32_t)i))
			break;
	if (i == n)
		return GS_OK; /* in order already */
	if (n >= UINT32_MAX) {
		qsort(base, n, spec->size, spec->cmp);
		return GS_OK;
	}
	idx = malloc(n * sizeof(*idx));
	idx2 = malloc(n * sizeof(*idx2));
	if (!idx || !idx2)
		goto out;
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	if (spec->groups) {
		bool yes;

		rc = in_order_within_groups(&c, n, spec->groups, spec->ngroups, &yes);
		if (rc)
			goto out;
		if (yes) {
			rc = group_pass(idx, idx2, n, spec->groups, spec->ngroups);
			if (rc)
				goto out;
			memcpy(idx, idx2, n * sizeof(*idx));
			done = true;
		}
	}
	if (!done && !spec->key) {
		merge_sort(&c, idx, idx2, n);
		done = true;
	}
	if (!done) {
		rc = GS_ERR_NOMEM;
		k = malloc(n * sizeof(*k));
		k2 = malloc(n * sizeof(*k2));
		count = malloc(RADIX_PASSES * sizeof(*count));
		if (!k || !k2 || !count)
			goto out;
		for (i = 0; i < n; i++)
			k[i] = spec->key(rec(&c, (uint32_t)i));
		radix_sort(k, idx, k2, idx2, n, count);
		free(k2);
		k2 = NULL;
		if (spec->groups) {
			rc = group_pass(idx, idx2, n, spec->groups, spec->ngroups);
			if (rc)
				goto out;
			memcpy(idx, idx2, n * sizeof(*idx));
		}
		/* Runs of equal (group, key): order them by cmp. */
		for (i = 0; i < n;) {
			size_t j = i + 1;
			uint32_t g = spec->groups ? spec->groups[idx[i]] : 0;
			uint64_t key = spec->key(rec(&c, idx[i]));

			while (j < n && (!spec->groups || spec->groups[idx[j]] == g) &&
			       spec->key(rec(&c, idx[j])) == key)
				j++;
			if (j - i > INSERTION_MAX)
				merge_sort(&c, idx + i, idx2, j - i);
			else if (j - i > 1)
				insertion_sort(&c, idx + i, j - i);
			i = j;
		}
	}
	rc = apply(base, n, spec->size, idx);
out:
	free(idx);
	free(idx2);
	free(k);
	free(k2);
	free(count);
	return rc;
}

/* ---- ranks of (a, b) pairs ---- */

struct pair {
	int64_t a, b;
	uint32_t id;
};

static int cmp_pair(const void *pa, const void *pb)
{
	const struct pair *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return 0;
}

gs_status gs_sort_pair_ranks(const void *base, size_t n, size_t size, size_t off_a, size_t off_b,
			     uint32_t *out, uint32_t *nranks)
{
	struct pair *pairs = NULL, *np;
	uint32_t *slot = NULL, *rank = NULL, npairs = 0, cap = 0;
	size_t nslots = 64, mask;
	int64_t last_a = 0, last_b = 0;
	uint32_t last_id = UINT32_MAX;
	gs_status rc = GS_ERR_NOMEM;

	slot = malloc(nslots * sizeof(*slot));
	if (!slot)
		goto out;
	memset(slot, 0xff, nslots * sizeof(*slot));
	mask = nslots - 1;
	for (size_t i = 0; i < n; i++) {
		const char *r = (const char *)base + i * size;
		int64_t a, b;
		size_t h;

		memcpy(&a, r + off_a, sizeof(a));
		memcpy(&b, r + off_b, sizeof(b));
		if (last_id != UINT32_MAX && a == last_a && b == last_b) {
			out[i] = last_id; /* runs of one thread are the common case */
			continue;
		}
		h = (size_t)gs_hash_u64(gs_hash_u64((uint64_t)a) ^ (uint64_t)b) & mask;
		while (slot[h] != UINT32_MAX && (pairs[slot[h]].a != a || pairs[slot[h]].b != b))
			h = (h + 1) & mask;
		if (slot[h] == UINT32_MAX) {
			if (npairs == cap) {
				cap = cap ? cap * 2 : 64;
				np = realloc(pairs, cap * sizeof(*pairs));
				if (!np)
					goto out;
				pairs = np;
			}
			pairs[npairs] = (struct pair){.a = a, .b = b, .id = npairs};
			slot[h] = npairs++;
			if ((size_t)npairs * 2 > nslots) {
				uint32_t *ns = malloc(nslots * 2 * sizeof(*ns));

				if (!ns)
					goto out;
				free(slot);
				slot = ns;
				nslots *= 2;
				mask = nslots - 1;
				memset(slot, 0xff, nslots * sizeof(*slot));
				for (uint32_t p = 0; p < npairs; p++) {
					size_t k = (size_t)gs_hash_u64(
							   gs_hash_u64((uint64_t)pairs[p].a) ^
							   (uint64_t)pairs[p].b) &
						   mask;

					while (slot[k] != UINT32_MAX)
						k = (k + 1) & mask;
					slot[k] = p;
				}
				h = (size_t)gs_hash_u64(gs_hash_u64((uint64_t)a) ^ (uint64_t)b) &
				    mask;
				while (slot[h] != npairs - 1)
					h = (h + 1) & mask;
			}
		}
		out[i] = last_id = slot[h];
		last_a = a;
		last_b = b;
	}
	/* Provisional ids (first seen first) to ranks in (a, b) order. */
	rank = calloc((size_t)npairs ? npairs : 1, sizeof(*rank));
	if (!rank)
		goto out;
	if (npairs)
		qsort(pairs, npairs, sizeof(*pairs), cmp_pair);
	for (uint32_t p = 0; p < npairs; p++)
		rank[pairs[p].id] = p;
	for (size_t i = 0; i < n; i++)
		out[i] = rank[out[i]];
	*nranks = npairs;
	rc = GS_OK;
out:
	free(pairs);
	free(slot);
	free(rank);
	return rc;
}
