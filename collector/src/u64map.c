/* SPDX-License-Identifier: MIT */
/* Open-addressing u64 -> u64 map (see u64map.h). */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t key, size_t nslots)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ULL;
	key ^= key >> 33;
	return (size_t)key & (nslots - 1);
}

void gs_u64map_init(struct gs_u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void gs_u64map_fini(struct gs_u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static bool find(const struct gs_u64map *m, uint64_t key, size_t *at)
{
	size_t i;

	*at = 0;
	if (!m->nslots)
		return false;
	i = slot_of(key, m->nslots);
	while (m->used[i]) {
		if (m->keys[i] == key) {
			*at = i;
			return true;
		}
		i = (i + 1) & (m->nslots - 1);
	}
	*at = i;
	return false;
}

bool gs_u64map_get(const struct gs_u64map *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (!find(m, key, &i))
		return false;
	if (val)
		*val = m->vals[i];
	return true;
}

static int grow(struct gs_u64map *m)
{
	size_t n = m->nslots ? m->nslots * 2 : 64;
	struct gs_u64map nm = {0};

	nm.keys = malloc(n * sizeof(*nm.keys));
	nm.vals = malloc(n * sizeof(*nm.vals));
	nm.used = calloc(n, 1);
	nm.nslots = n;
	if (!nm.keys || !nm.vals || !nm.used) {
		gs_u64map_fini(&nm);
		return -1;
	}
	for (size_t i = 0; i < m->nslots; i++) {
		size_t j;

		if (!m->used[i])
			continue;
		find(&nm, m->keys[i], &j);
		nm.used[j] = 1;
		nm.keys[j] = m->keys[i];
		nm.vals[j] = m->vals[i];
		nm.count++;
	}
	gs_u64map_fini(m);
	*m = nm;
	return 0;
}

int gs_u64map_put(struct gs_u64map *m, uint64_t key, uint64_t val)
{
	size_t i;

	if (find(m, key, &i)) {
		m->vals[i] = val;
		return 0;
	}
	if ((m->count + 1) * 2 > m->nslots) {
		if (grow(m))
			return -1;
		find(m, key, &i);
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
	return 0;
}

bool gs_u64map_del(struct gs_u64map *m, uint64_t key, uint64_t *val)
{
	size_t i, j, mask;

	if (!find(m, key, &i))
		return false;
	if (val)
		*val = m->vals[i];
	mask = m->nslots - 1;
	/* Backward-shift: move later entries of the probe run into the hole. */
	j = i;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!m->used[j])
			break;
		home = slot_of(m->keys[j], m->nslots);
		/* Entry j may fill hole i when its home is not in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->count--;
	return true;
}
