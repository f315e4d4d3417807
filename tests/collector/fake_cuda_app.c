/* SPDX-License-Identifier: MIT */
/*
 * A stand-in CUDA program for `gpuscope record` tests without a GPU. It
 * links the driver double (libcuda.so.1, as a program linked with
 * -lcuda), does what the driver does at cuInit (load CUDA_INJECTION64_PATH,
 * call InitializeInjection), then "runs" two kernels through the CUPTI
 * test double.
 *
 *   fake_cuda_app [--spawn] [--exit N] [--threads N] [--cupti-fail E] [--no-init]
 *                 [--no-kernels]
 *     --spawn         also run itself again through exec (an exec'd
 *                     descendant inheriting the environment) and wait for it
 *     --exit N        exit with status N
 *     --threads N     initialise CUDA from N threads at once
 *     --cupti-fail E  every CUPTI call fails with E (999: a driver CUPTI
 *                     cannot use)
 *     --no-init       never initialise CUDA (nor run kernels): a CUDA
 *                     program that makes no CUDA call
 *     --no-kernels    initialise CUDA, then do nothing with it
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_double.h"
#include "cupti_double.h"
#include "records.h"

#define MAX_THREADS 32

static pthread_barrier_t start_line;

static void cuda_init(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	int (*init)(void);
	void *h;

	if (!path || !*path)
		return;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "fake_cuda_app: %s\n", dlerror());
		exit(90);
	}
	*(void **)&init = dlsym(h, "InitializeInjection");
	if (!init || init() != 1)
		exit(91);
}

static void *init_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	cuda_init();
	return NULL;
}

/* Every thread calls cuInit at the same moment (the driver would call
 * InitializeInjection once; the collector must cope either way). */
static void cuda_init_threads(int n)
{
	pthread_t th[MAX_THREADS];

	pthread_barrier_init(&start_line, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, init_thread, NULL) != 0)
			exit(93);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start_line);
}

static void kernels(uint32_t tid)
{
	CUpti_ActivityAPI a;
	CUpti_ActivityKernel10 k;

	for (uint32_t i = 1; i <= 2; i++) {
		a = rec_api(CUPTI_ACTIVITY_KIND_RUNTIME,
			    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, i, tid, 100 * i,
			    100 * i + 10);
		k = rec_kernel(1, 7, i, 100 * i + 20, 100 * i + 80, "fake_kernel");
		gsd_emit(&a);
		gsd_emit(&k);
	}
}

int main(int argc, char **argv)
{
	struct gsd_options opts = {0};
	int code = 0, spawn = 0, threads = 0, init = 1, run = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--spawn"))
			spawn = 1;
		else if (!strcmp(argv[i], "--exit") && i + 1 < argc)
			code = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cupti-fail") && i + 1 < argc)
			opts.fail_all = (CUptiResult)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-init"))
			init = 0;
		else if (!strcmp(argv[i], "--no-kernels"))
			run = 0;
	}
	gsd_configure(&opts);
	(void)gsd_cuda_param_info_calls(); /* linked as a CUDA program links the driver */
	if (threads > 1 && threads <= MAX_THREADS)
		cuda_init_threads(threads);
	else if (init)
		cuda_init();
	if (init && run)
		kernels((uint32_t)getpid());
	if (spawn) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			execl("/proc/self/exe", argv[0], (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 92;
	}
	printf("fake_cuda_app done\n");
	return code;
}
