/* SPDX-License-Identifier: MIT */
/*
 * gpuscope export: traces as Chrome trace JSON (Perfetto, chrome://tracing,
 * tools that read PyTorch-profiler traces), as Perfetto's own protobuf
 * format or as CSV. Every TRACE is loaded
 * as the ranks of one job (gs_job_load: each process on its own, as
 * `analyze` does); the analyses' results (launches, dependency edges,
 * breakdown, ideal schedule) come from gs_export_data_build, rank by rank;
 * the writers are gs_export_chrome_job / gs_export_perfetto_job /
 * gs_export_csv_*_job, which write one rank exactly as a trace on its own.
 *
 * Files follow the output policy of every -o (cli.h, output.c): written
 * whole or not at all, an existing file replaced only with --force.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpuscope/export.h>
#include <gpuscope/export_data.h>
#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>
#include <gpuscope/window.h>

#include "cli.h"

#define EXPORT_SYNOPSIS                                                                            \
	"gpuscope export [--format chrome|perfetto|csv] [-o OUT] [--force] [--with-ideal]\n"       \
	"                       [--rank R] [--device [R:]N] [--max-flows N|all] [--salvage]\n"     \
	"                       [--quiet] [--inputs FILE] TRACE|DIR..."

static const struct gs_cli_usage export_usage = {
	.name = "export",
	.synopsis = EXPORT_SYNOPSIS,
};

static const char export_help[] =
	"usage: " EXPORT_SYNOPSIS "\n"
	"\n"
	"Write traces for other tools.\n"
	"\n"
	"Every TRACE is loaded as a rank of one job, as analyze loads them: a\n"
	"multi-process Nsight export is a rank per process, and nothing of one process\n"
	"is ever joined with another's. One rank is written exactly as a trace on its\n"
	"own; with several, each is kept apart (below). --rank and --device write one\n"
	"rank's, or one GPU's, trace alone.\n"
	"\n"
	"chrome: Chrome trace JSON for Perfetto (ui.perfetto.dev) and chrome://tracing,\n"
	"  in the PyTorch profiler's (Kineto's) categories and args, so tools that read\n"
	"  those traces read it too (and gpuscope reads it back). A process per host\n"
	"  process and per GPU, a track per host thread and per stream (ops that overlap\n"
	"  on a stream, and host ranges that do not nest, get an overflow track below),\n"
	"  arrows from each launch to its op and along every dependency edge, and a\n"
	"  'breakdown' counter per GPU (kernel / copy / sync / idle). Several ranks: a\n"
	"  process per rank and GPU ('rank 3 · node7 · pid 4242 · GPU 0 NVIDIA H100')\n"
	"  and per host process of a rank ('rank 3 · node7 · pid 4242 (host)'), in rank\n"
	"  order, GPUs before the host, with pid = rank * 1000 + lane (lane 0.. the\n"
	"  rank's GPUs, then its host processes), so ranks that share pids and device\n"
	"  numbers stay apart; the real rank, pid, host and device in each process's\n"
	"  args and labels. Arrows and counters stay within a rank. Each rank's\n"
	"  correlation and event ids are offset into a range of their own (rank * 10^k),\n"
	"  so that no id of one rank is another's. Times: ranks whose wall clock is\n"
	"  known are shifted onto the first such rank's clock, so that the timeline\n"
	"  shows them as the wall clocks say they ran; ranks whose clock is not known\n"
	"  keep their own times. distributedInfo is the first rank's, as PyTorch writes\n"
	"  it; each process's args hold its rank's number, world size, backend, clock\n"
	"  and shift, and gpuscope reads the file back as the same ranks, each with its\n"
	"  own times, ids and clock.\n"
	"perfetto: Perfetto's own protobuf trace format (a .pftrace), the same\n"
	"  processes, tracks, slices with their args, arrows and counters as chrome\n"
	"  (the breakdown as one counter track per category), written as a stream of\n"
	"  packets with interned names, deflated: 5 to 30 times smaller than the JSON\n"
	"  and cheaper to write, and what Perfetto loads best. Use it for large\n"
	"  traces: the UI keeps a trace in browser memory (about 2 GB), where JSON takes\n"
	"  several times the room of the protobuf. Open it in ui.perfetto.dev, or\n"
	"  query it with trace_processor. Not read back by gpuscope.\n"
	"csv: two files, PREFIX.ops.csv (one row per op, every field) and\n"
	"  PREFIX.segments.csv (one row per breakdown segment), with header rows and\n"
	"  RFC 4180 quoting. Several ranks: a first 'rank' column in both files.\n"
	"\n"
	"options:\n"
	"  --format chrome|perfetto|csv\n"
	"                       what to write (default: chrome)\n"
	"  -o, --output OUT     chrome, perfetto: the file to write (run.json,\n"
	"                       run.pftrace), gzip-compressed when OUT ends in .gz;\n"
	"                       '-' or no -o: stdout (perfetto: not a terminal). csv\n"
	"                       (required): a PREFIX\n"
	"                       (a trailing .csv is dropped), or a directory to write\n"
	"                       ops.csv and segments.csv into. Each file is written whole\n"
	"                       or not at all, never a TRACE or a symbolic link\n"
	"  --force              replace files that exist, regular files only (default:\n"
	"                       refuse)\n"
	"  --with-ideal         also the ideal schedule: chrome and perfetto, a 'GPU N\n"
	"                       ideal schedule' process beside each GPU ('rank 3 · GPU 0\n"
	"                       ideal' of a job);\n"
	"                       csv, ideal_start_ns, delay_ns and bound_by columns\n"
	"                       (default: off)\n"
	"  --rank R             only rank R of a job, written as a trace on its own\n"
	"                       (default: every rank)\n"
	"  --device [R:]N       only device N (of rank R; N alone when one rank has it):\n"
	"                       its ops, syncs, breakdown and ideal schedule, with its\n"
	"                       rank's host processes (default: every device)\n"
	"  --max-flows N|all    chrome, perfetto: at most N dependency arrows (flows),\n"
	"                       the first in rank order, then graph order; how many\n"
	"                       were left out is in a warning (and chrome: the file's\n"
	"                       gpuscope_flows) (default: 2097152, about 0.5 GB of\n"
	"                       JSON; all: every one)\n"
	"  --salvage            skip corrupt .gscope chunks with a warning instead of\n"
	"                       failing (default: off)\n"
	"  --inputs FILE        also read the TRACEs listed in FILE, one path a line,\n"
	"                       after the TRACE arguments ('-': stdin); relative to the\n"
	"                       current directory; blanks around a path, empty lines\n"
	"                       and lines starting with # are skipped (default: none)\n"
	"  -q, --quiet          no loading warnings and no progress line on stderr\n"
	"                       (default: the warnings, and on a terminal a progress\n"
	"                       line while loading takes over a second)\n"
	"  -h, --help           show this help\n"
	"\n"
	"TRACE is {formats}, recognised by its content; '-' is stdin (one TRACE at\n"
	"most), and pipes work too (not for {file-only}). A DIR stands for every trace in it, in name order (regular\n"
	"files, not recursive; others skipped with one warning, hidden ones silently).\n"
	"The same trace given twice is refused.\n"
	"\n"
	"example:\n"
	"  gpuscope export -o run.json.gz run.gscope\n"
	"  gpuscope export --format perfetto --with-ideal -o run.pftrace trace.json.gz\n"
	"  gpuscope export --with-ideal -o run.json trace.json.gz\n"
	"  gpuscope export --format csv -o out/run trace.json.gz\n"
	"  gpuscope export -o job.json.gz rank*.json.gz\n"
	"  gpuscope export --format csv -o out/job runs/\n"
	"  gpuscope export --device 3:0 -o rank3_gpu0.json rank*.json.gz\n";

enum export_format {
	FMT_CHROME,
	FMT_PERFETTO,
	FMT_CSV
};

/* The trace-input options export takes (input_opts.h). */
#define EXPORT_INOPTS                                                                              \
	(GS_INOPT_RANK | GS_INOPT_DEVICE | GS_INOPT_SALVAGE | GS_INOPT_QUIET | GS_INOPT_INPUTS |   \
	 GS_INOPT_OPERANDS)

