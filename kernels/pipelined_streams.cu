// SPDX-License-Identifier: MIT
/*
 * pipelined_streams: the batches of serial_stream spread over STREAMS
 * non-blocking streams (batch b on stream b % STREAMS, its own device
 * buffers per stream), pinned host memory, cudaMemcpyAsync:
 *
 *   for each batch b:   H2D x[b] -> iterate_affine -> D2H y[b]   (stream b % S)
 *   cudaDeviceSynchronize(), then every result is checked on the host.
 *
 * One batch's copies run under another batch's kernel, and copies in opposite
 * directions run at once on the two copy directions.
 *
 * What `gpuscope analyze` should find in its trace:
 * - STREAMS non-blocking streams; much of the copy time hidden under kernels;
 * - efficiency near 1: the ideal schedule is hardly shorter than the actual
 *   one (the copy-in engine is the bottleneck: copies bound by copy_engine);
 * - the pipelined_batches what-if saves little: the program already does it;
 * - few or no missed overlaps, none missing pinned_memory;
 * - only stream_order edges (nothing is launched after the final synchronize).
 *
 *   pipelined_streams [BATCHES [STREAMS [N [ITERS]]]]
 */
#include "common.cuh"

#define MAX_STREAMS 64

int main(int argc, char **argv)
{
	struct prog_arg a[] = {
		{"BATCHES", 8, 1, 4096, "batches"},
		{"STREAMS", 4, 1, MAX_STREAMS, "streams the batches go round"},
		{"N", 1 << 20, 1, 1 << 26, "floats per batch"},
		{"ITERS", 1000, 0, 1000000, "fmaf steps per element in the kernel"},
	};
	parse_args(argc, argv, "The batches of serial_stream over several streams, pinned memory.",
		   a, 4);
	const long batches = a[0].value, nstreams = a[1].value, n = a[2].value, iters = a[3].value;
	const size_t bytes = (size_t)n * sizeof(float);
	float *h_x, *h_y, *d_x[MAX_STREAMS], *d_y[MAX_STREAMS], table[AFFINE_VALUES];
	cudaStream_t s[MAX_STREAMS];
	long bad = 0;

	if (batches * n > (1L << 28)) {
		fprintf(stderr, "pipelined_streams: BATCHES x N is over 2^28 floats\n");
		return 2;
	}
	CHECK(cudaMallocHost(&h_x, batches * bytes));
	CHECK(cudaMallocHost(&h_y, batches * bytes));
	for (long k = 0; k < nstreams; k++) {
		CHECK(cudaMalloc(&d_x[k], bytes));
		CHECK(cudaMalloc(&d_y[k], bytes));
		CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
	}
	for (long b = 0; b < batches; b++)
		fill_inputs(h_x + b * n, n, b);

	for (long b = 0; b < batches; b++) {
		long k = b % nstreams;

		CHECK(cudaMemcpyAsync(d_x[k], h_x + b * n, bytes, cudaMemcpyHostToDevice, s[k]));
		iterate_affine<<<grid_for(n, 256), 256, 0, s[k]>>>(d_x[k], d_y[k], (int)n,
								   (int)iters);
		CHECK_LAUNCH();
		CHECK(cudaMemcpyAsync(h_y + b * n, d_y[k], bytes, cudaMemcpyDeviceToHost, s[k]));
	}
	CHECK(cudaDeviceSynchronize());

	affine_table(table, iters);
	for (long b = 0; b < batches; b++)
		bad += check_outputs("pipelined_streams", h_y + b * n, n, b, table);
	for (long k = 0; k < nstreams; k++) {
		CHECK(cudaStreamDestroy(s[k]));
		CHECK(cudaFree(d_x[k]));
		CHECK(cudaFree(d_y[k]));
	}
	CHECK(cudaFreeHost(h_x));
	CHECK(cudaFreeHost(h_y));
	if (bad) {
		fprintf(stderr, "pipelined_streams: %ld wrong results\n", bad);
		return 1;
	}
	printf("pipelined_streams ok: %ld batches of %ld floats over %ld streams\n", batches, n,
	       nstreams);
	return 0;
}
