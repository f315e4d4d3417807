/* SPDX-License-Identifier: MIT */
/*
 * Streaming reader over plain or gzip data in a file or in memory (see
 * gzin.h). The input window lives in zs.next_in / zs.avail_in for both
 * kinds, so plain and compressed input share the refill code.
 */
#define ZLIB_CONST
#include "gzin.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define GZIN_BUF (256u << 10)
/* zlib counts in uInt: feed memory input in slices no larger than this. */
#define GZIN_SLICE (1u << 30)

struct gs_gzin {
	int fd; /* -1 for memory input */
	const unsigned char *mem;
	size_t mem_size;
	size_t mem_pos; /* bytes of mem handed to the window so far */
	unsigned char *ibuf;
	bool in_eof; /* no input beyond the window */
	bool gzip;
	bool zinit;
	bool member_done;     /* the last gzip member ended */
	uint64_t in_consumed; /* compressed bytes before the window */
	uint64_t out_total;   /* content bytes inflated so far */
	uint64_t max_out;     /* limits (0: none) */
	uint32_t max_ratio;
	z_stream zs;
	char *name;
};

/* Make the window hold more input, keeping what is unread. */
static gs_status gzin_refill(struct gs_gzin *g)
{
	size_t keep = g->zs.avail_in;
	ssize_t n;

	if (g->in_eof)
		return GS_OK;
	if (g->fd < 0) {
		size_t left = g->mem_size - g->mem_pos;
		size_t take = left < GZIN_SLICE ? left : GZIN_SLICE;

		/* The window is a contiguous part of mem: extend it. */
		if (keep == 0)
			g->zs.next_in = g->mem + g->mem_pos;
		if (keep + take > GZIN_SLICE)
			take = GZIN_SLICE - keep;
		g->zs.avail_in = (uInt)(keep + take);
		g->mem_pos += take;
		if (g->mem_pos == g->mem_size)
			g->in_eof = true;
		return GS_OK;
	}
	if (keep)
		memmove(g->ibuf, g->zs.next_in, keep);
	g->in_consumed += (uint64_t)(g->zs.next_in - g->ibuf);
	g->zs.next_in = g->ibuf;
	do
		n = read(g->fd, g->ibuf + keep, GZIN_BUF - keep);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		gs_error_append("%s: read failed: %s", g->name, strerror(errno));
		return GS_ERR_IO;
	}
	if (n == 0)
		g->in_eof = true;
	g->zs.avail_in = (uInt)(keep + (size_t)n);
	return GS_OK;
}

/* Fill the window until it holds at least `want` bytes or the input ends. */
static gs_status gzin_want(struct gs_gzin *g, size_t want)
{
	while (g->zs.avail_in < want && !g->in_eof) {
		gs_status rc = gzin_refill(g);

		if (rc)
			return rc;
	}
	return GS_OK;
}

static bool is_gzip_magic(const z_stream *zs)
{
	return zs->avail_in >= 2 && zs->next_in[0] == 0x1f && zs->next_in[1] == 0x8b;
}

static gs_status gzin_start(struct gs_gzin *g, const char *name, struct gs_gzin **out)
{
	gs_status rc;

	g->name = strdup(name ? name : "(input)");
	if (!g->name)
		return gs_nomem();
	rc = gzin_want(g, 2);
	if (rc)
		return rc;
	if (is_gzip_magic(&g->zs)) {
		g->gzip = true;
		if (inflateInit2(&g->zs, 32 + 15) != Z_OK)
			return gs_nomem();
		g->zinit = true;
	}
	*out = g;
	return GS_OK;
}

gs_status gs_gzin_open(const char *path, struct gs_gzin **out)
{
	struct gs_gzin *g;
	gs_status rc;

	*out = NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return gs_nomem();
	g->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (g->fd < 0) {
		gs_error_append("%s: cannot open: %s", path, strerror(errno));
		free(g);
		return GS_ERR_IO;
	}
	g->ibuf = malloc(GZIN_BUF);
	if (!g->ibuf) {
		gs_gzin_close(g);
		return gs_nomem();
	}
	g->zs.next_in = g->ibuf;
	rc = gzin_start(g, path, out);
	if (rc)
		gs_gzin_close(g);
	return rc;
}

