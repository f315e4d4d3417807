/* SPDX-License-Identifier: MIT */
/*
 * The gpuscope command line: one function per command (cmd_*.c), each with
 * its own getopt_long table and usage, and the few helpers they share
 * (main.c). Commands return an exit status (0, 1, 2).
 */
#ifndef GS_CLI_H
#define GS_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <gpuscope/import.h>
#include <gpuscope/outfile.h>

#include <gpuscope/input_opts.h> /* --rank, --device, --window, ... */
#include "term.h"                /* colour and the progress line */

enum gs_exit {
	GS_EXIT_OK = 0,
	GS_EXIT_FAIL = 1,  /* bad input or failure: one "gpuscope: error:" line */
	GS_EXIT_USAGE = 2, /* usage error: the error, the synopsis, a hint */
	GS_EXIT_GATE = 3,  /* --fail-if: a threshold was crossed (output written) */
};

/* argv[0] is the command's name; argv[argc] is NULL. */
int gs_cmd_info(int argc, char **argv);
int gs_cmd_dump(int argc, char **argv);
int gs_cmd_convert(int argc, char **argv);
int gs_cmd_plan(int argc, char **argv);
int gs_cmd_analyze(int argc, char **argv);
int gs_cmd_record(int argc, char **argv);
int gs_cmd_export(int argc, char **argv);
int gs_cmd_diff(int argc, char **argv);

/* What each command's usage error shows. */
struct gs_cli_usage {
	const char *name;     /* "info" */
	const char *synopsis; /* "gpuscope info [--format text|json] [--salvage] TRACE" */
};

/* "gpuscope: error: MSG" on stderr, control characters (C0, DEL, C1) shown
 * as '?'. */
void gs_cli_error(const char *fmt, ...) GS_PRINTF(1, 2);
/* "gpuscope: warning: MSG" on stderr. */
void gs_cli_warning(const char *fmt, ...) GS_PRINTF(1, 2);

/*
 * --fail-if (analyze, diff): each THRESHOLDS argument is added to *acc,
 * comma-separated (the option may be repeated); then gs_cli_gate_parse
 * parses them all (NULL *acc: no gate, *out NULL), printing the error line
 * and returning GS_EXIT_FAIL when they do not parse. After the output is
 * written, gs_cli_gate_verdict prints "gpuscope: threshold crossed: ..."
 * per threshold crossed and returns GS_EXIT_GATE when any was.
 */
struct gs_gate;
struct gs_gate_verdict;
bool gs_cli_gate_add(char **acc, const char *arg);
int gs_cli_gate_parse(const char *acc, int use, struct gs_gate **out);
int gs_cli_gate_verdict(const struct gs_gate_verdict *v);
/*
 * Print the recorded error chain as one error line; `what` (a file name,
 * "stdout") is put in front unless the chain already names it. Clears the
 * chain. Returns GS_EXIT_FAIL.
 */
int gs_cli_fail(gs_status st, const char *what);
/* The error, the synopsis and a pointer to --help (main.c). */
void gs_cli_usage_report(const struct gs_cli_usage *u, const char *fmt, ...) GS_PRINTF(2, 3);
/* The same, as an expression worth GS_EXIT_USAGE: a macro, so that the
 * static analyzer sees at each call that a usage error is never GS_EXIT_OK
 * (it does not look into variadic functions, and would follow a failed
 * parse on as a success). */
#define gs_cli_usage_error(...) (gs_cli_usage_report(__VA_ARGS__), GS_EXIT_USAGE)
/*
 * The trace-input options (input_opts.h) report their usage errors as the
 * command's: a gs_input_opts_ui of {gs_cli_input_usage, &cmd_usage}.
 * Returns GS_EXIT_USAGE.
 */
int gs_cli_input_usage(const void *usage, const char *fmt, va_list ap) GS_PRINTF(2, 0);
/* After getopt_long returned '?' or ':': the usage error (main.c). */
void gs_cli_bad_option_error(const struct gs_cli_usage *u, char **argv, int c);
/* The same. Returns GS_EXIT_USAGE (inline, for the analyzer as above). */
static inline int gs_cli_bad_option(const struct gs_cli_usage *u, char **argv, int c)
{
	gs_cli_bad_option_error(u, argv, c);
	return GS_EXIT_USAGE;
}
/*
 * Print `text` to stdout (the command's --help). A paragraph (lines up to a
 * blank one) that says {formats} or {file-only} has them filled from the
 * importer table (gs_importers_help, gs_importers_file_only) and is wrapped
 * again at GS_CLI_HELP_WIDTH columns. Returns GS_EXIT_OK.
 */
