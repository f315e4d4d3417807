/* SPDX-License-Identifier: MIT */
#include <gpuscope/workers.h>

struct pool {
	const struct gs_pool_job *job;
	gs_status *st;
	pthread_mutex_t mu;
	size_t next;
};

/* The next wanted item, or job->n when none is left. */
static size_t take(struct pool *p)
{
	const struct gs_pool_job *job = p->job;
	size_t i;

	pthread_mutex_lock(&p->mu);
	while (p->next < job->n && job->wanted && !job->wanted(job->ctx, p->next))
		p->next++;
	i = p->next < job->n ? p->next++ : job->n;
	pthread_mutex_unlock(&p->mu);
	return i;
}

static gs_status local_init(const struct gs_pool_job *job, void **local)
{
	*local = NULL;
	return job->init ? job->init(job->ctx, local) : GS_OK;
}

static void local_fini(const struct gs_pool_job *job, void *local, gs_status ready)
{
	if (job->fini && ready == GS_OK)
		job->fini(job->ctx, local);
}

static void *pool_main(void *arg)
{
	struct pool *p = arg;
	const struct gs_pool_job *job = p->job;
	void *local;
	gs_status ready = local_init(job, &local);

	for (size_t i; (i = take(p)) < job->n;) {
		p->st[i] = ready == GS_OK ? job->run(job->ctx, local, i) : ready;
		if (p->st[i] != GS_OK) {
			local_fini(job, local, ready);
			ready = local_init(job, &local);
		}
		gs_error_clear();
	}
	local_fini(job, local, ready);
	gs_error_clear();
	return NULL;
}

size_t gs_pool_run(const struct gs_pool_job *job, size_t threads, gs_status *st)
{
	struct pool p = {.job = job, .st = st};
	pthread_t th[GS_POOL_MAX_THREADS];
	size_t nth = 0;

	if (threads > GS_POOL_MAX_THREADS)
		threads = GS_POOL_MAX_THREADS;
	if (threads > job->n)
		threads = job->n;
	if (threads < 2 || pthread_mutex_init(&p.mu, NULL) != 0)
		return 0;
	while (nth < threads && pthread_create(&th[nth], NULL, pool_main, &p) == 0)
		nth++;
	for (size_t k = 0; k < nth; k++)
		pthread_join(th[k], NULL);
	pthread_mutex_destroy(&p.mu);
	return nth;
}

static void *aside_main(void *arg)
{
	struct gs_aside *a = arg;

	a->fn(a->arg);
	gs_error_clear();
	return NULL;
}

bool gs_aside_start(struct gs_aside *a, void (*fn)(void *arg), void *arg)
{
	a->fn = fn;
	a->arg = arg;
	a->started = pthread_create(&a->th, NULL, aside_main, a) == 0;
	return a->started;
}

void gs_aside_join(struct gs_aside *a)
{
	if (!a->started)
		return;
	pthread_join(a->th, NULL);
	a->started = false;
}
