/* SPDX-License-Identifier: MIT */
/*
 * gs_bench: the benchmark driver behind `make bench`.
 *
 *   gs_bench [--gpuscope PATH] [--out FILE] [--tmp DIR] [--repeat N]
 *            [--devices N] [--job-ranks N] [--job-ops K] [--scale-ranks N]
 *            [--scale-ops K] [--keep] [--smoke] SIZE...
 *
 * For each SIZE (GPU ops: 1e5, 1000000, ...) it generates a trace
 * (bench/gen.h) into a temporary directory as .gscope, Kineto JSON and gzip
 * Kineto JSON, checks that every file loads back with the generated counts
 * (a mismatch is an error: exit 1), then measures, each in a fresh child
 * process so that peak memory (getrusage ru_maxrss) is that measurement's
 * own:
 *   - Kineto JSON import, plain and gzip (gs_trace_load: parse, build and
 *     sort the model): MB/s of JSON text, by the wall clock and by CPU time
 *     ("a core"), ops/s, peak RSS against the size of the in-memory model;
 *   - .gscope load (gs_trace_load): ops/s, peak RSS;
 *   - each analysis on the loaded trace: dependency graph, waits, and over
 *     every device breakdown, schedules, missed overlap, graph candidates;
 *   - the whole `gpuscope analyze TRACE` command (load, every analysis, the
 *     text report), when --gpuscope is given: time, peak RSS per op;
 *   - `gpuscope export --format chrome`, when that command exists: MB/s of
 *     JSON written, with the load time measured above taken out;
 *   - `gpuscope export --format perfetto`, when that format exists: time of
 *     the whole command and bytes per op, each against the Chrome export's;
 *   - bytes per op of each file;
 *   - once, whatever the sizes, with --gpuscope: `gpuscope analyze -q` of a
 *     job of N ranks (--job-ranks, 64) x K ops (--job-ops, 20000), one
 *     Kineto file per rank (bench/job.h), against the same ops as one rank
 *     (the generator's merged file), each also as .gscope: time, CPU time
 *     and peak RSS of both, on all CPUs and on one, and their ratios;
 *   - once, whatever the sizes: the Kineto JSON import of each trace of
 *     ../shared/data (--shared DIR), plain (inflated into the temporary
 *     directory first) and gzip, MB/s of JSON text by the wall clock and a
 *     core;
 *   - once, with --gpuscope: `gpuscope analyze -q` (the text report) of a
 *     job of many ranks (--scale-ranks, 1024) x few ops (--scale-ops, 200)
 *     with a straggler, against the same ops as one rank, in interleaved
 *     pairs (the median of the pairs' ratios), and the lines of each text
 *     report.
 * Times are the best of up to N runs (--repeat; repeats stop after ~20 s
 * per measurement). The table goes to stdout and, with --out, to a file;
 * the traces are deleted unless --keep. --smoke runs the round-trip checks
 * and one run of each measurement and prints the table without targets.
 */
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu */
#include "gen.h"
#include "job.h"

#include <gpuscope/breakdown.h>
#include <gpuscope/cudagraph.h>
#include <gpuscope/graph.h>
#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>
#include <gpuscope/overlap.h>
#include <gpuscope/schedule.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/window.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_SIZES 8
/* A string for an argv array (exec never writes to it). */
#define S(x) ((char *)(uintptr_t)(x))
#define CHILD_OUT_MAX 8192
#define REPEAT_BUDGET_NS 20e9

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time of the process, every thread. */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int child_fail(const char *what)
{
	char buf[1024];

	fprintf(stderr, "gs_bench: error: %s: %s\n", what,
		gs_error_count() ? gs_error_format(buf, sizeof(buf)) : "failed");
	return 1;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Bytes of the in-memory model: every record array at its exact size, the
 * string table and the per-stream index (what a loaded trace must hold). */
static uint64_t model_bytes(const struct gs_trace *t)
{
	uint64_t b = 0;
	size_t n;

	gs_trace_processes(t, &n);
	b += n * sizeof(struct gs_process);
	gs_trace_devices(t, &n);
	b += n * sizeof(struct gs_device);
	gs_trace_streams(t, &n);
	b += n * (sizeof(struct gs_stream) + 2 * sizeof(size_t));
	gs_trace_ops(t, &n);
	b += n * sizeof(struct gs_op);
	gs_trace_api_calls(t, &n);
	b += n * sizeof(struct gs_api_call);
	gs_trace_syncs(t, &n);
	b += n * sizeof(struct gs_sync);
	gs_trace_event_records(t, &n);
	b += n * sizeof(struct gs_event_record);
	gs_trace_allocations(t, &n);
	b += n * sizeof(struct gs_allocation);
	gs_trace_op_allocs(t, &n);
	b += n * sizeof(struct gs_op_alloc);
	gs_trace_ranges(t, &n);
	b += n * sizeof(struct gs_range);
	gs_trace_overheads(t, &n);
	b += n * sizeof(struct gs_overhead);
	gs_trace_threads(t, &n);
	b += n * sizeof(struct gs_thread);
	n = gs_trace_string_count(t);
	for (size_t i = 0; i < n; i++)
		b += strlen(gs_trace_string(t, (uint32_t)i)) + 1 + sizeof(char *) + 4;
	return b;
}

static void print_counts(const struct gs_trace *t)
{
	size_t n;

	gs_trace_ops(t, &n);
	printf("ops %zu\n", n);
	gs_trace_api_calls(t, &n);
	printf("api_calls %zu\n", n);
	gs_trace_syncs(t, &n);
	printf("syncs %zu\n", n);
	gs_trace_event_records(t, &n);
	printf("event_records %zu\n", n);
	gs_trace_ranges(t, &n);
	printf("ranges %zu\n", n);
	gs_trace_overheads(t, &n);
	printf("overheads %zu\n", n);
	gs_trace_streams(t, &n);
	printf("streams %zu\n", n);
	gs_trace_devices(t, &n);
	printf("devices %zu\n", n);
	printf("model_bytes %llu\n", (unsigned long long)model_bytes(t));
}

/* ------------------------------------------------------------------------ */
/* Child processes: one measurement each, "key value" lines on stdout       */
/* ------------------------------------------------------------------------ */

static int child_gen(const char *dir, const char *ops, const char *devices)
{
	struct gs_bench_gen_options o = {.ops = strtoull(ops, NULL, 10),
					 .devices = (uint32_t)strtoul(devices, NULL, 10)};
	struct gs_bench_gen_counts c;
	char gpath[4096], jpath[4096], zpath[4096];
	struct gs_writer *w;
	FILE *json;
	gzFile gz;
	double t0 = now_ns();
	gs_status rc;

	snprintf(gpath, sizeof(gpath), "%s/trace.gscope", dir);
	snprintf(jpath, sizeof(jpath), "%s/trace.json", dir);
	snprintf(zpath, sizeof(zpath), "%s/trace.json.gz", dir);
	if (gs_writer_open(gpath, NULL, &w))
		return child_fail(gpath);
	json = fopen(jpath, "wb");
	gz = gzopen(zpath, "wb1");
	if (!json || !gz) {
		fprintf(stderr, "gs_bench: error: %s: cannot create\n", json ? zpath : jpath);
		return 1;
	}
	rc = gs_bench_generate(&o, gs_writer_borrow_sink(w), json, gz, &c);
	if (!rc)
		rc = gs_writer_close(w);
	else
		gs_writer_close(w);
	if (fclose(json) != 0 || gzclose(gz) != Z_OK) {
		fprintf(stderr, "gs_bench: error: writing the JSON traces failed\n");
		return 1;
	}
	if (rc)
		return child_fail("generating the trace");
	printf("gen_ns %.0f\nops %llu\napi_calls %llu\nsyncs %llu\nevent_records %llu\n"
	       "ranges %llu\noverheads %llu\nstreams %llu\ndevices %llu\nkernels %llu\n"
	       "memcpys %llu\nmemsets %llu\n",
	       now_ns() - t0, (unsigned long long)c.ops, (unsigned long long)c.api_calls,
	       (unsigned long long)c.syncs, (unsigned long long)c.event_records,
	       (unsigned long long)c.ranges, (unsigned long long)c.overheads,
	       (unsigned long long)c.streams, (unsigned long long)c.devices,
	       (unsigned long long)c.kernels, (unsigned long long)c.memcpys,
	       (unsigned long long)c.memsets);
	return 0;
}

/* The 4 ranks of one job, OPS / 4 GPU ops each, as rank0..3.gscope. */
#define BENCH_RANKS 4

static int child_gen_ranks(const char *dir, const char *ops, const char *devices)
{
	for (uint32_t k = 0; k < BENCH_RANKS; k++) {
		struct gs_bench_gen_options o = {.ops = strtoull(ops, NULL, 10) / BENCH_RANKS,
						 .devices = (uint32_t)strtoul(devices, NULL, 10),
						 .seed = k + 1,
						 .rank = k};
		struct gs_bench_gen_counts c;
		char path[4096];
		struct gs_writer *w;
		gs_status rc;

		snprintf(path, sizeof(path), "%s/rank%u.gscope", dir, k);
		if (gs_writer_open(path, NULL, &w))
			return child_fail(path);
		rc = gs_bench_generate(&o, gs_writer_borrow_sink(w), NULL, NULL, &c);
		if (!rc)
			rc = gs_writer_close(w);
		else
			gs_writer_close(w);
		if (rc)
			return child_fail("generating the ranks");
	}
	return 0;
}

/*
 * A job of `ranks` ranks, `ops` GPU ops each (bench/job.h), in `dir`:
 * rank<r>.json, and merged.json, the same ops as one process; then each
 * of them also as .gscope (loaded and saved, as `gpuscope convert` does),
 * on as many CPUs as there are. Not timed as part of any measurement.
 */
struct convert_pool {
	const char *dir;
	uint32_t ranks, next;
	pthread_mutex_t mu;
	gs_status rc;
	char cause[8192];
};

static void *convert_main(void *arg)
{
	struct convert_pool *p = arg;

	for (;;) {
		char base[4200], in[4220], out[4220];
		struct gs_trace *t = NULL;
		uint32_t k;
		gs_status rc;

		pthread_mutex_lock(&p->mu);
		k = p->rc ? p->ranks + 1 : p->next++;
		pthread_mutex_unlock(&p->mu);
		if (k > p->ranks)
			return NULL;
		/* k == 0: the merged file (started first: the longest). */
		if (k == 0)
			snprintf(base, sizeof(base), "%s/merged", p->dir);
		else
			snprintf(base, sizeof(base), "%s/rank%u", p->dir, k - 1);
		snprintf(in, sizeof(in), "%s.json", base);
		snprintf(out, sizeof(out), "%s.gscope", base);
		gs_error_clear();
		rc = gs_trace_load(in, NULL, &t, NULL);
		if (!rc)
			rc = gs_trace_save_gscope(t, out, NULL);
		gs_trace_destroy(t);
		if (rc) {
			pthread_mutex_lock(&p->mu);
			if (!p->rc) {
				p->rc = rc;
				snprintf(p->cause, sizeof(p->cause), "%s: %s", in,
					 gs_error_count() ? gs_error_message(0) : "failed");
			}
			pthread_mutex_unlock(&p->mu);
		}
		gs_error_clear();
	}
}

/* straggler: a rank number, or "-1" (none); convert: "1" to write the
 * .gscope files too. */
static int child_gen_job(const char *dir, const char *ranks, const char *ops, const char *straggler,
			 const char *convert)
{
	char merged[4200];
	struct gs_bench_job_options o = {.ranks = (uint32_t)strtoul(ranks, NULL, 10),
					 .ops_per_rank = strtoull(ops, NULL, 10),
					 .straggler = strtoll(straggler, NULL, 10),
					 .merged = merged};
	struct gs_bench_job_summary sum;
	struct convert_pool p = {.dir = dir, .ranks = o.ranks};
	pthread_t th[2];
	unsigned nth = 0;
	double t0 = now_ns(), t1;

	snprintf(merged, sizeof(merged), "%s/merged.json", dir);
	if (gs_bench_job_generate(&o, dir, &sum))
		return child_fail("generating the job");
	t1 = now_ns();
	if (strcmp(convert, "1") != 0) { /* nothing to convert */
		p.ranks = 0;
		p.next = 1;
	}
	if (pthread_mutex_init(&p.mu, NULL) != 0)
		return child_fail("pthread_mutex_init");
	while (nth < 2 && pthread_create(&th[nth], NULL, convert_main, &p) == 0)
		nth++;
	if (!nth)
		convert_main(&p);
	for (unsigned k = 0; k < nth; k++)
		pthread_join(th[k], NULL);
	pthread_mutex_destroy(&p.mu);
	if (p.rc) {
		fprintf(stderr, "gs_bench: error: converting the job: %s\n", p.cause);
		return 1;
	}
	printf("gen_ns %.0f\nconvert_ns %.0f\nops_per_rank %llu\njson_bytes %llu\n"
	       "merged_json_bytes %llu\n",
	       t1 - t0, now_ns() - t1, (unsigned long long)sum.ops_per_rank,
	       (unsigned long long)sum.json_bytes, (unsigned long long)sum.merged_json_bytes);
	return 0;
}

/* Load any trace (recognised by content) into a finished model. */
static int child_load(const char *path)
{
	struct gs_trace *t;
	enum gs_input_format fmt;
	double t0 = now_ns(), c0 = cpu_ns();

	if (gs_trace_load(path, NULL, &t, &fmt))
		return child_fail(path);
	printf("ns %.0f\ncpu_ns %.0f\n", now_ns() - t0, cpu_ns() - c0);
	print_counts(t);
	gs_trace_destroy(t);
	return 0;
}

/* Each analysis on its own, on every device. */
static int child_analyses(const char *path)
{
	struct gs_trace *t;
	struct gs_graph *g;
	struct gs_wait *waits;
	uint32_t *devs;
	size_t ndev, nwaits, nmissed = 0, ncands = 0, nedges;
	double t0, c0, ns_graph, ns_waits, ns_b = 0, ns_s = 0, ns_m = 0, ns_c = 0;

	if (gs_trace_load(path, NULL, &t, NULL))
		return child_fail(path);
	if (gs_trace_op_devices(t, &devs, &ndev))
		return child_fail("devices");
	c0 = cpu_ns();
	t0 = now_ns();
	if (gs_graph_build(t, &g))
		return child_fail("graph");
	ns_graph = now_ns() - t0;
	nedges = g->n_edges;
	t0 = now_ns();
	if (gs_waits_compute(t, g, &waits, &nwaits))
		return child_fail("waits");
	ns_waits = now_ns() - t0;
	free(waits);
	for (size_t i = 0; i < ndev; i++) {
		struct gs_breakdown b;
		struct gs_schedule s;
		struct gs_missed_overlap *m;
		struct gs_cudagraph_candidate *c;
		size_t nm, nc;

		t0 = now_ns();
		if (gs_breakdown_compute(t, devs[i], NULL, &b))
			return child_fail("breakdown");
		ns_b += now_ns() - t0;
		memset(&s, 0, sizeof(s));
		t0 = now_ns();
		if (gs_schedule_compute(t, g, devs[i], NULL, &s))
			return child_fail("schedule");
		ns_s += now_ns() - t0;
		t0 = now_ns();
		if (gs_missed_overlap_compute(t, g, &s, &b, &m, &nm))
			return child_fail("missed overlap");
		ns_m += now_ns() - t0;
		t0 = now_ns();
		if (gs_cudagraph_candidates_compute(t, devs[i], NULL, &c, &nc))
			return child_fail("graph candidates");
		ns_c += now_ns() - t0;
		nmissed += nm;
		ncands += nc;
		free(m);
		gs_cudagraph_candidates_free(c, nc);
		gs_schedule_fini(&s);
		gs_breakdown_fini(&b);
	}
	printf("graph_ns %.0f\nwaits_ns %.0f\nbreakdown_ns %.0f\nschedule_ns %.0f\n"
	       "overlap_ns %.0f\ncandidates_ns %.0f\ncpu_ns %.0f\nedges %zu\nwaits %zu\n"
	       "missed %zu\ncandidates %zu\n",
	       ns_graph, ns_waits, ns_b, ns_s, ns_m, ns_c, cpu_ns() - c0, nedges, nwaits, nmissed,
	       ncands);
	gs_graph_destroy(g);
	free(devs);
	gs_trace_destroy(t);
	return 0;
}

static int child_main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "gen"))
		return child_gen(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "genranks"))
		return child_gen_ranks(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "genjob"))
		return child_gen_job(argv[2], argv[3], argv[4], "-1", "1");
	if (argc == 7 && !strcmp(argv[1], "genjob"))
		return child_gen_job(argv[2], argv[3], argv[4], argv[5], argv[6]);
	if (argc == 3 && !strcmp(argv[1], "load"))
		return child_load(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "analyses"))
		return child_analyses(argv[2]);
	fprintf(stderr, "gs_bench: error: bad --child arguments\n");
	return 2;
}

