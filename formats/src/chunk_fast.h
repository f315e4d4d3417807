/* SPDX-License-Identifier: MIT */
/*
 * Private to gs_format: unpacking a .gscope chunk payload without
 * protobuf-c's per-element overhead on the columns.
 *
 * The columnar messages (Chunk.ops, .api_calls, .ranges: nearly all of a
 * chunk) are decoded here straight into arrays reused from chunk to chunk;
 * the rest of the Chunk (strings, streams, syncs, ...) is cut out byte for
 * byte and unpacked by protobuf-c. The fast path takes only what the writer
 * produces (each column once, packed, well-formed varints whose values fit
 * their type, no unknown fields inside the columnar messages); anything
 * else falls back to protobuf-c on the whole payload, so the result (and
 * every failure) is what protobuf-c alone gives.
 */
#ifndef GS_FORMAT_CHUNK_FAST_H
#define GS_FORMAT_CHUNK_FAST_H

#include "gs_trace.pb-c.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GS_CHUNK_FAST_MAX_FIELD 32

struct gs_chunk_fast_col {
	void *v;
	size_t cap; /* bytes */
};

struct gs_chunk_fast {
	Gscope__Ops ops;
	Gscope__ApiCalls api;
	Gscope__Ranges ranges;
	struct gs_chunk_fast_col cols[3][GS_CHUNK_FAST_MAX_FIELD + 1];
	uint8_t *rest; /* the other fields of the Chunk */
	size_t rest_cap;
	bool used;           /* the last unpack took the fast path */
	uint64_t fast, slow; /* chunks unpacked each way */
};

void gs_chunk_fast_init(struct gs_chunk_fast *fs);
void gs_chunk_fast_fini(struct gs_chunk_fast *fs);

/* Unpack a Chunk payload; NULL when protobuf-c rejects it. The columns
 * stay valid until the next unpack or gs_chunk_fast_fini. */
Gscope__Chunk *gs_chunk_fast_unpack(struct gs_chunk_fast *fs, size_t len, const uint8_t *data);
/* Free what gs_chunk_fast_unpack returned. */
void gs_chunk_fast_free(struct gs_chunk_fast *fs, Gscope__Chunk *c);

#endif
