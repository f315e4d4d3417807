/* SPDX-License-Identifier: MIT */
/* A reader and checker of Perfetto protobuf traces for the tests
 * (pftrace_read.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "perfetto_trace.pb-c.h"
#include "pftrace_read.h"

#define CLOCK_BOOTTIME 6

/* ---- a hash map of 64-bit keys to 64-bit values ---------------------------- */

struct map {
	uint64_t *key, *val;
	uint8_t *used;
	size_t cap, n;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static void map_free(struct map *m)
{
	free(m->key);
	free(m->val);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

static uint64_t *map_slot(struct map *m, uint64_t k, bool add)
{
	size_t i;

	if (add && (m->n + 1) * 2 > m->cap) {
		struct map nm = {0};

		nm.cap = m->cap ? m->cap * 2 : 64;
		nm.key = calloc(nm.cap, sizeof(*nm.key));
		nm.val = calloc(nm.cap, sizeof(*nm.val));
		nm.used = calloc(nm.cap, 1);
		if (!nm.key || !nm.val || !nm.used) {
			map_free(&nm);
			return NULL;
		}
		for (i = 0; i < m->cap; i++)
			if (m->used[i])
				*map_slot(&nm, m->key[i], true) = m->val[i];
		map_free(m);
		*m = nm;
	}
	if (!m->cap)
		return NULL;
	for (i = mix(k) & (m->cap - 1); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == k)
			return &m->val[i];
	if (!add)
		return NULL;
	m->used[i] = 1;
	m->key[i] = k;
	m->val[i] = 0;
	m->n++;
	return &m->val[i];
}

/* ---- the reader's state ---------------------------------------------------- */

struct seq {
	uint32_t id;
	uint32_t gen;       /* incremented when its state is cleared */
	bool valid;         /* its state was cleared once */
	uint32_t def_clock; /* TracePacketDefaults.timestamp_clock_id */
	uint64_t def_track; /* TrackEventDefaults.track_uuid (0: none) */
	/* its clock 64..127 (one), from a snapshot */
	bool has_clock, incremental;
	uint32_t clock_id;
	int64_t clock_base, boot_base, last;
};

struct ev {
	uint64_t track;
	int64_t ts;
	size_t order;
	size_t slice; /* begins */
	uint8_t type;
};

struct fend {
	uint64_t id;
	size_t slice;
	bool dst;
};

struct rd {
	struct pf_trace *t;
	enum pf_keep keep;
	char *err;
	size_t err_size;
	bool failed;
	struct seq *seqs;
	size_t n_seqs, cap_seqs;
	struct map seq_ix; /* seq id -> index + 1 */
	struct map strs;   /* hash of (sequence, gen, kind, iid) -> string index + 1 */
	char **str;        /* interned strings */
	size_t n_str, cap_str;
	struct map track_ix; /* uuid -> index + 1 */
	struct map pids;     /* pid -> 1 */
	size_t cap_tracks, cap_slices, cap_counters;
	struct ev *ev;
	size_t n_ev, cap_ev;
	struct fend *fe;
	size_t n_fe, cap_fe;
	size_t packet, compressed;
};

static void problem(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct rd *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->failed)
		return;
	r->failed = true;
	n = snprintf(r->err, r->err_size, "packet %zu: ", r->packet);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < r->err_size)
		vsnprintf(r->err + n, r->err_size - (size_t)n, fmt, ap);
	va_end(ap);
}

static bool grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 64;
	void *np = realloc(*p, nc * size);

	if (!np)
		return false;
	*p = np;
	*cap = nc;
	return true;
}

static struct seq *get_seq(struct rd *r, uint32_t id)
{
	uint64_t *v = map_slot(&r->seq_ix, id, true);

	if (!v)
		return NULL;
	if (!*v) {
		if (!grow((void **)&r->seqs, &r->cap_seqs, r->n_seqs, sizeof(*r->seqs)))
			return NULL;
		memset(&r->seqs[r->n_seqs], 0, sizeof(r->seqs[0]));
		r->seqs[r->n_seqs].id = id;
		*v = ++r->n_seqs;
	}
	return &r->seqs[*v - 1];
}

enum {
	K_CAT,
	K_NAME,
	K_KEY,
	K_VALUE
};

