/* SPDX-License-Identifier: MIT */
/*
 * The exporters (gpuscope/export.h) and their analyzer glue: Chrome trace
 * JSON (escaping, exact µs from integer ns, metadata and sort indices,
 * flows paired, overflow tracks for ops that overlap and host events that
 * do not nest, counters, the ideal schedule, gzip, streaming to a failing
 * output) and its read-back by gpuscope's own Kineto importer with the
 * same ops and counts; CSV (header, every field, RFC 4180 quoting, ideal
 * columns, segments). Jobs: test_export_job.c (helpers: export_test.h).
 *
 * Traces are built record by record through the trace's sink, or read from
 * small Kineto texts; times in ns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include <cJSON.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/export.h>
#include <gpuscope/import.h>

#include "export_test.h"
#include "tb_build.h"

/* ---- Chrome: layout ------------------------------------------------------- */

static void test_metadata_and_layout(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic();
	struct mem m = chrome_full(t, false);
	cJSON *doc, *ev = events_of(&m, &doc);
	const cJSON *e, *a;

	/* The host process keeps its pid and gets its command line, a label
	 * and a sort index; the device gets pid 0 (its id) and "GPU 0: name". */
	a = meta_arg(ev, "process_name", 100, -1);
	assert_non_null(a);
	assert_string_equal(a->valuestring, "python train.py");
	assert_string_equal(meta_arg(ev, "process_labels", 100, -1)->valuestring, "CPU");
	assert_int_equal(meta_arg(ev, "process_sort_index", 100, -1)->valueint, 0);
	assert_string_equal(meta_arg(ev, "process_name", 0, -1)->valuestring, "GPU 0: Test GPU");
	assert_string_equal(meta_arg(ev, "process_labels", 0, -1)->valuestring, "GPU 0");
	assert_int_equal(meta_arg(ev, "process_sort_index", 0, -1)->valueint, 1);
	/* Stream 7 is tid 7; the overflow track of k2 comes right after it. */
	assert_string_equal(meta_arg(ev, "thread_name", 0, 7)->valuestring, "stream 7");
	assert_int_equal(meta_arg(ev, "thread_sort_index", 0, 7)->valueint, 0);
	assert_string_equal(meta_arg(ev, "thread_name", 0, 8)->valuestring,
			    "stream 7: overlapping ops (1)");
	assert_int_equal(meta_arg(ev, "thread_sort_index", 0, 8)->valueint, 1);
	assert_string_equal(meta_arg(ev, "thread_name", 100, 100)->valuestring, "thread 100");
	assert_string_equal(meta_arg(ev, "thread_name", 100, 101)->valuestring,
			    "thread 100: calls and ranges that do not nest (1)");

	/* Ops: Kineto categories and args, k2 on the overflow track. */
	e = find_ev(ev, "X", "k1");
	assert_non_null(e);
	assert_string_equal(sget(e, "cat"), "kernel");
	assert_int_equal(nget(e, "pid"), 0);
	assert_int_equal(nget(e, "tid"), 7);
	a = cJSON_GetObjectItemCaseSensitive(e, "args");
	assert_int_equal(nget(a, "device"), 0);
	assert_int_equal(nget(a, "stream"), 7);
	assert_int_equal(nget(a, "correlation"), 11);
	assert_int_equal(nget(a, "registers per thread"), 32);
	assert_int_equal(nget(a, "shared memory"), 1024);
	assert_int_equal(
		cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "grid"), 0)->valueint, 4);
	assert_int_equal(nget(find_ev(ev, "X", "k2"), "tid"), 8);
	e = find_ev(ev, "X", "Memcpy HtoD (Pinned -> Device)");
	assert_string_equal(sget(e, "cat"), "gpu_memcpy");
	assert_int_equal(nget(e, "tid"), 7); /* after the overlap: main track again */
	a = cJSON_GetObjectItemCaseSensitive(e, "args");
	assert_int_equal(nget(a, "bytes"), 4096);
	assert_string_equal(sget(a, "src memory"), "pinned");
	/* "late" straddles the end of "step": overflow; calls stay on tid 100. */
	assert_int_equal(nget(find_ev(ev, "X", "step"), "tid"), 100);
	assert_int_equal(nget(find_ev(ev, "X", "late"), "tid"), 101);
	assert_string_equal(sget(find_ev(ev, "X", "cudaLaunchKernel"), "cat"), "cuda_runtime");
	assert_int_equal(nget(find_ev(ev, "X", "cudaLaunchKernel"), "tid"), 100);
	/* Counters: one per breakdown segment plus the closing one. */
	e = find_ev(ev, "C", "breakdown");
	assert_non_null(e);
	a = cJSON_GetObjectItemCaseSensitive(e, "args");
	assert_int_equal(nget(a, "kernel"), 1);
	assert_int_equal(nget(a, "idle"), 0);
	cJSON_Delete(doc);
	free(m.buf);
	gs_trace_destroy(t);
}

