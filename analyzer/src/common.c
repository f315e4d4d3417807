/* SPDX-License-Identifier: MIT */
/*
 * Shared vocabulary of the analyses: the device of an op, the devices that
 * have ops.
 *
 * Complexity: gs_op_device O(1); gs_trace_op_devices O(N + S log S) for N
 * ops and S streams; gs_trace_find_thread O(log T);
 * gs_device_op_ranges O(S_d log S_d) for the S_d streams of the device.
 */
#include "analyzer_priv.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

uint32_t gs_op_device(const struct gs_trace *t, const struct gs_op *op)
{
	return gs_trace_stream_device(t, op->stream);
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return a < b ? -1 : a > b;
}

gs_status gs_trace_op_devices(const struct gs_trace *t, uint32_t **ids, size_t *n)
{
	size_t n_ops, n_streams, m = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_stream *streams = gs_trace_streams(t, &n_streams);
	uint8_t *used;
	uint32_t *out;

	*ids = NULL;
	*n = 0;
	if (!n_ops)
		return GS_OK;
	used = calloc(n_streams ? n_streams : 1, 1);
	out = malloc((n_streams ? n_streams : 1) * sizeof(*out));
	if (!used || !out) {
		free(used);
		free(out);
		return gs_nomem();
	}
	for (size_t i = 0; i < n_ops; i++)
		if (ops[i].stream < n_streams)
			used[ops[i].stream] = 1;
	for (size_t s = 0; s < n_streams; s++)
		if (used[s])
			out[m++] = streams[s].device;
	free(used);
	gs_sort(out, m, sizeof(*out), cmp_u32);
	{
		size_t k = 0;

		for (size_t i = 0; i < m; i++)
			if (k == 0 || out[k - 1] != out[i])
				out[k++] = out[i];
		m = k;
	}
	if (!m) {
		free(out);
		return GS_OK;
	}
	*ids = out;
	*n = m;
	return GS_OK;
}

uint32_t gs_trace_find_thread(const struct gs_trace *t, int64_t pid, int64_t tid)
{
	size_t n, lo = 0, hi;
	const struct gs_thread *th = gs_trace_threads(t, &n);

	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (th[mid].pid < pid || (th[mid].pid == pid && th[mid].tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && th[lo].pid == pid && th[lo].tid == tid && lo < UINT32_MAX)
		return (uint32_t)lo;
	return GS_NO_INDEX;
}

/* ---- sorting ---- */

/* Copy one element; the sizes the analyses sort get an inlined copy. */
static inline void copy_elem(char *dst, const char *src, size_t size)
{
	switch (size) {
	case 4:
		memcpy(dst, src, 4);
		break;
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
	default:
		memcpy(dst, src, size);
		break;
	}
}

/* Merge the sorted runs [l, l + nl) and [r, r + nr) into dst, left first on
 * ties (stable). */
static void merge_runs(char *dst, const char *l, size_t nl, const char *r, size_t nr, size_t size,
		       int (*cmp)(const void *, const void *))
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

void gs_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *a = base, *tmp, *src, *dst;
	size_t runs = 1, *bound, k;

	if (n < 2)
		return;
	for (size_t i = 1; i < n; i++)
		runs += cmp(a + (i - 1) * size, a + i * size) > 0;
	if (runs == 1)
		return; /* in order already */
	tmp = runs <= n / 16 ? malloc(n * size) : NULL;
	bound = tmp ? malloc((runs + 1) * sizeof(*bound)) : NULL;
	if (!bound) {
		free(tmp);
		qsort(base, n, size, cmp);
		return;
	}
	/* A few sorted runs: merge neighbours until one is left. */
	k = 0;
	bound[k++] = 0;
	for (size_t i = 1; i < n; i++)
		if (cmp(a + (i - 1) * size, a + i * size) > 0)
			bound[k++] = i;
	bound[k] = n;
	src = a;
	dst = tmp;
	while (runs > 1) {
		size_t out = 0;

		for (size_t r = 0; r < runs; r += 2) {
			size_t lo = bound[r], mid = bound[r + 1];
			size_t hi = r + 1 < runs ? bound[r + 2] : mid;

			merge_runs(dst + lo * size, src + lo * size, mid - lo, src + mid * size,
				   hi - mid, size, cmp);
			bound[out++] = lo;
		}
		bound[out] = n;
		runs = out;
		char *t = src;

		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * size);
	free(tmp);
	free(bound);
}

/* ---- sorting by a leading 64-bit key ---- */

/* The key of an element, as an unsigned number that orders the same way
 * (`flip` 1 << 63 maps int64_t order onto uint64_t order). */
static inline uint64_t key_of(const char *p, uint64_t flip)
{
	uint64_t k;

	memcpy(&k, p, sizeof(k));
	return k ^ flip;
}