static uint64_t str_key(const struct rd *r, const struct seq *s, unsigned kind, uint64_t iid)
{
	return mix(((uint64_t)(s - r->seqs) << 34) ^ ((uint64_t)s->gen << 20) ^ kind) ^
	       mix(iid + 0x9e3779b97f4a7c15ULL);
}

static void intern(struct rd *r, const struct seq *s, unsigned kind, uint64_t iid, const char *v,
		   size_t len)
{
	uint64_t k = str_key(r, s, kind, iid), *slot = map_slot(&r->strs, k, true);
	char *copy = malloc(len + 1);

	if (!slot || !copy || !grow((void **)&r->str, &r->cap_str, r->n_str, sizeof(*r->str))) {
		free(copy);
		problem(r, "out of memory");
		return;
	}
	memcpy(copy, v, len);
	copy[len] = '\0';
	if (*slot) {
		free(r->str[*slot - 1]); /* redefined: the latest wins */
		r->str[*slot - 1] = copy;
		return;
	}
	r->str[r->n_str] = copy;
	*slot = ++r->n_str;
}

static const char *lookup(struct rd *r, const struct seq *s, unsigned kind, uint64_t iid)
{
	static const char *const what[] = {"category", "event name", "annotation name",
					   "annotation string"};
	uint64_t *slot = map_slot(&r->strs, str_key(r, s, kind, iid), false);

	if (!slot) {
		problem(r, "%s iid %" PRIu64 " not interned on sequence %u", what[kind], iid,
			s->id);
		return "";
	}
	return r->str[*slot - 1];
}

static struct pf_track *track_of(struct rd *r, uint64_t uuid)
{
	uint64_t *v = map_slot(&r->track_ix, uuid, false);

	return v ? &r->t->tracks[*v - 1] : NULL;
}

/* ---- packets ----------------------------------------------------------------- */

static void read_interned(struct rd *r, struct seq *s, const Perfetto__Protos__InternedData *d)
{
	for (size_t i = 0; i < d->n_event_categories; i++)
		intern(r, s, K_CAT, d->event_categories[i]->iid,
		       d->event_categories[i]->name ? d->event_categories[i]->name : "",
		       d->event_categories[i]->name ? strlen(d->event_categories[i]->name) : 0);
	for (size_t i = 0; i < d->n_event_names; i++)
		intern(r, s, K_NAME, d->event_names[i]->iid,
		       d->event_names[i]->name ? d->event_names[i]->name : "",
		       d->event_names[i]->name ? strlen(d->event_names[i]->name) : 0);
	for (size_t i = 0; i < d->n_debug_annotation_names; i++)
		intern(r, s, K_KEY, d->debug_annotation_names[i]->iid,
		       d->debug_annotation_names[i]->name ? d->debug_annotation_names[i]->name : "",
		       d->debug_annotation_names[i]->name ?
			       strlen(d->debug_annotation_names[i]->name) :
			       0);
	for (size_t i = 0; i < d->n_debug_annotation_string_values; i++)
		intern(r, s, K_VALUE, d->debug_annotation_string_values[i]->iid,
		       (const char *)d->debug_annotation_string_values[i]->str.data,
		       d->debug_annotation_string_values[i]->str.len);
}

static void read_snapshot(struct rd *r, struct seq *s, const Perfetto__Protos__ClockSnapshot *cs)
{
	bool boot = false;
	int64_t boot_ts = 0;

	for (size_t i = 0; i < cs->n_clocks; i++) {
		if (cs->clocks[i]->clock_id == CLOCK_BOOTTIME) {
			boot = true;
			boot_ts = (int64_t)cs->clocks[i]->timestamp;
		}
	}
	if (!boot) {
		problem(r, "a clock snapshot without BOOTTIME");
		return;
	}
	for (size_t i = 0; i < cs->n_clocks; i++) {
		const Perfetto__Protos__ClockSnapshot__Clock *c = cs->clocks[i];

		if (c->clock_id == CLOCK_BOOTTIME)
			continue;
		if (c->clock_id < 64 || c->clock_id > 127 ||
		    (c->has_unit_multiplier_ns && c->unit_multiplier_ns != 1)) {
			problem(r, "clock %u in a snapshot: not a clock of the sequence in ns",
				c->clock_id);
			return;
		}
		if (s->has_clock &&
		    (s->clock_id != c->clock_id ||
		     s->incremental != (c->has_is_incremental && c->is_incremental))) {
			problem(r, "sequence %u: a second clock, or one changed", s->id);
			return;
		}
		s->has_clock = true;
		s->clock_id = c->clock_id;
		s->incremental = c->has_is_incremental && c->is_incremental;
		s->clock_base = (int64_t)c->timestamp;
		s->boot_base = boot_ts;
		s->last = (int64_t)c->timestamp;
	}
}

