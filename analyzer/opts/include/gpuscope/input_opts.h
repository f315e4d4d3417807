/* SPDX-License-Identifier: MIT */
/*
 * gpuscope/input_opts.h: the trace-input options: what a command reads and which part of it
 * (--rank, --device, --window, --step, --step-marker, --align, --salvage,
 * -q/--quiet, --inputs and the TRACE|DIR operands), parsed by one function
 * for `gpuscope analyze`, `export`, `diff` and gpuscope-mpi. Each front end
 * says which of them it takes (a mask of GS_INOPT_*): the others are not in
 * its getopt_long table, so that they stay unknown options (or the front
 * end's own refusal) as before. Errors are the front end's usage errors:
 * the parser formats nothing itself and hands the message's format and
 * arguments to the front end's `usage` callback.
 *
 * Its own folder and layer `opts` (docs/design.md, Layers): below the
 * command line (analyzer/cli) and gpuscope-mpi (analyzer/mpi), peers that
 * include neither each other, above the analyses whose types it fills.
 */
#ifndef GPUSCOPE_INPUT_OPTS_H
#define GPUSCOPE_INPUT_OPTS_H

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/steps.h>
#include <gpuscope/window.h>

/* Which options a front end takes. */
enum gs_inopt_flags {
	GS_INOPT_RANK = 1u << 0,        /* --rank R */
	GS_INOPT_DEVICE = 1u << 1,      /* --device [R:]N (agreeing with --rank) */
	GS_INOPT_WINDOW = 1u << 2,      /* --window T0:T1, times with units */
	GS_INOPT_WINDOW_NS = 1u << 3,   /* --window T0:T1 in ns only (gpuscope-mpi) */
	GS_INOPT_STEP = 1u << 4,        /* --step N|A:B|all|none */
	GS_INOPT_STEP_MARKER = 1u << 5, /* --step-marker REGEX */
	GS_INOPT_ALIGN = 1u << 6,       /* --align collectives|none */
	GS_INOPT_SALVAGE = 1u << 7,     /* --salvage */
	GS_INOPT_QUIET = 1u << 8,       /* -q, --quiet (the front end's optstring has q) */
	GS_INOPT_INPUTS = 1u << 9,      /* --inputs FILE */
	/* --inputs: not '-' either (gpuscope-mpi reads no standard input). */
	GS_INOPT_INPUTS_NO_STDIN = 1u << 10,
	/* gs_input_opts_finish: no TRACE and no --inputs is "no TRACE given". */
	GS_INOPT_OPERANDS = 1u << 11,
};

/* getopt_long's values for the options above ('q' for -q/--quiet): above
 * any character, so that they never meet a front end's own. */
enum {
	GS_INOPT_C_RANK = 0x100,
	GS_INOPT_C_DEVICE,
	GS_INOPT_C_WINDOW,
	GS_INOPT_C_STEP,
	GS_INOPT_C_STEP_MARKER,
	GS_INOPT_C_ALIGN,
	GS_INOPT_C_SALVAGE,
	GS_INOPT_C_INPUTS,
	GS_INOPT_C_LAST = GS_INOPT_C_INPUTS,
};

struct gs_input_opts {
	bool salvage;
	bool quiet;
	bool has_rank;
	uint32_t rank;
	bool has_device;
	uint32_t device;
	struct gs_window window;
	bool window_relative;
	const char *window_arg; /* as written, for an error */
	struct gs_step_options steps;
	bool has_step;
	int align;               /* enum gs_report_align */
	const char *inputs_file; /* --inputs */
	char **operands;         /* the TRACE|DIR arguments (after finish) */
	size_t n_operands;
};

/* How the parser reports a usage error: `usage` prints it (the front end's
 * own way) and returns the exit status to return. */
struct gs_input_opts_ui {
	int (*usage)(const void *ctx, const char *fmt, va_list ap);
	const void *ctx;
};

/* The table of the options in `flags` then the front end's own (`own`, up
 * to its {NULL} entry), into `out` with its {NULL} entry. Returns false
 * when `cap` entries are too few. */
bool gs_input_opts_table(unsigned flags, const struct option *own, struct option *out, size_t cap);

/* Whether getopt_long's value `c` is one of the options in `flags`. */
bool gs_input_opts_takes(unsigned flags, int c);

/*
 * getopt_long's value `c` (one that gs_input_opts_takes) and its argument
 * `arg` into *o. Returns 0, or the usage error's exit status (reported).
 */
int gs_input_opts_parse(struct gs_input_opts *o, unsigned flags, const struct gs_input_opts_ui *ui,
			int c, const char *arg);

/*
 * After getopt_long returned -1: the operands (argv + optind), and the
 * checks over several options (with GS_INOPT_OPERANDS: a TRACE or
 * --inputs; with GS_INOPT_STEP: not both --step and --window). Returns 0
 * or the usage error's exit status.
 */
int gs_input_opts_finish(struct gs_input_opts *o, unsigned flags, const struct gs_input_opts_ui *ui,
			 int argc, char **argv, int optind_now);

#endif /* GPUSCOPE_INPUT_OPTS_H */