/* ts and dur written from integer ns: three decimals, never a double. */
static void test_exact_microseconds(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s = tb_stream(&b, 0, 0, 3);
	struct gs_trace *t;
	struct mem m;

	tb_kernel(&b, s, "a", 1700000000123456789LL, 1700000000123456790LL, 0);
	tb_kernel(&b, s, "b", 2000, 5000, 0);   /* whole µs: no fraction */
	tb_kernel(&b, s, "c", -1500, -20, 0);   /* before the epoch */
	tb_kernel(&b, s, "d", 30050, 30050, 0); /* zero length */
	t = tb_done(&b);
	m = chrome_of(t, NULL, NULL);
	assert_non_null(strstr(m.buf, "\"name\":\"a\",\"pid\":0,\"tid\":3,"
				      "\"ts\":1700000000123456.789,\"dur\":0.001"));
	assert_non_null(strstr(m.buf, "\"name\":\"b\",\"pid\":0,\"tid\":3,\"ts\":2,\"dur\":3,"));
	assert_non_null(strstr(m.buf, "\"name\":\"c\",\"pid\":0,\"tid\":3,\"ts\":-1.500,"
				      "\"dur\":1.480,"));
	assert_non_null(
		strstr(m.buf, "\"name\":\"d\",\"pid\":0,\"tid\":3,\"ts\":30.050,\"dur\":0,"));
	free(m.buf);
	gs_trace_destroy(t);
}

/* Names with quotes, backslashes, control bytes and bad UTF-8. */
static void test_escaping(void **state)
{
	(void)state;
	static const char weird[] = "k<\"q\"\\ \t\n\x01 \xe2\x9c\x93 \xff\xc0 end>";
	struct tb b = tb_new();
	uint32_t s = tb_stream(&b, 0, 0, 1);
	struct gs_trace *t;
	cJSON *doc, *ev;
	struct mem m;

	tb_kernel(&b, s, weird, 1000, 2000, 0);
	t = tb_done(&b);
	m = chrome_of(t, NULL, NULL);
	assert_non_null(strstr(m.buf, "\"k<\\\"q\\\"\\\\ \\t\\n\\u0001 \xe2\x9c\x93 "
				      "\\ufffd\\ufffd end>\""));
	ev = events_of(&m, &doc);
	assert_non_null(
		find_ev(ev, "X", "k<\"q\"\\ \t\n\x01 \xe2\x9c\x93 \xef\xbf\xbd\xef\xbf\xbd end>"));
	cJSON_Delete(doc);
	free(m.buf);
	gs_trace_destroy(t);
}

/* Every flow has one "s" and one "f" with the same id, cat and name; the
 * "f" binds to its enclosing slice. Launch flows join by correlation when
 * the extras give no launches. */
static void test_flows_paired(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic();
	struct mem full = chrome_full(t, false), bare = chrome_of(t, NULL, NULL);
	struct mem *ms[2] = {&full, &bare};
	int launch_flows[2] = {0, 0}, dep_flows[2] = {0, 0};

	for (int k = 0; k < 2; k++) {
		cJSON *doc, *ev = events_of(ms[k], &doc);
		const cJSON *e, *g;

		cJSON_ArrayForEach(e, ev)
		{
			int s = 0, f = 0;

			if (strcmp(sget(e, "ph"), "s"))
				continue;
			cJSON_ArrayForEach(g, ev)
			{
				if (!cJSON_HasObjectItem(g, "id") || nget(g, "id") != nget(e, "id"))
					continue;
				if (!strcmp(sget(g, "ph"), "s"))
					s++;
				if (!strcmp(sget(g, "ph"), "f")) {
					f++;
					assert_string_equal(sget(g, "bp"), "e");
					assert_string_equal(sget(g, "cat"), sget(e, "cat"));
					assert_string_equal(sget(g, "name"), sget(e, "name"));
				}
			}
			assert_int_equal(s, 1);
			assert_int_equal(f, 1);
			if (!strcmp(sget(e, "cat"), "ac2g"))
				launch_flows[k]++;
			else
				dep_flows[k]++;
		}
		cJSON_Delete(doc);
	}
	assert_int_equal(launch_flows[0], 3);
	assert_int_equal(launch_flows[1], 3); /* joined by correlation id */
	assert_true(dep_flows[0] >= 2);       /* k1 -> k2 -> copy on stream 7 */
	assert_int_equal(dep_flows[1], 0);    /* no edges given */
	/* The launch flow of k2 starts 1 ns into its call, on the thread. */
	assert_non_null(strstr(full.buf, "{\"ph\":\"s\",\"id\":2,\"pid\":100,\"tid\":100,"
					 "\"ts\":1700000000123460.790,\"cat\":\"ac2g\""));
	free(full.buf);
	free(bare.buf);
	gs_trace_destroy(t);
}

