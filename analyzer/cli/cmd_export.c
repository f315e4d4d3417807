/* SPDX-License-Identifier: MIT */
/*
 * gpuscope export: a trace as Chrome trace JSON (Perfetto, chrome://tracing,
 * tools that read PyTorch-profiler traces) or as CSV. The analyses' results
 * (launches, dependency edges, breakdown, ideal schedule) come from
 * gs_export_data_build; the writers are gs_export_chrome / gs_export_csv_*.
 *
 * Files are written under a temporary name in their directory and renamed
 * into place when complete (an interrupt or a failure leaves no partial
 * output); existing files are replaced.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/export.h>

#include "cli.h"

#define EXPORT_SYNOPSIS                                                                            \
	"gpuscope export [--format chrome|csv] [-o OUT] [--with-ideal] [--salvage] TRACE"

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
	"                       ops.csv and segments.csv into. Existing files are replaced\n"
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
	const char *out;
	const char *in;
};

/* ---- temporary files, renamed into place ------------------------------ */

#define EXPORT_PATH_MAX 4352
#define EXPORT_MAX_FILES 2

struct out_file {
	char path[EXPORT_PATH_MAX];
	FILE *f;
	bool direct; /* written in place: not a regular file */
};

/* For the signal handler: fixed buffers (async-signal-safe unlink only). */
static char export_tmp[EXPORT_MAX_FILES][EXPORT_PATH_MAX];
static volatile sig_atomic_t export_tmp_live[EXPORT_MAX_FILES];

static const int export_signals[] = {SIGHUP, SIGINT, SIGTERM};
#define EXPORT_NSIGNALS (sizeof(export_signals) / sizeof(export_signals[0]))

static void export_on_signal(int sig)
{
	for (int i = 0; i < EXPORT_MAX_FILES; i++)
		if (export_tmp_live[i])
			unlink(export_tmp[i]);
	raise(sig); /* SA_RESETHAND: ends the process as it would have */
}

static void export_signals_set(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = export_on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < EXPORT_NSIGNALS; i++) {
		sigaction(export_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(export_signals[i], &sa, NULL);
	}
}

static void export_signals_restore(const struct sigaction *old)
{
	for (size_t i = 0; i < EXPORT_NSIGNALS; i++)
		sigaction(export_signals[i], &old[i], NULL);
}

/*
 * Open `path` for writing as slot `k`. A regular file (or a new one) is
 * written as "DIR/.BASE.tmp-XXXXXX" beside it and renamed into place by
 * tmp_close; anything else that exists (a device, a pipe, a symbolic link)
 * is written directly, never replaced.
 */
