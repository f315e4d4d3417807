/* SPDX-License-Identifier: MIT */
/*
 * The CUDA marks of an ELF file (gpuscope/elfcuda.h): the stand-in
 * programs of these tests, this test itself, and files cut short or
 * damaged (never a crash, never a read past what the file holds). Kernel
 * parameter layouts from cubins: a synthetic one (cubin_build.h), one
 * nvcc made (when found at configure time), the same cut short.
 */
#include <gpuscope/elfcuda.h>

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cubin_build.h"

static char dir[PATH_MAX / 2];

static int scan_path(const char *path, struct gs_elf_cuda *e)
{
	int fd = open(path, O_RDONLY);
	int r;

	assert_true(fd >= 0);
	r = gs_elf_cuda_scan(fd, e);
	close(fd);
	return r;
}

static unsigned char *slurp(const char *path, size_t *n)
{
	struct stat sb;
	unsigned char *buf;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &sb), 0);
	buf = malloc((size_t)sb.st_size);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)sb.st_size, f), (size_t)sb.st_size);
	fclose(f);
	*n = (size_t)sb.st_size;
	return buf;
}

static int scan_bytes(const unsigned char *p, size_t n, struct gs_elf_cuda *e)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/elf.bin", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
	return scan_path(path, e);
}

static void test_fatbin_program(void **state)
{
	struct gs_elf_cuda e;

	(void)state;
	assert_int_equal(scan_path(GS_FATBIN_APP, &e), 0);
	assert_true(e.fatbin);
	assert_false(e.links_cuda);
}

static void test_program_linking_the_driver(void **state)
{
	struct gs_elf_cuda e;

	(void)state;
	assert_int_equal(scan_path(GS_FAKE_CUDA_APP, &e), 0);
	assert_false(e.fatbin);
	assert_true(e.links_cuda);
}

static void test_no_cuda(void **state)
{
	static const char text[] = "#!/bin/sh\nexit 0\n";
	struct gs_elf_cuda e;

	(void)state;
	assert_int_equal(scan_path("/proc/self/exe", &e), 0);
	assert_false(e.fatbin);
	assert_false(e.links_cuda);
	assert_int_equal(scan_bytes((const unsigned char *)text, sizeof(text) - 1, &e), -1);
	assert_false(e.fatbin || e.links_cuda);
	assert_int_equal(scan_bytes((const unsigned char *)"", 0, &e), -1);
}

/* Every length of the file, cut: 0 or -1, and never a mark it does not hold. */
static void test_cut_short(void **state)
{
	size_t n;
	unsigned char *p = slurp(GS_FATBIN_APP, &n);
	struct gs_elf_cuda e;

	(void)state;
	for (size_t len = 0; len < n; len += len < 256 ? 1 : 97) {
		int r = scan_bytes(p, len, &e);

		assert_true(r == 0 || r == -1);
		if (r == -1)
			assert_false(e.fatbin || e.links_cuda);
	}
	free(p);
}

/* Header fields pointing anywhere: refused or read within the file. */
static void test_damaged_headers(void **state)
{
	size_t n;
	unsigned char *p = slurp(GS_FAKE_CUDA_APP, &n);
	unsigned char *q = malloc(n);
	Elf64_Ehdr eh;
	struct gs_elf_cuda e;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	(void)state;
	assert_non_null(q);
	memcpy(&eh, p, sizeof(eh));
	/* Section headers past the end of the file. */
	memcpy(q, p, n);
	((Elf64_Ehdr *)(void *)q)->e_shoff = (uint64_t)1 << 62;
	assert_int_equal(scan_bytes(q, n, &e), -1);
	/* A count of 0 with a huge count in section 0 (extended numbering). */
	memcpy(q, p, n);
	((Elf64_Ehdr *)(void *)q)->e_shnum = 0;
	memset(q + eh.e_shoff + offsetof(Elf64_Shdr, sh_size), 0xff, 8);
	assert_int_equal(scan_bytes(q, n, &e), -1); /* 65536 headers are not there */
	/* The names' index out of range. */
	memcpy(q, p, n);
	((Elf64_Ehdr *)(void *)q)->e_shstrndx = (uint16_t)(eh.e_shnum + 5);
	assert_int_equal(scan_bytes(q, n, &e), -1);
	/* Random bytes in the section headers and the dynamic section. */
	for (int round = 0; round < 300; round++) {
		int r;

		memcpy(q, p, n);
		for (int k = 0; k < 8; k++) {
			size_t span = n - eh.e_shoff;
			size_t at;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			at = round % 2 ? eh.e_shoff + (size_t)(seed >> 33) % span :
					 (size_t)(seed >> 33) % n;
			q[at] = (unsigned char)(seed >> 20);
		}
		r = scan_bytes(q, n, &e);
		assert_true(r == 0 || r == -1);
	}
	free(q);
	free(p);
}

