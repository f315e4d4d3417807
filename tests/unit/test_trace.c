/* SPDX-License-Identifier: MIT */
/* The in-memory trace model: dedup, validation, sorting and indexing. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <gpuscope/format.h>

#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static struct gs_trace *new_trace(struct gs_sink **sink)
{
	struct gs_trace *t;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	*sink = gs_trace_borrow_sink(t);
	return t;
}

static uint32_t add_stream(struct gs_sink *s, uint64_t id, uint8_t kind)
{
	struct gs_stream st = {.pid = 1, .device = 0, .context = 1, .stream_id = id, .kind = kind};
	uint32_t idx;

	assert_int_equal(s->stream(s, &st, &idx), GS_OK);
	return idx;
}

static void add_op(struct gs_sink *s, uint32_t stream, int64_t start, int64_t end)
{
	struct gs_op op = {.kind = GS_OP_KERNEL, .start_ns = start, .end_ns = end, .stream = stream};

	assert_int_equal(s->op(s, &op, NULL), GS_OK);
}

/* A trace of n ops over 5 streams, interleaved, each stream out of order
 * here and there, and n / 2 API calls from 3 threads. Deterministic. */
static struct gs_trace *big_trace(size_t n)
{
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	uint32_t st[5];
	uint64_t x = 88172645463325252ull;

	for (int i = 0; i < 5; i++)
		st[i] = add_stream(s, 100 + (uint64_t)i, 0);
	for (size_t i = 0; i < n; i++) {
		int64_t start;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		struct gs_op op;
		struct gs_api_call c;

		/* memset: the arrays are compared with their padding. */
		memset(&op, 0, sizeof(op));
		memset(&c, 0, sizeof(c));
		start = (int64_t)(i * 1000) + (x % 16 == 0 ? -5000 : 0);
		op.kind = GS_OP_KERNEL;
		op.stream = st[x % 5];
		op.start_ns = start + 10000;
		op.end_ns = op.start_ns + (int64_t)(x % 900);
		assert_int_equal(s->op(s, &op, NULL), GS_OK);
		if (i % 2 == 0) {
			c.start_ns = start + 20000;
			c.end_ns = start + 20100;
			c.pid = 1;
			c.tid = (int64_t)(x % 3);
			c.correlation = i + 1;
			assert_int_equal(s->api_call(s, &c), GS_OK);
		}
	}
	return t;
}

/* Past 2^16 ops gs_trace_finish sorts the ops on a second CPU: the trace
 * is the same as the one a single CPU finishes. */
static void test_finish_same_on_one_cpu(void **state)
{
	const size_t n = 200000;
	struct gs_trace *two = big_trace(n), *one = big_trace(n);
	const struct gs_op *a, *b;
	const struct gs_api_call *ca, *cb;
	size_t na, nb, first, count;
	cpu_set_t all, cpu0;

	(void)state;
	assert_int_equal(gs_trace_finish(two), GS_OK);
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	CPU_ZERO(&cpu0);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &cpu0);
			break;
		}
	}
	assert_int_equal(sched_setaffinity(0, sizeof(cpu0), &cpu0), 0);
	assert_int_equal(gs_trace_finish(one), GS_OK);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);

	a = gs_trace_ops(two, &na);
	b = gs_trace_ops(one, &nb);
	assert_int_equal(na, n);
	assert_int_equal(nb, n);
	assert_memory_equal(a, b, n * sizeof(*a));
	for (uint32_t st = 0; st < 5; st++) {
		size_t f1, c1;

		gs_trace_stream_ops(two, st, &first, &count);
		gs_trace_stream_ops(one, st, &f1, &c1);
		assert_int_equal(first, f1);
		assert_int_equal(count, c1);
		for (size_t i = first; i < first + count; i++) {
			assert_int_equal(a[i].stream, st);
			if (i > first)
				assert_true(a[i - 1].start_ns <= a[i].start_ns);
		}
	}
	ca = gs_trace_api_calls(two, &na);
	cb = gs_trace_api_calls(one, &nb);
	assert_int_equal(na, n / 2);
	assert_int_equal(nb, n / 2);
	assert_memory_equal(ca, cb, na * sizeof(*ca));
	gs_trace_destroy(two);
	gs_trace_destroy(one);
}

