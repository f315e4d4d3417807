/* SPDX-License-Identifier: MIT */
/* The u64 -> u64 hash map (gpuscope/u64map.h). */
#include <gpuscope/hash.h>
#include <gpuscope/u64map.h>

#include <stdlib.h>
#include <string.h>

static size_t slot_of(uint64_t key, size_t nslots)
{
	return (size_t)gs_hash_u64(key) & (nslots - 1);
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

/* Move every entry into a table of `n` slots (a power of two). */
static gs_status resize(struct gs_u64map *m, size_t n)
{
	struct gs_u64map nm = {0};

	nm.keys = malloc(n * sizeof(*nm.keys));
	nm.vals = malloc(n * sizeof(*nm.vals));
	nm.used = calloc(n, 1);
	nm.nslots = n;
	if (!nm.keys || !nm.vals || !nm.used) {
		gs_u64map_fini(&nm);
		return gs_nomem();
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
	return GS_OK;
}

gs_status gs_u64map_reserve(struct gs_u64map *m, size_t n)
{
	size_t slots = m->nslots ? m->nslots : 64;

	while (slots < 2 * n) {
		if (slots > SIZE_MAX / 4 / sizeof(uint64_t))
			return gs_nomem();
		slots *= 2;
	}
	return slots == m->nslots ? GS_OK : resize(m, slots);
}

gs_status gs_u64map_put(struct gs_u64map *m, uint64_t key, uint64_t val, bool replace)
{
	size_t i;

	if (find(m, key, &i)) {
		if (replace)
			m->vals[i] = val;
		return GS_OK;
	}
	if ((m->count + 1) * 2 > m->nslots) {
		gs_status rc = gs_u64map_reserve(m, m->count + 1);

		if (rc != GS_OK)
			return rc;
		find(m, key, &i);
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->count++;
	return GS_OK;
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
