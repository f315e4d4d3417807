/* SPDX-License-Identifier: MIT */
/*
 * The .gscope streaming writer. Records are buffered in columns; every
 * `flush_records` records (or on request) the buffer becomes one chunk:
 * a protobuf `Chunk`, zlib-compressed, framed, and written with one write.
 * Every chunk decodes on its own except for strings, streams,
 * allocations and collectives, which are declared once per file.
 */
#include "frame.h"
#include "gs_trace.pb-c.h"
#include "util.h"

#include <gpuscope/gscope_file.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define DEFAULT_FLUSH_RECORDS 65536u
/* Flush early when buffered strings grow past this (keeps chunks bounded). */
#define FLUSH_BYTES (16u << 20)
#define MAX_STRING (16u << 20)

#define COLUMN(type, name)                                                                         \
	struct {                                                                                   \
		type *v;                                                                           \
		size_t n, cap;                                                                     \
	} name

#define COL_PUSH(col, value)                                                                       \
	(gs_vec_reserve((void **)&(col).v, &(col).cap, (col).n + 1, sizeof(*(col).v)) ?            \
		 GS_ERR_NOMEM :                                                                    \
		 ((col).v[(col).n++] = (value), GS_OK))

struct op_cols {
	COLUMN(uint32_t, kind);
	COLUMN(int64_t, start_delta);
	COLUMN(uint64_t, duration);
	COLUMN(uint32_t, stream);
	COLUMN(uint32_t, name);
	COLUMN(int64_t, correlation_delta);
	COLUMN(uint32_t, flags);
	COLUMN(uint64_t, graph_id);
	COLUMN(uint64_t, graph_node);
	COLUMN(uint32_t, grid_x);
	COLUMN(uint32_t, grid_y);
	COLUMN(uint32_t, grid_z);
	COLUMN(uint32_t, block_x);
	COLUMN(uint32_t, block_y);
	COLUMN(uint32_t, block_z);
	COLUMN(uint32_t, shared_mem);
	COLUMN(uint32_t, registers);
	COLUMN(uint32_t, mangled_name);
	COLUMN(uint64_t, bytes);
	COLUMN(uint32_t, copy_info);
	COLUMN(uint32_t, collective);
	int64_t prev_start;
	int64_t prev_corr;
};

struct api_cols {
	COLUMN(int64_t, start_delta);
	COLUMN(uint64_t, duration);
	COLUMN(int64_t, pid);
	COLUMN(int64_t, tid);
	COLUMN(int64_t, correlation_delta);
	COLUMN(uint32_t, name);
	COLUMN(int32_t, return_value);
	COLUMN(uint32_t, cbid);
	COLUMN(uint32_t, kind);
	int64_t prev_start;
	int64_t prev_corr;
};

struct range_cols {
	COLUMN(int64_t, start_delta);
	COLUMN(uint64_t, duration);
	COLUMN(int64_t, pid);
	COLUMN(int64_t, tid);
	COLUMN(uint64_t, external_id);
	COLUMN(uint32_t, name);
	COLUMN(uint32_t, domain);
	COLUMN(uint32_t, kind);
	COLUMN(uint32_t, stream); /* GPU annotations: index + 1; 0 none */
	int64_t prev_start;
};

struct gs_writer {
	struct gs_sink sink; /* first member */
	int fd;
	bool own_fd;
	bool failed; /* a write failed: later calls fail fast */
	char *name;
	uint32_t flush_records;
	int level;

	struct gs_strtab strings;
	uint32_t string_base; /* first string not yet written */
	size_t pending_string_bytes;
	struct gs_stream_map streams;
	COLUMN(uint32_t, dirty_streams);
	uint32_t nallocations;
	uint32_t allocation_base;
	uint32_t ncollectives;
	uint32_t collective_base;

	COLUMN(Gscope__Process, processes);
	COLUMN(Gscope__Device, devices);
	struct op_cols ops;
	struct api_cols api;
	struct range_cols ranges;
	COLUMN(Gscope__Sync, syncs);
	COLUMN(Gscope__EventRecord, event_records);
	COLUMN(Gscope__Allocation, allocations);
	COLUMN(Gscope__Collective, collectives);
	COLUMN(Gscope__OpAlloc, op_allocs);
	COLUMN(Gscope__Overhead, overheads);
	COLUMN(Gscope__ClockPair, clock_pairs);
	COLUMN(Gscope__Dropped, dropped);
	COLUMN(Gscope__Warning, warnings);

	uint64_t pending;       /* records buffered */
	uint64_t total_records; /* records appended */
	uint64_t chunks;
	uint64_t offset;          /* bytes written */
	uint64_t good_offset;     /* bytes of the header and whole chunks */
	uint64_t written_records; /* records in whole chunks */

	unsigned char *raw;
	size_t raw_cap;
	unsigned char *frame;
	size_t frame_cap;
};

static struct gs_writer *of(struct gs_sink *s)
{
	return (struct gs_writer *)s;
}

/* Store a string id as id + 1 (0 = absent). */
static uint32_t sid(uint32_t id)
{
	return id == GS_NO_STRING ? 0 : id + 1;
}

static uint32_t sidx(uint32_t index)
{
	return index == GS_NO_INDEX ? 0 : index + 1;
}

