/* SPDX-License-Identifier: MIT */
/*
 * gs_trace_load_all: several files at once give the trace that loading them
 * one after the other into one trace gives, with one CPU or more, and the
 * first failing file (in order) is the one reported. Inputs read in one
 * pass (stdin, a pipe by its /dev/fd name, a FIFO) give the trace their
 * file gives, gzip of several members (empty ones too) the trace zcat's
 * output gives.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>

#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#define DATA(p) GS_TEST_DATA "/" p
#define SAMPLE(p) GS_TEST_DATA "/../../samples/synthetic/" p

static const char *const inputs[] = {
	DATA("kineto/new_style.json"),         SAMPLE("event_chain.gscope"),
	DATA("analyze/overlap.json"),          SAMPLE("pageable_copies.gscope"),
	DATA("kineto/old_style.json"),         DATA("analyze/serial_loop.json"),
	SAMPLE("default_stream.gscope"),       DATA("kineto/rocm.json"),
	DATA("analyze/sync_then_launch.json"),
};
#define N_INPUTS (sizeof(inputs) / sizeof(inputs[0]))

/* The whole trace as .gscope bytes: every record, string, stream and
 * warning, in the trace's order. */
static unsigned char *bytes_of(struct gs_trace *t, size_t *n)
{
	char path[] = "/tmp/gs_load_XXXXXX";
	unsigned char *buf;
	FILE *f;
	long len;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	assert_int_equal(gs_trace_save_gscope(t, path, NULL), GS_OK);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	unlink(path);
	*n = (size_t)len;
	return buf;
}

/* What gs_trace_load_all promises to equal: each file in turn, its
 * warnings naming it. */
static unsigned char *one_by_one(const char *const *paths, size_t n, size_t *len)
{
	struct gs_load_options lo = {.load_flags = GS_LOAD_NAME_WARNINGS};
	struct gs_trace *t;
	unsigned char *b;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(gs_trace_load_into(paths[i], &lo, t, NULL), GS_OK);
	b = bytes_of(t, len);
	gs_trace_destroy(t);
	return b;
}

static unsigned char *all_at_once(const char *const *paths, size_t n, size_t *len)
{
	struct gs_trace *t;
	enum gs_input_format fmts[N_INPUTS + 1];
	size_t failed = 99;
	unsigned char *b;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	gs_error_clear();
	assert_int_equal(gs_trace_load_all(paths, n, NULL, t, fmts, &failed), GS_OK);
	assert_int_equal(failed, 0);
	for (size_t i = 0; i < n; i++) {
		enum gs_input_format want;

		assert_int_equal(gs_detect_format(paths[i], &want), GS_OK);
		assert_int_equal(fmts[i], want);
	}
	b = bytes_of(t, len);
	gs_trace_destroy(t);
	return b;
}

/* Run f with the affinity cut to the first CPU, then restore it. */
static void on_one_cpu(void (*f)(void))
{
	cpu_set_t all, one;

	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	}
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	f();
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
}

/* A .gscope holding a kernel and one that ends before it starts (dropped
 * and counted when loaded: the count must reach the merged trace). */
static char absurd[] = "/tmp/gs_absurd_XXXXXX";

static void write_absurd(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 9, .device = 0, .context = 1, .stream_id = 7};
	struct gs_op op;
	uint32_t idx, name;
	int fd = mkstemp(absurd);

	assert_true(fd >= 0);
	close(fd);
	unlink(absurd);
	assert_int_equal(gs_writer_open(absurd, NULL, &w), GS_OK);
	s = gs_writer_borrow_sink(w);
	assert_int_equal(s->intern(s, "k", 1, &name), GS_OK);
	assert_int_equal(s->stream(s, &st, &idx), GS_OK);
	memset(&op, 0, sizeof(op));
	op.kind = GS_OP_KERNEL;
	op.stream = idx;
	op.name = name;
	op.start_ns = 1000;
	op.end_ns = 2000;
	assert_int_equal(s->op(s, &op, NULL), GS_OK);
	op.start_ns = 5000;
	op.end_ns = 4000;
	assert_int_equal(s->op(s, &op, NULL), GS_OK);
	assert_int_equal(gs_writer_close(w), GS_OK);
}

