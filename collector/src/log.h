/* SPDX-License-Identifier: MIT */
/*
 * The collector's only output channel: short lines on stderr (fd 2), written
 * with one write(2) each, never on stdout. GPUSCOPE_LOG picks the level:
 * quiet (nothing), warn (the default: one line when the collector disables
 * itself, and real problems), debug (what it does, for bug reports).
 */
#ifndef GS_COLLECTOR_LOG_H
#define GS_COLLECTOR_LOG_H

#include <gpuscope/error.h>

#include <stdbool.h>

enum gs_log_level {
	GS_LOG_QUIET = 0,
	GS_LOG_WARN = 1,
	GS_LOG_DEBUG = 2,
};

void gs_log_set_level(int level);
int gs_log_get_level(void);

/* "gpuscope: warning: MSG" at level warn and above. */
void gs_log_warn(const char *fmt, ...) GS_PRINTF(1, 2);
/* "gpuscope: debug: [pid] MSG" at level debug. */
void gs_log_debug(const char *fmt, ...) GS_PRINTF(1, 2);
/*
 * "gpuscope: collector disabled: MSG", at most once per process whatever
 * the number of callers (the first wins), and "disabled PID MSG" in the
 * status file. Returns true when this call printed (or would have printed
 * at level quiet).
 */
bool gs_log_disabled(const char *fmt, ...) GS_PRINTF(1, 2);
/* Forget that the disabled line was printed (a forked child is a new process). */
void gs_log_reset_once(void);

/* The status file ("" or NULL: none). Set once, at setup, before any thread. */
void gs_log_set_status_file(const char *path);
/*
 * Append "MSG\n" to the status file with one write(2) on an O_APPEND
 * descriptor, so that lines of several processes never mix. The file is
 * never created (it is record's): nothing happens when it is missing, not
 * a regular file, or none was set.
 */
void gs_log_status(const char *fmt, ...) GS_PRINTF(1, 2);

#endif
