/* SPDX-License-Identifier: MIT */
/*
 * The bounded activity-buffer pool (see buffer_pool.h). O(1) get and put.
 * New buffers are allocated outside the lock after reserving a slot with an
 * atomic counter, so the pool never exceeds `max` buffers.
 */
#include "buffer_pool.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct gs_pool_buf) == 64, "pool header must be 64 bytes");

int gs_pool_init(struct gs_pool *p, size_t size, unsigned max)
{
	memset(p, 0, sizeof(*p));
	if (size < 1024 || max == 0)
		return -1;
	p->size = size & ~(size_t)7;
	p->max = max;
	atomic_init(&p->allocated, 0);
	atomic_init(&p->out, 0);
	atomic_init(&p->refused, 0);
	return pthread_mutex_init(&p->lock, NULL) == 0 ? 0 : -1;
}

struct gs_pool_buf *gs_pool_header(unsigned char *payload)
{
	return (struct gs_pool_buf *)(void *)(payload - sizeof(struct gs_pool_buf));
}

unsigned char *gs_pool_payload(struct gs_pool_buf *b)
{
	return (unsigned char *)b + sizeof(*b);
}

unsigned char *gs_pool_get(struct gs_pool *p)
{
	struct gs_pool_buf *b;
	unsigned n;

	pthread_mutex_lock(&p->lock);
	b = p->free;
	if (b)
		p->free = b->next;
	pthread_mutex_unlock(&p->lock);
	if (!b) {
		n = atomic_load(&p->allocated);
		do {
			if (n >= p->max) {
				atomic_fetch_add(&p->refused, 1);
				return NULL;
			}
		} while (!atomic_compare_exchange_weak(&p->allocated, &n, n + 1));
		b = malloc(sizeof(*b) + p->size);
		if (!b) {
			atomic_fetch_sub(&p->allocated, 1);
			atomic_fetch_add(&p->refused, 1);
			return NULL;
		}
	}
	b->next = NULL;
	b->valid = 0;
	atomic_fetch_add(&p->out, 1);
	return gs_pool_payload(b);
}

void gs_pool_put(struct gs_pool *p, unsigned char *payload)
{
	struct gs_pool_buf *b;

	if (!payload)
		return;
	b = gs_pool_header(payload);
	atomic_fetch_sub(&p->out, 1);
	pthread_mutex_lock(&p->lock);
	b->next = p->free;
	p->free = b;
	pthread_mutex_unlock(&p->lock);
}

void gs_pool_fini(struct gs_pool *p)
{
	struct gs_pool_buf *b, *next;

	if (!p->max)
		return;
	pthread_mutex_lock(&p->lock);
	b = p->free;
	p->free = NULL;
	pthread_mutex_unlock(&p->lock);
	for (; b; b = next) {
		next = b->next;
		free(b);
		atomic_fetch_sub(&p->allocated, 1);
	}
	pthread_mutex_destroy(&p->lock);
	p->max = 0;
}