int gs_cli_help(const char *text);
/* The same into f. */
void gs_cli_help_to(FILE *f, const char *text);
#define GS_CLI_HELP_WIDTH 79
/*
 * After option parsing (getopt's optind): the one operand of a command
 * that takes exactly one, named `what` in the errors ("TRACE"). Returns
 * GS_EXIT_OK with *out set, or the usage error.
 */
int gs_cli_one_operand(const struct gs_cli_usage *u, int argc, char **argv, const char *what,
		       const char **out);
/* A --format of "text" or "json" into *json, or the usage error. */
int gs_cli_text_or_json(const struct gs_cli_usage *u, const char *arg, bool *json);
/* A decimal count: digits only (no sign, no space), at most `max`. */
bool gs_cli_parse_count(const char *s, unsigned long long max, unsigned long long *out);
/* The same of the `len` bytes at s (no sign, no blank, leading zeros
 * allowed): every digit counts, whatever the length. */
bool gs_cli_parse_count_n(const char *s, size_t len, unsigned long long max,
			  unsigned long long *out);

/*
 * The import limits (struct gs_import_limits) set in the environment, one
 * variable per limit: GPUSCOPE_LIMIT_<NAME>=VALUE, NAME being the limit's
 * name in upper case (GPUSCOPE_LIMIT_MAX_DEPTH=128, GPUSCOPE_LIMIT_MAX_OPS=1G).
 * *out is NULL when none is set. A variable with an unknown name or a bad
 * value prints the error line and returns GS_EXIT_FAIL.
 */
int gs_cli_limits(const struct gs_import_limits **out);
/* The max_edges limit set in the environment (0: none set, the default). */
uint64_t gs_cli_max_edges(void);
/* The max_annotation_pieces limit set in the environment (0: none set). */
uint64_t gs_cli_max_annotation_pieces(void);

/*
 * Load any readable trace (recognised by content; "-": stdin, which
 * messages call "stdin"). With `warn` (every command passes !--quiet),
 * loading warnings go to stderr (gs_cli_warnings). On failure prints the
 * error line and returns GS_EXIT_FAIL.
 */
int gs_cli_load(const char *path, bool salvage, bool warn, struct gs_trace **out,
		enum gs_input_format *fmt);
/*
 * Output files: every command's -o OUT (output.c), through the policy of
 * gpuscope/outfile.h (never an input, never through a symbolic link,
 * never an existing file without --force, written to a temporary file
 * moved into place when complete; "-" or NULL is stdout). These print the
 * refusal or failure as one error line naming OUT and return the exit
 * status; gs_outfile_discard removes a temporary file left (no message).
 */
int gs_cli_output_check(const char *path, bool force, const char *const *inputs, size_t n_inputs);
/* Check OUT and create its temporary file; o->f is where to write. */
int gs_cli_output_open(struct gs_outfile *o, const char *path, bool force,
		       const char *const *inputs, size_t n_inputs);
/* Close the temporary file (a close error is a failed write) and check OUT
 * again; on failure the temporary file is removed. */
int gs_cli_output_finish(struct gs_outfile *o);
/* After gs_cli_output_finish: move the temporary file to OUT. */
int gs_cli_output_publish(struct gs_outfile *o);
/* gs_cli_output_finish, then gs_cli_output_publish. */
int gs_cli_output_commit(struct gs_outfile *o);
/* After a write that returned `st`: commit, or discard and print st's error. */
int gs_cli_output_close(struct gs_outfile *o, gs_status st);
/*
 * A loaded trace's warnings on stderr, "gpuscope: warning: FILE: MSG", each
 * naming the input at `path` once (gs_input_name: "stdin" for "-"). Every
 * command prints the loading warnings of each input so, whatever its
 * output format, unless --quiet.
 */
void gs_cli_warnings(const struct gs_trace *t, const char *path);
/* The same for a job of `n` inputs: each input's warnings in the order of
 * `paths`, then the job's own (rank numbering, merged inputs, clocks). */
void gs_cli_job_warnings(const struct gs_job *j, const char *const *paths, size_t n);
/* "-" (stdin) at most once among `paths`; else the usage error. */
int gs_cli_stdin_once(const struct gs_cli_usage *u, const char *const *paths, size_t n);
/*
 * The inputs of a command that reads a job (analyze, export, one side of
 * diff): the `n` TRACE operands (each a trace, '-' or a directory of
 * traces) and the paths --inputs `list` holds (NULL: none), expanded into
 * *l (gs_input_list_*: in order, operands first). A directory's warning
 * goes to stderr unless `quiet`. The same trace given twice is refused,
 * and '-' twice (the list read from stdin counts as one). On failure
 * prints the error (or usage error) and returns its exit status; *l is
 * then empty.
 */
int gs_cli_inputs(const struct gs_cli_usage *u, const char *const *operands, size_t n,
		  const char *list, bool quiet, struct gs_input_list *l);

#endif /* GS_CLI_H */
