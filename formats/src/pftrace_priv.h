/* SPDX-License-Identifier: MIT */
/*
 * What the parts of the Perfetto writer share: Perfetto's field numbers,
 * the encoder's buffer and the interning map (pftrace_pb.c), the writer's
 * state (struct pftrace_writer), and the functions one part calls in another.
 * pftrace.c: packets, sequences, interning, tracks, slices, entry points;
 * pftrace_rank.c: a rank's tracks and events.
 */
#ifndef GS_PFTRACE_PRIV_H
#define GS_PFTRACE_PRIV_H

#include "export_base.h"
#include "export_plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Field numbers of Perfetto's trace protos. */
enum {
	F_TRACE_PACKET = 1, /* Trace */

	F_PKT_CLOCK_SNAPSHOT = 6, /* TracePacket */
	F_PKT_TIMESTAMP = 8,
	F_PKT_SEQ_ID = 10,
	F_PKT_TRACK_EVENT = 11,
	F_PKT_INTERNED_DATA = 12,
	F_PKT_SEQ_FLAGS = 13,
	F_PKT_COMPRESSED_PACKETS = 50,
	F_PKT_TIMESTAMP_CLOCK_ID = 58,
	F_PKT_DEFAULTS = 59,
	F_PKT_TRACK_DESCRIPTOR = 60,
	F_PKT_FIRST_ON_SEQUENCE = 87,

	F_TE_CATEGORY_IIDS = 3, /* TrackEvent */
	F_TE_DEBUG_ANNOTATIONS = 4,
	F_TE_TYPE = 9,
	F_TE_NAME_IID = 10,
	F_TE_TRACK_UUID = 11,
	F_TE_EXTRA_COUNTER_VALUES = 12,
	F_TE_COUNTER_VALUE = 30,
	F_TE_EXTRA_COUNTER_UUIDS = 31,
	F_TE_FLOW_IDS = 47,
	F_TE_TERMINATING_FLOW_IDS = 48,

	F_DEF_TIMESTAMP_CLOCK_ID = 58, /* TracePacketDefaults */
	F_DEF_TRACK_EVENT = 11,
	F_TED_TRACK_UUID = 11, /* TrackEventDefaults */

	F_CS_CLOCKS = 1, /* ClockSnapshot */
	F_CLK_ID = 1,    /* ClockSnapshot.Clock */
	F_CLK_TIMESTAMP = 2,
	F_CLK_INCREMENTAL = 3,

	F_DA_NAME_IID = 1, /* DebugAnnotation */
	F_DA_UINT = 3,
	F_DA_INT = 4,
	F_DA_ARRAY = 12,
	F_DA_STRING_IID = 17,

	F_ID_CATEGORIES = 1, /* InternedData */
	F_ID_EVENT_NAMES = 2,
	F_ID_ANNOTATION_NAMES = 3,
	F_ID_ANNOTATION_STRINGS = 29,

	F_IN_IID = 1, /* EventCategory, EventName, DebugAnnotationName, InternedString */
	F_IN_NAME = 2,

	F_TD_UUID = 1, /* TrackDescriptor */
	F_TD_NAME = 2,
	F_TD_PROCESS = 3,
	F_TD_PARENT_UUID = 5,
	F_TD_COUNTER = 8,
	F_TD_CHILD_ORDERING = 11,
	F_TD_SIBLING_ORDER_RANK = 12,

	F_PD_PID = 1, /* ProcessDescriptor */
	F_PD_LEGACY_SORT_INDEX = 3,
	F_PD_PROCESS_NAME = 6,
	F_PD_PROCESS_LABELS = 8,
};

enum {
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_COUNTER = 4
};
enum {
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2
};
enum {
	CHILD_ORDERING_EXPLICIT = 3
};
/* BOOTTIME, the trace clock when none is said; 64: the first of the
 * clocks a sequence defines for itself. */
enum {
	CLOCK_BOOTTIME = 6,
	CLOCK_INCREMENTAL = 64
};
enum {
	WT_VARINT = 0,
	WT_FIXED64 = 1,
	WT_LEN = 2
};

#define PROTO_DEPTH 8

/* A message being encoded; `failed` once an allocation failed (the rest
 * is skipped, the export fails with GS_ERR_NOMEM). */
struct pbuf {
	uint8_t *p;
	size_t len, cap;
	size_t open[PROTO_DEPTH]; /* where each open nested message's length goes */
	int depth;
	bool failed;
};

/* Strings by content -> iid (names that are not the trace's, string
 * values). Open addressing; the strings are copied. */
struct strmap {
	struct strmap_slot {
		char *s;
		uint64_t hash;
		uint64_t iid;
		uint32_t seq; /* the sequence it was last interned on */
	} * slot;
	size_t cap, n;
};

/* Event categories, interned as their index + 1. */
enum cat {
	CAT_KERNEL,
	CAT_MEMCPY,
	CAT_MEMSET,
	CAT_RUNTIME,
	CAT_DRIVER,
	CAT_SYNC,
	CAT_USER_ANNOTATION,
	CAT_CPU_OP,
	CAT_PYTHON_FUNCTION,
	CAT_GPU_ANNOTATION,
	CAT_OVERHEAD,
	CAT_IDEAL,
	CAT_COUNT
};