gs_status gs_gzin_open_fd(int fd, const void *head, size_t n, const char *name,
			  struct gs_gzin **out)
{
	struct gs_gzin *g;
	gs_status rc;

	*out = NULL;
	if (n > GS_GZIN_HEAD_MAX || (n && !head)) {
		gs_error_append("%s: %zu bytes read ahead (at most %u)", name ? name : "(input)", n,
				GS_GZIN_HEAD_MAX);
		close(fd);
		return GS_ERR_INVALID;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		close(fd);
		return gs_nomem();
	}
	g->fd = fd;
	g->ibuf = malloc(GZIN_BUF);
	if (!g->ibuf) {
		gs_gzin_close(g);
		return gs_nomem();
	}
	/* The bytes read ahead are the start of the window. */
	if (n)
		memcpy(g->ibuf, head, n);
	g->zs.next_in = g->ibuf;
	g->zs.avail_in = (uInt)n;
	rc = gzin_start(g, name, out);
	if (rc)
		gs_gzin_close(g);
	return rc;
}

gs_status gs_gzin_open_mem(const void *data, size_t size, const char *name, struct gs_gzin **out)
{
	struct gs_gzin *g;
	gs_status rc;

	*out = NULL;
	if (!data && size) {
		gs_error_append("%s: no data", name ? name : "(input)");
		return GS_ERR_INVALID;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return gs_nomem();
	g->fd = -1;
	g->mem = data;
	g->mem_size = size;
	g->in_eof = size == 0;
	rc = gzin_start(g, name, out);
	if (rc)
		gs_gzin_close(g);
	return rc;
}

static gs_status read_plain(struct gs_gzin *g, unsigned char *buf, size_t cap, size_t *got)
{
	size_t n;

	/* An empty window and room for what a refill reads: read straight
	 * into the caller's buffer (the same bytes at a time, one copy
	 * less). */
	if (g->zs.avail_in == 0 && g->fd >= 0 && !g->in_eof && cap >= GZIN_BUF) {
		ssize_t r;

		do
			r = read(g->fd, buf, GZIN_BUF);
		while (r < 0 && errno == EINTR);
		if (r < 0) {
			gs_error_append("%s: read failed: %s", g->name, strerror(errno));
			return GS_ERR_IO;
		}
		g->in_consumed += (uint64_t)(g->zs.next_in - g->ibuf) + (uint64_t)r;
		g->zs.next_in = g->ibuf;
		if (r == 0)
			g->in_eof = true;
		*got = (size_t)r;
		return GS_OK;
	}
	if (g->zs.avail_in == 0) {
		gs_status rc = gzin_refill(g);

		if (rc)
			return rc;
	}
	n = g->zs.avail_in < cap ? g->zs.avail_in : cap;
	*got = n;
	if (n == 0)
		return GS_OK;
	memcpy(buf, g->zs.next_in, n);
	g->zs.next_in += n;
	g->zs.avail_in -= (uInt)n;
	return GS_OK;
}

static uint64_t compressed_offset(const struct gs_gzin *g)
{
	if (g->fd < 0)
		return (uint64_t)(g->zs.next_in - g->mem);
	return g->in_consumed + (uint64_t)(g->zs.next_in - g->ibuf);
}

/* After a member ended: start the next one, or report the end. */
static gs_status next_member(struct gs_gzin *g, bool *end)
{
	gs_status rc = gzin_want(g, 2);

	if (rc)
		return rc;
	*end = false;
	if (g->zs.avail_in == 0) {
		*end = true;
		return GS_OK;
	}
	if (!is_gzip_magic(&g->zs)) {
		/* Zero padding after the last member is tolerated. */
		for (;;) {
			while (g->zs.avail_in && g->zs.next_in[0] == 0) {
				g->zs.next_in++;
				g->zs.avail_in--;
			}
			if (g->zs.avail_in || g->in_eof)
				break;
			rc = gzin_refill(g);
			if (rc)
				return rc;
		}
		if (g->zs.avail_in == 0) {
			*end = true;
			return GS_OK;
		}
		gs_error_append("%s: compressed byte %llu: data after the end of the gzip stream",
				g->name, (unsigned long long)compressed_offset(g));
		return GS_ERR_FORMAT;
	}
	if (inflateReset(&g->zs) != Z_OK) {
		gs_error_append("%s: cannot restart gzip decoder", g->name);
		return GS_ERR_FORMAT;
	}
	g->member_done = false;
	return GS_OK;
}

/* The decompression limits, after `n` more bytes were inflated. */
static gs_status check_inflated(struct gs_gzin *g, size_t n)
{
	uint64_t in = compressed_offset(g);

	g->out_total += n;
	if (g->max_out && g->out_total > g->max_out) {
		gs_error_append(
			"%s: gzip data inflates to more than max_inflated_bytes (%llu) bytes",
			g->name, (unsigned long long)g->max_out);
		return GS_ERR_LIMIT;
	}
	if (g->max_ratio && g->out_total > GS_GZIN_RATIO_FLOOR &&
	    g->out_total / (in ? in : 1) > g->max_ratio) {
		gs_error_append("%s: gzip data inflates to more than max_inflate_ratio (%u) times "
				"its size (%llu bytes from the first %llu): a decompression bomb?",
				g->name, g->max_ratio, (unsigned long long)g->out_total,
				(unsigned long long)in);
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

void gs_gzin_set_limits(struct gs_gzin *g, uint64_t max_bytes, uint32_t max_ratio)
{
	g->max_out = max_bytes;
	g->max_ratio = max_ratio;
}

static gs_status read_gzip(struct gs_gzin *g, unsigned char *buf, size_t cap, size_t *got)
{
	uInt room = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
	gs_status rc;
	int zr;

	*got = 0;
	g->zs.next_out = buf;
	g->zs.avail_out = room;
	while (g->zs.avail_out == room) {
		if (g->member_done) {
			bool end;

			rc = next_member(g, &end);
			if (rc || end)
				return rc;
		}
		if (g->zs.avail_in == 0) {
			rc = gzin_refill(g);
			if (rc)
				return rc;
		}
		zr = inflate(&g->zs, Z_NO_FLUSH);
		switch (zr) {
		case Z_STREAM_END:
			g->member_done = true;
			break;
		case Z_OK:
			break;
		case Z_BUF_ERROR:
			if (g->zs.avail_in == 0 && g->in_eof) {
				gs_error_append("%s: the gzip stream is truncated (after %llu "
						"compressed bytes)",
						g->name, (unsigned long long)compressed_offset(g));
				return GS_ERR_FORMAT;
			}
			break;
		case Z_MEM_ERROR:
			return gs_nomem();
		default:
			gs_error_append("%s: compressed byte %llu: corrupt gzip data (%s)", g->name,
					(unsigned long long)compressed_offset(g),
					g->zs.msg ? g->zs.msg : "inflate failed");
			return GS_ERR_FORMAT;
		}
	}
	*got = room - g->zs.avail_out;
	return check_inflated(g, *got);
}

gs_status gs_gzin_read(struct gs_gzin *g, void *buf, size_t cap, size_t *got)
{
	*got = 0;
	if (cap == 0)
		return GS_OK;
	if (g->gzip)
		return read_gzip(g, buf, cap, got);
	return read_plain(g, buf, cap, got);
}

bool gs_gzin_is_gzip(const struct gs_gzin *g)
{
	return g->gzip;
}

const char *gs_gzin_name(const struct gs_gzin *g)
{
	return g->name;
}

void gs_gzin_close(struct gs_gzin *g)
{
	if (!g)
		return;
	if (g->zinit)
		inflateEnd(&g->zs);
	if (g->fd >= 0)
		close(g->fd);
	free(g->ibuf);
	free(g->name);
	free(g);
}
