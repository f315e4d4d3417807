/* SPDX-License-Identifier: MIT */
/* Growable arrays and byte-string hashing. */
#include <gpuscope/hash.h>
#include <gpuscope/vec.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

gs_status gs_vec_reserve(void **ptr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return GS_OK;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return GS_ERR_NOMEM;
		ncap *= 2;
	}
	if (ncap > SIZE_MAX / elem)
		return GS_ERR_NOMEM;
	p = realloc(*ptr, ncap * elem);
	if (!p)
		return GS_ERR_NOMEM;
	*ptr = p;
	*cap = ncap;
	return GS_OK;
}

gs_status gs_vec_grow(void **ptr, size_t *cap, size_t need, size_t elem)
{
	return gs_vec_reserve(ptr, cap, need, elem) == GS_OK ? GS_OK : gs_nomem();
}

/*
 * Eight bytes a step (each word xored in, multiplied and folded, so every
 * bit reaches the low ones the tables index by), the last few bytes as in
 * FNV-1a, then the 64-bit mix: adequate for names and small keys, and
 * long kernel names cost an eighth of a byte-wise hash.
 */
uint64_t gs_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	for (; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return gs_hash_u64(h);
}