/* The packet's time in ns on BOOTTIME; false: none or invalid. */
static bool packet_time(struct rd *r, struct seq *s, const Perfetto__Protos__TracePacket *p,
			int64_t *ts)
{
	uint32_t clock = p->has_timestamp_clock_id ? p->timestamp_clock_id : s->def_clock;

	if (!p->has_timestamp)
		return false;
	if (clock == 0 || clock == CLOCK_BOOTTIME) {
		*ts = (int64_t)p->timestamp;
	} else if (s->has_clock && clock == s->clock_id) {
		if (s->incremental) {
			s->last += (int64_t)p->timestamp;
			*ts = s->last - s->clock_base + s->boot_base;
		} else {
			*ts = (int64_t)p->timestamp - s->clock_base + s->boot_base;
		}
	} else {
		problem(r, "sequence %u: timestamp on clock %u, which no snapshot defined", s->id,
			clock);
		return false;
	}
	if (*ts < 0) {
		problem(r, "time %" PRId64 " before 0", *ts);
		return false;
	}
	return true;
}

static void read_descriptor(struct rd *r, const Perfetto__Protos__TrackDescriptor *d)
{
	struct pf_trace *t = r->t;
	struct pf_track *k;
	uint64_t *slot;

	if (!d->has_uuid || !d->uuid) {
		problem(r, "a track descriptor without uuid");
		return;
	}
	slot = map_slot(&r->track_ix, d->uuid, true);
	if (!slot || *slot) {
		problem(r, slot ? "track %" PRIu64 " described twice" : "out of memory", d->uuid);
		return;
	}
	if (d->has_parent_uuid && !track_of(r, d->parent_uuid)) {
		problem(r, "track %" PRIu64 ": parent %" PRIu64 " not described before it", d->uuid,
			d->parent_uuid);
		return;
	}
	if (!grow((void **)&t->tracks, &r->cap_tracks, t->n_tracks, sizeof(*t->tracks))) {
		problem(r, "out of memory");
		return;
	}
	k = &t->tracks[t->n_tracks];
	memset(k, 0, sizeof(*k));
	*slot = ++t->n_tracks;
	k->uuid = d->uuid;
	k->parent = d->has_parent_uuid ? d->parent_uuid : 0;
	k->is_counter = d->counter != NULL;
	k->order = d->has_sibling_order_rank ? d->sibling_order_rank : 0;
	if (d->process) {
		const Perfetto__Protos__ProcessDescriptor *pd = d->process;
		uint64_t *ps;
		size_t len = 1;

		k->is_process = true;
		k->pid = pd->has_pid ? pd->pid : 0;
		if (k->pid < 1) {
			problem(r, "process track %" PRIu64 ": pid %d", d->uuid, k->pid);
			return;
		}
		ps = map_slot(&r->pids, (uint64_t)k->pid, true);
		if (!ps || *ps) {
			problem(r, "pid %d on two process tracks", k->pid);
			return;
		}
		*ps = 1;
		if (pd->has_legacy_sort_index)
			k->order = pd->legacy_sort_index;
		k->name = strdup(pd->process_name ? pd->process_name : "");
		for (size_t i = 0; i < pd->n_process_labels; i++)
			len += strlen(pd->process_labels[i]) + 2;
		k->labels = calloc(len, 1);
		for (size_t i = 0, at = 0; k->labels && i < pd->n_process_labels; i++) {
			size_t n = strlen(pd->process_labels[i]);

			if (i) {
				memcpy(k->labels + at, ", ", 2);
				at += 2;
			}
			memcpy(k->labels + at, pd->process_labels[i], n);
			at += n;
		}
	} else {
		k->name = strdup(d->name ? d->name : "");
		k->labels = strdup("");
	}
	if (!k->name || !k->labels)
		problem(r, "out of memory");
}

