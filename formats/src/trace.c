/* SPDX-License-Identifier: MIT */
/*
 * The in-memory trace model: flat record arrays filled through a gs_sink,
 * then sorted and indexed by gs_trace_finish() for the analyses.
 */
#include "util.h"

#include <gpuscope/names.h>
#include <gpuscope/sort.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>
#include <gpuscope/u64map.h>

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY(type, name)                                                                          \
	type *name;                                                                                \
	size_t n_##name, cap_##name

/* An open-addressing index over records kept in an array of the trace:
 * a slot holds 1 + a record's index (0: empty), found by the record's hash
 * and linear probing, at a load factor of at most one half. */
struct slot_table {
	uint32_t *slots;
	size_t n; /* a power of two, or 0 */
};

struct gs_trace {
	struct gs_sink sink; /* first member: the sink callbacks recover the trace */
	struct gs_strtab strings;
	struct gs_stream_map streams;
	ARRAY(struct gs_process, processes);
	ARRAY(struct gs_device, devices);
	ARRAY(struct gs_op, ops);
	ARRAY(struct gs_collective, collectives);
	/* Launch configurations, each kept once (op.launch is 1 + index),
	 * found by value through launch_ix. */
	ARRAY(struct gs_launch_cfg, launches);
	struct slot_table launch_ix;
	uint32_t launch_last; /* the id interned last: kernels repeat theirs */
	ARRAY(struct gs_api_call, api_calls);
	ARRAY(struct gs_sync, syncs);
	ARRAY(struct gs_event_record, event_records);
	ARRAY(struct gs_allocation, allocations);
	ARRAY(struct gs_op_alloc, op_allocs);
	ARRAY(struct gs_range, ranges);
	/* A copy of each annotation range (user annotations, NVTX, GPU
	 * annotations: few beside the operators), to find them after the
	 * sort without walking every range. */
	ARRAY(struct gs_range, ann_copies);
	ARRAY(struct gs_overhead, overheads);
	ARRAY(struct gs_clock_pair, clock_pairs);
	ARRAY(struct gs_warning, warnings);
	/* Warnings by message (open addressing: index + 1, 0 = empty), so
	 * that a repeated message is found in O(1), not by a scan. */
	uint32_t *warning_slots;
	size_t n_warning_slots;
	ARRAY(struct gs_thread, threads);
	size_t *stream_first; /* per stream, after finish */
	size_t *stream_count;
	struct slot_table device_ix; /* devices by id */
	/* After finish, per device id (by_device[k], ascending ids): its
	 * streams, dev_streams[first .. first + count), and its syncs,
	 * dev_syncs[first .. first + count), both ascending. */
	struct dev_range {
		uint32_t device;
		size_t stream_first, stream_count;
		size_t sync_first, sync_count;
	} * by_device;
	size_t n_by_device;
	uint32_t *dev_streams;
	uint32_t *dev_syncs;
	/* After finish (compute_joins): per op the API call that launched it,
	 * per sync the API call that made it; GS_NO_INDEX when none. */
	uint32_t *op_launch;
	uint32_t *sync_call;
	/* After finish (resolve_event_records): per sync the event record an
	 * event sync or stream wait names; NULL when no sync names one. */
	uint32_t *sync_record;
	/* After finish: the earliest op start and the latest op end (0 and 0
	 * without ops), so that asking for them does not walk every op. */
	int64_t op_first_ns, op_last_ns;
	/* Host ranges by kind (enum gs_range_kind), counted as they come. */
	size_t range_kinds[GS_RANGE_KIND_COUNT];
	/* After finish: the indices of the annotation ranges (user
	 * annotations, NVTX, GPU annotations), ascending. */
	uint32_t *annotations;
	size_t n_annotations;
	uint64_t dropped;
	/* Records refused because their times are impossible, by kind. */
	uint64_t bad_times[4];
	bool finished;
};

enum {
	BAD_OP,
	BAD_API,
	BAD_RANGE,
	BAD_SYNC
};

#define PUSH(t, name, value) GS_VEC_PUSH((t)->name, (t)->n_##name, (t)->cap_##name, (value))

static struct gs_trace *of(struct gs_sink *s)
{
	return (struct gs_trace *)s;
}

static bool times_ok(int64_t start, int64_t end)
{
	return end >= start && (uint64_t)end - (uint64_t)start <= (uint64_t)GS_MAX_DURATION_NS;
}

/*
 * The range check every record with times passes through (design.md, trace model;
 * trace_model.h GS_TIME_LIMIT_NS). The sink is the one place every reader feeds
 * (the .gscope reader, the Kineto and Nsight importers, replay), so the
 * check is here. It runs after times_ok(): a record the model drops for its
 * duration (end < start, over 7 days) is dropped and counted as before (the
 * .gscope reader takes an end past INT64_MAX by its duration: over 7 days,
 * or a start past the range below); a record that would be kept
 * with a time at or beyond ±2^62 ns refuses the whole trace, because the
 * analyses take differences of times (gaps, windows, delays) that would
 * overflow, and such a time is never a real clock reading. The error names
 * the record (kind, name, correlation id) and the time; the reader around
 * adds the file and the place (Kineto: the byte offset, Nsight: the table,
 * the command line: the file).
 */
static bool time_in_range(int64_t v)
{
	return v > -GS_TIME_LIMIT_NS && v < GS_TIME_LIMIT_NS;
}

/* The first of `n` times that is out of range, or NULL. */
static const char *out_of_range(const int64_t *v, const char *const *field, size_t n, int64_t *bad)
{
	for (size_t i = 0; i < n; i++) {
		if (!time_in_range(v[i])) {
			*bad = v[i];
			return field[i];
		}
	}
	return NULL;
}

/* "kernel 'name' (correlation 7): start time -4611686018427387904 ns is
 * out of range (...)". `name` may be GS_NO_STRING. */
static gs_status bad_time(const struct gs_trace *t, const char *what, uint32_t name,
			  uint64_t correlation, const char *field, int64_t v)
{
	char who[160];
	int n = snprintf(who, sizeof(who), "%s", what);

	if (name != GS_NO_STRING && n >= 0 && (size_t)n < sizeof(who))
		n += snprintf(who + n, sizeof(who) - (size_t)n, " '%.64s'",
			      gs_strtab_get(&t->strings, name));
	if (correlation && n >= 0 && (size_t)n < sizeof(who))
		snprintf(who + n, sizeof(who) - (size_t)n, " (correlation %llu)",
			 (unsigned long long)correlation);
	gs_error_append("%s: %s time %lld ns is out of range (|t| must be below 2^62 ns, about 146 "
			"years)",
			who, field, (long long)v);
	return GS_ERR_FORMAT;
}

/* A start/end pair that passed times_ok(): end >= start. */
static const char *span_out_of_range(int64_t start, int64_t end, int64_t *bad)
{
	static const char *const field[] = {"start", "end"};
	const int64_t v[] = {start, end};

	return out_of_range(v, field, 2, bad);
}

static gs_status sink_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	gs_status rc = gs_strtab_intern(&of(s)->strings, str, len, id);

	if (rc == GS_ERR_LIMIT)
		gs_error_append("too many strings");
	else if (rc)
		return gs_nomem();
	return rc;
}

static gs_status sink_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *index)
{
	struct gs_trace *t = of(s);
	gs_status rc = gs_stream_map_put(&t->streams, st, index);

	if (rc)
		return rc == GS_ERR_NOMEM ? gs_nomem() : rc;
	t->finished = false;
	return GS_OK;
}

static struct gs_process *find_process(struct gs_trace *t, int64_t pid)
{
	for (size_t i = 0; i < t->n_processes; i++)
		if (t->processes[i].pid == pid)
			return &t->processes[i];
	return NULL;
}

static void merge_string(uint32_t *dst, uint32_t src)
{
	if (src != GS_NO_STRING)
		*dst = src;
}

/* Counters stop at UINT64_MAX instead of wrapping to a small number. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static gs_status sink_process(struct gs_sink *s, const struct gs_process *p)
{
	struct gs_trace *t = of(s);
	struct gs_process *old = find_process(t, p->pid);

	if (!old) {
		if (PUSH(t, processes, *p))
			return gs_nomem();
		t->dropped = sat_add(t->dropped, p->dropped_records);
		return GS_OK;
	}
	merge_string(&old->host_name, p->host_name);
	merge_string(&old->command_line, p->command_line);
	merge_string(&old->driver_version, p->driver_version);
	merge_string(&old->runtime_version, p->runtime_version);
	merge_string(&old->cupti_version, p->cupti_version);
	if (p->start_ns)
		old->start_ns = p->start_ns;
	if (p->has_rank) {
		old->has_rank = true;
		old->rank = p->rank;
		old->world_size = p->world_size;
	}
	if (p->has_backend) {
		old->has_backend = true;
		old->backend = p->backend;
	}
	if (p->clock) {
		old->clock = p->clock;
		old->wall_offset_ns = p->wall_offset_ns;
	}
	if (p->capture)
		old->capture = p->capture;
	old->dropped_records = sat_add(old->dropped_records, p->dropped_records);
	t->dropped = sat_add(t->dropped, p->dropped_records);
	return GS_OK;
}

/* Room in x for one more of the `count` records (hash_of gives record k's
 * hash); on growth every record is placed anew (they are distinct). */
static gs_status slot_grow(struct slot_table *x, size_t count, size_t first,
			   const struct gs_trace *t,
			   uint64_t (*hash_of)(const struct gs_trace *t, size_t k))
{
	size_t n = x->n ? 2 * x->n : first;
	uint32_t *slots;

	if ((count + 1) * 2 <= x->n)
		return GS_OK;
	if (count >= UINT32_MAX - 1 || !(slots = calloc(n, sizeof(*slots))))
		return gs_nomem();
	for (size_t k = 0; k < count; k++) {
		size_t i = hash_of(t, k) & (n - 1);

		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = (uint32_t)k + 1;
	}
	free(x->slots);
	x->slots = slots;
	x->n = n;
	return GS_OK;
}

static uint64_t device_hash(const struct gs_trace *t, size_t k)
{
	return gs_hash_u64(t->devices[k].id);
}

/* The slot of device `id`, or the empty slot where it goes. */
static size_t device_slot(const struct gs_trace *t, uint32_t id)
{
	const struct slot_table *x = &t->device_ix;
	size_t i = gs_hash_u64(id) & (x->n - 1);

	while (x->slots[i] && t->devices[x->slots[i] - 1].id != id)
		i = (i + 1) & (x->n - 1);
	return i;
}

