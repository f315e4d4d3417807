/* SPDX-License-Identifier: MIT */
/*
 * Growable arrays (target gs_common): capacity doubles, from 16, with
 * overflow checks.
 */
#ifndef GPUSCOPE_VEC_H
#define GPUSCOPE_VEC_H

#include <gpuscope/error.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Make room for `need` elements of `elem` bytes in *ptr (capacity *cap,
 * in elements). Returns GS_ERR_NOMEM without a cause when the memory
 * cannot be had or the size overflows; *ptr and *cap are then unchanged.
 */
gs_status gs_vec_reserve(void **ptr, size_t *cap, size_t need, size_t elem);
/* The same, appending the cause ("out of memory") on failure. */
gs_status gs_vec_grow(void **ptr, size_t *cap, size_t need, size_t elem);

/* Append one element to a typed array `arr` with count `n` and capacity `cap`
 * (the call only when it is full). */
#define GS_VEC_PUSH(arr, n, cap, value)                                                            \
	((n) >= (cap) && gs_vec_reserve((void **)&(arr), &(cap), (n) + 1, sizeof(*(arr))) !=       \
				 GS_OK ?                                                           \
		 GS_ERR_NOMEM :                                                                    \
		 ((arr)[(n)++] = (value), GS_OK))

/*
 * Make room for one more element in an array of n elements grown only here:
 * its capacity is known from n (0, then 16, 32, 64, ... as gs_vec_reserve
 * grows it), so that a struct read by others need not carry it.
 */
static inline gs_status gs_vec_room(void **ptr, size_t n, size_t elem)
{
	size_t cap = n;

	if (n && (n < 16 || (n & (n - 1))))
		return GS_OK;
	return gs_vec_reserve(ptr, &cap, n + 1, elem);
}

/* Append `value` to `arr` with count `n` and a capacity known from it. */
#define GS_VEC_APPEND(arr, n, value)                                                               \
	(gs_vec_room((void **)&(arr), (n), sizeof(*(arr))) != GS_OK ?                              \
		 GS_ERR_NOMEM :                                                                    \
		 ((arr)[(n)++] = (value), GS_OK))

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_VEC_H */
