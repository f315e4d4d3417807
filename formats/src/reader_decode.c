/* SPDX-License-Identifier: MIT */
/*
 * The .gscope reader: a checked chunk's records to the sink. Ids stored in
 * the file (strings, streams, collectives, allocations) are mapped to the
 * sink's through the reader's maps; a record that names an undeclared one,
 * a column of the wrong length or a count that does not match its frame is
 * refused with an error that names the file and the chunk.
 */
#include "reader_priv.h"

#include <stdlib.h>
#include <string.h>

/* Streams a file may declare (bounds the index map). */
#define MAX_STREAMS (1u << 20)
/* Strings a file may declare, lost ones included (bounds the id map: a
 * salvaged chunk's string base cannot make the reader allocate more). */
#define MAX_STRINGS (1u << 25)

/* One warning for `count` records of one kind (the trace adds up the
 * counts of equal messages: one line for the whole file). */
static gs_status warn_n(struct gs_reader *r, struct gs_sink *sink, uint64_t count, const char *msg)
{
	char full[GS_ERROR_MSG_MAX + 256];

	if (!count)
		return GS_OK;
	snprintf(full, sizeof(full), "%s: %s", r->name, msg);
	return sink->warning ? sink->warning(sink, full, count, GS_WARNING_OTHER) : GS_OK;
}

#define SHAPE_ERR(r, ...)                                                                          \
	do {                                                                                       \
		CHUNK_ERR(r, r->offset, __VA_ARGS__);                                              \
		return GS_ERR_FORMAT;                                                              \
	} while (0)

static gs_status map_string(struct gs_reader *r, uint32_t stored, uint32_t *out)
{
	if (stored == 0) {
		*out = GS_NO_STRING;
		return GS_OK;
	}
	if (stored - 1 >= r->n_str)
		SHAPE_ERR(r, "string id %" PRIu32 " out of range (%zu strings)", stored - 1,
			  r->n_str);
	*out = r->str_map[stored - 1];
	return GS_OK;
}

static gs_status map_stream(struct gs_reader *r, uint32_t file_index, uint32_t *out)
{
	if (file_index >= r->n_stream || r->stream_map[file_index] == GS_NO_INDEX)
		SHAPE_ERR(r, "record refers to undeclared stream %" PRIu32, file_index);
	*out = r->stream_map[file_index];
	return GS_OK;
}

/* Optional stream: stored as index + 1, 0 = none. */
static gs_status map_stream_opt(struct gs_reader *r, uint32_t stored, uint32_t *out)
{
	if (stored == 0) {
		*out = GS_NO_INDEX;
		return GS_OK;
	}
	return map_stream(r, stored - 1, out);
}

/* An op's collective: stored as file index + 1, 0 = none. */
static gs_status map_collective(struct gs_reader *r, uint32_t stored, uint32_t *out)
{
	if (stored == 0) {
		*out = 0;
		return GS_OK;
	}
	if (stored - 1 >= r->n_coll)
		SHAPE_ERR(r, "op refers to undeclared collective %" PRIu32, stored - 1);
	*out = r->coll_map[stored - 1];
	return GS_OK;
}

static gs_status fill_lost_strings(struct gs_reader *r, struct gs_sink *sink, size_t upto)
{
	gs_status rc;

	if (r->unknown_string == GS_NO_STRING && sink->intern) {
		rc = sink->intern(sink, "?", 1, &r->unknown_string);
		if (rc)
			return rc;
	}
	while (r->n_str < upto) {
		if (GS_VEC_PUSH(r->str_map, r->n_str, r->cap_str, r->unknown_string))
			return gs_nomem();
	}
	return GS_OK;
}

