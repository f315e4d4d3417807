// SPDX-License-Identifier: MIT
/*
 * host_sync_loop: an iterative solver shape with a cudaStreamSynchronize in
 * every iteration. Each iteration updates the array in place on one stream,
 * copies one element back (4 bytes, pinned) and synchronizes so that the
 * host can check it before it launches the next step:
 *
 *   loop:  iterate_affine x -> x;  D2H x[probe];  cudaStreamSynchronize;
 *          host checks the probe
 *
 * What `gpuscope analyze` should find in its trace:
 * - one stream; a stream_sync per iteration, each with its thread id;
 * - host_sync edges: every kernel after the first waits for the host sync
 *   that followed the previous iteration's copy;
 * - sync time (the device idle while the host is blocked in
 *   cudaStreamSynchronize) and host-bound idle between the iterations: the
 *   device waits for the host to launch again;
 * - sync attribution: cudaStreamSynchronize.
 *
 *   host_sync_loop [ITERATIONS [N [STEPS]]]
 */
#include "common.cuh"

int main(int argc, char **argv)
{
	struct prog_arg a[] = {
		{"ITERATIONS", 50, 1, 1000000, "iterations (one synchronize each)"},
		{"N", 1 << 18, 1, 1 << 26, "floats in the array"},
		{"STEPS", 250, 0, 1000000, "fmaf steps per element per iteration"},
	};
	parse_args(argc, argv, "An update loop with a cudaStreamSynchronize in every iteration.", a,
		   3);
	const long iterations = a[0].value, n = a[1].value, steps = a[2].value;
	const size_t bytes = (size_t)n * sizeof(float);
	const long probe = n / 2;
	float *h, *h_probe, *d_x, expect, table[AFFINE_VALUES];
	cudaStream_t s;
	long bad = 0;

	if (steps * iterations > 100000000L) {
		fprintf(stderr, "host_sync_loop: STEPS x ITERATIONS is over 10^8\n");
		return 2;
	}
	CHECK(cudaMallocHost(&h, bytes));
	CHECK(cudaMallocHost(&h_probe, sizeof(float)));
	CHECK(cudaMalloc(&d_x, bytes));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	fill_inputs(h, n, 0);
	CHECK(cudaMemcpyAsync(d_x, h, bytes, cudaMemcpyHostToDevice, s));

	expect = affine_input(probe, 0);
	for (long i = 0; i < iterations; i++) {
		iterate_affine<<<grid_for(n, 256), 256, 0, s>>>(d_x, d_x, (int)n, (int)steps);
		CHECK_LAUNCH();
		CHECK(cudaMemcpyAsync(h_probe, d_x + probe, sizeof(float), cudaMemcpyDeviceToHost,
				      s));
		CHECK(cudaStreamSynchronize(s));
		/* The host needs this value before it goes on: the sync is the point. */
		expect = host_affine(expect, steps);
		if (*h_probe != expect) {
			fprintf(stderr, "host_sync_loop: iteration %ld: probe %.9g, want %.9g\n", i,
				(double)*h_probe, (double)expect);
			return 1;
		}
	}
	CHECK(cudaMemcpyAsync(h, d_x, bytes, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));

	affine_table(table, steps * iterations);
	bad = check_outputs("host_sync_loop", h, n, 0, table);
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFree(d_x));
	CHECK(cudaFreeHost(h));
	CHECK(cudaFreeHost(h_probe));
	if (bad) {
		fprintf(stderr, "host_sync_loop: %ld wrong results\n", bad);
		return 1;
	}
	printf("host_sync_loop ok: %ld iterations of %ld floats\n", iterations, n);
	return 0;
}
