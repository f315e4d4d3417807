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
 *
 * The parts, by input (gen_bad.h): gen_bad_gscope.c, gen_bad_bombs.c,
 * gen_bad_text.c, gen_bad_sqlite.c; here the output directory and main.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_bad.h"

static const char *out_dir;

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gen_bad: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

char *path_of(const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", out_dir, name);
	return buf;
}

FILE *create(const char *name)
{
	FILE *f = fopen(path_of(name), "wb");

	if (!f)
		die("%s: %s", path_of(name), strerror(errno));
	return f;
}

void finish(FILE *f, const char *name)
{
	if (ferror(f) || fclose(f) != 0)
		die("%s: write failed", name);
}

void write_bytes(const char *name, const void *data, size_t n)
{
	FILE *f = create(name);

	if (n && fwrite(data, 1, n, f) != n)
		die("%s: write failed", name);
	finish(f, name);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_bad OUT_DIR\n");
		return 2;
	}
	out_dir = argv[1];
	gscope_files();
	gscope_bomb_files();
	random_file();
	gzip_files();
	json_files();
	sqlite_files();
	return 0;
}
