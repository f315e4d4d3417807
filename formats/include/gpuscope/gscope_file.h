/* SPDX-License-Identifier: MIT */
/*
 * gpuscope .gscope files (target gs_format; docs/design.md, The .gscope
 * file): the layout, the streaming writer (a sink) and reader (into a sink),
 * and loading / saving a whole trace.
 */
#ifndef GPUSCOPE_GSCOPE_FILE_H
#define GPUSCOPE_GSCOPE_FILE_H

#include <gpuscope/error.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_sink;
struct gs_trace;

/*
 * File layout (little endian):
 *   header:  "GSCOPE\0\0", u16 major, u16 minor, u32 feature mask,
 *            u32 CRC-32 of the preceding 16 bytes            (20 bytes)
 *   chunks:  "GSCK", u16 type, u16 flags, u32 raw length,
 *            u32 compressed length, u32 record count,
 *            u32 CRC-32 of the payload, u32 CRC-32 of the 24 bytes before
 *            it (28 bytes), then the zlib-compressed protobuf payload.
 *            The header's own CRC tells a file cut short (whole header,
 *            missing payload) from a corrupt length field.
 *   payload: one protobuf `Chunk` (formats/proto/gs_trace.proto): strings,
 *            streams, processes, devices, collectives and allocations
 *            declared, then the records; ops, API calls and ranges by
 *            column.
 *
 * Times in columns: a row's start is stored as the difference from the
 * previous row's start and its duration as end - start, both modulo 2^64,
 * so that every int64 time reads back as written. A reader takes the end
 * exactly: a row whose start + duration passes INT64_MAX lasts over 7 days
 * (dropped, as any such record) or starts past 2^62 ns (refused for its
 * start, GS_TIME_LIMIT_NS); it never reads as a record that ends before it
 * starts.
 *
 * Versions: a reader refuses a newer major version and reads any minor
 * one; minor versions only add protobuf fields, which a reader that does
 * not know them skips. 1.0: the first layout. 1.1: a process's rank and
 * world size (Process.rank as rank + 1, 0 none; .world_size), collectives
 * (Chunk.collectives, declared in file order from Chunk.collective_base,
 * not counted as records) and each op's collective (Ops.collective, index
 * + 1, 0 none, left out of a chunk where no op has one). A 1.0 file reads
 * with no ranks and no collectives. Also in 1.1: GPU annotation ranges
 * (range kind 5) and their stream (Ranges.stream, index + 1, 0 none, left
 * out of a chunk where no range has one); a reader that does not know them
 * reads such ranges as host ranges of kind "other". 1.2: each process's
 * wall clock (Process.clock, enum gs_clock_source, and .wall_offset_ns)
 * and communication backend (Process.backend), and each collective's
 * sequence number (Collective.seq with .has_seq); a 1.1 file reads with
 * clocks not known, no backend and no sequence numbers.
 */
#define GS_FILE_MAGIC "GSCOPE\0\0"
#define GS_FILE_MAGIC_LEN 8
#define GS_FILE_HEADER_LEN 20
#define GS_CHUNK_HEADER_LEN 28
#define GS_FORMAT_MAJOR 1
#define GS_FORMAT_MINOR 2

/*
 * The header's feature mask: bits 0-15 name required features (a reader
 * refuses a file with one it does not know), bits 16-31 optional ones (a
 * reader ignores those it does not know). None is defined yet: writers
 * write 0.
 */
#define GS_FEATURES_REQUIRED 0x0000FFFFu
#define GS_FEATURES_KNOWN 0u

/*
 * The flags of a chunk header: none is defined yet (writers write 0). A
 * reader reads a chunk whose flags hold bits it does not know as if they
 * were clear, and says so once for the file: a warning naming the bits,
 * how many chunks have them and the first.
 */
#define GS_CHUNK_FLAGS_KNOWN 0u

/* Bounds a hostile file cannot exceed (checked before allocating). */
#define GS_CHUNK_MAX_RAW (64u << 20)
#define GS_CHUNK_MAX_COMPRESSED (GS_CHUNK_MAX_RAW + (GS_CHUNK_MAX_RAW >> 8) + 64)

