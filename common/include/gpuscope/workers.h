/* SPDX-License-Identifier: MIT */
/*
 * Work spread over threads (target gs_common): a pool that hands the items
 * of a job out in order to a few threads, and one task run beside the
 * caller. Both fall back to the caller's thread when no thread starts, so
 * a machine that refuses threads gets the same results, later.
 *
 * A failure's causes (gpuscope/error.h) are kept per thread and would die
 * with the thread that met them: each thread clears its chain after every
 * item or task, and says only which failed. The caller runs a failed one
 * again on its own thread to get the causes it reports (the work must be
 * deterministic, and its half-done outputs freed before that).
 */
#ifndef GPUSCOPE_WORKERS_H
#define GPUSCOPE_WORKERS_H

#include <gpuscope/error.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most threads a pool starts. */
#define GS_POOL_MAX_THREADS 16

/*
 * Items 0 .. n-1. Each thread makes its own state with init (optional)
 * before its first item, and again after an item that failed (what a
 * failure left in it is not trusted): fini then init. An init that fails
 * is the status of the items it would have served.
 */
struct gs_pool_job {
	size_t n;
	void *ctx;
	gs_status (*run)(void *ctx, void *local, size_t i);
	/* Optional: false for an item to leave alone (its status is not set). */
	bool (*wanted)(const void *ctx, size_t i);
	gs_status (*init)(void *ctx, void **local);
	void (*fini)(void *ctx, void *local);
};

/*
 * The wanted items on up to `threads` threads (at most GS_POOL_MAX_THREADS,
 * no more than there are items), taken in order from a shared counter;
 * st[i] gets item i's status. Returns how many threads ran: 0 when
 * `threads` is under 2 or none could start, and then no item ran and st is
 * untouched: the caller runs them itself.
 */
size_t gs_pool_run(const struct gs_pool_job *job, size_t threads, gs_status *st);

/* One task beside the caller. */
struct gs_aside {
	void (*fn)(void *arg);
	void *arg;
	pthread_t th;
	bool started;
};

/* fn(arg) on a thread of its own. False when none could start: nothing
 * ran, and the caller runs fn itself. */
bool gs_aside_start(struct gs_aside *a, void (*fn)(void *arg), void *arg);

/* Waits for the task to end; nothing when it did not start. */
void gs_aside_join(struct gs_aside *a);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_WORKERS_H */
