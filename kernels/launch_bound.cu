// SPDX-License-Identifier: MIT
/*
 * launch_bound: thousands of tiny kernels (add_one over N floats) launched
 * back to back on one stream, then one synchronize. Each kernel runs for
 * about as long as the host takes to launch it, or less, so the GPU spends
 * much of the time waiting for the next launch.
 *
 * What `gpuscope analyze` should find in its trace:
 * - idle as the dominant category, nearly all of it attributed to the host:
 *   launch latency (the next kernel was launched but had not started) or
 *   host_bound (it was not launched yet when the GPU ran dry);
 * - a CUDA Graph candidate (the same kernel over and over);
 * - one stream, stream_order edges, one host sync at the end.
 *
 *   launch_bound [KERNELS [N]]
 */
#include "common.cuh"

__global__ void add_one(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] += 1.0f;
}

int main(int argc, char **argv)
{
	struct prog_arg a[] = {
		{"KERNELS", 5000, 1, 1000000, "tiny kernels to launch"},
		{"N", 4096, 1, 1 << 20, "floats each kernel updates"},
	};
	parse_args(argc, argv, "Thousands of tiny kernels on one stream.", a, 2);
	const long kernels = a[0].value, n = a[1].value;
	const size_t bytes = (size_t)n * sizeof(float);
	float *h, *d;
	cudaStream_t s;
	long bad = 0;

	CHECK(cudaMallocHost(&h, bytes));
	CHECK(cudaMalloc(&d, bytes));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaMemsetAsync(d, 0, bytes, s));
	for (long k = 0; k < kernels; k++) {
		add_one<<<grid_for(n, 256), 256, 0, s>>>(d, (int)n);
		CHECK_LAUNCH();
	}
	CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));

	/* Integers up to 2^24 are exact in float. */
	for (long i = 0; i < n; i++) {
		if (h[i] != (float)kernels) {
			if (!bad)
				fprintf(stderr, "launch_bound: element %ld is %.9g, want %ld\n", i,
					(double)h[i], kernels);
			bad++;
		}
	}
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d));
	CHECK(cudaFreeHost(h));
	if (bad) {
		fprintf(stderr, "launch_bound: %ld wrong results\n", bad);
		return 1;
	}
	printf("launch_bound ok: %ld kernels over %ld floats\n", kernels, n);
	return 0;
}
