/* SPDX-License-Identifier: MIT */
/*
 * The importers, one row each (gs_importers): how each format is
 * recognised from its first bytes, read from a file and from a pipe, named,
 * and called in messages; what a file name that is another tool's report
 * should be turned into first. Detection (detect.c), loading (load.c), the
 * "not a recognised trace" message and gs_input_format_name all come from
 * the table: an importer is its reader, its row here and its enum value.
 *
 * Recognised by content, never by name, in the table's order (which is
 * also the order messages list them in; no two tests can both match):
 *   "GSCOPE\0\0"          -> .gscope (gs_is_gscope)
 *   '{' or '[' after whitespace (and a UTF-8 byte order mark) -> Kineto /
 *                            Chrome-trace JSON
 *   gzip magic 1f 8b      -> the same test on the first decompressed bytes
 *                            (member after member, as zcat reads them)
 *   "SQLite format 3\0"   -> Nsight Systems SQLite export
 */
#define ZLIB_CONST
#include "gzin.h"
#include "import_priv.h"

#include <gpuscope/gscope_file.h>

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DETECT_TEXT 4096

/* ---- .gscope ---- */

static int sniff_gscope(const unsigned char *head, size_t n, const char **why)
{
	(void)why;
	return gs_is_gscope(head, n);
}

static gs_status gscope_path(const struct gs_importer_input *in)
{
	struct gs_reader *r = NULL;
	gs_status rc = gs_reader_open(in->path, in->reader_flags, &r);

	if (!rc)
		gs_reader_set_max_inflate_ratio(r, in->ls->lim.max_inflate_ratio);
	if (!rc)
		rc = gs_reader_read_all(r, in->sink);
	gs_reader_close(r);
	return rc;
}

/* Held in memory first: its reader checks chunk lengths against the
 * file's size and, with --salvage, searches ahead. */
static gs_status gscope_stream(const struct gs_importer_input *in)
{
	struct gs_reader *r = NULL;
	unsigned char *data = NULL;
	size_t size;
	gs_status rc;

	rc = gs_load_slurp(in->fd, in->name, in->head, in->n, in->ls->lim.max_inflated_bytes, &data,
			   &size);
	if (!rc)
		rc = gs_reader_open_mem(data, size, in->name, in->reader_flags, &r);
	if (!rc)
		rc = gs_reader_read_all(r, in->sink);
	gs_reader_close(r);
	free(data);
	return rc;
}

/* ---- Kineto / Chrome-trace JSON, plain or gzip ---- */

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

static int sniff_kineto(const unsigned char *head, size_t n, const char **why)
{
	int js;

	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
		js = gunzip_json_start(head, n);
		if (js == -2)
			*why = "corrupt gzip data";
		else if (js != 1)
			*why = js < 0 ? "gzip data that holds no JSON" :
					"gzip data that is not JSON";
		return js == 1;
	}
	js = json_start(head, n, true);
	if (js < 0)
		*why = "only whitespace: no JSON data";
	return js == 1;
}

static gs_status kineto_path(const struct gs_importer_input *in)
{
	return gs_import_kineto(in->path, &in->ls->lim, in->sink);
}

static gs_status kineto_stream(const struct gs_importer_input *in)
{
	struct gs_gzin *z = NULL;
	gs_status rc = gs_gzin_open_fd(in->fd, in->head, in->n, in->name, &z);

	if (rc)
		return rc;
	return gs_import_kineto_gzin(z, &in->ls->lim, in->sink);
}

/* ---- Nsight Systems SQLite export ---- */

static int sniff_nsys(const unsigned char *head, size_t n, const char **why)
{
	(void)why;
	return n >= 16 && memcmp(head, "SQLite format 3", 16) == 0;
}

static gs_status nsys_path(const struct gs_importer_input *in)
{
	return gs_import_nsys(in->path, &in->ls->lim, in->sink);
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

/* An Nsight Systems report (.nsys-rep, .qdrep): the export that gpuscope
 * reads, as a command. */
static bool nsys_name_hint(const char *name, char *buf, size_t size)
{
	static const char *const ext[] = {".nsys-rep", ".qdrep"};
	size_t n = strlen(name);
	char in[320], out[320], base[256];

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

/* ---- the table ---- */

const struct gs_importer gs_importers[] = {
	{
		.format = GS_INPUT_GSCOPE,
		.name = "gscope",
		.what = ".gscope",
		.help = "a .gscope file",
		.title = ".gscope",
		.sniff = sniff_gscope,
		.load_path = gscope_path,
		.load_stream = gscope_stream,
	},
	{
		.format = GS_INPUT_KINETO,
		.name = "kineto",
		.what = "Kineto / Chrome-trace JSON",
		.help = "a Kineto / PyTorch-profiler JSON trace (.json, .json.gz)",
		.title = "Kineto",
		.sniff = sniff_kineto,
		.load_path = kineto_path,
		.load_stream = kineto_stream,
	},
	{
		.format = GS_INPUT_NSYS,
		.name = "nsys",
		.what = "an Nsight Systems SQLite export",
		.help = "an Nsight Systems SQLite export (.sqlite)",
		.title = "Nsight Systems SQLite export",
		.files = "Nsight exports",
		.sniff = sniff_nsys,
		.load_path = nsys_path,
		.stream_refusal =
			"an Nsight SQLite export must be a file, not a pipe (save it first)",
		.name_hint = nsys_name_hint,
	},
};

const size_t gs_n_importers = sizeof(gs_importers) / sizeof(gs_importers[0]);

const struct gs_importer *gs_importer_of(enum gs_input_format f)
{
	for (size_t i = 0; i < gs_n_importers; i++)
		if (gs_importers[i].format == f)
			return &gs_importers[i];
	return NULL;
}

const char *gs_input_format_name(enum gs_input_format f)
{
	const struct gs_importer *im = gs_importer_of(f);

	return im ? im->name : "unknown";
}

/* Which of an importer's texts a list joins. */
enum importer_text {
	IMPORTER_WHAT,
	IMPORTER_HELP,
	IMPORTER_FILES
};

static const char *importer_text(const struct gs_importer *im, enum importer_text which)
{
	switch (which) {
	case IMPORTER_WHAT:
		return im->what;
	case IMPORTER_HELP:
		return im->help;
	case IMPORTER_FILES:
		return im->files;
	}
	return NULL;
}

/* One text of every importer that has it, as a list: "a, b, or c" (with
 * last ", or "), "a, b or c" (" or "). */
static const char *importers_join(char *buf, size_t size, enum importer_text which,
				  const char *last)
{
	size_t len = 0, n = 0, k = 0;

	for (size_t i = 0; i < gs_n_importers; i++)
		n += importer_text(&gs_importers[i], which) != NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < gs_n_importers && len < size; i++) {
		const char *s = importer_text(&gs_importers[i], which);
		int w;

		if (!s)
			continue;
		w = snprintf(buf + len, size - len, "%s%s",
			     k == 0     ? "" :
			     k + 1 == n ? last :
					  ", ",
			     s);
		k++;
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

const char *gs_importers_expected(char *buf, size_t size)
{
	return importers_join(buf, size, IMPORTER_WHAT, ", or ");
}

const char *gs_importers_help(char *buf, size_t size)
{
	return importers_join(buf, size, IMPORTER_HELP, " or ");
}

const char *gs_importers_file_only(char *buf, size_t size)
{
	return importers_join(buf, size, IMPORTER_FILES, " or ");
}

size_t gs_importer_count(void)
{
	return gs_n_importers;
}

const char *gs_importer_title(size_t i)
{
	return i < gs_n_importers ? gs_importers[i].title : NULL;
}
