/* SPDX-License-Identifier: MIT */
/*
 * Hashing for the hash tables of every library (target gs_common): one
 * mix for 64-bit keys (the finalizer of MurmurHash3, which spreads ids that
 * differ in a few low bits over the whole word) and FNV-1a for byte
 * strings, finished with the same mix.
 */
#ifndef GPUSCOPE_HASH_H
#define GPUSCOPE_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline uint64_t gs_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* One step of combining: the hash of (h, x), for keys of several fields;
 * the order of the fields matters. */
static inline uint64_t gs_hash_combine(uint64_t h, uint64_t x)
{
	return gs_hash_u64(h * 0x9e3779b97f4a7c15ull ^ x);
}

uint64_t gs_hash_bytes(const void *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_HASH_H */