/* ------------------------------------------------------------------------ */
/* The parent: run children, collect results                                */
/* ------------------------------------------------------------------------ */

struct run {
	char out[CHILD_OUT_MAX];
	size_t lines; /* of all the child wrote to stdout */
	double wall_ns;
	double cpu_ns; /* user + system, every thread */
	double maxrss; /* bytes */
};

/* Run argv with stdout captured (stderr passes through unless `quiet`), on
 * one CPU when `one_cpu` (the libraries then use one thread). 0 on exit 0. */
static int run_child(char *const argv[], struct run *r, bool quiet, bool one_cpu)
{
	int fd[2], status;
	size_t len = 0;
	struct rusage ru;
	double t0;
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], STDOUT_FILENO);
		close(fd[1]);
		if (one_cpu) {
			cpu_set_t set;
			int cpu = sched_getcpu();

			CPU_ZERO(&set);
			CPU_SET(cpu >= 0 ? cpu : 0, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		if (quiet) {
			int nul = open("/dev/null", O_WRONLY);

			if (nul >= 0)
				dup2(nul, STDERR_FILENO);
		}
		execv(argv[0], argv);
		fprintf(stderr, "gs_bench: error: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	r->lines = 0;
	for (;;) {
		char sink[4096];
		char *got = len + 1 < sizeof(r->out) ? r->out + len : sink;
		ssize_t k;

		k = read(fd[0], got, got == sink ? sizeof(sink) : sizeof(r->out) - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (ssize_t i = 0; i < k; i++)
			r->lines += got[i] == '\n';
		if (len + 1 < sizeof(r->out))
			len += (size_t)k;
	}
	r->out[len] = '\0';
	close(fd[0]);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	r->wall_ns = now_ns() - t0;
	r->cpu_ns = ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
		    ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
	r->maxrss = (double)ru.ru_maxrss * 1024.0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The value of "key value" in a child's output; NAN when absent. */
static double get(const struct run *r, const char *key)
{
	size_t kl = strlen(key);
	const char *p = r->out;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtod(p + kl + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NAN;
}

static char self_exe[4096];
static char loadavg_start[64], loadavg_end[64];

/* The first three fields of /proc/loadavg ("?" when unreadable). */
static void read_loadavg(char *buf, size_t n)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double a, b, c;

	snprintf(buf, n, "?");
	if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
		snprintf(buf, n, "%.2f %.2f %.2f", a, b, c);
	if (f)
		fclose(f);
}
static unsigned opt_repeat = 3;

/*
 * Run a child measurement up to opt_repeat times (fewer when the runs take
 * long), keeping for each key in `keys` the smallest value and the run's
 * peak RSS (the largest seen). 0 when every run succeeded.
 */
static int measure(char *const argv[], const char *const *keys, size_t nkeys, struct run *best,
		   double *best_vals, bool one_cpu)
{
	double spent = 0;

	for (size_t k = 0; k < nkeys; k++)
		best_vals[k] = NAN;
	best->maxrss = 0;
	best->wall_ns = NAN;
	best->cpu_ns = NAN;
	for (unsigned i = 0; i < opt_repeat; i++) {
		struct run r;

		if (run_child(argv, &r, false, one_cpu))
			return -1;
		for (size_t k = 0; k < nkeys; k++) {
			double v = keys[k] ? get(&r, keys[k]) : r.wall_ns;

			if (isnan(best_vals[k]) || v < best_vals[k])
				best_vals[k] = v;
		}
		if (isnan(best->wall_ns) || r.wall_ns < best->wall_ns)
			best->wall_ns = r.wall_ns;
		if (isnan(best->cpu_ns) || r.cpu_ns < best->cpu_ns)
			best->cpu_ns = r.cpu_ns;
		if (r.maxrss > best->maxrss)
			best->maxrss = r.maxrss;
		if (i == 0)
			memcpy(best->out, r.out, sizeof(r.out));
		spent += r.wall_ns;
		if (spent > REPEAT_BUDGET_NS)
			break;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Results and the table                                                    */
/* ------------------------------------------------------------------------ */

struct result {
	uint64_t ops;
	double records;
	double gscope_bytes, json_bytes, gz_bytes;
	double gen_ns;
	/* import / load */
	double json_ns, json_rss, json_model, json_cpu_ns;
	double gz_ns, gz_rss, gz_cpu_ns;
	double load_ns, load_rss, load_model;
	double load_cpu_ns; /* CPU time of the two-thread load */
	double load1_ns;    /* the load on one CPU */
	/* analyses */
	double graph_ns, waits_ns, breakdown_ns, schedule_ns, overlap_ns, candidates_ns;
	double edges, analyses_cpu_ns;
	/* gpuscope analyze: on both CPUs, its CPU time, on one CPU */
	double analyze_ns, analyze_rss, analyze_cpu_ns, analyze1_ns;
	/* gpuscope analyze of BENCH_RANKS files of ops / BENCH_RANKS each */
	double ranks_ns, ranks1_ns;
	/* chrome export */
	double export_ns, export_bytes;
	const char *export_note;
	/* perfetto export */
	double pexport_ns, pexport_bytes;
	const char *pexport_note;
};

static const char *const count_keys[] = {"ops",    "api_calls", "syncs",   "event_records",
					 "ranges", "overheads", "streams", "devices"};

/* The loaded counts must equal the generated ones. */
static int check_counts(const char *what, const struct run *gen, const struct run *got)
{
	int bad = 0;

	for (size_t i = 0; i < sizeof(count_keys) / sizeof(count_keys[0]); i++) {
		double a = get(gen, count_keys[i]), b = get(got, count_keys[i]);

		if (a != b) {
			fprintf(stderr, "gs_bench: error: %s: %s: generated %.0f, loaded %.0f\n",
				what, count_keys[i], a, b);
			bad = 1;
		}
	}
	return bad;
}

static int rm_rf_files(const char *dir)
{
	static const char *const files[] = {"trace.gscope", "trace.json", "trace.json.gz",
					    "export.json"};
	char p[4200];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	return rmdir(dir);
}

static char cur_dir[4096];
static char shared_plain[4200]; /* a shared trace inflated, while measured */
static char job_dir[4096];
static uint32_t job_dir_ranks;
static bool opt_keep;

/* The files of the job benchmark (child_gen_job) and its directory. */
static int rm_job_files(const char *dir, uint32_t ranks)
{
	static const char *const files[] = {"merged.json", "merged.gscope", "expected.json"};
	char p[4200];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	for (uint32_t r = 0; r < ranks; r++) {
		snprintf(p, sizeof(p), "%s/rank%u.json", dir, r);
		unlink(p);
		snprintf(p, sizeof(p), "%s/rank%u.gscope", dir, r);
		unlink(p);
	}
	return rmdir(dir);
}

static void cleanup(void)
{
	if (cur_dir[0] && !opt_keep)
		rm_rf_files(cur_dir);
	cur_dir[0] = '\0';
	if (job_dir[0] && !opt_keep)
		rm_job_files(job_dir, job_dir_ranks);
	job_dir[0] = '\0';
	if (shared_plain[0])
		unlink(shared_plain);
	shared_plain[0] = '\0';
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static bool gpuscope_has(const char *gpuscope, const char *cmd)
{
	char *argv[] = {S(gpuscope), S(cmd), S("--help"), NULL};
	struct run r;

	return gpuscope && run_child(argv, &r, true, false) == 0;
}

static int bench_size(uint64_t ops, const char *tmp, const char *gpuscope, unsigned devices,
		      struct result *res)
{
	char ops_s[32], dev_s[16], gpath[4200], jpath[4200], zpath[4200], epath[4200], ppath[4200];
	struct run gen, r;
	double v[8];
	int bad = 0;

	memset(res, 0, sizeof(*res));
	res->ops = ops;
	snprintf(cur_dir, sizeof(cur_dir), "%s/gs_bench.XXXXXX", tmp);
	if (!mkdtemp(cur_dir)) {
		fprintf(stderr, "gs_bench: error: %s: cannot create: %s\n", cur_dir,
			strerror(errno));
		cur_dir[0] = '\0';
		return 1;
	}
	snprintf(ops_s, sizeof(ops_s), "%llu", (unsigned long long)ops);
	snprintf(dev_s, sizeof(dev_s), "%u", devices);
	snprintf(gpath, sizeof(gpath), "%s/trace.gscope", cur_dir);
	snprintf(jpath, sizeof(jpath), "%s/trace.json", cur_dir);
	snprintf(zpath, sizeof(zpath), "%s/trace.json.gz", cur_dir);
	snprintf(epath, sizeof(epath), "%s/export.json", cur_dir);
	snprintf(ppath, sizeof(ppath), "%s/export.pftrace", cur_dir);

	fprintf(stderr, "gs_bench: %s ops: generating in %s\n", ops_s, cur_dir);
	{
		char *argv[] = {self_exe, S("--child"), S("gen"), cur_dir, ops_s, dev_s, NULL};

		if (run_child(argv, &gen, false, false))
			return 1;
	}
	res->gen_ns = get(&gen, "gen_ns");
	res->records = get(&gen, "ops") + get(&gen, "api_calls") + get(&gen, "syncs") +
		       get(&gen, "event_records") + get(&gen, "ranges") + get(&gen, "overheads");
	res->gscope_bytes = (double)file_size(gpath);
	res->json_bytes = (double)file_size(jpath);
	res->gz_bytes = (double)file_size(zpath);

	/* Import and load, with the round-trip checks. */
	{
		static const char *const keys[] = {"ns", "model_bytes", "cpu_ns"};
		char *argv[] = {self_exe, S("--child"), S("load"), gpath, NULL};

		fprintf(stderr, "gs_bench: %s ops: .gscope load\n", ops_s);
		if (measure(argv, keys, 3, &r, v, false))
			return 1;
		bad |= check_counts(".gscope", &gen, &r);
		res->load_ns = v[0];
		res->load_model = v[1];
		res->load_cpu_ns = v[2];
		res->load_rss = r.maxrss;
		fprintf(stderr, "gs_bench: %s ops: .gscope load on one CPU\n", ops_s);
		if (measure(argv, keys, 1, &r, v, true))
			return 1;
		res->load1_ns = v[0];
		fprintf(stderr, "gs_bench: %s ops: Kineto JSON import\n", ops_s);
		argv[3] = jpath;
		if (measure(argv, keys, 3, &r, v, false))
			return 1;
		bad |= check_counts("Kineto JSON", &gen, &r);
		res->json_ns = v[0];
		res->json_model = v[1];
		res->json_cpu_ns = v[2];
		res->json_rss = r.maxrss;
		fprintf(stderr, "gs_bench: %s ops: Kineto JSON (gzip) import\n", ops_s);
		argv[3] = zpath;
		if (measure(argv, keys, 3, &r, v, false))
			return 1;
		bad |= check_counts("Kineto JSON (gzip)", &gen, &r);
		res->gz_ns = v[0];
		res->gz_cpu_ns = v[2];
		res->gz_rss = r.maxrss;
	}
	if (bad)
		return 1;

	/* Each analysis. */
	{
		static const char *const keys[] = {"graph_ns",    "waits_ns",   "breakdown_ns",
						   "schedule_ns", "overlap_ns", "candidates_ns",
						   "edges",       "cpu_ns"};
		char *argv[] = {self_exe, S("--child"), S("analyses"), gpath, NULL};

		fprintf(stderr, "gs_bench: %s ops: analyses\n", ops_s);
		if (measure(argv, keys, 8, &r, v, false))
			return 1;
		res->graph_ns = v[0];
		res->waits_ns = v[1];
		res->breakdown_ns = v[2];
		res->schedule_ns = v[3];
		res->overlap_ns = v[4];
		res->candidates_ns = v[5];
		res->edges = v[6];
		res->analyses_cpu_ns = v[7];
	}

	/* The whole command, as a user runs it. */
	res->analyze_ns = res->analyze_rss = res->analyze_cpu_ns = res->analyze1_ns = NAN;
	if (gpuscope) {
		/* The report on stdout: a pipe that run_child reads and drops
		 * (-o never names a device, /dev/null included). */
		char *argv[] = {S(gpuscope), S("analyze"), gpath, NULL};

		fprintf(stderr, "gs_bench: %s ops: gpuscope analyze\n", ops_s);
		if (measure(argv, NULL, 0, &r, v, false))
			return 1;
		res->analyze_ns = r.wall_ns;
		res->analyze_cpu_ns = r.cpu_ns;
		res->analyze_rss = r.maxrss;
		fprintf(stderr, "gs_bench: %s ops: gpuscope analyze on one CPU\n", ops_s);
		if (measure(argv, NULL, 0, &r, v, true))
			return 1;
		res->analyze1_ns = r.wall_ns;
	}

	/* Several ranks of one job: their files are read on both CPUs. */
	res->ranks_ns = res->ranks1_ns = NAN;
	if (gpuscope) {
		char rp[BENCH_RANKS][4200];
		char *gargv[] = {self_exe, S("--child"), S("genranks"), cur_dir,
				 ops_s,    dev_s,        NULL};
		char *argv[] = {S(gpuscope), S("analyze"), rp[0], rp[1], rp[2], rp[3], NULL};

		for (int k = 0; k < BENCH_RANKS; k++)
			snprintf(rp[k], sizeof(rp[k]), "%s/rank%d.gscope", cur_dir, k);
		fprintf(stderr, "gs_bench: %s ops: gpuscope analyze of %d ranks\n", ops_s,
			BENCH_RANKS);
		if (run_child(gargv, &r, false, false))
			return 1;
		if (measure(argv, NULL, 0, &r, v, false))
			return 1;
		res->ranks_ns = r.wall_ns;
		if (measure(argv, NULL, 0, &r, v, true))
			return 1;
		res->ranks1_ns = r.wall_ns;
		for (int k = 0; k < BENCH_RANKS; k++)
			unlink(rp[k]);
	}

	/* Chrome export, where the command exists. */
	res->export_ns = NAN;
	if (!gpuscope) {
		res->export_note = "no --gpuscope given";
	} else if (!gpuscope_has(gpuscope, "export")) {
		res->export_note = "`gpuscope export` not available in this build yet";
	} else {
		/* --force: each repeat replaces the last one's file. */
		char *argv[] = {S(gpuscope), S("export"), S("--format"), S("chrome"), S("--force"),
				S("-o"),     epath,       gpath,         NULL};

		fprintf(stderr, "gs_bench: %s ops: gpuscope export --format chrome\n", ops_s);
		if (measure(argv, NULL, 0, &r, v, false)) {
			res->export_note = "`gpuscope export --format chrome` failed";
		} else {
			res->export_ns = r.wall_ns;
			res->export_bytes = (double)file_size(epath);
		}
		unlink(epath);
	}
	/* Perfetto export, where the format exists. */
	res->pexport_ns = NAN;
	if (!gpuscope || !gpuscope_has(gpuscope, "export")) {
		res->pexport_note = res->export_note;
	} else {
		char *argv[] = {S(gpuscope),   S("export"),  S("--format"),
				S("perfetto"), S("--force"), S("-o"),
				ppath,         gpath,        NULL};

		fprintf(stderr, "gs_bench: %s ops: gpuscope export --format perfetto\n", ops_s);
		if (measure(argv, NULL, 0, &r, v, false)) {
			res->pexport_note = "`gpuscope export --format perfetto` failed";
		} else {
			res->pexport_ns = r.wall_ns;
			res->pexport_bytes = (double)file_size(ppath);
		}
		unlink(ppath);
	}
	if (!opt_keep)
		rm_rf_files(cur_dir);
	else
		fprintf(stderr, "gs_bench: kept %s\n", cur_dir);
	cur_dir[0] = '\0';
	return 0;
}

/* ---- a job against the same ops as one rank ---- */

enum {
	JOB_JSON,
	JOB_GSCOPE,
	JOB_FORMATS
};
enum {
	SIDE_JOB,
	SIDE_ONE,
	JOB_SIDES
};

/* `gpuscope analyze -q` of one side in one format. */
struct job_side {
	double ns, cpu_ns, rss; /* on all CPUs: best wall, best CPU, largest peak RSS */
	double ns1, rss1;       /* pinned to one CPU */
};

struct job_result {
	uint32_t ranks;
	uint64_t ops_per_rank;
	double gen_ns, convert_ns;
	double bytes[JOB_FORMATS][JOB_SIDES]; /* on disk, all files of the side */
	struct job_side m[JOB_FORMATS][JOB_SIDES];
	bool done;
};

static const char *const job_ext[JOB_FORMATS] = {"json", "gscope"};

/* The counts of a loaded file must be the generated ones. */
static int job_check_load(const char *path, double ops, double devices)
{
	char *argv[] = {self_exe, S("--child"), S("load"), S(path), NULL};
	struct run r;

	if (run_child(argv, &r, false, false))
		return 1;
	if (get(&r, "ops") != ops || get(&r, "devices") != devices) {
		fprintf(stderr,
			"gs_bench: error: %s: %.0f ops on %.0f devices, generated %.0f on %.0f\n",
			path, get(&r, "ops"), get(&r, "devices"), ops, devices);
		return 1;
	}
	return 0;
}

/* What analyze's first line must say: every file a rank, or one process. */
static void job_check_head(const struct run *r, const char *want)
{
	if (!strstr(r->out, want))
		fprintf(stderr, "gs_bench: warning: gpuscope analyze did not say \"%s\"\n", want);
}

static int bench_job(const char *tmp, const char *gpuscope, uint32_t ranks, uint64_t ops,
		     struct job_result *jr)
{
	char ranks_s[16], ops_s[32], head[JOB_SIDES][128];
	char **paths = NULL, **argv = NULL;
	struct run r;
	double v[1];
	int rc = 1;

	memset(jr, 0, sizeof(*jr));
	jr->ranks = ranks;
	jr->ops_per_rank = ops;
	snprintf(ranks_s, sizeof(ranks_s), "%u", ranks);
	snprintf(ops_s, sizeof(ops_s), "%llu", (unsigned long long)ops);
	snprintf(job_dir, sizeof(job_dir), "%s/gs_bench_job.XXXXXX", tmp);
	if (!mkdtemp(job_dir)) {
		fprintf(stderr, "gs_bench: error: %s: cannot create: %s\n", job_dir,
			strerror(errno));
		job_dir[0] = '\0';
		return 1;
	}
	job_dir_ranks = ranks;
	fprintf(stderr, "gs_bench: job: generating %u ranks x %s ops and the merged file in %s\n",
		ranks, ops_s, job_dir);
	{
		char *gargv[] = {self_exe, S("--child"), S("genjob"), job_dir,
				 ranks_s,  ops_s,        NULL};
		struct run gen;

		if (run_child(gargv, &gen, false, false))
			return 1;
		jr->gen_ns = get(&gen, "gen_ns");
		jr->convert_ns = get(&gen, "convert_ns");
		jr->ops_per_rank = (uint64_t)get(&gen, "ops_per_rank");
	}
	snprintf(head[SIDE_JOB], sizeof(head[SIDE_JOB]), "%u ranks, %u GPUs with ops, %llu ops",
		 ranks, ranks, (unsigned long long)(jr->ops_per_rank * ranks));
	snprintf(head[SIDE_ONE], sizeof(head[SIDE_ONE]), "%llu ops, %u devices with ops",
		 (unsigned long long)(jr->ops_per_rank * ranks), ranks);
	paths = calloc((size_t)ranks + 1, sizeof(*paths));
	argv = calloc((size_t)ranks + 4, sizeof(*argv));
	if (!paths || !argv) {
		fprintf(stderr, "gs_bench: error: out of memory\n");
		goto out;
	}
	for (uint32_t k = 0; k <= ranks; k++)
		if (!(paths[k] = malloc(4200)))
			goto out;
	for (int f = 0; f < JOB_FORMATS; f++) {
		/* paths[0 .. ranks - 1]: the ranks; paths[ranks]: merged. */
		for (uint32_t k = 0; k < ranks; k++) {
			snprintf(paths[k], 4200, "%s/rank%u.%s", job_dir, k, job_ext[f]);
			jr->bytes[f][SIDE_JOB] += (double)file_size(paths[k]);
		}
		snprintf(paths[ranks], 4200, "%s/merged.%s", job_dir, job_ext[f]);
		jr->bytes[f][SIDE_ONE] = (double)file_size(paths[ranks]);
		if (f == JOB_GSCOPE &&
		    (job_check_load(paths[ranks], (double)(jr->ops_per_rank * ranks), ranks) ||
		     job_check_load(paths[0], (double)jr->ops_per_rank, 1)))
			goto out;
		for (int side = 0; side < JOB_SIDES; side++) {
			struct job_side *m = &jr->m[f][side];
			size_t a = 0;

			argv[a++] = S(gpuscope);
			argv[a++] = S("analyze");
			argv[a++] = S("-q");
			if (side == SIDE_JOB)
				for (uint32_t k = 0; k < ranks; k++)
					argv[a++] = paths[k];
			else
				argv[a++] = paths[ranks];
			argv[a] = NULL;
			fprintf(stderr, "gs_bench: job: gpuscope analyze of %s (%s)\n",
				side == SIDE_JOB ? "the ranks" : "the merged rank", job_ext[f]);
			if (measure(argv, NULL, 0, &r, v, false))
				goto out;
			job_check_head(&r, head[side]);
			m->ns = r.wall_ns;
			m->cpu_ns = r.cpu_ns;
			m->rss = r.maxrss;
			fprintf(stderr, "gs_bench: job: gpuscope analyze of %s (%s) on one CPU\n",
				side == SIDE_JOB ? "the ranks" : "the merged rank", job_ext[f]);
			if (measure(argv, NULL, 0, &r, v, true))
				goto out;
			m->ns1 = r.wall_ns;
			m->rss1 = r.maxrss;
		}
	}
	jr->done = true;
	rc = 0;
out:
	if (paths)
		for (uint32_t k = 0; k <= ranks; k++)
			free(paths[k]);
	free(paths);
	free(argv);
	if (!opt_keep)
		rm_job_files(job_dir, ranks);
	else
		fprintf(stderr, "gs_bench: kept %s\n", job_dir);
	job_dir[0] = '\0';
	return rc;
}

/* ---- many ranks, few ops: the text report of a large job ---- */

struct scale_result {
	uint32_t ranks, straggler;
	uint64_t ops_per_rank;
	unsigned pairs;
	double gen_ns;
	double ns[JOB_SIDES], cpu_ns[JOB_SIDES], rss[JOB_SIDES]; /* medians; RSS the largest */
	double wall_ratio, cpu_ratio; /* medians of the pairs' ratios, job / one */
	size_t lines[JOB_SIDES];      /* of the text report */
	bool done;
};

static int cmp_dbl(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* The median of n values (the mean of the middle two of an even count). */
static double median_of(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define SCALE_PAIRS_MAX 15

/*
 * `gpuscope analyze -q RANKS...` (the text report to a pipe) of a job of
 * `ranks` Kineto files of `ops` GPU ops each, rank ranks / 3 a straggler,
 * and of the merged file (the same ops as one process), run in
 * interleaved pairs (job, one, job, one, ...) so that the machine's drift
 * hits both alike: each pair's ratio, and their median.
 */
static int bench_scale(const char *tmp, const char *gpuscope, uint32_t ranks, uint64_t ops,
		       struct scale_result *sr)
{
	char ranks_s[16], ops_s[32], strag_s[16], head[JOB_SIDES][128];
	char **paths = NULL, **argv[JOB_SIDES] = {NULL, NULL};
	double ns[JOB_SIDES][SCALE_PAIRS_MAX], cpu[JOB_SIDES][SCALE_PAIRS_MAX];
	double wr[SCALE_PAIRS_MAX], cr[SCALE_PAIRS_MAX];
	int rc = 1;

	memset(sr, 0, sizeof(*sr));
	sr->ranks = ranks;
	sr->straggler = ranks / 3;
	sr->pairs = 2 * opt_repeat - 1 < SCALE_PAIRS_MAX ? 2 * opt_repeat - 1 : SCALE_PAIRS_MAX;
	snprintf(ranks_s, sizeof(ranks_s), "%u", ranks);
	snprintf(ops_s, sizeof(ops_s), "%llu", (unsigned long long)ops);
	snprintf(strag_s, sizeof(strag_s), "%u", sr->straggler);
	snprintf(job_dir, sizeof(job_dir), "%s/gs_bench_scale.XXXXXX", tmp);
	if (!mkdtemp(job_dir)) {
		fprintf(stderr, "gs_bench: error: %s: cannot create: %s\n", job_dir,
			strerror(errno));
		job_dir[0] = '\0';
		return 1;
	}
	job_dir_ranks = ranks;
	fprintf(stderr, "gs_bench: scale: generating %u ranks x %s ops and the merged file in %s\n",
		ranks, ops_s, job_dir);
	{
		char *gargv[] = {self_exe, S("--child"), S("genjob"), job_dir, ranks_s,
				 ops_s,    strag_s,      S("0"),      NULL};
		struct run gen;

		if (run_child(gargv, &gen, false, false))
			goto out;
		sr->gen_ns = get(&gen, "gen_ns");
		sr->ops_per_rank = (uint64_t)get(&gen, "ops_per_rank");
	}
	snprintf(head[SIDE_JOB], sizeof(head[SIDE_JOB]), "%u ranks, %u GPUs with ops, %llu ops",
		 ranks, ranks, (unsigned long long)(sr->ops_per_rank * ranks));
	snprintf(head[SIDE_ONE], sizeof(head[SIDE_ONE]), "%llu ops, %u devices with ops",
		 (unsigned long long)(sr->ops_per_rank * ranks), ranks);
	paths = calloc((size_t)ranks + 1, sizeof(*paths));
	argv[SIDE_JOB] = calloc((size_t)ranks + 4, sizeof(*argv[SIDE_JOB]));
	argv[SIDE_ONE] = calloc(5, sizeof(*argv[SIDE_ONE]));
	if (!paths || !argv[SIDE_JOB] || !argv[SIDE_ONE])
		goto out;
	for (uint32_t k = 0; k <= ranks; k++) {
		if (!(paths[k] = malloc(4200)))
			goto out;
		if (k < ranks)
			snprintf(paths[k], 4200, "%s/rank%u.json", job_dir, k);
		else
			snprintf(paths[k], 4200, "%s/merged.json", job_dir);
	}
	for (int side = 0; side < JOB_SIDES; side++) {
		size_t a = 0;

		argv[side][a++] = S(gpuscope);
		argv[side][a++] = S("analyze");
		argv[side][a++] = S("-q");
		if (side == SIDE_JOB)
			for (uint32_t k = 0; k < ranks; k++)
				argv[side][a++] = paths[k];
		else
			argv[side][a++] = paths[ranks];
		argv[side][a] = NULL;
	}
	for (unsigned i = 0; i < sr->pairs; i++) {
		for (int side = 0; side < JOB_SIDES; side++) {
			struct run r;

			fprintf(stderr, "gs_bench: scale: pair %u of %u: gpuscope analyze of %s\n",
				i + 1, sr->pairs,
				side == SIDE_JOB ? "the ranks" : "the merged rank");
			if (run_child(argv[side], &r, false, false))
				goto out;
			if (i == 0)
				job_check_head(&r, head[side]);
			ns[side][i] = r.wall_ns;
			cpu[side][i] = r.cpu_ns;
			if (r.maxrss > sr->rss[side])
				sr->rss[side] = r.maxrss;
			sr->lines[side] = r.lines;
		}
		wr[i] = ns[SIDE_JOB][i] / ns[SIDE_ONE][i];
		cr[i] = cpu[SIDE_JOB][i] / cpu[SIDE_ONE][i];
	}
	for (int side = 0; side < JOB_SIDES; side++) {
		sr->ns[side] = median_of(ns[side], sr->pairs);
		sr->cpu_ns[side] = median_of(cpu[side], sr->pairs);
	}
	sr->wall_ratio = median_of(wr, sr->pairs);
	sr->cpu_ratio = median_of(cr, sr->pairs);
	sr->done = true;
	rc = 0;
out:
	if (paths)
		for (uint32_t k = 0; k <= ranks; k++)
			free(paths[k]);
	free(paths);
	free(argv[SIDE_JOB]);
	free(argv[SIDE_ONE]);
	if (!opt_keep)
		rm_job_files(job_dir, ranks);
	else
		fprintf(stderr, "gs_bench: kept %s\n", job_dir);
	job_dir[0] = '\0';
	return rc;
}

/* ---- formatting ---- */

static FILE *out_file;

static void emit(const char *fmt, ...) GS_PRINTF(1, 2);

static void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	if (out_file) {
		va_start(ap, fmt);
		vfprintf(out_file, fmt, ap);
		va_end(ap);
	}
}

static void size_label(uint64_t ops, char *buf, size_t n)
{
	int e = 0;
	uint64_t m = ops;

	while (m >= 10 && m % 10 == 0) {
		m /= 10;
		e++;
	}
	if (e >= 3 && m < 10)
		snprintf(buf, n, "%llue%d", (unsigned long long)m, e);
	else
		snprintf(buf, n, "%llu", (unsigned long long)ops);
}

typedef double (*metric_fn)(const struct result *r);

/* One table row: a value per size in `fmt` (NAN prints as "-"). */
static void row(const char *label, const char *unit, const struct result *res, size_t n,
		metric_fn f, int decimals, const char *target)
{
	emit("%-34s %-10s", label, unit);
	for (size_t i = 0; i < n; i++) {
		double v = f(&res[i]);
		char cell[32];

		if (isnan(v) || isinf(v))
			snprintf(cell, sizeof(cell), "-");
		else
			snprintf(cell, sizeof(cell), "%.*f", decimals, v);
		emit(" %12s", cell);
	}
	emit("   %s\n", target ? target : "");
}

#define M(name, expr)                                                                              \
	static double name(const struct result *r)                                                 \
	{                                                                                          \
		return (expr);                                                                     \
	}

M(m_records, r->records / (double)r->ops)
M(m_json_mbs, r->json_bytes / r->json_ns * 1e3)
M(m_json_ops, (double)r->ops / r->json_ns * 1e3)
M(m_json_rss_model, r->json_rss / r->json_model)
M(m_json_rss_file, r->json_rss / r->json_bytes)
M(m_json_core_mbs, r->json_bytes / r->json_cpu_ns * 1e3)
M(m_gz_mbs, r->json_bytes / r->gz_ns * 1e3)
M(m_gz_core_mbs, r->json_bytes / r->gz_cpu_ns * 1e3)
M(m_gz_file_mbs, r->gz_bytes / r->gz_ns * 1e3)
M(m_gz_rss_model, r->gz_rss / r->json_model)
M(m_load_ops, (double)r->ops / r->load_ns * 1e3)
M(m_load1_ops, (double)r->ops / r->load1_ns * 1e3)
M(m_load_cpu_ops, (double)r->ops / r->load_cpu_ns * 1e3)
M(m_load_recs, r->records / r->load_ns * 1e3)
M(m_load_rss_op, r->load_rss / (double)r->ops)
M(m_model_op, r->load_model / (double)r->ops)
M(m_load_rss_model, r->load_rss / r->load_model)
M(m_gscope_bop, r->gscope_bytes / (double)r->ops)
M(m_gscope_brec, r->gscope_bytes / r->records)
M(m_json_bop, r->json_bytes / (double)r->ops)
M(m_gz_bop, r->gz_bytes / (double)r->ops)
M(m_graph_ms, r->graph_ns / 1e6)
M(m_waits_ms, r->waits_ns / 1e6)
M(m_breakdown_ms, r->breakdown_ns / 1e6)
M(m_schedule_ms, r->schedule_ns / 1e6)
M(m_overlap_ms, r->overlap_ns / 1e6)
M(m_candidates_ms, r->candidates_ns / 1e6)
M(m_analyses_ms, (r->graph_ns + r->waits_ns + r->breakdown_ns + r->schedule_ns + r->overlap_ns +
		  r->candidates_ns) /
			 1e6)
M(m_analyze_s, r->analyze_ns / 1e9)
M(m_analyze1_s, r->analyze1_ns / 1e9)
M(m_ranks_s, r->ranks_ns / 1e9)
M(m_ranks1_s, r->ranks1_ns / 1e9)
M(m_analyze_cpu_s, r->analyze_cpu_ns / 1e9)
M(m_analyses_cpu_ms, r->analyses_cpu_ns / 1e6)
M(m_analyze_rss_op, r->analyze_rss / (double)r->ops)
M(m_analyze_rss_mb, r->analyze_rss / 1048576.0)
M(m_analyze_10m, r->analyze_ns / 1e9 * 1e7 / (double)r->ops)
M(m_export_mbs, r->export_bytes / (r->export_ns - r->load_ns) * 1e3)
M(m_export_e2e_mbs, r->export_bytes / r->export_ns * 1e3)
M(m_export_bop, r->export_bytes / (double)r->ops)
M(m_pexport_s, r->pexport_ns / 1e9)
M(m_export_s, r->export_ns / 1e9)
M(m_pexport_bop, r->pexport_bytes / (double)r->ops)
M(m_pexport_smaller, r->export_bytes / r->pexport_bytes)
M(m_pexport_faster, r->export_ns / r->pexport_ns)
M(m_gen_s, r->gen_ns / 1e9)
M(m_load_t, r->load_ns)
M(m_json_t, r->json_ns)
M(m_analyses_t,
  r->graph_ns + r->waits_ns + r->breakdown_ns + r->schedule_ns + r->overlap_ns + r->candidates_ns)

/* Time ratio of each size to the previous one, per 10x ops. */
static void scaling_row(const char *label, const struct result *res, size_t n, metric_fn f,
			double *worst)
{
	emit("%-34s %-10s", label, "x per 10x");
	for (size_t i = 0; i < n; i++) {
		char cell[32] = "-";

		if (i > 0 && res[i].ops == res[i - 1].ops * 10) {
			double ratio = f(&res[i]) / f(&res[i - 1]);

			snprintf(cell, sizeof(cell), "%.1f", ratio);
			if (!isnan(ratio) && ratio > *worst)
				*worst = ratio;
		}
		emit(" %12s", cell);
	}
	emit("   <= 12\n");
}

static const char *verdict(bool ok)
{
	return ok ? "met" : "MISSED";
}

/* The job section: each measurement of the job, of the one rank, and the
 * ratio, per input format. */
static void job_row(const struct job_result *jr, const char *label, const char *unit,
		    double (*f)(const struct job_side *m), double scale, int decimals,
		    const char *target)
{
	emit("%-34s %-10s", label, unit);
	for (int fmt = 0; fmt < JOB_FORMATS; fmt++) {
		double a = f(&jr->m[fmt][SIDE_JOB]), b = f(&jr->m[fmt][SIDE_ONE]);

		emit(" %9.*f %9.*f %7.2f", decimals, a / scale, decimals, b / scale, a / b);
	}
	emit("   %s\n", target ? target : "");
}

static double js_ns(const struct job_side *m)
{
	return m->ns;
}

static double js_cpu(const struct job_side *m)
{
	return m->cpu_ns;
}

static double js_rss(const struct job_side *m)
{
	return m->rss;
}

static double js_ns1(const struct job_side *m)
{
	return m->ns1;
}

static double js_rss1(const struct job_side *m)
{
	return m->rss1;
}

static double job_ratio(const struct job_result *jr, int fmt, double (*f)(const struct job_side *m))
{
	return f(&jr->m[fmt][SIDE_JOB]) / f(&jr->m[fmt][SIDE_ONE]);
}

/* ------------------------------------------------------------------------ */
/* The Kineto traces of ../shared/data                                      */
/* ------------------------------------------------------------------------ */

#define MAX_SHARED 64
/* Traces this large or larger are judged against the target (smaller
 * ones are mostly the import's fixed costs). */
#define SHARED_JUDGED_BYTES 1e6

struct shared_trace {
	char name[160]; /* subdirectory/file, without .json.gz */
	double json_bytes, gz_bytes;
	double plain_ns, plain_cpu_ns, gz_ns, gz_cpu_ns;
};

struct shared_result {
	struct shared_trace t[MAX_SHARED];
	size_t n;
	const char *note; /* why nothing was measured */
	bool done;
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Inflate `from` into the file `to`; 0 on success. */
static int gunzip_file(const char *from, const char *to)
{
	gzFile in = gzopen(from, "rb");
	FILE *out = in ? fopen(to, "wb") : NULL;
	char buf[1 << 16];
	int got, bad = !out;

	while (!bad && (got = gzread(in, buf, sizeof(buf))) > 0)
		bad = fwrite(buf, 1, (size_t)got, out) != (size_t)got;
	if (in && gzclose(in) != Z_OK)
		bad = 1;
	if (out && fclose(out) != 0)
		bad = 1;
	return bad;
}

/* Each .json.gz of DIR/kineto/<sub>/ through the import, plain and gzip. */
static int bench_shared(const char *tmp, const char *dir, struct shared_result *sr)
{
	char kdir[4200], *names[MAX_SHARED];
	size_t nnames = 0;
	struct dirent *e;
	DIR *top;

	sr->done = true;
	snprintf(kdir, sizeof(kdir), "%s/kineto", dir);
	top = opendir(kdir);
	if (!top) {
		sr->note = "no ../shared/data/kineto (--shared DIR)";
		return 0;
	}
	while ((e = readdir(top)) != NULL && nnames < MAX_SHARED) {
		char sub[4200 + 256 + 2];
		struct dirent *f;
		DIR *d;

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", kdir, e->d_name);
		d = opendir(sub);
		if (!d)
			continue;
		while ((f = readdir(d)) != NULL && nnames < MAX_SHARED) {
			size_t len = strlen(f->d_name);
			char *name;

			if (len < 9 || strcmp(f->d_name + len - 8, ".json.gz") != 0)
				continue;
			name = malloc(strlen(e->d_name) + len + 2);
			if (!name)
				break;
			snprintf(name, strlen(e->d_name) + len + 2, "%s/%s", e->d_name, f->d_name);
			names[nnames++] = name;
		}
		closedir(d);
	}
	closedir(top);
	qsort(names, nnames, sizeof(*names), cmp_names);
	snprintf(shared_plain, sizeof(shared_plain), "%s/gs_bench_shared.%ld.json", tmp,
		 (long)getpid());
	for (size_t i = 0; i < nnames; i++) {
		static const char *const keys[] = {"ns", "cpu_ns"};
		struct shared_trace *t = &sr->t[sr->n];
		char gz[4400];
		char *argv[] = {self_exe, S("--child"), S("load"), gz, NULL};
		struct run r;
		double v[2];

		snprintf(gz, sizeof(gz), "%s/%s", kdir, names[i]);
		snprintf(t->name, sizeof(t->name), "%.*s", (int)(strlen(names[i]) - 8), names[i]);
		fprintf(stderr, "gs_bench: shared trace %s\n", t->name);
		if (gunzip_file(gz, shared_plain)) {
			fprintf(stderr, "gs_bench: error: %s: cannot inflate into %s\n", gz,
				shared_plain);
			return 1;
		}
		t->gz_bytes = (double)file_size(gz);
		t->json_bytes = (double)file_size(shared_plain);
		if (measure(argv, keys, 2, &r, v, false))
			return 1;
		t->gz_ns = v[0];
		t->gz_cpu_ns = v[1];
		argv[3] = shared_plain;
		if (measure(argv, keys, 2, &r, v, false))
			return 1;
		t->plain_ns = v[0];
		t->plain_cpu_ns = v[1];
		unlink(shared_plain);
		sr->n++;
		free(names[i]);
	}
	shared_plain[0] = '\0';
	if (!sr->n)
		sr->note = "no .json.gz trace under ../shared/data/kineto";
	return 0;
}

static void print_shared(const struct shared_result *sr)
{
	emit("-- Kineto JSON import of each trace of ../shared/data (once; MB/s of JSON text,\n"
	     "   by the wall clock and by CPU time: a core; plain: inflated first)\n");
	if (!sr->n) {
		emit("  skipped: %s\n", sr->note ? sr->note : "?");
		return;
	}
	emit("  %-48s %8s %8s %8s %8s %8s\n", "trace", "JSON MB", "plain", "a core", "gzip",
	     "a core");
	for (size_t i = 0; i < sr->n; i++) {
		const struct shared_trace *t = &sr->t[i];

		emit("  %-48s %8.1f %8.0f %8.0f %8.0f %8.0f\n", t->name, t->json_bytes / 1e6,
		     t->json_bytes / t->plain_ns * 1e3, t->json_bytes / t->plain_cpu_ns * 1e3,
		     t->json_bytes / t->gz_ns * 1e3, t->json_bytes / t->gz_cpu_ns * 1e3);
	}
}

/* The lowest plain rate a core among the traces judged, and which. */
static double shared_worst(const struct shared_result *sr, const char **name)
{
	double worst = NAN;

	*name = "";
	for (size_t i = 0; i < sr->n; i++) {
		const struct shared_trace *t = &sr->t[i];
		double mbs = t->json_bytes / t->plain_cpu_ns * 1e3;

		if (t->json_bytes < SHARED_JUDGED_BYTES)
			continue;
		if (isnan(worst) || mbs < worst) {
			worst = mbs;
			*name = t->name;
		}
	}
	return worst;
}

static void print_job(const struct job_result *jr)
{
	unsigned long long total = (unsigned long long)jr->ops_per_rank * jr->ranks;

	emit("-- gpuscope analyze -q of a job: %u ranks x %llu GPU ops, one Kineto file per rank,\n"
	     "   against the same %llu ops as one rank (one process, device = rank: merged.json)\n",
	     jr->ranks, (unsigned long long)jr->ops_per_rank, total);
	emit("%-34s %-10s  %-27s  %s\n", "", "", "Kineto JSON", ".gscope");
	emit("%-34s %-10s %9s %9s %7s %9s %9s %7s   target\n", "", "", "job", "one rank", "job/one",
	     "job", "one rank", "job/one");
	job_row(jr, "  time (two CPUs)", "s", js_ns, 1e9, 2, "job/one <= 1.5");
	job_row(jr, "  CPU time (two CPUs)", "s", js_cpu, 1e9, 2, NULL);
	job_row(jr, "  peak RSS (two CPUs)", "MB", js_rss, 1048576.0, 0, "job/one <= 1.2");
	job_row(jr, "  time (one CPU)", "s", js_ns1, 1e9, 2, NULL);
	job_row(jr, "  peak RSS (one CPU)", "MB", js_rss1, 1048576.0, 0, NULL);
	emit("%-34s %-10s", "  on disk", "MB");
	for (int fmt = 0; fmt < JOB_FORMATS; fmt++)
		emit(" %9.1f %9.1f %7.2f", jr->bytes[fmt][SIDE_JOB] / 1048576.0,
		     jr->bytes[fmt][SIDE_ONE] / 1048576.0,
		     jr->bytes[fmt][SIDE_JOB] / jr->bytes[fmt][SIDE_ONE]);
	emit("\n  (not timed: generating the %u + 1 JSON files %.1f s, converting them to .gscope "
	     "%.1f s)\n",
	     jr->ranks, jr->gen_ns / 1e9, jr->convert_ns / 1e9);
}

static void print_job_targets(const struct job_result *jr)
{
	double t[JOB_FORMATS], m[JOB_FORMATS];

	for (int fmt = 0; fmt < JOB_FORMATS; fmt++) {
		t[fmt] = job_ratio(jr, fmt, js_ns);
		m[fmt] = job_ratio(jr, fmt, js_rss);
	}
	emit("  job of %u x %llu ops within 1.5x the time of one rank (two CPUs): %.2fx (JSON), "
	     "%.2fx (.gscope); CPU time %.2fx, %.2fx: %s\n",
	     jr->ranks, (unsigned long long)jr->ops_per_rank, t[JOB_JSON], t[JOB_GSCOPE],
	     job_ratio(jr, JOB_JSON, js_cpu), job_ratio(jr, JOB_GSCOPE, js_cpu),
	     verdict(t[JOB_JSON] <= 1.5 && t[JOB_GSCOPE] <= 1.5));
	emit("  job of %u x %llu ops within 1.2x the memory of one rank: %.2fx (JSON), %.2fx "
	     "(.gscope): %s\n",
	     jr->ranks, (unsigned long long)jr->ops_per_rank, m[JOB_JSON], m[JOB_GSCOPE],
	     verdict(m[JOB_JSON] <= 1.2 && m[JOB_GSCOPE] <= 1.2));
}

#define SCALE_LINES_MAX 200 /* the text report of the scale job, at most */

static void print_scale(const struct scale_result *sr)
{
	unsigned long long total = (unsigned long long)sr->ops_per_rank * sr->ranks;

	emit("-- gpuscope analyze -q of a job of many ranks: %u ranks x %llu GPU ops (rank %u a "
	     "straggler),\n   one Kineto file per rank, the text report, against the same %llu "
	     "ops as one rank;\n   %u interleaved pairs: medians, and the median of the pairs' "
	     "ratios\n",
	     sr->ranks, (unsigned long long)sr->ops_per_rank, sr->straggler, total, sr->pairs);
	emit("%-34s %-10s %9s %9s %7s   target\n", "", "", "job", "one rank", "job/one");
	emit("%-34s %-10s %9.2f %9.2f %7.2f   job/one <= 1.5\n", "  time (two CPUs)", "s",
	     sr->ns[SIDE_JOB] / 1e9, sr->ns[SIDE_ONE] / 1e9, sr->wall_ratio);
	emit("%-34s %-10s %9.2f %9.2f %7.2f\n", "  CPU time (two CPUs)", "s",
	     sr->cpu_ns[SIDE_JOB] / 1e9, sr->cpu_ns[SIDE_ONE] / 1e9, sr->cpu_ratio);
	emit("%-34s %-10s %9.0f %9.0f %7.2f\n", "  peak RSS", "MB", sr->rss[SIDE_JOB] / 1048576.0,
	     sr->rss[SIDE_ONE] / 1048576.0, sr->rss[SIDE_JOB] / sr->rss[SIDE_ONE]);
	emit("%-34s %-10s %9zu %9zu %7s   job < %d\n", "  text report", "lines",
	     sr->lines[SIDE_JOB], sr->lines[SIDE_ONE], "", SCALE_LINES_MAX);
	emit("  (not timed: generating the %u + 1 JSON files %.1f s)\n", sr->ranks,
	     sr->gen_ns / 1e9);
}

static void print_scale_targets(const struct scale_result *sr)
{
	emit("  job of %u x %llu ops (text) within 1.5x the time of one rank (two CPUs, median of "
	     "%u pairs): %.2fx (CPU time %.2fx): %s\n",
	     sr->ranks, (unsigned long long)sr->ops_per_rank, sr->pairs, sr->wall_ratio,
	     sr->cpu_ratio, verdict(sr->wall_ratio <= 1.5));
	emit("  its text report under %d lines: %zu: %s\n", SCALE_LINES_MAX, sr->lines[SIDE_JOB],
	     verdict(sr->lines[SIDE_JOB] < SCALE_LINES_MAX));
}

static void print_table(const struct result *res, size_t n, unsigned devices,
			const struct job_result *jr, const struct scale_result *sr,
			const struct shared_result *shr, bool smoke)
{
	char host[256] = "?";
	double worst_analyze = 0, worst_lib = 0, worst_load = 0, worst_json = 0;
	const struct result *big = &res[n - 1];

	gethostname(host, sizeof(host) - 1);
	emit("gpuscope benchmark (bench/gs_bench): %u devices, %ld CPUs online, host %s\n", devices,
	     sysconf(_SC_NPROCESSORS_ONLN), host);
	emit("Times are wall-clock, the best of up to %u runs; memory is the peak RSS of the "
	     "process that did\nthe work. Load average (1, 5, 15 min) at the start: %s, at the "
	     "end: %s (other jobs\nshare the CPUs: CPU-time rows tell what the work itself "
	     "cost).\n\n",
	     opt_repeat, loadavg_start, loadavg_end);
	emit("%-34s %-10s", "GPU ops", "");
	for (size_t i = 0; i < n; i++) {
		char l[32];

		size_label(res[i].ops, l, sizeof(l));
		emit(" %12s", l);
	}
	emit("   target\n");
	row("records per op (all kinds)", "", res, n, m_records, 2, NULL);
	row("generate (all three files)", "s", res, n, m_gen_s, 2, NULL);
	emit("-- Kineto JSON import (parse + model + sort)\n");
	row("  plain JSON", "MB/s", res, n, m_json_mbs, 0, ">= 150");
	row("  plain JSON, a core (CPU time)", "MB/s", res, n, m_json_core_mbs, 0, ">= 600");
	row("  plain JSON", "Mops/s", res, n, m_json_ops, 3, NULL);
	row("  plain JSON peak RSS / model", "x", res, n, m_json_rss_model, 2, "<= 3");
	row("  plain JSON peak RSS / file size", "x", res, n, m_json_rss_file, 3,
	    "falls with size");
	row("  gzip JSON (JSON text rate)", "MB/s", res, n, m_gz_mbs, 0, NULL);
	row("  gzip JSON, a core (JSON text)", "MB/s", res, n, m_gz_core_mbs, 0, NULL);
	row("  gzip JSON (file rate)", "MB/s", res, n, m_gz_file_mbs, 1, NULL);
	row("  gzip JSON peak RSS / model", "x", res, n, m_gz_rss_model, 2, "<= 3");
	emit("-- .gscope load (read + model + sort)\n");
	row("  load (two CPUs: reads ahead)", "Mops/s", res, n, m_load_ops, 2, ">= 20");
	row("  load (one CPU)", "Mops/s", res, n, m_load1_ops, 2, ">= 20");
	row("  load, by its CPU time", "Mops/s", res, n, m_load_cpu_ops, 2, NULL);
	row("  load, records (two CPUs)", "Mrec/s", res, n, m_load_recs, 2, NULL);
	row("  in-memory model", "B/op", res, n, m_model_op, 0, NULL);
	row("  peak RSS", "B/op", res, n, m_load_rss_op, 0, NULL);
	row("  peak RSS / model", "x", res, n, m_load_rss_model, 2, NULL);
	emit("-- on disk\n");
	row("  .gscope", "B/op", res, n, m_gscope_bop, 2, "<= 12");
	row("  .gscope", "B/record", res, n, m_gscope_brec, 2, NULL);
	row("  Kineto JSON", "B/op", res, n, m_json_bop, 0, NULL);
	row("  Kineto JSON (gzip -1)", "B/op", res, n, m_gz_bop, 1, NULL);
	emit("-- each analysis, on the loaded trace (all devices)\n");
	row("  dependency graph", "ms", res, n, m_graph_ms, 1, NULL);
	row("  waits", "ms", res, n, m_waits_ms, 1, NULL);
	row("  breakdown", "ms", res, n, m_breakdown_ms, 1, NULL);
	row("  schedules (actual/bound/ideal)", "ms", res, n, m_schedule_ms, 1, NULL);
	row("  missed overlap", "ms", res, n, m_overlap_ms, 1, NULL);
	row("  graph candidates", "ms", res, n, m_candidates_ms, 1, NULL);
	row("  sum of the above", "ms", res, n, m_analyses_ms, 1, NULL);
	row("  CPU time of the above", "ms", res, n, m_analyses_cpu_ms, 1, NULL);
	emit("-- gpuscope analyze TRACE.gscope (load, every analysis, text report)\n");
	row("  time (two CPUs)", "s", res, n, m_analyze_s, 2, NULL);
	row("  time (one CPU)", "s", res, n, m_analyze1_s, 2, NULL);
	row("  CPU time (two CPUs)", "s", res, n, m_analyze_cpu_s, 2, NULL);
	row("  time scaled to 10M ops", "s", res, n, m_analyze_10m, 2, "<= 5 at 1e7");
	row("  peak RSS", "MB", res, n, m_analyze_rss_mb, 0, "<= 1536 at 1e7");
	row("  peak RSS", "B/op", res, n, m_analyze_rss_op, 0, "<= 150");
	emit("-- gpuscope analyze of %d ranks of a job (rank0..%d.gscope, 1/%d of the ops each)\n",
	     BENCH_RANKS, BENCH_RANKS - 1, BENCH_RANKS);
	row("  time (two CPUs: files read at once)", "s", res, n, m_ranks_s, 2, NULL);
	row("  time (one CPU)", "s", res, n, m_ranks1_s, 2, NULL);
	emit("-- gpuscope export --format chrome\n");
	if (!isnan(res[0].export_ns)) {
		row("  export (load time taken out)", "MB/s", res, n, m_export_mbs, 0, ">= 100");
		row("  export (whole command)", "MB/s", res, n, m_export_e2e_mbs, 0, NULL);
		row("  output", "B/op", res, n, m_export_bop, 0, NULL);
	} else {
		emit("  skipped: %s\n", res[0].export_note ? res[0].export_note : "?");
	}
	emit("-- gpuscope export --format perfetto (against the Chrome export)\n");
	if (!isnan(res[0].pexport_ns) && !isnan(res[0].export_ns)) {
		row("  time (whole command)", "s", res, n, m_pexport_s, 2, NULL);
		row("  Chrome export (whole command)", "s", res, n, m_export_s, 2, NULL);
		row("  output", "B/op", res, n, m_pexport_bop, 0, NULL);
		row("  smaller than the Chrome JSON", "x", res, n, m_pexport_smaller, 1, ">= 4");
		row("  faster than the Chrome export", "x", res, n, m_pexport_faster, 1, ">= 1");
	} else {
		emit("  skipped: %s\n", res[0].pexport_note ? res[0].pexport_note : "?");
	}
	emit("-- scaling (time ratio between sizes 10x apart)\n");
	scaling_row("  gpuscope analyze", res, n, m_analyze_s, &worst_analyze);
	scaling_row("  analyses (library)", res, n, m_analyses_t, &worst_lib);
	scaling_row("  .gscope load", res, n, m_load_t, &worst_load);
	scaling_row("  Kineto JSON import", res, n, m_json_t, &worst_json);
	if (shr && shr->done)
		print_shared(shr);
	if (jr && jr->done)
		print_job(jr);
	if (sr && sr->done)
		print_scale(sr);
	if (smoke)
		return;

	/* The targets, judged on the largest size. */
	emit("\nTargets (judged at %llu ops):\n", (unsigned long long)big->ops);
	emit("  Kineto JSON import >= 150 MB/s: %.0f MB/s: %s\n", m_json_mbs(big),
	     verdict(m_json_mbs(big) >= 150));
	{
		const char *wname = "";
		double worst = shr && shr->done ? shared_worst(shr, &wname) : NAN;
		bool ok = m_json_core_mbs(big) >= 600 && (isnan(worst) || worst >= 600);

		if (isnan(worst))
			emit("  Kineto JSON import >= 600 MB/s a core (plain): %.0f MB/s (no shared "
			     "traces measured): %s\n",
			     m_json_core_mbs(big), verdict(ok));
		else
			emit("  Kineto JSON import >= 600 MB/s a core (plain): %.0f MB/s; shared "
			     "traces of 1 MB or more: lowest %.0f MB/s (%s): %s\n",
			     m_json_core_mbs(big), worst, wname, verdict(ok));
	}
	emit("  import peak memory <= 3x the model: %.2fx (plain), %.2fx (gzip): %s\n",
	     m_json_rss_model(big), m_gz_rss_model(big),
	     verdict(m_json_rss_model(big) <= 3 && m_gz_rss_model(big) <= 3));
	emit("  .gscope load >= 20 M ops/s: %.2f M ops/s (one CPU: %.2f): %s\n", m_load_ops(big),
	     m_load1_ops(big), verdict(m_load_ops(big) >= 20));
	emit("  .gscope <= 12 bytes per op: %.2f: %s\n", m_gscope_bop(big),
	     verdict(m_gscope_bop(big) <= 12));
	emit("  analyze of 10M ops <= 5 s: %.2f s%s (one CPU: %.2f s; CPU time %.2f s): %s\n",
	     m_analyze_10m(big), big->ops == 10000000 ? "" : " (scaled linearly from this size)",
	     m_analyze1_s(big) * 1e7 / (double)big->ops,
	     m_analyze_cpu_s(big) * 1e7 / (double)big->ops, verdict(m_analyze_10m(big) <= 5));
	emit("  analyze peak memory <= 150 B/op: %.0f B/op: %s\n", m_analyze_rss_op(big),
	     verdict(m_analyze_rss_op(big) <= 150));
	emit("  N log N (10x ops costs <= 12x time): worst ratio %.1fx (analyze %.1fx, analyses "
	     "%.1fx, load %.1fx, import %.1fx): %s\n",
	     fmax(fmax(worst_analyze, worst_lib), fmax(worst_load, worst_json)), worst_analyze,
	     worst_lib, worst_load, worst_json,
	     verdict(worst_analyze <= 12 && worst_lib <= 12 && worst_load <= 12 &&
		     worst_json <= 12));
	if (!isnan(big->export_ns))
		emit("  Chrome export >= 100 MB/s: %.0f MB/s: %s\n", m_export_mbs(big),
		     verdict(m_export_mbs(big) >= 100));
	else
		emit("  Chrome export >= 100 MB/s: not measured (%s)\n",
		     big->export_note ? big->export_note : "?");
	if (!isnan(big->pexport_ns) && !isnan(big->export_ns))
		emit("  Perfetto export >= 4x smaller than the JSON, at least as fast: %.1fx, "
		     "%.1fx: %s\n",
		     m_pexport_smaller(big), m_pexport_faster(big),
		     verdict(m_pexport_smaller(big) >= 4 && m_pexport_faster(big) >= 1));
	if (jr && jr->done)
		print_job_targets(jr);
	if (sr && sr->done)
		print_scale_targets(sr);
}

/* ------------------------------------------------------------------------ */

static const char usage[] =
	"usage: gs_bench [--gpuscope PATH] [--out FILE] [--tmp DIR] [--repeat N]\n"
	"                [--devices N] [--job-ranks N] [--job-ops K] [--scale-ranks N]\n"
	"                [--scale-ops K] [--shared DIR] [--keep] [--smoke] SIZE...\n"
	"SIZE is a number of GPU ops: 1e5, 1000000, ...\n"
	"--shared DIR: the real traces whose import is timed (DIR/kineto/*/*.json.gz;\n"
	"default ../shared/data beside the sources; not with --smoke)\n"
	"--job-ranks N, --job-ops K: the job against one rank (default 64 x 20000;\n"
	"with --smoke 4 x 1000; --job-ranks 0: not measured)\n"
	"--scale-ranks N, --scale-ops K: the text report of a job of many ranks against\n"
	"one rank (default 1024 x 200; with --smoke 16 x 100; --scale-ranks 0: not\n"
	"measured)\n";

static bool parse_size(const char *s, uint64_t *v)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || *end || !(d >= 1000 && d <= 1e9) || d != (double)(uint64_t)d)
		return false;
	*v = (uint64_t)d;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"gpuscope", required_argument, NULL, 'g'},
		{"out", required_argument, NULL, 'o'},
		{"tmp", required_argument, NULL, 't'},
		{"repeat", required_argument, NULL, 'r'},
		{"devices", required_argument, NULL, 'd'},
		{"job-ranks", required_argument, NULL, 'J'},
		{"job-ops", required_argument, NULL, 'K'},
		{"scale-ranks", required_argument, NULL, 'N'},
		{"scale-ops", required_argument, NULL, 'O'},
		{"shared", required_argument, NULL, 'S'},
		{"keep", no_argument, NULL, 'k'},
		{"smoke", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *gpuscope = NULL, *out = NULL, *tmp = getenv("TMPDIR");
	const char *shared = GS_BENCH_SHARED_DATA;
	struct result res[MAX_SIZES];
	struct job_result jr = {0};
	struct scale_result sr = {0};
	static struct shared_result shr;
	uint64_t sizes[MAX_SIZES], job_ops = 0, scale_ops = 0;
	long job_ranks = -1, scale_ranks = -1;
	unsigned devices = 2;
	bool smoke = false;
	size_t n = 0;
	ssize_t k;
	int opt;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child_main(argc - 1, argv + 1);
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'g':
			gpuscope = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 't':
			tmp = optarg;
			break;
		case 'r':
			opt_repeat = (unsigned)strtoul(optarg, NULL, 10);
			if (opt_repeat < 1 || opt_repeat > 100)
				return fputs(usage, stderr), 2;
			break;
		case 'd':
			devices = (unsigned)strtoul(optarg, NULL, 10);
			if (devices < 1 || devices > 64)
				return fputs(usage, stderr), 2;
			break;
		case 'J':
			job_ranks = strtol(optarg, NULL, 10);
			if (job_ranks < 0 || job_ranks > GS_BENCH_JOB_MAX_RANKS)
				return fputs(usage, stderr), 2;
			break;
		case 'K':
			if (!parse_size(optarg, &job_ops))
				return fputs(usage, stderr), 2;
			break;
		case 'N':
			scale_ranks = strtol(optarg, NULL, 10);
			if (scale_ranks < 0 || scale_ranks > GS_BENCH_JOB_MAX_RANKS)
				return fputs(usage, stderr), 2;
			break;
		case 'O':
			scale_ops = strtoull(optarg, NULL, 10);
			if (scale_ops < 1 || scale_ops > 1000000)
				return fputs(usage, stderr), 2;
			break;
		case 'S':
			shared = optarg;
			break;
		case 'k':
			opt_keep = true;
			break;
		case 's':
			smoke = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	for (; optind < argc; optind++) {
		if (n == MAX_SIZES || !parse_size(argv[optind], &sizes[n])) {
			fprintf(stderr,
				"gs_bench: error: bad size '%s' (1e3 to 1e9 ops, at most %d)\n",
				argv[optind], MAX_SIZES);
			return 2;
		}
		n++;
	}
	if (!n)
		return fputs(usage, stderr), 2;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	k = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (k <= 0) {
		fprintf(stderr, "gs_bench: error: cannot find its own executable\n");
		return 1;
	}
	self_exe[k] = '\0';
	if (smoke)
		opt_repeat = 1;
	read_loadavg(loadavg_start, sizeof(loadavg_start));
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	for (size_t i = 0; i < n; i++)
		if (bench_size(sizes[i], tmp, gpuscope, devices, &res[i]))
			return 1;
	if (job_ranks < 0)
		job_ranks = smoke ? 4 : 64;
	if (!job_ops)
		job_ops = smoke ? 1000 : 20000;
	if (job_ranks > 0 && gpuscope &&
	    bench_job(tmp, gpuscope, (uint32_t)job_ranks, job_ops, &jr))
		return 1;
	if (scale_ranks < 0)
		scale_ranks = smoke ? 16 : 1024;
	if (!scale_ops)
		scale_ops = smoke ? 100 : 200;
	if (scale_ranks > 0 && gpuscope &&
	    bench_scale(tmp, gpuscope, (uint32_t)scale_ranks, scale_ops, &sr))
		return 1;
	if (!smoke && bench_shared(tmp, shared, &shr))
		return 1;
	if (out && !(out_file = fopen(out, "w"))) {
		fprintf(stderr, "gs_bench: error: %s: cannot create: %s\n", out, strerror(errno));
		return 1;
	}
	read_loadavg(loadavg_end, sizeof(loadavg_end));
	print_table(res, n, devices, &jr, &sr, &shr, smoke);
	if (out_file && fclose(out_file) != 0) {
		fprintf(stderr, "gs_bench: error: %s: write failed\n", out);
		return 1;
	}
	return 0;
}
