/* SPDX-License-Identifier: MIT */
/* Private helpers of gs_format: the string table and the stream map. */
#ifndef GS_FORMAT_UTIL_H
#define GS_FORMAT_UTIL_H

#include <gpuscope/error.h>
#include <gpuscope/hash.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/vec.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gs_strtab_block;

/* Interned strings: ids are dense from 0 in insertion order. */
struct gs_strtab {
	const char **strs;
	uint32_t *lens;
	size_t count, cap, lcap;
	uint32_t *slots; /* open addressing: id + 1, 0 = empty */
	size_t nslots;
	struct gs_strtab_block *blocks;
};

void gs_strtab_init(struct gs_strtab *st);
void gs_strtab_fini(struct gs_strtab *st);
gs_status gs_strtab_intern(struct gs_strtab *st, const char *s, size_t len, uint32_t *id);

static inline const char *gs_strtab_get(const struct gs_strtab *st, uint32_t id)
{
	if (id == GS_NO_STRING)
		return "";
	return id < st->count ? st->strs[id] : "?";
}

/* Streams keyed by (pid, device, context, stream id). */
struct gs_stream_map {
	struct gs_stream *streams;
	size_t count, cap;
	uint32_t *slots; /* index + 1 */
	size_t nslots;
};

void gs_stream_map_init(struct gs_stream_map *m);
void gs_stream_map_fini(struct gs_stream_map *m);
/* Find without adding. */
bool gs_stream_map_find(const struct gs_stream_map *m, const struct gs_stream *s, uint32_t *index);
/* Find or add; an existing stream's unknown kind/priority is updated. */
gs_status gs_stream_map_put(struct gs_stream_map *m, const struct gs_stream *s, uint32_t *index);

#endif
