// SPDX-License-Identifier: MIT
/*
 * event_chain: a producer / consumer / reducer pipeline on three non-blocking
 * streams joined only by events (cudaEventRecord + cudaStreamWaitEvent). Two
 * buffer slots let iteration i+1 be produced while iteration i is consumed:
 *
 *   stream P:  [wait consumed[k]]  produce a[k]                 record produced[k]
 *   stream C:  wait produced[k]  [wait reduced[k]]  consume a[k] -> b[k]
 *                                                               record consumed[k]
 *   stream R:  wait consumed[k]  reduce_sum b[k] -> sums[i]     record reduced[k]
 *
 * with k = i % 2 and the bracketed waits from i = 2 on (a slot is reused only
 * once its previous reader is done). Then sums is copied back on R, R is
 * synchronized, and every sum is checked on the host.
 *
 * What `gpuscope analyze` should find in its trace:
 * - three non-blocking streams, event records and stream waits joined by
 *   their cudaEventSyncId;
 * - event edges: produce -> consume and consume -> reduce each iteration,
 *   and the slot-reuse edges consume -> produce, reduce -> consume;
 * - waits of kind event: the reducer and the producer wait for the consumer,
 *   the longest kernel of the three;
 * - kernel concurrency: produce (i+1) and reduce (i-1) run beside consume (i).
 *
 *   event_chain [ITERATIONS [N [STEPS]]]
 */
#include "common.cuh"

__global__ void produce(float *a, int n, int salt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = affine_input(i, salt);
}

/* One block: every thread sums a strided part, then a tree in shared memory. */
__global__ void reduce_sum(const float *b, int n, float *out)
{
	__shared__ float part[1024];
	float acc = 0.0f;

	for (int i = threadIdx.x; i < n; i += blockDim.x)
		acc += b[i];
	part[threadIdx.x] = acc;
	__syncthreads();
	for (int w = blockDim.x / 2; w > 0; w /= 2) {
		if ((int)threadIdx.x < w)
			part[threadIdx.x] += part[threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*out = part[0];
}

int main(int argc, char **argv)
{
	struct prog_arg a[] = {
		{"ITERATIONS", 16, 1, 100000, "pipeline iterations"},
		{"N", 1 << 20, 1, 1 << 26, "floats per buffer"},
		{"STEPS", 1000, 0, 1000000, "fmaf steps per element in the consumer"},
	};
	parse_args(argc, argv, "Producer, consumer and reducer on three streams joined by events.",
		   a, 3);
	const long iterations = a[0].value, n = a[1].value, steps = a[2].value;
	const size_t bytes = (size_t)n * sizeof(float);
	float *d_a[2], *d_b[2], *d_sums, *h_sums, table[AFFINE_VALUES];
	cudaStream_t sp, sc, sr;
	cudaEvent_t produced[2], consumed[2], reduced[2];
	long bad = 0;

	CHECK(cudaStreamCreateWithFlags(&sp, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&sc, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&sr, cudaStreamNonBlocking));
	for (int k = 0; k < 2; k++) {
		CHECK(cudaMalloc(&d_a[k], bytes));
		CHECK(cudaMalloc(&d_b[k], bytes));
		CHECK(cudaEventCreateWithFlags(&produced[k], cudaEventDisableTiming));
		CHECK(cudaEventCreateWithFlags(&consumed[k], cudaEventDisableTiming));
		CHECK(cudaEventCreateWithFlags(&reduced[k], cudaEventDisableTiming));
	}
	CHECK(cudaMalloc(&d_sums, iterations * sizeof(float)));
	CHECK(cudaMallocHost(&h_sums, iterations * sizeof(float)));
	CHECK(cudaMemsetAsync(d_sums, 0, iterations * sizeof(float), sr));

	for (long i = 0; i < iterations; i++) {
		int k = (int)(i % 2);

		if (i >= 2)
			CHECK(cudaStreamWaitEvent(sp, consumed[k], 0));
		produce<<<grid_for(n, 256), 256, 0, sp>>>(d_a[k], (int)n, (int)i);
		CHECK_LAUNCH();
		CHECK(cudaEventRecord(produced[k], sp));

		CHECK(cudaStreamWaitEvent(sc, produced[k], 0));
		if (i >= 2)
			CHECK(cudaStreamWaitEvent(sc, reduced[k], 0));
		iterate_affine<<<grid_for(n, 256), 256, 0, sc>>>(d_a[k], d_b[k], (int)n,
								 (int)steps);
		CHECK_LAUNCH();
		CHECK(cudaEventRecord(consumed[k], sc));

		CHECK(cudaStreamWaitEvent(sr, consumed[k], 0));
		reduce_sum<<<1, 1024, 0, sr>>>(d_b[k], (int)n, d_sums + i);
		CHECK_LAUNCH();
		CHECK(cudaEventRecord(reduced[k], sr));
	}
	CHECK(cudaMemcpyAsync(h_sums, d_sums, iterations * sizeof(float), cudaMemcpyDeviceToHost,
			      sr));
	CHECK(cudaStreamSynchronize(sr));

	/* The sums in double on the host; the device's float sums in another
	 * order agree to a relative 1e-4. */
	affine_table(table, steps);
	for (long i = 0; i < iterations; i++) {
		double want = 0.0;

		for (long j = 0; j < n; j++)
			want += table[(j + i) % AFFINE_VALUES];
		if (fabs(h_sums[i] - want) > 1e-4 * fabs(want) + 1e-3) {
			if (!bad)
				fprintf(stderr, "event_chain: sum %ld is %.9g, want %.9g\n", i,
					(double)h_sums[i], want);
			bad++;
		}
	}
	for (int k = 0; k < 2; k++) {
		CHECK(cudaEventDestroy(produced[k]));
		CHECK(cudaEventDestroy(consumed[k]));
		CHECK(cudaEventDestroy(reduced[k]));
		CHECK(cudaFree(d_a[k]));
		CHECK(cudaFree(d_b[k]));
	}
	CHECK(cudaFree(d_sums));
	CHECK(cudaFreeHost(h_sums));
	CHECK(cudaStreamDestroy(sp));
	CHECK(cudaStreamDestroy(sc));
	CHECK(cudaStreamDestroy(sr));
	if (bad) {
		fprintf(stderr, "event_chain: %ld wrong sums\n", bad);
		return 1;
	}
	printf("event_chain ok: %ld iterations of %ld floats\n", iterations, n);
	return 0;
}
