/* SPDX-License-Identifier: MIT */
/* The binary searches of gs_common (<gpuscope/search.h>): edge cases and
 * every key of random sorted arrays against a linear scan. */
#include <gpuscope/search.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The linear answers. */
static size_t lin_lower_u64(const uint64_t *v, size_t n, uint64_t key)
{
	size_t i = 0;

	while (i < n && v[i] < key)
		i++;
	return i;
}

static size_t lin_upper_u64(const uint64_t *v, size_t n, uint64_t key)
{
	size_t i = 0;

	while (i < n && v[i] <= key)
		i++;
	return i;
}

static void test_search_empty(void **state)
{
	(void)state;
	/* Nothing is read: NULL will do. */
	assert_int_equal(gs_lower_bound_u64(NULL, 0, 5), 0);
	assert_int_equal(gs_upper_bound_u64(NULL, 0, 5), 0);
	assert_int_equal(gs_lower_bound_i64(NULL, 0, -5), 0);
	assert_int_equal(gs_upper_bound_i64(NULL, 0, -5), 0);
	assert_int_equal(gs_lower_bound_i64_at(NULL, 0, 24, 8, 0), 0);
	assert_int_equal(gs_upper_bound_i64_at(NULL, 0, 24, 8, 0), 0);
}

static void test_search_all_less_all_greater(void **state)
{
	const uint64_t u[] = {1, 2, 3, 4};
	const int64_t s[] = {-9, -3, 0, 7};

	(void)state;
	/* Every element less than the key: n. */
	assert_int_equal(gs_lower_bound_u64(u, 4, 10), 4);
	assert_int_equal(gs_upper_bound_u64(u, 4, 10), 4);
	assert_int_equal(gs_lower_bound_u64(u, 4, UINT64_MAX), 4);
	assert_int_equal(gs_lower_bound_i64(s, 4, 8), 4);
	assert_int_equal(gs_upper_bound_i64(s, 4, INT64_MAX), 4);
	/* Every element greater: 0. */
	assert_int_equal(gs_lower_bound_u64(u, 4, 0), 0);
	assert_int_equal(gs_upper_bound_u64(u, 4, 0), 0);
	assert_int_equal(gs_lower_bound_i64(s, 4, INT64_MIN), 0);
	assert_int_equal(gs_upper_bound_i64(s, 4, -10), 0);
	/* One element. */
	assert_int_equal(gs_lower_bound_u64(u, 1, 1), 0);
	assert_int_equal(gs_upper_bound_u64(u, 1, 1), 1);
}

static void test_search_duplicates(void **state)
{
	const uint64_t u[] = {1, 3, 3, 3, 5, 5, 9};
	const int64_t s[] = {-4, -4, -4, 2, 2, 8, 8};

	(void)state;
	/* The first of the equal keys, and just past the last. */
	assert_int_equal(gs_lower_bound_u64(u, 7, 3), 1);
	assert_int_equal(gs_upper_bound_u64(u, 7, 3), 4);
	assert_int_equal(gs_lower_bound_u64(u, 7, 5), 4);
	assert_int_equal(gs_upper_bound_u64(u, 7, 5), 6);
	assert_int_equal(gs_lower_bound_u64(u, 7, 4), 4); /* absent: where it goes */
	assert_int_equal(gs_upper_bound_u64(u, 7, 4), 4);
	assert_int_equal(gs_lower_bound_i64(s, 7, -4), 0);
	assert_int_equal(gs_upper_bound_i64(s, 7, -4), 3);
	assert_int_equal(gs_lower_bound_i64(s, 7, 8), 5);
	assert_int_equal(gs_upper_bound_i64(s, 7, 8), 7);
	/* All equal. */
	assert_int_equal(gs_lower_bound_u64(u + 1, 3, 3), 0);
	assert_int_equal(gs_upper_bound_u64(u + 1, 3, 3), 3);
}

/* Records with their key inside, at an odd offset (unaligned reads). */
struct rec {
	char tag;
	char key[8];
	uint32_t pad;
};

static void test_search_records(void **state)
{
	struct rec r[6];
	const int64_t keys[6] = {-7, -7, 0, 5, 5, 5};

	(void)state;
	for (int i = 0; i < 6; i++) {
		r[i].tag = (char)('a' + i);
		memcpy(r[i].key, &keys[i], sizeof(keys[i]));
		r[i].pad = 0;
	}
	assert_int_equal(gs_lower_bound_i64_at(r, 6, sizeof(*r), offsetof(struct rec, key), -7), 0);
	assert_int_equal(gs_upper_bound_i64_at(r, 6, sizeof(*r), offsetof(struct rec, key), -7), 2);
	assert_int_equal(gs_lower_bound_i64_at(r, 6, sizeof(*r), offsetof(struct rec, key), 1), 3);
	assert_int_equal(gs_lower_bound_i64_at(r, 6, sizeof(*r), offsetof(struct rec, key), 5), 3);
	assert_int_equal(gs_upper_bound_i64_at(r, 6, sizeof(*r), offsetof(struct rec, key), 5), 6);
	assert_int_equal(gs_upper_bound_i64_at(r, 6, sizeof(*r), offsetof(struct rec, key), -8), 0);
}

/* A composite key: (a, b) pairs, by a then b. */
struct pair {
	uint32_t a, b;
};

struct pair_key {
	const struct pair *p;
	struct pair key;
};

static bool pair_before(const void *ctx, size_t i)
{
	const struct pair_key *k = ctx;
	const struct pair *x = &k->p[i];

	return x->a < k->key.a || (x->a == k->key.a && x->b < k->key.b);
}

static void test_partition_point(void **state)
{
	const struct pair p[] = {{1, 1}, {1, 4}, {2, 0}, {2, 2}, {2, 2}, {7, 3}};
	struct pair_key k = {p, {2, 2}};

	(void)state;
	assert_int_equal(gs_partition_point(6, pair_before, &k), 3);
	k.key = (struct pair){2, 1};
	assert_int_equal(gs_partition_point(6, pair_before, &k), 3);
	k.key = (struct pair){0, 9};
	assert_int_equal(gs_partition_point(6, pair_before, &k), 0);
	k.key = (struct pair){9, 0};
	assert_int_equal(gs_partition_point(6, pair_before, &k), 6);
	assert_int_equal(gs_partition_point(0, pair_before, &k), 0);
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

static void test_search_random(void **state)
{
	uint64_t v[64];
	int64_t s[64];

	(void)state;
	srand(7);
	for (int round = 0; round < 200; round++) {
		size_t n = (size_t)(rand() % 65);

		for (size_t i = 0; i < n; i++)
			v[i] = (uint64_t)(rand() % 20);
		qsort(v, n, sizeof(*v), cmp_u64);
		for (size_t i = 0; i < n; i++)
			s[i] = (int64_t)v[i] - 10;
		for (uint64_t key = 0; key < 22; key++) {
			assert_int_equal(gs_lower_bound_u64(v, n, key), lin_lower_u64(v, n, key));
			assert_int_equal(gs_upper_bound_u64(v, n, key), lin_upper_u64(v, n, key));
			assert_int_equal(gs_lower_bound_i64(s, n, (int64_t)key - 10),
					 lin_lower_u64(v, n, key));
			assert_int_equal(gs_upper_bound_i64(s, n, (int64_t)key - 10),
					 lin_upper_u64(v, n, key));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_empty),
		cmocka_unit_test(test_search_all_less_all_greater),
		cmocka_unit_test(test_search_duplicates),
		cmocka_unit_test(test_search_records),
		cmocka_unit_test(test_partition_point),
		cmocka_unit_test(test_search_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
