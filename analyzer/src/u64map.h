/* SPDX-License-Identifier: MIT */
/*
 * Private: an open-addressing hash map from a 64-bit key to a 32-bit value,
 * for joins on correlation ids and sync ids. Insert keeps the first value
 * for a key unless told to replace.
 */
#ifndef GS_ANALYZER_U64MAP_H
#define GS_ANALYZER_U64MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct gs_u64map {
	uint64_t *keys;
	uint32_t *vals;
	uint8_t *used;
	size_t cap; /* power of two */
	size_t count;
};

static inline uint64_t gs_u64map_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static inline void gs_u64map_fini(struct gs_u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = NULL;
	m->vals = NULL;
	m->used = NULL;
	m->cap = m->count = 0;
}

/* Room for `n` keys at a load factor of at most one half. */
static inline bool gs_u64map_init(struct gs_u64map *m, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	m->keys = malloc(cap * sizeof(*m->keys));
	m->vals = malloc(cap * sizeof(*m->vals));
	m->used = calloc(cap, 1);
	m->cap = cap;
	m->count = 0;
	if (!m->keys || !m->vals || !m->used) {
		gs_u64map_fini(m);
		return false;
	}
	return true;
}

/* Returns false when full (size the map with init). */
static inline bool gs_u64map_put(struct gs_u64map *m, uint64_t key, uint32_t val, bool replace)
{
	size_t i = gs_u64map_hash(key) & (m->cap - 1);

	while (m->used[i]) {
		if (m->keys[i] == key) {
			if (replace)
				m->vals[i] = val;
			return true;
		}
		i = (i + 1) & (m->cap - 1);
	}
	if (2 * (m->count + 1) > m->cap)
		return false;
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
	return true;
}

static inline bool gs_u64map_get(const struct gs_u64map *m, uint64_t key, uint32_t *val)
{
	size_t i;

	if (!m->cap)
		return false;
	i = gs_u64map_hash(key) & (m->cap - 1);
	while (m->used[i]) {
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return true;
		}
		i = (i + 1) & (m->cap - 1);
	}
	return false;
}

#endif
