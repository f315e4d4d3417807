/* SPDX-License-Identifier: MIT */
/*
 * gs_bench_gen: write a generated benchmark trace (bench/gen.h) as .gscope
 * (through the gs_writer sink), Kineto JSON and gzip Kineto JSON; or, with
 * --job, the Kineto traces of the ranks of one NCCL job and the job numbers
 * they must give (bench/job.h).
 *
 *   gs_bench_gen --ops N [--devices D] [--seed S] [--rank R]
 *                [--gscope OUT.gscope] [--json OUT.json] [--json-gz OUT.json.gz]
 *   gs_bench_gen --job N --out-dir DIR [--ops-per-rank K] [--collectives C]
 *                [--straggler R] [--straggler-share P] [--straggler-delay-ns D]
 *                [--skew-ns S] [--gzip] [--seed X] [--threads T] [--merged FILE]
 *                [--steps]
 *
 * Prints what was generated, one "key value" per line.
 */
#include "gen.h"
#include "job.h"

#include <gpuscope/gscope_file.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char usage[] =
	"usage: gs_bench_gen --ops N [--devices D] [--seed S] [--rank R] [--gscope OUT.gscope]\n"
	"                    [--json OUT.json] [--json-gz OUT.json.gz]\n"
	"       gs_bench_gen --job N --out-dir DIR [--ops-per-rank K] [--collectives C]\n"
	"                    [--straggler R] [--straggler-share P] [--straggler-delay-ns D]\n"
	"                    [--skew-ns S] [--gzip] [--seed X] [--threads T] [--merged FILE]\n"
	"                    [--steps]\n";

static const char help[] =
	"\n"
	"One trace (--ops): a training workload of N GPU ops on D devices (2) of one\n"
	"process (rank R: pid 4242 + R), written as any of .gscope, JSON and gzip JSON.\n"
	"\n"
	"A job (--job N): DIR/rank<r>.json for r = 0 .. N-1, one Kineto trace a rank\n"
	"(8 GPUs a node: device r % 8, host pid 1000 + r % 8, one clock for all), and\n"
	"DIR/expected.json, the exact job numbers of those traces (bench/job.h says\n"
	"the timing rule and the schema). Each step: 6 compute kernels on stream 7,\n"
	"an NCCL all-reduce on stream 13 beside one more compute kernel, and every\n"
	"4th step an all-gather; all in process group \"0\" of all ranks.\n"
	"  --out-dir DIR          where the files go (created when missing)\n"
	"  --ops-per-rank K       the first K GPU ops of each rank\n"
	"  --collectives C        whole steps up to C collectives (default 100 when\n"
	"                         neither is given; with both, whichever ends first)\n"
	"  --straggler R          rank R arrives last, D ns after all the others' latest,\n"
	"                         in collectives j with j % round(1/P) == 0\n"
	"  --straggler-share P    P in (0, 1] (default 0.5)\n"
	"  --straggler-delay-ns D D >= 1 (default 500000)\n"
	"  --skew-ns S            on collective C/2 (C/2 + 1 when the straggler's),\n"
	"                         rank (R + N/2) % N (R = 0 without one) arrives S ns\n"
	"                         after all the others\n"
	"  --gzip                 rank<r>.json.gz\n"
	"  --seed X               the per-rank jitter and durations (same seed, same bytes)\n"
	"  --threads T            ranks written at once (default: the CPUs usable)\n"
	"  --merged FILE          also FILE: the same ops as ONE process, rank r on\n"
	"                         device r and host thread 1000 + r, correlation ids\n"
	"                         offset per rank (to time a job against one rank)\n"
	"  --steps                each step of a rank a ProfilerStep#i range, its GPU\n"
	"                         windows in expected.json\n";

static int fail(const char *what)
{
	char buf[1024];

	fprintf(stderr, "gs_bench_gen: error: %s%s%s\n", what, gs_error_count() ? ": " : "",
		gs_error_count() ? gs_error_format(buf, sizeof(buf)) : "");
	return 1;
}

static bool parse_count(const char *s, uint64_t *v)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || *end || !(d >= 1 && d <= 1e12) || d != (double)(uint64_t)d)
		return false;
	*v = (uint64_t)d;
	return true;
}