static gs_status decode_strings(struct gs_reader *r, struct gs_sink *sink, const Gscope__Chunk *c)
{
	gs_status rc;

	if (c->string_base > MAX_STRINGS || c->n_strings > MAX_STRINGS - c->string_base)
		SHAPE_ERR(r,
			  "string table over the limit of %u strings (base %" PRIu32 ", %zu more)",
			  MAX_STRINGS, c->string_base, c->n_strings);
	if (c->string_base != r->n_str) {
		if (!(r->flags & GS_READER_SALVAGE) || c->string_base < r->n_str)
			SHAPE_ERR(r,
				  "string table out of sequence (base %" PRIu32 ", expected %zu)",
				  c->string_base, r->n_str);
		rc = fill_lost_strings(r, sink, c->string_base);
		if (rc)
			return rc;
	}
	if (c->n_strings > UINT32_MAX - 1 - r->n_str)
		SHAPE_ERR(r, "too many strings");
	for (size_t i = 0; i < c->n_strings; i++) {
		uint32_t id = GS_NO_STRING;

		if (sink->intern) {
			rc = sink->intern(sink, (const char *)c->strings[i].data, c->strings[i].len,
					  &id);
			if (rc)
				return rc;
		}
		if (GS_VEC_PUSH(r->str_map, r->n_str, r->cap_str, id))
			return gs_nomem();
	}
	return GS_OK;
}

static gs_status decode_streams(struct gs_reader *r, struct gs_sink *sink, const Gscope__Chunk *c)
{
	for (size_t i = 0; i < c->n_streams; i++) {
		const Gscope__Stream *m = c->streams[i];
		struct gs_stream s = {.pid = m->pid,
				      .device = m->device,
				      .context = m->context,
				      .stream_id = m->stream_id,
				      .kind = (uint8_t)(m->kind < GS_STREAM_KIND_COUNT ? m->kind :
											 0),
				      .priority = m->priority};
		uint32_t idx = GS_NO_INDEX;
		gs_status rc;

		if (m->index > r->n_stream && !(r->flags & GS_READER_SALVAGE))
			SHAPE_ERR(r, "stream index %" PRIu32 " out of sequence", m->index);
		if (m->index >= MAX_STREAMS)
			SHAPE_ERR(r, "stream index %" PRIu32 " over the limit of %u streams",
				  m->index, MAX_STREAMS);
		while (r->n_stream <= m->index)
			if (GS_VEC_PUSH(r->stream_map, r->n_stream, r->cap_stream, GS_NO_INDEX))
				return gs_nomem();
		if (sink->stream) {
			rc = sink->stream(sink, &s, &idx);
			if (rc)
				return rc;
		}
		r->stream_map[m->index] = idx;
	}
	return GS_OK;
}

#define NEED(col, n, what)                                                                         \
	do {                                                                                       \
		if ((col) != (n))                                                                  \
			SHAPE_ERR(r, "%s column has %zu entries, expected %zu", what,              \
				  (size_t)(col), (size_t)(n));                                     \
	} while (0)
#define NEED_OPT(col, n, what)                                                                     \
	do {                                                                                       \
		if ((col) != 0 && (col) != (n))                                                    \
			SHAPE_ERR(r, "%s column has %zu entries, expected %zu or none", what,      \
				  (size_t)(col), (size_t)(n));                                     \
	} while (0)
#define OPT(arr, nn, i) ((nn) ? (arr)[i] : 0)

/*
 * Times. The writer stores a record's start as the difference from the
 * previous start of its column and its duration as end - start, both
 * modulo 2^64, so that every int64 time reads back as written: a start is
 * the previous one plus its delta, modulo 2^64. The duration is the
 * record's length (a negative one reads as over 7 days: dropped either
 * way), and the end is taken exactly: where start + duration passes
 * INT64_MAX, the sink gets an end that leads it to the outcome of the
 * exact one. A record of over 7 days is dropped and counted; any other
 * starts past 2^62 ns and is refused for its start, naming it (format.h
 * GS_TIME_LIMIT_NS), not read as one that ends before it starts.
 */
static int64_t start_ns(int64_t prev, int64_t delta)
{
	return (int64_t)((uint64_t)prev + (uint64_t)delta);
}

static int64_t end_ns(int64_t start, uint64_t duration)
{
	if (duration <= (uint64_t)INT64_MAX - (uint64_t)start)
		return (int64_t)((uint64_t)start + duration);
	/* start > INT64_MAX - duration >= INT64_MIN: start - 1 does not wrap. */
	return duration > (uint64_t)GS_MAX_DURATION_NS ? start - 1 : INT64_MAX;
}

