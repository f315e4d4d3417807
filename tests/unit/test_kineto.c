/* SPDX-License-Identifier: MIT */
/*
 * The Kineto importer and the format-detecting loader, on hand-written
 * fixtures (tests/data/kineto/) and inline documents. JSON written inline
 * uses ' for " (see jdup) to stay readable.
 */
#include <gpuscope/import.h>

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

#include "kineto_sink.h"

#define FIXTURE(name) GS_TEST_DATA "/kineto/" name

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* A copy of `s` with every ' made ". */
static char *jdup(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	for (char *p = d; *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

static gs_status import_lim(struct rec *r, const char *json, const struct gs_import_limits *lim)
{
	char *d = jdup(json);
	gs_status rc;

	gs_error_clear();
	rc = gs_import_kineto_mem(d, strlen(d), "t.json", lim, &r->sink);
	free(d);
	return rc;
}

static gs_status import(struct rec *r, const char *json)
{
	return import_lim(r, json, NULL);
}

static const char *last_error(void)
{
	static char buf[2048];

	return gs_error_format(buf, sizeof(buf));
}

static void assert_error_has(const char *needle)
{
	const char *msg = last_error();

	if (!strstr(msg, needle))
		fail_msg("error \"%s\" lacks \"%s\"", msg, needle);
}

/* The warning whose message contains `needle` (fails when absent). */
static const struct rec_warning *warning(const struct rec *r, const char *needle)
{
	for (size_t i = 0; i < r->nwarns; i++)
		if (strstr(r->warns[i].msg, needle))
			return &r->warns[i];
	for (size_t i = 0; i < r->nwarns; i++)
		print_message("warning: %s (%llu)\n", r->warns[i].msg,
			      (unsigned long long)r->warns[i].count);
	fail_msg("no warning containing \"%s\"", needle);
	abort(); /* not reached: fail_msg jumps out */
}

static bool has_warning(const struct rec *r, const char *needle)
{
	for (size_t i = 0; i < r->nwarns; i++)
		if (strstr(r->warns[i].msg, needle))
			return true;
	return false;
}

static const struct gs_stream *stream_of(const struct rec *r, uint32_t idx)
{
	assert_true(idx < r->nstreams);
	return &r->streams[idx];
}

static const struct gs_op *op_named(const struct rec *r, const char *name)
{
	for (size_t i = 0; i < r->nops; i++)
		if (strcmp(rec_str(r, r->ops[i].name), name) == 0)
			return &r->ops[i];
	fail_msg("no op named %s", name);
	abort(); /* not reached: fail_msg jumps out */
}

static const struct gs_api_call *api_named(const struct rec *r, const char *name)
{
	for (size_t i = 0; i < r->napis; i++)
		if (strcmp(rec_str(r, r->apis[i].name), name) == 0)
			return &r->apis[i];
	fail_msg("no api call named %s", name);
	abort(); /* not reached: fail_msg jumps out */
}

static const struct gs_sync *sync_corr(const struct rec *r, uint64_t corr)
{
	for (size_t i = 0; i < r->nsyncs; i++)
		if (r->syncs[i].correlation == corr)
			return &r->syncs[i];
	fail_msg("no sync with correlation %llu", (unsigned long long)corr);
	abort(); /* not reached: fail_msg jumps out */
}

static char *read_file(const char *path, size_t *n)
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
static unsigned char *gzip_bytes(const void *p, size_t n, size_t *outn)
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
static void write_temp(char *path, size_t size, const void *p, size_t n)
{
	int fd;

	snprintf(path, size, "/tmp/gs_test_kineto_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

/* ------------------------------------------------------------------------ */
/* Fixtures                                                                 */
/* ------------------------------------------------------------------------ */

static void check_new_style(const struct rec *r)
{
	const struct gs_op *k, *cp, *ms;
	const struct gs_api_call *c;
	const struct gs_sync *y;
	const struct gs_stream *st;

	assert_int_equal(r->ndevs, 2);
	assert_int_equal(r->devs[0].id, 0);
	assert_int_equal(r->devs[1].id, 1);
	assert_string_equal(rec_str(r, r->devs[0].name), "NVIDIA A100-SXM4-80GB");
	assert_int_equal(r->devs[0].memory_bytes, 84990623744ull);
	assert_int_equal(r->devs[0].sm_count, 108);
	assert_int_equal(r->devs[0].cc_major, 8);
	assert_int_equal(r->devs[0].cc_minor, 0);
	assert_int_equal(r->devs[0].uuid, GS_NO_STRING);

	assert_int_equal(r->nops, 3);
	k = op_named(r, "add_kernel");
	assert_int_equal(k->kind, GS_OP_KERNEL);
	assert_int_equal(k->start_ns, 1707417525512145123ll);
	assert_int_equal(k->end_ns, 1707417525512146623ll);
	assert_int_equal(k->correlation, 42);
	assert_int_equal(rec_launch(r, k)->grid[0], 128);
	assert_int_equal(rec_launch(r, k)->grid[1], 2);
	assert_int_equal(rec_launch(r, k)->grid[2], 1);
	assert_int_equal(rec_launch(r, k)->block[0], 256);
	assert_int_equal(rec_launch(r, k)->block[1], 1);
	assert_int_equal(rec_launch(r, k)->registers, 16);
	assert_int_equal(rec_launch(r, k)->shared_mem, 1024);
	assert_int_equal(k->flags, 0);
	st = stream_of(r, k->stream);
	assert_int_equal(st->pid, 0);
	assert_int_equal(st->device, 0);
	assert_int_equal(st->context, 1);
	assert_int_equal(st->stream_id, 7);
	assert_int_equal(st->kind, GS_STREAM_UNKNOWN);

	cp = op_named(r, "Memcpy HtoD (Pinned -> Device)");
	assert_int_equal(cp->kind, GS_OP_MEMCPY);
	assert_int_equal(cp->copy_kind, GS_COPY_HTOD);
	assert_int_equal(cp->src_mem, GS_MEM_PINNED);
	assert_int_equal(cp->dst_mem, GS_MEM_DEVICE);
	assert_int_equal(cp->bytes, 4096);
	assert_int_equal(cp->flags, GS_OPF_ASYNC); /* cudaMemcpyAsync */
	assert_int_equal(stream_of(r, cp->stream)->stream_id, 20);

	ms = op_named(r, "Memset (Device)");
	assert_int_equal(ms->kind, GS_OP_MEMSET);
	assert_int_equal(ms->bytes, 512);
	assert_int_equal(ms->dst_mem, GS_MEM_DEVICE);
	assert_int_equal(ms->flags, 0); /* no launch call in the trace */
	st = stream_of(r, ms->stream);
	assert_int_equal(st->device, 1);
	assert_int_equal(st->context, 2);
	assert_int_equal(st->stream_id, 7);
	assert_int_equal(r->nstreams, 3);

	assert_int_equal(r->napis, 4);
	c = api_named(r, "cudaLaunchKernel");
	assert_int_equal(c->kind, GS_API_RUNTIME);
	assert_int_equal(c->start_ns, 1707417525512110500ll);
	assert_int_equal(c->end_ns, 1707417525512115750ll);
	assert_int_equal(c->pid, 1234);
	assert_int_equal(c->tid, 1235);
	assert_int_equal(c->correlation, 42);
	assert_int_equal(c->cbid, 211);
	c = api_named(r, "cuLaunchKernel");
	assert_int_equal(c->kind, GS_API_DRIVER);
	assert_int_equal(c->cbid, 307);

	assert_int_equal(r->nsyncs, 1);
	y = &r->syncs[0];
	assert_int_equal(y->kind, GS_SYNC_STREAM);
	assert_int_equal(y->correlation, 46);
	assert_int_equal(y->stream, k->stream); /* (0, 1, 7) */
	assert_int_equal(y->wait_on_stream, GS_NO_INDEX);
	assert_int_equal(y->device, 0);
	assert_int_equal(y->pid, 1234); /* from cudaStreamSynchronize */
	assert_int_equal(y->tid, 1235);
	assert_int_equal(y->start_ns, 1707417525512230000ll);
	assert_int_equal(y->end_ns, 1707417525512239000ll);

	assert_int_equal(r->nranges, 4);
	assert_int_equal(r->ranges[0].kind, GS_RANGE_USER_ANNOTATION);
	assert_int_equal(r->ranges[0].start_ns, 1707417525512000500ll);
	assert_int_equal(r->ranges[0].end_ns, 1707417525512300750ll);
	assert_int_equal(r->ranges[0].external_id, 1);
	assert_int_equal(r->ranges[1].kind, GS_RANGE_CPU_OP);
	assert_string_equal(rec_str(r, r->ranges[1].name), "aten::add");
	assert_int_equal(r->ranges[1].external_id, 7);
	assert_int_equal(r->ranges[1].tid, 1235);
	assert_int_equal(r->ranges[1].domain, GS_NO_STRING);
	assert_int_equal(r->ranges[2].kind, GS_RANGE_PYTHON);
	assert_int_equal(r->ranges[2].start_ns, 1707417525512050001ll);
	/* gpu_user_annotation: a range on the kernel's stream (pid 0 is the
	 * device, tid 7 the stream; the context of the stream seen before),
	 * never an op. */
	assert_int_equal(r->ranges[3].kind, GS_RANGE_GPU_ANNOTATION);
	assert_string_equal(rec_str(r, r->ranges[3].name), "ProfilerStep#1");
	assert_int_equal(r->ranges[3].start_ns, 1707417525512145000ll);
	assert_int_equal(r->ranges[3].end_ns, 1707417525512245000ll);
	assert_int_equal(r->ranges[3].external_id, 1);
	assert_int_equal(r->ranges[3].stream, k->stream);
	assert_int_equal(r->ranges[3].pid, -1);
	assert_int_equal(r->ranges[3].tid, -1);

	assert_int_equal(r->noverheads, 1);
	assert_int_equal(r->overheads[0].pid, -1);
	assert_string_equal(rec_str(r, r->overheads[0].kind), "Activity Buffer Request");

	assert_int_equal(r->nevrecs, 0);
	assert_int_equal(r->nprocs, 1); /* pid 0 is "GPU 0" */
	assert_int_equal(r->procs[0].pid, 1234);
	assert_string_equal(rec_str(r, r->procs[0].command_line), "python3.10");
	assert_string_equal(rec_str(r, r->procs[0].host_name), "node-17");
	assert_string_equal(rec_str(r, r->procs[0].driver_version), "12020");
	assert_string_equal(rec_str(r, r->procs[0].runtime_version), "12000");
	assert_string_equal(rec_str(r, r->procs[0].cupti_version), "18");

	/* Flows, metadata, Trace, instants and GPU annotations are silent. */
	assert_int_equal(r->nwarns, 0);
}

static void test_new_style_file(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto(FIXTURE("new_style.json"), NULL, &r.sink), GS_OK);
	check_new_style(&r);
	rec_free(&r);
}

static void test_old_style_file(void **state)
{
	struct rec r;
	const struct gs_op *k, *cp, *ms;

	(void)state;
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto(FIXTURE("old_style.json"), NULL, &r.sink), GS_OK);
	assert_int_equal(r.nops, 3);
	k = op_named(&r, "void cudnn::wgrad<float, 128>(int, float const*)");
	assert_int_equal(k->kind, GS_OP_KERNEL);
	assert_int_equal(k->start_ns, 1606910596288085000ll);
	assert_int_equal(k->end_ns, 1606910596288464000ll);
	assert_int_equal(rec_launch(&r, k)->grid[2], 32);
	assert_int_equal(rec_launch(&r, k)->registers, 80);
	assert_int_equal(stream_of(&r, k->stream)->stream_id, 7);
	cp = op_named(&r, "Memcpy HtoD (Pageable -> Device)");
	assert_int_equal(cp->copy_kind, GS_COPY_HTOD);
	assert_int_equal(cp->src_mem, GS_MEM_PAGEABLE);
	assert_int_equal(cp->bytes, 19267584);
	assert_int_equal(cp->flags, GS_OPF_ASYNC);
	ms = op_named(&r, "Memset (Device)");
	assert_int_equal(ms->bytes, 1048576);
	assert_int_equal(r.nstreams, 1);

	assert_int_equal(r.napis, 3);
	assert_int_equal(r.apis[0].tid, 4093687616ll); /* "4093687616" */
	assert_int_equal(r.apis[0].pid, 67844);
	assert_int_equal(r.nranges, 1);
	assert_int_equal(r.ranges[0].kind, GS_RANGE_CPU_OP);
	assert_int_equal(r.ranges[0].tid, 4093687616ll);
	assert_int_equal(r.ranges[0].external_id, 2);

	/* cudaEventRecord becomes an event record, stream unknown. */
	assert_int_equal(r.nevrecs, 1);
	assert_int_equal(r.evrecs[0].correlation, 65470);
	assert_int_equal(r.evrecs[0].time_ns, 1606910596350470000ll);
	assert_int_equal(r.evrecs[0].stream, GS_NO_INDEX);
	assert_int_equal(r.evrecs[0].sync_id, GS_NO_SYNC_ID);

	/* No deviceProperties: the device ops use gets a bare record. */
	assert_int_equal(r.ndevs, 1);
	assert_int_equal(r.devs[0].id, 0);
	assert_int_equal(r.devs[0].name, GS_NO_STRING);
	assert_int_equal(r.nprocs, 1);
	assert_int_equal(r.procs[0].pid, 67844);
	assert_string_equal(rec_str(&r, r.procs[0].command_line), "python");
	assert_int_equal(r.procs[0].host_name, GS_NO_STRING);

	assert_int_equal(warning(&r, "cudaStreamWaitEvent calls but no cuda_sync")->count, 1);
	assert_int_equal(r.nwarns, 1);
	rec_free(&r);
}

static void test_rocm_file(void **state)
{
	struct rec r;
	const struct gs_op *cp, *k;

	(void)state;
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto(FIXTURE("rocm.json"), NULL, &r.sink), GS_OK);
	assert_int_equal(r.nops, 4);
	cp = op_named(&r, "Memcpy HtoD (Host -> Device)");
	assert_int_equal(cp->kind, GS_OP_MEMCPY);
	assert_int_equal(cp->copy_kind, GS_COPY_HTOD);
	assert_int_equal(cp->src_mem, GS_MEM_UNKNOWN); /* "Host": pinned or not */
	assert_int_equal(cp->dst_mem, GS_MEM_DEVICE);
	assert_int_equal(cp->flags, 0); /* hipMemcpyWithStream is synchronous */
	assert_int_equal(cp->start_ns, 2204338329454206ll);
	assert_int_equal(stream_of(&r, cp->stream)->device, 2);
	assert_int_equal(stream_of(&r, cp->stream)->context, 0);
	k = op_named(&r, "void at::native::indexSelectLargeIndex<float>()");
	assert_int_equal(rec_launch(&r, k)->grid[0], 141);
	assert_int_equal(k->flags, 0);
	/* The call comes first in ROCm traces. */
	assert_int_equal(op_named(&r, "graph_node_a")->flags, GS_OPF_GRAPH);
	assert_int_equal(op_named(&r, "graph_node_b")->flags, GS_OPF_GRAPH);
	assert_int_equal(r.napis, 3);
	assert_int_equal(r.ndevs, 1);
	assert_int_equal(r.devs[0].id, 2);
	assert_int_equal(r.devs[0].cc_minor, 4);
	/* pid 2 is "GPU 2" although a python_function sits on it. */
	assert_int_equal(r.nprocs, 1);
	assert_int_equal(r.procs[0].pid, 6240);
	assert_string_equal(rec_str(&r, r.procs[0].runtime_version), "60443483");
	/* A python_function and the gpu_user_annotation on device 2, stream 0. */
	assert_int_equal(r.nranges, 2);
	assert_int_equal(r.ranges[0].kind, GS_RANGE_GPU_ANNOTATION);
	assert_string_equal(rec_str(&r, r.ranges[0].name), "ProfilerStep#6");
	assert_int_equal(r.ranges[0].start_ns, 2204338330237581ll);
	assert_int_equal(r.ranges[0].end_ns, 2204338333733559ll);
	assert_int_equal(r.streams[r.ranges[0].stream].device, 2);
	assert_int_equal(r.streams[r.ranges[0].stream].stream_id, 0);
	assert_int_equal(r.nwarns, 0);
	rec_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Times                                                                    */
/* ------------------------------------------------------------------------ */

#define RANGE_TS(ts, dur)                                                                          \
	"{'ph':'X','cat':'cpu_op','name':'r','pid':1,'tid':1,'ts':" ts ",'dur':" dur "}"

static void test_time_text(void **state)
{
	static const struct {
		const char *ts;
		int64_t ns;
	} cases[] = {
		{"1707417525512145.123", 1707417525512145123ll},
		{"1606910596297023", 1606910596297023000ll},
		{"1712195495519689.0", 1712195495519689000ll},
		{"2413669096100.149", 2413669096100149ll},
		{"1.5e3", 1500000},
		{"15E+2", 1500000},
		{"2E-3", 2},
		{"0.0005", 1}, /* half a ns rounds up */
		{"0.0004", 0},
		{"123456789.123456789", 123456789123ll},
		{"1.0005", 1001},
		{"1.00049999", 1000},
		{"-5", -5000},
		{"0", 0},
		{"1e-30", 0},
		{"9223372036854775.5", 9223372036854775500ll},
	};
	char doc[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rec r;

		rec_init(&r);
		snprintf(doc, sizeof(doc), "{'traceEvents':[" RANGE_TS("%s", "0.25") "]}",
			 cases[i].ts);
		assert_int_equal(import(&r, doc), GS_OK);
		if (r.nranges != 1)
			fail_msg("ts %s: no range", cases[i].ts);
		if (r.ranges[0].start_ns != cases[i].ns)
			fail_msg("ts %s: %lld, expected %lld", cases[i].ts,
				 (long long)r.ranges[0].start_ns, (long long)cases[i].ns);
		assert_int_equal(r.ranges[0].end_ns - r.ranges[0].start_ns, 250);
		rec_free(&r);
	}
}

static void test_bad_times(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	assert_int_equal(
		import(&r,
		       "{'traceEvents':[" RANGE_TS("10", "-1") "," RANGE_TS("10", "604800000001") "," RANGE_TS("10", "604800000000") "," RANGE_TS("10", "'abc'") "," RANGE_TS(
			       "10",
			       "NaN") "," RANGE_TS("10",
						   "null") "," RANGE_TS("'12'",
									"1") "," RANGE_TS("1e30",
											  "1") "," RANGE_TS("9223372036854775.807",
													    "1") "," RANGE_TS("10",
															      "1.") ","
																    "{'ph':'X','cat':'cpu_op','name':'r','pid':1,'tid':1,'ts':10},"
																    "{'ph':'X','cat':'kernel','name':'k','pid':0,'tid':7,'dur':3,"
																    "'args':{'device':0,'stream':7}}," RANGE_TS(
																	    "10",
																	    "2") "]}"),
		GS_OK);
	/* Only the exactly-7-days event and the last one are kept. */
	assert_int_equal(r.nranges, 2);
	assert_int_equal(r.ranges[0].end_ns - r.ranges[0].start_ns, 604800000000000ll);
	assert_int_equal(r.ranges[1].end_ns, 12000);
	assert_int_equal(r.nops, 0);
	assert_int_equal(warning(&r, "negative duration")->count, 1);
	assert_int_equal(warning(&r, "over 7 days")->count, 1);
	assert_int_equal(warning(&r, "not a number")->count, 5);
	assert_int_equal(warning(&r, "64-bit nanoseconds")->count, 2);
	assert_int_equal(warning(&r, "without ts or dur")->count, 2);
	assert_non_null(strstr(warning(&r, "negative duration")->msg, "(first at byte 16)"));
	assert_non_null(
		strstr(warning(&r, "negative duration")->msg, "dropped 1 events with a negative"));
	rec_free(&r);
}

/* Device and stream ids that are not ids drop the event, naming the field. */
#define GPU_IDS(pid, tid, args)                                                                    \
	"{'ph':'X','cat':'kernel','name':'k','pid':" pid ",'tid':" tid ",'ts':1,'dur':1,"          \
	"'args':{" args "}}"

static void test_bad_ids(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	assert_int_equal(
		import(&r,
		       "{'traceEvents':[" GPU_IDS("0", "7", "'device':-3,'stream':7") "," GPU_IDS("0", "7", "'device':1e308,'stream':7") "," GPU_IDS(
			       "0", "7",
			       "'device':1.5,"
			       "'stream':7") "," GPU_IDS("0", "7",
							 "'device':4294967296,'stream':7") "," GPU_IDS("0",
												       "7",
												       "'device':'gpu0','stream':7") "," GPU_IDS("0",
																		 "7",
																		 "'device':0,"
																		 "'stream':-3") "," GPU_IDS("0",
																					    "7",
																					    "'device':0,'stream':18446744073709551615") "," GPU_IDS("0",
																												    "7",
																												    "'device':0,'stream':1e308") "," GPU_IDS("-3",
																																	     "7",
																																	     "'stream':7") "," GPU_IDS("0",
																																				       "'main'",
																																				       "'device':0") "," GPU_IDS("0",
																																								 "7",
																																								 "'device':0,'stream':-1") ","
																																											   "{'ph':'X','cat':'cuda_sync','name':'Stream Sync','pid':0,'tid':7,'ts':1,"
																																											   "'dur':1,'args':{'device':0,'stream':'x'}},"
																																											   "{'ph':'X','cat':'cuda_sync','name':'Stream Sync','pid':0,'tid':7,'ts':1,"
																																											   "'dur':1,'args':{'device':0,'stream':7,'wait_on_stream':-2}}," GPU_IDS(
																																												   "0",
																																												   "'stream 3'",
																																												   "'device':'1'") "]}"),
		GS_OK);
	assert_int_equal(r.nops, 1); /* device "1" (integer text) on stream 3 */
	assert_int_equal(r.nsyncs, 0);
	assert_string_equal(warning(&r, "args.device")->msg,
			    "dropped 5 GPU events whose args.device is not a device number (-3, "
			    "first at byte 16)");
	assert_int_equal(warning(&r, "args.stream")->count, 4);
	assert_non_null(strstr(warning(&r, "args.stream")->msg, "(-3, first at byte "));
	assert_non_null(strstr(warning(&r, "pid is not a device")->msg, "(-3, first at byte "));
	assert_non_null(strstr(warning(&r, "tid is not a stream")->msg, "(\"main\", first at"));
	assert_int_equal(warning(&r, "args.wait_on_stream")->count, 1);
	assert_int_equal(warning(&r, "without a device or stream")->count, 1);
	assert_int_equal(r.nwarns, 6);
	rec_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Categories                                                               */
/* ------------------------------------------------------------------------ */

static void test_categories(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	assert_int_equal(
		import(&r,
		       "{'traceEvents':["
		       "{'ph':'X','cat':'Kernel','name':'k1','pid':0,'tid':'stream 3','ts':1,'dur':1},"
		       "{'ph':'X','cat':'kernel','name':'k2','pid':0,'tid':3,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'Memcpy','name':'Memcpy DtoH','pid':0,'tid':3,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'gpu_memcpy','name':'Memcpy DtoD','pid':0,'tid':3,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'Memset','name':'Memset','pid':0,'tid':3,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'gpu_memset','name':'Memset','pid':0,'tid':3,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'Runtime','name':'a','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'cuda_runtime','name':'b','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'cuda_driver','name':'c','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'cuda_sync','name':'Stream Sync','pid':0,'tid':3,'ts':1,'dur':1,"
		       "'args':{'stream':3,'device':0}},"
		       "{'ph':'X','cat':'Operator','name':'o','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'cpu_op','name':'o','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'user_annotation','name':'u','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'python_function','name':'p','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'overhead','name':'Buffer Flush','pid':5,'tid':0,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'gpu_user_annotation','name':'g','pid':0,'tid':3,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'gpu_user_annotation','name':'g','pid':0,'tid':3,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'Trace','name':'t','pid':'Spans','tid':'x','ts':1,'dur':1},"
		       "{'ph':'X','cat':'foo','name':'f','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'foo','name':'f','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'foo','name':'f','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'mtia_runtime','name':'m','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'X','name':'nocat','pid':5,'tid':5,'ts':1,'dur':1},"
		       "{'ph':'B','cat':'cpu_op','name':'b','pid':5,'tid':5,'ts':1},"
		       "{'ph':'B','cat':'cpu_op','name':'b','pid':5,'tid':5,'ts':1},"
		       "{'ph':'C','name':'counter','pid':5,'ts':1,'args':{'v':1}},"
		       "{'ph':'s','id':1,'pid':5,'tid':5,'ts':1,'cat':'ac2g','name':'ac2g'},"
		       "{'ph':'f','id':1,'pid':0,'tid':3,'ts':1,'cat':'ac2g','name':'ac2g','bp':'e'},"
		       "{'ph':'i','s':'t','name':'[memory]','pid':5,'tid':5,'ts':1},"
		       "{'cat':'kernel','name':'nophase','pid':0,'tid':3,'ts':1,'dur':1},"
		       "{'ph':'X','cat':'cpu_op','name':'strpid','pid':'Spans','tid':5,'ts':1,'dur':1}"
		       "]}"),
		GS_OK);
	assert_int_equal(r.nops, 6);
	assert_int_equal(r.ops[0].kind, GS_OP_KERNEL);
	assert_int_equal(r.ops[1].kind, GS_OP_KERNEL);
	assert_int_equal(r.ops[0].stream, r.ops[1].stream); /* "stream 3" == 3 */
	assert_int_equal(r.ops[2].kind, GS_OP_MEMCPY);
	assert_int_equal(r.ops[2].copy_kind, GS_COPY_DTOH);
	assert_int_equal(r.ops[3].copy_kind, GS_COPY_DTOD);
	assert_int_equal(r.ops[4].kind, GS_OP_MEMSET);
	assert_int_equal(r.ops[5].kind, GS_OP_MEMSET);
	assert_int_equal(r.napis, 3);
	assert_int_equal(r.apis[0].kind, GS_API_RUNTIME);
	assert_int_equal(r.apis[1].kind, GS_API_RUNTIME);
	assert_int_equal(r.apis[2].kind, GS_API_DRIVER);
	assert_int_equal(r.nsyncs, 1);
	assert_int_equal(r.nranges, 6);
	assert_int_equal(r.ranges[0].kind, GS_RANGE_CPU_OP);
	assert_int_equal(r.ranges[1].kind, GS_RANGE_CPU_OP);
	assert_int_equal(r.ranges[2].kind, GS_RANGE_USER_ANNOTATION);
	assert_int_equal(r.ranges[3].kind, GS_RANGE_PYTHON);
	assert_int_equal(r.ranges[4].kind, GS_RANGE_GPU_ANNOTATION);
	assert_int_equal(r.ranges[5].kind, GS_RANGE_GPU_ANNOTATION);
	assert_int_equal(r.ranges[4].stream, r.ops[0].stream); /* tid 3: stream 3 */
	assert_int_equal(r.noverheads, 1);
	assert_int_equal(warning(&r, "unknown category 'foo'")->count, 3);
	assert_string_equal(warning(&r, "'foo'")->msg,
			    "skipped 3 events of unknown category 'foo'");
	assert_int_equal(warning(&r, "unknown category 'mtia_runtime'")->count, 1);
	assert_int_equal(warning(&r, "without a category")->count, 1);
	assert_int_equal(warning(&r, "unsupported phase 'B'")->count, 2);
	/* Counter tracks ("C") are understood and skipped without a warning. */
	assert_false(has_warning(&r, "unsupported phase 'C'"));
	assert_int_equal(warning(&r, "without a phase")->count, 1);
	assert_int_equal(warning(&r, "pid is not a number")->count, 1);
	assert_false(has_warning(&r, "gpu_user_annotation"));
	assert_false(has_warning(&r, "'Trace'"));
	assert_int_equal(r.nwarns, 6);
	rec_free(&r);
}

#define COPY(name, extra)                                                                          \
	"{'ph':'X','cat':'gpu_memcpy','name':'" name "','pid':0,'tid':7,'ts':1,'dur':1" extra "}"

static void test_copy_names(void **state)
{
	static const struct {
		uint8_t ck, src, dst;
	} want[] = {
		{GS_COPY_HTOD, GS_MEM_PAGEABLE, GS_MEM_DEVICE},
		{GS_COPY_DTOH, GS_MEM_DEVICE, GS_MEM_PINNED},
		{GS_COPY_DTOD, GS_MEM_DEVICE, GS_MEM_DEVICE},
		{GS_COPY_HTOH, GS_MEM_PINNED, GS_MEM_PAGEABLE},
		{GS_COPY_PTOP, GS_MEM_DEVICE, GS_MEM_DEVICE},
		{GS_COPY_HTOD, GS_MEM_PAGEABLE, GS_MEM_ARRAY},
		{GS_COPY_DTOH, GS_MEM_ARRAY, GS_MEM_PINNED},
		{GS_COPY_DTOD, GS_MEM_MANAGED, GS_MEM_DEVICE},
		{GS_COPY_HTOD, GS_MEM_UNKNOWN, GS_MEM_DEVICE},
		{GS_COPY_DTOH, GS_MEM_DEVICE, GS_MEM_UNKNOWN},
		{GS_COPY_UNKNOWN, GS_MEM_UNKNOWN, GS_MEM_UNKNOWN},
		{GS_COPY_DTOH, GS_MEM_DEVICE, GS_MEM_UNKNOWN},
		{GS_COPY_DTOD, GS_MEM_ARRAY, GS_MEM_DEVICE},
		{GS_COPY_UNKNOWN, GS_MEM_UNKNOWN, GS_MEM_UNKNOWN},
	};
	struct rec r;

	(void)state;
	rec_init(&r);
	assert_int_equal(
		import(&r,
		       "{'traceEvents':[" COPY("Memcpy HtoD (Pageable -> Device)", "") "," COPY("Memcpy DtoH (Device -> Pinned)", "") "," COPY("Memcpy DtoD (Device -> Device)", "") "," COPY(
			       "Memcpy HtoH (Pinned -> Pageable)",
			       "") "," COPY("Memcpy PtoP (Device -> Device)",
					    ",'args':{'fromDevice':0,'inDevice':1,'toDevice':1,"
					    "'inContext':3,'stream':9}") "," COPY("Memcpy HtoA (Pageable -> Array)",
										  "") "," COPY("Memcpy AtoH (Array -> Pinned)",
											       "") "," COPY("Memcpy DtoD (Managed -> Device Static)",
													    "") "," COPY("Memcpy HtoD (Host -> Device)",
															 "") "," COPY("Memcpy DtoH",
																      "") "," COPY("Memcpy <unknown> (Unknown -> Unknown)",
																		   "") "," COPY("hipMemcpy",
																				",'args':{'kind':'DtoH','device':0,'stream':7}") "," COPY("Memcpy AtoD",
																											  "") "," COPY("Memcpy HtoDx (Pinned -> Device)",
																												       "") "]}"),
		GS_OK);
	assert_int_equal(r.nops, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < r.nops; i++) {
		const struct gs_op *op = &r.ops[i];

		if (op->copy_kind != want[i].ck || op->src_mem != want[i].src ||
		    op->dst_mem != want[i].dst)
			fail_msg("%s: %u %u %u, expected %u %u %u", rec_str(&r, op->name),
				 op->copy_kind, op->src_mem, op->dst_mem, want[i].ck, want[i].src,
				 want[i].dst);
	}
	/* The peer copy is on its "in" device and context. */
	assert_int_equal(stream_of(&r, r.ops[4].stream)->device, 1);
	assert_int_equal(stream_of(&r, r.ops[4].stream)->context, 3);
	assert_int_equal(stream_of(&r, r.ops[4].stream)->stream_id, 9);
	assert_int_equal(r.nwarns, 0);
	rec_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Syncs, event records, graph and async flags                              */
/* ------------------------------------------------------------------------ */

static void test_syncs(void **state)
{
	struct rec r;
	const struct gs_sync *y;

	(void)state;
	rec_init(&r);
	assert_int_equal(
		import(&r,
		       "{'traceEvents':["
		       "{'ph':'X','cat':'cuda_sync','name':'Stream Wait Event','pid':0,'tid':20,"
		       "'ts':100,'dur':3,'args':{'External id':5170,'cuda_sync_kind':'Stream Wait Event',"
		       "'wait_on_stream':7,'wait_on_cuda_event_record_corr_id':5169,"
		       "'wait_on_cuda_event_id':1,'stream':20,'correlation':5170,'device':0,"
		       "'context':1}},"
		       "{'ph':'X','cat':'cuda_runtime','name':'cudaStreamWaitEvent','pid':10,'tid':11,"
		       "'ts':99,'dur':5,'args':{'cbid':147,'correlation':5170}},"
		       "{'ph':'X','cat':'cuda_runtime','name':'cudaDeviceSynchronize','pid':10,'tid':12,"
		       "'ts':200,'dur':20,'args':{'cbid':165,'correlation':225}},"
		       "{'ph':'X','cat':'cuda_sync','name':'Context Sync','pid':0,'tid':-1,'ts':201,"
		       "'dur':9,'args':{'cuda_sync_kind':'Context Sync','stream':4294967295,"
		       "'correlation':225,'device':0,'context':1}},"
		       "{'ph':'X','cat':'cuda_sync','name':'Event Sync','pid':0,'tid':-1,'ts':300,"
		       "'dur':4,'args':{'cuda_sync_kind':'Event Sync','wait_on_stream':-1,"
		       "'wait_on_cuda_event_record_corr_id':-1,'wait_on_cuda_event_id':9,"
		       "'stream':-1,'correlation':24,'device':1,'context':1}},"
		       "{'ph':'X','cat':'cuda_sync','name':'Device Sync','pid':0,'tid':-1,'ts':400,"
		       "'dur':1,'args':{'correlation':30,'device':0}},"
		       "{'ph':'X','cat':'cuda_sync','name':'Stream Sync','pid':0,'tid':7,'ts':500,"
		       "'dur':1,'args':{'cuda_sync_kind':'Something New','stream':7,'device':0,"
		       "'context':1,'correlation':31}},"
		       "{'ph':'X','cat':'cuda_runtime','name':'cudaEventRecord','pid':10,'tid':11,"
		       "'ts':90,'dur':2,'args':{'cbid':135,'correlation':5169}},"
		       "{'ph':'X','cat':'cuda_runtime','name':'cudaEventRecordWithFlags','pid':10,"
		       "'tid':11,'ts':95,'dur':2,'args':{'correlation':5171}},"
		       "{'ph':'X','cat':'cuda_driver','name':'cuEventRecord','pid':10,"
		       "'tid':11,'ts':96,'dur':2,'args':{'correlation':5172}}"
		       "]}"),
		GS_OK);
	assert_int_equal(r.nsyncs, 5);
	y = sync_corr(&r, 5170);
	assert_int_equal(y->kind, GS_SYNC_STREAM_WAIT);
	assert_int_equal(stream_of(&r, y->stream)->stream_id, 20);
	assert_int_equal(stream_of(&r, y->stream)->context, 1);
	assert_int_equal(stream_of(&r, y->wait_on_stream)->stream_id, 7);
	assert_int_equal(y->event_correlation, 5169);
	assert_int_equal(y->event_id, 1);
	assert_int_equal(y->sync_id, GS_NO_SYNC_ID);
	assert_int_equal(y->pid, 10); /* the call came after */
	assert_int_equal(y->tid, 11);
	assert_int_equal(y->start_ns, 100000);
	assert_int_equal(y->end_ns, 103000);

	y = sync_corr(&r, 225);
	assert_int_equal(y->kind, GS_SYNC_CONTEXT);
	assert_int_equal(y->stream, GS_NO_INDEX); /* 4294967295 */
	assert_int_equal(y->wait_on_stream, GS_NO_INDEX);
	assert_int_equal(y->pid, 10); /* the call came before */
	assert_int_equal(y->tid, 12);

	y = sync_corr(&r, 24);
	assert_int_equal(y->kind, GS_SYNC_EVENT);
	assert_int_equal(y->stream, GS_NO_INDEX);
	assert_int_equal(y->wait_on_stream, GS_NO_INDEX);
	assert_int_equal(y->event_correlation, 0);
	assert_int_equal(y->event_id, 9);
	assert_int_equal(y->device, 1);
	assert_int_equal(y->pid, -1); /* no call in the trace */
	assert_int_equal(y->tid, -1);

	assert_int_equal(sync_corr(&r, 30)->kind, GS_SYNC_CONTEXT); /* by name */
	assert_int_equal(sync_corr(&r, 31)->kind, GS_SYNC_UNKNOWN);

	assert_int_equal(r.nevrecs, 3);
	assert_int_equal(r.evrecs[0].correlation, 5169);
	assert_int_equal(r.evrecs[0].time_ns, 90000);
	assert_int_equal(r.evrecs[0].stream, GS_NO_INDEX);
	assert_int_equal(r.evrecs[1].correlation, 5171);
	assert_int_equal(r.evrecs[2].correlation, 5172);
	assert_false(has_warning(&r, "no cuda_sync"));
	rec_free(&r);
}

#define KERNEL(name, corr, extra)                                                                  \
	"{'ph':'X','cat':'kernel','name':'" name "','pid':0,'tid':7,'ts':1,'dur':1,"               \
	"'args':{'device':0,'context':1,'stream':7,'correlation':" corr extra "}}"
#define CALL(name, corr)                                                                           \
	"{'ph':'X','cat':'cuda_runtime','name':'" name "','pid':9,'tid':9,'ts':1,'dur':1,"         \
	"'args':{'correlation':" corr "}}"

static void test_graph_and_async_flags(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	assert_int_equal(
		import(&r,
		       "{'traceEvents':[" KERNEL("g1", "100", "") "," KERNEL("g2", "100", "") "," KERNEL("g3", "100", "") "," CALL("cudaGraphLaunch", "100") "," KERNEL(
			       "plain", "101",
			       "") "," CALL("cudaLaunchKernel",
					    "101") ","
						   "{'ph':'X','cat':'gpu_memset','name':'Memset (Device)','pid':0,'tid':7,"
						   "'ts':1,'dur':1,'args':{'device':0,'stream':7,'correlation':102}}," CALL(
							   "cudaMemsetAsync",
							   "102") ","
								  "{'ph':'X','cat':'gpu_memcpy','name':'Memcpy DtoH (Device -> Pageable)',"
								  "'pid':0,'tid':7,'ts':1,'dur':1,'args':{'device':0,'stream':7,"
								  "'correlation':103}}," CALL("cudaMemcpy", "103") "," KERNEL(
									  "async_kernel", "104",
									  "") "," CALL("cudaLaunchKernelAsync",
										       "104") "," KERNEL("from_args",
													 "0",
													 ",'graph id':5,'graph node id':77") "," CALL("cuGraphLaunch",
																		      "105") "," KERNEL("after_call",
																					"105",
																					"") "]}"),
		GS_OK);
	assert_int_equal(r.nops, 9);
	assert_int_equal(op_named(&r, "g1")->flags, GS_OPF_GRAPH);
	assert_int_equal(op_named(&r, "g2")->flags, GS_OPF_GRAPH);
	assert_int_equal(op_named(&r, "g3")->flags, GS_OPF_GRAPH);
	assert_int_equal(op_named(&r, "plain")->flags, 0);
	assert_int_equal(op_named(&r, "Memset (Device)")->flags, GS_OPF_ASYNC);
	assert_int_equal(op_named(&r, "Memcpy DtoH (Device -> Pageable)")->flags, 0);
	assert_int_equal(op_named(&r, "async_kernel")->flags, 0); /* kernels are never ASYNC */
	assert_int_equal(op_named(&r, "from_args")->flags, GS_OPF_GRAPH);
	assert_int_equal(rec_launch(&r, op_named(&r, "from_args"))->graph_id, 5);
	assert_int_equal(op_named(&r, "from_args")->graph_node, 77);
	assert_int_equal(op_named(&r, "after_call")->flags, GS_OPF_GRAPH);
	rec_free(&r);
}

/* Graph ids keep their 64 bits: 2^32 and 2^32 + 1 are two graphs (the op
 * held 32 bits, and read them as 0 and 1). */
static void test_graph_ids_64_bits(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	assert_int_equal(
		import(&r, "{'traceEvents':[" KERNEL("a", "1", ",'graph id':4294967296") "," KERNEL(
				   "b", "2", ",'graphId':4294967297") "]}"),
		GS_OK);
	assert_int_equal(r.nops, 2);
	assert_int_equal(rec_launch(&r, op_named(&r, "a"))->graph_id, (1ull << 32));
	assert_int_equal(rec_launch(&r, op_named(&r, "b"))->graph_id, (1ull << 32) + 1);
	assert_int_equal(op_named(&r, "a")->flags, GS_OPF_GRAPH);
	rec_free(&r);
}

/* Ops wait for their call in a bounded window (4096 held back): beyond it
 * they are emitted without what the call would have told. */
static void test_join_window(void **state)
{
	enum {
		N = 5000
	};
	size_t cap = (size_t)N * 400 + 64, len = 0;
	char *doc = malloc(cap);
	struct rec r;
	size_t flagged = 0;

	(void)state;
	assert_non_null(doc);
	len += (size_t)snprintf(doc + len, cap - len, "{'traceEvents':[");
	for (int i = 1; i <= N; i++)
		len += (size_t)snprintf(doc + len, cap - len, KERNEL("k", "%d", "") ",", i);
	for (int i = 1; i <= N; i++)
		len += (size_t)snprintf(doc + len, cap - len, CALL("cudaGraphLaunch", "%d") "%s", i,
					i < N ? "," : "");
	snprintf(doc + len, cap - len, "]}");
	rec_init(&r);
	assert_int_equal(import(&r, doc), GS_OK);
	assert_int_equal(r.nops, N);
	assert_int_equal(r.napis, N);
	for (size_t i = 0; i < r.nops; i++) {
		if (r.ops[i].flags & GS_OPF_GRAPH) {
			flagged++;
			assert_true(r.ops[i].correlation > N - 4096);
		}
	}
	assert_int_equal(flagged, 4096);
	rec_free(&r);
	free(doc);
}

/* ------------------------------------------------------------------------ */
/* Strings, args                                                            */
/* ------------------------------------------------------------------------ */

static void test_escapes_and_nonfinite(void **state)
{
	static const char doc[] =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\\n\","
		"\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"x\":\"}]{[\"}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,"
		"\"dur\":1,\"args\":{\"device\":0,\"stream\":7,\"note\":\"NaN\","
		"\"memory bandwidth (GB/s)\":NaN,\"x\":-Infinity,\"y\":[Infinity]}},"
		"{\"ph\":\"X\",\"c\\u0061t\":\"cpu_op\",\"name\":\"escaped key\",\"pid\":1,"
		"\"tid\":1,\"ts\":1,\"dur\":1},"
		"{\"ph\":\"X\",\"cat\":\"cpu\\u005fop\",\"name\":\"escaped cat\",\"pid\":1,"
		"\"tid\":1,\"ts\":1,\"dur\":1},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"bad args\",\"pid\":0,\"tid\":7,"
		"\"ts\":1,\"dur\":1,\"args\":{\"device\":0,\"stream\":tru}}"
		"]}";
	struct rec r;

	(void)state;
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(doc, sizeof(doc) - 1, "t.json", NULL, &r.sink),
			 GS_OK);
	assert_int_equal(r.nranges, 2);
	assert_string_equal(rec_str(&r, r.ranges[0].name), "a\"b\\c\xc3\xa9\xf0\x9f\x98\x80\n");
	assert_string_equal(rec_str(&r, r.ranges[1].name), "escaped cat");
	assert_int_equal(r.nops, 1);
	assert_int_equal(warning(&r, "NaN or Infinity")->count, 1);
	/* A key spelled with an escape is not recognised; a value is. */
	assert_int_equal(warning(&r, "without a category")->count, 1);
	assert_int_equal(warning(&r, "not valid JSON")->count, 1);
	assert_int_equal(r.nwarns, 3);
	rec_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Containers: gzip, top-level array                                        */
/* ------------------------------------------------------------------------ */

static void test_gzip(void **state)
{
	size_t n, gzn, gzn2;
	char *plain = read_file(FIXTURE("new_style.json"), &n);
	unsigned char *gz = gzip_bytes(plain, n, &gzn);
	unsigned char *two, *part2;
	char path[64];
	struct rec r;

	(void)state;
	/* In memory. */
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(gz, gzn, "t.json.gz", NULL, &r.sink), GS_OK);
	check_new_style(&r);
	rec_free(&r);

	/* From a file. */
	write_temp(path, sizeof(path), gz, gzn);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto(path, NULL, &r.sink), GS_OK);
	check_new_style(&r);
	rec_free(&r);
	unlink(path);

	/* Two gzip members, the document split between them. */
	free(gz);
	gz = gzip_bytes(plain, n / 2, &gzn);
	part2 = gzip_bytes(plain + n / 2, n - n / 2, &gzn2);
	two = malloc(gzn + gzn2);
	assert_non_null(two);
	memcpy(two, gz, gzn);
	memcpy(two + gzn, part2, gzn2);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(two, gzn + gzn2, "t.json.gz", NULL, &r.sink), GS_OK);
	check_new_style(&r);
	rec_free(&r);

	/* The first member alone: the gzip is whole, the JSON is not. */
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(gz, gzn, "t.json.gz", NULL, &r.sink), GS_ERR_FORMAT);
	assert_error_has("t.json.gz: byte");
	assert_error_has("truncated JSON?");
	rec_free(&r);

	/* Cut inside the compressed data. */
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(two, gzn / 2, "t.json.gz", NULL, &r.sink),
			 GS_ERR_FORMAT);
	assert_error_has("t.json.gz: the gzip stream is truncated");
	rec_free(&r);

	/* Corrupt compressed data. */
	memset(two + 20, 0xA5, 40);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(two, gzn + gzn2, "t.json.gz", NULL, &r.sink),
			 GS_ERR_FORMAT);
	assert_error_has("t.json.gz: ");
	rec_free(&r);

	/* Garbage after the last member. */
	memcpy(two, gz, gzn);
	memcpy(two + gzn, "garbage", 7);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(two, gzn + 7, "t.json.gz", NULL, &r.sink),
			 GS_ERR_FORMAT);
	rec_free(&r);

	/* gzip that is not JSON. */
	free(gz);
	gz = gzip_bytes("hello, world\n", 13, &gzn);
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(gz, gzn, "t.json.gz", NULL, &r.sink), GS_ERR_FORMAT);
	assert_string_equal(last_error(),
			    "t.json.gz: byte 0: not JSON: a Chrome trace starts with '{' or '['");
	rec_free(&r);
	free(gz);
	free(part2);
	free(two);
	free(plain);
}

