/* SPDX-License-Identifier: MIT */
/*
 * A forwarding sink that counts the records passing through it and calls a
 * progress callback every GS_PROGRESS_EVERY of them: loading reports its
 * progress whatever the format, without the readers knowing. A record
 * kind the next sink ignores (a NULL callback) stays ignored. Costs one
 * indirect call per record.
 */
#include "progress_sink.h"

#include <stddef.h>

#define PS(s)                                                                                      \
	((struct gs_progress_sink *)(void *)((char *)(s)-offsetof(struct gs_progress_sink, sink)))

static void tick(struct gs_progress_sink *ps)
{
	if (++ps->records >= ps->next_call) {
		ps->next_call = ps->records + GS_PROGRESS_EVERY;
		ps->progress(ps->user, ps->records);
	}
}

#define FORWARD(field, type)                                                                       \
	static gs_status fwd_##field(struct gs_sink *s, const type *x)                             \
	{                                                                                          \
		struct gs_progress_sink *ps = PS(s);                                               \
                                                                                                   \
		tick(ps);                                                                          \
		return ps->next->field(ps->next, x);                                               \
	}

FORWARD(process, struct gs_process)
FORWARD(device, struct gs_device)

static gs_status fwd_op(struct gs_sink *s, const struct gs_op *op, const struct gs_launch_cfg *lc)
{
	struct gs_progress_sink *ps = PS(s);

	tick(ps);
	return ps->next->op(ps->next, op, lc);
}

FORWARD(api_call, struct gs_api_call)
FORWARD(sync, struct gs_sync)
FORWARD(event_record, struct gs_event_record)
FORWARD(op_alloc, struct gs_op_alloc)
FORWARD(range, struct gs_range)
FORWARD(overhead, struct gs_overhead)
FORWARD(clock_pair, struct gs_clock_pair)

static gs_status fwd_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	struct gs_progress_sink *ps = PS(s);

	return ps->next->intern(ps->next, str, len, id);
}

static gs_status fwd_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *index)
{
	struct gs_progress_sink *ps = PS(s);

	return ps->next->stream(ps->next, st, index);
}

static gs_status fwd_allocation(struct gs_sink *s, const struct gs_allocation *a, uint32_t *index)
{
	struct gs_progress_sink *ps = PS(s);

	tick(ps);
	return ps->next->allocation(ps->next, a, index);
}

static gs_status fwd_collective(struct gs_sink *s, const struct gs_collective *c, uint32_t *index)
{
	struct gs_progress_sink *ps = PS(s);

	return ps->next->collective(ps->next, c, index);
}

static gs_status fwd_dropped(struct gs_sink *s, int64_t pid, uint64_t count)
{
	struct gs_progress_sink *ps = PS(s);

	return ps->next->dropped(ps->next, pid, count);
}

static gs_status fwd_warning(struct gs_sink *s, const char *msg, uint64_t count, unsigned kind)
{
	struct gs_progress_sink *ps = PS(s);

	return ps->next->warning(ps->next, msg, count, kind);
}

void gs_progress_sink_init(struct gs_progress_sink *ps, struct gs_sink *next,
			   void (*progress)(void *user, uint64_t records), void *user)
{
	/* What `next` ignores (a NULL callback) stays ignored. */
#define SET(field) ps->sink.field = next->field ? fwd_##field : NULL
	SET(intern);
	SET(stream);
	SET(process);
	SET(device);
	SET(op);
	SET(collective);
	SET(api_call);
	SET(sync);
	SET(event_record);
	SET(allocation);
	SET(op_alloc);
	SET(range);
	SET(overhead);
	SET(clock_pair);
	SET(dropped);
	SET(warning);
#undef SET
	ps->next = next;
	ps->progress = progress;
	ps->user = user;
	ps->records = 0;
	ps->next_call = GS_PROGRESS_EVERY;
}
