/* SPDX-License-Identifier: MIT */
/* The base library: error causes, hashing, growable arrays, the u64 map,
 * the stable sorts. */
#include <gpuscope/error.h>
#include <gpuscope/hash.h>
#include <gpuscope/sort.h>
#include <gpuscope/text.h>
#include <gpuscope/u64map.h>
#include <gpuscope/vec.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h> /* malloc_usable_size */
#endif

#include <cmocka.h>

static void test_nomem_cause(void **state)
{
	char buf[128];

	(void)state;
	gs_error_clear();
	assert_int_equal(gs_nomem(), GS_ERR_NOMEM);
	gs_error_append("reading x.json");
	assert_int_equal(gs_error_count(), 2);
	assert_string_equal(gs_error_format(buf, sizeof(buf)), "reading x.json: out of memory");
	gs_error_clear();
}

static void test_hash(void **state)
{
	(void)state;
	/* The finalizer of MurmurHash3 (fmix64): 0 stays 0, 1 goes far. */
	assert_true(gs_hash_u64(0) == 0);
	assert_true(gs_hash_u64(1) == 0xb456bcfc34c2cb2cull);
	assert_true(gs_hash_bytes("ab", 2) != gs_hash_bytes("ba", 2));
	assert_true(gs_hash_bytes("", 0) == gs_hash_u64(0xcbf29ce484222325ull));
	assert_true(gs_hash_combine(1, 2) != gs_hash_combine(2, 1));
}

static void test_vec(void **state)
{
	int *v = NULL;
	size_t n = 0, cap = 0;

	(void)state;
	for (int i = 0; i < 100; i++)
		assert_int_equal(GS_VEC_PUSH(v, n, cap, i), GS_OK);
	assert_int_equal(n, 100);
	assert_int_equal(cap, 128); /* 16, doubled */
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], i);
	/* An element count whose bytes overflow is refused, nothing changed. */
	assert_int_equal(gs_vec_reserve((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v)), GS_ERR_NOMEM);
	assert_int_equal(cap, 128);
	gs_error_clear();
	assert_int_equal(gs_vec_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v)), GS_ERR_NOMEM);
	assert_int_equal(gs_error_count(), 1);
	gs_error_clear();
	free(v);
}

/* An array whose capacity is known from its count: every append lands in
 * memory the array owns (checked with the allocator where it can say), at
 * every count the growth passes, also after the count went down. */
static void test_vec_append(void **state)
{
	uint32_t *v = NULL;
	size_t n = 0;

	(void)state;
	for (uint32_t i = 0; i < 5000; i++) {
		assert_int_equal(GS_VEC_APPEND(v, n, i * 7u), GS_OK);
		assert_int_equal(n, i + 1);
#ifdef __GLIBC__
		assert_true(malloc_usable_size(v) >= n * sizeof(*v));
#endif
	}
	for (uint32_t i = 0; i < 5000; i++)
		assert_int_equal(v[i], i * 7u);
	n = 1500; /* fewer kept: the capacity known from 1500 is within the real */
	for (uint32_t i = 0; i < 3000; i++) {
		assert_int_equal(GS_VEC_APPEND(v, n, i), GS_OK);
#ifdef __GLIBC__
		assert_true(malloc_usable_size(v) >= n * sizeof(*v));
#endif
	}
	assert_int_equal(n, 4500);
	assert_int_equal(v[1499], 1499u * 7u);
	assert_int_equal(v[1500], 0u);
	assert_int_equal(v[4499], 2999);
	free(v);
}

static void test_u64map(void **state)
{
	struct gs_u64map m;
	uint64_t v;

	(void)state;
	gs_u64map_init(&m);
	assert_false(gs_u64map_get(&m, 5, &v));
	assert_false(gs_u64map_del(&m, 5, NULL));
	/* Keys that share their low bits: the hash must spread them. */
	for (uint64_t i = 0; i < 10000; i++)
		assert_int_equal(gs_u64map_put(&m, i * 64, i, true), GS_OK);
	assert_int_equal(m.count, 10000);
	for (uint64_t i = 0; i < 10000; i += 2)
		assert_true(gs_u64map_del(&m, i * 64, NULL));
	for (uint64_t i = 0; i < 10000; i++) {
		bool found = gs_u64map_get(&m, i * 64, &v);

		assert_int_equal(found, i % 2 == 1);
		if (found)
			assert_int_equal(v, i);
	}
	assert_false(gs_u64map_del(&m, 0, NULL));
	assert_int_equal(m.count, 5000);
	gs_u64map_fini(&m);
}

