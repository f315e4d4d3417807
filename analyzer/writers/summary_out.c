/* SPDX-License-Identifier: MIT */
/* `gpuscope info`'s text and JSON (the counts: summary.c). */
#include <gpuscope/names.h>
#include <gpuscope/summary.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <string.h>

#include <gpuscope/json.h>
#include <gpuscope/outbuf.h>

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* Text                                                                      */
/* ------------------------------------------------------------------------ */

#define KEY "%-16s "

static void gs_text_u64(struct gs_outbuf *o, const char *key, uint64_t v)
{
	gs_outbuf_printf(o, KEY "%llu\n", key, (unsigned long long)v);
}

/* "3 (kernel 1, memcpy 2)" from a count array and a name function. */
static void gs_text_by_kind(struct gs_outbuf *o, const char *key, uint64_t total,
			    const uint64_t *counts, unsigned n, const char *(*name)(unsigned))
{
	unsigned k;

	gs_outbuf_printf(o, KEY "%llu (", key, (unsigned long long)total);
	for (k = 0; k < n; k++)
		gs_outbuf_printf(o, "%s%s %llu", k ? ", " : "", name(k),
				 (unsigned long long)counts[k]);
	gs_outbuf_puts(o, ")\n");
}

/* Bytes with one decimal in GiB/MiB/KiB, computed in integers. */
static void gs_text_bytes(struct gs_outbuf *o, uint64_t b)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
	int u = -1;
	uint64_t div = 1;

	while (u + 1 < (int)COUNT_OF(unit) && b >= div * 1024) {
		div *= 1024;
		u++;
	}
	if (u < 0) {
		gs_outbuf_printf(o, "%llu B", (unsigned long long)b);
		return;
	}
	gs_outbuf_printf(o, "%llu.%llu %s", (unsigned long long)(b / div),
			 (unsigned long long)((b % div) * 10 / div), unit[u]);
}

static void gs_text_devices(struct gs_outbuf *o, const struct gs_trace *t)
{
	const struct gs_device *dev;
	size_t n, i;

	dev = gs_trace_devices(t, &n);
	for (i = 0; i < n; i++) {
		const char *name = gs_trace_string(t, dev[i].name);

		gs_outbuf_printf(o, "  device %u:      ", dev[i].id);
		if (*name)
			gs_outbuf_text(o, name);
		else
			gs_outbuf_puts(o, "(unnamed)");
		/* A property the trace does not give is 0: "unknown", not "0 SMs". */
		if (!dev[i].cc_major && !dev[i].cc_minor && !dev[i].sm_count &&
		    !dev[i].memory_bytes && !dev[i].copy_engines) {
			gs_outbuf_puts(o, " (properties unknown)\n");
			continue;
		}
		if (dev[i].cc_major || dev[i].cc_minor)
			gs_outbuf_printf(o, " (cc %u.%u, ", dev[i].cc_major, dev[i].cc_minor);
		else
			gs_outbuf_puts(o, " (cc unknown, ");
		if (dev[i].sm_count)
			gs_outbuf_printf(o, "%u SMs, ", dev[i].sm_count);
		else
			gs_outbuf_puts(o, "SMs unknown, ");
		if (dev[i].memory_bytes)
			gs_text_bytes(o, dev[i].memory_bytes);
		else
			gs_outbuf_puts(o, "memory unknown");
		if (dev[i].copy_engines)
			gs_outbuf_printf(o, ", %u copy engines)\n", dev[i].copy_engines);
		else
			gs_outbuf_puts(o, ", copy engines unknown)\n");
	}
}

/* The processes whose place in a distributed job the trace says. */
static void gs_text_ranks(struct gs_outbuf *o, const struct gs_trace *t)
{
	const struct gs_process *p;
	size_t n, i;

	p = gs_trace_processes(t, &n);
	for (i = 0; i < n; i++) {
		char label[40];

		if (!p[i].has_rank && !p[i].clock)
			continue;
		snprintf(label, sizeof(label), "  process %lld:", (long long)p[i].pid);
		gs_outbuf_printf(o, KEY, label);
		if (p[i].has_rank) {
			gs_outbuf_printf(o, "rank %u", p[i].rank);
			if (p[i].world_size)
				gs_outbuf_printf(o, " of %u", p[i].world_size);
			if (p[i].has_backend) {
				gs_outbuf_puts(o, " (");
				gs_outbuf_text(o, gs_trace_string(t, p[i].backend));
				gs_outbuf_putc(o, ')');
			}
		}
		if (p[i].clock)
			gs_outbuf_printf(o, "%sclock: %s%s", p[i].has_rank ? "; " : "",
					 gs_clock_source_text(p[i].clock),
					 p[i].wall_offset_ns ? " + offset" : "");
		gs_outbuf_putc(o, '\n');
	}
}