static void test_top_level_array(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	assert_int_equal(import(&r, " [ ] "), GS_OK);
	assert_int_equal(r.nops + r.nranges + r.nwarns, 0);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import(&r, "\xEF\xBB\xBF[" RANGE_TS("1", "2") "," RANGE_TS("3", "4") "]"),
			 GS_OK);
	assert_int_equal(r.nranges, 2);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import(&r, "{'traceEvents':[1,'x',[2],null,{'ph':'i'}],'a':{'b':[]}}"),
			 GS_OK);
	assert_int_equal(warning(&r, "not objects")->count, 4);
	rec_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

static void expect_format_error(const char *json, const char *msg)
{
	struct rec r;

	rec_init(&r);
	assert_int_equal(import(&r, json), GS_ERR_FORMAT);
	if (strcmp(last_error(), msg) != 0)
		fail_msg("error \"%s\", expected \"%s\"", last_error(), msg);
	rec_free(&r);
}

static void test_format_errors(void **state)
{
	(void)state;
	expect_format_error("", "t.json: empty file: no JSON data");
	expect_format_error(" \n\t ", "t.json: empty file: no JSON data");
	expect_format_error("hello",
			    "t.json: byte 0: not JSON: a Chrome trace starts with '{' or '['");
	expect_format_error("{}", "t.json: no \"traceEvents\" array: not a Chrome trace");
	expect_format_error("{'traceEvents':{}}", "t.json: byte 15: traceEvents is not an array");
	expect_format_error("{'traceEvents':[{'ph':'i'} {'ph':'i'}]}",
			    "t.json: byte 27: expected ',' or ']' in traceEvents");
	expect_format_error("{'traceEvents':[{'ph':'i'};{'ph':'i'}]}",
			    "t.json: byte 26: expected ',' or ']' in traceEvents");
	expect_format_error("{'traceEvents':[{'ph':'i'],'x':1}", "t.json: byte 25: unexpected ']'");
	expect_format_error("{'traceEvents':[]} x",
			    "t.json: byte 19: unexpected data after the JSON document");
	expect_format_error("{'traceEvents':[] 'x':1}",
			    "t.json: byte 18: expected ',' or '}' after a top-level member");
	expect_format_error("{'traceEvents' []}",
			    "t.json: byte 15: expected ':' after a member name");
	expect_format_error("{traceEvents: []}",
			    "t.json: byte 1: expected a member name in the top-level object");
	expect_format_error("{'traceEvents':[,]}", "t.json: byte 16: expected a value");
	expect_format_error("{'traceEvents':[{'ph':'i'},]}", "t.json: byte 27: expected a value");
	expect_format_error("{'traceEvents':[{'name':'abc",
			    "t.json: byte 16: the input ends inside this value (truncated JSON?)");
	expect_format_error("{'traceEvents':[{'name':'ab\\",
			    "t.json: byte 16: the input ends inside a string (truncated JSON?)");
	expect_format_error("{'traceEvents':[{'ph':'i'}",
			    "t.json: byte 26: the input ends inside traceEvents (truncated JSON?)");
	expect_format_error("{'traceEvents':[]",
			    "t.json: byte 17: the input ends inside the top-level object "
			    "(truncated JSON?)");
	expect_format_error("{'deviceProperties':[{'id':0,}],'traceEvents':[]}",
			    "t.json: byte 20: a top-level value is not valid JSON");
}

