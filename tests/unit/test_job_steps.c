/* SPDX-License-Identifier: MIT */
/*
 * Steps matched across the ranks of a job (analyzer/analyses/job_steps.c):
 * a hand-made 4-rank job whose step times are known to the microsecond
 * (min, median, max, the slowest rank, the job span, the last rank to end,
 * the rank slowest most often and its finding, in the JSON and the text),
 * the same job with half its ranks on a host no collective aligns (span
 * unknown, never guessed), and a job of gs_bench_gen --job --steps checked
 * against the GPU windows the generator wrote, each re-derived here.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report_out.h"

#include "json_at.h"
#include "trace_build.h"

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#include "job.h"

#define RANKS 4
#define T0 1000000L /* 1 s, in us */

/* Rank r's GPU time in step i (us): 2000 + 100 r, and rank 2 is 3000 us
 * slower in step 3. */
static long step_us(int i, int r)
{
	return 2000 + 100L * r + (i == 3 && r == 2 ? 3000 : 0);
}

/* Its first kernel's start: 200 + 10 r us into the step's host range. */
static long start_us(int i, int r)
{
	return T0 + 10000L * i + 200 + 10L * r;
}

/*
 * Rank r: ProfilerStep#1..#4, step i's host range [T0 + 10 ms i, + 9 ms),
 * two launches in it, of kernels [s, s + d/2) and [s + d/2 + 50, s + d)
 * on stream 7 (s = start_us, d = step_us): the step's GPU window is
 * [s, s + d). On host `host`.
 */
static struct gs_trace *rank_trace(int r, const char *host)
{
	struct js j = {0};
	struct gs_trace *t = NULL;
	char name[32];
	long corr = 1;

	js_add(&j,
	       "{\"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}], \"host_name\": \"%s\", "
	       "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d}, "
	       "\"traceEvents\": [\n",
	       host, r, RANKS);
	for (int i = 1; i <= 4; i++) {
		long h = T0 + 10000L * i, s = start_us(i, r), d = step_us(i, r);
		long k[2][2] = {{s, d / 2}, {s + d / 2 + 50, d - d / 2 - 50}};

		snprintf(name, sizeof(name), "ProfilerStep#%d", i);
		js_add(&j,
		       "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"%s\", \"pid\": 100, "
		       "\"tid\": 100, \"ts\": %ld, \"dur\": 9000},\n",
		       name, h);
		for (int q = 0; q < 2; q++, corr++)
			js_add(&j,
			       "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
			       "\"cudaLaunchKernel\", \"pid\": 100, \"tid\": 100, \"ts\": %ld, \"dur\": "
			       "2, \"args\": {\"correlation\": %ld}},\n"
			       "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, "
			       "\"tid\": 7, \"ts\": %ld, \"dur\": %ld, \"args\": {\"device\": 0, "
			       "\"context\": 1, \"stream\": 7, \"correlation\": %ld}},\n",
			       h + 10 + 10L * q, corr, q, k[q][0], k[q][1], corr);
	}
	js_add(&j,
	       "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 100, \"tid\": 100, \"ts\": %ld}]}\n",
	       T0 + 60000);
	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_import_kineto_mem(j.p, j.n, "rank.json", NULL, gs_trace_borrow_sink(t)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	free(j.p);
	return t;
}

static struct gs_report *job_report(const char *const *hosts, struct gs_job **job)
{
	static const char *const names[RANKS] = {"r0.json", "r1.json", "r2.json", "r3.json"};
	struct gs_trace *traces[RANKS];
	struct gs_report_options o = {.inputs = names, .n_inputs = RANKS, .format = "kineto"};
	struct gs_report *r = NULL;