/* "key=value" of one annotation onto *s. */
static void arg_text(struct rd *r, struct seq *s, const Perfetto__Protos__DebugAnnotation *a,
		     char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (a->name_field_case == PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID)
		n = (size_t)snprintf(buf, size, "%s=", lookup(r, s, K_KEY, a->name_iid));
	else if (a->name_field_case == PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME)
		n = (size_t)snprintf(buf, size, "%s=", a->name);
	if (n >= size)
		return;
	switch (a->value_case) {
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE:
		snprintf(buf + n, size - n, "%" PRIu64, a->uint_value);
		break;
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE:
		snprintf(buf + n, size - n, "%" PRId64, a->int_value);
		break;
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE:
		snprintf(buf + n, size - n, "%s", a->string_value);
		break;
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID:
		snprintf(buf + n, size - n, "%s", lookup(r, s, K_VALUE, a->string_value_iid));
		break;
	case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE:
		snprintf(buf + n, size - n, "%d", a->bool_value ? 1 : 0);
		break;
	default:
		if (a->n_array_values) {
			for (size_t i = 0; i < a->n_array_values && n < size; i++) {
				const Perfetto__Protos__DebugAnnotation *v = a->array_values[i];

				n += (size_t)snprintf(
					buf + n, size - n, "%s%" PRIu64, i ? "," : "[",
					v->value_case ==
							PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE ?
						(uint64_t)v->int_value :
						v->uint_value);
			}
			if (n < size)
				snprintf(buf + n, size - n, "]");
		}
		break;
	}
}

static void add_event(struct rd *r, uint64_t track, int64_t ts, uint8_t type, size_t slice)
{
	if (!grow((void **)&r->ev, &r->cap_ev, r->n_ev, sizeof(*r->ev))) {
		problem(r, "out of memory");
		return;
	}
	r->ev[r->n_ev] = (struct ev){track, ts, r->n_ev, slice, type};
	r->n_ev++;
}

static void add_flow_end(struct rd *r, uint64_t id, size_t slice, bool dst)
{
	if (!grow((void **)&r->fe, &r->cap_fe, r->n_fe, sizeof(*r->fe))) {
		problem(r, "out of memory");
		return;
	}
	r->fe[r->n_fe++] = (struct fend){id, slice, dst};
}

static void read_begin(struct rd *r, struct seq *s, const Perfetto__Protos__TrackEvent *e,
		       uint64_t track, int64_t ts)
{
	struct pf_trace *t = r->t;
	size_t idx = t->n_slices;
	const char *cat = "", *name = "";
	char args[4096], one[1024];
	size_t n = 0;
	bool keep;

	if (e->n_category_iids)
		cat = lookup(r, s, K_CAT, e->category_iids[0]);
	else if (e->n_categories)
		cat = e->categories[0];
	if (e->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID)
		name = lookup(r, s, K_NAME, e->name_iid);
	else if (e->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME)
		name = e->name;
	keep = r->keep == PF_KEEP_ALL ||
	       (r->keep == PF_KEEP_OPS && (!strcmp(cat, "kernel") || !strcmp(cat, "gpu_memcpy") ||
					   !strcmp(cat, "gpu_memset")));
	args[0] = '\0';
	for (size_t i = 0; i < e->n_debug_annotations && keep; i++) {
		arg_text(r, s, e->debug_annotations[i], one, sizeof(one));
		n += (size_t)snprintf(args + (n < sizeof(args) ? n : sizeof(args) - 1),
				      n < sizeof(args) ? sizeof(args) - n : 1, "%s%s",
				      i ? "; " : "", one);
	}
	if (!grow((void **)&t->slices, &r->cap_slices, t->n_slices, sizeof(*t->slices))) {
		problem(r, "out of memory");
		return;
	}
	t->slices[idx] = (struct pf_slice){.track = track, .ts = ts, .end = ts, .order = r->n_ev};
	if (keep) {
		t->slices[idx].cat = strdup(cat);
		t->slices[idx].name = strdup(name);
		t->slices[idx].args = strdup(args);
		if (!t->slices[idx].cat || !t->slices[idx].name || !t->slices[idx].args)
			problem(r, "out of memory");
	}
	t->n_slices++;
	for (size_t i = 0; i < e->n_flow_ids; i++)
		add_flow_end(r, e->flow_ids[i], idx, false);
	for (size_t i = 0; i < e->n_terminating_flow_ids; i++)
		add_flow_end(r, e->terminating_flow_ids[i], idx, true);
	add_event(r, track, ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN, idx);
}

