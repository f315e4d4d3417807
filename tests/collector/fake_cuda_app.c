/* SPDX-License-Identifier: MIT */
/*
 * A stand-in CUDA program for `gpuscope record` tests without a GPU. It
 * does what the driver does at cuInit (load CUDA_INJECTION64_PATH, call
 * InitializeInjection), then "runs" two kernels through the CUPTI test
 * double.
 *
 *   fake_cuda_app [--spawn] [--exit N]
 *     --spawn   also run itself again through exec (an exec'd descendant
 *               inheriting the environment) and wait for it
 *     --exit N  exit with status N
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cupti_double.h"
#include "records.h"

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
	int code = 0, spawn = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--spawn"))
			spawn = 1;
		else if (!strcmp(argv[i], "--exit") && i + 1 < argc)
			code = atoi(argv[++i]);
	}
	cuda_init();
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
