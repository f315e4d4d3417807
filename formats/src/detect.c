/* SPDX-License-Identifier: MIT */
/*
 * Recognising a trace by its content, never by its name:
 *   "GSCOPE\0\0"          -> .gscope (gs_is_gscope)
 *   "SQLite format 3\0"   -> Nsight Systems SQLite export
 *   '{' or '[' after whitespace (and a UTF-8 byte order mark) -> Kineto /
 *                            Chrome-trace JSON
 *   gzip magic 1f 8b      -> the same test on the first decompressed bytes
 *                            (member after member, as zcat reads them)
 * The test needs the first GS_DETECT_HEAD bytes only, read once: a pipe is
 * recognised from bytes the loader keeps and hands on to the reader.
 */
#define ZLIB_CONST
#include "import_priv.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

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

/* 1: JSON text starts here; 0: something else; -1: only whitespace. A
 * UTF-8 byte order mark is passed over when `bom` (the very start). */
static int json_start(const unsigned char *p, size_t n, bool bom)
{
	size_t i = 0;

	if (bom && n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF)
		i = 3;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i == n)
		return -1;
	return p[i] == '{' || p[i] == '[';
}

/*
 * Look inside the start of gzip data as zcat would: member after member (an
 * empty member, or one of whitespace only, is passed over), until the
 * content shows something other than whitespace or the bytes at hand end.
 * Returns json_start's answer on the content, or -2 when the data cannot be
 * decompressed.
 */
static int gunzip_json_start(const unsigned char *in, size_t n)
{
	unsigned char out[DETECT_TEXT];
	bool first = true;
	int js = -1;
	z_stream zs;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 32 + 15) != Z_OK)
		return -2;
	zs.next_in = in;
	zs.avail_in = (uInt)n;
	while (js < 0) {
		size_t got;
		int zr;

		zs.next_out = out;
		zs.avail_out = sizeof(out);
		zr = inflate(&zs, Z_SYNC_FLUSH);
		got = sizeof(out) - zs.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && got > 0)) {
			/* Out of input mid-member: only the head was at hand. */
			if (zr != Z_BUF_ERROR)
				js = -2;
			break;
		}
		if (got) {
			js = json_start(out, got, first);
			first = false;
		}
		if (zr == Z_STREAM_END) {
			/* The next member, if one starts here. */
			if (zs.avail_in < 2 || zs.next_in[0] != 0x1f || zs.next_in[1] != 0x8b)
				break;
			if (inflateReset(&zs) != Z_OK) {
				js = -2;
				break;
			}
		} else if (zs.avail_in == 0) {
			break;
		}
	}
	inflateEnd(&zs);
	return js;
}

void gs_detect_head(const unsigned char *head, size_t n, enum gs_input_format *fmt,
		    const char **why)
{
	int js;

	*fmt = GS_INPUT_UNKNOWN;
	*why = "not a recognised trace (expected .gscope, Kineto / Chrome-trace JSON, "
	       "or an Nsight Systems SQLite export)";
	if (n == 0) {
		*why = "empty file";
		return;
	}
	if (gs_is_gscope(head, n)) {
		*fmt = GS_INPUT_GSCOPE;
		return;
	}
	if (n >= 16 && memcmp(head, "SQLite format 3", 16) == 0) {
		*fmt = GS_INPUT_NSYS;
		return;
	}
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
		js = gunzip_json_start(head, n);
		if (js == 1)
			*fmt = GS_INPUT_KINETO;
		else if (js == -2)
			*why = "corrupt gzip data";
		else
			*why = js < 0 ? "gzip data that holds no JSON" :
					"gzip data that is not JSON";
		return;
	}
	js = json_start(head, n, true);
	if (js == 1)
		*fmt = GS_INPUT_KINETO;
	else if (js < 0)
		*why = "only whitespace: no JSON data";
}

/* `s` as one shell word: as is when it holds only characters no shell
 * reads specially, else between single quotes ('\'' for a quote). */
static void shell_word(const char *s, char *buf, size_t size)
{
	size_t len = 0;
	bool plain = *s != '\0';

	for (const char *p = s; *p && plain; p++)
		plain = isalnum((unsigned char)*p) || strchr("._-/+,:@%", *p);
	if (plain) {
		snprintf(buf, size, "%s", s);
		return;
	}
	if (size < 3) {
		buf[0] = '\0';
		return;
	}
	buf[len++] = '\'';
	for (const char *p = s; *p && len + 6 < size; p++) {
		if (*p == '\'') {
			memcpy(buf + len, "'\\''", 4);
			len += 4;
		} else {
			buf[len++] = *p;
		}
	}
	buf[len++] = '\'';
	buf[len] = '\0';
}

bool gs_detect_name_hint(const char *name, char *buf, size_t size)
{
	static const char *const ext[] = {".nsys-rep", ".qdrep"};
	size_t n = name ? strlen(name) : 0;
	char in[320], out[320], base[256];

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);

		if (n <= e || strcmp(name + n - e, ext[i]) != 0)
			continue;
		snprintf(base, sizeof(base), "%.*s.sqlite", (int)(n - e < 200 ? n - e : 200), name);
		shell_word(name, in, sizeof(in));
		shell_word(base, out, sizeof(out));
		snprintf(buf, size,
			 "an Nsight Systems report is read through its SQLite export: nsys export "
			 "--type sqlite --output %s %s",
			 out, in);
		return true;
	}
	return false;
}

gs_status gs_detect_read_head(int fd, const char *name, unsigned char *head, size_t cap, size_t *n)
{
	*n = 0;
	while (*n < cap) {
		ssize_t r = read(fd, head + *n, cap - *n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			gs_error_append("%s: read failed: %s", name, strerror(errno));
			return GS_ERR_IO;
		}
		if (r == 0)
			break;
		*n += (size_t)r;
	}
	return GS_OK;
}

gs_status gs_detect_format_why(const char *path, enum gs_input_format *fmt, const char **why)
{
	unsigned char head[GS_DETECT_HEAD];
	size_t n;
	gs_status rc;
	int fd;

	*fmt = GS_INPUT_UNKNOWN;
	*why = "";
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		gs_error_append("%s: cannot open: %s", path, strerror(errno));
		return GS_ERR_IO;
	}
	rc = gs_detect_read_head(fd, path, head, sizeof(head), &n);
	close(fd);
	if (rc)
		return rc;
	gs_detect_head(head, n, fmt, why);
	return GS_OK;
}

gs_status gs_detect_format(const char *path, enum gs_input_format *fmt)
{
	const char *why;

	return gs_detect_format_why(path, fmt, &why);
}
