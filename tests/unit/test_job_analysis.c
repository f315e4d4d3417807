/* SPDX-License-Identifier: MIT */
/*
 * The job analysis (analyzer/analyses/job_*.c) over small jobs built through the
 * trace sink: every rank a trace of its own, its NCCL kernels with a
 * collective description (or none), known arrivals and ends, so that the
 * skew, waits, transfer, last ranks, stragglers, bandwidths, min / median
 * / max, mismatches and clock groups can be checked to the nanosecond, in
 * the JSON, the text (finding first, 100 columns) and the HTML; with --gen,
 * against the exact numbers gs_bench_gen --job writes beside its traces.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_out.h"

#include <cJSON.h>

#include "json_at.h"

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#define US 1000LL
#define BASE (1000000000LL) /* 1 s */
#define STEP (1000 * US)    /* one collective a millisecond */
#define HOUR (3600LL * 1000000000LL)

/* ---- building a rank ---------------------------------------------------- */

struct rank_builder {
	struct gs_trace *t;
	struct gs_sink *s;
	uint32_t compute; /* stream indices */
	uint32_t nccl;
	int64_t pid;
};

static uint32_t str(struct rank_builder *b, const char *s)
{
	uint32_t id = 0;

	assert_int_equal(b->s->intern(b->s, s, strlen(s), &id), GS_OK);
	return id;
}

static void rank_begin(struct rank_builder *b, uint32_t rank, const char *host)
{
	struct gs_process p = {0};
	struct gs_device d = {0};
	struct gs_stream st = {0};

	memset(b, 0, sizeof(*b));
	assert_int_equal(gs_trace_create(&b->t), GS_OK);
	b->s = gs_trace_borrow_sink(b->t);
	b->pid = 1000 + rank;
	p.pid = b->pid;
	p.host_name = str(b, host);
	p.command_line = GS_NO_STRING;
	p.driver_version = p.runtime_version = p.cupti_version = GS_NO_STRING;
	p.has_rank = true;
	p.rank = rank;
	p.world_size = 4;
	assert_int_equal(b->s->process(b->s, &p), GS_OK);
	d.id = 0;
	d.name = str(b, "Test GPU");
	d.uuid = GS_NO_STRING;
	assert_int_equal(b->s->device(b->s, &d), GS_OK);
	st.pid = b->pid;
	st.device = 0;
	st.context = 1;
	st.kind = GS_STREAM_NON_BLOCKING;
	st.stream_id = 7;
	assert_int_equal(b->s->stream(b->s, &st, &b->compute), GS_OK);
	st.stream_id = 13;
	assert_int_equal(b->s->stream(b->s, &st, &b->nccl), GS_OK);
}

static void kernel(struct rank_builder *b, uint32_t stream, const char *name, int64_t start,
		   int64_t end, uint32_t collective)
{
	static uint64_t corr = 1;
	struct gs_op op = {0};
	struct gs_launch_cfg lc = {0};

	op.kind = GS_OP_KERNEL;
	op.start_ns = start;
	op.end_ns = end;
	op.name = str(b, name);
	op.stream = stream;
	op.correlation = corr++;
	lc.grid[0] = lc.block[0] = 1;
	op.collective = collective;
	assert_int_equal(b->s->op(b->s, &op, &lc), GS_OK);
}

/* An all-reduce of `nelems` Float on process group "0" of 4 ranks:
 * returns what an op's .collective holds (1 + index). */
static uint32_t allreduce(struct rank_builder *b, const char *name, uint64_t nelems)
{
	struct gs_collective c = {0};
	uint32_t idx = 0;

	c.name = str(b, name);
	c.group = str(b, "0");
	c.group_desc = str(b, "default_pg");
	c.group_ranks = str(b, "[0, 1, 2, 3]");
	c.dtype = str(b, "Float");
	c.group_size = 4;
	c.in_nelems = c.out_nelems = nelems;
	c.has_nelems = true;
	assert_int_equal(b->s->collective(b->s, &c, &idx), GS_OK);
	return idx + 1;
}

static struct gs_trace *rank_end(struct rank_builder *b)
{
	assert_int_equal(gs_trace_finish(b->t), GS_OK);
	return b->t;
}

static struct gs_job *job_of(struct gs_trace **traces, size_t n)
{
	static const char *const names[] = {"r0.json", "r1.json", "r2.json", "r3.json",
					    "r4.json", "r5.json", "r6.json", "r7.json"};
	struct gs_job *j = NULL;

	assert_true(n <= 8);
	assert_int_equal(gs_job_from_traces(traces, names, n, &j), GS_OK);
	return j;
}

static struct gs_report *report_of(const struct gs_job *j)
{
	static const char *const inputs[] = {"r0.json", "r1.json", "r2.json", "r3.json"};
	struct gs_report_options o = {.inputs = inputs, .n_inputs = 4, .format = "kineto"};
	struct gs_report *r = NULL;

