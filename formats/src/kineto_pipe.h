/* SPDX-License-Identifier: MIT */
/*
 * Private to the Kineto importer: the document walk (kineto.c) hands what
 * it finds to the event code as items, in order. On one CPU each item is
 * handled as soon as it is written; on two or more the walk (the scanner)
 * runs on a second thread and the items go over in batches to the thread
 * that builds the model, the scanner's buffer handed over in pieces
 * instead of moved, so the bytes an item points to stay where they are
 * until it is handled. The items, their order and every error and its
 * place are the same either way.
 */
#ifndef GS_IMPORT_KINETO_PIPE_H
#define GS_IMPORT_KINETO_PIPE_H

#include "kineto_scan.h"

enum kin_item_type {
	KIN_ITEM_EVENT,      /* an element of traceEvents that is an object */
	KIN_ITEM_NOT_OBJECT, /* one that is not */
	KIN_ITEM_TOP,        /* a top-level member's value the importer reads */
	KIN_ITEM_EVENTS,     /* traceEvents begins */
};

struct kin_item {
	uint8_t type;
	int top;              /* KIN_ITEM_TOP: which member (kineto.c) */
	uint64_t off;         /* the input offset the item is reported at */
	struct kin_span text; /* KIN_ITEM_TOP: the value's text */
	struct kin_event ev;  /* KIN_ITEM_EVENT */
};

typedef gs_status (*kin_walk_fn)(void *ctx);
typedef gs_status (*kin_handle_fn)(void *ctx, struct kin_item *item);

/* Where the walk writes its next item. */
struct kin_item *kin_item_next(struct kin_scan *k);
/* The item from kin_item_next is written: handled now (one thread) or
 * queued. An error stops the walk. */
gs_status kin_item_put(struct kin_scan *k);

/*
 * Run walk(ctx), which reads k and writes items, and handle(ctx, item) on
 * each item in order: the walk on a second thread when there is a CPU for
 * it and the input is large plain JSON (GPUSCOPE_TEST_SCAN_THREAD=off:
 * never, =on: whatever the input). Returns the first error in the order the items and
 * the walk's end come, with its causes on this thread.
 */
gs_status kin_pipe_run(struct kin_scan *k, kin_walk_fn walk, kin_handle_fn handle, void *ctx);

/* kin_fill's buffer, when the walk runs on its own thread: the bytes
 * [keep, len) into a fresh buffer of capacity `cap`, the old one kept
 * until the items written so far are handled. */
gs_status kin_pipe_move(struct kin_scan *k, size_t keep, size_t cap);

/* For tests: the walk on its own thread (true: whatever the input's size)
 * or not, for imports started from now on (overrides the environment). */
void kin_pipe_test_threads(bool on);

#endif
