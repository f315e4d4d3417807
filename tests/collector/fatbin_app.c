/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for a program nvcc built: CUDA device code in a .nv_fatbin
 * section (nvcc also links the CUDA runtime statically, so no CUDA library
 * shows in the link map), and nothing else of CUDA. It makes no CUDA call:
 * what the collector and `gpuscope record` say about it comes from the
 * section alone.
 *
 *   fatbin_app [--exit N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fatbinary's magic (0xba55ed50) and a few bytes; never read as such. */
__attribute__((section(".nv_fatbin"), used)) static const unsigned char fatbin[16] = {
	0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0,
};

int main(int argc, char **argv)
{
	int code = 0;

	if (argc == 3 && !strcmp(argv[1], "--exit"))
		code = atoi(argv[2]);
	printf("fatbin_app done (%u)\n", fatbin[6]);
	return code;
}
