// SPDX-License-Identifier: MIT
/*
 * Shared by the kernels/ pattern programs: the CHECK macro, positional
 * arguments with defaults and bounds, and the verified workload most of
 * them run.
 *
 * The workload: y[i] = f^iters(x[i]) with f(v) = fmaf(v, 0.999f, 0.001f),
 * one thread per element. The inputs take 256 distinct values (x[i] =
 * ((i + salt) % 256) / 64), so the host checks every element exactly
 * against a table of 256 results computed with the same fmaf chain (fmaf
 * rounds once on the host and on the device: the results are bit-equal).
 */
#ifndef GS_KERNELS_COMMON_CUH
#define GS_KERNELS_COMMON_CUH

#include <cuda_runtime.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every CUDA call: on failure print file:line, the call and the error, exit 1. */
#define CHECK(call)                                                                                \
	do {                                                                                       \
		cudaError_t check_err_ = (call);                                                   \
		if (check_err_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
				cudaGetErrorString(check_err_));                                   \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* After a <<<>>> launch: a bad configuration is reported here, not later. */
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

#define AFFINE_VALUES 256

/* One positional argument: its value, bounds and meaning for the usage. */
struct prog_arg {
	const char *name;
	long value; /* the default, replaced by the argument when given */
	long min;
	long max;
	const char *help;
};

static inline void usage(FILE *f, const char *prog, const char *what, const struct prog_arg *a,
			 int n)
{
	fprintf(f, "usage: %s", prog);
	for (int i = 0; i < n; i++)
		fprintf(f, " [%s", a[i].name);
	for (int i = 0; i < n; i++)
		fputc(']', f);
	fprintf(f, "\n%s\n", what);
	for (int i = 0; i < n; i++)
		fprintf(f, "  %-8s %s (default %ld, %ld..%ld)\n", a[i].name, a[i].help, a[i].value,
			a[i].min, a[i].max);
}

/* Positional arguments in order; -h prints the usage. Bad input: exit 2. */
static inline void parse_args(int argc, char **argv, const char *what, struct prog_arg *a, int n)
{
	const char *prog = argc > 0 ? argv[0] : "program";

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout, prog, what, a, n);
		exit(0);
	}
	if (argc - 1 > n) {
		fprintf(stderr, "%s: too many arguments\n", prog);
		usage(stderr, prog, what, a, n);
		exit(2);
	}
	for (int i = 1; i < argc; i++) {
		char *end;
		long v;

		errno = 0;
		v = strtol(argv[i], &end, 10);
		if (errno || end == argv[i] || *end || v < a[i - 1].min || v > a[i - 1].max) {
			fprintf(stderr, "%s: %s must be an integer in %ld..%ld, not '%s'\n", prog,
				a[i - 1].name, a[i - 1].min, a[i - 1].max, argv[i]);
			exit(2);
		}
		a[i - 1].value = v;
	}
}

static inline __host__ __device__ float affine_input(long i, long salt)
{
	return (float)((i + salt) % AFFINE_VALUES) / 64.0f;
}

/* y[i] = f^iters(x[i]); x and y may be the same buffer. */
__global__ void iterate_affine(const float *x, float *y, int n, int iters)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n) {
		float v = x[i];

		for (int k = 0; k < iters; k++)
			v = fmaf(v, 0.999f, 0.001f);
		y[i] = v;
	}
}

static inline float host_affine(float v, long iters)
{
	for (long k = 0; k < iters; k++)
		v = fmaf(v, 0.999f, 0.001f);
	return v;
}

/* table[j] = f^iters(j / 64) for the AFFINE_VALUES inputs. */
static inline void affine_table(float *table, long iters)
{
	for (int j = 0; j < AFFINE_VALUES; j++)
		table[j] = host_affine((float)j / 64.0f, iters);
}

static inline void fill_inputs(float *x, long n, long salt)
{
	for (long i = 0; i < n; i++)
		x[i] = affine_input(i, salt);
}

/* Count the elements of y that differ from the table; print the first. */
static inline long check_outputs(const char *what, const float *y, long n, long salt,
				 const float *table)
{
	long bad = 0;

	for (long i = 0; i < n; i++) {
		float want = table[(i + salt) % AFFINE_VALUES];

		if (y[i] != want) {
			if (!bad)
				fprintf(stderr, "%s: element %ld is %.9g, want %.9g\n", what, i,
					(double)y[i], (double)want);
			bad++;
		}
	}
	return bad;
}

static inline unsigned grid_for(long n, unsigned block)
{
	return (unsigned)((n + block - 1) / block);
}

#endif /* GS_KERNELS_COMMON_CUH */
