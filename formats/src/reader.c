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
 * second, on one CPU or two (reader_ahead.c). The decoding of a chunk into
 * records is reader_decode.c.
 */
#include "reader_priv.h"

#include <gpuscope/gscope_file.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read up to n bytes at `off`; returns the count read or -1 on error. */
int64_t rd_read_at(struct gs_reader *r, uint64_t off, void *buf, size_t n)
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
int64_t rd_win_read(struct gs_reader *r, struct rwin *w, uint64_t off, void *buf, size_t n)
{
	size_t done = 0;
	int64_t got;

	if (r->fd < 0)
		return rd_read_at(r, off, buf, n);
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
		got = rd_read_at(r, off, (char *)buf + done, n);
		return got < 0 ? got : (int64_t)done + got;
	}
	w->off = off;
	w->len = 0;
	got = rd_read_at(r, off, w->buf, WIN_BYTES);
	if (got < 0)
		return got;
	w->len = (size_t)got;
	if (n > w->len)
		n = w->len;
	memcpy((char *)buf + done, w->buf, n);
	return (int64_t)(done + n);
}

#ifdef GS_HAVE_ISAL
/*
 * ISA-L's inflate of a zlib stream into exactly dst_len bytes: true when it
 * took the whole stream (the zlib header, every block, the Adler-32 it
 * checks) and made exactly dst_len bytes. Anything else (a header zlib's
 * inflate would refuse, an error, a length that differs) is left to zlib,
 * whose result and message are the reader's; ISA-L only makes the common
 * case, a well-formed payload, three times as fast.
 */
static bool isal_exact(struct inflater *zi, unsigned char *dst, uLong dst_len,
		       const unsigned char *src, uLong src_len)
{
	struct inflate_state *s = zi->isal;

	/* CM 8, CINFO <= 7, the header check, no preset dictionary. */
	if (!dst_len || dst_len > UINT32_MAX || src_len < 6 || src_len > UINT32_MAX ||
	    (src[0] & 0x0f) != 8 || (src[0] >> 4) > 7 || ((src[0] << 8) | src[1]) % 31 != 0 ||
	    (src[1] & 0x20))
		return false;
	if (!s) {
		s = zi->isal = malloc(sizeof(*s));
		if (!s)
			return false;
	}
	isal_inflate_init(s);
	s->crc_flag = ISAL_ZLIB;
	s->next_in = (uint8_t *)(uintptr_t)src;
	s->avail_in = (uint32_t)src_len;
	s->next_out = dst;
	s->avail_out = (uint32_t)dst_len;
	return isal_inflate(s) == ISAL_DECOMP_OK && s->block_state == ISAL_BLOCK_FINISH &&
	       s->total_out == dst_len;
}
#endif

/*
 * uncompress() on a stream kept in `zi` (ISA-L first where the build has it):
 * the same result codes and length, without allocating zlib's state and window
 * for every chunk. Sizes are those of a chunk (below 4 GiB: one call of inflate
 * takes them).
 */
int rd_inflate_exact(struct inflater *zi, unsigned char *dst, uLongf *dst_len,
		     const unsigned char *src, uLong src_len)
{
	z_stream *z = &zi->z;
	unsigned char one;
	uLong left = *dst_len;
	int err;

#ifdef GS_HAVE_ISAL
	if (isal_exact(zi, dst, *dst_len, src, src_len))
		return Z_OK;
#endif
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

void rd_inflater_fini(struct inflater *zi)
{
	if (zi->ready)
		inflateEnd(&zi->z);
#ifdef GS_HAVE_ISAL
	free(zi->isal);
	zi->isal = NULL;
#endif
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
	rd_inflater_fini(&r->inflater);
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

static gs_status read_header(struct gs_reader *r)
{
	unsigned char h[GS_FILE_HEADER_LEN];
	int64_t n = rd_read_at(r, 0, h, sizeof(h));
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
const char *rd_frame_bound(const struct gs_reader *r, const struct frame *f, uint64_t raw,
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
	int64_t n = rd_win_read(r, &r->win, off, f->hdr, GS_CHUNK_HEADER_LEN);
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

		if (rd_frame_bound(r, f, r->raw_total, r->comp_total, why, sizeof(why))) {
			CHUNK_ERR(r, off, "%s", why);
			return FRAME_BAD;
		}
	}
	if (gs_vec_reserve((void **)&r->cbuf, &r->cbuf_cap, f->comp_len ? f->comp_len : 1, 1)) {
		gs_error_append("out of memory");
		return FRAME_IOERR;
	}
	n = rd_win_read(r, &r->win, off + GS_CHUNK_HEADER_LEN, r->cbuf, f->comp_len);
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
		int64_t n = rd_read_at(r, off, buf, sizeof(buf));

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

/* Inflate and unpack the frame in r->cbuf. */
static gs_status unpack_frame(struct gs_reader *r, const struct frame *f, Gscope__Chunk **out)
{
	uLongf len = f->raw_len;
	int zrc;

	if (gs_vec_reserve((void **)&r->rbuf, &r->rbuf_cap, f->raw_len ? f->raw_len : 1, 1))
		return gs_nomem();
	zrc = rd_inflate_exact(&r->inflater, r->rbuf, &len, r->cbuf, f->comp_len);
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

/* Count a chunk of a type this reader does not know (skipped). */
static void note_unknown(struct gs_reader *r, const struct frame *f)
{
	uint32_t i;

	r->unknown_records = rd_sat_add(r->unknown_records, f->nrecords);
	for (i = 0; i < r->n_unknown; i++) {
		if (r->unknown[i].type == f->type) {
			r->unknown[i].count = rd_sat_add(r->unknown[i].count, 1);
			return;
		}
	}
	if (i == sizeof(r->unknown) / sizeof(r->unknown[0])) {
		r->unknown_other = rd_sat_add(r->unknown_other, 1);
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
gs_status rd_chunk_done(struct gs_reader *r, struct gs_sink *sink, const struct frame *f)
{
	if (f->flags & ~GS_CHUNK_FLAGS_KNOWN) {
		if (!r->flagged)
			r->first_flagged = r->chunk;
		r->flagged = rd_sat_add(r->flagged, 1);
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
			if (!rd_known_chunk_type(f.type)) {
				note_unknown(r, &f);
				return rd_chunk_done(r, sink, &f);
			}
			rc = unpack_frame(r, &f, &c);
			if (!rc) {
				rc = rd_decode_chunk(r, sink, &f, c);
				gs_chunk_fast_free(&r->fast, c);
			}
			if (rc == GS_OK)
				return rd_chunk_done(r, sink, &f);
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
		r->skipped = rd_sat_add(r->skipped, 1);
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

gs_status gs_reader_read_all(struct gs_reader *r, struct gs_sink *sink)
{
	gs_status rc;

	/* Salvage reads stay on one thread: their resynchronisation is rare. */
	if (!(r->flags & GS_READER_SALVAGE) && gs_cpu_count() >= 2) {
		rc = bind_sink(r, sink);
		if (!rc && !r->header_done)
			rc = read_header(r);
		if (!rc && !r->ended)
			rc = rd_read_ahead(r, sink);
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
