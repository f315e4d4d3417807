/* SPDX-License-Identifier: MIT */
/*
 * The Kineto document walk on its own thread (kineto_pipe.c) against the
 * walk on the thread that builds the model: on documents of thousands of
 * events (many batches, many buffers handed over), the same records in
 * the same order and the same warnings; and the same error, with the same
 * records before it, whichever side meets it first: the sink refusing an
 * op early and late (the walk far ahead must stop), max_records, input cut
 * short, junk between events, an event over max_event_bytes, an element
 * that is not an object. Run on one CPU the thread is not used (nothing to
 * compare); the test then checks the walk alone.
 */
#include <gpuscope/error.h>
#include <gpuscope/import.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kineto_pipe.h"
#include "kineto_sink.h"

struct text {
	char *p;
	size_t n, cap;
};

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int need;

	va_start(ap, fmt);
	need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->n + (size_t)need + 1 > t->cap) {
		t->cap = (t->n + (size_t)need + 1) * 2;
		t->p = realloc(t->p, t->cap);
		assert_non_null(t->p);
	}
	va_start(ap, fmt);
	vsnprintf(t->p + t->n, (size_t)need + 1, fmt, ap);
	va_end(ap);
	t->n += (size_t)need;
}

/* `steps` steps of a kernel, its launch and an operator around it, with
 * an element that is not an object every 97 steps; with `pad`, each
 * operator carries that many bytes more (a buffer then holds fewer events
 * than the batches: the walk runs out of buffers and hands over batches
 * not yet full, events half written). */
static void make_doc_pad(struct text *t, int steps, int pad)
{
	t->n = 0;
	put(t, "{\"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}],\n\"traceEvents\": [\n");
	for (int i = 0; i < steps; i++) {
		long long ts = 1000000 + 10LL * i;

		put(t,
		    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op_%d\", \"pid\": 7, "
		    "\"tid\": 7, \"ts\": %lld.125, \"dur\": 8.5, \"args\": {\"External id\": %d, "
		    "\"Input Dims\": [[%d, 4], []], \"pad\": \"%*s\"}},\n",
		    i % 50, ts, i + 1, i, pad, "");
		put(t,
		    "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
		    "\"pid\": 7, \"tid\": 7, \"ts\": %lld.5, \"dur\": 2, \"args\": {\"External id\": "
		    "%d, \"cbid\": 211, \"correlation\": %d}},\n",
		    ts + 1, i + 1, i + 1);
		put(t,
		    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel_%d<float>\", \"pid\": 0, "
		    "\"tid\": 7, \"ts\": %lld.75, \"dur\": 4.25, \"args\": {\"device\": 0, "
		    "\"stream\": %d, \"correlation\": %d, \"grid\": [%d, 1, 1], \"block\": [128, 1, "
		    "1]}},\n",
		    i % 7, ts + 3, 7 + i % 3, i + 1, 1 + i % 100);
		if (i % 97 == 96)
			put(t, "[\"not an event\"],\n");
	}
	put(t, "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"args\": {\"name\": "
	       "\"train\"}}\n]}\n");
}

static void make_doc(struct text *t, int steps)
{
	make_doc_pad(t, steps, 0);
}

struct outcome {
	struct rec r;
	gs_status rc;
	char err[1024];
};

/* A sink slower than the walk, so that the walk runs ahead of it. */
static bool slow_sink;

static gs_status slow_range(struct gs_sink *s, const struct gs_range *rg)
{
	volatile unsigned spin = 0;

	while (spin < 20000)
		spin = spin + 1;
	return rec_range(s, rg);
}

static void import(const char *doc, size_t n, bool threads, size_t fail_op_at,
		   const struct gs_import_limits *lim, struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	rec_init(&o->r);
	if (slow_sink)
		o->r.sink.range = slow_range;
	o->r.fail_op_at = fail_op_at;
	kin_pipe_test_threads(threads);
	gs_error_clear();
	o->rc = gs_import_kineto_mem(doc, n, "t.json", lim, &o->r.sink);
	if (o->rc)
		gs_error_format(o->err, sizeof(o->err));
	gs_error_clear();
	kin_pipe_test_threads(true);
}

#define SAME_ARRAY(a, b, arr, n)                                                                   \
	do {                                                                                       \
		assert_int_equal((a)->n, (b)->n);                                                  \
		if ((a)->n)                                                                        \
			assert_memory_equal((a)->arr, (b)->arr, (a)->n * sizeof(*(a)->arr));       \
	} while (0)

