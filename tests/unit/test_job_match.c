/* SPDX-License-Identifier: MIT */
/*
 * Jobs as they come: collectives matched across processes whatever their
 * stream ids, sessions on their true clocks, hosts aligned on the ends of
 * their collectives with the residual stated, and verdicts only where the
 * data holds them (partial jobs, kernels that never ran at once, peers not
 * in the job, sequence numbers). Each job is generated with its numbers
 * planted: Nsight exports of several processes (nsys_build.h), the job
 * generator's Kineto ranks (bench/job.h) moved onto shifted host clocks,
 * and small ranks built through the trace sink.
 */
#include <math.h>
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

#include <cJSON.h>

#include "json_at.h"
#include "nsys_build.h"
#include "shift_sink.h"

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#include "job.h"

#define US 1000LL
#define MS 1000000LL
#define HOUR (3600LL * 1000000000LL)

/* ---- helpers ---- */

static struct gs_report *report_opts(const struct gs_job *j, int align)
{
	struct gs_report_options o = {.align = align};
	struct gs_report *r = NULL;

	gs_error_clear();
	assert_int_equal(gs_report_build_job(j, &o, &r), GS_OK);
	return r;
}

static cJSON *json_of(const struct gs_report *r)
{
	char *buf = report_out(gs_report_write_json, r, NULL, NULL);
	cJSON *j = cJSON_Parse(buf);

	if (!j)
		print_error("JSON does not parse:\n%s\n", buf);
	assert_non_null(j);
	free(buf);
	return j;
}

static char *text_of(const struct gs_report *r)
{
	char *t = report_out(gs_report_write_text, r, NULL, NULL);

	if (getenv("GS_TEST_SHOW"))
		fputs(t, stderr);
	return t;
}

static double num(const cJSON *j)
{
	assert_true(cJSON_IsNumber(j));
	return j->valuedouble;
}

/* The collective of communicator `comm` with index `index`; NULL. */
static const cJSON *collective(const cJSON *job, double comm, double index)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, at(job, "collectives", NULL))
	{
		if (num(at(x, "communicator", NULL)) == comm && num(at(x, "index", NULL)) == index)
			return x;
	}
	return NULL;
}

static void temp_path(char *buf, size_t size, const char *tag)
{
	int fd;

	snprintf(buf, size, "/tmp/gs_job_match_%s_XXXXXX", tag);
	fd = mkstemp(buf);
	assert_true(fd >= 0);
	close(fd);
}

/* ---- Nsight exports of several processes ---- */

static struct nsb_job nsys_job(int procs, int collectives)
{
	struct nsb_job o = {.procs = procs,
			    .collectives = collectives,
			    .t0 = 5000000000000LL, /* 5000 s after boot */
			    .skew_proc = -1,
			    .drop_proc = -1,
			    .host = "gpunode1"};

	for (int p = 0; p < procs; p++)
		o.nccl_stream[p] = 7 + 8 * p; /* 7, 15, 23, ...: each process's own */
	return o;
}

static struct gs_job *load_nsys(const char *const *paths, size_t n)
{
	struct gs_job *j = NULL;

	assert_int_equal(gs_job_load(paths, n, NULL, &j, NULL, NULL), GS_OK);
	return j;
}

/*
 * Two processes on two GPUs, their NCCL kernels on streams 7 and 15: all
 * 33 all-reduces matched (by kind, in order), process 1 planted 3.34 ms
 * late at collective 10; every skew exactly what was written.
 */