/* Merge two sorted runs into dst, left first on ties (stable). */
static void keyed_merge(char *dst, const char *l, size_t nl, const char *r, size_t nr, size_t size,
			uint64_t flip)
{
	while (nl && nr) {
		if (key_of(r, flip) < key_of(l, flip)) {
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
	memcpy(dst + nl * size, r, nr * size);
}

/* Stable insertion sort of a short block. */
static void keyed_insertion(char *a, size_t n, size_t size, uint64_t flip)
{
	char x[64];

	for (size_t i = 1; i < n; i++) {
		size_t j = i;
		uint64_t k = key_of(a + i * size, flip);

		if (key_of(a + (i - 1) * size, flip) <= k)
			continue;
		memcpy(x, a + i * size, size);
		while (j > 0 && key_of(a + (j - 1) * size, flip) > k) {
			copy_elem(a + j * size, a + (j - 1) * size, size);
			j--;
		}
		memcpy(a + j * size, x, size);
	}
}

static size_t keyed_runs(const char *a, size_t n, size_t size, uint64_t flip, size_t *bound)
{
	size_t runs = 1;

	if (bound)
		bound[0] = 0;
	for (size_t i = 1; i < n; i++) {
		if (key_of(a + i * size, flip) < key_of(a + (i - 1) * size, flip)) {
			if (bound)
				bound[runs] = i;
			runs++;
		}
	}
	if (bound)
		bound[runs] = n;
	return runs;
}

static int cmp_key_u64(const void *pa, const void *pb)
{
	uint64_t a = key_of(pa, 0), b = key_of(pb, 0);

	return a < b ? -1 : a > b;
}

static int cmp_key_i64(const void *pa, const void *pb)
{
	uint64_t flip = 1ull << 63, a = key_of(pa, flip), b = key_of(pb, flip);

	return a < b ? -1 : a > b;
}

/* Runs shorter than this on average are first made this long. */
#define GS_SORT_BLOCK 16

static void sort_keyed(void *base, size_t n, size_t size, uint64_t flip)
{
	char *a = base, *tmp, *src, *dst;
	size_t runs, *bound;

	if (n < 2)
		return;
	runs = keyed_runs(a, n, size, flip, NULL);
	if (runs == 1)
		return;
	if (size % 8 || size > 64) {
		gs_sort(base, n, size, flip ? cmp_key_i64 : cmp_key_u64);
		return;
	}
	if (runs > n / GS_SORT_BLOCK) {
		/* Many short runs (data in no order): sorted blocks first. */
		for (size_t i = 0; i < n; i += GS_SORT_BLOCK)
			keyed_insertion(a + i * size, n - i < GS_SORT_BLOCK ? n - i : GS_SORT_BLOCK,
					size, flip);
		runs = keyed_runs(a, n, size, flip, NULL);
		if (runs == 1)
			return;
	}
	tmp = malloc(n * size);
	bound = calloc(runs + 1, sizeof(*bound)); /* all written by keyed_runs */
	if (!tmp || !bound) {
		free(tmp);
		free(bound);
		gs_sort(base, n, size, flip ? cmp_key_i64 : cmp_key_u64);
		return;
	}
	keyed_runs(a, n, size, flip, bound);
	src = a;
	dst = tmp;
	while (runs > 1) {
		size_t out = 0;
		char *t;

		for (size_t r = 0; r < runs; r += 2) {
			size_t lo = bound[r], mid = bound[r + 1];
			size_t hi = r + 1 < runs ? bound[r + 2] : mid;

			keyed_merge(dst + lo * size, src + lo * size, mid - lo, src + mid * size,
				    hi - mid, size, flip);
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

void gs_sort_by_i64(void *base, size_t n, size_t size)
{
	sort_keyed(base, n, size, 1ull << 63);
}

void gs_sort_by_u64(void *base, size_t n, size_t size)
{
	sort_keyed(base, n, size, 0);
}

/* ---- the ops of one device ---- */

static int cmp_range(const void *pa, const void *pb)
{
	const struct gs_op_range *a = pa, *b = pb;

	return a->first < b->first ? -1 : a->first > b->first;
}

gs_status gs_device_op_ranges(const struct gs_trace *t, uint32_t device, struct gs_op_range **out,
			      size_t *n)
{
	size_t n_ops, n_streams, n_dev, k = 0, covered = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const uint32_t *dev = gs_trace_device_streams(t, device, &n_dev);
	struct gs_op_range *r;

	*out = NULL;
	*n = 0;
	gs_trace_streams(t, &n_streams);
	r = malloc((n_dev + 1) * sizeof(*r));
	if (!r) {
		return gs_nomem();
	}
	/* Only the device's streams (gs_trace_device_streams). */
	for (size_t i = 0; i < n_dev; i++) {
		size_t first, count;

		gs_trace_stream_ops(t, dev[i], &first, &count);
		if (count)
			r[k++] = (struct gs_op_range){.first = first, .count = count};
	}
	if (device == UINT32_MAX) {
		for (uint32_t s = 0; s < n_streams; s++) {
			size_t first, count;

			gs_trace_stream_ops(t, s, &first, &count);
			covered += count;
		}
	}
	if (device == UINT32_MAX && covered < n_ops) {
		/* Ops of no stream (UINT32_MAX too): rare, found the slow way. */
		struct gs_op_range *all = realloc(r, (k + n_ops + 1) * sizeof(*r));

		if (!all) {
			free(r);
			return gs_nomem();
		}
		r = all;
		for (size_t i = 0; i < n_ops; i++)
			if (ops[i].stream >= n_streams)
				r[k++] = (struct gs_op_range){.first = i, .count = 1};
	}
	gs_sort(r, k, sizeof(*r), cmp_range);
	if (!k) {
		free(r);
		return GS_OK;
	}
	*out = r;
	*n = k;
	return GS_OK;
}

bool gs_has_ci(const char *s, const char *part)
{
	size_t n = strlen(part);

	for (; *s; s++) {
		size_t i = 0;

		while (i < n && s[i] && tolower((unsigned char)s[i]) == part[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}