static void same_as_one_by_one(void)
{
	const char *paths[N_INPUTS + 1];
	size_t na, nb;
	unsigned char *a, *b;

	memcpy(paths, inputs, sizeof(inputs));
	paths[N_INPUTS] = absurd;
	a = one_by_one(paths, N_INPUTS + 1, &na);
	b = all_at_once(paths, N_INPUTS + 1, &nb);

	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
}

static void test_same_trace(void **state)
{
	(void)state;
	write_absurd();
	same_as_one_by_one();
	on_one_cpu(same_as_one_by_one);
	unlink(absurd);
}

/* Files 2 and 4 are bad: file 2 is reported, with its own error. */
static void first_failure(void)
{
	char bad1[] = "/tmp/gs_bad1_XXXXXX", bad2[] = "/tmp/gs_bad2_XXXXXX";
	const char *paths[5];
	struct gs_trace *t;
	size_t failed = 0;
	char msg[512];
	int fd;

	fd = mkstemp(bad1);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not a trace\n", 12), 12);
	close(fd);
	fd = mkstemp(bad2);
	assert_true(fd >= 0);
	close(fd); /* empty */
	paths[0] = inputs[0];
	paths[1] = inputs[1];
	paths[2] = bad1;
	paths[3] = inputs[2];
	paths[4] = bad2;
	assert_int_equal(gs_trace_create(&t), GS_OK);
	gs_error_clear();
	assert_int_equal(gs_trace_load_all(paths, 5, NULL, t, NULL, &failed), GS_ERR_FORMAT);
	assert_int_equal(failed, 2);
	gs_error_format(msg, sizeof(msg));
	assert_non_null(strstr(msg, bad1));
	assert_non_null(strstr(msg, "not a recognised trace"));
	assert_null(strstr(msg, bad2));
	gs_error_clear();
	gs_trace_destroy(t);
	unlink(bad1);
	unlink(bad2);
}

static void test_first_failure(void **state)
{
	(void)state;
	first_failure();
	on_one_cpu(first_failure);
}

/* gs_trace_load_each: each trace as gs_trace_load gives it; on a failure
 * none, and the first failing file reported. */
static void each_as_loaded(void)
{
	struct gs_trace *each[N_INPUTS], *one;
	const char *paths[3] = {inputs[0], "/nonexistent/a.json", "/nonexistent/b.json"};
	size_t failed = 99;

	gs_error_clear();
	assert_int_equal(gs_trace_load_each(inputs, N_INPUTS, NULL, each, NULL, &failed), GS_OK);
	assert_int_equal(failed, 0);
	for (size_t i = 0; i < N_INPUTS; i++) {
		size_t na, nb;
		unsigned char *a, *b;

		assert_int_equal(gs_trace_load(inputs[i], NULL, &one, NULL), GS_OK);
		a = bytes_of(one, &na);
		b = bytes_of(each[i], &nb);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, na);
		free(a);
		free(b);
		gs_trace_destroy(one);
		gs_trace_destroy(each[i]);
	}
	assert_int_equal(gs_trace_load_each(paths, 3, NULL, each, NULL, &failed), GS_ERR_IO);
	assert_int_equal(failed, 1);
	for (size_t i = 0; i < 3; i++)
		assert_null(each[i]);
	gs_error_clear();
}

static void test_load_each(void **state)
{
	(void)state;
	each_as_loaded();
	on_one_cpu(each_as_loaded);
}

/* Several inputs: each warning names its file; one input: as it was. */
static void test_warnings_name_the_file(void **state)
{
	const char *paths[] = {inputs[0], inputs[4]};
	const struct gs_warning *w;
	struct gs_trace *t;
	size_t n, named = 0;
	char want[512];

	(void)state;
	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_trace_load_all(paths, 2, NULL, t, NULL, NULL), GS_OK);
	snprintf(want, sizeof(want), "%s: 1 cudaStreamWaitEvent calls but no cuda_sync", paths[1]);
	w = gs_trace_warnings(t, &n);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(strstr(w[i].message, ".json: "));
		named += strncmp(w[i].message, want, strlen(want)) == 0;
	}
	assert_int_equal(named, 1);
	gs_trace_destroy(t);

	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_trace_load_all(paths + 1, 1, NULL, t, NULL, NULL), GS_OK);
	w = gs_trace_warnings(t, &n);
	assert_true(n >= 1);
	assert_null(strstr(w[0].message, paths[1]));
	assert_non_null(strstr(w[0].message, "1 cudaStreamWaitEvent calls but no cuda_sync"));
	gs_trace_destroy(t);
}