static void gs_text_op_time(struct gs_outbuf *o, const struct gs_summary *s)
{
	unsigned k;

	gs_outbuf_printf(o, KEY, "op time:");
	for (k = 0; k < GS_OP_KIND_COUNT; k++) {
		gs_outbuf_printf(o, "%s%s ", k ? ", " : "", gs_op_kind_name(k));
		gs_outbuf_duration(o, (int64_t)s->op_ns[k]);
	}
	gs_outbuf_puts(o, " (sums of durations)\n");
	gs_outbuf_printf(o, KEY, "bytes copied:");
	gs_text_bytes(o, s->copy_bytes);
	gs_outbuf_printf(o, " (%llu bytes), memset ", (unsigned long long)s->copy_bytes);
	gs_text_bytes(o, s->memset_bytes);
	gs_outbuf_printf(o, " (%llu bytes)\n", (unsigned long long)s->memset_bytes);
}

static void gs_text_warnings(struct gs_outbuf *o, const struct gs_summary *s)
{
	const struct gs_warning *w;
	char line[GS_ERROR_MSG_MAX + 64];
	size_t n, i;

	gs_text_u64(o, "warnings:", s->warnings);
	w = gs_trace_warnings(s->trace, &n);
	for (i = 0; i < n; i++) {
		gs_outbuf_puts(o, "  ");
		gs_outbuf_text(o, gs_warning_format(&w[i], line, sizeof(line)));
		gs_outbuf_putc(o, '\n');
	}
}