static void test_nsys_streams_differ(void **state)
{
	char path[64];
	const char *paths[1] = {path};
	struct nsb_job o = nsys_job(2, 33);
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *job, *c;
	char *txt;

	(void)state;
	o.skew_proc = 1;
	o.skew_index = 10;
	o.skew_ns = 3340 * US;
	temp_path(path, sizeof(path), "nsys");
	assert_int_equal(nsys_build_job(path, &o), 0);
	j = load_nsys(paths, 1);
	assert_int_equal(j->n_ranks, 2);
	r = report_opts(j, 0);
	js = json_of(r);
	job = at(js, "job", NULL);
	assert_int_equal(cJSON_GetArraySize(at(job, "communicators", NULL)), 1);
	c = at(job, "communicators", "#0", NULL);
	str_is(at(c, "key", NULL), "kind");
	str_is(at(c, "kind", NULL), "AllReduce");
	str_is(at(c, "matched_by", NULL), "order");
	assert_int_equal(num(at(c, "matched", NULL)), 33);
	assert_int_equal(num(at(c, "unmatched", "#0", NULL)), 0);
	assert_int_equal(num(at(c, "unmatched", "#1", NULL)), 0);
	assert_int_equal(num(at(c, "skew_max_ns", NULL)), 3340 * US);
	assert_int_equal(cJSON_GetArraySize(at(job, "mismatches", NULL)), 0);
	/* Every collective: its skew and last rank exactly as written. */
	for (int k = 0; k < 33; k++) {
		const cJSON *x = collective(job, 0, k);
		long long a0 = nsb_job_arrival(&o, 0, k), a1 = nsb_job_arrival(&o, 1, k);

		assert_non_null(x);
		assert_int_equal(num(at(x, "skew_ns", NULL)), a0 > a1 ? a0 - a1 : a1 - a0);
		assert_int_equal(num(at(x, "last_rank", NULL)), a1 > a0 ? 1 : 0);
		assert_int_equal(num(at(x, "transfer_ns", NULL)), NSB_JOB_TRANSFER);
		assert_false(cJSON_IsTrue(at(x, "within_clock_error", NULL)));
	}
	/* One input: one clock, offset 0, the session's wall clock unknown
	 * (no TARGET_INFO_SESSION_START_TIME). */
	assert_int_equal(cJSON_GetArraySize(at(job, "clocks", NULL)), 1);
	str_is(at(job, "clocks", "#0", "alignment", NULL), "reference");
	str_is(at(job, "clocks", "#0", "host", NULL), "gpunode1");
	cJSON_Delete(js);
	txt = text_of(r);
	assert_non_null(strstr(txt, "one clock: every rank on host gpunode1"));
	assert_null(strstr(txt, "not compared: one rank"));
	free(txt);
	gs_report_destroy(r);
	gs_job_destroy(j);
	unlink(path);
}

/*
 * Process 1's trace missed collective 0 (its profiler started later): the
 * other 32 pair with the right partner, the gap is reported where it
 * happened, and no pair is shifted by one.
 */
static void test_nsys_missing_first(void **state)
{
	char path[64];
	const char *paths[1] = {path};
	struct nsb_job o = nsys_job(2, 33);
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *job, *m;

	(void)state;
	o.drop_proc = 1;
	o.drop_index = 0;
	temp_path(path, sizeof(path), "drop");
	assert_int_equal(nsys_build_job(path, &o), 0);
	j = load_nsys(paths, 1);
	r = report_opts(j, 0);
	js = json_of(r);
	job = at(js, "job", NULL);
	assert_int_equal(num(at(job, "communicators", "#0", "matched", NULL)), 32);
	assert_int_equal(num(at(job, "communicators", "#0", "collectives", NULL)), 32);
	assert_int_equal(num(at(job, "communicators", "#0", "unmatched", "#0", NULL)), 1);
	assert_null(collective(job, 0, 0));
	for (int k = 1; k < 33; k++) {
		const cJSON *x = collective(job, 0, k);
		long long a0 = nsb_job_arrival(&o, 0, k), a1 = nsb_job_arrival(&o, 1, k);

		assert_non_null(x);
		assert_int_equal(num(at(x, "skew_ns", NULL)), a0 > a1 ? a0 - a1 : a1 - a0);
	}
	assert_int_equal(cJSON_GetArraySize(at(job, "mismatches", NULL)), 1);
	m = at(job, "mismatches", "#0", NULL);
	str_is(at(m, "kind", NULL), "count");
	assert_non_null(strstr(at(m, "text", NULL)->valuestring,
			       "32 collectives matched by their ends, in order; rank 0 has 1 no "
			       "other rank ran (the first its #0, at +0 ns)"));
	cJSON_Delete(js);
	gs_report_destroy(r);
	gs_job_destroy(j);
	unlink(path);
}