/* ---- inputs read in one pass ---- */

static unsigned char *file_bytes(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
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
	*n = (size_t)len;
	return buf;
}

static void write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			_exit(1);
		p += w;
		n -= (size_t)w;
	}
}

/* A child writing [p, p + n) to `fd` (or to the FIFO `fifo`, opened there). */
static pid_t writer(int fd, const char *fifo, const unsigned char *p, size_t n)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (fifo)
			fd = open(fifo, O_WRONLY);
		if (fd < 0)
			_exit(1);
		write_all(fd, p, n);
		_exit(0);
	}
	if (fd >= 0)
		close(fd);
	return pid;
}

static void reap(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static unsigned char *load_bytes(const char *path, size_t *n, enum gs_input_format *fmt)
{
	struct gs_trace *t;
	unsigned char *b;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	gs_error_clear();
	assert_int_equal(gs_trace_load_into(path, NULL, t, fmt), GS_OK);
	b = bytes_of(t, n);
	gs_trace_destroy(t);
	return b;
}

/* `data` through stdin, a pipe named /dev/fd/N and a FIFO: each the trace
 * `want` is. */
static void same_in_one_pass(const unsigned char *data, size_t size, const unsigned char *want,
			     size_t want_n, enum gs_input_format want_fmt)
{
	enum gs_input_format fmt;
	char name[64], fifo[] = "/tmp/gs_load_fifo_XXXXXX";
	unsigned char *got;
	size_t n;
	int p[2], saved;
	pid_t pid;

	/* "-": standard input, a pipe. */
	assert_int_equal(pipe(p), 0);
	saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(p[0], STDIN_FILENO) >= 0);
	close(p[0]);
	pid = writer(p[1], NULL, data, size);
	got = load_bytes("-", &n, &fmt);
	assert_true(dup2(saved, STDIN_FILENO) >= 0);
	close(saved);
	reap(pid);
	assert_int_equal(fmt, want_fmt);
	assert_int_equal(n, want_n);
	assert_memory_equal(got, want, n);
	free(got);

	/* Process substitution's name for a pipe. */
	assert_int_equal(pipe(p), 0);
	pid = writer(p[1], NULL, data, size);
	snprintf(name, sizeof(name), "/dev/fd/%d", p[0]);
	got = load_bytes(name, &n, &fmt);
	close(p[0]);
	reap(pid);
	assert_int_equal(fmt, want_fmt);
	assert_int_equal(n, want_n);
	assert_memory_equal(got, want, n);
	free(got);

	/* A FIFO. */
	assert_non_null(mkdtemp(fifo));
	snprintf(name, sizeof(name), "%s/f", fifo);
	assert_int_equal(mkfifo(name, 0600), 0);
	pid = writer(-1, name, data, size);
	got = load_bytes(name, &n, &fmt);
	reap(pid);
	unlink(name);
	rmdir(fifo);
	assert_int_equal(fmt, want_fmt);
	assert_int_equal(n, want_n);
	assert_memory_equal(got, want, n);
	free(got);
}

/* gzip members of [p, p + n) cut at `cuts` (n_cuts of them, ascending; a
 * cut twice at one place is an empty member there), one after the other. */
static unsigned char *gzip_members(const unsigned char *p, size_t n, const size_t *cuts,
				   size_t n_cuts, size_t *out_n)
{
	size_t cap = compressBound((uLong)n) + 64 * (n_cuts + 1), len = 0, from = 0;
	unsigned char *out = malloc(cap);

	assert_non_null(out);
	for (size_t i = 0; i <= n_cuts; i++) {
		size_t to = i < n_cuts ? cuts[i] : n;
		z_stream zs;

		memset(&zs, 0, sizeof(zs));
		assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY),
				 Z_OK);
		zs.next_in = (Bytef *)(uintptr_t)(p + from);
		zs.avail_in = (uInt)(to - from);
		zs.next_out = out + len;
		zs.avail_out = (uInt)(cap - len);
		assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
		len = cap - zs.avail_out;
		deflateEnd(&zs);
		from = to;
	}
	*out_n = len;
	return out;
}

