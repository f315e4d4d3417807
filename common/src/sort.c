/* SPDX-License-Identifier: MIT */
/*
 * The stable sorts of gs_common (see gpuscope/sort.h).
 *
 * Paths, fastest first:
 *   1. the input is in order already (n - 1 comparisons);
 *   2. with groups, in order within each group: one stable counting pass
 *      (into a new array: a scatter of the records themselves, no index);
 *   3. with a key and no groups: a bucket sort of the indexes by the keys'
 *      high bits, each bucket by insertion (by key, then cmp); with groups:
 *      LSD radix sort of (key, index) pairs (a byte a pass, bytes that
 *      every key shares skipped), then a stable counting pass by group,
 *      then runs of equal (group, key) ordered by cmp (insertion sort for
 *      short runs, merge sort for long ones);
 *   4. a comparator alone: a stable merge sort of the elements, the sorted
 *      runs the input already has merged pairwise (short runs first made
 *      16 long by insertion); without memory for it, the same merges done
 *      in place by rotations.
 * Paths 2 and 3 work on indexes, and the records then move once: gathered
 * through a copy (sequential writes), or, when the copy cannot be had or
 * the records are large and move only a few places, in place along the
 * cycles of the permutation.
 * gs_sort_by_i64 / gs_sort_by_u64 move the elements themselves (they are
 * small): a few sorted runs merged pairwise, otherwise an LSD radix sort
 * of the elements, a byte a pass, bytes every key shares skipped.
 */
#include <gpuscope/hash.h>
#include <gpuscope/search.h>
#include <gpuscope/sort.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define RADIX_BITS 8 /* a byte per pass: 256 buckets, written in cache */
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES (64 / RADIX_BITS)
#define MERGE_RUNS_MAX 32 /* up to this many sorted runs: merged, not radix sorted */
#define INSERTION_MAX 16
#define GATHER_MAX_SIZE 40 /* bytes per record gathered through a copy */
#define PREFETCH_AHEAD 8   /* records fetched ahead: enough to cover a miss */

typedef int (*cmp_fn)(const void *, const void *);

/* Copy one element; the sizes gpuscope sorts get an inlined copy. */
static inline void copy_elem(char *dst, const char *src, size_t size)
{
	switch (size) {
	case 8:
		memcpy(dst, src, 8);
		break;
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

static inline void prefetch_rec(const char *p, size_t size)
{
	for (size_t o = 0; o < size; o += 64)
		__builtin_prefetch(p + o, 0, 0);
	__builtin_prefetch(p + size - 1, 0, 0);
}

/* ---- path 4: merge sort of the elements by a comparator ---- */

/* Merge the sorted runs [l, l + nl) and [r, r + nr) into dst, left first on
 * ties (stable). */
static void merge_runs(char *dst, const char *l, size_t nl, const char *r, size_t nr, size_t size,
		       cmp_fn cmp)
{
	while (nl && nr) {
		if (cmp(l, r) <= 0) {
			copy_elem(dst, l, size);
			l += size;
			nl--;
		} else {
			copy_elem(dst, r, size);
			r += size;
			nr--;
		}
		dst += size;
	}
	memcpy(dst, l, nl * size);
	memcpy(dst + nl * size, r, nr * size);
}

static void swap_elems(char *a, char *b, size_t size)
{
	char t[64];

	while (size) {
		size_t k = size < sizeof(t) ? size : sizeof(t);

		memcpy(t, a, k);
		memcpy(a, b, k);
		memcpy(b, t, k);
		a += k;
		b += k;
		size -= k;
	}
}

/* Stable insertion sort of a[0 .. n) by adjacent swaps (n is short). */
static void insertion_elems(char *a, size_t n, size_t size, cmp_fn cmp)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp(a + (j - 1) * size, a + j * size) > 0; j--)
			swap_elems(a + (j - 1) * size, a + j * size, size);
}

static void reverse_elems(char *a, size_t n, size_t size)
{
	for (size_t i = 0, j = n; i + 1 < j; i++, j--)
		swap_elems(a + i * size, a + (j - 1) * size, size);
}

/* a[0 .. n1) a[n1 .. n1 + n2) -> a[n1 .. n1 + n2) a[0 .. n1). */
static void rotate_elems(char *a, size_t n1, size_t n2, size_t size)
{
	if (!n1 || !n2)
		return;
	reverse_elems(a, n1, size);
	reverse_elems(a + n1 * size, n2, size);
	reverse_elems(a, n1 + n2, size);
}

/* What merge_in_place searches: the elements base[i * size] against pivot. */
struct elem_key {
	const char *base;
	size_t size;
	const void *pivot;
	cmp_fn cmp;
};

/* Element i sorts below the pivot. */
static bool elem_below(const void *ctx, size_t i)
{
	const struct elem_key *k = ctx;

	return k->cmp(k->base + i * k->size, k->pivot) < 0;
}

/* Element i sorts at or below the pivot. */
static bool elem_not_above(const void *ctx, size_t i)
{
	const struct elem_key *k = ctx;

	return k->cmp(k->base + i * k->size, k->pivot) <= 0;
}

