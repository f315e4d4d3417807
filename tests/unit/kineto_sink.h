/* SPDX-License-Identifier: MIT */
/*
 * A recording struct gs_sink for the importer tests: keeps every record
 * and string so tests do not depend on gs_trace. Header-only (static
 * functions) so each test program gets its own copy.
 */
#ifndef GS_TEST_KINETO_SINK_H
#define GS_TEST_KINETO_SINK_H

#include <gpuscope/format.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rec_warning {
	char *msg;
	uint64_t count;
};

struct rec {
	struct gs_sink sink;
	bool keep_strings; /* false: intern hands out ids without storing */
	char **strs;
	size_t *lens;
	size_t nstrs, cstrs;
	struct gs_stream *streams;
	size_t nstreams, cstreams;
	struct gs_process *procs;
	size_t nprocs, cprocs;
	struct gs_device *devs;
	size_t ndevs, cdevs;
	struct gs_op *ops;
	size_t nops, cops;
	/* launches[i]: what came with ops[i] (all zero for NULL). */
	struct gs_launch_cfg *launches;
	size_t nlaunches, claunches;
	struct gs_api_call *apis;
	size_t napis, capis;
	struct gs_sync *syncs;
	size_t nsyncs, csyncs;
	struct gs_event_record *evrecs;
	size_t nevrecs, cevrecs;
	struct gs_range *ranges;
	size_t nranges, cranges;
	struct gs_overhead *overheads;
	size_t noverheads, coverheads;
	struct rec_warning *warns;
	size_t nwarns, cwarns;
	/* Fail the n-th op (1-based) with GS_ERR_NOMEM; 0: never. */
	size_t fail_op_at;
};

#define REC_OF(s) ((struct rec *)(void *)((char *)(s)-offsetof(struct rec, sink)))

static int rec_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	void *na;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 16;
	na = realloc(*arr, nc * elem);
	if (!na)
		return -1;
	*arr = na;
	*cap = nc;
	return 0;
}

#define REC_PUSH(r, arr, n, cap, val)                                                              \
	(rec_grow((void **)&(r)->arr, &(r)->cap, (r)->n, sizeof(*(r)->arr)) ?                      \
		 GS_ERR_NOMEM :                                                                    \
		 ((r)->arr[(r)->n++] = *(val), GS_OK))

static gs_status rec_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	struct rec *r = REC_OF(s);
	char *copy;

	if (!r->keep_strings) {
		*id = (uint32_t)r->nstrs++;
		return GS_OK;
	}
	for (size_t i = 0; i < r->nstrs; i++) {
		if (r->lens[i] == len && memcmp(r->strs[i], str, len) == 0) {
			*id = (uint32_t)i;
			return GS_OK;
		}
	}
	if (rec_grow((void **)&r->strs, &r->cstrs, r->nstrs, sizeof(*r->strs)))
		return GS_ERR_NOMEM;
	r->lens = realloc(r->lens, r->cstrs * sizeof(*r->lens));
	copy = malloc(len + 1);
	if (!r->lens || !copy) {
		free(copy);
		return GS_ERR_NOMEM;
	}
	memcpy(copy, str, len);
	copy[len] = '\0';
	r->strs[r->nstrs] = copy;
	r->lens[r->nstrs] = len;
	*id = (uint32_t)r->nstrs++;
	return GS_OK;
}

static gs_status rec_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *index)
{
	struct rec *r = REC_OF(s);

	for (size_t i = 0; i < r->nstreams; i++) {
		const struct gs_stream *o = &r->streams[i];

		if (o->pid == st->pid && o->device == st->device && o->context == st->context &&
		    o->stream_id == st->stream_id) {
			*index = (uint32_t)i;
			return GS_OK;
		}
	}
	*index = (uint32_t)r->nstreams;
	return REC_PUSH(r, streams, nstreams, cstreams, st);
}

static gs_status rec_process(struct gs_sink *s, const struct gs_process *p)
{
	return REC_PUSH(REC_OF(s), procs, nprocs, cprocs, p);
}

