/* SPDX-License-Identifier: MIT */
/* The base library: error causes, hashing, growable arrays, the u64 map. */
#include <gpuscope/error.h>
#include <gpuscope/hash.h>
#include <gpuscope/u64map.h>
#include <gpuscope/vec.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nomem_cause),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_vec),
		cmocka_unit_test(test_u64map),
		cmocka_unit_test(test_u64map_replace_and_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
