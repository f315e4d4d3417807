/* SPDX-License-Identifier: MIT */
/*
 * gpuscope: the command table, global options, and the helpers every
 * command shares (error lines, usage errors, loading a trace). The work
 * itself is in the libraries; see cmd_*.c for each command.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuscope/gate.h>
#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>
#include <gpuscope/strbuf.h>
#include <gpuscope/summary.h>
#include <gpuscope/trace.h>

#include "cli.h"

#ifndef GS_VERSION
#error "GS_VERSION must be defined by the build (PROJECT_VERSION)"
#endif

/* A command; fn == NULL: planned but not built yet. */
struct gs_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct gs_cmd gs_commands[] = {
	{"info", gs_cmd_info, "summarize a trace: record counts, devices, streams, time span"},
	{"dump", gs_cmd_dump, "print every record of a trace, one line each, in time order"},
	{"convert", gs_cmd_convert, "convert any readable trace to a .gscope file"},
	{"record", gs_cmd_record, "record a CUDA program's timeline"},
	{"analyze", gs_cmd_analyze, "breakdown, waits, schedules and missed overlap"},
	{"export", gs_cmd_export, "write the timeline as Chrome trace JSON, Perfetto or CSV"},
	{"diff", gs_cmd_diff, "compare two traces: breakdown, schedules, kernels, waits"},
	{"plan", gs_cmd_plan, "schedule declared stages: serial vs ideal time, saving, overlap"},
};

#define GS_NCOMMANDS (sizeof(gs_commands) / sizeof(gs_commands[0]))

static const char gs_main_synopsis[] = "usage: gpuscope [--version] [--help] COMMAND [ARGS...]\n";

/* ------------------------------------------------------------------------ */
/* Shared helpers (cli.h)                                                    */
/* ------------------------------------------------------------------------ */

#define GS_CLI_MSG_MAX (GS_ERROR_MAX_CAUSES * (GS_ERROR_MSG_MAX + 2) + 1024)

/* One line, whatever the message holds: control characters (C0, DEL, and
 * C1 as UTF-8, U+0080..U+009F) become '?'. */
static void gs_cli_emit(const char *level, const char *msg)
{
	char line[GS_CLI_MSG_MAX];
	size_t i, j = 0;

	snprintf(line, sizeof(line), "%s", msg);
	gs_progress_clear(); /* not after a progress line on the same row */
	for (i = 0; line[i]; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c == 0xc2 && (unsigned char)line[i + 1] >= 0x80 &&
		    (unsigned char)line[i + 1] < 0xa0) {
			line[j++] = '?';
			i++;
		} else {
			line[j++] = c < 0x20 || c == 0x7f ? '?' : line[i];
		}
	}
	line[j] = '\0';
	fprintf(stderr, "gpuscope: %s: %s\n", level, line);
}