	for (int i = 0; i < RANKS; i++)
		traces[i] = rank_trace(i, hosts[i]);
	assert_int_equal(gs_job_from_traces(traces, names, RANKS, job), GS_OK);
	gs_error_clear();
	assert_int_equal(gs_report_build_job(*job, &o, &r), GS_OK);
	return r;
}

static cJSON *json_of(const struct gs_report *r)
{
	char *buf = report_out(gs_report_write_json, r, NULL, NULL);
	cJSON *j = cJSON_Parse(buf);

	assert_non_null(j);
	free(buf);
	return j;
}

static void i64_is(const cJSON *j, int64_t want)
{
	assert_true(cJSON_IsNumber(j));
	if ((int64_t)j->valuedouble != want)
		print_error("got %.17g, want %lld\n", j->valuedouble, (long long)want);
	assert_true((int64_t)j->valuedouble == want);
}

static const cJSON *step_row(const cJSON *job, int number)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, at(job, "steps", "by_number",
				 NULL)) if ((int)at(x, "number", NULL)->valuedouble ==
					    number) return x;
	fail_msg("no step %d", number);
	return NULL;
}

/* The gap cause of `rank`'s own report for step `number`. */
static const char *rank_step_cause(const cJSON *j, int rank, int number)
{
	const cJSON *d, *s;

	cJSON_ArrayForEach(d, at(j, "devices", NULL))
	{
		if ((int)at(d, "rank", NULL)->valuedouble != rank)
			continue;
		cJSON_ArrayForEach(s, at(d, "steps",
					 NULL)) if ((int)at(s, "step", NULL)->valuedouble ==
						    number) return cJSON_IsString(at(s, "gap_cause",
										     NULL)) ?
			at(s, "gap_cause", NULL)->valuestring :
			NULL;
	}
	fail_msg("no step %d of rank %d", number, rank);
	return NULL;
}

#define US(v) ((int64_t)(v)*1000)

static void test_one_host(void **state)
{
	static const char *const hosts[RANKS] = {"node0", "node0", "node0", "node0"};
	struct gs_job *job = NULL;
	struct gs_report *r = job_report(hosts, &job);
	cJSON *j = json_of(r);
	const cJSON *jb = at(j, "job", NULL), *x, *f;
	char *text;
	bool found = false;

	(void)state;
	i64_is(at(jb, "steps", "ranks_with_steps", NULL), RANKS);
	assert_int_equal(cJSON_GetArraySize(at(jb, "steps", "by_number", NULL)), 4);
	/* Step 1: the warm-up, on every rank, so not analysed. */
	assert_true(cJSON_IsFalse(at(step_row(jb, 1), "analysed", NULL)));
	/* Step 3: rank 2 is 3 ms slower. */
	x = step_row(jb, 3);
	assert_true(cJSON_IsTrue(at(x, "analysed", NULL)));
	i64_is(at(x, "ranks", NULL), 4);
	i64_is(at(x, "min_ns", NULL), US(2000));
	i64_is(at(x, "min_rank", NULL), 0);
	i64_is(at(x, "median_ns", NULL), US(2100));
	i64_is(at(x, "median_rank", NULL), 1);
	i64_is(at(x, "max_ns", NULL), US(5200));
	i64_is(at(x, "max_rank", NULL), 2);
	assert_true(cJSON_IsTrue(at(x, "slow", NULL)));
	/* First start rank 0's (+200 us), last end rank 2's (+220 + 5200). */
	i64_is(at(x, "span_ns", NULL), US(5220));
	i64_is(at(x, "span_error_ns", NULL), 0);
	i64_is(at(x, "last_rank", NULL), 2);
	/* Ends +2200, +2310, +2530, +5420: the median's +2310. */
	i64_is(at(x, "last_after_median_ns", NULL), US(5420 - 2310));
	i64_is(at(x, "by_rank", "#2", "ns", NULL), US(5200));
	i64_is(at(x, "by_rank", "#2", "gpu_start_ns", NULL), US(start_us(3, 2)));
	/* The slowest rank's cause is its own report's. */
	{
		const char *own = rank_step_cause(j, 2, 3);

		if (own)
			str_is(at(x, "slowest_gap_cause", NULL), own);
		else
			assert_true(cJSON_IsNull(at(x, "slowest_gap_cause", NULL)));
	}
	/* Step 2: 2000..2300 us, rank 3 the slowest, not over 1.2x. */
	x = step_row(jb, 2);
	i64_is(at(x, "max_ns", NULL), US(2300));
	i64_is(at(x, "max_rank", NULL), 3);
	assert_true(cJSON_IsFalse(at(x, "slow", NULL)));
	/* Rank 3 slowest in steps 2 and 4 of the analysed 2..4: 2 x 200 us
	 * beyond the median rank's, of 3 x 2100 us. */
	x = at(jb, "steps", "slowest_rank", NULL);
	i64_is(at(x, "rank", NULL), 3);
	i64_is(at(x, "steps", NULL), 2);
	i64_is(at(x, "of", NULL), 3);
	i64_is(at(x, "extra_ns", NULL), US(400));
	for (f = at(jb, "findings", NULL)->child; f; f = f->next) {
		if (strcmp(at(f, "kind", NULL)->valuestring, "slow_steps") != 0)
			continue;
		found = true;
		i64_is(at(f, "ns", NULL), US(400));
		assert_non_null(strstr(at(f, "text", NULL)->valuestring,
				       "rank 3 had the longest step in 2 of the 3"));
		/* The numbers beside the sentence. */
		str_is(at(f, "evidence", NULL), "measured");
		str_is(at(f, "advice_kind", NULL), "look_at_rank");
		i64_is(at(f, "numbers", "rank", NULL), 3);
		i64_is(at(f, "numbers", "steps_count", NULL), 2);
		i64_is(at(f, "numbers", "of_count", NULL), 3);
		i64_is(at(f, "numbers", "extra_ns", NULL), US(400));
		i64_is(at(f, "numbers", "median_steps_ns", NULL), US(3 * 2100));
	}
	assert_true(found);
	text = report_out(gs_report_write_text, r, NULL, NULL);
	check_lines(text);
	assert_non_null(strstr(text, "Steps across ranks"));
	/* Step 3's row: analysed, over 1.2x, max rank 2, span, rank 2 last. */
	assert_non_null(strstr(text,
			       "    *!     3     4    2.000 ms    2.100 ms    5.200 ms    2    "
			       "5.220 ms  2 +3.110 ms"));
	assert_non_null(strstr(text, "rank 3 had the longest step in 2 of 3 analysed steps"));
	free(text);
	text = report_out(gs_report_write_html, r, NULL, NULL);
	assert_non_null(strstr(text, "id=\"job-steps\""));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_job_destroy(job);
}