static gs_status counted(struct gs_writer *w, gs_status rc)
{
	if (rc)
		return gs_nomem();
	w->pending++;
	w->total_records++;
	if (w->pending >= w->flush_records)
		return gs_writer_flush(w);
	return GS_OK;
}

/* ---- sink callbacks ---- */

static gs_status writer_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	struct gs_writer *w = of(s);
	size_t before = w->strings.count;
	gs_status rc;

	if (len > MAX_STRING) {
		gs_error_append("string of %zu bytes is over the %u-byte limit", len, MAX_STRING);
		return GS_ERR_LIMIT;
	}
	rc = gs_strtab_intern(&w->strings, str, len, id);
	if (rc)
		return rc == GS_ERR_NOMEM ? gs_nomem() : rc;
	if (w->strings.count != before) {
		w->pending_string_bytes += len;
		if (w->pending_string_bytes >= FLUSH_BYTES)
			return gs_writer_flush(w);
	}
	return GS_OK;
}

static gs_status writer_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *index)
{
	struct gs_writer *w = of(s);
	size_t before = w->streams.count;
	struct gs_stream old = {0};
	uint32_t found;
	gs_status rc;

	/* Remember the old values to tell whether a redeclaration adds anything. */
	if (gs_stream_map_find(&w->streams, st, &found))
		old = w->streams.streams[found];
	rc = gs_stream_map_put(&w->streams, st, index);
	if (rc)
		return rc == GS_ERR_NOMEM ? gs_nomem() : rc;
	if (w->streams.count != before || old.kind != w->streams.streams[*index].kind ||
	    old.priority != w->streams.streams[*index].priority)
		return COL_PUSH(w->dirty_streams, *index) ? gs_nomem() : GS_OK;
	return GS_OK;
}

static gs_status writer_process(struct gs_sink *s, const struct gs_process *p)
{
	struct gs_writer *w = of(s);
	Gscope__Process m = GSCOPE__PROCESS__INIT;

	m.pid = p->pid;
	m.host_name = sid(p->host_name);
	m.command_line = sid(p->command_line);
	m.driver_version = sid(p->driver_version);
	m.runtime_version = sid(p->runtime_version);
	m.cupti_version = sid(p->cupti_version);
	m.start_ns = p->start_ns;
	m.dropped_records = p->dropped_records;
	m.rank = p->has_rank ? (uint64_t)p->rank + 1 : 0;
	m.world_size = p->world_size;
	m.clock = p->clock;
	m.wall_offset_ns = p->clock ? p->wall_offset_ns : 0;
	m.backend = p->has_backend ? sid(p->backend) : 0;
	m.capture = p->capture;
	return COL_PUSH(w->processes, m) ? gs_nomem() : GS_OK;
}

static gs_status writer_device(struct gs_sink *s, const struct gs_device *d)
{
	struct gs_writer *w = of(s);
	Gscope__Device m = GSCOPE__DEVICE__INIT;

	m.id = d->id;
	m.name = sid(d->name);
	m.uuid = sid(d->uuid);
	m.sm_count = d->sm_count;
	m.cc_major = d->cc_major;
	m.cc_minor = d->cc_minor;
	m.memory_bytes = d->memory_bytes;
	m.copy_engines = d->copy_engines;
	return COL_PUSH(w->devices, m) ? gs_nomem() : GS_OK;
}

static gs_status check_stream(const struct gs_writer *w, uint32_t index, bool optional)
{
	if ((optional && index == GS_NO_INDEX) || index < w->streams.count)
		return GS_OK;
	gs_error_append("record refers to undeclared stream %u", index);
	return GS_ERR_INVALID;
}

static gs_status writer_op(struct gs_sink *s, const struct gs_op *op,
			   const struct gs_launch_cfg *launch)
{
	static const struct gs_launch_cfg none;
	const struct gs_launch_cfg *lc = launch ? launch : &none;
	struct gs_writer *w = of(s);
	struct op_cols *c = &w->ops;
	gs_status rc = check_stream(w, op->stream, false);

	if (rc)
		return rc;
	if (op->collective > w->ncollectives) {
		gs_error_append("op refers to undeclared collective %u", op->collective - 1);
		return GS_ERR_INVALID;
	}
	rc |= COL_PUSH(c->kind, op->kind);
	rc |= COL_PUSH(c->start_delta, (int64_t)((uint64_t)op->start_ns - (uint64_t)c->prev_start));
	rc |= COL_PUSH(c->duration, (uint64_t)op->end_ns - (uint64_t)op->start_ns);
	rc |= COL_PUSH(c->stream, op->stream);
	rc |= COL_PUSH(c->name, sid(op->name));
	rc |= COL_PUSH(c->correlation_delta, (int64_t)(op->correlation - (uint64_t)c->prev_corr));
	rc |= COL_PUSH(c->flags, op->flags);
	rc |= COL_PUSH(c->graph_id, lc->graph_id);
	rc |= COL_PUSH(c->graph_node, op->graph_node);
	rc |= COL_PUSH(c->collective, op->collective);
	if (op->kind == GS_OP_KERNEL) {
		rc |= COL_PUSH(c->grid_x, lc->grid[0]);
		rc |= COL_PUSH(c->grid_y, lc->grid[1]);
		rc |= COL_PUSH(c->grid_z, lc->grid[2]);
		rc |= COL_PUSH(c->block_x, lc->block[0]);
		rc |= COL_PUSH(c->block_y, lc->block[1]);
		rc |= COL_PUSH(c->block_z, lc->block[2]);
		rc |= COL_PUSH(c->shared_mem, lc->shared_mem);
		rc |= COL_PUSH(c->registers, lc->registers);
		rc |= COL_PUSH(c->mangled_name, lc->mangled_name);
	} else {
		rc |= COL_PUSH(c->bytes, op->bytes);
		rc |= COL_PUSH(c->copy_info, (uint32_t)(op->copy_kind & 0xf) |
						     (uint32_t)(op->src_mem & 0xf) << 4 |
						     (uint32_t)(op->dst_mem & 0xf) << 8);
	}
	c->prev_start = op->start_ns;
	c->prev_corr = (int64_t)op->correlation;
	return counted(w, rc);
}