static void test_u64map_replace_and_reserve(void **state)
{
	struct gs_u64map m;
	uint64_t v, seen = 0;
	size_t slots, n = 0;

	(void)state;
	gs_u64map_init(&m);
	assert_int_equal(gs_u64map_reserve(&m, 1000), GS_OK);
	slots = m.nslots;
	assert_true(slots >= 2000);
	/* The first value stays unless told to replace; any key, all ones too. */
	assert_int_equal(gs_u64map_put(&m, UINT64_MAX, 1, false), GS_OK);
	assert_int_equal(gs_u64map_put(&m, UINT64_MAX, 2, false), GS_OK);
	assert_true(gs_u64map_get(&m, UINT64_MAX, &v));
	assert_int_equal(v, 1);
	assert_int_equal(gs_u64map_put(&m, UINT64_MAX, 3, true), GS_OK);
	assert_true(gs_u64map_get(&m, UINT64_MAX, &v));
	assert_int_equal(v, 3);
	assert_int_equal(gs_u64map_put(&m, 0, 7, false), GS_OK);
	assert_true(gs_u64map_get(&m, 0, NULL));
	for (uint64_t k = 1; k < 999; k++)
		assert_int_equal(gs_u64map_put(&m, k << 40, k, false), GS_OK);
	/* Reserved room: no growth for the 1000 keys. */
	assert_int_equal(m.nslots, slots);
	assert_int_equal(m.count, 1000);
	GS_U64MAP_FOREACH(&m, i)
	{
		n++;
		seen += m.vals[i];
	}
	assert_int_equal(n, 1000);
	assert_int_equal(seen, 3 + 7 + 998 * 999 / 2);
	gs_u64map_fini(&m);
}

/* ---- stable sorts -------------------------------------------------------- */

/* A record as the sorts see it: the key first, then where it was. */
struct srec {
	int64_t key;
	uint64_t place;
	uint32_t group;
	uint32_t pad[11]; /* 64 bytes in all */
};

static int cmp_srec_key(const void *pa, const void *pb)
{
	const struct srec *a = pa, *b = pb;

	return a->key < b->key ? -1 : a->key > b->key;
}

static int cmp_srec_ukey(const void *pa, const void *pb)
{
	uint64_t a = (uint64_t)((const struct srec *)pa)->key;
	uint64_t b = (uint64_t)((const struct srec *)pb)->key;

	return a < b ? -1 : a > b;
}

/* The reference order: (group, key, place); places are distinct. */
static int cmp_srec_ref(const void *pa, const void *pb)
{
	const struct srec *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->place < b->place ? -1 : a->place > b->place;
}

static uint64_t key_srec(const void *p)
{
	return gs_sort_key_i64(((const struct srec *)p)->key);
}

static uint64_t xs = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return xs;
}

enum sort_way {
	WAY_CMP,
	WAY_IN_PLACE,
	WAY_I64,
	WAY_RECORDS,
	WAY_RECORDS_KEY_ONLY,
	WAY_GROUPS,
	WAY_INTO,        /* gs_sort_records_into, no groups (the bucket path) */
	WAY_GROUPS_COPY, /* gs_sort_records_copy with groups (the scatter) */
	WAY_GROUPS_INTO, /* gs_sort_records_into with groups */
	WAYS
};

/* Sort a copy of v[0 .. n) (records of `size` bytes, the first fields of
 * struct srec) one way, and compare with the reference order. */
static void check_way(const struct srec *v, size_t n, size_t size, enum sort_way way)
{
	struct srec *ref = calloc(n + 1, sizeof(*ref));
	char *a = calloc(n + 1, size);
	uint32_t *groups = calloc(n + 1, sizeof(*groups));
	struct gs_sort_spec spec = {.size = size, .cmp = cmp_srec_key, .key = key_srec};

	assert_non_null(ref);
	assert_non_null(a);
	assert_non_null(groups);
	for (size_t i = 0; i < n; i++) {
		ref[i] = v[i];
		if (way < WAY_GROUPS || way == WAY_INTO)
			ref[i].group = 0;
		memcpy(a + i * size, &ref[i], size < sizeof(ref[i]) ? size : sizeof(ref[i]));
		groups[i] = ref[i].group;
	}
	qsort(ref, n, sizeof(*ref), cmp_srec_ref);
	switch (way) {
	case WAY_CMP:
		gs_sort(a, n, size, cmp_srec_key);
		break;
	case WAY_IN_PLACE:
		gs_sort_in_place(a, n, size, cmp_srec_key);
		break;
	case WAY_I64:
		gs_sort_by_i64(a, n, size);
		break;
	case WAY_RECORDS:
		assert_int_equal(gs_sort_records(a, n, &spec), GS_OK);
		break;
	case WAY_RECORDS_KEY_ONLY:
		spec.cmp = NULL;
		assert_int_equal(gs_sort_records(a, n, &spec), GS_OK);
		break;
	case WAY_GROUPS:
		spec.groups = groups;
		spec.ngroups = 5;
		assert_int_equal(gs_sort_records(a, n, &spec), GS_OK);
		break;
	case WAY_INTO:
	case WAY_GROUPS_INTO: {
		char *dst = calloc(n + 1, size);
		void *sorted;

		assert_non_null(dst);
		if (way == WAY_GROUPS_INTO) {
			spec.groups = groups;
			spec.ngroups = 5;
		}
		assert_int_equal(gs_sort_records_into(a, n, &spec, dst, &sorted), GS_OK);
		if (sorted) { /* else a was in order */
			assert_ptr_equal(sorted, dst);
			memcpy(a, sorted, n * size);
		}
		free(dst);
		break;
	}
	case WAY_GROUPS_COPY:
	default: {
		void *sorted;

		spec.groups = groups;
		spec.ngroups = 5;
		assert_int_equal(gs_sort_records_copy(a, n, &spec, &sorted), GS_OK);
		if (sorted) { /* else a was in order */
			memcpy(a, sorted, n * size);
			free(sorted);
		}
		break;
	}
	}
	for (size_t i = 0; i < n; i++) {
		struct srec got;

		memcpy(&got, a + i * size, size < sizeof(got) ? size : sizeof(got));
		assert_int_equal(got.key, ref[i].key);
		assert_int_equal(got.place, ref[i].place); /* stable */
	}
	free(ref);
	free(a);
	free(groups);
}

