/* SPDX-License-Identifier: MIT */
/*
 * gen_bad's .gscope files cut or corrupted at chosen places of a small
 * valid trace written by gs_writer (five chunks), and files with chunks
 * built by hand from the protobuf schema (struct gfile): malformed
 * protobuf, a string table past the limit, absurd and wrapping times,
 * chunks of unknown types, a million empty chunks.
 */
#include <gpuscope/format.h>

#include "gs_trace.pb-c.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gen_bad.h"

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct buf {
	unsigned char *p;
	size_t n;
};

/* The valid trace every corrupt variant starts from: one stream, 8 ops with
 * their API calls, written 2 records a chunk (meta, records..., end). */
static struct buf base_trace(void)
{
	struct gs_writer_options o = {.flush_records = 4, .compression_level = 6};
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 100, .device = 0, .stream_id = 7, .kind = GS_STREAM_BLOCKING};
	uint32_t name, api, idx;
	struct buf b = {0};
	FILE *f;
	long len;

	if (gs_writer_open(path_of("base.gscope"), &o, &w) != GS_OK)
		die("cannot write base.gscope");
	s = gs_writer_borrow_sink(w);
	if (s->intern(s, "kernel_a", 8, &name) || s->intern(s, "cudaLaunchKernel", 16, &api) ||
	    s->stream(s, &st, &idx))
		die("base.gscope: sink failed");
	for (int i = 0; i < 8; i++) {
		struct gs_api_call c = {.start_ns = 1000 + i * 100,
					.end_ns = 1010 + i * 100,
					.pid = 100,
					.tid = 100,
					.correlation = (uint64_t)i + 1,
					.name = api};
		struct gs_op op = {.start_ns = 1020 + i * 100,
				   .end_ns = 1080 + i * 100,
				   .correlation = (uint64_t)i + 1,
				   .name = name,
				   .stream = idx,
				   .kind = GS_OP_KERNEL};
		struct gs_launch_cfg lc = {.grid = {1, 1, 1}, .block = {32, 1, 1}};

		if (s->api_call(s, &c) || s->op(s, &op, &lc))
			die("base.gscope: sink failed");
	}
	if (gs_writer_close(w) != GS_OK)
		die("base.gscope: close failed");
	f = fopen(path_of("base.gscope"), "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		die("base.gscope: cannot read back");
	b.n = (size_t)len;
	b.p = malloc(b.n);
	if (!b.p || fread(b.p, 1, b.n, f) != b.n)
		die("base.gscope: cannot read back");
	fclose(f);
	return b;
}

/* Offset of chunk `k` (0-based), and its total size. */
static size_t chunk_at(const struct buf *b, unsigned k, size_t *size)
{
	size_t off = GS_FILE_HEADER_LEN;

	for (unsigned i = 0;; i++) {
		size_t sz;

		if (off + GS_CHUNK_HEADER_LEN > b->n)
			die("base.gscope has no chunk %u", k);
		sz = GS_CHUNK_HEADER_LEN + get32(b->p + off + 12);
		if (i == k) {
			*size = sz;
			return off;
		}
		off += sz;
	}
}

static unsigned chunk_count(const struct buf *b)
{
	size_t off = GS_FILE_HEADER_LEN;
	unsigned n = 0;

	while (off + GS_CHUNK_HEADER_LEN <= b->n) {
		off += GS_CHUNK_HEADER_LEN + get32(b->p + off + 12);
		n++;
	}
	return n;
}

/* Write a copy of `b` with `edit` applied to it. */
static void variant(const char *name, const struct buf *b, size_t len,
		    void (*edit)(unsigned char *p, size_t n, const struct buf *b))
{
	unsigned char *p = malloc(b->n);

	if (!p)
		die("out of memory");
	memcpy(p, b->p, b->n);
	if (edit)
		edit(p, len, b);
	write_bytes(name, p, len);
	free(p);
}

static void fix_header_crc(unsigned char *h)
{
	put32(h + 24, (uint32_t)crc32(0, h, 24));
}

static void ed_magic(unsigned char *p, size_t n, const struct buf *b)
{
	(void)n;
	(void)b;
	memcpy(p, "GSCOPX", 6);
}

