/* SPDX-License-Identifier: MIT */
/*
 * Streaming reader over plain or gzip data in a file or in memory (see
 * gzin.h). The input window lives in zs.next_in / zs.avail_in for both
 * kinds, so plain and compressed input share the refill code.
 *
 * gzip: each member is inflated by ISA-L's igzip when the build has it
 * (GS_HAVE_ISAL) and the input can be read again from the member's first
 * byte (a file or memory; a pipe is inflated by zlib), else by zlib. zlib
 * decides everything that is not plain inflating: a member whose header
 * is not a plain one, and any error, truncation or limit ISA-L meets (or
 * nearly meets) send the member back to zlib from its first byte, which
 * inflates again the bytes already handed out (dropping them) and goes on:
 * the content, the errors and every number in their messages are zlib's.
 *
 * A read fills the caller's buffer but at the end of the content, so how
 * the content is cut into reads depends on the caller alone, not on the
 * decoder or the thread. The limits are checked at fixed places of the
 * content (max_inflated_bytes at its very byte, the ratio at each MiB).
 *
 * On two CPUs or more, gzip input is inflated ahead on a second thread
 * into a few blocks the reads copy from (the same bytes and errors, at the
 * same places of the content).
 */
#define ZLIB_CONST
#include "gzin.h"

#include <gpuscope/error.h>
#include <gpuscope/trace.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#ifdef GS_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define GZIN_BUF (256u << 10)
/* zlib counts in uInt: feed memory input in slices no larger than this. */
#define GZIN_SLICE (1u << 30)
/* The ratio limit is checked each time the content reaches a multiple. */
#define GZIN_CHECK_STEP (1u << 20)
/* ISA-L may have taken this many compressed bytes more than zlib would
 * have at the same place of the content (its bit buffer): a ratio that
 * close to the limit is decided by zlib. */
#define GZIN_ISAL_SLACK 1024u
/* Read-ahead: blocks of content inflated ahead on the second thread. */
#define AHEAD_BLOCKS 4
#define AHEAD_BLOCK (512u << 10)

enum gzin_dec {
	DEC_ZLIB,
	DEC_ISAL,
};

struct ahead_block {
	unsigned char *data;
	size_t len;  /* bytes of content in data */
	size_t used; /* of those, taken by reads */
	gs_status rc;
	int ncauses; /* the error's causes, innermost first */
	char causes[GS_ERROR_MAX_CAUSES][GS_ERROR_MSG_MAX];
	bool full; /* inflated, not yet taken whole */
};

struct gzin_ahead {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ahead_block b[AHEAD_BLOCKS];
	unsigned head, tail; /* the next to read, the next to fill */
	bool stop, done;     /* asked to stop; the thread has ended */
};

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
	bool rereadable;      /* a member can be read again from its start */
	bool ahead_tried;     /* the read-ahead thread was started, or not wanted */
	uint8_t dec;          /* enum gzin_dec of the current member */
	uint64_t in_consumed; /* compressed bytes before the window */
	uint64_t out_total;   /* content bytes inflated so far */
	uint64_t max_out;     /* limits (0: none) */
	uint32_t max_ratio;
	uint64_t size;             /* of the input as stored, when known (else 0) */
	uint64_t member_start;     /* compressed offset of the current member */
	uint64_t member_start_out; /* content offset of its first byte */
	z_stream zs;
#ifdef GS_HAVE_ISAL
	struct inflate_state *isal;
#endif
	struct gzin_ahead *ahead;
	char *name;
};

/* Tests: 1 inflate with zlib only, 2 no read-ahead thread (bits). */
static _Atomic unsigned gzin_test_flags;
static _Atomic int gzin_env_read;
/* Members begun with ISA-L, and of those handed back to zlib. */
static _Atomic uint64_t gzin_isal_members, gzin_isal_to_zlib;

