/* SPDX-License-Identifier: MIT */
/*
 * gpuscope-mpi's options: its own, and the trace-input options of
 * gpuscope/input_opts.h; usage errors from the root only.
 */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/input_opts.h>
#include <gpuscope/report.h>

#include "gpuscope_mpi.h"

static const char usage_line[] =
	"usage: mpirun -n P gpuscope-mpi analyze [--format text|json|html] [-o OUT|DIR/]\n"
	"                  [--force] [--window T0:T1] [--top N] [--ranks N|all] [--rows N|all]\n"
	"                  [--salvage] [--quiet] [--color=auto|always|never] [--keep-going]\n"
	"                  [--stats] [--align collectives|none] [--fail-if THRESHOLDS]\n"
	"                  [--inputs FILE] TRACE|DIR...\n";

static const char help_text[] =
	"\n"
	"The job report of `gpuscope analyze TRACE...` (the same text, JSON and HTML;\n"
	"the JSON adds options.mpi, {\"processes\": P}), made by P MPI processes: each\n"
	"reads and analyses only its share of the rank files (shared out by file size),\n"
	"and the root (MPI process 0) writes the report from the ranks' summaries and\n"
	"sections. A job of 10,000 ranks needs no machine that holds them all.\n"
	"\n"
	"options (as gpuscope analyze's, and):\n"
	"  --inputs FILE       read TRACE paths from FILE, one a line (as well as the\n"
	"                      TRACE arguments, which come first), as gpuscope analyze\n"
	"                      reads them: relative to the current directory; blanks\n"
	"                      around a path, empty lines and lines starting with #\n"
	"                      skipped; a line may name a directory\n"
	"  -o DIR/             with a trailing '/': DIR/job.EXT, the job report, and\n"
	"                      DIR/rank-NNNNN.EXT, each rank's own report (NNNNN its rank\n"
	"                      number, five digits or more), written by the process that\n"
	"                      analysed it; EXT is txt, json or html. Every path is\n"
	"                      checked as OUT is, all before any is written\n"
	"  --keep-going        a TRACE that cannot be read is reported (one error line,\n"
	"                      and a warning in the report) and the rest analysed; exit 0,\n"
	"                      or 1 when no TRACE could be read\n"
	"  --stats             per MPI process on stderr: inputs, ranks, bytes read, peak\n"
	"                      memory, bytes sent to the root, seconds\n"
	"  --fail-if THRESHOLDS\n"
	"                      the gate of a CI job, as gpuscope analyze's: exit status\n"
	"                      3 on every process when a GPU crosses a threshold\n"
	"                      (METRIC OP VALUE, comma-separated, e.g. 'efficiency<0.6,\n"
	"                      idle_share>30%'), one line per crossed threshold on\n"
	"                      stderr from the root, the report written all the same\n"
	"                      (JSON: its \"gate\" verdict). Repeatable\n"
	"  -h, --help          show this help\n"
	"\n"
	"A DIR stands for every trace in it, in name order, as for gpuscope analyze\n"
	"(regular files, not recursive; others skipped with one warning, hidden ones\n"
	"silently); the root reads the directories and the lists and shares the paths\n"
	"out. The same trace given twice is refused.\n"
	"-o OUT follows gpuscope's rules for output files (man gpuscope, OUTPUT FILES):\n"
	"never one of the inputs (nor a hard or symbolic link to one), never through a\n"
	"symbolic link, an existing regular file only with --force; written to a\n"
	"temporary file beside it (mode 0666 less the umask) and moved into place when\n"
	"complete, so that a failure or a signal leaves no partial file. The root checks\n"
	"OUT (or DIR/job.EXT) before reading any TRACE.\n"
	"--rank and --device are not taken: analyse that rank's file with gpuscope\n"
	"analyze; nor are --step, --step-marker, --op-level and --graph-node-ns: their\n"
	"defaults apply. --window takes ns (T0:T1, or +T0:+T1 from the first op).\n"
	"Standard input is neither a TRACE nor the --inputs list. Exit status: 0, 1 (a\n"
	"failure, on every process), 2 (usage), 3 (a --fail-if threshold crossed, on\n"
	"every process).\n"
	"\n"
	"example:\n"
	"  mpirun -n 4 gpuscope-mpi analyze --format json -o job.json rank*.json.gz\n"
	"  srun -n 64 gpuscope-mpi analyze --inputs ranks.txt -o report/\n"
	"  mpirun -n 8 gpuscope-mpi analyze --format html -o job.html runs/\n"
	"  mpirun -n 4 gpuscope-mpi analyze --fail-if 'efficiency<0.6' -o job.txt runs/\n";
static int vusage(const void *ctx, const char *fmt, va_list ap) GS_PRINTF(2, 0);

/* A usage error, from the root only; returns 2. `ctx` is unused (the
 * gs_input_opts_ui callback's). */
