/* SPDX-License-Identifier: MIT */
/*
 * The terminal side of the command line (term.c): whether to colour text,
 * and the progress line shown on stderr while a long step runs.
 */
#ifndef GS_CLI_TERM_H
#define GS_CLI_TERM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/error.h>

/* --color[=WHEN] */
enum gs_color_mode {
	GS_COLOR_AUTO = 0, /* the default */
	GS_COLOR_ALWAYS,
	GS_COLOR_NEVER,
};

/* WHEN of --color[=WHEN]: auto, always or never; NULL (a bare --color)
 * means always. False for anything else. */
bool gs_color_parse(const char *when, enum gs_color_mode *out);

/*
 * Whether to colour text written to `f`: never and always are obeyed
 * (always wins over NO_COLOR, as no-color.org asks of an explicit option);
 * auto colours only a terminal (f NULL: a file, never), and not when
 * NO_COLOR is set and not empty or TERM is "dumb".
 */
bool gs_color_want(enum gs_color_mode mode, FILE *f);

/*
 * The progress line: "gpuscope: loading run.json.gz: 1245184 records, 3.1 s",
 * drawn on stderr and redrawn in place a few times a second by a helper
 * thread, once a step has run for a second (GPUSCOPE_PROGRESS_DELAY_MS
 * changes that, for tests), and erased when the step ends. Only when
 * gs_progress_setup enabled it: not --quiet, stderr a terminal, TERM not
 * "dumb". Otherwise every call does nothing.
 */
void gs_progress_setup(bool quiet);
/* A step starts: its label (printf format). Ends the previous one. */
void gs_progress_begin(const char *fmt, ...) GS_PRINTF(1, 2);
/* Records read so far in this step (a gs_load_options.progress callback;
 * `user` is unused). */
void gs_progress_records(void *user, uint64_t records);
/* The step is over: erase the line, stop the helper thread. */
void gs_progress_end(void);
/* Erase the line now, if drawn (before writing anything else to stderr). */
void gs_progress_clear(void);

#endif /* GS_CLI_TERM_H */