/* Every proper prefix of a good document is an error, never a crash. */
static void test_truncations(void **state)
{
	size_t n;
	char *doc = read_file(FIXTURE("new_style.json"), &n);
	size_t end = n;

	(void)state;
	while (end && (doc[end - 1] == '\n' || doc[end - 1] == ' '))
		end--;
	for (size_t len = 0; len < end; len++) {
		struct rec r;
		gs_status rc;

		rec_init(&r);
		gs_error_clear();
		rc = gs_import_kineto_mem(doc, len, "cut.json", NULL, &r.sink);
		if (rc != GS_ERR_FORMAT)
			fail_msg("prefix of %zu bytes: status %d", len, rc);
		assert_int_equal(strncmp(last_error(), "cut.json: ", 10), 0);
		rec_free(&r);
	}
	free(doc);
}

static void test_limits(void **state)
{
	struct gs_import_limits lim;
	struct rec r;
	char *big;
	size_t len;

	(void)state;
	/* Depth: the default (64) and a small one. */
	big = malloc(400);
	assert_non_null(big);
	len = (size_t)sprintf(big, "{'traceEvents':[{'args':");
	for (int i = 0; i < 70; i++)
		big[len++] = '[';
	for (int i = 0; i < 70; i++)
		big[len++] = ']';
	strcpy(big + len, "}]}");
	rec_init(&r);
	assert_int_equal(import(&r, big), GS_ERR_LIMIT);
	assert_error_has("JSON nested deeper than max_depth (64)");
	assert_error_has("t.json: byte 85: ");
	rec_free(&r);
	free(big);

	gs_import_limits_default(&lim);
	assert_int_equal(lim.max_depth, 64);
	assert_int_equal(lim.max_event_bytes, 16u << 20);
	assert_int_equal(lim.max_string_bytes, 1u << 20);
	assert_int_equal(lim.max_streams, 65536);
	assert_int_equal(lim.max_records, 1ull << 31);
	lim.max_depth = 4;
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[{'args':{'a':1}}]}", &lim), GS_OK);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[{'args':{'a':[1]}}]}", &lim),
			 GS_ERR_LIMIT);
	assert_string_equal(last_error(), "t.json: byte 29: JSON nested deeper than max_depth (4)");
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'x':[[[[[1]]]]],'traceEvents':[]}", &lim), GS_ERR_LIMIT);
	rec_free(&r);

	/* One event's size. */
	gs_import_limits_default(&lim);
	lim.max_event_bytes = 100;
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[" RANGE_TS("1", "1") "]}", &lim), GS_OK);
	assert_int_equal(r.nranges, 1);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(
		import_lim(&r,
			   "{'traceEvents':[{'ph':'X','cat':'cpu_op','name':'"
			   "0123456789012345678901234567890123456789012345678901234567890123"
			   "4567890123456789','pid':1,'tid':1,'ts':1,'dur':1}]}",
			   &lim),
		GS_ERR_LIMIT);
	assert_string_equal(last_error(),
			    "t.json: byte 16: value larger than max_event_bytes (100)");
	rec_free(&r);

	/* One string, anywhere (even in a skipped member). */
	gs_import_limits_default(&lim);
	lim.max_string_bytes = 12; /* "traceEvents" is a string too */
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[{'name':'012345678901'}]}", &lim), GS_OK);
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'traceEvents':[{'name':'0123456789012'}]}", &lim),
			 GS_ERR_LIMIT);
	assert_error_has("string longer than max_string_bytes (12)");
	rec_free(&r);
	rec_init(&r);
	assert_int_equal(import_lim(&r, "{'INFO':['0123456789abcdef'],'traceEvents':[]}", &lim),
			 GS_ERR_LIMIT);
	rec_free(&r);

	/* Streams and records. */
	gs_import_limits_default(&lim);
	lim.max_streams = 2;
	rec_init(&r);
	assert_int_equal(
		import_lim(
			&r,
			"{'traceEvents':[" KERNEL(
				"a", "0",
				"") ","
				    "{'ph':'X','cat':'kernel','name':'b','pid':0,'tid':8,'ts':1,'dur':1}," KERNEL(
					    "c", "0",
					    "") ","
						"{'ph':'X','cat':'kernel','name':'d','pid':0,'tid':9,'ts':1,'dur':1}"
						"]}",
			&lim),
		GS_ERR_LIMIT);
	assert_error_has("more than max_streams (2) streams");
	assert_int_equal(r.nops, 3);
	rec_free(&r);
	gs_import_limits_default(&lim);
	lim.max_records = 3;
	rec_init(&r);
	assert_int_equal(
		import_lim(&r,
			   "{'traceEvents':[" RANGE_TS("1", "1") "," RANGE_TS(
				   "1", "1") "," RANGE_TS("1", "1") "," RANGE_TS("1", "1") "]}",
			   &lim),
		GS_ERR_LIMIT);
	assert_string_equal(last_error(), "t.json: byte 220: more than max_records (3) records");
	assert_int_equal(r.nranges, 3);
	rec_free(&r);
}

