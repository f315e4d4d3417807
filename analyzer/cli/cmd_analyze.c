/* SPDX-License-Identifier: MIT */
/*
 * gpuscope analyze: load every TRACE as the ranks of one job (each
 * process on its own: gs_job_load), run the analyses of each rank and,
 * with two or more, of the job (gs_report_build_job), and print the report
 * as text, JSON or HTML.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/gate.h>
#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>
#include <gpuscope/job.h>
#include <gpuscope/operators.h>
#include <gpuscope/report.h>
#include <gpuscope/trace.h>

#include "cli.h"

#define ANALYZE_SYNOPSIS                                                                           \
	"gpuscope analyze [--format text|json|html] [-o OUT] [--force] [--rank R]\n"               \
	"                        [--device [R:]N] [--window T0:T1] [--step N|A:B|all|none]\n"      \
	"                        [--step-marker REGEX] [--top N] [--ranks N|all]\n"                \
	"                        [--rows N|all] [--op-level operator|module] [--salvage]\n"        \
	"                        [--graph-node-ns N] [--quiet]\n"                                  \
	"                        [--align collectives|none] [--color=auto|always|never]\n"         \
	"                        [--fail-if THRESHOLDS] [--inputs FILE] TRACE|DIR..."

static const struct gs_cli_usage analyze_usage = {
	.name = "analyze",
	.synopsis = ANALYZE_SYNOPSIS,
};

static const char analyze_help[] =
	"usage: " ANALYZE_SYNOPSIS "\n"
	"\n"
	"Where each GPU's time went and how fast the same work could have run: per\n"
	"device, the kernel / copy / sync / idle breakdown (exposed copy and sync, idle\n"
	"time split into host-bound, launch latency and unattributed), the waits between\n"
	"streams and on the host, the dependency-bound and ideal schedules with the\n"
	"critical path, copies that missed an overlap and why, the pipelined-batches\n"
	"what-if and CUDA Graph candidates. Text output puts the top findings first,\n"
	"each with what to do about it.\n"
	"\n"
	"Every process is a rank with GPUs of its own: a GPU is (rank, device), and\n"
	"nothing of one process (streams, threads, correlation or event ids) is joined\n"
	"with another's. Several TRACEs (one per rank), or one Nsight export of several\n"
	"processes, are a job: the report then starts with the job analysis (per-rank\n"
	"table with min / median / max, collectives matched across ranks with their\n"
	"skew, waits and bandwidth, stragglers, communication overlap), and each GPU's\n"
	"section is titled by rank, host, pid and device. The rank is the one the trace\n"
	"declares (Kineto distributedInfo, the .gscope process record), else the order\n"
	"of the inputs. Collectives are matched by the process group and sequence number\n"
	"the traces give, else by their ends in order (never by stream id, which is each\n"
	"process's own); point-to-point kernels pair with the peer kernel that ends with\n"
	"them. Each trace's times go to UTC by what it says of its clock (Kineto\n"
	"baseTimeNanoseconds, Nsight's session start, the collector's); inputs whose\n"
	"spans do not overlap in wall time are not one run and are never compared (a\n"
	"warning). Ranks on different hosts are aligned on the ends of their collectives,\n"
	"with the residual error stated: a skew within it is no one's fault.\n"
	"\n"
	"options:\n"
	"  --format text|json|html\n"
	"                      output format (default: text); json is one object, schema\n"
	"                      \"gpuscope.report/1\", with every row of every list; html is\n"
	"                      one self-contained page: timelines of the actual run and\n"
	"                      of the ideal schedule (zoom and pan), and the tables\n"
	"  -o, --output OUT    write the report to OUT instead of stdout ('-'; default:\n"
	"                      stdout). OUT is written whole or not at all, never one of\n"
	"                      the TRACEs or a symbolic link\n"
	"  --force             replace OUT if it exists, a regular file only (default:\n"
	"                      refuse)\n"
	"  --rank R            only rank R of a job (default: every rank)\n"
	"  --device [R:]N      only device N (of rank R; N alone when one rank has it)\n"
	"                      (default: every device with GPU ops)\n"
	"  --window T0:T1      analyze [T0, T1) only (default: per device, first op start\n"
	"                      to last op end). Times in ns on the trace's clock, or with a\n"
	"                      unit: ns, us, ms, s (1.5ms). With a '+' on both, offsets from\n"
	"                      the first op start of the trace: --window +1ms:+5ms. A\n"
	"                      window that overlaps no op is an error naming the span\n"
	"  --step N|A:B|all|none\n"
	"                      the training steps to analyze, by the number in their\n"
	"                      ProfilerStep#N ranges (or --step-marker ones, or those of\n"
	"                      a repeated top-level annotation): one, an inclusive range,\n"
	"                      all, or none (the whole trace). The header says which and\n"
	"                      where they came from; the Steps table lists every step.\n"
	"                      Not with --window (default: with two or more whole steps,\n"
	"                      every whole step but the first, the warm-up, without a\n"
	"                      partial last step; with one, that step; without steps, the\n"
	"                      whole trace)\n"
	"  --step-marker REGEX host ranges (NVTX) whose name matches the extended regular\n"
	"                      expression REGEX mark the steps (default: ProfilerStep#N\n"
	"                      ranges; without them, the NVTX or annotation name, numbers\n"
	"                      aside, most often on ranges with no other around or across\n"
	"                      them, never overlapping, that launch GPU work: a repeated\n"
	"                      top-level range; a name also seen nested marks nothing)\n"
	"  --top N             rows in each ranked text and HTML table (default: 10)\n"
	"  --ranks N|all       a job of more GPUs than N: its rank table lists each\n"
	"                      column's min, median and max and at most N outliers\n"
	"                      (stragglers, then the GPUs farthest from the median), and\n"
	"                      the text shows only the outliers' ranks' sections; all:\n"
	"                      every GPU's row and every rank's sections (default: the\n"
	"                      --top given, else 8)\n"
	"  --rows N|all        entries kept in each per-op list of the report (critical\n"
	"                      path, missed overlap, waits), those with the most time at\n"
	"                      stake, beside the exact count and total (default: 1000)\n"
	"  --op-level operator|module\n"
	"                      the operators table: each GPU op goes to a host range\n"
	"                      open at its launch call on the launching thread. operator:\n"
	"                      the innermost cpu_op / NVTX range; module: the innermost\n"
	"                      'nn.Module: ...' python_function range, else the\n"
	"                      outermost user_annotation (not ProfilerStep#N), else the\n"
	"                      outermost NVTX range (default: operator)\n"
	"  --align collectives|none\n"
	"                      a job's hosts: collectives fits one clock offset per host\n"
	"                      from the ends of all-reduces, all-gathers and\n"
	"                      reduce-scatters; none keeps each trace's clock (default:\n"
	"                      collectives wherever ranks of one run are on two hosts)\n"
	"  --graph-node-ns N   the CUDA Graph replay what-if's launch cost per kernel\n"
	"                      node, in ns: each launch gap inside a graph candidate\n"
	"                      shrinks to N (default: 1000)\n"
	"  --fail-if THRESHOLDS\n"
	"                      the gate of a CI job: exit status 3 when a GPU crosses a\n"
	"                      threshold, with one line on stderr per threshold crossed\n"
	"                      and the report written as asked (JSON: its \"gate\"\n"
	"                      member). THRESHOLDS: METRIC OP VALUE, comma-separated\n"
	"                      (repeatable); OP >, >=, < or <=; VALUE a time with ns,\n"
	"                      us, ms or s, a share or ratio as a fraction or with %,\n"
	"                      a count as a number: 'efficiency<0.6,idle_share>30%'.\n"
	"                      Per GPU (a job: every rank's; the verdict names the\n"
	"                      worst): step_time (the median GPU time of the analysed\n"
	"                      steps), window, kernel_time, copy_time, sync_time,\n"
	"                      idle_time, kernel_share, copy_share, sync_share,\n"
	"                      idle_share, efficiency, gap (actual - ideal),\n"
	"                      host_bound, launch_latency, exposed_comm, comm_time,\n"
	"                      wait_time, missed_overlap (exposed), ops. A bad\n"
	"                      threshold, or one no GPU has the metric of, is an\n"
	"                      error (exit 1) (default: none)\n"
	"  --salvage           skip corrupt .gscope chunks with a warning instead of\n"
	"                      failing (default: off)\n"
	"  --inputs FILE       also read the TRACEs listed in FILE, one path a line,\n"
	"                      after the TRACE arguments ('-': stdin). Paths are\n"
	"                      relative to the current directory; blanks around a path,\n"
	"                      empty lines and lines starting with # are skipped; a line\n"
	"                      may name a directory (default: none)\n"
	"  --color[=WHEN]      colour the text: auto (on a terminal, unless NO_COLOR is\n"
	"                      set), always or never (default: auto; --color alone: always)\n"
	"  -q, --quiet         no loading warnings and no progress line on stderr\n"
	"                      (default: the warnings, and on a terminal a progress line\n"
	"                      while loading, analysing or writing takes over a second)\n"
	"  -h, --help          show this help\n"
	"\n"
	"TRACE is {formats}, recognised by its content; '-' is stdin (one TRACE at\n"
	"most), and pipes work too (not for {file-only}). A DIR stands for every trace in it (a job: one file per\n"
	"rank), in name order: regular files only, not recursive; files that are not\n"
	"traces are skipped with one warning, hidden ones (.*) silently; a DIR with no\n"
	"trace is an error. The same trace given twice (by two names, links, a copy,\n"
	"or directly and in a DIR) is refused.\n"
	"\n"
	"Loading warnings of each TRACE go to stderr as well as into the report.\n"
	"\n"
	"example:\n"
	"  gpuscope analyze trace.json.gz\n"
	"  gpuscope analyze --format json -o report.json rank0.json.gz rank1.json.gz\n"
	"  gpuscope analyze --format html -o job.html runs/\n"
	"  gpuscope analyze --inputs ranks.txt\n"
	"  gpuscope analyze --format html -o report.html trace.json.gz\n"
	"  gpuscope analyze --device 0 --window +10ms:+20ms run.gscope\n"
	"  gpuscope analyze --device 3:0 rank*.json.gz\n"
	"  gpuscope analyze --ranks all rank*.json.gz\n"
	"  gpuscope analyze --fail-if 'efficiency<0.6,idle_share>30%' trace.json.gz\n";

/* The trace-input options analyze takes (input_opts.h). */
#define ANALYZE_INOPTS                                                                             \
	(GS_INOPT_RANK | GS_INOPT_DEVICE | GS_INOPT_WINDOW | GS_INOPT_STEP |                       \
	 GS_INOPT_STEP_MARKER | GS_INOPT_ALIGN | GS_INOPT_SALVAGE | GS_INOPT_QUIET |               \
	 GS_INOPT_INPUTS | GS_INOPT_OPERANDS)

