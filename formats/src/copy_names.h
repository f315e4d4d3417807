/* SPDX-License-Identifier: MIT */
/*
 * What a copy's or memset's name says, as Kineto and the PyTorch profiler
 * write it: "Memcpy HtoD (Pageable -> Device)", "Memset (Device)". The
 * Kineto importer reads names with these; the Chrome exporter uses the same
 * functions to tell whether an op's own name would read back the same.
 */
#ifndef GS_FORMAT_COPY_NAMES_H
#define GS_FORMAT_COPY_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "Pageable", "Pinned", "Device", "Device Static", "Managed", "Managed
 * Static", "Array" (spaces around ignored) -> enum gs_mem_kind;
 * GS_MEM_UNKNOWN for anything else. */
uint8_t gs_mem_kind_parse(const char *s, size_t n);

/*
 * A memcpy name of n bytes: the direction from its first "XtoY" word (X, Y
 * in H, D, A, P), else from `kind` (Kineto's args "kind", 4 bytes; may be
 * NULL); the memory kinds the letters imply, then those of "(A -> B)" when
 * the name has it. Sets *ck, *src, *dst only when a direction is found, and
 * says whether one was.
 */
bool gs_copy_name_parse(const char *s, size_t n, const char *kind, uint8_t *ck, uint8_t *src,
			uint8_t *dst);

/* The memory kind of a memset name "Memset (Device)" (GS_MEM_UNKNOWN
 * without a parenthesis). */
uint8_t gs_memset_name_parse(const char *s, size_t n);

#endif /* GS_FORMAT_COPY_NAMES_H */