/* A whole number from 0 to max. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	if (strcmp(s, "0") == 0) {
		*v = 0;
		return true;
	}
	return parse_count(s, v) && *v <= max;
}

static int job_main(const struct gs_bench_job_options *o, const char *dir)
{
	struct gs_bench_job_summary s;

	if (!dir)
		return fputs(usage, stderr), 2;
	if (gs_bench_job_generate(o, dir, &s))
		return fail("generating the job");
	printf("ranks %u\nops_per_rank %llu\ncollectives %llu\nsteps %llu\njson_bytes %llu\n",
	       o->ranks, (unsigned long long)s.ops_per_rank, (unsigned long long)s.collectives,
	       (unsigned long long)s.steps, (unsigned long long)s.json_bytes);
	if (o->merged)
		printf("merged_json_bytes %llu\n", (unsigned long long)s.merged_json_bytes);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"ops", required_argument, NULL, 'n'},
		{"devices", required_argument, NULL, 'd'},
		{"seed", required_argument, NULL, 's'},
		{"gscope", required_argument, NULL, 'g'},
		{"json", required_argument, NULL, 'j'},
		{"json-gz", required_argument, NULL, 'z'},
		{"rank", required_argument, NULL, 'r'},
		{"job", required_argument, NULL, 'J'},
		{"out-dir", required_argument, NULL, 'O'},
		{"ops-per-rank", required_argument, NULL, 'K'},
		{"collectives", required_argument, NULL, 'C'},
		{"straggler", required_argument, NULL, 'R'},
		{"straggler-share", required_argument, NULL, 'P'},
		{"straggler-delay-ns", required_argument, NULL, 'D'},
		{"skew-ns", required_argument, NULL, 'S'},
		{"gzip", no_argument, NULL, 'Z'},
		{"threads", required_argument, NULL, 'T'},
		{"merged", required_argument, NULL, 'M'},
		{"steps", no_argument, NULL, 'X'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct gs_bench_gen_options o = {0};
	struct gs_bench_gen_counts c;
	struct gs_bench_job_options jo = {.straggler = -1};
	const char *gpath = NULL, *jpath = NULL, *zpath = NULL, *out_dir = NULL;
	char *end;
	struct gs_writer *w = NULL;
	FILE *json = NULL;
	gzFile gz = NULL;
	uint64_t v = 0;
	gs_status rc;
	int opt;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (!parse_count(optarg, &o.ops))
				return fputs(usage, stderr), 2;
			break;
		case 'd':
			if (!parse_count(optarg, &v) || v > 64)
				return fputs(usage, stderr), 2;
			o.devices = (uint32_t)v;
			break;
		case 's':
			if (!parse_count(optarg, &o.seed))
				return fputs(usage, stderr), 2;
			jo.seed = o.seed;
			break;
		case 'J':
			if (!parse_count(optarg, &v) || v > GS_BENCH_JOB_MAX_RANKS)
				return fputs(usage, stderr), 2;
			jo.ranks = (uint32_t)v;
			break;
		case 'O':
			out_dir = optarg;
			break;
		case 'K':
			if (!parse_count(optarg, &jo.ops_per_rank))
				return fputs(usage, stderr), 2;
			break;
		case 'C':
			if (!parse_count(optarg, &jo.collectives))
				return fputs(usage, stderr), 2;
			break;
		case 'R':
			if (!parse_u64(optarg, GS_BENCH_JOB_MAX_RANKS, &v))
				return fputs(usage, stderr), 2;
			jo.straggler = (int64_t)v;
			break;
		case 'P':
			jo.straggler_share = strtod(optarg, &end);
			if (end == optarg || *end || !(jo.straggler_share > 0) ||
			    jo.straggler_share > 1)
				return fputs(usage, stderr), 2;
			break;
		case 'D':
			if (!parse_count(optarg, &v) || v > 10000000000ull)
				return fputs(usage, stderr), 2;
			jo.straggler_delay = (int64_t)v;
			break;
		case 'S':
			if (!parse_u64(optarg, 10000000000ull, &v))
				return fputs(usage, stderr), 2;
			jo.skew = (int64_t)v;
			break;
		case 'Z':
			jo.gzip = true;
			break;
		case 'T':
			if (!parse_count(optarg, &v) || v > 64)
				return fputs(usage, stderr), 2;
			jo.threads = (unsigned)v;
			break;
		case 'M':
			jo.merged = optarg;
			break;
		case 'X':
			jo.steps = true;
			break;
		case 'r':
			/* 0 is a rank: the first. */
			if (strcmp(optarg, "0") != 0 && (!parse_count(optarg, &v) || v > 1024))
				return fputs(usage, stderr), 2;
			o.rank = strcmp(optarg, "0") == 0 ? 0 : (uint32_t)v;
			break;
		case 'g':
			gpath = optarg;
			break;
		case 'j':
			jpath = optarg;
			break;
		case 'z':
			zpath = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			fputs(help, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc)
		return fputs(usage, stderr), 2;
	if (jo.ranks) {
		/* The one-trace options do not mix with a job. */
		if (o.ops || o.devices || o.rank || gpath || jpath || zpath)
			return fputs(usage, stderr), 2;
		return job_main(&jo, out_dir);
	}
	if (!o.ops || out_dir || jo.ops_per_rank || jo.collectives || jo.straggler >= 0 ||
	    jo.straggler_share > 0 || jo.straggler_delay || jo.skew || jo.gzip || jo.threads ||
	    jo.merged)
		return fputs(usage, stderr), 2;
	if (gpath && gs_writer_open(gpath, NULL, &w))
		return fail(gpath);
	if (jpath && !(json = fopen(jpath, "wb")))
		return fail(jpath);
	if (zpath && !(gz = gzopen(zpath, "wb1")))
		return fail(zpath);
	rc = gs_bench_generate(&o, w ? gs_writer_borrow_sink(w) : NULL, json, gz, &c);
	if (w) {
		gs_status wrc = gs_writer_close(w);

		if (!rc)
			rc = wrc;
	}
	if (json && fclose(json) != 0 && !rc)
		rc = GS_ERR_IO;
	if (gz && gzclose(gz) != Z_OK && !rc)
		rc = GS_ERR_IO;
	if (rc)
		return fail("generating the trace");
	printf("ops %llu\nkernels %llu\nmemcpys %llu\nmemsets %llu\napi_calls %llu\n"
	       "syncs %llu\nevent_records %llu\nranges %llu\noverheads %llu\nstreams %llu\n"
	       "devices %llu\nsteps %llu\njson_bytes %llu\n",
	       (unsigned long long)c.ops, (unsigned long long)c.kernels,
	       (unsigned long long)c.memcpys, (unsigned long long)c.memsets,
	       (unsigned long long)c.api_calls, (unsigned long long)c.syncs,
	       (unsigned long long)c.event_records, (unsigned long long)c.ranges,
	       (unsigned long long)c.overheads, (unsigned long long)c.streams,
	       (unsigned long long)c.devices, (unsigned long long)c.steps,
	       (unsigned long long)c.json_bytes);
	return 0;
}
