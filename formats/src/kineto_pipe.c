/* SPDX-License-Identifier: MIT */
/*
 * The Kineto document walk and the event code on two threads (see
 * kineto_pipe.h): items go over in batches of PIPE_BATCH; the scanner's
 * buffer is handed over in pieces (PIPE_BUFS at most, each kept until the
 * items that point into it are handled), and each error comes to the
 * reading thread after the items before it.
 */
#include "kineto_pipe.h"

#include "gzin.h"

#include <gpuscope/error.h>
#include <gpuscope/trace.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIPE_BATCH 256
#define PIPE_BATCHES 8
#define PIPE_BUFS 8
/* Marks a buffer the walk is using. */
#define PIPE_IN_USE UINT64_MAX

struct pipe_batch {
	struct kin_item item[PIPE_BATCH];
	uint32_t n;
	bool full; /* handed to the reading thread */
	bool last; /* the walk ended: rc, causes */
	gs_status rc;
	int ncauses;
	char causes[GS_ERROR_MAX_CAUSES][GS_ERROR_MSG_MAX];
};

struct pipe_buf {
	char *p;
	size_t cap;
	uint64_t until; /* free once this many items are handled (PIPE_IN_USE) */
};

struct kin_pipe {
	struct kin_scan *k;
	kin_walk_fn walk;
	void *ctx;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct pipe_batch *b; /* PIPE_BATCHES */
	unsigned fill, take;  /* the batch the walk writes, the one read next */
	uint64_t written;     /* items written by the walk (walk's thread only) */
	struct kin_item *cur; /* the slot kin_item_next gave (walk's thread) */
	uint64_t handled;     /* items handled (under mu) */
	struct pipe_buf buf[PIPE_BUFS];
	bool stop; /* the reading thread met an error: the walk stops */
	/* Who sleeps (under mu). Each side wakes the other only when what it
	 * waits for may have come, and waits for half a queue, not one slot:
	 * a sleep costs a switch of threads. */
	bool walk_waits, reader_waits;
	bool walk_ended; /* its last batch is handed over */
	/* What the walk waits for: buffers other than this one (when not
	 * NULL), else batches. */
	const struct pipe_buf *walk_old;
	bool walk_for_bufs;
};

/* The walk's error when the reading thread stopped it (never reported). */
#define PIPE_STOPPED GS_ERR_INVALID

static _Atomic int pipe_threads = -1; /* -1: from the environment */

void kin_pipe_test_threads(bool on)
{
	atomic_store(&pipe_threads, on ? 2 : 0);
}

/*
 * The second thread pays for its fixed costs (the pages of its batches and
 * buffers, the wake-ups) on large inputs only: 64 MiB of plain JSON.
 * Smaller ones and pipes (size unknown) stay on one thread, and so does
 * gzip, whose second CPU inflates ahead (gzin.c): a third thread there
 * cost more CPU than it saved time. Tests turn the thread on for any input.
 */
#define PIPE_MIN_PLAIN (64ull << 20)

static bool want_thread(const struct kin_scan *k)
{
	int t = atomic_load(&pipe_threads);
	uint64_t size = gs_gzin_input_size(k->in);

	if (t < 0) {
		const char *env = getenv("GPUSCOPE_TEST_SCAN_THREAD");

		t = env && strcmp(env, "off") == 0 ? 0 : env && strcmp(env, "on") == 0 ? 2 : 1;
		atomic_store(&pipe_threads, t);
	}
	if (!t || gs_cpu_count() < 2)
		return false;
	return t == 2 || (!gs_gzin_is_gzip(k->in) && size >= PIPE_MIN_PLAIN);
}

struct kin_item *kin_item_next(struct kin_scan *k)
{
	struct kin_pipe *p = k->pipe;

	if (!p)
		return k->one;
	p->cur = &p->b[p->fill].item[p->b[p->fill].n];
	return p->cur;
}

/* Batches not handed over (under mu). */
static unsigned free_batches(const struct kin_pipe *p)
{
	unsigned n = 0;

	for (unsigned i = 0; i < PIPE_BATCHES; i++)
		n += !p->b[i].full;
	return n;
}

/* A buffer the walk may take (under mu), other than `old`. */
static bool buf_free(const struct kin_pipe *p, const struct pipe_buf *c, const struct pipe_buf *old)
{
	return c != old && (!c->p || (c->until != PIPE_IN_USE && c->until <= p->handled));
}