static void test_sort_negative_keys(void **state)
{
	static const int64_t keys[] = {5, -3, INT64_MIN, INT64_MAX, -3, 0, -1, 5, INT64_MIN};
	/* Sorted: INT64_MIN (2, 8), -3 (1, 4), -1 (6), 0 (5), 5 (0, 7), INT64_MAX (3). */
	static const uint64_t want[] = {2, 8, 1, 4, 6, 5, 0, 7, 3};
	struct srec v[9] = {{0}};

	(void)state;
	for (size_t way = 0; way < WAYS; way++) {
		for (size_t i = 0; i < 9; i++)
			v[i] = (struct srec){.key = keys[i], .place = i};
		check_way(v, 9, sizeof(v[0]), (enum sort_way)way);
	}
	gs_sort_by_i64(v, 9, sizeof(v[0]));
	for (size_t i = 0; i < 9; i++)
		assert_int_equal(v[i].place, want[i]);
	/* As unsigned, the negative keys come last: 0, 5, 5, MAX, MIN, MIN, -3, -3, -1. */
	static const uint64_t want_u[] = {5, 0, 7, 3, 2, 8, 1, 4, 6};

	for (size_t i = 0; i < 9; i++)
		v[i] = (struct srec){.key = keys[i], .place = i};
	gs_sort_by_u64(v, 9, sizeof(v[0]));
	for (size_t i = 0; i < 9; i++)
		assert_int_equal(v[i].place, want_u[i]);
	for (size_t i = 0; i < 9; i++)
		v[i] = (struct srec){.key = keys[i], .place = i};
	gs_sort(v, 9, sizeof(v[0]), cmp_srec_ukey);
	for (size_t i = 0; i < 9; i++)
		assert_int_equal(v[i].place, want_u[i]);
}

/* gs_text_runs over an array. */
struct runs_iter {
	const uint32_t *v;
	size_t n, i;
};

static bool runs_next(void *ctx, uint32_t *v)
{
	struct runs_iter *it = ctx;

	if (it->i >= it->n)
		return false;
	*v = it->v[it->i++];
	return true;
}

static const char *runs(char *buf, size_t size, const uint32_t *v, size_t n, size_t max_runs,
			bool pairs_apart, bool *ok)
{
	struct runs_iter it = {v, n, 0};

	*ok = gs_text_runs(buf, size, runs_next, &it, max_runs, pairs_apart);
	return buf;
}

static void test_text_runs(void **state)
{
	static const uint32_t v[] = {0, 1, 2, 3, 5, 7, 8, 10, 11, 12, 20};
	char buf[64];
	bool ok;

	(void)state;
	assert_string_equal(runs(buf, sizeof(buf), v, 11, SIZE_MAX, false, &ok),
			    "0-3, 5, 7-8, 10-12, 20");
	assert_true(ok);
	assert_string_equal(runs(buf, sizeof(buf), v, 11, SIZE_MAX, true, &ok),
			    "0-3, 5, 7, 8, 10-12, 20");
	/* Three runs, then the rest as ", ...". */
	assert_string_equal(runs(buf, sizeof(buf), v, 11, 3, false, &ok), "0-3, 5, 7-8, ...");
	assert_true(ok);
	/* Exactly max_runs runs: no ellipsis. */
	assert_string_equal(runs(buf, sizeof(buf), v, 6, 3, false, &ok), "0-3, 5, 7");
	assert_string_equal(runs(buf, sizeof(buf), v, 0, 3, false, &ok), "");
	assert_true(ok);
	/* Too small: cut where it ends (as snprintf cuts), and said. */
	runs(buf, 8, v, 11, SIZE_MAX, false, &ok);
	assert_false(ok);
	assert_string_equal(buf, "0-3, 5,");
}

