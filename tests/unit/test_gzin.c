/* SPDX-License-Identifier: MIT */
/*
 * gzip input (gzin.c) read the four ways a build may read it: ISA-L or
 * zlib, on the reading thread or inflated ahead on a second one. All four
 * must hand out the same content cut into the same reads, and fail with
 * the same message after the same bytes: on every gzip trace of
 * ../shared/data (when present), on streams of several members (empty
 * ones, split anywhere, zero padding, bytes after the last), on headers
 * with a name, comment, extra field or header CRC, at the limits
 * (max_inflated_bytes to the byte, the ratio of a bomb), and on thousands
 * of damaged streams (bytes changed, cut short); from memory and from a
 * file. Without ISA-L in the build the zlib ways are still compared.
 */
#include <gpuscope/error.h>

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "gzin.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

/* ---- bytes ---- */

struct bytes {
	unsigned char *p;
	size_t n, cap;
};

static void add(struct bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void add_u32le(struct bytes *b, uint32_t v)
{
	unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			      (unsigned char)(v >> 24)};

	add(b, x, 4);
}

enum {
	H_NAME = 1,
	H_COMMENT = 2,
	H_EXTRA = 4,
	H_HCRC = 8,
	H_RESERVED = 16,
};

/* One gzip member of [p, p + n) at `level`, with the header fields asked. */
static void gz_member(struct bytes *out, const void *p, size_t n, int level, unsigned hdr)
{
	unsigned char h[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
	size_t start = out->n;
	z_stream zs;
	unsigned char buf[65536];
	int zr;

	h[3] = (unsigned char)((hdr & H_NAME ? 0x08 : 0) | (hdr & H_COMMENT ? 0x10 : 0) |
			       (hdr & H_EXTRA ? 0x04 : 0) | (hdr & H_HCRC ? 0x02 : 0) |
			       (hdr & H_RESERVED ? 0x20 : 0));
	add(out, h, sizeof(h));
	if (hdr & H_EXTRA) {
		unsigned char x[2 + 6] = {6, 0, 'A', 'B', 2, 0, 1, 2};

		add(out, x, sizeof(x));
	}
	if (hdr & H_NAME)
		add(out, "trace.json", 11);
	if (hdr & H_COMMENT)
		add(out, "a comment", 10);
	if (hdr & H_HCRC) {
		uint32_t c = (uint32_t)crc32(0, out->p + start, (uInt)(out->n - start));
		unsigned char x[2] = {(unsigned char)c, (unsigned char)(c >> 8)};

		add(out, x, 2);
	}
	memset(&zs, 0, sizeof(zs));
	assert_int_equal(deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)p;
	zs.avail_in = (uInt)n;
	do {
		zs.next_out = buf;
		zs.avail_out = sizeof(buf);
		zr = deflate(&zs, Z_FINISH);
		add(out, buf, sizeof(buf) - zs.avail_out);
	} while (zr == Z_OK);
	assert_int_equal(zr, Z_STREAM_END);
	deflateEnd(&zs);
	add_u32le(out, (uint32_t)crc32(0, p, (uInt)n));
	add_u32le(out, (uint32_t)n);
}

/* ---- reading all of it, one way ---- */

struct outcome {
	gs_status rc;
	char err[512];
	unsigned char *content;
	size_t n;
	size_t *reads; /* the size of each read */
	size_t nreads;
};

static void outcome_free(struct outcome *o)
{
	free(o->content);
	free(o->reads);
	memset(o, 0, sizeof(*o));
}

/*
 * Read the stream through gzin with the given test flags, in reads of
 * `cap` (0: random sizes from a fixed sequence), from memory or, with
 * `path`, from that file.
 */
static void read_all(const struct bytes *in, const char *path, unsigned flags, size_t cap,
		     uint64_t max_out, uint32_t max_ratio, struct outcome *o)
{
	struct gs_gzin *g;
	uint64_t seq = 12345;
	unsigned char *buf;
	gs_status rc;

	memset(o, 0, sizeof(*o));
	gs_gzin_test_set(flags);
	gs_error_clear();
	rc = path ? gs_gzin_open(path, &g) : gs_gzin_open_mem(in->p, in->n, "t.json.gz", &g);
	if (rc) {
		o->rc = rc;
		gs_error_format(o->err, sizeof(o->err));
		return;
	}
	gs_gzin_set_limits(g, max_out, max_ratio);
	buf = malloc(1 << 20);
	assert_non_null(buf);
	for (;;) {
		size_t want = cap, got = 0;

		if (!want) {
			seq = seq * 6364136223846793005ull + 1442695040888963407ull;
			want = 1 + (size_t)(seq >> 44) % (1 << 20);
		}
		rc = gs_gzin_read(g, buf, want, &got);
		if (rc) {
			o->rc = rc;
			gs_error_format(o->err, sizeof(o->err));
			break;
		}
		o->reads = realloc(o->reads, (o->nreads + 1) * sizeof(*o->reads));
		assert_non_null(o->reads);
		o->reads[o->nreads++] = got;
		if (!got)
			break;
		o->content = realloc(o->content, o->n + got);
		assert_non_null(o->content);
		memcpy(o->content + o->n, buf, got);
		o->n += got;
	}
	free(buf);
	gs_gzin_close(g);
	gs_gzin_test_set(0);
}

static void same_outcome(const struct outcome *a, const struct outcome *b)
{
	assert_int_equal(a->rc, b->rc);
	assert_string_equal(a->err, b->err);
	assert_int_equal(a->n, b->n);
	if (a->n)
		assert_memory_equal(a->content, b->content, a->n);
	assert_int_equal(a->nreads, b->nreads);
	if (a->nreads)
		assert_memory_equal(a->reads, b->reads, a->nreads * sizeof(*a->reads));
}

static const unsigned ways[] = {
	GS_GZIN_TEST_ZLIB | GS_GZIN_TEST_NO_AHEAD, /* the reference */
	GS_GZIN_TEST_ZLIB,
	GS_GZIN_TEST_NO_AHEAD,
	0,
};

/* Every way reads the stream as zlib alone does; returns that outcome. */
static void compare_ways(const struct bytes *in, const char *path, size_t cap, uint64_t max_out,
			 uint32_t max_ratio, struct outcome *ref)
{
	read_all(in, path, ways[0], cap, max_out, max_ratio, ref);
	for (size_t i = 1; i < sizeof(ways) / sizeof(ways[0]); i++) {
		struct outcome o;

		read_all(in, path, ways[i], cap, max_out, max_ratio, &o);
		same_outcome(ref, &o);
		outcome_free(&o);
	}
}

/* Some JSON-like text that compresses like a trace. */
static void make_text(struct bytes *t, size_t n)
{
	static const char *const words[] = {"{\"ph\": \"X\", \"cat\": \"kernel\", ",
					    "\"name\": \"void at::native::elementwise\", ",
					    "\"ts\": 1718294400000043.958, ",
					    "\"dur\": 3.5, \"args\": {\"stream\": 7}},\n"};
	char num[32];

	t->n = 0;
	while (t->n < n) {
		const char *w = words[rnd() % 4];

		add(t, w, strlen(w));
		snprintf(num, sizeof(num), "%llu ", (unsigned long long)(rnd() % 100000));
		add(t, num, strlen(num));
	}
	t->n = n;
}

static void test_members(void **state)
{
	struct bytes text = {0}, gz = {0};
	struct outcome ref;
	uint64_t isal0, back0, isal1, back1;

	(void)state;
	gs_gzin_test_counts(&isal0, &back0);
	make_text(&text, 3 << 20);
	/* One member, each header kind (a header CRC or a reserved flag: zlib). */
	for (unsigned hdr = 0; hdr < 32; hdr++) {
		gz.n = 0;
		gz_member(&gz, text.p, 200000 + hdr * 1000, 6, hdr);
		compare_ways(&gz, NULL, 65536, 0, 0, &ref);
		if (hdr & H_RESERVED) {
			assert_int_equal(ref.rc, GS_ERR_FORMAT);
		} else {
			assert_int_equal(ref.rc, GS_OK);
			assert_int_equal(ref.n, 200000 + hdr * 1000);
			assert_memory_equal(ref.content, text.p, ref.n);
		}
		outcome_free(&ref);
	}
	/* Several members: split anywhere, empty ones, levels 0 to 9. */
	for (int round = 0; round < 40; round++) {
		size_t at = 0, total = 1 + rnd() % text.n;
		int members = 1 + (int)(rnd() % 6);

		gz.n = 0;
		for (int m = 0; m < members; m++) {
			size_t part = m == members - 1 ? total - at : rnd() % (total - at + 1);

			if (rnd() % 4 == 0)
				gz_member(&gz, "", 0, 6, 0);
			gz_member(&gz, text.p + at, part, (int)(rnd() % 10), (unsigned)(rnd() % 8));
			at += part;
		}
		if (round % 3 == 1)
			add(&gz, "\0\0\0\0\0\0\0", 1 + rnd() % 7); /* zero padding */
		if (round % 5 == 4)
			add(&gz, "junk", 4); /* refused */
		compare_ways(&gz, NULL, 0, 0, 0, &ref);
		if (round % 5 == 4) {
			assert_int_equal(ref.rc, GS_ERR_FORMAT);
			assert_non_null(strstr(ref.err, "data after the end of the gzip stream"));
		} else {
			assert_int_equal(ref.rc, GS_OK);
			assert_int_equal(ref.n, total);
			assert_memory_equal(ref.content, text.p, total);
		}
		outcome_free(&ref);
	}
	/* ISA-L took the members it can (not the header CRC, the reserved
	 * flag) and gave none back. */
	gs_gzin_test_counts(&isal1, &back1);
	if (gs_gzin_have_isal()) {
		assert_true(isal1 - isal0 > 100);
		assert_true(back1 - back0 < 8); /* the junk after the end only */
	}
	free(text.p);
	free(gz.p);
}

static void test_limits(void **state)
{
	struct bytes zeros = {0}, gz = {0}, text = {0};
	struct outcome ref;

	(void)state;
	/* A bomb: 24 MiB of blanks in a few tens of KiB. */
	zeros.cap = zeros.n = 24u << 20;
	zeros.p = malloc(zeros.n);
	assert_non_null(zeros.p);
	memset(zeros.p, ' ', zeros.n);
	gz_member(&gz, zeros.p, zeros.n, 9, H_NAME);
	compare_ways(&gz, NULL, 0, 0, 250, &ref);
	assert_int_equal(ref.rc, GS_ERR_LIMIT);
	assert_non_null(strstr(ref.err, "max_inflate_ratio (250)"));
	/* At the first MiB past the floor, whatever the reads. */
	assert_non_null(strstr(ref.err, "(17825792 bytes from the first "));
	outcome_free(&ref);
	/* max_inflated_bytes: to the byte. */
	make_text(&text, 1 << 20);
	gz.n = 0;
	gz_member(&gz, text.p, text.n, 6, 0);
	compare_ways(&gz, NULL, 0, 500000, 250, &ref);
	assert_int_equal(ref.rc, GS_ERR_LIMIT);
	assert_non_null(strstr(ref.err, "more than max_inflated_bytes (500000)"));
	outcome_free(&ref);
	compare_ways(&gz, NULL, 4096, text.n, 250, &ref);
	assert_int_equal(ref.rc, GS_OK);
	assert_int_equal(ref.n, text.n);
	outcome_free(&ref);
	free(zeros.p);
	free(gz.p);
	free(text.p);
}

/* Damaged streams: a few bytes changed, or cut short, anywhere. */
static void test_damaged(void **state)
{
	struct bytes text = {0}, gz = {0}, bad = {0};
	size_t failed = 0, rounds = 1000;
	uint64_t isal0, back0, isal1, back1;

	(void)state;
	gs_gzin_test_counts(&isal0, &back0);
	make_text(&text, 600000);
	gz_member(&gz, text.p, 300000, 6, H_NAME);
	gz_member(&gz, text.p + 300000, 300000, 1, 0);
	for (size_t round = 0; round < rounds; round++) {
		struct outcome ref;

		bad.n = 0;
		add(&bad, gz.p, gz.n);
		switch (round % 3) {
		case 0:
			bad.n = rnd() % gz.n; /* cut */
			break;
		default:
			for (int k = 1 + (int)(rnd() % 3); k; k--)
				bad.p[rnd() % bad.n] ^= (unsigned char)(1 + rnd() % 255);
			break;
		}
		if (bad.n < 2 || bad.p[0] != 0x1f || bad.p[1] != 0x8b)
			continue; /* not gzip any more: read as plain */
		compare_ways(&bad, NULL, round % 2 ? 0 : 100000, 0, 250, &ref);
		failed += ref.rc != GS_OK;
		outcome_free(&ref);
	}
	/* Most damage is found (a changed byte in a stored name is not),
	 * and with ISA-L it was handed to zlib. */
	assert_true(failed > rounds / 2);
	gs_gzin_test_counts(&isal1, &back1);
	if (gs_gzin_have_isal())
		assert_true(back1 - back0 > rounds / 4);
	free(text.p);
	free(gz.p);
	free(bad.p);
}

/* From a file (read again with lseek when ISA-L hands a member back). */
static void test_file(void **state)
{
	struct bytes text = {0}, gz = {0};
	char path[] = "/tmp/gs_test_gzin_XXXXXX";
	struct outcome ref, mem;
	int fd;

	(void)state;
	make_text(&text, 2 << 20);
	gz_member(&gz, text.p, text.n / 3, 6, H_NAME | H_COMMENT);
	gz_member(&gz, text.p + text.n / 3, text.n - text.n / 3, 9, H_EXTRA);
	gz.p[gz.n - 5] ^= 0x40; /* the CRC of the last member */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, gz.p, gz.n), (ssize_t)gz.n);
	close(fd);
	compare_ways(&gz, path, 0, 0, 250, &ref);
	assert_int_equal(ref.rc, GS_ERR_FORMAT);
	assert_non_null(strstr(ref.err, "corrupt gzip data (incorrect data check)"));
	read_all(&gz, NULL, ways[0], 0, 0, 250, &mem);
	/* The file and the memory say the same (the name aside). */
	assert_int_equal(ref.n, mem.n);
	outcome_free(&mem);
	outcome_free(&ref);
	unlink(path);
	free(text.p);
	free(gz.p);
}

