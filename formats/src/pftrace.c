/* SPDX-License-Identifier: MIT */
/*
 * Perfetto's own trace format (gpuscope/export.h): the plan the Chrome
 * export draws (export_plan.h) written as a stream of TracePackets, one
 * packet at a time, never more than one packet in memory. The encoding and
 * the interning map are pftrace_pb.c, a rank's tracks and events
 * pftrace_rank.c; pftrace_priv.h holds what the three share.
 *
 * Wire format. A trace is a sequence of `Trace.packet` fields (field 1,
 * length-delimited TracePacket). The field numbers are Perfetto's
 * (protos/perfetto/trace/ in google/perfetto); the trimmed schema
 * formats/proto/perfetto_trace.proto holds the same numbers and the tests
 * decode every file with it (and tests/pftrace/official_check.py with
 * Google's own classes). A packet is encoded into a growing buffer;
 * a nested message reserves one byte for its length and, in the rare case
 * it needs more, its body moves up (proto_end).
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

#include "export_base.h"
#include "export_plan.h"
#include "pftrace_priv.h"

static const char *const cat_names[CAT_COUNT] = {
	"kernel",          "gpu_memcpy",          "gpu_memset",      "cuda_runtime",
	"cuda_driver",     "cuda_sync",           "user_annotation", "cpu_op",
	"python_function", "gpu_user_annotation", "overhead",        "ideal"};

static enum cat op_cat(uint8_t kind)
{
	return kind == GS_OP_KERNEL ? CAT_KERNEL : kind == GS_OP_MEMCPY ? CAT_MEMCPY : CAT_MEMSET;
}

/* A host range's category: the one gs_xp_range_cat names. */
enum cat pftrace_range_cat(const struct gs_range *r)
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

void pftrace_fail(struct pftrace_writer *f, gs_status rc)
{
	if (!f->rc)
		f->rc = rc;
}

/* Starts a packet of the current sequence; flags: SEQ_* (its first packet
 * clears the sequence's state). */
static void pkt_begin(struct pftrace_writer *f, uint32_t flags)
{
	proto_reset(&f->pkt);
	proto_reset(&f->intern);
	proto_uint(&f->pkt, F_PKT_SEQ_ID, f->seq);
	if (f->seq_fresh) {
		flags = (flags & ~(uint32_t)SEQ_NEEDS_INCREMENTAL_STATE) |
			SEQ_INCREMENTAL_STATE_CLEARED;
		proto_uint(&f->pkt, F_PKT_FIRST_ON_SEQUENCE, 1);
		f->seq_fresh = false;
	}
	if (flags)
		proto_uint(&f->pkt, F_PKT_SEQ_FLAGS, flags);
}

void pftrace_pkt_end(struct pftrace_writer *f);

/*
 * A new packet sequence: its first packet clears the incremental state
 * and sets its defaults: the track of its events (`track`, 0: none) and
 * the clock of their timestamps, an incremental clock of the sequence
 * (each timestamp is the time since the previous packet's), which the
 * sequence's first timed packet anchors to BOOTTIME (pftrace_pkt_begin_at).
 */
void pftrace_seq_begin(struct pftrace_writer *f, uint64_t track)
{
	f->seq = f->next_seq++;
	f->seq_fresh = true;
	f->clock_set = false;
	f->seq_track = track;
	f->cats_done = 0;
	f->keys_done = 0;
	pkt_begin(f, 0);
	proto_begin(&f->pkt, F_PKT_DEFAULTS);
	proto_uint(&f->pkt, F_DEF_TIMESTAMP_CLOCK_ID, CLOCK_INCREMENTAL);
	if (track) {
		proto_begin(&f->pkt, F_DEF_TRACK_EVENT);
		proto_uint(&f->pkt, F_TED_TRACK_UUID, track);
		proto_end(&f->pkt);
	}
	proto_end(&f->pkt);
	pftrace_pkt_end(f);
}