/*
 * Two Nsight sessions of one host, captured 80 minutes apart: times since
 * boot that look alike, session starts that do not. Two clock groups,
 * nothing compared, one warning.
 */
static void test_nsys_sessions_apart(void **state)
{
	char pa[64], pb[64];
	const char *paths[2] = {pa, pb};
	struct nsb_job o = nsys_job(1, 20);
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *job;
	bool warned = false;

	(void)state;
	temp_path(pa, sizeof(pa), "sa");
	temp_path(pb, sizeof(pb), "sb");
	o.sys_clock = true;
	o.session_sys_ns = o.t0 - 1000 * MS;
	o.session_utc_ns = 1764000000000000000LL;
	assert_int_equal(nsys_build_job(pa, &o), 0);
	o.session_utc_ns += 80 * 60 * 1000000000LL;
	assert_int_equal(nsys_build_job(pb, &o), 0);
	j = load_nsys(paths, 2);
	assert_int_equal(j->n_ranks, 2);
	assert_int_equal(j->n_clock_groups, 2);
	assert_int_equal(j->ranks[0].clock, GS_CLOCK_NSYS_SESSION);
	assert_int_equal(j->ranks[0].wall_offset_ns, 1764000000000000000LL - o.session_sys_ns);
	for (size_t i = 0; i < j->n_warnings; i++)
		warned |= strstr(j->warnings[i], "do not overlap in wall time (1.3 h apart") !=
			  NULL;
	assert_true(warned);
	r = report_opts(j, 0);
	js = json_of(r);
	job = at(js, "job", NULL);
	assert_int_equal(num(at(job, "collectives_total", NULL)), 0);
	assert_int_equal(cJSON_GetArraySize(at(job, "stragglers", NULL)), 0);
	{
		const cJSON *c;

		cJSON_ArrayForEach(c, at(job, "communicators", NULL))
		{
			assert_int_equal(cJSON_GetArraySize(at(c, "ranks", NULL)), 1);
			assert_int_equal(num(at(c, "matched", NULL)), 0);
		}
	}
	cJSON_Delete(js);
	gs_report_destroy(r);
	gs_job_destroy(j);

	/* Older exports (no systemClockNs) count from the capture's start: the
	 * same rule on utcEpochNs alone. */
	o.sys_clock = false;
	o.session_utc_ns = 1764000000000000000LL;
	assert_int_equal(nsys_build_job(pa, &o), 0);
	o.session_utc_ns += HOUR;
	assert_int_equal(nsys_build_job(pb, &o), 0);
	j = load_nsys(paths, 2);
	assert_int_equal(j->n_clock_groups, 2);
	assert_int_equal(j->ranks[1].wall_offset_ns, 1764000000000000000LL + HOUR);
	gs_job_destroy(j);
	unlink(pa);
	unlink(pb);
}

/*
 * Two hosts booted at different times, one run: their times since boot lie
 * 5 h apart, their sessions' starts say they ran together, and host B's
 * clock reads 400 us late. One clock group, host B fitted -400 us on the
 * ends of the all-reduces, residual 0; every skew as written.
 */
