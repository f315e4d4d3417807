/* SPDX-License-Identifier: MIT */
/*
 * The writer thread: completed CUPTI buffers and data-dependency
 * observations are queued (O(1), under a mutex held for a few stores, no
 * I/O), then converted and appended to the .gscope file by one thread,
 * which alone touches the writer, the converter and the allocation table.
 *
 * The file is created lazily, when the first record arrives: a process that
 * makes no CUDA calls writes nothing. It is opened with O_EXCL|O_NOFOLLOW:
 * an existing file or a symbolic link is never overwritten or followed.
 * When the pattern has %p and the name is taken (an exec'd program keeps
 * its pid), ".1", ".2", ... are tried after the pid.
 *
 * A write error (a full disk) disables collection; from then on the records
 * that cannot reach the file are counted, and at the close the file is cut
 * back to its last whole chunk and ended with that count as dropped records
 * and a warning (gs_writer_close_lost), when the disk has room for it.
 */
#ifndef GS_COLLECTOR_OUTPUT_H
#define GS_COLLECTOR_OUTPUT_H

#include "buffer_pool.h"
#include "config.h"
#include "datadeps.h"

#include <stdbool.h>
#include <stdint.h>

enum gs_out_request {
	GS_OUT_FLUSH = 1u << 0, /* write a chunk (periodic flush) */
	GS_OUT_CLOSE = 1u << 1, /* write the tail, close the file, end the thread */
};

/* Start the writer thread (all signals blocked in it). 0, or -1 with msg. */
int gs_out_start(const struct gs_config *cfg, struct gs_pool *pool, int64_t start_ns, char *msg,
		 size_t size);
/* A completed buffer (from the pool) with `valid` bytes of records. */
void gs_out_push_buffer(uint8_t *buffer, size_t valid);
void gs_out_push_obs(const struct gs_dd_obs *o);
/* A collector overhead interval (the periodic CUPTI flush). */
void gs_out_overhead(int64_t start_ns, int64_t end_ns);
/*
 * Ask for a flush or the close; with `wait`, return when the writer has
 * done it (or after timeout_ms; 0 waits without limit). Returns 0 when
 * done, -1 on timeout or when the writer is not running.
 */
int gs_out_request(unsigned what, bool wait, unsigned timeout_ms);
/* Give a completed buffer back without writing it (collection is off);
 * after a write error its records are counted as lost. */
void gs_out_discard_buffer(uint8_t *buffer, size_t valid);
/* The exit flush did not return within `ms`: say so in the file. */
void gs_out_note_flush_hang(unsigned ms);
/* Join the writer thread after a close request. */
void gs_out_join(void);
/* True once the writer gave up (file not creatable, write error). */
bool gs_out_disabled(void);
/* The path of the file written, "" while none. */
void gs_out_path(char *buf, size_t size);

#endif
