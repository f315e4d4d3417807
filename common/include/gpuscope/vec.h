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

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_VEC_H */
