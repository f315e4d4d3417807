// SPDX-License-Identifier: MIT
// Kernels whose parameter layouts test_elfcuda reads back from the cubin
// nvcc makes of this file (when nvcc is found at configure time).
struct pair {
	float *p;
	int n;
};

__global__ void k_mixed(float *x, const int *y, pair s, double d, char c, float *z)
{
	z[0] = x[0] + y[0] + s.p[s.n] + (float)d + c;
}

__global__ void k_none()
{
}
