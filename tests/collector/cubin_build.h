/* SPDX-License-Identifier: MIT */
/*
 * A synthetic cubin for the collector's tests: a 64-bit ELF whose
 * `.nv.info.KERNEL` sections hold one EIATTR_KPARAM_INFO attribute per
 * parameter, laid out as nvcc 13 writes them (checked against `nvcc -cubin
 * -arch=sm_90` output: 4-byte attribute headers, a 12-byte KPARAM_INFO
 * payload of index, ordinal, offset and flags with the size in bits
 * 18..31, parameters listed from the last ordinal down), with other
 * attributes around them and a module-wide `.nv.info` section.
 */
#ifndef GS_TESTS_CUBIN_BUILD_H
#define GS_TESTS_CUBIN_BUILD_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct test_kernel {
	const char *name; /* mangled */
	unsigned n;
	const unsigned *sizes;
};

static inline uint8_t *tc_put(uint8_t *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

/* One kernel's .nv.info section into p; its length. */
static inline size_t tc_info(uint8_t *p, const struct test_kernel *k)
{
	uint8_t *q = p;
	const uint8_t hval[4] = {3, 0x1b, 0xff, 0x00}; /* EIFMT_HVAL, some attribute */
	const uint8_t sval[8] = {4, 0x37, 4, 0, 0x82, 0, 0, 0};

	q = tc_put(q, sval, sizeof(sval));
	for (unsigned i = k->n; i-- > 0;) {
		uint8_t head[4] = {4, 0x17, 12, 0};
		uint32_t index = 0, flags = (k->sizes[i] << 18) | 0x1f000u;
		uint16_t ordinal = (uint16_t)i, o = 0;

		for (unsigned j = 0; j < i; j++)
			o = (uint16_t)(o + ((k->sizes[j] + 7u) & ~7u));
		q = tc_put(q, head, 4);
		q = tc_put(q, &index, 4);
		q = tc_put(q, &ordinal, 2);
		q = tc_put(q, &o, 2);
		q = tc_put(q, &flags, 4);
	}
	q = tc_put(q, hval, sizeof(hval));
	return (size_t)(q - p);
}

/* The cubin into buf (cap bytes, 8-aligned); its size, 0 when it does not fit. */
static inline size_t test_cubin(uint8_t *buf, size_t cap, const struct test_kernel *k, size_t n)
{
	uint8_t data[8192], names[2048];
	size_t nsec = n + 3, ndata = 0, nnames = 1, offs[64], lens[64], name_at[64], total;
	const uint8_t global[8] = {4, 0x2f, 4, 0, 9, 0, 0, 0};
	Elf64_Ehdr eh;

	if (nsec > 64)
		return 0;
	names[0] = '\0';
	/* [1] .shstrtab, [2] .nv.info, [3..] .nv.info.KERNEL */
	name_at[1] = nnames;
	memcpy(names + nnames, ".shstrtab", 10);
	nnames += 10;
	name_at[2] = nnames;
	memcpy(names + nnames, ".nv.info", 9);
	nnames += 9;
	offs[2] = ndata;
	memcpy(data, global, sizeof(global));
	lens[2] = sizeof(global);
	ndata += sizeof(global);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(k[i].name);

		if (nnames + 9 + l + 1 > sizeof(names) || ndata + 16 * (k[i].n + 2) > sizeof(data))
			return 0;
		name_at[3 + i] = nnames;
		memcpy(names + nnames, ".nv.info.", 9);
		memcpy(names + nnames + 9, k[i].name, l + 1);
		nnames += 9 + l + 1;
		offs[3 + i] = ndata;
		lens[3 + i] = tc_info(data + ndata, &k[i]);
		ndata += lens[3 + i];
	}
	ndata = (ndata + 7) & ~(size_t)7;
	nnames = (nnames + 7) & ~(size_t)7;
	total = sizeof(eh) + ndata + nnames + nsec * sizeof(Elf64_Shdr);
	if (total > cap)
		return 0;
	memset(buf, 0, total);
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = 190; /* EM_CUDA */
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = sizeof(eh) + ndata + nnames;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (uint16_t)nsec;
	eh.e_shstrndx = 1;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), data, ndata);
	memcpy(buf + sizeof(eh) + ndata, names, nnames);
	for (size_t i = 1; i < nsec; i++) {
		Elf64_Shdr sh;

		memset(&sh, 0, sizeof(sh));
		sh.sh_name = (uint32_t)name_at[i];
		if (i == 1) {
			sh.sh_type = SHT_STRTAB;
			sh.sh_offset = sizeof(eh) + ndata;
			sh.sh_size = nnames;
		} else {
			sh.sh_type = 0x70000000u; /* SHT_CUDA_INFO (LOPROC) */
			sh.sh_offset = sizeof(eh) + offs[i];
			sh.sh_size = lens[i];
		}
		sh.sh_addralign = 4;
		memcpy(buf + eh.e_shoff + i * sizeof(sh), &sh, sizeof(sh));
	}
	return total;
}

#endif
