/* SPDX-License-Identifier: MIT */
/*
 * Kineto importer (kineto.c): the correlation rings that join ops and syncs
 * to their API call, the ids and pids of gpuscope's job export, and the
 * emitting of records (streams, processes, ops held until their call).
 */
#include "kineto_priv.h"

#include <gpuscope/search.h>
#include <gpuscope/sort.h>
#include <gpuscope/text.h>

#include <cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Correlation rings                                                        */
/* ------------------------------------------------------------------------ */

gs_status kin_ring_init(struct kin_ring *r, uint32_t cap)
{
	r->cap = cap;
	r->bits = 0;
	while ((1u << r->bits) < cap)
		r->bits++;
	r->head = r->count = 0;
	r->bucket = malloc(cap * sizeof(*r->bucket));
	r->next = malloc(cap * sizeof(*r->next));
	r->key = malloc(cap * sizeof(*r->key));
	if (!r->bucket || !r->next || !r->key)
		return gs_nomem();
	for (uint32_t i = 0; i < cap; i++)
		r->bucket[i] = KIN_NONE;
	return GS_OK;
}

void kin_ring_fini(struct kin_ring *r)
{
	free(r->bucket);
	free(r->next);
	free(r->key);
}

static uint32_t ring_hash(const struct kin_ring *r, uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - r->bits));
}

static bool ring_full(const struct kin_ring *r)
{
	return r->count == r->cap;
}

/* Remove the oldest slot and return it. The ring must not be empty. */
static uint32_t ring_pop(struct kin_ring *r)
{
	uint32_t s = r->head;
	uint32_t *link = &r->bucket[ring_hash(r, r->key[s])];

	while (*link != s)
		link = &r->next[*link];
	*link = r->next[s];
	r->head = (r->head + 1) & (r->cap - 1);
	r->count--;
	return s;
}

/* Add a slot for `key`. The ring must not be full. */
static uint32_t ring_push(struct kin_ring *r, uint64_t key)
{
	uint32_t s = (r->head + r->count) & (r->cap - 1);
	uint32_t h = ring_hash(r, key);

	r->key[s] = key;
	r->next[s] = r->bucket[h];
	r->bucket[h] = s;
	r->count++;
	return s;
}

/* First slot with `key` (KIN_NONE if none); ring_next continues. */
static uint32_t ring_find(const struct kin_ring *r, uint64_t key)
{
	uint32_t s = r->bucket[ring_hash(r, key)];

	while (s != KIN_NONE && r->key[s] != key)
		s = r->next[s];
	return s;
}

static uint32_t ring_next(const struct kin_ring *r, uint32_t s)
{
	uint64_t key = r->key[s];

	s = r->next[s];
	while (s != KIN_NONE && r->key[s] != key)
		s = r->next[s];
	return s;
}

/* ------------------------------------------------------------------------ */
/* gpuscope's job export                                                    */
/* ------------------------------------------------------------------------ */

/* The rank whose pids hold `pid` (KIN_NONE: none, or not a job export). */
uint32_t kin_job_rank(const struct kin *k, int64_t pid)
{
	/* the ranks with pid_base <= pid; the last of them may hold it */
	uint32_t lo = (uint32_t)gs_upper_bound_i64_at(k->job, k->n_job, sizeof(*k->job),
						      offsetof(struct kin_jrank, pid_base), pid);

	if (!lo || pid - k->job[lo - 1].pid_base >= k->job_stride)
		return KIN_NONE;
	return lo - 1;
}

/* An id of the event being handled as its source had it: less its rank's
 * id_offset (0 stays 0; an id the offset cannot be taken from is kept). */
uint64_t kin_id(const struct kin *k, uint64_t v)
{
	uint64_t off = k->ev_rank != KIN_NONE ? k->job[k->ev_rank].id_offset : 0;

	return v > off ? v - off : v;
}

/* Whether `pid` is a rank's pid read back. */
bool kin_job_pid(const struct kin *k, int64_t pid)
{
	size_t lo = gs_lower_bound_i64(k->job_pids, k->n_job, pid);

	return lo < k->n_job && k->job_pids[lo] == pid;
}

/* ------------------------------------------------------------------------ */
/* Emitting records                                                         */
/* ------------------------------------------------------------------------ */

gs_status kin_count(struct kin *k)
{
	if (++k->records > k->lim.max_records) {
		gs_error_append("%s: byte %llu: more than max_records (%llu) records", k->sc.name,
				(unsigned long long)k->ev_off,
				(unsigned long long)k->lim.max_records);
		return GS_ERR_LIMIT;
	}
	return GS_OK;
}

/* Context for an error a sink callback returned. */
gs_status kin_sink_failed(struct kin *k, gs_status rc)
{
	gs_error_append("%s: byte %llu", k->sc.name, (unsigned long long)k->ev_off);
	return rc;
}