static void test_nsys_two_hosts(void **state)
{
	char pa[64], pb[64];
	const char *paths[2] = {pa, pb};
	struct nsb_job o = nsys_job(1, 20);
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *job, *ck;

	(void)state;
	temp_path(pa, sizeof(pa), "ha");
	temp_path(pb, sizeof(pb), "hb");
	o.sys_clock = true;
	o.host = "hostA";
	o.session_sys_ns = o.t0 - 1000 * MS;
	o.session_utc_ns = 1764000000000000000LL;
	assert_int_equal(nsys_build_job(pa, &o), 0);
	/* Host B: 5 h more since boot, its UTC 400 us late. */
	o.host = "hostB";
	o.t0 += 5 * HOUR;
	o.session_sys_ns += 5 * HOUR;
	o.session_utc_ns += 400 * US;
	assert_int_equal(nsys_build_job(pb, &o), 0);
	j = load_nsys(paths, 2);
	assert_int_equal(j->n_clock_groups, 1);
	assert_int_equal(j->n_clock_domains, 2);
	r = report_opts(j, 0);
	js = json_of(r);
	job = at(js, "job", NULL);
	str_is(at(job, "align", NULL), "auto");
	ck = at(job, "clocks", NULL);
	assert_int_equal(cJSON_GetArraySize(ck), 2);
	str_is(at(ck, "#0", "alignment", NULL), "reference");
	str_is(at(ck, "#1", "host", NULL), "hostB");
	str_is(at(ck, "#1", "alignment", NULL), "fitted");
	assert_int_equal(num(at(ck, "#1", "offset_ns", NULL)), -400 * US);
	assert_int_equal(num(at(ck, "#1", "residual_ns", NULL)), 0);
	assert_int_equal(num(at(ck, "#1", "evidence_collectives", NULL)), 20);
	assert_int_equal(num(at(job, "communicators", "#0", "matched", NULL)), 20);
	/* Both processes are pid 100 on GPU 0 of their own hosts: the job
	 * generator's arrivals of "process 0" for both, so every skew is 0. */
	assert_int_equal(num(at(job, "communicators", "#0", "skew_max_ns", NULL)), 0);
	cJSON_Delete(js);
	{
		char *txt = text_of(r);

		assert_non_null(strstr(txt, "Clocks: hosts aligned on the ends of collectives"));
		assert_non_null(strstr(txt, "hostB"));
		assert_non_null(strstr(txt, "-400.000 us"));
		free(txt);
	}
	gs_report_destroy(r);

	/* --align none: raw clocks, host B's kernels 400 us late, after host
	 * A's ended: never at once, so none is compared and none waits. */
	r = report_opts(j, GS_REPORT_ALIGN_NONE);
	js = json_of(r);
	job = at(js, "job", NULL);
	str_is(at(job, "align", NULL), "none");
	str_is(at(job, "clocks", "#1", "alignment", NULL), "raw");
	assert_int_equal(num(at(job, "communicators", "#0", "matched", NULL)), 0);
	assert_int_equal(num(at(job, "communicators", "#0", "no_overlap", NULL)), 20);
	assert_int_equal(num(at(job, "communicators", "#0", "wait_ns", NULL)), 0);
	cJSON_Delete(js);
	gs_report_destroy(r);
	gs_job_destroy(j);
	unlink(pa);
	unlink(pb);
}

/* ---- the job generator's ranks on four hosts with shifted clocks ---- */

#define HOSTS 4
#define PER_HOST 8
#define JITTER_NS 2000 /* a kernel's end moves by up to this */

static const int64_t host_shift[HOSTS] = {0, 400 * US, -2 * MS, 7 * MS};

static int64_t end_jitter(void *ctx, uint64_t k)
{
	uint64_t z = (uint64_t)(uintptr_t)ctx * 0x9e3779b97f4a7c15ull + k * 0xbf58476d1ce4e5b9ull;

	z ^= z >> 29;
	z *= 0x94d049bb133111ebull;
	z ^= z >> 32;
	return (int64_t)(z % JITTER_NS);
}

/*
 * 32 ranks, 8 a host: each host's clock shifted by a known offset (+400 us,
 * -2 ms, +7 ms against the first) and every NCCL kernel's end by up to
 * 2 us of jitter. The fitted offsets undo the shifts to within the jitter,
 * the residuals (stated) are at most the jitter of a difference of two
 * ends, and the planted straggler is found as on one clock.
 */
