/* SPDX-License-Identifier: MIT */
/* CUDA marks of an ELF file (gpuscope/elfcuda.h). */
#include <gpuscope/elfcuda.h>

#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Bounds: far above what a real executable has, low enough to cost little. */
#define MAX_SECTIONS 65536u
#define MAX_DYNAMIC 8192u
#define CHUNK 64u /* headers or dynamic entries read at a time */
#define NAME_MAX_LEN 256u

static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	if (off > (uint64_t)INT64_MAX - n)
		return false;
	while (done < n) {
		ssize_t k = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		done += (size_t)k;
	}
	return true;
}

/* The NUL-terminated string at `index` of the string table `tab` into buf
 * (at most size - 1 bytes; false when it lies outside the table or does
 * not end within size bytes). */
static bool read_name(int fd, const Elf64_Shdr *tab, uint64_t index, char *buf, size_t size)
{
	uint64_t n;

	if (index >= tab->sh_size)
		return false;
	n = tab->sh_size - index;
	if (n > size - 1)
		n = size - 1;
	if (!read_at(fd, buf, (size_t)n, tab->sh_offset + index))
		return false;
	buf[n] = '\0';
	return memchr(buf, '\0', (size_t)n) != NULL || n < size - 1;
}

static bool read_shdr(int fd, const Elf64_Ehdr *eh, uint64_t i, Elf64_Shdr *sh)
{
	return read_at(fd, sh, sizeof(*sh), eh->e_shoff + i * sizeof(*sh));
}

bool gs_elf_is_cuda_library(const char *name)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return !strncmp(base, "libcudart", 9) || !strncmp(base, "libcuda.so", 10);
}

static bool needs_cuda(int fd, const Elf64_Ehdr *eh, uint64_t nsec, const Elf64_Shdr *dyn)
{
	Elf64_Dyn d[CHUNK] = {0}; /* read_at fills what is used: for the analyzer */
	Elf64_Shdr strtab;
	uint64_t n = dyn->sh_size / sizeof(Elf64_Dyn);
	char name[NAME_MAX_LEN];

	if (dyn->sh_link == 0 || dyn->sh_link >= nsec ||
	    !read_shdr(fd, eh, dyn->sh_link, &strtab) || strtab.sh_type != SHT_STRTAB)
		return false;
	if (n > MAX_DYNAMIC)
		n = MAX_DYNAMIC;
	for (uint64_t i = 0; i < n; i += CHUNK) {
		uint64_t k = n - i < CHUNK ? n - i : CHUNK;

		if (!read_at(fd, d, (size_t)k * sizeof(d[0]), dyn->sh_offset + i * sizeof(d[0])))
			return false;
		for (uint64_t j = 0; j < k; j++) {
			if (d[j].d_tag == DT_NULL)
				return false;
			if (d[j].d_tag == DT_NEEDED &&
			    read_name(fd, &strtab, d[j].d_un.d_val, name, sizeof(name)) &&
			    gs_elf_is_cuda_library(name))
				return true;
		}
	}
	return false;
}

int gs_elf_cuda_scan(int fd, struct gs_elf_cuda *out)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh[CHUNK] = {0}, names, first; /* sh: as d in needs_cuda */
	uint64_t nsec, strndx;
	char name[32];

	memset(out, 0, sizeof(*out));
	if (!read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] !=
		    (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB))
		return -1;
	if (eh.e_shoff == 0)
		return 0; /* no section headers (stripped to the bone): nothing to tell */
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || !read_shdr(fd, &eh, 0, &first))
		return -1;
	/* Many sections: the count and the names' index are in section 0. */
	nsec = eh.e_shnum ? eh.e_shnum : first.sh_size;
	strndx = eh.e_shstrndx == SHN_XINDEX ? first.sh_link : eh.e_shstrndx;
	if (nsec > MAX_SECTIONS)
		nsec = MAX_SECTIONS;
	if (strndx == SHN_UNDEF || strndx >= nsec || !read_shdr(fd, &eh, strndx, &names) ||
	    names.sh_type != SHT_STRTAB)
		return -1;
	for (uint64_t i = 0; i < nsec; i += CHUNK) {
		uint64_t k = nsec - i < CHUNK ? nsec - i : CHUNK;

		if (!read_at(fd, sh, (size_t)k * sizeof(sh[0]), eh.e_shoff + i * sizeof(sh[0])))
			return -1;
		for (uint64_t j = 0; j < k; j++) {
			if (sh[j].sh_type == SHT_DYNAMIC && !out->links_cuda)
				out->links_cuda = needs_cuda(fd, &eh, nsec, &sh[j]);
			if (!out->fatbin &&
			    read_name(fd, &names, sh[j].sh_name, name, sizeof(name)) &&
			    (!strcmp(name, ".nv_fatbin") || !strcmp(name, ".nvFatBinSegment")))
				out->fatbin = true;
		}
	}
	return 0;
}

