/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the Kineto importer's tests (test_kineto.c,
 * test_kineto_errors.c, test_kineto_load.c): the fixtures' paths, the
 * error an import left, files read, gzipped and written to a temporary
 * path, and events written inline (' for ", see jdup in kineto_rec.h).
 * Header-only (static functions); needs cmocka.h first.
 */
#ifndef GS_TEST_KINETO_TEST_H
#define GS_TEST_KINETO_TEST_H

#include <gpuscope/import.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define FIXTURE(name) GS_TEST_DATA "/kineto/" name

/* Events written inline: a cpu_op range, a kernel and a runtime call. */
#define RANGE_TS(ts, dur)                                                                          \
	"{'ph':'X','cat':'cpu_op','name':'r','pid':1,'tid':1,'ts':" ts ",'dur':" dur "}"
#define KERNEL(name, corr, extra)                                                                  \
	"{'ph':'X','cat':'kernel','name':'" name "','pid':0,'tid':7,'ts':1,'dur':1,"               \
	"'args':{'device':0,'context':1,'stream':7,'correlation':" corr extra "}}"
#define CALL(name, corr)                                                                           \
	"{'ph':'X','cat':'cuda_runtime','name':'" name "','pid':9,'tid':9,'ts':1,'dur':1,"         \
	"'args':{'correlation':" corr "}}"

static inline const char *last_error(void)
{
	static char buf[2048];

	return gs_error_format(buf, sizeof(buf));
}

static inline void assert_error_has(const char *needle)
{
	const char *msg = last_error();

	if (!strstr(msg, needle))
		fail_msg("error \"%s\" lacks \"%s\"", msg, needle);
}

static inline char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	buf[len] = '\0';
	*n = (size_t)len;
	return buf;
}

/* gzip (one member) of [p, p + n). */
static inline unsigned char *gzip_bytes(const void *p, size_t n, size_t *outn)
{
	z_stream zs;
	size_t cap = deflateBound(NULL, (uLong)n) + 64;
	unsigned char *out = malloc(cap);

	assert_non_null(out);
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)p;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*outn = cap - zs.avail_out;
	deflateEnd(&zs);
	return out;
}

/* A temporary file holding [p, p + n); the caller unlinks it. */
static inline void write_temp(char *path, size_t size, const void *p, size_t n)
{
	int fd;

	snprintf(path, size, "/tmp/gs_test_kineto_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}
#endif
