/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the .gscope reader over arbitrary bytes, into a trace,
 * with and without salvage. Any crash, leak or sanitizer report is a bug.
 *
 * A trace the reader accepts is also written back (gs_trace_replay into a
 * gs_writer on a memory file) and read again: what the writer writes must
 * read back with the same number of ops and API calls (abort otherwise).
 *
 * Custom mutator: a chunk's payload is CRC-checked and zlib-compressed, so
 * byte flips almost never get past the framing. Three mutations in four
 * therefore inflate one chunk, mutate its protobuf bytes, recompress it and
 * fix its lengths, record count and CRCs; the fourth mutates the raw file
 * bytes (framing, lengths, CRCs, truncation).
 */
#define _GNU_SOURCE /* memfd_create */
#include <gpuscope/format.h>

#include "gs_trace.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Inflated payloads the mutator works on (keeps each run fast). */
#define MUTATE_MAX_RAW (1u << 20)

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- round trip ---- */

static void round_trip(const struct gs_trace *t)
{
	struct gs_writer_options wo = {.compression_level = 1};
	struct gs_trace *back = NULL;
	struct gs_writer *w = NULL;
	struct gs_reader *r = NULL;
	size_t n_ops, n_api, b_ops, b_api;
	int fd = memfd_create("fuzz-gscope", MFD_CLOEXEC);
	off_t len;
	void *map;

	if (fd < 0)
		return;
	if (gs_writer_open_fd(fd, "roundtrip.gscope", &wo, &w) != GS_OK) {
		close(fd);
		return;
	}
	if (gs_trace_replay(t, gs_writer_borrow_sink(w)) != GS_OK) {
		gs_writer_close(w);
		close(fd);
		return;
	}
	if (gs_writer_close(w) != GS_OK)
		abort(); /* a replayed trace must be writable */
	len = lseek(fd, 0, SEEK_END);
	map = len > 0 ? mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	if (map == MAP_FAILED || gs_trace_create(&back) != GS_OK)
		abort();
	if (gs_reader_open_mem(map, (size_t)len, "roundtrip.gscope", 0, &r) != GS_OK ||
	    gs_reader_read_all(r, gs_trace_borrow_sink(back)) != GS_OK ||
	    gs_trace_finish(back) != GS_OK)
		abort(); /* what the writer wrote must read back */
	gs_trace_ops(t, &n_ops);
	gs_trace_api_calls(t, &n_api);
	gs_trace_ops(back, &b_ops);
	gs_trace_api_calls(back, &b_api);
	if (n_ops != b_ops || n_api != b_api)
		abort();
	gs_reader_close(r);
	gs_trace_destroy(back);
	munmap(map, (size_t)len);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (unsigned flags = 0; flags <= GS_READER_SALVAGE; flags += GS_READER_SALVAGE) {
		struct gs_trace *t = NULL;
		struct gs_reader *r = NULL;

		if (gs_trace_create(&t) != GS_OK)
			return 0;
		if (gs_reader_open_mem(data, size, "fuzz.gscope", flags, &r) == GS_OK) {
			if (gs_reader_read_all(r, gs_trace_borrow_sink(t)) == GS_OK &&
			    gs_trace_finish(t) == GS_OK && flags == 0)
				round_trip(t);
			gs_reader_close(r);
		}
		gs_trace_destroy(t);
		gs_error_clear();
	}
	return 0;
}

/* ---- custom mutator ---- */

struct span {
	size_t off;  /* of the chunk header */
	size_t size; /* header + payload */
};

/* The whole chunks of a file, at most `max`. */
static size_t find_chunks(const uint8_t *d, size_t size, struct span *out, size_t max)
{
	size_t off = GS_FILE_HEADER_LEN, n = 0;

	while (n < max && off + GS_CHUNK_HEADER_LEN <= size && !memcmp(d + off, "GSCK", 4)) {
		uint64_t comp = get32(d + off + 12);

		if (off + GS_CHUNK_HEADER_LEN + comp > size)
			break;
		out[n].off = off;
		out[n].size = GS_CHUNK_HEADER_LEN + (size_t)comp;
		off += out[n].size;
		n++;
	}
	return n;
}

/* The record count the reader expects in a chunk's header (see reader.c). */
static uint32_t record_count(const uint8_t *raw, size_t len, uint32_t fallback)
{
	Gscope__Chunk *c = gscope__chunk__unpack(NULL, len, raw);
	uint64_t n;

	if (!c)
		return fallback;
	n = c->n_syncs + c->n_event_records + c->n_allocations + c->n_op_allocs + c->n_overheads +
	    c->n_clock_pairs;
	if (c->ops)
		n += c->ops->n_kind;
	if (c->api_calls)
		n += c->api_calls->n_start_delta;
	if (c->ranges)
		n += c->ranges->n_start_delta;
	gscope__chunk__free_unpacked(c, NULL);
	return (uint32_t)n;
}

/* Mutate the protobuf payload of one chunk; 0 when it cannot. */
static size_t mutate_chunk(uint8_t *data, size_t size, size_t max_size, unsigned seed)
{
	struct span chunks[256];
	size_t n = find_chunks(data, size, chunks, 256), out_size = 0;
	uint8_t *raw = NULL, *comp = NULL;
	uLongf raw_len, comp_len;
	struct span c;
	size_t mlen;
	uint8_t *h;

	if (!n)
		return 0;
	c = chunks[seed % n];
	h = data + c.off;
	raw_len = get32(h + 8);
	if (raw_len > MUTATE_MAX_RAW)
		return 0;
	raw = malloc(raw_len * 2 + 256);
	if (!raw)
		return 0;
	if (uncompress(raw, &raw_len, h + GS_CHUNK_HEADER_LEN,
		       (uLong)(c.size - GS_CHUNK_HEADER_LEN)) != Z_OK)
		goto done;
	mlen = LLVMFuzzerMutate(raw, raw_len, raw_len * 2 + 256);
	comp_len = compressBound((uLong)mlen);
	comp = malloc(comp_len);
	if (!comp || compress2(comp, &comp_len, raw, (uLong)mlen, 1) != Z_OK)
		goto done;
	if (size - c.size + GS_CHUNK_HEADER_LEN + comp_len > max_size)
		goto done;
	/* Shift the chunks after this one, then write the new chunk. */
	memmove(data + c.off + GS_CHUNK_HEADER_LEN + comp_len, data + c.off + c.size,
		size - c.off - c.size);
	put32(h + 8, (uint32_t)mlen);
	put32(h + 12, (uint32_t)comp_len);
	put32(h + 16, record_count(raw, mlen, get32(h + 16)));
	memcpy(h + GS_CHUNK_HEADER_LEN, comp, comp_len);
	put32(h + 20, (uint32_t)crc32(0, comp, (uInt)comp_len));
	put32(h + 24, (uint32_t)crc32(0, h, 24));
	out_size = size - c.size + GS_CHUNK_HEADER_LEN + comp_len;
done:
	free(raw);
	free(comp);
	return out_size;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	size_t n;

	if (seed % 4 != 0 && size >= GS_FILE_HEADER_LEN && gs_is_gscope(data, size)) {
		n = mutate_chunk(data, size, max_size, seed / 4);
		if (n)
			return n;
	}
	return LLVMFuzzerMutate(data, size, max_size);
}
