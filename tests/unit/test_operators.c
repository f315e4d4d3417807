/* SPDX-License-Identifier: MIT */
/*
 * GPU time per host operator (gpuscope/operators.h) on a Kineto trace
 * written here: nested cpu_ops (an op counts at the innermost one open at
 * its launch call), two threads whose operators overlap in time (each op
 * goes to its own thread's), an op launched outside every operator, an op
 * with no launch call, an operator that launched nothing; the module level
 * (nn.Module python_function, else the outermost user annotation that is
 * not ProfilerStep#N); the window; and the report's JSON. Then NVTX ranges
 * as the operators of a .gscope file and of an Nsight export built from
 * the same list (sink_build.h, nsys_build.h). Every number is worked out
 * by hand.
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
#include <gpuscope/import.h>

#include "nsys_build.h"
#include "sink_build.h"

#define US 1000LL

/* Thread 10: aten::linear [100, 200) holds aten::addmm [110, 150), which
 * launches gemm (10 us) at 120 and a memset (2 us) at 130; linear launches
 * bias (3 us) at 160. aten::addmm [300, 340) launches gemm (10 us) at 310.
 * A launch at 400 (stray, 4 us) is in no cpu_op. aten::empty [500, 510)
 * launches nothing. Thread 20: aten::addmm [115, 170) (over thread 10's
 * launch at 160, which is not its own) launches gemm (6 us) at 140;
 * aten::mul [200, 220) a copy (10 us) at 210. The orphan kernel (2 us) has
 * no runtime call. Module ranges on thread 10 only: nn.Module: Linear_0
 * [90, 210) around a plain python_function, ## forward ## [50, 600) with
 * inner [300, 350) in it, all in ProfilerStep#1 [0, 2000). */
static const char trace_json[] =
	"{\"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
	"\"tid\":10,\"ts\":0,\"dur\":2000},\n"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"## forward ##\",\"pid\":1,"
	"\"tid\":10,\"ts\":50,\"dur\":550},\n"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"nn.Module: Linear_0\",\"pid\":1,"
	"\"tid\":10,\"ts\":90,\"dur\":120},\n"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"model.py(3): forward\",\"pid\":1,"
	"\"tid\":10,\"ts\":95,\"dur\":110},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":10,"
	"\"ts\":100,\"dur\":100},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":10,"
	"\"ts\":110,\"dur\":40},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
	"\"tid\":10,\"ts\":120,\"dur\":2,\"args\":{\"correlation\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemsetAsync\",\"pid\":1,"
	"\"tid\":10,\"ts\":130,\"dur\":2,\"args\":{\"correlation\":2}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
	"\"tid\":10,\"ts\":160,\"dur\":2,\"args\":{\"correlation\":3}},\n"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"inner\",\"pid\":1,"
	"\"tid\":10,\"ts\":300,\"dur\":50},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":10,"
	"\"ts\":300,\"dur\":40},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
	"\"tid\":10,\"ts\":310,\"dur\":2,\"args\":{\"correlation\":4}},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
	"\"tid\":10,\"ts\":400,\"dur\":2,\"args\":{\"correlation\":5}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":10,"
	"\"ts\":500,\"dur\":10},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":1,\"tid\":20,"
	"\"ts\":115,\"dur\":55},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
	"\"tid\":20,\"ts\":140,\"dur\":2,\"args\":{\"correlation\":6}},\n"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mul\",\"pid\":1,\"tid\":20,"
	"\"ts\":200,\"dur\":20},\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,"
	"\"tid\":20,\"ts\":210,\"dur\":2,\"args\":{\"correlation\":7}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":1000,"
	"\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,"
	"\"ts\":1010,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"bias\",\"pid\":0,\"tid\":7,\"ts\":1012,"
	"\"dur\":3,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":1020,"
	"\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":4}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"stray\",\"pid\":0,\"tid\":7,\"ts\":1030,"
	"\"dur\":4,\"args\":{\"device\":0,\"stream\":7,\"correlation\":5}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":8,\"ts\":1005,"
	"\"dur\":6,\"args\":{\"device\":0,\"stream\":8,\"correlation\":6}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\","
	"\"pid\":0,\"tid\":8,\"ts\":1040,\"dur\":10,\"args\":{\"device\":0,\"stream\":8,"
	"\"correlation\":7,\"bytes\":4096}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":1050,"
	"\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":99}}\n"
	"]}\n";