static void test_sort_trivial(void **state)
{
	struct srec v[40] = {{0}};
	struct gs_sort_spec spec = {.size = sizeof(v[0]), .cmp = cmp_srec_key, .key = key_srec};

	(void)state;
	/* n = 0 and n = 1 leave the array alone (NULL base for 0). */
	gs_sort(NULL, 0, sizeof(v[0]), cmp_srec_key);
	gs_sort_by_i64(NULL, 0, sizeof(v[0]));
	gs_sort_by_u64(NULL, 0, sizeof(v[0]));
	assert_int_equal(gs_sort_records(NULL, 0, &spec), GS_OK);
	v[0] = (struct srec){.key = -7, .place = 3};
	gs_sort(v, 1, sizeof(v[0]), cmp_srec_key);
	gs_sort_by_i64(v, 1, sizeof(v[0]));
	assert_int_equal(gs_sort_records(v, 1, &spec), GS_OK);
	assert_int_equal(v[0].key, -7);
	assert_int_equal(v[0].place, 3);
	/* All keys equal: every way keeps the order, short and long. */
	for (size_t n = 2; n <= 40; n += 38)
		for (size_t way = 0; way < WAYS; way++) {
			for (size_t i = 0; i < n; i++)
				v[i] = (struct srec){.key = 42,
						     .place = i,
						     .group = (uint32_t)(i % 5)};
			check_way(v, n, sizeof(v[0]), (enum sort_way)way);
		}
}

/* Keys of one shape: in order, reversed, a few sorted runs, few distinct,
 * any 64-bit value, times a few seconds apart near 2^60, nearly in order
 * (every fifth key a little early, as ranges written when they end, with
 * ties), or bunched (all but a few far ones within a span of 3). */
static int64_t shape_key(int shape, size_t i, size_t n)
{
	switch (shape) {
	case 0:
		return (int64_t)i * 3;
	case 1:
		return (int64_t)(n - i) * 5;
	case 2:
		return (int64_t)(i % (n / 7 + 1)) * 7 + (int64_t)(next_rand() % 3);
	case 3:
		return (int64_t)(next_rand() % 4) - 2;
	case 4:
		return (int64_t)next_rand();
	case 6:
		return (int64_t)(i / 2) * 10 - (i % 5 == 4 ? (int64_t)(next_rand() % 300) : 0);
	case 7:
		return next_rand() % 97 ? (int64_t)(next_rand() % 4) : INT64_MAX - (int64_t)i;
	default:
		return (int64_t)(1ull << 60) + (int64_t)(next_rand() % 4000000000ull);
	}
}

