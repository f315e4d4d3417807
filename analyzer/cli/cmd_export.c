/* SPDX-License-Identifier: MIT */
/*
 * gpuscope export: a trace as Chrome trace JSON (Perfetto, chrome://tracing,
 * tools that read PyTorch-profiler traces) or as CSV. The analyses' results
 * (launches, dependency edges, breakdown, ideal schedule) come from
 * gs_export_data_build; the writers are gs_export_chrome / gs_export_csv_*.
 *
 * Files follow the output policy of every -o (cli.h, output.c): written
 * whole or not at all, an existing file replaced only with --force.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/export.h>

#include "cli.h"

#define EXPORT_SYNOPSIS                                                                            \
	"gpuscope export [--format chrome|csv] [-o OUT] [--force] [--with-ideal] [--salvage]\n"    \
	"                       TRACE"

static const struct gs_cli_usage export_usage = {
	.name = "export",
	.synopsis = EXPORT_SYNOPSIS,
};

static const char export_help[] =
	"usage: " EXPORT_SYNOPSIS "\n"
	"\n"
	"Write a trace for other tools.\n"
	"\n"
	"chrome: Chrome trace JSON for Perfetto (ui.perfetto.dev) and chrome://tracing,\n"
	"  in the PyTorch profiler's (Kineto's) categories and args, so tools that read\n"
	"  those traces read it too (and gpuscope reads it back). A process per host\n"
	"  process and per GPU, a track per host thread and per stream (ops that overlap\n"
	"  on a stream, and host ranges that do not nest, get an overflow track below),\n"
	"  arrows from each launch to its op and along every dependency edge, and a\n"
	"  'breakdown' counter per GPU (kernel / copy / sync / idle).\n"
	"csv: two files, PREFIX.ops.csv (one row per op, every field) and\n"
	"  PREFIX.segments.csv (one row per breakdown segment), with header rows and\n"
	"  RFC 4180 quoting.\n"
	"\n"
	"options:\n"
	"  --format chrome|csv  what to write (default: chrome)\n"
	"  -o, --output OUT     chrome: the file to write, gzip-compressed when OUT ends\n"
	"                       in .gz; '-' or no -o: stdout. csv (required): a PREFIX\n"
	"                       (a trailing .csv is dropped), or a directory to write\n"
	"                       ops.csv and segments.csv into. Each file is written whole\n"
	"                       or not at all, never TRACE or a symbolic link\n"
	"  --force              replace files that exist, regular files only (default:\n"
	"                       refuse)\n"
	"  --with-ideal         also the ideal schedule: chrome, a 'GPU N ideal schedule'\n"
	"                       process beside each GPU; csv, ideal_start_ns, delay_ns and\n"
	"                       bound_by columns (default: off)\n"
	"  --salvage            skip corrupt .gscope chunks with a warning instead of\n"
	"                       failing (default: off)\n"
	"  -h, --help           show this help\n"
	"\n"
	"TRACE is any trace gpuscope reads, recognised by its content.\n"
	"\n"
	"example:\n"
	"  gpuscope export -o run.json.gz run.gscope\n"
	"  gpuscope export --with-ideal -o run.json trace.json.gz\n"
	"  gpuscope export --format csv -o out/run trace.json.gz\n";

struct export_opts {
	bool csv;
	bool with_ideal;
	bool salvage;
	bool force;
	const char *out;
	const char *in;
};

/* ---- the command ---------------------------------------------------------- */

static int export_parse(int argc, char **argv, struct export_opts *o, bool *help)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"with-ideal", no_argument, NULL, 'i'},
		{"salvage", no_argument, NULL, 's'},
		{"force", no_argument, NULL, 'F'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "chrome"))
				o->csv = false;
			else if (!strcmp(optarg, "csv"))
				o->csv = true;
			else
				return gs_cli_usage_error(&export_usage,
							  "unknown format '%s' (chrome or csv)",
							  optarg);
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
		case 's':
			o->salvage = true;
			break;
		case 'h':
			*help = true;
			return GS_EXIT_OK;
		default:
			return gs_cli_bad_option(&export_usage, argv, c);
		}
	}
	if (gs_cli_one_operand(&export_usage, argc, argv, "TRACE", &o->in) != GS_EXIT_OK)
		return GS_EXIT_USAGE;
	if (o->csv && (!o->out || !strcmp(o->out, "-")))
		return gs_cli_usage_error(&export_usage,
					  "csv writes two files: give -o PREFIX (or a directory)");
	return GS_EXIT_OK;
}

