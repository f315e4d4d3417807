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
 *
 * The pieces, around bench_priv.h: this file the options and main;
 * bench_run.c the measurement helpers (timing, peak RSS, repeats, medians);
 * bench_child.c the child processes; bench_size.c (each SIZE), bench_job.c
 * (the jobs of many ranks) and bench_shared.c (the shared traces) the
 * sections; bench_report.c the table.
 */
#define _GNU_SOURCE /* getopt_long, readlink */
#include "bench_priv.h"
#include "job.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SIZES 8

char self_exe[4096];
char loadavg_start[64], loadavg_end[64];
unsigned opt_repeat = 3;
bool opt_keep;
char cur_dir[4096];
char shared_plain[4200]; /* a shared trace inflated, while measured */
char job_dir[4096];
uint32_t job_dir_ranks;
FILE *out_file;

/* At exit, and on SIGINT, SIGTERM or SIGHUP before the signal is raised
 * again: the paths built with snprintf are not async-signal-safe, but the
 * process dies right after, and a run cut short should not leave gigabytes
 * of traces behind. */
static void cleanup(void)
{
	if (cur_dir[0] && !opt_keep)
		/* NOLINTNEXTLINE(bugprone-signal-handler,cert-sig30-c): see above */
		rm_rf_files(cur_dir);
	cur_dir[0] = '\0';
	if (job_dir[0] && !opt_keep)
		/* NOLINTNEXTLINE(bugprone-signal-handler,cert-sig30-c): see above */
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