/* Events and strings larger than the read buffer, values split anywhere. */
static void test_large_values(void **state)
{
	enum {
		NAME = 900 * 1024
	};
	size_t cap = 2 * (size_t)NAME + NAME / 50 + 4096, len = 0;
	char *doc = malloc(cap);
	struct rec r;

	(void)state;
	assert_non_null(doc);
	len += (size_t)sprintf(doc, "{\"INFO\": [\"");
	for (int i = 0; i < NAME; i++)
		doc[len++] = (char)(i % 64 == 63 ? '\\' : 'a' + i % 26);
	doc[len - 1] = 'z';
	len += (size_t)sprintf(doc + len, "\"], \"traceEvents\": [{\"ph\": \"X\", \"cat\": "
					  "\"cpu_op\", \"name\": \"");
	for (int i = 0; i < NAME; i++) {
		doc[len++] = i % 100 == 99 ? '\\' : 'x';
		if (i % 100 == 99)
			doc[len++] = 'n';
	}
	len += (size_t)sprintf(doc + len, "\", \"pid\": 1, \"tid\": 2, \"ts\": 3, \"dur\": 4}]}");
	rec_init(&r);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(doc, len, "big.json", NULL, &r.sink), GS_OK);
	assert_int_equal(r.nranges, 1);
	assert_int_equal(strlen(rec_str(&r, r.ranges[0].name)), NAME);
	assert_int_equal(rec_str(&r, r.ranges[0].name)[99], '\n');
	rec_free(&r);
	free(doc);
}

