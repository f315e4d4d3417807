/* SPDX-License-Identifier: MIT */
/*
 * gen_nsys_2proc PATH: write the two-process, two-GPU Nsight Systems export
 * of nsys_build.h to PATH, for shell tests. Exit 0, 1 on failure, 2 on
 * usage.
 */
#include "nsys_build.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_nsys_2proc PATH\n");
		return 2;
	}
	return nsys_build_2proc(argv[1]) ? 1 : 0;
}
