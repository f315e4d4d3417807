/* SPDX-License-Identifier: MIT */
/*
 * The in-memory trace model: flat record arrays filled through a gs_sink,
 * then sorted and indexed by gs_trace_finish() (trace_finish.c) for the
 * analyses. This file: creating the trace, its sink (every record checked
 * and kept), the launch-configuration table and the warnings.
 */
#include "trace_priv.h"

#include <gpuscope/names.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Every field in one of four words, each multiplied by its own odd
 * constant (independent multiplies, not a chain of mixes: this runs once
 * per kernel), then mixed once. */
static uint64_t launch_hash(const struct gs_launch_cfg *c)
{
	uint64_t w0 = (uint64_t)c->grid[0] << 32 | c->grid[1];
	uint64_t w1 = (uint64_t)c->grid[2] << 32 | c->block[0];
	uint64_t w2 = (uint64_t)c->block[1] << 32 | c->block[2];
	uint64_t w3 = (uint64_t)c->shared_mem << 32 | c->registers;
	uint64_t w4 = c->graph_id ^ (uint64_t)c->mangled_name << 40;

	return gs_hash_u64(w0 * 0x9e3779b97f4a7c15ull ^ w1 * 0xc2b2ae3d27d4eb4full ^
			   w2 * 0x165667b19e3779f9ull ^ w3 * 0xd6e8feb86659fd93ull ^
			   (w4 + (w4 >> 29)) * 0xff51afd7ed558ccdull);
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

/* Set a warning's count (a trace finished again after a merge counts
 * anew), adding it when new and taking it out at 0 (the inputs merged may
 * have had it where the whole has not). */
gs_status gs_trace_set_warning(struct gs_trace *t, const char *msg, uint64_t count, unsigned kind)
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

gs_status gs_trace_intern(struct gs_trace *t, const char *str, size_t len, uint32_t *id)
{
	return sink_intern(&t->sink, str, len, id);
}