static void test_four_hosts(void **state)
{
	char dir[64] = "/tmp/gs_job_match_gen_XXXXXX";
	struct gs_bench_job_options go = {.ranks = HOSTS * PER_HOST,
					  .collectives = 40,
					  .straggler = 5,
					  .straggler_share = 0.5,
					  .threads = 1};
	struct gs_bench_job_summary sum;
	struct gs_trace *t[HOSTS * PER_HOST];
	const char *names[HOSTS * PER_HOST];
	char name_buf[HOSTS * PER_HOST][32];
	struct gs_job *j = NULL;
	struct gs_report *r;
	cJSON *js;
	const cJSON *job, *ck;
	char *txt;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(gs_bench_job_generate(&go, dir, &sum), GS_OK);
	for (uint32_t k = 0; k < HOSTS * PER_HOST; k++) {
		char path[128];
		struct gs_trace *one = NULL;
		struct shift_opts so = {.shift_ns = host_shift[k / PER_HOST],
					.end_jitter = end_jitter,
					.ctx = (void *)(uintptr_t)(k + 1)};

		snprintf(path, sizeof(path), "%s/rank%u.json", dir, k);
		assert_int_equal(gs_trace_load(path, NULL, &one, NULL), GS_OK);
		t[k] = shift_copy(one, &so);
		assert_non_null(t[k]);
		gs_trace_destroy(one);
		unlink(path);
		snprintf(name_buf[k], sizeof(name_buf[k]), "rank%u.json", k);
		names[k] = name_buf[k];
	}
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/expected.json", dir);
		unlink(path);
		rmdir(dir);
	}
	assert_int_equal(gs_job_from_traces(t, names, HOSTS * PER_HOST, &j), GS_OK);
	assert_int_equal(j->n_clock_groups, 1);
	assert_int_equal(j->n_clock_domains, HOSTS);
	r = report_opts(j, 0);
	js = json_of(r);
	job = at(js, "job", NULL);
	ck = at(job, "clocks", NULL);
	assert_int_equal(cJSON_GetArraySize(ck), HOSTS);
	for (int h = 0; h < HOSTS; h++) {
		const cJSON *d = cJSON_GetArrayItem(ck, h);
		double off = num(at(d, "offset_ns", NULL));

		assert_int_equal(cJSON_GetArraySize(at(d, "ranks", NULL)), PER_HOST);
		if (h == 0) {
			str_is(at(d, "alignment", NULL), "reference");
			continue;
		}
		str_is(at(d, "alignment", NULL), "fitted");
		if (fabs(off + (double)host_shift[h]) > JITTER_NS)
			print_error("host %d: offset %.0f, shift %lld\n", h, off,
				    (long long)host_shift[h]);
		assert_true(fabs(off + (double)host_shift[h]) <= JITTER_NS);
		/* The residual: at most two ends' jitter (a difference's). */
		assert_true(num(at(d, "residual_ns", NULL)) <= 2 * JITTER_NS);
		assert_true(num(at(d, "residual_ns", NULL)) > 0);
		assert_true(num(at(d, "evidence_collectives", NULL)) >= 30);
	}
	assert_int_equal(num(at(job, "communicators", "#0", "matched", NULL)), 40);
	assert_int_equal(cJSON_GetArraySize(at(job, "stragglers", NULL)), 1);
	assert_int_equal(num(at(job, "stragglers", "#0", "rank", NULL)), 5);
	cJSON_Delete(js);
	txt = text_of(r);
	assert_non_null(strstr(txt, "rank 5 arrived last"));
	assert_non_null(strstr(txt, "bench-node-3"));
	free(txt);
	gs_report_destroy(r);

	/* Raw clocks: hosts 2 and 3 end milliseconds away, matched with no
	 * one; host 1's 400 us late in every collective it shares. */
	r = report_opts(j, GS_REPORT_ALIGN_NONE);
	js = json_of(r);
	job = at(js, "job", NULL);
	str_is(at(job, "clocks", "#3", "alignment", NULL), "raw");
	assert_true(num(at(job, "communicators", "#0", "skew_max_ns", NULL)) >= 390 * US);
	assert_true(num(at(job, "communicators", "#0", "unmatched", "#31", NULL)) > 0);
	cJSON_Delete(js);
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* ---- small ranks built through the sink ---- */

struct rb {
	struct gs_trace *t;
	struct gs_sink *s;
	uint32_t nccl, p2p;
	uint64_t corr;
};

static uint32_t str(struct rb *b, const char *s)
{
	uint32_t id = 0;

	assert_int_equal(b->s->intern(b->s, s, strlen(s), &id), GS_OK);
	return id;
}