static gs_status fail_sink_warning(struct gs_sink *s, const char *msg, uint64_t count,
				   unsigned kind)
{
	(void)s;
	(void)msg;
	(void)count;
	(void)kind;
	gs_error_append("warning rejected");
	return GS_ERR_INVALID;
}

static void test_sink_errors(void **state)
{
	struct rec r;

	(void)state;
	rec_init(&r);
	r.fail_op_at = 2;
	assert_int_equal(
		import(&r, "{'traceEvents':[" KERNEL("a", "0", "") "," KERNEL("b", "0", "") "]}"),
		GS_ERR_NOMEM);
	assert_string_equal(last_error(), "t.json: byte 143: test sink: no room for op");
	rec_free(&r);
	rec_init(&r);
	r.sink.warning = fail_sink_warning;
	assert_int_equal(import(&r, "{'traceEvents':[{'ph':'X','cat':'zzz'}]}"), GS_ERR_INVALID);
	assert_error_has("warning rejected");
	rec_free(&r);
	/* A sink that keeps nothing. */
	{
		struct gs_sink none = {0};

		gs_error_clear();
		assert_int_equal(gs_import_kineto(FIXTURE("new_style.json"), NULL, &none), GS_OK);
	}
	gs_error_clear();
	assert_int_equal(gs_import_kineto(FIXTURE("no_such_file.json"), NULL, &r.sink), GS_ERR_IO);
	assert_error_has("no_such_file.json: cannot open: ");
}