static void ed_future(unsigned char *p, size_t n, const struct buf *b)
{
	(void)n;
	(void)b;
	p[8] = 2; /* version 2.0 */
	p[9] = 0;
	p[10] = 0;
	p[11] = 0;
	put32(p + 16, (uint32_t)crc32(0, p, 16));
}

static void ed_feature(unsigned char *p, size_t n, const struct buf *b)
{
	(void)n;
	(void)b;
	put32(p + 12, 0x00010005u); /* required bits 0 and 2, optional bit 16 */
	put32(p + 16, (uint32_t)crc32(0, p, 16));
}

static void ed_header_crc(unsigned char *p, size_t n, const struct buf *b)
{
	(void)n;
	(void)b;
	p[16] ^= 0x55;
}

static void ed_payload_byte(unsigned char *p, size_t n, const struct buf *b)
{
	size_t sz, off = chunk_at(b, 1, &sz);

	(void)n;
	p[off + GS_CHUNK_HEADER_LEN + 3] ^= 0x01;
}

static void ed_chunk_header_crc(unsigned char *p, size_t n, const struct buf *b)
{
	size_t sz, off = chunk_at(b, 1, &sz);

	(void)n;
	p[off + 16] ^= 0x01; /* record count, header CRC left as it was */
}

/* Flag bits no version defines: all 16 on chunk 1, bit 0 on chunk 3. */
static void ed_chunk_flags(unsigned char *p, size_t n, const struct buf *b)
{
	size_t sz, off = chunk_at(b, 1, &sz);

	(void)n;
	p[off + 6] = p[off + 7] = 0xff;
	fix_header_crc(p + off);
	off = chunk_at(b, 3, &sz);
	p[off + 6] = 0x01;
	fix_header_crc(p + off);
}

static void ed_chunk_magic(unsigned char *p, size_t n, const struct buf *b)
{
	size_t sz, off = chunk_at(b, 2, &sz);

	(void)n;
	memcpy(p + off, "GSCX", 4);
}

static void ed_huge_length(unsigned char *p, size_t n, const struct buf *b)
{
	size_t sz, off = chunk_at(b, 1, &sz);

	(void)n;
	put32(p + off + 8, 0xfffffff0u); /* raw length */
	fix_header_crc(p + off);
}

static void ed_record_count(unsigned char *p, size_t n, const struct buf *b)
{
	size_t sz, off = chunk_at(b, 1, &sz);

	(void)n;
	put32(p + off + 16, get32(p + off + 16) + 1);
	fix_header_crc(p + off);
}

static void ed_record_count_huge(unsigned char *p, size_t n, const struct buf *b)
{
	size_t sz, off = chunk_at(b, 1, &sz);

	(void)n;
	put32(p + off + 16, 0xffffffffu); /* more records than payload bytes */
	fix_header_crc(p + off);
}

static void ed_bad_zlib(unsigned char *p, size_t n, const struct buf *b)
{
	size_t sz, off = chunk_at(b, 1, &sz);
	unsigned char *pl = p + off + GS_CHUNK_HEADER_LEN;

	(void)n;
	for (size_t i = 0; i < sz - GS_CHUNK_HEADER_LEN; i++)
		pl[i] = (unsigned char)(0xa5 ^ i);
	put32(p + off + 20, (uint32_t)crc32(0, pl, (uInt)(sz - GS_CHUNK_HEADER_LEN)));
	fix_header_crc(p + off);
}

static void gf_add(struct gfile *g, const void *data, size_t n)
{
	if (g->n + n > g->cap) {
		size_t cap = (g->n + n) * 2;
		unsigned char *np = realloc(g->p, cap);

		if (!np)
			die("out of memory");
		g->p = np;
		g->cap = cap;
	}
	memcpy(g->p + g->n, data, n);
	g->n += n;
}

void gf_header(struct gfile *g)
{
	unsigned char h[GS_FILE_HEADER_LEN] = {0};

	memcpy(h, GS_FILE_MAGIC, GS_FILE_MAGIC_LEN);
	h[8] = GS_FORMAT_MAJOR;
	h[10] = GS_FORMAT_MINOR;
	put32(h + 16, (uint32_t)crc32(0, h, 16));
	gf_add(g, h, sizeof(h));
}

