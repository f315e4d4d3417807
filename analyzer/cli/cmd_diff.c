/* SPDX-License-Identifier: MIT */
/*
 * gpuscope diff: compare two traces, or two jobs (gs_diff_build_job on the
 * analyze report of each) and print the differences as text or JSON. BASE
 * and NEW are each a trace or a directory of traces (gs_cli_inputs): two
 * sides cannot share one --inputs list, so diff takes none.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/diff.h>
#include <gpuscope/gate.h>
#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>
#include <gpuscope/trace.h>

#include "cli.h"

#define DIFF_SYNOPSIS                                                                              \
	"gpuscope diff [--format text|json] [-o OUT] [--force] [--top N]\n"                        \
	"                     [--pair [R/]B:[R/]N]... [--fail-if THRESHOLDS] [--salvage]\n"        \
	"                     [--quiet] BASE NEW"

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
	"When no GPU is in both runs (their ids differ), nothing is compared: an\n"
	"error (exit 1) that lists each side's GPUs and names --pair.\n"
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
	"                      (default: GPUs of the same rank and id). A pair of two\n"
	"                      GPU models is compared, with a warning\n"
	"  --fail-if THRESHOLDS\n"
	"                      the gate of a CI job: exit status 3 when a compared GPU\n"
	"                      crosses a threshold, with one line on stderr per\n"
	"                      threshold crossed and the diff written as asked (JSON:\n"
	"                      its \"gate\" member). THRESHOLDS: METRIC OP VALUE,\n"
	"                      comma-separated (repeatable); OP >, >=, < or <=. With\n"
	"                      a sign VALUE is a change NEW - BASE: +5% relative, +2ms\n"
	"                      of a time, +3pp (percentage points) or +0.03 of a share\n"
	"                      or ratio, +10 of a count; without one, NEW's value\n"
	"                      (as analyze --fail-if takes it). Times and counts are\n"
	"                      on the basis of the comparison (per iteration when the\n"
	"                      runs differ in iterations).\n"
	"                      'step_time>+5%,exposed_comm>+2ms,idle_share>+3pp'.\n"
	"                      Per GPU (the verdict names the worst): step_time (the\n"
	"                      median GPU time of the steps analyze would analyse),\n"
	"                      window, kernel_time, copy_time, sync_time, idle_time,\n"
	"                      kernel_share, copy_share, sync_share, idle_share,\n"
	"                      efficiency (a change: exact on both sides), gap\n"
	"                      (actual - ideal), host_bound, launch_latency,\n"
	"                      exposed_comm, comm_time, wait_time, missed_overlap\n"
	"                      (exposed), ops. A bad threshold, or one no compared GPU\n"
	"                      has the metric of, is an error (exit 1) (default: none)\n"
	"  --salvage           skip corrupt .gscope chunks with a warning instead of\n"
	"                      failing (default: off)\n"
	"  -q, --quiet         no loading warnings and no progress line on stderr\n"
	"                      (default: the warnings, and on a terminal a progress line\n"
	"                      while loading takes over a second)\n"
	"  -h, --help          show this help\n"
	"\n"
	"BASE and NEW are each {formats}, recognised by its content; '-' is stdin\n"
	"(one of them at most), and pipes work too (not for {file-only}). Either may be a directory: every trace in it, one job (as\n"
	"gpuscope analyze DIR reads it), compared GPU by GPU (rank, device). diff takes\n"
	"no --inputs: give each side's traces as a directory. The same trace twice\n"
	"within one side is refused; BASE and NEW may be the same.\n"
	"\n"
	"example:\n"
	"  gpuscope diff before.json.gz after.json.gz\n"
	"  gpuscope diff --format json -o diff.json before.gscope after.gscope\n"
	"  gpuscope diff --pair 3:1 before.json after.json\n"
	"  gpuscope diff runs/before/ runs/after/\n"
	"  gpuscope diff --fail-if 'step_time>+5%,idle_share>+3pp' before.json after.json\n";

/* The trace-input options diff takes (input_opts.h); its two operands
 * are its own. */
#define DIFF_INOPTS (GS_INOPT_SALVAGE | GS_INOPT_QUIET)

struct diff_opts {
	struct gs_input_opts io; /* --salvage, -q, the operands */
	bool json;
	const char *output;
	bool force;
	size_t top;
	const char *base;
	const char *newp;
	struct gs_diff_pair *pairs;
	size_t n_pairs;
	struct gs_input_list in[2]; /* BASE's and NEW's traces (gs_cli_inputs) */
	char *fail_if;              /* every --fail-if, comma-separated (owned) */
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
	static const struct option own[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"top", required_argument, NULL, 't'},
		{"force", no_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{"pair", required_argument, NULL, 'p'},
		{"inputs", required_argument, NULL, 'I'},
		{"fail-if", required_argument, NULL, 'G'},
		{NULL, 0, NULL, 0},
	};
	const struct gs_input_opts_ui ui = {gs_cli_input_usage, &diff_usage};
	struct option longopts[24];
	unsigned long long v;
	char *end;
	int c, rc;

