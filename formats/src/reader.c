/* SPDX-License-Identifier: MIT */
/*
 * The .gscope streaming reader: one chunk at a time, checked (magic,
 * bounded lengths, CRC-32, exact inflated size, column shapes, id ranges)
 * before any of its records reach the sink. A file cut short reads every
 * whole chunk and ends with a warning; with GS_READER_SALVAGE a corrupt
 * chunk is skipped (resynchronising on the next valid chunk) with a warning.
 *
 * gs_reader_read_all reads ahead on a second CPU when it has one: a helper
 * thread reads, checks, inflates and unpacks the next chunks while this one
 * feeds the sink; the sink sees the same records in the same order, and any
 * chunk the helper finds wrong is read again here by the one-chunk code.
 * The threads hand over batches of small chunks, and the file is read
 * through a window, so that a chunk costs neither a system call nor a
 * wake-up of its own: a million empty chunks read in a fraction of a
 * second, on one CPU or two.
 */
#include "chunk_fast.h"
#include "frame.h"
#include "gs_trace.pb-c.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZLIB_CONST
#include <zlib.h>

/* Streams a file may declare (bounds the index map). */
#define MAX_STREAMS (1u << 20)
/* Strings a file may declare, lost ones included (bounds the id map: a
 * salvaged chunk's string base cannot make the reader allocate more). */
#define MAX_STRINGS (1u << 25)

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
 * its state and window are allocated once a reader or helper). */
