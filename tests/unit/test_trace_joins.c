/* SPDX-License-Identifier: MIT */
/*
 * The joins gs_trace_finish computes: each op's launch call, each sync's
 * call (by correlation id, under the rule of trace.h when several calls
 * share an id), and the device of an op and of a stream.
 */
#include <gpuscope/error.h>
#include <gpuscope/format.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

struct tb {
	struct gs_trace *t;
	struct gs_sink *s;
};

static void tb_init(struct tb *b)
{
	assert_int_equal(gs_trace_create(&b->t), GS_OK);
	b->s = gs_trace_borrow_sink(b->t);
}

static uint32_t str(struct tb *b, const char *s)
{
	uint32_t id;

	assert_int_equal(b->s->intern(b->s, s, strlen(s), &id), GS_OK);
	return id;
}

static uint32_t stream(struct tb *b, int64_t pid, uint32_t device, uint64_t id)
{
	struct gs_stream st = {.pid = pid, .device = device, .context = 1, .stream_id = id};
	uint32_t idx;

	assert_int_equal(b->s->stream(b->s, &st, &idx), GS_OK);
	return idx;
}

static void call(struct tb *b, int64_t pid, int64_t tid, int64_t start, int64_t end, uint64_t corr,
		 const char *name)
{
	struct gs_api_call c = {.start_ns = start,
				.end_ns = end,
				.pid = pid,
				.tid = tid,
				.correlation = corr,
				.name = str(b, name)};

	assert_int_equal(b->s->api_call(b->s, &c), GS_OK);
}

static void op(struct tb *b, uint32_t s, int64_t start, uint64_t corr)
{
	struct gs_op o = {.kind = GS_OP_KERNEL,
			  .start_ns = start,
			  .end_ns = start + 5,
			  .stream = s,
			  .correlation = corr,
			  .name = str(b, "k")};

	assert_int_equal(b->s->op(b->s, &o, NULL), GS_OK);
}

static void sync(struct tb *b, int64_t pid, int64_t tid, int64_t start, uint64_t corr)
{
	struct gs_sync y = {.start_ns = start,
			    .end_ns = start + 1,
			    .pid = pid,
			    .tid = tid,
			    .correlation = corr,
			    .stream = GS_NO_INDEX,
			    .wait_on_stream = GS_NO_INDEX,
			    .kind = GS_SYNC_CONTEXT};

	assert_int_equal(b->s->sync(b->s, &y), GS_OK);
}

/* The op (after finish) that starts at `start`; its index. */
static size_t op_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		if (ops[i].start_ns == start)
			return i;
	fail_msg("no op at %lld", (long long)start);
	return 0;
}

static size_t sync_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_sync *y = gs_trace_syncs(t, &n);

	for (size_t i = 0; i < n; i++)
		if (y[i].start_ns == start)
			return i;
	fail_msg("no sync at %lld", (long long)start);
	return 0;
}

/* The name of call `c` and its process, "name@pid" ("-" for none). */
static const char *who(const struct gs_trace *t, uint32_t c, char *buf, size_t len)
{
	size_t n;
	const struct gs_api_call *calls = gs_trace_api_calls(t, &n);

	if (c == GS_NO_INDEX)
		return "-";
	assert_true(c < n);
	snprintf(buf, len, "%s@%lld", gs_trace_string(t, calls[c].name), (long long)calls[c].pid);
	return buf;
}

static const char *launch_at(const struct gs_trace *t, int64_t start, char *buf, size_t len)
{
	return who(t, gs_trace_op_launch_call(t, op_at(t, start)), buf, len);
}

static const char *sync_call_at(const struct gs_trace *t, int64_t start, char *buf, size_t len)
{
	return who(t, gs_trace_sync_call(t, sync_at(t, start)), buf, len);
}

/*
 * Two processes (10 on device 0, 20 on device 3) whose correlation ids
 * collide, one more stream of a process without calls (30), and a
 * duplicated record. With `far`, a call with a far-away id makes the ids
 * sparse, so the sorted table is used instead of the direct one: the joins
 * must not change.
 */
static struct tb build(bool far)
{
	struct tb b;
	uint32_t s10, s20, s30;

