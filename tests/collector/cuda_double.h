/* SPDX-License-Identifier: MIT */
/*
 * A driver test double: libcuda.so.1 (by SONAME) with the few driver entry
 * points the collector looks up with dlsym(dlopen("libcuda.so.1",
 * RTLD_NOLOAD)): cuDriverGetVersion, cuKernelGetParamInfo,
 * cuFuncGetParamInfo. A test linked with it has it loaded, so the
 * collector finds it as it would find the real driver. It also stands in
 * for the program's runtime, which the collector finds with
 * dlsym(RTLD_DEFAULT): cudaRuntimeGetVersion, cudaFuncGetParamInfo (the
 * host-stub pointer a cudaLaunchKernel passes is the handle).
 * cuDriverGetVersion and cudaRuntimeGetVersion emit their API activity
 * record through the CUPTI double, on the calling thread, as CUPTI records
 * any call (the collector's writer thread makes them).
 */
#ifndef GS_CUDA_DOUBLE_H
#define GS_CUDA_DOUBLE_H

#include <stddef.h>
#include <stdint.h>

/* Kernel (or function) handle -> its parameters' sizes. */
void gsd_cuda_set_params(const void *handle, unsigned n, const size_t *sizes);
/* Calls made to the param-info entry points (to check caching). */
unsigned gsd_cuda_param_info_calls(void);
/* The number (gsd_next_seq) of the last such call, 0 before any. */
uint64_t gsd_cuda_param_info_last_seq(void);
/* Of those, the calls made from inside a CUPTI callback (the collector
 * must make none: they would run re-entrantly, adding API records). */
unsigned gsd_cuda_param_info_calls_in_callback(void);
/* Calls made to cudaRuntimeGetVersion (the collector's writer thread makes one). */
unsigned gsd_cuda_runtime_version_calls(void);

#endif