/* Not a record (old readers count records per chunk and know no
 * collectives): flushed with the records, or on its own when many wait. */
static gs_status writer_collective(struct gs_sink *s, const struct gs_collective *c,
				   uint32_t *index)
{
	struct gs_writer *w = of(s);
	Gscope__Collective m = GSCOPE__COLLECTIVE__INIT;

	if (w->ncollectives >= UINT32_MAX - 1) {
		gs_error_append("too many collectives");
		return GS_ERR_LIMIT;
	}
	m.name = sid(c->name);
	m.group = sid(c->group);
	m.group_desc = sid(c->group_desc);
	m.group_ranks = sid(c->group_ranks);
	m.dtype = sid(c->dtype);
	m.group_size = c->group_size;
	m.in_nelems = c->in_nelems;
	m.out_nelems = c->out_nelems;
	m.has_nelems = c->has_nelems;
	m.has_seq = c->has_seq;
	m.seq = c->has_seq ? c->seq : 0;
	if (COL_PUSH(w->collectives, m))
		return gs_nomem();
	if (index)
		*index = w->ncollectives;
	w->ncollectives++;
	if (w->collectives.n >= w->flush_records)
		return gs_writer_flush(w);
	return GS_OK;
}

static gs_status writer_api_call(struct gs_sink *s, const struct gs_api_call *a)
{
	struct gs_writer *w = of(s);
	struct api_cols *c = &w->api;
	gs_status rc = GS_OK;

	rc |= COL_PUSH(c->start_delta, (int64_t)((uint64_t)a->start_ns - (uint64_t)c->prev_start));
	rc |= COL_PUSH(c->duration, (uint64_t)a->end_ns - (uint64_t)a->start_ns);
	rc |= COL_PUSH(c->pid, a->pid);
	rc |= COL_PUSH(c->tid, a->tid);
	rc |= COL_PUSH(c->correlation_delta, (int64_t)(a->correlation - (uint64_t)c->prev_corr));
	rc |= COL_PUSH(c->name, sid(a->name));
	rc |= COL_PUSH(c->return_value, a->return_value);
	rc |= COL_PUSH(c->cbid, a->cbid);
	rc |= COL_PUSH(c->kind, a->kind);
	c->prev_start = a->start_ns;
	c->prev_corr = (int64_t)a->correlation;
	return counted(w, rc);
}

static gs_status writer_range(struct gs_sink *s, const struct gs_range *r)
{
	struct gs_writer *w = of(s);
	struct range_cols *c = &w->ranges;
	gs_status rc = GS_OK;

	rc |= COL_PUSH(c->start_delta, (int64_t)((uint64_t)r->start_ns - (uint64_t)c->prev_start));
	rc |= COL_PUSH(c->duration, (uint64_t)r->end_ns - (uint64_t)r->start_ns);
	rc |= COL_PUSH(c->pid, r->pid);
	rc |= COL_PUSH(c->tid, r->tid);
	rc |= COL_PUSH(c->external_id, r->external_id);
	rc |= COL_PUSH(c->name, sid(r->name));
	rc |= COL_PUSH(c->domain, sid(r->domain));
	rc |= COL_PUSH(c->kind, r->kind);
	rc |= COL_PUSH(c->stream, r->kind == GS_RANGE_GPU_ANNOTATION && r->stream != GS_NO_INDEX ?
					  r->stream + 1 :
					  0);
	c->prev_start = r->start_ns;
	return counted(w, rc);
}

static gs_status writer_sync(struct gs_sink *s, const struct gs_sync *y)
{
	struct gs_writer *w = of(s);
	Gscope__Sync m = GSCOPE__SYNC__INIT;
	gs_status rc = check_stream(w, y->stream, true);

	if (!rc)
		rc = check_stream(w, y->wait_on_stream, true);
	if (rc)
		return rc;
	m.kind = y->kind;
	m.start_ns = y->start_ns;
	m.duration = (uint64_t)y->end_ns - (uint64_t)y->start_ns;
	m.pid = y->pid;
	m.tid = y->tid;
	m.correlation = y->correlation;
	m.event_id = y->event_id;
	m.sync_id = y->sync_id;
	m.event_correlation = y->event_correlation;
	m.stream = sidx(y->stream);
	m.wait_on_stream = sidx(y->wait_on_stream);
	m.device = y->device;
	return counted(w, COL_PUSH(w->syncs, m));
}