gs_status gs_summary_write_text(FILE *f, const struct gs_summary *s)
{
	struct gs_outbuf o;

	if (!f || !s || !s->trace) {
		gs_error_append("gs_summary_write_text: no output or no computed summary");
		return GS_ERR_INVALID;
	}
	gs_outbuf_init(&o, f);
	if (s->file) {
		gs_outbuf_printf(&o, KEY, "file:");
		gs_outbuf_text(&o, s->file);
		gs_outbuf_putc(&o, '\n');
	}
	if (s->format)
		gs_outbuf_printf(&o, KEY "%s\n", "format:", s->format);
	gs_text_u64(&o, "processes:", s->processes);
	gs_text_ranks(&o, s->trace);
	gs_text_u64(&o, "devices:", s->devices);
	gs_text_devices(&o, s->trace);
	gs_text_u64(&o, "streams:", s->streams);
	gs_text_u64(&o, "threads:", s->threads);
	gs_text_by_kind(&o, "ops:", s->op_total, s->ops, GS_OP_KIND_COUNT, gs_op_kind_name);
	gs_text_op_time(&o, s);
	gs_text_by_kind(&o, "api calls:", s->api_calls, s->api_by_kind, GS_API_KIND_COUNT,
			gs_api_kind_name);
	gs_text_by_kind(&o, "syncs:", s->syncs, s->syncs_by_kind, GS_SYNC_KIND_COUNT,
			gs_sync_kind_name);
	gs_text_u64(&o, "event records:", s->event_records);
	gs_text_by_kind(&o, "host ranges:", s->host_ranges, s->ranges_by_kind, GS_RANGE_KIND_COUNT,
			gs_range_kind_name);
	gs_text_u64(&o, "allocations:", s->allocations);
	gs_text_u64(&o, "collectives:", s->collectives);
	gs_text_u64(&o, "overheads:", s->overheads);
	gs_outbuf_printf(&o, KEY, "span:");
	gs_outbuf_duration(&o, s->span_ns);
	gs_outbuf_printf(&o, " (%lld ns, first op start to last op end)\n", (long long)s->span_ns);
	if (s->op_total) {
		gs_outbuf_printf(&o, KEY "%lld\n", "first op start:", (long long)s->first_ns);
		gs_outbuf_printf(&o, KEY "%lld\n", "last op end:", (long long)s->last_ns);
	}
	if (s->dropped == UINT64_MAX) /* the count stopped there */
		gs_outbuf_printf(&o, KEY "at least %llu\n",
				 "dropped:", (unsigned long long)s->dropped);
	else
		gs_text_u64(&o, "dropped:", s->dropped);
	gs_text_warnings(&o, s);
	return gs_outbuf_finish(&o);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */
/* ------------------------------------------------------------------------ */

static void json_by_kind(struct gs_json *w, const char *key, const uint64_t *counts, unsigned n,
			 const char *(*name)(unsigned))
{
	gs_json_row(w, key);
	for (unsigned k = 0; k < n; k++)
		gs_json_u64(w, name(k), counts[k]);
	gs_json_end_obj(w);
}

static void json_devices(struct gs_json *w, const struct gs_trace *t)
{
	const struct gs_device *dev;
	size_t n;

	dev = gs_trace_devices(t, &n);
	gs_json_arr(w, "device_list");
	for (size_t i = 0; i < n; i++) {
		char cc[24];

		snprintf(cc, sizeof(cc), "%u.%u", dev[i].cc_major, dev[i].cc_minor);
		gs_json_row(w, NULL);
		gs_json_u64(w, "id", dev[i].id);
		gs_json_str(w, "name", gs_trace_string(t, dev[i].name));
		gs_json_u64(w, "sm_count", dev[i].sm_count);
		gs_json_str(w, "compute_capability", cc);
		gs_json_u64(w, "memory_bytes", dev[i].memory_bytes);
		gs_json_u64(w, "copy_engines", dev[i].copy_engines);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static void json_processes(struct gs_json *w, const struct gs_trace *t)
{
	const struct gs_process *p;
	size_t n;

	p = gs_trace_processes(t, &n);
	gs_json_arr(w, "process_list");
	for (size_t i = 0; i < n; i++) {
		gs_json_row(w, NULL);
		gs_json_i64(w, "pid", p[i].pid);
		gs_json_str(w, "host", gs_trace_string(t, p[i].host_name));
		if (p[i].has_rank)
			gs_json_u64(w, "rank", p[i].rank);
		else
			gs_json_null(w, "rank");
		if (p[i].world_size)
			gs_json_u64(w, "world_size", p[i].world_size);
		else
			gs_json_null(w, "world_size");
		if (p[i].has_backend)
			gs_json_str(w, "backend", gs_trace_string(t, p[i].backend));
		else
			gs_json_null(w, "backend");
		gs_json_str(w, "clock", gs_clock_source_name(p[i].clock));
		gs_json_i64(w, "wall_offset_ns", p[i].wall_offset_ns);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static void json_warnings(struct gs_json *w, const struct gs_trace *t)
{
	const struct gs_warning *warn;
	size_t n;

	warn = gs_trace_warnings(t, &n);
	gs_json_arr(w, "warnings");
	for (size_t i = 0; i < n; i++) {
		gs_json_row(w, NULL);
		gs_json_str(w, "message", warn[i].message);
		gs_json_u64(w, "count", warn[i].count);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

gs_status gs_summary_write_json(FILE *f, const struct gs_summary *s)
{
	struct gs_outbuf o;
	struct gs_json w;

	if (!f || !s || !s->trace) {
		gs_error_append("gs_summary_write_json: no output or no computed summary");
		return GS_ERR_INVALID;
	}
	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, GS_JSON_ESCAPE_DEL);
	gs_json_obj(&w, NULL);
	gs_json_str(&w, "schema", "gpuscope.info/1");
	if (s->file)
		gs_json_str(&w, "file", s->file);
	if (s->format)
		gs_json_str(&w, "format", s->format);
	gs_json_u64(&w, "processes", s->processes);
	json_processes(&w, s->trace);
	gs_json_u64(&w, "devices", s->devices);
	json_devices(&w, s->trace);
	gs_json_u64(&w, "streams", s->streams);
	gs_json_u64(&w, "threads", s->threads);
	json_by_kind(&w, "ops", s->ops, GS_OP_KIND_COUNT, gs_op_kind_name);
	gs_json_u64(&w, "op_total", s->op_total);
	json_by_kind(&w, "op_ns", s->op_ns, GS_OP_KIND_COUNT, gs_op_kind_name);
	gs_json_u64(&w, "copy_bytes", s->copy_bytes);
	gs_json_u64(&w, "memset_bytes", s->memset_bytes);
	gs_json_u64(&w, "api_calls", s->api_calls);
	json_by_kind(&w, "api_calls_by_kind", s->api_by_kind, GS_API_KIND_COUNT, gs_api_kind_name);
	gs_json_u64(&w, "syncs", s->syncs);
	json_by_kind(&w, "syncs_by_kind", s->syncs_by_kind, GS_SYNC_KIND_COUNT, gs_sync_kind_name);
	gs_json_u64(&w, "event_records", s->event_records);
	gs_json_u64(&w, "host_ranges", s->host_ranges);
	json_by_kind(&w, "host_ranges_by_kind", s->ranges_by_kind, GS_RANGE_KIND_COUNT,
		     gs_range_kind_name);
	gs_json_u64(&w, "nvtx_ranges", s->ranges_by_kind[GS_RANGE_NVTX]);
	gs_json_u64(&w, "allocations", s->allocations);
	gs_json_u64(&w, "collectives", s->collectives);
	gs_json_u64(&w, "overheads", s->overheads);
	gs_json_i64(&w, "first_ns", s->first_ns);
	gs_json_i64(&w, "last_ns", s->last_ns);
	gs_json_i64(&w, "span_ns", s->span_ns);
	gs_json_u64(&w, "dropped", s->dropped);
	json_warnings(&w, s->trace);
	gs_json_end_obj(&w);
	gs_outbuf_putc(&o, '\n');
	return gs_outbuf_finish(&o);
}