static gs_status sink_device(struct gs_sink *s, const struct gs_device *d)
{
	struct gs_trace *t = of(s);
	gs_status rc = slot_grow(&t->device_ix, t->n_devices, 16, t, device_hash);
	size_t slot;

	if (rc)
		return rc;
	slot = device_slot(t, d->id);
	if (t->device_ix.slots[slot]) {
		struct gs_device *old = &t->devices[t->device_ix.slots[slot] - 1];

		merge_string(&old->name, d->name);
		merge_string(&old->uuid, d->uuid);
		if (d->sm_count)
			old->sm_count = d->sm_count;
		if (d->cc_major || d->cc_minor) {
			old->cc_major = d->cc_major;
			old->cc_minor = d->cc_minor;
		}
		if (d->memory_bytes)
			old->memory_bytes = d->memory_bytes;
		if (d->copy_engines)
			old->copy_engines = d->copy_engines;
		return GS_OK;
	}
	if (PUSH(t, devices, *d))
		return gs_nomem();
	t->device_ix.slots[slot] = (uint32_t)t->n_devices;
	return GS_OK;
}

static gs_status check_stream(const struct gs_trace *t, uint32_t stream, const char *what)
{
	if (stream < t->streams.count)
		return GS_OK;
	gs_error_append("%s refers to undeclared stream %u", what, stream);
	return GS_ERR_FORMAT;
}

/* ---- launch configurations: one entry per distinct configuration ---- */

static bool launch_equal(const struct gs_launch_cfg *a, const struct gs_launch_cfg *b)
{
	return memcmp(a->grid, b->grid, sizeof(a->grid)) == 0 &&
	       memcmp(a->block, b->block, sizeof(a->block)) == 0 &&
	       a->shared_mem == b->shared_mem && a->registers == b->registers &&
	       a->graph_id == b->graph_id && a->mangled_name == b->mangled_name;
}

static bool launch_zero(const struct gs_launch_cfg *c)
{
	static const struct gs_launch_cfg zero;

	return launch_equal(c, &zero);
}

static uint64_t launch_hash(const struct gs_launch_cfg *c)
{
	uint64_t h = gs_hash_u64(c->shared_mem);

	for (int k = 0; k < 3; k++)
		h = gs_hash_combine(gs_hash_combine(h, c->grid[k]), c->block[k]);
	if (c->mangled_name)
		h = gs_hash_combine(h, c->mangled_name);
	return gs_hash_combine(gs_hash_combine(h, c->registers), c->graph_id);
}

static uint64_t launch_hash_at(const struct gs_trace *t, size_t k)
{
	return launch_hash(&t->launches[k]);
}

/* The slot of configuration c, or the empty slot where it goes. */
static size_t launch_slot(const struct gs_trace *t, const struct gs_launch_cfg *c)
{
	const struct slot_table *x = &t->launch_ix;
	size_t i = launch_hash(c) & (x->n - 1);

	while (x->slots[i] && !launch_equal(&t->launches[x->slots[i] - 1], c))
		i = (i + 1) & (x->n - 1);
	return i;
}

/* *id: 1 + the index of c in the launch table, added when new; 0 for none
 * (NULL or all zero). */
static gs_status launch_intern(struct gs_trace *t, const struct gs_launch_cfg *c, uint32_t *id)
{
	size_t slot;

	*id = 0;
	if (!c || launch_zero(c))
		return GS_OK;
	if (t->launch_last && launch_equal(&t->launches[t->launch_last - 1], c)) {
		*id = t->launch_last;
		return GS_OK;
	}
	if (slot_grow(&t->launch_ix, t->n_launches, 64, t, launch_hash_at))
		return gs_nomem();
	slot = launch_slot(t, c);
	if (!t->launch_ix.slots[slot]) {
		if (PUSH(t, launches, *c))
			return gs_nomem();
		t->launch_ix.slots[slot] = (uint32_t)t->n_launches;
	}
	*id = t->launch_ix.slots[slot];
	t->launch_last = *id;
	return GS_OK;
}

/* ---- end of launch configurations ---- */

static gs_status sink_op(struct gs_sink *s, const struct gs_op *op,
			 const struct gs_launch_cfg *launch)
{
	struct gs_trace *t = of(s);
	gs_status rc = check_stream(t, op->stream, "an op");
	struct gs_op kept;
	const char *field;
	int64_t bad;

	if (rc)
		return rc;
	if (op->kind >= GS_OP_KIND_COUNT) {
		gs_error_append("op of unknown kind %u", op->kind);
		return GS_ERR_FORMAT;
	}
	if (op->collective > t->n_collectives) {
		gs_error_append("an op refers to undeclared collective %u", op->collective - 1);
		return GS_ERR_FORMAT;
	}
	if (!times_ok(op->start_ns, op->end_ns)) {
		t->bad_times[BAD_OP]++;
		return GS_OK;
	}
	field = span_out_of_range(op->start_ns, op->end_ns, &bad);
	if (field)
		return bad_time(t, gs_op_kind_name(op->kind), op->name, op->correlation, field,
				bad);
	kept = *op;
	rc = launch_intern(t, launch, &kept.launch);
	if (rc)
		return rc;
	t->finished = false;
	return PUSH(t, ops, kept) ? gs_nomem() : GS_OK;
}

static gs_status sink_collective(struct gs_sink *s, const struct gs_collective *c, uint32_t *index)
{
	struct gs_trace *t = of(s);

	if (t->n_collectives >= UINT32_MAX - 1) {
		gs_error_append("too many collectives");
		return GS_ERR_LIMIT;
	}
	if (PUSH(t, collectives, *c))
		return gs_nomem();
	*index = (uint32_t)t->n_collectives - 1;
	return GS_OK;
}

static gs_status sink_api_call(struct gs_sink *s, const struct gs_api_call *c)
{
	struct gs_trace *t = of(s);
	const char *field;
	int64_t bad;

	if (!times_ok(c->start_ns, c->end_ns)) {
		t->bad_times[BAD_API]++;
		return GS_OK;
	}
	field = span_out_of_range(c->start_ns, c->end_ns, &bad);
	if (field)
		return bad_time(t, "API call", c->name, c->correlation, field, bad);
	t->finished = false;
	return PUSH(t, api_calls, *c) ? gs_nomem() : GS_OK;
}

static gs_status sink_sync(struct gs_sink *s, const struct gs_sync *y)
{
	struct gs_trace *t = of(s);
	gs_status rc = GS_OK;
	const char *field;
	int64_t bad;

	if (y->stream != GS_NO_INDEX)
		rc = check_stream(t, y->stream, "a sync");
	if (!rc && y->wait_on_stream != GS_NO_INDEX)
		rc = check_stream(t, y->wait_on_stream, "a sync");
	if (rc)
		return rc;
	if (!times_ok(y->start_ns, y->end_ns)) {
		t->bad_times[BAD_SYNC]++;
		return GS_OK;
	}
	field = span_out_of_range(y->start_ns, y->end_ns, &bad);
	if (field)
		return bad_time(t, "sync", GS_NO_STRING, y->correlation, field, bad);
	t->finished = false;
	return PUSH(t, syncs, *y) ? gs_nomem() : GS_OK;
}

static gs_status sink_event_record(struct gs_sink *s, const struct gs_event_record *e)
{
	struct gs_trace *t = of(s);

	if (e->stream != GS_NO_INDEX) {
		gs_status rc = check_stream(t, e->stream, "an event record");
		if (rc)
			return rc;
	}
	if (!time_in_range(e->time_ns))
		return bad_time(t, "event record", GS_NO_STRING, e->correlation, "record",
				e->time_ns);
	t->finished = false;
	return PUSH(t, event_records, *e) ? gs_nomem() : GS_OK;
}

static gs_status sink_allocation(struct gs_sink *s, const struct gs_allocation *a, uint32_t *index)
{
	struct gs_trace *t = of(s);
	static const char *const field[] = {"allocation", "free"};
	const int64_t v[] = {a->alloc_ns, a->free_ns};
	const char *bad_field;
	int64_t bad;

	if (t->n_allocations >= UINT32_MAX - 1) {
		gs_error_append("too many allocations");
		return GS_ERR_LIMIT;
	}
	bad_field = out_of_range(v, field, 2, &bad);
	if (bad_field) {
		char what[96];

		snprintf(what, sizeof(what), "allocation at 0x%llx",
			 (unsigned long long)a->address);
		return bad_time(t, what, GS_NO_STRING, 0, bad_field, bad);
	}
	if (PUSH(t, allocations, *a))
		return gs_nomem();
	if (index)
		*index = (uint32_t)t->n_allocations - 1;
	return GS_OK;
}

static gs_status sink_op_alloc(struct gs_sink *s, const struct gs_op_alloc *l)
{
	struct gs_trace *t = of(s);

	if (l->allocation >= t->n_allocations) {
		gs_error_append("an op link refers to undeclared allocation %u", l->allocation);
		return GS_ERR_FORMAT;
	}
	return PUSH(t, op_allocs, *l) ? gs_nomem() : GS_OK;
}

static bool is_annotation(uint8_t kind)
{
	return kind == GS_RANGE_USER_ANNOTATION || kind == GS_RANGE_NVTX ||
	       kind == GS_RANGE_GPU_ANNOTATION;
}

static gs_status sink_range(struct gs_sink *s, const struct gs_range *r)
{
	struct gs_trace *t = of(s);
	const char *field;
	int64_t bad;

	if (!times_ok(r->start_ns, r->end_ns)) {
		t->bad_times[BAD_RANGE]++;
		return GS_OK;
	}
	field = span_out_of_range(r->start_ns, r->end_ns, &bad);
	if (field)
		return bad_time(t, "host range", r->name, 0, field, bad);
	if (r->kind == GS_RANGE_GPU_ANNOTATION && r->stream >= t->streams.count) {
		gs_error_append("a GPU annotation range refers to undeclared stream %u", r->stream);
		return GS_ERR_FORMAT;
	}
	t->finished = false;
	if (PUSH(t, ranges, *r) || (is_annotation(r->kind) && PUSH(t, ann_copies, *r)))
		return gs_nomem();
	if (r->kind < GS_RANGE_KIND_COUNT)
		t->range_kinds[r->kind]++;
	return GS_OK;
}