/* Stable in-place merge of the sorted a[0 .. n1) and a[n1 .. n1 + n2). */
static void merge_in_place(char *a, size_t n1, size_t n2, size_t size, cmp_fn cmp)
{
	size_t c1, c2;

	if (!n1 || !n2 || cmp(a + (n1 - 1) * size, a + n1 * size) <= 0)
		return;
	if (n1 + n2 == 2) {
		swap_elems(a, a + size, size);
		return;
	}
	if (n1 >= n2) {
		/* The left half's middle; the right elements below it go first. */
		struct elem_key k = {a + n1 * size, size, NULL, cmp};

		c1 = n1 / 2;
		k.pivot = a + c1 * size;
		c2 = gs_partition_point(n2, elem_below, &k);
	} else {
		/* The right half's middle; the left elements not above it stay. */
		struct elem_key k = {a, size, NULL, cmp};

		c2 = n2 / 2;
		k.pivot = a + (n1 + c2) * size;
		c1 = gs_partition_point(n1, elem_not_above, &k);
	}
	rotate_elems(a + c1 * size, n1 - c1, c2, size);
	merge_in_place(a, c1, c2, size, cmp);
	merge_in_place(a + (c1 + c2) * size, n1 - c1, n2 - c2, size, cmp);
}

void gs_sort_in_place(void *base, size_t n, size_t size, cmp_fn cmp)
{
	char *a = base;

	for (size_t i = 0; i < n; i += INSERTION_MAX)
		insertion_elems(a + i * size, n - i < INSERTION_MAX ? n - i : INSERTION_MAX, size,
				cmp);
	for (size_t w = INSERTION_MAX; w < n; w *= 2)
		for (size_t lo = 0; lo + w < n; lo += 2 * w)
			merge_in_place(a + lo * size, w, n - lo - w < w ? n - lo - w : w, size,
				       cmp);
}

/* Bounds of the sorted runs of a (bound[0] = 0 .. bound[runs] = n). */
static size_t find_runs(const char *a, size_t n, size_t size, cmp_fn cmp, size_t *bound)
{
	size_t runs = 0;

	bound[runs++] = 0;
	for (size_t i = 1; i < n; i++)
		if (cmp(a + (i - 1) * size, a + i * size) > 0)
			bound[runs++] = i;
	bound[runs] = n;
	return runs;
}

void gs_sort(void *base, size_t n, size_t size, cmp_fn cmp)
{
	char *a = base, *tmp = NULL, *src, *dst;
	size_t runs = 1, *bound = NULL;

	if (n < 2 || !size)
		return;
	for (size_t i = 1; i < n; i++)
		runs += cmp(a + (i - 1) * size, a + i * size) > 0;
	if (runs == 1)
		return; /* in order already */
	if (n <= INSERTION_MAX) {
		insertion_elems(a, n, size, cmp);
		return;
	}
	if (runs > n / INSERTION_MAX) {
		/* Many short runs: sorted blocks first. */
		for (size_t i = 0; i < n; i += INSERTION_MAX)
			insertion_elems(a + i * size, n - i < INSERTION_MAX ? n - i : INSERTION_MAX,
					size, cmp);
		runs = 1;
		for (size_t i = 1; i < n; i++)
			runs += cmp(a + (i - 1) * size, a + i * size) > 0;
		if (runs == 1)
			return;
	}
	if (n <= SIZE_MAX / size)
		tmp = malloc(n * size);
	bound = tmp ? malloc((runs + 1) * sizeof(*bound)) : NULL;
	if (!bound) {
		free(tmp);
		gs_sort_in_place(a, n, size, cmp);
		return;
	}
	runs = find_runs(a, n, size, cmp, bound);
	src = a;
	dst = tmp;
	while (runs > 1) {
		size_t out = 0;
		char *t;

		for (size_t r = 0; r < runs; r += 2) {
			size_t lo = bound[r], mid = bound[r + 1];
			size_t hi = r + 1 < runs ? bound[r + 2] : mid;

			merge_runs(dst + lo * size, src + lo * size, mid - lo, src + mid * size,
				   hi - mid, size, cmp);
			bound[out++] = lo;
		}
		bound[out] = n;
		runs = out;
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * size);
	free(tmp);
	free(bound);
}

/* ---- paths 2 and 3: indexes ---- */

struct ctx {
	const char *base;
	size_t size;
	cmp_fn cmp;                    /* NULL: the key alone orders */
	uint64_t (*key)(const void *); /* NULL: the first 8 bytes ^ flip */
	uint64_t flip;
	void *dst; /* where apply's copy goes (the caller's), or NULL: malloc'd */
};

static const void *rec(const struct ctx *c, uint32_t i)
{
	return c->base + (size_t)i * c->size;
}

static uint64_t key_at(const struct ctx *c, uint32_t i)
{
	uint64_t k;

	if (c->key)
		return c->key(rec(c, i));
	memcpy(&k, rec(c, i), sizeof(k));
	return k ^ c->flip;
}

/* Records i, j in order (i first): by key, then by cmp. */
static bool le(const struct ctx *c, uint32_t i, uint32_t j, uint64_t ki, uint64_t kj)
{
	if (ki != kj)
		return ki < kj;
	return !c->cmp || c->cmp(rec(c, i), rec(c, j)) <= 0;
}

static bool le_cmp(const struct ctx *c, uint32_t i, uint32_t j)
{
	return c->cmp(rec(c, i), rec(c, j)) <= 0;
}

/* Records i, j in order by their keys k[] (then cmp), or by cmp alone
 * when k is NULL. */
static bool le_by(const struct ctx *c, const uint64_t *k, uint32_t i, uint32_t j)
{
	return k ? le(c, i, j, k[i], k[j]) : le_cmp(c, i, j);
}

static void insertion_idx(const struct ctx *c, const uint64_t *k, uint32_t *idx, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = idx[i];
		size_t j = i;

		while (j > 0 && !le_by(c, k, idx[j - 1], x)) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = x;
	}
}

/* Stable bottom-up merge sort of idx[0 .. n) by k then cmp (le_by); tmp
 * holds n. */