static void same(const struct outcome *a, const struct outcome *b)
{
	assert_int_equal(a->rc, b->rc);
	assert_string_equal(a->err, b->err);
	assert_int_equal(a->r.nstrs, b->r.nstrs);
	for (size_t i = 0; i < a->r.nstrs; i++)
		assert_string_equal(a->r.strs[i], b->r.strs[i]);
	SAME_ARRAY(&a->r, &b->r, streams, nstreams);
	SAME_ARRAY(&a->r, &b->r, devs, ndevs);
	SAME_ARRAY(&a->r, &b->r, ops, nops);
	SAME_ARRAY(&a->r, &b->r, launches, nlaunches);
	SAME_ARRAY(&a->r, &b->r, apis, napis);
	SAME_ARRAY(&a->r, &b->r, ranges, nranges);
	assert_int_equal(a->r.nwarns, b->r.nwarns);
	for (size_t i = 0; i < a->r.nwarns; i++) {
		assert_string_equal(a->r.warns[i].msg, b->r.warns[i].msg);
		assert_int_equal(a->r.warns[i].count, b->r.warns[i].count);
	}
}

/* The document both ways: the same outcome; returns it (threads off). */
static void both(const char *doc, size_t n, size_t fail_op_at, const struct gs_import_limits *lim,
		 struct outcome *ref)
{
	struct outcome o;

	import(doc, n, false, fail_op_at, lim, ref);
	import(doc, n, true, fail_op_at, lim, &o);
	same(ref, &o);
	rec_free(&o.r);
}

static void test_whole(void **state)
{
	struct text t = {0};
	struct outcome ref;

	(void)state;
	make_doc(&t, 12000); /* 36k events: ~140 batches, ~20 buffers */
	both(t.p, t.n, 0, NULL, &ref);
	assert_int_equal(ref.rc, GS_OK);
	assert_int_equal(ref.r.nops, 12000);
	assert_int_equal(ref.r.napis, 12000);
	assert_int_equal(ref.r.nranges, 12000);
	assert_int_equal(ref.r.nwarns, 1); /* the elements that are not objects */
	rec_free(&ref.r);
	free(t.p);
}

/* Large events (a 256 KiB read holds fewer than the batches do) and a
 * sink slower than the walk: the walk runs out of buffers and hands over
 * batches not yet full, with an event half written. A few times: it is
 * about threads. */
static void test_large_events(void **state)
{
	struct text t = {0};

	(void)state;
	slow_sink = true;
	make_doc_pad(&t, 4000, 3000); /* 12 MB */
	for (int round = 0; round < 3; round++) {
		struct outcome ref;

		both(t.p, t.n, 0, NULL, &ref);
		assert_int_equal(ref.rc, GS_OK);
		assert_int_equal(ref.r.nranges, 4000);
		rec_free(&ref.r);
		both(t.p, t.n, 3000, NULL, &ref);
		assert_int_equal(ref.r.nops, 2999);
		rec_free(&ref.r);
	}
	slow_sink = false;
	free(t.p);
}

static void test_errors(void **state)
{
	struct gs_import_limits lim;
	struct text t = {0}, bad = {0};
	struct outcome ref;

	(void)state;
	make_doc(&t, 12000);
	/* The sink refuses an op: early (the walk is far ahead) and late. */
	both(t.p, t.n, 3, NULL, &ref);
	assert_int_equal(ref.rc, GS_ERR_NOMEM);
	assert_non_null(strstr(ref.err, "no room for op"));
	rec_free(&ref.r);
	both(t.p, t.n, 11000, NULL, &ref);
	assert_int_equal(ref.r.nops, 10999);
	rec_free(&ref.r);
	/* max_records, met by the event code. */
	memset(&lim, 0, sizeof(lim));
	lim.max_records = 5000;
	both(t.p, t.n, 0, &lim, &ref);
	assert_int_equal(ref.rc, GS_ERR_LIMIT);
	rec_free(&ref.r);
	/* Cut short, and junk between events: met by the walk after
	 * thousands of events were handled. */
	both(t.p, t.n * 2 / 3, 0, NULL, &ref);
	assert_int_equal(ref.rc, GS_ERR_FORMAT);
	assert_true(ref.r.nops > 5000);
	rec_free(&ref.r);
	bad.n = 0;
	put(&bad, "%.*s", (int)(t.n / 2), t.p);
	{
		/* After the next event: a stray bracket. */
		char *nl = strchr(bad.p + bad.n / 2, '\n');

		assert_non_null(nl);
		nl[-1] = ']';
	}
	put(&bad, "%s", t.p + t.n / 2);
	both(bad.p, bad.n, 0, NULL, &ref);
	assert_int_equal(ref.rc, GS_ERR_FORMAT);
	rec_free(&ref.r);
	/* An event over max_event_bytes, and the sink failing before it. */
	memset(&lim, 0, sizeof(lim));
	lim.max_event_bytes = 200;
	both(t.p, t.n, 0, &lim, &ref);
	assert_int_equal(ref.rc, GS_ERR_LIMIT);
	rec_free(&ref.r);
	both(t.p, t.n, 2, &lim, &ref);
	rec_free(&ref.r);
	free(t.p);
	free(bad.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_large_events),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