/* A chunk of raw payload bytes (compressed here), claiming `nrec` records. */
void gf_raw_chunk(struct gfile *g, uint16_t type, const void *raw, size_t n, uint32_t nrec)
{
	uLongf clen = compressBound((uLong)n);
	unsigned char *c = malloc(clen + GS_CHUNK_HEADER_LEN);

	if (!c || compress2(c + GS_CHUNK_HEADER_LEN, &clen, raw, (uLong)n, 6) != Z_OK)
		die("compress failed");
	memcpy(c, "GSCK", 4);
	c[4] = (unsigned char)type;
	c[5] = 0;
	c[6] = c[7] = 0;
	put32(c + 8, (uint32_t)n);
	put32(c + 12, (uint32_t)clen);
	put32(c + 16, nrec);
	put32(c + 20, (uint32_t)crc32(0, c + GS_CHUNK_HEADER_LEN, (uInt)clen));
	fix_header_crc(c);
	gf_add(g, c, GS_CHUNK_HEADER_LEN + clen);
	free(c);
}

void gf_chunk(struct gfile *g, uint16_t type, const Gscope__Chunk *m, uint32_t nrec)
{
	size_t n = gscope__chunk__get_packed_size(m);
	unsigned char *raw = malloc(n ? n : 1);

	if (!raw)
		die("out of memory");
	gscope__chunk__pack(m, raw);
	gf_raw_chunk(g, type, raw, n, nrec);
	free(raw);
}

void gf_write(struct gfile *g, const char *name)
{
	write_bytes(name, g->p, g->n);
	free(g->p);
	memset(g, 0, sizeof(*g));
}

/* Hand-built files: malformed protobuf, a string table past the limit,
 * ops with absurd times, an op of a collective never declared. */
static void crafted_gscope(void)
{
	static const unsigned char junk[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x7f};
	struct gfile g = {0};
	Gscope__Chunk c = GSCOPE__CHUNK__INIT;
	Gscope__Stream s = GSCOPE__STREAM__INIT, *sp = &s;
	Gscope__Ops ops = GSCOPE__OPS__INIT;
	static uint8_t k_name[] = "k";
	ProtobufCBinaryData str = {.len = 1, .data = k_name};
	uint32_t kind[2] = {GS_OP_KERNEL, GS_OP_KERNEL}, stream[2] = {0, 0}, name[2] = {1, 1};
	int64_t start[2] = {INT64_MAX - 10, 5};
	uint64_t dur[2] = {UINT64_MAX / 2, 1000};
	uint32_t zero[2] = {0, 0};
	int64_t corr[2] = {1, 1};
	uint32_t coll[2] = {1, 0};

	gf_header(&g);
	gf_raw_chunk(&g, GS_CHUNK_RECORDS, junk, sizeof(junk), 0);
	gf_write(&g, "bad-protobuf.gscope");

	gf_header(&g);
	c.string_base = 4000000000u;
	c.n_strings = 1;
	c.strings = &str;
	gf_chunk(&g, GS_CHUNK_META, &c, 0);
	gf_write(&g, "string-base.gscope");

	/* Two kernels: one starting near INT64_MAX ns and running for 2^63 ns,
	 * then one at a delta that wraps the time back to small values. */
	gf_header(&g);
	c = (Gscope__Chunk)GSCOPE__CHUNK__INIT;
	c.string_base = 0;
	c.n_strings = 1;
	c.strings = &str;
	s.index = 0;
	s.stream_id = 7;
	c.n_streams = 1;
	c.streams = &sp;
	ops.n_kind = 2;
	ops.kind = kind;
	ops.n_start_delta = 2;
	ops.start_delta = start;
	ops.n_duration = 2;
	ops.duration = dur;
	ops.n_stream = 2;
	ops.stream = stream;
	ops.n_name = 2;
	ops.name = name;
	ops.n_correlation_delta = 2;
	ops.correlation_delta = corr;
	ops.n_grid_x = ops.n_grid_y = ops.n_grid_z = 2;
	ops.grid_x = ops.grid_y = ops.grid_z = zero;
	ops.n_block_x = ops.n_block_y = ops.n_block_z = 2;
	ops.block_x = ops.block_y = ops.block_z = zero;
	c.ops = &ops;
	gf_chunk(&g, GS_CHUNK_RECORDS, &c, 2);
	c = (Gscope__Chunk)GSCOPE__CHUNK__INIT;
	c.string_base = 1;
	c.total_records = 2;
	gf_chunk(&g, GS_CHUNK_END, &c, 0);
	gf_write(&g, "absurd-times.gscope");

	/* The first kernel of those two refers to collective 0, the second to
	 * none; the file declares no collective. */
	gf_header(&g);
	c = (Gscope__Chunk)GSCOPE__CHUNK__INIT;
	c.n_strings = 1;
	c.strings = &str;
	c.n_streams = 1;
	c.streams = &sp;
	start[0] = 1000;
	dur[0] = dur[1] = 10;
	ops.n_collective = 2;
	ops.collective = coll;
	c.ops = &ops;
	gf_chunk(&g, GS_CHUNK_RECORDS, &c, 2);
	c = (Gscope__Chunk)GSCOPE__CHUNK__INIT;
	c.string_base = 1;
	c.total_records = 2;
	gf_chunk(&g, GS_CHUNK_END, &c, 0);
	gf_write(&g, "undeclared-collective.gscope");
}