static gs_status writer_event_record(struct gs_sink *s, const struct gs_event_record *e)
{
	struct gs_writer *w = of(s);
	Gscope__EventRecord m = GSCOPE__EVENT_RECORD__INIT;
	gs_status rc = check_stream(w, e->stream, true);

	if (rc)
		return rc;
	m.time_ns = e->time_ns;
	m.correlation = e->correlation;
	m.event_id = e->event_id;
	m.sync_id = e->sync_id;
	m.stream = sidx(e->stream);
	return counted(w, COL_PUSH(w->event_records, m));
}

static gs_status writer_allocation(struct gs_sink *s, const struct gs_allocation *a,
				   uint32_t *index)
{
	struct gs_writer *w = of(s);
	Gscope__Allocation m = GSCOPE__ALLOCATION__INIT;

	if (w->nallocations >= UINT32_MAX - 1) {
		gs_error_append("too many allocations");
		return GS_ERR_LIMIT;
	}
	m.address = a->address;
	m.bytes = a->bytes;
	m.alloc_ns = a->alloc_ns;
	m.free_ns = a->free_ns;
	m.pid = a->pid;
	m.device = a->device;
	m.mem_kind = a->mem_kind;
	if (COL_PUSH(w->allocations, m))
		return gs_nomem();
	if (index)
		*index = w->nallocations;
	w->nallocations++;
	return counted(w, GS_OK);
}

static gs_status writer_op_alloc(struct gs_sink *s, const struct gs_op_alloc *l)
{
	struct gs_writer *w = of(s);
	Gscope__OpAlloc m = GSCOPE__OP_ALLOC__INIT;

	if (l->allocation >= w->nallocations) {
		gs_error_append("op link refers to undeclared allocation %u", l->allocation);
		return GS_ERR_INVALID;
	}
	m.correlation = l->correlation;
	m.allocation = l->allocation;
	m.op_kind = l->op_kind;
	m.offset = l->offset;
	m.bytes = l->bytes;
	m.flags = l->flags;
	return counted(w, COL_PUSH(w->op_allocs, m));
}

static gs_status writer_overhead(struct gs_sink *s, const struct gs_overhead *o)
{
	struct gs_writer *w = of(s);
	Gscope__Overhead m = GSCOPE__OVERHEAD__INIT;

	m.start_ns = o->start_ns;
	m.duration = (uint64_t)o->end_ns - (uint64_t)o->start_ns;
	m.pid = o->pid;
	m.kind = sid(o->kind);
	return counted(w, COL_PUSH(w->overheads, m));
}

static gs_status writer_clock_pair(struct gs_sink *s, const struct gs_clock_pair *c)
{
	struct gs_writer *w = of(s);
	Gscope__ClockPair m = GSCOPE__CLOCK_PAIR__INIT;

	m.pid = c->pid;
	m.device = c->device;
	m.host_ns = c->host_ns;
	m.gpu_ns = c->gpu_ns;
	return counted(w, COL_PUSH(w->clock_pairs, m));
}

static gs_status writer_dropped(struct gs_sink *s, int64_t pid, uint64_t count)
{
	struct gs_writer *w = of(s);
	Gscope__Dropped m = GSCOPE__DROPPED__INIT;

	m.pid = pid;
	m.count = count;
	return COL_PUSH(w->dropped, m) ? gs_nomem() : GS_OK;
}

static gs_status writer_warning(struct gs_sink *s, const char *msg, uint64_t count, unsigned kind)
{
	struct gs_writer *w = of(s);
	Gscope__Warning m;

	gscope__warning__init(&m);
	m.message = strdup(msg);
	m.count = count;
	m.kind = kind < GS_WARNING_KIND_COUNT ? kind : GS_WARNING_OTHER;
	if (!m.message)
		return gs_nomem();
	if (COL_PUSH(w->warnings, m)) {
		free(m.message);
		return gs_nomem();
	}
	return GS_OK;
}

/* ---- open / close ---- */

static gs_status write_all(struct gs_writer *w, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(w->fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int err = k < 0 ? errno : EIO;

			w->failed = true;
			gs_error_append("write failed at byte %llu: %s",
					(unsigned long long)w->offset, strerror(err));
			gs_error_append("%s", w->name);
			return GS_ERR_IO;
		}
		p += k;
		n -= (size_t)k;
		w->offset += (uint64_t)k;
	}
	return GS_OK;
}

