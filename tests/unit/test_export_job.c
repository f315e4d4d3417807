/* SPDX-License-Identifier: MIT */
/*
 * The exporters on jobs (several ranks in one file): pids of their own
 * though the ranks' pids and devices coincide, names, sort order, flows
 * within a rank, one rank exactly as a trace alone; rank columns in CSV;
 * each rank's ids offset apart and its times onto the first rank's wall
 * clock, distributedInfo as PyTorch writes it, and read back as the same
 * ranks with their own ids, times and clocks; a job marker that cannot be
 * used ignored with a warning.
 *
 * Traces are built record by record through the trace's sink
 * (export_test.h), or read from small Kineto texts; times in ns.
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

/* ---- jobs ------------------------------------------------------------------ */

/* Two ranks (0 and 5) of build_basic: both pid 100 on device 0; rank 0
 * knows its host and pid, rank 5 neither. */
struct job2 {
	struct gs_trace *t[2];
	struct gs_export_data *d[2];
	struct gs_export_rank r[2];
};

static void job2_init(struct job2 *j, unsigned want)
{
	for (int i = 0; i < 2; i++) {
		j->t[i] = build_basic();
		assert_int_equal(gs_export_data_build(j->t[i], want, &j->d[i]), GS_OK);
	}
	j->r[0] = (struct gs_export_rank){j->t[0], gs_export_data_extras(j->d[0]), 0, 100, "nodeA",
					  1};
	j->r[1] = (struct gs_export_rank){j->t[1], gs_export_data_extras(j->d[1]), 5, -1, NULL, 2};
}

static void job2_fini(struct job2 *j)
{
	for (int i = 0; i < 2; i++) {
		gs_export_data_destroy(j->d[i]);
		gs_trace_destroy(j->t[i]);
	}
}

static struct mem chrome_job(const struct gs_export_rank *r, size_t n, bool ideal)
{
	struct gs_export_options o = {.with_ideal = ideal};
	struct mem m = {0};
	FILE *f = open_memstream(&m.buf, &m.len);

	assert_non_null(f);
	gs_error_clear();
	assert_int_equal(gs_export_chrome_job(f, r, n, &o), GS_OK);
	assert_int_equal(fclose(f), 0);
	return m;
}

static const char *meta_name(const cJSON *ev, double pid)
{
	const cJSON *a = meta_arg(ev, "process_name", pid, -1);

	assert_non_null(a);
	return a->valuestring;
}

