/* SPDX-License-Identifier: MIT */
/*
 * gpuscope record sink (target gs_format): the interface every reader emits
 * the records of the trace model into, and every writer of them implements.
 */
#ifndef GPUSCOPE_TRACE_SINK_H
#define GPUSCOPE_TRACE_SINK_H

#include <gpuscope/error.h>
#include <gpuscope/trace_model.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A reader (the .gscope reader, the Kineto importer, ...) feeds records to a
 * sink. The sink owns the string table and the stream table: the reader
 * interns each string and declares each stream first and uses the ids the
 * sink returns. Every callback returns GS_OK or an error (with a cause
 * appended) that stops the reader. A NULL callback ignores that record kind.
 * Records are passed by pointer and copied by the sink.
 */
struct gs_sink {
	gs_status (*intern)(struct gs_sink *s, const char *str, size_t len, uint32_t *id);
	gs_status (*stream)(struct gs_sink *s, const struct gs_stream *st, uint32_t *index);
	gs_status (*process)(struct gs_sink *s, const struct gs_process *p);
	gs_status (*device)(struct gs_sink *s, const struct gs_device *d);
	/* An op and how it was launched: a kernel's configuration, the graph
	 * of any op launched from one (NULL: none known, read as all zero).
	 * op->launch is ignored. */
	gs_status (*op)(struct gs_sink *s, const struct gs_op *op,
			const struct gs_launch_cfg *launch);
	/* A collective description; ops refer to it by 1 + *index. May be
	 * NULL in a sink that drops them (ops then keep 0). */
	gs_status (*collective)(struct gs_sink *s, const struct gs_collective *c, uint32_t *index);
	gs_status (*api_call)(struct gs_sink *s, const struct gs_api_call *c);
	gs_status (*sync)(struct gs_sink *s, const struct gs_sync *y);
	gs_status (*event_record)(struct gs_sink *s, const struct gs_event_record *e);
	gs_status (*allocation)(struct gs_sink *s, const struct gs_allocation *a, uint32_t *index);
	gs_status (*op_alloc)(struct gs_sink *s, const struct gs_op_alloc *l);
	gs_status (*range)(struct gs_sink *s, const struct gs_range *r);
	gs_status (*overhead)(struct gs_sink *s, const struct gs_overhead *o);
	gs_status (*clock_pair)(struct gs_sink *s, const struct gs_clock_pair *c);
	/* Records the source dropped itself (collector buffer overflow). */
	gs_status (*dropped)(struct gs_sink *s, int64_t pid, uint64_t count);
	/* A warning about the input; `count` occurrences of the same kind;
	 * `kind` (enum gs_warning_kind) says what it is about, so that no one
	 * needs to read the message to know. */
	gs_status (*warning)(struct gs_sink *s, const char *msg, uint64_t count, unsigned kind);
};

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_TRACE_SINK_H */
