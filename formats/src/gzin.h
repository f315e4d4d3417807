/* SPDX-License-Identifier: MIT */
/*
 * Private to gs_import: a streaming byte reader over a plain file, a gzip
 * file (one or more members), or a memory buffer holding either. The
 * content decides: data that starts with the gzip magic (1f 8b) is
 * inflated, anything else is passed through. Memory use is bounded by one
 * input buffer, the decoder's window and (gzip on two CPUs) a few blocks
 * inflated ahead, whatever the size of the input.
 */
#ifndef GS_IMPORT_GZIN_H
#define GS_IMPORT_GZIN_H

#include <gpuscope/error.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gs_gzin;

/* Open a file. `name` (NULL: the path) names it in error causes. */
gs_status gs_gzin_open(const char *path, struct gs_gzin **out);
/*
 * Read from `fd` (owned from now on, closed by gs_gzin_close, also on
 * failure), whose first `n` bytes were read already into `head` (at most
 * GS_GZIN_HEAD_MAX): a pipe read in one pass, never sought.
 */
#define GS_GZIN_HEAD_MAX (64u << 10)
gs_status gs_gzin_open_fd(int fd, const void *head, size_t n, const char *name,
			  struct gs_gzin **out);
/* Read from memory (borrowed until close). */
gs_status gs_gzin_open_mem(const void *data, size_t size, const char *name, struct gs_gzin **out);
/*
 * Read up to `cap` bytes of content into `buf`. *got is 0 only at the end
 * of the content; for gzip it is `cap` but at the end, so the content is
 * cut into reads the same way whatever inflates it. Errors (I/O, corrupt or
 * truncated gzip) name the input; a read that fails hands out nothing.
 */
gs_status gs_gzin_read(struct gs_gzin *g, void *buf, size_t cap, size_t *got);
/*
 * Stop inflating (GS_ERR_LIMIT, naming the limit) past `max_bytes` of
 * content, or past `max_ratio` content bytes per compressed byte once the
 * content exceeds GS_GZIN_RATIO_FLOOR (a decompression bomb; checked at
 * each MiB of content). 0: no limit. Set before the first read.
 */
#define GS_GZIN_RATIO_FLOOR (16u << 20)
void gs_gzin_set_limits(struct gs_gzin *g, uint64_t max_bytes, uint32_t max_ratio);
/* True when the input is gzip-compressed. */
bool gs_gzin_is_gzip(const struct gs_gzin *g);
/* The input's size in bytes as stored (compressed for gzip) when known (a
 * file or memory), else 0 (a pipe). */
uint64_t gs_gzin_input_size(const struct gs_gzin *g);
/* The name used in error causes. */
const char *gs_gzin_name(const struct gs_gzin *g);
void gs_gzin_close(struct gs_gzin *g);

/* True when the build inflates with ISA-L (GS_HAVE_ISAL). */
bool gs_gzin_have_isal(void);
/*
 * For tests: inflate with zlib only, and/or on the reading thread only,
 * for inputs opened from now on. The environment variables
 * GPUSCOPE_TEST_INFLATE=zlib and GPUSCOPE_TEST_INFLATE_AHEAD=off do the
 * same (read once); this call overrides them.
 */
#define GS_GZIN_TEST_ZLIB 1u
#define GS_GZIN_TEST_NO_AHEAD 2u
void gs_gzin_test_set(unsigned flags);
/* For tests: gzip members begun with ISA-L so far, and those of them handed
 * back to zlib (an error or a limit near). */
void gs_gzin_test_counts(uint64_t *isal_members, uint64_t *to_zlib);

#endif
