/* SPDX-License-Identifier: MIT */
/*
 * gpuscope convert: any readable trace to a .gscope file. The file is
 * written under a temporary name in the output's directory and renamed
 * into place only when complete, so no partial output passes for whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gpuscope/format.h>

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
	"  -o, --output OUT  the .gscope file to write (required)\n"
	"  --force           replace OUT if it exists (default: refuse)\n"
	"  --salvage         skip corrupt .gscope chunks with a warning instead of\n"
	"                    failing (default: off)\n"
	"  -q, --quiet       no progress line (default: on a terminal, stderr shows one\n"
	"                    while loading or writing takes over a second)\n"
	"  -h, --help        show this help\n"
	"\n"
	"TRACE is a .gscope file or a Kineto / PyTorch-profiler JSON trace (.json,\n"
	".json.gz), recognised by its content.\n"
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

/*
 * The temporary file, for the signal handler to remove. A fixed buffer:
 * the handler may only call async-signal-safe functions.
 */
#define CONVERT_TMP_MAX 4352
static char convert_tmp[CONVERT_TMP_MAX];
static volatile sig_atomic_t convert_tmp_live;

static const int convert_signals[] = {SIGHUP, SIGINT, SIGTERM};
#define CONVERT_NSIGNALS (sizeof(convert_signals) / sizeof(convert_signals[0]))

static void convert_on_signal(int sig)
{
	if (convert_tmp_live)
		unlink(convert_tmp);
	/* SA_RESETHAND restored the default: this ends the process as it would have. */
	raise(sig);
}

static void convert_signals_set(struct sigaction *old)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = convert_on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < CONVERT_NSIGNALS; i++) {
		sigaction(convert_signals[i], NULL, &old[i]);
		/* Keep a signal the caller chose to ignore ignored. */
		if (old[i].sa_handler != SIG_IGN)
			sigaction(convert_signals[i], &sa, NULL);
	}
}

static void convert_signals_restore(const struct sigaction *old)
{
	size_t i;

	for (i = 0; i < CONVERT_NSIGNALS; i++)
		sigaction(convert_signals[i], &old[i], NULL);
}

/* "DIR/.BASE.tmp-XXXXXX" beside `out`, for mkstemp. */
static int convert_tmp_name(const char *out)
{
	const char *slash = strrchr(out, '/');
	const char *base = slash ? slash + 1 : out;
	int dirlen = slash ? (int)(slash - out) + 1 : 0;
	int n;

	/* Keep the name under NAME_MAX (255) whatever OUT's length. */
	n = snprintf(convert_tmp, sizeof(convert_tmp), "%.*s.%.200s.tmp-XXXXXX", dirlen, out, base);
	if (n < 0 || (size_t)n >= sizeof(convert_tmp)) {
		gs_cli_error("%s: path too long", out);
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

/* Give the file the mode a plain create would have (mkstemp makes it 0600). */
static int convert_fix_mode(int fd, const char *out)
{
	mode_t mask = umask(0);

	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		gs_cli_error("%s: cannot set the mode of '%s': %s", out, convert_tmp,
			     strerror(errno));
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

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
		gs_cli_error("%s: cannot sync '%s': %s", out, convert_tmp, strerror(errno));
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

/* link() failed because the file system has no hard links (not a real error). */
static bool convert_links_unsupported(int e)
{
	if (e == EOPNOTSUPP) /* the same value as ENOTSUP on Linux, not everywhere */
		return true;
	return e == ENOTSUP || e == EPERM || e == ENOSYS || e == EMLINK;
}

/* Move the finished temporary file to `out`. */
static int convert_publish(const char *out, bool force)
{
	struct stat sb;

	if (force) {
		if (rename(convert_tmp, out) != 0) {
			gs_cli_error("%s: cannot replace: %s", out, strerror(errno));
			return GS_EXIT_FAIL;
		}
		return GS_EXIT_OK;
	}
	/* link() fails if `out` appeared meanwhile: no check-then-overwrite race. */
	if (link(convert_tmp, out) == 0) {
		unlink(convert_tmp);
		return GS_EXIT_OK;
	}
	if (errno == EEXIST) {
		gs_cli_error("%s: already exists (use --force to replace it)", out);
		return GS_EXIT_FAIL;
	}
	if (!convert_links_unsupported(errno)) {
		gs_cli_error("%s: cannot create: %s", out, strerror(errno));
		return GS_EXIT_FAIL;
	}
	/* No hard links on this file system: check, then rename. */
	if (lstat(out, &sb) == 0) {
		gs_cli_error("%s: already exists (use --force to replace it)", out);
		return GS_EXIT_FAIL;
	}
	if (rename(convert_tmp, out) != 0) {
		gs_cli_error("%s: cannot create: %s", out, strerror(errno));
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

static int convert_run(const struct convert_opts *o)
{
	struct sigaction old[CONVERT_NSIGNALS];
	struct gs_trace *t = NULL;
	enum gs_input_format fmt;
	struct stat sb;
	int fd, rc;

	/* Fail before the (possibly long) load when the answer is already known. */
	if (!o->force && lstat(o->out, &sb) == 0) {
		gs_cli_error("%s: already exists (use --force to replace it)", o->out);
		return GS_EXIT_FAIL;
	}
	/* --force replaces a file, never a device, pipe, directory or link:
	 * renaming over /dev/null as root would replace the device itself. */
	if (o->force && lstat(o->out, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		gs_cli_error("%s: not a regular file: refusing to replace it", o->out);
		return GS_EXIT_FAIL;
	}
	rc = convert_tmp_name(o->out);
	if (rc != GS_EXIT_OK)
		return rc;
	/* The temporary file first: an unwritable directory is found at once. */
	convert_signals_set(old);
	fd = mkstemp(convert_tmp);
	if (fd < 0) {
		gs_cli_error("%s: cannot create: %s", o->out, strerror(errno));
		rc = GS_EXIT_FAIL;
		goto err_signals;
	}
	convert_tmp_live = 1;
	rc = convert_fix_mode(fd, o->out);
	if (rc == GS_EXIT_OK)
		rc = gs_cli_load(o->in, o->salvage, true, &t, &fmt);
	if (rc == GS_EXIT_OK)
		rc = convert_write(t, fd, o->out);
	if (close(fd) != 0 && rc == GS_EXIT_OK) {
		gs_cli_error("%s: cannot close '%s': %s", o->out, convert_tmp, strerror(errno));
		rc = GS_EXIT_FAIL;
	}
	if (rc == GS_EXIT_OK)
		rc = convert_publish(o->out, o->force);
	if (rc != GS_EXIT_OK)
		unlink(convert_tmp); /* published: the name is gone (renamed or unlinked) */
	convert_tmp_live = 0;
	gs_trace_destroy(t);
err_signals:
	convert_signals_restore(old);
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