struct inflater {
	z_stream z;
	bool ready;
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
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Read up to n bytes at `off`; returns the count read or -1 on error. */
static int64_t read_at(struct gs_reader *r, uint64_t off, void *buf, size_t n)
{
	size_t got = 0;

	if (off >= r->size)
		return 0;
	if (n > r->size - off)
		n = (size_t)(r->size - off);
	if (r->fd < 0) {
		memcpy(buf, r->mem + off, n);
		return (int64_t)n;
	}
	while (got < n) {
		ssize_t k = pread(r->fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			gs_error_append("%s: read failed at byte %" PRIu64 ": %s", r->name,
					off + got, strerror(errno));
			return -1;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (int64_t)got;
}

/* read_at through the window `w` (files only; memory is read directly).
 * Same results as read_at. */
static int64_t win_read(struct gs_reader *r, struct rwin *w, uint64_t off, void *buf, size_t n)
{
	size_t done = 0;
	int64_t got;

	if (r->fd < 0)
		return read_at(r, off, buf, n);
	if (w->buf && off >= w->off && off - w->off < w->len) {
		size_t at = (size_t)(off - w->off);

		done = w->len - at < n ? w->len - at : n;
		memcpy(buf, w->buf + at, done);
		if (done == n)
			return (int64_t)n;
	}
	off += done;
	n -= done;
	if (!w->buf && n < WIN_BYTES / 2)
		w->buf = malloc(WIN_BYTES);
	if (!w->buf || n >= WIN_BYTES / 2) {
		got = read_at(r, off, (char *)buf + done, n);
		return got < 0 ? got : (int64_t)done + got;
	}
	w->off = off;
	w->len = 0;
	got = read_at(r, off, w->buf, WIN_BYTES);
	if (got < 0)
		return got;
	w->len = (size_t)got;
	if (n > w->len)
		n = w->len;
	memcpy((char *)buf + done, w->buf, n);
	return (int64_t)(done + n);
}

/*
 * uncompress() on a stream kept in `zi`: the same result codes and length,
 * without allocating zlib's state and window for every chunk. Sizes are
 * those of a chunk (below 4 GiB: one call of inflate takes them).
 */
static int inflate_exact(struct inflater *zi, unsigned char *dst, uLongf *dst_len,
			 const unsigned char *src, uLong src_len)
{
	z_stream *z = &zi->z;
	unsigned char one;
	uLong left = *dst_len;
	int err;

	if (!zi->ready) {
		memset(z, 0, sizeof(*z));
		if (inflateInit(z) != Z_OK)
			return uncompress(dst, dst_len, src, src_len);
		zi->ready = true;
	} else if (inflateReset(z) != Z_OK) {
		return Z_STREAM_ERROR;
	}
	/* As uncompress: room for one byte shows whether an empty payload
	 * holds more. */
	if (!left) {
		dst = &one;
		left = 1;
	}
	z->next_in = src;
	z->avail_in = (uInt)src_len;
	z->next_out = dst;
	z->avail_out = (uInt)left;
	do
		err = inflate(z, Z_NO_FLUSH);
	while (err == Z_OK);
	if (dst != &one)
		*dst_len = z->total_out;
	else if (z->total_out && err == Z_BUF_ERROR)
		z->avail_out = 1;
	return err == Z_STREAM_END                     ? Z_OK :
	       err == Z_NEED_DICT                      ? Z_DATA_ERROR :
	       err == Z_BUF_ERROR && z->avail_out != 0 ? Z_DATA_ERROR :
							 err;
}

static void inflater_fini(struct inflater *zi)
{
	if (zi->ready)
		inflateEnd(&zi->z);
	zi->ready = false;
}

static gs_status reader_create(const char *name, unsigned flags, struct gs_reader **out)
{
	struct gs_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return gs_nomem();
	r->name = strdup(name ? name : "(memory)");
	if (!r->name) {
		free(r);
		return gs_nomem();
	}
	r->flags = flags;
	r->fd = -1;
	gs_chunk_fast_init(&r->fast);
	r->unknown_string = GS_NO_STRING;
	r->max_ratio = GS_READER_DEFAULT_INFLATE_RATIO;
	*out = r;
	return GS_OK;
}

gs_status gs_reader_open(const char *path, unsigned flags, struct gs_reader **out)
{
	struct gs_reader *r;
	struct stat st;
	gs_status rc;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		gs_error_append("%s: cannot open: %s", path, strerror(errno));
		return GS_ERR_IO;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		gs_error_append("%s: not a regular file", path);
		close(fd);
		return GS_ERR_IO;
	}
	rc = reader_create(path, flags, &r);
	if (rc) {
		close(fd);
		return rc;
	}
	r->fd = fd;
	r->size = (uint64_t)st.st_size;
	*out = r;
	return GS_OK;
}

gs_status gs_reader_open_mem(const void *data, size_t size, const char *name, unsigned flags,
			     struct gs_reader **out)
{
	struct gs_reader *r;
	gs_status rc = reader_create(name, flags, &r);

	if (rc)
		return rc;
	r->mem = data;
	r->size = size;
	*out = r;
	return GS_OK;
}

void gs_reader_close(struct gs_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->cbuf);
	free(r->rbuf);
	free(r->win.buf);
	inflater_fini(&r->inflater);
	gs_chunk_fast_fini(&r->fast);
	free(r->str_map);
	free(r->stream_map);
	free(r->alloc_map);
	free(r->coll_map);
	free(r->name);
	free(r);
}

void gs_reader_set_max_inflate_ratio(struct gs_reader *r, uint32_t ratio)
{
	r->max_ratio = ratio ? ratio : GS_READER_DEFAULT_INFLATE_RATIO;
}

uint64_t gs_reader_chunk_index(const struct gs_reader *r)
{
	return r->chunk;
}

bool gs_is_gscope(const void *head, size_t len)
{
	return len >= GS_FILE_MAGIC_LEN && memcmp(head, GS_FILE_MAGIC, GS_FILE_MAGIC_LEN) == 0;
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

static gs_status warn(struct gs_reader *r, struct gs_sink *sink, const char *fmt, ...)
	GS_PRINTF(3, 4);

static gs_status warn(struct gs_reader *r, struct gs_sink *sink, const char *fmt, ...)
{
	char msg[GS_ERROR_MSG_MAX], full[GS_ERROR_MSG_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "%s: %s", r->name, msg);
	return sink->warning ? sink->warning(sink, full, 1, GS_WARNING_OTHER) : GS_OK;
}

/* One warning for `count` records of one kind (the trace adds up the
 * counts of equal messages: one line for the whole file). */
static gs_status warn_n(struct gs_reader *r, struct gs_sink *sink, uint64_t count, const char *msg)
{
	char full[GS_ERROR_MSG_MAX + 256];

	if (!count)
		return GS_OK;
	snprintf(full, sizeof(full), "%s: %s", r->name, msg);
	return sink->warning ? sink->warning(sink, full, count, GS_WARNING_OTHER) : GS_OK;
}

static gs_status read_header(struct gs_reader *r)
{
	unsigned char h[GS_FILE_HEADER_LEN];
	int64_t n = read_at(r, 0, h, sizeof(h));
	uint16_t major, minor;
	uint32_t features;

	if (n < 0)
		return GS_ERR_IO;
	if (n == 0) {
		gs_error_append("%s: empty file", r->name);
		return GS_ERR_FORMAT;
	}
	if (!gs_is_gscope(h, (size_t)n)) {
		gs_error_append("%s: not a .gscope file (bad magic)", r->name);
		return GS_ERR_FORMAT;
	}
	if (n < (int64_t)sizeof(h)) {
		gs_error_append("%s: file cut short inside its %d-byte header", r->name,
				GS_FILE_HEADER_LEN);
		return GS_ERR_FORMAT;
	}
	if (gs_get_u32(h + 16) != (uint32_t)crc32(0, h, 16)) {
		gs_error_append("%s: header CRC mismatch", r->name);
		return GS_ERR_FORMAT;
	}
	major = gs_get_u16(h + 8);
	minor = gs_get_u16(h + 10);
	if (major > GS_FORMAT_MAJOR) {
		gs_error_append("%s: format version %u.%u is newer than this reader (%u.x); "
				"upgrade gpuscope",
				r->name, major, minor, GS_FORMAT_MAJOR);
		return GS_ERR_VERSION;
	}
	features = gs_get_u32(h + 12) & GS_FEATURES_REQUIRED & ~GS_FEATURES_KNOWN;
	if (features) {
		gs_error_append("%s: needs a newer reader: unknown feature bits 0x%" PRIx32
				"; upgrade gpuscope",
				r->name, features);
		return GS_ERR_VERSION;
	}
	if (major == 0) {
		gs_error_append("%s: invalid format version 0.%u", r->name, minor);
		return GS_ERR_FORMAT;
	}
	r->offset = GS_FILE_HEADER_LEN;
	r->header_done = true;
	return GS_OK;
}

struct frame {
	uint16_t type;
	uint16_t flags;
	uint32_t raw_len;
	uint32_t comp_len;
	uint32_t nrecords;
	uint32_t crc;
	unsigned char hdr[GS_CHUNK_HEADER_LEN];
};

enum frame_result {
	FRAME_OK,
	FRAME_EOF,
	FRAME_CUT,
	FRAME_BAD,
	FRAME_IOERR
};

/* Past this many inflated bytes (a chunk's, or the file's so far), payloads
 * may inflate to at most max_inflate_ratio times their compressed size, as
 * gzip input may (real chunks compress 2 to 10 times, small ones more). */
#define INFLATE_CHECK_BYTES (16u << 20)

/*
 * What a frame's header may claim before its payload is inflated: a record
 * takes at least one byte of the payload, and a payload, or the file's so
 * far (`raw` and `comp` the totals before it), inflates no more than
 * max_inflate_ratio times. NULL when it may; else why not, in `why`.
 */
static const char *frame_bound(const struct gs_reader *r, const struct frame *f, uint64_t raw,
			       uint64_t comp, char *why, size_t size)
{
	uint64_t ratio = r->max_ratio;

	raw += f->raw_len;
	comp += f->comp_len;
	if (f->nrecords > f->raw_len) {
		snprintf(why, size,
			 "claims %" PRIu32 " records in a payload of %" PRIu32
			 " bytes (a record takes at least one)",
			 f->nrecords, f->raw_len);
		return why;
	}
	if ((f->raw_len > INFLATE_CHECK_BYTES && f->raw_len > ratio * f->comp_len) ||
	    (raw > INFLATE_CHECK_BYTES && raw > ratio * comp)) {
		bool one = f->raw_len > INFLATE_CHECK_BYTES && f->raw_len > ratio * f->comp_len;

		snprintf(why, size,
			 "payloads inflate to more than max_inflate_ratio (%" PRIu64
			 ") times their size (%" PRIu64 " bytes from %" PRIu64
			 "): a decompression bomb?",
			 ratio, one ? (uint64_t)f->raw_len : raw,
			 one ? (uint64_t)f->comp_len : comp);
		return why;
	}
	return NULL;
}

/* Read and check the frame at `off`, leaving the payload in r->cbuf. On
 * FRAME_BAD an error cause describes the problem. */
static enum frame_result read_frame(struct gs_reader *r, uint64_t off, struct frame *f)
{
	int64_t n = win_read(r, &r->win, off, f->hdr, GS_CHUNK_HEADER_LEN);
	uint32_t crc;

	if (n < 0)
		return FRAME_IOERR;
	if (n == 0)
		return FRAME_EOF;
	if (n < GS_CHUNK_HEADER_LEN)
		return FRAME_CUT;
	if (memcmp(f->hdr, GS_CHUNK_MAGIC, 4) != 0) {
		CHUNK_ERR(r, off, "bad chunk magic");
		return FRAME_BAD;
	}
	if (gs_get_u32(f->hdr + 24) != (uint32_t)crc32(0, f->hdr, 24)) {
		CHUNK_ERR(r, off, "chunk header CRC mismatch");
		return FRAME_BAD;
	}
	f->type = gs_get_u16(f->hdr + 4);
	f->flags = gs_get_u16(f->hdr + 6);
	f->raw_len = gs_get_u32(f->hdr + 8);
	f->comp_len = gs_get_u32(f->hdr + 12);
	f->nrecords = gs_get_u32(f->hdr + 16);
	f->crc = gs_get_u32(f->hdr + 20);
	if (f->raw_len > GS_CHUNK_MAX_RAW || f->comp_len > GS_CHUNK_MAX_COMPRESSED) {
		CHUNK_ERR(r, off,
			  "length field too large (raw %" PRIu32 ", compressed %" PRIu32
			  " bytes; limit %u)",
			  f->raw_len, f->comp_len, GS_CHUNK_MAX_RAW);
		return FRAME_BAD;
	}
	if (off + GS_CHUNK_HEADER_LEN + f->comp_len > r->size)
		return FRAME_CUT;
	{
		char why[200];

		if (frame_bound(r, f, r->raw_total, r->comp_total, why, sizeof(why))) {
			CHUNK_ERR(r, off, "%s", why);
			return FRAME_BAD;
		}
	}
	if (gs_vec_reserve((void **)&r->cbuf, &r->cbuf_cap, f->comp_len ? f->comp_len : 1, 1)) {
		gs_error_append("out of memory");
		return FRAME_IOERR;
	}
	n = win_read(r, &r->win, off + GS_CHUNK_HEADER_LEN, r->cbuf, f->comp_len);
	if (n < 0)
		return FRAME_IOERR;
	if (n < (int64_t)f->comp_len)
		return FRAME_CUT;
	crc = (uint32_t)crc32(0, r->cbuf, f->comp_len);
	if (crc != f->crc) {
		CHUNK_ERR(r, off, "CRC mismatch");
		return FRAME_BAD;
	}
	return FRAME_OK;
}

/* Salvage: find the next offset after `from` holding a whole valid frame. */
static bool resync(struct gs_reader *r, uint64_t from, uint64_t *found)
{
	unsigned char buf[65536];
	uint64_t off = from;

	while (off < r->size) {
		int64_t n = read_at(r, off, buf, sizeof(buf));

		if (n <= 0)
			return false;
		for (int64_t i = 0; i + 4 <= n; i++) {
			struct frame f;
			int errs = gs_error_count();

			if (memcmp(buf + i, GS_CHUNK_MAGIC, 4) != 0)
				continue;
			if (read_frame(r, off + (uint64_t)i, &f) == FRAME_OK) {
				*found = off + (uint64_t)i;
				return true;
			}
			/* Drop causes added by the failed probe. */
			gs_error_truncate(errs);
		}
		if (off + (uint64_t)n >= r->size)
			break;
		/* Overlap by 3 bytes so a magic across the boundary is seen. */
		off += (uint64_t)(n > 3 ? n - 3 : n);
	}
	return false;
}

/* ---- decoding ---- */

#define SHAPE_ERR(r, ...)                                                                          \
	do {                                                                                       \
		CHUNK_ERR(r, r->offset, __VA_ARGS__);                                              \
		return GS_ERR_FORMAT;                                                              \
	} while (0)

static gs_status map_string(struct gs_reader *r, uint32_t stored, uint32_t *out)
{
	if (stored == 0) {
		*out = GS_NO_STRING;
		return GS_OK;
	}
	if (stored - 1 >= r->n_str)
		SHAPE_ERR(r, "string id %" PRIu32 " out of range (%zu strings)", stored - 1,
			  r->n_str);
	*out = r->str_map[stored - 1];
	return GS_OK;
}

static gs_status map_stream(struct gs_reader *r, uint32_t file_index, uint32_t *out)
{
	if (file_index >= r->n_stream || r->stream_map[file_index] == GS_NO_INDEX)
		SHAPE_ERR(r, "record refers to undeclared stream %" PRIu32, file_index);
	*out = r->stream_map[file_index];
	return GS_OK;
}

/* Optional stream: stored as index + 1, 0 = none. */
static gs_status map_stream_opt(struct gs_reader *r, uint32_t stored, uint32_t *out)
{
	if (stored == 0) {
		*out = GS_NO_INDEX;
		return GS_OK;
	}
	return map_stream(r, stored - 1, out);
}

/* An op's collective: stored as file index + 1, 0 = none. */
static gs_status map_collective(struct gs_reader *r, uint32_t stored, uint32_t *out)
{
	if (stored == 0) {
		*out = 0;
		return GS_OK;
	}
	if (stored - 1 >= r->n_coll)
		SHAPE_ERR(r, "op refers to undeclared collective %" PRIu32, stored - 1);
	*out = r->coll_map[stored - 1];
	return GS_OK;
}

static gs_status fill_lost_strings(struct gs_reader *r, struct gs_sink *sink, size_t upto)
{
	gs_status rc;

	if (r->unknown_string == GS_NO_STRING && sink->intern) {
		rc = sink->intern(sink, "?", 1, &r->unknown_string);
		if (rc)
			return rc;
	}
	while (r->n_str < upto) {
		if (GS_VEC_PUSH(r->str_map, r->n_str, r->cap_str, r->unknown_string))
			return gs_nomem();
	}
	return GS_OK;
}

static gs_status decode_strings(struct gs_reader *r, struct gs_sink *sink, const Gscope__Chunk *c)
{
	gs_status rc;

	if (c->string_base > MAX_STRINGS || c->n_strings > MAX_STRINGS - c->string_base)
		SHAPE_ERR(r,
			  "string table over the limit of %u strings (base %" PRIu32 ", %zu more)",
			  MAX_STRINGS, c->string_base, c->n_strings);
	if (c->string_base != r->n_str) {
		if (!(r->flags & GS_READER_SALVAGE) || c->string_base < r->n_str)
			SHAPE_ERR(r,
				  "string table out of sequence (base %" PRIu32 ", expected %zu)",
				  c->string_base, r->n_str);
		rc = fill_lost_strings(r, sink, c->string_base);
		if (rc)
			return rc;
	}
	if (c->n_strings > UINT32_MAX - 1 - r->n_str)
		SHAPE_ERR(r, "too many strings");
	for (size_t i = 0; i < c->n_strings; i++) {
		uint32_t id = GS_NO_STRING;

		if (sink->intern) {
			rc = sink->intern(sink, (const char *)c->strings[i].data, c->strings[i].len,
					  &id);
			if (rc)
				return rc;
		}
		if (GS_VEC_PUSH(r->str_map, r->n_str, r->cap_str, id))
			return gs_nomem();
	}
	return GS_OK;
}

static gs_status decode_streams(struct gs_reader *r, struct gs_sink *sink, const Gscope__Chunk *c)
{
	for (size_t i = 0; i < c->n_streams; i++) {
		const Gscope__Stream *m = c->streams[i];
		struct gs_stream s = {.pid = m->pid,
				      .device = m->device,
				      .context = m->context,
				      .stream_id = m->stream_id,
				      .kind = (uint8_t)(m->kind < GS_STREAM_KIND_COUNT ? m->kind :
											 0),
				      .priority = m->priority};
		uint32_t idx = GS_NO_INDEX;
		gs_status rc;

		if (m->index > r->n_stream && !(r->flags & GS_READER_SALVAGE))
			SHAPE_ERR(r, "stream index %" PRIu32 " out of sequence", m->index);
		if (m->index >= MAX_STREAMS)
			SHAPE_ERR(r, "stream index %" PRIu32 " over the limit of %u streams",
				  m->index, MAX_STREAMS);
		while (r->n_stream <= m->index)
			if (GS_VEC_PUSH(r->stream_map, r->n_stream, r->cap_stream, GS_NO_INDEX))
				return gs_nomem();
		if (sink->stream) {
			rc = sink->stream(sink, &s, &idx);
			if (rc)
				return rc;
		}
		r->stream_map[m->index] = idx;
	}
	return GS_OK;
}

#define NEED(col, n, what)                                                                         \
	do {                                                                                       \
		if ((col) != (n))                                                                  \
			SHAPE_ERR(r, "%s column has %zu entries, expected %zu", what,              \
				  (size_t)(col), (size_t)(n));                                     \
	} while (0)
#define NEED_OPT(col, n, what)                                                                     \
	do {                                                                                       \
		if ((col) != 0 && (col) != (n))                                                    \
			SHAPE_ERR(r, "%s column has %zu entries, expected %zu or none", what,      \
				  (size_t)(col), (size_t)(n));                                     \
	} while (0)
#define OPT(arr, nn, i) ((nn) ? (arr)[i] : 0)

/*
 * Times. The writer stores a record's start as the difference from the
 * previous start of its column and its duration as end - start, both
 * modulo 2^64, so that every int64 time reads back as written: a start is
 * the previous one plus its delta, modulo 2^64. The duration is the
 * record's length (a negative one reads as over 7 days: dropped either
 * way), and the end is taken exactly: where start + duration passes
 * INT64_MAX, the sink gets an end that leads it to the outcome of the
 * exact one. A record of over 7 days is dropped and counted; any other
 * starts past 2^62 ns and is refused for its start, naming it (format.h
 * GS_TIME_LIMIT_NS), not read as one that ends before it starts.
 */
static int64_t start_ns(int64_t prev, int64_t delta)
{
	return (int64_t)((uint64_t)prev + (uint64_t)delta);
}

static int64_t end_ns(int64_t start, uint64_t duration)
{
	if (duration <= (uint64_t)INT64_MAX - (uint64_t)start)
		return (int64_t)((uint64_t)start + duration);
	/* start > INT64_MAX - duration >= INT64_MIN: start - 1 does not wrap. */
	return duration > (uint64_t)GS_MAX_DURATION_NS ? start - 1 : INT64_MAX;
}

static gs_status decode_ops(struct gs_reader *r, struct gs_sink *sink, const Gscope__Ops *m)
{
	size_t n = m->n_kind, nk = 0, nb = 0, ik = 0, ib = 0;
	int64_t start = 0;
	uint64_t corr = 0;

	NEED(m->n_start_delta, n, "op start");
	NEED(m->n_duration, n, "op duration");
	NEED(m->n_stream, n, "op stream");
	NEED(m->n_name, n, "op name");
	NEED(m->n_correlation_delta, n, "op correlation");
	NEED_OPT(m->n_flags, n, "op flags");
	NEED_OPT(m->n_graph_id, n, "op graph id");
	NEED_OPT(m->n_graph_node, n, "op graph node");
	NEED_OPT(m->n_collective, n, "op collective");
	for (size_t i = 0; i < n; i++) {
		if (m->kind[i] >= GS_OP_KIND_COUNT)
			SHAPE_ERR(r, "op %zu has unknown kind %" PRIu32, i, m->kind[i]);
		nk += m->kind[i] == GS_OP_KERNEL;
		nb += m->kind[i] != GS_OP_KERNEL;
	}
	NEED(m->n_grid_x, nk, "kernel grid");
	NEED(m->n_grid_y, nk, "kernel grid");
	NEED(m->n_grid_z, nk, "kernel grid");
	NEED(m->n_block_x, nk, "kernel block");
	NEED(m->n_block_y, nk, "kernel block");
	NEED(m->n_block_z, nk, "kernel block");
	NEED_OPT(m->n_shared_mem, nk, "kernel shared memory");
	NEED_OPT(m->n_registers, nk, "kernel registers");
	NEED_OPT(m->n_mangled_name, nk, "kernel mangled name");
	NEED_OPT(m->n_bytes, nb, "op bytes");
	NEED_OPT(m->n_copy_info, nb, "copy info");
	for (size_t i = 0; i < n; i++) {
		struct gs_op op = {0};
		struct gs_launch_cfg lc = {0};
		gs_status rc;

		start = start_ns(start, m->start_delta[i]);
		corr += (uint64_t)m->correlation_delta[i];
		op.kind = (uint8_t)m->kind[i];
		op.start_ns = start;
		op.end_ns = end_ns(start, m->duration[i]);
		op.correlation = corr;
		op.flags = (uint8_t)OPT(m->flags, m->n_flags, i);
		lc.graph_id = OPT(m->graph_id, m->n_graph_id, i);
		op.graph_node = OPT(m->graph_node, m->n_graph_node, i);
		rc = map_stream(r, m->stream[i], &op.stream);
		if (!rc)
			rc = map_string(r, m->name[i], &op.name);
		if (!rc)
			rc = map_collective(r, OPT(m->collective, m->n_collective, i),
					    &op.collective);
		if (rc)
			return rc;
		if (op.kind == GS_OP_KERNEL) {
			lc.grid[0] = m->grid_x[ik];
			lc.grid[1] = m->grid_y[ik];
			lc.grid[2] = m->grid_z[ik];
			lc.block[0] = m->block_x[ik];
			lc.block[1] = m->block_y[ik];
			lc.block[2] = m->block_z[ik];
			lc.shared_mem = OPT(m->shared_mem, m->n_shared_mem, ik);
			lc.registers = OPT(m->registers, m->n_registers, ik);
			rc = map_string(r, OPT(m->mangled_name, m->n_mangled_name, ik),
					&lc.mangled_name);
			if (rc)
				return rc;
			lc.mangled_name = lc.mangled_name == GS_NO_STRING ? 0 : lc.mangled_name + 1;
			ik++;
		} else {
			uint32_t info = OPT(m->copy_info, m->n_copy_info, ib);

			op.bytes = OPT(m->bytes, m->n_bytes, ib);
			op.copy_kind = (uint8_t)(info & 0xf);
			op.src_mem = (info >> 4) & 0xf;
			op.dst_mem = (info >> 8) & 0xf;
			if (op.copy_kind >= GS_COPY_KIND_COUNT)
				op.copy_kind = GS_COPY_UNKNOWN;
			if (op.src_mem >= GS_MEM_KIND_COUNT)
				op.src_mem = GS_MEM_UNKNOWN;
			if (op.dst_mem >= GS_MEM_KIND_COUNT)
				op.dst_mem = GS_MEM_UNKNOWN;
			ib++;
		}
		if (sink->op) {
			rc = sink->op(sink, &op, &lc);
			if (rc)
				return rc;
		}
	}
	return GS_OK;
}

static gs_status decode_api(struct gs_reader *r, struct gs_sink *sink, const Gscope__ApiCalls *m)
{
	size_t n = m->n_start_delta;
	int64_t start = 0;
	uint64_t corr = 0;

	NEED(m->n_duration, n, "api duration");
	NEED(m->n_pid, n, "api pid");
	NEED(m->n_tid, n, "api tid");
	NEED(m->n_correlation_delta, n, "api correlation");
	NEED(m->n_name, n, "api name");
	NEED_OPT(m->n_return_value, n, "api return value");
	NEED_OPT(m->n_cbid, n, "api cbid");
	NEED_OPT(m->n_kind, n, "api kind");
	for (size_t i = 0; i < n; i++) {
		struct gs_api_call c = {0};
		gs_status rc;

		start = start_ns(start, m->start_delta[i]);
		corr += (uint64_t)m->correlation_delta[i];
		c.start_ns = start;
		c.end_ns = end_ns(start, m->duration[i]);
		c.pid = m->pid[i];
		c.tid = m->tid[i];
		c.correlation = corr;
		c.return_value = OPT(m->return_value, m->n_return_value, i);
		c.cbid = OPT(m->cbid, m->n_cbid, i);
		c.kind = (uint8_t)(OPT(m->kind, m->n_kind, i) ? GS_API_DRIVER : GS_API_RUNTIME);
		rc = map_string(r, m->name[i], &c.name);
		if (!rc && sink->api_call)
			rc = sink->api_call(sink, &c);
		if (rc)
			return rc;
	}
	return GS_OK;
}

static gs_status decode_ranges(struct gs_reader *r, struct gs_sink *sink, const Gscope__Ranges *m)
{
	size_t n = m->n_start_delta;
	int64_t start = 0;
	uint64_t unknown = 0; /* ranges of a kind this version does not know */

	NEED(m->n_duration, n, "range duration");
	NEED(m->n_pid, n, "range pid");
	NEED(m->n_tid, n, "range tid");
	NEED(m->n_name, n, "range name");
	NEED_OPT(m->n_external_id, n, "range external id");
	NEED_OPT(m->n_domain, n, "range domain");
	NEED_OPT(m->n_kind, n, "range kind");
	NEED_OPT(m->n_stream, n, "range stream");
	for (size_t i = 0; i < n; i++) {
		struct gs_range g = {0};
		uint32_t kind = OPT(m->kind, m->n_kind, i);
		gs_status rc;

		unknown += kind >= GS_RANGE_KIND_COUNT;
		start = start_ns(start, m->start_delta[i]);
		g.start_ns = start;
		g.end_ns = end_ns(start, m->duration[i]);
		g.pid = m->pid[i];
		g.tid = m->tid[i];
		g.external_id = OPT(m->external_id, m->n_external_id, i);
		g.kind = (uint8_t)(kind < GS_RANGE_KIND_COUNT ? kind : GS_RANGE_OTHER);
		rc = map_string(r, m->name[i], &g.name);
		if (!rc)
			rc = map_string(r, OPT(m->domain, m->n_domain, i), &g.domain);
		if (!rc && g.kind == GS_RANGE_GPU_ANNOTATION) {
			rc = map_stream_opt(r, OPT(m->stream, m->n_stream, i), &g.stream);
			if (!rc && g.stream == GS_NO_INDEX)
				SHAPE_ERR(r,
					  "a GPU annotation range (%zu in the chunk) has no stream",
					  i);
		}
		if (!rc && sink->range)
			rc = sink->range(sink, &g);
		if (rc)
			return rc;
	}
	return warn_n(r, sink, unknown,
		      "host ranges of a kind this version does not know, read as other ranges");
}

/* Collectives, in file order from collective_base (after a salvaged gap,
 * the lost ones map to none). */
static gs_status decode_collectives(struct gs_reader *r, struct gs_sink *sink,
				    const Gscope__Chunk *c)
{
	if (c->n_collectives && c->collective_base != r->n_coll) {
		if (!(r->flags & GS_READER_SALVAGE) || c->collective_base < r->n_coll ||
		    c->collective_base - r->n_coll > (1u << 24))
			SHAPE_ERR(r, "collectives out of sequence (base %" PRIu32 ", expected %zu)",
				  c->collective_base, r->n_coll);
		while (r->n_coll < c->collective_base)
			if (GS_VEC_PUSH(r->coll_map, r->n_coll, r->cap_coll, 0))
				return gs_nomem();
	}
	if (c->n_collectives > UINT32_MAX - 1 - r->n_coll)
		SHAPE_ERR(r, "too many collectives");
	for (size_t i = 0; i < c->n_collectives; i++) {
		const Gscope__Collective *m = c->collectives[i];
		struct gs_collective k = {.group_size = m->group_size,
					  .in_nelems = m->in_nelems,
					  .out_nelems = m->out_nelems,
					  .has_nelems = m->has_nelems,
					  .has_seq = m->has_seq,
					  .seq = m->has_seq ? m->seq : 0};
		uint32_t idx = 0, id = 0;
		gs_status rc = map_string(r, m->name, &k.name);

		if (!rc)
			rc = map_string(r, m->group, &k.group);
		if (!rc)
			rc = map_string(r, m->group_desc, &k.group_desc);
		if (!rc)
			rc = map_string(r, m->group_ranks, &k.group_ranks);
		if (!rc)
			rc = map_string(r, m->dtype, &k.dtype);
		if (!rc && sink->collective) {
			rc = sink->collective(sink, &k, &idx);
			id = idx + 1;
		}
		if (rc)
			return rc;
		if (GS_VEC_PUSH(r->coll_map, r->n_coll, r->cap_coll, id))
			return gs_nomem();
	}
	return GS_OK;
}

static gs_status decode_rest(struct gs_reader *r, struct gs_sink *sink, const Gscope__Chunk *c)
{
	gs_status rc = GS_OK;
	uint64_t unknown_syncs = 0; /* of a kind this version does not know */

	for (size_t i = 0; i < c->n_processes && !rc; i++) {
		const Gscope__Process *m = c->processes[i];
		struct gs_process p = {.pid = m->pid,
				       .start_ns = m->start_ns,
				       .dropped_records = m->dropped_records,
				       .has_rank = m->rank != 0,
				       .rank = (uint32_t)(m->rank - 1),
				       .world_size = m->world_size,
				       .clock = (uint8_t)m->clock,
				       .wall_offset_ns = m->wall_offset_ns,
				       .capture = m->capture,
				       .backend = GS_NO_STRING};

		if (m->rank > (uint64_t)UINT32_MAX + 1)
			SHAPE_ERR(r, "process %" PRId64 " has rank %" PRIu64 ", over 2^32 - 1",
				  m->pid, m->rank - 1);
		if (!p.has_rank)
			p.rank = 0;
		/* A clock this reader does not know, or an offset past the
		 * times the model holds, reads as not known. */
		if (m->clock >= GS_CLOCK_SOURCE_COUNT || m->wall_offset_ns <= -GS_TIME_LIMIT_NS ||
		    m->wall_offset_ns >= GS_TIME_LIMIT_NS || !m->clock) {
			p.clock = GS_CLOCK_NONE;
			p.wall_offset_ns = 0;
		}
		rc = map_string(r, m->host_name, &p.host_name);
		if (!rc && m->backend) {
			rc = map_string(r, m->backend, &p.backend);
			p.has_backend = !rc && p.backend != GS_NO_STRING;
		}
		if (!rc)
			rc = map_string(r, m->command_line, &p.command_line);
		if (!rc)
			rc = map_string(r, m->driver_version, &p.driver_version);
		if (!rc)
			rc = map_string(r, m->runtime_version, &p.runtime_version);
		if (!rc)
			rc = map_string(r, m->cupti_version, &p.cupti_version);
		if (!rc && sink->process)
			rc = sink->process(sink, &p);
	}
	for (size_t i = 0; i < c->n_devices && !rc; i++) {
		const Gscope__Device *m = c->devices[i];
		struct gs_device d = {.id = m->id,
				      .sm_count = m->sm_count,
				      .cc_major = m->cc_major,
				      .cc_minor = m->cc_minor,
				      .memory_bytes = m->memory_bytes,
				      .copy_engines = m->copy_engines};

		rc = map_string(r, m->name, &d.name);
		if (!rc)
			rc = map_string(r, m->uuid, &d.uuid);
		if (!rc && sink->device)
			rc = sink->device(sink, &d);
	}
	if (!rc)
		rc = decode_collectives(r, sink, c);
	for (size_t i = 0; i < c->n_syncs && !rc; i++) {
		const Gscope__Sync *m = c->syncs[i];

		unknown_syncs += m->kind >= GS_SYNC_KIND_COUNT;
		struct gs_sync y = {.kind = (uint8_t)(m->kind < GS_SYNC_KIND_COUNT ? m->kind : 0),
				    .start_ns = m->start_ns,
				    .end_ns = end_ns(m->start_ns, m->duration),
				    .pid = m->pid,
				    .tid = m->tid,
				    .correlation = m->correlation,
				    .event_id = m->event_id,
				    .sync_id = m->sync_id,
				    .event_correlation = m->event_correlation,
				    .device = m->device};

		rc = map_stream_opt(r, m->stream, &y.stream);
		if (!rc)
			rc = map_stream_opt(r, m->wait_on_stream, &y.wait_on_stream);
		if (!rc && sink->sync)
			rc = sink->sync(sink, &y);
	}
	if (!rc)
		rc = warn_n(r, sink, unknown_syncs,
			    "syncs of a kind this version does not know, read as of unknown kind");
	for (size_t i = 0; i < c->n_event_records && !rc; i++) {
		const Gscope__EventRecord *m = c->event_records[i];
		struct gs_event_record e = {.time_ns = m->time_ns,
					    .correlation = m->correlation,
					    .event_id = m->event_id,
					    .sync_id = m->sync_id};

		rc = map_stream_opt(r, m->stream, &e.stream);
		if (!rc && sink->event_record)
			rc = sink->event_record(sink, &e);
	}
	if (!rc && c->n_allocations && c->allocation_base != r->n_alloc) {
		if (!(r->flags & GS_READER_SALVAGE) || c->allocation_base < r->n_alloc ||
		    c->allocation_base - r->n_alloc > (1u << 24))
			SHAPE_ERR(r, "allocations out of sequence (base %" PRIu32 ", expected %zu)",
				  c->allocation_base, r->n_alloc);
		while (r->n_alloc < c->allocation_base)
			if (GS_VEC_PUSH(r->alloc_map, r->n_alloc, r->cap_alloc, GS_NO_INDEX))
				return gs_nomem();
	}
	for (size_t i = 0; i < c->n_allocations && !rc; i++) {
		const Gscope__Allocation *m = c->allocations[i];
		struct gs_allocation a = {
			.address = m->address,
			.bytes = m->bytes,
			.alloc_ns = m->alloc_ns,
			.free_ns = m->free_ns,
			.pid = m->pid,
			.device = m->device,
			.mem_kind = (uint8_t)(m->mem_kind < GS_MEM_KIND_COUNT ? m->mem_kind : 0)};
		uint32_t idx = GS_NO_INDEX;

		if (sink->allocation)
			rc = sink->allocation(sink, &a, &idx);
		if (!rc && GS_VEC_PUSH(r->alloc_map, r->n_alloc, r->cap_alloc, idx))
			return gs_nomem();
	}
	for (size_t i = 0; i < c->n_op_allocs && !rc; i++) {
		const Gscope__OpAlloc *m = c->op_allocs[i];
		struct gs_op_alloc l = {.correlation = m->correlation,
					.op_kind = (uint8_t)m->op_kind,
					.flags = (uint8_t)(m->flags &
							   (GS_LINK_HAS_OFFSET | GS_LINK_SEGMENT)),
					.offset = m->offset,
					.bytes = m->bytes};

		if (m->allocation >= r->n_alloc)
			SHAPE_ERR(r, "op link refers to undeclared allocation %" PRIu32,
				  m->allocation);
		l.allocation = r->alloc_map[m->allocation];
		if (l.allocation != GS_NO_INDEX && sink->op_alloc)
			rc = sink->op_alloc(sink, &l);
	}
	for (size_t i = 0; i < c->n_overheads && !rc; i++) {
		const Gscope__Overhead *m = c->overheads[i];
		struct gs_overhead o = {.start_ns = m->start_ns,
					.end_ns = end_ns(m->start_ns, m->duration),
					.pid = m->pid};

		rc = map_string(r, m->kind, &o.kind);
		if (!rc && sink->overhead)
			rc = sink->overhead(sink, &o);
	}
	for (size_t i = 0; i < c->n_clock_pairs && !rc; i++) {
		const Gscope__ClockPair *m = c->clock_pairs[i];
		struct gs_clock_pair p = {.pid = m->pid,
					  .device = m->device,
					  .host_ns = m->host_ns,
					  .gpu_ns = m->gpu_ns};

		if (sink->clock_pair)
			rc = sink->clock_pair(sink, &p);
	}
	for (size_t i = 0; i < c->n_dropped && !rc; i++)
		if (sink->dropped)
			rc = sink->dropped(sink, c->dropped[i]->pid, c->dropped[i]->count);
	for (size_t i = 0; i < c->n_warnings && !rc; i++)
		if (sink->warning)
			rc = sink->warning(sink,
					   c->warnings[i]->message ? c->warnings[i]->message : "",
					   c->warnings[i]->count,
					   c->warnings[i]->kind < GS_WARNING_KIND_COUNT ?
						   c->warnings[i]->kind :
						   GS_WARNING_OTHER);
	return rc;
}

static uint64_t chunk_record_count(const Gscope__Chunk *c)
{
	uint64_t n = c->n_syncs + c->n_event_records + c->n_allocations + c->n_op_allocs +
		     c->n_overheads + c->n_clock_pairs;

	if (c->ops)
		n += c->ops->n_kind;
	if (c->api_calls)
		n += c->api_calls->n_start_delta;
	if (c->ranges)
		n += c->ranges->n_start_delta;
	return n;
}

static gs_status decode_chunk(struct gs_reader *r, struct gs_sink *sink, const struct frame *f,
			      const Gscope__Chunk *c)
{
	uint64_t nrec = chunk_record_count(c);
	gs_status rc;

	r->placed = false;
	if (nrec != f->nrecords)
		SHAPE_ERR(r, "holds %" PRIu64 " records, its header says %" PRIu32, nrec,
			  f->nrecords);
	rc = decode_strings(r, sink, c);
	if (!rc)
		rc = decode_streams(r, sink, c);
	if (!rc)
		rc = decode_rest(r, sink, c);
	if (!rc && c->ops)
		rc = decode_ops(r, sink, c->ops);
	if (!rc && c->api_calls)
		rc = decode_api(r, sink, c->api_calls);
	if (!rc && c->ranges)
		rc = decode_ranges(r, sink, c->ranges);
	if (rc) {
		/* What the sink refused (a time out of range, a limit, memory)
		 * is told where in the file it was. */
		if (!r->placed)
			gs_error_append("%s: chunk %" PRIu64 " at byte %" PRIu64, r->name, r->chunk,
					r->offset);
		return rc;
	}
	r->records = sat_add(r->records, nrec);
	if (f->type == GS_CHUNK_END) {
		r->saw_end = true;
		if (c->total_records != sat_add(r->records, r->unknown_records) && !r->skipped)
			SHAPE_ERR(r,
				  "end chunk counts %" PRIu64 " records, the file holds %" PRIu64,
				  c->total_records, r->records);
	}
	return GS_OK;
}

/* Inflate and unpack the frame in r->cbuf. */
static gs_status unpack_frame(struct gs_reader *r, const struct frame *f, Gscope__Chunk **out)
{
	uLongf len = f->raw_len;
	int zrc;

	if (gs_vec_reserve((void **)&r->rbuf, &r->rbuf_cap, f->raw_len ? f->raw_len : 1, 1))
		return gs_nomem();
	zrc = inflate_exact(&r->inflater, r->rbuf, &len, r->cbuf, f->comp_len);
	if (zrc != Z_OK || len != f->raw_len) {
		CHUNK_ERR(r, r->offset, "corrupt compressed payload (%s)",
			  zrc == Z_OK ? "wrong length" : zError(zrc));
		return GS_ERR_FORMAT;
	}
	*out = gs_chunk_fast_unpack(&r->fast, f->raw_len, r->rbuf);
	if (!*out) {
		CHUNK_ERR(r, r->offset, "malformed payload");
		return GS_ERR_FORMAT;
	}
	return GS_OK;
}

static gs_status bind_sink(struct gs_reader *r, struct gs_sink *sink)
{
	if (!sink) {
		gs_error_append("no sink given");
		return GS_ERR_INVALID;
	}
	if (r->sink && r->sink != sink) {
		gs_error_append("%s: one reader feeds one sink", r->name);
		return GS_ERR_INVALID;
	}
	r->sink = sink;
	return GS_OK;
}

static bool known_chunk_type(uint16_t type)
{
	return type == GS_CHUNK_META || type == GS_CHUNK_RECORDS || type == GS_CHUNK_END;
}

/* Count a chunk of a type this reader does not know (skipped). */
static void note_unknown(struct gs_reader *r, const struct frame *f)
{
	uint32_t i;

	r->unknown_records = sat_add(r->unknown_records, f->nrecords);
	for (i = 0; i < r->n_unknown; i++) {
		if (r->unknown[i].type == f->type) {
			r->unknown[i].count = sat_add(r->unknown[i].count, 1);
			return;
		}
	}
	if (i == sizeof(r->unknown) / sizeof(r->unknown[0])) {
		r->unknown_other = sat_add(r->unknown_other, 1);
		return;
	}
	r->unknown[i].type = f->type;
	r->unknown[i].count = 1;
	r->unknown[i].first = r->chunk;
	r->n_unknown++;
}

/* At the end of the read: one warning per unknown chunk type. */
static gs_status tell_unknown(struct gs_reader *r, struct gs_sink *sink)
{
	gs_status rc = GS_OK;

	if (r->unknown_told)
		return GS_OK;
	r->unknown_told = true;
	for (uint32_t i = 0; i < r->n_unknown && !rc; i++)
		rc = warn(r, sink,
			  "skipped %" PRIu64 " chunks of unknown type %u (first: chunk %" PRIu64
			  "); a newer gpuscope may read them",
			  r->unknown[i].count, r->unknown[i].type, r->unknown[i].first);
	if (!rc && r->unknown_other)
		rc = warn(r, sink, "skipped %" PRIu64 " chunks of further unknown types",
			  r->unknown_other);
	if (!rc && r->flagged)
		rc = warn(r, sink,
			  "%" PRIu64 " chunks have flag bits this version does not know (0x%04x; "
			  "first: chunk %" PRIu64 "), read as without them",
			  r->flagged, (unsigned)r->unknown_flags, r->first_flagged);
	return rc;
}

/* After a chunk went to the sink: move past it; after the end chunk, the
 * reader is done (bytes after it are ignored, with a warning). */
static gs_status chunk_done(struct gs_reader *r, struct gs_sink *sink, const struct frame *f)
{
	if (f->flags & ~GS_CHUNK_FLAGS_KNOWN) {
		if (!r->flagged)
			r->first_flagged = r->chunk;
		r->flagged = sat_add(r->flagged, 1);
		r->unknown_flags |= (uint16_t)(f->flags & ~GS_CHUNK_FLAGS_KNOWN);
	}
	r->raw_total += f->raw_len;
	r->comp_total += f->comp_len;
	r->offset += GS_CHUNK_HEADER_LEN + f->comp_len;
	r->chunk++;
	if (r->saw_end) {
		gs_status rc = tell_unknown(r, sink);

		r->ended = true;
		if (rc)
			return rc;
		if (r->offset < r->size)
			return warn(r, sink, "%" PRIu64 " bytes after the end chunk ignored",
				    r->size - r->offset);
	}
	return GS_OK;
}

gs_status gs_reader_next(struct gs_reader *r, struct gs_sink *sink)
{
	struct frame f;
	Gscope__Chunk *c = NULL;
	gs_status rc = bind_sink(r, sink);

	if (rc)
		return rc;
	if (!r->header_done) {
		rc = read_header(r);
		if (rc)
			return rc;
	}
	for (;;) {
		uint64_t next;
		int errs = gs_error_count();

		if (r->ended)
			return GS_END;
		switch (read_frame(r, r->offset, &f)) {
		case FRAME_IOERR:
			return GS_ERR_IO;
		case FRAME_EOF:
			r->ended = true;
			rc = tell_unknown(r, sink);
			if (rc)
				return rc;
			if (!r->saw_end)
				return warn(
					r, sink,
					"no end chunk: the recording was cut short; read %" PRIu64
					" whole chunks",
					r->chunk);
			return GS_END;
		case FRAME_CUT:
			r->ended = true;
			rc = tell_unknown(r, sink);
			if (rc)
				return rc;
			return warn(r, sink,
				    "file cut short inside chunk %" PRIu64 " at byte %" PRIu64
				    "; kept the %" PRIu64 " whole chunks before it",
				    r->chunk, r->offset, r->chunk);
		case FRAME_OK:
			if (!known_chunk_type(f.type)) {
				note_unknown(r, &f);
				return chunk_done(r, sink, &f);
			}
			rc = unpack_frame(r, &f, &c);
			if (!rc) {
				rc = decode_chunk(r, sink, &f, c);
				gs_chunk_fast_free(&r->fast, c);
			}
			if (rc == GS_OK)
				return chunk_done(r, sink, &f);
			if (rc != GS_ERR_FORMAT || !(r->flags & GS_READER_SALVAGE))
				return rc;
			break;
		case FRAME_BAD:
			if (!(r->flags & GS_READER_SALVAGE))
				return GS_ERR_FORMAT;
			break;
		}
		/* Salvage: report the bad chunk, skip to the next valid frame. */
		{
			char msg[GS_ERROR_MSG_MAX];
			size_t used = 0;

			/* The chunk's causes, outermost (its place) first. */
			for (int i = gs_error_count(); i-- > errs && used + 1 < sizeof(msg);) {
				int n = snprintf(msg + used, sizeof(msg) - used, "%s%s",
						 used ? ": " : "", gs_error_message(i));

				if (n < 0)
					break;
				used += (size_t)n;
			}
			snprintf(msg + (used < sizeof(msg) ? used : sizeof(msg) - 1),
				 sizeof(msg) - (used < sizeof(msg) ? used : sizeof(msg) - 1), "%s",
				 used ? " (skipped)" : "bad chunk (skipped)");
			gs_error_truncate(errs);
			if (sink->warning) {
				rc = sink->warning(sink, msg, 1, GS_WARNING_OTHER);
				if (rc)
					return rc;
			}
		}
		r->skipped = sat_add(r->skipped, 1);
		r->chunk++;
		if (!resync(r, r->offset + 1, &next)) {
			r->ended = true;
			rc = tell_unknown(r, sink);
			if (rc)
				return rc;
			return warn(r, sink, "no valid chunk after byte %" PRIu64, r->offset);
		}
		r->offset = next;
	}
}

/* ---- reading ahead on a second CPU ---- */

#define AHEAD_SLOTS 3
/*
 * A slot holds one chunk that inflates to BATCH_SMALL bytes or more,
 * inflated and unpacked by the helper, or a batch of smaller ones in file
 * order, inflated by the helper and unpacked by the reader: at most
 * BATCH_MAX chunks and about BATCH_BYTES inflated. The two threads meet
 * once a slot, so many tiny chunks cost no more than few large ones.
 */
#define BATCH_SMALL (64u << 10)
#define BATCH_BYTES (1u << 20)
#define BATCH_MAX 1024u

enum slot_state {
	SLOT_FREE,
	SLOT_READY, /* chunks checked and inflated, `n` of them */
};

struct ahead_item {
	struct frame f;
	uint64_t offset;
	size_t raw_at; /* its payload: rbuf + raw_at */
};

struct ahead_slot {
	int state;
	bool stop;        /* the helper stopped after these: the reader goes on by itself */
	size_t n;         /* chunks */
	Gscope__Chunk *c; /* the one large chunk, unpacked; NULL for a batch */
	struct ahead_item *items;
	size_t items_cap;
	unsigned char *cbuf, *rbuf;
	size_t cbuf_cap, rbuf_cap;
	struct gs_chunk_fast fast;
};

struct ahead {
	struct gs_reader *r; /* the helper only reads r->fd, r->mem, r->size */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ahead_slot slot[AHEAD_SLOTS];
	size_t head, tail; /* next slot to decode, next slot to fill */
	bool quit;
	/* The helper's own. */
	uint64_t offset;
	bool past_end;
	uint64_t raw_total, comp_total; /* of the chunks before `offset` */
	struct rwin win;
	struct inflater inflater;
};

/*
 * The helper's check of the frame header at `off`, as read_frame makes it
 * but without messages (a chunk that fails any check is read again, and
 * reported, by gs_reader_next). false: stop here.
 */
static bool ahead_header(struct gs_reader *r, struct ahead *a, struct frame *f, uint64_t off)
{
	char why[200];

	if (win_read(r, &a->win, off, f->hdr, GS_CHUNK_HEADER_LEN) != GS_CHUNK_HEADER_LEN ||
	    memcmp(f->hdr, GS_CHUNK_MAGIC, 4) != 0 ||
	    gs_get_u32(f->hdr + 24) != (uint32_t)crc32(0, f->hdr, 24))
		return false;
	f->type = gs_get_u16(f->hdr + 4);
	f->flags = gs_get_u16(f->hdr + 6);
	f->raw_len = gs_get_u32(f->hdr + 8);
	f->comp_len = gs_get_u32(f->hdr + 12);
	f->nrecords = gs_get_u32(f->hdr + 16);
	f->crc = gs_get_u32(f->hdr + 20);
	/* Unknown chunk types are left to gs_reader_next, which skips them. */
	return known_chunk_type(f->type) && f->raw_len <= GS_CHUNK_MAX_RAW &&
	       f->comp_len <= GS_CHUNK_MAX_COMPRESSED &&
	       off + GS_CHUNK_HEADER_LEN + f->comp_len <= r->size &&
	       !frame_bound(r, f, a->raw_total, a->comp_total, why, sizeof(why));
}

/* Read, check and inflate the payload of `f` (at `off`) into s->rbuf +
 * raw_at. false: stop here. */
static bool ahead_payload(struct gs_reader *r, struct ahead *a, struct ahead_slot *s,
			  const struct frame *f, uint64_t off, size_t raw_at)
{
	uLongf len = f->raw_len;

	if (gs_vec_reserve((void **)&s->cbuf, &s->cbuf_cap, f->comp_len ? f->comp_len : 1, 1) ||
	    gs_vec_reserve((void **)&s->rbuf, &s->rbuf_cap, raw_at + (f->raw_len ? f->raw_len : 1),
			   1))
		return false;
	return win_read(r, &a->win, off + GS_CHUNK_HEADER_LEN, s->cbuf, f->comp_len) ==
		       (int64_t)f->comp_len &&
	       (uint32_t)crc32(0, s->cbuf, f->comp_len) == f->crc &&
	       inflate_exact(&a->inflater, s->rbuf + raw_at, &len, s->cbuf, f->comp_len) == Z_OK &&
	       len == f->raw_len;
}

/* Fill slot `s` with the chunks from a->offset on (see BATCH_SMALL). */
static void ahead_fill(struct gs_reader *r, struct ahead *a, struct ahead_slot *s)
{
	size_t raw_at = 0;

	s->n = 0;
	s->c = NULL;
	s->stop = true;
	while (!a->past_end) {
		struct frame f;
		bool large;

		if (!ahead_header(r, a, &f, a->offset))
			return;
		large = f.raw_len >= BATCH_SMALL;
		if (large && s->n) {
			s->stop = false; /* the next slot takes it */
			return;
		}
		if (gs_vec_reserve((void **)&s->items, &s->items_cap, s->n + 1,
				   sizeof(*s->items)) ||
		    !ahead_payload(r, a, s, &f, a->offset, raw_at))
			return;
		if (large) {
			s->c = gs_chunk_fast_unpack(&s->fast, f.raw_len, s->rbuf);
			if (!s->c)
				return;
		}
		s->items[s->n++] =
			(struct ahead_item){.f = f, .offset = a->offset, .raw_at = raw_at};
		raw_at += f.raw_len;
		a->offset += GS_CHUNK_HEADER_LEN + f.comp_len;
		a->raw_total += f.raw_len;
		a->comp_total += f.comp_len;
		a->past_end = f.type == GS_CHUNK_END;
		if (large || s->n == BATCH_MAX || raw_at >= BATCH_BYTES) {
			s->stop = a->past_end;
			return;
		}
	}
}

static void *ahead_main(void *arg)
{
	struct ahead *a = arg;
	bool stop = false;

	while (!stop) {
		struct ahead_slot *s;

		pthread_mutex_lock(&a->mu);
		while (!a->quit && a->slot[a->tail].state != SLOT_FREE)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->quit) {
			pthread_mutex_unlock(&a->mu);
			break;
		}
		s = &a->slot[a->tail];
		pthread_mutex_unlock(&a->mu);
		ahead_fill(a->r, a, s);
		stop = s->stop;
		pthread_mutex_lock(&a->mu);
		s->state = SLOT_READY;
		a->tail = (a->tail + 1) % AHEAD_SLOTS;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
	}
	return NULL;
}

/*
 * Feed the chunks of one slot to the sink, exactly as gs_reader_next would
 * have (decode_chunk, then chunk_done). *go_on: false when the reader must
 * go on by itself from r->offset (a chunk the helper did not take, or one
 * its unpacking refuses: gs_reader_next reads it again and reports it).
 */
static gs_status ahead_feed(struct gs_reader *r, struct gs_sink *sink, struct ahead_slot *s,
			    bool *go_on)
{
	*go_on = false;
	for (size_t i = 0; i < s->n; i++) {
		const struct ahead_item *it = &s->items[i];
		struct gs_chunk_fast *fast = s->c ? &s->fast : &r->fast;
		Gscope__Chunk *c = s->c;
		gs_status rc;

		if (it->offset != r->offset)
			break;
		if (!c)
			c = gs_chunk_fast_unpack(fast, it->f.raw_len, s->rbuf + it->raw_at);
		if (!c)
			break;
		rc = decode_chunk(r, sink, &it->f, c);
		gs_chunk_fast_free(fast, c);
		s->c = NULL;
		if (rc == GS_OK)
			rc = chunk_done(r, sink, &it->f);
		if (rc || r->ended)
			return rc;
		if (i + 1 == s->n)
			*go_on = !s->stop;
	}
	gs_chunk_fast_free(&s->fast, s->c); /* a chunk left for gs_reader_next */
	s->c = NULL;
	return GS_OK;
}

/*
 * Feed the chunks the helper prepared to the sink, in file order, until the
 * helper stops, the file ends or an error. Returns GS_OK to let
 * gs_reader_next go on from r->offset, or the error that ends the read.
 */
static gs_status read_ahead(struct gs_reader *r, struct gs_sink *sink)
{
	struct ahead *a = calloc(1, sizeof(*a));
	gs_status rc = GS_OK;
	bool go_on = true;

	if (!a)
		return GS_OK; /* no memory to spare: read one chunk at a time */
	a->r = r;
	a->offset = r->offset;
	a->raw_total = r->raw_total;
	a->comp_total = r->comp_total;
	for (int i = 0; i < AHEAD_SLOTS; i++)
		gs_chunk_fast_init(&a->slot[i].fast);
	if (pthread_mutex_init(&a->mu, NULL) != 0) {
		free(a);
		return GS_OK;
	}
	if (pthread_cond_init(&a->cv, NULL) != 0 ||
	    pthread_create(&a->th, NULL, ahead_main, a) != 0) {
		pthread_mutex_destroy(&a->mu);
		free(a);
		return GS_OK;
	}
	while (go_on && !rc) {
		struct ahead_slot *s = &a->slot[a->head];

		pthread_mutex_lock(&a->mu);
		while (s->state == SLOT_FREE)
			pthread_cond_wait(&a->cv, &a->mu);
		pthread_mutex_unlock(&a->mu);
		rc = ahead_feed(r, sink, s, &go_on);
		pthread_mutex_lock(&a->mu);
		s->state = SLOT_FREE;
		a->head = (a->head + 1) % AHEAD_SLOTS;
		a->quit = !go_on || rc;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
	}
	pthread_join(a->th, NULL);
	for (int i = 0; i < AHEAD_SLOTS; i++) {
		gs_chunk_fast_free(&a->slot[i].fast, a->slot[i].c);
		gs_chunk_fast_fini(&a->slot[i].fast);
		free(a->slot[i].items);
		free(a->slot[i].cbuf);
		free(a->slot[i].rbuf);
	}
	free(a->win.buf);
	inflater_fini(&a->inflater);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a);
	return rc;
}