static gs_status decode_ops(struct gs_reader *r, struct gs_sink *sink, const Gscope__Ops *m)
{
	size_t n = m->n_kind, nk = 0, nb = 0, ik = 0, ib = 0;
	int64_t start = 0;
	uint64_t corr = 0;

	NEED(m->n_start_delta, n, "op start");
	NEED(m->n_duration, n, "op duration");
	NEED(m->n_stream, n, "op stream");
	NEED(m->n_name, n, "op name");
	NEED(m->n_correlation_delta, n, "op correlation");
	NEED_OPT(m->n_flags, n, "op flags");
	NEED_OPT(m->n_graph_id, n, "op graph id");
	NEED_OPT(m->n_graph_node, n, "op graph node");
	NEED_OPT(m->n_collective, n, "op collective");
	for (size_t i = 0; i < n; i++) {
		if (m->kind[i] >= GS_OP_KIND_COUNT)
			SHAPE_ERR(r, "op %zu has unknown kind %" PRIu32, i, m->kind[i]);
		nk += m->kind[i] == GS_OP_KERNEL;
		nb += m->kind[i] != GS_OP_KERNEL;
	}
	NEED(m->n_grid_x, nk, "kernel grid");
	NEED(m->n_grid_y, nk, "kernel grid");
	NEED(m->n_grid_z, nk, "kernel grid");
	NEED(m->n_block_x, nk, "kernel block");
	NEED(m->n_block_y, nk, "kernel block");
	NEED(m->n_block_z, nk, "kernel block");
	NEED_OPT(m->n_shared_mem, nk, "kernel shared memory");
	NEED_OPT(m->n_registers, nk, "kernel registers");
	NEED_OPT(m->n_mangled_name, nk, "kernel mangled name");
	NEED_OPT(m->n_bytes, nb, "op bytes");
	NEED_OPT(m->n_copy_info, nb, "copy info");
	for (size_t i = 0; i < n; i++) {
		struct gs_op op = {0};
		struct gs_launch_cfg lc = {0};
		gs_status rc;

		start = start_ns(start, m->start_delta[i]);
		corr += (uint64_t)m->correlation_delta[i];
		op.kind = (uint8_t)m->kind[i];
		op.start_ns = start;
		op.end_ns = end_ns(start, m->duration[i]);
		op.correlation = corr;
		op.flags = (uint8_t)OPT(m->flags, m->n_flags, i);
		lc.graph_id = OPT(m->graph_id, m->n_graph_id, i);
		op.graph_node = OPT(m->graph_node, m->n_graph_node, i);
		rc = map_stream(r, m->stream[i], &op.stream);
		if (!rc)
			rc = map_string(r, m->name[i], &op.name);
		if (!rc)
			rc = map_collective(r, OPT(m->collective, m->n_collective, i),
					    &op.collective);
		if (rc)
			return rc;
		if (op.kind == GS_OP_KERNEL) {
			lc.grid[0] = m->grid_x[ik];
			lc.grid[1] = m->grid_y[ik];
			lc.grid[2] = m->grid_z[ik];
			lc.block[0] = m->block_x[ik];
			lc.block[1] = m->block_y[ik];
			lc.block[2] = m->block_z[ik];
			lc.shared_mem = OPT(m->shared_mem, m->n_shared_mem, ik);
			lc.registers = OPT(m->registers, m->n_registers, ik);
			rc = map_string(r, OPT(m->mangled_name, m->n_mangled_name, ik),
					&lc.mangled_name);
			if (rc)
				return rc;
			lc.mangled_name = lc.mangled_name == GS_NO_STRING ? 0 : lc.mangled_name + 1;
			ik++;
		} else {
			uint32_t info = OPT(m->copy_info, m->n_copy_info, ib);

			op.bytes = OPT(m->bytes, m->n_bytes, ib);
			op.copy_kind = (uint8_t)(info & 0xf);
			op.src_mem = (info >> 4) & 0xf;
			op.dst_mem = (info >> 8) & 0xf;
			if (op.copy_kind >= GS_COPY_KIND_COUNT)
				op.copy_kind = GS_COPY_UNKNOWN;
			if (op.src_mem >= GS_MEM_KIND_COUNT)
				op.src_mem = GS_MEM_UNKNOWN;
			if (op.dst_mem >= GS_MEM_KIND_COUNT)
				op.dst_mem = GS_MEM_UNKNOWN;
			ib++;
		}
		if (sink->op) {
			rc = sink->op(sink, &op, &lc);
			if (rc)
				return rc;
		}
	}
	return GS_OK;
}

