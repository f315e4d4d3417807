// SPDX-License-Identifier: MIT
/*
 * graph_replay: the forward pass of a small MLP, 9 layers of linear
 * (y = W x, one thread per output) and bias_relu: a fixed sequence of 18
 * small kernels, each layer with its own grid (the weights are filled on the
 * device first, one init_layer kernel per layer). It runs REPS times launched
 * directly on stream sd, then is captured once on stream sg into a CUDA
 * Graph (cudaStreamBeginCapture / cudaStreamEndCapture / cudaGraphInstantiate)
 * and replayed REPS times with cudaGraphLaunch on sg. The outputs of both are
 * checked against a host reference computed in the same order (bit-equal).
 *
 * What `gpuscope analyze` should find in its trace:
 * - a CUDA Graph candidate on sd: the 18-kernel sequence repeated REPS times,
 *   with launch gaps between its kernels (each launch costs the host more
 *   than the small kernels take to run), not launched from a graph;
 * - on sg the same sequence marked already_graph (kernels with a graph id,
 *   sharing the correlation id of their cudaGraphLaunch), with small gaps;
 * - idle time between the direct launches attributed to the host
 *   (host_bound / launch latency); the capture's launch calls have no ops.
 *
 *   graph_replay [REPS]
 */
#include "common.cuh"

#define LAYERS 9
#define BLOCK 64
static const int width[LAYERS + 1] = {1024, 896, 768, 640, 512, 384, 256, 192, 128, 64};

/* Weights and biases, the same on the host and the device (exact in float). */
static __host__ __device__ float weight(int layer, int in, int k, int j)
{
	return (float)(((k * 31 + j * 17 + layer * 7) % 64) - 31) / (32.0f * (float)in);
}

static __host__ __device__ float bias(int j)
{
	return (float)(j % 5) / 64.0f;
}

/* Fills one layer's weights (stored by columns: w[k * out + j]) and biases. */
__global__ void init_layer(float *w, float *b, int layer, int in, int out)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < (size_t)in * out)
		w[i] = weight(layer, in, (int)(i / out), (int)(i % out));
	if (i < (size_t)out)
		b[i] = bias((int)i);
}

/* W is stored by columns so that a warp reads it coalesced. */
__global__ void linear(const float *w, const float *x, float *y, int in, int out)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < out) {
		float acc = 0.0f;

		for (int k = 0; k < in; k++)
			acc = fmaf(w[(size_t)k * out + j], x[k], acc);
		y[j] = acc;
	}
}

__global__ void bias_relu(float *y, const float *b, int out)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;

	if (j < out)
		y[j] = fmaxf(y[j] + b[j], 0.0f);
}

static void forward(cudaStream_t s, float *const *w, float *const *b, float *const *act)
{
	for (int l = 0; l < LAYERS; l++) {
		linear<<<grid_for(width[l + 1], BLOCK), BLOCK, 0, s>>>(w[l], act[l], act[l + 1],
								       width[l], width[l + 1]);
		CHECK_LAUNCH();
		bias_relu<<<grid_for(width[l + 1], BLOCK), BLOCK, 0, s>>>(act[l + 1], b[l],
									  width[l + 1]);
		CHECK_LAUNCH();
	}
}