static void add_counter(struct rd *r, uint64_t track, int64_t ts, int64_t v)
{
	struct pf_trace *t = r->t;
	const struct pf_track *k = track_of(r, track);

	if (!k || !k->is_counter) {
		problem(r, "a counter value on track %" PRIu64 ", %s", track,
			k ? "not a counter track" : "not described");
		return;
	}
	if (!grow((void **)&t->counters, &r->cap_counters, t->n_counters, sizeof(*t->counters))) {
		problem(r, "out of memory");
		return;
	}
	t->counters[t->n_counters++] = (struct pf_counter){track, ts, v};
	add_event(r, track, ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER, SIZE_MAX);
}

static void read_event(struct rd *r, struct seq *s, const Perfetto__Protos__TracePacket *p)
{
	const Perfetto__Protos__TrackEvent *e = p->track_event;
	uint64_t track = e->has_track_uuid ? e->track_uuid : s->def_track;
	const struct pf_track *k = track_of(r, track);
	int64_t ts;

	if (!packet_time(r, s, p, &ts)) {
		problem(r, "a track event without a time");
		return;
	}
	switch (e->type) {
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN:
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END:
		if (!k || k->is_counter || k->is_process) {
			problem(r, "a slice on track %" PRIu64 ", %s", track,
				!k            ? "not described" :
				k->is_counter ? "a counter track" :
						"a process track");
			return;
		}
		if (e->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN)
			read_begin(r, s, e, track, ts);
		else
			add_event(r, track, ts, (uint8_t)e->type, SIZE_MAX);
		break;
	case PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER:
		if (e->counter_value_field_case !=
		    PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_COUNTER_VALUE) {
			problem(r, "a counter event without an integer value");
			return;
		}
		add_counter(r, track, ts, e->counter_value);
		if (e->n_extra_counter_values > e->n_extra_counter_track_uuids) {
			problem(r, "more extra counter values than tracks");
			return;
		}
		for (size_t i = 0; i < e->n_extra_counter_values; i++)
			add_counter(r, e->extra_counter_track_uuids[i], ts,
				    e->extra_counter_values[i]);
		break;
	default:
		problem(r, "track event of type %d", (int)e->type);
	}
}

static void read_packet(struct rd *r, const Perfetto__Protos__TracePacket *p)
{
	struct seq *s;
	uint32_t flags = p->has_sequence_flags ? p->sequence_flags : 0;

	if (!p->has_trusted_packet_sequence_id || !p->trusted_packet_sequence_id) {
		problem(r, "no sequence id");
		return;
	}
	s = get_seq(r, p->trusted_packet_sequence_id);
	if (!s) {
		problem(r, "out of memory");
		return;
	}
	if (flags & PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED ||
	    (p->has_incremental_state_cleared && p->incremental_state_cleared)) {
		s->gen++;
		s->valid = true;
		s->def_clock = 0;
		s->def_track = 0;
	}
	if (!s->valid) {
		problem(r, "sequence %u: a packet before its state was cleared", s->id);
		return;
	}
	if (p->trace_packet_defaults) {
		const Perfetto__Protos__TracePacketDefaults *d = p->trace_packet_defaults;

		s->def_clock = d->has_timestamp_clock_id ? d->timestamp_clock_id : 0;
		s->def_track = d->track_event_defaults && d->track_event_defaults->has_track_uuid ?
				       d->track_event_defaults->track_uuid :
				       0;
	}
	if (p->interned_data)
		read_interned(r, s, p->interned_data);
	if (p->clock_snapshot) {
		read_snapshot(r, s, p->clock_snapshot);
		return; /* as trace_processor: nothing else of the packet is read */
	}
	if (p->track_descriptor)
		read_descriptor(r, p->track_descriptor);
	if (p->track_event)
		read_event(r, s, p);
}

/* ---- after the last packet ------------------------------------------------------ */