/* Count of the dependency flows ("s" events of cat "dependency"). */
static size_t dependency_flows(const struct mem *m)
{
	size_t n = 0;

	for (char *p = m->buf; (p = strstr(p, "{\"ph\":\"s\",")) != NULL; p++) {
		char *end = strchr(p, '}');

		assert_non_null(end);
		*end = '\0'; /* the event alone */
		n += strstr(p, "\"cat\":\"dependency\"") != NULL;
		*end = '}';
	}
	return n;
}

/* --max-flows: the first N dependency flows are written, the count left
 * out is in the header and in the stats; by default 2^21 at most. */
static void test_max_flows(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic();
	size_t n_big = (size_t)GS_EXPORT_MAX_FLOWS_DEFAULT + 3;
	struct gs_export_edge *e = calloc(n_big, sizeof(*e));
	struct gs_export_extras x = {0};
	struct gs_export_stats st = {99, 99, 99};
	struct gs_export_options o = {.stats = &st};
	struct mem m;
	FILE *null;

	assert_non_null(e);
	for (size_t i = 0; i < n_big; i++)
		e[i] = (struct gs_export_edge){.from = 0, .to = 1};
	x.edges = e;
	/* Five edges, at most two written. */
	x.n_edges = 5;
	o.has_max_flows = true;
	o.max_flows = 2;
	m = chrome_of(t, &x, &o);
	assert_int_equal(dependency_flows(&m), 2);
	assert_int_equal(st.dependency_flows, 5);
	assert_int_equal(st.flows_left_out, 3);
	assert_non_null(strstr(m.buf, "\n\"gpuscope_flows\":{\"dependency\":5,\"written\":2,"
				      "\"left_out\":3,\"max_flows\":2},\n\"traceEvents\":["));
	free(m.buf);
	/* All of them: nothing said. */
	o.max_flows = UINT64_MAX;
	m = chrome_of(t, &x, &o);
	assert_int_equal(dependency_flows(&m), 5);
	assert_int_equal(st.flows_left_out, 0);
	assert_null(strstr(m.buf, "gpuscope_flows"));
	free(m.buf);
	/* The default: 2^21 of 2^21 + 3 (written where nothing is kept). */
	o.has_max_flows = false;
	x.n_edges = n_big;
	null = fopen("/dev/null", "w");
	assert_non_null(null);
	assert_int_equal(gs_export_chrome(null, t, &x, &o), GS_OK);
	fclose(null);
	assert_int_equal(st.dependency_flows, n_big);
	assert_int_equal(st.flows_left_out, 3);
	free(e);
	gs_trace_destroy(t);
}

/* Ops of one stream that overlap take as few overflow tracks as they need,
 * and the main track is used again once free. */
static void test_overflow_tracks(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s = tb_stream(&b, 0, 0, 5);
	struct gs_trace *t;
	cJSON *doc, *ev;
	struct mem m;

	tb_kernel(&b, s, "a", 0, 100, 0);
	tb_kernel(&b, s, "b", 10, 50, 0);   /* inside a: overflow 1 */
	tb_kernel(&b, s, "c", 20, 60, 0);   /* overflow 2 */
	tb_kernel(&b, s, "d", 55, 70, 0);   /* overflow 1 is free again */
	tb_kernel(&b, s, "e", 100, 110, 0); /* main again */
	tb_kernel(&b, s, "z", 110, 110, 0); /* zero length at e's end: main */
	tb_kernel(&b, s, "y", 120, 130, 0); /* starts at zero-length x: overflow */
	tb_kernel(&b, s, "x", 120, 120, 0);
	t = tb_done(&b);
	m = chrome_of(t, NULL, NULL);
	ev = events_of(&m, &doc);
	assert_int_equal(nget(find_ev(ev, "X", "a"), "tid"), 5);
	assert_int_equal(nget(find_ev(ev, "X", "b"), "tid"), 6);
	assert_int_equal(nget(find_ev(ev, "X", "c"), "tid"), 7);
	assert_int_equal(nget(find_ev(ev, "X", "d"), "tid"), 6);
	assert_int_equal(nget(find_ev(ev, "X", "e"), "tid"), 5);
	assert_int_equal(nget(find_ev(ev, "X", "z"), "tid"), 5);
	assert_int_equal(nget(find_ev(ev, "X", "x"), "tid"), 5);
	assert_int_equal(nget(find_ev(ev, "X", "y"), "tid"), 6);
	assert_string_equal(meta_arg(ev, "thread_name", 0, 7)->valuestring,
			    "stream 5: overlapping ops (2)");
	cJSON_Delete(doc);
	free(m.buf);
	gs_trace_destroy(t);
}