static gs_status sink_overhead(struct gs_sink *s, const struct gs_overhead *o)
{
	struct gs_trace *t = of(s);
	const char *field;
	int64_t bad;

	if (!times_ok(o->start_ns, o->end_ns))
		return GS_OK;
	field = span_out_of_range(o->start_ns, o->end_ns, &bad);
	if (field)
		return bad_time(t, "collector overhead", o->kind, 0, field, bad);
	return PUSH(t, overheads, *o) ? gs_nomem() : GS_OK;
}

static gs_status sink_clock_pair(struct gs_sink *s, const struct gs_clock_pair *c)
{
	struct gs_trace *t = of(s);

	return PUSH(t, clock_pairs, *c) ? gs_nomem() : GS_OK;
}

static gs_status sink_dropped(struct gs_sink *s, int64_t pid, uint64_t count)
{
	struct gs_trace *t = of(s);
	struct gs_process *p = find_process(t, pid);

	if (!p) {
		struct gs_process np = {.pid = pid,
					.host_name = GS_NO_STRING,
					.command_line = GS_NO_STRING,
					.driver_version = GS_NO_STRING,
					.runtime_version = GS_NO_STRING,
					.cupti_version = GS_NO_STRING};
		if (PUSH(t, processes, np))
			return gs_nomem();
		p = &t->processes[t->n_processes - 1];
	}
	p->dropped_records = sat_add(p->dropped_records, count);
	t->dropped = sat_add(t->dropped, count);
	return GS_OK;
}

static gs_status sink_warning(struct gs_sink *s, const char *msg, uint64_t count, unsigned kind)
{
	return gs_trace_add_warning(of(s), msg, count, kind);
}

static size_t warning_slot(const uint32_t *slots, size_t n_slots, const struct gs_warning *w,
			   const char *msg)
{
	size_t i = gs_hash_bytes(msg, strlen(msg)) & (n_slots - 1);

	while (slots[i] && strcmp(w[slots[i] - 1].message, msg) != 0)
		i = (i + 1) & (n_slots - 1);
	return i;
}

/* Room for one more warning at a load factor of at most one half. */
static gs_status warning_slots_grow(struct gs_trace *t)
{
	size_t n = t->n_warning_slots ? 2 * t->n_warning_slots : 64;
	uint32_t *slots;

	if ((t->n_warnings + 1) * 2 <= t->n_warning_slots)
		return GS_OK;
	if (t->n_warnings >= UINT32_MAX - 1)
		return gs_nomem();
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return gs_nomem();
	for (size_t k = 0; k < t->n_warnings; k++)
		slots[warning_slot(slots, n, t->warnings, t->warnings[k].message)] =
			(uint32_t)k + 1;
	free(t->warning_slots);
	t->warning_slots = slots;
	t->n_warning_slots = n;
	return GS_OK;
}

/* Warnings keep the order of their first appearance; a repeat adds to the
 * count of the first. */
gs_status gs_trace_add_warning(struct gs_trace *t, const char *msg, uint64_t count, unsigned kind)
{
	struct gs_warning w;
	size_t i;
	gs_status rc = warning_slots_grow(t);

	if (rc)
		return rc;
	i = warning_slot(t->warning_slots, t->n_warning_slots, t->warnings, msg);
	if (t->warning_slots[i]) {
		struct gs_warning *old = &t->warnings[t->warning_slots[i] - 1];

		old->count = sat_add(old->count, count);
		return GS_OK;
	}
	w.message = strdup(msg);
	w.count = count;
	w.kind = (uint8_t)(kind < GS_WARNING_KIND_COUNT ? kind : GS_WARNING_OTHER);
	if (!w.message)
		return gs_nomem();
	if (PUSH(t, warnings, w)) {
		free((void *)(uintptr_t)w.message);
		return gs_nomem();
	}
	t->warning_slots[i] = (uint32_t)t->n_warnings;
	return GS_OK;
}

gs_status gs_trace_create(struct gs_trace **out)
{
	struct gs_trace *t = calloc(1, sizeof(*t));

	if (!t)
		return gs_nomem();
	gs_strtab_init(&t->strings);
	gs_stream_map_init(&t->streams);
	t->sink = (struct gs_sink){
		.intern = sink_intern,
		.stream = sink_stream,
		.process = sink_process,
		.device = sink_device,
		.op = sink_op,
		.collective = sink_collective,
		.api_call = sink_api_call,
		.sync = sink_sync,
		.event_record = sink_event_record,
		.allocation = sink_allocation,
		.op_alloc = sink_op_alloc,
		.range = sink_range,
		.overhead = sink_overhead,
		.clock_pair = sink_clock_pair,
		.dropped = sink_dropped,
		.warning = sink_warning,
	};
	*out = t;
	return GS_OK;
}

void gs_trace_destroy(struct gs_trace *t)
{
	if (!t)
		return;
	gs_strtab_fini(&t->strings);
	gs_stream_map_fini(&t->streams);
	for (size_t i = 0; i < t->n_warnings; i++)
		free((void *)(uintptr_t)t->warnings[i].message);
	free(t->processes);
	free(t->devices);
	free(t->ops);
	free(t->collectives);
	free(t->launches);
	free(t->launch_ix.slots);
	free(t->api_calls);
	free(t->syncs);
	free(t->event_records);
	free(t->allocations);
	free(t->op_allocs);
	free(t->ranges);
	free(t->ann_copies);
	free(t->annotations);
	free(t->overheads);
	free(t->clock_pairs);
	free(t->warnings);
	free(t->warning_slots);
	free(t->threads);
	free(t->stream_first);
	free(t->stream_count);
	free(t->device_ix.slots);
	free(t->by_device);
	free(t->dev_streams);
	free(t->dev_syncs);
	free(t->op_launch);
	free(t->sync_call);
	free(t->sync_record);
	free(t);
}

struct gs_sink *gs_trace_borrow_sink(struct gs_trace *t)
{
	return &t->sink;
}

/* ---- finish: sort and index ---- */

#define CMP(a, b)                                                                                  \
	do {                                                                                       \
		if ((a) != (b))                                                                    \
			return (a) < (b) ? -1 : 1;                                                 \
	} while (0)

static int cmp_op(const void *pa, const void *pb)
{
	const struct gs_op *a = pa, *b = pb;

	CMP(a->stream, b->stream);
	CMP(a->start_ns, b->start_ns);
	CMP(a->end_ns, b->end_ns);
	CMP(a->correlation, b->correlation);
	CMP(a->kind, b->kind);
	CMP(a->name, b->name);
	return 0;
}

static int cmp_api(const void *pa, const void *pb)
{
	const struct gs_api_call *a = pa, *b = pb;

	CMP(a->pid, b->pid);
	CMP(a->tid, b->tid);
	CMP(a->start_ns, b->start_ns);
	CMP(b->end_ns, a->end_ns); /* enclosing call first */
	CMP(a->correlation, b->correlation);
	CMP(a->name, b->name);
	return 0;
}

static int cmp_sync(const void *pa, const void *pb)
{
	const struct gs_sync *a = pa, *b = pb;

	CMP(a->start_ns, b->start_ns);
	CMP(a->end_ns, b->end_ns);
	CMP(a->correlation, b->correlation);
	CMP(a->kind, b->kind);
	return 0;
}

static int cmp_event_record(const void *pa, const void *pb)
{
	const struct gs_event_record *a = pa, *b = pb;

	CMP(a->correlation, b->correlation);
	CMP(a->time_ns, b->time_ns);
	CMP(a->event_id, b->event_id);
	return 0;
}

static int cmp_range(const void *pa, const void *pb)
{
	const struct gs_range *a = pa, *b = pb;

	CMP(a->start_ns, b->start_ns);
	CMP(b->end_ns, a->end_ns); /* enclosing range first */
	CMP(a->pid, b->pid);
	CMP(a->tid, b->tid);
	CMP(a->kind, b->kind);
	CMP(a->name, b->name);
	return 0;
}

static int cmp_overhead(const void *pa, const void *pb)
{
	const struct gs_overhead *a = pa, *b = pb;

	CMP(a->start_ns, b->start_ns);
	CMP(a->end_ns, b->end_ns);
	return 0;
}

/* Sort keys: each orders records as its comparator's leading field. */
static uint64_t key_op(const void *p)
{
	return gs_sort_key_i64(((const struct gs_op *)p)->start_ns);
}

static uint64_t key_api(const void *p)
{
	return gs_sort_key_i64(((const struct gs_api_call *)p)->start_ns);
}

static uint64_t key_sync(const void *p)
{
	return gs_sort_key_i64(((const struct gs_sync *)p)->start_ns);
}

static uint64_t key_event_record(const void *p)
{
	return ((const struct gs_event_record *)p)->correlation;
}

static uint64_t key_range(const void *p)
{
	return gs_sort_key_i64(((const struct gs_range *)p)->start_ns);
}

static uint64_t key_overhead(const void *p)
{
	return gs_sort_key_i64(((const struct gs_overhead *)p)->start_ns);
}

/* A stable sort by cmp (gpuscope/sort.h): the order glibc's merge-sort
 * qsort gave. */
static gs_status sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *),
		      uint64_t (*key)(const void *))
{
	struct gs_sort_spec spec = {.size = size, .cmp = cmp, .key = key};

	return gs_sort_records(base, n, &spec) ? gs_nomem() : GS_OK;
}

/* Ops by stream (the group), then start and the rest; then each stream's
 * first op and count. GS_ERR_NOMEM without a cause: it may run on a second
 * thread, whose causes the caller would not see. The array the ops were
 * sorted away from goes to *spare (*spare_bytes long; NULL when they were
 * sorted where they were), for the next sort to fill. */
