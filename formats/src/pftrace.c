/* SPDX-License-Identifier: MIT */
/*
 * Perfetto's own trace format (gpuscope/export.h): the plan the Chrome
 * export draws (export_plan.h) written as a stream of TracePackets, one
 * packet at a time, never more than one packet in memory.
 *
 * Wire format. A trace is a sequence of `Trace.packet` fields (field 1,
 * length-delimited TracePacket). The field numbers are Perfetto's
 * (protos/perfetto/trace/ in google/perfetto); the trimmed schema
 * formats/proto/perfetto_trace.proto holds the same numbers and the tests
 * decode every file with it (and tests/pftrace/official_check.py with
 * Google's own classes). A packet is encoded into a growing buffer;
 * a nested message reserves one byte for its length and, in the rare case
 * it needs more, its body moves up (pb_end).
 *
 * Compression. The packets are gathered into chunks of up to 1 MiB, and
 * each chunk is written as one packet whose only field is
 * compressed_packets (50): the chunk's Trace.packet fields deflated in
 * zlib format (level 1), which trace_processor (and so ui.perfetto.dev)
 * inflates and reads in its place, as it does for traces the Perfetto
 * service writes with compression_type DEFLATE. Small traces are mostly
 * names and fixed per-track costs that interning cannot shrink; deflate
 * takes them, and large ones, 5-30x below the Chrome JSON.
 *
 * Sequences. Each rank is one packet sequence (trusted_packet_sequence_id
 * = its position + 1): its first packet clears the incremental state, and
 * names are interned on it the first time a packet uses them (interned
 * data in that packet, SEQ_NEEDS_INCREMENTAL_STATE on the packets that
 * refer to interned names). Event names of the trace's string table are
 * interned as string id + 1; other names (Kineto's copy names, sync kinds)
 * and string values through a small table by content.
 *
 * Tracks. A process track per process of the plan (ProcessDescriptor: pid,
 * name, labels), and below it a named track per lane of the plan, in the
 * Chrome export's order (sibling_order_rank, child_ordering EXPLICIT):
 * host threads and their overflow lanes, profiler overhead, streams and
 * their overflow lanes, cuda_sync, gpu_user_annotation, and one counter
 * track per breakdown category ("breakdown kernel", ...). Tracks are named
 * tracks, not thread descriptors: trace_processor joins threads by tid,
 * and the ranks of a job share tids (and Kineto draws GPU lanes at tid 0).
 * Pids are the Chrome export's where they fit 1 .. 2^31 - 1, else free
 * numbers above all of them (a device's pid 0, say).
 *
 * Events. Each track's events are written together, in time order, as
 * SLICE_BEGIN / SLICE_END pairs that nest as the plan's lanes guarantee
 * (an end is written before a begin at the same time; trace_processor
 * keeps the file order of equal timestamps). Flows: flow_ids on the begin
 * of the source slice (the launch call, the producer op), the same id in
 * terminating_flow_ids of the destination (the op, the consumer op); ids
 * are (rank base + op + 1) for launches and (rank base + ops + edge + 1)
 * for dependency edges, so both ends are known without a table.
 * Breakdown counters: at each segment boundary, the categories whose value
 * changed (1 while a category holds the device, else 0), in one
 * TYPE_COUNTER event with extra_counter_values.
 *
 * Times: TracePacket.timestamp is unsigned, with no clock given (taken as
 * trace time as is): the plan's times (a rank's shift included) plus one
 * offset for the whole file, 0 unless some time is negative (then the
 * earliest is written as 0; gs_export_stats.time_offset_ns says so).
 *
 * Memory beyond the plan: per rank, the edges by op (two CSR arrays), a
 * byte per string, scratch orders of the largest track; O(N + E); and the
 * chunk of packets being gathered with its deflated copy (2 MiB).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <gpuscope/export.h>

#include "export_out.h"
#include "export_plan.h"

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

/* ------------------------------------------------------------------------ */
/* Encoding                                                                 */
/* ------------------------------------------------------------------------ */

#define PB_DEPTH 8

/* A message being encoded; `failed` once an allocation failed (the rest
 * is skipped, the export fails with GS_ERR_NOMEM). */
struct pbuf {
	uint8_t *p;
	size_t len, cap;
	size_t open[PB_DEPTH]; /* where each open nested message's length goes */
	int depth;
	bool failed;
};

static bool pb_room(struct pbuf *b, size_t n)
{
	if (b->failed)
		return false;
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		uint8_t *np;

		while (nc < b->len + n)
			nc *= 2;
		np = realloc(b->p, nc);
		if (!np) {
			b->failed = true;
			return false;
		}
		b->p = np;
		b->cap = nc;
	}
	return true;
}

static size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void pb_varint(struct pbuf *b, uint64_t v)
{
	if (pb_room(b, 10))
		b->len += varint_put(b->p + b->len, v);
}

static void pb_tag(struct pbuf *b, uint32_t field, unsigned wt)
{
	pb_varint(b, (uint64_t)field << 3 | wt);
}

static void pb_uint(struct pbuf *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, WT_VARINT);
	pb_varint(b, v);
}

