/* SPDX-License-Identifier: MIT */
/*
 * The job mode of gs_bench_gen (bench/job.h): run it, load every rank's
 * file with the importer, and check expected.json against what was loaded
 * (the distributedInfo of each file, op counts, NCCL kernels on stream 13,
 * arrivals and ends in ns) and against the job numbers re-derived here
 * from the loaded kernels: skews, last ranks, transfers, waits, times last,
 * the straggler's cost, communication time and its exposed part; and the
 * merged file (--merged): the same ops as one process.
 *
 *   test_job_gen GS_BENCH_GEN WORKDIR
 */
#include <gpuscope/import.h>

#include <cJSON.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

static const char *gen_path, *work_dir;

/* Run gs_bench_gen with `args`; its exit status. */
static int run_gen(const char *args)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' %s >/dev/null 2>&1", gen_path, args);
	st = system(cmd);
	assert_true(st != -1 && WIFEXITED(st));
	return WEXITSTATUS(st);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	b = malloc((size_t)len + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)len, f), (size_t)len);
	b[len] = 0;
	fclose(f);
	if (n)
		*n = (size_t)len;
	return b;
}

static cJSON *load_json(const char *path)
{
	char *b = slurp(path, NULL);
	cJSON *j = cJSON_Parse(b);

	assert_non_null(j);
	free(b);
	return j;
}

static const cJSON *get(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!v)
		fail_msg("no \"%s\" in expected.json", key);
	return v;
}

/* A whole number (times stay below 2^53 ns: exact as a double). */
static int64_t num(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	assert_true(cJSON_IsNumber(v));
	assert_true(v->valuedouble < 9007199254740992.0 && v->valuedouble > -9007199254740992.0);
	assert_true(v->valuedouble == (double)(int64_t)v->valuedouble);
	return (int64_t)v->valuedouble;
}