	tb_init(&b);
	s10 = stream(&b, 10, 0, 7);
	s20 = stream(&b, 20, 3, 7);
	s30 = stream(&b, 30, 0, 9);
	/* id 5 in both processes; process 10's starts later. */
	call(&b, 20, 1, 100, 110, 5, "launch20");
	call(&b, 10, 1, 120, 130, 5, "launch10");
	op(&b, s20, 200, 5); /* process 20's own call, though 10's is later */
	op(&b, s10, 201, 5);
	op(&b, s30, 202, 5); /* no call of process 30: the latest start before it */
	op(&b, s30, 115, 5); /* only 20's call had started by 115 */
	op(&b, s30, 50, 5);  /* none had started: the latest start */
	/* A runtime call around its driver call on one thread (id 7), and an
	 * earlier call with the id on another thread. */
	call(&b, 10, 1, 300, 340, 7, "cudaMemcpy");
	call(&b, 10, 1, 302, 330, 7, "cuMemcpyHtoD");
	call(&b, 10, 2, 290, 295, 7, "cudaEventRecord");
	op(&b, s10, 335, 7); /* latest start: the driver call; the runtime call encloses it */
	op(&b, s10, 296, 7); /* only the event record had started */
	/* A record duplicated (id 8): the lower index. */
	call(&b, 10, 1, 400, 410, 8, "dup");
	call(&b, 10, 1, 400, 410, 8, "dup");
	op(&b, s10, 420, 8);
	/* No launch: id 0, and an id no call has. */
	op(&b, s10, 500, 0);
	op(&b, s10, 501, 999);
	/* Syncs: the sync's own thread first, then its process. */
	call(&b, 10, 1, 600, 601, 11, "thread1");
	call(&b, 10, 2, 590, 591, 11, "thread2");
	call(&b, 20, 2, 605, 606, 11, "other");
	sync(&b, 10, 2, 610, 11);  /* thread 2 of 10, though thread 1's is later */
	sync(&b, 10, 3, 611, 11);  /* no call of its thread: process 10's latest */
	sync(&b, 40, -1, 612, 11); /* neither: the latest start */
	sync(&b, 10, 2, 613, 0);
	sync(&b, 10, 2, 614, 12345);
	if (far)
		call(&b, 50, 1, 0, 1, 1ull << 40, "far");
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	return b;
}

static void check_joins(bool far)
{
	struct tb b = build(far);
	char buf[64];
	size_t n, n_ops, n_api;
	const struct gs_api_call *calls = gs_trace_api_calls(b.t, &n_api);
	const uint32_t *launch = gs_trace_op_launches(b.t, &n);
	uint32_t dup;

	gs_trace_ops(b.t, &n_ops);
	assert_int_equal(n, n_ops);
	assert_non_null(launch);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(launch[i], gs_trace_op_launch_call(b.t, i));
	assert_string_equal(launch_at(b.t, 200, buf, sizeof(buf)), "launch20@20");
	assert_string_equal(launch_at(b.t, 201, buf, sizeof(buf)), "launch10@10");
	assert_string_equal(launch_at(b.t, 202, buf, sizeof(buf)), "launch10@10");
	assert_string_equal(launch_at(b.t, 115, buf, sizeof(buf)), "launch20@20");
	assert_string_equal(launch_at(b.t, 50, buf, sizeof(buf)), "launch10@10");
	assert_string_equal(launch_at(b.t, 335, buf, sizeof(buf)), "cudaMemcpy@10");
	assert_string_equal(launch_at(b.t, 296, buf, sizeof(buf)), "cudaEventRecord@10");
	assert_string_equal(launch_at(b.t, 500, buf, sizeof(buf)), "-");
	assert_string_equal(launch_at(b.t, 501, buf, sizeof(buf)), "-");
	/* The duplicate: the first of the two identical calls. */
	dup = gs_trace_op_launch_call(b.t, op_at(b.t, 420));
	assert_true(dup + 1 < n_api);
	assert_int_equal(calls[dup].correlation, 8);
	assert_int_equal(calls[dup + 1].correlation, 8);
	assert_true(dup == 0 || calls[dup - 1].correlation != 8);

	assert_non_null(gs_trace_sync_calls(b.t, &n));
	assert_int_equal(n, 5);
	assert_string_equal(sync_call_at(b.t, 610, buf, sizeof(buf)), "thread2@10");
	assert_string_equal(sync_call_at(b.t, 611, buf, sizeof(buf)), "thread1@10");
	assert_string_equal(sync_call_at(b.t, 612, buf, sizeof(buf)), "other@20");
	assert_string_equal(sync_call_at(b.t, 613, buf, sizeof(buf)), "-");
	assert_string_equal(sync_call_at(b.t, 614, buf, sizeof(buf)), "-");
	assert_int_equal(gs_trace_sync_call(b.t, 5), GS_NO_INDEX);
	assert_int_equal(gs_trace_op_launch_call(b.t, n_ops), GS_NO_INDEX);
	gs_trace_destroy(b.t);
}