static int cmp_ev(const void *pa, const void *pb)
{
	const struct ev *a = pa, *b = pb;

	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

/* Each track's events in time order (file order for equal times) nest. */
static void check_nesting(struct rd *r)
{
	size_t *stack = malloc((r->n_ev ? r->n_ev : 1) * sizeof(*stack)), depth = 0;

	if (!stack) {
		problem(r, "out of memory");
		return;
	}
	if (r->n_ev)
		qsort(r->ev, r->n_ev, sizeof(*r->ev), cmp_ev);
	for (size_t i = 0; i < r->n_ev && !r->failed; i++) {
		const struct ev *e = &r->ev[i];

		if (i && r->ev[i - 1].track != e->track && depth) {
			problem(r, "track %" PRIu64 ": %zu slices never end", r->ev[i - 1].track,
				depth);
			break;
		}
		if (i && r->ev[i - 1].track != e->track)
			depth = 0;
		if (e->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN) {
			stack[depth++] = e->slice;
		} else if (e->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END) {
			if (!depth) {
				problem(r,
					"track %" PRIu64 ": an end at %" PRId64
					" with no slice open",
					e->track, e->ts);
				break;
			}
			r->t->slices[stack[--depth]].end = e->ts;
		}
	}
	if (!r->failed && depth)
		problem(r, "track %" PRIu64 ": %zu slices never end", r->ev[r->n_ev - 1].track,
			depth);
	free(stack);
}

static int cmp_fe(const void *pa, const void *pb)
{
	const struct fend *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->dst > b->dst) - (a->dst < b->dst);
}

/* Each flow id: one source, one destination, on two slices. */
static void check_flows(struct rd *r)
{
	struct pf_trace *t = r->t;

	if (r->n_fe)
		qsort(r->fe, r->n_fe, sizeof(*r->fe), cmp_fe);
	t->flows = malloc((r->n_fe / 2 + 1) * sizeof(*t->flows));
	if (!t->flows) {
		problem(r, "out of memory");
		return;
	}
	for (size_t i = 0; i < r->n_fe && !r->failed; i += 2) {
		const struct fend *a = &r->fe[i], *b = i + 1 < r->n_fe ? &r->fe[i + 1] : NULL;

		if (!b || b->id != a->id || a->dst || !b->dst ||
		    (i + 2 < r->n_fe && r->fe[i + 2].id == a->id)) {
			problem(r, "flow %" PRIu64 ": not one source and one destination", a->id);
			break;
		}
		if (a->slice == b->slice) {
			problem(r, "flow %" PRIu64 ": from a slice to itself", a->id);
			break;
		}
		t->flows[t->n_flows++] = (struct pf_flow){a->id, a->slice, b->slice};
	}
}

/* The inflated size a compressed_packets may reach (the exporter's are
 * 1 MiB; a bound, for the fuzz targets). */
#define PF_INFLATE_MAX ((size_t)64 << 20)

/* zlib-deflated packets (TracePacket.compressed_packets, as trace_processor
 * inflates them): a new buffer with *n bytes, NULL (a problem said) when
 * they do not inflate. */
static uint8_t *inflate_packets(struct rd *r, const ProtobufCBinaryData *z, size_t *n)
{
	z_stream zs;
	size_t cap = z->len * 4 + 256;
	uint8_t *out = malloc(cap);
	int rc = Z_OK;

	memset(&zs, 0, sizeof(zs));
	if (!out || inflateInit(&zs) != Z_OK) {
		free(out);
		problem(r, "packet %zu: no memory to inflate compressed packets", r->packet);
		return NULL;
	}
	zs.next_in = z->data;
	zs.avail_in = (uInt)z->len;
	*n = 0;
	while (rc == Z_OK) {
		if (*n == cap) {
			uint8_t *m = cap < PF_INFLATE_MAX ? realloc(out, cap * 2) : NULL;

			if (!m)
				break;
			out = m;
			cap *= 2;
		}
		zs.next_out = out + *n;
		zs.avail_out = (uInt)(cap - *n);
		rc = inflate(&zs, Z_NO_FLUSH);
		*n = cap - zs.avail_out;
	}
	inflateEnd(&zs);
	if (rc != Z_STREAM_END || zs.avail_in) {
		problem(r, "packet %zu: compressed packets do not inflate (%s)", r->packet,
			rc == Z_STREAM_END ? "bytes after the stream" :
			rc == Z_OK         ? "too large" :
					     "not a zlib stream");
		free(out);
		return NULL;
	}
	return out;
}