static void test_one_pass(void **state)
{
	const char *json = inputs[0], *gscope = inputs[1];
	unsigned char *data, *want, *gz, *got;
	size_t n, want_n, gz_n, got_n;
	char path[] = "/tmp/gs_load_gz_XXXXXX";
	enum gs_input_format fmt;
	int fd;

	(void)state;
	/* Kineto JSON, plain. */
	data = file_bytes(json, &n);
	want = load_bytes(json, &want_n, &fmt);
	assert_int_equal(fmt, GS_INPUT_KINETO);
	same_in_one_pass(data, n, want, want_n, GS_INPUT_KINETO);

	/* gzip: one member; then an empty member first, two members, an empty
	 * one between them and one last, as `cat a.gz b.gz` makes and zcat
	 * reads. */
	{
		const size_t one[] = {0};
		const size_t many[] = {0, n / 3, n / 3, 2 * n / 3, n};

		gz = gzip_members(data, n, one, 0, &gz_n);
		same_in_one_pass(gz, gz_n, want, want_n, GS_INPUT_KINETO);
		free(gz);
		gz = gzip_members(data, n, many, sizeof(many) / sizeof(many[0]), &gz_n);
		same_in_one_pass(gz, gz_n, want, want_n, GS_INPUT_KINETO);
		/* And from a file. */
		fd = mkstemp(path);
		assert_true(fd >= 0);
		write_all(fd, gz, gz_n);
		close(fd);
		got = load_bytes(path, &got_n, &fmt);
		unlink(path);
		assert_int_equal(fmt, GS_INPUT_KINETO);
		assert_int_equal(got_n, want_n);
		assert_memory_equal(got, want, got_n);
		free(got);
		free(gz);
	}
	free(want);
	free(data);

	/* .gscope: read into memory first. */
	data = file_bytes(gscope, &n);
	want = load_bytes(gscope, &want_n, &fmt);
	assert_int_equal(fmt, GS_INPUT_GSCOPE);
	same_in_one_pass(data, n, want, want_n, GS_INPUT_GSCOPE);
	free(want);
	free(data);
}

/* An Nsight export from a pipe: one error, naming the input. */
static void test_one_pass_nsys(void **state)
{
	static const unsigned char head[100] = "SQLite format 3";
	struct gs_trace *t;
	char name[64];
	int p[2];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = writer(p[1], NULL, head, sizeof(head));
	snprintf(name, sizeof(name), "/dev/fd/%d", p[0]);
	assert_int_equal(gs_trace_create(&t), GS_OK);
	gs_error_clear();
	assert_int_equal(gs_trace_load_into(name, NULL, t, NULL), GS_ERR_FORMAT);
	close(p[0]);
	reap(pid);
	assert_int_equal(gs_error_count(), 1);
	assert_non_null(strstr(gs_error_message(0), ": an Nsight SQLite export must be a file, "
						    "not a pipe (save it first)"));
	assert_non_null(strstr(gs_error_message(0), name));
	gs_trace_destroy(t);
	gs_error_clear();
}

/* The shared real traces, when present: the same equality at full size. */
static void test_shared(void **state)
{
	static const char *const rel[] = {
		"kineto/hta-misc/a100_16rank_rank0_graphs_waits.json.gz",
		"kineto/tracelens/b200_eager.json.gz",
		"kineto/hta-critical-path/alexnet.json.gz",
		"kineto/tracelens/mi300_bert_small.json.gz",
	};
	char paths[4][512];
	const char *p[4];
	size_t na, nb;
	unsigned char *a, *b;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", GS_SHARED_DATA, rel[i]);
		p[i] = paths[i];
		if (access(paths[i], R_OK) != 0)
			skip();
	}
	a = one_by_one(p, 4, &na);
	b = all_at_once(p, 4, &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_trace),
		cmocka_unit_test(test_first_failure),
		cmocka_unit_test(test_warnings_name_the_file),
		cmocka_unit_test(test_load_each),
		cmocka_unit_test(test_one_pass),
		cmocka_unit_test(test_one_pass_nsys),
		cmocka_unit_test(test_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
