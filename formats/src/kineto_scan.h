/* SPDX-License-Identifier: MIT */
/*
 * Private to the Kineto importer: the JSON scanner (kineto_scan.c) that
 * kineto.c's document walk and event code read their input through.
 */
#ifndef GS_IMPORT_KINETO_SCAN_H
#define GS_IMPORT_KINETO_SCAN_H

#include <gpuscope/error.h>
#include <gpuscope/import.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KIN_READ_CHUNK (256u << 10)

struct gs_gzin;

/* The input and the scanner's buffers; zeroed, then name, lim and in set,
 * and buf allocated with cap bytes. */
struct kin_scan {
	const char *name;
	const struct gs_import_limits *lim; /* resolved: no zero fields */
	struct gs_gzin *in;

	/* Byte window: buf[0..len) holds input bytes base .. base + len. */
	char *buf;
	size_t cap, len, pos;
	uint64_t base;
	bool eof;
	uint8_t *stack; /* bracket kinds inside the value being scanned */
	size_t stack_cap;
	char *scratch[2]; /* unescaped strings, sanitised args */
	size_t scratch_cap[2];
};

/* The value text of one member found by the member scanner. */
struct kin_span {
	const char *p;
	size_t n;
};

enum kin_time {
	KT_OK,
	KT_NOT_NUMBER,
	KT_RANGE,
};

/* The input offset of buf[pos]. */
uint64_t kin_here(const struct kin_scan *k);
/* "<name>: byte <off>: <what>", GS_ERR_FORMAT. */
gs_status kin_format_error(struct kin_scan *k, uint64_t off, const char *what);

bool kin_find_members(const char *p, size_t n, const char *const *keys, size_t nkeys,
		      struct kin_span *out);
bool kin_span_is_string(const struct kin_span *s);
bool kin_span_string(struct kin_scan *k, const struct kin_span *s, int slot, const char **out,
		     size_t *len, gs_status *rc);
bool kin_span_equals(const struct kin_span *s, const char *lit);
bool kin_parse_int_text(const char *p, size_t n, int64_t *v);
bool kin_span_int(const struct kin_span *s, int64_t *v);
bool kin_span_stream_tid(const struct kin_span *s, int64_t *v);
enum kin_time kin_us_text_to_ns(const char *p, size_t n, int64_t *ns);
bool kin_sanitise_nonfinite(struct kin_scan *k, const char *p, size_t n, size_t *out_n,
			    gs_status *rc);

gs_status kin_peek(struct kin_scan *k, int *c);
gs_status kin_scan_value(struct kin_scan *k, uint32_t depth, bool capture, size_t *start);

#endif