struct export_opts {
	struct gs_input_opts io; /* --rank, --device, --salvage, -q, --inputs, TRACE|DIR */
	enum export_format format;
	bool with_ideal;
	bool force;
	bool has_max_flows; /* --max-flows N; all: UINT64_MAX */
	uint64_t max_flows;
	const char *out;
	const char *const *paths; /* the TRACEs, expanded (gs_cli_inputs) */
	size_t n_paths;
};

/* ---- the command ---------------------------------------------------------- */

static int export_parse(int argc, char **argv, struct export_opts *o, bool *help)
{
	static const struct option own[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"with-ideal", no_argument, NULL, 'i'},
		{"force", no_argument, NULL, 'F'},
		{"max-flows", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const struct gs_input_opts_ui ui = {gs_cli_input_usage, &export_usage};
	struct option longopts[24];
	unsigned long long v;
	int c, rc;

	if (!gs_input_opts_table(EXPORT_INOPTS, own, longopts,
				 sizeof(longopts) / sizeof(longopts[0])))
		return gs_cli_fail(GS_ERR_INVALID, "option table too small"); /* a bug */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", longopts, NULL)) != -1) {
		if (gs_input_opts_takes(EXPORT_INOPTS, c)) {
			rc = gs_input_opts_parse(&o->io, EXPORT_INOPTS, &ui, c, optarg);
			if (rc != GS_EXIT_OK)
				return rc;
			continue;
		}
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "chrome"))
				o->format = FMT_CHROME;
			else if (!strcmp(optarg, "perfetto"))
				o->format = FMT_PERFETTO;
			else if (!strcmp(optarg, "csv"))
				o->format = FMT_CSV;
			else
				return gs_cli_usage_error(
					&export_usage,
					"unknown format '%s' (chrome, perfetto or csv)", optarg);
			break;
		case 'o':
			if (!*optarg)
				return gs_cli_usage_error(&export_usage, "-o wants a file name");
			o->out = optarg;
			break;
		case 'F':
			o->force = true;
			break;
		case 'i':
			o->with_ideal = true;
			break;
		case 'm':
			o->has_max_flows = true;
			if (!strcmp(optarg, "all"))
				o->max_flows = UINT64_MAX;
			else if (gs_cli_parse_count(optarg, UINT64_MAX - 1, &v))
				o->max_flows = v;
			else
				return gs_cli_usage_error(
					&export_usage,
					"--max-flows wants a count or 'all', not '%s'", optarg);
			break;
		case 'h':
			*help = true;
			return GS_EXIT_OK;
		default:
			return gs_cli_bad_option(&export_usage, argv, c);
		}
	}
	rc = gs_input_opts_finish(&o->io, EXPORT_INOPTS, &ui, argc, argv, optind);
	if (rc != GS_EXIT_OK)
		return rc;
	if (o->format == FMT_CSV && (!o->out || !strcmp(o->out, "-")))
		return gs_cli_usage_error(&export_usage,
					  "csv writes two files: give -o PREFIX (or a directory)");
	if (o->format == FMT_PERFETTO && (!o->out || !strcmp(o->out, "-")) && isatty(STDOUT_FILENO))
		return gs_cli_usage_error(&export_usage,
					  "perfetto writes a binary file: give -o OUT.pftrace (or "
					  "redirect stdout)");
	return GS_EXIT_OK;
}