static void snapshot_clock(struct pbuf *b, uint32_t id, uint64_t ts, bool incremental)
{
	proto_begin(b, F_CS_CLOCKS);
	proto_uint(b, F_CLK_ID, id);
	proto_uint(b, F_CLK_TIMESTAMP, ts);
	if (incremental)
		proto_uint(b, F_CLK_INCREMENTAL, 1);
	proto_end(b);
}

/* A timed packet at `ns` (a time of the plan): its timestamp relative to
 * the sequence's previous one. The sequence's first timed packet is
 * preceded by the clock snapshot that anchors its clock there; a time
 * before the previous one (never in the plan's order) is written whole,
 * on BOOTTIME. */
void pftrace_pkt_begin_at(struct pftrace_writer *f, uint32_t flags, int64_t ns)
{
	uint64_t t = (uint64_t)(ns + f->c->shift + f->time_offset);

	if (!f->clock_set) {
		pkt_begin(f, 0);
		proto_begin(&f->pkt, F_PKT_CLOCK_SNAPSHOT);
		snapshot_clock(&f->pkt, CLOCK_BOOTTIME, t, false);
		snapshot_clock(&f->pkt, CLOCK_INCREMENTAL, t, true);
		proto_end(&f->pkt);
		pftrace_pkt_end(f);
		f->clock_set = true;
		f->last_ts = t;
	}
	pkt_begin(f, flags);
	if (t >= f->last_ts) {
		proto_uint(&f->pkt, F_PKT_TIMESTAMP, t - f->last_ts);
		f->last_ts = t;
	} else {
		proto_uint(&f->pkt, F_PKT_TIMESTAMP, t);
		proto_uint(&f->pkt, F_PKT_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME);
	}
}

/* The track of an event, unless it is the sequence's default. */
void pftrace_event_track(struct pftrace_writer *f, uint64_t track)
{
	if (track != f->seq_track)
		proto_uint(&f->pkt, F_TE_TRACK_UUID, track);
}

/* The packets gathered, deflated (zlib format, as trace_processor
 * inflates it) into one packet {compressed_packets}, onto the output. */
static void chunk_flush(struct pftrace_writer *f)
{
	uLongf zn = compressBound(f->chunk_len);
	uint8_t hdr[24];
	size_t h = 0;

	if (!f->chunk_len || f->rc)
		return;
	if (zn > f->zbuf_cap) {
		uint8_t *z = realloc(f->zbuf, zn);

		if (!z) {
			pftrace_fail(f, gs_nomem());
			return;
		}
		f->zbuf = z;
		f->zbuf_cap = zn;
	}
	if (compress2(f->zbuf, &zn, f->chunk, f->chunk_len, Z_BEST_SPEED) != Z_OK) {
		pftrace_fail(f, gs_nomem()); /* Z_MEM_ERROR: the buffer is large enough */
		return;
	}
	f->chunk_len = 0;
	hdr[h++] = F_TRACE_PACKET << 3 | WT_LEN;
	h += pftrace_varint_put(
		hdr + h, pftrace_varint_len((uint64_t)F_PKT_COMPRESSED_PACKETS << 3 | WT_LEN) +
				 pftrace_varint_len(zn) + zn);
	h += pftrace_varint_put(hdr + h, (uint64_t)F_PKT_COMPRESSED_PACKETS << 3 | WT_LEN);
	h += pftrace_varint_put(hdr + h, zn);
	gs_outbuf_write(&f->w, (const char *)hdr, h);
	gs_outbuf_write(&f->w, (const char *)f->zbuf, zn);
}

/* The packet, with its interned data, into the chunk (a Trace.packet
 * field, as in an uncompressed trace), the chunk out when full. */
