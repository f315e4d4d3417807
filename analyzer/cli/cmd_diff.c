/* SPDX-License-Identifier: MIT */
/*
 * gpuscope diff: compare two traces (gs_diff_build on the analyze report of
 * each) and print the differences as text or JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/diff.h>

#include "cli.h"

#define DIFF_SYNOPSIS                                                                              \
	"gpuscope diff [--format text|json] [-o OUT] [--force] [--top N]\n"                        \
	"                     [--pair [R/]B:[R/]N]... [--salvage] [--quiet] BASE NEW"

static const struct gs_cli_usage diff_usage = {
	.name = "diff",
	.synopsis = DIFF_SYNOPSIS,
};

static const char diff_help[] =
	"usage: " DIFF_SYNOPSIS "\n"
	"\n"
	"Compare two traces (say, before and after a change), GPU by GPU: the kernel /\n"
	"copy / sync / idle breakdown, overlap, idle attribution, the actual, dependency\n"
	"bound, ideal and pipelined schedules and the efficiency, side by side with the\n"
	"change (delta = NEW - BASE); the kernels whose total time changed most (by\n"
	"name); waits between streams and on the host that are new, vanished or changed\n"
	"(matched by consumer and producer name and stream, as op ids differ between\n"
	"runs); and missed copy overlaps likewise (matched by copy name, stream and\n"
	"direction). GPUs are matched by rank and device id, unless --pair says\n"
	"otherwise. Kernels show their calls, time and mean time per call on each\n"
	"side. When the runs hold different numbers of iterations (ProfilerStep#N\n"
	"ranges, else an outermost NVTX range repeated on both sides), times and\n"
	"counts are compared per iteration; without iteration marks, when both run\n"
	"the same kernels but their op counts differ by more than 5%, NEW is scaled\n"
	"to BASE's op count. A line under the header says so. An efficiency the\n"
	"schedule could not give exactly shows as n/a (bounded, cycles broken).\n"
	"\n"
	"options:\n"
	"  --format text|json  output format (default: text); json is one object,\n"
	"                      schema \"gpuscope.diff/1\", with every row of every list\n"
	"  -o, --output OUT    write to OUT instead of stdout ('-'; default: stdout). OUT\n"
	"                      is written whole or not at all, never BASE, NEW or a\n"
	"                      symbolic link\n"
	"  --force             replace OUT if it exists, a regular file only (default:\n"
	"                      refuse)\n"
	"  --top N             rows in each text table (default: 10)\n"
	"  --pair [R/]B:[R/]N  compare GPU B of BASE with GPU N of NEW (repeatable;\n"
	"                      each GPU in one pair). R/ names the rank, needed when\n"
	"                      several ranks have that GPU: --pair 3:1, --pair 0/3:1/1\n"
	"                      (default: GPUs of the same rank and id)\n"
	"  --salvage           skip corrupt .gscope chunks with a warning instead of\n"
	"                      failing (default: off)\n"
	"  -q, --quiet         no loading warnings and no progress line on stderr\n"
	"                      (default: the warnings, and on a terminal a progress line\n"
	"                      while loading takes over a second)\n"
	"  -h, --help          show this help\n"
	"\n"
	"BASE and NEW are .gscope files, Kineto / PyTorch-profiler JSON traces (.json,\n"
	".json.gz) or Nsight Systems SQLite exports (.sqlite), recognised by their\n"
	"content; '-' is stdin (one of them at most), and pipes work too (not for\n"
	"Nsight exports).\n"
	"\n"
	"example:\n"
	"  gpuscope diff before.json.gz after.json.gz\n"
	"  gpuscope diff --format json -o diff.json before.gscope after.gscope\n"
	"  gpuscope diff --pair 3:1 before.json after.json\n";

struct diff_opts {
	bool json;
	bool salvage;
	const char *output;
	bool force;
	bool quiet;
	size_t top;
	const char *base;
	const char *newp;
	struct gs_diff_pair *pairs;
	size_t n_pairs;
};

#define MAX_PAIRS 4096

/* "[R/]G": a rank (or GS_DIFF_ANY_RANK) and a GPU; false when malformed. */
static bool parse_gpu(const char *s, const char *end, int64_t *rank, uint32_t *gpu)
{
	const char *slash = memchr(s, '/', (size_t)(end - s));
	unsigned long long v;
	char buf[32];

	*rank = GS_DIFF_ANY_RANK;
	if (slash) {
		if (!parse_gpu(s, slash, rank, gpu) || *rank != GS_DIFF_ANY_RANK)
			return false;
		*rank = *gpu;
		s = slash + 1;
	}
	if (end - s <= 0 || (size_t)(end - s) >= sizeof(buf))
		return false;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = '\0';
	if (!gs_cli_parse_count(buf, UINT32_MAX, &v))
		return false;
	*gpu = (uint32_t)v;
	return true;
}

/* --pair [R/]B:[R/]N */
static bool parse_pair(const char *arg, struct gs_diff_pair *p)
{
	const char *colon = strchr(arg, ':');

	return colon && !strchr(colon + 1, ':') &&
	       parse_gpu(arg, colon, &p->base_rank, &p->base_device) &&
	       parse_gpu(colon + 1, colon + strlen(colon), &p->new_rank, &p->new_device);
}