	if (!gs_input_opts_table(DIFF_INOPTS, own, longopts,
				 sizeof(longopts) / sizeof(longopts[0])))
		return gs_cli_fail(GS_ERR_INVALID, "option table too small"); /* a bug */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", longopts, NULL)) != -1) {
		if (gs_input_opts_takes(DIFF_INOPTS, c)) {
			rc = gs_input_opts_parse(&o->io, DIFF_INOPTS, &ui, c, optarg);
			if (rc != GS_EXIT_OK)
				return rc;
			continue;
		}
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
		case 'G':
			if (!gs_cli_gate_add(&o->fail_if, optarg))
				return gs_cli_fail(GS_ERR_NOMEM, NULL);
			break;
		case 'I':
			return gs_cli_usage_error(&diff_usage,
						  "--inputs is not taken by diff: BASE and NEW are "
						  "each a trace or a directory of traces");
		case 'h':
			*help = true;
			return GS_EXIT_OK;
		default:
			return gs_cli_bad_option(&diff_usage, argv, c);
		}
	}
	rc = gs_input_opts_finish(&o->io, DIFF_INOPTS, &ui, argc, argv, optind);
	if (rc != GS_EXIT_OK)
		return rc;
	if (o->io.n_operands < 2)
		return gs_cli_usage_error(&diff_usage, o->io.n_operands ?
							       "no NEW trace given" :
							       "no BASE and NEW traces given");
	if (o->io.n_operands > 2)
		return gs_cli_usage_error(&diff_usage, "two traces at most (got '%s' too)",
					  o->io.operands[2]);
	o->base = o->io.operands[0];
	o->newp = o->io.operands[1];
	return GS_EXIT_OK;
}

/* The comparison's warnings (a pair of two GPU models) on stderr. */
static void diff_warnings(const struct gs_diff *d)
{
	size_t n;
	const char *const *w = gs_diff_warnings(d, &n);

	for (size_t i = 0; i < n; i++)
		gs_cli_warning("%s", w[i]);
}

static int diff_write(const struct diff_opts *o, const struct gs_diff *d, struct gs_outfile *out)
{
	gs_status st;

	gs_error_clear();
	st = o->json ? gs_diff_write_json(out->f, d) : gs_diff_write_text(out->f, d);
	return gs_cli_output_close(out, st);
}

/* The format of a side: its traces' one format, or "mixed". */
static const char *side_format(const enum gs_input_format *fmts, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (fmts[i] != fmts[0])
			return "mixed";
	return gs_input_format_name(n ? fmts[0] : GS_INPUT_UNKNOWN);
}

/* BASE and NEW, one trace each: read at once on two CPUs (the same traces
 * as one after the other). Each side is a job of its processes (an Nsight
 * export of several is several ranks): GPUs are compared by (rank, device). */
static gs_status load_two(const struct diff_opts *o, const struct gs_load_options *lo,
			  struct gs_job *j[2], enum gs_input_format fmt[2], size_t *failed)
{
	const char *paths[2] = {o->in[0].paths[0], o->in[1].paths[0]};
	const char *names[2] = {gs_input_name(paths[0]), gs_input_name(paths[1])};
	struct gs_trace *t[2] = {NULL, NULL};
	gs_status st;

	st = gs_trace_load_each(paths, 2, lo, t, fmt, failed);
	for (int s = 0; s < 2 && st == GS_OK; s++) {
		st = gs_job_from_traces(&t[s], &names[s], 1, &j[s]);
		t[s] = NULL;
		if (st != GS_OK) {
			gs_trace_destroy(t[1]);
			*failed = (size_t)s;
		}
	}
	return st;
}

/* BASE and NEW (a side of several traces is read as gpuscope analyze reads
 * a job); then the warnings of each. */
static int diff_load(const struct diff_opts *o, struct gs_job *j[2], const char *format[2])
{
	struct gs_load_options lo = {.reader_flags = o->io.salvage ? GS_READER_SALVAGE : 0,
				     .progress = gs_progress_records};
	enum gs_input_format *fmts[2] = {NULL, NULL};
	size_t failed = 0;
	int side = 0, rc = GS_EXIT_OK;
	gs_status st;

	if (gs_cli_limits(&lo.limits) != GS_EXIT_OK)
		return GS_EXIT_FAIL;
	for (int s = 0; s < 2; s++) {
		fmts[s] = calloc(o->in[s].n, sizeof(*fmts[s]));
		if (!fmts[s]) {
			free(fmts[0]);
			return gs_cli_fail(GS_ERR_NOMEM, NULL);
		}
	}
	gs_error_clear();
	gs_progress_begin("loading %s and %s", gs_input_name(o->base), gs_input_name(o->newp));
	if (o->in[0].n == 1 && o->in[1].n == 1) {
		enum gs_input_format f[2] = {GS_INPUT_UNKNOWN, GS_INPUT_UNKNOWN};

		st = load_two(o, &lo, j, f, &failed);
		side = (int)failed;
		failed = 0;
		fmts[0][0] = f[0];
		fmts[1][0] = f[1];
	} else {
		st = GS_OK;
		for (side = 0; side < 2 && st == GS_OK; side++)
			st = gs_job_load((const char *const *)o->in[side].paths, o->in[side].n, &lo,
					 &j[side], fmts[side], &failed);
		side--;
	}
	gs_progress_end();
	if (st != GS_OK) {
		rc = gs_cli_fail(st, gs_input_name(o->in[side].paths[failed]));
	} else {
		for (int s = 0; s < 2; s++) {
			if (!o->io.quiet)
				gs_cli_job_warnings(j[s], (const char *const *)o->in[s].paths,
						    o->in[s].n);
			format[s] = side_format(fmts[s], o->in[s].n);
		}
	}
	free(fmts[0]);
	free(fmts[1]);
	return rc;
}

