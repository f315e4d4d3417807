/* SPDX-License-Identifier: MIT */
/* See shift_sink.h. */
#include "shift_sink.h"

#include <string.h>
#include <strings.h>

struct shift_sink {
	struct gs_sink sink;
	struct gs_sink *next;
	const struct gs_trace *src;
	const struct shift_opts *o;
	uint64_t comm_kernels;
};

static struct shift_sink *ss(struct gs_sink *s)
{
	return (struct shift_sink *)(void *)s;
}

static gs_status s_process(struct gs_sink *s, const struct gs_process *p)
{
	struct shift_sink *h = ss(s);
	struct gs_process q = *p;

	if (h->o->set_clock) {
		q.clock = h->o->clock;
		q.wall_offset_ns = h->o->offset_ns;
	}
	if (h->o->set_rank) {
		q.has_rank = true;
		q.rank = h->o->rank;
	}
	if (h->o->host && !*h->o->host)
		q.host_name = GS_NO_STRING;
	else if (h->o->host &&
		 h->next->intern(h->next, h->o->host, strlen(h->o->host), &q.host_name))
		return GS_ERR_NOMEM;
	if (q.start_ns)
		q.start_ns += h->o->shift_ns;
	return h->next->process(h->next, &q);
}

/* A case-insensitive "nccl" in the op's name (the replay keeps string ids). */
static bool is_comm(const struct shift_sink *h, const struct gs_op *op)
{
	const char *n = gs_trace_string(h->src, op->name);

	for (; n && *n; n++)
		if (!strncasecmp(n, "nccl", 4))
			return true;
	return false;
}

static gs_status s_op(struct gs_sink *s, const struct gs_op *x, const struct gs_launch_cfg *lc)
{
	struct shift_sink *h = ss(s);
	struct gs_op y = *x;

	y.start_ns += h->o->shift_ns;
	y.end_ns += h->o->shift_ns;
	if (h->o->end_jitter && is_comm(h, x)) {
		y.end_ns += h->o->end_jitter(h->o->ctx, h->comm_kernels++);
		if (y.end_ns <= y.start_ns)
			y.end_ns = y.start_ns + 1;
	}
	return h->next->op(h->next, &y, lc);
}

#define SHIFTED(type, cb, ...)                                                                     \
	static gs_status s_##cb(struct gs_sink *s, const type *x)                                  \
	{                                                                                          \
		struct shift_sink *h = ss(s);                                                      \
		type y = *x;                                                                       \
		__VA_ARGS__;                                                                       \
		return h->next->cb(h->next, &y);                                                   \
	}

SHIFTED(struct gs_api_call, api_call, y.start_ns += h->o->shift_ns, y.end_ns += h->o->shift_ns)
SHIFTED(struct gs_sync, sync, y.start_ns += h->o->shift_ns, y.end_ns += h->o->shift_ns)
SHIFTED(struct gs_event_record, event_record, y.time_ns += y.time_ns ? h->o->shift_ns : 0)
SHIFTED(struct gs_range, range, y.start_ns += h->o->shift_ns, y.end_ns += h->o->shift_ns)

static gs_status s_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	return ss(s)->next->intern(ss(s)->next, str, len, id);
}

static gs_status s_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *i)
{
	return ss(s)->next->stream(ss(s)->next, st, i);
}

static gs_status s_device(struct gs_sink *s, const struct gs_device *d)
{
	return ss(s)->next->device(ss(s)->next, d);
}

static gs_status s_collective(struct gs_sink *s, const struct gs_collective *c, uint32_t *i)
{
	return ss(s)->next->collective(ss(s)->next, c, i);
}

static gs_status s_warning(struct gs_sink *s, const char *m, uint64_t n, unsigned kind)
{
	return ss(s)->next->warning(ss(s)->next, m, n, kind);
}

struct gs_trace *shift_copy(const struct gs_trace *src, const struct shift_opts *o)
{
	struct gs_trace *t = NULL;
	struct shift_sink h = {.src = src, .o = o};

	if (gs_trace_create(&t) != GS_OK)
		return NULL;
	h.next = gs_trace_borrow_sink(t);
	h.sink = (struct gs_sink){.intern = s_intern,
				  .stream = s_stream,
				  .process = s_process,
				  .device = s_device,
				  .op = s_op,
				  .collective = s_collective,
				  .api_call = s_api_call,
				  .sync = s_sync,
				  .event_record = s_event_record,
				  .range = s_range,
				  .warning = s_warning};
	if (gs_trace_replay(src, &h.sink) != GS_OK || gs_trace_finish(t) != GS_OK) {
		gs_trace_destroy(t);
		return NULL;
	}
	return t;
}
