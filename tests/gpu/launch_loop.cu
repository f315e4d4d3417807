// SPDX-License-Identifier: MIT
// Launch-heavy loop for the collector's overhead (tests/gpu/run.sh): N empty
// kernel launches on one stream, then one synchronize. Prints the host time
// from the first launch to the end of the synchronize.
//   launch_loop [N]   (default 200000)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__global__ void empty(int *p)
{
	if (p && threadIdx.x == 1024)
		*p = 1;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	cudaStream_t s;
	long long t0, t1;

	if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
		return 1;
	for (int i = 0; i < 1000; i++) /* warm up */
		empty<<<1, 32, 0, s>>>(NULL);
	cudaStreamSynchronize(s);
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		empty<<<1, 32, 0, s>>>(NULL);
	cudaStreamSynchronize(s);
	t1 = now_ns();
	if (cudaGetLastError() != cudaSuccess)
		return 1;
	printf("launches=%ld total_ns=%lld ns_per_launch=%.1f\n", n, t1 - t0,
	       (double)(t1 - t0) / (double)n);
	return 0;
}
