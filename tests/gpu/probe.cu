// SPDX-License-Identifier: MIT
// GPU check program for the collector (tests/gpu/run.sh): every pattern the
// collector must record, in one short run.
//   - two non-blocking streams: producer kernel, cudaEventRecord, cudaStreamWaitEvent,
//     consumer kernel (an `event` edge);
//   - a blocking stream and the legacy default stream (`default_stream` edges);
//   - a <<<>>> launch (CUDA 13: __cudaLaunchKernel) and a cuLaunchKernel launch;
//   - pageable synchronous and pinned asynchronous copies, a memset;
//   - cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize;
//   - a CUDA graph of three kernels;
//   - an NVTX range; cudaMalloc/cudaFree (allocations for --data-deps).
// Prints "probe ok" and exits 0 when the results are right.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
	const int n = 1 << 20;
	const size_t bytes = n * sizeof(float);
	float *d_a, *d_b, *h_pinned, *h_pageable;
	cudaStream_t s1, s2, sb;
	cudaEvent_t ev;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	CUfunction fn;

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

	/* Driver launch of the same kernel. */
	CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&fn, (const void *)fill));
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

	/* Legacy default stream between work on a blocking stream. */
	fill<<<n / 256, 256, 0, sb>>>(d_b, n, 3.0f);
	fill<<<n / 256, 256>>>(d_a, n, 4.0f);
	fill<<<n / 256, 256, 0, sb>>>(d_b, n, 5.0f);

	/* A graph of three kernels on s1. */
	CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	for (int k = 0; k < 3; k++)
		fill<<<n / 256, 256, 0, s1>>>(d_a, n, (float)k);
	CHECK(cudaStreamEndCapture(s1, &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	CHECK(cudaGraphLaunch(exec, s1));

	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(h_pageable, d_a, bytes, cudaMemcpyDeviceToHost));
	if (h_pageable[0] != 2.0f) {
		fprintf(stderr, "probe: wrong result %f\n", h_pageable[0]);
		return 1;
	}
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));
	CHECK(cudaFree(d_a));
	CHECK(cudaFree(d_b));
	CHECK(cudaFreeHost(h_pinned));
	free(h_pageable);
	nvtxRangePop();
	printf("probe ok\n");
	return 0;
}
