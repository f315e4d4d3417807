/* SPDX-License-Identifier: MIT */
/*
 * The work spread over threads (gpuscope/workers.h): every wanted item runs
 * once and only the wanted ones, each thread's state is made once and again
 * after a failed item, a failure is the item's status and leaves no cause
 * behind, and a task beside the caller runs once. Labelled "threads":
 * `make tsan` runs it.
 */
#include <gpuscope/error.h>
#include <gpuscope/workers.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define ITEMS 1000

struct job {
	int runs[ITEMS];   /* written by the item's thread only */
	int locals[ITEMS]; /* the state each item saw */
	pthread_mutex_t mu;
	int inits, finis, next_local;
	size_t fail_every;    /* 0: none fails */
	size_t init_fails_at; /* an init fails on this call (1-based); 0: none */
};

static bool wanted_odd(const void *ctx, size_t i)
{
	(void)ctx;
	return i % 2 == 1;
}

static gs_status job_init(void *ctx, void **local)
{
	struct job *j = ctx;
	int *id;
	bool fail;

	pthread_mutex_lock(&j->mu);
	j->inits++;
	fail = j->init_fails_at && (size_t)j->inits == j->init_fails_at;
	id = fail ? NULL : malloc(sizeof(*id));
	if (id)
		*id = ++j->next_local;
	pthread_mutex_unlock(&j->mu);
	if (!id) {
		gs_error_append("no state");
		return GS_ERR_NOMEM;
	}
	*local = id;
	return GS_OK;
}

static void job_fini(void *ctx, void *local)
{
	struct job *j = ctx;

	pthread_mutex_lock(&j->mu);
	j->finis++;
	pthread_mutex_unlock(&j->mu);
	free(local);
}

static gs_status job_run(void *ctx, void *local, size_t i)
{
	struct job *j = ctx;

	j->runs[i]++;
	j->locals[i] = local ? *(int *)local : -1;
	if (j->fail_every && i % j->fail_every == 0) {
		gs_error_append("item %zu failed", i);
		return GS_ERR_FORMAT;
	}
	return GS_OK;
}

static struct job *new_job(void)
{
	struct job *j = calloc(1, sizeof(*j));

	assert_non_null(j);
	assert_int_equal(pthread_mutex_init(&j->mu, NULL), 0);
	return j;
}

static void free_job(struct job *j)
{
	pthread_mutex_destroy(&j->mu);
	free(j);
}

static void test_each_wanted_item_once(void **state)
{
	static const size_t threads[] = {2, 3, 16, 100};

	(void)state;
	for (size_t k = 0; k < sizeof(threads) / sizeof(threads[0]); k++) {
		struct job *j = new_job();
		struct gs_pool_job pj = {.n = ITEMS, .ctx = j, .run = job_run, .wanted = wanted_odd};
		gs_status st[ITEMS];
		size_t nth;

		for (size_t i = 0; i < ITEMS; i++)
			st[i] = GS_END;
		nth = gs_pool_run(&pj, threads[k], st);
		assert_true(nth >= 1 && nth <= GS_POOL_MAX_THREADS && nth <= threads[k]);
		for (size_t i = 0; i < ITEMS; i++) {
			assert_int_equal(j->runs[i], i % 2);
			assert_int_equal(st[i], i % 2 ? GS_OK : GS_END);
			assert_int_equal(j->locals[i], i % 2 ? -1 : 0); /* no init: no state */
		}
		free_job(j);
	}
}

/* Under two threads, or no items: nothing runs, the caller does it all. */
static void test_nothing_without_threads(void **state)
{
	struct job *j = new_job();
	struct gs_pool_job pj = {.n = ITEMS, .ctx = j, .run = job_run};
	gs_status st[ITEMS];

	(void)state;
	assert_int_equal(gs_pool_run(&pj, 0, st), 0);
	assert_int_equal(gs_pool_run(&pj, 1, st), 0);
	pj.n = 1; /* one item: no more threads than items */
	assert_int_equal(gs_pool_run(&pj, 4, st), 0);
	pj.n = 0;
	assert_int_equal(gs_pool_run(&pj, 4, st), 0);
	for (size_t i = 0; i < ITEMS; i++)
		assert_int_equal(j->runs[i], 0);
	free_job(j);
}

/* A failed item: its status, no cause left on the caller, and the thread's
 * state made again before its next item. */
static void test_failures_and_state(void **state)
{
	struct job *j = new_job();
	struct gs_pool_job pj = {.n = ITEMS,
				 .ctx = j,
				 .run = job_run,
				 .init = job_init,
				 .fini = job_fini};
	gs_status st[ITEMS];
	size_t nth, failed = 0;

	(void)state;
	j->fail_every = 7;
	gs_error_clear();
	nth = gs_pool_run(&pj, 3, st);
	assert_true(nth >= 1);
	for (size_t i = 0; i < ITEMS; i++) {
		assert_int_equal(j->runs[i], 1);
		assert_int_equal(st[i], i % 7 ? GS_OK : GS_ERR_FORMAT);
		assert_true(j->locals[i] >= 1);
		failed += i % 7 == 0;
	}
	/* One state a thread, one more after each failure, each freed. */
	assert_int_equal((size_t)j->inits, nth + failed);
	assert_int_equal(j->inits, j->finis);
	assert_int_equal(gs_error_count(), 0);
	free_job(j);
}

/* An init that fails is the status of the items its thread takes. */
static void test_init_failure(void **state)
{
	struct job *j = new_job();
	struct gs_pool_job pj = {.n = ITEMS,
				 .ctx = j,
				 .run = job_run,
				 .init = job_init,
				 .fini = job_fini};
	gs_status st[ITEMS];
	size_t nomem = 0;

	(void)state;
	j->init_fails_at = 1;
	assert_true(gs_pool_run(&pj, 2, st) >= 1);
	for (size_t i = 0; i < ITEMS; i++) {
		assert_true(st[i] == GS_OK || st[i] == GS_ERR_NOMEM);
		assert_int_equal(j->runs[i], st[i] == GS_OK);
		nomem += st[i] == GS_ERR_NOMEM;
	}
	assert_true(nomem >= 1);
	assert_int_equal(j->finis, j->inits - 1); /* the failed one made nothing */
	free_job(j);
}

static void bump(void *arg)
{
	int *n = arg;

	(*n)++;
	gs_error_append("a cause on the task's thread");
}

static void test_aside(void **state)
{
	struct gs_aside a;
	int n = 0;
	bool started;

	(void)state;
	gs_error_clear();
	started = gs_aside_start(&a, bump, &n);
	if (!started)
		bump(&n);
	gs_aside_join(&a);
	gs_aside_join(&a); /* once joined, nothing to wait for */
	assert_int_equal(n, 1);
	assert_false(a.started);
	/* The task's causes stayed on its thread. */
	assert_int_equal(gs_error_count(), started ? 0 : 1);
	gs_error_clear();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_wanted_item_once),
		cmocka_unit_test(test_nothing_without_threads),
		cmocka_unit_test(test_failures_and_state),
		cmocka_unit_test(test_init_failure),
		cmocka_unit_test(test_aside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