static gs_status sort_ops(struct gs_trace *t, void **spare, size_t *spare_bytes)
{
	struct gs_sort_spec spec = {.size = sizeof(*t->ops), .cmp = cmp_op, .key = key_op};
	size_t nstreams = t->streams.count;
	uint32_t *groups;
	void *sorted;
	gs_status rc = GS_OK;

	if (t->n_ops >= 2) {
		groups = malloc(t->n_ops * sizeof(*groups));
		if (!groups)
			return GS_ERR_NOMEM;
		for (size_t i = 0; i < t->n_ops; i++)
			groups[i] = t->ops[i].stream;
		spec.groups = groups;
		spec.ngroups = (uint32_t)nstreams;
		/* Streams interleave in time: the ops move far, so a copy. */
		rc = gs_sort_records_copy(t->ops, t->n_ops, &spec, &sorted);
		free(groups);
		if (rc)
			return GS_ERR_NOMEM;
		if (sorted) {
			*spare = t->ops;
			*spare_bytes = t->cap_ops * sizeof(*t->ops);
			t->ops = sorted;
			t->cap_ops = t->n_ops;
		}
	}
	free(t->stream_first);
	free(t->stream_count);
	t->stream_first = calloc(nstreams ? nstreams : 1, sizeof(size_t));
	t->stream_count = calloc(nstreams ? nstreams : 1, sizeof(size_t));
	if (!t->stream_first || !t->stream_count)
		return GS_ERR_NOMEM;
	for (size_t i = t->n_ops; i-- > 0;) {
		t->stream_first[t->ops[i].stream] = i;
		t->stream_count[t->ops[i].stream]++;
	}
	return GS_OK;
}

/* The op sort, then the range sort, on a second CPU while this thread
 * sorts the other records (API calls the largest): the two threads touch
 * different arrays, and each sort alone decides its order, so the trace is
 * the same with one CPU or two. The ranges go with the ops because the op
 * sort is the cheaper of the large ones (ops come in start order within
 * their stream: a pass by stream, no radix sort). GS_ERR_NOMEM without a
 * cause, as sort_ops.
 *
 * Ranges, API calls and ops are sorted into a new array that replaces the
 * old, not permuted in place: at 1e7 ops the in-place walk along the
 * permutation's cycles cost 2.2 s of CPU (a TLB miss a record over 0.6 to
 * 0.9 GB), the gather a fraction of it plus the new array's page faults;
 * the copy lives only until the old array is freed, below the peak of
 * `analyze` (bench/NOTES.md, "the copies of gs_trace_finish"). */
#define GS_FINISH_THREAD_MIN (1u << 16) /* ops; below, a thread costs more */

struct ops_job {
	struct gs_trace *t;
	gs_status rc;
};

static void *ops_job_main(void *arg)
{
	struct ops_job *j = arg;
	struct gs_trace *t = j->t;
	struct gs_sort_spec spec = {.size = sizeof(*t->ranges), .cmp = cmp_range, .key = key_range};
	size_t need = t->n_ranges * sizeof(*t->ranges), spare_bytes = 0;
	void *spare = NULL, *sorted = NULL;
	gs_status rc;

	j->rc = sort_ops(t, &spare, &spare_bytes);
	if (j->rc || t->n_ranges < 2) {
		free(spare);
		return NULL;
	}
	/* The ranges go into the ops' old array, whose pages are touched
	 * already, brought to their size (mremap keeps the pages, and gives
	 * back a longer array's tail), else into a new one. */
	if (spare && spare_bytes != need) {
		void *p = realloc(spare, need);

		if (!p)
			free(spare);
		spare = p;
	}
	if (spare)
		rc = gs_sort_records_into(t->ranges, t->n_ranges, &spec, spare, &sorted);
	else
		rc = gs_sort_records_copy(t->ranges, t->n_ranges, &spec, &sorted);
	if (rc)
		j->rc = GS_ERR_NOMEM;
	if (sorted) {
		free(t->ranges);
		t->ranges = sorted;
		t->cap_ranges = t->n_ranges;
		if (sorted == spare)
			spare = NULL;
	}
	free(spare);
	return NULL;
}

/* API calls by host thread (the group: ranks of (pid, tid)), then start,
 * into a new array (see ops_job_main). */
static gs_status sort_api_calls(struct gs_trace *t)
{
	struct gs_sort_spec spec = {.size = sizeof(*t->api_calls), .cmp = cmp_api, .key = key_api};
	uint32_t *groups;
	void *sorted = NULL;
	gs_status rc;

	if (t->n_api_calls < 2)
		return GS_OK;
	groups = malloc(t->n_api_calls * sizeof(*groups));
	if (!groups)
		return gs_nomem();
	rc = gs_sort_pair_ranks(t->api_calls, t->n_api_calls, sizeof(*t->api_calls),
				offsetof(struct gs_api_call, pid),
				offsetof(struct gs_api_call, tid), groups, &spec.ngroups);
	spec.groups = groups;
	if (!rc)
		rc = gs_sort_records_copy(t->api_calls, t->n_api_calls, &spec, &sorted);
	free(groups);
	if (rc)
		return gs_nomem();
	if (sorted) {
		free(t->api_calls);
		t->api_calls = sorted;
		t->cap_api_calls = t->n_api_calls;
	}
	return GS_OK;
}

static gs_status report_bad_times(struct gs_trace *t)
{
	static const char *const what[] = {"GPU ops", "API calls", "host ranges", "syncs"};
	char msg[160];

	for (int k = 0; k < 4; k++) {
		gs_status rc;

		if (!t->bad_times[k])
			continue;
		snprintf(msg, sizeof(msg), "dropped %s with a negative or over-7-day duration",
			 what[k]);
		rc = gs_trace_add_warning(t, msg, t->bad_times[k], GS_WARNING_OTHER);
		if (rc)
			return rc;
		t->bad_times[k] = 0;
	}
	return GS_OK;
}

/* A stream or a sync under its device, for index_devices. */
struct dev_key {
	uint64_t key; /* device << 32 | index */
};

static int cmp_dev_key(const void *pa, const void *pb)
{
	uint64_t a = ((const struct dev_key *)pa)->key, b = ((const struct dev_key *)pb)->key;

	return a < b ? -1 : a > b;
}

/*
 * The streams and syncs of each device id, so that an analysis of one
 * device reads its own records only. O((S + Y) log(S + Y)).
 */
static gs_status index_devices(struct gs_trace *t)
{
	size_t ns = t->streams.count, ny = t->n_syncs, n = ns + ny;
	struct dev_key *key = malloc((n ? n : 1) * sizeof(*key));

	free(t->by_device);
	free(t->dev_streams);
	free(t->dev_syncs);
	t->n_by_device = 0;
	t->by_device = malloc((n ? n : 1) * sizeof(*t->by_device));
	t->dev_streams = malloc((ns ? ns : 1) * sizeof(*t->dev_streams));
	t->dev_syncs = malloc((ny ? ny : 1) * sizeof(*t->dev_syncs));
	if (!key || !t->by_device || !t->dev_streams || !t->dev_syncs || ns >= UINT32_MAX ||
	    ny >= UINT32_MAX) {
		free(key);
		return gs_nomem();
	}
	/* Streams first, then syncs, each sorted by (device, index). */
	for (size_t i = 0; i < ns; i++)
		key[i].key = (uint64_t)t->streams.streams[i].device << 32 | i;
	for (size_t i = 0; i < ny; i++)
		key[ns + i].key = (uint64_t)t->syncs[i].device << 32 | i;
	qsort(key, ns, sizeof(*key), cmp_dev_key);
	qsort(key + ns, ny, sizeof(*key), cmp_dev_key);
	for (size_t i = 0, j = ns; i < ns || j < n;) {
		uint32_t di = i < ns ? (uint32_t)(key[i].key >> 32) : UINT32_MAX;
		uint32_t dj = j < n ? (uint32_t)(key[j].key >> 32) : UINT32_MAX;
		uint32_t dev = (i < ns && (j == n || di <= dj)) ? di : dj;
		struct dev_range *r = &t->by_device[t->n_by_device++];

		*r = (struct dev_range){.device = dev, .stream_first = i, .sync_first = j - ns};
		for (; i < ns && (uint32_t)(key[i].key >> 32) == dev; i++)
			t->dev_streams[i] = (uint32_t)key[i].key;
		for (; j < n && (uint32_t)(key[j].key >> 32) == dev; j++)
			t->dev_syncs[j - ns] = (uint32_t)key[j].key;
		r->stream_count = i - r->stream_first;
		r->sync_count = j - ns - r->sync_first;
	}
	free(key);
	return GS_OK;
}

/* ---- joins: ops and syncs to the API calls that issued them ---- */

/*
 * The API calls by correlation id: for an id, the calls that carry it,
 * ascending by index (their order in gs_trace_api_calls()). When the ids
 * span at most about four times their number (they are a counter), a
 * direct table: first[id - base] .. first[id - base + 1] into idx; else
 * the (id, index) pairs sorted, found by binary search.
 */
/* An id of at most this many calls is joined by a scan of them. */
#define GS_JOIN_SCAN 16
/* No real trace puts one id on more calls than this. */
#define GS_JOIN_MAX_CALLS (1u << 20)
#define JOIN_REPEAT_WARNING                                                                        \
	"API calls repeat a correlation id of their thread (neither encloses the other): "         \
	"each op or sync with such an id joined to the call that started last before it"

struct corr_ent {
	uint64_t corr;
	uint32_t idx;
};

struct call_ix {
	uint64_t base;
	size_t range;          /* direct: ids base .. base + range - 1 */
	uint32_t *first;       /* direct: range + 1 offsets into idx */
	uint32_t *idx;         /* direct: call indices grouped by id */
	struct corr_ent *ents; /* sorted: (id, index) pairs */
	size_t n;              /* calls with an id */
	/* Ids of more than GS_JOIN_SCAN calls, per position of the group in
	 * the index (call_ix_at): the group's calls in three orders, each by
	 * start, end descending, index descending, after its key: by_thread
	 * after (pid, tid), by_pid after pid, by_all alone; thr_end is the
	 * largest end so far in by_thread, from the start of each thread. NULL
	 * when no id has that many calls. */
	uint32_t *by_thread, *by_pid, *by_all;
	int64_t *thr_end;
};

static int cmp_corr_ent(const void *pa, const void *pb)
{
	const struct corr_ent *a = pa, *b = pb;

	CMP(a->corr, b->corr);
	CMP(a->idx, b->idx);
	return 0;
}

static uint64_t key_corr_ent(const void *p)
{
	return ((const struct corr_ent *)p)->corr;
}