static double dbl(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void near(double a, double b)
{
	double d = a > b ? a - b : b - a;

	if (d > 1e-12 * (a > 0 ? a : -a))
		fail_msg("%.17g != %.17g", a, b);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* What the loaded trace of one rank shows. */
struct loaded {
	size_t ncomm;
	int64_t *start, *end; /* NCCL kernels in start order */
	char **kernel;        /* their names */
	int64_t comm_ns, overlap_ns, compute_ns;
	uint64_t ops;
};

static bool is_nccl(const char *name)
{
	return strncmp(name, "ncclDevKernel_", 14) == 0;
}

/* The distributedInfo of a rank's (plain JSON) file. */
static void check_distributed_info(const char *path, int rank, int n)
{
	cJSON *t = load_json(path);
	const cJSON *di = get(t, "distributedInfo"), *pg, *ranks;

	assert_string_equal(get(di, "backend")->valuestring, "nccl");
	assert_int_equal(num(di, "rank"), rank);
	assert_int_equal(num(di, "world_size"), n);
	pg = cJSON_GetArrayItem(get(di, "pg_config"), 0);
	assert_non_null(pg);
	assert_string_equal(get(pg, "pg_name")->valuestring, "0");
	assert_int_equal(num(pg, "pg_size"), n);
	ranks = get(pg, "ranks");
	assert_int_equal(cJSON_GetArraySize(ranks), n);
	for (int r = 0; r < n; r++)
		assert_int_equal((int)cJSON_GetArrayItem(ranks, r)->valuedouble, r);
	cJSON_Delete(t);
}

static void load_rank(const char *path, struct loaded *L)
{
	struct gs_trace *t = NULL;
	const struct gs_stream *st;
	const struct gs_op *ops;
	size_t nst, nops, first, count, cf = 0, cc = 0, comp_first = 0, comp_count = 0;
	enum gs_input_format fmt;
	bool have_comm = false, have_comp = false;

	memset(L, 0, sizeof(*L));
	assert_int_equal(gs_trace_load(path, NULL, &t, &fmt), GS_OK);
	assert_int_equal(fmt, GS_INPUT_KINETO);
	ops = gs_trace_ops(t, &nops);
	st = gs_trace_streams(t, &nst);
	L->ops = nops;
	{
		size_t nw;

		gs_trace_warnings(t, &nw);
		assert_int_equal(nw, 0);
	}
	/* Two streams: 7 (compute) and 13 (NCCL, nothing else). */
	for (uint32_t s = 0; s < nst; s++) {
		gs_trace_stream_ops(t, s, &first, &count);
		for (size_t k = first; k < first + count; k++) {
			bool nccl = is_nccl(gs_trace_string(t, ops[k].name));

			assert_int_equal(ops[k].kind, GS_OP_KERNEL);
			assert_true(nccl == (st[s].stream_id == 13));
		}
		if (st[s].stream_id == 13) {
			have_comm = true;
			cf = first;
			cc = count;
		} else {
			assert_int_equal(st[s].stream_id, 7);
			have_comp = true;
			comp_first = first;
			comp_count = count;
		}
	}
	assert_true(have_comm && have_comp);
	L->ncomm = cc;
	L->start = calloc(cc, sizeof(*L->start));
	L->end = calloc(cc, sizeof(*L->end));
	L->kernel = calloc(cc, sizeof(*L->kernel));
	assert_true(L->start && L->end && L->kernel);
	for (size_t k = 0; k < comp_count; k++)
		L->compute_ns += ops[comp_first + k].end_ns - ops[comp_first + k].start_ns;
	for (size_t k = 0, q = 0; k < cc; k++) {
		const struct gs_op *o = &ops[cf + k];

		L->start[k] = o->start_ns;
		L->end[k] = o->end_ns;
		L->kernel[k] = strdup(gs_trace_string(t, o->name));
		L->comm_ns += o->end_ns - o->start_ns;
		/* Exposed: no compute kernel alongside. The compute stream's
		 * kernels are disjoint and sorted: walk them once. */
		while (q < comp_count && ops[comp_first + q].end_ns <= o->start_ns)
			q++;
		for (size_t p = q; p < comp_count && ops[comp_first + p].start_ns < o->end_ns; p++)
			L->overlap_ns +=
				max64(0, min64(o->end_ns, ops[comp_first + p].end_ns) -
						 max64(o->start_ns, ops[comp_first + p].start_ns));
	}
	gs_trace_destroy(t);
}

static void free_loaded(struct loaded *L)
{
	for (size_t k = 0; k < L->ncomm; k++)
		free(L->kernel[k]);
	free(L->kernel);
	free(L->start);
	free(L->end);
}

struct job_check {
	int n;
	int64_t straggler, every, skew_rank, skew_at, skew_ns, delay;
};

/*
 * Load every rank of `dir` and check its expected.json: the numbers it
 * states must be those of the loaded kernels.
 */
static void check_job(const char *dir, const struct job_check *want, bool gz)
{
	char path[4096];
	cJSON *e;
	const cJSON *colls, *per_rank, *strag;
	struct loaded *L;
	int n, nc;
	int64_t *waited, *last_count, cost = 0;
	bool names[2] = {false, false};

	snprintf(path, sizeof(path), "%s/expected.json", dir);
	e = load_json(path);
	assert_string_equal(get(e, "schema")->valuestring, "gpuscope-bench-job-expected");
	assert_int_equal(num(e, "version"), 1);
	n = (int)num(e, "ranks");
	assert_int_equal(n, want->n);
	colls = get(e, "collectives");
	per_rank = get(e, "per_rank");
	nc = cJSON_GetArraySize(colls);
	assert_true(nc > 0);
	assert_int_equal(num(cJSON_GetArrayItem(get(e, "groups"), 0), "collectives"), nc);
	assert_int_equal(cJSON_GetArraySize(per_rank), n);
	L = calloc((size_t)n, sizeof(*L));
	waited = calloc((size_t)n, sizeof(*waited));
	last_count = calloc((size_t)n, sizeof(*last_count));
	assert_true(L && waited && last_count);
	for (int r = 0; r < n; r++) {
		const cJSON *pr = cJSON_GetArrayItem(per_rank, r);

		snprintf(path, sizeof(path), "%s/rank%d.json%s", dir, r, gz ? ".gz" : "");
		assert_string_equal(get(pr, "file")->valuestring, strrchr(path, '/') + 1);
		if (!gz)
			check_distributed_info(path, r, n);
		load_rank(path, &L[r]);
		assert_int_equal(num(pr, "rank"), r);
		assert_int_equal(num(pr, "device"), r % 8);
		assert_int_equal(num(pr, "pid"), 1000 + r % 8);
		assert_int_equal(L[r].ops, num(e, "ops_per_rank"));
		assert_int_equal(L[r].ops, num(pr, "ops"));
		assert_int_equal(L[r].ncomm, nc);
		assert_int_equal(num(pr, "comm_kernels"), nc);
		assert_int_equal(L[r].comm_ns, num(pr, "comm_kernel_ns"));
		assert_int_equal(L[r].compute_ns, num(pr, "compute_kernel_ns"));
		assert_int_equal(L[r].overlap_ns, num(pr, "overlap_ns"));
		assert_int_equal(L[r].comm_ns - L[r].overlap_ns, num(pr, "exposed_comm_ns"));
		assert_int_equal(L[r].compute_ns + L[r].comm_ns - L[r].overlap_ns,
				 num(pr, "busy_ns"));
		near(dbl(pr, "overlap_share"), (double)L[r].overlap_ns / (double)L[r].comm_ns);
		/* Some communication is hidden, some is not. */
		assert_true(L[r].overlap_ns > 0 && L[r].overlap_ns < L[r].comm_ns);
	}
	for (int j = 0; j < nc; j++) {
		const cJSON *c = cJSON_GetArrayItem(colls, j), *arr = get(c, "arrivals_ns");
		const char *name = get(c, "name")->valuestring;
		int64_t first = INT64_MAX, last = INT64_MIN, transfer, end = num(c, "end_ns");
		int lr = -1, ties = 0;
		double f;

		assert_int_equal(num(c, "index"), j);
		assert_string_equal(get(c, "group")->valuestring, "0");
		assert_int_equal(cJSON_GetArraySize(arr), n);
		names[strcmp(name, "allreduce") == 0] = true;
		assert_true(strcmp(name, "allreduce") == 0 || strcmp(name, "_allgather_base") == 0);
		for (int r = 0; r < n; r++) {
			const cJSON *a = cJSON_GetArrayItem(arr, r);

			/* The arrival is the kernel start, in ns, as loaded. */
			assert_true(a->valuedouble == (double)L[r].start[j]);
			assert_int_equal(L[r].end[j], end);
			assert_string_equal(L[r].kernel[j], get(c, "kernel")->valuestring);
			first = min64(first, L[r].start[j]);
			if (L[r].start[j] > last) {
				last = L[r].start[j];
				lr = r;
				ties = 0;
			} else if (L[r].start[j] == last) {
				ties++;
			}
		}
		assert_int_equal(ties, 0);
		transfer = end - last;
		assert_int_equal(num(c, "skew_ns"), last - first);
		assert_int_equal(num(c, "last_rank"), lr);
		assert_int_equal(num(c, "transfer_ns"), transfer);
		assert_true(transfer > 0);
		f = strcmp(name, "allreduce") == 0 ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
		near(dbl(c, "algbw_gbps"), (double)num(c, "bytes") / (double)transfer);
		near(dbl(c, "busbw_gbps"), (double)num(c, "bytes") / (double)transfer * f);
		for (int r = 0; r < n; r++)
			waited[r] += last - L[r].start[j];
		last_count[lr]++;
		if (lr == want->straggler)
			for (int r = 0; r < n; r++)
				cost += last - L[r].start[j];
		/* The planted straggler and skew. */
		if (want->straggler >= 0 && j % want->every == 0 && j != want->skew_at) {
			assert_int_equal(lr, want->straggler);
			assert_true(last - first >= want->delay);
		}
		if (j == want->skew_at) {
			assert_int_equal(lr, want->skew_rank);
			assert_true(last - first >= want->skew_ns);
		}
	}
	assert_true(names[0] && names[1]);
	for (int r = 0; r < n; r++) {
		const cJSON *pr = cJSON_GetArrayItem(per_rank, r);

		assert_int_equal(num(pr, "waited_ns"), waited[r]);
		assert_int_equal(num(pr, "times_last"), last_count[r]);
	}
	strag = get(e, "straggler");
	if (want->straggler >= 0) {
		int64_t planted = (nc + want->every - 1) / want->every;

		assert_int_equal(num(strag, "rank"), want->straggler);
		assert_int_equal(num(strag, "every"), want->every);
		assert_int_equal(num(strag, "planted"), planted);
		assert_int_equal(num(strag, "times_last"), last_count[want->straggler]);
		assert_true(last_count[want->straggler] >= planted - (want->skew_at >= 0));
		near(dbl(strag, "last_share"), (double)last_count[want->straggler] / nc);
		assert_int_equal(num(strag, "cost_ns"), cost);
		/* Far above 1/N. */
		assert_true(last_count[want->straggler] * n > 2 * nc);
	} else {
		assert_true(cJSON_IsNull(strag));
	}
	if (want->skew_at >= 0) {
		const cJSON *s = get(e, "skew");

		assert_int_equal(num(s, "collective"), want->skew_at);
		assert_int_equal(num(s, "rank"), want->skew_rank);
		assert_int_equal(num(s, "skew_ns"), want->skew_ns);
	}
	for (int r = 0; r < n; r++)
		free_loaded(&L[r]);
	free(L);
	free(waited);
	free(last_count);
	cJSON_Delete(e);
}

/* 8 ranks, rank 3 last in every 4th collective, a skew of 250 us. */
static void test_straggler_and_skew(void **state)
{
	char args[1024];
	/* 40 collectives: 20 is planted (20 % 4 == 0), so the skew goes on
	 * 21; skew rank (3 + 8/2) % 8 = 7. */
	const struct job_check want = {.n = 8,
				       .straggler = 3,
				       .every = 4,
				       .delay = 400000,
				       .skew_at = 21,
				       .skew_rank = 7,
				       .skew_ns = 250000};

	(void)state;
	snprintf(args, sizeof(args),
		 "--job 8 --out-dir '%s/straggler' --collectives 40 --straggler 3 "
		 "--straggler-share 0.25 --straggler-delay-ns 400000 --skew-ns 250000 --seed 7",
		 work_dir);
	assert_int_equal(run_gen(args), 0);
	snprintf(args, sizeof(args), "%s/straggler", work_dir);
	check_job(args, &want, false);
}

/* gzip, a trace cut at 50 ops mid-step, and the same bytes on one thread
 * as on three. */
static void test_gzip_cut_threads(void **state)
{
	char args[1024], a[4096], b[4096];
	const struct job_check want = {.n = 3, .straggler = -1, .every = 1, .skew_at = -1};

	(void)state;
	for (int th = 1; th <= 3; th += 2) {
		snprintf(args, sizeof(args),
			 "--job 3 --out-dir '%s/cut%d' --ops-per-rank 50 --gzip --threads %d",
			 work_dir, th, th);
		assert_int_equal(run_gen(args), 0);
	}
	snprintf(args, sizeof(args), "%s/cut1", work_dir);
	check_job(args, &want, true);
	for (int r = 0; r <= 3; r++) {
		size_t na, nb;
		char *x, *y;

		if (r < 3) {
			snprintf(a, sizeof(a), "%s/cut1/rank%d.json.gz", work_dir, r);
			snprintf(b, sizeof(b), "%s/cut3/rank%d.json.gz", work_dir, r);
		} else {
			snprintf(a, sizeof(a), "%s/cut1/expected.json", work_dir);
			snprintf(b, sizeof(b), "%s/cut3/expected.json", work_dir);
		}
		x = slurp(a, &na);
		y = slurp(b, &nb);
		assert_true(na == nb && memcmp(x, y, na) == 0);
		free(x);
		free(y);
	}
}

/* The stream of `t` on `device` with `stream_id`; its ops' range. */
static void find_stream(const struct gs_trace *t, uint32_t device, uint64_t stream_id,
			size_t *first, size_t *count)
{
	size_t n;
	const struct gs_stream *st = gs_trace_streams(t, &n);

	for (uint32_t s = 0; s < n; s++)
		if (st[s].device == device && st[s].stream_id == stream_id) {
			gs_trace_stream_ops(t, s, first, count);
			return;
		}
	fail_msg("no stream %llu on device %u", (unsigned long long)stream_id, device);
}

/* The API calls of thread `tid` of `t`. */
static const struct gs_api_call *thread_calls(const struct gs_trace *t, int64_t tid, size_t *count)
{
	size_t nth, ncalls;
	const struct gs_thread *th = gs_trace_threads(t, &nth);
	const struct gs_api_call *c = gs_trace_api_calls(t, &ncalls);

	for (size_t i = 0; i < nth; i++)
		if (th[i].tid == tid) {
			*count = th[i].api_count;
			return c + th[i].first_api;
		}
	fail_msg("no thread %lld", (long long)tid);
	abort(); /* not reached: fail_msg leaves the test */
}

/*
 * --merged: every rank's ops as one process, rank r on device r and host
 * thread 1000 + r, correlation ids offset by r * K; the ops, times, names
 * and launch calls those of rank r's own file.
 */
static void test_merged(void **state)
{
	char args[1024], path[4096];
	struct gs_trace *m = NULL;
	enum gs_input_format fmt;
	size_t n, nops, ndev, nw;
	const struct gs_process *p;
	const struct gs_device *dev;
	const int ranks = 10, k = 300; /* past one node of 8 GPUs */

	(void)state;
	snprintf(args, sizeof(args),
		 "--job %d --out-dir '%s/merged' --ops-per-rank %d --merged '%s/merged/one.json'",
		 ranks, work_dir, k, work_dir);
	assert_int_equal(run_gen(args), 0);
	snprintf(path, sizeof(path), "%s/merged/one.json", work_dir);
	assert_int_equal(gs_trace_load(path, NULL, &m, &fmt), GS_OK);
	assert_int_equal(fmt, GS_INPUT_KINETO);
	gs_trace_warnings(m, &nw);
	assert_int_equal(nw, 0);
	p = gs_trace_processes(m, &n);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].pid, 1000);
	assert_false(p[0].has_rank);
	dev = gs_trace_devices(m, &ndev);
	assert_int_equal(ndev, ranks);
	for (size_t d = 0; d < ndev; d++)
		assert_int_equal(dev[d].id, d);
	gs_trace_ops(m, &nops);
	assert_int_equal(nops, (size_t)ranks * k);
	gs_trace_threads(m, &n);
	assert_int_equal(n, ranks);
	for (int r = 0; r < ranks; r++) {
		struct gs_trace *t = NULL;
		const struct gs_op *ro, *mo;
		const struct gs_api_call *rc, *mc;
		size_t nrc = 0, nmc = 0;

		snprintf(path, sizeof(path), "%s/merged/rank%d.json", work_dir, r);
		assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
		ro = gs_trace_ops(t, &n);
		mo = gs_trace_ops(m, &n);
		for (uint64_t sid = 7; sid <= 13; sid += 6) {
			size_t rf, rn, mf, mn;

			find_stream(t, (uint32_t)r % 8, sid, &rf, &rn);
			find_stream(m, (uint32_t)r, sid, &mf, &mn);
			assert_int_equal(rn, mn);
			for (size_t i = 0; i < rn; i++) {
				const struct gs_op *a = &ro[rf + i], *b = &mo[mf + i];

				assert_int_equal(a->start_ns, b->start_ns);
				assert_int_equal(a->end_ns, b->end_ns);
				assert_int_equal(a->correlation + (uint64_t)r * k, b->correlation);
				assert_string_equal(gs_trace_string(t, a->name),
						    gs_trace_string(m, b->name));
				assert_non_null(gs_trace_op_launch_cfg(t, a));
				assert_non_null(gs_trace_op_launch_cfg(m, b));
				assert_int_equal(gs_trace_op_launch_cfg(t, a)->grid[0],
						 gs_trace_op_launch_cfg(m, b)->grid[0]);
				assert_int_equal(gs_trace_op_launch_cfg(t, a)->block[0],
						 gs_trace_op_launch_cfg(m, b)->block[0]);
			}
		}
		rc = thread_calls(t, 1000 + r % 8, &nrc);
		mc = thread_calls(m, 1000 + r, &nmc);
		assert_int_equal(nrc, nmc);
		assert_int_equal(nrc, k);
		for (size_t i = 0; i < nrc; i++) {
			assert_int_equal(rc[i].start_ns, mc[i].start_ns);
			assert_int_equal(rc[i].end_ns, mc[i].end_ns);
			assert_int_equal(rc[i].correlation + (uint64_t)r * k, mc[i].correlation);
			assert_int_equal(mc[i].pid, 1000);
		}
		gs_trace_destroy(t);
	}
	gs_trace_destroy(m);
	/* Not with one trace's options. */
	snprintf(args, sizeof(args), "--ops 10 --merged '%s/merged/x.json'", work_dir);
	assert_int_equal(run_gen(args), 2);
}