static void merge_sort_idx(const struct ctx *c, const uint64_t *k, uint32_t *idx, uint32_t *tmp,
			   size_t n)
{
	uint32_t *src = idx, *dst = tmp;

	for (size_t i = 0; i < n; i += INSERTION_MAX)
		insertion_idx(c, k, idx + i, n - i < INSERTION_MAX ? n - i : INSERTION_MAX);
	for (size_t w = INSERTION_MAX; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t a = lo, b = mid, o = lo;

			while (a < mid && b < hi)
				dst[o++] = le_by(c, k, src[a], src[b]) ? src[a++] : src[b++];
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

/*
 * Path 3 for keys without groups: the order of records 0 .. n - 1 into
 * idx, by key then cmp, stably. One counting scatter of the indexes into
 * buckets of the keys' high bits, about BUCKET_FILL records a bucket, then
 * each bucket by insertion (by key, then cmp on equal keys), in cache.
 * Keys that come nearly in order (host ranges, written as they end, are a
 * few places from theirs) make the scatter's writes follow its reads, and
 * a bucket's indexes are near each other, so its keys share cache lines:
 * no second key array, where the radix sort makes a pass per varying
 * byte. A bucket of more than BUCKET_MAX records (keys bunched together)
 * is merge sorted.
 *
 * The keys (into k), the check for records in order already and the
 * bucket counts come from one pass over the records (bucket_count). The
 * buckets span the keys of the first and the last record, which for
 * nearly ordered records bound all but a few: a key outside goes to the
 * first or last bucket, which keeps the buckets in key order. When more
 * than one key in SPAN_MISS_SHARE falls outside (records in no order),
 * the keys' true span, taken in the same pass, is counted again.
 */
#define BUCKET_FILL 8
#define BUCKET_MAX 64
#define SPAN_MISS_SHARE 64

struct buckets {
	uint64_t lo;
	size_t last; /* the number of buckets - 1 */
	unsigned shift;
	size_t *end; /* the counts, then each bucket's end */
};

/* Buckets for keys lo .. hi, about BUCKET_FILL of n keys a bucket. */
static gs_status buckets_over(struct buckets *bk, uint64_t lo, uint64_t hi, size_t n)
{
	size_t want = n / BUCKET_FILL ? n / BUCKET_FILL : 1;
	uint64_t span = hi - lo;

	bk->lo = lo;
	bk->shift = 0;
	while (bk->shift < 63 && (span >> bk->shift) >= want)
		bk->shift++;
	bk->last = (size_t)(span >> bk->shift);
	free(bk->end);
	bk->end = calloc(bk->last + 2, sizeof(*bk->end));
	return bk->end ? GS_OK : GS_ERR_NOMEM;
}

static inline size_t bucket_of(const struct buckets *bk, uint64_t k)
{
	size_t b = k < bk->lo ? 0 : (size_t)((k - bk->lo) >> bk->shift);

	return b < bk->last ? b : bk->last;
}

/* Count key k (in end[b + 1]); 1 when it lies outside the buckets' span. */
static inline size_t count_key(const struct buckets *bk, uint64_t k)
{
	size_t b = bucket_of(bk, k);

	bk->end[b + 1]++;
	return k < bk->lo || (size_t)((k - bk->lo) >> bk->shift) > bk->last;
}

/*
 * The keys of records 0 .. n - 1 into k and, unless they are in order
 * already (*sorted, bk->end left NULL), their bucket counts in bk.
 */
static gs_status bucket_count(const struct ctx *c, uint64_t *k, size_t n, struct buckets *bk,
			      bool *sorted)
{
	uint64_t first = key_at(c, 0), end_key = key_at(c, (uint32_t)(n - 1));
	uint64_t lo = first, hi = first;
	size_t outside = 0;

	*sorted = true;
	k[0] = first;
	for (size_t i = 1; i < n; i++) {
		k[i] = key_at(c, (uint32_t)i);
		lo = k[i] < lo ? k[i] : lo;
		hi = k[i] > hi ? k[i] : hi;
		if (*sorted) {
			if (le(c, (uint32_t)(i - 1), (uint32_t)i, k[i - 1], k[i]))
				continue;
			/* The first record out of order: count those before. */
			*sorted = false;
			if (buckets_over(bk, first < end_key ? first : end_key,
					 first < end_key ? end_key : first, n))
				return GS_ERR_NOMEM;
			for (size_t j = 0; j < i; j++)
				outside += count_key(bk, k[j]);
		}
		outside += count_key(bk, k[i]);
	}
	if (*sorted || outside <= n / SPAN_MISS_SHARE)
		return GS_OK;
	if (buckets_over(bk, lo, hi, n))
		return GS_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		count_key(bk, k[i]);
	return GS_OK;
}

/* The bucket sort itself, from bucket_count's counts (bk->end is freed). */
static gs_status bucket_sort(const struct ctx *c, const uint64_t *k, size_t n, uint32_t *idx,
			     struct buckets *bk)
{
	size_t *end = bk->end, big = 0;
	uint32_t *tmp = NULL;

	for (size_t b = 0; b <= bk->last; b++) {
		big = end[b + 1] > big ? end[b + 1] : big;
		end[b + 1] += end[b];
	}
	if (big > BUCKET_MAX && !(tmp = malloc(big * sizeof(*tmp)))) {
		free(end);
		return GS_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		idx[end[bucket_of(bk, k[i])]++] = (uint32_t)i;
	/* end[b]: the end of bucket b now, the start of b + 1. */
	for (size_t b = 0, from = 0; b <= bk->last; from = end[b++]) {
		size_t m = end[b] - from;

		if (m > BUCKET_MAX)
			merge_sort_idx(c, k, idx + from, tmp, m);
		else if (m > 1)
			insertion_idx(c, k, idx + from, m);
	}
	free(tmp);
	free(end);
	return GS_OK;
}

/*
 * Stable counting pass by group: (k, idx) in, (k2, idx2) out; groups is
 * indexed by record. k and k2 may be NULL (no keys carried).
 */
static gs_status group_pass(const uint64_t *k, const uint32_t *idx, uint64_t *k2, uint32_t *idx2,
			    size_t n, const uint32_t *groups, uint32_t ngroups)
{
	size_t *start = calloc((size_t)ngroups + 1, sizeof(*start));

	if (!start)
		return GS_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		start[groups[i] + 1]++;
	for (uint32_t g = 0; g < ngroups; g++)
		start[g + 1] += start[g];
	for (size_t i = 0; i < n; i++) {
		size_t o = start[groups[idx[i]]]++;

		idx2[o] = idx[i];
		if (k)
			k2[o] = k[i];
	}
	free(start);
	return GS_OK;
}

/*
 * *within: the records are in order within each group (keys in k);
 * *all: besides, the groups come in order (the records are sorted).
 */
static gs_status in_order_within_groups(const struct ctx *c, const uint64_t *k, size_t n,
					const uint32_t *groups, uint32_t ngroups, bool *within,
					bool *all)
{
	uint32_t *last = malloc(((size_t)ngroups ? ngroups : 1) * sizeof(*last));

	if (!last)
		return GS_ERR_NOMEM;
	memset(last, 0xff, (size_t)ngroups * sizeof(*last));
	*within = *all = true;
	for (size_t i = 0; i < n; i++) {
		uint32_t g = groups[i], l = last[g];

		if (i && g < groups[i - 1])
			*all = false;
		if (l != UINT32_MAX && !le(c, l, (uint32_t)i, k[l], k[i])) {
			*within = *all = false;
			break;
		}
		last[g] = (uint32_t)i;
	}
	free(last);
	return GS_OK;
}

/*
 * Move the records into the order idx gives (idx[p]: the record that goes
 * to p), once each, in place along the permutation's cycles (idx is
 * consumed). A second walk runs PREFETCH_AHEAD records ahead on the same
 * cycle and prefetches each record before the copy needs it (the
 * destination is always the record just read, in cache already).
 */
static gs_status apply_cycles(char *base, size_t n, size_t size, uint32_t *idx)
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
			copy_elem(base + p * size, base + q * size, size);
			p = q;
		}
	}
	free(tmp);
	return GS_OK;
}

