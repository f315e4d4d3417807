/* SPDX-License-Identifier: MIT */
/*
 * Private to gs_import: a sink that forwards every record to `next` and
 * calls a progress callback now and then (gs_load_options.progress).
 */
#ifndef GS_PROGRESS_SINK_H
#define GS_PROGRESS_SINK_H

#include <gpuscope/import.h>

/* Records between two calls of the callback. */
#define GS_PROGRESS_EVERY 65536

struct gs_progress_sink {
	struct gs_sink sink;
	struct gs_sink *next;
	void (*progress)(void *user, uint64_t records);
	void *user;
	uint64_t records;
	uint64_t next_call;
};

/* Forward to `next`; call `progress` (not NULL) every GS_PROGRESS_EVERY
 * timed records (ops, API calls, syncs, ...), with the count so far. */
void gs_progress_sink_init(struct gs_progress_sink *ps, struct gs_sink *next,
			   void (*progress)(void *user, uint64_t records), void *user);

#endif