/* kin_emit_op: the same for an op held in a kin_pend, with its launch
 * configuration. */
static gs_status kin_emit_op(struct kin *k, const struct kin_pend *e)
{
	gs_status rc = kin_count(k);

	if (!k->has_first_op || e->u.op.start_ns < k->first_op_ns) {
		k->has_first_op = true;
		k->first_op_ns = e->u.op.start_ns;
	}
	if (!rc && k->sink->op && (rc = k->sink->op(k->sink, &e->u.op, &e->launch)))
		rc = kin_sink_failed(k, rc);
	return rc;
}

KIN_DEFINE_EMIT(sync, struct gs_sync)

gs_status kin_intern(struct kin *k, const char *s, size_t n, uint32_t *id)
{
	gs_status rc;

	*id = GS_NO_STRING;
	if (!k->sink->intern)
		return GS_OK;
	rc = k->sink->intern(k->sink, s, n, id);
	if (rc)
		return kin_sink_failed(k, rc);
	return GS_OK;
}

gs_status kin_intern_str(struct kin *k, const char *s, uint32_t *id)
{
	return kin_intern(k, s, strlen(s), id);
}

bool kin_valid_stream_id(int64_t v)
{
	/* CUPTI writes "no stream" as -1 or as (uint32_t)-1. */
	return v >= 0 && v != (int64_t)UINT32_MAX;
}

uint32_t kin_stream_hash(int64_t pid, uint32_t device, uint64_t stream)
{
	return (uint32_t)(((stream * 31 + device) * 31 + (uint64_t)pid) * 0x9E3779B97F4A7C15ull >>
			  32);
}

/* The pid of the GPU event being handled: its rank's in gpuscope's job
 * export, else 0 (a Kineto file does not say which process a GPU event is
 * of). */
int64_t kin_gpu_pid(const struct kin *k)
{
	return k->ev_rank != KIN_NONE ? k->job[k->ev_rank].pid : 0;
}

/* Index of stream (kin_gpu_pid, device, context, stream), declaring it if
 * new. */
gs_status kin_stream(struct kin *k, uint32_t device, uint32_t context, uint64_t stream,
		     uint32_t *index)
{
	struct kin_stream_ent *e = k->last_stream;
	int64_t pid = kin_gpu_pid(k);
	uint32_t mask, h;

	if (e && e->pid == pid && e->device == device && e->context == context &&
	    e->stream == stream) {
		*index = e->index;
		return GS_OK;
	}
	if (!k->streams || (k->nstreams + 1) * 2 > k->stream_slots) {
		uint32_t nslots = k->stream_slots ? k->stream_slots * 2 : 64;
		struct kin_stream_ent *ns = calloc(nslots, sizeof(*ns));

		if (!ns)
			return gs_nomem();
		for (uint32_t i = 0; k->streams && i < k->stream_slots; i++) {
			struct kin_stream_ent *o = &k->streams[i];

			if (!o->used)
				continue;
			h = kin_stream_hash(o->pid, o->device, o->stream) & (nslots - 1);
			while (ns[h].used)
				h = (h + 1) & (nslots - 1);
			ns[h] = *o;
		}
		free(k->streams);
		k->streams = ns;
		k->stream_slots = nslots;
		k->last_stream = NULL;
	}
	mask = k->stream_slots - 1;
	h = kin_stream_hash(pid, device, stream) & mask;
	for (;; h = (h + 1) & mask) {
		e = &k->streams[h];
		if (!e->used)
			break;
		if (e->pid == pid && e->device == device && e->context == context &&
		    e->stream == stream) {
			k->last_stream = e;
			*index = e->index;
			return GS_OK;
		}
	}
	if (k->nstreams >= k->lim.max_streams) {
		gs_error_append("%s: byte %llu: more than max_streams (%u) streams", k->sc.name,
				(unsigned long long)k->ev_off, k->lim.max_streams);
		return GS_ERR_LIMIT;
	}
	{
		struct gs_stream st = {
			.pid = pid,
			.device = device,
			.context = context,
			.stream_id = stream,
			.kind = GS_STREAM_UNKNOWN,
			.priority = 0,
		};
		uint32_t idx = k->nstreams;
		gs_status rc;

		if (k->sink->stream) {
			rc = k->sink->stream(k->sink, &st, &idx);
			if (rc)
				return kin_sink_failed(k, rc);
		}
		e->used = true;
		e->pid = pid;
		e->device = device;
		e->context = context;
		e->stream = stream;
		e->index = idx;
		k->nstreams++;
		k->last_stream = e;
		*index = idx;
	}
	return GS_OK;
}