static void test_job_chrome(void **state)
{
	(void)state;
	struct job2 j;
	struct mem m;
	cJSON *doc, *ev;
	const cJSON *e, *args;
	size_t k1 = 0, flows = 0;

	job2_init(&j, GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_EDGES | GS_EXPORT_WANT_BREAKDOWN |
			      GS_EXPORT_WANT_IDEAL);
	/* Given out of rank order: written in rank order all the same. */
	{
		struct gs_export_rank rev[2] = {j.r[1], j.r[0]};

		m = chrome_job(rev, 2, true);
	}
	ev = events_of(&m, &doc);
	/* pid = rank * 1000 + lane: the GPU, its ideal schedule, the host. */
	assert_string_equal(meta_name(ev, 0),
			    "rank 0 \xc2\xb7 nodeA \xc2\xb7 pid 100 \xc2\xb7 GPU 0 Test GPU");
	assert_string_equal(meta_name(ev, 1), "rank 0 \xc2\xb7 GPU 0 ideal");
	assert_string_equal(meta_name(ev, 2), "rank 0 \xc2\xb7 nodeA \xc2\xb7 pid 100 (host)");
	assert_string_equal(meta_name(ev, 5000), "rank 5 \xc2\xb7 GPU 0 Test GPU");
	assert_string_equal(meta_name(ev, 5001), "rank 5 \xc2\xb7 GPU 0 ideal");
	assert_string_equal(meta_name(ev, 5002), "rank 5 \xc2\xb7 pid 100 (host)");
	assert_string_equal(meta_arg(ev, "process_labels", 0, -1)->valuestring,
			    "GPU 0, rank 0, pid 100");
	assert_string_equal(meta_arg(ev, "process_labels", 5000, -1)->valuestring, "GPU 0, rank 5");
	assert_string_equal(meta_arg(ev, "process_labels", 5002, -1)->valuestring,
			    "CPU, rank 5, pid 100");
	assert_int_equal(meta_arg(ev, "process_sort_index", 5001, -1)->valueint, 5001);
	/* Who each process is, in its args. */
	e = NULL;
	cJSON_ArrayForEach(e, ev)
	{
		if (!strcmp(sget(e, "ph"), "M") && !strcmp(sget(e, "name"), "process_name") &&
		    nget(e, "pid") == 2)
			break;
	}
	assert_non_null(e);
	args = cJSON_GetObjectItemCaseSensitive(e, "args");
	assert_int_equal(nget(args, "rank"), 0);
	assert_int_equal(nget(args, "pid"), 100);
	assert_string_equal(sget(args, "host"), "nodeA");
	assert_string_equal(sget(args, "command_line"), "python train.py");
	/* Tracks keep their tids; each rank's k1 on its own GPU process. */
	cJSON_ArrayForEach(e, ev)
	{
		const char *ph = sget(e, "ph"), *name = sget(e, "name");

		if (!strcmp(ph, "X") && name && !strcmp(name, "k1") &&
		    !strcmp(sget(e, "cat"), "kernel")) {
			assert_true(nget(e, "pid") == 0 || nget(e, "pid") == 5000);
			assert_int_equal(nget(e, "tid"), 7);
			k1++;
		}
		if (!strcmp(ph, "X") && name && !strcmp(name, "cudaLaunchKernel"))
			assert_true(nget(e, "pid") == 2 || nget(e, "pid") == 5002);
		/* Flows and counters: never of a pid outside the two ranks. */
		if (!strcmp(ph, "s") || !strcmp(ph, "f") || !strcmp(ph, "C")) {
			double pid = nget(e, "pid");

			assert_true((pid >= 0 && pid <= 2) || (pid >= 5000 && pid <= 5002));
		}
	}
	assert_int_equal(k1, 2);
	/* Every flow's two ends in one rank (ids unique across ranks). */
	cJSON_ArrayForEach(e, ev)
	{
		const cJSON *f;

		if (strcmp(sget(e, "ph"), "s"))
			continue;
		cJSON_ArrayForEach(f, ev)
		{
			if (!strcmp(sget(f, "ph"), "f") && nget(f, "id") == nget(e, "id")) {
				assert_int_equal((int)nget(f, "pid") / 1000,
						 (int)nget(e, "pid") / 1000);
				flows++;
			}
		}
	}
	assert_true(flows > 0 && flows % 2 == 0);
	/* The top level: the device once. */
	assert_int_equal(
		cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "deviceProperties")), 1);
	cJSON_Delete(doc);
	/* Read back: every op of both ranks, both host processes. */
	{
		struct gs_trace *back = read_back(&m);
		size_t n_ops, n_procs;

		gs_trace_ops(back, &n_ops);
		gs_trace_processes(back, &n_procs);
		assert_int_equal(n_ops, 6);
		assert_int_equal(n_procs, 2);
		gs_trace_destroy(back);
	}
	free(m.buf);
	job2_fini(&j);
}

/* One rank: byte for byte the export of its trace alone. Two ranks of one
 * number: refused. */
static void test_job_one_rank(void **state)
{
	(void)state;
	struct job2 j;
	struct mem a, b;
	struct gs_export_options o = {.with_ideal = true};

	job2_init(&j, GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_EDGES | GS_EXPORT_WANT_BREAKDOWN |
			      GS_EXPORT_WANT_IDEAL);
	a = chrome_job(j.r, 1, true);
	b = chrome_of(j.t[0], j.r[0].extras, &o);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	free(a.buf);
	free(b.buf);
	j.r[1].rank = 0;
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		gs_error_clear();
		assert_int_equal(gs_export_chrome_job(f, j.r, 2, NULL), GS_ERR_INVALID);
		assert_int_equal(gs_export_csv_ops_job(f, j.r, 0, NULL), GS_ERR_INVALID);
		fclose(f);
		free(buf);
	}
	job2_fini(&j);
}

static struct mem csv_job(const struct gs_export_rank *r, size_t n, bool segments)
{
	struct mem m = {0};
	FILE *f = open_memstream(&m.buf, &m.len);

