/* SPDX-License-Identifier: MIT */
/*
 * gs_analyzer: gs_summary_compute / write_text / write_json and
 * gs_dump_write over traces built in memory through the trace's sink.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>

/* ---- building traces ---------------------------------------------------- */

static uint32_t str(struct gs_sink *k, const char *s)
{
	uint32_t id = GS_NO_STRING;

	assert_int_equal(k->intern(k, s, strlen(s), &id), GS_OK);
	return id;
}

static uint32_t stream(struct gs_sink *k, int64_t pid, uint64_t id)
{
	struct gs_stream st = {.pid = pid,
			       .device = 0,
			       .context = 1,
			       .stream_id = id,
			       .kind = GS_STREAM_NON_BLOCKING};
	uint32_t index = GS_NO_INDEX;

	assert_int_equal(k->stream(k, &st, &index), GS_OK);
	return index;
}

static void op(struct gs_sink *k, uint8_t kind, uint32_t s, int64_t start, int64_t end,
	       uint64_t corr, uint64_t bytes, const char *name)
{
	struct gs_launch_cfg lc = {0};
	struct gs_op o = {.start_ns = start,
			  .end_ns = end,
			  .correlation = corr,
			  .bytes = bytes,
			  .name = str(k, name),
			  .stream = s,
			  .kind = kind};

	if (kind == GS_OP_KERNEL) {
		lc.grid[0] = 128;
		lc.grid[1] = lc.grid[2] = 1;
		lc.block[0] = 256;
		lc.block[1] = lc.block[2] = 1;
		lc.registers = 32;
	} else if (kind == GS_OP_MEMCPY) {
		o.copy_kind = GS_COPY_HTOD;
		o.src_mem = GS_MEM_PINNED;
		o.dst_mem = GS_MEM_DEVICE;
		o.flags = GS_OPF_ASYNC;
	} else {
		o.dst_mem = GS_MEM_DEVICE;
	}
	assert_int_equal(k->op(k, &o, kind == GS_OP_KERNEL ? &lc : NULL), GS_OK);
}

static void api(struct gs_sink *k, uint8_t kind, int64_t tid, int64_t start, int64_t end,
		uint64_t corr, const char *name)
{
	struct gs_api_call c = {.start_ns = start,
				.end_ns = end,
				.pid = 100,
				.tid = tid,
				.correlation = corr,
				.name = str(k, name),
				.kind = kind};

	assert_int_equal(k->api_call(k, &c), GS_OK);
}

static void range(struct gs_sink *k, uint8_t kind, int64_t start, int64_t end, const char *name)
{
	struct gs_range r = {.start_ns = start,
			     .end_ns = end,
			     .pid = 100,
			     .tid = 1,
			     .name = str(k, name),
			     .domain = GS_NO_STRING,
			     .kind = kind};

	assert_int_equal(k->range(k, &r), GS_OK);
}

/*
 * Two streams on one device; four ops (one more dropped for end < start),
 * four API calls on two threads, two syncs, one event record, three ranges,
 * one overhead, three dropped records and one importer warning.
 * `reverse` feeds the same records in another order.
 */