static gs_status rec_device(struct gs_sink *s, const struct gs_device *d)
{
	return REC_PUSH(REC_OF(s), devs, ndevs, cdevs, d);
}

static gs_status rec_op(struct gs_sink *s, const struct gs_op *op,
			const struct gs_launch_cfg *launch)
{
	static const struct gs_launch_cfg none;
	struct rec *r = REC_OF(s);
	gs_status rc;

	if (r->fail_op_at && r->nops + 1 == r->fail_op_at) {
		gs_error_append("test sink: no room for op");
		return GS_ERR_NOMEM;
	}
	if (op->stream >= r->nstreams) {
		gs_error_append("test sink: op on undeclared stream %u", op->stream);
		return GS_ERR_FORMAT;
	}
	rc = REC_PUSH(r, launches, nlaunches, claunches, launch ? launch : &none);
	return rc ? rc : REC_PUSH(r, ops, nops, cops, op);
}

/* The launch configuration recorded with op (one of r->ops). */
static inline const struct gs_launch_cfg *rec_launch(const struct rec *r, const struct gs_op *op)
{
	return &r->launches[op - r->ops];
}

static gs_status rec_api_call(struct gs_sink *s, const struct gs_api_call *c)
{
	return REC_PUSH(REC_OF(s), apis, napis, capis, c);
}

static gs_status rec_sync(struct gs_sink *s, const struct gs_sync *y)
{
	struct rec *r = REC_OF(s);

	if ((y->stream != GS_NO_INDEX && y->stream >= r->nstreams) ||
	    (y->wait_on_stream != GS_NO_INDEX && y->wait_on_stream >= r->nstreams)) {
		gs_error_append("test sink: sync on undeclared stream");
		return GS_ERR_FORMAT;
	}
	return REC_PUSH(r, syncs, nsyncs, csyncs, y);
}

static gs_status rec_event_record(struct gs_sink *s, const struct gs_event_record *e)
{
	return REC_PUSH(REC_OF(s), evrecs, nevrecs, cevrecs, e);
}

static gs_status rec_range(struct gs_sink *s, const struct gs_range *rg)
{
	return REC_PUSH(REC_OF(s), ranges, nranges, cranges, rg);
}

static gs_status rec_overhead(struct gs_sink *s, const struct gs_overhead *o)
{
	return REC_PUSH(REC_OF(s), overheads, noverheads, coverheads, o);
}

static gs_status rec_warning(struct gs_sink *s, const char *msg, uint64_t count, unsigned kind)
{
	struct rec *r = REC_OF(s);
	struct rec_warning w = {strdup(msg), count};

	(void)kind;

	if (!w.msg)
		return GS_ERR_NOMEM;
	if (REC_PUSH(r, warns, nwarns, cwarns, &w)) {
		free(w.msg);
		return GS_ERR_NOMEM;
	}
	return GS_OK;
}

static void rec_init(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	r->keep_strings = true;
	r->sink.intern = rec_intern;
	r->sink.stream = rec_stream;
	r->sink.process = rec_process;
	r->sink.device = rec_device;
	r->sink.op = rec_op;
	r->sink.api_call = rec_api_call;
	r->sink.sync = rec_sync;
	r->sink.event_record = rec_event_record;
	r->sink.range = rec_range;
	r->sink.overhead = rec_overhead;
	r->sink.warning = rec_warning;
}

static void rec_free(struct rec *r)
{
	if (r->keep_strings)
		for (size_t i = 0; i < r->nstrs; i++)
			free(r->strs[i]);
	for (size_t i = 0; i < r->nwarns; i++)
		free(r->warns[i].msg);
	free(r->strs);
	free(r->lens);
	free(r->streams);
	free(r->procs);
	free(r->devs);
	free(r->ops);
	free(r->launches);
	free(r->apis);
	free(r->syncs);
	free(r->evrecs);
	free(r->ranges);
	free(r->overheads);
	free(r->warns);
	memset(r, 0, sizeof(*r));
}

static inline const char *rec_str(const struct rec *r, uint32_t id)
{
	if (id == GS_NO_STRING)
		return "";
	return id < r->nstrs && r->keep_strings ? r->strs[id] : "?";
}

#endif