/* The host process `pid` (NULL when the table is full). */
struct kin_proc *kin_proc(struct kin *k, int64_t pid)
{
	uint32_t h, mask = KIN_PROC_SLOTS - 1;

	if (k->last_proc && k->last_proc->pid == pid)
		return k->last_proc;
	h = (uint32_t)(((uint64_t)pid * 0x9E3779B97F4A7C15ull) >> 51) & mask;
	for (;; h = (h + 1) & mask) {
		struct kin_proc *p = &k->procs[h];

		if (p->used && p->pid == pid) {
			k->last_proc = p;
			return p;
		}
		if (!p->used) {
			if (k->nprocs >= KIN_PROC_MAX) {
				kin_warn(k, KW_PROCESSES);
				return NULL;
			}
			p->used = true;
			p->pid = pid;
			p->name = GS_NO_STRING;
			k->nprocs++;
			k->last_proc = p;
			return p;
		}
	}
}

void kin_proc_flag(struct kin *k, int64_t pid, uint8_t flag)
{
	struct kin_proc *p = kin_proc(k, pid);

	if (p)
		p->flags |= flag;
}

/* Ops and syncs waiting for their API call: emit the oldest. */
gs_status kin_pend_pop(struct kin *k)
{
	uint32_t s = ring_pop(&k->pend);
	const struct kin_pend *e = &k->pend_items[s];

	if (e->type == KP_OP)
		return kin_emit_op(k, e);
	return kin_emit_sync(k, &e->u.sync);
}

static void kin_apply_api_op(struct gs_op *op, uint8_t flags)
{
	if (flags & KA_GRAPH)
		op->flags |= GS_OPF_GRAPH;
	if ((flags & KA_ASYNC) && op->kind != GS_OP_KERNEL)
		op->flags |= GS_OPF_ASYNC;
}

/* An op or sync: completed from a call seen before, or held back. */
gs_status kin_submit(struct kin *k, const struct kin_pend *item, uint64_t corr)
{
	struct kin_pend e = *item;
	uint32_t s;

	if (corr) {
		s = ring_find(&k->recent, corr);
		if (s != KIN_NONE) {
			const struct kin_api *a = &k->recent_items[s];

			if (e.type == KP_OP) {
				kin_apply_api_op(&e.u.op, a->flags);
				return kin_emit_op(k, &e);
			}
			e.u.sync.pid = a->pid;
			e.u.sync.tid = a->tid;
			return kin_emit_sync(k, &e.u.sync);
		}
	} else {
		if (e.type == KP_OP)
			return kin_emit_op(k, &e);
		return kin_emit_sync(k, &e.u.sync);
	}
	if (ring_full(&k->pend)) {
		gs_status rc = kin_pend_pop(k);

		if (rc)
			return rc;
	}
	s = ring_push(&k->pend, corr);
	k->pend_items[s] = e;
	return GS_OK;
}

/* An API call: complete what waits for it, and remember it. */
gs_status kin_api_seen(struct kin *k, uint64_t corr, const struct kin_api *a)
{
	uint32_t s;

	if (!corr)
		return GS_OK;
	for (s = ring_find(&k->pend, corr); s != KIN_NONE; s = ring_next(&k->pend, s)) {
		struct kin_pend *e = &k->pend_items[s];

		if (e->type == KP_OP) {
			kin_apply_api_op(&e->u.op, a->flags);
		} else {
			e->u.sync.pid = a->pid;
			e->u.sync.tid = a->tid;
		}
	}
	if (ring_full(&k->recent))
		ring_pop(&k->recent);
	s = ring_push(&k->recent, corr);
	k->recent_items[s] = *a;
	return GS_OK;
}

/* start/end of a complete event, or false (counted) when it must go. */
bool kin_times(struct kin *k, const struct kin_span *ts, const struct kin_span *dur, int64_t *start,
	       int64_t *end)
{
	int64_t s, d;
	enum kin_time r;

	if (ts->n == 0 || dur->n == 0) {
		kin_warn(k, KW_NO_TIME);
		return false;
	}
	r = kin_us_text_to_ns(ts->p, ts->n, &s);
	if (r == KT_OK)
		r = kin_us_text_to_ns(dur->p, dur->n, &d);
	if (r != KT_OK) {
		kin_warn(k, r == KT_RANGE ? KW_TIME_RANGE : KW_NOT_NUMBER);
		return false;
	}
	if (d < 0) {
		kin_warn(k, KW_NEG_DUR);
		return false;
	}
	if (d > GS_MAX_DURATION_NS) {
		kin_warn(k, KW_HUGE_DUR);
		return false;
	}
	if (s > INT64_MAX - d) {
		kin_warn(k, KW_TIME_RANGE);
		return false;
	}
	*start = s;
	*end = s + d;
	return true;
}
