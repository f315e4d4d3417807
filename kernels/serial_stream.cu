// SPDX-License-Identifier: MIT
/*
 * serial_stream: batches copied in, computed and copied out on ONE stream
 * (pinned host memory, cudaMemcpyAsync), the "serial" case of docs/design.md, Example 2:
 *
 *   for each batch b:   H2D x[b] -> iterate_affine -> D2H y[b]     (stream s)
 *   cudaStreamSynchronize(s), then every result is checked on the host.
 *
 * Ops of one stream never overlap, so nothing hides anything.
 *
 * What `gpuscope analyze` should find in its trace:
 * - one non-blocking stream; copy time mostly exposed (little hidden);
 * - missed overlap: the copy-in of batch b+1 could have run under the kernel
 *   of batch b; the missing condition is concurrent_resources (one stream);
 *   pinned_memory and independent hold;
 * - the pipelined_batches what-if: BATCHES batches and a large saving with no
 *   precondition (the host memory is pinned already);
 * - only stream_order edges (nothing is launched after the final synchronize).
 *
 *   serial_stream [BATCHES [N [ITERS]]]
 */
#include "common.cuh"

int main(int argc, char **argv)
{
	struct prog_arg a[] = {
		{"BATCHES", 8, 1, 4096, "batches"},
		{"N", 1 << 20, 1, 1 << 26, "floats per batch"},
		{"ITERS", 1000, 0, 1000000, "fmaf steps per element in the kernel"},
	};
	parse_args(argc, argv, "Batches copied in, computed and copied out on one stream.", a, 3);
	const long batches = a[0].value, n = a[1].value, iters = a[2].value;
	const size_t bytes = (size_t)n * sizeof(float);
	float *h_x, *h_y, *d_x, *d_y, table[AFFINE_VALUES];
	cudaStream_t s;
	long bad = 0;

	if (batches * n > (1L << 28)) {
		fprintf(stderr, "serial_stream: BATCHES x N is over 2^28 floats\n");
		return 2;
	}
	CHECK(cudaMallocHost(&h_x, batches * bytes));
	CHECK(cudaMallocHost(&h_y, batches * bytes));
	CHECK(cudaMalloc(&d_x, bytes));
	CHECK(cudaMalloc(&d_y, bytes));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	for (long b = 0; b < batches; b++)
		fill_inputs(h_x + b * n, n, b);

	for (long b = 0; b < batches; b++) {
		CHECK(cudaMemcpyAsync(d_x, h_x + b * n, bytes, cudaMemcpyHostToDevice, s));
		iterate_affine<<<grid_for(n, 256), 256, 0, s>>>(d_x, d_y, (int)n, (int)iters);
		CHECK_LAUNCH();
		CHECK(cudaMemcpyAsync(h_y + b * n, d_y, bytes, cudaMemcpyDeviceToHost, s));
	}
	CHECK(cudaStreamSynchronize(s));

	affine_table(table, iters);
	for (long b = 0; b < batches; b++)
		bad += check_outputs("serial_stream", h_y + b * n, n, b, table);
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d_x));
	CHECK(cudaFree(d_y));
	CHECK(cudaFreeHost(h_x));
	CHECK(cudaFreeHost(h_y));
	if (bad) {
		fprintf(stderr, "serial_stream: %ld wrong results\n", bad);
		return 1;
	}
	printf("serial_stream ok: %ld batches of %ld floats, %ld steps\n", batches, n, iters);
	return 0;
}