static gs_status call_ix_build(struct call_ix *ix, const struct gs_api_call *api, size_t n_api)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	memset(ix, 0, sizeof(*ix));
	for (size_t i = 0; i < n_api; i++) {
		uint64_t c = api[i].correlation;

		if (!c)
			continue;
		ix->n++;
		lo = c < lo ? c : lo;
		hi = c > hi ? c : hi;
	}
	if (!ix->n)
		return GS_OK;
	if (hi - lo < 4 * (uint64_t)ix->n + 1024) {
		ix->base = lo;
		ix->range = (size_t)(hi - lo + 1);
		ix->first = calloc(ix->range + 1, sizeof(*ix->first));
		ix->idx = calloc(ix->n, sizeof(*ix->idx));
		if (!ix->first || !ix->idx)
			return gs_nomem();
		for (size_t i = 0; i < n_api; i++)
			if (api[i].correlation)
				ix->first[api[i].correlation - lo + 1]++;
		for (size_t k = 0; k < ix->range; k++)
			ix->first[k + 1] += ix->first[k];
		/* Fill in call order; first[k] walks to the next group's start,
		 * then is moved back one group. */
		for (size_t i = 0; i < n_api; i++)
			if (api[i].correlation)
				ix->idx[ix->first[api[i].correlation - lo]++] = (uint32_t)i;
		memmove(ix->first + 1, ix->first, ix->range * sizeof(*ix->first));
		ix->first[0] = 0;
		return GS_OK;
	}
	ix->ents = malloc(ix->n * sizeof(*ix->ents));
	if (!ix->ents)
		return gs_nomem();
	for (size_t i = 0, k = 0; i < n_api; i++)
		if (api[i].correlation)
			ix->ents[k++] = (struct corr_ent){api[i].correlation, (uint32_t)i};
	return sort(ix->ents, ix->n, sizeof(*ix->ents), cmp_corr_ent, key_corr_ent);
}

static void call_ix_free(struct call_ix *ix)
{
	free(ix->first);
	free(ix->idx);
	free(ix->ents);
	free(ix->by_thread);
	free(ix->by_pid);
	free(ix->by_all);
	free(ix->thr_end);
}

/* The calls with id `corr` (0: none): their number, in call order from
 * position *pos (call_ix_at). */
static size_t call_ix_find(const struct call_ix *ix, uint64_t corr, size_t *pos)
{
	size_t a = 0, b = ix->n, lo;

	*pos = 0;
	if (!corr || !ix->n)
		return 0;
	if (ix->first) {
		if (corr < ix->base || corr - ix->base >= ix->range)
			return 0;
		*pos = ix->first[corr - ix->base];
		return ix->first[corr - ix->base + 1] - *pos;
	}
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (ix->ents[m].corr < corr)
			a = m + 1;
		else
			b = m;
	}
	lo = a;
	while (a < ix->n && ix->ents[a].corr == corr)
		a++;
	*pos = lo;
	return a - lo;
}

static uint32_t call_ix_at(const struct call_ix *ix, size_t pos)
{
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
	return ix->first ? ix->idx[pos] : ix->ents[pos].idx;
}

/* Who asks for a call: its process (0: unknown), its thread (-1: unknown,
 * as for an op) and its start. */
struct call_want {
	int64_t pid, tid, before_ns;
};

/* True when call a is preferred over call b (the rule: trace.h). */
static bool better_call(const struct gs_api_call *a, const struct gs_api_call *b,
			const struct call_want *w)
{
	if (w->tid >= 0) {
		bool ta = a->pid == w->pid && a->tid == w->tid;
		bool tb = b->pid == w->pid && b->tid == w->tid;

		if (ta != tb)
			return ta;
	}
	if (w->pid > 0 && (a->pid == w->pid) != (b->pid == w->pid))
		return a->pid == w->pid;
	if ((a->start_ns <= w->before_ns) != (b->start_ns <= w->before_ns))
		return a->start_ns <= w->before_ns;
	if (a->start_ns != b->start_ns)
		return a->start_ns > b->start_ns;
	return a->end_ns < b->end_ns; /* the inner one; enclosing calls come next */
}

/* The rule by a scan of the n calls from position pos: for the few calls
 * an id has in real traces (a runtime call and its driver call). */
static uint32_t pick_scan(const struct call_ix *ix, const struct gs_api_call *api, size_t pos,
			  size_t n, const struct call_want *w)
{
	uint32_t best = GS_NO_INDEX, outer;

	for (size_t k = 0; k < n; k++) {
		uint32_t c = call_ix_at(ix, pos + k);

		if (best == GS_NO_INDEX || better_call(&api[c], &api[best], w))
			best = c;
	}
	/* A call of the same thread around the chosen one: the outermost. */
	outer = best;
	for (size_t k = 0; k < n; k++) {
		uint32_t c = call_ix_at(ix, pos + k);
		const struct gs_api_call *a = &api[c], *o = &api[outer], *b = &api[best];

		if (a->pid != b->pid || a->tid != b->tid || c == outer)
			continue;
		if (a->start_ns <= b->start_ns && a->end_ns >= b->end_ns &&
		    (a->start_ns < o->start_ns ||
		     (a->start_ns == o->start_ns && a->end_ns > o->end_ns)))
			outer = c;
	}
	return outer;
}

/* ---- ids of many calls: the rule by binary searches ----
 *
 * In an order by start, end descending and index descending, the rule's
 * choice among calls that started no later than the record is the last of
 * them (the latest start, then the earliest end, then the lowest index),
 * and without such a call the last of all. The calls the rule looks at
 * first (the record's thread, else its process, else all) are one run of
 * by_thread or by_pid, found by binary search; the call around the chosen
 * one is the first of its thread's run whose largest end so far reaches
 * the chosen one's end. */

struct call_key {
	int64_t pid, tid, start, end;
	uint32_t idx;
};

static int cmp_key_span(const struct call_key *a, const struct call_key *b)
{
	CMP(a->start, b->start);
	CMP(b->end, a->end);
	CMP(b->idx, a->idx);
	return 0;
}

static int cmp_key_all(const void *pa, const void *pb)
{
	return cmp_key_span(pa, pb);
}

static int cmp_key_pid(const void *pa, const void *pb)
{
	const struct call_key *a = pa, *b = pb;

	CMP(a->pid, b->pid);
	return cmp_key_span(a, b);
}

static int cmp_key_thread(const void *pa, const void *pb)
{
	const struct call_key *a = pa, *b = pb;

	CMP(a->pid, b->pid);
	CMP(a->tid, b->tid);
	return cmp_key_span(a, b);
}

/* The first place in ord[lo, hi) whose call is not before (pid, tid) (not
 * before pid alone without with_tid); with `upper`, the first after it. */
static size_t owner_bound(const uint32_t *ord, size_t lo, size_t hi, const struct gs_api_call *api,
			  int64_t pid, int64_t tid, bool with_tid, bool upper)
{
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
		const struct gs_api_call *c = &api[ord[m]];
		int d = c->pid != pid             ? (c->pid < pid ? -1 : 1) :
			with_tid && c->tid != tid ? (c->tid < tid ? -1 : 1) :
						    0;

		if (d < 0 || (upper && d == 0))
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* Among ord[lo, hi) (lo < hi), the rule's choice by start alone. */
static uint32_t last_before(const uint32_t *ord, size_t lo, size_t hi,
			    const struct gs_api_call *api, int64_t before)
{
	size_t a = lo, b = hi;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
		if (api[ord[m]].start_ns <= before)
			a = m + 1;
		else
			b = m;
	}
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
	return ord[a > lo ? a - 1 : hi - 1];
}

/* The run of (pid, tid) in by_thread, or of pid in by_pid, in the group of
 * n calls from pos; its choice, GS_NO_INDEX when the run is empty. */
static uint32_t pick_in_run(const uint32_t *ord, size_t pos, size_t n,
			    const struct gs_api_call *api, int64_t pid, int64_t tid, bool with_tid,
			    int64_t before)
{
	size_t lo = owner_bound(ord, pos, pos + n, api, pid, tid, with_tid, false);
	size_t hi = owner_bound(ord, lo, pos + n, api, pid, tid, with_tid, true);

	return lo < hi ? last_before(ord, lo, hi, api, before) : GS_NO_INDEX;
}

static uint32_t pick_large(const struct call_ix *ix, const struct gs_api_call *api, size_t pos,
			   size_t n, const struct call_want *w)
{
	uint32_t best = GS_NO_INDEX;
	const struct gs_api_call *b, *o;
	size_t lo, hi, a, z;

	if (w->tid >= 0)
		best = pick_in_run(ix->by_thread, pos, n, api, w->pid, w->tid, true, w->before_ns);
	if (best == GS_NO_INDEX && w->pid > 0)
		best = pick_in_run(ix->by_pid, pos, n, api, w->pid, 0, false, w->before_ns);
	if (best == GS_NO_INDEX)
		best = last_before(ix->by_all, pos, pos + n, api, w->before_ns);
	/* The outermost call of its thread around it: the first of the
	 * thread's run whose largest end so far reaches its end (the run is
	 * by start, so that call starts no later), the lowest index of those
	 * with that span (the last of them), or itself when it has it. */
	b = &api[best];
	lo = owner_bound(ix->by_thread, pos, pos + n, api, b->pid, b->tid, true, false);
	hi = owner_bound(ix->by_thread, lo, pos + n, api, b->pid, b->tid, true, true);
	a = lo;
	z = hi;
	while (a < z) {
		size_t m = a + (z - a) / 2;

		/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
		if (ix->thr_end[m] < b->end_ns)
			a = m + 1;
		else
			z = m;
	}
	/* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): the index has entries whenever it is searched */
	o = &api[ix->by_thread[a]];
	if (o->start_ns == b->start_ns && o->end_ns == b->end_ns)
		return best;
	for (z = hi, lo = a + 1; lo < z;) {
		size_t m = lo + (z - lo) / 2;
		const struct gs_api_call *c = &api[ix->by_thread[m]];

		if (c->start_ns == o->start_ns && c->end_ns == o->end_ns)
			lo = m + 1;
		else
			z = m;
	}
	return ix->by_thread[lo - 1];
}

static uint32_t pick_call(const struct call_ix *ix, const struct gs_api_call *api, uint64_t corr,
			  const struct call_want *w)
{
	size_t pos, n = call_ix_find(ix, corr, &pos);

	if (n <= 1)
		return n ? call_ix_at(ix, pos) : GS_NO_INDEX;
	if (n <= GS_JOIN_SCAN)
		return pick_scan(ix, api, pos, n, w);
	return pick_large(ix, api, pos, n, w);
}