/*
 * Whether the permutation moves records far (more than one in FAR_SHARE
 * goes more than FAR_RECORDS places): its cycles then jump over the whole
 * array, a TLB miss a record, and a gather through a copy is cheaper. A
 * local one (records sorted from nearly in order) is applied in place, in
 * cache, without a second array. *back: the most places a record moves
 * to a later place (what apply_window's ring must hold).
 */
#define FAR_RECORDS 4096
#define FAR_SHARE 16
#define RING_MAX_BYTES (4u << 20) /* apply_window's ring: in L2 or L3 */

static bool moves_far(const uint32_t *idx, size_t n, size_t *back)
{
	size_t far = 0, most = 0;

	for (size_t p = 0; p < n; p++) {
		far += (idx[p] > p ? idx[p] - p : p - idx[p]) > FAR_RECORDS;
		most = idx[p] < p && p - idx[p] > most ? p - idx[p] : most;
	}
	*back = most;
	return far > n / FAR_SHARE;
}

/*
 * In place by a window sliding over the array: places are written in
 * order, each one's old record kept first in a ring of the last mask + 1
 * places (more than any record moves to a later place), so a record that
 * goes later comes from the ring and one that goes earlier from base,
 * where nothing is written yet. Two sequential streams and a ring in
 * cache, where the walk along the cycles (host ranges: 0.36 s of the sort
 * phase's main thread at 1e7) waits on an index and a record a step.
 */
static void apply_window(char *base, size_t n, size_t size, const uint32_t *idx, char *ring,
			 size_t mask)
{
	for (size_t p = 0; p < n; p++) {
		size_t q = idx[p];

		copy_elem(ring + (p & mask) * size, base + p * size, size);
		if (q != p)
			copy_elem(base + p * size,
				  q < p ? ring + (q & mask) * size : base + q * size, size);
	}
}

/* In place: by the window when its ring fits RING_MAX_BYTES (back: the
 * most a record moves to a later place), else along the cycles. */
static gs_status apply_in_place(char *base, size_t n, size_t size, uint32_t *idx, size_t back)
{
	size_t ring = 1;
	char *buf;

	while (ring <= back && ring * size <= RING_MAX_BYTES)
		ring *= 2;
	buf = ring * size <= RING_MAX_BYTES ? malloc(ring * size) : NULL;
	if (!buf)
		return apply_cycles(base, n, size, idx);
	apply_window(base, n, size, idx, buf, ring - 1);
	free(buf);
	return GS_OK;
}

/*
 * The same by a copy (sequential writes, prefetched reads): into a new
 * array *out when out is given, else copied back. Without the memory for
 * the copy, or for records above GATHER_MAX_SIZE bytes copied back whose
 * permutation is local (moves_far), in place (*out then NULL).
 */