/* BASE's and NEW's traces: each a trace or a directory's; '-' once. */
static int diff_inputs(struct diff_opts *o, const char ***all, size_t *n)
{
	const char *side[2] = {o->base, o->newp};
	int rc;

	*all = NULL;
	*n = 0;
	/* The warnings of both sides once both are read. */
	for (int s = 0; s < 2; s++) {
		rc = gs_cli_inputs(&diff_usage, &side[s], 1, NULL, true, &o->in[s]);
		if (rc != GS_EXIT_OK)
			return rc;
	}
	*all = calloc(o->in[0].n + o->in[1].n, sizeof(**all));
	if (!*all)
		return gs_cli_fail(GS_ERR_NOMEM, NULL);
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < o->in[s].n; i++)
			(*all)[(*n)++] = o->in[s].paths[i];
	rc = gs_cli_stdin_once(&diff_usage, *all, *n);
	for (int s = 0; rc == GS_EXIT_OK && !o->io.quiet && s < 2; s++)
		for (size_t i = 0; i < o->in[s].n_warnings; i++)
			gs_cli_warning("%s", o->in[s].warnings[i]);
	return rc;
}

int gs_cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {0};
	struct gs_job *j[2] = {NULL, NULL};
	const char *format[2] = {"", ""};
	struct gs_diff *d = NULL;
	const char **inputs = NULL;
	size_t n_inputs = 0;
	struct gs_outfile out;
	struct gs_gate *gate = NULL;
	bool help = false;
	gs_status st;
	int rc;

	gs_input_list_init(&o.in[0]);
	gs_input_list_init(&o.in[1]);
	rc = diff_parse(argc, argv, &o, &help);
	/* The thresholds before any input is read: a bad one is known at once. */
	if (rc == GS_EXIT_OK && !help)
		rc = gs_cli_gate_parse(o.fail_if, GS_GATE_DIFF, &gate);
	free(o.fail_if);
	if (rc != GS_EXIT_OK || help) {
		free(o.pairs);
		return help ? gs_cli_help(diff_help) : rc;
	}
	gs_progress_setup(o.io.quiet);
	rc = diff_inputs(&o, &inputs, &n_inputs);
	/* Before loading: a refused OUT is known at once. */
	if (rc == GS_EXIT_OK)
		rc = gs_cli_output_open(&out, o.output, o.force, inputs, n_inputs);
	if (rc != GS_EXIT_OK) {
		free(inputs);
		gs_input_list_fini(&o.in[0]);
		gs_input_list_fini(&o.in[1]);
		free(o.pairs);
		gs_gate_destroy(gate);
		return rc;
	}
	rc = diff_load(&o, j, format);
	if (rc == GS_EXIT_OK) {
		struct gs_diff_options dop = {
			.base_name = gs_input_name(o.base),
			.new_name = gs_input_name(o.newp),
			.base_format = format[0],
			.new_format = format[1],
			.top = o.top,
			.max_edges = gs_cli_max_edges(),
			.pairs = o.pairs,
			.n_pairs = o.n_pairs,
		};

		gs_error_clear();
		st = gs_diff_build_job(j[0], j[1], &dop, &d);
		/* GPUs whose ids differ compare nothing: an error, not an empty diff. */
		if (st == GS_OK)
			st = gs_diff_check_compared(d);
		if (st == GS_OK && !o.io.quiet)
			diff_warnings(d);
		if (st == GS_OK && gate)
			st = gs_diff_gate(d, gate);
		rc = st == GS_OK ? diff_write(&o, d, &out) : gs_cli_fail(st, NULL);
		/* The diff is out: then the verdict (exit status 3 when crossed). */
		if (rc == GS_EXIT_OK)
			rc = gs_cli_gate_verdict(gs_diff_verdict(d));
	}
	gs_outfile_discard(&out); /* after a failure: the temporary file only */
	gs_gate_destroy(gate);
	gs_diff_destroy(d);
	gs_job_destroy(j[0]);
	gs_job_destroy(j[1]);
	free(inputs);
	gs_input_list_fini(&o.in[0]);
	gs_input_list_fini(&o.in[1]);
	free(o.pairs);
	return rc;
}