static void test_usage(void **state)
{
	char args[1024];

	(void)state;
	/* No output directory; one-trace options mixed in; a bad share. */
	assert_int_equal(run_gen("--job 8"), 2);
	snprintf(args, sizeof(args), "--job 8 --out-dir '%s/u' --ops 10", work_dir);
	assert_int_equal(run_gen(args), 2);
	snprintf(args, sizeof(args), "--job 8 --out-dir '%s/u' --straggler-share 1.5", work_dir);
	assert_int_equal(run_gen(args), 2);
	assert_int_equal(run_gen("--ops 10 --gzip"), 2);
	/* A straggler that is not a rank; a skew in a job of one. */
	snprintf(args, sizeof(args), "--job 8 --out-dir '%s/u' --straggler 8", work_dir);
	assert_int_equal(run_gen(args), 1);
	snprintf(args, sizeof(args), "--job 1 --out-dir '%s/u' --skew-ns 5", work_dir);
	assert_int_equal(run_gen(args), 1);
	assert_int_equal(run_gen("--help"), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_straggler_and_skew),
		cmocka_unit_test(test_gzip_cut_threads),
		cmocka_unit_test(test_merged),
		cmocka_unit_test(test_usage),
	};
	char cmd[4096];

	if (argc != 3) {
		fprintf(stderr, "usage: test_job_gen GS_BENCH_GEN WORKDIR\n");
		return 2;
	}
	gen_path = argv[1];
	work_dir = argv[2];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", work_dir, work_dir);
	if (system(cmd) != 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
