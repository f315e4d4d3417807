/* SPDX-License-Identifier: MIT */
/*
 * A bounded pool of CUPTI activity buffers. At most `max` buffers of `size`
 * bytes ever exist; a request when all are out gets NULL (CUPTI then drops
 * the records and counts them) and is counted here too. Getting and putting
 * a buffer is a pointer swap under a mutex held for a few instructions:
 * no I/O, no waiting, no allocation under the lock.
 *
 * Each payload handed to CUPTI is preceded by a 64-byte header the collector
 * uses to queue completed buffers without allocating.
 */
#ifndef GS_COLLECTOR_BUFFER_POOL_H
#define GS_COLLECTOR_BUFFER_POOL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct gs_pool_buf {
	struct gs_pool_buf *next; /* free list, or the completed queue */
	size_t valid;             /* bytes of records CUPTI wrote */
	unsigned char pad[48];    /* header is 64 bytes: payload stays aligned */
};

struct gs_pool {
	size_t size;
	unsigned max;
	pthread_mutex_t lock;
	struct gs_pool_buf *free; /* under lock */
	atomic_uint allocated;    /* buffers created so far (<= max) */
	atomic_uint out;          /* buffers handed out and not yet put back */
	atomic_ullong refused;    /* requests answered with no buffer */
};

/* Returns 0, or -1 on a bad size (< 1 KiB) or max of 0. */
int gs_pool_init(struct gs_pool *p, size_t size, unsigned max);
/* A buffer of p->size bytes (8-byte aligned), or NULL when the pool is exhausted. */
unsigned char *gs_pool_get(struct gs_pool *p);
void gs_pool_put(struct gs_pool *p, unsigned char *payload);
struct gs_pool_buf *gs_pool_header(unsigned char *payload);
unsigned char *gs_pool_payload(struct gs_pool_buf *b);
/* Frees the buffers on the free list; buffers still out are the caller's. */
void gs_pool_fini(struct gs_pool *p);

#endif
