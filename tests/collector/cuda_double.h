/* SPDX-License-Identifier: MIT */
/*
 * A driver test double: libcuda.so.1 (by SONAME) with the few driver entry
 * points the collector looks up with dlsym(dlopen("libcuda.so.1",
 * RTLD_NOLOAD)): cuDriverGetVersion, cuKernelGetParamInfo,
 * cuFuncGetParamInfo. A test linked with it has it loaded, so the
 * collector finds it as it would find the real driver.
 */
#ifndef GS_CUDA_DOUBLE_H
#define GS_CUDA_DOUBLE_H

#include <stddef.h>

/* Kernel (or function) handle -> its parameters' sizes. */
void gsd_cuda_set_params(const void *handle, unsigned n, const size_t *sizes);
/* Calls made to the param-info entry points (to check caching). */
unsigned gsd_cuda_param_info_calls(void);

#endif