	assert_non_null(f);
	if (segments)
		assert_int_equal(gs_export_csv_segments_job(f, r, n, NULL), GS_OK);
	else
		assert_int_equal(gs_export_csv_ops_job(f, r, n, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	return m;
}

/* CSV of a job: a rank column first; one rank as the trace alone. */
static void test_job_csv(void **state)
{
	(void)state;
	struct job2 j;
	struct mem m, one;

	job2_init(&j, GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_BREAKDOWN);
	m = csv_job(j.r, 2, false);
	{
		static const char head[] = "rank,index,kind,device,pid,context,stream,";

		assert_true(strncmp(m.buf, head, strlen(head)) == 0);
	}
	assert_non_null(strstr(m.buf, "\n0,0,kernel,0,0,1,7,"));
	assert_non_null(strstr(m.buf, "\n5,0,kernel,0,0,1,7,"));
	assert_int_equal(count_lines(m.buf), 1 + 2 * 3);
	free(m.buf);
	m = csv_job(j.r, 2, true);
	{
		static const char head[] = "rank,device,start_ns,end_ns,dur_ns,category\n0,0,";

		assert_true(strncmp(m.buf, head, strlen(head)) == 0);
	}
	assert_non_null(strstr(m.buf, "\n5,0,"));
	free(m.buf);
	m = csv_job(j.r, 1, false);
	one = csv_ops(j.t[0], j.r[0].extras, false);
	assert_string_equal(m.buf, one.buf);
	free(m.buf);
	free(one.buf);
	job2_fini(&j);
}

/* ---- jobs read back -------------------------------------------------------- */

/*
 * A rank of a job: host process 100 on clock `off` (Kineto base), rank
 * `rank` of 8 over nccl; build_basic's ops and calls (correlation 11..13),
 * a range with External id 11, a cudaEventRecord (14) and a stream wait on
 * it (15, event 3).
 */
static struct gs_trace *build_rank(uint32_t rank, int64_t off)
{
	struct tb b = tb_new();
	struct gs_process p = {.pid = 100,
			       .host_name = tb_str(&b, rank ? "nodeB" : "nodeA"),
			       .command_line = tb_str(&b, "python train.py"),
			       .driver_version = GS_NO_STRING,
			       .runtime_version = tb_str(&b, "12040"),
			       .cupti_version = GS_NO_STRING,
			       .has_rank = true,
			       .rank = rank,
			       .world_size = 8,
			       .has_backend = true,
			       .backend = tb_str(&b, "nccl"),
			       .clock = GS_CLOCK_KINETO_BASE,
			       .wall_offset_ns = off,
			       .start_ns = T0 - 5,
			       .dropped_records = 3};
	struct gs_range r = {.pid = 100,
			     .tid = 100,
			     .name = tb_str(&b, "aten::mm"),
			     .domain = GS_NO_STRING,
			     .start_ns = T0 + 900,
			     .end_ns = T0 + 3500,
			     .kind = GS_RANGE_CPU_OP,
			     .external_id = 11};
	struct gs_sync y = {.pid = 100,
			    .tid = 100,
			    .start_ns = T0 + 12000,
			    .end_ns = T0 + 12100,
			    .correlation = 15,
			    .event_correlation = 14,
			    .event_id = 3,
			    .device = 0,
			    .kind = GS_SYNC_STREAM_WAIT};
	uint32_t s7, s9;

	assert_int_equal(b.s->process(b.s, &p), GS_OK);
	tb_device(&b, 0, "Test GPU");
	s7 = tb_stream(&b, 0, 0, 7);
	s9 = tb_stream(&b, 0, 0, 9);
	assert_int_equal(b.s->range(b.s, &r), GS_OK);
	tb_call(&b, 100, 100, "cudaLaunchKernel", T0 + 1000, T0 + 3000, 11);
	tb_call(&b, 100, 100, "cudaLaunchKernel", T0 + 4000, T0 + 6000, 12);
	tb_call(&b, 100, 100, "cudaMemcpyAsync", T0 + 7000, T0 + 9000, 13);
	tb_call(&b, 100, 100, "cudaEventRecord", T0 + 10000, T0 + 10500, 14);
	tb_call(&b, 100, 100, "cudaStreamWaitEvent", T0 + 12000, T0 + 12100, 15);
	y.stream = s9;
	y.wait_on_stream = s7;
	assert_int_equal(b.s->sync(b.s, &y), GS_OK);
	tb_kernel(&b, s7, "k1", T0 + 20000, T0 + 50001, 11);
	tb_kernel(&b, s7, "k2", T0 + 50000, T0 + 60000, 12);
	tb_copy(&b, s7, "Memcpy HtoD (Pinned -> Device)", T0 + 70000, T0 + 80000, 13, GS_COPY_HTOD,
		GS_MEM_PINNED, GS_MEM_DEVICE, GS_OPF_ASYNC);
	return tb_done(&b);
}

/* The first complete event named `name` whose pid is `pid`. */
static const cJSON *find_x(const cJSON *ev, const char *name, double pid)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, ev)
	{
		if (!strcmp(sget(e, "ph"), "X") && sget(e, "name") &&
		    !strcmp(sget(e, "name"), name) && nget(e, "pid") == pid)
			return e;
	}
	return NULL;
}