static unsigned test_flags(void)
{
	if (!atomic_load(&gzin_env_read)) {
		const char *inflate = getenv("GPUSCOPE_TEST_INFLATE");
		const char *ahead = getenv("GPUSCOPE_TEST_INFLATE_AHEAD");
		unsigned f = 0;

		if (inflate && strcmp(inflate, "zlib") == 0)
			f |= GS_GZIN_TEST_ZLIB;
		if (ahead && strcmp(ahead, "off") == 0)
			f |= GS_GZIN_TEST_NO_AHEAD;
		atomic_fetch_or(&gzin_test_flags, f);
		atomic_store(&gzin_env_read, 1);
	}
	return atomic_load(&gzin_test_flags);
}

void gs_gzin_test_set(unsigned flags)
{
	atomic_store(&gzin_env_read, 1);
	atomic_store(&gzin_test_flags, flags);
}

void gs_gzin_test_counts(uint64_t *isal_members, uint64_t *to_zlib)
{
	*isal_members = atomic_load(&gzin_isal_members);
	*to_zlib = atomic_load(&gzin_isal_to_zlib);
}

bool gs_gzin_have_isal(void)
{
#ifdef GS_HAVE_ISAL
	return true;
#else
	return false;
#endif
}

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

static uint64_t compressed_offset(const struct gs_gzin *g)
{
	if (g->fd < 0)
		return (uint64_t)(g->zs.next_in - g->mem);
	return g->in_consumed + (uint64_t)(g->zs.next_in - g->ibuf);
}

/* Move the window back to compressed offset `off` (rereadable input). */
static gs_status gzin_rewind(struct gs_gzin *g, uint64_t off)
{
	if (g->fd < 0) {
		g->mem_pos = (size_t)off;
		g->zs.next_in = g->mem + off;
		g->zs.avail_in = 0;
		g->in_eof = g->mem_pos == g->mem_size;
		return gzin_refill(g);
	}
	if (lseek(g->fd, (off_t)off, SEEK_SET) == (off_t)-1) {
		gs_error_append("%s: cannot read again: %s", g->name, strerror(errno));
		return GS_ERR_IO;
	}
	g->in_consumed = off;
	g->zs.next_in = g->ibuf;
	g->zs.avail_in = 0;
	g->in_eof = false;
	return GS_OK;
}

#ifdef GS_HAVE_ISAL
/*
 * The length of the gzip header at the window's start when it is one ISA-L
 * may take on (deflate; no header CRC, no reserved flag; wholly in the
 * window), else 0: zlib reads that member.
 */
static size_t plain_header(struct gs_gzin *g)
{
	const unsigned char *p;
	size_t n, i = 10;

	if (gzin_want(g, 10) || g->zs.avail_in < 10)
		return 0;
	p = g->zs.next_in;
	n = g->zs.avail_in;
	/* CM deflate; FLG: FTEXT, FEXTRA, FNAME, FCOMMENT only. */
	if (p[2] != 8 || (p[3] & ~(0x01 | 0x04 | 0x08 | 0x10)) != 0)
		return 0;
	if (p[3] & 0x04) {
		if (i + 2 > n)
			return 0;
		i += 2 + ((size_t)p[i] | (size_t)p[i + 1] << 8);
	}
	for (unsigned f = 0x08; f <= 0x10; f <<= 1) {
		const unsigned char *z;

		if (!(p[3] & f))
			continue;
		if (i >= n)
			return 0;
		z = memchr(p + i, 0, n - i);
		if (!z)
			return 0;
		i = (size_t)(z - p) + 1;
	}
	return i < n ? i : 0;
}
#endif