	gs_error_clear();
	assert_int_equal(gs_report_build_job(j, &o, &r), GS_OK);
	assert_non_null(r);
	return r;
}

/* ---- output ------------------------------------------------------------ */

static char *text_of(const struct gs_report *r)
{
	return report_out(gs_report_write_text, r, NULL, NULL);
}

static char *html_of(const struct gs_report *r)
{
	return report_out(gs_report_write_html, r, NULL, NULL);
}

static cJSON *json_of(const struct gs_report *r)
{
	char *buf = report_out(gs_report_write_json, r, NULL, NULL);
	cJSON *j;

	j = cJSON_Parse(buf);
	if (!j)
		print_error("JSON does not parse:\n%s\n", buf);
	assert_non_null(j);
	free(buf);
	return j;
}

static void num_is(const cJSON *j, double want)
{
	assert_true(cJSON_IsNumber(j));
	if (fabs(j->valuedouble - want) > 1e-9 * (fabs(want) > 1 ? fabs(want) : 1))
		print_error("got %.17g, want %.17g\n", j->valuedouble, want);
	assert_true(fabs(j->valuedouble - want) <= 1e-9 * (fabs(want) > 1 ? fabs(want) : 1));
}

static void near_is(const cJSON *j, double want, double tol)
{
	assert_true(cJSON_IsNumber(j));
	if (fabs(j->valuedouble - want) > tol)
		print_error("got %.17g, want %.17g\n", j->valuedouble, want);
	assert_true(fabs(j->valuedouble - want) <= tol);
}

/* ---- the 4-rank job ------------------------------------------------------ */

/*
 * 4 ranks, 6 all-reduces of 1 Mi Float (4 MiB) on process group "0", one
 * a millisecond from 1 s (B_i = 1 s + i ms). Rank r arrives at B_i +
 * off[i][r]; all ranks' kernels end at B_i + last_i + 100 µs + r µs, so
 * the transfer is 100 µs (rank 0's end). Before each, a compute kernel
 * "fwd" [B_i - 300 µs, arrival) on stream 7; during the transfer "gemm"
 * [B_i + last_i, + 100 µs): a rank's exposed communication is its waits
 * plus its r µs tail per collective.
 *
 *   i  offsets (µs)     last  skew  waits (sum)
 *   0  0 10 50 20       2     50    50 40  0 30 (120)
 *   1  5  0 40 10       2     40    35 40  0 30 (105)
 *   2  30 0 10 20       0     30     0 30 20 10 (60)
 *   3  0  0 60  0       2     60    60 60  0 60 (180)
 *   4  0 25  5 10       1     25    25  0 20 15 (60)
 *   5  10 20 30 0       2     30    20 10  0 30 (60)
 *
 * Rank 2 was last in 4 of 6 (chance: 1.5): a straggler; the others waited
 * 120 + 105 + 180 + 60 = 465 µs for it. Waited: rank 0 190, rank 1 180,
 * rank 2 40, rank 3 175 µs (585 in all). algbw = 4194304 B / 100 µs =
 * 41.94304 GB/s, busbw = x 2 (4 - 1) / 4 = 62.91456 GB/s.
 * Communication time per rank: waited + 6 x (100 + r) µs: 790, 786,
 * 652, 793 µs; min rank 2, median (lower middle) rank 1, max rank 3.
 */
static const int64_t off4[6][4] = {
	{0, 10, 50, 20}, {5, 0, 40, 10}, {30, 0, 10, 20},
	{0, 0, 60, 0},   {0, 25, 5, 10}, {10, 20, 30, 0},
};

#define NCCL_AR "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"

static int64_t last_of(const int64_t *offs, size_t n)
{
	int64_t m = offs[0];

	for (size_t i = 1; i < n; i++)
		m = offs[i] > m ? offs[i] : m;
	return m;
}

static int64_t first_of(const int64_t *offs, size_t n)
{
	int64_t m = offs[0];

	for (size_t i = 1; i < n; i++)
		m = offs[i] < m ? offs[i] : m;
	return m;
}

/* Rank r of the 4-rank job; with `count` collectives (6 or fewer). */
static struct gs_trace *rank4(uint32_t r, size_t count, int64_t base, bool described)
{
	struct rank_builder b;

	rank_begin(&b, r, "node0");
	for (size_t i = 0; i < count; i++) {
		int64_t bi = base + (int64_t)i * STEP;
		int64_t arr = bi + off4[i][r] * US, last = bi + last_of(off4[i], 4) * US;
		uint32_t coll = described ? allreduce(&b, "allreduce", 1048576) : 0;

		kernel(&b, b.compute, "fwd", bi - 300 * US, arr, 0);
		kernel(&b, b.nccl, NCCL_AR, arr, last + 100 * US + (int64_t)r * US, coll);
		kernel(&b, b.compute, "gemm", last, last + 100 * US, 0);
	}
	return rank_end(&b);
}