/* Host events: calls keep their thread; ranges that straddle a call or
 * another range move to overflow tracks, where they may nest again. */
static void test_host_nesting(void **state)
{
	(void)state;
	struct tb b = tb_new();
	struct gs_trace *t;
	cJSON *doc, *ev;
	struct mem m;

	tb_call(&b, 9, 9, "cudaMalloc", 100, 200, 1);
	tb_range(&b, 9, 9, "outer", 0, 1000);
	tb_range(&b, 9, 9, "straddle", 150, 400); /* crosses the end of cudaMalloc */
	tb_range(&b, 9, 9, "inside_straddle", 160, 170);
	tb_range(&b, 9, 9, "fine", 300, 350);
	tb_call(&b, 9, 9, "cudaFree", 500, 600, 2);
	tb_call(&b, 9, 9, "cudaFreeSkewed", 550, 700, 3); /* calls overlap: overflow */
	t = tb_done(&b);
	m = chrome_of(t, NULL, NULL);
	ev = events_of(&m, &doc);
	assert_int_equal(nget(find_ev(ev, "X", "cudaMalloc"), "tid"), 9);
	assert_int_equal(nget(find_ev(ev, "X", "cudaFree"), "tid"), 9);
	assert_int_equal(nget(find_ev(ev, "X", "cudaFreeSkewed"), "tid"), 10);
	assert_int_equal(nget(find_ev(ev, "X", "outer"), "tid"), 9);
	assert_int_equal(nget(find_ev(ev, "X", "straddle"), "tid"), 11);
	assert_int_equal(nget(find_ev(ev, "X", "inside_straddle"), "tid"), 9);
	assert_int_equal(nget(find_ev(ev, "X", "fine"), "tid"), 9);
	cJSON_Delete(doc);
	free(m.buf);
	gs_trace_destroy(t);
}

/* A host process with the pid of a device moves the device to a free pid;
 * two streams with one id on a device (two processes) get tids of their
 * own and names that tell them apart. */
static void test_pid_tid_collisions(void **state)
{
	(void)state;
	struct tb b = tb_new();
	struct gs_stream a = {.pid = 1, .device = 0, .context = 1, .stream_id = 7};
	struct gs_stream c = {.pid = 2, .device = 0, .context = 3, .stream_id = 7};
	uint32_t sa, sc;
	struct gs_trace *t;
	cJSON *doc, *ev;
	struct mem m;

	assert_int_equal(b.s->stream(b.s, &a, &sa), GS_OK);
	assert_int_equal(b.s->stream(b.s, &c, &sc), GS_OK);
	tb_process(&b, 0, "host with pid 0", "12040");
	tb_call(&b, 0, 5, "cudaLaunchKernel", 10, 20, 1);
	tb_kernel(&b, sa, "ka", 100, 200, 1);
	tb_kernel(&b, sc, "kc", 150, 250, 0);
	t = tb_done(&b);
	m = chrome_of(t, NULL, NULL);
	ev = events_of(&m, &doc);
	/* Host pid 0 keeps 0; device 0 takes 1 (above every pid and id). */
	assert_string_equal(meta_arg(ev, "process_name", 0, -1)->valuestring, "host with pid 0");
	assert_string_equal(meta_arg(ev, "process_name", 1, -1)->valuestring, "GPU 0");
	assert_int_equal(nget(find_ev(ev, "X", "ka"), "pid"), 1);
	assert_int_equal(nget(find_ev(ev, "X", "ka"), "tid"), 1);
	assert_int_equal(nget(find_ev(ev, "X", "kc"), "tid"), 2);
	assert_string_equal(meta_arg(ev, "thread_name", 1, 1)->valuestring,
			    "stream 7 (pid 1, context 1)");
	assert_string_equal(meta_arg(ev, "thread_name", 1, 2)->valuestring,
			    "stream 7 (pid 2, context 3)");
	/* The ideal process mirrors the stream tids; its overflow tids come
	 * after them (kc overlaps ka in the ideal schedule too). */
	{
		struct gs_export_data *d = NULL;
		struct gs_export_options o = {.with_ideal = true};
		struct mem mi;
		cJSON *di, *ei;

		assert_int_equal(gs_export_data_build(t, GS_EXPORT_WANT_IDEAL, &d), GS_OK);
		mi = chrome_of(t, gs_export_data_extras(d), &o);
		ei = events_of(&mi, &di);
		assert_string_equal(meta_arg(ei, "thread_name", 2, 1)->valuestring,
				    "stream 7 (pid 1, context 1)");
		assert_string_equal(meta_arg(ei, "thread_name", 2, 2)->valuestring,
				    "stream 7 (pid 2, context 3)");
		cJSON_Delete(di);
		free(mi.buf);
		gs_export_data_destroy(d);
	}
	/* The launch flow goes from pid 0 to the device's pid 1. */
	assert_non_null(strstr(m.buf, "{\"ph\":\"f\",\"id\":1,\"pid\":1,\"tid\":1,"));
	cJSON_Delete(doc);
	free(m.buf);
	gs_trace_destroy(t);
}