static unsigned free_bufs(const struct kin_pipe *p, const struct pipe_buf *old)
{
	unsigned n = 0;

	for (int i = 0; i < PIPE_BUFS; i++)
		n += buf_free(p, &p->buf[i], old);
	return n;
}

/* What the reading thread waits for (under mu): the next batch, and half
 * the queue full unless the walk ended or waits itself. */
static bool reader_may_go(const struct kin_pipe *p)
{
	const struct pipe_batch *b = &p->b[p->take];

	return b->full && (p->walk_ended || p->walk_waits || free_batches(p) <= PIPE_BATCHES / 2);
}

/* What the walk waits for has come (under mu). */
static bool walk_may_go(const struct kin_pipe *p)
{
	if (p->stop)
		return true;
	if (p->walk_for_bufs)
		return free_bufs(p, p->walk_old) >= PIPE_BUFS / 2;
	return free_batches(p) >= PIPE_BATCHES / 2;
}

/* The walk is about to sleep (under mu) until walk_may_go: the reader must
 * not wait for it. */
static void walk_sleeps(struct kin_pipe *p)
{
	p->walk_waits = true;
	if (p->reader_waits && reader_may_go(p))
		pthread_cond_broadcast(&p->cv);
	pthread_cond_wait(&p->cv, &p->mu);
	p->walk_waits = false;
}

/*
 * Hand the batch being written over (under mu) and make sure the next is
 * free; false when the reading thread stopped. A walk that has to wait
 * waits until half the batches are free.
 */
static bool publish(struct kin_pipe *p)
{
	p->b[p->fill].full = true;
	p->fill = (p->fill + 1) % PIPE_BATCHES;
	if (p->reader_waits && reader_may_go(p))
		pthread_cond_broadcast(&p->cv);
	if (p->b[p->fill].full) {
		p->walk_for_bufs = false;
		while (!walk_may_go(p))
			walk_sleeps(p);
	}
	return !p->stop;
}

gs_status kin_item_put(struct kin_scan *k)
{
	struct kin_pipe *p = k->pipe;
	bool ok;

	if (!p)
		return k->handle(k->ctx, k->one);
	/* kin_pipe_move may have handed the batch over while the item was
	 * being written (its slot is past what went over): move it along. */
	if (p->cur != &p->b[p->fill].item[p->b[p->fill].n])
		memcpy(&p->b[p->fill].item[p->b[p->fill].n], p->cur, sizeof(*p->cur));
	p->written++;
	if (++p->b[p->fill].n < PIPE_BATCH)
		return GS_OK;
	pthread_mutex_lock(&p->mu);
	ok = publish(p);
	pthread_mutex_unlock(&p->mu);
	return ok ? GS_OK : PIPE_STOPPED;
}

gs_status kin_pipe_move(struct kin_scan *k, size_t keep, size_t cap)
{
	struct kin_pipe *p = k->pipe;
	struct pipe_buf *old = NULL, *nb = NULL;

	for (int i = 0; i < PIPE_BUFS; i++)
		if (p->buf[i].p == k->buf)
			old = &p->buf[i];
	pthread_mutex_lock(&p->mu);
	if (!free_bufs(p, old)) {
		/* The buffers free as the items pointing into them are
		 * handled: those not yet handed over go first. Then wait
		 * until half the buffers are free (one sleep, not one per
		 * buffer). */
		if (p->b[p->fill].n && !publish(p)) {
			pthread_mutex_unlock(&p->mu);
			return PIPE_STOPPED;
		}
		p->walk_for_bufs = true;
		p->walk_old = old;
		while (!walk_may_go(p))
			walk_sleeps(p);
		p->walk_for_bufs = false;
	}
	for (int i = 0; i < PIPE_BUFS && !nb && !p->stop; i++)
		if (buf_free(p, &p->buf[i], old))
			nb = &p->buf[i];
	pthread_mutex_unlock(&p->mu);
	if (!nb)
		return PIPE_STOPPED;
	/* A free buffer: only this thread touches it. */
	if (nb->cap < cap || nb->cap > 4 * cap) {
		char *q = realloc(nb->p, cap);

		if (!q)
			return gs_nomem();
		nb->p = q;
		nb->cap = cap;
	}
	nb->until = PIPE_IN_USE;
	memcpy(nb->p, k->buf + keep, k->len - keep);
	pthread_mutex_lock(&p->mu);
	if (old)
		old->until = p->written; /* the items written so far may point into it */
	pthread_mutex_unlock(&p->mu);
	k->buf = nb->p;
	k->cap = cap;
	return GS_OK;
}