static void test_joins_direct_table(void **state)
{
	(void)state;
	check_joins(false);
}

static void test_joins_sparse_ids(void **state)
{
	(void)state;
	check_joins(true);
}

/* Ops on streams of two devices: each op's device is its stream's. */
static void test_op_and_stream_devices(void **state)
{
	struct tb b;
	uint32_t s0, s3;
	size_t n;

	(void)state;
	tb_init(&b);
	s0 = stream(&b, 10, 0, 7);
	s3 = stream(&b, 10, 3, 7);
	op(&b, s3, 10, 0);
	op(&b, s0, 20, 0);
	op(&b, s3, 30, 0);
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	gs_trace_ops(b.t, &n);
	assert_int_equal(n, 3);
	assert_int_equal(gs_trace_stream_device(b.t, s0), 0);
	assert_int_equal(gs_trace_stream_device(b.t, s3), 3);
	assert_int_equal(gs_trace_stream_device(b.t, 2), GS_NO_INDEX);
	assert_int_equal(gs_trace_op_device(b.t, op_at(b.t, 10)), 3);
	assert_int_equal(gs_trace_op_device(b.t, op_at(b.t, 20)), 0);
	assert_int_equal(gs_trace_op_device(b.t, op_at(b.t, 30)), 3);
	assert_int_equal(gs_trace_op_device(b.t, 3), GS_NO_INDEX);
	gs_trace_destroy(b.t);
}

/* Before finish there is no join; records added after it are joined by the
 * next finish. */
static void test_joins_follow_finish(void **state)
{
	struct tb b;
	uint32_t s;
	size_t n;
	char buf[64];

	(void)state;
	tb_init(&b);
	s = stream(&b, 10, 0, 7);
	call(&b, 10, 1, 0, 5, 1, "first");
	op(&b, s, 10, 1);
	assert_null(gs_trace_op_launches(b.t, &n));
	assert_int_equal(n, 0);
	assert_int_equal(gs_trace_op_launch_call(b.t, 0), GS_NO_INDEX);
	assert_null(gs_trace_sync_calls(b.t, &n));
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	assert_string_equal(launch_at(b.t, 10, buf, sizeof(buf)), "first@10");
	call(&b, 10, 1, 20, 25, 2, "second");
	op(&b, s, 30, 2);
	sync(&b, 10, 1, 20, 2);
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	gs_trace_op_launches(b.t, &n);
	assert_int_equal(n, 2);
	assert_string_equal(launch_at(b.t, 10, buf, sizeof(buf)), "first@10");
	assert_string_equal(launch_at(b.t, 30, buf, sizeof(buf)), "second@10");
	assert_string_equal(sync_call_at(b.t, 20, buf, sizeof(buf)), "second@10");
	gs_trace_destroy(b.t);
}

/* ---- ids of many calls ---- */

/* The rule of trace.h as written there, by a scan of every call: what the
 * joins must give whatever their way. */
