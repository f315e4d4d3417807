/* SPDX-License-Identifier: MIT */
/* The driver and the process's CUDA (cudaproc.h). */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "cudaproc.h"

#include <gpuscope/elfcuda.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

enum gs_driver gs_driver_probe(const char *name, void **handle)
{
	void *h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);

	*handle = NULL;
	if (h) {
		dlclose(h); /* NOLOAD took a reference: give it back */
		return GS_DRIVER_LOADED;
	}
	h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return GS_DRIVER_NONE;
	*handle = h;
	return GS_DRIVER_OPENED;
}

static int find_cuda_library(struct dl_phdr_info *info, size_t size, void *arg)
{
	const bool *count_driver = arg;
	const char *name = info->dlpi_name;
	const char *base;

	(void)size;
	if (!name || !*name)
		return 0;
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (!gs_elf_is_cuda_library(base))
		return 0;
	return strncmp(base, "libcudart", 9) == 0 || *count_driver;
}

bool gs_process_uses_cuda(bool count_driver)
{
	struct gs_elf_cuda e;
	int fd;
	bool fatbin;

	if (dl_iterate_phdr(find_cuda_library, &count_driver))
		return true;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	fatbin = gs_elf_cuda_scan(fd, &e) == 0 && e.fatbin;
	close(fd);
	return fatbin;
}