static gs_status writer_init(int fd, bool own, const char *name,
			     const struct gs_writer_options *opts, struct gs_writer **out)
{
	struct gs_writer *w = calloc(1, sizeof(*w));
	unsigned char hdr[GS_FILE_HEADER_LEN];
	gs_status rc;

	if (!w)
		return gs_nomem();
	w->fd = fd;
	w->own_fd = own;
	w->name = strdup(name ? name : "(output)");
	w->flush_records = opts && opts->flush_records ? opts->flush_records :
							 DEFAULT_FLUSH_RECORDS;
	w->level = opts && opts->compression_level >= 0 && opts->compression_level <= 9 ?
			   opts->compression_level :
			   Z_DEFAULT_COMPRESSION;
	if (opts && opts->compression_level == 0)
		w->level = 0;
	gs_strtab_init(&w->strings);
	gs_stream_map_init(&w->streams);
	w->sink = (struct gs_sink){
		.intern = writer_intern,
		.stream = writer_stream,
		.process = writer_process,
		.device = writer_device,
		.op = writer_op,
		.collective = writer_collective,
		.api_call = writer_api_call,
		.sync = writer_sync,
		.event_record = writer_event_record,
		.allocation = writer_allocation,
		.op_alloc = writer_op_alloc,
		.range = writer_range,
		.overhead = writer_overhead,
		.clock_pair = writer_clock_pair,
		.dropped = writer_dropped,
		.warning = writer_warning,
	};
	if (!w->name) {
		w->own_fd = false;
		w->fd = -1;
		gs_writer_close(w);
		return gs_nomem();
	}
	/* Bytes, not a C string. */
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
	memcpy(hdr, GS_FILE_MAGIC, GS_FILE_MAGIC_LEN);
	gs_put_u16(hdr + 8, GS_FORMAT_MAJOR);
	gs_put_u16(hdr + 10, GS_FORMAT_MINOR);
	gs_put_u32(hdr + 12, 0); /* feature mask */
	gs_put_u32(hdr + 16, (uint32_t)crc32(0, hdr, 16));
	rc = write_all(w, hdr, sizeof(hdr));
	w->good_offset = w->offset;
	if (rc) {
		w->own_fd = false; /* the caller closes what it opened */
		w->fd = -1;
		w->failed = false;
		gs_writer_close(w);
		return rc;
	}
	*out = w;
	return GS_OK;
}

gs_status gs_writer_open(const char *path, const struct gs_writer_options *opts,
			 struct gs_writer **out)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
	gs_status rc;
	int fd;

	if (opts && opts->exclusive)
		flags |= O_EXCL | O_NOFOLLOW;
	else
		flags |= O_TRUNC;
	fd = open(path, flags, 0644);
	if (fd < 0) {
		gs_error_append("%s: cannot create: %s", path, strerror(errno));
		return GS_ERR_IO;
	}
	rc = writer_init(fd, true, path, opts, out);
	if (rc) {
		close(fd);
		gs_error_append("%s", path);
	}
	return rc;
}

gs_status gs_writer_open_fd(int fd, const char *name, const struct gs_writer_options *opts,
			    struct gs_writer **out)
{
	return writer_init(fd, false, name, opts, out);
}

struct gs_sink *gs_writer_borrow_sink(struct gs_writer *w)
{
	return &w->sink;
}

uint64_t gs_writer_record_count(const struct gs_writer *w)
{
	return w->total_records;
}

uint64_t gs_writer_chunk_count(const struct gs_writer *w)
{
	return w->chunks;
}

/* ---- chunk building ---- */

/* Attach a column to a protobuf repeated field; all-zero optional columns
 * are left out (the reader takes an absent column as zeros). */
#define ATTACH(msg, field, col)                                                                    \
	do {                                                                                       \
		(msg).n_##field = (col).n;                                                         \
		(msg).field = (col).v;                                                             \
	} while (0)

#define ATTACH_OPT(msg, field, col)                                                                \
	do {                                                                                       \
		bool any_ = false;                                                                 \
		for (size_t i_ = 0; i_ < (col).n && !any_; i_++)                                   \
			any_ = (col).v[i_] != 0;                                                   \
		if (any_)                                                                          \
			ATTACH(msg, field, col);                                                   \
	} while (0)

static void op_cols_reset(struct op_cols *c)
{
	c->kind.n = c->start_delta.n = c->duration.n = c->stream.n = c->name.n = 0;
	c->correlation_delta.n = c->flags.n = c->graph_id.n = c->graph_node.n = 0;
	c->grid_x.n = c->grid_y.n = c->grid_z.n = 0;
	c->block_x.n = c->block_y.n = c->block_z.n = 0;
	c->shared_mem.n = c->registers.n = c->mangled_name.n = c->bytes.n = c->copy_info.n = 0;
	c->collective.n = 0;
	c->prev_start = c->prev_corr = 0;
}

static void op_cols_free(struct op_cols *c)
{
	free(c->kind.v);
	free(c->start_delta.v);
	free(c->duration.v);
	free(c->stream.v);
	free(c->name.v);
	free(c->correlation_delta.v);
	free(c->flags.v);
	free(c->graph_id.v);
	free(c->graph_node.v);
	free(c->grid_x.v);
	free(c->grid_y.v);
	free(c->grid_z.v);
	free(c->block_x.v);
	free(c->block_y.v);
	free(c->block_z.v);
	free(c->shared_mem.v);
	free(c->registers.v);
	free(c->mangled_name.v);
	free(c->bytes.v);
	free(c->copy_info.v);
	free(c->collective.v);
}

static void api_cols_reset(struct api_cols *c)
{
	c->start_delta.n = c->duration.n = c->pid.n = c->tid.n = 0;
	c->correlation_delta.n = c->name.n = c->return_value.n = c->cbid.n = c->kind.n = 0;
	c->prev_start = c->prev_corr = 0;
}

static void api_cols_free(struct api_cols *c)
{
	free(c->start_delta.v);
	free(c->duration.v);
	free(c->pid.v);
	free(c->tid.v);
	free(c->correlation_delta.v);
	free(c->name.v);
	free(c->return_value.v);
	free(c->cbid.v);
	free(c->kind.v);
}

static void range_cols_reset(struct range_cols *c)
{
	c->start_delta.n = c->duration.n = c->pid.n = c->tid.n = 0;
	c->external_id.n = c->name.n = c->domain.n = c->kind.n = c->stream.n = 0;
	c->prev_start = 0;
}

