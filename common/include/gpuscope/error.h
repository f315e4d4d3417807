/* SPDX-License-Identifier: MIT */
/*
 * Status codes and error causes (target gs_common), shared by every
 * library of gpuscope: a function returns a gs_status and, on failure,
 * appends the innermost cause; callers append context as the error travels
 * up; only the command line prints.
 */
#ifndef GPUSCOPE_ERROR_H
#define GPUSCOPE_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gs_status {
	GS_OK = 0,
	GS_END = 1,              /* no more data: not an error */
	GS_ERR_IO = -1,          /* open/read/write failed (errno in the cause) */
	GS_ERR_NOMEM = -2,       /* allocation failed */
	GS_ERR_FORMAT = -3,      /* the input is malformed */
	GS_ERR_VERSION = -4,     /* the input needs a newer reader */
	GS_ERR_LIMIT = -5,       /* a configured limit was hit */
	GS_ERR_INVALID = -6,     /* bad argument from the caller */
	GS_ERR_UNSUPPORTED = -7, /* recognised but not handled */
} gs_status;

/* Short name of a status ("I/O error", "malformed input", ...). */
const char *gs_status_str(gs_status st);

/*
 * Error causes: a small thread-local stack. The function that detects a
 * failure appends the innermost cause; callers may append context. The
 * command line prints the message of the outermost cause first.
 */
#define GS_ERROR_MAX_CAUSES 8
#define GS_ERROR_MSG_MAX 512

#if defined(__GNUC__)
#define GS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GS_PRINTF(a, b)
#endif

void gs_error_clear(void);
/* Drop the causes appended after the first `count` (a checkpoint taken with
 * gs_error_count()). */
void gs_error_truncate(int count);
void gs_error_append_at(const char *file, int line, const char *fmt, ...) GS_PRINTF(3, 4);
#define gs_error_append(...) gs_error_append_at(__FILE__, __LINE__, __VA_ARGS__)
/* Number of causes recorded (0 when none). Index 0 is the innermost. */
int gs_error_count(void);
const char *gs_error_message(int index);
/*
 * The whole chain on one line, outermost first, joined with ": "
 * ("run.gscope: chunk 12: CRC mismatch"). Returns buf.
 */
const char *gs_error_format(char *buf, size_t size);

/* Append "out of memory" (with the caller's place) and give GS_ERR_NOMEM:
 * the one way every library reports a failed allocation. A macro, so that
 * the compiler sees the status is an error at every call. */
#define gs_nomem() (gs_error_append("out of memory"), GS_ERR_NOMEM)

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_ERROR_H */
