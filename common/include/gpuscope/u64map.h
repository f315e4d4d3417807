/* SPDX-License-Identifier: MIT */
/*
 * The hash map of every library (target gs_common): 64-bit keys to 64-bit
 * values, open addressing with linear probing and backward-shift deletion
 * (no tombstones). Expected O(1) per operation; the table doubles at half
 * load, or is sized once with gs_u64map_reserve. Any key, UINT64_MAX
 * included.
 */
#ifndef GPUSCOPE_U64MAP_H
#define GPUSCOPE_U64MAP_H

#include <gpuscope/error.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t nslots; /* 0 or a power of two */
	size_t count;
};

/* An empty map (no memory until the first insert or reserve). */
void gs_u64map_init(struct gs_u64map *m);
void gs_u64map_fini(struct gs_u64map *m);
/* Room for `n` keys in all without growing. GS_ERR_NOMEM (with its cause). */
gs_status gs_u64map_reserve(struct gs_u64map *m, size_t n);
/* True when `key` is there (its value in *val when val is not NULL). */
bool gs_u64map_get(const struct gs_u64map *m, uint64_t key, uint64_t *val);
/* Insert; an existing key's value is replaced only when `replace`.
 * GS_ERR_NOMEM (with its cause) when the table cannot grow. */
gs_status gs_u64map_put(struct gs_u64map *m, uint64_t key, uint64_t val, bool replace);
/* Remove; true when the key was there (its value in *val when not NULL). */
bool gs_u64map_del(struct gs_u64map *m, uint64_t key, uint64_t *val);

/* Visit every entry (order unspecified); no changes while visiting.
 * `i` names the loop variable (it cannot be parenthesised). */
#define GS_U64MAP_FOREACH(m, i)                                                                    \
	for (size_t i = 0; i < (m)->nslots; i++) /* NOLINT(bugprone-macro-parentheses) */          \
		if ((m)->used[i])

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_U64MAP_H */