void pftrace_pkt_end(struct pftrace_writer *f)
{
	uint8_t len[10];
	size_t k, need;

	if (f->intern.len)
		proto_bytes(&f->pkt, F_PKT_INTERNED_DATA, f->intern.p, f->intern.len);
	if (f->pkt.failed || f->intern.failed) {
		pftrace_fail(f, gs_nomem());
		return;
	}
	k = pftrace_varint_put(len, f->pkt.len);
	need = 1 + k + f->pkt.len;
	if (f->chunk_len + need > PFTRACE_CHUNK)
		chunk_flush(f);
	if (f->chunk_len + need > f->chunk_cap) {
		size_t nc = need > PFTRACE_CHUNK ? need : PFTRACE_CHUNK;
		uint8_t *c = realloc(f->chunk, nc);

		if (!c) {
			pftrace_fail(f, gs_nomem());
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
static void intern_entry(struct pftrace_writer *f, uint32_t field, uint64_t iid, const char *s)
{
	proto_begin(&f->intern, field);
	proto_uint(&f->intern, F_IN_IID, iid);
	proto_str(&f->intern, F_IN_NAME, s);
	proto_end(&f->intern);
}

static uint64_t cat_iid(struct pftrace_writer *f, enum cat k)
{
	if (!(f->cats_done & (1u << k))) {
		f->cats_done |= 1u << k;
		intern_entry(f, F_ID_CATEGORIES, (uint64_t)k + 1, cat_names[k]);
	}
	return (uint64_t)k + 1;
}

/* The iid of an event name: a string of the trace (sid) or any other. */
static uint64_t name_iid(struct pftrace_writer *f, uint32_t sid, const char *s)
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
	rc = pftrace_strmap_get(&f->names, s, f->next_name_iid, f->seq, &iid, &fresh, &added);
	if (rc) {
		pftrace_fail(f, rc);
		return 0;
	}
	f->next_name_iid += added;
	if (fresh)
		intern_entry(f, F_ID_EVENT_NAMES, iid, s);
	return iid;
}

static uint64_t key_iid(struct pftrace_writer *f, enum xkey k)
{
	if (!(f->keys_done & (UINT64_C(1) << k))) {
		f->keys_done |= UINT64_C(1) << k;
		intern_entry(f, F_ID_ANNOTATION_NAMES, (uint64_t)k + 1, gs_xp_key_names[k]);
	}
	return (uint64_t)k + 1;
}

static uint64_t value_iid(struct pftrace_writer *f, const char *s)
{
	uint64_t iid;
	bool fresh, added;
	gs_status rc =
		pftrace_strmap_get(&f->values, s, f->next_value_iid, f->seq, &iid, &fresh, &added);

	if (rc) {
		pftrace_fail(f, rc);
		return 0;
	}
	f->next_value_iid += added;
	if (fresh)
		intern_entry(f, F_ID_ANNOTATION_STRINGS, iid, s);
	return iid;
}

/* ---- args as debug annotations -------------------------------------------- */

void pftrace_da_u64(void *ctx, enum xkey k, uint64_t v)
{
	struct pftrace_writer *f = ctx;

	proto_begin(&f->pkt, F_TE_DEBUG_ANNOTATIONS);
	proto_uint(&f->pkt, F_DA_NAME_IID, key_iid(f, k));
	proto_uint(&f->pkt, F_DA_UINT, v);
	proto_end(&f->pkt);
}

void pftrace_da_i64(void *ctx, enum xkey k, int64_t v)
{
	struct pftrace_writer *f = ctx;

	proto_begin(&f->pkt, F_TE_DEBUG_ANNOTATIONS);
	proto_uint(&f->pkt, F_DA_NAME_IID, key_iid(f, k));
	proto_int(&f->pkt, F_DA_INT, v);
	proto_end(&f->pkt);
}

void pftrace_da_str(void *ctx, enum xkey k, const char *v)
{
	struct pftrace_writer *f = ctx;
	uint64_t key = key_iid(f, k), val = value_iid(f, v);

	proto_begin(&f->pkt, F_TE_DEBUG_ANNOTATIONS);
	proto_uint(&f->pkt, F_DA_NAME_IID, key);
	proto_uint(&f->pkt, F_DA_STRING_IID, val);
	proto_end(&f->pkt);
}

void pftrace_da_dim3(void *ctx, enum xkey k, const uint32_t v[3])
{
	struct pftrace_writer *f = ctx;

	proto_begin(&f->pkt, F_TE_DEBUG_ANNOTATIONS);
	proto_uint(&f->pkt, F_DA_NAME_IID, key_iid(f, k));
	for (int i = 0; i < 3; i++) {
		proto_begin(&f->pkt, F_DA_ARRAY);
		proto_uint(&f->pkt, F_DA_UINT, v[i]);
		proto_end(&f->pkt);
	}
	proto_end(&f->pkt);
}

/* ---- tracks ---------------------------------------------------------------- */

uint64_t pftrace_track_process(struct pftrace_writer *f, int64_t pid, const struct xproc_names *n)
{
	uint64_t uuid = f->next_uuid++;

	pkt_begin(f, 0);
	proto_begin(&f->pkt, F_PKT_TRACK_DESCRIPTOR);
	proto_uint(&f->pkt, F_TD_UUID, uuid);
	proto_begin(&f->pkt, F_TD_PROCESS);
	proto_int(&f->pkt, F_PD_PID, pid);
	if (n->sort >= INT32_MIN && n->sort <= INT32_MAX)
		proto_int(&f->pkt, F_PD_LEGACY_SORT_INDEX, n->sort);
	if (*n->name)
		proto_str(&f->pkt, F_PD_PROCESS_NAME, n->name);
	if (*n->label)
		proto_str(&f->pkt, F_PD_PROCESS_LABELS, n->label);
	proto_end(&f->pkt);
	proto_uint(&f->pkt, F_TD_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
	proto_end(&f->pkt);
	pftrace_pkt_end(f);
	return uuid;
}

/* A named track below `parent` (a counter track when `counter`), on the
 * current sequence. */
uint64_t pftrace_track_child(struct pftrace_writer *f, uint64_t parent, const char *name,
			     int64_t rank, bool counter)
{
	uint64_t uuid = f->next_uuid++;

	pkt_begin(f, 0);
	proto_begin(&f->pkt, F_PKT_TRACK_DESCRIPTOR);
	proto_uint(&f->pkt, F_TD_UUID, uuid);
	proto_uint(&f->pkt, F_TD_PARENT_UUID, parent);
	proto_str(&f->pkt, F_TD_NAME, name);
	if (counter) {
		proto_begin(&f->pkt, F_TD_COUNTER);
		proto_end(&f->pkt);
	}
	if (rank >= INT32_MIN && rank <= INT32_MAX)
		proto_int(&f->pkt, F_TD_SIBLING_ORDER_RANK, rank);
	proto_end(&f->pkt);
	pftrace_pkt_end(f);
	return uuid;
}

/* A track of slices: a sequence of its own, whose events default to it. */
uint64_t pftrace_track_lane(struct pftrace_writer *f, uint64_t parent, const char *name,
			    int64_t rank)
{
	pftrace_seq_begin(f, f->next_uuid);
	return pftrace_track_child(f, parent, name, rank, false);
}

/* ---- slices ---------------------------------------------------------------- */

/* The start of a slice up to its args (written by the caller, then
 * pftrace_slice_begin_end). */
void pftrace_slice_begin(struct pftrace_writer *f, uint64_t track, int64_t ts, enum cat cat,
			 uint32_t sid, const char *name)
{
	uint64_t c, nm;

	pftrace_pkt_begin_at(f, SEQ_NEEDS_INCREMENTAL_STATE, ts);
	c = cat_iid(f, cat);
	nm = name_iid(f, sid, name);
	proto_begin(&f->pkt, F_PKT_TRACK_EVENT);
	proto_uint(&f->pkt, F_TE_TYPE, TYPE_SLICE_BEGIN);
	pftrace_event_track(f, track);
	proto_uint(&f->pkt, F_TE_CATEGORY_IIDS, c);
	proto_uint(&f->pkt, F_TE_NAME_IID, nm);
}

void pftrace_slice_begin_end(struct pftrace_writer *f)
{
	proto_end(&f->pkt);
	pftrace_pkt_end(f);
}

void pftrace_slice_end(struct pftrace_writer *f, uint64_t track, int64_t ts)
{
	pftrace_pkt_begin_at(f, 0, ts);
	proto_begin(&f->pkt, F_PKT_TRACK_EVENT);
	proto_uint(&f->pkt, F_TE_TYPE, TYPE_SLICE_END);
	pftrace_event_track(f, track);
	proto_end(&f->pkt);
	pftrace_pkt_end(f);
}

uint64_t pftrace_launch_flow(const struct pftrace_writer *f, uint32_t o)
{
	return f->flow_base + 1 + o;
}

static uint64_t edge_flow(const struct pftrace_writer *f, uint32_t e)
{
	return f->flow_base + 1 + f->c->n_ops + e;
}

/* An op's slice begin: its name, args and flows (the launch's end, the
 * dependencies out and in). */
void pftrace_op_begin(struct pftrace_writer *f, uint64_t track, uint32_t o, int64_t ts, bool ideal)
{
	const struct xplan *c = f->c;
	const struct gs_op *op = &c->ops[o];
	struct xargs a = {pftrace_da_u64, pftrace_da_i64, pftrace_da_str, pftrace_da_dim3, f};
	char buf[128];
	const char *name = gs_xp_op_name(c, op, buf, sizeof(buf));

	/* The trace's own name, or one made for it (Kineto's copy names). */
	pftrace_slice_begin(f, track, ts, ideal ? CAT_IDEAL : op_cat(op->kind),
			    name == gs_trace_string(c->t, op->name) ? op->name : NONE, name);
	if (ideal) {
		gs_xp_ideal_args(c, o, &a);
	} else {
		gs_xp_op_args(c, op, &a);
		if (c->launch[o] != NONE)
			proto_fixed64(&f->pkt, F_TE_TERMINATING_FLOW_IDS,
				      pftrace_launch_flow(f, o));
		for (uint32_t j = f->out_first[o]; j < f->out_first[o + 1]; j++)
			proto_fixed64(&f->pkt, F_TE_FLOW_IDS, edge_flow(f, f->out_edges[j]));
		for (uint32_t j = f->in_first[o]; j < f->in_first[o + 1]; j++)
			proto_fixed64(&f->pkt, F_TE_TERMINATING_FLOW_IDS,
				      edge_flow(f, f->in_edges[j]));
	}
	pftrace_slice_begin_end(f);
}

/* ---- scratch ---------------------------------------------------------------- */

static bool scratch(struct pftrace_writer *f, size_t n)
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
	pftrace_fail(f, gs_nomem());
	return false;
}

/*
 * Items [0, n) with lanes lane[i] (0 .. lanes), in the order given, grouped
 * by lane into f->order (stable); first[l] .. first[l + 1] are lane l's.
 */
bool pftrace_by_lane(struct pftrace_writer *f, const uint32_t *items, const uint32_t *lane,
		     size_t n, uint32_t lanes, uint32_t **first_out)
{
	uint32_t *first = calloc((size_t)lanes + 2, sizeof(*first));

	*first_out = first;
	if (!first || !scratch(f, n ? n : 1)) {
		if (!first)
			pftrace_fail(f, gs_nomem());
		return false;
	}
	for (size_t i = 0; i < n; i++)
		first[lane[i] + 1]++;
	for (uint32_t l = 0; l <= lanes; l++)
		first[l + 1] += first[l];
	{
		uint32_t *pos = malloc(((size_t)lanes + 1) * sizeof(*pos));

		if (!pos) {
			pftrace_fail(f, gs_nomem());
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
	struct pftrace_writer f = {.next_uuid = 1, .next_seq = 1};
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
		rc = gs_export_out_open(&f.w, out, o && o->gzip, o ? o->compression_level : 0);
	if (!rc) {
		f.time_offset = time_offset(&j);
		if (o && o->stats)
			o->stats->time_offset_ns = f.time_offset;
		for (size_t r = 0; r < j.n && !f.rc; r++)
			pftrace_write_rank(&f, &j.cs[r], pids[r]);
		chunk_flush(&f);
		if (f.rc) {
			gs_export_out_discard(&f.w);
			rc = f.rc;
		} else {
			rc = gs_export_out_finish(&f.w);
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