/* The n calls from pos into key (room for n), in the order of cmp. */
static void group_keys(const struct call_ix *ix, const struct gs_api_call *api, size_t pos,
		       size_t n, struct call_key *key, int (*cmp)(const void *, const void *))
{
	for (size_t k = 0; k < n; k++) {
		uint32_t c = call_ix_at(ix, pos + k);

		key[k] = (struct call_key){api[c].pid, api[c].tid, api[c].start_ns, api[c].end_ns,
					   c};
	}
	gs_sort(key, n, sizeof(*key), cmp);
}

/*
 * One id's n calls (n >= 2) from pos: the calls of a thread that repeat
 * its id (a call that no other call of the thread with the id encloses,
 * but the first: a runtime call and its driver call nest, a record kept
 * twice is enclosed by its copy) added to *repeats; for more than
 * GS_JOIN_SCAN calls, the group's orders (call_ix). `key` has room for n.
 */
static void group_index(struct call_ix *ix, const struct gs_api_call *api, size_t pos, size_t n,
			struct call_key *key, uint64_t *repeats)
{
	int64_t end = 0;

	group_keys(ix, api, pos, n, key, cmp_key_thread);
	for (size_t k = 0; k < n; k++) {
		bool first = !k || key[k].pid != key[k - 1].pid || key[k].tid != key[k - 1].tid;

		if (!first && key[k].end > end)
			(*repeats)++;
		if (first || key[k].end > end)
			end = key[k].end;
		if (n > GS_JOIN_SCAN) {
			ix->by_thread[pos + k] = key[k].idx;
			ix->thr_end[pos + k] = end;
		}
	}
	if (n <= GS_JOIN_SCAN)
		return;
	group_keys(ix, api, pos, n, key, cmp_key_pid);
	for (size_t k = 0; k < n; k++)
		ix->by_pid[pos + k] = key[k].idx;
	group_keys(ix, api, pos, n, key, cmp_key_all);
	for (size_t k = 0; k < n; k++)
		ix->by_all[pos + k] = key[k].idx;
}

/*
 * Every id of two or more calls: the repeats counted (*repeats), the
 * orders of the large groups built. GS_ERR_LIMIT over GS_JOIN_MAX_CALLS
 * calls an id.
 */
/* The group at *g (an index of `first`, or a position in `ents`): its
 * first position in *pos and its size; *g moves past it. */
static size_t next_group(const struct call_ix *ix, size_t *g, size_t *pos)
{
	if (ix->first) {
		*pos = ix->first[*g];
		return ix->first[++*g] - *pos;
	}
	*pos = *g;
	while (*g < ix->n && ix->ents[*g].corr == ix->ents[*pos].corr)
		(*g)++;
	return *g - *pos;
}

static gs_status call_ix_groups(struct call_ix *ix, const struct gs_api_call *api,
				uint64_t *repeats)
{
	size_t n_groups = ix->first ? ix->range : ix->n, largest = 0, big = 0;
	struct call_key *key;

	*repeats = 0;
	/* Pass 1: the largest group, and whether any needs the orders. */
	for (size_t g = 0, pos = 0; g < n_groups;) {
		size_t n = next_group(ix, &g, &pos);

		if (n > GS_JOIN_MAX_CALLS) {
			gs_error_append(
				"correlation id %llu is on %zu API calls, more than %u: "
				"not joined (a launch has one, or two with its driver call)",
				(unsigned long long)api[call_ix_at(ix, pos)].correlation, n,
				GS_JOIN_MAX_CALLS);
			return GS_ERR_LIMIT;
		}
		largest = n > largest ? n : largest;
		big += n > GS_JOIN_SCAN;
	}
	if (largest < 2)
		return GS_OK;
	key = malloc(largest * sizeof(*key));
	if (!key)
		return gs_nomem();
	if (big) {
		ix->by_thread = malloc(ix->n * sizeof(*ix->by_thread));
		ix->by_pid = malloc(ix->n * sizeof(*ix->by_pid));
		ix->by_all = malloc(ix->n * sizeof(*ix->by_all));
		ix->thr_end = malloc(ix->n * sizeof(*ix->thr_end));
		if (!ix->by_thread || !ix->by_pid || !ix->by_all || !ix->thr_end) {
			free(key);
			return gs_nomem();
		}
	}
	for (size_t g = 0, pos = 0; g < n_groups;) {
		size_t n = next_group(ix, &g, &pos);

		if (n >= 2)
			group_index(ix, api, pos, n, key, repeats);
	}
	free(key);
	return GS_OK;
}

/* Set a warning's count (a trace finished again after a merge counts
 * anew), adding it when new and taking it out at 0 (the inputs merged may
 * have had it where the whole has not). */
static gs_status set_warning(struct gs_trace *t, const char *msg, uint64_t count, unsigned kind)
{
	if (t->n_warning_slots) {
		size_t i = warning_slot(t->warning_slots, t->n_warning_slots, t->warnings, msg);
		size_t k = t->warning_slots[i];

		if (k && count) {
			t->warnings[k - 1].count = count;
		} else if (k) {
			free((void *)(uintptr_t)t->warnings[k - 1].message);
			memmove(&t->warnings[k - 1], &t->warnings[k],
				(t->n_warnings - k) * sizeof(*t->warnings));
			t->n_warnings--;
			memset(t->warning_slots, 0, t->n_warning_slots * sizeof(*t->warning_slots));
			for (size_t w = 0; w < t->n_warnings; w++)
				t->warning_slots[warning_slot(t->warning_slots, t->n_warning_slots,
							      t->warnings, t->warnings[w].message)] =
					(uint32_t)w + 1;
		}
		if (k)
			return GS_OK;
	}
	return count ? gs_trace_add_warning(t, msg, count, kind) : GS_OK;
}

/*
 * Per op its launch call, per sync its call, by correlation id under the
 * rule of trace.h. O(A + N + Y) when the ids are dense, else
 * O(A log A + (N + Y) log A); an id of more than GS_JOIN_SCAN calls adds
 * O(log) per record and O(n log n) for its n calls, whatever the records
 * that share it.
 */
static gs_status compute_joins(struct gs_trace *t)
{
	struct call_ix ix;
	size_t ns = t->streams.count;
	uint64_t repeats = 0;
	gs_status rc;

	free(t->op_launch);
	free(t->sync_call);
	t->op_launch = malloc((t->n_ops ? t->n_ops : 1) * sizeof(*t->op_launch));
	t->sync_call = malloc((t->n_syncs ? t->n_syncs : 1) * sizeof(*t->sync_call));
	if (!t->op_launch || !t->sync_call)
		return gs_nomem();
	if (t->n_api_calls >= UINT32_MAX) {
		gs_error_append("too many API calls to join (%zu)", t->n_api_calls);
		return GS_ERR_LIMIT;
	}
	rc = call_ix_build(&ix, t->api_calls, t->n_api_calls);
	if (!rc)
		rc = call_ix_groups(&ix, t->api_calls, &repeats);
	if (!rc)
		rc = set_warning(t, JOIN_REPEAT_WARNING, repeats, GS_WARNING_OTHER);
	if (rc) {
		call_ix_free(&ix);
		return rc;
	}
	for (size_t i = 0; i < t->n_ops; i++) {
		const struct gs_op *op = &t->ops[i];
		struct call_want w = {.pid = op->stream < ns ? t->streams.streams[op->stream].pid :
							       0,
				      .tid = -1,
				      .before_ns = op->start_ns};

		t->op_launch[i] = pick_call(&ix, t->api_calls, op->correlation, &w);
	}
	for (size_t i = 0; i < t->n_syncs; i++) {
		const struct gs_sync *y = &t->syncs[i];
		struct call_want w = {.pid = y->pid, .tid = y->tid, .before_ns = y->start_ns};

		t->sync_call[i] = pick_call(&ix, t->api_calls, y->correlation, &w);
	}
	call_ix_free(&ix);
	return GS_OK;
}

/* ---- the event record an event sync or stream wait names ---- */

#define UNHELD_WAIT_WARNING                                                                        \
	"stream waits name an event record the trace does not hold; their dependencies are "       \
	"unknown"

/* An event record by (process, event id, correlation): the fallback. */
struct event_key {
	int64_t pid;
	uint64_t event_id;
	uint64_t corr;
	uint32_t rec;
	uint32_t device, context; /* of the recording stream */
};

static int cmp_event_key(const void *pa, const void *pb)
{
	const struct event_key *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->event_id != b->event_id)
		return a->event_id < b->event_id ? -1 : 1;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	return a->rec < b->rec ? -1 : a->rec > b->rec;
}

static bool names_event(const struct gs_sync *y)
{
	return y->kind == GS_SYNC_EVENT || y->kind == GS_SYNC_STREAM_WAIT;
}

/* A sync that names its event by id alone: no sync id, no event correlation. */
static bool needs_event_key(const struct gs_sync *y)
{
	return y->sync_id == GS_NO_SYNC_ID && !y->event_correlation && y->event_id &&
	       y->correlation;
}

struct event_index {
	struct gs_u64map by_sync_id, by_corr;
	struct event_key *keys; /* sorted; only when a sync needs the fallback */
	size_t n_keys;
};

static gs_status event_index_build(const struct gs_trace *t, struct event_index *ev, bool keys)
{
	const struct gs_stream *st = t->streams.streams;
	size_t ns = t->streams.count;

	if (gs_u64map_reserve(&ev->by_sync_id, t->n_event_records) ||
	    gs_u64map_reserve(&ev->by_corr, t->n_event_records))
		return GS_ERR_NOMEM;
	/* The latest record wins for a sync id (ids are not reused) and for a
	 * correlation (one call records one event). */
	for (size_t i = 0; i < t->n_event_records; i++) {
		const struct gs_event_record *r = &t->event_records[i];

		if (r->sync_id != GS_NO_SYNC_ID)
			gs_u64map_put(&ev->by_sync_id, r->sync_id, (uint32_t)i, true);
		if (r->correlation)
			gs_u64map_put(&ev->by_corr, r->correlation, (uint32_t)i, true);
	}
	if (!keys)
		return GS_OK;
	ev->keys = malloc((t->n_event_records ? t->n_event_records : 1) * sizeof(*ev->keys));
	if (!ev->keys)
		return gs_nomem();
	for (size_t i = 0; i < t->n_event_records; i++) {
		const struct gs_event_record *r = &t->event_records[i];

		if (!r->event_id || !r->correlation || r->stream >= ns)
			continue;
		ev->keys[ev->n_keys++] = (struct event_key){.pid = st[r->stream].pid,
							    .event_id = r->event_id,
							    .corr = r->correlation,
							    .rec = (uint32_t)i,
							    .device = st[r->stream].device,
							    .context = st[r->stream].context};
	}
	gs_sort(ev->keys, ev->n_keys, sizeof(*ev->keys), cmp_event_key);
	return GS_OK;
}