/*
 * Two ranks (0 and 5) with the same pid, device, streams and ids, rank 5's
 * clock offset to UTC 2 us less than rank 0's (its events with rank 0's
 * times happened 2 us earlier): rank 5's ids are written 5000 up and its
 * times 2 us earlier (onto rank 0's clock); the file says who each is
 * (distributedInfo as PyTorch writes it, process args, gpuscope_job) and
 * reads back as the same two ranks with their own ids, times and clocks.
 */
static void test_job_ids_clocks_read_back(void **state)
{
	(void)state;
	const int64_t off = 1718294400000000000LL;
	struct gs_trace *t[2] = {build_rank(0, off), build_rank(5, off - 2000)};
	struct gs_export_data *d[2];
	struct gs_export_rank r[2];
	struct gs_trace *back;
	struct gs_job *job = NULL;
	const char *names[1] = {"export.json"};
	cJSON *doc, *ev;
	const cJSON *e0, *e5, *a, *marker;
	struct mem m;

	for (int i = 0; i < 2; i++)
		assert_int_equal(gs_export_data_build(t[i],
						      GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_EDGES |
							      GS_EXPORT_WANT_BREAKDOWN |
							      GS_EXPORT_WANT_IDEAL,
						      &d[i]),
				 GS_OK);
	r[0] = (struct gs_export_rank){t[0], gs_export_data_extras(d[0]), 0, 100, "nodeA", 1};
	r[1] = (struct gs_export_rank){t[1], gs_export_data_extras(d[1]), 5, 100, "nodeB", 2};
	m = chrome_job(r, 2, true);
	/* As HTA's rank regex wants it: "rank": 0 with its space. */
	assert_non_null(strstr(m.buf, "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, "
				      "\"world_size\": 8}"));
	assert_non_null(strstr(m.buf, "\"baseTimeNanoseconds\":1718294400000000000,"));
	ev = events_of(&m, &doc);
	/* k1 of rank 0 (GPU pid 0) and of rank 5 (GPU pid 5000). */
	e0 = find_x(ev, "k1", 0);
	e5 = find_x(ev, "k1", 5000);
	assert_non_null(e0);
	assert_non_null(e5);
	a = cJSON_GetObjectItemCaseSensitive(e0, "args");
	assert_int_equal(nget(a, "correlation"), 11);
	a = cJSON_GetObjectItemCaseSensitive(e5, "args");
	assert_int_equal(nget(a, "correlation"), 5011);
	/* 2 us earlier on rank 0's clock (doubles hold these µs to about the
	 * ns). */
	assert_true(nget(e0, "ts") - nget(e5, "ts") > 1.9995 &&
		    nget(e0, "ts") - nget(e5, "ts") < 2.0005);
	a = cJSON_GetObjectItemCaseSensitive(find_x(ev, "Stream Wait Event", 5000), "args");
	assert_int_equal(nget(a, "correlation"), 5015);
	assert_int_equal(nget(a, "wait_on_cuda_event_record_corr_id"), 5014);
	assert_int_equal(nget(a, "wait_on_cuda_event_id"), 5003);
	a = cJSON_GetObjectItemCaseSensitive(find_x(ev, "aten::mm", 5002), "args");
	assert_int_equal(nget(a, "External id"), 5011);
	/* Who rank 5 is, in its host process's args. */
	{
		const cJSON *e;

		cJSON_ArrayForEach(e, ev)
		{
			if (!strcmp(sget(e, "ph"), "M") &&
			    !strcmp(sget(e, "name"), "process_name") && nget(e, "pid") == 5002)
				break;
		}
		assert_non_null(e);
		a = cJSON_GetObjectItemCaseSensitive(e, "args");
	}
	assert_int_equal(nget(a, "rank"), 5);
	assert_int_equal(nget(a, "world_size"), 8);
	assert_string_equal(sget(a, "backend"), "nccl");
	assert_string_equal(sget(a, "clock"), "kineto_base");
	assert_int_equal(nget(a, "time_shift_ns"), -2000);
	assert_int_equal(nget(a, "id_offset"), 5000);
	marker = cJSON_GetObjectItemCaseSensitive(doc, "gpuscope_job");
	assert_non_null(marker);
	assert_int_equal(nget(marker, "pid_stride"), 1000);
	a = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(marker, "ranks"), 1);
	assert_int_equal(nget(a, "pid_base"), 5000);
	assert_string_equal(sget(a, "wall_offset_ns"), "1718294399999998000");
	assert_string_equal(sget(a, "time_shift_ns"), "-2000");
	cJSON_Delete(doc);

	/* Read back: two ranks, 0 and 5, the second as pid 100 + 2^32. */
	back = read_back(&m);
	gs_error_clear();
	assert_int_equal(gs_job_from_traces(&back, names, 1, &job), GS_OK);
	assert_int_equal(job->n_ranks, 2);
	for (size_t k = 0; k < 2; k++) {
		const struct gs_job_rank *jr = &job->ranks[k];
		const struct gs_trace *bt = jr->trace, *src = t[k];
		size_t n_ops, n_src, n_p, n_y, n_r;
		const struct gs_op *ops = gs_trace_ops(bt, &n_ops),
				   *sops = gs_trace_ops(src, &n_src);
		const struct gs_process *p = gs_trace_processes(bt, &n_p);
		const struct gs_sync *y = gs_trace_syncs(bt, &n_y);
		const struct gs_range *rg = gs_trace_ranges(bt, &n_r);

		assert_int_equal(jr->rank, k ? 5 : 0);
		assert_int_equal(jr->pid, k ? 100 + (1LL << 32) : 100);
		assert_string_equal(gs_trace_string(bt, jr->host), k ? "nodeB" : "nodeA");
		/* Its own ops, ids and times. */
		assert_int_equal(n_ops, n_src);
		for (size_t i = 0; i < n_ops; i++) {
			assert_int_equal(ops[i].start_ns, sops[i].start_ns);
			assert_int_equal(ops[i].end_ns, sops[i].end_ns);
			assert_int_equal(ops[i].correlation, sops[i].correlation);
			assert_int_equal(gs_trace_op_launch_call(bt, i) != GS_NO_INDEX, true);
		}
		assert_int_equal(n_y, 1);
		assert_int_equal(y[0].correlation, 15);
		assert_int_equal(y[0].event_correlation, 14);
		assert_int_equal(y[0].event_id, 3);
		assert_int_equal(y[0].start_ns, T0 + 12000);
		assert_int_equal(n_r, 1);
		assert_int_equal(rg[0].external_id, 11);
		assert_int_equal(rg[0].start_ns, T0 + 900);
		/* Its own process: rank, world, backend, clock, start, drops. */
		assert_int_equal(n_p, 1);
		assert_true(p[0].has_rank);
		assert_int_equal(p[0].rank, k ? 5 : 0);
		assert_int_equal(p[0].world_size, 8);
		assert_string_equal(gs_trace_string(bt, p[0].backend), "nccl");
		assert_string_equal(gs_trace_string(bt, p[0].command_line), "python train.py");
		assert_int_equal(p[0].clock, GS_CLOCK_KINETO_BASE);
		assert_int_equal(p[0].wall_offset_ns, k ? off - 2000 : off);
		assert_int_equal(p[0].start_ns, T0 - 5);
		assert_int_equal(p[0].dropped_records, 3);
	}
	gs_job_destroy(job);
	free(m.buf);
	for (int i = 0; i < 2; i++) {
		gs_export_data_destroy(d[i]);
		gs_trace_destroy(t[i]);
	}
}