static gs_status decode_api(struct gs_reader *r, struct gs_sink *sink, const Gscope__ApiCalls *m)
{
	size_t n = m->n_start_delta;
	int64_t start = 0;
	uint64_t corr = 0;

	NEED(m->n_duration, n, "api duration");
	NEED(m->n_pid, n, "api pid");
	NEED(m->n_tid, n, "api tid");
	NEED(m->n_correlation_delta, n, "api correlation");
	NEED(m->n_name, n, "api name");
	NEED_OPT(m->n_return_value, n, "api return value");
	NEED_OPT(m->n_cbid, n, "api cbid");
	NEED_OPT(m->n_kind, n, "api kind");
	for (size_t i = 0; i < n; i++) {
		struct gs_api_call c = {0};
		gs_status rc;

		start = start_ns(start, m->start_delta[i]);
		corr += (uint64_t)m->correlation_delta[i];
		c.start_ns = start;
		c.end_ns = end_ns(start, m->duration[i]);
		c.pid = m->pid[i];
		c.tid = m->tid[i];
		c.correlation = corr;
		c.return_value = OPT(m->return_value, m->n_return_value, i);
		c.cbid = OPT(m->cbid, m->n_cbid, i);
		c.kind = (uint8_t)(OPT(m->kind, m->n_kind, i) ? GS_API_DRIVER : GS_API_RUNTIME);
		rc = map_string(r, m->name[i], &c.name);
		if (!rc && sink->api_call)
			rc = sink->api_call(sink, &c);
		if (rc)
			return rc;
	}
	return GS_OK;
}

static gs_status decode_ranges(struct gs_reader *r, struct gs_sink *sink, const Gscope__Ranges *m)
{
	size_t n = m->n_start_delta;
	int64_t start = 0;
	uint64_t unknown = 0; /* ranges of a kind this version does not know */

	NEED(m->n_duration, n, "range duration");
	NEED(m->n_pid, n, "range pid");
	NEED(m->n_tid, n, "range tid");
	NEED(m->n_name, n, "range name");
	NEED_OPT(m->n_external_id, n, "range external id");
	NEED_OPT(m->n_domain, n, "range domain");
	NEED_OPT(m->n_kind, n, "range kind");
	NEED_OPT(m->n_stream, n, "range stream");
	for (size_t i = 0; i < n; i++) {
		struct gs_range g = {0};
		uint32_t kind = OPT(m->kind, m->n_kind, i);
		gs_status rc;

		unknown += kind >= GS_RANGE_KIND_COUNT;
		start = start_ns(start, m->start_delta[i]);
		g.start_ns = start;
		g.end_ns = end_ns(start, m->duration[i]);
		g.pid = m->pid[i];
		g.tid = m->tid[i];
		g.external_id = OPT(m->external_id, m->n_external_id, i);
		g.kind = (uint8_t)(kind < GS_RANGE_KIND_COUNT ? kind : GS_RANGE_OTHER);
		rc = map_string(r, m->name[i], &g.name);
		if (!rc)
			rc = map_string(r, OPT(m->domain, m->n_domain, i), &g.domain);
		if (!rc && g.kind == GS_RANGE_GPU_ANNOTATION) {
			rc = map_stream_opt(r, OPT(m->stream, m->n_stream, i), &g.stream);
			if (!rc && g.stream == GS_NO_INDEX)
				SHAPE_ERR(r,
					  "a GPU annotation range (%zu in the chunk) has no stream",
					  i);
		}
		if (!rc && sink->range)
			rc = sink->range(sink, &g);
		if (rc)
			return rc;
	}
	return warn_n(r, sink, unknown,
		      "host ranges of a kind this version does not know, read as other ranges");
}