static void range_cols_free(struct range_cols *c)
{
	free(c->start_delta.v);
	free(c->duration.v);
	free(c->pid.v);
	free(c->tid.v);
	free(c->external_id.v);
	free(c->name.v);
	free(c->domain.v);
	free(c->kind.v);
	free(c->stream.v);
}

static void clear_pending(struct gs_writer *w)
{
	for (size_t i = 0; i < w->warnings.n; i++)
		free(w->warnings.v[i].message);
	w->processes.n = w->devices.n = w->dirty_streams.n = 0;
	w->syncs.n = w->event_records.n = w->allocations.n = w->op_allocs.n = 0;
	w->collectives.n = 0;
	w->overheads.n = w->clock_pairs.n = w->dropped.n = w->warnings.n = 0;
	op_cols_reset(&w->ops);
	api_cols_reset(&w->api);
	range_cols_reset(&w->ranges);
	w->pending = 0;
	w->pending_string_bytes = 0;
	w->string_base = (uint32_t)w->strings.count;
	w->allocation_base = w->nallocations;
	w->collective_base = w->ncollectives;
}

static bool has_pending(const struct gs_writer *w)
{
	return w->pending || w->string_base != w->strings.count || w->processes.n || w->devices.n ||
	       w->dirty_streams.n || w->collectives.n || w->dropped.n || w->warnings.n;
}

/* Pointers to messages, as protobuf-c wants for repeated message fields. */
static gs_status ptrs(void ***out, void *base, size_t n, size_t size)
{
	void **p = NULL;

	if (n) {
		p = malloc(n * sizeof(*p));
		if (!p)
			return GS_ERR_NOMEM;
		for (size_t i = 0; i < n; i++)
			p[i] = (char *)base + i * size;
	}
	*out = p;
	return GS_OK;
}

static gs_status write_chunk(struct gs_writer *w, uint16_t type, const Gscope__Chunk *msg,
			     uint32_t nrecords)
{
	size_t raw = gscope__chunk__get_packed_size(msg);
	uLongf comp;
	unsigned char *hdr;
	int zrc;

	if (raw > GS_CHUNK_MAX_RAW) {
		gs_error_append("chunk of %zu bytes is over the %u-byte limit", raw,
				GS_CHUNK_MAX_RAW);
		return GS_ERR_LIMIT;
	}
	if (gs_vec_reserve((void **)&w->raw, &w->raw_cap, raw ? raw : 1, 1))
		return gs_nomem();
	gscope__chunk__pack(msg, w->raw);
	comp = compressBound((uLong)raw);
	if (gs_vec_reserve((void **)&w->frame, &w->frame_cap, GS_CHUNK_HEADER_LEN + comp, 1))
		return gs_nomem();
	zrc = compress2(w->frame + GS_CHUNK_HEADER_LEN, &comp, w->raw, (uLong)raw, w->level);
	if (zrc != Z_OK) {
		gs_error_append("zlib compression failed (%d)", zrc);
		return zrc == Z_MEM_ERROR ? GS_ERR_NOMEM : GS_ERR_INVALID;
	}
	hdr = w->frame;
	/* NOLINTNEXTLINE(bugprone-not-null-terminated-result): bytes, not a C string */
	memcpy(hdr, GS_CHUNK_MAGIC, 4);
	gs_put_u16(hdr + 4, type);
	gs_put_u16(hdr + 6, 0);
	gs_put_u32(hdr + 8, (uint32_t)raw);
	gs_put_u32(hdr + 12, (uint32_t)comp);
	gs_put_u32(hdr + 16, nrecords);
	gs_put_u32(hdr + 20, (uint32_t)crc32(0, hdr + GS_CHUNK_HEADER_LEN, (uInt)comp));
	gs_put_u32(hdr + 24, (uint32_t)crc32(0, hdr, 24));
	/* One write per chunk: a reader never sees half a chunk but at a cut. */
	if (write_all(w, w->frame, GS_CHUNK_HEADER_LEN + comp))
		return GS_ERR_IO;
	w->chunks++;
	w->good_offset = w->offset;
	w->written_records += nrecords;
	return GS_OK;
}