/* ---- kernel parameter layouts of a cubin (in memory) ---- */

#define NV_INFO_PREFIX ".nv.info."
#define EIFMT_NVAL 1
#define EIFMT_BVAL 2
#define EIFMT_HVAL 3
#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17
#define KPARAM_INFO_SIZE 12 /* u32 index, u16 ordinal, u16 offset, u32 flags */

static bool in_bounds(size_t size, uint64_t off, uint64_t n)
{
	return off <= size && n <= size - off;
}

/* The KPARAM_INFO attributes of one .nv.info.KERNEL section. */
static unsigned kparams(const uint8_t *p, uint64_t n, uint32_t *sizes)
{
	unsigned count = 0;
	uint64_t at = 0;

	while (at + 2 <= n) {
		uint8_t fmt = p[at], attr = p[at + 1];
		uint16_t len;

		if (fmt != EIFMT_SVAL) {
			/* NVAL, BVAL, HVAL: the attribute and a 16-bit slot. */
			if (fmt != EIFMT_NVAL && fmt != EIFMT_BVAL && fmt != EIFMT_HVAL)
				break;
			at += 4;
			continue;
		}
		if (at + 4 > n)
			break;
		memcpy(&len, p + at + 2, sizeof(len));
		if (at + 4 + len > n)
			break;
		if (attr == EIATTR_KPARAM_INFO && len >= KPARAM_INFO_SIZE) {
			uint16_t ordinal;
			uint32_t flags;

			memcpy(&ordinal, p + at + 8, sizeof(ordinal));
			memcpy(&flags, p + at + 12, sizeof(flags));
			if (ordinal < GS_CUBIN_MAX_PARAMS) {
				sizes[ordinal] = (flags >> 18) & 0x3fffu;
				if (ordinal + 1u > count)
					count = ordinal + 1u;
			}
		}
		at += 4 + (uint64_t)len;
	}
	return count;
}

int gs_cubin_param_layouts(const void *cubin, size_t size, gs_cubin_kernel_fn fn, void *ctx)
{
	const uint8_t *b = cubin;
	const size_t plen = sizeof(NV_INFO_PREFIX) - 1;
	uint32_t sizes[GS_CUBIN_MAX_PARAMS];
	Elf64_Shdr strtab;
	Elf64_Ehdr eh;
	int kernels = 0;

	if (!b || size < sizeof(eh))
		return -1;
	memcpy(&eh, b, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shstrndx >= eh.e_shnum ||
	    !in_bounds(size, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
		return -1;
	memcpy(&strtab, b + eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(Elf64_Shdr),
	       sizeof(strtab));
	if (!in_bounds(size, strtab.sh_offset, strtab.sh_size))
		return -1;
	for (uint64_t i = 0; i < eh.e_shnum; i++) {
		const char *name, *end;
		Elf64_Shdr sh;
		unsigned count;

		memcpy(&sh, b + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof(sh));
		if (sh.sh_name >= strtab.sh_size || sh.sh_type == SHT_NOBITS ||
		    !in_bounds(size, sh.sh_offset, sh.sh_size))
			continue;
		name = (const char *)b + strtab.sh_offset + sh.sh_name;
		end = memchr(name, '\0', (size_t)(strtab.sh_size - sh.sh_name));
		if (!end || (size_t)(end - name) <= plen || memcmp(name, NV_INFO_PREFIX, plen) != 0)
			continue;
		memset(sizes, 0, sizeof(sizes));
		count = kparams(b + sh.sh_offset, sh.sh_size, sizes);
		fn(ctx, name + plen, (size_t)(end - name) - plen, count, sizes);
		kernels++;
	}
	return kernels;
}