/* The files to write, each checked and opened before the (long) load. */
struct export_files {
	struct gs_outfile f[2];
	char names[2][GS_OUTFILE_PATH_MAX]; /* csv: PREFIX.ops.csv, PREFIX.segments.csv */
	size_t n;
};

/* PREFIX.ops.csv and PREFIX.segments.csv, or DIR/ops.csv and DIR/segments.csv. */
static int csv_names(const char *out, char *ops, char *segs, size_t size)
{
	struct stat sb;
	size_t n = strlen(out);
	int a, b;

	if (stat(out, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		const char *sep = n && out[n - 1] == '/' ? "" : "/";

		a = snprintf(ops, size, "%s%sops.csv", out, sep);
		b = snprintf(segs, size, "%s%ssegments.csv", out, sep);
	} else {
		int keep = n > 4 && !strcmp(out + n - 4, ".csv") ? (int)(n - 4) : (int)n;

		a = snprintf(ops, size, "%.*s.ops.csv", keep, out);
		b = snprintf(segs, size, "%.*s.segments.csv", keep, out);
	}
	if (a < 0 || b < 0 || (size_t)a >= size || (size_t)b >= size) {
		gs_cli_error("%s: path too long", out);
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

static int export_open(const struct export_opts *o, struct export_files *x)
{
	const char *const *inputs = o->paths;
	size_t n_in = o->n_paths;
	int rc;

	if (o->format != FMT_CSV) {
		x->n = 1;
		return gs_cli_output_open(&x->f[0], o->out, o->force, inputs, n_in);
	}
	rc = csv_names(o->out, x->names[0], x->names[1], sizeof(x->names[0]));
	if (rc != GS_EXIT_OK)
		return rc;
	/* Both checked before either is created: a refusal leaves nothing behind. */
	for (size_t i = 0; i < 2; i++)
		if (gs_cli_output_check(x->names[i], o->force, inputs, n_in) != GS_EXIT_OK)
			return GS_EXIT_FAIL;
	for (x->n = 0; x->n < 2; x->n++) {
		rc = gs_cli_output_open(&x->f[x->n], x->names[x->n], o->force, inputs, n_in);
		if (rc != GS_EXIT_OK)
			return rc;
	}
	return GS_EXIT_OK;
}

static void export_discard(struct export_files *x)
{
	for (size_t i = 0; i < x->n; i++)
		gs_outfile_discard(&x->f[i]);
}

/* The writers' options: --with-ideal, --device, --max-flows. */
static struct gs_export_options export_options(const struct export_opts *o)
{
	return (struct gs_export_options){.with_ideal = o->with_ideal,
					  .has_device = o->io.has_device,
					  .device = o->io.device,
					  .has_max_flows = o->has_max_flows,
					  .max_flows = o->max_flows};
}

/* chrome or perfetto: one file. */
static int export_one(const struct export_opts *o, const struct gs_export_rank *ranks, size_t n,
		      struct gs_outfile *out)
{
	struct gs_export_options eo = export_options(o);
	struct gs_export_stats stats = {0};
	gs_status st;
	int rc;

	gs_error_clear();
	eo.gzip = out->path && gs_export_path_is_gzip(out->path);
	eo.stats = &stats;
	if (o->format == FMT_PERFETTO)
		st = gs_export_perfetto_job(out->f, ranks, n, &eo);
	else
		st = gs_export_chrome_job(out->f, ranks, n, &eo);
	rc = gs_cli_output_close(out, st);
	if (rc == GS_EXIT_OK && stats.time_offset_ns && !o->io.quiet)
		gs_cli_warning("%s: the trace has times before 0; every time is written %lld ns "
			       "later (Perfetto's timestamps are unsigned)",
			       out->path && strcmp(out->path, "-") != 0 ? out->path : "stdout",
			       (long long)stats.time_offset_ns);
	if (rc == GS_EXIT_OK && stats.flows_left_out && !o->io.quiet)
		gs_cli_warning("%s: %llu of %llu dependency flows written, %llu left out "
			       "(--max-flows N; --max-flows all for every one)",
			       out->path && strcmp(out->path, "-") != 0 ? out->path : "stdout",
			       (unsigned long long)(stats.dependency_flows - stats.flows_left_out),
			       (unsigned long long)stats.dependency_flows,
			       (unsigned long long)stats.flows_left_out);
	return rc;
}

static int export_csv(const struct export_opts *o, const struct gs_export_rank *ranks, size_t n,
		      struct export_files *f)
{
	struct gs_export_options eo = export_options(o);
	gs_status st;
	int rc;

	gs_error_clear();
	st = gs_export_csv_ops_job(f->f[0].f, ranks, n, &eo);
	if (st != GS_OK)
		return gs_cli_fail(st, f->names[0]);
	st = gs_export_csv_segments_job(f->f[1].f, ranks, n, &eo);
	if (st != GS_OK)
		return gs_cli_fail(st, f->names[1]);
	/* Both files or neither: both closed and checked before either is moved. */
	rc = gs_cli_output_finish(&f->f[0]);
	if (rc == GS_EXIT_OK)
		rc = gs_cli_output_finish(&f->f[1]);
	if (rc == GS_EXIT_OK)
		rc = gs_cli_output_publish(&f->f[0]);
	if (rc == GS_EXIT_OK)
		rc = gs_cli_output_publish(&f->f[1]);
	return rc;
}

/* Every TRACE as the ranks of one job; the loading warnings of each input
 * and those of the job (rank numbering, merged inputs, clocks) on stderr. */
static int export_load(const struct export_opts *o, struct gs_job **out)
{
	struct gs_load_options lo = {.reader_flags = o->io.salvage ? GS_READER_SALVAGE : 0,
				     .progress = gs_progress_records};
	size_t failed = 0;
	gs_status st;

	*out = NULL;
	if (gs_cli_limits(&lo.limits) != GS_EXIT_OK)
		return GS_EXIT_FAIL;
	gs_error_clear();
	if (o->n_paths == 1)
		gs_progress_begin("loading %s", gs_input_name(o->paths[0]));
	else
		gs_progress_begin("loading %zu inputs", o->n_paths);
	st = gs_job_load(o->paths, o->n_paths, &lo, out, NULL, &failed);
	gs_progress_end();
	if (st != GS_OK)
		return gs_cli_fail(st,
				   failed < o->n_paths ? gs_input_name(o->paths[failed]) : NULL);
	if (!o->io.quiet)
		gs_cli_job_warnings(*out, o->paths, o->n_paths);
	return GS_EXIT_OK;
}

/* "0, 1, 8": the numbers, cut short to fit `size`. */
static void list_u32(char *buf, size_t size, const uint32_t *v, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && len + 16 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%u", i ? ", " : "", v[i]);
}

/* Whether rank `k` has GPU ops on `device`; *devs (freed by the caller)
 * its devices with ops. */
static int rank_devices(const struct gs_job_rank *k, uint32_t device, bool *has, uint32_t **devs,
			size_t *n)
{
	gs_status st;

	*has = false;
	gs_error_clear();
	st = gs_trace_op_devices(k->trace, devs, n);
	if (st != GS_OK)
		return gs_cli_fail(st, NULL);
	for (size_t i = 0; i < *n; i++)
		*has |= (*devs)[i] == device;
	return GS_EXIT_OK;
}

/*
 * The ranks to write, job->ranks[*first .. *first + *n): all, or the one
 * --rank / --device pick (as analyze picks them: --device N alone is the
 * one rank with GPU ops on device N). A rank or device the job does not
 * have is one error line.
 */
static int export_pick(const struct export_opts *o, const struct gs_job *job, size_t *first,
		       size_t *n)
{
	uint32_t *nums = calloc(job->n_ranks ? job->n_ranks : 1, sizeof(*nums)), *devs = NULL;
	size_t hits = 0, n_devs = 0, r;
	char list[160];
	bool has = false;
	int rc = GS_EXIT_OK;

	*first = 0;
	*n = job->n_ranks;
	if (!nums)
		return gs_cli_fail(GS_ERR_NOMEM, NULL);
	if (o->io.has_rank) {
		for (r = 0; r < job->n_ranks && job->ranks[r].rank != o->io.rank; r++)
			nums[r] = job->ranks[r].rank;
		if (r == job->n_ranks) {
			list_u32(list, sizeof(list), nums, job->n_ranks);
			gs_cli_error("rank %u is not in the job (ranks: %s)", o->io.rank, list);
			rc = GS_EXIT_FAIL;
		} else {
			*first = r;
			*n = 1;
		}
	} else if (o->io.has_device) {
		for (r = 0; r < job->n_ranks && rc == GS_EXIT_OK; r++) {
			free(devs);
			devs = NULL;
			rc = rank_devices(&job->ranks[r], o->io.device, &has, &devs, &n_devs);
			if (rc == GS_EXIT_OK && has) {
				nums[hits++] = job->ranks[r].rank;
				*first = r;
			}
		}
		list_u32(list, sizeof(list), nums, hits);
		if (rc != GS_EXIT_OK) {
			/* the error is printed */
		} else if (hits == 1) {
			*n = 1;
		} else if (hits > 1) {
			gs_cli_error("device %u is on %zu ranks (%s): say which with --device R:%u "
				     "or --rank R",
				     o->io.device, hits, list, o->io.device);
			rc = GS_EXIT_FAIL;
		} else if (job->n_ranks == 1) {
			list_u32(list, sizeof(list), devs, n_devs);
			gs_cli_error("device %u has no GPU ops (devices with ops: %s)",
				     o->io.device, n_devs ? list : "none");
			rc = GS_EXIT_FAIL;
		} else {
			gs_cli_error("device %u has no GPU ops on any rank of the job",
				     o->io.device);
			rc = GS_EXIT_FAIL;
		}
	}
	if (rc == GS_EXIT_OK && o->io.has_rank && o->io.has_device) {
		free(devs);
		devs = NULL;
		rc = rank_devices(&job->ranks[*first], o->io.device, &has, &devs, &n_devs);
		if (rc == GS_EXIT_OK && !has) {
			list_u32(list, sizeof(list), devs, n_devs);
			gs_cli_error(
				"rank %u has no GPU ops on device %u (its devices with ops: %s)",
				o->io.rank, o->io.device, n_devs ? list : "none");
			rc = GS_EXIT_FAIL;
		}
	}
	free(devs);
	free(nums);
	return rc;
}

/* What the analyses add, rank by rank. On failure, the error names the
 * rank's input. */
static int export_build(const struct export_opts *o, const struct gs_job *job, size_t first,
			size_t n, struct gs_export_data **data, struct gs_export_rank *ranks)
{
	unsigned want = GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_BREAKDOWN;

	if (o->format != FMT_CSV)
		want |= GS_EXPORT_WANT_EDGES;
	if (o->with_ideal)
		want |= GS_EXPORT_WANT_IDEAL;
	for (size_t r = 0; r < n; r++) {
		const struct gs_job_rank *k = &job->ranks[first + r];
		gs_status st;

		gs_error_clear();
		st = gs_export_data_build_max(k->trace, want, gs_cli_max_edges(), &data[r]);
		if (st != GS_OK)
			return gs_cli_fail(
				st, gs_input_name(o->paths[k->input < o->n_paths ? k->input : 0]));
		ranks[r] = (struct gs_export_rank){
			.trace = k->trace,
			.extras = gs_export_data_extras(data[r]),
			.rank = k->rank,
			.pid = k->pid,
			.host = k->host_name,
			.capture = k->clock_domain + 1,
		};
	}
	return GS_EXIT_OK;
}

int gs_cmd_export(int argc, char **argv)
{
	struct export_opts o = {0};
	struct gs_export_data **data = NULL;
	struct gs_export_rank *ranks = NULL;
	struct gs_job *job = NULL;
	struct export_files files = {0};
	struct gs_input_list in;
	bool help = false;
	size_t first = 0, n = 0;
	int rc;

	rc = export_parse(argc, argv, &o, &help);
	if (rc != GS_EXIT_OK || help)
		return help ? gs_cli_help(export_help) : rc;
	gs_progress_setup(o.io.quiet);
	rc = gs_cli_inputs(&export_usage, (const char *const *)o.io.operands, o.io.n_operands,
			   o.io.inputs_file, o.io.quiet, &in);
	if (rc != GS_EXIT_OK)
		return rc;
	o.paths = (const char *const *)in.paths;
	o.n_paths = in.n;
	rc = export_open(&o, &files);
	if (rc == GS_EXIT_OK)
		rc = export_load(&o, &job);
	if (rc != GS_EXIT_OK)
		goto out;
	rc = export_pick(&o, job, &first, &n);
	if (rc != GS_EXIT_OK)
		goto out;
	data = calloc(n ? n : 1, sizeof(*data)); /* NOLINT(bugprone-sizeof-expression): pointers */
	ranks = calloc(n ? n : 1, sizeof(*ranks));
	if (!data || !ranks) {
		rc = gs_cli_fail(GS_ERR_NOMEM, NULL);
		goto out;
	}
	rc = export_build(&o, job, first, n, data, ranks);
	if (rc == GS_EXIT_OK)
		rc = o.format == FMT_CSV ? export_csv(&o, ranks, n, &files) :
					   export_one(&o, ranks, n, &files.f[0]);
out:
	export_discard(&files); /* after a failure: the temporary files only */
	for (size_t r = 0; data && r < n; r++)
		gs_export_data_destroy(data[r]);
	free(data);
	free(ranks);
	gs_job_destroy(job);
	gs_input_list_fini(&in);
	return rc;
}