/* Packets are gathered up to this many bytes, then written deflated as
 * one TracePacket.compressed_packets. */
#define PFTRACE_CHUNK (1u << 20)

struct pftrace_writer {
	struct gs_outbuf w;
	uint8_t *chunk; /* packets not yet compressed */
	size_t chunk_len, chunk_cap;
	uint8_t *zbuf; /* their deflated bytes */
	size_t zbuf_cap;
	struct pbuf pkt;    /* the packet being written */
	struct pbuf intern; /* its InternedData, appended when not empty */
	gs_status rc;       /* first failure other than a write */
	uint64_t next_uuid;
	int64_t time_offset; /* added to every time written */
	/* The packet sequence being written (each track's events are one);
	 * with its incremental clock once a timed packet was written. */
	uint32_t seq, next_seq;
	bool seq_fresh; /* its first packet not written yet */
	bool clock_set; /* its clock snapshot is written */
	uint64_t last_ts;
	uint64_t seq_track; /* its default track (0: none) */

	/* Per rank. */
	const struct xplan *c;
	uint64_t flow_base;   /* flow ids of the rank: flow_base + 1 .. */
	uint32_t *name_seq;   /* per string of the trace: the sequence it was
			       * interned on last (0: none) */
	uint32_t cats_done;   /* bit per category, on this sequence */
	uint64_t keys_done;   /* bit per enum xkey, on this sequence */
	struct strmap names;  /* other event names; iids after the strings' */
	struct strmap values; /* debug annotation string values */
	uint64_t next_name_iid, next_value_iid;
	uint32_t *out_first, *out_edges; /* written edges by source op (CSR) */
	uint32_t *in_first, *in_edges;   /* written edges by destination op */
	uint32_t *order;                 /* scratch: events of one track */
	size_t order_cap;
	int64_t *stack; /* scratch: open ends of one track */
	size_t stack_cap;
	const int64_t *pids; /* per process of the plan: its pid here */
};

/* pftrace.c */
enum cat pftrace_range_cat(const struct gs_range *r);
void pftrace_fail(struct pftrace_writer *f, gs_status rc);
void pftrace_seq_begin(struct pftrace_writer *f, uint64_t track);
void pftrace_pkt_begin_at(struct pftrace_writer *f, uint32_t flags, int64_t ns);
void pftrace_event_track(struct pftrace_writer *f, uint64_t track);
void pftrace_pkt_end(struct pftrace_writer *f);
void pftrace_da_u64(void *ctx, enum xkey k, uint64_t v);
void pftrace_da_i64(void *ctx, enum xkey k, int64_t v);
void pftrace_da_str(void *ctx, enum xkey k, const char *v);
void pftrace_da_dim3(void *ctx, enum xkey k, const uint32_t v[3]);
uint64_t pftrace_track_process(struct pftrace_writer *f, int64_t pid, const struct xproc_names *n);
uint64_t pftrace_track_child(struct pftrace_writer *f, uint64_t parent, const char *name,
			     int64_t rank, bool counter);
uint64_t pftrace_track_lane(struct pftrace_writer *f, uint64_t parent, const char *name,
			    int64_t rank);
void pftrace_slice_begin(struct pftrace_writer *f, uint64_t track, int64_t ts, enum cat cat,
			 uint32_t sid, const char *name);
void pftrace_slice_begin_end(struct pftrace_writer *f);
void pftrace_slice_end(struct pftrace_writer *f, uint64_t track, int64_t ts);
uint64_t pftrace_launch_flow(const struct pftrace_writer *f, uint32_t o);
void pftrace_op_begin(struct pftrace_writer *f, uint64_t track, uint32_t o, int64_t ts, bool ideal);
bool pftrace_by_lane(struct pftrace_writer *f, const uint32_t *items, const uint32_t *lane,
		     size_t n, uint32_t lanes, uint32_t **first_out);

/* pftrace_pb.c */
size_t pftrace_varint_put(uint8_t *p, uint64_t v);
size_t pftrace_varint_len(uint64_t v);
void proto_uint(struct pbuf *b, uint32_t field, uint64_t v);
void proto_int(struct pbuf *b, uint32_t field, int64_t v);
void proto_fixed64(struct pbuf *b, uint32_t field, uint64_t v);
void proto_bytes(struct pbuf *b, uint32_t field, const void *p, size_t n);
void proto_str(struct pbuf *b, uint32_t field, const char *s);
void proto_begin(struct pbuf *b, uint32_t field);
void proto_end(struct pbuf *b);
void proto_reset(struct pbuf *b);
void pftrace_strmap_fini(struct strmap *m);
gs_status pftrace_strmap_get(struct strmap *m, const char *s, uint64_t next_iid, uint32_t seq,
			     uint64_t *iid, bool *fresh, bool *added);

/* pftrace_rank.c */
void pftrace_write_rank(struct pftrace_writer *f, const struct xplan *c, const int64_t *pids);

#endif