/* Start the member at the window's start (its magic checked). */
static gs_status member_begin(struct gs_gzin *g)
{
	g->member_start = compressed_offset(g);
	g->member_start_out = g->out_total;
	g->member_done = false;
#ifdef GS_HAVE_ISAL
	if (g->rereadable && !(test_flags() & GS_GZIN_TEST_ZLIB)) {
		size_t hdr = plain_header(g);

		if (!g->isal && hdr) {
			g->isal = malloc(sizeof(*g->isal));
			if (!g->isal)
				return gs_nomem();
		}
		if (hdr) {
			isal_inflate_init(g->isal);
			g->isal->crc_flag = ISAL_GZIP_NO_HDR_VER;
			g->zs.next_in += hdr;
			g->zs.avail_in -= (uInt)hdr;
			g->dec = DEC_ISAL;
			atomic_fetch_add_explicit(&gzin_isal_members, 1, memory_order_relaxed);
			return GS_OK;
		}
	}
#endif
	g->dec = DEC_ZLIB;
	if (!g->zinit) {
		if (inflateInit2(&g->zs, 32 + 15) != Z_OK)
			return gs_nomem();
		g->zinit = true;
		return GS_OK;
	}
	if (inflateReset(&g->zs) != Z_OK) {
		gs_error_append("%s: cannot restart gzip decoder", g->name);
		return GS_ERR_FORMAT;
	}
	return GS_OK;
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
		rc = member_begin(g);
		if (rc)
			return rc;
	}
	*out = g;
	return GS_OK;
}

gs_status gs_gzin_open(const char *path, struct gs_gzin **out)
{
	struct gs_gzin *g;
	struct stat st;
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
	g->rereadable = fstat(g->fd, &st) == 0 && S_ISREG(st.st_mode);
	if (g->rereadable)
		g->size = (uint64_t)st.st_size;
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
	g->rereadable = true;
	g->size = size;
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
	return member_begin(g);
}

void gs_gzin_set_limits(struct gs_gzin *g, uint64_t max_bytes, uint32_t max_ratio)
{
	g->max_out = max_bytes;
	g->max_ratio = max_ratio;
}

/* Returned by a decoder step: ISA-L cannot go on here; zlib decides. */
#define GZIN_TO_ZLIB 1

/* One zlib call into out[0 .. room): *made bytes. */
static gs_status zlib_step(struct gs_gzin *g, unsigned char *out, size_t room, size_t *made)
{
	uInt r = room > UINT_MAX ? UINT_MAX : (uInt)room;
	int zr;

	g->zs.next_out = out;
	g->zs.avail_out = r;
	zr = inflate(&g->zs, Z_NO_FLUSH);
	*made = r - g->zs.avail_out;
	switch (zr) {
	case Z_STREAM_END:
		g->member_done = true;
		return GS_OK;
	case Z_OK:
		return GS_OK;
	case Z_BUF_ERROR:
		if (g->zs.avail_in == 0 && g->in_eof) {
			gs_error_append("%s: the gzip stream is truncated (after %llu "
					"compressed bytes)",
					g->name, (unsigned long long)compressed_offset(g));
			return GS_ERR_FORMAT;
		}
		return GS_OK;
	case Z_MEM_ERROR:
		return gs_nomem();
	default:
		gs_error_append("%s: compressed byte %llu: corrupt gzip data (%s)", g->name,
				(unsigned long long)compressed_offset(g),
				g->zs.msg ? g->zs.msg : "inflate failed");
		return GS_ERR_FORMAT;
	}
}

#ifdef GS_HAVE_ISAL
/* One ISA-L call into out[0 .. room): *made bytes; GZIN_TO_ZLIB when it
 * met an error or cannot go on. */
static int isal_step(struct gs_gzin *g, unsigned char *out, size_t room, size_t *made)
{
	struct inflate_state *s = g->isal;
	uint32_t r = room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
	const unsigned char *before = g->zs.next_in;
	int ret;

	s->next_in = (uint8_t *)(uintptr_t)g->zs.next_in;
	s->avail_in = g->zs.avail_in;
	s->next_out = out;
	s->avail_out = r;
	ret = isal_inflate(s);
	g->zs.next_in = s->next_in;
	g->zs.avail_in = s->avail_in;
	*made = r - s->avail_out;
	if (ret < 0)
		return GZIN_TO_ZLIB;
	if (s->block_state == ISAL_BLOCK_FINISH) {
		g->member_done = true;
		return GS_OK;
	}
	/* No progress: the input ended inside the member (truncated). */
	if (*made == 0 && g->zs.next_in == before && (g->zs.avail_in || g->in_eof))
		return GZIN_TO_ZLIB;
	return GS_OK;
}
#endif

