/* SPDX-License-Identifier: MIT */
/*
 * Writes the binary and the large inputs of the bad-input corpus into a
 * directory (tests/bad/run.sh runs gpuscope on them): nothing big or binary
 * is checked in. Deterministic: the same bytes on every run.
 *
 *   gen_bad OUT_DIR
 *
 * .gscope files start from a small valid trace written by gs_writer (five
 * chunks) and are cut or corrupted at chosen places; some chunks are built
 * by hand from the protobuf schema. gzip and JSON inputs are streamed, so
 * files that inflate or parse to gigabytes cost little to make.
 */
#include <gpuscope/format.h>

#include "gs_trace.pb-c.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char *out_dir;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gen_bad: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static char *path_of(const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", out_dir, name);
	return buf;
}

static FILE *create(const char *name)
{
	FILE *f = fopen(path_of(name), "wb");

	if (!f)
		die("%s: %s", path_of(name), strerror(errno));
	return f;
}

static void finish(FILE *f, const char *name)
{
	if (ferror(f) || fclose(f) != 0)
		die("%s: write failed", name);
}

static void write_bytes(const char *name, const void *data, size_t n)
{
	FILE *f = create(name);

	if (n && fwrite(data, 1, n, f) != n)
		die("%s: write failed", name);
	finish(f, name);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ------------------------------------------------------------------------ */
/* .gscope                                                                   */
/* ------------------------------------------------------------------------ */

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

/* A whole file: header, then chunks packed from messages. */
struct gfile {
	unsigned char *p;
	size_t n, cap;
};

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

static void gf_header(struct gfile *g)
{
	unsigned char h[GS_FILE_HEADER_LEN] = {0};

	memcpy(h, GS_FILE_MAGIC, GS_FILE_MAGIC_LEN);
	h[8] = GS_FORMAT_MAJOR;
	h[10] = GS_FORMAT_MINOR;
	put32(h + 16, (uint32_t)crc32(0, h, 16));
	gf_add(g, h, sizeof(h));
}

/* A chunk of raw payload bytes (compressed here), claiming `nrec` records. */
static void gf_raw_chunk(struct gfile *g, uint16_t type, const void *raw, size_t n, uint32_t nrec)
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

static void gf_chunk(struct gfile *g, uint16_t type, const Gscope__Chunk *m, uint32_t nrec)
{
	size_t n = gscope__chunk__get_packed_size(m);
	unsigned char *raw = malloc(n ? n : 1);

	if (!raw)
		die("out of memory");
	gscope__chunk__pack(m, raw);
	gf_raw_chunk(g, type, raw, n, nrec);
	free(raw);
}

static void gf_write(struct gfile *g, const char *name)
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

/*
 * Chunk payloads that inflate a thousand times: 3 M kernels (every column
 * zero: over 1 GB of columns and trace from 50 KB), and 30 M empty syncs (a
 * message each for protobuf-c to allocate: gigabytes from 60 KB). Each
 * chunk claims the records it holds.
 */
static void inflate_bombs_gscope(void)
{
	enum {
		N_OPS = 3000000
	};
	static uint8_t k_name[] = "k";
	ProtobufCBinaryData str = {.len = 1, .data = k_name};
	Gscope__Chunk c = GSCOPE__CHUNK__INIT;
	Gscope__Stream st = GSCOPE__STREAM__INIT, *stp = &st;
	Gscope__Ops ops = GSCOPE__OPS__INIT;
	uint64_t *zero = calloc(N_OPS, sizeof(*zero));
	size_t n = 60u << 20;
	unsigned char *raw;
	struct gfile g = {0};

	if (!zero)
		die("out of memory");
	c.n_strings = 1;
	c.strings = &str;
	c.n_streams = 1;
	c.streams = &stp;
	/* Every kernel column N_OPS zeros (the 32-bit ones read the same memory). */
#define COL(f, T) (ops.n_##f = N_OPS, ops.f = (T *)(void *)zero)
	COL(kind, uint32_t), COL(start_delta, int64_t), COL(duration, uint64_t);
	COL(stream, uint32_t), COL(name, uint32_t), COL(correlation_delta, int64_t);
	COL(flags, uint32_t), COL(graph_id, uint64_t), COL(graph_node, uint64_t);
	COL(grid_x, uint32_t), COL(grid_y, uint32_t), COL(grid_z, uint32_t);
	COL(block_x, uint32_t), COL(block_y, uint32_t), COL(block_z, uint32_t);
	COL(shared_mem, uint32_t), COL(registers, uint32_t);
#undef COL
	c.ops = &ops;
	gf_header(&g);
	gf_chunk(&g, GS_CHUNK_RECORDS, &c, N_OPS);
	gf_write(&g, "inflate-ops.gscope");
	free(zero);

	raw = malloc(n);
	if (!raw)
		die("out of memory");
	for (size_t i = 0; i < n / 2; i++) {
		raw[2 * i] = 0x52; /* Chunk.syncs (10), an empty message */
		raw[2 * i + 1] = 0;
	}
	gf_header(&g);
	gf_raw_chunk(&g, GS_CHUNK_RECORDS, raw, n, (uint32_t)(n / 2));
	gf_write(&g, "inflate-syncs.gscope");
	free(raw);
}

/* One op on each of a million streams (written by gs_writer). */
static void million_streams_gscope(void)
{
	struct gs_writer_options o = {.compression_level = 1};
	struct gs_writer *w;
	struct gs_sink *s;
	uint32_t name;

	if (gs_writer_open(path_of("million-streams.gscope"), &o, &w) != GS_OK)
		die("cannot write million-streams.gscope");
	s = gs_writer_borrow_sink(w);
	if (s->intern(s, "k", 1, &name))
		die("million-streams.gscope: sink failed");
	for (uint32_t i = 0; i < 1000000; i++) {
		struct gs_stream st = {.pid = 1, .stream_id = i + 1};
		struct gs_op op = {.start_ns = 1000 + i, .end_ns = 1001 + i, .name = name};

		if (s->stream(s, &st, &op.stream) || s->op(s, &op, NULL))
			die("million-streams.gscope: sink failed");
	}
	if (gs_writer_close(w) != GS_OK)
		die("million-streams.gscope: close failed");
}

/*
 * Times at the edge of the range the trace model holds (|t| < 2^62 ns,
 * GS_TIME_LIMIT_NS): a kernel that starts just inside it (-2^62 + 1 ns), then
 * one that starts at exactly -2^62 ns (correlation 2), refused.
 */
static void times_past_limit_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .stream_id = 7};
	uint32_t name, idx;
	gs_status rc;

	if (gs_writer_open(path_of("times-past-limit.gscope"), NULL, &w) != GS_OK)
		die("cannot write times-past-limit.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->stream(s, &st, &idx);
	for (int i = 0; i < 2 && !rc; i++) {
		struct gs_op op = {.start_ns = -GS_TIME_LIMIT_NS + 1 - i,
				   .end_ns = -GS_TIME_LIMIT_NS + 1000,
				   .correlation = (uint64_t)i + 1,
				   .name = name,
				   .stream = idx,
				   .kind = GS_OP_KERNEL};

		rc = s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("times-past-limit.gscope: write failed");
}

/*
 * Waits that form a cycle: stream 7 waits (call 3) for an event recorded on
 * stream 8 after kernel b (call 10), stream 8 waits (call 4) for an event
 * recorded on stream 7 after kernel a (call 9): a after b after a. CUDA
 * cannot record this (a wait uses a record made before it); a corrupt or
 * hand-edited trace can.
 */
static void wait_cycle_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream s7 = {.pid = 1, .stream_id = 7, .kind = GS_STREAM_NON_BLOCKING};
	struct gs_stream s8 = {.pid = 1, .stream_id = 8, .kind = GS_STREAM_NON_BLOCKING};
	uint32_t i7, i8, ka, kb, launch, record, wait;
	gs_status rc;

	if (gs_writer_open(path_of("wait-cycle.gscope"), NULL, &w) != GS_OK)
		die("cannot write wait-cycle.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->stream(s, &s7, &i7);
	rc = rc ? rc : s->stream(s, &s8, &i8);
	rc = rc ? rc : s->intern(s, "a", 1, &ka);
	rc = rc ? rc : s->intern(s, "b", 1, &kb);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->intern(s, "cudaEventRecord", 15, &record);
	rc = rc ? rc : s->intern(s, "cudaStreamWaitEvent", 19, &wait);
	for (uint64_t c = 3; c <= 10 && !rc; c++) {
		struct gs_api_call a = {.start_ns = 1000 + (int64_t)c * 100,
					.end_ns = 1010 + (int64_t)c * 100,
					.pid = 1,
					.tid = 1,
					.correlation = c,
					.name = c <= 4 ? wait :
						c <= 6 ? launch :
							 record};

		if (c == 7 || c == 8)
			continue;
		rc = s->api_call(s, &a);
	}
	if (!rc) {
		struct gs_sync y7 = {.start_ns = 1300,
				     .end_ns = 1310,
				     .pid = 1,
				     .tid = 1,
				     .correlation = 3,
				     .event_id = 2,
				     .event_correlation = 10,
				     .stream = i7,
				     .wait_on_stream = i8,
				     .kind = GS_SYNC_STREAM_WAIT};
		struct gs_sync y8 = {.start_ns = 1400,
				     .end_ns = 1410,
				     .pid = 1,
				     .tid = 1,
				     .correlation = 4,
				     .event_id = 1,
				     .event_correlation = 9,
				     .stream = i8,
				     .wait_on_stream = i7,
				     .kind = GS_SYNC_STREAM_WAIT};
		struct gs_event_record r1 = {.time_ns = 1900,
					     .correlation = 9,
					     .event_id = 1,
					     .stream = i7};
		struct gs_event_record r2 = {.time_ns = 2000,
					     .correlation = 10,
					     .event_id = 2,
					     .stream = i8};
		struct gs_op a = {.start_ns = 3000,
				  .end_ns = 4000,
				  .correlation = 5,
				  .name = ka,
				  .stream = i7,
				  .kind = GS_OP_KERNEL};
		struct gs_op b = {.start_ns = 3000,
				  .end_ns = 4000,
				  .correlation = 6,
				  .name = kb,
				  .stream = i8,
				  .kind = GS_OP_KERNEL};

		rc = s->sync(s, &y7);
		rc = rc ? rc : s->sync(s, &y8);
		rc = rc ? rc : s->event_record(s, &r1);
		rc = rc ? rc : s->event_record(s, &r2);
		rc = rc ? rc : s->op(s, &a, NULL);
		rc = rc ? rc : s->op(s, &b, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("wait-cycle.gscope: write failed");
}

/*
 * Stream waits on events: a kernel on stream 7, its event recorded (sync id
 * 7), then three waits of stream 8 by sync id: 7, held, and 8 and 9, which
 * no record of the file has; a kernel on stream 8 after them.
 */
static void unheld_waits_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream s7 = {.pid = 1, .stream_id = 7, .kind = GS_STREAM_NON_BLOCKING};
	struct gs_stream s8 = {.pid = 1, .stream_id = 8, .kind = GS_STREAM_NON_BLOCKING};
	uint32_t k, launch, i7, i8;
	gs_status rc;

	if (gs_writer_open(path_of("unheld-waits.gscope"), NULL, &w) != GS_OK)
		die("cannot write unheld-waits.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &k);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->stream(s, &s7, &i7);
	rc = rc ? rc : s->stream(s, &s8, &i8);
	for (int i = 0; i < 2 && !rc; i++) {
		struct gs_api_call c = {.start_ns = 1000 + i * 3000,
					.end_ns = 1010 + i * 3000,
					.pid = 1,
					.tid = 1,
					.correlation = (uint64_t)i * 10 + 1,
					.name = launch};
		struct gs_op op = {.start_ns = 2000 + i * 3000,
				   .end_ns = 3000 + i * 3000,
				   .correlation = (uint64_t)i * 10 + 1,
				   .name = k,
				   .stream = i ? i8 : i7,
				   .kind = GS_OP_KERNEL};

		rc = s->api_call(s, &c);
		rc = rc ? rc : s->op(s, &op, NULL);
	}
	if (!rc) {
		struct gs_event_record r = {.time_ns = 1100,
					    .correlation = 2,
					    .event_id = 1,
					    .sync_id = 7,
					    .stream = i7};

		rc = s->event_record(s, &r);
	}
	for (int i = 0; i < 3 && !rc; i++) {
		struct gs_sync y = {.start_ns = 1200 + i * 100,
				    .end_ns = 1210 + i * 100,
				    .pid = 1,
				    .tid = 1,
				    .correlation = (uint64_t)i + 3,
				    .event_id = 1,
				    .sync_id = (uint64_t)i + 7,
				    .stream = i8,
				    .wait_on_stream = GS_NO_INDEX,
				    .kind = GS_SYNC_STREAM_WAIT};

		rc = s->sync(s, &y);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("unheld-waits.gscope: write failed");
}

/* A device that claims four billion copy engines, and two copies (found by
 * fuzz_nsys: the ideal schedule allocated an engine heap that large). */
static void many_engines_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .stream_id = 7};
	struct gs_device d = {.id = 0, .copy_engines = 4000000000u};
	uint32_t name, idx;
	gs_status rc;

	if (gs_writer_open(path_of("engines-4e9.gscope"), NULL, &w) != GS_OK)
		die("cannot write engines-4e9.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "Memcpy HtoD", 11, &name);
	d.name = name;
	rc = rc ? rc : s->device(s, &d);
	rc = rc ? rc : s->stream(s, &st, &idx);
	for (int i = 0; i < 2 && !rc; i++) {
		struct gs_op op = {.start_ns = 1000 + i * 500,
				   .end_ns = 1400 + i * 500,
				   .correlation = (uint64_t)i + 1,
				   .bytes = 4096,
				   .name = name,
				   .stream = idx,
				   .kind = GS_OP_MEMCPY,
				   .copy_kind = GS_COPY_HTOD,
				   .src_mem = GS_MEM_PINNED,
				   .dst_mem = GS_MEM_DEVICE};

		rc = s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("engines-4e9.gscope: write failed");
}

/* A million distinct warnings, then the first one again: each is looked
 * up among those before it (a linear search took hours). */
/* A kernel, records dropped 2^64 - 1 and 5 times, and one warning given
 * with counts 2^64 - 2 and 3: both counts would wrap to a small number. */
static void saturating_counts_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .context = 1, .stream_id = 7};
	struct gs_op op = {.start_ns = 1000, .end_ns = 2000, .kind = GS_OP_KERNEL};
	gs_status rc;

	if (gs_writer_open(path_of("counts-saturate.gscope"), NULL, &w) != GS_OK)
		die("cannot write counts-saturate.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &op.name);
	rc = rc ? rc : s->stream(s, &st, &op.stream);
	rc = rc ? rc : s->op(s, &op, NULL);
	rc = rc ? rc : s->dropped(s, 1, UINT64_MAX);
	rc = rc ? rc : s->dropped(s, 1, 5);
	rc = rc ? rc : s->warning(s, "a repeated warning", UINT64_MAX - 1, GS_WARNING_OTHER);
	rc = rc ? rc : s->warning(s, "a repeated warning", 3, GS_WARNING_OTHER);
	if (rc || gs_writer_close(w) != GS_OK)
		die("counts-saturate.gscope: write failed");
}

/* Two host ranges and three syncs of kind 99, which no version knows:
 * read as other ranges and syncs of unknown kind, with one counted
 * warning each. */
static void unknown_kinds_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .context = 1, .stream_id = 7};
	struct gs_op op = {.start_ns = 1000, .end_ns = 2000, .kind = GS_OP_KERNEL};
	struct gs_range g = {.start_ns = 900, .end_ns = 2100, .pid = 1, .tid = 1, .kind = 99};
	struct gs_sync y = {.start_ns = 2100, .end_ns = 2200, .pid = 1, .tid = 1, .kind = 99};
	gs_status rc;

	if (gs_writer_open(path_of("unknown-kinds.gscope"), NULL, &w) != GS_OK)
		die("cannot write unknown-kinds.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &op.name);
	rc = rc ? rc : s->intern(s, "step", 4, &g.name);
	rc = rc ? rc : s->stream(s, &st, &op.stream);
	y.stream = op.stream;
	y.wait_on_stream = GS_NO_INDEX;
	g.domain = GS_NO_STRING;
	rc = rc ? rc : s->op(s, &op, NULL);
	for (int i = 0; i < 2 && !rc; i++)
		rc = s->range(s, &g);
	for (int i = 0; i < 3 && !rc; i++)
		rc = s->sync(s, &y);
	if (rc || gs_writer_close(w) != GS_OK)
		die("unknown-kinds.gscope: write failed");
}

static void many_warnings_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	gs_status rc = GS_OK;

	if (gs_writer_open(path_of("warnings-1m.gscope"), NULL, &w) != GS_OK)
		die("cannot write warnings-1m.gscope");
	s = gs_writer_borrow_sink(w);
	for (uint32_t i = 0; i <= 1000000 && !rc; i++) {
		char msg[32];

		snprintf(msg, sizeof(msg), "warning %u", i < 1000000 ? i : 0);
		rc = s->warning(s, msg, 1, GS_WARNING_OTHER);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("warnings-1m.gscope: write failed");
}

/*
 * A legacy default stream and `peers` blocking streams of its context, each
 * op launched by one thread: with `waits`, `peers` ops first, one a
 * stream, then `dflt` default-stream ops (every pair an edge: 400 M at
 * 20000 x 20000, from 100 KB); else the default-stream ops first, all
 * launched at once and run long after by a busy device, then one op on each
 * blocking stream, each held by every default-stream op before it (a wait
 * each, so every edge stays).
 */
static void default_stream_gscope(const char *file, uint32_t peers, uint32_t dflt, bool waits)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream l = {.pid = 1,
			      .context = 1,
			      .stream_id = 7,
			      .kind = GS_STREAM_LEGACY_DEFAULT};
	uint32_t name, launch, li, *pi = malloc(peers * sizeof(*pi));
	uint64_t corr = 1;
	int64_t host = 1000, gpu = 1000;
	gs_status rc;

	if (!pi || gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->stream(s, &l, &li);
	for (uint32_t i = 0; i < peers && !rc; i++) {
		struct gs_stream st = {.pid = 1,
				       .context = 1,
				       .stream_id = 100 + i,
				       .kind = GS_STREAM_BLOCKING};

		rc = s->stream(s, &st, &pi[i]);
	}
	for (int phase = 0; phase < 2 && !rc; phase++) {
		bool on_peers = (phase == 0) != waits;
		uint32_t n = on_peers ? peers : dflt;

		for (uint32_t i = 0; i < n && !rc; i++) {
			struct gs_api_call c = {.start_ns = host,
						.end_ns = host + 5,
						.pid = 1,
						.tid = 1,
						.correlation = corr,
						.name = launch};
			struct gs_op op = {.start_ns = host + 10,
					   .correlation = corr++,
					   .name = name,
					   .stream = on_peers ? pi[i] : li,
					   .kind = GS_OP_KERNEL};

			if (waits) { /* a second behind the host */
				op.start_ns = gpu + 1000000000;
				if (!on_peers)
					gpu += 20;
			}
			op.end_ns = op.start_ns + 10;
			host += waits ? 10 : 30;
			rc = s->api_call(s, &c);
			rc = rc ? rc : s->op(s, &op, NULL);
		}
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
	free(pi);
}

/*
 * One op on each of `streams` streams of a device, then `syncs`
 * cudaDeviceSynchronize calls of the thread that launched them; with
 * `each`, a kernel launched on the first stream after each sync (every
 * sync links every stream to a new op), else one at the very end (every
 * sync links the same ops: one edge a stream).
 */
static void context_sync_gscope(const char *file, uint32_t streams, uint32_t syncs, bool each)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	uint32_t name, launch, sync, *si = malloc(streams * sizeof(*si));
	uint64_t corr = 1;
	int64_t t = 1000;
	gs_status rc;

	if (!si || gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->intern(s, "cudaDeviceSynchronize", 21, &sync);
	for (uint32_t i = 0; i < streams && !rc; i++) {
		struct gs_stream st = {.pid = 1,
				       .context = 1,
				       .stream_id = 100 + i,
				       .kind = GS_STREAM_NON_BLOCKING};

		rc = s->stream(s, &st, &si[i]);
	}
	for (uint32_t i = 0; i < streams + syncs + 1 && !rc; i++) {
		bool is_sync = i >= streams && i < streams + syncs;
		struct gs_api_call c = {.start_ns = t,
					.end_ns = t + 5,
					.pid = 1,
					.tid = 1,
					.correlation = corr,
					.name = is_sync ? sync : launch};
		struct gs_op op = {.start_ns = t + 10,
				   .end_ns = t + 20,
				   .correlation = corr,
				   .name = name,
				   .stream = si[i < streams ? i : 0],
				   .kind = GS_OP_KERNEL};
		struct gs_sync y = {.start_ns = t,
				    .end_ns = t + 25,
				    .pid = 1,
				    .tid = 1,
				    .correlation = corr,
				    .stream = GS_NO_INDEX,
				    .wait_on_stream = GS_NO_INDEX,
				    .kind = GS_SYNC_CONTEXT};

		rc = s->api_call(s, &c);
		if (!rc && is_sync)
			rc = s->sync(s, &y);
		if (!rc && (!is_sync || each) && (i < streams || i == streams + syncs || each)) {
			if (is_sync) { /* its launch, right after the sync */
				c.start_ns = op.start_ns = t + 30;
				c.end_ns = t + 35;
				op.end_ns = t + 40;
				c.correlation = op.correlation = ++corr;
				c.name = launch;
				rc = s->api_call(s, &c);
			}
			rc = rc ? rc : s->op(s, &op, NULL);
		}
		corr++;
		t += 50;
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
	free(si);
}

/* 60000 devices, each with a stream, a kernel launched by a thread of its
 * own and a cudaDeviceSynchronize of that thread (every analysis of one
 * device once read the streams, syncs or devices of all). */
static void many_devices_gscope(void)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	uint32_t name, launch, sync;
	int64_t t = 1000;
	gs_status rc;

	if (gs_writer_open(path_of("devices-60k.gscope"), &o, &w) != GS_OK)
		die("cannot write devices-60k.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->intern(s, "cudaDeviceSynchronize", 21, &sync);
	for (uint32_t i = 0; i < 60000 && !rc; i++) {
		struct gs_device d = {.id = i, .name = name, .copy_engines = 2};
		struct gs_stream st = {.pid = 1, .device = i, .context = 1, .stream_id = 7};
		struct gs_api_call c = {.start_ns = t,
					.end_ns = t + 5,
					.pid = 1,
					.tid = 1 + i,
					.correlation = 2 * (uint64_t)i + 1,
					.name = launch};
		struct gs_op op = {.start_ns = t + 10,
				   .end_ns = t + 20,
				   .correlation = c.correlation,
				   .name = name,
				   .kind = GS_OP_KERNEL};
		struct gs_sync y = {.start_ns = t + 6,
				    .end_ns = t + 25,
				    .pid = 1,
				    .tid = 1 + i,
				    .correlation = c.correlation + 1,
				    .stream = GS_NO_INDEX,
				    .wait_on_stream = GS_NO_INDEX,
				    .device = i,
				    .kind = GS_SYNC_CONTEXT};

		rc = s->device(s, &d);
		rc = rc ? rc : s->stream(s, &st, &op.stream);
		rc = rc ? rc : s->api_call(s, &c);
		rc = rc ? rc : s->op(s, &op, NULL);
		c.start_ns = y.start_ns;
		c.end_ns = y.end_ns;
		c.correlation = y.correlation;
		c.name = sync;
		rc = rc ? rc : s->api_call(s, &c);
		rc = rc ? rc : s->sync(s, &y);
		t += 30;
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("devices-60k.gscope: write failed");
}

/*
 * `calls` API calls of one thread and `ops` kernels, all of correlation id
 * 7 (the join of ops to launch calls was quadratic in them): the calls one
 * after another, 100 ns apart, each op 10 ns after a call.
 */
static void shared_correlation_gscope(const char *file, uint32_t calls, uint32_t ops)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .context = 1, .stream_id = 7};
	uint32_t name, launch, stream;
	gs_status rc;

	if (gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->stream(s, &st, &stream);
	for (uint32_t i = 0; i < calls && !rc; i++) {
		struct gs_api_call c = {.start_ns = 1000 + 100 * (int64_t)i,
					.end_ns = 1005 + 100 * (int64_t)i,
					.pid = 1,
					.tid = 1,
					.correlation = 7,
					.name = launch};

		rc = s->api_call(s, &c);
	}
	for (uint32_t i = 0; i < ops && !rc; i++) {
		struct gs_op op = {.start_ns = 1010 + 100 * (int64_t)i,
				   .end_ns = 1020 + 100 * (int64_t)i,
				   .correlation = 7,
				   .name = name,
				   .stream = stream,
				   .kind = GS_OP_KERNEL};

		rc = s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
}

/*
 * `depth` nested NVTX ranges of one thread, each of its own name, around
 * `ops` kernels launched one after another inside the innermost (GPU time
 * per annotation kept a piece per op and enclosing range: depth x ops).
 * With `gpu`, the ranges are GPU annotations on the kernels' stream
 * instead (Kineto's gpu_user_annotation).
 */
static void nested_ranges_gscope(const char *file, uint32_t depth, uint32_t ops, bool gpu)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .context = 1, .stream_id = 7};
	uint32_t name, launch, stream;
	int64_t first = 1000 + (int64_t)depth, last = first + 100 * (int64_t)ops;
	gs_status rc;

	if (gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->stream(s, &st, &stream);
	for (uint32_t i = 0; i < depth && !rc; i++) {
		char rn[32];
		int n = snprintf(rn, sizeof(rn), "range%u", i);
		struct gs_range r = {.start_ns = 1000 + (int64_t)i,
				     .end_ns = last + 100 - (int64_t)i,
				     .pid = gpu ? -1 : 1,
				     .tid = gpu ? -1 : 1,
				     .domain = GS_NO_STRING,
				     .kind = gpu ? GS_RANGE_GPU_ANNOTATION : GS_RANGE_NVTX,
				     .stream = gpu ? stream : 0};

		rc = s->intern(s, rn, (size_t)n, &r.name);
		rc = rc ? rc : s->range(s, &r);
	}
	for (uint32_t i = 0; i < ops && !rc; i++) {
		struct gs_api_call c = {.start_ns = first + 100 * (int64_t)i,
					.end_ns = first + 5 + 100 * (int64_t)i,
					.pid = 1,
					.tid = 1,
					.correlation = 1 + (uint64_t)i,
					.name = launch};
		struct gs_op op = {.start_ns = c.start_ns + 10,
				   .end_ns = c.start_ns + 20,
				   .correlation = c.correlation,
				   .name = name,
				   .stream = stream,
				   .kind = GS_OP_KERNEL};

		rc = s->api_call(s, &c);
		rc = rc ? rc : s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
}

/* A tiny trace of one process (host "node", `pid`, rank `rank`) into
 * dir/name: a launch at `t` and its kernel from t + 10 to t + 30,
 * correlation id 1. */
static void tiny_rank_gscope(const char *dir, const char *name, int64_t pid, uint32_t rank,
			     int64_t t)
{
	struct gs_writer_options o = {.compression_level = 1};
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = pid, .context = 1, .stream_id = 7};
	struct gs_process p = {.pid = pid, .has_rank = true, .rank = rank};
	struct gs_device d = {.id = 0, .copy_engines = 2};
	uint32_t kname, launch, stream;
	char file[512];
	gs_status rc;

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	if (gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &kname);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->intern(s, "node", 4, &p.host_name);
	d.name = kname;
	rc = rc ? rc : s->process(s, &p);
	rc = rc ? rc : s->device(s, &d);
	rc = rc ? rc : s->stream(s, &st, &stream);
	if (!rc) {
		struct gs_api_call c = {.start_ns = t,
					.end_ns = t + 5,
					.pid = pid,
					.tid = 1,
					.correlation = 1,
					.name = launch};
		struct gs_op op = {.start_ns = t + 10,
				   .end_ns = t + 30,
				   .correlation = 1,
				   .name = kname,
				   .stream = stream,
				   .kind = GS_OP_KERNEL};

		rc = s->api_call(s, &c);
		rc = rc ? rc : s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
}

/*
 * Directories of tiny traces: `files` inputs of one process (host, pid and
 * rank alike, overlapping times: merged into one rank; each merge once
 * redid the joins), and `ranks` ranks of one input each (each rank's
 * report once copied every input's path).
 */
static void tiny_job_dir(const char *dir, uint32_t files, uint32_t ranks)
{
	if (mkdir(path_of(dir), 0755) != 0)
		die("cannot create %s", dir);
	for (uint32_t i = 0; i < files; i++) {
		char name[64];

		snprintf(name, sizeof(name), "part-%05u.gscope", i);
		tiny_rank_gscope(dir, name, 100, 0, 1000 + 10 * (int64_t)i);
	}
	for (uint32_t i = 0; i < ranks; i++) {
		char name[64];

		snprintf(name, sizeof(name), "rank-%05u.gscope", i);
		tiny_rank_gscope(dir, name, 100 + (int64_t)i, i, 1000);
	}
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

static void gscope_files(void)
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
	million_streams_gscope();
	times_past_limit_gscope();
	wrapped_times_gscope();
	wait_cycle_gscope();
	unheld_waits_gscope();
	many_engines_gscope();
	many_warnings_gscope();
	saturating_counts_gscope();
	unknown_kinds_gscope();
	inflate_bombs_gscope();
	default_stream_gscope("default-stream-20k.gscope", 20000, 20000, false);
	default_stream_gscope("default-stream-waits.gscope", 5000, 5000, true);
	default_stream_gscope("default-stream-flows.gscope", 1500, 1500, true);
	context_sync_gscope("context-syncs.gscope", 60000, 100000, false);
	context_sync_gscope("context-syncs-each.gscope", 2000, 10000, true);
	many_devices_gscope();
	shared_correlation_gscope("corr-shared-60k.gscope", 60000, 60000);
	shared_correlation_gscope("corr-shared-absurd.gscope", (1u << 20) + 1, 1);
	nested_ranges_gscope("nested-nvtx-10k.gscope", 10000, 10000, false);
	nested_ranges_gscope("nested-gpu-ann-10k.gscope", 10000, 10000, true);
	tiny_job_dir("one-process-4000", 4000, 0);
	tiny_job_dir("ranks-10000", 0, 10000);
}

/* ------------------------------------------------------------------------ */
/* Random bytes, gzip, JSON                                                  */
/* ------------------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

static void random_file(void)
{
	unsigned char b[65536];

	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (unsigned char)rng();
	b[0] = 0x42; /* not a gzip, JSON or .gscope start by chance */
	write_bytes("random.bin", b, sizeof(b));
}

/* A gzip writer over a FILE (one member). */
struct gz {
	FILE *f;
	z_stream zs;
	unsigned char out[65536];
};

static void gz_open(struct gz *z, FILE *f, int level)
{
	memset(z, 0, sizeof(*z));
	z->f = f;
	if (deflateInit2(&z->zs, level, Z_DEFLATED, 16 + 15, 9, Z_DEFAULT_STRATEGY) != Z_OK)
		die("deflateInit2 failed");
}

static void gz_run(struct gz *z, const void *data, size_t n, int flush)
{
	z->zs.next_in = (Bytef *)(uintptr_t)data;
	z->zs.avail_in = (uInt)n;
	do {
		size_t have;

		z->zs.next_out = z->out;
		z->zs.avail_out = sizeof(z->out);
		if (deflate(&z->zs, flush) == Z_STREAM_ERROR)
			die("deflate failed");
		have = sizeof(z->out) - z->zs.avail_out;
		if (have && fwrite(z->out, 1, have, z->f) != have)
			die("gzip write failed");
	} while (z->zs.avail_out == 0 || (flush == Z_FINISH && z->zs.avail_in));
}

static void gz_write(struct gz *z, const void *data, size_t n)
{
	gz_run(z, data, n, Z_NO_FLUSH);
}

static void gz_puts(struct gz *z, const char *s)
{
	gz_write(z, s, strlen(s));
}

static void gz_close(struct gz *z)
{
	gz_run(z, "", 0, Z_FINISH);
	deflateEnd(&z->zs);
}

static void gzip_files(void)
{
	static char spaces[1 << 20];
	struct gz z;
	FILE *f;
	long member_size;
	unsigned char *member;

	/* gzip, but the content is text that is not JSON. */
	f = create("gzip-not-json.json.gz");
	gz_open(&z, f, 6);
	gz_puts(&z, "this is not a trace, only text in a gzip file\n");
	gz_close(&z);
	finish(f, "gzip-not-json.json.gz");

	/* A Kineto start, then a gzip stream cut in the middle. */
	f = create("gzip-cut.json.gz");
	gz_open(&z, f, 6);
	for (int i = 0; i < 2000; i++) {
		char ev[160];

		snprintf(ev, sizeof(ev),
			 "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,"
			 "\"ts\":%d,\"dur\":1,\"args\":{\"stream\":7,\"correlation\":%d}}",
			 i ? "," : "{\"traceEvents\":[", i, 1000 + i * 10, i + 1);
		gz_puts(&z, ev);
	}
	gz_puts(&z, "]}");
	gz_close(&z);
	if (fflush(f) || ftruncate(fileno(f), ftell(f) / 2))
		die("gzip-cut.json.gz: truncate failed");
	finish(f, "gzip-cut.json.gz");

	/* Only an empty gzip member: zcat prints nothing. */
	f = create("gzip-empty.json.gz");
	gz_open(&z, f, 6);
	gz_close(&z);
	finish(f, "gzip-empty.json.gz");

	/* A whole Kineto trace in a gzip member, then bytes that start no
	 * member (zcat: "trailing garbage ignored", exit status 2). */
	f = create("gzip-trailing.json.gz");
	gz_open(&z, f, 6);
	gz_puts(&z, "{\"traceEvents\":[]}\n");
	gz_close(&z);
	fputs("junk after the gzip stream\n", f);
	finish(f, "gzip-trailing.json.gz");

	/* A bomb: 4 GiB of JSON whitespace inside "traceEvents", 4 MiB on disk:
	 * one gzip member of 1 MiB of spaces, repeated 4096 times. */
	memset(spaces, ' ', sizeof(spaces));
	f = create("bomb-member.tmp");
	gz_open(&z, f, 9);
	gz_write(&z, spaces, sizeof(spaces));
	gz_close(&z);
	member_size = ftell(f);
	finish(f, "bomb-member.tmp");
	member = malloc((size_t)member_size);
	f = fopen(path_of("bomb-member.tmp"), "rb");
	if (!member || !f || fread(member, 1, (size_t)member_size, f) != (size_t)member_size)
		die("bomb-member.tmp: cannot read back");
	fclose(f);
	remove(path_of("bomb-member.tmp"));
	f = create("gzip-bomb.json.gz");
	gz_open(&z, f, 9);
	gz_puts(&z, "{\"traceEvents\":[");
	gz_close(&z);
	for (int i = 0; i < 4096; i++)
		if (fwrite(member, 1, (size_t)member_size, f) != (size_t)member_size)
			die("gzip-bomb.json.gz: write failed");
	gz_open(&z, f, 9);
	gz_puts(&z, "]}");
	gz_close(&z);
	finish(f, "gzip-bomb.json.gz");
	free(member);

	/* Kernels on a million streams (gzip: ~120 MB of JSON, a few MB here). */
	f = create("million-streams.json.gz");
	gz_open(&z, f, 1);
	gz_puts(&z, "{\"traceEvents\":[");
	for (int i = 0; i < 1000000; i++) {
		char ev[200];

		snprintf(ev, sizeof(ev),
			 "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":%d,"
			 "\"ts\":%d,\"dur\":1,\"args\":{\"device\":0,\"stream\":%d,"
			 "\"correlation\":%d}}",
			 i ? "," : "", i + 1, 1000 + i, i + 1, i + 1);
		gz_puts(&z, ev);
	}
	gz_puts(&z, "]}");
	gz_close(&z);
	finish(f, "million-streams.json.gz");
}

static void json_files(void)
{
	FILE *f;

	/* An event nested a million arrays deep. */
	f = create("deep-nesting.json");
	fputs("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"args\":", f);
	for (int i = 0; i < 1000000; i++)
		fputc('[', f);
	for (int i = 0; i < 1000000; i++)
		fputc(']', f);
	fputs("}]}", f);
	finish(f, "deep-nesting.json");

	/* The same depth in a top-level member the importer skips. */
	f = create("deep-nesting-skipped.json");
	fputs("{\"otherData\":", f);
	for (int i = 0; i < 1000000; i++)
		fputs("{\"a\":", f);
	fputs("1", f);
	for (int i = 0; i < 1000000; i++)
		fputc('}', f);
	fputs(",\"traceEvents\":[]}", f);
	finish(f, "deep-nesting-skipped.json");

	/* A 64 MiB kernel name. */
	f = create("string-64m.json");
	fputs("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"", f);
	for (int i = 0; i < 64 << 20; i++)
		fputc('a' + i % 26, f);
	fputs("\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":1,\"args\":{\"stream\":7}}]}", f);
	finish(f, "string-64m.json");

	/* Deeply nested plan input. */
	f = create("plan-deep.json");
	fputs("{\"stages\":", f);
	for (int i = 0; i < 100000; i++)
		fputc('[', f);
	for (int i = 0; i < 100000; i++)
		fputc(']', f);
	fputs("}", f);
	finish(f, "plan-deep.json");
}

/* ------------------------------------------------------------------------ */
/* SQLite files that are not Nsight Systems exports                          */
/* ------------------------------------------------------------------------ */

static void sql(sqlite3 *db, const char *stmt)
{
	char *err = NULL;

	if (sqlite3_exec(db, stmt, NULL, NULL, &err) != SQLITE_OK)
		die("sqlite: %s", err ? err : "error");
}

/*
 * Nsight exports made to be slow or big: `rows` kernels, each named by a
 * StringIds row of its own, in a StringIds table without an index on id
 * (each name looked up by id cost a scan of the table); with
 * `long_string`, one name 4 MiB long.
 */
static void nsys_kernels_sqlite(const char *name, int rows, bool long_string)
{
	char stmt[1024];
	sqlite3 *db;

	remove(path_of(name));
	if (sqlite3_open(path_of(name), &db) != SQLITE_OK)
		die("sqlite3_open failed");
	sql(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
		"CREATE TABLE StringIds (id INTEGER, value TEXT);"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
		" deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,"
		" globalPid INTEGER, demangledName INTEGER, shortName INTEGER);");
	snprintf(stmt, sizeof(stmt),
		 "WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < %d)"
		 " INSERT INTO StringIds SELECT x, 'kernel_' || x FROM c;"
		 "WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < %d)"
		 " INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1000 + 100 * x, 1050 + 100 * x,"
		 " 0, 1, 7, x + 1, %lld, x, x FROM c;",
		 rows - 1, rows - 1, 100ll << 24);
	sql(db, stmt);
	if (long_string)
		sql(db, "UPDATE StringIds SET value = printf('%.*c', 4194304, 'k') WHERE id = 0;");
	sqlite3_close(db);
}

static void sqlite_files(void)
{
	sqlite3 *db;
	FILE *f;
	long len;
	unsigned char *p;

	remove(path_of("not-nsys.sqlite"));
	if (sqlite3_open(path_of("not-nsys.sqlite"), &db) != SQLITE_OK)
		die("sqlite3_open failed");
	sql(db, "CREATE TABLE recipes(name TEXT, minutes INTEGER);"
		"INSERT INTO recipes VALUES('bread', 240), ('soup', 45);");
	sqlite3_close(db);

	/* The SQLite header, then the file cut short after its first page. */
	f = fopen(path_of("not-nsys.sqlite"), "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		die("not-nsys.sqlite: cannot read back");
	p = malloc((size_t)len);
	if (!p || fread(p, 1, (size_t)len, f) != (size_t)len)
		die("not-nsys.sqlite: cannot read back");
	fclose(f);
	write_bytes("sqlite-cut.sqlite", p, 100);
	free(p);

	/* A small export whose kernels have a start of 'abc', an end that is a
	 * blob and a stream id of 7.5: each such row is dropped. */
	remove(path_of("nsys-wrong-types.sqlite"));
	if (sqlite3_open(path_of("nsys-wrong-types.sqlite"), &db) != SQLITE_OK)
		die("sqlite3_open failed");
	sql(db, "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
		"INSERT INTO StringIds VALUES (1, 'k');"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL,"
		" end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
		" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
		" demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
		" (100, 200, 0, 1, 7, 1, 72057594037927936, 1, 1),"
		" ('abc', 300, 0, 1, 7, 2, 72057594037927936, 1, 1),"
		" ('def', 300, 0, 1, 7, 3, 72057594037927936, 1, 1),"
		" (400, x'00ff', 0, 1, 7, 4, 72057594037927936, 1, 1),"
		" (500, 600, 0, 1, 7.5, 5, 72057594037927936, 1, 1);");
	sqlite3_close(db);

	/* An export in WAL mode: its tables in the database, their rows only
	 * in its -wal file (closed without the checkpoint that would move them
	 * into the database). */
	remove(path_of("nsys-wal.sqlite"));
	remove(path_of("nsys-wal.sqlite-wal"));
	remove(path_of("nsys-wal.sqlite-shm"));
	if (sqlite3_open(path_of("nsys-wal.sqlite"), &db) != SQLITE_OK)
		die("sqlite3_open failed");
	if (sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL) != SQLITE_OK)
		die("sqlite: cannot keep the WAL");
	sql(db, "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL,"
		" end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
		" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
		" demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);"
		"PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;"
		"INSERT INTO StringIds VALUES (1, 'k');"
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
		" (100, 200, 0, 1, 7, 1, 72057594037927936, 1, 1),"
		" (300, 400, 0, 1, 7, 2, 72057594037927936, 1, 1);");
	sqlite3_close(db);
	remove(path_of("nsys-wal.sqlite-shm"));
	/* The same database copied without its -wal file. */
	f = fopen(path_of("nsys-wal.sqlite"), "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		die("nsys-wal.sqlite: cannot read back");
	p = malloc((size_t)len);
	if (!p || fread(p, 1, (size_t)len, f) != (size_t)len)
		die("nsys-wal.sqlite: cannot read back");
	fclose(f);
	write_bytes("nsys-wal-lost.sqlite", p, (size_t)len);
	free(p);
	nsys_kernels_sqlite("nsys-stringids-100k.sqlite", 100000, false);
	nsys_kernels_sqlite("nsys-long-name.sqlite", 10, true);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_bad OUT_DIR\n");
		return 2;
	}
	out_dir = argv[1];
	gscope_files();
	random_file();
	gzip_files();
	json_files();
	sqlite_files();
	return 0;
}