static gs_status apply(char *base, size_t n, size_t size, uint32_t *idx, void **out, void *dst)
{
	char *tmp = NULL;
	size_t back = SIZE_MAX; /* unknown until moves_far */

	if (out && dst)
		tmp = dst;
	else if (out || size <= GATHER_MAX_SIZE || moves_far(idx, n, &back))
		tmp = malloc(n * size);
	if (!tmp)
		return apply_in_place(base, n, size, idx, back);
	for (size_t p = 0; p < n; p++) {
		if (p + PREFETCH_AHEAD < n)
			prefetch_rec(base + (size_t)idx[p + PREFETCH_AHEAD] * size, size);
		copy_elem(tmp + p * size, base + (size_t)idx[p] * size, size);
	}
	if (out) {
		*out = tmp;
		return GS_OK;
	}
	memcpy(base, tmp, n * size);
	free(tmp);
	return GS_OK;
}

/* The stable counting scatter of path 2: group g's records (count[g] of
 * them) to their stretch of dst, in the order they come. */
static void scatter_by_group(char *dst, const char *base, size_t n, size_t size,
			     const uint32_t *groups, uint32_t ngroups, size_t *start,
			     const size_t *count)
{
	size_t sum = 0;

	for (uint32_t g = 0; g < ngroups; g++) {
		start[g] = sum;
		sum += count[g];
	}
	for (size_t i = 0; i < n; i++)
		copy_elem(dst + start[groups[i]]++ * size, base + i * size, size);
}

/*
 * Path 2 without indexes, into a new array (or c->dst): when the records
 * are in order within each group, a stable counting scatter puts each
 * group's records in its own stretch, in the order they come. The order is
 * checked on the records themselves (a key and a record kept per group),
 * so no key or index array is allocated: one sequential read to check and
 * count, one to scatter into ngroups sequential streams. True: the
 * records were placed (*out set) or found sorted (*out left NULL); false
 * (nothing changed) when they are not in order within their groups, or
 * for want of memory: the general path sorts them then.
 */
static bool scatter_groups(const struct ctx *c, const char *base, size_t n, const uint32_t *groups,
			   uint32_t ngroups, void **out)
{
	size_t *count = calloc((size_t)ngroups ? ngroups : 1, sizeof(*count));
	size_t *start = malloc(((size_t)ngroups ? ngroups : 1) * sizeof(*start));
	uint64_t *last_key = malloc(((size_t)ngroups ? ngroups : 1) * sizeof(*last_key));
	uint32_t *last = malloc(((size_t)ngroups ? ngroups : 1) * sizeof(*last));
	bool all = true, within = true, done = false;
	char *dst;

	if (!count || !start || !last_key || !last)
		goto out;
	memset(last, 0xff, (size_t)ngroups * sizeof(*last));
	for (size_t i = 0; i < n; i++) {
		uint32_t g = groups[i], l = last[g];
		uint64_t k = key_at(c, (uint32_t)i);

		if (i && g < groups[i - 1])
			all = false;
		if (l != UINT32_MAX && !le(c, l, (uint32_t)i, last_key[g], k)) {
			within = false;
			break;
		}
		last[g] = (uint32_t)i;
		last_key[g] = k;
		count[g]++;
	}
	if (!within)
		goto out;
	if (all) {
		done = true; /* in order already */
		goto out;
	}
	dst = c->dst ? c->dst : malloc(n * c->size);
	if (!dst)
		goto out;
	scatter_by_group(dst, base, n, c->size, groups, ngroups, start, count);
	*out = dst;
	done = true;
out:
	free(count);
	free(start);
	free(last_key);
	free(last);
	return done;
}

gs_status gs_sort_scatter_groups(const void *base, size_t n, size_t size, const uint32_t *groups,
				 uint32_t ngroups, const size_t *count, void *dst, void **out)
{
	size_t *start = malloc(((size_t)ngroups ? ngroups : 1) * sizeof(*start));
	char *to = dst ? dst : malloc((n ? n : 1) * size);

	*out = NULL;
	if (!start || !to) {
		free(start);
		if (!dst)
			free(to);
		return GS_ERR_NOMEM;
	}
	scatter_by_group(to, base, n, size, groups, ngroups, start, count);
	free(start);
	*out = to;
	return GS_OK;
}