static void rb_begin(struct rb *b, uint32_t rank, uint32_t world, const char *host)
{
	struct gs_process p = {.pid = 100 + rank,
			       .command_line = GS_NO_STRING,
			       .driver_version = GS_NO_STRING,
			       .runtime_version = GS_NO_STRING,
			       .cupti_version = GS_NO_STRING,
			       .backend = GS_NO_STRING,
			       .has_rank = true,
			       .rank = rank,
			       .world_size = world};
	struct gs_device d = {.name = GS_NO_STRING, .uuid = GS_NO_STRING};
	struct gs_stream st = {.device = 0, .context = 1, .kind = GS_STREAM_NON_BLOCKING};

	memset(b, 0, sizeof(*b));
	assert_int_equal(gs_trace_create(&b->t), GS_OK);
	b->s = gs_trace_borrow_sink(b->t);
	p.host_name = str(b, host);
	assert_int_equal(b->s->process(b->s, &p), GS_OK);
	assert_int_equal(b->s->device(b->s, &d), GS_OK);
	st.pid = p.pid;
	st.stream_id = 20 + rank; /* never the same on two ranks */
	assert_int_equal(b->s->stream(b->s, &st, &b->nccl), GS_OK);
	st.stream_id = 40 + rank;
	assert_int_equal(b->s->stream(b->s, &st, &b->p2p), GS_OK);
}

static void rb_kernel(struct rb *b, uint32_t stream, const char *name, int64_t start, int64_t end,
		      uint32_t coll)
{
	struct gs_op op = {.kind = GS_OP_KERNEL,
			   .start_ns = start,
			   .end_ns = end,
			   .stream = stream,
			   .correlation = ++b->corr,
			   .collective = coll};
	struct gs_launch_cfg lc = {.grid = {1, 1, 1}, .block = {1, 1, 1}};

	op.name = str(b, name);
	assert_int_equal(b->s->op(b->s, &op, &lc), GS_OK);
}

/* A collective of group "0" with a sequence number (has_seq) or not. */
static uint32_t rb_coll(struct rb *b, const char *name, bool has_seq, uint64_t seq)
{
	struct gs_collective c = {.group_desc = GS_NO_STRING,
				  .group_ranks = GS_NO_STRING,
				  .dtype = GS_NO_STRING,
				  .has_seq = has_seq,
				  .seq = seq};
	uint32_t idx = 0;

	c.name = str(b, name);
	c.group = str(b, "0");
	assert_int_equal(b->s->collective(b->s, &c, &idx), GS_OK);
	return idx + 1;
}

static struct gs_trace *rb_end(struct rb *b)
{
	assert_int_equal(gs_trace_finish(b->t), GS_OK);
	return b->t;
}

static struct gs_job *job_of(struct gs_trace **t, size_t n)
{
	static const char *const names[] = {"r0.json", "r1.json", "r2.json", "r3.json"};
	struct gs_job *j = NULL;

	assert_int_equal(gs_job_from_traces(t, names, n, &j), GS_OK);
	return j;
}

#define BASE 1000000000LL
#define AR "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
#define SR "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"

/*
 * Two ranks of a job of 128 (a partial job: said in the header and in
 * every verdict). Point-to-point: rank 0 first sends to a peer the job
 * does not hold (unpaired, never compared), then rank 0 and 1 exchange
 * four times, their kernels ending within 300 us of each other (paired
 * by their ends, not by place). All-reduces: the third's kernels end
 * 300 us apart but never ran at once (rank 0's ended 250 us before rank
 * 1's began): a mismatch, not a wait.
 */