static void test_streams_dedup_and_learn_kind(void **state)
{
	(void)state;
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	size_t n;
	const struct gs_stream *st;

	assert_int_equal(add_stream(s, 7, GS_STREAM_UNKNOWN), 0);
	assert_int_equal(add_stream(s, 9, GS_STREAM_NON_BLOCKING), 1);
	/* The same key again: same index, and the kind learnt later is kept. */
	assert_int_equal(add_stream(s, 7, GS_STREAM_LEGACY_DEFAULT), 0);
	/* A known kind is not overwritten. */
	assert_int_equal(add_stream(s, 9, GS_STREAM_BLOCKING), 1);
	st = gs_trace_streams(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(st[0].kind, GS_STREAM_LEGACY_DEFAULT);
	assert_int_equal(st[1].kind, GS_STREAM_NON_BLOCKING);
	gs_trace_destroy(t);
}

static void test_ops_grouped_by_stream_sorted(void **state)
{
	(void)state;
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	uint32_t a = add_stream(s, 7, 0), b = add_stream(s, 9, 0), c = add_stream(s, 11, 0);
	size_t first, count, n;
	const struct gs_op *ops;
	int64_t lo, hi;

	add_op(s, b, 500, 600);
	add_op(s, a, 300, 400);
	add_op(s, b, 100, 200);
	add_op(s, a, 50, 60);
	add_op(s, b, 250, 900);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	ops = gs_trace_ops(t, &n);
	assert_int_equal(n, 5);
	gs_trace_stream_ops(t, a, &first, &count);
	assert_int_equal(count, 2);
	assert_int_equal(ops[first].start_ns, 50);
	assert_int_equal(ops[first + 1].start_ns, 300);
	gs_trace_stream_ops(t, b, &first, &count);
	assert_int_equal(count, 3);
	assert_int_equal(ops[first].start_ns, 100);
	assert_int_equal(ops[first + 1].start_ns, 250);
	assert_int_equal(ops[first + 2].start_ns, 500);
	gs_trace_stream_ops(t, c, &first, &count);
	assert_int_equal(count, 0);
	gs_trace_op_span(t, &lo, &hi);
	assert_int_equal(lo, 50);
	assert_int_equal(hi, 900);
	gs_trace_destroy(t);
}

static void test_threads_index_api_calls(void **state)
{
	(void)state;
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	const int64_t tids[] = {5, 3, 5, 3, 5};
	const struct gs_thread *th;
	const struct gs_api_call *calls;
	size_t n, ncalls;

	for (int i = 0; i < 5; i++) {
		struct gs_api_call c = {.start_ns = 1000 - i * 100,
					.end_ns = 1000 - i * 100 + 10,
					.pid = 1,
					.tid = tids[i],
					.correlation = (uint64_t)i};
		assert_int_equal(s->api_call(s, &c), GS_OK);
	}
	assert_int_equal(gs_trace_finish(t), GS_OK);
	th = gs_trace_threads(t, &n);
	calls = gs_trace_api_calls(t, &ncalls);
	assert_int_equal(n, 2);
	assert_int_equal(th[0].tid, 3);
	assert_int_equal(th[0].api_count, 2);
	assert_int_equal(th[1].tid, 5);
	assert_int_equal(th[1].first_api, 2);
	assert_int_equal(th[1].api_count, 3);
	/* Within a thread, by start time. */
	assert_true(calls[2].start_ns < calls[3].start_ns);
	assert_true(calls[3].start_ns < calls[4].start_ns);
	gs_trace_destroy(t);
}

/* The annotation ranges indexed after the sort: input out of order, an
 * exact duplicate, an operator tied with an annotation on every field but
 * the kind, a range refused for its times (not counted), and records added
 * after a first finish. */
static void test_annotation_ranges_indexed(void **state)
{
	(void)state;
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	const struct gs_range in[] = {
		{.start_ns = 500, .end_ns = 600, .kind = GS_RANGE_NVTX, .name = GS_NO_STRING},
		{.start_ns = 100, .end_ns = 900, .kind = GS_RANGE_CPU_OP, .name = GS_NO_STRING},
		{.start_ns = 300,
		 .end_ns = 400,
		 .kind = GS_RANGE_USER_ANNOTATION,
		 .name = GS_NO_STRING},
		{.start_ns = 300,
		 .end_ns = 400,
		 .kind = GS_RANGE_USER_ANNOTATION,
		 .name = GS_NO_STRING},
		{.start_ns = 300, .end_ns = 400, .kind = GS_RANGE_CPU_OP, .name = GS_NO_STRING},
		{.start_ns = 50, .end_ns = 60, .kind = GS_RANGE_PYTHON, .name = GS_NO_STRING},
		{.start_ns = 70, .end_ns = 20, .kind = GS_RANGE_NVTX, .name = GS_NO_STRING},
	};
	const struct gs_range *r;
	const uint32_t *ix;
	size_t n, na;

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		assert_int_equal(s->range(s, &in[i]), GS_OK);
	ix = gs_trace_annotation_ranges(t, &na);
	assert_null(ix); /* not finished */
	assert_int_equal(gs_trace_range_count(t, GS_RANGE_NVTX), 1);
	assert_int_equal(gs_trace_range_count(t, GS_RANGE_USER_ANNOTATION), 2);
	assert_int_equal(gs_trace_range_count(t, GS_RANGE_CPU_OP), 2);
	assert_int_equal(gs_trace_range_count(t, GS_RANGE_GPU_ANNOTATION), 0);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	/* Sorted: py 50, cpu 100, cpu 300 (kind 1 before 2), ua 300, ua 300, nvtx 500. */
	r = gs_trace_ranges(t, &n);
	assert_int_equal(n, 6);
	ix = gs_trace_annotation_ranges(t, &na);
	assert_int_equal(na, 3);
	for (size_t k = 0; k < na; k++)
		assert_true(r[ix[k]].kind == GS_RANGE_USER_ANNOTATION ||
			    r[ix[k]].kind == GS_RANGE_NVTX);
	assert_int_equal(ix[0], 3);
	assert_int_equal(ix[1], 4);
	assert_int_equal(ix[2], 5);
	{
		struct gs_range g = {.start_ns = 10,
				     .end_ns = 20,
				     .kind = GS_RANGE_NVTX,
				     .name = GS_NO_STRING};

		assert_int_equal(s->range(s, &g), GS_OK);
	}
	assert_int_equal(gs_trace_finish(t), GS_OK);
	r = gs_trace_ranges(t, &n);
	ix = gs_trace_annotation_ranges(t, &na);
	assert_int_equal(na, 4);
	assert_int_equal(ix[0], 0);
	assert_int_equal(r[0].start_ns, 10);
	assert_int_equal(ix[3], 6);
	gs_trace_destroy(t);
}

static void test_impossible_times_dropped_and_counted(void **state)
{
	(void)state;
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	uint32_t a = add_stream(s, 7, 0);
	const struct gs_warning *w;
	size_t n;

	add_op(s, a, 100, 50);                   /* negative */
	add_op(s, a, 0, GS_MAX_DURATION_NS + 1); /* over 7 days */
	add_op(s, a, 0, GS_MAX_DURATION_NS);     /* exactly 7 days: kept */
	add_op(s, a, INT64_MIN, INT64_MAX);      /* overflowing span */
	struct gs_range r = {.start_ns = 10, .end_ns = 5, .name = GS_NO_STRING};
	assert_int_equal(s->range(s, &r), GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 1);
	gs_trace_ranges(t, &n);
	assert_int_equal(n, 0);
	w = gs_trace_warnings(t, &n);
	assert_int_equal(n, 2);
	assert_non_null(strstr(w[0].message, "dropped GPU ops"));
	assert_int_equal(w[0].count, 3);
	assert_non_null(strstr(w[1].message, "dropped host ranges"));
	assert_int_equal(w[1].count, 1);
	gs_trace_destroy(t);
}

/* The error a sink call gave, then cleared. */
static void refused(gs_status rc, const char *want)
{
	char msg[512];

	assert_int_equal(rc, GS_ERR_FORMAT);
	gs_error_format(msg, sizeof(msg));
	if (!strstr(msg, want))
		print_error("got: %s\nwant: %s\n", msg, want);
	assert_non_null(strstr(msg, want));
	gs_error_clear();
}

/* Times at or beyond +-2^62 ns refuse the trace, naming the record; a
 * record the model drops for its duration is dropped first, as before. */
static void test_times_out_of_range_refused(void **state)
{
	(void)state;
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	uint32_t a = add_stream(s, 7, 0), name;
	const int64_t L = GS_TIME_LIMIT_NS;
	struct gs_op op = {.kind = GS_OP_MEMCPY, .stream = a, .correlation = 9};
	struct gs_api_call c = {.start_ns = L, .end_ns = L + 5, .correlation = 4};
	struct gs_sync y = {.start_ns = -L - 5, .end_ns = -L, .stream = GS_NO_INDEX};
	struct gs_range r = {.start_ns = L - 5, .end_ns = L, .name = GS_NO_STRING};
	struct gs_event_record e = {.time_ns = INT64_MIN, .correlation = 3, .stream = a};
	struct gs_allocation al = {.address = 0x1000, .alloc_ns = 5, .free_ns = INT64_MAX};
	struct gs_overhead ov = {.start_ns = L - 1, .end_ns = L, .kind = GS_NO_STRING};
	const struct gs_warning *w;
	size_t n;

	assert_int_equal(L, 4611686018427387904LL);
	/* Just inside, on both sides: kept. */
	add_op(s, a, -L + 1, -L + 10);
	add_op(s, a, L - 10, L - 1);
	/* Wrapped past INT64_MAX (end < start): dropped and counted. */
	add_op(s, a, INT64_MAX - 10, INT64_MIN + 5);
	/* Past it: refused, whatever the record. */
	assert_int_equal(s->intern(s, "Memcpy HtoD", 11, &name), GS_OK);
	op.name = name;
	op.start_ns = L - 10;
	op.end_ns = L;
	refused(s->op(s, &op, NULL),
		"memcpy 'Memcpy HtoD' (correlation 9): end time "
		"4611686018427387904 ns is out of range (|t| must be below 2^62 ns");
	op.start_ns = INT64_MIN;
	op.end_ns = INT64_MIN + 5;
	refused(s->op(s, &op, NULL), "memcpy 'Memcpy HtoD' (correlation 9): start time "
				     "-9223372036854775808 ns is out of range");
	c.name = name;
	refused(s->api_call(s, &c), "API call 'Memcpy HtoD' (correlation 4): start time "
				    "4611686018427387904 ns");
	refused(s->sync(s, &y), "sync: start time -4611686018427387909 ns");
	refused(s->range(s, &r), "host range: end time 4611686018427387904 ns");
	refused(s->event_record(s, &e), "event record (correlation 3): record time "
					"-9223372036854775808 ns");
	refused(s->allocation(s, &al, NULL),
		"allocation at 0x1000: free time 9223372036854775807 ns");
	refused(s->overhead(s, &ov), "collector overhead: end time 4611686018427387904 ns");

	assert_int_equal(gs_trace_finish(t), GS_OK);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 2);
	gs_trace_api_calls(t, &n);
	assert_int_equal(n, 0);
	gs_trace_allocations(t, &n);
	assert_int_equal(n, 0);
	w = gs_trace_warnings(t, &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(w[0].message, "dropped GPU ops"));
	assert_int_equal(w[0].count, 1);
	gs_trace_destroy(t);
}

