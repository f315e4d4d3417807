/* SPDX-License-Identifier: MIT */
/*
 * Private to the Kineto importer: the JSON scanner (kineto_scan.c) that
 * kineto.c's document walk and event code read their input through.
 *
 * An element of traceEvents is cut out and its members found in one pass
 * over positions taken from 64-byte character masks (kineto_blocks.h);
 * anything that pass does not take on (an event the buffer does not hold
 * whole, a limit reached, a bracket that does not match, a backslash
 * outside a string) is read again by the byte-at-a-time code, which says
 * what is wrong and where exactly as it always did.
 */
#ifndef GS_IMPORT_KINETO_SCAN_H
#define GS_IMPORT_KINETO_SCAN_H

#include "kineto_blocks.h"

#include <gpuscope/error.h>
#include <gpuscope/import.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KIN_READ_CHUNK (256u << 10)

struct gs_gzin;
struct kin_item;
struct kin_pipe;

/* Where the block scan stands in the buffer (kineto_scan.c). */
struct kin_cursor {
	size_t base;     /* buffer offset of the current block's first byte */
	uint64_t tok;    /* positions of the current block not yet taken */
	uint64_t in_str; /* all ones: the next block starts inside a string */
	uint64_t sc;     /* 1: the current block ends with a scalar byte */
	uint64_t weird;  /* bytes of the current block: backslash, control */
	bool esc;        /* the next block's first byte is escaped */
	bool live;       /* false: start again at the next event */
	bool any_weird;  /* a block since the mark had such a byte */
};

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
	struct kin_cursor cur;
	void (*classify)(const char *p, struct kin_block *b);
	/* kineto_pipe.c: the walk's thread and queue (NULL: one thread), the
	 * item being written on one thread, and what handles items. */
	struct kin_pipe *pipe;
	struct kin_item *one;
	gs_status (*handle)(void *ctx, struct kin_item *item);
	void *ctx;
};

/* The value text of one member found by the member scanner. */
struct kin_span {
	const char *p;
	size_t n;
};

/* The members of an event the importer reads, in the order of kin_ev_keys. */
enum {
	EV_PH,
	EV_CAT,
	EV_NAME,
	EV_TS,
	EV_DUR,
	EV_PID,
	EV_TID,
	EV_ARGS,
	EV_COUNT
};

extern const char *const kin_ev_keys[EV_COUNT];

/* What a member of args holds (KA_OTHER: an object, or an array that is
 * not only numbers). */
enum kin_arg_type {
	KA_STRING,
	KA_NUMBER,
	KA_TRUE,
	KA_FALSE,
	KA_NULL,
	KA_ARRAY, /* of numbers */
	KA_OTHER,
};

/* A member of an event's args: its name and value as written (strings
 * with their quotes). */
struct kin_member {
	const char *key;
	const char *val;
	uint32_t klen, vlen;
	uint8_t type; /* enum kin_arg_type */
};

/* How much of args the scanner read. */
enum kin_args_state {
	KIN_ARGS_UNREAD,  /* not looked at: read the text */
	KIN_ARGS_MEMBERS, /* members[] is what kin_find_members finds */
	KIN_ARGS_JSON,    /* and cJSON would read the same object: every value a
			     string without escapes, a number, true, false, null
			     or an array of numbers, no control byte */
};

#define KIN_ARGS_MAX 32

/* One element of traceEvents that is an object. */
struct kin_event {
	const char *p; /* its text */
	size_t n;
	bool members_ok; /* f[] found (else the text is no object) */
	uint8_t args_state;
	uint32_t nargs;
	struct kin_span f[EV_COUNT];
	int64_t start, end; /* kineto.c: the times, once read */
	struct kin_member args[KIN_ARGS_MAX];
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
/*
 * The object at k->pos (its '{'), an element of an array at nesting
 * `depth`: as kin_scan_value with capture, then its members found
 * (ev->members_ok false when kin_find_members would not find them). The
 * same limits and errors as kin_scan_value.
 */
gs_status kin_scan_event(struct kin_scan *k, uint32_t depth, struct kin_event *ev);
/* kin_find_members over the event's args (which must be present). */
bool kin_event_args_members(const struct kin_event *ev, const char *const *keys, size_t nkeys,
			    struct kin_span *out);
/* The first member of args named key[0 .. klen), when args_state is
 * KIN_ARGS_JSON; NULL when there is none. */
const struct kin_member *kin_event_arg(const struct kin_event *ev, const char *key, size_t klen);
/* A KA_NUMBER value as cJSON reads it (strtod of the text). */
double kin_number_value(const char *p, size_t n);

#endif