static gs_status build_and_write(struct gs_writer *w, uint16_t type, uint64_t total)
{
	Gscope__Chunk msg = GSCOPE__CHUNK__INIT;
	Gscope__Ops ops = GSCOPE__OPS__INIT;
	Gscope__ApiCalls api = GSCOPE__API_CALLS__INIT;
	Gscope__Ranges ranges = GSCOPE__RANGES__INIT;
	size_t nstr = w->strings.count - w->string_base;
	ProtobufCBinaryData *strs = NULL;
	Gscope__Stream *streams = NULL;
	gs_status rc = GS_ERR_NOMEM;
	const struct op_cols *oc = &w->ops;
	const struct api_cols *ac = &w->api;
	const struct range_cols *rcols = &w->ranges;

	msg.string_base = w->string_base;
	if (nstr) {
		strs = malloc(nstr * sizeof(*strs));
		if (!strs)
			goto out;
		for (size_t i = 0; i < nstr; i++) {
			strs[i].data = (uint8_t *)(uintptr_t)w->strings.strs[w->string_base + i];
			strs[i].len = w->strings.lens[w->string_base + i];
		}
		msg.n_strings = nstr;
		msg.strings = strs;
	}
	if (w->dirty_streams.n) {
		streams = malloc(w->dirty_streams.n * sizeof(*streams));
		if (!streams)
			goto out;
		for (size_t i = 0; i < w->dirty_streams.n; i++) {
			const struct gs_stream *s = &w->streams.streams[w->dirty_streams.v[i]];
			Gscope__Stream m = GSCOPE__STREAM__INIT;

			m.pid = s->pid;
			m.device = s->device;
			m.context = s->context;
			m.stream_id = s->stream_id;
			m.kind = s->kind;
			m.priority = s->priority;
			m.index = w->dirty_streams.v[i];
			streams[i] = m;
		}
	}
	msg.n_streams = w->dirty_streams.n;
	msg.n_processes = w->processes.n;
	msg.n_devices = w->devices.n;
	msg.n_syncs = w->syncs.n;
	msg.n_event_records = w->event_records.n;
	msg.n_allocations = w->allocations.n;
	msg.n_op_allocs = w->op_allocs.n;
	msg.n_overheads = w->overheads.n;
	msg.n_clock_pairs = w->clock_pairs.n;
	msg.n_dropped = w->dropped.n;
	msg.n_warnings = w->warnings.n;
	msg.allocation_base = w->allocation_base;
	msg.n_collectives = w->collectives.n;
	msg.collective_base = w->collective_base;
	msg.total_records = total;
	if (ptrs((void ***)&msg.streams, streams, w->dirty_streams.n, sizeof(*streams)) ||
	    ptrs((void ***)&msg.processes, w->processes.v, w->processes.n,
		 sizeof(*w->processes.v)) ||
	    ptrs((void ***)&msg.devices, w->devices.v, w->devices.n, sizeof(*w->devices.v)) ||
	    ptrs((void ***)&msg.syncs, w->syncs.v, w->syncs.n, sizeof(*w->syncs.v)) ||
	    ptrs((void ***)&msg.event_records, w->event_records.v, w->event_records.n,
		 sizeof(*w->event_records.v)) ||
	    ptrs((void ***)&msg.allocations, w->allocations.v, w->allocations.n,
		 sizeof(*w->allocations.v)) ||
	    ptrs((void ***)&msg.collectives, w->collectives.v, w->collectives.n,
		 sizeof(*w->collectives.v)) ||
	    ptrs((void ***)&msg.op_allocs, w->op_allocs.v, w->op_allocs.n,
		 sizeof(*w->op_allocs.v)) ||
	    ptrs((void ***)&msg.overheads, w->overheads.v, w->overheads.n,
		 sizeof(*w->overheads.v)) ||
	    ptrs((void ***)&msg.clock_pairs, w->clock_pairs.v, w->clock_pairs.n,
		 sizeof(*w->clock_pairs.v)) ||
	    ptrs((void ***)&msg.dropped, w->dropped.v, w->dropped.n, sizeof(*w->dropped.v)) ||
	    ptrs((void ***)&msg.warnings, w->warnings.v, w->warnings.n, sizeof(*w->warnings.v)))
		goto out;

	if (oc->kind.n) {
		ATTACH(ops, kind, oc->kind);
		ATTACH(ops, start_delta, oc->start_delta);
		ATTACH(ops, duration, oc->duration);
		ATTACH(ops, stream, oc->stream);
		ATTACH(ops, name, oc->name);
		ATTACH(ops, correlation_delta, oc->correlation_delta);
		ATTACH_OPT(ops, flags, oc->flags);
		ATTACH_OPT(ops, graph_id, oc->graph_id);
		ATTACH_OPT(ops, graph_node, oc->graph_node);
		ATTACH(ops, grid_x, oc->grid_x);
		ATTACH(ops, grid_y, oc->grid_y);
		ATTACH(ops, grid_z, oc->grid_z);
		ATTACH(ops, block_x, oc->block_x);
		ATTACH(ops, block_y, oc->block_y);
		ATTACH(ops, block_z, oc->block_z);
		ATTACH_OPT(ops, shared_mem, oc->shared_mem);
		ATTACH_OPT(ops, registers, oc->registers);
		ATTACH_OPT(ops, mangled_name, oc->mangled_name);
		ATTACH_OPT(ops, bytes, oc->bytes);
		ATTACH_OPT(ops, copy_info, oc->copy_info);
		ATTACH_OPT(ops, collective, oc->collective);
		msg.ops = &ops;
	}
	if (ac->start_delta.n) {
		ATTACH(api, start_delta, ac->start_delta);
		ATTACH(api, duration, ac->duration);
		ATTACH(api, pid, ac->pid);
		ATTACH(api, tid, ac->tid);
		ATTACH(api, correlation_delta, ac->correlation_delta);
		ATTACH(api, name, ac->name);
		ATTACH_OPT(api, return_value, ac->return_value);
		ATTACH_OPT(api, cbid, ac->cbid);
		ATTACH_OPT(api, kind, ac->kind);
		msg.api_calls = &api;
	}
	if (rcols->start_delta.n) {
		ATTACH(ranges, start_delta, rcols->start_delta);
		ATTACH(ranges, duration, rcols->duration);
		ATTACH(ranges, pid, rcols->pid);
		ATTACH(ranges, tid, rcols->tid);
		ATTACH_OPT(ranges, external_id, rcols->external_id);
		ATTACH(ranges, name, rcols->name);
		ATTACH_OPT(ranges, domain, rcols->domain);
		ATTACH_OPT(ranges, kind, rcols->kind);
		ATTACH_OPT(ranges, stream, rcols->stream);
		msg.ranges = &ranges;
	}
	rc = write_chunk(w, type, &msg, (uint32_t)w->pending);
out:
	if (rc == GS_ERR_NOMEM && gs_error_count() == 0)
		gs_error_append("out of memory");
	free(strs);
	free(streams);
	free(msg.streams);
	free(msg.processes);
	free(msg.devices);
	free(msg.syncs);
	free(msg.event_records);
	free(msg.allocations);
	free(msg.collectives);
	free(msg.op_allocs);
	free(msg.overheads);
	free(msg.clock_pairs);
	free(msg.dropped);
	free(msg.warnings);
	return rc;
}