/* ------------------------------------------------------------------------ */
/* Detection and loading                                                    */
/* ------------------------------------------------------------------------ */

static enum gs_input_format detect_bytes(const void *p, size_t n)
{
	char path[64];
	enum gs_input_format fmt;

	write_temp(path, sizeof(path), p, n);
	gs_error_clear();
	assert_int_equal(gs_detect_format(path, &fmt), GS_OK);
	assert_int_equal(gs_error_count(), 0);
	unlink(path);
	return fmt;
}

/* The one cause gs_trace_load gives for bytes it cannot load. */
static void load_fails(const void *p, size_t n, gs_status want, const char *why)
{
	char path[64], msg[256];
	struct gs_trace *t = NULL;

	write_temp(path, sizeof(path), p, n);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), want);
	assert_null(t);
	snprintf(msg, sizeof(msg), "%s: %s", path, why);
	assert_string_equal(last_error(), msg);
	assert_int_equal(gs_error_count(), 1);
	unlink(path);
}

/* GS_LOAD_SKIP_RANGES leaves out the host ranges and nothing else, for
 * both a Kineto file and the .gscope it converts to. */
static void counts_of(const char *path, unsigned flags, size_t n[4])
{
	struct gs_load_options lo = {.load_flags = flags};
	struct gs_trace *t = NULL;

	gs_error_clear();
	assert_int_equal(gs_trace_load(path, &lo, &t, NULL), GS_OK);
	gs_trace_ops(t, &n[0]);
	gs_trace_api_calls(t, &n[1]);
	gs_trace_syncs(t, &n[2]);
	gs_trace_ranges(t, &n[3]);
	gs_trace_destroy(t);
}