/* Kernels "k" on one stream, one chunk of them (correlations 1, 2, ...) and
 * the end chunk, with the start deltas and durations given. */
static void kernels_gscope(const char *file, size_t n, const int64_t *start, const uint64_t *dur)
{
	static uint8_t k_name[] = "k";
	ProtobufCBinaryData str = {.len = 1, .data = k_name};
	Gscope__Chunk c = GSCOPE__CHUNK__INIT;
	Gscope__Stream st = GSCOPE__STREAM__INIT, *stp = &st;
	Gscope__Ops ops = GSCOPE__OPS__INIT;
	uint32_t kind[8], zero[8], name[8];
	int64_t corr[8];
	struct gfile g = {0};

	if (n > 8)
		die("%s: too many kernels", file);
	for (size_t i = 0; i < n; i++) {
		kind[i] = GS_OP_KERNEL;
		zero[i] = 0;
		name[i] = 1;
		corr[i] = 1;
	}
	st.stream_id = 7;
	c.n_strings = 1;
	c.strings = &str;
	c.n_streams = 1;
	c.streams = &stp;
	ops.n_kind = ops.n_start_delta = ops.n_duration = ops.n_stream = ops.n_name = n;
	ops.kind = kind;
	ops.start_delta = (int64_t *)(uintptr_t)start;
	ops.duration = (uint64_t *)(uintptr_t)dur;
	ops.stream = zero;
	ops.name = name;
	ops.n_correlation_delta = n;
	ops.correlation_delta = corr;
	ops.n_grid_x = ops.n_grid_y = ops.n_grid_z = n;
	ops.grid_x = ops.grid_y = ops.grid_z = zero;
	ops.n_block_x = ops.n_block_y = ops.n_block_z = n;
	ops.block_x = ops.block_y = ops.block_z = zero;
	c.ops = &ops;
	gf_header(&g);
	gf_chunk(&g, GS_CHUNK_RECORDS, &c, (uint32_t)n);
	c = (Gscope__Chunk)GSCOPE__CHUNK__INIT;
	c.string_base = 1;
	c.total_records = n;
	gf_chunk(&g, GS_CHUNK_END, &c, 0);
	gf_write(&g, file);
}

/*
 * Times whose sums pass 64 bits. end-wraps: a kernel at 1000 ns, one 8 days
 * long starting 1000 ns before INT64_MAX (its end passes INT64_MAX: dropped
 * for its duration), and one at 2000 ns, the deltas taking the time back.
 * start-wraps: a kernel at -1000 ns, then one 1000 ns long at a delta of
 * INT64_MIN + 5, which wraps its start to 2^63 - 995 ns (and its end past
 * INT64_MAX): refused for its start, as out of range.
 */
