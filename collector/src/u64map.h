/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing hash map from u64 keys to u64 values (linear
 * probing, backward-shift deletion: no tombstones). Expected O(1) per
 * operation; the table doubles at half load.
 */
#ifndef GS_COLLECTOR_U64MAP_H
#define GS_COLLECTOR_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gs_u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t nslots; /* 0 or a power of two */
	size_t count;
};

void gs_u64map_init(struct gs_u64map *m);
void gs_u64map_fini(struct gs_u64map *m);
bool gs_u64map_get(const struct gs_u64map *m, uint64_t key, uint64_t *val);
/* Insert or replace. Returns 0, or -1 when out of memory. */
int gs_u64map_put(struct gs_u64map *m, uint64_t key, uint64_t val);
/* Remove; true when the key was there (its value in *val when not NULL). */
bool gs_u64map_del(struct gs_u64map *m, uint64_t key, uint64_t *val);

/* Visit every entry (order unspecified); no changes while visiting.
 * `i` names the loop variable (it cannot be parenthesised). */
#define GS_U64MAP_FOREACH(m, i)                                                                    \
	for (size_t i = 0; i < (m)->nslots; i++) /* NOLINT(bugprone-macro-parentheses) */          \
		if ((m)->used[i])

#endif