static void test_skip_ranges(void **state)
{
	char path[64];
	struct gs_trace *t = NULL;
	struct gs_writer *w = NULL;
	size_t all[4], some[4];
	int fd;

	(void)state;
	counts_of(FIXTURE("new_style.json"), 0, all);
	counts_of(FIXTURE("new_style.json"), GS_LOAD_SKIP_RANGES, some);
	assert_int_equal(all[3], 4);
	assert_int_equal(some[3], 0);
	assert_memory_equal(all, some, 3 * sizeof(all[0]));
	/* With GS_LOAD_KEEP_ANNOTATIONS: the user annotation and the GPU
	 * annotation stay, the cpu_op and the python_function go. */
	counts_of(FIXTURE("new_style.json"), GS_LOAD_SKIP_RANGES | GS_LOAD_KEEP_ANNOTATIONS, some);
	assert_int_equal(some[3], 2);
	assert_memory_equal(all, some, 3 * sizeof(all[0]));

	/* The same through the .gscope reader. */
	assert_int_equal(gs_trace_load(FIXTURE("new_style.json"), NULL, &t, NULL), GS_OK);
	snprintf(path, sizeof(path), "/tmp/gs_skip_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(gs_writer_open(path, NULL, &w), GS_OK);
	assert_int_equal(gs_trace_replay(t, gs_writer_borrow_sink(w)), GS_OK);
	assert_int_equal(gs_writer_close(w), GS_OK);
	gs_trace_destroy(t);
	counts_of(path, 0, all);
	counts_of(path, GS_LOAD_SKIP_RANGES, some);
	assert_int_equal(all[3], 4);
	assert_int_equal(some[3], 0);
	assert_memory_equal(all, some, 3 * sizeof(all[0]));
	unlink(path);
}

static void test_detect(void **state)
{
	unsigned char gscope[32] = "GSCOPE\0\0\1\0";
	static const char sqlite[] = "SQLite format 3\0\x10\0\x01\x01";
	static const char corrupt_gz[] = "\x1f\x8b\x08\x00garbage-garbage";
	size_t gzn;
	unsigned char *gz;
	enum gs_input_format fmt;

	(void)state;
	assert_int_equal(detect_bytes(gscope, sizeof(gscope)), GS_INPUT_GSCOPE);
	assert_int_equal(detect_bytes(sqlite, sizeof(sqlite)), GS_INPUT_NSYS);
	assert_int_equal(detect_bytes("\n  {\"traceEvents\": []}", 22), GS_INPUT_KINETO);
	assert_int_equal(detect_bytes("[]", 2), GS_INPUT_KINETO);
	assert_int_equal(detect_bytes("\xEF\xBB\xBF{", 4), GS_INPUT_KINETO);
	assert_int_equal(detect_bytes("", 0), GS_INPUT_UNKNOWN);
	assert_int_equal(detect_bytes("hello", 5), GS_INPUT_UNKNOWN);
	assert_int_equal(detect_bytes("   ", 3), GS_INPUT_UNKNOWN);
	gz = gzip_bytes(" [{}]", 5, &gzn);
	assert_int_equal(detect_bytes(gz, gzn), GS_INPUT_KINETO);
	free(gz);
	gz = gzip_bytes("hello", 5, &gzn);
	assert_int_equal(detect_bytes(gz, gzn), GS_INPUT_UNKNOWN);
	load_fails(gz, gzn, GS_ERR_FORMAT, "gzip data that is not JSON");
	free(gz);
	gz = gzip_bytes("  \n", 3, &gzn);
	load_fails(gz, gzn, GS_ERR_FORMAT, "gzip data that holds no JSON");
	free(gz);
	assert_int_equal(detect_bytes(corrupt_gz, sizeof(corrupt_gz) - 1), GS_INPUT_UNKNOWN);
	load_fails(corrupt_gz, sizeof(corrupt_gz) - 1, GS_ERR_FORMAT, "corrupt gzip data");
	load_fails("", 0, GS_ERR_FORMAT, "empty file");
	load_fails("   ", 3, GS_ERR_FORMAT, "only whitespace: no JSON data");
	load_fails("hello", 5, GS_ERR_FORMAT,
		   "not a recognised trace (expected .gscope, Kineto / Chrome-trace JSON, or an "
		   "Nsight Systems SQLite export)");
	load_fails(sqlite, sizeof(sqlite), GS_ERR_FORMAT,
		   "truncated SQLite database (21 bytes, shorter than its header)");

	assert_int_equal(gs_detect_format(FIXTURE("old_style.json"), &fmt), GS_OK);
	assert_int_equal(fmt, GS_INPUT_KINETO);
	gs_error_clear();
	assert_int_equal(gs_detect_format("/nonexistent/trace.json", &fmt), GS_ERR_IO);
	assert_error_has("/nonexistent/trace.json: cannot open");

	assert_string_equal(gs_input_format_name(GS_INPUT_GSCOPE), "gscope");
	assert_string_equal(gs_input_format_name(GS_INPUT_KINETO), "kineto");
	assert_string_equal(gs_input_format_name(GS_INPUT_NSYS), "nsys");
	assert_string_equal(gs_input_format_name(GS_INPUT_UNKNOWN), "unknown");
}

static void test_load(void **state)
{
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;
	struct gs_load_options opts = {0};
	size_t n, gzn;
	char path[64], msg[512];
	unsigned char *gz;

	(void)state;
	gs_error_clear();
	assert_int_equal(gs_trace_load(FIXTURE("new_style.json"), NULL, &t, &fmt), GS_OK);
	assert_int_equal(fmt, GS_INPUT_KINETO);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 3);
	gs_trace_api_calls(t, &n);
	assert_int_equal(n, 4);
	gs_trace_syncs(t, &n);
	assert_int_equal(n, 1);
	gs_trace_ranges(t, &n);
	assert_int_equal(n, 4);
	gs_trace_devices(t, &n);
	assert_int_equal(n, 2);
	gs_trace_processes(t, &n);
	assert_int_equal(n, 1);
	gs_trace_warnings(t, &n);
	assert_int_equal(n, 0);
	gs_trace_destroy(t);

	/* gzip through a file, with limits. */
	{
		size_t pn;
		char *plain = read_file(FIXTURE("old_style.json"), &pn);
		struct gs_import_limits lim;

		gz = gzip_bytes(plain, pn, &gzn);
		free(plain);
		write_temp(path, sizeof(path), gz, gzn);
		free(gz);
		gs_import_limits_default(&lim);
		opts.limits = &lim;
		assert_int_equal(gs_trace_load(path, &opts, &t, &fmt), GS_OK);
		assert_int_equal(fmt, GS_INPUT_KINETO);
		gs_trace_ops(t, &n);
		assert_int_equal(n, 3);
		gs_trace_event_records(t, &n);
		assert_int_equal(n, 1);
		gs_trace_destroy(t);
		lim.max_records = 2;
		gs_error_clear();
		assert_int_equal(gs_trace_load(path, &opts, &t, &fmt), GS_ERR_LIMIT);
		assert_null(t);
		unlink(path);
	}

	/* Formats that cannot be loaded, each with one clear cause. */
	write_temp(path, sizeof(path), "SQLite format 3\0rest", 20);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_ERR_FORMAT);
	assert_int_equal(fmt, GS_INPUT_NSYS);
	snprintf(msg, sizeof(msg), "%s: truncated SQLite database (20 bytes, %s)", path,
		 "shorter than its header");
	assert_string_equal(last_error(), msg);
	unlink(path);

	gz = gzip_bytes("not json", 8, &gzn);
	write_temp(path, sizeof(path), gz, gzn);
	free(gz);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_ERR_FORMAT);
	assert_int_equal(fmt, GS_INPUT_UNKNOWN);
	snprintf(msg, sizeof(msg), "%s: gzip data that is not JSON", path);
	assert_string_equal(last_error(), msg);
	unlink(path);

	write_temp(path, sizeof(path), "", 0);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_ERR_FORMAT);
	snprintf(msg, sizeof(msg), "%s: empty file", path);
	assert_string_equal(last_error(), msg);
	unlink(path);

	write_temp(path, sizeof(path), "{\"traceEvents\": [{\"ph\": \"X\"} {}]}", 33);
	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_ERR_FORMAT);
	snprintf(msg, sizeof(msg), "%s: byte 29: expected ',' or ']' in traceEvents", path);
	assert_string_equal(last_error(), msg);
	assert_int_equal(gs_error_count(), 1);
	unlink(path);
	assert_null(t);
}