/* The Trace.packet fields of buf[0, len); inner: the packets of a
 * compressed_packets (which may not hold compressed packets again). */
static void read_packets(struct rd *r, const uint8_t *buf, size_t len, bool inner)
{
	size_t pos = 0;

	while (pos < len && !r->failed) {
		uint64_t tag = 0, n = 0;
		unsigned shift = 0;
		Perfetto__Protos__TracePacket *p;

		/* Trace.packet: field 1, length-delimited. */
		while (pos < len && shift < 64) {
			tag |= (uint64_t)(buf[pos] & 0x7f) << shift;
			shift += 7;
			if (!(buf[pos++] & 0x80))
				break;
		}
		if (tag != (1u << 3 | 2)) {
			problem(r, "at byte %zu%s: not a Trace.packet field (tag %" PRIu64 ")", pos,
				inner ? " of compressed packets" : "", tag);
			break;
		}
		for (shift = 0; pos < len && shift < 64;) {
			n |= (uint64_t)(buf[pos] & 0x7f) << shift;
			shift += 7;
			if (!(buf[pos++] & 0x80))
				break;
		}
		if (n > len - pos) {
			problem(r, "at byte %zu: a packet of %" PRIu64 " bytes, %zu left", pos, n,
				len - pos);
			break;
		}
		p = perfetto__protos__trace_packet__unpack(NULL, (size_t)n, buf + pos);
		if (!p) {
			problem(r, "at byte %zu: does not decode", pos);
			break;
		}
		if (p->has_compressed_packets) {
			uint8_t *in;
			size_t in_len = 0;

			if (inner)
				problem(r,
					"packet %zu: compressed packets within compressed packets",
					r->packet);
			else if (p->has_trusted_packet_sequence_id || p->has_timestamp ||
				 p->track_event || p->track_descriptor || p->clock_snapshot ||
				 p->interned_data || p->trace_packet_defaults)
				problem(r, "packet %zu: compressed packets beside other fields",
					r->packet);
			in = r->failed ? NULL : inflate_packets(r, &p->compressed_packets, &in_len);
			if (in) {
				r->compressed++;
				read_packets(r, in, in_len, true);
				free(in);
			}
		} else {
			read_packet(r, p);
			r->packet++;
		}
		perfetto__protos__trace_packet__free_unpacked(p, NULL);
		pos += (size_t)n;
	}
}

int pf_read(const uint8_t *buf, size_t len, enum pf_keep keep, struct pf_trace *t, char *err,
	    size_t err_size)
{
	struct rd r = {.t = t, .keep = keep, .err = err, .err_size = err_size};

	memset(t, 0, sizeof(*t));
	if (err_size)
		err[0] = '\0';
	read_packets(&r, buf, len, false);
	t->n_packets = r.packet;
	t->n_compressed = r.compressed;
	t->n_sequences = r.n_seqs;
	if (!r.failed)
		check_nesting(&r);
	if (!r.failed)
		check_flows(&r);
	for (size_t i = 0; i < r.n_str; i++)
		free(r.str[i]);
	free(r.str);
	free(r.seqs);
	map_free(&r.seq_ix);
	map_free(&r.strs);
	map_free(&r.track_ix);
	map_free(&r.pids);
	free(r.ev);
	free(r.fe);
	return r.failed ? -1 : 0;
}

const struct pf_track *pf_track_find(const struct pf_trace *t, uint64_t uuid)
{
	for (size_t i = 0; i < t->n_tracks; i++)
		if (t->tracks[i].uuid == uuid)
			return &t->tracks[i];
	return NULL;
}

void pf_trace_free(struct pf_trace *t)
{
	for (size_t i = 0; i < t->n_tracks; i++) {
		free(t->tracks[i].name);
		free(t->tracks[i].labels);
	}
	for (size_t i = 0; i < t->n_slices; i++) {
		free(t->slices[i].cat);
		free(t->slices[i].name);
		free(t->slices[i].args);
	}
	free(t->tracks);
	free(t->slices);
	free(t->flows);
	free(t->counters);
	memset(t, 0, sizeof(*t));
}