/* The files to write, each checked and opened before the (long) load. */
struct export_files {
	struct gs_output f[2];
	char names[2][GS_OUTPUT_PATH_MAX]; /* csv: PREFIX.ops.csv, PREFIX.segments.csv */
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
	const char *const inputs[1] = {o->in};
	int rc;

	if (!o->csv) {
		x->n = 1;
		return gs_output_open(&x->f[0], o->out, o->force, inputs, 1);
	}
	rc = csv_names(o->out, x->names[0], x->names[1], sizeof(x->names[0]));
	if (rc != GS_EXIT_OK)
		return rc;
	/* Both checked before either is created: a refusal leaves nothing behind. */
	for (size_t i = 0; i < 2; i++)
		if (gs_output_check(x->names[i], o->force, inputs, 1) != GS_EXIT_OK)
			return GS_EXIT_FAIL;
	for (x->n = 0; x->n < 2; x->n++) {
		rc = gs_output_open(&x->f[x->n], x->names[x->n], o->force, inputs, 1);
		if (rc != GS_EXIT_OK)
			return rc;
	}
	return GS_EXIT_OK;
}

static void export_discard(struct export_files *x)
{
	for (size_t i = 0; i < x->n; i++)
		gs_output_discard(&x->f[i]);
}

static int export_chrome(const struct export_opts *o, const struct gs_trace *t,
			 const struct gs_export_extras *x, struct gs_output *out)
{
	struct gs_export_options eo = {.with_ideal = o->with_ideal};
	gs_status st;

	gs_error_clear();
	eo.gzip = out->path && gs_export_path_is_gzip(out->path);
	st = gs_export_chrome(out->f, t, x, &eo);
	return gs_output_close(out, st);
}

static int export_csv(const struct export_opts *o, const struct gs_trace *t,
		      const struct gs_export_extras *x, struct export_files *f)
{
	struct gs_export_options eo = {.with_ideal = o->with_ideal};
	gs_status st;
	int rc;

	gs_error_clear();
	st = gs_export_csv_ops(f->f[0].f, t, x, &eo);
	if (st != GS_OK)
		return gs_cli_fail(st, f->names[0]);
	st = gs_export_csv_segments(f->f[1].f, t, x, &eo);
	if (st != GS_OK)
		return gs_cli_fail(st, f->names[1]);
	/* Both files or neither: both closed and checked before either is moved. */
	rc = gs_output_finish(&f->f[0]);
	if (rc == GS_EXIT_OK)
		rc = gs_output_finish(&f->f[1]);
	if (rc == GS_EXIT_OK)
		rc = gs_output_publish(&f->f[0]);
	if (rc == GS_EXIT_OK)
		rc = gs_output_publish(&f->f[1]);
	return rc;
}

int gs_cmd_export(int argc, char **argv)
{
	struct export_opts o = {0};
	struct gs_export_data *d = NULL;
	struct gs_trace *t = NULL;
	struct export_files files = {0};
	enum gs_input_format fmt;
	bool help = false;
	unsigned want;
	gs_status st;
	int rc;

	rc = export_parse(argc, argv, &o, &help);
	if (rc != GS_EXIT_OK || help)
		return help ? gs_cli_help(export_help) : rc;
	rc = export_open(&o, &files);
	if (rc == GS_EXIT_OK)
		rc = gs_cli_load(o.in, o.salvage, true, &t, &fmt);
	if (rc != GS_EXIT_OK)
		goto out;
	want = GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_BREAKDOWN;
	if (!o.csv)
		want |= GS_EXPORT_WANT_EDGES;
	if (o.with_ideal)
		want |= GS_EXPORT_WANT_IDEAL;
	gs_error_clear();
	st = gs_export_data_build_max(t, want, gs_cli_max_edges(), &d);
	if (st != GS_OK) {
		rc = gs_cli_fail(st, o.in);
		goto out;
	}
	rc = o.csv ? export_csv(&o, t, gs_export_data_extras(d), &files) :
		     export_chrome(&o, t, gs_export_data_extras(d), &files.f[0]);
out:
	export_discard(&files); /* after a failure: the temporary files only */
	gs_export_data_destroy(d);
	gs_trace_destroy(t);
	return rc;
}