/* A trace read from Kineto text, with its warnings. */
static struct gs_trace *kineto_text(const char *text)
{
	struct mem m = {(char *)(uintptr_t)text, strlen(text)};

	return read_back(&m);
}

static bool has_warning(const struct gs_trace *t, const char *sub)
{
	size_t n;
	const struct gs_warning *w = gs_trace_warnings(t, &n);

	for (size_t i = 0; i < n; i++)
		if (strstr(w[i].message, sub))
			return true;
	return false;
}

/* A gpuscope_job marker after traceEvents, or not well formed, is ignored
 * with a warning: the file reads as one process, as any Kineto file. */
static void test_job_marker_ignored(void **state)
{
	(void)state;
	static const char events[] =
		"\"traceEvents\": ["
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
		"\"pid\": 1, \"tid\": 1, \"ts\": 10, \"dur\": 1, \"args\": {\"correlation\": 1}},"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
		"\"ts\": 20, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}},"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
		"\"pid\": 1001, \"tid\": 1, \"ts\": 10, \"dur\": 1, \"args\": {\"correlation\": 1}},"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 1000, \"tid\": 7, "
		"\"ts\": 20, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}}]";
	static const char ranks[] = "\"gpuscope_job\": {\"version\": 1, \"pid_stride\": 1000, "
				    "\"ranks\": [{\"rank\": 0, \"pid_base\": 0, \"pid\": 9}, "
				    "{\"rank\": 1, \"pid_base\": %d, \"pid\": 9}]}";
	char marker[256], text[2048];
	struct gs_trace *t;
	size_t n;
	const struct gs_stream *st;

	/* Well formed, before the events: two processes (9, 9 + 2^32). */
	snprintf(marker, sizeof(marker), ranks, 1000);
	snprintf(text, sizeof(text), "{%s, %s}", marker, events);
	t = kineto_text(text);
	st = gs_trace_streams(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(st[0].pid, 9);
	assert_int_equal(st[1].pid, 9 + (1LL << 32));
	gs_trace_processes(t, &n);
	assert_int_equal(n, 2);
	gs_trace_destroy(t);
	/* After the events. */
	snprintf(text, sizeof(text), "{%s, %s}", events, marker);
	t = kineto_text(text);
	gs_trace_streams(t, &n);
	assert_int_equal(n, 1);
	assert_true(has_warning(t, "ignored gpuscope's job marker (gpuscope_job: it follows "
				   "traceEvents): the ranks are read as one process"));
	gs_trace_destroy(t);
	/* Ranks whose pids overlap. */
	snprintf(marker, sizeof(marker), ranks, 500);
	snprintf(text, sizeof(text), "{%s, %s}", marker, events);
	t = kineto_text(text);
	gs_trace_streams(t, &n);
	assert_int_equal(n, 1);
	assert_true(has_warning(t, "ranks whose pids are not apart"));
	gs_trace_destroy(t);
}

/* Ids of two ranks that cannot both stay below 2^53 apart: refused, never
 * written colliding. Rank numbers too large for id ranges: positions. */
static void test_job_ids_limit(void **state)
{
	(void)state;
	struct gs_trace *t[2];
	struct gs_export_rank r[2];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (int i = 0; i < 2; i++) {
		struct tb b = tb_new();

		tb_process(&b, 100, "x", "12040");
		tb_kernel(&b, tb_stream(&b, 0, 0, 7), "k", T0, T0 + 10, (1ULL << 52) + 1);
		t[i] = tb_done(&b);
		r[i] = (struct gs_export_rank){t[i], NULL, (uint32_t)i, 100, NULL, 0};
	}
	f = open_memstream(&buf, &len);
	gs_error_clear();
	assert_int_equal(gs_export_chrome_job(f, r, 2, NULL), GS_ERR_LIMIT);
	fclose(f);
	free(buf);
	for (int i = 0; i < 2; i++)
		gs_trace_destroy(t[i]);
	/* Ids up to 2^40 of ranks 0 and 4e9: rank 4e9 * 10^13 would pass 2^53,
	 * so its position (1) stands for it: its ids are 10^13 up. */
	for (int i = 0; i < 2; i++) {
		struct tb b = tb_new();

		tb_process(&b, 100, "x", "12040");
		tb_kernel(&b, tb_stream(&b, 0, 0, 7), "k", T0, T0 + 10, 1ULL << 40);
		t[i] = tb_done(&b);
		r[i] = (struct gs_export_rank){t[i], NULL, i ? 4000000000u : 0, 100, NULL, 0};
	}
	{
		struct mem m = chrome_job(r, 2, false);

		assert_non_null(strstr(m.buf, "\"correlation\":1099511627776,"));
		assert_non_null(strstr(m.buf, "\"correlation\":11099511627776,"));
		assert_non_null(strstr(m.buf, "\"id_offset\":10000000000000}"));
		free(m.buf);
	}
	for (int i = 0; i < 2; i++)
		gs_trace_destroy(t[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_chrome),
		cmocka_unit_test(test_job_one_rank),
		cmocka_unit_test(test_job_csv),
		cmocka_unit_test(test_job_ids_clocks_read_back),
		cmocka_unit_test(test_job_marker_ignored),
		cmocka_unit_test(test_job_ids_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