/* ---- Chrome: read back ------------------------------------------------------ */

/* An op's launch configuration, all zero when it has none. */
static const struct gs_launch_cfg *lcfg(const struct gs_trace *t, const struct gs_op *o)
{
	static const struct gs_launch_cfg none;
	const struct gs_launch_cfg *lc = gs_trace_op_launch_cfg(t, o);

	return lc ? lc : &none;
}

static int cmp_op_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Ops as sorted text lines (every field the Kineto format carries). */
static char **op_lines(const struct gs_trace *t, size_t *n)
{
	size_t ns;
	const struct gs_op *ops = gs_trace_ops(t, n);
	const struct gs_stream *st = gs_trace_streams(t, &ns);
	char **l = calloc(*n + 1, sizeof(*l));

	assert_non_null(l);
	for (size_t i = 0; i < *n; i++) {
		const struct gs_op *o = &ops[i];

		l[i] = malloc(512);
		snprintf(l[i], 512,
			 "%u/%u/%llu %lld %lld k%u %s c%llu b%llu g%u,%u,%u b%u,%u,%u r%u s%u "
			 "ck%u %u>%u f%u gi%llu gn%llu",
			 st[o->stream].device, st[o->stream].context,
			 (unsigned long long)st[o->stream].stream_id, (long long)o->start_ns,
			 (long long)o->end_ns, o->kind, gs_trace_string(t, o->name),
			 (unsigned long long)o->correlation, (unsigned long long)o->bytes,
			 lcfg(t, o)->grid[0], lcfg(t, o)->grid[1], lcfg(t, o)->grid[2],
			 lcfg(t, o)->block[0], lcfg(t, o)->block[1], lcfg(t, o)->block[2],
			 lcfg(t, o)->registers, lcfg(t, o)->shared_mem, o->copy_kind, o->src_mem,
			 o->dst_mem, o->flags, (unsigned long long)lcfg(t, o)->graph_id,
			 (unsigned long long)o->graph_node);
	}
	qsort(l, *n, sizeof(*l), cmp_op_text);
	return l;
}

static void assert_same_ops(const struct gs_trace *a, const struct gs_trace *b)
{
	size_t na, nb;
	char **la = op_lines(a, &na), **lb = op_lines(b, &nb);

	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(la[i], lb[i]);
		free(la[i]);
		free(lb[i]);
	}
	free(la);
	free(lb);
}

static void assert_same_counts(const struct gs_trace *a, const struct gs_trace *b)
{
	struct gs_summary x, y;

	assert_int_equal(gs_summary_compute(a, &x), GS_OK);
	assert_int_equal(gs_summary_compute(b, &y), GS_OK);
	assert_memory_equal(x.ops, y.ops, sizeof(x.ops));
	assert_memory_equal(x.op_ns, y.op_ns, sizeof(x.op_ns));
	assert_int_equal(x.copy_bytes, y.copy_bytes);
	assert_int_equal(x.memset_bytes, y.memset_bytes);
	assert_memory_equal(x.api_by_kind, y.api_by_kind, sizeof(x.api_by_kind));
	assert_memory_equal(x.syncs_by_kind, y.syncs_by_kind, sizeof(x.syncs_by_kind));
	assert_int_equal(x.event_records, y.event_records);
	assert_memory_equal(x.ranges_by_kind, y.ranges_by_kind, sizeof(x.ranges_by_kind));
	assert_int_equal(x.processes, y.processes);
	assert_int_equal(x.devices, y.devices);
	assert_int_equal(x.streams, y.streams);
	assert_int_equal(x.threads, y.threads);
	assert_int_equal(x.first_ns, y.first_ns);
	assert_int_equal(x.last_ns, y.last_ns);
}

