/* SPDX-License-Identifier: MIT */
/*
 * The Kineto importer on hand-written fixtures (tests/data/kineto/) and
 * inline documents: the fixture files, times, ids, categories, copies,
 * syncs, graph and async flags, the join window, strings. JSON written
 * inline uses ' for " (see jdup, kineto_rec.h) to stay readable.
 * Containers and errors: test_kineto_errors.c; detection and loading:
 * test_kineto_load.c.
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

#include "kineto_rec.h"

/* ------------------------------------------------------------------------ */
/* Fixtures                                                                 */
/* ------------------------------------------------------------------------ */

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