/* Paths 1 to 3 for records with a key (c->key, or the first 8 bytes). */
static gs_status sort_keyed(const struct ctx *c, char *base, size_t n, const uint32_t *groups,
			    uint32_t ngroups, void **out)
{
	uint32_t *idx = NULL, *idx2 = NULL;
	uint64_t *k = NULL, *k2 = NULL;
	size_t(*count)[RADIX_SIZE] = NULL;
	gs_status rc = GS_ERR_NOMEM;
	size_t i;

	if (groups && out && ngroups <= GS_SORT_SCATTER_MAX_GROUPS &&
	    scatter_groups(c, base, n, groups, ngroups, out))
		return GS_OK;
	k = malloc(n * sizeof(*k));
	/* calloc: the bucket sort's scatter fills every slot, which the
	 * static analyzer cannot see (fresh pages come zeroed anyway). */
	idx = calloc(n, sizeof(*idx));
	if (!k || !idx)
		goto out;
	if (!groups) {
		struct buckets bk = {0};
		bool sorted;

		rc = bucket_count(c, k, n, &bk, &sorted);
		if (!rc && !sorted)
			rc = bucket_sort(c, k, n, idx, &bk);
		else
			free(bk.end);
		/* Only idx is left to use: the keys go before apply's copy. */
		free(k);
		k = NULL;
		if (!rc && !sorted)
			rc = apply(base, n, c->size, idx, out, c->dst);
		goto out;
	}
	for (i = 0; i < n; i++)
		k[i] = key_at(c, (uint32_t)i);
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	idx2 = malloc(n * sizeof(*idx2));
	if (!idx2)
		goto out;
	{
		bool within, all;

		rc = in_order_within_groups(c, k, n, groups, ngroups, &within, &all);
		if (rc || all)
			goto out; /* in order already */
		if (within) {
			rc = group_pass(NULL, idx, NULL, idx2, n, groups, ngroups);
			/* The keys and idx are done with: freed before apply's
			 * copy is allocated, to lower the peak by 12 bytes a
			 * record. */
			free(k);
			free(idx);
			k = NULL;
			idx = NULL;
			if (!rc)
				rc = apply(base, n, c->size, idx2, out, c->dst);
			goto out;
		}
	}
	rc = GS_ERR_NOMEM;
	k2 = malloc(n * sizeof(*k2));
	count = malloc(RADIX_PASSES * sizeof(*count));
	if (!k2 || !count)
		goto out;
	radix_sort(k, idx, k2, idx2, n, count);
	rc = group_pass(k, idx, k2, idx2, n, groups, ngroups);
	if (rc)
		goto out;
	memcpy(idx, idx2, n * sizeof(*idx));
	memcpy(k, k2, n * sizeof(*k));
	/* Runs of equal (group, key): order them by cmp. */
	for (i = 0; c->cmp && i < n;) {
		size_t j = i + 1;
		uint32_t g = groups[idx[i]];

		while (j < n && k[j] == k[i] && groups[idx[j]] == g)
			j++;
		if (j - i > INSERTION_MAX)
			merge_sort_idx(c, NULL, idx + i, idx2, j - i);
		else if (j - i > 1)
			insertion_idx(c, NULL, idx + i, j - i);
		i = j;
	}
	/* Only idx is left to use: the rest goes before apply's copy. */
	free(idx2);
	free(k);
	free(k2);
	free(count);
	idx2 = NULL;
	k = k2 = NULL;
	count = NULL;
	rc = apply(base, n, c->size, idx, out, c->dst);
out:
	free(idx);
	free(idx2);
	free(k);
	free(k2);
	free(count);
	return rc;
}

static gs_status sort_records(void *base, size_t n, const struct gs_sort_spec *spec, void **out,
			      void *dst)
{
	struct ctx c = {.base = base,
			.size = spec->size,
			.cmp = spec->cmp,
			.key = spec->key,
			.dst = dst};
	size_t i;

	if (n < 2)
		return GS_OK;
	if (!spec->key) {
		char *a = base;

		for (i = 1; i < n; i++)
			if (spec->cmp(a + (i - 1) * spec->size, a + i * spec->size) > 0)
				break;
		if (i == n)
			return GS_OK;
		if (!spec->groups) {
			gs_sort(base, n, spec->size, spec->cmp);
			return GS_OK;
		}
	}
	if (n >= UINT32_MAX)
		return GS_ERR_NOMEM;
	if (!c.key) {
		/* Groups without a key: a stable pass by group, then cmp within. */
		uint32_t *idx = malloc(n * sizeof(*idx)), *idx2 = malloc(n * sizeof(*idx2));
		gs_status rc = GS_ERR_NOMEM;

		if (idx && idx2) {
			for (i = 0; i < n; i++)
				idx[i] = (uint32_t)i;
			rc = group_pass(NULL, idx, NULL, idx2, n, spec->groups, spec->ngroups);
			for (i = 0; !rc && i < n;) {
				size_t j = i + 1;
				uint32_t g = spec->groups[idx2[i]];

				while (j < n && spec->groups[idx2[j]] == g)
					j++;
				if (j - i > 1)
					merge_sort_idx(&c, NULL, idx2 + i, idx, j - i);
				i = j;
			}
			free(idx); /* before apply's copy */
			idx = NULL;
			if (!rc)
				rc = apply(base, n, spec->size, idx2, out, c.dst);
		}
		free(idx);
		free(idx2);
		return rc;
	}
	return sort_keyed(&c, base, n, spec->groups, spec->ngroups, out);
}

gs_status gs_sort_records(void *base, size_t n, const struct gs_sort_spec *spec)
{
	return sort_records(base, n, spec, NULL, NULL);
}

gs_status gs_sort_records_copy(void *base, size_t n, const struct gs_sort_spec *spec, void **sorted)
{
	*sorted = NULL;
	return sort_records(base, n, spec, sorted, NULL);
}

gs_status gs_sort_records_into(void *base, size_t n, const struct gs_sort_spec *spec, void *dst,
			       void **sorted)
{
	*sorted = NULL;
	return sort_records(base, n, spec, sorted, dst);
}

/* ---- a leading 64-bit key ---- */

static int cmp_first8_u64(const void *pa, const void *pb)
{
	uint64_t a, b;

	memcpy(&a, pa, sizeof(a));
	memcpy(&b, pb, sizeof(b));
	return a < b ? -1 : a > b;
}

static int cmp_first8_i64(const void *pa, const void *pb)
{
	int64_t a, b;

	memcpy(&a, pa, sizeof(a));
	memcpy(&b, pb, sizeof(b));
	return a < b ? -1 : a > b;
}

static inline uint64_t first8(const char *p, uint64_t flip)
{
	uint64_t k;

	memcpy(&k, p, sizeof(k));
	return k ^ flip;
}

/* Merge two runs sorted by the leading key into dst, left first on ties. */
static void merge_first8(char *dst, const char *l, size_t nl, const char *r, size_t nr, size_t size,
			 uint64_t flip)
{
	while (nl && nr) {
		if (first8(r, flip) < first8(l, flip)) {
			copy_elem(dst, r, size);
			r += size;
			nr--;
		} else {
			copy_elem(dst, l, size);
			l += size;
			nl--;
		}
		dst += size;
	}
	memcpy(dst, l, nl * size);
	if (dst + nl * size != r) /* in place: the rest of r is where it goes */
		memmove(dst + nl * size, r, nr * size);
}

