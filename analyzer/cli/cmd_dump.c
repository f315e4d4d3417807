/* SPDX-License-Identifier: MIT */
/* gpuscope dump: every record of a trace as one text line, in time order. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/dump.h>

#include "cli.h"

static const struct gs_cli_usage dump_usage = {
	.name = "dump",
	.synopsis = "gpuscope dump [--limit N] [--salvage] [--quiet] TRACE",
};

static const char dump_help[] =
	"usage: gpuscope dump [--limit N] [--salvage] [--quiet] TRACE\n"
	"\n"
	"Print every record of a trace as one line: first the processes, devices and\n"
	"streams, then all timed records (GPU ops, API calls, syncs, event records,\n"
	"allocations, host ranges, collector overheads) merged in time order, each line\n"
	"starting with its time in ns. Equal times are ordered by record kind, end time,\n"
	"correlation id and content, so the output is the same on every run.\n"
	"Loading warnings go to stderr.\n"
	"\n"
	"options:\n"
	"  --limit N    print at most N timed records (default: 0, no limit)\n"
	"  --salvage    skip corrupt .gscope chunks with a warning instead of failing\n"
	"               (default: off)\n"
	"  -q, --quiet  no loading warnings and no progress line on stderr (default: the\n"
	"               warnings, and on a terminal a progress line while loading takes\n"
	"               over a second)\n"
	"  -h, --help   show this help\n"
	"\n"
	"TRACE is {formats}, recognised by its content; '-' is stdin (a pipe works\n"
	"too, not for {file-only}).\n"
	"\n"
	"example:\n"
	"  gpuscope dump --limit 20 run.gscope\n";

struct dump_opts {
	size_t limit;
	bool salvage;
	bool quiet;
	const char *path;
};

static int dump_parse(int argc, char **argv, struct dump_opts *o, bool *help)
{
	static const struct option longopts[] = {
		{"limit", required_argument, NULL, 'n'},
		{"salvage", no_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!gs_cli_parse_count(optarg, SIZE_MAX, &v))
				return gs_cli_usage_error(
					&dump_usage, "--limit wants a count, not '%s'", optarg);
			o->limit = (size_t)v;
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
			return gs_cli_bad_option(&dump_usage, argv, c);
		}
	}
	return gs_cli_one_operand(&dump_usage, argc, argv, "TRACE", &o->path);
}

int gs_cmd_dump(int argc, char **argv)
{
	struct dump_opts o = {0};
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;
	bool help = false;
	gs_status st;
	int rc;

	rc = dump_parse(argc, argv, &o, &help);
	if (rc != GS_EXIT_OK || help)
		return help ? gs_cli_help(dump_help) : rc;

	gs_progress_setup(o.quiet);
	rc = gs_cli_load(o.path, o.salvage, !o.quiet, &t, &fmt);
	if (rc != GS_EXIT_OK)
		return rc;
	st = gs_dump_write(stdout, t, o.limit);
	if (st != GS_OK)
		rc = gs_cli_fail(st, st == GS_ERR_IO ? "stdout" : gs_input_name(o.path));
	gs_trace_destroy(t);
	return rc;
}