/* int32 / int64 fields: two's complement, ten bytes when negative. */
static void pb_int(struct pbuf *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

static void pb_fixed64(struct pbuf *b, uint32_t field, uint64_t v)
{
	pb_tag(b, field, WT_FIXED64);
	if (!pb_room(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

static void pb_bytes(struct pbuf *b, uint32_t field, const void *p, size_t n)
{
	pb_tag(b, field, WT_LEN);
	pb_varint(b, n);
	if (pb_room(b, n)) {
		if (n)
			memcpy(b->p + b->len, p, n);
		b->len += n;
	}
}

static void pb_str(struct pbuf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/* A nested message: its length byte reserved, patched by pb_end. */
static void pb_begin(struct pbuf *b, uint32_t field)
{
	pb_tag(b, field, WT_LEN);
	if (b->depth == PB_DEPTH) {
		b->failed = true; /* a programming error: never this deep */
		return;
	}
	b->open[b->depth++] = b->len;
	if (pb_room(b, 1))
		b->p[b->len++] = 0;
}

static void pb_end(struct pbuf *b)
{
	size_t at, n, k;

	if (!b->depth)
		return;
	at = b->open[--b->depth];
	if (b->failed)
		return;
	n = b->len - (at + 1);
	k = varint_len(n);
	if (k > 1) {
		if (!pb_room(b, k - 1))
			return;
		memmove(b->p + at + k, b->p + at + 1, n);
		b->len += k - 1;
	}
	varint_put(b->p + at, n);
}

static void pb_reset(struct pbuf *b)
{
	b->len = 0;
	b->depth = 0;
}

/* ------------------------------------------------------------------------ */
/* Interning                                                                */
/* ------------------------------------------------------------------------ */

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

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

static void strmap_fini(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slot[i].s);
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

static gs_status strmap_grow(struct strmap *m)
{
	size_t nc = m->cap ? m->cap * 2 : 64;
	struct strmap_slot *ns = calloc(nc, sizeof(*ns));

	if (!ns)
		return gs_nomem();
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slot[i].s)
			continue;
		for (j = m->slot[i].hash & (nc - 1); ns[j].s; j = (j + 1) & (nc - 1))
			;
		ns[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = ns;
	m->cap = nc;
	return GS_OK;
}

/* The iid of `s` (*fresh: not yet interned on sequence `seq`; a new
 * string, *added, gets iid next_iid). */
static gs_status strmap_get(struct strmap *m, const char *s, uint64_t next_iid, uint32_t seq,
			    uint64_t *iid, bool *fresh, bool *added)
{
	uint64_t h = str_hash(s);
	size_t j;

	*fresh = *added = false;
	if ((m->n + 1) * 2 > m->cap) {
		gs_status rc = strmap_grow(m);

		if (rc)
			return rc;
	}
	for (j = h & (m->cap - 1); m->slot[j].s; j = (j + 1) & (m->cap - 1)) {
		if (m->slot[j].hash == h && !strcmp(m->slot[j].s, s)) {
			*iid = m->slot[j].iid;
			*fresh = m->slot[j].seq != seq;
			m->slot[j].seq = seq;
			return GS_OK;
		}
	}
	m->slot[j].s = strdup(s);
	if (!m->slot[j].s)
		return gs_nomem();
	m->slot[j].hash = h;
	m->slot[j].iid = next_iid;
	m->slot[j].seq = seq;
	m->n++;
	*iid = next_iid;
	*fresh = *added = true;
	return GS_OK;
}

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

static const char *const cat_names[CAT_COUNT] = {
	"kernel",          "gpu_memcpy",          "gpu_memset",      "cuda_runtime",
	"cuda_driver",     "cuda_sync",           "user_annotation", "cpu_op",
	"python_function", "gpu_user_annotation", "overhead",        "ideal"};

static enum cat op_cat(uint8_t kind)
{
	return kind == GS_OP_KERNEL ? CAT_KERNEL : kind == GS_OP_MEMCPY ? CAT_MEMCPY : CAT_MEMSET;
}

/* A host range's category: the one gs_xp_range_cat names. */
static enum cat range_cat(const struct gs_range *r)
{
	const char *name = gs_xp_range_cat(r);

	for (unsigned k = CAT_USER_ANNOTATION; k <= CAT_PYTHON_FUNCTION; k++)
		if (!strcmp(cat_names[k], name))
			return (enum cat)k;
	return CAT_USER_ANNOTATION;
}

/* ------------------------------------------------------------------------ */
/* The writer                                                               */
/* ------------------------------------------------------------------------ */

/* Packets are gathered up to this many bytes, then written deflated as
 * one TracePacket.compressed_packets. */
#define PF_CHUNK (1u << 20)

struct pf {
	struct gs_wbuf w;
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

static void fail(struct pf *f, gs_status rc)
{
	if (!f->rc)
		f->rc = rc;
}

/* Starts a packet of the current sequence; flags: SEQ_* (its first packet
 * clears the sequence's state). */
static void pkt_begin(struct pf *f, uint32_t flags)
{
	pb_reset(&f->pkt);
	pb_reset(&f->intern);
	pb_uint(&f->pkt, F_PKT_SEQ_ID, f->seq);
	if (f->seq_fresh) {
		flags = (flags & ~(uint32_t)SEQ_NEEDS_INCREMENTAL_STATE) |
			SEQ_INCREMENTAL_STATE_CLEARED;
		pb_uint(&f->pkt, F_PKT_FIRST_ON_SEQUENCE, 1);
		f->seq_fresh = false;
	}
	if (flags)
		pb_uint(&f->pkt, F_PKT_SEQ_FLAGS, flags);
}

static void pkt_end(struct pf *f);

/*
 * A new packet sequence: its first packet clears the incremental state
 * and sets its defaults: the track of its events (`track`, 0: none) and
 * the clock of their timestamps, an incremental clock of the sequence
 * (each timestamp is the time since the previous packet's), which the
 * sequence's first timed packet anchors to BOOTTIME (pkt_begin_at).
 */
static void seq_begin(struct pf *f, uint64_t track)
{
	f->seq = f->next_seq++;
	f->seq_fresh = true;
	f->clock_set = false;
	f->seq_track = track;
	f->cats_done = 0;
	f->keys_done = 0;
	pkt_begin(f, 0);
	pb_begin(&f->pkt, F_PKT_DEFAULTS);
	pb_uint(&f->pkt, F_DEF_TIMESTAMP_CLOCK_ID, CLOCK_INCREMENTAL);
	if (track) {
		pb_begin(&f->pkt, F_DEF_TRACK_EVENT);
		pb_uint(&f->pkt, F_TED_TRACK_UUID, track);
		pb_end(&f->pkt);
	}
	pb_end(&f->pkt);
	pkt_end(f);
}

static void snapshot_clock(struct pbuf *b, uint32_t id, uint64_t ts, bool incremental)
{
	pb_begin(b, F_CS_CLOCKS);
	pb_uint(b, F_CLK_ID, id);
	pb_uint(b, F_CLK_TIMESTAMP, ts);
	if (incremental)
		pb_uint(b, F_CLK_INCREMENTAL, 1);
	pb_end(b);
}

/* A timed packet at `ns` (a time of the plan): its timestamp relative to
 * the sequence's previous one. The sequence's first timed packet is
 * preceded by the clock snapshot that anchors its clock there; a time
 * before the previous one (never in the plan's order) is written whole,
 * on BOOTTIME. */
static void pkt_begin_at(struct pf *f, uint32_t flags, int64_t ns)
{
	uint64_t t = (uint64_t)(ns + f->c->shift + f->time_offset);

	if (!f->clock_set) {
		pkt_begin(f, 0);
		pb_begin(&f->pkt, F_PKT_CLOCK_SNAPSHOT);
		snapshot_clock(&f->pkt, CLOCK_BOOTTIME, t, false);
		snapshot_clock(&f->pkt, CLOCK_INCREMENTAL, t, true);
		pb_end(&f->pkt);
		pkt_end(f);
		f->clock_set = true;
		f->last_ts = t;
	}
	pkt_begin(f, flags);
	if (t >= f->last_ts) {
		pb_uint(&f->pkt, F_PKT_TIMESTAMP, t - f->last_ts);
		f->last_ts = t;
	} else {
		pb_uint(&f->pkt, F_PKT_TIMESTAMP, t);
		pb_uint(&f->pkt, F_PKT_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME);
	}
}

/* The track of an event, unless it is the sequence's default. */
static void event_track(struct pf *f, uint64_t track)
{
	if (track != f->seq_track)
		pb_uint(&f->pkt, F_TE_TRACK_UUID, track);
}

/* The packets gathered, deflated (zlib format, as trace_processor
 * inflates it) into one packet {compressed_packets}, onto the output. */
static void chunk_flush(struct pf *f)
{
	uLongf zn = compressBound(f->chunk_len);
	uint8_t hdr[24];
	size_t h = 0;

	if (!f->chunk_len || f->rc)
		return;
	if (zn > f->zbuf_cap) {
		uint8_t *z = realloc(f->zbuf, zn);

		if (!z) {
			fail(f, gs_nomem());
			return;
		}
		f->zbuf = z;
		f->zbuf_cap = zn;
	}
	if (compress2(f->zbuf, &zn, f->chunk, f->chunk_len, Z_BEST_SPEED) != Z_OK) {
		fail(f, gs_nomem()); /* Z_MEM_ERROR: the buffer is large enough */
		return;
	}
	f->chunk_len = 0;
	hdr[h++] = F_TRACE_PACKET << 3 | WT_LEN;
	h += varint_put(hdr + h, varint_len((uint64_t)F_PKT_COMPRESSED_PACKETS << 3 | WT_LEN) +
					 varint_len(zn) + zn);
	h += varint_put(hdr + h, (uint64_t)F_PKT_COMPRESSED_PACKETS << 3 | WT_LEN);
	h += varint_put(hdr + h, zn);
	gs_wbuf_put(&f->w, (const char *)hdr, h);
	gs_wbuf_put(&f->w, (const char *)f->zbuf, zn);
}

/* The packet, with its interned data, into the chunk (a Trace.packet
 * field, as in an uncompressed trace), the chunk out when full. */
static void pkt_end(struct pf *f)
{
	uint8_t len[10];
	size_t k, need;

	if (f->intern.len)
		pb_bytes(&f->pkt, F_PKT_INTERNED_DATA, f->intern.p, f->intern.len);
	if (f->pkt.failed || f->intern.failed) {
		fail(f, gs_nomem());
		return;
	}
	k = varint_put(len, f->pkt.len);
	need = 1 + k + f->pkt.len;
	if (f->chunk_len + need > PF_CHUNK)
		chunk_flush(f);
	if (f->chunk_len + need > f->chunk_cap) {
		size_t nc = need > PF_CHUNK ? need : PF_CHUNK;
		uint8_t *c = realloc(f->chunk, nc);

		if (!c) {
			fail(f, gs_nomem());
			return;
		}
		f->chunk = c;
		f->chunk_cap = nc;
	}
	f->chunk[f->chunk_len++] = F_TRACE_PACKET << 3 | WT_LEN;
	memcpy(f->chunk + f->chunk_len, len, k);
	memcpy(f->chunk + f->chunk_len + k, f->pkt.p, f->pkt.len);
	f->chunk_len += k + f->pkt.len;
}

/* An interned entry {iid, name} in InternedData field `field`. */
static void intern_entry(struct pf *f, uint32_t field, uint64_t iid, const char *s)
{
	pb_begin(&f->intern, field);
	pb_uint(&f->intern, F_IN_IID, iid);
	pb_str(&f->intern, F_IN_NAME, s);
	pb_end(&f->intern);
}

static uint64_t cat_iid(struct pf *f, enum cat k)
{
	if (!(f->cats_done & (1u << k))) {
		f->cats_done |= 1u << k;
		intern_entry(f, F_ID_CATEGORIES, (uint64_t)k + 1, cat_names[k]);
	}
	return (uint64_t)k + 1;
}

/* The iid of an event name: a string of the trace (sid) or any other. */
static uint64_t name_iid(struct pf *f, uint32_t sid, const char *s)
{
	size_t n_str = gs_trace_string_count(f->c->t);
	uint64_t iid;
	bool fresh, added;
	gs_status rc;

	if (sid < n_str) {
		if (f->name_seq[sid] != f->seq) {
			f->name_seq[sid] = f->seq;
			intern_entry(f, F_ID_EVENT_NAMES, (uint64_t)sid + 1,
				     gs_trace_string(f->c->t, sid));
		}
		return (uint64_t)sid + 1;
	}
	if (!s)
		s = gs_trace_string(f->c->t, sid);
	rc = strmap_get(&f->names, s, f->next_name_iid, f->seq, &iid, &fresh, &added);
	if (rc) {
		fail(f, rc);
		return 0;
	}
	f->next_name_iid += added;
	if (fresh)
		intern_entry(f, F_ID_EVENT_NAMES, iid, s);
	return iid;
}

static uint64_t key_iid(struct pf *f, enum xkey k)
{
	if (!(f->keys_done & (UINT64_C(1) << k))) {
		f->keys_done |= UINT64_C(1) << k;
		intern_entry(f, F_ID_ANNOTATION_NAMES, (uint64_t)k + 1, gs_xp_key_names[k]);
	}
	return (uint64_t)k + 1;
}

static uint64_t value_iid(struct pf *f, const char *s)
{
	uint64_t iid;
	bool fresh, added;
	gs_status rc = strmap_get(&f->values, s, f->next_value_iid, f->seq, &iid, &fresh, &added);

	if (rc) {
		fail(f, rc);
		return 0;
	}
	f->next_value_iid += added;
	if (fresh)
		intern_entry(f, F_ID_ANNOTATION_STRINGS, iid, s);
	return iid;
}

/* ---- args as debug annotations -------------------------------------------- */

static void da_u64(void *ctx, enum xkey k, uint64_t v)
{
	struct pf *f = ctx;

	pb_begin(&f->pkt, F_TE_DEBUG_ANNOTATIONS);
	pb_uint(&f->pkt, F_DA_NAME_IID, key_iid(f, k));
	pb_uint(&f->pkt, F_DA_UINT, v);
	pb_end(&f->pkt);
}

static void da_i64(void *ctx, enum xkey k, int64_t v)
{
	struct pf *f = ctx;

	pb_begin(&f->pkt, F_TE_DEBUG_ANNOTATIONS);
	pb_uint(&f->pkt, F_DA_NAME_IID, key_iid(f, k));
	pb_int(&f->pkt, F_DA_INT, v);
	pb_end(&f->pkt);
}

static void da_str(void *ctx, enum xkey k, const char *v)
{
	struct pf *f = ctx;
	uint64_t key = key_iid(f, k), val = value_iid(f, v);

	pb_begin(&f->pkt, F_TE_DEBUG_ANNOTATIONS);
	pb_uint(&f->pkt, F_DA_NAME_IID, key);
	pb_uint(&f->pkt, F_DA_STRING_IID, val);
	pb_end(&f->pkt);
}

static void da_dim3(void *ctx, enum xkey k, const uint32_t v[3])
{
	struct pf *f = ctx;

	pb_begin(&f->pkt, F_TE_DEBUG_ANNOTATIONS);
	pb_uint(&f->pkt, F_DA_NAME_IID, key_iid(f, k));
	for (int i = 0; i < 3; i++) {
		pb_begin(&f->pkt, F_DA_ARRAY);
		pb_uint(&f->pkt, F_DA_UINT, v[i]);
		pb_end(&f->pkt);
	}
	pb_end(&f->pkt);
}

/* ---- tracks ---------------------------------------------------------------- */

static uint64_t track_process(struct pf *f, int64_t pid, const struct xproc_names *n)
{
	uint64_t uuid = f->next_uuid++;

	pkt_begin(f, 0);
	pb_begin(&f->pkt, F_PKT_TRACK_DESCRIPTOR);
	pb_uint(&f->pkt, F_TD_UUID, uuid);
	pb_begin(&f->pkt, F_TD_PROCESS);
	pb_int(&f->pkt, F_PD_PID, pid);
	if (n->sort >= INT32_MIN && n->sort <= INT32_MAX)
		pb_int(&f->pkt, F_PD_LEGACY_SORT_INDEX, n->sort);
	if (*n->name)
		pb_str(&f->pkt, F_PD_PROCESS_NAME, n->name);
	if (*n->label)
		pb_str(&f->pkt, F_PD_PROCESS_LABELS, n->label);
	pb_end(&f->pkt);
	pb_uint(&f->pkt, F_TD_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
	pb_end(&f->pkt);
	pkt_end(f);
	return uuid;
}

/* A named track below `parent` (a counter track when `counter`), on the
 * current sequence. */
static uint64_t track_child(struct pf *f, uint64_t parent, const char *name, int64_t rank,
			    bool counter)
{
	uint64_t uuid = f->next_uuid++;

	pkt_begin(f, 0);
	pb_begin(&f->pkt, F_PKT_TRACK_DESCRIPTOR);
	pb_uint(&f->pkt, F_TD_UUID, uuid);
	pb_uint(&f->pkt, F_TD_PARENT_UUID, parent);
	pb_str(&f->pkt, F_TD_NAME, name);
	if (counter) {
		pb_begin(&f->pkt, F_TD_COUNTER);
		pb_end(&f->pkt);
	}
	if (rank >= INT32_MIN && rank <= INT32_MAX)
		pb_int(&f->pkt, F_TD_SIBLING_ORDER_RANK, rank);
	pb_end(&f->pkt);
	pkt_end(f);
	return uuid;
}

/* A track of slices: a sequence of its own, whose events default to it. */
static uint64_t track_lane(struct pf *f, uint64_t parent, const char *name, int64_t rank)
{
	seq_begin(f, f->next_uuid);
	return track_child(f, parent, name, rank, false);
}

/* ---- slices ---------------------------------------------------------------- */

/* The start of a slice up to its args (written by the caller, then
 * slice_begin_end). */
static void slice_begin(struct pf *f, uint64_t track, int64_t ts, enum cat cat, uint32_t sid,
			const char *name)
{
	uint64_t c, nm;

	pkt_begin_at(f, SEQ_NEEDS_INCREMENTAL_STATE, ts);
	c = cat_iid(f, cat);
	nm = name_iid(f, sid, name);
	pb_begin(&f->pkt, F_PKT_TRACK_EVENT);
	pb_uint(&f->pkt, F_TE_TYPE, TYPE_SLICE_BEGIN);
	event_track(f, track);
	pb_uint(&f->pkt, F_TE_CATEGORY_IIDS, c);
	pb_uint(&f->pkt, F_TE_NAME_IID, nm);
}

static void slice_begin_end(struct pf *f)
{
	pb_end(&f->pkt);
	pkt_end(f);
}

static void slice_end(struct pf *f, uint64_t track, int64_t ts)
{
	pkt_begin_at(f, 0, ts);
	pb_begin(&f->pkt, F_PKT_TRACK_EVENT);
	pb_uint(&f->pkt, F_TE_TYPE, TYPE_SLICE_END);
	event_track(f, track);
	pb_end(&f->pkt);
	pkt_end(f);
}

static uint64_t launch_flow(const struct pf *f, uint32_t o)
{
	return f->flow_base + 1 + o;
}

static uint64_t edge_flow(const struct pf *f, uint32_t e)
{
	return f->flow_base + 1 + f->c->n_ops + e;
}

/* An op's slice begin: its name, args and flows (the launch's end, the
 * dependencies out and in). */
static void op_begin(struct pf *f, uint64_t track, uint32_t o, int64_t ts, bool ideal)
{
	const struct xplan *c = f->c;
	const struct gs_op *op = &c->ops[o];
	struct xargs a = {da_u64, da_i64, da_str, da_dim3, f};
	char buf[128];
	const char *name = gs_xp_op_name(c, op, buf, sizeof(buf));

	/* The trace's own name, or one made for it (Kineto's copy names). */
	slice_begin(f, track, ts, ideal ? CAT_IDEAL : op_cat(op->kind),
		    name == gs_trace_string(c->t, op->name) ? op->name : NONE, name);
	if (ideal) {
		gs_xp_ideal_args(c, o, &a);
	} else {
		gs_xp_op_args(c, op, &a);
		if (c->launch[o] != NONE)
			pb_fixed64(&f->pkt, F_TE_TERMINATING_FLOW_IDS, launch_flow(f, o));
		for (uint32_t j = f->out_first[o]; j < f->out_first[o + 1]; j++)
			pb_fixed64(&f->pkt, F_TE_FLOW_IDS, edge_flow(f, f->out_edges[j]));
		for (uint32_t j = f->in_first[o]; j < f->in_first[o + 1]; j++)
			pb_fixed64(&f->pkt, F_TE_TERMINATING_FLOW_IDS,
				   edge_flow(f, f->in_edges[j]));
	}
	slice_begin_end(f);
}

/* ---- scratch ---------------------------------------------------------------- */

static bool scratch(struct pf *f, size_t n)
{
	if (n > f->order_cap) {
		uint32_t *o = realloc(f->order, n * sizeof(*o));
		int64_t *s;

		if (!o)
			goto nomem;
		f->order = o;
		s = realloc(f->stack, n * sizeof(*s));
		if (!s)
			goto nomem;
		f->stack = s;
		f->order_cap = f->stack_cap = n;
	}
	return true;
nomem:
	fail(f, gs_nomem());
	return false;
}

/*
 * Items [0, n) with lanes lane[i] (0 .. lanes), in the order given, grouped
 * by lane into f->order (stable); first[l] .. first[l + 1] are lane l's.
 */
static bool by_lane(struct pf *f, const uint32_t *items, const uint32_t *lane, size_t n,
		    uint32_t lanes, uint32_t **first_out)
{
	uint32_t *first = calloc((size_t)lanes + 2, sizeof(*first));

	*first_out = first;
	if (!first || !scratch(f, n ? n : 1)) {
		if (!first)
			fail(f, gs_nomem());
		return false;
	}
	for (size_t i = 0; i < n; i++)
		first[lane[i] + 1]++;
	for (uint32_t l = 0; l <= lanes; l++)
		first[l + 1] += first[l];
	{
		uint32_t *pos = malloc(((size_t)lanes + 1) * sizeof(*pos));

		if (!pos) {
			fail(f, gs_nomem());
			return false;
		}
		memcpy(pos, first, ((size_t)lanes + 1) * sizeof(*pos));
		for (size_t i = 0; i < n; i++)
			f->order[pos[lane[i]]++] = items[i];
		free(pos);
	}
	return true;
}

/* ------------------------------------------------------------------------ */
/* The rank                                                                 */
/* ------------------------------------------------------------------------ */

/* The written dependency edges by source and by destination op. */
static gs_status edges_by_op(struct pf *f)
{
	const struct xplan *c = f->c;
	const struct gs_export_extras *x = c->x;
	size_t n_e = x ? x->n_edges : 0, m = 0;

	f->out_first = calloc(c->n_ops + 1, sizeof(uint32_t));
	f->in_first = calloc(c->n_ops + 1, sizeof(uint32_t));
	if (!f->out_first || !f->in_first)
		return gs_nomem();
	for (size_t e = 0; e < n_e; e++) {
		if (!gs_xp_edge_written(c, e))
			continue;
		f->out_first[x->edges[e].from + 1]++;
		f->in_first[x->edges[e].to + 1]++;
		m++;
	}
	f->out_edges = malloc((m ? m : 1) * sizeof(uint32_t));
	f->in_edges = malloc((m ? m : 1) * sizeof(uint32_t));
	if (!f->out_edges || !f->in_edges)
		return gs_nomem();
	for (size_t o = 0; o < c->n_ops; o++) {
		f->out_first[o + 1] += f->out_first[o];
		f->in_first[o + 1] += f->in_first[o];
	}
	{
		uint32_t *po = malloc((c->n_ops + 1) * sizeof(uint32_t));
		uint32_t *pi = malloc((c->n_ops + 1) * sizeof(uint32_t));

		if (!po || !pi) {
			free(po);
			free(pi);
			return gs_nomem();
		}
		memcpy(po, f->out_first, (c->n_ops + 1) * sizeof(uint32_t));
		memcpy(pi, f->in_first, (c->n_ops + 1) * sizeof(uint32_t));
		for (size_t e = 0; e < n_e; e++) {
			if (!gs_xp_edge_written(c, e))
				continue;
			f->out_edges[po[x->edges[e].from]++] = (uint32_t)e;
			f->in_edges[pi[x->edges[e].to]++] = (uint32_t)e;
		}
		free(po);
		free(pi);
	}
	return GS_OK;
}

/* A host event's begin: a call (with the flows to the ops it launched) or
 * a range. */
static void host_begin(struct pf *f, uint64_t track, const struct href *r)
{
	const struct xplan *c = f->c;
	struct xargs a = {da_u64, da_i64, da_str, da_dim3, f};

	if (r->type == HR_RANGE) {
		const struct gs_range *g = &c->ranges[r->idx];

		slice_begin(f, track, g->start_ns, range_cat(g), g->name, NULL);
		gs_xp_range_args(c, r->idx, &a);
	} else {
		const struct gs_api_call *k = &c->api[r->idx];

		slice_begin(f, track, k->start_ns,
			    k->kind == GS_API_DRIVER ? CAT_DRIVER : CAT_RUNTIME, k->name, NULL);
		gs_xp_api_args(c, r->idx, &a);
		for (uint32_t j = c->call_ops_first[r->idx]; j < c->call_ops_first[r->idx + 1]; j++)
			if (gs_xp_op_kept(c, c->call_ops[j]))
				pb_fixed64(&f->pkt, F_TE_FLOW_IDS, launch_flow(f, c->call_ops[j]));
	}
	slice_begin_end(f);
}

/* A host thread: a track per lane, its calls and ranges nested. */
static void write_thread(struct pf *f, uint64_t parent, const struct hthread *th, size_t first,
			 size_t last, int64_t *sort)
{
	const struct xplan *c = f->c;
	size_t n = last - first, k;
	uint32_t *items = malloc((n ? n : 1) * sizeof(*items));
	uint32_t *lane = malloc((n ? n : 1) * sizeof(*lane));
	uint32_t *lf = NULL;
	char name[320];

	if (!items || !lane) {
		fail(f, gs_nomem());
		goto out;
	}
	for (k = 0; k < n; k++) {
		const struct href *r = &c->hr[first + k];

		items[k] = (uint32_t)(first + k);
		lane[k] = r->type == HR_API ? c->api_lane[r->idx] : c->range_lane[r->idx];
	}
	if (!by_lane(f, items, lane, n, th->lanes, &lf))
		goto out;
	for (uint32_t l = 0; l <= th->lanes && !f->rc; l++) {
		uint64_t track;
		size_t depth = 0;

		gs_xp_thread_name(name, sizeof(name), th->tid, l);
		track = track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			const struct href *r = &c->hr[f->order[j]];

			while (depth && f->stack[depth - 1] <= r->start)
				slice_end(f, track, f->stack[--depth]);
			host_begin(f, track, r);
			f->stack[depth++] = r->end;
		}
		while (depth)
			slice_end(f, track, f->stack[--depth]);
	}
out:
	free(items);
	free(lane);
	free(lf);
}

/* A sort key: a time and the item. */
struct tkey {
	int64_t a, b;
	uint32_t idx;
};

static int cmp_tkey(const void *pa, const void *pb)
{
	const struct tkey *x = pa, *y = pb;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* items[0, n) sorted by keys (a, b, index). */
static bool sort_items(struct pf *f, uint32_t *items, size_t n, const int64_t *a, const int64_t *b)
{
	struct tkey *k = malloc((n ? n : 1) * sizeof(*k));

	if (!k) {
		fail(f, gs_nomem());
		return false;
	}
	for (size_t i = 0; i < n; i++)
		k[i] = (struct tkey){a[i], b ? b[i] : 0, items[i]};
	qsort(k, n, sizeof(*k), cmp_tkey);
	for (size_t i = 0; i < n; i++)
		items[i] = k[i].idx;
	free(k);
	return true;
}

/* A process's profiler overhead lanes (the plan's order: by start). */
static void write_overheads(struct pf *f, uint64_t parent, size_t h, int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct hproc *p = &c->hp[h];
	uint32_t *items = malloc((c->n_oh ? c->n_oh : 1) * sizeof(*items));
	uint32_t *lane = malloc((c->n_oh ? c->n_oh : 1) * sizeof(*lane));
	uint32_t *lf = NULL;
	size_t n = 0;
	char name[64];

	if (!items || !lane) {
		fail(f, gs_nomem());
		goto out;
	}
	for (size_t i = 0; i < c->n_oh; i++)
		if (c->oh[i].pid == p->pid)
			items[n++] = (uint32_t)i;
	/* The plan's order: by start, then end. */
	{
		int64_t *a = malloc((n ? n : 1) * sizeof(*a)),
			*b = malloc((n ? n : 1) * sizeof(*b));
		bool ok = a && b;

		for (size_t i = 0; ok && i < n; i++) {
			a[i] = c->oh[items[i]].start_ns;
			b[i] = c->oh[items[i]].end_ns;
		}
		ok = ok && sort_items(f, items, n, a, b);
		if (!a || !b)
			fail(f, gs_nomem());
		free(a);
		free(b);
		if (!ok)
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		lane[i] = c->oh_lane[items[i]];
	if (!by_lane(f, items, lane, n, p->oh_lanes ? p->oh_lanes - 1 : 0, &lf))
		goto out;
	for (uint32_t l = 0; l < p->oh_lanes && !f->rc; l++) {
		uint64_t track;

		gs_xp_overhead_name(name, sizeof(name), l);
		track = track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			const struct gs_overhead *o = &c->oh[f->order[j]];

			slice_begin(f, track, o->start_ns, CAT_OVERHEAD, o->kind, NULL);
			slice_begin_end(f);
			slice_end(f, track, o->end_ns);
		}
	}
out:
	free(items);
	free(lane);
	free(lf);
}

static void write_host(struct pf *f, uint64_t *proc_uuid)
{
	const struct xplan *c = f->c;
	/* Thread t's host events: hr[first[t], first[t + 1]) (threads are
	 * numbered in the order of their events). */
	size_t *first = malloc((c->n_threads + 1) * sizeof(*first)), k = 0;

	if (!first) {
		fail(f, gs_nomem());
		return;
	}
	for (size_t t = 0; t < c->n_threads; t++) {
		first[t] = k;
		while (k < c->n_hr && c->hr[k].pid == c->threads[t].pid &&
		       c->hr[k].tid == c->threads[t].tid)
			k++;
	}
	first[c->n_threads] = k;
	for (size_t i = 0; i < c->n_hp && !f->rc; i++) {
		const struct hproc *p = &c->hp[i];
		int64_t sort = 0;

		for (size_t j = p->first_thread; j < p->first_thread + p->n_threads; j++)
			write_thread(f, proc_uuid[i], &c->threads[j], first[j], first[j + 1],
				     &sort);
		if (p->oh_lanes)
			write_overheads(f, proc_uuid[i], i, &sort);
	}
	free(first);
}

/* The ops of stream s on their lanes (ideal: in the ideal schedule). */
static void write_stream(struct pf *f, uint64_t parent, uint32_t s, bool ideal, int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct cstream *x = &c->cs[s];
	uint32_t lanes = ideal ? x->ideal_lanes : x->lanes;
	size_t first, count, n = 0;
	uint32_t *items, *lane, *lf = NULL;
	char label[256], name[320];

	gs_trace_stream_ops(c->t, s, &first, &count);
	items = malloc((count ? count : 1) * sizeof(*items));
	lane = malloc((count ? count : 1) * sizeof(*lane));
	if (!items || !lane) {
		fail(f, gs_nomem());
		goto out;
	}
	for (size_t o = first; o < first + count; o++)
		if (!ideal || c->x->ideal_in[o])
			items[n++] = (uint32_t)o;
	if (ideal) {
		/* The plan's order: by ideal start. */
		int64_t *a = malloc((n ? n : 1) * sizeof(*a));
		bool ok = a != NULL;

		for (size_t i = 0; ok && i < n; i++)
			a[i] = c->x->ideal_start[items[i]];
		ok = ok && sort_items(f, items, n, a, NULL);
		if (!a)
			fail(f, gs_nomem());
		free(a);
		if (!ok)
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		lane[i] = ideal ? c->ideal_lane[items[i]] : c->op_lane[items[i]];
	if (!by_lane(f, items, lane, n, lanes, &lf))
		goto out;
	gs_xp_stream_label(c, s, label, sizeof(label));
	for (uint32_t l = 0; l <= lanes && !f->rc; l++) {
		uint64_t track;

		gs_xp_lane_name(name, sizeof(name), label, l);
		track = track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			uint32_t o = f->order[j];
			const struct gs_op *op = &c->ops[o];
			int64_t st = ideal ? c->x->ideal_start[o] : op->start_ns;

			op_begin(f, track, o, st, ideal);
			slice_end(f, track, st + (op->end_ns - op->start_ns));
		}
	}
out:
	free(items);
	free(lane);
	free(lf);
}

/* A device's syncs on their lanes (syncs are by start). */
static void write_syncs(struct pf *f, uint64_t parent, size_t di, int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct cdev *d = &c->devs[di];
	struct xargs a = {da_u64, da_i64, da_str, da_dim3, f};
	uint32_t *items = malloc((c->n_syncs ? c->n_syncs : 1) * sizeof(*items));
	uint32_t *lane = malloc((c->n_syncs ? c->n_syncs : 1) * sizeof(*lane));
	uint32_t *lf = NULL;
	size_t n = 0;
	char name[64];

	if (!items || !lane) {
		fail(f, gs_nomem());
		goto out;
	}
	for (size_t i = 0; i < c->n_syncs; i++) {
		if (c->syncs[i].device != d->id)
			continue;
		lane[n] = c->sync_lane[i];
		items[n++] = (uint32_t)i;
	}
	if (!by_lane(f, items, lane, n, d->sync_lanes - 1, &lf))
		goto out;
	for (uint32_t l = 0; l < d->sync_lanes && !f->rc; l++) {
		uint64_t track;

		gs_xp_sync_name(name, sizeof(name), l);
		track = track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			const struct gs_sync *y = &c->syncs[f->order[j]];

			slice_begin(f, track, y->start_ns, CAT_SYNC, NONE,
				    gs_xp_sync_kind_text(y->kind));
			gs_xp_sync_args(c, f->order[j], &a);
			slice_begin_end(f);
			slice_end(f, track, y->end_ns);
		}
	}
out:
	free(items);
	free(lane);
	free(lf);
}

/* A device's GPU annotations on their lanes, nested (ranges are by start). */
static void write_annotations(struct pf *f, uint64_t parent, size_t di, int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct cdev *d = &c->devs[di];
	struct xargs a = {da_u64, da_i64, da_str, da_dim3, f};
	uint32_t *items = malloc((c->n_ranges ? c->n_ranges : 1) * sizeof(*items));
	uint32_t *lane = malloc((c->n_ranges ? c->n_ranges : 1) * sizeof(*lane));
	uint32_t *lf = NULL;
	size_t n = 0;
	char name[64];

	if (!items || !lane) {
		fail(f, gs_nomem());
		goto out;
	}
	for (size_t i = 0; i < c->n_ranges; i++) {
		if (!gs_xp_annotation_kept(c, i) || c->cs[c->ranges[i].stream].dev != di)
			continue;
		lane[n] = (uint32_t)(c->ann_tid[i] - d->ann_tid);
		items[n++] = (uint32_t)i;
	}
	if (!by_lane(f, items, lane, n, d->ann_lanes - 1, &lf))
		goto out;
	for (uint32_t l = 0; l < d->ann_lanes && !f->rc; l++) {
		uint64_t track;
		size_t depth = 0;

		gs_xp_annotation_name(name, sizeof(name), l);
		track = track_lane(f, parent, name, (*sort)++);
		for (uint32_t j = lf[l]; j < lf[l + 1]; j++) {
			const struct gs_range *r = &c->ranges[f->order[j]];

			while (depth && f->stack[depth - 1] <= r->start_ns)
				slice_end(f, track, f->stack[--depth]);
			slice_begin(f, track, r->start_ns, CAT_GPU_ANNOTATION, r->name, NULL);
			gs_xp_annotation_args(c, f->order[j], &a);
			slice_begin_end(f);
			f->stack[depth++] = r->end_ns;
		}
		while (depth)
			slice_end(f, track, f->stack[--depth]);
	}
out:
	free(items);
	free(lane);
	free(lf);
}

/* One TYPE_COUNTER event: the counters whose value changed (want[k] !=
 * have[k]) at `ts`. */
static void counter_changes(struct pf *f, const uint64_t *uuid, const int8_t *want, int8_t *have,
			    size_t n, int64_t ts)
{
	size_t first = n;

	for (size_t k = 0; k < n && first == n; k++)
		if (want[k] != have[k])
			first = k;
	if (first == n)
		return;
	pkt_begin_at(f, 0, ts);
	pb_begin(&f->pkt, F_PKT_TRACK_EVENT);
	pb_uint(&f->pkt, F_TE_TYPE, TYPE_COUNTER);
	event_track(f, uuid[first]);
	pb_int(&f->pkt, F_TE_COUNTER_VALUE, want[first]);
	for (size_t k = first + 1; k < n; k++)
		if (want[k] != have[k])
			pb_uint(&f->pkt, F_TE_EXTRA_COUNTER_UUIDS, uuid[k]);
	for (size_t k = first + 1; k < n; k++)
		if (want[k] != have[k])
			pb_int(&f->pkt, F_TE_EXTRA_COUNTER_VALUES, want[k]);
	pb_end(&f->pkt);
	pkt_end(f);
	for (size_t k = first; k < n; k++)
		have[k] = want[k];
}

/* A device's breakdown: a counter track per category, 1 while the category
 * holds the device, else 0 (the Chrome export's "breakdown" counter). */
static void write_counters(struct pf *f, uint64_t parent, size_t di, int64_t *sort)
{
	const struct xplan *c = f->c;
	const struct gs_export_extras *x = c->x;
	const struct gs_export_breakdown *bd = c->devs[di].bd;
	size_t n = x ? x->n_categories : 0;
	uint64_t *uuid;
	int8_t *want, *have;
	char name[160];

	if (!bd || !bd->n_segments || !n)
		return;
	uuid = calloc(n, sizeof(*uuid));
	want = calloc(n, 1);
	have = calloc(n, 1);
	if (!uuid || !want || !have) {
		fail(f, gs_nomem());
		goto out;
	}
	seq_begin(f, 0);
	for (size_t k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "breakdown %s",
			 x->category_names[k] ? x->category_names[k] : "?");
		uuid[k] = track_child(f, parent, name, (*sort)++, true);
		have[k] = -1; /* every counter's first value is written */
	}
	for (size_t s = 0; s < bd->n_segments && !f->rc; s++) {
		for (size_t k = 0; k < n; k++)
			want[k] = bd->segments[s].category == k;
		counter_changes(f, uuid, want, have, n, bd->segments[s].start_ns);
	}
	memset(want, 0, n);
	counter_changes(f, uuid, want, have, n, bd->segments[bd->n_segments - 1].end_ns);
out:
	free(uuid);
	free(want);
	free(have);
}

static void write_devices(struct pf *f, const uint64_t *dev_uuid, const uint64_t *ideal_uuid)
{
	const struct xplan *c = f->c;
	int64_t sort = 0, isort = 0;

	/* Streams in display order (their sort index runs on over the
	 * devices, as in the Chrome export), then each device's syncs,
	 * annotations and counters. */
	for (size_t i = 0; i < c->n_streams && !f->rc; i++) {
		uint32_t s = c->stream_order[i];
		const struct cstream *x = &c->cs[s];

		if (x->dev == NONE)
			continue;
		write_stream(f, dev_uuid[x->dev], s, false, &sort);
		if (c->ideal && x->has_ideal)
			write_stream(f, ideal_uuid[x->dev], s, true, &isort);
	}
	for (size_t d = 0; d < c->n_devs && !f->rc; d++) {
		if (c->devs[d].sync_lanes)
			write_syncs(f, dev_uuid[d], d, &sort);
		if (c->devs[d].ann_lanes)
			write_annotations(f, dev_uuid[d], d, &sort);
	}
	for (size_t d = 0; d < c->n_devs && !f->rc; d++)
		write_counters(f, dev_uuid[d], d, &sort);
}

static void rank_fini(struct pf *f)
{
	free(f->name_seq);
	free(f->out_first);
	free(f->out_edges);
	free(f->in_first);
	free(f->in_edges);
	strmap_fini(&f->names);
	strmap_fini(&f->values);
	f->name_seq = NULL;
	f->out_first = f->out_edges = f->in_first = f->in_edges = NULL;
}

/* One rank: its sequence, processes, tracks and events. pids: the pid of
 * each of its processes (hosts, then per device the device and its ideal
 * schedule). */
static void write_rank(struct pf *f, const struct xplan *c, const int64_t *pids)
{
	size_t n_str = gs_trace_string_count(c->t);
	uint64_t *uuid = calloc(c->n_hp + 2 * c->n_devs + 1, sizeof(*uuid));
	struct xproc_names pn;
	gs_status rc;

	f->c = c;
	f->next_name_iid = (uint64_t)n_str + 1;
	f->next_value_iid = 1;
	f->name_seq = calloc(n_str ? n_str : 1, sizeof(*f->name_seq));
	if (!uuid || !f->name_seq) {
		fail(f, gs_nomem());
		goto out;
	}
	rc = edges_by_op(f);
	if (rc) {
		fail(f, rc);
		goto out;
	}
	/* The processes on a sequence of their own. */
	seq_begin(f, 0);
	for (size_t i = 0; i < c->n_hp; i++) {
		gs_xp_host_names(c, i, &pn);
		uuid[i] = track_process(f, pids[i], &pn);
	}
	for (size_t d = 0; d < c->n_devs; d++) {
		gs_xp_dev_names(c, d, &pn);
		uuid[c->n_hp + d] = track_process(f, pids[c->n_hp + 2 * d], &pn);
		if (c->ideal) {
			gs_xp_ideal_names(c, d, &pn);
			uuid[c->n_hp + c->n_devs + d] =
				track_process(f, pids[c->n_hp + 2 * d + 1], &pn);
		}
	}
	write_host(f, uuid);
	write_devices(f, uuid + c->n_hp, uuid + c->n_hp + c->n_devs);
	f->flow_base += (uint64_t)c->n_ops + (c->x ? c->x->n_edges : 0);
out:
	free(uuid);
	rank_fini(f);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

/* The pid each process of each rank gets (the plan's when in 1 .. 2^31 - 1,
 * else a free one above them all): per rank, hosts then per device the
 * device and its ideal schedule. */
static int64_t **perfetto_pids(const struct gs_xp_job *j)
{
	int64_t **pids = calloc(j->n, sizeof(*pids)); /* NOLINT(bugprone-sizeof-expression) */
	int64_t top = 0;

	if (!pids)
		return NULL;
	for (size_t r = 0; r < j->n; r++) {
		const struct xplan *c = &j->cs[r];

		pids[r] = calloc(c->n_hp + 2 * c->n_devs + 1, sizeof(**pids));
		if (!pids[r])
			goto nomem;
		for (size_t i = 0; i < c->n_hp; i++)
			pids[r][i] = c->hp[i].cpid;
		for (size_t d = 0; d < c->n_devs; d++) {
			pids[r][c->n_hp + 2 * d] = c->devs[d].pid;
			pids[r][c->n_hp + 2 * d + 1] = c->ideal ? c->devs[d].ideal_pid : INT64_MIN;
		}
		for (size_t i = 0; i < c->n_hp + 2 * c->n_devs; i++)
			if (pids[r][i] > top && pids[r][i] <= INT32_MAX)
				top = pids[r][i];
	}
	for (size_t r = 0; r < j->n; r++) {
		const struct xplan *c = &j->cs[r];

		for (size_t i = 0; i < c->n_hp + 2 * c->n_devs; i++)
			if (pids[r][i] != INT64_MIN && (pids[r][i] < 1 || pids[r][i] > INT32_MAX))
				pids[r][i] = top < INT32_MAX ? ++top : INT32_MAX;
	}
	return pids;
nomem:
	for (size_t r = 0; r < j->n; r++)
		free(pids[r]);
	free(pids);
	return NULL;
}

/* 0, or what lifts the earliest time written to 0. */
static int64_t time_offset(const struct gs_xp_job *j)
{
	int64_t low = 0;

	for (size_t r = 0; r < j->n; r++) {
		int64_t lo = 0, hi = 0;

		if (gs_xp_time_span(&j->cs[r], &lo, &hi) && lo + j->cs[r].shift < low)
			low = lo + j->cs[r].shift;
	}
	return -low;
}

gs_status gs_export_perfetto_job(FILE *out, const struct gs_export_rank *ranks, size_t n,
				 const struct gs_export_options *o)
{
	struct gs_xp_job j;
	struct pf f = {.next_uuid = 1, .next_seq = 1};
	int64_t **pids = NULL;
	gs_status rc;

	if (!out || !ranks || !n) {
		gs_error_append("gs_export_perfetto_job: no %s", out ? "rank" : "output");
		return GS_ERR_INVALID;
	}
	rc = gs_xp_job_init(&j, ranks, n, o);
	if (!rc) {
		pids = perfetto_pids(&j);
		if (!pids)
			rc = gs_nomem();
	}
	if (!rc)
		rc = gs_wbuf_init(&f.w, out, o && o->gzip, o ? o->compression_level : 0);
	if (!rc) {
		f.time_offset = time_offset(&j);
		if (o && o->stats)
			o->stats->time_offset_ns = f.time_offset;
		for (size_t r = 0; r < j.n && !f.rc; r++)
			write_rank(&f, &j.cs[r], pids[r]);
		chunk_flush(&f);
		if (f.rc) {
			gs_wbuf_discard(&f.w);
			rc = f.rc;
		} else {
			rc = gs_wbuf_finish(&f.w);
		}
	}
	for (size_t r = 0; pids && r < j.n; r++)
		free(pids[r]);
	free(pids);
	free(f.pkt.p);
	free(f.intern.p);
	free(f.chunk);
	free(f.zbuf);
	free(f.order);
	free(f.stack);
	gs_xp_job_fini(&j);
	return rc;
}

gs_status gs_export_perfetto(FILE *out, const struct gs_trace *t, const struct gs_export_extras *x,
			     const struct gs_export_options *o)
{
	struct gs_export_rank r = {.trace = t, .extras = x, .pid = -1};

	if (!out || !t) {
		gs_error_append("gs_export_perfetto: no %s", out ? "trace" : "output");
		return GS_ERR_INVALID;
	}
	return gs_export_perfetto_job(out, &r, 1, o);
}
