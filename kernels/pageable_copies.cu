// SPDX-License-Identifier: MIT
/*
 * pageable_copies: pipelined_streams with PAGEABLE host buffers (malloc).
 * The code is the same, but cudaMemcpyAsync from or to pageable memory is
 * staged through a driver buffer and does not return before the copy (for
 * device-to-host) or most of it (host-to-device) is done, so the host cannot
 * queue the next batch while one is copied: the overlap is lost.
 *
 *   for each batch b:   H2D x[b] -> iterate_affine -> D2H y[b]   (stream b % S)
 *   cudaDeviceSynchronize(), then every result is checked on the host.
 *
 * What `gpuscope analyze` should find in its trace:
 * - copies with pageable host memory (Memcpy HtoD (Pageable -> Device), ...),
 *   longer than the pinned ones and mostly exposed;
 * - sync_copy edges: each copy holds back what the host launches after it;
 * - missed overlap with pinned_memory missing;
 * - the pipelined_batches what-if with the precondition pinned_memory.
 *
 *   pageable_copies [BATCHES [STREAMS [N [ITERS]]]]
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
	parse_args(argc, argv, "pipelined_streams with pageable (malloc) host buffers.", a, 4);
	const long batches = a[0].value, nstreams = a[1].value, n = a[2].value, iters = a[3].value;
	const size_t bytes = (size_t)n * sizeof(float);
	float *h_x, *h_y, *d_x[MAX_STREAMS], *d_y[MAX_STREAMS], table[AFFINE_VALUES];
	cudaStream_t s[MAX_STREAMS];
	long bad = 0;

	if (batches * n > (1L << 28)) {
		fprintf(stderr, "pageable_copies: BATCHES x N is over 2^28 floats\n");
		return 2;
	}
	h_x = (float *)malloc(batches * bytes);
	h_y = (float *)malloc(batches * bytes);
	if (!h_x || !h_y) {
		fprintf(stderr, "pageable_copies: out of host memory\n");
		return 1;
	}
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
		bad += check_outputs("pageable_copies", h_y + b * n, n, b, table);
	for (long k = 0; k < nstreams; k++) {
		CHECK(cudaStreamDestroy(s[k]));
		CHECK(cudaFree(d_x[k]));
		CHECK(cudaFree(d_y[k]));
	}
	free(h_x);
	free(h_y);
	if (bad) {
		fprintf(stderr, "pageable_copies: %ld wrong results\n", bad);
		return 1;
	}
	printf("pageable_copies ok: %ld batches of %ld floats over %ld streams\n", batches, n,
	       nstreams);
	return 0;
}
