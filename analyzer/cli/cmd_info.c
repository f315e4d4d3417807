/* SPDX-License-Identifier: MIT */
/* gpuscope info: record counts, devices, streams, time span of a trace. */
#include <getopt.h>
#include <stdio.h>

#include <gpuscope/summary.h>

#include "cli.h"

static const struct gs_cli_usage info_usage = {
	.name = "info",
	.synopsis = "gpuscope info [--format text|json] [--salvage] [--quiet] TRACE",
};

static const char info_help[] =
	"usage: gpuscope info [--format text|json] [--salvage] [--quiet] TRACE\n"
	"\n"
	"Summarize a trace: GPU ops by kind (kernel, memcpy, memset), API calls, syncs,\n"
	"event records, host ranges by kind, processes, devices, streams, threads, the\n"
	"span from the first op start to the last op end, dropped records and warnings.\n"
	"Loading warnings also go to stderr, whatever the format.\n"
	"\n"
	"options:\n"
	"  --format text|json  output format (default: text); json is one object,\n"
	"                      schema \"gpuscope.info/1\"\n"
	"  --salvage           skip corrupt .gscope chunks with a warning instead of\n"
	"                      failing (default: off)\n"
	"  -q, --quiet         no loading warnings and no progress line on stderr\n"
	"                      (default: the warnings, and on a terminal a progress line\n"
	"                      while loading takes over a second)\n"
	"  -h, --help          show this help\n"
	"\n"
	"TRACE is {formats}, recognised by its content; '-' is stdin (a pipe works\n"
	"too, not for {file-only}).\n"
	"\n"
	"example:\n"
	"  gpuscope info --format json run.gscope\n";

struct info_opts {
	bool json;
	bool salvage;
	bool quiet;
	const char *path;
};

static int info_parse(int argc, char **argv, struct info_opts *o, bool *help)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"salvage", no_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (gs_cli_text_or_json(&info_usage, optarg, &o->json) != GS_EXIT_OK)
				return GS_EXIT_USAGE;
			break;
		case 's':
			o->salvage = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			*help = true;
			return GS_EXIT_OK;
		default:
			return gs_cli_bad_option(&info_usage, argv, c);
		}
	}
	return gs_cli_one_operand(&info_usage, argc, argv, "TRACE", &o->path);
}

int gs_cmd_info(int argc, char **argv)
{
	struct info_opts o = {0};
	struct gs_trace *t = NULL;
	enum gs_input_format fmt = GS_INPUT_UNKNOWN;
	struct gs_summary s;
	bool help = false;
	gs_status st;
	int rc;

	rc = info_parse(argc, argv, &o, &help);
	if (rc != GS_EXIT_OK || help)
		return help ? gs_cli_help(info_help) : rc;

	gs_progress_setup(o.quiet);
	/* The output carries the warnings too; stderr has them in any format. */
	rc = gs_cli_load(o.path, o.salvage, !o.quiet, &t, &fmt);
	if (rc != GS_EXIT_OK)
		return rc;
	st = gs_summary_compute(t, &s);
	if (st != GS_OK) {
		rc = gs_cli_fail(st, gs_input_name(o.path));
		goto out;
	}
	s.file = gs_input_name(o.path);
	s.format = gs_input_format_name(fmt);
	st = o.json ? gs_summary_write_json(stdout, &s) : gs_summary_write_text(stdout, &s);
	if (st != GS_OK)
		rc = gs_cli_fail(st, st == GS_ERR_IO ? "stdout" : gs_input_name(o.path));
out:
	gs_trace_destroy(t);
	return rc;
}