struct analyze_opts {
	struct gs_input_opts io; /* --rank, --device, --window, --step, ..., TRACE|DIR */
	bool json;
	bool html;
	const char *output;
	bool force;
	size_t top;
	size_t ranks; /* 0: the default; GS_REPORT_RANKS_ALL */
	size_t rows;  /* 0: the default */
	int op_level; /* enum gs_op_level */
	bool has_graph_node_ns;
	int64_t graph_node_ns;
	enum gs_color_mode color;
	char *fail_if; /* every --fail-if, comma-separated (owned) */
	char **paths;  /* every input, expanded (gs_cli_inputs) */
	size_t n_paths;
};

static int analyze_parse(int argc, char **argv, struct analyze_opts *o, bool *help)
{
	static const struct option own[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, 'F'},
		{"top", required_argument, NULL, 't'},
		{"ranks", required_argument, NULL, 'K'},
		{"rows", required_argument, NULL, 'R'},
		{"op-level", required_argument, NULL, 'L'},
		{"graph-node-ns", required_argument, NULL, 'g'},
		{"color", optional_argument, NULL, 'c'},
		{"colour", optional_argument, NULL, 'c'},
		{"fail-if", required_argument, NULL, 'G'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const struct gs_input_opts_ui ui = {gs_cli_input_usage, &analyze_usage};
	struct option longopts[32];
	unsigned long long v;
	int c, rc;

	if (!gs_input_opts_table(ANALYZE_INOPTS, own, longopts,
				 sizeof(longopts) / sizeof(longopts[0])))
		return gs_cli_fail(GS_ERR_INVALID, "option table too small"); /* a bug */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", longopts, NULL)) != -1) {
		if (gs_input_opts_takes(ANALYZE_INOPTS, c)) {
			rc = gs_input_opts_parse(&o->io, ANALYZE_INOPTS, &ui, c, optarg);
			if (rc != GS_EXIT_OK)
				return rc;
			continue;
		}
		switch (c) {
		case 'f':
			o->json = !strcmp(optarg, "json");
			o->html = !strcmp(optarg, "html");
			if (!o->json && !o->html && strcmp(optarg, "text") != 0)
				return gs_cli_usage_error(
					&analyze_usage, "unknown format '%s' (text, json or html)",
					optarg);
			break;
		case 'o':
			if (!*optarg)
				return gs_cli_usage_error(&analyze_usage, "-o wants a file name");
			o->output = optarg;
			break;
		case 'F':
			o->force = true;
			break;
		case 't':
			if (!gs_cli_parse_count(optarg, 1000000, &v) || v == 0)
				return gs_cli_usage_error(&analyze_usage,
							  "--top wants a count from 1, not '%s'",
							  optarg);
			o->top = (size_t)v;
			break;
		case 'K':
			if (strcmp(optarg, "all") == 0) {
				o->ranks = GS_REPORT_RANKS_ALL;
				break;
			}
			if (!gs_cli_parse_count(optarg, 1000000, &v) || v == 0)
				return gs_cli_usage_error(&analyze_usage,
							  "--ranks wants a count from 1 or 'all', "
							  "not '%s'",
							  optarg);
			o->ranks = (size_t)v;
			break;
		case 'R':
			if (strcmp(optarg, "all") == 0) {
				o->rows = GS_REPORT_ROWS_ALL;
				break;
			}
			if (!gs_cli_parse_count(optarg, 1000000000ULL, &v) || v == 0)
				return gs_cli_usage_error(
					&analyze_usage,
					"--rows wants a count from 1 or 'all', not "
					"'%s'",
					optarg);
			o->rows = (size_t)v;
			break;
		case 'L':
			if (!strcmp(optarg, "operator"))
				o->op_level = GS_OP_LEVEL_OPERATOR;
			else if (!strcmp(optarg, "module"))
				o->op_level = GS_OP_LEVEL_MODULE;
			else
				return gs_cli_usage_error(
					&analyze_usage,
					"--op-level wants operator or module, not '%s'", optarg);
			break;
		case 'g':
			if (!gs_cli_parse_count(optarg, 1000000000ULL, &v))
				return gs_cli_usage_error(&analyze_usage,
							  "--graph-node-ns wants ns from 0 to "
							  "1000000000, not '%s'",
							  optarg);
			o->has_graph_node_ns = true;
			o->graph_node_ns = (int64_t)v;
			break;
		case 'G':
			if (!gs_cli_gate_add(&o->fail_if, optarg))
				return gs_cli_fail(GS_ERR_NOMEM, NULL);
			break;
		case 'c':
			if (!gs_color_parse(optarg, &o->color))
				return gs_cli_usage_error(
					&analyze_usage,
					"--color wants auto, always or never, not "
					"'%s'",
					optarg);
			break;
		case 'h':
			*help = true;
			return GS_EXIT_OK;
		default:
			return gs_cli_bad_option(&analyze_usage, argv, c);
		}
	}
	rc = gs_input_opts_finish(&o->io, ANALYZE_INOPTS, &ui, argc, argv, optind);
	if (rc != GS_EXIT_OK)
		return rc;
	return GS_EXIT_OK;
}