/*
 * A few sorted runs (bound[0 .. runs]) merged pairwise, through tmp, the
 * last merge into a. When the runs are in a then, the left one moves to tmp
 * and the merge writes in place behind the right one's reads.
 */
static void merge_runs_first8(char *a, char *tmp, size_t n, size_t size, uint64_t flip,
			      size_t *bound, size_t runs)
{
	char *src = a, *dst = tmp;
	size_t mid;

	while (runs > 2) {
		size_t out = 0;
		char *t;

		for (size_t r = 0; r < runs; r += 2) {
			size_t lo = bound[r], m = bound[r + 1];
			size_t hi = r + 1 < runs ? bound[r + 2] : m;

			merge_first8(dst + lo * size, src + lo * size, m - lo, src + m * size,
				     hi - m, size, flip);
			bound[out++] = lo;
		}
		bound[out] = n;
		runs = out;
		t = src;
		src = dst;
		dst = t;
	}
	mid = bound[1];
	if (src == tmp) {
		merge_first8(a, tmp, mid, tmp + mid * size, n - mid, size, flip);
		return;
	}
	memcpy(tmp, a, mid * size);
	merge_first8(a, tmp, mid, a + mid * size, n - mid, size, flip);
}

/* LSD radix sort of the elements themselves by the leading key, through tmp. */
static void radix_first8(char *a, char *tmp, size_t n, size_t size, uint64_t flip)
{
	size_t count[RADIX_PASSES][RADIX_SIZE];
	char *src = a, *dst = tmp;

	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++) {
		uint64_t k = first8(a + i * size, flip);

		for (int p = 0; p < RADIX_PASSES; p++)
			count[p][(k >> (p * RADIX_BITS)) & (RADIX_SIZE - 1)]++;
	}
	for (int p = 0; p < RADIX_PASSES; p++) {
		size_t sum = 0;
		bool trivial = false;
		char *t;

		for (size_t d = 0; d < RADIX_SIZE; d++) {
			size_t c = count[p][d];

			trivial |= c == n;
			count[p][d] = sum;
			sum += c;
		}
		if (trivial)
			continue; /* every key has the same byte here */
		for (size_t i = 0; i < n; i++) {
			const char *e = src + i * size;
			size_t o =
				count[p][(first8(e, flip) >> (p * RADIX_BITS)) & (RADIX_SIZE - 1)]++;

			copy_elem(dst + o * size, e, size);
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * size);
}

static void sort_first8(void *base, size_t n, size_t size, uint64_t flip)
{
	char *a = base, *tmp;
	size_t runs = 1, bound[MERGE_RUNS_MAX + 1];

	if (n < 2 || size < 8)
		return;
	bound[0] = 0;
	for (size_t i = 1; i < n; i++) {
		if (first8(a + i * size, flip) >= first8(a + (i - 1) * size, flip))
			continue;
		if (runs < MERGE_RUNS_MAX)
			bound[runs] = i;
		runs++;
	}
	if (runs == 1)
		return; /* in order already */
	tmp = n > INSERTION_MAX && n <= SIZE_MAX / size ? malloc(n * size) : NULL;
	if (!tmp) {
		/* Short, or no memory: gs_sort by the key. */
		gs_sort(base, n, size, flip ? cmp_first8_i64 : cmp_first8_u64);
		return;
	}
	if (runs <= MERGE_RUNS_MAX) {
		bound[runs] = n;
		merge_runs_first8(a, tmp, n, size, flip, bound, runs);
	} else {
		radix_first8(a, tmp, n, size, flip);
	}
	free(tmp);
}

void gs_sort_by_i64(void *base, size_t n, size_t size)
{
	sort_first8(base, n, size, 1ull << 63);
}

void gs_sort_by_u64(void *base, size_t n, size_t size)
{
	sort_first8(base, n, size, 0);
}

/* ---- k-way merge of an array's sorted runs ---- */

static inline bool head_less(const struct gs_kmerge_head *a, const struct gs_kmerge_head *b)
{
	return a->key < b->key || (a->key == b->key && a->run < b->run);
}

/* Restore the heap below slot i. */
static void kmerge_sift(struct gs_kmerge *m, size_t i)
{
	struct gs_kmerge_head h = m->heap[i];
	size_t n = m->n_heap;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && head_less(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!head_less(&m->heap[c], &h))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = h;
}

static void kmerge_init(struct gs_kmerge *m, void *base, size_t n, size_t size, uint64_t flip)
{
	const char *a = base;
	size_t runs = 0, from = 0;
	uint64_t prev;

	memset(m, 0, sizeof(*m));
	m->base = base;
	m->size = size;
	m->flip = flip;
	if (!n || size < 8)
		return;
	prev = first8(a, flip);
	for (size_t i = 1; i < n; i++) {
		uint64_t k = first8(a + i * size, flip);

		if (k < prev) {
			if (runs == GS_KMERGE_MAX_RUNS - 1) {
				runs = GS_KMERGE_MAX_RUNS + 1;
				break;
			}
			m->pos[runs] = from;
			m->end[runs++] = i;
			from = i;
		}
		prev = k;
	}
	if (runs > GS_KMERGE_MAX_RUNS) {
		sort_first8(base, n, size, flip);
		runs = 0;
		from = 0;
	}
	m->pos[runs] = from;
	m->end[runs++] = n;
	for (size_t r = 0; r < runs; r++)
		m->heap[r] =
			(struct gs_kmerge_head){first8(a + m->pos[r] * size, flip), (uint32_t)r};
	m->n_runs = runs;
	m->n_heap = runs;
	for (size_t i = runs / 2; i-- > 0;)
		kmerge_sift(m, i);
}