static void test_sort_random(void **state)
{
	static const size_t sizes[] = {8, 16, 24, 56, 64}; /* up to 64: gathered */
	size_t big = sizeof(struct srec) + 32;             /* larger: moved along cycles */
	struct srec *v = calloc(200000, sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (int iter = 0; iter < 200; iter++) {
		size_t n = iter < 40 ? (size_t)iter : (size_t)(next_rand() % 3000);
		int shape = (int)(next_rand() % 8);
		size_t size = sizes[next_rand() % 5];

		if (iter % 50 == 49)
			n = 200000;
		for (size_t i = 0; i < n; i++)
			v[i] = (struct srec){.key = shape_key(shape, i, n),
					     .place = i,
					     /* groups in order, or mixed */
					     .group = iter % 3 ? (uint32_t)(next_rand() % 5) :
								 (uint32_t)(i * 5 / n)};
		for (size_t way = 0; way < WAYS; way++) {
			size_t sz = size;

			if (way == WAY_IN_PLACE && n > 20000)
				continue;
			if (iter % 4 == 3 && way >= WAY_RECORDS)
				sz = big;
			check_way(v, n, sz < 16 ? 16 : sz, (enum sort_way)way);
		}
	}
	free(v);
}

/* Records in order within each group (ties included), the groups mixed:
 * the copy is a stable scatter by group; past 4,096 groups the general
 * path sorts them, to the same order. Records already in order stay
 * where they are (no copy). */
static void test_sort_groups_scatter(void **state)
{
	enum {
		N = 30000
	};
	static const uint32_t ngroups[] = {1, 2, 5, 4096, 4097, 20000};
	struct srec *v = calloc(N, sizeof(*v)), *ref = calloc(N, sizeof(*ref));
	uint32_t *groups = calloc(N, sizeof(*groups));

	(void)state;
	assert_non_null(v);
	assert_non_null(ref);
	assert_non_null(groups);
	for (size_t w = 0; w < sizeof(ngroups) / sizeof(ngroups[0]); w++) {
		struct gs_sort_spec spec = {.size = sizeof(*v),
					    .cmp = cmp_srec_key,
					    .key = key_srec};
		void *sorted;

		for (size_t i = 0; i < N; i++) {
			groups[i] = (uint32_t)(next_rand() % ngroups[w]);
			v[i] = (struct srec){.key = (int64_t)(i / 3),
					     .place = i,
					     .group = groups[i]};
			ref[i] = v[i];
		}
		qsort(ref, N, sizeof(*ref), cmp_srec_ref);
		spec.groups = groups;
		spec.ngroups = ngroups[w];
		assert_int_equal(gs_sort_records_copy(v, N, &spec, &sorted), GS_OK);
		if (ngroups[w] == 1) {
			assert_null(sorted); /* one group, in order: left as it was */
			continue;
		}
		assert_non_null(sorted);
		for (size_t i = 0; i < N; i++) {
			const struct srec *got = (const struct srec *)sorted + i;

			assert_int_equal(got->group, ref[i].group);
			assert_int_equal(got->place, ref[i].place);
		}
		/* Sorted already (groups ascending): no copy. */
		memcpy(v, sorted, N * sizeof(*v));
		free(sorted);
		for (size_t i = 0; i < N; i++)
			groups[i] = v[i].group;
		assert_int_equal(gs_sort_records_copy(v, N, &spec, &sorted), GS_OK);
		assert_null(sorted);
	}
	free(v);
	free(ref);
	free(groups);
}

/* Keys nearly in order (each a few places from its own, reversed pairs,
 * long ties), bunched into one bucket but for one far key, or all equal:
 * the bucket sort gives the stable order every time, ties by place. */
static void test_sort_buckets(void **state)
{
	enum {
		N = 50000
	};
	struct srec *v = calloc(N, sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (int shape = 0; shape < 8; shape++) {
		for (size_t i = 0; i < N; i++) {
			int64_t key;

			switch (shape) {
			case 0: /* pairs reversed: child ranges before their parent */
				key = (int64_t)(i ^ 1) * 1000;
				break;
			case 1: /* every 100th far early; ties of 4 */
				key = (int64_t)(i / 4) * 7 - (i % 100 == 99 ? 5000 : 0);
				break;
			case 2: /* all in one bucket but the last key */
				key = i + 1 < N ? (int64_t)(next_rand() % 50) : INT64_MAX;
				break;
			case 3: /* all equal */
				key = -5;
				break;
			case 5: /* nearly in order, the smallest keys a few places
				 * in: outside the first and last keys' span */
				key = (int64_t)i * 10 - (i % 50 == 7 ? 400 : 0);
				break;
			case 6: /* no order, many ties; first and last keys equal,
				 * so all but those outside their span */
				key = i == 0 || i + 1 == N ? 0 :
							     (int64_t)(next_rand() % 2000) - 1000;
				break;
			case 7: /* random over all of int64 */
				key = (int64_t)next_rand();
				break;
			default: /* reversed */
				key = INT64_MAX - (int64_t)i * 3;
				break;
			}
			v[i] = (struct srec){.key = key, .place = i};
		}
		check_way(v, N, sizeof(*v), WAY_INTO);
		check_way(v, N, sizeof(*v), WAY_RECORDS);
		check_way(v, N, 24, WAY_RECORDS_KEY_ONLY);
	}
	free(v);
}

/* Large records sorted in place from nearly in order: by the window when
 * no record moves more than its ring holds to a later place, along the
 * cycles when a few move farther (over 4 MB of records); the same order
 * either way. */
static void test_sort_in_place_window(void **state)
{
	enum {
		N = 150000
	};
	struct srec *v = calloc(N, sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (int far = 0; far < 2; far++) {
		for (size_t i = 0; i < N; i++) {
			int64_t key = (int64_t)(i ^ 3) * 10 - (i % 500 == 499 ? 2000 : 0);

			if (far && i % 10000 == 5)
				key += 1200000; /* 120,000 places later */
			v[i] = (struct srec){.key = key, .place = i};
		}
		check_way(v, N, sizeof(*v), WAY_RECORDS);
	}
	free(v);
}

/* Records of (a, b) pairs for gs_sort_pair_ranks' order check. */
struct prec {
	int64_t a, b, key, tie;
	uint64_t place;
};

static int cmp_prec(const void *pa, const void *pb)
{
	const struct prec *x = pa, *y = pb;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->tie < y->tie ? -1 : x->tie > y->tie;
}

static uint64_t key_prec(const void *p)
{
	return gs_sort_key_i64(((const struct prec *)p)->key);
}

/* The reference: (a, b), then the order, then the place. */
static int cmp_prec_ref(const void *pa, const void *pb)
{
	const struct prec *x = pa, *y = pb;
	int c;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	c = cmp_prec(pa, pb);
	return c ? c : (x->place > y->place) - (x->place < y->place);
}

/* Records in order within their (a, b) pairs (keys tied in twos, the ties
 * broken by cmp) are found so by gs_sort_pair_ranks, and the scatter by
 * the ranks gives qsort's order; one record out of its pair's order, by
 * key or on a tie by cmp alone, is found out. */
static void test_sort_pair_ranks_within(void **state)
{
	enum {
		N = 20000,
		MAXP = 50
	};
	static const uint32_t npairs[] = {1, 3, 50};
	struct prec *v = calloc(N, sizeof(*v)), *ref = calloc(N, sizeof(*ref));
	uint32_t *groups = calloc(N, sizeof(*groups));
	struct gs_sort_spec order = {.size = sizeof(*v), .cmp = cmp_prec, .key = key_prec};

	(void)state;
	assert_non_null(v);
	assert_non_null(ref);
	assert_non_null(groups);
	for (size_t w = 0; w < sizeof(npairs) / sizeof(npairs[0]); w++) {
		int64_t next[MAXP] = {0};
		size_t count[MAXP] = {0};
		uint32_t nranks = 0;
		bool within = false;
		void *sorted = NULL, *dst = calloc(N, sizeof(*v));

		assert_non_null(dst);
		for (size_t i = 0; i < N; i++) {
			uint32_t p = (uint32_t)(next_rand() % npairs[w]);
			int64_t c = next[p]++;

			v[i] = (struct prec){.a = (int64_t)(p % 7) - 3,
					     .b = (int64_t)(p / 7),
					     .key = c / 2,
					     .tie = c % 2,
					     .place = i};
			ref[i] = v[i];
		}
		qsort(ref, N, sizeof(*ref), cmp_prec_ref);
		assert_int_equal(gs_sort_pair_ranks(v, N, sizeof(*v), offsetof(struct prec, a),
						    offsetof(struct prec, b), &order, &within,
						    groups, &nranks),
				 GS_OK);
		assert_true(within);
		assert_int_equal(nranks, npairs[w]);
		for (size_t i = 0; i < N; i++)
			count[groups[i]]++;
		assert_int_equal(gs_sort_scatter_groups(v, N, sizeof(*v), groups, nranks, count,
							w % 2 ? dst : NULL, &sorted),
				 GS_OK);
		assert_non_null(sorted);
		if (w % 2)
			assert_ptr_equal(sorted, dst);
		for (size_t i = 0; i < N; i++) {
			const struct prec *got = (const struct prec *)sorted + i;

			assert_int_equal(got->place, ref[i].place);
		}
		if (!(w % 2))
			free(sorted);
		free(dst);
		/* The first record of one pair (key 0, tie 0; its second has
		 * key 0, tie 1): after its second on the tie, then by key. */
		for (int bad = 0; bad < 2; bad++) {
			size_t i = 0;

			while (v[i].a != v[N - 1].a || v[i].b != v[N - 1].b)
				i++;
			if (bad)
				v[i].key = 5;
			else
				v[i].tie = 7;
			assert_int_equal(gs_sort_pair_ranks(v, N, sizeof(*v),
							    offsetof(struct prec, a),
							    offsetof(struct prec, b), &order,
							    &within, groups, &nranks),
					 GS_OK);
			assert_false(within);
			v[i].key = 0;
			v[i].tie = 0;
		}
	}
	free(v);
	free(ref);
	free(groups);
}

/* The places gs_kmerge returns, in order, for keys[0 .. n) (places 0 ..
 * n - 1); *runs: the runs it read. */
static size_t kmerge_places(const int64_t *keys, size_t n, bool u64, uint64_t *out, size_t *runs)
{
	struct srec *v = calloc(n + 1, sizeof(*v));
	struct gs_kmerge m;
	const struct srec *e;
	size_t k = 0;

	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (struct srec){.key = keys[i], .place = i};
	if (u64)
		gs_kmerge_init_u64(&m, v, n, sizeof(*v));
	else
		gs_kmerge_init_i64(&m, v, n, sizeof(*v));
	*runs = gs_kmerge_runs(&m);
	while ((e = gs_kmerge_next(&m)))
		out[k++] = e->place;
	assert_null(gs_kmerge_next(&m)); /* stays at the end */
	free(v);
	return k;
}

static bool int_before(const void *a, const void *b)
{
	return *(const int *)a < *(const int *)b;
}

/* gs_heap_sift_down: a heap built from the bottom and popped in turn gives
 * the values in order, duplicates included. */
static void test_heap_sift_down(void **state)
{
	int v[257], out[257], count[50] = {0};
	size_t n = sizeof(v) / sizeof(v[0]);

	(void)state;
	srand(7);
	for (size_t i = 0; i < n; i++) {
		v[i] = rand() % 50;
		count[v[i]]++;
	}
	for (size_t i = n / 2; i-- > 0;)
		gs_heap_sift_down(v, n, i, sizeof(v[0]), int_before);
	for (size_t k = 0, left = n; left; k++) {
		out[k] = v[0];
		v[0] = v[--left];
		gs_heap_sift_down(v, left, 0, sizeof(v[0]), int_before);
	}
	for (size_t k = 0; k < n; k++) {
		assert_true(k == 0 || out[k - 1] <= out[k]);
		count[out[k]]--;
	}
	for (size_t k = 0; k < 50; k++)
		assert_int_equal(count[k], 0);
}

static void test_kmerge_exact(void **state)
{
	uint64_t out[64];
	size_t runs;

	(void)state;
	/* Empty. */
	assert_int_equal(kmerge_places(NULL, 0, false, out, &runs), 0);
	assert_int_equal(runs, 0);
	/* One element, one run (one stream), with a tie inside the run. */
	{
		static const int64_t k[] = {4};
		static const int64_t k2[] = {1, 2, 2, 9};

		assert_int_equal(kmerge_places(k, 1, false, out, &runs), 1);
		assert_int_equal(runs, 1);
		assert_int_equal(out[0], 0);
		assert_int_equal(kmerge_places(k2, 4, false, out, &runs), 4);
		assert_int_equal(runs, 1);
		for (uint64_t i = 0; i < 4; i++)
			assert_int_equal(out[i], i);
	}
	/* Three streams, ties across them: the earlier run's element first.
	 * Runs: [3 5 5 8] [1 5 9] [5 6]. */
	{
		static const int64_t k[] = {3, 5, 5, 8, 1, 5, 9, 5, 6};
		/* 1(4) 3(0) 5(1) 5(2) 5(5) 5(7) 6(8) 8(3) 9(6) */
		static const uint64_t want[] = {4, 0, 1, 2, 5, 7, 8, 3, 6};

		assert_int_equal(kmerge_places(k, 9, false, out, &runs), 9);
		assert_int_equal(runs, 3);
		for (size_t i = 0; i < 9; i++)
			assert_int_equal(out[i], want[i]);
	}
	/* A later run that ties with an earlier one's head stops there: runs
	 * [2 5] [1 2 2] give 1(2) 2(0) 2(3) 2(4) 5(1). */
	{
		static const int64_t k[] = {2, 5, 1, 2, 2};
		static const uint64_t want[] = {2, 0, 3, 4, 1};

		assert_int_equal(kmerge_places(k, 5, false, out, &runs), 5);
		assert_int_equal(runs, 2);
		for (size_t i = 0; i < 5; i++)
			assert_int_equal(out[i], want[i]);
	}
	/* Negative keys: by value as int64, as unsigned bits for _u64. Runs
	 * as int64: [-3 0] [-5 -5 2], as uint64: [-3] [0 -5 -5] [2]. */
	{
		static const int64_t k[] = {-3, 0, -5, -5, 2};
		static const uint64_t want_i[] = {2, 3, 0, 1, 4};
		static const uint64_t want_u[] = {1, 4, 2, 3, 0};

		assert_int_equal(kmerge_places(k, 5, false, out, &runs), 5);
		assert_int_equal(runs, 2);
		for (size_t i = 0; i < 5; i++)
			assert_int_equal(out[i], want_i[i]);
		assert_int_equal(kmerge_places(k, 5, true, out, &runs), 5);
		assert_int_equal(runs, 3);
		for (size_t i = 0; i < 5; i++)
			assert_int_equal(out[i], want_u[i]);
	}
	/* Every element its own run, all keys equal: place order (one run). */
	{
		static const int64_t k[] = {7, 7, 7, 7};

		assert_int_equal(kmerge_places(k, 4, false, out, &runs), 4);
		assert_int_equal(runs, 1);
		for (uint64_t i = 0; i < 4; i++)
			assert_int_equal(out[i], i);
	}
	/* GS_KMERGE_MAX_RUNS runs are merged; one more and the array is sorted
	 * first (one run), the same order. Keys 20 19 .. 0: one run each. */
	{
		int64_t k[GS_KMERGE_MAX_RUNS + 1];

		for (size_t n = GS_KMERGE_MAX_RUNS; n <= GS_KMERGE_MAX_RUNS + 1; n++) {
			for (size_t i = 0; i < n; i++)
				k[i] = (int64_t)(n - i);
			assert_int_equal(kmerge_places(k, n, false, out, &runs), n);
			assert_int_equal(runs, n == GS_KMERGE_MAX_RUNS ? n : 1);
			for (size_t i = 0; i < n; i++)
				assert_int_equal(out[i], n - 1 - i);
		}
	}
}

/* Against the stable sort, on arrays of a few sorted runs (streams) and on
 * shapes with many runs. */
static void test_kmerge_random(void **state)
{
	struct srec *v = calloc(5000, sizeof(*v)), *ref = calloc(5000, sizeof(*ref));

	(void)state;
	assert_non_null(v);
	assert_non_null(ref);
	for (int iter = 0; iter < 300; iter++) {
		size_t n = (size_t)(next_rand() % 5000), streams = 1 + (size_t)(next_rand() % 20);
		struct gs_kmerge m;
		const struct srec *e;
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			/* stream i * streams / n: its first key from a new base
			 * (negative too), then not decreasing, with ties */
			bool first = !i || (i - 1) * streams / n != i * streams / n;

			v[i] = (struct srec){.key = first ? (int64_t)(next_rand() % 64) - 32 :
							    v[i - 1].key +
								    (int64_t)(next_rand() % 3),
					     .place = i};
			if (iter % 3 == 2) /* any shape */
				v[i].key = shape_key(iter % 6, i, n);
		}
		memcpy(ref, v, n * sizeof(*v));
		gs_sort_by_i64(ref, n, sizeof(*ref));
		gs_kmerge_init_i64(&m, v, n, sizeof(*v));
		while ((e = gs_kmerge_next(&m))) {
			assert_true(k < n);
			assert_int_equal(e->place, ref[k].place);
			k++;
		}
		assert_int_equal(k, n);
	}
	free(v);
	free(ref);
}

static void test_sort_pair_ranks(void **state)
{
	struct pr {
		int64_t a, b;
	} v[] = {{3, 1}, {-2, 9}, {3, 1}, {3, 0}, {-2, 9}, {INT64_MIN, 5}};
	uint32_t out[6], n = 0;
	static const uint32_t want[] = {3, 1, 3, 2, 1, 0};

	(void)state;
	assert_int_equal(gs_sort_pair_ranks(v, 6, sizeof(v[0]), offsetof(struct pr, a),
					    offsetof(struct pr, b), NULL, NULL, out, &n),
			 GS_OK);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(out[i], want[i]);
}

/* Duration marks in a sentence: one unit for the sentence's marks (the
 * largest's), own-unit marks apart, "µs" on request, snprintf's rules. */
static void test_dur_sentence(void **state)
{
	char buf[128], marked[128], tiny[8];
	size_t n;
	char *dup;

	(void)state;
	snprintf(marked, sizeof(marked),
		 "idle " GS_DUR_MARK_FMT " of " GS_DUR_MARK_FMT "; gap " GS_DUR_OWN_FMT " each",
		 12345LL, 16025000000LL, 12345LL);
	n = gs_dur_sentence(marked, false, buf, sizeof(buf));
	assert_string_equal(buf, "idle 0.000 s of 16.025 s; gap 12.345 us each");
	assert_int_equal(n, strlen(buf));
	gs_dur_sentence(marked, true, buf, sizeof(buf));
	assert_string_equal(buf, "idle 0.000 s of 16.025 s; gap 12.345 \xc2\xb5s each");

	snprintf(marked, sizeof(marked), "waited " GS_DUR_MARK_FMT " and " GS_DUR_MARK_FMT, -2500LL,
		 1500LL);
	gs_dur_sentence(marked, true, buf, sizeof(buf));
	assert_string_equal(buf, "waited -2.500 \xc2\xb5s and 1.500 \xc2\xb5s");

	/* No mark: as it is; NULL: empty. */
	gs_dur_sentence("no durations at 5 us here", true, buf, sizeof(buf));
	assert_string_equal(buf, "no durations at 5 us here");
	assert_int_equal(gs_dur_sentence(NULL, false, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");

	/* Cut to the room there is, the whole length returned. */
	snprintf(marked, sizeof(marked), "took " GS_DUR_MARK_FMT, 1500000LL);
	n = gs_dur_sentence(marked, false, tiny, sizeof(tiny));
	assert_int_equal(n, strlen("took 1.500 ms"));
	assert_string_equal(tiny, "took 1.");
	dup = gs_dur_sentence_dup(marked, false);
	assert_non_null(dup);
	assert_string_equal(dup, "took 1.500 ms");
	free(dup);

	/* A mark left open is text. */
	gs_dur_sentence("half \x01"
			"123",
			false, buf, sizeof(buf));
	assert_string_equal(buf, "half \x01"
				 "123");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nomem_cause),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_vec),
		cmocka_unit_test(test_vec_append),
		cmocka_unit_test(test_u64map),
		cmocka_unit_test(test_u64map_replace_and_reserve),
		cmocka_unit_test(test_sort_negative_keys),
		cmocka_unit_test(test_text_runs),
		cmocka_unit_test(test_dur_sentence),
		cmocka_unit_test(test_sort_trivial),
		cmocka_unit_test(test_sort_random),
		cmocka_unit_test(test_sort_groups_scatter),
		cmocka_unit_test(test_sort_buckets),
		cmocka_unit_test(test_sort_pair_ranks),
		cmocka_unit_test(test_sort_pair_ranks_within),
		cmocka_unit_test(test_sort_in_place_window),
		cmocka_unit_test(test_heap_sift_down),
		cmocka_unit_test(test_kmerge_exact),
		cmocka_unit_test(test_kmerge_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