/* A small Kineto trace with every record kind the format has. */
static const char kineto_json[] =
	"{\"deviceProperties\": [{\"id\": 0, \"name\": \"GPU A\", \"numSms\": 80,"
	" \"totalGlobalMem\": 1024, \"computeMajor\": 9, \"computeMinor\": 0}],"
	" \"cuda_runtime_version\": 12040, \"host_name\": \"node1\", \"traceEvents\": [\n"
	"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 77, \"tid\": 0, \"args\": {\"name\": \"python\"}},\n"
	"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 77, \"tid\": 78,"
	" \"ts\": 100.5, \"dur\": 50, \"args\": {\"External id\": 5}},\n"
	"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"fwd\", \"pid\": 77, \"tid\": 78,"
	" \"ts\": 99, \"dur\": 200},\n"
	"{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(1): g\", \"pid\": 77,"
	" \"tid\": 78, \"ts\": 99, \"dur\": 200},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 77,"
	" \"tid\": 78, \"ts\": 101, \"dur\": 4.25, \"args\": {\"correlation\": 1, \"cbid\": 211}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 110,"
	" \"dur\": 30.001, \"args\": {\"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": 1,"
	" \"grid\": [8, 4, 1], \"block\": [256, 1, 1], \"registers per thread\": 64,"
	" \"shared memory\": 4096, \"graph id\": 3, \"graph node id\": 44}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"pid\": 77,"
	" \"tid\": 79, \"ts\": 102, \"dur\": 3, \"args\": {\"correlation\": 2}},\n"
	"{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Pageable)\","
	" \"pid\": 0, \"tid\": 9, \"ts\": 141, \"dur\": 7, \"args\": {\"device\": 0, \"context\": 1,"
	" \"stream\": 9, \"correlation\": 2, \"bytes\": 65536}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuMemsetD8Async\", \"pid\": 77,"
	" \"tid\": 79, \"ts\": 106, \"dur\": 1, \"args\": {\"correlation\": 3}},\n"
	"{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 9,"
	" \"ts\": 150, \"dur\": 1, \"args\": {\"device\": 0, \"context\": 1, \"stream\": 9,"
	" \"correlation\": 3, \"bytes\": 128}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaEventRecord\", \"pid\": 77,"
	" \"tid\": 78, \"ts\": 107, \"dur\": 1, \"args\": {\"correlation\": 4}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamWaitEvent\", \"pid\": 77,"
	" \"tid\": 78, \"ts\": 109, \"dur\": 1, \"args\": {\"correlation\": 5}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"pid\": 0, \"tid\": 9,"
	" \"ts\": 109, \"dur\": 0, \"args\": {\"cuda_sync_kind\": \"Stream Wait Event\", \"device\": 0,"
	" \"context\": 1, \"stream\": 9, \"wait_on_stream\": 7, \"correlation\": 5,"
	" \"wait_on_cuda_event_record_corr_id\": 4}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaDeviceSynchronize\", \"pid\": 77,"
	" \"tid\": 78, \"ts\": 160, \"dur\": 5, \"args\": {\"correlation\": 6}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Context Sync\", \"pid\": 0, \"tid\": 0,"
	" \"ts\": 160, \"dur\": 5, \"args\": {\"cuda_sync_kind\": \"Context Sync\", \"device\": 0,"
	" \"correlation\": 6}},\n"
	"{\"ph\": \"X\", \"cat\": \"overhead\", \"name\": \"Buffer Flush\", \"pid\": -1, \"tid\": 0,"
	" \"ts\": 90, \"dur\": 2}\n"
	"]}\n";

/* Export, then read back with the Kineto importer: the same ops (every
 * field) and the same counts, with and without the ideal schedule, plain
 * and gzip. */
