// SPDX-License-Identifier: MIT
// GPU check program for the collector (tests/gpu/run.sh): every pattern the
// collector must record, in one short run.
//   - a CUDA call first (cudaFree(0)): the driver loads the collector at cuInit,
//     so an NVTX range opened before it would not be seen;
//   - two non-blocking streams: producer kernel, cudaEventRecord, cudaStreamWaitEvent,
//     consumer kernel (an `event` edge);
//   - a blocking stream and the legacy default stream (`default_stream` edges);
//   - a <<<>>> launch (CUDA 13: __cudaLaunchKernel) and a cuLaunchKernel launch
//     (fill_drv), both writing d_a (data edges with --data-deps);
//   - events ordering the legacy stream after s1 and the graph after the
//     legacy stream (s1 is non-blocking: without them the result races);
//   - pageable synchronous and pinned asynchronous copies, a memset;
//   - cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize;
//   - a CUDA graph of three kernels;
//   - an NVTX range; cudaMalloc/cudaFree (allocations for --data-deps);
//   - a second host thread that launches a kernel and synchronizes its stream.
// Prints "probe pid=P", "probe tid main=T" and "probe tid worker=T" (the OS
// thread ids, gettid(), of the threads that make CUDA calls: the trace's
// thread ids must be these), then "probe ok" and exits 0 when the results
// are right.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "probe: %s: %s\n", #x, cudaGetErrorString(e_));            \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

__global__ void fill(float *p, int n, float v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = v;
}

/* The same as fill, launched only with cuLaunchKernel (its data edges are
 * told apart from the <<<>>> launches' by name and launch API). */
__global__ void fill_drv(float *p, int n, float v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = v;
}

__global__ void spin_add(const float *a, float *b, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float x = a[i];
		for (int k = 0; k < iters; k++)
			x = x * 0.999f + 0.001f;
		b[i] = b[i] + x;
	}
}

static long os_tid(void)
{
	return (long)syscall(SYS_gettid);
}

/* The worker thread: its own stream, one kernel, a stream synchronize. */
struct worker {
	float *buf;
	int n;
	long tid;
	int failed;
};

static void *worker_main(void *arg)
{
	struct worker *w = (struct worker *)arg;
	cudaStream_t s;

	w->tid = os_tid();
	if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
		w->failed = 1;
		return NULL;
	}
	fill<<<w->n / 256, 256, 0, s>>>(w->buf, w->n, 6.0f);
	if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(s) != cudaSuccess ||
	    cudaStreamDestroy(s) != cudaSuccess)
		w->failed = 1;
	return NULL;
}

int main(void)
{
	const int n = 1 << 20;
	const size_t bytes = n * sizeof(float);
	float *d_a, *d_b, *h_pinned, *h_pageable;
	cudaStream_t s1, s2, sb;
	cudaEvent_t ev, ev_legacy;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	CUfunction fn;
	struct worker w;
	pthread_t thread;
	float *d_w;

	/* First a CUDA call (cuInit loads the collector), then NVTX. */
	CHECK(cudaFree(0));
	nvtxRangePushA("probe");
	CHECK(cudaMalloc(&d_a, bytes));
	CHECK(cudaMalloc(&d_b, bytes));
	CHECK(cudaMallocHost(&h_pinned, bytes));
	h_pageable = (float *)malloc(bytes);
	for (int i = 0; i < n; i++)
		h_pageable[i] = 1.0f;
	CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK(cudaStreamCreate(&sb)); /* blocking */
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&ev_legacy, cudaEventDisableTiming));

	/* Copies: synchronous pageable, asynchronous pinned; a memset. */
	CHECK(cudaMemcpy(d_a, h_pageable, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemsetAsync(d_b, 0, bytes, s1));
	CHECK(cudaMemcpyAsync(d_b, h_pinned, bytes, cudaMemcpyHostToDevice, s1));

	/* Event edge: producer on s1, consumer on s2 after the wait. */
	spin_add<<<n / 256, 256, 0, s1>>>(d_a, d_b, n, 2000);
	CHECK(cudaEventRecord(ev, s1));
	CHECK(cudaStreamWaitEvent(s2, ev, 0));
	spin_add<<<n / 256, 256, 0, s2>>>(d_b, d_a, n, 100);
	CHECK(cudaEventSynchronize(ev));
	CHECK(cudaStreamSynchronize(s2));

	/* A driver launch. */
	CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&fn, (const void *)fill_drv));
	{
		float v = 2.0f;
		int nn = n;
		void *args[] = {&d_a, &nn, &v};
		if (cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, (CUstream)s1, args, NULL) !=
		    CUDA_SUCCESS) {
			fprintf(stderr, "probe: cuLaunchKernel failed\n");
			return 1;
		}
	}

	/* Legacy default stream between work on a blocking stream. s1 is
	 * non-blocking: the legacy stream's fill of d_a neither waits for the
	 * cuLaunchKernel above nor holds back the graph below, so events order
	 * them (else the graph could run first and d_a end up 4). */
	CHECK(cudaEventRecord(ev, s1));
	CHECK(cudaStreamWaitEvent(cudaStreamLegacy, ev, 0));
	fill<<<n / 256, 256, 0, sb>>>(d_b, n, 3.0f);
	fill<<<n / 256, 256>>>(d_a, n, 4.0f);
	fill<<<n / 256, 256, 0, sb>>>(d_b, n, 5.0f);
	CHECK(cudaEventRecord(ev_legacy, cudaStreamLegacy));
	CHECK(cudaStreamWaitEvent(s1, ev_legacy, 0));

	/* A graph of three kernels on s1, after the legacy stream's fill. */
	CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	for (int k = 0; k < 3; k++)
		fill<<<n / 256, 256, 0, s1>>>(d_a, n, (float)k);
	CHECK(cudaStreamEndCapture(s1, &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	CHECK(cudaGraphLaunch(exec, s1));

	/* A second thread that launches. */
	CHECK(cudaMalloc(&d_w, bytes));
	w.buf = d_w;
	w.n = n;
	w.tid = 0;
	w.failed = 0;
	if (pthread_create(&thread, NULL, worker_main, &w) != 0 ||
	    pthread_join(thread, NULL) != 0) {
		fprintf(stderr, "probe: cannot run the worker thread\n");
		return 1;
	}
	if (w.failed) {
		fprintf(stderr, "probe: the worker thread's CUDA calls failed\n");
		return 1;
	}
	CHECK(cudaFree(d_w));

	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(h_pageable, d_a, bytes, cudaMemcpyDeviceToHost));
	if (h_pageable[0] != 2.0f) {
		fprintf(stderr, "probe: wrong result %f\n", h_pageable[0]);
		return 1;
	}
	CHECK(cudaEventDestroy(ev_legacy));
	CHECK(cudaEventDestroy(ev));
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));
	CHECK(cudaFree(d_a));
	CHECK(cudaFree(d_b));
	CHECK(cudaFreeHost(h_pinned));
	free(h_pageable);
	nvtxRangePop();
	printf("probe pid=%ld\n", (long)getpid());
	printf("probe tid main=%ld\n", os_tid());
	printf("probe tid worker=%ld\n", w.tid);
	printf("probe ok\n");
	return 0;
}
