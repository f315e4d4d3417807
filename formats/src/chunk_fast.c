/* SPDX-License-Identifier: MIT */
/*
 * The fast chunk unpacker (see chunk_fast.h).
 *
 * Protobuf wire format: a field is a varint tag (number << 3 | wire type)
 * then its value: wire type 0 a varint, 1 eight bytes, 2 a varint length
 * and that many bytes, 5 four bytes. A packed repeated field is one wire
 * type 2 field holding the varints back to back. The field descriptors of
 * the generated code give each column's type and where its count and array
 * live in the message struct, so a new column of a supported type needs no
 * change here.
 */
#include "chunk_fast.h"

#include <stdlib.h>
#include <string.h>

#define FIELD_OPS 7
#define FIELD_API_CALLS 8
#define FIELD_RANGES 9

/* One varint of at most `max` bytes at p (< end). Returns its length, or 0
 * when it is unterminated within max bytes or the input. */
static size_t varint(const uint8_t *p, const uint8_t *end, size_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t n = (size_t)(end - p) < max ? (size_t)(end - p) : max;

	for (size_t i = 0; i < n; i++) {
		x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	return 0;
}

static bool reserve(struct gs_chunk_fast_col *c, size_t bytes)
{
	void *nv;
	size_t cap;

	if (bytes <= c->cap)
		return true;
	cap = c->cap ? c->cap : 4096;
	while (cap < bytes)
		cap *= 2;
	nv = realloc(c->v, cap);
	if (!nv)
		return false;
	c->v = nv;
	c->cap = cap;
	return true;
}

/* Element conversions, as protobuf-c makes them. */
static inline uint32_t conv_u32(uint64_t v)
{
	return (uint32_t)v;
}

static inline int32_t conv_s32(uint64_t v)
{
	return (int32_t)((uint32_t)(v >> 1) ^ (uint32_t) - (int32_t)(v & 1));
}

static inline int64_t conv_s64(uint64_t v)
{
	return (int64_t)((v >> 1) ^ (uint64_t) - (int64_t)(v & 1));
}

static inline uint64_t conv_u64(uint64_t v)
{
	return v;
}

/*
 * Decode the packed varints [p, end) (the last byte has its high bit clear:
 * checked by the caller) into out[] as type T (room for end - p of them),
 * their number into *count. Values of one and two
 * bytes, the common ones, are decoded inline. Fails when an element does
 * not fit its type canonically (uint32 and sint32: at most 5 bytes and a
 * value below 2^32; 64-bit: at most 10 bytes and below 2^64): the caller
 * then leaves the chunk to protobuf-c, whose truncation rules differ.
 * (T is a type name, which cannot be parenthesised: hence the NOLINT.)
 */
#define DECODE_PACKED(name, T, conv, max, top)                                                     \
	/* NOLINTNEXTLINE(bugprone-macro-parentheses) */                                           \
	static bool name(const uint8_t *p, const uint8_t *end, T *out, size_t *count)              \
	{                                                                                          \
		size_t i = 0;                                                                      \
                                                                                                   \
		for (; p < end; i++) {                                                             \
			uint64_t v;                                                                \
                                                                                                   \
			if (!(p[0] & 0x80)) {                                                      \
				v = p[0];                                                          \
				p += 1;                                                            \
			} else if (!(p[1] & 0x80)) {                                               \
				v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;                 \
				p += 2;                                                            \
			} else {                                                                   \
				size_t n = varint(p, end, max, &v);                                \
                                                                                                   \
				if (!n || (n == (max) && p[n - 1] > (top)))                        \
					return false;                                              \
				p += n;                                                            \
			}                                                                          \
			out[i] = conv(v);                                                          \
		}                                                                                  \
		*count = i;                                                                        \
		return p == end;                                                                   \
	}

DECODE_PACKED(decode_u32, uint32_t, conv_u32, 5, 0x0f)
DECODE_PACKED(decode_s32, int32_t, conv_s32, 5, 0x0f)
DECODE_PACKED(decode_s64, int64_t, conv_s64, 10, 0x01)
DECODE_PACKED(decode_u64, uint64_t, conv_u64, 10, 0x01)

static bool decode_packed(ProtobufCType type, const uint8_t *p, const uint8_t *end, void *out,
			  size_t *count)
{
	switch (type) {
	case PROTOBUF_C_TYPE_UINT32:
		return decode_u32(p, end, out, count);
	case PROTOBUF_C_TYPE_SINT32:
		return decode_s32(p, end, out, count);
	case PROTOBUF_C_TYPE_SINT64:
		return decode_s64(p, end, out, count);
	default: /* UINT64, INT64 */
		return decode_u64(p, end, out, count);
	}
}

/* A columnar message (Ops, ApiCalls, Ranges) from [p, p + len). */
static bool columns(struct gs_chunk_fast_col *cols, const ProtobufCMessageDescriptor *desc,
		    ProtobufCMessage *msg, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t seen = 0;

	desc->message_init(msg);
	while (p < end) {
		const ProtobufCFieldDescriptor *f;
		uint64_t tag, plen;
		size_t n, count = 0, elem;

		n = varint(p, end, 5, &tag);
		if (!n || tag > UINT32_MAX || (tag & 7) != 2)
			return false;
		p += n;
		if ((tag >> 3) > GS_CHUNK_FAST_MAX_FIELD || (seen & (1ull << (tag >> 3))))
			return false;
		seen |= 1ull << (tag >> 3);
		f = protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3));
		if (!f || f->label != PROTOBUF_C_LABEL_REPEATED)
			return false;
		switch (f->type) {
		case PROTOBUF_C_TYPE_UINT32:
		case PROTOBUF_C_TYPE_SINT32:
			elem = 4;
			break;
		case PROTOBUF_C_TYPE_UINT64:
		case PROTOBUF_C_TYPE_INT64:
		case PROTOBUF_C_TYPE_SINT64:
			elem = 8;
			break;
		default:
			return false;
		}
		n = varint(p, end, 10, &plen);
		if (!n || plen > (uint64_t)(end - p - (ptrdiff_t)n))
			return false;
		p += n;
		if (plen && (p[plen - 1] & 0x80))
			return false;
		if (plen) {
			struct gs_chunk_fast_col *c = &cols[tag >> 3];

			/* At most one element a byte. */
			if (!reserve(c, plen * elem) ||
			    !decode_packed(f->type, p, p + plen, c->v, &count))
				return false;
			*(size_t *)(void *)((char *)msg + f->quantifier_offset) = count;
			*(void **)(void *)((char *)msg + f->offset) = c->v;
		}
		p += plen;
	}
	return true;
}

