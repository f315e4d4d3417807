/* SPDX-License-Identifier: MIT */
/*
 * Internal: a FILE wrapper for the analyzer's writers. The first failed
 * write records its errno; later writes are skipped, and gs_out_finish
 * turns the failure into a gs_status with a cause.
 */
#ifndef GS_ANALYZER_OUT_H
#define GS_ANALYZER_OUT_H

#include <stdio.h>

#include <gpuscope/format.h>

struct gs_out {
	FILE *f;
	int err; /* errno of the first failed write; 0 while all is well */
	bool failed;
};

/*
 * Text for people from a string of the trace (a name, a warning): one
 * character of `p` as it prints. A control character (C0, DEL, C1) or a
 * byte that is not UTF-8 becomes its escape, "\x1b" or "\u009b", so that
 * a trace can neither move the cursor nor start a line of its own. Writes
 * it to buf (at least GS_OUT_CHAR_MAX bytes, no NUL) and returns its
 * length in bytes; *cols: the columns it takes (one per code point, the
 * escape's length), *adv: the bytes of `p` it stands for.
 */
#define GS_OUT_CHAR_MAX 8
size_t gs_out_text_char(const unsigned char *p, char *buf, size_t *cols, size_t *adv);
/* Columns of `s` printed by gs_out_text. */
size_t gs_out_text_cols(const char *s);

void gs_out_init(struct gs_out *o, FILE *f);
void gs_out_printf(struct gs_out *o, const char *fmt, ...) GS_PRINTF(2, 3);
void gs_out_puts(struct gs_out *o, const char *s);
void gs_out_putc(struct gs_out *o, int c);
/* `s` between double quotes; '"', '\\', control characters and bytes that
 * are not UTF-8 as C escapes (C1 as "\u0080".."\u009f"). */
void gs_out_quoted(struct gs_out *o, const char *s);
/* `s` (a string of the trace) as text, each character as gs_out_text_char. */
void gs_out_text(struct gs_out *o, const char *s);
/* `s` as a JSON string (gs_json_escape, DEL escaped too). */
void gs_out_json_string(struct gs_out *o, const char *s);
/* gs_dur_text: "830 ns", "12.345 us", "1.500 ms", "2.000 s". */
void gs_out_duration(struct gs_out *o, int64_t ns);
/* GS_OK, or GS_ERR_IO with a cause when any write failed. */
gs_status gs_out_finish(struct gs_out *o);

#endif /* GS_ANALYZER_OUT_H */