/* Every input as the ranks of one job: each file is read on a CPU of its
 * own, each process into a trace of its own. */
static int analyze_load(const struct analyze_opts *o, struct gs_job **out, const char **format)
{
	/* Host ranges are kept (they are a third of the memory of a PyTorch
	 * trace, bench/NOTES.md): host-bound idle is attributed to them. */
	struct gs_load_options lo = {.reader_flags = o->io.salvage ? GS_READER_SALVAGE : 0,
				     .progress = gs_progress_records};
	enum gs_input_format *fmts;
	size_t failed = 0;
	gs_status st;

	*out = NULL;
	*format = "";
	if (gs_cli_limits(&lo.limits) != GS_EXIT_OK)
		return GS_EXIT_FAIL;
	gs_error_clear();
	fmts = calloc(o->n_paths, sizeof(*fmts));
	if (!fmts)
		return gs_cli_fail(GS_ERR_NOMEM, NULL);
	if (o->n_paths == 1)
		gs_progress_begin("loading %s", gs_input_name(o->paths[0]));
	else
		gs_progress_begin("loading %zu inputs", o->n_paths);
	st = gs_job_load((const char *const *)o->paths, o->n_paths, &lo, out, fmts, &failed);
	gs_progress_end();
	if (st != GS_OK) {
		free(fmts);
		return gs_cli_fail(st, gs_input_name(o->paths[failed]));
	}
	if (!o->io.quiet)
		gs_cli_job_warnings(*out, (const char *const *)o->paths, o->n_paths);
	for (size_t i = 1; i < o->n_paths; i++)
		if (fmts[i] != fmts[0])
			*format = "mixed";
	if (!**format)
		*format = gs_input_format_name(fmts[0]);
	free(fmts);
	return GS_EXIT_OK;
}

