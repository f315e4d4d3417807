/* SPDX-License-Identifier: MIT */
/*
 * What an ELF file says about CUDA (target gs_common): whether it carries
 * CUDA device code (the fatbinary sections nvcc puts in every program it
 * links, which then has the CUDA runtime linked statically by default) and
 * whether it names the CUDA runtime or driver among the libraries it needs.
 * Read from the section headers only, with bounded pread(2)s: the file is
 * never mapped, and a file that is cut short or malformed is "not ELF".
 */
#ifndef GPUSCOPE_ELFCUDA_H
#define GPUSCOPE_ELFCUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_elf_cuda {
	bool fatbin;     /* a .nv_fatbin or .nvFatBinSegment section */
	bool links_cuda; /* DT_NEEDED names a CUDA runtime or driver library */
};

/*
 * Scan the 64-bit ELF file open on `fd` (of this machine's byte order).
 * 0 with *out filled, -1 (and *out all false) when it is not one or cannot
 * be read. The file offset is not used (pread only).
 */
int gs_elf_cuda_scan(int fd, struct gs_elf_cuda *out);

/* True when a library's path or name is a CUDA runtime (libcudart*) or
 * driver (libcuda.so*); CUPTI (libcupti*) and the others are not. */
bool gs_elf_is_cuda_library(const char *name);

/*
 * The parameter layout of each kernel of a cubin (the device ELF the CUDA
 * driver loads; CUPTI hands it over at module load), from its
 * `.nv.info.KERNEL` sections: one EIATTR_KPARAM_INFO attribute per
 * parameter gives its ordinal, offset and size (the layout nvcc 13 writes,
 * read back here from its output). `fn` is called once per kernel with its
 * (mangled) name, not NUL-terminated, and the size of each parameter by
 * ordinal (0 for an ordinal the cubin does not describe); `count` is capped
 * at GS_CUBIN_MAX_PARAMS. Reads only within [cubin, cubin + size): a buffer
 * that is not a 64-bit little-endian ELF, or is cut short, gives -1;
 * otherwise the number of kernels reported.
 */
#define GS_CUBIN_MAX_PARAMS 256u
typedef void (*gs_cubin_kernel_fn)(void *ctx, const char *name, size_t name_len, unsigned count,
				   const uint32_t *sizes);
int gs_cubin_param_layouts(const void *cubin, size_t size, gs_cubin_kernel_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
