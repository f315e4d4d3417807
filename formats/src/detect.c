/* SPDX-License-Identifier: MIT */
/*
 * Recognising a trace by its content, never by its name:
 *   "GSCOPE\0\0"          -> .gscope (gs_is_gscope)
 *   "SQLite format 3\0"   -> Nsight Systems SQLite export
 *   '{' or '[' after whitespace (and a UTF-8 byte order mark) -> Kineto /
 *                            Chrome-trace JSON
 *   gzip magic 1f 8b      -> the same test on the first decompressed bytes
 */
#define ZLIB_CONST
#include "import_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define DETECT_RAW 16384
#define DETECT_TEXT 4096

const char *gs_input_format_name(enum gs_input_format f)
{
	switch (f) {
	case GS_INPUT_GSCOPE:
		return "gscope";
	case GS_INPUT_KINETO:
		return "kineto";
	case GS_INPUT_NSYS:
		return "nsys";
	case GS_INPUT_UNKNOWN:
		break;
	}
	return "unknown";
}

/* 1: JSON text starts here; 0: something else; -1: only whitespace. */
static int json_start(const unsigned char *p, size_t n)
{
	size_t i = 0;

	if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
		i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i == n)
		return -1;
	return p[i] == '{' || p[i] == '[';
}

/* Inflate the start of gzip data. Returns the bytes produced, or -1 when
 * the data cannot be decompressed. */
static long gunzip_head(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
	z_stream zs;
	int zr;
	long got;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 32 + 15) != Z_OK)
		return -1;
	zs.next_in = in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	zr = inflate(&zs, Z_SYNC_FLUSH);
	got = (long)(cap - zs.avail_out);
	inflateEnd(&zs);
	if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && got > 0))
		return -1;
	return got;
}

gs_status gs_detect_format_why(const char *path, enum gs_input_format *fmt, const char **why)
{
	unsigned char text[DETECT_TEXT];
	size_t n = 0;
	ssize_t r;
	int fd, js;

	*fmt = GS_INPUT_UNKNOWN;
	*why = "not a recognised trace (expected .gscope, Kineto / Chrome-trace JSON, "
	       "or an Nsight Systems SQLite export)";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		gs_error_append("%s: cannot open: %s", path, strerror(errno));
		return GS_ERR_IO;
	}
	{
		unsigned char head[DETECT_RAW];

		while (n < sizeof(head)) {
			r = read(fd, head + n, sizeof(head) - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				int e = errno;

				close(fd);
				gs_error_append("%s: read failed: %s", path, strerror(e));
				return GS_ERR_IO;
			}
			if (r == 0)
				break;
			n += (size_t)r;
		}
		close(fd);
		if (n == 0) {
			*why = "empty file";
			return GS_OK;
		}
		if (gs_is_gscope(head, n)) {
			*fmt = GS_INPUT_GSCOPE;
			return GS_OK;
		}
		if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
			*fmt = GS_INPUT_NSYS;
			return GS_OK;
		}
		if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
			long got = gunzip_head(head, n, text, sizeof(text));

			if (got < 0) {
				*why = "corrupt gzip data";
				return GS_OK;
			}
			js = json_start(text, (size_t)got);
			if (js == 1)
				*fmt = GS_INPUT_KINETO;
			else
				*why = got == 0 || js < 0 ? "gzip data that holds no JSON" :
							    "gzip data that is not JSON";
			return GS_OK;
		}
		js = json_start(head, n);
		if (js == 1)
			*fmt = GS_INPUT_KINETO;
		else if (js < 0)
			*why = "only whitespace: no JSON data";
	}
	return GS_OK;
}

gs_status gs_detect_format(const char *path, enum gs_input_format *fmt)
{
	const char *why;

	return gs_detect_format_why(path, fmt, &why);
}