/* Collectives, in file order from collective_base (after a salvaged gap,
 * the lost ones map to none). */
static gs_status decode_collectives(struct gs_reader *r, struct gs_sink *sink,
				    const Gscope__Chunk *c)
{
	if (c->n_collectives && c->collective_base != r->n_coll) {
		if (!(r->flags & GS_READER_SALVAGE) || c->collective_base < r->n_coll ||
		    c->collective_base - r->n_coll > (1u << 24))
			SHAPE_ERR(r, "collectives out of sequence (base %" PRIu32 ", expected %zu)",
				  c->collective_base, r->n_coll);
		while (r->n_coll < c->collective_base)
			if (GS_VEC_PUSH(r->coll_map, r->n_coll, r->cap_coll, 0))
				return gs_nomem();
	}
	if (c->n_collectives > UINT32_MAX - 1 - r->n_coll)
		SHAPE_ERR(r, "too many collectives");
	for (size_t i = 0; i < c->n_collectives; i++) {
		const Gscope__Collective *m = c->collectives[i];
		struct gs_collective k = {.group_size = m->group_size,
					  .in_nelems = m->in_nelems,
					  .out_nelems = m->out_nelems,
					  .has_nelems = m->has_nelems,
					  .has_seq = m->has_seq,
					  .seq = m->has_seq ? m->seq : 0};
		uint32_t idx = 0, id = 0;
		gs_status rc = map_string(r, m->name, &k.name);

		if (!rc)
			rc = map_string(r, m->group, &k.group);
		if (!rc)
			rc = map_string(r, m->group_desc, &k.group_desc);
		if (!rc)
			rc = map_string(r, m->group_ranks, &k.group_ranks);
		if (!rc)
			rc = map_string(r, m->dtype, &k.dtype);
		if (!rc && sink->collective) {
			rc = sink->collective(sink, &k, &idx);
			id = idx + 1;
		}
		if (rc)
			return rc;
		if (GS_VEC_PUSH(r->coll_map, r->n_coll, r->cap_coll, id))
			return gs_nomem();
	}
	return GS_OK;
}

