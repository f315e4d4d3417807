/* SPDX-License-Identifier: MIT */
/* The driver test double (see cuda_double.h). */
#include "cuda_double.h"

#include "cupti_double.h"

#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

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
static uint64_t last_call_seq;
static unsigned calls_in_callback;
static atomic_uint runtime_version_calls;

unsigned gsd_cuda_runtime_version_calls(void)
{
	return atomic_load(&runtime_version_calls);
}

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

unsigned gsd_cuda_param_info_calls_in_callback(void)
{
	unsigned n;

	pthread_mutex_lock(&lock);
	n = calls_in_callback;
	pthread_mutex_unlock(&lock);
	return n;
}

unsigned gsd_cuda_param_info_calls(void)
{
	unsigned n;

	pthread_mutex_lock(&lock);
	n = calls;
	pthread_mutex_unlock(&lock);
	return n;
}

uint64_t gsd_cuda_param_info_last_seq(void)
{
	uint64_t n;

	pthread_mutex_lock(&lock);
	n = last_call_seq;
	pthread_mutex_unlock(&lock);
	return n;
}

static CUresult param_info(const void *handle, size_t index, size_t *offset, size_t *size)
{
	CUresult r = CUDA_ERROR_INVALID_VALUE;
	size_t off = 0;

	pthread_mutex_lock(&lock);
	calls++;
	last_call_seq = gsd_next_seq();
	if (gsd_in_callback())
		calls_in_callback++;
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

/* An API call CUPTI records: its activity record, made on this thread. */
static void api_record(CUpti_ActivityKind kind, CUpti_CallbackId cbid)
{
	static atomic_uint corr = 0x70000000u;
	CUpti_ActivityAPI a;

	memset(&a, 0, sizeof(a));
	a.kind = kind;
	a.cbid = cbid;
	a.correlationId = atomic_fetch_add(&corr, 1);
	cuptiGetTimestamp(&a.start);
	a.end = a.start + 1;
	gsd_emit(&a); /* threadId 0: the double puts this thread's id in */
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	api_record(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion);
	*driverVersion = 13000;
	return CUDA_SUCCESS;
}

/* The program's runtime (found with dlsym(RTLD_DEFAULT)): a public API
 * call, recorded by CUPTI like any other. */
cudaError_t CUDARTAPI cudaRuntimeGetVersion(int *runtimeVersion)
{
	api_record(CUPTI_ACTIVITY_KIND_RUNTIME,
		   CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020);
	atomic_fetch_add(&runtime_version_calls, 1);
	*runtimeVersion = 13000;
	return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
					   size_t *paramSize)
{
	return param_info(func, paramIndex, paramOffset, paramSize) == CUDA_SUCCESS ?
		       cudaSuccess :
		       cudaErrorInvalidValue;
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
