/* SPDX-License-Identifier: MIT */
/*
 * Private to gs_format: the .gscope reader's state and the functions its
 * files share (reader.c: files, frames, the one-chunk loop; reader_decode.c:
 * a chunk's records to the sink; reader_ahead.c: reading ahead on a second
 * CPU).
 */
#ifndef GS_FORMAT_READER_PRIV_H
#define GS_FORMAT_READER_PRIV_H

#include "chunk_fast.h"
#include "frame.h"
#include "gs_trace.pb-c.h"
#include "util.h"

#include <gpuscope/gscope_file.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#define ZLIB_CONST
#include <zlib.h>
#ifdef GS_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/*
 * A window of the file read in one pread: the chunk headers and small
 * payloads of the next WIN_BYTES come out of it, so that a file of many
 * small chunks costs a system call per WIN_BYTES, not two per chunk. Reads
 * of WIN_BYTES / 2 or more go to the file directly. Each thread reading has
 * its own.
 */
#define WIN_BYTES (64u << 10)

struct rwin {
	unsigned char *buf; /* WIN_BYTES, allocated at the first read */
	uint64_t off;       /* file offset of buf[0] */
	size_t len;         /* bytes of buf that hold the file */
};

/* A zlib stream kept from chunk to chunk (inflateReset, not a new one:
 * its state and window are allocated once a reader or helper); with ISA-L,
 * its state too (tried first: see rd_inflate_exact). */
struct inflater {
	z_stream z;
	bool ready;
#ifdef GS_HAVE_ISAL
	struct inflate_state *isal; /* allocated at the first payload */
#endif
};

struct gs_reader {
	char *name;
	unsigned flags;
	int fd; /* -1 for memory */
	const unsigned char *mem;
	uint64_t size;
	uint64_t offset;
	uint64_t chunk; /* index of the next chunk */
	bool header_done;
	bool ended;
	bool saw_end;
	uint64_t records;
	uint64_t skipped;
	bool placed; /* the last error named its chunk (CHUNK_ERR) */

	unsigned char *cbuf;
	size_t cbuf_cap;
	unsigned char *rbuf;
	size_t rbuf_cap;
	struct gs_chunk_fast fast; /* column buffers, reused chunk to chunk */

	struct gs_sink *sink; /* the sink the id maps below refer to */
	uint32_t *str_map;
	size_t n_str, cap_str;
	uint32_t *stream_map;
	size_t n_stream, cap_stream;
	uint32_t *alloc_map;
	size_t n_alloc, cap_alloc;
	uint32_t *coll_map; /* file index -> the sink's op.collective (0: none) */
	size_t n_coll, cap_coll;
	uint32_t unknown_string; /* sink id of "?" for strings lost to salvage */
	/* Chunks of types this reader does not know, skipped. */
	struct {
		uint16_t type;
		uint64_t count, first;
	} unknown[8];
	uint32_t n_unknown;
	uint64_t unknown_other, unknown_records;
	/* Chunks whose header flags hold bits this reader does not know (read
	 * as without them): the bits seen, how many chunks, the first. */
	uint16_t unknown_flags;
	uint64_t flagged, first_flagged;
	bool unknown_told;

	/* Payload bytes inflated per compressed byte (max_inflate_ratio), and
	 * the totals of the chunks read so far. */
	uint32_t max_ratio;
	uint64_t raw_total, comp_total;

	struct rwin win;          /* file bytes read ahead of the chunk headers */
	struct inflater inflater; /* one zlib stream, reset chunk to chunk */
};

/* Counters stop at UINT64_MAX instead of wrapping. */
static inline uint64_t rd_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Errors name the file and the chunk: "run.gscope: chunk 12 at byte 4096: ...". */
#define CHUNK_ERR(r, at, ...)                                                                      \
	do {                                                                                       \
		char m_[GS_ERROR_MSG_MAX];                                                         \
		snprintf(m_, sizeof(m_), __VA_ARGS__);                                             \
		gs_error_append("%s: chunk %" PRIu64 " at byte %" PRIu64 ": %s", (r)->name,        \
				(r)->chunk, (uint64_t)(at), m_);                                   \
		(r)->placed = true;                                                                \
	} while (0)

struct frame {
	uint16_t type;
	uint16_t flags;
	uint32_t raw_len;
	uint32_t comp_len;
	uint32_t nrecords;
	uint32_t crc;
	unsigned char hdr[GS_CHUNK_HEADER_LEN];
};

static inline bool rd_known_chunk_type(uint16_t type)
{
	return type == GS_CHUNK_META || type == GS_CHUNK_RECORDS || type == GS_CHUNK_END;
}

/* reader.c */
int64_t rd_read_at(struct gs_reader *r, uint64_t off, void *buf, size_t n);
int64_t rd_win_read(struct gs_reader *r, struct rwin *w, uint64_t off, void *buf, size_t n);
int rd_inflate_exact(struct inflater *zi, unsigned char *dst, uLongf *dst_len,
		     const unsigned char *src, uLong src_len);
void rd_inflater_fini(struct inflater *zi);
const char *rd_frame_bound(const struct gs_reader *r, const struct frame *f, uint64_t raw,
			   uint64_t comp, char *why, size_t size);
gs_status rd_chunk_done(struct gs_reader *r, struct gs_sink *sink, const struct frame *f);

/* reader_decode.c: the records of chunk c (its frame f) to the sink. */
gs_status rd_decode_chunk(struct gs_reader *r, struct gs_sink *sink, const struct frame *f,
			  const Gscope__Chunk *c);

/* reader_ahead.c: feed the sink from r->offset on with the chunks a
 * helper thread reads, checks and inflates ahead, until the helper stops
 * (the end, or a chunk it leaves to gs_reader_next) or an error. GS_OK:
 * gs_reader_next goes on from r->offset. */
gs_status rd_read_ahead(struct gs_reader *r, struct gs_sink *sink);

#endif