static void test_library_names(void **state)
{
	(void)state;
	assert_true(gs_elf_is_cuda_library("libcudart.so.13"));
	assert_true(gs_elf_is_cuda_library("/usr/local/cuda/lib64/libcudart.so.13.0.48"));
	assert_true(gs_elf_is_cuda_library("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
	assert_true(gs_elf_is_cuda_library("libcuda.so"));
	assert_true(gs_elf_is_cuda_library("libcuda.so.580.65.06"));
	assert_false(gs_elf_is_cuda_library("libcupti.so.13"));
	assert_false(gs_elf_is_cuda_library("libcudnn.so.9"));
	assert_false(gs_elf_is_cuda_library("libcuda_helper.so"));
	assert_false(gs_elf_is_cuda_library("/opt/libcuda.so.1/libc.so.6"));
	assert_false(gs_elf_is_cuda_library("mylibcuda.so.1"));
	assert_false(gs_elf_is_cuda_library(""));
}

/* ---- kernel parameter layouts of cubins ---- */

struct seen {
	char name[8][64];
	unsigned count[8];
	uint32_t sizes[8][8];
	unsigned n;
};

static void on_kernel(void *ctx, const char *name, size_t len, unsigned count,
		      const uint32_t *sizes)
{
	struct seen *s = ctx;

	assert_true(len < sizeof(s->name[0]));
	if (s->n >= 8)
		return;
	memcpy(s->name[s->n], name, len);
	s->name[s->n][len] = '\0';
	s->count[s->n] = count;
	for (unsigned i = 0; i < count && i < 8; i++)
		s->sizes[s->n][i] = sizes[i];
	s->n++;
}

static unsigned kernel_at(const struct seen *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return i;
	fail_msg("kernel %s not reported", name);
	return 0;
}

static void test_cubin_synthetic(void **state)
{
	static const unsigned a[] = {8, 8, 4, 16}, b[] = {1};
	const struct test_kernel ks[] = {{"_Z1aPfS_iS_", 4, a}, {"b", 1, b}, {"c", 0, NULL}};
	static uint8_t buf[8192];
	struct seen s = {0};
	size_t size = test_cubin(buf, sizeof(buf), ks, 3);
	unsigned k;

	(void)state;
	assert_true(size > 0);
	assert_int_equal(gs_cubin_param_layouts(buf, size, on_kernel, &s), 3);
	assert_int_equal(s.n, 3); /* the module-wide .nv.info is no kernel */
	k = kernel_at(&s, "_Z1aPfS_iS_");
	assert_int_equal(s.count[k], 4);
	assert_int_equal(s.sizes[k][0], 8);
	assert_int_equal(s.sizes[k][2], 4);
	assert_int_equal(s.sizes[k][3], 16);
	k = kernel_at(&s, "b");
	assert_int_equal(s.count[k], 1);
	assert_int_equal(s.sizes[k][0], 1);
	k = kernel_at(&s, "c");
	assert_int_equal(s.count[k], 0);
	/* Cut anywhere: never a read past the end (ASan), a kernel at most
	 * with what its section still holds, or "not ELF". */
	for (size_t cut = 0; cut < size; cut += 7) {
		struct seen t = {0};
		int r = gs_cubin_param_layouts(buf, cut, on_kernel, &t);

		assert_true(r >= -1 && r <= 3);
	}
	/* Damaged: the section header table points past the end. */
	{
		Elf64_Ehdr eh;
		struct seen t = {0};

		memcpy(&eh, buf, sizeof(eh));
		eh.e_shoff = size;
		memcpy(buf, &eh, sizeof(eh));
		assert_int_equal(gs_cubin_param_layouts(buf, size, on_kernel, &t), -1);
	}
	assert_int_equal(gs_cubin_param_layouts("not an ELF at all, not at all......"
						"..................................",
						70, on_kernel, &s),
			 -1);
}

/* The layout of a cubin nvcc made (tests/collector/params.cu). */
static void test_cubin_from_nvcc(void **state)
{
#ifdef GS_NVCC_CUBIN
	struct seen s = {0};
	unsigned char *buf;
	struct stat sb;
	size_t size;
	unsigned k;

	(void)state;
	if (stat(GS_NVCC_CUBIN, &sb) != 0 || sb.st_size == 0)
		skip(); /* nvcc could not build it here */
	buf = slurp(GS_NVCC_CUBIN, &size);
	assert_int_equal(gs_cubin_param_layouts(buf, size, on_kernel, &s), 2);
	k = kernel_at(&s, "_Z7k_mixedPfPKi4pairdcS_");
	assert_int_equal(s.count[k], 6);
	assert_int_equal(s.sizes[k][0], 8);  /* float * */
	assert_int_equal(s.sizes[k][1], 8);  /* const int * */
	assert_int_equal(s.sizes[k][2], 16); /* struct pair */
	assert_int_equal(s.sizes[k][3], 8);  /* double */
	assert_int_equal(s.sizes[k][4], 1);  /* char */
	assert_int_equal(s.sizes[k][5], 8);  /* float * */
	k = kernel_at(&s, "_Z6k_nonev");
	assert_int_equal(s.count[k], 0);
	free(buf);
#else
	(void)state;
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fatbin_program),
		cmocka_unit_test(test_program_linking_the_driver),
		cmocka_unit_test(test_no_cuda),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_damaged_headers),
		cmocka_unit_test(test_library_names),
		cmocka_unit_test(test_cubin_synthetic),
		cmocka_unit_test(test_cubin_from_nvcc),
	};

	snprintf(dir, sizeof(dir), "%s/elfcuda", GS_TEST_TMP);
	mkdir(GS_TEST_TMP, 0755);
	mkdir(dir, 0755);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
