/* SPDX-License-Identifier: MIT */
/*
 * gpuscope convert: any readable trace to a .gscope file, under the output
 * policy of every -o (cli.h, output.c): written whole or not at all.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>
#include <gpuscope/trace.h>

#include "cli.h"

static const struct gs_cli_usage convert_usage = {
	.name = "convert",
	.synopsis = "gpuscope convert [--salvage] [--force] [--quiet] TRACE -o OUT.gscope",
};

static const char convert_help[] =
	"usage: gpuscope convert [--salvage] [--force] [--quiet] TRACE -o OUT.gscope\n"
	"\n"
	"Convert any readable trace to a .gscope file. OUT is written under a temporary\n"
	"name in its own directory and renamed into place when complete: an interrupted\n"
	"or failed conversion never leaves a partial OUT. Loading warnings go to stderr\n"
	"and are kept in OUT.\n"
	"\n"
	"options:\n"
	"  -o, --output OUT  the .gscope file to write (required; '-': stdout), never\n"
	"                    TRACE or a symbolic link\n"
	"  --force           replace OUT if it exists, a regular file only (default:\n"
	"                    refuse)\n"
	"  --salvage         skip corrupt .gscope chunks with a warning instead of\n"
	"                    failing (default: off)\n"
	"  -q, --quiet       no loading warnings and no progress line on stderr\n"
	"                    (default: the warnings, and on a terminal a progress line\n"
	"                    while loading or writing takes over a second)\n"
	"  -h, --help        show this help\n"
	"\n"
	"TRACE is {formats}, recognised by its content; '-' is stdin (a pipe works\n"
	"too, not for {file-only}).\n"
	"\n"
	"example:\n"
	"  gpuscope convert trace.json.gz -o run.gscope\n";

struct convert_opts {
	const char *in;
	const char *out;
	bool force;
	bool salvage;
	bool quiet;
};

static int convert_write(const struct gs_trace *t, int fd, const char *out)
{
	const struct gs_writer_options wopts = {.flush_records = 0, .compression_level = -1};
	struct gs_writer *w = NULL;
	gs_status st, cst;

	gs_error_clear();
	st = gs_writer_open_fd(fd, out, &wopts, &w);
	if (st != GS_OK)
		return gs_cli_fail(st, out);
	gs_progress_begin("writing %s", out);
	st = gs_trace_replay(t, gs_writer_borrow_sink(w));
	/* Always close: it frees the writer, even after a failure. */
	cst = gs_writer_close(w);
	gs_progress_end();
	if (st == GS_OK)
		st = cst;
	if (st != GS_OK)
		return gs_cli_fail(st, out);
	if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
		gs_cli_error("%s: cannot sync: %s", out, strerror(errno));
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

static int convert_run(const struct convert_opts *o)
{
	const char *const inputs[1] = {o->in};
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;
	struct gs_outfile out;
	int rc;

	/* Before the (possibly long) load: a refused or unwritable OUT is known
	 * at once. */
	rc = gs_cli_output_open(&out, o->out, o->force, inputs, 1);
	if (rc != GS_EXIT_OK)
		return rc;
	rc = gs_cli_load(o->in, o->salvage, !o->quiet, &t, &fmt);
	if (rc == GS_EXIT_OK)
		rc = convert_write(t, fileno(out.f), o->out);
	if (rc == GS_EXIT_OK)
		rc = gs_cli_output_commit(&out);
	gs_outfile_discard(&out); /* after a failure: the temporary file only */
	gs_trace_destroy(t);
	return rc;
}

int gs_cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"force", no_argument, NULL, 'f'},
		{"salvage", no_argument, NULL, 's'},      {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	struct convert_opts o = {0};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return gs_cli_usage_error(&convert_usage, "-o wants a file name");
			o.out = optarg;
			break;
		case 'f':
			o.force = true;
			break;
		case 's':
			o.salvage = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			return gs_cli_help(convert_help);
		default:
			return gs_cli_bad_option(&convert_usage, argv, c);
		}
	}
	if (gs_cli_one_operand(&convert_usage, argc, argv, "TRACE", &o.in) != GS_EXIT_OK)
		return GS_EXIT_USAGE;
	if (!o.out)
		return gs_cli_usage_error(&convert_usage, "no output given (-o OUT.gscope)");
	gs_progress_setup(o.quiet);
	return convert_run(&o);
}