static void wrapped_times_gscope(void)
{
	const uint64_t days8 = 8ull * 24 * 3600 * 1000000000ull;
	const int64_t end_start[3] = {1000, INT64_MAX - 2000, -(INT64_MAX - 2000) + 1000};
	const uint64_t end_dur[3] = {10, days8, 10};
	const int64_t wrap_start[2] = {-1000, INT64_MIN + 5};
	const uint64_t wrap_dur[2] = {10, 1000};

	kernels_gscope("end-wraps.gscope", 3, end_start, end_dur);
	kernels_gscope("start-wraps.gscope", 2, wrap_start, wrap_dur);
}

/* The base file with three chunks of types no reader knows after chunk 1:
 * two of type 9 and one of type 12. */
static void unknown_chunks_gscope(const struct buf *b)
{
	struct gfile g = {0};
	size_t sz, off = chunk_at(b, 1, &sz);

	gf_add(&g, b->p, off + sz);
	gf_raw_chunk(&g, 9, "later", 5, 0);
	gf_raw_chunk(&g, 9, "later", 5, 0);
	gf_raw_chunk(&g, 12, "later still", 11, 0);
	gf_add(&g, b->p + off + sz, b->n - off - sz);
	write_bytes("unknown-chunks.gscope", g.p, g.n);
	free(g.p);
}

/* The base file with a million empty record chunks after its header
 * (36 MB): each a whole chunk, read for nothing. */
static void empty_chunks_gscope(const struct buf *b)
{
	struct gfile one = {0};
	FILE *f = create("empty-chunks-1m.gscope");

	gf_raw_chunk(&one, GS_CHUNK_RECORDS, "", 0, 0);
	if (fwrite(b->p, 1, GS_FILE_HEADER_LEN, f) != GS_FILE_HEADER_LEN)
		die("empty-chunks-1m.gscope: write failed");
	for (int i = 0; i < 1000000; i++)
		if (fwrite(one.p, 1, one.n, f) != one.n)
			die("empty-chunks-1m.gscope: write failed");
	if (fwrite(b->p + GS_FILE_HEADER_LEN, 1, b->n - GS_FILE_HEADER_LEN, f) !=
	    b->n - GS_FILE_HEADER_LEN)
		die("empty-chunks-1m.gscope: write failed");
	finish(f, "empty-chunks-1m.gscope");
	free(one.p);
}

void gscope_files(void)
{
	struct buf b = base_trace();
	unsigned n = chunk_count(&b);
	size_t sz, off;

	if (n < 4)
		die("base.gscope has %u chunks, want at least 4", n);
	variant("empty.gscope", &b, 0, NULL);
	variant("wrong-magic.gscope", &b, b.n, ed_magic);
	variant("future-version.gscope", &b, b.n, ed_future);
	variant("header-cut.gscope", &b, 12, NULL);
	variant("header-crc.gscope", &b, b.n, ed_header_crc);
	variant("cut-after-header.gscope", &b, GS_FILE_HEADER_LEN, NULL);
	variant("cut-in-chunk-header.gscope", &b, GS_FILE_HEADER_LEN + 10, NULL);
	off = chunk_at(&b, 1, &sz);
	variant("cut-in-payload.gscope", &b, off + GS_CHUNK_HEADER_LEN + 5, NULL);
	off = chunk_at(&b, n - 1, &sz);
	variant("cut-before-end.gscope", &b, off, NULL);
	variant("cut-in-end-chunk.gscope", &b, off + sz - 1, NULL);
	variant("chunk-crc.gscope", &b, b.n, ed_payload_byte);
	variant("chunk-header-crc.gscope", &b, b.n, ed_chunk_header_crc);
	variant("chunk-magic.gscope", &b, b.n, ed_chunk_magic);
	variant("chunk-flags.gscope", &b, b.n, ed_chunk_flags);
	variant("huge-length.gscope", &b, b.n, ed_huge_length);
	variant("record-count.gscope", &b, b.n, ed_record_count);
	variant("record-count-huge.gscope", &b, b.n, ed_record_count_huge);
	variant("bad-zlib.gscope", &b, b.n, ed_bad_zlib);
	variant("unknown-feature.gscope", &b, b.n, ed_feature);
	unknown_chunks_gscope(&b);
	empty_chunks_gscope(&b);
	free(b.p);
	crafted_gscope();
	wrapped_times_gscope();
}