static void test_four_ranks(void **state)
{
	struct gs_trace *t[4];
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *job, *c;
	static const int64_t waited[4] = {190, 180, 40, 175};
	static const int64_t last_n[4] = {1, 1, 4, 0};
	/* Compute before each collective: fwd, 300 µs + the rank's offset
	 * (the gemm of the step before ends before its own collective). */
	static const int64_t before[4] = {1845, 1855, 1995, 1860};
	/* By skew: i3 60, i0 50, i1 40, i2 30, i5 30, i4 25 µs. */
	static const int order[6] = {3, 0, 1, 2, 5, 4};
	static const int last_rank[6] = {2, 2, 0, 2, 1, 2};

	(void)state;
	for (uint32_t k = 0; k < 4; k++)
		t[k] = rank4(k, 6, BASE, true);
	j = job_of(t, 4);
	r = report_of(j);
	js = json_of(r);
	job = at(js, "job", NULL);

	/* One communicator: process group "0", 4 ranks, 6 each. */
	assert_int_equal(cJSON_GetArraySize(at(job, "communicators", NULL)), 1);
	c = at(job, "communicators", "#0", NULL);
	str_is(at(c, "key", NULL), "process_group");
	str_is(at(c, "group", NULL), "0");
	str_is(at(c, "name", NULL), "pg 0 default_pg");
	num_is(at(c, "group_size", NULL), 4);
	num_is(at(c, "matched", NULL), 6);
	num_is(at(c, "skew_max_ns", NULL), 60 * US);
	num_is(at(c, "skew_mean_ns", NULL), (50 + 40 + 30 + 60 + 25 + 30) * US / 6);
	num_is(at(c, "wait_ns", NULL), 585 * US);
	num_is(at(c, "transfer_mean_ns", NULL), 100 * US);

	num_is(at(job, "collectives_total", NULL), 6);
	num_is(at(job, "collectives_listed", NULL), 6);
	for (int i = 0; i < 6; i++) {
		const cJSON *x = cJSON_GetArrayItem(at(job, "collectives", NULL), i);
		int ci = order[i];
		int64_t last = last_of(off4[ci], 4);

		assert_non_null(x);
		num_is(at(x, "communicator", NULL), 0);
		num_is(at(x, "index", NULL), ci);
		str_is(at(x, "name", NULL), "allreduce");
		num_is(at(x, "skew_ns", NULL), (last - first_of(off4[ci], 4)) * US);
		num_is(at(x, "last_rank", NULL), last_rank[ci]);
		num_is(at(x, "transfer_ns", NULL), 100 * US);
		num_is(at(x, "bytes", NULL), 4194304);
		near_is(at(x, "algbw_gbps", NULL), 41.94304, 1e-4);
		near_is(at(x, "busbw_gbps", NULL), 62.91456, 1e-4);
		for (int k = 0; k < 4; k++) {
			const cJSON *rk = at(x, "ranks", NULL);

			num_is(cJSON_GetObjectItem(cJSON_GetArrayItem(rk, k), "rank"), k);
			num_is(cJSON_GetObjectItem(cJSON_GetArrayItem(rk, k), "arrival_ns"),
			       BASE + ci * STEP + off4[ci][k] * US);
			num_is(cJSON_GetObjectItem(cJSON_GetArrayItem(rk, k), "wait_ns"),
			       (last - off4[ci][k]) * US);
		}
	}
	for (int k = 0; k < 4; k++) {
		const cJSON *tot = cJSON_GetArrayItem(at(job, "rank_totals", NULL), k);

		num_is(at(tot, "rank", NULL), k);
		num_is(at(tot, "collectives", NULL), 6);
		num_is(at(tot, "waited_ns", NULL), waited[k] * US);
		num_is(at(tot, "times_last", NULL), last_n[k]);
		num_is(at(tot, "compute_before_ns", NULL), before[k] * US);
		assert_true(cJSON_IsBool(at(tot, "straggler", NULL)));
		assert_int_equal(cJSON_IsTrue(at(tot, "straggler", NULL)), k == 2);
	}
	assert_int_equal(cJSON_GetArraySize(at(job, "stragglers", NULL)), 1);
	num_is(at(job, "stragglers", "#0", "rank", NULL), 2);
	num_is(at(job, "stragglers", "#0", "times_last", NULL), 4);
	num_is(at(job, "stragglers", "#0", "collectives", NULL), 6);
	num_is(at(job, "stragglers", "#0", "cost_ns", NULL), 465 * US);
	assert_int_equal(cJSON_GetArraySize(at(job, "mismatches", NULL)), 0);

	/* Min / median / max over the 4 GPUs. */
	c = at(job, "summary", "comm_ns", NULL);
	num_is(at(c, "count", NULL), 4);
	num_is(at(c, "min", NULL), 652 * US);
	num_is(at(c, "min_rank", NULL), 2);
	num_is(at(c, "median", NULL), 786 * US);
	num_is(at(c, "median_rank", NULL), 1);
	num_is(at(c, "max", NULL), 793 * US);
	num_is(at(c, "max_rank", NULL), 3);
	c = at(job, "summary", "comm_exposed_ns", NULL);
	num_is(at(c, "min", NULL), 52 * US);
	num_is(at(c, "min_rank", NULL), 2);
	num_is(at(c, "max", NULL), 193 * US);
	num_is(at(c, "max_rank", NULL), 3);
	/* Per rank: communication and its overlap with compute. */
	c = at(job, "ranks", "#0", NULL);
	num_is(at(c, "rank", NULL), 0);
	str_is(at(c, "host", NULL), "node0");
	num_is(at(c, "comm_ns", NULL), 790 * US);
	num_is(at(c, "comm_exposed_ns", NULL), 190 * US);
	near_is(at(c, "overlap", NULL), 1.0 - 190.0 / 790.0, 1e-4);
	num_is(at(c, "comm_kernels", NULL), 6);

	/* Findings: the straggler first, with its numbers. */
	str_is(at(job, "findings", "#0", "kind", NULL), "straggler");
	num_is(at(job, "findings", "#0", "ns", NULL), 465 * US);
	assert_non_null(strstr(at(job, "findings", "#0", "text", NULL)->valuestring,
			       "rank 2 arrived last at 66.7% of 6 collectives"));
	assert_non_null(strstr(at(job, "findings", "#0", "text", NULL)->valuestring,
			       "the others waited 465.000 us for it; its compute before them took "
			       "1.995 ms, 140.000 us more than the median rank's"));
	cJSON_Delete(js);

	/* The text: the job's findings come first, before every table and
	 * every rank's own section; 100 columns. */
	{
		char *txt = text_of(r);
		const char *fin, *ranks, *dev;

		if (getenv("GS_TEST_SHOW"))
			fputs(txt, stderr);

		check_lines(txt);
		fin = strstr(txt, "Job findings");
		ranks = strstr(txt, "  Ranks\n");
		dev = strstr(txt, "━━ rank 0");
		assert_non_null(fin);
		assert_non_null(ranks);
		assert_non_null(dev);
		assert_true(fin < ranks && ranks < dev);
		flat(txt);
		fin = strstr(txt, "Job findings 1. rank 2 arrived last at 66.7% of 6 collectives");
		if (!fin)
			print_error("%s\n", txt);
		assert_non_null(fin);
		assert_non_null(strstr(fin, "-> look at rank 2's own section"));
		assert_non_null(strstr(txt, "pg 0 default_pg 4 6 group 39.166 us 60.000 us "
					    "585.000 us 100.000 us 62.91 GB/s"));
		/* One host: one clock. */
		assert_non_null(strstr(txt, "Clocks one clock: every rank on host node0;"));
		free(txt);
	}
	/* The HTML: the job section before the first GPU's, its drawing. */
	{
		char *h = html_of(r);
		const char *sec = strstr(h, "<section class=\"job\" id=\"job\">");
		const char *dev = strstr(h, "id=\"dev-0\"");

		assert_non_null(sec);
		assert_non_null(dev);
		assert_true(sec < dev);
		assert_non_null(strstr(sec, "id=\"job-timeline-0\""));
		assert_non_null(strstr(sec, "id=\"job-ranks\""));
		assert_non_null(strstr(sec, "skew 60.000 \xc2\xb5s: rank 2 arrived last"));
		free(h);
	}
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* One rank lacks the last collective: all 6 are compared (the last over
 * the 3 ranks that ran it), and the mismatch says which rank lacks which,
 * and where. */
static void test_count_mismatch(void **state)
{
	struct gs_trace *t[4];
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *job, *m;

	(void)state;
	for (uint32_t k = 0; k < 4; k++)
		t[k] = rank4(k, k == 3 ? 5 : 6, BASE, true);
	j = job_of(t, 4);
	r = report_of(j);
	js = json_of(r);
	job = at(js, "job", NULL);
	num_is(at(job, "communicators", "#0", "matched", NULL), 6);
	str_is(at(job, "communicators", "#0", "matched_by", NULL), "group_order");
	num_is(at(job, "collectives_total", NULL), 6);
	assert_int_equal(cJSON_GetArraySize(at(job, "mismatches", NULL)), 1);
	m = at(job, "mismatches", "#0", NULL);
	str_is(at(m, "kind", NULL), "count");
	num_is(at(m, "communicator", NULL), 0);
	num_is(at(m, "matched", NULL), 6);
	num_is(at(m, "count", NULL), 1);
	num_is(at(m, "ranks", "#3", "rank", NULL), 3);
	num_is(at(m, "ranks", "#3", "count", NULL), 5);
	num_is(at(m, "ranks", "#0", "count", NULL), 6);
	str_is(at(m, "text", NULL),
	       "pg 0 default_pg: 6 collectives matched by their ends, in order; rank 3 lacks 1 "
	       "(the first #5, at +5.010 ms): each compared over the ranks that ran it");
	/* The sixth over ranks 0-2 (offsets 10, 20, 30 us): rank 2 last in 4
	 * (i0, i1, i3, i5), the others waiting 20 + 10 us more for it. */
	num_is(at(job, "rank_totals", "#2", "times_last", NULL), 4);
	num_is(at(job, "rank_totals", "#2", "cost_ns", NULL), (120 + 105 + 180 + 30) * US);
	num_is(at(job, "rank_totals", "#3", "collectives", NULL), 5);
	num_is(at(job, "rank_totals", "#0", "collectives", NULL), 6);
	{
		const cJSON *x = NULL, *y;

		cJSON_ArrayForEach(y, at(job, "collectives", NULL))
		{
			if (at(y, "index", NULL)->valuedouble == 5)
				x = y;
		}
		assert_non_null(x);
		assert_int_equal(cJSON_GetArraySize(at(x, "ranks", NULL)), 3);
		num_is(at(x, "skew_ns", NULL), 20 * US);
	}
	{
		cJSON *f;
		bool found = false;

		cJSON_ArrayForEach(f, at(job, "findings", NULL))
		{
			if (!strcmp(cJSON_GetObjectItem(f, "kind")->valuestring, "mismatch"))
				found = true;
		}
		assert_true(found);
	}
	cJSON_Delete(js);
	{
		char *txt = text_of(r);

		check_lines(txt);
		flat(txt);
		assert_non_null(strstr(txt, "rank 3 lacks 1 (the first #5, at +5.010 ms)"));
		free(txt);
	}
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* Collectives that end together but run another collective at one index:
 * that one is not compared (reported, with its index), the others are. */
static void test_name_mismatch(void **state)
{
	struct gs_trace *t[2];
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *m;

	(void)state;
	for (uint32_t k = 0; k < 2; k++) {
		struct rank_builder b;

		rank_begin(&b, k, "node0");
		for (int i = 0; i < 4; i++) {
			int64_t bi = BASE + i * STEP;
			const char *name = k == 1 && i == 2 ? "broadcast" : "allreduce";
			uint32_t coll = allreduce(&b, name, 256);

			kernel(&b, b.nccl, NCCL_AR, bi + (int64_t)k * 10 * US, bi + 200 * US, coll);
		}
		t[k] = rank_end(&b);
	}
	j = job_of(t, 2);
	r = report_of(j);
	js = json_of(r);
	num_is(at(js, "job", "communicators", "#0", "matched", NULL), 3);
	m = at(js, "job", "mismatches", NULL);
	/* The group declares 4 ranks, the job has 2: reported too; and the
	 * two kernels that match no other rank's. */
	assert_int_equal(cJSON_GetArraySize(m), 3);
	str_is(at(m, "#0", "kind", NULL), "ranks");
	num_is(at(m, "#0", "group_size", NULL), 4);
	str_is(at(m, "#1", "kind", NULL), "count");
	num_is(at(m, "#1", "count", NULL), 2);
	str_is(at(m, "#2", "kind", NULL), "name");
	num_is(at(m, "#2", "index", NULL), 2);
	num_is(at(m, "#2", "count", NULL), 1);
	str_is(at(m, "#2", "text", NULL),
	       "pg 0 default_pg: 1 kernel ends with another rank's of another collective (kind or "
	       "size; the first the reference's #2): not compared");
	/* Rank 1 is 10 µs late at the 3 compared: last in 3 of 3, three
	 * quarters suffice with 2 ranks. */
	num_is(at(js, "job", "rank_totals", "#1", "times_last", NULL), 3);
	assert_int_equal(cJSON_GetArraySize(at(js, "job", "stragglers", NULL)), 1);
	/* 256 Float = 1 KiB over a transfer of 190 µs. */
	num_is(at(js, "job", "collectives", "#0", "bytes", NULL), 1024);
	num_is(at(js, "job", "collectives", "#0", "transfer_ns", NULL), 190 * US);
	/* n = the declared group size (4): busbw = algbw x 1.5. */
	near_is(at(js, "job", "collectives", "#0", "busbw_gbps", NULL), 1024.0 / 190000.0 * 1.5,
		1e-4);
	cJSON_Delete(js);
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* Ranks on two clocks (two hours apart): each clock group is matched on
 * its own, never with the other. Kernels without a collective
 * description: one communicator per collective kind, never by stream. */
static void test_clock_groups(void **state)
{
	struct gs_trace *t[4];
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *comms, *x;

	(void)state;
	for (uint32_t k = 0; k < 4; k++)
		t[k] = rank4(k, 6, k < 2 ? BASE : BASE + 2 * HOUR, false);
	j = job_of(t, 4);
	assert_int_equal(j->n_clock_groups, 2);
	r = report_of(j);
	js = json_of(r);
	comms = at(js, "job", "communicators", NULL);
	assert_int_equal(cJSON_GetArraySize(comms), 2);
	for (int g = 0; g < 2; g++) {
		const cJSON *c = cJSON_GetArrayItem(comms, g);

		str_is(at(c, "key", NULL), "kind");
		str_is(at(c, "kind", NULL), "AllReduce");
		str_is(at(c, "matched_by", NULL), "order");
		str_is(at(c, "name", NULL),
		       g ? "AllReduce (no pg) @clock 1" : "AllReduce (no pg) @clock 0");
		assert_true(cJSON_IsNull(at(c, "group", NULL)));
		num_is(at(c, "clock_group", NULL), g);
		assert_int_equal(cJSON_GetArraySize(at(c, "ranks", NULL)), 2);
		num_is(at(c, "ranks", "#0", NULL), 2 * g);
		num_is(at(c, "ranks", "#1", NULL), 2 * g + 1);
		num_is(at(c, "matched", NULL), 6);
	}
	num_is(at(js, "job", "collectives_total", NULL), 12);
	/* Every collective holds the ranks of one clock group, and its name
	 * is the kernel's; no message size without a description. */
	cJSON_ArrayForEach(x, at(js, "job", "collectives", NULL))
	{
		const cJSON *rk = at(x, "ranks", NULL);
		double r0 = at(rk, "#0", "rank", NULL)->valuedouble;

		assert_int_equal(cJSON_GetArraySize(rk), 2);
		assert_true(r0 == 0 || r0 == 2);
		num_is(at(rk, "#1", "rank", NULL), r0 + 1);
		str_is(at(x, "name", NULL), NCCL_AR);
		assert_true(cJSON_IsNull(at(x, "bytes", NULL)));
		assert_true(cJSON_IsNull(at(x, "busbw_gbps", NULL)));
	}
	cJSON_Delete(js);
	{
		char *txt = text_of(r), *h = html_of(r);

		check_lines(txt);
		assert_non_null(strstr(txt, "AllReduce (no pg) @c"));
		assert_non_null(strstr(txt, "never compared"));
		assert_non_null(strstr(h, "id=\"job-timeline-0\""));
		assert_non_null(strstr(h, "id=\"job-timeline-1\""));
		free(txt);
		free(h);
	}
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* The last rank takes turns (rank i % 4 is 40 µs late at collective i):
 * each is last 2 times of 8, chance gives 2: no straggler, and the waits
 * (8 x 3 x 40 µs = 960 µs) are load imbalance. */
static void test_imbalance(void **state)
{
	struct gs_trace *t[4];
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *f;

	(void)state;
	for (uint32_t k = 0; k < 4; k++) {
		struct rank_builder b;

		rank_begin(&b, k, "node0");
		for (int i = 0; i < 8; i++) {
			int64_t bi = BASE + i * STEP;
			int64_t arr = bi + ((uint32_t)i % 4 == k ? 40 * US : 0);

			kernel(&b, b.compute, "fwd", bi - 300 * US, arr, 0);
			kernel(&b, b.nccl, NCCL_AR, arr, bi + 140 * US,
			       allreduce(&b, "allreduce", 1024));
			kernel(&b, b.compute, "gemm", bi + 40 * US, bi + 140 * US, 0);
		}
		t[k] = rank_end(&b);
	}
	j = job_of(t, 4);
	r = report_of(j);
	js = json_of(r);
	assert_int_equal(cJSON_GetArraySize(at(js, "job", "stragglers", NULL)), 0);
	for (int k = 0; k < 4; k++)
		num_is(cJSON_GetObjectItem(cJSON_GetArrayItem(at(js, "job", "rank_totals", NULL),
							      k),
					   "times_last"),
		       2);
	f = at(js, "job", "findings", "#0", NULL);
	str_is(at(f, "kind", NULL), "skew");
	num_is(at(f, "ns", NULL), 960 * US);
	assert_non_null(
		strstr(at(f, "text", NULL)->valuestring,
		       "the ranks waited 960.000 us in all for one another at 8 collectives "
		       "(mean skew 40.000 us, max 40.000 us)"));
	assert_non_null(strstr(at(f, "advice", NULL)->valuestring, "load imbalance across ranks"));
	cJSON_Delete(js);
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* No communication at all: the job section says so; JSON lists are empty. */
static void test_no_collectives(void **state)
{
	struct gs_trace *t[2];
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;

	(void)state;
	for (uint32_t k = 0; k < 2; k++) {
		struct rank_builder b;

		rank_begin(&b, k, k ? "node1" : "node0");
		kernel(&b, b.compute, "gemm", BASE, BASE + (10 + (int64_t)k) * US, 0);
		t[k] = rank_end(&b);
	}
	j = job_of(t, 2);
	r = report_of(j);
	js = json_of(r);
	assert_int_equal(cJSON_GetArraySize(at(js, "job", "communicators", NULL)), 0);
	assert_int_equal(cJSON_GetArraySize(at(js, "job", "collectives", NULL)), 0);
	assert_int_equal(cJSON_GetArraySize(at(js, "job", "findings", NULL)), 0);
	num_is(at(js, "job", "summary", "window_ns", "max", NULL), 11 * US);
	num_is(at(js, "job", "summary", "window_ns", "max_rank", NULL), 1);
	/* Ties (no copies anywhere) go to the lowest rank, the median's too. */
	num_is(at(js, "job", "summary", "copy_share", "min_rank", NULL), 0);
	num_is(at(js, "job", "summary", "copy_share", "median_rank", NULL), 0);
	num_is(at(js, "job", "summary", "copy_share", "max_rank", NULL), 0);
	num_is(at(js, "job", "summary", "overlap", "count", NULL), 0);
	assert_true(cJSON_IsNull(at(js, "job", "summary", "overlap", "min", NULL)));
	cJSON_Delete(js);
	{
		char *txt = text_of(r);

		check_lines(txt);
		assert_non_null(strstr(txt, "no communication kernels"));
		/* Two hosts, nothing to align their clocks on: said. */
		assert_non_null(strstr(txt, "2 clocks (hosts or inputs) and no collective to "
					    "align them on"));
		free(txt);
	}
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* ---- against the job generator -------------------------------------------- */

/*
 * gs_bench_gen --job writes the rank traces of an NCCL job and, from the
 * times it wrote, the numbers they must give (expected.json): the
 * analysis of the loaded traces must agree with every one of them.
 */
static const char *gen_path, *work_dir;

static cJSON *parse_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;
	cJSON *j;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	j = cJSON_Parse(buf);
	free(buf);
	assert_non_null(j);
	return j;
}

/* Our collective `index` of the communicator of group "0". */
static const cJSON *our_collective(const cJSON *job, double index)
{
	const cJSON *comms = at(job, "communicators", NULL), *c, *x;
	double id = -1;

	cJSON_ArrayForEach(c, comms)
	{
		const cJSON *g = cJSON_GetObjectItem(c, "group");

		if (cJSON_IsString(g) && !strcmp(g->valuestring, "0"))
			id = cJSON_GetObjectItem(c, "id")->valuedouble;
	}
	assert_true(id >= 0);
	cJSON_ArrayForEach(x, at(job, "collectives", NULL))
	{
		if (at(x, "communicator", NULL)->valuedouble == id &&
		    at(x, "index", NULL)->valuedouble == index)
			return x;
	}
	print_error("no collective %g\n", index);
	fail();
	return NULL;
}

static void check_generated(const char *args, size_t n)
{
	char cmd[4096], dir[512], path[600];
	const char *paths[8];
	char names[8][600];
	struct gs_job *j = NULL;
	struct gs_report *r;
	cJSON *exp, *got;
	const cJSON *job, *x;
	size_t failed = 0;
	int st;

	assert_true(n <= 8);
	snprintf(dir, sizeof(dir), "%s/gen-%zu", work_dir, n);
	snprintf(cmd, sizeof(cmd),
		 "rm -rf '%s' && mkdir -p '%s' && '%s' --job %zu %s --out-dir '%s' >/dev/null", dir,
		 work_dir, gen_path, n, args, dir);
	st = system(cmd);
	assert_int_equal(st, 0);
	for (size_t k = 0; k < n; k++) {
		snprintf(names[k], sizeof(names[k]), "%s/rank%zu.json", dir, k);
		paths[k] = names[k];
	}
	assert_int_equal(gs_job_load(paths, n, NULL, &j, NULL, &failed), GS_OK);
	{
		struct gs_report_options o = {.inputs = paths, .n_inputs = n, .format = "kineto"};

		assert_int_equal(gs_report_build_job(j, &o, &r), GS_OK);
	}
	got = json_of(r);
	job = at(got, "job", NULL);
	snprintf(path, sizeof(path), "%s/expected.json", dir);
	exp = parse_file(path);
	assert_int_equal(cJSON_GetArraySize(at(job, "mismatches", NULL)), 0);

	cJSON_ArrayForEach(x, at(exp, "collectives", NULL))
	{
		const cJSON *y = our_collective(job, at(x, "index", NULL)->valuedouble);
		const cJSON *arr = at(x, "arrivals_ns", NULL);

		str_is(at(y, "name", NULL), at(x, "name", NULL)->valuestring);
		num_is(at(y, "skew_ns", NULL), at(x, "skew_ns", NULL)->valuedouble);
		num_is(at(y, "last_rank", NULL), at(x, "last_rank", NULL)->valuedouble);
		num_is(at(y, "transfer_ns", NULL), at(x, "transfer_ns", NULL)->valuedouble);
		num_is(at(y, "bytes", NULL), at(x, "bytes", NULL)->valuedouble);
		near_is(at(y, "algbw_gbps", NULL), at(x, "algbw_gbps", NULL)->valuedouble, 1e-3);
		near_is(at(y, "busbw_gbps", NULL), at(x, "busbw_gbps", NULL)->valuedouble, 1e-3);
		assert_int_equal(cJSON_GetArraySize(at(y, "ranks", NULL)), cJSON_GetArraySize(arr));
		for (int k = 0; k < cJSON_GetArraySize(arr); k++) {
			const cJSON *rk = cJSON_GetArrayItem(at(y, "ranks", NULL), k);

			num_is(at(rk, "rank", NULL), k);
			num_is(at(rk, "arrival_ns", NULL), cJSON_GetArrayItem(arr, k)->valuedouble);
		}
	}
	cJSON_ArrayForEach(x, at(exp, "per_rank", NULL))
	{
		int k = (int)at(x, "rank", NULL)->valuedouble;
		const cJSON *t = cJSON_GetArrayItem(at(job, "rank_totals", NULL), k);
		const cJSON *g = cJSON_GetArrayItem(at(job, "ranks", NULL), k);

		num_is(at(t, "rank", NULL), k);
		num_is(at(t, "waited_ns", NULL), at(x, "waited_ns", NULL)->valuedouble);
		num_is(at(t, "times_last", NULL), at(x, "times_last", NULL)->valuedouble);
		num_is(at(g, "rank", NULL), k);
		num_is(at(g, "comm_kernels", NULL), at(x, "comm_kernels", NULL)->valuedouble);
		num_is(at(g, "comm_ns", NULL), at(x, "comm_kernel_ns", NULL)->valuedouble);
		num_is(at(g, "comm_exposed_ns", NULL), at(x, "exposed_comm_ns", NULL)->valuedouble);
		near_is(at(g, "overlap", NULL), at(x, "overlap_share", NULL)->valuedouble, 1e-4);
	}
	x = at(exp, "straggler", NULL);
	if (cJSON_IsNull(x)) {
		assert_int_equal(cJSON_GetArraySize(at(job, "stragglers", NULL)), 0);
	} else {
		const cJSON *s = at(job, "stragglers", "#0", NULL);

		assert_int_equal(cJSON_GetArraySize(at(job, "stragglers", NULL)), 1);
		num_is(at(s, "rank", NULL), at(x, "rank", NULL)->valuedouble);
		num_is(at(s, "times_last", NULL), at(x, "times_last", NULL)->valuedouble);
		num_is(at(s, "cost_ns", NULL), at(x, "cost_ns", NULL)->valuedouble);
		str_is(at(job, "findings", "#0", "kind", NULL), "straggler");
	}
	cJSON_Delete(exp);
	cJSON_Delete(got);
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* 8 ranks, a straggler (rank 3, every 2nd collective) and one planted
 * skew; all-reduces and all-gathers. */
static void test_generated_straggler(void **state)
{
	(void)state;
	check_generated("--straggler 3 --skew-ns 700000 --collectives 60", 8);
}

/* 4 ranks, jitter only: nobody is a straggler. */
static void test_generated_jitter(void **state)
{
	(void)state;
	check_generated("--collectives 40 --seed 7", 4);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_four_ranks),    cmocka_unit_test(test_count_mismatch),
		cmocka_unit_test(test_name_mismatch), cmocka_unit_test(test_clock_groups),
		cmocka_unit_test(test_imbalance),     cmocka_unit_test(test_no_collectives),
	};
	const struct CMUnitTest gen_tests[] = {
		cmocka_unit_test(test_generated_straggler),
		cmocka_unit_test(test_generated_jitter),
	};

	/* --gen GS_BENCH_GEN WORKDIR: against the job generator. */
	if (argc == 4 && !strcmp(argv[1], "--gen")) {
		gen_path = argv[2];
		work_dir = argv[3];
		return cmocka_run_group_tests(gen_tests, NULL, NULL);
	}
	if (argc != 1) {
		fprintf(stderr, "usage: test_job_analysis [--gen GS_BENCH_GEN WORKDIR]\n");
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