enum gs_chunk_type {
	GS_CHUNK_META = 1,    /* processes, devices, streams, strings */
	GS_CHUNK_RECORDS = 2, /* ops, api calls, syncs, ranges, ... */
	GS_CHUNK_END = 3,     /* clean end of file (totals) */
			      /* Readers skip chunks of other types (a warning per type). */
};

struct gs_writer;

struct gs_writer_options {
	/* Records buffered before a chunk is written (0: default 65536). */
	uint32_t flush_records;
	/* zlib level 0..9 (-1: default 6). */
	int compression_level;
	/* Open with O_EXCL|O_NOFOLLOW: never overwrite, never follow a link. */
	bool exclusive;
};

/* Open `path` for writing, write the header. */
gs_status gs_writer_open(const char *path, const struct gs_writer_options *opts,
			 struct gs_writer **out);
/* Write to an already open descriptor (not closed by gs_writer_close). */
gs_status gs_writer_open_fd(int fd, const char *name, const struct gs_writer_options *opts,
			    struct gs_writer **out);
/* The sink interface of the writer: append records. Strings and streams
 * are interned in the writer's own tables. */
struct gs_sink *gs_writer_borrow_sink(struct gs_writer *w);
/* Write what is buffered as one chunk now (no-op when empty). */
gs_status gs_writer_flush(struct gs_writer *w);
/* Flush, write the end chunk, close. Frees the writer even on error. */
gs_status gs_writer_close(struct gs_writer *w);
/*
 * Close a writer whose output failed (a write error, a full disk): cut the
 * file back to its last whole chunk, then try to end it with a chunk that
 * counts the records that never reached it (those appended since the last
 * whole chunk, plus `also_lost` the caller discarded) as dropped by `pid`,
 * with a warning "N records lost: WHY", and the end chunk. When that fails
 * too the file still ends at a whole chunk (read as cut short). *lost (may
 * be NULL) gets N. Frees the writer. Not for a writer without an error.
 */
gs_status gs_writer_close_lost(struct gs_writer *w, int64_t pid, uint64_t also_lost,
			       const char *why, uint64_t *lost);
/* Records appended and chunks written so far. */
uint64_t gs_writer_record_count(const struct gs_writer *w);
uint64_t gs_writer_chunk_count(const struct gs_writer *w);

struct gs_reader;

enum gs_reader_flags {
	/* Skip chunks with a bad CRC or payload (warning) instead of failing. */
	GS_READER_SALVAGE = 1u << 0,
};

/* Open a file, or a memory buffer (borrowed until close). `name` is used
 * in error messages. */
gs_status gs_reader_open(const char *path, unsigned flags, struct gs_reader **out);
gs_status gs_reader_open_mem(const void *data, size_t size, const char *name, unsigned flags,
			     struct gs_reader **out);
/*
 * Decode the next chunk into `sink`. Returns GS_OK after a chunk, GS_END at
 * the end of the data (a file cut short ends with a warning to the sink
 * saying where), or an error naming the chunk.
 */
gs_status gs_reader_next(struct gs_reader *r, struct gs_sink *sink);
/* All chunks into `sink`. */
gs_status gs_reader_read_all(struct gs_reader *r, struct gs_sink *sink);
/*
 * Past 16 MiB inflated (a chunk's payload, or the file's so far), payloads
 * may inflate to at most `ratio` times their compressed size (0: the
 * default, 250; the max_inflate_ratio import limit); a chunk may claim at
 * most one record a payload byte. A frame over either is refused before it
 * is inflated (GS_ERR_FORMAT naming the chunk).
 */
#define GS_READER_DEFAULT_INFLATE_RATIO 250u
void gs_reader_set_max_inflate_ratio(struct gs_reader *r, uint32_t ratio);
uint64_t gs_reader_chunk_index(const struct gs_reader *r);
void gs_reader_close(struct gs_reader *r);

/* True when the bytes start with the .gscope magic. */
bool gs_is_gscope(const void *head, size_t len);

/* Load a .gscope file into a new trace (finished). */
gs_status gs_trace_load_gscope(const char *path, unsigned reader_flags, struct gs_trace **out);

/* Write a finished trace to a .gscope file. */
gs_status gs_trace_save_gscope(const struct gs_trace *t, const char *path,
			       const struct gs_writer_options *opts);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_GSCOPE_FILE_H */