/*
 * The current member from its first byte with zlib: inflate again and drop
 * the bytes of it made so far (out_total - member_start_out). On an error,
 * *again says how many of them zlib made before it.
 */
static gs_status member_to_zlib(struct gs_gzin *g, uint64_t *again)
{
	unsigned char drop[16384];
	uint64_t skip = g->out_total - g->member_start_out;
	gs_status rc = gzin_rewind(g, g->member_start);

	*again = 0;
	if (rc)
		return rc;
	g->dec = DEC_ZLIB;
	atomic_fetch_add_explicit(&gzin_isal_to_zlib, 1, memory_order_relaxed);
	if (!g->zinit) {
		if (inflateInit2(&g->zs, 32 + 15) != Z_OK)
			return gs_nomem();
		g->zinit = true;
	} else if (inflateReset(&g->zs) != Z_OK) {
		gs_error_append("%s: cannot restart gzip decoder", g->name);
		return GS_ERR_FORMAT;
	}
	while (*again < skip) {
		uint64_t left = skip - *again;
		size_t made;

		if (g->zs.avail_in == 0 && !g->in_eof && (rc = gzin_refill(g)))
			return rc;
		rc = zlib_step(g, drop, left < sizeof(drop) ? (size_t)left : sizeof(drop), &made);
		*again += made;
		if (rc)
			return rc;
		if (g->member_done && *again < skip) {
			/* zlib ends the member before ISA-L did. */
			gs_error_append("%s: compressed byte %llu: corrupt gzip data (the member "
					"ends early)",
					g->name, (unsigned long long)compressed_offset(g));
			return GS_ERR_FORMAT;
		}
	}
	return GS_OK;
}

/* The ratio limit at a check point (out_total a multiple of the step);
 * GZIN_TO_ZLIB when ISA-L is too near it to decide. */
