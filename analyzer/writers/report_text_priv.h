/* SPDX-License-Identifier: MIT */
/*
 * What the two parts of the analyze report as text share: report_text.c
 * (the writer's primitives: colour, columns, units, wrapping; the header,
 * notes, breakdown, findings, a device, a job) and report_text_tables.c
 * (a device's tables).
 */
#ifndef GS_REPORT_TEXT_PRIV_H
#define GS_REPORT_TEXT_PRIV_H

#include <gpuscope/outbuf.h>
#include <gpuscope/report_phrases.h>

#include "report_write_priv.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WIDTH 100
#define BAR 60

struct text_writer {
	struct gs_outbuf o;
	const struct gs_report *r;
	const struct gs_trace *t;
	struct gs_report_style st; /* resolved (gs_report_style_of) */
	uint64_t unit; /* of every duration on the line being written; 0: each its own */
};

enum tone {
	T_BOLD,
	T_DIM,
	T_KERNEL,
	T_COPY,
	T_SYNC,
	T_IDLE,
};

#define DUR(ns) text_dur(w, (char[48]){0}, 48, (ns))

#define LINE_UNIT(w, ...)                                                                          \
	text_unit((w), (const int64_t[]){__VA_ARGS__},                                             \
		  sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define PCT(a, b) gs_report_pct((char[32]){0}, 32, (a), (b))
#define U64(v) text_u64s((char[32]){0}, 32, (uint64_t)(v))

/* report_text.c */
size_t text_fit(char *buf, size_t size, const char *s, size_t cols);
void text_spaces(struct text_writer *w, size_t n);
void text_cell(struct text_writer *w, const char *s, size_t cols, bool right);
void text_last(struct text_writer *w, const char *s, size_t cols);
const char *text_dur(const struct text_writer *w, char *buf, size_t size, int64_t ns);
void text_unit(struct text_writer *w, const int64_t *v, size_t n);
const char *text_u64s(char *buf, size_t size, uint64_t v);
void text_wrap(struct text_writer *w, const char *first, size_t col0, const char *s, size_t indent);
void text_section(struct text_writer *w, const char *title);
const char *text_op_label(const struct gs_trace *t, uint32_t op, char *buf, size_t size);
void text_cut(struct text_writer *w, size_t shown, size_t listed, size_t count);
void text_more(struct text_writer *w, size_t shown, size_t listed, size_t count);

/* report_text_tables.c */
void gs_report_text_schedule(struct text_writer *w, const struct gs_report_device *d);
void gs_report_text_waits(struct text_writer *w, const struct gs_report_device *d);
void gs_report_text_missed(struct text_writer *w, const struct gs_report_device *d);
void gs_report_text_sync(struct text_writer *w, const struct gs_report_device *d);
void gs_report_text_idle(struct text_writer *w, const struct gs_report_device *d);
void gs_report_text_candidates(struct text_writer *w, const struct gs_report_device *d);
void gs_report_text_streams(struct text_writer *w, const struct gs_report_device *d);
void gs_report_text_kernels(struct text_writer *w, const struct gs_report_device *d);
void gs_report_text_steps(struct text_writer *w, const struct gs_report_device *d);

#endif