static void test_undeclared_stream_is_an_error(void **state)
{
	(void)state;
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	struct gs_op op = {.kind = GS_OP_MEMCPY, .start_ns = 1, .end_ns = 2, .stream = 3};
	char msg[256];

	assert_int_equal(s->op(s, &op, NULL), GS_ERR_FORMAT);
	assert_non_null(strstr(gs_error_format(msg, sizeof(msg)), "undeclared stream 3"));
	gs_error_clear();
	op.stream = add_stream(s, 1, 0);
	op.kind = 9;
	assert_int_equal(s->op(s, &op, NULL), GS_ERR_FORMAT);
	gs_error_clear();
	gs_trace_destroy(t);
}

static void test_processes_devices_merge(void **state)
{
	(void)state;
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	uint32_t host;
	struct gs_process p = {.pid = 9,
			       .host_name = GS_NO_STRING,
			       .command_line = GS_NO_STRING,
			       .driver_version = GS_NO_STRING,
			       .runtime_version = GS_NO_STRING,
			       .cupti_version = GS_NO_STRING};
	struct gs_device d = {.id = 1, .name = GS_NO_STRING, .uuid = GS_NO_STRING, .sm_count = 0};
	const struct gs_process *ps;
	const struct gs_device *ds;
	size_t n;

	assert_int_equal(s->process(s, &p), GS_OK);
	assert_int_equal(s->intern(s, "box", 3, &host), GS_OK);
	p.host_name = host;
	p.dropped_records = 4;
	assert_int_equal(s->process(s, &p), GS_OK);
	assert_int_equal(s->dropped(s, 9, 6), GS_OK);
	assert_int_equal(s->dropped(s, 10, 1), GS_OK); /* unknown pid: a process appears */
	ps = gs_trace_processes(t, &n);
	assert_int_equal(n, 2);
	assert_string_equal(gs_trace_string(t, ps[0].host_name), "box");
	assert_int_equal(ps[0].dropped_records, 10);
	assert_int_equal(gs_trace_dropped(t), 11);
	/* Counts stop at UINT64_MAX instead of wrapping. */
	assert_int_equal(s->dropped(s, 10, UINT64_MAX - 3), GS_OK);
	assert_int_equal(s->dropped(s, 10, 5), GS_OK);
	p.dropped_records = UINT64_MAX;
	assert_int_equal(s->process(s, &p), GS_OK);
	ps = gs_trace_processes(t, &n);
	assert_true(ps[0].dropped_records == UINT64_MAX);
	assert_true(ps[1].dropped_records == UINT64_MAX);
	assert_true(gs_trace_dropped(t) == UINT64_MAX);

	assert_int_equal(s->device(s, &d), GS_OK);
	d.sm_count = 132;
	d.copy_engines = 4;
	assert_int_equal(s->device(s, &d), GS_OK);
	ds = gs_trace_devices(t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(ds[0].sm_count, 132);
	assert_int_equal(ds[0].copy_engines, 4);
	gs_trace_destroy(t);
}

static void test_strings_interned_once(void **state)
{
	(void)state;
	struct gs_sink *s;
	struct gs_trace *t = new_trace(&s);
	uint32_t a, b, c;
	char big[5000];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(gs_trace_intern(t, "k", 1, &a), GS_OK);
	assert_int_equal(gs_trace_intern(t, "kk", 2, &b), GS_OK);
	assert_int_equal(gs_trace_intern(t, "k", 1, &c), GS_OK);
	assert_int_equal(a, c);
	assert_int_not_equal(a, b);
	for (int i = 0; i < 100000; i++) {
		char buf[32];
		uint32_t id;
		int len = snprintf(buf, sizeof(buf), "name%d", i % 5000);

		assert_int_equal(gs_trace_intern(t, buf, (size_t)len, &id), GS_OK);
	}
	assert_int_equal(gs_trace_string_count(t), 5002);
	assert_int_equal(gs_trace_intern(t, big, strlen(big), &a), GS_OK);
	assert_string_equal(gs_trace_string(t, a), big);
	assert_string_equal(gs_trace_string(t, GS_NO_STRING), "");
	assert_string_equal(gs_trace_string(t, 999999), "?");
	gs_trace_destroy(t);
}

static void test_enum_names(void **state)
{
	(void)state;
	assert_string_equal(gs_op_kind_name(GS_OP_MEMSET), "memset");
	assert_string_equal(gs_copy_kind_name(GS_COPY_DTOH), "DtoH");
	assert_string_equal(gs_mem_kind_name(GS_MEM_PINNED), "pinned");
	assert_string_equal(gs_stream_kind_name(GS_STREAM_LEGACY_DEFAULT), "legacy_default");
	assert_string_equal(gs_sync_kind_name(GS_SYNC_STREAM_WAIT), "stream_wait");
	assert_string_equal(gs_range_kind_name(GS_RANGE_CPU_OP), "cpu_op");
	assert_string_equal(gs_op_kind_name(200), "unknown");
}

/* Launch configurations: kept once per distinct value, NULL for copies and
 * for all-zero ones, and each still the op's own after the sort reorders
 * the ops (and after a replay into another trace). */
static void test_launch_configs_follow_their_ops(void **state)
{
	struct gs_sink *s, *s2;
	struct gs_trace *t = new_trace(&s), *u = new_trace(&s2);
	uint32_t st = add_stream(s, 7, 0);
	const struct gs_launch_cfg big = {.grid = {128, 2, 1},
					  .block = {256, 1, 1},
					  .shared_mem = 4096,
					  .registers = 32};
	const struct gs_launch_cfg small = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
	const struct gs_launch_cfg zero = {0};
	/* Given out of order: the sort puts start 100 first. */
	struct gs_op k1 = {.kind = GS_OP_KERNEL, .start_ns = 300, .end_ns = 350, .stream = st};
	struct gs_op k2 = {.kind = GS_OP_KERNEL, .start_ns = 200, .end_ns = 250, .stream = st};
	struct gs_op k3 = {.kind = GS_OP_KERNEL, .start_ns = 100, .end_ns = 150, .stream = st};
	struct gs_op k4 = {.kind = GS_OP_KERNEL, .start_ns = 400, .end_ns = 450, .stream = st};
	struct gs_op cp = {.kind = GS_OP_MEMCPY,
			   .start_ns = 500,
			   .end_ns = 550,
			   .stream = st,
			   .launch = 99 /* ignored: the trace sets it */};
	const struct gs_op *ops;
	size_t n;

	(void)state;
	assert_int_equal(s->op(s, &k1, &big), GS_OK);
	assert_int_equal(s->op(s, &k2, &small), GS_OK);
	assert_int_equal(s->op(s, &k3, &big), GS_OK);
	assert_int_equal(s->op(s, &k4, &zero), GS_OK);
	assert_int_equal(s->op(s, &cp, NULL), GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	ops = gs_trace_ops(t, &n);
	assert_int_equal(n, 5);
	assert_int_equal(ops[0].start_ns, 100);
	assert_int_equal(ops[1].start_ns, 200);
	assert_int_equal(ops[2].start_ns, 300);
	assert_memory_equal(gs_trace_op_launch_cfg(t, &ops[0]), &big, sizeof(big));
	assert_memory_equal(gs_trace_op_launch_cfg(t, &ops[1]), &small, sizeof(small));
	/* The same configuration twice: one entry. */
	assert_ptr_equal(gs_trace_op_launch_cfg(t, &ops[2]), gs_trace_op_launch_cfg(t, &ops[0]));
	assert_int_equal(ops[0].launch, ops[2].launch);
	assert_int_not_equal(ops[0].launch, ops[1].launch);
	assert_null(gs_trace_op_launch_cfg(t, &ops[3]));
	assert_int_equal(ops[3].launch, 0);
	assert_null(gs_trace_op_launch_cfg(t, &ops[4]));
	assert_int_equal(ops[4].launch, 0);

	assert_int_equal(gs_trace_replay(t, s2), GS_OK);
	assert_int_equal(gs_trace_finish(u), GS_OK);
	ops = gs_trace_ops(u, &n);
	assert_int_equal(n, 5);
	assert_memory_equal(gs_trace_op_launch_cfg(u, &ops[0]), &big, sizeof(big));
	assert_memory_equal(gs_trace_op_launch_cfg(u, &ops[1]), &small, sizeof(small));
	assert_memory_equal(gs_trace_op_launch_cfg(u, &ops[2]), &big, sizeof(big));
	assert_null(gs_trace_op_launch_cfg(u, &ops[3]));
	assert_null(gs_trace_op_launch_cfg(u, &ops[4]));
	gs_trace_destroy(u);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_streams_dedup_and_learn_kind),
		cmocka_unit_test(test_ops_grouped_by_stream_sorted),
		cmocka_unit_test(test_launch_configs_follow_their_ops),
		cmocka_unit_test(test_threads_index_api_calls),
		cmocka_unit_test(test_annotation_ranges_indexed),
		cmocka_unit_test(test_impossible_times_dropped_and_counted),
		cmocka_unit_test(test_times_out_of_range_refused),
		cmocka_unit_test(test_undeclared_stream_is_an_error),
		cmocka_unit_test(test_processes_devices_merge),
		cmocka_unit_test(test_strings_interned_once),
		cmocka_unit_test(test_enum_names),
		cmocka_unit_test(test_finish_same_on_one_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
