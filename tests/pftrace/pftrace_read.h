/* SPDX-License-Identifier: MIT */
/*
 * A reader of Perfetto protobuf traces for the tests (and the fuzz
 * targets): decodes a file packet by packet with protobuf-c code generated
 * from formats/proto/perfetto_trace.proto, resolves what a trace processor
 * resolves (interned names per sequence, default tracks, incremental and
 * absolute clocks), and checks that the stream is valid:
 *   - every packet decodes and has a sequence id (a packet of
 *     compressed_packets, zlib-deflated packets as trace_processor inflates
 *     them, holds nothing else and stands for the packets it inflates to,
 *     none of them compressed again); the first packet of a
 *     sequence clears its incremental state; every interned id used was
 *     defined earlier on its sequence;
 *   - every track is described once (unique uuid, a parent described
 *     before it, a process pid in 1 .. 2^31 - 1 and unique), and every
 *     event is on a described track: slices on non-counter tracks, counter
 *     values on counter tracks;
 *   - times: a sequence's incremental clock is anchored by a clock snapshot
 *     before its first timed packet; every time is >= 0;
 *   - on each track, the events sorted by time (equal times in file order,
 *     as trace_processor sorts them) form properly nested slices: an end
 *     closes the innermost open slice, nothing stays open;
 *   - each flow id is the source (flow_ids) of exactly one slice begin and
 *     the destination (terminating_flow_ids) of exactly one other.
 * What it decodes (tracks, slices with their names, categories and args,
 * flows, counter values) is kept for comparisons when asked.
 */
#ifndef GS_TESTS_PFTRACE_READ_H
#define GS_TESTS_PFTRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pf_track {
	uint64_t uuid, parent; /* parent 0: none */
	char *name;            /* the track's, or the process name */
	bool is_process, is_counter;
	int32_t pid;   /* a process track's */
	char *labels;  /* a process track's labels, ", "-joined */
	int32_t order; /* sibling_order_rank / legacy_sort_index */
};

struct pf_slice {
	uint64_t track;
	int64_t ts, end;
	char *cat, *name;
	char *args;   /* "key=value" in written order, joined by "; " */
	size_t order; /* file order of its begin */
};

struct pf_flow {
	uint64_t id;
	size_t src, dst; /* slice indices (SIZE_MAX: none) */
};

struct pf_counter {
	uint64_t track;
	int64_t ts;
	int64_t value;
};

struct pf_trace {
	struct pf_track *tracks;
	size_t n_tracks;
	struct pf_slice *slices; /* in the order of their begins in the file */
	size_t n_slices;
	struct pf_flow *flows;
	size_t n_flows;
	struct pf_counter *counters; /* in file order */
	size_t n_counters;
	size_t n_packets, n_sequences; /* packets: the inflated ones */
	size_t n_compressed;           /* packets of compressed_packets */
};

/* What pf_read keeps of the slices: times and tracks always; names,
 * categories and args of every slice, of op slices only (kernel,
 * gpu_memcpy, gpu_memset: for traces of millions of ops), or of none. */
enum pf_keep {
	PF_KEEP_NONE,
	PF_KEEP_OPS,
	PF_KEEP_ALL
};

/*
 * Decodes and checks buf[0, len). Returns 0 when valid (*t filled), -1
 * otherwise with the first problem in err. pf_trace_free either way.
 */
int pf_read(const uint8_t *buf, size_t len, enum pf_keep keep, struct pf_trace *t, char *err,
	    size_t err_size);
void pf_trace_free(struct pf_trace *t);

/* The track with `uuid` (NULL: none). */
const struct pf_track *pf_track_find(const struct pf_trace *t, uint64_t uuid);

#endif /* GS_TESTS_PFTRACE_READ_H */
