/* SPDX-License-Identifier: MIT */
/* The driver test double (see cuda_double.h). */
#include "cuda_double.h"

#include <cuda.h>
#include <pthread.h>
#include <stdint.h>

#define MAX_KERNELS 16
#define MAX_PARAMS 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	const void *handle;
	unsigned n;
	size_t size[MAX_PARAMS];
} kernels[MAX_KERNELS];
static unsigned nkernels;
static unsigned calls;

void gsd_cuda_set_params(const void *handle, unsigned n, const size_t *sizes)
{
	pthread_mutex_lock(&lock);
	if (nkernels < MAX_KERNELS && n <= MAX_PARAMS) {
		kernels[nkernels].handle = handle;
		kernels[nkernels].n = n;
		for (unsigned i = 0; i < n; i++)
			kernels[nkernels].size[i] = sizes[i];
		nkernels++;
	}
	pthread_mutex_unlock(&lock);
}

unsigned gsd_cuda_param_info_calls(void)
{
	unsigned n;

	pthread_mutex_lock(&lock);
	n = calls;
	pthread_mutex_unlock(&lock);
	return n;
}

static CUresult param_info(const void *handle, size_t index, size_t *offset, size_t *size)
{
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	size_t off = 0;

	pthread_mutex_lock(&lock);
	calls++;
	for (unsigned k = 0; k < nkernels; k++) {
		if (kernels[k].handle != handle)
			continue;
		if (index < kernels[k].n) {
			for (size_t i = 0; i < index; i++)
				off += (kernels[k].size[i] + 7) & ~(size_t)7;
			*offset = off;
			*size = kernels[k].size[index];
			r = CUDA_SUCCESS;
		}
		break;
	}
	pthread_mutex_unlock(&lock);
	return r;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	*driverVersion = 13000;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
				      size_t *paramSize)
{
	return param_info((const void *)kernel, paramIndex, paramOffset, paramSize);
}

CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
				    size_t *paramSize)
{
	return param_info((const void *)func, paramIndex, paramOffset, paramSize);
}