static int tmp_open(struct out_file *o, const char *path, int k)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	struct stat sb;
	mode_t mask;
	int n, fd;

	n = snprintf(o->path, sizeof(o->path), "%s", path);
	if (n < 0 || (size_t)n >= sizeof(o->path)) {
		gs_cli_error("%s: path too long", path);
		return GS_EXIT_FAIL;
	}
	o->direct = lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
	if (o->direct) {
		o->f = fopen(path, "w");
		if (!o->f) {
			gs_cli_error("%s: cannot open for writing: %s", path, strerror(errno));
			return GS_EXIT_FAIL;
		}
		return GS_EXIT_OK;
	}
	n = snprintf(export_tmp[k], sizeof(export_tmp[k]), "%.*s.%.200s.tmp-XXXXXX", dirlen, path,
		     base);
	if (n < 0 || (size_t)n >= sizeof(export_tmp[k])) {
		gs_cli_error("%s: path too long", path);
		return GS_EXIT_FAIL;
	}
	fd = mkstemp(export_tmp[k]);
	if (fd < 0) {
		gs_cli_error("%s: cannot create: %s", path, strerror(errno));
		return GS_EXIT_FAIL;
	}
	export_tmp_live[k] = 1;
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "w"))) {
		gs_cli_error("%s: cannot create: %s", path, strerror(errno));
		close(fd);
		unlink(export_tmp[k]);
		export_tmp_live[k] = 0;
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

/* Close slot k; with `keep`, rename it into place, else remove it. */
static int tmp_close(struct out_file *o, int k, bool keep)
{
	int rc = GS_EXIT_OK;

	if (o->direct) {
		errno = 0;
		if (o->f && fclose(o->f) != 0 && keep) {
			gs_cli_error("%s: write error: %s", o->path, strerror(errno ? errno : EIO));
			rc = GS_EXIT_FAIL;
		}
		o->f = NULL;
		return rc;
	}
	if (!export_tmp_live[k])
		return rc;
	errno = 0;
	if (o->f && fclose(o->f) != 0 && keep) {
		gs_cli_error("%s: write error: %s", o->path, strerror(errno ? errno : EIO));
		rc = GS_EXIT_FAIL;
	}
	o->f = NULL;
	if (keep && rc == GS_EXIT_OK && rename(export_tmp[k], o->path) != 0) {
		gs_cli_error("%s: cannot replace: %s", o->path, strerror(errno));
		rc = GS_EXIT_FAIL;
	}
	if (!keep || rc != GS_EXIT_OK)
		unlink(export_tmp[k]);
	export_tmp_live[k] = 0;
	return rc;
}

/* ---- the command ---------------------------------------------------------- */

static int export_parse(int argc, char **argv, struct export_opts *o, bool *help)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
		{"with-ideal", no_argument, NULL, 'i'},   {"salvage", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
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

static int export_chrome(const struct export_opts *o, const struct gs_trace *t,
			 const struct gs_export_extras *x)
{
	struct gs_export_options eo = {.with_ideal = o->with_ideal};
	struct sigaction old[EXPORT_NSIGNALS];
	struct out_file f = {0};
	gs_status st;
	int rc;

	gs_error_clear();
	if (!o->out || !strcmp(o->out, "-")) {
		st = gs_export_chrome(stdout, t, x, &eo);
		return st == GS_OK ? GS_EXIT_OK : gs_cli_fail(st, "stdout");
	}
	eo.gzip = gs_export_path_is_gzip(o->out);
	export_signals_set(old);
	rc = tmp_open(&f, o->out, 0);
	if (rc == GS_EXIT_OK) {
		st = gs_export_chrome(f.f, t, x, &eo);
		if (st != GS_OK) {
			tmp_close(&f, 0, false);
			rc = gs_cli_fail(st, o->out);
		} else {
			rc = tmp_close(&f, 0, true);
		}
	}
	export_signals_restore(old);
	return rc;
}

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

static int export_csv(const struct export_opts *o, const struct gs_trace *t,
		      const struct gs_export_extras *x)
{
	struct gs_export_options eo = {.with_ideal = o->with_ideal};
	struct sigaction old[EXPORT_NSIGNALS];
	struct out_file f[EXPORT_MAX_FILES] = {0};
	char ops[EXPORT_PATH_MAX], segs[EXPORT_PATH_MAX];
	gs_status st = GS_OK;
	int rc;

	rc = csv_names(o->out, ops, segs, sizeof(ops));
	if (rc != GS_EXIT_OK)
		return rc;
	export_signals_set(old);
	rc = tmp_open(&f[0], ops, 0);
	if (rc == GS_EXIT_OK)
		rc = tmp_open(&f[1], segs, 1);
	if (rc == GS_EXIT_OK) {
		gs_error_clear();
		st = gs_export_csv_ops(f[0].f, t, x, &eo);
		if (st != GS_OK) {
			rc = gs_cli_fail(st, ops);
		} else {
			st = gs_export_csv_segments(f[1].f, t, x, &eo);
			if (st != GS_OK)
				rc = gs_cli_fail(st, segs);
		}
	}
	/* Both files or neither. */
	if (rc == GS_EXIT_OK)
		rc = tmp_close(&f[0], 0, true);
	if (rc == GS_EXIT_OK)
		rc = tmp_close(&f[1], 1, true);
	if (rc != GS_EXIT_OK) {
		tmp_close(&f[0], 0, false);
		tmp_close(&f[1], 1, false);
	}
	export_signals_restore(old);
	return rc;
}

int gs_cmd_export(int argc, char **argv)
{
	struct export_opts o = {0};
	struct gs_export_data *d = NULL;
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;
	bool help = false;
	unsigned want;
	gs_status st;
	int rc;

	rc = export_parse(argc, argv, &o, &help);
	if (rc != GS_EXIT_OK || help)
		return help ? gs_cli_help(export_help) : rc;
	rc = gs_cli_load(o.in, o.salvage, true, &t, &fmt);
	if (rc != GS_EXIT_OK)
		return rc;
	want = GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_BREAKDOWN;
	if (!o.csv)
		want |= GS_EXPORT_WANT_EDGES;
	if (o.with_ideal)
		want |= GS_EXPORT_WANT_IDEAL;
	gs_error_clear();
	st = gs_export_data_build(t, want, &d);
	if (st != GS_OK) {
		rc = gs_cli_fail(st, o.in);
		goto out;
	}
	rc = o.csv ? export_csv(&o, t, gs_export_data_extras(d)) :
		     export_chrome(&o, t, gs_export_data_extras(d));
out:
	gs_export_data_destroy(d);
	gs_trace_destroy(t);
	return rc;
}