void gs_chunk_fast_init(struct gs_chunk_fast *fs)
{
	memset(fs, 0, sizeof(*fs));
}

void gs_chunk_fast_fini(struct gs_chunk_fast *fs)
{
	for (int m = 0; m < 3; m++)
		for (int i = 0; i <= GS_CHUNK_FAST_MAX_FIELD; i++)
			free(fs->cols[m][i].v);
	free(fs->rest);
	memset(fs, 0, sizeof(*fs));
}

/* The fast path; NULL when it does not apply (or protobuf-c rejects the
 * rest, which the fallback then reports the same way). */
static Gscope__Chunk *fast(struct gs_chunk_fast *fs, size_t len, const uint8_t *data)
{
	const uint8_t *p = data, *end = data + len, *sub[3] = {NULL, NULL, NULL};
	size_t sublen[3] = {0, 0, 0}, rest = 0;
	Gscope__Chunk *c;

	if (len > fs->rest_cap) {
		uint8_t *nr = realloc(fs->rest, len);

		if (!nr)
			return NULL;
		fs->rest = nr;
		fs->rest_cap = len;
	}
	while (p < end) {
		const uint8_t *start = p;
		uint64_t tag, v = 0;
		size_t n = varint(p, end, 5, &tag);
		unsigned id, wt;

		if (!n || tag > UINT32_MAX)
			return NULL;
		p += n;
		id = (unsigned)(tag >> 3);
		wt = (unsigned)(tag & 7);
		switch (wt) {
		case 0:
			n = varint(p, end, 10, &v);
			if (!n)
				return NULL;
			p += n;
			break;
		case 1:
			if (end - p < 8)
				return NULL;
			p += 8;
			break;
		case 2:
			n = varint(p, end, 10, &v);
			if (!n || v > (uint64_t)(end - p - (ptrdiff_t)n))
				return NULL;
			p += n + v;
			break;
		case 5:
			if (end - p < 4)
				return NULL;
			p += 4;
			break;
		default:
			return NULL;
		}
		if (id == FIELD_OPS || id == FIELD_API_CALLS || id == FIELD_RANGES) {
			int k = (int)(id - FIELD_OPS);

			if (wt != 2 || sub[k])
				return NULL; /* protobuf-c would merge repeats: leave it that */
			sub[k] = p - v;
			sublen[k] = (size_t)v;
			continue;
		}
		memcpy(fs->rest + rest, start, (size_t)(p - start));
		rest += (size_t)(p - start);
	}
	if ((sub[0] &&
	     !columns(fs->cols[0], &gscope__ops__descriptor, &fs->ops.base, sub[0], sublen[0])) ||
	    (sub[1] && !columns(fs->cols[1], &gscope__api_calls__descriptor, &fs->api.base, sub[1],
				sublen[1])) ||
	    (sub[2] && !columns(fs->cols[2], &gscope__ranges__descriptor, &fs->ranges.base, sub[2],
				sublen[2])))
		return NULL;
	c = gscope__chunk__unpack(NULL, rest, fs->rest);
	if (!c)
		return NULL;
	c->ops = sub[0] ? &fs->ops : NULL;
	c->api_calls = sub[1] ? &fs->api : NULL;
	c->ranges = sub[2] ? &fs->ranges : NULL;
	return c;
}

Gscope__Chunk *gs_chunk_fast_unpack(struct gs_chunk_fast *fs, size_t len, const uint8_t *data)
{
	Gscope__Chunk *c = fast(fs, len, data);

	fs->used = c != NULL;
	if (c) {
		fs->fast++;
		return c;
	}
	fs->slow++;
	return gscope__chunk__unpack(NULL, len, data);
}

void gs_chunk_fast_free(struct gs_chunk_fast *fs, Gscope__Chunk *c)
{
	if (!c)
		return;
	if (fs->used) {
		c->ops = NULL;
		c->api_calls = NULL;
		c->ranges = NULL;
	}
	gscope__chunk__free_unpacked(c, NULL);
}