static int vusage(const void *ctx, const char *fmt, va_list ap)
{
	char buf[1024];

	(void)ctx;
	if (mpi_me != 0)
		return 2;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "gpuscope-mpi: error: %s\n%s", buf, usage_line);
	return 2;
}

void usage_report(const char *fmt, ...) GS_PRINTF(1, 2);

void usage_report(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage(NULL, fmt, ap);
	va_end(ap);
}

/* ---- options ---- */

int parse_args(int argc, char **argv, struct opts *o, bool *help)
{
	static const struct option own[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, 'F'},
		{"top", required_argument, NULL, 't'},
		{"ranks", required_argument, NULL, 'K'}, /* N|all: a job's rank rows */
		{"rows", required_argument, NULL, 'R'},
		{"color", optional_argument, NULL, 'c'},
		{"colour", optional_argument, NULL, 'c'},
		{"keep-going", no_argument, NULL, 'k'},
		{"stats", no_argument, NULL, 'S'},
		{"fail-if", required_argument, NULL, 'G'},
		/* analyze's, refused: a rank's file is for gpuscope analyze */
		{"rank", required_argument, NULL, 'r'},
		{"device", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const struct gs_input_opts_ui ui = {vusage, NULL};
	struct option longopts[32];
	int c, rc;

	if (argc < 2 || strcmp(argv[1], "analyze") != 0) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			*help = true;
			return 0;
		}
		return usage("the one command is 'analyze'");
	}
	argc--;
	argv++;
	if (!gs_input_opts_table(MPI_INOPTS, own, longopts, sizeof(longopts) / sizeof(longopts[0])))
		die("option table too small");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", longopts, NULL)) != -1) {
		const char *arg = optarg ? optarg : "";

		if (gs_input_opts_takes(MPI_INOPTS, c)) {
			rc = gs_input_opts_parse(&o->io, MPI_INOPTS, &ui, c, optarg);
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'f':
			if (!strcmp(arg, "json"))
				o->format = F_JSON;
			else if (!strcmp(arg, "html"))
				o->format = F_HTML;
			else if (!strcmp(arg, "text"))
				o->format = F_TEXT;
			else
				return usage("unknown format '%s' (text, json or html)", arg);
			break;
		case 'o':
			if (!*arg)
				return usage("-o wants a file name");
			o->output = arg;
			break;
		case 'F':
			o->force = true;
			break;
		case 't': {
			char *end;
			unsigned long v = strtoul(arg, &end, 10);

			if (*end || !*arg || v == 0 || v > 1000000)
				return usage("--top wants a count from 1, not '%s'", arg);
			o->top = v;
			break;
		}
		case 'K': {
			char *end;
			unsigned long v;

			if (strcmp(arg, "all") == 0) {
				o->ranks = GS_REPORT_RANKS_ALL;
				break;
			}
			v = strtoul(arg, &end, 10);
			if (*end || *arg < '0' || *arg > '9' || v == 0 || v > 1000000)
				return usage("--ranks wants a count from 1 or 'all', not '%s'",
					     arg);
			o->ranks = v;
			break;
		}
		case 'R': {
			char *end;
			unsigned long long v;

			if (strcmp(arg, "all") == 0) {
				o->rows = GS_REPORT_ROWS_ALL;
				break;
			}
			v = strtoull(arg, &end, 10);
			if (*end || *arg < '0' || *arg > '9' || v == 0 || v > 1000000000ULL)
				return usage("--rows wants a count from 1 or 'all', not '%s'", arg);
			o->rows = (size_t)v;
			break;
		}
		case 'k':
			o->keep_going = true;
			break;
		case 'S':
			o->stats = true;
			break;
		case 'c':
			if (!optarg || !strcmp(arg, "always"))
				o->color_always = true;
			else if (!strcmp(arg, "never"))
				o->color_never = true;
			else if (strcmp(arg, "auto") != 0)
				return usage("--color wants auto, always or never, not '%s'", arg);
			break;
		case 'G': {
			/* Every --fail-if, joined by commas, as gpuscope analyze
			 * joins them. */
			size_t have = o->fail_if ? strlen(o->fail_if) : 0;
			char *grown = realloc(o->fail_if, have + strlen(arg) + 2);

			if (!grown)
				die("out of memory");
			if (have)
				grown[have++] = ',';
			memcpy(grown + have, arg, strlen(arg) + 1);
			o->fail_if = grown;
			break;
		}
		case 'r':
		case 'd':
			return usage("--%s is not taken by gpuscope-mpi: analyse that rank's file "
				     "with gpuscope analyze",
				     c == 'r' ? "rank" : "device");
		case 'h':
			*help = true;
			return 0;
		case ':':
			return usage("option %s wants a value", argv[optind - 1]);
		default:
			return usage("unknown option %s", argv[optind - 1]);
		}
	}
	return gs_input_opts_finish(&o->io, MPI_INOPTS, &ui, argc, argv, optind);
}

void print_help(void)
{
	printf("%s%s", usage_line, help_text);
}