static struct gs_trace *build(bool reverse)
{
	struct gs_trace *t = NULL;
	struct gs_sink *k;
	uint32_t s7, s13;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	k = gs_trace_borrow_sink(t);
	if (!reverse) {
		s7 = stream(k, 100, 7);
		s13 = stream(k, 100, 13);
	} else {
		s13 = stream(k, 100, 13);
		s7 = stream(k, 100, 7);
	}
	{
		struct gs_process p = {.pid = 100,
				       .host_name = str(k, "node1"),
				       .command_line = GS_NO_STRING,
				       .driver_version = str(k, "13000"),
				       .runtime_version = GS_NO_STRING,
				       .cupti_version = GS_NO_STRING,
				       .dropped_records = 3};
		struct gs_device d = {.id = 0,
				      .name = str(k, "Test GPU \xff"),
				      .uuid = GS_NO_STRING,
				      .sm_count = 108,
				      .cc_major = 8,
				      .memory_bytes = 40ull << 30,
				      .copy_engines = 2};

		assert_int_equal(k->process(k, &p), GS_OK);
		assert_int_equal(k->device(k, &d), GS_OK);
	}
	if (!reverse) {
		op(k, GS_OP_KERNEL, s7, 1000, 2000, 11, 0, "k_a");
		op(k, GS_OP_KERNEL, s13, 1500, 4000, 12, 0, "k_b");
		op(k, GS_OP_MEMCPY, s7, 2500, 3000, 13, 4096, "Memcpy HtoD");
		op(k, GS_OP_MEMSET, s13, 500, 600, 14, 64, "Memset");
		op(k, GS_OP_KERNEL, s7, 5000, 4000, 15, 0, "k_bad");
	} else {
		op(k, GS_OP_KERNEL, s7, 5000, 4000, 15, 0, "k_bad");
		op(k, GS_OP_MEMSET, s13, 500, 600, 14, 64, "Memset");
		op(k, GS_OP_MEMCPY, s7, 2500, 3000, 13, 4096, "Memcpy HtoD");
		op(k, GS_OP_KERNEL, s13, 1500, 4000, 12, 0, "k_b");
		op(k, GS_OP_KERNEL, s7, 1000, 2000, 11, 0, "k_a");
	}
	api(k, GS_API_RUNTIME, 1, 900, 950, 11, "cudaLaunchKernel");
	api(k, GS_API_RUNTIME, 1, 1000, 1100, 12, "cudaLaunchKernel");
	api(k, GS_API_DRIVER, 2, 1000, 1050, 13, "cuMemcpyHtoDAsync");
	api(k, GS_API_RUNTIME, 2, 400, 450, 14, "cudaMemsetAsync");
	{
		struct gs_sync y1 = {.start_ns = 3000,
				     .end_ns = 4100,
				     .pid = 100,
				     .tid = 1,
				     .correlation = 20,
				     .stream = s13,
				     .wait_on_stream = GS_NO_INDEX,
				     .kind = GS_SYNC_STREAM};
		struct gs_sync y2 = {.start_ns = 3100,
				     .end_ns = 3200,
				     .pid = 100,
				     .tid = 2,
				     .correlation = 21,
				     .event_id = 5,
				     .sync_id = 9,
				     .stream = GS_NO_INDEX,
				     .wait_on_stream = s7,
				     .kind = GS_SYNC_EVENT};
		struct gs_event_record e = {.time_ns = 2000,
					    .correlation = 19,
					    .event_id = 5,
					    .sync_id = 9,
					    .stream = s7};
		struct gs_overhead v = {.start_ns = 10,
					.end_ns = 20,
					.pid = 100,
					.kind = str(k, "buffer flush")};

		assert_int_equal(k->sync(k, &y1), GS_OK);
		assert_int_equal(k->sync(k, &y2), GS_OK);
		assert_int_equal(k->event_record(k, &e), GS_OK);
		assert_int_equal(k->overhead(k, &v), GS_OK);
	}
	range(k, GS_RANGE_NVTX, 100, 5000, "step \"1\"\nnext");
	range(k, GS_RANGE_CPU_OP, 300, 1200, "aten::add");
	range(k, GS_RANGE_CPU_OP, 1200, 1300, "aten::mul");
	assert_int_equal(k->warning(k, "unknown category \"foo\"", 2, GS_WARNING_OTHER), GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

/* Everything a writer printed, as a NUL-terminated string (caller frees). */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void capture_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

static char *capture_close(struct capture *c)
{
	assert_int_equal(fclose(c->f), 0);
	return c->buf;
}

/* ---- summary ------------------------------------------------------------- */

static void test_summary_counts(void **state)
{
	struct gs_trace *t = build(false);
	struct gs_summary s;

	(void)state;
	assert_int_equal(gs_summary_compute(t, &s), GS_OK);
	assert_ptr_equal(s.trace, t);
	assert_int_equal(s.ops[GS_OP_KERNEL], 2);
	assert_int_equal(s.ops[GS_OP_MEMCPY], 1);
	assert_int_equal(s.ops[GS_OP_MEMSET], 1);
	assert_int_equal(s.op_total, 4);
	assert_int_equal(s.op_ns[GS_OP_KERNEL], 1000 + 2500);
	assert_int_equal(s.op_ns[GS_OP_MEMCPY], 500);
	assert_int_equal(s.copy_bytes, 4096);
	assert_int_equal(s.memset_bytes, 64);
	assert_int_equal(s.api_calls, 4);
	assert_int_equal(s.api_by_kind[GS_API_RUNTIME], 3);
	assert_int_equal(s.api_by_kind[GS_API_DRIVER], 1);
	assert_int_equal(s.syncs, 2);
	assert_int_equal(s.syncs_by_kind[GS_SYNC_STREAM], 1);
	assert_int_equal(s.syncs_by_kind[GS_SYNC_EVENT], 1);
	assert_int_equal(s.event_records, 1);
	assert_int_equal(s.host_ranges, 3);
	assert_int_equal(s.ranges_by_kind[GS_RANGE_NVTX], 1);
	assert_int_equal(s.ranges_by_kind[GS_RANGE_CPU_OP], 2);
	assert_int_equal(s.overheads, 1);
	assert_int_equal(s.allocations, 0);
	assert_int_equal(s.processes, 1);
	assert_int_equal(s.devices, 1);
	assert_int_equal(s.streams, 2);
	assert_int_equal(s.threads, 2);
	/* first op start to last op end; the dropped op does not count */
	assert_int_equal(s.first_ns, 500);
	assert_int_equal(s.last_ns, 4000);
	assert_int_equal(s.span_ns, 3500);
	assert_int_equal(s.dropped, 3);
	/* the importer's warning and the trace's own about the dropped op */
	assert_int_equal(s.warnings, 2);
	assert_int_equal(s.warning_total, 3);
	gs_trace_destroy(t);
}

static void test_summary_empty(void **state)
{
	struct gs_trace *t = NULL;
	struct gs_summary s;

	(void)state;
	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	memset(&s, 0xa5, sizeof(s));
	assert_int_equal(gs_summary_compute(t, &s), GS_OK);
	assert_int_equal(s.op_total, 0);
	assert_int_equal(s.first_ns, 0);
	assert_int_equal(s.last_ns, 0);
	assert_int_equal(s.span_ns, 0);
	assert_int_equal(s.warnings, 0);
	assert_null(s.file);
	assert_null(s.format);
	gs_trace_destroy(t);
}

static void test_summary_invalid(void **state)
{
	struct gs_summary s;

	(void)state;
	gs_error_clear();
	assert_int_equal(gs_summary_compute(NULL, &s), GS_ERR_INVALID);
	assert_int_equal(gs_error_count(), 1);
	gs_error_clear();
}

static void test_summary_json(void **state)
{
	struct gs_trace *t = build(false);
	struct gs_summary s;
	struct capture c;
	char *out;

	(void)state;
	assert_int_equal(gs_summary_compute(t, &s), GS_OK);
	s.file = "dir/a \"b\".json";
	s.format = "kineto";
	capture_open(&c);
	assert_int_equal(gs_summary_write_json(c.f, &s), GS_OK);
	out = capture_close(&c);
	assert_non_null(strstr(out, "\"schema\": \"gpuscope.info/1\""));
	assert_non_null(strstr(out, "\"file\": \"dir/a \\\"b\\\".json\""));
	assert_non_null(strstr(out, "\"format\": \"kineto\""));
	assert_non_null(strstr(out, "\"ops\": {\"kernel\": 2, \"memcpy\": 1, \"memset\": 1}"));
	assert_non_null(strstr(out, "\"api_calls\": 4,"));
	assert_non_null(strstr(out, "\"syncs\": 2,"));
	assert_non_null(strstr(out, "\"event_records\": 1,"));
	assert_non_null(strstr(out, "\"host_ranges\": 3,"));
	assert_non_null(strstr(out, "\"nvtx_ranges\": 1,"));
	assert_non_null(strstr(out, "\"streams\": 2,"));
	assert_non_null(strstr(out, "\"devices\": 1,"));
	assert_non_null(strstr(out, "\"processes\": 1,"));
	assert_non_null(strstr(out, "\"span_ns\": 3500,"));
	assert_non_null(strstr(out, "\"dropped\": 3,"));
	/* invalid UTF-8 replaced, quotes escaped */
	assert_non_null(strstr(out, "\"name\": \"Test GPU \\ufffd\""));
	assert_non_null(
		strstr(out, "{\"message\": \"unknown category \\\"foo\\\"\", \"count\": 2}"));
	assert_int_equal(out[strlen(out) - 1], '\n');
	assert_string_equal(out + strlen(out) - 3, "\n}\n");
	free(out);
	gs_trace_destroy(t);
}

static void test_summary_text(void **state)
{
	struct gs_trace *t = build(false);
	struct gs_summary s;
	struct capture c;
	char *out;

	(void)state;
	assert_int_equal(gs_summary_compute(t, &s), GS_OK);
	capture_open(&c);
	assert_int_equal(gs_summary_write_text(c.f, &s), GS_OK);
	out = capture_close(&c);
	/* no file or format set: not written */
	assert_null(strstr(out, "file:"));
	assert_non_null(strstr(out, "\nops:             4 (kernel 2, memcpy 1, memset 1)\n"));
	assert_non_null(strstr(out, "\nspan:            3.500 us (3500 ns, "));
	assert_non_null(strstr(out, "  device 0:      Test GPU \\xff (cc 8.0, 108 SMs, 40.0 GiB, "
				    "2 copy engines)\n"));
	assert_non_null(strstr(out, "\nwarnings:        2\n"));
	assert_non_null(strstr(out, "  unknown category \"foo\" (2 times)\n"));
	free(out);
	gs_trace_destroy(t);
}

static char *dump(const struct gs_trace *t, size_t limit);

/*
 * Three processes of a distributed job (rank 0 of 2, rank 1 of a world of
 * unknown size, one without a rank) and a kernel of a collective: info
 * lists the ranks, dump prints them and the collective.
 */
static struct gs_trace *build_ranks(void)
{
	static const struct {
		bool has;
		uint32_t rank, world;
	} procs[] = {{true, 0, 2}, {true, 1, 0}, {false, 0, 0}};
	struct gs_trace *t = NULL;
	struct gs_sink *k;
	struct gs_collective coll;
	struct gs_op o = {.start_ns = 100, .end_ns = 200, .correlation = 1, .kind = GS_OP_KERNEL};
	uint32_t idx = GS_NO_INDEX;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	k = gs_trace_borrow_sink(t);
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		struct gs_process p = {.pid = 10 + (int64_t)i,
				       .host_name = str(k, "node1"),
				       .command_line = GS_NO_STRING,
				       .driver_version = GS_NO_STRING,
				       .runtime_version = GS_NO_STRING,
				       .cupti_version = GS_NO_STRING,
				       .has_rank = procs[i].has,
				       .rank = procs[i].rank,
				       .world_size = procs[i].world};

		/* The first names its backend and a Kineto base, the third an
		 * Nsight session clock. */
		if (i == 0) {
			p.has_backend = true;
			p.backend = str(k, "nccl");
			p.clock = GS_CLOCK_KINETO_BASE;
			p.wall_offset_ns = 1700000000000000000LL;
		} else if (i == 2) {
			p.clock = GS_CLOCK_NSYS_SESSION;
			p.wall_offset_ns = -5;
		}
		assert_int_equal(k->process(k, &p), GS_OK);
	}
	coll = (struct gs_collective){.name = str(k, "allreduce"),
				      .group = str(k, "0"),
				      .group_desc = GS_NO_STRING,
				      .group_ranks = GS_NO_STRING,
				      .dtype = str(k, "Float"),
				      .group_size = 2};
	assert_int_equal(k->collective(k, &coll, &idx), GS_OK);
	o.collective = idx + 1;
	o.stream = stream(k, 10, 7);
	o.name = str(k, "nccl_kernel");
	assert_int_equal(k->op(k, &o, NULL), GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

static void test_summary_ranks(void **state)
{
	struct gs_trace *t = build_ranks();
	struct gs_summary s;
	struct capture c;
	char *out;

	(void)state;
	assert_int_equal(gs_summary_compute(t, &s), GS_OK);
	assert_int_equal(s.collectives, 1);
	capture_open(&c);
	assert_int_equal(gs_summary_write_text(c.f, &s), GS_OK);
	out = capture_close(&c);
	assert_non_null(strstr(out,
			       "processes:       3\n"
			       "  process 10:    rank 0 of 2 (nccl); clock: Kineto "
			       "baseTimeNanoseconds + offset\n"
			       "  process 11:    rank 1\n"
			       "  process 12:    clock: Nsight TARGET_INFO_SESSION_START_TIME + "
			       "offset\n"
			       "devices:"));
	assert_non_null(strstr(out, "\ncollectives:     1\n"));
	free(out);
	capture_open(&c);
	assert_int_equal(gs_summary_write_json(c.f, &s), GS_OK);
	out = capture_close(&c);
	assert_non_null(strstr(out, "  \"process_list\": [\n"
				    "    {\"pid\": 10, \"host\": \"node1\", \"rank\": 0, "
				    "\"world_size\": 2, \"backend\": \"nccl\", \"clock\": "
				    "\"kineto_base\", \"wall_offset_ns\": 1700000000000000000},\n"
				    "    {\"pid\": 11, \"host\": \"node1\", \"rank\": 1, "
				    "\"world_size\": null, \"backend\": null, \"clock\": \"none\", "
				    "\"wall_offset_ns\": 0},\n"
				    "    {\"pid\": 12, \"host\": \"node1\", \"rank\": null, "
				    "\"world_size\": null, \"backend\": null, \"clock\": "
				    "\"nsys_session\", \"wall_offset_ns\": -5}\n"
				    "  ],\n"));
	assert_non_null(strstr(out, "\"collectives\": 1,"));
	free(out);
	out = dump(t, 0);
	assert_non_null(strstr(out, " dropped=0 rank=0 world_size=2 backend=\"nccl\" "
				    "clock=kineto_base wall_offset=1700000000000000000\n"));
	assert_non_null(strstr(out, " dropped=0 rank=1 world_size=- clock=none wall_offset=0\n"));
	assert_non_null(
		strstr(out, " dropped=0 rank=- world_size=- clock=nsys_session wall_offset=-5\n"));
	assert_non_null(strstr(out,
			       "100 kernel pid=10 dev=0 stream=7 dur=100 corr=1 grid=0,0,0 "
			       "block=0,0,0 smem=0 regs=0 collective=\"allreduce\" group=\"0\" "
			       "group_desc=\"\" group_ranks=\"\" group_size=2 dtype=\"Float\" "
			       "in_nelems=- out_nelems=- name=\"nccl_kernel\"\n"));
	free(out);
	gs_trace_destroy(t);
}

static void test_write_error(void **state)
{
	struct gs_trace *t = build(false);
	struct gs_summary s;
	FILE *f = fopen("/dev/full", "w");
	char buf[1024];

	(void)state;
	if (!f) {
		gs_trace_destroy(t);
		skip();
	}
	assert_int_equal(gs_summary_compute(t, &s), GS_OK);
	gs_error_clear();
	assert_int_equal(gs_summary_write_json(f, &s), GS_ERR_IO);
	assert_non_null(strstr(gs_error_format(buf, sizeof(buf)), "write failed"));
	gs_error_clear();
	clearerr(f);
	assert_int_equal(gs_dump_write(f, t, 0), GS_ERR_IO);
	gs_error_clear();
	fclose(f);
	gs_trace_destroy(t);
}

static void test_warning_format(void **state)
{
	struct gs_warning w = {.message = "dropped GPU ops with a negative duration", .count = 1};
	char buf[128];

	(void)state;
	assert_string_equal(gs_warning_format(&w, buf, sizeof(buf)),
			    "dropped GPU ops with a negative duration");
	w.count = 3;
	assert_string_equal(gs_warning_format(&w, buf, sizeof(buf)),
			    "dropped GPU ops with a negative duration (3 times)");
	/* the importers' style: the count is in the message already */
	w.message = "skipped 425 events of unknown category 'x'";
	w.count = 425;
	assert_string_equal(gs_warning_format(&w, buf, sizeof(buf)), w.message);
	/* a number that merely contains the count is not the count */
	w.message = "cut short at byte 4250";
	assert_string_equal(gs_warning_format(&w, buf, sizeof(buf)),
			    "cut short at byte 4250 (425 times)");
	/* truncated, still terminated */
	assert_int_equal(strlen(gs_warning_format(&w, buf, 8)), 7);
}

/* ---- dump ---------------------------------------------------------------- */

static char *dump(const struct gs_trace *t, size_t limit)
{
	struct capture c;

	capture_open(&c);
	assert_int_equal(gs_dump_write(c.f, t, limit), GS_OK);
	return capture_close(&c);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_dump_lines(void **state)
{
	static const char *const expect[] = {
		"process pid=100 host=\"node1\" cmd=\"\" driver=\"13000\" runtime=\"\" cupti=\"\" start=0 "
		"dropped=3 rank=- world_size=- clock=none wall_offset=0",
		"device id=0 name=\"Test GPU \\xff\" uuid=\"\" sms=108 cc=8.0 memory=42949672960 "
		"copy_engines=2",
		"stream index=0 pid=100 dev=0 ctx=1 id=7 kind=non_blocking priority=0",
		"stream index=1 pid=100 dev=0 ctx=1 id=13 kind=non_blocking priority=0",
		"10 overhead pid=100 dur=10 kind=\"buffer flush\"",
		"100 range kind=nvtx pid=100 tid=1 dur=4900 ext=0 name=\"step \\\"1\\\"\\nnext\"",
		"300 range kind=cpu_op pid=100 tid=1 dur=900 ext=0 name=\"aten::add\"",
		"400 api kind=runtime pid=100 tid=2 dur=50 corr=14 cbid=0 ret=0 "
		"name=\"cudaMemsetAsync\"",
		"500 memset dev=0 stream=13 dur=100 corr=14 bytes=64 dst=device name=\"Memset\"",
		"900 api kind=runtime pid=100 tid=1 dur=50 corr=11 cbid=0 ret=0 "
		"name=\"cudaLaunchKernel\"",
		"1000 kernel dev=0 stream=7 dur=1000 corr=11 grid=128,1,1 block=256,1,1 smem=0 "
		"regs=32 name=\"k_a\"",
		/* same start: by end time, then correlation */
		"1000 api kind=driver pid=100 tid=2 dur=50 corr=13 cbid=0 ret=0 "
		"name=\"cuMemcpyHtoDAsync\"",
		"1000 api kind=runtime pid=100 tid=1 dur=100 corr=12 cbid=0 ret=0 "
		"name=\"cudaLaunchKernel\"",
		"1200 range kind=cpu_op pid=100 tid=1 dur=100 ext=0 name=\"aten::mul\"",
		"1500 kernel dev=0 stream=13 dur=2500 corr=12 grid=128,1,1 block=256,1,1 smem=0 "
		"regs=32 name=\"k_b\"",
		"2000 event_record dev=0 stream=7 corr=19 event=5 sync_id=9",
		"2500 memcpy dev=0 stream=7 dur=500 corr=13 bytes=4096 dir=HtoD src=pinned "
		"dst=device flags=async name=\"Memcpy HtoD\"",
		"3000 sync kind=stream_sync pid=100 tid=1 dur=1100 corr=20 dev=0 stream=13 "
		"wait_on_stream=- event=0 sync_id=0 event_corr=0",
		"3100 sync kind=event_sync pid=100 tid=2 dur=100 corr=21 dev=0 stream=- "
		"wait_on_stream=7 event=5 sync_id=9 event_corr=0",
	};
	struct gs_trace *t = build(false);
	char *out = dump(t, 0), *line, *save = NULL;
	size_t i = 0;

	(void)state;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_true(i < sizeof(expect) / sizeof(expect[0]));
		assert_string_equal(line, expect[i]);
		i++;
	}
	assert_int_equal(i, sizeof(expect) / sizeof(expect[0]));
	free(out);
	gs_trace_destroy(t);
}

static void test_dump_limit(void **state)
{
	struct gs_trace *t = build(false);
	char *all = dump(t, 0), *some = dump(t, 3);

	(void)state;
	/* 4 table lines always, then 3 timed records */
	assert_int_equal(count_lines(some), 4 + 3);
	assert_int_equal(strncmp(all, some, strlen(some)), 0);
	free(some);
	some = dump(t, 1000);
	assert_string_equal(all, some);
	free(all);
	free(some);
	gs_trace_destroy(t);
}

static void test_dump_deterministic(void **state)
{
	struct gs_trace *a = build(false), *b = build(true);
	char *da = dump(a, 0), *db = dump(b, 0);
	char *sa = strstr(da, "\n10 overhead"), *sb = strstr(db, "\n10 overhead");

	(void)state;
	/* The stream tables differ in order (by design); the timed part must not. */
	assert_non_null(sa);
	assert_non_null(sb);
	assert_string_equal(sa, sb);
	free(da);
	free(db);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

static void test_dump_empty(void **state)
{
	struct gs_trace *t = NULL;
	char *out;

	(void)state;
	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	out = dump(t, 0);
	assert_string_equal(out, "");
	free(out);
	gs_trace_destroy(t);
}

int main(void)
{
	/* One test a line. */
	/* clang-format off */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_counts),
		cmocka_unit_test(test_summary_empty),
		cmocka_unit_test(test_summary_invalid),
		cmocka_unit_test(test_summary_json),
		cmocka_unit_test(test_summary_text),
		cmocka_unit_test(test_summary_ranks),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_warning_format),
		cmocka_unit_test(test_dump_lines),
		cmocka_unit_test(test_dump_limit),
		cmocka_unit_test(test_dump_deterministic),
		cmocka_unit_test(test_dump_empty),
	};
	/* clang-format on */

	return cmocka_run_group_tests(tests, NULL, NULL);
}
