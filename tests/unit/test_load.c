/* SPDX-License-Identifier: MIT */
/*
 * gs_trace_load_all: several files at once give the trace that loading them
 * one after the other into one trace gives, with one CPU or more, and the
 * first failing file (in order) is the one reported.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <gpuscope/import.h>

#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	assert_int_equal(s->op(s, &op), GS_OK);
	op.start_ns = 5000;
	op.end_ns = 4000;
	assert_int_equal(s->op(s, &op), GS_OK);
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
	snprintf(want, sizeof(want), "%s: skipped 1 gpu_user_annotation events", paths[0]);
	w = gs_trace_warnings(t, &n);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(strstr(w[i].message, ".json: "));
		named += strncmp(w[i].message, want, strlen(want)) == 0;
	}
	assert_int_equal(named, 1);
	gs_trace_destroy(t);

	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_trace_load_all(paths, 1, NULL, t, NULL, NULL), GS_OK);
	w = gs_trace_warnings(t, &n);
	assert_true(n >= 1);
	assert_null(strstr(w[0].message, paths[0]));
	assert_non_null(strstr(w[0].message, "skipped 1 gpu_user_annotation events"));
	gs_trace_destroy(t);
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
		cmocka_unit_test(test_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