static void test_partial_p2p_no_overlap(void **state)
{
	struct gs_trace *t[2];
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *job, *c, *m;
	char *txt;
	/* SendRecv kernels: start, end per exchange (rank 0, rank 1). */
	static const int64_t sr[4][4] = {
		{187 * MS, 187800 * US, 187500 * US, 187800 * US},
		{300 * MS, 307400 * US, 306 * MS, 307300 * US},
		{600 * MS, 640 * MS, 620 * MS, 640100 * US},
		{1180 * MS, 1182500 * US, 1181 * MS, 1182500 * US},
	};

	(void)state;
	for (uint32_t k = 0; k < 2; k++) {
		struct rb b;

		rb_begin(&b, k, 128, k ? "node1" : "node0");
		if (k == 0)
			rb_kernel(&b, b.p2p, SR, 20 * MS, 23 * MS, 0); /* to rank 57 */
		for (int e = 0; e < 4; e++)
			rb_kernel(&b, b.p2p, SR, sr[e][2 * k], sr[e][2 * k + 1], 0);
		for (int i = 0; i < 4; i++) {
			int64_t s = BASE + i * 10 * MS + (int64_t)k * 100 * US;
			int64_t end = BASE + i * 10 * MS + 2 * MS; /* the ends meet */

			/* Short kernels whose ends are 300 us apart: rank 1's began
			 * 250 us after rank 0's ended. */
			if (i == 2)
				s = BASE + i * 10 * MS + (int64_t)k * 300 * US, end = s + 50 * US;
			rb_kernel(&b, b.nccl, AR, s, end, 0);
		}
		t[k] = rb_end(&b);
	}
	j = job_of(t, 2);
	r = report_opts(j, 0);
	js = json_of(r);
	job = at(js, "job", NULL);
	assert_int_equal(num(at(job, "partial", "ranks", NULL)), 2);
	assert_int_equal(num(at(job, "partial", "world_size", NULL)), 128);
	/* Point-to-point: 4 pairs by their ends, the first kernel unpaired. */
	c = NULL;
	{
		const cJSON *x;

		cJSON_ArrayForEach(x, at(job, "communicators", NULL))
		{
			if (!strcmp(at(x, "key", NULL)->valuestring, "point_to_point"))
				c = x;
		}
	}
	assert_non_null(c);
	str_is(at(c, "matched_by", NULL), "p2p_end");
	assert_int_equal(num(at(c, "collectives", NULL)), 4);
	assert_int_equal(num(at(c, "unmatched", "#0", NULL)), 1);
	assert_int_equal(num(at(c, "unmatched", "#1", NULL)), 0);
	/* Each pair's skew is the two starts apart, as written. */
	{
		double id = num(at(c, "id", NULL));

		for (int e = 0; e < 4; e++) {
			const cJSON *x = NULL, *y;

			cJSON_ArrayForEach(y, at(job, "collectives", NULL))
			{
				if (num(at(y, "communicator", NULL)) == id &&
				    num(at(y, "ranks", "#0", "arrival_ns", NULL)) == sr[e][0])
					x = y;
			}
			assert_non_null(x);
			assert_int_equal(num(at(x, "ranks", "#1", "arrival_ns", NULL)), sr[e][2]);
			assert_int_equal(num(at(x, "skew_ns", NULL)), sr[e][2] > sr[e][0] ?
									      sr[e][2] - sr[e][0] :
									      sr[e][0] - sr[e][2]);
		}
	}
	/* The mismatches: the unpaired send, the all-reduce that never ran at
	 * once; no wait counted for it. */
	{
		bool unpaired = false, overlap = false;

		cJSON_ArrayForEach(m, at(job, "mismatches", NULL))
		{
			const char *kind = at(m, "kind", NULL)->valuestring;

			if (getenv("GS_TEST_SHOW"))
				fprintf(stderr, "%s: %s\n", kind, at(m, "text", NULL)->valuestring);
			if (!strcmp(kind, "unpaired")) {
				unpaired = true;
				assert_int_equal(num(at(m, "count", NULL)), 1);
				assert_non_null(
					strstr(at(m, "text", NULL)->valuestring,
					       "point-to-point: 1 kernel on rank 0 ends with no "
					       "other rank's (the first on rank 0 at +0 ns)"));
			}
			if (!strcmp(kind, "no_overlap")) {
				overlap = true;
				assert_int_equal(num(at(m, "index", NULL)), 2);
				assert_non_null(
					strstr(at(m, "text", NULL)->valuestring,
					       "1 of 4 matched collectives never ran at once "
					       "across ranks (the first #2, at +20.000 ms: one "
					       "rank's kernel ended 250.000 us before rank 1's "
					       "began): not waits, not compared"));
			}
		}
		assert_true(unpaired);
		assert_true(overlap);
	}
	/* The all-reduces compared: 3 (100 us each of rank 0's wait). */
	{
		const cJSON *x;

		cJSON_ArrayForEach(x, at(job, "communicators", NULL))
		{
			if (!strcmp(at(x, "key", NULL)->valuestring, "process_group") ||
			    !strcmp(at(x, "key", NULL)->valuestring, "kind")) {
				assert_int_equal(num(at(x, "matched", NULL)), 3);
				assert_int_equal(num(at(x, "no_overlap", NULL)), 1);
				assert_int_equal(num(at(x, "wait_ns", NULL)), 3 * 100 * US);
			}
		}
	}
	cJSON_Delete(js);
	txt = text_of(r);
	assert_non_null(strstr(txt, "partial job: 2 of 128 ranks"));
	gs_report_destroy(r);
	gs_job_destroy(j);
	free(txt);
}