static gs_status decode_rest(struct gs_reader *r, struct gs_sink *sink, const Gscope__Chunk *c)
{
	gs_status rc = GS_OK;
	uint64_t unknown_syncs = 0; /* of a kind this version does not know */

	for (size_t i = 0; i < c->n_processes && !rc; i++) {
		const Gscope__Process *m = c->processes[i];
		struct gs_process p = {.pid = m->pid,
				       .start_ns = m->start_ns,
				       .dropped_records = m->dropped_records,
				       .has_rank = m->rank != 0,
				       .rank = (uint32_t)(m->rank - 1),
				       .world_size = m->world_size,
				       .clock = (uint8_t)m->clock,
				       .wall_offset_ns = m->wall_offset_ns,
				       .capture = m->capture,
				       .backend = GS_NO_STRING};

		if (m->rank > (uint64_t)UINT32_MAX + 1)
			SHAPE_ERR(r, "process %" PRId64 " has rank %" PRIu64 ", over 2^32 - 1",
				  m->pid, m->rank - 1);
		if (!p.has_rank)
			p.rank = 0;
		/* A clock this reader does not know, or an offset past the
		 * times the model holds, reads as not known. */
		if (m->clock >= GS_CLOCK_SOURCE_COUNT || m->wall_offset_ns <= -GS_TIME_LIMIT_NS ||
		    m->wall_offset_ns >= GS_TIME_LIMIT_NS || !m->clock) {
			p.clock = GS_CLOCK_NONE;
			p.wall_offset_ns = 0;
		}
		rc = map_string(r, m->host_name, &p.host_name);
		if (!rc && m->backend) {
			rc = map_string(r, m->backend, &p.backend);
			p.has_backend = !rc && p.backend != GS_NO_STRING;
		}
		if (!rc)
			rc = map_string(r, m->command_line, &p.command_line);
		if (!rc)
			rc = map_string(r, m->driver_version, &p.driver_version);
		if (!rc)
			rc = map_string(r, m->runtime_version, &p.runtime_version);
		if (!rc)
			rc = map_string(r, m->cupti_version, &p.cupti_version);
		if (!rc && sink->process)
			rc = sink->process(sink, &p);
	}
	for (size_t i = 0; i < c->n_devices && !rc; i++) {
		const Gscope__Device *m = c->devices[i];
		struct gs_device d = {.id = m->id,
				      .sm_count = m->sm_count,
				      .cc_major = m->cc_major,
				      .cc_minor = m->cc_minor,
				      .memory_bytes = m->memory_bytes,
				      .copy_engines = m->copy_engines};

		rc = map_string(r, m->name, &d.name);
		if (!rc)
			rc = map_string(r, m->uuid, &d.uuid);
		if (!rc && sink->device)
			rc = sink->device(sink, &d);
	}
	if (!rc)
		rc = decode_collectives(r, sink, c);
	for (size_t i = 0; i < c->n_syncs && !rc; i++) {
		const Gscope__Sync *m = c->syncs[i];

		unknown_syncs += m->kind >= GS_SYNC_KIND_COUNT;
		struct gs_sync y = {.kind = (uint8_t)(m->kind < GS_SYNC_KIND_COUNT ? m->kind : 0),
				    .start_ns = m->start_ns,
				    .end_ns = end_ns(m->start_ns, m->duration),
				    .pid = m->pid,
				    .tid = m->tid,
				    .correlation = m->correlation,
				    .event_id = m->event_id,
				    .sync_id = m->sync_id,
				    .event_correlation = m->event_correlation,
				    .device = m->device};

		rc = map_stream_opt(r, m->stream, &y.stream);
		if (!rc)
			rc = map_stream_opt(r, m->wait_on_stream, &y.wait_on_stream);
		if (!rc && sink->sync)
			rc = sink->sync(sink, &y);
	}
	if (!rc)
		rc = warn_n(r, sink, unknown_syncs,
			    "syncs of a kind this version does not know, read as of unknown kind");
	for (size_t i = 0; i < c->n_event_records && !rc; i++) {
		const Gscope__EventRecord *m = c->event_records[i];
		struct gs_event_record e = {.time_ns = m->time_ns,
					    .correlation = m->correlation,
					    .event_id = m->event_id,
					    .sync_id = m->sync_id};

		rc = map_stream_opt(r, m->stream, &e.stream);
		if (!rc && sink->event_record)
			rc = sink->event_record(sink, &e);
	}
	if (!rc && c->n_allocations && c->allocation_base != r->n_alloc) {
		if (!(r->flags & GS_READER_SALVAGE) || c->allocation_base < r->n_alloc ||
		    c->allocation_base - r->n_alloc > (1u << 24))
			SHAPE_ERR(r, "allocations out of sequence (base %" PRIu32 ", expected %zu)",
				  c->allocation_base, r->n_alloc);
		while (r->n_alloc < c->allocation_base)
			if (GS_VEC_PUSH(r->alloc_map, r->n_alloc, r->cap_alloc, GS_NO_INDEX))
				return gs_nomem();
	}
	for (size_t i = 0; i < c->n_allocations && !rc; i++) {
		const Gscope__Allocation *m = c->allocations[i];
		struct gs_allocation a = {
			.address = m->address,
			.bytes = m->bytes,
			.alloc_ns = m->alloc_ns,
			.free_ns = m->free_ns,
			.pid = m->pid,
			.device = m->device,
			.mem_kind = (uint8_t)(m->mem_kind < GS_MEM_KIND_COUNT ? m->mem_kind : 0)};
		uint32_t idx = GS_NO_INDEX;

		if (sink->allocation)
			rc = sink->allocation(sink, &a, &idx);
		if (!rc && GS_VEC_PUSH(r->alloc_map, r->n_alloc, r->cap_alloc, idx))
			return gs_nomem();
	}
	for (size_t i = 0; i < c->n_op_allocs && !rc; i++) {
		const Gscope__OpAlloc *m = c->op_allocs[i];
		struct gs_op_alloc l = {.correlation = m->correlation,
					.op_kind = (uint8_t)m->op_kind,
					.flags = (uint8_t)(m->flags &
							   (GS_LINK_HAS_OFFSET | GS_LINK_SEGMENT)),
					.offset = m->offset,
					.bytes = m->bytes};

		if (m->allocation >= r->n_alloc)
			SHAPE_ERR(r, "op link refers to undeclared allocation %" PRIu32,
				  m->allocation);
		l.allocation = r->alloc_map[m->allocation];
		if (l.allocation != GS_NO_INDEX && sink->op_alloc)
			rc = sink->op_alloc(sink, &l);
	}
	for (size_t i = 0; i < c->n_overheads && !rc; i++) {
		const Gscope__Overhead *m = c->overheads[i];
		struct gs_overhead o = {.start_ns = m->start_ns,
					.end_ns = end_ns(m->start_ns, m->duration),
					.pid = m->pid};

		rc = map_string(r, m->kind, &o.kind);
		if (!rc && sink->overhead)
			rc = sink->overhead(sink, &o);
	}
	for (size_t i = 0; i < c->n_clock_pairs && !rc; i++) {
		const Gscope__ClockPair *m = c->clock_pairs[i];
		struct gs_clock_pair p = {.pid = m->pid,
					  .device = m->device,
					  .host_ns = m->host_ns,
					  .gpu_ns = m->gpu_ns};

		if (sink->clock_pair)
			rc = sink->clock_pair(sink, &p);
	}
	for (size_t i = 0; i < c->n_dropped && !rc; i++)
		if (sink->dropped)
			rc = sink->dropped(sink, c->dropped[i]->pid, c->dropped[i]->count);
	for (size_t i = 0; i < c->n_warnings && !rc; i++)
		if (sink->warning)
			rc = sink->warning(sink,
					   c->warnings[i]->message ? c->warnings[i]->message : "",
					   c->warnings[i]->count,
					   c->warnings[i]->kind < GS_WARNING_KIND_COUNT ?
						   c->warnings[i]->kind :
						   GS_WARNING_OTHER);
	return rc;
}