static void test_round_trip(void **state)
{
	(void)state;
	struct gs_trace *src = NULL, *back;
	struct gs_export_options gz = {.gzip = true};
	struct mem m;

	assert_int_equal(gs_trace_create(&src), GS_OK);
	assert_int_equal(gs_import_kineto_mem(kineto_json, strlen(kineto_json), "src.json", NULL,
					      gs_trace_borrow_sink(src)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(src), GS_OK);
	for (int ideal = 0; ideal < 2; ideal++) {
		m = chrome_full(src, ideal);
		back = read_back(&m);
		assert_same_ops(src, back);
		assert_same_counts(src, back);
		gs_trace_destroy(back);
		free(m.buf);
	}
	/* gzip: the magic, and the same ops. */
	m = chrome_of(src, NULL, &gz);
	assert_true(m.len > 2 && (unsigned char)m.buf[0] == 0x1f &&
		    (unsigned char)m.buf[1] == 0x8b);
	back = read_back(&m);
	assert_same_ops(src, back);
	gs_trace_destroy(back);
	free(m.buf);
	/* A trace built record by record (names not in Kineto's form). */
	gs_trace_destroy(src);
	src = build_basic();
	m = chrome_full(src, false);
	back = read_back(&m);
	assert_same_ops(src, back);
	gs_trace_destroy(back);
	free(m.buf);
	gs_trace_destroy(src);
}

/* A copy whose name does not say its kinds gets Kineto's name, so that the
 * kinds read back. */
static void test_copy_names(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s = tb_stream(&b, 0, 0, 1);
	struct gs_trace *t, *back;
	struct mem m;

	tb_copy(&b, s, "[CUDA memcpy Host-to-Device]", 10, 20, 0, GS_COPY_HTOD, GS_MEM_PAGEABLE,
		GS_MEM_DEVICE, 0);
	tb_copy(&b, s, "Memcpy PtoP (Device -> Device)", 30, 40, 0, GS_COPY_PTOP, GS_MEM_DEVICE,
		GS_MEM_DEVICE, 0);
	tb_copy(&b, s, "odd", 50, 60, 0, GS_COPY_DTOH, GS_MEM_DEVICE, GS_MEM_UNKNOWN, 0);
	t = tb_done(&b);
	m = chrome_of(t, NULL, NULL);
	assert_non_null(strstr(m.buf, "\"Memcpy HtoD (Pageable -> Device)\""));
	assert_non_null(strstr(m.buf, "\"Memcpy PtoP (Device -> Device)\""));
	assert_non_null(strstr(m.buf, "\"Memcpy DtoH (Device -> Unknown)\""));
	back = read_back(&m);
	{
		size_t n;
		const struct gs_op *ops = gs_trace_ops(back, &n);

		assert_int_equal(n, 3);
		for (size_t i = 0; i < n; i++) {
			const struct gs_op *o = &ops[i];

			if (o->start_ns == 10)
				assert_true(o->copy_kind == GS_COPY_HTOD &&
					    o->src_mem == GS_MEM_PAGEABLE &&
					    o->dst_mem == GS_MEM_DEVICE);
			else if (o->start_ns == 50)
				assert_true(o->copy_kind == GS_COPY_DTOH &&
					    o->src_mem == GS_MEM_DEVICE &&
					    o->dst_mem == GS_MEM_UNKNOWN);
			else
				assert_int_equal(o->copy_kind, GS_COPY_PTOP);
		}
	}
	gs_trace_destroy(back);
	free(m.buf);
	gs_trace_destroy(t);
}

/* --with-ideal: a process per device beside it, ops at their ideal start. */
static void test_ideal_process(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic();
	struct gs_export_data *d = NULL;
	const struct gs_export_extras *x;
	struct gs_export_options o = {.with_ideal = true};
	cJSON *doc, *ev;
	const cJSON *e, *a;
	struct mem m;
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	char ts[160];

	assert_int_equal(gs_export_data_build(t, GS_EXPORT_WANT_IDEAL, &d), GS_OK);
	x = gs_export_data_extras(d);
	m = chrome_of(t, x, &o);
	ev = events_of(&m, &doc);
	/* Host 100, device 0 -> 0; the ideal process takes the next free pid. */
	assert_string_equal(meta_arg(ev, "process_name", 101, -1)->valuestring,
			    "GPU 0 ideal schedule");
	assert_int_equal(meta_arg(ev, "process_sort_index", 101, -1)->valueint, 2);
	cJSON_ArrayForEach(e, ev)
	{
		if (strcmp(sget(e, "ph"), "X") || strcmp(sget(e, "cat"), "ideal"))
			continue;
		assert_int_equal(nget(e, "pid"), 101);
		a = cJSON_GetObjectItemCaseSensitive(e, "args");
		assert_non_null(sget(a, "bound by"));
	}
	/* The first op (k1) starts the ideal schedule at its own start. */
	for (size_t i = 0; i < n; i++) {
		if (strcmp(gs_trace_string(t, ops[i].name), "k1"))
			continue;
		assert_true(x->ideal_in[i]);
		assert_int_equal(x->ideal_start[i], ops[i].start_ns);
		snprintf(ts, sizeof(ts),
			 "\"cat\":\"ideal\",\"name\":\"k1\",\"pid\":101,\"tid\":7,"
			 "\"ts\":%lld.%03lld",
			 (long long)(ops[i].start_ns / 1000), (long long)(ops[i].start_ns % 1000));
		assert_non_null(strstr(m.buf, ts));
	}
	cJSON_Delete(doc);
	free(m.buf);
	/* Asked for without the data: a clear error. */
	{
		FILE *f = tmpfile();

		gs_error_clear();
		assert_int_equal(gs_export_chrome(f, t, NULL, &o), GS_ERR_INVALID);
		assert_true(gs_error_count() > 0);
		fclose(f);
	}
	gs_export_data_destroy(d);
	gs_trace_destroy(t);
}

/* A full disk is an I/O error with the errno text, not a silent success. */
static void test_write_error(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic();
	FILE *f = fopen("/dev/full", "w");
	char msg[512];

	if (!f)
		skip();
	gs_error_clear();
	assert_int_equal(gs_export_chrome(f, t, NULL, NULL), GS_ERR_IO);
	assert_non_null(strstr(gs_error_format(msg, sizeof(msg)), "No space left on device"));
	fclose(f);
	f = fopen("/dev/full", "w");
	gs_error_clear();
	assert_int_equal(gs_export_csv_ops(f, t, NULL, NULL), GS_ERR_IO);
	fclose(f);
	gs_error_clear();
	gs_trace_destroy(t);
}

static void test_gzip_path(void **state)
{
	(void)state;
	assert_true(gs_export_path_is_gzip("a.json.gz"));
	assert_true(gs_export_path_is_gzip("dir/x.gz"));
	assert_false(gs_export_path_is_gzip("a.json"));
	assert_false(gs_export_path_is_gzip(".gz"));
	assert_false(gs_export_path_is_gzip(NULL));
}

/* ---- CSV ------------------------------------------------------------------- */

static void test_csv_ops(void **state)
{
	static const char csv_header[] =
		"index,kind,device,pid,context,stream,stream_kind,stream_priority,start_ns,end_ns,"
		"dur_ns,correlation,name,grid_x,grid_y,grid_z,block_x,block_y,block_z,shared_mem,"
		"registers,bytes,copy_kind,src_mem,dst_mem,flags,graph_id,graph_node,launch_api,"
		"launch_pid,launch_tid\n";
	static const char seg_head[] = "device,start_ns,end_ns,dur_ns,category\n"
				       "2,1000,1500,500,kernel\n2,1500,2000,500,idle\n";
	(void)state;
	struct tb b = tb_new();
	uint32_t s = tb_stream(&b, 0, 2, 4);
	struct gs_trace *t;
	struct gs_export_data *d = NULL;
	struct mem m;

	tb_call(&b, 5, 6, "cudaLaunchKernel", 100, 150, 9);
	tb_kernel(&b, s, "plain", 1000, 1500, 9);
	tb_kernel(&b, s, "a,b", 2000, 2500, 0);
	tb_kernel(&b, s, "say \"hi\"", 3000, 3500, 0);
	tb_kernel(&b, s, "two\nlines\r", 4000, 4500, 0);
	t = tb_done(&b);
	m = csv_ops(t, NULL, false);
	assert_true(strncmp(m.buf, csv_header, strlen(csv_header)) == 0);
	assert_non_null(strstr(m.buf, "\n0,kernel,2,0,1,4,unknown,0,1000,1500,500,9,plain,4,2,1,"
				      "128,1,1,1024,32,0,unknown,unknown,unknown,,0,0,"
				      "cudaLaunchKernel,5,6\n"));
	assert_non_null(strstr(m.buf, ",\"a,b\",4,2,1,"));
	assert_non_null(strstr(m.buf, ",\"say \"\"hi\"\"\",4,2,1,"));
	assert_non_null(strstr(m.buf, ",\"two\nlines\r\",4,2,1,"));
	assert_non_null(strstr(m.buf, ",0,0,,,\n")); /* no launch: empty */
	free(m.buf);
	/* With the ideal schedule: three more columns. */
	assert_int_equal(gs_export_data_build(t, GS_EXPORT_WANT_IDEAL | GS_EXPORT_WANT_BREAKDOWN,
					      &d),
			 GS_OK);
	m = csv_ops(t, gs_export_data_extras(d), true);
	assert_non_null(strstr(m.buf, ",launch_tid,ideal_start_ns,delay_ns,bound_by\n"));
	assert_non_null(strstr(m.buf, ",cudaLaunchKernel,5,6,1000,0,"));
	assert_int_equal(count_lines(m.buf), 1 + 4 + 1); /* header, 4 ops, one newline in a name */
	free(m.buf);
	/* Segments: kernel, idle, kernel, ... over [1000, 4500). */
	{
		struct mem sg = {0};
		FILE *f = open_memstream(&sg.buf, &sg.len);

		assert_int_equal(gs_export_csv_segments(f, t, gs_export_data_extras(d), NULL),
				 GS_OK);
		fclose(f);
		assert_true(strncmp(sg.buf, seg_head, strlen(seg_head)) == 0);
		assert_int_equal(count_lines(sg.buf), 1 + 7);
		free(sg.buf);
	}
	gs_export_data_destroy(d);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metadata_and_layout),
		cmocka_unit_test(test_exact_microseconds),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_flows_paired),
		cmocka_unit_test(test_max_flows),
		cmocka_unit_test(test_overflow_tracks),
		cmocka_unit_test(test_host_nesting),
		cmocka_unit_test(test_pid_tid_collisions),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_copy_names),
		cmocka_unit_test(test_ideal_process),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_gzip_path),
		cmocka_unit_test(test_csv_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
