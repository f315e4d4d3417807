/* SPDX-License-Identifier: MIT */
/*
 * Hand-written Kineto traces for the tests of the report, the diff and the
 * HTML: the events (times in µs, as Kineto writes them) and the trace they
 * load into. Header-only (static functions). Each test keeps its own HEAD
 * (which devices) and KERNEL (with or without launch geometry).
 */
#ifndef GS_TEST_TRACE_BUILD_H
#define GS_TEST_TRACE_BUILD_H

#include <gpuscope/format.h>
#include <gpuscope/import.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAIL "]}\n"

/* A runtime call of the host thread 100 of process 100. */
#define RT(name, ts, dur, corr)                                                                    \
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"" name "\", \"pid\": 100, "        \
	"\"tid\": 100, \"ts\": " #ts ", \"dur\": " #dur ", \"args\": {\"correlation\": " #corr     \
	"}}"
/* A 1 MiB copy on device 0. */
#define COPY(name, stream, ts, dur, corr)                                                          \
	"{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"" name                               \
	"\", \"pid\": 0, \"tid\": " #stream ", \"ts\": " #ts ", \"dur\": " #dur                    \
	", \"args\": {\"device\": 0, \"context\": 1, "                                             \
	"\"stream\": " #stream ", \"correlation\": " #corr ", \"bytes\": 1048576}}"
/* A stream of device 0 waiting on the event recorded on another (Kineto's
 * Stream Wait Event, joined on the cudaEventRecord's correlation). */
#define WAIT(stream, on, record, ts, corr)                                                         \
	"{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"pid\": 0, "    \
	"\"tid\": " #stream ", \"ts\": " #ts ", \"dur\": 1, \"args\": {\"cuda_sync_kind\": "       \
	"\"Stream Wait Event\", \"wait_on_stream\": " #on                                          \
	", \"wait_on_cuda_event_record_corr_id\": " #record ", \"stream\": " #stream               \
	", \"correlation\": " #corr ", \"device\": 0, \"context\": 1}}"

/* Kineto JSON text written piece by piece (js_add: printf-like). */
struct js {
	char *p;
	size_t n, cap;
};

static inline void js_add(struct js *j, const char *fmt, ...) GS_PRINTF(2, 3);

static inline void js_add(struct js *j, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert_true(len >= 0);
	if (j->n + (size_t)len + 1 > j->cap) {
		j->cap = (j->n + (size_t)len + 1) * 2;
		j->p = realloc(j->p, j->cap);
		assert_non_null(j->p);
	}
	va_start(ap, fmt);
	vsnprintf(j->p + j->n, j->cap - j->n, fmt, ap);
	va_end(ap);
	j->n += (size_t)len;
}

/* Import the Kineto JSON `json` into `t` as the input `name`. */
static inline void load_into(struct gs_trace *t, const char *json, const char *name)
{
	assert_int_equal(gs_import_kineto_mem(json, strlen(json), name, NULL,
					      gs_trace_borrow_sink(t)),
			 GS_OK);
}

/* The finished trace of one Kineto JSON input, "test.json". */
static inline struct gs_trace *trace_of(const char *json)
{
	struct gs_trace *t = NULL;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	load_into(t, json, "test.json");
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

#endif /* GS_TEST_TRACE_BUILD_H */