static int diff_parse(int argc, char **argv, struct diff_opts *o, bool *help)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"top", required_argument, NULL, 't'},
		{"salvage", no_argument, NULL, 's'},
		{"force", no_argument, NULL, 'F'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"pair", required_argument, NULL, 'p'},
		{NULL, 0, NULL, 0},
	};
	unsigned long long v;
	char *end;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "json"))
				o->json = true;
			else if (!strcmp(optarg, "text"))
				o->json = false;
			else
				return gs_cli_usage_error(
					&diff_usage, "unknown format '%s' (text or json)", optarg);
			break;
		case 'o':
			if (!*optarg)
				return gs_cli_usage_error(&diff_usage, "-o wants a file name");
			o->output = optarg;
			break;
		case 'F':
			o->force = true;
			break;
		case 't':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || errno || v == 0 ||
			    v > 1000000)
				return gs_cli_usage_error(&diff_usage,
							  "--top wants a count from 1, not '%s'",
							  optarg);
			o->top = (size_t)v;
			break;
		case 's':
			o->salvage = true;
			break;
		case 'p':
			if (!o->pairs)
				o->pairs = calloc(MAX_PAIRS, sizeof(*o->pairs));
			if (!o->pairs) {
				gs_cli_error("out of memory");
				return GS_EXIT_FAIL;
			}
			if (o->n_pairs == MAX_PAIRS)
				return gs_cli_usage_error(&diff_usage, "--pair: %d pairs at most",
							  MAX_PAIRS);
			if (!parse_pair(optarg, &o->pairs[o->n_pairs]))
				return gs_cli_usage_error(
					&diff_usage,
					"--pair wants BASE_GPU:NEW_GPU, each RANK/GPU or GPU "
					"(3:1, 0/3:1/1), not '%s'",
					optarg);
			o->n_pairs++;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			*help = true;
			return GS_EXIT_OK;
		default:
			return gs_cli_bad_option(&diff_usage, argv, c);
		}
	}
	if (argc - optind < 2)
		return gs_cli_usage_error(&diff_usage, argc - optind ?
							       "no NEW trace given" :
							       "no BASE and NEW traces given");
	if (argc - optind > 2)
		return gs_cli_usage_error(&diff_usage, "two traces at most (got '%s' too)",
					  argv[optind + 2]);
	o->base = argv[optind];
	o->newp = argv[optind + 1];
	return gs_cli_stdin_once(&diff_usage, (const char *const *)argv + optind, 2);
}

static int diff_write(const struct diff_opts *o, const struct gs_diff *d, struct gs_output *out)
{
	gs_status st;

	gs_error_clear();
	st = o->json ? gs_diff_write_json(out->f, d) : gs_diff_write_text(out->f, d);
	return gs_output_close(out, st);
}

/* BASE and NEW, read at once on two CPUs (the same traces as one after the
 * other); then the warnings of each. */
static int diff_load(const struct diff_opts *o, struct gs_job *j[2], enum gs_input_format fmt[2])
{
	const char *paths[2] = {o->base, o->newp};
	const char *names[2] = {gs_input_name(o->base), gs_input_name(o->newp)};
	struct gs_load_options lo = {.reader_flags = o->salvage ? GS_READER_SALVAGE : 0,
				     .progress = gs_progress_records};
	struct gs_trace *t[2] = {NULL, NULL};
	size_t failed = 0;
	gs_status st;

	if (gs_cli_limits(&lo.limits) != GS_EXIT_OK)
		return GS_EXIT_FAIL;
	gs_error_clear();
	gs_progress_begin("loading %s and %s", names[0], names[1]);
	st = gs_trace_load_each(paths, 2, &lo, t, fmt, &failed);
	gs_progress_end();
	if (st != GS_OK)
		return gs_cli_fail(st, names[failed]);
	/* Each side is a job of its processes (an Nsight export of several
	 * is several ranks): GPUs are compared by (rank, device). */
	for (int s = 0; s < 2; s++) {
		st = gs_job_from_traces(&t[s], &names[s], 1, &j[s]);
		t[s] = NULL;
		if (st != GS_OK) {
			gs_trace_destroy(t[1]);
			return gs_cli_fail(st, names[s]);
		}
		if (!o->quiet)
			gs_cli_job_warnings(j[s], &paths[s], 1);
	}
	return GS_EXIT_OK;
}

int gs_cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {0};
	struct gs_job *j[2] = {NULL, NULL};
	enum gs_input_format fmt[2];
	struct gs_diff *d = NULL;
	const char *inputs[2];
	struct gs_output out;
	bool help = false;
	gs_status st;
	int rc;

	rc = diff_parse(argc, argv, &o, &help);
	if (rc != GS_EXIT_OK || help) {
		free(o.pairs);
		return help ? gs_cli_help(diff_help) : rc;
	}
	gs_progress_setup(o.quiet);
	inputs[0] = o.base;
	inputs[1] = o.newp;
	/* Before loading: a refused OUT is known at once. */
	rc = gs_output_open(&out, o.output, o.force, inputs, 2);
	if (rc != GS_EXIT_OK) {
		free(o.pairs);
		return rc;
	}
	rc = diff_load(&o, j, fmt);
	if (rc == GS_EXIT_OK) {
		struct gs_diff_options dop = {
			.base_name = gs_input_name(o.base),
			.new_name = gs_input_name(o.newp),
			.base_format = gs_input_format_name(fmt[0]),
			.new_format = gs_input_format_name(fmt[1]),
			.top = o.top,
			.max_edges = gs_cli_max_edges(),
			.pairs = o.pairs,
			.n_pairs = o.n_pairs,
		};

		gs_error_clear();
		st = gs_diff_build_job(j[0], j[1], &dop, &d);
		rc = st == GS_OK ? diff_write(&o, d, &out) : gs_cli_fail(st, NULL);
	}
	gs_output_discard(&out); /* after a failure: the temporary file only */
	gs_diff_destroy(d);
	gs_job_destroy(j[0]);
	gs_job_destroy(j[1]);
	free(o.pairs);
	return rc;
}