/* Load JSON text through a file into a finished trace. */
static struct gs_trace *load_text(const char *json)
{
	char path[64];
	struct gs_trace *t = NULL;

	write_temp(path, sizeof(path), json, strlen(json));
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	unlink(path);
	return t;
}

#define CLOCK_EVENTS                                                                               \
	"\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "                  \
	"\"cudaLaunchKernel\", \"pid\": 7, \"tid\": 7, \"ts\": %s, \"dur\": 1, \"args\": "         \
	"{\"correlation\": 1}}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "                   \
	"\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\", \"pid\": 0, \"tid\": 13, \"ts\": %s, "       \
	"\"dur\": 5, \"args\": {\"device\": 0, \"stream\": 13, \"correlation\": 1, "               \
	"\"Collective name\": \"allreduce\", \"Process Group Name\": \"0\", \"Seq\": 41}}]"

/* The wall clock a trace declares, the backend and the collective's
 * sequence number. */
static void test_clock_backend_seq(void **state)
{
	char json[2048];
	struct gs_trace *t;
	const struct gs_process *p;
	const struct gs_collective *c;
	size_t n;

	(void)state;
	/* baseTimeNanoseconds after the events, every digit kept (a double
	 * would lose the last); backend from distributedInfo; Seq. */
	snprintf(
		json, sizeof(json),
		"{\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 2, \"world_size\": 4}, " CLOCK_EVENTS
		", \"baseTimeNanoseconds\": 1735632360000000001}",
		"4203669603018.756", "4203669603020");
	t = load_text(json);
	p = gs_trace_processes(t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(p->clock, GS_CLOCK_KINETO_BASE);
	assert_int_equal(p->wall_offset_ns, 1735632360000000001LL);
	assert_true(p->has_backend);
	assert_string_equal(gs_trace_string(t, p->backend), "nccl");
	gs_trace_collectives(t, &n);
	assert_int_equal(n, 1);
	c = gs_trace_collectives(t, &n);
	assert_true(c->has_seq);
	assert_int_equal(c->seq, 41);
	gs_trace_destroy(t);

	/* Epoch-us times without a base: epoch clock, offset 0; no Seq, no
	 * backend. */
	snprintf(json, sizeof(json), "{" CLOCK_EVENTS "}", "1707417525509335", "1707417525509340");
	{
		char *q = strstr(json, ", \"Seq\": 41");

		memmove(q, q + 11, strlen(q + 11) + 1);
	}
	t = load_text(json);
	p = gs_trace_processes(t, &n);
	assert_int_equal(p->clock, GS_CLOCK_EPOCH);
	assert_int_equal(p->wall_offset_ns, 0);
	assert_false(p->has_backend);
	c = gs_trace_collectives(t, &n);
	assert_false(c->has_seq);
	gs_trace_destroy(t);

	/* Times since boot, no base: not known. A base that is not a whole
	 * number is not one. */
	snprintf(json, sizeof(json), "{" CLOCK_EVENTS ", \"baseTimeNanoseconds\": 1.5e18}",
		 "1365627862757.064", "1365627862760");
	t = load_text(json);
	p = gs_trace_processes(t, &n);
	assert_int_equal(p->clock, GS_CLOCK_NONE);
	assert_int_equal(p->wall_offset_ns, 0);
	gs_trace_destroy(t);

	/* gpuscope's own export names its source. */
	snprintf(json, sizeof(json),
		 "{" CLOCK_EVENTS ", \"baseTimeNanoseconds\": -12, \"gpuscope_clock\": "
		 "\"nsys_session\"}",
		 "1000", "1002");
	t = load_text(json);
	p = gs_trace_processes(t, &n);
	assert_int_equal(p->clock, GS_CLOCK_NSYS_SESSION);
	assert_int_equal(p->wall_offset_ns, -12);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_style_file),
		cmocka_unit_test(test_old_style_file),
		cmocka_unit_test(test_rocm_file),
		cmocka_unit_test(test_time_text),
		cmocka_unit_test(test_bad_times),
		cmocka_unit_test(test_bad_ids),
		cmocka_unit_test(test_categories),
		cmocka_unit_test(test_copy_names),
		cmocka_unit_test(test_syncs),
		cmocka_unit_test(test_graph_and_async_flags),
		cmocka_unit_test(test_graph_ids_64_bits),
		cmocka_unit_test(test_join_window),
		cmocka_unit_test(test_escapes_and_nonfinite),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_top_level_array),
		cmocka_unit_test(test_format_errors),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_large_values),
		cmocka_unit_test(test_sink_errors),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_skip_ranges),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_clock_backend_seq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
