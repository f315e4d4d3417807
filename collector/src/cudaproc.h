/* SPDX-License-Identifier: MIT */
/*
 * Is there a CUDA driver, and does this process use CUDA at all? Asked at
 * setup, before CUPTI is: without a driver CUPTI can only fail (its
 * cuptiSubscribe says CUPTI_ERROR_UNKNOWN), and under LD_PRELOAD every
 * process of a shell or a build loads the collector, so a process that
 * shows no sign of CUDA is left alone without a word.
 */
#ifndef GS_COLLECTOR_CUDAPROC_H
#define GS_COLLECTOR_CUDAPROC_H

#include <stdbool.h>

enum gs_driver {
	GS_DRIVER_NONE = 0,   /* it cannot be loaded */
	GS_DRIVER_LOADED = 1, /* already in the process (the program, or CUDA, loaded it) */
	GS_DRIVER_OPENED = 2, /* loadable: this call loaded it (*handle) */
};

/*
 * Look for the driver library `name` (libcuda.so.1): loaded already
 * (RTLD_NOLOAD, no reference kept), else loaded now with RTLD_LAZY |
 * RTLD_LOCAL, the handle in *handle for the caller to dlclose once CUPTI
 * holds a reference of its own (it loads the driver itself anyway).
 */
enum gs_driver gs_driver_probe(const char *name, void **handle);

/*
 * True when this process shows CUDA: a CUDA runtime (libcudart*) in its
 * link map, or the driver (libcuda.so*) when `count_driver` (false when
 * the collector itself may have loaded it), or CUDA device code in its
 * executable (fatbinary sections: nvcc links the runtime statically by
 * default, so such a program has no CUDA library in its link map). Does
 * not see a library the program will dlopen later (python importing torch).
 */
bool gs_process_uses_cuda(bool count_driver);

#endif
