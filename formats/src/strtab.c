/* SPDX-License-Identifier: MIT */
/* The string table and the stream map. */
#include "util.h"

#include <gpuscope/trace_model.h>

#include <stdlib.h>
#include <string.h>

/* ---- string table ---- */

#define BLOCK_SIZE ((size_t)64 * 1024)

struct gs_strtab_block {
	struct gs_strtab_block *next;
	size_t used, size;
	char data[];
};

void gs_strtab_init(struct gs_strtab *st)
{
	memset(st, 0, sizeof(*st));
}

void gs_strtab_fini(struct gs_strtab *st)
{
	struct gs_strtab_block *b = st->blocks;

	while (b) {
		struct gs_strtab_block *next = b->next;
		free(b);
		b = next;
	}
	free(st->strs);
	free(st->lens);
	free(st->slots);
	memset(st, 0, sizeof(*st));
}

static char *strtab_store(struct gs_strtab *st, const char *s, size_t len)
{
	struct gs_strtab_block *b = st->blocks;
	char *dst;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > BLOCK_SIZE ? len + 1 : BLOCK_SIZE;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		/* A large string gets its own block, kept behind the current one. */
		if (size > BLOCK_SIZE && st->blocks) {
			b->next = st->blocks->next;
			st->blocks->next = b;
		} else {
			b->next = st->blocks;
			st->blocks = b;
		}
	}
	dst = b->data + b->used;
	if (len)
		memcpy(dst, s, len);
	dst[len] = '\0';
	b->used += len + 1;
	return dst;
}

static gs_status strtab_rehash(struct gs_strtab *st)
{
	size_t nslots = st->nslots ? st->nslots * 2 : 1024;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return GS_ERR_NOMEM;
	for (size_t id = 0; id < st->count; id++) {
		size_t i = gs_hash_bytes(st->strs[id], st->lens[id]) & (nslots - 1);

		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = (uint32_t)id + 1;
	}
	free(st->slots);
	st->slots = slots;
	st->nslots = nslots;
	return GS_OK;
}

static gs_status strtab_add(struct gs_strtab *st, const char *s, size_t len, uint32_t *id)
{
	const char *copy;

	if (st->count >= UINT32_MAX - 1 || len > UINT32_MAX)
		return GS_ERR_LIMIT;
	if (gs_vec_reserve((void **)&st->strs, &st->cap, st->count + 1, sizeof(*st->strs)) ||
	    gs_vec_reserve((void **)&st->lens, &st->lcap, st->count + 1, sizeof(*st->lens)))
		return GS_ERR_NOMEM;
	copy = strtab_store(st, s, len);
	if (!copy)
		return GS_ERR_NOMEM;
	st->strs[st->count] = copy;
	st->lens[st->count] = (uint32_t)len;
	*id = (uint32_t)st->count++;
	return GS_OK;
}

gs_status gs_strtab_intern(struct gs_strtab *st, const char *s, size_t len, uint32_t *id)
{
	uint64_t h;
	size_t i;
	gs_status rc;

	if ((st->count + 1) * 2 > st->nslots) {
		rc = strtab_rehash(st);
		if (rc)
			return rc;
	}
	h = gs_hash_bytes(s, len);
	i = h & (st->nslots - 1);
	while (st->slots[i]) {
		uint32_t cand = st->slots[i] - 1;

		/* len 0: s may be NULL (an empty bytes field), which memcmp may
		 * not be given even for no bytes. */
		if (st->lens[cand] == len && (len == 0 || memcmp(st->strs[cand], s, len) == 0)) {
			*id = cand;
			return GS_OK;
		}
		i = (i + 1) & (st->nslots - 1);
	}
	rc = strtab_add(st, s, len, id);
	if (rc)
		return rc;
	st->slots[i] = *id + 1;
	return GS_OK;
}

/* ---- stream map ---- */

static uint64_t stream_hash(const struct gs_stream *s)
{
	uint64_t h = gs_hash_u64((uint64_t)s->pid);

	h = gs_hash_u64(h ^ s->device);
	h = gs_hash_u64(h ^ s->context);
	return gs_hash_u64(h ^ s->stream_id);
}

static int stream_same(const struct gs_stream *a, const struct gs_stream *b)
{
	return a->pid == b->pid && a->device == b->device && a->context == b->context &&
	       a->stream_id == b->stream_id;
}

void gs_stream_map_init(struct gs_stream_map *m)
{
	memset(m, 0, sizeof(*m));
}

void gs_stream_map_fini(struct gs_stream_map *m)
{
	free(m->streams);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static gs_status stream_map_rehash(struct gs_stream_map *m)
{
	size_t nslots = m->nslots ? m->nslots * 2 : 64;
	uint32_t *slots = calloc(nslots, sizeof(*slots));

	if (!slots)
		return GS_ERR_NOMEM;
	for (size_t k = 0; k < m->count; k++) {
		size_t i = stream_hash(&m->streams[k]) & (nslots - 1);

		while (slots[i])
			i = (i + 1) & (nslots - 1);
		slots[i] = (uint32_t)k + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = nslots;
	return GS_OK;
}

bool gs_stream_map_find(const struct gs_stream_map *m, const struct gs_stream *s, uint32_t *index)
{
	size_t i;

	if (!m->nslots)
		return false;
	i = stream_hash(s) & (m->nslots - 1);
	while (m->slots[i]) {
		if (stream_same(&m->streams[m->slots[i] - 1], s)) {
			*index = m->slots[i] - 1;
			return true;
		}
		i = (i + 1) & (m->nslots - 1);
	}
	return false;
}

gs_status gs_stream_map_put(struct gs_stream_map *m, const struct gs_stream *s, uint32_t *index)
{
	size_t i;
	gs_status rc;

	if ((m->count + 1) * 2 > m->nslots) {
		rc = stream_map_rehash(m);
		if (rc)
			return rc;
	}
	i = stream_hash(s) & (m->nslots - 1);
	while (m->slots[i]) {
		struct gs_stream *cand = &m->streams[m->slots[i] - 1];

		if (stream_same(cand, s)) {
			if (cand->kind == GS_STREAM_UNKNOWN) {
				cand->kind = s->kind;
				cand->priority = s->priority;
			}
			*index = m->slots[i] - 1;
			return GS_OK;
		}
		i = (i + 1) & (m->nslots - 1);
	}
	if (m->count >= UINT32_MAX - 1)
		return GS_ERR_LIMIT;
	rc = GS_VEC_PUSH(m->streams, m->count, m->cap, *s);
	if (rc)
		return rc;
	*index = (uint32_t)m->count - 1;
	m->slots[i] = (uint32_t)m->count;
	return GS_OK;
}