int main(int argc, char **argv)
{
	struct prog_arg a[] = {
		{"REPS", 20, 1, 100000, "forward passes launched directly, then as a graph"},
	};
	parse_args(argc, argv, "An 18-kernel sequence launched directly, then as a CUDA Graph.", a,
		   1);
	const long reps = a[0].value;
	const int out = width[LAYERS];
	float *w[LAYERS], *b[LAYERS], *act[LAYERS + 1], *ref[LAYERS + 1];
	float *h_in, *h_direct, *h_graph;
	cudaStream_t sd, sg;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	long bad = 0;

	CHECK(cudaStreamCreateWithFlags(&sd, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&sg, cudaStreamNonBlocking));
	CHECK(cudaMallocHost(&h_in, width[0] * sizeof(float)));
	CHECK(cudaMallocHost(&h_direct, out * sizeof(float)));
	CHECK(cudaMallocHost(&h_graph, out * sizeof(float)));
	for (int l = 0; l <= LAYERS; l++) {
		ref[l] = (float *)malloc(width[l] * sizeof(float));
		if (!ref[l]) {
			fprintf(stderr, "graph_replay: out of host memory\n");
			return 1;
		}
		CHECK(cudaMalloc(&act[l], width[l] * sizeof(float)));
	}
	for (int l = 0; l < LAYERS; l++) {
		CHECK(cudaMalloc(&w[l], (size_t)width[l] * width[l + 1] * sizeof(float)));
		CHECK(cudaMalloc(&b[l], width[l + 1] * sizeof(float)));
	}
	for (int l = 0; l < LAYERS; l++) {
		init_layer<<<grid_for((long)width[l] * width[l + 1], 256), 256, 0, sd>>>(
			w[l], b[l], l, width[l], width[l + 1]);
		CHECK_LAUNCH();
	}
	for (int k = 0; k < width[0]; k++)
		h_in[k] = ref[0][k] = affine_input(k, 0) - 2.0f;
	CHECK(cudaMemcpyAsync(act[0], h_in, width[0] * sizeof(float), cudaMemcpyHostToDevice, sd));

	/* Direct launches. */
	for (long r = 0; r < reps; r++)
		forward(sd, w, b, act);
	CHECK(cudaMemcpyAsync(h_direct, act[LAYERS], out * sizeof(float), cudaMemcpyDeviceToHost,
			      sd));
	CHECK(cudaStreamSynchronize(sd));

	/* The same sequence captured once and replayed. */
	CHECK(cudaStreamBeginCapture(sg, cudaStreamCaptureModeGlobal));
	forward(sg, w, b, act);
	CHECK(cudaStreamEndCapture(sg, &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	for (long r = 0; r < reps; r++)
		CHECK(cudaGraphLaunch(exec, sg));
	CHECK(cudaMemcpyAsync(h_graph, act[LAYERS], out * sizeof(float), cudaMemcpyDeviceToHost,
			      sg));
	CHECK(cudaStreamSynchronize(sg));

	/* The host reference, in the kernels' order of operations. */
	for (int l = 0; l < LAYERS; l++) {
		for (int j = 0; j < width[l + 1]; j++) {
			float acc = 0.0f;

			for (int k = 0; k < width[l]; k++)
				acc = fmaf(weight(l, width[l], k, j), ref[l][k], acc);
			ref[l + 1][j] = fmaxf(acc + bias(j), 0.0f);
		}
	}
	for (int j = 0; j < out; j++) {
		if (h_direct[j] != ref[LAYERS][j] || h_graph[j] != ref[LAYERS][j]) {
			if (!bad)
				fprintf(stderr,
					"graph_replay: output %d: direct %.9g, graph %.9g, want "
					"%.9g\n",
					j, (double)h_direct[j], (double)h_graph[j],
					(double)ref[LAYERS][j]);
			bad++;
		}
	}
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));
	for (int l = 0; l < LAYERS; l++) {
		CHECK(cudaFree(w[l]));
		CHECK(cudaFree(b[l]));
	}
	for (int l = 0; l <= LAYERS; l++) {
		CHECK(cudaFree(act[l]));
		free(ref[l]);
	}
	CHECK(cudaFreeHost(h_in));
	CHECK(cudaFreeHost(h_direct));
	CHECK(cudaFreeHost(h_graph));
	CHECK(cudaStreamDestroy(sd));
	CHECK(cudaStreamDestroy(sg));
	if (bad) {
		fprintf(stderr, "graph_replay: %ld wrong outputs\n", bad);
		return 1;
	}
	printf("graph_replay ok: %ld direct and %ld graph forward passes of %d kernels\n", reps,
	       reps, 2 * LAYERS);
	return 0;
}