void gs_cli_error(const char *fmt, ...)
{
	char msg[GS_CLI_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gs_cli_emit("error", msg);
}

void gs_cli_warning(const char *fmt, ...)
{
	char msg[GS_CLI_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gs_cli_emit("warning", msg);
}

bool gs_cli_gate_add(char **acc, const char *arg)
{
	size_t have = *acc ? strlen(*acc) : 0, len = strlen(arg);
	char *grown = realloc(*acc, have + len + 2);

	if (!grown)
		return false;
	if (have)
		grown[have++] = ',';
	memcpy(grown + have, arg, len + 1);
	*acc = grown;
	return true;
}

int gs_cli_gate_parse(const char *acc, int use, struct gs_gate **out)
{
	gs_status st;

	*out = NULL;
	if (!acc)
		return GS_EXIT_OK;
	gs_error_clear();
	st = gs_gate_parse(acc, use == GS_GATE_DIFF ? GS_GATE_DIFF : GS_GATE_REPORT, out);
	return st == GS_OK ? GS_EXIT_OK : gs_cli_fail(st, "--fail-if");
}

int gs_cli_gate_verdict(const struct gs_gate_verdict *v)
{
	char line[1024];

	if (!v || !v->crossed)
		return GS_EXIT_OK;
	for (size_t i = 0; i < v->n; i++)
		if (v->results[i].crossed)
			gs_cli_emit("threshold crossed",
				    gs_gate_result_text(&v->results[i], line, sizeof(line)));
	return GS_EXIT_GATE;
}

int gs_cli_fail(gs_status st, const char *what)
{
	char chain[GS_CLI_MSG_MAX];

	if (gs_error_count() > 0)
		gs_error_format(chain, sizeof(chain));
	else
		snprintf(chain, sizeof(chain), "%s", gs_status_str(st));
	if (what && *what && !strstr(chain, what))
		gs_cli_error("%s: %s", what, chain);
	else
		gs_cli_error("%s", chain);
	gs_error_clear();
	return GS_EXIT_FAIL;
}

static void usage_vreport(const struct gs_cli_usage *u, const char *fmt, va_list ap)
	GS_PRINTF(2, 0);

static void usage_vreport(const struct gs_cli_usage *u, const char *fmt, va_list ap)
{
	char msg[GS_CLI_MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	gs_cli_error("%s: %s", u->name, msg);
	fprintf(stderr, "usage: %s\nTry 'gpuscope %s --help' for more information.\n", u->synopsis,
		u->name);
}

void gs_cli_usage_report(const struct gs_cli_usage *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	usage_vreport(u, fmt, ap);
	va_end(ap);
}

int gs_cli_input_usage(const void *usage, const char *fmt, va_list ap)
{
	usage_vreport(usage, fmt, ap);
	return GS_EXIT_USAGE;
}

void gs_cli_bad_option_error(const struct gs_cli_usage *u, char **argv, int c)
{
	/* getopt_long leaves optind just past the offending word. */
	const char *word = optind > 0 ? argv[optind - 1] : "";

	if (c == ':') {
		if (optopt && strncmp(word, "--", 2) != 0)
			gs_cli_usage_report(u, "option '-%c' needs a value", optopt);
		else
			gs_cli_usage_report(u, "option '%s' needs a value", word);
	} else if (strncmp(word, "--", 2) == 0) {
		gs_cli_usage_report(u, "unknown or malformed option '%s'", word);
	} else if (optopt) {
		gs_cli_usage_report(u, "unknown option '-%c'", optopt);
	} else {
		gs_cli_usage_report(u, "unknown option '%s'", word);
	}
}

/* The placeholder of a help text at p (n bytes left), and its length; 0
 * when p is none. */
static size_t help_placeholder(const char *p, size_t n, const char **fill, const char *formats,
			       const char *files)
{
	if (n >= 9 && memcmp(p, "{formats}", 9) == 0) {
		*fill = formats;
		return 9;
	}
	if (n >= 11 && memcmp(p, "{file-only}", 11) == 0) {
		*fill = files;
		return 11;
	}
	return 0;
}

/* Words of s, separated by single spaces, wrapped at GS_CLI_HELP_WIDTH. */
static void help_wrap(FILE *f, const char *s)
{
	size_t col = 0;

	while (*s) {
		size_t len = strcspn(s, " ");

		if (len) {
			if (col && col + 1 + len > GS_CLI_HELP_WIDTH) {
				fputc('\n', f);
				col = 0;
			} else if (col) {
				fputc(' ', f);
				col++;
			}
			fwrite(s, 1, len, f);
			col += len;
		}
		s += len + (s[len] == ' ');
	}
	if (col)
		fputc('\n', f);
}

void gs_cli_help_to(FILE *f, const char *text)
{
	char formats[512], files[256];

	gs_importers_help(formats, sizeof(formats));
	gs_importers_file_only(files, sizeof(files));
	while (*text) {
		/* A paragraph: its lines, the last newline included. */
		const char *e = strstr(text, "\n\n");
		size_t n = e ? (size_t)(e - text) + 1 : strlen(text);
		struct gs_strbuf b = GS_STRBUF_INIT;
		bool filled = false;
		char *para;

		for (size_t i = 0; i < n; i++) {
			const char *fill = NULL;
			size_t k = help_placeholder(text + i, n - i, &fill, formats, files);

			if (k) {
				gs_strbuf_puts(&b, fill);
				filled = true;
				i += k - 1;
			} else {
				gs_strbuf_putc(&b, text[i] == '\n' ? ' ' : text[i]);
			}
		}
		para = gs_strbuf_take(&b);
		if (filled && para)
			help_wrap(f, para);
		else
			fwrite(text, 1, n, f);
		free(para);
		for (text += n; *text == '\n'; text++)
			fputc('\n', f);
	}
}

int gs_cli_help(const char *text)
{
	gs_cli_help_to(stdout, text);
	return GS_EXIT_OK;
}

int gs_cli_one_operand(const struct gs_cli_usage *u, int argc, char **argv, const char *what,
		       const char **out)
{
	if (optind >= argc)
		return gs_cli_usage_error(u, "no %s given", what);
	if (argc - optind > 1)
		return gs_cli_usage_error(u, "one %s at a time (got '%s' too)", what,
					  argv[optind + 1]);
	*out = argv[optind];
	return GS_EXIT_OK;
}

int gs_cli_text_or_json(const struct gs_cli_usage *u, const char *arg, bool *json)
{
	if (strcmp(arg, "json") == 0)
		*json = true;
	else if (strcmp(arg, "text") == 0)
		*json = false;
	else
		return gs_cli_usage_error(u, "unknown format '%s' (text or json)", arg);
	return GS_EXIT_OK;
}

bool gs_cli_parse_count(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

bool gs_cli_parse_count_n(const char *s, size_t len, unsigned long long max,
			  unsigned long long *out)
{
	unsigned long long v = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

extern char **environ;

int gs_cli_limits(const struct gs_import_limits **out)
{
	static const char prefix[] = "GPUSCOPE_LIMIT_";
	static struct gs_import_limits lim;
	bool any = false;

	*out = NULL;
	memset(&lim, 0, sizeof(lim)); /* zero: the default */
	for (char **e = environ; e && *e; e++) {
		char name[64];
		const char *eq = strchr(*e, '=');
		size_t len;

		if (strncmp(*e, prefix, sizeof(prefix) - 1) != 0 || !eq)
			continue;
		len = (size_t)(eq - *e) - (sizeof(prefix) - 1);
		if (len >= sizeof(name))
			len = sizeof(name) - 1;
		memcpy(name, *e + sizeof(prefix) - 1, len);
		name[len] = '\0';
		gs_error_clear();
		if (gs_import_limit_set(&lim, name, eq + 1) != GS_OK) {
			char var[sizeof(prefix) + sizeof(name)];

			snprintf(var, sizeof(var), "%s%s", prefix, name);
			return gs_cli_fail(GS_ERR_INVALID, var);
		}
		any = true;
	}
	if (any)
		*out = &lim;
	return GS_EXIT_OK;
}

uint64_t gs_cli_max_edges(void)
{
	const struct gs_import_limits *lim = NULL;

	gs_cli_limits(&lim); /* a bad variable failed the load already */
	return lim ? lim->max_edges : 0;
}

uint64_t gs_cli_max_annotation_pieces(void)
{
	const struct gs_import_limits *lim = NULL;

	gs_cli_limits(&lim);
	return lim ? lim->max_annotation_pieces : 0;
}

int gs_cli_load(const char *path, bool salvage, bool warn, struct gs_trace **out,
		enum gs_input_format *fmt)
{
	struct gs_load_options opts = {.reader_flags = salvage ? GS_READER_SALVAGE : 0};
	const char *name = gs_input_name(path);
	gs_status st;
	int rc;

	*out = NULL;
	rc = gs_cli_limits(&opts.limits);
	if (rc != GS_EXIT_OK)
		return rc;
	gs_error_clear();
	opts.progress = gs_progress_records;
	gs_progress_begin("loading %s", name);
	st = gs_trace_load(path, &opts, out, fmt);
	gs_progress_end();
	if (st != GS_OK) {
		gs_trace_destroy(*out);
		*out = NULL;
		return gs_cli_fail(st, name);
	}
	if (warn)
		gs_cli_warnings(*out, path);
	return GS_EXIT_OK;
}

/* `line` starts with "NAME: ": it names the input already. */
static bool gs_cli_names_first(const char *line, const char *name)
{
	size_t n = strlen(name);

	return n && strncmp(line, name, n) == 0 && line[n] == ':' && line[n + 1] == ' ';
}

/* Warnings of one input on stderr: a trace can hold millions of distinct
 * ones (each is kept, and counted, in the trace and the JSON outputs); the
 * terminal gets the first GS_CLI_WARNINGS_SHOWN and how many more. */
#define GS_CLI_WARNINGS_SHOWN 20

void gs_cli_warnings(const struct gs_trace *t, const char *path)
{
	const char *name = gs_input_name(path);
	size_t n;
	const struct gs_warning *w = gs_trace_warnings(t, &n);

	for (size_t i = 0; i < n && i < GS_CLI_WARNINGS_SHOWN; i++) {
		char line[GS_CLI_MSG_MAX];

		gs_warning_format(&w[i], line, sizeof(line));
		if (gs_cli_names_first(line, name))
			gs_cli_warning("%s", line);
		else
			gs_cli_warning("%s: %s", name, line);
	}
	if (n > GS_CLI_WARNINGS_SHOWN)
		gs_cli_warning("%s: %zu more kinds of warning (gpuscope info --format json lists "
			       "them all)",
			       name, n - GS_CLI_WARNINGS_SHOWN);
}

void gs_cli_job_warnings(const struct gs_job *j, const char *const *paths, size_t n)
{
	/* Input by input, in the order given (ranks are in rank order). An
	 * input split into several ranks has its warnings on its first. */
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < j->n_ranks; r++)
			if (j->ranks[r].input == i)
				gs_cli_warnings(j->ranks[r].trace, paths[i]);
	for (size_t k = 0; k < j->n_warnings; k++) {
		const char *w = j->warnings[k];

		/* About the job: it names its inputs, or is about all of them. */
		if (n == 1 && !gs_cli_names_first(w, gs_input_name(paths[0])))
			gs_cli_warning("%s: %s", gs_input_name(paths[0]), w);
		else
			gs_cli_warning("%s", w);
	}
}

int gs_cli_stdin_once(const struct gs_cli_usage *u, const char *const *paths, size_t n)
{
	bool seen = false;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(paths[i], GS_INPUT_STDIN) != 0)
			continue;
		if (seen)
			return gs_cli_usage_error(u, "'-' (stdin) given twice: it can be read once "
						     "only");
		seen = true;
	}
	return GS_EXIT_OK;
}

/* '-' once among `paths`, and not there when the list comes from stdin. */
static int gs_cli_stdin_checks(const struct gs_cli_usage *u, const char *const *paths, size_t n,
			       const char *list)
{
	int rc = gs_cli_stdin_once(u, paths, n);

	if (rc != GS_EXIT_OK || !list || strcmp(list, GS_INPUT_STDIN) != 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		if (strcmp(paths[i], GS_INPUT_STDIN) == 0)
			return gs_cli_usage_error(u, "'-' (stdin) is both a TRACE and the "
						     "--inputs list: it can be read once only");
	return GS_EXIT_OK;
}

int gs_cli_inputs(const struct gs_cli_usage *u, const char *const *operands, size_t n,
		  const char *list, bool quiet, struct gs_input_list *l)
{
	gs_status st = GS_OK;
	int rc;

	gs_input_list_init(l);
	/* Before anything is read: the arguments as given. */
	rc = gs_cli_stdin_checks(u, operands, n, list);
	if (rc != GS_EXIT_OK)
		return rc;
	gs_error_clear();
	for (size_t i = 0; i < n && st == GS_OK; i++)
		st = gs_input_list_add(l, operands[i]);
	if (st == GS_OK && list)
		st = gs_input_list_add_file(l, list);
	if (st != GS_OK) {
		gs_input_list_fini(l);
		return gs_cli_fail(st, NULL);
	}
	/* And as listed. */
	rc = gs_cli_stdin_checks(u, (const char *const *)l->paths, l->n, list);
	if (rc == GS_EXIT_OK) {
		gs_error_clear();
		st = gs_input_list_check_distinct(l);
		if (st != GS_OK)
			rc = gs_cli_fail(st, NULL);
	}
	if (rc != GS_EXIT_OK) {
		gs_input_list_fini(l);
		return rc;
	}
	if (!quiet)
		for (size_t i = 0; i < l->n_warnings; i++)
			gs_cli_warning("%s", l->warnings[i]);
	return GS_EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Dispatch                                                                  */
/* ------------------------------------------------------------------------ */

static void gs_main_help(FILE *f)
{
	const char *sep = "";
	size_t i;

	fputs(gs_main_synopsis, f);
	fputs("\nAnalyze multi-stream CUDA timelines.\n\ncommands:\n", f);
	for (i = 0; i < GS_NCOMMANDS; i++)
		if (gs_commands[i].fn)
			fprintf(f, "  %-9s %s\n", gs_commands[i].name, gs_commands[i].summary);
	fprintf(f, "  %-9s %s\n", "help", "show a command's options: gpuscope help COMMAND");
	for (i = 0; i < GS_NCOMMANDS; i++) {
		if (!gs_commands[i].fn) {
			fprintf(f, "%s %s", *sep ? sep : "\nnot yet available in this build:",
				gs_commands[i].name);
			sep = ",";
		}
	}
	if (*sep)
		fputc('\n', f);
	gs_cli_help_to(f, "\noptions:\n"
			  "  -h, --help     show this help\n"
			  "  --version      show the version\n"
			  "\n"
			  "TRACE is {formats}, recognised by its content, not its name; '-' is\n"
			  "standard input, and pipes (<(zcat trace.json.gz)) work too (not for\n"
			  "{file-only}).\n"
			  "\n"
			  "Exit status: 0 success, 1 bad input or failure, 2 usage error, 3 a\n"
			  "threshold of --fail-if crossed (analyze, diff: the output is written).\n"
			  "\n"
			  "example:\n"
			  "  gpuscope info trace.json.gz\n");
}

static int gs_main_usage_error(const char *fmt, ...) GS_PRINTF(1, 2);

static int gs_main_usage_error(const char *fmt, ...)
{
	char msg[GS_CLI_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gs_cli_emit("error", msg);
	fputs(gs_main_synopsis, stderr);
	fputs("Try 'gpuscope --help' for more information.\n", stderr);
	return GS_EXIT_USAGE;
}

static const struct gs_cmd *gs_cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < GS_NCOMMANDS; i++)
		if (strcmp(gs_commands[i].name, name) == 0)
			return &gs_commands[i];
	return NULL;
}

/* `gpuscope help [CMD]`: the same text as `gpuscope CMD --help`. */
static int gs_main_help_cmd(int argc, char **argv)
{
	static char help_opt[] = "--help";
	const struct gs_cmd *cmd;
	char *hargv[3];

	if (argc < 2) {
		gs_main_help(stdout);
		return GS_EXIT_OK;
	}
	if (argc > 2)
		return gs_main_usage_error("help: one command at most (got '%s' after it)",
					   argv[2]);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0)
		return gs_cli_help(
			"usage: gpuscope help [COMMAND]\n"
			"\n"
			"Show the options of COMMAND, the same text as 'gpuscope COMMAND\n"
			"--help'; without COMMAND, the list of commands.\n"
			"\n"
			"options:\n"
			"  -h, --help  show this help\n"
			"\n"
			"example:\n"
			"  gpuscope help analyze\n");
	cmd = gs_cmd_find(argv[1]);
	if (!cmd)
		return gs_main_usage_error("help: unknown command '%s'", argv[1]);
	if (!cmd->fn) {
		gs_cli_error("'%s' is not available in this build yet", cmd->name);
		return GS_EXIT_USAGE;
	}
	hargv[0] = argv[1];
	hargv[1] = help_opt;
	hargv[2] = NULL;
	return cmd->fn(2, hargv);
}

static int gs_main_dispatch(int argc, char **argv)
{
	const struct gs_cmd *cmd;
	const char *name;

	if (argc < 2)
		return gs_main_usage_error("no command given");
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		gs_main_help(stdout);
		return GS_EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("gpuscope %s\n", GS_VERSION);
		return GS_EXIT_OK;
	}
	if (name[0] == '-')
		return gs_main_usage_error("unknown option '%s'", name);
	if (!strcmp(name, "help"))
		return gs_main_help_cmd(argc - 1, argv + 1);
	cmd = gs_cmd_find(name);
	if (!cmd)
		return gs_main_usage_error("unknown command '%s'", name);
	if (!cmd->fn) {
		gs_cli_error("'%s' is not available in this build yet", cmd->name);
		return GS_EXIT_USAGE;
	}
	return cmd->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	int rc = gs_main_dispatch(argc, argv);

	/* A full disk or a closed pipe must not pass for success (perf does the same). */
	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (rc == GS_EXIT_OK)
			gs_cli_error("stdout: write failed%s%s", errno ? ": " : "",
				     errno ? strerror(errno) : "");
		rc = GS_EXIT_FAIL;
	}
	if (fclose(stdout) == EOF && rc == GS_EXIT_OK) {
		gs_cli_error("stdout: write failed: %s", strerror(errno ? errno : EIO));
		rc = GS_EXIT_FAIL;
	}
	return rc;
}
