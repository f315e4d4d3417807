/* SPDX-License-Identifier: MIT */
/*
 * What the parts of gen_bad share (gen_bad.c: the output directory and
 * main): writing a file into the output directory or dying with a message,
 * a .gscope file packed by hand (gen_bad_gscope.c), and each part's
 * writer of its inputs.
 */
#ifndef GS_TEST_GEN_BAD_H
#define GS_TEST_GEN_BAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gs_trace.pb-c.h"

/* gen_bad.c: print "gen_bad: " and the message, exit 1. */
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
/* OUT_DIR/name (a static buffer, overwritten by the next call). */
char *path_of(const char *name);
/* Create OUT_DIR/name for writing; close it with finish. */
FILE *create(const char *name);
void finish(FILE *f, const char *name);
/* OUT_DIR/name holding [data, data + n). */
void write_bytes(const char *name, const void *data, size_t n);

/* A whole file: header, then chunks packed from messages. */
struct gfile {
	unsigned char *p;
	size_t n, cap;
};

/* gen_bad_gscope.c: the file header; a chunk of raw payload bytes
 * (compressed here) or of a message, claiming `nrec` records; the file
 * written to OUT_DIR/name (and `g` emptied). */
void gf_header(struct gfile *g);
void gf_raw_chunk(struct gfile *g, uint16_t type, const void *raw, size_t n, uint32_t nrec);
void gf_chunk(struct gfile *g, uint16_t type, const Gscope__Chunk *m, uint32_t nrec);
void gf_write(struct gfile *g, const char *name);

/* Each part's inputs: .gscope files cut, corrupted or hand-built
 * (gen_bad_gscope.c), the time and memory bombs in .gscope files
 * (gen_bad_bombs.c), random bytes, gzip and JSON (gen_bad_text.c), SQLite
 * files that are not Nsight exports (gen_bad_sqlite.c). */
void gscope_files(void);
void gscope_bomb_files(void);
void random_file(void);
void gzip_files(void);
void json_files(void);
void sqlite_files(void);

#endif
