/* SPDX-License-Identifier: MIT */
/* Record counts and time span of a trace (`gpuscope info`), and a loading
 * warning as one line; summary_out.c writes them. */
#include <gpuscope/summary.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static uint64_t gs_dur(int64_t start, int64_t end)
{
	return end > start ? (uint64_t)end - (uint64_t)start : 0;
}

static void gs_summary_count_ops(const struct gs_trace *t, struct gs_summary *s)
{
	const struct gs_op *ops;
	size_t n, i;

	ops = gs_trace_ops(t, &n);
	for (i = 0; i < n; i++) {
		const struct gs_op *op = &ops[i];

		if (op->kind < GS_OP_KIND_COUNT) {
			s->ops[op->kind]++;
			s->op_ns[op->kind] += gs_dur(op->start_ns, op->end_ns);
		}
		if (op->kind == GS_OP_MEMCPY)
			s->copy_bytes += op->bytes;
		else if (op->kind == GS_OP_MEMSET)
			s->memset_bytes += op->bytes;
		if (i == 0 || op->start_ns < s->first_ns)
			s->first_ns = op->start_ns;
		if (i == 0 || op->end_ns > s->last_ns)
			s->last_ns = op->end_ns;
	}
	s->op_total = n;
	s->span_ns = n ? s->last_ns - s->first_ns : 0;
}

/* Records by kind: `n` records of `size` bytes from `rec`, each with its
 * kind in the byte at `kind_off`; a kind of n_kinds or more is not counted. */
static void gs_summary_count_kinds(const void *rec, size_t n, size_t size, size_t kind_off,
				   uint64_t *by_kind, unsigned n_kinds)
{
	const unsigned char *p = rec;

	for (size_t i = 0; i < n; i++) {
		uint8_t kind = p[i * size + kind_off];

		if (kind < n_kinds)
			by_kind[kind]++;
	}
}

gs_status gs_summary_compute(const struct gs_trace *t, struct gs_summary *s)
{
	const struct gs_api_call *calls;
	const struct gs_sync *syncs;
	const struct gs_range *ranges;
	const struct gs_warning *warn;
	size_t n, i;

	if (!t || !s) {
		gs_error_append("gs_summary_compute: no trace or no summary");
		return GS_ERR_INVALID;
	}
	memset(s, 0, sizeof(*s));
	s->trace = t;

	gs_summary_count_ops(t, s);

	calls = gs_trace_api_calls(t, &n);
	s->api_calls = n;
	gs_summary_count_kinds(calls, n, sizeof(*calls), offsetof(struct gs_api_call, kind),
			       s->api_by_kind, GS_API_KIND_COUNT);

	syncs = gs_trace_syncs(t, &n);
	s->syncs = n;
	gs_summary_count_kinds(syncs, n, sizeof(*syncs), offsetof(struct gs_sync, kind),
			       s->syncs_by_kind, GS_SYNC_KIND_COUNT);

	ranges = gs_trace_ranges(t, &n);
	s->host_ranges = n;
	gs_summary_count_kinds(ranges, n, sizeof(*ranges), offsetof(struct gs_range, kind),
			       s->ranges_by_kind, GS_RANGE_KIND_COUNT);

	gs_trace_event_records(t, &n);
	s->event_records = n;
	gs_trace_allocations(t, &n);
	s->allocations = n;
	gs_trace_overheads(t, &n);
	s->overheads = n;
	gs_trace_collectives(t, &n);
	s->collectives = n;
	gs_trace_processes(t, &n);
	s->processes = n;
	gs_trace_devices(t, &n);
	s->devices = n;
	gs_trace_streams(t, &n);
	s->streams = n;
	gs_trace_threads(t, &n);
	s->threads = n;

	s->dropped = gs_trace_dropped(t);
	warn = gs_trace_warnings(t, &n);
	s->warnings = n;
	for (i = 0; i < n; i++)
		s->warning_total += warn[i].count;
	return GS_OK;
}

/* True when `msg` holds the decimal `n` as a whole number. */
static bool gs_mentions_number(const char *msg, uint64_t n)
{
	char num[24];
	const char *p = msg;
	size_t len;

	len = (size_t)snprintf(num, sizeof(num), "%llu", (unsigned long long)n);
	while ((p = strstr(p, num)) != NULL) {
		bool before = p > msg && p[-1] >= '0' && p[-1] <= '9';
		bool after = p[len] >= '0' && p[len] <= '9';

		if (!before && !after)
			return true;
		p++;
	}
	return false;
}

const char *gs_warning_format(const struct gs_warning *w, char *buf, size_t size)
{
	const char *msg = w && w->message ? w->message : "";

	if (!buf || !size)
		return "";
	if (w && w->count == UINT64_MAX) /* the count stopped there */
		snprintf(buf, size, "%s (at least %llu times)", msg, (unsigned long long)w->count);
	else if (w && w->count > 1 && !gs_mentions_number(msg, w->count))
		snprintf(buf, size, "%s (%llu times)", msg, (unsigned long long)w->count);
	else
		snprintf(buf, size, "%s", msg);
	return buf;
}