/* Ranks 2 and 3 on a host no collective aligns with the first: each
 * rank's step time stands, the job's span of a step is unknown. */
static void test_unaligned_hosts(void **state)
{
	static const char *const hosts[RANKS] = {"node0", "node0", "node1", "node1"};
	struct gs_job *job = NULL;
	struct gs_report *r = job_report(hosts, &job);
	cJSON *j = json_of(r);
	const cJSON *x = step_row(at(j, "job", NULL), 3);
	char *text;

	(void)state;
	i64_is(at(x, "max_ns", NULL), US(5200));
	assert_true(cJSON_IsNull(at(x, "span_ns", NULL)));
	assert_true(cJSON_IsNull(at(x, "last_rank", NULL)));
	text = report_out(gs_report_write_text, r, NULL, NULL);
	assert_non_null(strstr(text, "job span unknown for 4 steps"));
	free(text);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_job_destroy(job);
}

/* ---- a generated job ---- */

static const cJSON *num_at(const cJSON *a, int i)
{
	const cJSON *v = cJSON_GetArrayItem(a, i);

	assert_non_null(v);
	assert_true(cJSON_IsNumber(v));
	return v;
}

struct dur {
	int64_t ns;
	int rank;
};

static int cmp_dur(const void *pa, const void *pb)
{
	const struct dur *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns < b->ns ? -1 : 1;
	return a->rank - b->rank;
}