gs_status gs_writer_flush(struct gs_writer *w)
{
	gs_status rc;

	if (w->failed) {
		gs_error_append("%s: an earlier write failed", w->name);
		return GS_ERR_IO;
	}
	if (!has_pending(w))
		return GS_OK;
	rc = build_and_write(w, w->pending ? GS_CHUNK_RECORDS : GS_CHUNK_META, 0);
	if (rc == GS_OK)
		clear_pending(w);
	return rc;
}

gs_status gs_writer_close_lost(struct gs_writer *w, int64_t pid, uint64_t also_lost,
			       const char *why, uint64_t *lost)
{
	Gscope__Chunk msg = GSCOPE__CHUNK__INIT;
	Gscope__Dropped d, *dp = &d;
	Gscope__Warning wn, *wp = &wn;
	char text[512];
	uint64_t n;
	gs_status rc;

	if (!w)
		return GS_OK;
	n = w->total_records - w->written_records + also_lost;
	if (lost)
		*lost = n;
	/* Back to the last whole chunk: a half-written chunk goes. */
	if (w->fd < 0 || ftruncate(w->fd, (off_t)w->good_offset) != 0 ||
	    lseek(w->fd, (off_t)w->good_offset, SEEK_SET) < 0) {
		gs_error_append("%s: cannot cut the file back to its last whole chunk: %s", w->name,
				strerror(errno));
		w->failed = true;
		gs_writer_close(w);
		return GS_ERR_IO;
	}
	w->offset = w->good_offset;
	w->failed = false;
	snprintf(text, sizeof(text), "%llu records lost: %s", (unsigned long long)n,
		 why ? why : "the file could not be written");
	gscope__dropped__init(&d);
	gscope__warning__init(&wn);
	msg.string_base = w->string_base; /* the strings of whole chunks */
	d.pid = pid;
	d.count = n;
	wn.message = text;
	wn.count = n;
	if (n) {
		msg.n_dropped = 1;
		msg.dropped = &dp;
		msg.n_warnings = 1;
		msg.warnings = &wp;
	}
	rc = write_chunk(w, GS_CHUNK_RECORDS, &msg, 0);
	if (rc == GS_OK) {
		msg = (Gscope__Chunk)GSCOPE__CHUNK__INIT;
		msg.string_base = w->string_base;
		msg.total_records = w->written_records;
		rc = write_chunk(w, GS_CHUNK_END, &msg, 0);
	}
	if (rc == GS_OK && w->own_fd && fsync(w->fd) != 0 && errno != EINVAL) {
		gs_error_append("%s: fsync failed: %s", w->name, strerror(errno));
		rc = GS_ERR_IO;
	}
	{
		/* Failed on purpose: gs_writer_close writes nothing more, and
		 * the cause it adds for that is dropped. */
		int causes = gs_error_count();

		w->failed = true;
		gs_writer_close(w);
		gs_error_truncate(causes);
	}
	return rc;
}

gs_status gs_writer_close(struct gs_writer *w)
{
	gs_status rc = GS_OK;

	if (!w)
		return GS_OK;
	if (w->fd >= 0 && !w->failed) {
		rc = gs_writer_flush(w);
		if (rc == GS_OK)
			rc = build_and_write(w, GS_CHUNK_END, w->total_records);
		if (rc == GS_OK && w->own_fd && fsync(w->fd) != 0 && errno != EINVAL) {
			gs_error_append("%s: fsync failed: %s", w->name, strerror(errno));
			rc = GS_ERR_IO;
		}
	} else if (w->failed) {
		gs_error_append("%s: an earlier write failed", w->name);
		rc = GS_ERR_IO;
	}
	if (w->own_fd && w->fd >= 0 && close(w->fd) != 0 && rc == GS_OK) {
		gs_error_append("%s: close failed: %s", w->name, strerror(errno));
		rc = GS_ERR_IO;
	}
	clear_pending(w);
	gs_strtab_fini(&w->strings);
	gs_stream_map_fini(&w->streams);
	op_cols_free(&w->ops);
	api_cols_free(&w->api);
	range_cols_free(&w->ranges);
	free(w->dirty_streams.v);
	free(w->processes.v);
	free(w->devices.v);
	free(w->syncs.v);
	free(w->event_records.v);
	free(w->allocations.v);
	free(w->collectives.v);
	free(w->op_allocs.v);
	free(w->overheads.v);
	free(w->clock_pairs.v);
	free(w->dropped.v);
	free(w->warnings.v);
	free(w->raw);
	free(w->frame);
	free(w->name);
	free(w);
	return rc;
}