gs_status gs_reader_read_all(struct gs_reader *r, struct gs_sink *sink)
{
	gs_status rc;

	/* Salvage reads stay on one thread: their resynchronisation is rare. */
	if (!(r->flags & GS_READER_SALVAGE) && gs_cpu_count() >= 2) {
		rc = bind_sink(r, sink);
		if (!rc && !r->header_done)
			rc = read_header(r);
		if (!rc && !r->ended)
			rc = read_ahead(r, sink);
		if (rc)
			return rc;
	}
	while ((rc = gs_reader_next(r, sink)) == GS_OK)
		;
	return rc == GS_END ? GS_OK : rc;
}

/* ---- whole-trace helpers ---- */

gs_status gs_trace_load_gscope(const char *path, unsigned reader_flags, struct gs_trace **out)
{
	struct gs_reader *r = NULL;
	struct gs_trace *t = NULL;
	gs_status rc = gs_trace_create(&t);

	if (!rc)
		rc = gs_reader_open(path, reader_flags, &r);
	if (!rc)
		rc = gs_reader_read_all(r, gs_trace_borrow_sink(t));
	if (!rc)
		rc = gs_trace_finish(t);
	gs_reader_close(r);
	if (rc) {
		gs_trace_destroy(t);
		return rc;
	}
	*out = t;
	return GS_OK;
}

gs_status gs_trace_save_gscope(const struct gs_trace *t, const char *path,
			       const struct gs_writer_options *opts)
{
	struct gs_writer *w = NULL;
	gs_status rc = gs_writer_open(path, opts, &w);

	if (rc)
		return rc;
	rc = gs_trace_replay(t, gs_writer_borrow_sink(w));
	if (rc) {
		gs_writer_close(w);
		return rc;
	}
	return gs_writer_close(w);
}