static bool analyze_want_color(const struct analyze_opts *o, FILE *f)
{
	return !o->json && !o->html && gs_color_want(o->color, f);
}

static int analyze_write(const struct analyze_opts *o, const struct gs_report *r,
			 struct gs_outfile *out)
{
	FILE *f = out->f;
	struct gs_report_style style = {
		.top = o->top,
		.color = analyze_want_color(o, f == stdout ? stdout : NULL),
		.ranks = o->ranks,
	};
	gs_status st;

	gs_error_clear();
	/* Not while the report itself goes to the terminal. */
	if (f != stdout)
		gs_progress_begin("writing %s", o->output);
	st = o->json ? gs_report_write_json(f, r, &style) :
	     o->html ? gs_report_write_html(f, r, &style) :
		       gs_report_write_text(f, r, &style);
	if (f != stdout)
		gs_progress_end();
	return gs_cli_output_close(out, st);
}

int gs_cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = {.color = GS_COLOR_AUTO};
	struct gs_report_options ro = {0};
	struct gs_report *r = NULL;
	struct gs_job *job = NULL;
	struct gs_gate *gate = NULL;
	struct gs_input_list in;
	struct gs_outfile out;
	const char **names = NULL;
	const char *format = "";
	char window_text[256];
	bool help = false;
	gs_status st;
	int rc;

	rc = analyze_parse(argc, argv, &o, &help);
	/* The thresholds before any input is read: a bad one is known at once. */
	if (rc == GS_EXIT_OK && !help)
		rc = gs_cli_gate_parse(o.fail_if, GS_GATE_REPORT, &gate);
	free(o.fail_if);
	if (rc != GS_EXIT_OK || help)
		return help ? gs_cli_help(analyze_help) : rc;

	gs_progress_setup(o.io.quiet);
	rc = gs_cli_inputs(&analyze_usage, (const char *const *)o.io.operands, o.io.n_operands,
			   o.io.inputs_file, o.io.quiet, &in);
	if (rc != GS_EXIT_OK) {
		gs_gate_destroy(gate);
		return rc;
	}
	o.paths = in.paths;
	o.n_paths = in.n;
	/* Before the (possibly long) load: a refused OUT is known at once. */
	rc = gs_cli_output_open(&out, o.output, o.force, (const char *const *)o.paths, o.n_paths);
	if (rc != GS_EXIT_OK) {
		gs_input_list_fini(&in);
		gs_gate_destroy(gate);
		return rc;
	}
	rc = analyze_load(&o, &job, &format);
	if (rc != GS_EXIT_OK || !job) {
		if (rc == GS_EXIT_OK) /* cannot happen: a loaded job */
			rc = GS_EXIT_FAIL;
		goto out;
	}

	ro.has_device = o.io.has_device;
	ro.device = o.io.device;
	ro.has_rank = o.io.has_rank;
	ro.rank = o.io.rank;
	ro.window = o.io.window;
	ro.steps = o.io.steps;
	ro.window_relative = o.io.window_relative;
	snprintf(window_text, sizeof(window_text), "--window %s",
		 o.io.window_arg ? o.io.window_arg : "");
	ro.window_text = window_text;
	ro.align = o.io.align;
	names = calloc(o.n_paths, sizeof(*names));
	if (!names) {
		rc = gs_cli_fail(GS_ERR_NOMEM, NULL);
		goto out;
	}
	for (size_t i = 0; i < o.n_paths; i++)
		names[i] = gs_input_name(o.paths[i]);
	ro.inputs = names;
	ro.n_inputs = o.n_paths;
	ro.format = format;
	ro.rows = o.rows;
	ro.op_level = o.op_level;
	ro.max_edges = gs_cli_max_edges();
	ro.max_annotation_pieces = gs_cli_max_annotation_pieces();
	ro.has_graph_node_ns = o.has_graph_node_ns;
	ro.graph_node_ns = o.graph_node_ns;
	gs_error_clear();
	{
		size_t n_ops = 0, n;

		for (size_t i = 0; i < job->n_ranks; i++) {
			gs_trace_ops(job->ranks[i].trace, &n);
			n_ops += n;
		}
		gs_progress_begin("analysing %zu ops", n_ops);
	}
	st = gs_report_build_job(job, &ro, &r);
	gs_progress_end();
	if (st != GS_OK) {
		rc = gs_cli_fail(st, o.n_paths == 1 ? names[0] : NULL);
		goto out;
	}
	if (gate) {
		gs_error_clear();
		st = gs_report_gate(r, gate);
		if (st != GS_OK) {
			rc = gs_cli_fail(st, NULL);
			goto out;
		}
	}
	rc = analyze_write(&o, r, &out);
	/* The report is out: then the verdict (exit status 3 when crossed). */
	if (rc == GS_EXIT_OK)
		rc = gs_cli_gate_verdict(gs_report_verdict(r));
out:
	gs_outfile_discard(&out); /* after a failure: the temporary file only */
	gs_gate_destroy(gate);
	gs_report_destroy(r);
	gs_job_destroy(job);
	free(names);
	gs_input_list_fini(&in);
	return rc;
}