static void *pipe_main(void *arg)
{
	struct kin_pipe *p = arg;
	struct pipe_batch *b;
	gs_status rc;

	gs_error_clear();
	rc = p->walk(p->ctx);
	pthread_mutex_lock(&p->mu);
	b = &p->b[p->fill];
	if (!p->stop) {
		/* The batch being written is free (kin_item_put waited). */
		p->walk_ended = true;
		b->last = true;
		b->rc = rc;
		b->ncauses = rc ? gs_error_count() : 0;
		for (int i = 0; i < b->ncauses; i++)
			snprintf(b->causes[i], sizeof(b->causes[i]), "%s", gs_error_message(i));
		b->full = true;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	gs_error_clear();
	return NULL;
}

/* The walk on this thread, each item handled as it is written. */
static gs_status run_here(struct kin_scan *k, kin_walk_fn walk, void *ctx)
{
	gs_status rc;

	k->one = malloc(sizeof(*k->one));
	if (!k->one)
		return gs_nomem();
	rc = walk(ctx);
	free(k->one);
	k->one = NULL;
	return rc;
}

gs_status kin_pipe_run(struct kin_scan *k, kin_walk_fn walk, kin_handle_fn handle, void *ctx)
{
	struct kin_pipe *p;
	gs_status rc = GS_OK;

	k->handle = handle;
	k->ctx = ctx;
	if (!want_thread(k))
		return run_here(k, walk, ctx);
	p = calloc(1, sizeof(*p));
	if (p)
		p->b = calloc(PIPE_BATCHES, sizeof(*p->b));
	if (!p || !p->b || pthread_mutex_init(&p->mu, NULL) != 0) {
		if (p)
			free(p->b);
		free(p);
		return run_here(k, walk, ctx);
	}
	if (pthread_cond_init(&p->cv, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		free(p->b);
		free(p);
		return run_here(k, walk, ctx);
	}
	p->k = k;
	p->walk = walk;
	p->ctx = ctx;
	/* The buffer the walk starts with is the first of the pool. */
	p->buf[0] = (struct pipe_buf){.p = k->buf, .cap = k->cap, .until = PIPE_IN_USE};
	k->pipe = p;
	if (pthread_create(&p->th, NULL, pipe_main, p) != 0) {
		k->pipe = NULL;
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		free(p->b);
		free(p);
		return run_here(k, walk, ctx);
	}
	for (;;) {
		struct pipe_batch *b = &p->b[p->take];
		bool last;

		pthread_mutex_lock(&p->mu);
		/* A batch ready is taken; with none, sleep until half the
		 * queue is. */
		if (!b->full) {
			while (!reader_may_go(p)) {
				p->reader_waits = true;
				pthread_cond_wait(&p->cv, &p->mu);
				p->reader_waits = false;
			}
		}
		last = b->last;
		pthread_mutex_unlock(&p->mu);
		for (uint32_t i = 0; i < b->n && !rc; i++)
			rc = handle(ctx, &b->item[i]);
		if (!rc && last && b->rc) {
			for (int i = 0; i < b->ncauses; i++)
				gs_error_append("%s", b->causes[i]);
			rc = b->rc;
		}
		if (rc || last) {
			pthread_mutex_lock(&p->mu);
			p->stop = true;
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->mu);
			break;
		}
		pthread_mutex_lock(&p->mu);
		p->handled += b->n;
		b->n = 0;
		b->full = false;
		p->take = (p->take + 1) % PIPE_BATCHES;
		/* Wake the walk when what it waits for has come. */
		if (p->walk_waits && walk_may_go(p))
			pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	pthread_join(p->th, NULL);
	k->pipe = NULL;
	/* The buffer the walk ended with stays the scanner's (kin_run frees
	 * it); the others go. */
	for (int i = 0; i < PIPE_BUFS; i++)
		if (p->buf[i].p != k->buf)
			free(p->buf[i].p);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p->b);
	free(p);
	return rc;
}