static void test_generated(void **state)
{
	enum {
		N = 6
	};
	char dir[64], path[128], *paths[N];
	struct gs_bench_job_options o = {.ranks = N,
					 .collectives = 24,
					 .straggler = 4,
					 .threads = 1,
					 .steps = true};
	struct gs_bench_job_summary sum;
	struct gs_job *job = NULL;
	struct gs_report *r = NULL;
	struct gs_report_options ro = {0};
	cJSON *want, *j;
	const cJSON *e, *jb;
	size_t len;
	char *buf;
	FILE *f;
	int n_steps = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gs-test-job-steps-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_int_equal(gs_bench_job_generate(&o, dir, &sum), GS_OK);
	for (int i = 0; i < N; i++) {
		paths[i] = malloc(128);
		assert_non_null(paths[i]);
		snprintf(paths[i], 128, "%s/rank%d.json", dir, i);
	}
	snprintf(path, sizeof(path), "%s/expected.json", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	buf = malloc(1 << 20);
	assert_non_null(buf);
	len = fread(buf, 1, (1 << 20) - 1, f);
	buf[len] = '\0';
	fclose(f);
	want = cJSON_Parse(buf);
	assert_non_null(want);
	free(buf);
	assert_int_equal(gs_job_load((const char *const *)paths, N, NULL, &job, NULL, NULL), GS_OK);
	ro.inputs = (const char *const *)paths;
	ro.n_inputs = N;
	assert_int_equal(gs_report_build_job(job, &ro, &r), GS_OK);
	j = json_of(r);
	jb = at(j, "job", NULL);
	i64_is(at(jb, "steps", "ranks_with_steps", NULL), N);
	cJSON_ArrayForEach(e, at(want, "step_windows", NULL))
	{
		int number = (int)at(e, "number", NULL)->valuedouble;
		const cJSON *x = step_row(jb, number);
		struct dur d[N];
		int64_t lo = INT64_MAX, hi = INT64_MIN, ends[N];
		int last = 0;

		n_steps++;
		for (int k = 0; k < N; k++) {
			int64_t s = (int64_t)num_at(at(e, "gpu_start_ns", NULL), k)->valuedouble;
			int64_t t = (int64_t)num_at(at(e, "gpu_end_ns", NULL), k)->valuedouble;
			const cJSON *br = cJSON_GetArrayItem(at(x, "by_rank", NULL), k);

			assert_non_null(br);
			i64_is(at(br, "rank", NULL), k);
			i64_is(at(br, "gpu_start_ns", NULL), s);
			i64_is(at(br, "gpu_end_ns", NULL), t);
			d[k] = (struct dur){t - s, k};
			ends[k] = t;
			lo = s < lo ? s : lo;
			if (t > hi) {
				hi = t;
				last = k;
			}
		}
		qsort(d, N, sizeof(*d), cmp_dur);
		/* The max's ties go to the lowest rank. */
		for (int k = N - 1; k > 0 && d[k - 1].ns == d[N - 1].ns; k--)
			d[N - 1].rank = d[k - 1].rank;
		i64_is(at(x, "ranks", NULL), N);
		i64_is(at(x, "min_ns", NULL), d[0].ns);
		i64_is(at(x, "min_rank", NULL), d[0].rank);
		i64_is(at(x, "median_ns", NULL), d[(N - 1) / 2].ns);
		i64_is(at(x, "median_rank", NULL), d[(N - 1) / 2].rank);
		i64_is(at(x, "max_ns", NULL), d[N - 1].ns);
		i64_is(at(x, "max_rank", NULL), d[N - 1].rank);
		/* One clock: the span is exact. */
		i64_is(at(x, "span_ns", NULL), hi - lo);
		i64_is(at(x, "span_error_ns", NULL), 0);
		i64_is(at(x, "last_rank", NULL), last);
		{
			int64_t s[N];

			memcpy(s, ends, sizeof(s));
			for (int a = 1; a < N; a++)
				for (int b = a; b > 0 && s[b - 1] > s[b]; b--) {
					int64_t t = s[b];

					s[b] = s[b - 1];
					s[b - 1] = t;
				}
			i64_is(at(x, "last_after_median_ns", NULL), hi - s[(N - 1) / 2]);
		}
		/* The first step is the warm-up. */
		if (number == 0)
			assert_true(cJSON_IsFalse(at(x, "analysed", NULL)));
	}
	assert_true(n_steps >= 5);
	assert_int_equal(cJSON_GetArraySize(at(jb, "steps", "by_number", NULL)), n_steps);
	cJSON_Delete(j);
	cJSON_Delete(want);
	gs_report_destroy(r);
	gs_job_destroy(job);
	for (int i = 0; i < N; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_host),
		cmocka_unit_test(test_unaligned_hosts),
		cmocka_unit_test(test_generated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
