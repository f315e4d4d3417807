/* SPDX-License-Identifier: MIT */
/*
 * gen_bad's random bytes, gzip and JSON inputs (streamed, so that files
 * that inflate or parse to gigabytes cost little to make).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gen_bad.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

void random_file(void)
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

void gzip_files(void)
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

void json_files(void)
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
