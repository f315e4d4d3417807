// SPDX-License-Identifier: MIT
/*
 * default_stream: work on the LEGACY default stream (stream 0; this program
 * is built without --default-stream per-thread) between two BLOCKING streams
 * (cudaStreamCreate). Each iteration:
 *
 *   stream s1:  iterate_affine  out -> y1
 *   stream s2:  iterate_affine  out -> y2          (beside the s1 kernel)
 *   stream 0:   average         y1, y2 -> out
 *
 * No event joins the streams: the program is right only because the legacy
 * default stream waits for the blocking streams' earlier work, and their
 * later work waits for it. It starts with a synchronous cudaMemcpy to the
 * device and ends with one back (pageable memory), then checks every element.
 *
 * What `gpuscope analyze` should find in its trace:
 * - stream kinds: one legacy_default, two blocking;
 * - default_stream edges both ways every iteration (s1, s2 -> average ->
 *   next s1, s2), and waits of kind default_stream;
 * - kernel concurrency only between the two blocking streams' kernels;
 * - sync_copy edges from the synchronous copies.
 *
 *   default_stream [ITERATIONS [N [STEPS]]]
 */
#include "common.cuh"

__global__ void average(const float *y1, const float *y2, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = 0.5f * (y1[i] + y2[i]);
}

int main(int argc, char **argv)
{
	struct prog_arg a[] = {
		{"ITERATIONS", 8, 1, 100000, "iterations"},
		{"N", 1 << 16, 1, 1 << 26, "floats per buffer"},
		{"STEPS", 2000, 0, 1000000,
		 "fmaf steps per element in each blocking-stream kernel"},
	};
	parse_args(argc, argv, "Legacy default-stream work between two blocking streams.", a, 3);
	const long iterations = a[0].value, n = a[1].value, steps = a[2].value;
	const size_t bytes = (size_t)n * sizeof(float);
	float *h, *d_out, *d_y1, *d_y2, table[AFFINE_VALUES];
	cudaStream_t s1, s2;
	long bad;

	if (steps * iterations > 100000000L) {
		fprintf(stderr, "default_stream: STEPS x ITERATIONS is over 10^8\n");
		return 2;
	}
	h = (float *)malloc(bytes);
	if (!h) {
		fprintf(stderr, "default_stream: out of host memory\n");
		return 1;
	}
	fill_inputs(h, n, 0);
	CHECK(cudaStreamCreate(&s1));
	CHECK(cudaStreamCreate(&s2));
	CHECK(cudaMalloc(&d_out, bytes));
	CHECK(cudaMalloc(&d_y1, bytes));
	CHECK(cudaMalloc(&d_y2, bytes));
	CHECK(cudaMemcpy(d_out, h, bytes, cudaMemcpyHostToDevice));

	for (long i = 0; i < iterations; i++) {
		iterate_affine<<<grid_for(n, 256), 256, 0, s1>>>(d_out, d_y1, (int)n, (int)steps);
		CHECK_LAUNCH();
		iterate_affine<<<grid_for(n, 256), 256, 0, s2>>>(d_out, d_y2, (int)n, (int)steps);
		CHECK_LAUNCH();
		average<<<grid_for(n, 256), 256>>>(d_y1, d_y2, d_out, (int)n);
		CHECK_LAUNCH();
	}
	CHECK(cudaMemcpy(h, d_out, bytes, cudaMemcpyDeviceToHost));

	/* y1 == y2, so average() returns it exactly: out = f^(STEPS x ITERATIONS). */
	affine_table(table, steps * iterations);
	bad = check_outputs("default_stream", h, n, 0, table);
	CHECK(cudaStreamDestroy(s1));
	CHECK(cudaStreamDestroy(s2));
	CHECK(cudaFree(d_out));
	CHECK(cudaFree(d_y1));
	CHECK(cudaFree(d_y2));
	free(h);
	if (bad) {
		fprintf(stderr, "default_stream: %ld wrong results\n", bad);
		return 1;
	}
	printf("default_stream ok: %ld iterations of %ld floats\n", iterations, n);
	return 0;
}