static uint64_t chunk_record_count(const Gscope__Chunk *c)
{
	uint64_t n = c->n_syncs + c->n_event_records + c->n_allocations + c->n_op_allocs +
		     c->n_overheads + c->n_clock_pairs;

	if (c->ops)
		n += c->ops->n_kind;
	if (c->api_calls)
		n += c->api_calls->n_start_delta;
	if (c->ranges)
		n += c->ranges->n_start_delta;
	return n;
}

gs_status rd_decode_chunk(struct gs_reader *r, struct gs_sink *sink, const struct frame *f,
			  const Gscope__Chunk *c)
{
	uint64_t nrec = chunk_record_count(c);
	gs_status rc;

	r->placed = false;
	if (nrec != f->nrecords)
		SHAPE_ERR(r, "holds %" PRIu64 " records, its header says %" PRIu32, nrec,
			  f->nrecords);
	rc = decode_strings(r, sink, c);
	if (!rc)
		rc = decode_streams(r, sink, c);
	if (!rc)
		rc = decode_rest(r, sink, c);
	if (!rc && c->ops)
		rc = decode_ops(r, sink, c->ops);
	if (!rc && c->api_calls)
		rc = decode_api(r, sink, c->api_calls);
	if (!rc && c->ranges)
		rc = decode_ranges(r, sink, c->ranges);
	if (rc) {
		/* What the sink refused (a time out of range, a limit, memory)
		 * is told where in the file it was. */
		if (!r->placed)
			gs_error_append("%s: chunk %" PRIu64 " at byte %" PRIu64, r->name, r->chunk,
					r->offset);
		return rc;
	}
	r->records = rd_sat_add(r->records, nrec);
	if (f->type == GS_CHUNK_END) {
		r->saw_end = true;
		if (c->total_records != rd_sat_add(r->records, r->unknown_records) && !r->skipped)
			SHAPE_ERR(r,
				  "end chunk counts %" PRIu64 " records, the file holds %" PRIu64,
				  c->total_records, r->records);
	}
	return GS_OK;
}
