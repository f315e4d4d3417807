/* SPDX-License-Identifier: MIT */
/*
 * Private to the Kineto importer: the character classes of 64 bytes of JSON
 * text at once, as bit masks (bit i for byte i). The scanner (kineto_scan.c)
 * turns them into the positions of the structural characters, the string
 * quotes and the starts of scalars, so it visits a handful of places per
 * member instead of every byte.
 *
 * Three implementations give the same masks: AVX2 (32 bytes a step), SSE2
 * (16) and a portable one (a byte at a time), chosen at run
 * time from what the CPU supports. GPUSCOPE_TEST_SCAN=portable|sse2|avx2 in
 * the environment (read once) or kin_blocks_force() (tests) picks one.
 */
#ifndef GS_IMPORT_KINETO_BLOCKS_H
#define GS_IMPORT_KINETO_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

struct kin_block {
	uint64_t quote;  /* '"' */
	uint64_t bslash; /* '\\' */
	uint64_t op;     /* { } [ ] : , */
	uint64_t ws;     /* space, \t, \n, \r */
	uint64_t ctl;    /* other bytes below 0x20 */
};

enum kin_blocks_impl {
	KIN_BLOCKS_AUTO,
	KIN_BLOCKS_PORTABLE,
	KIN_BLOCKS_SSE2,
	KIN_BLOCKS_AVX2,
};

/* Classify the 64 bytes at p (all readable). */
typedef void (*kin_classify_fn)(const char *p, struct kin_block *b);

/* The implementation in use (chosen on the first call). */
kin_classify_fn kin_blocks_classifier(void);
/* Which one that is. */
enum kin_blocks_impl kin_blocks_impl(void);
/* For tests: use `impl` from now on (AUTO: choose again). False when this
 * CPU cannot run it; nothing changes then. */
bool kin_blocks_force(enum kin_blocks_impl impl);
/* Its name: "portable", "sse2", "avx2". */
const char *kin_blocks_impl_name(enum kin_blocks_impl impl);

#endif
