/* SPDX-License-Identifier: MIT */
/* Replaying a trace into another sink, and appending one trace to another. */
#include "trace_priv.h"

#include <stdlib.h>

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