/*
 * Without a sync id or an event correlation (drivers before cudaEventSyncId,
 * or an id of 0): the latest record of the same event in the same context
 * (the waiting stream's; the device's for a host wait) whose correlation
 * is below the sync's. Correlation ids come from one increasing counter, so
 * that is the record the wait saw, whatever order the records came in.
 */
static uint32_t latest_record_before(const struct gs_trace *t, const struct event_index *ev,
				     const struct gs_sync *y)
{
	const struct gs_stream *ws = y->stream < t->streams.count ? &t->streams.streams[y->stream] :
								    NULL;
	const struct event_key want = {.pid = y->pid,
				       .event_id = y->event_id,
				       .corr = y->correlation};
	size_t lo = 0, hi = ev->n_keys;

	while (lo < hi) { /* the first key at or after (pid, event, corr) */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_event_key(&ev->keys[mid], &want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct event_key *k = &ev->keys[lo];

		if (k->pid != y->pid || k->event_id != y->event_id)
			break;
		if (ws ? k->context == ws->context && k->device == ws->device :
			 k->device == y->device)
			return k->rec;
	}
	return GS_NO_INDEX;
}

static uint32_t event_record_of(const struct gs_trace *t, const struct event_index *ev,
				const struct gs_sync *y)
{
	uint64_t idx;

	if (y->sync_id != GS_NO_SYNC_ID && gs_u64map_get(&ev->by_sync_id, y->sync_id, &idx))
		return (uint32_t)idx;
	if (y->event_correlation && gs_u64map_get(&ev->by_corr, y->event_correlation, &idx))
		return (uint32_t)idx;
	if (needs_event_key(y))
		return latest_record_before(t, ev, y);
	return GS_NO_INDEX;
}

/*
 * Per event sync and stream wait, the event record it names: by its sync id,
 * else by the correlation of the record call, else the latest record of its
 * event before it (needs_event_key). A stream wait whose record the trace
 * does not hold, and that does not carry the recording stream and the
 * record's correlation itself, links nothing: the dependency graph cannot
 * place what it waited for. Those are counted in one warning.
 */
static gs_status resolve_event_records(struct gs_trace *t)
{
	struct event_index ev = {0};
	bool any = false, keys = false;
	uint64_t unheld = 0;
	gs_status rc;

	free(t->sync_record);
	t->sync_record = NULL;
	for (size_t i = 0; i < t->n_syncs; i++) {
		any |= names_event(&t->syncs[i]);
		keys |= names_event(&t->syncs[i]) && needs_event_key(&t->syncs[i]);
	}
	if (!any)
		return set_warning(t, UNHELD_WAIT_WARNING, 0, GS_WARNING_UNHELD_WAITS);
	t->sync_record = malloc(t->n_syncs * sizeof(*t->sync_record));
	if (!t->sync_record)
		return gs_nomem();
	if (t->n_event_records >= GS_NO_INDEX) {
		gs_error_append("too many event records (%zu)", t->n_event_records);
		return GS_ERR_LIMIT;
	}
	gs_u64map_init(&ev.by_sync_id);
	gs_u64map_init(&ev.by_corr);
	rc = event_index_build(t, &ev, keys);
	for (size_t i = 0; i < t->n_syncs && !rc; i++) {
		const struct gs_sync *y = &t->syncs[i];

		t->sync_record[i] = names_event(y) ? event_record_of(t, &ev, y) : GS_NO_INDEX;
		if (y->kind == GS_SYNC_STREAM_WAIT && t->sync_record[i] == GS_NO_INDEX &&
		    (y->wait_on_stream >= t->streams.count || !y->event_correlation))
			unheld++;
	}
	gs_u64map_fini(&ev.by_sync_id);
	gs_u64map_fini(&ev.by_corr);
	free(ev.keys);
	return rc ? rc : set_warning(t, UNHELD_WAIT_WARNING, unheld, GS_WARNING_UNHELD_WAITS);
}

static void op_span(const struct gs_trace *t, int64_t *first, int64_t *last);

/* The annotation ranges' indices, so that the analyses that want only
 * them do not walk every operator range: each copy kept at push is found
 * in the sorted ranges by binary search (the same order: equal copies
 * take consecutive places). */
static gs_status index_annotations(struct gs_trace *t)
{
	size_t n = t->n_ann_copies;
	gs_status rc;

	free(t->annotations);
	t->annotations = NULL;
	t->n_annotations = 0;
	if (!n)
		return GS_OK;
	rc = sort(t->ann_copies, n, sizeof(*t->ann_copies), cmp_range, key_range);
	if (rc)
		return rc;
	t->annotations = malloc(n * sizeof(*t->annotations));
	if (!t->annotations)
		return gs_nomem();
	for (size_t k = 0; k < n; k++) {
		const struct gs_range *c = &t->ann_copies[k];
		size_t lo = 0, hi = t->n_ranges;

		if (k && cmp_range(c, &t->ann_copies[k - 1]) == 0) {
			t->annotations[k] = t->annotations[k - 1] + 1;
			continue;
		}
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (cmp_range(&t->ranges[mid], c) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		t->annotations[k] = (uint32_t)lo;
	}
	t->n_annotations = n;
	return GS_OK;
}

gs_status gs_trace_finish(struct gs_trace *t)
{
	struct ops_job job = {.t = t};
	pthread_t worker;
	bool threaded = false;
	gs_status rc = report_bad_times(t);

	if (rc)
		return rc;
	if (t->finished)
		return GS_OK;
	if (t->n_ops >= GS_FINISH_THREAD_MIN && gs_cpu_count() >= 2)
		threaded = pthread_create(&worker, NULL, ops_job_main, &job) == 0;
	rc = sort_api_calls(t);
	if (!rc)
		rc = sort(t->syncs, t->n_syncs, sizeof(*t->syncs), cmp_sync, key_sync);
	if (!rc)
		rc = sort(t->event_records, t->n_event_records, sizeof(*t->event_records),
			  cmp_event_record, key_event_record);
	if (!rc)
		rc = sort(t->overheads, t->n_overheads, sizeof(*t->overheads), cmp_overhead,
			  key_overhead);
	if (threaded)
		pthread_join(worker, NULL);
	else
		ops_job_main(&job);
	if (rc)
		return rc;
	if (job.rc)
		return gs_nomem();

	t->n_threads = 0;
	for (size_t i = 0; i < t->n_api_calls; i++) {
		const struct gs_api_call *c = &t->api_calls[i];
		struct gs_thread *last = t->n_threads ? &t->threads[t->n_threads - 1] : NULL;

		if (last && last->pid == c->pid && last->tid == c->tid) {
			last->api_count++;
			continue;
		}
		struct gs_thread th = {.pid = c->pid, .tid = c->tid, .first_api = i, .api_count = 1};
		if (PUSH(t, threads, th))
			return gs_nomem();
	}
	rc = index_devices(t);
	if (!rc)
		rc = compute_joins(t);
	if (!rc)
		rc = resolve_event_records(t);
	if (rc)
		return rc;
	rc = index_annotations(t);
	if (rc)
		return rc;
	op_span(t, &t->op_first_ns, &t->op_last_ns);
	t->finished = true;
	return GS_OK;
}

/* ---- accessors ---- */

const char *gs_trace_string(const struct gs_trace *t, uint32_t id)
{
	return gs_strtab_get(&t->strings, id);
}

size_t gs_trace_string_count(const struct gs_trace *t)
{
	return t->strings.count;
}

gs_status gs_trace_intern(struct gs_trace *t, const char *str, size_t len, uint32_t *id)
{
	return sink_intern(&t->sink, str, len, id);
}

#define ACCESSOR(type, name)                                                                       \
	const type *gs_trace_##name(const struct gs_trace *t, size_t *n)                           \
	{                                                                                          \
		*n = t->n_##name;                                                                  \
		return t->name;                                                                    \
	}

ACCESSOR(struct gs_process, processes)
ACCESSOR(struct gs_device, devices)
ACCESSOR(struct gs_op, ops)
ACCESSOR(struct gs_collective, collectives)

const struct gs_collective *gs_trace_op_collective(const struct gs_trace *t, const struct gs_op *op)
{
	return op->collective && op->collective <= t->n_collectives ?
		       &t->collectives[op->collective - 1] :
		       NULL;
}

const struct gs_launch_cfg *gs_trace_op_launch_cfg(const struct gs_trace *t, const struct gs_op *op)
{
	return op->launch && op->launch <= t->n_launches ? &t->launches[op->launch - 1] : NULL;
}
ACCESSOR(struct gs_api_call, api_calls)
ACCESSOR(struct gs_sync, syncs)
ACCESSOR(struct gs_event_record, event_records)
ACCESSOR(struct gs_allocation, allocations)
ACCESSOR(struct gs_op_alloc, op_allocs)
ACCESSOR(struct gs_range, ranges)

size_t gs_trace_range_count(const struct gs_trace *t, enum gs_range_kind kind)
{
	return (unsigned)kind < GS_RANGE_KIND_COUNT ? t->range_kinds[kind] : 0;
}

const uint32_t *gs_trace_annotation_ranges(const struct gs_trace *t, size_t *n)
{
	*n = t->finished ? t->n_annotations : 0;
	return t->finished ? t->annotations : NULL;
}
ACCESSOR(struct gs_overhead, overheads)
ACCESSOR(struct gs_clock_pair, clock_pairs)
ACCESSOR(struct gs_warning, warnings)
ACCESSOR(struct gs_thread, threads)

const struct gs_stream *gs_trace_streams(const struct gs_trace *t, size_t *n)
{
	*n = t->streams.count;
	return t->streams.streams;
}

uint64_t gs_trace_dropped(const struct gs_trace *t)
{
	return t->dropped;
}

void gs_trace_stream_ops(const struct gs_trace *t, uint32_t s, size_t *first, size_t *count)
{
	if (!t->finished || s >= t->streams.count || !t->stream_count) {
		*first = 0;
		*count = 0;
		return;
	}
	*first = t->stream_first[s];
	*count = t->stream_count[s];
}

const struct gs_device *gs_trace_device(const struct gs_trace *t, uint32_t id)
{
	size_t slot;

	if (!t->device_ix.n)
		return NULL;
	slot = device_slot(t, id);
	return t->device_ix.slots[slot] ? &t->devices[t->device_ix.slots[slot] - 1] : NULL;
}

static const struct dev_range *dev_range_of(const struct gs_trace *t, uint32_t device)
{
	size_t lo = 0, hi = t->n_by_device;

	if (!t->finished)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->by_device[mid].device < device)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->n_by_device && t->by_device[lo].device == device ? &t->by_device[lo] : NULL;
}

const uint32_t *gs_trace_device_streams(const struct gs_trace *t, uint32_t device, size_t *n)
{
	const struct dev_range *r = dev_range_of(t, device);

	*n = r ? r->stream_count : 0;
	return r ? t->dev_streams + r->stream_first : NULL;
}

const uint32_t *gs_trace_device_syncs(const struct gs_trace *t, uint32_t device, size_t *n)
{
	const struct dev_range *r = dev_range_of(t, device);

	*n = r ? r->sync_count : 0;
	return r ? t->dev_syncs + r->sync_first : NULL;
}

/* ---- joins ---- */

const uint32_t *gs_trace_op_launches(const struct gs_trace *t, size_t *n)
{
	*n = t->finished ? t->n_ops : 0;
	return t->finished ? t->op_launch : NULL;
}

uint32_t gs_trace_op_launch_call(const struct gs_trace *t, size_t op)
{
	return t->finished && op < t->n_ops ? t->op_launch[op] : GS_NO_INDEX;
}

const uint32_t *gs_trace_sync_calls(const struct gs_trace *t, size_t *n)
{
	*n = t->finished ? t->n_syncs : 0;
	return t->finished ? t->sync_call : NULL;
}

uint32_t gs_trace_sync_event_record(const struct gs_trace *t, size_t sync)
{
	return t->finished && t->sync_record && sync < t->n_syncs ? t->sync_record[sync] :
								    GS_NO_INDEX;
}

uint32_t gs_trace_sync_call(const struct gs_trace *t, size_t sync)
{
	return t->finished && sync < t->n_syncs ? t->sync_call[sync] : GS_NO_INDEX;
}

uint32_t gs_trace_stream_device(const struct gs_trace *t, uint32_t stream)
{
	return stream < t->streams.count ? t->streams.streams[stream].device : GS_NO_INDEX;
}

uint32_t gs_trace_op_device(const struct gs_trace *t, size_t op)
{
	return op < t->n_ops ? gs_trace_stream_device(t, t->ops[op].stream) : GS_NO_INDEX;
}

static void op_span(const struct gs_trace *t, int64_t *first, int64_t *last)
{
	int64_t lo = 0, hi = 0;

	for (size_t i = 0; i < t->n_ops; i++) {
		if (i == 0 || t->ops[i].start_ns < lo)
			lo = t->ops[i].start_ns;
		if (i == 0 || t->ops[i].end_ns > hi)
			hi = t->ops[i].end_ns;
	}
	*first = lo;
	*last = hi;
}

void gs_trace_op_span(const struct gs_trace *t, int64_t *first, int64_t *last)
{
	if (t->finished) {
		*first = t->op_first_ns;
		*last = t->op_last_ns;
		return;
	}
	op_span(t, first, last);
}

/* ---- replay into another sink ---- */

struct remap {
	uint32_t *str;
	uint32_t *stream;
	uint32_t *alloc;
	uint32_t *coll;
};

static uint32_t map_str(const struct remap *m, uint32_t id, size_t n)
{
	return id < n ? m->str[id] : GS_NO_STRING;
}

static uint32_t map_stream(const struct remap *m, uint32_t idx, size_t n)
{
	return idx < n ? m->stream[idx] : GS_NO_INDEX;
}

#define EMIT(cb, ...)                                                                              \
	do {                                                                                       \
		if (sink->cb) {                                                                    \
			rc = sink->cb(sink, __VA_ARGS__);                                          \
			if (rc)                                                                    \
				goto out;                                                          \
		}                                                                                  \
	} while (0)

gs_status gs_trace_append(struct gs_trace *dst, const struct gs_trace *src)
{
	gs_status rc;

	if (!dst || !src || dst == src || src->finished) {
		gs_error_append("gs_trace_append: %s", !dst || !src ? "no trace" :
						       dst == src   ? "a trace onto itself" :
								      "the source is finished");
		return GS_ERR_INVALID;
	}
	/* Replay interns every string and stream in id order before the
	 * records: the order a direct load met them in. */
	rc = gs_trace_replay(src, gs_trace_borrow_sink(dst));
	if (rc)
		return rc;
	/* Records dropped for their times become one warning at finish. */
	for (size_t k = 0; k < sizeof(dst->bad_times) / sizeof(dst->bad_times[0]); k++)
		dst->bad_times[k] += src->bad_times[k];
	return GS_OK;
}

gs_status gs_trace_replay(const struct gs_trace *t, struct gs_sink *sink)
{
	size_t ns = t->strings.count, nst = t->streams.count;
	struct remap m = {0};
	gs_status rc = GS_OK;

	m.str = malloc((ns ? ns : 1) * sizeof(*m.str));
	m.stream = malloc((nst ? nst : 1) * sizeof(*m.stream));
	m.alloc = malloc((t->n_allocations ? t->n_allocations : 1) * sizeof(*m.alloc));
	m.coll = calloc(t->n_collectives + 1, sizeof(*m.coll));
	if (!m.str || !m.stream || !m.alloc || !m.coll) {
		rc = gs_nomem();
		goto out;
	}
	for (size_t i = 0; i < ns; i++) {
		m.str[i] = (uint32_t)i;
		EMIT(intern, t->strings.strs[i], t->strings.lens[i], &m.str[i]);
	}
	for (size_t i = 0; i < nst; i++) {
		m.stream[i] = (uint32_t)i;
		EMIT(stream, &t->streams.streams[i], &m.stream[i]);
	}
	for (size_t i = 0; i < t->n_processes; i++) {
		struct gs_process p = t->processes[i];

		p.host_name = map_str(&m, p.host_name, ns);
		p.command_line = map_str(&m, p.command_line, ns);
		p.driver_version = map_str(&m, p.driver_version, ns);
		p.runtime_version = map_str(&m, p.runtime_version, ns);
		p.cupti_version = map_str(&m, p.cupti_version, ns);
		if (p.has_backend)
			p.backend = map_str(&m, p.backend, ns);
		EMIT(process, &p);
	}
	for (size_t i = 0; i < t->n_devices; i++) {
		struct gs_device d = t->devices[i];

		d.name = map_str(&m, d.name, ns);
		d.uuid = map_str(&m, d.uuid, ns);
		EMIT(device, &d);
	}
	/* m.coll[k] is what op.collective k becomes (0 stays 0; a sink
	 * without collectives gets 0 for all). */
	for (size_t i = 0; sink->collective && i < t->n_collectives; i++) {
		struct gs_collective c = t->collectives[i];
		uint32_t idx = 0;

		c.name = map_str(&m, c.name, ns);
		c.group = map_str(&m, c.group, ns);
		c.group_desc = map_str(&m, c.group_desc, ns);
		c.group_ranks = map_str(&m, c.group_ranks, ns);
		c.dtype = map_str(&m, c.dtype, ns);
		EMIT(collective, &c, &idx);
		m.coll[i + 1] = idx + 1;
	}
	for (size_t i = 0; i < t->n_ops; i++) {
		struct gs_op o = t->ops[i];
		const struct gs_launch_cfg *lp;
		struct gs_launch_cfg lc;

		o.name = map_str(&m, o.name, ns);
		o.stream = map_stream(&m, o.stream, nst);
		o.collective = o.collective <= t->n_collectives ? m.coll[o.collective] : 0;
		lp = gs_trace_op_launch_cfg(t, &o);
		if (lp && lp->mangled_name) { /* a string id + 1 */
			lc = *lp;
			lc.mangled_name = map_str(&m, lc.mangled_name - 1, ns) + 1;
			lp = &lc;
		}
		EMIT(op, &o, lp);
	}
	for (size_t i = 0; i < t->n_api_calls; i++) {
		struct gs_api_call c = t->api_calls[i];

		c.name = map_str(&m, c.name, ns);
		EMIT(api_call, &c);
	}
	for (size_t i = 0; i < t->n_syncs; i++) {
		struct gs_sync y = t->syncs[i];

		y.stream = map_stream(&m, y.stream, nst);
		y.wait_on_stream = map_stream(&m, y.wait_on_stream, nst);
		EMIT(sync, &y);
	}
	for (size_t i = 0; i < t->n_event_records; i++) {
		struct gs_event_record e = t->event_records[i];

		e.stream = map_stream(&m, e.stream, nst);
		EMIT(event_record, &e);
	}
	for (size_t i = 0; i < t->n_allocations; i++) {
		m.alloc[i] = (uint32_t)i;
		EMIT(allocation, &t->allocations[i], &m.alloc[i]);
	}
	for (size_t i = 0; i < t->n_op_allocs; i++) {
		struct gs_op_alloc l = t->op_allocs[i];

		l.allocation = l.allocation < t->n_allocations ? m.alloc[l.allocation] : 0;
		EMIT(op_alloc, &l);
	}
	for (size_t i = 0; i < t->n_ranges; i++) {
		struct gs_range r = t->ranges[i];

		r.name = map_str(&m, r.name, ns);
		r.domain = map_str(&m, r.domain, ns);
		if (r.kind == GS_RANGE_GPU_ANNOTATION)
			r.stream = map_stream(&m, r.stream, nst);
		EMIT(range, &r);
	}
	for (size_t i = 0; i < t->n_overheads; i++) {
		struct gs_overhead o = t->overheads[i];

		o.kind = map_str(&m, o.kind, ns);
		EMIT(overhead, &o);
	}
	for (size_t i = 0; i < t->n_clock_pairs; i++)
		EMIT(clock_pair, &t->clock_pairs[i]);
	for (size_t i = 0; i < t->n_warnings; i++)
		EMIT(warning, t->warnings[i].message, t->warnings[i].count, t->warnings[i].kind);
out:
	free(m.str);
	free(m.stream);
	free(m.alloc);
	free(m.coll);
	return rc;
}
