// SPDX-License-Identifier: MIT
/*
 * stream_priorities: the same work on a low- and a high-priority stream
 * (cudaStreamCreateWithPriority with the device's least and greatest
 * priorities, from cudaDeviceGetStreamPriorityRange). KERNELS kernels, each
 * large enough to fill the GPU, are queued on the low-priority stream first,
 * then KERNELS identical ones on the high-priority stream. The block
 * scheduler gives the high-priority kernels the SMs as the running
 * low-priority blocks retire, so they finish first although they were
 * queued last. Every result is checked on the host.
 *
 * What `gpuscope analyze` should find in its trace:
 * - two non-blocking streams with their priorities (0 and a negative one:
 *   lower numbers are higher priorities);
 * - kernel concurrency: the high-priority kernels run inside the span of the
 *   low-priority kernel that was running when they arrived, which is
 *   stretched by them;
 * - no dependency between the two streams (stream_order edges only).
 *
 *   stream_priorities [KERNELS [N [STEPS]]]
 */
#include "common.cuh"

#define MAX_KERNELS 64

int main(int argc, char **argv)
{
	struct prog_arg a[] = {
		{"KERNELS", 4, 1, MAX_KERNELS, "kernels on each stream"},
		{"N", 1 << 20, 1, 1 << 24, "floats per kernel"},
		{"STEPS", 1000, 0, 1000000, "fmaf steps per element"},
	};
	parse_args(argc, argv, "The same work on a low- and a high-priority stream.", a, 3);
	const long kernels = a[0].value, n = a[1].value, steps = a[2].value;
	const size_t bytes = (size_t)n * sizeof(float);
	float *h, *d_x, *d_y[2 * MAX_KERNELS], table[AFFINE_VALUES];
	int least, greatest;
	cudaStream_t low, high;
	long bad = 0;

	CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	CHECK(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, least));
	CHECK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest));
	CHECK(cudaMallocHost(&h, 2 * kernels * bytes));
	CHECK(cudaMalloc(&d_x, bytes));
	for (long k = 0; k < 2 * kernels; k++)
		CHECK(cudaMalloc(&d_y[k], bytes));
	fill_inputs(h, n, 0);
	CHECK(cudaMemcpy(d_x, h, bytes, cudaMemcpyHostToDevice));

	for (long k = 0; k < kernels; k++) {
		iterate_affine<<<grid_for(n, 256), 256, 0, low>>>(d_x, d_y[k], (int)n, (int)steps);
		CHECK_LAUNCH();
	}
	for (long k = 0; k < kernels; k++) {
		iterate_affine<<<grid_for(n, 256), 256, 0, high>>>(d_x, d_y[kernels + k], (int)n,
								   (int)steps);
		CHECK_LAUNCH();
	}
	CHECK(cudaDeviceSynchronize());

	for (long k = 0; k < 2 * kernels; k++)
		CHECK(cudaMemcpy(h + k * n, d_y[k], bytes, cudaMemcpyDeviceToHost));

	affine_table(table, steps);
	for (long k = 0; k < 2 * kernels; k++) {
		bad += check_outputs("stream_priorities", h + k * n, n, 0, table);
		CHECK(cudaFree(d_y[k]));
	}
	CHECK(cudaStreamDestroy(low));
	CHECK(cudaStreamDestroy(high));
	CHECK(cudaFree(d_x));
	CHECK(cudaFreeHost(h));
	if (bad) {
		fprintf(stderr, "stream_priorities: %ld wrong results\n", bad);
		return 1;
	}
	printf("stream_priorities ok: %ld kernels on each of priorities %d and %d\n", kernels,
	       least, greatest);
	return 0;
}