/* Every gzip trace of ../shared/data, as the importer reads it. */
static void test_shared(void **state)
{
	static const char *const dirs[] = {"hta-critical-path", "hta-misc", "tb-plugin",
					   "tracelens"};
	size_t files = 0;

	(void)state;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char dir[4096];
		struct dirent *e;
		DIR *dp;

		snprintf(dir, sizeof(dir), "%s/kineto/%s", GS_SHARED_DATA, dirs[d]);
		dp = opendir(dir);
		if (!dp)
			continue;
		while ((e = readdir(dp)) != NULL) {
			char path[8192];
			struct outcome ref;
			size_t len = strlen(e->d_name);

			if (len < 8 || strcmp(e->d_name + len - 8, ".json.gz") != 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			/* The scanner's reads: 256 KiB then what its buffer holds. */
			compare_ways(NULL, path, 262144, 0, 250, &ref);
			assert_int_equal(ref.rc, GS_OK);
			assert_true(ref.n > 0);
			outcome_free(&ref);
			files++;
		}
		closedir(dp);
	}
	if (!files)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_members), cmocka_unit_test(test_limits),
		cmocka_unit_test(test_damaged), cmocka_unit_test(test_file),
		cmocka_unit_test(test_shared),
	};

	if (!gs_gzin_have_isal())
		fprintf(stderr, "test_gzin: this build inflates with zlib only (no ISA-L)\n");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