static bool ref_better(const struct gs_api_call *a, const struct gs_api_call *b, int64_t pid,
		       int64_t tid, int64_t before)
{
	if (tid >= 0) {
		bool ta = a->pid == pid && a->tid == tid, tb = b->pid == pid && b->tid == tid;

		if (ta != tb)
			return ta;
	}
	if (pid > 0 && (a->pid == pid) != (b->pid == pid))
		return a->pid == pid;
	if ((a->start_ns <= before) != (b->start_ns <= before))
		return a->start_ns <= before;
	if (a->start_ns != b->start_ns)
		return a->start_ns > b->start_ns;
	return a->end_ns < b->end_ns;
}

static uint32_t ref_pick(const struct gs_api_call *c, size_t n, uint64_t corr, int64_t pid,
			 int64_t tid, int64_t before)
{
	uint32_t best = GS_NO_INDEX, outer;

	if (!corr)
		return GS_NO_INDEX;
	for (size_t i = 0; i < n; i++)
		if (c[i].correlation == corr &&
		    (best == GS_NO_INDEX || ref_better(&c[i], &c[best], pid, tid, before)))
			best = (uint32_t)i;
	if (best == GS_NO_INDEX)
		return best;
	outer = best;
	for (size_t i = 0; i < n; i++) {
		const struct gs_api_call *a = &c[i], *b = &c[best], *o = &c[outer];

		if (a->correlation != corr || a->pid != b->pid || a->tid != b->tid || i == outer)
			continue;
		if (a->start_ns <= b->start_ns && a->end_ns >= b->end_ns &&
		    (a->start_ns < o->start_ns ||
		     (a->start_ns == o->start_ns && a->end_ns > o->end_ns)))
			outer = (uint32_t)i;
	}
	return outer;
}

static uint64_t rnd_state = 12345;

static uint64_t rnd(uint64_t n)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (rnd_state >> 33) % n;
}

/*
 * Random traces whose ids are each on 1 to 80 calls (a scan below 17, the
 * sorted orders above): three processes of three threads, calls nested,
 * overlapping, repeated and duplicated, ops of four processes (one without
 * calls) and syncs of every kind of thread; every join equals the rule's.
 */
static void test_joins_many_calls_per_id(void **state)
{
	(void)state;
	for (int round = 0; round < 60; round++) {
		struct tb b;
		uint32_t s[4];
		size_t n_api, n_ops, n_syncs;
		const struct gs_api_call *calls;
		const struct gs_op *ops;
		const struct gs_sync *syncs;
		unsigned ids = 1 + (unsigned)rnd(4), per = 1 + (unsigned)rnd(80);

		tb_init(&b);
		for (unsigned k = 0; k < 4; k++)
			s[k] = stream(&b, 1 + k, 0, 7);
		for (unsigned id = 1; id <= ids; id++)
			for (unsigned k = 0; k < per; k++) {
				int64_t start = (int64_t)rnd(400), len = (int64_t)rnd(60);

				if (k && rnd(4) == 0) { /* a driver call inside the last */
					size_t n;
					const struct gs_api_call *last =
						&gs_trace_api_calls(b.t, &n)[n - 1];

					call(&b, last->pid, last->tid,
					     last->start_ns + (int64_t)rnd(3),
					     last->end_ns - (int64_t)rnd(3), id, "inner");
					continue;
				}
				call(&b, 1 + (int64_t)rnd(3), 1 + (int64_t)rnd(3), start,
				     start + len, rnd(8) ? id : 1000 + id, "c");
				if (rnd(10) == 0)
					call(&b, 1 + (int64_t)rnd(3), 1, start, start + len, id,
					     "dup");
			}
		for (unsigned k = 0; k < 3 * per; k++)
			op(&b, s[rnd(4)], (int64_t)rnd(500) - 50, 1 + rnd(ids + 1));
		for (unsigned k = 0; k < per; k++)
			sync(&b, (int64_t)rnd(4), (int64_t)rnd(4) - 1, (int64_t)rnd(500) - 50,
			     1 + rnd(ids + 1));
		assert_int_equal(gs_trace_finish(b.t), GS_OK);
		calls = gs_trace_api_calls(b.t, &n_api);
		ops = gs_trace_ops(b.t, &n_ops);
		syncs = gs_trace_syncs(b.t, &n_syncs);
		for (size_t i = 0; i < n_ops; i++) {
			size_t ns;
			const struct gs_stream *st = gs_trace_streams(b.t, &ns);

			assert_int_equal(gs_trace_op_launch_call(b.t, i),
					 ref_pick(calls, n_api, ops[i].correlation,
						  st[ops[i].stream].pid, -1, ops[i].start_ns));
		}
		for (size_t i = 0; i < n_syncs; i++)
			assert_int_equal(gs_trace_sync_call(b.t, i),
					 ref_pick(calls, n_api, syncs[i].correlation, syncs[i].pid,
						  syncs[i].tid, syncs[i].start_ns));
		gs_trace_destroy(b.t);
	}
}