/*
 * Sequence numbers decide: rank 1 lacks seq 3, and its kernels' ends are
 * 5 ms off (unaligned clocks of one host would never be; here one host,
 * so no fit): matched by number, not by time.
 */
static void test_seq(void **state)
{
	struct gs_trace *t[2];
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	const cJSON *job, *c;

	(void)state;
	for (uint32_t k = 0; k < 2; k++) {
		struct rb b;

		rb_begin(&b, k, 2, "node0");
		for (uint64_t s = 1; s <= 6; s++) {
			int64_t at0 = BASE + (int64_t)s * 10 * MS + (int64_t)k * 5 * MS;

			if (k == 1 && s == 3)
				continue;
			rb_kernel(&b, b.nccl, AR, at0, at0 + 1 * MS,
				  rb_coll(&b, "allreduce", true, s));
		}
		t[k] = rb_end(&b);
	}
	j = job_of(t, 2);
	r = report_opts(j, 0);
	js = json_of(r);
	job = at(js, "job", NULL);
	c = at(job, "communicators", "#0", NULL);
	str_is(at(c, "matched_by", NULL), "seq");
	assert_int_equal(num(at(c, "collectives", NULL)), 5);
	/* 5 ms apart, they never ran at once: mismatches, not waits. */
	assert_int_equal(num(at(c, "no_overlap", NULL)), 5);
	assert_int_equal(num(at(c, "wait_ns", NULL)), 0);
	assert_true(cJSON_IsNull(at(job, "partial", NULL)));
	{
		const cJSON *m;
		bool gap = false;

		cJSON_ArrayForEach(m, at(job, "mismatches", NULL))
		{
			if (!strcmp(at(m, "kind", NULL)->valuestring, "count")) {
				gap = true;
				assert_non_null(
					strstr(at(m, "text", NULL)->valuestring,
					       "5 collectives matched by sequence number; rank 0 "
					       "has 1 no other rank ran (the first its #2"));
			}
		}
		assert_true(gap);
	}
	cJSON_Delete(js);
	gs_report_destroy(r);
	gs_job_destroy(j);
}

/* No collective on two hosts: nothing to align the clocks on, said. */
static void test_cannot_align(void **state)
{
	struct gs_trace *t[2];
	struct gs_job *j;
	struct gs_report *r;
	cJSON *js;
	char *txt;

	(void)state;
	for (uint32_t k = 0; k < 2; k++) {
		struct rb b;

		rb_begin(&b, k, 2, k ? "node1" : "node0");
		rb_kernel(&b, b.nccl, SR, BASE, BASE + (int64_t)(k + 1) * MS, 0);
		t[k] = rb_end(&b);
	}
	/* One rank's send/recv and the other's far apart: no pair either. */
	j = job_of(t, 2);
	r = report_opts(j, 0);
	js = json_of(r);
	str_is(at(js, "job", "clocks", "#1", "alignment", NULL), "no_evidence");
	assert_true(cJSON_IsNull(at(js, "job", "clocks", "#1", "residual_ns", NULL)));
	cJSON_Delete(js);
	txt = text_of(r);
	assert_non_null(strstr(txt, "no collective ends with another host's"));
	free(txt);
	gs_report_destroy(r);
	gs_job_destroy(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nsys_streams_differ),
		cmocka_unit_test(test_nsys_missing_first),
		cmocka_unit_test(test_nsys_sessions_apart),
		cmocka_unit_test(test_nsys_two_hosts),
		cmocka_unit_test(test_four_hosts),
		cmocka_unit_test(test_partial_p2p_no_overlap),
		cmocka_unit_test(test_seq),
		cmocka_unit_test(test_cannot_align),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