void gs_kmerge_init_i64(struct gs_kmerge *m, void *base, size_t n, size_t size)
{
	kmerge_init(m, base, n, size, 1ull << 63);
}

void gs_kmerge_init_u64(struct gs_kmerge *m, void *base, size_t n, size_t size)
{
	kmerge_init(m, base, n, size, 0);
}

/*
 * The top run's elements that come before every other run's head: keys
 * below the smallest other head (one of the root's children), or equal to
 * it when the top run is the earlier one.
 */
bool gs_kmerge_refill(struct gs_kmerge *m)
{
	uint32_t r;
	size_t p, e;
	const char *el;

	if (!m->n_heap)
		return false;
	r = m->heap[0].run;
	p = m->pos[r];
	e = m->end[r];
	el = m->base + p * m->size;
	if (m->n_heap == 1) {
		p = e; /* the rest of the last run */
	} else {
		const struct gs_kmerge_head *o = &m->heap[1];
		uint64_t bound;

		if (m->n_heap > 2 && head_less(&m->heap[2], o))
			o = &m->heap[2];
		bound = o->key;
		p++; /* the top itself comes first */
		if (r < o->run) {
			while (p < e && first8(m->base + p * m->size, m->flip) <= bound)
				p++;
		} else {
			while (p < e && first8(m->base + p * m->size, m->flip) < bound)
				p++;
		}
	}
	m->at = el;
	m->left = p - m->pos[r];
	m->pos[r] = p;
	if (p < e) {
		m->heap[0].key = first8(m->base + p * m->size, m->flip);
		kmerge_sift(m, 0);
	} else if (--m->n_heap) {
		m->heap[0] = m->heap[m->n_heap];
		kmerge_sift(m, 0);
	}
	return true;
}

size_t gs_kmerge_runs(const struct gs_kmerge *m)
{
	return m->n_runs;
}

/* ---- ranks of (a, b) pairs ---- */

struct pair {
	int64_t a, b;
	uint32_t id;
	uint32_t last;     /* the pair's last record so far, for the order check */
	uint64_t last_key; /* and its key */
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

/* Record i follows the last one of its pair p in `order` (updated);
 * without a key, by cmp alone. */
static bool pair_follows(const struct ctx *c, struct pair *p, uint32_t i)
{
	uint64_t k = c->key ? c->key(rec(c, i)) : 0;
	bool in = p->last == UINT32_MAX || le(c, p->last, i, p->last_key, k);

	p->last = i;
	p->last_key = k;
	return in;
}

gs_status gs_sort_pair_ranks(const void *base, size_t n, size_t size, size_t off_a, size_t off_b,
			     const struct gs_sort_spec *order, bool *within, uint32_t *out,
			     uint32_t *nranks)
{
	struct ctx c = {.base = base, .size = size};
	struct pair *pairs = NULL, *np;
	uint32_t *slot = NULL, *rank = NULL, npairs = 0, cap = 64;
	size_t nslots = 64, mask;
	int64_t last_a = 0, last_b = 0;
	uint32_t last_id = 0;
	struct pair *last_pair = NULL; /* pairs[last_id]; NULL before the first */
	gs_status rc = GS_ERR_NOMEM;

	if (order) {
		c.cmp = order->cmp;
		c.key = order->key;
		*within = true;
	}
	/* Both from the start (calloc: for the static analyzer, which cannot
	 * see that a table entry is an index of a pair filled in). */
	slot = malloc(nslots * sizeof(*slot));
	pairs = calloc(cap, sizeof(*pairs));
	if (!slot || !pairs)
		goto out;
	memset(slot, 0xff, nslots * sizeof(*slot));
	mask = nslots - 1;
	for (size_t i = 0; i < n; i++) {
		const char *r = (const char *)base + i * size;
		int64_t a, b;
		size_t h;

		memcpy(&a, r + off_a, sizeof(a));
		memcpy(&b, r + off_b, sizeof(b));
		if (last_pair && a == last_a && b == last_b) {
			out[i] = last_id; /* runs of one thread are the common case */
			if (order && *within)
				*within = pair_follows(&c, last_pair, (uint32_t)i);
			continue;
		}
		h = (size_t)gs_hash_u64(gs_hash_u64((uint64_t)a) ^ (uint64_t)b) & mask;
		while (slot[h] != UINT32_MAX && (pairs[slot[h]].a != a || pairs[slot[h]].b != b))
			h = (h + 1) & mask;
		if (slot[h] == UINT32_MAX) {
			if (npairs == cap) {
				cap *= 2;
				np = realloc(pairs, cap * sizeof(*pairs));
				if (!np)
					goto out;
				pairs = np;
			}
			pairs[npairs] =
				(struct pair){.a = a, .b = b, .id = npairs, .last = UINT32_MAX};
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
		last_pair = &pairs[last_id];
		if (order && *within)
			*within = pair_follows(&c, last_pair, (uint32_t)i);
		last_a = a;
		last_b = b;
	}
	/* Provisional ids (first seen first) to ranks in (a, b) order. */
	rank = calloc((size_t)npairs ? npairs : 1, sizeof(*rank));
	if (!rank)
		goto out;
	if (npairs)
		gs_sort(pairs, npairs, sizeof(*pairs), cmp_pair);
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