static uint64_t warning_count(const struct gs_trace *t, const char *part)
{
	size_t n;
	const struct gs_warning *w = gs_trace_warnings(t, &n);

	for (size_t i = 0; i < n; i++)
		if (strstr(w[i].message, part))
			return w[i].count;
	return 0;
}

/*
 * 40 calls of one thread with one id, one after another, and an op after
 * each: each op gets the call just before it, and one warning counts the 39
 * calls that repeat the id. A runtime call around its driver call, the same
 * id in two threads or two processes, a record kept twice: no warning. The
 * count is set again, not added, when the trace is finished again.
 */
static void test_joins_repeated_id(void **state)
{
	struct tb b;
	uint32_t s;
	char buf[64];

	(void)state;
	tb_init(&b);
	s = stream(&b, 10, 0, 7);
	call(&b, 10, 1, 0, 50, 1, "cudaMemcpy");
	call(&b, 10, 1, 2, 40, 1, "cuMemcpy");
	call(&b, 10, 2, 60, 70, 2, "a");
	call(&b, 10, 3, 60, 70, 2, "b");
	call(&b, 20, 1, 80, 90, 3, "c");
	call(&b, 10, 1, 80, 90, 3, "d");
	call(&b, 10, 1, 95, 99, 4, "dup");
	call(&b, 10, 1, 95, 99, 4, "dup");
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	assert_int_equal(warning_count(b.t, "repeat a correlation id"), 0);
	for (int i = 0; i < 40; i++) {
		char name[16];

		snprintf(name, sizeof(name), "call%d", i);
		call(&b, 10, 1, 1000 + 100 * i, 1005 + 100 * i, 7, name);
		op(&b, s, 1010 + 100 * i, 7);
	}
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	for (int i = 0; i < 40; i++) {
		char want[32];

		snprintf(want, sizeof(want), "call%d@10", i);
		assert_string_equal(launch_at(b.t, 1010 + 100 * i, buf, sizeof(buf)), want);
	}
	assert_int_equal(warning_count(b.t, "repeat a correlation id"), 39);
	assert_int_equal(gs_trace_finish(b.t), GS_OK);
	assert_int_equal(warning_count(b.t, "repeat a correlation id"), 39);
	gs_trace_destroy(b.t);
}

/* More than 2^20 calls on one id: refused with a cause naming the id. */
static void test_joins_absurd_repeats(void **state)
{
	struct tb b;
	uint32_t name;
	gs_status rc;

	(void)state;
	tb_init(&b);
	name = str(&b, "c");
	for (int64_t i = 0; i <= 1 << 20; i++) {
		struct gs_api_call c = {.start_ns = 10 * i,
					.end_ns = 10 * i + 5,
					.pid = 1,
					.tid = 1,
					.correlation = 9,
					.name = name};

		assert_int_equal(b.s->api_call(b.s, &c), GS_OK);
	}
	gs_error_clear();
	rc = gs_trace_finish(b.t);
	assert_int_equal(rc, GS_ERR_LIMIT);
	assert_non_null(strstr(gs_error_message(0), "correlation id 9 is on 1048577 API calls"));
	gs_error_clear();
	gs_trace_destroy(b.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_joins_direct_table),
		cmocka_unit_test(test_joins_sparse_ids),
		cmocka_unit_test(test_op_and_stream_devices),
		cmocka_unit_test(test_joins_follow_finish),
		cmocka_unit_test(test_joins_many_calls_per_id),
		cmocka_unit_test(test_joins_repeated_id),
		cmocka_unit_test(test_joins_absurd_repeats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