static gs_status check_ratio(struct gs_gzin *g)
{
	uint64_t in = compressed_offset(g);

	if (!g->max_ratio || g->out_total <= GS_GZIN_RATIO_FLOOR ||
	    g->out_total % GZIN_CHECK_STEP != 0)
		return GS_OK;
	if (g->dec != DEC_ZLIB) {
		uint64_t low = in > GZIN_ISAL_SLACK ? in - GZIN_ISAL_SLACK : 1;

		return g->out_total / low > g->max_ratio ? GZIN_TO_ZLIB : GS_OK;
	}
	if (g->out_total / (in ? in : 1) > g->max_ratio) {
		gs_error_append("%s: gzip data inflates to more than max_inflate_ratio (%u) times "
				"its size (%llu bytes from the first %llu): a decompression bomb?",
				g->name, g->max_ratio, (unsigned long long)g->out_total,
				(unsigned long long)in);
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

/* The member goes to zlib; buf[0 .. *filled) holds this fill's content. */
static gs_status fill_to_zlib(struct gs_gzin *g, size_t *filled)
{
	uint64_t again, made_before = g->out_total - g->member_start_out;
	gs_status rc = member_to_zlib(g, &again);

	if (rc && again < made_before) {
		/* zlib stops earlier: the content ends where it did. */
		uint64_t cut = made_before - again;

		*filled -= cut < *filled ? (size_t)cut : *filled;
		g->out_total -= cut;
	}
	return rc;
}

/*
 * Inflate into buf until it holds cap bytes or the content ends. On an
 * error, *got says how many bytes of content came before it. An error has
 * its place in the content: a fill fails only when it needs a byte past
 * that place (one that ends there leaves the error to the next), so fills
 * of any sizes meet the same error after the same bytes.
 */
static gs_status gzin_fill(struct gs_gzin *g, unsigned char *buf, size_t cap, size_t *got)
{
	size_t filled = 0;
	gs_status rc = GS_OK;

	while (filled < cap) {
		size_t room = cap - filled, made = 0;
		uint64_t next_check;
		int causes;

		if (g->member_done) {
			bool end;

			rc = next_member(g, &end);
			if (rc || end)
				break;
		}
		/* At a check point, before going past it. */
		rc = check_ratio(g);
		if (rc == GZIN_TO_ZLIB) {
			rc = fill_to_zlib(g, &filled);
			if (!rc)
				rc = check_ratio(g);
		}
		if (rc)
			break;
		if (g->zs.avail_in == 0 && !g->in_eof && (rc = gzin_refill(g)))
			break;
		/* Stop at the limits' places: one byte past max_out, the next
		 * check point. */
		if (g->max_out && room > g->max_out + 1 - g->out_total)
			room = (size_t)(g->max_out + 1 - g->out_total);
		next_check = (g->out_total / GZIN_CHECK_STEP + 1) * GZIN_CHECK_STEP;
		if (room > next_check - g->out_total)
			room = (size_t)(next_check - g->out_total);
		causes = gs_error_count();
#ifdef GS_HAVE_ISAL
		if (g->dec == DEC_ISAL)
			rc = isal_step(g, buf + filled, room, &made);
		else
#endif
			rc = zlib_step(g, buf + filled, room, &made);
		if (rc == GZIN_TO_ZLIB) {
			/* This call's bytes are made again by zlib. */
			rc = fill_to_zlib(g, &filled);
			if (rc)
				break;
			continue;
		}
		filled += made;
		g->out_total += made;
		if (rc) {
			/* Met after the last byte asked for: the next fill meets
			 * it again (zlib stays in its error). */
			if (filled == cap) {
				gs_error_truncate(causes);
				rc = GS_OK;
			}
			break;
		}
		if (g->max_out && g->out_total > g->max_out) {
			filled -= (size_t)(g->out_total - g->max_out);
			g->out_total = g->max_out;
			gs_error_append(
				"%s: gzip data inflates to more than max_inflated_bytes (%llu) bytes",
				g->name, (unsigned long long)g->max_out);
			rc = GS_ERR_LIMIT;
			break;
		}
	}
	*got = filled;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Inflating ahead on a second thread                                      */
/* ------------------------------------------------------------------------ */

static void *ahead_main(void *arg)
{
	struct gs_gzin *g = arg;
	struct gzin_ahead *a = g->ahead;

	for (;;) {
		struct ahead_block *b;
		bool last;

		pthread_mutex_lock(&a->mu);
		while (!a->stop && a->b[a->tail].full)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop) {
			pthread_mutex_unlock(&a->mu);
			break;
		}
		b = &a->b[a->tail];
		pthread_mutex_unlock(&a->mu);
		gs_error_clear();
		b->rc = gzin_fill(g, b->data, AHEAD_BLOCK, &b->len);
		b->used = 0;
		b->ncauses = 0;
		if (b->rc) {
			b->ncauses = gs_error_count();
			for (int i = 0; i < b->ncauses; i++)
				snprintf(b->causes[i], sizeof(b->causes[i]), "%s",
					 gs_error_message(i));
			gs_error_clear();
		}
		/* A block not filled is the end of the content (or an error). */
		last = b->rc || b->len < AHEAD_BLOCK;
		pthread_mutex_lock(&a->mu);
		b->full = true;
		a->tail = (a->tail + 1) % AHEAD_BLOCKS;
		a->done = last;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
		if (last)
			break;
	}
	return NULL;
}

static void ahead_free(struct gzin_ahead *a)
{
	for (int i = 0; i < AHEAD_BLOCKS; i++)
		free(a->b[i].data);
	free(a);
}

/* Start the thread when there is a CPU for it (else reads inflate). */
static void ahead_start(struct gs_gzin *g)
{
	struct gzin_ahead *a;

	if (gs_cpu_count() < 2 || (test_flags() & GS_GZIN_TEST_NO_AHEAD))
		return;
	a = calloc(1, sizeof(*a));
	if (!a)
		return;
	for (int i = 0; i < AHEAD_BLOCKS; i++) {
		a->b[i].data = malloc(AHEAD_BLOCK);
		if (!a->b[i].data) {
			ahead_free(a);
			return;
		}
	}
	if (pthread_mutex_init(&a->mu, NULL) != 0) {
		ahead_free(a);
		return;
	}
	if (pthread_cond_init(&a->cv, NULL) != 0) {
		pthread_mutex_destroy(&a->mu);
		ahead_free(a);
		return;
	}
	g->ahead = a;
	if (pthread_create(&a->th, NULL, ahead_main, g) != 0) {
		g->ahead = NULL;
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		ahead_free(a);
	}
}

/* A read from the blocks: the same bytes, and the same error at the same
 * place of the content, as gzin_fill on this thread would give. */
static gs_status ahead_read(struct gs_gzin *g, unsigned char *buf, size_t cap, size_t *got)
{
	struct gzin_ahead *a = g->ahead;
	size_t n = 0;

	while (n < cap) {
		struct ahead_block *b = &a->b[a->head];
		size_t take;

		pthread_mutex_lock(&a->mu);
		while (!b->full)
			pthread_cond_wait(&a->cv, &a->mu);
		pthread_mutex_unlock(&a->mu);
		if (b->used == b->len) {
			if (b->rc) {
				for (int i = 0; i < b->ncauses; i++)
					gs_error_append("%s", b->causes[i]);
				return b->rc;
			}
			if (b->len < AHEAD_BLOCK)
				break; /* the end: the block stays, reads give 0 */
			pthread_mutex_lock(&a->mu);
			b->full = false;
			a->head = (a->head + 1) % AHEAD_BLOCKS;
			pthread_cond_broadcast(&a->cv);
			pthread_mutex_unlock(&a->mu);
			continue;
		}
		take = b->len - b->used < cap - n ? b->len - b->used : cap - n;
		memcpy(buf + n, b->data + b->used, take);
		b->used += take;
		n += take;
	}
	*got = n;
	return GS_OK;
}

static void ahead_stop(struct gs_gzin *g)
{
	struct gzin_ahead *a = g->ahead;

	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	ahead_free(a);
	g->ahead = NULL;
}

/* ------------------------------------------------------------------------ */

gs_status gs_gzin_read(struct gs_gzin *g, void *buf, size_t cap, size_t *got)
{
	size_t n;
	gs_status rc;

	*got = 0;
	if (cap == 0)
		return GS_OK;
	if (!g->gzip)
		return read_plain(g, buf, cap, got);
	if (!g->ahead_tried) {
		g->ahead_tried = true;
		ahead_start(g);
	}
	if (g->ahead)
		return ahead_read(g, buf, cap, got);
	/* A read that fails hands out nothing (as one from the blocks). */
	rc = gzin_fill(g, buf, cap, &n);
	if (!rc)
		*got = n;
	return rc;
}

bool gs_gzin_is_gzip(const struct gs_gzin *g)
{
	return g->gzip;
}

uint64_t gs_gzin_input_size(const struct gs_gzin *g)
{
	return g->size;
}

const char *gs_gzin_name(const struct gs_gzin *g)
{
	return g->name;
}

void gs_gzin_close(struct gs_gzin *g)
{
	if (!g)
		return;
	if (g->ahead)
		ahead_stop(g);
	if (g->zinit)
		inflateEnd(&g->zs);
#ifdef GS_HAVE_ISAL
	free(g->isal);
#endif
	if (g->fd >= 0)
		close(g->fd);
	free(g->ibuf);
	free(g->name);
	free(g);
}