static struct gs_trace *load(void)
{
	struct gs_trace *t = NULL;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_import_kineto_mem(trace_json, strlen(trace_json), "ops.json", NULL,
					      gs_trace_borrow_sink(t)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

static void compute(const struct gs_trace *t, unsigned level, int64_t ws, int64_t we,
		    struct gs_operators *o)
{
	struct gs_op_index *ix = NULL;
	size_t n;

	assert_int_equal(gs_op_index_build(t, level, &ix), GS_OK);
	assert_int_equal(gs_operators_compute(t, ix, 0, ws, we, gs_trace_op_launches(t, &n), o),
			 GS_OK);
	gs_op_index_destroy(ix);
}

/* The row named `name` ("" for the outside row); fails when absent. */
static const struct gs_operator *row(const struct gs_trace *t, const struct gs_operators *o,
				     const char *name)
{
	for (size_t i = 0; i < o->n_rows; i++)
		if (*name ? !o->rows[i].outside &&
				    !strcmp(gs_trace_string(t, o->rows[i].name), name) :
			    o->rows[i].outside)
			return &o->rows[i];
	fail_msg("no operator row '%s'", name);
	return NULL;
}

static void check_row(const struct gs_trace *t, const struct gs_operators *o, const char *name,
		      uint64_t calls, uint64_t total, uint64_t kernels, uint64_t copies,
		      int64_t kernel_ns, int64_t copy_ns)
{
	const struct gs_operator *r = row(t, o, name);
	uint64_t n = 0;
	int64_t ns = 0;

	assert_int_equal(r->calls, calls);
	assert_int_equal(r->total_calls, total);
	assert_int_equal(r->kernels, kernels);
	assert_int_equal(r->copies, copies);
	assert_int_equal(r->kernel_ns, kernel_ns);
	assert_int_equal(r->copy_ns, copy_ns);
	assert_int_equal(r->ns, kernel_ns + copy_ns);
	for (size_t k = 0; k < r->n_ops_by_name; k++) {
		n += r->ops_by_name[k].count;
		ns += r->ops_by_name[k].ns;
		if (k)
			assert_true(r->ops_by_name[k - 1].ns >= r->ops_by_name[k].ns);
	}
	assert_int_equal(n, kernels + copies);
	assert_int_equal(ns, r->ns);
}

static void test_operator_level(void **state)
{
	struct gs_trace *t = load();
	struct gs_operators o;
	int64_t first, last;
	const struct gs_operator *mm;

	(void)state;
	gs_trace_op_span(t, &first, &last);
	compute(t, GS_OP_LEVEL_OPERATOR, first, last, &o);
	assert_int_equal(o.level, GS_OP_LEVEL_OPERATOR);
	assert_int_equal(o.ranges, 6); /* the cpu_ops */
	assert_int_equal(o.ops, 7);
	assert_int_equal(o.ns, 45 * US);
	assert_int_equal(o.unlinked_ops, 1);
	assert_int_equal(o.unlinked_ns, 2 * US);
	assert_int_equal(o.n_rows, 4); /* aten::empty launched nothing */
	/* ranked: addmm 28 us, mul 10, no operator 4, linear 3 */
	assert_string_equal(gs_trace_string(t, o.rows[0].name), "aten::addmm");
	assert_string_equal(gs_trace_string(t, o.rows[1].name), "aten::mul");
	assert_true(o.rows[2].outside);
	assert_string_equal(gs_trace_string(t, o.rows[3].name), "aten::linear");
	/* three calls on two threads; thread 20's addmm does not take
	 * thread 10's launch at 160 */
	check_row(t, &o, "aten::addmm", 3, 3, 3, 1, 26 * US, 2 * US);
	check_row(t, &o, "aten::linear", 1, 1, 1, 0, 3 * US, 0);
	check_row(t, &o, "aten::mul", 1, 1, 0, 1, 0, 10 * US);
	check_row(t, &o, "", 0, 0, 1, 0, 4 * US, 0);
	mm = row(t, &o, "aten::addmm");
	assert_int_equal(mm->n_ops_by_name, 2);
	assert_string_equal(gs_trace_string(t, mm->ops_by_name[0].name), "gemm");
	assert_int_equal(mm->ops_by_name[0].count, 3);
	assert_int_equal(mm->ops_by_name[0].ns, 26 * US);
	assert_int_equal(mm->ops_by_name[1].kind, GS_OP_MEMSET);
	assert_int_equal(row(t, &o, "")->ops_by_name[0].ns, 4 * US);
	gs_operators_fini(&o);
	gs_trace_destroy(t);
}

static void test_module_level(void **state)
{
	struct gs_trace *t = load();
	struct gs_operators o;
	int64_t first, last;

	(void)state;
	gs_trace_op_span(t, &first, &last);
	compute(t, GS_OP_LEVEL_MODULE, first, last, &o);
	assert_int_equal(o.level, GS_OP_LEVEL_MODULE);
	/* nn.Module: Linear_0, ## forward ##, inner (not ProfilerStep#1, not
	 * the plain python_function) */
	assert_int_equal(o.ranges, 3);
	assert_int_equal(o.ops, 7);
	assert_int_equal(o.ns, 45 * US);
	assert_int_equal(o.n_rows, 3);
	/* thread 20 has no module range: its gemm and copy are outside */
	assert_true(o.rows[0].outside);
	check_row(t, &o, "", 0, 0, 1, 1, 6 * US, 10 * US);
	check_row(t, &o, "nn.Module: Linear_0", 1, 1, 2, 1, 13 * US, 2 * US);
	/* the launches at 310 (in inner) and 400 go to the outermost */
	check_row(t, &o, "## forward ##", 1, 1, 2, 0, 14 * US, 0);
	gs_operators_fini(&o);
	gs_trace_destroy(t);
}

/* A window [1008, 1025) us: ops overlapping it, cut to it. */
static void test_window(void **state)
{
	struct gs_trace *t = load();
	struct gs_operators o;
	int64_t first, last;

	(void)state;
	gs_trace_op_span(t, &first, &last);
	compute(t, GS_OP_LEVEL_OPERATOR, first + 8 * US, first + 25 * US, &o);
	/* gemm [1000, 1010) -> 2, memset 2, bias 3, gemm [1020, 1030) -> 5,
	 * thread 20's gemm [1005, 1011) -> 3: all at aten::addmm but bias */
	assert_int_equal(o.ops, 5);
	assert_int_equal(o.ns, 15 * US);
	assert_int_equal(o.n_rows, 2);
	check_row(t, &o, "aten::addmm", 3, 3, 3, 1, 10 * US, 2 * US);
	check_row(t, &o, "aten::linear", 1, 1, 1, 0, 3 * US, 0);
	gs_operators_fini(&o);
	gs_trace_destroy(t);
}

/* No range that can be an operator: nothing computed. */
static void test_no_ranges(void **state)
{
	static const char json[] =
		"{\"traceEvents\": [\n"
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
		"\"tid\":10,\"ts\":120,\"dur\":2,\"args\":{\"correlation\":1}},\n"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":1000,"
		"\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}\n"
		"]}\n";
	struct gs_trace *t = NULL;
	struct gs_operators o;

	(void)state;
	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_import_kineto_mem(json, strlen(json), "k.json", NULL,
					      gs_trace_borrow_sink(t)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	compute(t, GS_OP_LEVEL_OPERATOR, 0, INT64_MAX, &o);
	assert_int_equal(o.ranges, 0);
	assert_int_equal(o.ops, 0);
	assert_int_equal(o.n_rows, 0);
	gs_operators_fini(&o);
	gs_trace_destroy(t);
}

/* The report's JSON: the operators object of device 0, at each level. */
static void test_report_json(void **state)
{
	struct gs_trace *t = load();

	(void)state;
	for (int level = 0; level < GS_OP_LEVEL_COUNT; level++) {
		/* The whole trace: its one ProfilerStep would be the window. */
		struct gs_report_options ro = {.op_level = level, .steps = {.pick = GS_STEP_NONE}};
		struct gs_report *r = NULL;
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		assert_int_equal(gs_report_build(t, &ro, &r), GS_OK);
		assert_int_equal(gs_report_write_json(f, r, NULL), GS_OK);
		fclose(f);
		assert_non_null(strstr(buf, "\"operators\": {"));
		assert_non_null(
			strstr(buf, level ? "\"level\": \"module\"" : "\"level\": \"operator\""));
		assert_non_null(strstr(buf, "\"gpu_ns\": 45000,"));
		assert_non_null(strstr(buf, "\"unlinked_ops\": 1,"));
		assert_non_null(strstr(buf, "\"name\": \"(no operator)\""));
		if (!level)
			assert_non_null(strstr(buf, "\"name\": \"aten::addmm\",\n"));
		free(buf);
		gs_report_destroy(r);
	}
	gs_trace_destroy(t);
}

/* ---- NVTX ranges as operators: a .gscope file and an Nsight export ------ */

#define NV_T0 1000000000LL /* 1 s, in ns */

/*
 * NVTX ranges (times in us after NV_T0). Thread 1: train [0, 1000) holds
 * forward [100, 400), which holds linear [150, 250); two more linear
 * [500, 600) and [800, 850) (the last launches nothing); block [1200,
 * 1500) holds a block [1250, 1300); a [2000, 2100) and b [2000, 2050)
 * start together (b, the shorter, is the inner); x [3000, 3100) and y
 * [3050, 3200) cross (start/end ranges can). Thread 2: loader [50, 300),
 * over thread 1's ranges in time.
 */
static const struct nsb_nvtx nv_ranges[] = {
	{1, "train", 0, 1000, false},    {1, "forward", 100, 400, false},
	{1, "linear", 150, 250, false},  {1, "linear", 500, 600, false},
	{1, "linear", 800, 850, false},  {1, "block", 1200, 1500, false},
	{1, "block", 1250, 1300, false}, {1, "a", 2000, 2100, false},
	{1, "b", 2000, 2050, false},     {2, "loader", 50, 300, false},
	{1, "x", 3000, 3100, true},      {1, "y", 3050, 3200, true},
};

/* The ops, by their launch call (us after NV_T0) and where it lands:
 * linear: gemm 10 and a copy 4, then gemm 10; forward: act 3 and fstart
 * 13 (its call at forward's very start); train: upd 5; block: inner 6
 * (the inner block) and outer 7 (the outer); b: kb 1; a: ka 8; loader:
 * load 11 (thread 2's); outside: stray 2, edge 9 (its call where a
 * ends), t2out 12 (thread 2 past loader); x: kx 2; y (the later start
 * while both are open): ky1 3 and ky2 4; orphan 20 has no call. */
static const struct nsb_op nv_ops[] = {
	{1, 160, false, "gemm", 5000, 5010},   {1, 200, true, "copy", 5000, 5004},
	{1, 300, false, "act", 5010, 5013},    {1, 510, false, "gemm", 5020, 5030},
	{1, 700, false, "upd", 5030, 5035},    {1, 1100, false, "stray", 5040, 5042},
	{1, 1260, false, "inner", 5050, 5056}, {1, 1400, false, "outer", 5060, 5067},
	{1, 2010, false, "kb", 5070, 5071},    {1, 2060, false, "ka", 5080, 5088},
	{1, 2100, false, "edge", 5090, 5099},  {2, 120, false, "load", 5100, 5111},
	{2, 400, false, "t2out", 5120, 5132},  {1, 100, false, "fstart", 5140, 5153},
	{1, -1, false, "orphan", 5160, 5180},  {1, 3020, false, "kx", 5200, 5202},
	{1, 3070, false, "ky1", 5210, 5213},   {1, 3150, false, "ky2", 5220, 5224},
};

#define NV_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static long long nv_ns(long long us)
{
	return NV_T0 + us * US;
}

static void fill_nvtx(struct sb *b, void *arg)
{
	(void)arg;
	for (int i = 0; i < NV_N(nv_ranges); i++)
		sb_range(b, nv_ranges[i].tid, GS_RANGE_NVTX, nv_ranges[i].name,
			 nv_ns(nv_ranges[i].start), nv_ns(nv_ranges[i].end));
	for (int i = 0; i < NV_N(nv_ops); i++) {
		const struct nsb_op *o = &nv_ops[i];

		sb_op(b, o->tid, o->call < 0 ? -1 : nv_ns(o->call), o->copy ? 1 : 0,
		      o->copy ? GS_OP_MEMCPY : GS_OP_KERNEL, o->name, nv_ns(o->start),
		      nv_ns(o->end));
	}
}

static struct gs_trace *nsys_nvtx(void)
{
	struct nsb_nvtx r[NV_N(nv_ranges)];
	struct nsb_op o[NV_N(nv_ops)];
	char path[] = "/tmp/gs_ops_nvtx_XXXXXX";
	int fd = mkstemp(path);
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;

	assert_true(fd >= 0);
	close(fd);
	for (int i = 0; i < NV_N(nv_ranges); i++) {
		r[i] = nv_ranges[i];
		r[i].start = nv_ns(r[i].start);
		r[i].end = nv_ns(r[i].end);
	}
	for (int i = 0; i < NV_N(nv_ops); i++) {
		o[i] = nv_ops[i];
		o[i].call = o[i].call < 0 ? -1 : nv_ns(o[i].call);
		o[i].start = nv_ns(o[i].start);
		o[i].end = nv_ns(o[i].end);
	}
	assert_int_equal(nsys_build_nvtx(path, r, NV_N(r), o, NV_N(o)), 0);
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_OK);
	unlink(path);
	assert_int_equal(fmt, GS_INPUT_NSYS);
	return t;
}

/* The GPU time of the device's ops with a launch call, from the trace. */
static int64_t launched_ns(const struct gs_trace *t, uint64_t *n)
{
	size_t n_ops, n_launch, n_calls;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const uint32_t *launch = gs_trace_op_launches(t, &n_launch);
	int64_t ns = 0;

	gs_trace_api_calls(t, &n_calls);
	*n = 0;
	for (size_t i = 0; i < n_ops && i < n_launch; i++)
		if (launch[i] < n_calls) {
			ns += ops[i].end_ns - ops[i].start_ns;
			(*n)++;
		}
	return ns;
}

/* The rows add up to the launched GPU time, each op counted once. */
static void check_sums(const struct gs_trace *t, const struct gs_operators *o)
{
	uint64_t n_launched, ops = 0;
	int64_t ns = 0, want = launched_ns(t, &n_launched);

	for (size_t i = 0; i < o->n_rows; i++) {
		ns += o->rows[i].ns;
		ops += o->rows[i].kernels + o->rows[i].copies;
		if (!o->rows[i].outside)
			assert_int_equal(o->rows[i].source, GS_RANGE_NVTX);
	}
	assert_int_equal(ns, want);
	assert_int_equal(ns, o->ns);
	assert_int_equal(ops, n_launched);
	assert_int_equal(ops, o->ops);
}

static void check_nvtx(struct gs_trace *t)
{
	struct gs_operators o;
	int64_t first, last;

	gs_trace_op_span(t, &first, &last);
	compute(t, GS_OP_LEVEL_OPERATOR, first, last, &o);
	assert_int_equal(o.ranges, 12);
	assert_int_equal(o.ops, 17);
	assert_int_equal(o.ns, 110 * US);
	assert_int_equal(o.unlinked_ops, 1);
	assert_int_equal(o.unlinked_ns, 20 * US);
	assert_int_equal(o.n_rows, 10);
	check_sums(t, &o);
	/* each op at the innermost range open at its call */
	check_row(t, &o, "linear", 2, 3, 2, 1, 20 * US, 4 * US);
	check_row(t, &o, "forward", 1, 1, 2, 0, 16 * US, 0);
	check_row(t, &o, "train", 1, 1, 1, 0, 5 * US, 0);
	check_row(t, &o, "block", 2, 2, 2, 0, 13 * US, 0);
	check_row(t, &o, "b", 1, 1, 1, 0, 1 * US, 0);
	check_row(t, &o, "a", 1, 1, 1, 0, 8 * US, 0);
	check_row(t, &o, "loader", 1, 1, 1, 0, 11 * US, 0);
	check_row(t, &o, "x", 1, 1, 1, 0, 2 * US, 0);
	check_row(t, &o, "y", 1, 1, 2, 0, 7 * US, 0);
	check_row(t, &o, "", 0, 0, 3, 0, 23 * US, 0);
	/* ranked by time: linear 24, outside 23, forward 16, block 13, ... */
	assert_string_equal(gs_trace_string(t, o.rows[0].name), "linear");
	assert_true(o.rows[1].outside);
	assert_string_equal(gs_trace_string(t, o.rows[2].name), "forward");
	assert_string_equal(gs_trace_string(t, o.rows[9].name), "b");
	gs_operators_fini(&o);

	/* module level: the outermost NVTX range (ky1's call: x, open since
	 * earlier) */
	compute(t, GS_OP_LEVEL_MODULE, first, last, &o);
	assert_int_equal(o.ranges, 12);
	assert_int_equal(o.n_rows, 7);
	check_sums(t, &o);
	check_row(t, &o, "train", 1, 1, 5, 1, 41 * US, 4 * US);
	check_row(t, &o, "block", 1, 2, 2, 0, 13 * US, 0);
	check_row(t, &o, "a", 1, 1, 2, 0, 9 * US, 0);
	check_row(t, &o, "loader", 1, 1, 1, 0, 11 * US, 0);
	check_row(t, &o, "x", 1, 1, 2, 0, 5 * US, 0);
	check_row(t, &o, "y", 1, 1, 1, 0, 4 * US, 0);
	check_row(t, &o, "", 0, 0, 3, 0, 23 * US, 0);
	gs_operators_fini(&o);
}

/* The report's JSON of the same trace: the same sums. */
static void check_nvtx_json(struct gs_trace *t)
{
	struct gs_report_options ro = {.steps = {.pick = GS_STEP_NONE}};
	struct gs_report *r = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(gs_report_build(t, &ro, &r), GS_OK);
	assert_int_equal(gs_report_write_json(f, r, NULL), GS_OK);
	fclose(f);
	assert_non_null(strstr(buf, "\"gpu_ns\": 110000,"));
	assert_non_null(strstr(buf, "\"unlinked_ops\": 1,"));
	assert_non_null(strstr(buf, "\"name\": \"linear\",\n"));
	free(buf);
	gs_report_destroy(r);
}

static void test_nvtx_gscope(void **state)
{
	struct gs_trace *t = sb_gscope(fill_nvtx, NULL);

	(void)state;
	check_nvtx(t);
	check_nvtx_json(t);
	gs_trace_destroy(t);
}

static void test_nvtx_nsys(void **state)
{
	struct gs_trace *t = nsys_nvtx();

	(void)state;
	check_nvtx(t);
	check_nvtx_json(t);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operator_level), cmocka_unit_test(test_module_level),
		cmocka_unit_test(test_window),         cmocka_unit_test(test_no_ranges),
		cmocka_unit_test(test_report_json),    cmocka_unit_test(test_nvtx_gscope),
		cmocka_unit_test(test_nvtx_nsys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
